"""Playing styles by name: the brain for ``random``, ``station`` or ``tag``, for house bots and
network bots alike."""

from __future__ import annotations

from feltroom.errors import InvalidConfiguration
from feltroom.strategy.random_brain import Brain, RandomBrain
from feltroom.strategy.station import StationBrain
from feltroom.strategy.tag import TagBrain

__all__ = ["STYLES", "make_brain", "reads_view"]

STYLES = ("random", "station", "tag")
"""The playing styles a bot can have."""


def make_brain(style: str, seed: int | str | None = None) -> Brain:
    """A new brain of ``style``: ``random`` (the house bots' mix: fold 25%, check or call 60%,
    raise 15%), ``station`` (check or call) or ``tag`` (tight-aggressive)."""
    if style == "random":
        return RandomBrain(seed, fold=0.25, passive=0.6, aggressive=0.15)
    if style == "station":
        return StationBrain(seed)
    if style == "tag":
        return TagBrain(seed)
    raise InvalidConfiguration(f"unknown bot style {style!r}; styles are {', '.join(STYLES)}")


def reads_view(style: str) -> bool:
    """Whether a brain of ``style`` decides from the hand's view (not only the legal options)."""
    return style == "tag"

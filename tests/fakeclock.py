"""A settable clock for tests of the room (epoch seconds)."""

from __future__ import annotations


class Clock:
    """A settable clock (epoch seconds)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

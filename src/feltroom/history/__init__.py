"""Hand histories (layer ``history``): a neutral hand record, PHH reading and writing, replay.

``feltroom.history.phh`` reads and writes PHH; ``feltroom.history.replay`` replays records through
the rules engine (the ``feltroom replay`` command); ``feltroom.history.acpc`` is the ACPC dealer
protocol's notation (game definitions, ``MATCHSTATE`` lines, match logs) on the engine.
"""

from feltroom.history.phh import PHHError, dumps, dumps_all, load_file, loads, loads_all
from feltroom.history.record import (
    Action,
    ActionKind,
    ForcedBet,
    ForcedKind,
    HandRecord,
    PlayerRecord,
    Protection,
    RakeRecord,
    Stakes,
    Structure,
)

__all__ = [
    "Action",
    "ActionKind",
    "ForcedBet",
    "ForcedKind",
    "HandRecord",
    "PHHError",
    "PlayerRecord",
    "Protection",
    "RakeRecord",
    "Stakes",
    "Structure",
    "dumps",
    "dumps_all",
    "load_file",
    "loads",
    "loads_all",
]

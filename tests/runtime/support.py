"""Helpers of the runtime's tests: a fake clock, test tables, driving a room."""

from __future__ import annotations

from collections.abc import Callable

from feltroom.room.runtime import RoomRuntime
from feltroom.room.tables_config import TableSpec, parse_tables

START = 1_800_000_000.0


class Clock:
    """A settable clock (epoch seconds)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def tables(text: str) -> list[TableSpec]:
    return parse_tables(text, "test tables")


HEADS_UP = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
"""

TWO_TABLES = """
[[table]]
id = "alpha"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6

[[table]]
id = "beta"
preset = "limit_1_2"
max_seats = 6
"""

SNG = """
[[tournament]]
id = "sng4"
format = "sng"
seats_per_table = 4
max_entries = 4
starting_stack = 300
buy_in = 500
fee = 50
"""
"""A sit-and-go of four with short stacks (it plays to its end in a few hundred hands)."""

Room = Callable[..., RoomRuntime]


async def run_for(room: RoomRuntime, clock: Clock, seconds: float, step: float = 0.5) -> None:
    """Advance the fake clock by ``seconds`` in steps, driving every table."""
    end = clock.now + seconds
    while clock.now < end:
        clock.now = min(end, clock.now + step)
        await room.advance(clock.now)

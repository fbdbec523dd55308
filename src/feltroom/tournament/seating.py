"""Where players sit: the seat draw, the balancing picks, the shortest table (pure functions).

Tables play the ``dead`` button (R-TOURN-4): the next big blind is the first player clockwise
after last hand's big blind, and last hand's big-blind seat is the next small-blind seat. So the
open seat that reaches the big blind soonest is the first open seat clockwise after last hand's
big blind, never that seat itself (R-TOURN-7).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

from feltroom.table.button import clockwise

__all__ = ["draw_seats", "next_big_blind", "open_seats", "shortest", "worst_open_seat"]


def open_seats(occupied: Collection[int], max_seats: int) -> list[int]:
    return [s for s in range(1, max_seats + 1) if s not in occupied]


def next_big_blind(occupied: Collection[int], last_big: int | None, max_seats: int) -> int:
    """The seat of the player who would be big blind next (R-TOURN-7): the first occupied seat
    after ``last_big`` (a table that has not dealt yet: its lowest occupied seat)."""
    if not occupied:
        raise ValueError("an empty table has no big blind")
    if last_big is None:
        return min(occupied)
    for seat in clockwise(last_big, max_seats):
        if seat in occupied:
            return seat
    raise AssertionError("unreachable: some seat is occupied")  # pragma: no cover


def worst_open_seat(
    occupied: Collection[int], last_big: int | None, max_seats: int, rng: random.Random
) -> int:
    """The open seat that reaches the big blind soonest, never the small-blind seat (R-TOURN-7);
    at a table that has not dealt yet, a random open seat."""
    free = open_seats(occupied, max_seats)
    if not free:
        raise ValueError("the table has no open seat")
    if last_big is None:
        return rng.choice(free)
    for seat in clockwise(last_big, max_seats):
        if seat != last_big and seat not in occupied:
            return seat
    return free[0]  # only the small-blind seat is open: a table this short cannot be full


def shortest(counts: Mapping[int, int], exclude: Collection[int] = ()) -> int:
    """The table with the fewest players; ties: the lowest table number (R-TOURN-7)."""
    candidates = [t for t in counts if t not in exclude]
    return min(candidates, key=lambda t: (counts[t], t))


def draw_seats(
    entries: Sequence[int], seats_per_table: int, rng: random.Random
) -> dict[int, dict[int, int]]:
    """The random seat draw at the start (R-TOURN-4): as few tables as hold everyone, as even as
    can be (no two tables more than one player apart), every player at a random seat.
    Returns table number -> seat -> entry."""
    if not entries:
        return {}
    order = list(entries)
    rng.shuffle(order)
    tables = -(-len(order) // seats_per_table)
    layout: dict[int, dict[int, int]] = {}
    for number in range(1, tables + 1):
        players = order[number - 1 :: tables]
        seats = rng.sample(range(1, seats_per_table + 1), len(players))
        layout[number] = dict(zip(seats, players, strict=True))
    return layout

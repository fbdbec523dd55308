"""Showdown order (R-SHOW-3) and who must show (R-SHOW-4).

The player who made the last bet or raise in the final betting round shows first, then the others
clockwise. If nobody bet in that round, the first player left of the button who acted in it shows
first, the others who acted in it follow clockwise, and the players who were all-in before it come
last, clockwise (R-SHOW-3). A player shows when they must (first to show; every hand when the
board was run out, R-ALLIN-3) or when their hand is at least as good as the best shown so far in
one of the pots they contest; otherwise they muck (R-SHOW-4), unless they chose to show losing
hands. Cards speak (R-SHOW-1): a hand that could win
a pot is never mucked by the engine. Mucked hands still go into the record (R-SHOW-5).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["showdown_order"]


def showdown_order(
    aggressor: int | None, first: int, acted: Sequence[bool], live: Sequence[bool]
) -> list[int]:
    """Positions still in the hand in showdown order (R-SHOW-3): clockwise from ``aggressor``
    (the last bettor or raiser of the final round, when still in); else clockwise from ``first``
    (the final round's first position), those who ``acted`` in that round before those who did
    not (all-in before it)."""
    n = len(live)
    if aggressor is not None and live[aggressor]:
        return [p for p in (*range(aggressor, n), *range(aggressor)) if live[p]]
    rotation = [p for p in (*range(first, n), *range(first)) if live[p]]
    return [p for p in rotation if acted[p]] + [p for p in rotation if not acted[p]]

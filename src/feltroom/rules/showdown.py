"""Showdown order (R-SHOW-3) and who must show (R-SHOW-4).

The player who made the last bet or raise in the final betting round shows first; if nobody bet
in that round, the first player to act in it; then the others clockwise. A player shows when they
must (first to show; every hand when the betting closed with players all-in, R-ALLIN-3) or when
their hand is at least as good as the best shown so far in one of the pots they contest; otherwise
they muck, unless they chose to show losing hands. Cards speak (R-SHOW-1): a hand that could win
a pot is never mucked by the engine. Mucked hands still go into the record (R-SHOW-5).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["showdown_order"]


def showdown_order(first: int, live: Sequence[bool]) -> list[int]:
    """Positions still in the hand, clockwise starting at ``first`` (or the next one in)."""
    n = len(live)
    return [p for p in (*range(first, n), *range(first)) if live[p]]

"""Payouts (R-TOURN-11), shared places (R-TOURN-10) and cancellation shares (R-TOURN-13).

Every amount is an integer in the currency's smallest unit; every division rounds down and the
remainder goes where the rule says, so the prizes always add up to the prize pool exactly.

The default payout table for N entries: N <= 4 pays 100; 5-7 pays 65/35; 8-12 pays 50/30/20;
13-18 pays 40/30/20/10; 19-27 pays 35/25/18/13/9; from 28, ceil(0.15 N) places with place k's
share proportional to 1/k^1.1, places dropped from the bottom while the last prize would be below
1.5 buy-ins. The weights 1/k^1.1 are computed in decimal arithmetic to 40 digits and scaled to
integers, so the table is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Context, Decimal

__all__ = [
    "cancellation_shares",
    "default_percentages",
    "payout_table",
    "prize_pool",
    "split_equally",
]

_PERCENTAGES = (
    (4, (100,)),
    (7, (65, 35)),
    (12, (50, 30, 20)),
    (18, (40, 30, 20, 10)),
    (27, (35, 25, 18, 13, 9)),
)
_CONTEXT = Context(prec=40)
_SCALE = 10**30
_EXPONENT = Decimal("1.1")
_WEIGHTS: list[int] = []


def _weight(k: int) -> int:
    """round(10^30 / k^1.1), exactly reproducible."""
    while len(_WEIGHTS) < k:
        n = len(_WEIGHTS) + 1
        power = _CONTEXT.power(Decimal(n), _EXPONENT)
        _WEIGHTS.append(int(_CONTEXT.divide(Decimal(_SCALE), power).to_integral_value()))
    return _WEIGHTS[k - 1]


def default_percentages(entries: int) -> tuple[int, ...] | None:
    """The percentages of the default table for ``entries`` up to 27 (``None`` from 28)."""
    for top, shares in _PERCENTAGES:
        if entries <= top:
            return shares
    return None


def prize_pool(entries: int, buy_in: int, guarantee: int = 0) -> tuple[int, int]:
    """The prize pool and the house's overlay: the buy-ins, topped up to the guarantee
    (R-TOURN-2)."""
    collected = entries * buy_in
    overlay = max(0, guarantee - collected)
    return collected + overlay, overlay


def _by_weights(pool: int, weights: Sequence[int]) -> list[int]:
    """``pool`` in proportion to ``weights``, each rounded down, the remainder to the first."""
    total = sum(weights)
    prizes = [pool * w // total for w in weights]
    prizes[0] += pool - sum(prizes)
    return prizes


def payout_table(entries: int, pool: int, buy_in: int, preset: str = "default") -> tuple[int, ...]:
    """The prize of each place, first place first (R-TOURN-11); the prizes add up to ``pool``.

    ``winner_takes_all`` pays the whole pool to first place."""
    if entries < 1:
        raise ValueError(f"a payout table needs at least one entry, not {entries}")
    if preset == "winner_takes_all":
        return (pool,)
    percentages = default_percentages(entries)
    if percentages is not None:
        return tuple(_by_weights(pool, percentages))
    places = -(-15 * entries // 100)  # ceil(0.15 N)
    while True:
        prizes = _by_weights(pool, [_weight(k) for k in range(1, places + 1)])
        if places == 1 or 2 * prizes[-1] >= 3 * buy_in:
            return tuple(prizes)
        places -= 1  # the last prize would be below 1.5 buy-ins


def split_equally(total: int, tied: Sequence[int]) -> dict[int, int]:
    """``total`` split equally among the ``tied`` entries (in registration order): any remainder
    one smallest unit each to the first of them (R-TOURN-10)."""
    share, rest = divmod(total, len(tied))
    return {entry: share + (1 if k < rest else 0) for k, entry in enumerate(sorted(tied))}


def cancellation_shares(
    pool_left: int,
    chips: Mapping[int, int],
    first_each: int,
) -> dict[int, int]:
    """R-TOURN-13: each remaining entry (``chips``: entry -> stack) first gets ``first_each`` (the
    next place's prize in the money, the buy-in before it), as far as the pool goes; the rest is
    divided in proportion to chips, rounded down, the remainder to the biggest stack (ties: the
    earliest entry)."""
    if not chips:
        return {}
    entries = sorted(chips)
    base = min(first_each, pool_left // len(entries))
    shares = dict.fromkeys(entries, base)
    rest = pool_left - base * len(entries)
    total = sum(chips.values())
    if total > 0 and rest:
        for entry in entries:
            shares[entry] += rest * chips[entry] // total
        leader = min(entries, key=lambda e: (-chips[e], e))
        shares[leader] += pool_left - sum(shares.values())
    elif rest:
        shares[entries[0]] += rest
    return shares

"""Statistical self-tests of the production shuffle (R-RNG-2).

Run on N decks from ``shuffled_deck`` (the production path, OS CSPRNG). Each test compares what
was seen with what a uniform shuffle gives and rejects at ``ALPHA`` = 1e-3:

- ``card_position``: chi-square of the 52 x 52 table of card-at-position counts (df 51 * 51 =
  2601).
- ``first_two_cards``: chi-square of the 52 * 51 ordered pairs dealt as the first two cards
  (df 2651).
- ``adjacency``: for each of the 2652 ordered pairs (a, b), how often b lies right after a; the
  largest |z| against the binomial expectation N / 52, with a Bonferroni threshold over all pairs.
- ``fixed_points``: the number of cards left at their starting position, against Poisson(1)
  (bins 0, 1, 2, 3, 4, 5+; df 5).

Standard library only; the chi-square tail comes from the regularised incomplete gamma function.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any

from feltroom.cards import Deck
from feltroom.shuffle import shuffled_deck

__all__ = ["ALPHA", "chi2_isf", "chi2_sf", "run_selftest", "statistics_of"]

ALPHA = 1e-3
N_CARDS = 52
_FIXED_BINS = 6  # 0, 1, 2, 3, 4, 5 or more


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _gamma_q(df / 2.0, x / 2.0)


def chi2_isf(p: float, df: int) -> float:
    """The x with ``chi2_sf(x, df) == p`` (bisection on the exact tail; 1e-9 relative)."""
    low, high = 0.0, float(df)
    while chi2_sf(high, df) > p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if chi2_sf(middle, df) > p:
            low = middle
        else:
            high = middle
        if high - low <= 1e-9 * high:
            break
    return (low + high) / 2.0


def _gamma_q(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x): series below a + 1, continued fraction above."""
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        for _ in range(100_000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    # Lentz's method for the continued fraction.
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(log_prefix) * h


def _chi_square(observed: Sequence[int], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def statistics_of(orders: bytes, alpha: float = ALPHA) -> dict[str, dict[str, Any]]:
    """Run the four tests on shuffles given as consecutive 52-byte card orders (card indices)."""
    n = len(orders) // N_CARDS
    if n < 1 or len(orders) % N_CARDS:
        raise ValueError("expected one or more 52-byte deck orders")
    results: dict[str, dict[str, Any]] = {}

    # Card x position: each column is one position across all decks.
    observed: list[int] = []
    for position in range(N_CARDS):
        counts = Counter(orders[position::N_CARDS])
        observed += [counts[card] for card in range(N_CARDS)]
    df = (N_CARDS - 1) ** 2
    results["card_position"] = _verdict(
        _chi_square(observed, [n / N_CARDS] * len(observed)), chi2_isf(alpha, df)
    )

    # First two cards as an ordered pair.
    pairs = Counter(zip(orders[0::N_CARDS], orders[1::N_CARDS], strict=True))
    cells = N_CARDS * (N_CARDS - 1)
    observed = [pairs[(a, b)] for a in range(N_CARDS) for b in range(N_CARDS) if a != b]
    results["first_two_cards"] = _verdict(
        _chi_square(observed, [n / cells] * cells), chi2_isf(alpha, cells - 1)
    )

    # Adjacency: b immediately after a, anywhere in the deck.
    follows: Counter[tuple[int, int]] = Counter()
    for position in range(N_CARDS - 1):
        follows.update(zip(orders[position::N_CARDS], orders[position + 1 :: N_CARDS], strict=True))
    p = 1.0 / N_CARDS  # 51 adjacent slots, each holding a given ordered pair with prob 1/(52*51)
    mean, sd = n * p, math.sqrt(n * p * (1.0 - p))
    worst = max(
        abs(follows[(a, b)] - mean) / sd for a in range(N_CARDS) for b in range(N_CARDS) if a != b
    )
    results["adjacency"] = _verdict(worst, NormalDist().inv_cdf(1.0 - alpha / (2.0 * cells)))

    # Fixed points of the permutation (decks start in index order).
    fixed = Counter(
        min(sum(1 for i in range(N_CARDS) if orders[k * N_CARDS + i] == i), _FIXED_BINS - 1)
        for k in range(n)
    )
    pmf = [math.exp(-1.0) / math.factorial(k) for k in range(_FIXED_BINS - 1)]
    expected = [n * q for q in pmf] + [n * (1.0 - sum(pmf))]
    observed = [fixed[k] for k in range(_FIXED_BINS)]
    results["fixed_points"] = _verdict(
        _chi_square(observed, expected), chi2_isf(alpha, _FIXED_BINS - 1)
    )
    return results


def _verdict(statistic: float, threshold: float) -> dict[str, Any]:
    return {"statistic": statistic, "threshold": threshold, "pass": statistic < threshold}


def production_orders(n: int, deal: Callable[[], Deck] = shuffled_deck) -> bytes:
    """``n`` production shuffles as consecutive 52-byte card orders."""
    return b"".join(bytes(card.index for card in deal()) for _ in range(n))


def run_selftest(n: int, deal: Callable[[], Deck] = shuffled_deck) -> dict[str, Any]:
    """Shuffle ``n`` decks and report every test and the overall verdict (the CLI's JSON)."""
    tests = statistics_of(production_orders(n, deal))
    return {"shuffles": n, "tests": tests, "pass": all(t["pass"] for t in tests.values())}

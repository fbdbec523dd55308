"""The few tail probabilities the signals need, in log10 so that tiny ones do not underflow, and
the score every signal is measured in.

A signal tests each pair (or ordered pair) of accounts; ``score`` turns the pair's p-value into
``-log10(p * tests)``: the p-value corrected for the number of pairs tested (Bonferroni), on a
log scale, floored at 0. A score of 2 means: among all the pairs tested, a result this extreme
would turn up by chance about once in a hundred reports.
"""

from __future__ import annotations

import math

__all__ = [
    "log10_binomial_upper",
    "log10_normal_upper",
    "log10_poisson_lower",
    "log10_poisson_upper",
    "score",
]

_LN10 = math.log(10.0)


def _log_term(i: int, lam: float) -> float:
    return -lam + i * math.log(lam) - math.lgamma(i + 1)


def _log_sum(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def log10_poisson_upper(k: int, lam: float) -> float:
    """log10 P(X >= k) for X ~ Poisson(lam)."""
    if k <= 0:
        return 0.0
    if lam <= 0:
        return -math.inf
    if k <= lam:
        lower = math.exp(log10_poisson_lower(k - 1, lam) * _LN10)
        return math.log10(max(1e-300, 1.0 - lower)) if lower < 1.0 else -300.0
    terms = []
    i = k
    while True:
        term = _log_term(i, lam)
        terms.append(term)
        if term < terms[0] - 40 or i > k + 100_000:
            break
        i += 1
    return min(0.0, _log_sum(terms) / _LN10)


def log10_poisson_lower(k: int, lam: float) -> float:
    """log10 P(X <= k) for X ~ Poisson(lam)."""
    if k < 0:
        return -math.inf
    if lam <= 0:
        return 0.0
    if k >= lam:
        upper = math.exp(log10_poisson_upper(k + 1, lam) * _LN10)
        return math.log10(max(1e-300, 1.0 - upper))
    return min(0.0, _log_sum([_log_term(i, lam) for i in range(k + 1)]) / _LN10)


def log10_binomial_upper(k: int, n: int, p: float) -> float:
    """log10 P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 0.0
    if k > n or p <= 0:
        return -math.inf
    if p >= 1:
        return 0.0
    terms = [
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * math.log(p)
        + (n - i) * math.log1p(-p)
        for i in range(k, n + 1)
    ]
    return min(0.0, _log_sum(terms) / _LN10)


def log10_normal_upper(z: float) -> float:
    """log10 P(Z >= z) for a standard normal Z."""
    tail = 0.5 * math.erfc(z / math.sqrt(2.0))
    if tail > 1e-300:
        return math.log10(tail)
    # Mills' ratio, for z far beyond 37 where erfc underflows
    return (-z * z / 2 - math.log(z * math.sqrt(2 * math.pi))) / _LN10


def score(log10_p: float, tests: int) -> float:
    """``-log10(p * tests)`` floored at 0, rounded to two decimals."""
    if tests < 1:
        return 0.0
    value = -log10_p - math.log10(tests)
    return round(max(0.0, value), 2) if math.isfinite(value) else 99.0

"""The batch evaluator: hand values for many hands at once, with numpy.

Takes an ``(N, k)`` array of card indices (k = 5, 6 or 7; any integer dtype, uint8 is the
cheapest) and returns ``N`` values, identical to the single-call evaluator's. Used for equity
estimates, bots and the exhaustive checks. It applies the same packed keys as
``feltroom.evaluate``: per row, the summed key of the cards; a dense table turns the rank part into
the value of the best non-flush hand; the rows whose suit part shows a flush (about 3% of
seven-card rows) are looked up again by the rank bitmask of the flush suit.

Rows are processed in chunks so that the intermediate arrays stay in the processor's cache.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from feltroom.evaluate import CARD_KEYS, SUIT_BITS, tables

__all__ = ["evaluate_batch"]

_CHUNK = 1 << 15

_KEYS = np.array(CARD_KEYS, dtype=np.uint32)
_RANK_BITS = np.array([1 << (i >> 2) for i in range(52)], dtype=np.uint16)
_SUITS = np.array([i & 3 for i in range(52)], dtype=np.int8)
_FLUSH = np.array(tables().flush, dtype=np.uint16)


def _dense(table: dict[int, int]) -> npt.NDArray[np.uint16]:
    dense = np.zeros(max(table) + 1, dtype=np.uint16)
    dense[np.fromiter(table.keys(), dtype=np.int64)] = np.fromiter(table.values(), dtype=np.uint16)
    return dense


_NONFLUSH = {n: _dense(tables().nonflush[n]) for n in (5, 6, 7)}
_FLUSH_SUIT = {n: np.array(tables().flush_suit[n], dtype=np.int8) for n in (5, 6, 7)}


def evaluate_batch(cards: npt.ArrayLike, *, check_distinct: bool = False) -> npt.NDArray[np.uint16]:
    """Values (1..7462, higher wins) of the best hand in each row of an (N, 5|6|7) index array.

    Every index must be 0..51 (checked). Each row must hold distinct cards; that is checked only
    with ``check_distinct=True``, since callers such as enumerations build distinct rows anyway.
    """
    hands = np.asarray(cards)
    if hands.ndim != 2 or hands.shape[1] not in (5, 6, 7):
        raise ValueError(
            f"expected an (N, 5), (N, 6) or (N, 7) array of card indices, got shape {hands.shape}"
        )
    if not np.issubdtype(hands.dtype, np.integer):
        raise ValueError(f"card indices must be integers 0..51, got dtype {hands.dtype}")
    out = np.empty(hands.shape[0], dtype=np.uint16)
    if hands.shape[0] == 0:
        return out
    low, high = int(hands.min()), int(hands.max())
    if low < 0 or high > 51:
        raise ValueError(f"card indices must be 0..51, found {low if low < 0 else high}")
    if check_distinct:
        _check_distinct(hands)
    n = hands.shape[1]
    nonflush, flush_suit = _NONFLUSH[n], _FLUSH_SUIT[n]
    for start in range(0, hands.shape[0], _CHUNK):
        chunk = hands[start : start + _CHUNK]
        key = np.take(_KEYS, chunk[:, 0])
        for column in range(1, n):
            key += np.take(_KEYS, chunk[:, column])
        values = np.take(nonflush, key >> SUIT_BITS)
        suit = np.take(flush_suit, key & ((1 << SUIT_BITS) - 1))
        flushes = np.flatnonzero(suit >= 0)
        if flushes.size:
            rows = chunk[flushes]
            in_suit = np.take(_SUITS, rows) == suit[flushes, None]
            masks = np.bitwise_or.reduce(np.where(in_suit, np.take(_RANK_BITS, rows), 0), axis=1)
            values[flushes] = np.take(_FLUSH, masks)
        out[start : start + _CHUNK] = values
    return out


def _check_distinct(hands: npt.NDArray[Any]) -> None:
    bits = np.bitwise_or.reduce(np.left_shift(np.uint64(1), hands.astype(np.uint64)), axis=1)
    counts = np.zeros(hands.shape[0], dtype=np.int64)
    for shift in range(0, 64, 8):
        counts += np.take(_POPCOUNT8, (bits >> np.uint64(shift)) & np.uint64(255))
    bad = np.flatnonzero(counts != hands.shape[1])
    if bad.size:
        raise ValueError(f"row {int(bad[0])} holds the same card twice: {hands[bad[0]].tolist()}")


_POPCOUNT8 = np.array([i.bit_count() for i in range(256)], dtype=np.int64)

"""Equity against random hands, estimated with the numpy batch evaluator.

``equity(hole, board, opponents, samples, rng)`` deals the unknown cards at random ``samples``
times (the opponents' hole cards and the rest of the board, from the cards the player cannot
see: everything but their own two and the board), values every seven-card hand at once with
``feltroom.batch.evaluate_batch`` and returns the player's share of the pot on average (a split
counts its share). A few hundred samples take a few milliseconds and are within a few percent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from feltroom.batch import evaluate_batch
from feltroom.cards import Card

__all__ = ["equity"]


def equity(
    hole: Sequence[Card],
    board: Sequence[Card],
    opponents: int,
    samples: int,
    rng: np.random.Generator,
) -> float:
    """The player's expected share of the pot against ``opponents`` random hands (0..1), by
    ``samples`` random deals of the unseen cards. With no opponent the pot is the player's."""
    if len(hole) != 2 or len(board) > 5:
        raise ValueError(
            f"equity needs two hole cards and at most five board cards, got {len(hole)} and "
            f"{len(board)}"
        )
    if opponents <= 0:
        return 1.0
    if samples <= 0:
        raise ValueError(f"samples must be at least 1, not {samples}")
    known = [c.index for c in hole] + [c.index for c in board]
    deck = np.array(sorted(set(range(52)) - set(known)), dtype=np.uint8)
    missing = 5 - len(board)
    need = missing + 2 * opponents
    if need > deck.size:
        raise ValueError(f"{opponents} opponents need more cards than the deck holds")
    order = np.argsort(rng.random((samples, deck.size)), axis=1)[:, :need]
    drawn = deck[order]
    fixed = np.array([c.index for c in board], dtype=np.uint8)
    boards = np.concatenate([np.broadcast_to(fixed, (samples, fixed.size)), drawn[:, :missing]], 1)
    mine = np.array([c.index for c in hole], dtype=np.uint8)
    rows = [np.concatenate([np.broadcast_to(mine, (samples, 2)), boards], axis=1)]
    for k in range(opponents):
        theirs = drawn[:, missing + 2 * k : missing + 2 * k + 2]
        rows.append(np.concatenate([theirs, boards], axis=1))
    values = evaluate_batch(np.concatenate(rows)).reshape(opponents + 1, samples)
    hero, best = values[0], values[1:].max(axis=0)
    tied = (values[1:] == hero).sum(axis=0)
    share = np.where(hero > best, 1.0, np.where(hero == best, 1.0 / (1 + tied), 0.0))
    return float(share.mean())

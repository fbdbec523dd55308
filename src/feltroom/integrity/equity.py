"""Heads-up equity with every card known: how often one hand beats another from a given board.

The house knows every hole card, so a call can be judged against the hand it actually faced. The
cards still to come are enumerated when two or fewer are missing (at most 990 boards after the
flop) and sampled otherwise (before the flop: ``samples`` boards from a generator seeded by the
caller, so a report is the same every time it runs). Known cards of other players are dead.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from feltroom.cards import Card
from feltroom.evaluate import evaluate_indices

__all__ = ["heads_up_equity"]


def heads_up_equity(
    mine: Sequence[Card],
    theirs: Sequence[Card],
    board: Sequence[Card],
    dead: Iterable[Card] = (),
    *,
    samples: int = 400,
    seed: int = 0,
) -> float:
    """My share of a pot against ``theirs`` from ``board`` (0..1; a tie counts half)."""
    if len(mine) != 2 or len(theirs) != 2 or len(board) > 5:
        raise ValueError("equity needs two hole cards each and at most five board cards")
    known = {card.index for card in (*mine, *theirs, *board, *dead)}
    rest = [index for index in range(52) if index not in known]
    missing = 5 - len(board)
    fixed = [card.index for card in board]
    a = [card.index for card in mine]
    b = [card.index for card in theirs]
    if missing <= 2:
        runs: Iterable[Sequence[int]] = itertools.combinations(rest, missing)
    else:
        generator = random.Random(seed)
        runs = (generator.sample(rest, missing) for _ in range(samples))
    won = total = 0.0
    for run in runs:
        cards = [*fixed, *run]
        mine_value = evaluate_indices([*a, *cards])
        their_value = evaluate_indices([*b, *cards])
        won += 1.0 if mine_value > their_value else 0.5 if mine_value == their_value else 0.0
        total += 1
    return won / total if total else 0.5

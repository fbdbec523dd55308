"""Three-handed hand shapes for the integrity tests, each a scripted hand in seats 1 (button),
2 (small blind) and 3 (big blind) of a 1/2 No-Limit table, stored as the room stores it."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from feltroom.integrity import StoredHand
from feltroom.rules import Call, Check, Fold, RaiseTo

from .build import stored_hand

STRONG, MIDDLE, WEAK = "As Ad", "Kh Qh", "7c 2d"
BOARD = "2s 9h Td 4c 3s"

Shape = Callable[[int, str, str, str], StoredHand]


def raise_fold(hand_id: int, winner: str, third: str, loser: str) -> StoredHand:
    """The winner raises, the loser calls, the third folds; the loser folds to the flop bet:
    the loser's 6 chips (and the third's blind) go to the winner."""
    return stored_hand(
        hand_id,
        [(winner, 200, MIDDLE), (third, 200, WEAK), (loser, 200, STRONG)],
        BOARD,
        [
            (winner, RaiseTo(6)),
            (third, Fold()),
            (loser, Call()),
            (loser, Check()),
            (winner, RaiseTo(10)),
            (loser, Fold()),
        ],
    )


def check_down(hand_id: int, first: str, second: str, third: str) -> StoredHand:
    """Everybody limps and the hand is checked to the showdown."""
    streets = [(second, Check()), (third, Check()), (first, Check())] * 3
    return stored_hand(
        hand_id,
        [(first, 200, MIDDLE), (second, 200, WEAK), (third, 200, STRONG)],
        BOARD,
        [(first, Call()), (second, Call()), (third, Check()), *streets],
    )


def bet_fold(hand_id: int, bettor: str, second: str, third: str) -> StoredHand:
    """Everybody limps; the bettor bets the flop and both others fold."""
    return stored_hand(
        hand_id,
        [(bettor, 200, MIDDLE), (second, 200, WEAK), (third, 200, STRONG)],
        BOARD,
        [
            (bettor, Call()),
            (second, Call()),
            (third, Check()),
            (second, Check()),
            (third, Check()),
            (bettor, RaiseTo(6)),
            (second, Fold()),
            (third, Fold()),
        ],
    )


def shove_call(
    hand_id: int,
    shover: str,
    third: str,
    caller: str,
    *,
    caller_hole: str,
    shover_hole: str = STRONG,
) -> StoredHand:
    """The shover moves all-in; the third folds; the caller calls with ``caller_hole``."""
    return stored_hand(
        hand_id,
        [(shover, 100, shover_hole), (third, 200, MIDDLE), (caller, 200, caller_hole)],
        BOARD,
        [(shover, RaiseTo(100)), (third, Fold()), (caller, Call())],
    )


def short_all_in_check_down(hand_id: int, short: str, second: str, third: str) -> StoredHand:
    """The short stack moves all-in for 10; the other two call and check every street."""
    streets = [(second, Check()), (third, Check())] * 3
    return stored_hand(
        hand_id,
        [(short, 10, WEAK), (second, 200, MIDDLE), (third, 200, STRONG)],
        BOARD,
        [(short, RaiseTo(10)), (second, Call()), (third, Call()), *streets],
    )


def background(
    names: Sequence[str], count: int, start: int, seed: int, shapes: Sequence[Shape]
) -> list[StoredHand]:
    """``count`` hands of the given shapes among random trios of ``names``."""
    rng = random.Random(seed)
    trios = list(itertools.permutations(names, 3))
    return [rng.choice(shapes)(start + k, *rng.choice(trios)) for k in range(count)]


NAMES = ["ann", "ben", "cat", "dan", "eve", "fay"]
JUNE = datetime(2026, 6, 1, tzinfo=UTC).timestamp()


def dumping_hands() -> list[StoredHand]:
    """150 honest hands among ``NAMES`` from the first of June, then 40 in which dan folds to
    ben's raise: dan dumps chips to ben."""
    honest = background(NAMES, 150, 1, seed=1, shapes=[raise_fold, bet_fold, check_down])
    rng = random.Random(2)
    dumped = [raise_fold(1000 + k, "ben", rng.choice(["ann", "cat"]), "dan") for k in range(40)]
    hands = honest + dumped
    return [
        StoredHand(h.hand_id, h.table_id, JUNE + 60 * k, h.seats, h.record, h.settings)
        for k, h in enumerate(hands)
    ]

"""The hand evaluator (R-SHOW-1, R-SHOW-2): exhaustive counts, ordering, descriptions, peers."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

from feltroom.batch import evaluate_batch
from feltroom.cards import parse_cards
from feltroom.evaluate import (
    HandCategory,
    HandRank,
    category_of,
    describe,
    evaluate,
    evaluate5,
    evaluate_indices,
    tables,
)

FIVE_CARD_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3_744,
    HandCategory.FLUSH: 5_108,
    HandCategory.STRAIGHT: 10_200,
    HandCategory.THREE_OF_A_KIND: 54_912,
    HandCategory.TWO_PAIR: 123_552,
    HandCategory.ONE_PAIR: 1_098_240,
    HandCategory.HIGH_CARD: 1_302_540,
}


def rank(text: str) -> HandRank:
    return evaluate(parse_cards(text))


def _category_counts(values: np.ndarray) -> dict[HandCategory, int]:
    starts = np.array(tables().category_starts)
    categories = np.searchsorted(starts, values, side="right") - 1
    counts = np.bincount(categories, minlength=9)
    return {HandCategory(i): int(c) for i, c in enumerate(counts)}


# Rules: R-SHOW-2
def test_R_SHOW_2_all_five_card_hands_by_category_and_7462_values() -> None:
    hands = np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)
    assert len(hands) == 2_598_960
    values = evaluate_batch(hands)
    assert _category_counts(values) == FIVE_CARD_COUNTS
    assert len(np.unique(values)) == 7_462
    # The single-call path agrees with the batch path on every one of them.
    single = [evaluate5(h) for h in itertools.combinations(range(52), 5)]
    assert np.array_equal(np.array(single, dtype=np.uint16), values)


# Rules: R-SHOW-2
def test_R_SHOW_2_category_order() -> None:
    ladder = [
        "7c 5d 4h 3s 2c",  # high card
        "2c 2d 4h 5s 7c",  # one pair
        "2c 2d 3h 3s 4c",  # two pair
        "2c 2d 2h 3s 4c",  # three of a kind
        "Ac 2d 3h 4s 5c",  # the wheel: the lowest straight
        "2c 3c 4c 5c 7c",  # flush
        "2c 2d 2h 3s 3c",  # full house
        "2c 2d 2h 2s 3c",  # four of a kind
        "Ac 2c 3c 4c 5c",  # steel wheel: the lowest straight flush
    ]
    ranks = [rank(text) for text in ladder]
    assert [r.category for r in ranks] == list(HandCategory)
    assert ranks == sorted(ranks)
    assert len(set(ranks)) == len(ranks)


# Rules: R-SHOW-2
def test_R_SHOW_2_ace_to_five_is_the_lowest_straight() -> None:
    wheel, six_high, broadway = (
        rank("Ah 2d 3c 4s 5h"),
        rank("2d 3c 4s 5h 6d"),
        rank("Th Jd Qc Ks Ah"),
    )
    assert wheel < six_high < broadway
    assert wheel.category is HandCategory.STRAIGHT
    assert wheel.description == "Straight, Five high"
    assert rank("Qh Kd Ac 2s 3h").category is HandCategory.HIGH_CARD  # no wrap-around straights


# Rules: R-SHOW-2
def test_R_SHOW_2_kickers_break_ties_and_suits_never_rank() -> None:
    assert rank("Ah Ad Kc 9s 2h") > rank("As Ac Qc Js Th")
    assert rank("Ah Ad Kc 9s 3h") > rank("As Ac Kd 9c 2h")
    assert rank("Kh Kd 7c 7s Ah") > rank("Ks Kc 7d 7h Qs")
    assert rank("As Ks Qs Js 9s") == rank("Ah Kh Qh Jh 9h")  # suits never rank
    assert rank("As Js 9s 5s 2s") > rank("Ks Qs 9s 5s 2s")  # A-high flush beats K-high flush


# Rules: R-SHOW-1
def test_R_SHOW_1_best_five_of_seven_using_two_one_or_no_hole_cards() -> None:
    board = parse_cards("Ts Js Qs Ks 2d")
    # Both hole cards: a pair of aces with the royal flush needs only one (As).
    assert evaluate(parse_cards("As 3c") + board).description == "Royal Flush"
    # One hole card: the nine of spades completes a straight flush.
    assert evaluate(parse_cards("9s 3c") + board).description == "Straight Flush, King high"
    # No hole card: the board plays, and two players tie.
    board = parse_cards("Ah Kh Qh Jh Th")
    assert evaluate(parse_cards("2c 3d") + board) == evaluate(parse_cards("4c 5d") + board)
    # Six cards work too.
    assert (
        evaluate(parse_cards("Kh Kd Ks 7c 7d 2s")).description == "Full House, Kings full of Sevens"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Kh Kd Ks 7c 7d 2s 3s", "Full House, Kings full of Sevens"),
        ("Kh Kd 7s 7c 2d 3h 4s", "Two Pair, Kings and Sevens"),
        ("6h 6d 6s 6c 2d", "Four of a Kind, Sixes"),
        ("9h 9d 9s Ac 2d", "Three of a Kind, Nines"),
        ("Qh Qd 9s Ac 2d", "One Pair, Queens"),
        ("Ah Jd 9s 7c 2d", "High Card, Ace"),
        ("Ah Jh 9h 7h 2h", "Flush, Ace high"),
        ("5h 6d 7s 8c 9d", "Straight, Nine high"),
        ("5h 6h 7h 8h 9h", "Straight Flush, Nine high"),
        ("Th Jh Qh Kh Ah", "Royal Flush"),
    ],
)
def test_descriptions(text: str, words: str) -> None:
    hand = rank(text)
    assert hand.description == words == str(hand)
    assert describe(hand.value) == words


def test_bad_hands_are_refused() -> None:
    with pytest.raises(ValueError, match="5, 6 or 7 cards, not 4"):
        rank("As Kd Qh Jc")
    with pytest.raises(ValueError, match="5, 6 or 7 cards, not 3"):
        evaluate_indices([1, 2, 3])
    with pytest.raises(ValueError, match="same card twice"):
        evaluate([*parse_cards("As Kd Qh Jc"), parse_cards("As")[0]])
    with pytest.raises(ValueError, match=r"1\.\.7462"):
        category_of(0)


def test_batch_matches_single_on_random_hands() -> None:
    rng = np.random.default_rng(20261129)
    for k in (5, 6, 7):
        hands = np.argsort(rng.random((50_000, 52)), axis=1)[:, :k].astype(np.uint8)
        single = [evaluate_indices(tuple(h)) for h in hands.tolist()]
        assert evaluate_batch(hands).tolist() == single
        assert evaluate_batch(hands.astype(np.int64)).tolist() == single


def test_batch_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        evaluate_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"0\.\.51, found 52"):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="integers"):
        evaluate_batch(np.zeros((1, 5), dtype=np.float64))
    with pytest.raises(ValueError, match="row 1 holds the same card twice"):
        evaluate_batch(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]), check_distinct=True)
    assert evaluate_batch(np.zeros((0, 7), dtype=np.uint8)).shape == (0,)


SHOWDOWNS = 1_000_000
CHUNKS = 8


@pytest.mark.parametrize("chunk", range(CHUNKS))
# Rules: R-SHOW-1
def test_R_SHOW_1_one_million_random_showdowns_agree_with_phevaluator(chunk: int) -> None:
    # phevaluator ranks the same 7,462 classes, 1 = best: ours must equal 7463 minus its value,
    # for both players of every showdown. eval7 (another independent evaluator) must agree on
    # who wins each of them.
    import eval7
    from phevaluator import evaluate_cards

    names = [str(c) for c in parse_cards(" ".join(r + s for r in "23456789TJQKA" for s in "cdhs"))]
    e7 = [eval7.Card(name) for name in names]
    rng = random.Random(chunk)
    deck = list(range(52))
    disagreements = 0
    for _ in range(SHOWDOWNS // CHUNKS):
        cards = rng.sample(deck, 9)
        a, b = cards[:7], cards[2:]
        ours_a, ours_b = evaluate_indices(a), evaluate_indices(b)
        if ours_a != 7463 - evaluate_cards(*a) or ours_b != 7463 - evaluate_cards(*b):
            disagreements += 1
            continue
        theirs_a, theirs_b = eval7.evaluate([e7[i] for i in a]), eval7.evaluate([e7[i] for i in b])
        if (ours_a > ours_b) - (ours_a < ours_b) != (theirs_a > theirs_b) - (theirs_a < theirs_b):
            disagreements += 1
    assert disagreements == 0


def _all_seven_card_hands() -> list[np.ndarray]:
    """Every 7-card hand, in blocks: two lowest cards fixed, the five higher ones in colex order."""
    # In colex order the 5-sets of {0..m-1} are the first comb(m, 5) rows, for every m.
    comb5 = np.array(
        sorted(itertools.combinations(range(50), 5), key=lambda c: c[::-1]), dtype=np.uint8
    )
    blocks = []
    for low in range(52):
        for second in range(low + 1, 52):
            rest = 51 - second  # cards above `second`
            if rest < 5:
                continue
            count = math.comb(rest, 5)
            block = np.empty((count, 7), dtype=np.uint8)
            block[:, 0], block[:, 1] = low, second
            block[:, 2:] = comb5[:count] + (second + 1)
            blocks.append(block)
    return blocks


@pytest.mark.slow
# Rules: R-SHOW-2
def test_R_SHOW_2_all_seven_card_hands_by_category() -> None:
    totals: Counter[HandCategory] = Counter()
    hands = 0
    for block in _all_seven_card_hands():
        hands += len(block)
        totals.update(_category_counts(evaluate_batch(block)))
    assert hands == 133_784_560
    assert dict(totals) == {
        HandCategory.STRAIGHT_FLUSH: 41_584,
        HandCategory.FOUR_OF_A_KIND: 224_848,
        HandCategory.FULL_HOUSE: 3_473_184,
        HandCategory.FLUSH: 4_047_644,
        HandCategory.STRAIGHT: 6_180_020,
        HandCategory.THREE_OF_A_KIND: 6_461_620,
        HandCategory.TWO_PAIR: 31_433_400,
        HandCategory.ONE_PAIR: 58_627_800,
        HandCategory.HIGH_CARD: 23_294_460,
    }

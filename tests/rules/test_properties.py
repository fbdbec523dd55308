"""Hypothesis properties: chips are conserved, pots equal contributions, a legal set exists until
the hand ends, no view shows hidden cards (R-DEAL-4), and replaying the log reproduces the hand."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from feltroom.cards import CARDS
from feltroom.rules import (
    Call,
    CardsShown,
    Check,
    FixedLimit,
    Fold,
    Hand,
    NoLimit,
    PotLimit,
    Protect,
    RaiseTo,
    RakeRule,
    Structure,
    blinds,
)


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    kind = draw(st.sampled_from(["FL", "PL", "NL"]))
    structure: Structure = {"FL": FixedLimit(2, 4), "PL": PotLimit(2), "NL": NoLimit(2)}[kind]
    n = draw(st.integers(2, 10))
    seats = sorted(draw(st.lists(st.integers(1, 10), min_size=n, max_size=n, unique=True)))
    stacks = draw(st.lists(st.integers(1, 300), min_size=n, max_size=n))
    button = draw(st.integers(1, 10))
    ante = draw(st.sampled_from([0, 0, 1, 3]))
    deck = list(draw(st.permutations(CARDS)))
    rake = draw(st.sampled_from([None, RakeRule(Fraction(1, 20), 3), RakeRule(Fraction(1, 10))]))
    players = list(zip(seats, stacks, strict=True))
    return Hand(structure, players, button, blinds(players, button, 1, 2, ante), deck, rake)


def play(hand: Hand, data: st.DataObject, check: bool = True) -> None:
    """Play random legal actions to the end, checking the invariants after every step."""
    total = hand.chips_in_play()
    while not hand.is_over:
        options = hand.legal_actions()
        assert options is not None
        choices: list[Fold | Check | Call | RaiseTo | Protect] = []
        if options.fold:
            choices.append(Fold())
        if options.check:
            choices.append(Check())
        if options.call is not None:
            choices.append(Call())
        if options.raise_min is not None and options.raise_max is not None:
            choices.append(RaiseTo(data.draw(st.integers(options.raise_min, options.raise_max))))
        assert choices, "a non-empty legal set until the hand ends"
        roll = data.draw(st.integers(0, 30))
        if roll == 0:
            choices = [Protect(options.seat)]
        if roll == 1:  # the table folds the hand, even when checking is free (R-SIT-1)
            hand.act(Fold(), options.seat, forced=True)
        else:
            hand.act(data.draw(st.sampled_from(choices)))
        if check:
            assert hand.chips_in_play() == total
            if not hand.is_over:
                assert hand.pot_total == sum(hand.contributions) + hand.dead_money
                assert all(stack >= 0 for stack in hand.stacks)
    assert hand.chips_in_play() == total
    assert sum(hand.final_stacks) + hand.rake == total
    for result in hand.results:
        assert sum(result.shares) + result.rake == result.amount
    assert hand.pot_total == 0
    # R-ALLIN-2: everyone still in who put chips in (live, or dead money such as an ante they
    # are all-in on) contests the main pot.
    main = hand.results[0]
    for p, seat in enumerate(hand.seats):
        if not hand.folded[p] and (hand.contributions[p] > 0 or hand.dead_money > 0):
            assert seat in main.eligible


@settings(max_examples=300, deadline=None)
@given(hands(), st.data())
# Rules: R-ALLIN-2
def test_R_ALLIN_2_chips_conserved_pots_equal_contributions_legal_set_nonempty(
    hand: Hand, data: st.DataObject
) -> None:
    play(hand, data)


@settings(max_examples=150, deadline=None)
@given(hands(), st.data())
# Rules: R-DEAL-4
def test_R_DEAL_4_no_view_shows_hidden_cards(hand: Hand, data: st.DataObject) -> None:
    def check_views() -> None:
        shown = hand.shown
        for viewer in (None, *hand.seats):
            view = hand.view_for(viewer)
            for player in view.players:
                if player.seat != viewer and player.seat not in shown:
                    assert player.cards is None
            assert not set(view.board) & set(hand.burned)
        for event in hand.events:
            if isinstance(event, CardsShown):
                assert event.seat in shown

    check_views()
    while not hand.is_over:
        options = hand.legal_actions()
        assert options is not None
        hand.act(Check() if options.check else data.draw(st.sampled_from([Fold(), Call()])))
        check_views()


@settings(max_examples=150, deadline=None)
@given(hands(), st.data())
def test_log_replay_reproduces_the_hand_exactly(hand: Hand, data: st.DataObject) -> None:
    play(hand, data, check=False)
    again = Hand.replay(hand.setup, hand.log)
    assert again.events == hand.events
    assert again.final_stacks == hand.final_stacks
    assert again.results == hand.results
    assert again.log == hand.log


@settings(max_examples=150, deadline=None)
@given(hands(), st.data())
# Rules: R-HOME-4
def test_R_HOME_4_run_it_twice_conserves_chips_halves_pots_and_replays_exactly(
    hand: Hand, data: st.DataObject
) -> None:
    hand = Hand.from_setup(replace(hand.setup, run_twice=True))
    total = hand.chips_in_play()
    while not hand.is_over:
        if hand.runs_pending:
            assert hand.legal_actions() is None
            hand.run_out(data.draw(st.sampled_from([1, 2])))
            continue
        options = hand.legal_actions()
        assert options is not None
        choices: list[Fold | Check | Call | RaiseTo] = [Call() if options.call else Check()]
        if options.fold:
            choices.append(Fold())
        if options.raise_max is not None:
            choices.append(RaiseTo(options.raise_max))  # all-ins: run-outs come often
        hand.act(data.draw(st.sampled_from(choices)))
    assert hand.chips_in_play() == total
    assert sum(hand.final_stacks) + hand.rake == total
    for result in hand.results:
        assert sum(result.shares) + result.rake == result.amount
        if result.runs:
            net = result.amount - result.rake
            assert hand.runs == 2
            assert [sum(shares) for _, shares in result.runs] == [net - net // 2, net // 2]
    if hand.runs == 2:
        first, second = hand.boards
        assert len(first) == len(second) == 5
        dealt = [*first, *second[len(first) - len(set(second) - set(first)) :], *hand.burned]
        assert len(set(dealt + list(hand.second_burned))) == len(dealt) + len(hand.second_burned)
    again = Hand.replay(hand.setup, hand.log)
    assert again.events == hand.events
    assert again.results == hand.results

"""Betting rules, each test named after the rule it checks (R-BET, R-LIMIT, R-PL, R-NL)."""

from __future__ import annotations

import pytest
from _rules_support import make_hand

from feltroom.errors import IllegalAction
from feltroom.rules import (
    Call,
    Called,
    Check,
    FixedLimit,
    Fold,
    Folded,
    Hand,
    LegalActions,
    NoLimit,
    PotLimit,
    RaiseTo,
    UncalledBetReturned,
)


def legal(hand: Hand) -> LegalActions:
    options = hand.legal_actions()
    assert options is not None
    return options


# Rules: R-GAME-1
def test_R_GAME_1_three_structures_each_play_a_hand() -> None:
    for structure in (FixedLimit(2, 4), PotLimit(2), NoLimit(2)):
        hand = make_hand(structure, [100, 100, 100])
        while not hand.is_over:
            hand.check_or_call()
        assert sum(hand.final_stacks) == 300
    assert (FixedLimit(2, 4).code, PotLimit(2).code, NoLimit(2).code) == ("FT", "PT", "NT")


# Rules: R-BET-1
def test_R_BET_1_first_left_of_big_blind_may_fold_call_or_raise_not_check() -> None:
    hand = make_hand(NoLimit(2), [100] * 4)
    options = legal(hand)
    assert options.seat == 3
    assert options.fold
    assert not options.check
    assert options.call == 2
    assert (options.raise_min, options.raise_max) == (4, 100)
    with pytest.raises(IllegalAction):
        hand.act(Check())


# Rules: R-BLIND-4
def test_R_BLIND_4_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    hand = make_hand(NoLimit(2), [100, 100])
    assert hand.bets == (2, 1)  # seat 1 big blind, seat 2 (button) small blind
    assert hand.to_act == 2
    hand.call()
    hand.check()
    assert hand.street == 1
    assert hand.to_act == 1


# Rules: R-BET-2
def test_R_BET_2_big_blind_option_check_or_raise_when_nobody_raised() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    hand.call()  # seat 3 (button)
    hand.call()  # seat 1 (small blind)
    options = legal(hand)
    assert options.seat == 2
    assert options.check
    assert not options.fold
    assert options.call is None
    assert options.raise_min == 4
    hand.raise_to(6)
    assert hand.street == 0  # the option reopened the betting


# Rules: R-BET-3
def test_R_BET_3_after_flop_first_active_left_of_button_check_raise_allowed() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    hand.call()
    hand.fold()  # seat 1 folds; the first active left of the button is seat 2
    hand.check()
    assert hand.street == 1
    options = legal(hand)
    assert options.seat == 2
    assert options.check
    assert not options.fold
    assert options.bet
    hand.check()
    hand.raise_to(4)  # seat 3 bets
    options = legal(hand)
    assert options.fold
    assert options.call == 4
    assert options.raise_min == 8
    hand.raise_to(8)
    assert hand.to_act == 3


# Rules: R-BET-3
def test_R_BET_3_folding_is_not_offered_when_checking_is_free() -> None:
    hand = make_hand(NoLimit(2), [100] * 2)
    hand.call()
    assert not legal(hand).fold
    with pytest.raises(IllegalAction, match="checking is free"):
        hand.fold()


def test_R_SIT_1_R_TIME_2_table_side_fold_when_checking_is_free() -> None:
    # The table may fold a player's hand at their turn even when checking is free (sitting out
    # or leaving, R-SIT-1; timeout_action = fold, R-TIME-2); the player's options are unchanged.
    hand = make_hand(NoLimit(2), [100] * 3)
    hand.call()  # seat 3
    hand.call()  # seat 1
    options = legal(hand)
    assert (options.seat, options.fold, options.check) == (2, False, True)
    assert not hand.can(Fold(), 2)
    assert hand.can(Fold(), 2, forced=True)
    with pytest.raises(IllegalAction, match="turn"):
        hand.act(Fold(), 3, forced=True)
    with pytest.raises(IllegalAction, match="only a fold"):
        hand.act(Check(), 2, forced=True)
    events = hand.act(Fold(), 2, forced=True)
    assert events[0] == Folded(2)
    assert hand.folded == (False, True, False)
    assert hand.street == 1  # the big blind's fold closed the round
    assert hand.log[-1] == (2, Fold())
    hand.act(Fold(), 1, forced=True)  # first to act on the flop: the last fold ends the hand
    assert hand.is_over
    assert hand.final_stacks == (98, 98, 104)
    again = Hand.replay(hand.setup, hand.log)
    assert again.events == hand.events
    assert again.final_stacks == hand.final_stacks
    with pytest.raises(IllegalAction, match="over"):
        hand.act(Fold(), None, forced=True)


# Rules: R-BET-4
def test_R_BET_4_round_ends_when_all_matched_and_everyone_acted_since_last_raise() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    hand.raise_to(6)  # seat 3
    hand.call()  # seat 1
    assert hand.street == 0  # the big blind has not acted since the raise
    hand.call()
    assert hand.street == 1
    assert hand.pot_total == 18


# Rules: R-BET-5
def test_R_BET_5_hand_ends_at_once_when_all_but_one_fold() -> None:
    hand = make_hand(NoLimit(2), [100] * 3, holes=["2c7d", "3c8d", "AsAh"])
    hand.raise_to(10)
    hand.fold()
    events = hand.fold()
    assert hand.is_over
    assert hand.to_act is None
    assert hand.final_stacks == (99, 98, 103)
    assert hand.shown == frozenset()  # the winner need not show
    assert not any(type(e).__name__ == "CardsShown" for e in events)
    hand.show(3)  # and may choose to (R-SHOW-4)
    assert hand.shown == {3}


# Rules: R-BET-6
def test_R_BET_6_limit_offers_one_amount_no_limit_a_range() -> None:
    limit = make_hand(FixedLimit(2, 4), [100] * 3)
    options = legal(limit)
    assert options.raise_min == options.raise_max == 4
    no_limit = make_hand(NoLimit(2), [100] * 3)
    options = legal(no_limit)
    assert (options.raise_min, options.raise_max) == (4, 100)
    assert options.allows(RaiseTo(57))
    assert not options.allows(RaiseTo(3))


def _raise_levels(hand: Hand, times: int) -> list[int]:
    levels = []
    for _ in range(times):
        options = legal(hand)
        assert options.raise_min is not None
        levels.append(options.raise_min)
        hand.raise_to(options.raise_min)
    return levels


# Rules: R-LIMIT-1
def test_R_LIMIT_1_ten_twenty_levels_preflop_and_turn() -> None:
    hand = make_hand(FixedLimit(10, 20), [1000] * 4, sb=5, bb=10)
    assert legal(hand).call == 10
    assert _raise_levels(hand, 3) == [20, 30, 40]
    assert legal(hand).raise_min is None  # $40 is the cap
    while hand.street == 0:
        hand.call()
    while hand.street == 1:
        hand.check()
    assert hand.street == 2
    assert _raise_levels(hand, 4) == [20, 40, 60, 80]
    assert legal(hand).raise_min is None


# Rules: R-LIMIT-2
def test_R_LIMIT_2_three_six_cap_is_twelve_then_only_call_or_fold() -> None:
    hand = make_hand(FixedLimit(3, 6), [1000] * 4, sb=1, bb=3)
    assert _raise_levels(hand, 3) == [6, 9, 12]
    options = legal(hand)
    assert options.fold
    assert options.call == 9
    assert options.raise_min is None
    with pytest.raises(IllegalAction):
        hand.raise_to(15)


# Rules: R-LIMIT-2
def test_R_LIMIT_2_a_capped_round_stays_capped_when_players_fold() -> None:
    hand = make_hand(FixedLimit(3, 6, uncapped_heads_up=True), [1000] * 3, sb=1, bb=3)
    assert _raise_levels(hand, 3) == [6, 9, 12]  # seats 3, 1, 2: capped with three in
    hand.fold()  # seat 3: two players remain, but the round stays capped
    assert legal(hand).raise_min is None


# Rules: R-LIMIT-2
def test_R_LIMIT_2_table_may_allow_five_bets() -> None:
    hand = make_hand(FixedLimit(3, 6, max_bets_per_round=5), [1000] * 4, sb=1, bb=3)
    assert _raise_levels(hand, 4) == [6, 9, 12, 15]
    assert legal(hand).raise_min is None


# Rules: R-LIMIT-3
def test_R_LIMIT_3_heads_up_raises_are_unlimited_when_switched_on() -> None:
    hand = make_hand(FixedLimit(3, 6, uncapped_heads_up=True), [1000] * 3, sb=1, bb=3)
    hand.fold()  # seat 3 folds before the cap: two players remain
    assert _raise_levels(hand, 6) == [6, 9, 12, 15, 18, 21]
    capped = make_hand(FixedLimit(3, 6, uncapped_heads_up=False), [1000] * 3, sb=1, bb=3)
    capped.fold()
    assert _raise_levels(capped, 3) == [6, 9, 12]
    assert legal(capped).raise_min is None


# Rules: R-LIMIT-3
def test_R_LIMIT_3_heads_up_from_the_deal_and_all_in_players_count() -> None:
    hand = make_hand(FixedLimit(3, 6), [1000, 1000], sb=1, bb=3)
    assert _raise_levels(hand, 5) == [6, 9, 12, 15, 18]
    three = make_hand(FixedLimit(3, 6), [1000, 1000, 5], sb=1, bb=3)
    three.call()  # seat 3 keeps 2 chips
    three.call()
    three.check()
    three.raise_to(3)  # flop: seat 1 bets
    three.raise_to(6)  # seat 2 raises
    three.call()  # seat 3 all-in for 2: still in the hand
    three.raise_to(9)
    three.raise_to(12)  # the fourth bet caps the round: three players are in the hand
    assert legal(three).raise_min is None


# Rules: R-LIMIT-4
def test_R_LIMIT_4_limit_all_in_of_half_a_bet_is_a_full_raise() -> None:
    # $10/$20: $10 bet, all-in to $16, next raise to $30
    hand = make_hand(FixedLimit(10, 20), [1000, 26, 1000], sb=5, bb=10)
    hand.call()
    hand.call()
    hand.check()
    hand.raise_to(10)  # seat 1 bets on the flop
    assert (legal(hand).raise_min, legal(hand).raise_max) == (16, 16)  # all-in for less
    hand.raise_to(16)
    options = legal(hand)
    assert options.call == 16
    assert options.raise_min == 30
    hand.call()
    options = legal(hand)  # seat 1 already acted; the half-bet raise reopened the betting
    assert options.call == 6
    assert options.raise_min == 30


# Rules: R-LIMIT-4
def test_R_LIMIT_4_limit_all_in_of_less_than_half_does_not_reopen() -> None:
    hand = make_hand(FixedLimit(10, 20), [1000, 24, 1000], sb=5, bb=10)
    hand.call()
    hand.call()
    hand.check()
    hand.raise_to(10)
    hand.raise_to(14)  # seat 2 all-in: $4 is less than half a bet
    options = legal(hand)
    assert options.call == 14
    assert options.raise_min == 20
    hand.call()
    options = legal(hand)
    assert options.call == 4
    assert options.raise_min is None


# Rules: R-LIMIT-4
def test_R_LIMIT_4_no_limit_incomplete_all_in_does_not_reopen() -> None:
    hand = make_hand(NoLimit(2), [100, 100, 100, 17], bb=2)
    hand.call()  # seat 3
    hand.call()  # seat 4
    hand.call()  # seat 1
    hand.check()  # seat 2
    hand.raise_to(10)  # seat 1 bets 10 on the flop
    hand.call()  # seat 2
    hand.call()  # seat 3
    hand.raise_to(15)  # seat 4 all-in, a raise of 5 < 10
    options = legal(hand)
    assert options.seat == 1
    assert options.call == 5
    assert options.raise_min is None


# Rules: R-LIMIT-4
def test_R_LIMIT_4_several_short_all_ins_adding_up_to_a_full_raise_reopen() -> None:
    hand = make_hand(NoLimit(2), [100, 17, 24, 100], bb=2)
    for _ in range(3):
        hand.call()
    hand.check()
    hand.raise_to(10)  # seat 1 bets 10
    hand.raise_to(15)  # seat 2 all-in
    hand.raise_to(22)  # seat 3 all-in: 5 + 7 >= 10
    hand.call()  # seat 4
    options = legal(hand)
    assert options.seat == 1
    assert options.call == 12
    assert options.raise_min == 32


# Rules: R-LIMIT-4
def test_R_LIMIT_4_preflop_incomplete_all_in_over_the_blind_does_not_reopen_limpers() -> None:
    hand = make_hand(NoLimit(2), [100, 100, 100, 3])
    hand.call()  # seat 3 limps
    hand.raise_to(3)  # seat 4 all-in: a raise of 1 over the big blind
    assert legal(hand).raise_min == 5  # the small blind has not acted
    hand.call()
    assert legal(hand).raise_min == 5  # nor has the big blind
    hand.call()
    options = legal(hand)
    assert options.seat == 3
    assert options.call == 1
    assert options.raise_min is None


# Rules: R-PL-1
def test_R_PL_1_minimum_bet_is_big_blind_minimum_raise_is_previous_raise() -> None:
    hand = make_hand(PotLimit(2), [1000] * 3)
    hand.call()
    hand.call()
    hand.check()
    assert legal(hand).raise_min == 2
    hand.raise_to(5)
    assert legal(hand).raise_min == 10


# Rules: R-PL-2
def test_R_PL_2_blinds_one_two_first_to_act_may_raise_to_seven() -> None:
    hand = make_hand(PotLimit(2), [1000] * 4)
    options = legal(hand)
    assert (options.raise_min, options.raise_max) == (4, 7)


# Rules: R-PL-2
def test_R_PL_2_pot_200_bet_150_call_150_third_player_puts_in_at_most_800() -> None:
    hand = make_hand(PotLimit(50), [5000] * 4, sb=25, bb=50)
    for _ in range(3):
        hand.call()
    hand.check()
    assert hand.pot_total == 200
    hand.raise_to(150)
    hand.call()
    options = legal(hand)
    assert options.call == 150
    assert options.raise_max == 800


# Rules: R-PL-2
def test_R_PL_2_pot_10_bet_5_next_player_puts_in_10_to_25() -> None:
    hand = make_hand(PotLimit(2), [1000] * 5)
    for _ in range(4):
        hand.call()
    hand.check()
    assert hand.pot_total == 10
    hand.raise_to(5)
    options = legal(hand)
    assert options.call == 5
    assert (options.raise_min, options.raise_max) == (10, 25)


# Rules: R-PL-3
def test_R_PL_3_no_raise_cap_in_pot_limit_and_no_limit() -> None:
    for structure in (PotLimit(2), NoLimit(2)):
        hand = make_hand(structure, [10**6] * 3)
        levels = _raise_levels(hand, 8)
        assert len(levels) == 8
        assert legal(hand).raise_min is not None


# Rules: R-NL-1
def test_R_NL_1_minimum_bet_big_blind_maximum_whole_stack() -> None:
    hand = make_hand(NoLimit(2), [300, 200, 100])
    options = legal(hand)
    assert (options.raise_min, options.raise_max) == (4, 100)
    hand.raise_to(10)
    options = legal(hand)
    assert (options.raise_min, options.raise_max) == (18, 300)


# Rules: R-NL-2
def test_R_NL_2_a_five_bet_cannot_be_raised_by_two_unless_all_in() -> None:
    hand = make_hand(NoLimit(2), [100, 100, 9])
    for _ in range(2):
        hand.call()
    hand.check()
    hand.raise_to(5)  # seat 1 bets 5
    with pytest.raises(IllegalAction):
        hand.raise_to(7)  # seat 2: raising by 2 is refused
    hand.call()
    options = legal(hand)  # seat 3 has 7 behind: all-in for a raise of 2 is allowed
    assert (options.raise_min, options.raise_max) == (7, 7)
    hand.raise_to(7)
    assert hand.all_in[2]


# Rules: R-NL-3
def test_R_NL_3_invalid_amounts_are_refused_with_the_range_and_nothing_changes() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    before = (hand.stacks, hand.bets, hand.to_act, hand.log, len(hand.events))
    with pytest.raises(IllegalAction, match="4 to 100") as caught:
        hand.raise_to(3)
    assert caught.value.legal == hand.legal_actions()
    with pytest.raises(IllegalAction, match="4 to 100"):
        hand.raise_to(101)
    assert not hand.can(RaiseTo(3))
    assert hand.can(RaiseTo(4))
    assert (hand.stacks, hand.bets, hand.to_act, hand.log, len(hand.events)) == before


# Rules: R-NL-3
def test_R_NL_3_acting_out_of_turn_is_refused() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    with pytest.raises(IllegalAction, match="seat 3's turn"):
        hand.act(Call(), seat=1)
    hand.act(Call(), seat=3)
    hand.act(Call(), seat=1)
    with pytest.raises(IllegalAction, match="nothing to call"):
        hand.act(Call(), seat=2)


# Rules: R-ALLIN-1
def test_R_ALLIN_1_nobody_is_forced_to_call_more_than_they_have() -> None:
    hand = make_hand(NoLimit(2), [500, 30, 500])
    hand.raise_to(100)
    hand.fold()
    options = legal(hand)
    assert options.seat == 2
    assert options.call == 28
    assert options.raise_min is None
    events = hand.call()
    assert events[0] == Called(2, 28, True)
    assert events[1] == UncalledBetReturned(3, 70)  # R-ALLIN-4
    assert hand.is_over  # betting closed: the board was run out (R-ALLIN-3)


def _flop_after_limps(structure: NoLimit | PotLimit, stacks: list[int]) -> Hand:
    """Blinds 5/10, five players (seat 5 the button); everyone puts in 10 pre-flop, so the flop
    opens with seat 1 to act and the round's raise size at zero."""
    hand = make_hand(structure, stacks, sb=5, bb=10)
    for _ in range(4):
        hand.call()  # seats 3, 4, 5 and the small blind
    hand.check()  # the big blind
    assert hand.street == 1
    return hand


# Rules: R-NL-1, R-PL-1, R-LIMIT-4
@pytest.mark.parametrize("structure", [NoLimit(10), PotLimit(10)], ids=["NL", "PL"])
def test_R_NL_1_R_PL_1_short_all_ins_below_the_big_blind_set_no_raise_size(
    structure: NoLimit | PotLimit,
) -> None:
    """Blinds 5/10, on the flop: seat 1 bets all-in 5, seat 2 calls, seat 3 goes all-in to 12
    (an increment of 7, below the minimum raise to 15 the engine offered), seat 4 and seat 5
    call: seat 2 faces 7 more, less than a full raise of the big blind, so may only call or
    fold. A full raise is measured against the big blind at least; the all-ins set no size."""
    hand = _flop_after_limps(structure, [15, 1000, 22, 1000, 1000])
    hand.raise_to(5)  # seat 1 all-in for less than the big blind
    hand.call()  # seat 2
    options = legal(hand)
    assert (options.seat, options.raise_min) == (3, 12)  # all-in: 15 was the minimum raise
    hand.raise_to(12)  # seat 3 all-in
    options = legal(hand)
    assert (options.seat, options.raise_min) == (4, 22)  # seat 4 has not acted: 12 + 10
    hand.call()  # seat 4
    hand.call()  # seat 5
    options = legal(hand)
    assert options.seat == 2
    assert options.call == 7
    assert options.raise_min is None
    assert options.raise_max is None
    with pytest.raises(IllegalAction, match="no bet or raise is allowed now"):
        hand.raise_to(22)


# Rules: R-NL-1, R-LIMIT-4
def test_R_NL_1_a_short_all_in_bet_does_not_reopen_the_betting_for_a_player_who_checked() -> None:
    hand = _flop_after_limps(NoLimit(10), [1000, 15, 1000, 1000, 1000])
    hand.check()  # seat 1
    hand.raise_to(5)  # seat 2 bets all-in 5: less than a full bet
    for _ in range(3):
        hand.call()  # seats 3, 4, 5 (they had not acted: each could have raised)
    options = legal(hand)
    assert (options.seat, options.call, options.raise_min) == (1, 5, None)


# Rules: R-NL-1, R-PL-1, R-LIMIT-4
@pytest.mark.parametrize("structure", [NoLimit(10), PotLimit(10)], ids=["NL", "PL"])
def test_R_NL_1_R_PL_1_consecutive_short_all_ins_adding_up_to_a_full_raise_reopen(
    structure: NoLimit | PotLimit,
) -> None:
    """On the flop (blinds 5/10): all-in 4, a call, all-in 9, all-in 15. None of them is a full
    raise on its own, but the caller of 4 now faces 11, a full raise of the big blind: they may
    raise again, to 15 + 10 = 25 at least; a player who faces less may not."""
    hand = _flop_after_limps(structure, [14, 1000, 19, 25, 1000])
    hand.raise_to(4)  # seat 1 all-in
    hand.call()  # seat 2
    hand.raise_to(9)  # seat 3 all-in (+5)
    hand.raise_to(15)  # seat 4 all-in (+6): 11 over seat 2's call
    options = legal(hand)
    assert (options.seat, options.raise_min) == (5, 25)
    hand.call()  # seat 5
    options = legal(hand)
    assert (options.seat, options.call, options.raise_min) == (2, 11, 25)
    hand.raise_to(25)  # seat 2 re-raises
    options = legal(hand)
    assert (options.seat, options.call) == (5, 10)
    assert options.raise_min == 35  # the full raise of 10 is now the round's size

"""All-in, showdown, pot and rake rules (R-ALLIN, R-SHOW, R-POT, R-RAKE) and dealing (R-DEAL)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from _rules_support import deck_for, make_hand

from feltroom.cards import CARDS, parse_cards
from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    FixedLimit,
    Forced,
    ForcedBet,
    Hand,
    NoLimit,
    PotAwarded,
    Protect,
    RakeRule,
    UncalledBetReturned,
    build_pots,
    rake_pots,
    split_pot,
)


def shown_seats(hand: Hand) -> list[int]:
    return [e.seat for e in hand.events if isinstance(e, CardsShown)]


def mucked_seats(hand: Hand) -> list[int]:
    return [e.seat for e in hand.events if isinstance(e, CardsMucked)]


def awards(hand: Hand) -> list[PotAwarded]:
    return [e for e in hand.events if isinstance(e, PotAwarded)]


# ---------------------------------------------------------------- dealing


# Rules: R-DEAL-1
def test_R_DEAL_1_hole_cards_one_at_a_time_clockwise_from_the_buttons_left() -> None:
    deck = list(CARDS)
    players = [(2, 100), (5, 100), (7, 100), (9, 100)]
    hand = Hand(NoLimit(2), players, 5, [], deck)  # button on seat 5: seat 7 is dealt first
    assert hand.seats == (7, 9, 2, 5)
    for i, seat in enumerate(hand.seats):
        assert hand.hole_cards(seat) == (deck[i], deck[4 + i])


# Rules: R-DEAL-1
def test_R_DEAL_1_dead_button_on_an_empty_seat() -> None:
    hand = Hand(NoLimit(2), [(1, 100), (3, 100), (6, 100)], 4, [], list(CARDS))
    assert hand.seats == (6, 1, 3)


# Rules: R-DEAL-2
def test_R_DEAL_2_burns_before_flop_turn_river_kept_but_never_shown() -> None:
    deck = list(CARDS)
    hand = make_hand(NoLimit(2), [100] * 3)
    while not hand.is_over:
        hand.check_or_call()
    n = 3
    assert hand.burned == (deck[2 * n], deck[2 * n + 4], deck[2 * n + 6])
    assert hand.board == [deck[2 * n + k] for k in (1, 2, 3, 5, 7)]
    for seat in (None, 1, 2, 3):
        view = hand.view_for(seat)
        visible = set(view.board)
        for player in view.players:
            if player.cards is not None:
                visible |= set(player.cards)
        assert not visible & set(hand.burned)


# Rules: R-DEAL-3
def test_R_DEAL_3_flop_turn_river_each_followed_by_a_betting_round() -> None:
    hand = make_hand(NoLimit(2), [100] * 2)
    hand.call()
    events = hand.check()
    assert [type(e) for e in events][-1] is BoardDealt
    assert len(hand.board) == 3
    assert hand.street == 1
    hand.check()
    hand.check()
    assert len(hand.board) == 4
    assert hand.street == 2
    hand.raise_to(2)
    hand.call()
    assert len(hand.board) == 5
    assert hand.street == 3
    assert not hand.is_over


# Rules: R-DEAL-4
def test_R_DEAL_4_views_show_only_own_cards_until_shown() -> None:
    hand = make_hand(NoLimit(2), [100] * 3)
    for seat in (1, 2, 3):
        view = hand.view_for(seat)
        for player in view.players:
            if player.seat == seat:
                assert player.cards == hand.hole_cards(seat)
            else:
                assert player.cards is None
    assert all(p.cards is None for p in hand.view_for(None).players)
    assert hand.view_for(3).legal == hand.legal_actions()
    assert hand.view_for(1).legal is None


# Rules: R-GAME-2
def test_R_GAME_2_deck_must_hold_distinct_cards_and_enough_of_them() -> None:
    deck = list(CARDS)
    with pytest.raises(InvalidConfiguration, match="twice"):
        Hand(NoLimit(2), [(1, 10), (2, 10)], 2, [], [deck[0], *deck[:20]])
    with pytest.raises(InvalidConfiguration, match="at least 12"):
        Hand(NoLimit(2), [(1, 10), (2, 10)], 2, [], deck[:11])


# ---------------------------------------------------------------- forced bets


# Rules: R-ENTRY-3
def test_R_ENTRY_3_several_big_blinds_and_a_live_post_with_the_option() -> None:
    forced = [
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(4, Forced.POST, 2),  # an entering player posts in late position
    ]
    hand = Hand(NoLimit(2), [(s, 100) for s in range(1, 6)], 5, forced, list(CARDS))
    assert hand.to_act == 3  # the post does not change who opens (R-BET-1)
    hand.call()
    options = hand.legal_actions()
    assert options is not None
    assert options.seat == 4
    assert options.check
    assert options.raise_min == 4


# Rules: R-MISS-1
def test_R_MISS_1_dead_small_blind_goes_to_the_pot_not_the_bet() -> None:
    forced = [
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(3, Forced.POST, 2),  # returning after missing both blinds: live part
        ForcedBet(3, Forced.DEAD, 1),  # and the small blind, dead
    ]
    hand = Hand(NoLimit(2), [(s, 100) for s in range(1, 5)], 4, forced, list(CARDS))
    assert hand.bets == (1, 2, 2, 0)
    assert hand.dead_money == 1
    assert hand.pot_total == 6
    assert hand.stack_of(3) == 97
    options = hand.legal_actions()  # action starts left of the big blind: the poster checks
    assert options is not None
    assert options.seat == 3
    assert options.check


# Rules: R-BLIND-1, R-HOME-3
def test_R_BLIND_1_antes_and_straddle() -> None:
    forced = [
        *(ForcedBet(s, Forced.ANTE, 1) for s in range(1, 5)),
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(3, Forced.STRADDLE, 4),
    ]
    hand = Hand(NoLimit(2), [(s, 100) for s in range(1, 5)], 4, forced, list(CARDS))
    options = hand.legal_actions()
    assert options is not None
    assert options.seat == 4
    assert options.call == 4
    assert options.raise_min == 8  # R-HOME-3: the straddle's size is the last full raise
    assert hand.pot_total == 11


# ---------------------------------------------------------------- all-in


# Rules: R-ALLIN-2
def test_R_ALLIN_2_several_all_ins_make_several_side_pots() -> None:
    hand = make_hand(
        NoLimit(2),
        [50, 100, 200, 200],
        holes=["AsAh", "KsKh", "QsQh", "JsJh"],
        board="2c 7d 9h 3s 4c",
    )
    hand.raise_to(200)  # seat 3 all-in
    hand.call()  # seat 4 all-in
    hand.call()  # seat 1 all-in for 50
    hand.call()  # seat 2 all-in for 100
    assert hand.is_over
    pots = [(r.amount, r.eligible, r.winners) for r in hand.results]
    assert pots == [
        (200, (1, 2, 3, 4), (1,)),
        (150, (2, 3, 4), (2,)),
        (200, (3, 4), (3,)),
    ]
    assert hand.final_stacks == (200, 150, 200, 0)


# Rules: R-ALLIN-2
def test_R_ALLIN_2_build_pots_function() -> None:
    contributions = [50, 100, 200, 200, 30]
    live = [True, True, True, True, False]
    assert build_pots(contributions, live, dead=5) == [
        (235, (0, 1, 2, 3)),
        (150, (1, 2, 3)),
        (200, (2, 3)),
    ]
    assert build_pots([10, 10, 4], [True, False, False]) == [(24, (0,))]


# Rules: R-ALLIN-2
def test_R_ALLIN_2_build_pots_dead_money_contested_by_a_player_all_in_on_it() -> None:
    # Dead money is the bottom of the main pot and everyone still in contests it; it does not
    # raise its poster's eligibility level. A player still in with no live chip (all-in on dead
    # money) makes it a main pot of its own; the live chips make the side pots.
    assert build_pots([0, 2, 2], [True, True, True], dead=1) == [
        (1, (0, 1, 2)),
        (4, (1, 2)),
    ]
    assert build_pots([0, 2, 5, 5, 1], [True, True, True, True, False], dead=3) == [
        (3, (0, 1, 2, 3)),
        (7, (1, 2, 3)),
        (6, (2, 3)),
    ]
    # the dead-money poster folded, or everyone still in has live chips: one main pot as before
    assert build_pots([0, 2, 2], [False, True, True], dead=1) == [(5, (1, 2))]
    assert build_pots([1, 2, 2], [True, True, True], dead=1) == [(4, (0, 1, 2)), (2, (1, 2))]


# Rules: R-ALLIN-2, R-MISS-1
def test_R_ALLIN_2_R_MISS_1_all_in_on_a_dead_blind_contests_the_main_pot() -> None:
    forced = [
        ForcedBet(1, Forced.DEAD, 1),  # seat 1's whole stack: all-in on dead money
        ForcedBet(2, Forced.SMALL_BLIND, 1),
        ForcedBet(3, Forced.BIG_BLIND, 2),
    ]
    deck = deck_for(["AsAh", "KsKh", "QsQh"], "2c 7d 9h 3s 4c")
    hand = Hand(NoLimit(2), [(1, 1), (2, 100), (3, 100)], 3, forced, deck)
    assert hand.all_in == (True, False, False)
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.eligible, main.winners) == (1, (1, 2, 3), (1,))
    assert (side.amount, side.eligible, side.winners) == (4, (2, 3), (2,))
    assert hand.final_stacks == (1, 102, 98)


# Rules: R-ALLIN-2, R-MISS-1
def test_R_ALLIN_2_R_MISS_1_short_post_after_a_dead_blind() -> None:
    # Returning after missing both blinds with 2 chips: the small-blind part dead (1), the live
    # part all-in for 1. The player contests the dead money and 1 chip from each caller.
    forced = [
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(3, Forced.DEAD, 1),
        ForcedBet(3, Forced.POST, 2),
    ]
    deck = deck_for(["KsKh", "QsQh", "AsAh", "JsJh"], "2c 7d 9h 3s 4c")
    hand = Hand(NoLimit(2), [(1, 100), (2, 100), (3, 2), (4, 100)], 4, forced, deck)
    assert hand.contributions == (1, 2, 1, 0)
    assert hand.dead_money == 1
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.eligible, main.winners) == (5, (1, 2, 3, 4), (3,))
    assert (side.amount, side.eligible, side.winners) == (3, (1, 2, 4), (1,))
    assert hand.final_stacks == (101, 98, 5, 98)


# Rules: R-BLIND-1
def test_R_BLIND_1_big_blind_ante_is_dead_money_not_returned_as_a_side_pot() -> None:
    # WSOP 2023 #43 day 5, 03-02-41 in miniature: the big blind posts an ante and the blind,
    # moves all-in, is called and loses; the ante stays in the main pot for the winner.
    forced = [
        ForcedBet(2, Forced.ANTE, 3),
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
    ]
    deck = deck_for(["8d3s", "9d9c", "AcKc"], "2c 8c Th Ah 6d")
    hand = Hand(NoLimit(2), [(1, 50), (2, 20), (3, 100)], 3, forced, deck)
    assert hand.contributions == (1, 2, 0)
    assert hand.dead_money == 3
    hand.raise_to(4)  # seat 3
    hand.fold()  # seat 1
    hand.raise_to(17)  # seat 2 all-in: 3 ante + 17
    hand.call()
    assert hand.is_over
    (pot,) = hand.results
    assert (pot.amount, pot.eligible, pot.winners) == (38, (2, 3), (3,))
    assert hand.final_stacks == (49, 0, 121)
    assert not any(isinstance(e, UncalledBetReturned) for e in hand.events)


# Rules: R-BLIND-1
def test_R_BLIND_1_all_in_on_the_ante_contests_the_antes() -> None:
    forced = [
        *(ForcedBet(s, Forced.ANTE, 1) for s in (1, 2, 3)),
        ForcedBet(2, Forced.SMALL_BLIND, 1),
        ForcedBet(3, Forced.BIG_BLIND, 2),
    ]
    deck = deck_for(["AsAh", "KsKh", "QsQh"], "2c 7d 9h 3s 4c")
    hand = Hand(NoLimit(2), [(1, 1), (2, 100), (3, 100)], 3, forced, deck)
    assert hand.all_in == (True, False, False)
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.eligible, main.winners) == (3, (1, 2, 3), (1,))
    assert (side.amount, side.eligible, side.winners) == (4, (2, 3), (2,))
    assert hand.final_stacks == (3, 101, 97)


# Rules: R-ALLIN-3
def test_R_ALLIN_3_betting_closed_board_run_out_and_all_hands_face_up() -> None:
    hand = make_hand(NoLimit(2), [100, 100, 100], holes=["7c2d", "AsAh", "KsKh"], board="")
    hand.raise_to(100)  # seat 3
    hand.fold()  # seat 1
    events = hand.call()  # seat 2
    assert hand.is_over
    assert len(hand.board) == 5
    assert sorted(shown_seats(hand)) == [2, 3]  # the loser is turned up too
    assert sum(isinstance(e, BoardDealt) for e in events) == 3


# Rules: R-ALLIN-3
def test_R_ALLIN_3_heads_up_covered_big_blind_has_no_decision() -> None:
    hand = make_hand(NoLimit(2), [100, 2])  # seat 2 (button, small blind) has 2
    hand.call()  # seat 2 calls all-in for 1 more: total 2, covered by the big blind
    assert hand.is_over


# Rules: R-ALLIN-4
def test_R_ALLIN_4_uncalled_bet_is_returned() -> None:
    hand = make_hand(NoLimit(2), [100, 100, 100])
    hand.raise_to(30)  # seat 3
    hand.fold()
    events = hand.fold()
    assert UncalledBetReturned(3, 28) in events  # only the big blind's 2 was matched
    assert hand.is_over
    assert [r.amount for r in hand.results] == [5]
    assert hand.final_stacks == (99, 98, 103)


# Rules: R-ALLIN-5
def test_R_ALLIN_5_protected_player_contests_the_pots_they_are_in() -> None:
    hand = make_hand(
        NoLimit(2),
        [100, 100, 100],
        holes=["AsAh", "KsKh", "QsQh"],
        board="2c 7d 9h 3s 4c",
    )
    hand.call()  # seat 3
    hand.call()  # seat 1
    hand.check()  # seat 2
    hand.raise_to(10)  # seat 1 bets on the flop
    events = hand.act(Protect(2))  # seat 2 (to act) disconnects: contribution frozen at 2
    assert [type(e).__name__ for e in events] == ["Protected"]
    assert hand.to_act == 3
    assert hand.all_in[1]
    hand.call()
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.eligible, main.winners) == (6, (1, 2, 3), (1,))
    assert side.eligible == (1, 3)
    assert hand.final_stacks[1] == 98  # kept the chips behind
    with pytest.raises(IllegalAction):
        hand.protect(3)


# ---------------------------------------------------------------- showdown


def _river_hand(**kwargs: object) -> Hand:
    return make_hand(
        NoLimit(2),
        [100, 100, 100],
        holes=["AhKd", "QcQd", "7s2c"],
        board="Ac 9h 5d 3s Jc",
        **kwargs,  # type: ignore[arg-type]
    )


# Rules: R-SHOW-3
def test_R_SHOW_3_last_aggressor_of_the_final_round_shows_first() -> None:
    hand = _river_hand()
    hand.call()
    hand.call()
    hand.check()
    for _ in range(6):
        hand.check()
    hand.check()  # seat 1
    hand.raise_to(10)  # seat 2 bets the river
    hand.call()  # seat 3
    hand.call()  # seat 1
    assert hand.showdown_seats == (2, 3, 1)
    assert shown_seats(hand)[0] == 2


# Rules: R-SHOW-3
def test_R_SHOW_3_without_a_bet_the_first_to_act_shows_first() -> None:
    hand = _river_hand()
    while not hand.is_over:
        hand.check_or_call()
    assert hand.showdown_seats == (1, 2, 3)


# Rules: R-SHOW-4
def test_R_SHOW_4_losing_hands_are_mucked_unless_the_player_shows_them() -> None:
    hand = _river_hand()
    hand.call()
    hand.call()
    hand.check()
    for _ in range(7):
        hand.check()
    hand.raise_to(10)  # seat 2 (queens) bets the river and must show first
    hand.call()  # seat 3
    hand.call()  # seat 1
    assert shown_seats(hand) == [2, 1]  # seat 1's aces beat the queens: shown
    assert mucked_seats(hand) == [3]  # seat 3's seven-high is mucked
    hand.show(3)  # a mucked hand may be shown after the hand
    assert 3 in hand.shown
    showing = _river_hand(show_losing=[3])
    while not showing.is_over:
        showing.check_or_call()
    assert sorted(shown_seats(showing)) == [1, 3]  # queens after aces: mucked
    with pytest.raises(IllegalAction):
        showing.show(1)


# Rules: R-SHOW-4
def test_R_SHOW_4_bettor_not_called_never_has_to_show() -> None:
    hand = _river_hand()
    hand.raise_to(20)
    hand.fold()
    hand.fold()
    assert hand.shown == frozenset()
    assert hand.showdown_seats == ()
    with pytest.raises(IllegalAction):
        hand.show(1)  # only the uncontested winner may choose to show


# Rules: R-SHOW-5
def test_R_SHOW_5_all_hole_cards_of_showdown_players_are_recorded() -> None:
    hand = _river_hand()
    while not hand.is_over:
        hand.check_or_call()
    assert mucked_seats(hand) == [2, 3]
    assert hand.showdown_cards == {
        1: tuple(parse_cards("Ah Kd")),
        2: tuple(parse_cards("Qc Qd")),
        3: tuple(parse_cards("7s 2c")),
    }


# Rules: R-SHOW-2
def test_R_SHOW_2_ace_high_flush_beats_king_high_flush() -> None:
    hand = make_hand(NoLimit(2), [100, 100], holes=["Ah4h", "KhQh"], board="2h 7h 9h Jc 3d")
    while not hand.is_over:
        hand.check_or_call()
    assert hand.results[0].winners == (1,)
    assert hand.final_stacks == (102, 98)


# Rules: R-SHOW-1
def test_R_SHOW_1_unknown_hole_cards_count_as_mucked() -> None:
    deck: list[object] = list(deck_for(["AsAh", "2c3d"], "Kc 9h 5d 8s Jc"))
    deck[0] = deck[2] = None  # seat 1's cards are unknown (a replay)
    hand = Hand(NoLimit(2), [(1, 100), (2, 100)], 2, [], deck)  # type: ignore[arg-type]
    while not hand.is_over:
        hand.check_or_call()
    assert mucked_seats(hand) == [1]


# ---------------------------------------------------------------- pots


# Rules: R-POT-1
def test_R_POT_1_odd_chip_to_the_first_winner_left_of_the_button() -> None:
    assert split_pot(7, [0, 2]) == (4, 3)
    assert split_pot(8, [0, 1, 2]) == (3, 3, 2)  # several odd chips: one each, clockwise
    forced = [
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(3, Forced.DEAD, 1),
    ]
    deck = deck_for(["2c3d", "2d3c", "2h3s"], "Ts Jd Qc Kh As")  # the board plays: a tie
    hand = Hand(NoLimit(2), [(1, 100), (2, 100), (3, 100)], 3, forced, deck)
    while not hand.is_over:
        hand.check_or_call()
    (pot,) = hand.results
    assert pot.amount == 7
    assert pot.winners == (1, 2, 3)
    assert pot.shares == (3, 2, 2)


# Rules: R-POT-1
def test_R_POT_1_odd_chips_per_pot_separately() -> None:
    hand = make_hand(
        NoLimit(2),
        [11, 100, 100],
        holes=["2c3d", "2d3c", "2h3s"],
        board="Ts Jd Qc Kh As",
    )
    hand.raise_to(11)  # seat 3
    hand.call()  # seat 1 all-in for 11
    hand.raise_to(50)  # seat 2
    hand.call()
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.shares) == (33, (11, 11, 11))
    assert (side.amount, side.winners, side.shares) == (78, (2, 3), (39, 39))


# Rules: R-POT-2
def test_R_POT_2_side_pot_won_without_beating_the_all_in_player() -> None:
    hand = make_hand(
        NoLimit(2),
        [20, 100, 100],
        holes=["AsAh", "KsKh", "QsQh"],
        board="2c 7d 9h 3s 4c",
    )
    hand.raise_to(20)
    hand.call()  # seat 1 all-in
    hand.call()
    hand.raise_to(10)  # flop: seat 2 bets into the side pot
    hand.call()
    while not hand.is_over:
        hand.check_or_call()
    main, side = hand.results
    assert (main.amount, main.winners) == (60, (1,))
    assert (side.amount, side.winners) == (20, (2,))  # kings lose to aces, beat queens
    assert hand.final_stacks == (60, 90, 70)


# ---------------------------------------------------------------- rake


FIVE_PERCENT = Fraction(5, 100)


# Rules: R-RAKE-1
def test_R_RAKE_1_percentage_with_cap_and_no_flop_no_drop() -> None:
    rule = RakeRule(FIVE_PERCENT, cap=300)  # 5% capped at $3, in cents
    hand = make_hand(NoLimit(200), [10_000] * 2, sb=100, bb=200, rake=rule)
    hand.call()
    while not hand.is_over:
        hand.check_or_call()
    assert hand.rake == 20  # 5% of $4.00
    assert sum(hand.final_stacks) == 20_000 - 20
    big = make_hand(NoLimit(200), [10_000] * 2, sb=100, bb=200, rake=rule)
    big.raise_to(10_000)
    big.call()
    assert big.rake == 300  # 5% of $200 is $10: capped at $3
    no_flop = RakeRule(FIVE_PERCENT, cap=300, no_flop_no_drop=True)
    folded = make_hand(NoLimit(200), [10_000] * 3, sb=100, bb=200, rake=no_flop)
    folded.raise_to(1000)
    folded.fold()
    folded.fold()
    assert folded.rake == 0
    flopped = make_hand(NoLimit(200), [10_000] * 2, sb=100, bb=200, rake=no_flop)
    flopped.call()
    flopped.check()
    flopped.raise_to(400)
    flopped.fold()
    assert flopped.rake == 20  # taken from the pot the uncalled bet left: $4.00


# Rules: R-RAKE-3
def test_R_RAKE_3_pot_by_pot_from_the_main_pot_rounded_down_until_the_cap() -> None:
    rule = RakeRule(FIVE_PERCENT, cap=300)
    assert rake_pots([1000, 3000, 5000], rule, True) == [50, 150, 100]
    assert rake_pots([999], rule, True) == [49]
    assert rake_pots([999], None, True) == [0]
    assert rake_pots([999], RakeRule(FIVE_PERCENT, no_flop_no_drop=True), False) == [0]
    hand = make_hand(
        NoLimit(2),
        [20, 100, 100],
        holes=["AsAh", "KsKh", "QsQh"],
        board="2c 7d 9h 3s 4c",
        rake=RakeRule(Fraction(1, 10), cap=7),
    )
    hand.raise_to(20)
    hand.call()
    hand.call()
    hand.raise_to(10)
    hand.call()
    while not hand.is_over:
        hand.check_or_call()
    assert [r.rake for r in hand.results] == [6, 1]  # 10% of 60, then 1 of 2 left to the cap
    assert hand.results[0].shares == (54,)
    assert hand.results[1].shares == (19,)


# Rules: R-RAKE-1
def test_R_RAKE_1_rake_rule_is_validated() -> None:
    with pytest.raises(InvalidConfiguration):
        RakeRule(Fraction(3, 2))
    with pytest.raises(InvalidConfiguration):
        RakeRule(0.05)  # type: ignore[arg-type]


# Rules: R-LIMIT-1
def test_R_LIMIT_1_limit_hand_to_showdown_conserves_chips() -> None:
    hand = make_hand(FixedLimit(2, 4), [100] * 4)
    while not hand.is_over:
        options = hand.legal_actions()
        assert options is not None
        if options.raise_min is not None and hand.street in (0, 2):
            hand.raise_to(options.raise_min)
        else:
            hand.check_or_call()
    assert sum(hand.final_stacks) == 400


def _small_blind_all_in_before_the_flop() -> Hand:
    """Seat 1 (small blind, left of the button) all-in for 10 pre-flop, seats 2 and 3 call: the
    worst hand (seven-high) is the all-in player's; seat 2's aces beat seat 3's queens."""
    hand = make_hand(
        NoLimit(2),
        [10, 100, 100],
        holes=["7s2c", "AhKd", "QcQd"],
        board="Ac 9h 5d 3s Jc",
    )
    hand.call()  # seat 3
    hand.raise_to(10)  # seat 1 (small blind) all-in
    hand.call()  # seat 2
    hand.call()  # seat 3
    return hand


# Rules: R-SHOW-3, R-SHOW-4
def test_R_SHOW_3_without_a_bet_players_all_in_before_the_round_show_after_those_who_acted() -> (
    None
):
    """Seat 1 (left of the button) is all-in pre-flop; seats 2 and 3 check the river down. The
    first to show is seat 2, the first left of the button who acted on the river; seat 3
    follows; seat 1, all-in before the round, comes last and may muck a beaten hand."""
    hand = _small_blind_all_in_before_the_flop()
    while not hand.is_over:
        hand.check()
    assert hand.showdown_seats == (2, 3, 1)
    assert shown_seats(hand) == [2]
    assert mucked_seats(hand) == [3, 1]  # both beaten by the aces: mucked, seat 1 included
    assert set(hand.showdown_cards) == {1, 2, 3}  # R-SHOW-5: recorded all the same


# Rules: R-SHOW-3
def test_R_SHOW_3_with_a_bet_the_all_in_player_shows_in_turn_after_the_bettor() -> None:
    hand = _small_blind_all_in_before_the_flop()
    for _ in range(4):
        hand.check()  # flop and turn
    hand.check()  # seat 2
    hand.raise_to(20)  # seat 3 bets the river
    hand.call()  # seat 2
    assert hand.showdown_seats == (3, 1, 2)


# Rules: R-ALLIN-3, R-SHOW-4
def test_R_ALLIN_3_a_covering_caller_on_the_river_may_muck() -> None:
    """All live hands are turned up only when the board is run out; a player who calls an
    all-in bet on the river with chips behind is at a normal showdown and may muck."""
    hand = make_hand(
        NoLimit(2),
        [100, 40, 100],
        holes=["7s2c", "AhKd", "QcQd"],
        board="Ac 9h 5d 3s Jc",
    )
    hand.call()  # seat 3
    hand.call()  # seat 1
    hand.check()  # seat 2
    for _ in range(6):
        hand.check()  # flop and turn
    hand.check()  # seat 1
    hand.raise_to(38)  # seat 2 all-in on the river
    hand.call()  # seat 3 covers
    hand.fold()  # seat 1
    assert shown_seats(hand) == [2]
    assert mucked_seats(hand) == [3]


# Rules: R-RAKE-3
def test_R_RAKE_3_computed_once_for_the_hand_then_taken_from_the_main_pot_outward() -> None:
    five = RakeRule(FIVE_PERCENT)
    assert rake_pots([19, 19], five, True) == [1, 0]  # 5% of 38 is 1.9: 1, not 0 + 0
    assert rake_pots([10, 10, 21], five, True) == [1, 0, 1]  # 2: a share of 1, and the rest
    assert rake_pots([1000, 3000, 5000], RakeRule(FIVE_PERCENT, cap=300), True) == [50, 150, 100]
    assert rake_pots([19, 19], RakeRule(FIVE_PERCENT, cap=0), True) == [0, 0]
    hand = make_hand(
        NoLimit(2),
        [19, 38, 38],
        holes=["AsAh", "KsKh", "QsQh"],
        board="2c 7d 9h 3s 4c",
        rake=five,
    )
    hand.raise_to(19)  # seat 3
    hand.call()  # seat 1 all-in
    hand.call()  # seat 2
    hand.raise_to(10)  # seat 2 bets the flop
    hand.call()  # seat 3
    while not hand.is_over:
        hand.check_or_call()
    assert [(r.amount, r.rake) for r in hand.results] == [(57, 2), (20, 1)]  # 5% of 77 = 3
    assert hand.rake == 3


# Rules: R-RAKE-3
def test_R_RAKE_3_a_recorded_rake_is_taken_pot_by_pot_as_recorded() -> None:
    recorded = RakeRule(Fraction(1, 10), cap=3, pots=(0, 3))
    assert rake_pots([40, 30], recorded, True) == [0, 3]
    assert rake_pots([40, 30, 5], recorded, True) == [0, 3, 0]
    with pytest.raises(InvalidConfiguration, match="one per pot"):
        RakeRule(Fraction(1, 10), pots=(-1,))

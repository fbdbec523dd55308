"""One test per table rule of RULES.md, named by its ID (scenario scripts cover the multi-hand
examples of the seeds)."""

from __future__ import annotations

import pytest

from feltroom.cards import Card
from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import Call, Check, Fold, Forced, Hand, Protected, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import (
    CountdownStarted,
    Entry,
    FeeCharged,
    FirstButtonDrawn,
    HandFinished,
    PreAction,
    PreActionKind,
    ProtectionUsed,
    SatOut,
    SeatOffered,
    SeatOfferExpired,
    SeatReleased,
    Table,
    TableConfig,
    TimeBankStarted,
    TimedOut,
    preset,
)

PLAY = {"money": "play", "exponent": 0, "min_buy_in": 40, "max_buy_in": 1000}


def table(name: str = "dead_nl_1_2", **changes: object) -> Table:
    settings = {**PLAY, "big_blind": 2, "small_blind": 1, **changes}
    if preset(name).structure == "fixed_limit":
        settings.pop("big_blind")
        settings.pop("small_blind")
        settings.setdefault("lower", 4)
    return Table(preset(name, **settings), deck_source=SeededDeckSource(7))


def seated(n: int = 3, **changes: object) -> Table:
    t = table(**changes)
    for seat in range(1, n + 1):
        t.sit(f"p{seat}", seat, 100, 0.0)
    return t


# Rules: R-GAME-3
def test_R_GAME_3_max_seats_2_to_10() -> None:
    assert TableConfig(big_blind=2, max_seats=2).max_seats == 2
    with pytest.raises(InvalidConfiguration, match=r"max_seats: 11 .* 2\.\.10"):
        TableConfig(big_blind=2, max_seats=11)
    t = table(max_seats=3)
    with pytest.raises(IllegalAction, match=r"seats are 1\.\.3"):
        t.sit("x", 4, 100, 0.0)


# Rules: R-GAME-4
def test_R_GAME_4_limit_tables_named_by_their_limits() -> None:
    assert preset("limit_10_20").stakes_name() == "$10-$20 Fixed Limit"
    assert preset("limit_3_6").stakes_name() == "$3-$6 Fixed Limit"
    assert preset("nl_25_50").stakes_name() == "$.25/$.50 No Limit"
    structure = preset("limit_10_20").engine_structure()
    assert (structure.small_bet, structure.big_bet) == (1000, 2000)  # type: ignore[union-attr]


def test_invalid_setting_names_field_and_valid_values() -> None:
    with pytest.raises(InvalidConfiguration, match=r"button_rule: 'sideways'.*dead, moving"):
        TableConfig(big_blind=2, button_rule="sideways")
    with pytest.raises(InvalidConfiguration, match=r"timeout_action.*fold, check_or_fold"):
        TableConfig(big_blind=2, timeout_action="raise")
    with pytest.raises(InvalidConfiguration, match="preset"):
        preset("nope")


# Rules: R-BLIND-2, R-BLIND-3
def test_R_BLIND_2_R_BLIND_3_blinds_of_the_presets() -> None:
    expected = {
        "limit_10_20": (500, 1000),
        "limit_3_6": (100, 300),
        "limit_4_8": (200, 400),
        "limit_15_30": (700, 1500),
        "limit_05_10": (3, 5),  # the operator's override of $.02
        "limit_1_2": (50, 100),
        "nl_25_50": (25, 50),
    }
    for name, blinds in expected.items():
        config = preset(name)
        assert (config.small, config.big) == blinds, name
    assert preset("limit_05_10", small_blind=None).small == 2
    assert TableConfig(structure="fixed_limit", lower=500, button_rule="moving").small == 200


# Rules: R-TABLE-1
def test_R_TABLE_1_information() -> None:
    assert preset("limit_4_8").info() == (
        "Welcome to Holdem — $4-$8 Fixed Limit — Blinds $2/$4 — Minimum Buy-in $40"
    )
    assert "Maximum Buy-in $50" in preset("nl_25_50").info()
    assert [preset(n).buy_in_max for n in ("pl_25_50", "pl_50_100", "pl_100_200")] == [
        2500,
        5000,
        10000,
    ]


# Rules: R-BUYIN-1
def test_R_BUYIN_1_bounds_refused_with_the_bounds() -> None:
    t = Table(preset("nl_25_50"))
    with pytest.raises(IllegalAction, match=r"minimum buy-in of \$10 to play at this table"):
        t.sit("a", 1, 999, 0.0)
    with pytest.raises(IllegalAction, match=r"maximum buy-in at this table is \$50"):
        t.sit("a", 1, 5001, 0.0)
    t.sit("a", 1, 1000, 0.0)
    assert Table(preset("limit_1_2")).config.buy_in_min == 1000
    assert preset("limit_1_2").buy_in_max is None


# Rules: R-BUYIN-2
def test_R_BUYIN_2_default_buy_in() -> None:
    assert preset("nl_25_50").default_buy_in(12345) == 5000
    assert preset("nl_25_50").default_buy_in(2000) == 2000
    assert preset("limit_4_8").default_buy_in(123456) == 123456


# Rules: R-BUYIN-3
def test_R_BUYIN_3_add_chips_only_between_hands() -> None:
    t = seated()
    t.add_chips(1, 50, 0.0)
    assert t.seats[1].stack == 150
    t.start_hand(0.0)
    with pytest.raises(IllegalAction, match="between hands"):
        t.add_chips(1, 50, 0.0)
    t2 = Table(preset("nl_25_50"))
    t2.sit("a", 1, 4000, 0.0)
    with pytest.raises(IllegalAction, match="maximum buy-in"):
        t2.add_chips(1, 1001, 0.0)


def test_one_seat_per_account() -> None:
    t = seated(1)
    with pytest.raises(IllegalAction, match="already has seat 1"):
        t.sit("p1", 2, 100, 0.0)


# Rules: R-BUTTON-1
def test_R_BUTTON_1_high_card_tie_to_first_joined() -> None:
    t = table(first_button="high_card")
    for seat in (2, 5, 7):
        t.sit(f"p{seat}", seat, 100, 0.0)
    events = t.start_hand(0.0)
    drawn = next(e for e in events if isinstance(e, FirstButtonDrawn))
    best = max(card.rank for _, card in drawn.cards)
    winners = [seat for seat, card in drawn.cards if card.rank == best]
    assert drawn.button == min(winners, key=lambda s: t.seats[s].joined)
    assert t.plan is not None
    assert t.plan.button == drawn.button
    assert isinstance(drawn.cards[0][1], Card)


# Rules: R-BUTTON-1
def test_R_BUTTON_1_first_seated_and_left_of_dealer() -> None:
    t = table(first_button="first_seated")
    for seat in (5, 2, 7):
        t.sit(f"p{seat}", seat, 100, 0.0)
    t.start_hand(0.0)
    assert t.plan is not None
    assert t.plan.button == 5
    t = table(first_button="left_of_dealer")
    for seat in (5, 2, 7):
        t.sit(f"p{seat}", seat, 100, 0.0)
    t.start_hand(0.0)
    assert t.plan is not None
    assert t.plan.button == 2


# Rules: R-BLIND-1
def test_R_BLIND_1_blinds_live_and_to_the_pot() -> None:
    t = seated(3, first_button="first_seated", rake_percent=0)
    t.start_hand(0.0)
    hand = t.hand
    assert hand is not None
    kinds = {f.seat: f.kind for f in hand.setup.forced}
    assert kinds == {2: Forced.SMALL_BLIND, 3: Forced.BIG_BLIND}
    t.act(1, Call(), 0.0)
    t.act(2, Call(), 0.0)
    legal = hand.legal_actions()
    assert legal is not None
    assert legal.seat == 3
    assert legal.check
    assert legal.raise_min is not None


# Rules: R-BLIND-6
def test_R_BLIND_6_prompt_post_or_decline_and_sit_out() -> None:
    t = table(first_button="first_seated")
    t.sit("a", 1, 100, 0.0)
    t.sit("b", 2, 100, 0.0, auto_post=False)
    t.sit("c", 3, 100, 0.0)
    t.sit("d", 4, 100, 0.0)
    events = t.start_hand(0.0)
    assert [type(e).__name__ for e in events] == ["BlindPrompt"]
    assert not t.in_hand
    events = t.decline_blind(2, 1.0)
    assert t.seats[2].sitting_out
    assert t.in_hand
    assert t.hand is not None
    assert 2 not in t.hand.seats
    assert any(isinstance(e, SatOut) and e.reason == "declined_blind" for e in events)


# Rules: R-SIT-1
def test_R_SIT_1_sit_out_during_hand_folds_at_turn_without_protection() -> None:
    t = seated(3, first_button="first_seated", protect_on="any_timeout")
    t._may_protect = lambda account: True
    t.start_hand(0.0)
    t.sit_out(1, 0.0)  # seat 1 is first to act: folded at once
    hand = t.hand
    assert hand is not None
    assert hand.folded[hand.seats.index(1)]
    assert not any(isinstance(e, Protected) for e in hand.events)
    t.act(2, Fold(), 0.0)
    assert t.seats[1].sitting_out


# Rules: R-SIT-1
def test_R_SIT_1_sit_out_or_leave_folds_at_turn_even_when_checking_is_free() -> None:
    for choose in ("sit_out", "leave"):
        t = seated(3, first_button="first_seated")
        t.start_hand(0.0)
        t.act(1, Call(), 0.0)
        t.act(2, Call(), 0.0)
        events = getattr(t, choose)(3, 1.0)  # the big blind, whose turn it is, could check
        hand = t.hand
        assert hand is not None
        assert hand.folded[hand.seats.index(3)]
        assert hand.log[-1] == (3, Fold())
        assert hand.street == 1
        assert not any(isinstance(e, Protected) for e in hand.events)
        assert not any(isinstance(e, TimedOut) for e in events)
        while t.in_hand:
            assert hand.to_act is not None
            t.act(hand.to_act, Check(), 2.0)
        if choose == "sit_out":
            assert t.seats[3].sitting_out
        else:
            assert 3 not in t.seats
        assert t.seats.get(3) is None or t.seats[3].stack == 98
        assert t.chips_on_table() + t.rake + t.taken == t.brought


# Rules: R-SIT-1
def test_R_SIT_1_leaving_player_not_to_act_is_folded_at_their_turn() -> None:
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    t.leave(3, 0.0)  # seat 1 is to act: seat 3 keeps their hand until their turn
    hand = t.hand
    assert hand is not None
    assert not hand.folded[hand.seats.index(3)]
    t.act(1, Call(), 0.0)
    t.act(2, Call(), 0.0)  # seat 3's turn, checking free: folded
    assert hand.folded[hand.seats.index(3)]
    assert hand.street == 1


# Rules: R-SIT-1
def test_R_SIT_1_disconnection_keeps_the_seat() -> None:
    t = seated(3, first_button="first_seated")
    events = t.disconnect(2, 0.0)
    assert type(events[0]).__name__ == "Disconnected"
    assert 2 in t.seats
    assert type(t.resume(2, 1.0)[0]).__name__ == "Resumed"


# Rules: R-TIME-4
def test_R_TIME_4_disconnection_is_shown_to_the_table_and_the_player_resumes_the_same_hand() -> (
    None
):
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    hand = t.hand
    assert hand is not None
    own_cards = next(p.cards for p in t.view(2).hand.players if p.seat == 2)  # type: ignore[union-attr]
    events = t.disconnect(2, 1.0)
    assert [type(e).__name__ for e in events] == ["Disconnected"]
    assert t.disconnect(2, 1.5) == []  # already marked
    # Every seat and every observer sees the mark; the seat and its hand are kept.
    for viewer in (1, 2, 3, None):
        marks = {info.seat: info.disconnected for info in t.view(viewer).seats}
        assert marks == {1: False, 2: True, 3: False}
    assert t.view(2).seats[1].in_hand
    # Back within the hand: the same seat, the same hand, the same hole cards, and it acts.
    assert [type(e).__name__ for e in t.resume(2, 2.0)] == ["Resumed"]
    assert t.hand is hand
    assert not any(info.disconnected for info in t.view(None).seats)
    view = t.view(2).hand
    assert view is not None
    assert next(p.cards for p in view.players if p.seat == 2) == own_cards
    assert own_cards is not None
    assert None not in own_cards
    t.act(1, Call(), 3.0)
    t.act(2, Call(), 3.0)
    assert not hand.folded[hand.seats.index(2)]


# Rules: R-SIT-2
def test_R_SIT_2_timeout_sits_out_then_seat_released() -> None:
    t = seated(3, first_button="first_seated", sit_out_minutes=10)
    t.start_hand(0.0)
    events = t.tick(22.0)  # 7 s base + 15 s countdown
    assert any(isinstance(e, TimedOut) and e.seat == 1 for e in events)
    t.act(2, Fold(), 22.0)
    assert t.seats[1].sitting_out
    assert t.tick(22.0 + 599) == []
    events = t.tick(22.0 + 600)
    released = [e for e in events if isinstance(e, SeatReleased)]
    assert released == [SeatReleased(1, "p1", 100, "sit_out_expired")]
    assert t.taken == 100


# Rules: R-TIME-1
def test_R_TIME_1_base_countdown_and_time_bank_carry_over() -> None:
    t = seated(3, first_button="first_seated", time_bank_seconds=30)
    t.start_hand(0.0)
    assert t.tick(6.9) == []
    assert any(isinstance(e, CountdownStarted) for e in t.tick(7.0))
    assert any(isinstance(e, TimeBankStarted) for e in t.tick(22.0))
    t.act(1, Call(), 32.0)  # used 10 s of the bank
    assert t.seats[1].time_bank == 20.0
    clock = t._clock
    assert clock is not None
    assert clock.seat == 2
    assert clock.deadline == 32.0 + 22 + 30


# Rules: R-TIME-2
def test_R_TIME_2_timeout_fold_or_check() -> None:
    # timeout_action = fold (the default): the hand is folded, even when checking is free
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    t.act(1, Call(), 0.0)
    t.act(2, Call(), 0.0)
    events = t.tick(22.0)  # the big blind could check: folded all the same
    assert any(isinstance(e, TimedOut) and e.seat == 3 and e.action == "fold" for e in events)
    hand = t.hand
    assert hand is not None
    assert hand.folded[hand.seats.index(3)]
    assert hand.street == 1  # the round ended with the fold; seats 1 and 2 see the flop
    # timeout_action = check_or_fold: checks when checking is free, folds facing a bet
    t = seated(3, first_button="first_seated", timeout_action="check_or_fold")
    t.start_hand(0.0)
    t.act(1, Call(), 0.0)
    t.act(2, Call(), 0.0)
    events = t.tick(22.0)
    assert any(isinstance(e, TimedOut) and e.seat == 3 and e.action == "check" for e in events)
    hand = t.hand
    assert hand is not None
    assert not hand.folded[hand.seats.index(3)]
    t = seated(3, first_button="first_seated", timeout_action="check_or_fold")
    t.start_hand(0.0)
    events = t.tick(22.0)
    assert any(isinstance(e, TimedOut) and e.action == "fold" for e in events)


# Rules: R-TIME-2
def test_R_TIME_2_timeout_fold_replays_from_the_engine_log() -> None:
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    t.act(1, Call(), 0.0)
    t.act(2, Call(), 0.0)
    t.tick(22.0)  # seat 3 folded when checking was free
    while t.in_hand:
        hand = t.hand
        assert hand is not None
        assert hand.to_act is not None
        t.act(hand.to_act, Check(), 22.0)
    hand = t.hand
    assert hand is not None
    assert (3, Fold()) in hand.log
    again = Hand.replay(hand.setup, hand.log)
    assert again.events == hand.events
    assert again.final_stacks == hand.final_stacks


# Rules: R-TIME-3
def test_R_TIME_3_protection_when_disconnected_with_chips_in_the_pot() -> None:
    allow = {"p2": True}
    t = seated(3, first_button="first_seated")
    t._may_protect = lambda account: allow.get(account, False)
    t.start_hand(0.0)
    t.act(1, RaiseTo(4), 0.0)
    t.disconnect(2, 0.0)  # small blind, 1 chip in the pot
    events = t.tick(22.0)
    assert ProtectionUsed(2, "p2") in events
    hand = t.hand
    assert hand is not None
    assert any(isinstance(e, Protected) for e in hand.events)
    # without an allowance, or connected under protect_on=disconnect: R-TIME-2 applies
    t = seated(3, first_button="first_seated")
    t._may_protect = lambda account: False
    t.start_hand(0.0)
    t.act(1, RaiseTo(4), 0.0)
    t.disconnect(2, 0.0)
    assert any(isinstance(e, TimedOut) and e.action == "fold" for e in t.tick(22.0))


# Rules: R-AUTO-1
def test_R_AUTO_1_pre_actions() -> None:
    t = seated(3, first_button="first_seated")
    t.set_pre_action(2, PreAction(PreActionKind.CALL, 1))
    t.set_pre_action(3, PreAction(PreActionKind.CHECK))
    t.start_hand(0.0)
    events = t.act(1, RaiseTo(4), 0.0)  # seat 2's "call 1" is cancelled: the amount changed
    assert any(type(e).__name__ == "PreActionCancelled" and e.seat == 2 for e in events)
    t.act(2, Call(), 0.0)
    # seat 3's "check" is no longer valid (facing a raise): cancelled, seat 3 decides
    hand = t.hand
    assert hand is not None
    assert hand.to_act == 3
    t.set_pre_action(1, PreAction(PreActionKind.CALL_ANY))
    events = t.act(3, RaiseTo(6), 0.0)
    assert any(type(e).__name__ == "PreActionUsed" and e.seat == 1 for e in events)


# Rules: R-RAKE-2
def test_R_RAKE_2_no_rake_in_tournaments() -> None:
    assert preset("nl_25_50").rake_rule() is not None
    assert preset("nl_25_50", mode="tournament").rake_rule() is None
    assert preset("limit_4_8", mode="tournament").engine_structure().uncapped_heads_up is False  # type: ignore[union-attr]


def _showdown(t: Table) -> HandFinished:
    events = t.start_hand(0.0)
    while t.in_hand:
        hand = t.hand
        assert hand is not None
        assert hand.to_act is not None
        legal = hand.legal_actions()
        assert legal is not None
        events += t.act(hand.to_act, Check() if legal.check else Call(), 0.0)
    return next(e for e in events if isinstance(e, HandFinished))


# Rules: R-RAKE-4
def test_R_RAKE_4_collection_fee_and_session_fee() -> None:
    t = seated(3, first_button="first_seated", house_fee="collection_fee", collection_fee=3)
    finished = _showdown(t)
    assert finished.result.rake == 0
    assert sum(finished.result.fees.values()) == 3
    assert t.fees == 3
    t = seated(3, first_button="first_seated", house_fee="session_fee", session_fee=5)
    _showdown(t)
    events = t.start_hand(30 * 60.0)
    assert [e.amount for e in events if isinstance(e, FeeCharged)] == [5, 5, 5]
    total = t.chips_on_table() + t.rake + t.fees + t.tax + t.taken
    assert total == t.brought


# Rules: R-TAX-1
def test_R_TAX_1_tax_on_net_win_above_threshold() -> None:
    t = seated(3, first_button="first_seated", rake_percent=0, tax_threshold=2, tax_percent=50)
    finished = _showdown(t)
    result = finished.result
    (winner,) = [s for s in result.after if result.after[s] > result.before[s]] or [None]
    if winner is not None:
        gross = result.after[winner] + result.tax.get(winner, 0) - result.before[winner]
        assert result.tax.get(winner, 0) == (gross - 2) * 50 // 100
    assert t.chips_on_table() + t.tax == t.brought


def test_waiting_list_offer_and_expiry() -> None:
    t = seated(3, max_seats=3)
    t.join_waiting_list("w1", 0.0)
    t.join_waiting_list("w2", 0.0)
    events = t.leave(2, 10.0)
    assert SeatOffered("w1", 2, 70.0) in events
    with pytest.raises(IllegalAction, match="offered"):
        t.sit("w2", 2, 100, 11.0)
    events = t.tick(70.0)
    assert SeatOfferExpired("w1", 2) in events
    assert SeatOffered("w2", 2, 130.0) in events
    t.sit("w2", 2, 100, 71.0)
    assert t.seats[2].account == "w2"
    assert t.waiting == []


def test_views_hide_other_hole_cards() -> None:
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    for viewer in (None, 1, 2, 3):
        view = t.view(viewer)
        assert view.hand is not None
        for player in view.hand.players:
            assert (player.cards is not None) == (player.seat == viewer)
    assert t.view(None).info.startswith("Welcome to Holdem")


# Rules: R-ENTRY-1
def test_R_ENTRY_1_wait_for_big_blind_entry() -> None:
    t = seated(3, first_button="first_seated")
    t.start_hand(0.0)
    t.act(1, Fold(), 0.0)
    t.act(2, Fold(), 0.0)
    t.sit("late", 5, 100, 0.0, entry=Entry.WAIT)  # the big blind reaches seat 5 next
    t.start_hand(0.0)
    assert t.plan is not None
    assert t.plan.big == 5
    assert t.hand is not None
    assert not any(f.kind is Forced.POST for f in t.hand.setup.forced)


# Rules: R-RAKE-4, R-BUTTON-3
def test_R_RAKE_4_session_fee_taking_the_last_chips_before_the_deal_leaves_a_dead_small_blind() -> (
    None
):
    t = table(first_button="first_seated", house_fee="session_fee", session_fee=150)
    for seat, chips in ((1, 300), (2, 300), (3, 100), (4, 300)):
        t.sit(f"p{seat}", seat, chips, 0.0)
    _showdown(t)
    assert t.last is not None
    assert (t.last.button, t.last.small, t.last.big) == (1, 2, 3)
    events = t.start_hand(30 * 60.0)
    fees = {e.seat: e.amount for e in events if isinstance(e, FeeCharged)}
    assert fees[3] < 150  # the fee took seat 3's last chips
    assert t.seats[3].stack == 0
    hand = t.hand
    assert hand is not None
    # the dead button: seat 3 was due the small blind and cannot pay it, so there is none
    assert hand.setup.button == 2
    assert [(f.seat, f.kind) for f in hand.setup.forced] == [(4, Forced.BIG_BLIND)]
    assert 3 not in hand.seats
    assert t.chips_on_table() + t.fees == t.brought


# Rules: R-RAKE-3
def test_R_RAKE_3_the_cap_is_six_big_blinds_in_the_tables_currency_by_default() -> None:
    """The default cap is an amount in the table's own units: 6 big blinds, $3 at $.25/$.50
    (300 cents), 12 chips at a 1/2 play-chip table (not 300 chips)."""
    nl = preset("nl_25_50")
    assert nl.rake_cap_amount == 300
    rule = nl.rake_rule()
    assert rule is not None
    assert rule.cap == 300
    play = table().config
    assert play.rake_cap is None
    assert play.rake_cap_amount == 12
    rule = play.rake_rule()
    assert rule is not None
    assert rule.cap == 12
    assert preset("dead_nl_1_2", rake_cap=30).rake_rule().cap == 30  # type: ignore[union-attr]
    t = seated(3)
    t.start_hand(0.0)
    hand = t.hand
    assert hand is not None
    hand.raise_to(100)  # seat 1 (left of the button) is all-in: 100 chips each
    while not hand.is_over:
        hand.check_or_call()
    assert hand.rake == 12  # 5% of 300 is 15, capped at 6 big blinds

"""A straddled table hand (R-HOME-3) in the three exports: PokerStars text, OHH and PHH each
read back and replay exactly, under the straddle's own raise rule (its size is the last full
raise); a PHH file without ``_straddle_full_raise`` (a real hand) replays PokerKit's way."""

from __future__ import annotations

from decimal import Decimal

from feltroom.history import ohh, ohh_import, phh, pokerstars, pokerstars_import
from feltroom.history.record import ForcedKind, HandRecord
from feltroom.history.replay import record_from_hand, replay
from feltroom.money import PLAY
from feltroom.rules import Call, Check, Forced, ForcedBet, Hand, LegalActions, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import Table, preset


def _straddled_hand() -> Hand:
    """Five players at blinds 1/2, seat 4 straddles 4; seat 5 calls, seat 1 goes all-in for 7
    (3 over the straddle: not a full raise), the blinds fold, the straddler calls: seat 5, who
    had acted, may only call (R-HOME-3, R-LIMIT-4). Then checked down."""
    config = preset(
        "dead_nl_1_2",
        money="play",
        exponent=0,
        big_blind=2,
        small_blind=1,
        min_buy_in=1,
        max_buy_in=1000,
        time_bank_seconds=0,
        first_button="left_of_dealer",
        straddle=True,
    )
    table = Table(config, deck_source=SeededDeckSource(11))
    for seat, chips in ((1, 7), (2, 100), (3, 100), (4, 100), (5, 100)):
        table.sit(f"p{seat}", seat, chips, 0.0)
    table.set_straddle(4, True)
    table.start_hand(0.0)
    hand = table.hand
    assert hand is not None
    assert table.plan is not None
    assert (table.plan.button, table.plan.big) == (1, 3)
    assert ForcedBet(4, Forced.STRADDLE, 4) in hand.setup.forced
    table.act(5, Call(), 0.0)
    table.act(1, RaiseTo(7), 0.0)  # all-in
    table.act(2, Call(), 0.0)
    table.act(3, Call(), 0.0)
    table.act(4, Call(), 0.0)
    legal = hand.legal_actions()
    assert legal is not None
    assert legal.seat == 5
    assert legal.raise_min is None  # the short all-in reopened nothing
    table.act(5, Call(), 0.0)
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        table.act(seat, Check(), 0.0)
    return hand


def _decision_of_seat_5(hand: Hand) -> LegalActions | None:
    """The legal options of seat 5's second decision, replayed from the hand's log."""
    log = hand.log
    again = Hand.replay(hand.setup, log[:5])
    assert again.to_act == 5
    return again.legal_actions()


def _same(hand: Hand, record: HandRecord) -> None:
    again = replay(record)
    assert again.setup.straddle_full_raise
    assert again.final_stacks == hand.final_stacks
    assert [e for e in again.events if type(e).__name__ != "HoleCardsDealt"] == [
        e for e in hand.events if type(e).__name__ != "HoleCardsDealt"
    ]
    assert _decision_of_seat_5(again) == _decision_of_seat_5(hand)
    assert any(bet.kind is ForcedKind.STRADDLE for bet in record.forced_bets)


# Rules: R-HOME-3, R-HIST-1
def test_R_HOME_3_a_straddled_hand_exports_reads_back_and_replays_exactly() -> None:
    hand = _straddled_hand()
    names = {seat: f"p{seat}" for seat in hand.seats}
    text = pokerstars.dumps(
        hand, hand_id=7, table_name="Felt", hero=None, names=names, currency=PLAY, show_all=True
    )
    assert "p4: posts straddle 4" in text
    (record,) = pokerstars_import.loads(text).records
    _same(hand, record)

    document = ohh.dumps(
        hand, hand_id=7, table_name="Felt", hero=None, names=names, currency=PLAY, show_all=True
    )
    assert '"Straddle"' in document
    imported = ohh_import.loads(document)
    assert imported.problems == ()
    (record,) = imported.records
    _same(hand, record)

    written = phh.dumps(record_from_hand(hand, names=[names[s] for s in hand.seats]))
    assert "_straddle_full_raise = true" in written
    record = phh.loads(written)
    assert record.straddle_full_raise
    _same(hand, record)


# Rules: R-HOME-3
def test_R_HOME_3_a_phh_file_of_a_real_hand_keeps_pokerkits_straddle() -> None:
    """Without ``_straddle_full_raise`` (the PHH corpus, PokerKit's files) the straddle's
    increment is the raise size: the short all-in of 3 over the straddle is a full raise there,
    so seat 5 may raise again; the recorded hand still replays to the same stacks."""
    hand = _straddled_hand()
    written = phh.dumps(record_from_hand(hand))
    real = written.replace("_straddle_full_raise = true\n", "")
    assert real != written
    record = phh.loads(real)
    assert not record.straddle_full_raise
    again = replay(record)
    assert not again.setup.straddle_full_raise
    assert again.final_stacks == hand.final_stacks
    legal = _decision_of_seat_5(again)
    assert legal is not None
    assert legal.raise_min == 10  # the all-in of 3 over the straddle was a full raise: 7 + 3
    assert record.finishing_stacks == tuple(Decimal(s) for s in hand.final_stacks)

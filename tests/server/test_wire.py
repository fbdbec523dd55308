"""The wire (``feltroom.server.wire``) without sockets, and docs/protocol.md held to the code.

Real tables (``Table`` with a seeded deck) are played; every batch of events they report goes
through ``wire.messages_for`` for each person watching, exactly as the hub fans them out: the
seated players, an observer and a player on the waiting list. The tests check who gets what
(hidden information, R-DEAL-4; the legal actions, R-BET-6; owner-only events), and that the
document names every message type and event kind the code can produce, with the fields the code
gives them.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from feltroom.cards import Card
from feltroom.room.events import HandVoided, TablePaused, TableReloaded, TableResumed
from feltroom.rules import Call, Check, Fold, LegalActions, RaiseTo
from feltroom.server import protocol, wire
from feltroom.server.protocol import OUTBOUND_TYPES, encode
from feltroom.server.session import Hub, HubSettings
from feltroom.shuffle import SeededDeckSource
from feltroom.store import SqlStorage
from feltroom.table import (
    CameBack,
    PreAction,
    PreActionKind,
    Table,
    WentAway,
    preset,
)

from .live import HEADS_UP, room_for

Message = dict[str, Any]

DOC = Path(__file__).parents[2] / "docs" / "protocol.md"
TABLE = "holdem-1"
OBSERVER = "olga"  # watches the table without a seat
WAITING = "wanda"  # on the waiting list (watching, no seat)
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
# Play money, and no time bank (the presets have one, R-TIME-1): a turn's clock is 7 + 15 s.
PLAY = {
    "money": "play",
    "exponent": 0,
    "min_buy_in": 40,
    "max_buy_in": 1000,
    "time_bank_seconds": 0,
}
LEGAL_KEYS = {"fold", "check", "call", "raise_min", "raise_max", "bet"}


def make_table(**changes: object) -> Table:
    settings: dict[str, object] = {
        **PLAY,
        "big_blind": 2,
        "small_blind": 1,
        "first_button": "first_seated",
        **changes,
    }
    may_protect = settings.pop("may_protect", None)
    return Table(
        preset("dead_nl_1_2", **settings),
        deck_source=SeededDeckSource(7),
        may_protect=may_protect,  # type: ignore[arg-type]
    )


@dataclass
class Batch:
    """One batch of events, who sat where when it went out, and what each watcher got."""

    events: list[object]
    seats: dict[int, str]
    out: dict[str, list[Message]]


@dataclass
class Fanout:
    """A table and the people watching it. ``feed`` sends a batch of the table's events through
    ``wire.messages_for`` for each of them, as the hub does: the viewer's seat is looked up when
    the batch is fanned out, the hand is the table's current hand, the hand id is the table's
    hand number plus 4710."""

    table: Table
    watchers: list[str]
    received: dict[str, list[Message]] = field(default_factory=dict)
    batches: list[Batch] = field(default_factory=list)

    def hand_id(self) -> int | None:
        return 4710 + self.table.hand_number if self.table.hand is not None else None

    def viewer(self, who: str) -> int | None:
        return self.table.seat_of(who)

    def feed(self, events: Sequence[object]) -> dict[str, list[Message]]:
        hand = self.table.hand
        batch = list(events)
        out: dict[str, list[Message]] = {}
        shared: dict[int, Message] = {}  # as the hub: everyone's messages built once a batch
        for who in self.watchers:
            viewer = self.viewer(who)
            messages = wire.messages_for(TABLE, self.hand_id(), batch, viewer, who, hand, shared)
            # sharing changes nothing any viewer gets
            assert messages == wire.messages_for(TABLE, self.hand_id(), batch, viewer, who, hand)
            for message in messages:
                assert json.loads(encode(message)) is not None  # every message encodes
            out[who] = messages
            self.received.setdefault(who, []).extend(messages)
        seats = {seat: player.account for seat, player in self.table.seats.items()}
        self.batches.append(Batch(batch, seats, out))
        return out

    def sit(self, account: str, seat: int, stack: int = 100, **options: Any) -> None:
        if account not in self.watchers:
            self.watchers.append(account)
        self.feed(self.table.sit(account, seat, stack, 0.0, **options))

    def act_passively(self, now: float = 0.0) -> dict[str, list[Message]]:
        hand = self.table.hand
        assert hand is not None
        assert hand.to_act is not None
        legal = hand.legal_actions()
        assert legal is not None
        return self.feed(self.table.act(hand.to_act, Check() if legal.check else Call(), now))


def seated(n: int = 3, **changes: object) -> Fanout:
    """``n`` players p1..pn in seats 1..n with 100 chips, and an observer."""
    fan = Fanout(make_table(**changes), [OBSERVER])
    for seat in range(1, n + 1):
        fan.sit(f"p{seat}", seat)
    return fan


def of_type(messages: Sequence[Message], kind: str) -> list[Message]:
    return [m for m in messages if m["type"] == kind]


def events_of(messages: Sequence[Message], kind: str) -> list[Message]:
    return [m for m in messages if m["type"] == "event" and m["kind"] == kind]


def cards_in(messages: Sequence[Message]) -> set[str]:
    """Every card named anywhere in the frames of these messages."""
    return {card for m in messages for card in CARD.findall(encode(m))}


def text(cards: Sequence[Card | None]) -> list[str]:
    return [str(c) for c in cards if c is not None]


# ------------------------------------------------------------------------- hole cards


# Rules: R-DEAL-4
def test_R_DEAL_4_each_player_gets_exactly_their_own_hole_cards_and_observers_none() -> None:
    fan = seated(3)
    out = fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    for seat in (1, 2, 3):
        dealt = of_type(out[f"p{seat}"], "hole_cards")
        assert dealt == [
            {
                "type": "hole_cards",
                "table": TABLE,
                "hand": fan.hand_id(),
                "seat": seat,
                "cards": text(hand.hole_cards(seat)),
            }
        ]
    assert of_type(out[OBSERVER], "hole_cards") == []
    # everyone sees that cards were dealt, and to whom, but not which
    for who in ("p1", "p2", "p3", OBSERVER):
        (dealt_event,) = events_of(out[who], "hole_cards_dealt")
        assert sorted(dealt_event["seats"]) == [1, 2, 3]
        assert set(dealt_event) == {"type", "table", "hand", "kind", "seats"}


# Rules: R-DEAL-4
def test_R_DEAL_4_no_frame_names_a_card_its_viewer_may_not_see_in_a_folded_hand() -> None:
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    while fan.table.in_hand:
        assert hand.to_act is not None
        fan.feed(fan.table.act(hand.to_act, Fold(), 0.0))
    assert hand.shown == frozenset()  # won uncontested: nothing shown
    holes = {seat: set(text(hand.hole_cards(seat))) for seat in (1, 2, 3)}
    for seat in (1, 2, 3):
        assert cards_in(fan.received[f"p{seat}"]) == holes[seat]
    assert cards_in(fan.received[OBSERVER]) == set()
    (result,) = of_type(fan.received[OBSERVER], "hand_result")
    assert result["shown"] == {}


# Rules: R-DEAL-4, R-SHOW-4
def test_R_DEAL_4_hand_result_shown_holds_only_the_cards_shown_at_the_table() -> None:
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    while fan.table.in_hand:
        fan.act_passively()
    # seed 7, three players checking down: seats 2 and 1 show, seat 3 mucks (tests/table)
    assert hand.shown == {1, 2}
    shown = {str(s): text(hand.hole_cards(s)) for s in (1, 2)}
    board = set(text(hand.board))
    for who in ("p1", "p2", "p3", OBSERVER):
        (result,) = of_type(fan.received[who], "hand_result")
        assert result["shown"] == shown
        assert "3" not in result["shown"]
        assert {e["seat"] for e in events_of(fan.received[who], "cards_shown")} == {1, 2}
        assert [e["seat"] for e in events_of(fan.received[who], "cards_mucked")] == [3]
        visible = board | {c for cards in shown.values() for c in cards}
        seat = fan.viewer(who)
        if seat is not None:
            visible |= set(text(hand.hole_cards(seat)))
        assert cards_in(fan.received[who]) <= visible, who
    mucked = set(text(hand.hole_cards(3)))
    assert not mucked & cards_in(fan.received[OBSERVER] + fan.received["p1"])


# ------------------------------------------------------------------------- turns


# Rules: R-BET-6
def test_R_BET_6_only_the_player_to_act_gets_the_legal_actions_exactly() -> None:
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    turns = 0
    while fan.table.in_hand:
        to_act = hand.to_act
        assert to_act is not None
        legal = hand.legal_actions()
        assert legal is not None
        for who, messages in fan.batches[-1].out.items():
            for turn in of_type(messages, "turn"):
                assert turn["seat"] == to_act
                assert set(turn) == {
                    "type",
                    "table",
                    "hand",
                    "seat",
                    "countdown_at",
                    "bank_at",
                    "deadline",
                    "turn_id",
                    "legal",
                }
                if fan.viewer(who) == to_act:
                    assert set(turn["legal"]) == LEGAL_KEYS
                    assert turn["legal"] == protocol.legal_dict(legal)
                    turns += 1
                else:
                    assert turn["legal"] is None, who
        # a raise on the first turn, so that the hand sees a raise, calls and checks
        if turns == 1:
            assert legal.raise_min is not None
            fan.feed(fan.table.act(to_act, RaiseTo(legal.raise_min), 0.0))
        else:
            fan.act_passively()
    assert turns >= 6


# Rules: R-BET-6
def test_R_BET_6_the_legal_actions_on_the_wire_are_the_six_options() -> None:
    legal = LegalActions(seat=3, fold=True, check=False, call=5, raise_min=12, raise_max=199)
    assert wire.legal_of(legal) == {
        "fold": True,
        "check": False,
        "call": 5,
        "raise_min": 12,
        "raise_max": 199,
        "bet": False,
    }
    # the seat is not sent: whoever gets the options is the player to act
    assert wire.legal_of(legal) == protocol.legal_dict(legal)
    assert wire.legal_of(None) is None


# ------------------------------------------------------------------------- every kind


def _play_out(fan: Fanout, now: float = 0.0) -> None:
    while fan.table.in_hand:
        fan.act_passively(now)


def _clock_and_protection() -> Fanout:
    """A turn runs out (countdown, time bank, fold); a disconnected player in the pot is
    protected when their time runs out (R-TIME-1..4); they resume."""
    fan = seated(
        3,
        time_bank_seconds=10,
        act_seconds=5,
        countdown_seconds=5,
        may_protect=lambda account: True,
    )
    table = fan.table
    fan.feed(table.start_hand(0.0))
    for now in (5.0, 10.0, 20.0):  # seat 1, first to act, has nothing in: folded
        fan.feed(table.tick(now))
    hand = table.hand
    assert hand is not None
    assert hand.to_act == 2  # the small blind
    fan.feed(table.disconnect(2, 20.0))
    fan.feed(table.tick(60.0))  # protected (R-TIME-3)
    fan.feed(table.resume(2, 60.0))
    _play_out(fan, 60.0)
    return fan


def _showdown_tax_and_fee() -> Fanout:
    """Checked down: seats 2 and 1 show, seat 3 mucks; the winner pays a collection fee and
    tax on the net win (R-RAKE-4, R-TAX-1)."""
    fan = seated(3, tax_threshold=0, tax_percent=50, house_fee="collection_fee", collection_fee=1)
    fan.feed(fan.table.start_hand(0.0))
    _play_out(fan)
    return fan


def _pre_actions() -> Fanout:
    """Seat 2 chose "call 1" and seat 3 "check/fold"; seat 1 raises: seat 2's choice is
    cancelled, seat 3's is used (a fold) (R-AUTO-1)."""
    fan = seated(3)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    assert (hand.to_act, hand.seats) == (1, (2, 3, 1))
    table.set_pre_action(2, PreAction(PreActionKind.CALL, 1))
    table.set_pre_action(3, PreAction(PreActionKind.CHECK_FOLD))
    fan.feed(table.act(1, RaiseTo(4), 0.0))
    _play_out(fan)
    return fan


def _seats() -> Fanout:
    """The button drawn by high card, session fees, the waiting list and its seat offers, chips
    added, sitting out and in, a change of seats, a blind prompt declined."""
    fan = Fanout(
        make_table(
            max_seats=3,
            first_button="high_card",
            house_fee="session_fee",
            session_fee=1,
            session_minutes=1,
        ),
        [OBSERVER, WAITING],
    )
    table = fan.table
    for seat in (1, 2, 3):
        fan.sit(f"p{seat}", seat)
    fan.feed(table.join_waiting_list(WAITING, 0.0))  # the table is full
    fan.feed(table.start_hand(0.0))
    _play_out(fan)
    fan.feed(table.add_chips(1, 10, 1.0))
    fan.feed(table.leave(3, 1.0))  # seat 3 is offered to the waiting player
    fan.feed(table.tick(100.0))  # the offer expires
    fan.feed(table.join_waiting_list(WAITING, 100.0))
    fan.feed(table.leave_waiting_list(WAITING, 100.0))
    fan.feed(table.change_seat(2, 3, 100.0))
    fan.feed(table.sit_out(1, 100.0))
    fan.feed(table.sit_in(1, 100.0))
    fan.sit("p4", 2)
    fan.feed(table.set_auto_post(2, False))
    fan.feed(table.start_hand(200.0))  # prompts seat 2 for a blind (R-BLIND-6)
    fan.feed(table.decline_blind(2, 200.0))
    _play_out(fan, 200.0)
    return fan


def _missed_blinds() -> Fanout:
    """Seat 4 sits out while the blinds pass it (R-MISS-1/2)."""
    fan = seated(4)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    _play_out(fan)
    fan.feed(table.sit_out(4, 1.0))
    for k in range(1, 5):
        fan.feed(table.start_hand(10.0 * k))
        _play_out(fan, 10.0 * k)
    return fan


def _room_events() -> Fanout:
    """What the room adds to a table's stream: a hand voided, the table paused, rebuilt from the
    books (``TableReloaded``; the hub sends a snapshot after it) and resumed."""
    fan = seated(2)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    reason = "the table failed (RuntimeError); it pauses"
    fan.feed([HandVoided(fan.hand_id(), reason), TablePaused(reason)])
    fan.table = rebuilt = make_table()
    restored: list[object] = []
    for seat, account in ((1, "p1"), (2, "p2")):
        restored += rebuilt.restore_seat(account, seat, 100, 1.0, sitting_out=True)
    fan.feed([*restored, TableReloaded()])
    fan.feed([TableResumed()])
    return fan


def _reset_stacks() -> Fanout:
    """A reset_stacks table: after a hand every stack is set back to the one buy-in (the
    winner's and the loser's: ``stack_reset``)."""
    fan = seated(2, min_buy_in=100, max_buy_in=100, reset_stacks=True, rake_percent=0)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    assert hand.to_act is not None
    fan.feed(table.act(hand.to_act, RaiseTo(10), 0.0))
    assert hand.to_act is not None
    fan.feed(table.act(hand.to_act, Fold(), 0.0))
    return fan


def _away() -> Fanout:
    """A tournament player goes away and comes back (R-TOURN-6, the seat's ``away``): the
    whole table sees ``went_away`` and ``came_back``."""
    fan = seated(2)
    fan.feed([WentAway(1, "chosen"), CameBack(1)])
    return fan


def _all_in(fan: Fanout, now: float) -> None:
    """Deal, and everyone goes all in before the flop."""
    table = fan.table
    fan.feed(table.start_hand(now))
    hand = table.hand
    assert hand is not None
    assert hand.to_act is not None
    seat = hand.to_act
    fan.feed(table.act(seat, RaiseTo(hand.stack_of(seat) + hand.bets[hand.seats.index(seat)]), now))
    while hand.to_act is not None:
        fan.feed(table.act(hand.to_act, Call(), now))


def _run_twice() -> Fanout:
    """A run-it-twice table (R-HOME-4): p2 always agrees, p1 is asked and agrees (two runs);
    in the next hand p1 does not answer in time (one run)."""
    fan = seated(2, run_it_twice=True, max_buy_in=100)
    table = fan.table
    table.set_run_twice(2, "always")
    _all_in(fan, 0.0)
    fan.feed(table.answer_run_twice(1, True, 1.0))
    for seat in (1, 2):
        if table.seats[seat].stack == 0:
            fan.feed(table.add_chips(seat, 100, 2.0))
            fan.feed(table.sit_in(seat, 2.0))
    _all_in(fan, 10.0)
    fan.feed(table.tick(10.0 + table.config.act_seconds))
    return fan


SCENARIOS = (
    _clock_and_protection,
    _showdown_tax_and_fee,
    _pre_actions,
    _seats,
    _missed_blinds,
    _room_events,
    _reset_stacks,
    _away,
    _run_twice,
)


@pytest.fixture(scope="module")
def played() -> list[Fanout]:
    return [scenario() for scenario in SCENARIOS]


def _all(played: Sequence[Fanout]) -> Iterator[tuple[str, Message]]:
    """(who, message) for every message any watcher received."""
    for fan in played:
        for batch in fan.batches:
            for who, messages in batch.out.items():
                for message in messages:
                    yield who, message


def label(message: Message) -> str:
    """A message's type, and for an event its kind: ``event:posted``."""
    return f"event:{message['kind']}" if message["type"] == "event" else str(message["type"])


def test_the_scenarios_make_a_real_table_send_every_kind_of_event(played: list[Fanout]) -> None:
    produced = {label(m) for _, m in _all(played)}
    assert {f"event:{kind}" for kind in WIRE_KINDS} <= produced
    wire_types = {t for t in produced if not t.startswith("event:")} | {"event"}
    assert wire_types == set(TABLE_TYPES)


# The kinds of event the wire can send: the public ones, the owner-only ones, and the end of a
# seat offer (to the account it names).
WIRE_KINDS = {wire._kind(cls) for cls in (*wire._PUBLIC, *wire._OWNER)} | {"seat_offer_expired"}
OWNER_KINDS = {wire._kind(cls) for cls in wire._OWNER}
# The messages the wire builds from a table's events (the hub adds the replies, the lobby and
# chat; wire.snapshot the snapshot).
TABLE_TYPES = (
    "event",
    "hole_cards",
    "hand_strength",
    "pots",
    "turn",
    "blind_prompt",
    "seat_offer",
    "run_twice",
    "hand_result",
)


# ------------------------------------------------------------------------- who gets what


# Rules: R-AUTO-1, R-TAX-1
def test_owner_only_events_reach_their_owner_alone(played: list[Fanout]) -> None:
    seen: dict[str, set[str]] = {}
    for fan in played:
        for batch in fan.batches:
            for who, messages in batch.out.items():
                for message in messages:
                    if message["type"] != "event" or message["kind"] not in OWNER_KINDS:
                        continue
                    seen.setdefault(message["kind"], set()).add(who)
                    # the owner: the player in that seat when the batch went out
                    assert batch.seats[message["seat"]] == who, (who, message)
            for event in batch.events:  # and every owner got theirs
                if isinstance(event, wire._OWNER):
                    owner = batch.seats[event.seat]  # type: ignore[attr-defined]
                    kind = wire._kind(type(event))
                    assert [m for m in batch.out[owner] if m.get("kind") == kind]
    assert set(seen) == OWNER_KINDS
    for kind, receivers in seen.items():
        assert OBSERVER not in receivers, kind
        assert WAITING not in receivers, kind


# Rules: R-BLIND-6
def test_a_blind_prompt_goes_to_the_player_asked_alone(played: list[Fanout]) -> None:
    prompts = [(who, m) for who, m in _all(played) if m["type"] == "blind_prompt"]
    assert prompts
    for who, message in prompts:
        assert who == "p4"  # the player who turned auto-post off (the seats scenario)
        assert set(message) == {"type", "table", "amount", "expires"}
        assert message["amount"] == 2


def test_a_seat_offer_and_its_end_go_to_the_account_offered_alone(played: list[Fanout]) -> None:
    offers = [(who, m) for who, m in _all(played) if m["type"] == "seat_offer"]
    ended = [(who, m) for who, m in _all(played) if m.get("kind") == "seat_offer_expired"]
    assert offers
    assert ended
    assert {who for who, _ in offers} == {who for who, _ in ended} == {WAITING}
    assert offers[0][1]["seat"] == ended[0][1]["seat"] == 3
    assert ended[0][1]["account"] == WAITING


def test_a_seat_offer_needs_no_seat_and_no_hand_only_the_account() -> None:
    # the hub gives a seat offer to every connection of the account, watching the table or not:
    # the wire finds it by the account alone
    fan = seated(2, max_seats=2)
    events = fan.table.join_waiting_list(WAITING, 0.0) + fan.table.leave(2, 0.0)
    messages = wire.messages_for(TABLE, None, events, None, WAITING, None)
    assert [label(m) for m in messages] == [
        "event:waiting_list_joined",
        "event:seat_released",
        "seat_offer",
    ]
    for other in ("p1", None):
        assert of_type(wire.messages_for(TABLE, None, events, 1, other, None), "seat_offer") == []


def test_posted_names_its_forced_bet_kind_forced_and_fees_name_theirs_fee(
    played: list[Fanout],
) -> None:
    posted = [m for _, m in _all(played) if m.get("kind") == "posted"]
    assert posted
    for message in posted:
        assert message["type"] == "event"
        assert message["kind"] == "posted"  # the event's own ``kind`` does not overwrite it
        assert message["forced"] in {"small_blind", "big_blind", "post", "dead", "ante"}
        assert set(message) == _COMMON | {"seat", "forced", "amount", "all_in"}
    assert {m["forced"] for m in posted} >= {"small_blind", "big_blind"}
    fees = [m for _, m in _all(played) if m.get("kind") == "fee_charged"]
    assert {m["fee"] for m in fees} == {"session_fee", "collection_fee"}
    # hand_started's forced bets are objects with the engine's kind under "kind"
    started = next(m for _, m in _all(played) if m.get("kind") == "hand_started")
    assert started["forced"][0] == {"seat": 2, "kind": "small_blind", "amount": 1}


# Rules: R-BUTTON-1
def test_the_first_button_draw_is_dealt_face_up_to_everyone(played: list[Fanout]) -> None:
    draws = [(who, m) for who, m in _all(played) if m.get("kind") == "first_button_drawn"]
    assert {who for who, _ in draws} == {OBSERVER, WAITING, "p1", "p2", "p3"}
    cards = draws[0][1]["cards"]
    assert [seat for seat, _ in cards] == [1, 2, 3]
    assert all(CARD.fullmatch(card) for _, card in cards)


# ------------------------------------------------------------------------- snapshots


def _view_cards(snapshot: Message) -> dict[int, list[str] | None]:
    return {s["seat"]: s["cards"] for s in snapshot["view"]["seats"]}


# Rules: R-DEAL-4
def test_R_DEAL_4_a_snapshot_shows_the_viewer_their_own_cards_only() -> None:
    fan = seated(3)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    fan.act_passively()  # seat 1 calls: seat 2 to act
    for seat in (1, 2, 3):
        snap = wire.snapshot(TABLE, fan.hand_id(), table.view(seat), ["loudmouth"])
        assert snap["you"] == seat
        assert _view_cards(snap) == {
            s: (text(hand.hole_cards(s)) if s == seat else None) for s in (1, 2, 3)
        }
        legal = snap["view"]["legal"]
        if seat == hand.to_act:
            assert set(legal) == LEGAL_KEYS
        else:
            assert legal is None
        assert snap["view"]["muted"] == ["loudmouth"]
        assert snap["view"]["hand"] == fan.hand_id()
    observer = wire.snapshot(TABLE, fan.hand_id(), table.view(None))
    assert observer["you"] is None
    assert set(_view_cards(observer).values()) == {None}
    assert observer["view"]["legal"] is None
    assert cards_in([observer]) == set()


# Rules: R-DEAL-4, R-SHOW-4
def test_R_DEAL_4_after_the_showdown_a_snapshot_shows_the_cards_shown_and_no_others() -> None:
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    _play_out(fan)
    shown = {s: text(hand.hole_cards(s)) for s in (1, 2)}
    observer = wire.snapshot(TABLE, None, fan.table.view(None))
    assert observer["view"]["hand"] is None  # the hand is over
    assert _view_cards(observer) == {1: shown[1], 2: shown[2], 3: None}  # seat 3 mucked
    mine = wire.snapshot(TABLE, None, fan.table.view(3))
    assert _view_cards(mine) == {1: shown[1], 2: shown[2], 3: text(hand.hole_cards(3))}


# Rules: R-DEAL-4
def test_R_DEAL_4_a_player_in_a_seat_freed_after_the_hand_does_not_see_its_old_cards() -> None:
    fan = seated(3)
    table = fan.table
    fan.feed(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    while table.in_hand:  # everyone folds to the big blind: nothing is shown
        assert hand.to_act is not None
        fan.feed(table.act(hand.to_act, Fold(), 0.0))
    folded = text(hand.hole_cards(2))
    fan.feed(table.leave(2, 1.0))
    fan.sit("newcomer", 2)
    snap = wire.snapshot(TABLE, None, table.view(2))
    assert not set(folded) & cards_in([snap]), snap["view"]["seats"]


# Rules: R-ALLIN-2
def test_R_ALLIN_2_the_pots_message_shows_the_main_pot_and_a_side_pot_after_the_flop() -> None:
    """A short stack all-in, two deeper players raising on: after the flop everyone watching
    gets the main pot (all three can win it) and the side pot (the two deeper players)."""
    fan = Fanout(make_table(), [OBSERVER])
    fan.sit("p1", 1, stack=40)
    fan.sit("p2", 2, stack=200)
    fan.sit("p3", 3, stack=200)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    while not hand.board and not hand.is_over:
        seat = hand.to_act
        legal = hand.legal_actions()
        assert seat is not None
        assert legal is not None
        put_in = hand.contributions[hand.seats.index(seat)]
        if legal.raise_min is not None and put_in < 80 and seat != 1:
            action: Any = RaiseTo(max(legal.raise_min, min(80, legal.raise_max or 80)))
        elif seat == 1 and legal.raise_max is not None:
            action = RaiseTo(legal.raise_max)  # all-in
        else:
            action = Check() if legal.check else Call()
        fan.feed(fan.table.act(seat, action, 0.0))
    assert hand.board
    for who in (OBSERVER, "p1", "p2"):
        (pots,) = of_type(fan.received[who], "pots")
        assert pots["hand"] == fan.hand_id()
        main, *side = pots["pots"]
        assert set(main["seats"]) == {1, 2, 3}
        assert main["amount"] == 3 * 40
        assert [set(p["seats"]) for p in side] == [{2, 3}]
        gathered = hand.pot_total - sum(hand.bets)
        assert main["amount"] + side[0]["amount"] == gathered


def test_a_snapshot_has_the_documented_view() -> None:
    fan = seated(2)
    fan.feed(fan.table.start_hand(0.0))
    snap = wire.snapshot(TABLE, fan.hand_id(), fan.table.view(1))
    assert list(snap) == ["type", "table", "you", "view"]
    assert set(snap["view"]) == {
        "info",
        "button",
        "small",
        "big",
        "hand",
        "hand_number",
        "seats",
        "board",
        "pot",
        "to_act",
        "deadline",
        "turn_started",
        "countdown_at",
        "turn_id",
        "bank_at",
        "second_board",
        "run_twice_deadline",
        "run_twice_asked",
        "waiting",
        "legal",
        "muted",
        "settings",
    }
    assert snap["view"]["settings"] is None  # given by the hub for a seated viewer
    # R-TIME-1: the turn's clock as the turn message gave it, for a resumed client's timer
    (turn,) = [m for m in fan.received["p1"] if m["type"] == "turn"][-1:]
    assert snap["view"]["turn_started"] is not None
    assert snap["view"]["countdown_at"] == turn["countdown_at"]
    assert snap["view"]["deadline"] == turn["deadline"]
    assert snap["view"]["turn_id"] == turn["turn_id"]
    assert snap["view"]["bank_at"] == turn["bank_at"]
    assert snap["view"]["turn_started"] < snap["view"]["countdown_at"] <= snap["view"]["deadline"]
    assert snap["view"]["pot"] == 3
    assert snap["view"]["board"] == []
    assert json.loads(encode(snap)) == snap


# ------------------------------------------------------------------------- the document

_HEADING = re.compile(r"^### `([a-z_]+)`\n", re.M)
_OUTBOUND_BLOCK = re.compile(r"^```json outbound\n(.*?)^```\n", re.M | re.S)
_NAME = re.compile(r"`([a-z_.]+)`")
_COMMON = {"type", "table", "hand", "kind"}  # the fields of every event message
_RECIPIENTS = {"everyone", "the seat's player", "the account named"}


def _outbound_part() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Outbound messages")
    return text[start : text.index("\n## ", start + 1)]


def outbound_sections() -> dict[str, str]:
    """The text of each ``### `type``` section of the outbound messages."""
    part = _outbound_part()
    heads = list(_HEADING.finditer(part))
    ends = [h.start() for h in heads[1:]] + [len(part)]
    sections: dict[str, str] = {}
    for head, end in zip(heads, ends, strict=True):
        assert head.group(1) not in sections, f"two sections for {head.group(1)}"
        sections[head.group(1)] = part[head.end() : end]
    return sections


def table_rows(section: str, header: str) -> list[list[str]]:
    """The cells of each row of the table under ``header`` (a line such as
    ``| field | value |``) in ``section``."""
    lines = section.splitlines()
    assert header in lines, f"no table {header!r}"
    rows = []
    for line in lines[lines.index(header) + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def field_names(section: str, header: str = "| field | value |") -> set[str]:
    """The field names of a field table: the names in backticks of its first column."""
    return {name for row in table_rows(section, header) for name in _NAME.findall(row[0])}


def event_kinds_table() -> dict[str, tuple[set[str], str]]:
    """Each documented event kind: its fields and who it is sent to."""
    rows = table_rows(outbound_sections()["event"], "| kind | fields | sent to | what happened |")
    kinds: dict[str, tuple[set[str], str]] = {}
    for row in rows:
        (kind,) = _NAME.findall(row[0])
        assert kind not in kinds, f"{kind} documented twice"
        kinds[kind] = (set(_NAME.findall(row[1])), row[2])
    return kinds


def outbound_examples() -> list[tuple[str, Message]]:
    """(the section it is in, the example) for every ``json outbound`` block."""
    part = _outbound_part()
    heads = [(h.start(), h.group(1)) for h in _HEADING.finditer(part)]
    found = []
    for block in _OUTBOUND_BLOCK.finditer(part):
        section = [name for at, name in heads if at < block.start()][-1]
        found.append((section, json.loads(block.group(1))))
    return found


async def _hub_frames(storage: SqlStorage) -> list[tuple[str, Message]]:
    """Real frames of the hub, without sockets, as (player, message): two players say hello,
    one subscribes to the lobby, both sit at a heads-up table, one chats, one is reminded of
    the time played, the first hand is
    dealt, the player to act tries a check while a call is owed (an ``illegal_action`` with
    ``legal``), then the table fails and is rebuilt from the books."""
    runtime = room_for(storage, HEADS_UP)
    tokens = {}
    for name in ("alice", "bob"):
        runtime.accounts.sign_up(name, "correct horse")
        tokens[name] = runtime.accounts.sign_in(name, "correct horse").token
        runtime.cashier.grant(name, 1000, f"grant:{name}")
    await runtime.start()
    hub = Hub(runtime, HubSettings(lobby_every=0.01))
    frames: list[tuple[str, str]] = []
    hub.tap = lambda connection, message, frame: frames.append((str(connection.player), frame))
    alice, bob = hub.open(), hub.open()
    try:
        await hub.receive(alice, '{"type": "ping", "id": 1}')  # before hello
        for connection, name in ((alice, "alice"), (bob, "bob")):
            hello = {"type": "hello", "id": 2, "version": 1, "token": tokens[name]}
            await hub.receive(connection, json.dumps(hello))
        await hub.receive(alice, '{"type": "lobby", "id": 3}')
        await hub.receive(alice, '{"type": "sit", "id": 4, "table": "hu", "seat": 1}')
        sit = {"type": "sit", "id": 4, "table": "hu", "seat": 2, "buy_in": 300}
        await hub.receive(bob, json.dumps(sit))  # room for chips added during the hand
        await hub.receive(bob, '{"type": "chat", "id": 5, "table": "hu", "text": "gl"}')
        hub.set_reminder("alice", 10)  # the session-time reminder, ten minutes on
        hub.session_started["alice"] -= 600
        hub.send_reminders()
        await runtime.advance(runtime.clock())  # deals: alice, the button, acts first
        playing = runtime.runners["hu"].playing
        check = {"type": "act", "id": 6, "table": "hu", "hand": playing, "action": "check"}
        await hub.receive(alice, json.dumps(check))
        await hub.receive(alice, '{"type": "ping", "id": 7}')
        # R-BUYIN-3: chips added during the hand are pending (``ok`` with ``pending``)
        await hub.receive(bob, '{"type": "add_chips", "id": 8, "table": "hu", "amount": 1}')
        await runtime.runners["hu"].fail(RuntimeError("a test failure"), runtime.clock())
        hub.start()  # lobby updates
        for _ in range(500):
            if any('"lobby_update"' in frame for _, frame in frames):
                break
            await asyncio.sleep(0.01)
    finally:
        await hub.stop()
        await runtime.stop()
    return [(player, json.loads(frame)) for player, frame in frames]


HEADS_UP_SNG = """
[[tournament]]
id = "duel"
format = "sng"
seats_per_table = 2
max_entries = 2
starting_stack = 300
"""


async def _tournament_frames(storage: SqlStorage) -> list[tuple[str, Message]]:
    """Real frames of the hub at a heads-up sit-and-go: both players said hello, register,
    are taken to the table (``moved``), one asks for the ``tournament`` view, both go all in
    at every turn until the ``tournament_result``."""
    runtime = room_for(storage, HEADS_UP, HEADS_UP_SNG)
    connections = {}
    await runtime.start()
    hub = Hub(runtime, HubSettings(rate=1000.0, burst=1000.0))
    frames: list[tuple[str, str]] = []
    hub.tap = lambda connection, message, frame: frames.append((str(connection.player), frame))
    try:
        for name in ("carol", "dave"):
            runtime.accounts.sign_up(name, "correct horse")
            token = runtime.accounts.sign_in(name, "correct horse").token
            runtime.cashier.grant(name, 2000, f"grant:{name}")
            connections[name] = hub.open()
            hello = {"type": "hello", "id": 1, "version": 1, "token": token}
            await hub.receive(connections[name], json.dumps(hello))
            if name == "dave":  # the operator's word reaches a player in the lobby too
                assert hub.broadcast("The room closes at midnight.") == 2
            await runtime.register_tournament("duel-1", name)
        await hub.receive(
            connections["carol"], '{"type":"tournament","id":2,"tournament":"duel-1"}'
        )
        tournament = runtime.tournaments["duel-1"]
        for _ in range(2000):
            if tournament.done:
                break
            for tab in list(tournament.tables.values()):
                hand = tab.table.hand
                if hand is None or hand.is_over or hand.to_act is None:
                    continue
                legal = hand.legal_actions()
                assert legal is not None
                act: dict[str, Any] = {"type": "act", "id": 3, "table": tab.table_id}
                act["hand"] = tab.playing
                if legal.raise_max is not None:
                    act["action"] = "bet" if legal.bet else "raise"
                    act["amount"] = legal.raise_max
                else:
                    act["action"] = "call" if legal.call else "check"
                account = tab.table.seats[hand.to_act].account
                await hub.receive(connections[account], json.dumps(act))
            await runtime.advance(runtime.clock())
            await asyncio.sleep(0.005)
        assert tournament.done
    finally:
        await hub.stop()
        await runtime.stop()
    return [(player, json.loads(frame)) for player, frame in frames]


async def _home_frames(storage: SqlStorage) -> list[tuple[str, Message]]:
    """Real frames of the hub at a home game (docs/home-games.md): erin hosts it, frank asks for
    a seat with ``sit`` (a pending request the host hears of, ``game``), erin admits him over
    the websocket (``game`` with ``ref``; frank's ``game_request``)."""
    runtime = room_for(storage, HEADS_UP)
    tokens = {}
    for name in ("erin", "frank"):
        runtime.accounts.sign_up(name, "correct horse")
        tokens[name] = runtime.accounts.sign_in(name, "correct horse").token
    await runtime.start()
    hub = Hub(runtime, HubSettings(rate=1000.0, burst=1000.0))
    frames: list[tuple[str, str]] = []
    hub.tap = lambda connection, message, frame: frames.append((str(connection.player), frame))
    erin, frank = hub.open(), hub.open()
    try:
        for connection, name in ((erin, "erin"), (frank, "frank")):
            hello = {"type": "hello", "id": 1, "version": 1, "token": tokens[name]}
            await hub.receive(connection, json.dumps(hello))
        game = await runtime.home.create("erin", {"seats": 4})
        sit = {"type": "sit", "id": 2, "table": game.table_id, "seat": 2, "buy_in": 80}
        await hub.receive(frank, json.dumps(sit))
        for _ in range(500):
            if any('"requests":[{' in frame for _, frame in frames):
                break
            await asyncio.sleep(0.01)
        (request,) = runtime.home.game(game.game_id, "erin").view("erin")["requests"]
        admit = {"type": "game", "id": 3, "game": game.game_id, "control": "admit"}
        await hub.receive(erin, json.dumps({**admit, "request": request["id"], "admit": True}))
        for _ in range(500):
            if any('"game_request"' in frame for _, frame in frames):
                break
            await asyncio.sleep(0.01)
    finally:
        await hub.stop()
        await runtime.stop()
    return [(player, json.loads(frame)) for player, frame in frames]


@pytest.fixture
def produced(played: list[Fanout], storage: SqlStorage) -> dict[str, list[Message]]:
    """Every message the code produced in these tests, by label (type, or ``event:kind``): the
    wire's from the played tables, their snapshots, and the hub's real frames."""
    by_label: dict[str, list[Message]] = {}
    messages = [m for _, m in _all(played)]
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    messages += [wire.snapshot(TABLE, fan.hand_id(), fan.table.view(s)) for s in (None, 1, 2)]
    messages += [message for _, message in asyncio.run(_hub_frames(storage))]
    messages += [message for _, message in asyncio.run(_tournament_frames(storage))]
    messages += [message for _, message in asyncio.run(_home_frames(storage))]
    for message in messages:
        by_label.setdefault(label(message), []).append(message)
    return by_label


def keys_of(produced: dict[str, list[Message]], name: str) -> set[str]:
    """The fields the code gives messages of this label (all alike, ``error`` aside)."""
    shapes = {frozenset(m) for m in produced[name]}
    if name in ("error", "ok", "game"):
        # ``legal`` only with illegal_action; ``pending`` only if so; ``ref`` only in answers
        return set().union(*shapes)
    assert len(shapes) == 1, (name, shapes)
    return set(next(iter(shapes)))


def test_the_hub_frames_cover_the_replies_lobby_chat_and_an_illegal_action(
    produced: dict[str, list[Message]],
) -> None:
    assert set(OUTBOUND_TYPES) <= {name.split(":")[0] for name in produced}
    errors = {m["code"]: m for m in produced["error"]}
    assert set(errors) == {"unauthenticated", "illegal_action"}
    assert set(errors["illegal_action"]["legal"]) == LEGAL_KEYS
    assert errors["illegal_action"]["legal"]["call"] == 1
    assert "legal" not in errors["unauthenticated"]
    assert {"type": "ok", "ref": 8, "pending": True} in produced["ok"]
    # the line reaches both players at the table, the speaker included
    said = [(m["player"], m["text"]) for m in produced["chat"] if m["player"] != "room"]
    assert said == [("bob", "gl")] * 2


def test_the_document_has_a_section_for_every_outbound_type_and_every_event_kind() -> None:
    assert set(outbound_sections()) == set(OUTBOUND_TYPES)
    documented = event_kinds_table()
    assert set(documented) == WIRE_KINDS, (
        f"undocumented: {sorted(WIRE_KINDS - set(documented))}; "
        f"documented but never sent: {sorted(set(documented) - WIRE_KINDS)}"
    )
    for kind, (_, recipients) in documented.items():
        assert recipients in _RECIPIENTS, (kind, recipients)
        if kind == "seat_offer_expired":
            assert recipients == "the account named"
        elif kind in OWNER_KINDS:
            assert recipients == "the seat's player", kind
        else:
            assert recipients == "everyone", kind


def test_every_documented_event_kind_lists_the_fields_the_code_gives_it(
    produced: dict[str, list[Message]],
) -> None:
    for kind, (documented, _) in event_kinds_table().items():
        assert documented == keys_of(produced, f"event:{kind}") - _COMMON, kind
    assert field_names(outbound_sections()["event"]) == {"table", "hand", "kind"}


def test_every_field_table_names_the_fields_the_code_gives_the_message(
    produced: dict[str, list[Message]],
) -> None:
    sections = outbound_sections()
    for name, section in sections.items():
        if name == "event":
            continue  # per kind: above
        names = field_names(section)
        top = {n.split(".")[0] for n in names}
        assert top == keys_of(produced, name) - {"type"}, name
    snapshot = produced["snapshot"][0]
    view = {n.split(".", 1)[1] for n in field_names(sections["snapshot"]) if "." in n}
    assert view == set(snapshot["view"])
    seat_fields = field_names(sections["snapshot"], "| seat field | value |")
    seats = [s for m in produced["snapshot"] for s in m["view"]["seats"]]
    assert seats
    assert {frozenset(s) for s in seats} == {frozenset(seat_fields)}


def test_every_outbound_example_has_the_fields_the_code_gives_it(
    produced: dict[str, list[Message]],
) -> None:
    examples = outbound_examples()
    assert {label(example) for _, example in examples} >= set(OUTBOUND_TYPES) - {"event"}
    for section, example in examples:
        assert example["type"] == section, f"a {example['type']} example under {section}"
        name = label(example)
        assert name in produced, f"the code never sent a {name}"
        keys = keys_of(produced, name)
        if name == "error" and "legal" not in example:
            keys -= {"legal"}
        if name == "ok" and "pending" not in example:
            keys -= {"pending"}
        if name == "ok" and "request" not in example:
            keys -= {"request"}
        if name == "game" and "ref" not in example:
            keys -= {"ref"}
        assert set(example) == keys, (name, sorted(set(example) ^ keys))
        if name == "error" and "legal" in example:
            assert example["code"] == "illegal_action"
        if isinstance(example.get("legal"), dict):
            assert set(example["legal"]) == LEGAL_KEYS
        if name == "snapshot":
            code = produced["snapshot"][0]
            assert set(example["view"]) == set(code["view"])
            seat_keys = {frozenset(s) for m in produced["snapshot"] for s in m["view"]["seats"]}
            for seat in example["view"]["seats"]:
                assert frozenset(seat) in seat_keys
        if name in ("lobby", "lobby_update"):
            entries = example["tables"] if name == "lobby" else [example["table"]]
            (code_entry,) = produced["lobby"][0]["tables"]
            for entry in entries:
                assert set(entry) - {"last_error"} == set(code_entry)
                assert set(entry["settings"]) == set(code_entry["settings"])
        if name == "hand_result":
            pots = [set(p) for m in produced["hand_result"] for p in m["pots"]]
            for pot in example["pots"]:
                assert set(pot) in pots
        if name == "event:hand_started":
            for forced in example["forced"]:
                assert set(forced) == {"seat", "kind", "amount"}


def test_after_table_reloaded_the_hub_sends_a_fresh_snapshot(storage: SqlStorage) -> None:
    frames = asyncio.run(_hub_frames(storage))
    for player in ("alice", "bob"):
        mine = [m for who, m in frames if who == player and m.get("table") == "hu"]
        names = [label(m) for m in mine]
        failed = names.index("event:hand_voided")
        assert names[failed : failed + 2] == ["event:hand_voided", "event:table_paused"]
        voided = mine[failed]
        assert voided["hand"] is None  # no hand is in progress any more
        assert isinstance(voided["hand_id"], int)
        reloaded = names.index("event:table_reloaded")
        assert names[failed + 2 : reloaded] == ["event:player_seated", "event:sat_out"] * 2
        assert names[reloaded + 1] == "snapshot"
        snapshot = mine[reloaded + 1]
        assert snapshot["view"]["hand"] is None
        assert [s["sitting_out"] for s in snapshot["view"]["seats"]] == [True, True]


def test_turn_ids_increase_within_a_hand() -> None:
    """Every ``turn`` of a hand names its turn with a larger ``turn_id`` than the one before,
    the same in every viewer's copy (issue 27: stale actions)."""
    fan = seated(3)
    fan.feed(fan.table.start_hand(0.0))
    hand = fan.table.hand
    assert hand is not None
    while fan.table.in_hand:
        seat = hand.to_act
        legal = hand.legal_actions()
        assert seat is not None
        assert legal is not None
        fan.feed(fan.table.act(seat, Check() if legal.check else Call(), 0.0))
    for who in (OBSERVER, "p1", "p2", "p3"):
        ids = [m["turn_id"] for m in of_type(fan.received[who], "turn")]
        assert len(ids) >= 4
        assert ids == sorted(set(ids)), ids
    assert fan.table.turn_id is None


def test_r_show_1_the_showdown_names_each_shown_hand_and_its_five_cards() -> None:
    """R-SHOW-1: the best five of seven; ``hand_result.hands`` carries the words and the five
    cards the page highlights. Without a complete board there is no showdown hand."""
    from feltroom.cards import parse_cards

    flush = wire.showdown_hand(parse_cards("Ah Kh"), parse_cards("2h 7h 9h Qs Qd"))
    assert flush == {"description": "Flush, Ace high", "cards": ["Ah", "Kh", "2h", "7h", "9h"]}
    board = wire.showdown_hand(parse_cards("2c 3d"), parse_cards("Ts Js Qs Ks As"))
    assert board is not None
    assert sorted(board["cards"]) == sorted(["Ts", "Js", "Qs", "Ks", "As"])  # the board plays
    assert wire.showdown_hand(parse_cards("Ah Kh"), parse_cards("2h 7h 9c")) is None


# Rules: R-HOME-4
def test_R_HOME_4_the_question_goes_to_the_asked_players_and_both_runs_to_everyone() -> None:
    fan = seated(3, run_it_twice=True)
    table = fan.table
    table.set_run_twice(2, "always")
    fan.feed(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    assert hand.to_act is not None
    fan.feed(table.act(hand.to_act, RaiseTo(100), 0.0))
    out: dict[str, list[Message]] = {}
    while hand.to_act is not None:
        out = fan.feed(table.act(hand.to_act, Call(), 0.0))
    (offered,) = events_of(out[OBSERVER], "run_twice_offered")
    assert sorted(offered["seats"]) == [1, 3]
    for who, asked in (("p1", True), ("p2", False), ("p3", True), (OBSERVER, False)):
        questions = of_type(out[who], "run_twice")
        expected = [
            {
                "type": "run_twice",
                "table": TABLE,
                "hand": fan.hand_id(),
                "deadline": offered["deadline"],
            }
        ]
        assert questions == (expected if asked else [])
    snap = wire.snapshot(
        TABLE, fan.hand_id(), table.view(1), (), wire.seat_settings(table.seats[1])
    )
    assert snap["view"]["run_twice_asked"] == offered["seats"]
    assert snap["view"]["settings"]["run_twice"] == "ask"
    fan.feed(table.answer_run_twice(1, True, 1.0))
    out = fan.feed(table.answer_run_twice(3, True, 1.0))
    (chosen,) = events_of(out[OBSERVER], "runs_chosen")
    assert chosen["runs"] == 2
    runs = [(m["run"], m["street"]) for m in events_of(out[OBSERVER], "board_dealt")]
    assert runs == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    (result,) = of_type(out[OBSERVER], "hand_result")
    assert result["second_board"] == text(hand.second_board)
    assert all(len(pot["runs"]) == 2 for pot in result["pots"])
    assert set(result["second_hands"]) == {"1", "2", "3"}
    snap = wire.snapshot(TABLE, fan.hand_id(), table.view(None))
    assert snap["view"]["second_board"] == text(hand.second_board)

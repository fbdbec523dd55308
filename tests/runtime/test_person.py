"""A person's seat at runtime: the commands of ``RoomRuntime`` a server calls for a person, each
refused with a typed error and changing nothing when not valid; the listeners that see every
batch of a table's events; the grace after a disconnection."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import pytest

from feltroom.errors import IllegalAction
from feltroom.room import (
    Accounts,
    Cashier,
    HandVoided,
    InsufficientFunds,
    NotSeated,
    RoomError,
    StaleHand,
    TablePaused,
    TableReloaded,
    TableResumed,
    audit,
)
from feltroom.room.runtime import RoomRuntime, TableRunner
from feltroom.rules import Call, CardsShown, Check, Fold, RaiseTo
from feltroom.store import SqlStorage
from feltroom.table import (
    BlindPrompt,
    ChipsAdded,
    Disconnected,
    HandFinished,
    HandStarted,
    PlayerSeated,
    PreAction,
    PreActionKind,
    PreActionUsed,
    Resumed,
    SatOut,
    SeatOffered,
    TurnStarted,
    WaitingListJoined,
    WaitingListLeft,
)

from .support import Clock, Room

# Heads-up, people only: alice (seat 1, seated first) has the button and the small blind; bob
# (seat 2) the big blind. Buy-ins 40..200.
HU = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
first_button = "first_seated"
"""

# Four seats and a long clock, for the disconnection tests.
SLOW = """
[[table]]
id = "slow"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 4
first_button = "first_seated"
act_seconds = 300
countdown_seconds = 0
"""

TWO = (
    HU
    + """
[[table]]
id = "other"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""
)


class Recorder:
    """A listener: every batch with the runner's table and hand id at the time."""

    def __init__(self) -> None:
        self.batches: list[tuple[str, int | None, tuple[object, ...]]] = []

    def __call__(self, runner: TableRunner, events: Sequence[object]) -> None:
        self.batches.append((runner.table_id, runner.playing, tuple(events)))

    def events(self, table_id: str | None = None) -> list[object]:
        return [e for t, _, batch in self.batches if table_id in (None, t) for e in batch]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events() if isinstance(e, kind)]


def person_room(make_room: Room, text: str = HU, **settings: Any) -> tuple[RoomRuntime, Recorder]:
    room = make_room(text, house_bots=0, **settings)
    recorder = Recorder()
    room.add_listener(recorder)
    return room, recorder


def state(room: RoomRuntime, cashier: Cashier, table_id: str = "hu") -> tuple[object, ...]:
    """Everything a refused command must leave as it was: seats and stacks, the hand, the
    waiting list, the books' stacks and the wallets."""
    runner = room.runners[table_id]
    table = runner.table
    seats = {
        n: (
            s.account,
            s.stack,
            s.sitting_out,
            s.disconnected,
            s.auto_post,
            s.auto_muck,
            s.pre_action,
        )
        for n, s in table.seats.items()
    }
    hand = table.hand
    wallets = {
        name: cashier.balance(name)["balances"].get("PLAY") for name in ("alice", "bob", "carol")
    }
    return (
        seats,
        tuple(table.waiting),
        table.in_hand,
        None if hand is None else (len(hand.log), hand.shown, hand.stacks),
        runner.playing,
        room.stored_stacks(table_id),
        wallets,
        runner.status,
    )


async def tick(room: RoomRuntime, clock: Clock, seconds: float = 0.0) -> None:
    clock.now += seconds
    await room.advance(clock.now)


async def heads_up(room: RoomRuntime, clock: Clock) -> TableRunner:
    """alice and bob sit with 100 each; the first hand is dealt; alice (small blind) to act."""
    await room.start()
    await room.join("hu", "alice", 1, 100)
    await room.join("hu", "bob", 2, 100)
    await tick(room, clock)
    runner = room.runners["hu"]
    assert runner.table.in_hand
    assert runner.table.hand is not None
    assert runner.table.hand.to_act == 1
    return runner


def audited(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


# ------------------------------------------------------------------------------- listeners


def test_listeners_see_every_batch_in_order_with_the_hand_id(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    storage: SqlStorage,
    caplog: pytest.LogCaptureFixture,
) -> None:
    room, recorder = person_room(make_room)

    def broken(runner: TableRunner, events: Sequence[object]) -> None:
        raise RuntimeError("a broken listener")

    room.add_listener(broken)  # after the recorder: the recorder still sees everything

    async def scenario() -> None:
        with caplog.at_level(logging.ERROR, logger="feltroom.room"):
            runner = await heads_up(room, clock)
        hand_id = runner.playing
        assert hand_id is not None
        # at start the rebuilt (empty) table: TableReloaded
        assert recorder.batches[0] == ("hu", None, (TableReloaded(),))
        assert recorder.of(PlayerSeated) == [
            PlayerSeated(1, "alice", 100, "post"),
            PlayerSeated(2, "bob", 100, "post"),
        ]
        # the deal's batch already carries the new hand's id
        (started,) = [b for b in recorder.batches if any(isinstance(e, HandStarted) for e in b[2])]
        assert started[1] == hand_id
        await room.act("hu", "alice", Fold(), hand_id)
        # HandFinished is published before the books settle: the hand id is still there
        (finished,) = [
            b for b in recorder.batches if any(isinstance(e, HandFinished) for e in b[2])
        ]
        assert finished[1] == hand_id
        assert runner.playing is None
        assert runner.last_hand_id == hand_id
        # in order: the deal, the turn, the fold, the end of the hand
        kinds = [type(e).__name__ for e in recorder.events("hu")]
        order = ["HandStarted", "TurnStarted", "Folded", "HandFinished"]
        assert [k for k in kinds if k in order] == order
        assert room.stored_stacks("hu") == {"alice": 99, "bob": 101}
        room.remove_listener(broken)
        room.remove_listener(broken)  # once more: ignored
        await room.stop()

    asyncio.run(scenario())
    failures = [r for r in caplog.records if "a listener failed" in r.getMessage()]
    assert failures  # logged, and the table went on
    audited(storage)


def test_a_failing_table_publishes_hand_voided_paused_reloaded_and_resumed(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, error_pause=30.0)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        hand_id = runner.playing
        assert hand_id is not None

        def explode(result: object) -> object:
            raise RuntimeError("injected failure")

        runner.outcome = explode  # type: ignore[method-assign,assignment]
        await room.set_auto_muck("hu", "bob", False)
        await room.disconnect("hu", "bob")
        await room.join_waiting_list("hu", "carol")
        recorder.batches.clear()
        await room.act("hu", "alice", Fold(), hand_id)  # the settlement fails
        assert runner.status == "paused"
        batches = [batch for _, _, batch in recorder.batches]
        assert any(isinstance(e, HandFinished) for e in batches[0])
        voided, paused = batches[1]
        assert isinstance(voided, HandVoided)
        assert voided.hand_id == hand_id
        assert "RuntimeError" in voided.reason
        assert isinstance(paused, TablePaused)
        assert batches[2][-1] == TableReloaded()
        assert {e.account for e in batches[2] if isinstance(e, PlayerSeated)} == {"alice", "bob"}
        # the hand is void in the books, every stack at its start-of-hand value
        with storage.transaction(write=False) as tx:
            row = tx.get_hand(hand_id)
        assert row is not None
        assert row.status == "void"
        assert room.stored_stacks("hu") == {"alice": 100, "bob": 100}
        # the rebuilt table: people sit out, and keep their choices; the waiting list is kept
        bob = runner.table.seats[2]
        assert bob.sitting_out
        assert not bob.auto_muck
        assert bob.disconnected
        assert runner.table.waiting == ["carol"]
        # commands that need the table playing are refused while it is paused
        with pytest.raises(RoomError, match="paused"):
            await room.act("hu", "alice", Fold())
        del runner.outcome
        recorder.batches.clear()
        await tick(room, clock, 31)
        assert runner.status == "running"
        batches = [batch for _, _, batch in recorder.batches]
        assert batches[0][-1] == TableReloaded()
        assert batches[1] == (TableResumed(),)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- act


def test_act_with_a_stale_hand_id_is_refused_and_changes_nothing(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        hand_id = runner.playing
        assert hand_id is not None
        before = state(room, cashier)
        with pytest.raises(StaleHand, match=rf"hand {hand_id + 1} is not the hand in progress"):
            await room.act("hu", "alice", Call(), hand_id + 1)
        with pytest.raises(IllegalAction, match="it is seat 1's turn"):
            await room.act("hu", "bob", Check(), hand_id)
        with pytest.raises(NotSeated, match="carol has no seat at table hu"):
            await room.act("hu", "carol", Fold(), hand_id)
        with pytest.raises(RoomError, match="no table 'nope'"):
            await room.act("nope", "alice", Fold(), hand_id)
        assert state(room, cashier) == before
        await room.act("hu", "alice", Call(), hand_id)  # the right id, and no id at all
        await room.act("hu", "bob", Check())
        hand = runner.table.hand
        assert hand is not None
        assert hand.street == 1
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- blinds


# Rules: R-BLIND-6
def test_R_BLIND_6_post_or_decline_a_prompted_blind(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await room.set_auto_post("hu", "alice", False)
        await tick(room, clock)
        runner = room.runners["hu"]
        assert not runner.table.in_hand
        assert [p.seat for p in recorder.of(BlindPrompt)] == [1]
        before = state(room, cashier)
        with pytest.raises(IllegalAction, match="seat 2 has no blind to post now"):
            await room.post_blind("hu", "bob")
        with pytest.raises(IllegalAction, match="seat 2 has no blind to post now"):
            await room.decline_blind("hu", "bob")
        with pytest.raises(NotSeated):
            await room.post_blind("hu", "carol")
        assert state(room, cashier) == before
        await room.post_blind("hu", "alice")
        assert runner.table.in_hand
        assert runner.playing is not None
        assert recorder.of(HandStarted)
        # the next hand: alice declines and sits out; bob alone: no hand
        await room.act("hu", "alice", Fold(), runner.playing)
        await tick(room, clock, 1.5)
        assert len(recorder.of(BlindPrompt)) == 2
        await room.decline_blind("hu", "alice")
        assert SatOut(1, "declined_blind") in recorder.of(SatOut)
        assert runner.table.seats[1].sitting_out
        assert not runner.table.in_hand
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-BLIND-6
def test_R_BLIND_6_auto_post_turned_on_while_prompted_posts(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await room.set_auto_post("hu", "alice", False)
        await tick(room, clock)
        runner = room.runners["hu"]
        assert not runner.table.in_hand
        assert not runner.table.seats[1].auto_post
        await room.set_auto_post("hu", "alice", True)
        assert runner.table.seats[1].auto_post
        assert runner.table.in_hand
        with pytest.raises(NotSeated):
            await room.set_auto_post("hu", "carol", True)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- chips


# Rules: R-BUYIN-3
def test_R_BUYIN_3_add_chips_between_hands_books_them(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        stack = await room.add_chips("hu", "alice", 60)
        assert stack == 160
        assert ChipsAdded(1, 60, 160) in recorder.of(ChipsAdded)
        assert room.runners["hu"].table.seats[1].stack == 160
        assert room.stored_stacks("hu") == {"alice": 160}
        assert cashier.balance("alice")["balances"]["PLAY"] == "840"
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-BUYIN-3
def test_R_BUYIN_3_add_chips_refused_changes_nothing_in_the_table_or_the_books(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
) -> None:
    accounts.sign_up("dave", "correct horse")
    cashier.grant("dave", 60, "welcome-dave")
    room, _ = person_room(make_room, TWO)

    async def scenario() -> None:
        await room.start()
        await room.join("other", "dave", 1, 40)
        await room.join("hu", "alice", 1, 100)
        before = state(room, cashier)
        dave = (room.stored_stacks("other"), cashier.balance("dave")["balances"])
        with pytest.raises(IllegalAction, match="maximum buy-in at this table is 200"):
            await room.add_chips("hu", "alice", 101)  # 100 + 101 > 200
        with pytest.raises(IllegalAction, match="positive whole number"):
            await room.add_chips("hu", "alice", 0)
        with pytest.raises(NotSeated):
            await room.add_chips("hu", "carol", 50)
        with pytest.raises(InsufficientFunds, match="dave holds 20 units"):
            await room.add_chips("other", "dave", 30)
        assert state(room, cashier) == before
        assert (room.stored_stacks("other"), cashier.balance("dave")["balances"]) == dave
        assert room.runners["other"].table.seats[1].stack == 40
        # during a hand: refused, between hands only (``buy_chips`` holds them until its end)
        await room.join("hu", "bob", 2, 100)
        await tick(room, clock)
        assert room.runners["hu"].table.in_hand
        before = state(room, cashier)
        with pytest.raises(IllegalAction, match=r"only between hands \(R-BUYIN-3\)"):
            await room.add_chips("hu", "alice", 50)
        with pytest.raises(IllegalAction, match="maximum buy-in at this table is 200"):
            await room.buy_chips("hu", "alice", 101)
        assert state(room, cashier) == before
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-BUYIN-3
def test_R_BUYIN_3_chips_bought_during_a_hand_join_the_stack_after_it_up_to_the_maximum(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    """During a hand ``buy_chips`` debits the wallet at once but leaves the stack (and the
    books' stack) alone: chips never enter a hand in progress. When the hand ends they join the
    stack up to the table maximum then (200); the rest goes back to the wallet."""
    room, recorder = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        table = runner.table
        during = table.seats[1].stack
        assert await room.buy_chips("hu", "alice", 60) == (during, 60)
        with pytest.raises(IllegalAction, match="maximum buy-in at this table is 200"):
            await room.buy_chips("hu", "alice", 41)  # 100 + 60 + 41 > 200
        assert await room.buy_chips("hu", "alice", 40) == (during, 100)
        assert cashier.balance("alice")["balances"]["PLAY"] == "800"
        assert room.stored_stacks("hu") == {"alice": 100, "bob": 100}
        assert table.seats[1].stack == during
        await room.act("hu", "alice", RaiseTo(4))
        await room.act("hu", "bob", Fold())  # alice ends the hand with 102
        await tick(room, clock)
        assert ChipsAdded(1, 98, 200) in recorder.of(ChipsAdded)
        assert room.stored_stacks("hu")["alice"] == 200
        assert cashier.balance("alice")["balances"]["PLAY"] == "802"  # 2 did not fit
        assert runner.pending_chips == {}
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-BUYIN-3
def test_R_BUYIN_3_chips_pending_when_the_player_leaves_go_back_to_the_wallet(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        await room.buy_chips("hu", "bob", 50)
        assert cashier.balance("bob")["balances"]["PLAY"] == "850"
        await room.leave("hu", "bob")  # folded at his turn, released after the hand
        await room.act("hu", "alice", Call())
        await tick(room, clock)
        assert runner.table.seat_of("bob") is None
        assert cashier.balance("bob")["balances"]["PLAY"] == "998"  # 100 - 2 + 50 back
        assert runner.pending_chips == {}
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- waiting list


def test_waiting_list_join_and_leave(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        assert await room.join_waiting_list("hu", "carol") == 1
        assert WaitingListJoined("carol", 1) in recorder.of(WaitingListJoined)
        before = state(room, cashier)
        with pytest.raises(IllegalAction, match="carol is already number 1 on the waiting list"):
            await room.join_waiting_list("hu", "carol")
        with pytest.raises(IllegalAction, match="alice already sits in seat 1"):
            await room.join_waiting_list("hu", "alice")
        with pytest.raises(IllegalAction, match="bob is not on the waiting list"):
            await room.leave_waiting_list("hu", "bob")
        assert state(room, cashier) == before
        await room.leave_waiting_list("hu", "carol")
        assert WaitingListLeft("carol") in recorder.of(WaitingListLeft)
        assert room.runners["hu"].table.waiting == []
        # on the list when a seat frees: it is offered
        await room.join_waiting_list("hu", "carol")
        await room.leave("hu", "bob")
        assert [(o.account, o.seat) for o in recorder.of(SeatOffered)] == [("carol", 2)]
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- pre-actions


# Rules: R-AUTO-1
def test_R_AUTO_1_pre_action_for_the_hand_in_progress(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        hand_id = runner.playing
        assert hand_id is not None
        before = state(room, cashier)
        check = PreAction(PreActionKind.CHECK)
        with pytest.raises(StaleHand, match=rf"hand {hand_id - 1} is not the hand in progress"):
            await room.set_pre_action("hu", "bob", hand_id - 1, check)
        with pytest.raises(IllegalAction, match="it is your turn"):
            await room.set_pre_action("hu", "alice", hand_id, check)
        with pytest.raises(NotSeated):
            await room.set_pre_action("hu", "carol", hand_id, check)
        assert state(room, cashier) == before
        await room.set_pre_action("hu", "bob", hand_id, check)
        assert runner.table.seats[2].pre_action == check
        await room.set_pre_action("hu", "bob", hand_id, None)  # withdrawn
        assert runner.table.seats[2].pre_action is None
        await room.set_pre_action("hu", "bob", hand_id, check)
        await room.act("hu", "alice", Call(), hand_id)  # bob's "check" acts at once
        assert PreActionUsed(2, "check") in recorder.of(PreActionUsed)
        hand = runner.table.hand
        assert hand is not None
        assert hand.street == 1
        # no hand in progress: stale
        await room.act("hu", "bob", RaiseTo(4), hand_id)  # bob acts first after the flop
        await room.act("hu", "alice", Fold(), hand_id)
        assert runner.playing is None
        with pytest.raises(StaleHand, match=r"not the hand in progress at table hu \(none\)"):
            await room.set_pre_action("hu", "alice", hand_id, check)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-AUTO-1
def test_R_AUTO_1_pre_action_refused_for_a_player_with_no_turn_to_come(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
) -> None:
    accounts.sign_up("dave", "correct horse")
    cashier.grant("dave", 1000, "welcome-dave")
    room, _ = person_room(make_room, SLOW)

    async def scenario() -> None:
        await room.start()
        for seat, name in enumerate(("alice", "bob", "carol"), start=1):
            await room.join("slow", name, seat, 100)
        await tick(room, clock)
        runner = room.runners["slow"]
        hand_id = runner.playing
        assert hand_id is not None
        await room.join("slow", "dave", 4, 100)  # seated after the deal
        await room.act("slow", "alice", Fold(), hand_id)  # the button, first to act
        before = state(room, cashier, "slow")
        fold = PreAction(PreActionKind.FOLD)
        with pytest.raises(IllegalAction, match=f"dave is not dealt into hand {hand_id}"):
            await room.set_pre_action("slow", "dave", hand_id, fold)
        with pytest.raises(IllegalAction, match="alice has no turn to come"):
            await room.set_pre_action("slow", "alice", hand_id, fold)
        assert state(room, cashier, "slow") == before
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- showing


# Rules: R-SHOW-4, R-BET-5
def test_R_SHOW_4_the_uncontested_winner_shows_until_the_next_deal(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, between_hands=5.0)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        hand_id = runner.playing
        assert hand_id is not None
        with pytest.raises(IllegalAction, match="a hand is in progress"):
            await room.show("hu", "bob", hand_id)
        await room.act("hu", "alice", Fold(), hand_id)  # bob wins without a showdown
        before = state(room, cashier)
        with pytest.raises(IllegalAction, match="only an uncontested winner or a player who"):
            await room.show("hu", "alice", hand_id)  # folded
        with pytest.raises(StaleHand, match=rf"hand {hand_id + 1} is not the last hand played"):
            await room.show("hu", "bob", hand_id + 1)
        with pytest.raises(NotSeated):
            await room.show("hu", "carol", hand_id)
        assert state(room, cashier) == before
        await room.show("hu", "bob", hand_id)
        (shown,) = recorder.of(CardsShown)
        assert shown.seat == 2
        hand = runner.table.hand
        assert hand is not None
        assert shown.cards == hand.hole_cards(2)
        with pytest.raises(IllegalAction, match="already shown"):
            await room.show("hu", "bob", hand_id)
        # after the next deal: too late
        await tick(room, clock, 5.5)
        assert runner.table.in_hand
        with pytest.raises(IllegalAction, match="a hand is in progress"):
            await room.show("hu", "bob", hand_id)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-SHOW-4
def test_R_SHOW_4_auto_muck_off_goes_to_the_next_hand(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        hand_id = runner.playing
        await room.set_auto_muck("hu", "bob", False)
        assert not runner.table.seats[2].auto_muck
        hand = runner.table.hand
        assert hand is not None
        assert hand.setup.show_losing == frozenset()  # the hand dealt keeps its setting
        await room.act("hu", "alice", Fold(), hand_id)
        await tick(room, clock, 1.5)
        hand = runner.table.hand
        assert hand is not None
        assert runner.table.in_hand
        assert hand.setup.show_losing == frozenset({2})
        await room.set_auto_muck("hu", "bob", True)
        assert runner.table.seats[2].auto_muck
        with pytest.raises(NotSeated):
            await room.set_auto_muck("hu", "carol", False)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- disconnection


# Rules: R-TIME-4, R-SIT-1
def test_R_TIME_4_R_SIT_1_still_disconnected_after_the_grace_the_player_is_sat_out(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, SLOW)

    async def scenario() -> None:
        await room.start()
        await room.join("slow", "alice", 1, 100)  # alone: no hand is dealt
        runner = room.runners["slow"]
        await room.disconnect("slow", "alice")
        assert Disconnected(1) in recorder.of(Disconnected)
        assert runner.table.seats[1].disconnected
        await room.disconnect("slow", "alice")  # already: nothing more
        assert recorder.of(Disconnected) == [Disconnected(1)]
        await tick(room, clock, 59)
        assert not runner.table.seats[1].sitting_out
        await tick(room, clock, 1.5)
        assert SatOut(1, "disconnected") in recorder.of(SatOut)
        seat = runner.table.seats[1]
        assert seat.sitting_out  # and the seat is kept, with its chips
        assert seat.stack == 100
        assert room.stored_stacks("slow") == {"alice": 100}
        assert room.seats_of("alice") == [("slow", 1)]
        # back after being sat out: connected, still sitting out until they sit in
        await room.resume("slow", "alice")
        assert Resumed(1) in recorder.of(Resumed)
        assert not seat.disconnected
        assert seat.sitting_out
        await room.sit_in("slow", "alice")
        assert not seat.sitting_out
        with pytest.raises(NotSeated):
            await room.disconnect("slow", "carol")
        with pytest.raises(NotSeated):
            await room.resume("slow", "carol")
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-TIME-4, R-SIT-1
def test_R_TIME_4_R_SIT_1_resuming_within_the_grace_keeps_the_player_playing(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, SLOW)

    async def scenario() -> None:
        await room.start()
        await room.join("slow", "alice", 1, 100)
        runner = room.runners["slow"]
        await room.disconnect("slow", "alice")
        await tick(room, clock, 30)
        await room.resume("slow", "alice")
        await tick(room, clock, 60)
        seat = runner.table.seats[1]
        assert not seat.disconnected
        assert not seat.sitting_out
        assert not recorder.of(SatOut)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-TIME-4, R-SIT-1, R-TIME-3
def test_R_TIME_4_a_disconnected_player_in_the_hand_plays_it_out_then_sits_out(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, SLOW)

    async def scenario() -> None:
        await room.start()
        await room.join("slow", "alice", 1, 100)
        await room.join("slow", "bob", 2, 100)
        await tick(room, clock)
        runner = room.runners["slow"]
        hand_id = runner.playing
        assert hand_id is not None
        await room.disconnect("slow", "bob")  # the big blind; alice (300 s clock) to act
        await tick(room, clock, 90)
        assert runner.table.in_hand  # still the same hand: bob is not sat out during it
        assert runner.playing == hand_id
        assert not runner.table.seats[2].sitting_out
        assert TurnStarted in {type(e) for e in recorder.events()}
        await room.act("slow", "alice", Fold(), hand_id)  # bob wins; the hand is over
        await tick(room, clock, 0.5)
        assert SatOut(2, "disconnected") in recorder.of(SatOut)
        assert runner.table.seats[2].sitting_out
        assert not runner.table.in_hand  # not dealt into the next hand
        assert room.stored_stacks("slow") == {"alice": 99, "bob": 101}
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# ------------------------------------------------------------------------------- where and what


def test_seats_of_and_view_for(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, _ = person_room(make_room, TWO)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 2, 100)
        await room.join("other", "alice", 5, 100)
        await room.join("other", "bob", 1, 100)
        assert room.seats_of("alice") == [("hu", 2), ("other", 5)]
        assert room.seats_of("bob") == [("other", 1)]
        assert room.seats_of("carol") == []
        await tick(room, clock)
        runner = room.runners["other"]
        assert runner.table.in_hand
        mine = runner.view_for("alice")
        assert mine.viewer == 5
        observer = runner.view_for("carol")
        assert observer.viewer is None
        assert mine.hand is not None
        assert observer.hand is not None
        own = next(p.cards for p in mine.hand.players if p.seat == 5)
        assert own is not None
        assert all(p.cards is None for p in observer.hand.players)
        await room.stop()

    asyncio.run(scenario())
    audited(storage)

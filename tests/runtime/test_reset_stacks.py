"""``reset_stacks`` at runtime: the room books each reset between the wallet and the table's
escrow, a player whose wallet cannot refill is sat out, a restart keeps the reset stacks, house
bots play such a table; the audit passes every time."""

from __future__ import annotations

import asyncio

from feltroom.room import Accounts, Cashier, audit
from feltroom.room.runtime import RoomRuntime
from feltroom.rules import Call, RaiseTo
from feltroom.store import SqlStorage
from feltroom.table import SatOut, StackReset

from .support import Clock, Room, run_for
from .test_person import Recorder, person_room, tick

RESET = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 100
max_buy_in = 100
reset_stacks = true
rake_percent = 0
first_button = "first_seated"
"""


def _play(cashier: Cashier, name: str) -> int:
    return int(cashier.balance(name)["balances"].get("PLAY", "0"))


async def _all_in(room: RoomRuntime, clock: Clock, recorder: Recorder) -> None:
    """Hands in which alice or bob moves all-in and the other calls, until one wins (a split
    pot changes no stack: another hand is dealt)."""
    runner = room.runners["hu"]
    for _ in range(20):
        for _ in range(30):  # the pause after a hand (longer after a showdown's run-out)
            await tick(room, clock, 1.0)
            if runner.table.in_hand:
                break
        hand = runner.table.hand
        assert runner.table.in_hand
        assert hand is not None
        first = "alice" if hand.to_act == 1 else "bob"
        await room.act("hu", first, RaiseTo(100))
        await room.act("hu", "bob" if first == "alice" else "alice", Call())
        assert not runner.table.in_hand
        if recorder.of(StackReset) or recorder.of(SatOut):
            return
    raise AssertionError("twenty split pots in a row")


def _audited(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["pass"] is True


def test_after_an_all_in_the_room_books_both_resets_and_the_audit_passes(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, RESET)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await _all_in(room, clock, recorder)
        resets = recorder.of(StackReset)
        assert sorted((r.before, r.stack) for r in resets) == [(0, 100), (200, 100)]
        assert room.stored_stacks("hu") == {"alice": 100, "bob": 100}
        assert {s.stack for s in room.runners["hu"].table.seats.values()} == {100}
        # the winner's 100 went to the wallet, the loser's refill came from it
        assert _play(cashier, "alice") + _play(cashier, "bob") == 2000 - 200
        assert sorted([_play(cashier, "alice"), _play(cashier, "bob")]) == [800, 1000]
        assert not recorder.of(SatOut)
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)


def test_a_player_whose_wallet_cannot_refill_is_sat_out_busted_and_nothing_is_lost(
    make_room: Room, clock: Clock, accounts: Accounts, cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, RESET)
    for name in ("alice", "bob"):  # each holds exactly one buy-in
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 100, f"one-buy-in-{name}")

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        assert _play(cashier, "alice") == 0
        await _all_in(room, clock, recorder)
        stacks = room.stored_stacks("hu")
        loser = min(stacks, key=lambda name: stacks[name])
        winner = max(stacks, key=lambda name: stacks[name])
        assert stacks == {winner: 100, loser: 0}
        assert [e.reason for e in recorder.of(SatOut)] == ["busted"]
        assert _play(cashier, winner) == 100  # the excess went home
        assert _play(cashier, loser) == 0
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)


def test_a_restart_seats_everyone_with_the_reset_stack(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, RESET)

    async def first() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await _all_in(room, clock, recorder)
        await room.stop()

    asyncio.run(first())
    again = make_room(RESET, house_bots=0)

    async def second() -> None:
        await again.start()
        table = again.runners["hu"].table
        assert {s.account: s.stack for s in table.seats.values()} == {"alice": 100, "bob": 100}
        await again.stop()

    asyncio.run(second())
    _audited(storage)


def test_house_bots_play_a_reset_table_and_every_stack_is_the_buy_in_between_hands(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    room = make_room(RESET.replace('id = "hu"', 'id = "bots"'), house_bots=2)
    recorder = Recorder()
    room.add_listener(recorder)

    async def scenario() -> None:
        await room.start()
        await run_for(room, clock, 90)
        runner = room.runners["bots"]
        assert runner.stats.total_hands >= 5
        assert recorder.of(StackReset)
        if not runner.table.in_hand:
            assert set(room.stored_stacks("bots").values()) == {100}
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)

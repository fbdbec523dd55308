"""Issue 42, point 6: buying in again after busting. The rebuy offered (the table's full buy-in
or what the wallet holds, if it covers the minimum) and the seat's auto-rebuy: the room buys it
from the wallet between hands and sits the player in again; a wallet that cannot cover the
minimum turns it off and leaves the seat sitting out, busted; the audit passes."""

from __future__ import annotations

import asyncio

from feltroom.room import Accounts, Cashier
from feltroom.room.rebuys import rebuy_amount, set_auto_rebuy
from feltroom.room.runtime import RoomRuntime
from feltroom.store import SqlStorage
from feltroom.table import ChipsAdded, SatOut, TableConfig

from .support import Clock, Room
from .test_person import Recorder, person_room, tick
from .test_reset_stacks import _all_in, _audited, _play

HU = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 100
rake_percent = 0
first_button = "first_seated"
"""


def test_the_rebuy_offered_is_the_full_buy_in_or_the_wallet() -> None:
    config = TableConfig(big_blind=2, small_blind=1, min_buy_in=40, max_buy_in=100)
    assert rebuy_amount(config, 5000) == 100
    assert rebuy_amount(config, 70) == 70
    assert rebuy_amount(config, 39) is None
    limit = TableConfig(structure="fixed_limit", lower=2)  # no maximum: ten minimums
    assert rebuy_amount(limit, 10**6) == 10 * limit.buy_in_min


async def _bust_one(room: RoomRuntime, clock: Clock, recorder: Recorder) -> str:
    """alice and bob sit with 100 each, auto-rebuy on; all-in and a call until one player's
    stack is empty: that player."""
    await room.start()
    await room.join("hu", "alice", 1, 100)
    await room.join("hu", "bob", 2, 100)
    for name in ("alice", "bob"):
        await set_auto_rebuy(room, "hu", name, True)
    await _all_in(room, clock, recorder)
    busted = [e.seat for e in recorder.of(SatOut) if e.reason == "busted"]
    assert len(busted) == 1
    return "alice" if busted[0] == 1 else "bob"


def test_auto_rebuy_buys_in_again_and_deals_the_player_in(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, HU)

    async def scenario() -> None:
        loser = await _bust_one(room, clock, recorder)
        before = _play(cashier, loser)
        table = room.runners["hu"].table
        for _ in range(30):
            await tick(room, clock, 1.0)
            if table.in_hand:
                break
        seat = table.seat_of(loser)
        assert seat is not None
        assert [e.amount for e in recorder.of(ChipsAdded) if e.seat == seat] == [100]
        assert not table.seats[seat].sitting_out
        assert table.seats[seat].auto_rebuy
        assert _play(cashier, loser) == before - 100
        assert table.hand is not None
        assert seat in table.hand.seats  # dealt the next hand
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)


def test_auto_rebuy_turns_off_when_the_wallet_cannot_cover_the_minimum(
    make_room: Room, clock: Clock, accounts: Accounts, cashier: Cashier, storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, HU)
    for name in ("alice", "bob"):  # each holds exactly one buy-in
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 100, f"one-buy-in-{name}")

    async def scenario() -> None:
        loser = await _bust_one(room, clock, recorder)
        await tick(room, clock, 1.0)
        table = room.runners["hu"].table
        seat = table.seat_of(loser)
        assert seat is not None
        assert table.seats[seat].stack == 0
        assert table.seats[seat].sitting_out
        assert not table.seats[seat].auto_rebuy
        assert _play(cashier, loser) == 0
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)

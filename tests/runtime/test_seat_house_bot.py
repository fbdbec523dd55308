"""RoomRuntime.seat_house_bot (issue 24): a house bot with the caller's brain sits, plays and
leaves like the table's own house bots; a taken seat or a real-money table is refused."""

from __future__ import annotations

import asyncio

import pytest

from feltroom.errors import IllegalAction
from feltroom.room import Accounts, RoomError, audit
from feltroom.room.housebots import HouseBot
from feltroom.store import SqlStorage
from feltroom.strategy import StationBrain

from .support import Clock, Room, run_for

REAL = """
[[table]]
id = "real"
structure = "no_limit"
big_blind = 200
small_blind = 100
currency = "USD"
max_seats = 6
"""


def test_a_seated_house_bot_plays_with_its_own_brain_and_leaves(
    make_room: Room, clock: Clock, storage: SqlStorage, accounts: Accounts
) -> None:
    room = make_room(
        '[[table]]\nid = "alpha"\nstructure = "no_limit"\nbig_blind = 2\nsmall_blind = 1\n'
        "max_seats = 6\n",
        house_bots=0,
    )
    brains = {name: StationBrain(k) for k, name in enumerate(("ida", "jo"))}

    async def scenario() -> None:
        await room.start()
        for seat, (name, brain) in enumerate(brains.items(), start=1):
            await room.seat_house_bot("alpha", HouseBot(name, brain), seat, 200)
        with pytest.raises(IllegalAction, match="seat 1 is not free"):
            await room.seat_house_bot("alpha", HouseBot("kim", StationBrain(3)), 1, 200)
        with pytest.raises(IllegalAction, match="ida already sits"):
            await room.seat_house_bot("alpha", HouseBot("ida", StationBrain(4)), 3, 200)
        await run_for(room, clock, 30)
        assert room.hands_settled > 3
        await room.leave("alpha", "ida")
        await run_for(room, clock, 5)
        assert room.runner("alpha").table.seat_of("ida") is None
        assert "ida" not in room.runner("alpha").bots
        await room.stop()

    asyncio.run(scenario())
    assert accounts.is_bot("ida")
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


def test_house_bots_are_refused_at_a_real_money_table(make_room: Room) -> None:
    room = make_room(REAL, house_bots=0)

    async def scenario() -> None:
        await room.start()
        with pytest.raises(RoomError, match="plays real money"):
            await room.seat_house_bot("real", HouseBot("ida", StationBrain(1)), 1, 20_000)
        assert room.runner("real").table.seats == {}
        await room.stop()

    asyncio.run(scenario())

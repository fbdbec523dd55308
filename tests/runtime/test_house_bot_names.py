"""House-bot names cannot be squatted (issue 27, point 1): names starting with ``bot.`` are
reserved in any letter case, and the room never seats a person's account as a house bot: when
a name it wants belongs to a person, it takes the next free one and the person's chips stay
where they are."""

from __future__ import annotations

import asyncio

import pytest

from feltroom.room import Accounts, Cashier, RoomError, audit
from feltroom.room.accounts import NotAHouseBot
from feltroom.room.housebots import bot_name
from feltroom.room.storage import UserRow
from feltroom.store import SqlStorage

from .support import Clock, Room, run_for

HEADS_UP = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
"""


@pytest.mark.parametrize("name", ["bot.hu.1", "BOT.hu.1", "Bot.main.7", "bot.x"])
def test_sign_up_refuses_a_house_bots_name_in_any_letter_case(
    accounts: Accounts, name: str
) -> None:
    with pytest.raises(RoomError, match="reserved for the room's house bots"):
        accounts.sign_up(name, "correct horse")


@pytest.mark.parametrize("squatter", ["bot.hu.1", "BOT.Hu.1"])
def test_a_person_holding_a_bots_name_is_never_seated_as_the_bot(
    make_room: Room,
    clock: Clock,
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
    squatter: str,
) -> None:
    # An account made before the name was reserved (or by the operator): a person's.
    with storage.transaction() as tx:
        tx.add_user(UserRow(squatter, "!not-a-hash", 0.0, 0.0))
    cashier.grant(squatter, 5000, "squatter-chips")
    assert bot_name("hu", 1) == "bot.hu.1"
    with pytest.raises(NotAHouseBot):
        accounts.ensure_bot("bot.hu.1")
    room = make_room(HEADS_UP, house_bots=2)

    async def scenario() -> None:
        await room.start()
        await run_for(room, clock, 5)
        runner = room.runners["hu"]
        assert runner.status == "running", runner.error
        seated = sorted(seat.account for seat in runner.table.seats.values())
        assert seated == ["bot.hu.2", "bot.hu.3"]
        assert room.seats_of(squatter) == []
        await room.stop()

    asyncio.run(scenario())
    assert cashier.balance(squatter)["balances"]["PLAY"] == "5000"
    assert not accounts.is_bot(squatter)
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]

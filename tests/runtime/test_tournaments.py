"""Tournaments in the room (docs/tournaments.md): house bots fill and play a sit-and-go to its
end on the runtime's clock, the books audited; registration by a person; a recurring sit-and-go
reopens; a restart resumes a running tournament from the books."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from feltroom.room import Cashier
from feltroom.room.audit import audit
from feltroom.room.runtime import RoomRuntime
from feltroom.store import SqlStorage

from .support import HEADS_UP, Clock, Room, run_for

SNG = """
[[tournament]]
id = "sng4"
format = "sng"
seats_per_table = 4
max_entries = 4
starting_stack = 300
buy_in = 500
fee = 50
"""


async def play_out(room: RoomRuntime, clock: Clock, tournament_id: str) -> None:
    end = clock.now + 20_000.0
    while clock.now < end and not room.tournaments[tournament_id].done:
        await run_for(room, clock, 10.0, step=0.5)


def test_house_bots_fill_a_sit_and_go_and_play_it_to_its_end(
    make_room: Room, clock: Clock, storage: SqlStorage, cashier: Cashier
) -> None:
    room = make_room(HEADS_UP, tournaments=SNG, tournament_bot_wait=1.0, bot_think=(0.1, 0.1))

    async def scenario() -> dict[str, object]:
        await room.start()
        try:
            assert list(room.tournaments) == ["sng4-1"]
            await play_out(room, clock, "sng4-1")
            assert room.tournaments["sng4-1"].status == "finished"
            assert "sng4-2" in room.tournaments  # the recurring sit-and-go reopened
            return {t["id"]: t for t in room.tournaments_lobby()}["sng4-1"]
        finally:
            await room.stop()

    lobby = asyncio.run(scenario())
    assert lobby["state"] == "finished"
    places = lobby["places"]
    assert isinstance(places, list)
    assert sorted(p["place"] for p in places) == [1, 2, 3, 4]
    assert [p["prize"] for p in sorted(places, key=lambda p: p["place"])] == [2000, 0, 0, 0]
    winner = places[0]["account"] if places[0]["place"] == 1 else None
    winner = next(p["account"] for p in places if p["place"] == 1)
    assert winner.startswith("bot.sng4.")
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["tournaments"]["sng4-1"] == {
        "status": "finished",
        "buy_ins": 2000,
        "overlay": 0,
        "prizes": 2000,
        "pool_left": 0,
        "chips": 1200,
    }
    # every hand of it is stored and settled, none left started
    with storage.transaction(write=False) as tx:
        assert tx.unsettled_hands(None) == []
    assert Decimal(cashier.balance(winner)["balances"]["PLAY"]) > 0

"""Issue 42, point 5: the demo sit-and-go fills within a minute of a person registering (house
bots no longer wait for another running instance of it to end), and a tournament waiting for
entries says what it waits for."""

from __future__ import annotations

import asyncio

from feltroom.room import Cashier
from feltroom.room.runtime.tournament_bots import FILL_SECONDS

from .support import HEADS_UP, Clock, Room, run_for

SIX = """
[[tournament]]
id = "six"
format = "sng"
seats_per_table = 6
max_entries = 6
starting_stack = 1500
buy_in = 1000
fee = 100
schedule = "turbo"
"""


def test_a_person_waits_a_minute_at_most_while_another_instance_runs(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier
) -> None:
    room = make_room(HEADS_UP, tournaments=SIX, tournament_bot_wait=20.0, bot_think=(1.0, 1.0))
    cashier.grant("alice", 1000, "six:alice")

    async def scenario() -> None:
        await room.start()
        try:
            # the house bots fill the first instance (one every 20 s): it starts, the next opens
            for _ in range(200):
                await run_for(room, clock, 5.0)
                if "six-2" in room.tournaments:
                    break
            assert room.tournaments["six-1"].status == "running"
            second = room.tournaments["six-2"]
            await run_for(room, clock, 60.0)
            assert second.director.entry_count == 0  # no flood while six-1 runs
            waiting = {t["id"]: t for t in room.tournaments_lobby()}["six-2"]["waiting"]
            assert waiting == {
                "entries_wanted": 6,
                "house_bots": "after_a_player",
                "next_bot_in": None,
            }
            # a person registers: the bots fill the rest within a minute
            await room.register_tournament("six-2", "alice")
            waiting = {t["id"]: t for t in room.tournaments_lobby()}["six-2"]["waiting"]
            assert waiting["entries_wanted"] == 5
            assert waiting["house_bots"] == "filling"
            started = clock.now
            while second.director.started_at is None:
                assert clock.now - started <= 60.0, second.director.entry_count
                await run_for(room, clock, 1.0)
            assert clock.now - started <= FILL_SECONDS + 5
            assert second.director.entry_count == 6
            assert {t["id"]: t for t in room.tournaments_lobby()}["six-2"]["waiting"] is None
        finally:
            await room.stop()

    asyncio.run(scenario())

"""A cash table sleeps until its clock next has something due (issue 17): no look at a fixed
pace. An empty table needs no look before the backstop; a person's turn wakes the table when
its countdown starts, and the clock still runs the turn out on time."""

from __future__ import annotations

import asyncio

from feltroom.table import CountdownStarted, TimedOut

from .support import Clock, Room
from .test_person import HU, heads_up, person_room, tick


def test_an_empty_table_sleeps_until_the_backstop(make_room: Room, clock: Clock) -> None:
    room, _ = person_room(make_room, HU)

    async def scenario() -> None:
        await room.start()
        runner = room.runners["hu"]
        assert runner.table.next_due() == float("inf")
        wake = await runner.step(clock.now)
        assert wake == clock.now + room.settings.idle_look
        assert room.settings.idle_look == 30.0
        await room.stop()

    asyncio.run(scenario())


def test_a_persons_turn_wakes_the_table_at_each_stage_of_its_clock(
    make_room: Room, clock: Clock, players: tuple[str, ...]
) -> None:
    room, recorder = person_room(make_room, HU)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        table = runner.table
        config = table.config
        started = clock.now
        countdown = started + config.act_seconds
        assert table.next_due() == countdown
        assert await runner.step(clock.now) == countdown  # not half a second later
        await tick(room, clock, config.act_seconds)
        assert recorder.of(CountdownStarted)
        assert table.next_due() > clock.now  # the time bank's start, or the deadline
        for _ in range(100):
            if recorder.of(TimedOut):
                break
            await tick(room, clock, max(0.0, table.next_due() - clock.now))
        assert recorder.of(TimedOut)
        await room.stop()

    asyncio.run(scenario())

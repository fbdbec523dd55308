"""The room's side of the rules at runtime: R-RNG-2 (the daily self-test), R-SIT-2 (a released
seat's chips go back to the wallet), R-BUYIN-2 (the default buy-in), R-TIME-3 (the protection
allowance across tables, and its reset)."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from typing import Any

import pytest

from feltroom.room import Accounts, Cashier, audit
from feltroom.room.runtime.room import _off_the_loop
from feltroom.selftest import run_selftest
from feltroom.store import SqlStorage

from .support import START, Clock, Room, run_for

ONE_TABLE = """
[[table]]
id = "solo"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
sit_out_minutes = 1
"""

TWO_HEADS_UP = """
[[table]]
id = "hu1"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
act_seconds = 1
countdown_seconds = 0
protect_on = "any_timeout"

[[table]]
id = "hu2"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
act_seconds = 1
countdown_seconds = 0
protect_on = "any_timeout"
"""


# Rules: R-RNG-2
def test_R_RNG_2_the_shuffle_self_test_runs_daily_and_is_logged(
    make_room: Room, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    runs: list[int] = []

    def selftest(shuffles: int) -> dict[str, Any]:
        runs.append(shuffles)
        return {"shuffles": shuffles, "tests": {}, "pass": True}

    room = make_room(
        ONE_TABLE,
        house_bots=0,
        selftest=selftest,
        selftest_first=600.0,
        selftest_interval=86_400.0,
        selftest_shuffles=1234,
    )

    async def scenario() -> None:
        await room.start()
        with caplog.at_level(logging.INFO, logger="feltroom.room"):
            await room.advance(START + 599)
            assert runs == []
            await room.advance(START + 600)
            assert runs == [1234]
            await room.advance(START + 600 + 86_399)
            assert runs == [1234]
            await room.advance(START + 600 + 86_400)
            assert runs == [1234, 1234]
            await room.advance(START + 600 + 3 * 86_400 + 5)  # missed days run once
            assert len(runs) == 3
            assert room.next_selftest == START + 600 + 4 * 86_400
        await room.stop()

    asyncio.run(scenario())
    logged = [r.getMessage() for r in caplog.records if "R-RNG-2" in r.getMessage()]
    assert len(logged) == 3
    assert all("pass" in m for m in logged)
    assert room.status()["last_selftest"]["pass"] is True


# Rules: R-RNG-2
def test_R_RNG_2_a_failing_self_test_is_logged_as_an_error(
    make_room: Room, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    room = make_room(
        ONE_TABLE,
        house_bots=0,
        selftest=lambda n: {"shuffles": n, "tests": {}, "pass": False},
        selftest_first=1.0,
    )

    async def scenario() -> None:
        await room.start()
        with caplog.at_level(logging.INFO, logger="feltroom.room"):
            await room.advance(START + 2)
        await room.stop()

    asyncio.run(scenario())
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and "R-RNG-2" in r.msg]
    assert errors


# Rules: R-SIT-2
def test_R_SIT_2_a_seat_released_after_sitting_out_returns_its_chips_to_the_wallet(
    make_room: Room, clock: Clock, accounts: Accounts, cashier: Cashier, storage: SqlStorage
) -> None:
    accounts.sign_up("alice", "correct horse")
    cashier.grant("alice", 150, "welcome-alice")
    room = make_room(ONE_TABLE, house_bots=2)

    async def scenario() -> None:
        await room.start()
        await run_for(room, clock, 5)
        # R-BUYIN-2 (the account side): the whole balance, capped by the table maximum (200)
        stack = await room.join("solo", "alice", 1)
        assert stack == 150
        assert cashier.balance("alice")["balances"]["PLAY"] == "0"
        assert room.stored_stacks("solo")["alice"] == 150
        await room.sit_out("solo", "alice")
        sat_out = clock.now
        await run_for(room, clock, 59)
        assert "alice" in room.stored_stacks("solo")
        # sit_out_minutes = 1: released by the first tick between hands after a minute
        for _ in range(120):
            await run_for(room, clock, 1)
            if "alice" not in room.stored_stacks("solo"):
                break
        assert "alice" not in room.stored_stacks("solo")
        assert clock.now - sat_out >= 60
        assert room.runners["solo"].table.seat_of("alice") is None
        await room.stop()

    asyncio.run(scenario())
    assert cashier.balance("alice")["balances"]["PLAY"] == "150"
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


# Rules: R-TIME-3
def test_R_TIME_3_the_protection_allowance_is_one_count_across_tables_and_is_reset(
    make_room: Room,
    clock: Clock,
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    accounts.sign_up("alice", "correct horse")
    cashier.grant("alice", 1000, "welcome-alice")
    room = make_room(TWO_HEADS_UP, house_bots=1, bot_think=(0.0, 0.0), between_hands=0.5)
    asked: list[tuple[str, bool]] = []
    consume = accounts.consume_protection

    def spy(name: str, table_id: str, hand_id: int | None = None, now: float | None = None) -> bool:
        used = consume(name, table_id, hand_id, now)
        asked.append((table_id, used))
        return used

    monkeypatch.setattr(accounts, "consume_protection", spy)

    async def play_until(count: int) -> None:
        for _ in range(2000):
            if len(asked) >= count:
                return
            await run_for(room, clock, 0.5)
            for table_id in ("hu1", "hu2"):
                table = room.runners[table_id].table
                seat = table.seat_of("alice")
                if seat is not None and table.seats[seat].sitting_out:
                    await room.sit_in(table_id, "alice")
        raise AssertionError(f"only {len(asked)} timeouts")

    async def scenario() -> None:
        await room.start()
        await room.join("hu1", "alice", 1, 100)
        await room.join("hu2", "alice", 1, 100)
        await play_until(4)
        assert [used for _, used in asked[:4]] == [True, True, False, False]
        assert {table for table, _ in asked} == {"hu1", "hu2"}
        assert accounts.protections_left("alice") == 0
        accounts.reset_protections("alice")  # the operator's reset
        asked.clear()
        await play_until(1)
        assert asked[0][1] is True
        await room.stop()

    asyncio.run(scenario())
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


def test_R_RNG_2_the_rooms_own_self_test_runs_in_a_process_of_its_own() -> None:
    """The shuffle self-test's seconds of CPU run beside the room, not in its interpreter (a
    thread would hold the interpreter's lock against every table's turn)."""

    async def main() -> tuple[dict[str, Any], bool]:
        task = asyncio.create_task(_off_the_loop(run_selftest, 2000))
        seen = False
        while not task.done():
            seen = seen or bool(multiprocessing.active_children())
            await asyncio.sleep(0.01)
        return await task, seen

    report, seen = asyncio.run(main())
    assert seen, "no process of its own ran the self-test"
    assert report["shuffles"] == 2000
    assert set(report["tests"]) >= {"card_position", "adjacency"}

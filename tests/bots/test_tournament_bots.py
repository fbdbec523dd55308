"""Network bots in a tournament (``feltroom bots --tournament``): a real server, bots that
register over HTTP and play a two-table sit-and-go over websockets to the end, then the audit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from feltroom.bots.runner import BotSettings
from feltroom.bots.tournament import main as tournament_main
from feltroom.bots.tournament import run_tournament_bots
from feltroom.cli import main
from feltroom.room import audit
from feltroom.store import SqlStorage
from server.live import HEADS_UP, live_server, room_for

SIX = """
[[tournament]]
id = "six"
format = "sng"
seats_per_table = 4
max_entries = 6
starting_stack = 400
buy_in = 1000
fee = 100
"""


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


def test_bots_play_a_two_table_sit_and_go_to_the_end(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP, SIX)
        async with live_server(room) as live:
            settings = BotSettings(live.http, count=6, think=0.0, style="tag", seed=5)
            run = await run_tournament_bots(settings, "six-1")
            assert run.ok, [b.problem for b in run.bots]
            assert run.state == "finished"
            assert run.entries == 6
            assert sorted(b.place or 0 for b in run.bots) == [1, 2, 3, 4, 5, 6]
            prizes = sorted((b.place, b.prize) for b in run.bots if b.prize)
            assert prizes == [(1, 3900), (2, 2100)]  # 6 entries: 65/35 of 6000
            assert sum(b.moves for b in run.bots) >= 6  # seated, then the final table
            assert all(b.actions > 0 for b in run.bots)
            summary = run.summary()
            assert summary.startswith("tournament six-1 finished: 6 bots of 6 entries; places 1, 2")
            assert "prizes 6000" in summary
            assert live.tap.leaks == []
            assert room.tournaments["six-1"].director.state == "finished"
        result = audit(storage, shuffles=0)
        assert result["problems"] == []
        assert result["pass"] is True

    _run(scenario())


def test_a_refused_registration_stops_the_run_and_changes_nothing(
    storage: SqlStorage, capsys: pytest.CaptureFixture[str]
) -> None:
    async def scenario() -> int:
        room = room_for(storage, HEADS_UP, SIX)
        async with live_server(room) as live:
            # seven bots for six entries: the seventh is refused, the six withdraw (refunded)
            settings = BotSettings(live.http, count=7, think=0.0, seed=9)
            code = await asyncio.to_thread(tournament_main, settings, "nope-1")
            assert room.tournaments["six-1"].director.entry_count == 0
            return code

    assert _run(scenario()) == 1
    err = capsys.readouterr().err
    assert "cannot register in nope-1" in err
    assert "no tournament 'nope-1'" in err
    result = audit(storage, shuffles=0)
    assert result["problems"] == []


def test_bots_command_refuses_hands_with_a_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--tournament", "x", "--hands", "3"]
    )
    assert code == 2
    assert "--hands does not apply with --tournament" in capsys.readouterr().err

"""Network bots over the public protocol: a real server, a team of bots that sign up, buy in
and play hundreds of hands over websockets, then the room's audit on the books they left."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from feltroom.bots.runner import BotSettings, plan_seats, run_bots
from feltroom.cli import main
from feltroom.errors import InvalidConfiguration
from feltroom.room import audit
from feltroom.store import SqlStorage
from server.live import live_server, room_for

TABLES = "".join(
    f"""
[[table]]
id = "{name}"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 200
first_button = "first_seated"
act_seconds = 30
"""
    for name in ("net-a", "net-b")
)


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 90))


def test_bots_play_200_hands_over_the_protocol_and_the_books_balance(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            settings = BotSettings(live.http, count=6, hands=100, think=0.0, style="tag", seed=3)
            report = await run_bots(settings)
            assert report.ok, [b.problem for b in report.bots]
            assert not report.stopped
            assert report.hands >= 200
            assert all(b.hands >= 100 for b in report.bots)
            assert all(b.refused == 0 for b in report.bots)
            assert sorted({t for b in report.bots for t in b.tables}) == ["net-a", "net-b"]
            assert len({b.name for b in report.bots}) == 6
            assert live.tap.leaks == []  # nobody saw a card they may not see
            for runner in room.runners.values():  # every bot left: the stacks went home
                assert runner.table.seats == {}
        result = audit(storage, shuffles=0)
        assert result["problems"] == []
        assert result["pass"] is True
        assert result["hands_checked"] >= 200

    _run(scenario())


def test_bots_stop_cleanly_when_told_and_leave_their_seats(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            stop = asyncio.Event()
            settings = BotSettings(live.http, count=3, think=0.0, style="random", seed=4)
            task = asyncio.create_task(run_bots(settings, stop))
            while sum(r.table.hand_number for r in room.runners.values()) < 5:
                await asyncio.sleep(0.05)
            stop.set()
            report = await task
            assert report.stopped
            assert report.ok
            assert report.hands >= 5
            assert all(r.table.seats == {} for r in room.runners.values())
        assert audit(storage, shuffles=0)["pass"] is True

    _run(scenario())


def test_bots_resume_after_a_dropped_connection_and_waiting_bots_get_a_seat(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            # 4 bots for 3-seat tables: three sit at one, the fourth (not alone at the other)
            # waits for a seat, which a bot that is done gives up
            settings = BotSettings(live.http, count=4, hands=20, think=0.0, style="tag", seed=6)
            task = asyncio.create_task(run_bots(settings))
            table = room.runners["net-a"].table
            while table.hand_number < 5:
                await asyncio.sleep(0.02)
            victim = table.seats[min(table.seats)].account
            for connection in list(live.hub.by_player.get(victim, ())):
                connection.close()  # the server drops the bot's connection mid-play
            report = await asyncio.wait_for(task, 45)
            assert report.ok, [b.problem for b in report.bots]
            by_name = {b.name: b for b in report.bots}
            assert by_name[victim].reconnects >= 1
            assert all(b.hands >= 20 for b in report.bots)
            assert {t for b in report.bots for t in b.tables} == {"net-a"}
            assert all(r.table.seats == {} for r in room.runners.values())
            assert live.tap.leaks == []
        assert audit(storage, shuffles=0)["pass"] is True

    _run(scenario())


def test_plan_seats_fills_tables_together() -> None:
    def entry(name: str, seats: int, taken: int, **extra: Any) -> dict[str, Any]:
        return {
            "id": name,
            "seats": seats,
            "seats_taken": taken,
            "seats_free": seats - taken,
            "status": "running",
            "currency": "PLAY",
            **extra,
        }

    lobby = [entry("a", 6, 0), entry("b", 6, 2), entry("usd", 6, 0, currency="USD")]
    assert plan_seats(lobby, 3) == [("b", False)] * 3
    assert plan_seats(lobby, 6) == [("b", False)] * 4 + [("a", False)] * 2
    assert plan_seats(lobby, 11) == [("b", False)] * 4 + [("a", False)] * 6 + [("b", True)]
    lone = [entry("a", 6, 5), entry("b", 6, 0)]
    assert plan_seats(lone, 2) == [("a", False), ("a", True)]
    with pytest.raises(Exception, match="no running play-money table"):
        plan_seats([entry("usd", 6, 0, currency="USD")], 2)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bots", "--count", "2"], "--url"),
        (["bots", "--url", "http://127.0.0.1:9"], "--count"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "0"], "at least 1"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "x"], "whole number"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--hands", "0"], "at least 1"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--think", "-1"], "think"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--think", "nan"], "think"),
        (["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--style", "wild"], "style"),
    ],
)
def test_bots_command_refuses_bad_arguments(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def test_bots_command_reports_a_server_it_cannot_reach(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bots", "--url", "http://127.0.0.1:9", "--count", "2", "--hands", "1"])
    assert code == 1
    assert "cannot reach http://127.0.0.1:9" in capsys.readouterr().err
    with pytest.raises(InvalidConfiguration, match="styles are"):
        BotSettings("http://h:1", 2, style="wild")


DEEP = """
[[table]]
id = "deep"
structure = "fixed_limit"
lower = 2000
upper = 4000
max_seats = 2
first_button = "first_seated"
act_seconds = 30
"""


def test_a_bot_that_cannot_buy_in_stops_the_run_instead_of_waiting_for_ever(
    storage: SqlStorage,
) -> None:
    """The minimum buy-in (10 x 2,000, R-BUYIN-1) is more than a grant: every free seat is
    refused, so the bots stop with that problem, leave, and the run ends (not ok)."""

    async def scenario() -> None:
        room = room_for(storage, DEEP)
        async with live_server(room) as live:
            settings = BotSettings(live.http, count=2, hands=5, think=0.0, style="random", seed=1)
            report = await run_bots(settings)
            assert not report.ok
            assert report.stopped
            problems = [b.problem for b in report.bots if b.problem is not None]
            assert problems
            assert all("cannot sit at deep" in p for p in problems), problems
            assert "20000" in problems[0] or "20,000" in problems[0], problems
            assert room.runners["deep"].table.seats == {}
        assert audit(storage, shuffles=0)["pass"] is True

    _run(scenario())


def test_R_HOME_1_bots_join_a_home_game_by_its_link_and_play_it(storage: SqlStorage) -> None:
    """Bots given a home game's invite link ask its host for seats there; admitted, they play,
    and the game's ledger adds up to zero."""

    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            token = await live.account("hostess")
            auth = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=live.http, headers=auth) as http:
                made = await http.post("/api/games", json={"seats": 3, "big_blind": 2})
                game = made.json()["game"]
                settings = BotSettings(
                    f"{live.http}{game['invite']}", count=3, hands=10, think=0.0, seed=5
                )
                task = asyncio.create_task(run_bots(settings))
                while not task.done():  # the host admits and approves each request as it comes
                    seen = (await http.get("/api/games/g-1")).json()["game"]
                    for request in seen["requests"]:
                        if request["kind"] == "seat":
                            control, body = "admit", {"request": request["id"], "admit": True}
                        else:
                            control, body = "approve", {"request": request["id"], "approve": True}
                        answer = await http.post(f"/api/games/g-1/{control}", json=body)
                        # (a rebuy asked by a bot that has left since is refused)
                        assert answer.status_code in (200, 409), answer.text
                    await asyncio.sleep(0.05)
                report = task.result()
                assert report.ok, [b.problem for b in report.bots]
                assert all(b.tables == ["home-g-1"] for b in report.bots)
                assert all(b.hands >= 10 for b in report.bots)
                book = (await http.get("/api/games/g-1/ledger")).json()
                assert len(book["players"]) == 3
                assert book["totals"]["net"] == 0
                stacks = await asyncio.to_thread(room.stored_stacks, "home-g-1")
                assert all(r["at_table"] == stacks.get(r["player"], 0) for r in book["players"])
            assert [t["id"] for t in (await _lobby(live.http))] == ["net-a", "net-b"]
            assert live.tap.leaks == []
        result = audit(storage, shuffles=0)
        assert result["problems"] == []

    _run(scenario())


async def _lobby(base: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base) as http:
        tables: list[dict[str, Any]] = (await http.get("/api/lobby")).json()["tables"]
        return tables

"""The ASGI application: the lobby as JSON and the status page, over a room of demo tables."""

from __future__ import annotations

import asyncio
import time

from starlette.testclient import TestClient

from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import load_tables, parse_tables
from feltroom.server import create_app
from feltroom.store import SqlStorage

LOBBY_FIELDS = {
    "id",
    "name",
    "game",
    "structure",
    "stakes",
    "currency",
    "seats",
    "seats_taken",
    "seats_free",
    "waiting",
    "average_pot",
    "hands_per_hour",
    "players_per_flop",
    "info",
    "settings",
    "status",
}


def _room(storage: SqlStorage, tables: object, **settings: object) -> RoomRuntime:
    options: dict[str, object] = {"bot_think": (0.0, 0.0), "between_hands": 0.0}
    options.update(settings)
    return RoomRuntime(
        Settlement(storage),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        tables,  # type: ignore[arg-type]
        settings=RuntimeSettings(**options),  # type: ignore[arg-type]
    )


def test_the_lobby_lists_every_table_with_its_figures_and_settings(storage: SqlStorage) -> None:
    specs = load_tables(None)
    room = _room(storage, specs, house_bots=3)

    async def play() -> None:
        await room.start()
        for _ in range(40):
            now = time.time()
            for runner in room.runners.values():
                await runner.drive(now, max_steps=5)

    asyncio.run(play())
    try:
        with TestClient(create_app(room, drive=False)) as client:
            response = client.get("/api/lobby")
        assert response.status_code == 200
        body = response.json()
        tables = body["tables"]
        assert [t["id"] for t in tables] == [s.table_id for s in specs]
        structures = {t["structure"] for t in tables}
        assert structures == {"fixed_limit", "pot_limit", "no_limit"}
        assert {t["seats"] for t in tables} >= {2, 6, 9, 10}
        for table, spec in zip(tables, specs, strict=True):
            assert set(table) >= LOBBY_FIELDS
            assert table["game"] == "Texas Hold'em"
            assert table["info"] == spec.config.info()  # R-TABLE-1
            assert table["info"].startswith(f"Welcome to {spec.config.name}")
            assert table["stakes"] == spec.config.stakes_name()
            assert table["seats_taken"] + table["seats_free"] == table["seats"]
            assert table["seats_taken"] >= 2
            assert table["currency"] == "PLAY"
            settings = table["settings"]
            for name in ("structure", "button_rule", "act_seconds", "rake_percent", "max_seats"):
                assert name in settings
            assert settings["max_seats"] == spec.config.max_seats
        played = [t for t in tables if t["hands_played"]]
        assert played
        assert all(t["average_pot"] > 0 and t["hands_per_hour"] > 0 for t in played)
        assert all(0 <= t["players_per_flop"] <= 100 for t in tables)
        assert body["status"]["tables"] == len(specs)
    finally:
        asyncio.run(room.stop())


def test_the_status_page_escapes_what_it_shows(storage: SqlStorage) -> None:
    specs = parse_tables(
        """
[[table]]
id = "odd"
name = "<script>alert(1)</script>"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""
    )
    room = _room(storage, specs, house_bots=2)
    with TestClient(create_app(room)) as client:  # the lifespan starts and stops the room
        page = client.get("/status")
        lobby = client.get("/api/lobby").json()
        status = client.get("/api/status").json()
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "/api/lobby" in page.text
    assert lobby["tables"][0]["name"] == "<script>alert(1)</script>"
    assert status["tables"] == 1

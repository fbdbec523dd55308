"""PostgreSQL restarts under a worker (docs/cluster.md, "Failover"): the settlements that the
database cannot take meanwhile wait and are tried again; while the books are out of reach the
turn clocks stop, so nobody times out or is protected (R-TIME-2/3) because of it; a restart
longer than the lease voids no hand either: the worker renews its own lapsed leases (same
epoch) and the same hand goes on; play goes on afterwards and the books pass the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
from redis.exceptions import RedisError

from feltroom.cluster.client import RemoteError, TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.store import open_storage
from services import PostgresServer, RedisServer

from .support import Workers, batches, leases, until, until_ok, wait_for

TABLE = """
[[table]]
id = "d1"
preset = "nl_25_50"
max_seats = 6
act_seconds = 20
countdown_seconds = 0
time_bank_seconds = 0
protect_on = "any_timeout"
"""
LEASE = 2.0


def _settled(store: object) -> int:
    with store.transaction(write=False) as tx:  # type: ignore[attr-defined]
        return int(tx.settled_hand_count())


def _void(store: object) -> int:
    with store.transaction(write=False) as tx:  # type: ignore[attr-defined]
        rows = tx.c.exec_driver_sql("SELECT count(*) FROM hands WHERE status = 'void'")
        return int(rows.scalar_one())


def test_settlements_wait_while_postgresql_restarts(
    own_postgres: tuple[PostgresServer, str], redis_server: RedisServer, tmp_path: Path
) -> None:
    server, url = own_postgres
    store = open_storage(url)
    workers = Workers(tmp_path, url, redis_server.url, lease=10.0, think=0.05)
    try:
        workers.start("w", load_tables=True)
        wait_for("both tables owned", lambda: len(leases(store)) == 2, 60)
        wait_for("a few hands settled", lambda: _settled(store) >= 4, 90)
        store.close()
        server.stop()
        time.sleep(3)
        server.start()
        store = open_storage(url)
        before = _settled(store)
        wait_for("play going on", lambda: _settled(store) >= before + 4, 90)
        voided = _void(store)  # (stopping the worker voids its hands in play)
    finally:
        workers.stop_all()
    log = workers.log("w")
    # The clocks stopped (no hand ends while the books are away); a hand that ended just
    # before the worker noticed waited for its settlement.
    assert "the books are out of reach" in log
    assert "LeaseLost" not in log
    assert voided == 0  # no hand void by the restart
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def test_a_restart_longer_than_the_lease_pauses_the_hand_and_it_goes_on(
    own_postgres: tuple[PostgresServer, str], redis_server: RedisServer, tmp_path: Path
) -> None:
    server, url = own_postgres
    store = open_storage(url)
    Accounts(store, argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    Cashier(store).grant("alice", 100_000, "alice-grant")
    workers = Workers(tmp_path, url, redis_server.url, lease=LEASE, think=0.3)
    workers.tables.write_text(TABLE)
    try:
        workers.start("w", load_tables=True)
        taken = wait_for("the table to be owned", lambda: leases(store).get("d1"), 60)
        store.close()
        hand, frames = asyncio.run(_away_and_back(server, redis_server))
        store = open_storage(url)
        wait_for("her hand settled", lambda: _status(store, hand) == "settled", 60)
        lease = leases(store)["d1"]
    finally:
        workers.stop_all()
    log = workers.log("w")
    assert "the books are out of reach" in log
    assert "lease lost" not in log
    assert "taken over" not in log
    assert (lease.owner, lease.epoch) == (taken.owner, taken.epoch)  # renewed, not taken again
    kinds = {m.get("kind") for m in frames if m["type"] == "event"}
    assert not kinds & {"timed_out", "protection_used", "protected", "hand_voided"}, sorted(kinds)
    assert _status(store, hand) == "settled"  # settled once (a second settlement is refused)
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def _status(store: object, hand: int) -> str | None:
    with store.transaction(write=False) as tx:  # type: ignore[attr-defined]
        rows = tx.c.exec_driver_sql("SELECT status FROM hands WHERE hand_id = %(h)s", {"h": hand})
        found = rows.scalar_one_or_none()
    return None if found is None else str(found)


async def _away_and_back(
    database: PostgresServer, broker: RedisServer
) -> tuple[int, list[dict[str, Any]]]:
    """Alice joins; at her turn PostgreSQL stops for twice the lease and more than her turn;
    once it is back the table is at the same hand, still her turn, and she folds. Returns the
    hand and every frame she was sent."""
    client = TableClient(broker.url, timeout=5.0)
    await client.start()
    frames: list[dict[str, Any]] = []

    async def record() -> None:
        async for batch in batches(client, "d1"):
            frames.extend(json.loads(frame) for frame in batch["players"].get("alice", []))

    recorder = asyncio.create_task(record())
    try:
        await asyncio.sleep(0.3)
        seat = 3
        await client.call("d1", "join", "alice", seat=seat, buy_in=2000)
        turn = await until(
            "alice's turn",
            lambda: next((m for m in frames if m["type"] == "turn" and m["seat"] == seat), None),
            60,
        )
        await asyncio.to_thread(database.stop)
        # Twice the lease, and more than her whole turn (20 s: what her clock runs before the
        # worker notices the outage and after it is back must fit in it on a loaded machine).
        await asyncio.sleep(2 * LEASE + 20)
        await asyncio.to_thread(database.start)
        reply = await until_ok(lambda: client.call("d1", "snapshot", "alice"), 30)
        view = json.loads(reply["frames"][0])["view"]
        assert view["hand"] == turn["hand"]
        assert view["to_act"] == seat  # her clock stood still

        # (she folds, or checks when checking is free: a fold is then not offered)
        action = "check" if (turn.get("legal") or {}).get("check") else "fold"

        async def act() -> Any:
            try:
                return await client.call("d1", "act", "alice", action=action, hand=turn["hand"])
            except RemoteError:
                # A try whose reply was lost got through if her turn is over. (Whether her
                # hand was settled, and not voided, is checked below.)
                now = await client.call("d1", "snapshot", "alice")
                view = json.loads(now["frames"][0])["view"]
                if view["hand"] != turn["hand"] or view["to_act"] != seat:
                    return None
                raise

        await until_ok(act, 10)
        return int(turn["hand"]), frames
    finally:
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder
        with contextlib.suppress(RedisError, OSError):
            await client.close()


def test_http_calls_that_need_the_database_answer_503_while_it_restarts(
    own_postgres: tuple[PostgresServer, str], redis_server: RedisServer, tmp_path: Path
) -> None:
    """A gateway's sign-in, sign-up and the player's own calls while PostgreSQL is away: 503
    with ``Retry-After`` and a sentence (not 500); the log says so once, without a traceback;
    once the database is back they answer again."""
    server, url = own_postgres
    store = open_storage(url)
    Accounts(store, argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    store.close()
    workers = Workers(tmp_path, url, redis_server.url)
    try:
        port = workers.start_gateway("gateway")
        asyncio.run(_calls_while_away(server, port))
    finally:
        workers.stop_all()
    log = workers.log("gateway")
    assert log.count("the database is out of reach") == 1, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


async def _calls_while_away(server: PostgresServer, port: int) -> None:
    signin = {"name": "alice", "password": "correct horse"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        token = (await http.post("/api/signin", json=signin)).json()["token"]
        me = {"Authorization": f"Bearer {token}"}
        assert (await http.get("/api/me", headers=me)).status_code == 200
        await asyncio.to_thread(server.stop)
        try:
            calls = [
                http.post("/api/signin", json=signin),
                http.post("/api/signup", json={"name": "bob", "password": "correct horse"}),
                http.get("/api/me", headers=me),
                http.get("/api/balance", headers=me),
                http.get("/api/hands", headers=me),
            ]
            for call in calls:
                answer = await call
                assert answer.status_code == 503, (answer.request.url, answer.text)
                assert answer.headers["Retry-After"] == "2"
                error = answer.json()["error"]
                assert error["code"] == "database_unavailable"
                assert "try again" in error["message"]
        finally:
            await asyncio.to_thread(server.start)

        async def back() -> bool:
            answer = await http.post("/api/signin", json=signin)
            assert answer.status_code in (200, 503), answer.text
            return answer.status_code == 200

        end = time.monotonic() + 30
        while not await back():
            assert time.monotonic() < end, "sign-in did not come back with the database"
            await asyncio.sleep(0.5)  # (as Retry-After asks, a little sooner)
        assert (await http.get("/api/me", headers=me)).status_code == 200

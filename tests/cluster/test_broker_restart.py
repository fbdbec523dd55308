"""The broker restarts (docs/cluster.md, "Failover"): while a worker cannot reach its players
the tables' clocks stop, so nobody's turn runs out because of it (R-TIME-2/3); once the broker
is back the table is at the same hand, still at the same turn, commands reach it again, and the
books pass the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from feltroom.cluster.client import TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.store import open_storage
from services import RedisServer

from .support import Workers, batches, leases, until, until_ok, wait_for

TABLE = """
[[table]]
id = "r1"
preset = "nl_25_50"
max_seats = 6
act_seconds = 5
countdown_seconds = 0
time_bank_seconds = 0
"""


def test_turn_clocks_stop_while_the_broker_is_away(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    Accounts(store, argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    Cashier(store).grant("alice", 100_000, "alice-grant")
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=3.0, think=0.3)
    workers.tables.write_text(TABLE)
    try:
        workers.start("w", load_tables=True)
        wait_for("the table to be owned", lambda: leases(store).get("r1"), 60)
        asyncio.run(_away_and_back(redis_server))
    finally:
        workers.stop_all()
    assert "clocks stop" in workers.log("w")
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _away_and_back(redis: RedisServer) -> None:
    client = TableClient(redis.url, timeout=5.0)
    await client.start()
    frames: list[tuple[float, dict[str, Any]]] = []

    async def record() -> None:
        async for batch in batches(client, "r1"):
            for frame in batch["players"].get("alice", []):
                frames.append((time.monotonic(), json.loads(frame)))

    recorder = asyncio.create_task(record())
    try:
        await asyncio.sleep(0.3)
        seat = 3
        await client.call("r1", "join", "alice", seat=seat, buy_in=2000)
        turn = await until(
            "alice's turn",
            lambda: next((m for _, m in frames if m["type"] == "turn" and m["seat"] == seat), None),
        )
        redis.stop()
        stopped = time.monotonic()
        await asyncio.sleep(12)  # more than twice her turn
        redis.start()
        # Her commands reach the table again; the first snapshot she gets, published by the
        # owner when it is back in reach or answering her, shows the same hand, still her
        # turn: her clock stood still while she could not be reached.
        command = asyncio.create_task(until_ok(lambda: client.call("r1", "snapshot", "alice")))

        def first_snapshot() -> dict[str, Any] | None:
            for at, message in frames:
                if at > stopped and message["type"] == "snapshot":
                    return message
            if command.done() and command.exception() is None:
                return dict(json.loads(command.result()["frames"][0]))
            return None

        snapshot = await until("a snapshot once the broker is back", first_snapshot, 30)
        await command
        assert snapshot["view"]["hand"] == turn["hand"]
        assert snapshot["view"]["to_act"] == seat
    finally:
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder
        with contextlib.suppress(RedisError, OSError):
            await client.close()

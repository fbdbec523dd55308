"""A worker that cannot show its lease valid (docs/cluster.md, "Failover"), on real processes:

- paused (SIGSTOP) past its lease while a player's command waits on its direct link: woken, it
  does not answer ``ok`` for a table that another worker took meanwhile; the command goes to
  the table's stream and its owner runs it, so an ``ok`` is one the owner applied;
- its PostgreSQL backends stopped (SIGSTOP) for several leases: its renewal hangs, and within
  the lease its clocks stop (its bots act no more) while another worker takes its tables; the
  books pass the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from feltroom.cluster.client import TableClient
from feltroom.room import audit
from feltroom.store import open_storage
from services import RedisServer

from .support import (
    Workers,
    batches,
    leases,
    play_two,
    players,
    sign_in,
    sit_two,
    until,
    ws_client,
)
from .test_gateways import _dealt, _explain, _until

LEASE = 2.0


def test_a_worker_paused_past_its_lease_answers_ok_only_for_what_the_owner_applied(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    players(store, "alice", "bob")
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=LEASE)
    try:
        cluster.start("worker-a", load_tables=True, direct=True)
        cluster.start("worker-b", direct=True)
        port = cluster.start_gateway("gateway")
        where = cluster.owners(cluster.one_table_each(store))
        table_id = next(t for t, w in sorted(where.items()) if w == "worker-b")
        asyncio.run(_leave_while_paused(cluster, store, port, table_id))
    finally:
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _leave_while_paused(cluster: Workers, store: Any, port: int, table_id: str) -> None:
    alice_token = await sign_in(port, "alice")
    bob_token = await sign_in(port, "bob")
    tap = TableClient(cluster.broker)
    await tap.start()
    tasks: list[asyncio.Task[None]] = []
    paused = cluster.processes["worker-b"]
    try:
        async with (
            ws_client(port, "alice", alice_token) as (alice, _),
            ws_client(port, "bob", bob_token) as (bob, _),
        ):
            seats = await sit_two(alice, bob, table_id)
            tasks = play_two(alice, bob, table_id, seats)
            await _until(
                "alice dealt in",
                lambda: _dealt(alice) >= 1,
                90,
                lambda: _explain(cluster, alice, bob),
            )
            tasks[0].cancel()  # (bob plays on: a hand she leaves in ends without her)
            await asyncio.gather(tasks[0], return_exceptions=True)
            # The owner stops in her hand; she leaves meanwhile (on its direct link), and it
            # wakes once the other worker has taken the table.
            epoch = leases(store)[table_id].epoch
            os.kill(paused.pid, signal.SIGSTOP)
            try:
                sent = await alice.send({"type": "leave", "table": table_id})
                await until(
                    "the other worker to take the table",
                    lambda: (row := leases(store).get(table_id)) is not None and row.epoch > epoch,
                    60,
                )
            finally:
                os.kill(paused.pid, signal.SIGCONT)
            reply = await alice.reply(sent, 30)
            if reply["type"] == "ok":
                # The owner applied it: she is seated there no more (at once, or after the
                # hand in play, folded at her turn: R-SIT-1).
                async def seated() -> bool:
                    answer = await tap.call(table_id, "snapshot", "alice")
                    view = json.loads(answer["frames"][0])["view"]
                    return any(s.get("player") == "alice" for s in view["seats"])

                end = time.monotonic() + 90
                while await seated():
                    assert time.monotonic() < end, (
                        f"alice was told ok but is still seated at the owner\n{cluster.tails()}"
                    )
                    await asyncio.sleep(0.2)
            else:  # (nothing changed; she may send it again)
                assert reply.get("details", {}).get("reason") == "table_unavailable", reply
    finally:
        for task in tasks:
            task.cancel()
        await tap.close()


def test_a_worker_whose_database_backends_stop_stops_its_clocks_within_the_lease(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=LEASE, think=0.05)
    try:
        cluster.start("worker-a", load_tables=True)
        cluster.start("worker-b")
        where = cluster.owners(cluster.one_table_each(store))
        table_id = next(t for t, w in sorted(where.items()) if w == "worker-b")
        pid = cluster.processes["worker-b"].pid
        engine = create_engine(pg_url)
        try:
            late = asyncio.run(_backends_stopped(cluster, store, engine, pid, table_id))
        finally:
            engine.dispose()
        log = cluster.log("worker-b")
        assert "no lease renewed for" in log, cluster.tails()
        # Its bots acted no more once its lease was gone (a lease and a second for the look).
        assert not late, late[:3]
    finally:
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def _backends(engine: Any, pid: int) -> list[int]:
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
            {"name": f"feltroom-worker-{pid}"},
        )
        return [int(row.pid) for row in rows]


async def _backends_stopped(
    cluster: Workers, store: Any, engine: Any, pid: int, table_id: str
) -> list[dict[str, Any]]:
    """Stop worker-b's backends: within the lease and a few seconds its clocks stop; they stay
    stopped until the other worker took its table, or three leases (a backend stopped in the
    middle of a renewal holds the lease's row: nobody can take it). The batches worker-b
    published at the table between a lease and a second after the stop and their restart."""
    tap = TableClient(cluster.broker)
    await tap.start()
    heard: list[dict[str, Any]] = []

    async def record() -> None:
        async for batch in batches(tap, table_id):
            heard.append(batch)

    recorder = asyncio.create_task(record())
    stopped: list[int] = []
    try:
        await until("the table's batches", lambda: len(heard) > 3, 60)
        owner = heard[-1]["owner"]
        epoch = leases(store)[table_id].epoch
        stopped = await asyncio.to_thread(_backends, engine, pid)
        assert stopped, "no backend of worker-b's found"
        at = time.time()
        for backend in stopped:
            os.kill(backend, signal.SIGSTOP)
        await until(
            "worker-b's clocks to stop",
            lambda: "the books are out of reach" in cluster.log("worker-b"),
            LEASE + 10,
        )
        await until(
            "the other worker to take the table, or three leases",
            lambda: (
                time.time() > at + 3 * LEASE
                or ((row := leases(store).get(table_id)) is not None and row.epoch > epoch)
            ),
            60,
        )
        await asyncio.sleep(0)  # (the batches heard so far are in)
    finally:
        resumed = time.time()
        for backend in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(backend, signal.SIGCONT)
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder
        await tap.close()
    return [b for b in heard if b["owner"] == owner and at + LEASE + 1.0 < b["at"] < resumed]

"""Rebalancing between live workers (docs/cluster.md), on a real PostgreSQL and a real Redis: a
table moves from one worker to another only between hands, and a move voids no hand — when a
worker joins (the first one hands a table over) and when a worker leaves cleanly (SIGTERM: the
other one takes its table). The hands are read back from the database; the books pass the
audit."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.store import open_storage
from services import RedisServer

from .support import (
    PASSWORD,
    Workers,
    free_seats,
    leases,
    play_along,
    sign_in,
    wait_for,
    ws_client,
)


def _hands(store: Any) -> list[tuple[int, str, str]]:
    """Every hand of the books: (hand id, table, status)."""
    with store.transaction(write=False) as tx:
        rows = tx.c.exec_driver_sql("SELECT hand_id, table_id, status FROM hands ORDER BY hand_id")
        return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


def _void(store: Any) -> list[tuple[int, str, str]]:
    with store.transaction(write=False) as tx:
        rows = tx.c.exec_driver_sql(
            "SELECT hand_id, table_id, record FROM hands WHERE status = 'void' ORDER BY hand_id"
        )
        return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


def _settled_after(store: Any, table_id: str, after: int) -> list[int]:
    """The hands settled at ``table_id`` whose id is above ``after`` (dealt later)."""
    return [
        hand_id
        for hand_id, table, status in _hands(store)
        if table == table_id and status == "settled" and hand_id > after
    ]


def test_a_worker_joining_takes_tables_between_hands_and_no_hand_is_void(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Issue 16 (rebalancing): worker a holds both tables, its house bots playing; worker b joins
    and a hands one table over between hands: its lease epoch grows, b settles new hands there,
    and no hand of the books is void. The books pass the audit."""
    store = open_storage(pg_url)
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=2.0, think=0.3)
    try:
        workers.start("worker-a", load_tables=True)
        before = wait_for(
            "worker a to own both tables",
            lambda: (found := leases(store)) and len(found) == 2 and found,
            60,
        )
        assert set(workers.owners(before).values()) == {"worker-a"}, workers.tails()
        # Hands in progress and settled at both tables under a.
        wait_for(
            "a settled hand at each table under worker a",
            lambda: {t for _, t, s in _hands(store) if s == "settled"} == {"c1", "c2"},
            90,
        )
        workers.start("worker-b")
        after = workers.one_table_each(store)
        owners = workers.owners(after)
        assert sorted(owners.values()) == ["worker-a", "worker-b"], owners
        moved = next(t for t, name in owners.items() if name == "worker-b")
        kept = next(t for t, name in owners.items() if name == "worker-a")
        # The moved table's lease has a new owner, at a higher epoch; the other one's is a's.
        assert after[moved].epoch > before[moved].epoch, (before, after)
        assert after[kept].epoch == before[kept].epoch, (before, after)
        last = max((h for h, t, _ in _hands(store) if t == moved), default=0)
        # Play goes on at the moved table under b: new hands dealt and settled there.
        wait_for(
            f"two new hands settled at {moved} under worker b",
            lambda: len(_settled_after(store, moved, last)) >= 2,
            90,
        )
        assert workers.owners(leases(store))[moved] == "worker-b"
        voided = _void(store)
        assert not voided, f"hands void by the hand-over: {voided}\n{workers.tails()}"
    finally:
        workers.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def test_a_worker_leaving_cleanly_hands_its_tables_over_between_hands(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Issue 16 (rebalancing): workers a and b own a table each, house bots playing; b is
    stopped cleanly (SIGTERM, as an operator stops it) in the middle of play: it deals no new
    hand, lets the hand in play end and settle, and gives its lease up; a takes the table (a
    higher epoch) and plays on. No hand of the books is void; the books pass the audit."""
    store = open_storage(pg_url)
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=2.0, think=0.3)
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        before = workers.one_table_each(store)
        moved = next(t for t, name in workers.owners(before).items() if name == "worker-b")
        settled = len(_settled_after(store, moved, 0))
        wait_for(
            f"a hand settled at {moved} under worker b",
            lambda: len(_settled_after(store, moved, 0)) > settled,
            90,
        )
        os.kill(workers.processes["worker-b"].pid, signal.SIGTERM)
        assert workers.processes["worker-b"].wait(30) == 0, workers.tails()
        after = workers.both_tables_of(store, "worker-a")
        assert after[moved].epoch > before[moved].epoch, (before, after)
        last = max((h for h, t, _ in _hands(store) if t == moved), default=0)
        wait_for(
            f"two new hands settled at {moved} under worker a",
            lambda: len(_settled_after(store, moved, last)) >= 2,
            90,
        )
        assert "handed over between hands" in workers.log("worker-b"), workers.tails()
        voided = _void(store)
        assert not voided, f"hands void by the clean leave: {voided}\n{workers.tails()}"
    finally:
        workers.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def test_a_person_acts_in_the_last_hand_of_a_table_being_handed_over(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Issue 16 (rebalancing): a person plays, through a gateway, at the table of a worker that
    is stopped cleanly. While the table's last hand there is in play the worker still reads her
    commands, so she acts in it (she does not time out, which would keep the hand going past the
    hand-over's limit and void it); the hand settles, the table moves, no hand is void."""
    store = open_storage(pg_url)
    Accounts(store, argon2=Argon2Settings.cheap()).sign_up("alice", PASSWORD)
    Cashier(store).grant("alice", 100_000, "alice-grant")
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=2.0, think=0.3)
    try:
        ports, where = workers.start_two_by_two(store)
        moved = next(t for t, name in where.items() if name == "worker-b")
        asyncio.run(_play_through_the_leave(workers, ports["A"], moved))
        after = workers.both_tables_of(store, "worker-a")
        assert moved in after
        voided = _void(store)
        assert not voided, f"hands void by the hand-over: {voided}\n{workers.tails()}"
    finally:
        workers.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _play_through_the_leave(workers: Workers, port: int, table_id: str) -> None:
    token = await sign_in(port, "alice")
    async with ws_client(port, "alice", token) as (alice, _):
        seat = (await free_seats(alice, table_id))[0]
        sat = await alice.request({"type": "sit", "table": table_id, "seat": seat, "buy_in": 2000})
        assert sat["type"] == "ok", sat
        # Her turn comes; worker b is told to stop before she answers it, so the hand-over
        # waits for the hand she is to act in.
        await alice.wait_for(
            lambda m: m["type"] == "turn" and m.get("seat") == seat and bool(m.get("legal")), 90
        )
        os.kill(workers.processes["worker-b"].pid, signal.SIGTERM)
        await asyncio.sleep(0.5)
        player = asyncio.create_task(play_along(alice, table_id, seat))
        try:
            code = await asyncio.to_thread(workers.processes["worker-b"].wait, 40)
            assert code == 0, workers.tails()
        finally:
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
    timeouts = [
        m for m in alice.log if m.get("kind") in ("timed_out", "sat_out") and m.get("seat") == seat
    ]
    assert not timeouts, timeouts
    assert "handed over between hands" in workers.log("worker-b"), workers.tails()

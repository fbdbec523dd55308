"""A command to a table whose owner the sender knows comes whole in its hint (docs/cluster.md):
the gateway appends it to the table's stream and publishes it on the owner's wake channel in
one round trip; the owner runs it from the hint and takes its entry from the stream (read
without acknowledgement) in the round trip that carries the reply. A command sent without a
hint, or with a hint to a worker that is not the owner, is read from the stream and
acknowledged; a command that both a read and its hint bring runs once. On a real PostgreSQL and
a real Redis, with a worker process."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from feltroom.cluster.broker import GROUP, command_stream, connect, reply_channel, wake_channel
from feltroom.cluster.client import TableClient
from feltroom.cluster.worker import ClusterWorker
from feltroom.room import audit
from feltroom.store import SqlStorage, open_storage
from services import RedisServer

from .support import Workers, leases, players, wait_for


def test_a_hinted_command_runs_from_its_hint_once_and_the_others_from_the_stream(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    players(store, "alice", "bob")
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=4.0)
    try:
        workers.start("a", load_tables=True)
        wait_for("the worker to own both tables", lambda: len(leases(store)) == 2, 60)
        owner = leases(store)["c1"].owner
        asyncio.run(_commands(workers.broker, owner))
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _commands(broker: str, owner: str) -> None:
    redis = connect(broker)
    client = TableClient(broker, timeout=5.0, name="hints-test")
    await client.start()
    try:
        stream = command_stream("c1")
        # With the owner known: run from the hint; its entry taken, nothing pending.
        client.owners["c1"] = owner
        assert await client.call("c1", "join", "alice", seat=1, buy_in=2000) == {"stack": 2000}
        assert await client.call("c1", "join_waiting_list", "bob") == {"place": 1}
        await _until_async(lambda: _taken(redis, stream))
        assert await redis.xlen(stream) == 2
        # Without a hint: read from the stream, acknowledged.
        del client.owners["c1"]
        assert await client.call("c1", "leave_waiting_list", "bob") == {}
        await _until_async(lambda: _taken(redis, stream))
        # A hint to a worker that does not own the table: nobody runs it from the hint; the
        # owner reads it from the stream.
        client.owners["c1"] = "nobody.0000"
        assert await client.call("c1", "join_waiting_list", "bob") == {"place": 1}
        await _until_async(lambda: _taken(redis, stream))
        assert await redis.xlen(stream) == 4

        pubsub = redis.pubsub()
        await pubsub.subscribe(reply_channel("hand-made"))
        replies: list[dict[str, Any]] = []

        async def answered(count: int) -> bool:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            if message is not None:
                replies.append(json.loads(message["data"]))
            return len(replies) >= count

        def command(table_id: str, request: str, op: str) -> dict[str, str]:
            return {
                "id": request,
                "reply": "hand-made",
                "op": op,
                "player": "bob",
                "args": "{}",
                "deadline": repr(time.time() + 60),
            }

        # A hint alone (no entry in the stream): only the hint can have run it.
        hint_only = command("c2", "only-hint", "join_waiting_list")
        await redis.publish(wake_channel(owner), f"c2\n{json.dumps(hint_only)}")
        await _until_async(lambda: answered(1))
        assert replies == [{"id": "only-hint", "ok": True, "result": {"place": 1}}]
        assert await redis.xlen(command_stream("c2")) == 0

        # Two commands at two tables, each appended and its hint sent three times (a read and
        # its hint, or a hint again): each runs once, and is answered once.
        replies.clear()
        twice = [
            ("c1", command("c1", "once-c1", "leave_waiting_list")),
            ("c2", command("c2", "once-c2", "leave_waiting_list")),
        ]
        for table_id, fields in twice:
            await redis.xadd(command_stream(table_id), fields)  # type: ignore[arg-type]
        for _ in range(3):
            for table_id, fields in twice:
                await redis.publish(wake_channel(owner), f"{table_id}\n{json.dumps(fields)}")
        await _until_async(lambda: answered(2))
        for _ in range(10):  # (any other answer would come within these two seconds)
            await answered(3)
        assert sorted(replies, key=lambda reply: str(reply["id"])) == [
            {"id": "once-c1", "ok": True, "result": {}},
            {"id": "once-c2", "ok": True, "result": {}},
        ]
        await _until_async(lambda: _taken(redis, stream))
        await _until_async(lambda: _taken(redis, command_stream("c2")))
        await pubsub.aclose()  # type: ignore[no-untyped-call]

        # A bad hint (not a command) is logged and dropped; the worker goes on.
        await redis.publish(wake_channel(owner), "c1\nnot json")
        client.owners["c1"] = owner
        assert await client.call("c1", "leave", "alice") == {}
    finally:
        await client.close()
        await redis.aclose()


async def _taken(redis: Any, stream: str) -> bool:
    """Every entry of the stream read by its owner, and none left unacknowledged."""
    groups = await redis.xinfo_groups(stream)
    return bool(groups and groups[0]["lag"] == 0 and groups[0]["pending"] == 0)


async def _until_async(check: Any, seconds: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not within {seconds} s: {check}")
        await asyncio.sleep(0.05)


def test_what_a_read_brings_is_started_once_acknowledged_or_given_back(
    storage: SqlStorage,
) -> None:
    """The worker's handling of the entries a read brings (no broker: its outbox is read): an
    entry its hint started is only acknowledged (a sweep's read) or left alone (the read after
    a hinted command, without acknowledgement); an empty one (deleted) is acknowledged; one of
    a table the worker no longer holds, read without acknowledgement, goes back to its stream
    for the table's next owner and is not taken as started."""
    worker = ClusterWorker(storage, "redis://:unused@127.0.0.1:9/0")
    stream = command_stream("gone")
    fields = {"id": "7", "reply": "gw", "op": "sit_out", "player": "ann", "args": "{}"}
    worker._started[("gw", "7")] = time.monotonic()
    assert worker._took([(stream, "5-0", fields)]) == 0
    assert worker._took([(stream, "5-0", fields)], acknowledged=False) == 0
    assert worker._took([(stream, "6-0", {})]) == 0
    other = {**fields, "id": "8"}
    assert worker._took([(stream, "9-0", other)], acknowledged=False) == 0
    sent = []
    while not worker._outbox.empty():
        sent.append(worker._outbox.get_nowait())
    assert sent == [
        ("XACK", stream, GROUP, "5-0"),
        ("XACK", stream, GROUP, "6-0"),
        (
            "XADD",
            stream,
            "*",
            "id",
            "8",
            "reply",
            "gw",
            "op",
            "sit_out",
            "player",
            "ann",
            "args",
            "{}",
        ),
    ]
    assert ("gw", "8") not in worker._started

"""How a gateway forwards a table's batches around a command at the table's owner.

A person's ``sit`` goes to the owner, which seats them and replies with a snapshot; the hand the
sit lets start is published at once, and its batch may reach the gateway before the reply. The
gateway must hold it for the connection (which watches the table only once the reply says so)
and forward it after the snapshot: dropped, the person saw no hand and no turn and timed out
(found by `bench cluster`, whose bots timed out right after sitting)."""

from __future__ import annotations

import asyncio
import json

from feltroom.cluster.client import TableClient
from feltroom.cluster.gateway import GatewayHub
from feltroom.room import Accounts
from feltroom.server import protocol
from feltroom.server.session import Connection
from feltroom.store.sql import SqlStorage


def _batch(seq: int, kind: str) -> dict[str, object]:
    frame = protocol.encode({"type": "event", "table": "t1", "hand": 7, "kind": kind})
    return {"table": "t1", "seq": seq, "epoch": 1, "observer": [frame], "players": {"ann": [frame]}}


def test_a_batch_that_comes_before_the_reply_to_sit_is_forwarded_after_its_snapshot(
    storage: SqlStorage, accounts: Accounts
) -> None:
    async def main() -> list[dict[str, object]]:
        # No broker: the test hands the gateway the batch and the reply itself.
        client = TableClient("redis://:unused@127.0.0.1:9/0")
        hub = GatewayHub(storage, accounts, client)
        connection = Connection(hub, player="ann")
        async with hub._holding(connection, "t1") as key:
            hub._deliver(_batch(3, "player_seated"))  # before the snapshot: shown by it
            hub._deliver(_batch(4, "hand_started"))  # after it: the reply has not come yet
            snapshot = protocol.encode({"type": "snapshot", "table": "t1", "view": {}})
            hub._watch(connection, "t1")  # the reply says the connection watches the table
            hub._send_result(connection, key, {"frames": [snapshot], "epoch": 1, "seq": 3})
        hub._deliver(_batch(5, "posted"))
        await client.redis.aclose()
        sent = []
        while not connection.outbox.empty():
            frame = connection.outbox.get_nowait()
            assert frame is not None
            sent.append(json.loads(frame))
        return sent

    sent = asyncio.run(main())
    assert [m.get("kind", m["type"]) for m in sent] == ["snapshot", "hand_started", "posted"]

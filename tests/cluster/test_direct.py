"""The direct link (docs/cluster.md, "The direct link"; ``feltroom.cluster.direct``).

Two workers with direct links and a gateway, on a real PostgreSQL and a real Redis: two players
play at a table through the gateway while its commands, replies and batches go on the owner's
link (the broker appends no command to a stream and carries no batch); the owner is killed
(SIGKILL) and the gateway watches the table at its next owner, whose snapshot reaches the
players, who play on; the books pass the audit. Then the link's own rules, in process: the
key, a line too long, an unknown line, and what a lost link does to a call in flight."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from feltroom.cli import main
from feltroom.cluster.client import RemoteError, TableClient
from feltroom.cluster.direct import (
    MAX_KEY_LINE,
    MAX_LINE,
    DirectLink,
    DirectServer,
    Peer,
    link_key,
    parse_address,
)
from feltroom.room import audit
from feltroom.store import open_storage
from services import RedisServer

from .support import (
    Workers,
    leases,
    play_two,
    players,
    sign_in,
    sit_two,
    ws_client,
)
from .test_gateways import _dealt, _explain, _until


def test_a_table_is_played_on_its_owners_direct_link_and_at_its_next_owner_after_a_kill(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    players(store, "alice", "bob")
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=1.0)
    try:
        cluster.start("worker-a", load_tables=True, direct=True)
        cluster.start("worker-b", direct=True)
        port = cluster.start_gateway("gateway")
        where = cluster.owners(cluster.one_table_each(store))
        table_id = next(t for t, w in sorted(where.items()) if w == "worker-b")
        asyncio.run(_play(cluster, port, table_id, redis_server.url))
        # The killed worker's table went to the other; nothing was lost or made.
        assert cluster.owners(leases(store))[table_id] == "worker-a"
    finally:
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _play(cluster: Workers, port: int, table_id: str, broker_url: str) -> None:
    redis = aioredis.from_url(broker_url)
    alice_token = await sign_in(port, "alice")
    bob_token = await sign_in(port, "bob")
    tasks: list[asyncio.Task[None]] = []
    try:
        # Each worker gives its link's address in its key.
        keys = [key async for key in redis.scan_iter(match="feltroom:worker:*")]
        addresses = {(await redis.get(key) or b"").decode() for key in keys}
        assert addresses == {
            f"unix:{cluster.folder}/worker-a.sock",
            f"unix:{cluster.folder}/worker-b.sock",
        }, addresses
        async with (
            ws_client(port, "alice", alice_token) as (alice, _),
            ws_client(port, "bob", bob_token) as (bob, _),
        ):
            seats = await sit_two(alice, bob, table_id)
            before = await _stats(redis)
            tasks = play_two(alice, bob, table_id, seats)
            await _until(
                "two hands dealt to alice and bob on the direct link",
                lambda: _dealt(alice) >= 2 and _dealt(bob) >= 2,
                90,
                lambda: _explain(cluster, alice, bob),
            )
            after = await _stats(redis)
            # Their actions, their replies and the table's batches did not cross the broker:
            # no command was appended to a stream, no batch published.
            assert after["xadd"] == before["xadd"], (before, after)
            assert after["publish"] - before["publish"] < 5, (before, after)
            acted = [m for m in alice.log if m["type"] == "event" and m.get("table") == table_id]
            assert acted, alice.log[-5:]

            # The owner dies: the gateway watches the table at its next owner, whose snapshot
            # reaches the players (a void hand, R-TIME-4's protections aside), and play goes on.
            seen = len(alice.log)
            cluster.kill("worker-b")
            await _until(
                "a snapshot of the table from its next owner",
                lambda: any(
                    m["type"] == "snapshot" and m.get("table") == table_id for m in alice.log[seen:]
                ),
                60,
                lambda: _explain(cluster, alice, bob),
            )
            # A turn that ran out while the table changed hands sat its player out.
            dealt = _dealt(alice)
            end = time.monotonic() + 90
            while _dealt(alice) <= dealt + 1:
                assert time.monotonic() < end, _explain(cluster, alice, bob)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                for client in (alice, bob):
                    back = await client.request({"type": "sit_in", "table": table_id})
                    assert back["type"] in ("ok", "error"), back
                tasks = play_two(alice, bob, table_id, seats)
                with contextlib.suppress(AssertionError):
                    await _until("alice dealt", lambda: _dealt(alice) > dealt + 1, 10)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for client in (alice, bob):
                left = await client.request({"type": "leave", "table": table_id})
                assert left["type"] in ("ok", "error"), left
    finally:
        for task in tasks:
            task.cancel()
        await redis.aclose()


async def _stats(redis: Any) -> dict[str, int]:
    info = await redis.info("commandstats")
    return {
        name: int(info.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in ("xadd", "publish")
    }


# ---------------------------------------------------------------------- the link itself


class _Heard:
    def __init__(self) -> None:
        self.commands: list[bytes] = []
        self.batches: list[bytes] = []
        self.replies: list[bytes] = []
        self.lost: list[DirectLink] = []

    def command(self, peer: Peer, command: bytes) -> None:
        self.commands.append(command)
        peer.send(b"R", b'{"id":"' + command + b'","ok":true}')


async def _server(tmp_path: Path, heard: _Heard) -> DirectServer:
    server = DirectServer(link_key("redis://:secret@127.0.0.1:1/0"), heard.command)
    address = await server.start(f"unix:{tmp_path}/w.sock")
    assert address == f"unix:{tmp_path}/w.sock"
    return server


async def _link(server: DirectServer, heard: _Heard, key: bytes | None = None) -> DirectLink:
    return await DirectLink.open(
        "w",
        server.address,
        key or server.key,
        on_batch=heard.batches.append,
        on_reply=heard.replies.append,
        on_lost=heard.lost.append,
    )


async def _soon(check: Any, seconds: float = 5.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "gave up waiting"
        await asyncio.sleep(0.01)


async def _closed_by_the_worker(reader: asyncio.StreamReader, seconds: float = 5) -> None:
    """The worker closed the connection: an end of stream (or a write it refused)."""
    with contextlib.suppress(ConnectionError):
        assert await asyncio.wait_for(reader.read(), seconds) == b""


def test_the_link_carries_commands_replies_and_the_watched_tables_batches(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        heard = _Heard()
        server = await _server(tmp_path, heard)
        link = await _link(server, heard)
        link.watch("t1")
        link.command("r1", b"one")
        await _soon(lambda: heard.replies)
        assert heard.commands == [b"one"]
        assert heard.replies == [b'{"id":"one","ok":true}']
        server.send_batch("t1", b'{"seq":1}')
        server.send_batch("t2", b'{"seq":1}')  # (not watched)
        link.unwatch("t1")
        link.command("r2", b"two")  # (after the unwatch, on the same link)
        await _soon(lambda: len(heard.replies) == 2)
        server.send_batch("t1", b'{"seq":2}')
        link.command("r3", b"three")
        await _soon(lambda: len(heard.replies) == 3)
        assert heard.batches == [b'{"seq":1}']
        assert server.watchers == {}
        await server.close()
        await _soon(lambda: heard.lost)
        assert heard.lost == [link]
        assert link.sent == {"r1", "r2", "r3"}  # (the client discards them as answered)
        assert not Path(f"{tmp_path}/w.sock").exists()

    asyncio.run(run())


@pytest.mark.parametrize(
    ("first", "then"),
    [
        (b"Hnot-the-key\n", b"Cx\n"),  # the wrong key
        (b"Cx\n", b""),  # no key first
        (None, b"Zwhat\n"),  # an unknown line
        (None, b"W" + b"t" * (MAX_LINE + 1)),  # a line too long
        (b"H" + b"k" * (6 << 20), b""),  # a key line of 6 MiB (issue 40)
        (b"H" + b"k" * MAX_KEY_LINE, b""),  # a key line just too long, no newline yet
    ],
)
def test_the_link_closes_on_a_wrong_key_an_unknown_line_or_a_line_too_long(
    tmp_path: Path, first: bytes | None, then: bytes
) -> None:
    async def run() -> None:
        heard = _Heard()
        server = await _server(tmp_path, heard)
        reader, writer = await asyncio.open_unix_connection(server.address[len("unix:") :])
        hello = first if first is not None else b"H" + server.key + b"\n"
        with contextlib.suppress(ConnectionError):  # (it may close before all is written)
            writer.write(hello + then)
            await writer.drain()
        await _closed_by_the_worker(reader)
        assert heard.commands == []
        assert server.watchers == {}
        writer.close()
        await server.close()

    asyncio.run(run())


def test_strangers_are_few_and_must_send_the_key_within_seconds(tmp_path: Path) -> None:
    """Issue 40: a peer without the key is closed after ``key_seconds``; beyond
    ``max_strangers`` of them at once a new one is closed as it connects; a gateway with the
    key links as ever once they are gone."""

    async def run() -> None:
        heard = _Heard()
        key = link_key("redis://:secret@127.0.0.1:1/0")
        server = DirectServer(key, heard.command, key_seconds=1.0, max_strangers=3)
        await server.start(f"unix:{tmp_path}/w.sock")
        path = server.address[len("unix:") :]
        started = time.monotonic()
        strangers = [await asyncio.open_unix_connection(path) for _ in range(3)]
        for _, writer in strangers:
            writer.write(b"H")  # a key line begun, never ended
        await _soon(lambda: len(server.strangers) == 3)
        reader, writer = await asyncio.open_unix_connection(path)  # one too many
        await _closed_by_the_worker(reader)
        assert time.monotonic() - started < 1.0 or not server.strangers
        writer.close()
        for reader, writer in strangers:  # closed once their time is up
            await _closed_by_the_worker(reader, 10)
            writer.close()
        assert time.monotonic() - started >= 1.0
        await _soon(lambda: not server.strangers and not server.peers)
        link = await _link(server, heard)
        link.command("r1", b"one")
        await _soon(lambda: heard.replies)
        assert server.strangers == set()
        await _soon(lambda: not link.closed and len(server.peers) == 1)
        await asyncio.sleep(0)  # (the signed-in link outlives key_seconds: its timer is off)
        await server.close()

    asyncio.run(run())


def test_a_call_in_flight_on_a_lost_link_fails_at_once(tmp_path: Path) -> None:
    async def run() -> None:
        server = DirectServer(link_key("redis://:secret@127.0.0.1:1/0"), lambda peer, c: None)
        await server.start(f"unix:{tmp_path}/w.sock")
        client = TableClient("redis://:secret@127.0.0.1:1/0", timeout=30)
        client.owners = {"t1": "w"}
        client.addresses = {"w": server.address}
        call = asyncio.create_task(client.call("t1", "act", "alice", action="fold"))
        await _soon(lambda: server.peers)  # (the command is at the worker, unanswered)
        started = time.monotonic()
        await server.close()
        with pytest.raises(RemoteError) as failed:
            await call
        assert time.monotonic() - started < 5
        assert failed.value.kind == "table_unavailable"
        assert "the link to its owner was lost" in failed.value.message
        await client.close()

    asyncio.run(run())


def test_a_direct_address_is_checked() -> None:
    assert parse_address("10.0.0.5:7000") == ("10.0.0.5", 7000)
    assert parse_address(":0") == ("0.0.0.0", 0)
    assert parse_address("unix:/run/w.sock") == "/run/w.sock"
    for bad in ("w1", "h:99999", "unix:", "h:x"):
        with pytest.raises(ValueError, match=r"HOST:PORT|unix:PATH"):
            parse_address(bad)


def test_the_worker_refuses_a_bad_direct_address(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--role", "worker", "--direct", "nowhere"])
    assert "a direct address is HOST:PORT" in capsys.readouterr().err


def test_the_links_key_comes_from_the_brokers_password() -> None:
    assert link_key("redis://:a@h:1/0") == link_key("redis://:a@other:2/3")
    assert link_key("redis://:a@h:1/0") != link_key("redis://:b@h:1/0")
    assert link_key("unix://:a@/x.sock?db=0") == link_key("redis://:a@h:1/0")

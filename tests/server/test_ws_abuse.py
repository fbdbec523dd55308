"""The websocket protocol under abuse (issue 27): sign-out and expiry end a session's
connections at once (1008) and nothing they send afterwards is applied; a retried or doubled
``act`` names its turn and is refused (``stale_turn``) at a later one; rate-limit strikes decay;
a reader that never reads is closed with 1008; ``X-Forwarded-For`` from loopback is not
believed."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import struct
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from feltroom.room import audit
from feltroom.room.storage import SessionRow
from feltroom.server import create_app
from feltroom.server.app import server_config
from feltroom.server.session import Closed, Hub, HubSettings
from feltroom.store import SqlStorage

from .live import HEADS_UP, Client, live_server, room_for


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


async def _closed_code(client: Client, timeout: float = 5.0) -> tuple[int, str]:
    """Receive until the server closes; the code and reason it closed with."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(_drain(client), timeout)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def _drain(client: Client) -> None:
    while True:
        await client.recv()


def _audit_passes(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["pass"] is True


# ------------------------------------------------------------------ point 3: sign-out, expiry


def test_signing_out_closes_the_sessions_connections_at_once(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            token = await live.account("alice")
            other = await live.account("alice")  # a second session of the same player
            async with (
                live.client("alice", token) as alice,
                live.client("alice", other) as elsewhere,
            ):
                async with httpx.AsyncClient(base_url=live.http) as http:
                    response = await http.post(
                        "/api/signout", headers={"Authorization": f"Bearer {token}"}
                    )
                    assert response.status_code == 200
                # Sent right after the sign-out: never applied.
                with contextlib.suppress(websockets.ConnectionClosed):
                    await alice.send({"type": "sit", "table": "hu", "seat": 1, "buy_in": 200})
                code, reason = await _closed_code(alice)
                assert code == 1008
                assert "signed out" in reason
                assert not [m for m in alice.log if m["type"] == "ok"]
                assert room.seats_of("alice") == []
                # the other session is untouched
                assert (await elsewhere.request({"type": "ping"}))["type"] == "pong"
        _audit_passes(storage)

    _run(scenario())


def test_a_session_that_expires_closes_its_connections(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        room.accounts.session_seconds = 1.5
        settings = HubSettings(sweep_every=0.1)
        async with live_server(room, settings) as live:
            token = await live.account("alice")
            async with live.client("alice", token) as alice:
                assert (await alice.request({"type": "ping"}))["type"] == "pong"
                code, reason = await _closed_code(alice, 5.0)
                assert code == 1008
                assert "expired" in reason

    _run(scenario())


def test_a_closed_connection_handles_nothing_more(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        hub = Hub(room)
        connection = hub.open()
        connection.token_hash = "h"
        connection.player = "alice"
        assert hub.end_session("h") == 1
        with pytest.raises(Closed) as closed:
            await hub.receive(connection, '{"type": "ping", "id": 1}')
        assert closed.value.code == 1008

    _run(scenario())


# ------------------------------------------------------------------ point 6: stale actions


async def _turn(client: Client, seat: int) -> dict[str, Any]:
    return await client.wait_for(
        lambda m: m["type"] == "turn" and m["seat"] == seat and m["legal"] is not None
    )


def test_an_act_naming_an_earlier_turn_is_refused_stale_turn_and_changes_nothing(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                for client, seat in ((alice, 1), (bob, 2)):
                    reply = await client.request(
                        {"type": "sit", "table": "hu", "seat": seat, "buy_in": 200}
                    )
                    assert reply["type"] == "ok", reply
                first = await _turn(alice, 1)  # heads-up: the button acts first pre-flop
                hand = first["hand"]
                call: dict[str, Any] = {
                    "type": "act",
                    "table": "hu",
                    "hand": hand,
                    "action": "call",
                    "turn_id": first["turn_id"],
                }
                assert (await alice.request(call))["type"] == "ok"
                # the double click, at once: the turn is over
                doubled = await alice.request(call)
                assert doubled["code"] == "stale_turn", doubled
                turn = await _turn(bob, 2)
                await bob.request(
                    {
                        "type": "act",
                        "table": "hu",
                        "hand": hand,
                        "action": "check",
                        "turn_id": turn["turn_id"],
                    }
                )
                turn = await _turn(bob, 2)  # the flop: bob first
                await bob.request(
                    {
                        "type": "act",
                        "table": "hu",
                        "hand": hand,
                        "action": "bet",
                        "amount": 2,
                        "turn_id": turn["turn_id"],
                    }
                )
                second = await _turn(alice, 1)
                assert second["turn_id"] > first["turn_id"]
                runner = room.runners["hu"]
                log = list(runner.table.hand.log) if runner.table.hand else []
                # the pre-flop call retried on the flop, where a call is legal again: refused
                late = await alice.request(call)
                assert late["code"] == "stale_turn", late
                assert str(first["turn_id"]) in late["message"]
                assert runner.table.hand is not None
                assert list(runner.table.hand.log) == log
                # the same call naming this turn is applied
                now = await alice.request({**call, "turn_id": second["turn_id"]})
                assert now["type"] == "ok", now
                assert len(runner.table.hand.log) == len(log) + 1 or runner.table.hand.is_over
        _audit_passes(storage)

    _run(scenario())


# ------------------------------------------------------------------ point 9: strikes decay


def test_rate_limit_strikes_decay_over_time(storage: SqlStorage) -> None:
    async def scenario() -> None:
        now = [0.0]
        room = room_for(storage, HEADS_UP)
        settings = HubSettings(rate=0.001, burst=1.0, strikes=3, strike_decay=10.0)
        hub = Hub(room, settings, clock=lambda: now[0])
        connection = hub.open()
        frame = '{"type": "ping", "id": 1}'
        await hub.receive(connection, frame)  # the burst's one message
        for _ in range(3):
            await hub.receive(connection, frame)  # three strikes: at the limit, still open
        now[0] += 30.0  # three strikes decayed
        for _ in range(3):
            await hub.receive(connection, frame)
        with pytest.raises(Closed) as closed:
            await hub.receive(connection, frame)  # a sustained flood still closes
        assert closed.value.code == 1008

    _run(scenario())


# ------------------------------------------------------------------ point 9: a reader never reading


@contextlib.asynccontextmanager
async def _keepalive_server(storage: SqlStorage) -> AsyncIterator[int]:
    room = room_for(storage, HEADS_UP)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = server_config(create_app(room, drive=False))
    config.ws_ping_interval = 0.2
    config.ws_ping_timeout = 0.3
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        await task
        sock.close()


def _close_code(data: bytes) -> int | None:
    """The code of the close frame among the server's (unmasked) frames, if any."""
    at = 0
    while at + 2 <= len(data):
        opcode, length = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if length == 126:
            (length,) = struct.unpack("!H", data[at : at + 2])
            at += 2
        elif length == 127:
            (length,) = struct.unpack("!Q", data[at : at + 8])
            at += 8
        payload = data[at : at + length]
        at += length
        if opcode == 0x8:
            return int(struct.unpack("!H", payload[:2])[0])
    return None


def test_a_reader_that_never_reads_is_closed_1008(storage: SqlStorage) -> None:
    """It never answers the keepalive ping: the documented 1008, not uvicorn's 1011."""

    async def scenario() -> None:
        async with _keepalive_server(storage) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                (
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            assert b" 101 " in head
            await asyncio.sleep(1.5)  # reads nothing, answers no ping
            data = await asyncio.wait_for(reader.read(65536), 5)
            writer.close()
            assert _close_code(data) == 1008

    _run(scenario())


# ------------------------------------------------------------------ point 5: X-Forwarded-For


def test_rotating_x_forwarded_for_from_loopback_does_not_escape_the_address_limit(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live, httpx.AsyncClient(base_url=live.http) as http:
            codes = []
            for k in range(22):
                response = await http.post(
                    "/api/signin",
                    json={"name": f"nobody{k}", "password": "wrong password"},
                    headers={"X-Forwarded-For": f"198.51.100.{k + 1}"},
                )
                codes.append(response.status_code)
            assert codes[:20] == [401] * 20
            assert codes[20:] == [429, 429]

    _run(scenario())


def test_the_hub_purges_expired_sessions_from_the_database(storage: SqlStorage) -> None:
    """Issue 27, point 9: expired sessions do not pile up in the database."""

    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        room.accounts.sign_up("alice", "password-alice")
        live_token = room.accounts.sign_in("alice", "password-alice").token
        now = time.time()
        with storage.transaction() as tx:
            tx.add_session(SessionRow("e" * 64, "alice", now - 20, now - 10))
        hub = Hub(room, HubSettings(sweep_every=0.05, purge_every=0.1))
        hub.start()
        try:
            for _ in range(100):
                await asyncio.sleep(0.05)
                with storage.transaction(write=False) as tx:
                    if tx.get_session("e" * 64) is None:
                        break
            with storage.transaction(write=False) as tx:
                assert tx.get_session("e" * 64) is None
        finally:
            await hub.stop()
        assert room.accounts.authenticate(live_token) == "alice"  # a live one stays

    _run(scenario())

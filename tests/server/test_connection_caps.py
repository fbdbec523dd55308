"""Issue 40, item 6: websocket connections are capped per client address and per session (a
sign-in's token), per server; one more is closed with 1008 and a reason saying which limit;
a connection that ends gives its place back. The defaults leave a home game room (at least 32
from one address)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import websockets
from websockets.asyncio.client import connect

from feltroom.ops.config import ProtocolSection
from feltroom.server.session import HubSettings
from feltroom.store import SqlStorage

from .live import HEADS_UP, Client, live_server, room_for
from .test_ws import _audit_passes, _run


async def _refused(ws: websockets.ClientConnection) -> tuple[int, str]:
    """Receive until the server closes; the code and reason it closed with."""

    async def drain() -> None:
        while True:
            await ws.recv()

    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(drain(), 10)
    frame = closed.value.rcvd
    assert frame is not None
    return frame.code, frame.reason


def test_connections_beyond_the_address_and_session_caps_are_closed(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)
    settings = HubSettings(per_address=4, per_session=2)

    async def scenario() -> None:
        async with live_server(runtime, settings) as live, contextlib.AsyncExitStack() as stack:
            token = await live.account("alice")
            other = await live.account("alice")  # a second sign-in: a session of its own
            # the session cap: two connections with one token, the third is closed at hello
            held = [await stack.enter_async_context(live.client("alice", token)) for _ in range(2)]
            async with connect(live.ws_url) as ws:
                third = Client(ws, "alice")
                await third.send({"type": "hello", "version": 1, "token": token})
                code, reason = await _refused(ws)
            assert code == 1008
            assert reason == "too many connections with this sign-in (at most 2)"
            # another sign-in of the same player is another session
            held.append(await stack.enter_async_context(live.client("alice", other)))
            assert len(live.hub.by_player["alice"]) == 3
            # the address cap: a fourth connection from 127.0.0.1, then a fifth is closed as
            # it opens, before any hello
            spare = await stack.enter_async_context(live.client("alice", other, hello=False))
            async with connect(live.ws_url) as ws:
                code, reason = await _refused(ws)
            assert code == 1008
            assert reason == "too many connections from your address (at most 4)"
            assert len(live.hub.connections) == 4
            # a connection that ends gives its place back
            await spare.ws.close()
            async with live.client("alice", other) as again:
                assert (await again.request({"type": "ping"}))["type"] == "pong"
            for client in held:  # the ones held are served throughout
                assert (await client.request({"type": "ping"}))["type"] == "pong"

    _run(scenario())
    assert runtime.runners  # (the room ran throughout)
    _audit_passes(storage)


def test_the_defaults_leave_a_home_game_room() -> None:
    assert HubSettings().per_address >= 32
    assert ProtocolSection().connections_per_address == HubSettings().per_address
    assert ProtocolSection().connections_per_session == HubSettings().per_session

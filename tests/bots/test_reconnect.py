"""``feltroom bots`` under a failing server (issue 27, point 10): every connection error -- a
refused connection, a server that dies during the websocket handshake (``InvalidMessage``), an
HTTP error instead of the upgrade (``InvalidStatus``) -- is one ``ConnectionLost``, and a bot
reconnects with back-off instead of dying. And ``--accounts FILE`` reuses the accounts of an
earlier run (point 4)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import socket
import stat
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from feltroom.bots.client import Client, ConnectionLost, TableState, action_message
from feltroom.bots.runner import BotSettings, NetworkBot, _Team, run_bots
from feltroom.rules import Call
from feltroom.store import SqlStorage
from feltroom.strategy import RandomBrain
from server.live import HEADS_UP, live_server, room_for

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


async def _dies_during_handshake(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 101 Switching")  # cut off mid-line: the server died
    await writer.drain()
    writer.close()


async def _answers_500(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n")
    await writer.drain()
    writer.close()


async def _closes_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.close()


@contextlib.asynccontextmanager
async def _failing_server(handler: Handler, accepted: list[float]) -> AsyncIterator[str]:
    async def counted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(asyncio.get_running_loop().time())
        with contextlib.suppress(Exception):
            await handler(reader, writer)

    server = await asyncio.start_server(counted, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("handler", [_dies_during_handshake, _answers_500, _closes_at_once])
def test_every_connection_error_is_connection_lost(handler: Handler) -> None:
    async def scenario() -> None:
        async with _failing_server(handler, []) as url:
            client = Client(url)
            client.token = "token"
            with pytest.raises(ConnectionLost, match="cannot open"):
                await client.connect()

    _run(scenario())


def test_a_refused_connection_is_connection_lost() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario() -> None:
        client = Client(f"http://127.0.0.1:{port}")
        client.token = "token"
        with pytest.raises(ConnectionLost):
            await client.connect()

    _run(scenario())


def test_a_bot_reconnects_with_back_off_while_the_server_dies_in_the_handshake() -> None:
    async def scenario() -> None:
        accepted: list[float] = []
        async with _failing_server(_dies_during_handshake, accepted) as url:
            stop = asyncio.Event()
            bot = NetworkBot(
                BotSettings(url, 1),
                "net.x.0",
                RandomBrain(),
                ("t", False),
                {},
                _Team(1, stop),
                random.Random(1),
            )
            bot.client.token = "token"
            reconnecting = asyncio.create_task(bot._reconnect())
            await asyncio.sleep(1.6)
            assert not reconnecting.done()  # still trying: it did not die
            stop.set()
            await asyncio.wait_for(reconnecting, 5)
        # connections (sign-in attempts are HTTP to the same server, counted too), spaced out
        handshakes = len(accepted)
        assert 3 <= handshakes <= 12
        gaps = [b - a for a, b in itertools.pairwise(accepted)]
        assert max(gaps) >= 0.35  # backing off: 0.1, 0.2, 0.4, 0.8 s ...

    _run(scenario())


def test_bots_with_an_accounts_file_reuse_the_accounts_of_an_earlier_run(
    storage: SqlStorage, tmp_path: Path
) -> None:
    path = tmp_path / "bots.json"

    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            first = await run_bots(
                BotSettings(live.http, 2, hands=1, think=0.0, accounts=str(path))
            )
            assert first.ok, [b.problem for b in first.bots]
            second = await run_bots(
                BotSettings(live.http, 2, hands=1, think=0.0, accounts=str(path))
            )
            assert second.ok, [b.problem for b in second.bots]
            assert sorted(b.name for b in second.bots) == sorted(b.name for b in first.bots)
            third = await run_bots(
                BotSettings(live.http, 2, hands=1, think=0.0, accounts=str(path))
            )
            assert sorted(b.name for b in third.bots) == sorted(b.name for b in first.bots)

    _run(scenario())
    saved = json.loads(path.read_text())
    assert len(saved["accounts"]) == 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with storage.transaction(write=False) as tx:
        for entry in saved["accounts"]:
            assert tx.get_user(entry["name"]) is not None
    rows = storage.engine.connect().exec_driver_sql("SELECT count(*) FROM users").scalar()
    assert rows == 2  # two accounts made, over three runs


def test_the_bot_client_sends_the_turn_id_of_the_turn_it_answers() -> None:
    """Issue 27, point 6: the bot client names the turn in ``act``."""
    state = TableState("t")
    state.apply({"type": "snapshot", "table": "t", "you": 1, "view": {"turn_id": 3}})
    assert state.turn_id == 3
    turn = {"type": "turn", "table": "t", "hand": 9, "seat": 1, "turn_id": 7, "legal": None}
    state.apply(turn)
    assert state.turn_id == 7
    message = action_message("t", 9, Call(), None, state.turn_id)
    assert message == {"type": "act", "table": "t", "hand": 9, "action": "call", "turn_id": 7}
    assert "turn_id" not in action_message("t", 9, Call(), None)

"""Issue 40, item 7: half-sent HTTP requests (slow-loris) do not hold connections: a request's
headers must arrive within ``ReadTimeouts.headers`` of the server's starting to wait for them,
its body within ``ReadTimeouts.body`` of its headers; past either the server answers 408 and
closes. Whole requests, keep-alive and websockets are served as before."""

from __future__ import annotations

import asyncio
import time

import httpx

from feltroom.server.timeouts import ReadTimeouts
from feltroom.store import SqlStorage

from .live import HEADS_UP, live_server, room_for
from .test_ws import _audit_passes, _run

TIMEOUTS = ReadTimeouts(headers=1.0, body=1.0)


async def _answer(reader: asyncio.StreamReader, seconds: float = 15.0) -> bytes:
    """Everything the server sends until it closes the connection."""
    try:
        return await asyncio.wait_for(reader.read(), seconds)
    except ConnectionError:
        return b""


def test_half_sent_requests_are_answered_408_and_closed(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime, read_timeouts=TIMEOUTS) as live:
            token = await live.account("alice")
            started = time.monotonic()
            opened = []
            for k in range(60):  # silent, half a header, headers without their body
                reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
                if k % 3 == 1:
                    writer.write(b"GET /api/lobby HTTP/1.1\r\nHost: room\r\nX-Slow: ")
                elif k % 3 == 2:
                    writer.write(
                        b"POST /api/signin HTTP/1.1\r\nHost: room\r\n"
                        b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na'
                    )
                opened.append((reader, writer))
            trickled = bytearray()
            async with live.client("alice", token) as client:
                answers = await asyncio.gather(*(_answer(r) for r, _ in opened))
                # a trickle: one byte at a time, never a whole header block
                reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
                status = asyncio.create_task(reader.readline())
                for byte in b"GET /api/lobby HTTP/1.1\r\nHost: room\r\n" * 100:
                    if status.done():
                        break
                    try:
                        writer.write(bytes([byte]))
                        await writer.drain()
                    except ConnectionError:
                        break
                    trickled.append(byte)
                    await asyncio.sleep(0.01)
                trickle_answer = await asyncio.wait_for(status, 15)
                # the websocket, opened as an HTTP request, is out of the read clocks
                assert (await client.request({"type": "ping"}))["type"] == "pong"
            elapsed = time.monotonic() - started
            for k, answer in enumerate([*answers, trickle_answer]):
                assert answer.startswith(b"HTTP/1.1 408 "), (k, answer[:200])
            assert b"took over 1 s" in answers[2]
            assert len(trickled) < 3800  # it was cut off well before its end
            assert elapsed < 30
            for _, w in [*opened, (reader, writer)]:
                w.close()
            # whole requests still work, with keep-alive
            async with httpx.AsyncClient(base_url=live.http) as http:
                for _ in range(3):
                    assert (await http.get("/api/lobby")).status_code == 200
                signin = {"name": "alice", "password": "password-alice"}
                assert (await http.post("/api/signin", json=signin)).status_code == 200

    _run(scenario())
    _audit_passes(storage)


def test_the_read_timeouts_are_settings() -> None:
    from feltroom.ops.config import ServerSection

    server = ServerSection()
    assert (server.header_seconds, server.body_seconds) == (10.0, 30.0)
    assert ReadTimeouts() == ReadTimeouts(server.header_seconds, server.body_seconds)

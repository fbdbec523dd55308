"""The websocket endpoint ``/ws``: sockets in, ``Hub`` out (all protocol logic is in the hub).

- Browser connections must come from the served origin: a handshake whose ``Origin`` header
  names another origin is refused (HTTP 403) before it is accepted. Connections without an
  ``Origin`` (bots, terminal clients) are authenticated by their token alone (``hello``).
- A connection that does not say ``hello`` within ``HubSettings.hello_seconds`` is closed (1008).
- A connection beyond ``HubSettings.per_address`` from its address is closed as it opens, one
  beyond ``per_session`` with its token as it says hello (1008, saying which limit).
- Frames over 16 KiB close the connection with 1009 (uvicorn is also told the limit, so a huge
  frame is refused before it is read); floods get ``rate_limited`` errors, then 1008.
- Any end of the connection other than an explicit ``leave`` is a disconnection (R-SIT-1,
  R-TIME-4): ``Hub.close`` keeps the seats.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from feltroom.server.access import note_account
from feltroom.server.protocol import MAX_FRAME
from feltroom.server.session import Closed, Connection, Hub

__all__ = ["same_origin", "websocket_endpoint"]

log = logging.getLogger("feltroom.server")


def same_origin(websocket: WebSocket) -> bool:
    """Whether the handshake's ``Origin`` (if any) is the origin this server is served at."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "")
    scheme = "https" if websocket.url.scheme in ("wss", "https") else "http"
    return origin.rstrip("/").lower() == f"{scheme}://{host}".lower()


async def _sender(
    websocket: WebSocket, connection: Connection, ending: asyncio.Event, send_seconds: float
) -> None:
    outbox = connection.outbox
    ended = False
    while not ended:
        frames = [await outbox.get()]
        while not outbox.empty():  # what waits goes in the same turn of the loop: one write
            frames.append(outbox.get_nowait())
        try:
            # A reader that does not read fills the socket's buffer and the send waits: past
            # ``send_seconds`` it is a reader too slow for what the table sends.
            async with asyncio.timeout(send_seconds):
                for frame in frames:
                    if frame is None:
                        ended = True
                        break
                    await websocket.send_text(frame)
        except TimeoutError:
            connection.close("too slow to read what the table sends")
            break
    if not ending.is_set():
        # The hub ended the connection, not the endpoint: a reader too slow for what the table
        # sends, a sign-out or an expired session. Closing the socket here ends the endpoint's
        # wait for the next frame.
        with contextlib.suppress(Exception):
            await websocket.close(code=1008, reason=connection.close_reason)


def websocket_endpoint(hub: Hub) -> Callable[[WebSocket], Awaitable[None]]:
    """The ASGI websocket handler for ``hub``."""

    async def endpoint(websocket: WebSocket) -> None:
        if not same_origin(websocket):
            await websocket.close(code=1008, reason="connections must come from the served origin")
            return
        await websocket.accept()
        client = websocket.client
        try:
            connection = hub.open(f"{client.host}" if client is not None else "")
        except Closed as refused:  # too many connections from the address
            await websocket.close(code=refused.code, reason=refused.reason)
            return
        ending = asyncio.Event()
        sender = asyncio.create_task(
            _sender(websocket, connection, ending, hub.settings.send_seconds)
        )
        code, reason = 1000, ""
        try:
            while not connection.closed:
                if connection.player is None:
                    try:
                        message = await asyncio.wait_for(
                            websocket.receive(), hub.settings.hello_seconds
                        )
                    except TimeoutError:
                        code, reason = 1008, "say hello with your token first"
                        break
                else:  # no task or timer a frame: the sender closes the socket to end this
                    message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                frame: str | bytes | None = message.get("text")
                if frame is None:
                    frame = message.get("bytes") or b""
                size = len(frame.encode()) if isinstance(frame, str) else len(frame)
                if size > MAX_FRAME:
                    code, reason = 1009, f"frames are at most {MAX_FRAME} bytes"
                    break
                try:
                    await hub.receive(connection, frame)
                except Closed as closed:
                    code, reason = closed.code, closed.reason
                    break
        except WebSocketDisconnect:
            pass
        except Exception:  # a bug here must not take the server down: log, close, go on
            log.exception("connection of %s failed", connection.player)
            code, reason = 1011, "server error"
        finally:
            if connection.closed and code == 1000:  # the hub ended it: sign-out, expiry
                code, reason = 1008, connection.close_reason
            ending.set()
            note_account(websocket.scope, connection.player)
            await hub.close(connection)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 5.0)
            sender.cancel()
            if websocket.client_state is WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close(code=code, reason=reason)

    return endpoint

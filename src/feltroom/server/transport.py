"""Websocket frames written in batches: one socket write per connection per turn of the event loop.

A broadcast queues a few frames for every watcher of a table (the event, the next turn, a card
or a hand's result). uvicorn's websocket protocol writes each frame to its socket at once, so a
table of six players costs a dozen ``send`` system calls an action; under load they were over
half of the event loop's time (docs/performance.md, "Server load"). ``CorkedTransport`` holds the
bytes written during one turn of the loop and hands them to the socket together at its end
(``loop.call_soon``): the same frames, in the same order, in fewer writes, and no later than the
next turn of the loop. ``BatchedWebSocketProtocol`` is uvicorn's protocol over such a transport.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["BatchedWebSocketProtocol", "CorkedTransport"]


class CorkedTransport(asyncio.Transport):
    """A transport whose writes within one turn of the event loop reach the socket as one."""

    def __init__(self, real: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._real = real
        self._loop = loop
        self._pending: list[bytes] = []
        self._scheduled = False
        self._closed = False

    # -------------------------------------------------------------- writing

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if self._closed:  # after close: as the socket's transport would take it
            self._real.write(data)
            return
        self._pending.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Hand what was written to the socket now."""
        self._scheduled = False
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._real.write(data)

    def get_write_buffer_size(self) -> int:
        return self._real.get_write_buffer_size() + sum(len(data) for data in self._pending)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._real.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._real.get_write_buffer_limits()

    def can_write_eof(self) -> bool:
        return self._real.can_write_eof()

    def write_eof(self) -> None:
        self.flush()
        self._real.write_eof()

    # -------------------------------------------------------------- the rest is the socket's

    def close(self) -> None:
        self.flush()  # a close frame written just before is sent first
        self._closed = True
        self._real.close()

    def abort(self) -> None:
        self._pending.clear()
        self._closed = True
        self._real.abort()

    def is_closing(self) -> bool:
        return self._real.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._real.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._real.pause_reading()

    def resume_reading(self) -> None:
        self._real.resume_reading()

    def is_reading(self) -> bool:
        return self._real.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._real.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._real.get_protocol()


class BatchedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol writing through a ``CorkedTransport``.

    A peer that does not answer the keepalive ping in time is a reader that does not read (or
    is gone): it is closed with 1008, as docs/protocol.md says of a reader too slow for what
    the table sends, not with uvicorn's 1011 (which the protocol keeps for server errors).
    """

    def keepalive_timeout(self) -> None:
        self.pong_timer = None
        self.pending_ping_payload = None
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.fail(1008, "no answer to the keepalive ping: too slow to read")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports have the methods without deriving from asyncio.Transport
        super().connection_made(CorkedTransport(cast(asyncio.Transport, transport), self.loop))

"""``CorkedTransport``: the writes of one turn of the event loop reach the socket as one, in
order; a close sends what was written first; nothing written is lost or reordered."""

from __future__ import annotations

import asyncio
from typing import Any

from feltroom.server.transport import CorkedTransport


class _Socket(asyncio.Transport):
    """A transport that records each write it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_write_buffer_size(self) -> int:
        return 7

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5)}.get(name, default)


async def _turn() -> None:
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def test_writes_of_one_loop_turn_are_one_socket_write_in_order() -> None:
    async def run() -> None:
        socket = _Socket()
        corked = CorkedTransport(socket, asyncio.get_running_loop())
        corked.write(b"frame-1")
        corked.write(b"")  # nothing to send: no write
        corked.writelines([b"frame-2", bytearray(b"frame-3")])
        assert socket.writes == []  # held until the end of this turn
        assert corked.get_write_buffer_size() == 7 + 21
        await _turn()
        assert socket.writes == [b"frame-1frame-2frame-3"]
        corked.write(b"frame-4")
        await _turn()
        assert socket.writes == [b"frame-1frame-2frame-3", b"frame-4"]
        assert corked.get_extra_info("peername") == ("127.0.0.1", 5)

    asyncio.run(run())


def test_close_sends_what_was_written_then_closes() -> None:
    async def run() -> None:
        socket = _Socket()
        corked = CorkedTransport(socket, asyncio.get_running_loop())
        corked.write(b"last frame")
        corked.write(b"close frame")
        corked.close()
        assert socket.writes == [b"last frameclose frame"]
        assert socket.closed
        assert corked.is_closing()
        corked.write(b"late")  # after close: handed on as the socket would take it
        assert socket.writes[-1] == b"late"
        await _turn()
        assert socket.writes == [b"last frameclose frame", b"late"]

    asyncio.run(run())


def test_abort_drops_what_was_not_sent() -> None:
    async def run() -> None:
        socket = _Socket()
        corked = CorkedTransport(socket, asyncio.get_running_loop())
        corked.write(b"never sent")
        corked.abort()
        await _turn()
        assert socket.writes == []
        assert socket.aborted

    asyncio.run(run())

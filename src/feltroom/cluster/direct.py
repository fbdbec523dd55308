"""The direct link (docs/cluster.md, "The direct link"): a gateway's commands to a table's
owner, and the owner's replies and batches back, on one connection between the two processes
instead of through the broker.

Through the broker a command crosses four sockets and wakes the broker twice (the gateway's
append and hint, the owner's reply and batch); on a direct link it crosses two. A worker
started with ``--direct HOST:PORT`` (or ``--direct unix:/path/to.sock``) listens there and
gives the address in its ``worker:<owner>`` key; a gateway opens one link to each such worker
when it first needs it. What the link carries is what the broker carried:

- a command whose table's owner is known goes on the owner's link (its fields as in the
  broker's hint, with the table's id); a worker that no longer reads the table's commands
  appends it to the table's stream, where the table's next owner reads it as it reads any
  command sent through the broker;
- the gateway says which tables' batches it wants (watch, unwatch); the owner writes each
  batch of a watched table, and each reply to a command that came on the link, on the link
  in the order it made them (a reply after the batches of its command), as it would have
  published them. A worker with a direct address publishes no batch on the broker: a gateway
  watches its tables on its link, and watches them again at the next owner when a table
  changes hands (its watchers are then sent a snapshot);
- a lost link fails the commands in flight on it (``table_unavailable``, as a broker's lost
  connection does).

The link's lines: one letter, then the rest, up to a newline (JSON holds no raw newline);
a line longer than ``MAX_LINE`` closes the link. The gateway's first line is ``H`` and the
link's key (from the broker's password: whoever may use the broker may use the link), any
other first line closes it. Before it, a peer is a stranger and is held short: its first line
is at most ``MAX_KEY_LINE`` bytes and must come within ``KEY_SECONDS``, and at most
``MAX_STRANGERS`` strangers are connected at once (one more is closed as it connects). Then
``C`` a command (JSON), ``W`` a table to watch, ``U`` one to unwatch; the worker sends ``B``
a batch and ``R`` a reply (JSON). Writes made in one turn of the event loop reach the socket
together (as ``feltroom.server.transport`` does for websockets).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import socket
from collections.abc import Callable
from typing import cast
from urllib.parse import unquote, urlsplit

from feltroom.server.transport import CorkedTransport

__all__ = [
    "KEY_SECONDS",
    "MAX_KEY_LINE",
    "MAX_LINE",
    "MAX_STRANGERS",
    "DirectLink",
    "DirectServer",
    "LinkLost",
    "Peer",
    "link_key",
    "parse_address",
]

log = logging.getLogger("feltroom.cluster")

MAX_LINE = 8 << 20
"""The longest line a link takes (a batch of a full table's frames is a few KiB)."""
MAX_KEY_LINE = 128
"""The longest first line a peer may send (``H`` and the 64 hex digits of the key)."""
KEY_SECONDS = 3.0
"""How long a new peer has to send its key line."""
MAX_STRANGERS = 8
"""How many peers may be connected at once without having sent the key (a worker has a few
gateways, which send their key as they connect)."""


class LinkLost(ConnectionError):
    """The link to a table's owner was lost with a command in flight on it."""


def link_key(broker_url: str) -> bytes:
    """The direct links' key: derived from the broker's password (none: anyone who reaches a
    worker may link, as anyone who reaches such a broker may use it)."""
    password = unquote(urlsplit(broker_url).password or "")
    return hashlib.sha256(b"feltroom direct link\n" + password.encode()).hexdigest().encode()


def parse_address(address: str) -> tuple[str, int] | str:
    """``HOST:PORT`` (a TCP address) or ``unix:/path`` (a Unix socket's path); ``ValueError``
    naming the valid forms otherwise."""
    if address.startswith("unix:"):
        path = address[len("unix:") :]
        if not path:
            raise ValueError("a direct address unix:PATH needs a path, e.g. unix:/run/w1.sock")
        return path
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(
            f"a direct address is HOST:PORT (PORT 0: any free one) or unix:PATH, not {address!r}"
        )
    return host.strip("[]") or "0.0.0.0", int(port)


class _Lines(asyncio.Protocol):
    """One end of a link: lines in (``on_line`` with the letter and the rest), lines out
    corked until the end of the loop's turn (``CorkedTransport``)."""

    def __init__(self) -> None:
        self.transport: CorkedTransport | None = None
        self._buffer = bytearray()
        self.closed = False
        self.max_line = MAX_LINE

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports have asyncio.Transport's methods without deriving from it)
        real = cast(asyncio.Transport, transport)
        self.transport = CorkedTransport(real, asyncio.get_running_loop())
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family != socket.AF_UNIX:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = bytes(buffer[start:end])
            start = end + 1
            if line:
                try:
                    self.on_line(line[:1], line[1:])
                except Exception:
                    log.exception("direct link: a line could not be handled; closing the link")
                    self.close()
                    return
            if self.closed:
                return
        del buffer[:start]
        if len(buffer) > self.max_line:
            log.warning("direct link: a line over %d bytes; closing the link", self.max_line)
            self.close()

    def on_line(self, kind: bytes, rest: bytes) -> None:
        raise NotImplementedError

    def send(self, kind: bytes, rest: bytes) -> None:
        """Write a line (with the others of this turn of the loop)."""
        if not self.closed and self.transport is not None:
            self.transport.write(kind + rest + b"\n")

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.transport.close()  # (what was written is sent first)
        self.closed = True

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()  # (nothing left to send)


class Peer(_Lines):
    """A gateway's link, as its worker sees it."""

    def __init__(self, server: DirectServer) -> None:
        super().__init__()
        self.server = server
        self.signed_in = False
        self.tables: set[str] = set()
        self.max_line = MAX_KEY_LINE  # until the key
        self._key_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        server = self.server
        server.strangers.add(self)
        if len(server.strangers) > server.max_strangers:
            log.warning(
                "direct link: over %d peers without the link's key; closing a new one",
                server.max_strangers,
            )
            self.close()
            return
        loop = asyncio.get_running_loop()
        self._key_timer = loop.call_later(server.key_seconds, self._no_key)

    def _no_key(self) -> None:
        if not self.signed_in:
            log.warning(
                "direct link: a peer sent no key within %.0f s; closing it", self.server.key_seconds
            )
            self.close()

    def _met(self) -> None:
        """The peer is a stranger no more (signed in, or gone)."""
        self.server.strangers.discard(self)
        if self._key_timer is not None:
            self._key_timer.cancel()
            self._key_timer = None

    def on_line(self, kind: bytes, rest: bytes) -> None:
        server = self.server
        if not self.signed_in:
            if kind != b"H" or not hmac.compare_digest(rest, server.key):
                log.warning("direct link: a peer without the link's key; closing it")
                self.close()
                return
            self.signed_in = True
            self.max_line = MAX_LINE
            self._met()
            return
        if kind == b"C":
            server.on_command(self, rest)
        elif kind == b"W":
            table_id = rest.decode()
            self.tables.add(table_id)
            server.watchers.setdefault(table_id, set()).add(self)
        elif kind == b"U":
            self._unwatch(rest.decode())
        else:
            raise ValueError(f"unknown line {kind!r}; valid: C, W, U")

    def _unwatch(self, table_id: str) -> None:
        self.tables.discard(table_id)
        watchers = self.server.watchers.get(table_id)
        if watchers is not None:
            watchers.discard(self)
            if not watchers:
                del self.server.watchers[table_id]

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._met()
        for table_id in list(self.tables):
            self._unwatch(table_id)
        self.server.peers.discard(self)


class DirectServer:
    """A worker's end: its listener, its peers, and who watches which table.
    ``on_command(peer, command)`` gets each command as the JSON bytes the gateway sent.
    ``key_seconds`` and ``max_strangers``: how long a new peer has to send the key, and how
    many may be connected at once without having sent it."""

    def __init__(
        self,
        key: bytes,
        on_command: Callable[[Peer, bytes], None],
        *,
        key_seconds: float = KEY_SECONDS,
        max_strangers: int = MAX_STRANGERS,
    ) -> None:
        self.key = key
        self.on_command = on_command
        self.key_seconds = key_seconds
        self.max_strangers = max_strangers
        self.watchers: dict[str, set[Peer]] = {}
        self.peers: set[Peer] = set()
        self.strangers: set[Peer] = set()  # connected, no key yet
        self._server: asyncio.AbstractServer | None = None
        self.address = ""

    def _peer(self) -> Peer:
        peer = Peer(self)
        self.peers.add(peer)
        return peer

    async def start(self, address: str) -> str:
        """Listen on ``address``; the address the gateways reach it at (a TCP listener on
        every interface is given by this host's name)."""
        loop = asyncio.get_running_loop()
        where = parse_address(address)
        if isinstance(where, str):
            if os.path.exists(where):  # (a killed worker's socket: nobody listens on it)
                probe = socket.socket(socket.AF_UNIX)
                try:
                    if probe.connect_ex(where) == 0:
                        raise OSError(f"another process listens on {where}")
                finally:
                    probe.close()
                os.unlink(where)
            self._server = await loop.create_unix_server(self._peer, where)
            self.address = f"unix:{where}"
        else:
            host, port = where
            self._server = await loop.create_server(self._peer, host, port)
            port = self._server.sockets[0].getsockname()[1]
            shown = socket.gethostname() if host in ("0.0.0.0", "::") else host
            self.address = f"[{shown}]:{port}" if ":" in shown else f"{shown}:{port}"
        return self.address

    def send_batch(self, table_id: str, batch: bytes) -> None:
        """A table's batch to every link that watches it."""
        for peer in self.watchers.get(table_id, ()):
            peer.send(b"B", batch)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for peer in list(self.peers):
            peer.close()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
        if self.address.startswith("unix:"):
            with contextlib.suppress(OSError):
                os.unlink(self.address[len("unix:") :])


class DirectLink(_Lines):
    """A gateway's link to one worker: ``on_batch`` gets each batch, ``on_reply`` each reply
    (the JSON bytes), ``on_lost`` the link once lost."""

    def __init__(
        self,
        owner: str,
        on_batch: Callable[[bytes], None],
        on_reply: Callable[[bytes], None],
        on_lost: Callable[[DirectLink], None],
    ) -> None:
        super().__init__()
        self.owner = owner
        self.on_batch = on_batch
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.sent: set[str] = set()  # the requests in flight on it

    @classmethod
    async def open(
        cls,
        owner: str,
        address: str,
        key: bytes,
        *,
        on_batch: Callable[[bytes], None],
        on_reply: Callable[[bytes], None],
        on_lost: Callable[[DirectLink], None],
        timeout: float = 2.0,
    ) -> DirectLink:
        """Connect to the worker at ``address`` and sign in; ``OSError`` when it is not
        reachable."""
        loop = asyncio.get_running_loop()
        where = parse_address(address)

        def made() -> DirectLink:
            return cls(owner, on_batch, on_reply, on_lost)

        async with asyncio.timeout(timeout):
            if isinstance(where, str):
                _, link = await loop.create_unix_connection(made, where)
            else:
                _, link = await loop.create_connection(made, *where)
        link.send(b"H", key)
        return link

    def on_line(self, kind: bytes, rest: bytes) -> None:
        if kind == b"B":
            self.on_batch(rest)
        elif kind == b"R":
            self.on_reply(rest)
        else:
            raise ValueError(f"unknown line {kind!r}; valid: B, R")

    def command(self, request: str, command: bytes) -> None:
        self.sent.add(request)
        self.send(b"C", command)

    def watch(self, table_id: str) -> None:
        self.send(b"W", table_id.encode())

    def unwatch(self, table_id: str) -> None:
        self.send(b"U", table_id.encode())

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.on_lost(self)

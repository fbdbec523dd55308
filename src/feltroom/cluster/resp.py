"""A lean client of the broker for the cluster's hot paths (docs/cluster.md, docs/performance.md).

Every command of a player crosses the broker several times (the gateway appends it to the
table's stream, the owner reads it, answers it and publishes the table's messages, the gateway
forwards them); with the ``redis`` client's asyncio API each of those cost 80 to 160 µs of a
process's CPU, more than the command's own work. These two classes speak the broker's protocol
(RESP2) straight over an asyncio transport, with ``hiredis`` parsing the replies:

- ``BrokerLink.run(*commands)`` writes commands in one go (a pipeline) over one connection and
  returns their replies in order, an error reply raised as ``redis.exceptions.ResponseError``;
  a lost or unreachable broker raises ``redis.exceptions.ConnectionError``, and the next call
  connects again.
- ``Subscriber`` holds one subscription connection and calls ``on_message(channel, data)`` for
  every message as it is read (no task a message); it subscribes again by itself when the
  broker comes back, and says so (``on_lost``, ``on_back``) so that its owner can make up for
  what was published meanwhile.

Both take the cluster's broker URL (``redis://[user]:PASSWORD@host:port/db``, or ``rediss://``
for TLS with the system's certificates, or ``?ssl_ca_certs=FILE``). The rest of the cluster's
broker work (the lobby, presence, leases' keys, stream groups) stays on the ``redis`` client.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis.exceptions import ConnectionError as BrokerConnectionError
from redis.exceptions import ResponseError

__all__ = ["BrokerLink", "BrokerSender", "Subscriber", "entries"]

log = logging.getLogger("feltroom.cluster")

Arg = str | bytes | int | float
Command = Sequence[Arg]


class _Address:
    """Where the broker is and how to sign in, from its URL."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 6379
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        # ``unix://:PASSWORD@/path/to/redis.sock?db=N``: a broker on this host, by its socket.
        self.socket = parts.path if parts.scheme == "unix" else None
        path = parts.path.strip("/")
        if self.socket is not None:
            path = parse_qs(parts.query).get("db", ["0"])[0]
        self.db = int(path) if path.isdigit() else 0
        self.ssl: ssl.SSLContext | None = None
        if parts.scheme == "rediss":
            query = parse_qs(parts.query)
            cafile = query.get("ssl_ca_certs", [None])[0]
            self.ssl = ssl.create_default_context(cafile=cafile)
            if query.get("ssl_cert_reqs", [""])[0].lower() == "none":
                self.ssl.check_hostname = False
                self.ssl.verify_mode = ssl.CERT_NONE

    def hello(self) -> list[tuple[Arg, ...]]:
        """The commands that open a connection: sign in, choose the database."""
        commands: list[tuple[Arg, ...]] = []
        if self.password is not None:
            if self.username:
                commands.append(("AUTH", self.username, self.password))
            else:
                commands.append(("AUTH", self.password))
        if self.db:
            commands.append(("SELECT", self.db))
        return commands


def _pack(commands: Iterable[Command]) -> bytes:
    return b"".join(hiredis.pack_command(tuple(command)) for command in commands)  # type: ignore[arg-type]


class _Protocol(asyncio.Protocol):
    """One connection: replies go to the waiting futures in order; pushed pub/sub messages
    (``message``, ``subscribe``, ``unsubscribe``) to ``on_push``."""

    def __init__(
        self,
        encoding: str | None,
        on_push: Callable[[list[Any]], None] | None,
        on_lost: Callable[[], None] | None,
    ) -> None:
        self.reader = hiredis.Reader(encoding=encoding) if encoding else hiredis.Reader()
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.transport: asyncio.Transport | None = None
        self.lost: BaseException | None = None
        self.on_push = on_push
        self.on_lost = on_lost

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports have asyncio.Transport's methods without deriving from it)
        self.transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        on_push = self.on_push
        waiting = self.waiting
        try:
            while (reply := reader.gets()) is not False:
                if on_push is not None and isinstance(reply, list) and not waiting:
                    on_push(reply)
                elif waiting:
                    future = waiting.popleft()
                    if not future.done():
                        future.set_result(reply)
                elif on_push is not None:
                    on_push(reply)
        except hiredis.ProtocolError as error:
            self.abort(BrokerConnectionError(f"the broker's reply could not be read: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(BrokerConnectionError(f"the connection to the broker was lost ({exc})"))
        if self.on_lost is not None:
            self.on_lost()

    def _fail(self, error: BaseException) -> None:
        if self.lost is None:
            self.lost = error
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)

    def abort(self, error: BaseException) -> None:
        self._fail(error)
        if self.transport is not None:
            self.transport.abort()

    def send(self, commands: Sequence[Command]) -> list[asyncio.Future[Any]]:
        if self.lost is not None or self.transport is None:
            raise BrokerConnectionError(f"the connection to the broker was lost ({self.lost})")
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        self.waiting.extend(futures)
        self.transport.write(_pack(commands))
        return futures


async def _open(
    address: _Address,
    encoding: str | None,
    on_push: Callable[[list[Any]], None] | None = None,
    on_lost: Callable[[], None] | None = None,
    timeout: float = 5.0,
) -> _Protocol:
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout):
            if address.socket is not None:
                _, protocol = await loop.create_unix_connection(
                    lambda: _Protocol(encoding, None, None), address.socket
                )
            else:
                _, protocol = await loop.create_connection(
                    lambda: _Protocol(encoding, None, None),
                    address.host,
                    address.port,
                    ssl=address.ssl,
                )
            hello = address.hello()
            if hello:
                for reply in [await f for f in protocol.send(hello)]:
                    if isinstance(reply, hiredis.ReplyError):
                        protocol.abort(ResponseError(str(reply)))
                        raise ResponseError(f"the broker refused the connection: {reply}")
    except (OSError, TimeoutError) as error:
        where = address.socket or f"{address.host}:{address.port}"
        raise BrokerConnectionError(f"the broker at {where} is not reachable ({error})") from None
    protocol.on_push, protocol.on_lost = on_push, on_lost
    return protocol


def _checked(reply: Any) -> Any:
    if isinstance(reply, hiredis.ReplyError):
        raise ResponseError(str(reply))
    return reply


class _Connection:
    """One connection of its own to the broker, opened (``_opened``) when first needed and
    again after it was lost."""

    def __init__(self, url: str) -> None:
        self.address = _Address(url)
        self._protocol: _Protocol | None = None
        self._connecting = asyncio.Lock()

    async def _connected(self) -> _Protocol:
        protocol = self._protocol
        if protocol is not None and protocol.lost is None:
            return protocol
        async with self._connecting:
            protocol = self._protocol
            if protocol is None or protocol.lost is not None:
                protocol = self._protocol = await self._opened()
            return protocol

    async def _opened(self) -> _Protocol:
        raise NotImplementedError

    def _drop(self) -> None:
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            protocol.on_lost = None
            if protocol.transport is not None:
                protocol.transport.close()


class BrokerLink(_Connection):
    """Commands to the broker over one connection of its own, pipelined (module docstring).
    Replies are text (UTF-8). A reply that takes longer than ``timeout`` seconds drops the
    connection (every command waiting on it raises; the next call connects again)."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        super().__init__(url)
        self.timeout = timeout
        self._watchdog: asyncio.TimerHandle | None = None
        self._sent: collections.deque[tuple[float, asyncio.Future[Any]]] = collections.deque()

    async def _opened(self) -> _Protocol:
        return await _open(self.address, "utf-8")

    async def run(self, *commands: Command) -> list[Any]:
        """Send the commands in one write; their replies in order (an error reply raises
        ``ResponseError`` once all have come)."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connected()
        futures = protocol.send(commands)
        self._watch(futures[-1])
        try:
            await futures[-1]  # (the replies come in order: the others are in)
        except BaseException:
            for future in futures:  # (their error is this one)
                if future.done() and not future.cancelled():
                    future.exception()
            raise
        replies = [future.result() for future in futures]
        for reply in replies:
            _checked(reply)
        return replies

    def _watch(self, last: asyncio.Future[Any]) -> None:
        loop = asyncio.get_running_loop()
        self._sent.append((loop.time() + self.timeout, last))
        if self._watchdog is None:
            self._watchdog = loop.call_later(self.timeout, self._look)

    def _look(self) -> None:
        """Drop the connection when its oldest unanswered command is overdue."""
        self._watchdog = None
        loop = asyncio.get_running_loop()
        sent = self._sent
        while sent and sent[0][1].done():
            sent.popleft()
        if not sent:
            return
        due, _ = sent[0]
        if due <= loop.time():
            sent.clear()
            if self._protocol is not None:
                self._protocol.abort(
                    BrokerConnectionError(f"the broker did not answer within {self.timeout:g} s")
                )
            return
        self._watchdog = loop.call_later(max(0.01, due - loop.time()), self._look)

    async def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._drop()


class BrokerSender(_Connection):
    """Commands to the broker over one connection of its own that the broker does not answer
    (``CLIENT REPLY OFF``): a command's effect shows elsewhere (a table's owner answers a
    command on the sender's reply channel), so neither side spends a read and a write on an
    "OK". ``send`` writes at once; a lost or unreachable broker raises
    ``redis.exceptions.ConnectionError`` (the next call connects again), and a connection lost
    after a send calls ``on_lost``: what was sent on it may not have reached the broker."""

    def __init__(self, url: str, on_lost: Callable[[], None] | None = None) -> None:
        super().__init__(url)
        self.on_lost = on_lost

    async def _opened(self) -> _Protocol:
        protocol = await _open(self.address, None, on_lost=self.on_lost)
        assert protocol.transport is not None
        protocol.transport.write(_pack([("CLIENT", "REPLY", "OFF")]))  # (no reply)
        return protocol

    async def connected(self) -> None:
        """Connect (and turn the replies off) unless connected."""
        await self._connected()

    async def send(self, *commands: Command) -> None:
        """Write the commands in one go."""
        protocol = await self._connected()
        if protocol.transport is None:
            raise BrokerConnectionError("the connection to the broker was lost")
        protocol.transport.write(_pack(commands))

    async def close(self) -> None:
        self._drop()


class Subscriber:
    """One subscription connection to the broker (module docstring). ``on_message`` gets the
    channel and the message as bytes, in the order the broker sent them; it must not block.
    ``on_lost`` is called when the connection is lost, ``on_back`` once it is subscribed again
    to every channel (what was published meanwhile is lost)."""

    def __init__(
        self,
        url: str,
        on_message: Callable[[bytes, bytes], None],
        *,
        on_lost: Callable[[], None] | None = None,
        on_back: Callable[[], None] | None = None,
        retry: float = 0.2,
    ) -> None:
        self.address = _Address(url)
        self.on_message = on_message
        self.on_lost = on_lost
        self.on_back = on_back
        self.retry = retry
        self.channels: set[str] = set()
        self._protocol: _Protocol | None = None
        self._confirming: dict[bytes, list[asyncio.Future[None]]] = {}
        self._lost = asyncio.Event()
        self._keeper: asyncio.Task[None] | None = None

    async def start(self, *channels: str, wait: bool = True) -> None:
        """Connect and subscribe to ``channels``; from then on, keep the subscription. When the
        broker is unreachable now this raises ``ConnectionError``, or (``wait=False``) keeps
        trying in the background and calls ``on_back`` once subscribed."""
        self.channels.update(channels)
        try:
            await self._connect()
        except (BrokerConnectionError, ResponseError, TimeoutError):
            if wait:
                raise
            self._lost.set()  # (the keeper connects when the broker is there)
        self._keeper = asyncio.create_task(self._keep(), name="broker subscription")

    async def _connect(self) -> None:
        protocol = await _open(self.address, None, self._pushed, self._lost.set)
        self._lost.clear()
        self._protocol = protocol
        if self.channels:
            try:
                await self._send_and_confirm("SUBSCRIBE", sorted(self.channels))
            except BaseException:
                protocol.abort(BrokerConnectionError("the subscription was not confirmed"))
                raise

    async def _keep(self) -> None:
        while True:
            await self._lost.wait()
            self._fail_confirmations()
            if self.on_lost is not None:
                self.on_lost()
            while True:
                await asyncio.sleep(self.retry)
                try:
                    await self._connect()
                except (BrokerConnectionError, ResponseError, TimeoutError) as error:
                    log.debug("subscription: the broker is not back yet: %s", error)
                    continue
                break
            if self.on_back is not None:
                self.on_back()

    def _pushed(self, reply: list[Any]) -> None:
        if not isinstance(reply, list):
            log.warning("subscription: the broker answered %s", reply)
            return
        kind = reply[0] if reply else None
        if kind == b"message" and len(reply) == 3:
            try:
                self.on_message(reply[1], reply[2])
            except Exception:  # (one bad message must not drop the subscription)
                log.exception("subscription: a message on %r could not be handled", reply[1])
        elif kind in (b"subscribe", b"unsubscribe") and len(reply) == 3:
            for future in self._confirming.pop(reply[1], ()):
                if not future.done():
                    future.set_result(None)

    def _fail_confirmations(self) -> None:
        confirming, self._confirming = self._confirming, {}
        error = BrokerConnectionError("the connection to the broker was lost")
        for futures in confirming.values():
            for future in futures:
                if not future.done():
                    future.set_exception(error)

    async def _send_and_confirm(self, verb: str, channels: list[str]) -> None:
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            raise BrokerConnectionError("the connection to the broker was lost")
        assert protocol.transport is not None
        loop = asyncio.get_running_loop()
        futures = []
        for channel in channels:
            future: asyncio.Future[None] = loop.create_future()
            self._confirming.setdefault(channel.encode(), []).append(future)
            futures.append(future)
        protocol.transport.write(_pack([(verb, *channels)]))
        async with asyncio.timeout(10.0):
            for future in futures:
                await future

    async def subscribe(self, *channels: str) -> None:
        """Listen to these channels too, from when the broker confirms it (while the broker is
        away: from when it is back)."""
        new = [c for c in channels if c not in self.channels]
        self.channels.update(new)
        if new and self._protocol is not None and self._protocol.lost is None:
            with contextlib.suppress(BrokerConnectionError):
                await self._send_and_confirm("SUBSCRIBE", new)

    async def unsubscribe(self, *channels: str) -> None:
        gone = [c for c in channels if c in self.channels]
        self.channels.difference_update(gone)
        protocol = self._protocol
        if gone and protocol is not None and protocol.lost is None:
            assert protocol.transport is not None
            protocol.transport.write(_pack([("UNSUBSCRIBE", *gone)]))

    async def close(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            protocol.on_lost = None
            if protocol.transport is not None:
                protocol.transport.close()


def entries(reply: Any) -> list[tuple[str, str, dict[str, str]]]:
    """An ``XREADGROUP`` or ``XREAD`` reply as (stream, entry id, fields) in order (an entry
    deleted meanwhile has no fields)."""
    found: list[tuple[str, str, dict[str, str]]] = []
    for stream, items in reply or ():
        for entry_id, flat in items:
            fields = dict(zip(flat[0::2], flat[1::2], strict=True)) if flat else {}
            found.append((stream, entry_id, fields))
    return found

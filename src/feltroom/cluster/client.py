"""The sending side of the broker (docs/cluster.md): commands to a table's owner, wherever it
runs, and the table's frames back. A gateway forwards its connections' commands through it; the
tests and ``feltroom bench failover`` use it directly.

``call`` appends the command to the table's stream with a deadline (and, when the owner is
known, publishes it whole on the owner's wake channel, in the same round trip) and waits for
the owner's reply on this client's reply channel (when the owner has a direct link,
``feltroom.cluster.direct``, the command and its reply go on the link instead); a refused
command raises ``RemoteError`` with the owner's error type and message (nothing changed).
``gather`` asks every gateway at once (the ``gateways`` channel) and collects their answers.
``watch`` yields each batch a table's owner publishes on the broker: the frames for observers
and for each person, the owner and its lease epoch.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
from redis.exceptions import ConnectionError as BrokerConnectionError
from redis.exceptions import RedisError

from feltroom.errors import FeltroomError

from .broker import (
    command_stream,
    connect,
    events_channel,
    gateways_channel,
    reply_channel,
    wake_channel,
)
from .direct import DirectLink, LinkLost, link_key
from .resp import BrokerLink, BrokerSender, Subscriber

__all__ = ["RemoteError", "TableClient"]

log = logging.getLogger("feltroom.cluster")

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class RemoteError(FeltroomError):
    """The table's owner refused a command (``kind`` is its error type), or no owner answered
    before the deadline (``table_unavailable``); ``details``: the figures of the refusal the
    owner gave (a wallet short of an entry's cost: its balance and the amount)."""

    def __init__(self, kind: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(kind, message)
        self.kind = kind
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class _Gathering:
    """The answers to one request to every gateway, until all have answered."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.expected: int | None = None
        self.done = asyncio.Event()

    def add(self, reply: dict[str, Any]) -> None:
        self.replies.append(reply)
        self.check()

    def check(self) -> None:
        if self.expected is not None and len(self.replies) >= self.expected:
            self.done.set()


class TableClient:
    """One process's side: its reply channel and the tables it watches. ``name`` (unique on
    the cluster) names the reply channel; by default a random one."""

    def __init__(self, broker_url: str, *, timeout: float = 10.0, name: str | None = None) -> None:
        self.broker_url = broker_url
        self.redis = connect(broker_url)
        # The commands and their replies on a lean link of their own (``feltroom.cluster.resp``).
        self.link = BrokerLink(broker_url)
        # A command whose owner is known goes without an acknowledgement (its reply is its
        # acknowledgement): a lost connection fails the calls whose commands it carried.
        self.sender = BrokerSender(broker_url, on_lost=self._sender_lost)
        self._sent: set[str] = set()
        self.name = name or f"client-{secrets.token_hex(6)}"
        # A request's id: unique to this client (whose name the replies come to), and over its
        # restarts (its owner remembers the commands it ran by name and id for a while).
        self._requests = itertools.count(1)
        self._prefix = secrets.token_hex(3)
        self.timeout = timeout
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._gathering: dict[str, _Gathering] = {}
        self.subscriber: Subscriber | None = None
        self._reply_channel = reply_channel(self.name).encode()
        self._other: Callable[[bytes, bytes], None] | None = None
        # Each table's owner as last known (a gateway's lobby refresh): a command goes with a
        # hint on the owner's wake channel, so the owner reads it at once, or on the owner's
        # direct link when it has one (``addresses``: the owners' links' addresses).
        self.owners: dict[str, str] = {}
        self.addresses: dict[str, str] = {}
        self.links: dict[str, DirectLink] = {}
        self._opening: dict[str, asyncio.Future[DirectLink | None]] = {}
        self._failed: dict[str, float] = {}  # an owner's link is not tried again until then
        self._key = link_key(broker_url)
        # What the direct links bring besides replies: the batches of the tables watched on
        # them, and the word that one was lost (a gateway's, set by it).
        self.on_batch: Callable[[bytes], None] = lambda data: None
        self.on_link_lost: Callable[[DirectLink], None] = lambda link: None

    async def start(
        self,
        *channels: str,
        on_message: Callable[[bytes, bytes], None] | None = None,
        on_lost: Callable[[], None] | None = None,
        on_back: Callable[[], None] | None = None,
    ) -> None:
        """Subscribe to this client's reply channel, and to ``channels`` whose messages go to
        ``on_message`` (a gateway's tables: on the same connection as the replies, so that a
        command's reply and the batch its owner published with it come in one read);
        ``on_lost`` and ``on_back`` as ``Subscriber``'s."""
        self._other = on_message
        self.subscriber = Subscriber(
            self.broker_url, self._on_message, on_lost=on_lost, on_back=on_back
        )
        await self.subscriber.start(reply_channel(self.name), *channels)

    async def close(self) -> None:
        for link in list(self.links.values()):
            link.close()
        if self.subscriber is not None:
            await self.subscriber.close()
        await self.link.close()
        await self.sender.close()
        await self.redis.aclose()

    def _sender_lost(self) -> None:
        """The commands sent without acknowledgement may not have reached the broker."""
        sent, self._sent = self._sent, set()
        for request in sent:
            future = self._waiting.get(request)
            if future is not None and not future.done():
                future.set_exception(BrokerConnectionError("the connection to the broker was lost"))

    async def direct_link(self, owner: str) -> DirectLink | None:
        """The direct link to ``owner`` (opened when first needed); none when the owner has
        no direct address or cannot be reached (it is then tried again at the next call)."""
        link = self.links.get(owner)
        if link is not None and not link.closed:
            return link
        address = self.addresses.get(owner)
        if address is None or time.monotonic() < self._failed.get(owner, 0.0):
            return None
        opening = self._opening.get(owner)
        if opening is None:
            opening = self._opening[owner] = asyncio.ensure_future(self._open_link(owner, address))
            opening.add_done_callback(lambda _: self._opening.pop(owner, None))
        return await asyncio.shield(opening)

    async def _open_link(self, owner: str, address: str) -> DirectLink | None:
        try:
            link = await DirectLink.open(
                owner,
                address,
                self._key,
                on_batch=self.on_batch,
                on_reply=self._on_reply,
                on_lost=self._link_lost,
            )
        except (OSError, TimeoutError, ValueError) as error:
            log.warning("the direct link to %s at %s failed: %s", owner, address, error)
            self._failed[owner] = time.monotonic() + 1.0  # (the broker's way meanwhile)
            return None
        self.links[owner] = link
        return link

    def _link_lost(self, link: DirectLink) -> None:
        """The calls in flight on a lost link fail now; the gateway hears of it."""
        if self.links.get(link.owner) is link:
            del self.links[link.owner]
        sent, link.sent = link.sent, set()
        for request in sent:
            future = self._waiting.get(request)
            if future is not None and not future.done():
                future.set_exception(LinkLost("the link to its owner was lost"))
        self.on_link_lost(link)

    def _on_message(self, channel: bytes, data: bytes) -> None:
        if channel != self._reply_channel:
            if self._other is not None:
                self._other(channel, data)
            return
        self._on_reply(data)

    def _on_reply(self, data: bytes) -> None:
        reply = _decode(data)
        gathering = self._gathering.get(reply.get("id"))
        if gathering is not None:
            gathering.add(reply)
            return
        future = self._waiting.pop(reply.get("id"), None)
        if future is not None and not future.done():
            future.set_result(reply)

    async def call(
        self,
        table_id: str,
        op: str,
        player: str,
        /,
        *,
        timeout: float | None = None,
        **args: Any,
    ) -> dict[str, Any]:
        """Run ``op`` for ``player`` at the table's owner; its result, or ``RemoteError``
        (``table_unavailable`` when no owner answers within ``timeout`` seconds, by default
        the client's)."""
        timeout = self.timeout if timeout is None else timeout
        request = f"{self._prefix}{next(self._requests):x}"
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._waiting[request] = future
        timer = loop.call_later(timeout, _expire, future)
        fields = (
            "id",
            request,
            "reply",
            self.name,
            "op",
            op,
            "player",
            player,
            "args",
            _encode(args).decode(),
            "deadline",
            repr(time.time() + timeout),
        )
        stream = command_stream(table_id)
        append = ("XADD", stream, "MAXLEN", "~", 10_000, "*", *fields)
        direct: DirectLink | None = None
        try:
            owner = self.owners.get(table_id)
            if owner is not None and owner in self.addresses:
                direct = await self.direct_link(owner)
            if direct is not None:  # (the command whole: its owner runs it without a read)
                command = dict(zip(fields[0::2], fields[1::2], strict=True), table=table_id)
                direct.command(request, _encode(command))
            elif owner is None or owner in self.addresses:  # (its link: not reachable now)
                await self.link.run(append)
            else:  # (the command whole in the hint, as on a link)
                command = dict(zip(fields[0::2], fields[1::2], strict=True))
                hint = table_id.encode() + b"\n" + _encode(command)
                await self.sender.send(append, ("PUBLISH", wake_channel(owner), hint))
                self._sent.add(request)
            reply = await future
        except TimeoutError:
            raise RemoteError(
                "table_unavailable",
                f"table {table_id} did not answer within {timeout:g} s (no worker owns it "
                "now, or its owner is changing); try again",
            ) from None
        except LinkLost as lost:
            raise RemoteError(
                "table_unavailable", f"table {table_id} did not answer: {lost}; try again"
            ) from None
        except (RedisError, OSError) as lost:
            raise RemoteError(
                "table_unavailable",
                f"table {table_id} did not answer: the broker is not reachable ({lost}); try again",
            ) from None
        finally:
            timer.cancel()
            self._waiting.pop(request, None)
            self._sent.discard(request)
            if direct is not None:
                direct.sent.discard(request)
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise RemoteError(
                str(error.get("type")), str(error.get("message")), error.get("details")
            )
        result: dict[str, Any] = reply.get("result") or {}
        return result

    async def gather(
        self, op: str, /, *, timeout: float | None = None, **args: Any
    ) -> tuple[list[dict[str, Any]], int]:
        """Ask every gateway (the ``gateways`` channel) to run ``op``; the answers of those
        that answered within ``timeout`` seconds, and how many gateways heard the request (the
        broker's count of the channel's listeners when it was published). ``RemoteError``
        (``broker_unavailable``) when the broker does not take the request."""
        request = secrets.token_hex(8)
        gathering = self._gathering[request] = _Gathering()
        message = json.dumps({"id": request, "reply": self.name, "op": op, "args": args})
        try:
            gathering.expected = int(await self.redis.publish(gateways_channel(), message))
            gathering.check()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    gathering.done.wait(), self.timeout if timeout is None else timeout
                )
        except (RedisError, OSError) as error:
            raise RemoteError(
                "broker_unavailable", f"the broker did not take the request ({error}); try again"
            ) from None
        finally:
            self._gathering.pop(request, None)
        return list(gathering.replies), gathering.expected

    async def answer(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        """Answer a request of ``gather``'s (a gateway)."""
        reply = {"id": request.get("id"), **reply}
        await self.redis.publish(reply_channel(str(request.get("reply"))), json.dumps(reply))

    async def watch(self, table_id: str) -> AsyncIterator[dict[str, Any]]:
        """Every batch the table's owner publishes from now on (a new subscription)."""
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(events_channel(table_id))
        try:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is not None:
                    yield json.loads(message["data"])
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]

"""The lean broker client of the cluster's hot paths (``feltroom.cluster.resp``), against a real
throwaway Redis: pipelined replies in order, errors as the ``redis`` client raises them, a
subscription that survives the broker's restart, a broker that stops answering, a sender the
broker does not answer, and the broker reached by its Unix socket."""

from __future__ import annotations

import asyncio
import inspect
import signal
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import uvloop
from redis.exceptions import ConnectionError as BrokerConnectionError
from redis.exceptions import ResponseError

from feltroom.cluster.broker import connect, wake_channel
from feltroom.cluster.client import RemoteError, TableClient
from feltroom.cluster.resp import BrokerLink, BrokerSender, Subscriber, entries
from services import RedisServer

Run = Callable[[Coroutine[Any, Any, None]], None]


@pytest.fixture(params=["asyncio", "uvloop"])
def run(request: pytest.FixtureRequest) -> Run:
    """Each test on the standard event loop and on uvloop's (the room's processes use it)."""
    if request.param == "uvloop":
        return uvloop.run

    def standard(main: Coroutine[Any, Any, None]) -> None:
        # (asyncio.run would take uvloop's: the cluster tests' policy, conftest.py)
        with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
            runner.run(main)

    return standard


def test_a_pipeline_returns_every_reply_in_order(redis_server: RedisServer, run: Run) -> None:
    async def main() -> None:
        link = BrokerLink(redis_server.url)
        try:
            replies = await link.run(
                ("DEL", "resp:list"),
                ("RPUSH", "resp:list", "a", b"b", 3, 4.5),
                ("LRANGE", "resp:list", 0, -1),
            )
            assert replies[1:] == [4, ["a", "b", "3", "4.5"]]
            # One connection, reused: a thousand commands in one write come back in order.
            many = await link.run(*(("ECHO", str(n)) for n in range(1000)))
            assert many == [str(n) for n in range(1000)]
        finally:
            await link.close()

    run(main())


def test_an_error_reply_raises_after_the_others_ran(redis_server: RedisServer, run: Run) -> None:
    async def main() -> None:
        link = BrokerLink(redis_server.url)
        try:
            with pytest.raises(ResponseError, match=r"WRONGTYPE|wrong kind"):
                await link.run(
                    ("SET", "resp:text", "x"),
                    ("LPUSH", "resp:text", "y"),  # not a list
                    ("SET", "resp:after", "ran"),
                )
            assert await link.run(("GET", "resp:after")) == ["ran"]
        finally:
            await link.close()

    run(main())


def test_a_wrong_password_or_no_broker_is_a_clear_error(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        wrong = redis_server.url.replace(f":{redis_server.password}@", ":not-it@")
        link = BrokerLink(wrong)
        with pytest.raises(ResponseError, match="refused the connection"):
            await link.run(("PING",))
        await link.close()
        nobody = BrokerLink("redis://:pw@127.0.0.1:9/0")
        with pytest.raises(BrokerConnectionError, match="not reachable"):
            await nobody.run(("PING",))
        await nobody.close()

    run(main())


def test_xreadgroup_entries(redis_server: RedisServer, run: Run) -> None:
    async def main() -> None:
        link = BrokerLink(redis_server.url)
        try:
            await link.run(("DEL", "resp:s1", "resp:s2"))
            await link.run(
                ("XGROUP", "CREATE", "resp:s1", "g", "0", "MKSTREAM"),
                ("XGROUP", "CREATE", "resp:s2", "g", "0", "MKSTREAM"),
                ("XADD", "resp:s1", "*", "op", "act", "args", '{"a": 1}'),
                ("XADD", "resp:s2", "*", "op", "sit"),
                ("XADD", "resp:s1", "*", "op", "leave"),
            )
            streams = ("resp:s1", "resp:s2", ">", ">")
            reply = await link.run(
                ("XREADGROUP", "GROUP", "g", "me", "COUNT", 10, "STREAMS", *streams)
            )
            found = [(stream, fields) for stream, _, fields in entries(reply[0])]
            assert found == [
                ("resp:s1", {"op": "act", "args": '{"a": 1}'}),
                ("resp:s1", {"op": "leave"}),
                ("resp:s2", {"op": "sit"}),
            ]
            again = await link.run(("XREADGROUP", "GROUP", "g", "me", "STREAMS", "resp:s1", ">"))
            assert entries(again[0]) == []
        finally:
            await link.close()

    run(main())


def test_a_subscriber_hears_every_message_in_order_from_the_confirmation(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        heard: list[tuple[bytes, bytes]] = []
        subscriber = Subscriber(redis_server.url, lambda c, d: heard.append((c, d)))
        link = BrokerLink(redis_server.url)
        try:
            await subscriber.start("resp:a")
            await subscriber.subscribe("resp:b")  # confirmed when it returns
            counts = await link.run(
                *(("PUBLISH", "resp:a" if n % 2 else "resp:b", f"m{n}") for n in range(200))
            )
            assert counts == [1] * 200
            await _until(lambda: len(heard) == 200)
            assert [d for _, d in heard] == [f"m{n}".encode() for n in range(200)]
            assert {c for c, _ in heard} == {b"resp:a", b"resp:b"}
            await subscriber.unsubscribe("resp:a")
            await link.run(("PING",))
            await _until(lambda: subscriber.channels == {"resp:b"})
            assert await link.run(("PUBLISH", "resp:b", "x"), ("PUBLISH", "resp:a", "y")) in (
                [1, 0],
                [1, 1],  # (the unsubscription may not have been read yet)
            )
        finally:
            await subscriber.close()
            await link.close()

    run(main())


def test_a_message_its_handler_cannot_take_does_not_drop_the_subscription(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        heard: list[bytes] = []

        def handle(channel: bytes, data: bytes) -> None:
            if data == b"bad":
                raise ValueError("not a batch")
            heard.append(data)

        subscriber = Subscriber(redis_server.url, handle)
        link = BrokerLink(redis_server.url)
        try:
            await subscriber.start("resp:e")
            await link.run(("PUBLISH", "resp:e", "bad"), ("PUBLISH", "resp:e", "good"))
            await _until(lambda: heard == [b"good"])
        finally:
            await subscriber.close()
            await link.close()

    run(main())


def test_the_link_and_the_subscription_come_back_with_the_broker(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        heard: list[bytes] = []
        events: list[str] = []
        subscriber = Subscriber(
            redis_server.url,
            lambda c, d: heard.append(d),
            on_lost=lambda: events.append("lost"),
            on_back=lambda: events.append("back"),
        )
        link = BrokerLink(redis_server.url)
        try:
            await subscriber.start("resp:c")
            await link.run(("PUBLISH", "resp:c", "before"))
            await _until(lambda: heard == [b"before"])
            redis_server.stop()
            with pytest.raises(BrokerConnectionError):
                await link.run(("PING",))
            await _until(lambda: events == ["lost"])
            redis_server.start()
            await _until(lambda: events == ["lost", "back"], 10.0)
            assert await link.run(("PUBLISH", "resp:c", "after")) == [1]
            await _until(lambda: heard == [b"before", b"after"])
        finally:
            await subscriber.close()
            await link.close()

    run(main())


def test_a_subscription_started_while_the_broker_is_away_comes_when_it_is_back(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        heard: list[bytes] = []
        events: list[str] = []
        subscriber = Subscriber(
            redis_server.url,
            lambda c, d: heard.append(d),
            on_back=lambda: events.append("back"),
            retry=0.05,
        )
        redis_server.stop()
        try:
            with pytest.raises(BrokerConnectionError, match="not reachable"):
                await Subscriber(redis_server.url, lambda c, d: None).start("resp:d")
            await subscriber.start("resp:d", wait=False)  # (a worker's hints)
            await asyncio.sleep(0.2)
            assert events == []
        finally:
            redis_server.start()
        link = BrokerLink(redis_server.url)
        try:
            await _until(lambda: events == ["back"], 10.0)
            assert await link.run(("PUBLISH", "resp:d", "hint")) == [1]
            await _until(lambda: heard == [b"hint"])
        finally:
            await subscriber.close()
            await link.close()

    run(main())


def test_a_broker_that_stops_answering_drops_the_connection(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        link = BrokerLink(redis_server.url, timeout=0.5)
        assert redis_server.process is not None
        try:
            assert await link.run(("PING",)) == ["PONG"]
            redis_server.process.send_signal(signal.SIGSTOP)
            try:
                started = asyncio.get_running_loop().time()
                with pytest.raises(BrokerConnectionError, match=r"did not answer within 0\.5 s"):
                    await link.run(("PING",))
                assert asyncio.get_running_loop().time() - started < 3.0
            finally:
                redis_server.process.send_signal(signal.SIGCONT)
            assert await link.run(("PING",)) == ["PONG"]
        finally:
            await link.close()

    run(main())


def test_a_sender_is_not_answered_and_says_when_its_connection_is_lost(
    redis_server: RedisServer, run: Run
) -> None:
    async def main() -> None:
        lost: list[str] = []
        sender = BrokerSender(redis_server.url, on_lost=lambda: lost.append("lost"))
        link = BrokerLink(redis_server.url)
        try:
            await sender.connected()
            protocol = sender._protocol
            assert protocol is not None
            came: list[Any] = []
            protocol.on_push = came.append  # (whatever the broker sends the sender)
            await sender.send(("SET", "resp:sent", "1"), ("INCR", "resp:sent"))
            await sender.send(("INCR", "resp:sent"))
            await _until(lambda: _value(link, "resp:sent", "3"))
            await asyncio.sleep(0.1)
            assert came == []  # (its commands' replies are off)
            assert not protocol.waiting
            redis_server.stop()
            await _until(lambda: lost == ["lost"])
            with pytest.raises(BrokerConnectionError, match="not reachable"):
                await sender.send(("PING",))
        finally:
            redis_server.start()
            await sender.close()
            await link.close()
        sender = BrokerSender(redis_server.url)
        try:
            await sender.send(("SET", "resp:sent", "again"))  # (the next send connects again)
            link = BrokerLink(redis_server.url)
            await _until(lambda: _value(link, "resp:sent", "again"))
            await link.close()
        finally:
            await sender.close()

    run(main())


def test_a_call_sent_unanswered_fails_at_once_when_the_broker_goes(
    redis_server: RedisServer, run: Run
) -> None:
    """A command to a known owner goes without the broker's acknowledgement: a connection lost
    meanwhile fails the call at once (``table_unavailable``), not at its timeout."""

    async def main() -> None:
        client = TableClient(redis_server.url, timeout=30.0, name="sender-test")
        client.owners["t1"] = "nobody.0000"  # (no owner answers: the call waits)
        hints = Subscriber(redis_server.url, lambda c, d: None)
        await hints.start(wake_channel("nobody.0000"))
        await client.start()
        try:
            call = asyncio.ensure_future(client.call("t1", "sit_out", "alice"))
            await asyncio.sleep(0.3)
            assert not call.done()
            started = asyncio.get_running_loop().time()
            redis_server.stop()
            with pytest.raises(RemoteError, match="did not answer") as raised:
                await call
            assert raised.value.kind == "table_unavailable"
            assert asyncio.get_running_loop().time() - started < 5.0
        finally:
            redis_server.start()
            await hints.close()
            await client.close()

    run(main())


def test_the_broker_by_its_unix_socket(redis_server: RedisServer, run: Run) -> None:
    """``unix://:PASSWORD@/path/to/redis.sock?db=0``: the lean client and the ``redis`` client
    reach the broker by its socket (the local cluster's processes do)."""
    assert redis_server.socket_url.startswith("unix://:")

    async def main() -> None:
        heard: list[bytes] = []
        subscriber = Subscriber(redis_server.socket_url, lambda c, d: heard.append(d))
        link = BrokerLink(redis_server.socket_url)
        sender = BrokerSender(redis_server.socket_url)
        redis = connect(redis_server.socket_url)
        try:
            await subscriber.start("resp:u")
            assert await link.run(("PUBLISH", "resp:u", "by the socket")) == [1]
            await sender.send(("PUBLISH", "resp:u", "unanswered"))
            await _until(lambda: heard == [b"by the socket", b"unanswered"])
            assert await redis.ping()
            with pytest.raises(BrokerConnectionError, match="not reachable"):
                await BrokerLink(redis_server.socket_url.replace(".sock", ".none")).run(("PING",))
        finally:
            await subscriber.close()
            await link.close()
            await sender.close()
            await redis.aclose()

    run(main())


async def _value(link: BrokerLink, key: str, wanted: str) -> bool:
    return bool(await link.run(("GET", key)) == [wanted])


async def _until(check: Any, seconds: float = 5.0) -> None:
    """Until ``check()`` (true, or a coroutine that comes to true) holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await _held(check()):
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def _held(result: Any) -> bool:
    return bool(await result) if inspect.isawaitable(result) else bool(result)

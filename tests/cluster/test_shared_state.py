"""The cluster's shared state in PostgreSQL (docs/cluster.md): the sign-in and sign-up
throttles of two gateways count the same failures; a table's state (its waiting list, who
sits in) outlives its owner; which gateways a player is connected through (the broker), with
expiry so a killed gateway's word does not stick."""

from __future__ import annotations

import asyncio

from feltroom.cluster.broker import Presence, connect
from feltroom.room.throttles import StoredThrottle
from feltroom.store import open_storage
from services import RedisServer


def test_two_gateways_throttles_count_the_same_failures(pg_url: str) -> None:
    now = [1000.0]
    store_a, store_b = open_storage(pg_url), open_storage(pg_url)
    try:
        on_a = StoredThrottle(store_a, "address", 3, 60.0, lambda: now[0])
        on_b = StoredThrottle(store_b, "address", 3, 60.0, lambda: now[0])
        other = StoredThrottle(store_b, "signup", 3, 60.0, lambda: now[0])
        stamps = [on_a.fail("10.0.0.7"), on_b.fail("10.0.0.7")]
        assert on_a.wait("10.0.0.7") == on_b.wait("10.0.0.7") == 0.0
        now[0] += 10
        on_a.fail("10.0.0.7")
        # Three failures within the window, two of them through A: B refuses for as long.
        assert on_b.wait("10.0.0.7") == 50.0
        assert on_a.wait("10.0.0.7") == 50.0
        assert on_b.wait("10.0.0.8") == 0.0  # another address
        assert other.wait("10.0.0.7") == 0.0  # another throttle
        on_b.forgive("10.0.0.7", stamps[0])
        assert on_a.wait("10.0.0.7") == 0.0
        on_a.fail("10.0.0.7")
        assert on_b.wait("10.0.0.7") > 0
        on_b.clear("10.0.0.7")
        assert on_a.wait("10.0.0.7") == 0.0
        for _ in range(3):
            on_a.fail("10.0.0.9")
        now[0] += 61  # out of the window
        assert on_b.wait("10.0.0.9") == 0.0
    finally:
        store_a.close()
        store_b.close()


def test_a_table_state_is_kept_in_the_books(pg_url: str) -> None:
    store = open_storage(pg_url)
    try:
        with store.transaction() as tx:
            tx.put_table_states({"t1": '{"waiting": ["carol", "alice"]}', "t2": '{"waiting": []}'})
        with store.transaction() as tx:
            tx.put_table_states({"t1": '{"waiting": ["alice"]}'})  # replaced
        with store.transaction(write=False) as tx:
            assert tx.table_state("t1") == '{"waiting": ["alice"]}'
            assert tx.table_state("t2") == '{"waiting": []}'
            assert tx.table_state("t3") is None
    finally:
        store.close()


def test_gateways_count_a_players_connections_and_a_dead_gateways_word_expires(
    redis_server: RedisServer,
) -> None:
    async def main() -> None:
        redis = connect(redis_server.url)
        try:
            a, b = Presence(redis, "gw-a", ttl=30), Presence(redis, "gw-b", ttl=30)
            killed = Presence(redis, "gw-killed", ttl=0.5)
            await a.here(["carol", "dave"])
            await b.here(["carol"])
            assert await a.gone("carol") == 1  # B still holds her: not disconnected
            assert await b.gone("carol") == 0  # her last connection anywhere
            assert await a.gone("dave") == 0
            await killed.here(["erin"])
            await b.here(["erin"])
            assert await b.gone("erin") == 1  # the killed gateway's word, while it lasts
            await asyncio.sleep(0.8)
            assert await b.gone("erin") == 0  # ... and no longer
        finally:
            await redis.aclose()

    asyncio.run(main())

"""The throwaway broker the cluster tests run on: a real Redis that requires a password
(docs/cluster.md: the broker requires authentication)."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, ResponseError

from services import RedisServer


def test_the_broker_refuses_a_client_without_the_password(redis_server: RedisServer) -> None:
    async def main() -> None:
        anonymous = aioredis.Redis(host="127.0.0.1", port=redis_server.port)
        with pytest.raises((AuthenticationError, ResponseError), match=r"(?i)auth"):
            await anonymous.ping()
        await anonymous.aclose()
        wrong = aioredis.Redis(host="127.0.0.1", port=redis_server.port, password="wrong")
        with pytest.raises((AuthenticationError, ResponseError)):
            await wrong.ping()
        await wrong.aclose()
        client = aioredis.Redis.from_url(redis_server.url)
        assert await client.ping()
        await client.aclose()

    asyncio.run(main())

"""The broker's names and messages (Redis 7 through the official ``redis`` client's asyncio API;
docs/cluster.md).

- ``commands:<table>``: a stream of commands for a table; its owner reads it in the consumer
  group ``owners`` and a new owner claims what the last one left pending.
- ``events:<table>``: a pub/sub channel of the table's messages, already built per viewer
  and encoded (the frames a connection is sent); hole cards cross it, so the broker belongs on a
  private network and requires a password.
- ``replies:<client>``: a pub/sub channel of the replies to one client's commands.
- ``gateways``: a pub/sub channel every gateway listens to: the operator's requests that
  concern every connection (close a player's connections, a broadcast, who is online); each
  gateway answers on the sender's reply channel.
- ``worker:<owner>``: a key per live worker, expiring with its heartbeat (rebalancing).
- ``lobby:<table>``: the table's lobby entry, written by its owner every third of the lease and
  expiring with it; ``status:<owner>``: a worker's figures. The gateways' lobby is the table
  definitions in the database joined with these.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlsplit

import redis.asyncio as aioredis

from feltroom.room.errors import RoomError

__all__ = [
    "GROUP",
    "Presence",
    "broker_check",
    "command_stream",
    "connect",
    "events_channel",
    "gateways_channel",
    "lobby_key",
    "process_name",
    "reply_channel",
    "status_key",
    "worker_key",
]

GROUP = "owners"
PREFIX = "feltroom:"


def command_stream(table_id: str) -> str:
    return f"{PREFIX}commands:{table_id}"


def events_channel(table_id: str) -> str:
    return f"{PREFIX}events:{table_id}"


def reply_channel(client: str) -> str:
    return f"{PREFIX}replies:{client}"


def gateways_channel() -> str:
    return f"{PREFIX}gateways"


def process_name() -> str:
    """This process's name on the cluster: the host and the process id."""
    host = socket.gethostname().split(".")[0][:16] or "host"
    return f"{host}-{os.getpid()}"[:32]


def worker_key(owner: str) -> str:
    return f"{PREFIX}worker:{owner}"


def lobby_key(table_id: str) -> str:
    return f"{PREFIX}lobby:{table_id}"


def status_key(owner: str) -> str:
    return f"{PREFIX}status:{owner}"


def presence_key(player: str) -> str:
    return f"{PREFIX}presence:{player}"


# The gateways a player is connected through: a sorted set per player, each gateway scored with
# when its say-so expires (the broker's clock, in ms), so a killed gateway's stops counting.
_HERE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
    redis.call('ZADD', key, now + tonumber(ARGV[2]), ARGV[1])
    redis.call('PEXPIRE', key, ARGV[2])
end
return #KEYS
"""
_GONE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
"""


class Presence:
    """Which gateways a player is connected through, shared on the broker, so that two
    gateways never disagree about a player: one whose last connection here ends is shown
    disconnected only if no other gateway still has a connection of theirs. Each gateway says
    so again every ``refresh`` seconds for the players it holds; its word lasts ``ttl``."""

    def __init__(self, redis: aioredis.Redis, gateway: str, ttl: float = 5.0) -> None:
        self.redis = redis
        self.gateway = gateway
        self.ttl_ms = max(1, int(ttl * 1000))

    async def here(self, players: Iterable[str]) -> None:
        """This gateway holds a connection of each of these players."""
        keys = [presence_key(p) for p in players]
        if keys:
            await self.redis.eval(_HERE, len(keys), *keys, self.gateway, self.ttl_ms)

    async def gone(self, player: str) -> int:
        """The player's last connection through this gateway ended: how many other gateways
        still hold one of theirs."""
        left = await self.redis.eval(_GONE, 1, presence_key(player), self.gateway)
        return int(left)


def connect(url: str) -> aioredis.Redis:
    """A client of the broker at ``url`` (``redis://:PASSWORD@host:port/db``, or ``rediss://``
    for TLS). A URL without a password is refused: the broker must require one."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        raise RoomError(
            f"--broker {url!r}: use redis://:PASSWORD@host:6379/0 (or rediss:// for TLS)"
        )
    if not parts.password:
        raise RoomError(
            "--broker needs the broker's password (redis://:PASSWORD@host:6379/0): hole cards "
            "cross the broker, which must require authentication (docs/cluster.md)"
        )
    return aioredis.Redis.from_url(url, decode_responses=True, health_check_interval=5)


def broker_check(url: str) -> Callable[[], Awaitable[None]]:
    """A readiness check of the broker at ``url`` for ``GET /readyz`` (``create_app``'s
    ``ready_checks``): it answers ``PING``."""

    async def check() -> None:
        client = connect(url)
        try:
            await client.ping()
        finally:
            await client.aclose()

    return check

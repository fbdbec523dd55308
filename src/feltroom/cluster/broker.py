"""The broker's names and messages (Redis 7 through the official ``redis`` client's asyncio API;
docs/cluster.md).

- ``commands:<table>``: a stream of commands for a table; its owner reads it in the consumer
  group ``owners`` and a new owner claims what the last one left pending.
- ``events:<table>``: a pub/sub channel of the table's messages, already built per viewer
  and encoded (the frames a connection is sent); hole cards cross it, so the broker belongs on a
  private network and requires a password.
- ``replies:<client>``: a pub/sub channel of the replies to one client's commands.
- ``worker:<owner>``: a key per live worker, expiring with its heartbeat (rebalancing).
- ``lobby:<table>``: the table's lobby entry, written by its owner every third of the lease and
  expiring with it; ``status:<owner>``: a worker's figures. The gateways' lobby is the table
  definitions in the database joined with these.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import redis.asyncio as aioredis

from feltroom.room.errors import RoomError

__all__ = [
    "GROUP",
    "broker_check",
    "command_stream",
    "connect",
    "events_channel",
    "lobby_key",
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


def worker_key(owner: str) -> str:
    return f"{PREFIX}worker:{owner}"


def lobby_key(table_id: str) -> str:
    return f"{PREFIX}lobby:{table_id}"


def status_key(owner: str) -> str:
    return f"{PREFIX}status:{owner}"


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

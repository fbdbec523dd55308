"""The broker's names and messages (Redis 7 through the official ``redis`` client's asyncio API;
docs/cluster.md).

- ``commands:<table>``: a stream of commands for a table; its owner reads it in the consumer
  group ``owners`` and a new owner claims what the last one left pending.
- ``wake:<owner>``: a pub/sub channel of hints: a gateway that knows a table's owner (from
  the owners' lobby hashes) appends a command to the table's stream and publishes it whole on
  the owner's channel (the table's id, a newline, the command as JSON) in the same round trip;
  the owner runs it from the hint and takes its entry from the stream (read without
  acknowledgement) in the round trip of the reply. A hint of a table's id alone (a worker whose
  subscription came back) has the table's stream read. The owner still reads every held stream
  twenty times a second, backing off while they are empty, for the commands that came without a
  hint (the owner changed) or whose hint was lost (a hint is not stored); a command both read
  and hinted runs once.
- ``events:<table>``: a pub/sub channel of the table's messages, already built per viewer
  and encoded (the frames a connection is sent); hole cards cross it, so the broker belongs on a
  private network and requires a password.
- ``replies:<client>``: a pub/sub channel of the replies to one client's commands.
- ``gateways``: a pub/sub channel every gateway listens to: the operator's requests that
  concern every connection (close a player's connections, a broadcast, who is online); each
  gateway answers on the sender's reply channel.
- ``worker:<owner>``: a key per live worker, expiring with its heartbeat (rebalancing); its
  value is the worker's direct-link address (``feltroom.cluster.direct``), or ``1`` for none.
- ``lobby:<owner>``: a hash of the lobby entries of the tables a worker holds (table id to
  entry), written by the worker every third of the lease: only the entries that changed, and
  those of tables it no longer holds removed, so that a round costs a few commands however many
  tables it holds; ``status:<owner>``: a worker's figures. Both expire with twice the lease. The
  gateways' lobby is the table definitions in the database joined with the hashes of the live
  workers (those whose ``worker:<owner>`` key is there): a killed worker's tables leave the
  lobby when its key expires, and are back when their new owner writes them.
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
    "TOURNAMENT_ENTRY",
    "Presence",
    "broker_check",
    "command_stream",
    "connect",
    "events_channel",
    "gateways_channel",
    "lobby_key",
    "owner_of",
    "process_name",
    "reply_channel",
    "status_key",
    "wake_channel",
    "worker_key",
]

GROUP = "owners"
PREFIX = "feltroom:"


def command_stream(table_id: str) -> str:
    return f"{PREFIX}commands:{table_id}"


def wake_channel(owner: str) -> str:
    return f"{PREFIX}wake:{owner}"


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


TOURNAMENT_ENTRY = "tournament:"
"""The prefix of a tournament's entry in a worker's lobby hash (``lobby:<owner>``), before its
id: ``{"lobby": its lobby entry, "tables": its tables' ids, "held": whether it runs there}``."""


def lobby_key(owner: str) -> str:
    return f"{PREFIX}lobby:{owner}"


def owner_of(key: str) -> str:
    """The owner named by a ``worker:<owner>`` key."""
    return key[len(worker_key("")) :]


def status_key(owner: str) -> str:
    return f"{PREFIX}status:{owner}"


def presence_key(gateway: str) -> str:
    return f"{PREFIX}presence:{gateway}"


# The player's last connection through the gateway of KEYS[1] ended: remove them from its set,
# and count the other gateways' sets (KEYS[2..], each expiring with its gateway's word) that
# hold them.
_GONE = """
redis.call('SREM', KEYS[1], ARGV[1])
local n = 0
for i = 2, #KEYS do
    n = n + redis.call('SISMEMBER', KEYS[i], ARGV[1])
end
return n
"""


class Presence:
    """Which gateways a player is connected through, shared on the broker, so that two
    gateways never disagree about a player: one whose last connection here ends is shown
    disconnected only if no other gateway still has a connection of theirs. Each gateway keeps
    a set of the players it holds (``presence:<gateway>``) whose word lasts ``ttl`` seconds;
    ``keep`` renews it every few seconds (one command, however many players), so a killed
    gateway's set expires and stops counting."""

    def __init__(self, redis: aioredis.Redis, gateway: str, ttl: float = 5.0) -> None:
        self.redis = redis
        self.gateway = gateway
        self.key = presence_key(gateway)
        self.ttl_ms = max(1, int(ttl * 1000))

    async def here(self, players: Iterable[str]) -> None:
        """This gateway holds a connection of each of these players (its word renewed)."""
        players = list(players)
        async with self.redis.pipeline(transaction=False) as pipe:
            if players:
                pipe.sadd(self.key, *players)
            pipe.pexpire(self.key, self.ttl_ms)
            await pipe.execute()

    async def keep(self, players: Iterable[str]) -> None:
        """Renew this gateway's word; ``players`` are every player it holds now, which the set
        becomes exactly (what a failed removal left over goes)."""
        players = list(players)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.key)
            if players:
                pipe.sadd(self.key, *players)
                pipe.pexpire(self.key, self.ttl_ms)
            await pipe.execute()

    async def renew(self) -> bool:
        """Renew this gateway's word (one command); False when its set is gone (it expired, or
        the broker restarted): ``keep`` it again."""
        return bool(await self.redis.pexpire(self.key, self.ttl_ms))

    async def gone(self, player: str) -> int:
        """The player's last connection through this gateway ended: how many other gateways
        still hold one of theirs."""
        others = [
            key
            async for key in self.redis.scan_iter(match=presence_key("*"), count=1000)
            if key != self.key
        ]
        left = await self.redis.eval(_GONE, 1 + len(others), self.key, *others, player)
        return int(left)


POOL_CONNECTIONS = 200
"""A client's connections to the broker at most (its commands in flight at once)."""
POOL_WAIT = 20.0
"""Seconds a command waits for one of them before it fails (the broker is then away)."""


def connect(url: str) -> aioredis.Redis:
    """A client of the broker at ``url`` (``redis://:PASSWORD@host:port/db``, ``rediss://``
    for TLS, or ``unix://:PASSWORD@/path/to/redis.sock?db=0`` for a broker on the same host by
    its socket). A URL without a password is refused: the broker must require one."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise RoomError(
            f"--broker {url!r}: use redis://:PASSWORD@host:6379/0 (rediss:// for TLS, or "
            "unix://:PASSWORD@/path/to/redis.sock?db=0 for a broker on this host)"
        )
    if not parts.password:
        raise RoomError(
            "--broker needs the broker's password (redis://:PASSWORD@host:6379/0): hole cards "
            "cross the broker, which must require authentication (docs/cluster.md)"
        )
    # A burst of commands (thousands of players connecting or registering through one gateway
    # at once) waits for one of the pool's connections rather than failing with "Too many
    # connections" past the client's default of 100.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_CONNECTIONS,
        timeout=POOL_WAIT,
        decode_responses=True,
        health_check_interval=5,
    )
    return aioredis.Redis.from_pool(pool)


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

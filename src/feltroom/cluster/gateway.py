"""``feltroom serve --role gateway``: the connections of a cluster (docs/cluster.md).

A gateway serves the HTTP API, the browser client and the websocket protocol with the single
process's code (``feltroom.server.app.room_app``, ``feltroom.server.session.Hub``); what it does
not have is a room. ``GatewayHub`` is the hub whose tables run elsewhere:

- **Sessions** are rows in PostgreSQL (``Accounts``), so any gateway knows any token, and a
  sign-out on one gateway ends the session everywhere; the per-connection inbound rate limits
  stay here, with the connection.
- **Commands**: every message about a table (``observe``, ``sit``, ``act``...) goes, as the
  client sent it, to the table's owner through its stream (``TableClient``); the owner runs it
  with the single process's hub (``Hub.run_for``) and sends back the frames that connection is
  sent (the reply or the typed error, a snapshot), which the gateway forwards as they are.
- **Events**: the gateway subscribes to the channel of each table one of its connections
  watches; each batch carries the frames of the observers and of each person (built by the
  owner with ``feltroom.server.wire``, R-DEAL-4, R-HIST-2) and each connection is sent exactly
  the frames of its viewer. Batches are numbered by the owner (its lease epoch, a sequence): a
  batch the owner had published before a snapshot it built is not forwarded after it. An
  owner with direct links (``feltroom.cluster.direct``) gets the commands, and sends the
  replies and batches, on the gateway's link to it instead; the gateway watches each table on
  its owner's link, and at the next owner when the table changes hands (with a snapshot for
  its watchers).
- **The lobby** is the table definitions in the database joined with the entries the owners
  write to the broker (``lobby:<table>``); chat lines cross the table's channel to every
  gateway.
- **The operator API and console** (docs/operator.md) are served by every gateway
  (``feltroom.cluster.operator.ClusterRoom``): an action on a table goes to its owner like a
  player's command; what concerns connections (closing a suspended player's, a broadcast, who
  is online) goes to every gateway on the ``gateways`` channel, and each answers for its own.
  The player's protection calls (``/api/me/limits``...) and session-time reminder too.
- **Tournaments** (docs/cluster.md) run each on one worker with all its tables: the gateway
  knows them from the owners' lobby hashes (their lobby entries and their tables' ids), sends a
  command about a tournament or one of its tables to the tournament's owner (its stream, or the
  owner's direct link), serves ``/api/tournaments`` and registration (``ClusterTournaments``),
  and sends its connections the tournament's news that the owner publishes on the ``gateways``
  channel (``moved`` with the new table's snapshot, ``tournament``, ``tournament_result``).
- **Home games** (docs/home-games.md, "In a cluster"): ``/api/games`` and the invite link's
  routes over ``feltroom.cluster.games.ClusterGames``; a host's ``game`` message goes to the
  owner of the game's table, and the game's news (``game_news`` on the ``gateways`` channel)
  to the connections of each person concerned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import msgspec
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from feltroom.cluster.broker import broker_check
from feltroom.room.accounts import Accounts
from feltroom.room.errors import RoomError
from feltroom.room.histories import HandHistories
from feltroom.room.operators import OperatorLog
from feltroom.room.protection import Protection
from feltroom.room.runtime.settings import HomeSettings
from feltroom.room.signins import SignInLog
from feltroom.room.storage import Storage
from feltroom.server import protocol
from feltroom.server.app import STATIC, room_app
from feltroom.server.games_api import games_routes
from feltroom.server.observe import probe_routes
from feltroom.server.operator_api import operator_routes
from feltroom.server.protection_api import protection_routes
from feltroom.server.rest import ApiError, RestLimits, RoomServices, tournament_routes
from feltroom.server.session import (
    ANSWERED,
    Connection,
    Hub,
    HubSettings,
    Message,
    UnknownGame,
    UnknownTable,
    UnknownTournament,
    limits_of,
    welcome,
)

from .broker import (
    TOURNAMENT_ENTRY,
    Presence,
    events_channel,
    gateways_channel,
    lobby_key,
    owner_of,
    process_name,
    status_key,
    worker_key,
)
from .client import RemoteError, TableClient
from .direct import DirectLink
from .games import ClusterGames
from .operator import ClusterRoom

__all__ = ["GatewayHub", "Unavailable", "gateway_app"]

log = logging.getLogger("feltroom.cluster")

_LOCAL = ("hello", "ping", "lobby", "lobby_stop", "chat", "mute")
"""The messages a gateway answers itself; every other one is about a table and goes to its
owner."""
_WATCHING = ("observe", "sit", "wait_list")
"""The messages after which a connection may watch a table: the gateway listens to the table's
channel before the owner builds the snapshot."""

Position = tuple[int, int]

LINGER = 6.0
"""Seconds a table's last lobby entry stays in the lobby once no live worker's hash has it."""
TOURNAMENT_LINGER = 30.0
"""The same for a tournament: it stays known while its killed owner's lease lapses and another
worker takes it over from its journal."""


class GatewayHub(Hub):
    """The connections of one gateway; the tables run on the workers (module docstring)."""

    def __init__(
        self,
        storage: Storage,
        accounts: Accounts,
        client: TableClient,
        settings: HubSettings | None = None,
        *,
        refresh_every: float = 1.0,
    ) -> None:
        self._setup(accounts, settings, time.monotonic)
        self.storage = storage
        self.client = client
        self.protection = Protection(storage, OperatorLog(storage, accounts.clock), accounts.clock)
        self.refresh_every = refresh_every
        self.started_at = time.time()
        self.tables: list[str] = []
        self._lobby: list[dict[str, Any]] = []
        self._lobby_seen: dict[str, tuple[float, str]] = {}  # when each entry was last read
        self._status: dict[str, Any] = {}
        self._channels: set[str] = set()
        self._gateways = gateways_channel().encode()
        self._tasks: list[asyncio.Task[None]] = []
        self._views: set[asyncio.Task[None]] = set()
        # Which gateways each player is connected through (the broker): set by open_broker.
        self.presence: Presence | None = None
        self._presence_rounds = 0
        # A connection's commands in flight at a table (batches wait for their reply), and the
        # position of the last snapshot forwarded to it (older batches are not forwarded).
        self._inflight: dict[tuple[Connection, str], int] = {}
        self._held: dict[tuple[Connection, str], list[dict[str, Any]]] = {}
        self._holders: dict[str, set[Connection]] = {}  # per table, the connections held
        self._floor: dict[tuple[Connection, str], Position] = {}
        # The tables watched on an owner's direct link (``feltroom.cluster.direct``): which
        # owner's. A table whose owner changes is watched again at the next one.
        self._direct_at: dict[str, str] = {}
        # The tournaments the owners' lobby hashes show (each one's entry, when last read) and
        # the tournament of each of their tables.
        self._tournaments: dict[str, dict[str, Any]] = {}
        self._tournaments_seen: dict[str, float] = {}
        self._table_tournament: dict[str, str] = {}

    # -------------------------------------------------------------- lifecycle

    async def open_broker(self) -> None:
        """Subscribe and start the gateway's own loops (the lifespan calls it)."""
        self.client.on_batch = self._on_direct_batch
        self.client.on_link_lost = self._on_link_lost
        await self.client.start(
            gateways_channel(),  # the operator's requests
            on_message=self._on_message,
            on_lost=self._on_broker_lost,
            on_back=self._on_broker_back,
        )
        self.presence = Presence(
            self.client.redis, self.client.name, ttl=max(5.0, 5 * self.refresh_every)
        )
        await self._refresh()
        self._tasks = [asyncio.create_task(self._refresh_loop(), name="lobby refresh")]
        self.start()

    async def stop(self) -> None:
        await super().stop()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        await self.client.close()  # (its subscriber is the gateway's too)

    def _detach(self) -> None:
        pass  # no room to stop hearing

    # -------------------------------------------------------------- the room, from elsewhere

    def _table_ids(self) -> list[str]:
        return list(self.tables)

    def _playing_at(self, table_id: str) -> int | None:
        return None  # the owner answers stale hands itself

    def _lobby_entries(self) -> list[dict[str, Any]]:
        return self._lobby

    def _lobby_tournaments(self) -> list[dict[str, Any]]:
        return [dict(entry["lobby"]) for entry in self._tournaments.values()]

    def _route(self, table_id: str) -> str:
        """Where a table's commands go: its tournament's owner (the tournament's stream), or
        the table's own."""
        return self._table_tournament.get(table_id, table_id)

    async def _call(self, table_id: str, op: str, player: str, **args: Any) -> dict[str, Any]:
        """``client.call`` for a table, through its tournament when it is one's."""
        route = self._route(table_id)
        if route != table_id:
            args["table"] = table_id
        return await self.client.call(route, op, player, **args)

    def status(self) -> dict[str, Any]:
        """The room's figures: every live worker's summed, and this gateway's uptime."""
        return self._status

    def _now(self) -> float:
        return self.accounts.clock()

    def _check_table(self, table_id: str) -> None:
        if table_id not in self.tables and table_id not in self._table_tournament:
            raise UnknownTable(f"no table {table_id!r}; tables are {', '.join(self.tables)}")

    def _seats_of(self, player: str) -> list[tuple[str, int]]:
        with self.storage.transaction(write=False) as tx:
            rows = tx.seats_of_player(player)
        tables = set(self.tables)
        return [(row.table_id, row.seat) for row in rows if row.table_id in tables]

    async def _refresh_loop(self) -> None:
        while True:
            await asyncio.sleep(self.refresh_every)
            try:
                await self._refresh()
            except Exception as error:  # the database or the broker restarts: keep the last
                log.warning("gateway: refreshing the lobby failed: %s", error)
            await self._keep_presence()
            await self._unsubscribe_unwatched()
            await self._rewatch()

    def _definitions(self) -> list[str]:
        with self.storage.transaction(write=False) as tx:
            return sorted(tx.table_definitions())

    async def _refresh(self) -> None:
        self.tables = await run_in_threadpool(self._definitions)
        redis = self.client.redis
        owners_live = [
            owner_of(k) async for k in redis.scan_iter(match=worker_key("*"), count=1000)
        ]
        async with redis.pipeline(transaction=False) as pipe:
            for owner in owners_live:
                pipe.hgetall(lobby_key(owner))
                pipe.get(status_key(owner))
                pipe.get(worker_key(owner))  # (its direct link's address)
            replies = await pipe.execute() if owners_live else []
        held: dict[str, str] = {}
        owners: dict[str, str] = {}
        addresses: dict[str, str] = {}
        for owner, address in zip(owners_live, replies[2::3], strict=True):
            if address:
                text = address.decode() if isinstance(address, bytes) else str(address)
                if text != "1":  # (a worker without a direct link)
                    addresses[owner] = text
        listed: set[tuple[str, str]] = set()  # (table, owner) of each hash's entries
        now = time.monotonic()
        found: dict[str, dict[str, Any]] = {}  # each tournament's entry
        for owner, entries in zip(owners_live, replies[0::3], strict=True):
            for table_id, entry in (entries or {}).items():
                if isinstance(table_id, bytes):
                    table_id = table_id.decode()
                if table_id.startswith(TOURNAMENT_ENTRY):
                    tournament_id = table_id[len(TOURNAMENT_ENTRY) :]
                    shown = _decode(entry)
                    shown["owner"] = owner
                    before = found.get(tournament_id)
                    if before is None or (shown.get("held") and not before.get("held")):
                        found[tournament_id] = shown  # (the one that runs it, if any)
                    listed.add((tournament_id, owner))
                    continue
                held.setdefault(table_id, entry)  # (two while a table changes hands: either)
                owners.setdefault(table_id, owner)
                listed.add((table_id, owner))
        for tournament_id, shown in found.items():
            self._tournaments[tournament_id] = shown
            self._tournaments_seen[tournament_id] = now
            self._know_tables(tournament_id, shown.get("tables") or ())
        for tournament_id, entry in self._tournaments.items():
            if entry["owner"] in owners_live:  # (a finished one: the worker that ran it)
                owners[tournament_id] = entry["owner"]
        for tournament_id, at in list(self._tournaments_seen.items()):
            if now - at > TOURNAMENT_LINGER:  # (no live worker shows it any more)
                del self._tournaments_seen[tournament_id]
                self._tournaments.pop(tournament_id, None)
        # The owner known so far stays while it is alive and its hash lists the table or no
        # hash does (a worker that took the table said so before its hash shows it).
        live = set(owners_live)
        for table_id, owner in self.client.owners.items():
            if owner in live and (table_id not in owners or (table_id, owner) in listed):
                owners[table_id] = owner
        self.client.owners = owners
        self.client.addresses = addresses
        # A table between two owners (handed over, or its worker killed) is in neither hash
        # for a moment: its last entry stays in the lobby for a few seconds meanwhile.
        for table_id, text in held.items():
            self._lobby_seen[table_id] = (now, text)
        seen = self._lobby_seen
        entries = [
            _decode(seen[t][1]) for t in self.tables if t in seen and now - seen[t][0] < LINGER
        ]
        # a home game's table is routed to its owner like any, but listed in no lobby
        self._lobby = [entry for entry in entries if not entry.get("home")]
        statuses = [_decode(text) for text in replies[1::3] if text]
        self._status = _summed(statuses, len(self._lobby), time.time() - self.started_at)

    async def _know_table(self, table_id: str) -> None:
        """A home game's table defined since the last refresh (a game just created, through
        any gateway) is known at once: the definitions are read again."""
        if table_id.startswith("home-") and table_id not in self.tables:
            self.tables = await run_in_threadpool(self._definitions)

    def _know_tables(self, tournament_id: str, tables: Any) -> None:
        for table_id in tables:
            self._table_tournament[str(table_id)] = tournament_id

    # -------------------------------------------------------------- events

    async def _subscribe(self, table_id: str) -> None:
        """Listen to the table's channel (its chat, and the batches of an owner without a
        direct link) and watch it on its owner's direct link."""
        channel = events_channel(table_id)
        events = self.client.subscriber  # (the replies' subscription carries the tables')
        if channel not in self._channels and events is not None:
            await events.subscribe(channel)
            self._channels.add(channel)
        await self._watch_direct(table_id)

    async def _watch_direct(self, table_id: str) -> bool:
        """Watch the table on its owner's direct link, unless watched there already (and no
        longer at its last owner's); whether where it is watched changed."""
        client = self.client
        owner = client.owners.get(self._route(table_id))
        was = self._direct_at.get(table_id)
        if owner == was:
            return False
        if was is not None:
            del self._direct_at[table_id]
            old = client.links.get(was)
            if old is not None:
                old.unwatch(table_id)
        link = await client.direct_link(owner) if owner is not None else None
        if link is not None:
            link.watch(table_id)
            self._direct_at[table_id] = link.owner
        return was is not None or link is not None

    async def _rewatch(self) -> None:
        """The watched tables whose owner changed (or whose link was lost) are watched at the
        new owner, and their watchers sent a snapshot: batches may have been lost meanwhile."""
        for channel in list(self._channels):
            await self._rewatch_table(channel.rsplit(":", 1)[1])

    async def _rewatch_table(self, table_id: str) -> None:
        if await self._watch_direct(table_id):
            for connection in list(self.by_table.get(table_id, ())):
                self._later(self._refresh_view(connection, table_id))

    async def _new_owner(self, table_id: str, owner: str, address: object) -> None:
        """A worker took the table and said so (``ClusterWorker._announce_owner``)."""
        self.client.owners[table_id] = owner
        if isinstance(address, str) and address != "1":
            self.client.addresses[owner] = address
        if events_channel(table_id) in self._channels:
            await self._rewatch_table(table_id)
        for table, tournament_id in list(self._table_tournament.items()):
            if tournament_id == table_id and events_channel(table) in self._channels:
                await self._rewatch_table(table)

    def _on_direct_batch(self, data: bytes) -> None:
        self._deliver(_decode(data))

    def _on_link_lost(self, link: DirectLink) -> None:
        """A worker's direct link was lost: its tables are watched again at the next
        refresh (at their owner then)."""
        lost = [t for t, owner in self._direct_at.items() if owner == link.owner]
        for table_id in lost:
            del self._direct_at[table_id]
        if lost:
            log.warning("gateway: the direct link to %s was lost", link.owner)

    async def _unsubscribe_unwatched(self) -> None:
        busy = {table for _, table in self._inflight}
        idle = [
            c
            for c in self._channels
            if (t := c.rsplit(":", 1)[1]) not in self.by_table and t not in busy
        ]
        for channel in idle:
            table_id = channel.rsplit(":", 1)[1]
            owner = self._direct_at.pop(table_id, None)
            link = self.client.links.get(owner) if owner is not None else None
            if link is not None:
                link.unwatch(table_id)
        events = self.client.subscriber
        if idle and events is not None:
            self._channels.difference_update(idle)
            await events.unsubscribe(*idle)

    def _on_message(self, channel: bytes, data: bytes) -> None:
        """A message on a channel this gateway listens to: a table's batch, or an operator's
        request to every gateway (a message that cannot be handled is logged by the
        subscription, which goes on)."""
        if channel == self._gateways:
            self._later(self._answer_safely(data))
            return
        self._deliver(_decode(data))

    def _on_broker_lost(self) -> None:
        log.warning("gateway: the broker is unreachable; its subscriptions wait for it")

    def _on_broker_back(self) -> None:
        """Batches may have been lost meanwhile: a snapshot for every watcher."""
        log.warning("gateway: the broker is back; snapshots for every watcher")
        for connection in list(self.connections):
            for table_id in list(connection.tables):
                self._later(self._refresh_view(connection, table_id))

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._views.add(task)
        task.add_done_callback(self._views.discard)

    async def _answer_safely(self, data: bytes) -> None:
        try:
            await self._answer(_decode(data))
        except Exception:
            log.exception("gateway: an operator's request could not be answered")

    async def _answer(self, request: dict[str, Any]) -> None:
        """An operator's request to every gateway (``TableClient.gather``), for this one's
        connections."""
        op, args = request.get("op"), request.get("args") or {}
        result: dict[str, Any]
        if op == "owner":  # a worker with direct links took a table: watch it there now
            await self._new_owner(str(args["table"]), str(args["owner"]), args.get("address"))
            return
        if op == "tournament_news":
            await self._tournament_news(args)
            return
        if op == "game_news":
            await self._game_news(args)
            return
        if op == "close_player":
            result = {"closed": self.close_player(str(args["player"]), str(args["reason"]))}
        elif op == "broadcast":
            result = {"connections": self.broadcast(str(args["text"]))}
        elif op == "online":
            result = {"players": self.connected(), "connections": len(self.connections)}
        elif op == "set_reminder":
            player = str(args["player"])
            if player in self.reminders or player in self.by_player:
                self.set_reminder(player, int(args["minutes"]))
            result = {}
        else:
            log.warning("gateway: unknown request %r", op)
            return
        try:
            await self.client.answer(request, {"gateway": self.client.name, "result": result})
        except (RedisError, OSError) as error:
            log.warning("gateway: the answer to %s was not sent: %s", op, error)

    async def _tournament_news(self, args: dict[str, Any]) -> None:
        """A tournament's news (``ClusterWorker._on_tournament``): each player's frames to
        their connections here; a moved player's connections watch the new table (its
        snapshot is in their frames) and no longer the old one."""
        tournament_id = str(args["tournament"])
        players: dict[str, list[str]] = args.get("players") or {}
        subscribe: set[str] = set()
        for move in args.get("moves") or ():
            to_table = str(move["to"])
            self._table_tournament.setdefault(to_table, tournament_id)
            for connection in list(self.by_player.get(str(move["player"]), ())):
                if move.get("from"):
                    self._unwatch(connection, str(move["from"]))
                self._watch(connection, to_table)
                self._floor[(connection, to_table)] = (int(move["epoch"]), int(move["seq"]))
                subscribe.add(to_table)
        for player, frames in players.items():
            for connection in list(self.by_player.get(player, ())):
                for frame in frames:
                    connection.send_frame(_with_mutes(connection, frame))
        for table_id in sorted(subscribe):
            await self._subscribe(table_id)

    async def _refresh_view(self, connection: Connection, table_id: str) -> None:
        if connection.player is None or connection.closed:
            return
        async with self._holding(connection, table_id) as key:
            with contextlib.suppress(RemoteError):
                result = await self._call(table_id, "resume_view", connection.player)
                self._send_result(connection, key, result)

    def _deliver(self, batch: dict[str, Any]) -> None:
        table_id = str(batch.get("table"))
        if "chat" in batch:
            self.chat_out(table_id, batch["chat"])
            return
        # The connections watching, and those whose command is at the owner: one that is not
        # watching yet (its ``sit`` or ``observe``) holds the batch too, and is sent it after
        # the reply if it then watches and the reply's snapshot does not show it.
        targets = set(self.by_table.get(table_id, ())) | self._holders.get(table_id, set())
        for connection in targets:
            key = (connection, table_id)
            held = self._held.get(key)
            if held is not None:
                held.append(batch)
            else:
                self._forward_batch(connection, key, batch)

    def _forward_batch(
        self, connection: Connection, key: tuple[Connection, str], batch: dict[str, Any]
    ) -> None:
        floor = self._floor.get(key)
        if floor is not None and (batch["epoch"] or 0, batch["seq"]) <= floor:
            return  # the snapshot the connection was sent already shows it
        players: dict[str, list[str]] = batch["players"]
        frames = players.get(connection.player or "", batch["observer"])
        for frame in frames:
            connection.send_frame(_with_mutes(connection, frame))

    def _unwatch(self, connection: Connection, table_id: str) -> None:
        super()._unwatch(connection, table_id)
        self._floor.pop((connection, table_id), None)

    # -------------------------------------------------------------- commands

    async def _dispatch(self, connection: Connection, kind: str, m: Any) -> Message | None:
        if kind in _LOCAL:
            return await super()._dispatch(connection, kind, m)
        assert connection.player is not None
        if kind == "tournament":
            return await self._tournament_message(connection, m)
        if kind in ("game", "game_request"):
            return await self._game_message(connection, m)
        table_id: str = m.table
        await self._know_table(table_id)
        self._check_table(table_id)
        if kind in _WATCHING:
            await self._subscribe(table_id)
        frame = msgspec.json.encode(m).decode()
        watching = table_id in connection.tables
        async with self._holding(connection, table_id) as key:
            try:
                result = await self._call(
                    table_id, "message", connection.player, frame=frame, watching=watching
                )
            except RemoteError as error:
                raise Unavailable(table_id, error.message) from None
            if result.get("watching"):
                self._watch(connection, table_id)
            else:
                self._unwatch(connection, table_id)
            self._send_result(connection, key, result)
        return ANSWERED

    async def _tournament_message(self, connection: Connection, m: Any) -> Message | None:
        """``tournament``: the player's view, from the tournament's owner."""
        assert connection.player is not None
        tournament_id = str(m.tournament)
        if tournament_id not in self._tournaments:
            known = sorted(self._tournaments)
            raise UnknownTournament(
                f"no tournament {tournament_id!r}; tournaments are {', '.join(known) or 'none'}",
                {"tournament": tournament_id, "tournaments": known},
            )
        return await self._forward(connection, tournament_id, m)

    async def _game_message(self, connection: Connection, m: Any) -> Message | None:
        """``game`` (a host's control) and ``game_request`` (a player withdrawing their own
        request): at the owner of the game's table, where the game runs."""
        assert connection.player is not None
        table_id = f"home-{m.game}"
        await self._know_table(table_id)
        if table_id not in self.tables:
            raise UnknownGame(f"no game {m.game!r} of yours; GET /api/games lists your games")
        return await self._forward(connection, table_id, m)

    async def _forward(self, connection: Connection, owner_id: str, m: Any) -> Message | None:
        """A message the owner of ``owner_id`` (a tournament, a home game's table) answers:
        sent there as the player's, its frames back to this connection."""
        assert connection.player is not None
        frame = msgspec.json.encode(m).decode()
        try:
            result = await self.client.call(
                owner_id, "message", connection.player, frame=frame, watching=False
            )
        except RemoteError as error:
            raise Unavailable(owner_id, error.message) from None
        for text in result.get("frames", []):
            connection.send_frame(text)
        return ANSWERED

    async def _game_news(self, args: dict[str, Any]) -> None:
        """A home game's news (``ClusterWorker._on_game``): each person's frames (``game``,
        ``game_request``) to their connections here; a player seated now watches the table
        from the seat (its snapshot from the owner), as in the single process."""
        table_id = str(args["table"])
        players: dict[str, list[str]] = args.get("players") or {}
        for player, frames in players.items():
            for connection in list(self.by_player.get(player, ())):
                for frame in frames:
                    connection.send_frame(frame)
        seated = [p for p in args.get("seated") or () if p in self.by_player]
        if seated:
            await self._subscribe(table_id)
        for player in seated:
            for connection in list(self.by_player.get(player, ())):
                self._watch(connection, table_id)
                self._later(self._refresh_view(connection, table_id))

    def _send_result(
        self, connection: Connection, key: tuple[Connection, str], result: dict[str, Any]
    ) -> None:
        frames: list[str] = result.get("frames", [])
        if any(
            '"snapshot"' in frame and _decode(frame).get("type") == "snapshot" for frame in frames
        ):
            self._floor[key] = (result.get("epoch") or 0, int(result.get("seq", 0)))
        for frame in frames:
            connection.send_frame(_with_mutes(connection, frame))

    @contextlib.asynccontextmanager
    async def _holding(
        self, connection: Connection, table_id: str
    ) -> AsyncIterator[tuple[Connection, str]]:
        """While a command of the connection's is at the table's owner, the table's batches
        wait for its reply; then those the reply's snapshot does not show are forwarded."""
        key = (connection, table_id)
        self._inflight[key] = self._inflight.get(key, 0) + 1
        self._held.setdefault(key, [])
        self._holders.setdefault(table_id, set()).add(connection)
        try:
            yield key
        finally:
            left = self._inflight[key] - 1
            if left:
                self._inflight[key] = left
            else:
                del self._inflight[key]
                holders = self._holders.get(table_id, set())
                holders.discard(connection)
                if not holders:
                    self._holders.pop(table_id, None)
                for batch in self._held.pop(key, []):
                    if table_id in connection.tables:
                        self._forward_batch(connection, key, batch)

    async def _hello(self, connection: Connection, m: Any) -> Message | None:
        player = await self._authenticate(connection, m)
        await self._begin_session(player, self.protection)
        await self._here([player])
        seats = await run_in_threadpool(self._seats_of, player)
        views = await self._tournament_views(player)
        everywhere = [
            *seats,
            *((r["table"], int(r["seat"])) for r in views if r.get("table") and r.get("seat")),
        ]
        connection.send(welcome(m.id, player, everywhere, self._now(), limits_of(self.settings)))
        for result in views:  # (the tournaments' tables where the player plays, and their views)
            table_id = result.get("table")
            if isinstance(table_id, str):
                await self._subscribe(table_id)
                self._watch(connection, table_id)
                self._send_result(connection, (connection, table_id), result)
            else:
                for text in result.get("frames", []):
                    connection.send_frame(text)
        for table_id, _ in seats:
            await self._subscribe(table_id)
            self._watch(connection, table_id)
            async with self._holding(connection, table_id) as key:
                try:
                    result = await self.client.call(table_id, "resume_view", player)
                except RemoteError as error:
                    # The table is changing hands: its new owner's snapshot reaches every
                    # watcher of the table when it is rebuilt.
                    log.info("gateway: %s resumes at %s later: %s", player, table_id, error)
                    continue
                self._send_result(connection, key, result)
        return None

    async def _tournament_views(self, player: str) -> list[dict[str, Any]]:
        """Where the player plays in each tournament still running or open, and their view
        of it, from each tournament's owner (one where the player has no entry answers no
        frame; one that does not answer now is left out: the player's next ``tournament``
        message, or a move, brings it)."""
        running = [
            t
            for t, entry in self._tournaments.items()
            # (each one open or running: the lobby read may predate the player's entry)
            if entry.get("held") and entry["lobby"].get("state") not in ("finished", "cancelled")
        ]

        async def one(tournament_id: str) -> dict[str, Any] | None:
            try:
                result = await self.client.call(tournament_id, "resume_view", player, timeout=3.0)
                if isinstance(result.get("table"), str):
                    self._table_tournament.setdefault(result["table"], tournament_id)
                return result
            except RemoteError as error:
                log.info("gateway: %s's view of %s later: %s", player, tournament_id, error)
                return None

        results = await asyncio.gather(*(one(t) for t in running))
        return [r for r in results if r is not None and r.get("frames")]

    async def _here(self, players: list[str]) -> None:
        """Tell the other gateways these players are connected here (the broker)."""
        if self.presence is None:
            return
        try:
            await self.presence.here(players)
        except (RedisError, OSError) as error:
            log.warning("gateway: the players' presence was not stored: %s", error)

    async def _keep_presence(self) -> None:
        """Renew this gateway's word about its players every refresh (one command); every
        tenth, or when the word was gone, say again exactly which players it holds."""
        if self.presence is None:
            return
        self._presence_rounds = (self._presence_rounds + 1) % 10
        try:
            if self._presence_rounds == 0 or not await self.presence.renew():
                await self.presence.keep(list(self.by_player))
        except (RedisError, OSError) as error:
            log.warning("gateway: the players' presence was not stored: %s", error)

    async def _elsewhere(self, player: str) -> int:
        """How many other gateways still hold a connection of the player's (0 when the broker
        does not answer: the player is shown disconnected, as by a single gateway)."""
        if self.presence is None:
            return 0
        try:
            return await self.presence.gone(player)
        except (RedisError, OSError) as error:
            log.warning("gateway: the presence of %s is unknown: %s", player, error)
            return 0

    async def _disconnected(self, player: str) -> None:
        """The player's last connection here ended: their seats are shown disconnected unless
        another gateway still holds a connection of theirs; then it is looked at again once
        that gateway's word has expired (it may have been killed)."""
        if player in self.by_player:
            return  # connected here again meanwhile
        others = await self._elsewhere(player)
        if others:
            log.info("gateway: %s is still connected through %d other gateway(s)", player, others)
            self._later(self._look_again(player))
            return
        for table_id, _ in await run_in_threadpool(self._seats_of, player):
            with contextlib.suppress(RemoteError):
                await self.client.call(table_id, "disconnect", player)

    async def _look_again(self, player: str) -> None:
        assert self.presence is not None
        await asyncio.sleep(self.presence.ttl_ms / 1000 + self.refresh_every)
        await self._disconnected(player)

    async def _chat(self, connection: Connection, m: Any) -> Message | None:
        line = self._chat_line(connection, m)
        batch = {"table": m.table, "chat": line}
        try:
            await self.client.redis.publish(events_channel(m.table), json.dumps(batch))
        except (RedisError, OSError) as error:
            raise Unavailable(m.table, str(error)) from None
        return None


class ClusterTournaments:
    """The tournaments' routes of a gateway (``feltroom.server.rest.tournament_routes``): the
    list from the owners' lobby hashes; one tournament whole, a registration and a withdrawal
    answered by the tournament's owner (a refusal is the owner's, word for word)."""

    def __init__(self, hub: GatewayHub) -> None:
        self.hub = hub
        self.accounts = hub.accounts

    def tournaments_lobby(self) -> list[dict[str, Any]]:
        return self.hub._lobby_tournaments()

    def tournament_ids(self) -> list[str]:
        return sorted(self.hub._tournaments)

    async def _owner_call(self, tournament_id: str, op: str, player: str) -> dict[str, Any]:
        try:
            return await self.hub.client.call(tournament_id, op, player)
        except RemoteError as error:
            if error.kind == "table_unavailable":
                raise ApiError(
                    503,
                    "unavailable",
                    f"tournament {tournament_id} is changing hands or its worker is away; "
                    "nothing changed, try again",
                ) from None
            if error.details:
                raise ApiError(409, "refused", error.message, details=error.details) from None
            raise RoomError(error.message) from None

    async def tournament_detail(self, tournament_id: str) -> dict[str, Any]:
        return await self._owner_call(tournament_id, "detail", "")

    async def register_tournament(self, tournament_id: str, account: str) -> dict[str, Any]:
        return await self._owner_call(tournament_id, "register", account)

    async def unregister_tournament(self, tournament_id: str, account: str) -> dict[str, Any]:
        return await self._owner_call(tournament_id, "unregister", account)


class Unavailable(RoomError):
    """No owner answers for the table now (it is changing hands, or the broker restarts):
    the sender gets ``refused`` with ``details.reason`` ``table_unavailable``; nothing changed
    that the sender does not see, and it may send again."""

    def __init__(self, table_id: str, why: str) -> None:
        super().__init__(f"table {table_id} is not reachable now ({why}); try again")
        self.details = {"reason": "table_unavailable", "table": table_id}


_decode = msgspec.json.Decoder().decode


def _with_mutes(connection: Connection, frame: str) -> str:
    """A snapshot the owner built shows no mutes (they are the connection's, kept here by the
    gateway that holds it): the viewer's own are put in before it is sent."""
    if not connection.muted or '"snapshot"' not in frame:
        return frame
    message = json.loads(frame)
    if message.get("type") != "snapshot":
        return frame
    message["muted"] = sorted(connection.muted.get(message.get("table", ""), ()))
    return protocol.encode(message)


def _summed(statuses: list[dict[str, Any]], tables: int, uptime: float) -> dict[str, Any]:
    """The figures of every live worker as one room's."""
    selftests = [s["last_selftest"] for s in statuses if s.get("last_selftest")]
    upcoming = [s["next_selftest_at"] for s in statuses if s.get("next_selftest_at")]
    return {
        "tables": tables,
        "workers": len(statuses),
        "paused": sorted(t for s in statuses for t in s.get("paused", ())),
        "hands_settled": sum(int(s.get("hands_settled", 0)) for s in statuses),
        "commits": sum(int(s.get("commits", 0)) for s in statuses),
        "uptime_seconds": round(uptime, 1),
        "voided_at_start": sum(int(s.get("voided_at_start", 0)) for s in statuses),
        "next_selftest_at": min(upcoming) if upcoming else None,
        "last_selftest": max(selftests, key=lambda s: s.get("at") or 0) if selftests else None,
    }


def gateway_app(
    storage: Storage,
    accounts: Accounts,
    services: RoomServices,
    broker_url: str,
    *,
    limits: RestLimits | None = None,
    hub_settings: HubSettings | None = None,
    sign_ins: SignInLog | None = None,
    histories: HandHistories | None = None,
    home: HomeSettings | None = None,
) -> Starlette:
    """The application of a gateway: the single process's routes over a ``GatewayHub``
    (``home``: the operator's bounds for home games, as the workers have them)."""
    name = f"gateway-{process_name()}.{secrets.token_hex(3)}"
    hub = GatewayHub(storage, accounts, TableClient(broker_url, name=name), hub_settings)
    operator_room = ClusterRoom(hub)
    tournaments = ClusterTournaments(hub)
    games = ClusterGames(storage, accounts, hub.client, home)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        games.start()
        try:
            await hub.open_broker()
            try:
                yield
            finally:
                await hub.stop()
        finally:
            await games.stop()

    return room_app(
        hub,
        services,
        lobby=hub._lobby_entries,
        status=hub.status,
        lifespan=lifespan,
        tournaments=hub._lobby_tournaments,
        histories=histories,
        limits=limits,
        sign_ins=sign_ins,
        shared_throttles=True,
        extra_routes=[
            *tournament_routes(tournaments, limits),
            *games_routes(games, STATIC, limits),
            *protection_routes(operator_room),
            *operator_routes(operator_room, STATIC),
            *probe_routes(
                storage, lambda: False, ready_checks={"broker": broker_check(broker_url)}
            ),
        ],
    )

"""``feltroom serve --role worker``: a process that owns tables under leases (docs/cluster.md).

- **Leases**: every third of the lease a thread of its own renews the worker's leases (a table
  whose lease lapsed or moved stops here at once); the worker says it is alive on the broker,
  and takes free or lapsed tables
  up to its fair share (the tables over the live workers); over its share it hands one table
  over between hands. Taking a table voids the hand its last owner left unsettled (in the same
  transaction as the lease) and rebuilds it from the books.
- **Commands** come from each held table's stream and run as the single process runs them
  (``RoomRuntime`` methods, under the table's lock); the reply, or the typed error, goes to the
  sender's reply channel. Commands past their deadline are dropped (the sender gave up). A
  command whose gateway knew the owner comes whole in its hint and runs at once, and its entry
  is taken from the stream (read without acknowledgement) in the round trip that carries the
  reply; the others are read from the streams and acknowledged once answered.
- **Events**: each batch of a table's events is turned into the frames each viewer is sent, by
  the same code as the single process (``feltroom.server.wire``: R-DEAL-4, R-HIST-2), and
  published on the table's channel with the owner and its epoch; a worker with direct links
  (``--direct``, ``feltroom.cluster.direct``) writes them instead on the gateways' links that
  watch the table, answers the commands that came on a link there, and says on the
  ``gateways`` channel when it takes a table.
- **Tournaments** (docs/cluster.md): a tournament instance is leased as a table is, under its
  own id, and runs here with all its tables (``WorkerRuntime.adopt_tournament``); its commands
  (registration, a player's messages at its tables, the operator's disqualification) come on
  its stream, each naming the table; its tables' batches are built and sent as a cash table's;
  its news (``moved``, ``tournament``, ``tournament_result``) goes to every gateway on the
  ``gateways`` channel, the frames of each player named, and each gateway sends its own
  connections theirs.
- **Home games** (docs/home-games.md, "In a cluster"): a home game's table is leased as any
  table, and the game runs with it (``HomeGames.load_game`` as the table is taken); the
  gateways send its changes here (``game_join``, ``game_signup``, ``game_control``,
  ``game_withdraw``, and the protocol's ``game``, ``game_request``, ``sit`` and
  ``add_chips``), its news goes to every gateway on the ``gateways`` channel
  (``game_news``), and each lease round ends the idle games and retires an ended game's empty
  table.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import logging
import math
import secrets
import signal
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from feltroom.errors import FeltroomError
from feltroom.room import Accounts, Cashier, RoomError, Settlement
from feltroom.room.errors import InsufficientFunds
from feltroom.room.events import PlayerMoved, TableReloaded, TournamentEvent, TournamentNews
from feltroom.room.leases import Leases
from feltroom.room.runtime import RuntimeSettings, TableRunner, WatchedTable
from feltroom.room.runtime.home_games import HomeGame, HomeRefused
from feltroom.room.runtime.home_games import NotFound as HomeNotFound
from feltroom.room.runtime.tournament import TournamentRunner, TournamentTableRef
from feltroom.room.storage import Storage, TournamentRow
from feltroom.room.tables_config import TableSpec, spec_of, table_entries
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.room.worker import WorkerRuntime
from feltroom.rules import Action, Call, Check, Fold, RaiseTo
from feltroom.server import protocol
from feltroom.server.metrics import ACTION_BROADCAST
from feltroom.server.session import Hub, game_news, tournament_result
from feltroom.server.wire import Fanout, moved_message, snapshot_messages
from feltroom.table import Entry

from .broker import (
    GROUP,
    TOURNAMENT_ENTRY,
    command_stream,
    connect,
    events_channel,
    gateways_channel,
    lobby_key,
    process_name,
    reply_channel,
    status_key,
    wake_channel,
    worker_key,
)
from .direct import DirectServer, Peer, link_key
from .resp import BrokerLink, Subscriber, entries

__all__ = ["ClusterWorker", "load_definitions", "worker_name"]

KEEP_RESULTS = 5
"""The finished tournaments a worker keeps in the lobby (their results), the last ones."""


def _weight(row: TournamentRow) -> int:
    """A tournament's weight in a worker's share before it runs anywhere: one table."""
    return 1


log = logging.getLogger("feltroom.cluster")

OPERATOR_OPS = (
    "close-table",
    "reopen-table",
    "retire-table",
    "kick",
    "remove_account",
    "operator_table",
)
"""The commands of the operator API (``feltroom.cluster.operator``) a table's owner runs."""


SWEEP = 0.05
"""Seconds between a worker's reads of every held table's stream (the commands no hint named)
while such reads find commands; each read that finds none doubles the time to the next, up to
``SWEEP_MAX`` (commands come without a hint only for a moment after a table changed hands)."""
SWEEP_MAX = 0.4


def worker_name() -> str:
    """A default worker name: the host and the process (unique on the cluster)."""
    return process_name()


def load_definitions(storage: Storage, path: str | Path) -> list[TableSpec]:
    """Store the tables of a tables file as the cluster's table definitions (add or replace)."""
    text = Path(path).read_text("utf-8")
    entries = table_entries(text, str(path))
    with storage.transaction() as tx:
        for spec, entry in entries:
            tx.put_table_definition(spec.table_id, json.dumps(entry, sort_keys=True))
    return [spec for spec, _ in entries]


def _action(args: dict[str, Any]) -> Action:
    kind = args.get("action")
    if kind == "fold":
        return Fold()
    if kind == "check":
        return Check()
    if kind == "call":
        return Call()
    if kind in ("bet", "raise") and isinstance(args.get("amount"), int):
        return RaiseTo(args["amount"])
    raise RoomError(
        f"act needs action fold, check, call, or bet/raise with an amount, not {args!r}"
    )


class ClusterWorker:
    """One worker process: its leases, its tables, its side of the broker."""

    def __init__(
        self,
        storage: Storage,
        broker_url: str,
        *,
        name: str | None = None,
        lease_seconds: float = 3.0,
        settings: RuntimeSettings | None = None,
        clock: Callable[[], float] = time.time,
        handover_seconds: float = 10.0,
        direct: str | None = None,
        tournaments: Sequence[TournamentSpec] = (),
    ) -> None:
        self.name = name or worker_name()
        # Where the gateways' direct links reach this worker (``feltroom.cluster.direct``):
        # its listener's address (``HOST:PORT`` or ``unix:PATH``), none for no link.
        self.direct_address = direct
        self.direct: DirectServer | None = None
        self.address = "1"  # (its ``worker:<owner>`` key's value: the link's address)
        # How long a clean stop waits for the hands in play to end before it voids them.
        self.handover_seconds = handover_seconds
        # The lease owner is unique to this process: a restarted worker never reuses an epoch.
        self.owner = f"{self.name}.{secrets.token_hex(4)}"
        self.storage = storage
        self.broker_url = broker_url
        self.lease_seconds = lease_seconds
        self.leases = Leases(storage, self.owner, lease_seconds)
        self._real_clock = clock
        self._held_since: float | None = None
        self._held_for = 0.0
        self._holds: set[str] = set()  # what is out of reach: "broker", "database"
        clock = self.clock
        # A settlement the database cannot take now (a restart) waits until it can, as long as
        # the table is this worker's: the fence refuses it for good once another worker took
        # the table (and voided the hand), and the clocks stand still meanwhile.
        settings = dataclasses.replace(settings or RuntimeSettings(), settle_retry=math.inf)
        settlement = Settlement(storage, clock=clock, fence=self.leases.fence, shard=self.name)
        self.runtime = WorkerRuntime(
            settlement,
            Accounts(storage, clock=clock),
            Cashier(storage, clock=clock),
            self.leases,
            settings=settings,
            clock=clock,
            tournaments=tournaments,
        )
        self.runtime.add_listener(self._on_events)
        self.runtime.add_tournament_listener(self._on_tournament)
        self.runtime.home.listeners.append(self._on_game)
        # The protocol's handling of a player's messages, as the single process's hub does it;
        # the gateways hold the connections, so this hub has none and hears no events itself.
        self.hub = Hub(self.runtime)
        self.hub._detach()
        self._seq: dict[str, int] = {}
        self.redis: aioredis.Redis | None = None
        # The hot paths (commands in, replies and batches out) on a lean link of their own.
        self.link: BrokerLink | None = None
        self._hints: Subscriber | None = None
        self._hinted: set[str] = set()  # the tables the gateways' hints named, not read yet
        # The commands started here (the sender and its request's id, to when), from a hint or
        # a read of the stream: a read may bring one its hint started, and the reverse.
        self._started: dict[tuple[str, str], float] = {}
        # The tables whose hinted commands ran and whose streams still hold their entries:
        # read (without acknowledgement) in the publisher's next round trip.
        self._unread: set[str] = set()
        self._hint: asyncio.Future[None] | None = None  # the command loop's wait for one
        # What goes to the broker in order, in the publisher's round trips: each command's
        # acknowledgement and reply, each batch of a table's messages.
        self._outbox: asyncio.Queue[tuple[str, ...] | tuple[str, str, bytes]] = asyncio.Queue()
        self._lobby_sent: dict[str, str] = {}  # each table's lobby entry, as last written
        self._definitions: dict[str, TableSpec] = {}
        self._stopping = threading.Event()
        self._closed = threading.Event()  # the leases are no longer kept (after the hand-over)
        self._tasks: set[asyncio.Task[None]] = set()
        self.takeovers = 0
        self._renewal = asyncio.Event()  # set (and replaced) as each round of renewals ends

    # -------------------------------------------------------------- the tables' clock

    def clock(self) -> float:
        """The tables' clock: the real one, stopped while the tables cannot reach their players
        (the broker is unreachable) or their books (the database is), so that nobody's turn
        runs out, no protection is used and no bot acts meanwhile (R-TIME-2/3); it goes on from
        where it stopped."""
        held = self._held_since
        if held is not None:
            return held - self._held_for
        return self._real_clock() - self._held_for

    @property
    def holding(self) -> bool:
        return self._held_since is not None

    def _hold(self, why: object, what: str = "broker") -> None:
        if what not in self._holds:
            self._holds.add(what)
            reach = "the players are" if what == "broker" else "the books are"
            log.warning("worker %s: %s out of reach (%s); clocks stop", self.owner, reach, why)
        if self._held_since is None:
            self._held_since = self._real_clock()

    def _release(self, what: str = "broker") -> None:
        if what not in self._holds:
            return
        self._holds.discard(what)
        reach = "the players are" if what == "broker" else "the books are"
        log.warning("worker %s: %s back in reach", self.owner, reach)
        held = self._held_since
        if held is None or self._holds:
            return
        self._held_for += self._real_clock() - held
        self._held_since = None
        log.warning("worker %s: clocks go on", self.owner)
        for runner in list(self.runtime.runners.values()):
            runner.wake.set()
        # What was not published meanwhile may be lost: every viewer gets a snapshot, now and
        # once more when the gateways have had time to subscribe again.
        self._snapshots()
        asyncio.get_running_loop().call_later(1.0, self._snapshots)

    def _snapshots(self) -> None:
        for runner in list(self.runtime.runners.values()):
            self._on_events(runner, [TableReloaded()])

    async def _health_loop(self, every: float = 0.5) -> None:
        """Hold the clocks while the broker does not answer, or while a lease has gone
        unrenewed for longer than the lease (a renewal that hangs: the database's backend
        stopped); the keeper's next renewal lets them go on."""
        while True:
            assert self.redis is not None
            unrenewed = self.leases.unrenewed_for()
            if unrenewed > self.lease_seconds:
                self._hold(f"no lease renewed for {unrenewed:.1f} s", "database")
            try:
                await asyncio.wait_for(self.redis.ping(), max(1.0, every * 2))
            except (RedisError, OSError, TimeoutError) as error:
                self._hold(error or "no answer")
            else:
                self._release()
            await asyncio.sleep(every)

    # -------------------------------------------------------------- lifecycle

    async def run(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Run until ``stop`` (or the task is cancelled)."""
        self.redis = connect(self.broker_url)
        self.link = BrokerLink(self.broker_url)
        self._hints = Subscriber(self.broker_url, self._on_hint, on_back=self._on_hints_back)
        await self.runtime.start()
        if self.direct_address is not None:
            self.direct = DirectServer(link_key(self.broker_url), self._on_direct)
            self.address = await self.direct.start(self.direct_address)
            log.info("worker %s: direct links on %s", self.owner, self.address)
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, self._dump_tasks)
        await self._announce()
        keeper = threading.Thread(
            target=self._keep_leases,
            args=(asyncio.get_running_loop(),),
            name="feltroom-leases",
            daemon=True,
        )
        keeper.start()
        # (while the broker is away, the hints' subscription waits for it: the sweeps read)
        await self._hints.start(wake_channel(self.owner), wait=False)
        tasks = [
            asyncio.create_task(self._lease_loop(), name="leases"),
            asyncio.create_task(self._command_loop(), name="commands"),
            asyncio.create_task(self._publisher(), name="events"),
            asyncio.create_task(self._health_loop(), name="broker health"),
            asyncio.create_task(self.runtime.run(), name="room"),
        ]
        if on_ready is not None:
            on_ready(self.owner)
        try:
            while not self._stopping.is_set():
                await asyncio.sleep(0.1)
            await self._hand_over(tasks[0])
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.runtime.stop()
            if self.direct is not None:
                await self.direct.close()
            self._closed.set()
            with contextlib.suppress(RedisError):
                await self.redis.delete(worker_key(self.owner))
            await self.redis.aclose()
            await self._hints.close()
            await self.link.close()

    def stop(self) -> None:
        self._stopping.set()

    async def _hand_over(self, lease_loop: asyncio.Task[None]) -> None:
        """A clean stop: take no more tables, leave the live workers, and hand every table over
        between hands (``WorkerRuntime.give_up``), so that the other workers take them with no
        hand void; a hand still in play after ``handover_seconds`` is void (``runtime.stop``)."""
        lease_loop.cancel()
        await asyncio.gather(lease_loop, return_exceptions=True)
        assert self.redis is not None
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(worker_key(self.owner))
        held = list(self.runtime.runners)
        tournaments = self.runtime.held_tournaments()
        if not held and not tournaments:
            return
        log.info("worker %s stops: handing %s over between hands", self.owner, held + tournaments)
        handing = asyncio.gather(
            *(self.runtime.give_up(t) for t in held),
            *(self.runtime.give_up_tournament(t) for t in tournaments),
            return_exceptions=True,
        )
        try:
            await asyncio.wait_for(handing, self.handover_seconds)
        except TimeoutError:
            log.warning(
                "worker %s: hands still in play after %.0f s; they are void",
                self.owner,
                self.handover_seconds,
            )

    def _dump_tasks(self) -> None:
        """SIGUSR2: log where every task of the worker is (an operator's look at a stall)."""
        for task in asyncio.all_tasks():
            frames = task.get_stack(limit=8)
            where = " <- ".join(f"{f.f_code.co_name}:{f.f_lineno}" for f in reversed(frames))
            log.warning("task %s: %s", task.get_name(), where or "(not started)")

    async def _announce(self) -> None:
        """Say this worker is alive, then wait a third of the lease so that workers started
        together see one another before they take their shares."""
        assert self.redis is not None
        with contextlib.suppress(RedisError, OSError):
            await self.redis.set(
                worker_key(self.owner), self.address, px=int(self.lease_seconds * 1000)
            )
        await asyncio.sleep(self.lease_seconds / 3)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task kept until it ends (commands, hand-overs)."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -------------------------------------------------------------- leases

    async def _lease_loop(self) -> None:
        period = self.lease_seconds / 3
        while True:
            started = time.monotonic()
            try:
                await self._lease_round()
            except (RedisError, OSError, FeltroomError) as error:
                log.warning("worker %s: lease round failed: %s", self.owner, error)
            except Exception:
                log.exception("worker %s: lease round failed", self.owner)
            await asyncio.sleep(max(0.0, period - (time.monotonic() - started)))

    def _keep_leases(self, loop: asyncio.AbstractEventLoop) -> None:
        """A thread of its own renews the leases every third of the lease (at least every
        second), however busy the event loop is (a table being handed over keeps its lease
        until its hand is settled); the tables lost are stopped on the loop. While the database
        does not answer the clocks stop; once it does, the leases that lapsed meanwhile and
        that nobody took are renewed and the tables go on where they were."""
        period = min(self.lease_seconds / 3, 1.0)
        while not self._closed.is_set():
            started = time.monotonic()
            try:
                lost = self.leases.renew_all(self.leases.held())
            except Exception as error:  # the database is unreachable: the leases may lapse
                if "database" not in self._holds:
                    log.warning("worker %s: renewing leases failed: %s", self.owner, error)
                with contextlib.suppress(RuntimeError):  # (the loop closed: stopping)
                    loop.call_soon_threadsafe(self._hold, error, "database")
                lost = []
            else:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._release, "database")
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._renewal_round)
            for table_id in lost:
                asyncio.run_coroutine_threadsafe(self.runtime.lost(table_id), loop)
            time.sleep(max(0.0, period - (time.monotonic() - started)))

    async def _lease_round(self) -> None:
        runtime = self.runtime
        assert self.redis is not None
        await self.redis.set(
            worker_key(self.owner), self.address, px=int(self.lease_seconds * 1000)
        )
        await self._publish_lobby()
        # The home games run here: those idle too long end, and an ended game's empty table
        # retires (before the definitions are read: a retired table is taken by nobody); not
        # while the clocks stand still, nor while a game's table may be another's (a worker
        # woken after a pause: its renewal stops those tables here first).
        games = list(runtime.home.games.values())
        if not self.holding and all(self.leases.valid(g.table_id) for g in games):
            try:
                await runtime.home.tick(runtime.clock())
            except Exception:
                log.exception("worker %s: the home games' idle check failed", self.owner)
        live = 0
        async for _ in self.redis.scan_iter(match=worker_key("*"), count=1000):
            live += 1
        definitions = await asyncio.to_thread(self._read_definitions)
        if runtime.tournament_specs:  # (the instances the configuration asks for, in the books)
            try:
                await runtime.open_tournaments(runtime.clock())
            except Exception as error:  # (one opened elsewhere this moment: tried next time)
                log.info("worker %s: tournaments not opened now: %s", self.owner, error)
        instances = await self._tournament_round()
        if await runtime.open_missing(
            row.spec_id for row in instances.values() if row.status == "registering"
        ):
            instances = await self._tournament_round()
        # A worker's share counts a tournament's tables (at least one: one open for entries).
        weights = {t: max(1, len(r.tables)) for t, r in runtime.tournaments.items()}
        units = len(definitions) + sum(
            weights.get(row.tournament_id, _weight(row)) for row in instances.values()
        )
        share = math.ceil(units / max(1, live))
        held = [t for t in runtime.runners if t not in runtime.giving_up]
        mine = sum(weights.get(t, 1) for t in runtime.held_tournaments())
        free_tournaments = sorted(
            (t for t in instances if t not in runtime.tournament_tasks),
            key=lambda t: zlib.crc32(f"{self.owner}:{t}".encode()),
        )
        if free_tournaments and len(held) + mine < max(1, share):
            now, leases = await asyncio.to_thread(self.leases.all)
            running = {row.table_id for row in leases if row.expires_at > now}
            for tournament_id in free_tournaments:
                if tournament_id in running or len(held) + mine >= max(1, share):
                    continue
                if await self._take_tournament(instances[tournament_id]):
                    mine += _weight(instances[tournament_id])
        held_units = len(held) + mine
        share = max(0, share - mine)
        free: list[str] = []
        if len(held) < share:  # (the leases are read only when it may take tables)
            now, leases = await asyncio.to_thread(self.leases.all)
            running = {row.table_id for row in leases if row.expires_at > now}
            free = sorted(  # (not one of its own that lapsed: the renewals take those back)
                (t for t in definitions if t not in running and t not in runtime.runners),
                key=lambda t: zlib.crc32(f"{self.owner}:{t}".encode()),
            )
        for table_id in free:
            if len(held) >= share:
                break
            taken = await asyncio.to_thread(self.leases.take, table_id)
            if taken is None:
                continue
            log.info("table %s taken (epoch %d)", table_id, taken.lease.epoch)
            if taken.voided:
                log.warning(
                    "table %s taken over (epoch %d): hands %s void, stacks at their "
                    "start-of-hand values",
                    table_id,
                    taken.lease.epoch,
                    list(taken.voided),
                )
            self.takeovers += 1
            await self._ensure_group(table_id)
            await self._announce_owner(table_id)
            await runtime.adopt(definitions[table_id])
            held.append(table_id)
        if held_units > share + mine and held:
            table_id = max(held)  # one table a round, between hands
            log.info("%d live workers, %d tables each: handing %s over", live, share, table_id)
            self._spawn(runtime.give_up(table_id))

    async def _tournament_round(self) -> dict[str, TournamentRow]:
        """The instances the books hold as registering or running (the others' to take when
        free); a tournament that finished here gives its lease up, and the lobby keeps the last
        few results."""
        runtime = self.runtime
        for tournament_id in list(runtime.tournament_tasks):
            runner = runtime.tournaments.get(tournament_id)
            if runner is not None and runner.done:
                await runtime.finished_tournament(tournament_id)
        finished = [t for t, r in runtime.tournaments.items() if r.done]
        for tournament_id in finished[:-KEEP_RESULTS]:
            del runtime.tournaments[tournament_id]
        rows = await asyncio.to_thread(self._read_instances)
        return {row.tournament_id: row for row in rows}

    def _read_instances(self) -> list[TournamentRow]:
        with self.storage.transaction(write=False) as tx:
            return tx.tournaments(("registering", "running"))

    async def _take_tournament(self, row: TournamentRow) -> bool:
        """Take a tournament's lease if it is free and run it here with all its tables."""
        tournament_id = row.tournament_id
        taken = await asyncio.to_thread(self.leases.take, tournament_id)
        if taken is None:
            return False
        log.info("tournament %s taken (epoch %d)", tournament_id, taken.lease.epoch)
        self.takeovers += 1
        await self._ensure_group(tournament_id)
        await self._announce_owner(tournament_id)
        runner = await self.runtime.adopt_tournament(row)
        for tab in runner.tables.values():  # (what its last owner's gateways watch)
            self._on_events(tab, [TableReloaded()])
        return True

    async def _announce_owner(self, table_id: str) -> None:
        """Tell the gateways at once that this worker took the table (a worker with direct
        links): they watch it on its link before its first batch rather than at their next
        lobby read."""
        if self.direct is None or self.redis is None:
            return
        args = {"table": table_id, "owner": self.owner, "address": self.address}
        request = {"id": secrets.token_hex(8), "reply": "", "op": "owner", "args": args}
        try:
            await self.redis.publish(gateways_channel(), json.dumps(request))
        except (RedisError, OSError) as error:  # (they see it at their next lobby read)
            log.warning("worker %s: gateways not told of %s: %s", self.owner, table_id, error)

    async def _publish_lobby(self) -> None:
        """The lobby entries of the tables held here and the worker's figures, for the
        gateways (``lobby:<owner>``, ``status:<owner>``): the entries that changed since the
        last round, and those of tables no longer held removed; all of them again when the
        hash is gone (the broker restarted, or the worker was held longer than it lasts). Both
        expire with twice the lease, and the gateways read only the live workers' hashes."""
        assert self.redis is not None
        runtime = self.runtime
        expires = int(self.lease_seconds * 2000)
        now = runtime.clock()
        key = lobby_key(self.owner)
        entries = {
            table_id: json.dumps(runner.lobby(now))
            for table_id, runner in list(runtime.runners.items())
        }
        for tournament_id, tournament in list(runtime.tournaments.items()):
            entries[TOURNAMENT_ENTRY + tournament_id] = json.dumps(
                {
                    "lobby": tournament.lobby(now),
                    "tables": sorted(tournament.by_id),
                    "held": tournament_id in runtime.tournament_tasks,
                }
            )
        sent = self._lobby_sent
        if sent and not await self.redis.exists(key):
            sent = {}
        changed: dict[Any, str] = {t: e for t, e in entries.items() if sent.get(t) != e}
        gone = [t for t in sent if t not in entries]
        self._lobby_sent = {}  # (unknown until the writes are done)
        async with self.redis.pipeline(transaction=False) as pipe:
            if changed:
                pipe.hset(key, mapping=changed)
            if gone:
                pipe.hdel(key, *gone)
            pipe.pexpire(key, expires)
            pipe.set(status_key(self.owner), json.dumps(runtime.status()), px=expires)
            await pipe.execute()
        self._lobby_sent = entries

    def _read_definitions(self) -> dict[str, TableSpec]:
        with self.storage.transaction(write=False) as tx:
            rows = tx.table_definitions()
        for table_id, text in rows.items():
            if table_id not in self._definitions:
                self._definitions[table_id] = spec_of(json.loads(text), "table_definitions")
        return {t: self._definitions[t] for t in rows}

    # -------------------------------------------------------------- commands

    async def _ensure_group(self, table_id: str) -> None:
        assert self.redis is not None
        stream = command_stream(table_id)
        try:
            await self.redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        # What the last owner read and never answered is ours now.
        claimed = await self.redis.xautoclaim(stream, GROUP, self.owner, 0, "0-0", count=1000)
        self._took([(stream, entry_id, fields or {}) for entry_id, fields in claimed[1]])

    async def _command_loop(self) -> None:
        """Read the commands of the tables held here: those whose streams the gateways' hints
        name (``wake:<owner>``) as soon as a hint comes, and every table's every ``SWEEP``
        seconds (the commands that came without a hint, or whose hint was lost)."""
        swept, sweep = 0.0, SWEEP
        while True:
            if (
                not self.runtime.runners and not self.runtime.tournament_tasks
            ) or self.link is None:
                await asyncio.sleep(0.1)
                continue
            tables: list[str] = []
            try:
                waited = time.monotonic() - swept
                if waited < sweep:
                    if not self._hinted:
                        await self._next_hint(sweep - waited)
                        continue
                    hinted, self._hinted = self._hinted, set()
                    wanted = self._readable(hinted)
                    if not wanted:
                        continue
                else:
                    swept = time.monotonic()
                    self._hinted.clear()
                    wanted = tables = self._readable(
                        [*self.runtime.runners, *self.runtime.tournaments]
                    )
                    if not tables:
                        continue
                reply = await self.link.run(
                    (
                        "XREADGROUP",
                        "GROUP",
                        GROUP,
                        self.owner,
                        "COUNT",
                        100,
                        "STREAMS",
                        *(command_stream(t) for t in wanted),
                        *(">" for _ in wanted),
                    )
                )
            except ResponseError as error:  # a group lost with a restarted broker
                log.warning("worker %s: reading commands: %s", self.owner, error)
                for table_id in self._readable([*self.runtime.runners, *self.runtime.tournaments]):
                    await self._ensure_group(table_id)
                continue
            except (RedisError, OSError) as error:
                log.warning("worker %s: the broker is unreachable: %s", self.owner, error)
                await asyncio.sleep(0.5)
                continue
            started = self._took(entries(reply[0]))
            if wanted is tables:  # (a sweep)
                sweep = SWEEP if started else min(SWEEP_MAX, sweep * 2)
                self._forget_started()

    def _took(
        self, found: Iterable[tuple[str, str, dict[str, str]]], *, acknowledged: bool = True
    ) -> int:
        """Start the commands read from the streams that did not start here yet (from their
        hints); how many started. A read that is ``acknowledged`` (the sweeps, a takeover's
        claim) put each entry in the owner's pending list: one that runs is acknowledged once
        answered, one that its hint ran (or an empty one) at once. One read without
        acknowledgement (the publisher's, after hinted commands) leaves the pending list as it
        was: an entry of a table no longer held here goes back to its stream."""
        started = self._started
        count = 0
        for stream, entry_id, fields in found:
            key = (fields.get("reply", ""), fields.get("id") or entry_id)
            if not fields or key in started:
                if acknowledged:
                    self._outbox.put_nowait(("XACK", stream, GROUP, entry_id))
                continue
            table_id = stream.rsplit(":", 1)[1]
            if not acknowledged and table_id not in self.runtime.runners:
                self._outbox.put_nowait(("XADD", stream, "*", *itertools.chain(*fields.items())))
                continue
            started[key] = time.monotonic()
            count += 1
            self._spawn(self._command(table_id, fields, entry_id if acknowledged else None))
        return count

    def _forget_started(self, after: float = 60.0) -> None:
        """Forget the commands started more than ``after`` seconds ago (their entries were
        read or acknowledged long since: no read brings them again)."""
        started = self._started
        cutoff = time.monotonic() - after
        while started and next(iter(started.values())) < cutoff:
            del started[next(iter(started))]

    def _readable(self, tables: Iterable[str]) -> list[str]:
        """Those of ``tables`` whose commands this worker reads now: its tables whose lease it
        can show valid now (``Leases.valid``: a worker paused past its lease runs tables that
        may be another's), but one being handed over only while its last hand here is in play
        (its players act in it); the others' commands wait in the stream for the owner (this
        worker once it renewed the lease, or the next)."""
        runners, giving_up, valid = self.runtime.runners, self.runtime.giving_up, self.leases.valid
        tournaments = self.runtime.tournament_tasks
        return [
            t
            for t in tables
            if (
                (runner := runners.get(t)) is not None
                and valid(t)
                and (t not in giving_up or (runner.table.in_hand and runner.status == "running"))
            )
            or (t in tournaments and valid(t) and self._tournament_reads(t))
            or ((done := self.runtime.tournaments.get(t)) is not None and done.done)
        ]

    def _tournament_reads(self, tournament_id: str) -> bool:
        """A tournament's commands are read here while it runs here; once it is being handed
        over, only while a hand is in play at one of its tables (its players act in it)."""
        runner = self.runtime.tournaments.get(tournament_id)
        if runner is None:
            return False
        return runner.dealing or any(tab.table.in_hand for tab in runner.tables.values())

    def _on_hint(self, channel: bytes, hint: bytes) -> None:
        """A gateway appended a command to a table's stream: the hint is the table's id and the
        command (``TableClient.call``), which starts at once when the table's commands are read
        here (otherwise its next owner reads it from the stream); a hint of the table's id
        alone has its stream read."""
        table, newline, command = hint.partition(b"\n")
        table_id = table.decode()
        if not newline:
            self._hinted.add(table_id)
        else:
            self._start(table_id, _decode(command))
            return
        waiter = self._hint
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _on_direct(self, peer: Peer, command: bytes) -> None:
        """A command on a gateway's direct link: it runs here if the table's commands are read
        here (its reply goes back on the link); otherwise it goes to the table's stream, where
        the table's next owner reads it (and answers on the sender's reply channel)."""
        fields = _decode(command)
        table_id = str(fields.pop("table", ""))
        if self._start(table_id, fields, peer):
            return
        if table_id in self.runtime.runners and "database" in self._holds:
            # (its lease cannot be renewed now: the player hears so at once, nothing changed)
            peer.send(b"R", _encode({"id": fields.get("id"), **_unavailable(table_id)}))
            return
        stream = command_stream(table_id)
        items = itertools.chain(*((k, str(v)) for k, v in fields.items()))
        self._outbox.put_nowait(("XADD", stream, "MAXLEN", "~", "10000", "*", *items))

    def _start(self, table_id: str, fields: dict[str, str], peer: Peer | None = None) -> bool:
        """Start a command that came whole (a hint, a direct link) unless it started here
        already; false when the table's commands are not read here (nothing started)."""
        key = (fields.get("reply", ""), fields.get("id") or secrets.token_hex(8))
        if key in self._started:
            return True
        if not self._readable((table_id,)):
            return False
        self._started[key] = time.monotonic()
        self._spawn(self._command(table_id, fields, peer=peer))
        return True

    def _on_hints_back(self) -> None:
        """The hints' subscription is back: those sent meanwhile were lost; sweep at once."""
        for table_id in [*self.runtime.runners, *self.runtime.tournaments]:
            self._on_hint(b"", table_id.encode())

    async def _next_hint(self, wait: float) -> None:
        """Wait up to ``wait`` seconds for a hint."""
        loop = asyncio.get_running_loop()
        waiter = self._hint = loop.create_future()
        timer = loop.call_later(max(0.001, wait), _settle, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._hint = None

    async def _command(
        self,
        table_id: str,
        fields: dict[str, str],
        entry_id: str | None = None,
        peer: Peer | None = None,
    ) -> None:
        """Run a command and answer it: one read from the stream (``entry_id``) is then
        acknowledged; one that came in its hint has its entry read in the same round trip as
        the reply, so that no later read brings it; one that came on a direct link (``peer``)
        is answered there."""
        assert self.redis is not None
        reply: dict[str, Any] = {"id": fields.get("id")}
        stream = command_stream(table_id)
        ack = ("XACK", stream, GROUP, entry_id) if entry_id is not None else None
        try:
            if float(fields.get("deadline", "inf")) < time.time():
                if peer is None:
                    self._done_with(table_id, ack)  # the sender gave up on it
                return
            args = _decode(fields.get("args", "{}"))
            result = await self._execute(table_id, fields["op"], fields["player"], args)
            if self._finished_here(table_id) or await self._owned(
                table_id, float(fields.get("deadline", "inf"))
            ):
                reply.update(ok=True, result=result)
            else:  # (applied here while the table was another's, or may have been: lost)
                reply.update(_unavailable(table_id))
        except FeltroomError as error:
            refusal: dict[str, Any] = {"type": type(error).__name__, "message": str(error)}
            if isinstance(error, InsufficientFunds):  # (its figures, as the API gives them)
                refusal["details"] = {"balance": error.balance, "amount": error.amount}
            elif fields.get("op", "").startswith("game_"):  # (a home game's: its figures)
                details = getattr(error, "details", None)
                if details:
                    refusal["details"] = dict(details)
            reply.update(ok=False, error=refusal)
        except Exception as error:
            log.exception("table %s: command %s failed", table_id, fields)
            reply.update(ok=False, error={"type": "internal", "message": str(error)})
        except asyncio.CancelledError:  # the worker stops: done with, unanswered
            if self.link is not None and ack is not None:
                with contextlib.suppress(RedisError, OSError):
                    await self.link.run(ack)
            raise
        if peer is not None:  # (after the batches of its events, written on the link already)
            peer.send(b"R", _encode(reply))
            return
        # The command is done with and answered, after the batches of its events, in the
        # publisher's next round trip.
        self._done_with(table_id, ack)
        self._outbox.put_nowait(("PUBLISH", reply_channel(fields.get("reply", "")), _encode(reply)))

    def _finished_here(self, table_id: str) -> bool:
        """A tournament that finished here (its lease given up): it changes no more, and this
        worker answers for it (its page, its players' views) without a lease."""
        runner = self.runtime.tournaments.get(table_id)
        return runner is not None and runner.done and table_id not in self.runtime.tournament_tasks

    async def _owned(self, table_id: str, deadline: float) -> bool:
        """Whether a command just applied here was applied by the table's owner: its lease is
        valid now, or a renewal shows it kept (same epoch: nobody took the table meanwhile);
        false once the lease moved or lapsed, or at the command's deadline (its sender gave up
        on it)."""
        leases = self.leases
        while not leases.valid(table_id):
            if leases.fence.epoch(table_id) is None or time.time() >= deadline:
                return False
            renewal = self._renewal
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(renewal.wait(), min(1.0, deadline - time.time()))
        return True

    def _renewal_round(self) -> None:
        """A round of the lease keeper ended (on the loop): wake the commands waiting for it."""
        renewal, self._renewal = self._renewal, asyncio.Event()
        renewal.set()

    def _done_with(self, table_id: str, ack: tuple[str, ...] | None) -> None:
        """A command is done with: the one read is acknowledged, the hinted one's entry read."""
        if ack is not None:
            self._outbox.put_nowait(ack)
        else:
            self._unread.add(table_id)

    async def _execute(self, table_id: str, op: str, player: str, args: dict[str, Any]) -> Any:
        room = self.runtime
        if table_id in room.tournaments:  # a tournament's command: the table is in ``args``
            return await self._tournament_command(room.tournaments[table_id], op, player, args)
        if op.startswith("game_"):  # a home game's, at its table's owner (docs/home-games.md)
            return await self._game_command(table_id, op, player, args)
        if op == "join":
            entry = Entry(args.get("entry", Entry.POST.value))
            stack = await room.join(table_id, player, int(args["seat"]), args.get("buy_in"), entry)
            return {"stack": stack}
        if op == "act":
            await room.act(table_id, player, _action(args), args.get("hand"))
            return {}
        if op == "add_chips":
            return {"stack": await room.add_chips(table_id, player, int(args["amount"]))}
        if op == "join_waiting_list":
            return {"place": await room.join_waiting_list(table_id, player)}
        simple: dict[str, Callable[[str, str], Awaitable[object]]] = {
            "leave": room.leave,
            "sit_out": room.sit_out,
            "sit_in": room.sit_in,
            "disconnect": room.disconnect,
            "resume": room.resume,
            "leave_waiting_list": room.leave_waiting_list,
        }
        if op in simple:
            await simple[op](table_id, player)
            return {}
        if op == "message":  # a protocol message a gateway forwarded
            frames, watching = await self.hub.run_for(
                player, table_id, str(args["frame"]), bool(args.get("watching"))
            )
            return {"frames": frames, "watching": watching, **self._position(table_id)}
        if op == "resume_view":  # the player's connection (on a gateway) said hello
            frames = await self.hub.resume_for(player, table_id)
            return {"frames": frames, **self._position(table_id)}
        if op == "snapshot":
            return {"frames": self._snapshot_frames(room.runner(table_id), player)}
        if op in OPERATOR_OPS:  # an operator's action a gateway forwarded (docs/operator.md)
            return await self._operator(table_id, op, player, args)
        raise RoomError(
            f"unknown command {op!r}; valid: join, act, add_chips, join_waiting_list, "
            f"{', '.join(simple)}, message, resume_view, snapshot, {', '.join(OPERATOR_OPS)}"
        )

    async def _game_command(
        self, table_id: str, op: str, player: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        """A home game's call that a gateway forwarded to its table's owner, where the game
        runs (``feltroom.server.games_api``): a seat asked for through the invite link, a
        sign-up through it counted against the game's seats (or given back), a host's
        control. The answers and refusals are the single process's."""
        home = self.runtime.home
        game = home.game_of_table(table_id)
        if game is None:
            raise HomeRefused(f"table {table_id} runs no home game here")
        if op in ("game_join", "game_signup"):
            if home.by_invite(str(args.get("secret"))) is not game:
                raise HomeNotFound(
                    "no game at this link: it is wrong, renewed or the game has ended"
                )
            if op == "game_signup":
                if args.get("back"):
                    home.give_back_signup(game)
                else:
                    home.take_signup(game)
                await home.store(game)
                return {"signups": game.signups}
            seat, buy_in = args.get("seat"), int(args["buy_in"])
            result = await home.join(game, player, None if seat is None else int(seat), buy_in)
            return {**result, "game": game.view(player)}
        if op == "game_control":
            fields = dict(args.get("fields") or {})
            done = await home.control(game.game_id, player, str(args["control"]), fields)
            return {"game": done.view(player)}
        if op == "game_withdraw":
            withdrawn = await home.withdraw(game.game_id, player, int(args["request"]))
            return {"game": withdrawn.view(player)}
        raise RoomError(
            f"unknown home game command {op!r}; valid: game_join, game_signup, game_control, "
            "game_withdraw"
        )

    async def _tournament_command(
        self, tournament: TournamentRunner, op: str, player: str, args: dict[str, Any]
    ) -> Any:
        """A command for a tournament run here: a player's registration or withdrawal, its
        page (``detail``), a protocol message about it or one of its tables, a resumed
        connection's view, the operator's disqualification (R-TOURN-15)."""
        room = self.runtime
        tournament_id = tournament.tournament_id
        table_id = str(args.get("table") or tournament_id)
        if op == "register":
            return await room.register_tournament(tournament_id, player)
        if op == "unregister":
            return await room.unregister_tournament(tournament_id, player)
        if op == "detail":
            return tournament.detail(room.clock())
        if op == "message":
            frames, watching = await self.hub.run_for(
                player, table_id, str(args["frame"]), bool(args.get("watching"))
            )
            return {"frames": frames, "watching": watching, **self._position(table_id)}
        if op == "resume_view":
            return self._resume_tournament(tournament, player, args.get("table"))
        if op == "snapshot":
            tab = tournament.by_id.get(table_id)
            if tab is None:
                raise RoomError(f"tournament {tournament_id} has no table {table_id!r} now")
            return {"frames": self._snapshot_frames(tab, player)}
        if op == "disqualify":
            done = await tournament.disqualify(player, room.clock())
            return {"disqualified": done is not None}
        raise RoomError(
            f"unknown tournament command {op!r}; valid: register, unregister, detail, message, "
            "resume_view, snapshot, disqualify"
        )

    def _resume_tournament(
        self, tournament: TournamentRunner, player: str, table_id: object
    ) -> dict[str, Any]:
        """A player's connection said hello (or its gateway watches the tournament's table
        at a new owner): the snapshot of the table where the player sits (or of ``table_id``,
        watched), and their view of the tournament."""
        frames: list[str] = []
        seated: str | None = None
        seat: int | None = None
        for at in tournament.tables.values():
            if (found := at.table.seat_of(player)) is not None:
                seated, seat = at.table_id, found
        shown = seated or (table_id if isinstance(table_id, str) else None)
        tab = tournament.by_id.get(shown or "")
        if tab is not None:
            frames += self._snapshot_frames(tab, player)
        view = tournament.player_view(player, self.runtime.clock())
        if view is not None:
            frames.append(protocol.encode({"type": "tournament", "ref": None, **view}))
        position = self._position(tab.table_id) if tab is not None else {}
        return {"frames": frames, "table": seated, "seat": seat, **position}

    async def _operator(
        self, table_id: str, op: str, player: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        """The operator's actions at a table of this worker: ``player`` is the operator (the
        account, for ``remove_account``); each is written to the operator log here, by the
        table's owner, as the single process does it."""
        room = self.runtime
        if op == "operator_table":
            return room.runner(table_id).operator_view()
        if op == "remove_account":
            return {"left": await room.remove_from(table_id, player, int(args["entry"]))}
        reason = str(args["reason"])
        if op == "kick":
            return await room.kick(table_id, str(args["player"]), player, reason)
        actions = {
            "close-table": room.close_table,
            "reopen-table": room.reopen_table,
            "retire-table": room.retire_table,
        }
        return await actions[op](table_id, player, reason)

    # -------------------------------------------------------------- events

    def _position(self, table_id: str) -> dict[str, int]:
        """Where the table's published batches are now: a gateway drops a batch older than a
        snapshot it forwards (same epoch, a sequence number not above this one)."""
        epoch = self.leases.fence.epoch(self._lease_of(table_id)) or 0
        return {"epoch": epoch, "seq": self._seq.get(table_id, 0)}

    def _lease_of(self, table_id: str) -> str:
        """The lease a table runs under: its own, or its tournament's."""
        if table_id in self.runtime.runners:
            return table_id
        found = self.runtime.tournament_table(table_id)
        return table_id if found is None else found[0].tournament_id

    def _snapshot_frames(self, runner: WatchedTable, player: str | None) -> list[str]:
        seat = runner.table.seat_of(player) if player is not None else None
        return [protocol.encode(message) for message in snapshot_messages(runner, seat)]

    def _on_events(self, runner: WatchedTable, events: Sequence[object]) -> None:
        """The frames of a batch for every viewer: the observers and each person seated (at a
        cash table, and at a tournament's)."""
        bots: Collection[str]
        if isinstance(runner, TableRunner):
            bots, lease = runner.bots, runner.table_id
        elif isinstance(runner, TournamentTableRef):
            found = self.runtime.tournament_table(runner.table_id)
            if found is None:
                return
            bots, lease = found[0].bot_names, found[0].tournament_id
        else:
            return
        # A player's action run here (``Hub.run_for`` noted when): its batch, queued below for
        # the gateways, is its broadcast (the single process's feltroom_action_broadcast_seconds).
        began = self.hub._acting.pop(runner.table_id, None)
        table = runner.table
        fanout = Fanout(runner, events)

        def encoded(messages: list[dict[str, Any]]) -> list[str]:
            return [protocol.encode_once(message, fanout.frames) for message in messages]

        observer = encoded(fanout.messages(None, None))
        players: dict[str, list[str]] = {}
        for seat, person in table.seats.items():
            if person.account in bots:
                continue
            players[person.account] = encoded(fanout.messages(seat, person.account)) + (
                self._snapshot_frames(runner, person.account) if fanout.reloaded else []
            )
        for account in table.waiting:
            if account not in players:
                players[account] = encoded(fanout.away(account))
        seq = self._seq[runner.table_id] = self._seq.get(runner.table_id, 0) + 1
        payload = {
            "table": runner.table_id,
            "seq": seq,
            "owner": self.owner,
            "epoch": self.leases.fence.epoch(lease),
            "at": time.time(),
            "observer": observer + (self._snapshot_frames(runner, None) if fanout.reloaded else []),
            "players": players,
        }
        if self.direct is not None:  # (on the links that watch it; nothing on the broker)
            self.direct.send_batch(runner.table_id, _encode(payload))
        else:
            self._outbox.put_nowait(("PUBLISH", events_channel(runner.table_id), _encode(payload)))
        if began is not None:
            ACTION_BROADCAST.observe(time.perf_counter() - began)
        if isinstance(runner, TableRunner):
            self.runtime.note_state(runner)  # (the waiting list, who sits in: for a takeover)

    def _on_tournament(self, events: Sequence[TournamentEvent]) -> None:
        """A tournament's news for every gateway (the ``gateways`` channel): a moved player's
        ``moved`` message and the new table's snapshot (their gateway watches the new table), a
        ``tournament`` view for each player named, and a ``tournament_result`` once their
        place is final; each gateway sends its own connections theirs."""
        now = self.runtime.clock()
        by_tournament: dict[str, list[TournamentEvent]] = {}
        for event in events:
            by_tournament.setdefault(event.tournament, []).append(event)
        for tournament_id, news in by_tournament.items():
            tournament = self.runtime.tournaments.get(tournament_id)
            if tournament is None:
                continue
            bots = tournament.bot_names
            players: dict[str, list[str]] = {}
            moves: list[dict[str, Any]] = []
            named: set[str] = set()
            results: set[str] = set()
            for event in news:
                if isinstance(event, PlayerMoved):
                    if event.account in bots:
                        continue
                    target = tournament.by_id.get(event.to_table)
                    if target is None:
                        continue
                    message = moved_message(event)
                    frames = players.setdefault(event.account, [])
                    frames.append(protocol.encode(message))
                    frames += self._snapshot_frames(target, event.account)
                    moves.append(
                        {
                            "player": event.account,
                            "from": event.from_table,
                            "to": event.to_table,
                            **self._position(event.to_table),
                        }
                    )
                elif isinstance(event, TournamentNews):
                    named.update(a for a in event.accounts if a not in bots)
                    results.update(event.results)
            # The batch's news is one change: each player named gets one view of where it
            # left them (worked out now, the same for every piece of news), after their moves.
            views = tournament.player_views(sorted(named), now)
            for account in sorted(named):
                view = views.get(account)
                if view is None:
                    continue
                frames = players.setdefault(account, [])
                frames.append(protocol.encode({"type": "tournament", "ref": None, **view}))
                result = tournament_result(view) if account in results else None
                if result is not None:
                    frames.append(protocol.encode(result))
            if not players:
                continue
            request = {
                "id": secrets.token_hex(8),
                "reply": "",
                "op": "tournament_news",
                "args": {"tournament": tournament_id, "players": players, "moves": moves},
            }
            self._outbox.put_nowait(("PUBLISH", gateways_channel(), _encode(request)))

    def _on_game(
        self, game: HomeGame, answered: list[tuple[str, dict[str, Any]]], line: str | None
    ) -> None:
        """A home game run here changed: the game to its host, co-hosts, players and those
        asking (each as they may see it), each answer to the player who asked, for every
        gateway (the ``gateways`` channel: each sends its own connections theirs, and watches
        the table for a player seated now); the host's action as a line at the table."""
        messages, seated, said = game_news(game, answered, line, self.runtime.clock())
        players = {
            person: [protocol.encode(message) for message in sent]
            for person, sent in messages.items()
        }
        args = {"table": game.table_id, "players": players, "seated": seated}
        request = {"id": secrets.token_hex(8), "reply": "", "op": "game_news", "args": args}
        self._outbox.put_nowait(("PUBLISH", gateways_channel(), _encode(request)))
        if said is not None:  # (the line at the table crosses the table's channel)
            batch = {"table": game.table_id, "chat": said}
            self._outbox.put_nowait(("PUBLISH", events_channel(game.table_id), _encode(batch)))

    async def _publisher(self) -> None:
        """Publish the batches and the replies in order, none dropped (the clocks stop until
        they are published); what waits is sent together, in one round trip."""
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < 200 and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            unread = self._readable(self._unread)
            self._unread.clear()
            if unread:  # (the hinted commands' entries: no later read brings them)
                batch.append(
                    (
                        "XREADGROUP",
                        "GROUP",
                        GROUP,
                        self.owner,
                        "COUNT",
                        "100",
                        "NOACK",
                        "STREAMS",
                        *(command_stream(t) for t in unread),
                        *(">" for _ in unread),
                    )
                )
            assert self.link is not None
            attempt = 0
            while True:
                try:
                    replies = await self.link.run(*batch)
                    if unread:
                        self._took(entries(replies[-1]), acknowledged=False)
                    break
                except ResponseError as error:  # (all were run: an acknowledgement of a
                    log.warning("worker %s: %s", self.owner, error)  # group the broker lost)
                    break
                except (RedisError, OSError) as error:
                    self._hold(error)
                    if attempt == 0:
                        log.warning(
                            "publishing %d batches failed (%s); retrying", len(batch), error
                        )
                    attempt += 1
                    await asyncio.sleep(min(1.0, 0.1 * attempt))


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(dict[str, Any]).decode


def _unavailable(table_id: str) -> dict[str, Any]:
    """The answer to a command of a table whose lease this worker cannot show valid: nothing
    changed, and the sender may send it again (to the table's owner)."""
    message = f"table {table_id} is changing hands or cannot reach its books; nothing changed"
    return {"ok": False, "error": {"type": "table_unavailable", "message": message}}


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)

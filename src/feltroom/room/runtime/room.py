"""The room (``RoomRuntime``): it wires the services (the room's own, and the writer's
``books_*``), opens the books and every table at start, drives them (``run`` on the real clock,
``advance`` on a fake one), stops them, runs the shuffle self-test on its schedule (R-RNG-2),
publishes every table's batches to the listeners, and answers where a player sits. Its parts:
``SeatCommands`` (a person's commands), ``TournamentsHost`` and ``OperatorActions``; it is the
``RoomHost`` of every table's runner. The package's docstring (``feltroom.room.runtime``) says
how the runtime works as a whole.
"""

from __future__ import annotations

import asyncio
import bisect
import concurrent.futures
import contextlib
import logging
import multiprocessing
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from feltroom.room.accounts import Accounts, Argon2Settings
from feltroom.room.cashier import Cashier
from feltroom.room.errors import InsufficientFunds, RoomError, UnknownAccount
from feltroom.room.events import TournamentEvent
from feltroom.room.lobby import TableStats
from feltroom.room.operators import OperatorLog
from feltroom.room.protection import Protection, check_may_play
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.home_games import HomeGames
from feltroom.room.runtime.host import Listener, TournamentListener, WatchedTable
from feltroom.room.runtime.operator_actions import OperatorActions, closed_tables, define_table
from feltroom.room.runtime.seat_commands import SeatCommands
from feltroom.room.runtime.settings import (
    SETTLEMENT_BUCKETS,
    Randomness,
    RuntimeSettings,
)
from feltroom.room.runtime.tournament import TournamentRunner
from feltroom.room.runtime.tournaments_host import TournamentsHost
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.storage import TournamentRow, Transaction
from feltroom.room.tables_config import TableSpec
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.selftest import run_selftest

__all__ = ["RoomRuntime", "closed_tables", "define_table"]

log = logging.getLogger("feltroom.room")


# ------------------------------------------------------------------------ the self-test


async def _off_the_loop(selftest: Callable[[int], dict[str, Any]], shuffles: int) -> dict[str, Any]:
    """Run the shuffle self-test where it does not slow the tables: the room's own
    ``run_selftest`` in a process of its own (seconds of CPU that, in a thread, would hold the
    interpreter's lock against the event loop: every table's turn would wait), another one (a
    test's) in a thread."""
    loop = asyncio.get_running_loop()
    if selftest is not run_selftest:
        return await loop.run_in_executor(None, selftest, shuffles)
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=context)
    try:
        return await loop.run_in_executor(pool, selftest, shuffles)
    finally:  # (the process has ended, or the room stops: it is not waited for)
        pool.shutdown(wait=False, cancel_futures=True)


# ------------------------------------------------------------------------------------ the room


class RoomRuntime(SeatCommands, TournamentsHost, OperatorActions):
    """Every table of the room on the clock, the house bots, the writer, the daily self-test."""

    def __init__(
        self,
        settlement: Settlement,
        accounts: Accounts,
        cashier: Cashier,
        tables: Sequence[TableSpec],
        *,
        tournaments: Sequence[TournamentSpec] = (),
        settings: RuntimeSettings | None = None,
        clock: Callable[[], float] = time.time,
        selftest: Callable[[int], dict[str, Any]] = run_selftest,
        max_group: int = 1000,
        randomness: Randomness | None = None,
    ) -> None:
        # Two sets of services: the room's own (``settlement``, ``accounts``, ``cashier``: the
        # API's threads) and the writer's (``books_*`` below), which only the writer thread calls.
        self.settlement = settlement
        self.randomness = randomness or Randomness()
        self.accounts = accounts
        self.cashier = cashier
        self.settings = settings or RuntimeSettings()
        self.clock = clock
        self.selftest = selftest
        # The writer's own services, on a storage whose transactions it can group.
        self.books = GroupStorage(settlement.storage)
        self.books_settlement = Settlement(
            self.books, clock=settlement.clock, fence=settlement.fence, shard=settlement.shard
        )
        self.books_accounts = Accounts(
            self.books, argon2=Argon2Settings.cheap(), clock=accounts.clock
        )
        self.books_settlement.require_verified = self.settings.require_verified
        self.books_cashier = Cashier(self.books, clock=cashier.clock)
        self.writer = Writer(self.books_settlement, self.books, max_group=max_group)
        self.books_log = OperatorLog(self.books, clock=accounts.clock)
        # The players' own protection (issue 25), on the room's storage (the API's threads).
        self.protection = Protection(
            settlement.storage, OperatorLog(settlement.storage, accounts.clock), accounts.clock
        )
        # Called with (account, log entry) when the operator suspends an account, after its cash
        # seats are left: the tournament director disqualifies it there (R-TOURN-15).
        self.suspend_hooks: list[Callable[[str, int], Awaitable[None]]] = [
            self._disqualify_in_tournaments
        ]
        self.started_at = clock()
        self.runners = {
            spec.table_id: self.table_runner(k, spec) for k, spec in enumerate(tables, start=1)
        }
        self.hands_settled = 0
        self.hands_dealt = 0
        # the settlement latency: a count per bucket of SETTLEMENT_BUCKETS, +Inf, then the sum
        self.settle_seconds: list[float] = [0.0] * (len(SETTLEMENT_BUCKETS) + 2)
        self.voided_at_start: list[int] = []
        self.next_selftest = self.started_at + self.settings.selftest_first
        self.selftests: list[dict[str, Any]] = []
        self.stopping = False
        self._tasks: list[asyncio.Task[None]] = []
        self.listeners: list[Listener] = []
        self.tournament_listeners: list[TournamentListener] = []
        self.tournament_specs = {spec.tournament_id: spec for spec in tournaments}
        self.tournaments: dict[str, TournamentRunner] = {}
        self.next_schedule = 0.0
        self.home = HomeGames(self, self.settings.home)  # the home games (issue 45)

    def table_runner(self, index: int, spec: TableSpec) -> TableRunner:
        """The runner of the room's ``index``-th table (from 1)."""
        return TableRunner(self, index, spec)

    def tournament_runner(self, spec: TournamentSpec, row: TournamentRow) -> TournamentRunner:
        """The runner of a tournament instance (``row``) of ``spec``."""
        return TournamentRunner(self, spec, row)

    # -------------------------------------------------------------- listeners

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(runner, events)`` for every batch of events of every table: the
        table's events (``feltroom.table.events`` and the hand engine's) and the room's
        (``feltroom.room.events``), synchronously, in order, before they are booked (so a
        ``HandFinished`` comes while ``runner.playing`` still holds the hand's id). A listener
        must not block; one that raises is logged and the table goes on."""
        self.listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop calling ``listener`` (one that was never added is ignored)."""
        with contextlib.suppress(ValueError):
            self.listeners.remove(listener)

    def add_tournament_listener(self, listener: TournamentListener) -> None:
        """Call ``listener(events)`` for the tournaments' news: moves between tables and
        changes to where a tournament stands (``feltroom.room.events``), synchronously."""
        self.tournament_listeners.append(listener)

    def remove_tournament_listener(self, listener: TournamentListener) -> None:
        with contextlib.suppress(ValueError):
            self.tournament_listeners.remove(listener)

    def publish_tournament(self, events: Sequence[TournamentEvent]) -> None:
        for listener in tuple(self.tournament_listeners):
            try:
                listener(events)
            except Exception:
                log.exception("a tournament listener failed on %d events", len(events))

    def publish(self, runner: WatchedTable, events: Sequence[object]) -> None:
        for listener in tuple(self.listeners):
            try:
                listener(runner, events)
            except Exception:
                log.exception(
                    "table %s: a listener failed on %d events; the table goes on",
                    runner.table_id,
                    len(events),
                )

    # -------------------------------------------------------------- books (writer thread)

    def bot_accounts(self, names: Sequence[str]) -> set[str]:
        """Which of ``names`` are house bots (the account flag)."""
        return {name for name in names if self.books_accounts.is_bot(name)}

    def bot_buy_in(self, table_id: str, account: str, seat: int, amount: int) -> None:
        """A house bot's buy-in at a table: one transaction, unless the bot's account does not
        exist yet or its wallet runs low (then the account, a grant of play chips, and again).
        ``NotAHouseBot`` when a person has the name (in any letter case): nothing is bought, no
        person's chips ever pay for a house bot."""
        settlement = self.books_settlement
        self.books_accounts.ensure_bot(account)
        try:
            settlement.buy_in(table_id, account, seat, amount)
            return
        except (UnknownAccount, InsufficientFunds):
            pass
        grant = max(amount, self.settings.bot_bankroll)
        self._grant_bot(account, grant)
        settlement.buy_in(table_id, account, seat, amount)

    def _grant_bot(self, account: str, amount: int) -> None:
        """(Writer thread) play chips for a house bot's wallet, under a reference of its own."""
        self.books_cashier.grant(account, amount, f"house-bot:{account}:{self.randomness.new_id()}")

    def reset_stack(
        self, table_id: str, account: str, before: int, after: int, bot: bool = False
    ) -> None:
        """Book a ``reset_stacks`` table's reset (see ``Settlement.reset_stack``); a house bot's
        wallet is granted play chips first when it cannot pay."""
        settlement = self.books_settlement
        try:
            settlement.reset_stack(table_id, account, before, after)
            return
        except InsufficientFunds:
            if not bot:
                raise
        grant = max(after - before, self.settings.bot_bankroll)
        self._grant_bot(account, grant)
        settlement.reset_stack(table_id, account, before, after)

    # -------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Open the books: void every hand a crash left unsettled, open every table and seat
        its players with their stored stacks."""
        self.writer.start()
        self.voided_at_start = await self.writer.call(
            self.books_settlement.void_unsettled, None, "restart"
        )
        if self.voided_at_start:
            log.warning(
                "voided %d hands left unsettled (every stack is at its start-of-hand value): %s",
                len(self.voided_at_start),
                self.voided_at_start[:20],
            )
        now = self.clock()
        self.started_at = now
        self.next_selftest = now + self.settings.selftest_first
        for runner in self.runners.values():
            runner.stats = TableStats(now)
            spec = runner.spec
            await self.writer.call(self.books_settlement.open_table, spec.table_id, spec.currency)
            await runner.load(now)
        closed = await self.writer.call(closed_tables, self.books, list(self.runners))
        for table_id, entry in closed.items():
            self.runners[table_id].closed = entry
        await self.home.load()
        await self._resume_tournaments(now)

    async def run(self) -> None:
        """Drive every table on the real clock until ``stop``."""
        self._tasks = [
            asyncio.create_task(runner.run_forever(), name=f"table {runner.table_id}")
            for runner in self.runners.values()
        ]
        self._tasks.append(asyncio.create_task(self._schedule(), name="self-test schedule"))
        self._tasks.append(asyncio.create_task(self.home.run(), name="home games"))
        self._tasks += [self._tournament_task(t) for t in self.tournaments.values()]
        self._tasks.append(asyncio.create_task(self._tournament_schedule(), name="tournaments"))
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Stop the tables, void the hands in play (as after a crash), stop the writer."""
        self.stopping = True
        for runner in self.runners.values():
            runner.wake.set()
        for tournament in self.tournaments.values():
            tournament.wake.set()
        for task in self._tasks:
            if not task.done():
                task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        try:
            await self.writer.call(self.books_settlement.void_unsettled, None, "shutdown")
        finally:
            self.writer.stop()

    async def advance(self, now: float) -> None:
        """Drive every table, and the self-test schedule, to ``now`` (a fake clock's tests)."""
        for runner in self.runners.values():
            await runner.drive(now)
        for tournament in list(self.tournaments.values()):
            await tournament.drive(now)
        await self.open_tournaments(now)
        await self.home.tick(now)
        await self.selftest_due(now)

    async def selftest_due(self, now: float) -> dict[str, Any] | None:
        """Run the shuffle self-test if it is due (R-RNG-2); log and keep its result."""
        if now < self.next_selftest:
            return None
        while self.next_selftest <= now:
            self.next_selftest += self.settings.selftest_interval
        shuffles = self.settings.selftest_shuffles
        try:
            report = await _off_the_loop(self.selftest, shuffles)
        except Exception as error:
            log.exception("shuffle self-test (R-RNG-2) could not run")
            report = {"shuffles": shuffles, "pass": False, "error": str(error)}
        entry = {"at": now, **report}
        self.selftests.append(entry)
        del self.selftests[:-10]
        if report.get("pass"):
            log.info("shuffle self-test (R-RNG-2): pass on %d shuffles", shuffles)
        else:
            log.error("shuffle self-test (R-RNG-2): FAILED on %d shuffles: %s", shuffles, report)
        return entry

    async def _schedule(self) -> None:
        while not self.stopping:
            now = self.clock()
            await self.selftest_due(now)
            await asyncio.sleep(max(1.0, min(60.0, self.next_selftest - now)))

    # -------------------------------------------------------------- what the server shows

    def lobby(self) -> list[dict[str, Any]]:
        """The public tables' lobby entries (a home game's table is never listed, R-HOME-1)."""
        now = self.clock()
        return [runner.lobby(now) for runner in self.runners.values() if runner.spec.home is None]

    def time_settlement(self, seconds: float) -> None:
        """Count one settlement's latency in ``settle_seconds``."""
        buckets = self.settle_seconds
        buckets[bisect.bisect_left(SETTLEMENT_BUCKETS, seconds)] += 1
        buckets[-1] += seconds

    def status(self) -> dict[str, Any]:
        now = self.clock()
        last = self.selftests[-1] if self.selftests else None
        return {
            "tables": len(self.runners),
            "paused": sorted(r.table_id for r in self.runners.values() if r.status != "running"),
            "hands_settled": self.hands_settled,
            "commits": self.writer.commits,
            "uptime_seconds": round(now - self.started_at, 1),
            "voided_at_start": len(self.voided_at_start),
            "next_selftest_at": self.next_selftest,
            "last_selftest": None
            if last is None
            else {"at": last["at"], "shuffles": last.get("shuffles"), "pass": last.get("pass")},
        }

    # -------------------------------------------------------------- a person's seat

    def check_may_play(self, player: str, what: str) -> None:
        """``ProtectionRefused`` while ``player`` is cooled off or self-excluded (blocking)."""
        with self.books.transaction(write=False) as tx:
            check_may_play(tx, player, self.clock(), what)

    def runner(self, table_id: str) -> TableRunner:
        try:
            return self.runners[table_id]
        except KeyError:
            raise RoomError(
                f"no table {table_id!r}; tables are {', '.join(self.runners)}"
            ) from None

    def may_run(self, lease_id: str) -> bool:
        """A single process runs everything it holds."""
        return True

    def check_lease(self, tx: Transaction, table_id: str) -> None:
        """(In ``tx``) ``LeaseLost`` unless the table is still this room's to write about: a
        single process holds every table (a cluster's worker checks its lease)."""

    async def kept_state(self, table_id: str) -> dict[str, Any]:
        """What a table keeps beyond the books when another process rebuilds it (a cluster's
        worker: its waiting list and who sits in); a single process keeps nothing."""
        return {}

    async def before_deal(self, table_id: str) -> None:
        """A cash table is about to deal: a cluster's worker stores first what a takeover
        keeps of it (``kept_state``); a single process keeps nothing."""

    def seats_of(self, player: str) -> list[tuple[str, int]]:
        """Every (table id, seat) where ``player`` sits."""
        seats = []
        for table_id, runner in self.runners.items():
            seat = runner.table.seat_of(player)
            if seat is not None:
                seats.append((table_id, seat))
        return seats

    def waiting_of(self, player: str) -> list[tuple[str, int, int]]:
        """Every (table id, place, length) of a waiting list ``player`` is on (place 1: first)."""
        places = []
        for table_id, runner in self.runners.items():
            waiting = runner.table.waiting
            if player in waiting:
                places.append((table_id, waiting.index(player) + 1, len(waiting)))
        return places

    def stored_stacks(self, table_id: str) -> dict[str, int]:
        """The books' stacks at a table (blocking read; for tests and tools)."""
        return {name: row.stack for name, row in self.settlement.seats(table_id).items()}

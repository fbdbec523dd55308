"""A cluster worker's room: the tables it holds leases on, run as the runtime runs them today.

``WorkerRuntime`` is a ``RoomRuntime`` whose tables come and go (docs/cluster.md):

- ``adopt`` starts a table the worker has just taken (``Leases.take`` voided, in the takeover's
  transaction, the hand the previous owner left unsettled): the table is rebuilt from the books,
  every stack at its start-of-hand value, and driven on the clock; listeners see its events as
  for any table (a ``TableReloaded`` first, so every viewer gets a snapshot).
- ``give_up`` hands a table over between hands only (rebalancing): no new hand is dealt, and
  once the hand in progress is settled the table stops and its lease lapses, so no hand is void.
- ``lost`` stops a table at once when its lease lapsed or moved (the settlement's fence already
  refuses every write about it).
- ``note_state`` keeps what a takeover needs beyond the books (the waiting list, who sits in)
  under the table's lease: a change of the waiting list at once, one of who sits in within
  ``KEEP_STATE_WITHIN``, every table's changes meanwhile in one write; ``give_up`` stores what
  changed before it lets the lease go.
- ``adopt_tournament`` starts a tournament whose lease (the tournament's id) this worker has
  just taken, with all its tables: the director is rebuilt from the tournament's journal
  (``TournamentRunner.load``: hands in progress void with their start-of-hand stacks, the level
  clock resumed where it stood, every player where the director had them); its writes check
  the lease (``TournamentRunner._fenced``). ``give_up_tournament`` hands it over between hands
  (no new deal anywhere; once no table is in a hand the lease is given up), ``lost`` stops it at
  once. A new instance the configuration asks for is written to the books only
  (``_open_instance``): whichever worker takes its lease runs it.
- A home game's table (docs/home-games.md) is adopted with its game, as stored
  (``HomeGames.load_game``); a table stopped here leaves its game to its next owner.
- The operator's actions (docs/operator.md) reach the table's owner through the broker: a table
  closed stays closed when another worker adopts it; a retired table stops and its lease is
  given up.

Its settlement carries the worker's fence and shard: nothing is written about a table whose lease
the worker no longer holds. Unlike ``RoomRuntime.start`` it never voids other tables' hands.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from feltroom.room.accounts import Accounts
from feltroom.room.cashier import Cashier
from feltroom.room.errors import LeaseLapsed, LeaseLost, RoomError
from feltroom.room.leases import Leases
from feltroom.room.lobby import TableStats
from feltroom.room.runtime import RoomRuntime, RuntimeSettings, TableRunner, closed_tables
from feltroom.room.runtime.tournament import TournamentRunner
from feltroom.room.settlement import Settlement
from feltroom.room.storage import TournamentRow, Transaction
from feltroom.room.tables_config import TableSpec
from feltroom.room.tournament_journal import settings_from_json
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.selftest import run_selftest

__all__ = ["WorkerRuntime"]

log = logging.getLogger("feltroom.room")

KEEP_STATE_WITHIN = 0.5
"""Seconds within which a change of who sits in at a table is stored (``note_state``): a
takeover after a crash may miss the changes of the last half second (docs/cluster.md)."""


class WorkerRuntime(RoomRuntime):
    """The tables one worker owns, each under its lease (see the module docstring)."""

    def __init__(
        self,
        storage_settlement: Settlement,
        accounts: Accounts,
        cashier: Cashier,
        leases: Leases,
        *,
        settings: RuntimeSettings | None = None,
        clock: Callable[[], float] | None = None,
        selftest: Callable[[int], dict[str, Any]] = run_selftest,
        tournaments: Sequence[TournamentSpec] = (),
    ) -> None:
        if storage_settlement.fence is not leases.fence:
            raise RoomError("a worker's settlement must carry its leases' fence")
        options: dict[str, Any] = {} if clock is None else {"clock": clock}
        super().__init__(
            storage_settlement,
            accounts,
            cashier,
            (),
            tournaments=tournaments,
            settings=settings,
            selftest=selftest,
            **options,
        )
        self.leases = leases
        self.table_tasks: dict[str, asyncio.Task[None]] = {}
        # The tournaments whose lease this worker holds, each driven by a task of its own
        # (a finished one stays in ``tournaments`` for the lobby, its lease given up).
        self.tournament_tasks: dict[str, asyncio.Task[None]] = {}
        self.giving_up: set[str] = set()
        self._count = 0
        # Each table's state beyond the books (``table_state``): as stored, as being stored,
        # and changed since (``note_state``, ``store_states``).
        self._stored_state: dict[str, dict[str, Any]] = {}
        self._storing_state: dict[str, dict[str, Any]] = {}
        self._pending_state: dict[str, dict[str, Any]] = {}
        # (the timer's deadline kept beside it: uvloop's ``call_later(0)`` returns a plain
        # Handle, without ``when``)
        self._state_timer: asyncio.Handle | None = None
        self._state_due = 0.0
        self._state_lock = asyncio.Lock()
        self._state_tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start the writer; tables come with ``adopt`` (a home game's with its game)."""
        self.writer.start()
        self.home.attach()
        self.started_at = self.clock()
        self.next_selftest = self.started_at + self.settings.selftest_first

    async def adopt(self, spec: TableSpec) -> TableRunner:
        """Run a table whose lease this worker has just taken."""
        if spec.table_id in self.runners:
            raise RoomError(f"table {spec.table_id} already runs on this worker")
        await self.writer.call(self.books_settlement.open_table, spec.table_id, spec.currency)
        self._count += 1
        runner = TableRunner(self, self._count, spec)
        now = self.clock()
        runner.stats = TableStats(now)
        await runner.load(now)
        # A table an operator closed stays closed whichever worker runs it.
        closed = await self.writer.call(closed_tables, self.books, [spec.table_id])
        runner.closed = closed.get(spec.table_id)
        if spec.home is not None:  # a home game's table: the game runs here too, as stored
            await self.home.load_game(spec.home, runner)
        self.runners[spec.table_id] = runner
        self.table_tasks[spec.table_id] = asyncio.create_task(
            runner.run_forever(), name=f"table {spec.table_id}"
        )
        return runner

    # -------------------------------------------------------------- tournaments

    async def adopt_tournament(self, row: TournamentRow) -> TournamentRunner:
        """Run a tournament whose lease this worker has just taken, with all its tables,
        rebuilt from its journal (the module docstring)."""
        tournament_id = row.tournament_id
        if tournament_id in self.tournament_tasks:
            raise RoomError(f"tournament {tournament_id} already runs on this worker")
        spec = self.tournament_specs.get(row.spec_id)
        if spec is None:  # (configured on another worker, or no longer: it plays to its end)
            spec = TournamentSpec(row.spec_id, row.currency, settings_from_json(row.settings))
        runner = self.tournament_runner(spec, row)
        self.tournaments[tournament_id] = runner
        now = self.clock()
        try:
            await runner.load(now)
        except Exception as error:  # it waits and is rebuilt from the books again
            runner.fail(error, now)
        self.tournament_tasks[tournament_id] = self._tournament_task(runner)
        return runner

    def check_lease(self, tx: Transaction, table_id: str) -> None:
        """(In ``tx``) ``LeaseLost`` unless this worker still holds the table's lease: what it
        stores of a home game run here (``HomeGames``) is refused once the table moved to
        another worker. A lease that only lapsed (a renewal late on a busy machine, nobody took
        the table) still lets it store what it just did: its renewal takes the lease back."""
        with contextlib.suppress(LeaseLapsed):
            self.leases.fence.check(tx, table_id)

    def may_run(self, lease_id: str) -> bool:
        """A tournament moves (its bots act, its clock times turns out, it deals) only while
        this worker can show its lease valid (``Leases.valid``): a worker woken after a pause
        past its lease does nothing there until its renewal shows the lease kept (or lost:
        the tournament stops here)."""
        return self.leases.valid(lease_id)

    def held_tournaments(self) -> list[str]:
        """The tournaments driven here now (their lease held)."""
        return [t for t, task in self.tournament_tasks.items() if not task.done()]

    async def _open_instance(self, spec: TournamentSpec, now: float, start: Any) -> None:
        """A new instance is written to the books only: the worker that takes its lease runs
        it (this one or another)."""
        row = await self.writer.call(self._new_instance, spec, now, start)
        if row is not None:
            log.info("tournament %s opens for registration", row.tournament_id)

    async def open_missing(self, registering: Iterable[str]) -> bool:
        """Open the next instance of each recurring sit-and-go configured here that has none
        open for registration (``registering``: the configured tournaments that have one, in
        the books), at once rather than at the next schedule: its last instance started on
        whichever worker took it. Whether one opened."""
        open_now = set(registering)
        opened = False
        for spec in self.tournament_specs.values():
            if spec.settings.format != "sng" or not spec.recurring:
                continue
            if spec.tournament_id in open_now:
                continue
            try:
                row = await self.writer.call(self._new_instance, spec, self.clock(), None)
            except Exception as error:  # (another worker opened it this moment: the same id)
                log.info(
                    "tournament %s: next instance not opened here: %s", spec.tournament_id, error
                )
                continue
            if row is not None:
                log.info("tournament %s opens for registration", row.tournament_id)
                opened = True
        return opened

    async def _stop_tournament(self, tournament_id: str, *, forget: bool) -> None:
        task = self.tournament_tasks.pop(tournament_id, None)
        runner = self.tournaments.get(tournament_id)
        if forget:
            self.tournaments.pop(tournament_id, None)
        if runner is not None:
            runner.wake.set()
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)

    async def finished_tournament(self, tournament_id: str) -> None:
        """A tournament that ended here: its task has ended; its lease is given up (it stays
        in the lobby with its results)."""
        await self._stop_tournament(tournament_id, forget=False)
        await asyncio.to_thread(self.leases.release, tournament_id)

    async def give_up_tournament(self, tournament_id: str, *, poll: float = 0.05) -> None:
        """Hand the tournament over between hands (a clean stop): no new hand is dealt at any
        of its tables; once none is in a hand, it stops here and its lease is given up, so its
        next owner voids no hand."""
        runner = self.tournaments.get(tournament_id)
        if runner is None or tournament_id not in self.tournament_tasks:
            return
        while True:
            async with runner.lock:
                runner.dealing = False
                done = runner.done or not any(tab.table.in_hand for tab in runner.tables.values())
                if done:
                    runner.paused_until = float("inf")  # (it does nothing more here)
            if done or self.leases.fence.epoch(tournament_id) is None:
                break
            await asyncio.sleep(poll)
        await self._stop_tournament(tournament_id, forget=True)
        await asyncio.to_thread(self.leases.release, tournament_id)
        log.info("tournament %s handed over between hands", tournament_id)

    async def kept_state(self, table_id: str) -> dict[str, Any]:
        """The table's waiting list and who sits in, as its last owner kept them
        (``keep_state``): a takeover keeps them."""
        text = await self.writer.call(self._read_state, table_id)
        state: dict[str, Any] = json.loads(text) if text else {}
        return state

    def _read_state(self, table_id: str) -> str | None:
        with self.settlement.storage.transaction(write=False) as tx:
            return tx.table_state(table_id)

    def table_state(self, runner: TableRunner) -> dict[str, Any]:
        """What a takeover keeps of a table beyond the books."""
        table = runner.table
        return {
            "waiting": list(table.waiting),
            "sitting_in": sorted(
                seat.account
                for seat in table.seats.values()
                if not seat.sitting_out and seat.account not in runner.bots
            ),
        }

    def note_state(self, runner: TableRunner) -> None:
        """The table's state may have changed (after its events): a change of its waiting list
        is stored at once, a change of who sits in within ``KEEP_STATE_WITHIN`` seconds, and
        the changes of every table meanwhile in one write. A state back to what is stored is
        not written again (a player out of chips who buys in again: no write)."""
        table_id = runner.table_id
        state = self.table_state(runner)
        base = self._storing_state.get(table_id, self._stored_state.get(table_id))
        before = self._pending_state.get(table_id, base)
        if state == before:
            return
        if state == base:
            self._pending_state.pop(table_id, None)
            return
        self._pending_state[table_id] = state
        urgent = before is None or before.get("waiting") != state["waiting"]
        self._store_states_in(0.0 if urgent else KEEP_STATE_WITHIN)

    async def before_deal(self, table_id: str) -> None:
        """The table deals now: who sits in is stored first if it changed (not within
        ``KEEP_STATE_WITHIN``), so a takeover that voids the hand seats its players sitting in
        (the players dealt in stay dealt in at the next owner, not sat out: R-SIT-2)."""
        runner = self.runners.get(table_id)
        if runner is None:
            return
        self.note_state(runner)
        if table_id in self._pending_state:
            await self.store_states(only=[table_id])

    def _store_states_in(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        timer, due = self._state_timer, loop.time() + delay
        if timer is not None:
            if self._state_due <= due:
                return
            timer.cancel()
        self._state_timer, self._state_due = loop.call_later(delay, self._store_states_now), due

    def _store_states_now(self) -> None:
        self._state_timer = None
        task = asyncio.create_task(self.store_states(), name="table states")
        self._state_tasks.add(task)
        task.add_done_callback(self._state_tasks.discard)

    async def store_states(self, only: Collection[str] | None = None) -> None:
        """Store the changed states (of the tables ``only``, else all) in one write, each under
        its table's lease; a write that failed is tried again shortly, a table whose lease
        moved is not written (its next owner keeps what was stored)."""
        async with self._state_lock:
            batch = {
                t: state for t, state in self._pending_state.items() if only is None or t in only
            }
            if not batch:
                return
            for table_id in batch:
                del self._pending_state[table_id]
            self._storing_state = batch
            try:
                refused = await self.writer.call(self.keep_states, batch)
            except Exception as error:
                self._storing_state = {}
                log.warning("tables %s: their state was not stored: %s", sorted(batch), error)
                for table_id, state in batch.items():
                    self._pending_state.setdefault(table_id, state)
                self._store_states_in(KEEP_STATE_WITHIN)
                return
            self._storing_state = {}
            for table_id, state in batch.items():
                if table_id in refused:
                    log.info("table %s: its state was not stored: %s", table_id, refused[table_id])
                    self._stored_state.pop(table_id, None)
                else:
                    self._stored_state[table_id] = state

    def keep_states(self, states: dict[str, dict[str, Any]]) -> dict[str, LeaseLost]:
        """Store tables' states (blocking: through the writer, ``self.writer.call``, in its
        group commit), each under its table's lease, all in one statement; returns the tables
        refused (their lease moved or lapsed), which are not written."""
        with self.books.transaction() as tx:
            refused = self.leases.fence.check_all(tx, states)
            tx.put_table_states(
                {
                    t: json.dumps(state, sort_keys=True)
                    for t, state in states.items()
                    if t not in refused
                }
            )
        return refused

    async def _stop_table(self, table_id: str) -> None:
        runner = self.runners.pop(table_id, None)
        task = self.table_tasks.pop(table_id, None)
        self.giving_up.discard(table_id)
        self.home.drop_game(table_id)  # (a home game's: its next owner loads it as stored)
        # (what its next owner stores of it is its own: taken back later, nothing is assumed)
        self._pending_state.pop(table_id, None)
        self._stored_state.pop(table_id, None)
        if runner is not None:
            runner.status = "moved"
        # Cancelled again until it ends: Python 3.11's wait_for may swallow a cancellation that
        # arrives as the wait it guards ends (the table's wake-up, its clock).
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)

    async def retire_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        """Retire the table (``RoomRuntime.retire_table``), then stop it here and give its
        lease up: no worker takes a retired table again."""
        result = await super().retire_table(table_id, operator, reason)
        await self._stop_table(table_id)
        await asyncio.to_thread(self.leases.release, table_id)
        return result

    async def lost(self, table_id: str) -> None:
        """The lease lapsed or moved: stop the table (or the tournament) now (nothing more is
        written about it)."""
        if table_id in self.tournament_tasks:
            log.warning("tournament %s: lease lost; it stops on this worker", table_id)
            self.leases.fence.drop(table_id)
            await self._stop_tournament(table_id, forget=True)
            return
        if table_id in self.runners:
            log.warning("table %s: lease lost; the table stops on this worker", table_id)
        self.leases.fence.drop(table_id)
        await self._stop_table(table_id)

    async def give_up(self, table_id: str, *, poll: float = 0.05) -> None:
        """Hand the table over between hands (rebalancing): no new deal; once no hand is in
        progress the table stops and its lease lapses at once."""
        runner = self.runners.get(table_id)
        if runner is None:
            return
        self.giving_up.add(table_id)
        began = asyncio.get_running_loop().time()
        while True:
            if asyncio.get_running_loop().time() - began > 5:
                log.warning(
                    "table %s: hand-over waits for hand %s (in hand: %s, status %s)",
                    table_id,
                    runner.playing,
                    runner.table.in_hand,
                    runner.status,
                )
                began = asyncio.get_running_loop().time()
            async with runner.lock:
                runner.next_deal = float("inf")  # the hand in progress is the last one here
                done = not runner.table.in_hand or self.leases.fence.epoch(table_id) is None
                if done:  # the table does nothing more here (its task is stopped below)
                    runner.status, runner.error = "paused", "handed over to another worker"
                    runner.paused_until = float("inf")
            if done:
                await self.store_states([table_id])  # for its next owner, under the lease
                await self._stop_table(table_id)
                if runner.hand_id is not None:  # the next hand's id, never dealt: no hand
                    with contextlib.suppress(RoomError):  # (the lease moved: the taker voided it)
                        await self.writer.call(self.books_settlement.discard_hand, runner.hand_id)
                break
            await asyncio.sleep(poll)
        await asyncio.to_thread(self.leases.release, table_id)
        log.info("table %s handed over between hands", table_id)

    async def run(self) -> None:
        """The self-test schedule; the tables run in tasks of their own until ``stop``."""
        self._tasks = [asyncio.create_task(self._schedule(), name="self-test schedule")]
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Stop every table, void the hands in play at the tables still held, give the leases
        up, stop the writer."""
        self.stopping = True
        held = [t for t in self.runners if self.leases.fence.epoch(t) is not None]
        with contextlib.suppress(Exception):  # (logged: the next owner keeps what was stored)
            await self.store_states(held)
        timer, self._state_timer = self._state_timer, None
        if timer is not None:
            timer.cancel()
        for task in list(self._state_tasks):  # (none is left to do: the writer stops below)
            task.cancel()
        for table_id in list(self.runners):
            await self._stop_table(table_id)
        tournaments = [t for t in self.tournament_tasks if self.leases.fence.epoch(t) is not None]
        for tournament_id in list(self.tournament_tasks):
            # (its journal holds every input: its next owner voids the hands in play there)
            await self._stop_tournament(tournament_id, forget=True)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        try:
            for table_id in held:
                await self.writer.call(self.books_settlement.void_unsettled, table_id, "shutdown")
                await asyncio.to_thread(self.leases.release, table_id)
            for tournament_id in tournaments:
                await asyncio.to_thread(self.leases.release, tournament_id)
        finally:
            self.writer.stop()

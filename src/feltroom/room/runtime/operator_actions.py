"""The operator's actions on the room's tables (docs/operator.md): kick a player, take a
suspended account out of play, close, reopen, add and retire tables, and the tables'
definitions in the books. ``OperatorActions`` is a part of ``RoomRuntime``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from feltroom.errors import IllegalAction
from feltroom.room.errors import NotSeated, RoomError
from feltroom.room.lobby import TableStats
from feltroom.room.operators import OperatorLog
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.tournament import TournamentRunner
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.storage import Storage
from feltroom.room.tables_config import TableSpec

__all__ = ["OperatorActions", "closed_tables", "define_table"]

log = logging.getLogger("feltroom.room")


class OperatorActions:
    """The operator's actions of ``RoomRuntime`` (which gives the attributes named here)."""

    runners: dict[str, TableRunner]
    writer: Writer
    books: GroupStorage
    books_log: OperatorLog
    books_settlement: Settlement
    clock: Callable[[], float]
    suspend_hooks: list[Callable[[str, int], Awaitable[None]]]
    _tasks: list[asyncio.Task[None]]

    if TYPE_CHECKING:  # (RoomRuntime's)

        def runner(self, table_id: str) -> TableRunner: ...

        def table_runner(self, index: int, spec: TableSpec) -> TableRunner: ...

        def tournament_seats_of(self, player: str) -> list[tuple[TournamentRunner, str, int]]: ...

    async def _entry(
        self,
        operator: str,
        action: str,
        target: str,
        reason: str,
        details: dict[str, Any] | None = None,
    ) -> int:
        return await self.writer.call(
            self.books_log.record, operator, action, target, reason, details
        )

    async def kick(self, table_id: str, player: str, operator: str, reason: str) -> dict[str, Any]:
        """The operator makes ``player`` leave ``table_id``: at once between hands, else after
        the hand (folded at their turn); the chips go back to the wallet, under the log entry."""
        runner = self.runner(table_id)
        async with runner.lock:
            table = runner.table
            seat = table.seat_of(player)
            if seat is None and player not in table.waiting:
                raise NotSeated(f"{player!r} has no seat and is not waiting at table {table_id}")
            entry = await self._entry(operator, "kick", f"{table_id}/{player}", reason)
            now = self.clock()
            events = table.leave_waiting_list(player, now)
            if seat is not None:
                runner.operator_leaves[player] = entry
                events += table.leave(seat, now)
            await runner.command(events, now)
        return {"table": table_id, "player": player, "seat": seat, "entry": entry}

    async def remove_account(self, account: str, entry: int, *, hooks: bool = True) -> list[str]:
        """Take a suspended account out of play: every cash seat is left (at the end of the
        hand in progress, the chips back in the wallet, under ``entry``), every waiting list;
        then the suspend hooks (tournaments, R-TOURN-15). Returns the tables it sat at.
        ``hooks=False`` (a cool-off or self-exclusion): tournament entries play on as away
        (R-TOURN-6: blinds posted, folded at their turns; no coming back while it runs)."""
        left = [
            runner.table_id
            for runner in list(self.runners.values())
            if await self.remove_from(runner.table_id, account, entry)
        ]
        if not hooks:
            for tournament, _, _ in self.tournament_seats_of(account):
                with contextlib.suppress(RoomError):  # out of the tournament meanwhile
                    await tournament.away(account, self.clock())
        for hook in list(self.suspend_hooks) if hooks else []:
            try:
                await hook(account, entry)
            except Exception:
                log.exception("a suspend hook failed for %s", account)
        return left

    async def remove_from(self, table_id: str, account: str, entry: int) -> bool:
        """Take ``account`` out of one table (``remove_account``; a cluster's worker does it
        table by table, as the gateway asks the owner of each): its seat is left at the end of
        the hand in progress, the chips back in the wallet under ``entry``, and it leaves the
        waiting list. Whether it had a seat there."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            table = runner.table
            events = table.leave_waiting_list(account, now)
            seat = table.seat_of(account)
            if seat is not None:
                runner.operator_leaves[account] = entry
                with contextlib.suppress(IllegalAction):
                    events += table.leave(seat, now)
            await runner.command(events, now)
        return seat is not None

    async def close_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        """No new hands at the table: the hand in progress plays out, then everyone leaves with
        their chips and the waiting list is cleared. Kept across restarts."""
        runner = self.runner(table_id)
        async with runner.lock:
            if runner.closed is not None:
                raise RoomError(f"table {table_id} is closed already; reopen-table opens it")
            seated = sorted(p.account for p in runner.table.seats.values())
            entry = await self.writer.call(
                self._set_status,
                table_id,
                "closed",
                operator,
                "close-table",
                reason,
                {"seated": seated, "hand_in_progress": runner.playing},
            )
            runner.closed = entry
            now = self.clock()
            if runner.table.between_hands and runner.status == "running":
                await runner._empty(now)
            runner.wake.set()
        return {"table": table_id, "status": "closed", "leaving": seated, "entry": entry}

    async def reopen_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        """Deal again at a closed table."""
        runner = self.runner(table_id)
        async with runner.lock:
            if runner.closed is None:
                raise RoomError(f"table {table_id} is open; close-table closes it")
            entry = await self.writer.call(
                self._set_status, table_id, "open", operator, "reopen-table", reason, None
            )
            runner.closed = None
            runner.next_deal = self.clock()
            runner.wake.set()
        return {"table": table_id, "status": "open", "entry": entry}

    async def add_table(
        self, spec: TableSpec, definition: str, operator: str, reason: str
    ) -> dict[str, Any]:
        """A new table, dealing at once (no restart): its definition (a tables file entry, as
        JSON) is stored, so the room loads it again after a restart."""
        if spec.table_id in self.runners:
            raise RoomError(f"there is a table {spec.table_id!r} already; choose another id")
        entry = await self.writer.call(
            define_table,
            self.books,
            self.books_log,
            self.books_settlement,
            spec,
            definition,
            operator,
            reason,
        )
        runner = self.table_runner(len(self.runners) + 1, spec)
        runner.stats = TableStats(self.clock())
        self.runners[spec.table_id] = runner
        await runner.load(self.clock())
        if self._tasks:  # the room runs on the real clock: so does the new table
            self._tasks.append(
                asyncio.create_task(runner.run_forever(), name=f"table {spec.table_id}")
            )
        return {"table": spec.table_id, "status": "open", "entry": entry}

    async def add_home_table(self, spec: TableSpec, definition: str) -> None:
        """A home game's table (``feltroom.room.runtime.home_games``), dealing at once: its
        definition is stored as an operator's is (the room loads it again after a restart; in
        a cluster a worker takes it through its lease), with no operator log entry (the game's
        own log has its creation)."""
        if spec.table_id in self.runners:
            raise RoomError(f"there is a table {spec.table_id!r} already")

        def define() -> None:
            with self.books.transaction() as tx:
                if not tx.add_table_definition(spec.table_id, definition):
                    raise RoomError(f"a table {spec.table_id!r} is defined already")
            self.books_settlement.open_table(spec.table_id, spec.currency)

        await self.writer.call(define)
        runner = self.table_runner(len(self.runners) + 1, spec)
        runner.stats = TableStats(self.clock())
        self.runners[spec.table_id] = runner
        await runner.load(self.clock())
        if self._tasks:  # the room runs on the real clock: so does the new table
            self._tasks.append(
                asyncio.create_task(runner.run_forever(), name=f"table {spec.table_id}")
            )

    async def retire_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        """Take a closed, empty table out of the room for good (no restart): it leaves the
        lobby and is not loaded again; its hands and books stay."""
        runner = self.runner(table_id)
        async with runner.lock:
            if runner.closed is None:
                raise RoomError(f"close table {table_id} first (close-table); then retire it")
            seated = sorted(p.account for p in runner.table.seats.values())
            stored = await self.writer.call(self.books_settlement.seats, table_id)
            if seated or stored:
                who = ", ".join(sorted(set(seated) | set(stored)))
                raise RoomError(
                    f"table {table_id} still has players ({who}); they leave after the hand "
                    "in progress: retire it then"
                )
            entry = await self.writer.call(
                self._set_status, table_id, "retired", operator, "retire-table", reason, None
            )
            runner.retired = True
            del self.runners[table_id]
            runner.wake.set()
        return {"table": table_id, "status": "retired", "entry": entry}

    def _set_status(
        self,
        table_id: str,
        status: str,
        operator: str,
        action: str,
        reason: str,
        details: dict[str, Any] | None,
    ) -> int:
        """(Writer thread) the table's status and the log entry, in one transaction."""
        with self.books.transaction() as tx:
            tx.set_table_status(table_id, status)  # tables not from definitions: in memory only
            return self.books_log.add(tx, operator, action, table_id, reason, details)


def define_table(
    storage: Storage,
    log: OperatorLog,
    settlement: Settlement,
    spec: TableSpec,
    definition: str,
    operator: str,
    reason: str,
) -> int:
    """(Blocking) a new table's definition (a tables file entry, as JSON), the operator log's
    entry, in one transaction, then the table's escrow: ``add-table`` in the single process
    (the writer's thread) and on a cluster's gateway (a worker then takes the table through
    its lease, docs/cluster.md). Returns the entry's id."""
    with storage.transaction() as tx:
        if not tx.add_table_definition(spec.table_id, definition):
            raise RoomError(
                f"a table {spec.table_id!r} is defined already (perhaps retired: a table "
                "id is never used twice); choose another id"
            )
        entry = log.add(
            tx, operator, "add-table", spec.table_id, reason, {"definition": definition}
        )
    settlement.open_table(spec.table_id, spec.currency)
    return entry


def closed_tables(storage: Storage, table_ids: list[str]) -> dict[str, int]:
    """The tables among ``table_ids`` that an operator closed, with the close's log entry."""
    with storage.transaction(write=False) as tx:
        statuses = tx.table_statuses()
        closed = {t for t in table_ids if statuses.get(t) == "closed"}
        if not closed:
            return {}
        found: dict[str, int] = {}
        for row in tx.operator_entries(0.0, 1_000_000):
            if row.action == "close-table" and row.target in closed:
                found[row.target] = row.entry_id
    return {t: found.get(t, 0) for t in closed}

"""Hosting tournaments in the room: resuming the instances the books hold, opening the next ones
the configuration asks for, registering and unregistering players, the house bots' funds, and
the suspend hook that disqualifies (R-TOURN-15). ``TournamentsHost`` is a part of
``RoomRuntime``; each instance runs in its ``TournamentRunner`` (``tournament.py``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from feltroom.room.accounts import Accounts
from feltroom.room.errors import RoomError
from feltroom.room.ledger import player_wallet_key
from feltroom.room.runtime.host import HostedTournament
from feltroom.room.runtime.settings import KEEP_FINISHED, Randomness, RuntimeSettings
from feltroom.room.runtime.tournament import TournamentRunner, TournamentTableRef
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.storage import TournamentRow
from feltroom.room.tournament_journal import settings_from_json, settings_json
from feltroom.room.tournaments_config import TournamentSpec

__all__ = ["TournamentsHost"]

log = logging.getLogger("feltroom.room")


class TournamentsHost:
    """The tournaments of ``RoomRuntime`` (which gives the attributes named here)."""

    tournaments: dict[str, TournamentRunner]
    tournament_specs: dict[str, TournamentSpec]
    next_schedule: float
    writer: Writer
    books: GroupStorage
    books_accounts: Accounts
    settings: RuntimeSettings
    randomness: Randomness
    clock: Callable[[], float]
    stopping: bool
    _tasks: list[asyncio.Task[None]]

    if TYPE_CHECKING:  # (RoomRuntime's)

        def tournament_runner(
            self, spec: TournamentSpec, row: TournamentRow
        ) -> TournamentRunner: ...

        def _grant_bot(self, account: str, amount: int) -> None: ...

    async def _resume_tournaments(self, now: float) -> None:
        """Every instance the books hold as registering or running is rebuilt from its journal
        (R-TOURN-13); then the configured tournaments' next instances open."""
        rows = await self.writer.call(self._tournament_rows, ("registering", "running"))
        for row in rows:
            spec = self.tournament_specs.get(row.spec_id)
            if spec is None:  # no longer configured: it still plays to its end
                settings = settings_from_json(row.settings)
                spec = TournamentSpec(row.spec_id, row.currency, settings)
            runner = self.tournament_runner(spec, row)
            self.tournaments[row.tournament_id] = runner
            try:
                await runner.load(now)
            except Exception as error:  # this tournament waits; the room opens
                runner.fail(error, now)
                continue
            if runner.director.started_at is not None:
                log.info(
                    "tournament %s resumed at level %d with %d entries left",
                    row.tournament_id,
                    runner.director.level_number,
                    runner.director.remaining,
                )
        await self.open_tournaments(now)

    def _tournament_rows(self, statuses: Sequence[str] | None = None) -> list[TournamentRow]:
        with self.books.transaction(write=False) as tx:
            return tx.tournaments(statuses)

    def _tournament_task(self, runner: TournamentRunner) -> asyncio.Task[None]:
        return asyncio.create_task(runner.run_forever(), name=f"tournament {runner.tournament_id}")

    async def open_tournaments(self, now: float) -> None:
        """Open what the configuration asks for: a sit-and-go with no instance open for
        registration (a one-off one only once), a scheduled tournament's next start."""
        if now < self.next_schedule:
            return
        self.next_schedule = now + 30.0
        done: dict[str, list[str]] = {}
        for tournament_id, runner in self.tournaments.items():
            if runner.done:
                done.setdefault(runner.spec.tournament_id, []).append(tournament_id)
        for ids in done.values():  # the lobby keeps the last few results of each tournament
            for tournament_id in ids[:-KEEP_FINISHED]:
                del self.tournaments[tournament_id]
        for spec in self.tournament_specs.values():
            start = None
            if spec.settings.format == "mtt":
                start = spec.next_start(now)
                if start is None:
                    continue
            await self._open_instance(spec, now, start)

    async def tournament_started(self, runner: HostedTournament, now: float) -> None:
        """A sit-and-go started: a recurring one opens its next instance at once."""
        if runner.spec.recurring and runner.spec.tournament_id in self.tournament_specs:
            await self._open_instance(runner.spec, now, None)

    async def _open_instance(self, spec: TournamentSpec, now: float, start: Any) -> None:
        row = await self.writer.call(self._new_instance, spec, now, start)
        if row is None:
            return
        runner = self.tournament_runner(spec, row)
        self.tournaments[row.tournament_id] = runner
        await runner.load(now)
        log.info("tournament %s opens for registration", row.tournament_id)
        if self._tasks:
            self._tasks.append(self._tournament_task(runner))

    def _new_instance(self, spec: TournamentSpec, now: float, start: Any) -> TournamentRow | None:
        """A new instance of ``spec`` in the books, unless one is already open (``None``)."""
        with self.books.transaction() as tx:
            rows = [r for r in tx.tournaments() if r.spec_id == spec.tournament_id]
            if spec.settings.format == "sng":
                if any(r.status == "registering" for r in rows):
                    return None
                if rows and not spec.recurring:
                    return None
            number = max((r.number for r in rows), default=0) + 1
            tournament_id = spec.instance_id(number, start)
            if any(r.tournament_id == tournament_id for r in rows):
                return None
            row = TournamentRow(
                tournament_id,
                spec.tournament_id,
                number,
                spec.currency,
                settings_json(spec.settings),
                str(self.randomness.tournament_seed()),
                None if start is None else start.timestamp(),
                "registering",
                now,
                now,
            )
            tx.add_tournament(row)
            return row

    async def _tournament_schedule(self) -> None:
        while not self.stopping:
            await self.open_tournaments(self.clock())
            await asyncio.sleep(10.0)

    def fund_bot(self, account: str, cost: int) -> None:
        """A house bot's account, with play chips enough for a tournament entry of ``cost``."""
        self.books_accounts.ensure_bot(account)
        with self.books.transaction(write=False) as tx:
            wallet = tx.get_account(player_wallet_key(tx, account, "PLAY"))
            balance = 0 if wallet is None else wallet.balance
        if balance < cost:
            grant = max(cost, self.settings.bot_bankroll)
            self._grant_bot(account, grant)

    def tournament(self, tournament_id: str) -> TournamentRunner:
        try:
            return self.tournaments[tournament_id]
        except KeyError:
            open_now = [t for t, r in self.tournaments.items() if not r.done]
            raise RoomError(
                f"no tournament {tournament_id!r}; tournaments are {', '.join(open_now) or 'none'}"
            ) from None

    def tournament_ids(self) -> list[str]:
        """The instances the room knows (open, running, and the last few finished)."""
        return list(self.tournaments)

    async def tournament_detail(self, tournament_id: str) -> dict[str, Any]:
        """One instance whole (``GET /api/tournaments/{id}``)."""
        return self.tournament(tournament_id).detail(self.clock())

    async def register_tournament(self, tournament_id: str, account: str) -> dict[str, Any]:
        """``account`` enters the tournament (R-TOURN-2, R-TOURN-3). Once its registration is
        closed the refusal says why and names the instances open for registration."""
        runner = self.tournament(tournament_id)
        closed = runner.registration_closed()
        if closed is not None:
            open_now = [t for t, r in self.tournaments.items() if r.registration_closed() is None]
            raise RoomError(
                f"registration for {tournament_id} is closed ({closed}); tournaments open for "
                f"registration: {', '.join(open_now) or 'none'}"
            )
        return await runner.register(account, self.clock())

    async def unregister_tournament(self, tournament_id: str, account: str) -> dict[str, Any]:
        """Before the start: buy-in and fee back (R-TOURN-2)."""
        return await self.tournament(tournament_id).unregister(account, self.clock())

    def tournaments_lobby(self) -> list[dict[str, Any]]:
        now = self.clock()
        return [runner.lobby(now) for runner in self.tournaments.values()]

    def tournament_table(self, table_id: str) -> tuple[TournamentRunner, TournamentTableRef] | None:
        """The tournament and its table of id ``table_id``, or ``None``."""
        for tournament in self.tournaments.values():
            tab = tournament.by_id.get(table_id)
            if tab is not None:
                return tournament, tab
        return None

    def tournament_seats_of(self, player: str) -> list[tuple[TournamentRunner, str, int]]:
        """Every tournament table (its tournament, table id, seat) where ``player`` sits."""
        seats = []
        for tournament in self.tournaments.values():
            if tournament.done:
                continue
            for tab in tournament.tables.values():
                seat = tab.table.seat_of(player)
                if seat is not None:
                    seats.append((tournament, tab.table_id, seat))
        return seats

    async def _disqualify_in_tournaments(self, account: str, entry: int) -> None:
        """R-TOURN-15: a suspended account is disqualified in every tournament it plays (an
        entry registered before the start is refunded instead)."""
        for runner in list(self.tournaments.values()):
            done = await runner.disqualify(account, self.clock())
            if done is not None:
                log.info("operator log entry %d: %s", entry, done)

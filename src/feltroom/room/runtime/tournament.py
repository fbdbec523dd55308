"""Tournaments running in the room (docs/tournaments.md).

One ``TournamentRunner`` per instance drives its director (``feltroom.tournament.Director``) on
the room's clock and carries its commands out on ``TournamentTable``s, which play like the cash
tables: house bots act after their thinking time, people act through the runtime, the clock
times out the absent (R-TOURN-6), a new hand is dealt ``between_hands`` after the last.

- **Books:** every input the director takes (a registration, a tick that decided something, a
  hand started or finished, a cancellation) is written with what it decided in ONE transaction
  through the room's single writer (``tournament_journal.write_input``): the money of its outputs
  (``TournamentBooks``: buy-ins into ``prizepool:<id>``, fees to the house, the overlay, each
  prize into the winner's wallet when the place is final), the stored hand (no escrow: tournament
  chips are not money) and the instance's status. Should a write fail, the runner rebuilds
  itself from the books (``load``); a player's entry, checked in the transaction that books it,
  only restores the director when refused (``_restore``): the tables play on.
- **At size:** a hand's end is queued to the writer and carried out at once (``_queue``: the
  moves it decided are made in the same instant); the writer refuses an input that would not
  follow the last written, so a failed write leaves no gap and the runner is rebuilt at its
  next look. A deal's write is queued too; the deal is published at the next look once written
  (``_dealt``: the hand's stored id), the table's other events and moves to it held until then
  (under a cluster's lease, the hands due at one look are written together and awaited). The
  lock is an ``OpenLock``; each change publishes one ``TournamentNews`` (``_apply``).
- **Crash:** ``load`` replays the journal into a new director, rebuilds the tables from it (who
  sits where with the stacks at the start of any hand in progress), voids each hand in progress
  (an input ``hand_finished`` with ``void``: the stacks do not change) and lets the level clock
  resume where it stood (an input ``resume`` from the last moment the room was seen alive). Each
  table draws its button again by high card (R-TOURN-4), as a new table would.
- **House bots** fill a play-money sit-and-go: one registers every ``tournament_bot_wait``
  seconds while it is open (people register in between), and only while no other instance of
  the same tournament is running (so bots keep one instance of each going, not a flood); once a
  person has registered, they fill it quickly whatever else runs (``tournament_bots.py``).
- A recurring sit-and-go opens its next instance when one starts (the room's
  ``tournament_started``).
- **Histories:** each hand is stored with its players, the table's settings and the tournament
  (``feltroom.history.tournament_info``), the places it made final and its committed deck, so
  it is in the players' hand histories like a cash hand (R-HIST-1/2).
- **Suspension** (R-TOURN-15): ``disqualify``, called by the room's suspend hook.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from feltroom.errors import IllegalAction
from feltroom.room.errors import DuplicateKey, LeaseLapsed, RoomError
from feltroom.room.events import PlayerMoved, TournamentEvent, TournamentNews
from feltroom.room.housebots import HouseBot
from feltroom.room.ledger import CURRENCIES
from feltroom.room.runtime.clocked import (
    ClockedRunner,
    OpenLock,
    TournamentTableRef,
    bot_turns,
    new_house_bot,
    next_deal_at,
)
from feltroom.room.runtime.host import RoomHost
from feltroom.room.runtime.outcomes import hand_record, hand_rows
from feltroom.room.runtime.tournament_bots import bot_wait, bots_may_register, waiting_for
from feltroom.room.runtime.tournament_entries import TournamentEntries, _Reloaded
from feltroom.room.runtime.tournament_views import TournamentViews
from feltroom.room.storage import HandDealRow, HandPlayerRow, TournamentRow
from feltroom.room.tables_config import settings_of
from feltroom.room.tournament_journal import (
    DONE,
    replay,
    settings_from_json,
    status_after,
    write_input,
)
from feltroom.room.tournaments import TournamentBooks
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.table import (
    HandFinished,
    HandResult,
    HandStarted,
    TableEvent,
    TournamentTable,
    tournament_table_config,
)
from feltroom.tournament import (
    BreakEnded,
    BreakStarted,
    CloseTable,
    Director,
    Disqualified,
    ForfeitPaid,
    HandForHandEnded,
    HandForHandStarted,
    HoldTable,
    LevelStarted,
    MovePlayer,
    OpenTable,
    Output,
    PlaceFinal,
    RedrawTable,
    RegistrationClosed,
    ReleaseTable,
    RemovePlayer,
    SeatPlayer,
    SetLevel,
    Started,
)

__all__ = ["TournamentRunner", "TournamentTableRef", "tournament_number", "tournament_table_id"]

log = logging.getLogger("feltroom.room.tournaments")

LAPSED_RETRY = 5.0
"""Seconds a cluster worker tries a tournament's write again while its lease has only lapsed
(``TournamentRunner._write_kept``)."""

HEARTBEAT = 5.0
"""How often a runner writes that the room is alive (the clock resumes from there after a
crash) and looks for an operator's cancellation."""


def tournament_table_id(tournament_id: str, number: int) -> str:
    """The id under which table ``number`` of a tournament stores its hands."""
    table_id = f"{tournament_id}.{number}"
    if len(table_id) <= 32:
        return table_id
    return f"t.{hashlib.sha256(tournament_id.encode()).hexdigest()[:16]}.{number}"


def tournament_number(tournament_id: str) -> int:
    """The number a tournament's hand histories give it (``Tournament #<number>``, digits as
    trackers read them): ten digits derived from its id, the same on every machine."""
    return int(hashlib.sha256(tournament_id.encode()).hexdigest()[:15], 16) % 10**10


@dataclass(frozen=True, slots=True)
class _StoredHand:
    settings: dict[str, Any]
    players: tuple[HandPlayerRow, ...]
    deal: HandDealRow | None


class TournamentRunner(ClockedRunner, TournamentEntries, TournamentViews):
    """One tournament instance on the room's clock. See the module docstring."""

    def __init__(self, room: RoomHost, spec: TournamentSpec, row: TournamentRow) -> None:
        self.room = room
        self.spec = spec
        self.row = row
        self.tournament_id = row.tournament_id
        self.settings = settings_from_json(row.settings)
        self.status = row.status
        self.books = TournamentBooks(room.books, row.tournament_id, row.currency, clock=room.clock)
        self.director = Director(self.settings, start_at=row.start_at)
        self.tables: dict[int, TournamentTableRef] = {}
        self.by_id: dict[str, TournamentTableRef] = {}
        self._seen_at: dict[str, TournamentTableRef] = {}  # (``_seat_of``)
        self.bots: dict[str, HouseBot] = {}
        self.bot_names: set[str] = set()
        self.seq = 0
        self.lock = OpenLock()  # its tables' many actions take it at once when free
        self.wake = asyncio.Event()
        self.next_bot = 0.0
        self.next_beat = 0.0
        self.paused_until = 0.0
        self.error: str | None = None
        self._queued: set[asyncio.Future[int | None]] = set()
        self._generation = 0
        """Bumped by each ``load``: a queued write's failure counts only for its generation."""
        # No new hand is dealt (a cluster's worker hands the tournament over between hands).
        self.dealing = True

    @property
    def done(self) -> bool:
        return self.status in DONE

    def registration_closed(self) -> str | None:
        """Why a new entry is refused now (R-TOURN-2, R-TOURN-3), or ``None`` while registration
        is open: before the start, and for ``late_registration_levels`` levels after it."""
        director = self.director
        if self.done or director.finished:
            return f"it is {director.state}"
        if director.registration_open:
            return None
        levels = self.settings.late_registration_levels
        if levels == 0:
            return "it has started and takes no late entries"
        return f"late registration ended with level {levels}"

    # -------------------------------------------------------------- the books

    async def load(self, now: float) -> None:
        """(Re)build the director and the tables from the books (module docstring)."""
        self._generation += 1  # the failures of writes queued before are this load's
        row, journal = await self.room.writer.call(self._read)
        self.row, self.status = row, row.status
        done = replay(row, journal)
        director = self.director = done.director
        self.seq = done.seq
        names = sorted({e.account for e in director.entries})
        self.bot_names = await self.room.writer.call(self.room.bot_accounts, names)
        self.bots = {}
        self.tables = {}
        self.by_id = {}
        for number, model in sorted(director.tables.items()):
            tab = self._open(number)
            for seat, entry_number in sorted(model.seats.items()):
                entry = director.entries[entry_number - 1]
                tab.table.seat_player(entry.account, seat, entry.stack, now)
            if model.held:
                tab.table.hold()
        if self.done:
            return
        for number, (before, hand_id) in sorted(done.playing.items()):
            outputs = director.hand_finished(number, before, before, now)
            payload = {
                "table": number,
                "before": before,
                "after": before,
                "hand_id": hand_id,
                "void": True,
            }
            await self._input("hand_finished", payload, now, outputs, reload=False)
            log.warning(
                "tournament %s table %d: the hand in progress (%s) is void; stacks at their "
                "start-of-hand values",
                self.tournament_id,
                number,
                hand_id,
            )
        stopped = max(row.seen_at, done.last_at)
        if director.started_at is not None and now > stopped and not self.done:
            outputs = director.resume(stopped, now)
            await self._input("resume", {"stopped_at": stopped}, now, outputs, reload=False)
        self.next_bot = now + self.room.settings.tournament_bot_wait

    async def _restore(self, now: float) -> None:
        """After a player's request whose write was refused or failed (nothing of it holds):
        the director as the books hold it, replayed from the journal, while the tables play on
        (their hands in progress are not void). Only when the books moved on meanwhile (an
        operator's cancellation) is the whole runner rebuilt (``load``)."""
        row, journal = await self.room.writer.call(self._read)
        last = journal[-1].seq if journal else 0
        if row.status != self.status or last != self.seq:
            await self.load(now)
            return
        done = await asyncio.to_thread(replay, row, journal)
        self.director = done.director

    def _read(self) -> tuple[TournamentRow, list[Any]]:
        with self.room.books.transaction(write=False) as tx:
            row = tx.get_tournament(self.tournament_id)
            if row is None:
                raise RoomError(f"no tournament {self.tournament_id!r} in the books")
            return row, tx.journal(self.tournament_id)

    def _write(
        self,
        seq: int,
        kind: str,
        payload: dict[str, Any],
        at: float,
        outputs: Sequence[Output],
        status: str,
        hand_table: str | None,
        record: dict[str, Any] | None,
        hand: _StoredHand | None,
    ) -> int | None:
        with self.room.books.transaction() as tx:
            self._fenced(tx)
            last = tx.last_journal_seq(self.tournament_id)
            if last >= seq:
                raise DuplicateKey(f"input {seq} of tournament {self.tournament_id} is written")
            if last != seq - 1:  # an input queued before this one was not written
                raise RoomError(
                    f"tournament {self.tournament_id}: input {seq} would follow input {last}"
                )
            return write_input(
                tx,
                self.row,
                seq,
                kind,
                payload,
                at,
                outputs,
                books=self.books,
                status=status,
                hand_table=hand_table,
                hand_record=record,
                hand_settings=None if hand is None else hand.settings,
                hand_players=() if hand is None else hand.players,
                hand_deal=None if hand is None else hand.deal,
            )

    def _fenced(self, tx: Any) -> None:
        """A cluster's worker writes about a tournament only under its lease (its fence, the
        tournament's id: ``LeaseLost`` otherwise); a single process has no fence."""
        fence = self.room.books_settlement.fence
        if fence is not None:
            fence.check(tx, self.tournament_id)

    def _beat(self, now: float) -> str:
        """The room is alive at ``now``; returns the status the books hold."""
        with self.room.books.transaction() as tx:
            self._fenced(tx)
            row = tx.get_tournament(self.tournament_id)
            if row is None:
                return "cancelled"
            if row.status not in DONE:
                tx.set_tournament(self.tournament_id, seen_at=now)
            return row.status

    async def _input(
        self,
        kind: str,
        payload: dict[str, Any],
        now: float,
        outputs: Sequence[Output],
        *,
        hand_table: str | None = None,
        record: dict[str, Any] | None = None,
        hand: _StoredHand | None = None,
        reload: bool = True,
        queued: bool = False,
        told: TournamentTableRef | None = None,
    ) -> int | None:
        """Write the director's input ``kind`` and book its ``outputs``, then carry them out.
        ``queued`` (a hand's end, in a single process): the write is queued to the writer,
        behind the tournament's earlier inputs, and the outputs are carried out at once, without
        waiting for its commit (``_queue``). ``told``: a table whose players (after the outputs)
        get the tournament's new standing with the outputs' news (``_apply``)."""
        status = status_after(self.status, outputs)
        seq = self.seq + 1
        if queued and self.room.books_settlement.fence is None:
            self._queue(seq, kind, payload, now, outputs, status, hand_table, record, hand)
            self.seq = seq
            self.status = status
            self._apply(outputs, now, told)
            return None
        try:
            hand_id = await self._write_kept(
                seq, kind, payload, now, outputs, status, hand_table, record, hand
            )
        except Exception as error:
            if not reload:
                raise
            log.error(
                "tournament %s: writing input %d (%s) failed: %s; rebuilt from the books",
                self.tournament_id,
                seq,
                kind,
                error,
            )
            await self.load(now)
            raise _Reloaded(str(error)) from error
        self.seq = seq
        self.status = status
        self._apply(outputs, now, told)
        if any(isinstance(out, Started) for out in outputs):
            await self.room.tournament_started(self, now)
        return hand_id

    def _queue(self, seq: int, kind: str, *args: Any) -> asyncio.Future[int | None]:
        """Queue input ``seq``'s write without waiting for it: the writer writes a tournament's
        inputs in the order they were queued, and refuses one that would not follow the last
        written (``_write``), so after a failed write none of the later ones holds either. A
        failure is seen on the loop (``_write_failed``): the runner is rebuilt from the books at
        its next look, as after an awaited write that failed."""
        generation = self._generation
        future = asyncio.ensure_future(self.room.writer.call(self._write, seq, kind, *args))

        def done(written: asyncio.Future[int | None]) -> None:
            if written.cancelled() or written.exception() is None:
                return
            if generation == self._generation and self.error is None:
                error = written.exception()
                log.error(
                    "tournament %s: writing input %d (%s) failed: %s; rebuilt from the books",
                    self.tournament_id,
                    seq,
                    kind,
                    error,
                )
                self.error = f"{type(error).__name__}: {error}"
                self.wake.set()

        self._queued.add(future)
        future.add_done_callback(self._queued.discard)
        future.add_done_callback(done)
        return future

    async def settled(self) -> bool:
        """Once the writes queued so far are done (failed ones are ``_queue``'s to report);
        whether a deal waits to be published (the next look does it)."""
        deals = [tab.deal for tab in self.tables.values() if tab.deal is not None]
        if not self._queued and not deals:
            return False
        await asyncio.gather(*self._queued, *deals, return_exceptions=True)
        return any(tab.deal is not None for tab in self.tables.values())

    async def _write_kept(self, *args: Any) -> int | None:
        """``_write`` through the writer; in a cluster's worker, a write refused only because
        the lease's expiry passed (``LeaseLapsed``: a renewal that came late on a busy
        machine) is tried again while the lease is still this worker's (the renewal keeps it
        at the same epoch), for up to ``LAPSED_RETRY`` seconds, rather than rebuilding the
        tournament (which voids its hands in progress)."""
        fence = self.room.books_settlement.fence
        waited = 0.0
        while True:
            try:
                return await self.room.writer.call(self._write, *args)
            except LeaseLapsed:
                if fence is None or fence.epoch(self.tournament_id) is None:
                    raise
                if waited >= LAPSED_RETRY:
                    raise
            await asyncio.sleep(0.1)
            waited += 0.1

    # -------------------------------------------------------------- the director's commands

    def _open(self, number: int) -> TournamentTableRef:
        level = self.director.level
        config = tournament_table_config(self.settings.game, level, self.settings.seats_per_table)
        table_id = tournament_table_id(self.tournament_id, number)
        table = TournamentTable(config, level, deck_source=self.room.randomness.decks(table_id))
        tab = TournamentTableRef(number, table_id, table)
        self.tables[number] = tab
        self.by_id[tab.table_id] = tab
        return tab

    def _apply(
        self, outputs: Sequence[Output], now: float, told: TournamentTableRef | None = None
    ) -> None:
        """Carry the director's ``outputs`` out on the tables and publish them: the tables'
        events, then the moves and ONE piece of news for the change (who should see the new
        standing: ``_news``, the moved players and the players of ``told``, the table a hand
        just ended at), so each of them gets one view of it."""
        published: dict[int, list[TableEvent]] = {}
        moves: list[TournamentEvent] = []

        def seat(account: str, number: int, to_seat: int, chips: int) -> None:
            events = self.tables[number].table.seat_player(account, to_seat, chips, now)
            published.setdefault(number, []).extend(events)

        def remove(number: int, from_seat: int, reason: str) -> int:
            chips, events = self.tables[number].table.remove_player(from_seat, now, reason)
            published.setdefault(number, []).extend(events)
            return chips

        def moved(move: MovePlayer) -> None:
            moves.append(
                PlayerMoved(
                    self.tournament_id,
                    move.account,
                    self.tables[move.from_table].table_id,
                    self.tables[move.to_table].table_id,
                    move.to_seat,
                    move.reason,
                )
            )

        disqualified = {out.entry for out in outputs if isinstance(out, Disqualified)}
        for out in outputs:
            if isinstance(out, OpenTable):
                self._open(out.table)
            elif isinstance(out, SeatPlayer):
                seat(out.account, out.table, out.seat, out.stack)
                table_id = self.tables[out.table].table_id
                moves.append(
                    PlayerMoved(self.tournament_id, out.account, None, table_id, out.seat, "seated")
                )
            elif isinstance(out, MovePlayer):
                chips = remove(out.from_table, out.from_seat, "moved")
                seat(out.account, out.to_table, out.to_seat, chips)
                moved(out)
            elif isinstance(out, RemovePlayer):
                reason = "disqualified" if out.entry in disqualified else "eliminated"
                remove(out.table, out.seat, reason)
                self.bots.pop(out.account, None)
            elif isinstance(out, HoldTable):
                self.tables[out.table].table.hold()
            elif isinstance(out, ReleaseTable):
                self.tables[out.table].table.release()
            elif isinstance(out, SetLevel):
                self.tables[out.table].table.set_level(out.level)
            elif isinstance(out, RedrawTable):
                taken = {}
                for move in out.moves:
                    taken[move.entry] = remove(move.from_table, move.from_seat, "final_table")
                for move in out.moves:
                    seat(move.account, out.table, move.to_seat, taken[move.entry])
                    moved(move)  # a new seat draw for everyone, even the same seat again
                self.tables[out.table].table.new_button_draw()
            elif isinstance(out, CloseTable):
                gone = self.tables.pop(out.table, None)
                if gone is not None:
                    self.by_id.pop(gone.table_id, None)
        room = self.room
        for number, events in published.items():
            tab = self.tables.get(number)
            if tab is not None:
                self._publish(tab, events)
        if room.tournament_listeners:
            news = self._news(outputs)
            movers = {m.account for m in moves if isinstance(m, PlayerMoved)}
            if told is not None and told.number in self.tables:
                movers |= {p.account for p in told.table.seats.values()}
            if movers:  # a moved player gets the standing after the move (players left, rank)
                if news is None:
                    news = TournamentNews(self.tournament_id, tuple(sorted(movers)))
                elif not movers <= set(news.accounts):
                    accounts = tuple(sorted(movers | set(news.accounts)))
                    news = TournamentNews(self.tournament_id, accounts, news.results)
            now_moves: list[TournamentEvent] = []
            for shown in moves:  # a move to a table whose deal is being written waits for it
                target = self.by_id.get(shown.to_table) if isinstance(shown, PlayerMoved) else None
                if target is not None and target.deal is not None:
                    target.held_moves.append(shown)
                else:
                    now_moves.append(shown)
            if now_moves or news is not None:
                room.publish_tournament([*now_moves, *([] if news is None else [news])])

    def _publish(self, tab: TournamentTableRef, events: Sequence[TableEvent]) -> None:
        """The table's events to the room's listeners; held while the table's deal is written
        (``_dealt`` publishes them after the deal's)."""
        if not events:
            return
        if tab.deal is not None:
            tab.held_events.extend(events)
        elif self.room.listeners:
            self.room.publish(tab, tuple(events))

    def _news(self, outputs: Sequence[Output]) -> TournamentNews | None:
        """Who should see the tournament's new standing after ``outputs``: everyone in play
        when the level, a break, the registration or hand-for-hand changed, else the players
        of the tables a hand ended at (``_events`` adds those) and whoever's place is final."""
        results = tuple(out.account for out in outputs if isinstance(out, PlaceFinal | ForfeitPaid))
        general = any(
            isinstance(
                out,
                LevelStarted
                | BreakStarted
                | BreakEnded
                | RegistrationClosed
                | Started
                | HandForHandStarted
                | HandForHandEnded,
            )
            for out in outputs
        )
        if general or self.director.finished:
            accounts = tuple(
                sorted({e.account for e in self.director.entries if not e.unregistered})
            )
        elif not results:
            return None
        else:
            accounts = results
        return TournamentNews(self.tournament_id, accounts, results)

    # -------------------------------------------------------------- driving

    async def step(self, now: float) -> float:
        """Everything due at ``now``; returns when the runner next needs a look."""
        settings = self.room.settings
        if self.paused_until > now:
            return self.paused_until
        if not self.room.may_run(self.tournament_id):  # (a cluster worker that cannot show its
            return now + settings.poll  # lease valid now: nothing moves, nobody is told)
        if self.error is not None:
            try:
                await self.load(now)
            except Exception as error:
                return self._pause(error, now)
            self.error = None
        if now >= self.next_beat:
            self.next_beat = now + HEARTBEAT
            stored = await self.room.writer.call(self._beat, now)
            if stored != self.status:
                log.warning(
                    "tournament %s is %s in the books: rebuilt from them",
                    self.tournament_id,
                    stored,
                )
                await self.load(now)
        if self.done:
            return float("inf")
        wake = min(now + settings.poll, self.next_beat)
        try:
            outputs = self.director.tick(now)
            if outputs:
                await self._input("tick", {}, now, outputs)
            if self.director.registration_open and self.bot_can_register():
                self.next_bot = min(self.next_bot, now + bot_wait(self))  # a person waits
                if now >= self.next_bot:
                    self.next_bot = now + bot_wait(self)
                    await self._register_bot(now)
                wake = min(wake, self.next_bot)
            dealing: list[TournamentTableRef] = []
            for tab in list(self.tables.values()):
                wake = min(wake, await self._step_table(tab, now, dealing))
                if self.done:
                    return float("inf")
            if dealing:  # dealt together: their inputs written in one commit
                await self._deal(dealing, now)
                wake = now
        except _Reloaded:
            return now + settings.poll
        due = self.director.wake_at()
        if due is not None:
            wake = min(wake, max(due, now))
        return wake

    def fail(self, error: BaseException, now: float) -> float:
        """Pause this tournament after ``error`` (logged); it is rebuilt from the books after
        ``error_pause`` seconds. Returns when."""
        return self._pause(error, now)

    def _pause(self, error: BaseException, now: float) -> float:
        log.error("tournament %s: %s; retried later", self.tournament_id, error, exc_info=error)
        self.error = f"{type(error).__name__}: {error}"
        self.paused_until = now + self.room.settings.error_pause
        return self.paused_until

    async def _step_table(
        self, tab: TournamentTableRef, now: float, due: list[TournamentTableRef]
    ) -> float:
        """The table's clock and house bots; a table whose next hand is due joins ``due``. A
        table whose deal is being written waits for it; once written, its deal is published."""
        table = tab.table
        if tab.deal is not None:
            if not tab.deal.done():
                return now + self.room.settings.poll  # (the write's end wakes the runner)
            await self._dealt(tab, now)
            if tab.number not in self.tables:
                return now
        await self._events(tab, table.tick(now), now)

        async def handle(events: Sequence[TableEvent], now: float) -> None:
            await self._events(tab, events, now)

        wake = await bot_turns(
            table, self._bot_of, handle, now, still=lambda: tab.number in self.tables
        )
        if tab.number in self.tables and not table.in_hand and table.can_start() and self.dealing:
            if now >= tab.next_deal:
                due.append(tab)
                return now
            wake = min(wake, tab.next_deal)
        return wake

    def bot_can_register(self) -> bool:
        """House bots fill play-money sit-and-gos (``tournament_bots.py``)."""
        return bots_may_register(self)

    def waiting(self, now: float) -> dict[str, Any] | None:
        """What the tournament waits for while open for entries (``tournament_bots.py``)."""
        return waiting_for(self, now)

    def _bot_of(self, account: str) -> HouseBot | None:
        """The house bot that plays ``account`` (made at its first turn), ``None`` for a person."""
        if account not in self.bot_names:
            return None
        bot = self.bots.get(account)
        if bot is None:
            bot = self.bots[account] = new_house_bot(self.room, account)
        return bot

    async def _deal(self, tabs: Sequence[TournamentTableRef], now: float) -> None:
        """Deal the next hand at each of ``tabs`` (those that still can): the director is told and
        the hands' inputs are written. In a single process the writes are queued and not awaited
        (``TournamentTableRef.deal``): each deal is published at the look after its write, which
        needs the stored hand's id, while nothing else waits for it; under a cluster's lease they
        are written one after the other (or together) and then published."""
        dealt: list[tuple[TournamentTableRef, list[TableEvent], dict[str, Any]]] = []
        for tab in tabs:
            table = tab.table
            if tab.number not in self.tables or table.in_hand or not table.can_start():
                continue  # held or emptied meanwhile (another table's hand ended)
            stacks = {seat: player.stack for seat, player in table.seats.items()}
            try:
                events = table.start_hand(now)
            except IllegalAction:
                continue  # nothing to deal yet (the table decides; the director is not told)
            started = next((e for e in events if isinstance(e, HandStarted)), None)
            if started is None:
                continue
            level = max(1, self.director.level_number)
            while level > 1 and self.director.schedule.level(level) != table.level:
                level -= 1  # a level that started meanwhile applies from the next hand
            tab.level = level
            self.director.hand_started(tab.number, started.button, started.big, now)
            payload = {
                "table": tab.number,
                "button": started.button,
                "big": started.big,
                "stacks": {seat: stacks[seat] for seat in started.dealt},
            }
            dealt.append((tab, events, payload))
        if self.room.books_settlement.fence is None:
            for tab, events, payload in dealt:  # written behind the earlier inputs, not awaited
                seq = self.seq + 1
                future = self._queue(
                    seq, "hand_started", payload, now, [], self.status, tab.table_id, None, None
                )
                self.seq = seq
                tab.deal, tab.deal_events = future, events
                future.add_done_callback(lambda _: self.wake.set())
            return
        if len(dealt) > 1:
            await self._write_deals(dealt, now)
        else:
            for tab, _, payload in dealt:
                tab.hand_id = await self._input(
                    "hand_started", payload, now, [], hand_table=tab.table_id
                )
        for tab, events, _ in dealt:
            await self._events(tab, events, now)

    async def _dealt(self, tab: TournamentTableRef, now: float) -> None:
        """The deal written (single process): the hand gets its stored id, and its events, then
        the table's held ones and the moves to it, are published. A failed write leaves the
        table for the rebuild from the books (``_queue`` reported it)."""
        future, tab.deal = tab.deal, None
        assert future is not None
        if future.cancelled() or future.exception() is not None:
            return
        tab.hand_id = future.result()
        events = [*tab.deal_events, *tab.held_events]
        moves, tab.deal_events, tab.held_events, tab.held_moves = tab.held_moves, [], [], []
        await self._events(tab, events, now)
        if moves and self.room.tournament_listeners:
            self.room.publish_tournament(moves)

    async def _write_deals(
        self,
        dealt: Sequence[tuple[TournamentTableRef, list[TableEvent], dict[str, Any]]],
        now: float,
    ) -> None:
        """The ``hand_started`` inputs of ``dealt``, queued to the writer at once (in order: it
        groups them in one commit) and awaited together; a failure rebuilds the runner from the
        books (``_Reloaded``), as ``_input`` does."""
        first = self.seq + 1
        writes = [
            self.room.writer.call(
                self._write,
                first + k,
                "hand_started",
                payload,
                now,
                [],
                self.status,
                tab.table_id,
                None,
                None,
            )
            for k, (tab, _, payload) in enumerate(dealt)
        ]
        results = await asyncio.gather(*writes, return_exceptions=True)
        failed = next((r for r in results if isinstance(r, BaseException)), None)
        if failed is not None:
            log.error(
                "tournament %s: writing the deals of inputs %d to %d failed: %s; rebuilt from "
                "the books",
                self.tournament_id,
                first,
                first + len(dealt) - 1,
                failed,
            )
            await self.load(now)
            raise _Reloaded(str(failed)) from failed
        self.seq = first + len(dealt) - 1
        for (tab, _, _), hand_id in zip(dealt, results, strict=True):
            tab.hand_id = hand_id  # type: ignore[assignment]

    async def _events(
        self, tab: TournamentTableRef, events: Sequence[TableEvent], now: float
    ) -> None:
        self._publish(tab, events)
        for event in events:
            if not isinstance(event, HandFinished):
                continue
            tab.last_hand_id = tab.hand_id
            result = event.result
            outputs = self.director.hand_finished(tab.number, result.before, result.after, now)
            payload = {
                "table": tab.number,
                "before": dict(result.before),
                "after": dict(result.after),
                "hand_id": tab.hand_id,
            }
            record = {
                "tournament": self.tournament_id,
                **hand_record(tab.table_id, result),
                "finishes": [
                    [out.account, out.place, out.prize]
                    for out in outputs
                    if isinstance(out, PlaceFinal)
                ],
            }
            stored = self._stored_hand(tab, result, tab.hand_id)
            tab.hand_id = None
            tab.next_deal = next_deal_at(self.room.settings, result, now)
            await self._input(
                "hand_finished",
                payload,
                now,
                outputs,
                record=record,
                hand=stored,
                queued=True,
                told=tab,
            )

    def _stored_hand(
        self, tab: TournamentTableRef, result: HandResult, hand_id: int | None
    ) -> _StoredHand:
        """What the books keep with a tournament hand for the players' hand histories: the
        table's settings with the tournament's (``feltroom.history.tournament_info``), each
        player's row and the committed deck."""
        cfg = self.settings
        number = tournament_number(self.tournament_id)
        currency = CURRENCIES.get(self.row.currency)
        settings: dict[str, Any] = {
            "table_id": tab.table_id,
            "currency": self.row.currency,
            **settings_of(tab.table.config),
            "name": f"{number} {tab.number}",
            "tournament": {
                "id": self.tournament_id,
                "number": number,
                "name": self.spec.tournament_id,
                "type": "MTT" if cfg.format == "mtt" else "STT",
                "buy_in": cfg.buy_in,
                "fee": cfg.fee,
                "currency": self.row.currency,
                "exponent": 0 if currency is None else currency.exponent,
                "started_at": self.director.started_at,
                "starting_stack": cfg.starting_stack,
                "level": tab.level,
                "level_minutes": self.director.schedule.level_minutes,
                "table": tab.number,
            },
        }
        if hand_id is None:
            return _StoredHand(settings, (), None)
        players, deal = hand_rows(hand_id, result)
        return _StoredHand(settings, players, deal)

    async def recover(self, error: Exception, now: float) -> float:
        """After a look that raised: the tournament pauses (``fail``)."""
        return self._pause(error, now)

    def on_clock(self) -> bool:
        return not self.done

    def latest_look(self, now: float) -> float:
        return now + HEARTBEAT

    # -------------------------------------------------------------- what the lobby shows

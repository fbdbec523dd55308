"""The room at runtime: every table driven on the clock, house bots, and one writer for the books.

- **One task per table** (``TableRunner``) drives its ``Table`` with the clock (``tick(now)``):
  it deals when a hand is due, lets house bots act when their (short) thinking time is up, and
  books what the table reports through ``Settlement``: buy-ins, the hand's settlement, seats left
  or released after sitting out too long (R-SIT-2), session fees.
- **One writer** (``Writer``): a thread that owns every write to the books. Requests queue up
  while it commits; it settles all the hands that are waiting in ONE transaction
  (``Settlement.settle_hands`` with ``begin_next``, a group commit that also hands each table the
  id of its next hand), so the room settles hundreds of hands per second on SQLite with
  ``synchronous=FULL``. Each table waits for its own request, so its books stay in order.
- **Isolation**: an exception at one table (its bots, its table, its books) pauses that table
  only: its hand is voided (``Settlement.void_hand``), the table is rebuilt from the books, so
  every stack is back at its start-of-hand value (nothing moves in the ledger during a hand), and
  the error is logged with the table and hand id. After ``error_pause`` seconds it plays again.
- **Crash policy**: at start every hand left unsettled is void (``void_unsettled``) and every
  table is rebuilt from the stored stacks (their start-of-hand values); hand ids come from the
  database and are never reused.
- **R-RNG-2**: the shuffle self-test runs on a daily schedule; the result is logged.
- **R-TIME-3**: when the table would protect a player whose time ran out, the runner asks
  ``Accounts.consume_protection`` (the allowance is per account, across all tables).
- **Listeners** (``RoomRuntime.add_listener``): every batch of events a table reports, and the
  room's own (``feltroom.room.events``), is published to them synchronously, in order, before it
  is booked; a listener that raises is logged and the table goes on.
- **A person's seat**: every command a person may give (``act``, ``add_chips``, ``show`` ...)
  runs under the table's lock and is refused with a typed error, changing nothing, when it is
  not valid. A disconnected player who has not resumed after ``disconnect_grace`` seconds is sat
  out (the seat is kept; R-SIT-2 releases it later as for anyone sitting out).

Time is injected (``clock``); ``advance(now)`` drives every table to ``now`` for tests with a fake
clock, ``run()`` drives them on the real clock.
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

from feltroom.errors import IllegalAction
from feltroom.room.accounts import Accounts, Argon2Settings
from feltroom.room.cashier import Cashier
from feltroom.room.errors import InsufficientFunds, RoomError, StaleHand, UnknownAccount
from feltroom.room.events import TournamentEvent
from feltroom.room.housebots import HouseBot
from feltroom.room.lobby import TableStats
from feltroom.room.operators import OperatorLog
from feltroom.room.protection import Protection, check_may_play
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.host import Listener, TournamentListener, WatchedTable
from feltroom.room.runtime.operator_actions import OperatorActions, closed_tables, define_table
from feltroom.room.runtime.settings import (
    SETTLEMENT_BUCKETS,
    Randomness,
    RuntimeSettings,
)
from feltroom.room.runtime.tournament import TournamentRunner
from feltroom.room.runtime.tournaments_host import TournamentsHost
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.storage import TournamentRow
from feltroom.room.tables_config import TableSpec
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.rules import Action
from feltroom.selftest import run_selftest
from feltroom.table import Entry, PreAction, Table, TableEvent

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


class RoomRuntime(TournamentsHost, OperatorActions):
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
        await self._resume_tournaments(now)

    async def run(self) -> None:
        """Drive every table on the real clock until ``stop``."""
        self._tasks = [
            asyncio.create_task(runner.run_forever(), name=f"table {runner.table_id}")
            for runner in self.runners.values()
        ]
        self._tasks.append(asyncio.create_task(self._schedule(), name="self-test schedule"))
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
        now = self.clock()
        return [runner.lobby(now) for runner in self.runners.values()]

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

    async def join(
        self,
        table_id: str,
        player: str,
        seat: int,
        buy_in: int | None = None,
        entry: Entry = Entry.POST,
    ) -> int:
        """Sit ``player`` in ``seat`` with ``buy_in`` (default: R-BUYIN-2, the whole balance in
        the table's currency capped by the table maximum); returns the stack."""
        runner = self.runner(table_id)
        await self.writer.call(self.check_may_play, player, "seat")
        async with runner.lock:
            runner.check_open()
            runner.check_running()
            now = self.clock()
            config = runner.spec.config
            table = runner.table
            if not 1 <= seat <= config.max_seats or seat in table.seats:
                raise IllegalAction(f"seat {seat} is not free at table {table_id}")
            if table.seat_of(player) is not None:
                raise IllegalAction(f"{player} already sits at table {table_id}")
            amount = buy_in
            if amount is None:
                amount = await self.writer.call(
                    self.books_settlement.default_buy_in, table_id, player, config.buy_in_max
                )
            high = config.buy_in_max
            if amount < config.buy_in_min or (high is not None and amount > high):
                raise IllegalAction(
                    f"a buy-in of {amount} is outside the table's bounds "
                    f"({config.buy_in_bounds_text()}, R-BUYIN-1)",
                    details={"min": config.buy_in_min, "max": high, "stack": 0, "amount": amount},
                )
            books = self.books_settlement
            await self.writer.call(books.buy_in, table_id, player, seat, amount)
            try:
                events = table.sit(player, seat, amount, now, entry=entry)
            except IllegalAction:
                await self.writer.call(books.leave, table_id, player)
                raise
            await runner.command(events, now)
            return amount

    async def _at_seat(
        self,
        table_id: str,
        player: str,
        do: Callable[[Table, int, float], Sequence[TableEvent]],
        *,
        running: bool = True,
    ) -> None:
        """One of the player's own table commands, under the table's lock (``running``: refused
        while the table is paused)."""
        runner = self.runner(table_id)
        async with runner.lock:
            if running:
                runner.check_running()
            now = self.clock()
            await runner.command(do(runner.table, runner.seat_of(player), now), now)

    async def leave(self, table_id: str, player: str) -> None:
        """Leave: at once between hands, else the hand is folded at the player's turn and the
        seat released after it (R-SIT-1); the stack goes back to the wallet."""
        await self._at_seat(table_id, player, Table.leave, running=False)

    async def act(
        self,
        table_id: str,
        player: str,
        action: Action,
        hand_id: int | None = None,
        turn_id: int | None = None,
    ) -> None:
        """The player's action at their turn (refused with ``IllegalAction`` otherwise);
        ``hand_id``, when given, must be the hand in progress (``StaleHand``), and ``turn_id``
        the turn in progress (``StaleTurn``)."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_running()
            now = self.clock()
            seat = runner.seat_of(player)
            runner.check_hand(hand_id)
            runner.check_turn(turn_id)
            await runner.command(runner.table.act(seat, action, now), now)

    async def sit_out(self, table_id: str, player: str) -> None:
        await self._at_seat(table_id, player, Table.sit_out, running=False)

    async def sit_in(self, table_id: str, player: str, entry: Entry = Entry.POST) -> bool:
        """Come back (R-MISS-1/2). A busted player whose chips are pending (bought during the
        hand) sits in as they join the stack, after the hand; returns True then."""
        runner = self.runner(table_id)
        async with runner.lock:
            seat = runner.seat_of(player)
            table = runner.table
            if table.seats[seat].stack == 0 and runner.pending_chips.get(player):
                runner.sit_in_after_chips[player] = entry
                return True
            now = self.clock()
            await runner.command(table.sit_in(seat, now, entry), now)
            return False

    async def post_blind(self, table_id: str, player: str) -> None:
        """Answer a blind prompt: post (R-BLIND-6); refused unless the player is prompted."""
        await self._at_seat(table_id, player, Table.post_blind)

    async def decline_blind(self, table_id: str, player: str) -> None:
        """Answer a blind prompt: decline and sit out (R-BLIND-6)."""
        await self._at_seat(table_id, player, Table.decline_blind)

    async def add_chips(self, table_id: str, player: str, amount: int) -> int:
        """Add chips from the wallet between hands, up to the table maximum (R-BUYIN-3); returns
        the new stack. The table's rule is checked before any money moves."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_open()
            runner.check_running()
            return await self._add_now(runner, player, amount)

    async def _add_now(self, runner: TableRunner, player: str, amount: int) -> int:
        """``add_chips`` under the table's lock."""
        now = self.clock()
        table = runner.table
        seat = runner.seat_of(player)
        table.verify_add_chips(seat, amount)
        await self.writer.call(self.books_settlement.buy_in, runner.table_id, player, seat, amount)
        try:
            events = table.add_chips(seat, amount, now)
        except IllegalAction as error:  # cannot happen under the lock; the books win
            await runner.fail(error, now)
            raise
        await runner.command(events, now)
        return table.seats[seat].stack

    async def buy_chips(self, table_id: str, player: str, amount: int) -> tuple[int, int]:
        """Add chips from the wallet: at once between hands (``add_chips``); during a hand, or
        while a hand is being planned, the wallet is debited now and the chips join the stack
        when the hand ends, up to the table maximum then (R-BUYIN-3: chips never enter a hand
        in progress). Returns (the stack, the units pending: 0 when added at once)."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_open()
            runner.check_running()
            table = runner.table
            seat = runner.seat_of(player)
            if not table.between_hands:
                held = runner.pending_chips.get(player, 0)
                table.verify_chips_bounds(seat, held + amount)
                held = await self.writer.call(
                    self.books_settlement.pend_chips, table_id, player, amount
                )
                runner.pending_chips[player] = held
                return table.seats[seat].stack, held
            return await self._add_now(runner, player, amount), 0

    async def join_waiting_list(self, table_id: str, player: str) -> int:
        """Put ``player`` on the table's waiting list; returns their place (1: first). A free
        seat is offered to the first player waiting without an offer."""
        runner = self.runner(table_id)
        await self.writer.call(self.check_may_play, player, "seat")
        async with runner.lock:
            runner.check_open()
            now = self.clock()
            table = runner.table
            if player in table.waiting:
                raise IllegalAction(
                    f"{player} is already number {table.waiting.index(player) + 1} on the "
                    f"waiting list of table {table_id}"
                )
            seat = table.seat_of(player)
            if seat is not None:
                raise IllegalAction(f"{player} already sits in seat {seat} at table {table_id}")
            await runner.command(table.join_waiting_list(player, now), now)
            return table.waiting.index(player) + 1 if player in table.waiting else 0

    async def leave_waiting_list(self, table_id: str, player: str) -> None:
        """Take ``player`` off the waiting list (and withdraw a seat offered to them)."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            table = runner.table
            if player not in table.waiting:
                raise IllegalAction(f"{player} is not on the waiting list of table {table_id}")
            await runner.command(table.leave_waiting_list(player, now), now)

    async def set_pre_action(
        self, table_id: str, player: str, hand_id: int, pre_action: PreAction | None
    ) -> None:
        """A pre-action choice for the hand in progress, used at the player's next turn if still
        valid (R-AUTO-1); ``None`` withdraws it. Refused (``StaleHand``) unless ``hand_id`` is
        the hand in progress, and (``IllegalAction``) unless the player has a turn to come."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_running()
            now = self.clock()
            table = runner.table
            seat = runner.seat_of(player)
            if runner.playing is None or hand_id != runner.playing:
                playing = "none" if runner.playing is None else runner.playing
                raise StaleHand(
                    f"hand {hand_id} is not the hand in progress at table {table_id} ({playing})"
                )
            if pre_action is not None:
                hand = table.hand
                assert hand is not None
                if seat not in hand.seats:
                    raise IllegalAction(
                        f"{player} is not dealt into hand {hand_id}: a pre-action waits for "
                        "a hand you play"
                    )
                position = hand.seats.index(seat)
                if hand.folded[position] or hand.all_in[position]:
                    raise IllegalAction(
                        f"{player} has no turn to come in hand {hand_id} (folded or all-in)"
                    )
                if hand.to_act == seat:
                    raise IllegalAction("it is your turn: act instead of choosing a pre-action")
            table.set_pre_action(seat, pre_action)
            await runner.command([], now)

    async def set_auto_post(self, table_id: str, player: str, on: bool) -> None:
        """Post blinds automatically or be asked each time (R-BLIND-6); turned on while the
        player is asked, it posts."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            events = runner.table.set_auto_post(runner.seat_of(player), on, now)
            await runner.command(events, now)

    async def set_auto_muck(self, table_id: str, player: str, on: bool) -> None:
        """Muck losing hands at the showdown (on) or show them (R-SHOW-4); from the next deal."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            runner.table.set_auto_muck(runner.seat_of(player), on)
            await runner.command([], now)

    async def show(self, table_id: str, player: str, hand_id: int) -> None:
        """Show one's cards after hand ``hand_id``, before the next deal: the uncontested winner
        or a player who mucked at the showdown (R-SHOW-4, R-BET-5)."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_running()
            now = self.clock()
            seat = runner.seat_of(player)
            if hand_id != runner.playing and hand_id != runner.last_hand_id:
                last = "none" if runner.last_hand_id is None else runner.last_hand_id
                raise StaleHand(
                    f"hand {hand_id} is not the last hand played at table {table_id} ({last}): "
                    "cards can be shown only after a hand, before the next deal"
                )
            await runner.command(runner.table.show(seat, now), now)

    async def disconnect(self, table_id: str, player: str) -> None:
        """The player's connection ended without a leave (R-SIT-1, R-TIME-4): the seat is kept
        and shown as disconnected; R-TIME-3 may protect them. Still disconnected
        ``disconnect_grace`` seconds later, they are sat out (the seat is still kept)."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            events = runner.table.disconnect(runner.seat_of(player), now)
            if events:
                runner.disconnected_at[player] = now
            await runner.command(events, now)

    async def resume(self, table_id: str, player: str) -> None:
        """The player is back on the same seat and hand (R-TIME-4). Within the grace period they
        play on; once sat out they stay sitting out until they sit in."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            events = runner.table.resume(runner.seat_of(player), now)
            runner.disconnected_at.pop(player, None)
            await runner.command(events, now)

    async def seat_house_bot(self, table_id: str, bot: HouseBot, seat: int, amount: int) -> None:
        """Seat a house bot the caller made (its own brain) in ``seat`` with ``amount``: the
        account becomes a house bot's if it is new and buys in from play-chip grants; it then
        plays, and buys again when broke, like the table's own house bots, until it ``leave``s.
        (The integrity benchmark seats its players this way.)"""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_open()
            runner.check_running()
            if not runner.spec.play_money:
                raise RoomError(f"table {table_id} plays real money; house bots play play money")
            now = self.clock()
            table = runner.table
            if not 1 <= seat <= runner.spec.config.max_seats or seat in table.seats:
                raise IllegalAction(f"seat {seat} is not free at table {table_id}")
            if table.seat_of(bot.account) is not None or bot.account in runner.bots:
                raise IllegalAction(f"{bot.account} already sits at table {table_id}")
            await self.writer.call(self.bot_buy_in, table_id, bot.account, seat, amount)
            runner.bots[bot.account] = bot
            try:
                events = table.sit(bot.account, seat, amount, now)
            except IllegalAction:
                del runner.bots[bot.account]
                await self.writer.call(self.books_settlement.leave, table_id, bot.account)
                raise
            await runner.command(events, now)

    async def kept_state(self, table_id: str) -> dict[str, Any]:
        """What a table keeps beyond the books when another process rebuilds it (a cluster's
        worker: its waiting list and who sits in); a single process keeps nothing."""
        return {}

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

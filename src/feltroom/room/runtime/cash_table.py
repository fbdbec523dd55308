"""A cash table on the clock (``TableRunner``): its ``Table``, its house bots, its books.

It deals when a hand is due, lets house bots act when their thinking time is up, and books what
the table reports through the room's single writer: buy-ins, the hand's settlement, seats left
or released after sitting out too long (R-SIT-2), session fees. An exception at the table pauses
it only: its hand is voided, the table rebuilt from the books (every stack back at its
start-of-hand value) and, after ``error_pause`` seconds, it plays again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

from feltroom.errors import FeltroomError, IllegalAction
from feltroom.room.accounts import NotAHouseBot
from feltroom.room.errors import (
    AlreadySettled,
    LeaseLapsed,
    NotSeated,
    RoomError,
    UnknownAccount,
    check_turn,
)
from feltroom.room.events import HandVoided, RoomEvent, TablePaused, TableReloaded, TableResumed
from feltroom.room.housebots import HouseBot, bot_buy_in, bot_name, bot_seats
from feltroom.room.lobby import TableStats, figures_of, lobby_entry
from feltroom.room.rebuys import rebuy_busted
from feltroom.room.runtime.clocked import (
    ClockedRunner,
    bot_turns,
    check_hand,
    new_house_bot,
    next_deal_at,
)
from feltroom.room.runtime.host import RoomHost
from feltroom.room.runtime.outcomes import hand_record, player_outcomes, tax_rule
from feltroom.room.runtime.writer import Writer
from feltroom.room.settlement import HandOutcome, SettledHand, Settlement
from feltroom.room.tables_config import TableSpec, settings_of
from feltroom.table import (
    Entry,
    FeeCharged,
    HandFinished,
    HandResult,
    HandStarted,
    SeatReleased,
    StackReset,
    Table,
    TableEvent,
    TableView,
)

__all__ = ["TableRunner"]

log = logging.getLogger("feltroom.room")


class TableRunner(ClockedRunner):
    """One table on the clock: its ``Table``, its house bots, its books.

    ``playing`` is the id of the hand in progress (``None`` between hands): while listeners are
    told of a batch of events it is the id of the hand those events belong to, a ``HandFinished``
    included. ``last_hand_id`` is the id of the last hand that finished (the hand ``show`` may
    name until the next deal).
    """

    def __init__(self, room: RoomHost, index: int, spec: TableSpec) -> None:
        self.room = room
        self.index = index
        self.spec = spec
        self.table_id = spec.table_id
        self.settings: dict[str, Any] = {
            "table_id": spec.table_id,
            "currency": spec.currency,
            **settings_of(spec.config),
        }
        self.decks = room.randomness.decks(spec.table_id)
        self.table = self._new_table()
        self.bots: dict[str, HouseBot] = {}
        self.hand_id: int | None = None  # the id of the next (or current) hand
        self.playing: int | None = None  # the id of the hand being played
        self.last_hand_id: int | None = None  # the id of the last hand finished
        self.disconnected_at: dict[str, float] = {}  # people disconnected, since when
        # chips bought during a hand, by account (in the books' pending accounts, R-BUYIN-3),
        # and the players who asked to sit in once those chips are on their empty stack
        self.pending_chips: dict[str, int] = {}
        self.sit_in_after_chips: dict[str, Entry] = {}
        self.status = "running"
        # The operator's actions (docs/operator.md): the log entry of the close-table that
        # closed the table (no new hands) or None; whether it is retired (its task ends); the
        # log entry of the action that makes each of these accounts leave (a kick, a suspension).
        self.closed: int | None = None
        self.retired = False
        self.operator_leaves: dict[str, int] = {}
        self.error: str | None = None
        # A home game's host (R-HOME-2): ``hold`` pauses the game between hands (no deal, the
        # clocks of sitting out and disconnection stopped, since ``held_since``); ``next_spec``
        # is the settings from the next hand.
        self.hold = False
        self.held_since: float | None = None
        self.next_spec: TableSpec | None = None
        self.paused_until = 0.0
        self.failures = 0
        self.next_deal = 0.0
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.stats = TableStats(room.clock())

    # -------------------------------------------------------------- books

    @property
    def writer(self) -> Writer:
        return self.room.writer

    @property
    def books_settlement(self) -> Settlement:
        """The writer's settlement (the room's ``books_settlement``, not its ``settlement``,
        which serves the API's threads): call it through ``self.writer`` only."""
        return self.room.books_settlement

    async def load(self, now: float) -> None:
        """(Re)build the table from the books: every stored seat with its stored stack.

        The stored stacks are the start-of-hand values of any hand that did not settle. People
        come back sitting out (they are not connected after a restart; R-SIT-2 releases their
        seat later), but those the room kept as sitting in (``kept_state``: a cluster's
        takeover, whose players stay connected through the gateways); house bots come back
        playing. A person still seated at the table being
        replaced keeps their choices (auto-post, auto-muck) and disconnection mark, and the
        waiting list is kept. Listeners are told of the new table's events and ``TableReloaded``.
        """
        rows = await self.writer.call(self.books_settlement.seats, self.table_id)
        kept = await self.room.kept_state(self.table_id)
        sitting_in = set(kept.get("sitting_in", ()))
        players = sorted(rows.values(), key=lambda row: row.seat)
        bots = await self.writer.call(self.room.bot_accounts, [row.player for row in players])
        old = self.table
        table = self._new_table()
        events: list[TableEvent | RoomEvent] = []
        self.bots = {}
        for row in players:
            if row.seat > self.spec.config.max_seats:
                log.warning(
                    "table %s: %s sits in seat %d, beyond the table's %d seats: cashed out",
                    self.table_id,
                    row.player,
                    row.seat,
                    self.spec.config.max_seats,
                )
                await self.writer.call(self.books_settlement.leave, self.table_id, row.player)
                continue
            bot = row.player in bots
            out = not bot and row.player not in sitting_in
            events += table.restore_seat(row.player, row.seat, row.stack, now, sitting_out=out)
            if bot:
                self.bots[row.player] = self._bot(row.player)
                table.set_run_twice(row.seat, "always")  # R-HOME-4: a house bot agrees
                continue
            before = old.seat_of(row.player)
            if before is not None:
                was, seat = old.seats[before], table.seats[row.seat]
                seat.auto_post, seat.auto_muck = was.auto_post, was.auto_muck
                seat.auto_rebuy, seat.run_twice = was.auto_rebuy, was.run_twice
                seat.straddle = was.straddle and table.config.straddle
                if was.disconnected:
                    events += table.disconnect(row.seat, now)
        waiting = list(old.waiting)
        waiting += [a for a in kept.get("waiting", ()) if a not in waiting]
        for account in waiting:
            if table.seat_of(account) is None:
                events += table.join_waiting_list(account, now)
        self.table = table
        self.playing = None
        self.pending_chips = await self.writer.call(
            self.books_settlement.pending_chips, self.table_id
        )
        events.append(TableReloaded())
        self._publish(events)

    def _new_table(self) -> Table:
        return Table(
            self.spec.config,
            may_protect=self._may_protect,
            may_reset=self._may_reset,
            deck_source=self.decks,
        )

    def _bot(self, account: str) -> HouseBot:
        return new_house_bot(self.room, account)

    def _may_protect(self, account: str) -> bool:
        """R-TIME-3: the account's allowance, across all tables, decides."""
        if account in self.bots:
            return False
        return self.room.accounts.consume_protection(account, self.table_id, self.playing)

    def _may_reset(self, account: str, amount: int) -> bool:
        """``reset_stacks``: whether the wallet holds the ``amount`` a reset needs (a house
        bot's is topped up when it runs low)."""
        if account in self.bots:
            return True
        balance = self.room.settlement.default_buy_in(self.table_id, account, None)
        return balance >= amount

    # -------------------------------------------------------------- driving

    async def step(self, now: float) -> float:
        """Everything due at ``now``; returns when this table next needs a look."""
        if self.status == "paused":
            if now < self.paused_until:
                return self.paused_until
            await self._resume(now)
        table = self.table
        settings = self.room.settings
        if self.hold and table.between_hands and self.closed is None:
            if self.held_since is None:
                self.held_since = now
            return now + settings.idle_look  # a host's pause: nothing runs (R-HOME-2)
        if self.held_since is not None:
            self._unfreeze(now - self.held_since, now)
        await self._handle(table.tick(now), now)
        wake = now + settings.idle_look
        if self.disconnected_at:
            wake = min(wake, await self._disconnections(now))
        if not table.in_hand:
            await self._between_hands(now)
        wake = min(wake, await bot_turns(table, self.bots.get, self._handle, now))
        if not table.in_hand and table.can_start():
            wake = min(wake, max(now, self.next_deal))
        # the clock's next stage (a floor: a due time tick could not clear never spins a core)
        return min(wake, max(self.table.next_due(), now + 0.01))

    def _unfreeze(self, paused: float, now: float) -> None:
        """After a host's pause: the time it lasted counts for no seat's release (R-SIT-2),
        session fee or disconnection grace."""
        self.held_since = None
        for player in self.table.seats.values():
            if player.sat_out_at is not None:
                player.sat_out_at += paused
            if player.fee_due_at is not None:
                player.fee_due_at += paused
        for account in list(self.disconnected_at):
            self.disconnected_at[account] += paused
        self.next_deal = max(self.next_deal, now)

    def _reconfigure(self, spec: TableSpec) -> None:
        """The host's new settings, between hands (R-HOME-2: from the next hand)."""
        self.table.reconfigure(spec.config)
        self.spec = spec
        self.settings = {"table_id": spec.table_id, "currency": spec.currency}
        self.settings.update(settings_of(spec.config))
        self.next_spec = None

    async def _disconnections(self, now: float) -> float:
        """Sit out the people still disconnected ``disconnect_grace`` seconds after their
        disconnection (R-SIT-1: the seat is kept). One dealt into the hand in progress plays it
        out first (the clock acts for them; R-TIME-3 may protect them). Returns when the next
        grace period ends."""
        grace = self.room.settings.disconnect_grace
        table = self.table
        hand = table.hand if table.in_hand else None
        wake = float("inf")
        for account, since in list(self.disconnected_at.items()):
            seat = table.seat_of(account)
            player = table.seats.get(seat) if seat is not None else None
            if player is None or not player.disconnected or player.sitting_out:
                del self.disconnected_at[account]  # gone, resumed, or sitting out already
                continue
            due = since + grace
            if now < due:
                wake = min(wake, due)
                continue
            if hand is not None and player.number in hand.seats:
                continue  # after the hand
            del self.disconnected_at[account]
            log.info("table %s: %s is still disconnected: sat out", self.table_id, account)
            await self._handle(table.sit_out(player.number, now, reason="disconnected"), now)
        return wake

    async def _between_hands(self, now: float) -> None:
        table = self.table
        if self.closed is not None:
            await self._empty(now)
            return  # a closed table deals no new hand
        if self.next_spec is not None and table.between_hands:
            self._reconfigure(self.next_spec)
        if self.pending_chips and table.between_hands:
            await self._apply_pending(now)
        if table.between_hands and self.spec.home is None:  # (a home game's host approves)
            await rebuy_busted(self, now)  # issue 42: the seats' auto-rebuy (room/rebuys.py)
        await self._keep_bots(now)
        if now < self.next_deal or not table.can_start():
            return
        await self.room.before_deal(self.table_id)  # (a takeover keeps who was dealt in)
        if self.hand_id is None:
            self.hand_id = await self.writer.call(self.books_settlement.begin_hand, self.table_id)
        try:
            events = table.start_hand(now)
        except IllegalAction:
            return  # blinds prompted and not answered yet (R-BLIND-6)
        await self._handle(events, now)

    async def _empty(self, now: float) -> None:
        """A closed table: everyone still seated (the players of the hand that was in progress
        when it closed) and waiting leaves, with their chips, under the close's log entry."""
        assert self.closed is not None
        table = self.table
        for account in list(table.waiting):
            await self._handle(table.leave_waiting_list(account, now), now)
        for seat, player in sorted(table.seats.items()):
            self.operator_leaves.setdefault(player.account, self.closed)
            with contextlib.suppress(IllegalAction):
                await self._handle(table.leave(seat, now), now)

    async def _apply_pending(self, now: float) -> None:
        """The hand has ended: the chips bought during it join their stacks, up to the table
        maximum now (R-BUYIN-3); what does not fit, or is below the minimum for an empty stack,
        goes back to the wallet. A player who asked to sit in meanwhile sits in."""
        table = self.table
        config = self.spec.config
        for account, held in list(self.pending_chips.items()):
            del self.pending_chips[account]
            seat = table.seat_of(account)
            if seat is None:
                continue  # left: the books returned the chips with the stack
            stack = table.seats[seat].stack
            room = held if config.buy_in_max is None else max(0, config.buy_in_max - stack)
            if stack == 0 and min(held, room) < config.buy_in_min:
                room = 0  # not a buy-in: back to the wallet (R-BUYIN-1)
            added, returned = await self.writer.call(
                self.books_settlement.apply_pending, self.table_id, account, room
            )
            if returned:
                log.info("table %s: %d of %s's chips returned", self.table_id, returned, account)
            if added:
                await self._handle(table.add_chips(seat, added, now), now)
            entry = self.sit_in_after_chips.pop(account, None)
            if entry is not None and table.seats[seat].stack > 0:
                await self._handle(table.sit_in(seat, now, entry), now)

    async def _keep_bots(self, now: float) -> None:
        """Seat the table's house bots and buy again for those that went broke. Between hands a
        bot leaves when a person waits for a seat at the full table (the seat is offered to
        them), and a bot whose stack passed ``bot_restack`` times the maximum buy-in leaves and
        buys in again (stacks stay at the table's size)."""
        if not self.spec.play_money or self.spec.home is not None:
            return  # house bots play play money only, and never at a home game's table
        table = self.table
        config = self.spec.config
        amount = bot_buy_in(config)
        people_waiting = [a for a in table.waiting if a not in self.bots]
        if people_waiting and self.bots and len(table.seats) >= config.max_seats:
            account = next(iter(self.bots))
            seat = table.seat_of(account)
            if seat is not None:
                log.info("table %s: %s leaves for a player waiting", self.table_id, account)
                await self._handle(table.leave(seat, now), now)
        for account in list(self.bots):
            seat = table.seat_of(account)
            if seat is None:
                del self.bots[account]
                continue
            player = table.seats[seat]
            if player.stack > self.room.settings.bot_restack * amount:
                log.debug("table %s: %s leaves to buy in again", self.table_id, account)
                await self._handle(table.leave(seat, now), now)
                continue  # seated again below with a fresh buy-in
            if player.stack == 0:
                log.debug("table %s: %s buys in again", self.table_id, account)
                await self.writer.call(self.room.bot_buy_in, self.table_id, account, seat, amount)
                await self._handle(table.add_chips(seat, amount, now), now)
            if table.seats[seat].sitting_out:
                await self._handle(table.sit_in(seat, now), now)
        if people_waiting:
            return  # the free seats are for the people waiting
        wanted = bot_seats(config, self.room.settings.house_bots)
        k = 0
        while len(self.bots) < wanted:
            k += 1
            account = bot_name(self.table_id, k)
            if account in self.bots or table.seat_of(account) is not None:
                continue
            free = [s for s in range(1, config.max_seats + 1) if s not in table.seats]
            if not free:
                return
            seat = free[-1]
            try:
                await self.writer.call(self.room.bot_buy_in, self.table_id, account, seat, amount)
            except NotAHouseBot as error:  # a person has the name: take the next one
                log.warning("table %s: %s; the next name is taken instead", self.table_id, error)
                continue
            self.bots[account] = self._bot(account)
            try:
                events = table.sit(account, seat, amount, now)
            except IllegalAction:  # the seat is offered to a waiting player: give it back
                del self.bots[account]
                await self.writer.call(self.books_settlement.leave, self.table_id, account)
                return
            table.set_run_twice(seat, "always")  # R-HOME-4: a house bot never holds the table up
            await self._handle(events, now)

    def _publish(self, events: Sequence[TableEvent | RoomEvent]) -> None:
        """Tell every listener of a batch of events (see ``RoomRuntime.add_listener``)."""
        if events and self.room.listeners:
            self.room.publish(self, tuple(events))

    async def _handle(self, events: Sequence[TableEvent], now: float) -> None:
        """Tell the listeners what the table reports, then book it."""
        if not events:
            return
        if self.room.listeners:
            for event in events:
                if isinstance(event, HandStarted):  # the listeners see the new hand's id
                    self.playing = self.hand_id
                    break
            self.room.publish(self, tuple(events))
        for event in events:
            if isinstance(event, HandStarted):
                self.playing = self.hand_id
                self.room.hands_dealt += 1
                log.debug("table %s hand %s dealt", self.table_id, self.hand_id)
            elif isinstance(event, HandFinished):
                await self._settle(event.result, now)
            elif isinstance(event, SeatReleased):
                entry = self.operator_leaves.pop(event.account, None)
                returned = await self.writer.call(
                    self.books_settlement.leave, self.table_id, event.account, None, entry
                )
                if returned != event.chips:
                    log.warning(
                        "table %s: %s left with %d by the books, %d by the table",
                        self.table_id,
                        event.account,
                        returned,
                        event.chips,
                    )
                self.bots.pop(event.account, None)
                self.pending_chips.pop(event.account, None)  # the books returned them
                self.sit_in_after_chips.pop(event.account, None)
            elif isinstance(event, StackReset):
                await self.writer.call(
                    self.room.reset_stack,
                    self.table_id,
                    event.account,
                    event.before,
                    event.stack,
                    event.account in self.bots,
                )
            elif isinstance(event, FeeCharged) and event.kind == "session_fee":
                await self.writer.call(
                    self.books_settlement.charge_session_fee,
                    self.table_id,
                    event.account,
                    event.amount,
                )

    async def _settle(self, result: HandResult, now: float) -> None:
        outcome = self.outcome(result)
        began = time.perf_counter()
        settled = await self._settled(outcome)
        took = time.perf_counter() - began
        self.room.time_settlement(took)
        log.debug(
            "table %s hand %d settled in %.1f ms: %s",
            self.table_id,
            outcome.hand_id,
            took * 1000,
            ", ".join(f"{account} {stack}" for account, stack in sorted(settled.stacks.items())),
        )
        self.playing = None
        self.last_hand_id = outcome.hand_id
        self.hand_id = settled.next_hand_id
        # The books' stacks are the truth: the settlement withholds the tax (R-TAX-1), which the
        # table has already taken off its own stacks; should they ever differ, the books win.
        # (At a reset_stacks table the stacks were set back to the buy-in after the hand: the
        # reset's own booking checks the books' stack against the table's.)
        resets = self.spec.config.reset_stacks
        for seat, account in () if resets else result.accounts.items():
            player = self.table.seats.get(seat)
            book = settled.stacks.get(account)
            if (
                player is not None
                and player.account == account
                and book is not None
                and player.stack != book
            ):
                log.warning(
                    "table %s hand %d: %s's stack %d set to the books' %d",
                    self.table_id,
                    outcome.hand_id,
                    account,
                    player.stack,
                    book,
                )
                player.stack = book
        self.stats.add(figures_of(result.hand, now))
        self.room.hands_settled += 1
        self.next_deal = next_deal_at(self.room.settings, result, now)

    async def _settled(self, outcome: HandOutcome) -> SettledHand:
        """Settle the hand; while the database cannot take it (it restarts) try again every half
        second for ``settle_retry`` seconds. A refusal of the room's (the lease lost, the hand
        settled already) is not tried again; a lease that lapsed while the database was away
        (``LeaseLapsed``) is, as its owner renews it if nobody took the table meanwhile."""
        give_up = time.monotonic() + self.room.settings.settle_retry
        while True:
            try:
                return await self.writer.settle(outcome)
            except LeaseLapsed as error:
                if time.monotonic() >= give_up:
                    raise
                log.warning(
                    "table %s hand %d: the settlement waits for the lease (%s)",
                    self.table_id,
                    outcome.hand_id,
                    error,
                )
                await asyncio.sleep(0.5)
            except FeltroomError:
                raise
            except Exception as error:
                if time.monotonic() >= give_up:
                    raise
                log.warning(
                    "table %s hand %d: the settlement waits for the database (%s)",
                    self.table_id,
                    outcome.hand_id,
                    error,
                )
                await asyncio.sleep(0.5)

    def outcome(self, result: HandResult) -> HandOutcome:
        """The settlement's view of a finished hand: per player the chips put in, the chips
        won (less the collection fee), the hole cards; the public record of the hand."""
        hand = result.hand
        hand_id = self.playing
        if hand_id is None:
            raise RoomError(f"table {self.table_id}: a hand finished that was never begun")
        players = player_outcomes(result)
        fee = sum(  # the collection fees
            hand.stack_of(seat) - result.after[seat] - result.tax.get(seat, 0)
            for seat in hand.seats
        )
        record = hand_record(self.table_id, result)
        return HandOutcome(
            hand_id,
            self.table_id,
            tuple(players),
            rake=hand.rake,
            fee=fee,
            tax=tax_rule(self.spec.config),
            settings=self.settings,
            record=record,
            deal=result.deal,  # the committed deck: kept secret with the hand (verifiable deals)
        )

    # -------------------------------------------------------------- failure and recovery

    async def fail(self, error: BaseException, now: float) -> None:
        """Pause this table: void and refund its hand, rebuild it from the books, log. Listeners
        are told ``HandVoided`` and ``TablePaused``, then of the rebuilt table."""
        playing = self.playing
        hand_id = playing if playing is not None else self.hand_id
        log.error(
            "table %s hand %s: %s: %s; the table pauses, the hand is void and refunded",
            self.table_id,
            hand_id,
            type(error).__name__,
            error,
            exc_info=error,
        )
        self.status = "paused"
        self.error = f"hand {hand_id}: {type(error).__name__}: {error}"
        self.failures += 1
        self.paused_until = now + self.room.settings.error_pause
        self.hand_id = None
        self.playing = None
        self.last_hand_id = None
        for bot in self.bots.values():
            bot.act_at = None
        if hand_id is not None:
            try:
                await self.writer.call(self.books_settlement.void_hand, hand_id, f"error: {error}")
            except (AlreadySettled, UnknownAccount):
                pass  # it had settled (the error came after) or was never stored
            except Exception:
                log.exception("table %s: voiding hand %s failed", self.table_id, hand_id)
        reason = f"the table failed ({type(error).__name__}); it pauses"
        self._publish([HandVoided(playing, reason), TablePaused(reason)])
        try:
            await self.load(now)  # every stack back at its start-of-hand value
        except Exception:
            log.exception("table %s: rebuilding from the books failed", self.table_id)

    async def _resume(self, now: float) -> None:
        await self.load(now)
        self.status = "running"
        self.next_deal = now
        log.info("table %s resumes after a pause", self.table_id)
        self._publish([TableResumed()])

    async def recover(self, error: Exception, now: float) -> float:
        """After a look that raised: the table fails (``fail``) and pauses."""
        async with self.lock:
            await self.fail(error, now)
        return self.paused_until

    def on_clock(self) -> bool:
        return not self.retired

    def lobby(self, now: float) -> dict[str, Any]:
        entry = lobby_entry(
            self.table_id,
            self.spec.currency,
            self.table,
            self.settings,
            self.stats,
            now,
            status="closed"
            if self.closed is not None and self.status == "running"
            else self.status,
            bots=len(self.bots),
        )
        if self.error is not None:
            entry["last_error"] = self.error
        if self.spec.home is not None:
            entry["home"] = self.spec.home  # a home game's: in no public lobby (R-HOME-1)
        return entry

    def operator_view(self) -> dict[str, Any]:
        """What the operator sees of the table beyond its lobby entry: the hand in progress
        and each seat's player (``GET /api/operator/tables``)."""
        players = [
            {
                "player": p.account,
                "seat": n,
                "stack": p.stack,
                "sitting_out": p.sitting_out,
                "disconnected": p.disconnected,
                "bot": p.account in self.bots,
                "leaving": p.account in self.operator_leaves,
            }
            for n, p in sorted(self.table.seats.items())
        ]
        return {"players": players, "hand": self.playing}

    # -------------------------------------------------------------- a person's seat

    async def command(self, events: Sequence[TableEvent], now: float) -> None:
        try:
            await self._handle(events, now)
        except Exception as error:
            await self.fail(error, now)
        self.wake.set()

    def seat_of(self, player: str) -> int:
        seat = self.table.seat_of(player)
        if seat is None:
            raise NotSeated(f"{player} has no seat at table {self.table_id}")
        return seat

    def check_running(self) -> None:
        if self.status != "running":
            raise RoomError(f"table {self.table_id} is paused: {self.error}")

    def check_open(self) -> None:
        if self.retired:
            raise RoomError(f"table {self.table_id} is retired")
        if self.closed is not None:
            raise RoomError(
                f"table {self.table_id} is closed by the room; choose another table in the lobby"
            )

    def check_hand(self, hand_id: int | None) -> None:
        """Refuse a command that names a hand other than the one in progress."""
        check_hand(self.table_id, self.playing, hand_id)

    def check_turn(self, turn_id: int | None) -> None:
        """Refuse an action that names a turn other than the one in progress."""
        check_turn(self.table_id, self.table.turn_id, turn_id)

    def view_for(self, player: str) -> TableView:
        """The table as ``player`` may see it: from their seat, or as an observer."""
        return self.table.view(self.table.seat_of(player))

"""A person's commands at a cash table: sit with a buy-in, act, leave, sit out and in, answer a
blind prompt, add or buy chips, the waiting list, pre-actions, auto-post and auto-muck, run it
twice (the standing choice and the answer), show, disconnect and resume; and seating a house
bot the caller made. Each runs under the table's lock and is refused with a typed error,
changing nothing, when it is not valid. ``SeatCommands`` is a part of ``RoomRuntime``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from feltroom.errors import IllegalAction
from feltroom.room.errors import RoomError, StaleHand
from feltroom.room.housebots import HouseBot
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.writer import Writer
from feltroom.room.settlement import Settlement
from feltroom.rules import Action
from feltroom.table import Entry, PreAction, Table, TableEvent

__all__ = ["SeatCommands"]


def _not_home(runner: TableRunner) -> None:
    if runner.spec.home is not None:
        raise RoomError(
            f"table {runner.table_id} is a home game's: its host approves the chips you add "
            "(ask through the game)"
        )


class SeatCommands:
    """A person's commands of ``RoomRuntime`` (which gives the attributes named here)."""

    writer: Writer
    books_settlement: Settlement
    clock: Callable[[], float]

    if TYPE_CHECKING:  # (RoomRuntime's)

        def runner(self, table_id: str) -> TableRunner: ...

        def check_may_play(self, player: str, what: str) -> None: ...

        def bot_buy_in(self, table_id: str, account: str, seat: int, amount: int) -> None: ...

    async def join(
        self,
        table_id: str,
        player: str,
        seat: int,
        buy_in: int | None = None,
        entry: Entry = Entry.POST,
        *,
        home: bool = False,
        reference: str | None = None,
    ) -> int:
        """Sit ``player`` in ``seat`` with ``buy_in`` (default: R-BUYIN-2, the whole balance in
        the table's currency capped by the table maximum); returns the stack. At a home game's
        table a seat is the game's to give (``home``: it gives it; else ``HomeRefused``: ask
        through ``RoomRuntime.home.join``). ``reference``: the buy-in transfer's (a home game's
        names the buy-in for its ledger)."""
        runner = self.runner(table_id)
        if runner.spec.home is not None and not home:
            raise RoomError(
                f"table {table_id} is a home game's: ask its host for a seat (the invite link)"
            )
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
            await self.writer.call(books.buy_in, table_id, player, seat, amount, reference)
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
        _not_home(runner)
        async with runner.lock:
            runner.check_open()
            runner.check_running()
            return await self._add_now(runner, player, amount)

    async def _add_now(
        self, runner: TableRunner, player: str, amount: int, reference: str | None = None
    ) -> int:
        """``add_chips`` under the table's lock."""
        now = self.clock()
        table = runner.table
        seat = runner.seat_of(player)
        table.verify_add_chips(seat, amount)
        books = self.books_settlement
        await self.writer.call(books.buy_in, runner.table_id, player, seat, amount, reference)
        try:
            events = table.add_chips(seat, amount, now)
        except IllegalAction as error:  # cannot happen under the lock; the books win
            await runner.fail(error, now)
            raise
        await runner.command(events, now)
        return table.seats[seat].stack

    async def buy_chips(
        self,
        table_id: str,
        player: str,
        amount: int,
        *,
        home: bool = False,
        reference: str | None = None,
    ) -> tuple[int, int]:
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
                    self.books_settlement.pend_chips, table_id, player, amount, reference
                )
                runner.pending_chips[player] = held
                return table.seats[seat].stack, held
            return await self._add_now(runner, player, amount, reference), 0

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

    async def set_straddle(self, table_id: str, player: str, on: bool) -> None:
        """The standing straddle choice (R-HOME-3), from the next deal; refused with
        ``IllegalAction`` at a table that does not allow straddles."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            runner.table.set_straddle(runner.seat_of(player), on)
            await runner.command([], now)

    async def set_run_twice(self, table_id: str, player: str, choice: str) -> None:
        """The player's standing choice for running it twice (R-HOME-4): ``always``, ``ask`` or
        ``never``, from the next question."""
        runner = self.runner(table_id)
        async with runner.lock:
            now = self.clock()
            runner.table.set_run_twice(runner.seat_of(player), choice)
            await runner.command([], now)

    async def answer_run_twice(self, table_id: str, player: str, agree: bool) -> None:
        """Answer the open run-it-twice question (R-HOME-4): a refusal runs the board once."""
        runner = self.runner(table_id)
        async with runner.lock:
            runner.check_running()
            now = self.clock()
            events = runner.table.answer_run_twice(runner.seat_of(player), agree, now)
            await runner.command(events, now)

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
            table.set_run_twice(seat, "always")  # R-HOME-4: a house bot agrees
            await runner.command(events, now)

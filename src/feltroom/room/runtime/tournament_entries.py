"""A tournament's entries and its players' commands: registering (house bots too, while a
play-money sit-and-go is open), unregistering, disqualifying (R-TOURN-15), and a seated
player's action, going away and coming back (R-TOURN-6). ``TournamentEntries`` is a part of
``TournamentRunner``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from feltroom.errors import IllegalAction
from feltroom.room.errors import RoomError, StaleHand
from feltroom.room.housebots import bot_name
from feltroom.room.runtime.clocked import TournamentTableRef
from feltroom.room.runtime.host import RoomHost
from feltroom.room.storage import TournamentRow
from feltroom.room.tournaments import TournamentBooks
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.rules import Action
from feltroom.table import TableEvent
from feltroom.tournament import Director, Disqualified, Output, TournamentSettings

__all__ = ["TournamentEntries"]

log = logging.getLogger("feltroom.room.tournaments")


class _Reloaded(Exception):
    """A write failed: the runner was rebuilt from the books; what was being done is dropped."""


class TournamentEntries:
    """The entries and players' commands of ``TournamentRunner`` (which gives the attributes
    named here)."""

    room: RoomHost
    tournament_id: str
    spec: TournamentSpec
    row: TournamentRow
    settings: TournamentSettings
    director: Director
    books: TournamentBooks
    tables: dict[int, TournamentTableRef]
    _seen_at: dict[str, TournamentTableRef]
    bot_names: set[str]
    lock: asyncio.Lock
    wake: asyncio.Event
    error: str | None
    status: str
    seq: int

    if TYPE_CHECKING:  # (TournamentRunner's)

        @property
        def done(self) -> bool: ...

        async def _input(
            self,
            kind: str,
            payload: dict[str, Any],
            now: float,
            outputs: Sequence[Output],
            *,
            reload: bool = True,
        ) -> int | None: ...

        async def _events(
            self, tab: TournamentTableRef, events: Sequence[TableEvent], now: float
        ) -> None: ...

        async def _restore(self, now: float) -> None: ...

        def fail(self, error: BaseException, now: float) -> float: ...

    async def _register_bot(self, now: float) -> None:
        taken = {e.account for e in self.director.entries if not e.unregistered}
        k = 1
        while bot_name(self.spec.tournament_id, k) in taken:
            k += 1
        account = bot_name(self.spec.tournament_id, k)
        cost = self.settings.buy_in + self.settings.fee
        await self.room.writer.call(self.room.fund_bot, account, cost)
        self.bot_names.add(account)
        try:
            await self._register(account, now)
        except RoomError as error:  # nothing changed: a bot tries again later
            log.warning(
                "tournament %s: house bot %s not entered: %s", self.tournament_id, account, error
            )

    async def _register(self, account: str, now: float) -> dict[str, Any]:
        """The entry checked and booked in ONE transaction with its journal input (the books'
        ``book_in`` checks it): entries sent at once, to this tournament or others, are checked
        one after the other. A refused or failed write changes nothing: the director is
        restored from the books and the tables play on (no hand is void)."""
        if self.done or self.error is not None:
            raise RoomError(f"tournament {self.tournament_id} is {self.director.state}")
        cfg = self.settings
        # the early refusal, before the director changes (a read)
        await self.room.writer.call(self.books.verify_entry, account, cfg.buy_in, cfg.fee)
        outputs = self.director.register(account, now)
        seq = self.seq
        try:
            await self._input("register", {"account": account}, now, outputs, reload=False)
        except Exception as error:
            if self.seq != seq:
                raise  # written: what failed came after the booking
            try:
                await self._restore(now)
            except Exception as failure:  # the books cannot be read: rebuilt later
                self.fail(failure, now)
            if isinstance(error, RoomError):
                raise  # refused in the booking transaction (another entry took the money)
            raise RoomError(f"the entry could not be booked ({error}); try again") from error
        if account not in self.bot_names:  # (a house bot's account plays as one, as on load)
            self.bot_names |= await self.room.writer.call(self.room.bot_accounts, [account])
        entry = self.director.entries[-1]
        return {
            "tournament": self.tournament_id,
            "account": account,
            "entry": entry.number,
            "state": self.director.state,
            "table": entry.table,
            "seat": entry.seat,
        }

    async def register(self, account: str, now: float) -> dict[str, Any]:
        """A player's entry (R-TOURN-2): the wallet pays buy-in and fee; refused with a
        ``RoomError`` or ``IllegalAction`` saying why, nothing changed."""
        async with self.lock:
            result = await self._register(account, now)
        self.wake.set()
        return result

    async def unregister(self, account: str, now: float) -> dict[str, Any]:
        """Before the start: buy-in and fee back (R-TOURN-2)."""
        async with self.lock:
            outputs = self.director.unregister(account, now)
            try:
                await self._input("unregister", {"account": account}, now, outputs)
            except _Reloaded as error:
                raise RoomError(f"the refund could not be booked ({error}); try again") from None
        refunded = sum(getattr(out, "buy_in", 0) + getattr(out, "fee", 0) for out in outputs)
        return {"tournament": self.tournament_id, "account": account, "refunded": refunded}

    async def disqualify(self, account: str, now: float) -> dict[str, Any] | None:
        """R-TOURN-15: the operator suspended ``account``. Its entry in play is disqualified
        (its chips leave play at the end of the hand in progress, it finishes in the current
        place without a prize); an entry registered before the start is unregistered (buy-in
        and fee back). ``None`` when the account has no entry here to take out."""
        async with self.lock:
            director = self.director
            if self.done or self.error is not None:
                return None
            live = [e for e in director.entries if e.account == account]
            entry = next((e for e in live if not e.out and not e.unregistered), None)
            if entry is None or entry.disqualified:
                return None
            try:
                if entry.table is None:
                    if director.started_at is not None:
                        return None  # a late entry not seated yet: nothing in play
                    outputs = director.unregister(account, now)
                    await self._input("unregister", {"account": account}, now, outputs)
                    return {"tournament": self.tournament_id, "account": account, "refunded": True}
                try:
                    outputs = director.disqualify(account, now)
                except IllegalAction:
                    return None  # already disqualified (at the end of the hand in progress)
                await self._input("disqualify", {"account": account}, now, outputs)
            except _Reloaded as error:
                raise RoomError(f"the disqualification could not be booked ({error})") from None
        self.wake.set()
        return {
            "tournament": self.tournament_id,
            "account": account,
            "entry": entry.number,
            "disqualified": True,
            "at_hand_end": not any(isinstance(out, Disqualified) for out in outputs),
        }

    def _seat_of(self, account: str) -> tuple[TournamentTableRef, int]:
        """The table and seat of ``account``: the table it was last found at, checked (one
        table's seats), else every table (a move, a rebuild) — a player's every action asks,
        and a thousand players sit at a hundred tables."""
        seen = self._seen_at.get(account)
        if seen is not None and self.tables.get(seen.number) is seen:
            seat = seen.table.seat_of(account)
            if seat is not None:
                return seen, seat
        for tab in self.tables.values():
            seat = tab.table.seat_of(account)
            if seat is not None:
                self._seen_at[account] = tab
                return tab, seat
        self._seen_at.pop(account, None)
        raise RoomError(f"{account} has no seat in tournament {self.tournament_id}")

    async def act(
        self,
        account: str,
        action: Action,
        now: float,
        hand_id: int | None = None,
        turn_id: int | None = None,
    ) -> None:
        """A player's action at their turn (``IllegalAction`` otherwise); ``hand_id`` and
        ``turn_id``, when given, must be the hand and turn in progress (``StaleHand``,
        ``StaleTurn``). An away player's action is refused during a cool-off or
        self-exclusion (``ProtectionRefused``)."""
        await self.check_away(account)
        async with self.lock:
            tab, seat = self._seat_of(account)
            if tab.deal is not None:  # nothing of the hand is published yet
                raise StaleHand(f"the next hand at table {tab.table_id} is being dealt")
            tab.check_hand(hand_id)
            tab.check_turn(turn_id)
            with contextlib.suppress(_Reloaded):  # rebuilt from the books: the action is void
                await self._events(tab, tab.table.act(seat, action, now), now)
        self.wake.set()

    async def check_away(self, account: str) -> None:
        """While ``account`` is away here, ``ProtectionRefused`` during its cool-off or
        self-exclusion: the entry plays on as away until the break ends (a read of the books
        only for an away player)."""
        tab, seat = self._seat_of(account)
        if tab.table.seats[seat].away:
            await self.room.writer.call(self.room.check_may_play, account, "play")

    async def back(self, account: str, now: float) -> None:
        """An away player is back (R-TOURN-6); refused (``ProtectionRefused``) during a
        cool-off or self-exclusion: its entry plays on as away."""
        await self.check_away(account)
        async with self.lock:
            tab, seat = self._seat_of(account)
            await self._events(tab, tab.table.back(seat), now)

    async def away(self, account: str, now: float) -> None:
        """A player goes away by choice (R-TOURN-6): blinds posted, folded at their turns."""
        async with self.lock:
            tab, seat = self._seat_of(account)
            await self._events(tab, tab.table.set_away(seat), now)
        self.wake.set()

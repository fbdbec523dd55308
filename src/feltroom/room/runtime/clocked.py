"""What every table the room hosts on the clock shares: a cash table's ``TableRunner`` and a
tournament's ``TournamentRunner`` (with its ``TournamentTableRef``s) are ``ClockedRunner``s.

- **House bots' turns** (``bot_turns``): while a house bot is to act and its thinking time is
  up, it acts; a person's turn, or a bot still thinking, ends the look.
- **The next deal** (``next_deal_at``): ``between_hands`` after a hand, at least
  ``after_showdown`` after one that went to a showdown (people read who won with what).
- **Driving** (``ClockedRunner.drive``, ``run_forever``): a look at everything due under the
  runner's lock, again until the runner next needs one later (a fake clock's tests), or on the
  room's clock until the room stops; a look that raises is the runner's to recover from
  (``recover``), the room goes on.
- **The lock a newcomer takes at once** (``OpenLock``): a tournament's many tables share one
  runner and its lock; see there.
- **Checks** of a command's hand and turn against the ones in progress (``check_hand``; the
  turn's is ``feltroom.room.errors.check_turn``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from feltroom.room.errors import StaleHand, check_turn
from feltroom.room.housebots import HouseBot, house_bot
from feltroom.room.runtime.host import RoomHost
from feltroom.room.runtime.settings import RuntimeSettings
from feltroom.table import HandResult, Table, TableEvent, TournamentTable

__all__ = [
    "ClockedRunner",
    "OpenLock",
    "TournamentTableRef",
    "bot_turns",
    "check_hand",
    "new_house_bot",
    "next_deal_at",
]


class OpenLock(asyncio.Lock):
    """An ``asyncio.Lock`` that whoever asks takes at once whenever it is free. ``asyncio.Lock``
    is fair: once anyone waits, every later taker queues behind, and each waiter gets the lock
    only in a loop iteration of its own. A tournament runner's lock guards all its tables, and
    its sections almost never wait for anything (a player's action, a hand's end), so at
    hundreds of actions a second a short wait (a deal's write) turned into a convoy in which
    every action waited one loop iteration for each ahead of it. Here a release wakes every
    waiter; the first to run takes the lock, and the others, if it is taken again, wait
    again."""

    def __init__(self) -> None:
        super().__init__()
        self._held = False
        self._wanted: list[asyncio.Future[None]] = []

    def locked(self) -> bool:
        return self._held

    async def acquire(self) -> Literal[True]:
        while self._held:
            future = asyncio.get_running_loop().create_future()
            self._wanted.append(future)
            try:
                await future
            finally:
                if future in self._wanted:
                    self._wanted.remove(future)
        self._held = True
        return True

    def release(self) -> None:
        if not self._held:
            raise RuntimeError("the lock is not held")
        self._held = False
        wanted, self._wanted = self._wanted, []
        for future in wanted:
            if not future.done():
                future.set_result(None)


def check_hand(table_id: str, playing: int | None, hand_id: int | None) -> None:
    """Refuse a command that names a hand (``hand_id``) other than the one in progress."""
    if hand_id is not None and hand_id != playing:
        shown = "none" if playing is None else playing
        raise StaleHand(f"hand {hand_id} is not the hand in progress at table {table_id} ({shown})")


def new_house_bot(room: RoomHost, account: str) -> HouseBot:
    """A house bot of the room's style and thinking time, seeded by the room's chance."""
    settings = room.settings
    seed = room.randomness.bot_seed(account)
    return house_bot(account, settings.bot_style, settings.bot_think, seed)


def next_deal_at(settings: RuntimeSettings, result: HandResult, now: float) -> float:
    """When the hand after ``result`` (finished at ``now``) is dealt."""
    pause = settings.between_hands
    if result.hand.showdown_seats:
        pause = max(pause, settings.after_showdown)
    return now + pause


Handle = Callable[[Sequence[TableEvent], float], Awaitable[None]]


async def bot_turns(
    table: Table,
    bot_for: Callable[[str], HouseBot | None],
    handle: Handle,
    now: float,
    still: Callable[[], bool] = lambda: True,
) -> float:
    """Let the house bots act at ``table`` while one is to act and its thinking time is up
    (``bot_for(account)``: the account's bot, ``None`` for a person); each action's events go to
    ``handle``. ``still()`` false (the table was closed meanwhile) ends the turns. Returns when
    the bot to act is due (infinity: nobody is waited for)."""
    wake = float("inf")
    while table.in_hand and still():
        hand = table.hand
        assert hand is not None
        seat = hand.to_act
        if seat is None:
            break
        bot = bot_for(table.seats[seat].account)
        if bot is None:
            break  # a person: the clock (tick) or their action moves the hand on
        if bot.act_at is None:
            bot.act_at = now + bot.delay()
        if bot.act_at > now:
            wake = min(wake, bot.act_at)
            break
        bot.act_at = None
        await handle(table.act(seat, bot.choose(hand, seat), now), now)
    return wake


class ClockedRunner:
    """A runner of the room's clock: ``step(now)`` does everything due and says when it next
    needs a look; ``recover(error, now)`` after a look that raised says when to look again."""

    room: RoomHost
    lock: asyncio.Lock
    wake: asyncio.Event

    async def step(self, now: float) -> float:
        raise NotImplementedError

    async def recover(self, error: Exception, now: float) -> float:
        raise NotImplementedError

    def on_clock(self) -> bool:
        """Whether the runner still runs (not retired, not finished)."""
        return True

    def latest_look(self, now: float) -> float:
        """The latest the runner looks again, whatever ``step`` said."""
        return float("inf")

    async def drive(self, now: float, max_steps: int = 10_000) -> None:
        """Everything due at ``now`` (tests with a fake clock): steps until the runner next needs
        a look later than ``now``. An exception pauses this runner only."""
        for _ in range(max_steps):
            try:
                async with self.lock:
                    wake = await self.step(now)
            except Exception as error:
                await self.recover(error, now)
                break
            if wake > now:
                if await self.settled():
                    continue  # something waited on is done: look again
                break

    async def settled(self) -> bool:
        """Wait for the runner's writes queued so far (``drive``: a test reads the books right
        after); whether a look is due for what they finished. Nothing to wait for unless the
        runner queues writes."""
        return False

    async def run_forever(self) -> None:
        """Drive the runner on the room's clock until the room stops (or the runner ends)."""
        room = self.room
        while not room.stopping and self.on_clock():
            # Cleared before the look, not after: a wake-up that comes while the runner looks
            # (a settlement or a command finishing meanwhile) is kept, and the next wait ends
            # at once, instead of the runner sleeping until its next look.
            self.wake.clear()
            now = room.clock()
            try:
                async with self.lock:
                    wake = await self.step(now)
            except Exception as error:
                wake = await self.recover(error, now)
            delay = min(wake, self.latest_look(now)) - room.clock()
            if delay <= 0:
                await asyncio.sleep(0)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), delay)


@dataclass(slots=True)
class TournamentTableRef:
    """One table of a running tournament, as the room's listeners see it (like a cash table's
    ``TableRunner``: ``table_id``, ``table``, ``playing``, ``last_hand_id``, ``check_turn``)."""

    number: int
    table_id: str
    table: TournamentTable
    hand_id: int | None = None
    last_hand_id: int | None = None
    next_deal: float = 0.0
    level: int = 1
    """The number of the level of the hand in progress (or the last one)."""
    deal: asyncio.Future[int | None] | None = None
    """The write of the hand just dealt here, while nothing of the hand is published yet."""
    deal_events: list[TableEvent] = field(default_factory=list)
    held_events: list[TableEvent] = field(default_factory=list)
    """The table's events (a player seated, away, back) while its deal is written: published
    after the deal's."""
    held_moves: list[Any] = field(default_factory=list)
    """The moves to this table while its deal is written (``PlayerMoved``)."""

    @property
    def playing(self) -> int | None:
        """The stored id of the hand in progress, or ``None``."""
        return self.hand_id

    def check_turn(self, turn_id: int | None) -> None:
        """Refuse an action that names a turn other than the one in progress."""
        check_turn(self.table_id, self.table.turn_id, turn_id)

    def check_hand(self, hand_id: int | None) -> None:
        """Refuse an action that names a hand other than the one in progress."""
        check_hand(self.table_id, self.hand_id, hand_id)

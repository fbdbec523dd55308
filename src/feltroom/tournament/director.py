"""The tournament director: one tournament across its tables, sans-I/O.

Time comes in (``now``, seconds), decisions come out (``feltroom.tournament.outputs``). The
director keeps its own model of every table (who sits where, whether a hand is in progress,
where the last big blind was) from what the tables report, and never touches a table:

- ``register`` / ``unregister`` / ``start``: entries, the seat draw (R-TOURN-1..4); a sit-and-go
  starts the moment it is full, a scheduled tournament at ``start`` with at least
  ``min_players`` (else it is cancelled and every entry refunded).
- ``tick(now)``: the tournament clock (levels, R-TOURN-5; paused during breaks, R-TOURN-12), the
  close of late registration (R-TOURN-3) and the breaks. ``wake_at()`` says when to call it next.
- ``hand_started`` / ``hand_finished``: what a table reports. After each hand: eliminations
  and places (R-TOURN-10), payouts when a place is final (R-TOURN-11), hand-for-hand
  (R-TOURN-9), breaking tables (R-TOURN-8) and balancing (R-TOURN-7).
- ``cancel``: the operator's cancellation (R-TOURN-13).
- ``resume``: after the room stopped, the level clock resumes where it stood (R-TOURN-13).

docs/tournaments.md describes each decision in full.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from feltroom.errors import IllegalAction
from feltroom.table.tournament import Level
from feltroom.tournament.outputs import (
    BreakEnded,
    BreakStarted,
    CancellationPaid,
    Cancelled,
    CloseTable,
    Disqualified,
    Eliminated,
    Finished,
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
    Refunded,
    Registered,
    RegistrationClosed,
    ReleaseTable,
    RemovePlayer,
    SeatPlayer,
    SetLevel,
    Started,
)
from feltroom.tournament.payouts import (
    cancellation_shares,
    payout_table,
    prize_pool,
    split_equally,
)
from feltroom.tournament.seating import (
    draw_seats,
    next_big_blind,
    open_seats,
    shortest,
    worst_open_seat,
)
from feltroom.tournament.settings import TournamentSettings

__all__ = ["STATES", "Director", "EntryState", "TableState"]

STATES = (
    "registering",
    "late_registration",
    "running",
    "on_break",
    "hand_for_hand",
    "finished",
    "cancelled",
)
"""The lobby's states of a tournament (R-TOURN-14)."""


@dataclass(slots=True)
class EntryState:
    """One entry (a re-entry is a new entry, R-TOURN-10); ``number`` is the registration order."""

    number: int
    account: str
    stack: int = 0
    table: int | None = None
    seat: int | None = None
    out: bool = False
    unregistered: bool = False
    place: int | None = None
    shared: int = 1
    prize: int = 0
    disqualified: bool = False
    """R-TOURN-15: the operator suspended the account; it finishes without a prize."""
    late: bool = False
    """Registered after the start (late registration or a re-entry, R-TOURN-3)."""
    played: bool = False
    """Dealt into a hand that ended (R-TOURN-13: a late entry that never played is refunded)."""


@dataclass(slots=True)
class TableState:
    """The director's model of one table."""

    number: int
    seats: dict[int, int] = field(default_factory=dict)
    """seat -> entry"""
    in_hand: bool = False
    last_big: int | None = None
    holds: set[str] = field(default_factory=set)
    held: bool = False
    """What the table was last told (``HoldTable``/``ReleaseTable``)."""
    breaking: bool = False


class Director:
    """One tournament. See the module docstring."""

    def __init__(
        self,
        settings: TournamentSettings,
        *,
        rng: random.Random | None = None,
        start_at: float | None = None,
    ) -> None:
        self.settings = settings
        self.schedule = settings.blind_schedule
        self._level_seconds = 60 * self.schedule.level_minutes
        self._breaks = settings.break_policy
        self.rng: random.Random = rng if rng is not None else random.SystemRandom()
        self.start_at = start_at
        self.state = "registering"
        self.entries: list[EntryState] = []
        self._live: dict[str, int] = {}
        """account -> its entry still in play (or registered)"""
        self.tables: dict[int, TableState] = {}
        self.started_at: float | None = None
        self._paused = 0.0
        self._paused_since: float | None = None
        self._next_break: float | None = None
        self._break_ends: float | None = None
        self.level_number = 0
        self.registration_open = True
        self.prizes: tuple[int, ...] = ()
        self.pool = 0
        self.overlay = 0
        self._pending: list[list[tuple[int, int]]] = []
        """Knock-out groups waiting for the close of late registration (R-TOURN-10)."""
        self._knocked_out = 0
        self.hand_for_hand = False
        self._round_open = False
        """Hand-for-hand: the round's hands are being dealt (else tables wait at its start)."""
        self._round: set[int] = set()
        """Tables that dealt their hand of the open round."""
        self.hand_for_hand_round = 0
        """Hand-for-hand rounds opened so far (R-TOURN-9): each entry plays one hand a round."""
        self._round_out: list[tuple[int, int]] = []
        self.moves = 0
        self.tables_broken = 0
        self.tables_max = 0
        self.paid_out = 0
        self._out: list[Output] = []
        self._alive = 0
        self._entries_in = 0
        self._holds_changed: set[int] = set()
        self._balance_due = False
        self._pending_most: int | None = None
        self._layout = 0
        """Bumped whenever a table opens or closes."""
        self._marked: tuple[tuple[int, int], list[int]] = ((0, -1), [])
        """(tables needed, layout) -> the tables marked to break for them"""
        self._disqualify: set[int] = set()
        """Entries to disqualify when the hand in progress at their table ends (R-TOURN-15)."""
        self.disqualified_chips = 0
        """Tournament chips that left play with disqualified entries (R-TOURN-15)."""
        """While the fullest tables are in their hands: their size (they balance after it)."""

    # ------------------------------------------------------------------ queries

    @property
    def level(self) -> Level:
        return self.schedule.level(max(1, self.level_number))

    @property
    def remaining(self) -> int:
        """Entries still in play."""
        return self._alive

    @property
    def entry_count(self) -> int:
        """Entries (re-entries count, unregistered ones do not)."""
        return self._entries_in

    @property
    def paid_places(self) -> int:
        return len(self.prizes)

    @property
    def finished(self) -> bool:
        return self.state in ("finished", "cancelled")

    def clock(self, now: float) -> float:
        """The tournament clock: seconds since the start, breaks left out (R-TOURN-12)."""
        if self.started_at is None:
            return 0.0
        paused = self._paused
        if self._paused_since is not None:
            paused += now - self._paused_since
        return now - self.started_at - paused

    def next_level_in(self, now: float) -> float | None:
        """Seconds of the tournament clock until the next level (frozen during a break), or
        ``None`` before the start and after the end."""
        if self.started_at is None or self.finished:
            return None
        return max(0.0, self.level_number * self._level_seconds - self.clock(now))

    @property
    def break_ends(self) -> float | None:
        """When the break in progress ends, or ``None`` outside a break."""
        return self._break_ends

    def wake_at(self) -> float | None:
        """When ``tick`` has something to do next (``None``: only reports will change
        anything)."""
        if self.finished:
            return None
        if self.started_at is None:
            return self.start_at if self.settings.format == "mtt" else None
        times = []
        if self._break_ends is not None:
            times.append(self._break_ends)
        else:
            base = self.started_at + self._paused
            times.append(base + self.level_number * self._level_seconds)
            if self.registration_open:
                times.append(base + self.settings.late_registration_levels * self._level_seconds)
            if self._next_break is not None:
                times.append(self._next_break)
        return min(times)

    @property
    def moves_wait(self) -> bool:
        """Hand-for-hand, during a round or while the tables finish the hands before the first:
        nobody moves (breaking and balancing wait for the round's end, R-TOURN-9)."""
        if not self.hand_for_hand:
            return False
        return not self._round_open or bool(self._round)

    @property
    def round_open(self) -> bool:
        """Hand-for-hand: the round's hands are being dealt (``False`` while every table waits
        for the hands in progress before it)."""
        return self.hand_for_hand and self._round_open

    @property
    def _closes_at(self) -> float:
        """The tournament clock's time when late registration closes (R-TOURN-3)."""
        return float(self.settings.late_registration_levels * self._level_seconds)

    def stacks(self) -> dict[int, int]:
        """Entry -> chips for every entry in play (at the start of any hand in progress)."""
        return {e.number: e.stack for e in self.entries if e.table is not None and not e.out}

    # ------------------------------------------------------------------ registration

    def register(self, account: str, now: float) -> list[Output]:
        """A new entry (R-TOURN-2), before the start or during late registration (then seated at
        once, R-TOURN-3); a re-entry once the account's last entry is out."""
        cfg = self.settings
        if self.finished:
            raise IllegalAction(f"the tournament is {self.state}: registration is closed")
        if not self.registration_open or (
            self.started_at is not None and self.clock(now) >= self._closes_at
        ):
            raise IllegalAction("registration is closed (late registration is over)")
        live = self._live.get(account)
        if live is not None:
            raise IllegalAction(f"{account} already has entry {live} in this tournament")
        if cfg.max_entries is not None and self.entry_count >= cfg.max_entries:
            raise IllegalAction(f"the tournament is full ({cfg.max_entries} entries)")
        previous = [e for e in self.entries if e.account == account and not e.unregistered]
        if previous and len(previous) > cfg.re_entries:
            raise IllegalAction(f"{account} has used every re-entry ({cfg.re_entries}; R-TOURN-3)")
        entry = EntryState(len(self.entries) + 1, account)
        self.entries.append(entry)
        self._entries_in += 1
        self._live[account] = entry.number
        late = entry.late = self.started_at is not None
        out: list[Output] = [Registered(entry.number, account, cfg.buy_in, cfg.fee, late)]
        if late:
            entry.stack = cfg.starting_stack
            out += self._seat_late(entry, now)
        elif cfg.format == "sng" and self.entry_count == cfg.max_entries:
            out += self.start(now)
        return out

    def unregister(self, account: str, now: float) -> list[Output]:
        """Before the start only: buy-in and fee back (R-TOURN-2)."""
        if self.started_at is not None or self.finished:
            raise IllegalAction("unregistering is possible only before the start")
        number = self._live.get(account)
        if number is None:
            raise IllegalAction(f"{account} is not registered")
        entry = self.entries[number - 1]
        entry.unregistered = True
        self._entries_in -= 1
        del self._live[account]
        return [Refunded(number, account, self.settings.buy_in, self.settings.fee)]

    def start(self, now: float) -> list[Output]:
        """Start: the seat draw (R-TOURN-4), or the cancellation of a scheduled tournament with
        fewer than ``min_players`` (R-TOURN-1)."""
        cfg = self.settings
        if self.started_at is not None or self.finished:
            raise IllegalAction(f"the tournament has already {self.state}")
        players = [e for e in self.entries if not e.unregistered]
        if len(players) < cfg.min_players:
            return self._cancel_before_start("too few players")
        self.started_at = now
        self.state = "running"
        self.level_number = 1
        if self._breaks is not None:
            self._next_break = self._breaks.next_start(now)
        layout = draw_seats([e.number for e in players], cfg.seats_per_table, self.rng)
        out: list[Output] = [Started(len(players), len(layout)), LevelStarted(1, self.level)]
        for number, seats in layout.items():
            self.tables[number] = TableState(number)
            self._layout += 1
            out.append(OpenTable(number, self.level))
            for seat, entry_number in sorted(seats.items()):
                entry = self.entries[entry_number - 1]
                entry.stack = cfg.starting_stack
                self._alive += 1
                self._put(entry, number, seat)
                out.append(SeatPlayer(number, seat, entry.number, entry.account, entry.stack))
        self.tables_max = len(self.tables)
        if cfg.late_registration_levels == 0:
            out += self._close_registration()
        else:
            self.state = "late_registration"
        self._out = out
        self._after_change(now)
        return self._flush()

    def _cancel_before_start(self, reason: str) -> list[Output]:
        out: list[Output] = []
        for entry in self.entries:
            if not entry.unregistered:
                out.append(
                    Refunded(entry.number, entry.account, self.settings.buy_in, self.settings.fee)
                )
        self.state = "cancelled"
        self.registration_open = False
        out.append(Cancelled(reason, {}))
        return out

    def _seat_late(self, entry: EntryState, now: float) -> list[Output]:
        """R-TOURN-3: a random open seat at the shortest table not breaking; a table marked to
        break whose players no longer fit elsewhere plays on (R-TOURN-8); a new table when no
        seat is free, held like the others during a break (R-TOURN-12)."""
        cfg = self.settings
        self._out = []
        self._alive += 1
        if not self.hand_for_hand:
            self._mark_breaking()
        free = {
            t: len(m.seats)
            for t, m in self.tables.items()
            if not m.breaking and len(m.seats) < cfg.seats_per_table
        }
        if free:
            number = shortest(free)
        else:
            number = max(self.tables, default=0) + 1
            self.tables[number] = TableState(number)
            self._layout += 1
            self.tables_max = max(self.tables_max, len(self.tables))
            self._out.append(OpenTable(number, self.level))
            if self._break_ends is not None:
                self._hold(self.tables[number], "break")
        table = self.tables[number]
        seat = self.rng.choice(open_seats(table.seats, cfg.seats_per_table))
        self._put(entry, number, seat)
        self._out.append(SeatPlayer(number, seat, entry.number, entry.account, entry.stack))
        self._after_change(now)
        return self._flush()

    def _close_registration(self) -> list[Output]:
        """The entries are final: the prize pool and the payouts (R-TOURN-2, R-TOURN-11); the
        entries already out are ranked in the order they went out (R-TOURN-10)."""
        cfg = self.settings
        self.registration_open = False
        n = self.entry_count
        self.pool, self.overlay = prize_pool(n, cfg.buy_in, cfg.guarantee)
        self.prizes = payout_table(n, self.pool, cfg.buy_in, cfg.payouts)
        out: list[Output] = [RegistrationClosed(n, self.pool, self.overlay, self.prizes)]
        if self.state == "late_registration":
            self.state = "running"
        pending, self._pending = self._pending, []
        for group in pending:
            out += self._rank(group)
        return out

    # ------------------------------------------------------------------ the clock

    def tick(self, now: float) -> list[Output]:
        """Levels, the close of late registration and breaks due by ``now``."""
        if self.finished:
            return []
        if self.started_at is None:
            if self.settings.format == "mtt" and self.start_at is not None and now >= self.start_at:
                return self.start(now)
            return []
        self._out = []
        if self._break_ends is not None and now >= self._break_ends:
            assert self._paused_since is not None
            self._paused += self._break_ends - self._paused_since
            self._paused_since = None
            self._break_ends = None
            assert self._breaks is not None
            self._next_break = self._breaks.next_start(now)
            self.state = "hand_for_hand" if self.hand_for_hand else "running"
            if self.registration_open:
                self.state = "late_registration"
            for table in self.tables.values():
                self._unhold(table, "break")
            self._out.append(BreakEnded())
        if self._break_ends is None:
            clock = self.clock(now)
            due = int(clock // self._level_seconds) + 1
            if due > self.level_number:
                self.level_number = due
                level = self.level
                self._out.append(LevelStarted(due, level))
                self._out += [SetLevel(t, level) for t in sorted(self.tables)]
            if self.registration_open and clock >= self._closes_at:
                self._out += self._close_registration()
            if self._next_break is not None and now >= self._next_break:
                assert self._breaks is not None
                start = self._next_break
                self._paused_since = start
                self._break_ends = start + 60 * self._breaks.minutes
                self._next_break = None
                self.state = "on_break"
                for table in self.tables.values():
                    self._hold(table, "break")
                self._out.append(BreakStarted(self._break_ends))
        if self._out:
            self._after_change(now)
        return self._flush()

    def resume(self, stopped_at: float, now: float) -> list[Output]:
        """The room stopped at ``stopped_at`` and runs again at ``now`` (R-TOURN-13): the time
        between does not count, so the level clock (or a break) resumes where it stood; a break
        by the wall clock still comes at its time."""
        gap = now - stopped_at
        if self.started_at is None or self.finished or gap <= 0:
            return []
        if self._paused_since is None:
            self._paused += gap
        elif self._break_ends is not None:
            self._break_ends += gap
        return []

    # ------------------------------------------------------------------ what tables report

    def hand_started(self, table: int, button: int, big: int, now: float) -> list[Output]:
        """Table ``table`` dealt a hand with the big blind in seat ``big``."""
        model = self._table(table)
        model.in_hand = True
        model.last_big = big
        if self.hand_for_hand and self._round_open:
            self._round.add(table)  # this table's hand of the round (R-TOURN-9)
        return []

    def hand_finished(
        self,
        table: int,
        before: Mapping[int, int],
        after: Mapping[int, int],
        now: float,
    ) -> list[Output]:
        """Table ``table`` finished its hand: ``before``/``after`` are the stacks of the seats
        dealt in (seat -> chips) at its start and end."""
        model = self._table(table)
        if not model.in_hand:
            raise IllegalAction(f"table {table} reported the end of a hand it did not start")
        model.in_hand = False
        self._out = []
        busted: list[tuple[int, int]] = []
        for seat, chips in after.items():
            number = model.seats.get(seat)
            if number is None:
                raise IllegalAction(f"table {table} seat {seat} has no entry of this tournament")
            entry = self.entries[number - 1]
            entry.stack = chips
            entry.played = True
            if chips == 0:
                busted.append((number, before[seat]))
                entry.out = True
                self._alive -= 1
                self._balance_due = True
                del model.seats[seat]
                del self._live[entry.account]
                self._out.append(RemovePlayer(table, seat, number, entry.account))
                self._out.append(Eliminated(number, entry.account, table, before[seat]))
        for number in sorted(self._disqualify):
            entry = self.entries[number - 1]
            if entry.table != table:
                continue
            self._disqualify.discard(number)
            entry.disqualified = True
            if not entry.out:
                busted.append(self._take_out(entry, model))
        if self.hand_for_hand:
            self._hold(model, "hand_for_hand")  # it waits for the round (R-TOURN-9)
        if self.hand_for_hand and table in self._round:
            self._round_out += busted
        elif busted:
            self._out += self._knock_out(busted)
        self._after_change(now, model)
        return self._flush()

    # ------------------------------------------------------------------ disqualification

    def disqualify(self, account: str, now: float) -> list[Output]:
        """R-TOURN-15: the operator suspended ``account``. Its entry in play is disqualified:
        its chips leave play at the end of the hand in progress at its table (at once between
        hands) and it finishes in the current place without a prize (the prize of that place is
        shared equally by the better places, any remainder to first place). ``IllegalAction``
        when the account has no entry seated in play (an entry registered before the start is
        unregistered instead, ``unregister``)."""
        if self.finished:
            raise IllegalAction(f"the tournament has already {self.state}")
        number = self._live.get(account)
        entry = None if number is None else self.entries[number - 1]
        if entry is None or entry.table is None or entry.out:
            raise IllegalAction(
                f"{account} has no entry in play in this tournament: only an entry seated at a "
                "tournament table can be disqualified"
            )
        if entry.disqualified or entry.number in self._disqualify:
            raise IllegalAction(f"{account}'s entry {entry.number} is already disqualified")
        model = self._table(entry.table)
        self._out = []
        if model.in_hand:
            self._disqualify.add(entry.number)
            return []
        entry.disqualified = True
        group = [self._take_out(entry, model)]
        if self.hand_for_hand and self._round_open:
            self._round_out += group
        else:
            self._out += self._knock_out(group)
        self._after_change(now)
        return self._flush()

    def _take_out(self, entry: EntryState, model: TableState) -> tuple[int, int]:
        """A disqualified entry's chips leave play and it leaves its table; returns its
        knock-out pair (it ranks below everyone out with it, ``_rank``)."""
        assert entry.seat is not None
        chips = entry.stack
        self.disqualified_chips += chips
        entry.stack = 0
        entry.out = True
        self._alive -= 1
        self._balance_due = True
        del model.seats[entry.seat]
        del self._live[entry.account]
        self._out.append(RemovePlayer(model.number, entry.seat, entry.number, entry.account))
        self._out.append(Disqualified(entry.number, entry.account, model.number, chips))
        return entry.number, -1

    def _forfeit(self, place: int, taker: EntryState) -> list[Output]:
        """The prize of ``place``, which the disqualified ``taker`` took, goes equally to the better
        places (still to be decided), any remainder to first place. First place itself (every
        entry left in play disqualified) has no better place: its prize goes to the best-placed
        entry not disqualified (``ForfeitPaid``; every entry disqualified, to first place's)."""
        amount = self._prize(place)
        better = min(place - 1, len(self.prizes))
        if not amount:
            return []
        if not better:
            fair = [e for e in self.entries if e.place is not None and not e.disqualified]
            entry = min(fair, key=lambda e: (e.place or 0, e.number)) if fair else taker
            entry.prize += amount
            self.paid_out += amount
            return [ForfeitPaid(entry.number, entry.account, amount)]
        share, remainder = divmod(amount, better)
        prizes = list(self.prizes)
        prizes[place - 1] = 0
        for index in range(better):
            prizes[index] += share
        prizes[0] += remainder
        self.prizes = tuple(prizes)
        return []

    # ------------------------------------------------------------------ places and prizes

    def _knock_out(self, group: list[tuple[int, int]]) -> list[Output]:
        if self.registration_open:
            self._pending.append(group)
            return []
        return self._rank(group)

    def _prize(self, place: int) -> int:
        return self.prizes[place - 1] if place <= len(self.prizes) else 0

    def _rank(self, group: list[tuple[int, int]]) -> list[Output]:
        """R-TOURN-10: the group went out together; more chips at the start of the hand finish
        higher; equal stacks share the places and split their prizes."""
        out: list[Output] = []
        worst = self.entry_count - self._knocked_out
        # disqualified entries finish below the others of their group (R-TOURN-15), each in
        # its own place, without a prize (the later one lower)
        disqualified = [n for n, _ in group if self.entries[n - 1].disqualified]
        for number in sorted(disqualified, reverse=True):
            entry = self.entries[number - 1]
            entry.place, entry.shared, entry.prize = worst, 1, 0
            out.append(PlaceFinal(number, entry.account, worst, 1, 0))
            out += self._forfeit(worst, entry)
            worst -= 1
        by_stack: dict[int, list[int]] = {}
        for number, stack in group:
            if not self.entries[number - 1].disqualified:
                by_stack.setdefault(stack, []).append(number)
        for stack in sorted(by_stack):  # the smallest stack finishes lowest
            tied = by_stack[stack]
            best = worst - len(tied) + 1
            total = sum(self._prize(p) for p in range(best, worst + 1))
            shares = split_equally(total, tied)
            for number in sorted(tied):
                entry = self.entries[number - 1]
                entry.place, entry.shared, entry.prize = best, len(tied), shares[number]
                self.paid_out += entry.prize
                out.append(PlaceFinal(number, entry.account, best, len(tied), entry.prize))
            worst = best - 1
        self._knocked_out += len(group)
        return out

    def _finish_if_won(self) -> None:
        """One entry left wins; when the last entries left together (a disqualification in a
        heads-up hand), every place is given and the tournament is finished as well."""
        if (
            self._alive > 1
            or self.started_at is None
            or self.registration_open
            or self.finished
            or self._round_out
        ):
            return
        alive = [e for e in self.entries if e.table is not None and not e.out]
        if len(alive) == 1:
            winner = alive[0]
            winner.place, winner.prize = 1, self._prize(1)
            self.paid_out += winner.prize
            self._knocked_out += 1
            self._out.append(PlaceFinal(winner.number, winner.account, 1, 1, winner.prize))
        else:
            placed = [e for e in self.entries if e.place is not None]
            if not placed:
                return
            winner = min(placed, key=lambda e: (e.place or 0, e.number))
        self._out.append(Finished(winner.number, winner.account))
        self.state = "finished"
        for number, table in sorted(self.tables.items()):
            self._hold(table, "finished")
            if not table.seats:
                self._out.append(CloseTable(number))

    # ------------------------------------------------------------------ after every change

    def _after_change(self, now: float, finished: TableState | None = None) -> None:
        """Hand-for-hand, breaking tables, balancing and the holds that follow from them
        (``finished``: the table whose hand just ended). During a hand-for-hand round nobody
        moves: tables break and balance between rounds (R-TOURN-9)."""
        if self.state == "cancelled":
            return
        self._finish_if_won()
        if not self.finished:
            if self._hand_for_hand():
                self._break_tables()
                if self._balance_due or (
                    finished is not None
                    and self._pending_most is not None
                    and len(finished.seats) >= self._pending_most
                ):
                    self._balance()
                if self.hand_for_hand and len(self.tables) < 2:
                    self._end_hand_for_hand()
            self._finish_if_won()
        self._sync_holds()

    def _hand_for_hand(self) -> bool:
        """R-TOURN-9: from the moment one more elimination would put everyone left in the
        money, every table finishes the hand in progress and waits; then every table plays one
        hand and waits for the others; the round's eliminations count as simultaneous. Returns
        whether players may move now (not during a round, nor while tables finish the hands in
        progress before the first)."""
        if not self.hand_for_hand:
            if (
                self.registration_open
                or len(self.tables) < 2
                or self.remaining != self.paid_places + 1
            ):
                return True
            self.hand_for_hand = True
            self._round_open = False
            self._round = set()
            self._round_out = []
            self.state = "hand_for_hand" if self._break_ends is None else self.state
            self._out.append(HandForHandStarted(self.remaining))
            for table in self.tables.values():
                self._hold(table, "hand_for_hand")
        if not self._round_open and self.remaining <= self.paid_places:
            self._end_hand_for_hand()  # the bubble burst before the first round
            return True
        if any(t.in_hand for t in self.tables.values()):
            return False
        if self._round_open and not self._round:
            return True  # nobody has dealt in this round yet: moving deals nobody twice
        if self._round_open:
            waiting = [
                t
                for t in self.tables.values()
                if t.number not in self._round
                and len(t.seats) >= 2
                and t.holds <= {"hand_for_hand", "break"}
            ]
            if waiting:
                return False
            out, self._round_out = self._round_out, []
            if out:
                self._out += self._rank(out)
            self._round_open = False
            self._round = set()
        if self.remaining <= self.paid_places or len(self.tables) < 2:
            self._end_hand_for_hand()
            return True
        self._round_open = True  # the next round: every table deals (after the moves)
        self.hand_for_hand_round += 1
        for table in self.tables.values():
            self._unhold(table, "hand_for_hand")
        return True

    def _end_hand_for_hand(self) -> None:
        out, self._round_out = self._round_out, []  # a disqualification before any deal
        if out:
            self._out += self._rank(out)
        self.hand_for_hand = False
        self._round_open = False
        self._round = set()
        if self._break_ends is None:
            self.state = "running"
        for table in self.tables.values():
            self._unhold(table, "hand_for_hand")
        self._out.append(HandForHandEnded(self.remaining))

    def _tables_needed(self) -> int:
        """The tables the players left need (R-TOURN-8)."""
        return max(1, -(-self.remaining // self.settings.seats_per_table))

    def _mark_breaking(self) -> list[TableState]:
        """R-TOURN-8: the tables the field no longer needs, the highest-numbered, are marked
        to break (held); a marked table the field needs again plays on. Returns the marked
        tables, lowest first; when everyone fits at one table, every table but the lowest."""
        needed = self._tables_needed()
        key, marked = self._marked
        if key == (needed, self._layout):  # nothing that decides it changed
            return [self.tables[n] for n in marked]
        numbers = sorted(self.tables)
        doomed = set(numbers[needed:])
        self._marked = ((needed, self._layout), sorted(doomed))
        final = len(numbers) > 1 and needed == 1
        for number in numbers:
            table = self.tables[number]
            table.breaking = number in doomed
            if table.breaking and not final:
                self._hold(table, "breaking")
            else:
                self._unhold(table, "breaking")
            if final:
                self._hold(table, "final_table")
            else:
                self._unhold(table, "final_table")
        return [self.tables[n] for n in sorted(doomed)]

    def _break_tables(self) -> None:
        """R-TOURN-8: as soon as the players left fit in k tables fewer, the k highest-numbered
        tables break, each after its own hand: its players, one by one in a random order, each
        take a random open seat at the then shortest table not breaking. When everyone fits at
        one table, the final table is drawn anew once every table's hand has ended."""
        seats = self.settings.seats_per_table
        doomed = self._mark_breaking()
        if not doomed:
            return
        if self._tables_needed() == 1:
            if not any(t.in_hand for t in self.tables.values()):
                self._final_table(self.tables[min(self.tables)], doomed)
            return
        for victim in doomed:
            if victim.in_hand:
                continue
            players = list(victim.seats.items())
            self.rng.shuffle(players)
            for seat, number in players:
                counts = {
                    t: len(m.seats)
                    for t, m in self.tables.items()
                    if not m.breaking and len(m.seats) < seats
                }
                target = self.tables[shortest(counts)]
                to_seat = self.rng.choice(open_seats(target.seats, seats))
                self._move(number, victim, seat, target, to_seat, "break")
            self._close(victim)

    def _final_table(self, survivor: TableState, victims: list[TableState]) -> None:
        players = [(v, s, n) for v in victims for s, n in v.seats.items()]
        players += [(survivor, s, n) for s, n in survivor.seats.items()]
        players.sort(key=lambda p: p[2])
        new_seats = self.rng.sample(range(1, self.settings.seats_per_table + 1), len(players))
        moves = []
        for (table, seat, number), to_seat in zip(players, new_seats, strict=True):
            entry = self.entries[number - 1]
            moves.append(
                MovePlayer(
                    number, entry.account, table.number, seat, survivor.number, to_seat, "final"
                )
            )
        for victim in victims:
            victim.seats.clear()
        survivor.seats.clear()
        for move in moves:
            self._put(self.entries[move.entry - 1], survivor.number, move.to_seat)
        survivor.last_big = None
        survivor.breaking = False
        self._unhold(survivor, "final_table")
        self._out.append(RedrawTable(survivor.number, tuple(moves)))
        for victim in victims:
            self._close(victim)

    def _close(self, table: TableState) -> None:
        assert not table.seats
        del self.tables[table.number]
        self._layout += 1
        self._balance_due = True
        self.tables_broken += 1
        self._round.discard(table.number)
        self._out.append(CloseTable(table.number))

    def _balance(self) -> None:
        """R-TOURN-7: between hands of the fullest table, while it has more than ``balance_gap``
        players more than the shortest, its next big blind moves to the short table's open seat
        that reaches the big blind soonest. A table ``halt_gap`` short does not deal until it is
        balanced."""
        cfg = self.settings
        self._balance_due = False
        self._pending_most = None
        active = {t: m for t, m in self.tables.items() if not m.breaking}
        if len(active) < 2:
            for table in active.values():
                self._unhold(table, "halt")
            return
        while True:
            counts = {t: len(m.seats) for t, m in active.items()}
            most = max(counts.values())
            target_number = shortest(counts)
            if most - counts[target_number] <= cfg.balance_gap:
                break
            sources = sorted(t for t, n in counts.items() if n == most and not active[t].in_hand)
            if not sources:
                self._pending_most = most  # the fullest tables give players up after their hands
                break
            source = active[sources[0]]
            target = active[target_number]
            seat = next_big_blind(source.seats, source.last_big, cfg.seats_per_table)
            to_seat = worst_open_seat(target.seats, target.last_big, cfg.seats_per_table, self.rng)
            self._move(source.seats[seat], source, seat, target, to_seat, "balance")
        counts = {t: len(m.seats) for t, m in active.items()}
        most = max(counts.values())
        for number, table in active.items():
            short = most - counts[number]
            if short >= cfg.halt_gap:
                self._hold(table, "halt")
            elif short <= cfg.balance_gap:
                self._unhold(table, "halt")

    def _move(
        self,
        number: int,
        source: TableState,
        seat: int,
        target: TableState,
        to_seat: int,
        reason: str,
    ) -> None:
        entry = self.entries[number - 1]
        del source.seats[seat]
        self._put(entry, target.number, to_seat)
        self.moves += 1
        self._out.append(
            MovePlayer(number, entry.account, source.number, seat, target.number, to_seat, reason)
        )

    def _hold(self, table: TableState, reason: str) -> None:
        table.holds.add(reason)
        self._holds_changed.add(table.number)

    def _unhold(self, table: TableState, reason: str) -> None:
        if reason in table.holds:
            table.holds.discard(reason)
            self._holds_changed.add(table.number)

    def _sync_holds(self) -> None:
        changed, self._holds_changed = self._holds_changed, set()
        for number in sorted(changed):
            table = self.tables.get(number)
            if table is None:
                continue
            held = bool(table.holds)
            if held and not table.held:
                self._out.append(HoldTable(number, ",".join(sorted(table.holds))))
            elif table.held and not held:
                self._out.append(ReleaseTable(number))
            table.held = held

    # ------------------------------------------------------------------ cancellation

    def cancel(self, now: float, reason: str = "cancelled by the operator") -> list[Output]:
        """R-TOURN-13: before the start every entry is refunded with its fee; once running the
        prize pool left is shared among the entries still in (stacks at the start of any hand in
        progress, which is void): in the money each first gets the prize of the next place to
        finish, before it the buy-in back, and the rest goes in proportion to chips. Prizes
        already won stay paid. An entry to be disqualified at the end of the hand in progress
        (R-TOURN-15) is out first, without a share. A late entry that never played (dealt into
        no hand that ended) gets its buy-in back from the pool and its fee from the house
        (``Refunded``) and no share; the entries seated at the start share the pool left (so a
        cancellation before any hand ends still pays out a guarantee's overlay)."""
        if self.finished:
            raise IllegalAction(f"the tournament has already {self.state}")
        if self.started_at is None:
            return self._cancel_before_start(reason)
        cfg = self.settings
        out: list[Output] = []
        if self.registration_open:
            out += self._close_registration()
        self._pending = []
        self._out = []
        for number in sorted(self._disqualify):  # the hand in progress is void: out at once
            entry = self.entries[number - 1]
            assert entry.table is not None
            entry.disqualified = True
            self._round_out.append(self._take_out(entry, self._table(entry.table)))
        self._disqualify.clear()
        out += self._flush()
        if self._round_out:
            out += self._rank(self._round_out)
            self._round_out = []
        alive = self.stacks()
        pool_left = self.pool - self.paid_out
        for number in sorted(alive):  # a late entry never dealt a hand: buy-in and fee back
            entry = self.entries[number - 1]
            if entry.played or not entry.late:
                continue
            del alive[number]
            buy_in = min(cfg.buy_in, pool_left)  # a refund, not a prize (the audit's books)
            pool_left -= buy_in
            out.append(Refunded(number, entry.account, buy_in, cfg.fee))
        remaining = len(alive)
        first_each = self._prize(remaining) if remaining <= self.paid_places else cfg.buy_in
        shares = cancellation_shares(pool_left, alive, first_each)
        for number, amount in sorted(shares.items()):
            entry = self.entries[number - 1]
            entry.prize += amount
            self.paid_out += amount
            out.append(CancellationPaid(number, entry.account, amount))
        out.append(Cancelled(reason, shares))
        self.state = "cancelled"
        for number, table in sorted(self.tables.items()):
            self._hold(table, "cancelled")
            if not table.held:
                out.append(HoldTable(number, "cancelled"))
                table.held = True
        return out

    # ------------------------------------------------------------------ helpers

    def _table(self, number: int) -> TableState:
        try:
            return self.tables[number]
        except KeyError:
            raise IllegalAction(f"table {number} is not a table of this tournament") from None

    def _put(self, entry: EntryState, table: int, seat: int) -> None:
        model = self.tables[table]
        assert seat not in model.seats, (table, seat)
        model.seats[seat] = entry.number
        entry.table, entry.seat = table, seat
        self._balance_due = True

    def _flush(self) -> list[Output]:
        out, self._out = self._out, []
        return out

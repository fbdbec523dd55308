"""A whole tournament offline: the director, its tables and random players on a simulated clock.

``feltroom simulate --tournament sng|mtt --players N --seed S [--json]`` registers N players,
runs the tournament to its end and checks the invariants after every hand:

- chips are conserved (every table's chips add up to the entries' starting stacks) and every
  table agrees with the director on who sits where with how many chips;
- after each balancing no table is more than ``balance_gap`` players from another, unless every
  fullest table is in a hand (it gives up a player when its hand ends, R-TOURN-7);
- nobody who came to a table (a move, a broken table, a late entry) is dealt in between the
  small blind and the button, and everyone who came is dealt in outside it (R-TOURN-3,
  R-TOURN-8);
- no table that can deal is left unheld during a break (R-TOURN-12); during hand-for-hand no
  table deals while the tables wait for a round and nobody is dealt twice in one round
  (R-TOURN-9); after each hand's breaks no more tables stay than the players left need and no
  table marked to break waits between hands (R-TOURN-8); late entries are taken before the
  close and refused from it, with no ``tick`` first (R-TOURN-3); a cancellation (the soak's)
  refunds buy-in and fee to the late entries that never played and pays the pool left out
  exactly (R-TOURN-13);
- the blinds and the big-blind ante of every hand are those of the schedule's current level
  (R-TOURN-5), the ante after the blind when a stack cannot cover both;
- at the end (within 100 hands a player): exactly one winner; places 1..N each given once
  (shared places count for every place they cover, R-TOURN-10); the prizes add up to the prize
  pool (R-TOURN-11).

The simulated clock: every action takes ``ACTION_SECONDS`` (5) and every deal ``DEAL_SECONDS``
(5) seconds, so levels and breaks advance at a comparable pace in every run; a hand is played
through at its start and reported to the director at its simulated end, while other tables play
on. A sit-and-go seats all N at tables of up to 10 (one table up to 10 players, else 9-seat
tables); a scheduled tournament (``mtt``) seats nine in ten players at the start on 9-seat tables
and the rest during one level of late registration, and has the default break (five minutes at
:55, the simulated clock starting at 00:00). Random players act with the random brain; one action
in 200 times out (the player is away, R-TOURN-6) and away players come back between hands.

This module sits beside ``feltroom.simulate`` in the layers (above ``strategy``, ``tournament``
and ``table``).
"""

from __future__ import annotations

import heapq
import math
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import Forced
from feltroom.shuffle import SeededDeckSource
from feltroom.strategy import RandomBrain
from feltroom.table import (
    HandFinished,
    HandResult,
    HandStarted,
    TableEvent,
    TournamentTable,
    ante_for,
    tournament_table_config,
)
from feltroom.table.button import clockwise, strictly_between
from feltroom.tournament import (
    BreakPolicy,
    CancellationPaid,
    CloseTable,
    Director,
    ForfeitPaid,
    HoldTable,
    MovePlayer,
    OpenTable,
    Output,
    PlaceFinal,
    RedrawTable,
    Refunded,
    RegistrationClosed,
    ReleaseTable,
    RemovePlayer,
    SeatPlayer,
    SetLevel,
    TournamentSettings,
)

__all__ = [
    "ACTION_SECONDS",
    "DEAL_SECONDS",
    "GAMES",
    "SoakReport",
    "TournamentReport",
    "simulate_tournament",
    "soak",
    "soak_run",
    "tournament_settings",
]

ACTION_SECONDS = 5
DEAL_SECONDS = 5
GAMES = ("no_limit", "pot_limit", "fixed_limit")
_TIMEOUT_CHANCE = 0.005
_BACK_CHANCE = 0.5


@dataclass(slots=True)
class TournamentReport:
    players: int = 0
    hands: int = 0
    tables_max: int = 0
    moves: int = 0
    tables_broken: int = 0
    violations: int = 0
    examples: list[str] = field(default_factory=list)
    places_ok: bool = False
    prize_pool: int = 0
    paid: int = 0
    seconds: float = 0.0

    def add(self, message: str) -> None:
        self.violations += 1
        if len(self.examples) < 5:
            self.examples.append(message)

    def as_json(self) -> dict[str, Any]:
        """The JSON line of ``feltroom simulate --tournament`` (the issue's contract)."""
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        return {
            "players": self.players,
            "hands": self.hands,
            "tables_max": self.tables_max,
            "moves": self.moves,
            "tables_broken": self.tables_broken,
            "violations": self.violations,
            "violation_examples": list(self.examples),
            "places_ok": self.places_ok,
            "prize_pool": self.prize_pool,
            "paid": self.paid,
            "hands_per_second": round(rate, 1),
        }


def tournament_settings(
    form: str,
    players: int,
    game: str = "no_limit",
    *,
    seats: int | None = None,
    late_levels: int | None = None,
    breaks: BreakPolicy | str | None = None,
) -> TournamentSettings:
    """The settings the simulation plays for ``form`` (``sng``/``mtt``) and ``players``:
    ``seats`` per table (default: one table up to 10 for a sit-and-go, else 9),
    ``late_levels`` of late registration (scheduled only; default 1) and ``breaks`` (scheduled
    only; default the format's, five minutes at :55)."""
    if form == "sng":
        if seats is None:
            seats = players if players <= 10 else 9
        return TournamentSettings(
            format="sng", game=game, seats_per_table=seats, max_entries=players
        )
    if form == "mtt":
        return TournamentSettings(
            format="mtt",
            game=game,
            seats_per_table=9 if seats is None else seats,
            max_entries=None,
            late_registration_levels=1 if late_levels is None else late_levels,
            breaks=breaks,
        )
    raise InvalidConfiguration(f"tournament: {form!r} is not valid; valid values are sng, mtt")


class _Run:
    def __init__(self, settings: TournamentSettings, players: int, seed: int) -> None:
        self.settings = settings
        self.seed = seed
        self.rng = random.Random(seed)
        self.brain = RandomBrain(self.rng.getrandbits(64), fold=0.4, passive=0.55, aggressive=0.05)
        self.director = Director(
            settings,
            rng=random.Random(self.rng.getrandbits(64)),
            start_at=0.0 if settings.format == "mtt" else None,
        )
        self.tables: dict[int, TournamentTable] = {}
        self.opened = 0
        self.busy: set[int] = set()
        self.idle: set[int] = set()
        self.came: dict[int, set[int]] = {}
        """table -> seats filled since its last deal (for the small-blind-to-button check)"""
        self.last_big: dict[int, int] = {}
        self.queue: list[tuple[float, int, int, HandResult]] = []
        self.sequence = 0
        self.report = TournamentReport(players=players)
        self.chips = 0
        self.table_chips: dict[int, int] = {}
        self.places: list[PlaceFinal] = []
        self.forfeits = 0  # first place's prize forfeited to the best entry not disqualified
        self.winners = 0
        self.closed_with: RegistrationClosed | None = None
        self.cancel_paid = 0
        self.round_hands: set[tuple[int, str]] = set()
        """(hand-for-hand round, account) of every hand dealt in a round (R-TOURN-9)"""

    # ---------------------------------------------------------------- commands

    def apply(self, outputs: list[Output], now: float) -> None:
        for out in outputs:
            if isinstance(out, OpenTable):
                self.opened += 1
                config = tournament_table_config(
                    self.settings.game, out.level, self.settings.seats_per_table
                )
                deck = SeededDeckSource(f"{self.seed}/{self.opened}")
                self.tables[out.table] = TournamentTable(config, out.level, deck_source=deck)
                self.idle.add(out.table)
                self.came[out.table] = set()
                self.last_big.pop(out.table, None)
            elif isinstance(out, SeatPlayer):
                self.tables[out.table].seat_player(out.account, out.seat, out.stack, now)
                self.came[out.table].add(out.seat)
                self.chips += out.stack
                self.table_chips[out.table] = self.table_chips.get(out.table, 0) + out.stack
            elif isinstance(out, MovePlayer):
                self._move(out, now)
            elif isinstance(out, RemovePlayer):
                chips, _ = self.tables[out.table].remove_player(out.seat, now, "eliminated")
                if chips:
                    self.report.add(f"entry {out.entry} removed with {chips} chips")
            elif isinstance(out, HoldTable):
                self.tables[out.table].hold()
            elif isinstance(out, ReleaseTable):
                self.tables[out.table].release()
            elif isinstance(out, SetLevel):
                self.tables[out.table].set_level(out.level)
            elif isinstance(out, RedrawTable):
                taken = {}
                for move in out.moves:
                    chips, _ = self.tables[move.from_table].remove_player(
                        move.from_seat, now, "final_table"
                    )
                    taken[move.entry] = chips
                    self._carry(move, chips)
                table = self.tables[out.table]
                for move in out.moves:
                    table.seat_player(move.account, move.to_seat, taken[move.entry], now)
                table.new_button_draw()
                self.came[out.table] = set()  # a new draw: nobody owes a blind (R-TOURN-8)
            elif isinstance(out, CloseTable):
                table = self.tables.pop(out.table)
                if table.seats:
                    self.report.add(f"table {out.table} closed with players on it")
                self.idle.discard(out.table)
            elif isinstance(out, PlaceFinal):
                self.places.append(out)
                if out.place == 1 and out.shared == 1:
                    self.winners += 1
            elif isinstance(out, ForfeitPaid):
                self.forfeits += out.amount
            elif isinstance(out, RegistrationClosed):
                self.closed_with = out

    def _move(self, move: MovePlayer, now: float) -> None:
        chips, _ = self.tables[move.from_table].remove_player(move.from_seat, now, "moved")
        self.tables[move.to_table].seat_player(move.account, move.to_seat, chips, now)
        self.came[move.to_table].add(move.to_seat)
        self._carry(move, chips)

    def _carry(self, move: MovePlayer, chips: int) -> None:
        """The chips cache follows a player's chips to the new table (a move may come from a
        registration or a tick, when no hand's report refreshes the tables)."""
        cache = self.table_chips
        cache[move.from_table] = cache.get(move.from_table, 0) - chips
        cache[move.to_table] = cache.get(move.to_table, 0) + chips

    # ---------------------------------------------------------------- hands

    def deal_idle(self, now: float) -> None:
        on_break = self.director.break_ends is not None
        for number in sorted(self.idle):
            table = self.tables[number]
            if on_break and not table.held:
                self.report.add(f"table {number} not held during the break (R-TOURN-12)")
            if table.can_start():
                self.play(number, table, now)

    def play(self, number: int, table: TournamentTable, now: float) -> None:
        for seat, player in table.seats.items():
            if player.away and self.rng.random() < _BACK_CHANCE:
                table.back(seat)
        came = self.came[number]
        stacks = {s: p.stack for s, p in table.seats.items()}
        events = table.start_hand(now)
        started = next((e for e in events if isinstance(e, HandStarted)), None)
        if started is None:
            self.report.add(f"table {number} could start but dealt no hand")
            return
        self.check_start(number, table, started, came, stacks)
        self.check_round(number, table, started)
        # a newcomer who waits for the button is checked again at the next deal
        self.came[number] = {s for s in came if s in table.seats and s not in started.dealt}
        self.last_big[number] = started.big
        self.director.hand_started(number, started.button, started.big, now)
        self.idle.discard(number)
        actions = 0
        hand = table.hand
        assert hand is not None
        clock = now
        while not hand.is_over:
            actor = hand.to_act
            assert actor is not None
            clock += ACTION_SECONDS
            actions += 1
            if self.rng.random() < _TIMEOUT_CHANCE:
                deadline = table.view().deadline
                assert deadline is not None
                events += table.tick(deadline)
                continue
            legal = hand.legal_actions()
            assert legal is not None
            events += table.act(actor, self.brain.choose(None, legal), clock)
        result = _result(events)
        self.report.hands += 1
        ends = now + DEAL_SECONDS + ACTION_SECONDS * actions
        self.sequence += 1
        heapq.heappush(self.queue, (ends, self.sequence, number, result))

    def check_start(
        self,
        number: int,
        table: TournamentTable,
        started: HandStarted,
        came: set[int],
        stacks: dict[int, int],
    ) -> None:
        level = self.director.level
        if table.level != level:
            self.report.add(
                f"table {number} hand {started.number}: level {table.level}, schedule {level}"
            )
        expected_ante = ante_for(level, stacks[started.big])
        antes = 0
        for bet in started.forced:
            if bet.kind is Forced.BIG_BLIND:
                ok = bet.seat == started.big and bet.amount == level.big_blind
            elif bet.kind is Forced.SMALL_BLIND:
                ok = bet.amount == level.small_blind
            elif bet.kind is Forced.ANTE:
                antes += 1
                ok = bet.seat == started.big and bet.amount == expected_ante
            else:
                ok = False
            if not ok:
                self.report.add(
                    f"table {number} hand {started.number}: forced bet {bet} at {level}"
                )
        if antes != (1 if expected_ante else 0):
            self.report.add(
                f"table {number} hand {started.number}: {antes} antes, {expected_ante} due"
            )
        if started.arrangement == "fresh":
            return
        seats = self.settings.seats_per_table
        last_big = self.last_big.get(number)
        if last_big is not None:
            due = next(s for s in clockwise(last_big, seats) if s in started.dealt)
            if started.big != due:
                self.report.add(
                    f"table {number} hand {started.number}: the big blind in seat {started.big}, "
                    f"due from seat {due}, the first dealt after the last big blind (R-TOURN-4)"
                )
        small = started.small if started.small is not None else last_big
        if small is None or small == started.button:
            return
        dealt = set(started.dealt)
        for seat in came & stacks.keys():
            between = strictly_between(seat, started.button, small, seats)
            if between and seat in dealt:
                self.report.add(
                    f"table {number} hand {started.number}: seat {seat} dealt in between the "
                    f"small blind {small} and the button {started.button}"
                )
            elif not between and seat not in dealt:
                self.report.add(
                    f"table {number} hand {started.number}: seat {seat} not dealt in, outside "
                    f"the small blind {small} to the button {started.button} (R-TOURN-3)"
                )

    def check_round(self, number: int, table: TournamentTable, started: HandStarted) -> None:
        """R-TOURN-9: one hand a player a hand-for-hand round."""
        director = self.director
        if not director.hand_for_hand:
            return
        if not director.round_open:
            self.report.add(f"table {number} dealt while the tables wait for a round")
        for seat in started.dealt:
            key = (director.hand_for_hand_round, table.seats[seat].account)
            if key in self.round_hands:
                self.report.add(
                    f"{key[1]} dealt twice in hand-for-hand round {key[0]} (table {number})"
                )
            self.round_hands.add(key)

    def check_tables_needed(self) -> None:
        """R-TOURN-8: after each hand's breaks no more tables than the field needs stay, and a
        table marked to break is in its hand (or all wait to make the final table)."""
        director = self.director
        if director.moves_wait or director.finished:
            return
        models = director.tables.values()
        needed = max(1, -(-director.remaining // self.settings.seats_per_table))
        staying = sum(1 for m in models if not m.breaking)
        if staying > needed:
            self.report.add(f"{staying} tables kept for {director.remaining} players")
        merging = needed == 1 and any(m.in_hand for m in models)
        for model in models:
            if model.breaking and not model.in_hand and not merging:
                self.report.add(f"table {model.number} marked to break waits between hands")

    def finish(self, now: float, number: int, result: HandResult) -> None:
        outputs = self.director.hand_finished(number, result.before, result.after, now)
        self.idle.add(number)
        self.apply(outputs, now)
        touched = {number}
        moved = False
        for out in outputs:
            if isinstance(out, MovePlayer):
                touched |= {out.from_table, out.to_table}
                moved = True
            elif isinstance(out, RedrawTable):
                touched |= {m.from_table for m in out.moves} | {out.table}
                moved = True
            elif isinstance(out, RemovePlayer):
                moved = True
        self.check_tables(touched)
        self.check_tables_needed()
        if moved:
            self.check_balance()

    # ---------------------------------------------------------------- invariants

    def check_tables(self, numbers: set[int]) -> None:
        """Chips conserved; the tables ``numbers`` (touched by the last report) agree with the
        director's model of them."""
        cache = self.table_chips
        for number in numbers | (cache.keys() - self.tables.keys()):
            table = self.tables.get(number)
            if table is None:
                cache.pop(number, None)
            else:
                cache[number] = table.chips_on_table()
        total = sum(cache.values())
        if total != self.chips:
            self.report.add(f"chips: {total} on the tables, {self.chips} in play")
            self.chips = total
        models = self.director.tables
        for number in numbers:
            table = self.tables.get(number)
            model = models.get(number)
            if table is None or model is None:
                continue
            seated = {s: p.account for s, p in table.seats.items()}
            expected = {s: self.director.entries[e - 1].account for s, e in model.seats.items()}
            if seated != expected:
                self.report.add(f"table {number}: seats {seated}, director {expected}")

    def check_balance(self) -> None:
        cfg = self.settings
        if self.director.moves_wait:
            return  # hand-for-hand: tables balance between rounds (R-TOURN-9)
        models = [m for m in self.director.tables.values() if not m.breaking]
        if len(models) < 2:
            return
        counts = [len(m.seats) for m in models]
        most, least = max(counts), min(counts)
        if most - least <= cfg.balance_gap:
            return
        if all(m.in_hand for m in models if len(m.seats) == most):
            return
        self.report.add(f"tables unbalanced after balancing: {sorted(counts)}")

    def register_late(self, name: str, now: float) -> None:
        """R-TOURN-3: a late entry is taken while late registration is open by the clock and
        refused from its close on, whether or not the director was ticked first."""
        director = self.director
        closes = self.settings.late_registration_levels * self.settings.level_seconds
        open_now = director.clock(now) < closes
        try:
            outputs = director.register(name, now)
        except IllegalAction:
            if open_now:
                self.report.add(f"{name} refused at {director.clock(now):.0f} before the close")
            return
        if not open_now:
            self.report.add(f"{name} registered at {director.clock(now):.0f}, after the close")
        self.apply(outputs, now)

    def cancel(self, now: float) -> None:
        """R-TOURN-13: the operator cancels; every hand in progress is void. A late entry that
        never played gets buy-in and fee back; the pool left is paid out exactly."""
        director = self.director
        cfg = self.settings
        never = {
            e.number
            for e in director.entries
            if e.late and not e.played and e.table is not None and not e.out
        }
        outputs = director.cancel(now)
        pool_left = director.pool - (director.paid_out - self._shares(outputs))
        refunds = [o for o in outputs if isinstance(o, Refunded)]
        if {o.entry for o in refunds} != never:
            self.report.add(
                f"cancellation refunded {sorted(o.entry for o in refunds)}, never played "
                f"{sorted(never)}"
            )
        if any(o.fee != cfg.fee for o in refunds):
            self.report.add("a refund without its fee")
        back = sum(o.buy_in for o in refunds)
        self.cancel_paid = back
        if self._shares(outputs) + back != pool_left:
            self.report.add(
                f"cancellation paid {self._shares(outputs)} + {back} of {pool_left} left"
            )
        for out in outputs:
            if isinstance(out, PlaceFinal):
                self.places.append(out)

    @staticmethod
    def _shares(outputs: list[Output]) -> int:
        return sum(o.amount for o in outputs if isinstance(o, CancellationPaid))

    def check_end(self) -> None:
        report = self.report
        entries = self.director.entry_count
        by_place: dict[int, int] = {}
        for final in self.places:
            by_place[final.place] = by_place.get(final.place, 0) + 1
        covered: list[int] = []
        for place, count in by_place.items():
            covered += range(place, place + count)  # shared places: one each (R-TOURN-10)
        report.places_ok = sorted(covered) == list(range(1, entries + 1)) and self.winners == 1
        if self.winners != 1:
            report.add(f"{self.winners} winners")
        if sorted(covered) != list(range(1, entries + 1)):
            report.add(f"places given: {len(covered)} for {entries} entries")
        report.prize_pool = self.director.pool
        report.paid = sum(p.prize for p in self.places) + self.forfeits
        if report.paid != report.prize_pool:
            report.add(f"prizes {report.paid} for a prize pool of {report.prize_pool}")


def _result(events: list[TableEvent]) -> HandResult:
    for event in reversed(events):
        if isinstance(event, HandFinished):
            return event.result
    raise AssertionError("a hand played to its end reports HandFinished")  # pragma: no cover


def simulate_tournament(
    form: str,
    players: int,
    seed: int,
    *,
    game: str = "no_limit",
    seats: int | None = None,
    late_levels: int | None = None,
    breaks: BreakPolicy | str | None = None,
    cancel_after: int | None = None,
) -> TournamentReport:
    """Run one tournament of ``players`` random players to its end (see the module doc);
    ``cancel_after``: the operator cancels it after that many hands (R-TOURN-13)."""
    if players < 2:
        raise InvalidConfiguration(f"players: {players} is not valid; valid values are from 2")
    settings = tournament_settings(
        form, players, game, seats=seats, late_levels=late_levels, breaks=breaks
    )
    run = _Run(settings, players, seed)
    director = run.director
    started = time.perf_counter()
    names = [f"p{k}" for k in range(1, players + 1)]
    late: list[tuple[float, str]] = []
    if form == "mtt" and settings.late_registration_levels:
        on_time = max(2, players - players // 10)
        window = settings.level_seconds * settings.late_registration_levels
        # one in twenty tries after the close, which must refuse it (R-TOURN-3)
        late = sorted((run.rng.uniform(0, window * 1.05), name) for name in names[on_time:])
        names = names[:on_time]
    for name in names:
        run.apply(director.register(name, 0.0), 0.0)
    now = 0.0
    run.apply(director.tick(now), now)
    run.deal_idle(now)
    stalled = 0
    limit = 100 * players + 10_000
    while not director.finished:
        if run.report.hands > limit:
            run.report.add(f"no end after {run.report.hands} hands (state {director.state})")
            break
        if cancel_after is not None and run.report.hands >= cancel_after:
            run.cancel(now)
            break
        report_at = run.queue[0][0] if run.queue else float("inf")
        wake = director.wake_at()
        wake_at = wake if wake is not None else float("inf")
        late_at = late[0][0] if late else float("inf")
        if late_at <= min(report_at, wake_at):
            now = max(now, late_at)
            _, name = late.pop(0)
            run.register_late(name, now)  # no tick first: the close is by time
            run.deal_idle(now)
            continue
        if wake_at <= report_at:
            if wake_at == float("inf"):
                run.report.add("the tournament stalled: no hand in progress and nothing due")
                break
            stalled = stalled + 1 if wake_at <= now else 0
            if stalled > 3:
                run.report.add(f"the director's clock does not advance at {now}")
                break
            now = max(now, wake_at)
            run.apply(director.tick(now), now)
            run.deal_idle(now)
            continue
        ends, _, number, result = heapq.heappop(run.queue)
        now = ends
        run.apply(director.tick(now), now)
        run.finish(now, number, result)
        run.deal_idle(now)
    run.report.seconds = time.perf_counter() - started
    run.report.tables_max = director.tables_max
    run.report.moves = director.moves
    run.report.tables_broken = director.tables_broken
    if director.state == "finished":
        run.check_end()
    elif director.state != "cancelled" or cancel_after is None:
        run.report.add(f"the tournament ended {director.state}")
    else:
        run.report.places_ok = True
        run.report.prize_pool = director.pool
        run.report.paid = director.paid_out + run.cancel_paid
    return run.report


@dataclass(slots=True)
class SoakReport:
    """``feltroom simulate --tournament soak --runs N``: one tournament a seed."""

    runs: int = 0
    first_seed: int = 1
    crashes: int = 0
    violations: int = 0
    hands: int = 0
    players: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "seeds": f"{self.first_seed}..{self.first_seed + self.runs - 1}",
            "crashes": self.crashes,
            "violations": self.violations,
            "violation_examples": list(self.examples),
            "players": self.players,
            "hands": self.hands,
            "seconds": round(self.seconds, 1),
        }


def soak_run(seed: int) -> dict[str, Any]:
    """What seed ``seed`` of the soak plays: the size log-uniform in 2..3,000, seats 2..10, the
    format, the game, late registration (0..2 levels) and breaks (none, the default, or a
    random minute and length), and one run in twenty cancelled after a random number of
    hands."""
    rng = random.Random(f"feltroom soak {seed}")
    players = min(3000, max(2, round(math.exp(rng.uniform(math.log(2), math.log(3000))))))
    form = rng.choice(("sng", "mtt"))
    seats = rng.randint(2, 10)
    run: dict[str, Any] = {
        "form": form,
        "players": players,
        "seed": seed,
        "game": rng.choice(GAMES),
        "seats": seats,
    }
    if form == "mtt":
        run["late_levels"] = rng.randint(0, 2)
        kind = rng.choice(("none", "default", "random"))
        if kind == "random":
            run["breaks"] = BreakPolicy(at_minute=rng.randint(0, 59), minutes=rng.randint(1, 10))
        elif kind == "none":
            run["breaks"] = "none"
    if rng.random() < 0.05:
        run["cancel_after"] = rng.randint(0, 3 * players)
    return run


def soak(
    runs: int,
    first_seed: int = 1,
    *,
    progress: Callable[[SoakReport], None] | None = None,
    every: int = 0,
) -> SoakReport:
    """One simulated tournament a seed, ``first_seed`` .. ``first_seed + runs - 1`` (drawn by
    ``soak_run``); a crash counts once and is an example like a violation."""
    report = SoakReport(first_seed=first_seed)
    started = time.perf_counter()
    for seed in range(first_seed, first_seed + runs):
        params = soak_run(seed)
        form, players = params.pop("form"), params.pop("players")
        params.pop("seed")
        try:
            one = simulate_tournament(form, players, seed, **params)
        except Exception as error:  # the soak goes on: every crash is a finding
            report.crashes += 1
            where = traceback.format_exception(error)[-2].strip().splitlines()[0]
            if len(report.examples) < 10:
                report.examples.append(f"seed {seed}: {type(error).__name__}: {error} ({where})")
        else:
            report.violations += one.violations
            report.hands += one.hands
            if one.violations and len(report.examples) < 10:
                report.examples += [f"seed {seed}: {e}" for e in one.examples[:2]]
        report.runs += 1
        report.players += players
        report.seconds = time.perf_counter() - started
        if progress is not None and every and report.runs % every == 0:
            progress(report)
    return report

"""A whole tournament offline: the director, its tables and random players on a simulated clock.

``feltroom simulate --tournament sng|mtt --players N --seed S [--json]`` registers N players,
runs the tournament to its end and checks the invariants after every hand:

- chips are conserved (every table's chips add up to the entries' starting stacks) and every
  table agrees with the director on who sits where with how many chips;
- after each balancing no table is more than ``balance_gap`` players from another, unless every
  fullest table is in a hand (it gives up a player when its hand ends, R-TOURN-7);
- nobody who came to a table (a move, a broken table, a late entry) is dealt in between the
  small blind and the button (R-TOURN-3, R-TOURN-8);
- the blinds and the big-blind ante of every hand are those of the schedule's current level
  (R-TOURN-5), the ante after the blind when a stack cannot cover both;
- at the end: exactly one winner; places 1..N each given once (shared places count for every
  place they cover, R-TOURN-10); the prizes add up to the prize pool (R-TOURN-11).

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
import random
import time
from dataclasses import dataclass, field
from typing import Any

from feltroom.errors import InvalidConfiguration
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
from feltroom.table.button import strictly_between
from feltroom.tournament import (
    CloseTable,
    Director,
    HoldTable,
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
    TournamentSettings,
)

__all__ = [
    "ACTION_SECONDS",
    "DEAL_SECONDS",
    "TournamentReport",
    "simulate_tournament",
    "tournament_settings",
]

ACTION_SECONDS = 5
DEAL_SECONDS = 5
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


def tournament_settings(form: str, players: int, game: str = "no_limit") -> TournamentSettings:
    """The settings the simulation plays for ``form`` (``sng``/``mtt``) and ``players``."""
    if form == "sng":
        seats = players if players <= 10 else 9
        return TournamentSettings(
            format="sng", game=game, seats_per_table=seats, max_entries=players
        )
    if form == "mtt":
        return TournamentSettings(
            format="mtt",
            game=game,
            seats_per_table=9,
            max_entries=None,
            late_registration_levels=1,
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
        self.winners = 0
        self.closed_with: RegistrationClosed | None = None

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
            elif isinstance(out, RegistrationClosed):
                self.closed_with = out

    def _move(self, move: MovePlayer, now: float) -> None:
        chips, _ = self.tables[move.from_table].remove_player(move.from_seat, now, "moved")
        self.tables[move.to_table].seat_player(move.account, move.to_seat, chips, now)
        self.came[move.to_table].add(move.to_seat)

    # ---------------------------------------------------------------- hands

    def deal_idle(self, now: float) -> None:
        for number in sorted(self.idle):
            table = self.tables[number]
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
        self.came[number] = set()
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
        small = started.small if started.small is not None else self.last_big.get(number)
        if small is None or small == started.button:
            return
        seats = self.settings.seats_per_table
        for seat in came & set(started.dealt):
            if strictly_between(seat, started.button, small, seats):
                self.report.add(
                    f"table {number} hand {started.number}: seat {seat} dealt in between the "
                    f"small blind {small} and the button {started.button}"
                )

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
        report.paid = sum(p.prize for p in self.places)
        if report.paid != report.prize_pool:
            report.add(f"prizes {report.paid} for a prize pool of {report.prize_pool}")


def _result(events: list[TableEvent]) -> HandResult:
    for event in reversed(events):
        if isinstance(event, HandFinished):
            return event.result
    raise AssertionError("a hand played to its end reports HandFinished")  # pragma: no cover


def simulate_tournament(
    form: str, players: int, seed: int, *, game: str = "no_limit"
) -> TournamentReport:
    """Run one tournament of ``players`` random players to its end (see the module doc)."""
    if players < 2:
        raise InvalidConfiguration(f"players: {players} is not valid; valid values are from 2")
    settings = tournament_settings(form, players, game)
    run = _Run(settings, players, seed)
    director = run.director
    started = time.perf_counter()
    names = [f"p{k}" for k in range(1, players + 1)]
    late: list[tuple[float, str]] = []
    if form == "mtt":
        on_time = max(2, players - players // 10)
        window = settings.level_seconds * settings.late_registration_levels
        late = sorted((run.rng.uniform(0, window * 0.95), name) for name in names[on_time:])
        names = names[:on_time]
    for name in names:
        run.apply(director.register(name, 0.0), 0.0)
    now = 0.0
    run.apply(director.tick(now), now)
    run.deal_idle(now)
    stalled = 0
    while not director.finished:
        report_at = run.queue[0][0] if run.queue else float("inf")
        wake = director.wake_at()
        wake_at = wake if wake is not None else float("inf")
        late_at = late[0][0] if late else float("inf")
        if late_at <= min(report_at, wake_at):
            now = max(now, late_at)
            _, name = late.pop(0)
            run.apply(director.tick(now), now)
            run.apply(director.register(name, now), now)
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
    else:
        run.report.add(f"the tournament ended {director.state}")
    return run.report

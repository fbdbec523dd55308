"""A director driven without tables: random registrations, hands, knock-outs, breaks,
disqualifications and cancellations, in random orders, against the invariants of issue 39.

``drive(settings, players, seed)`` plays one tournament to its end and returns the violations
it found (an empty list when every invariant held). The hypothesis tests draw the settings and
the seed; the named tests of R-TOURN-9 use it for its hand-for-hand bookkeeping.
"""

from __future__ import annotations

import random
from contextlib import suppress
from dataclasses import dataclass, field

from feltroom.errors import IllegalAction
from feltroom.tournament import (
    CancellationPaid,
    Director,
    Finished,
    MovePlayer,
    Output,
    PlaceFinal,
    RedrawTable,
    Refunded,
    TournamentSettings,
)

__all__ = ["Drive", "drive"]


@dataclass(slots=True)
class Drive:
    """What one driven tournament did and the invariants it broke."""

    director: Director
    violations: list[str] = field(default_factory=list)
    hands: int = 0
    rounds: int = 0
    places: list[PlaceFinal] = field(default_factory=list)
    finished: int = 0
    refunds: list[Refunded] = field(default_factory=list)
    shares: int = 0


class _Driver:
    def __init__(
        self, settings: TournamentSettings, seed: int, *, cancel: float, disqualify: float
    ) -> None:
        self.rng = random.Random(seed)
        self.settings = settings
        self.d = Director(settings, rng=random.Random(self.rng.getrandbits(64)), start_at=0.0)
        self.run = Drive(self.d)
        self.now = 0.0
        self.dealt: dict[int, dict[int, int]] = {}
        """table -> seat -> entry of the hand in progress"""
        self.round_hands: set[tuple[int, int]] = set()
        self.cancel_chance = cancel
        self.disqualify_chance = disqualify
        self.names = 0

    def fail(self, message: str) -> None:
        if len(self.run.violations) < 20:
            self.run.violations.append(f"t={self.now:.0f}: {message}")

    # ------------------------------------------------------------------ the invariants

    def check(self, out: list[Output], what: str) -> None:
        d = self.d
        for o in out:
            if isinstance(o, PlaceFinal):
                self.run.places.append(o)
            elif isinstance(o, Finished):
                self.run.finished += 1
            elif isinstance(o, Refunded):
                self.run.refunds.append(o)
            elif isinstance(o, CancellationPaid):
                self.run.shares += o.amount
        if d.state == "cancelled":
            return
        seen: dict[int, tuple[int, int]] = {}
        for number, table in d.tables.items():
            for seat, entry in table.seats.items():
                if entry in seen:
                    self.fail(f"{what}: entry {entry} at two seats")
                seen[entry] = (number, seat)
        alive = [e for e in d.entries if e.table is not None and not e.out]
        if {e.number for e in alive} != set(seen):
            self.fail(f"{what}: the seated entries are not the entries in play")
        chips = sum(e.stack for e in alive) + d.disqualified_chips
        seated = sum(1 for e in d.entries if e.table is not None)
        if chips != seated * self.settings.starting_stack:
            self.fail(f"{what}: {chips} chips for {seated} entries")
        if d.break_ends is not None:
            for number, table in d.tables.items():
                if not table.held:
                    self.fail(f"{what}: table {number} not held during the break")
        if d.moves_wait and any(isinstance(o, MovePlayer | RedrawTable) for o in out):
            self.fail(f"{what}: a player moved during a hand-for-hand round")
        if not d.moves_wait and not d.finished:
            seats = self.settings.seats_per_table
            needed = max(1, -(-d.remaining // seats))
            staying = [t for t in d.tables.values() if not t.breaking]
            if len(staying) > needed:
                self.fail(f"{what}: {len(staying)} tables kept for {d.remaining} players")
            merging = any(t.in_hand for t in d.tables.values())
            for number, table in d.tables.items():
                if table.breaking and not table.in_hand and not (needed == 1 and merging):
                    self.fail(f"{what}: table {number} marked to break waits between hands")

    # ------------------------------------------------------------------ the moves

    def register(self) -> None:
        d = self.d
        self.names += 1
        name = f"late{self.names}"
        closes = self.settings.late_registration_levels * self.settings.level_seconds
        open_by_time = d.registration_open and d.clock(self.now) < closes
        try:
            out = d.register(name, self.now)
        except IllegalAction:
            if open_by_time and d.state not in ("finished", "cancelled"):
                self.fail(f"late entry refused while registration is open ({d.clock(self.now)})")
            return
        if not open_by_time:
            self.fail(f"entry accepted after the close (clock {d.clock(self.now)} >= {closes})")
        self.check(out, "register")

    def start_hand(self, number: int) -> None:
        d = self.d
        table = d.tables[number]
        seats = sorted(table.seats)
        big = self.rng.choice(seats)
        out = d.hand_started(number, 0, big, self.now)
        self.dealt[number] = dict(table.seats)
        if d.hand_for_hand and not d.moves_wait:
            self.fail(f"table {number} dealt outside a round during hand-for-hand")
        if d.hand_for_hand:
            for entry in table.seats.values():
                key = (d.hand_for_hand_round, entry)
                if key in self.round_hands:
                    self.fail(f"entry {entry} dealt twice in round {d.hand_for_hand_round}")
                self.round_hands.add(key)
        self.run.hands += 1
        self.check(out, "hand_started")

    def finish_hand(self, number: int) -> None:
        d = self.d
        dealt = self.dealt.pop(number)
        before = {s: d.entries[e - 1].stack for s, e in dealt.items()}
        after = dict(before)
        seats = list(after)
        for _ in range(self.rng.randint(0, 3)):  # chips won and lost
            a, b = self.rng.sample(seats, 2)
            amount = self.rng.randint(0, after[a])
            after[a] -= amount
            after[b] += amount
        losers = [s for s in seats if self.rng.random() < 0.3]
        if len(losers) == len(seats):
            losers.pop()
        for seat in losers:
            winner = self.rng.choice([s for s in seats if s not in losers])
            after[winner] += after[seat]
            after[seat] = 0
        if all(v == 0 for v in after.values()):  # pragma: no cover - chips are conserved
            self.fail("a hand left nobody with chips")
        self.check(d.hand_finished(number, before, after, self.now), "hand_finished")

    def step(self) -> bool:
        """One random move; ``False`` once the tournament is over."""
        d = self.d
        if d.finished:
            return False
        self.now += self.rng.uniform(0.0, 30.0)
        roll = self.rng.random()
        if roll < self.cancel_chance and d.started_at is not None:
            self.cancel()
            return False
        if roll < self.cancel_chance + self.disqualify_chance:
            alive = [e for e in d.entries if e.table is not None and not e.out]
            if alive:
                entry = self.rng.choice(alive)
                with suppress(IllegalAction):  # already to be disqualified after its hand
                    self.check(d.disqualify(entry.account, self.now), "disqualify")
                return True
        if roll < 0.08 and d.registration_open:
            self.register()
            return True
        self.check(d.tick(self.now), "tick")
        if d.finished:
            return False
        idle = [
            n for n, t in d.tables.items() if not t.in_hand and not t.held and len(t.seats) >= 2
        ]
        busy = sorted(self.dealt)
        if busy and (not idle or self.rng.random() < 0.5):
            self.finish_hand(self.rng.choice(busy))
        elif idle:
            self.start_hand(self.rng.choice(idle))
        else:
            wake = d.wake_at()
            if wake is None:
                self.fail(f"stalled in state {d.state}: no hand, nothing due")
                return False
            self.now = max(self.now, wake)
        return True

    def cancel(self) -> None:
        d = self.d
        pool_left = d.pool - d.paid_out if not d.registration_open else None
        never = {
            e.number
            for e in d.entries
            if e.late and not e.played and e.table is not None and not e.out
        }
        out = d.cancel(self.now)
        self.check(out, "cancel")
        refunded = {o.entry for o in out if isinstance(o, Refunded)}
        if refunded != never:
            self.fail(f"cancellation refunded {sorted(refunded)}, never played {sorted(never)}")
        if any(o.fee != self.settings.fee for o in out if isinstance(o, Refunded)):
            self.fail("a refund without its fee")
        if pool_left is not None:
            paid = sum(o.amount for o in out if isinstance(o, CancellationPaid))
            back = sum(o.buy_in for o in out if isinstance(o, Refunded))
            # a hand-for-hand round's knock-outs are ranked as the cancellation ends it: their
            # prizes come from the same pool
            won = sum(o.prize for o in out if isinstance(o, PlaceFinal))
            if paid + back + won != pool_left:
                self.fail(f"cancellation paid {paid} + {back} + prizes {won} of {pool_left} left")

    def end(self) -> None:
        d = self.d
        run = self.run
        run.rounds = d.hand_for_hand_round
        if d.state == "cancelled":
            return
        if d.state != "finished":
            self.fail(f"the tournament ended {d.state}")
            return
        if run.finished != 1:
            self.fail(f"{run.finished} Finished events")
        covered: list[int] = []
        for final in run.places:
            covered.append(final.place)
        by_place: dict[int, int] = {}
        for place in covered:
            by_place[place] = by_place.get(place, 0) + 1
        spread = sorted(p + k for p, n in by_place.items() for k in range(n))
        if spread != list(range(1, d.entry_count + 1)):
            self.fail(f"places {sorted(covered)} for {d.entry_count} entries")
        if sum(p.prize for p in run.places) != d.pool and not any(
            e.disqualified and e.place == 1 for e in d.entries
        ):
            self.fail(f"prizes {sum(p.prize for p in run.places)} of a pool of {d.pool}")


def drive(
    settings: TournamentSettings,
    players: int,
    seed: int,
    *,
    cancel: float = 0.0,
    disqualify: float = 0.0,
    max_steps: int = 200_000,
) -> Drive:
    """Register ``players``, start, and play at random until the end (see the module doc)."""
    driver = _Driver(settings, seed, cancel=cancel, disqualify=disqualify)
    d = driver.d
    for k in range(1, players + 1):
        d.register(f"p{k}", 0.0)
    driver.check(d.tick(0.0), "start")
    steps = 0
    while driver.step():
        steps += 1
        if steps >= max_steps:
            driver.fail(f"no end after {max_steps} steps (state {d.state})")
            break
    driver.end()
    return driver.run

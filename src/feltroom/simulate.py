"""The randomized soak: many tables, random players, every house rule checked after every hand.

``feltroom simulate --tables T --hands N --seed S [--button-rule dead|moving] --json`` plays N
hands in total over T tables of 2 to 10 seats (each table draws its button rule unless
``--button-rule`` fixes it). Random players join, leave, sit out and come back, miss blinds, change
seats, add chips, time out, disconnect and resume, decline blinds and set pre-actions; they act
with the random brain. The population also swings often between a ring game and heads-up (players
sitting out together, or coming back together) and stops the game now and then (everyone who plays
sits out while absent players come back), so that heads-up <-> ring transitions and restarts are
frequent. After every hand the invariants below are checked (``checks=False`` turns the checks off
and keeps the bookkeeping). The checks state the rules from what the table did (the hand's forced
bets, the seats before and after), not from the planner's own arrangement:

- chips are conserved: stacks + rake + fees + tax + chips taken away = chips brought;
- exactly the blinds the rules require were posted (one big blind of the right size, the small
  blind where the button rule puts it, entry posts and dead blinds only from players who owed
  them, each of the right kind and size);
- the big blind goes to the player due for it, the player after last hand's big blind who may
  take it (R-BUTTON-3, R-MISS-3; R-MISS-5's shift under the moving rule), and nobody posts the big
  blind twice in a row; heads-up the button posts the small blind (R-BLIND-4); back from heads-up
  to a ring the small blind is last hand's big blind and the button the player before it
  (R-BUTTON-2);
- the button moved per the button rule;
- nobody was dealt in who had to wait (sitting out, or owing and neither posting nor taking the
  big blind, or entering between the button and the big blind where the rules forbid it); an
  owing player is dealt in without paying only when the game restarted (nobody present was in
  the game), so no debt is wiped while a game goes on;
- missed blinds stay owed (R-MISS-1/4): a sitting-out player the big blind passed owes a blind
  after the hand, and nobody's debt disappears without their being dealt in;
- every player paid each blind once per orbit (checked over every run of hands in which the same
  players were dealt in, a full orbit long, without anyone entering or missing blinds);
- the showdown order (R-SHOW-3): the last bettor of the final round shows first, else the first
  player left of the button who acted in it, never a player all-in before it while someone acted;
- the rake (R-RAKE-3): the rate times the sum of the pots, rounded down, capped, once per hand;
- the hand's PHH export replays to the same stacks and log (``feltroom.history``), table-side
  folds and protections included.

This module sits in its own layer between ``history`` and ``room`` (pyproject's contract).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from feltroom.history import phh
from feltroom.history.replay import record_from_hand, replay
from feltroom.rules import BoardDealt, Called, Checked, Folded, Forced, Hand, Raised
from feltroom.shuffle import SeededDeckSource
from feltroom.strategy import RandomBrain
from feltroom.table import (
    BlindDeclined,
    Entry,
    FeeCharged,
    Owes,
    PreAction,
    PreActionKind,
    Table,
    TableConfig,
    TableEvent,
)
from feltroom.table.button import clockwise, strictly_between
from feltroom.table.config import preset

__all__ = ["SoakReport", "random_config", "simulate"]


@dataclass(slots=True)
class SoakReport:
    hands: int = 0
    violations: int = 0
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, message: str) -> None:
        self.violations += 1
        if len(self.examples) < 5:
            self.examples.append(message)

    def as_json(self) -> dict[str, Any]:
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        return {
            "hands": self.hands,
            "violations": self.violations,
            "violation_examples": list(self.examples),
            "hands_per_second": round(rate, 1),
        }


GAMES = ("nl_25_50", "pl_25_50", "pl_100_200", "limit_4_8", "limit_1_2", "limit_05_10")


def random_config(
    rng: random.Random,
    game: str | None = None,
    seats: int | None = None,
    button_rule: str | None = None,
) -> TableConfig:
    """A random table: any structure, 2..10 seats, either button rule, random house fees;
    ``game`` (a preset name), ``seats`` and ``button_rule`` fix the stakes, the table size and
    the button rule."""
    base = rng.choice(GAMES)
    size = rng.randint(2, 10)
    if game is not None:
        base = game
    if seats is not None:
        size = seats
    fee = rng.choice(("rake", "rake", "session_fee", "collection_fee"))
    rule = rng.choice(("dead", "moving"))
    if button_rule is not None:
        rule = button_rule
    return preset(
        base,
        max_seats=size,
        button_rule=rule,
        first_button=rng.choice(("high_card", "first_seated", "left_of_dealer")),
        house_fee=fee,
        session_fee=rng.choice((0, 5, 25)),
        session_minutes=rng.choice((1, 5)),
        collection_fee=rng.choice((0, 10, 50)),
        tax_threshold=rng.choice((None, 1000)),
        tax_percent=rng.choice((0, 10)),
        time_bank_seconds=rng.choice((0, 30)),
        timeout_action=rng.choice(("fold", "check_or_fold")),
        protect_on=rng.choice(("disconnect", "any_timeout")),
        mode=rng.choice(("cash", "cash", "cash", "tournament")),
        no_flop_no_drop=rng.random() < 0.3,
        sit_out_minutes=rng.choice((1, 10)),
        rake_cap=rng.choice((None, None, 0, 7)),
    )


@dataclass(frozen=True, slots=True)
class _Before:
    """What the checks need to know of the table just before a hand."""

    owes: Mapping[int, Owes]
    present: frozenset[int]
    in_game: frozenset[int]
    entry: Mapping[int, Entry]
    accounts: Mapping[int, str]

    def without(self, seat: int) -> _Before:
        """The same after ``seat`` declined a blind and sat out (R-BLIND-6)."""
        return _Before(
            self.owes, self.present - {seat}, self.in_game - {seat}, self.entry, self.accounts
        )


@dataclass(frozen=True, slots=True)
class _Previous:
    """What the table did in the previous hand (from its forced bets), for the next checks."""

    button: int
    small: int | None
    big: int
    big_account: str
    dealt: frozenset[int]


class _Sim:
    """One table and its random population."""

    def __init__(
        self,
        index: int,
        rng: random.Random,
        checks: bool,
        game: str | None = None,
        seats: int | None = None,
        button_rule: str | None = None,
    ) -> None:
        self.rng = rng
        self.config = random_config(rng, game, seats, button_rule)
        self.table = Table(
            self.config,
            deck_source=SeededDeckSource(rng.getrandbits(64)),
            may_protect=lambda account: rng.random() < 0.5,
        )
        self.brain = RandomBrain(rng.getrandbits(64))
        self.now = 0.0
        self.index = index
        self.names = 0
        self.checks = checks
        self.history: list[tuple[frozenset[int], int | None, int, bool]] = []
        self.previous: _Previous | None = None

    # -------------------------------------------------------------- the population

    def new_name(self) -> str:
        self.names += 1
        return f"t{self.index}p{self.names}"

    def buy_in(self) -> int:
        cfg = self.config
        low, high = cfg.buy_in_min, cfg.buy_in_max
        top = high if high is not None else 4 * low
        return self.rng.randint(low, top)

    def churn(self) -> None:
        """Random seat events between hands."""
        rng, table, cfg = self.rng, self.table, self.config
        free = [s for s in range(1, cfg.max_seats + 1) if s not in table.seats]
        offered = dict(table._offers)
        for number, (account, _) in offered.items():
            if rng.random() < 0.7:
                table.sit(account, number, self.buy_in(), self.now, entry=self._entry())
        free = [s for s in range(1, cfg.max_seats + 1) if s not in table.seats]
        free = [s for s in free if s not in table._offers]
        wanted = 0.9 if len(table.seats) < 3 else 0.25
        if free and rng.random() < wanted:
            table.sit(
                self.new_name(),
                rng.choice(free),
                self.buy_in(),
                self.now,
                entry=self._entry(),
                auto_post=rng.random() < 0.9,
            )
        elif not free and rng.random() < 0.1:
            table.join_waiting_list(self.new_name(), self.now)
        for number, seat in list(table.seats.items()):
            roll = rng.random()
            if seat.stack == 0:
                if roll < 0.5:
                    table.add_chips(number, self.buy_in(), self.now)
                    table.sit_in(number, self.now, self._entry())
                elif roll < 0.8:
                    table.leave(number, self.now)
                continue
            if roll < 0.02:
                table.leave(number, self.now)
            elif roll < 0.05:
                if seat.sitting_out:
                    table.sit_in(number, self.now, self._entry())
                else:
                    table.sit_out(number, self.now)
            elif roll < 0.12 and seat.sitting_out:
                table.sit_in(number, self.now, self._entry())
            elif roll < 0.13:
                high = cfg.buy_in_max
                room = (high - seat.stack) if high is not None else cfg.buy_in_min
                if room > 0:
                    table.add_chips(number, rng.randint(1, room), self.now)
            elif roll < 0.14 and free:
                target = rng.choice(free)
                if target not in table.seats and target not in table._offers:
                    table.change_seat(number, target, self.now, self._entry())
                    free.remove(target)
                    free.append(number)
            elif roll < 0.16:
                if seat.disconnected:
                    table.resume(number, self.now)
                else:
                    table.disconnect(number, self.now)
            elif roll < 0.17:
                seat.entry = self._entry()

    def swing(self) -> None:
        """Frequent heads-up <-> ring transitions and restarts: a ring drops to two players
        (the others sit out together), a heads-up game gets absent players back, or the game
        stops (everyone who plays sits out while absent players come back: owing, they restart
        it when none of them is in the game)."""
        rng, table = self.rng, self.table
        roll = rng.random()
        present = [n for n, p in table.seats.items() if p.present]
        away = [n for n, p in table.seats.items() if p.sitting_out and p.stack > 0]
        if roll < 0.08 and len(present) >= 3:
            for number in rng.sample(present, len(present) - 2):
                table.sit_out(number, self.now)
        elif roll < 0.16 and len(present) == 2 and away:
            for number in rng.sample(away, rng.randint(1, len(away))):
                table.sit_in(number, self.now, self._entry())
        elif roll < 0.18 and len(away) >= 2:
            for number in present:
                table.sit_out(number, self.now)
            for number in away:
                table.sit_in(number, self.now, self._entry())

    def _entry(self) -> Entry:
        return Entry.POST if self.rng.random() < 0.7 else Entry.WAIT

    # -------------------------------------------------------------- one hand

    def play_hand(self, report: SoakReport) -> bool:
        """Churn, then play one hand; False when no hand could start."""
        rng, table = self.rng, self.table
        self.churn()
        self.swing()
        self.now += rng.choice((1.0, 5.0, 30.0))
        table.tick(self.now)
        if not table.can_start():
            return False
        before = self._before() if self.checks else None
        last = table.last
        number = table.hand_number
        stacks = {n: p.stack for n, p in table.seats.items()}
        for event in table.start_hand(self.now):
            # a session fee (R-RAKE-4) may take a player's last chips before the deal (the
            # hand may be over already, so compare the fee with the stack before it)
            if not isinstance(event, FeeCharged) or before is None:
                continue
            if event.kind == "session_fee":
                busted = event.amount >= stacks[event.seat]
                before = before.without(event.seat) if busted else before
        guard = 0
        while table._pending is not None:
            guard += 1
            events: list[TableEvent] = []
            for prompted in list(table._prompts):
                if prompted not in table._prompts:
                    continue  # an earlier answer re-planned the hand and withdrew this prompt
                roll = rng.random()
                if roll < 0.6:
                    events += table.post_blind(prompted, self.now)
                elif roll < 0.8:
                    events += table.decline_blind(prompted, self.now)
                if table._pending is None:
                    break
            if table._pending is not None and rng.random() < 0.3:
                self.now += self.config.blind_prompt_seconds
                events += table.tick(self.now)
            for event in events:
                if isinstance(event, BlindDeclined) and before is not None:
                    before = before.without(event.seat)
            if guard > 100:
                report.add(f"table {self.index}: blind prompts never settle")
                return False
        if table.hand_number == number:
            return False  # no hand was dealt
        # (a hand may also be over as soon as it is dealt: players leaving fold at once)
        hand = table.hand
        assert hand is not None
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            roll = rng.random()
            if roll < 0.01:
                self.now = (table._clock.deadline if table._clock else self.now) + 0.5
                table.tick(self.now)
                continue
            if roll < 0.015:
                table.leave(seat, self.now) if rng.random() < 0.3 else table.sit_out(seat, self.now)
                continue
            if roll < 0.03:
                other = rng.choice(hand.seats)
                if other != seat and not hand.is_over:
                    kind = rng.choice(list(PreActionKind))
                    amount = rng.choice((None, self.config.big))
                    table.set_pre_action(other, PreAction(kind, amount))
            legal = hand.legal_actions()
            assert legal is not None
            self.now += rng.choice((0.5, 2.0, 9.0))
            table.tick(self.now)
            if hand.is_over or hand.to_act != seat:
                continue
            table.act(seat, self.brain.choose(None, legal), self.now)
        report.hands += 1
        if self.checks and before is not None:
            self.check(before, last, hand, report)
        return True

    # -------------------------------------------------------------- invariants

    def _before(self) -> _Before:
        seats = self.table.seats
        return _Before(
            {s: p.owes for s, p in seats.items()},
            frozenset(s for s, p in seats.items() if p.present),
            frozenset(s for s, p in seats.items() if p.present and not p.owing),
            {s: p.entry for s, p in seats.items()},
            {s: p.account for s, p in seats.items()},
        )

    def check(self, before: _Before, last: Any, hand: Hand, report: SoakReport) -> None:
        table, cfg = self.table, self.config
        result = table.last_result
        plan = table.plan
        assert result is not None
        assert plan is not None
        where = f"table {self.index} hand {result.number}"
        mx = cfg.max_seats
        # chips conserved
        total = table.chips_on_table() + table.rake + table.fees + table.tax + table.taken
        if total != table.brought:
            report.add(f"{where}: chips not conserved: {total} != brought {table.brought}")
        session = sum(table._session_fees.values())
        spent = sum(result.before.values()) - sum(result.after.values())
        house = result.rake + sum(result.fees.values()) - session + sum(result.tax.values())
        if spent != house:
            report.add(f"{where}: the hand's result does not add up")
        dealt = list(hand.seats)
        forced = hand.setup.forced
        bigs = [f for f in forced if f.kind is Forced.BIG_BLIND]
        smalls = [f for f in forced if f.kind is Forced.SMALL_BLIND]
        if len(bigs) != 1 or bigs[0].amount != cfg.big:
            report.add(f"{where}: big blinds {bigs}, expected one of {cfg.big}")
            return
        big = bigs[0].seat
        if len(smalls) > 1 or any(f.amount != cfg.small for f in smalls):
            report.add(f"{where}: small blinds {smalls}")
        small = smalls[0].seat if smalls else None
        button = hand.setup.button
        heads_up = len(dealt) == 2
        previous = self.previous
        self.previous = _Previous(button, small, big, before.accounts[big], frozenset(dealt))
        restart = not before.in_game  # nobody present was in the game: it starts again
        posted_in = {f.seat for f in forced if f.kind is Forced.POST}
        if heads_up:
            if small != button or big == button:
                report.add(f"{where}: heads-up: button {button} small {small} big {big}")
        else:
            first = next(s for s in clockwise(button, mx) if s in dealt)
            if small is not None and first != small:
                report.add(f"{where}: small blind {small} is not left of the button {button}")
            for s in dealt:
                between = strictly_between(s, small or button, big, mx)
                if between and s not in (small, big) and s not in posted_in:
                    report.add(f"{where}: seat {s} sits between the blinds without posting")
        # nobody dealt in who had to wait; posts only from players who owed them; a debt is
        # never wiped while the game goes on (only a restart deals owing players in free)
        for s in dealt:
            if s not in before.present:
                report.add(f"{where}: seat {s} was dealt in while sitting out")
                continue
            owes = before.owes[s]
            kinds = sorted(f.kind.value for f in forced if f.seat == s)
            if restart:
                continue
            if owes is Owes.NOTHING:
                if any(k in ("post", "dead") for k in kinds):
                    report.add(f"{where}: seat {s} owed nothing but posted {kinds}")
                continue
            if s == big:
                continue
            expected = {
                Owes.NEW: ["post"],
                Owes.MISSED_SMALL: ["dead"],
                Owes.MISSED_BIG: ["dead", "post"],
            }[owes]
            if [k for k in kinds if k in ("post", "dead")] != expected:
                report.add(f"{where}: seat {s} owed {owes.value} and posted {kinds}")
            if before.entry[s] is Entry.WAIT:
                report.add(f"{where}: seat {s} waits for the big blind but was dealt in")
            rule_forbids = cfg.button_rule == "moving" or owes is not Owes.NEW
            if rule_forbids and strictly_between(s, button, big, mx):
                report.add(f"{where}: seat {s} entered between the button and the big blind")
        for f in forced:
            if f.kind is Forced.DEAD and f.amount != cfg.small:
                report.add(f"{where}: dead blind {f}")
            if f.kind is Forced.POST and f.amount != cfg.big:
                report.add(f"{where}: entry post {f}")
        if previous is not None:
            self._check_blinds_moved(before, previous, last, hand, where, report)
        # each blind once per orbit over stable stretches
        stable = not restart and all(before.owes[s] is Owes.NOTHING for s in dealt)
        self.history.append((frozenset(dealt), small, big, stable))
        n = len(dealt)
        window = self.history[-n - 1 :]
        if len(window) == n + 1 and n >= 3 and all(h[0] == window[0][0] and h[3] for h in window):
            bb = [h[2] for h in window[1:]]
            sb = [h[1] for h in window[1:]]
            if sorted(bb) != sorted(dealt) or sorted(s for s in sb if s is not None) != sorted(
                dealt
            ):
                report.add(f"{where}: over {n} stable hands big blinds {bb}, small blinds {sb}")
        self._check_showdown(hand, where, report)
        self._check_rake(hand, where, report)
        if len(self.history) > 20:
            del self.history[:-12]
        # the PHH export replays to the same result (table-side folds and protections included)
        try:
            text = phh.dumps(record_from_hand(hand, seat_count=mx))
            again = replay(phh.loads(text))
        except Exception as error:
            report.add(f"{where}: PHH replay failed: {error}")
            return
        if sorted(zip(again.seats, again.stacks, strict=True)) != sorted(
            zip(hand.seats, hand.stacks, strict=True)
        ):
            report.add(f"{where}: PHH replay ends with other stacks")
        elif again.log != hand.log:
            report.add(f"{where}: PHH replay gives another log")

    def _check_blinds_moved(
        self,
        before: _Before,
        previous: _Previous,
        last: Any,
        hand: Hand,
        where: str,
        report: SoakReport,
    ) -> None:
        """The big blind, the small blind and the button against last hand's (R-BUTTON-2/3/4,
        R-BLIND-4, R-MISS-1/3/4/5), stated from the seats, not from the planner."""
        cfg, table = self.config, self.table
        mx = cfg.max_seats
        forced = hand.setup.forced
        big = next(f.seat for f in forced if f.kind is Forced.BIG_BLIND)
        small = next((f.seat for f in forced if f.kind is Forced.SMALL_BLIND), None)
        button = hand.setup.button
        dealt = set(hand.seats)
        dead = cfg.button_rule == "dead"
        was_heads_up = len(previous.dealt) == 2
        heads_up = len(dealt) == 2
        # nobody posts the big blind twice in a row
        if big == previous.big and before.accounts[big] == previous.big_account:
            report.add(f"{where}: {previous.big_account} posts the big blind twice in a row")
        in_game = before.in_game
        owing = before.present - in_game
        after_last = clockwise(previous.big, mx)
        new_posters = {
            s for s in owing if before.owes[s] is Owes.NEW and before.entry[s] is Entry.POST
        }
        # the player due for the big blind
        first_present = next(s for s in after_last if s in before.present)
        due: int | None
        allowed: set[int] = set()  # another seat the rules allow (a restart, below)
        if heads_up and not in_game:
            due = first_present  # a restart
        elif heads_up and len(in_game) == 1:
            # one player in the game: an owing player comes in on the big blind
            returning = (Owes.MISSED_SMALL, Owes.MISSED_BIG)
            due = next(
                (
                    s
                    for s in after_last
                    if s in owing and not (s == previous.big and before.owes[s] in returning)
                ),
                next(iter(in_game)),
            )
        elif heads_up:
            due = next(s for s in after_last if s in in_game)  # entering players wait
        elif dead:
            due = next(
                (s for s in after_last if s in in_game or (s in owing and s not in new_posters)),
                first_present,
            )
            if not in_game:
                allowed.add(first_present)  # a ring restarted
        elif not in_game:
            due = first_present  # a restart
        else:
            due = None  # the moving rule, below
        transition = (
            was_heads_up
            and not heads_up
            and previous.big in in_game
            and not (dead and new_posters)  # R-BLIND-5 under the dead rule
        )
        if due is None:
            # Moving (R-BUTTON-3 [001], R-MISS-5): the button to last hand's small blind if they
            # are in the game, else to the next player in the game; the small blind to the next
            # player in the game, the big blind to the next player present. Back from heads-up,
            # either that or the ring's return (below: the big blind after last hand's).
            start = previous.small if previous.small is not None else previous.button
            expected_button = (
                previous.small
                if previous.small in in_game
                else next(s for s in clockwise(start, mx) if s in in_game)
            )
            expected_small = next(s for s in clockwise(expected_button, mx) if s in in_game)
            expected_big = next(s for s in clockwise(expected_small, mx) if s in before.present)
            if expected_big == previous.big:
                # nobody posts the big blind twice: the blinds move on one player, the button
                # to the player in the game before the small blind
                expected_small = previous.big
                expected_button = next(
                    s for s in reversed(clockwise(expected_small, mx)[:-1]) if s in in_game
                )
                expected_big = next(s for s in clockwise(expected_small, mx) if s in before.present)
            chain = (button, small, big) == (expected_button, expected_small, expected_big)
            returned = transition and (small, big) == (previous.big, first_present)
            if not chain and not returned:
                report.add(
                    f"{where}: moving: button {button} small {small} big {big}, expected "
                    f"{expected_button}, {expected_small} and {expected_big}"
                )
            transition = returned
        elif big != due and big not in allowed:
            report.add(f"{where}: big blind at {big}, the player due for it is at {due}")
        # back to a ring after heads-up: the small blind is last hand's big blind and the button
        # the player before them (dead: the nearest occupied seat; moving: a player)
        if transition:
            occupied = [
                s for s in reversed(clockwise(previous.big, mx)[:-1]) if s in before.accounts
            ]
            if small != previous.big:
                report.add(
                    f"{where}: ring after heads-up: small blind {small}, expected {previous.big}"
                )
            elif dead and occupied and button != occupied[0]:
                report.add(f"{where}: ring after heads-up: button {button}, expected {occupied[0]}")
            elif any(strictly_between(s, button, small, mx) for s in dealt):
                report.add(
                    f"{where}: ring after heads-up: a player between the button and the small blind"
                )
        # the dead rule: the small blind is last hand's big blind or nobody; the button as the
        # table recorded the positions (R-BUTTON-3/4, R-ENTRY-5)
        if dead and not heads_up and in_game and not was_heads_up:
            if small is not None and small != previous.big:
                report.add(
                    f"{where}: dead rule: small blind {small}, last big blind {previous.big}"
                )
            moved_up = strictly_between(button, last.small, last.big, mx) or button == last.small
            if not moved_up and button != last.big:
                report.add(f"{where}: dead button at {button}, last positions {last}")
        if not dead and button not in dealt:
            report.add(f"{where}: moving button on {button}, not a player")
        # missed blinds stay owed: a sitting-out player the big blind passed owes a blind, and
        # nobody's debt went away without their being dealt in
        seats = table.seats
        for s, account in before.accounts.items():
            seat = seats.get(s)
            if seat is None or seat.account != account or s in dealt:
                continue
            passed = strictly_between(s, previous.big, big, mx) and s not in before.present
            if passed and strictly_between(s, button, big, mx) and not seat.owing:
                report.add(f"{where}: the big blind passed seat {s} sitting out: owes nothing")
            if before.owes[s] is not Owes.NOTHING and seat.owes is Owes.NOTHING:
                report.add(f"{where}: seat {s}'s debt ({before.owes[s].value}) went away")
            if before.owes[s] is Owes.MISSED_BIG and seat.owes is not Owes.MISSED_BIG:
                report.add(f"{where}: seat {s} owed ML, now {seat.owes.value}")

    def _check_showdown(self, hand: Hand, where: str, report: SoakReport) -> None:
        """R-SHOW-3: the last bettor of the final betting round shows first; without a bet in
        it, the first player who acted in it (never one who was all-in before it). Not checked
        when the board was run out (every hand is turned up then, R-ALLIN-3)."""
        order = hand.showdown_seats
        if len(order) < 2:
            return
        street = 0
        acted: dict[int, list[int]] = {}
        raised: dict[int, int] = {}
        for event in hand.events:
            if isinstance(event, BoardDealt):
                street = event.street
            elif isinstance(event, Checked | Called | Raised | Folded):
                acted.setdefault(street, []).append(event.seat)
                if isinstance(event, Raised):
                    raised[street] = event.seat
        if not acted or max(acted) != street:
            return  # the board was run out: every hand is turned up (R-ALLIN-3)
        final = street
        live = set(order)
        first = raised.get(final)
        if first is None or first not in live:
            first = next((s for s in acted[final] if s in live), None)
        if first is not None and order[0] != first:
            report.add(f"{where}: showdown order {order}, expected {first} first")

    def _check_rake(self, hand: Hand, where: str, report: SoakReport) -> None:
        """R-RAKE-3: the rate times the sum of the pots, rounded down, capped, once a hand."""
        rule = self.table._rake_rule
        results = hand.results
        taken = sum(r.rake for r in results)
        if rule is None or (rule.no_flop_no_drop and len(hand.board) < 3):
            expected = 0
        else:
            total = sum(r.amount for r in results)
            expected = total * rule.fraction.numerator // rule.fraction.denominator
            if rule.cap is not None:
                expected = min(expected, rule.cap)
        if taken != expected or any(r.rake > r.amount for r in results):
            report.add(f"{where}: rake {[r.rake for r in results]}, expected {expected} in all")


def simulate(
    tables: int,
    hands: int,
    seed: int,
    *,
    checks: bool = True,
    game: str | None = None,
    seats: int | None = None,
    button_rule: str | None = None,
    progress: Callable[[SoakReport], None] | None = None,
    every: int = 0,
) -> SoakReport:
    """Play ``hands`` hands in total over ``tables`` tables; see the module docstring.
    ``progress`` is called with the report so far every ``every`` hands (a long run then says
    how far it got).
    ``game`` (a preset name of ``feltroom.table.config``), ``seats`` (2..10) and ``button_rule``
    (``dead`` or ``moving``) put every table on those stakes, that size and that button rule; by
    default each table draws its own."""
    master = random.Random(seed)
    sims = [
        _Sim(k + 1, random.Random(master.getrandbits(64)), checks, game, seats, button_rule)
        for k in range(tables)
    ]
    report = SoakReport()
    start = time.perf_counter()
    idle = 0
    k = 0
    while report.hands < hands:
        sim = sims[k % tables]
        k += 1
        if sim.play_hand(report):
            idle = 0
            if progress is not None and every and report.hands % every == 0:
                report.seconds = time.perf_counter() - start
                progress(report)
        else:
            idle += 1
            if idle > 1000 * tables:
                report.add("no hand could start for a long time")
                break
    report.seconds = time.perf_counter() - start
    for sim in sims:
        total = (
            sim.table.chips_on_table()
            + sim.table.rake
            + sim.table.fees
            + sim.table.tax
            + sim.table.taken
        )
        if total != sim.table.brought:
            report.add(f"table {sim.index}: chips not conserved at the end")
    return report

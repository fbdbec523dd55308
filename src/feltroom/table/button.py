"""Where the button and the blinds go, who is dealt in and who posts what: the two button rules.

``plan_hand`` is a pure function of the seats and the previous hand's positions. The full
algorithm of each rule, with diagrams, is in docs/house-rules.md; in short:

``moving`` (R-BUTTON-3 [000][001][003][004]): the button goes to the player who posted the small
blind last hand (they have paid both blinds, [001]), or else to the next active player; the small
blind to the next active player (a sitting-out player passed there is marked ``MS``, R-MISS-5);
the big blind to the next active player or entering player (a sitting-out player passed is marked
``ML``, R-MISS-3). Entering and returning players may post anywhere except between the button and
the big blind (R-ENTRY-2, R-MISS-2).

``dead`` (R-BUTTON-3 [002]): the big blind moves to the next player due for it; the small blind
position is last hand's big-blind seat and the button last hand's small-blind position, even in
front of an empty seat or a sitting-out player (no small blind then, R-MISS-5 dead;
R-BUTTON-4). A new player who posts between the small blind and the big blind moves the button
back to last hand's big blind and the small blind is omitted (R-ENTRY-5); joining a heads-up game
with a post is the same case (R-BLIND-5).

Heads-up (either rule): the big blind goes to the player after last hand's big blind, the other
player has the button and posts the small blind (R-BLIND-4), so nobody posts the big blind twice
in a row; blinds passing a sitting-out player mark them as the dead rule would (R-MISS-1/4). With
one player in the game, an owing player comes in on the big blind. Back from heads-up (or a fresh
heads-up start) to a ring, under either rule: the big blind goes to the player after last hand's
big blind, the small blind to last hand's big blind, the button to the player before them
(arrangement ``from_heads_up``). Only when nobody present is in the game does it restart: every
present player is dealt in, the big blind again after last hand's (a fresh game: the game that
was owed has stopped).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from feltroom.rules import Forced, ForcedBet
from feltroom.table.seats import Entry, Owes, Seat

__all__ = ["Plan", "Positions", "clockwise", "plan_hand", "strictly_between"]


@dataclass(frozen=True, slots=True)
class Positions:
    """Where the button and blinds were in a hand: what the next hand is planned from.

    ``small`` is the small-blind position (dead rule: even when nobody posted there; moving rule:
    the seat that posted it, or ``None``).
    """

    button: int
    small: int | None
    big: int
    heads_up: bool = False
    """The hand was heads-up (the button posted the small blind): the next ring hand is planned
    from the big blind (``from_heads_up``)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """One hand's arrangement."""

    button: int
    small: int | None
    """The seat posting the small blind, or ``None`` (no small blind this hand)."""
    big: int
    forced: tuple[ForcedBet, ...]
    dealt: tuple[int, ...]
    missed: Mapping[int, Owes] = field(default_factory=dict)
    """Markers the blinds passing set on sitting-out players (``MS``/``ML``)."""
    positions: Positions = Positions(0, None, 0)
    fresh: bool = False
    heads_up: bool = False
    arrangement: str = "normal"
    """``normal``, ``heads_up``, ``fresh``, ``entry_post`` (R-ENTRY-5 / R-BLIND-5),
    ``fallback`` (dead rule: positions out of order, button on last hand's big blind) or
    ``catch_up`` (dead rule: the button moved up to the player right of the small blind)."""


def clockwise(start: int, max_seats: int) -> list[int]:
    """Seat numbers clockwise after ``start``, ending with ``start`` itself."""
    return [(start + k - 1) % max_seats + 1 for k in range(1, max_seats + 1)]


def strictly_between(seat: int, first: int, last: int, max_seats: int) -> bool:
    """Whether ``seat`` lies strictly after ``first`` and strictly before ``last`` clockwise."""
    for s in clockwise(first, max_seats):
        if s == last:
            return False
        if s == seat:
            return True
    return False


class _Planner:
    def __init__(
        self, rule: str, seats: Mapping[int, Seat], max_seats: int, small: int, big: int
    ) -> None:
        self.rule = rule
        self.seats = seats
        self.max_seats = max_seats
        self.sb_amount = small
        self.bb_amount = big
        self.missed: dict[int, Owes] = {}

    def in_game(self, s: int) -> bool:
        seat = self.seats.get(s)
        return seat is not None and seat.present and not seat.owing

    def mark(self, s: int, owes: Owes) -> None:
        seat = self.seats[s]
        current = self.missed.get(s, seat.owes)
        if current in (Owes.NEW, Owes.MISSED_BIG):
            return
        self.missed[s] = owes

    def walk_big(self, after: int, stop: int | None, count_new_posters: bool) -> int | None:
        """The big blind: the first seat after ``after`` whose player takes it; sitting-out players
        passed get ``ML`` (R-MISS-1/3). ``None`` when ``stop`` (or a full circle) comes first."""
        for s in clockwise(after, self.max_seats):
            if s == stop:
                return None
            seat = self.seats.get(s)
            if seat is None:
                continue
            if seat.present:
                if not seat.owing:
                    return s
                if seat.owes is Owes.NEW and seat.entry is Entry.POST and not count_new_posters:
                    continue
                return s
            self.mark(s, Owes.MISSED_BIG)
        return None

    def entry_posts(
        self, button: int, big: int, dealt: list[int], zone_end: int
    ) -> list[ForcedBet]:
        """Owing players who post to come in this hand (R-ENTRY-1a, R-MISS-1/2). New players
        strictly between the button and ``zone_end`` wait for the button to pass (R-ENTRY-2;
        under the dead rule the zone ends at the small blind, R-ENTRY-5 covers the rest)."""
        forced: list[ForcedBet] = []
        for s in clockwise(big, self.max_seats):
            seat = self.seats.get(s)
            if s == big or seat is None or not seat.present or not seat.owing:
                continue
            if seat.entry is not Entry.POST:
                continue
            if seat.owes is Owes.NEW:
                if zone_end != button and strictly_between(s, button, zone_end, self.max_seats):
                    continue  # R-ENTRY-2: wait for the button to pass
                forced.append(ForcedBet(s, Forced.POST, self.bb_amount))
            else:
                if strictly_between(s, button, big, self.max_seats):
                    continue  # R-MISS-2: not before the button has passed them
                if seat.owes is Owes.MISSED_BIG:
                    forced.append(ForcedBet(s, Forced.POST, self.bb_amount))
                forced.append(ForcedBet(s, Forced.DEAD, self.sb_amount))
            dealt.append(s)
        return forced

    def finish(
        self,
        button: int,
        small: int | None,
        big: int,
        dealt: list[int],
        extra: list[ForcedBet],
        positions: Positions,
        arrangement: str,
    ) -> Plan:
        forced = []
        if small is not None:
            forced.append(ForcedBet(small, Forced.SMALL_BLIND, self.sb_amount))
        forced.append(ForcedBet(big, Forced.BIG_BLIND, self.bb_amount))
        forced.extend(extra)
        order = {s: k for k, s in enumerate(clockwise(button, self.max_seats))}
        return Plan(
            button,
            small,
            big,
            tuple(forced),
            tuple(sorted(set(dealt), key=order.__getitem__)),
            dict(self.missed),
            positions,
            arrangement == "fresh",
            arrangement == "heads_up",
            arrangement,
        )

    # ------------------------------------------------------------------ the rules

    def heads_up(self, last: Positions) -> Plan | None:
        """Two players dealt in: the big blind to the first player after last hand's big blind
        (an owing player comes in there when only one player is in the game), the other player
        on the button with the small blind (R-BLIND-4). Sitting-out players the big blind passes
        miss it (``ML``); last hand's big blind sitting out misses the small blind (``MS``), as
        under the dead rule (R-MISS-1/4)."""
        self.missed = {}
        in_game = [s for s in self.seats if self.in_game(s)]
        if len(in_game) >= 2:
            candidates = in_game  # two in the game: entering players wait for a ring
        elif len(in_game) == 1:
            # One in the game: an owing player comes in on the big blind (R-ENTRY-1, R-MISS-1),
            # but not last hand's big blind back with a missed blind (they then take the button
            # and its small blind, which pays what they owe).
            candidates = [
                s
                for s, seat in self.seats.items()
                if seat.present and seat.owing and not (s == last.big and _returning(seat))
            ] or in_game
        else:
            return None
        big: int | None = None
        for s in clockwise(last.big, self.max_seats):
            if s in candidates:
                big = s
                break
            seat = self.seats.get(s)
            if seat is not None and not seat.present:
                self.mark(s, Owes.MISSED_BIG)
        if big is None:
            return None
        if len(in_game) >= 2:
            others = [s for s in in_game if s != big]
        elif big == in_game[0]:
            others = [last.big]
        else:
            others = in_game
        if len(others) != 1:
            return None
        button = others[0]
        previous = self.seats.get(last.big)
        if previous is not None and not previous.present:
            self.mark(last.big, Owes.MISSED_SMALL)
        return self.finish(
            button,
            button,
            big,
            [button, big],
            [],
            Positions(button, button, big, heads_up=True),
            "heads_up",
        )

    def from_heads_up(self, last: Positions) -> Plan | None:
        """A ring again after a heads-up hand (either rule): the big blind to the first player
        present after last hand's big blind (``ML`` to sitting-out players passed), the small
        blind to last hand's big blind, the button to the player before them: so the big blind
        moves one player, nobody posts it twice in a row and the button moves on (R-BUTTON-2,
        R-MISS-4). Under the dead rule the button is that player's seat whoever sits there (an
        owing player there posts to play, a sitting-out one leaves it dead); under the moving
        rule it goes to the nearest player before the small blind who is in the game or pays
        what they owe to take it (R-BUTTON-3 [001]). ``None`` when no ring can be formed."""
        self.missed = {}
        mx = self.max_seats
        small = last.big
        if not self.in_game(small):
            return None
        big = self.walk_big(small, small, True)
        if big is None:
            return None
        button: int | None = None
        for s in reversed(clockwise(small, mx)[:-1]):
            if s == big:
                break
            seat = self.seats.get(s)
            if seat is None:
                continue
            if self.rule == "dead" or self.in_game(s):
                button = s
                break
            if seat.present and _returning(seat) and seat.entry is Entry.POST:
                button = s  # pays both blinds now: may take the button [001]
                break
            if not seat.present:
                self.mark(s, Owes.MISSED_SMALL)  # passed by the small blind (R-MISS-5)
        if button is None:
            return None
        dealt = [s for s in self.seats if self.in_game(s)] + [big]
        zone_end = small if self.rule == "dead" else big
        extra = self.entry_posts(button, big, dealt, zone_end)
        if len(set(dealt)) < 3:
            return None
        return self.finish(
            button, small, big, dealt, extra, Positions(button, small, big), "from_heads_up"
        )

    def moving(self, last: Positions) -> Plan | None:
        self.missed = {}
        mx = self.max_seats
        if last.small is not None and self.in_game(last.small):
            button = last.small
        else:
            start = last.small if last.small is not None else last.button
            candidates = [s for s in clockwise(start, mx) if self.in_game(s)]
            if not candidates:
                return None
            button = candidates[0]
        small = None
        for s in clockwise(button, mx):
            if s == button:
                return None
            seat = self.seats.get(s)
            if seat is None:
                continue
            if self.in_game(s):
                small = s
                break
            if not seat.present:
                self.mark(s, Owes.MISSED_SMALL)  # R-MISS-5 (moving)
        assert small is not None
        big = self.walk_big(small, button, True)
        if big is None:
            return None
        if big == last.big:
            # A player back in the game between last hand's blinds would make last hand's big
            # blind post it again: the blinds move on one player instead (last hand's big blind
            # posts the small blind) and the button goes to the player before them.
            self.missed = {}
            small = last.big
            before = [s for s in reversed(clockwise(small, mx)[:-1]) if self.in_game(s)]
            big = self.walk_big(small, before[0] if before else small, True)
            if big is None or not before or before[0] == big:
                return None
            button = before[0]
        dealt = [s for s in self.seats if self.in_game(s)] + [big]
        extra = self.entry_posts(button, big, dealt, big)
        if len(set(dealt)) < 3:
            return None
        return self.finish(
            button, small, big, dealt, extra, Positions(button, small, big), "normal"
        )

    def dead(self, last: Positions) -> Plan | None:
        self.missed = {}
        mx = self.max_seats
        big = self.walk_big(last.big, last.big, False)
        if big is None:
            return None
        small_pos = last.big
        button = last.small if last.small is not None else last.button
        arrangement = "normal"
        order = clockwise(button, mx)
        if button in (small_pos, big) or order.index(small_pos) > order.index(big):
            button, arrangement = small_pos, "fallback"
        if arrangement == "normal":
            # Players in the game between the button and the small blind (after a heads-up
            # stretch, when the blinds jump over returning players): the button moves up to the
            # one nearest the small blind, so nobody is dealt in ahead of the blinds for free.
            skipped = []
            for s in clockwise(button, mx):
                if s == small_pos:
                    break
                if self.in_game(s):
                    skipped.append(s)
            if skipped:
                button, arrangement = skipped[-1], "catch_up"
        new_posters = [
            s
            for s, seat in self.seats.items()
            if seat.present
            and seat.owes is Owes.NEW
            and seat.entry is Entry.POST
            and strictly_between(s, small_pos, big, mx)
        ]
        if new_posters:
            button, arrangement = small_pos, "entry_post"  # R-ENTRY-5, R-BLIND-5
        small: int | None = None
        if arrangement in ("normal", "catch_up"):
            seat = self.seats.get(small_pos)
            if seat is not None and small_pos != big:
                if self.in_game(small_pos):
                    small = small_pos
                elif not seat.present:
                    self.mark(small_pos, Owes.MISSED_SMALL)
        dealt = [s for s in self.seats if self.in_game(s)] + [big]
        extra = self.entry_posts(button, big, dealt, small_pos)
        if len(set(dealt)) < 3:
            return None
        next_small = small_pos
        if arrangement not in ("normal", "catch_up"):
            # No small blind this hand: the next button goes to the dealt player nearest before
            # the big blind (the last entering poster), or stays where it is.
            next_small = button
            for s in clockwise(button, mx):
                if s == big:
                    break
                if s in dealt:
                    next_small = s
        return self.finish(
            button, small, big, dealt, extra, Positions(button, next_small, big), arrangement
        )

    def fresh(self, button: int) -> Plan:
        """The table's first hand: every present player dealt in, blinds left of ``button``."""
        self.missed = {}
        mx = self.max_seats
        present = [s for s in clockwise(button, mx) if (seat := self.seats.get(s)) and seat.present]
        if len(present) == 2:
            big = present[0] if present[0] != button else present[1]
            small = button
        else:
            small, big = present[0], present[1]
        return self.finish(
            button,
            small,
            big,
            present,
            [],
            Positions(button, small, big, heads_up=len(present) == 2),
            "fresh",
        )

    def restart(self, last: Positions) -> Plan:
        """Nobody present is in the game (everyone who played left or sat out): the game starts
        again with every present player dealt in. The big blind goes to the first present
        player after last hand's big blind (sitting-out players passed miss it), the small blind
        and the button to the players before it."""
        self.missed = {}
        mx = self.max_seats
        big = self.walk_big(last.big, last.big, True)
        present = [
            s for s in clockwise(last.big, mx) if (seat := self.seats.get(s)) and seat.present
        ]
        if big is None:
            big = present[0]
        before = [s for s in reversed(clockwise(big, mx)[:-1]) if s in present]
        if len(present) == 2:
            return self.finish(
                before[0],
                before[0],
                big,
                present,
                [],
                Positions(before[0], before[0], big, heads_up=True),
                "fresh",
            )
        small, button = before[0], before[1]
        return self.finish(button, small, big, present, [], Positions(button, small, big), "fresh")


def plan_hand(
    rule: str,
    seats: Mapping[int, Seat],
    max_seats: int,
    small_blind: int,
    big_blind: int,
    last: Positions | None,
    first_button: int | None = None,
) -> Plan | None:
    """The next hand's arrangement, or ``None`` when fewer than two players are present.

    ``last`` is the previous hand's positions (``None`` for a table's first hand, which then
    needs ``first_button``: the seat R-BUTTON-1 chose).
    """
    present = [s for s, seat in seats.items() if seat.present]
    if len(present) < 2:
        return None
    planner = _Planner(rule, seats, max_seats, small_blind, big_blind)
    if last is None:
        if first_button is None or first_button not in present:
            raise ValueError("the first hand needs the first button's seat (a present player)")
        return planner.fresh(first_button)
    plan = None
    if last.heads_up and not (rule == "dead" and _new_posters(seats)):
        # back to a ring after a heads-up hand; under the dead rule a new player who posts to
        # join two who play is R-BLIND-5, planned by the dead rule itself
        plan = planner.from_heads_up(last)
    if plan is None:
        plan = planner.moving(last) if rule == "moving" else planner.dead(last)
    if plan is None:
        plan = planner.heads_up(last)
    if plan is None:
        plan = planner.restart(last)
    return plan


def _new_posters(seats: Mapping[int, Seat]) -> bool:
    return any(
        seat.present and seat.owes is Owes.NEW and seat.entry is Entry.POST
        for seat in seats.values()
    )


def _returning(seat: Seat) -> bool:
    """A player back with a missed blind (``MS``/``ML``)."""
    return seat.owes is Owes.MISSED_SMALL or seat.owes is Owes.MISSED_BIG

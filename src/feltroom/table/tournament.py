"""A tournament table: the cash table's hand after hand, driven by a tournament director.

``TournamentTable`` is a ``Table`` in ``tournament`` mode (sans-I/O like it; time is ``now``).
The director (``feltroom.tournament``) drives it only through the commands below, between hands,
and reads what it reports (``HandStarted``, ``HandFinished``):

- ``seat_player`` / ``remove_player``: a player comes with a tournament stack and leaves with it
  (a move, a broken table, an elimination); there are no buy-in bounds (R-TOURN-3, R-TOURN-15).
  A player who comes in is dealt in at once without any post, except when the seat lies between
  the small blind and the button: then they wait until the button has passed (R-TOURN-3,
  R-TOURN-8).
- ``hold`` / ``release``: the deal waits (balancing, hand-for-hand, breaks; R-TOURN-7/9/12).
- ``set_level``: the blinds, the big-blind ante and the Fixed-Limit bets of the next hand dealt;
  a hand in progress finishes at the old level. The big blind who cannot cover both posts the
  blind before the ante (R-TOURN-5).
- ``new_button_draw``: the final table's new high-card draw, with no blind owed (R-TOURN-8).

Every tournament table plays the ``dead`` button (R-TOURN-4), draws its first button by a high
card with ties broken by suit (spades, hearts, diamonds, clubs), never protects a player
(``protect_on = never``) and times out with ``check_or_fold``: a player who times out is *away*
(R-TOURN-6), dealt in, posting, folded at once at their turn (checked when free) until they say
they are back. The cash rules of R-TOURN-15 do not apply: ``sit``, ``add_chips``,
``change_seat``, ``leave`` and the waiting list are refused; nobody sits out (``sit_out`` makes a
player away) and a seat is never released by the clock (R-SIT-2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from feltroom.cards import Card, Suit
from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import Forced, ForcedBet
from feltroom.shuffle import DeckSource
from feltroom.table.button import Plan, strictly_between
from feltroom.table.config import TableConfig
from feltroom.table.events import CameBack, FirstButtonDrawn, TableEvent, WentAway
from feltroom.table.seats import Entry, Owes
from feltroom.table.table import Table

__all__ = ["Level", "TournamentTable", "ante_for", "tournament_table_config"]

_SUIT_RANK = {Suit.SPADES: 3, Suit.HEARTS: 2, Suit.DIAMONDS: 1, Suit.CLUBS: 0}


@dataclass(frozen=True, slots=True)
class Level:
    """One level of a blind schedule (R-TOURN-5): the blinds, the big-blind ante, and for
    Fixed-Limit the small bet (the big blind, R-BLIND-2) and the big bet (default twice it)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    big_bet: int | None = None

    def __post_init__(self) -> None:
        for name in ("small_blind", "big_blind", "ante"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidConfiguration(
                    f"{name}: {value!r} is not valid; valid values are whole numbers from 0"
                )
        if self.big_blind < 1 or not 1 <= self.small_blind <= self.big_blind:
            raise InvalidConfiguration(
                f"blinds {self.small_blind}/{self.big_blind} are not valid; valid values are "
                "1 <= small blind <= big blind"
            )
        if self.big_bet is not None and self.big_bet < self.big_blind:
            raise InvalidConfiguration(
                f"big_bet: {self.big_bet} is not valid; valid values are at least the small bet "
                f"{self.big_blind}"
            )

    @property
    def small_bet(self) -> int:
        """Fixed-Limit: the small bet is the big blind (R-BLIND-2)."""
        return self.big_blind

    @property
    def upper(self) -> int:
        """Fixed-Limit: the big bet."""
        return 2 * self.big_blind if self.big_bet is None else self.big_bet

    def __str__(self) -> str:
        text = f"{self.small_blind}/{self.big_blind}"
        if self.ante:
            text += f" ante {self.ante}"
        return text


def ante_for(level: Level, big_blind_stack: int) -> int:
    """The big-blind ante actually due from a big blind with ``big_blind_stack`` chips: the
    blind comes first, the ante from what is left (R-TOURN-5)."""
    return max(0, min(level.ante, big_blind_stack - level.big_blind))


def tournament_table_config(structure: str, level: Level, max_seats: int) -> TableConfig:
    """The configuration of a tournament table at ``level``: tournament mode (no rake, R-RAKE-2;
    the Fixed-Limit cap heads-up, R-LIMIT-3), play chips, the dead button with a high-card draw
    (R-TOURN-4), ``check_or_fold`` timeouts and no protection (R-TOURN-6)."""
    common = TableConfig(
        structure="no_limit",
        big_blind=level.big_blind,
        small_blind=level.small_blind,
        name="Tournament",
        money="play",
        exponent=0,
        max_seats=max_seats,
        first_button="high_card",
        button_rule="dead",
        timeout_action="check_or_fold",
        protect_on="never",
        mode="tournament",
        min_buy_in=1,
    )
    if structure == "fixed_limit":
        return common.with_(
            structure=structure,
            big_blind=None,
            lower=level.big_blind,
            upper=level.upper,
            small_blind=level.small_blind,
        )
    return common.with_(structure=structure)


class TournamentTable(Table):
    """One table of a tournament. See the module docstring."""

    def __init__(
        self, config: TableConfig, level: Level, *, deck_source: DeckSource | None = None
    ) -> None:
        if not config.tournament:
            raise InvalidConfiguration("mode: a tournament table needs mode 'tournament'")
        wrong = {
            "button_rule": (config.button_rule, "dead"),
            "protect_on": (config.protect_on, "never"),
            "timeout_action": (config.timeout_action, "check_or_fold"),
        }
        for name, (value, valid) in wrong.items():
            if value != valid:
                raise InvalidConfiguration(
                    f"{name}: {value!r} is not valid at a tournament table; valid values are "
                    f"{valid} (R-TOURN-4, R-TOURN-6)"
                )
        if config.tax_threshold is not None:
            raise InvalidConfiguration(
                "tax_threshold: tournament hands are not taxed (R-TOURN-15); valid values are None"
            )
        super().__init__(config, deck_source=deck_source, may_protect=lambda account: False)
        self.held = False
        self.level = level
        self._next_level: Level | None = None
        self._apply(level)

    # ------------------------------------------------------------------ director's commands

    def seat_player(self, account: str, seat: int, stack: int, now: float) -> list[TableEvent]:
        """Seat a player with their tournament ``stack`` (a draw, a move, a late entry): dealt in
        at once without a post, except between the small blind and the button (R-TOURN-3)."""
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise IllegalAction(f"a tournament stack is a positive whole number, not {stack!r}")
        self._check_vacant(account, seat)
        return self._occupy(account, seat, stack, now, Entry.POST, True)

    def remove_player(self, seat: int, now: float, reason: str) -> tuple[int, list[TableEvent]]:
        """Take a player off the table with their chips (a move, a broken table, an elimination):
        only when they are not in the hand in progress. Returns the chips and the events."""
        player = self._seat(seat)
        if self.in_hand and self.hand is not None and seat in self.hand.seats:
            raise IllegalAction(f"seat {seat} is in the hand in progress: remove after the hand")
        chips = player.stack
        return chips, self._release(player, reason, now)

    def hold(self) -> None:
        """Deal no new hand until ``release`` (a hand in progress finishes)."""
        self.held = True

    def release(self) -> None:
        self.held = False

    def set_level(self, level: Level) -> None:
        """The level of the next hand dealt here; a hand in progress finishes at its level
        (R-TOURN-5)."""
        self._next_level = level

    def new_button_draw(self) -> None:
        """Between hands: the next hand starts afresh with a high-card draw for the button and
        no blind owed by anyone (the final table, R-TOURN-8)."""
        self._between_hands("a new button draw is made")
        self.last = None
        for player in self.seats.values():
            player.owes = Owes.NOTHING

    def set_away(self, seat: int) -> list[TableEvent]:
        """The player is away (R-TOURN-6), by choice."""
        player = self._seat(seat)
        if player.away:
            return []
        player.away = True
        return [WentAway(seat, "chosen")]

    def back(self, seat: int) -> list[TableEvent]:
        """The away player is back (R-TOURN-6): they act on their own turns again."""
        player = self._seat(seat)
        if not player.away:
            return []
        player.away = False
        return [CameBack(seat)]

    # ------------------------------------------------------- cash rules that do not apply

    def _not_here(self, what: str) -> IllegalAction:
        return IllegalAction(
            f"{what} does not apply at a tournament table (R-TOURN-15): players are seated by "
            "the tournament (R-TOURN-3, R-TOURN-8) and tournament chips stay in play"
        )

    def sit(
        self,
        account: str,
        seat: int,
        buy_in: int,
        now: float,
        *,
        entry: Entry = Entry.POST,
        auto_post: bool = True,
    ) -> list[TableEvent]:
        raise self._not_here("a buy-in (R-BUYIN-1, R-ENTRY-1)")

    def add_chips(self, seat: int, amount: int, now: float) -> list[TableEvent]:
        raise self._not_here("adding chips (R-BUYIN-3)")

    def verify_add_chips(self, seat: int, amount: int) -> None:
        raise self._not_here("adding chips (R-BUYIN-3)")

    def change_seat(
        self, seat: int, new_seat: int, now: float, entry: Entry = Entry.POST
    ) -> list[TableEvent]:
        raise self._not_here("changing seats (R-ENTRY-4)")

    def leave(self, seat: int, now: float) -> list[TableEvent]:
        raise self._not_here("leaving with chips (R-SIT-1)")

    def join_waiting_list(self, account: str, now: float) -> list[TableEvent]:
        raise self._not_here("the waiting list")

    def restore_seat(
        self, account: str, seat: int, stack: int, now: float, *, sitting_out: bool
    ) -> list[TableEvent]:
        raise self._not_here("restoring a cash seat")

    def set_auto_post(self, seat: int, on: bool, now: float | None = None) -> list[TableEvent]:
        if not on:
            raise IllegalAction(
                "blinds and antes are always posted at a tournament table (R-TOURN-6)"
            )
        return []

    def sit_out(self, seat: int, now: float, *, reason: str = "chosen") -> list[TableEvent]:
        """Nobody sits out of a tournament: the player is away instead (R-TOURN-6)."""
        return self.set_away(seat)

    def sit_in(self, seat: int, now: float, entry: Entry = Entry.POST) -> list[TableEvent]:
        return self.back(seat)

    # ------------------------------------------------------------------ the deal

    def can_start(self) -> bool:
        return not self.held and super().can_start()

    def start_hand(self, now: float) -> list[TableEvent]:
        if self.held:
            raise IllegalAction(
                "the deal is held by the tournament (balancing, hand-for-hand or a break)"
            )
        return super().start_hand(now)

    def _apply(self, level: Level) -> None:
        cfg = self.config
        if cfg.structure == "fixed_limit":
            cfg = cfg.with_(lower=level.big_blind, upper=level.upper, small_blind=level.small_blind)
        else:
            cfg = cfg.with_(big_blind=level.big_blind, small_blind=level.small_blind)
        self.config = cfg
        self._structure = cfg.engine_structure()
        self.level = level

    def _plan(self) -> tuple[Plan | None, list[TableEvent]]:
        if self._next_level is not None:
            self._apply(self._next_level)
            self._next_level = None
        last = self.last
        waiting = []
        for number, player in self.seats.items():
            if player.owes is not Owes.NEW:
                continue
            if (
                last is not None
                and not last.heads_up
                and strictly_between(
                    number,
                    last.small if last.small is not None else last.button,
                    last.big,
                    self.config.max_seats,
                )
            ):
                # R-TOURN-3: between the next hand's button (last hand's small blind) and its
                # small blind (last hand's big blind) the newcomer waits for the button
                player.entry = Entry.WAIT
                waiting.append(player)
            else:
                # dealt in at once, without a post. After a heads-up hand the next button is the
                # player nearest before last hand's big blind, whoever sits there: no seat lies
                # between the button and the small blind, so every newcomer is dealt in (the
                # one there takes the button; the blinds go on as due)
                player.owes = Owes.NOTHING
        playing = [p for p in self.seats.values() if p.present and not p.owing]
        if waiting and len(playing) < 2:
            # no ring to wait for: the hand is heads-up with the newcomer, who is dealt in
            # without a post, the big blind going on to the player due for it (R-TOURN-4)
            for player in waiting:
                player.owes = Owes.NOTHING
        plan, events = super()._plan()
        if plan is None or not self.level.ante:
            return plan, events
        ante = ante_for(self.level, self.seats[plan.big].stack)
        if not ante:
            return plan, events
        bet = ForcedBet(plan.big, Forced.ANTE, ante)  # the big-blind ante (R-TOURN-5)
        return replace(plan, forced=(*plan.forced, bet)), events

    def _first_button(self) -> tuple[int, list[TableEvent]]:
        """R-TOURN-4: a high card for each player; ties by suit (spades, hearts, diamonds,
        clubs)."""
        present = sorted(s for s, seat in self.seats.items() if seat.present)
        deck = self._decks.next_deck()
        cards: tuple[tuple[int, Card], ...] = tuple(zip(present, deck, strict=False))
        best = max(cards, key=lambda sc: (sc[1].rank, _SUIT_RANK[sc[1].suit]))
        return best[0], [FirstButtonDrawn(cards, best[0])]

    def _timeout(self, seat: int, now: float) -> list[TableEvent]:
        """R-TOURN-6: one timeout (``check_or_fold``) makes the player away."""
        player = self.seats[seat]
        events: list[TableEvent] = []
        if not player.away:
            player.away = True
            events.append(WentAway(seat, "timeout"))
        return events + super()._timeout(seat, now)

    def _finish(self, now: float) -> list[TableEvent]:
        self._timed_out = set()  # away instead of sitting out (R-TOURN-6, not R-SIT-2)
        events = super()._finish(now)
        for player in self.seats.values():
            if player.sitting_out:
                player.sat_out_at = None  # out of chips: waits for the director, never released
        return events

"""One hand of Texas Hold'em: the one mutable aggregate, with an append-only log.

A ``Hand`` takes the betting structure, the players, the button, the forced bets, the rake rule
and a deck; it posts the forced bets and deals at once, then takes one action at a time and
returns the events each step caused (sans-I/O: no clock, no randomness, no I/O).

Players are held by *position*: 0 is the first player to the button's left (the first dealt),
``n - 1`` the button or the last player before it. Everything per player is a plain list of ints
or bools indexed by position, so that the hot path (legal options, applying an action) does no
allocation beyond the events it returns.

Dealing order (fixed; the PHH replayer builds decks to match, R-DEAL-1..3): hole cards one at a
time clockwise from the button's left, two rounds: deck position ``k * n + i`` for round ``k`` and
position ``i``; then burn ``2n``, flop ``2n+1..2n+3``, burn ``2n+4``, turn ``2n+5``, burn
``2n+6``, river ``2n+7``. A board run twice (R-HOME-4) deals its second run from ``2n+8`` on,
in the same pattern for the streets still to come: burn, flop (three cards), burn, turn, burn,
river; so the deck holds at least ``2n+16`` cards when the table may run it twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import add, or_

from feltroom.cards import Card
from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.evaluate import evaluate7
from feltroom.rules.actions import (
    Action,
    Call,
    Check,
    Fold,
    Forced,
    ForcedBet,
    LegalActions,
    Protect,
    RaiseTo,
    RunOut,
    Show,
)
from feltroom.rules.events import (
    BoardDealt,
    Called,
    CardsMucked,
    CardsShown,
    Checked,
    Event,
    Folded,
    HandEnded,
    HoleCardsDealt,
    Posted,
    PotAwarded,
    Protected,
    Raised,
    RunsChosen,
    UncalledBetReturned,
)
from feltroom.rules.pots import PotResult, RakeRule, build_pots, rake_pots, split_pot
from feltroom.rules.showdown import showdown_order
from feltroom.rules.structure import Structure
from feltroom.rules.views import HandView, view_for

__all__ = ["OVER", "Hand", "HandSetup", "LogEntry", "blinds"]

LogEntry = tuple[int, Action]
"""One log entry: the acting seat and the action (for ``Protect``/``Show``, the seat named)."""

_Runs = tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
_BURN_OFFSETS = (0, 0, 4, 6)
OVER = 4
"""``street`` once the hand has ended."""
_ANTE_KIND, _DEAD_KIND, _STRADDLE_KIND = Forced.ANTE, Forced.DEAD, Forced.STRADDLE
_BIG_BLIND_KIND, _SMALL_BLIND_KIND = Forced.BIG_BLIND, Forced.SMALL_BLIND
# Positions clockwise from ``first`` (``_ROTATIONS[n][first]``) and clockwise after ``p``
# without it (``_AFTER[n][p]``), for every number of players: queues are built from these.
_ROTATIONS = [[(*range(first, n), *range(first)) for first in range(n)] for n in range(11)]
_AFTER = [[(*range(p + 1, n), *range(p)) for p in range(n)] for n in range(11)]
_CALL, _CHECK, _FOLD = Call(), Check(), Fold()


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything a hand starts from; with the log it reproduces the hand exactly."""

    structure: Structure
    players: tuple[tuple[int, int], ...]
    button: int
    forced: tuple[ForcedBet, ...]
    deck: tuple[Card | None, ...]
    rake: RakeRule | None = None
    show_losing: frozenset[int] = frozenset()
    straddle_full_raise: bool = True
    run_twice: bool = False
    """The table may run the board twice (R-HOME-4): the hand waits for ``run_out``."""


def blinds(
    players: Sequence[tuple[int, int]],
    button: int,
    small_blind: int,
    big_blind: int,
    ante: int = 0,
) -> tuple[ForcedBet, ...]:
    """The usual forced bets for the players (seat, stack) and the button: antes from everyone,
    the small blind left of the button and the big blind next (R-BLIND-1); heads-up the button
    posts the small blind (R-BLIND-4). A zero small blind is omitted."""
    seats = _clockwise([seat for seat, _ in players], button)
    forced = [_forced_bet(_ANTES, seat, _ANTE_KIND, ante) for seat in seats] if ante else []
    if len(seats) == 2:
        sb_seat, bb_seat = seats[1], seats[0]
    else:
        sb_seat, bb_seat = seats[0], seats[1]
    if small_blind:
        forced.append(_forced_bet(_SMALL_BLINDS, sb_seat, _SMALL_BLIND_KIND, small_blind))
    forced.append(_forced_bet(_BIG_BLINDS, bb_seat, _BIG_BLIND_KIND, big_blind))
    return tuple(forced)


# Equal forced bets are shared (immutable values): one cache per kind, keyed by (seat, amount).
_ANTES: dict[tuple[int, int], ForcedBet] = {}
_SMALL_BLINDS: dict[tuple[int, int], ForcedBet] = {}
_BIG_BLINDS: dict[tuple[int, int], ForcedBet] = {}


def _forced_bet(
    cache: dict[tuple[int, int], ForcedBet], seat: int, kind: Forced, amount: int
) -> ForcedBet:
    """``ForcedBet(seat, kind, amount)``, shared with equal ones made before (``cache`` holds
    that kind's)."""
    key = (seat, amount)
    bet = cache.get(key)
    if bet is None:
        bet = ForcedBet(seat, kind, amount)
        if len(cache) < 4096:
            cache[key] = bet
    return bet


def _clockwise(seats: Sequence[int], button: int) -> list[int]:
    """Seats in dealing order: increasing seat numbers, starting left of the button."""
    ordered = sorted(seats)
    for k, seat in enumerate(ordered):
        if seat > button:
            return ordered[k:] + ordered[:k] if k else ordered
    return ordered


class Hand:
    """One hand from the forced bets to the awarded pots.

    ``act(action)`` verifies and applies the action of the player to act and returns the events;
    an illegal action raises ``IllegalAction`` (with the legal options) and changes nothing.
    ``legal_actions()`` gives the exact options; ``view_for(seat)`` what a seat may see.
    """

    __slots__ = (
        "_acted",
        "_aggressor",
        "_allin",
        "_bets",
        "_board2",
        "_bounds",
        "_bounds_at",
        "_button",
        "_capped",
        "_complete",
        "_contrib",
        "_count",
        "_dead",
        "_deck",
        "_events",
        "_fl_level",
        "_folded",
        "_forced",
        "_hole",
        "_in_pot",
        "_level",
        "_live",
        "_log",
        "_mucked",
        "_n",
        "_players",
        "_pos",
        "_pots_won",
        "_protected",
        "_queue",
        "_raise_size",
        "_rake",
        "_rake_rule",
        "_results",
        "_round_first",
        "_run_twice",
        "_runout",
        "_runs",
        "_runs_pending",
        "_seats",
        "_setup",
        "_shared",
        "_show_losing",
        "_showdown_seats",
        "_shown",
        "_stacks",
        "_straddle_full_raise",
        "_street",
        "_structure",
        "_winner",
        "board",
    )

    def __init__(
        self,
        structure: Structure,
        players: Sequence[tuple[int, int]],
        button: int,
        forced: Iterable[ForcedBet],
        deck: Sequence[Card | None],
        rake: RakeRule | None = None,
        *,
        show_losing: Iterable[int] = (),
        straddle_full_raise: bool = True,
        run_twice: bool = False,
    ) -> None:
        players = tuple(players)
        forced = tuple(forced)
        cards = tuple(deck)
        # ``setup`` (a frozen HandSetup) is built on first use: the hot path never needs it.
        self._setup: HandSetup | None = None
        self._players = players
        self._button = button
        self._forced = forced
        self._deck = cards
        self._rake_rule = rake
        self._show_losing = frozenset(show_losing)
        self._straddle_full_raise = straddle_full_raise
        self._run_twice = run_twice
        self._runs_pending = False
        self._runs = 0
        self._board2: list[Card | None] | None = None
        self._shared = 0
        self._structure = structure
        stack_of = dict(players)
        n = len(stack_of)
        if n != len(players):
            raise InvalidConfiguration("each seat may hold only one player")
        if not 2 <= n <= 10:
            raise InvalidConfiguration(f"a hand has 2 to 10 players (R-GAME-3), not {n}")
        seats = _clockwise(list(stack_of), button)
        self._n = n
        self._seats = tuple(seats)
        self._pos = dict(zip(seats, range(n), strict=True))
        self._stacks = [stack_of[seat] for seat in seats]
        if min(self._stacks) <= 0:
            raise InvalidConfiguration("every player starts with a positive stack")
        self._bets = [0] * n
        self._contrib = [0] * n
        self._folded = [False] * n
        self._allin = [False] * n
        self._protected = [False] * n
        self._acted = [False] * n
        self._dead = 0
        self._in_pot = 0
        self._rake = 0
        self._live = n
        self._log: list[LogEntry] = []
        self._events: list[Event] = []
        self._results: tuple[PotResult, ...] | None = ()
        self._pots_won: list[
            tuple[int, int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], _Runs]
        ] = []
        self._winner: int | None = None
        self._runout = False
        self._shown: set[int] = set()
        self._mucked: set[int] = set()
        self._showdown_seats: tuple[int, ...] = ()
        self._aggressor: int | None = None
        self._capped = False
        self._count = 0
        self._fl_level = 0
        self._raise_size = 0
        self._level = 0
        self._street = 0
        self._queue: list[int] = []
        self._round_first = 0
        self._bounds_at = -1
        self._bounds: tuple[int, int] | None = None
        self.board: list[Card | None] = []

        if len(cards) < 2 * n + 8:
            raise InvalidConfiguration(
                f"the deck must hold at least {2 * n + 8} cards for {n} players, not {len(cards)}"
            )
        indices = {card.index for card in cards if card is not None}
        # every card known and distinct (the usual deck), else count the known cards
        self._complete = len(indices) == len(cards)
        if not self._complete and len(indices) != sum(card is not None for card in cards):
            raise InvalidConfiguration("a card appears twice in the deck")
        self._hole = list(zip(cards[:n], cards[n : 2 * n], strict=True))

        self._post_forced(forced)
        self._events.append(HoleCardsDealt(self._seats))
        self._begin_preflop(forced)

    @property
    def setup(self) -> HandSetup:
        """Everything the hand started from; with ``log`` it reproduces the hand."""
        setup = self._setup
        if setup is None:
            setup = self._setup = HandSetup(
                self._structure,
                self._players,
                self._button,
                self._forced,
                self._deck,
                self._rake_rule,
                self._show_losing,
                self._straddle_full_raise,
                self._run_twice,
            )
        return setup

    # ------------------------------------------------------------------ setup

    def _post_forced(self, forced: tuple[ForcedBet, ...]) -> None:
        pos = self._pos
        dead_money = False
        for f in forced:
            if f.seat not in pos:
                raise InvalidConfiguration(f"forced bet for seat {f.seat}, which has no player")
            if f.amount < 0:
                raise InvalidConfiguration(f"forced bet amounts are >= 0, not {f.amount}")
            if f.kind is _ANTE_KIND or f.kind is _DEAD_KIND:
                dead_money = True
        if dead_money:
            # Antes first, then dead blinds, then the live blinds and posts in the order given.
            forced = (
                *[f for f in forced if f.kind is _ANTE_KIND],
                *[f for f in forced if f.kind is _DEAD_KIND],
                *[f for f in forced if f.kind is not _ANTE_KIND and f.kind is not _DEAD_KIND],
            )
        stacks, contrib, bets, events = self._stacks, self._contrib, self._bets, self._events
        allin = self._allin
        dead = in_pot = 0
        for f in forced:
            p = pos[f.seat]
            stack = stacks[p]
            amount = f.amount
            if stack < amount:
                amount = stack
            if not amount:
                continue
            stack -= amount
            stacks[p] = stack
            in_pot += amount
            kind = f.kind
            if kind is _DEAD_KIND or kind is _ANTE_KIND:
                # Dead money (antes, dead blinds): straight into the main pot, not part of the
                # player's bet or contribution (R-BLIND-1, R-MISS-1/2; see build_pots).
                dead += amount
            else:
                contrib[p] += amount
                bets[p] += amount
            if not stack:
                allin[p] = True
            events.append(Posted(f.seat, kind, amount, not stack))
        self._dead = dead
        self._in_pot = in_pot

    def _begin_preflop(self, forced: tuple[ForcedBet, ...]) -> None:
        pos = self._pos
        # The live forced bets (blinds, posts, straddles): the largest nominal one is the level;
        # action starts left of the last big blind or straddle (else of the last live bet).
        level = top = 0
        straddled = False
        opener = last = -1
        for f in forced:
            kind = f.kind
            amount = f.amount
            if amount <= 0 or kind is _ANTE_KIND or kind is _DEAD_KIND:
                continue
            if amount > level:
                level = amount
            p = pos[f.seat]
            if p > last:
                last = p
            if kind is _STRADDLE_KIND:
                straddled = True
                if p > opener:
                    opener = p
            else:
                if amount > top:
                    top = amount
                if kind is _BIG_BLIND_KIND and p > opener:
                    opener = p
        bets = self._bets
        most = max(bets)
        self._level = level if level > most else most
        size = self._structure.min_bet(0)
        count = 1 if top else 0
        if straddled:
            # R-HOME-3: a straddle counts as the current bet and its size as the last full raise
            # (after a straddle of 4 at big blind 2 the minimum raise is to 8). Replays of
            # recorded hands that follow PokerKit/PHH (``straddle_full_raise=False``) take the
            # straddle's increment over the bet before it instead (a raise to 6 there).
            full = self._straddle_full_raise
            for f in forced:
                if f.kind is _STRADDLE_KIND and f.amount > top:
                    size = max(size, f.amount if full else f.amount - top)
                    top = f.amount
                    count += 1
        self._raise_size = size if level else 0
        self._fl_level = level
        self._count = count
        if opener < 0:
            opener = last
        n = self._n
        self._start_queue((opener + 1) % n if opener >= 0 else 0)
        # A player who has already put in as much as any other player in the hand could ever
        # match has no decision to make (R-ALLIN-3: betting cannot continue for them). Nobody
        # has folded yet.
        cover = sorted(map(add, self._stacks, bets))[-2]
        queue = self._queue = [p for p in self._queue if bets[p] < cover]
        if not queue or (len(queue) == 1 and bets[queue[0]] >= self._level):
            self._end_round()

    def _start_queue(self, first: int) -> None:
        folded, allin = self._folded, self._allin
        self._queue = [p for p in _ROTATIONS[self._n][first] if not folded[p] and not allin[p]]
        self._round_first = first

    # ------------------------------------------------------------------ queries

    @property
    def seats(self) -> tuple[int, ...]:
        """Seat numbers in position order (first left of the button first)."""
        return self._seats

    @property
    def street(self) -> int:
        """0 pre-flop, 1 flop, 2 turn, 3 river, 4 once the hand is over."""
        return self._street

    @property
    def is_over(self) -> bool:
        return self._street == OVER

    @property
    def to_act(self) -> int | None:
        """The seat of the player to act, or ``None`` when the hand is over or waits for the
        run-out decision (``runs_pending``)."""
        queue = self._queue
        return self._seats[queue[0]] if queue else None

    @property
    def runs_pending(self) -> bool:
        """Betting cannot continue before the river and the table may run it twice: the hand
        waits for ``run_out(1 or 2)`` (R-HOME-4)."""
        return self._runs_pending

    @property
    def runs(self) -> int:
        """How many times the rest of the board was dealt once chosen (R-HOME-4): 1 or 2; 0
        before a run-out decision (and in hands that never needed one)."""
        return self._runs

    @property
    def second_board(self) -> tuple[Card | None, ...]:
        """The second run's whole board (the cards dealt before the run-out, then the second
        run's), once the board was run twice (R-HOME-4); empty otherwise."""
        board2 = self._board2
        return () if board2 is None else tuple(board2)

    @property
    def boards(self) -> tuple[tuple[Card | None, ...], ...]:
        """The board of each run: one, or two when the board was run twice."""
        board2 = self._board2
        return (tuple(self.board),) if board2 is None else (tuple(self.board), tuple(board2))

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips behind (not in the pot), in position order."""
        return tuple(self._stacks)

    def stack_of(self, seat: int) -> int:
        return self._stacks[self._position(seat)]

    @property
    def bets(self) -> tuple[int, ...]:
        """Chips bet this round, in position order."""
        return tuple(self._bets)

    @property
    def contributions(self) -> tuple[int, ...]:
        """Live chips each player has put in this hand, in position order: bets, blinds and
        posts; not antes or dead blinds (``dead_money``)."""
        return tuple(self._contrib)

    @property
    def folded(self) -> tuple[bool, ...]:
        return tuple(self._folded)

    @property
    def all_in(self) -> tuple[bool, ...]:
        """Players who can no longer act: no chips behind, or protected (R-ALLIN-5)."""
        return tuple(self._allin)

    @property
    def pot_total(self) -> int:
        """Every chip in the middle: collected pots, dead money and this round's bets."""
        return self._in_pot

    @property
    def dead_money(self) -> int:
        """Antes and dead blinds: in the main pot, contested by every player still in."""
        return self._dead

    @property
    def rake(self) -> int:
        """The rake taken so far (only at the end of the hand)."""
        return self._rake

    @property
    def results(self) -> tuple[PotResult, ...]:
        """Per-pot results (main pot first), once the hand is over. Positions are seats here."""
        results = self._results
        if results is None:  # built on first use from what ``_finish`` recorded
            seats = self._seats
            results = self._results = tuple(
                [
                    PotResult(
                        index, amount, rake, tuple([seats[p] for p in eligible]), won, shares, runs
                    )
                    for index, amount, rake, eligible, won, shares, runs in self._pots_won
                ]
            )
        return results

    @property
    def log(self) -> tuple[LogEntry, ...]:
        return tuple(self._log)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event since the hand began (posting and dealing first)."""
        return tuple(self._events)

    @property
    def final_stacks(self) -> tuple[int, ...]:
        """Stacks in the order the players were given (``setup.players``)."""
        stacks, pos = self._stacks, self._pos
        return tuple([stacks[pos[seat]] for seat, _ in self._players])

    @property
    def shown(self) -> frozenset[int]:
        """Seats whose hole cards are face up."""
        return frozenset(self._seats[p] for p in self._shown)

    @property
    def showdown_seats(self) -> tuple[int, ...]:
        """Seats that reached the showdown, in showdown order (R-SHOW-3)."""
        return self._showdown_seats

    @property
    def burned(self) -> tuple[Card | None, ...]:
        """Burned cards so far: kept for the record, never shown (R-DEAL-2)."""
        streets = {0: 0, 3: 1, 4: 2, 5: 3}[len(self.board)]
        return tuple(self._deck[2 * self._n + _BURN_OFFSETS[s]] for s in range(1, streets + 1))

    @property
    def second_burned(self) -> tuple[Card | None, ...]:
        """The second run's burned cards (R-HOME-4, R-DEAL-2): one per street it dealt."""
        if self._board2 is None:
            return ()
        return tuple(self._deck[position] for position in self._second_run_positions()[0])

    def _second_run_positions(self, shared: int | None = None) -> tuple[list[int], list[int]]:
        """Deck positions of the second run's burns and cards: from ``2n+8``, for the streets
        after the ``shared`` board cards both runs have (default: those of the run-out)."""
        position = 2 * self._n + 8
        burns: list[int] = []
        cards: list[int] = []
        first = {0: 1, 3: 2, 4: 3}[self._shared if shared is None else shared]
        for street in range(first, 4):
            burns.append(position)
            count = 3 if street == 1 else 1
            cards.extend(range(position + 1, position + 1 + count))
            position += 1 + count
        return burns, cards

    def hole_cards(self, seat: int) -> tuple[Card | None, Card | None]:
        """A player's hole cards: privileged access for the table and the history layer; what a
        player may see goes through ``view_for`` only (R-DEAL-4)."""
        return self._hole[self._position(seat)]

    @property
    def showdown_cards(self) -> dict[int, tuple[Card | None, Card | None]]:
        """Hole cards of everyone who reached the showdown, mucked or not (R-SHOW-5)."""
        return {seat: self._hole[self._pos[seat]] for seat in self._showdown_seats}

    def chips_in_play(self) -> int:
        """Stacks + everything in the middle + rake: constant through the hand."""
        return sum(self._stacks) + self._in_pot + self._rake

    def _position(self, seat: int) -> int:
        try:
            return self._pos[seat]
        except KeyError:
            raise IllegalAction(f"seat {seat} has no player in this hand") from None

    def legal_actions(self) -> LegalActions | None:
        """The exact options of the player to act (R-BET-6), ``None`` once the hand is over (or
        while it waits for the run-out decision, ``runs_pending``)."""
        if not self._queue:
            return None
        p = self._queue[0]
        level = self._level
        stacks = self._stacks
        stack = stacks[p]
        owed = level - self._bets[p]
        low = high = None
        bounds = None
        if stack > owed:
            # A bet or raise only when some other player still in could answer it.
            folded, allin, bets = self._folded, self._allin, self._bets
            for q in range(self._n):
                if q != p and not folded[q] and not allin[q] and stacks[q] + bets[q] > level:
                    bounds = self._structure.raise_bounds(self, p)
                    if bounds is not None:
                        low, high = bounds
                    break
        # Kept for ``act`` to verify a bet or raise in this same state (every change of state
        # is logged, so the log's length identifies the state).
        self._bounds_at = len(self._log)
        self._bounds = bounds
        if owed > 0:
            return LegalActions(
                self._seats[p], True, False, owed if owed < stack else stack, low, high, False
            )
        return LegalActions(self._seats[p], False, True, None, low, high, level == 0)

    def _raise_bounds(self, p: int, owed: int) -> tuple[int, int] | None:
        if self._stacks[p] <= owed:
            return None
        level = self._level
        folded, allin, stacks, bets = self._folded, self._allin, self._stacks, self._bets
        for q in range(self._n):
            if q != p and not folded[q] and not allin[q] and stacks[q] + bets[q] > level:
                return self._structure.raise_bounds(self, p)
        return None

    # ------------------------------------------------------------------ actions

    def verify(self, action: Action, seat: int | None = None, *, forced: bool = False) -> None:
        """Raise ``IllegalAction`` unless ``action`` is legal now (for ``seat``, if given); with
        ``forced``, unless it is a fold the table may make for the player to act (see ``act``)."""
        if forced:
            self._verify_forced(action, seat)
        elif isinstance(action, Protect):
            self._verify_protect(action.seat)
        elif isinstance(action, Show):
            self._verify_show(action.seat)
        elif isinstance(action, RunOut):
            self._verify_run_out(action.times)
        else:
            self._verify_bet(action, seat)

    def can(self, action: Action, seat: int | None = None, *, forced: bool = False) -> bool:
        """Whether ``action`` is legal now (``forced``: as in ``act``)."""
        try:
            self.verify(action, seat, forced=forced)
        except IllegalAction:
            return False
        return True

    def act(self, action: Action, seat: int | None = None, *, forced: bool = False) -> list[Event]:
        """Verify and apply ``action``; return the events it caused. With ``seat``, the action is
        refused unless that seat is to act. Nothing changes when the action is refused.

        ``forced=True`` is for the table only: it folds the hand of the player to act even when
        checking is free, which no player may choose (R-SIT-1: sitting out or leaving during a
        hand; R-TIME-2: ``timeout_action = fold``). Only ``Fold`` can be forced. It is logged as
        that seat's ``Fold``, and ``replay`` applies every logged fold this way, so the log
        reproduces the hand; ``legal_actions()`` is unchanged (no fold when checking is free)."""
        kind = type(action)
        if forced:
            self._verify_forced(action, seat)
            events = self._events
            start = len(events)
            p = self._queue[0]
            self._log.append((self._seats[p], action))
            self._apply_fold(p)
            return events[start:]
        if kind is not Call and kind is not Check and kind is not RaiseTo and kind is not Fold:
            if isinstance(action, Protect):
                return self.protect(action.seat)
            if isinstance(action, Show):
                return self.show(action.seat)
            if isinstance(action, RunOut):
                return self.run_out(action.times)
            self._verify_bet(action, seat)  # refuses it with the reason
        # The betting actions, verified as in ``_verify_bet`` (inlined: the hot path).
        if not self._queue:
            raise IllegalAction(self._nobody_to_act())
        p = self._queue[0]
        seats = self._seats
        if seat is not None and seat != seats[p]:
            raise IllegalAction(
                f"it is seat {seats[p]}'s turn, not seat {seat}'s", self.legal_actions()
            )
        owed = self._level - self._bets[p]
        events = self._events
        start = len(events)
        if kind is Call:
            if owed <= 0:
                raise IllegalAction("nothing to call; check instead", self.legal_actions())
            self._log.append((seats[p], action))
            self._apply_call(p, owed)
        elif kind is Check:
            if owed > 0:
                raise IllegalAction(f"cannot check: {owed} to call", self.legal_actions())
            self._log.append((seats[p], action))
            events.append(Checked(seats[p]))
            self._acted[p] = True
            queue = self._queue
            del queue[0]
            if not queue:
                self._end_round()
        elif kind is Fold:
            if owed <= 0:
                raise IllegalAction(
                    "folding is not offered when checking is free", self.legal_actions()
                )
            self._log.append((seats[p], action))
            self._apply_fold(p)
        else:
            amount = action.amount  # type: ignore[union-attr]
            if self._bounds_at == len(self._log):
                bounds = self._bounds  # computed by ``legal_actions`` in this very state
            else:
                bounds = self._raise_bounds(p, owed)
            if bounds is None:
                raise IllegalAction("no bet or raise is allowed now", self.legal_actions())
            low, high = bounds
            if type(amount) is not int or not low <= amount <= high:
                word = "bet" if self._level == 0 else "raise to"
                valid = f"{low}" if low == high else f"{low} to {high}"
                raise IllegalAction(
                    f"cannot {word} {amount}: the valid amount is {valid}", self.legal_actions()
                )
            self._log.append((seats[p], action))
            self._apply_raise(p, amount)
        return events[start:]

    def fold(self) -> list[Event]:
        return self.act(_FOLD)

    def check(self) -> list[Event]:
        return self.act(_CHECK)

    def call(self) -> list[Event]:
        return self.act(_CALL)

    def raise_to(self, amount: int) -> list[Event]:
        return self.act(RaiseTo(amount))

    def check_or_call(self) -> list[Event]:
        """Check when nothing is owed, else call."""
        if self._street == OVER:
            raise IllegalAction("the hand is over")
        p = self._queue[0]
        owed = self._level - self._bets[p]
        events = self._events
        start = len(events)
        if owed > 0:
            self._log.append((self._seats[p], _CALL))
            self._apply_call(p, owed)
        else:
            seat = self._seats[p]
            self._log.append((seat, _CHECK))
            events.append(Checked(seat))
            self._acted[p] = True
            queue = self._queue
            del queue[0]
            if not queue:
                self._end_round()
        return events[start:]

    def _nobody_to_act(self) -> str:
        if self._runs_pending:
            return "nobody is to act: the hand waits for the run-out decision (R-HOME-4)"
        return "the hand is over; nobody is to act"

    def _verify_forced(self, action: Action, seat: int | None) -> None:
        if type(action) is not Fold:
            raise IllegalAction(f"only a fold can be forced, not {action!r}")
        if not self._queue:
            raise IllegalAction(self._nobody_to_act())
        p = self._queue[0]
        if seat is not None and seat != self._seats[p]:
            raise IllegalAction(
                f"it is seat {self._seats[p]}'s turn, not seat {seat}'s", self.legal_actions()
            )

    def _verify_bet(self, action: Action, seat: int | None) -> None:
        if not self._queue:
            raise IllegalAction(self._nobody_to_act())
        p = self._queue[0]
        if seat is not None and seat != self._seats[p]:
            raise IllegalAction(
                f"it is seat {self._seats[p]}'s turn, not seat {seat}'s", self.legal_actions()
            )
        owed = self._level - self._bets[p]
        kind = type(action)
        if kind is Call:
            if owed <= 0:
                raise IllegalAction("nothing to call; check instead", self.legal_actions())
        elif kind is Check:
            if owed > 0:
                raise IllegalAction(f"cannot check: {owed} to call", self.legal_actions())
        elif kind is Fold:
            if owed <= 0:
                raise IllegalAction(
                    "folding is not offered when checking is free", self.legal_actions()
                )
        elif kind is RaiseTo:
            amount = action.amount  # type: ignore[union-attr]
            if self._bounds_at == len(self._log):
                bounds = self._bounds  # computed by ``legal_actions`` in this very state
            else:
                bounds = self._raise_bounds(p, owed)
            if bounds is None:
                raise IllegalAction("no bet or raise is allowed now", self.legal_actions())
            low, high = bounds
            if type(amount) is not int or not low <= amount <= high:
                word = "bet" if self._level == 0 else "raise to"
                valid = f"{low}" if low == high else f"{low} to {high}"
                raise IllegalAction(
                    f"cannot {word} {amount}: the valid amount is {valid}", self.legal_actions()
                )
        else:
            raise IllegalAction(f"not a betting action: {action!r}", self.legal_actions())

    def _apply_call(self, p: int, owed: int) -> None:
        stacks = self._stacks
        stack = stacks[p]
        if owed < stack:
            amount = owed
            stacks[p] = stack - owed
            all_in = False
        else:
            amount = stack
            stacks[p] = 0
            all_in = self._allin[p] = True
        self._bets[p] += amount
        self._contrib[p] += amount
        self._in_pot += amount
        self._acted[p] = True
        self._events.append(Called(self._seats[p], amount, all_in))
        queue = self._queue
        del queue[0]
        if not queue:
            self._end_round()

    def _apply_fold(self, p: int) -> None:
        self._folded[p] = True
        self._live -= 1
        self._events.append(Folded(self._seats[p]))
        queue = self._queue
        if self._live == 1:
            queue.clear()
            self._end_round()
        else:
            del queue[0]
            if not queue:
                self._end_round()

    def _apply_raise(self, p: int, to: int) -> None:
        stacks, bets = self._stacks, self._bets
        amount = to - bets[p]
        is_bet = self._level == 0
        self._structure.after_raise(self, p, to)
        self._level = to
        stacks[p] -= amount
        bets[p] = to
        self._contrib[p] += amount
        self._in_pot += amount
        all_in = not stacks[p]
        if all_in:
            self._allin[p] = True
        self._acted[p] = True
        self._aggressor = p
        self._events.append(Raised(self._seats[p], to, all_in, is_bet))
        folded, allin = self._folded, self._allin
        queue = self._queue = [q for q in _AFTER[self._n][p] if not folded[q] and not allin[q]]
        if not queue:
            self._end_round()

    def protect(self, seat: int) -> list[Event]:
        """Freeze ``seat``'s contribution: they act no more and contest the pots they are in
        (R-ALLIN-5). Called by the table (e.g. on a disconnection, R-TIME-3)."""
        self._verify_protect(seat)
        start = len(self._events)
        p = self._pos[seat]
        self._log.append((seat, Protect(seat)))
        self._protected[p] = True
        self._allin[p] = True
        self._events.append(Protected(seat))
        queue = self._queue
        if p in queue:
            queue.remove(p)
            if not queue:
                self._end_round()
        return self._events[start:]

    def _verify_protect(self, seat: int) -> None:
        if self._street == OVER:
            raise IllegalAction("the hand is over")
        if self._runs_pending:
            raise IllegalAction(self._nobody_to_act())
        p = self._position(seat)
        if self._folded[p]:
            raise IllegalAction(f"seat {seat} has folded")
        if self._allin[p]:
            raise IllegalAction(f"seat {seat} is already all-in or protected")

    def show(self, seat: int) -> list[Event]:
        """After the hand, show cards nobody had to show (R-SHOW-4): the uncontested winner, or a
        player who mucked at the showdown."""
        self._verify_show(seat)
        p = self._pos[seat]
        self._log.append((seat, Show(seat)))
        self._shown.add(p)
        self._mucked.discard(p)
        event = CardsShown(seat, self._hole[p])  # type: ignore[arg-type]
        self._events.append(event)
        return [event]

    def _verify_show(self, seat: int) -> None:
        if self._street != OVER:
            raise IllegalAction("cards can be shown by choice only after the hand")
        p = self._position(seat)
        if p in self._shown:
            raise IllegalAction(f"seat {seat}'s cards are already shown")
        if any(card is None for card in self._hole[p]):
            raise IllegalAction(f"seat {seat}'s cards are not known")
        if p != self._winner and p not in self._mucked:
            raise IllegalAction(
                f"seat {seat} may not show: only an uncontested winner or a player who mucked "
                "at the showdown may"
            )

    # ------------------------------------------------------------------ rounds

    def _end_round(self) -> None:
        bets = self._bets
        n = self._n
        ordered = sorted(bets)
        top = ordered[-1]
        if top:
            second = ordered[-2]
            if top > second:
                p = bets.index(top)
                back = top - second
                bets[p] = second
                self._stacks[p] += back
                self._contrib[p] -= back
                self._in_pot -= back
                if not self._protected[p]:
                    self._allin[p] = False
                self._events.append(UncalledBetReturned(self._seats[p], back))
            self._bets = [0] * n
        if self._live == 1:
            self._finish()
            return
        # players still able to act: neither folded nor all-in (or protected)
        actors = n - sum(map(or_, self._folded, self._allin))
        if self._street == 3:
            self._finish()
        elif actors <= 1:
            if self._run_twice and not self._runs:
                # R-HOME-4: the table asks whether to run it twice; ``run_out`` deals.
                self._runs_pending = True
                self._queue = []
                return
            self._runout = True
            while self._street < 3:
                self._street += 1
                self._deal_board(self._street)
            self._finish()
        else:
            self._street += 1
            self._deal_board(self._street)
            self._level = 0
            self._raise_size = 0
            self._fl_level = 0
            self._count = 0
            self._capped = False
            self._aggressor = None
            self._acted = [False] * n
            self._start_queue(0)

    def _deal_board(self, street: int, run: int = 0) -> None:
        base = 2 * self._n
        deck = self._deck
        # flop at 2n+1..2n+3, turn at 2n+5, river at 2n+7 (burns at 2n, 2n+4, 2n+6)
        cards = deck[base + 1 : base + 4] if street == 1 else (deck[base + 2 * street + 1],)
        self.board.extend(cards)
        self._events.append(BoardDealt(street, cards, run))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ run it twice

    def _verify_run_out(self, times: int) -> None:
        if not self._runs_pending:
            raise IllegalAction(
                "no run-out decision is awaited: the board is run twice only when betting "
                "cannot continue before the river at a table that runs it twice (R-HOME-4)"
            )
        if type(times) is not int or times not in (1, 2):
            raise IllegalAction(f"the board is run 1 or 2 times, not {times!r}")
        if times == 2:
            need = self._second_run_positions(len(self.board))[1][-1] + 1
            if len(self._deck) < need:
                raise IllegalAction(
                    f"the deck holds {len(self._deck)} cards; running twice from here needs "
                    f"{need} (R-HOME-4)"
                )

    def run_out(self, times: int) -> list[Event]:
        """The run-out decision (R-HOME-4), once ``runs_pending``: deal the rest of the board
        once, or twice (each run with its burn cards, the second from ``2n+8``), then award the
        pots. Logged as ``(0, RunOut(times))``."""
        self._verify_run_out(times)
        events = self._events
        start = len(events)
        self._log.append((0, RunOut(times)))
        self._runs_pending = False
        self._runs = times
        self._runout = True
        events.append(RunsChosen(times))
        shared = self._shared = len(self.board)
        run = 1 if times == 2 else 0
        first_street = self._street
        while self._street < 3:
            self._street += 1
            self._deal_board(self._street, run)
        if times == 2:
            deck = self._deck
            board2 = self.board[:shared]
            cards = self._second_run_positions()[1]
            k = 0
            for street in range(first_street + 1, 4):
                count = 3 if street == 1 else 1
                dealt = tuple([deck[position] for position in cards[k : k + count]])
                k += count
                board2.extend(dealt)
                events.append(BoardDealt(street, dealt, 2))  # type: ignore[arg-type]
            self._board2 = board2
        self._finish()
        return events[start:]

    def _finish(self) -> None:
        """Award every pot (R-POT-2), with showdown when two or more players remain."""
        n = self._n
        live = [not f for f in self._folded]
        pots = build_pots(self._contrib, live, self._dead)
        rule = self._rake_rule
        rakes = (
            None
            if rule is None
            else rake_pots([amount for amount, _ in pots], rule, len(self.board) >= 3)
        )
        seats = self._seats
        stacks = self._stacks
        events = self._events
        strengths: list[int | None] = [None] * n
        contested = self._live != 1
        if contested:
            self._showdown(pots, strengths, live)
        else:
            self._winner = live.index(True)
        shown = self._shown
        won = self._pots_won
        taken = paid = 0
        board2 = self._board2
        strengths2 = strengths  # the second run's hands, when the board was run twice
        shares: tuple[int, ...]
        if board2 is not None:
            strengths2 = [None] * n
            self._strengths(board2, strengths2, live)
        for index, (amount, eligible) in enumerate(pots):
            rake = 0 if rakes is None else rakes[index]
            if board2 is not None and contested and len(eligible) > 1:
                # R-HOME-4: rake first, then halves (the odd chip to the first run), each
                # awarded by its own run's showdown, ties within a run by R-POT-1.
                net = amount - rake
                merged = [0] * n
                won_a_run = [False] * n
                runs = []
                for half, power in ((net - net // 2, strengths), (net // 2, strengths2)):
                    run_winners = self._pot_winners(eligible, power)
                    run_shares = split_pot(half, run_winners)
                    for p, share in zip(run_winners, run_shares, strict=True):
                        merged[p] += share
                        won_a_run[p] = True
                    runs.append((tuple([seats[p] for p in run_winners]), run_shares))
                winners = tuple([p for p in eligible if won_a_run[p]])
                shares = tuple([merged[p] for p in winners])
                for p, share in zip(winners, shares, strict=True):
                    stacks[p] += share
                taken += rake
                paid += amount
                winner_seats = tuple([seats[p] for p in winners])
                both = tuple(runs)
                won.append((index, amount, rake, eligible, winner_seats, shares, both))
                events.append(PotAwarded(index, amount, rake, winner_seats, shares, both))
                continue
            if contested:
                contenders = [p for p in eligible if p in shown]
                if not contenders:
                    contenders = list(eligible)  # nobody's cards are known: split (documented)
                best = max([strengths[p] or 0 for p in contenders])
                winners = tuple([p for p in contenders if (strengths[p] or 0) == best])
            else:
                winners = eligible
            if len(winners) == 1:
                shares = (amount - rake,)
                stacks[winners[0]] += amount - rake
            else:
                shares = split_pot(amount - rake, winners)
                for p, share in zip(winners, shares, strict=True):
                    stacks[p] += share
            taken += rake
            paid += amount
            winner_seats = tuple([seats[p] for p in winners])
            won.append((index, amount, rake, eligible, winner_seats, shares, ()))
            events.append(PotAwarded(index, amount, rake, winner_seats, shares))
        self._rake += taken
        self._in_pot -= paid
        self._results = None  # built from ``_pots_won`` on first use
        self._street = OVER
        self._queue = []
        events.append(HandEnded(tuple(zip(seats, stacks, strict=True))))

    def _pot_winners(self, eligible: tuple[int, ...], strengths: list[int | None]) -> list[int]:
        """The best hands among a pot's eligible players whose cards are shown (all of them
        when nobody's cards are known), in position order."""
        shown = self._shown
        contenders = [p for p in eligible if p in shown] or list(eligible)
        best = max([strengths[p] or 0 for p in contenders])
        return [p for p in contenders if (strengths[p] or 0) == best]

    def _strengths(
        self, board: Sequence[Card | None], strengths: list[int | None], live: list[bool]
    ) -> None:
        """Each live player's hand on a complete, known ``board`` (left ``None`` otherwise)."""
        if len(board) != 5 or any(card is None for card in board):
            return
        indices = [card.index for card in board]  # type: ignore[union-attr]
        for p, (a, b) in enumerate(self._hole):
            if live[p] and a is not None and b is not None:
                strengths[p] = evaluate7((a.index, b.index, *indices))

    def _showdown(
        self,
        pots: list[tuple[int, tuple[int, ...]]],
        strengths: list[int | None],
        live: list[bool],
    ) -> None:
        n = self._n
        board = self.board
        if len(board) == 5 and (self._complete or all(card is not None for card in board)):
            indices = [card.index for card in board]  # type: ignore[union-attr]
            hole = self._hole
            for p in range(n):
                if live[p]:
                    a, b = hole[p]
                    if a is not None and b is not None:
                        strengths[p] = evaluate7((a.index, b.index, *indices))
        order = showdown_order(self._aggressor, self._round_first, self._acted, live)
        seats, hole, events = self._seats, self._hole, self._events
        shown, mucked = self._shown, self._mucked
        self._showdown_seats = tuple([seats[p] for p in order])
        best: list[int | None] = [None] * len(pots)
        show_losing = self._show_losing
        runout = self._runout
        for rank, p in enumerate(order):
            strength = strengths[p]
            seat = seats[p]
            if strength is None:
                mucked.add(p)
                events.append(CardsMucked(seat))
                continue
            must = runout or rank == 0 or seat in show_losing
            for k, (_, eligible) in enumerate(pots):
                if p in eligible:
                    top = best[k]
                    if top is None or strength >= top:
                        must = True
                        best[k] = strength
            if must:
                shown.add(p)
                events.append(CardsShown(seat, hole[p]))  # type: ignore[arg-type]
            else:
                mucked.add(p)
                events.append(CardsMucked(seat))

    # ------------------------------------------------------------------ replay and views

    @classmethod
    def from_setup(cls, setup: HandSetup) -> Hand:
        return cls(
            setup.structure,
            setup.players,
            setup.button,
            setup.forced,
            setup.deck,
            setup.rake,
            show_losing=setup.show_losing,
            straddle_full_raise=setup.straddle_full_raise,
            run_twice=setup.run_twice,
        )

    @classmethod
    def replay(cls, setup: HandSetup, log: Iterable[LogEntry]) -> Hand:
        """Apply a log to the initial state: reproduces the hand exactly (DESIGN.md principle 3).
        Folds are applied with ``forced=True`` (see ``act``)."""
        hand = cls.from_setup(setup)
        for seat, action in log:
            if type(action) is Fold:
                # A logged fold when checking was free can only be the table's (``forced``);
                # facing a bet, a forced fold is the same as the player's own.
                hand.act(action, seat, forced=True)
            else:
                hand.act(action, None if isinstance(action, Protect | Show | RunOut) else seat)
        return hand

    def view_for(self, seat: int | None) -> HandView:
        """What ``seat`` may see (``None``: an observer). Never another player's hole cards
        before they are shown (R-DEAL-4); never burned or undealt cards."""
        return view_for(self, seat)

"""The table: hand after hand under the house rules (sans-I/O; time is the ``now`` argument).

The table keeps the seats, the button and the blinds across hands, builds each hand from them and
a fresh deck (``plan_hand`` in ``button.py``), runs it on the hand engine, and hands the result back
to the seats. Every method that changes something returns the events it caused; ``tick(now)``
returns what the clock made due (turn countdowns and timeouts, blind prompts, seat offers, the
release of seats left sitting out too long).

The table keeps no accounts: buy-ins are given to it, chips leaving it are announced by
``SeatReleased`` and each hand's rake, fees and tax by ``HandFinished`` (the room books them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from feltroom.deal_proof import CommittedDeck
from feltroom.errors import IllegalAction
from feltroom.rules import (
    Action,
    Call,
    Check,
    Fold,
    Hand,
    HandView,
    LegalActions,
)
from feltroom.shuffle import CsprngDeckSource, DeckSource
from feltroom.table.button import Plan, Positions, plan_hand
from feltroom.table.clock import BANK, COUNTDOWN, EXPIRED, TurnClock
from feltroom.table.config import TableConfig, format_amount
from feltroom.table.events import (
    BlindDeclined,
    BlindPrompt,
    BlindsMissed,
    ChipsAdded,
    CountdownStarted,
    Disconnected,
    FeeCharged,
    FirstButtonDrawn,
    HandFinished,
    HandResult,
    HandStarted,
    PlayerSeated,
    PreActionCancelled,
    PreActionUsed,
    ProtectionUsed,
    Resumed,
    SatIn,
    SatOut,
    SeatChanged,
    SeatOffered,
    SeatOfferExpired,
    SeatReleased,
    StackReset,
    TableEvent,
    TaxWithheld,
    TimeBankStarted,
    TimedOut,
    TurnStarted,
    WaitingListJoined,
    WaitingListLeft,
)
from feltroom.table.seats import Entry, Owes, PreAction, PreActionKind, Seat

__all__ = ["SeatInfo", "Table", "TableView"]

_FOLD = Fold()
_CHECK = Check()


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as everyone sees it."""

    seat: int
    account: str
    stack: int
    sitting_out: bool
    marker: str
    owes: str
    disconnected: bool
    in_hand: bool
    away: bool = False
    """Tournament tables: the player is away (R-TOURN-6), folded at once at their turn."""


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as ``viewer`` (a seat, or ``None`` for an observer) may see it."""

    viewer: int | None
    info: str
    seats: tuple[SeatInfo, ...]
    button: int | None
    small: int | None
    big: int | None
    hand_number: int
    hand: HandView | None
    to_act: int | None
    deadline: float | None
    waiting: int
    turn_started: float | None = None
    """When the turn of ``to_act`` began (its clock), so that a resumed client can draw it."""
    countdown_at: float | None = None
    """When that turn's countdown begins (R-TIME-1)."""
    turn_id: int | None = None
    """The turn's id within the hand (``TurnStarted.turn_id``), ``None`` between turns."""
    bank_at: float | None = None
    """When that turn's time bank begins: the base time ends there (R-TIME-1)."""


class Table:
    """One table. See the module docstring; docs/house-rules.md gives the algorithms."""

    def __init__(
        self,
        config: TableConfig,
        *,
        deck_source: DeckSource | None = None,
        may_protect: Callable[[str], bool] | None = None,
        may_reset: Callable[[str, int], bool] | None = None,
    ) -> None:
        self.config = config
        self._structure = config.engine_structure()  # the config is frozen: built once
        self._rake_rule = config.rake_rule()
        self._decks: DeckSource = deck_source if deck_source is not None else CsprngDeckSource()
        self._may_protect = may_protect if may_protect is not None else (lambda account: False)
        # reset_stacks: may ``account`` bring ``amount`` more chips (the room asks the wallet)?
        self._may_reset = may_reset if may_reset is not None else (lambda account, amount: True)
        self.seats: dict[int, Seat] = {}
        self._arrivals = 0
        self.hand: Hand | None = None
        self._deal_committed: CommittedDeck | None = None  # the hand's deck, salts, commitment
        self.plan: Plan | None = None
        self.last: Positions | None = None
        self.hand_number = 0
        self.last_result: HandResult | None = None
        self._clock: TurnClock | None = None
        self._prompts: dict[int, float] = {}
        self._pending: Plan | None = None
        self._before: dict[int, int] = {}
        self._session_fees: dict[int, int] = {}
        self._timed_out: set[int] = set()
        self.waiting: list[str] = []
        self._offers: dict[int, tuple[str, float]] = {}
        # bookkeeping: every chip that came to the table and where it went
        self.brought = 0
        self.taken = 0
        self.rake = 0
        self.fees = 0
        self.tax = 0

    def reconfigure(self, config: TableConfig) -> None:
        """New settings between hands (a home game's host changes the blinds or the buy-in
        range, R-HOME-2): they apply from the next hand; missed blinds owed are posted at the
        new level. Refused (``IllegalAction``) during a hand."""
        if not self.between_hands:
            raise IllegalAction("the settings change between hands only")
        self.config = config
        self._structure = config.engine_structure()
        self._rake_rule = config.rake_rule()

    # ------------------------------------------------------------------ queries

    @property
    def in_hand(self) -> bool:
        return self.hand is not None and not self.hand.is_over

    def seat_of(self, account: str) -> int | None:
        for number, seat in self.seats.items():
            if seat.account == account:
                return number
        return None

    def chips_on_table(self) -> int:
        """Stacks (and, during a hand, chips in the middle)."""
        if self.hand is not None and self.in_hand:
            in_hand = set(self.hand.seats)
            outside = sum(s.stack for n, s in self.seats.items() if n not in in_hand)
            return outside + self.hand.chips_in_play()
        return sum(s.stack for s in self.seats.values())

    def _seat(self, seat: int) -> Seat:
        try:
            return self.seats[seat]
        except KeyError:
            raise IllegalAction(f"seat {seat} is empty") from None

    @property
    def between_hands(self) -> bool:
        """No hand in progress and none being planned (no blind prompt waiting)."""
        return not self.in_hand and self._pending is None

    def verify_chips_bounds(self, seat: int, amount: int) -> None:
        """Raise ``IllegalAction`` unless ``amount`` more chips keep the seat within the buy-in
        bounds (R-BUYIN-1/3), whether or not a hand is in progress."""
        self._check_buy_in(amount, self._seat(seat).stack)

    def _between_hands(self, what: str) -> None:
        if self.in_hand or self._pending is not None:
            raise IllegalAction(f"{what} only between hands (R-BUYIN-3)")

    # ------------------------------------------------------------------ seats and money

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
        """Take ``seat`` with ``buy_in`` chips (R-BUYIN-1); the player enters by ``entry``
        (R-ENTRY-1). One seat per account per table."""
        self._check_vacant(account, seat)
        self._check_buy_in(buy_in)
        return self._occupy(account, seat, buy_in, now, entry, auto_post)

    def _check_vacant(self, account: str, seat: int) -> None:
        """Refuse a seat that does not exist, is taken or offered to someone else, or an
        account that already sits here."""
        cfg = self.config
        if not 1 <= seat <= cfg.max_seats:
            raise IllegalAction(f"seat {seat} does not exist: seats are 1..{cfg.max_seats}")
        if seat in self.seats:
            raise IllegalAction(f"seat {seat} is taken", details={"seat": seat})
        if self.seat_of(account) is not None:
            raise IllegalAction(f"{account} already has seat {self.seat_of(account)} here")
        offer = self._offers.get(seat)
        if offer is not None and offer[0] != account:
            raise IllegalAction(f"seat {seat} is offered to the first player on the waiting list")

    def _occupy(
        self, account: str, seat: int, chips: int, now: float, entry: Entry, auto_post: bool
    ) -> list[TableEvent]:
        """Seat ``account`` with ``chips`` brought to the table (checked by the caller)."""
        cfg = self.config
        events: list[TableEvent] = []
        self._offers.pop(seat, None)
        if account in self.waiting:
            self.waiting.remove(account)
            events.append(WaitingListLeft(account))
        self._arrivals += 1
        player = Seat(seat, account, chips, self._arrivals, entry=entry, auto_post=auto_post)
        player.time_bank = float(cfg.time_bank_seconds)
        player.brought = chips
        player.fee_due_at = now + 60 * cfg.session_minutes
        self.seats[seat] = player
        self.brought += chips
        events.append(PlayerSeated(seat, account, chips, entry.value))
        return events

    def restore_seat(
        self, account: str, seat: int, stack: int, now: float, *, sitting_out: bool
    ) -> list[TableEvent]:
        """Seat a player with a stack the books kept (a rebuild after a restart or a voided
        hand): the stack may lie outside today's buy-in bounds (a winner above the maximum, a
        loser below the minimum, zero). The chips count as brought to the table. The player
        enters anew (R-ENTRY-1, posting); ``sitting_out`` (or an empty stack) sits them out."""
        self._check_vacant(account, seat)
        if not isinstance(stack, int) or isinstance(stack, bool) or stack < 0:
            raise IllegalAction(f"a stack is a whole number of units, zero or more, not {stack!r}")
        events = self._occupy(account, seat, stack, now, Entry.POST, True)
        player = self.seats[seat]
        if stack == 0:
            events += self._sit_out_now(player, now, "busted")
        elif sitting_out:
            events += self._sit_out_now(player, now, "restored")
        return events

    def _check_buy_in(self, amount: int, stack: int = 0) -> None:
        cfg = self.config
        low, high = cfg.buy_in_min, cfg.buy_in_max
        f = cfg.exponent
        details = {"min": low, "max": high, "stack": stack, "amount": amount}
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise IllegalAction(
                f"a buy-in is a positive whole number of units, not {amount!r}", details=details
            )
        if stack == 0 and amount < low:
            raise IllegalAction(
                f"You need to post a minimum buy-in of {format_amount(low, f)} to play at this "
                f"table ({cfg.buy_in_bounds_text()})",
                details=details,
            )
        if high is not None and stack + amount > high:
            raise IllegalAction(
                f"the maximum buy-in at this table is {format_amount(high, f)}: you may bring "
                f"at most {format_amount(high - stack, f)} more ({cfg.buy_in_bounds_text()})",
                details=details,
            )

    def verify_add_chips(self, seat: int, amount: int) -> None:
        """Raise ``IllegalAction`` (with the reason and the bounds) unless ``add_chips(seat,
        amount)`` would be accepted now: a seated player, between hands, within the maximum
        (R-BUYIN-3); the room checks this before it moves the money."""
        player = self._seat(seat)
        self._between_hands("chips can be added")
        self._check_buy_in(amount, player.stack)

    def add_chips(self, seat: int, amount: int, now: float) -> list[TableEvent]:
        """Add chips between hands, up to the maximum (R-BUYIN-3)."""
        self.verify_add_chips(seat, amount)
        player = self.seats[seat]
        player.stack += amount
        player.brought += amount
        self.brought += amount
        events: list[TableEvent] = [ChipsAdded(seat, amount, player.stack)]
        return events

    def sit_out(self, seat: int, now: float, *, reason: str = "chosen") -> list[TableEvent]:
        """Sit out: at once between hands; during a hand the player's hand is folded at their
        turn, with no protection, and they sit out after it (R-SIT-1). ``reason`` is the
        ``SatOut`` reason. Between a blind prompt and the deal, the hand is planned again
        without the player (as when a blind is declined, R-BLIND-6)."""
        player = self._seat(seat)
        if player.sitting_out:
            return []
        if self.in_hand and self.hand is not None and seat in self.hand.seats:
            player.sit_out_after_hand = True
            player.sit_out_reason = reason
            return self._autoplay(now)
        events = self._sit_out_now(player, now, reason)
        if self._pending is not None:
            events += self._replan(now)
        return events

    def _sit_out_now(self, player: Seat, now: float, reason: str) -> list[TableEvent]:
        player.sitting_out = True
        player.sat_out_at = now
        player.sit_out_after_hand = False
        player.sit_out_reason = "chosen"
        self._prompts.pop(player.number, None)
        return [SatOut(player.number, reason)]

    def sit_in(self, seat: int, now: float, entry: Entry = Entry.POST) -> list[TableEvent]:
        """Come back: a player who owes blinds posts them or waits for the big blind
        (R-MISS-1/2)."""
        player = self._seat(seat)
        player.sit_out_after_hand = False
        if not player.sitting_out:
            player.entry = entry
            return []
        if player.stack <= 0:
            raise IllegalAction("add chips before sitting in: the stack is empty")
        player.sitting_out = False
        player.sat_out_at = None
        player.entry = entry
        return [SatIn(seat, entry.value)]

    def leave(self, seat: int, now: float) -> list[TableEvent]:
        """Leave with the stack: at once between hands; during a hand the hand is folded at the
        player's turn (no protection, R-SIT-1) and the seat released after it."""
        player = self._seat(seat)
        if self.in_hand and self.hand is not None and seat in self.hand.seats:
            player.leave_after_hand = True
            return self._autoplay(now)
        events = self._release(player, "left", now)
        if self._pending is not None:  # between a blind prompt and the deal: plan again
            events += self._replan(now)
        return events

    def _release(self, player: Seat, reason: str, now: float) -> list[TableEvent]:
        del self.seats[player.number]
        self._prompts.pop(player.number, None)
        self.taken += player.stack
        events: list[TableEvent] = [
            SeatReleased(player.number, player.account, player.stack, reason)
        ]
        events += self._offer_free_seats(now)
        return events

    def change_seat(
        self, seat: int, new_seat: int, now: float, entry: Entry = Entry.POST
    ) -> list[TableEvent]:
        """Move to an empty seat between hands: the player enters anew (R-ENTRY-4)."""
        player = self._seat(seat)
        self._between_hands("seats can be changed")
        if not 1 <= new_seat <= self.config.max_seats or new_seat in self.seats:
            raise IllegalAction(f"seat {new_seat} is not free")
        if new_seat in self._offers:
            raise IllegalAction(f"seat {new_seat} is offered to a waiting player")
        del self.seats[seat]
        player.number = new_seat
        player.owes = Owes.NEW
        player.entry = entry
        self.seats[new_seat] = player
        events: list[TableEvent] = [SeatChanged(seat, new_seat, player.account)]
        return events + self._offer_free_seats(now)

    def disconnect(self, seat: int, now: float) -> list[TableEvent]:
        """The connection ended without a leave (R-SIT-1, R-TIME-4): the seat is kept."""
        player = self._seat(seat)
        if player.disconnected:
            return []
        player.disconnected = True
        return [Disconnected(seat)]

    def resume(self, seat: int, now: float) -> list[TableEvent]:
        """The player is back on the same seat and hand (R-TIME-4)."""
        player = self._seat(seat)
        if not player.disconnected:
            return []
        player.disconnected = False
        return [Resumed(seat)]

    def set_auto_post(self, seat: int, on: bool, now: float | None = None) -> list[TableEvent]:
        """Post blinds automatically (R-BLIND-6). Turned on while the player is prompted (and
        given ``now``), it answers the prompt: the blind is posted."""
        self._seat(seat).auto_post = on
        if on and now is not None and seat in self._prompts:
            return self.post_blind(seat, now)
        return []

    def set_auto_muck(self, seat: int, on: bool) -> None:
        """Muck losing hands at the showdown (on, the default) or show them (R-SHOW-4); it
        applies from the next deal."""
        self._seat(seat).auto_muck = on

    def set_pre_action(self, seat: int, pre_action: PreAction | None) -> None:
        """A pre-action choice, used at the player's turn if still valid (R-AUTO-1)."""
        self._seat(seat).pre_action = pre_action

    def show(self, seat: int, now: float) -> list[TableEvent]:
        """Show one's cards by choice after the hand and before the next deal (R-SHOW-4, R-BET-5):
        the uncontested winner, or a player who mucked at the showdown. Refused with
        ``IllegalAction`` (nothing changes) otherwise."""
        player = self._seat(seat)
        hand = self.hand
        result = self.last_result
        if hand is None:
            raise IllegalAction("no hand has been played at this table yet")
        if not hand.is_over:
            raise IllegalAction(
                "a hand is in progress: cards can be shown only after a hand, before the next deal"
            )
        assert result is not None  # a hand is over once it finished
        assert result.hand is hand
        # The player's seat in that hand (they may have changed seats since; a seat taken by
        # someone else since shows nothing of theirs).
        played = [s for s, account in result.accounts.items() if account == player.account]
        if not played:
            raise IllegalAction(f"{player.account} was not dealt into hand {result.number}")
        events: list[TableEvent] = list(hand.show(played[0]))
        return events

    # ------------------------------------------------------------------ waiting list

    def join_waiting_list(self, account: str, now: float) -> list[TableEvent]:
        if account in self.waiting:
            return []
        if self.seat_of(account) is not None:
            raise IllegalAction(f"{account} is already seated here")
        self.waiting.append(account)
        events: list[TableEvent] = [WaitingListJoined(account, len(self.waiting))]
        return events + self._offer_free_seats(now)

    def leave_waiting_list(self, account: str, now: float) -> list[TableEvent]:
        if account not in self.waiting:
            return []
        self.waiting.remove(account)
        events: list[TableEvent] = [WaitingListLeft(account)]
        for seat, (who, _) in list(self._offers.items()):
            if who == account:
                del self._offers[seat]
                events.append(SeatOfferExpired(account, seat))
        return events + self._offer_free_seats(now)

    def _offer_free_seats(self, now: float) -> list[TableEvent]:
        """Offer each free seat to the first waiting player without an offer."""
        events: list[TableEvent] = []
        offered = {who for who, _ in self._offers.values()}
        candidates = [a for a in self.waiting if a not in offered]
        for seat in range(1, self.config.max_seats + 1):
            if not candidates:
                break
            if seat in self.seats or seat in self._offers:
                continue
            account = candidates.pop(0)
            expires = now + self.config.seat_offer_seconds
            self._offers[seat] = (account, expires)
            events.append(SeatOffered(account, seat, expires))
        return events

    # ------------------------------------------------------------------ hands

    def _first_button(self) -> tuple[int, list[TableEvent]]:
        rule = self.config.first_button
        present = sorted(s for s, seat in self.seats.items() if seat.present)
        if rule == "first_seated":
            return min(present, key=lambda s: self.seats[s].joined), []
        if rule == "left_of_dealer":
            return present[0], []
        deck = self._decks.next_deck()
        cards = tuple(zip(present, deck, strict=False))
        best = max(cards, key=lambda sc: (sc[1].rank, -self.seats[sc[0]].joined))
        return best[0], [FirstButtonDrawn(cards, best[0])]

    def can_start(self) -> bool:
        return not self.in_hand and sum(1 for s in self.seats.values() if s.present) >= 2

    def start_hand(self, now: float) -> list[TableEvent]:
        """Plan the next hand (button, blinds, who is dealt in); prompt for blinds where a player
        does not post automatically (R-BLIND-6), else deal at once."""
        if self.in_hand:
            raise IllegalAction("a hand is in progress")
        if self._pending is not None:
            raise IllegalAction("waiting for blinds to be posted")
        if not self.can_start():
            raise IllegalAction("at least two players must be present to deal a hand")
        events: list[TableEvent] = self._charge_session_fees(now)
        if self.config.reset_stacks:
            events += self._reset_stacks([n for n, s in self.seats.items() if not s.sitting_out])
        plan, first = self._plan()
        events += first
        if plan is None:
            return events  # the session fees took a player's last chips: no hand
        prompts = self._prompts_for(plan)
        if prompts:
            self._pending = plan
            for seat in prompts:
                expires = now + self.config.blind_prompt_seconds
                self._prompts[seat] = expires
                amount = sum(f.amount for f in plan.forced if f.seat == seat)
                events.append(BlindPrompt(seat, amount, expires))
            return events
        return events + self._deal(plan, now)

    def _charge_session_fees(self, now: float) -> list[TableEvent]:
        """R-RAKE-4 ``session_fee``: a fixed amount per seated player per period, charged
        between hands and reported with the next hand's result."""
        cfg = self.config
        events: list[TableEvent] = []
        self._session_fees = {}
        if cfg.house_fee != "session_fee" or not cfg.session_fee or cfg.tournament:
            return events
        for seat, player in self.seats.items():
            if player.fee_due_at is not None and now >= player.fee_due_at:
                fee = min(cfg.session_fee, player.stack)
                player.fee_due_at = now + 60 * cfg.session_minutes
                if fee:
                    player.stack -= fee
                    self.fees += fee
                    self._session_fees[seat] = fee
                    events.append(FeeCharged(seat, player.account, "session_fee", fee))
        return events

    def _plan(self) -> tuple[Plan | None, list[TableEvent]]:
        cfg = self.config
        events: list[TableEvent] = []
        first = None
        present = [s for s in self.seats.values() if s.present]
        if len(present) < 2:
            return None, events
        if self.last is None:
            first, events = self._first_button()
        plan = plan_hand(
            cfg.button_rule, self.seats, cfg.max_seats, cfg.small, cfg.big, self.last, first
        )
        return plan, events

    def _prompts_for(self, plan: Plan) -> list[int]:
        seats = []
        for forced in plan.forced:
            player = self.seats[forced.seat]
            if not player.auto_post and forced.seat not in seats:
                seats.append(forced.seat)
        return seats

    def post_blind(self, seat: int, now: float) -> list[TableEvent]:
        """Answer a blind prompt: post (R-BLIND-6)."""
        if seat not in self._prompts:
            raise IllegalAction(f"seat {seat} has no blind to post now")
        del self._prompts[seat]
        return self._after_prompt(now)

    def decline_blind(self, seat: int, now: float) -> list[TableEvent]:
        """Answer a blind prompt: decline and sit out (R-BLIND-6)."""
        if seat not in self._prompts:
            raise IllegalAction(f"seat {seat} has no blind to post now")
        del self._prompts[seat]
        events: list[TableEvent] = [BlindDeclined(seat)]
        events += self._sit_out_now(self.seats[seat], now, "declined_blind")
        return events + self._replan(now)

    def _after_prompt(self, now: float) -> list[TableEvent]:
        if self._prompts or self._pending is None:
            return []
        plan, self._pending = self._pending, None
        return self._deal(plan, now)

    def _replan(self, now: float) -> list[TableEvent]:
        """A player declined: plan again (they now miss that blind)."""
        self._pending = None
        self._prompts.clear()
        if not self.can_start():
            return []
        plan, events = self._plan()
        if plan is None:
            return events
        prompts = self._prompts_for(plan)
        if prompts:
            self._pending = plan
            for seat in prompts:
                expires = now + self.config.blind_prompt_seconds
                self._prompts[seat] = expires
                amount = sum(f.amount for f in plan.forced if f.seat == seat)
                events.append(BlindPrompt(seat, amount, expires))
            return events
        return events + self._deal(plan, now)

    def _deal(self, plan: Plan, now: float) -> list[TableEvent]:
        events: list[TableEvent] = []
        for seat, owes in sorted(plan.missed.items()):
            player = self.seats[seat]
            if owes is not player.owes:
                player.owes = owes
                events.append(BlindsMissed(seat, owes.value))
        dealt = [s for s in plan.dealt if self.seats[s].stack > 0]
        if len(dealt) < 2:
            return events
        cfg = self.config
        for seat in dealt:
            player = self.seats[seat]
            player.owes = Owes.NOTHING
            player.timed_out = False
            player.hands_dealt += 1
            if (
                cfg.time_bank_refill_seconds
                and player.hands_dealt % cfg.time_bank_refill_hands == 0
            ):
                # R-TIME-1: the bank refills, never past its size
                player.time_bank = min(
                    float(cfg.time_bank_seconds), player.time_bank + cfg.time_bank_refill_seconds
                )
        self.hand_number += 1
        self.plan = plan
        self.last = plan.positions
        self._before = {s: self.seats[s].stack for s in dealt}
        self._timed_out = set()
        forced = tuple(f for f in plan.forced if f.seat in self._before)
        deal = self._deal_committed = self._decks.next_committed()
        deck = deal.deck
        self.hand = Hand(
            self._structure,
            [(s, self.seats[s].stack) for s in dealt],
            plan.button,
            forced,
            deck.cards,
            self._rake_rule,
            show_losing=[s for s in dealt if not self.seats[s].auto_muck],  # R-SHOW-4
        )
        events.append(
            HandStarted(
                self.hand_number,
                plan.button,
                plan.small,
                plan.big,
                tuple(dealt),
                forced,
                plan.arrangement,
                deal.commitment,
            )
        )
        events.extend(self.hand.events)
        events += self._next_turn(now)
        return events

    # ------------------------------------------------------------------ acting

    def act(self, seat: int, action: Action, now: float) -> list[TableEvent]:
        """The player in ``seat`` acts; refused with ``IllegalAction`` (nothing changes) unless it
        is their turn and the action is legal."""
        hand = self.hand
        if hand is None or hand.is_over:
            raise IllegalAction("no hand is in progress")
        if hand.to_act != seat:
            raise IllegalAction(f"it is seat {hand.to_act}'s turn, not seat {seat}'s")
        events: list[TableEvent] = list(hand.act(action, seat))
        self._turn_done(seat, now)
        return events + self._next_turn(now)

    def _turn_done(self, seat: int, now: float) -> None:
        clock = self._clock
        if clock is not None and clock.seat == seat:
            self.seats[seat].time_bank -= clock.bank_used(now)
        self._clock = None

    def _autoplay(self, now: float) -> list[TableEvent]:
        if self._clock is not None and self.hand is not None and self.hand.to_act is not None:
            player = self.seats[self.hand.to_act]
            if player.leave_after_hand or player.sit_out_after_hand:
                self._clock = None
                return self._next_turn(now)
        return []

    def _next_turn(self, now: float) -> list[TableEvent]:
        """Play automatic actions (leaving players, pre-actions) until a player must decide;
        start that player's clock; finish the hand when it is over."""
        hand = self.hand
        assert hand is not None
        events: list[TableEvent] = []
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            player = self.seats[seat]
            if player.away:
                # R-TOURN-6: an away tournament player is folded at once at their turn (checked
                # when checking is free), with no clock.
                legal = hand.legal_actions()
                assert legal is not None
                events += hand.act(_CHECK, seat) if legal.check else hand.act(_FOLD, seat)
                continue
            if player.leave_after_hand or player.sit_out_after_hand:
                # R-SIT-1: the hand is folded at the player's turn, no protection, even when
                # checking is free (the engine's table-side fold).
                events += hand.act(_FOLD, seat, forced=True)
                continue
            pre = player.pre_action
            if pre is not None:
                player.pre_action = None
                legal = hand.legal_actions()
                assert legal is not None
                action = _pre_action(pre, legal)
                if action is None:
                    events.append(PreActionCancelled(seat, str(pre)))
                else:
                    events.append(PreActionUsed(seat, str(pre)))
                    events += hand.act(action, seat)
                    continue
            cfg = self.config
            self._clock = TurnClock(
                seat, now, cfg.act_seconds, cfg.countdown_seconds, max(0.0, player.time_bank)
            )
            clock = self._clock
            events.append(
                TurnStarted(
                    seat, clock.countdown_at, clock.deadline, len(hand.log), bank_at=clock.bank_at
                )
            )
            return events
        self._clock = None
        return events + self._finish(now)

    def next_due(self) -> float:
        """The earliest time ``tick`` has something to do (infinity: nothing until an action or
        a change of the table): the turn clock's next stage, an unanswered blind prompt, a seat
        offer, a sat-out seat's release (R-SIT-2). A runtime sleeps until then, or until a
        command wakes the table, instead of looking at the clock at a fixed pace."""
        due = float("inf")
        clock = self._clock
        if clock is not None and self.hand is not None and not self.hand.is_over:
            due = clock.next_due()
        if self._prompts:
            due = min(due, *self._prompts.values())
        if self._offers:
            due = min(due, *(expires for _, expires in self._offers.values()))
        if not self.in_hand and self._pending is None:
            limit = 60 * self.config.sit_out_minutes
            for player in self.seats.values():
                if player.sitting_out and player.sat_out_at is not None:
                    due = min(due, player.sat_out_at + limit)
        return due

    def tick(self, now: float) -> list[TableEvent]:
        """Everything the clock made due by ``now`` (R-TIME-1..3, R-SIT-2, R-BLIND-6, seat
        offers)."""
        events: list[TableEvent] = []
        clock = self._clock
        if clock is not None and self.hand is not None and not self.hand.is_over:
            for stage in clock.advance(now):
                if stage == COUNTDOWN:
                    events.append(CountdownStarted(clock.seat, clock.bank_at))
                elif stage == BANK:
                    events.append(TimeBankStarted(clock.seat, clock.deadline))
                elif stage == EXPIRED:
                    events += self._timeout(clock.seat, now)
        for seat, expires in list(self._prompts.items()) if self._prompts else ():
            if now >= expires and seat in self._prompts:
                del self._prompts[seat]
                events.append(BlindDeclined(seat))
                events += self._sit_out_now(self.seats[seat], now, "declined_blind")
                events += self._replan(now)
        for seat, (account, expires) in list(self._offers.items()) if self._offers else ():
            if now >= expires:
                del self._offers[seat]
                if account in self.waiting:
                    self.waiting.remove(account)
                events.append(SeatOfferExpired(account, seat))
                events += self._offer_free_seats(now)
        if not self.in_hand and self._pending is None:
            limit = 60 * self.config.sit_out_minutes
            for player in list(self.seats.values()):
                since = player.sat_out_at
                if player.sitting_out and since is not None and now - since >= limit:
                    events += self._release(player, "sit_out_expired", now)  # R-SIT-2
        return events

    def _timeout(self, seat: int, now: float) -> list[TableEvent]:
        hand = self.hand
        assert hand is not None
        player = self.seats[seat]
        cfg = self.config
        player.time_bank = 0.0
        self._clock = None
        self._timed_out.add(seat)
        player.timed_out = True
        events: list[TableEvent] = []
        position = hand.seats.index(seat)
        in_pot = hand.contributions[position] > 0
        protectable = cfg.protect_on == "any_timeout" or (
            player.disconnected and cfg.protect_on == "disconnect"
        )  # ``never``: tournament tables (R-TOURN-6)
        if in_pot and protectable and self._may_protect(player.account):
            events.append(TimedOut(seat, "protect"))
            events.append(ProtectionUsed(seat, player.account))
            events += hand.protect(seat)  # R-TIME-3 through the engine (R-ALLIN-5)
        else:
            # R-TIME-2: ``fold`` folds (even when checking is free: the engine's table-side
            # fold); ``check_or_fold`` checks when checking is free, else folds.
            legal = hand.legal_actions()
            assert legal is not None
            if cfg.timeout_action == "check_or_fold" and legal.check:
                events.append(TimedOut(seat, "check"))
                events += hand.act(_CHECK, seat)
            else:
                events.append(TimedOut(seat, "fold"))
                events += hand.act(_FOLD, seat, forced=True)
        return events + self._next_turn(now)

    def _finish(self, now: float) -> list[TableEvent]:
        hand = self.hand
        plan = self.plan
        assert hand is not None
        assert plan is not None
        cfg = self.config
        events: list[TableEvent] = []
        finals = dict(zip(hand.seats, hand.stacks, strict=True))
        fees: dict[int, int] = dict(self._session_fees)
        tax: dict[int, int] = {}
        if cfg.house_fee == "collection_fee" and cfg.collection_fee and not cfg.tournament:
            due = cfg.collection_fee
            winners = sorted(
                (s for s in finals if finals[s] > self._before[s]),
                key=lambda s: self._before[s] - finals[s],
            )
            for s in winners:
                if not due:
                    break
                take = min(due, finals[s] - self._before[s])
                finals[s] -= take
                due -= take
                fees[s] = fees.get(s, 0) + take
                self.fees += take
                events.append(FeeCharged(s, self.seats[s].account, "collection_fee", take))
        if cfg.tax_threshold is not None and cfg.tax_percent:
            for s, final in finals.items():
                net = final - self._before[s]
                if net > cfg.tax_threshold:
                    amount = int((net - cfg.tax_threshold) * cfg.tax_percent // 100)
                    if amount:
                        finals[s] -= amount
                        tax[s] = amount
                        self.tax += amount
                        events.append(TaxWithheld(s, self.seats[s].account, amount))
        for s, final in finals.items():
            self.seats[s].stack = final
        self.rake += hand.rake
        result = HandResult(
            self.hand_number,
            plan.button,
            plan.small,
            plan.big,
            hand.setup.forced,
            {s: self.seats[s].account for s in finals},
            dict(self._before),
            dict(finals),
            hand.rake,
            fees,
            tax,
            hand,
            self._deal_committed,
        )
        self.last_result = result
        events.append(HandFinished(result))
        if cfg.reset_stacks:
            events += self._reset_stacks(
                [s for s in hand.seats if not self.seats[s].leave_after_hand]
            )
        for s in hand.seats:
            player = self.seats[s]
            player.pre_action = None
            if player.leave_after_hand:
                events += self._release(player, "left", now)
            elif player.sit_out_after_hand:
                events += self._sit_out_now(player, now, player.sit_out_reason)
            elif s in self._timed_out:
                events += self._sit_out_now(player, now, "timeout")  # R-SIT-2
            elif player.stack == 0:
                events += self._sit_out_now(player, now, "busted")
        return events

    def _reset_stacks(self, seats: list[int]) -> list[TableEvent]:
        """``reset_stacks``: set each of these seats' stacks back to the table's buy-in (after
        each hand, and before a deal after session fees). A player whose wallet cannot bring
        the chips that are missing (``may_reset``) keeps their stack, and is sat out as usual
        when it is empty."""
        target = self.config.buy_in_min
        events: list[TableEvent] = []
        for number in seats:
            player = self.seats[number]
            before = player.stack
            if before == target or (
                before < target and not self._may_reset(player.account, target - before)
            ):
                continue
            player.stack = target
            if target > before:
                player.brought += target - before
                self.brought += target - before
            else:
                self.taken += before - target
            events.append(StackReset(number, player.account, before, target))
        return events

    # ------------------------------------------------------------------ views

    def view(self, viewer: int | None = None) -> TableView:
        """What ``viewer`` (a seat; ``None``: an observer) may see: no hole card of anyone else
        before it is shown (R-DEAL-4)."""
        hand = self.hand
        in_hand = set(hand.seats) if hand is not None and not hand.is_over else set()
        seats = tuple(
            SeatInfo(
                n,
                s.account,
                s.stack if n not in in_hand or hand is None else hand.stack_of(n),
                s.sitting_out,
                s.marker,
                s.owes.value,
                s.disconnected,
                n in in_hand,
                s.away,
            )
            for n, s in sorted(self.seats.items())
        )
        plan = self.plan
        # The last hand's cards are that hand's players': a player who took a seat since then
        # sees the finished hand as an observer does.
        hand_viewer = viewer
        if hand is not None and hand.is_over and viewer is not None:
            result = self.last_result
            player = self.seats.get(viewer)
            played = result.accounts.get(viewer) if result is not None else None
            if player is None or played != player.account:
                hand_viewer = None
        return TableView(
            viewer,
            self.config.info(),
            seats,
            plan.button if plan else None,
            plan.small if plan else None,
            plan.big if plan else None,
            self.hand_number,
            hand.view_for(hand_viewer) if hand is not None else None,
            hand.to_act if hand is not None else None,
            self._clock.deadline if self._clock is not None else None,
            len(self.waiting),
            self._clock.started if self._clock is not None else None,
            self._clock.countdown_at if self._clock is not None else None,
            self.turn_id,
            self._clock.bank_at if self._clock is not None else None,
        )

    @property
    def turn_id(self) -> int | None:
        """The id of the turn in progress (``TurnStarted.turn_id``): the number of actions in
        the hand's log, which no action changes while a turn waits; ``None`` between turns."""
        hand = self.hand
        if self._clock is None or hand is None or hand.is_over:
            return None
        return len(hand.log)


def _pre_action(pre: PreAction, legal: LegalActions) -> Action | None:
    """The action a pre-action choice stands for, if still valid (R-AUTO-1)."""
    kind = pre.kind
    if kind is PreActionKind.CHECK_FOLD:
        return Check() if legal.check else Fold()
    if kind is PreActionKind.CHECK:
        return Check() if legal.check else None
    if kind is PreActionKind.CALL_ANY:
        return Check() if legal.check else Call()
    if kind is PreActionKind.FOLD:
        return Fold() if legal.fold else None
    if kind is PreActionKind.CALL:
        return Call() if legal.call is not None and legal.call == pre.amount else None
    return None

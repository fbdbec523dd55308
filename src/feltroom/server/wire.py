"""What each connection is sent: table events and table views turned into wire messages.

Sans-I/O and pure: ``messages_for`` takes a batch of events as one table reported them and the
viewer (a seat, or ``None`` for an observer) and returns the messages that viewer may receive.
Hidden information leaves only here, and only by these rules (R-DEAL-4):

- a player's own hole cards go to that player alone (``hole_cards``), read from the engine's
  view for that seat; nobody else's cards are ever sent before they are shown at the table;
- blind prompts, seat offers, pre-actions used or cancelled and tax withheld go to their owner
  only; the legal actions of a turn go only to the player to act (R-BET-6);
- a finished hand is summarised (``hand_result``) with the cards shown at the table only; the
  engine's hand object, which holds every card, never goes near the encoder.

Events are listed one by one below (``_PUBLIC``): a new event type is not sent until it is
added there, so a field that should stay private cannot slip out by default.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from enum import Enum
from typing import Any

from feltroom.cards import Card
from feltroom.evaluate import HandCategory, evaluate
from feltroom.room.events import (
    HandVoided,
    PlayerMoved,
    TablePaused,
    TableReloaded,
    TableResumed,
)
from feltroom.room.runtime.host import WatchedTable
from feltroom.rules import (
    BoardDealt,
    Called,
    CardsMucked,
    CardsShown,
    Checked,
    Folded,
    ForcedBet,
    Hand,
    HandEnded,
    HoleCardsDealt,
    LegalActions,
    Posted,
    PotAwarded,
    Protected,
    Raised,
    RunsChosen,
    UncalledBetReturned,
    build_pots,
)
from feltroom.server.protocol import FrameCache, legal_dict
from feltroom.table import (
    BlindDeclined,
    BlindPrompt,
    BlindsMissed,
    CameBack,
    ChipsAdded,
    CountdownStarted,
    Disconnected,
    FeeCharged,
    FirstButtonDrawn,
    HandFinished,
    HandStarted,
    PlayerSeated,
    PreActionCancelled,
    PreActionUsed,
    ProtectionUsed,
    Resumed,
    RunTwiceAnswered,
    RunTwiceOffered,
    RunTwiceTimedOut,
    SatIn,
    SatOut,
    Seat,
    SeatChanged,
    SeatOffered,
    SeatOfferExpired,
    SeatReleased,
    StackReset,
    TableView,
    TaxWithheld,
    TimeBankStarted,
    TimedOut,
    TurnStarted,
    WaitingListJoined,
    WaitingListLeft,
    WentAway,
)

__all__ = [
    "Fanout",
    "describe_hand",
    "hand_strength",
    "legal_of",
    "messages_for",
    "pots_message",
    "seat_settings",
    "snapshot",
    "snapshot_messages",
    "to_wire",
]

Message = dict[str, Any]

# Events everybody at the table (players and observers) sees, with all their fields.
_PUBLIC: tuple[type, ...] = (
    PlayerSeated,
    ChipsAdded,
    StackReset,
    SatOut,
    SatIn,
    SeatReleased,
    SeatChanged,
    WaitingListJoined,
    WaitingListLeft,
    FirstButtonDrawn,  # the button draw is dealt face up (R-BUTTON-1)
    BlindsMissed,
    BlindDeclined,
    HandStarted,
    CountdownStarted,
    TimeBankStarted,
    TimedOut,
    WentAway,  # R-TOURN-6: the table sees who is away (docs/protocol.md, `away`)
    CameBack,
    ProtectionUsed,
    Disconnected,  # R-TIME-4: the table sees who is disconnected
    Resumed,
    FeeCharged,
    Posted,
    HoleCardsDealt,  # which seats got cards; the cards go separately to their owners
    Folded,
    Checked,
    Called,
    Raised,
    Protected,
    UncalledBetReturned,
    BoardDealt,
    CardsShown,
    CardsMucked,
    PotAwarded,
    HandEnded,
    RunTwiceOffered,  # who is asked, until when (R-HOME-4); the question goes to them alone
    RunTwiceAnswered,
    RunTwiceTimedOut,
    RunsChosen,
    HandVoided,
    TablePaused,
    TableResumed,
    TableReloaded,
)
# Events only the seat they name sees.
_OWNER: tuple[type, ...] = (PreActionUsed, PreActionCancelled, TaxWithheld)

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_KINDS: dict[type, str] = {}


def _kind(cls: type) -> str:
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _CAMEL.sub("_", cls.__name__).lower()
    return kind


def to_wire(value: Any) -> Any:
    """A value as JSON can carry it: cards as text, enums by value, tuples as lists,
    ``ForcedBet`` and other dataclasses as objects."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    if isinstance(value, ForcedBet):
        return {"seat": value.seat, "kind": value.kind.value, "amount": value.amount}
    return value


def _event(table: str, hand: int | None, event: Any) -> Message:
    message: Message = {"type": "event", "table": table, "hand": hand, "kind": _kind(type(event))}
    for f in fields(event):
        name = f.name
        if name in message:  # a field named like one of the message's own
            name = _RENAMED[(type(event).__name__, name)]
        message[name] = to_wire(getattr(event, f.name))
    return message


# Event fields whose names the message itself uses: renamed on the wire.
_RENAMED = {("Posted", "kind"): "forced", ("FeeCharged", "kind"): "fee"}


def _turn(table: str, hand_id: int | None, event: TurnStarted, legal: Message | None) -> Message:
    return {
        "type": "turn",
        "table": table,
        "hand": hand_id,
        "seat": event.seat,
        "countdown_at": event.countdown_at,
        "bank_at": event.bank_at,
        "deadline": event.deadline,
        "turn_id": event.turn_id,
        "legal": legal,
    }


def legal_of(legal: LegalActions | None) -> Message | None:
    """The legal actions as the wire carries them (R-BET-6), ``None`` when there are none."""
    return None if legal is None else legal_dict(legal)


def _hand_result(table: str, hand_id: int | None, event: HandFinished) -> Message:
    result = event.result
    hand: Hand = result.hand
    shown = hand.shown
    return {
        "type": "hand_result",
        "table": table,
        "hand": hand_id,
        "pots": [
            {
                "amount": pot.amount,
                "rake": pot.rake,
                "winners": list(pot.winners),
                "shares": list(pot.shares),
                "runs": [
                    {"winners": list(winners), "shares": list(shares)}
                    for winners, shares in pot.runs
                ],
            }
            for pot in hand.results
        ],
        "stacks": {str(seat): stack for seat, stack in sorted(result.after.items())},
        "shown": {
            str(seat): to_wire(hand.hole_cards(seat)) for seat in hand.seats if seat in shown
        },
        "hands": {
            str(seat): made
            for seat in hand.seats
            if seat in shown and (made := showdown_hand(hand.hole_cards(seat), hand.board))
        },
        "rake": result.rake,
        **_second_run(hand, shown),
    }


def _second_run(hand: Hand, shown: frozenset[int]) -> Message:
    """A board run twice (R-HOME-4): the second run's board and the shown hands on it (empty
    for a board dealt once)."""
    board = hand.second_board
    if not board:
        return {"second_board": [], "second_hands": {}}
    return {
        "second_board": [str(card) for card in board if card is not None],
        "second_hands": {
            str(seat): made
            for seat in hand.seats
            if seat in shown and (made := showdown_hand(hand.hole_cards(seat), board))
        },
    }


def showdown_hand(
    hole: Sequence[Card | None], board: Sequence[Card | None]
) -> dict[str, Any] | None:
    """A shown hand at the showdown (R-SHOW-1): its words ("Flush, Ace high") and the five cards
    that make it, from the two hole cards and the five cards of the board; ``None`` before the
    board is complete or without both hole cards."""
    cards = [c for c in (*hole, *board) if c is not None]
    if len(cards) != 7:
        return None
    best = evaluate(cards)
    five = next(c for c in itertools.combinations(cards, 5) if evaluate(c) == best)
    return {"description": best.description, "cards": [str(c) for c in five]}


def describe_hand(hole: Sequence[Card | None], board: Sequence[Card | None]) -> str | None:
    """A player's current hand in words ("Two Pair, Kings and Sevens"), from their two hole
    cards and the board dealt so far; ``None`` without two known hole cards. Before the flop
    the two cards alone: a pair or the high card; from the flop the evaluator's best five."""
    cards = [c for c in hole if c is not None]
    if len(cards) != 2:
        return None
    seen = cards + [c for c in board if c is not None]
    if len(seen) >= 5:
        return evaluate(seen).description
    high = max(cards, key=lambda c: c.rank)
    if cards[0].rank == cards[1].rank:
        return f"{HandCategory.ONE_PAIR.title}, {high.rank.plural}"
    return f"{HandCategory.HIGH_CARD.title}, {high.rank.noun}"


def hand_strength(table: str, hand_id: int | None, hand: Hand, seat: int) -> Message | None:
    """The ``hand_strength`` message for ``seat``'s player: their current hand in words, while
    they hold cards in ``hand`` (dealt in and not folded); ``None`` otherwise."""
    if seat not in hand.seats or hand.folded[hand.seats.index(seat)]:
        return None
    description = describe_hand(hand.hole_cards(seat), hand.board)
    if description is None:
        return None
    return {
        "type": "hand_strength",
        "table": table,
        "hand": hand_id,
        "seat": seat,
        "description": description,
    }


def pots_message(table: str, hand_id: int | None, hand: Hand) -> Message:
    """The ``pots`` message: the main pot and the side pots gathered from the betting rounds
    so far (this round's bets are still in front of the players), each with the seats that can
    win it (R-ALLIN-2). Everything in it follows from the public actions."""
    collected = [c - b for c, b in zip(hand.contributions, hand.bets, strict=True)]
    live = [not folded for folded in hand.folded]
    seats = hand.seats
    return {
        "type": "pots",
        "table": table,
        "hand": hand_id,
        "pots": [
            {"amount": amount, "seats": [seats[p] for p in eligible]}
            for amount, eligible in build_pots(collected, live, hand.dead_money)
            if amount > 0
        ],
    }


def _once(
    cache: dict[int, Message], key: int, build: Callable[..., Message], *args: Any
) -> Message:
    """The message kept under ``key``, built by ``build(*args)`` the first time."""
    message = cache.get(key)
    if message is None:
        message = cache[key] = build(*args)
    return message


def messages_for(
    table: str,
    hand_id: int | None,
    events: Sequence[object],
    viewer: int | None,
    player: str | None,
    hand: Hand | None,
    shared: dict[int, Message] | None = None,
) -> list[Message]:
    """The messages for one viewer of a batch of events: ``viewer`` is their seat (``None`` for
    an observer), ``player`` their account (seat offers name accounts), ``hand`` the table's
    current hand (for the viewer's own hole cards and legal actions). ``shared``, kept by the
    caller across the viewers of one batch, holds the messages that are the same for everyone,
    so that each is built (and can be encoded) once."""
    out: list[Message] = []
    cache: dict[int, Message] = {} if shared is None else shared
    for event in events:
        if isinstance(event, _PUBLIC):
            out.append(_once(cache, id(event), _event, table, hand_id, event))
            if (
                isinstance(event, HoleCardsDealt)
                and viewer is not None
                and viewer in event.seats
                and hand is not None
            ):
                out.append(
                    {
                        "type": "hole_cards",
                        "table": table,
                        "hand": hand_id,
                        "seat": viewer,
                        "cards": to_wire(hand.hole_cards(viewer)),
                    }
                )
            if isinstance(event, RunTwiceOffered) and viewer is not None and viewer in event.seats:
                out.append(
                    {
                        "type": "run_twice",
                        "table": table,
                        "hand": hand_id,
                        "deadline": event.deadline,
                    }
                )
            if isinstance(event, BoardDealt) and hand is not None:
                # (a negative key: apart from the events' own)
                out.append(_once(cache, -id(event), pots_message, table, hand_id, hand))
            if (
                isinstance(event, (HoleCardsDealt, BoardDealt))
                and viewer is not None
                and hand is not None
            ):
                strength = hand_strength(table, hand_id, hand, viewer)
                if strength is not None and (
                    isinstance(event, BoardDealt) or viewer in event.seats
                ):
                    out.append(strength)
        elif isinstance(event, TurnStarted):
            if viewer == event.seat and hand is not None and hand.to_act == viewer:
                out.append(_turn(table, hand_id, event, legal_of(hand.legal_actions())))
            else:  # everyone else: the same message, without legal actions
                out.append(_once(cache, id(event), _turn, table, hand_id, event, None))
        elif isinstance(event, HandFinished):
            out.append(_once(cache, id(event), _hand_result, table, hand_id, event))
        elif isinstance(event, _OWNER):
            if viewer is not None and viewer == getattr(event, "seat", None):
                out.append(_event(table, hand_id, event))
        elif isinstance(event, BlindPrompt):
            if viewer == event.seat:
                out.append(
                    {
                        "type": "blind_prompt",
                        "table": table,
                        "amount": event.amount,
                        "expires": event.expires,
                    }
                )
        elif isinstance(event, SeatOffered):
            if player is not None and player == event.account:
                out.append(
                    {
                        "type": "seat_offer",
                        "table": table,
                        "seat": event.seat,
                        "expires": event.expires,
                    }
                )
        elif isinstance(event, SeatOfferExpired) and player == event.account:
            out.append(_event(table, hand_id, event))
        # anything else is not for the wire
    return out


def moved_message(event: PlayerMoved) -> Message:
    """The ``moved`` message: a tournament moved the player to another table (R-TOURN-8)."""
    return {
        "type": "moved",
        "tournament": event.tournament,
        "from_table": event.from_table,
        "table": event.to_table,
        "seat": event.seat,
        "reason": event.reason,
    }


def seat_settings(seat: Seat | None, straddle: bool = False) -> dict[str, bool | str] | None:
    """The settings of the viewer's own seat a snapshot carries (``None`` without a seat);
    ``straddle`` only at a table that allows straddles (R-HOME-3)."""
    if seat is None:
        return None
    settings: dict[str, bool | str] = {
        "auto_post": seat.auto_post,
        "auto_muck": seat.auto_muck,
        "auto_rebuy": seat.auto_rebuy,
        "run_twice": seat.run_twice,
    }
    if straddle:
        settings["straddle"] = seat.straddle
    return settings


def snapshot(
    table: str,
    hand_id: int | None,
    view: TableView,
    muted: Sequence[str] = (),
    settings: Mapping[str, bool | str] | None = None,
) -> Message:
    """A full picture of the table as the viewer may see it (joining, observing, resuming);
    ``settings`` are the viewer's own seat settings (``seat_settings``) when seated."""
    hand = view.hand
    in_hand = {p.seat: p for p in hand.players} if hand is not None else {}
    seats = []
    for info in view.seats:
        player = in_hand.get(info.seat)
        seats.append(
            {
                "seat": info.seat,
                "player": info.account,
                "stack": info.stack,
                "sitting_out": info.sitting_out,
                "marker": info.marker,
                "owes": info.owes,
                "disconnected": info.disconnected,
                "in_hand": info.in_hand,
                "away": info.away,
                "bet": player.bet if player is not None else 0,
                "folded": player.folded if player is not None else False,
                "all_in": player.all_in if player is not None else False,
                "cards": to_wire(player.cards)
                if player is not None and player.cards is not None
                else None,
            }
        )
    board = [str(c) for c in hand.board if c is not None] if hand is not None else []
    return {
        "type": "snapshot",
        "table": table,
        "you": view.viewer,
        "view": {
            "info": view.info,
            "button": view.button,
            "small": view.small,
            "big": view.big,
            "hand": hand_id if hand is not None and not hand.over else None,
            "hand_number": view.hand_number,
            "seats": seats,
            "board": board,
            "pot": hand.pot if hand is not None else 0,
            "to_act": view.to_act,
            "deadline": view.deadline,
            "turn_started": view.turn_started,
            "countdown_at": view.countdown_at,
            "turn_id": view.turn_id,
            "bank_at": view.bank_at,
            "second_board": [str(c) for c in hand.second_board if c is not None]
            if hand is not None
            else [],
            "run_twice_deadline": view.run_twice_deadline,
            "run_twice_asked": list(view.run_twice_asked),
            "waiting": view.waiting,
            "legal": legal_of(hand.legal) if hand is not None else None,
            "muted": sorted(muted),
            "settings": dict(settings) if settings is not None else None,
        },
    }


def snapshot_messages(
    runner: WatchedTable, viewer: int | None, muted: Sequence[str] = ()
) -> list[Message]:
    """What a viewer (their seat, ``None`` for an observer) gets to see the table afresh
    (joining, observing, resuming, after the table was rebuilt): the snapshot with their own
    seat's settings, and while a hand is played the pots once there is a board and the seat's
    hand strength."""
    table = runner.table
    settings = seat_settings(
        table.seats.get(viewer) if viewer is not None else None, table.config.straddle
    )
    out = [snapshot(runner.table_id, runner.playing, table.view(viewer), muted, settings)]
    hand = table.hand
    if hand is not None and not hand.is_over and hand.board:
        out.append(pots_message(runner.table_id, runner.playing, hand))
    if viewer is not None and hand is not None and not hand.is_over:
        strength = hand_strength(runner.table_id, runner.playing, hand, viewer)
        if strength is not None:
            out.append(strength)
    return out


class Fanout:
    """One batch of a table's events as each of its viewers gets it (the single process's
    ``Hub`` and a cluster's worker): the messages that are everyone's are built once
    (``shared``) and, sent through ``frames``, encoded once; ``reloaded``: the table was rebuilt
    (each viewer gets a snapshot after the batch)."""

    def __init__(self, runner: WatchedTable, events: Sequence[object]) -> None:
        self.runner = runner
        self.events = events
        hand = self.hand = runner.table.hand
        hand_id = runner.playing
        if hand_id is None and hand is not None and hand.is_over:
            hand_id = runner.last_hand_id  # after the hand: a show by choice (R-SHOW-4)
        self.hand_id = hand_id
        self.reloaded = any(isinstance(event, TableReloaded) for event in events)
        self.shared: dict[int, Message] = {}
        self.frames: FrameCache = {}

    def messages(self, viewer: int | None, player: str | None) -> list[Message]:
        """The batch for one viewer at the table (their seat, ``None`` for an observer)."""
        runner = self.runner
        return messages_for(
            runner.table_id, self.hand_id, self.events, viewer, player, self.hand, self.shared
        )

    def away(self, player: str) -> list[Message]:
        """The batch for a player who does not watch the table (on its waiting list): what
        names them (a seat offer), no hand."""
        return messages_for(self.runner.table_id, self.hand_id, self.events, None, player, None)

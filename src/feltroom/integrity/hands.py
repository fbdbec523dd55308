"""What the integrity report reads: stored hands and sign-ins, as plain values.

``StoredHand`` is a settled hand as the room keeps it (the house's whole truth: every dealt
player's hole cards, contributions and payouts, the public record and the table settings).
``played`` replays it through the rules engine (``feltroom.history.stored``) and returns a
``PlayedHand``: who acted on which street, facing whose bet, with how much owed, putting how much
in, and who was still in the hand or all-in at that moment. The signals work on played hands only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from feltroom.cards import Card, parse_cards
from feltroom.history.stored import replay_stored
from feltroom.rules.events import (
    BoardDealt,
    Called,
    Checked,
    Folded,
    Posted,
    Protected,
    Raised,
    UncalledBetReturned,
)

__all__ = ["Move", "PlayedHand", "PlayedSeat", "SignIn", "StoredHand", "StoredSeat", "played"]


@dataclass(frozen=True, slots=True)
class StoredSeat:
    """One player dealt into a stored hand."""

    account: str
    seat: int
    start_stack: int
    contribution: int
    payout: int
    hole: str
    showdown: bool


@dataclass(frozen=True, slots=True)
class StoredHand:
    """A settled hand as stored: ``record`` and ``settings`` are the room's JSON objects."""

    hand_id: int
    table_id: str
    started_at: float
    seats: tuple[StoredSeat, ...]
    record: Mapping[str, Any]
    settings: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SignIn:
    """One entry of the sign-in log."""

    account: str
    address: str
    user_agent: str
    at: float


@dataclass(frozen=True, slots=True)
class Move:
    """One player action in a played hand.

    ``kind`` is ``fold``, ``check``, ``call``, ``bet`` or ``raise``; ``added`` the chips it put in;
    ``owed`` what the player had to add to call before acting; ``facing`` the account whose bet or
    raise was the last one of the street (``None``: nobody bet yet; the blinds are not a bet);
    ``invested`` the player's chips in the pot before acting, ``forced`` the part of them that
    were forced bets (blinds, antes, posts); ``live`` the other accounts still in
    the hand (not folded) and ``all_in`` those of them all-in, as the player acted; ``board`` the
    board cards dealt by then.
    """

    street: int
    account: str
    kind: str
    added: int
    owed: int
    facing: str | None
    invested: int
    forced: int
    live: frozenset[str]
    all_in: frozenset[str]
    board: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayedSeat:
    """A player of a played hand: the stored row and the hole cards as cards; ``showdown``: the
    player stayed to the showdown."""

    account: str
    seat: int
    contribution: int
    payout: int
    hole: tuple[Card, ...]
    showdown: bool = False

    @property
    def net(self) -> int:
        """What the hand won (positive) or lost (negative) the player, in chips."""
        return self.payout - self.contribution


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A stored hand replayed: its players, its moves in order, its big blind (the unit the
    report counts chips in) and its board (both boards of a board run twice)."""

    hand_id: int
    table_id: str
    started_at: float
    big_blind: int
    players: tuple[PlayedSeat, ...]
    moves: tuple[Move, ...]
    board: tuple[Card, ...]
    second_board: tuple[Card, ...] = ()
    """A board run twice (R-HOME-4): the second run's whole board; ``board`` is the first's."""

    def player(self, account: str) -> PlayedSeat:
        for seat in self.players:
            if seat.account == account:
                return seat
        raise KeyError(f"{account} was not dealt into hand {self.hand_id}")


def played(hand: StoredHand) -> PlayedHand:
    """Replay a stored hand and list its moves. Raises ``ValueError`` (or the engine's error)
    when the stored hand cannot be replayed (``feltroom.history.stored.replay_stored``)."""
    holes = {row.seat: parse_cards(row.hole) for row in hand.seats if row.hole}
    engine = replay_stored(hand.record, hand.settings, holes)
    account = {row.seat: row.account for row in hand.seats}
    street = 0
    board: list[Card] = []
    round_bet: dict[int, int] = dict.fromkeys(engine.seats, 0)
    invested: dict[int, int] = dict.fromkeys(engine.seats, 0)
    forced: dict[int, int] = dict.fromkeys(engine.seats, 0)
    folded: set[int] = set()
    all_in: set[int] = set()
    aggressor: int | None = None
    moves: list[Move] = []

    def move(seat: int, kind: str, added: int) -> None:
        top = max(round_bet.values())
        others = [s for s in engine.seats if s != seat and s not in folded]
        moves.append(
            Move(
                street,
                account[seat],
                kind,
                added,
                top - round_bet[seat],
                None if aggressor is None else account[aggressor],
                invested[seat],
                forced[seat],
                frozenset(account[s] for s in others),
                frozenset(account[s] for s in others if s in all_in),
                tuple(board),
            )
        )

    for event in engine.events:
        if isinstance(event, Posted):
            round_bet[event.seat] += event.amount
            invested[event.seat] += event.amount
            forced[event.seat] += event.amount
            if event.all_in:
                all_in.add(event.seat)
        elif isinstance(event, Folded):
            move(event.seat, "fold", 0)
            folded.add(event.seat)
        elif isinstance(event, Checked):
            move(event.seat, "check", 0)
        elif isinstance(event, Called):
            move(event.seat, "call", event.amount)
            round_bet[event.seat] += event.amount
            invested[event.seat] += event.amount
            if event.all_in:
                all_in.add(event.seat)
        elif isinstance(event, Raised):
            added = event.to - round_bet[event.seat]
            move(event.seat, "bet" if event.bet else "raise", added)
            round_bet[event.seat] = event.to
            invested[event.seat] += added
            aggressor = event.seat
            if event.all_in:
                all_in.add(event.seat)
        elif isinstance(event, Protected):
            all_in.add(event.seat)
        elif isinstance(event, UncalledBetReturned):
            invested[event.seat] -= event.amount
        elif isinstance(event, BoardDealt) and event.run != 2:  # the second run: second_board
            street = event.street
            board.extend(event.cards)
            round_bet = dict.fromkeys(engine.seats, 0)
            aggressor = None
    players = tuple(
        PlayedSeat(
            row.account,
            row.seat,
            row.contribution,
            row.payout,
            parse_cards(row.hole),
            row.showdown,
        )
        for row in sorted(hand.seats, key=lambda row: row.seat)
    )
    big_blind = int(hand.record.get("big_blind") or 0) or 1
    return PlayedHand(
        hand.hand_id,
        hand.table_id,
        hand.started_at,
        big_blind,
        players,
        tuple(moves),
        tuple(board),
        tuple(card for card in engine.second_board if card is not None),
    )

"""What one seat (or an observer) may see of a hand: the only way hidden cards leave the engine.

A player sees their own hole cards; everyone sees cards that were shown. Nobody sees another
player's hole cards before they are shown (R-DEAL-4), burned cards (R-DEAL-2) or undealt cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from feltroom.cards import Card
from feltroom.rules.actions import LegalActions
from feltroom.rules.pots import PotResult

if TYPE_CHECKING:
    from feltroom.rules.hand import Hand

__all__ = ["HandView", "SeatView", "view_for"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One player as the viewer sees them; ``cards`` is ``None`` unless visible to the viewer."""

    seat: int
    stack: int
    bet: int
    folded: bool
    all_in: bool
    cards: tuple[Card | None, Card | None] | None


@dataclass(frozen=True, slots=True)
class HandView:
    """A hand as ``viewer`` (a seat, or ``None`` for an observer) may see it."""

    viewer: int | None
    street: int
    board: tuple[Card | None, ...]
    pot: int
    players: tuple[SeatView, ...]
    to_act: int | None
    legal: LegalActions | None
    over: bool
    results: tuple[PotResult, ...]
    second_board: tuple[Card | None, ...] = ()
    """The second run's whole board once the board was run twice (R-HOME-4)."""


def view_for(hand: Hand, viewer: int | None) -> HandView:
    """The view of ``hand`` for ``viewer``; ``legal`` is set only when the viewer is to act."""
    shown = hand.shown
    stacks, bets, folded, all_in = hand.stacks, hand.bets, hand.folded, hand.all_in
    players = tuple(
        SeatView(
            seat,
            stacks[p],
            bets[p],
            folded[p],
            all_in[p],
            hand.hole_cards(seat) if seat == viewer or seat in shown else None,
        )
        for p, seat in enumerate(hand.seats)
    )
    to_act = hand.to_act
    return HandView(
        viewer,
        hand.street,
        tuple(hand.board),
        hand.pot_total,
        players,
        to_act,
        hand.legal_actions() if to_act is not None and to_act == viewer else None,
        hand.is_over,
        hand.results,
        hand.second_board,
    )

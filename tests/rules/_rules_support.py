"""Builders for rules tests: hands with chosen cards, seats and stacks."""

from __future__ import annotations

from collections.abc import Sequence

from feltroom.cards import CARDS, Card, parse_cards
from feltroom.rules import Forced, ForcedBet, Hand, RakeRule, Structure, blinds


def deck_for(holes: Sequence[str], board: str = "") -> list[Card]:
    """A deck dealing ``holes[i]`` (two cards) to position i and ``board`` (up to 5 cards) as
    flop, turn and river; burns and the rest are the remaining cards in index order."""
    n = len(holes)
    chosen = [parse_cards(h) for h in holes]
    board_cards = list(parse_cards(board)) if board else []
    used = {c for h in chosen for c in h} | set(board_cards)
    rest = [c for c in CARDS if c not in used]
    deck: list[Card | None] = [None] * 52
    for i, (a, b) in enumerate(chosen):
        deck[i], deck[n + i] = a, b
    for k, pos in enumerate((1, 2, 3, 5, 7)):
        if k < len(board_cards):
            deck[2 * n + pos] = board_cards[k]
    filled = []
    for card in deck:
        filled.append(card if card is not None else rest.pop(0))
    return filled


def make_hand(
    structure: Structure,
    stacks: Sequence[int],
    *,
    sb: int = 1,
    bb: int = 2,
    ante: int = 0,
    holes: Sequence[str] | None = None,
    board: str = "",
    rake: RakeRule | None = None,
    forced: Sequence[ForcedBet] | None = None,
    show_losing: Sequence[int] = (),
) -> Hand:
    """Seats 1..n, button on seat n, so position i is seat i + 1 (seat 1 = small blind;
    heads-up seat 1 is the big blind and seat 2 the button)."""
    n = len(stacks)
    players = [(i + 1, stack) for i, stack in enumerate(stacks)]
    if forced is None:
        forced = blinds(players, n, sb, bb, ante)
    if holes is None:
        deck: list[Card] = list(CARDS)
    else:
        deck = deck_for(holes, board)
    return Hand(structure, players, n, forced, deck, rake, show_losing=show_losing)


def bb_post(seat: int, amount: int) -> ForcedBet:
    return ForcedBet(seat, Forced.BIG_BLIND, amount)

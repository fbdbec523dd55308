"""Random hands played by brains through the rules engine: every decision is checked to be
among the legal actions, and the brain sees only the seat's own view."""

from __future__ import annotations

import random
from collections.abc import Callable

from feltroom.cards import CARDS
from feltroom.rules import (
    Action,
    FixedLimit,
    Hand,
    HandView,
    LegalActions,
    NoLimit,
    PotLimit,
    blinds,
)
from feltroom.strategy import Brain

Decision = tuple[HandView, LegalActions, Action]


def play_hands(
    brains: Callable[[int], Brain], hands: int, seed: int
) -> tuple[list[Decision], list[Hand]]:
    """``hands`` random hands (2..9 players, no-limit, pot-limit and fixed-limit, stacks from a
    few chips to deep) where seat ``s`` is played by ``brains(s)``; every decision the brains
    made, with the view and the legal actions they were given."""
    rng = random.Random(seed)
    decisions: list[Decision] = []
    played: list[Hand] = []
    for _ in range(hands):
        n = rng.randint(2, 9)
        seats = sorted(rng.sample(range(1, 10), n))
        big = rng.choice((2, 10, 50))
        players = [
            (s, rng.choice((rng.randint(1, 4 * big), rng.randint(20 * big, 200 * big))))
            for s in seats
        ]
        structure = rng.choice((NoLimit(big), PotLimit(big), FixedLimit(big, 2 * big, 4)))
        button = rng.choice(seats)
        deck = list(CARDS)
        rng.shuffle(deck)
        hand = Hand(structure, players, button, blinds(players, button, big // 2, big), deck)
        by_seat = {s: brains(s) for s in seats}
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            view = hand.view_for(legal.seat)
            action = by_seat[legal.seat].choose(view, legal)
            assert legal.allows(action), (action, legal)  # type: ignore[arg-type]
            decisions.append((view, legal, action))
            hand.act(action)
        played.append(hand)
    return decisions, played

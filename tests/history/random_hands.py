"""Random hands played by the engine, for the PHH round-trip and PokerKit tests."""

from __future__ import annotations

import random
from fractions import Fraction

from feltroom.cards import CARDS
from feltroom.rules import (
    Call,
    Check,
    FixedLimit,
    Fold,
    Forced,
    ForcedBet,
    Hand,
    NoLimit,
    PotLimit,
    Protect,
    RaiseTo,
    RakeRule,
    blinds,
)


def play_random_hand(
    rng: random.Random,
    *,
    structures: tuple[str, ...] = ("NT", "PT", "FT"),
    extras: bool = True,
    rake: bool = True,
    pokerkit_safe: bool = False,
    table_actions: bool = False,
) -> Hand:
    """A hand with 2..10 players, unequal (sometimes tiny) stacks and random legal actions.

    ``extras`` adds what real tables produce besides blinds: a dead button seat, entry posts,
    dead blinds, straddles and antes. ``pokerkit_safe`` avoids what PokerKit cannot be configured
    to play our way: a blind posted all-in for less (we make the others call the full big blind,
    PokerKit only what was posted) and fixed-limit all-in raises of half a bet or more (a full
    raise under R-LIMIT-4, an incomplete one in PokerKit); fixed-limit stacks are then deep
    enough for no all-in at all, every stack covers its forced bets, and the limit cap is 4.
    ``table_actions`` adds what only the table does: protections (R-ALLIN-5) of any player still
    betting, and table-side folds (``forced=True``) of the player to act, also when checking is
    free (R-SIT-1, R-TIME-2).
    """
    n = rng.randint(2, 10)
    seats = sorted(rng.sample(range(1, 11), n))
    empty = [seat for seat in range(1, 11) if seat not in seats]
    button = rng.choice(empty) if extras and empty and rng.random() < 0.2 else rng.choice(seats)
    big = rng.choice((2, 4, 10, 50))
    small = big // 2
    players = [
        (seat, rng.choice((rng.randint(1, 3 * big), rng.randint(big, 300 * big)))) for seat in seats
    ]
    code = rng.choice(structures)
    if pokerkit_safe:
        floor = 40 * big if code == "FT" else 2 * big + small + 2
        players = [(seat, max(stack, floor + rng.randint(0, big))) for seat, stack in players]
    structure: NoLimit | PotLimit | FixedLimit
    if code == "NT":
        structure = NoLimit(big)
    elif code == "PT":
        structure = PotLimit(big)
    else:
        # PokerKit allows four raises on top of the big blind pre-flop and four bets later: our
        # cap of 4 bets (R-LIMIT-2) stays within that, a cap of 5 does not.
        cap = 4 if pokerkit_safe else rng.choice((4, 5))
        structure = FixedLimit(big, 2 * big, cap, uncapped_heads_up=extras)
    ante = rng.choice((0, 0, 1, small)) if extras or rng.random() < 0.3 else 0
    forced = list(blinds(players, button, small, big, ante))
    order = _clockwise(seats, button)
    if extras and n >= 4:
        roll = rng.random()
        if roll < 0.25:
            forced.append(ForcedBet(order[2], Forced.STRADDLE, 2 * big))
        elif roll < 0.5:
            forced.append(ForcedBet(rng.choice(order[2:]), Forced.POST, big))
        elif roll < 0.7:
            seat = rng.choice(order[2:])
            forced.append(ForcedBet(seat, Forced.DEAD, small))
            forced.append(ForcedBet(seat, Forced.POST, big))
    deck = list(CARDS)
    rng.shuffle(deck)
    rule = None
    if rake and rng.random() < 0.3:
        rule = RakeRule(Fraction(rng.choice((5, 10)), 100), rng.choice((None, 3 * big)))
    hand = Hand(structure, players, button, forced, deck, rule)
    while not hand.is_over:
        if table_actions:
            roll = rng.random()
            if roll < 0.04:
                candidates = [seat for seat in seats if hand.can(Protect(seat))]
                if candidates:
                    hand.protect(rng.choice(candidates))
                    continue
            elif roll < 0.08:
                hand.act(Fold(), forced=True)
                continue
        legal = hand.legal_actions()
        assert legal is not None
        r = rng.random()
        if legal.raise_min is not None and legal.raise_max is not None and r < 0.3:
            to = legal.raise_max if r < 0.06 else rng.randint(legal.raise_min, legal.raise_max)
            hand.act(RaiseTo(to))
        elif legal.fold and r < 0.45:
            hand.act(Fold())
        elif legal.check:
            hand.act(Check())
        else:
            hand.act(Call())
    return hand


def _clockwise(seats: list[int], button: int) -> list[int]:
    start = next((k for k, seat in enumerate(seats) if seat > button), 0)
    return seats[start:] + seats[:start]

"""PokerStars text round trip: engine hands exported with ``show_all=True`` and imported again
give the same hand; No-Limit hands without antes also read in PokerKit's PokerStars parser."""

from __future__ import annotations

import random
import warnings
from decimal import Decimal
from functools import cache

from feltroom.history import pokerstars, pokerstars_import
from feltroom.history.record import HandRecord
from feltroom.history.replay import record_from_hand, replay
from feltroom.money import PLAY, Currency
from feltroom.rules import Forced, Hand, NoLimit, Posted, PotAwarded

from .random_hands import play_random_hand

CURRENCIES = (Currency("USD", 2), PLAY, Currency("EUR", 2), Currency("GBP", 2))
HANDS = 1000
GENERAL = 650  # the rest are No-Limit hands PokerKit can play our way (no extras, no rake)


def _names(hand: Hand, k: int) -> dict[int, str]:
    # Names with spaces, and with colons for a third of the hands.
    if k % 3 == 0:
        return {seat: f"Seat {seat}: the player" for seat in hand.seats}
    return {seat: f"player {seat}" for seat in hand.seats}


def _unposted(hand: Hand) -> bool:
    """A forced bet its player could not post at all (the stack went on the ante): the text has
    no line for it, so it cannot come back (only the blinds are given back by position)."""
    posted = {(event.seat, event.kind) for event in hand.events if isinstance(event, Posted)}
    return any(bet.amount and (bet.seat, bet.kind) not in posted for bet in hand.setup.forced)


@cache
def _round_trip() -> tuple[list[Hand], list[dict[int, str]], list[str], list[HandRecord]]:
    rng = random.Random(20261201)
    hands: list[Hand] = []
    while len(hands) < HANDS:
        if len(hands) < GENERAL:
            hand = play_random_hand(rng)
        else:
            hand = play_random_hand(
                rng, structures=("NT",), extras=False, rake=False, pokerkit_safe=True
            )
        if not _unposted(hand):
            hands.append(hand)
    names = [_names(hand, k) for k, hand in enumerate(hands)]
    texts = [
        pokerstars.dumps(
            hand,
            hand_id=k + 1,
            table_name=f"Table {k % 7}",
            hero=None,
            names=names[k],
            currency=CURRENCIES[k % len(CURRENCIES)],
            seat_count=10,
            show_all=True,
        )
        for k, hand in enumerate(hands)
    ]
    # One file, hands separated by blank lines.
    result = pokerstars_import.loads("\n\n".join(texts))
    assert result.problems == ()
    return hands, names, texts, list(result.records)


def _forced_key(record: HandRecord) -> list[tuple[int, str, int]]:
    return sorted((bet.seat, bet.kind.value, bet.amount) for bet in record.forced_bets)


# Rules: R-HIST-2, R-RAKE-3, R-SHOW-5
def test_r_hist_2_r_rake_3_r_show_5_a_thousand_exported_hands_import_unchanged() -> None:
    """Every hand comes back with the same players, hole cards (the operator's full record, every
    mucked hand included), forced bets, actions (raise-to amounts, board, shows and mucks),
    collected amounts and rake pot by pot; replaying the import gives the same stacks."""
    hands, names, _, records = _round_trip()
    assert len(records) == HANDS
    structures = {type(hand.setup.structure).__name__ for hand in hands}
    assert structures == {"NoLimit", "PotLimit", "FixedLimit"}
    side_pots = raked = antes = 0
    for k, (hand, record) in enumerate(zip(hands, records, strict=True)):
        currency = CURRENCIES[k % len(CURRENCIES)]
        original = record_from_hand(
            hand, names=[names[k][seat] for seat in hand.seats], exponent=currency.exponent
        )
        assert record.hand_id == k + 1
        assert record.exponent == currency.exponent
        assert record.metadata["currency"] == currency.code
        assert record.structure is original.structure
        assert record.stakes == original.stakes
        assert record.button == original.button
        assert record.players == original.players
        assert _forced_key(record) == _forced_key(original)
        assert record.actions == original.actions
        # What each player collected, and the rake of each pot (R-RAKE-3).
        pots = [event for event in hand.events if isinstance(event, PotAwarded)]
        won = dict.fromkeys(hand.seats, 0)
        for pot in pots:
            for seat, share in zip(pot.winners, pot.shares, strict=True):
                won[seat] += share
        assert record.winnings == tuple(Decimal(won[seat]) for seat in record.seats)
        assert record.metadata["pots"] == tuple((pot.amount, pot.rake) for pot in pots)
        assert record.metadata["rake"] == hand.rake
        assert (record.rake.taken if record.rake else 0) == hand.rake
        final = dict(zip((s for s, _ in hand.setup.players), hand.final_stacks, strict=True))
        assert record.finishing_stacks == tuple(Decimal(final[s]) for s in record.seats)
        again = replay(record)
        assert again.final_stacks == tuple(final[seat] for seat, _ in again.setup.players)
        assert again.rake == hand.rake
        side_pots += len(pots) > 1
        raked += hand.rake > 0
        antes += any(bet.kind is Forced.ANTE for bet in hand.setup.forced)
    # The sample covers what it is meant to.
    assert side_pots > 100
    assert raked > 50
    assert antes > 100


def _odd_chips(hand: Hand) -> int:
    pots = [event for event in hand.events if isinstance(event, PotAwarded)]
    return sum((pot.amount - pot.rake) % len(pot.winners) for pot in pots if len(pot.winners) > 1)


def test_no_limit_hands_without_antes_read_in_pokerkit_to_the_same_stacks() -> None:
    """PokerKit's PokerStars parser (No Limit only, no antes or straddles, no rake) reads our
    text to the engine's final stacks; where PokerKit splits an odd chip in halves instead of
    giving it whole (R-POT-1) the totals agree and no player is off by more than the odd chips."""
    from pokerkit import HandHistory

    hands, names, texts, records = _round_trip()
    checked = exact = 0
    for k, (hand, text, record) in enumerate(zip(hands, texts, records, strict=True)):
        forced = {bet.kind for bet in hand.setup.forced}
        if (
            not isinstance(hand.setup.structure, NoLimit)
            or not forced <= {Forced.SMALL_BLIND, Forced.BIG_BLIND}
            or hand.rake
            or any(
                isinstance(event, Posted) and event.all_in and event.kind is not Forced.ANTE
                for event in hand.events
            )
        ):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PokerKit warns about the time zone field
            (history,) = HandHistory.from_pokerstars(text, parse_value=Decimal, error_status=True)
        state = list(history)[-1]
        theirs = dict(zip(history.players, state.stacks, strict=True))
        unit = CURRENCIES[k % len(CURRENCIES)].unit
        final = dict(zip((s for s, _ in hand.setup.players), hand.final_stacks, strict=True))
        ours = {names[k][seat]: final[seat] * unit for seat in hand.seats}
        again = replay(record)
        assert (
            dict(zip((s for s, _ in again.setup.players), again.final_stacks, strict=True)) == final
        )
        odd = _odd_chips(hand)
        if odd == 0:
            assert theirs == ours, text
            exact += 1
        else:
            assert sum(theirs.values()) == sum(ours.values()), text
            assert all(abs(theirs[name] - ours[name]) <= odd * unit for name in ours), text
        checked += 1
    assert checked >= 250
    assert exact >= checked - 30

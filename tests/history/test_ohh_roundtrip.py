"""OHH round trip: engine hands exported to OHH and imported back are the same hands."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

from feltroom.history import ohh, ohh_import, phh
from feltroom.history.record import ActionKind, HandRecord
from feltroom.history.replay import record_from_hand, replay
from feltroom.money import PLAY, Currency
from feltroom.rules import (
    Called,
    Checked,
    Folded,
    Hand,
    Posted,
    PotAwarded,
    Protected,
    Raised,
    UncalledBetReturned,
)

from .random_hands import play_random_hand

CURRENCIES = (PLAY, Currency("USD", 2), Currency("EUR", 2), Currency("GBP", 2))


def export(
    hand: Hand, rng: random.Random, *, hero: str | None = None, show_all: bool = True
) -> tuple[str, Currency]:
    """The OHH text of ``hand`` as ``hero`` may see it (every hole card with ``show_all``) and
    its currency."""
    currency = rng.choice(CURRENCIES)
    text = ohh.dumps(
        hand,
        hand_id=rng.randrange(10**9),
        table_name="Felt I",
        hero=hero,
        names={seat: f"p{seat}" for seat in hand.seats},
        currency=currency,
        seat_count=10,
        show_all=show_all,
    )
    return text, currency


def import_one(text: str) -> HandRecord:
    result = ohh_import.loads(text)
    assert result.problems == ()
    (record,) = result.records
    return record


def by_seat(hand: Hand) -> dict[int, int]:
    return dict(zip((seat for seat, _ in hand.setup.players), hand.final_stacks, strict=True))


def plays(hand: Hand) -> list[tuple[str, int, int]]:
    """Posts, player actions and uncalled bets, with their amounts."""
    out: list[tuple[str, int, int]] = []
    for event in hand.events:
        if isinstance(event, Posted):
            out.append((event.kind.value, event.seat, event.amount))
        elif isinstance(event, Folded | Checked):
            out.append((type(event).__name__, event.seat, 0))
        elif isinstance(event, Called | UncalledBetReturned):
            out.append((type(event).__name__, event.seat, event.amount))
        elif isinstance(event, Raised):
            out.append(("Raised", event.seat, event.to))
    return out


def pots(hand: Hand) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    """Each pot: amount, rake, winners, what each winner received."""
    return [
        (e.amount, e.rake, e.winners, e.shares) for e in hand.events if isinstance(e, PotAwarded)
    ]


def test_random_engine_hands_round_trip_through_ohh() -> None:
    """1,200 random hands (fixed-, pot- and no-limit; dead buttons, antes, straddles, posts and
    dead blinds; side pots; rake on some tables) exported with every hole card and imported
    back: the same seats, stacks, forced bets, actions and amounts, pots, rake per pot
    (R-RAKE-3) and winnings. Every other hand also has the table's own actions: table-side folds
    and protections (R-ALLIN-5), which OHH does not write but our import reads back from a
    feltroom file: a player the engine waits for who acts no more."""
    rng = random.Random(2026)
    structures = {"NT": 0, "PT": 0, "FT": 0}
    raked = side_pots = 0
    protected = 0
    for number in range(1200):
        hand = play_random_hand(rng, table_actions=number % 2 == 1)
        text, currency = export(hand, rng)
        record = import_one(text)
        original = record_from_hand(hand, exponent=currency.exponent)
        structures[original.structure.value] += 1
        assert record.structure is original.structure
        assert record.button == original.button
        assert record.exponent == currency.exponent
        assert [(p.seat, p.stack, p.hole) for p in record.players] == [
            (p.seat, p.stack, p.hole) for p in original.players
        ]
        # Identical actions: bets and raises as raise-to totals, the board, shows and mucks.
        assert record.actions == original.actions
        again = replay(record)
        assert plays(again) == plays(hand)
        expected_pots = pots(hand)
        assert pots(again) == expected_pots
        final = by_seat(hand)
        assert by_seat(again) == final
        assert record.finishing_stacks == tuple(Decimal(final[seat]) for seat in record.seats)
        won: dict[int, int] = {}
        for _, _, winners, shares in expected_pots:
            for seat, share in zip(winners, shares, strict=True):
                won[seat] = won.get(seat, 0) + share
        assert record.winnings == tuple(Decimal(won.get(seat, 0)) for seat in record.seats)
        assert record.metadata["pots"] == tuple((p[0], p[1]) for p in expected_pots)
        # Protections are read back where the engine needs them, never in a hand without any.
        assert not record.protections or any(isinstance(e, Protected) for e in hand.events)
        protected += bool(record.protections)
        raked += hand.rake > 0
        side_pots += len(expected_pots) > 1
    assert min(structures.values()) > 300
    assert raked > 100
    assert side_pots > 100
    assert protected > 50


def test_r_rake_3_rake_per_pot_in_the_ohh_and_phh_exports_survives_the_round_trip() -> None:
    """R-RAKE-3: each pot's rake is written in the OHH export (``pots[].rake``, split among the
    winners as ``contributed_rake``) and comes back from the import pot by pot; the PHH export
    writes the rake rule and the hand's rake (``_rake_percent``, ``_rake_cap``, ``_rake``), from
    which its replay takes the same rake pot by pot."""
    rng = random.Random(33)
    checked = 0
    while checked < 150:
        hand = play_random_hand(rng)
        rakes = [rake for _, rake, _, _ in pots(hand)]
        if not hand.rake:
            continue
        checked += 1
        text, currency = export(hand, rng)
        document: dict[str, Any] = json.loads(text, parse_float=Decimal)["ohh"]
        unit = Decimal(1).scaleb(-currency.exponent)
        assert [pot["rake"] for pot in document["pots"]] == [rake * unit for rake in rakes]
        for pot in document["pots"]:
            assert sum(win["contributed_rake"] for win in pot["player_wins"]) == pot["rake"]
        record = import_one(text)
        assert record.exponent == currency.exponent
        assert record.metadata["rake"] == hand.rake
        assert record.rake is not None
        assert record.rake.taken == hand.rake
        assert [rake for _, rake, _, _ in pots(replay(record))] == rakes
        written = phh.dumps(record_from_hand(hand, exponent=currency.exponent))
        assert "_rake = " in written
        assert [rake for _, rake, _, _ in pots(replay(phh.loads(written)))] == rakes


def test_r_hist_2_an_imported_hero_history_knows_no_hidden_hole_card() -> None:
    """R-HIST-2: a hero's OHH history, imported, knows the hero's cards and those of the players
    who reached the showdown, never a folded player's; an observer's only the cards shown."""
    rng = random.Random(5)
    for _ in range(150):
        hand = play_random_hand(rng)
        hero = rng.choice([*hand.seats, None])
        text, _ = export(hand, rng, hero=None if hero is None else f"p{hero}", show_all=False)
        record = import_one(text)
        known = {p.seat for p in record.players if any(card is not None for card in p.hole)}
        shown = {
            a.seat for a in record.actions if a.kind is ActionKind.SHOW and any(a.cards)
        } | set(hand.shown)
        allowed = set(shown) if hero is None else {hero, *hand.showdown_seats, *hand.shown}
        assert known <= allowed
        assert shown <= allowed
        if hero is not None:
            assert record.players[record.index_of(hero)].hole == hand.hole_cards(hero)
        replay(record)  # what a player's history holds still replays

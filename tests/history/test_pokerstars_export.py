"""PokerStars text export of engine hands: exact lines, reconciled summaries, R-HIST-2."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

import pytest

from feltroom.cards import Card, parse_cards
from feltroom.history import ohh, pokerstars, pokerstars_import
from feltroom.history.tournament_info import Finish, TournamentInfo, ordinal, roman
from feltroom.money import PLAY, Currency
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
    RaiseTo,
    RakeRule,
    blinds,
)

from .corpora import POKERSTARS
from .random_hands import play_random_hand

USD = Currency("USD", 2)
STARTED = datetime(2026, 12, 1, 15, 0, 0, tzinfo=UTC)
SHARED = POKERSTARS  # the real samples, kept in tests/data


def deck_for(holes: list[str], board: str) -> list[Card]:
    """Hole cards by position (first left of the button first), then the board; the rest of
    the deck (burns included) in index order (the engine's dealing order, R-DEAL-1..3)."""
    n = len(holes)
    chosen = [parse_cards(h) for h in holes]
    board_cards = list(parse_cards(board))
    used = {c for h in chosen for c in h} | set(board_cards)
    rest = iter(c for c in parse_cards(" ".join(_all_cards())) if c not in used)
    deck: list[Card | None] = [None] * 52
    for i, (a, b) in enumerate(chosen):
        deck[i], deck[n + i] = a, b
    for k, offset in enumerate((1, 2, 3, 5, 7)):
        deck[2 * n + offset] = board_cards[k]
    return [card if card is not None else next(rest) for card in deck]


def _all_cards() -> list[str]:
    return [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


def side_pot_hand() -> Hand:
    """Five players, NL $0.05/$0.10, three all-ins for different amounts, an uncalled bet,
    rake 5% capped at $3: a main pot and two side pots."""
    players = [(1, 200), (2, 1500), (3, 1000), (4, 1000), (6, 2000)]
    deck = deck_for(["AsAd", "KsKd", "7c2d", "QsQd", "JsJd"], "3c4h9h2h8s")
    hand = Hand(
        NoLimit(10), players, 6, blinds(players, 6, 5, 10), deck, RakeRule(Fraction(1, 20), 300)
    )
    hand.act(Fold())  # seat 3
    hand.act(RaiseTo(1000))  # seat 4, all-in
    hand.act(RaiseTo(2000))  # seat 6, all-in; 500 of it is never called
    hand.act(Call())  # seat 1, all-in for 200
    hand.act(Call())  # seat 2, all-in for 1500
    assert hand.is_over
    return hand


NAMES = {1: "Ann", 2: "Bob", 3: "Cat", 4: "Dan", 6: "Eve"}


def limit_muck_hand() -> Hand:
    """Fixed limit $0.10/$0.20, three players: one folds pre-flop, two check the river down;
    the second to show has the worse hand and mucks it."""
    players = [(1, 500), (2, 500), (3, 500)]
    deck = deck_for(["KhQh", "2c2d", "8s9s"], "As7d4cJhTd")
    hand = Hand(FixedLimit(10, 20), players, 3, blinds(players, 3, 5, 10), deck)
    hand.act(RaiseTo(20))  # seat 3 raises
    hand.act(Call())  # seat 1
    hand.act(Fold())  # seat 2
    for _ in range(3):
        hand.act(Check())
        hand.act(Check())
    assert hand.is_over
    return hand


def pot_limit_hand() -> Hand:
    """Pot limit $0.05/$0.10 heads-up with rake 5%: a flop bet folded to, returned uncalled."""
    players = [(1, 1000), (2, 1000)]
    deck = deck_for(["AcKc", "5h6h"], "Ts6d3cQhQs")
    hand = Hand(
        PotLimit(10), players, 2, blinds(players, 2, 5, 10), deck, RakeRule(Fraction(1, 20), 300)
    )
    hand.act(Call())  # seat 2, the button, small blind
    hand.act(RaiseTo(30))  # seat 1, big blind, raises the pot
    hand.act(Call())
    hand.act(Check())  # seat 1
    hand.act(RaiseTo(60))  # seat 2 bets
    hand.act(Fold())
    assert hand.is_over
    return hand


def export(hand: Hand, hero: str | None, names: dict[int, str], currency: Currency = USD) -> str:
    return pokerstars.dumps(
        hand,
        hand_id=42,
        table_name="Felt I",
        hero=hero,
        names=names,
        currency=currency,
        started=STARTED,
        seat_count=6,
    )


def cards_in(text: str) -> set[str]:
    """Every card written in brackets (``[Ah Kd]``)."""
    return {card for group in re.findall(r"\[([^\]]*)\]", text) for card in group.split()}


_MONEY = r"[$€£]?([0-9]+(?:\.[0-9]+)?)"


def reconcile(text: str) -> None:
    """Total pot = collected + rake, and the pots listed in the summary add up to the total."""
    collected = sum(
        (Decimal(m) for m in re.findall(rf" collected {_MONEY} from ", text)), Decimal(0)
    )
    summary = next(line for line in text.splitlines() if line.startswith("Total pot "))
    total = Decimal(re.match(rf"Total pot {_MONEY}", summary).group(1))  # type: ignore[union-attr]
    rake = Decimal(re.search(rf"\| Rake {_MONEY} ?$", summary).group(1))  # type: ignore[union-attr]
    assert collected + rake == total, text
    pots = [Decimal(m) for m in re.findall(rf"(?:Main|Side) pot(?:-[0-9]+)? {_MONEY}\.", summary)]
    if pots:
        assert sum(pots) + rake == total
        assert sum(pots) == collected


# Rules: R-HIST-1, R-HIST-2, R-ALLIN-2, R-ALLIN-4, R-RAKE-3
def test_no_limit_side_pots_uncalled_bet_and_rake_exact_text() -> None:
    text = export(side_pot_hand(), "Eve", NAMES)
    assert text.splitlines() == [
        "PokerStars Hand #42:  Hold'em No Limit ($0.05/$0.10 USD) - 2026/12/01 10:00:00 ET",
        "Table 'Felt I' 6-max Seat #6 is the button",
        "Seat 1: Ann ($2 in chips)",
        "Seat 2: Bob ($15 in chips)",
        "Seat 3: Cat ($10 in chips)",
        "Seat 4: Dan ($10 in chips)",
        "Seat 6: Eve ($20 in chips)",
        "Ann: posts small blind $0.05",
        "Bob: posts big blind $0.10",
        "*** HOLE CARDS ***",
        "Dealt to Eve [Js Jd]",
        "Cat: folds",
        "Dan: raises $9.90 to $10 and is all-in",
        "Eve: raises $10 to $20 and is all-in",
        "Ann: calls $1.95 and is all-in",
        "Bob: calls $14.90 and is all-in",
        "Uncalled bet ($5) returned to Eve",
        "*** FLOP *** [3c 4h 9h]",
        "*** TURN *** [3c 4h 9h] [2h]",
        "*** RIVER *** [3c 4h 9h 2h] [8s]",
        "*** SHOW DOWN ***",
        "Eve: shows [Js Jd] (a pair of Jacks)",
        "Ann: shows [As Ad] (a pair of Aces)",
        "Bob: shows [Ks Kd] (a pair of Kings)",
        "Dan: shows [Qs Qd] (a pair of Queens)",
        "Ann collected $7.60 from main pot",
        "Bob collected $22.80 from side pot-1",
        "Bob collected $9.50 from side pot-2",
        "*** SUMMARY ***",
        "Total pot $42 Main pot $7.60. Side pot-1 $22.80. Side pot-2 $9.50. | Rake $2.10",
        "Board [3c 4h 9h 2h 8s]",
        "Seat 1: Ann (small blind) showed [As Ad] and won ($7.60) with a pair of Aces",
        "Seat 2: Bob (big blind) showed [Ks Kd] and won ($32.30) with a pair of Kings",
        "Seat 3: Cat folded before Flop (didn't bet)",
        "Seat 4: Dan showed [Qs Qd] and lost with a pair of Queens",
        "Seat 6: Eve (button) showed [Js Jd] and lost with a pair of Jacks",
    ]
    reconcile(text)
    # R-HIST-2: the folded player's cards never appear.
    assert "7c" not in cards_in(text)
    assert "2d" not in cards_in(text)


# Rules: R-HIST-2, R-SHOW-5, R-GAME-4
def test_fixed_limit_showdown_muck_is_shown_to_a_player_not_to_an_observer() -> None:
    hand = limit_muck_hand()
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    text = export(hand, "Bob", names)
    lines = text.splitlines()
    assert lines[0] == (
        "PokerStars Hand #42:  Hold'em Limit ($0.10/$0.20 USD) - 2026/12/01 10:00:00 ET"
    )
    assert "Dealt to Bob [2c 2d]" in lines
    assert "Cy: raises $0.10 to $0.20" in lines
    assert "Ann: calls $0.15" in lines
    assert "Cy: mucks hand" in lines
    assert "Seat 3: Cy (button) mucked [8s 9s]" in lines  # R-SHOW-5: the muck is recorded
    assert "Seat 2: Bob (big blind) folded before Flop" in lines
    reconcile(text)
    # Another player who folded is never shown Bob's cards; an observer sees no muck.
    ann = export(hand, "Ann", names)
    assert "2c" not in cards_in(ann)
    assert "2d" not in cards_in(ann)
    assert "Seat 3: Cy (button) mucked [8s 9s]" in ann.splitlines()
    observer = export(hand, None, names)
    assert "Dealt to" not in observer
    assert "8s 9s" not in observer
    assert "2c" not in cards_in(observer)
    assert "Seat 3: Cy (button) mucked" in observer.splitlines()


# Rules: R-ALLIN-4, R-RAKE-1, R-RAKE-3
def test_pot_limit_uncalled_flop_bet_and_rake() -> None:
    text = export(pot_limit_hand(), "Bob", {1: "Ann", 2: "Bob"})
    lines = text.splitlines()
    assert lines[0].startswith("PokerStars Hand #42:  Hold'em Pot Limit ($0.05/$0.10 USD)")
    assert lines[lines.index("*** HOLE CARDS ***") :] == [
        "*** HOLE CARDS ***",
        "Dealt to Bob [5h 6h]",
        "Bob: calls $0.05",
        "Ann: raises $0.20 to $0.30",
        "Bob: calls $0.20",
        "*** FLOP *** [Ts 6d 3c]",
        "Ann: checks",
        "Bob: bets $0.60",
        "Ann: folds",
        "Uncalled bet ($0.60) returned to Bob",
        "Bob collected $0.57 from pot",
        "*** SUMMARY ***",
        "Total pot $0.60 | Rake $0.03",
        "Board [Ts 6d 3c]",
        "Seat 1: Ann (big blind) folded on the Flop",
        "Seat 2: Bob (button) (small blind) collected ($0.57)",
    ]
    assert "Ac" not in cards_in(text)
    assert "Kc" not in cards_in(text)
    reconcile(text)


def test_play_money_has_no_currency_symbol() -> None:
    players = [(1, 100), (2, 100)]
    hand = Hand(
        NoLimit(2), players, 2, blinds(players, 2, 1, 2), deck_for(["AcKc", "5h6h"], "Ts6d3cQhQs")
    )
    hand.act(Fold())
    text = export(hand, "Ann", {1: "Ann", 2: "Bob"}, PLAY)
    lines = text.splitlines()
    assert lines[0] == "PokerStars Hand #42:  Hold'em No Limit (1/2) - 2026/12/01 10:00:00 ET"
    assert lines[1] == "Table 'Felt I' 6-max (Play Money) Seat #2 is the button"
    assert "Bob: posts small blind 1" in lines
    assert "Uncalled bet (1) returned to Ann" in lines
    assert "Total pot 2 | Rake 0" in lines
    assert "5h" not in cards_in(text)


def test_descriptions_in_pokerstars_words() -> None:
    assert pokerstars.describe(parse_cards("5c 4d 3h 2s Ac Kd 9h")) == "a straight, Ace to Five"
    assert pokerstars.describe(parse_cards("Ah Kh Qh Jh Th 2c 3d")) == "a Royal Flush"
    assert (
        pokerstars.describe(parse_cards("Ah Ad Ac Kh Kd 2c 3d"))
        == "a full house, Aces full of Kings"
    )
    assert pokerstars.describe(parse_cards("Ah 9d 7c 5h 3d")) == "high card Ace"
    assert pokerstars.describe(parse_cards("Ah Ad 7c 7h 3d")) == "two pair, Aces and Sevens"


# Rules: R-HIST-2, R-RAKE-3
def test_random_hands_export_and_reconcile() -> None:
    rng = random.Random(20261201)
    for _ in range(200):
        hand = play_random_hand(rng, table_actions=True)
        names = {seat: f"p{seat}" for seat in hand.seats}
        hero_seat = rng.choice([*hand.seats, None])
        hero = None if hero_seat is None else names[hero_seat]
        text = export(hand, hero, names)
        reconcile(text)
        showdown = set(hand.showdown_seats)
        for seat in hand.seats:
            if seat != hero_seat and seat not in showdown:
                shown = any(f"{names[seat]}: shows " in line for line in text.splitlines())
                if not shown:
                    for card in hand.hole_cards(seat):
                        assert str(card) not in cards_in(text), (seat, text)


def test_samples_reconcile_like_ours() -> None:
    """The reconciliation the tests apply holds on the real two-side-pot sample."""
    text = (SHARED / "nlhe-cash-9max-eur-two-side-pots.txt").read_text("utf-8-sig")
    reconcile(text)


# Rules: R-BLIND-1, R-MISS-1
def test_antes_and_a_dead_blind_with_a_post() -> None:
    players = [(1, 1000), (2, 1000), (3, 1000), (4, 1000)]
    forced = [
        *blinds(players, 4, 5, 10, 2),
        ForcedBet(3, Forced.DEAD, 5),
        ForcedBet(3, Forced.POST, 10),
    ]
    deck = deck_for(["AcKc", "5h6h", "7s7d", "2c3d"], "Ts6d3cQhQs")
    hand = Hand(NoLimit(10), players, 4, forced, deck)
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.check else Call())
    text = export(hand, "Ann", {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"})
    lines = text.splitlines()
    assert lines[6 : lines.index("*** HOLE CARDS ***")] == [
        "Ann: posts the ante $0.02",
        "Bob: posts the ante $0.02",
        "Cy: posts the ante $0.02",
        "Di: posts the ante $0.02",
        "Ann: posts small blind $0.05",
        "Bob: posts big blind $0.10",
        "Cy: posts small & big blinds $0.15",
    ]
    assert "Cy: checks" in lines
    reconcile(text)


TOURNAMENT = TournamentInfo(
    number=937193984,
    name="Sunday",
    kind="MTT",
    buy_in=1000,
    fee=100,
    currency=USD,
    level=14,
    starting_stack=1500,
    level_minutes=10,
    started=datetime(2026, 12, 1, 14, 0, 0, tzinfo=UTC),
    finishes=(Finish("Ann", 3, 450), Finish("Cy", 5, 0)),
)


def tournament_hand() -> Hand:
    """Level XIV (75/150) with a big-blind ante of 150: Di folds, the others check it down."""
    players = [(1, 300), (2, 5000), (3, 200), (4, 1000)]
    forced = [ForcedBet(2, Forced.ANTE, 150), *blinds(players, 4, 75, 150)]
    deck = deck_for(["7c2d", "AsAd", "8h8d", "9c9d"], "Ts6d3cQhQs")
    hand = Hand(NoLimit(150), players, 4, forced, deck)
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Fold() if hand.to_act == 4 else Check() if legal.check else Call())
    return hand


def test_a_tournament_hand_has_the_tournament_header_and_the_finishing_lines() -> None:
    text = pokerstars.dumps(
        tournament_hand(),
        hand_id=42,
        table_name="937193984 7",
        hero="Ann",
        names={1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"},
        currency=Currency("USD", 0),  # the hand's amounts are tournament chips
        started=STARTED,
        seat_count=9,
        tournament=TOURNAMENT,
    )
    lines = text.splitlines()
    assert lines[:3] == [
        "PokerStars Hand #42: Tournament #937193984, $10+$1 USD Hold'em No Limit - Level XIV "
        "(75/150) - 2026/12/01 10:00:00 ET",
        "Table '937193984 7' 9-max Seat #4 is the button",
        "Seat 1: Ann (300 in chips)",
    ]
    assert "Bob: posts the ante 150" in lines
    summary = lines.index("*** SUMMARY ***")
    assert lines[summary - 2 : summary] == [
        "Cy finished the tournament in 5th place",
        "Ann finished the tournament in 3rd place and received $4.50.",
    ]
    reconcile(text)
    (record,) = pokerstars_import.loads(text).records
    assert record.hand_id == 42
    winner = replace(TOURNAMENT, currency=PLAY, finishes=(Finish("Bob", 1, 2000),))
    assert pokerstars.finishing_line(winner.finishes[0], PLAY) == (
        "Bob wins the tournament and receives 2000 - congratulations!"
    )
    assert pokerstars.tournament_buy_in(winner) == "1000+100"


@pytest.mark.parametrize(
    ("number", "text", "place"),
    [
        (1, "I", "1st"),
        (4, "IV", "4th"),
        (9, "IX", "9th"),
        (14, "XIV", "14th"),
        (22, "XXII", "22nd"),
        (40, "XL", "40th"),
        (111, "CXI", "111th"),
        (3, "III", "3rd"),
    ],
)
def test_levels_in_roman_numerals_and_places_as_ordinals(
    number: int, text: str, place: str
) -> None:
    assert roman(number) == text
    assert ordinal(number) == place


def test_a_tournament_hand_in_ohh_has_tournament_info() -> None:
    document = ohh.to_dict(
        tournament_hand(),
        hand_id=42,
        table_name="937193984 7",
        hero="Ann",
        names={1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"},
        currency=Currency("USD", 0),
        started=STARTED,
        tournament=TOURNAMENT,
    )
    assert document["tournament"] is True
    assert document["currency"] == ""
    assert document["ante_amount"] == 150
    assert document["tournament_info"] == {
        "name": "Sunday",
        "start_date_utc": "2026-12-01T14:00:00Z",
        "type": "MTT",
        "buyin_amount": Decimal("10.00"),
        "currency": "USD",
        "fee_amount": Decimal("1.00"),
        "bounty_fee_amount": Decimal("0.00"),
        "tournament_number": "937193984",
        "flags": "",
        "initial_stack": 1500,
        "speed": {"type": "Normal", "round_time": 10},
    }
    assert (
        ohh.validate(
            json.loads(
                ohh.dumps(
                    tournament_hand(),
                    hand_id=1,
                    table_name="t",
                    hero=None,
                    names={1: "a", 2: "b", 3: "c", 4: "d"},
                    currency=PLAY,
                    tournament=TOURNAMENT,
                ),
                parse_float=Decimal,
            )
        )
        == []
    )

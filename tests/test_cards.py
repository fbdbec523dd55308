"""Cards, ranks, suits, decks and their notation (R-GAME-2, R-GAME-5)."""

from __future__ import annotations

import pytest

from feltroom.cards import CARDS, Card, Deck, Rank, Suit, format_cards, parse_cards
from feltroom.errors import InvalidNotation


def test_notation_round_trips() -> None:
    text = "As Kd Th 9c 2h"
    cards = parse_cards(text)
    assert format_cards(cards) == text
    assert [str(c) for c in cards] == text.split()
    assert parse_cards("AsKdTh9c2h") == cards


def test_every_card_round_trips_through_str_and_repr() -> None:
    for card in CARDS:
        assert Card.parse(str(card)) is card
        assert eval(repr(card)) == card
        assert Card.from_index(card.index) is card
        assert Card(card.rank, card.suit) == card


def test_rank_and_suit_reprs_evaluate() -> None:
    assert eval(repr(Rank.ACE)) is Rank.ACE
    assert eval(repr(Suit.HEARTS)) is Suit.HEARTS
    assert Rank.parse("T") is Rank.TEN
    assert Suit.parse("d") is Suit.DIAMONDS


def test_cards_are_frozen() -> None:
    card = Card.parse("As")
    with pytest.raises(AttributeError):
        card.rank = Rank.KING  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1x", "unknown rank '1'"),
        ("Ax", "unknown suit 'x'"),
        ("As As", "appears twice"),
        ("As K", "odd number"),
        ("", None),
    ],
)
def test_bad_text_raises_invalid_notation(text: str, message: str | None) -> None:
    if message is None:
        assert parse_cards(text) == ()
        return
    with pytest.raises(InvalidNotation, match=message):
        parse_cards(text)


def test_single_card_parse_rejects_wrong_length() -> None:
    with pytest.raises(InvalidNotation, match="a card is a rank and a suit"):
        Card.parse("Asd")
    with pytest.raises(InvalidNotation, match=r"0\.\.51"):
        Card.from_index(52)


# Rules: R-GAME-2
def test_R_GAME_2_standard_deck_has_52_distinct_cards_no_jokers() -> None:
    deck = Deck.standard()
    assert len(deck) == 52
    assert len(set(deck)) == 52
    assert {c.rank for c in deck} == set(Rank)
    assert {c.suit for c in deck} == set(Suit)
    for rank in Rank:
        assert sum(1 for c in deck if c.rank is rank) == 4


def test_deck_round_trips_and_refuses_duplicates() -> None:
    deck = Deck.standard()
    assert Deck.parse(str(deck)) == deck
    assert eval(repr(deck)) == deck
    assert deck[0] == Card.parse("2c")
    assert deck[-1] == Card.parse("As")
    with pytest.raises(InvalidNotation, match="appears twice"):
        Deck((Card.parse("As"), Card.parse("As")))


# Rules: R-GAME-5
def test_R_GAME_5_card_indices_and_values_are_integers() -> None:
    # Chips are integers in the smallest unit; the foundation's compact forms are integers too.
    assert all(isinstance(card.index, int) for card in CARDS)
    assert [card.index for card in CARDS] == list(range(52))

"""Cards, ranks, suits and decks: small frozen values with a notation that round-trips.

``Card.parse("As")`` gives the ace of spades, ``str(card) == "As"`` and ``repr(card)`` can be
evaluated back. Each card also has an ``index`` 0..51 (``rank_index * 4 + suit``), the compact form
the evaluator and the batch evaluator work on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import overload

from feltroom.errors import InvalidNotation

__all__ = [
    "Card",
    "Deck",
    "Rank",
    "Suit",
    "format_cards",
    "parse_cards",
]

_RANK_SYMBOLS = "23456789TJQKA"
_SUIT_SYMBOLS = "cdhs"


class Rank(IntEnum):
    """Card ranks, deuce (2) to ace (14); suits never rank (R-SHOW-2)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The one-letter notation: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOLS[self - 2]

    @property
    def noun(self) -> str:
        """The rank's name in hand descriptions ("Ace", "Seven")."""
        return _RANK_NOUNS[self - 2]

    @property
    def plural(self) -> str:
        """The plural used in descriptions ("Kings", "Sixes")."""
        return "Sixes" if self is Rank.SIX else self.noun + "s"

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read one rank symbol; ``T`` is ten."""
        index = _RANK_SYMBOLS.find(text.upper()) if len(text) == 1 else -1
        if index < 0:
            raise InvalidNotation(f"unknown rank {text!r}; ranks are {' '.join(_RANK_SYMBOLS)}")
        return cls(index + 2)

    def __repr__(self) -> str:
        return f"Rank.{self.name}"

    def __str__(self) -> str:
        return self.symbol


_RANK_NOUNS = (
    *("Two", "Three", "Four", "Five", "Six", "Seven", "Eight"),
    *("Nine", "Ten", "Jack", "Queen", "King", "Ace"),
)


class Suit(IntEnum):
    """The four suits; their order only fixes card indices, it never ranks hands."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The one-letter notation: ``c``, ``d``, ``h``, ``s``."""
        return _SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read one suit symbol."""
        index = _SUIT_SYMBOLS.find(text.lower()) if len(text) == 1 else -1
        if index < 0:
            raise InvalidNotation(f"unknown suit {text!r}; suits are {' '.join(_SUIT_SYMBOLS)}")
        return cls(index)

    def __repr__(self) -> str:
        return f"Suit.{self.name}"

    def __str__(self) -> str:
        return self.symbol


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. Cards order by index (rank, then suit); equal cards are equal."""

    index: int = field(init=False, repr=False)
    rank: Rank
    suit: Suit

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", (self.rank - 2) * 4 + self.suit)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read two-character notation such as ``"As"`` or ``"Td"``."""
        card = _BY_TEXT.get(text)
        if card is None:
            if len(text) != 2:
                raise InvalidNotation(
                    f"a card is a rank and a suit such as 'As' or 'Td', not {text!r}"
                )
            card = CARDS[(Rank.parse(text[0]) - 2) * 4 + Suit.parse(text[1])]
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with index 0..51."""
        if not 0 <= index < 52:
            raise InvalidNotation(f"a card index is 0..51, not {index}")
        return CARDS[index]

    def __str__(self) -> str:
        return _RANK_SYMBOLS[self.rank - 2] + _SUIT_SYMBOLS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


CARDS: tuple[Card, ...] = tuple(Card(Rank(2 + i // 4), Suit(i % 4)) for i in range(52))
"""The 52 cards in index order; parsing returns these very objects."""

_BY_TEXT = {str(card): card for card in CARDS}


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards written with or without spaces (``"As Kd"`` or ``"AsKd"``); no card twice."""
    compact = "".join(text.split())
    if len(compact) % 2:
        raise InvalidNotation(
            f"card text has an odd number of characters: {text!r}; write cards like 'As Kd Th'"
        )
    cards = tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))
    _check_distinct(cards)
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards in notation separated by spaces; ``parse_cards`` reads it back."""
    return " ".join(str(card) for card in cards)


def _check_distinct(cards: tuple[Card, ...]) -> None:
    if len({card.index for card in cards}) != len(cards):
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise InvalidNotation(f"card {card} appears twice; a deck holds each card once")
            seen.add(card)


@dataclass(frozen=True, slots=True)
class Deck:
    """An ordered deck of distinct cards, top card first. Immutable: dealing is done by position."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        _check_distinct(self.cards)

    @classmethod
    def standard(cls) -> Deck:
        """All 52 cards in index order (2c 2d 2h 2s 3c ... As): one standard deck, no jokers."""
        return _STANDARD

    @classmethod
    def parse(cls, text: str) -> Deck:
        """Read a deck from card notation."""
        return cls(parse_cards(text))

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    @overload
    def __getitem__(self, position: int) -> Card: ...

    @overload
    def __getitem__(self, position: slice) -> tuple[Card, ...]: ...

    def __getitem__(self, position: int | slice) -> Card | tuple[Card, ...]:
        return self.cards[position]

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Deck.parse({str(self)!r})"


_STANDARD = Deck(CARDS)

"""feltroom: an online card room for Texas Hold'em.

The foundation is re-exported here: cards and their notation, the CSPRNG shuffle and the hand
evaluator. Everything else lives in its layer's package (see docs/architecture.md). The evaluator's
functions are imported from ``feltroom.evaluate`` itself, so that the module's name stays the
module's.
"""

from feltroom.cards import Card, Deck, Rank, Suit, format_cards, parse_cards
from feltroom.errors import FeltroomError, IllegalAction, InvalidConfiguration, InvalidNotation
from feltroom.evaluate import HandCategory, HandRank
from feltroom.shuffle import CsprngDeckSource, SeededDeckSource, shuffled_deck

__all__ = [
    "Card",
    "CsprngDeckSource",
    "Deck",
    "FeltroomError",
    "HandCategory",
    "HandRank",
    "IllegalAction",
    "InvalidConfiguration",
    "InvalidNotation",
    "Rank",
    "SeededDeckSource",
    "Suit",
    "format_cards",
    "parse_cards",
    "shuffled_deck",
]

__version__ = "0.1.0"

"""The shuffle: Fisher-Yates driven by the operating system's CSPRNG (R-GAME-2, R-RNG-1).

Every hand gets a fresh standard deck shuffled with fresh randomness from ``os.urandom`` (the
source behind ``secrets``). Each swap position is drawn uniformly by rejection sampling, so there
is no modulo bias: a 32-bit word ``w`` is accepted only below the largest multiple of the bound
that fits in 32 bits, and then reduced. Every one of the 52! orders is equally likely.

A seeded source exists for tests and replays only (``SeededDeckSource``); nothing uses it unless
it is passed in explicitly.

Verifiable deals (``feltroom.deal_proof``): ``next_committed`` gives the deck together with a
fresh salt per position and the Merkle commitment the table publishes before the first card. The
production source draws the salts from ``secrets``; the seeded source from its own seeded
generator, kept apart from the shuffle's so that its decks are those ``next_deck`` gives.
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Callable, Iterator, MutableSequence
from functools import partial
from itertools import chain
from typing import Protocol, TypeVar

from feltroom.cards import CARDS, Card, Deck
from feltroom.deal_proof import DECK_SIZE, SALT_BYTES, CommittedDeck, commit

__all__ = [
    "CsprngDeckSource",
    "DeckSource",
    "SeededDeckSource",
    "fisher_yates",
    "shuffled_deck",
]

T = TypeVar("T")

WORD_BITS = 32


class DeckSource(Protocol):
    """Anything that hands out a freshly shuffled deck for each hand."""

    def next_deck(self) -> Deck:
        """A new deck for the next hand; never the same object twice."""
        ...

    def next_committed(self) -> CommittedDeck:
        """A new deck for the next hand with its salts and commitment (verifiable deals)."""
        ...


def fisher_yates(
    items: MutableSequence[T], next_word: Callable[[], int], bits: int = WORD_BITS
) -> None:
    """Shuffle in place: for i from the last position down to 1, swap i with a uniform j <= i.

    ``next_word`` returns uniform ``bits``-bit words. Each j is drawn by rejection sampling: a
    word at or above the largest multiple of ``i + 1`` below ``2**bits`` is discarded and another
    is drawn, so every j in 0..i is reached by the same number of words (no modulo bias).
    """
    span = 1 << bits
    for i in range(len(items) - 1, 0, -1):
        bound = i + 1
        limit = span - span % bound
        word = next_word()
        while word >= limit:
            word = next_word()
        j = word % bound
        items[i], items[j] = items[j], items[i]


def _more_urandom_words() -> Iterator[int]:
    while True:
        yield int.from_bytes(os.urandom(4), "little")


_DRAWS = len(CARDS) - 1
_UNPACK = struct.Struct(f"<{_DRAWS}I").unpack


def shuffled_deck() -> Deck:
    """A fresh standard deck in a uniformly random order from the OS CSPRNG.

    One ``os.urandom`` read supplies the 51 words a 52-card shuffle needs; the rare rejected
    word is replaced by a further read. No randomness is buffered from one deck to the next.
    """
    cards = list(CARDS)
    words = chain(_UNPACK(os.urandom(4 * _DRAWS)), _more_urandom_words())
    fisher_yates(cards, words.__next__)
    return Deck(tuple(cards))


class CsprngDeckSource:
    """The production deck source: every deck a fresh CSPRNG shuffle of a fresh standard deck."""

    def next_deck(self) -> Deck:
        """A new uniformly shuffled deck."""
        return shuffled_deck()

    def next_committed(self) -> CommittedDeck:
        """A new uniformly shuffled deck, committed with fresh CSPRNG salts."""
        return commit(shuffled_deck())


class SeededDeckSource:
    """A reproducible deck source for tests and replays. Never use it to deal real hands."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)
        self._salts = random.Random(f"feltroom-salts:{seed!r}")

    def next_deck(self) -> Deck:
        """The next deck of this seed's sequence."""
        cards: list[Card] = list(CARDS)
        fisher_yates(cards, partial(self._random.getrandbits, WORD_BITS))
        return Deck(tuple(cards))

    def next_committed(self) -> CommittedDeck:
        """The next deck of this seed's sequence (as ``next_deck`` gives it), committed with
        salts of this seed's salt sequence."""
        deck = self.next_deck()
        return commit(deck, self._salts.randbytes(SALT_BYTES * DECK_SIZE))

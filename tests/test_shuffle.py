"""The shuffle: Fisher-Yates from the OS CSPRNG, a fresh deck each hand (R-GAME-2, R-RNG-1)."""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from collections.abc import Iterator

import pytest

from feltroom.cards import CARDS, Deck
from feltroom.shuffle import CsprngDeckSource, SeededDeckSource, fisher_yates, shuffled_deck


def _words(values: list[int]) -> Iterator[int]:
    yield from values
    raise AssertionError("the shuffle asked for more words than the fake RNG holds")


@pytest.mark.parametrize("n", [3, 4, 5])
# Rules: R-RNG-1
def test_R_RNG_1_every_draw_sequence_gives_each_permutation_exactly_once(n: int) -> None:
    # A fake RNG enumerates every sequence of draws: j in 0..i for i = n-1 down to 1.
    seen: Counter[tuple[int, ...]] = Counter()
    for draws in itertools.product(*(range(i + 1) for i in range(n - 1, 0, -1))):
        items = list(range(n))
        fisher_yates(items, _words(list(draws)).__next__)
        seen[tuple(items)] += 1
    assert len(seen) == math.factorial(n)
    assert set(seen.values()) == {1}
    assert set(seen) == set(itertools.permutations(range(n)))


@pytest.mark.parametrize("n", [3, 4, 5])
# Rules: R-RNG-1
def test_R_RNG_1_no_modulo_bias_with_small_words(n: int) -> None:
    # With 3-bit words the bounds 3 and 5 do not divide 8: the words above the largest multiple
    # are rejected, so over all accepted word sequences every permutation is equally frequent.
    bits = 3
    span = 1 << bits
    bounds = list(range(n, 1, -1))
    accepted = [[w for w in range(span) if w < span - span % b] for b in bounds]
    seen: Counter[tuple[int, ...]] = Counter()
    for words in itertools.product(*accepted):
        items = list(range(n))
        fisher_yates(items, _words(list(words)).__next__, bits=bits)
        seen[tuple(items)] += 1
    assert len(seen) == math.factorial(n)
    assert len(set(seen.values())) == 1


# Rules: R-RNG-1
def test_R_RNG_1_rejected_words_are_drawn_again() -> None:
    # bound 3 with 3-bit words: limit 6, so 6 and 7 are discarded and the next word decides.
    items = ["a", "b", "c"]
    fisher_yates(items, _words([7, 6, 1, 0]).__next__, bits=3)
    # i=2: j = 1 (after 7 and 6 were rejected) -> a c b; i=1: j = 0 -> c a b
    assert items == ["c", "a", "b"]


# Rules: R-RNG-1
def test_R_RNG_1_production_shuffle_reads_the_os_csprng_once_per_deck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads: list[int] = []
    real = os.urandom

    def counting(size: int) -> bytes:
        reads.append(size)
        return real(size)

    monkeypatch.setattr(os, "urandom", counting)
    decks = [shuffled_deck() for _ in range(3)]
    assert len(reads) >= 3
    assert reads[0] == 4 * 51
    for deck in decks:
        assert sorted(deck) == list(CARDS)


# Rules: R-GAME-2
def test_R_GAME_2_fresh_deck_every_hand() -> None:
    source = CsprngDeckSource()
    first, second = source.next_deck(), source.next_deck()
    assert first is not second
    for deck in (first, second):
        assert isinstance(deck, Deck)
        assert len(deck) == 52
        assert len(set(deck)) == 52
    assert first != second  # equal with probability 1/52!


def test_seeded_source_is_reproducible_and_only_for_tests() -> None:
    a, b = SeededDeckSource(42), SeededDeckSource(42)
    assert [a.next_deck() for _ in range(3)] == [b.next_deck() for _ in range(3)]
    assert SeededDeckSource(1).next_deck() != SeededDeckSource(2).next_deck()
    assert sorted(SeededDeckSource("replay").next_deck()) == list(CARDS)

"""The hand evaluator: the best five of five, six or seven cards as one totally ordered integer.

A hand's value is its place among the 7,462 distinct five-card poker hands, 1 (7-5-4-3-2 high) to
7,462 (a royal flush): a higher value wins and equal hands have equal values (R-SHOW-1, R-SHOW-2).

How it is fast in pure Python: every card index maps to one integer key that packs a rank key and
a suit key. The rank keys are chosen so that the sum over any multiset of up to seven ranks (each
rank at most four times) is unique, so one dictionary lookup on the summed rank part gives the
value of every hand that is not a flush. The suit keys are chosen so that the summed suit part
tells, for five, six or seven cards, which suit (if any) holds five cards; only then (about 3% of
seven-card hands) are the cards of that suit collected into a rank bitmask and looked up in a
table of flushes. Seven additions, a mask, a shift and two lookups: no loops, no sorting. For
seven cards the rank lookup is a flat array rather than a dict (see ``_dense``).

The tables are built from first principles when the module is imported (a fraction of a second),
and the batch evaluator (``feltroom.batch``) reuses them as numpy arrays.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, combinations_with_replacement

from feltroom.cards import Card, Rank

__all__ = [
    "RANK_KEYS",
    "SUIT_BITS",
    "SUIT_KEYS",
    "HandCategory",
    "HandRank",
    "category_of",
    "describe",
    "evaluate",
    "evaluate5",
    "evaluate6",
    "evaluate7",
    "evaluate_indices",
    "tables",
]

RANK_KEYS: tuple[int, ...] = (
    0,
    1,
    5,
    22,
    98,
    453,
    2031,
    8698,
    22854,
    83661,
    262349,
    636345,
    1479181,
)
"""Rank keys (deuce..ace) whose sums over multisets of up to seven ranks are all distinct."""

SUIT_KEYS: tuple[int, ...] = (0, 1, 25, 32)
"""Suit keys whose sum over five, six or seven cards determines the suit holding five, if any."""

SUIT_BITS = 8
"""The summed suit part (at most 7 * 32 = 224) sits in the low eight bits of a key sum."""

_SUIT_MASK = (1 << SUIT_BITS) - 1

CARD_KEYS: tuple[int, ...] = tuple(
    (RANK_KEYS[i >> 2] << SUIT_BITS) | SUIT_KEYS[i & 3] for i in range(52)
)
"""One packed key per card index: ``rank_key << 8 | suit_key``."""


class HandCategory(IntEnum):
    """The nine hand categories, weakest first (R-SHOW-2)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def title(self) -> str:
        """The category's name as players say it ("Full House")."""
        return _CATEGORY_TITLES[self]

    def __repr__(self) -> str:
        return f"HandCategory.{self.name}"


_CATEGORY_TITLES = (
    "High Card",
    "One Pair",
    "Two Pair",
    "Three of a Kind",
    "Straight",
    "Flush",
    "Full House",
    "Four of a Kind",
    "Straight Flush",
)

# A hand class is its category and the ranks (0 = deuce .. 12 = ace) that decide ties, in order.
_HandClass = tuple[int, tuple[int, ...]]

_STRAIGHTS: tuple[tuple[int, ...], ...] = (
    (3, 2, 1, 0, 12),  # five-high: the ace plays low (R-SHOW-2)
    *((top, top - 1, top - 2, top - 3, top - 4) for top in range(4, 13)),
)
"""The ten straights, lowest first, each as its ranks from the top card down."""

_STRAIGHT_MASKS = tuple(sum(1 << r for r in s) for s in _STRAIGHTS)


def _hand_classes() -> list[_HandClass]:
    """The 7,462 classes of five-card hands in ascending order of strength."""
    ranks_desc = range(12, -1, -1)
    straight_sets = {frozenset(s) for s in _STRAIGHTS}
    distinct = sorted(
        (combo for combo in combinations(ranks_desc, 5) if frozenset(combo) not in straight_sets),
    )
    classes: list[_HandClass] = [(HandCategory.HIGH_CARD, c) for c in distinct]
    for pair in range(13):
        others = [r for r in ranks_desc if r != pair]
        classes += [(HandCategory.ONE_PAIR, (pair, *k)) for k in sorted(combinations(others, 3))]
    for high in range(13):
        for low in range(high):
            others = [r for r in range(13) if r not in (high, low)]
            classes += [(HandCategory.TWO_PAIR, (high, low, k)) for k in others]
    for trips in range(13):
        others = [r for r in ranks_desc if r != trips]
        classes += [
            (HandCategory.THREE_OF_A_KIND, (trips, *k)) for k in sorted(combinations(others, 2))
        ]
    classes += [(HandCategory.STRAIGHT, (s[0],)) for s in _STRAIGHTS]
    classes += [(HandCategory.FLUSH, c) for c in distinct]
    for trips in range(13):
        classes += [(HandCategory.FULL_HOUSE, (trips, p)) for p in range(13) if p != trips]
    for quads in range(13):
        classes += [(HandCategory.FOUR_OF_A_KIND, (quads, k)) for k in range(13) if k != quads]
    classes += [(HandCategory.STRAIGHT_FLUSH, (s[0],)) for s in _STRAIGHTS]
    return classes


def _best_of_ranks(counts: Sequence[int]) -> _HandClass:
    """The best non-flush class for a multiset of ranks given as counts per rank."""
    singles: list[int] = []
    pairs: list[int] = []
    trips: list[int] = []
    quads: list[int] = []
    by_count = (singles, singles, pairs, trips, quads)
    present: list[int] = []
    mask = 0
    for rank in range(12, -1, -1):
        count = counts[rank]
        if count:
            by_count[count].append(rank)
            present.append(rank)
            mask |= 1 << rank
    if quads:
        kicker = present[1] if present[0] == quads[0] else present[0]
        return HandCategory.FOUR_OF_A_KIND, (quads[0], kicker)
    if trips and (len(trips) > 1 or pairs):
        return HandCategory.FULL_HOUSE, (trips[0], max(trips[1:] + pairs))
    straight = _best_straight(mask) if len(present) >= 5 else None
    if straight is not None:
        return HandCategory.STRAIGHT, (straight,)
    if trips:
        return HandCategory.THREE_OF_A_KIND, (trips[0], *singles[:2])
    if len(pairs) >= 2:
        kicker = max(pairs[2:] + singles[:1])
        return HandCategory.TWO_PAIR, (pairs[0], pairs[1], kicker)
    if pairs:
        return HandCategory.ONE_PAIR, (pairs[0], *singles[:3])
    return HandCategory.HIGH_CARD, tuple(singles[:5])


def _best_straight(mask: int) -> int | None:
    """The top rank of the best straight inside a rank bitmask, if any."""
    for straight, smask in zip(reversed(_STRAIGHTS), reversed(_STRAIGHT_MASKS), strict=True):
        if mask & smask == smask:
            return straight[0]
    return None


def _best_flush(mask: int) -> _HandClass:
    """The best class for the ranks of one suit (at least five of them)."""
    straight = _best_straight(mask)
    if straight is not None:
        return HandCategory.STRAIGHT_FLUSH, (straight,)
    ranks = [r for r in range(12, -1, -1) if mask >> r & 1]
    return HandCategory.FLUSH, tuple(ranks[:5])


@dataclass(frozen=True, slots=True)
class Tables:
    """The evaluator's lookup tables, shared by the single-call and the batch paths."""

    classes: tuple[_HandClass, ...]
    """Hand class of each value; index 0 is unused so that values start at 1."""
    nonflush: dict[int, dict[int, int]]
    """For n = 5, 6, 7 cards: summed rank key -> value of the best non-flush hand."""
    flush_suit: dict[int, tuple[int, ...]]
    """For n = 5, 6, 7 cards: summed suit key -> the suit holding five or more cards, else -1."""
    flush: tuple[int, ...]
    """Rank bitmask (13 bits) of one suit's cards -> value of the best flush, 0 if fewer than 5."""
    category_starts: tuple[int, ...]
    """The lowest value of each category, weakest category first."""


def _rank_multisets(n: int) -> Iterator[tuple[list[int], int]]:
    """Every multiset of n ranks, each rank at most four times, as (counts, summed rank key)."""
    counts = [0] * 13

    def place(rank: int, left: int, key: int) -> Iterator[tuple[list[int], int]]:
        if rank == 0:
            if left <= 4:
                counts[0] = left
                yield counts, key + left * RANK_KEYS[0]
            return
        for count in range(min(4, left) + 1):
            counts[rank] = count
            yield from place(rank - 1, left - count, key + count * RANK_KEYS[rank])
        counts[rank] = 0

    yield from place(12, n, 0)


def _build_tables() -> Tables:
    classes = _hand_classes()
    value_of = {c: v for v, c in enumerate(classes, start=1)}
    nonflush: dict[int, dict[int, int]] = {}
    for n in (5, 6, 7):
        table: dict[int, int] = {}
        for counts, key in _rank_multisets(n):
            table[key] = value_of[_best_of_ranks(counts)]
        nonflush[n] = table
    flush_suit: dict[int, tuple[int, ...]] = {}
    for n in (5, 6, 7):
        suits = [-1] * (1 << SUIT_BITS)
        for multiset in combinations_with_replacement(range(4), n):
            full = [s for s in range(4) if multiset.count(s) >= 5]
            suits[sum(SUIT_KEYS[s] for s in multiset)] = full[0] if full else -1
        flush_suit[n] = tuple(suits)
    flush = tuple(
        value_of[_best_flush(mask)] if mask.bit_count() >= 5 else 0 for mask in range(1 << 13)
    )
    starts = tuple(
        next(v for v, c in enumerate(classes, start=1) if c[0] == category)
        for category in HandCategory
    )
    return Tables(((HandCategory.HIGH_CARD, ()), *classes), nonflush, flush_suit, flush, starts)


_TABLES = _build_tables()


def tables() -> Tables:
    """The lookup tables (for the batch evaluator and for tests)."""
    return _TABLES


def _dense(table: dict[int, int]) -> array[int]:
    """A summed-rank-key -> value table as a flat array: one index instead of a dict probe.

    For seven cards it spans 7.8 million two-byte slots (15.6 MB) of which 49,205 are used; an
    array index costs one memory access where a dict probe costs several.
    """
    dense = array("H", bytes(2 * (max(table) + 1)))
    for key, value in table.items():
        dense[key] = value
    return dense


def _make_evaluator(n: int) -> Callable[[Sequence[int]], int]:
    """A closure specialised for n cards: locals and closure cells are the fastest lookups."""
    keys = CARD_KEYS
    nonflush: dict[int, int] | array[int] = (
        _dense(_TABLES.nonflush[n]) if n == 7 else _TABLES.nonflush[n]
    )
    flush_suit = _TABLES.flush_suit[n]
    flush = _TABLES.flush
    mask = _SUIT_MASK
    bits = SUIT_BITS

    def flush_value(cards: Sequence[int], suit: int) -> int:
        ranks = 0
        for card in cards:
            if card & 3 == suit:
                ranks |= 1 << (card >> 2)
        return flush[ranks]

    if n == 7:

        def evaluate7(cards: Sequence[int]) -> int:
            a, b, c, d, e, f, g = cards
            key = keys[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f] + keys[g]
            suit = flush_suit[key & mask]
            if suit < 0:
                return nonflush[key >> bits]
            return flush_value(cards, suit)

        return evaluate7
    if n == 6:

        def evaluate6(cards: Sequence[int]) -> int:
            a, b, c, d, e, f = cards
            key = keys[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f]
            suit = flush_suit[key & mask]
            if suit < 0:
                return nonflush[key >> bits]
            return flush_value(cards, suit)

        return evaluate6

    def evaluate5(cards: Sequence[int]) -> int:
        a, b, c, d, e = cards
        key = keys[a] + keys[b] + keys[c] + keys[d] + keys[e]
        suit = flush_suit[key & mask]
        if suit < 0:
            return nonflush[key >> bits]
        return flush_value(cards, suit)

    return evaluate5


evaluate7 = _make_evaluator(7)
"""Value of seven distinct card indices (a sequence of seven ints 0..51)."""
evaluate6 = _make_evaluator(6)
"""Value of six distinct card indices."""
evaluate5 = _make_evaluator(5)
"""Value of five distinct card indices."""

_BY_COUNT = {5: evaluate5, 6: evaluate6, 7: evaluate7}


def evaluate_indices(indices: Sequence[int]) -> int:
    """Value of five, six or seven distinct card indices (not checked: the fast path)."""
    try:
        return _BY_COUNT[len(indices)](indices)
    except KeyError:
        raise ValueError(f"a hand is 5, 6 or 7 cards, not {len(indices)}") from None


def category_of(value: int) -> HandCategory:
    """The category of a hand value."""
    if not 1 <= value <= len(_TABLES.classes) - 1:
        raise ValueError(f"hand values are 1..{len(_TABLES.classes) - 1}, not {value}")
    return HandCategory(bisect_right(_TABLES.category_starts, value) - 1)


def describe(value: int) -> str:
    """A hand value in words: "Full House, Kings full of Sevens"."""
    category = category_of(value)
    ranks = [Rank(r + 2) for r in _TABLES.classes[value][1]]
    title = category.title
    if category is HandCategory.HIGH_CARD:
        return f"{title}, {ranks[0].noun}"
    if category is HandCategory.ONE_PAIR:
        return f"{title}, {ranks[0].plural}"
    if category is HandCategory.TWO_PAIR:
        return f"{title}, {ranks[0].plural} and {ranks[1].plural}"
    if category in (HandCategory.THREE_OF_A_KIND, HandCategory.FOUR_OF_A_KIND):
        return f"{title}, {ranks[0].plural}"
    if category is HandCategory.STRAIGHT_FLUSH and ranks[0] is Rank.ACE:
        return "Royal Flush"
    if category in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH, HandCategory.FLUSH):
        return f"{title}, {ranks[0].noun} high"
    return f"{title}, {ranks[0].plural} full of {ranks[1].plural}"


@dataclass(frozen=True, slots=True, order=True)
class HandRank:
    """The strength of a hand: compares by value, so a higher HandRank wins and ties are equal."""

    value: int

    @property
    def category(self) -> HandCategory:
        """The hand's category (flush, full house, ...)."""
        return category_of(self.value)

    @property
    def description(self) -> str:
        """The hand in words: "Two Pair, Kings and Sevens"."""
        return describe(self.value)

    def __str__(self) -> str:
        return self.description


def evaluate(cards: Iterable[Card]) -> HandRank:
    """The best five-card hand among five, six or seven distinct cards (R-SHOW-1)."""
    hand = tuple(cards)
    if len(set(hand)) != len(hand):
        raise ValueError(f"a hand cannot hold the same card twice: {' '.join(map(str, hand))}")
    if not 5 <= len(hand) <= 7:
        raise ValueError(f"a hand is 5, 6 or 7 cards, not {len(hand)}")
    return HandRank(_BY_COUNT[len(hand)]([card.index for card in hand]))

"""Verifiable deals: a Merkle commitment to each hand's deck, and proofs of single cards.

Scheme ``feltroom-merkle-sha256-v1`` (docs/protocol.md, "Verifiable deals"):

- the deck is the 52 cards in dealing order (position 0 is the first card taken from the deck,
  burn cards included); each position ``i`` gets a fresh 16-byte salt;
- ``leaf_i = SHA-256(0x00 || byte(i) || card text, 2 ASCII bytes || salt_i)``;
- the tree has 64 leaves: positions 52..63 are padding leaves of 32 zero bytes; an internal node
  is ``SHA-256(0x01 || left || right)``; the root, in lowercase hex, is the commitment;
- a card's path is its 6 sibling hashes from the leaf level up; at level ``k`` the node is a left
  child when bit ``k`` of the position is 0.

The commitment is published before the first card of the hand; after the hand a player gets a
proof file that opens exactly the cards they may see (R-HIST-2): position, card, salt, path and
role. ``verify`` checks such a file against its commitment with nothing but this module.

Standard library only (the shuffle layer): ``secrets`` for the salts of real hands.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from feltroom.cards import CARDS, Card, Deck
from feltroom.errors import FeltroomError

__all__ = [
    "DECK_SIZE",
    "DEPTH",
    "SALT_BYTES",
    "SCHEME",
    "CardOpening",
    "CommittedDeck",
    "MalformedProof",
    "check_file",
    "commit",
    "commitment",
    "load_proof",
    "new_salts",
    "proof_document",
    "verify",
    "verify_text",
]

SCHEME = "feltroom-merkle-sha256-v1"
DECK_SIZE = 52
SALT_BYTES = 16
DEPTH = 6
LEAVES = 1 << DEPTH  # 64: positions 52..63 are padding

_sha256 = hashlib.sha256
_LEAF = b"\x00"
_NODE = b"\x01"
_PAD = bytes(32)
# _LEAF_PREFIX[position][card.index]: 0x00 || byte(position) || card text
_LEAF_PREFIX = tuple(
    tuple(_LEAF + bytes((position,)) + str(card).encode("ascii") for card in CARDS)
    for position in range(DECK_SIZE)
)
# _PADDING[k]: the hash of a level-k subtree made of padding leaves only
_PADDING = [_PAD]
for _ in range(DEPTH):
    _PADDING.append(_sha256(_NODE + _PADDING[-1] + _PADDING[-1]).digest())
# _REAL[k]: how many nodes of level k cover at least one card
_REAL = tuple(-(-DECK_SIZE // (1 << k)) for k in range(DEPTH + 1))

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_ROLE = re.compile(r"board2?|hole:([1-9][0-9]{0,2})")


class MalformedProof(FeltroomError, ValueError):
    """A proof file that is not a proof document: the message says what was expected."""


def new_salts() -> bytes:
    """52 fresh 16-byte salts from the CSPRNG (``secrets``), as one 832-byte string."""
    return secrets.token_bytes(SALT_BYTES * DECK_SIZE)


def _leaves(cards: Sequence[Card], salts: bytes) -> list[bytes]:
    sha = _sha256
    prefix = _LEAF_PREFIX
    return [
        sha(prefix[i][card.index] + salts[SALT_BYTES * i : SALT_BYTES * (i + 1)]).digest()
        for i, card in enumerate(cards)
    ]


def _levels(cards: Sequence[Card], salts: bytes) -> list[list[bytes]]:
    """Every level of the tree, leaves first, root last (a list of one)."""
    sha = _sha256
    node = _NODE
    level = _leaves(cards, salts)
    level += [_PAD] * (LEAVES - DECK_SIZE)
    levels = [level]
    for k in range(1, DEPTH + 1):
        below = level
        real = _REAL[k]
        level = [sha(node + below[2 * j] + below[2 * j + 1]).digest() for j in range(real)]
        level += [_PADDING[k]] * ((LEAVES >> k) - real)
        levels.append(level)
    return levels


def _root(cards: Sequence[Card], salts: bytes) -> bytes:
    """The root alone (the hot path: once per hand)."""
    sha = _sha256
    node = _NODE
    level = _leaves(cards, salts)
    for k in range(1, DEPTH + 1):
        below = level
        if len(below) % 2:
            below.append(_PADDING[k - 1])
        level = [sha(node + below[j] + below[j + 1]).digest() for j in range(0, len(below), 2)]
    return level[0]


def _check_deck(cards: Sequence[Card], salts: bytes) -> None:
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise MalformedProof(f"a committed deck holds the {DECK_SIZE} distinct cards")
    if not isinstance(salts, bytes) or len(salts) != SALT_BYTES * DECK_SIZE:
        raise MalformedProof(
            f"a committed deck has {DECK_SIZE} salts of {SALT_BYTES} bytes "
            f"({SALT_BYTES * DECK_SIZE} bytes in all)"
        )


def commitment(deck: Deck | Sequence[Card], salts: bytes) -> str:
    """The commitment (Merkle root, lowercase hex) to ``deck`` in dealing order with ``salts``
    (52 salts of 16 bytes, concatenated)."""
    cards = deck.cards if isinstance(deck, Deck) else tuple(deck)
    _check_deck(cards, salts)
    return _root(cards, salts).hex()


@dataclass(frozen=True, slots=True)
class CardOpening:
    """One card of a proof: its deck position, the card, its salt and its Merkle path."""

    position: int
    card: Card
    salt: bytes
    path: tuple[bytes, ...]

    def as_json(self, role: str) -> dict[str, Any]:
        """The card as a proof file lists it, with its ``role`` (``hole:<seat>``, ``board``, or
        ``board2`` for the second run's own cards of a board run twice, R-HOME-4)."""
        return {
            "position": self.position,
            "card": str(self.card),
            "salt": self.salt.hex(),
            "path": [sibling.hex() for sibling in self.path],
            "role": role,
        }


@dataclass(frozen=True, slots=True)
class CommittedDeck:
    """A hand's deck in dealing order, its salts (secret until the hand is over) and the
    commitment published before the first card."""

    deck: Deck
    salts: bytes
    commitment: str

    def salt(self, position: int) -> bytes:
        """The 16-byte salt of deck ``position``."""
        return self.salts[SALT_BYTES * position : SALT_BYTES * (position + 1)]

    def position_of(self, card: Card) -> int:
        """Where ``card`` lies in the deck (every card lies somewhere)."""
        return self.deck.cards.index(card)

    def proof_for(self, positions: Iterable[int]) -> list[CardOpening]:
        """The openings of ``positions`` (in the order given): card, salt and Merkle path each.
        A position outside 0..51 raises ``MalformedProof``."""
        wanted = list(positions)
        for position in wanted:
            if not isinstance(position, int) or not 0 <= position < DECK_SIZE:
                raise MalformedProof(f"deck positions are 0..{DECK_SIZE - 1}, not {position!r}")
        levels = _levels(self.deck.cards, self.salts)
        return [
            CardOpening(
                position,
                self.deck.cards[position],
                self.salt(position),
                tuple(levels[k][(position >> k) ^ 1] for k in range(DEPTH)),
            )
            for position in wanted
        ]

    def stored(self) -> tuple[str, str]:
        """The deck and the salts as text, for the books: ``("As Kd ...", "<1664 hex>")``."""
        return " ".join(map(str, self.deck.cards)), self.salts.hex()

    @classmethod
    def from_stored(cls, deck: str, salts: str, expected: str | None = None) -> CommittedDeck:
        """The committed deck back from ``stored()`` text; with ``expected``, the recomputed
        commitment must equal it (``MalformedProof`` otherwise)."""
        try:
            cards = tuple(Card.parse(text) for text in deck.split())
            salt_bytes = bytes.fromhex(salts)
        except ValueError as error:
            raise MalformedProof(
                f"a stored deck is 52 cards and 1664 hex digits: {error}"
            ) from None
        committed = commit(Deck(cards), salt_bytes)
        if expected is not None and committed.commitment != expected:
            raise MalformedProof(
                f"the stored deck gives commitment {committed.commitment}, not {expected}"
            )
        return committed


def commit(deck: Deck, salts: bytes | None = None) -> CommittedDeck:
    """Commit to ``deck`` (dealing order) with ``salts`` (52 x 16 bytes; fresh CSPRNG salts when
    not given)."""
    salts = new_salts() if salts is None else salts
    _check_deck(deck.cards, salts)
    return CommittedDeck(deck, salts, _root(deck.cards, salts).hex())


def proof_document(
    committed: CommittedDeck, hand_id: int, table: str, cards: Iterable[tuple[int, str]]
) -> dict[str, Any]:
    """The proof file (a JSON object) opening ``cards``: (deck position, role) pairs, listed
    by position."""
    roles = dict(cards)
    positions = sorted(roles)
    return {
        "scheme": SCHEME,
        "hand_id": hand_id,
        "table": table,
        "commitment": committed.commitment,
        "cards": [
            opening.as_json(roles[opening.position]) for opening in committed.proof_for(positions)
        ],
    }


# ------------------------------------------------------------------------------- verifying

_EXPECTED = (
    'a proof file is a JSON object {"scheme": "feltroom-merkle-sha256-v1", "hand_id": <int>, '
    '"table": "<name>", "commitment": "<64 lowercase hex>", "cards": [{"position": <int>, '
    '"card": "As", "salt": "<32 lowercase hex>", "path": [6 x "<64 lowercase hex>"], '
    '"role": "hole:<seat>" | "board" | "board2"}, ...]}'
)


def _malformed(what: str) -> MalformedProof:
    return MalformedProof(f"{what}; {_EXPECTED}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_shape(document: object) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
    if not isinstance(document, Mapping):
        raise _malformed(f"the file holds a JSON {type(document).__name__}, not an object")
    missing = [
        key for key in ("scheme", "hand_id", "table", "commitment", "cards") if key not in document
    ]
    if missing:
        raise _malformed(f"missing {', '.join(missing)}")
    if document["scheme"] != SCHEME:
        raise _malformed(f"unknown scheme {document['scheme']!r} (this verifier knows {SCHEME})")
    if not _is_int(document["hand_id"]):
        raise _malformed("hand_id must be an integer")
    if not isinstance(document["table"], str):
        raise _malformed("table must be a string")
    root = document["commitment"]
    if not isinstance(root, str) or not _HEX64.fullmatch(root):
        raise _malformed("commitment must be 64 lowercase hex digits")
    cards = document["cards"]
    if not isinstance(cards, list) or not cards:
        raise _malformed("cards must be a non-empty list")
    for number, entry in enumerate(cards, start=1):
        where = f"cards[{number - 1}]"
        if not isinstance(entry, Mapping):
            raise _malformed(f"{where} is not an object")
        absent = [k for k in ("position", "card", "salt", "path", "role") if k not in entry]
        if absent:
            raise _malformed(f"{where} misses {', '.join(absent)}")
        if not _is_int(entry["position"]):
            raise _malformed(f"{where}.position must be an integer")
        if not isinstance(entry["card"], str) or not isinstance(entry["role"], str):
            raise _malformed(f"{where}.card and {where}.role must be strings")
        if not isinstance(entry["salt"], str) or not _HEX32.fullmatch(entry["salt"]):
            raise _malformed(f"{where}.salt must be 32 lowercase hex digits")
        path = entry["path"]
        if (
            not isinstance(path, list)
            or len(path) != DEPTH
            or not all(isinstance(h, str) and _HEX64.fullmatch(h) for h in path)
        ):
            raise _malformed(f"{where}.path must be {DEPTH} hashes of 64 lowercase hex digits")
    return document, cards


def _opening_root(position: int, card: str, salt: bytes, path: Sequence[bytes]) -> bytes:
    node = _sha256(_LEAF + bytes((position,)) + card.encode("ascii") + salt).digest()
    for k, sibling in enumerate(path):
        if (position >> k) & 1:
            node = _sha256(_NODE + sibling + node).digest()
        else:
            node = _sha256(_NODE + node + sibling).digest()
    return node


def verify(document: object) -> list[str]:
    """Check a proof document (the parsed JSON) against its commitment: every card's leaf, with
    its path, must lead to the commitment; positions are 0..51 and distinct, cards are distinct
    and written as the deck writes them ("As", "Td"), roles are ``hole:<seat>`` (two per seat
    at most), ``board`` (five at most) or ``board2`` (the second run's own cards of a board run
    twice, R-HOME-4: five at most).

    Returns what failed, one line per problem; empty when the proof holds. A document that is
    not a proof file at all raises ``MalformedProof`` (the message says what is expected).
    """
    head, cards = _check_shape(document)
    root = bytes.fromhex(head["commitment"])
    problems: list[str] = []
    positions: dict[int, int] = {}
    seen: dict[str, int] = {}
    roles: dict[str, int] = {}
    for number, entry in enumerate(cards):
        position, card, role = entry["position"], entry["card"], entry["role"]
        name = f"card {number} ({card!r} at position {position})"
        if not 0 <= position < DECK_SIZE:
            problems.append(f"{name}: positions are 0..{DECK_SIZE - 1}")
            continue
        if position in positions:
            problems.append(f"{name}: position {position} is also card {positions[position]}")
        positions.setdefault(position, number)
        try:
            canonical = str(Card.parse(card))
        except ValueError:
            canonical = None
        if canonical != card:
            problems.append(f"{name}: not a card as the deck writes it (e.g. 'As', 'Td')")
            continue
        if card in seen:
            problems.append(f"{name}: the card is also card {seen[card]}")
        seen.setdefault(card, number)
        if not _ROLE.fullmatch(role):
            problems.append(f"{name}: role {role!r} is none of 'board', 'board2' and 'hole:<seat>'")
        else:
            roles[role] = roles.get(role, 0) + 1
        path = [bytes.fromhex(h) for h in entry["path"]]
        if _opening_root(position, card, bytes.fromhex(entry["salt"]), path) != root:
            problems.append(
                f"{name}: the card, its salt and its path do not lead to the commitment"
            )
    for role, count in sorted(roles.items()):
        most = 5 if role.startswith("board") else 2
        if count > most:
            problems.append(f"{count} cards have role {role}: at most {most}")
    return problems


def load_proof(text: str) -> dict[str, Any]:
    """Parse a proof file's text: ``MalformedProof`` (saying what is expected) unless it is a
    JSON object of the proof file's shape."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise _malformed(f"the file is not JSON ({error})") from None
    head, _ = _check_shape(document)
    return dict(head)


def verify_text(text: str) -> tuple[dict[str, Any], list[str]]:
    """Parse and verify a proof file's text: the document and what failed (empty: it holds).
    ``MalformedProof`` when it is not a proof file."""
    document = load_proof(text)
    return document, verify(document)


def check_file(path: str | Path) -> tuple[int, list[str]]:
    """``feltroom verify FILE``: the exit status and the lines to print. 0: the proof holds
    (the lines say what was verified); 1: it does not (the lines say what failed); 2: the file
    cannot be read or is not a proof file (the lines say what is expected)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return 2, [f"{path}: cannot read the file ({error}); {_EXPECTED}"]
    try:
        document, problems = verify_text(text)
    except MalformedProof as error:
        return 2, [f"{path}: not a proof file: {error}"]
    cards = len(document["cards"])
    what = (
        f"hand {document['hand_id']} at table {document['table']!r}, {cards} card"
        f"{'' if cards == 1 else 's'}, commitment {document['commitment']}"
    )
    if problems:
        return 1, [f"{path}: NOT verified: {what}", *(f"  {p}" for p in problems)]
    return 0, [f"{path}: verified ({SCHEME}): {what}"]

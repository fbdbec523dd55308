"""Verifiable deals (``feltroom.deal_proof``): the commitment, proofs of single cards, the
verifier, ``feltroom verify`` and the worked example of docs/protocol.md (R-RNG-1: the shuffle
is auditable)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from feltroom import cli
from feltroom.cards import CARDS, Card, Deck
from feltroom.deal_proof import (
    DECK_SIZE,
    DEPTH,
    SCHEME,
    CommittedDeck,
    MalformedProof,
    commit,
    commitment,
    load_proof,
    proof_document,
    verify,
)
from feltroom.shuffle import CsprngDeckSource, SeededDeckSource

DOC = Path(__file__).parents[1] / "docs" / "protocol.md"


def _spec_root(deck: Deck, salts: bytes) -> str:
    """The root as docs/protocol.md spells it, the plain way: 64 leaves, then pairs up."""
    level = [
        hashlib.sha256(
            b"\x00" + bytes([i]) + str(card).encode("ascii") + salts[16 * i : 16 * i + 16]
        ).digest()
        for i, card in enumerate(deck)
    ] + [bytes(32)] * 12
    while len(level) > 1:
        level = [
            hashlib.sha256(b"\x01" + level[j] + level[j + 1]).digest()
            for j in range(0, len(level), 2)
        ]
    return level[0].hex()


def _document(positions: list[int] | None = None) -> tuple[CommittedDeck, dict[str, Any]]:
    committed = SeededDeckSource("tests").next_committed()
    chosen = positions if positions is not None else [0, 2, 5, 6, 7, 9, 11]
    roles = [(p, "hole:1" if p in (0, 2) else "board") for p in chosen]
    return committed, proof_document(committed, 12, "t1", roles)


# ------------------------------------------------------------------------- the commitment


# Rules: R-RNG-1
def test_R_RNG_1_the_commitment_is_the_merkle_root_the_protocol_specifies() -> None:
    for source in (SeededDeckSource(3), CsprngDeckSource()):
        for _ in range(3):
            committed = source.next_committed()
            assert committed.commitment == _spec_root(committed.deck, committed.salts)
            assert commitment(committed.deck, committed.salts) == committed.commitment
            assert re.fullmatch(r"[0-9a-f]{64}", committed.commitment)
            assert sorted(committed.deck) == list(CARDS)


# Rules: R-RNG-1
def test_R_RNG_1_every_hand_gets_fresh_salts_and_a_fresh_commitment() -> None:
    source = CsprngDeckSource()
    decks = [source.next_committed() for _ in range(20)]
    assert len({d.salts for d in decks}) == 20
    assert len({d.commitment for d in decks}) == 20
    # the same deck with other salts commits differently: the salts hide the cards
    again = commit(decks[0].deck)
    assert again.commitment != decks[0].commitment


def test_the_seeded_source_commits_the_very_decks_next_deck_gives() -> None:
    plain, committed = SeededDeckSource(42), SeededDeckSource(42)
    for _ in range(5):
        deck = plain.next_deck()
        same = committed.next_committed()
        assert same.deck == deck
    again = SeededDeckSource(42)
    first = again.next_committed()
    assert first == SeededDeckSource(42).next_committed()  # reproducible, salts included


def test_a_committed_deck_must_be_52_distinct_cards_and_52_salts() -> None:
    deck = SeededDeckSource(1).next_deck()
    with pytest.raises(MalformedProof, match="52 salts"):
        commit(deck, bytes(16 * 51))
    with pytest.raises(MalformedProof, match="52 distinct cards"):
        commitment((deck[0],) * DECK_SIZE, bytes(16 * DECK_SIZE))


def test_the_stored_form_round_trips_and_checks_the_commitment() -> None:
    committed = SeededDeckSource(5).next_committed()
    deck, salts = committed.stored()
    assert CommittedDeck.from_stored(deck, salts, committed.commitment) == committed
    with pytest.raises(MalformedProof, match="gives commitment"):
        CommittedDeck.from_stored(deck, salts[:-2] + "00", committed.commitment)


# ------------------------------------------------------------------------- proofs


# Rules: R-RNG-1
def test_R_RNG_1_a_proof_of_every_position_verifies() -> None:
    committed = SeededDeckSource("tests").next_committed()
    roles = [(p, f"hole:{p // 2 + 1}") for p in range(DECK_SIZE)]  # two cards per role at most
    document = proof_document(committed, 12, "t1", roles)
    assert verify(document) == []
    cards = document["cards"]
    assert [c["position"] for c in cards] == list(range(DECK_SIZE))
    assert [c["card"] for c in cards] == [str(card) for card in committed.deck]
    assert all(len(c["path"]) == DEPTH for c in cards)


def test_a_proof_holds_only_the_positions_asked_for() -> None:
    committed, document = _document([9, 0, 5])
    assert [c["position"] for c in document["cards"]] == [0, 5, 9]  # listed by position
    assert {c["card"] for c in document["cards"]} == {str(committed.deck[p]) for p in (0, 5, 9)}
    assert document["scheme"] == SCHEME
    assert set(document) == {"scheme", "hand_id", "table", "commitment", "cards"}
    assert set(document["cards"][0]) == {"position", "card", "salt", "path", "role"}
    with pytest.raises(MalformedProof, match=r"0\.\.51"):
        committed.proof_for([52])


def _other_card(card: str, taken: set[str]) -> str:
    return next(str(c) for c in CARDS if str(c) != card and str(c) not in taken)


def _flip_hex(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


@pytest.mark.parametrize("index", range(7))
@pytest.mark.parametrize(
    "what", ["card", "position", "salt", *(f"path{k}" for k in range(DEPTH)), "commitment"]
)
# Rules: R-RNG-1
def test_R_RNG_1_any_altered_card_position_salt_or_path_entry_fails(what: str, index: int) -> None:
    _, document = _document()
    assert verify(document) == []
    altered = copy.deepcopy(document)
    entry = altered["cards"][index]
    if what == "card":
        entry["card"] = _other_card(entry["card"], {c["card"] for c in document["cards"]})
    elif what == "position":
        taken = {c["position"] for c in document["cards"]}
        entry["position"] = next(p for p in range(DECK_SIZE) if p not in taken)
    elif what == "salt":
        entry["salt"] = _flip_hex(entry["salt"])
    elif what == "commitment":
        altered["commitment"] = _flip_hex(altered["commitment"])
    else:
        k = int(what.removeprefix("path"))
        entry["path"][k] = _flip_hex(entry["path"][k])
    problems = verify(altered)
    assert problems
    if what != "commitment":
        assert all(f"card {index} " in p for p in problems), problems


def test_two_cards_swapped_between_positions_fail() -> None:
    _, document = _document()
    altered = copy.deepcopy(document)
    first, second = altered["cards"][0], altered["cards"][1]
    first["card"], second["card"] = second["card"], first["card"]
    assert len(verify(altered)) == 2


def test_duplicates_and_impossible_roles_fail() -> None:
    _, document = _document()
    twice = copy.deepcopy(document)
    twice["cards"].append(copy.deepcopy(twice["cards"][0]))
    problems = verify(twice)
    assert any("also card 0" in p for p in problems)
    roles = copy.deepcopy(document)
    for entry in roles["cards"]:
        entry["role"] = "hole:4"
    assert any("at most 2" in p for p in verify(roles))
    bad = copy.deepcopy(document)
    bad["cards"][0]["role"] = "burn"
    assert any("none of 'board', 'board2' and 'hole:<seat>'" in p for p in verify(bad))
    # R-HOME-4: a second run's own cards (role board2), five at most
    second = copy.deepcopy(document)
    second["cards"][0]["role"] = "board2"
    assert verify(second) == []
    for entry in second["cards"][:6]:
        entry["role"] = "board2"
    assert any("6 cards have role board2: at most 5" in p for p in verify(second))
    lower = copy.deepcopy(document)
    lower["cards"][0]["card"] = lower["cards"][0]["card"].lower()
    if lower["cards"][0]["card"] != document["cards"][0]["card"]:
        assert any("as the deck writes it" in p for p in verify(lower))
    far = copy.deepcopy(document)
    far["cards"][0]["position"] = 60  # a padding leaf
    assert any("positions are 0..51" in p for p in verify(far))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("commitment"), "missing commitment"),
        (lambda d: d.update(scheme="other-v2"), "unknown scheme"),
        (lambda d: d.update(hand_id="12"), "hand_id must be an integer"),
        (lambda d: d.update(cards=[]), "non-empty list"),
        (lambda d: d["cards"][0].update(salt="zz"), "32 lowercase hex"),
        (lambda d: d["cards"][0]["path"].pop(), "6 hashes"),
        (lambda d: d["cards"][0].update(position=True), "position must be an integer"),
        (lambda d: d["cards"][0].pop("role"), "misses role"),
        (lambda d: d.update(commitment=d["commitment"].upper()), "64 lowercase hex"),
    ],
)
def test_a_malformed_document_says_what_a_proof_file_is(change: Any, says: str) -> None:
    _, document = _document()
    change(document)
    with pytest.raises(MalformedProof, match=says) as caught:
        verify(document)
    assert '"scheme": "feltroom-merkle-sha256-v1"' in str(caught.value)


def test_load_proof_refuses_text_that_is_not_a_json_object() -> None:
    with pytest.raises(MalformedProof, match="not JSON"):
        load_proof("{not json")
    with pytest.raises(MalformedProof, match="not an object"):
        load_proof("[1, 2]")


# ------------------------------------------------------------------------- feltroom verify


def test_feltroom_verify_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    committed, document = _document()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document), encoding="utf-8")
    assert cli.main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "verified" in out
    assert "hand 12" in out
    assert "7 cards" in out
    assert committed.commitment in out

    altered = copy.deepcopy(document)
    altered["cards"][3]["salt"] = _flip_hex(altered["cards"][3]["salt"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(altered), encoding="utf-8")
    assert cli.main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "NOT verified" in out
    assert "card 3" in out

    broken = tmp_path / "broken.json"
    broken.write_text('{"scheme": "feltroom-merkle-sha256-v1"}', encoding="utf-8")
    assert cli.main(["verify", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "not a proof file" in err
    assert "a proof file is a JSON object" in err

    assert cli.main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert cli.main(["verify", str(binary)]) == 2


# ------------------------------------------------------------------------- the document


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Verifiable deals")
    return text[start : text.index("\n## ", start + 1)]


# Rules: R-RNG-1
def test_R_RNG_1_the_worked_example_of_the_protocol_verifies_and_is_the_seeded_deck() -> None:
    section = _section()
    (block,) = re.findall(r"^```json proof\n(.*?)^```\n", section, re.M | re.S)
    example = json.loads(block)
    assert verify(example) == []
    committed = SeededDeckSource("protocol-example").next_committed()
    roles = [(c["position"], c["role"]) for c in example["cards"]]
    assert example == proof_document(committed, example["hand_id"], example["table"], roles)
    # heads-up, the requester first to the button's left: hole cards at 0 and 2 (i, n + i),
    # the flop at 2n+1..2n+3 (R-DEAL-1..3)
    assert roles == [(0, "hole:3"), (2, "hole:3"), (5, "board"), (6, "board"), (7, "board")]
    # the leaf of position 0, as the text spells it out
    data, digest = re.search(r"`([0-9a-f]{40})`.*?`([0-9a-f]{64})`", section, re.S).groups()  # type: ignore[union-attr]
    first = example["cards"][0]
    assert bytes.fromhex(data) == (
        b"\x00\x00" + first["card"].encode("ascii") + bytes.fromhex(first["salt"])
    )
    assert hashlib.sha256(bytes.fromhex(data)).hexdigest() == digest
    assert Card.parse(first["card"]) == committed.deck[0]

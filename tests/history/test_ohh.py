"""OHH JSON export of engine hands, the shipped schema and its small validator."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from feltroom.history import ohh
from feltroom.money import PLAY, Currency
from feltroom.rules import Hand

from .corpora import OHH, SHARED_OHH
from .random_hands import play_random_hand
from .test_pokerstars_export import (
    NAMES,
    STARTED,
    limit_muck_hand,
    pot_limit_hand,
    side_pot_hand,
)

USD = Currency("USD", 2)
EXAMPLES = sorted(OHH.glob("*.ohh"))  # our own examples in tests/data


def export(
    hand: Hand, hero: str | None, names: dict[int, str], currency: Currency = USD
) -> dict[str, Any]:
    """The exported file, read back with exact decimals."""
    text = ohh.dumps(
        hand,
        hand_id=42,
        table_name="Felt I",
        hero=hero,
        names=names,
        currency=currency,
        started=STARTED,
        seat_count=6,
    )
    document: dict[str, Any] = json.loads(text, parse_float=Decimal)
    assert ohh.validate(document) == []
    return document["ohh"]  # type: ignore[no-any-return]


def actions(hand: dict[str, Any], street: str) -> list[tuple[int, str, Decimal, bool]]:
    (round_,) = [r for r in hand["rounds"] if r["street"] == street]
    return [(a["player_id"], a["action"], a["amount"], a["is_allin"]) for a in round_["actions"]]


def all_cards(document: dict[str, Any]) -> dict[int, list[str]]:
    """Hole cards the document shows, by player id."""
    seen: dict[int, list[str]] = {}
    for round_ in document["rounds"]:
        for action in round_["actions"]:
            if action.get("cards"):
                seen.setdefault(action["player_id"], []).extend(action["cards"])
    return seen


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_validate(path: Path) -> None:
    document = json.loads(path.read_text("utf-8"), parse_float=Decimal)
    assert ohh.validate(document) == []


@pytest.mark.corpus
def test_the_shared_spec_examples_validate() -> None:
    paths = sorted(SHARED_OHH.glob("*.ohh"))
    assert len(paths) >= 3
    for path in paths:
        document = json.loads(path.read_text("utf-8"), parse_float=Decimal)
        assert ohh.validate(document) == [], path.name


def test_the_validator_reports_what_is_wrong() -> None:
    document = json.loads(EXAMPLES[0].read_text("utf-8"), parse_float=Decimal)
    document["ohh"]["spec_version"] = "2.0.0"
    document["ohh"]["rounds"][0]["actions"][0]["action"] = "Dances"
    del document["ohh"]["pots"]
    document["ohh"]["players"][0]["seat"] = "one"
    errors = ohh.validate(document)
    assert any(e.startswith("$.ohh.spec_version:") for e in errors)
    assert any(e.startswith("$.ohh.rounds[0].actions[0].action:") for e in errors)
    assert "$.ohh: missing 'pots'" in errors
    assert "$.ohh.players[0].seat: expected integer, got str" in errors
    assert ohh.validate({"ohh": {**document["ohh"], "pots": [], "players": []}}) != []


# Rules: R-HIST-2, R-ALLIN-2, R-ALLIN-4, R-RAKE-3
def test_no_limit_side_pots_with_rake_per_pot() -> None:
    hand = export(side_pot_hand(), "Eve", NAMES)
    assert hand["spec_version"] == "1.4.6"
    assert hand["bet_limit"] == {"bet_type": "NL", "bet_cap": 0}
    assert (hand["small_blind_amount"], hand["big_blind_amount"]) == (
        Decimal("0.05"),
        Decimal("0.1"),
    )
    assert hand["dealer_seat"] == 6
    assert hand["start_date_utc"] == "2026-12-01T15:00:00Z"
    assert [(p["id"], p["seat"], p["name"], p["starting_stack"]) for p in hand["players"]] == [
        (0, 1, "Ann", 2),
        (1, 2, "Bob", 15),
        (2, 3, "Cat", 10),
        (3, 4, "Dan", 10),
        (4, 6, "Eve", 20),
    ]
    assert hand["hero_player_id"] == 4
    assert actions(hand, "Preflop") == [
        (0, "Post SB", Decimal("0.05"), False),
        (1, "Post BB", Decimal("0.1"), False),
        (4, "Dealt Cards", 0, False),
        (2, "Fold", 0, False),
        (3, "Raise", 10, True),  # the chips the action added
        (4, "Raise", 20, True),
        (0, "Call", Decimal("1.95"), True),
        (1, "Call", Decimal("14.9"), True),
    ]
    # R-RAKE-3: the rake of each pot, from the main pot outward, and each winner's share of it.
    assert hand["pots"] == [
        {
            "number": 0,
            "amount": 8,
            "rake": Decimal("0.4"),
            "player_wins": [
                {"player_id": 0, "win_amount": Decimal("7.6"), "contributed_rake": Decimal("0.4")}
            ],
        },
        {
            "number": 1,
            "amount": 24,
            "rake": Decimal("1.2"),
            "player_wins": [
                {"player_id": 1, "win_amount": Decimal("22.8"), "contributed_rake": Decimal("1.2")}
            ],
        },
        {
            "number": 2,
            "amount": 10,
            "rake": Decimal("0.5"),
            "player_wins": [
                {"player_id": 1, "win_amount": Decimal("9.5"), "contributed_rake": Decimal("0.5")}
            ],
        },
    ]
    # R-HIST-2: the hero's cards and the showdown's; never the folded player's (id 2).
    seen = all_cards(hand)
    assert seen[4][:2] == ["Js", "Jd"]
    assert set(seen) == {0, 1, 3, 4}
    assert [r["street"] for r in hand["rounds"]] == ["Preflop", "Flop", "Turn", "River", "Showdown"]


# Rules: R-HIST-2, R-SHOW-5
def test_limit_showdown_muck_is_recorded_for_a_player_not_for_an_observer() -> None:
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    bob = export(limit_muck_hand(), "Bob", names)
    assert bob["bet_limit"]["bet_type"] == "FL"
    assert actions(bob, "Showdown") == [
        (0, "Shows Cards", 0, False),
        (2, "Mucks Cards", 0, False),
    ]
    assert all_cards(bob) == {1: ["2c", "2d"], 0: ["Kh", "Qh"], 2: ["8s", "9s"]}
    ann = export(limit_muck_hand(), "Ann", names)
    assert all_cards(ann) == {0: ["Kh", "Qh", "Kh", "Qh"], 2: ["8s", "9s"]}
    observer = export(limit_muck_hand(), None, names)
    assert "hero_player_id" not in observer
    assert all_cards(observer) == {0: ["Kh", "Qh"]}


# Rules: R-ALLIN-4, R-RAKE-3, R-HIST-2
def test_pot_limit_uncalled_bet_is_not_in_the_pot() -> None:
    hand = export(pot_limit_hand(), "Bob", {1: "Ann", 2: "Bob"})
    assert hand["bet_limit"]["bet_type"] == "PL"
    assert actions(hand, "Flop") == [
        (0, "Check", 0, False),
        (1, "Bet", Decimal("0.6"), False),
        (0, "Fold", 0, False),
    ]
    (pot,) = hand["pots"]
    assert (pot["amount"], pot["rake"]) == (Decimal("0.6"), Decimal("0.03"))
    assert pot["player_wins"] == [
        {"player_id": 1, "win_amount": Decimal("0.57"), "contributed_rake": Decimal("0.03")}
    ]
    assert set(all_cards(hand)) == {1}


def test_play_money_amounts_are_whole_chips() -> None:
    hand = export(pot_limit_hand(), None, {1: "Ann", 2: "Bob"}, PLAY)
    assert hand["currency"] == "PLAY"
    assert hand["pots"][0]["amount"] == 60
    assert all_cards(hand) == {}


# Rules: R-HIST-2, R-RAKE-3
def test_random_hands_export_validate_and_reconcile() -> None:
    rng = random.Random(61)
    for _ in range(200):
        engine = play_random_hand(rng, table_actions=True)
        names = {seat: f"p{seat}" for seat in engine.seats}
        hero_seat = rng.choice([*engine.seats, None])
        hand = export(engine, None if hero_seat is None else names[hero_seat], names)
        ids = {p["seat"]: p["id"] for p in hand["players"]}
        total = sum((pot["amount"] for pot in hand["pots"]), Decimal(0))
        assert total * 100 == sum(r.amount for r in engine.results)
        for pot in hand["pots"]:
            wins = pot["player_wins"]
            assert sum(w["win_amount"] for w in wins) + pot["rake"] == pot["amount"]
            assert sum(w["contributed_rake"] for w in wins) == pot["rake"]
        assert sum(pot["rake"] for pot in hand["pots"]) * 100 == engine.rake
        allowed = {ids[s] for s in engine.showdown_seats} | {ids[s] for s in engine.shown}
        if hero_seat is not None:
            allowed.add(ids[hero_seat])
        else:
            allowed = {ids[s] for s in engine.shown}
        assert set(all_cards(hand)) <= allowed

"""Perft-style regression counts (DESIGN.md principle 10), stored as data in data/perft.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _perft import perft

from feltroom.cards import CARDS
from feltroom.rules import (
    Call,
    Check,
    FixedLimit,
    Fold,
    Hand,
    LogEntry,
    NoLimit,
    PotLimit,
    Structure,
    blinds,
)

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "perft.json").read_text()
)["cases"]

_ACTIONS = {"call": Call(), "check": Check(), "fold": Fold()}


def _structure(case: dict[str, Any]) -> Structure:
    if case["structure"] == "FL":
        return FixedLimit(case["small_bet"], case["big_bet"], 4, case["uncapped_heads_up"])
    return PotLimit(2) if case["structure"] == "PL" else NoLimit(2)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
# Rules: R-LIMIT-2, R-BET-4
def test_R_LIMIT_2_R_BET_4_perft_counts(case: dict[str, Any]) -> None:
    players = [(i + 1, stack) for i, stack in enumerate(case["stacks"])]
    n = len(players)
    setup = Hand(_structure(case), players, n, blinds(players, n, 1, 2), list(CARDS)).setup
    prefix: list[LogEntry] = [(seat, _ACTIONS[name]) for seat, name in case["prefix"]]
    assert perft(setup, prefix, case["street"]) == case["count"]

"""The randomized soak in the test suite: 20,000 hands with every invariant checked, in chunks
that pytest-xdist spreads over the cores (``feltroom simulate`` runs the same code)."""

from __future__ import annotations

import json
import random

import pytest

from feltroom.cli import main
from feltroom.simulate import random_config, simulate

CHUNKS = 10
HANDS = 2_000


@pytest.mark.parametrize("seed", range(CHUNKS))
def test_soak_invariants(seed: int) -> None:
    report = simulate(tables=3 + seed % 4, hands=HANDS, seed=1000 + seed)
    assert report.hands == HANDS
    assert report.violations == 0, report.examples


def test_simulate_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--tables", "2", "--hands", "50", "--seed", "3", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert list(printed) == ["hands", "violations", "violation_examples", "hands_per_second"]
    assert printed["hands"] == 50
    assert printed["violations"] == 0


def test_simulate_no_checks() -> None:
    report = simulate(tables=2, hands=200, seed=5, checks=False)
    assert report.hands == 200
    assert report.violations == 0


def test_simulate_one_game_and_table_size() -> None:
    config = random_config(random.Random(1), "pl_25_50", 6)
    assert (config.structure, config.max_seats, config.big) == ("pot_limit", 6, 50)
    report = simulate(tables=2, hands=300, seed=9, game="pl_25_50", seats=6)
    assert report.hands == 300
    assert report.violations == 0, report.examples


def test_simulate_refuses_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--game", "stud", "--hands", "5"])
    assert code == 2
    assert "'stud' is not valid; valid values are" in capsys.readouterr().err
    assert main(["simulate", "--seats", "11", "--hands", "5"]) == 2

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
    """R-BUTTON-2, R-BUTTON-3, R-MISS-1, R-MISS-4, R-SHOW-3, R-RAKE-3 among the invariants: half
    the chunks on each button rule, one with each table drawing its own."""
    rule = (None, "dead", "moving")[seed % 3]
    report = simulate(tables=3 + seed % 4, hands=HANDS, seed=1000 + seed, button_rule=rule)
    assert report.hands == HANDS
    assert report.violations == 0, report.examples


def test_simulate_button_rule_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    args = "simulate --tables 2 --hands 40 --seed 4 --json --button-rule moving --progress 20"
    code = main(args.split())
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["hands"] == 40
    lines = [json.loads(line) for line in captured.err.splitlines()]
    assert [line["hands"] for line in lines] == [20, 40]
    with pytest.raises(SystemExit) as refused:
        main(["simulate", "--hands", "5", "--button-rule", "sideways"])
    assert refused.value.code == 2
    assert "invalid choice: 'sideways' (choose from 'dead', 'moving')" in capsys.readouterr().err


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

"""Differential test against PokerKit 0.7.7 (test-only oracle): 20,000 random hands.

The comparison itself lives in ``benchmarks/differential.py`` (shared with the 1,000,000-hand
script): FL, PL and NL; 2 to 10 players; unequal stacks with short all-ins; antes; random legal
actions; the legal options compared at every decision and the final stacks at the end. The cases
PokerKit cannot be configured to follow are excluded there, each with the rule it concerns.
The hands are split into chunks so that pytest-xdist spreads them over the cores.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from feltroom.rules import Hand

CHUNKS = 8
HANDS_PER_CHUNK = 2_500  # 20,000 hands in all


def _differential() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "differential.py"
    spec = importlib.util.spec_from_file_location("feltroom_benchmarks_differential", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


differential = _differential()


@pytest.mark.parametrize("chunk", range(CHUNKS))
# Rules: R-BET-6, R-ALLIN-2
def test_R_BET_6_R_ALLIN_2_differential_against_pokerkit(chunk: int) -> None:
    summary = differential.run(HANDS_PER_CHUNK, seed=1000 + chunk)
    assert summary.hands == HANDS_PER_CHUNK
    assert summary.decisions > 5 * HANDS_PER_CHUNK
    assert summary.excluded < HANDS_PER_CHUNK // 50
    assert summary.disagreements == []


# Rules: R-POT-1
def test_R_POT_1_differential_detects_a_wrong_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness is not vacuous: an engine that breaks R-PL-2 disagrees with PokerKit."""
    from feltroom.rules import PotLimit

    original = PotLimit.raise_bounds

    def too_generous(self: PotLimit, hand: object, p: int) -> tuple[int, int] | None:
        bounds = original(self, hand, p)  # type: ignore[arg-type]
        return None if bounds is None else (bounds[0], bounds[1] + 1)

    monkeypatch.setattr(PotLimit, "raise_bounds", too_generous)
    summary = differential.run(60, seed=5, kinds=("PL",))
    assert summary.disagreements


# Rules: R-HOME-3
def test_R_HOME_3_straddled_hands_agree_with_pokerkit_under_its_reading() -> None:
    """Pot- and no-limit hands with a straddle, our engine built with PokerKit's reading (the
    straddle's increment is the raise size, ``straddle_full_raise=False``, as PHH replays of
    real hands use): no disagreement."""
    summary = differential.run(400, seed=46, kinds=("PL", "NL"), straddle=True)
    assert summary.hands == 400
    assert summary.decisions > 5 * 400
    assert summary.disagreements == []


# Rules: R-HOME-3
def test_R_HOME_3_the_tables_straddle_differs_from_pokerkit_in_the_minimum_raise() -> None:
    """The documented difference: at our tables the straddle's size is the last full raise, so
    the first player to act may raise to twice the straddle (4 big blinds) where PokerKit allows
    the straddle plus a big blind (3 big blinds)."""
    rng = random.Random(46)
    compared = 0
    with differential._oracle_patches():
        for _ in range(60):
            hand, state = differential._setup(rng, rng.choice(("PL", "NL")), straddle=True)
            ours = Hand.from_setup(dataclasses.replace(hand.setup, straddle_full_raise=True))
            bb = hand.setup.structure.min_bet(0)
            legal = ours.legal_actions()
            if legal is None or legal.raise_max is None or legal.raise_max < 4 * bb:
                continue
            assert state.can_complete_bet_or_raise_to()
            assert state.min_completion_betting_or_raising_to_amount == 3 * bb
            assert legal.raise_min == 4 * bb
            compared += 1
    assert compared >= 30

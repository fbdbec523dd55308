"""Differential test against PokerKit 0.7.7 (test-only oracle): 20,000 random hands.

The comparison itself lives in ``benchmarks/differential.py`` (shared with the 1,000,000-hand
script): FL, PL and NL; 2 to 10 players; unequal stacks with short all-ins; antes; random legal
actions; the legal options compared at every decision and the final stacks at the end. The cases
PokerKit cannot be configured to follow are excluded there, each with the rule it concerns.
The hands are split into chunks so that pytest-xdist spreads them over the cores.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

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

"""Crash safety: ``feltroom serve`` with house bots playing, killed with SIGKILL at random moments
ten times, restarted each time, the books audited after each kill and each restart.

The cycles are those of ``scripts/crash_cycles.py`` (which runs 100 of them): after every restart
the hands the killed run left unsettled are void, settled hands stay exactly as they were, hand
ids are never reused, and the audit passes (every currency sums to zero, each settled hand
balances, each table's escrow equals its stacks).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "crash_cycles.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("feltroom_crash_cycles", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # (81 s on 2 cores: the main step stays under 20 minutes)
def test_killed_ten_times_at_random_moments_the_books_stay_exact(fast_tmp: Path) -> None:
    crash = _script()
    summary = crash.run_cycles(10, fast_tmp, seed=20261129, low=0.2, high=1.5)
    assert summary["problems"] == []
    assert summary["cycles"] == 10
    assert summary["pass"] is True
    assert summary["hands_settled"] > 0

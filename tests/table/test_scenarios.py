"""Every scenario script under tests/table/scenarios/ (the seeds' worked examples, hand by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .scenario import SCENARIOS, run_file


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.txt")), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    run_file(path)

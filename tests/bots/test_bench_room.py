"""``feltroom bench room`` measures the room's work, not its pacing: every pause the room keeps
(``RuntimeSettings.pauses``) is off in its room, and the report says which it turned off."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from feltroom.cli import main
from feltroom.room.runtime import RuntimeSettings

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_room.py"


def _bench_room() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_room_under_test", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_rooms_runtime_keeps_no_pause() -> None:
    paced = RuntimeSettings().pauses()
    assert all(seconds > 0 for seconds in paced.values())  # each is a pause by default
    settings = _bench_room().room_settings(5)
    assert settings.pauses() == dict.fromkeys(paced, 0.0)
    assert settings.house_bots == 5


def test_bench_room_says_what_pacing_it_turns_off(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "room", "--tables", "2", "--seconds", "1"]) == 0
    out = capsys.readouterr().out
    assert "pacing off: bot_think=0, between_hands=0, after_showdown=0" in out
    assert "audit pass" in out

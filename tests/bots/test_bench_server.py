"""A smoke run of ``feltroom bench server``: a real server process, bots in another process,
eleven tables (66 bots, all from one address: the room's per-address cap is lifted for them)
for a few seconds; the JSON line has the documented shape and the books balance."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


def test_bench_server_smoke_prints_one_json_line_per_scenario(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tables = 11  # 66 bots from 127.0.0.1: beyond the default per-address cap (64), lifted
    code = main(
        ["bench", "server", "--scenario", "a", "--tables", str(tables), "--seconds", "3",
         "--think", "0", "0.05", "--processes", "1", "--warm-up", "1", "--json"]
    )  # fmt: skip
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert set(report) >= {"connections", "actions_per_second", "hands_per_second",
                           "latency_ms", "rss_mb", "audit"}  # fmt: skip
    assert report["scenario"] == "a"
    assert report["connections"] == tables * 6
    assert report["actions_per_second"] > 0
    latency = report["latency_ms"]
    assert 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert report["rss_mb"] > 0
    assert report["server_cpu_ms_per_action"] > 0
    assert report["audit"] is True
    assert code == 0


def test_bench_server_capacity_steps_up_until_the_p99_breaks_or_the_last_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["bench", "server", "--capacity", "--capacity-start", "12", "--capacity-step", "6",
         "--capacity-max", "18", "--capacity-seconds", "5", "--processes", "1",
         "--warm-up", "1", "--json"]
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["scenario"] == "capacity"
    assert report["think"] == [2.0, 6.0]
    assert [step["connections"] for step in report["steps"]] == [12, 18]
    assert all(step["held"] and step["p99_ms"] <= 100 for step in report["steps"])
    assert report["capacity"] == report["connections"] == 18
    assert report["tables"] == 3
    assert set(report["cpu_percent"]) == {"room", "bots"}
    assert report["memory_per_connection_kib"] > 0
    assert report["audit"] is True
    assert code == 0


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--capacity-start", "0"], "at least 1"),
        (["--capacity-start", "5000", "--capacity-max", "4000"], "at least --capacity-start"),
        (["--capacity-seconds", "0"], "positive"),
    ],
)
def test_bench_server_capacity_refuses_bad_counts(
    options: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "server", "--capacity", *options])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err

"""A smoke run of ``feltroom bench server``: a real server process, bots in another process,
two tables for a few seconds; the JSON line has the documented shape and the books balance."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


def test_bench_server_smoke_prints_one_json_line_per_scenario(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tables = 2
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
    assert report["audit"] is True
    assert code == 0

"""A small run of ``feltroom bench tournament``: a real server process, a sit-and-go of network
bots on two tables to the end, the bots in this process or in a client process of their own;
the JSON line has the documented shape, every place was given, every prize paid and the books
balance."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


@pytest.mark.parametrize("bot_processes", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_bench_tournament_small_run_prints_one_json_line(
    capsys: pytest.CaptureFixture[str], bot_processes: int
) -> None:
    code = main(
        [
            "bench",
            "tournament",
            "--players",
            "12",
            "--limit",
            "90",
            "--bot-processes",
            str(bot_processes),
            "--json",
        ]
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["players"] == 12
    assert report["bot_processes"] == bot_processes
    assert report["state"] == "finished", report
    assert report["hands"] > 0
    assert report["wall_seconds"] > 0
    assert report["hands_per_second"] > 0
    for key in (
        "action_latency_ms",
        "move_latency_ms",
        "break_latency_ms",
        "final_draw_latency_ms",
    ):
        assert set(report[key]) == {"p50", "p99", "max", "count"}
    served = report["server_action_ms"]  # the room's own histogram, read from /metrics
    assert served["count"] >= report["action_latency_ms"]["count"] > 0
    assert 0 < served["p50"] <= served["p99"]
    low, high = served["p99_bucket_ms"]
    assert low <= served["p99"] <= high
    latency = report["action_latency_ms"]
    assert 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert report["break_latency_ms"]["count"] > 0  # two tables of six become the final table
    assert report["places_ok"] is True
    assert report["prizes_paid"] == report["prize_pool"] == 12 * 1000
    assert report["problems"] == []
    assert report["unplaced"] == []
    assert report["audit"] is True
    assert code == 0

"""A smoke run of ``feltroom bench tournament --cluster`` (issue 44): its own PostgreSQL, Redis,
two workers and a gateway, two sit-and-gos of six network bots at once to the end; every place
given, every prize paid, the books balanced, and the workers' own action histogram read from
their ``/metrics``. And the options it refuses."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


@pytest.mark.slow
def test_R_TOURN_10_R_TOURN_11_bench_tournament_cluster_two_sit_and_gos_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["bench", "tournament", "--cluster", "--tournaments", "2", "--players", "6",
         "--bot-processes", "2", "--limit", "120", "--json"]
    )  # fmt: skip
    captured = capsys.readouterr()
    if code == 2 and "install" in captured.err:
        pytest.skip(captured.err)
    lines = captured.out.strip().splitlines()
    assert len(lines) == 1, captured.out
    report = json.loads(lines[0])
    assert (report["workers"], report["gateways"], report["tournaments"]) == (2, 1, 2)
    assert report["bot_processes"] == 2
    assert set(report["tournaments_by_worker"]) == {"worker-1", "worker-2"}
    assert sum(report["tournaments_by_worker"].values()) >= 2  # (each taken by a worker)
    assert report["players"] == 6
    assert report["state"] == "finished", report
    assert report["places_ok"] is True  # places 1..6 in each (shared places cover theirs)
    assert report["prizes_paid"] == report["prize_pool"] == 2 * 6 * 1000
    assert report["unplaced"] == []
    assert report["problems"] == []
    assert report["audit"] is True
    server = report["server_action_ms"]
    assert set(server) == {"p50", "p99", "count", "le_150ms"}
    # the players' actions observed by their tables' owners (the workers), as the bots saw
    # theirs answered
    assert server["count"] > 0
    assert report["action_latency_ms"]["count"] > 0
    assert 0 <= server["p50"] <= server["p99"]
    assert 0 < server["le_150ms"] <= 1
    assert code == 0


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--workers", "2"], "--workers is an option of --cluster"),
        (["--tournaments", "3"], "--tournaments is an option of --cluster"),
        (["--cluster", "--workers", "0"], "--workers, --gateways and --tournaments are at least 1"),
        (["--cluster", "--gateways", "0"], "got 2, 0, 1"),
        (["--cluster", "--bot-processes", "-1"], "--bot-processes is 0 (the bots in this"),
    ],
)
def test_bench_tournament_refuses_cluster_options_out_of_place(
    options: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "tournament", *options])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err

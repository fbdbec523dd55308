"""A smoke run of ``feltroom bench cluster`` (issue 17): its own PostgreSQL, Redis, two workers
and two gateways behind nginx, two tables for a few seconds; the JSON line has bench server's
fields and the cluster's, and the books balance."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


def test_bench_cluster_prints_bench_servers_fields_and_the_clusters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["bench", "cluster", "--gateways", "2", "--workers", "2", "--scenario", "a",
         "--tables", "2", "--seconds", "4", "--think", "0", "0.05", "--processes", "1",
         "--warm-up", "1", "--json"]
    )  # fmt: skip
    captured = capsys.readouterr()
    if code == 2 and "install" in captured.err:
        pytest.skip(captured.err)
    report = json.loads(captured.out.strip().splitlines()[-1])
    assert report["scenario"] == "a"
    assert report["gateways"] == 2
    assert report["workers"] == 2
    assert report["connections"] == 12
    assert report["actions_per_second"] > 0
    assert 0 < report["latency_ms"]["p50"] <= report["latency_ms"]["p99"]
    # the commands and events go on the workers' direct links: the broker carries the leases,
    # the lobby and the presence, less than a message an action
    assert 0 < report["broker_messages_per_action"] < 2
    parts = report["cpu_ms_per_action_by_part"]
    assert set(parts) == {"room", "broker", "database"}
    # the room always works; the broker (leases and presence only, over direct links) and the
    # database may use less than one clock tick of CPU in a four-second window
    assert parts["room"] > 0
    assert all(value >= 0 for value in parts.values())
    assert report["server_cpu_ms_per_action"] == pytest.approx(sum(parts.values()), abs=0.01)
    # a settlement at least (the new hand ids and the leases add theirs)
    assert report["database_commits_per_hand"] >= 1
    assert report["audit"] is True
    assert code == 0


def test_bench_cluster_refuses_an_empty_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "cluster", "--workers", "0"])
    assert exit_.value.code == 2
    assert "--workers must be at least 1" in capsys.readouterr().err

"""``feltroom serve --role worker|gateway``: what they refuse before anything starts
(docs/cluster.md)."""

from __future__ import annotations

import pytest

from feltroom.cli import main


def test_a_worker_needs_postgresql(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["serve", "--role", "worker", "--db", "sqlite:///x.sqlite3", "--broker", "x"])
    assert code == 2
    assert "needs --db postgresql+psycopg://" in capsys.readouterr().err


def test_a_worker_refuses_a_broker_without_a_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "postgresql+psycopg://room@127.0.0.1:1/room"
    assert main(["serve", "--role", "worker", "--db", url, "--broker", "redis://h:6379/0"]) == 2
    err = capsys.readouterr().err
    assert "needs the broker's password" in err
    assert "hole cards cross the broker" in err
    assert main(["serve", "--role", "worker", "--db", url, "--broker", "nats://h:4222"]) == 2
    assert "use redis://:PASSWORD@host:6379/0" in capsys.readouterr().err


def test_the_lease_and_the_role_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--role", "worker", "--lease-seconds", "0.1"])
    assert "expected a lease of 0.5..60 seconds" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--role", "tables"])
    assert "invalid choice: 'tables'" in capsys.readouterr().err


def test_a_gateway_needs_the_cluster_engines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--role", "gateway"]) == 2
    assert "a gateway needs --db postgresql+psycopg://" in capsys.readouterr().err
    url = "postgresql+psycopg://room@127.0.0.1:1/room"
    assert main(["serve", "--role", "gateway", "--db", url]) == 2
    assert "a gateway needs --broker redis://:PASSWORD@" in capsys.readouterr().err
    assert main(["serve", "--role", "gateway", "--db", url, "--broker", "redis://h/0"]) == 2
    assert "needs the broker's password" in capsys.readouterr().err

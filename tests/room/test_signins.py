"""The sign-in log (issue 24): written per sign-in, kept for the retention, purged after it."""

from __future__ import annotations

import pytest

from fakeclock import Clock
from feltroom.room import Accounts, RoomError
from feltroom.room.signins import SignInLog
from feltroom.room.storage import SignInRow
from feltroom.store import SqlStorage

DAY = 24 * 3600.0


@pytest.fixture
def log(storage: SqlStorage, clock: Clock, accounts: Accounts) -> SignInLog:
    for name in ("alice", "bob"):
        accounts.sign_up(name, "correct horse")
    return SignInLog(storage, clock=clock)


def test_a_sign_in_is_logged_with_its_address_user_agent_and_time(
    log: SignInLog, clock: Clock
) -> None:
    row = log.record("alice", "203.0.113.7", "Mozilla/5.0 (X11)")
    assert row == SignInRow("alice", "203.0.113.7", "Mozilla/5.0 (X11)", clock.now)
    assert log.since(0.0) == [row]


def test_long_addresses_and_user_agents_are_cut_to_the_columns(log: SignInLog) -> None:
    row = log.record("alice", "a" * 100, "u" * 1000)
    assert (len(row.address), len(row.user_agent)) == (64, 255)
    assert log.since(0.0) == [row]


def test_the_default_retention_is_90_days_and_older_entries_are_purged(
    log: SignInLog, clock: Clock
) -> None:
    assert log.retention_days == 90
    old = log.record("alice", "198.51.100.1", "ua")
    clock.now += 90 * DAY + 1
    assert log.since(0.0) == []  # past the retention: not reported even before the purge
    new = log.record("bob", "198.51.100.2", "ua")  # the first record of the hour purges
    with log.storage.transaction(write=False) as tx:
        assert tx.sign_ins(0.0) == [new]
    assert old not in log.since(0.0)
    assert log.purge() == 0


def test_purge_runs_at_most_once_per_period_and_on_demand(log: SignInLog, clock: Clock) -> None:
    log.retention_days = 1
    start = clock.now
    log.record("alice", "198.51.100.1", "ua")  # the first record purges (nothing yet)
    clock.now = start + 1800
    log.record("bob", "198.51.100.1", "ua")
    clock.now = start + DAY + 1000
    log.record("alice", "198.51.100.2", "ua")  # an hour on: purges the first entry
    clock.now = start + DAY + 2000
    log.record("bob", "198.51.100.2", "ua")  # within the hour: bob's first entry stays
    with log.storage.transaction(write=False) as tx:
        assert [(row.account, row.address) for row in tx.sign_ins(0.0)] == [
            ("bob", "198.51.100.1"),
            ("alice", "198.51.100.2"),
            ("bob", "198.51.100.2"),
        ]
    assert log.purge() == 1


@pytest.mark.parametrize("days", [0, -1, float("nan")])
def test_a_retention_must_be_positive(storage: SqlStorage, days: float) -> None:
    with pytest.raises(RoomError, match="retention_days must be a positive number"):
        SignInLog(storage, retention_days=days)

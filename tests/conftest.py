"""Shared fixtures: a fresh SQLite database per test, cheap Argon2 parameters, a settable clock
(used by the room, store, runtime and server tests)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeclock import Clock
from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.store import SqlStorage, open_storage

FAST_TMP = Path("/dev/shm")
SHARED = Path(__file__).resolve().parents[2] / "shared"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``corpus`` read the full corpora in ``../shared``: skipped when it is absent
    (a clone alone runs the same checks on ``tests/data``)."""
    if item.get_closest_marker("corpus") is not None and not SHARED.is_dir():
        pytest.skip(
            f"the full corpora are absent ({SHARED} not found); the same checks ran on "
            "tests/data; put the project's shared/ folder beside the checkout to run them"
        )


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    """A scratch folder in memory where there is one: the databases keep synchronous=FULL, and
    fsync on tmpfs is free, which keeps the suite fast."""
    if not (FAST_TMP.is_dir() and os.access(FAST_TMP, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="feltroom-test-", dir=FAST_TMP))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def db_url(fast_tmp: Path) -> str:
    return f"sqlite:///{fast_tmp / 'room.sqlite3'}"


@pytest.fixture
def storage(db_url: str) -> Iterator[SqlStorage]:
    store = open_storage(db_url)
    yield store
    store.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(storage: SqlStorage, clock: Clock) -> Accounts:
    return Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock)


@pytest.fixture
def cashier(storage: SqlStorage, clock: Clock) -> Cashier:
    return Cashier(storage, clock=clock)


@pytest.fixture
def settlement(storage: SqlStorage, clock: Clock) -> Settlement:
    return Settlement(storage, clock=clock)


@pytest.fixture
def players(accounts: Accounts, cashier: Cashier) -> tuple[str, ...]:
    """alice, bob and carol, each granted 1000 play chips."""
    names = ("alice", "bob", "carol")
    for name in names:
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 1000, f"welcome-{name}")
    return names

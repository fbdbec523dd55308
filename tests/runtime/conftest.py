"""Fixtures for the runtime's tests: a fresh SQLite database, a fake clock, a room factory."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.store import SqlStorage, open_storage

from .support import Clock, Room, tables


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    """A scratch folder in memory where there is one (fsync on tmpfs is free)."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="feltroom-test-", dir=shm))
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
def make_room(settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock) -> Room:
    def make(text: str, **settings: Any) -> RoomRuntime:
        options: dict[str, Any] = {
            "house_bots": 3,
            "bot_think": (1.0, 1.0),
            "between_hands": 1.0,
            "selftest_first": 10**9,
        }
        options.update(settings)
        selftest = options.pop("selftest", None)
        extra: dict[str, Any] = {} if selftest is None else {"selftest": selftest}
        return RoomRuntime(
            settlement,
            accounts,
            cashier,
            tables(text),
            settings=RuntimeSettings(**options),
            clock=clock,
            **extra,
        )

    return make

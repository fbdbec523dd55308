"""Fixtures for the server's tests: a fresh SQLite database and a room on it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from feltroom.store import SqlStorage, open_storage


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

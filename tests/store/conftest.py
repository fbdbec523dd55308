"""The store tests' fixtures: a fresh database on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from feltroom.store import SqlStorage, open_storage


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest) -> Iterator[SqlStorage]:
    fixture = "db_url" if request.param == "sqlite" else "pg_url"
    storage = open_storage(request.getfixturevalue(fixture))
    yield storage
    storage.close()

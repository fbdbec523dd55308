"""The store (layer ``store``): the room's storage on SQLAlchemy 2 — SQLite by default,
PostgreSQL by URL — with Alembic migrations shipped in the package.

``open_storage(url)`` opens (and upgrades) a database; see docs/room.md.
"""

from typing import Any

from feltroom.store.sql import DEFAULT_URL, SqlStorage, SqlTransaction, downgrade, migrate

__all__ = [
    "DEFAULT_URL",
    "SqlStorage",
    "SqlTransaction",
    "downgrade",
    "migrate",
    "open_storage",
]


def open_storage(
    url: str | None = None,
    *,
    upgrade: bool = True,
    busy_timeout_ms: int = 30_000,
    create: bool = True,
    engine_options: dict[str, Any] | None = None,
) -> SqlStorage:
    """Open the database at ``url`` (default: ``sqlite:///data/feltroom.sqlite3``), upgraded to
    the newest schema; with ``create=False`` a missing SQLite file is ``FileNotFoundError``
    rather than a new, empty room."""
    return SqlStorage(
        url,
        upgrade=upgrade,
        busy_timeout_ms=busy_timeout_ms,
        create=create,
        engine_options=engine_options,
    )

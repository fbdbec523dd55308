"""The case-insensitive names migration (``0004_names_nocase``) on a database that holds
accounts whose names collide in letter case: shared by the SQLite and PostgreSQL tests."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, create_engine, text

from feltroom.store import migrate

NAMES_REVISION = "0004_names_nocase"


def _version(engine: Engine) -> str:
    with engine.connect() as connection:
        return str(connection.execute(text("SELECT version_num FROM alembic_version")).scalar())


def check_the_migration_stops_and_lists_colliding_names(url: str) -> None:
    """Before the migration, ``alice``, ``Alice`` and ``ALICE`` (and ``bob``, ``Bob``) could all
    be accounts. The migration refuses to go on, naming each group, and changes nothing; once
    the operator renamed them, it creates the index and names are one in any letter case."""
    engine = create_engine(url)
    try:
        migrate(engine, "0003")
        with engine.begin() as connection:
            for name in ("alice", "Alice", "ALICE", "bob", "Bob", "carol"):
                connection.execute(
                    text(
                        "INSERT INTO users (name, password_hash, created_at, "
                        "protections_reset_at, bot) VALUES (:name, '!x', 0, 0, false)"
                    ),
                    {"name": name},
                )
        with pytest.raises(RuntimeError) as refused:
            migrate(engine)
        message = str(refused.value)
        assert "2 group(s)" in message
        assert "ALICE, Alice, alice; Bob, bob" in message
        assert "carol" not in message
        assert _version(engine) == "0003"  # nothing changed
        with engine.begin() as connection:
            connection.execute(text("UPDATE users SET name = 'alice2' WHERE name = 'Alice'"))
            connection.execute(text("UPDATE users SET name = 'alice3' WHERE name = 'ALICE'"))
            connection.execute(text("DELETE FROM users WHERE name = 'Bob'"))
        migrate(engine, NAMES_REVISION)  # (later revisions follow it)
        assert _version(engine) == NAMES_REVISION
        with pytest.raises(Exception, match=r"(?i)unique"), engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO users (name, password_hash, created_at, "
                    "protections_reset_at, bot) VALUES ('CAROL', '!x', 0, 0, false)"
                )
            )
    finally:
        engine.dispose()

"""The SQLite store: pragmas on every connection, the default location, migrations, and the
database-level uniqueness of transfer ids and idempotency keys."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from feltroom.room import DuplicateKey, TransferKind
from feltroom.room.ledger import new_transfer
from feltroom.room.storage import OperationRow
from feltroom.store import DEFAULT_URL, SqlStorage, downgrade, migrate, open_storage

from .names_migration import check_the_migration_stops_and_lists_colliding_names


def test_every_connection_uses_wal_synchronous_full_and_a_busy_timeout(
    storage: SqlStorage,
) -> None:
    for _ in range(3):  # several pooled connections
        with storage.engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
            assert pragma("PRAGMA busy_timeout").scalar() == 30_000
            assert pragma("PRAGMA foreign_keys").scalar() == 1


def test_the_default_database_is_a_file_in_a_data_folder_created_on_demand(
    fast_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert DEFAULT_URL == "sqlite:///data/feltroom.sqlite3"
    monkeypatch.chdir(fast_tmp)
    store = open_storage()
    store.close()
    assert (fast_tmp / "data" / "feltroom.sqlite3").is_file()


def test_opening_upgrades_to_the_newest_revision_and_reopening_is_harmless(db_url: str) -> None:
    for _ in range(2):
        store = open_storage(db_url)
        with store.engine.connect() as connection:
            version = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert version.scalar() == "0016_home_games"
        store.close()
    engine = create_engine(db_url)
    tables = set(inspect(engine).get_table_names())
    engine.dispose()
    assert tables >= {
        "accounts",
        "transfers",
        "operations",
        "users",
        "sessions",
        "protections",
        "tables",
        "seats",
        "hands",
        "hand_players",
        "table_leases",
        "hand_deals",
        "sign_ins",
        "operator_log",
        "tournaments",
        "tournament_journal",
        "throttle_failures",
        "table_states",
        "player_settings",
    }


def test_migrations_downgrade_and_upgrade_again(db_url: str) -> None:
    store = open_storage(db_url)
    downgrade(store.engine, "base")
    assert "accounts" not in inspect(store.engine).get_table_names()
    migrate(store.engine, "head")
    assert "accounts" in inspect(store.engine).get_table_names()
    store.close()


def test_the_migrations_match_the_models(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from feltroom.store.models import metadata

    store = open_storage(db_url)
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
    store.close()


def test_transfer_ids_are_unique_in_the_database(storage: SqlStorage) -> None:
    with storage.transaction() as tx:
        tx.create_account("external:PLAY", "external", "PLAY", "external")
        tx.create_account("house:PLAY", "house", "PLAY", "house")
    transfer = new_transfer(TransferKind.GRANT, "PLAY", "external:PLAY", "house:PLAY", 5)
    with storage.transaction() as tx:
        tx.post_transfer(transfer)
    with pytest.raises(DuplicateKey), storage.transaction() as tx:
        tx.post_transfer(transfer)
    with storage.transaction(write=False) as tx:
        assert tx.derived_balances() == {"external:PLAY": -5, "house:PLAY": 5}
        assert tx.get_account("house:PLAY") is not None


def test_idempotency_keys_are_unique_per_operation_in_the_database(storage: SqlStorage) -> None:
    with storage.transaction() as tx:
        tx.add_operation(OperationRow("deposit", "k", "{}", "{}"))
        tx.add_operation(OperationRow("withdraw", "k", "{}", "{}"))
    with pytest.raises(DuplicateKey), storage.transaction() as tx:
        tx.add_operation(OperationRow("deposit", "k", "{}", "{}"))


def test_check_constraints_guard_balances_and_amounts(storage: SqlStorage, db_url: str) -> None:
    with storage.transaction() as tx:
        tx.create_account("wallet:a:PLAY", "wallet", "PLAY", "a")
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as raw:
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            raw.execute("UPDATE accounts SET balance = -1 WHERE key = 'wallet:a:PLAY'")
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            raw.execute(
                "INSERT INTO transfers (transfer_id, currency, debit, credit, amount, kind, "
                "reference, created_at) VALUES ('x', 'PLAY', 'a', 'b', 0, 'grant', '', 0)"
            )


def test_the_names_migration_stops_and_lists_accounts_whose_names_collide_in_case(
    db_url: str,
) -> None:
    """Issue 27, point 2: names are unique regardless of letter case."""
    check_the_migration_stops_and_lists_colliding_names(db_url)

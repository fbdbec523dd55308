"""Player protection in SQL on SQLite and PostgreSQL (feltroom.store.protection): protection
and limit rows kept under the name in lower case, the sums of a wallet's flows, the checks on
both databases, and migration 0012 on a database with history."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from feltroom.room import Accounts, Argon2Settings, Cashier
from feltroom.room.errors import ProtectionRefused
from feltroom.room.ledger import player_wallet_key
from feltroom.room.operators import OperatorLog, Operators
from feltroom.room.protection import Protection
from feltroom.room.storage import LimitRow, ProtectionRow
from feltroom.store import SqlStorage, downgrade, migrate, open_storage


def test_rows_round_trip_under_the_lower_case_name(store: SqlStorage) -> None:
    with store.transaction() as tx:
        assert tx.get_protection("Alice") is None
        tx.put_protection(ProtectionRow("Alice", 30, 5.0, None, False))
        tx.put_protection(ProtectionRow("ALICE", 45, 6.0, 7.0, True))
        tx.put_limit(LimitRow("Alice", "USD", "loss", "day", 100))
        tx.put_limit(LimitRow("alice", "USD", "deposit", "week", 50, 80, 9.0))
        tx.put_limit(LimitRow("alice", "USD", "loss", "day", 70))
    with store.transaction(write=False) as tx:
        assert tx.get_protection("alice") == ProtectionRow("alice", 45, 6.0, 7.0, True)
        assert tx.limits_of("ALICE") == [
            LimitRow("alice", "USD", "deposit", "week", 50, 80, 9.0),
            LimitRow("alice", "USD", "loss", "day", 70),
        ]
    with store.transaction() as tx:  # nothing in force and nothing pending: gone
        tx.put_limit(LimitRow("alice", "USD", "loss", "day", None))
        assert [row.kind for row in tx.limits_of("alice")] == ["deposit"]


def test_deposit_limits_and_wallet_flows_on_both_databases(store: SqlStorage) -> None:
    now = [1_000_000.0]
    accounts = Accounts(store, argon2=Argon2Settings.cheap(), clock=lambda: now[0])
    cashier = Cashier(store, clock=lambda: now[0])
    protection = Protection(store, OperatorLog(store, lambda: now[0]), lambda: now[0])
    accounts.sign_up("alice", "correct horse")
    Operators(accounts).verify("alice", "root", "checked", "alice@example.org")
    protection.set_limits(
        "alice", [{"currency": "EUR", "kind": "deposit", "period": "day", "amount": "25.00"}]
    )
    cashier.deposit("alice", "EUR", "20.00", "one")
    cashier.withdraw("alice", "EUR", "5.00", "two")
    with store.transaction(write=False) as tx:
        assert tx.wallet_flows(player_wallet_key(tx, "alice", "EUR"), 0.0) == {
            ("deposit", "in"): 2000,
            ("withdrawal", "out"): 500,
        }
        assert tx.wallet_flows(player_wallet_key(tx, "alice", "EUR"), now[0] + 1) == {}
    with pytest.raises(ProtectionRefused, match=r"at most 5\.00 EUR more"):
        cashier.deposit("alice", "EUR", "5.01", "three")
    assert cashier.balance("alice")["balances"] == {"EUR": "15.00"}
    protection.cool_off("alice", 24)
    with pytest.raises(ProtectionRefused, match="cool-off"):
        cashier.deposit("alice", "EUR", "1.00", "four")
    assert [e["action"] for e in OperatorLog(store).entries()] == ["verify", "limits", "cool-off"]


def test_migration_0012_keeps_a_database_with_history(db_url: str) -> None:
    """A room at 0010 with an account upgrades: the account is unverified, nobody has limits or
    breaks, nothing is lost; and back down and up again."""
    storage = open_storage(db_url)
    downgrade(storage.engine, "0010_operator_log")
    engine = create_engine(db_url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (name, password_hash, created_at, protections_reset_at, bot) "
                "VALUES ('alice', 'x', 1.0, 0.0, false)"
            )
        )
    engine.dispose()
    migrate(storage.engine, "head")
    Cashier(storage).deposit("alice", "USD", "10.00", "after-upgrade")
    with storage.transaction(write=False) as tx:
        user = tx.get_user("alice")
        assert user is not None
        assert user.verified is False
        assert tx.get_protection("alice") is None
        assert tx.limits_of("alice") == []
    downgrade(storage.engine, "0010_operator_log")
    migrate(storage.engine, "head")
    assert Cashier(storage).balance("alice")["balances"] == {"USD": "10.00"}
    storage.close()

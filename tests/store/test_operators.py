"""Operators and the operator log on SQLite and PostgreSQL (feltroom.room.operators): every
account action with its entry in one transaction, every refusal changing nothing, a suspended
account refused at sign-in, table definitions and their status, and migration 0010 on a
database with history."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from feltroom.room import Accounts, Argon2Settings, AuthenticationFailed, Cashier, RoomError
from feltroom.room.errors import AccountSuspended, NotAnOperator, UnknownAccount
from feltroom.room.operators import OperatorLog, Operators
from feltroom.store import SqlStorage, downgrade, migrate, open_storage


def _flags(storage: SqlStorage, name: str) -> tuple[bool, bool, str]:
    with storage.transaction(write=False) as tx:
        user = tx.get_user(name)
    assert user is not None
    return user.operator, user.suspended, user.operator_addresses


def test_account_actions_are_on_record_and_refusals_change_nothing(store: SqlStorage) -> None:
    accounts = Accounts(store, argon2=Argon2Settings.cheap())
    operators = Operators(accounts)
    for name in ("carol", "mallory"):
        accounts.sign_up(name, "correct horse")
    accounts.ensure_bot("bot.t.1")
    session = accounts.sign_in("mallory", "correct horse")

    granted = operators.grant("carol", " 127.0.0.1, 10.0.0.0/8 ", "root", "floor manager")
    assert granted["addresses"] == "127.0.0.1/32,10.0.0.0/8"
    assert operators.check_operator("carol", "10.1.2.3").name == "carol"
    with pytest.raises(NotAnOperator, match=r"only from 127.0.0.1/32,10.0.0.0/8, not from 192"):
        operators.check_operator("carol", "192.0.2.1")
    with pytest.raises(NotAnOperator, match="'mallory' is not an operator"):
        operators.check_operator("mallory")

    log = OperatorLog(store)
    before = log.entries()
    refusals = [
        (lambda: operators.grant("zed", "", "root", "x"), UnknownAccount, "no player account"),
        (lambda: operators.grant("bot.t.1", "", "root", "x"), RoomError, "house bot"),
        (lambda: operators.grant("mallory", "not-an-ip", "root", "x"), RoomError, "not an IP"),
        (lambda: operators.suspend("mallory", "carol", " "), RoomError, "give a reason"),
        (lambda: operators.suspend("mallory", "carol", "x" * 501), RoomError, "at most 500"),
        (lambda: operators.suspend("carol", "carol", "x"), RoomError, "their own account"),
        (lambda: operators.reinstate("mallory", "carol", "x"), RoomError, "is not suspended"),
        (lambda: operators.revoke("mallory", "carol", "x"), RoomError, "is not an operator"),
        (lambda: operators.reset_password("zed", "carol", "x"), UnknownAccount, "'zed'"),
    ]
    for call, kind, message in refusals:
        with pytest.raises(kind, match=message):
            call()
    assert log.entries() == before
    assert _flags(store, "mallory") == (False, False, "")
    assert accounts.authenticate(session.token) == "mallory"

    result = operators.suspend("mallory", "carol", "chargeback")
    assert result["sessions_ended"] == 1
    assert _flags(store, "mallory") == (False, True, "")
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(session.token)
    with pytest.raises(AccountSuspended, match="suspended"):
        accounts.sign_in("mallory", "correct horse")
    with pytest.raises(AuthenticationFailed, match="wrong name or password") as wrong:
        accounts.sign_in("mallory", "wrong horse")
    assert not isinstance(wrong.value, AccountSuspended)
    with pytest.raises(RoomError, match="already suspended"):
        operators.suspend("mallory", "carol", "again")
    operators.reinstate("mallory", "carol", "paid")
    reset = operators.reset_password("mallory", "carol", "forgot it")
    with pytest.raises(AuthenticationFailed):
        accounts.sign_in("mallory", "correct horse")
    assert accounts.sign_in("mallory", reset["password"]).user == "mallory"
    operators.revoke("carol", "root", "moved on")
    assert _flags(store, "carol") == (False, False, "")

    entries = log.entries()
    assert [(e["operator"], e["action"], e["target"]) for e in entries] == [
        ("root", "grant-operator", "carol"),
        ("carol", "suspend", "mallory"),
        ("carol", "reinstate", "mallory"),
        ("carol", "reset-password", "mallory"),
        ("root", "revoke-operator", "carol"),
    ]
    assert entries[1]["reason"] == "chargeback"
    assert entries[1]["details"] == {"sessions_ended": 1}
    assert [e["action"] for e in log.entries(limit=2)] == ["reset-password", "revoke-operator"]
    assert log.entries(since=entries[-1]["at"] + 1) == []
    with pytest.raises(RoomError, match="limit"):
        log.entries(limit=0)
    with pytest.raises(RoomError, match="unknown action 'explode'"):
        log.record("carol", "explode", "room", "x")


def test_table_definitions_keep_their_status_and_retired_ones_are_not_listed(
    store: SqlStorage,
) -> None:
    with store.transaction() as tx:
        assert tx.add_table_definition("oak", '{"id": "oak"}')
        assert not tx.add_table_definition("oak", '{"id": "oak", "max_seats": 9}')
        assert tx.add_table_definition("elm", '{"id": "elm"}')
        assert tx.set_table_status("oak", "closed")
        assert not tx.set_table_status("nowhere", "closed")
    with store.transaction() as tx:
        assert tx.table_definitions() == {"elm": '{"id": "elm"}', "oak": '{"id": "oak"}'}
        assert tx.table_statuses() == {"elm": "open", "oak": "closed"}
        tx.set_table_status("elm", "retired")
    with store.transaction(write=False) as tx:
        assert list(tx.table_definitions()) == ["oak"]


def test_migration_0010_keeps_a_database_with_history(db_url: str) -> None:
    """A room at 0006 with accounts, money, sessions and table definitions upgrades: every
    account is a player (not an operator, not suspended), every table open, nothing lost."""
    storage = open_storage(db_url)
    downgrade(storage.engine, "0006_table_leases")
    engine = create_engine(db_url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (name, password_hash, created_at, protections_reset_at, bot) "
                "VALUES ('alice', 'x', 1.0, 0.0, false)"
            )
        )
        connection.execute(
            text("INSERT INTO table_definitions (table_id, definition) VALUES ('oak', '{}')")
        )
    engine.dispose()
    migrate(storage.engine, "head")
    Cashier(storage).grant("alice", 100, "after-upgrade")
    assert _flags(storage, "alice") == (False, False, "")
    with storage.transaction(write=False) as tx:
        assert tx.table_statuses() == {"oak": "open"}
        assert tx.operator_entries(0.0, 10) == []
    downgrade(storage.engine, "0006_table_leases")
    migrate(storage.engine, "head")
    assert Cashier(storage).balance("alice")["balances"] == {"PLAY": "100"}
    storage.close()


def test_the_log_takes_the_longest_names_and_refuses_a_bad_operator_name(
    store: SqlStorage,
) -> None:
    log = OperatorLog(store)
    table, player = "t" * 32, "p" * 32
    entry = log.record("o" * 32, "kick", f"{table}/{player}", "r" * 500)
    assert log.entries()[0]["id"] == entry
    assert log.entries()[0]["target"] == f"{table}/{player}"
    for operator in ("", "  ", "o" * 33):
        with pytest.raises(RoomError, match="an operator's name has 1 to 32 characters"):
            log.record(operator, "kick", "t/p", "r")
    assert len(log.entries()) == 1

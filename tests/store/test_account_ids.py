"""Stable account ids in SQL on SQLite and PostgreSQL: migration 0013 on a database with history
(accounts, grants, a played hand, a tournament entry, protection rows) keeps everything, keys the
books by id and keeps the names in the hand records; the downgrade keys them by name again; ids
are never issued twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from books import build_history
from feltroom.room import Accounts, Argon2Settings, Cashier, HandHistories, audit
from feltroom.room.operators import Operators
from feltroom.store import SqlStorage, downgrade, migrate, open_storage


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest) -> str:
    fixture = "db_url" if request.param == "sqlite" else "pg_url"
    found: str = request.getfixturevalue(fixture)
    return found


@pytest.fixture
def raw(url: str) -> Iterator[Engine]:
    engine = create_engine(url)
    yield engine
    engine.dispose()


def _keys(engine: Engine) -> set[str]:
    with engine.connect() as connection:
        query = text("SELECT key FROM accounts WHERE kind IN ('wallet', 'pending')")
        return {str(row[0]) for row in connection.execute(query)}


def _state(storage: SqlStorage) -> dict[str, Any]:
    cashier = Cashier(storage)
    with storage.transaction(write=False) as tx:
        seats = {row.player: row.stack for row in tx.seats_at("t1")}
        journal = [(row.kind, row.payload) for row in tx.journal("sng-1")]
        protection = tx.get_protection("carol")
    return {
        "balances": {n: cashier.balance(n)["balances"] for n in ("alice", "bob", "carol")},
        "seats": seats,
        "journal": journal,
        "protection": protection,
    }


def test_migration_0013_keeps_a_database_with_history(url: str, raw: Engine) -> None:
    storage = open_storage(url)
    hand = build_history(storage)["hand"]
    before = _state(storage)
    viewed = HandHistories(storage).for_player(hand, "alice")
    # Down to 0012: the books keyed by name, as a room of that version kept them.
    downgrade(storage.engine, "0012_player_protection")
    assert _keys(raw) == {"wallet:alice:PLAY", "wallet:bob:PLAY", "wallet:carol:PLAY"}
    with raw.begin() as connection:  # a transfer of the old room, to an account of the books
        connection.execute(
            text(
                "INSERT INTO transfers (transfer_id, currency, debit, credit, amount, kind, "
                "reference, created_at) VALUES ('old-grant', 'PLAY', 'external:PLAY', "
                "'wallet:bob:PLAY', 5, 'grant', 'grant:old', 1.0)"
            )
        )
        for key, change in (("external:PLAY", -5), ("wallet:bob:PLAY", 5)):
            connection.execute(
                text("UPDATE accounts SET balance = balance + :c WHERE key = :k"),
                {"c": change, "k": key},
            )
    migrate(storage.engine, "head")
    with raw.connect() as connection:
        ids = dict(connection.execute(text("SELECT name, account_id FROM users")).all())
        played = dict(connection.execute(text("SELECT player, account_id FROM hand_players")).all())
    assert sorted(ids.values()) == [1, 2, 3]  # in the order the accounts were made
    assert played == {"alice": ids["alice"], "bob": ids["bob"]}
    assert _keys(raw) == {f"wallet:#{ids[n]}:PLAY" for n in ("alice", "bob", "carol")}
    after = _state(storage)
    assert after["balances"] == {**before["balances"], "bob": {"PLAY": "605"}}
    assert {k: after[k] for k in ("seats", "journal", "protection")} == {
        k: before[k] for k in ("seats", "journal", "protection")
    }
    assert HandHistories(storage).for_player(hand, "alice") == viewed
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    # The next account gets a fresh id, above every id issued.
    Cashier(storage).grant("alice", 1, "after-upgrade")
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    accounts.sign_up("dave", "correct horse")
    with storage.transaction(write=False) as tx:
        dave = tx.get_user("dave")
    assert dave is not None
    assert dave.account_id == 4
    storage.close()


def test_ids_are_never_issued_twice_and_the_downgrade_stops_on_a_reused_name(
    url: str, raw: Engine
) -> None:
    storage = open_storage(url)
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    operators = Operators(accounts)
    cashier = Cashier(storage)
    accounts.sign_up("zed", "correct horse")
    accounts.sign_up("yan", "correct horse")
    cashier.deposit("yan", "USD", "1.00", "d")
    cashier.withdraw("yan", "USD", "1.00", "w")
    operators.remove("yan", "op", "closed")
    accounts.sign_up("yan", "correct horse")
    cashier.deposit("yan", "USD", "2.00", "d2")
    with storage.transaction(write=False) as tx:
        again = tx.get_user("yan")
    assert again is not None
    assert again.account_id == 3
    assert cashier.balance("yan")["balances"] == {"USD": "2.00"}
    with pytest.raises(RuntimeError, match="more than one account under the name"):
        downgrade(storage.engine, "0012_player_protection")
    assert _keys(raw) == {"wallet:#2:USD", "wallet:#3:USD"}  # nothing changed
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    storage.close()

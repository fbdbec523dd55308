"""The same store on PostgreSQL.

The server (the ``pg_url`` fixture of ``tests/conftest.py``): FELTROOM_TEST_POSTGRES_URL when set
(one on which the tests may create databases, e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``); otherwise a throwaway server started
for the session from Debian's PostgreSQL, installed with apt-get when missing. Skipped only
outside CI when no server can be had."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from decimal import Decimal

import pytest

from feltroom.room import (
    Accounts,
    Argon2Settings,
    Cashier,
    DuplicateKey,
    HandHistories,
    HandOutcome,
    InsufficientFunds,
    PlayerOutcome,
    Settlement,
    TaxRule,
    audit,
)
from feltroom.room.ledger import (
    AccountKind,
    TransferKind,
    ensure_system_account,
    ensure_wallet,
    new_transfer,
)
from feltroom.room.storage import HomeGameRow
from feltroom.store import SqlStorage, downgrade, open_storage

from .names_migration import check_the_migration_stops_and_lists_colliding_names


@pytest.fixture
def pg(pg_url: str) -> Iterator[SqlStorage]:
    store = open_storage(pg_url)
    yield store
    store.close()


def test_postgres_migrations_upgrade_downgrade_and_match_the_models(pg_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from feltroom.store.models import metadata

    store = open_storage(pg_url)
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
    downgrade(store.engine, "base")
    store.close()
    open_storage(pg_url).close()


def test_postgres_the_whole_flow_keeps_the_books(pg: SqlStorage) -> None:
    accounts = Accounts(pg, argon2=Argon2Settings.cheap())
    cashier, settlement = Cashier(pg), Settlement(pg)
    for name in ("alice", "bob"):
        accounts.sign_up(name, "correct horse")
        cashier.deposit(name, "USD", "100", f"d-{name}")
    session = accounts.sign_in("alice", "correct horse")
    assert accounts.authenticate(session.token) == "alice"
    assert cashier.deposit("alice", "USD", "100", "d-alice")["repeated"]
    settlement.open_table("t1", "USD")
    assert settlement.default_buy_in("t1", "alice", 5000) == 5000
    settlement.buy_in("t1", "alice", 1, 5000)
    settlement.buy_in("t1", "bob", 2, 4000)
    hand = settlement.begin_hand("t1")
    result = settlement.settle_hand(
        HandOutcome(
            hand,
            "t1",
            (
                PlayerOutcome("alice", 1, 5000, 1000, 1950, "As Ks", showdown=True, shown=True),
                PlayerOutcome("bob", 2, 4000, 1000, 0, "2c 2d", showdown=True),
            ),
            rake=50,
            tax=TaxRule(500, Decimal(20)),
        ),
        begin_next=True,
    )
    assert dict(result.tax) == {"alice": 90, "bob": 0}
    assert result.next_hand_id is not None
    assert result.next_hand_id > hand
    assert settlement.void_unsettled() == [result.next_hand_id]
    assert HandHistories(pg).for_observer(hand)["players"][1]["hole"] is None
    assert settlement.leave("t1", "alice") == 5860
    assert cashier.withdraw("alice", "USD", "108.60", "w")["balance"] == "0.00"
    with pytest.raises(InsufficientFunds):
        cashier.withdraw("bob", "USD", "61", "w2")
    report = audit(pg, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["USD"]["balances"]["house"] == "0.50"
    assert report["currencies"]["USD"]["balances"]["tax"] == "0.90"


def test_postgres_races_keep_keys_allowances_and_balances(pg_url: str) -> None:
    stores = [open_storage(pg_url), open_storage(pg_url)]
    accounts = [Accounts(s, argon2=Argon2Settings.cheap()) for s in stores]
    cashiers = [Cashier(s) for s in stores]
    accounts[0].sign_up("alice", "correct horse")
    results: list[object] = []
    barrier = threading.Barrier(8)

    def work(index: int) -> None:
        barrier.wait()
        results.append(cashiers[index % 2].deposit("alice", "EUR", "5", "same-key")["transfer_id"])
        results.append(accounts[index % 2].consume_protection("alice", f"t{index}"))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({r for r in results if isinstance(r, str)}) == 1
    assert sum(1 for r in results if r is True) == 2
    assert cashiers[0].balance("alice")["balances"] == {"EUR": "5.00"}
    with pytest.raises(DuplicateKey), stores[0].transaction() as tx:
        tx.add_user(tx.get_user("alice"))  # type: ignore[arg-type]
    assert audit(stores[1], shuffles=0)["pass"]
    for store in stores:
        store.close()


def test_postgres_the_names_migration_stops_and_lists_accounts_whose_names_collide(
    pg_url: str,
) -> None:
    """Issue 27, point 2: names are unique regardless of letter case, on PostgreSQL too."""
    check_the_migration_stops_and_lists_colliding_names(pg_url)


def test_postgres_home_games_are_stored_and_their_chips_balance(pg: SqlStorage) -> None:
    """A home game's row is stored and replaced (issue 45); its own chips, issued and bought
    in at its table, are read back for the ledger and balance in the audit (R-HOME-1, R-HOME-5)."""
    accounts = Accounts(pg, argon2=Argon2Settings.cheap())
    accounts.sign_up("alice", "correct horse")
    settlement = Settlement(pg)
    settlement.open_table("home-g-12", "g-12")
    with pg.transaction() as tx:
        tx.put_home_game(HomeGameRow("g-12", "alice", "s" * 24, "open", 1.0, None, "{}"))
        tx.put_home_game(HomeGameRow("g-12", "alice", "t" * 24, "ended", 1.0, 2.0, '{"a": 1}'))
        external = ensure_system_account(tx, AccountKind.EXTERNAL, "g-12")
        wallet = ensure_wallet(tx, "alice", "g-12")
        issue = new_transfer(TransferKind.ISSUE, "g-12", external.key, wallet.key, 150, "ref")
        tx.post_transfer(issue)
    settlement.buy_in("home-g-12", "alice", 1, 150)
    with pg.transaction(write=False) as tx:
        (row,) = tx.home_games()
        assert (row.secret, row.status, row.ended_at, row.state) == (
            "t" * 24,
            "ended",
            2.0,
            '{"a": 1}',
        )
        assert tx.home_game_count() == 1
        assert tx.issued_chips("g-12", external.key) == [(external.key, wallet.key, "ref", 150)]
        escrow = "escrow:home-g-12"
        assert tx.account_flows("g-12", [escrow]) == [
            (wallet.key, escrow, "table:home-g-12", 150, "buy_in")
        ]
        assert tx.raked_contributions("home-g-12") == []  # (no hand raked there)
    report = audit(pg, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["g-12"]["sum"] == "0"

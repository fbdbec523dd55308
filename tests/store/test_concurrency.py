"""Two connections (two engines, as two processes would have) on one SQLite file."""

from __future__ import annotations

import threading
from collections.abc import Callable

from feltroom.room import Accounts, Argon2Settings, Cashier, InsufficientFunds, audit
from feltroom.store import open_storage


def _race(workers: int, work: Callable[[int], None]) -> None:
    barrier = threading.Barrier(workers)

    def run(index: int) -> None:
        barrier.wait()
        work(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_two_connections_deposit_at_once_and_every_deposit_is_booked(db_url: str) -> None:
    stores = [open_storage(db_url), open_storage(db_url)]
    Accounts(stores[0], argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    cashiers = [Cashier(store) for store in stores]

    def deposit(index: int) -> None:
        for n in range(10):
            cashiers[index % 2].deposit("alice", "USD", "1.01", f"w{index}-{n}")

    _race(4, deposit)
    assert cashiers[1].balance("alice")["balances"] == {"USD": "40.40"}
    assert audit(stores[0], shuffles=0)["pass"]
    for store in stores:
        store.close()


def test_the_same_key_from_two_connections_books_once(db_url: str) -> None:
    stores = [open_storage(db_url), open_storage(db_url)]
    Accounts(stores[0], argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    cashiers = [Cashier(store) for store in stores]
    receipts: list[dict[str, object]] = []

    _race(6, lambda i: receipts.append(cashiers[i % 2].deposit("alice", "EUR", "5", "once")))
    assert len({r["transfer_id"] for r in receipts}) == 1
    assert sum(1 for r in receipts if not r["repeated"]) == 1
    assert cashiers[0].balance("alice")["balances"] == {"EUR": "5.00"}
    for store in stores:
        store.close()


def test_racing_withdrawals_never_overdraw(db_url: str) -> None:
    stores = [open_storage(db_url), open_storage(db_url)]
    Accounts(stores[0], argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    cashiers = [Cashier(store) for store in stores]
    cashiers[0].deposit("alice", "USD", "10", "in")
    outcomes: list[str] = []

    def withdraw(index: int) -> None:
        try:
            cashiers[index % 2].withdraw("alice", "USD", "3", f"out-{index}")
            outcomes.append("paid")
        except InsufficientFunds:
            outcomes.append("refused")

    _race(8, withdraw)
    assert outcomes.count("paid") == 3
    assert cashiers[1].balance("alice")["balances"] == {"USD": "1.00"}
    assert audit(stores[1], shuffles=0)["pass"]
    for store in stores:
        store.close()

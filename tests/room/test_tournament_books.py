"""A tournament's money in the books (R-TOURN-2, R-TOURN-11, R-TOURN-13): the director's money
events booked in the double-entry ledger, audited."""

from __future__ import annotations

import random

import pytest

from books import wallet_balance
from feltroom.room import Cashier, InsufficientFunds, TransferKind, audit
from feltroom.room.ledger import AccountKind, ensure_system_account, new_transfer
from feltroom.room.tournaments import TournamentBooks, prizepool_key
from feltroom.store import SqlStorage
from feltroom.tournament import Director, Output, PlaceFinal, TournamentSettings


def balance(storage: SqlStorage, key: str) -> int:
    with storage.transaction(write=False) as tx:
        row = tx.get_account(key)
        return row.balance if row is not None else 0


def bust_all_but_one(d: Director) -> list[Output]:
    """Hands at table 1 in which the lowest seat loses everything to the next one."""
    out: list[Output] = []
    while not d.finished:
        model = d.tables[1]
        seats = sorted(model.seats)
        d.hand_started(1, seats[0], seats[0], 1.0)
        before = {s: d.entries[e - 1].stack for s, e in model.seats.items()}
        after = dict(before)
        after[seats[1]] += after[seats[0]]
        after[seats[0]] = 0
        out += d.hand_finished(1, before, after, 2.0)
    return out


def test_R_TOURN_2_R_TOURN_11_a_sit_and_go_in_the_books(
    storage: SqlStorage, players: tuple[str, ...]
) -> None:
    """R-TOURN-2: buy-ins into the prize pool, fees to the house; R-TOURN-11: the prizes into
    the winners' wallets when their places are final; the pool ends empty; the audit passes."""
    settings = TournamentSettings(
        format="sng", max_entries=3, seats_per_table=3, buy_in=100, fee=10
    )
    books = TournamentBooks(storage, "sng-1", "PLAY")
    d = Director(settings, rng=random.Random(1))
    for name in players:
        books.verify_entry(name, 100, 10)
        books.book(d.register(name, 0.0))
    assert books.pool_left() == 300
    assert balance(storage, "house:PLAY") == 30
    assert all(wallet_balance(storage, name, "PLAY") == 890 for name in players)
    out = bust_all_but_one(d)
    transfers = books.book(out)
    assert {t.kind for t in transfers} == {TransferKind.PRIZE}
    places = {p.account: p.prize for p in out if isinstance(p, PlaceFinal)}
    assert sorted(places.values()) == [0, 0, 300]
    for name in players:
        assert wallet_balance(storage, name, "PLAY") == 890 + places[name]
    assert books.pool_left() == 0
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    with storage.transaction(write=False) as tx:
        pool = tx.get_account(prizepool_key("sng-1"))
    assert pool is not None
    assert pool.kind == AccountKind.PRIZEPOOL.value


def test_R_TOURN_2_an_entry_without_the_money_is_refused(
    storage: SqlStorage, players: tuple[str, ...]
) -> None:
    books = TournamentBooks(storage, "big", "PLAY")
    with pytest.raises(InsufficientFunds, match=r"alice holds 1000 PLAY; the entry costs"):
        books.verify_entry("alice", 1000, 100)


def test_R_TOURN_2_unregistering_refunds_buy_in_and_fee(
    storage: SqlStorage, players: tuple[str, ...]
) -> None:
    settings = TournamentSettings(format="mtt", max_entries=None, buy_in=100, fee=10, breaks="none")
    books = TournamentBooks(storage, "mtt-1", "PLAY")
    d = Director(settings, rng=random.Random(1), start_at=100.0)
    books.book(d.register("alice", 0.0))
    books.book(d.unregister("alice", 1.0))
    assert wallet_balance(storage, "alice", "PLAY") == 1000
    assert books.pool_left() == 0
    assert balance(storage, "house:PLAY") == 0
    assert audit(storage, shuffles=0)["problems"] == []


def test_R_TOURN_2_R_TOURN_13_overlay_and_cancellation(
    storage: SqlStorage, players: tuple[str, ...], cashier: Cashier
) -> None:
    """R-TOURN-2: the house pays a guarantee's overlay into the pool; R-TOURN-13: a cancellation
    pays the whole pool left out to the players still in."""
    with storage.transaction() as tx:  # the house's earlier income (rake, in a real room)
        house = ensure_system_account(tx, AccountKind.HOUSE, "PLAY").key
        external = ensure_system_account(tx, AccountKind.EXTERNAL, "PLAY").key
        tx.post_transfer(new_transfer(TransferKind.RAKE, "PLAY", external, house, 500))
    settings = TournamentSettings(
        format="mtt", max_entries=None, buy_in=100, fee=10, guarantee=600, breaks="none"
    )
    books = TournamentBooks(storage, "guaranteed", "PLAY")
    d = Director(settings, rng=random.Random(2), start_at=0.0)
    for name in players:
        books.book(d.register(name, 0.0))
    books.book(d.tick(0.0))
    assert books.pool_left() == 600  # 300 in buy-ins, 300 overlay
    assert balance(storage, "house:PLAY") == 500 + 30 - 300
    books.book(d.cancel(5.0))
    assert books.pool_left() == 0
    total = sum(wallet_balance(storage, name, "PLAY") for name in players)
    assert total == 3 * 890 + 600
    assert audit(storage, shuffles=0)["problems"] == []

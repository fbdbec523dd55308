"""``Settlement.reset_stack``: a reset_stacks table's reset booked between wallet and escrow,
refused (nothing moves) when the books disagree or the wallet cannot pay."""

from __future__ import annotations

import pytest

from feltroom.room import Cashier, InsufficientFunds, Settlement, StackMismatch, audit
from feltroom.room.storage import SeatRow
from feltroom.store import SqlStorage


def _play(cashier: Cashier, name: str) -> str:
    return str(cashier.balance(name)["balances"].get("PLAY", "0"))


def test_reset_moves_the_difference_both_ways_and_the_audit_passes(
    settlement: Settlement, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    settlement.open_table("t1", "PLAY")
    settlement.buy_in("t1", "alice", 1, 500)
    settlement.buy_in("t1", "bob", 2, 500)
    # a hand moved 200 from bob to alice in the books (as a settlement would): reset both
    with storage.transaction() as tx:
        tx.put_seat(SeatRow("t1", "alice", 1, 700))
        tx.put_seat(SeatRow("t1", "bob", 2, 300))
    assert settlement.reset_stack("t1", "alice", 700, 500) == 500
    assert settlement.reset_stack("t1", "bob", 300, 500) == 500
    assert _play(cashier, "alice") == "700"  # 500 left + 200 won
    assert _play(cashier, "bob") == "300"  # 500 left - 200 to refill
    assert {n: r.stack for n, r in settlement.seats("t1").items()} == {"alice": 500, "bob": 500}
    report = audit(storage, shuffles=0)
    assert report["problems"] == []


def test_a_reset_the_books_or_the_wallet_cannot_take_is_refused_and_moves_nothing(
    settlement: Settlement, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    settlement.open_table("t1", "PLAY")
    settlement.buy_in("t1", "alice", 1, 1000)
    with pytest.raises(StackMismatch, match="the books say 1000"):
        settlement.reset_stack("t1", "alice", 900, 1000)
    with storage.transaction() as tx:
        tx.put_seat(SeatRow("t1", "alice", 1, 0))
    with pytest.raises(InsufficientFunds, match="cannot be brought back to 1000"):
        settlement.reset_stack("t1", "alice", 0, 1000)
    assert _play(cashier, "alice") == "0"
    assert settlement.seats("t1")["alice"].stack == 0

"""Property: random sequences of deposits, buy-ins, settlements, voids, leaves and withdrawals
keep the books balanced, and every wallet and stack matches a simple model."""

from __future__ import annotations

import os
import tempfile
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from books import wallet_balance
from feltroom.room import (
    Accounts,
    Argon2Settings,
    Cashier,
    HandOutcome,
    InsufficientFunds,
    PlayerOutcome,
    Settlement,
    TaxRule,
    audit,
)
from feltroom.store import open_storage

PLAYERS = ("p0", "p1", "p2", "p3")
TABLES = {"play": "PLAY", "cash": "USD"}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.data())
def test_random_sequences_keep_the_books_balanced(data: st.DataObject) -> None:
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=base) as folder:
        storage = open_storage(f"sqlite:///{Path(folder) / 'books.sqlite3'}")
        try:
            _run(storage, data)
        finally:
            storage.close()


def _run(storage: object, data: st.DataObject) -> None:
    from feltroom.store import SqlStorage

    assert isinstance(storage, SqlStorage)
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    cashier, settlement = Cashier(storage), Settlement(storage)
    wallets = {(p, code): 0 for p in PLAYERS for code in ("PLAY", "USD")}
    stacks: dict[str, dict[str, int]] = {table: {} for table in TABLES}
    taken = {"house": 0, "tax": 0}
    for p in PLAYERS:
        accounts.sign_up(p, "correct horse")
    for table, code in TABLES.items():
        settlement.open_table(table, code)
    steps = data.draw(st.integers(5, 30), label="steps")
    for step in range(steps):
        kind = data.draw(
            st.sampled_from(["deposit", "withdraw", "buy_in", "hand", "void", "leave"]),
            label="kind",
        )
        player = data.draw(st.sampled_from(PLAYERS), label="player")
        table = data.draw(st.sampled_from(sorted(TABLES)), label="table")
        code = TABLES[table]
        if kind == "deposit":
            amount = data.draw(st.integers(1, 5000), label="amount")
            cashier.deposit(
                player, code, str(Decimal(amount).scaleb(-2 if code == "USD" else 0)), f"d{step}"
            )
            wallets[(player, code)] += amount
        elif kind == "withdraw":
            amount = data.draw(st.integers(1, 5000), label="amount")
            major = str(Decimal(amount).scaleb(-2 if code == "USD" else 0))
            if amount <= wallets[(player, code)]:
                cashier.withdraw(player, code, major, f"w{step}")
                wallets[(player, code)] -= amount
            else:
                try:
                    cashier.withdraw(player, code, major, f"w{step}")
                    raise AssertionError("an overdraft was accepted")
                except InsufficientFunds:
                    pass
        elif kind == "buy_in":
            default = settlement.default_buy_in(table, player, maximum=3000)
            current = stacks[table].get(player, 0)
            assert default == max(0, min(wallets[(player, code)], 3000 - current))
            if default:
                seat = 1 + PLAYERS.index(player)
                settlement.buy_in(table, player, seat, default)
                wallets[(player, code)] -= default
                stacks[table][player] = current + default
        elif kind == "leave" and player in stacks[table]:
            assert settlement.leave(table, player) == stacks[table][player]
            wallets[(player, code)] += stacks[table].pop(player)
        elif kind in ("hand", "void") and len(stacks[table]) >= 2:
            hand_id = settlement.begin_hand(table)
            if kind == "void":
                settlement.void_hand(hand_id, "test")
                continue
            seated = sorted(stacks[table])
            contributions = {
                p: data.draw(st.integers(0, stacks[table][p]), label=f"bet {p}") for p in seated
            }
            pot = sum(contributions.values())
            rake = data.draw(st.integers(0, pot // 10), label="rake")
            winners = data.draw(
                st.lists(st.sampled_from(seated), min_size=1, max_size=2, unique=True),
                label="winners",
            )
            share, odd = divmod(pot - rake, len(winners))
            payouts = dict.fromkeys(seated, 0)
            for index, winner in enumerate(winners):
                payouts[winner] = share + (1 if index < odd else 0)
            tax = data.draw(
                st.none()
                | st.builds(
                    TaxRule, st.integers(0, 50), st.sampled_from([Decimal(10), Decimal("12.5")])
                ),
                label="tax",
            )
            outcome = HandOutcome(
                hand_id,
                table,
                tuple(
                    PlayerOutcome(
                        p,
                        1 + PLAYERS.index(p),
                        stacks[table][p],
                        contributions[p],
                        payouts[p],
                        "As Kd",
                        showdown=p in winners,
                    )
                    for p in seated
                ),
                rake=rake,
                tax=tax,
            )
            result = settlement.settle_hand(outcome)
            for p in seated:
                withheld = tax.withheld(payouts[p] - contributions[p]) if tax else 0
                assert result.tax[p] == withheld
                stacks[table][p] += payouts[p] - contributions[p] - withheld
                taken["tax"] += withheld
            taken["house"] += rake
        report = audit(storage, shuffles=0)
        assert report["pass"], report["problems"]
    for (player, code), units in wallets.items():
        assert wallet_balance(storage, player, code) == units
    for table in TABLES:
        seats = settlement.seats(table)
        assert {p: row.stack for p, row in seats.items()} == stacks[table]

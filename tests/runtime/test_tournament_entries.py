"""Entries booked in one transaction (issue 39, item 9): the check of an entry (balance, loss
limits, cool-off, exclusion, verification) and its booking are one transaction, so entries sent
at once are checked one after the other; a refused entry changes nothing, and no refusal of one
player's entry voids a hand in progress at a running tournament's table (R-TOURN-2, R-TOURN-3).
Each request here is the runtime's ``register_tournament``, which the HTTP API answers a
``RoomError`` of with 409 ``refused`` (tests/server/test_rest_tournaments.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from books import wallet_balance
from feltroom.room import Accounts, Cashier, InsufficientFunds
from feltroom.room.audit import audit
from feltroom.room.errors import ProtectionRefused, RoomError
from feltroom.room.operators import OperatorLog, Operators
from feltroom.room.protection import Protection
from feltroom.room.runtime import RoomRuntime
from feltroom.store import SqlStorage

from .support import HEADS_UP, Clock, Room, run_for

DAY = 86_400.0


def _sng(name: str, currency: str = "PLAY", buy_in: int = 500, fee: int = 50) -> str:
    return f"""
[[tournament]]
id = "{name}"
currency = "{currency}"
format = "sng"
seats_per_table = 4
max_entries = 4
buy_in = {buy_in}
fee = {fee}
recurring = false
"""


MTT = """
[[tournament]]
id = "mt"
format = "mtt"
seats_per_table = 4
max_entries = 40
starting_stack = 3000
buy_in = 500
fee = 50
level_minutes = 10
late_registration_levels = 3
breaks = "none"
start = "2027-01-15T08:10"
"""
MTT_ID = "mt-20270115T0810"
MTT_START = 1_800_000_600.0  # the runtime tests' clock starts at 2027-01-15T08:00 UTC


async def _at_once(room: RoomRuntime, account: str, tournament_ids: list[str]) -> list[Any]:
    """``account`` registers for every tournament at once (each request waiting on the books
    while the others are sent): the results, or the errors."""
    return await asyncio.gather(
        *(room.register_tournament(t, account) for t in tournament_ids), return_exceptions=True
    )


def _sent_at_once(
    room: RoomRuntime, account: str, tournament_ids: list[str]
) -> tuple[list[dict[str, Any]], list[BaseException]]:
    """``_at_once`` in a started room: (the entries booked, the refusals)."""

    async def scenario() -> list[Any]:
        await room.start()
        try:
            return await _at_once(room, account, tournament_ids)
        finally:
            await room.stop()

    results = asyncio.run(scenario())
    booked = [r for r in results if isinstance(r, dict)]
    return booked, [r for r in results if isinstance(r, BaseException)]


def _journal(storage: SqlStorage, tournament_id: str) -> list[tuple[str, dict[str, Any]]]:
    with storage.transaction(write=False) as tx:
        return [(row.kind, json.loads(row.payload)) for row in tx.journal(tournament_id)]


def _audit_passes(storage: SqlStorage) -> None:
    assert audit(storage, shuffles=0)["problems"] == []


def test_R_TOURN_2_entries_sent_at_once_by_a_wallet_covering_one_one_is_booked(
    make_room: Room, storage: SqlStorage, accounts: Accounts, cashier: Cashier
) -> None:
    """Registrations to three tournaments sent at once by a wallet that covers one entry:
    exactly one is booked; the others are refused for the money (409 with the wallet's balance
    and the entry's cost), their tournaments, journals and prize pools unchanged."""
    accounts.sign_up("ann", "correct horse")
    cashier.grant("ann", 1000, "welcome-ann")
    room = make_room(HEADS_UP, tournaments=_sng("a") + _sng("b") + _sng("c"), house_bots=0)
    ids = ["a-1", "b-1", "c-1"]
    booked, refused = _sent_at_once(room, "ann", ids)
    assert len(booked) == 1
    assert len(refused) == 2
    for tournament_id in ids:
        runner = room.tournaments[tournament_id]
        entered = tournament_id == booked[0]["tournament"]
        assert [e.account for e in runner.director.entries] == (["ann"] if entered else [])
        assert runner.seq == (1 if entered else 0)
    for error in refused:
        assert isinstance(error, InsufficientFunds), error
        assert (error.balance, error.amount) == (450, 550)
        assert "ann holds 450 PLAY; the entry costs 500 + 50 fee" in str(error)
    assert wallet_balance(storage, "ann", "PLAY") == 450
    for tournament_id in ids:
        journal = _journal(storage, tournament_id)
        assert journal == (
            [("register", {"account": "ann"})] if tournament_id == booked[0]["tournament"] else []
        )
    _audit_passes(storage)


def test_R_TOURN_2_a_daily_loss_limit_of_15_lets_one_of_two_11_entries_sent_at_once(
    make_room: Room,
    storage: SqlStorage,
    accounts: Accounts,
    cashier: Cashier,
    clock: Clock,
) -> None:
    """A loss limit of 15.00 USD a day and two entries of 11.00 (10.00 + 1.00 fee) sent at
    once: one is booked, the other refused by the limit (409), nothing of it booked."""
    accounts.sign_up("alice", "correct horse")
    Operators(accounts).verify("alice", "root", "passport seen", "alice@example.org")
    cashier.deposit("alice", "USD", "1000.00", "first")
    clock.now += 31 * DAY
    protection = Protection(storage, OperatorLog(storage, clock), clock)
    limit = {"currency": "USD", "kind": "loss", "period": "day", "amount": "15.00"}
    protection.set_limits("alice", [limit])
    usd = _sng("u", "USD", 1000, 100) + _sng("v", "USD", 1000, 100)
    room = make_room(HEADS_UP, tournaments=usd, house_bots=0)
    booked, refused = _sent_at_once(room, "alice", ["u-1", "v-1"])
    assert len(booked) == 1
    assert len(refused) == 1
    (error,) = refused
    assert isinstance(error, ProtectionRefused), error
    assert "loss limit is 15.00 USD per day" in str(error)
    assert wallet_balance(storage, "alice", "USD") == 100_000 - 1100
    (used,) = protection.view("alice")["limits"]
    assert used["used"] == "11.00"
    _audit_passes(storage)


def test_R_TOURN_3_a_refused_entry_voids_no_hand_in_progress(
    make_room: Room, storage: SqlStorage, accounts: Accounts, cashier: Cashier, clock: Clock
) -> None:
    """A running tournament with late registration and a hand in progress: a player whose
    wallet covers one entry registers for it and for a sit-and-go at once; the sit-and-go's
    entry is booked first, the late entry is refused (409 for the money). The hand in progress
    plays on and ends normally (settled, not void), the director as before the refusal."""
    accounts.sign_up("dan", "correct horse")
    cashier.grant("dan", 1000, "welcome-dan")
    room = make_room(HEADS_UP, tournaments=_sng("s") + MTT, house_bots=0, bot_think=(3.0, 3.0))

    async def scenario() -> tuple[list[Any], int]:
        await room.start()
        try:
            runner = room.tournaments[MTT_ID]
            cost = runner.settings.buy_in + runner.settings.fee
            for k in range(1, 5):
                name = f"bot.mt.{k}"
                await room.writer.call(room.fund_bot, name, cost)
                runner.bot_names.add(name)
                await room.register_tournament(MTT_ID, name)
            clock.now = MTT_START
            while not any(t.table.in_hand for t in runner.tables.values()):
                await run_for(room, clock, 0.5)
                assert clock.now < MTT_START + 600.0
            (tab,) = runner.tables.values()
            hand_id = tab.hand_id
            assert hand_id is not None
            stacks = runner.director.stacks()
            seq = runner.seq
            results = await _at_once(room, "dan", ["s-1", MTT_ID])
            assert runner.seq == seq  # nothing written: no void hand
            assert runner.tables[tab.number] is tab  # the table was not rebuilt
            assert tab.table.in_hand
            assert tab.hand_id == hand_id
            assert runner.director.stacks() == stacks
            assert "dan" not in {e.account for e in runner.director.entries}
            _audit_passes(storage)
            while tab.last_hand_id != hand_id:  # the hand ends normally
                await run_for(room, clock, 0.5)
                assert clock.now < MTT_START + 1200.0
            return results, hand_id
        finally:
            await room.stop()

    (booked, refused), hand_id = asyncio.run(scenario())
    assert isinstance(booked, dict)
    assert booked["tournament"] == "s-1"
    assert isinstance(refused, InsufficientFunds), refused
    finished = [p for k, p in _journal(storage, MTT_ID) if k == "hand_finished"]
    (ended,) = [p for p in finished if p["hand_id"] == hand_id]
    assert not ended.get("void")
    assert ended["after"] != ended["before"]  # chips changed hands: it was played out
    assert wallet_balance(storage, "dan", "PLAY") == 450
    _audit_passes(storage)


def test_R_TOURN_2_a_booking_that_fails_for_another_reason_changes_nothing(
    make_room: Room, storage: SqlStorage, accounts: Accounts, cashier: Cashier
) -> None:
    """Whatever fails in the booking's transaction, the entry is refused (409 saying to try
    again) with nothing changed, and the next entry is booked."""
    accounts.sign_up("ann", "correct horse")
    cashier.grant("ann", 1000, "welcome-ann")
    room = make_room(HEADS_UP, tournaments=_sng("a"), house_bots=0)

    async def scenario() -> None:
        await room.start()
        try:
            runner = room.tournaments["a-1"]
            write = runner._write

            def broken(*args: Any) -> int | None:
                raise OSError("disk full")

            runner._write = broken  # type: ignore[method-assign]
            with pytest.raises(RoomError, match=r"could not be booked \(disk full\); try again"):
                await room.register_tournament("a-1", "ann")
            assert runner.director.entries == []
            assert runner.seq == 0
            runner._write = write  # type: ignore[method-assign]
            entered = await room.register_tournament("a-1", "ann")
            assert entered["entry"] == 1
        finally:
            await room.stop()

    asyncio.run(scenario())
    assert wallet_balance(storage, "ann", "PLAY") == 450
    _audit_passes(storage)

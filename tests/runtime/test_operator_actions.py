"""The operator's actions on the live room (docs/operator.md): kick, a suspended account's seats,
close / reopen / add / retire a table. Each is on record in the operator log, each transfer it
makes names its entry, a refusal changes nothing, and the books balance after every scenario."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from books import wallet_of
from feltroom.cli import main
from feltroom.room import Cashier, NotSeated, RoomError
from feltroom.room.operators import OperatorLog
from feltroom.room.tables_config import room_tables, table_entries
from feltroom.rules import Fold
from feltroom.store import SqlStorage
from room.test_audit import raw

from .support import Clock, Room
from .test_person import TWO, audited, heads_up, person_room, state, tick

NEW_TABLE = """
[[table]]
id = "fresh"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""


def wallet(cashier: Cashier, name: str) -> int:
    return int(cashier.balance(name)["balances"].get("PLAY", "0"))


def operator_references(storage: SqlStorage) -> list[str]:
    with storage.transaction(write=False) as tx:
        return [reference for _, reference in tx.operator_transfers()]


def test_kick_between_hands_returns_the_chips_at_once_under_the_log_entry(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        result = await room.kick("hu", "alice", "op", "abusive chat")
        assert result["seat"] == 1
        assert room.runners["hu"].table.seat_of("alice") is None
        assert room.stored_stacks("hu") == {}
        await room.stop()

    asyncio.run(scenario())
    assert wallet(cashier, "alice") == 1000
    (entry,) = OperatorLog(storage).entries()
    assert (entry["operator"], entry["action"], entry["target"], entry["reason"]) == (
        "op",
        "kick",
        "hu/alice",
        "abusive chat",
    )
    assert operator_references(storage) == [f"table:hu:operator:{entry['id']}"]
    audited(storage)


def test_kick_during_a_hand_leaves_after_the_hand_and_refusals_change_nothing(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        before = state(room, cashier)
        with pytest.raises(NotSeated, match="carol"):
            await room.kick("hu", "carol", "op", "no seat")
        with pytest.raises(RoomError, match="no table 'nowhere'"):
            await room.kick("nowhere", "alice", "op", "no table")
        with pytest.raises(RoomError, match="give a reason"):
            await room.kick("hu", "alice", "op", "   ")
        assert state(room, cashier) == before
        assert OperatorLog(storage).entries() == []
        await room.kick("hu", "bob", "op", "collusion review")
        assert runner.table.seat_of("bob") == 2  # the hand plays on
        await room.act("hu", "alice", Fold(), runner.playing)
        await tick(room, clock, 5)
        assert runner.table.seat_of("bob") is None
        assert room.stored_stacks("hu") == {"alice": 99}
        await room.stop()

    asyncio.run(scenario())
    assert wallet(cashier, "bob") == 1000 - 100 + 101
    assert len(operator_references(storage)) == 1
    audited(storage)


def test_close_table_plays_the_hand_out_then_everyone_leaves_and_no_hand_is_dealt(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        result = await room.close_table("hu", "op", "dealer change")
        assert result["leaving"] == ["alice", "bob"]
        assert room.runners["hu"].lobby(clock.now)["status"] == "closed"
        with pytest.raises(RoomError, match="closed"):
            await room.close_table("hu", "op", "twice")
        with pytest.raises(RoomError, match="is closed by the room"):
            await room.join_waiting_list("hu", "carol")
        assert runner.table.in_hand  # the hand in progress plays out
        await room.act("hu", "alice", Fold(), runner.playing)
        await tick(room, clock, 5)
        assert runner.table.seats == {}
        assert room.stored_stacks("hu") == {}
        await tick(room, clock, 30)
        assert not runner.table.in_hand
        with pytest.raises(RoomError, match="is closed by the room"):
            await room.join("hu", "carol", 1, 100)
        await room.reopen_table("hu", "op", "dealer back")
        with pytest.raises(RoomError, match="is open"):
            await room.reopen_table("hu", "op", "twice")
        await room.join("hu", "carol", 1, 100)
        await room.stop()

    asyncio.run(scenario())
    assert wallet(cashier, "alice") + wallet(cashier, "bob") == 2000
    actions = [e["action"] for e in OperatorLog(storage).entries()]
    assert actions == ["close-table", "reopen-table"]
    assert len(operator_references(storage)) == 2
    audited(storage)


def test_retire_needs_a_closed_empty_table_and_add_table_deals_without_a_restart(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room, TWO)
    ((spec, entry),) = table_entries(NEW_TABLE, "test")

    async def scenario() -> None:
        await room.start()
        await room.join("other", "carol", 1, 100)
        with pytest.raises(RoomError, match="close table other first"):
            await room.retire_table("other", "op", "too early")
        await room.close_table("other", "op", "quiet night")
        await tick(room, clock, 1)
        await room.retire_table("other", "op", "quiet night")
        assert "other" not in room.runners
        assert [t["id"] for t in room.lobby()] == ["hu"]
        with pytest.raises(RoomError, match="there is a table 'hu'"):
            await room.add_table(
                table_entries(NEW_TABLE.replace("fresh", "hu"), "t")[0][0], "{}", "op", "dup"
            )
        await room.add_table(spec, json.dumps(entry), "op", "busy night")
        assert [t["id"] for t in room.lobby()] == ["hu", "fresh"]
        await room.join("fresh", "alice", 1, 100)
        await room.join("fresh", "bob", 2, 100)
        await tick(room, clock, 2)
        assert room.runners["fresh"].table.in_hand
        with pytest.raises(RoomError, match="close table fresh first"):
            await room.retire_table("fresh", "op", "x")
        await room.stop()

    asyncio.run(scenario())
    with storage.transaction(write=False) as tx:
        assert "fresh" in tx.table_definitions()
    actions = [e["action"] for e in OperatorLog(storage).entries()]
    assert actions == ["close-table", "retire-table", "add-table"]
    audited(storage)


def test_a_suspended_account_leaves_every_table_and_the_hooks_are_told(
    make_room: Room, clock: Clock, players: tuple[str, ...], cashier: Cashier, storage: SqlStorage
) -> None:
    room, _ = person_room(make_room, TWO)
    told: list[tuple[str, int]] = []

    async def hook(account: str, entry: int) -> None:
        told.append((account, entry))

    room.suspend_hooks.append(hook)

    async def scenario() -> None:
        runner = await heads_up(room, clock)
        await room.join("other", "alice", 1, 100)
        entry = OperatorLog(storage).record("op", "suspend", "alice", "fraud")
        left = await room.remove_account("alice", entry)
        assert left == ["hu", "other"]
        assert room.runners["other"].table.seat_of("alice") is None
        # alice was to act in the hand at "hu": her hand is folded at once, then she leaves
        assert runner.table.seat_of("alice") is None
        await tick(room, clock, 5)
        with pytest.raises(NotSeated):
            await room.act("hu", "alice", Fold())
        await room.stop()

    asyncio.run(scenario())
    assert told == [("alice", 1)]
    assert room.stored_stacks("hu") == {"bob": 101}
    assert wallet(cashier, "alice") == 1000 - 1
    assert len(operator_references(storage)) == 2
    audited(storage)


def test_the_database_is_the_tables_source_of_truth_once_seeded(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    storage: SqlStorage,
    fast_tmp: Path,
) -> None:
    path = fast_tmp / "tables.toml"
    path.write_text(TWO, "utf-8")
    assert [s.table_id for s in room_tables(storage, path)] == ["hu", "other"]
    path.write_text(TWO.replace("max_seats = 6", "max_seats = 9") + NEW_TABLE, "utf-8")
    specs = room_tables(storage, path)
    assert [s.table_id for s in specs] == ["hu", "other", "fresh"]
    assert specs[1].config.max_seats == 6  # the stored definition, not the file's new one

    async def close_and_retire() -> None:
        room = make_room(TWO, house_bots=0)
        await room.start()
        await room.close_table("other", "op", "quiet")
        await room.close_table("hu", "op", "quiet")
        await room.retire_table("other", "op", "gone")
        await room.stop()

    asyncio.run(close_and_retire())
    specs = room_tables(storage, path)
    assert [s.table_id for s in specs] == ["hu", "fresh"]  # retired: not loaded again

    async def restart() -> None:
        room = make_room(TWO.split('[[table]]\nid = "other"')[0], house_bots=0)
        await room.start()
        assert room.runners["hu"].closed is not None  # closed across the restart
        assert room.runners["hu"].lobby(clock.now)["status"] == "closed"
        with pytest.raises(RoomError, match="closed by the room"):
            await room.join("hu", "alice", 1, 100)
        await room.stop()

    asyncio.run(restart())
    audited(storage)


def test_audit_fails_when_an_operator_transfer_has_no_operator_log_entry(
    make_room: Room,
    players: tuple[str, ...],
    storage: SqlStorage,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23: ``feltroom audit`` checks that every money movement an operator's action made
    has its entry in the operator log. It passes while they match, and fails (exit 1, naming
    the transfer) for a forged transfer of the operator kind with no log entry, and for a real
    operator transfer whose log entry was deleted behind the room's back."""
    room, _ = person_room(make_room)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.kick("hu", "alice", "op", "abusive chat")
        await room.stop()

    asyncio.run(scenario())
    (entry,) = OperatorLog(storage).entries()
    with storage.transaction(write=False) as tx:
        ((real, reference),) = tx.operator_transfers()
    assert reference == f"table:hu:operator:{entry['id']}"

    def feltroom_audit() -> tuple[int, dict[str, Any]]:
        code = main(["audit", "--db", db_url, "--shuffles", "0"])
        report: dict[str, Any] = json.loads(capsys.readouterr().out)
        assert report["pass"] is (code == 0)
        return code, report

    code, report = feltroom_audit()
    assert (code, report["problems"], report["operator_transfers_checked"]) == (0, [], 1)

    alice = wallet_of(storage, "alice", "PLAY")
    forged = (
        "INSERT INTO transfers (transfer_id, currency, debit, credit, amount, kind, reference, "
        "created_at) VALUES ('forged-op', 'PLAY', 'external:PLAY', ?, 5, 'cash_out', "
        "'table:hu:operator:999', 0)"
    )
    with raw(db_url) as connection:  # the running balances follow: only the log is missing
        connection.execute(forged, (alice,))
        connection.execute("UPDATE accounts SET balance = balance - 5 WHERE key = 'external:PLAY'")
        connection.execute("UPDATE accounts SET balance = balance + 5 WHERE key = ?", (alice,))
    code, report = feltroom_audit()
    assert code == 1
    assert report["operator_transfers_checked"] == 2
    assert report["problems"] == [
        "transfer forged-op (table:hu:operator:999) was made by an operator's action with no "
        "entry in the operator log"
    ]

    with raw(db_url) as connection:  # the forgery undone: the books match the log again
        connection.execute("DELETE FROM transfers WHERE transfer_id = 'forged-op'")
        connection.execute("UPDATE accounts SET balance = balance + 5 WHERE key = 'external:PLAY'")
        connection.execute("UPDATE accounts SET balance = balance - 5 WHERE key = ?", (alice,))
    assert feltroom_audit()[0] == 0

    with raw(db_url) as connection:  # the kick's log entry deleted
        connection.execute("DELETE FROM operator_log WHERE entry_id = ?", (entry["id"],))
    code, report = feltroom_audit()
    assert code == 1
    assert report["problems"] == [
        f"transfer {real} ({reference}) was made by an operator's action with no entry in the "
        "operator log"
    ]

"""What a worker keeps of a table beyond the books, for a takeover (docs/cluster.md): its
waiting list and who sits in, stored under the table's lease. A change of the waiting list is
stored at once; a change of who sits in within ``KEEP_STATE_WITHIN`` seconds, the changes of
every table meanwhile in one write; a state back to what is stored is not written again (a
player out of chips who buys in again); a table handed over has its last change stored before
its lease goes; a table whose lease moved is not written."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from feltroom.room import Accounts, Argon2Settings, Cashier, LeaseLost, Settlement
from feltroom.room.leases import Leases
from feltroom.room.runtime import RuntimeSettings, TableRunner
from feltroom.room.tables_config import table_entries
from feltroom.room.worker import KEEP_STATE_WITHIN, WorkerRuntime
from feltroom.store import SqlStorage, open_storage

from .support import PASSWORD, TABLES


def _stored(storage: SqlStorage, table_id: str) -> dict[str, Any] | None:
    with storage.transaction(write=False) as tx:
        text = tx.table_state(table_id)
    return None if text is None else dict(json.loads(text))


async def _until(what: str, check: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        await asyncio.sleep(0.02)


def _worker(
    storage: SqlStorage, players: tuple[str, ...], settings: RuntimeSettings
) -> tuple[WorkerRuntime, Leases]:
    """A worker ``w1`` and its leases; ``players`` signed up with chips."""
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    for name in players:
        accounts.sign_up(name, PASSWORD)
        Cashier(storage).grant(name, 100_000, f"{name}-grant")
    leases = Leases(storage, "w1", seconds=30)
    runtime = WorkerRuntime(
        Settlement(storage, fence=leases.fence, shard="w1"),
        accounts,
        Cashier(storage),
        leases,
        settings=settings,
    )
    return runtime, leases


def test_a_table_state_is_stored_soon_together_and_not_again_when_it_comes_back(
    storage: SqlStorage, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # no hand: only the state changes
    runtime, leases = _worker(
        storage, ("alice", "bob", "carol"), RuntimeSettings(between_hands=3600.0)
    )
    writes: list[dict[str, Any]] = []
    keep = runtime.keep_states

    def counted(states: dict[str, dict[str, Any]]) -> dict[str, LeaseLost]:
        writes.append(dict(states))
        return keep(states)

    runtime.keep_states = counted  # type: ignore[method-assign]

    def noted(runner: object, events: object) -> None:
        if isinstance(runner, TableRunner):
            runtime.note_state(runner)

    runtime.add_listener(noted)

    async def scenario() -> None:
        await runtime.start()
        try:
            for spec, _ in table_entries(TABLES):
                assert leases.take(spec.table_id) is not None
                await runtime.adopt(spec)
            # A seat taken: who sits in is stored within the half second, not at once.
            await runtime.join("c1", "alice", 1, 5_000)
            await runtime.join("c2", "bob", 1, 5_000)
            began = time.monotonic()
            await _until("alice and bob stored", lambda: _sits_in("c1") == ["alice"])
            assert _sits_in("c2") == ["bob"]
            assert time.monotonic() - began <= KEEP_STATE_WITHIN + 0.5
            # both tables' changes in one write
            alice = [w for w in writes if "alice" in w.get("c1", {}).get("sitting_in", [])]
            assert [sorted(w) for w in alice] == [["c1", "c2"]]
            # Out and back within the half second (a bust and a buy-in): nothing written.
            count = len(writes)
            await runtime.sit_out("c1", "alice")
            await runtime.sit_in("c1", "alice")
            await asyncio.sleep(KEEP_STATE_WITHIN + 0.3)
            assert len(writes) == count
            # The waiting list: at once.
            await runtime.join("c1", "bob", 2, 5_000)
            await runtime.join_waiting_list("c2", "carol")
            await _until("carol's place stored", lambda: _waiting("c2") == ["carol"], 0.3)
            # Handed over: the last change is stored before the lease goes.
            await runtime.sit_out("c1", "bob")
            await runtime.give_up("c1")
            assert _sits_in("c1") == ["alice"]
            assert leases.held() == ["c2"]
            # A table whose lease moved is not written; the others are.
            leases.fence.hold("c1", 1)  # (what a worker that missed the move still believes)
            with storage.transaction() as tx:
                assert tx.acquire_lease("c1", "w2", 30) is not None
            refused = runtime.keep_states({"c1": {"stale": True}, "c2": {"fresh": True}})
            assert list(refused) == ["c1"]
            assert "no longer worker w1's" in str(refused["c1"])
            assert _stored(storage, "c1") == {"sitting_in": ["alice"], "waiting": []}
            assert _stored(storage, "c2") == {"fresh": True}
        finally:
            await runtime.stop()

    def _sits_in(table_id: str) -> list[str] | None:
        state = _stored(storage, table_id)
        return None if state is None else list(state["sitting_in"])

    def _waiting(table_id: str) -> list[str] | None:
        state = _stored(storage, table_id)
        return None if state is None else list(state["waiting"])

    asyncio.run(scenario())  # on uvloop's loop, as a worker runs (conftest.py)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_write_due_at_once_then_another_change_on_uvloop(storage: SqlStorage) -> None:
    """A takeover's first change is stored at once (a timer of 0 s), and the next change comes
    before that timer runs: uvloop's ``call_later(0)`` returns a plain Handle, without
    ``when`` (each takeover logged "a listener failed"); the worker keeps the deadline."""
    leases = Leases(storage, "w1", seconds=30)
    runtime = WorkerRuntime(
        Settlement(storage, fence=leases.fence, shard="w1"),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        leases,
    )
    stored: list[float] = []

    async def scenario() -> None:
        assert "uvloop" in type(asyncio.get_running_loop()).__module__

        async def store(only: object = None) -> None:
            stored.append(time.monotonic())

        runtime.store_states = store  # type: ignore[method-assign]
        runtime._store_states_in(0.0)
        runtime._store_states_in(KEEP_STATE_WITHIN)  # later than the one due: nothing more
        runtime._store_states_in(0.0)
        await _until("the write due at once", lambda: stored)
        runtime._store_states_in(KEEP_STATE_WITHIN)
        runtime._store_states_in(0.0)  # sooner than the one due: it replaces it
        await _until("the second write", lambda: len(stored) == 2, KEEP_STATE_WITHIN / 2)
        await asyncio.sleep(KEEP_STATE_WITHIN + 0.2)
        assert len(stored) == 2

    asyncio.run(scenario())


def test_several_leases_are_checked_in_one_statement_on_postgresql(pg_url: str) -> None:
    store = open_storage(pg_url)
    try:
        mine, theirs = Leases(store, "w1", seconds=30), Leases(store, "w2", seconds=30)
        assert mine.take("t1") is not None
        assert mine.take("t2") is not None
        assert theirs.take("t3") is not None
        mine.fence.hold("t3", 1)  # w1 believes it holds t3: it never did
        with store.transaction() as tx:
            refused = mine.fence.check_all(tx, ["t1", "t2", "t3", "t4"])
            tx.put_table_states({"t1": "{}", "t2": '{"waiting": ["a"]}'})
        assert sorted(refused) == ["t3", "t4"]
        assert "held by w2 at epoch 1" in str(refused["t3"])
        assert "holds no lease on table t4" in str(refused["t4"])
        with store.transaction(write=False) as tx:
            assert tx.table_state("t2") == '{"waiting": ["a"]}'
        with pytest.raises(LeaseLost), store.transaction() as tx:
            mine.fence.check(tx, "t3")
    finally:
        store.close()


def test_a_table_stores_who_sits_in_before_it_deals(
    storage: SqlStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand is dealt only once who sits in is stored: a crash that voids the hand leaves its
    players sitting in at the next owner, which deals again without a command from them (a
    killed worker's home game was taken over with its players sat out, its table dealing no
    more). Here the half second's timer is made a minute: the deal does not wait for it."""
    monkeypatch.setattr("feltroom.room.worker.KEEP_STATE_WITHIN", 60.0)
    runtime, leases = _worker(
        storage, ("alice", "bob"), RuntimeSettings(house_bots=0, between_hands=0.2)
    )
    seen: list[Any] = []

    async def scenario() -> None:
        await runtime.start()
        try:
            spec = next(spec for spec, _ in table_entries(TABLES) if spec.table_id == "c1")
            assert leases.take("c1") is not None
            runner = await runtime.adopt(spec)
            await runtime.join("c1", "alice", 1, 5_000)
            await runtime.join("c1", "bob", 2, 5_000)
            await _until("a hand dealt", lambda: runner.table.in_hand, 10)
            seen.append(_stored(storage, "c1"))
        finally:
            await runtime.stop()

    asyncio.run(scenario())
    assert seen == [{"sitting_in": ["alice", "bob"], "waiting": []}]

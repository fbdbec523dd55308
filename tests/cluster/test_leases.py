"""Table leases with fencing epochs, on a real PostgreSQL (and SQLite for the embedded path):
docs/cluster.md, "Leases and fencing".

A worker owns a table through a lease whose epoch grows with each new owner; every write it makes
about the table checks the lease in the same transaction as the books, so a worker whose lease
lapsed or moved cannot settle, and no hand is settled twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from feltroom.room import AlreadySettled, LeaseLapsed, LeaseLost, Settlement, audit
from feltroom.room.leases import Leases
from feltroom.store import SqlStorage, open_storage

from .books import raked_hand, seat_two

HERE = Path(__file__).resolve().parent


@pytest.fixture
def pg(pg_url: str) -> SqlStorage:
    store = open_storage(pg_url)
    yield store  # type: ignore[misc]
    store.close()


def _stacks(settlement: Settlement, table_id: str) -> dict[str, int]:
    return {name: row.stack for name, row in settlement.seats(table_id).items()}


def test_the_epoch_grows_with_each_new_owner_and_a_running_lease_is_not_taken(
    pg: SqlStorage,
) -> None:
    first, second = Leases(pg, "w1", seconds=30), Leases(pg, "w2", seconds=30)
    taken = first.take("t1")
    assert taken is not None
    assert (taken.lease.owner, taken.lease.epoch) == ("w1", 1)
    assert second.take("t1") is None  # w1's lease runs
    assert first.renew("t1")
    first.release("t1")  # given up between hands: lapses now
    again = second.take("t1")
    assert again is not None
    assert (again.lease.owner, again.lease.epoch) == ("w2", 2)
    assert not first.renew("t1")  # moved: w1 holds nothing
    assert first.held() == []
    assert second.held() == ["t1"]
    now, rows = second.all()
    assert [(r.table_id, r.owner, r.epoch) for r in rows] == [("t1", "w2", 2)]
    assert rows[0].expires_at > now


def test_a_takeover_voids_the_hand_left_unsettled_and_the_old_owner_cannot_settle_it(
    pg: SqlStorage,
) -> None:
    seat_two(pg, "t1")
    old = Leases(pg, "w1", seconds=0.5)
    assert old.take("t1") is not None
    books = Settlement(pg, fence=old.fence, shard="w1")
    hand = books.begin_hand("t1")
    before = _stacks(books, "t1")
    time.sleep(0.7)  # w1 stalls past its lease
    new = Leases(pg, "w2", seconds=30)
    taken = new.take("t1")
    assert taken is not None
    assert taken.lease.epoch == 2
    assert taken.voided == (hand,)  # today's crash policy: the hand is void
    with pytest.raises(LeaseLost, match="no longer worker w1's"):
        books.settle_hand(raked_hand(hand, "t1", before))
    with pytest.raises(LeaseLost):
        books.begin_hand("t1")
    with pytest.raises(LeaseLost):
        books.leave("t1", "alice")
    assert _stacks(Settlement(pg), "t1") == before  # every stack at its start-of-hand value
    # The new owner plays on from the books; the old hand cannot be settled by anyone.
    fresh = Settlement(pg, fence=new.fence, shard="w2")
    with pytest.raises(AlreadySettled):
        fresh.settle_hand(raked_hand(hand, "t1", before))
    next_hand = fresh.begin_hand("t1")
    assert fresh.settle_hand(raked_hand(next_hand, "t1", before)).stacks == {
        "alice": 1090,
        "bob": 900,
    }
    report = audit(pg, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["PLAY"]["balances"]["house"] == "10"


def test_a_lapsed_lease_cannot_settle_until_its_owner_renews_it(pg: SqlStorage) -> None:
    seat_two(pg, "t1")
    leases = Leases(pg, "w1", seconds=0.3)
    taken = leases.take("t1")
    assert taken is not None
    books = Settlement(pg, fence=leases.fence, shard="w1")
    hand = books.begin_hand("t1")
    before = _stacks(books, "t1")
    time.sleep(0.5)
    with pytest.raises(LeaseLapsed, match="has lapsed"):
        books.settle_hand(raked_hand(hand, "t1", before))
    assert _stacks(books, "t1") == before
    # Nobody took the table meanwhile (its owner was cut off from the database): the owner
    # renews it at the same epoch and the hand is settled, once.
    assert leases.renew("t1")
    assert leases.fence.epoch("t1") == taken.lease.epoch
    books.settle_hand(raked_hand(hand, "t1", before))
    with pytest.raises(AlreadySettled):
        books.settle_hand(raked_hand(hand, "t1", before))
    assert _stacks(books, "t1") == {"alice": before["alice"] + 90, "bob": before["bob"] - 100}
    assert audit(pg, shuffles=0)["pass"]


def test_a_lapsed_lease_given_up_or_taken_is_not_renewed(pg: SqlStorage) -> None:
    mine, other = Leases(pg, "w1", seconds=0.3), Leases(pg, "w2", seconds=30)
    assert mine.take("t1") is not None
    assert mine.take("t2") is not None
    epoch = mine.fence.epoch("t1")
    mine.release("t1")
    mine.fence.hold("t1", epoch or 0)  # (as if a renewal read the epoch before the release)
    assert not mine.renew("t1")
    time.sleep(0.5)
    assert other.take("t2") is not None
    assert not mine.renew("t2")
    assert mine.held() == []


def test_a_paused_worker_process_that_wakes_after_losing_its_lease_cannot_settle(
    pg_url: str,
) -> None:
    """A real pause: the worker process is stopped (SIGSTOP) while its hand is in progress,
    another worker takes the table over, and the process is continued (SIGCONT)."""
    store = open_storage(pg_url)
    seat_two(store, "t1")
    before = _stacks(Settlement(store), "t1")
    worker = subprocess.Popen(
        [sys.executable, str(HERE / "paused_worker.py"), pg_url, "--wait", "1", "--lease", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        ready = json.loads(worker.stdout.readline())
        os.kill(worker.pid, signal.SIGSTOP)
        time.sleep(1.5)  # the paused worker's lease lapses
        taken = Leases(store, "w2", seconds=30).take("t1")
        assert taken is not None
        assert taken.lease.epoch == ready["epoch"] + 1
        assert taken.voided == (ready["hand"],)
        os.kill(worker.pid, signal.SIGCONT)
        result = json.loads(worker.stdout.readline())
        assert worker.wait(30) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert result["settled"] is False
    assert result["error"] == "LeaseLost"
    with store.transaction(write=False) as tx:
        row = tx.get_hand(ready["hand"])
        assert row is not None
        assert row.status == "void"
        assert tx.get_account("house:PLAY:paused") is None  # nothing was written
    assert _stacks(Settlement(store), "t1") == before
    assert audit(store, shuffles=0)["pass"]
    store.close()


def test_workers_settling_at_once_use_their_own_house_accounts_without_deadlock(
    pg_url: str,
) -> None:
    """Four workers (each its own connection pool) settle raked hands at their own tables at
    the same time, in groups of three tables per commit as the runtime's writer does. Each
    worker's rake goes to its own ``house:PLAY:<worker>`` row: no hot ``house:PLAY`` row, no
    deadlock, and the audit sums the sub-accounts."""
    setup = open_storage(pg_url)
    workers = [f"w{k}" for k in range(4)]
    tables = {w: [f"{w}t{j}" for j in range(3)] for w in workers}
    for w in workers:
        for j, table_id in enumerate(tables[w]):
            seat_two(setup, table_id, (f"{w}a{j}", f"{w}b{j}"))
    hands_each = 25
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(workers), timeout=60)
    # Opened here: opening migrates, and Alembic's migration is not to be run from threads.
    stores = {w: open_storage(pg_url) for w in workers}

    def work(worker: str) -> None:
        store = stores[worker]
        try:
            leases = Leases(store, worker, seconds=60)
            for table_id in tables[worker]:
                assert leases.take(table_id) is not None
            books = Settlement(store, fence=leases.fence, shard=worker)
            ids = {t: books.begin_hand(t) for t in tables[worker]}
            barrier.wait()
            for k in range(hands_each):
                outcomes = []
                for j, t in enumerate(tables[worker]):
                    names = (f"{worker}a{j}", f"{worker}b{j}")
                    stacks = _stacks(books, t)
                    outcomes.append(raked_hand(ids[t], t, stacks, names, second_wins=k % 2 == 1))
                for outcome, settled in zip(
                    outcomes, books.settle_hands(outcomes, begin_next=True), strict=True
                ):
                    assert settled.next_hand_id is not None
                    ids[outcome.table_id] = settled.next_hand_id
        except BaseException as error:
            errors.append(error)
        finally:
            store.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    settled = hands_each * 3
    with setup.transaction(write=False) as tx:
        assert tx.get_account("house:PLAY") is None
        for w in workers:
            house = tx.get_account(f"house:PLAY:{w}")
            assert house is not None
            assert house.balance == 10 * settled
    report = audit(setup, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["hands_checked"] == settled * len(workers)
    assert report["currencies"]["PLAY"]["balances"]["house"] == str(10 * settled * len(workers))
    setup.close()


def test_leases_and_fencing_on_sqlite(storage: SqlStorage) -> None:
    """The embedded database keeps the same leases (the database's clock, the same rules)."""
    seat_two(storage, "t1")
    first, second = Leases(storage, "w1", seconds=0.3), Leases(storage, "w2", seconds=30)
    assert first.take("t1") is not None
    books = Settlement(storage, fence=first.fence, shard="w1")
    hand = books.begin_hand("t1")
    stacks = _stacks(books, "t1")
    assert second.take("t1") is None
    time.sleep(0.5)
    taken = second.take("t1")
    assert taken is not None
    assert (taken.lease.epoch, taken.voided) == (2, (hand,))
    with pytest.raises(LeaseLost):
        books.settle_hand(raked_hand(hand, "t1", stacks))
    assert audit(storage, shuffles=0)["pass"]


def test_renewing_all_leases_at_once_reports_the_ones_lost(pg: SqlStorage) -> None:
    mine, other = Leases(pg, "w1", seconds=0.3), Leases(pg, "w2", seconds=30)
    assert mine.take("t1") is not None
    assert mine.take("t2") is not None
    assert mine.renew_all(["t1", "t2"]) == []
    time.sleep(0.5)
    assert other.take("t2") is not None
    assert mine.renew_all(["t1", "t2"]) == ["t2"]  # t1 lapsed (renewed: nobody took it), t2 moved
    assert mine.held() == ["t1"]
    assert other.take("t1") is None  # the renewal moved t1's expiry: it is live again

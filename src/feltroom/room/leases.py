"""Table leases with fencing epochs: which worker of a cluster owns which table (docs/cluster.md).

- ``Leases`` takes, renews and gives up a worker's leases. Taking a table over voids, in the same
  transaction, the hand its previous owner left unsettled (today's crash policy: nothing moves
  in the ledger during a hand, so every stack is back at its start-of-hand value).
- ``Fence`` is what the worker's ``Settlement`` checks before every write about a table, in the
  transaction of that write: the lease row must still name this worker, at the epoch it took,
  unexpired by the database's clock. A worker that was paused and wakes after its lease lapsed
  or moved gets ``LeaseLost`` and writes nothing, so no hand is settled twice. A lapsed lease
  that nobody took is renewed by its owner (same epoch): a worker cut off from the database
  for longer than the lease goes on with its tables (``LeaseLapsed`` until then).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from feltroom.room.errors import LeaseLapsed, LeaseLost, RoomError
from feltroom.room.ledger import valid_name
from feltroom.room.settlement import void_hands
from feltroom.room.storage import LeaseRow, Storage, Transaction

__all__ = ["Fence", "Leases", "TakenTable"]


@dataclass(slots=True)
class Fence:
    """The epochs a worker holds, by table id; ``check`` raises ``LeaseLost`` unless the lease
    row (read in the caller's transaction, locked until it ends) is still this worker's."""

    owner: str
    epochs: dict[str, int] = field(default_factory=dict)
    # Each statement of a fenced write is cut off after this many seconds (half the lease).
    time_limit: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def hold(self, table_id: str, epoch: int) -> None:
        with self._lock:
            self.epochs[table_id] = epoch

    def drop(self, table_id: str) -> None:
        with self._lock:
            self.epochs.pop(table_id, None)

    def epoch(self, table_id: str) -> int | None:
        with self._lock:
            return self.epochs.get(table_id)

    def check(self, tx: Transaction, table_id: str) -> None:
        epoch = self.epoch(table_id)
        if epoch is None:
            raise LeaseLost(f"worker {self.owner} holds no lease on table {table_id}")
        if self.time_limit is not None:
            tx.limit_statements(self.time_limit)
        lease, clock = tx.lease_for_write(table_id)
        refusal = self._refusal(table_id, epoch, lease, clock)
        if refusal is not None:
            raise refusal

    def check_all(self, tx: Transaction, table_ids: Iterable[str]) -> dict[str, LeaseLost]:
        """``check`` for several tables in one statement: the tables this worker may not write
        about, each with its refusal (the others' lease rows stay locked until ``tx`` ends)."""
        epochs = {t: self.epoch(t) for t in table_ids}
        refused: dict[str, LeaseLost] = {
            t: LeaseLost(f"worker {self.owner} holds no lease on table {t}")
            for t, epoch in epochs.items()
            if epoch is None
        }
        if self.time_limit is not None:
            tx.limit_statements(self.time_limit)
        leases, clock = tx.leases_for_write([t for t in epochs if t not in refused])
        for table_id, epoch in epochs.items():
            if epoch is not None:
                refusal = self._refusal(table_id, epoch, leases.get(table_id), clock)
                if refusal is not None:
                    refused[table_id] = refusal
        return refused

    def _refusal(
        self, table_id: str, epoch: int, lease: LeaseRow | None, clock: float
    ) -> LeaseLost | None:
        if lease is None or lease.owner != self.owner or lease.epoch != epoch:
            holder = "nobody" if lease is None else f"{lease.owner} at epoch {lease.epoch}"
            return LeaseLost(
                f"table {table_id} is no longer worker {self.owner}'s (epoch {epoch}); "
                f"its lease is held by {holder}: nothing is written"
            )
        if lease.expires_at <= clock:
            return LeaseLapsed(
                f"worker {self.owner}'s lease on table {table_id} (epoch {epoch}) has lapsed: "
                "nothing is written"
            )
        return None


@dataclass(frozen=True, slots=True)
class TakenTable:
    """A lease just taken: its row, and the hands of the previous owner voided with it."""

    lease: LeaseRow
    voided: tuple[int, ...]


class Leases:
    """One worker's side of the table leases, on the cluster's database."""

    def __init__(self, storage: Storage, owner: str, seconds: float = 3.0) -> None:
        if not isinstance(owner, str) or not 1 <= len(owner) <= 64:
            raise RoomError(f"a worker's name is 1 to 64 characters, not {owner!r}")
        if not seconds > 0:
            raise RoomError(f"--lease-seconds must be more than 0, not {seconds}")
        self.storage = storage
        self.owner = owner
        self.seconds = seconds
        # A renewal's, a takeover's and a fenced write's statements are cut off after half the
        # lease: one that hangs (the database's backend stopped) fails before the lease lapses.
        self.fence = Fence(owner, time_limit=seconds / 2)
        # When each lease was last taken or renewed (this process's monotonic clock, read
        # before the statement: the lease runs at least ``seconds`` from then).
        self.renewed: dict[str, float] = {}

    def valid(self, table_id: str) -> bool:
        """Whether this worker can show the lease valid now: taken or renewed less than half
        the lease ago (a worker paused past its lease shows none, whatever it still runs)."""
        return time.monotonic() - self.renewed.get(table_id, -math.inf) < self.seconds / 2

    def unrenewed_for(self) -> float:
        """Seconds since the oldest of the held leases was last taken or renewed (0 for none)."""
        now = time.monotonic()
        return max((now - self.renewed.get(t, now) for t in self.held()), default=0.0)

    def take(self, table_id: str) -> TakenTable | None:
        """Take the table if its lease is free or lapsed; ``None`` while another worker's runs.
        The previous owner's unsettled hands at the table are voided in the same transaction."""
        valid_name(table_id, "table id")
        began = time.monotonic()
        with self.storage.transaction() as tx:
            tx.limit_statements(self.seconds / 2)
            lease = tx.acquire_lease(table_id, self.owner, self.seconds)
            if lease is None:
                return None
            reason = f"takeover by {self.owner}"
            voided = void_hands(tx, table_id, reason, tx.database_time())
        self.renewed[table_id] = began
        self.fence.hold(table_id, lease.epoch)
        return TakenTable(lease, tuple(voided))

    def renew(self, table_id: str) -> bool:
        """Extend this worker's lease, also one that lapsed if nobody took it since; False (and
        the table is dropped) if it moved or was given up."""
        epoch = self.fence.epoch(table_id)
        if epoch is None:
            return False
        began = time.monotonic()
        with self.storage.transaction() as tx:
            tx.limit_statements(self.seconds / 2)
            kept = tx.renew_lease(table_id, self.owner, epoch, self.seconds)
        if kept:
            self.renewed[table_id] = began
        else:
            self.fence.drop(table_id)
            self.renewed.pop(table_id, None)
        return kept

    def renew_all(self, table_ids: list[str]) -> list[str]:
        """Renew these leases in one transaction; returns the tables whose lease moved (dropped
        from the fence)."""
        epochs = {t: self.fence.epoch(t) for t in table_ids}
        held = [(t, epoch) for t, epoch in epochs.items() if epoch is not None]
        began = time.monotonic()
        with self.storage.transaction() as tx:
            tx.limit_statements(self.seconds / 2)
            renewed = tx.renew_leases(self.owner, held, self.seconds)
        lost = [t for t in table_ids if t not in renewed]
        for table_id, now in renewed.items():
            if now:  # (a row locked this moment is renewed next time: not shown valid now)
                self.renewed[table_id] = began
        for table_id in lost:
            self.fence.drop(table_id)
            self.renewed.pop(table_id, None)
        return lost

    def release(self, table_id: str) -> None:
        """Give the table up (between hands): its lease lapses now."""
        epoch = self.fence.epoch(table_id)
        self.fence.drop(table_id)
        if epoch is not None:
            began = time.monotonic()
            with self.storage.transaction() as tx:
                running = tx.release_lease(table_id, self.owner, epoch)
            # Valid until it was given up: what this worker did at the table before (the
            # operator's retire-table, which gives it up) it did as the table's owner.
            if running:
                self.renewed[table_id] = began
            else:
                self.renewed.pop(table_id, None)

    def held(self) -> list[str]:
        with self.fence._lock:
            return sorted(self.fence.epochs)

    def all(self) -> tuple[float, list[LeaseRow]]:
        """The database's time and every lease (who owns what; free ones have lapsed)."""
        with self.storage.transaction(write=False) as tx:
            return tx.database_time(), tx.all_leases()

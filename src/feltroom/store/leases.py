"""Table leases and table definitions in SQL (docs/cluster.md): the ``Transaction`` methods a
cluster's workers use.

Times are the database's clock (``clock_timestamp()`` on PostgreSQL, ``julianday('now')`` on
SQLite), so the hosts of a cluster need not agree on the time. The lease row is locked
(``FOR UPDATE`` to change it, ``FOR SHARE`` to check it before a write about the table), so a
takeover and the old owner's settlement cannot both commit.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import Connection, and_, bindparam, literal_column, select, text, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite

from feltroom.room.storage import LeaseRow
from feltroom.store.models import table_definitions, table_leases

__all__ = ["LeaseQueries"]

_LEASE = select(table_leases).where(table_leases.c.table_id == bindparam("table_id"))
_LEASE_LOCKED = _LEASE.with_for_update()
_ALL = select(table_leases).order_by(table_leases.c.table_id)
_SET = (
    update(table_leases)
    .where(table_leases.c.table_id == bindparam("t"))
    .values(
        owner=bindparam("new_owner"),
        epoch=bindparam("new_epoch"),
        expires_at=bindparam("new_expires"),
    )
)
_RENEW = (
    update(table_leases)
    .where(
        table_leases.c.table_id == bindparam("t"),
        table_leases.c.owner == bindparam("o"),
        table_leases.c.epoch == bindparam("e"),
        table_leases.c.expires_at > bindparam("now"),
    )
    .values(expires_at=bindparam("until"))
)
_POSTGRES_CLOCK = "EXTRACT(EPOCH FROM clock_timestamp())"
_SQLITE_CLOCK = "(julianday('now') - 2440587.5) * 86400.0"
_POSTGRES_NOW = text(f"SELECT {_POSTGRES_CLOCK}")
# (for the rest of the transaction only: SET LOCAL takes no bound value, set_config does)
_LIMIT = text("SELECT set_config('statement_timeout', :limit, true)")
_SQLITE_NOW = text(f"SELECT {_SQLITE_CLOCK}")
# A worker's renewal of all its leases in one statement (PostgreSQL): lock its rows in one order,
# skipping those locked this moment, move their expiry, and return the tables still its own (as
# of the statement's start: a skipped row is still the worker's, renewed next time).
_POSTGRES_RENEW_ALL = text(
    f"""
    WITH mine AS (
        SELECT l.table_id FROM table_leases AS l
        JOIN unnest(CAST(:tables AS text[]), CAST(:epochs AS bigint[])) AS h(table_id, epoch)
            ON l.table_id = h.table_id AND l.epoch = h.epoch
        WHERE l.owner = :owner AND l.expires_at > 0
    ), locked AS (
        SELECT table_id FROM table_leases WHERE table_id IN (SELECT table_id FROM mine)
        ORDER BY table_id FOR UPDATE SKIP LOCKED
    ), renewed AS (
        UPDATE table_leases SET expires_at = {_POSTGRES_CLOCK} + :seconds
        WHERE table_id IN (SELECT table_id FROM locked)
        RETURNING table_id
    )
    SELECT m.table_id, r.table_id IS NOT NULL AS renewed
    FROM mine AS m LEFT JOIN renewed AS r ON r.table_id = m.table_id
    """
)
# A fenced write's check in one statement: the lease row, locked, and the clock.
_LEASE_AND_CLOCK = {
    dialect: select(table_leases, literal_column(clock))
    .where(table_leases.c.table_id == bindparam("table_id"))
    .with_for_update(read=True)
    for dialect, clock in (("postgresql", _POSTGRES_CLOCK), ("sqlite", _SQLITE_CLOCK))
}

# The same for several tables at once (a worker's kept table states, written together).
_LEASES_AND_CLOCK = {
    dialect: select(table_leases, literal_column(clock))
    .where(table_leases.c.table_id.in_(bindparam("table_ids", expanding=True)))
    .order_by(table_leases.c.table_id)
    .with_for_update(read=True)
    for dialect, clock in (("postgresql", _POSTGRES_CLOCK), ("sqlite", _SQLITE_CLOCK))
}


class LeaseQueries:
    """Mixed into ``SqlTransaction``: ``c`` is its connection."""

    c: Connection
    is_sqlite: bool
    _statement_limit: int | None = None

    def database_time(self) -> float:
        return float(self.c.execute(_SQLITE_NOW if self.is_sqlite else _POSTGRES_NOW).scalar_one())

    def limit_statements(self, seconds: float) -> None:
        # Once a transaction (a group commit fences many writes: one statement for them all).
        milliseconds = max(1, math.ceil(seconds * 1000))
        if self.is_sqlite or self._statement_limit == milliseconds:
            return
        self.c.execute(_LIMIT, {"limit": str(milliseconds)})
        self._statement_limit = milliseconds

    def lease_for_write(self, table_id: str) -> tuple[LeaseRow | None, float]:
        statement = _LEASE_AND_CLOCK["sqlite" if self.is_sqlite else "postgresql"]
        row = self.c.execute(statement, {"table_id": table_id}).first()
        if row is None:
            return None, self.database_time()
        return LeaseRow(*row[:4]), float(row[4])

    def leases_for_write(self, table_ids: list[str]) -> tuple[dict[str, LeaseRow], float]:
        if not table_ids:
            return {}, self.database_time()
        statement = _LEASES_AND_CLOCK["sqlite" if self.is_sqlite else "postgresql"]
        rows = self.c.execute(statement, {"table_ids": sorted(table_ids)}).all()
        if not rows:
            return {}, self.database_time()
        return {row[0]: LeaseRow(*row[:4]) for row in rows}, float(rows[0][4])

    def acquire_lease(self, table_id: str, owner: str, seconds: float) -> LeaseRow | None:
        now = self.database_time()
        dialect: Any = sqlite if self.is_sqlite else postgresql
        first = LeaseRow(table_id, owner, 1, now + seconds)
        inserted = self.c.execute(
            dialect.insert(table_leases)
            .values(table_id=table_id, owner=owner, epoch=1, expires_at=first.expires_at)
            .on_conflict_do_nothing()
            .returning(table_leases.c.epoch)
        ).first()
        if inserted is not None:
            return first  # the table's first owner
        row = self.c.execute(_LEASE_LOCKED, {"table_id": table_id}).first()
        assert row is not None
        lease = LeaseRow(*row)
        if lease.expires_at > now:
            return None  # a running lease, whoever holds it
        taken = LeaseRow(table_id, owner, lease.epoch + 1, now + seconds)
        self.c.execute(
            _SET,
            {
                "t": table_id,
                "new_owner": owner,
                "new_epoch": taken.epoch,
                "new_expires": taken.expires_at,
            },
        )
        return taken

    def renew_lease(self, table_id: str, owner: str, epoch: int, seconds: float) -> bool:
        # A lapsed lease nobody took (same owner, same epoch) is renewed too: its owner was cut
        # off from the database, and nobody else wrote about the table meanwhile. One given up
        # (expires at 0) or taken by another worker (a new epoch) is not.
        now = self.database_time()
        values = {"t": table_id, "o": owner, "e": epoch}
        result = self.c.execute(_RENEW, {**values, "now": 0.0, "until": now + seconds})
        return bool(result.rowcount == 1)

    def renew_leases(
        self, owner: str, held: list[tuple[str, int]], seconds: float
    ) -> dict[str, bool]:
        # One statement (PostgreSQL) or a few (SQLite) for all of a worker's tables (a statement
        # each cost the database and the worker a round trip per table twice a second:
        # docs/performance.md). The rows are locked in one order and a row locked this moment
        # (a settlement checking its lease, FOR SHARE) is skipped, not waited for: waiting while
        # holding the others' locks could close a cycle with settlements. A skipped row stays
        # the worker's and is renewed next time; the tables returned are those still the
        # worker's, each with whether it was renewed now.
        if not held:
            return {}
        if not self.is_sqlite:
            rows = self.c.execute(
                _POSTGRES_RENEW_ALL,
                {
                    "tables": [table_id for table_id, _ in held],
                    "epochs": [epoch for _, epoch in held],
                    "owner": owner,
                    "seconds": seconds,
                },
            )
            return {row.table_id: bool(row.renewed) for row in rows}
        mine = and_(
            table_leases.c.owner == owner,
            tuple_(table_leases.c.table_id, table_leases.c.epoch).in_(held),
            table_leases.c.expires_at > 0.0,
        )
        ids = select(table_leases.c.table_id).where(mine).order_by(table_leases.c.table_id)
        locked = [row.table_id for row in self.c.execute(ids.with_for_update(skip_locked=True))]
        if locked:
            until = self.database_time() + seconds
            self.c.execute(
                update(table_leases)
                .where(table_leases.c.table_id.in_(locked))
                .values(expires_at=until)
            )
        return {row.table_id: row.table_id in locked for row in self.c.execute(ids)}

    def release_lease(self, table_id: str, owner: str, epoch: int) -> bool:
        # Lapsed for good (0, not now): a renewal that waited on this row's lock with an
        # earlier "now" must not find it running.
        values = {"t": table_id, "o": owner, "e": epoch}
        result = self.c.execute(_RENEW, {**values, "now": self.database_time(), "until": 0.0})
        return bool(result.rowcount == 1)

    def all_leases(self) -> list[LeaseRow]:
        return [LeaseRow(*row) for row in self.c.execute(_ALL)]

    def put_table_definition(self, table_id: str, definition: str) -> None:
        dialect: Any = sqlite if self.is_sqlite else postgresql
        statement = dialect.insert(table_definitions).values(
            table_id=table_id, definition=definition
        )
        self.c.execute(
            statement.on_conflict_do_update(
                index_elements=["table_id"], set_={"definition": statement.excluded.definition}
            )
        )

    def table_definitions(self) -> dict[str, str]:
        """The definitions of the tables that are not retired."""
        rows = self.c.execute(
            select(table_definitions)
            .where(table_definitions.c.status != "retired")
            .order_by(table_definitions.c.table_id)
        )
        return {row.table_id: row.definition for row in rows}

    def add_table_definition(self, table_id: str, definition: str) -> bool:
        dialect: Any = sqlite if self.is_sqlite else postgresql
        statement = dialect.insert(table_definitions).values(
            table_id=table_id, definition=definition
        )
        added = statement.on_conflict_do_nothing().returning(table_definitions.c.table_id)
        return self.c.execute(added).first() is not None

    def table_statuses(self) -> dict[str, str]:
        rows = self.c.execute(select(table_definitions.c.table_id, table_definitions.c.status))
        return {row.table_id: row.status for row in rows}

    def set_table_status(self, table_id: str, status: str) -> bool:
        result = self.c.execute(
            update(table_definitions)
            .where(table_definitions.c.table_id == table_id)
            .values(status=status)
        )
        return bool(result.rowcount == 1)

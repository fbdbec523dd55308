"""The cluster's shared state in SQL (docs/cluster.md): the gateways' sign-in and sign-up
throttles and the tables' states (waiting lists, who sits in), as ``Transaction`` methods."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite

from feltroom.store.models import table_states, throttle_failures

__all__ = ["ClusterStateQueries"]

_F = throttle_failures.c


class ClusterStateQueries:
    """Mixed into ``SqlTransaction``."""

    c: Connection

    def add_failure(self, scope: str, key: str, at: float) -> None:
        self.c.execute(insert(throttle_failures).values(scope=scope, key=key, at=at))

    def failure_times(self, scope: str, key: str, since: float) -> list[float]:
        query = select(_F.at).where(_F.scope == scope, _F.key == key, _F.at > since).order_by(_F.at)
        return [float(row[0]) for row in self.c.execute(query)]

    def delete_failure(self, scope: str, key: str, at: float) -> None:
        one = (
            select(func.min(_F.failure_id))
            .where(_F.scope == scope, _F.key == key, _F.at == at)
            .scalar_subquery()
        )
        self.c.execute(delete(throttle_failures).where(_F.failure_id == one))

    def clear_failures(self, scope: str, key: str) -> None:
        self.c.execute(delete(throttle_failures).where(_F.scope == scope, _F.key == key))

    def delete_failures_before(self, scope: str, before: float) -> int:
        old = delete(throttle_failures).where(_F.scope == scope, _F.at <= before)
        return int(self.c.execute(old).rowcount)

    def table_state(self, table_id: str) -> str | None:
        query = select(table_states.c.state).where(table_states.c.table_id == table_id)
        return self.c.execute(query).scalar_one_or_none()

    def put_table_states(self, states: dict[str, str]) -> None:
        if not states:
            return
        dialect: Any = sqlite if self.c.dialect.name == "sqlite" else postgresql
        statement = dialect.insert(table_states).values(
            [{"table_id": t, "state": states[t]} for t in sorted(states)]
        )
        self.c.execute(
            statement.on_conflict_do_update(
                index_elements=["table_id"], set_={"state": statement.excluded.state}
            )
        )

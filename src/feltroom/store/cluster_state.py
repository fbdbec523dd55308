"""The cluster's shared state in SQL (docs/cluster.md): the gateways' sign-in and sign-up
throttles and the tables' waiting lists, as ``Transaction`` methods."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, delete, func, insert, select

from feltroom.store.models import throttle_failures, waiting_lists

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

    def waiting_list(self, table_id: str) -> list[str]:
        query = (
            select(waiting_lists.c.account)
            .where(waiting_lists.c.table_id == table_id)
            .order_by(waiting_lists.c.position)
        )
        return [str(row[0]) for row in self.c.execute(query)]

    def put_waiting_list(self, table_id: str, accounts: Sequence[str]) -> None:
        self.c.execute(delete(waiting_lists).where(waiting_lists.c.table_id == table_id))
        if accounts:
            self.c.execute(
                insert(waiting_lists),
                [
                    {"table_id": table_id, "account": account, "position": position}
                    for position, account in enumerate(accounts)
                ],
            )

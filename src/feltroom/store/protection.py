"""Player protection in SQL (issue 25): verified accounts, limits, the reminder, cool-off and
self-exclusion, and the sums of a wallet's flows the limits are checked against."""

from __future__ import annotations

from sqlalchemy import Connection, and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from feltroom.room.storage import LimitRow, ProtectionRow
from feltroom.store.models import (
    player_limits,
    player_protection,
    room_secrets,
    transfers,
    users,
    verified_identities,
)

__all__ = ["ProtectionQueries"]


class ProtectionQueries:
    """Mixed into ``SqlTransaction``."""

    c: Connection
    is_sqlite: bool

    def set_verified(self, name: str, verified: bool) -> None:
        self.c.execute(update(users).where(users.c.name == name).values(verified=verified))

    def room_secret(self, name: str, new: str) -> str:
        found = self.c.execute(
            select(room_secrets.c.value).where(room_secrets.c.name == name)
        ).scalar()
        if found is not None:
            return str(found)
        try:  # another process may make it at the same moment: then its value holds
            with self.c.begin_nested():
                self.c.execute(insert(room_secrets).values(name=name, value=new))
        except IntegrityError:
            return str(
                self.c.execute(
                    select(room_secrets.c.value).where(room_secrets.c.name == name)
                ).scalar_one()
            )
        return new

    def add_identity(self, identity: str, name: str, at: float) -> None:
        t = verified_identities
        key = name.lower()
        exists = self.c.execute(
            select(t.c.name).where(t.c.identity == identity, t.c.name == key)
        ).first()
        if exists is None:
            self.c.execute(insert(t).values(identity=identity, name=key, verified_at=at))

    def names_of_identity(self, identity: str) -> list[str]:
        t = verified_identities
        rows = self.c.execute(select(t.c.name).where(t.c.identity == identity).order_by(t.c.name))
        return [row[0] for row in rows]

    def get_protection(self, name: str) -> ProtectionRow | None:
        row = self.c.execute(
            select(player_protection).where(player_protection.c.name == name.lower())
        ).first()
        return None if row is None else ProtectionRow(*row)

    def put_protection(self, row: ProtectionRow) -> None:
        key = row.name.lower()
        values = {
            "reminder_minutes": row.reminder_minutes,
            "cool_off_until": row.cool_off_until,
            "excluded_until": row.excluded_until,
            "excluded_permanently": row.excluded_permanently,
        }
        done = self.c.execute(
            update(player_protection).where(player_protection.c.name == key).values(**values)
        )
        if not done.rowcount:
            self.c.execute(insert(player_protection).values(name=key, **values))

    def limits_of(self, name: str) -> list[LimitRow]:
        rows = self.c.execute(
            select(player_limits)
            .where(player_limits.c.name == name.lower())
            .order_by(player_limits.c.currency, player_limits.c.kind, player_limits.c.period)
        )
        return [LimitRow(*row) for row in rows]

    def put_limit(self, row: LimitRow) -> None:
        t = player_limits
        where = and_(
            t.c.name == row.name.lower(),
            t.c.currency == row.currency,
            t.c.kind == row.kind,
            t.c.period == row.period,
        )
        if row.amount is None and row.pending_at is None:
            self.c.execute(delete(t).where(where))
            return
        values = {"amount": row.amount, "pending": row.pending, "pending_at": row.pending_at}
        if not self.c.execute(update(t).where(where).values(**values)).rowcount:
            self.c.execute(
                insert(t).values(
                    name=row.name.lower(),
                    currency=row.currency,
                    kind=row.kind,
                    period=row.period,
                    **values,
                )
            )

    def wallet_flows(self, wallet: str, since: float) -> dict[tuple[str, str], int]:
        found: dict[tuple[str, str], int] = {}
        for side, direction in ((transfers.c.debit, "out"), (transfers.c.credit, "in")):
            rows = self.c.execute(
                select(transfers.c.kind, func.sum(transfers.c.amount))
                .where(side == wallet, transfers.c.created_at >= since)
                .group_by(transfers.c.kind)
            )
            for kind, total in rows:
                found[(str(kind), direction)] = int(total)
        return found

"""names unique regardless of letter case: a unique index on lower(users.name)

Stops, naming them, when accounts exist whose names differ only in letter case: the operator
resolves them (renames or merges the accounts) and migrates again.

Revision ID: 0004_names_nocase
Revises: 0003
Create Date: 2026-12-02 09:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_names_nocase"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


class NamesCollide(RuntimeError):
    """Accounts whose names differ only in letter case: the migration cannot go on."""


def colliding_names(connection: sa.Connection) -> list[list[str]]:
    """The groups of account names that are the same in any letter case, each sorted."""
    users = sa.table("users", sa.column("name", sa.String))
    folded = sa.func.lower(users.c.name)
    clashing = sa.select(folded).group_by(folded).having(sa.func.count() > 1).scalar_subquery()
    rows = connection.execute(sa.select(users.c.name).where(folded.in_(clashing)))
    groups: dict[str, list[str]] = {}
    for (name,) in rows:
        groups.setdefault(name.lower(), []).append(name)
    return [sorted(groups[key]) for key in sorted(groups)]


def upgrade() -> None:
    groups = colliding_names(op.get_bind())
    if groups:
        listed = "; ".join(", ".join(group) for group in groups)
        raise NamesCollide(
            f"{len(groups)} group(s) of accounts have names that differ only in letter case: "
            f"{listed}. Names are now one whatever their case: rename or merge these accounts "
            "(keep one name of each group), then migrate again. Nothing was changed."
        )
    op.create_index("uq_users_name_nocase", "users", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_users_name_nocase", table_name="users")

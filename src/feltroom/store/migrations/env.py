"""Alembic environment: migrations run on a connection handed over by ``feltroom.store.migrate``
(or, for ``alembic revision --autogenerate``, on ``sqlalchemy.url`` from the Alembic config)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from feltroom.store.models import metadata

config = context.config
connection = config.attributes.get("connection")


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=metadata,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    _run(connection)
else:
    url = config.get_main_option("sqlalchemy.url") or "sqlite:///data/feltroom.sqlite3"
    with create_engine(url).begin() as own_connection:
        _run(own_connection)

"""The cluster roles of ``feltroom serve`` (docs/cluster.md): the composition roots of a worker
(and, later, of a gateway). ``--role all``, the single process, stays in ``feltroom.cli``."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from typing import Any

from feltroom.room import RoomError
from feltroom.room.runtime import RuntimeSettings

__all__ = ["serve_worker"]


def _open(url: str) -> Any:
    """Open the cluster's database; several processes may start at once, and the migration of
    a fresh database must run once: the others wait and try again."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.store import open_storage

    for attempt in range(10):
        try:
            return open_storage(url)
        except (SQLAlchemyError, CommandError) as error:
            if attempt == 9:
                raise
            print(f"feltroom serve: the database is not ready ({error}); again", file=sys.stderr)
            time.sleep(0.5 + attempt * 0.5)
    raise AssertionError("unreachable")


def serve_worker(
    db: str | None,
    broker: str | None,
    *,
    lease_seconds: float,
    tables: str | None,
    settings: RuntimeSettings,
    name: str | None = None,
) -> int:
    """``feltroom serve --role worker``: own tables under leases until interrupted."""
    import faulthandler

    import uvloop
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.cluster.broker import connect
    from feltroom.cluster.worker import ClusterWorker, load_definitions

    if not db or not db.startswith("postgresql"):
        print(
            "feltroom serve: error: a worker needs --db postgresql+psycopg://... (the cluster's "
            "books are shared: SQLite is for --role all)",
            file=sys.stderr,
        )
        return 2
    if not broker:
        print(
            "feltroom serve: error: a worker needs --broker redis://:PASSWORD@host:6379/0",
            file=sys.stderr,
        )
        return 2
    try:
        connect(broker)  # checks the URL (a password is required) before anything starts
    except RoomError as error:
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return 2
    try:
        storage = _open(db)
    except (SQLAlchemyError, CommandError, ValueError, OSError) as error:
        print(f"feltroom serve: cannot open the database {db!r}: {error}", file=sys.stderr)
        return 2
    try:
        if tables is not None:
            try:
                specs = load_definitions(storage, tables)
            except (RoomError, OSError) as error:
                print(f"feltroom serve: error: {error}", file=sys.stderr)
                return 2
            print(f"feltroom: {len(specs)} table definitions loaded from {tables}", flush=True)
        worker = ClusterWorker(
            storage, broker, name=name, lease_seconds=lease_seconds, settings=settings
        )

        def ready(owner: str) -> None:
            print(f"feltroom: worker {owner} runs, lease {lease_seconds} s", flush=True)

        with contextlib.suppress(OSError, ValueError):  # stderr may not be a file
            faulthandler.register(signal.SIGUSR1)  # an operator's look: the threads' stacks

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for number in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError):
                    loop.add_signal_handler(number, worker.stop)
            await worker.run(on_ready=ready)

        uvloop.run(main())
    finally:
        storage.close()
    return 0

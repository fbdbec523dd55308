"""The cluster roles of ``feltroom serve`` (docs/cluster.md): the composition roots of a worker
and of a gateway. ``--role all``, the single process, stays in ``feltroom.cli``."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

from feltroom.room import Argon2Settings, RoomError
from feltroom.room.runtime import RuntimeSettings
from feltroom.room.runtime.settings import HomeSettings
from feltroom.server.collector import calm_collector
from feltroom.server.rest import RestLimits
from feltroom.server.session import HubSettings
from feltroom.server.timeouts import READ_TIMEOUTS, ReadTimeouts

__all__ = ["serve_gateway", "serve_worker"]


def _open(url: str, engine_options: dict[str, Any] | None = None) -> Any:
    """Open the cluster's database; several processes may start at once, and the migration of
    a fresh database must run once: the others wait and try again."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.store import open_storage

    for attempt in range(10):
        try:
            return open_storage(url, engine_options=engine_options)
        except (SQLAlchemyError, CommandError) as error:
            if attempt == 9:
                raise
            print(f"feltroom serve: the database is not ready ({error}); again", file=sys.stderr)
            time.sleep(0.5 + attempt * 0.5)
    raise AssertionError("unreachable")


def _cluster_storage(
    role: str, db: str | None, broker: str | None, engine_options: dict[str, Any] | None = None
) -> Any:
    """The cluster's database, once both URLs are checked; None (and the reason printed) when
    they are not what a cluster needs."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.cluster.broker import connect

    if not db or not db.startswith("postgresql"):
        print(
            f"feltroom serve: error: a {role} needs --db postgresql+psycopg://... (the "
            "cluster's books are shared: SQLite is for --role all)",
            file=sys.stderr,
        )
        return None
    if not broker:
        print(
            f"feltroom serve: error: a {role} needs --broker redis://:PASSWORD@host:6379/0",
            file=sys.stderr,
        )
        return None
    try:
        connect(broker)  # checks the URL (a password is required) before anything starts
    except RoomError as error:
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return None
    try:
        return _open(db, engine_options)
    except (SQLAlchemyError, CommandError, ValueError, OSError) as error:
        print(f"feltroom serve: cannot open the database {db!r}: {error}", file=sys.stderr)
        return None


def serve_gateway(
    db: str | None,
    broker: str | None,
    *,
    host: str,
    port: int,
    limits: RestLimits,
    sign_in_retention_days: float,
    forwarded_allow_ips: Sequence[str] = (),
    hub_settings: HubSettings | None = None,
    argon2: Argon2Settings | None = None,
    min_password_length: int = 8,
    read_timeouts: ReadTimeouts | None = None,
    home: HomeSettings | None = None,
) -> int:
    """``feltroom serve --role gateway``: the connections, the HTTP API and the browser client
    of a cluster, until interrupted."""
    from feltroom.cluster.gateway import gateway_app
    from feltroom.room import Accounts, Cashier
    from feltroom.room.signins import SignInLog
    from feltroom.server import serve
    from feltroom.server.rest import RoomServices

    storage = _cluster_storage("gateway", db, broker)
    if storage is None:
        return 2
    assert broker is not None
    accounts = Accounts(storage, argon2=argon2, min_password_length=min_password_length)
    services = RoomServices(accounts, Cashier(storage), storage)
    sign_ins = SignInLog(storage, retention_days=sign_in_retention_days)

    def ready(address: str) -> None:
        print(f"feltroom: gateway on {address} (broker and books shared)", flush=True)

    try:
        serve(
            gateway_app(
                storage,
                accounts,
                services,
                broker,
                limits=limits,
                sign_ins=sign_ins,
                hub_settings=hub_settings,
                home=home,
            ),
            host,
            port,
            on_ready=ready,
            forwarded_allow_ips=forwarded_allow_ips,
            read_timeouts=read_timeouts or READ_TIMEOUTS,
        )
    except KeyboardInterrupt:
        pass
    finally:
        storage.close()
    return 0


def serve_worker(
    db: str | None,
    broker: str | None,
    *,
    lease_seconds: float,
    tables: str | None,
    settings: RuntimeSettings,
    name: str | None = None,
    direct: str | None = None,
    metrics_port: int | None = None,
    host: str = "127.0.0.1",
) -> int:
    """``feltroom serve --role worker``: own tables under leases until interrupted (with
    ``direct``, the gateways' direct links listen there; with ``metrics_port``, ``GET
    /metrics`` is served on ``host`` at that port: the worker's tables, the players' actions
    it ran and their broadcast times)."""
    import faulthandler

    import uvloop

    from feltroom.cluster.worker import ClusterWorker, load_definitions
    from feltroom.room.tournaments_config import TournamentSpec, load_tournaments

    # A new connection to the database gives up after half the lease (libpq's least is 2 s),
    # as a renewal's or a fenced write's statement does (``Leases``); the worker's connections
    # are named after its process (pg_stat_activity).
    timeout = max(2, math.ceil(lease_seconds / 2))
    name_ = f"feltroom-worker-{os.getpid()}"
    connect = {"connect_args": {"connect_timeout": timeout, "application_name": name_}}
    storage = _cluster_storage("worker", db, broker, connect)
    if storage is None:
        return 2
    assert broker is not None
    try:
        tournaments: list[TournamentSpec] = []
        if tables is not None:
            try:
                specs = load_definitions(storage, tables)
                # This worker opens the instances of the file's tournaments (whichever worker
                # takes an instance's lease runs it).
                tournaments = load_tournaments(tables)
            except (RoomError, OSError) as error:
                print(f"feltroom serve: error: {error}", file=sys.stderr)
                return 2
            print(
                f"feltroom: {len(specs)} table definitions loaded from {tables} (and "
                f"{len(tournaments)} tournaments, whose instances this worker opens)",
                flush=True,
            )
        worker = ClusterWorker(
            storage,
            broker,
            name=name,
            lease_seconds=lease_seconds,
            settings=settings,
            direct=direct,
            tournaments=tournaments,
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
            collector = calm_collector()  # no second-long full collections (collector.py)
            metrics = None
            if metrics_port is not None:
                from feltroom.server.app import metrics_server
                from feltroom.server.metrics import RoomCollector

                listener = metrics_server(RoomCollector(worker.runtime), host, metrics_port)
                metrics = asyncio.create_task(listener.serve(), name="metrics listener")
            try:
                await worker.run(on_ready=ready)
            finally:
                collector.cancel()
                if metrics is not None:
                    listener.should_exit = True
                    await asyncio.gather(metrics, return_exceptions=True)

        uvloop.run(main())
    finally:
        storage.close()
    return 0

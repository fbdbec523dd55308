"""The cluster tests start several processes each (workers, gateways) beside a throwaway
PostgreSQL and Redis: on the project's 2-core machine two of them at once starve each other's
clocks (leases, turn clocks), so they take turns: each holds a lock file shared by the
pytest-xdist workers (and by any other run of the suite on the machine) while it runs.

The workers and gateways run on uvloop's event loop (``feltroom serve``): so do the tests' own
loops here (``asyncio.run`` makes a uvloop loop), whose handles differ from the standard loop's
(``call_later(0)`` returns a plain Handle, without ``when``)."""

from __future__ import annotations

import asyncio
import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvloop
from sqlalchemy import create_engine, text

from feltroom.cluster.broker import connect
from services import PostgresServer

LOCK = Path(tempfile.gettempdir()) / "feltroom-cluster-tests.lock"


@pytest.fixture(autouse=True)
def on_uvloop() -> Iterator[None]:
    before = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    try:
        yield
    finally:
        asyncio.set_event_loop_policy(before)


@pytest.fixture(autouse=True)
def one_cluster_at_a_time(request: pytest.FixtureRequest) -> Iterator[None]:
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if "redis_server" in request.fixturenames:
                # The broker lives for the session, the database for one test: what an earlier
                # test left in the broker (its tables' command streams, with commands whose
                # deadlines have not passed) must not reach this test's workers.
                asyncio.run(_flush(request.getfixturevalue("redis_server").url))
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


async def _flush(url: str) -> None:
    broker = connect(url)
    try:
        await broker.flushall()
    finally:
        await broker.aclose()


@pytest.fixture
def own_postgres() -> Iterator[tuple[PostgresServer, str]]:
    """A PostgreSQL server of the test's own (the test restarts it) and a database on it."""
    pytest.importorskip("psycopg")
    server = PostgresServer()
    try:
        admin = create_engine(server.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text('CREATE DATABASE "restarts"'))
        admin.dispose()
        yield server, server.url.rsplit("/", 1)[0] + "/restarts"
    finally:
        server.remove()

"""Shared fixtures: a fresh SQLite database per test, cheap Argon2 parameters, a settable clock
(used by the room, store, runtime and server tests); a throwaway PostgreSQL server with a fresh
database per test, and a throwaway password-protected Redis (``services.py``)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeclock import Clock
from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.store import SqlStorage, open_storage
from services import PostgresServer, RedisServer

FAST_TMP = Path("/dev/shm")
SHARED = Path(__file__).resolve().parents[2] / "shared"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``corpus`` read the full corpora in ``../shared``: skipped when it is absent
    (a clone alone runs the same checks on ``tests/data``)."""
    if item.get_closest_marker("corpus") is not None and not SHARED.is_dir():
        pytest.skip(
            f"the full corpora are absent ({SHARED} not found); the same checks ran on "
            "tests/data; put the project's shared/ folder beside the checkout to run them"
        )


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A test that runs ``feltroom serve`` in this process configures its logging: the stream
    handler it adds writes to that test's captured output, closed once it ends, and the levels
    it sets would show later tests' access lines. Both are undone after each test."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    names = ("", "feltroom", "feltroom.access", "uvicorn", "uvicorn.error")
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    for handler in list(root.handlers):
        if handler not in handlers and type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    """A scratch folder in memory where there is one: the databases keep synchronous=FULL, and
    fsync on tmpfs is free, which keeps the suite fast."""
    if not (FAST_TMP.is_dir() and os.access(FAST_TMP, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="feltroom-test-", dir=FAST_TMP))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def db_url(fast_tmp: Path) -> str:
    return f"sqlite:///{fast_tmp / 'room.sqlite3'}"


@pytest.fixture
def storage(db_url: str) -> Iterator[SqlStorage]:
    store = open_storage(db_url)
    yield store
    store.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(storage: SqlStorage, clock: Clock) -> Accounts:
    return Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock)


@pytest.fixture
def cashier(storage: SqlStorage, clock: Clock) -> Cashier:
    return Cashier(storage, clock=clock)


@pytest.fixture
def settlement(storage: SqlStorage, clock: Clock) -> Settlement:
    return Settlement(storage, clock=clock)


@pytest.fixture
def players(accounts: Accounts, cashier: Cashier) -> tuple[str, ...]:
    """alice, bob and carol, each granted 1000 play chips."""
    names = ("alice", "bob", "carol")
    for name in names:
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 1000, f"welcome-{name}")
    return names


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server URL on which the tests may create databases: the one named by
    FELTROOM_TEST_POSTGRES_URL, or a throwaway server started once for the session."""
    pytest.importorskip("psycopg")
    configured = os.environ.get("FELTROOM_TEST_POSTGRES_URL")
    if configured:
        yield configured
        return
    server = PostgresServer()
    try:
        yield server.url
    finally:
        server.remove()


@contextlib.contextmanager
def _fresh_database(postgres_server: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database on the server (dropped after it)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    name = f"feltroom_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgres_server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def pg_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test (dropped after it)."""
    with _fresh_database(postgres_server) as url:
        yield url


@pytest.fixture
def other_pg_url(postgres_server: str) -> Iterator[str]:
    """A second fresh, empty PostgreSQL database for the same test (a restore's target)."""
    with _fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway Redis with a password, on loopback, for the session."""
    pytest.importorskip("redis")
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()

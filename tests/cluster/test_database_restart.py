"""PostgreSQL restarts under a worker (docs/cluster.md, "Failover"): the settlements that the
database cannot take meanwhile wait and are tried again, so a restart shorter than the lease
voids no hand; play goes on afterwards and the books pass the audit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from feltroom.room import audit
from feltroom.store import open_storage
from services import PostgresServer, RedisServer

from .support import Workers, leases, wait_for


def _settled(store: object) -> int:
    with store.transaction(write=False) as tx:  # type: ignore[attr-defined]
        return int(tx.settled_hand_count())


def _void(store: object) -> int:
    with store.transaction(write=False) as tx:  # type: ignore[attr-defined]
        rows = tx.c.exec_driver_sql("SELECT count(*) FROM hands WHERE status = 'void'")
        return int(rows.scalar_one())


def test_settlements_wait_while_postgresql_restarts(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    pytest.importorskip("psycopg")
    server = PostgresServer()  # a server of its own: this test restarts it
    try:
        admin = create_engine(server.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text('CREATE DATABASE "restarts"'))
        admin.dispose()
        url = server.url.rsplit("/", 1)[0] + "/restarts"
        store = open_storage(url)
        workers = Workers(tmp_path, url, redis_server.url, lease=10.0, think=0.05)
        try:
            workers.start("w", load_tables=True)
            wait_for("both tables owned", lambda: len(leases(store)) == 2, 60)
            wait_for("a few hands settled", lambda: _settled(store) >= 4, 90)
            store.close()
            server.stop()
            time.sleep(3)
            server.start()
            store = open_storage(url)
            before = _settled(store)
            wait_for("play going on", lambda: _settled(store) >= before + 4, 90)
            voided = _void(store)  # (stopping the worker voids its hands in play)
        finally:
            workers.stop_all()
        log = workers.log("w")
        assert "the settlement waits for the database" in log
        assert "LeaseLost" not in log
        assert voided == 0  # no hand void by the restart
        report = audit(store, shuffles=0)
        assert report["pass"], report["problems"]
        store.close()
    finally:
        server.remove()

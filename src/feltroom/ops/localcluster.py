"""A whole cluster on one machine, to try it (``scripts/cluster``) and to measure it (``feltroom
bench cluster``): a throwaway PostgreSQL and a throwaway Redis (``feltroom.ops.services``:
Debian's packages, installed when missing), ``--workers`` workers (``feltroom serve --role
worker``) and ``--gateways`` gateways (``--role gateway``) on loopback, and nginx in front of the
gateways so that the room has one address (one gateway is its own address); the workers and
gateways reach Redis by its Unix socket (they share its host). Every file of the
cluster (the servers' data, the logs, the tables file) lives in a folder of its own, removed
when the cluster stops.

``python -m feltroom.ops.localcluster`` (what ``scripts/cluster`` runs) starts one with the demo
tables and house bots, prints the address, and stops everything it started on Ctrl-C (SIGINT)
or SIGTERM: the gateways and workers first (they leave the books settled), then nginx, the
broker and the database.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from feltroom.ops.services import (
    NginxServer,
    PostgresServer,
    RedisServer,
    ServiceUnavailable,
    free_port,
)

__all__ = ["LocalCluster", "cpu_seconds", "main", "rss_bytes"]

DEMO_TABLES = Path(__file__).resolve().parents[1] / "data" / "tables.toml"
START_SECONDS = 180.0  # a loaded machine: the interpreter's start and the migration take a while


def _stat_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (PostgreSQL's backends under its postmaster)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None and fields[1] == str(pid):
                found.append(int(entry))
    return found


def cpu_seconds(pids: Sequence[int], *, reaped: bool = False) -> float:
    """The CPU time (user and system, every thread) the processes used so far; with ``reaped``
    also that of their children that ended and were waited for."""
    ticks = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is None:
            continue
        ticks += int(fields[11]) + int(fields[12])
        if reaped:
            ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_bytes(pids: Sequence[int]) -> int:
    """The resident memory (``VmRSS``) of the processes, summed."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


class LocalCluster:
    """PostgreSQL, Redis, workers, gateways and (for two gateways or more) nginx on loopback.

    ``open_services()`` starts the database and the broker (the books may be seeded then),
    ``start()`` the room's processes and returns the address; ``stop()`` stops the room's
    processes and ``close()`` everything, the folder included.

    ``single=True`` is the comparison a cluster is measured against: the same PostgreSQL, no
    broker, and one ``feltroom serve --role all`` holding every table (``workers`` and
    ``gateways`` are then ignored).
    """

    def __init__(
        self,
        *,
        workers: int = 2,
        gateways: int = 2,
        tables: Path = DEMO_TABLES,
        worker_options: Sequence[str] = (),
        gateway_options: Sequence[str] = (),
        port: int | None = None,
        lease_seconds: float = 3.0,
        say: Callable[[str], None] | None = None,
        single: bool = False,
        direct: bool = True,
        metrics: bool = False,
    ) -> None:
        if not single and (workers < 1 or gateways < 1):
            raise ValueError("a cluster needs at least one worker and one gateway")
        self.single = single
        self.direct = direct  # (the workers' direct links: feltroom.cluster.direct)
        # With ``metrics``, each worker serves ``GET /metrics`` on a free loopback port of its
        # own (``--metrics-port``): name -> its address.
        self.metrics = metrics
        self.metrics_urls: dict[str, str] = {}
        self.workers, self.gateways = (1, 1) if single else (workers, gateways)
        self.tables = tables
        self.worker_options = list(worker_options)
        self.gateway_options = list(gateway_options)
        self.port = port
        self.lease_seconds = lease_seconds
        self.say = say or (lambda line: None)
        self.folder = Path(tempfile.mkdtemp(prefix="feltroom-cluster-"))
        self.postgres: PostgresServer | None = None
        self.redis: RedisServer | None = None
        self.nginx: NginxServer | None = None
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.url = ""

    # ------------------------------------------------------------------ starting

    @property
    def db(self) -> str:
        assert self.postgres is not None
        return self.postgres.url

    @property
    def broker(self) -> str:
        """The broker's URL for the room's processes: its Unix socket (they share its host)."""
        assert self.redis is not None
        return self.redis.socket_url

    def open_services(self) -> None:
        """The database and the broker (idempotent; no broker for ``single``)."""
        if self.postgres is None:
            self.postgres = PostgresServer()
            self.say(f"PostgreSQL on 127.0.0.1:{self.postgres.port} (pid {self.database_pid})")
        if self.redis is None and not self.single:
            self.redis = RedisServer()
            self.say(
                f"Redis on 127.0.0.1:{self.redis.port} and {self.redis.socket} "
                f"(pid {self.redis_pid})"
            )

    def _serve(self, name: str, role: str, options: list[str]) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "feltroom.cli", "serve", "--role", role, "--db", self.db]
        command += [] if self.single else ["--broker", self.broker]
        command += options
        log = (self.folder / f"{name}.log").open("ab")
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.processes[name] = process
        return process

    def _direct(self, k: int) -> list[str]:
        """Worker k's direct links (a Unix socket in the cluster's folder) and, with
        ``metrics``, its metrics listener."""
        options = ["--direct", f"unix:{self.folder}/worker-{k}.sock"] if self.direct else []
        if self.metrics:
            port = free_port()
            self.metrics_urls[f"worker-{k}"] = f"http://127.0.0.1:{port}/metrics"
            options += ["--host", "127.0.0.1", "--metrics-port", str(port)]
        return options

    def log(self, name: str) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / f"{name}.log").read_text(errors="replace")
        return ""

    def _wait(self, what: str, check: Callable[[], bool]) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise RuntimeError(
                        f"{name} ended (exit {process.returncode}): {self.log(name)[-1500:]}"
                    )
            if check():
                return
            time.sleep(0.1)
        raise RuntimeError(f"gave up waiting {START_SECONDS:.0f} s for {what}")

    def start(self) -> str:
        """Start the workers (the first loads the tables into the database), the gateways and
        nginx; returns the room's address once every table is in its lobby."""
        self.open_services()
        table_count = self.tables.read_text("utf-8").count("[[table]]")
        if self.single:
            return self._start_single(table_count)
        lease = ["--lease-seconds", str(self.lease_seconds)]
        tables = ["--tables", str(self.tables)]
        first = self._serve(
            "worker-1", "worker", [*lease, *self._direct(1), *self.worker_options, *tables]
        )
        # The others start meanwhile: live when the first's first lease round counts the
        # workers, they get their share of the tournaments opened then (a worker does not hand
        # a tournament over to rebalance).
        for k in range(2, self.workers + 1):
            options = [*lease, *self._direct(k), *self.worker_options]
            process = self._serve(f"worker-{k}", "worker", options)
            self.say(f"worker-{k} (pid {process.pid})")
        self._wait("the tables to be loaded", lambda: "definitions loaded" in self.log("worker-1"))
        self.say(f"worker-1 (pid {first.pid}) loaded {table_count} tables from {self.tables}")
        ports: dict[str, int] = {}
        for k in range(1, self.gateways + 1):
            port = self.port if self.gateways == 1 and self.port else free_port()
            address = ["--host", "127.0.0.1", "--port", str(port), *self.gateway_options]
            self._serve(f"gateway-{k}", "gateway", address)
            ports[f"gateway-{k}"] = port

        def serving() -> bool:
            return all(f":{port}/" in self.log(name) for name, port in ports.items())

        self._wait("the gateways to serve", serving)
        for name, port in ports.items():
            self.say(f"{name} on http://127.0.0.1:{port}/ (pid {self.processes[name].pid})")
        if self.gateways > 1:
            self.nginx = NginxServer(list(ports.values()), port=self.port)
            self.url = self.nginx.url
            self.say(
                f"nginx on {self.url}/ in front of the gateways (pid {self.nginx.process.pid})"
            )
        else:
            self.url = f"http://127.0.0.1:{ports['gateway-1']}"
        self._wait(f"{table_count} tables in the lobby", lambda: self._lobby() >= table_count)
        self._wait("the tables spread over the workers", lambda: self._spread(table_count))
        return self.url

    def _start_single(self, table_count: int) -> str:
        port = self.port or free_port()
        options = [*self.worker_options, "--tables", str(self.tables)]
        process = self._serve("room", "all", [*options, "--host", "127.0.0.1", "--port", str(port)])
        self._wait("the room to serve", lambda: f":{port}/" in self.log("room"))
        self.url = f"http://127.0.0.1:{port}"
        self.say(f"feltroom serve --role all on {self.url}/ (pid {process.pid})")
        self._wait(f"{table_count} tables in the lobby", lambda: self._lobby() >= table_count)
        return self.url

    def _spread(self, table_count: int) -> bool:
        """Every table leased, each worker holding its share (a table moves to a worker that
        joined only between hands: bots that sit meanwhile would be refused); the tournaments'
        leases are not counted."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.db)
        try:
            with engine.connect() as connection:
                rows = connection.execute(
                    text(
                        "SELECT owner, count(*) FROM table_leases WHERE expires_at > "
                        "EXTRACT(EPOCH FROM clock_timestamp()) AND table_id IN (SELECT "
                        "table_id FROM table_definitions) GROUP BY owner"
                    )
                ).all()
        finally:
            engine.dispose()
        held = sorted(int(count) for _, count in rows)
        share = -(-table_count // self.workers)
        return (
            sum(held) == table_count
            and len(held) == min(self.workers, table_count)
            and (held[-1] <= share)
        )

    def _lobby(self) -> int:
        try:
            with urllib.request.urlopen(f"{self.url}/api/lobby", timeout=5) as answer:
                return len(json.loads(answer.read())["tables"])
        except (OSError, ValueError, KeyError):
            return 0

    # ------------------------------------------------------------------ measuring

    @property
    def redis_pid(self) -> int | None:
        return self.redis.process.pid if self.redis and self.redis.process else None

    @property
    def database_pid(self) -> int | None:
        return self.postgres.postmaster_pid() if self.postgres else None

    def room_pids(self) -> list[int]:
        """The workers, the gateways and nginx (its master and its worker)."""
        pids = [p.pid for p in self.processes.values() if p.poll() is None]
        if self.nginx is not None and self.nginx.process.poll() is None:
            pids += [self.nginx.process.pid, *children_of(self.nginx.process.pid)]
        return pids

    def database_pids(self) -> list[int]:
        main = self.database_pid
        return [main, *children_of(main)] if main else []

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far of the room's processes, the broker and the database (its
        backends, live and ended)."""
        database = self.database_pids()
        return {
            "room": cpu_seconds(self.room_pids()),
            "broker": cpu_seconds([self.redis_pid] if self.redis_pid else []),
            "database": cpu_seconds(database[:1], reaped=True) + cpu_seconds(database[1:]),
        }

    def broker_commands(self) -> int:
        """Redis's count of the commands it has processed (``INFO stats``)."""
        import redis

        if self.redis is None:
            return 0  # no broker (``single``)
        client = redis.Redis.from_url(self.broker)
        try:
            return int(client.info("stats")["total_commands_processed"])
        finally:
            client.close()

    def database_commits(self) -> int:
        """PostgreSQL's count of committed transactions (``pg_stat_database.xact_commit``, all
        databases: the statistics of the moment, flushed by the server about once a second)."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.db)
        try:
            with engine.connect() as connection:
                query = text("SELECT sum(xact_commit) FROM pg_stat_database")
                return int(connection.execute(query).scalar_one())
        finally:
            engine.dispose()

    # ------------------------------------------------------------------ stopping

    def stop(self) -> None:
        """Stop the gateways, then the workers (SIGINT: they stop their tables between
        writes), then nginx."""
        for role in ("gateway", "worker", "room"):
            group = [p for n, p in self.processes.items() if n.startswith(role)]
            for process in group:
                if process.poll() is None:
                    process.send_signal(signal.SIGINT)
            for process in group:
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if self.nginx is not None:
            self.nginx.stop()
            self.nginx = None

    def close(self) -> None:
        """Everything stopped and the folder removed."""
        try:
            self.stop()
        finally:
            if self.redis is not None:
                self.redis.stop()
                self.redis = None
            if self.postgres is not None:
                self.postgres.remove()
                self.postgres = None
            shutil.rmtree(self.folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/cluster",
        description="A local cluster to try: PostgreSQL and Redis as throwaway instances, "
        "workers and gateways behind nginx, the demo tables and house bots. Ctrl-C stops "
        "everything it started.",
    )
    parser.add_argument("--workers", type=int, default=2, metavar="W", help="default 2")
    parser.add_argument("--gateways", type=int, default=2, metavar="G", help="default 2")
    parser.add_argument(
        "--port", type=int, default=None, metavar="P", help="the room's port (default: a free one)"
    )
    parser.add_argument(
        "--tables", type=Path, default=DEMO_TABLES, metavar="FILE", help="default: the demo tables"
    )
    parser.add_argument(
        "--house-bots", type=int, default=None, metavar="N", help="per table (serve's default)"
    )
    args = parser.parse_args(argv)
    if args.workers < 1 or args.gateways < 1:
        parser.error("--workers and --gateways must be at least 1")
    if args.port is not None and not 0 < args.port < 65536:
        parser.error(f"--port must be 1..65535, got {args.port}")
    if not args.tables.is_file():
        parser.error(f"--tables: no such file {args.tables}")
    options = [] if args.house_bots is None else ["--house-bots", str(args.house_bots)]

    def say(line: str) -> None:
        print(f"feltroom cluster: {line}", flush=True)

    stopping: list[int] = []

    def interrupted(number: int, frame: Any) -> None:
        stopping.append(number)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    cluster = LocalCluster(
        workers=args.workers,
        gateways=args.gateways,
        tables=args.tables,
        worker_options=options,
        port=args.port,
        say=say,
    )
    try:
        say(f"files in {cluster.folder}")
        cluster.open_services()
        cluster.start()
        say(f"open {cluster.url}/  (Ctrl-C stops everything)")
        while all(p.poll() is None for p in cluster.processes.values()):
            time.sleep(0.5)
        ended = [n for n, p in cluster.processes.items() if p.poll() is not None]
        say(f"{', '.join(ended)} ended: stopping; its log: {cluster.log(ended[0])[-1500:]}")
        return 1
    except KeyboardInterrupt:
        say("stopping")
        return 0
    except (ServiceUnavailable, RuntimeError) as error:
        print(f"scripts/cluster: error: {error}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut it short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        cluster.close()
        say("stopped")


if __name__ == "__main__":
    sys.exit(main())

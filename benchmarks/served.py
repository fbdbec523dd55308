"""What the benchmarks that start a real room share: ``feltroom serve`` in a process of its own
on a free loopback port, its memory and CPU read from ``/proc``, and a percentile.

The benchmark scripts are loaded from this folder by ``feltroom bench`` (which puts the folder on
``sys.path``), so they import this module by its plain name.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from feltroom.ops.localcluster import cpu_seconds, rss_bytes


class ServedRoom:
    """``feltroom serve`` in its own process on a free loopback port, with its own SQLite file
    in ``folder``; ``options`` are the serve options beyond host, port and database."""

    def __init__(self, folder: Path, options: list[str]) -> None:
        self.folder = folder
        self.db = f"sqlite:///{folder / 'room.sqlite3'}"
        self.options = options
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def seed_accounts(self, names: list[str], password: str, chips: int) -> dict[str, str]:
        """Make the bots' accounts (see ``seed_accounts``): name -> token."""
        return seed_accounts(self.db, names, password, chips)

    def start(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        log = (self.folder / "server.log").open("w")
        command = [sys.executable, "-m", "feltroom.cli", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(port), "--db", self.db, *self.options]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "open http" not in line:
            raise RuntimeError(f"the server did not start: {self.log_tail()}")
        self.url = f"http://127.0.0.1:{port}"

    def pids(self) -> list[int]:
        """The room's processes: the server."""
        return [] if self.process is None else [self.process.pid]

    def rss_mb(self) -> float:
        """The server's resident memory (``VmRSS``) in MiB, to one decimal."""
        return round(rss_bytes(self.pids()) / 2**20, 1)

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user and system, all threads)."""
        return cpu_seconds(self.pids())

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def audit(self) -> bool:
        """``feltroom audit`` on the room's database; problems are printed to stderr."""
        return audit(self.db)

    def sample(self) -> dict[str, float]:
        """The counters a scenario reads at both ends of its window: the server's CPU seconds."""
        return {"cpu": self.cpu_seconds()}

    def close(self) -> None:
        """Nothing beyond ``stop``: the folder is the caller's."""
        self.stop()

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / "server.log").read_text("utf-8", "replace")[-2000:]
        return ""


def seed_accounts(db: str, names: list[str], password: str, chips: int) -> dict[str, str]:
    """Make the bots' accounts (a cheap password hash) with ``chips`` play chips and a session
    each in the database ``db`` (before the room starts, or while it runs): name -> token."""
    from feltroom.room import Accounts, Argon2Settings, Cashier
    from feltroom.store import open_storage

    storage = open_storage(db)
    try:
        accounts = Accounts(storage, argon2=Argon2Settings.cheap())
        cashier = Cashier(storage)
        tokens = {}
        for name in names:
            accounts.sign_up(name, password)
            cashier.grant(name, chips, f"bench:{name}")
            tokens[name] = accounts.sign_in(name, password).token
    finally:
        storage.close()
    return tokens


def audit(db: str) -> bool:
    """``feltroom audit`` on the database ``db``; problems are printed to stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "feltroom.cli", "audit", "--db", db, "--shuffles", "0"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(f"  audit printed no report: {done.stderr[-500:]}", file=sys.stderr)
        return False
    if not report.get("pass"):
        print(f"  audit problems: {report.get('problems', [])[:5]}", file=sys.stderr)
    return bool(report.get("pass"))


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (0.0 for none)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

"""What the benchmarks that start a real room share: ``feltroom serve`` in a process of its own
on a free loopback port, its memory and CPU read from ``/proc``, the bots' client processes
(``Children``), the room's ``/metrics`` histograms read back (``histogram_quantiles``) and a
percentile.

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
import urllib.request
from pathlib import Path
from typing import Any

from feltroom.ops.localcluster import cpu_seconds, rss_bytes


def loopback_config(folder: Path, connections: int, name: str = "room.toml") -> Path:
    """A settings file (``--config``) for a room or gateway whose bots all connect from
    127.0.0.1: the per-address cap on websocket connections (64 by default,
    ``[protocol] connections_per_address``) is lifted above ``connections``, so no bot is
    turned away (closed with 1008) and the benchmark measures every connection it reports."""
    path = folder / name
    path.write_text(f"[protocol]\nconnections_per_address = {connections + 64}\n", "utf-8")
    return path


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


class Children:
    """Client processes, each ``python SCRIPT --worker ARGS...`` (the script runs its own worker
    when its first argument is ``--worker``), driven over their standard input and output: one
    JSON command in, one JSON answer out."""

    def __init__(self, script: str, arguments: list[list[str]]) -> None:
        self.processes = [
            subprocess.Popen(
                [sys.executable, str(Path(script).resolve()), "--worker", *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for args in arguments
        ]

    def send(self, commands: list[dict[str, Any]]) -> None:
        """One command to each process (in order)."""
        for process, command in zip(self.processes, commands, strict=True):
            assert process.stdin is not None
            process.stdin.write(json.dumps(command) + "\n")
            process.stdin.flush()

    def receive(self) -> list[dict[str, Any]]:
        """One answer from each process (in order)."""
        answers = []
        for process in self.processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"a client process ended (exit {process.wait()})")
            answers.append(json.loads(line))
        return answers

    def ask(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.send(commands)
        return self.receive()

    def cpu_seconds(self) -> float:
        """The client processes' CPU time so far."""
        return cpu_seconds([process.pid for process in self.processes])

    def wait(self, timeout: float = 30) -> None:
        for process in self.processes:
            process.wait(timeout=timeout)

    def kill(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def metrics_text(url: str) -> str:
    """The room's ``/metrics`` exposition (the Prometheus text format)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as response:
        text: str = response.read().decode("utf-8")
    return text


def histogram_buckets(text: str, name: str) -> dict[float, float]:
    """The cumulative bucket counts of the histogram ``name`` in a Prometheus exposition
    (upper bound in seconds -> count, ``+Inf`` as ``inf``), labels summed."""
    cumulative: dict[float, float] = {}
    for line in text.splitlines():
        if not line.startswith(f"{name}_bucket"):
            continue
        labels, _, value = line.rpartition(" ")
        bound = labels.split('le="', 1)[1].split('"', 1)[0]
        le = float("inf") if bound == "+Inf" else float(bound)
        cumulative[le] = cumulative.get(le, 0.0) + float(value)
    return cumulative


def bucket_quantiles(
    cumulative: dict[float, float], fractions: tuple[float, ...] = (0.5, 0.99)
) -> dict[str, Any]:
    """Quantiles of a histogram's cumulative buckets (``histogram_buckets``), estimated as
    Prometheus' ``histogram_quantile`` does: linearly within the bucket the rank falls in. Also
    ``count`` and ``pNN_bucket_ms``: the bucket bounds (ms) the estimate lies between, so a
    reader sees how coarse it is. Quantiles in milliseconds."""
    bounds = sorted(cumulative)
    total = cumulative.get(float("inf"), 0.0)
    result: dict[str, Any] = {"count": int(total)}
    for fraction in fractions:
        key = f"p{round(fraction * 100):d}"
        if total <= 0:
            result[key] = 0.0
            continue
        rank = fraction * total
        lower, below = 0.0, 0.0
        for le in bounds:
            if cumulative[le] >= rank:
                if le == float("inf"):  # past the last finite bound: that bound is all we know
                    result[key] = round(1000 * lower, 1)
                else:
                    inside = cumulative[le] - below
                    share = (rank - below) / inside if inside > 0 else 1.0
                    result[key] = round(1000 * (lower + (le - lower) * share), 1)
                result[f"{key}_bucket_ms"] = [round(1000 * lower, 1), round(1000 * le, 1)]
                break
            lower, below = le, cumulative[le]
    return result


def histogram_quantiles(
    text: str, name: str, fractions: tuple[float, ...] = (0.5, 0.99)
) -> dict[str, Any]:
    """``bucket_quantiles`` of the histogram ``name`` in a Prometheus exposition."""
    return bucket_quantiles(histogram_buckets(text, name), fractions)

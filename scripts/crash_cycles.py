"""Kill the room with SIGKILL at random moments, restart it, and audit the books after each restart.

    .venv/bin/python scripts/crash_cycles.py --cycles 100 [--seed S] [--db-dir DIR]

Each cycle starts ``feltroom serve`` (house bots acting at once, the demo tables, a temporary
SQLite file kept across cycles, a free loopback port), waits until it serves, lets it play for a
random moment, kills it with SIGKILL and then checks, from the database alone:

- the audit passes (``feltroom.room.audit`` without the shuffle self-test: every currency sums to
  zero, every settled hand balances, each table's escrow equals its stacks, no transfer twice);
- after the restart, every hand the previous run left unsettled is void (each stack exactly its
  start-of-hand value: nothing moves in the ledger during a hand, which the audit confirms);
- nothing settled twice: a hand once settled stays settled with the same figures;
- hand ids are never reused: every hand keeps its table and start time across restarts, and the
  hands of a run all have ids above those of the runs before.

Prints one JSON object: ``{"cycles": n, "hands_settled": ..., "hands_voided": ..., "problems":
[...], "pass": true|false}``; exits 0 only if every cycle passed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FELTROOM = [sys.executable, "-m", "feltroom.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hands_of(url: str) -> dict[int, tuple[str, str, float, int, int]]:
    """Every stored hand: id -> (table, status, started_at, rake, fee)."""
    from feltroom.store import open_storage

    storage = open_storage(url)
    try:
        with storage.engine.connect() as connection:
            rows = connection.exec_driver_sql(
                "SELECT hand_id, table_id, status, started_at, rake, fee FROM hands"
            ).all()
    finally:
        storage.close()
    return {int(r[0]): (str(r[1]), str(r[2]), float(r[3]), int(r[4]), int(r[5])) for r in rows}


def audit_of(url: str) -> dict[str, Any]:
    from feltroom.room import audit
    from feltroom.store import open_storage

    storage = open_storage(url)
    try:
        return audit(storage, shuffles=0)
    finally:
        storage.close()


def start(url: str, port: int, bots: int, log: Any, *extra: str) -> subprocess.Popen[bytes]:
    """``feltroom serve`` with house bots acting at once (``extra``: more options)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    command = [
        *FELTROOM,
        "serve",
        "--port",
        str(port),
        "--db",
        url,
        "--house-bots",
        str(bots),
        "--bot-think",
        "0",
        *extra,
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, env=env, cwd=ROOT)


def wait_ready(process: subprocess.Popen[bytes], timeout: float) -> bool:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    seen = b""
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            chunk = b""
        if chunk:
            seen += chunk
            if b"http://" in seen:
                return True
        if process.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def run_cycles(
    cycles: int,
    folder: Path,
    *,
    seed: int | None = None,
    bots: int = 3,
    low: float = 0.2,
    high: float = 2.0,
    ready_timeout: float = 90.0,
) -> dict[str, Any]:
    rng = random.Random(seed)
    url = f"sqlite:///{folder / 'crash.sqlite3'}"
    problems: list[str] = []
    before: dict[int, tuple[str, str, float, int, int]] = {}
    voided_total = kills = 0
    log_path = folder / "serve.log"
    with log_path.open("a") as log:
        for cycle in range(1, cycles + 1):
            process = start(url, free_port(), bots, log)
            try:
                if not wait_ready(process, ready_timeout):
                    problems.append(f"cycle {cycle}: the server did not start (see {log_path})")
                    break
                # The restart is done: what the last run left unsettled must be void now.
                now = hands_of(url)
                for hand_id, (table, status, started, rake, fee) in before.items():
                    after = now.get(hand_id)
                    if after is None or after[0] != table or after[2] != started:
                        problems.append(f"cycle {cycle}: hand {hand_id} changed or vanished")
                    elif status == "started" and after[1] != "void":
                        problems.append(
                            f"cycle {cycle}: unsettled hand {hand_id} is {after[1]}, not void"
                        )
                    elif status in ("settled", "void") and after[1:] != (
                        status,
                        started,
                        rake,
                        fee,
                    ):
                        problems.append(f"cycle {cycle}: hand {hand_id} was {status}, now {after}")
                top = max(before, default=0)
                # Hands begun before the previous kill were counted; new ones must be above.
                time.sleep(rng.uniform(low, high))
            finally:
                process.send_signal(signal.SIGKILL)
                process.wait()
                kills += 1
            after_kill = hands_of(url)
            new = [h for h in after_kill if h not in before]
            if new and min(new) <= top:
                problems.append(f"cycle {cycle}: hand id {min(new)} reused (ids up to {top})")
            report = audit_of(url)
            if not report["pass"]:
                problems.append(f"cycle {cycle}: audit failed: {report['problems'][:3]}")
            voided_total += sum(
                1 for h, row in before.items() if row[1] == "started" and after_kill[h][1] == "void"
            )
            before = after_kill
            if problems:
                break
    final = audit_of(url)
    if not final["pass"]:
        problems.append(f"final audit failed: {final['problems'][:3]}")
    statuses = [row[1] for row in before.values()]
    return {
        "cycles": kills,
        "hands": len(before),
        "hands_settled": statuses.count("settled"),
        "hands_voided": statuses.count("void"),
        "unsettled_hands_voided_at_restart": voided_total,
        "problems": problems,
        "pass": not problems and kills == cycles,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--house-bots", type=int, default=3)
    parser.add_argument("--db-dir", default=None, help="keep the database in this folder")
    args = parser.parse_args(argv)
    folder = Path(args.db_dir) if args.db_dir else Path(tempfile.mkdtemp(prefix="feltroom-crash-"))
    folder.mkdir(parents=True, exist_ok=True)
    start_time = time.monotonic()
    try:
        summary = run_cycles(args.cycles, folder, seed=args.seed, bots=args.house_bots)
    finally:
        if not args.db_dir:
            shutil.rmtree(folder, ignore_errors=True)
    summary["seconds"] = round(time.monotonic() - start_time, 1)
    print(json.dumps(summary))
    return 0 if summary["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""`feltroom bench room [--tables T] [--seconds S] [--json]`: hands settled per second by the room.

T tables (the shipped demo tables, repeated: Fixed-Limit, Pot-Limit and No-Limit, heads-up to
10-max) full of house bots run without any of the room's pacing (``RuntimeSettings.unpaced``:
bots act at once, ``bot_think`` 0; no pause between hands, ``between_hands`` 0; none after a
showdown, ``after_showdown`` 0; the report says so) and with clocks not waited on, in one
process for S seconds, exactly as ``feltroom serve`` runs them: one asyncio task per table, the
single writer settling every waiting hand in one transaction, persistence on in a temporary
SQLite file (WAL, ``synchronous=FULL``). Counted: hands settled (committed) after a warm-up of
one second. Then the books are audited (``feltroom audit``
without the shuffle self-test).

``--json`` prints exactly ``{"tables": T, "hands": n, "hands_per_second": r, "audit": true|false}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from feltroom.room import Accounts, Cashier, Settlement, audit
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import TableSpec, load_tables
from feltroom.store import open_storage


def _tables(count: int) -> list[TableSpec]:
    demo = load_tables(None)
    specs = []
    for k in range(count):
        spec = demo[k % len(demo)]
        specs.append(replace(spec, table_id=f"{spec.table_id}.{k // len(demo) + 1}"))
    return specs


async def _run(runtime: RoomRuntime, seconds: float, warm_up: float) -> tuple[int, float]:
    await runtime.start()
    task = asyncio.create_task(runtime.run())
    await asyncio.sleep(warm_up)
    first, start = runtime.hands_settled, time.perf_counter()
    await asyncio.sleep(seconds)
    hands, elapsed = runtime.hands_settled - first, time.perf_counter() - start
    await runtime.stop()
    await task
    return hands, elapsed


def room_settings(house_bots: int) -> RuntimeSettings:
    """The benchmark's room: every pause off (``RuntimeSettings.pauses`` all 0), the random
    brain (the figures are for it), no shuffle self-test."""
    return RuntimeSettings(
        house_bots=house_bots,
        bot_style="random",
        selftest_first=float("inf"),
    ).unpaced()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench room", description=__doc__)
    parser.add_argument("--tables", type=int, default=48, metavar="T")
    parser.add_argument("--seconds", type=float, default=10.0, metavar="S")
    parser.add_argument("--house-bots", type=int, default=5, metavar="N", help="bots per table")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables must be at least 1 and --seconds positive")
    logging.basicConfig(level=logging.WARNING)
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-room-"))
    try:
        storage = open_storage(f"sqlite:///{folder / 'room.sqlite3'}")
        settings = room_settings(args.house_bots)
        runtime = RoomRuntime(
            Settlement(storage),
            Accounts(storage),
            Cashier(storage),
            _tables(args.tables),
            settings=settings,
        )
        hands, elapsed = asyncio.run(_run(runtime, args.seconds, min(1.0, args.seconds / 5)))
        report = audit(storage, shuffles=0)
        storage.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    rate = round(hands / elapsed, 1) if elapsed > 0 else 0.0
    if args.json:
        print(
            json.dumps(
                {
                    "tables": args.tables,
                    "hands": hands,
                    "hands_per_second": rate,
                    "audit": bool(report["pass"]),
                }
            )
        )
    else:
        off = ", ".join(f"{name}=0" for name in settings.pauses())
        print(f"pacing off: {off}")
        print(
            f"{args.tables} tables, {hands} hands settled in {elapsed:.1f} s: "
            f"{rate} hands/s; audit {'pass' if report['pass'] else 'FAIL'}"
        )
        for problem in report["problems"][:5]:
            print(f"  {problem}")
    return 0 if report["pass"] else 1

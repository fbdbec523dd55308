"""`feltroom bench failover [--cycles N] [--tables T] [--json]`: workers killed under load, and
how long their tables take to come back (docs/cluster.md, docs/performance.md).

It starts its own local cluster: a throwaway PostgreSQL and a throwaway Redis (the tests'
``tests/services.py`` servers, installed from Debian's packages when missing), two workers
(``feltroom serve --role worker``, lease ``--lease`` seconds, house bots at every table: the
bot load) and one gateway. Then, ``--cycles`` times: once both workers own tables, a random one
of them is killed (SIGKILL) and the other takes its tables over; the takeover time of each of
the dead worker's tables is the time from the kill to the new owner's first event at that
table (the timestamp in the batch it publishes, the same host's clock); the killed worker is
started again, and the next cycle waits until the tables are spread over both again.

At the end the books are read back from PostgreSQL: ``hands_voided`` the hands void by the
takeovers (each voids the hand in progress at each table it takes; read before the workers are
stopped, which voids their hands in play too); ``chips_lost`` the chips missing
from the books (each table's escrow against the stacks stored there, and each currency's
balances against zero: a chip created or lost shows in one of them); ``double_settlements``
the transfer ids that occur twice and the hands whose payouts differ from their contributions
(a hand settled twice shows in both); ``audit`` whether ``feltroom audit`` passes.

``--json`` prints exactly ``{"cycles", "takeover_seconds": {"p50", "max"}, "hands_voided",
"chips_lost", "double_settlements", "audit"}``. Target over 20 cycles: p50 at most 5 s, max at
most 10 s, no chip lost, no hand settled twice.

``--tournament --players N`` kills the worker that owns a running multi-table tournament
instead (N house-bot accounts registered, 9 a table, deep stacks so that it is still running
after the cycles), ``--cycles`` times: the takeover time is from the kill to the new owner's
first event at any of the tournament's tables. ``--json`` then prints ``{"cycles",
"players", "takeover_seconds": {"p50", "max"}, "hands_voided", "chips_lost",
"prizes_paid_twice", "audit"}``: ``chips_lost`` the tournament chips missing from (or added
to) the journal's replay (every entry's stack against the entries' starting stacks) plus the
money checks above; ``prizes_paid_twice`` the players whose wallet holds more than the prize
their final place gave (each was granted exactly the entry's cost).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

from cluster.support import Workers, leases, wait_for  # noqa: E402
from feltroom.cluster.client import TableClient  # noqa: E402
from feltroom.room import audit  # noqa: E402
from feltroom.store import open_storage  # noqa: E402
from services import PostgresServer, RedisServer  # noqa: E402


def tables_file(count: int) -> str:
    return "".join(
        f'[[table]]\nid = "f{k}"\npreset = "nl_25_50"\nmax_seats = 6\n\n'
        for k in range(1, count + 1)
    )


def _owners(storage: Any) -> dict[str, tuple[str, int]]:
    return {t: (row.owner, row.epoch) for t, row in leases(storage).items()}


def _pid_of(owner: str) -> int:
    return int(owner.split(".")[0].rsplit("-", 1)[1])


def books(storage: Any) -> dict[str, int]:
    """The measured figures of the books (see the module docstring)."""
    with storage.transaction(write=False) as tx:
        derived = tx.derived_balances()
        accounts = tx.all_accounts()
        stacks = tx.stack_totals()
        tables = tx.all_tables()
        duplicates = tx.duplicate_transfer_ids()
        imbalances = tx.hand_imbalances()
        voided = tx.c.exec_driver_sql("SELECT count(*) FROM hands WHERE status = 'void'")
        hands_voided = int(voided.scalar_one())
    sums: dict[str, int] = {}
    for row in accounts:
        sums[row.currency] = sums.get(row.currency, 0) + derived.get(row.key, 0)
    lost = sum(abs(total) for total in sums.values())
    from feltroom.room.ledger import escrow_key

    for table in tables:
        lost += abs(derived.get(escrow_key(table.table_id), 0) - stacks.get(table.table_id, 0))
    return {
        "hands_voided": hands_voided,
        "chips_lost": lost,
        "double_settlements": len(duplicates) + len(imbalances),
    }


async def _first_events(
    client: TableClient, tables: list[str], seen: dict[str, list[tuple[int, float]]]
) -> None:
    """Record (epoch, publish time) of every batch of every table."""

    async def one(table_id: str) -> None:
        async for batch in client.watch(table_id):
            seen.setdefault(table_id, []).append((int(batch["epoch"] or 0), float(batch["at"])))

    await asyncio.gather(*(one(t) for t in tables))


def run(cycles: int, table_count: int, lease: float, think: float, folder: Path) -> dict[str, Any]:
    postgres = PostgresServer()
    redis = RedisServer()
    storage = None
    try:
        storage = open_storage(postgres.url)
        cluster = Workers(folder, postgres.url, redis.url, lease=lease, think=think)
        cluster.tables.write_text(tables_file(table_count))
        samples: list[float] = []
        try:
            cluster.start("w0", load_tables=True)
            cluster.start("w1")
            cluster.start_gateway("gateway")
            tables = [f"f{k}" for k in range(1, table_count + 1)]
            samples = asyncio.run(_cycles(cluster, storage, tables, cycles))
            # The takeovers' void hands (stopping the workers below voids their hands too).
            voided = books(storage)["hands_voided"]
        finally:
            cluster.stop_all()
        figures = {**books(storage), "hands_voided": voided}
        report = audit(storage, shuffles=0)
    finally:
        if storage is not None:
            storage.close()
        redis.stop()
        postgres.remove()
    return {
        "cycles": cycles,
        "takeover_seconds": {
            "p50": round(statistics.median(samples), 2) if samples else None,
            "max": round(max(samples), 2) if samples else None,
        },
        "hands_voided": figures["hands_voided"],
        "chips_lost": figures["chips_lost"],
        "double_settlements": figures["double_settlements"],
        "audit": bool(report["pass"]),
    }


async def _cycles(cluster: Workers, storage: Any, tables: list[str], cycles: int) -> list[float]:
    client = TableClient(cluster.broker)
    await client.start()
    seen: dict[str, list[tuple[int, float]]] = {}
    watcher = asyncio.create_task(_first_events(client, tables, seen))
    samples: list[float] = []
    try:
        for cycle in range(cycles):

            def spread() -> dict[str, tuple[str, int]] | None:
                owners = _owners(storage)
                live = {o for o, _ in owners.values()}
                return owners if len(owners) == len(tables) and len(live) == 2 else None

            owners = await asyncio.to_thread(wait_for, "the tables over both workers", spread, 120)
            names = {proc.pid: name for name, proc in cluster.processes.items()}
            victim_owner = random.choice(sorted({o for o, _ in owners.values()}))
            victim = names[_pid_of(victim_owner)]
            lost = {t: epoch for t, (o, epoch) in owners.items() if o == victim_owner}
            killed_at = cluster.kill(victim)
            for table_id, epoch in lost.items():

                def back(table_id: str = table_id, epoch: int = epoch) -> float | None:
                    after = [at for e, at in seen.get(table_id, ()) if e > epoch]
                    return min(after) if after else None

                at = await _wait(f"table {table_id} taken over", back, 60)
                samples.append(max(0.0, at - killed_at))
            print(
                f"cycle {cycle + 1}/{cycles}: killed {victim}, {len(lost)} tables back in "
                f"{max(samples[-len(lost) :]):.2f} s at most",
                file=sys.stderr,
                flush=True,
            )
            cluster.start(victim)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await client.close()
    return samples


TOURNAMENT = "bench-mtt-1"


def tournament_file(players: int) -> str:
    return tables_file(1) + (  # (a tables file has a table at least)
        '[[tournament]]\nid = "bench-mtt"\nformat = "sng"\nseats_per_table = 9\n'
        f"max_entries = {players}\nstarting_stack = 100000\nbuy_in = 1000\nfee = 100\n"
        'schedule = "regular"\n'
    )


def run_tournament(
    cycles: int, players: int, lease: float, think: float, folder: Path
) -> dict[str, Any]:
    from feltroom.room import Accounts, Argon2Settings, Cashier

    postgres = PostgresServer()
    redis = RedisServer()
    storage = None
    names = [f"mb{k}" for k in range(1, players + 1)]
    try:
        storage = open_storage(postgres.url)
        accounts = Accounts(storage, argon2=Argon2Settings.cheap())
        for name in names:  # house bots' accounts, each with exactly the entry's cost
            accounts.ensure_bot(name)
            Cashier(storage).grant(name, 1100, f"{name}-grant")
        cluster = Workers(folder, postgres.url, redis.url, lease=lease, think=think, house_bots=0)
        cluster.tables.write_text(tournament_file(players))
        try:
            cluster.start("w0", load_tables=True)
            cluster.start("w1")
            wait_for("a worker to own the tournament", lambda: leases(storage).get(TOURNAMENT), 120)
            tables = [f"{TOURNAMENT}.{k}" for k in range(1, (players + 8) // 9 + 1)]
            samples = asyncio.run(_tournament_cycles(cluster, storage, names, tables, cycles))
        finally:
            cluster.stop_all()
        figures = _tournament_books(storage, names)
        report = audit(storage, shuffles=0)
    finally:
        if storage is not None:
            storage.close()
        redis.stop()
        postgres.remove()
    return {
        "cycles": cycles,
        "players": players,
        "takeover_seconds": {
            "p50": round(statistics.median(samples), 2) if samples else None,
            "max": round(max(samples), 2) if samples else None,
        },
        **figures,
        "audit": bool(report["pass"]),
    }


async def _tournament_cycles(
    cluster: Workers, storage: Any, names: list[str], tables: list[str], cycles: int
) -> list[float]:
    client = TableClient(cluster.broker, timeout=30.0)
    await client.start()
    seen: dict[str, list[tuple[int, float]]] = {}
    watcher = asyncio.create_task(_first_events(client, tables, seen))
    samples: list[float] = []
    try:
        await asyncio.sleep(0.5)  # (subscribed)
        await asyncio.gather(*(client.call(TOURNAMENT, "register", name) for name in names))
        await _wait("the tournament's first hands", lambda: seen or None, 120)
        processes = {proc.pid: name for name, proc in cluster.processes.items()}
        for cycle in range(cycles):
            lease = await asyncio.to_thread(leases, storage)
            row = lease[TOURNAMENT]
            victim = processes[_pid_of(row.owner)]
            await asyncio.sleep(2.0)  # (hands in play)
            killed_at = cluster.kill(victim)

            def back(epoch: int = row.epoch) -> float | None:
                after = [at for t in tables for e, at in seen.get(t, ()) if e > epoch]
                return min(after) if after else None

            at = await _wait("the tournament taken over", back, 60)
            samples.append(max(0.0, at - killed_at))
            print(
                f"cycle {cycle + 1}/{cycles}: killed {victim}, the tournament back in "
                f"{samples[-1]:.2f} s",
                file=sys.stderr,
                flush=True,
            )
            process = cluster.start(victim)
            processes[process.pid] = victim
            await asyncio.to_thread(
                wait_for,
                f"{victim} to run",
                lambda v=victim: "runs, lease" in cluster.log(v)[-4000:],
                60,
            )
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await client.close()
    return samples


def _tournament_books(storage: Any, names: list[str]) -> dict[str, int]:
    """``hands_voided``, ``chips_lost``, ``prizes_paid_twice`` (see the module docstring)."""
    from feltroom.room.ledger import player_wallet_key
    from feltroom.room.tournament_journal import replay

    with storage.transaction(write=False) as tx:
        row = tx.get_tournament(TOURNAMENT)
        journal = tx.journal(TOURNAMENT)
        wallets = {}
        for name in names:
            wallet = tx.get_account(player_wallet_key(tx, name, "PLAY"))
            wallets[name] = 0 if wallet is None else wallet.balance
    director = replay(row, journal).director
    entries = [e for e in director.entries if not e.unregistered]
    chips = sum(e.stack for e in entries)
    lost = abs(chips - len(entries) * director.settings.starting_stack)
    voided = sum(
        1 for r in journal if r.kind == "hand_finished" and json.loads(r.payload).get("void")
    )
    prizes = {e.account: (e.prize or 0) if e.place is not None else 0 for e in entries}
    twice = sum(1 for name in names if wallets[name] > prizes.get(name, 0))
    money = books(storage)
    return {
        "hands_voided": voided,
        "chips_lost": lost + money["chips_lost"],
        "prizes_paid_twice": twice + money["double_settlements"],
    }


async def _wait(what: str, check: Any, seconds: float) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting {seconds} s for {what}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench failover", description=__doc__)
    parser.add_argument("--cycles", type=int, default=5, help="workers killed (default 5)")
    parser.add_argument("--tables", type=int, default=4, help="tables (default 4)")
    parser.add_argument("--lease", type=float, default=3.0, help="lease seconds (default 3)")
    parser.add_argument(
        "--bot-think", type=float, default=0.6, help="house bots' longest think (default 0.6 s)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--tournament", action="store_true", help="kill the owner of a running tournament"
    )
    parser.add_argument(
        "--players", type=int, default=300, help="--tournament: its players (default 300)"
    )
    args = parser.parse_args(argv)
    if args.tournament:
        if args.players < 18:
            parser.error("--players must be at least 18 (two tables)")
        with tempfile.TemporaryDirectory(prefix="feltroom-failover-") as folder:
            result = run_tournament(
                args.cycles, args.players, args.lease, args.bot_think, Path(folder)
            )
        if args.json:
            print(json.dumps(result))
        else:
            t = result["takeover_seconds"]
            print(
                f"{result['cycles']} owners of a {result['players']}-player tournament killed: "
                f"takeover p50 {t['p50']} s, max {t['max']} s; {result['hands_voided']} hands "
                f"void, {result['chips_lost']} chips lost, {result['prizes_paid_twice']} prizes "
                f"paid twice; audit {'pass' if result['audit'] else 'FAIL'}"
            )
        ok = result["audit"] and result["chips_lost"] == 0 and result["prizes_paid_twice"] == 0
        return 0 if ok else 1
    if args.cycles < 1 or args.tables < 2:
        parser.error("--cycles must be at least 1 and --tables at least 2")
    with tempfile.TemporaryDirectory(prefix="feltroom-failover-") as folder:
        try:
            result = run(args.cycles, args.tables, args.lease, args.bot_think, Path(folder))
        except BaseException as error:  # the servers' fixtures skip or fail outside pytest
            if type(error).__name__ not in ("Skipped", "Failed"):
                raise
            print(f"feltroom bench failover: {error}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(result))
    else:
        t = result["takeover_seconds"]
        print(
            f"{result['cycles']} workers killed: takeover p50 {t['p50']} s, max {t['max']} s; "
            f"{result['hands_voided']} hands void, {result['chips_lost']} chips lost, "
            f"{result['double_settlements']} double settlements; audit "
            f"{'pass' if result['audit'] else 'FAIL'}"
        )
    ok = result["audit"] and result["chips_lost"] == 0 and result["double_settlements"] == 0
    return 0 if ok else 1

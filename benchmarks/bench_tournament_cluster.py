"""`feltroom bench tournament --cluster [--workers W] [--gateways G] [--tournaments K]`: `bench
tournament` on the local cluster (docs/performance.md, "Tournament on the local cluster").

The cluster is ``feltroom.ops.localcluster`` (as ``bench cluster`` starts it): a throwaway
PostgreSQL and Redis, ``--workers`` workers (``--house-bots 0 --bot-think 0``, direct links,
each with a metrics listener of its own) and ``--gateways`` gateways (nginx in front of two or
more; their per-address cap on connections lifted above the bots' number, all on loopback).
The tables file holds `bench tournament`'s cash table and ``--tournaments`` sit-and-gos
(ids ``bench``, or ``bench1``..``benchK``) of ``--players`` entries each, `bench tournament`'s
settings otherwise; each instance is leased by one worker and runs there with all its tables.
The accounts, play chips and sessions are made in PostgreSQL before the room starts; the bots
(`bench tournament`'s: random brains, no think time) register over HTTP through the room's one
address and play over the websocket, all the tournaments at once: in the benchmark's process,
or with ``--bot-processes N`` spread over N child processes (each runs its share of every
tournament's bots; a sit-and-go starts with its last registration, whichever process sends it).

The JSON line has `bench tournament`'s fields, over the tournaments: ``players`` (each
tournament's), ``state`` (``finished`` when every one did, else the states seen), the wall time,
hands, the bots' action latency (their ``turn`` to the answer to their ``act``), move and
break-up latencies, ``rss_mb`` (the workers', gateways' and nginx's), ``places_ok`` (every
tournament gave its places 1..N once each), ``prizes_paid`` and ``prize_pool`` (summed; these
three from each tournament's books, its journal replayed, once the room stopped: a worker's
lobby serves only its last five results), ``audit`` (``feltroom audit`` after the room
stopped); plus ``workers``, ``gateways``, ``tournaments``, ``bot_processes``,
``tournaments_by_worker`` (how many each worker took, from its log), and
``server_action_ms``: ``p50``, ``p99`` and ``count`` of ``feltroom_action_broadcast_seconds``
(the owner's time from a player's action received to its batch queued for the gateways), its
bucket counts summed over every worker's ``/metrics`` (read before the bots start and after
the last result, the difference), each quantile interpolated in its bucket as Prometheus's
``histogram_quantile`` does; ``le_150ms`` is the share of actions in the buckets up to 150 ms
(a bucket bound: exact).
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench_tournament import CASH, PASSWORD, TOURNAMENT, _get, _ms, places_ok
from feltroom.ops.localcluster import LocalCluster, rss_bytes
from served import audit, bucket_quantiles, histogram_buckets, loopback_config, seed_accounts

HISTOGRAM = "feltroom_action_broadcast_seconds"


def tables_file(folder: Path, players: int, tournaments: int, level_minutes: int | None) -> Path:
    """`bench tournament`'s cash table and ``tournaments`` sit-and-gos of ``players``."""
    minutes = "" if level_minutes is None else f"level_minutes = {level_minutes}\n"
    text = CASH
    for spec_id in spec_ids(tournaments):
        one = TOURNAMENT.format(players=players, level_minutes=minutes)
        text += one.replace('id = "bench"', f'id = "{spec_id}"', 1)
    path = folder / "tables.toml"
    path.write_text(text, "utf-8")
    return path


def spec_ids(tournaments: int) -> list[str]:
    return ["bench"] if tournaments == 1 else [f"bench{k}" for k in range(1, tournaments + 1)]


# ---------------------------------------------------------------------- the workers' histogram


def scrape(urls: list[str]) -> dict[float, float]:
    """The action histogram's cumulative bucket counts (upper bound -> count, +Inf as inf)
    summed over the processes at ``urls`` (their ``/metrics``)."""
    summed: dict[float, float] = {}
    for url in urls:
        with urllib.request.urlopen(url, timeout=30) as response:
            text = response.read().decode()
        for bound, count in histogram_buckets(text, HISTOGRAM).items():
            summed[bound] = summed.get(bound, 0.0) + count
    return summed


def server_action_ms(before: dict[float, float], after: dict[float, float]) -> dict[str, Any]:
    """The action histogram's quantiles over the window between two ``scrape``s, and the share
    of the actions at or under 150 ms (a bucket's bound: exact)."""
    window = {bound: after[bound] - before.get(bound, 0.0) for bound in after}
    count = window.get(float("inf"), 0.0)
    quantiles = bucket_quantiles(window)
    return {
        "p50": quantiles["p50"],
        "p99": quantiles["p99"],
        "count": int(count),
        "le_150ms": round(window.get(0.15, 0.0) / count, 4) if count else None,
    }


# ---------------------------------------------------------------------- the bots


@dataclasses.dataclass
class Share:
    """One process's bots: for each tournament instance, its accounts' tokens."""

    url: str
    tokens: dict[str, dict[str, str]]
    seed: int
    limit: float


def play(share: Share) -> dict[str, Any]:
    """Run a share of the bots to the end (in this process); each tournament's run."""
    from feltroom.bots.runner import BotSettings
    from feltroom.bots.tournament import run_tournament_bots

    async def every() -> list[Any]:
        runs = []
        for k, (instance, tokens) in enumerate(share.tokens.items()):
            settings = BotSettings(
                share.url, len(tokens), think=0.0, style="random", seed=share.seed + k
            )
            runs.append(run_tournament_bots(settings, instance, tokens, share.limit))
        return list(await asyncio.gather(*runs))

    return {run.tournament: run for run in asyncio.run(every())}


def _child(share: Share) -> dict[str, Any]:
    """``play`` in a child process: its runs as plain data."""
    return {
        instance: {
            "state": run.state,
            "latencies": run.latencies,
            "move_latencies": run.move_latencies,
            "hands": sorted(run.hands),
            "bots": [dataclasses.asdict(bot) for bot in run.bots],
        }
        for instance, run in play(share).items()
    }


def play_in(processes: int, shares: list[Share]) -> dict[str, Any]:
    """Each share in a child process of its own (spawned: a clean interpreter each); the runs
    of each tournament merged."""
    from feltroom.bots.tournament import TournamentBot, TournamentRun

    context = multiprocessing.get_context("spawn")
    merged: dict[str, Any] = {}
    # (a child whose bots fail raises here at once, and leaving the pool ends the others,
    # whose bots would wait for a start that never comes)
    with context.Pool(processes) as pool:
        for done in pool.map(_child, shares):
            for instance, part in done.items():
                run = merged.setdefault(instance, TournamentRun(instance, [], 0.0))
                run.bots += [TournamentBot(**bot) for bot in part["bots"]]
                run.latencies += part["latencies"]
                run.move_latencies += [tuple(m) for m in part["move_latencies"]]
                run.hands |= {tuple(h) for h in part["hands"]}
                if part["state"] == "timed out" or run.state == "timed out":
                    run.state = "timed out"
    for run in merged.values():
        if run.state == "running" and all(b.place is not None for b in run.bots):
            run.state = "finished"
    return merged


# ---------------------------------------------------------------------- the run


def run(
    *,
    players: int,
    tournaments: int,
    workers: int,
    gateways: int,
    bot_processes: int,
    level_minutes: int | None,
    seed: int,
    limit: float,
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-tournament-cluster-"))
    cluster = LocalCluster(
        workers=workers,
        gateways=gateways,
        tables=tables_file(folder, players, tournaments, level_minutes),
        worker_options=["--house-bots", "0", "--bot-think", "0"],
        gateway_options=[
            "--config",
            str(loopback_config(folder, players * tournaments, "gateway.toml")),
        ],
        say=lambda line: print(f"  [cluster] {line}", file=sys.stderr, flush=True),
        metrics=True,
    )
    instances = [f"{spec_id}-1" for spec_id in spec_ids(tournaments)]
    try:
        cluster.open_services()
        names = [f"tb{k}" for k in range(players * tournaments)]
        tokens = seed_accounts(cluster.db, names, PASSWORD, 10_000)
        url = cluster.start()
        _wait_open(url, instances)
        metrics = list(cluster.metrics_urls.values())
        before = _first_scrape(metrics)
        groups = {
            instance: {n: tokens[n] for n in names[k * players : (k + 1) * players]}
            for k, instance in enumerate(instances)
        }
        started = time.monotonic()
        if bot_processes == 0:
            runs = play(Share(url, groups, seed, limit))
        else:
            shares = [
                Share(
                    url,
                    {
                        instance: dict(list(group.items())[p::bot_processes])
                        for instance, group in groups.items()
                        if list(group)[p::bot_processes]
                    },
                    seed + 1000 * p,
                    limit,
                )
                for p in range(bot_processes)
            ]
            runs = play_in(bot_processes, shares)
        wall = time.monotonic() - started
        after = scrape(metrics)
        rss = round(rss_bytes(cluster.room_pids()) / 2**20, 1)
        cluster.stop()
        owners = {  # (each worker's log says which tournaments it took)
            name: sorted(set(re.findall(r"tournament (\S+) taken", cluster.log(name))))
            for name in cluster.metrics_urls
        }
        details = results(cluster.db, instances)
        passed = audit(cluster.db)
    finally:
        cluster.close()
    line = report(players, runs, details, wall, rss, passed)
    line |= {
        "workers": workers,
        "gateways": gateways,
        "tournaments": tournaments,
        "bot_processes": bot_processes,
        "tournaments_by_worker": {name: len(taken) for name, taken in owners.items()},
        "server_action_ms": server_action_ms(before, after),
    }
    if passed and line["places_ok"]:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        line["folder"] = str(folder)
    return line


def _first_scrape(urls: list[str], seconds: float = 180.0) -> dict[float, float]:
    """``scrape`` once every worker's listener answers (a worker that holds nothing yet may
    still be starting when the room serves)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return scrape(urls)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _wait_open(url: str, instances: list[str], seconds: float = 180.0) -> None:
    """Every instance registering (or past it) in the room's list: its owner runs it."""
    deadline = time.monotonic() + seconds
    missing = set(instances)
    while time.monotonic() < deadline:
        try:
            listed = _get(f"{url}/api/tournaments")
        except OSError:
            listed = {}
        rows = listed.get("tournaments", []) if isinstance(listed, dict) else listed
        missing = set(instances) - {row.get("id") for row in rows if isinstance(row, dict)}
        if not missing:
            return
        time.sleep(0.2)
    raise RuntimeError(f"gave up waiting {seconds:.0f} s for tournaments {sorted(missing)}")


def results(db: str, instances: list[str]) -> dict[str, Any]:
    """Each tournament's state, prize pool and places as its books hold them (its journal
    replayed, as a new owner rebuilds it): the fields of ``GET /api/tournaments/{id}`` the
    report reads. (A worker's lobby keeps its last few results only: with more tournaments
    than that finished on one worker, the first are no longer served.)"""
    from feltroom.room.tournament_journal import replay
    from feltroom.store import open_storage

    storage = open_storage(db)
    found: dict[str, Any] = {}
    try:
        for instance in instances:
            with storage.transaction(write=False) as tx:
                row = tx.get_tournament(instance)
                journal = tx.journal(instance)
            director = replay(row, journal).director
            placed = sorted((e for e in director.entries if e.place is not None), key=_place)
            found[instance] = {
                "state": director.state,
                "prize_pool": director.pool,
                "places": [
                    {"place": e.place, "account": e.account, "prize": e.prize, "shared": e.shared}
                    for e in placed
                ],
            }
    finally:
        storage.close()
    return found


def _place(entry: Any) -> int:
    return int(entry.place or 0)


def report(
    players: int,
    runs: dict[str, Any],
    details: dict[str, Any],
    wall: float,
    rss: float,
    passed: bool,
) -> dict[str, Any]:
    """`bench tournament`'s fields over every tournament."""
    every = list(runs.values())
    bots = [bot for one in every for bot in one.bots]
    latencies = [s for one in every for s in one.latencies]
    moves = [s for one in every for reason, s in one.move_latencies if reason == "balance"]
    breaks = [
        s for one in every for reason, s in one.move_latencies if reason in ("break", "final")
    ]
    hands = sum(len(one.hands) for one in every)
    states = sorted({detail["state"] for detail in details.values()})
    return {
        "players": players,
        "state": states[0] if len(states) == 1 else states,
        "wall_seconds": round(wall, 1),
        "hands": hands,
        "hands_per_second": round(hands / wall, 1) if wall > 0 else 0.0,
        "action_latency_ms": _ms(latencies),
        "move_latency_ms": _ms(moves),
        "break_latency_ms": _ms(breaks),
        "rss_mb": rss,
        "places_ok": bool(details)
        and all(places_ok(d["places"], players) for d in details.values()),
        "prize_pool": sum(d["prize_pool"] for d in details.values()),
        "prizes_paid": sum(p["prize"] for d in details.values() for p in d["places"]),
        "timeouts": sum(b.timeouts for b in bots),
        "reconnects": sum(b.reconnects for b in bots),
        "problems": sorted({b.problem for b in bots if b.problem is not None})[:5],
        "unplaced": [b.name for b in bots if b.place is None][:10],
        "bots_ok": all(one.ok for one in every),
        "audit": passed,
    }

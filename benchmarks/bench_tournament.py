"""`feltroom bench tournament [--players N] [--bot-processes N] [--json]`: a multi-table
tournament of network bots on a live server.

The server is ``feltroom serve`` in a process of its own (``served.ServedRoom``: a temporary
SQLite file, house bots off, ``--bot-think 0`` so a hand follows the last at once) with a
tables file holding one sit-and-go of ``--players`` entries (default 1,000) at nine-seat tables,
the turbo schedule (``--level-minutes`` overrides its 5-minute levels), 1,500 chips, a
play-money buy-in of 1,000 + 100 and no re-entries (and a per-address connection cap that holds
every bot: they all connect from 127.0.0.1). The bots' accounts, their play chips and
their session tokens are made in the database before the server starts (as ``bench server``
does: at the server's Argon2 parameters a thousand sign-ins would take minutes of the two
cores). Then every bot connects (``hello``) and registers over HTTP (``POST
/api/tournaments/{id}/register``); the last registration starts the tournament. The bots play
it to the end over the websocket with no think time (``feltroom.bots.tournament``, random
brains): all in this process by default, or spread evenly over ``--bot-processes N`` client
processes (``served.Children`` running this script with ``--worker``), each registering its share
and sending back what it measured, so the bots' own CPU is not the benchmark's.

Reported (``--json``: one object): ``players``, ``bot_processes``, ``wall_seconds`` (first
registration to the last result), ``hands`` and ``hands_per_second`` (distinct hands the bots saw
end), ``server_action_ms`` (p50, p99 and count of the room's own
``feltroom_action_broadcast_seconds`` histogram, an action received to its broadcast, read from
``/metrics`` at the end and estimated within its buckets; ``p99_bucket_ms`` gives the bucket the
p99 lies in), ``action_latency_ms`` (p50, p99, max: a bot's ``turn`` message to the server's
answer to its ``act``, so the bots' own delays included), ``move_latency_ms`` and
``break_latency_ms`` (p50, p99, max, count: the end of the hand at the player's old table, as the
bot saw its ``hand_result``, to the player's ``moved`` message; for balancing, and for a table
broken up, the final table's draw included in the latter; ``final_draw_latency_ms``: the final
table's draw alone, which waits for the last hand in progress; ``break_hand_for_hand_ms`` and
``break_outside_hand_for_hand_ms``: the break-ups made while the moved player's last view said
hand-for-hand, whose moves wait for the round's end (R-TOURN-9), and the others), ``rss_mb`` (the
server's at the end), ``timeouts`` (bot turns the clock ran out on: each makes the bot away until
it comes back),
``places_ok`` (places 1..N each given once), ``prizes_paid`` and ``prize_pool`` (from ``GET
/api/tournaments/{id}``), ``audit`` (``feltroom audit`` after the server stopped). The exit status
is 0 only when every bot got its place, every prize was paid and the audit passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from served import (
    Children,
    ServedRoom,
    histogram_quantiles,
    loopback_config,
    metrics_text,
    percentile,
)

PASSWORD = "bench-password"
TOURNAMENT = """
[[tournament]]
id = "bench"
format = "sng"
seats_per_table = 9
max_entries = {players}
starting_stack = 1500
buy_in = 1000
fee = 100
schedule = "turbo"
{level_minutes}recurring = false
"""
CASH = """
[[table]]
id = "cash"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
min_buy_in = 40
max_buy_in = 400
"""


class Server(ServedRoom):
    def __init__(self, folder: Path, players: int, level_minutes: int | None) -> None:
        minutes = "" if level_minutes is None else f"level_minutes = {level_minutes}\n"
        tables = folder / "tables.toml"
        tables.write_text(CASH + TOURNAMENT.format(players=players, level_minutes=minutes), "utf-8")
        config = loopback_config(folder, players)  # (every bot connects from 127.0.0.1)
        options = ["--tables", str(tables), "--house-bots", "0", "--bot-think", "0"]
        super().__init__(folder, [*options, "--config", str(config)])


def _ms(values: list[float]) -> dict[str, Any]:
    return {
        "p50": round(1000 * percentile(values, 0.50), 1),
        "p99": round(1000 * percentile(values, 0.99), 1),
        "max": round(1000 * max(values, default=0.0), 1),
        "count": len(values),
    }


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def run(
    players: int, level_minutes: int | None, seed: int, limit: float, bot_processes: int = 0
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-tournament-"))
    server = Server(folder, players, level_minutes)
    try:
        tokens = server.seed_accounts([f"tb{k}" for k in range(players)], PASSWORD, 10_000)
        server.start()
        started = time.monotonic()
        if bot_processes:
            result = _bots_elsewhere(server.url, tokens, seed, limit, bot_processes)
        else:
            result = asyncio.run(_bots(server.url, tokens, seed, limit))
        wall = time.monotonic() - started
        served = histogram_quantiles(metrics_text(server.url), "feltroom_action_broadcast_seconds")
        detail = _get(f"{server.url}/api/tournaments/bench-1")
        rss = server.rss_mb()
    finally:
        server.stop()
    audit = server.audit()
    moves = [s for reason, s in result.move_latencies if reason == "balance"]
    breaks = [s for reason, s in result.move_latencies if reason in ("break", "final")]
    finals = [s for reason, s in result.move_latencies if reason == "final"]
    waited = [s for reason, s in result.hand_for_hand_moves if reason in ("break", "final")]
    outside = list(breaks)
    for seconds in waited:  # those that waited for a hand-for-hand round's end
        outside.remove(seconds)
    line = {
        "players": players,
        "bot_processes": bot_processes,
        "state": detail["state"],
        "wall_seconds": round(wall, 1),
        "hands": len(result.hands),
        "hands_per_second": round(len(result.hands) / wall, 1) if wall > 0 else 0.0,
        "server_action_ms": served,
        "action_latency_ms": _ms(result.latencies),
        "move_latency_ms": _ms(moves),
        "break_latency_ms": _ms(breaks),
        "final_draw_latency_ms": _ms(finals),
        "break_hand_for_hand_ms": _ms(waited),
        "break_outside_hand_for_hand_ms": _ms(outside),
        "rss_mb": rss,
        "places_ok": places_ok(detail["places"], players),
        "prize_pool": detail["prize_pool"],
        "prizes_paid": sum(p["prize"] for p in detail["places"]),
        "timeouts": sum(b.timeouts for b in result.bots),
        "reconnects": sum(b.reconnects for b in result.bots),
        "problems": sorted({b.problem for b in result.bots if b.problem is not None})[:5],
        "unplaced": [b.name for b in result.bots if b.place is None][:10],
        "bots_ok": result.ok,
        "audit": audit,
    }
    if line["audit"] and line["places_ok"]:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        line["folder"] = str(folder)
    return line


def places_ok(places: list[dict[str, Any]], players: int) -> bool:
    """Places 1..``players`` each given once (equal stacks out together share places,
    R-TOURN-10: a place's ``shared`` covers the places below it)."""
    covered: set[int] = set()
    for place in places:
        covered.update(range(place["place"], place["place"] + place["shared"]))
    return len(places) == players and covered == set(range(1, players + 1))


def finish(line: dict[str, Any], as_json: bool, summary: str) -> int:
    """Print the run's line (``--json``) or ``summary``; the exit status: 0 only when every
    place was given, every prize paid, the bots played to the end and the audit passed."""
    print(json.dumps(line) if as_json else summary, flush=True)
    ok = line["audit"] and line["places_ok"] and line["prizes_paid"] == line["prize_pool"]
    return 0 if ok and line["bots_ok"] else 1


async def _bots(url: str, tokens: dict[str, str], seed: int, limit: float) -> Any:
    """The bots of ``tokens`` play the benchmark's tournament in this process's event loop."""
    from feltroom.bots.runner import BotSettings
    from feltroom.bots.tournament import run_tournament_bots

    settings = BotSettings(url, len(tokens), think=0.0, style="random", seed=seed)
    return await run_tournament_bots(settings, "bench-1", tokens, limit)


def _bots_elsewhere(
    url: str, tokens: dict[str, str], seed: int, limit: float, processes: int
) -> Any:
    """The bots spread evenly over ``processes`` client processes (``_worker``); their runs
    merged into one ``TournamentRun``."""
    from feltroom.bots.tournament import TournamentBot, TournamentRun

    names = list(tokens)
    shares = [names[k::processes] for k in range(processes)]
    children = Children(__file__, [[] for _ in shares])
    try:
        children.send(
            [
                {
                    "url": url,
                    "tokens": {name: tokens[name] for name in share},
                    "seed": seed * 1000 + k,
                    "limit": limit,
                }
                for k, share in enumerate(shares)
            ]
        )
        answers = children.receive()
        children.wait()
    finally:
        children.kill()
    failed = [a["error"] for a in answers if "error" in a]
    if failed:
        raise RuntimeError(f"the bots could not play: {failed[0]}")
    run = TournamentRun("bench-1", [], max(float(a["seconds"]) for a in answers))
    for answer in answers:
        run.bots += [TournamentBot(**bot) for bot in answer["bots"]]
        run.latencies += [float(d) for d in answer["latencies"]]
        run.move_latencies += [(str(r), float(d)) for r, d in answer["move_latencies"]]
        run.hand_for_hand_moves += [(str(r), float(d)) for r, d in answer["hand_for_hand_moves"]]
        run.hands |= {(str(t), int(h)) for t, h in answer["hands"]}
        run.entries = max(run.entries, int(answer["entries"]))
    states = {str(a["state"]) for a in answers}
    if "timed out" in states:
        run.state = "timed out"
    elif all(b.place is not None for b in run.bots):
        run.state = "finished"
    elif "cancelled" in states:
        run.state = "cancelled"
    return run


def _worker() -> int:
    """A client process: one command in (``url``, ``tokens``, ``seed``, ``limit``), its bots
    play the tournament, one answer out (what they measured, or ``error``)."""
    from dataclasses import asdict

    from feltroom.bots.client import ClientError
    from feltroom.server.collector import calm_collector

    command = json.loads(sys.stdin.readline())

    async def play() -> Any:
        # Hundreds of connections here too: no full collection counted as the room's latency.
        collector = calm_collector()
        try:
            return await _bots(command["url"], command["tokens"], command["seed"], command["limit"])
        finally:
            collector.cancel()

    try:
        run = asyncio.run(play())
    except ClientError as error:
        answer: dict[str, Any] = {"error": str(error)}
    else:
        answer = {
            "state": run.state,
            "entries": run.entries,
            "seconds": run.seconds,
            "bots": [asdict(bot) for bot in run.bots],
            "latencies": run.latencies,
            "move_latencies": run.move_latencies,
            "hand_for_hand_moves": run.hand_for_hand_moves,
            "hands": sorted(run.hands),
        }
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        return _worker()
    parser = argparse.ArgumentParser(prog="feltroom bench tournament", description=__doc__)
    parser.add_argument("--players", type=int, default=1000, metavar="N")
    parser.add_argument(
        "--level-minutes", type=int, default=None, metavar="M", help="default: turbo's 5"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--limit", type=float, default=3600.0, metavar="S", help="stop the bots after S seconds"
    )
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=0,
        metavar="N",
        help="spread the bots over N client processes (default 0: in this process)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="the same on the local cluster (benchmarks/bench_tournament_cluster.py)",
    )
    parser.add_argument("--workers", type=int, metavar="W", help="--cluster: workers (default 2)")
    parser.add_argument("--gateways", type=int, metavar="G", help="--cluster: gateways (default 1)")
    parser.add_argument(
        "--tournaments",
        type=int,
        metavar="K",
        help="--cluster: K sit-and-gos of --players each at once (default 1)",
    )
    args = parser.parse_args(argv)
    if args.players < 2:
        parser.error(f"--players is at least 2, not {args.players}")
    if args.level_minutes is not None and args.level_minutes < 1:
        parser.error(f"--level-minutes is at least 1, not {args.level_minutes}")
    if args.bot_processes < 0 or args.bot_processes > args.players:
        parser.error(
            f"--bot-processes is 0 (the bots in this process) to --players ({args.players}), "
            f"not {args.bot_processes}"
        )
    if args.cluster:
        return _cluster(parser, args)
    for option in ("workers", "gateways", "tournaments"):
        if getattr(args, option) is not None:
            parser.error(f"--{option} is an option of --cluster (the local cluster's run)")
    line = run(args.players, args.level_minutes, args.seed, args.limit, args.bot_processes)
    return finish(
        line,
        args.json,
        f"tournament of {line['players']} bots: {line['state']} in {line['wall_seconds']} s, "
        f"{line['hands']} hands ({line['hands_per_second']}/s), server action p99 "
        f"{line['server_action_ms']['p99']} ms, bots' turn to answer p99 "
        f"{line['action_latency_ms']['p99']} ms, move p99 {line['move_latency_ms']['p99']} "
        f"ms, break-up p99 {line['break_latency_ms']['p99']} ms, prizes "
        f"{line['prizes_paid']}/{line['prize_pool']}, audit "
        f"{'pass' if line['audit'] else 'FAIL'}",
    )


def _cluster(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--cluster``: the run on the local cluster (``bench_tournament_cluster``)."""
    import bench_tournament_cluster

    workers = 2 if args.workers is None else args.workers
    gateways = 1 if args.gateways is None else args.gateways
    tournaments = 1 if args.tournaments is None else args.tournaments
    if workers < 1 or gateways < 1 or tournaments < 1:
        parser.error(
            "--workers, --gateways and --tournaments are at least 1; got "
            f"{workers}, {gateways}, {tournaments}"
        )
    from feltroom.ops.services import ServiceUnavailable

    try:
        line = bench_tournament_cluster.run(
            players=args.players,
            tournaments=tournaments,
            workers=workers,
            gateways=gateways,
            bot_processes=args.bot_processes,
            level_minutes=args.level_minutes,
            seed=args.seed,
            limit=args.limit,
        )
    except ServiceUnavailable as error:
        print(f"feltroom bench tournament: {error}", file=sys.stderr)
        return 2
    server = line["server_action_ms"]
    return finish(
        line,
        args.json,
        f"{line['tournaments']} tournament(s) of {line['players']} bots on {workers} workers "
        f"and {gateways} gateway(s): {line['state']} in {line['wall_seconds']} s, "
        f"{line['hands']} hands, server action p50/p99 {server['p50']}/{server['p99']} ms "
        f"({server['count']}), bots' action p99 {line['action_latency_ms']['p99']} ms, "
        f"places {'ok' if line['places_ok'] else 'MISSING'}, prizes "
        f"{line['prizes_paid']}/{line['prize_pool']}, audit "
        f"{'pass' if line['audit'] else 'FAIL'}",
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

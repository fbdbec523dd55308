"""The ``feltroom`` command line.

Each subcommand is a small function here that parses its arguments and calls into the layers; the
command-line forms that issues spell out are contracts and stay as written.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from feltroom import __version__
from feltroom.cards import format_cards
from feltroom.errors import FeltroomError, InvalidConfiguration
from feltroom.evaluate import evaluate
from feltroom.shuffle import SeededDeckSource, shuffled_deck

__all__ = ["main"]

Handler = Callable[[argparse.Namespace], int]


def _demo(args: argparse.Namespace) -> int:
    """Deal a sample hand of hold'em and read every player's best hand."""
    deck = SeededDeckSource(args.seed).next_deck() if args.seed is not None else shuffled_deck()
    players = args.players
    holes = [(deck[i], deck[i + players]) for i in range(players)]
    position = 2 * players
    board = (*deck[position + 1 : position + 4], deck[position + 5], deck[position + 7])
    print(f"Board: {format_cards(board)}")
    ranks = [evaluate((*hole, *board)) for hole in holes]
    best = max(ranks)
    for seat, (hole, rank) in enumerate(zip(holes, ranks, strict=True), start=1):
        mark = "  <- wins" if rank == best else ""
        print(f"Seat {seat}: {format_cards(hole)}  {rank.description}{mark}")
    return 0


def _selftest(args: argparse.Namespace) -> int:
    """Run the statistical self-tests on N production shuffles (R-RNG-2)."""
    from feltroom.selftest import run_selftest

    report = run_selftest(args.shuffles)
    if args.json:
        print(json.dumps(report))
    else:
        for name, result in report["tests"].items():
            verdict = "pass" if result["pass"] else "FAIL"
            print(
                f"{name:24} statistic {result['statistic']:12.4f}  "
                f"threshold {result['threshold']:12.4f}  {verdict}"
            )
        print(f"{report['shuffles']} shuffles: {'pass' if report['pass'] else 'FAIL'}")
    return 0 if report["pass"] else 1


def _bench(args: argparse.Namespace) -> int:
    """Run a side-by-side benchmark from the checkout's benchmarks/ folder."""
    folder = Path(__file__).resolve().parents[2] / "benchmarks"
    script = folder / f"bench_{args.target}.py"
    if not script.is_file():
        print(
            f"feltroom bench needs a development checkout with benchmarks/ "
            f"(pip install -e '.[dev]'); {script} was not found",
            file=sys.stderr,
        )
        return 2
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))  # the benchmarks import their shared module (served.py)
    spec = importlib.util.spec_from_file_location(f"feltroom_bench_{args.target}", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    run: Callable[[list[str]], int] = module.main
    return run(args.rest)


def _replay(args: argparse.Namespace) -> int:
    """Replay PHH hand histories through the engine: one JSON line per hand (issue 3)."""
    from feltroom.history.replay import replay_paths

    return replay_paths(args.paths, sys.stdout)


def _convert(args: argparse.Namespace) -> int:
    """``feltroom convert --to FORMAT [--hero NAME] PATH...``: PHH, PokerStars or OHH hands to
    another format."""
    from feltroom.history.convert import convert_paths

    return convert_paths(args.paths, args.to, args.hero, sys.stdout, sys.stderr)


def _verify(args: argparse.Namespace) -> int:
    """``feltroom verify FILE``: check a deal's proof file (exit 0 holds, 1 fails, 2 malformed)."""
    from feltroom.deal_proof import check_file

    status, lines = check_file(args.file)
    print("\n".join(lines), file=sys.stderr if status == 2 else sys.stdout)
    return status


def _soak_progress(report: Any) -> None:
    """``feltroom simulate --progress N``: the report so far, one JSON line on stderr."""
    print(json.dumps(report.as_json()), file=sys.stderr, flush=True)


def _simulate(args: argparse.Namespace) -> int:
    """The randomized soak of the table layer (issue 4): one JSON object; exit 0 only without
    violations."""
    if args.tournament is not None:
        return _simulate_tournament(args)
    from feltroom.simulate import simulate

    try:
        report = simulate(
            args.tables,
            args.hands,
            args.seed,
            checks=not args.no_checks,
            game=args.game,
            seats=args.seats,
            button_rule=args.button_rule,
            progress=_soak_progress,
            every=args.progress or 0,
        )
    except FeltroomError as error:
        print(f"feltroom simulate: {error}", file=sys.stderr)
        return 2
    summary = report.as_json()
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['hands']} hands, {summary['violations']} violations, "
            f"{summary['hands_per_second']} hands/s"
        )
        for example in summary["violation_examples"]:
            print(f"  {example}")
    return 0 if report.violations == 0 else 1


def _soak_tournaments(args: argparse.Namespace) -> int:
    """``feltroom simulate --tournament soak --runs N [--seed S]``: one tournament a seed from
    S (default 1), each drawing its size, seats, format, late registration and breaks; one JSON
    object; exit 0 only without crashes and violations."""
    from feltroom.simulate_tournament import soak

    if args.tournament != "soak":
        print("feltroom simulate: --runs goes with --tournament soak", file=sys.stderr)
        return 2
    report = soak(args.runs, args.seed or 1, progress=_soak_progress, every=args.progress or 0)
    print(json.dumps(report.as_json()))
    return 0 if report.crashes == 0 and report.violations == 0 else 1


def _simulate_tournament(args: argparse.Namespace) -> int:
    """A whole tournament offline (issue 18): one JSON line; exit 0 only without violations."""
    from feltroom.simulate_tournament import simulate_tournament

    if args.runs is not None:
        return _soak_tournaments(args)
    if args.players is None:
        print("feltroom simulate: --tournament needs --players N (2 or more)", file=sys.stderr)
        return 2
    try:
        report = simulate_tournament(args.tournament, args.players, args.seed)
    except FeltroomError as error:
        print(f"feltroom simulate: {error}", file=sys.stderr)
        return 2
    summary = report.as_json()
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['players']} players, {summary['hands']} hands, "
            f"{summary['tables_max']} tables at most, {summary['moves']} moves, "
            f"{summary['tables_broken']} tables broken, {summary['violations']} violations, "
            f"prize pool {summary['prize_pool']}, paid {summary['paid']}, "
            f"{summary['hands_per_second']} hands/s"
        )
        for example in summary["violation_examples"]:
            print(f"  {example}")
    return 0 if report.violations == 0 and report.places_ok else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="feltroom", description="An online card room for Texas Hold'em."
    )
    parser.add_argument("--version", action="version", version=f"feltroom {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="deal and evaluate a sample hand")
    demo.add_argument("--players", type=int, choices=range(2, 11), default=6, metavar="2..10")
    demo.add_argument(
        "--seed", type=int, default=None, help="a seeded deck (for reproducible output)"
    )
    demo.set_defaults(handler=_demo)

    selftest = commands.add_parser(
        "selftest", help="statistical self-tests of the production shuffle"
    )
    selftest.add_argument("--shuffles", type=_positive, default=100_000, metavar="N")
    selftest.add_argument("--json", action="store_true", help="print one JSON object")
    selftest.set_defaults(handler=_selftest)

    bench = commands.add_parser(
        "bench", help="benchmarks side by side with peers (development install)"
    )
    bench.add_argument(
        "target",
        choices=[
            "evaluator",
            "engine",
            "room",
            "server",
            "signups",
            "integrity",
            "failover",
            "cluster",
            "tournament",
            "reads",
        ],
    )
    bench.add_argument(
        "rest", nargs=argparse.REMAINDER, help="the benchmark's own options, e.g. --json"
    )
    bench.set_defaults(handler=_bench)

    replay = commands.add_parser(
        "replay", help="replay PHH hand histories (.phh/.phhs files or folders of them)"
    )
    replay.add_argument("paths", nargs="+", metavar="PATH")
    replay.set_defaults(handler=_replay)

    convert = commands.add_parser(
        "convert",
        help="convert PHH, PokerStars or OHH hand histories to PokerStars text, OHH or PHH",
    )
    convert.add_argument("--to", required=True, choices=("pokerstars", "ohh", "phh"))
    convert.add_argument("--hero", metavar="NAME", help="write only what this player may see")
    convert.add_argument("paths", nargs="+", metavar="PATH")
    convert.set_defaults(handler=_convert)

    verify = commands.add_parser(
        "verify", help="check a hand's proof file against its deal commitment (verifiable deals)"
    )
    verify.add_argument("file", metavar="FILE", help="a proof file (GET /api/hands/{id}/proof)")
    verify.set_defaults(handler=_verify)

    simulate = commands.add_parser(
        "simulate", help="randomized soak: many tables, random players, invariants per hand"
    )
    simulate.add_argument("--tables", type=_positive, default=4, metavar="T")
    simulate.add_argument("--hands", type=_positive, default=10_000, metavar="N")
    simulate.add_argument("--seed", type=int, default=0, metavar="S")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    simulate.add_argument(
        "--no-checks", action="store_true", help="invariant checks off (bookkeeping on)"
    )
    simulate.add_argument(
        "--game",
        metavar="PRESET",
        help="put every table on this preset (e.g. nl_25_50); default: each table draws one",
    )
    simulate.add_argument(
        "--seats", type=int, metavar="N", help="seats per table, 2..10; default: random"
    )
    simulate.add_argument(
        "--progress",
        type=_positive,
        default=None,
        metavar="N",
        help="print the report so far (one JSON line on stderr) every N hands",
    )
    simulate.add_argument(
        "--button-rule",
        choices=("dead", "moving"),
        default=None,
        help="put every table on this button rule (R-BUTTON-3); default: each table draws one",
    )
    simulate.add_argument(
        "--tournament",
        choices=("sng", "mtt", "soak"),
        help="run one whole tournament instead (with --players; docs/tournaments.md); soak: "
        "one tournament a seed (with --runs)",
    )
    simulate.add_argument(
        "--runs",
        type=_positive,
        metavar="N",
        help="--tournament soak: N tournaments, seeds --seed (default 1) onwards, each drawing "
        "its size (2..3,000), seats, format, late registration and breaks",
    )
    simulate.add_argument(
        "--players", type=_positive, metavar="N", help="the tournament's players (2 or more)"
    )
    simulate.set_defaults(handler=_simulate)

    play = commands.add_parser("play", help="play at a room from the terminal (a person)")
    play.add_argument(
        "--url", default="http://127.0.0.1:8000", help="the server's address (http://host:port)"
    )
    play.set_defaults(handler=_play)

    bots = commands.add_parser("bots", help="network bots: N players over the public protocol")
    bots.add_argument("--url", required=True, help="the server's address (http://host:port)")
    bots.add_argument("--count", required=True, type=_positive, metavar="N", help="bots to run")
    bots.add_argument(
        "--hands", type=_positive, default=None, metavar="H", help="stop when each played H hands"
    )
    bots.add_argument(
        "--think", type=_seconds, default=0.1, metavar="SECONDS", help="delay before each action"
    )
    bots.add_argument("--style", choices=("random", "station", "tag"), default="random")
    bots.add_argument(
        "--run-twice",
        choices=("always", "ask", "never"),
        default="ask",
        help="the answer to a run-it-twice question (R-HOME-4): never refuses, else agree",
    )
    bots.add_argument(
        "--accounts",
        default=None,
        metavar="FILE",
        help="JSON file of the bots' accounts: reused by later runs, new ones added",
    )
    bots.add_argument(
        "--tournament",
        default=None,
        metavar="ID",
        help="register the bots in this tournament instance and play it to the end",
    )
    bots.set_defaults(handler=_bots)

    acpc = commands.add_parser(
        "acpc", help="the ACPC bridge: one ACPC bot (protocol 2.0.0) plays a seat (docs/acpc.md)"
    )
    acpc.add_argument("--url", required=True, help="the server's address (http://host:port)")
    acpc.add_argument(
        "--port", required=True, type=_port, metavar="P", help="the port the bot connects to"
    )
    acpc.add_argument("--account", required=True, help="the room account the bot plays as")
    acpc.add_argument("--table", required=True, metavar="ID", help="the table to sit at")
    acpc.add_argument(
        "--game", type=Path, default=None, metavar="GAMEDEF", help="the bot's game definition file"
    )
    acpc.add_argument(
        "--hands", type=_positive, default=None, metavar="H", help="stop after H hands"
    )
    acpc.set_defaults(handler=_acpc)
    _add_room_commands(commands)
    return parser


def _acpc(args: argparse.Namespace) -> int:
    """``feltroom acpc --url URL --port P --account NAME --table ID [--game GAMEDEF]``: the ACPC
    bridge (docs/acpc.md); the password from ``FELTROOM_PASSWORD``. Exit 0 when the match
    ended, 1 when the bridge could not play, 2 for bad arguments."""
    import asyncio
    import os
    import signal

    from feltroom.bots.acpc import Bridge, BridgeError, BridgeSettings
    from feltroom.history.acpc import AcpcError, GameDef

    password = os.environ.get("FELTROOM_PASSWORD")
    if not password:
        print(
            "feltroom acpc: error: set FELTROOM_PASSWORD to the account's password", file=sys.stderr
        )
        return 2
    game = None
    if args.game is not None:
        try:
            game = GameDef.parse(args.game.read_text(encoding="utf-8"))
            game.check_holdem()
        except (OSError, AcpcError) as error:
            print(f"feltroom acpc: error: {args.game}: {error}", file=sys.stderr)
            return 2
    settings = BridgeSettings(
        args.url, args.port, args.account, password, args.table, game, hands=args.hands
    )

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, stop.set)

        def listening(port: int) -> None:
            print(f"feltroom acpc: listening for an ACPC bot on 127.0.0.1:{port}", flush=True)

        bridge = Bridge(settings, listening=listening)
        try:
            report = await bridge.run(stop)
        except (BridgeError, FeltroomError) as error:
            print(f"feltroom acpc: error: {error}", file=sys.stderr)
            return 1
        print(report.line())
        return 0

    return asyncio.run(run())


def _play(args: argparse.Namespace) -> int:
    """``feltroom play --url URL``: the terminal client for a person (docs/play.md)."""
    from feltroom.bots.terminal import main as play

    return play(args.url)


def _bots(args: argparse.Namespace) -> int:
    """``feltroom bots --url URL --count N [--hands H] [--think SECONDS] [--style STYLE]
    [--run-twice always|ask|never] [--accounts FILE] [--tournament ID]``:
    network bots over the public protocol (docs/bots.md); exit 0 when done or stopped."""
    from feltroom.bots.client import endpoints
    from feltroom.bots.runner import BotSettings
    from feltroom.bots.runner import main as run

    try:
        endpoints(args.url)
        settings = BotSettings(
            args.url,
            args.count,
            args.hands,
            args.think,
            args.style,
            accounts=args.accounts,
            run_twice=args.run_twice,
        )
        if args.tournament is not None and args.hands is not None:
            raise InvalidConfiguration(
                "--hands does not apply with --tournament: the bots play until they are out "
                "or the tournament ends"
            )
    except FeltroomError as error:
        print(f"feltroom bots: error: {error}", file=sys.stderr)
        return 2
    if args.tournament is not None:
        from feltroom.bots.tournament import main as play_tournament

        return play_tournament(settings, args.tournament)
    return run(settings)


def _room_command(args: argparse.Namespace) -> int:
    """``cashier``, ``admin`` and ``audit``: the operator's commands on the room's database."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.room import operator
    from feltroom.store import open_storage

    try:
        # These read or change an existing room's books: a mistyped path is an error, not a
        # new, empty room that would pass the audit.
        storage = open_storage(args.db, create=False)
    except (SQLAlchemyError, CommandError, ValueError, OSError) as error:
        print(
            f"feltroom {args.command}: cannot open the database {args.db!r}: {error}",
            file=sys.stderr,
        )
        return 2
    try:
        if args.command == "cashier":
            code, result = operator.run_cashier(
                storage,
                args.operation,
                args.account,
                getattr(args, "currency", None),
                getattr(args, "amount", None),
                getattr(args, "key", None),
            )
        elif args.command == "admin" and args.operation == "cancel-tournament":
            code, result = operator.run_cancel_tournament(
                storage, args.id, operator=args.operator, reason=args.reason
            )
        elif args.command == "admin":
            since = getattr(args, "since", None)
            code, result = operator.run_admin(
                storage,
                args.operation,
                getattr(args, "account", None),
                operator=args.operator,
                reason=args.reason,
                addresses=getattr(args, "addresses", ""),
                since=None if since is None else _date(since),
                limit=getattr(args, "limit", 1000),
                to=getattr(args, "to", None),
                identity=getattr(args, "identity", None),
            )
        elif args.command == "integrity":
            code, result = operator.run_integrity(storage, args.since, args.threshold, args.account)
        else:
            code, result = operator.run_audit(storage, args.shuffles)
    finally:
        storage.close()
    if code == operator.BAD_INPUT:
        print(f"feltroom {args.command}: error: {result['error']}", file=sys.stderr)
    elif args.command == "integrity" and not args.json:
        print(_integrity_text(result))
    else:
        print(json.dumps(result))
    return code


def _admin(args: argparse.Namespace) -> int:
    """``feltroom admin``: the live room's operator API (``--url``) or the database (``--db``)."""
    from feltroom.admin import run_admin

    return run_admin(args, _room_command)


def _integrity_text(report: dict[str, Any]) -> str:
    """The integrity report in lines: each pair to review with its signals' scores."""
    lines = [
        f"{report['hands']} hands, {report['accounts']} accounts, {report['sign_ins']} sign-ins"
        f"{' since ' + report['since'] if report['since'] else ''}; "
        f"{len(report['pairs'])} pairs to review (score >= {report['threshold']:g})"
    ]
    if "account" in report:
        lines.append(
            f"  account {report['account']}: dealt {report['account_hands']} hands; "
            f"{len(report['watch'])} of its pairs below the threshold (--json lists them)"
        )
    for entry in report["pairs"]:
        scores = ", ".join(f"{name} {found['score']:g}" for name, found in entry["signals"].items())
        lines.append(f"  {' + '.join(entry['accounts'])}: score {entry['score']:g} ({scores})")
    for group in report["groups"]:
        if len(group["accounts"]) > 2:
            lines.append(f"  group: {', '.join(group['accounts'])} (score {group['score']:g})")
    if report["unreadable_hands"]:
        lines.append(f"  hands that could not be replayed: {report['unreadable_hands']}")
    lines.append("  --json prints every signal's evidence")
    return "\n".join(lines)


def _settings(args: argparse.Namespace, command: str) -> Any:
    """The effective settings of ``feltroom serve`` (flags > environment > file > default) and
    their sources; ``None`` after printing what is wrong."""
    from feltroom.ops.config import ConfigError, load_settings

    flags: dict[str, dict[str, Any]] = {}
    for section, key, *_ in SERVE_FLAGS.values():
        dest = f"{section}.{key}"
        if dest in vars(args):
            flags.setdefault(section, {})[key] = vars(args)[dest]
    try:
        return load_settings(flags, args.config)
    except ConfigError as error:
        print(f"feltroom {command}: error: {error}", file=sys.stderr)
        return None


def _serve(args: argparse.Namespace) -> int:
    """``feltroom serve``: the composition root. It opens the store, builds the room's services
    and the table runtime on it, and puts them behind the ASGI application."""
    import logging
    import signal
    import time

    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.ops.config import shown
    from feltroom.ops.logs import configure
    from feltroom.room import Accounts, Cashier, RoomError, Settlement
    from feltroom.room.runtime import RoomRuntime
    from feltroom.room.signins import SignInLog
    from feltroom.room.tables_config import load_tables, room_tables
    from feltroom.room.tournaments_config import load_tournaments
    from feltroom.server import create_app, serve
    from feltroom.store import DEFAULT_URL, open_storage

    loaded = _settings(args, "serve")
    if loaded is None:
        return 2
    config = loaded[0]
    configure(config.log.level, config.log.format, config.log.access)
    log = logging.getLogger("feltroom")
    log.info(
        "feltroom %s starting (role %s); configuration: %s",
        __version__,
        config.server.role,
        json.dumps(shown(config), sort_keys=True),
        extra={"version": __version__, "config": shown(config)},
    )
    if config.server.role != "all":
        code = _serve_cluster(config)
        log.info("feltroom %s stopped (exit %d)", config.server.role, code)
        return code
    tables_file = config.server.tables
    tables_path = None if tables_file is None else str(tables_file)
    try:
        load_tables(tables_path)  # a bad tables file is refused before the database opens
        tournaments = load_tournaments(tables_path)
    except (RoomError, OSError) as error:
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return 2
    url = config.server.db or DEFAULT_URL
    try:
        storage = open_storage(url)
    except (SQLAlchemyError, CommandError, ValueError, OSError) as error:
        print(f"feltroom serve: cannot open the database {url!r}: {error}", file=sys.stderr)
        return 2
    try:  # the database is the tables' source of truth; the file only seeds it
        tables = room_tables(storage, tables_path)
    except (RoomError, OSError) as error:
        storage.close()
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return 2
    runtime = RoomRuntime(
        Settlement(storage),
        Accounts(storage, argon2=_argon2(config), min_password_length=config.accounts.password_min),
        Cashier(storage),
        tables,
        tournaments=tournaments,
        settings=_runtime_settings(config),
    )
    started = time.monotonic()
    # SIGTERM (a service manager's stop) and SIGINT (Ctrl-C) are uvicorn's while it serves: it
    # stops in order (the tables, the books), then hands the signal on. Handed on here it has
    # done its work: the room returns and logs its shutdown line.
    previous = {
        signum: signal.signal(signum, _handled) for signum in (signal.SIGTERM, signal.SIGINT)
    }

    def ready(address: str) -> None:
        print(
            f"feltroom: {len(tables)} tables, {len(tournaments)} tournaments, "
            f"{config.room.house_bots} house bots a table, books in {_masked_url(url)}; "
            f"open {address}",
            flush=True,
        )

    try:
        limits = _rest_limits(config)
        hub_settings = _hub_settings(config)
        sign_ins = SignInLog(storage, retention_days=config.accounts.sign_in_retention_days)
        serve(
            create_app(
                runtime,
                limits=limits,
                sign_ins=sign_ins,
                hub_settings=hub_settings,
                metrics_allow=config.server.metrics_allow,
            ),
            config.server.host,
            config.server.port,
            on_ready=ready,
            forwarded_allow_ips=config.server.forwarded_allow_ips,
            metrics_port=config.server.metrics_port,
            read_timeouts=_read_timeouts(config),
        )
    except KeyboardInterrupt:
        pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        storage.close()
        log.info(
            "feltroom stopped after %.0f s: %d hands dealt, %d settled",
            time.monotonic() - started,
            runtime.hands_dealt,
            runtime.hands_settled,
        )
    return 0


def _argon2(config: Any) -> Any:
    """The password hash's cost from the configuration."""
    from feltroom.room import Argon2Settings

    accounts = config.accounts
    return Argon2Settings(
        time_cost=accounts.argon2_time_cost,
        memory_cost=accounts.argon2_memory_kib,
        parallelism=accounts.argon2_parallelism,
    )


def _rest_limits(config: Any) -> Any:
    """The HTTP API's limits from the configuration (the single process and a gateway)."""
    from feltroom.server.rest import RestLimits

    accounts = config.accounts
    return RestLimits(
        signups=accounts.signups,
        signup_window=accounts.signup_window,
        signup_exempt=accounts.signup_exempt,
        account_failures=accounts.account_failures,
        address_failures=accounts.address_failures,
        failure_window=accounts.failure_window,
        hash_pool=accounts.hash_pool,
        grant_to=accounts.grant_to,
        grant_every=accounts.grant_every,
        password_min=accounts.password_min,
        heavy_reads=accounts.heavy_reads,
        heavy_window=accounts.heavy_window,
    )


def _read_timeouts(config: Any) -> Any:
    """How long an HTTP request's headers and body may take (the process and a gateway)."""
    from feltroom.server.timeouts import ReadTimeouts

    return ReadTimeouts(config.server.header_seconds, config.server.body_seconds)


def _hub_settings(config: Any) -> Any:
    """The websocket protocol's settings from the configuration."""
    from feltroom.server.session import HubSettings

    protocol = config.protocol
    return HubSettings(
        rate=protocol.rate,
        burst=protocol.burst,
        strikes=protocol.strikes,
        chat_rate=protocol.chat_rate,
        chat_burst=protocol.chat_burst,
        outbox=protocol.outbox,
        hello_seconds=protocol.hello_seconds,
        per_address=protocol.connections_per_address,
        per_session=protocol.connections_per_session,
    )


def _handled(signum: int, frame: Any) -> None:
    """A stop signal uvicorn has already acted on."""


def _masked_url(url: str) -> str:
    from feltroom.ops.config import masked

    return str(masked("server", "db", url))


def _runtime_settings(config: Any) -> Any:
    from feltroom.room.runtime import RuntimeSettings
    from feltroom.room.runtime.settings import HomeSettings

    room = config.room
    home = config.home
    think = room.bot_think
    pause = 2.0 if think > 0 else 0.0  # think 0 (benchmarks): the next hand at once
    return RuntimeSettings(
        house_bots=room.house_bots,
        bot_think=(think / 4, think),
        bot_style=room.bot_style,
        between_hands=pause if room.between_hands is None else room.between_hands,
        after_showdown=(2 * pause if room.after_showdown is None else room.after_showdown),
        tournament_bot_wait=10 * pause,  # think 0: bots fill sit-and-gos at once
        disconnect_grace=room.disconnect_grace,
        bot_bankroll=room.bot_bankroll,
        selftest_interval=room.selftest_interval,
        selftest_shuffles=room.selftest_shuffles,
        require_verified=not room.allow_unverified,
        home=HomeSettings(
            games_at_once=home.games_at_once,
            games_per_day=home.games_per_day,
            max_seats=home.max_seats,
            min_big_blind=home.min_big_blind,
            max_big_blind=home.max_big_blind,
            idle_hours=home.idle_hours,
            currencies=home.currencies,
            rake_percent=home.rake_percent,
            rake_cap=home.rake_cap,
            no_flop_no_drop=home.no_flop_no_drop,
        ),
    )


def _serve_cluster(config: Any) -> int:
    """``feltroom serve --role worker|gateway`` (docs/cluster.md)."""
    from feltroom.cluster.serve import serve_gateway, serve_worker

    server = config.server
    if server.role == "gateway":
        return serve_gateway(
            server.db,
            server.broker,
            host=server.host,
            port=server.port,
            limits=_rest_limits(config),
            hub_settings=_hub_settings(config),
            argon2=_argon2(config),
            min_password_length=config.accounts.password_min,
            sign_in_retention_days=config.accounts.sign_in_retention_days,
            forwarded_allow_ips=server.forwarded_allow_ips,
            read_timeouts=_read_timeouts(config),
            home=_runtime_settings(config).home,
        )
    tables = server.tables
    return serve_worker(
        config.server.db,
        config.server.broker,
        lease_seconds=config.server.lease_seconds,
        direct=config.server.direct,
        tables=None if tables is None else str(tables),
        settings=_runtime_settings(config),
        metrics_port=config.server.metrics_port,
        host=config.server.host,
    )


def _config_show(args: argparse.Namespace) -> int:
    """``feltroom config show [--config FILE] [--json]``: every setting, its value (secrets
    masked) and where it came from."""
    from feltroom.ops.config import env_name, shown, shown_value

    loaded = _settings(args, "config show")
    if loaded is None:
        return 2
    settings, sources = loaded
    values = shown(settings)
    if args.json:
        print(
            json.dumps(
                {
                    section: {
                        key: {"value": value, "source": sources[section, key]}
                        for key, value in keys.items()
                    }
                    for section, keys in values.items()
                }
            )
        )
        return 0
    for section, keys in values.items():
        print(f"[{section}]")
        for key, value in keys.items():
            print(
                f"{key} = {shown_value(value)}  # {sources[section, key]}; "
                f"env {env_name(section, key)}"
            )
        print()
    return 0


def _backup(args: argparse.Namespace) -> int:
    """``feltroom backup --db URL --to FILE`` (docs/operations.md, "Backups")."""
    from feltroom.ops.backup import BackupError, backup

    try:
        for line in backup(args.db, args.to):
            print(line, flush=True)
    except BackupError as error:
        print(f"feltroom backup: error: {error}", file=sys.stderr)
        return 2
    return 0


def _restore(args: argparse.Namespace) -> int:
    """``feltroom restore --from FILE --db URL [--force]`` (docs/operations.md, "Backups")."""
    from feltroom.ops.backup import BackupError, restore

    try:
        for line in restore(args.source, args.db, force=args.force):
            print(line, flush=True)
    except BackupError as error:
        print(f"feltroom restore: error: {error}", file=sys.stderr)
        return 2
    return 0


def _add_room_commands(commands: Any) -> None:
    db_help = "database URL (default: sqlite:///data/feltroom.sqlite3)"

    def add_db(parser: argparse.ArgumentParser, default: Any = None) -> None:
        parser.add_argument("--db", default=default, metavar="URL", help=db_help)

    cashier = commands.add_parser("cashier", help="the operator's cashier (deposits, balances)")
    add_db(cashier)
    operations = cashier.add_subparsers(dest="operation", required=True, metavar="OPERATION")
    for name in ("deposit", "withdraw"):
        money = operations.add_parser(name, help=f"{name} money for a player (idempotent by key)")
        add_db(money, argparse.SUPPRESS)
        money.add_argument("--account", required=True, metavar="NAME")
        money.add_argument("--currency", required=True, metavar="CODE", help="PLAY, USD, EUR...")
        money.add_argument("--amount", required=True, metavar="AMOUNT", help="major units: 12.34")
        money.add_argument("--key", required=True, metavar="KEY", help="idempotency key")
    balance = operations.add_parser("balance", help="a player's balances as JSON")
    add_db(balance, argparse.SUPPRESS)
    balance.add_argument("--account", required=True, metavar="NAME")
    cashier.set_defaults(handler=_room_command)

    from feltroom.admin import add_admin_parser

    add_admin_parser(commands, _admin)

    audit = commands.add_parser("audit", help="check the books and the shuffle (JSON)")
    add_db(audit)
    audit.add_argument(
        "--shuffles", type=_count, default=100_000, metavar="N", help="self-test decks (0: skip)"
    )
    audit.set_defaults(handler=_room_command)

    integrity = commands.add_parser(
        "integrity", help="pairs and groups of accounts to review for collusion (JSON with --json)"
    )
    add_db(integrity)
    integrity.add_argument(
        "--since",
        type=_date,
        default=None,
        metavar="DATE",
        help="only hands and sign-ins from this date on (2026-11-01 or 2026-11-01T12:00, UTC)",
    )
    integrity.add_argument(
        "--threshold",
        type=float,
        default=2.0,
        metavar="SCORE",
        help="the score a pair must reach to be reviewed (docs/integrity.md)",
    )
    integrity.add_argument(
        "--account",
        default=None,
        metavar="NAME",
        help="one account's report: the pairs it is in, its groups and its hands",
    )
    integrity.add_argument("--json", action="store_true", help="print one JSON object")
    integrity.set_defaults(handler=_room_command)

    serve = commands.add_parser(
        "serve",
        help="run the room: tables, house bots, status page",
        description="Run the room. Every option is also a setting of the --config file and an "
        "environment variable FELTROOM_<SECTION>__<KEY> (docs/operations.md); a flag wins over "
        "the environment, which wins over the file.",
    )
    serve.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help="the TOML configuration file (default: none; docs/operations.md)",
    )
    for flag, (section, key, kind, metavar, text) in SERVE_FLAGS.items():
        options: dict[str, Any] = {"metavar": metavar} if metavar else {}
        if kind == "choices":
            options["choices"] = _choices(section, key)
        elif kind == "flag":  # a switch: given, the setting is on
            options.update(action="store_const", const=True)
        else:
            options["type"] = kind
        serve.add_argument(
            flag,
            dest=f"{section}.{key}",
            default=argparse.SUPPRESS,
            help=f"{text} (default: {_shown_default(section, key)})",
            **options,
        )
    serve.set_defaults(handler=_serve)

    config = commands.add_parser("config", help="the configuration of feltroom serve")
    shows = config.add_subparsers(dest="operation", required=True, metavar="OPERATION")
    show = shows.add_parser(
        "show",
        help="the effective configuration and where each value comes from (secrets masked)",
    )
    show.add_argument("--config", type=Path, default=None, metavar="FILE", help="a TOML file")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(handler=_config_show)

    backup = commands.add_parser(
        "backup", help="copy the room's database to a file, also while the room runs"
    )
    backup.add_argument("--db", required=True, metavar="URL", help="the database URL")
    backup.add_argument("--to", required=True, type=Path, metavar="FILE", help="the backup file")
    backup.set_defaults(handler=_backup)

    restore = commands.add_parser(
        "restore", help="restore a backup file into a database (the room stopped)"
    )
    restore.add_argument(
        "--from", dest="source", required=True, type=Path, metavar="FILE", help="a backup file"
    )
    restore.add_argument("--db", required=True, metavar="URL", help="the database URL")
    restore.add_argument(
        "--force", action="store_true", help="replace a database that already holds a room"
    )
    restore.set_defaults(handler=_restore)


def _addresses(text: str) -> frozenset[str]:
    """Comma-separated IP addresses, each written as the server sees a client's."""
    from feltroom.ops.config import parse_addresses

    try:
        return parse_addresses(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _networks(text: str) -> tuple[str, ...]:
    """Comma-separated IP addresses or networks (``10.0.0.0/8``), or ``*`` for any."""
    from feltroom.ops.config import parse_networks

    try:
        return parse_networks(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _optional_port(text: str) -> int:
    value = _port(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a port 1..65535, got 0")
    return value


def _choices(section: str, key: str) -> tuple[str, ...]:
    """A setting's valid values, from its type (``Literal[...]``)."""
    import typing

    from feltroom.ops.config import SECTIONS

    annotation = SECTIONS[section].model_fields[key].annotation
    return tuple(str(value) for value in typing.get_args(annotation))


_NONE_MEANS = {
    ("server", "db"): "sqlite:///data/feltroom.sqlite3",
    ("server", "tables"): "the demo tables",
    ("server", "metrics_port"): "none, the main port only",
    ("server", "forwarded_allow_ips"): "none",
}


def _shown_default(section: str, key: str) -> str:
    from feltroom.ops.config import default_of, shown_value

    default = default_of(section, key)
    if (section, key) in _NONE_MEANS and not default:
        return _NONE_MEANS[section, key]
    return shown_value(default)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def _port(text: str) -> int:
    value = _count(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= value <= 60:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected 0..60 seconds, got {text}")
    return value


def _date(text: str) -> float:
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date like 2026-11-01 or 2026-11-01T12:00, got {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of days, got {text!r}") from None
    if not 0 < value <= 36500:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected more than 0 and at most 36500 days, got {text}")
    return value


def _direct(text: str) -> str:
    from feltroom.cluster.direct import parse_address

    try:
        parse_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _lease(text: str) -> float:
    value = _seconds(text)
    if value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a lease of 0.5..60 seconds, got {text}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


SERVE_FLAGS: dict[str, tuple[str, str, Any, str | None, str]] = {
    # flag: (section, key, argparse type or "choices", metavar, help); the default is the
    # setting's (feltroom.ops.config), shown by --help
    "--host": ("server", "host", str, "HOST", "address to listen on"),
    "--port": ("server", "port", _port, "PORT", "port to listen on"),
    "--db": ("server", "db", str, "URL", "database URL"),
    "--tables": ("server", "tables", str, "FILE", "tables file"),
    "--house-bots": ("room", "house_bots", _count, "N", "house bots per table"),
    "--bot-think": (
        "room",
        "bot_think",
        float,
        "SECONDS",
        "a house bot's longest thinking time (0: bots act at once, hands follow at once)",
    ),
    "--bot-style": ("room", "bot_style", "choices", None, "how house bots play (docs/bots.md)"),
    "--allow-unverified": (
        "room",
        "allow_unverified",
        "flag",
        None,
        "let accounts the operator has not verified play real money (feltroom admin verify "
        "NAME; docs/operator.md)",
    ),
    "--signup-exempt": (
        "accounts",
        "signup_exempt",
        _addresses,
        "ADDRS",
        "comma-separated client addresses without the sign-up limit ('' for none)",
    ),
    "--signups": (
        "accounts",
        "signups",
        _positive,
        "N",
        "sign-ups allowed per client address in 10 minutes",
    ),
    "--forwarded-allow-ips": (
        "server",
        "forwarded_allow_ips",
        _networks,
        "ADDRS",
        "comma-separated addresses or networks of the reverse proxies whose X-Forwarded-For is "
        "believed (docs/room.md)",
    ),
    "--hash-pool": (
        "accounts",
        "hash_pool",
        _positive,
        "N",
        "passwords hashed at once, each 64 MiB",
    ),
    "--sign-in-retention-days": (
        "accounts",
        "sign_in_retention_days",
        _days,
        "DAYS",
        "how long the sign-in log keeps each sign-in (docs/integrity.md)",
    ),
    "--role": (
        "server",
        "role",
        "choices",
        None,
        "all: the whole room in this process; worker: a cluster's worker owns tables under "
        "leases (docs/cluster.md)",
    ),
    "--broker": (
        "server",
        "broker",
        str,
        "URL",
        "the cluster's broker, redis://:PASSWORD@host:6379/0 (the worker role)",
    ),
    "--direct": (
        "server",
        "direct",
        _direct,
        "ADDRESS",
        "where a worker's direct links listen: HOST:PORT or unix:PATH (docs/cluster.md)",
    ),
    "--lease-seconds": (
        "server",
        "lease_seconds",
        _lease,
        "S",
        "how long a worker's table lease runs without renewal",
    ),
    "--log-level": ("log", "level", "choices", None, "the room's log level (debug: each hand)"),
    "--log-format": ("log", "format", "choices", None, "text lines or one JSON object a line"),
    "--metrics-port": (
        "server",
        "metrics_port",
        _optional_port,
        "P",
        "also serve GET /metrics on a listener of its own on this port",
    ),
    "--metrics-allow": (
        "server",
        "metrics_allow",
        _networks,
        "ADDRS",
        "comma-separated addresses or networks that may read GET /metrics on the main port",
    ),
}
"""The flags of ``feltroom serve`` and the settings they set (flag > environment > file)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``feltroom`` console script."""
    args = _parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())

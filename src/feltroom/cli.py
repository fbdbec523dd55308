"""The ``feltroom`` command line.

Each subcommand is a small function here that parses its arguments and calls into the layers; the
command-line forms that issues spell out are contracts and stay as written.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import ipaddress
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


def _simulate_tournament(args: argparse.Namespace) -> int:
    """A whole tournament offline (issue 18): one JSON line; exit 0 only without violations."""
    from feltroom.simulate_tournament import simulate_tournament

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
        choices=["evaluator", "engine", "room", "server", "signups", "integrity", "tournament"],
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
        choices=("sng", "mtt"),
        help="run one whole tournament instead (with --players; docs/tournaments.md)",
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
    [--accounts FILE] [--tournament ID]``:
    network bots over the public protocol (docs/bots.md); exit 0 when done or stopped."""
    from feltroom.bots.client import endpoints
    from feltroom.bots.runner import BotSettings
    from feltroom.bots.runner import main as run

    try:
        endpoints(args.url)
        settings = BotSettings(
            args.url, args.count, args.hands, args.think, args.style, accounts=args.accounts
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
        storage = open_storage(args.db)
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
            code, result = operator.run_cancel_tournament(storage, args.id)
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


def _serve(args: argparse.Namespace) -> int:
    """``feltroom serve``: the composition root. It opens the store, builds the room's services
    and the table runtime on it, and puts them behind the ASGI application."""
    import logging

    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from feltroom.room import Accounts, Cashier, RoomError, Settlement
    from feltroom.room.runtime import RoomRuntime
    from feltroom.room.signins import SignInLog
    from feltroom.room.tables_config import load_tables, room_tables
    from feltroom.room.tournaments_config import load_tournaments
    from feltroom.server import create_app, serve
    from feltroom.server.rest import RestLimits
    from feltroom.store import DEFAULT_URL, open_storage

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if args.role != "all":
        return _serve_cluster(args)
    try:
        load_tables(args.tables)  # a bad tables file is refused before the database opens
        tournaments = load_tournaments(args.tables)
    except (RoomError, OSError) as error:
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return 2
    url = args.db or DEFAULT_URL
    try:
        storage = open_storage(url)
    except (SQLAlchemyError, CommandError, ValueError, OSError) as error:
        print(f"feltroom serve: cannot open the database {url!r}: {error}", file=sys.stderr)
        return 2
    try:  # the database is the tables' source of truth; the file only seeds it
        tables = room_tables(storage, args.tables)
    except (RoomError, OSError) as error:
        storage.close()
        print(f"feltroom serve: error: {error}", file=sys.stderr)
        return 2
    settings = _runtime_settings(args)
    runtime = RoomRuntime(
        Settlement(storage),
        Accounts(storage),
        Cashier(storage),
        tables,
        tournaments=tournaments,
        settings=settings,
    )

    def ready(address: str) -> None:
        print(
            f"feltroom: {len(tables)} tables, {len(tournaments)} tournaments, "
            f"{args.house_bots} house bots a table, books in {url}; open {address}",
            flush=True,
        )

    try:
        limits = RestLimits(
            signups=args.signups, signup_exempt=args.signup_exempt, hash_pool=args.hash_pool
        )
        sign_ins = SignInLog(storage, retention_days=args.sign_in_retention_days)
        serve(
            create_app(runtime, limits=limits, sign_ins=sign_ins),
            args.host,
            args.port,
            on_ready=ready,
            forwarded_allow_ips=args.forwarded_allow_ips,
        )
    except KeyboardInterrupt:
        pass
    finally:
        storage.close()
    return 0


def _runtime_settings(args: argparse.Namespace) -> Any:
    from feltroom.room.runtime import RuntimeSettings

    think = args.bot_think
    return RuntimeSettings(
        house_bots=args.house_bots,
        bot_think=(think / 4, think),
        bot_style=args.bot_style,
        between_hands=2.0 if think > 0 else 0.0,
        after_showdown=4.0 if think > 0 else 0.0,  # think 0 (benchmarks): the next hand at once
        tournament_bot_wait=20.0 if think > 0 else 0.0,  # think 0: bots fill sit-and-gos at once
    )


def _serve_cluster(args: argparse.Namespace) -> int:
    """``feltroom serve --role worker`` (docs/cluster.md)."""
    from feltroom.cluster.serve import serve_worker

    return serve_worker(
        args.db,
        args.broker,
        lease_seconds=args.lease_seconds,
        tables=args.tables,
        settings=_runtime_settings(args),
    )


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

    serve = commands.add_parser("serve", help="run the room: tables, house bots, status page")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on")
    add_db(serve)
    serve.add_argument(
        "--tables", default=None, metavar="FILE", help="tables file (default: the demo tables)"
    )
    serve.add_argument(
        "--house-bots", type=_count, default=3, metavar="N", help="house bots per table"
    )
    serve.add_argument(
        "--bot-think",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="a house bot's longest thinking time (0: bots act at once, hands follow at once)",
    )
    serve.add_argument(
        "--bot-style",
        choices=("random", "station", "tag"),
        default="tag",
        help="how house bots play (docs/bots.md)",
    )
    serve.add_argument(
        "--signup-exempt",
        type=_addresses,
        default=_addresses(SIGNUP_EXEMPT),
        metavar="ADDRS",
        help="comma-separated client addresses without the sign-up limit (default: "
        f"{SIGNUP_EXEMPT}; '' for none)",
    )
    serve.add_argument(
        "--signups",
        type=_positive,
        default=5,
        metavar="N",
        help="sign-ups allowed per client address in 10 minutes (default: 5)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        type=_networks,
        default=(),
        metavar="ADDRS",
        help="comma-separated addresses or networks of the reverse proxies whose "
        "X-Forwarded-For is believed (default: none; docs/room.md)",
    )
    serve.add_argument(
        "--hash-pool",
        type=_positive,
        default=2,
        metavar="N",
        help="passwords hashed at once, each 64 MiB (default: 2)",
    )
    serve.add_argument(
        "--sign-in-retention-days",
        type=_days,
        default=90.0,
        metavar="DAYS",
        help="how long the sign-in log keeps each sign-in (docs/integrity.md)",
    )
    serve.add_argument(
        "--role",
        choices=("all", "worker"),
        default="all",
        help="all: the whole room in this process (default); worker: a cluster's worker owns "
        "tables under leases (docs/cluster.md; the gateway role is not built yet)",
    )
    serve.add_argument(
        "--broker",
        default=None,
        metavar="URL",
        help="the cluster's broker, redis://:PASSWORD@host:6379/0 (the worker role)",
    )
    serve.add_argument(
        "--lease-seconds",
        type=_lease,
        default=3.0,
        metavar="S",
        help="how long a worker's table lease runs without renewal (default 3)",
    )
    serve.set_defaults(handler=_serve)


SIGNUP_EXEMPT = "127.0.0.1,::1"
"""``feltroom serve --signup-exempt``'s default: the machine itself, so that ``feltroom bots``
keeps working there; no other loopback address (127.0.0.2 is not exempt)."""


def _addresses(text: str) -> frozenset[str]:
    """Comma-separated IP addresses, each written as the server sees a client's."""
    found = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            found.add(str(ipaddress.ip_address(part)))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not an IP address; give addresses such as 127.0.0.1,::1"
            ) from None
    return frozenset(found)


def _networks(text: str) -> tuple[str, ...]:
    """Comma-separated IP addresses or networks (``10.0.0.0/8``), or ``*`` for any."""
    found: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if part != "*":
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"{part!r} is not an IP address or network; give addresses or networks "
                    "such as 10.0.0.1,192.168.0.0/16 (or * for any: only behind a proxy)"
                ) from None
        found.append(part)
    return tuple(found)


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``feltroom`` console script."""
    args = _parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())

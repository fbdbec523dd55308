"""The ``feltroom`` command line.

Each subcommand is a small function here that parses its arguments and calls into the layers; the
command-line forms that issues spell out are contracts and stay as written.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from feltroom import __version__
from feltroom.cards import format_cards
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
    spec = importlib.util.spec_from_file_location(f"feltroom_bench_{args.target}", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    run: Callable[[list[str]], int] = module.main
    return run(args.rest)


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
    bench.add_argument("target", choices=["evaluator"])
    bench.add_argument(
        "rest", nargs=argparse.REMAINDER, help="the benchmark's own options, e.g. --json"
    )
    bench.set_defaults(handler=_bench)
    return parser


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

"""`feltroom bench evaluator [--json]`: our evaluator and its peers, side by side in one run.

Single call: the same fixed-seed 7-card hands for every library, each in the library's native card
form prepared before timing, one call per hand in a plain loop: feltroom (``evaluate7`` on a tuple
of card indices), treys, phevaluator (its public ``evaluate_cards``), eval7 (compiled) and PokerKit.
Each library gets the best of up to three passes (no further pass once one takes over ten seconds).

Batch: an (N, 7) uint8 array of card indices prepared before timing; ``evaluate_batch`` on one core.

``--json`` prints ``{"single": {"feltroom": r, "treys": r, ...}, "batch": {"feltroom": r}}`` in
evaluations per second.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from feltroom.batch import evaluate_batch
from feltroom.evaluate import evaluate7

NAMES = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
PASSES = 3
PASS_BUDGET_SECONDS = 10.0


def _time(run: Callable[[], object], count: int) -> float:
    best = float("inf")
    for _ in range(PASSES):
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > PASS_BUDGET_SECONDS:
            break
    return count / best


def single(hands: list[tuple[int, ...]]) -> dict[str, float]:
    """Evaluations per second of one call per hand, for us and each peer."""
    rates: dict[str, float] = {}

    def ours() -> None:
        for hand in hands:
            evaluate7(hand)

    rates["feltroom"] = _time(ours, len(hands))

    from treys import Card as TreysCard
    from treys import Evaluator as TreysEvaluator

    treys = TreysEvaluator()
    treys_cards = [TreysCard.new(name) for name in NAMES]
    treys_hands = [
        ([treys_cards[i] for i in h[2:]], [treys_cards[i] for i in h[:2]]) for h in hands
    ]

    def run_treys() -> None:
        for board, hole in treys_hands:
            treys.evaluate(board, hole)

    rates["treys"] = _time(run_treys, len(hands))

    from phevaluator import evaluate_cards

    def run_phevaluator() -> None:
        for hand in hands:
            evaluate_cards(*hand)

    rates["phevaluator"] = _time(run_phevaluator, len(hands))

    import eval7

    eval7_cards = [eval7.Card(name) for name in NAMES]
    eval7_hands = [[eval7_cards[i] for i in hand] for hand in hands]

    def run_eval7() -> None:
        for hand in eval7_hands:
            eval7.evaluate(hand)

    rates["eval7"] = _time(run_eval7, len(hands))

    from pokerkit import Card as PokerKitCard
    from pokerkit import StandardHighHand

    pk_cards = [next(iter(PokerKitCard.parse(name))) for name in NAMES]
    pk_hands = [
        (tuple(pk_cards[i] for i in h[:2]), tuple(pk_cards[i] for i in h[2:])) for h in hands
    ]

    def run_pokerkit() -> None:
        for hole, board in pk_hands:
            StandardHighHand.from_game(hole, board)

    rates["pokerkit"] = _time(run_pokerkit, len(hands))
    return rates


def batch(count: int, seed: int) -> dict[str, float]:
    """Evaluations per second of the numpy batch evaluator on an (N, 7) uint8 array."""
    rng = np.random.default_rng(seed)
    hands = np.empty((count, 7), dtype=np.uint8)
    for start in range(0, count, 100_000):
        block = np.argsort(rng.random((min(100_000, count - start), 52)), axis=1)[:, :7]
        hands[start : start + len(block)] = block
    evaluate_batch(hands[:1000])  # warm up
    return {"feltroom": _time(lambda: evaluate_batch(hands), count)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench evaluator")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hands", type=int, default=200_000, help="single-call hands")
    parser.add_argument("--batch", type=int, default=1_000_000, help="rows of the batch")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(args.hands)]
    report: dict[str, Any] = {"single": single(hands), "batch": batch(args.batch, args.seed)}
    if args.json:
        print(json.dumps(report))
        return 0
    base = report["single"]["treys"]
    print(f"single call, {args.hands:,} fixed-seed 7-card hands (evaluations per second):")
    for name, rate in sorted(report["single"].items(), key=lambda item: -item[1]):
        print(f"  {name:12} {rate:14,.0f}   {rate / base:6.1f}x treys")
    print(f"batch, ({args.batch:,}, 7) uint8 on one core:")
    print(f"  {'feltroom':12} {report['batch']['feltroom']:14,.0f}")
    return 0

"""`feltroom bench engine [--json]`: our hand engine and PokerKit, side by side in one run.

Workloads (hands per second, higher is better):

- ``nl_random`` / ``fl_random``: 6-max No-Limit (blinds 1/2) and Fixed-Limit (2/4) hands with
  random stacks and a random-action policy; ``call_down``: 6-max No-Limit where everyone checks
  or calls to the showdown. Both engines get the same deck for each hand (from the same seed;
  PokerKit's shuffle is replaced by that deck) and the same policy drawing from the same seeded
  RNG, so they play the same hands. PokerKit runs with all its automations (posting, burning,
  dealing, showdown, pushing and pulling chips).
- ``phh_replay``: one ``.phhs`` file of 1,000 random multi-player FL and NL hands written by our
  PHH writer into a temporary folder; the whole ``feltroom replay`` path (read, parse, replay,
  compare, print) against PokerKit's ``HandHistory.load_all`` and replay of the same file.

``--json`` prints ``{"<workload>": {"feltroom": r, "pokerkit": r}, ...}``. Without it, a table
with the ratios, and the replay rate of the shared corpus (../shared/phh) when it is present.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from feltroom.cards import CARDS, Card
from feltroom.history import phh
from feltroom.history.replay import record_from_hand, replay_paths
from feltroom.rules import FixedLimit, Hand, NoLimit, RaiseTo, blinds

PLAYERS = 6
CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "phh"


def _deck(seed: int) -> list[Card]:
    deck = list(CARDS)
    random.Random(seed).shuffle(deck)
    return deck


def _stacks(rng: random.Random) -> list[int]:
    return [rng.randint(40, 400) for _ in range(PLAYERS)]


# ---------------------------------------------------------------------------------- feltroom


def _feltroom_play(kind: str, hands: int, seed: int) -> float:
    structure = FixedLimit(2, 4) if kind == "fl" else NoLimit(2)
    seats = list(range(1, PLAYERS + 1))
    start = time.perf_counter()
    for h in range(hands):
        rng = random.Random(seed * 1_000_003 + h)
        players = list(zip(seats, _stacks(rng), strict=True))
        hand = Hand(structure, players, PLAYERS, blinds(players, PLAYERS, 1, 2), _deck(h))
        act = hand.act
        if kind == "call":
            while not hand.is_over:
                hand.check_or_call()
            continue
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            r = rng.random()
            low, high = legal.raise_min, legal.raise_max
            if low is not None and high is not None and r < 0.25:
                act(RaiseTo(low if low == high else (high if r < 0.05 else rng.randint(low, high))))
            elif legal.fold and r < 0.45:
                hand.fold()
            else:
                hand.check_or_call()
    return hands / (time.perf_counter() - start)


# ---------------------------------------------------------------------------------- pokerkit


def _pokerkit_play(kind: str, hands: int, seed: int) -> float:
    import pokerkit.state
    from pokerkit import Automation, FixedLimitTexasHoldem, Mode, NoLimitTexasHoldem
    from pokerkit import Card as PKCard

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.RUNOUT_COUNT_SELECTION,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    cards = [next(iter(PKCard.parse(str(card)))) for card in CARDS]
    pending: list[list[Any]] = [[]]

    def same_deck(deck: Any) -> None:  # replaces PokerKit's shuffle with our seeded deck
        deck.clear()
        deck.extend(pending[0])

    original = pokerkit.state.shuffle
    pokerkit.state.shuffle = same_deck  # type: ignore[attr-defined]
    try:
        if kind == "fl":
            game: Any = FixedLimitTexasHoldem(
                automations, True, 0, (1, 2), 2, 4, mode=Mode.CASH_GAME
            )
        else:
            game = NoLimitTexasHoldem(automations, True, 0, (1, 2), 2, mode=Mode.CASH_GAME)
        start = time.perf_counter()
        for h in range(hands):
            rng = random.Random(seed * 1_000_003 + h)
            stacks = _stacks(rng)
            pending[0] = [cards[card.index] for card in _deck(h)]
            state = game(stacks, PLAYERS)
            if kind == "call":
                while state.actor_index is not None:
                    state.check_or_call()
                continue
            while state.actor_index is not None:
                r = rng.random()
                if state.can_complete_bet_or_raise_to() and r < 0.25:
                    low = state.min_completion_betting_or_raising_to_amount
                    high = state.max_completion_betting_or_raising_to_amount
                    state.complete_bet_or_raise_to(
                        low if low == high else (high if r < 0.05 else rng.randint(low, high))
                    )
                elif state.checking_or_calling_amount and r < 0.45:
                    state.fold()
                else:
                    state.check_or_call()
        return hands / (time.perf_counter() - start)
    finally:
        pokerkit.state.shuffle = original  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------- phh replay


def _phh_file(folder: Path, hands: int, seed: int) -> Path:
    """1,000 random multi-player FL and NL hands, written by our PHH writer as one .phhs file.
    Every stack covers the blinds, FL stacks are deep and FL raises capped even heads-up, so that
    PokerKit (whose short-blind, FL all-in and heads-up cap rules differ from ours) can replay
    every hand."""
    rng = random.Random(seed)
    records = []
    for h in range(hands):
        n = rng.randint(3, 9)
        seats = list(range(1, n + 1))
        limit = h % 2 == 1
        structure: FixedLimit | NoLimit = (
            FixedLimit(2, 4, 4, uncapped_heads_up=False) if limit else NoLimit(2)
        )
        floor = 200 if limit else 5
        players = [(seat, rng.randint(floor, 400)) for seat in seats]
        hand = Hand(structure, players, n, blinds(players, n, 1, 2), _deck(seed + h))
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            r = rng.random()
            low, high = legal.raise_min, legal.raise_max
            if low is not None and high is not None and r < 0.2:
                hand.act(RaiseTo(high if r < 0.02 else rng.randint(low, high)))
            elif legal.fold and r < 0.4:
                hand.fold()
            else:
                hand.check_or_call()
        records.append(record_from_hand(hand, names=[f"player{s}" for s in hand.seats]))
    path = folder / "random.phhs"
    path.write_text(phh.dumps_all(records), encoding="utf-8")
    return path


def _feltroom_replay(path: Path, hands: int) -> float:
    start = time.perf_counter()
    out = io.StringIO()
    status = replay_paths([path], out)
    elapsed = time.perf_counter() - start
    assert status == 0, out.getvalue()[:2000]
    assert out.getvalue().count("\n") == hands
    return hands / elapsed


def _pokerkit_replay(path: Path, hands: int) -> float:
    from pokerkit import HandHistory

    start = time.perf_counter()
    count = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with path.open("rb") as file:
            for history in HandHistory.load_all(file):
                for _state in history:
                    pass
                count += 1
    elapsed = time.perf_counter() - start
    assert count == hands
    return hands / elapsed


def corpus_rate() -> tuple[int, float] | None:
    """Hands per second of ``feltroom replay`` over ../shared/phh (None when absent)."""
    if not CORPUS.is_dir():
        return None
    out = io.StringIO()
    start = time.perf_counter()
    replay_paths([CORPUS], out)
    elapsed = time.perf_counter() - start
    hands = out.getvalue().count("\n")
    return hands, hands / elapsed


def _best(run: Callable[[], float], passes: int) -> float:
    return max(run() for _ in range(passes))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench engine")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hands", type=int, default=4000, help="feltroom hands per workload")
    parser.add_argument(
        "--pokerkit-hands", type=int, default=400, help="PokerKit hands per workload"
    )
    parser.add_argument("--replay-hands", type=int, default=1000, help="hands in the .phhs file")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    report: dict[str, dict[str, float]] = {}
    for workload, kind in (("nl_random", "nl"), ("fl_random", "fl"), ("call_down", "call")):
        report[workload] = {
            "feltroom": _best(lambda k=kind: _feltroom_play(k, args.hands, args.seed), 2),
            "pokerkit": _pokerkit_play(kind, args.pokerkit_hands, args.seed),
        }
    with tempfile.TemporaryDirectory() as folder:
        path = _phh_file(Path(folder), args.replay_hands, args.seed)
        report["phh_replay"] = {
            "feltroom": _best(lambda: _feltroom_replay(path, args.replay_hands), 2),
            "pokerkit": _pokerkit_replay(path, args.replay_hands),
        }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{'workload':12} {'feltroom':>12} {'pokerkit':>12} {'ratio':>8}   (hands per second)")
    for workload, rates in report.items():
        ratio = rates["feltroom"] / rates["pokerkit"]
        print(f"{workload:12} {rates['feltroom']:12,.0f} {rates['pokerkit']:12,.1f} {ratio:7.1f}x")
    corpus = corpus_rate()
    if corpus is not None:
        hands, rate = corpus
        print(f"feltroom replay of ../shared/phh: {hands:,} hands at {rate:,.0f} hands per second")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))

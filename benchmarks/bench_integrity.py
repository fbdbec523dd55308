"""`feltroom bench integrity [--json]`: the integrity report measured against planted colluders.

For each of ``--seeds`` seeds (default 10) the room runs on a temporary SQLite database (in
memory-backed /dev/shm where there is one; ``synchronous=FULL`` as always) with 60 house bots on
eight six-seat No-Limit 1/2 play-money tables (48 seats: twelve players wait on the rail at any
time, so everyone sits with everyone often): 28 honest ``tag`` and 28 honest ``station`` bots,
and four planted colluders:

- a pair that shares hole cards and never raises each other
  (``feltroom.strategy.collusion.CardSharingBrain``);
- a pair where one dumps chips to the other (``DumperBrain`` to ``ReceiverBrain``).

Between hands each seated player leaves with probability 1/30, and players on the rail take the
free seats at random. The colluders move together (they leave together, and sit down together
at a table with two free seats, or the second joins the first when a seat frees there), and so
do two honest pairs of friends (the false-positive case of seats taken together), who also sign
in from one home address with one browser. The sign-in log is written for every account
(a home address each, a common browser, and a public café address twelve of them use).

After ``--hands`` hands (default 10,000) the report (``feltroom integrity``) runs on the
database, and a pair counts as flagged when its score reaches the default threshold. Printed:
the precision and recall of the flagged pairs against the two planted pairs, averaged over the
seeds (a seed that flags nothing counts as precision 0), and per seed what was flagged.

``--json`` prints one object: ``{"seeds", "hands_per_seed", "players", "tables", "threshold",
"precision", "recall", "runs": [...]}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from feltroom.integrity import DEFAULT_THRESHOLD
from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.housebots import HouseBot
from feltroom.room.integrity import room_integrity_report
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.signins import SignInLog
from feltroom.room.tables_config import parse_tables
from feltroom.rules import Action, Hand
from feltroom.store import open_storage
from feltroom.strategy import StationBrain, TagBrain
from feltroom.strategy.collusion import CardSharingBrain, DumperBrain, Partner, ReceiverBrain

PLAYERS = 60
TABLES = 8
SEATS = 6
LEAVE = 1 / 30
BUY_IN = 200
AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Mobile/15E148",
    "Mozilla/5.0 (Linux; Android 15; Pixel 9) Chrome/131.0 Mobile",
)


@dataclass(slots=True)
class Where:
    """Where the bench seated each player: account -> (table id, seat)."""

    seats: dict[str, tuple[str, int]] = field(default_factory=dict)


@dataclass(slots=True)
class PlantedBot(HouseBot):
    """A colluder: a house bot whose brain hears from its partner (seat and hole cards) when
    both are dealt into the same hand. What the partner tells is what its own view shows."""

    partner: str = ""
    where: Where | None = None

    def choose(self, hand: Hand, seat: int) -> Action:
        legal = hand.legal_actions()
        assert legal is not None
        assert self.where is not None
        told = None
        mine = self.where.seats.get(self.account)
        theirs = self.where.seats.get(self.partner)
        if (
            mine is not None
            and theirs is not None
            and mine[0] == theirs[0]
            and theirs[1] in hand.seats
        ):
            cards = hand.view_for(theirs[1]).players[hand.seats.index(theirs[1])].cards
            if cards is not None and cards[0] is not None and cards[1] is not None:
                told = Partner(theirs[1], (cards[0], cards[1]))
        brain = self.brain
        assert isinstance(brain, CardSharingBrain | DumperBrain | ReceiverBrain)
        return brain.choose(hand.view_for(seat), legal, told)


@dataclass(slots=True)
class Player:
    account: str
    role: str
    bot: HouseBot
    partner: str | None = None
    waiting_since: int = 0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _tables() -> str:
    return "".join(
        f'[[table]]\nid = "t{k}"\nstructure = "no_limit"\nbig_blind = 2\nsmall_blind = 1\n'
        f'currency = "PLAY"\nmax_seats = {SEATS}\nmin_buy_in = 40\nmax_buy_in = {BUY_IN}\n'
        for k in range(1, TABLES + 1)
    )


def _players(rng: random.Random, where: Where) -> list[Player]:
    names = [f"p{k:02d}" for k in range(1, PLAYERS + 1)]
    rng.shuffle(names)
    roles = ["sharer", "sharer", "dumper", "receiver", *(["tag"] * 28), *(["station"] * 28)]
    players = []
    for name, role in zip(names, roles, strict=True):
        seed = rng.getrandbits(32)
        bot: HouseBot
        if role == "sharer":
            bot = PlantedBot(name, CardSharingBrain(seed), where=where)
        elif role == "dumper":
            bot = PlantedBot(name, DumperBrain(seed), where=where)
        elif role == "receiver":
            bot = PlantedBot(name, ReceiverBrain(seed), where=where)
        elif role == "tag":
            bot = HouseBot(name, TagBrain(seed, samples=100), reads_view=True)
        else:
            bot = HouseBot(name, StationBrain(seed))
        players.append(Player(name, role, bot))
    by_role: dict[str, list[Player]] = {}
    for player in players:
        by_role.setdefault(player.role, []).append(player)
    pairs = [
        (by_role["sharer"][0], by_role["sharer"][1]),
        (by_role["dumper"][0], by_role["receiver"][0]),
        (by_role["tag"][0], by_role["station"][0]),  # honest friends
        (by_role["tag"][1], by_role["tag"][2]),  # honest friends
    ]
    for a, b in pairs:
        a.partner, b.partner = b.account, a.account
        if isinstance(a.bot, PlantedBot):
            a.bot.partner = b.account
        if isinstance(b.bot, PlantedBot):
            b.bot.partner = a.account
    return players


async def _move(
    runtime: RoomRuntime, players: list[Player], where: Where, rng: random.Random, step: int
) -> None:
    """Between hands: some leave (a pair leaves together); players on the rail take free seats
    (a pair a table with two free seats, or the partner's table)."""
    by_name = {player.account: player for player in players}
    for account, (table_id, _) in list(where.seats.items()):
        if runtime.runners[table_id].table.seat_of(account) is None:
            # The room stood the bot up itself (a stack past the house bots' bound is
            # bought in again at the table's size): it waits on the rail like any other.
            del where.seats[account]
            by_name[account].waiting_since = step
    leaving: set[str] = set()
    for player in players:
        if player.account in where.seats and rng.random() < LEAVE:
            leaving.add(player.account)
            if player.partner and player.partner in where.seats:
                leaving.add(player.partner)
    for account in sorted(leaving):
        table_id, _ = where.seats.pop(account)
        await runtime.leave(table_id, account)
        by_name[account].waiting_since = step
    free = {
        table_id: [s for s in range(1, SEATS + 1) if s not in runner.table.seats]
        for table_id, runner in runtime.runners.items()
    }
    rail = [p for p in players if p.account not in where.seats]
    rng.shuffle(rail)
    for player in rail:
        if player.account in where.seats:
            continue  # seated with its partner just now
        partner = by_name.get(player.partner or "")
        company = [player]
        if partner is not None and partner.account in where.seats:
            table_id = where.seats[partner.account][0]
            if not free[table_id]:
                continue  # wait for a seat at the partner's table
            choices = [table_id]
        else:
            if partner is not None:
                company.append(partner)
            choices = [t for t, seats in free.items() if len(seats) >= len(company)]
            if not choices and len(company) == 2 and step - player.waiting_since > 20:
                company = [player]  # waited long enough: one goes ahead
                choices = [t for t, seats in free.items() if seats]
        if not choices:
            continue
        target = rng.choice(choices)
        for member in company:
            seat = rng.choice(free[target])
            free[target].remove(seat)
            await runtime.seat_house_bot(target, member.bot, seat, BUY_IN)
            where.seats[member.account] = (target, seat)


def _sign_ins(storage: Any, clock: Clock, players: list[Player], rng: random.Random) -> None:
    log = SignInLog(storage, clock=clock, retention_days=3650)
    homes = {
        player.account: f"10.{k // 250}.{k % 250}.{rng.randrange(1, 250)}"
        for k, player in enumerate(players)
    }
    agents = {player.account: rng.choice(AGENTS) for player in players}
    for player in players:
        if player.partner and player.role in ("tag", "station"):  # friends: one home, one browser
            first = min(player.account, player.partner)
            homes[player.account] = homes[first]
            agents[player.account] = agents[first] + " friends-home"
    cafe = rng.sample(players, 12)
    for player in players:
        for _ in range(rng.randrange(3, 9)):
            clock.now += rng.uniform(60, 3600)
            log.record(player.account, homes[player.account], agents[player.account])
        if player in cafe:
            log.record(player.account, "192.0.2.80", agents[player.account])


async def _play(
    runtime: RoomRuntime, clock: Clock, players: list[Player], hands: int, seed: int
) -> None:
    rng = random.Random(seed)
    where = Where()
    for player in players:
        if isinstance(player.bot, PlantedBot):
            player.bot.where = where
    await runtime.start()
    try:
        step = 0
        await _move(runtime, players, where, rng, step)
        while runtime.hands_settled < hands:
            step += 1
            clock.now += 1.0
            await asyncio.gather(*(runner.drive(clock.now) for runner in runtime.runners.values()))
            await _move(runtime, players, where, rng, step)
            if step > 50 * hands:
                raise RuntimeError("the tables stopped dealing")
    finally:
        await runtime.stop()


def run_seed(seed: int, hands: int, threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    """One run: the room plays ``hands`` hands, then the report; returns what it found."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-integrity-", dir=base))
    started = time.perf_counter()
    try:
        storage = open_storage(f"sqlite:///{folder / 'room.sqlite3'}")
        clock = Clock()
        rng = random.Random(seed)
        players = _players(rng, Where())
        runtime = RoomRuntime(
            Settlement(storage, clock=clock),
            Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock),
            Cashier(storage, clock=clock),
            parse_tables(_tables()),
            settings=RuntimeSettings(
                house_bots=0,
                bot_think=(0.0, 0.0),
                between_hands=1.0,
                selftest_first=float("inf"),
            ),
            clock=clock,
        )
        asyncio.run(_play(runtime, clock, players, hands, seed))
        played = runtime.hands_settled
        _sign_ins(storage, clock, players, rng)
        report = room_integrity_report(storage, threshold=threshold)
        storage.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    planted = {
        "card_sharing": frozenset(p.account for p in players if p.role == "sharer"),
        "chip_dumping": frozenset(p.account for p in players if p.role in ("dumper", "receiver")),
    }
    friends = {
        frozenset((p.account, p.partner))
        for p in players
        if p.partner and p.role in ("tag", "station")
    }
    flagged = [frozenset(entry["accounts"]) for entry in report["pairs"]]
    found = [name for name, pair in planted.items() if pair in flagged]
    false = [
        {
            "accounts": entry["accounts"],
            "score": entry["score"],
            "signals": {name: found["score"] for name, found in entry["signals"].items()},
        }
        for entry in report["pairs"]
        if frozenset(entry["accounts"]) not in planted.values()
    ]
    signals = {
        name: sorted(
            signal
            for entry in report["pairs"]
            if frozenset(entry["accounts"]) == pair
            for signal, evidence in entry["signals"].items()
            if evidence["score"] >= threshold
        )
        for name, pair in planted.items()
    }
    return {
        "seed": seed,
        "hands": played,
        "flagged": len(flagged),
        "found": found,
        "signals_at_threshold": signals,
        "false_positives": false,
        "friends_flagged": sum(1 for pair in flagged if pair in friends),
        "precision": round(len(found) / len(flagged), 3) if flagged else 0.0,
        "recall": round(len(found) / len(planted), 3),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench integrity", description=__doc__)
    parser.add_argument("--seeds", type=int, default=10, metavar="N")
    parser.add_argument("--hands", type=int, default=10_000, metavar="H", help="hands per seed")
    parser.add_argument("--first-seed", type=int, default=1, metavar="S")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.hands < 1:
        parser.error("--seeds and --hands must be at least 1")
    logging.basicConfig(level=logging.ERROR)
    runs = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        run = run_seed(seed, args.hands)
        runs.append(run)
        print(
            f"seed {seed}: {run['hands']} hands, {run['flagged']} flagged, found "
            f"{run['found']}, false positives {run['false_positives']} ({run['seconds']} s)",
            file=sys.stderr if args.json else sys.stdout,
            flush=True,
        )
    precision = round(sum(run["precision"] for run in runs) / len(runs), 3)
    recall = round(sum(run["recall"] for run in runs) / len(runs), 3)
    summary = {
        "seeds": args.seeds,
        "hands_per_seed": args.hands,
        "players": PLAYERS,
        "tables": TABLES,
        "threshold": DEFAULT_THRESHOLD,
        "precision": precision,
        "recall": recall,
        "runs": runs,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"precision {precision}, recall {recall} over {args.seeds} seeds")
    return 0

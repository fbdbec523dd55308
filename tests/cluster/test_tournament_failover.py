"""A tournament's worker killed (SIGKILL), stopped cleanly (SIGTERM) or paused past its lease
(SIGSTOP, then SIGCONT) mid-tournament, on a real PostgreSQL and Redis (docs/cluster.md,
"Tournaments"): another worker takes the tournament over from the books and its journal within
10 s and plays it to its end. After a kill or a pause the hands in progress are void with their
start-of-hand stacks and the level clock resumes where it stood (R-TOURN-12, R-TOURN-13), and
the paused worker, woken, stops the tournament; after a clean stop no hand is void. Every time
every place is given once, the prizes are the prize pool and each is paid once (each player's
wallet holds exactly its prize), and the books pass the audit."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest

from feltroom.cluster.client import TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.room.ledger import player_wallet_key
from feltroom.room.storage import JournalRow, Storage
from feltroom.room.tournament_journal import replay
from feltroom.store import open_storage
from services import RedisServer

from .support import TABLES, Workers, leases, until_ok, wait_for

pytestmark = pytest.mark.slow  # (a minute or two each: processes, a whole tournament)

SIX = """
[[tournament]]
id = "six"
format = "sng"
seats_per_table = 2
max_entries = 4
starting_stack = 60
buy_in = 1000
fee = 100
"""

BOTS = tuple(f"tbot{k}" for k in range(1, 5))
TOURNAMENT = "six-1"


def _journal(store: Storage) -> list[JournalRow]:
    with store.transaction(write=False) as tx:
        return tx.journal(TOURNAMENT)


def _status(store: Storage) -> str | None:
    with store.transaction(write=False) as tx:
        row = tx.get_tournament(TOURNAMENT)
    return None if row is None else row.status


def replay_open_hands(journal: list[JournalRow]) -> list[int]:
    """The stored hands the journal shows started and not finished."""
    started: set[int] = set()
    for row in journal:
        payload = json.loads(row.payload)
        if row.kind == "hand_started" and payload.get("hand_id") is not None:
            started.add(int(payload["hand_id"]))
        elif row.kind == "hand_finished" and payload.get("hand_id") is not None:
            started.discard(int(payload["hand_id"]))
    return sorted(started)


def _wallet(store: Storage, account: str) -> int:
    with store.transaction(write=False) as tx:
        wallet = tx.get_account(player_wallet_key(tx, account, "PLAY"))
    return 0 if wallet is None else wallet.balance


async def _register(url: str) -> None:
    client = TableClient(url, timeout=5.0)
    await client.start()
    try:
        for name in BOTS:
            result = await until_ok(lambda n=name: client.call(TOURNAMENT, "register", n), 30)
            assert result["account"] == name, result
    finally:
        await client.close()


@pytest.mark.parametrize("how", ["kill", "term", "pause"])
def test_R_TOURN_13_a_tournament_taken_over_from_its_journal(
    how: str, pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """R-TOURN-13 (rebuilt from the books), R-TOURN-12 (the level clock where it stood): the
    owner killed mid-tournament (hands in progress void, start-of-hand stacks), stopped cleanly
    (handed over between hands: no hand void), or paused past its lease and woken (fenced: it
    stops the tournament, a write of its would be refused); places and prizes exact (each
    prize paid once), the audit."""
    store = open_storage(pg_url)
    accounts = Accounts(store, argon2=Argon2Settings.cheap())
    for name in BOTS:  # house bots' accounts: the owner plays them (exactly the entry's cost)
        accounts.ensure_bot(name)
        Cashier(store).grant(name, 1100, f"{name}-grant")
    workers = Workers(
        tmp_path,
        pg_url,
        redis_server.url,
        lease=2.0,
        think=0.3,
        tables=TABLES + SIX,
        house_bots=0,
        env={"FELTROOM_ROOM__BETWEEN_HANDS": "0.3", "FELTROOM_ROOM__AFTER_SHOWDOWN": "0.3"},
    )
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        first = wait_for("a worker to own six-1", lambda: leases(store).get(TOURNAMENT), 60)
        asyncio.run(_register(workers.broker))
        # Mid-tournament: both tables have played a few hands.
        wait_for(
            "hands played, and one in progress",
            lambda: (
                (journal := _journal(store))
                and sum(1 for row in journal if row.kind == "hand_finished") >= 4
                and (how == "term" or replay_open_hands(journal))
            ),
            120,
        )
        owner = workers.owners({TOURNAMENT: first})[TOURNAMENT]
        before = len(_journal(store))
        if how == "kill":
            stopped_at = workers.kill(owner)
        elif how == "pause":
            stopped_at = time.time()
            os.kill(workers.processes[owner].pid, signal.SIGSTOP)
        else:
            stopped_at = time.time()
            os.kill(workers.processes[owner].pid, signal.SIGTERM)
        taken = wait_for(
            "another worker to take six-1",
            lambda: (
                (row := leases(store).get(TOURNAMENT)) is not None
                and row.owner != first.owner
                and row
            ),
            30,
        )
        took = time.time() - stopped_at
        assert taken.epoch > first.epoch
        assert took <= 10.0, took
        if how == "term":
            workers.processes[owner].wait(15)
        if how == "pause":  # woken: it finds the lease moved and the tournament stops there
            os.kill(workers.processes[owner].pid, signal.SIGCONT)
            wait_for(
                "the paused worker to stop the tournament",
                lambda: (
                    "tournament six-1: lease lost; it stops on this worker" in workers.log(owner)
                ),
                30,
            )
            assert workers.processes[owner].poll() is None
        wait_for("the tournament to finish", lambda: _status(store) == "finished", 240)
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    journal = _journal(store)
    after = [json.loads(row.payload) | {"kind": row.kind} for row in journal[before:]]
    voids = [p for p in after if p["kind"] == "hand_finished" and p.get("void")]
    for void in voids:  # start-of-hand stacks: nothing moved
        assert void["after"] == void["before"], void
        with store.transaction(write=False) as tx:
            hand = tx.get_hand(int(void["hand_id"]))
        assert hand is not None
        assert hand.status == "void"
    # the takeover: the hands in progress void first, then the clock resumes where it stood
    resume = next(k for k in range(before, len(journal)) if journal[k].kind == "resume")
    start = resume
    while start > 0 and json.loads(journal[start - 1].payload).get("void"):
        start -= 1
    takeover_voids = [json.loads(row.payload) for row in journal[start:resume]]
    if how == "term":
        assert voids == [], voids
    else:  # (a kill, a pause) every hand started and not finished then is void
        open_hands = replay_open_hands(journal[:start])
        assert open_hands
        assert sorted(int(v["hand_id"]) for v in takeover_voids) == open_hands
    with store.transaction(write=False) as tx:
        row = tx.get_tournament(TOURNAMENT)
    assert row is not None
    director = replay(row, journal).director
    places = sorted((e.place or 0, e.account, e.prize or 0) for e in director.entries)
    assert [p for p, _, _ in places] == [1, 2, 3, 4], places
    prizes = {account: prize for _, account, prize in places}
    assert sum(prizes.values()) == director.pool == 4000
    for name in BOTS:  # each prize paid once: the wallet held exactly the entry's cost
        assert _wallet(store, name) == prizes[name], (name, prizes)
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()

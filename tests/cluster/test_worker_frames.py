"""The frames a cluster worker publishes for a table's viewers (R-DEAL-4): each person's own,
at a full six-seat table.

The worker builds every viewer's messages of a batch and encodes each message once; a message
built for one viewer and freed must never be taken for another's (its identity reused): that
handed a player another player's hole cards and no turn of their own (found by `bench cluster`,
whose bots missed turns that the single process never missed)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from feltroom.cluster.worker import ClusterWorker
from feltroom.errors import FeltroomError
from feltroom.room import Accounts, Cashier
from feltroom.room.runtime import RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.rules import Fold
from feltroom.store.sql import SqlStorage
from feltroom.table import Entry

SIX = """
[[table]]
id = "six"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""

PLAYERS = [f"p{seat}" for seat in range(1, 7)]


def test_R_DEAL_4_each_person_at_a_full_table_gets_only_their_own_hole_cards_and_turn(
    storage: SqlStorage, accounts: Accounts, cashier: Cashier
) -> None:
    for name in PLAYERS:
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 1000, f"welcome-{name}")
    settings = RuntimeSettings(
        house_bots=0, bot_think=(0.0, 0.0), between_hands=0.0, selftest_first=10**9
    )
    # No broker: the test reads what the worker would publish from its outbox.
    worker = ClusterWorker(storage, "redis://:unused@127.0.0.1:9/0", settings=settings)
    batches: list[dict[str, Any]] = []

    async def main() -> None:
        await worker.runtime.start()
        (spec,) = parse_tables(SIX, "test")
        assert worker.leases.take(spec.table_id) is not None
        await worker.runtime.adopt(spec)
        try:
            for seat, name in enumerate(PLAYERS, start=1):
                await worker.runtime.join("six", name, seat, 200, Entry.POST)
            full = False
            for _ in range(400):  # everyone folds to the big blind until all six are dealt in
                while not worker._outbox.empty():
                    command = worker._outbox.get_nowait()  # ("PUBLISH", channel, batch)
                    assert command[0] == "PUBLISH"
                    batch = json.loads(command[2])
                    batches.append(batch)
                    full = full or all(_of(batch, "hole_cards", name) for name in PLAYERS)
                    for name, frames in batch["players"].items():
                        for turn in _messages(frames, "turn"):
                            if turn.get("legal") is not None and turn["seat"] == _seat(name):
                                with contextlib.suppress(FeltroomError):
                                    await worker.runtime.act("six", name, Fold(), turn["hand"])
                if full:
                    break
                await asyncio.sleep(0.05)
            assert full, "no hand was dealt to all six"
        finally:
            await worker.runtime.stop()

    asyncio.run(main())
    dealt = [b for b in batches if _of(b, "hole_cards")]
    for batch in dealt:
        assert not _messages(batch["observer"], "hole_cards")
        for name, frames in batch["players"].items():
            holes = _messages(frames, "hole_cards")
            assert [m["seat"] for m in holes] in ([], [_seat(name)]), f"{name} was sent {holes}"
    turns = [b for b in batches if _of(b, "turn")]
    assert turns
    for batch in turns:
        for name, frames in batch["players"].items():
            for turn in _messages(frames, "turn"):
                # Only the person to act is shown their legal actions.
                assert (turn.get("legal") is not None) == (turn["seat"] == _seat(name)), turn


def _seat(name: str) -> int:
    return int(name[1:])


def _messages(frames: list[str], kind: str) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, frames) if m["type"] == kind]


def _of(batch: dict[str, Any], kind: str, player: str | None = None) -> list[dict[str, Any]]:
    return [
        m
        for name, frames in batch["players"].items()
        if player in (None, name)
        for m in _messages(frames, kind)
    ]

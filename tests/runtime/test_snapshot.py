"""The room's behaviour, pinned: a room with fixed seeds (house bots at two cash tables and a
sit-and-go of house bots) on the fake clock, recording every event published to the listeners
and every hand the books keep (its JSON), must give exactly the golden file
``tests/data/runtime/snapshot.jsonl``. It guards the runtime's restructuring (issue 37): a move
or a shared core that changes what the room does, or in which order, shows here.

Run with ``FELTROOM_WRITE_SNAPSHOT=1`` to write the file again after a deliberate change.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.runtime import Randomness, RoomRuntime, RuntimeSettings, WatchedTable
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.shuffle import CsprngDeckSource
from feltroom.store import SqlStorage

from .support import HEADS_UP, SNG, START, Clock

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "runtime" / "snapshot.jsonl"

TABLES = (
    HEADS_UP
    + """
[[table]]
id = "lim"
preset = "limit_1_2"
max_seats = 6
"""
)


def _plain(value: Any) -> Any:
    """An event as JSON: its type and fields; times as seconds since the start."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return round(value - START, 3) if value > START / 2 else round(value, 3)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.repr  # a hand result's engine state and committed deck are not values
        }
        return {"type": type(value).__name__, **fields}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "items"):  # a read-only mapping
        return _plain(dict(value.items()))
    return str(value)


def _stored_hands(storage: SqlStorage) -> list[dict[str, Any]]:
    with storage.transaction(write=False) as tx:
        hands = []
        for hand_id in range(1, 10_000):
            row = tx.get_hand(hand_id)
            if row is None:
                break
            hands.append(
                {
                    "hand": hand_id,
                    "table": row.table_id,
                    "status": row.status,
                    "settings": json.loads(row.settings) if row.settings else None,
                    "record": json.loads(row.record) if row.record else None,
                }
            )
    return hands


def record_room(
    settlement: Settlement,
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
    clock: Clock,
) -> dict[str, Any]:
    assert clock.now == START
    events: list[Any] = []

    def listener(runner: WatchedTable, batch: Sequence[object]) -> None:
        events.append({"table": runner.table_id, "hand": runner.playing, "events": _plain(batch)})

    def news(batch: Sequence[object]) -> None:
        events.append({"tournament": _plain(batch)})

    room = RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLES, "snapshot tables"),
        tournaments=parse_tournaments(SNG),
        settings=RuntimeSettings(
            house_bots=3,
            bot_style="random",
            bot_think=(0.5, 2.0),
            between_hands=1.0,
            after_showdown=3.0,
            tournament_bot_wait=1.0,
            selftest_first=10**9,
        ),
        clock=clock,
        randomness=Randomness.seeded(37),
    )
    room.add_listener(listener)
    room.add_tournament_listener(news)

    async def scenario() -> None:
        await room.start()
        try:
            end = clock.now + 600.0
            while clock.now < end:
                clock.now += 0.5
                await room.advance(clock.now)
        finally:
            await room.stop()

    asyncio.run(scenario())
    lobby = [t for t in room.tournaments_lobby() if t["id"] == "sng4-1"]
    return {
        "events": events,
        "hands": _stored_hands(storage),
        "sng": None if not lobby else {"state": lobby[0]["state"], "places": lobby[0]["places"]},
    }


def _lines(recorded: dict[str, Any]) -> list[str]:
    """The recording as JSON lines (one a batch of events, one a hand): a change shows as the
    first line that differs."""
    lines = [json.dumps({"sng": recorded["sng"]}, sort_keys=True)]
    lines += [json.dumps({"published": e}, sort_keys=True) for e in recorded["events"]]
    lines += [json.dumps({"stored": h}, sort_keys=True) for h in recorded["hands"]]
    return lines


def test_the_room_does_what_the_snapshot_recorded(
    settlement: Settlement,
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
    clock: Clock,
) -> None:
    got = record_room(settlement, accounts, cashier, storage, clock)
    assert got["sng"] is not None
    assert got["sng"]["state"] == "finished"
    assert len(got["hands"]) > 100
    lines = _lines(got)
    if os.environ.get("FELTROOM_WRITE_SNAPSHOT"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text("\n".join(lines) + "\n")
    expected = GOLDEN.read_text().splitlines()
    for number, (line, want) in enumerate(zip(lines, expected, strict=False), start=1):
        assert line == want, f"line {number} of {GOLDEN.name} differs"
    assert len(lines) == len(expected)


def test_the_room_draws_from_the_system_unless_seeded() -> None:
    system = Randomness()
    assert isinstance(system.decks("t"), CsprngDeckSource)
    assert system.bot_seed("bot.t.1") is None
    assert system.tournament_seed() != system.tournament_seed()
    assert len(system.new_id()) == 32
    one, two = Randomness.seeded(5), Randomness.seeded(5)
    assert one.decks("t").next_deck() == two.decks("t").next_deck()
    assert [one.new_id(), one.tournament_seed()] == [two.new_id(), two.tournament_seed()]

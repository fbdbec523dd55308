"""The straddle at runtime (R-HOME-3): an operator's table with ``straddle = true``, the
player's standing toggle through the room, the straddle dealt, house bots playing against it,
and the books balancing after."""

from __future__ import annotations

import asyncio
import json

import pytest

from feltroom.errors import IllegalAction
from feltroom.history.stored import replay_stored
from feltroom.room import Accounts, Cashier, audit
from feltroom.rules import Call, Check, Fold, Forced, ForcedBet
from feltroom.store import SqlStorage

from .support import Clock, Room
from .test_person import person_room, tick

STRADDLE = """
[[table]]
id = "str"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
first_button = "first_seated"
straddle = true

[[table]]
id = "plain"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""


def _audited(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["pass"] is True


# Rules: R-HOME-3
def test_R_HOME_3_the_room_deals_the_straddle_of_the_players_toggle(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    accounts: Accounts,
    cashier: Cashier,
    storage: SqlStorage,
) -> None:
    accounts.sign_up("dave", "correct horse")
    cashier.grant("dave", 1000, "welcome-dave")
    room, _ = person_room(make_room, STRADDLE)

    async def scenario() -> None:
        await room.start()
        for seat, name in enumerate(("alice", "bob", "carol", "dave"), start=1):
            await room.join("str", name, seat, 100)
        await room.join("plain", "alice", 1, 100)
        with pytest.raises(IllegalAction, match="does not allow straddles"):
            await room.set_straddle("plain", "alice", True)
        assert room.runners["plain"].table.seats[1].straddle is False
        await room.set_straddle("str", "dave", True)
        runner = room.runners["str"]
        for _ in range(10):
            await tick(room, clock, 1.0)
            if runner.table.in_hand:
                break
        hand = runner.table.hand
        assert hand is not None
        assert ForcedBet(4, Forced.STRADDLE, 4) in hand.setup.forced
        legal = hand.legal_actions()
        assert legal is not None
        assert (legal.seat, legal.raise_min) == (1, 8)
        hand_id = runner.playing
        assert hand_id is not None
        for name in ("alice", "bob", "carol"):
            await room.act("str", name, Fold())
        assert hand.is_over
        assert runner.table.seats[4].stack == 103
        # the stored hand replays with its straddle (the HTTP export and the integrity report
        # read stored hands this way)
        row = None
        for _ in range(50):
            with storage.transaction(write=False) as tx:
                row = tx.get_hand(hand_id)
            if row is not None and row.status == "settled":
                break
            await tick(room, clock, 0.1)
        assert row is not None
        assert row.status == "settled"
        stored = replay_stored(json.loads(row.record), json.loads(row.settings), {})
        assert ForcedBet(4, Forced.STRADDLE, 4) in stored.setup.forced
        assert stored.setup.straddle_full_raise
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)


# Rules: R-HOME-3
def test_R_HOME_3_house_bots_play_against_a_straddle(
    make_room: Room,
    clock: Clock,
    players: tuple[str, ...],
    storage: SqlStorage,
) -> None:
    """Three house bots and alice, who straddles whenever she may and then checks or calls: a
    hand with a straddle is played to its end and the books balance."""
    room = make_room(STRADDLE, house_bots=3, bot_think=(0.5, 0.5))

    async def scenario() -> None:
        await room.start()
        await room.join("str", "alice", 4, 200)
        await room.set_straddle("str", "alice", True)
        runner = room.runners["str"]
        table = runner.table
        straddled: set[int] = set()
        for _ in range(3000):
            await tick(room, clock, 0.5)
            hand = table.hand
            seat = table.seat_of("alice")
            if hand is None or seat is None:
                continue
            if any(f.kind is Forced.STRADDLE for f in hand.setup.forced):
                straddled.add(table.hand_number)
            if not hand.is_over and hand.to_act == seat:
                legal = hand.legal_actions()
                assert legal is not None
                await room.act("str", "alice", Check() if legal.check else Call())
            if straddled and table.hand_number > min(straddled):
                break  # a straddled hand was played to its end
        assert straddled
        assert table.hand_number > min(straddled)
        await room.stop()

    asyncio.run(scenario())
    _audited(storage)

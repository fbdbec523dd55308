"""Run it twice in the room (R-HOME-4): the question and its answers through ``RoomRuntime``,
the hand settled and stored with both runs, the books balancing."""

from __future__ import annotations

import asyncio
import json

from feltroom.cards import parse_cards
from feltroom.deal_proof import verify
from feltroom.history.stored import replay_stored
from feltroom.integrity.hands import played
from feltroom.room import HandHistories
from feltroom.room.integrity import room_integrity_report, stored_hands
from feltroom.room.player_stats import PlayerStatistics
from feltroom.rules import Call, RaiseTo, RunsChosen
from feltroom.store import SqlStorage
from feltroom.table import HandFinished, RunTwiceOffered, RunTwiceTimedOut

from .support import Clock, Room
from .test_person import audited, person_room, tick

TWICE = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
first_button = "first_seated"
run_it_twice = true
"""


def _stored(storage: SqlStorage, hand_id: int) -> tuple[dict[str, object], dict[str, object]]:
    with storage.transaction(write=False) as tx:
        row = tx.get_hand(hand_id)
        players = tx.hand_players(hand_id)
    assert row is not None
    assert row.status == "settled"
    holes = {p.seat: parse_cards(p.hole) for p in players}
    return json.loads(row.record), {"settings": json.loads(row.settings), "holes": holes}


# Rules: R-HOME-4
def test_R_HOME_4_agreed_hand_is_settled_stored_and_replayed(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, TWICE)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await room.set_run_twice("hu", "alice", "always")
        await tick(room, clock)
        runner = room.runners["hu"]
        hand_id = runner.playing
        assert hand_id is not None
        await room.act("hu", "alice", RaiseTo(100), hand_id)
        await room.act("hu", "bob", Call(), hand_id)
        (offer,) = recorder.of(RunTwiceOffered)
        assert offer.seats == (2,)
        await room.answer_run_twice("hu", "bob", True)
        assert [e.runs for e in recorder.of(RunsChosen)] == [2]
        (finished,) = recorder.of(HandFinished)
        hand = finished.result.hand
        record, stored = _stored(storage, hand_id)
        assert record["second_board"] == " ".join(str(c) for c in hand.second_board)
        assert record["actions"][-1] == [0, "run twice"]
        assert len(record["runs"][0]) == 2  # type: ignore[index,arg-type]
        again = replay_stored(record, stored["settings"], stored["holes"])  # type: ignore[arg-type]
        assert again.boards == hand.boards
        assert again.results == hand.results
        # the proof opens every card dealt in both runs (never a burned card)
        proof = HandHistories(storage).proof_for_player(hand_id, "bob")
        assert verify(proof) == []
        roles = {c["card"]: c["role"] for c in proof["cards"]}
        assert [roles[str(c)] for c in hand.board] == ["board"] * 5
        assert [roles[str(c)] for c in hand.second_board] == ["board2"] * 5  # all-in pre-flop
        burned = {str(c) for c in (*hand.burned, *hand.second_burned)}
        assert not burned & set(roles)
        # the statistics and the integrity report read the hand, both runs
        stats = PlayerStatistics(storage).stats("bob")
        assert stats["hands"] == 1
        assert stats["unreadable"] == []
        assert room_integrity_report(storage)["unreadable_hands"] == []
        (stored_hand,) = stored_hands(storage)
        replayed = played(stored_hand)
        assert replayed.board == tuple(hand.board)
        assert replayed.second_board == hand.second_board
        await room.stop()

    asyncio.run(scenario())
    audited(storage)


# Rules: R-HOME-4
def test_R_HOME_4_no_answer_in_time_is_one_run_in_the_room(
    make_room: Room, clock: Clock, players: tuple[str, ...], storage: SqlStorage
) -> None:
    room, recorder = person_room(make_room, TWICE)

    async def scenario() -> None:
        await room.start()
        await room.join("hu", "alice", 1, 100)
        await room.join("hu", "bob", 2, 100)
        await tick(room, clock)
        runner = room.runners["hu"]
        hand_id = runner.playing
        assert hand_id is not None
        await room.act("hu", "alice", RaiseTo(100), hand_id)
        await room.act("hu", "bob", Call(), hand_id)
        (offer,) = recorder.of(RunTwiceOffered)
        assert sorted(offer.seats) == [1, 2]
        await room.answer_run_twice("hu", "alice", True)
        for _ in range(40):  # the runtime wakes at the question's deadline
            if recorder.of(HandFinished):
                break
            await tick(room, clock, 0.5)
        assert recorder.of(RunTwiceTimedOut)[0].seats == (2,)
        assert [e.runs for e in recorder.of(RunsChosen)] == [1]
        assert recorder.of(HandFinished)
        record, stored = _stored(storage, hand_id)
        assert "second_board" not in record
        replay_stored(record, stored["settings"], stored["holes"])  # type: ignore[arg-type]
        await room.stop()

    asyncio.run(scenario())
    audited(storage)

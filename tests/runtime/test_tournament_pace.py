"""How the runtime carries out the director's moves at its pace (issue 44, speed at size):

- R-TOURN-8: a broken table's players are moved at the end of that table's own hand, in the same
  change and at the same instant, while other tables still play (or at once, when the table was
  between hands as the field shrank); during hand-for-hand (R-TOURN-9) moves wait for the
  round's end, which is a hand's end too.
- R-TOURN-8: once everyone fits at one table no table deals again, and the final table is drawn
  at the end of the last hand in progress, at once.
- One change, one piece of news: a hand's end tells its table's players, the moved ones and
  those whose place became final in ONE ``TournamentNews``; the hub works the views out once
  for it and each player gets one ``tournament`` message.
- A hand's end is written without waiting for its commit: a write that fails still leaves the
  books whole (no gap in the journal) and the tournament is rebuilt from them.
- A deal's write is not waited for either: nothing of the hand is published, and nobody acts on
  it, until it is written (its stored id); then it is published at the runner's next look.
- The runner's lock (``OpenLock``) is taken at once by whoever asks while it is free.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from feltroom.room.audit import audit
from feltroom.room.errors import StaleHand
from feltroom.room.events import PlayerMoved, TournamentNews
from feltroom.room.runtime import RoomRuntime
from feltroom.room.runtime.clocked import OpenLock
from feltroom.rules import Fold
from feltroom.store import SqlStorage
from feltroom.table import HandFinished, HandStarted

from .support import HEADS_UP, Clock, Room, run_for

TWENTY = """
[[tournament]]
id = "tw"
format = "sng"
seats_per_table = 4
max_entries = 20
starting_stack = 400
buy_in = 500
fee = 50
level_minutes = 1
recurring = false
"""


async def _enter(room: RoomRuntime, tournament_id: str, names: list[str]) -> None:
    runner = room.tournaments[tournament_id]
    cost = runner.settings.buy_in + runner.settings.fee
    for name in names:
        await room.writer.call(room.fund_bot, name, cost)
        runner.bot_names.add(name)
        await room.register_tournament(tournament_id, name)


def _record(room: RoomRuntime, clock: Clock, tournament_id: str) -> list[dict[str, Any]]:
    """Everything the room publishes, in order: table events (with the director's state just
    before them) and tournament events, each with the clock's time."""
    log: list[dict[str, Any]] = []

    def on_table(runner: Any, events: Any) -> None:
        runner_of = room.tournaments.get(tournament_id)
        director = None if runner_of is None else runner_of.director
        log.append(
            {
                "kind": "table",
                "table": runner.table_id,
                "events": tuple(events),
                "at": clock.now,
                "hand_for_hand": director is not None and director.hand_for_hand,
                "tables": 0 if director is None else len(director.tables),
                "remaining": 0 if director is None else director.remaining,
            }
        )

    def on_tournament(events: Any) -> None:
        log.append({"kind": "tournament", "events": tuple(events), "at": clock.now})

    room.add_listener(on_table)
    room.add_tournament_listener(on_tournament)
    return log


def _play(make_room: Room, clock: Clock) -> tuple[list[dict[str, Any]], RoomRuntime]:
    # the next hand at once, as the benchmark plays: a table is almost always in a hand
    room = make_room(
        HEADS_UP,
        tournaments=TWENTY,
        house_bots=0,
        bot_think=(0.2, 0.2),
        between_hands=0.0,
        after_showdown=0.0,
    )
    log = _record(room, clock, "tw-1")

    async def scenario() -> None:
        await room.start()
        try:
            await _enter(room, "tw-1", [f"bot.tw.{k}" for k in range(1, 21)])
            end = clock.now + 20_000.0
            while clock.now < end and not room.tournaments["tw-1"].done:
                await run_for(room, clock, 10.0, step=0.5)
            assert room.tournaments["tw-1"].status == "finished"
        finally:
            await room.stop()

    asyncio.run(scenario())
    return log, room


def _hand_end(entry: dict[str, Any]) -> bool:
    return entry["kind"] == "table" and any(isinstance(e, HandFinished) for e in entry["events"])


def _deal(entry: dict[str, Any]) -> bool:
    return entry["kind"] == "table" and any(isinstance(e, HandStarted) for e in entry["events"])


def test_R_TOURN_8_moves_follow_the_broken_tables_own_hand_and_the_final_draw_the_last_hand(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    log, _ = _play(make_room, clock)
    breaks = finals = own_breaks = 0
    for k, entry in enumerate(log):
        if entry["kind"] != "tournament":
            continue
        for event in entry["events"]:
            if not isinstance(event, PlayerMoved) or event.reason not in ("break", "final"):
                continue
            # the change the move belongs to: the last hand that ended before it, with no
            # hand dealt or ended anywhere in between, at the same instant
            ended = next(j for j in range(k - 1, -1, -1) if _hand_end(log[j]))
            assert not any(_deal(log[j]) or _hand_end(log[j]) for j in range(ended + 1, k))
            assert log[ended]["at"] == entry["at"]
            if event.reason == "break":
                breaks += 1
                own = log[ended]["table"] == event.from_table
                own_breaks += own
                if not own:  # the table was between hands already when the field shrank
                    last = next(
                        j
                        for j in range(k - 1, -1, -1)
                        if log[j].get("table") == event.from_table
                        and (_deal(log[j]) or _hand_end(log[j]))
                    )
                    assert _hand_end(log[last])
            else:
                finals += 1
    assert own_breaks > 0  # (a table between hands as the field shrank breaks at once)
    assert finals > 0
    # R-TOURN-8: from the moment everyone fits at one table until the final table's draw, no
    # table deals: the draw waits only for the hands in progress
    for entry in log:
        if _deal(entry):
            assert not (entry["remaining"] <= 4 and entry["tables"] > 1), entry
    assert audit(storage, shuffles=0)["problems"] == []


def test_one_change_one_piece_of_news_for_the_players_it_concerns(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    log, _ = _play(make_room, clock)
    ends = 0
    for k, entry in enumerate(log):
        if entry["kind"] == "tournament":
            news = [e for e in entry["events"] if isinstance(e, TournamentNews)]
            assert len(news) <= 1  # one per change
        if not _hand_end(entry):
            continue
        ends += 1
        # the hand's end, its moves and results: one batch of tournament events right after
        # (after the tables' seating events), with one piece of news
        following = next(j for j in range(k + 1, len(log)) if log[j]["kind"] == "tournament")
        assert not any(_deal(log[j]) or _hand_end(log[j]) for j in range(k + 1, following))
        (news,) = [e for e in log[following]["events"] if isinstance(e, TournamentNews)]
        finished = next(e for e in entry["events"] if isinstance(e, HandFinished))
        moved = {e.account for e in log[following]["events"] if isinstance(e, PlayerMoved)}
        assert moved <= set(news.accounts)
        assert set(news.results) <= set(news.accounts)
        result = finished.result
        survivors = {result.accounts[seat] for seat, chips in result.after.items() if chips > 0}
        busted = {result.accounts[seat] for seat, chips in result.after.items() if chips == 0}
        assert survivors <= set(news.accounts)  # every player the hand left at a table
        assert not busted & (set(news.accounts) - set(news.results))  # out: told by a result
    assert ends > 10
    assert audit(storage, shuffles=0)["problems"] == []


def test_the_hub_works_the_views_of_one_batch_out_once(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    from feltroom.server.session import Hub

    room = make_room(HEADS_UP, tournaments=TWENTY, house_bots=0, bot_think=(0.2, 0.2))

    async def scenario() -> None:
        await room.start()
        try:
            names = [f"bot.tw.{k}" for k in range(1, 21)]
            await _enter(room, "tw-1", names)
            hub = Hub(room)
            runner = room.tournaments["tw-1"]
            connections = {}
            for name in names[:3]:
                connection = hub.open("127.0.0.1")
                connection.player = name
                hub.by_player.setdefault(name, set()).add(connection)
                connections[name] = connection
            calls: list[list[str]] = []
            views = runner.player_views

            def counted(accounts: Any, now: float) -> Any:
                calls.append(list(accounts))
                return views(accounts, now)

            runner.player_views = counted  # type: ignore[method-assign]
            hub._on_tournament(
                [
                    TournamentNews("tw-1", tuple(names[:2])),
                    TournamentNews("tw-1", tuple(names[1:3]), (names[2],)),
                ]
            )
            assert calls == [sorted(names[:3])]  # once for the batch
            for name, connection in connections.items():
                frames = []
                while not connection.outbox.empty():
                    frames.append(connection.outbox.get_nowait())
                kinds = [json.loads(frame)["type"] for frame in frames if frame]
                assert kinds.count("tournament") == 1, (name, kinds)
            hub._detach()
        finally:
            await room.stop()

    asyncio.run(scenario())


def test_a_hand_end_whose_write_fails_rebuilds_from_whole_books(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    room = make_room(HEADS_UP, tournaments=TWENTY, house_bots=0, bot_think=(0.2, 0.2))

    async def scenario() -> None:
        await room.start()
        try:
            await _enter(room, "tw-1", [f"bot.tw.{k}" for k in range(1, 21)])
            runner = room.tournaments["tw-1"]
            write = runner._write
            failed: list[int] = []

            def broken(seq: int, kind: str, *args: Any) -> Any:
                if kind == "hand_finished" and not failed:
                    failed.append(seq)
                    raise OSError("the disk is full")
                return write(seq, kind, *args)

            runner._write = broken  # type: ignore[method-assign]
            while not failed:
                await run_for(room, clock, 0.5)
            await run_for(room, clock, 2.0)  # the next look rebuilds it from the books
            runner._write = write  # type: ignore[method-assign]
            assert runner.error is None
            journal = await room.writer.call(runner._read)
            seqs = [row.seq for row in journal[1]]
            assert seqs == list(range(1, len(seqs) + 1))  # no gap after the failed write
            assert runner.seq == seqs[-1]
            end = clock.now + 20_000.0
            while clock.now < end and not runner.done:
                await run_for(room, clock, 10.0, step=0.5)
            assert runner.status == "finished"
        finally:
            await room.stop()

    asyncio.run(scenario())
    assert audit(storage, shuffles=0)["problems"] == []


def test_a_deal_is_published_once_written_and_nobody_acts_on_it_before(
    make_room: Room, clock: Clock, storage: SqlStorage
) -> None:
    room = make_room(HEADS_UP, tournaments=TWENTY, house_bots=0, bot_think=(0.2, 0.2))
    published: list[tuple[str, tuple[Any, ...]]] = []
    room.add_listener(lambda runner, events: published.append((runner.table_id, tuple(events))))
    gate = threading.Event()

    async def scenario() -> None:
        await room.start()
        runner = room.tournaments["tw-1"]
        write = runner._write

        def gated(seq: int, kind: str, *args: Any) -> Any:
            if kind == "hand_started":  # the writer is slow to answer
                gate.wait(30)
            return write(seq, kind, *args)

        try:
            await _enter(room, "tw-1", [f"bot.tw.{k}" for k in range(1, 21)])
            runner._write = gated  # type: ignore[method-assign]
            published.clear()
            async with runner.lock:  # the runner's first look after the start: it deals
                await runner.step(clock.now)
            dealing = [tab for tab in runner.tables.values() if tab.deal is not None]
            assert len(dealing) == len(runner.tables) == 5
            assert all(tab.table.in_hand and tab.hand_id is None for tab in dealing)
            assert not any(isinstance(e, HandStarted) for _, events in published for e in events)
            tab = dealing[0]
            hand = tab.table.hand
            assert hand is not None
            account = tab.table.seats[hand.to_act].account  # type: ignore[index]
            with pytest.raises(StaleHand, match="being dealt"):
                await runner.act(account, Fold(), clock.now)
            gate.set()
            assert await runner.settled()  # written: a look is due to publish the deals
            async with runner.lock:
                await runner.step(clock.now)
            assert all(t.deal is None and t.hand_id is not None for t in dealing)
            started = {
                table_id
                for table_id, events in published
                if any(isinstance(e, HandStarted) for e in events)
            }
            assert started == {t.table_id for t in dealing}
            await runner.act(account, Fold(), clock.now)  # now it may
            runner._write = write  # type: ignore[method-assign]
            end = clock.now + 20_000.0
            while clock.now < end and not runner.done:
                await run_for(room, clock, 10.0, step=0.5)
            assert runner.status == "finished"
        finally:
            gate.set()
            await room.stop()

    asyncio.run(scenario())
    assert audit(storage, shuffles=0)["problems"] == []


def test_the_runners_lock_is_taken_at_once_while_free_and_every_waiter_gets_it() -> None:
    """(``asyncio.Lock`` would make the newcomer queue behind the two waiters.)"""

    async def scenario() -> list[str]:
        lock = OpenLock()
        order: list[str] = []

        async def waiter(name: str) -> None:
            async with lock:
                order.append(name)

        await lock.acquire()
        order.append("holder")
        waiting = [asyncio.create_task(waiter(n)) for n in ("w1", "w2")]
        cancelled = asyncio.create_task(waiter("never"))
        await asyncio.sleep(0)  # all three wait
        cancelled.cancel()
        lock.release()  # wakes the waiters: they run at the loop's next iteration
        assert not lock.locked()
        async with lock:  # free: taken at once, ahead of the waiters woken
            order.append("newcomer")
        await asyncio.gather(*waiting)
        assert cancelled.cancelled()
        assert not lock.locked()
        return order

    order = asyncio.run(scenario())
    assert order == ["holder", "newcomer", "w1", "w2"]

"""The websocket protocol end to end: a live server, scripted clients over real sockets, the
wire-tap on every frame (hidden information), and the rules the protocol carries."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import connect

from feltroom.room import audit
from feltroom.room.runtime import RoomRuntime
from feltroom.server import wire
from feltroom.server.session import Hub, HubSettings
from feltroom.store import SqlStorage

from .live import HEADS_UP, THREE, Client, Live, live_server, room_for


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


async def _drain(client: Client) -> None:
    """Receive until the server closes the connection."""
    while True:
        await client.recv()


def _audit_passes(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["pass"] is True


async def _seat(client: Client, table: str, seat: int, buy_in: int = 200) -> None:
    reply = await client.request({"type": "sit", "table": table, "seat": seat, "buy_in": buy_in})
    assert reply["type"] == "ok", reply


async def _my_turn(client: Client, seat: int, timeout: float = 15.0) -> dict[str, Any]:
    return await client.wait_for(
        lambda m: m["type"] == "turn" and m["seat"] == seat and m["legal"] is not None, timeout
    )


def _passive(legal: dict[str, Any]) -> dict[str, Any]:
    if legal["check"]:
        return {"action": "check"}
    return {"action": "call"}


def test_hello_ping_lobby_and_unauthenticated(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            token = await live.account("alice")
            async with connect(live.ws_url) as ws:
                await ws.send(json.dumps({"type": "ping", "id": 1}))
                reply = json.loads(await ws.recv())
                assert reply["type"] == "error"
                assert reply["code"] == "unauthenticated"
                assert reply["ref"] == 1
            async with live.client("alice", token) as alice:
                assert (await alice.request({"type": "ping"}))["type"] == "pong"
                lobby = await alice.request({"type": "lobby"})
                assert [t["id"] for t in lobby["tables"]] == ["hu"]
                error = await alice.request({"type": "observe", "table": "nope"})
                assert error["code"] == "not_found"
                assert "hu" in error["message"]
            async with connect(live.ws_url) as ws:
                await ws.send(json.dumps({"type": "hello", "version": 1, "token": "x" * 40}))
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1008

    _run(scenario())


# Rules: R-BET-6
def test_R_BET_6_the_turn_offers_the_exact_legal_actions_to_the_player_to_act(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                await _seat(alice, "hu", 1)
                await _seat(bob, "hu", 2)
                # heads-up: the button (seat 1, first seated) posts the small blind, acts first
                turn = await _my_turn(alice, 1)
                assert turn["legal"] == {
                    "fold": True,
                    "check": False,
                    "call": 1,
                    "raise_min": 4,
                    "raise_max": 200,
                    "bet": False,
                }
                seen_by_bob = await bob.wait_for(lambda m: m["type"] == "turn")
                assert seen_by_bob["seat"] == 1
                assert seen_by_bob["legal"] is None  # only the player to act gets the options
                hand = turn["hand"]
                runner = room.runners["hu"]
                stacks = {s: p.stack for s, p in runner.table.seats.items()}
                log = list(runner.table.hand.log) if runner.table.hand else []
                # out of turn, stale hand, illegal amount, wrong word: typed errors, no change
                error = await bob.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "check"}
                )
                assert error["code"] == "not_your_turn"
                error = await alice.request(
                    {"type": "act", "table": "hu", "hand": hand + 7, "action": "call"}
                )
                assert error["code"] == "stale_hand"
                error = await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "raise", "amount": 3}
                )
                assert error["code"] == "illegal_action"
                assert error["legal"]["raise_min"] == 4
                assert "4..200" in error["message"]
                error = await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "bet", "amount": 6}
                )
                assert error["code"] == "illegal_action"
                assert "raise" in error["message"]
                error = await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "check"}
                )
                assert error["code"] == "illegal_action"
                assert "call 1" in error["message"]
                assert {s: p.stack for s, p in runner.table.seats.items()} == stacks
                assert runner.table.hand is not None
                assert list(runner.table.hand.log) == log
                # any amount in the range is accepted
                ok = await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "raise", "amount": 7}
                )
                assert ok["type"] == "ok"
                raised = await bob.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "raised"
                )
                assert (raised["seat"], raised["to"]) == (1, 7)
                turn = await _my_turn(bob, 2)
                assert turn["legal"]["call"] == 5
                assert turn["legal"]["raise_min"] == 12
        _audit_passes(storage)

    _run(scenario())


# Rules: R-SIT-1, R-TIME-4
def test_R_SIT_1_R_TIME_4_a_closed_connection_is_a_disconnection_and_the_player_resumes(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with live.client("alice", tokens[0]) as alice:
                async with live.client("bob", tokens[1]) as bob:
                    await _seat(alice, "hu", 1)
                    await _seat(bob, "hu", 2)
                    turn = await _my_turn(alice, 1)
                    hole = await bob.wait_for(lambda m: m["type"] == "hole_cards")
                    await alice.request(
                        {"type": "act", "table": "hu", "hand": turn["hand"], "action": "call"}
                    )
                    await _my_turn(bob, 2)
                # bob's connection ended without "leave": a disconnection, the seat is kept
                shown = await alice.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "disconnected"
                )
                assert shown["seat"] == 2
                assert ("hu", 2) in room.seats_of("bob")
                assert room.runners["hu"].table.seats[2].disconnected
                async with live.client("bob", tokens[1]) as again:
                    welcome = again.log[0]
                    assert welcome["type"] == "welcome"
                    assert welcome["seats"] == [{"table": "hu", "seat": 2}]
                    snap = await again.wait_for(lambda m: m["type"] == "snapshot")
                    assert snap["you"] == 2
                    assert snap["view"]["hand"] == turn["hand"]  # the same hand, in progress
                    mine = next(s for s in snap["view"]["seats"] if s["seat"] == 2)
                    assert mine["cards"] == hole["cards"]
                    other = next(s for s in snap["view"]["seats"] if s["seat"] == 1)
                    assert other["cards"] is None
                    await alice.wait_for(lambda m: m["type"] == "event" and m["kind"] == "resumed")
                    assert not room.runners["hu"].table.seats[2].disconnected
                    # only an explicit leave leaves
                    assert (await again.request({"type": "leave", "table": "hu"}))["type"] == "ok"
                    await alice.wait_for(
                        lambda m: m["type"] == "event" and m["kind"] == "seat_released", 30
                    )
                    assert room.seats_of("bob") == []
        _audit_passes(storage)

    _run(scenario())


# Rules: R-AUTO-1
def test_R_AUTO_1_a_pre_action_acts_on_the_players_turn(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                await _seat(alice, "hu", 1)
                await _seat(bob, "hu", 2)
                turn = await _my_turn(alice, 1)
                hand = turn["hand"]
                # bob (big blind) chooses "call any" before his turn
                reply = await bob.request(
                    {"type": "pre_action", "table": "hu", "hand": hand, "kind": "call_any"}
                )
                assert reply["type"] == "ok", reply
                await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "raise", "amount": 6}
                )
                used = await bob.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "pre_action_used"
                )
                assert used["seat"] == 2
                called = await alice.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "called" and m["seat"] == 2
                )
                assert called["amount"] == 4
                # alice never sees bob's pre-action choice itself
                assert not any(m.get("kind") == "pre_action_used" for m in alice.log)
                # a "call X" pre-action cancels itself when the amount changes
                flop_turn = await _my_turn(bob, 2)
                await alice.request(
                    {"type": "pre_action", "table": "hu", "hand": hand, "kind": "call", "amount": 2}
                )
                await bob.request(
                    {
                        "type": "act",
                        "table": "hu",
                        "hand": flop_turn["hand"],
                        "action": "bet",
                        "amount": 5,
                    }
                )
                cancelled = await alice.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "pre_action_cancelled"
                )
                assert cancelled["pre_action"] == "call 2"
                await _my_turn(alice, 1)
        _audit_passes(storage)

    _run(scenario())


# Rules: R-SHOW-4
def test_R_SHOW_4_show_after_an_uncontested_win_and_the_auto_muck_choice(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP, between_hands=3.0)  # time to show
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                await _seat(alice, "hu", 1)
                await _seat(bob, "hu", 2)
                reply = await bob.request({"type": "auto_muck", "table": "hu", "on": False})
                assert reply["type"] == "ok"
                assert room.runners["hu"].table.seats[2].auto_muck is False
                # a resumed page learns the setting from the snapshot; an observer has none
                await bob.send({"type": "observe", "table": "hu"})
                snap = await bob.wait_for(
                    lambda m: (
                        m["type"] == "snapshot" and m["view"]["settings"]["auto_muck"] is False
                    )
                )
                assert snap["view"]["settings"] == {
                    "auto_post": True,
                    "auto_muck": False,
                    "auto_rebuy": False,
                    "run_twice": "ask",
                }
                turn = await _my_turn(alice, 1)
                hand = turn["hand"]
                hole = await alice.wait_for(lambda m: m["type"] == "hole_cards")
                await alice.request(
                    {"type": "act", "table": "hu", "hand": hand, "action": "raise", "amount": 6}
                )
                await _my_turn(bob, 2)
                await bob.request({"type": "act", "table": "hu", "hand": hand, "action": "fold"})
                await alice.wait_for(lambda m: m["type"] == "hand_result" and m["hand"] == hand)
                # the loser who folded may not show; the uncontested winner may
                error = await bob.request({"type": "show", "table": "hu", "hand": hand})
                assert error["code"] == "illegal_action"
                reply = await alice.request({"type": "show", "table": "hu", "hand": hand})
                assert reply["type"] == "ok", reply
                shown = await bob.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "cards_shown"
                )
                assert (shown["seat"], shown["cards"]) == (1, hole["cards"])
        _audit_passes(storage)

    _run(scenario())


async def _play_randomly(client: Client, seat: int, hands: int, rng: random.Random) -> None:
    """Act at each turn with a random legal action until ``hands`` hand results were seen."""
    results = 0
    broke = False
    while results < hands:
        message = await client.wait_for(
            lambda m: (
                (m["type"] == "turn" and m["seat"] == seat and m["legal"] is not None)
                or m["type"] == "hand_result"
                or (
                    m["type"] == "event"
                    and m["kind"] == "sat_out"
                    and m["seat"] == seat
                    and m["reason"] == "busted"
                )
            ),
            60,
        )
        if message["type"] == "event":
            broke = True
        if message["type"] != "turn":
            results += message["type"] == "hand_result"
            if broke:  # busted: buy chips again between hands and sit in (R-BUYIN-3)
                added = {"type": "add_chips", "table": "three", "amount": 200}
                if (await client.request(added))["type"] == "ok":
                    broke = False
                    await client.request({"type": "sit_in", "table": "three"})
            continue
        legal = message["legal"]
        roll = rng.random()
        act: dict[str, Any]
        if legal["raise_min"] is not None and roll < 0.2:
            top = min(legal["raise_max"], legal["raise_min"] * 3)
            amount = rng.randint(legal["raise_min"], top)
            act = {"action": "bet" if legal["bet"] else "raise", "amount": amount}
        elif legal["fold"] and roll < 0.35:
            act = {"action": "fold"}
        else:
            act = _passive(legal)
        await client.send({"type": "act", "table": "three", "hand": message["hand"], **act})


async def _multi_hand_run(live: Live, hands: int) -> None:
    names = ("alice", "bob", "carol", "dave")
    tokens = {n: await live.account(n) for n in names}
    rng = random.Random(5)
    async with (
        live.client("alice", tokens["alice"]) as alice,
        live.client("bob", tokens["bob"]) as bob,
        live.client("carol", tokens["carol"]) as carol,
        live.client("dave", tokens["dave"]) as dave,
    ):
        assert (await dave.request({"type": "observe", "table": "three"}))["type"] == "ok"
        for seat, client in enumerate((alice, bob, carol), start=1):
            await _seat(client, "three", seat)
            await client.send({"type": "auto_muck", "table": "three", "on": seat != 2})
        await asyncio.gather(
            *(
                _play_randomly(c, s, hands, random.Random(rng.random()))
                for s, c in enumerate((alice, bob, carol), start=1)
            )
        )
        await dave.wait_for(lambda m: m["type"] == "hand_result", 30)


def test_no_frame_shows_a_card_its_connection_may_not_see(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, THREE)
        async with live_server(room) as live:
            await _multi_hand_run(live, 25)
            tap = live.tap
            assert tap.leaks == []
            assert len(tap.frames) > 500
            dealt = [f for p, f in tap.frames if '"hole_cards"' in f]
            assert len(dealt) >= 2 * 25  # every hand deals two or three of them
            assert any('"cards_shown"' in f for p, f in tap.frames if p == "dave")
        _audit_passes(storage)

    _run(scenario())


def test_the_wire_tap_catches_a_planted_leak(
    storage: SqlStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = wire.messages_for

    def leaky(
        table: str,
        hand_id: int | None,
        events: Any,
        viewer: Any,
        player: Any,
        hand: Any,
        shared: Any = None,
    ) -> list[dict[str, Any]]:
        out = real(table, hand_id, events, viewer, player, hand, shared)
        if hand is not None and not hand.is_over and out:
            other = next((s for s in hand.seats if s != viewer), None)
            if other is not None:
                cards = [str(c) for c in hand.hole_cards(other)]
                out[-1] = {**out[-1], "debug": f"dealt {cards}"}
        return out

    monkeypatch.setattr("feltroom.server.wire.messages_for", leaky)  # (the fan-out's)

    async def scenario() -> None:
        room = room_for(storage, THREE)
        async with live_server(room) as live:
            await _multi_hand_run(live, 2)
            assert live.tap.leaks, "the tap missed a planted leak"
            assert any(leak.player == "dave" for leak in live.tap.leaks)

    _run(scenario())


def _bad_frames(rng: random.Random, n: int) -> list[str | bytes]:
    good = [
        {"type": "act", "table": "hu", "hand": 1, "action": "raise", "amount": 10},
        {"type": "sit", "table": "hu", "seat": 1, "buy_in": 100},
        {"type": "add_chips", "table": "hu", "amount": 5},
        {"type": "chat", "table": "hu", "text": "hello"},
        {"type": "pre_action", "table": "hu", "hand": 1, "kind": "call", "amount": 2},
    ]
    frames: list[str | bytes] = []
    for k in range(n):
        base = dict(rng.choice(good))
        choice = k % 12
        if choice == 0:
            frames.append("{not json")
        elif choice == 1:
            frames.append(json.dumps([base]))
        elif choice == 2:
            frames.append(json.dumps(base).replace('"type"', '"type": "x", "type"', 1))
        elif choice == 3:
            frames.append(json.dumps({**base, "type": "teleport"}))
        elif choice == 4:
            frames.append(json.dumps({**base, "extra": 1}))
        elif choice == 5:
            frames.append(json.dumps({**base, "amount": rng.choice([True, 2.5, -3, 10**15, "9"])}))
        elif choice == 6:
            frames.append(json.dumps(base).replace("}", ', "amount": NaN}'))
        elif choice == 7:
            frames.append(
                json.dumps({"type": "act", "table": "hu", "hand": 999_999, "action": "call"})
            )
        elif choice == 8:
            frames.append(
                json.dumps({"type": "act", "table": "nowhere", "hand": 1, "action": "fold"})
            )
        elif choice == 9:
            frames.append(bytes([0xFF, 0xFE, 0x00]) + b'{"type": "ping"}')
        elif choice == 10:
            frames.append(json.dumps({"type": "add_chips", "table": "hu", "amount": 1}))
        else:
            frames.append(json.dumps({"type": "leave", "table": "other-table"}))
    return frames


def test_a_thousand_bad_frames_change_nothing_and_the_books_balance(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        settings = HubSettings(rate=100_000.0, burst=100_000.0)
        async with live_server(room, settings) as live:
            tokens = [await live.account(n) for n in ("alice", "bob", "eve")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
                live.client("eve", tokens[2]) as eve,
            ):
                await _seat(alice, "hu", 1)
                await _seat(bob, "hu", 2)
                turn = await _my_turn(alice, 1)
                runner = room.runners["hu"]
                stacks = {s: p.stack for s, p in runner.table.seats.items()}
                frames = _bad_frames(random.Random(11), 1200)
                for frame in frames:
                    await eve.send_raw(frame)
                errors = 0
                while errors < len(frames):
                    message = await eve.recv()
                    if message["type"] == "error":
                        errors += 1
                assert errors == len(frames)
                codes = {m["code"] for m in eve.log if m["type"] == "error"}
                assert {
                    "malformed",
                    "unknown_type",
                    "invalid_field",
                    "not_found",
                    "not_joined",
                } <= codes
                assert {s: p.stack for s, p in runner.table.seats.items()} == stacks
                assert runner.status == "running"
                # the table goes on
                ok = await alice.request(
                    {"type": "act", "table": "hu", "hand": turn["hand"], "action": "fold"}
                )
                assert ok["type"] == "ok"
        _audit_passes(storage)

    _run(scenario())


def test_oversized_frames_floods_foreign_origins_and_silent_connections_are_closed(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        settings = HubSettings(rate=5.0, burst=5.0, strikes=10, hello_seconds=0.5)
        async with live_server(room, settings) as live:
            token = await live.account("alice")
            async with live.client("alice", token) as alice:
                await alice.send_raw(
                    json.dumps({"type": "chat", "table": "hu", "text": "x" * 17_000})
                )
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await _drain(alice)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1009
            async with live.client("alice", token) as alice:
                for n in range(40):
                    await alice.send_raw(f'{{"type": "ping", "id": {n + 1000}}}')
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await _drain(alice)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1008
                limited = [m for m in alice.log if m.get("code") == "rate_limited"]
                assert limited
                # each refusal names the request it answers
                assert all(1000 <= m["ref"] < 1040 for m in limited)
            with pytest.raises(websockets.InvalidStatus) as refused:
                async with connect(live.ws_url, origin="http://evil.example"):  # type: ignore[arg-type]
                    pass
            assert refused.value.response.status_code == 403
            same = f"http://127.0.0.1:{live.port}"
            async with live.client("alice", token, origin=same) as alice:
                assert (await alice.request({"type": "ping"}))["type"] == "pong"
            async with connect(live.ws_url) as ws:
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1008

    _run(scenario())


def test_chat_is_text_rate_limited_and_mutable(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                for client in (alice, bob):
                    await client.request({"type": "observe", "table": "hu"})
                text = "<b>hi</b> & <script>x</script>"
                assert (await alice.request({"type": "chat", "table": "hu", "text": text}))[
                    "type"
                ] == "ok"
                line = await bob.wait_for(lambda m: m["type"] == "chat")
                assert (line["player"], line["text"]) == ("alice", text)  # as typed, never markup
                await bob.request({"type": "mute", "table": "hu", "player": "alice", "on": True})
                await alice.request({"type": "chat", "table": "hu", "text": "muted"})
                await bob.request({"type": "chat", "table": "hu", "text": "still here"})
                await alice.wait_for(lambda m: m["type"] == "chat" and m["text"] == "still here")
                assert not any(m.get("text") == "muted" for m in bob.log)
                replies = [
                    await alice.request({"type": "chat", "table": "hu", "text": f"spam {k}"})
                    for k in range(8)
                ]
                assert any(r["type"] == "error" and r["code"] == "refused" for r in replies)
                too_long = await alice.request({"type": "chat", "table": "hu", "text": "x" * 201})
                assert too_long["code"] == "invalid_field"

    _run(scenario())


def test_a_table_runtime_is_not_disturbed_by_a_client_that_vanishes(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room: RoomRuntime = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with live.client("alice", tokens[0]) as alice:
                await _seat(alice, "hu", 1)
                ws = await connect(live.ws_url)
                bob = Client(ws, "bob")
                await bob.request({"type": "hello", "version": 1, "token": tokens[1]})
                await _seat(bob, "hu", 2)
                await _my_turn(alice, 1)
                ws.transport.abort()  # no close frame at all
                await alice.wait_for(lambda m: m["type"] == "event" and m["kind"] == "disconnected")
                assert room.runners["hu"].status == "running"
        _audit_passes(storage)

    _run(scenario())


HOLDEM_1 = """
[[table]]
id = "holdem-1"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 9
min_buy_in = 40
max_buy_in = 400
"""


def _documented_inbound() -> list[str]:
    """The ``json inbound`` examples of docs/protocol.md, in document order."""
    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = re.compile(r"^```json inbound\n(.*?)^```\n", re.M | re.S)
    return [m.group(1).strip() for m in block.finditer(text)]


def test_the_documented_inbound_examples_sent_to_a_live_server(storage: SqlStorage) -> None:
    """Every inbound example of the protocol document goes to a live server as written: each
    gets exactly one reply, none is refused as badly formed, and the books balance after."""
    examples = [e for e in _documented_inbound() if json.loads(e)["type"] != "hello"]
    assert len(examples) >= 20

    async def scenario() -> None:
        room = room_for(storage, HOLDEM_1)
        async with live_server(room, HubSettings(rate=1000.0, burst=1000.0)) as live:
            token = await live.account("alice")
            async with live.client("alice", token) as alice:
                for frame in examples:
                    await alice.send_raw(frame)
                    reply = await alice.wait_for(
                        lambda m: m["type"] in ("ok", "error", "pong", "lobby")
                    )
                    if reply["type"] == "error":
                        assert reply["code"] not in (
                            "malformed",
                            "invalid_field",
                            "unknown_type",
                            "too_large",
                            "version",
                        ), (frame, reply)
        _audit_passes(storage)

    _run(scenario())


def test_lobby_subscribers_get_the_tables_that_change(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room, HubSettings(lobby_every=0.1)) as live:
            tokens = [await live.account(n) for n in ("alice", "bob")]
            async with (
                live.client("alice", tokens[0]) as alice,
                live.client("bob", tokens[1]) as bob,
            ):
                lobby = await bob.request({"type": "lobby"})
                assert lobby["tables"][0]["seats_taken"] == 0
                await _seat(alice, "hu", 1)
                update = await bob.wait_for(
                    lambda m: m["type"] == "lobby_update" and m["table"]["seats_taken"] == 1
                )
                assert update["table"]["id"] == "hu"
                await bob.request({"type": "lobby_stop"})
                await alice.request({"type": "leave", "table": "hu"})
                await asyncio.sleep(0.5)
                assert not any(
                    m["type"] == "lobby_update" and m["table"]["seats_taken"] == 0 for m in bob.log
                )

    _run(scenario())


def test_a_connection_too_slow_to_read_is_dropped_with_what_it_did_not_read(
    storage: SqlStorage,
) -> None:
    room = room_for(storage, HEADS_UP)
    hub = Hub(room, HubSettings(outbox=3))
    connection = hub.open()
    for k in range(5):
        connection.send({"type": "pong", "ref": k})
    assert connection.closed
    assert connection.outbox.get_nowait() is None  # nothing queued is sent, the end follows
    assert connection.outbox.empty()


# Rules: R-TIME-4
def test_a_connection_the_hub_drops_is_closed_1008_and_its_seat_is_kept(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            token = await live.account("alice")
            async with live.client("alice", token) as alice:
                await _seat(alice, "hu", 1)
                (connection,) = [c for c in live.hub.connections if c.player == "alice"]
                connection.close()  # as when it falls too far behind
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(_drain(alice), 10)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1008
                assert "too slow" in closed.value.rcvd.reason
            for _ in range(100):
                if not live.hub.connections:
                    break
                await asyncio.sleep(0.05)
            assert not live.hub.connections
            assert room.seats_of("alice") == [("hu", 1)]  # a disconnection, not a leave
            assert room.runners["hu"].table.seats[1].disconnected
        _audit_passes(storage)

    _run(scenario())


def test_a_refused_sit_does_not_leave_the_connection_watching(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            token = await live.account("alice", chips=10)  # less than the minimum buy-in
            async with live.client("alice", token) as alice:
                reply = await alice.request({"type": "sit", "table": "hu", "seat": 1})
                assert reply["type"] == "error"
                assert "40" in reply["message"]
                (connection,) = [c for c in live.hub.connections if c.player == "alice"]
                assert "hu" not in connection.tables
                assert room.seats_of("alice") == []
        _audit_passes(storage)

    _run(scenario())

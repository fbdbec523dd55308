"""The ACPC bridge at the room's default limits, against bots that misbehave: the rate limit told in
``welcome`` and kept, the dealer's reading of every answer it accepts, its fixes (a fold where
checking is free, ``MAX_NUM_ACTIONS``), a bridge table's needs, and a bridge that always ends with
its ``done:`` line, whatever its bot does."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bots.test_acpc import TABLES as ACPC_TABLES
from feltroom.bots.acpc import Bridge, BridgeReport, BridgeSettings, HandTrack, room_action
from feltroom.bots.acpc import table_problems as problems_of
from feltroom.bots.acpc_player import PlayerReport, play
from feltroom.bots.client import Client, RequestRefused
from feltroom.history.acpc import MAX_NUM_ACTIONS, GameDef, MatchState, hand_from_state
from feltroom.room.tables_config import parse_tables, settings_of
from feltroom.rules import Call, Check, Fold, LegalActions, RaiseTo
from feltroom.server.session import HubSettings
from feltroom.store import SqlStorage
from server.live import live_server, room_for

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"
NL2 = "holdem.nolimit.2p.reverse_blinds.game"
FL2 = "holdem.limit.2p.reverse_blinds.game"

# and a heads-up Limit table whose clock acts after a second, for bots that do not answer
TABLES = (
    ACPC_TABLES
    + """
[[table]]
id = "fl"
structure = "fixed_limit"
lower = 10
small_blind = 5
max_seats = 2
min_buy_in = 240
max_buy_in = 240
uncapped_heads_up = false
reset_stacks = true
timeout_action = "check_or_fold"
act_seconds = 1
countdown_seconds = 0
"""
)

# the room as a match wants it: no pause between hands nor after a showdown
FAST = {"between_hands": 0.0, "after_showdown": 0.0}


def _game(name: str) -> GameDef:
    return GameDef.parse((DATA / name).read_text(encoding="utf-8"))


def _settings(table_id: str) -> dict[str, Any]:
    spec = next(s for s in parse_tables(TABLES) if s.table_id == table_id)
    return settings_of(spec.config)


FACING = LegalActions(1, fold=True, check=False, call=50, raise_min=200, raise_max=19900)
FREE = LegalActions(1, fold=False, check=True, call=None, raise_min=100, raise_max=19800)


def test_every_answer_the_dealer_accepts_is_played_as_the_dealer_plays_it() -> None:
    """The dealer reads the first character (either case; ``k`` a call, ``b`` a raise) and a
    No-Limit raise's signed size; what it cannot read is a call, a size out of range the nearest
    legal one."""
    nl2, fl2 = _game(NL2), _game(FL2)
    assert room_action(nl2, "x", FACING, 0)[0] == Call()
    assert room_action(nl2, "", FACING, 0)[0] == Call()
    assert room_action(nl2, "", FREE, 0)[0] == Check()
    assert room_action(nl2, "r", FACING, 0)[0] == Call()  # No-Limit: no size, not read
    assert room_action(nl2, "r-5", FACING, 0)[0] == RaiseTo(200)  # the minimum
    assert room_action(nl2, "R300", FACING, 0) == (RaiseTo(300), None)
    assert room_action(nl2, "b300junk", FREE, 0) == (RaiseTo(300), None)
    assert room_action(nl2, "k", FACING, 0) == (Call(), None)
    assert room_action(nl2, "F", FACING, 0) == (Fold(), None)
    assert room_action(fl2, "r", FACING, 0) == (RaiseTo(200), None)
    assert room_action(fl2, "r55", FACING, 0) == (RaiseTo(200), None)  # Limit: size ignored
    # what the dealer cannot read is counted as fixed
    assert room_action(nl2, "x", FACING, 0)[1] is not None


def test_max_num_actions_a_raise_that_would_pass_the_dealers_limit_is_a_call() -> None:
    nl2 = _game(NL2)
    last = MAX_NUM_ACTIONS - 2  # actions in the round so far: one more raise is allowed
    assert room_action(nl2, "r300", FACING, 0, actions=last)[0] == RaiseTo(300)
    action, fixed = room_action(nl2, "r300", FACING, 0, actions=last + 1)
    assert action == Call()
    assert fixed is not None
    assert "too many to raise" in fixed
    assert room_action(nl2, "r300", FREE, 0, actions=MAX_NUM_ACTIONS)[0] == Check()


def test_a_bridge_table_checks_or_folds_on_time_has_no_house_bots_straddle_or_run_it_twice() -> (
    None
):
    nl2 = _game(NL2)
    settings = _settings("acpc-nl")
    assert problems_of(nl2, settings) == []
    assert problems_of(nl2, {**settings, "timeout_action": "fold"}) == [
        "timeout_action is 'fold'; the game needs 'check_or_fold'"
    ]
    assert problems_of(nl2, settings, house_bots=1) == ["house bots is 1; the game needs 0"]
    assert problems_of(nl2, {**settings, "straddle": "utg", "run_it_twice": True}) == [
        "run_it_twice is True; an ACPC game has none",
        "straddle is 'utg'; an ACPC game has none",
    ]
    assert problems_of(nl2, {**settings, "straddle": None, "run_it_twice": False}) == []


def test_a_fold_where_checking_was_free_is_shown_as_the_dealer_fixes_it() -> None:
    """A seat the room folds although it could check (it left mid-hand) is shown as ``c``: the
    reference reader refuses ``f`` there, and every other bot would stop reading."""
    nl2 = _game(NL2)
    start = {
        "type": "event",
        "kind": "hand_started",
        "dealt": [1, 2],
        "forced": [
            {"seat": 2, "kind": "small_blind", "amount": 50},
            {"seat": 1, "kind": "big_blind", "amount": 100},
        ],
    }
    track = HandTrack.start(nl2, start, {1: 20000, 2: 20000}, 2)
    for message in [
        {"type": "event", "kind": "posted", "seat": 2, "forced": "small_blind", "amount": 50},
        {"type": "event", "kind": "posted", "seat": 1, "forced": "big_blind", "amount": 100},
        {"type": "hole_cards", "seat": 2, "cards": ["9s", "8d"]},
        {"type": "event", "kind": "called", "seat": 2, "amount": 50},
        {"type": "event", "kind": "folded", "seat": 1},  # the big blind could check
    ]:
        track.take(message)
    line = track.line(nl2, 1)
    assert line == "MATCHSTATE:1:1:cc:|9s8d"
    hand_from_state(nl2, MatchState.parse(line))  # a line the reference reader reads


# ------------------------------------------------------------------------------ the rate limit


def test_welcome_announces_the_rate_limit(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room, HubSettings(rate=7.0, burst=9.0)) as live:
            await live.account("ratew")
            client = Client(live.http)
            await client.sign_in("ratew", "password-ratew")
            welcome = await client.connect()
            await client.close()
        assert welcome["limits"] == {"rate": 7.0, "burst": 9.0}

    asyncio.run(asyncio.wait_for(scenario(), 60))


class _RateLimitedClient:
    """Refuses the first ``refusals`` actions for the room's rate, then takes them."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.sent: list[object] = []

    async def act(self, table: str, action: object) -> dict[str, Any]:
        self.sent.append(action)
        if len(self.sent) <= self.refusals:
            raise RequestRefused({"type": "error", "code": "rate_limited", "message": "slow"})
        return {"type": "ok"}


def test_an_action_refused_for_the_rate_is_sent_again_never_lost() -> None:
    async def scenario() -> tuple[BridgeReport, list[object]]:
        bridge = Bridge(BridgeSettings("http://127.0.0.1:9", 0, "a", "p", "acpc-nl"))
        fake = _RateLimitedClient(refusals=2)
        bridge.client = fake  # type: ignore[assignment]
        await bridge._act(RaiseTo(300), bot=True)
        return bridge.report, fake.sent

    report, sent = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert sent == [RaiseTo(300)] * 3
    assert report.actions == 1


# ------------------------------------------------------------------------------ matches


Answer = Callable[[GameDef, str], Awaitable[str | None]]


async def _scripted(
    game: GameDef, port: int, answer: Callable[[str], str | None], lines: list[str]
) -> None:
    """A bot that says VERSION:2.0.0, keeps every line, and at its turn sends ``answer(line)``
    (``None``: nothing) until the bridge closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"VERSION:2.0.0\r\n")
    await writer.drain()
    try:
        while raw := await reader.readline():
            line = raw.decode("ascii").rstrip("\r\n")
            lines.append(line)
            state = MatchState.parse(line)
            hand = hand_from_state(game, state)
            if hand.is_over or hand.to_act != state.position + 1:
                continue
            reply = answer(line)
            if reply is None:
                continue
            writer.write(reply.encode("ascii"))
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def _bridges(
    live: Any, table: str, game: GameDef, count: int, hands: int | None, stop: asyncio.Event
) -> tuple[list[Bridge], list[asyncio.Task[BridgeReport]], list[int]]:
    bridges, runs, ports = [], [], []
    for k in range(count):
        name = f"{table}{k}"
        await live.account(name, chips=200_000)
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        settings = BridgeSettings(live.http, 0, name, "password-" + name, table, game, hands)
        bridge = Bridge(settings, listening=port.set_result)
        bridges.append(bridge)
        runs.append(asyncio.create_task(bridge.run(stop)))
        ports.append(await port)
    return bridges, runs, ports


def test_min_raisers_stop_at_the_dealers_max_num_actions_under_a_tight_rate_limit(
    storage: SqlStorage,
) -> None:
    """Two bots that always raise the minimum (``r1``, fixed up) at No-Limit, hands following at
    once, the room's limit 10 a second: every raise is played (none refused for the rate, none
    lost to the clock), and a round stops at the dealer's limit of actions, every line one the
    reference reader reads."""

    async def scenario() -> tuple[list[BridgeReport], list[list[str]]]:
        room = room_for(storage, TABLES, **FAST)
        game = _game(NL2)
        async with live_server(room, HubSettings(rate=10.0, burst=10.0)) as live:
            stop = asyncio.Event()
            _, runs, ports = await _bridges(live, "acpc-nl", game, 2, 1, stop)
            lines: list[list[str]] = [[], []]
            bots = [
                asyncio.create_task(_scripted(game, port, lambda s: f"{s}:r1\r\n", lines[k]))
                for k, port in enumerate(ports)
            ]
            reports = await asyncio.gather(*runs)
            await asyncio.gather(*bots)
            assert room.runners["acpc-nl"].table.seats == {}
        return reports, lines

    reports, lines = asyncio.run(asyncio.wait_for(scenario(), 240))
    game = _game(NL2)
    for report, seen in zip(reports, lines, strict=True):
        assert report.hands == 1, report
        assert report.ended == "1 hands played"
        states = [MatchState.parse(line) for line in seen]
        longest = max(len(r) for state in states for r in state.betting)
        assert MAX_NUM_ACTIONS - 2 <= longest <= MAX_NUM_ACTIONS
        for line in seen:
            hand_from_state(game, MatchState.parse(line))
    # every answer was played (each a fixed raise, or a call at the limit)
    assert sum(r.actions for r in reports) >= MAX_NUM_ACTIONS


def test_showdowns_show_every_players_cards_from_the_first_hand(storage: SqlStorage) -> None:
    """Two calling stations at heads-up Limit: every hand reaches a showdown, and each bot's last
    line of every hand, the first included, holds both players' cards."""

    async def scenario() -> list[PlayerReport]:
        room = room_for(storage, TABLES, **FAST)
        game = _game(FL2)
        async with live_server(room) as live:
            stop = asyncio.Event()
            _, runs, ports = await _bridges(live, "fl", game, 2, 3, stop)
            players = [
                asyncio.create_task(play(game, "127.0.0.1", port, "station")) for port in ports
            ]
            await asyncio.gather(*runs)
            return list(await asyncio.gather(*players))

    for player in asyncio.run(asyncio.wait_for(scenario(), 120)):
        assert player.hands == 3
        for final in player.finals:
            assert all(len(cards) == 2 for cards in final.holes), final


def test_sit_with_auto_muck_off_shows_from_the_first_deal(storage: SqlStorage) -> None:
    async def scenario() -> dict[str, Any]:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            await live.account("mucky", chips=200_000)
            client = Client(live.http)
            await client.sign_in("mucky", "password-mucky")
            await client.connect()
            await client.sit("acpc-nl", 1, buy_in=20000, auto_muck=False)
            seat = room.runners["acpc-nl"].table.seats[1]
            settings = {"auto_muck": seat.auto_muck}
            await client.leave("acpc-nl")
            await client.close()
            return settings

    assert asyncio.run(asyncio.wait_for(scenario(), 60)) == {"auto_muck": False}


# ------------------------------------------------------------------------------ bad bots


async def _resetting_bot(port: int, lines: list[str]) -> None:
    """Says VERSION, then at its first line resets the connection (RST, not a clean close)."""
    import socket
    import struct

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"VERSION:2.0.0\r\n")
    await writer.drain()
    lines.append((await reader.readline()).decode())
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


BAD = {
    "garbage": lambda line: "garbage, not an answer\r\n",
    "silent": lambda line: None,
    "huge": lambda line: line + ":" + "r" * (1 << 20) + "\r\n",
    "gone": None,  # closes its connection at its turn
    "reset": None,  # resets its connection at its first line
}


@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_bad_bot_ends_its_own_bridge_cleanly_and_the_other_match_goes_on_or_ends(
    storage: SqlStorage, bad: str
) -> None:
    """One good bot (a calling station) and one bad one at heads-up Limit (a 1 s clock that
    checks or folds): the bad bot's bridge ends with its reason, or plays on by the clock; no
    exception leaves either bridge, and both seats are left."""

    async def scenario() -> tuple[list[BridgeReport], list[str]]:
        room = room_for(storage, TABLES, **FAST)
        game = _game(FL2)
        async with live_server(room) as live:
            stop = asyncio.Event()
            _, runs, ports = await _bridges(live, "fl", game, 2, 3, stop)
            good = asyncio.create_task(play(game, "127.0.0.1", ports[0], "station"))
            lines: list[str] = []
            answer = BAD[bad]
            if bad == "reset":
                bot = asyncio.create_task(_resetting_bot(ports[1], lines))
            elif answer is None:
                bot = asyncio.create_task(_scripted(game, ports[1], _raise_gone, lines))
            else:
                bot = asyncio.create_task(_scripted(game, ports[1], answer, lines))
            # the bad bot's bridge ends (or plays its 3 hands by the clock); then the good one
            # is stopped if its opponent left
            bad_report = await runs[1]
            stop.set()
            good_report = await runs[0]
            await good
            bot.cancel()
            assert room.runners["fl"].table.seats == {}
        return [good_report, bad_report], lines

    (good, bad_one), _lines = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert good.line().startswith("done: ")
    assert bad_one.line().startswith("done: ")
    ended = {
        "garbage": "3 hands played",
        "silent": "3 hands played",
        "huge": "the bot sent a line over 65536 bytes",
        "gone": "the bot left",
        "reset": "the bot's connection failed",
    }[bad]
    assert bad_one.ended.startswith(ended), bad_one
    if bad in ("garbage", "silent"):
        assert good.hands >= 3  # the match of the good bot went on to the end
        assert bad_one.actions == 0


def _raise_gone(line: str) -> str | None:
    raise ConnectionError("the bot leaves at its turn")

"""The ACPC bridge against a live room: two reference ACPC bots play a match through two bridges
at a reset_stacks table, then the audit checks the books; tables that do not fit are refused."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from feltroom.bots.acpc import (
    Bridge,
    BridgeError,
    BridgeSettings,
    HandTrack,
    game_for_table,
    room_action,
    table_problems,
)
from feltroom.bots.acpc_player import play
from feltroom.cli import main
from feltroom.history.acpc import GameDef
from feltroom.room import audit
from feltroom.room.tables_config import parse_tables, settings_of
from feltroom.rules import Call, Check, LegalActions, RaiseTo
from feltroom.store import SqlStorage
from server.live import live_server, room_for

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"

TABLES = """
[[table]]
id = "acpc-nl"
structure = "no_limit"
big_blind = 100
small_blind = 50
max_seats = 2
min_buy_in = 20000
max_buy_in = 20000
reset_stacks = true
timeout_action = "check_or_fold"
first_button = "first_seated"

[[table]]
id = "acpc-fl3"
structure = "fixed_limit"
lower = 10
max_seats = 3
min_buy_in = 240
max_buy_in = 240
uncapped_heads_up = false
reset_stacks = true
timeout_action = "check_or_fold"
first_button = "first_seated"

[[table]]
id = "acpc-nl3"
structure = "no_limit"
big_blind = 100
small_blind = 50
max_seats = 3
min_buy_in = 20000
max_buy_in = 20000
reset_stacks = true
timeout_action = "check_or_fold"
rake_percent = 0
first_button = "first_seated"

[[table]]
id = "acpc-fl"
structure = "fixed_limit"
lower = 10
small_blind = 5
max_seats = 2
min_buy_in = 240
max_buy_in = 240
uncapped_heads_up = false
reset_stacks = true
timeout_action = "check_or_fold"
first_button = "first_seated"

[[table]]
id = "plain-nl"
structure = "no_limit"
big_blind = 100
small_blind = 50
max_seats = 2
min_buy_in = 2000
max_buy_in = 10000
act_seconds = 30
"""


def _game(name: str) -> GameDef:
    return GameDef.parse((DATA / name).read_text(encoding="utf-8"))


def _settings(table_id: str) -> dict[str, Any]:
    spec = next(s for s in parse_tables(TABLES) if s.table_id == table_id)
    return settings_of(spec.config)


def test_the_tables_fit_their_definitions_and_the_plain_table_says_every_misfit() -> None:
    nl2 = _game("holdem.nolimit.2p.reverse_blinds.game")
    fl3 = _game("holdem.limit.3p.game")
    assert table_problems(nl2, _settings("acpc-nl")) == []
    assert table_problems(fl3, _settings("acpc-fl3")) == []
    assert game_for_table(_settings("acpc-nl")) == nl2
    assert game_for_table(_settings("acpc-fl3")) == fl3
    for table, name in (
        ("acpc-nl3", "holdem.nolimit.3p.game"),
        ("acpc-fl", "holdem.limit.2p.reverse_blinds.game"),
    ):
        assert table_problems(_game(name), _settings(table)) == []
        assert game_for_table(_settings(table)) == _game(name)
    problems = table_problems(nl2, _settings("plain-nl"))
    assert problems == [
        "reset_stacks is False; the game needs True",
        "timeout_action is 'fold'; the game needs 'check_or_fold'",
        "buy-in is (2000, 10000); the game needs (20000, 20000)",
    ]
    kuhn = _game("kuhn.limit.3p.game")
    assert table_problems(kuhn, _settings("acpc-fl3")) == [
        "the game definition: numRounds is 1; Texas Hold'em has 4"
    ]
    assert "max_seats is 2; the game needs 3" in table_problems(fl3, _settings("acpc-nl"))


def test_R_LIMIT_3_a_limit_table_uncapped_heads_up_does_not_fit_acpc_limit() -> None:
    """R-LIMIT-3 lifts the raise cap heads-up at cash tables by default; ACPC caps every round,
    so a Limit table must turn ``uncapped_heads_up`` off for the bridge."""
    fl3 = _game("holdem.limit.3p.game")
    settings = {**_settings("acpc-fl3"), "uncapped_heads_up": None}
    assert table_problems(fl3, settings) == ["uncapped_heads_up is None; the game needs False"]


def test_room_action_fixes_what_the_dealer_fixes() -> None:
    """A fold is offered only facing a bet (R-BET-6's exact options): the dealer's fixes map a
    bot's action onto them."""
    nl2 = _game("holdem.nolimit.2p.reverse_blinds.game")
    facing = LegalActions(1, fold=True, check=False, call=50, raise_min=200, raise_max=19900)
    free = LegalActions(1, fold=False, check=True, call=None, raise_min=100, raise_max=19800)
    assert room_action(nl2, "c", facing, 0) == (Call(), None)
    assert room_action(nl2, "f", free, 0) == (Check(), "a fold when checking is free: checked")
    # a No-Limit raise is the hand's total: 700 with 200 in earlier rounds is a raise to 500
    assert room_action(nl2, "r700", free, 200) == (RaiseTo(500), None)
    assert room_action(nl2, "r150", facing, 0)[0] == RaiseTo(200)
    assert room_action(nl2, "r99999", facing, 0)[0] == RaiseTo(19900)
    capped = LegalActions(1, fold=True, check=False, call=10, raise_min=None, raise_max=None)
    assert room_action(_game("holdem.limit.3p.game"), "r", capped, 0)[0] == Call()


def test_a_hand_track_writes_the_dealers_lines_from_the_rooms_messages() -> None:
    """The room's messages of a heads-up No-Limit hand give the lines of the recorded match's
    hand 1 (acpc-2p-nolimit: cr1721c/r2647f), seen from position 1; a hand with an entering
    player's post (R-ENTRY-1) is not one of the definition's."""
    nl2 = _game("holdem.nolimit.2p.reverse_blinds.game")
    start = {
        "type": "event",
        "kind": "hand_started",
        "dealt": [4, 7],
        "forced": [
            {"seat": 7, "kind": "small_blind", "amount": 50},
            {"seat": 4, "kind": "big_blind", "amount": 100},
        ],
    }
    track = HandTrack.start(nl2, start, {4: 20000, 7: 20000}, 7)
    assert track.fits
    assert track.me == 1
    for message in [
        {"type": "event", "kind": "posted", "seat": 7, "forced": "small_blind", "amount": 50},
        {"type": "event", "kind": "posted", "seat": 4, "forced": "big_blind", "amount": 100},
        {"type": "hole_cards", "seat": 7, "cards": ["Qc", "9h"]},
        {"type": "event", "kind": "called", "seat": 7, "amount": 50},
        {"type": "event", "kind": "raised", "seat": 4, "to": 1721},
        {"type": "event", "kind": "called", "seat": 7, "amount": 1621},
        {"type": "event", "kind": "board_dealt", "street": 1, "cards": ["4h", "4s", "Jc"]},
    ]:
        track.take(message)
    assert str(track.state(1)) == "MATCHSTATE:1:1:cr1721c/:|Qc9h/4h4sJc"
    track.take({"type": "event", "kind": "raised", "seat": 4, "to": 926})
    assert str(track.state(1)) == "MATCHSTATE:1:1:cr1721c/r2647:|Qc9h/4h4sJc"
    entry = dict(start, forced=[{"seat": 7, "kind": "post", "amount": 100}])
    assert not HandTrack.start(nl2, entry, {4: 20000, 7: 20000}, 7).fits


async def _match(live: Any, table: str, game: str, styles: list[str], hands: int) -> list[Any]:
    definition = _game(game)
    ports: list[asyncio.Future[int]] = []
    bridges = []
    for k, _ in enumerate(styles):
        name = f"acpc{k}"
        await live.account(name, chips=200_000)
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        ports.append(port)
        settings = BridgeSettings(
            live.http, 0, name, "password-" + name, table, definition, hands=hands
        )
        bridges.append(Bridge(settings, listening=port.set_result))
    runs = [asyncio.create_task(b.run()) for b in bridges]
    players = []
    for k, style in enumerate(styles):
        port_number = await ports[k]
        players.append(
            asyncio.create_task(play(definition, "127.0.0.1", port_number, style, seed=k))
        )
    reports = await asyncio.gather(*runs)
    played = await asyncio.gather(*players)
    for report, player in zip(reports, played, strict=True):
        # every line the bot got at a hand's end was a finished hand on the engine, and every
        # action it sent was legal as sent (nothing fixed)
        assert player.hands == report.hands
        assert player.actions == report.actions
        assert report.fixed == 0
    return reports


@pytest.mark.parametrize(
    ("table", "game", "styles", "hands"),
    [
        ("acpc-nl", "holdem.nolimit.2p.reverse_blinds.game", ["station", "random"], 30),
        ("acpc-fl3", "holdem.limit.3p.game", ["station", "random", "tag"], 12),
        ("acpc-nl3", "holdem.nolimit.3p.game", ["random", "tag", "random"], 12),
        ("acpc-fl", "holdem.limit.2p.reverse_blinds.game", ["random", "tag"], 20),
    ],
    ids=["no-limit-heads-up", "limit-3-player", "no-limit-3-player", "limit-heads-up"],
)
def test_reference_acpc_bots_play_a_match_through_the_bridge_and_the_audit_passes(
    storage: SqlStorage, table: str, game: str, styles: list[str], hands: int
) -> None:
    async def scenario() -> list[Any]:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            reports = await _match(live, table, game, styles, hands)
            assert live.tap.leaks == []  # nobody saw a card they may not see
            assert room.runners[table].table.seats == {}  # every bridge left: stacks went home
        return reports

    reports = asyncio.run(asyncio.wait_for(scenario(), 120))
    for report in reports:
        assert report.hands == hands, report  # the bot was shown that many hands
        assert report.hands + report.skipped >= hands
        assert report.actions > 0
    result = audit(storage, shuffles=0)
    assert result["problems"] == []
    assert result["pass"] is True
    assert result["hands_checked"] >= hands


def test_the_bridge_refuses_a_table_that_does_not_fit_with_every_reason(
    storage: SqlStorage, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            await live.account("acpcx")
            game = _game("holdem.nolimit.2p.reverse_blinds.game")
            bridge = Bridge(
                BridgeSettings(live.http, 0, "acpcx", "password-acpcx", "plain-nl", game)
            )
            with pytest.raises(BridgeError, match=r"plain-nl does not fit the game definition"):
                await bridge.run()
            monkeypatch.setenv("FELTROOM_PASSWORD", "password-acpcx")
            args = ["acpc", "--url", live.http, "--port", "0", "--account", "acpcx"]
            args += [
                "--table",
                "plain-nl",
                "--game",
                str(DATA / "holdem.nolimit.2p.reverse_blinds.game"),
            ]
            code = await asyncio.to_thread(main, args)
            assert code == 1
            assert room.runners["plain-nl"].table.seats == {}
            # a wallet that cannot pay the buy-in, even with the hourly grant, is refused too
            await live.account("acpcy", chips=1000)
            poor = Bridge(BridgeSettings(live.http, 0, "acpcy", "password-acpcy", "acpc-nl"))
            with pytest.raises(BridgeError, match=r"acpcy holds \d+ play chips; .* is 20000"):
                await poor.run()
            assert room.runners["acpc-nl"].table.seats == {}

    asyncio.run(asyncio.wait_for(scenario(), 60))
    err = capsys.readouterr().err
    assert "reset_stacks is False; the game needs True" in err
    assert "buy-in is (2000, 10000); the game needs (20000, 20000)" in err


def test_feltroom_acpc_needs_the_password_and_a_definition_the_room_plays(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["acpc", "--url", "http://127.0.0.1:9", "--port", "0", "--account", "a", "--table", "t"]
    monkeypatch.delenv("FELTROOM_PASSWORD", raising=False)
    assert main(args) == 2
    assert "set FELTROOM_PASSWORD" in capsys.readouterr().err
    monkeypatch.setenv("FELTROOM_PASSWORD", "secret")
    assert main([*args, "--game", str(DATA / "kuhn.limit.3p.game")]) == 2
    assert "numRounds is 1; Texas Hold'em has 4" in capsys.readouterr().err


def test_a_bot_that_does_not_speak_version_2_is_refused_and_the_seat_is_never_taken(
    storage: SqlStorage,
) -> None:
    async def scenario() -> None:
        room = room_for(storage, TABLES)
        async with live_server(room) as live:
            await live.account("acpcv", chips=20_000)
            port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            settings = BridgeSettings(live.http, 0, "acpcv", "password-acpcv", "acpc-nl")
            bridge = Bridge(settings, listening=port.set_result)
            run = asyncio.create_task(bridge.run())
            reader, writer = await asyncio.open_connection("127.0.0.1", await port)
            writer.write(b"VERSION:1.0.0\r\n")
            await writer.drain()
            with pytest.raises(BridgeError, match=r"said 'VERSION:1.0.0'; .* VERSION:2.0.0"):
                await run
            assert await reader.read() == b""  # the bridge closed the connection
            writer.close()
            assert room.runners["acpc-nl"].table.seats == {}

    asyncio.run(asyncio.wait_for(scenario(), 60))

"""``feltroom play``: the rendering, the keys and the lobby as pure functions, and the client
driven through a pseudo-terminal against a live server with house bots."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import termios
from typing import Any

import httpx

from feltroom.bots.client import RequestRefused, TableState
from feltroom.bots.terminal import (
    QUIT,
    AskAmount,
    Notice,
    Screen,
    Send,
    buy_in_bounds,
    describe,
    error_sentence,
    hand_phrase,
    key_command,
    lobby_lines,
    render,
)
from feltroom.store import SqlStorage
from server.live import THREE, live_server, room_for

SNAPSHOT: dict[str, Any] = {
    "type": "snapshot",
    "table": "holdem-1",
    "you": 3,
    "view": {
        "info": "Holdem 1",
        "button": 1,
        "small": 3,
        "big": 5,
        "hand": 4711,
        "hand_number": 96,
        "seats": [
            {"seat": 1, "player": "bob", "stack": 180, "sitting_out": False, "marker": "",
             "owes": "-", "disconnected": False, "in_hand": True, "bet": 0, "folded": False,
             "all_in": False, "cards": None},
            {"seat": 3, "player": "alice", "stack": 199, "sitting_out": False, "marker": "",
             "owes": "-", "disconnected": False, "in_hand": True, "bet": 1, "folded": False,
             "all_in": False, "cards": ["As", "Kd"]},
            {"seat": 5, "player": "carol", "stack": 298, "sitting_out": False, "marker": "",
             "owes": "-", "disconnected": True, "in_hand": True, "bet": 2, "folded": False,
             "all_in": False, "cards": None},
            {"seat": 7, "player": "dave", "stack": 150, "sitting_out": True, "marker": "ML",
             "owes": "ML", "disconnected": False, "in_hand": False, "bet": 0, "folded": False,
             "all_in": False, "cards": None},
        ],
        "board": ["Ah", "7c", "2d"],
        "pot": 3,
        "to_act": 1,
        "deadline": 1000.0,
        "waiting": 0,
        "legal": None,
        "muted": [],
    },
}  # fmt: skip

LEGAL = {"fold": True, "check": False, "call": 5, "raise_min": 12, "raise_max": 199, "bet": False}


def _state(**turn: Any) -> TableState:
    state = TableState("holdem-1")
    state.apply(json.loads(json.dumps(SNAPSHOT)))
    if turn:
        state.apply({"type": "turn", "table": "holdem-1", "hand": 4711, **turn})
    return state


def _line(lines: list[str], start: str) -> str:
    found = [line for line in lines if line.lstrip(" >").startswith(start)]
    assert found, f"no line starting {start!r} in {lines}"
    return found[0]


def test_render_shows_the_table_as_the_snapshot_gives_it() -> None:
    state = _state()
    lines = render(Screen(state, "alice", "Holdem 1", now=990.0))
    view = SNAPSHOT["view"]
    text = "\n".join(lines)
    assert f"Hand #{view['hand']}" in text
    assert f"Pot {view['pot']}" in text
    assert f"Board: {' '.join(view['board'])}" in text
    for seat in view["seats"]:
        row = _line(lines, str(seat["seat"]))
        assert seat["player"] in row
        assert re.search(rf"\b{seat['stack']}\b", row)
        assert re.search(rf"\b{seat['bet']}\b", row)
    assert "D" in _line(lines, str(view["button"])).split()
    assert "SB" in _line(lines, str(view["small"]))
    assert "BB" in _line(lines, str(view["big"]))
    assert _line(lines, str(view["to_act"])).startswith(">")
    assert "sitting out" in _line(lines, "7")
    assert "disconnected" in _line(lines, "5")
    assert "(you)" in _line(lines, "3")
    assert "Your cards: As Kd" in text
    # the countdown is the deadline less the server's clock now
    assert f"To act: bob ({int(view['deadline'] - 990.0)} s)" in text


def test_r_hist_2_render_shows_no_card_the_server_did_not_send() -> None:
    """Only one's own cards and cards shown at the table appear (the others are ##)."""
    state = _state()
    lines = render(Screen(state, "alice"))
    cards = set(re.findall(r"\b[2-9TJQKA][cdhs]\b", "\n".join(lines)))
    assert cards == {"As", "Kd", *SNAPSHOT["view"]["board"]}
    assert "## ##" in _line(lines, "1")
    state.apply({"type": "event", "table": "holdem-1", "hand": 4711, "kind": "cards_shown",
                 "seat": 1, "cards": ["Qs", "Qh"]})  # fmt: skip
    assert "Qs Qh" in _line(render(Screen(state, "alice")), "1")


def test_render_offers_exactly_the_legal_actions_of_the_turn() -> None:
    state = _state(seat=3, countdown_at=1000.0, deadline=1010.0, legal=LEGAL)
    lines = render(Screen(state, "alice", now=1000.0))
    offered = _line(lines, "Your turn:")
    assert "f=fold" in offered
    assert f"c=call {LEGAL['call']}" in offered
    assert f"r=raise to {LEGAL['raise_min']}..{LEGAL['raise_max']}" in offered
    assert "check" not in offered
    assert "Your turn (10 s)" in lines
    bet = {**LEGAL, "fold": False, "check": True, "call": None, "bet": True}
    state = _state(seat=3, countdown_at=1000.0, deadline=1010.0, legal=bet)
    offered = _line(render(Screen(state, "alice")), "Your turn:")
    assert "fold" not in offered
    assert "c=check" in offered
    assert f"r=bet {bet['raise_min']}..{bet['raise_max']}" in offered
    # another seat's turn: nothing is offered
    other = _state(seat=1, countdown_at=1000.0, deadline=1010.0, legal=None)
    assert not any(line.startswith("Your turn:") for line in render(Screen(other, "alice")))


def test_render_shows_the_log_prompt_entry_and_notice() -> None:
    state = _state()
    state.apply({"type": "blind_prompt", "table": "holdem-1", "amount": 2, "expires": 1005.0})
    log = tuple(f"line {k}" for k in range(20))
    lines = render(Screen(state, "alice", log=log, now=1000.0, entry="raise to: 5_",
                          notice="server: illegal_action: no"))  # fmt: skip
    assert lines[lines.index("Last actions:") + 1 :][:8] == [f"  {x}" for x in log[-8:]]
    assert "Blind due: 2 — p=post  d=decline (5 s)" in lines
    assert "raise to: 5_" in lines
    assert lines[-1] == "! server: illegal_action: no"


def test_keys_send_only_what_the_turn_offers() -> None:
    state = _state(seat=3, countdown_at=1000.0, deadline=1010.0, legal=LEGAL)
    act = {"type": "act", "table": "holdem-1", "hand": 4711}
    assert key_command("f", state) == Send({**act, "action": "fold"})
    assert key_command("c", state) == Send({**act, "action": "call"})
    assert key_command("r", state) == AskAmount("raise", LEGAL["raise_min"], LEGAL["raise_max"])
    checking = {**LEGAL, "fold": False, "check": True, "call": None, "raise_min": None,
                "raise_max": None}  # fmt: skip
    state = _state(seat=3, countdown_at=1000.0, deadline=1010.0, legal=checking)
    assert isinstance(key_command("f", state), Notice)
    assert key_command("c", state) == Send({**act, "action": "check"})
    assert isinstance(key_command("r", state), Notice)
    waiting = _state(seat=1, countdown_at=1000.0, deadline=1010.0, legal=None)
    for key in "fcr":
        assert isinstance(key_command(key, waiting), Notice)


def test_r_buyin_3_keys_for_blinds_sitting_out_adding_chips_and_quitting() -> None:
    state = _state()
    assert isinstance(key_command("p", state), Notice)
    state.apply({"type": "blind_prompt", "table": "holdem-1", "amount": 2, "expires": 1005.0})
    assert key_command("p", state) == Send({"type": "post_blind", "table": "holdem-1"})
    assert key_command("d", state) == Send({"type": "decline_blind", "table": "holdem-1"})
    assert key_command("o", state) == Send({"type": "sit_out", "table": "holdem-1"})
    assert isinstance(key_command("i", state), Notice)
    assert key_command("a", state, auto_post=True) == Send(
        {"type": "auto_post", "table": "holdem-1", "on": False}
    )
    mine = state.seats[3]
    # R-BUYIN-3: chips are added up to the table's maximum
    assert key_command("m", state, max_buy_in=400) == AskAmount("add_chips", 1, 400 - mine.stack)
    assert isinstance(key_command("m", state, max_buy_in=mine.stack), Notice)
    assert key_command("m", state) == AskAmount("add_chips", 1, None)  # no maximum (FL)
    assert key_command("q", state) == QUIT
    assert isinstance(key_command("x", state), Notice)


def test_describe_names_the_players() -> None:
    state = _state()
    event = {"type": "event", "table": "holdem-1", "hand": 4711}
    assert describe({**event, "kind": "raised", "seat": 1, "to": 6, "all_in": False,
                     "bet": False}, state) == "bob raises to 6"  # fmt: skip
    assert describe({**event, "kind": "called", "seat": 5, "amount": 4, "all_in": True},
                    state) == "carol calls 4 (all-in)"  # fmt: skip
    assert describe({**event, "kind": "posted", "seat": 3, "forced": "small_blind", "amount": 1,
                     "all_in": False}, state) == "alice posts the small blind 1"  # fmt: skip
    assert describe({**event, "kind": "posted", "seat": 3, "forced": "post", "amount": 2,
                     "all_in": False}, state) == "alice posts the entry blind 2"  # fmt: skip
    awarded = describe({**event, "kind": "pot_awarded", "index": 0, "amount": 40, "rake": 2,
                        "winners": [1, 3], "shares": [19, 19]}, state)  # fmt: skip
    assert awarded == "main pot 40 (rake 2): bob 19, alice 19"
    assert describe({**event, "kind": "hole_cards_dealt", "seats": [1, 3]}, state) is None


def test_r_buyin_2_lobby_and_buy_in_bounds() -> None:
    entry = {"id": "nl", "name": "Fjord", "game": "Texas Hold'em", "stakes": "25/50 No Limit",
             "currency": "PLAY", "seats": 10, "seats_taken": 4, "seats_free": 6,
             "status": "running", "settings": {"buy_in_min": 1000, "buy_in_max": 5000,
                                               "exponent": 0}}  # fmt: skip
    lines = lobby_lines([entry], {"PLAY": "3000"})
    row = lines[1].split()
    assert row[0] == "1"
    assert [entry["seats"], entry["seats_taken"], entry["seats_free"]] == [
        int(x) for x in row[-4:-1]
    ]
    assert "PLAY 3000" in lines[-1]
    # R-BUYIN-2: the default is the whole balance up to the maximum
    assert buy_in_bounds(entry, {"PLAY": "3000"}) == (1000, 5000, 3000)
    assert buy_in_bounds(entry, {"PLAY": "90000"}) == (1000, 5000, 5000)
    cents = {**entry, "currency": "USD", "settings": {**entry["settings"], "exponent": 2}}
    assert buy_in_bounds(cents, {"USD": "12.34"})[2] == 1234


class Pty:
    """``feltroom play`` on a pseudo-terminal: what it prints is read without blocking."""

    def __init__(self, url: str) -> None:
        self.master, self.slave = os.openpty()
        self.modes = termios.tcgetattr(self.slave)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "feltroom.cli", "play", "--url", url],
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            start_new_session=True,
            env={**os.environ, "TERM": "xterm"},
        )
        self.output = ""
        self.seen = 0
        self.event = asyncio.Event()
        asyncio.get_running_loop().add_reader(self.master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self.master)
        self.output += data.decode("utf-8", "replace")
        self.event.set()

    async def expect(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        """The next match of ``pattern`` in the output after the last one."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            match = re.compile(pattern).search(self.output, self.seen)
            if match is not None:
                self.seen = match.end()
                return match
            if loop.time() > end or self.process.poll() is not None:
                raise AssertionError(f"no {pattern!r}; the screen ends: {self.output[-1500:]!r}")
            self.event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), 0.2)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def name_and_password(self, name: str) -> None:
        """Answer the sign-in's two questions for ``name`` (password ``password-<name>``)."""
        await self.expect("Name: ")
        self.type(f"{name}\r")
        await self.expect("Password: ")
        self.type(f"password-{name}\r")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.master)
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.master)
        os.close(self.slave)


def test_play_through_a_pseudo_terminal_against_a_live_server(storage: SqlStorage) -> None:
    """Sign up, pick the table, buy in, and check or call at our turn: the server broadcasts
    the action; q leaves the table and restores the terminal's modes."""
    runtime = room_for(storage, THREE, house_bots=2)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            pty = Pty(live.http)
            try:
                await pty.name_and_password("carol")
                await pty.expect(r"Create 'carol'\? \[y/N\] ")
                pty.type("y\r")
                await pty.expect("Table number")
                pty.type("1\r")
                bounds = await pty.expect(r"Buy-in for \S+ \((\d+)\.\.(\d+) PLAY")
                settings = runtime.runners["three"].settings
                assert (int(bounds[1]), int(bounds[2])) == (
                    settings["buy_in_min"],
                    settings["buy_in_max"],
                )
                pty.type("100\r")
                await pty.expect(r"big blind \(w\)\? ")
                pty.type("p")  # one key, no Enter (docs/play.md)
                # the hand's words, as the server's hand_strength gives them (as on the web)
                await pty.expect(r"Your cards: \S\S \S\S — (High Card|One Pair), ", 25)
                offered = await pty.expect(r"Your turn: [^\r\n]*c=(check|call \d+)", 25)
                table = runtime.runners["three"].table
                seat = table.seat_of("carol")
                assert seat is not None
                pty.type("c")
                kind = "checked" if offered[1] == "check" else "called"
                await pty.expect(rf"carol {kind[:-2]}s")
                broadcast = [
                    json.loads(frame)
                    for player, frame in live.tap.frames
                    if player == "carol" and f'"{kind}"' in frame
                ]
                assert any(m["seat"] == seat for m in broadcast), broadcast
                pty.type("q")
                await pty.expect("Bye.")
                assert await asyncio.to_thread(pty.process.wait, 15) == 0
                assert termios.tcgetattr(pty.slave) == pty.modes
                assert table.seat_of("carol") is None or table.in_hand
            finally:
                pty.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_keys_name_the_turn_they_answer() -> None:
    """Issue 27, point 6: the terminal client sends the ``turn_id`` of the turn on screen, so
    a key pressed twice is refused (``stale_turn``) instead of acting at a later turn."""
    state = _state(seat=3, countdown_at=1000.0, deadline=1010.0, legal=LEGAL, turn_id=12)
    act = {"type": "act", "table": "holdem-1", "hand": 4711, "turn_id": 12}
    assert key_command("f", state) == Send({**act, "action": "fold"})
    assert key_command("c", state) == Send({**act, "action": "call"})


def test_r_show_1_the_showdown_names_the_winning_hands_and_errors_are_sentences() -> None:
    """The last hand's pots read "alice wins 570 with a flush, Ace high" (R-SHOW-1, the
    server's ``hands``); a refusal reads as a sentence from its ``code`` and ``details``."""
    state = _state()
    state.apply(
        {
            "type": "hand_result",
            "table": "holdem-1",
            "hand": 4711,
            "pots": [{"amount": 600, "rake": 30, "winners": [1], "shares": [570]}],
            "stacks": {"1": 770},
            "shown": {"1": ["Ah", "Kh"]},
            "hands": {"1": {"description": "Flush, Ace high", "cards": ["Ah", "Kh"]}},
            "rake": 30,
        }
    )
    screen = Screen(state=state, player="alice", title="T")
    assert any("bob wins 570 with a flush, Ace high" in line for line in render(screen))
    assert hand_phrase("Two Pair, Kings and Sevens") == "two pair, Kings and Sevens"
    raise_error = RequestRefused(
        {
            "type": "error",
            "code": "illegal_action",
            "message": "the minimum raise is to 100; legal: ...",
            "details": {"action": "raise", "amount": 99, "min": 100, "max": 400},
        }
    )
    assert error_sentence(raise_error) == "The minimum raise is to 100."
    buy_in = RequestRefused(
        {
            "type": "error",
            "code": "illegal_action",
            "message": "a buy-in of 12 is outside the table's bounds (buy-in 40 to 400, R-BUYIN-1)",
            "details": {"min": 40, "max": 400, "stack": 0, "amount": 12},
        }
    )
    assert error_sentence(buy_in) == "The buy-in here is 40 to 400."
    other = RequestRefused(
        {"type": "error", "code": "refused", "message": "the table is paused", "details": {}}
    )
    assert error_sentence(other) == "The table is paused."
    no_figures = RequestRefused(
        {"type": "error", "code": "refused", "message": "too late (buy-in 40 to 400, R-BUYIN-1)"}
    )
    assert error_sentence(no_figures) == "Too late (buy-in 40 to 400)."  # no rule ids


def test_buy_in_bounds_of_a_table_without_a_maximum() -> None:
    """Issue 42, point 4: a Fixed-Limit table has no maximum buy-in (``buy_in_max`` is None):
    the bounds say so and the default is the whole balance; ``m`` asks for any amount."""
    entry = {"id": "fl", "currency": "PLAY",
             "settings": {"buy_in_min": 2000, "buy_in_max": None, "exponent": 0}}  # fmt: skip
    assert buy_in_bounds(entry, {"PLAY": "10000"}) == (2000, None, 10000)
    state = _state()
    assert key_command("m", state, max_buy_in=None) == AskAmount("add_chips", 1, None)
    assert AskAmount("add_chips", 1, None).bounds() == "1..no maximum"


def _demo_tables() -> str:
    from importlib import resources

    return resources.files("feltroom").joinpath("data", "tables.toml").read_text("utf-8")


def test_play_at_each_demo_table_through_a_pseudo_terminal(storage: SqlStorage) -> None:
    """Issue 42, point 4: ``feltroom play`` at each kind of demo table (Fixed-Limit, Pot-Limit,
    No-Limit, and both heads-up tables) with a house bot: buy in at the table's minimum, act
    once at our turn, and quit; the client never crashes (it did at every Fixed-Limit table:
    no maximum buy-in)."""
    runtime = room_for(storage, _demo_tables(), house_bots=1)
    runtime.accounts.sign_up("dora", "password-dora")
    runtime.cashier.grant("dora", 200_000, "test:dora")
    names = ["Aurora", "Cedar", "Dune", "Fjord", "Heron"]

    async def one(live: Any, name: str) -> None:
        pty = Pty(live.http)
        try:
            await pty.name_and_password("dora")
            row = await pty.expect(rf"(\d+)\s+{name}\s")
            await pty.expect("Table number")
            pty.type(f"{row[1]}\r")
            bounds = await pty.expect(r"Buy-in for \S+ \((\d+)\.\.(\d+|no maximum) PLAY")
            pty.type(f"{bounds[1]}\r")
            await pty.expect(r"big blind \(w\)\? ")
            pty.type("p")
            offered = await pty.expect(r"Your turn: [^\r\n]*c=(check|call \d+)", 40)
            pty.type("c")
            word = "checks" if offered[1] == "check" else "calls"
            await pty.expect(rf"dora {word}")
            pty.type("q")
            await pty.expect("Bye.")
            assert await asyncio.to_thread(pty.process.wait, 15) == 0
        finally:
            pty.close()

    async def scenario() -> None:
        async with live_server(runtime) as live:
            for name in names:
                await one(live, name)

    asyncio.run(asyncio.wait_for(scenario(), 240))


def test_describe_the_draw_for_the_first_button() -> None:
    """Issue 42, point 4: the draw's cards are ``[seat, card]`` pairs (the log's line for them
    broke the client's reader, which ended the connection, at every table with a drawn button)."""
    state = _state()
    event = {"type": "event", "table": "holdem-1", "hand": 1, "kind": "first_button_drawn",
             "cards": [[1, "Kh"], [3, "2d"]], "button": 1}  # fmt: skip
    assert describe(event, state) == "Button draw: bob Kh, alice 2d; the button is seat 1"


def test_R_HOME_1_the_terminal_joins_a_home_game_by_its_link(storage: SqlStorage) -> None:
    """``feltroom play --url .../g/<secret>``: sign up, the buy-in in the game's range, the
    request waits for the host; admitted, the table plays; strangers cannot watch it."""
    runtime = room_for(storage, THREE)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            host = {"Authorization": f"Bearer {await live.account('hostess')}"}
            async with httpx.AsyncClient(base_url=live.http, headers=host) as http:
                game = (await http.post("/api/games", json={"seats": 4})).json()["game"]
                secret = game["invite"].removeprefix("/g/")
                seated = await http.post(f"/api/invites/{secret}/join", json={"buy_in": 100})
                assert seated.json()["seat"] == 1
                async with live.client("zed", await live.account("zed")) as zed:
                    refused = await zed.request({"type": "observe", "table": "home-g-1"})
                    assert refused["code"] == "refused"
                pty = Pty(f"{live.http}{game['invite']}")
                try:
                    await pty.name_and_password("dora")
                    await pty.expect(r"Create 'dora'\? \[y/N\] ")
                    pty.type("y\r")
                    bounds = await pty.expect(r"Buy-in for .+? \((\d+)\.\.(\d+) g-1")
                    assert (int(bounds[1]), int(bounds[2])) == (40, 200)
                    pty.type("120\r")
                    await pty.expect(r"big blind \(w\)\? ")
                    pty.type("p")
                    await pty.expect("waiting for the host")
                    while True:
                        seen = (await http.get("/api/games/g-1")).json()["game"]
                        if seen["requests"]:
                            break
                        await asyncio.sleep(0.05)
                    (request,) = seen["requests"]
                    assert (request["player"], request["amount"]) == ("dora", 120)
                    body = {"request": request["id"], "admit": True}
                    assert (await http.post("/api/games/g-1/admit", json=body)).status_code == 200
                    await pty.expect(r"Your cards: \S\S \S\S", 25)
                    assert runtime.runners["home-g-1"].table.seat_of("dora") is not None
                    pty.type("q")
                    await pty.expect("Bye.")
                    assert await asyncio.to_thread(pty.process.wait, 15) == 0
                finally:
                    pty.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))

"""A live server for the protocol's end-to-end tests: uvicorn in the test's event loop on a free
port, the room on the real clock, scripted clients over real websockets, and a wire-tap that
checks every frame the hub sends against what its connection may see at that moment."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings, WatchedTable
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.server import create_app
from feltroom.server.app import server_config
from feltroom.server.session import Connection, Hub, HubSettings
from feltroom.server.timeouts import READ_TIMEOUTS, ReadTimeouts
from feltroom.store import SqlStorage

CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")

HEADS_UP = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30
"""

THREE = """
[[table]]
id = "three"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30
"""


def room_for(storage: SqlStorage, text: str, tournaments: str = "", **settings: Any) -> RoomRuntime:
    options: dict[str, Any] = {
        "house_bots": 0,
        "bot_think": (0.0, 0.0),
        "between_hands": 0.05,
        "after_showdown": 0.05,  # hands follow at once, showdowns too
        "poll": 0.05,
        "selftest_first": 10**9,
    }
    options.update(settings)
    return RoomRuntime(
        Settlement(storage),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        parse_tables(text, "test tables"),
        tournaments=parse_tournaments(tournaments),
        settings=RuntimeSettings(**options),
    )


@dataclass
class Leak:
    player: str | None
    card: str
    frame: str


@dataclass
class WireTap:
    """Records every frame the hub queues, and the cards in it that its connection may not see
    at that moment: its own hole cards, the board dealt so far and cards shown at the table
    are allowed (and the face-up cards of the button draw); chat text is excluded."""

    runtime: RoomRuntime
    frames: list[tuple[str | None, str]] = field(default_factory=list)
    leaks: list[Leak] = field(default_factory=list)

    def allowed(self, connection: Connection, message: dict[str, Any]) -> set[str]:
        table = message.get("table")
        if not isinstance(table, str):
            return set()
        runner: WatchedTable
        if table in self.runtime.runners:
            runner = self.runtime.runners[table]
        else:
            found = self.runtime.tournament_table(table)
            if found is None:
                return set()
            runner = found[1]
        hand = runner.table.hand
        cards: set[str] = set()
        if hand is None:
            return cards
        cards |= {str(c) for c in hand.board if c is not None}
        for seat in hand.shown:
            cards |= {str(c) for c in hand.hole_cards(seat) if c is not None}
        player = connection.player
        if player is not None:
            seat = runner.table.seat_of(player)
            result = runner.table.last_result
            played_it = not hand.is_over or (
                result is not None and result.accounts.get(seat or 0) == player
            )
            if seat is not None and seat in hand.seats and played_it:
                cards |= {str(c) for c in hand.hole_cards(seat) if c is not None}
        return cards

    def __call__(self, connection: Connection, message: dict[str, Any], frame: str) -> None:
        self.frames.append((connection.player, frame))
        if message.get("type") == "chat":
            text = message.get("text", "")
            frame = frame.replace(json.dumps(text)[1:-1], "")
        found = set(CARD.findall(frame))
        if not found:
            return
        if message.get("kind") == "first_button_drawn":
            return  # dealt face up for everyone (R-BUTTON-1)
        allowed = self.allowed(connection, message)
        for card in sorted(found - allowed):
            self.leaks.append(Leak(connection.player, card, frame))


class Client:
    """A scripted client: every message it receives is kept in ``log``."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.name = name
        self.log: list[dict[str, Any]] = []
        self._used: set[int] = set()
        self.next_id = 0

    async def send(self, message: dict[str, Any]) -> int:
        self.next_id += 1
        message = {**message, "id": self.next_id}
        await self.ws.send(json.dumps(message))
        return self.next_id

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        message: dict[str, Any] = json.loads(frame)
        self.log.append(message)
        return message

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """The oldest message matching that no earlier wait returned (already received, or
        new)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        checked = 0
        while True:
            for k in range(checked, len(self.log)):
                if k not in self._used and predicate(self.log[k]):
                    self._used.add(k)
                    return self.log[k]
            checked = len(self.log)
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no matching message; last: {self.log[-5:]}")
            try:
                await self.recv(left)
            except TimeoutError:
                raise TimeoutError(
                    f"{self.name}: no matching message; last: {self.log[-5:]}"
                ) from None

    async def reply(self, ref: int, timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_for(
            lambda m: (
                m.get("ref") == ref and m["type"] in ("ok", "error", "pong", "welcome", "lobby")
            ),
            timeout,
        )

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        return await self.reply(await self.send(message))


@dataclass
class Live:
    runtime: RoomRuntime
    hub: Hub
    port: int
    tap: WireTap

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def account(self, name: str, chips: int = 10_000) -> str:
        """Sign up (if new), grant play chips, sign in; returns the token."""
        async with httpx.AsyncClient(base_url=self.http) as http:
            await http.post("/api/signup", json={"name": name, "password": "password-" + name})
            response = await http.post(
                "/api/signin", json={"name": name, "password": "password-" + name}
            )
            response.raise_for_status()
            token: str = response.json()["token"]
        await asyncio.to_thread(self.runtime.cashier.grant, name, chips, f"test-grant:{name}")
        return token

    @contextlib.asynccontextmanager
    async def client(
        self, name: str, token: str, *, hello: bool = True, **options: Any
    ) -> AsyncIterator[Client]:
        async with connect(self.ws_url, max_size=None, **options) as ws:
            client = Client(ws, name)
            if hello:
                welcome = await client.request({"type": "hello", "version": 1, "token": token})
                assert welcome["type"] == "welcome", welcome
            yield client


@contextlib.asynccontextmanager
async def live_server(
    runtime: RoomRuntime,
    hub_settings: HubSettings | None = None,
    read_timeouts: ReadTimeouts = READ_TIMEOUTS,
) -> AsyncIterator[Live]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(runtime, hub_settings=hub_settings)
    hub: Hub = app.state.hub
    tap = WireTap(runtime)
    hub.tap = tap
    config = server_config(app, read_timeouts=read_timeouts)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield Live(runtime, hub, port, tap)
    finally:
        server.should_exit = True
        await task
        sock.close()

"""The browser tests' room: a real server (uvicorn in a thread, on a free port, a temporary
SQLite database, No-Limit, Fixed-Limit and Pot-Limit tables, no house bots) and Debian's chromium
driven by Playwright. Skipped when chromium or Playwright is missing."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.server import create_app
from feltroom.server.app import server_config
from feltroom.server.session import Hub
from feltroom.store import open_storage

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

TABLES = """
[[table]]
id = "nl"
name = "Oak NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "fl"
name = "Birch Limit"
structure = "fixed_limit"
lower = 2
upper = 4
max_seats = 6
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "pl"
name = "Cedar PL"
structure = "pot_limit"
big_blind = 2
small_blind = 1
max_seats = 6
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "quick"
name = "Quick NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 2
countdown_seconds = 4

[[table]]
id = "drop"
name = "Drop NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "solo"
name = "Solo NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "side"
name = "Side NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "full"
name = "Full NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "livepots"
name = "Live Pots NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "miss"
name = "Miss NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "bank"
name = "Bank NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 8
countdown_seconds = 2
time_bank_seconds = 6

[[table]]
id = "open"
name = "Open Limit"
structure = "fixed_limit"
lower = 2
upper = 4
max_seats = 6
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats4"
name = "4-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 4
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats5"
name = "5-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 5
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats7"
name = "7-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 7
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats8"
name = "8-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 8
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats9"
name = "9-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 9
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "seats10"
name = "10-max NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 10
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30
"""


@dataclass
class Room:
    """The running room: its address and its runtime (the books the pages must match)."""

    url: str
    runtime: RoomRuntime
    loop: asyncio.AbstractEventLoop
    hub: Hub

    def drop(self, player: str) -> None:
        """End every connection of ``player`` from the server's side (a lost network)."""

        def close() -> None:
            for connection in list(self.hub.connections):
                if connection.player == player:
                    connection.close()

        self.call(close)

    def run(self, coroutine: Any) -> Any:
        """Await ``coroutine`` on the server's event loop (a runtime command)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(20)

    def seat_players(self, table: str, names: list[str], buy_in: int) -> None:
        """Sign up ``names`` (with play chips) and seat them at ``table`` from seat 1 on, from
        the server's side (no browser): players that never act, for what a page shows."""
        from feltroom.table import Entry

        runtime = self.runtime
        for seat, name in enumerate(names, start=1):
            runtime.accounts.sign_up(name, "password-" + name)
            runtime.cashier.grant(name, 10_000, f"seat-players:{name}")
            self.run(runtime.join(table, name, seat, buy_in, Entry.POST))

    def call(self, fn: Any) -> Any:
        """Run ``fn()`` on the server's event loop (reads the tables between their steps)."""

        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)


@contextlib.contextmanager
def serve_room(
    tables: str,
    settings: RuntimeSettings,
    tournaments: str = "",
    clock: Callable[[], float] = time.time,
) -> Iterator[Room]:
    """A real server for ``tables`` (and the ``[[tournament]]`` entries ``tournaments``) with
    ``settings`` on ``clock`` (uvicorn in a thread, on a free port, a temporary SQLite
    database) while the block runs."""
    folder = Path(tempfile.mkdtemp(prefix="feltroom-browser-"))
    storage = open_storage(f"sqlite:///{folder / 'room.sqlite3'}")
    runtime = RoomRuntime(
        Settlement(storage),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        parse_tables(tables, "browser test tables"),
        tournaments=parse_tournaments(tournaments),
        settings=settings,
        clock=clock,
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(runtime)
    server = uvicorn.Server(server_config(app))
    loop = asyncio.new_event_loop()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=[sock]))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        time.sleep(0.01)
    try:
        yield Room(f"http://127.0.0.1:{port}", runtime, loop, app.state.hub)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        storage.close()
        shutil.rmtree(folder, ignore_errors=True)


def quiet_room(
    tables: str, tournaments: str = "", clock: Callable[[], float] = time.time
) -> contextlib.AbstractContextManager[Room]:
    """A server for a test module's own ``tables`` (and ``tournaments``) on ``clock``: no house
    bots, hands a second apart."""
    settings = RuntimeSettings(
        house_bots=0, bot_think=(0.0, 0.0), between_hands=1.0, poll=0.05, selftest_first=10**9
    )
    return serve_room(tables, settings, tournaments, clock)


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    settings = RuntimeSettings(
        house_bots=0,
        bot_think=(0.0, 0.0),
        between_hands=2.0,
        poll=0.05,
        selftest_first=10**9,
    )
    with serve_room(TABLES, settings) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module: Playwright's sync API holds an event loop in this thread
    while it runs, so it is stopped before the next module's tests (which may use asyncio)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (scripts/test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=15_000)  # patient when the machine is busy
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()

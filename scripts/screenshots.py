"""Screenshots of the browser client for the README (docs/screenshots/): the lobby and a table
on a 1280x800 desktop and a 390-px-wide phone, the table at the player's turn with the whole
action bar on a 1366x657 laptop and a 390x844 phone (a touch screen), a showdown (the winning
hand named and its five cards highlighted), a full 9-max table on the phone, the hand history,
the replayer, the lobby sorted and filtered, several tables in one page (tiles), a tournament's
page and a tournament table with its level bar, the history, the statistics and a
tournament's page on the phone, and a home game: the host's panel beside the table with a
guest's request (1366x657), and its ledger on the guest's phone once the host ended it. Starts
a room on a free port with a temporary database and house bots, plays into a hand in Debian's
chromium with Playwright, and saves PNGs.

Usage: .venv/bin/python scripts/screenshots.py [OUT_DIR]
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import Page, sync_playwright

from feltroom.room import Accounts, Argon2Settings, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.server import create_app
from feltroom.store import open_storage
from feltroom.table import Entry

TABLES = "\n".join(
    f"""
[[table]]
id = "{tid}"
name = "{name}"
structure = "{structure}"
{blinds}
max_seats = {seats}
min_buy_in = 40
max_buy_in = 400
act_seconds = 60
"""
    for tid, name, structure, blinds, seats in (
        ("oak", "Oak", "no_limit", "big_blind = 2\nsmall_blind = 1", 6),
        ("birch", "Birch", "fixed_limit", "lower = 2\nupper = 4", 9),
        ("cedar", "Cedar", "pot_limit", "big_blind = 10\nsmall_blind = 5", 6),
        ("maple", "Maple", "no_limit", "big_blind = 20\nsmall_blind = 10", 2),
        ("pine", "Pine", "no_limit", "big_blind = 2\nsmall_blind = 1", 3),
        ("ash", "Ash", "no_limit", "big_blind = 2\nsmall_blind = 1", 9),
    )
)
TOURNAMENTS = """
[[tournament]]
id = "turbo"
format = "sng"
seats_per_table = 3
max_entries = 6
starting_stack = 1500
buy_in = 1000
fee = 100
"""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]


def sign_up(page: Page, url: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("#auth-name", name)
    page.fill("#auth-password", "password-" + name)
    page.click("#signup")
    page.wait_for_selector("nav .who")
    page.get_by_role("button", name="take a play-money grant").click()
    page.wait_for_selector('nav .balance[data-currency="PLAY"]')


def shoot(page: Page, path: Path, *, full_page: bool = False) -> None:
    """A screenshot without the passing notices."""
    page.evaluate("() => { document.getElementById('toast').hidden = true; }")
    page.screenshot(path=str(path), full_page=full_page)


def home_game(browser: Any, url: str, runtime: RoomRuntime, out: Path) -> None:
    """A home game: hosted from the lobby on a laptop, a guest on a phone asks for a seat by
    its link (the host's panel then), a hand or two, the host ends it (the guest's ledger)."""
    host = browser.new_context(viewport={"width": 1366, "height": 657}).new_page()
    sign_up(host, url, "hana")
    host.click("#host-game")
    host.fill("#host-name", "Friday game")
    host.click("#host-create")
    host.wait_for_selector("#invite-link")
    invite = host.locator("#invite-link").input_value()
    host.locator('.seat.empty[data-seat="1"] button').click()
    host.fill("#buy-in", "200")
    host.click("#buy-in-sit")
    host.wait_for_selector(".seat.mine")
    phone = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    guest = phone.new_page()
    guest.goto(invite)
    guest.wait_for_selector("#invite-summary")
    guest.fill("#invite-buy-in", "150")
    guest.fill("#auth-name", "gus")
    guest.fill("#auth-password", "password-gus")
    guest.click("#invite-signup")
    guest.wait_for_selector("#waiting-host")
    host.wait_for_selector('#game-requests li.request[data-player="gus"]', timeout=30_000)
    host.wait_for_timeout(300)
    shoot(host, out / "home-host-desktop.png")
    host.click('#game-requests li.request[data-player="gus"] button.yes')
    guest.wait_for_selector(".seat.mine", timeout=30_000)
    table = runtime.runners[host.evaluate("() => location.hash").removeprefix("#table/")].table
    first = table.hand_number
    for _ in range(240):  # two hands, each checked or called down
        if table.hand_number >= first + 2:
            break
        for each in (host, guest):
            if each.locator("#actions .row button").count():
                button = "#act-check" if each.locator("#act-check").count() else "#act-call"
                with contextlib.suppress(Exception):
                    each.click(button, timeout=2_000)
        time.sleep(0.25)
    host.click("#game-end")
    host.click("#end-ok")
    guest.wait_for_selector("#ledger-check", timeout=30_000)
    guest.wait_for_timeout(300)
    shoot(guest, out / "home-ledger-phone.png", full_page=True)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="feltroom-shots-"))
    storage = open_storage(f"sqlite:///{folder / 'room.sqlite3'}")
    runtime = RoomRuntime(
        Settlement(storage),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        parse_tables(TABLES, "screenshot tables"),
        tournaments=parse_tournaments(TOURNAMENTS),
        settings=RuntimeSettings(
            house_bots=2, bot_think=(0.2, 0.6), between_hands=1.0, tournament_bot_wait=0.5
        ),
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(create_app(runtime), log_level="warning"))
    loop = asyncio.new_event_loop()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=[sock]))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    # a full 9-max table: the house bots and players seated from the server's side
    for k in range(1, 7):
        name = f"player{k}"
        runtime.accounts.sign_up(name, "password-" + name)
        runtime.cashier.grant(name, 1000, f"shots:{name}")
        join = runtime.join("ash", name, k, 200, Entry.POST)
        asyncio.run_coroutine_threadsafe(join, loop).result(20)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            desktop = browser.new_context(viewport={"width": 1280, "height": 800})
            page = desktop.new_page()
            sign_up(page, url, "alice")
            time.sleep(3)  # the bots play a few hands: the lobby has figures
            page.goto(url + "/#lobby")
            page.wait_for_selector('tr[data-table="oak"]')
            shoot(page, out / "lobby-desktop.png")
            page.goto(url + "/#table/oak")
            page.locator(".seat.empty button").first.click()
            page.fill("#buy-in", "200")
            page.click("#buy-in-sit")
            page.wait_for_selector("#actions .row button", timeout=60_000)
            shoot(page, out / "table-desktop.png")
            # the turn on a laptop: the viewport only (what is seen without scrolling)
            page.set_viewport_size({"width": 1366, "height": 657})
            page.wait_for_timeout(300)
            shoot(page, out / "table-turn-laptop.png")
            page.set_viewport_size({"width": 1280, "height": 800})
            phone = browser.new_context(
                viewport={"width": 390, "height": 844},
                device_scale_factor=2,
                is_mobile=True,
                has_touch=True,
            )
            mobile = phone.new_page()
            mobile.goto(url + "/")
            mobile.evaluate(
                "t => localStorage.setItem('feltroom.token', t)",
                page.evaluate("() => localStorage.getItem('feltroom.token')"),
            )
            mobile.goto(url + "/?signed-in#table/oak")  # a new load: the page reads the token
            mobile.wait_for_selector(".my-hand [data-card]", timeout=60_000)
            shoot(mobile, out / "table-phone.png", full_page=True)
            if mobile.locator("#actions .row button").count():  # still the turn: the viewport
                shoot(mobile, out / "table-turn-phone.png")
            # the hand history: play the hand out, then open it
            page.keyboard.press("c")
            for _ in range(120):
                if page.evaluate(
                    "() => fetch('/api/hands', {headers: {Authorization: "
                    "'Bearer ' + localStorage.getItem('feltroom.token')}})"
                    ".then(r => r.json()).then(j => j.hands.length)"
                ):
                    break
                if page.locator("#actions .row button").count():
                    page.keyboard.press("c")
                time.sleep(0.5)
            page.goto(url + "/#history")
            page.locator(".hand-link").first.click()
            page.wait_for_selector("#proof-status.verified", timeout=20_000)
            page.click("#replay-last")
            shoot(page, out / "history-desktop.png")
            # the replayer drawing the table in the middle of the hand
            page.click("#replay-first")
            steps = int(page.locator("#replay-step").inner_text().split()[-1])
            for _ in range(min(steps - 1, 9)):
                page.click("#replay-next")
            shoot(page, out / "replayer-desktop.png")
            # the lobby sorted by stakes, highest first, empty tables hidden
            page.goto(url + "/#lobby")
            page.wait_for_selector('tr[data-table="oak"]')
            page.click('button.sort[data-sort="stakes"]')
            page.check("#filter-hideEmpty")
            shoot(page, out / "lobby-sorted-desktop.png")
            # several tables in one page, as tiles: alice sits at Cedar too
            page.goto(url + "/#table/cedar")
            page.locator(".seat.empty button").first.click()
            page.fill("#buy-in", "200")
            page.click("#buy-in-sit")
            page.wait_for_selector("#table-strip")
            page.click("#layout-tiled")
            page.wait_for_selector(".table-tab.your-turn", timeout=60_000)
            if not page.locator(".table-view.your-turn").count():
                page.locator(".table-tab.your-turn").first.click()  # show the table that waits
            page.wait_for_timeout(500)
            shoot(page, out / "multitable-desktop.png")
            mobile.goto(url + "/#lobby")
            mobile.wait_for_selector('tr[data-table="oak"]')
            shoot(mobile, out / "lobby-phone.png")
            mobile.goto(url + "/#table/ash")
            mobile.wait_for_selector(".felt .seat .card.back", timeout=60_000)
            mobile.wait_for_timeout(500)
            shoot(mobile, out / "table-9max-phone.png", full_page=True)
            # a sit-and-go the house bots filled: its page, and one of its tables with the bar
            page.goto(url + "/#tournament/turbo-1")
            page.wait_for_selector("#tournament-tables [data-table]", timeout=60_000)
            shoot(page, out / "tournament-desktop.png")
            # the history, the statistics and the tournament's page on the phone
            mobile.goto(url + "/#history")
            mobile.wait_for_selector(".hand-link")
            shoot(mobile, out / "history-phone.png", full_page=True)
            mobile.goto(url + "/#stats")
            mobile.wait_for_selector('#my-stats tr[data-stat="vpip"]')
            shoot(mobile, out / "stats-phone.png", full_page=True)
            mobile.goto(url + "/#tournament/turbo-1")
            mobile.wait_for_selector("#levels tbody tr")
            shoot(mobile, out / "tournament-phone.png", full_page=True)
            page.locator("#tournament-tables a").first.click()
            page.wait_for_selector("#tourney-bar #level-count")
            page.wait_for_selector(".felt .seat .card.back", timeout=60_000)
            page.wait_for_timeout(500)
            shoot(page, out / "tournament-table-desktop.png")
            home_game(browser, url, runtime, out)
            # a showdown between the house bots: the winning hand named, its cards highlighted
            page.goto(url + "/#table/pine")
            page.wait_for_selector(".seat .badge.win.now:has-text(' with ')", timeout=180_000)
            page.wait_for_timeout(400)
            shoot(page, out / "showdown-desktop.png")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        storage.close()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main(
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).parent.parent / "docs" / "screenshots"
    )

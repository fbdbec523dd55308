"""Issue 42, point 3: each page has its own phone layout that keeps what the page is for (one
rule used to hide the second, fifth and sixth column of every table on a phone). On a 390x844
touch screen: the history keeps each hand's "Hand #" button (the replayer), the statistics keep
their values, a tournament's page keeps the blinds, the prizes and the entrants' names, the
tournament lobby keeps each tournament's format, entries and state; nothing needs a sideways
scroll. Geometry: each kept cell is visible and inside the viewport's width."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.rules import Fold
from feltroom.table import Entry

from .conftest import Room, quiet_room
from .helpers import server_to_act, sign_up
from .test_tournaments import CASH

TOURNAMENTS = """
[[tournament]]
id = "weekly"
format = "mtt"
buy_in = 2000
fee = 200
start = "2030-01-07T20:00"
"""

WIDTH, HEIGHT = 390, 844


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(CASH, TOURNAMENTS) as served:
        yield served


def inside(page: Page, selector: str) -> list[str]:
    """The elements ``selector`` finds that are hidden or not wholly inside the viewport's
    width (none found is a failure too), once the page has settled (it may be drawn again as
    its data comes: read again for up to ten seconds)."""
    bad = [f"nothing matches {selector}"]
    for _ in range(100):
        found: list[dict[str, Any]] = page.eval_on_selector_all(
            selector,
            """els => els.map(e => { const r = e.getBoundingClientRect();
                return { what: e.textContent.trim().slice(0, 30), shown: e.offsetParent !== null
                         && r.width > 0, left: r.left, right: r.right }; })""",
        )
        bad = [
            f"{f['what']!r} {f['left']:.0f}-{f['right']:.0f}"
            for f in found
            if not f["shown"] or f["left"] < 0 or f["right"] > WIDTH
        ] or ([] if found else [f"nothing matches {selector}"])
        if not bad:
            break
        page.wait_for_timeout(100)
    return bad


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH


def weekly(room: Room) -> str:
    """The weekly tournament's id (its instance's)."""
    return next(t for t in room.runtime.tournaments if t.startswith("weekly"))


@pytest.fixture(scope="module")
def phone(room: Room, browser: Any) -> Page:
    """A phone signed up as pip who played one hand at Oak NL (against a player seated from the
    server's side) and registered for the weekly tournament."""
    page = sign_up(browser, room.url, "pip", width=WIDTH, height=HEIGHT, touch=True)
    runtime = room.runtime
    runtime.accounts.sign_up("quin", "password-quin")
    runtime.cashier.grant("quin", 1000, "phone:quin")
    room.run(runtime.join("oak", "pip", 1, 100, Entry.POST))
    room.run(runtime.join("oak", "quin", 2, 100, Entry.POST))
    for _ in range(300):
        seat = server_to_act(room, "oak")
        if seat is not None:
            room.run(runtime.act("oak", "pip" if seat == 1 else "quin", Fold()))
            break
        page.wait_for_timeout(100)
    page.goto(room.url + f"/#tournament/{weekly(room)}")
    page.get_by_role("button", name="Register").first.click()
    expect(page.locator('#entrants tr[data-account="pip"]')).to_be_visible()
    return page


def test_the_history_keeps_the_replayer_button(room: Room, phone: Page) -> None:
    phone.goto(room.url + "/#history")
    expect(phone.locator(".hand-link")).to_have_count(1)
    assert inside(phone, ".hand-link") == []
    assert inside(phone, ".hand-list td.result") == []
    assert inside(phone, ".hand-list td.hole") == []
    no_sideways_scroll(phone)
    phone.locator(".hand-link").click()
    expect(phone.locator("#replay-step")).to_be_visible()


def test_the_statistics_keep_their_values(room: Room, phone: Page) -> None:
    phone.goto(room.url + "/#stats")
    expect(phone.locator('#my-stats tr[data-stat="hands"] td.num')).to_have_text("1")
    assert inside(phone, "#my-stats td.num") == []
    assert inside(phone, "#my-stats tr[data-stat]") == []  # each figure's row, its name first
    no_sideways_scroll(phone)


def test_the_tournament_page_keeps_blinds_prizes_and_names(room: Room, phone: Page) -> None:
    phone.goto(room.url + f"/#tournament/{weekly(room)}")
    expect(phone.locator("#levels tbody tr").first).to_be_visible()
    assert inside(phone, "#levels tbody tr:first-child td") == []  # level, blinds, ante
    assert inside(phone, "#payouts td") == []  # places and prizes
    assert inside(phone, '#entrants tr[data-account="pip"] td') == []  # rank, name, chips
    no_sideways_scroll(phone)
    # issue 42, point 5: what it waits for
    expect(phone.locator("#tournament-waiting")).to_contain_text(
        "Registration is open: it starts at"
    )


def test_the_tournament_lobby_keeps_format_entries_and_state(room: Room, phone: Page) -> None:
    phone.goto(room.url + "/#lobby")
    row = phone.locator(".tournament-list tbody tr").first
    expect(row).to_be_visible()
    headers = phone.eval_on_selector_all(
        ".tournament-list thead th", "els => els.map(e => e.textContent.trim())"
    )
    for name in ("Tournament", "Format", "Buy-in", "Entries", "State"):
        column = headers.index(name) + 1
        assert inside(phone, f".tournament-list tbody tr td:nth-child({column})") == [], name
    assert inside(phone, ".tournament-list tbody tr td:last-child button") == []  # register
    no_sideways_scroll(phone)

"""Issue 42, points 1 and 2: the table a player can act at, measured. On a laptop (1280x600,
1366x657, 1920x969, and with two to four tables open) and on a phone (360x640, 390x844, 844x390,
a touch screen), the whole action bar (Fold, Check or Call, Bet or Raise, the amount, the slider
and the presets) lies inside the viewport at the player's turn without scrolling; on a phone the
seats, the board and the pot fit its width, every control of the bar is at least 44 px each way
and no keyboard hint shows. Geometry, not class names: bounding boxes against the viewport."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import Room, quiet_room
from .helpers import sign_up, sit, to_act

HEADS_UP = """
[[table]]
id = "{id}"
name = "{name}"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = {seats}
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 600
"""

TABLES = "".join(
    HEADS_UP.format(id=table, name=name, seats=seats)
    for table, name, seats in [
        ("lap", "Laptop NL", 2),
        ("phone", "Phone NL", 2),
        ("more1", "Second NL", 6),
        ("more2", "Third NL", 9),
        ("more3", "Fourth NL", 10),
    ]
)

LAPTOPS = [(1280, 600), (1366, 657), (1920, 969)]
PHONES = [(360, 640), (390, 844), (844, 390)]

# what the action bar is made of: each must be seen whole
BAR = (
    "#act-fold, #act-check, #act-call, #act-raise, #act-bet, #raise-amount, #raise-slider, .preset"
)


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES) as served:
        yield served


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    """The bounding boxes (in CSS pixels, relative to the viewport) of the visible elements
    ``selector`` finds, each with its id or text."""
    found: list[dict[str, Any]] = page.eval_on_selector_all(
        selector,
        """els => els.filter(e => e.offsetParent !== null).map(e => {
            const r = e.getBoundingClientRect();
            return { what: e.id || e.textContent.trim() || e.className, left: r.left,
                     top: r.top, right: r.right, bottom: r.bottom, width: r.width,
                     height: r.height };
        })""",
    )
    return found


def resize(page: Page, width: int, height: int) -> None:
    """The viewport at ``width`` x ``height``, the page at its top, laid out again."""
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function(
        f"() => innerWidth === {width} && innerHeight === {height} && scrollY === 0"
    )
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def outside(page: Page, width: int, height: int, selector: str = BAR) -> list[str]:
    """The parts of the action bar that are not wholly inside the viewport."""
    parts = boxes(page, selector)
    assert len(parts) >= 5, parts  # fold, call, raise, amount, slider (and presets)
    return [
        f"{p['what']} {p['left']:.0f},{p['top']:.0f}-{p['right']:.0f},{p['bottom']:.0f}"
        for p in parts
        if p["left"] < 0 or p["top"] < 0 or p["right"] > width or p["bottom"] > height
    ]


def two_at(room: Room, browser: Any, table: str, names: list[str], **options: Any) -> Page:
    """Two players at ``table``; the page of the one to act (the heads-up button acts first,
    facing the big blind: fold, call, raise and its presets)."""
    pages = {}
    for seat, name in enumerate(names, start=1):
        pages[seat] = sign_up(browser, room.url, name, **options)
        sit(pages[seat], table, seat, 400)
    _, page = to_act(pages, 30_000, room=room, table=table)
    expect(page.locator("#raise-slider")).to_be_visible()
    return page


def test_the_action_bar_is_inside_a_laptops_viewport(room: Room, browser: Any) -> None:
    page = two_at(room, browser, "lap", ["lena", "lars"])
    for width, height in LAPTOPS:
        resize(page, width, height)
        assert outside(page, width, height) == [], (width, height)
    # two, three, then four tables open: the tabs (or tiles) above the table shown
    for k, other in enumerate(["more1", "more2", "more3"], start=2):
        page.goto(page.url.split("#")[0] + f"#table/{other}")
        expect(page.locator(".seat.empty")).not_to_have_count(0)
        page.goto(page.url.split("#")[0] + "#table/lap")
        expect(page.locator("#table-strip .table-tab")).to_have_count(k)
        for layout in ("layout-tabbed", "layout-tiled"):
            page.click(f"#{layout}")
            expect(page.locator(f"#{layout}")).to_have_attribute("aria-pressed", "true")
            for width, height in LAPTOPS:
                resize(page, width, height)
                assert outside(page, width, height) == [], (k, layout, width, height)
    page.click("#layout-tabbed")


def test_the_phone_table(room: Room, browser: Any) -> None:
    page = two_at(room, browser, "phone", ["pia", "pol"], width=390, height=844, touch=True)
    assert page.evaluate("() => matchMedia('(pointer: coarse)').matches")
    for width, height in PHONES:
        resize(page, width, height)
        assert outside(page, width, height) == [], (width, height)
        # no horizontal scrolling: the page, the seats, the board and the pot fit the width
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        wide = [
            p["what"]
            for p in boxes(page, ".seat, .board, .pot")
            if p["left"] < 0 or p["right"] > width
        ]
        assert wide == [], (width, height)
        # touch targets: every control of the action bar at least 44 px each way
        small = [
            f"{p['what']} {p['width']:.0f}x{p['height']:.0f}"
            for p in boxes(page, "#actions button, #actions input")
            if p["width"] < 44 or p["height"] < 44
        ]
        assert small == [], (width, height)
        # no keyboard hint on a touch screen
        assert boxes(page, "#shortcuts") == []

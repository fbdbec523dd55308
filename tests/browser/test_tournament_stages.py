"""A tournament's stages in chromium: the break with its countdown (R-TOURN-12), then the bubble
and hand-for-hand (R-TOURN-9), on the bar over the player's tournament table. A six-player
sit-and-go on heads-up tables (two places paid) that house bots fill, on a room clock set
15 seconds before the hourly break at :55."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.room.audit import audit
from feltroom.room.runtime import RuntimeSettings

from .conftest import Room, serve_room
from .test_tournaments import CASH

pytestmark = pytest.mark.browser

SIX = """
[[tournament]]
id = "six"
format = "sng"
seats_per_table = 2
max_entries = 6
starting_stack = 1500
level_minutes = 1
buy_in = 100
fee = 10
breaks = { at_minute = 55, minutes = 1 }
"""

STAGE_WATCH = """() => {
  window.stagesSeen = {};
  const note = () => {
    for (const id of ["bubble", "hand-for-hand", "in-money"]) {
      const badge = document.getElementById(id);
      if (badge) window.stagesSeen[id] = badge.textContent;
    }
  };
  note();
  new MutationObserver(note).observe(document.body, { childList: true, subtree: true });
}"""
"""Notes in the page every stage badge the bar draws, however briefly, with its text."""

BEFORE_BREAK = 15.0
"""Seconds from the room's start to the break (the room's clock is set so)."""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    """The room, its clock shifted to 15 s before :55 of an hour; ``vera`` is registered before
    the bots (one a second) fill the other five seats."""
    now = time.time()
    shift = (55 * 60 - BEFORE_BREAK) - now % 3600
    settings = RuntimeSettings(
        house_bots=1,
        bot_style="random",
        bot_think=(0.2, 0.2),
        between_hands=0.3,
        after_showdown=0.5,
        poll=0.05,
        selftest_first=10**9,
        tournament_bot_wait=1.0,
    )
    with serve_room(CASH, settings, SIX, clock=lambda: time.time() + shift) as served:
        runtime = served.runtime
        runtime.accounts.sign_up("vera", "password-vera")
        runtime.cashier.grant("vera", 10_000, "stages:vera")
        served.run(runtime.register_tournament("six-1", "vera"))
        yield served


def _sign_in(browser: Any, url: str, name: str) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url + "/")
    page.fill("#auth-name", name)
    page.fill("#auth-password", "password-" + name)
    page.click("#signin")
    expect(page.locator("nav .who")).to_have_text(name)
    return page


def _seconds(text: str) -> int:
    found = re.search(r"(\d+):(\d\d)", text)
    assert found, text
    return int(found.group(1)) * 60 + int(found.group(2))


@pytest.mark.slow  # (145 s on 2 cores: the main step stays under 20 minutes)
def test_the_break_the_bubble_and_hand_for_hand_are_shown(room: Room, browser: Any) -> None:
    page = _sign_in(browser, room.url, "vera")
    # seated when the bots have filled the tournament: the page goes to the table by itself
    expect(page).to_have_url(re.compile(r"#table/six-1\.[123]$"), timeout=30_000)
    bar = page.locator("#tourney-bar")
    expect(bar).to_contain_text("Players left 6 of 6")
    expect(bar).to_contain_text("Places paid 2")
    # away (R-TOURN-6): folded at every turn, checked when checking is free
    page.click("#sit-out")
    expect(page.locator("#sit-in")).to_have_text("I'm back")
    # the break at :55: the tables wait, the bar counts the break down
    pause = page.locator("#break-clock")
    expect(pause).to_contain_text("Break — play resumes in 0:", timeout=40_000)
    expect(page.locator("#level-clock")).to_have_count(0)
    first = _seconds(pause.inner_text())
    page.wait_for_timeout(2_200)
    assert _seconds(pause.inner_text()) < first
    expect(pause).to_have_count(0, timeout=75_000)  # play resumes
    # three left at two tables with two places paid: the bubble, played hand-for-hand. The
    # page itself notes every badge the bar draws (a stage may be over between two looks)
    page.evaluate(STAGE_WATCH)
    seen: dict[str, str] = {}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not {"bubble", "hand-for-hand"} <= set(seen):
        seen = page.evaluate("() => window.stagesSeen")
        if "#results/" in page.url:
            break  # out before the bubble: said below
        page.wait_for_timeout(100)
    seen = page.evaluate("() => window.stagesSeen")
    assert {"bubble", "hand-for-hand"} <= set(seen), (seen, page.url)
    assert "Hand-for-hand" in seen["hand-for-hand"], seen
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_books_balance_after_the_stages(room: Room) -> None:
    report = audit(room.runtime.settlement.storage, shuffles=0)
    assert report["problems"] == [], report["problems"]

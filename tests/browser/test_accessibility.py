"""Accessibility in chromium: axe-core (tests/browser/data/axe-core, from the npm registry) finds
no serious or critical violation on the lobby, a table in play and the hand history; a hand is
played from the keyboard alone; the table's aria-live log announces the cards and the actions."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import axe_violations, check_labels, server_to_act, sign_up, to_act

pytestmark = pytest.mark.browser


def sit_by_keyboard(page: Page, table: str, seat: int, buy_in: int) -> None:
    """Open the table, reach the seat's button with Tab, and sit down with Enter alone."""
    page.goto(page.url.split("#")[0] + f"#table/{table}")
    button = page.locator(f'.seat.empty[data-seat="{seat}"] button')
    expect(button).to_be_visible()
    for _ in range(80):
        if page.evaluate("() => document.activeElement?.getAttribute('aria-label')") == (
            f"Sit {seat}: sit in seat {seat}"
        ):
            break
        page.keyboard.press("Tab")
    else:
        raise AssertionError(f"Tab never reached seat {seat}")
    page.keyboard.press("Enter")
    expect(page.locator("#buy-in")).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(buy_in))
    page.keyboard.press("Enter")  # the dialog's first button: sit down
    expect(page.locator(f'.seat.mine[data-seat="{seat}"]')).to_be_visible()


def test_axe_finds_no_serious_violation_and_a_hand_is_played_from_the_keyboard(
    room: Any, browser: Any
) -> None:
    """Two players sit and play a hand with keys only (Tab, Enter, C, R, the presets' digits,
    F); the lobby, the table in play (with its action controls) and the history page have no
    serious or critical axe-core violation, and every control has a name."""
    ann = sign_up(browser, room.url, "ann")
    ben = sign_up(browser, room.url, "ben")
    assert axe_violations(ann) == []  # the lobby
    check_labels(ann)
    sit_by_keyboard(ann, "solo", 1, 100)
    sit_by_keyboard(ben, "solo", 2, 100)
    pages = {1: ann, 2: ben}
    seat, page = to_act(pages, room=room, table="solo")
    expect(page.locator("#shortcuts")).to_contain_text("F fold")
    assert axe_violations(page) == []  # the table with the action controls
    check_labels(page)
    page.keyboard.press("3")  # ½ pot (or the nearest preset there is)
    page.keyboard.press("1")  # the minimum
    expect(page.locator("#raise-amount")).to_have_value(
        page.locator("#preset-min").get_attribute("data-amount") or ""
    )
    page.keyboard.press("r")
    seat, page = to_act({s: p for s, p in pages.items() if s != seat}, room=room, table="solo")
    page.keyboard.press("c")  # calls the raise
    for _ in range(12):  # check it down, then the next hand: fold it with F
        seat, page = to_act(pages, room=room, table="solo")
        hand = room.call(lambda: room.runtime.runners["solo"].playing)
        key = "f" if page.locator("#act-fold").count() else "c"
        page.keyboard.press(key)
        page.wait_for_timeout(300)
        if key == "f" and server_to_act(room, "solo") != seat:
            break
    assert room.call(lambda: room.runtime.runners["solo"].playing) != hand or key == "f"
    # the aria-live log announced the player's cards, the board and the actions
    log = ann.locator("#announce")
    expect(log).to_contain_text(re.compile(r"Your cards: \w+ of \w+, \w+ of \w+\."))
    expect(log).to_contain_text(re.compile(r"(raises to|bets) \d+"))
    expect(log).to_contain_text(re.compile(r"Flop: \w+ of \w+, \w+ of \w+, \w+ of \w+\."))
    ann.goto(room.url + "/#history")
    expect(ann.locator(".hand-link").first).to_be_visible()
    ann.locator(".hand-link").first.click()
    expect(ann.locator("#proof-status")).to_be_visible()
    assert axe_violations(ann) == []  # the history page with a hand open
    assert ann.errors == []
    assert ben.errors == []

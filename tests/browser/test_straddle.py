"""The straddle in the browser (R-HOME-3), on a phone: the toggle at a table that allows
straddles (none where it does not), kept by the room, and the straddle shown as a post."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from feltroom.rules import Check, Fold, Forced

from .conftest import Room, quiet_room
from .helpers import sign_up, sit

TABLES = """
[[table]]
id = "str"
name = "Straddle NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 4
min_buy_in = 40
max_buy_in = 400
first_button = "left_of_dealer"
act_seconds = 600
straddle = true

[[table]]
id = "plain"
name = "Plain NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 4
min_buy_in = 40
max_buy_in = 400
act_seconds = 600
"""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES) as served:
        yield served


# Rules: R-HOME-3
def test_R_HOME_3_the_straddle_toggle_and_the_post_on_a_phone(room: Room, browser: Any) -> None:
    page = sign_up(browser, room.url, "stella", width=390, height=844, touch=True)
    sit(page, "plain", 2, 100)
    expect(page.locator("#auto-post")).to_be_visible()
    expect(page.locator("#straddle")).to_have_count(0)  # this table has no straddles
    sit(page, "str", 4, 100)
    page.check("#straddle")
    runtime = room.runtime
    table = runtime.runners["str"].table
    deadline = time.monotonic() + 20
    while not room.call(lambda: table.seats[4].straddle):
        assert time.monotonic() < deadline, "the room did not keep the straddle choice"
        page.wait_for_timeout(100)
    for seat, name in ((1, "sb1"), (2, "sb2"), (3, "sb3")):
        runtime.accounts.sign_up(name, "password-" + name)
        runtime.cashier.grant(name, 1000, f"welcome-{name}")
        room.run(runtime.join("str", name, seat, 100))

    def straddled() -> bool:
        hand = table.hand
        return hand is not None and any(
            f.seat == 4 and f.kind is Forced.STRADDLE for f in hand.setup.forced
        )

    def play_on() -> tuple[str, Any] | None:
        """Who the server waits for and the action that moves the hand on (fold, else check)."""
        hand = table.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        legal = hand.legal_actions()
        return table.seats[hand.to_act].account, Fold() if legal.fold else Check()

    deadline = time.monotonic() + 60
    while not room.call(straddled):
        assert time.monotonic() < deadline, "no hand with the straddle was dealt"
        turn = room.call(play_on)
        if turn is None:
            page.wait_for_timeout(100)
            continue
        room.run(runtime.act("str", *turn))
    expect(page.locator(".log")).to_contain_text("stella posts a straddle 4")
    expect(page.locator("#straddle")).to_be_checked()
    page.reload()  # the choice is the server's: a reloaded page reads it from the snapshot
    expect(page.locator("#straddle")).to_be_checked()
    assert page.errors == []  # type: ignore[attr-defined]

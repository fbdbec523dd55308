"""Issue 42, point 7: a seat released after sitting out too long (R-SIT-2) is said, at the time
to a player watching the table, and on return to one who was away (the page closed). The room
runs on a clock the test moves past the table's ten minutes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import Room, quiet_room
from .helpers import sign_up, sit

TABLES = "".join(
    f"""
[[table]]
id = "{table}"
name = "{table.title()} NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 4
min_buy_in = 40
max_buy_in = 400
sit_out_minutes = 10
"""
    for table in ("idle", "gone")
)


class Later:
    """The real clock, moved on by ``ahead`` seconds."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


CLOCK = Later()


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES, clock=CLOCK) as served:
        yield served


def sit_out_alone(page: Page, table: str) -> None:
    """Sit at ``table`` (nobody else: no hand) and sit out."""
    sit(page, table, 1, 40)
    page.click("#sit-out")
    expect(page.locator(".seat.mine .badge", has_text="sitting out")).to_be_visible()


def released(room: Room, table: str, player: str) -> None:
    """Move the room's clock past the table's ten minutes; wait for the seat to go."""
    CLOCK.ahead += 11 * 60
    deadline = time.monotonic() + 30
    while room.call(lambda: room.runtime.runners[table].table.seat_of(player)) is not None:
        assert time.monotonic() < deadline, "the seat was not released"
        time.sleep(0.05)


def test_a_seat_released_is_said_at_the_time(room: Room, browser: Any) -> None:
    page = sign_up(browser, room.url, "ida")
    sit_out_alone(page, "idle")
    released(room, "idle", "ida")
    notice = page.locator(".released-notice")
    expect(notice).to_contain_text("Your seat at Idle NL was released")
    expect(notice).to_contain_text("more than 10 minutes")
    expect(notice).to_contain_text("40 chips went back to your wallet")
    expect(page.locator('nav .balance[data-currency="PLAY"]')).to_have_attribute(
        "data-amount", "10000"
    )
    box = notice.bounding_box()  # at the top of the page: seen without scrolling
    assert box is not None
    assert 0 <= box["y"] <= 200
    page.click(".released-notice .dismiss")
    expect(notice).to_have_count(0)


def test_a_seat_released_while_away_is_said_on_return(room: Room, browser: Any) -> None:
    page = sign_up(browser, room.url, "gus")
    sit_out_alone(page, "gone")
    page.context.close()  # away: no page watches the table
    released(room, "gone", "gus")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    back = context.new_page()
    back.goto(room.url + "/")
    back.fill("#auth-name", "gus")
    back.fill("#auth-password", "password-gus")
    back.click("#signin")
    notice = back.locator(".released-notice")
    expect(notice).to_contain_text("While you were away, your seat at Gone NL was released")
    expect(notice).to_contain_text("more than 10 minutes")
    # said once: a second return says nothing more
    back.reload()
    expect(back.locator("nav .who")).to_have_text("gus")
    expect(back.locator(".released-notice")).to_have_count(0)

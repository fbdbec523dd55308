"""House bots as a person meets them in chromium: a full heads-up table of bots makes room for a
person on its waiting list, and bots' stacks stay at the table's size."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.sync_api import expect

from feltroom.room.runtime import RuntimeSettings

from .conftest import Room, serve_room
from .helpers import sign_up

pytestmark = pytest.mark.browser

BOT_TABLES = """
[[table]]
id = "duel"
name = "Duel NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 100
first_button = "first_seated"
act_seconds = 30

[[table]]
id = "trio"
name = "Trio NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
min_buy_in = 40
max_buy_in = 100
first_button = "first_seated"
act_seconds = 30
"""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    """A room whose tables get two house bots each (the default style), playing fast."""
    settings = RuntimeSettings(
        house_bots=2,
        bot_think=(0.0, 0.0),
        between_hands=0.3,
        after_showdown=0.3,
        poll=0.05,
        selftest_first=10**9,
    )
    with serve_room(BOT_TABLES, settings) as served:
        yield served


def test_a_heads_up_table_of_house_bots_makes_room_for_a_person_waiting(
    room: Any, browser: Any
) -> None:
    """Both seats of a heads-up table are house bots; a person joins its waiting list from the
    lobby: after the hand a bot leaves, the seat is offered and the person sits and is dealt
    in against the other bot."""
    page = sign_up(browser, room.url, "una")
    row = page.locator('tr[data-table="duel"]')
    expect(row.locator(".seats-taken")).to_have_text("2 of 2 full")
    row.get_by_role("button", name="join the waiting list of Duel NL").click()
    page.goto(room.url + "/#table/duel")
    take = page.locator("#take-offer")
    expect(take).to_have_text(re.compile(r"^Take seat [12]$"), timeout=30_000)
    take.click()
    page.fill("#buy-in", "100")
    page.click("#buy-in-sit")
    expect(page.locator(".seat.mine")).to_have_count(1)
    expect(page.locator('.seat[data-player^="bot.duel."]')).to_have_count(1)
    expect(page.locator(".my-hand [data-card]")).to_have_count(2, timeout=30_000)


def test_house_bots_that_win_past_the_bound_leave_and_buy_in_again(room: Any, browser: Any) -> None:
    """A bot whose stack passed ``bot_restack`` buy-ins leaves and buys in again with the
    maximum (100): the page shows it leave and come back with 100. The bound is lowered to one
    buy-in here (two bots share at most three buy-ins at this table; the room's bound is 3)."""
    assert room.runtime.settings.bot_restack == 3
    page = sign_up(browser, room.url, "vic")
    page.goto(room.url + "/#table/trio")
    expect(page.locator('.seat[data-player^="bot.trio."]')).to_have_count(2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(room.runtime, "settings", replace(room.runtime.settings, bot_restack=1))
        log = page.locator(".log")
        expect(log).to_contain_text(re.compile(r"bot\.trio\.\d leaves seat \d"), timeout=60_000)
        expect(log).to_contain_text(
            re.compile(r"bot\.trio\.\d sits in seat \d with 100"), timeout=10_000
        )

    def stacks() -> list[int]:
        table = room.runtime.runners["trio"].table
        return [seat.stack for seat in table.seats.values()]

    assert all(stack <= 3 * 100 for stack in room.call(stacks))

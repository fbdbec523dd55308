"""Issue 42, points 6 and 7: what a player sees after busting and after a seat is released.
A busted player is offered a rebuy (a default in the table's buy-in range that the wallet
covers) or leaving, never a sit-in the room would refuse; with a wallet below the minimum, when
the next play-money grant comes and what to do meanwhile; auto-rebuy, a seat setting the room
keeps, buys in again and deals the player in."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.rules import Call, RaiseTo

from .conftest import Room, quiet_room
from .helpers import server_legal, sign_up, sit

TABLES = "".join(
    f"""
[[table]]
id = "{table}"
name = "{table.title()} NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 600
"""
    for table in ("broke", "auto")
)


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES) as served:
        yield served


Seats = dict[str, tuple[int, bool]]


def play_all_in(room: Room, table: str, done: Callable[[Seats], str | None]) -> str:
    """All-in and a call, from the server's side, until ``done`` names a player from the seats
    (each account's stack, behind any bet, and whether it sits out); that player."""
    runtime = room.runtime

    def read() -> tuple[Seats, str | None]:
        t = runtime.runners[table].table
        seats = {p.account: (p.stack, p.sitting_out) for p in t.seats.values()}
        hand = t.hand
        acting = None
        if hand is not None and not hand.is_over and hand.to_act is not None:
            acting = t.seats[hand.to_act].account
        return seats, acting

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        seats, acting = room.call(read)
        found = done(seats)
        if found is not None:
            return found
        legal = server_legal(room, table)
        if acting is None or legal is None:
            time.sleep(0.1)  # between hands: the next deal comes a second after the last
            continue
        if legal["raise_max"] is not None:
            room.run(runtime.act(table, acting, RaiseTo(legal["raise_max"])))
        else:
            room.run(runtime.act(table, acting, Call()))
    raise AssertionError(f"no all-in ended as wanted at {table}")


def busted(seats: Seats) -> str | None:
    """The player sat out with an empty stack, if any."""
    return next((name for name, (stack, out) in seats.items() if stack == 0 and out), None)


def bust_one(room: Room, table: str) -> str:
    return play_all_in(room, table, busted)


def pages_at(room: Room, browser: Any, table: str, names: list[str]) -> dict[str, Page]:
    pages = {}
    for seat, name in enumerate(names, start=1):
        pages[name] = sign_up(browser, room.url, name)
        sit(pages[name], table, seat, 40)
    return pages


def test_a_busted_player_is_offered_a_rebuy_or_leaving(room: Room, browser: Any) -> None:
    pages = pages_at(room, browser, "broke", ["bea", "bo"])
    loser = bust_one(room, "broke")
    page = pages[loser]
    panel = page.locator("#busted")
    expect(panel).to_contain_text("You are out of chips")
    # the default: the table's maximum, which the wallet (10,000 less the buy-in) covers
    expect(page.locator("#rebuy-amount")).to_have_value("400")
    expect(page.locator("#busted-leave")).to_be_visible()
    expect(page.locator(".seat.mine .badge", has_text="out of chips")).to_be_visible()
    for part in ("#rebuy-amount", "#rebuy", "#busted-leave"):  # seen without scrolling
        box = page.locator(part).bounding_box()
        assert box is not None
        assert box["y"] >= 0
        assert box["y"] + box["height"] <= page.viewport_size["height"], part  # type: ignore[index]
    expect(page.locator("#sit-in")).to_have_count(0)  # no sit-in the room would refuse
    expect(page.locator("#sit-in-wait")).to_have_count(0)
    page.click("#rebuy")
    expect(page.locator(".seat.mine .stack")).to_have_attribute("data-stack", "400")
    expect(panel).to_have_count(0)
    expect(page.locator(".seat.mine .badge", has_text="sitting out")).to_have_count(0)
    # out of play chips: when the next grant comes, and what to do meanwhile
    loser = bust_one(room, "broke")
    page = pages[loser]
    runtime = room.runtime
    held = int(runtime.cashier.balance(loser)["balances"]["PLAY"])
    runtime.cashier.withdraw(loser, "PLAY", held - 10, f"spent:{loser}")
    page.reload()
    expect(page.locator("#busted")).to_contain_text("this table's buy-in is at least 40")
    wait = page.locator("#grant-wait")
    expect(wait).to_contain_text("Your next play-chip grant comes at")
    expect(wait).to_contain_text("Meanwhile")
    expect(page.locator("#rebuy")).to_have_count(0)
    expect(page.locator("#sit-in")).to_have_count(0)
    page.click("#busted-leave")
    expect(page.locator(".seat.mine")).to_have_count(0)


def test_auto_rebuy_is_kept_by_the_room_and_deals_the_player_in(room: Room, browser: Any) -> None:
    pages = pages_at(room, browser, "auto", ["ada", "al"])
    for page in pages.values():
        page.check("#auto-rebuy")
    runner = room.runtime.runners["auto"]

    def kept() -> list[bool]:
        return [p.auto_rebuy for p in runner.table.seats.values()]

    for _ in range(100):
        if room.call(kept) == [True, True]:
            break
        next(iter(pages.values())).wait_for_timeout(100)
    assert room.call(kept) == [True, True]
    # a reloaded page reads the setting from the server
    pages["ada"].reload()
    expect(pages["ada"].locator("#auto-rebuy")).to_be_checked()
    # both bought in 40: a stack past 300 is a rebuy of the table's maximum, 400
    rebought = play_all_in(
        room, "auto", lambda seats: next((n for n, (st, _) in seats.items() if st > 300), None)
    )
    page = pages[rebought]
    expect(page.locator(".seat.mine .stack")).not_to_have_attribute("data-stack", "0")
    expect(page.locator(".my-hand [data-card]")).to_have_count(2, timeout=30_000)  # dealt in
    expect(page.locator("#busted")).to_have_count(0)
    expect(page.locator("#auto-rebuy")).to_be_checked()

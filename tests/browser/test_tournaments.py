"""Tournaments in chromium: the tournament lobby (filters, structure, payouts, entrants),
registering and withdrawing, a refusal said in words; and a small multi-table sit-and-go filled
by house bots in which a person plays, is moved to the final table without a click, follows the
level bar's countdown and sees the results page with their own place."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import APIResponse, Page, Route, expect

from feltroom.room.audit import audit
from feltroom.room.runtime import RuntimeSettings

from .conftest import Room, serve_room
from .helpers import axe_violations, cards_on, check_labels, sign_up

pytestmark = pytest.mark.browser

CASH = """
[[table]]
id = "oak"
name = "Oak NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30
"""

TOURNAMENTS = """
[[tournament]]
id = "duo"
format = "sng"
seats_per_table = 3
max_entries = 4
starting_stack = 500
level_minutes = 1
buy_in = 1000
fee = 100

[[tournament]]
id = "weekly"
format = "mtt"
buy_in = 2000
fee = 200
start = "2030-01-07T20:00"

[[tournament]]
id = "highroller"
format = "mtt"
buy_in = 50000
fee = 5000
start = "2030-01-07T21:00"
"""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    """A room with a four-player sit-and-go on two 3-seat tables (1-minute levels) that house
    bots fill, one every 4 seconds, and two scheduled tournaments far ahead."""
    settings = RuntimeSettings(
        house_bots=1,
        bot_style="random",
        bot_think=(0.0, 0.0),
        between_hands=0.3,
        after_showdown=0.5,
        poll=0.05,
        selftest_first=10**9,
        tournament_bot_wait=4.0,
    )
    with serve_room(CASH, settings, TOURNAMENTS) as served:
        yield served


def _tournament_table(room: Room, table_id: str) -> Any:
    instance = table_id.rsplit(".", 1)[0]
    return room.runtime.tournaments[instance].by_id[table_id].table


def _server_hole(room: Room, table_id: str, seat: int) -> set[str]:
    def read() -> set[str]:
        hand = _tournament_table(room, table_id).hand
        if hand is None or hand.is_over:
            return set()
        return {str(c) for c in hand.hole_cards(seat) if c is not None}

    result: set[str] = room.call(read)
    return result


def _act(page: Page, room: Room, *, shove: bool) -> bool:
    """At the player's turn: check, else fold (or all in when ``shove``). False when it is not
    the player's turn. At that moment the page shows no card but the board and its own."""
    buttons = page.locator("#actions .row button")
    if buttons.count() == 0:
        return False
    table_id = page.url.split("#table/")[-1]
    seat = int(page.locator(".seat.mine").get_attribute("data-seat") or 0)
    board = set(
        page.eval_on_selector_all(".board [data-card]", "els => els.map(e => e.dataset.card)")
    )
    own = _server_hole(room, table_id, seat)
    if own:
        assert cards_on(page) - board <= own, "a card the player may not see"
    try:
        if shove and page.locator("#preset-allin").count():
            page.click("#preset-allin", timeout=2_000)
            page.click("#act-raise, #act-bet", timeout=2_000)
        elif shove and page.locator("#act-call").count():
            page.click("#act-call", timeout=2_000)
        elif page.locator("#act-check").count():
            page.click("#act-check", timeout=2_000)
        else:
            page.click("#act-fold", timeout=2_000)
    except Exception:  # the turn went on (a clock, a redraw): looked for again
        return False
    return True


def test_a_person_registers_plays_is_moved_and_sees_the_result(room: Room, browser: Any) -> None:
    page = sign_up(browser, room.url, "tia")
    # the lobby's figures come late: each answer, read when its request came, is held until the
    # final table's draw, so the start, a player out and the move are news it predates
    held: list[tuple[Route, APIResponse]] = []
    page.route(re.compile(r"/api/tournaments$"), lambda route: held.append((route, route.fetch())))
    for _ in range(40):  # the lobby asks every 2.5 s
        if held:
            break
        page.wait_for_timeout(250)
    row = page.locator('#tournaments tr[data-tournament="duo-1"]')
    expect(row).to_contain_text("1,000 + 100 play chips")
    row.get_by_role("link", name="Details of Duo #1").click()  # named, not by its id
    expect(page.locator("#tournament-summary")).to_contain_text("Sit & Go")
    # issue 42: a sit-and-go waiting for entries says so, and who fills its seats
    expect(page.locator("#tournament-waiting")).to_contain_text(re.compile(r"Waiting for \d more"))
    expect(page.locator("#tournament-waiting")).to_contain_text("House bots")
    page.get_by_role("button", name="Register for Duo #1").click()
    balance = page.locator('nav .balance[data-currency="PLAY"]')
    expect(balance).to_have_attribute("data-amount", "8900")  # buy-in and fee paid
    expect(page.locator('#entrants tr[data-account="tia"]')).to_be_visible()
    # the bots fill the other three seats; the start takes the page to its table unasked
    expect(page).to_have_url(re.compile(r"#table/duo-1\.[12]$"), timeout=40_000)
    first_table = page.url.split("#table/")[-1]
    notice = page.locator("#moved-notice")
    expect(notice).to_contain_text(
        re.compile("The tournament has started: you are seated at Table|The final table")
    )
    bar = page.locator("#tourney-bar")
    if "final table" in notice.inner_text():  # a bot went out in the first hands already
        _check_the_final_table(page, first_table, held)
        _play_to_the_result(page, room, 0)
        return

    expect(bar).to_contain_text("Level 1")
    expect(bar).to_contain_text("Blinds 10/20")
    expect(bar).to_contain_text("Next 15/30 in")
    expect(bar).to_contain_text("Players left 4 of 4")
    expect(bar).to_contain_text("Average stack 500")
    expect(bar).to_contain_text("Places paid 1")
    expect(page.locator("#my-rank")).to_contain_text(re.compile(r"Your rank [1-4] of 4"))
    # the countdown runs on the page between the server's messages
    before = page.locator("#level-count").inner_text()
    page.wait_for_timeout(2_200)
    after = page.locator("#level-count").inner_text()

    def seconds(text: str) -> int:
        minutes, rest = text.split(":")
        return int(minutes) * 60 + int(rest)

    assert seconds(after) < seconds(before) or seconds(before) == 0, (before, after)
    # no seat to take and no cash-table controls at a tournament table
    expect(page.locator(".seat.empty button")).to_have_count(0)
    expect(page.locator("#add-chips-open")).to_have_count(0)
    expect(page.locator("#leave")).to_have_count(0)
    # play carefully until a bot is out: the final table's draw moves everyone, without a click
    deadline = time.monotonic() + 150
    acted = 0
    while time.monotonic() < deadline:
        text = notice.inner_text() if notice.count() else ""
        if "final table" in text:
            break
        acted += _act(page, room, shove=False)
        page.wait_for_timeout(150)
    else:
        raise AssertionError("nobody was moved to the final table")
    _check_the_final_table(page, first_table, held)
    _play_to_the_result(page, room, acted)


def _check_the_final_table(
    page: Any, first_table: str, held: list[tuple[Route, APIResponse]]
) -> None:
    """The final table's draw took the page there, without a click; the lobby's answers that
    were late (read before the player went out) do not take the bar back to before it."""
    expect(page.locator("#moved-notice")).to_contain_text(
        re.compile(r"The final table: you are at Table 1, seat \d")
    )
    expect(page).to_have_url(re.compile(r"#table/duo-1\.1$"))
    expect(page.locator(".seat.mine")).to_have_count(1)
    expect(page.locator("#tourney-bar")).to_contain_text("Players left 3 of 4")
    for route, answer in held:
        route.fulfill(response=answer)
    page.unroute(re.compile(r"/api/tournaments$"))
    assert held, "no answer of the lobby's was held"
    page.wait_for_timeout(1_000)
    assert "Players left 3 of 4" in page.locator("#tourney-bar").inner_text(), len(held)
    if first_table != "duo-1.1":
        expect(page.locator(f'.table-tab[data-table="{first_table}"]')).to_have_count(0)


def _play_to_the_result(page: Any, room: Room, acted: int) -> None:
    """All in at every turn until the tournament ends for the player: the results page."""
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline and "#results/" not in page.url:
        acted += _act(page, room, shove=True)
        page.wait_for_timeout(150)
    assert acted > 0
    expect(page).to_have_url(re.compile(r"#results/duo-1$"))
    mine = page.locator("#my-result")
    expect(mine).to_contain_text(re.compile(r"You finished (1st|2nd|3rd|4th) of 4 in Duo #1"))

    def entry() -> Any:
        director = room.runtime.tournaments["duo-1"].director
        return next((e.place, e.prize) for e in director.entries if e.account == "tia")

    place, prize = room.call(entry)
    ordinal = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}[place]
    expect(mine).to_contain_text(f"You finished {ordinal} of 4")
    if prize:
        expect(mine).to_contain_text("won 4,000 play chips")
    expect(page.locator(f'#places tr[data-account="tia"][data-place="{place}"]')).to_be_visible()
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_tournament_lobby_filters_registers_and_says_a_refusal(
    room: Room, browser: Any
) -> None:
    page = sign_up(browser, room.url, "ugo")
    rows = page.locator("#tournaments tbody tr[data-tournament]")
    expect(rows.filter(has_text="highroller")).to_have_count(1)
    page.select_option("#tournament-filter-format", "mtt")
    expect(rows).to_have_count(2)
    for name in rows.evaluate_all("els => els.map(e => e.dataset.tournament)"):
        assert name.startswith(("weekly-", "highroller-")), name
    page.select_option("#tournament-filter-buyIn", label="50,000 + 5,000 play chips")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Highroller")  # its name, in words
    page.select_option("#tournament-filter-format", "sng")
    expect(page.locator("#tournaments tbody")).to_contain_text("No tournament matches.")
    page.select_option("#tournament-filter-format", "")
    page.select_option("#tournament-filter-buyIn", "")
    # the balance is short: the refusal in words, nothing paid
    rows.filter(has_text="highroller").get_by_role("link", name=re.compile("Details")).click()
    page.get_by_role("button", name=re.compile("Register for Highroller")).click()
    error = page.locator("#tournament-error")
    expect(error).to_contain_text("balance is short")
    expect(error).to_contain_text("10,000")
    balance = page.locator('nav .balance[data-currency="PLAY"]')
    expect(balance).to_have_attribute("data-amount", "10000")
    expect(page.locator('#entrants tr[data-account="ugo"]')).to_have_count(0)
    # the structure, the payouts and the breaks of a scheduled tournament
    page.goto(room.url + "/#lobby")
    rows.filter(has_text="weekly").get_by_role("link", name=re.compile("Details")).click()
    levels = page.locator("#levels tbody tr")
    expect(levels.first).to_contain_text("10/20")
    assert levels.count() >= 24
    expect(page.locator('#levels tr[data-level="4"]')).to_contain_text("50/100")
    expect(page.locator('#levels tr[data-level="4"] td').last).to_have_text("100")
    expect(page.locator("#tournament-structure")).to_contain_text("5 minutes at :55")
    expect(page.locator("#payouts")).to_contain_text("1st")
    # register, then withdraw before the start: buy-in and fee back
    page.get_by_role("button", name=re.compile("Register for Weekly")).click()
    expect(balance).to_have_attribute("data-amount", "7800")
    expect(page.locator('#entrants tr[data-account="ugo"]')).to_be_visible()
    page.get_by_role("button", name=re.compile("Unregister from Weekly")).click()
    expect(balance).to_have_attribute("data-amount", "10000")
    expect(page.locator('#entrants tr[data-account="ugo"]')).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("Register for Weekly"))).to_be_visible()
    # the tournament's page and the tournament lobby: named controls, no serious axe finding
    check_labels(page)
    assert axe_violations(page) == []
    page.goto(room.url + "/#lobby")
    expect(rows.first).to_be_visible()
    check_labels(page)
    assert axe_violations(page) == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_books_balance_after_the_tournaments(room: Room) -> None:
    report = audit(room.runtime.settlement.storage, shuffles=0)
    assert report["problems"] == [], report["problems"]

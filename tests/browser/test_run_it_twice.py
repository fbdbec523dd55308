"""Run it twice in the browser (R-HOME-4), on a phone: the question as two buttons with the time
left, both boards drawn and each half's winner named."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from feltroom.rules import Call, RaiseTo

from .conftest import Room, quiet_room
from .helpers import server_legal, sign_up, sit

TABLES = """
[[table]]
id = "twice"
name = "Twice NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 600
run_it_twice = true
"""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES) as served:
        yield served


# Rules: R-HOME-4
def test_R_HOME_4_the_question_and_both_boards_on_a_phone(room: Room, browser: Any) -> None:
    runtime = room.runtime
    room.seat_players("twice", ["bob"], 100)
    room.run(runtime.set_run_twice("twice", "bob", "always"))
    page = sign_up(browser, room.url, "ann", width=390, height=844, touch=True)
    sit(page, "twice", 2, 100)
    choice = page.locator("#run-twice-choice")
    expect(choice).to_have_value("ask")

    def acting() -> str | None:
        hand = runtime.runners["twice"].table.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        return runtime.runners["twice"].table.seats[hand.to_act].account

    def pending() -> bool:
        hand = runtime.runners["twice"].table.hand
        return hand is not None and hand.runs_pending

    deadline = time.monotonic() + 30
    while not room.call(pending):
        assert time.monotonic() < deadline, "no all-in came"
        name, legal = room.call(acting), server_legal(room, "twice")
        if name is None or legal is None:
            time.sleep(0.1)
            continue
        action = RaiseTo(legal["raise_max"]) if legal["raise_max"] is not None else Call()
        room.run(runtime.act("twice", name, action))
    question = page.locator("#run-twice")
    expect(question).to_be_visible()
    expect(question.locator(".expires")).to_have_text(re.compile(r"^\d+s$"))
    yes = page.locator("#run-twice-yes")
    expect(yes).to_be_in_viewport()
    expect(page.locator("#run-twice-no")).to_have_text("Run it once")
    yes.click()
    expect(question).to_have_count(0)
    expect(page.locator("#boards .first-run [data-card]")).to_have_count(5)
    expect(page.locator("#boards .second-run [data-card]")).to_have_count(5)
    line = page.locator(".pot-line").first
    expect(line).to_contain_text("first run:")
    expect(line).to_contain_text("second run:")
    hand = room.call(lambda: runtime.runners["twice"].table.last_result.hand)
    shown = page.eval_on_selector_all(
        "#boards .second-run [data-card]", "els => els.map(e => e.dataset.card)"
    )
    assert shown == [str(card) for card in hand.second_board]
    # the standing choice, kept by the room
    page.select_option("#run-twice-choice", "never")
    deadline = time.monotonic() + 10
    while room.call(lambda: runtime.runners["twice"].table.seats[2].run_twice) != "never":
        assert time.monotonic() < deadline, "the choice did not reach the table"
        time.sleep(0.05)
    # the hand's history: the deal verified with both runs, the replayer's second run
    page.goto(room.url + "/#history")
    page.locator(".hand-link").first.click()
    second = " ".join(str(card) for card in hand.second_board)
    expect(page.locator("#proof-status")).to_contain_text(f"second run {second}", timeout=10_000)
    page.click("#replay-last")
    expect(page.locator(".replay li", has_text=re.compile(r"^Second run: "))).to_have_count(1)
    expect(page.locator(".replay-board.second-run [data-card]")).to_have_count(5)
    expect(page.locator(".replay li.current")).to_contain_text("second run:")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()

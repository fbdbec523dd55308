"""The browser client's controls for the house rules, in Debian's chromium: the Fixed-Limit and
Pot-Limit wager controls (R-BET-6), pre-action checkboxes (R-AUTO-1), a reload in the middle of
a hand, the blind prompt and entry choice (R-ENTRY-1, R-BLIND-6), the turn timer (R-TIME-1) and
a disconnected player's mark (R-TIME-4)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .helpers import (
    cards_on,
    check_labels,
    fold_or_check,
    server_hole,
    server_legal,
    server_stacks,
    sign_up,
    sit,
    to_act,
)

pytestmark = pytest.mark.browser


def test_r_bet_6_fixed_limit_offers_the_one_raise_amount(room: Any, browser: Any) -> None:
    """At a Fixed-Limit table the page offers one raise amount, the server's, and no slider;
    then a third player who sits with auto-post off is prompted for the blind (R-BLIND-6) and
    posts it to be dealt in (R-ENTRY-1)."""
    frank = sign_up(browser, room.url, "frank")
    gina = sign_up(browser, room.url, "gina")
    sit(frank, "fl", 1, 200)
    sit(gina, "fl", 2, 200)
    players = {1: frank, 2: gina}
    seat, page = to_act(players)
    legal = server_legal(room, "fl")
    assert legal is not None
    assert legal["raise_min"] == legal["raise_max"]
    expect(page.locator("#act-raise")).to_have_text(f"Raise to {legal['raise_min']}")
    expect(page.locator("#raise-slider")).to_have_count(0)
    expect(page.locator("#raise-amount")).to_have_count(0)
    page.click("#act-raise")
    other = players[3 - seat]
    _, page = to_act({3 - seat: other})
    legal = server_legal(room, "fl")
    assert legal is not None
    expect(page.locator("#act-raise")).to_have_text(f"Raise to {legal['raise_min']}")
    page.keyboard.press("r")  # the bet/raise shortcut: the re-raise
    _, page = to_act({seat: players[seat]})
    # R-ENTRY-1 / R-BLIND-6: a newcomer with auto-post off is asked to post
    hugo = sign_up(browser, room.url, "hugo")
    sit(hugo, "fl", 3, 200, auto_post=False)
    page.click("#act-fold")
    prompt = hugo.locator("#blind-prompt")
    expect(prompt).to_be_visible(timeout=15_000)
    expect(prompt).to_contain_text("Post")
    hugo.click("#post-blind")
    expect(hugo.locator(".my-hand [data-card]")).to_have_count(2, timeout=15_000)
    assert server_hole(room, "fl", 3) == cards_on(hugo) - set(
        hugo.eval_on_selector_all(".board [data-card]", "els => els.map(e => e.dataset.card)")
    )


def test_r_bet_6_r_auto_1_pot_limit_controls_pre_actions_and_a_reload(
    room: Any, browser: Any
) -> None:
    """At a Pot-Limit table the page offers min and pot, exactly the server's range; a player
    waiting for their turn ticks "call any" and the server takes it for them (R-AUTO-1); a reload
    in the middle of the hand comes back to the same seat, cards and legal actions."""
    ivan = sign_up(browser, room.url, "ivan")
    jade = sign_up(browser, room.url, "jade")
    sit(ivan, "pl", 1, 200)
    sit(jade, "pl", 2, 200)
    players = {1: ivan, 2: jade}
    seat, page = to_act(players)
    legal = server_legal(room, "pl")
    assert legal is not None
    assert page.locator("#preset-min").get_attribute("data-amount") == str(legal["raise_min"])
    assert page.locator("#preset-pot").get_attribute("data-amount") == str(legal["raise_max"])
    expect(page.locator("#preset-allin")).to_have_count(0)  # pot limit: up to the pot
    for part in ("third", "half", "three-quarters"):
        for amount in page.eval_on_selector_all(
            f"#preset-{part}", "els => els.map(e => Number(e.dataset.amount))"
        ):
            assert legal["raise_min"] < amount < legal["raise_max"]
    assert page.locator("#raise-slider").get_attribute("data-min") == str(legal["raise_min"])
    # R-AUTO-1: the other player pre-selects "call any"
    waiter = players[3 - seat]
    waiter.check("#pre-call_any")
    expect(waiter.locator("#pre-call_any")).to_be_checked()
    # R-SHOW-4: auto-muck turned off is kept by the server and shown again after the reload
    page.uncheck("#auto-muck")
    for _ in range(100):
        if room.call(lambda: room.runtime.runners["pl"].table.seats[seat].auto_muck) is False:
            break
        page.wait_for_timeout(100)
    # a reload in the middle of the hand
    cards = cards_on(page)
    page.reload()
    expect(page.locator(".my-hand [data-card]")).to_have_count(2)
    assert cards_on(page) == cards
    expect(page.locator(f'.seat.mine[data-seat="{seat}"]')).to_be_visible()
    expect(page.locator("#auto-muck")).not_to_be_checked()
    expect(page.locator("#auto-post")).to_be_checked()
    expect(page.locator("#raise-controls")).to_have_attribute("data-max", str(legal["raise_max"]))
    page.click("#preset-pot")
    page.click("#act-raise")
    expect(waiter.locator(".log")).to_contain_text('pre-action "call any" was used')
    expect(waiter.locator(".board .card")).to_have_count(3)


def test_r_time_1_r_time_4_the_turn_timer_counts_down_and_a_disconnection_shows(
    room: Any, browser: Any
) -> None:
    """The player to act has a timer bar that empties, and a visible countdown once the base
    time is used (R-TIME-1); a player whose page closes is marked disconnected (R-TIME-4)."""
    kim = sign_up(browser, room.url, "kim")
    lou = sign_up(browser, room.url, "lou")
    sit(kim, "quick", 1, 200)
    sit(lou, "quick", 2, 200)
    bar = kim.locator(".seat.acting .timer")
    expect(bar).to_be_visible(timeout=15_000)
    first = int(bar.get_attribute("aria-valuenow") or 0)
    kim.wait_for_timeout(800)
    later = int(kim.locator(".seat.acting .timer").get_attribute("aria-valuenow") or 0)
    assert later < first
    expect(kim.locator(".seat.acting .timer.counting .timer-count")).to_have_text(
        re.compile(r"^\d+s$"), timeout=10_000
    )
    lou.context.close()
    expect(kim.locator('.seat[data-player="lou"] .badge.dc')).to_be_visible(timeout=10_000)


def test_the_lobby_and_a_table_fit_a_390_px_phone_with_labelled_controls(
    room: Any, browser: Any
) -> None:
    """On a 390-px-wide phone the lobby and a table need no sideways scrolling, and every
    button and input the page shows has an accessible name."""
    nina = sign_up(browser, room.url, "nina", width=390, height=844)
    expect(nina.locator('tr[data-table="nl"]')).to_be_visible()
    nina.goto(room.url + "/#table/pl")
    expect(nina.locator(".seat").first).to_be_visible()
    for view in ("#lobby", "#table/pl"):
        nina.goto(room.url + "/" + view)
        nina.wait_for_timeout(300)
        width = nina.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, (view, width)
        check_labels(nina)


def test_r_time_4_a_dropped_connection_is_marked_and_the_page_rejoins_the_hand(
    room: Any, browser: Any
) -> None:
    """The network drops the player to act: the other player sees them marked disconnected
    (R-TIME-4); the page reconnects by itself to the same seat, cards and turn, and plays on."""
    oscar = sign_up(browser, room.url, "oscar")
    pia = sign_up(browser, room.url, "pia")
    sit(oscar, "drop", 1, 200)
    sit(pia, "drop", 2, 200)
    players = {1: oscar, 2: pia}
    seat, page = to_act(players)
    other = players[3 - seat]
    name = "oscar" if seat == 1 else "pia"
    cards = server_hole(room, "drop", seat)
    room.drop(name)
    expect(other.locator(f'.seat[data-player="{name}"] .badge.dc')).to_be_visible()
    expect(other.locator(f'.seat[data-player="{name}"] .badge.dc')).to_have_count(0)
    expect(page.locator("#act-call")).to_be_visible()
    assert cards <= cards_on(page)
    page.click("#act-call")
    expect(other.locator("#act-check")).to_be_visible()


def test_r_miss_1_r_miss_2_missed_blinds_are_marked_and_the_page_offers_post_or_wait(
    room: Any, browser: Any
) -> None:
    """A player sitting out while the blinds pass is marked (MS/ML) and, coming back, is
    offered to post the missed blinds or wait for the big blind (R-MISS-1/2)."""
    quinn = sign_up(browser, room.url, "quinn")
    rosa = sign_up(browser, room.url, "rosa")
    sam = sign_up(browser, room.url, "sam")
    sit(quinn, "miss", 1, 200)
    sit(rosa, "miss", 2, 200)
    sit(sam, "miss", 3, 200)
    players = {1: quinn, 2: rosa, 3: sam}

    def play_one_action() -> None:
        fold_or_check(room, "miss", players)
        sam.wait_for_timeout(300)

    for _ in range(6):  # the heads-up hand under way when sam sat down
        if sam.locator(".my-hand [data-card]").count():
            break
        play_one_action()
    expect(sam.locator(".my-hand [data-card]")).to_have_count(2)
    sam.click("#sit-out")  # during the hand: from its end
    for _ in range(10):
        if sam.locator("#sit-in-wait").count():
            break
        play_one_action()
    expect(sam.locator("#sit-in-wait")).to_be_visible()
    missed = re.compile("^missed the (small|big) blind$")  # in words, not "MS" / "ML"
    marker = sam.locator(".seat.mine .badge.missed", has_text=missed)
    expect(marker).to_have_count(1)
    expect(sam.locator("#sit-in")).to_contain_text("post the missed blinds")
    sam.click("#sit-in-wait")
    expect(sam.locator('.seat.mine .badge:has-text("sitting out")')).to_have_count(0)
    # leaving: the seat goes, the stack goes back to the wallet, the page keeps watching
    stack = server_stacks(room, "miss")[3]
    sam.click("#leave")
    expect(sam.locator(".seat.mine")).to_have_count(0)
    expect(sam.locator(".observing")).to_be_visible()
    expect(sam.locator('nav .balance[data-currency="PLAY"]')).to_have_attribute(
        "data-amount", str(9800 + stack)
    )


def test_r_buyin_1_r_buyin_3_the_buy_in_dialog_keeps_the_bounds_and_chips_are_added_between_hands(
    room: Any, browser: Any
) -> None:
    """The buy-in dialog shows the table's bounds and refuses, with the server's reason, a
    buy-in below the minimum (R-BUYIN-1); between hands the player adds chips up to the
    maximum (R-BUYIN-3) and the stack matches the books."""
    tess = sign_up(browser, room.url, "tess")
    tess.goto(room.url + "/#table/solo")
    tess.locator('.seat.empty[data-seat="1"] button').click()
    expect(tess.locator(".dialog .bounds")).to_contain_text("Buy-in 40 to 400")
    tess.fill("#buy-in", "39")
    tess.click("#buy-in-sit")
    expect(tess.locator(".dialog .form-error")).to_contain_text("40")
    tess.fill("#buy-in", "100")
    tess.click("#buy-in-sit")
    expect(tess.locator('.seat.mine[data-seat="1"] .stack')).to_have_attribute("data-stack", "100")
    tess.click("#add-chips-open")
    expect(tess.locator("#add-chips")).to_have_attribute("max", "300")
    tess.fill("#add-chips", "150")
    tess.click("#add-chips-ok")
    expect(tess.locator('.seat.mine[data-seat="1"] .stack')).to_have_attribute("data-stack", "250")
    assert server_stacks(room, "solo") == {1: 250}
    expect(tess.locator('nav .balance[data-currency="PLAY"]')).to_have_attribute(
        "data-amount", "9750"
    )


def test_the_waiting_list_offers_a_freed_seat_and_the_page_takes_it(
    room: Any, browser: Any
) -> None:
    """A full table: a third player joins its waiting list from the lobby; when a player leaves,
    the seat offer shows on the page and takes the player through the buy-in to the seat."""
    xena = sign_up(browser, room.url, "xena")
    yuri = sign_up(browser, room.url, "yuri")
    zoe = sign_up(browser, room.url, "zoe")
    sit(xena, "full", 1, 100)
    sit(yuri, "full", 2, 100)
    zoe.goto(room.url + "/#lobby")
    row = zoe.locator('tr[data-table="full"]')
    expect(row.locator(".seats-taken")).to_have_text("2 of 2 full")
    expect(row.get_by_role("button", name="Join Full NL")).to_have_count(0)  # a full table: wait
    row.get_by_role("button", name="join the waiting list of Full NL").click()
    zoe.goto(room.url + "/#table/full")
    expect(zoe.locator(".observing")).to_contain_text("on the waiting list")
    yuri.click("#leave")  # folded at its turn, released when the hand ends
    take = zoe.locator("#take-offer")
    for _ in range(100):  # xena plays on until the hand ends
        if take.count():
            break
        for button in ("#act-check", "#act-call"):
            if xena.locator(button).count():
                xena.click(button)
                break
        zoe.wait_for_timeout(200)
    expect(take).to_have_text("Take seat 2", timeout=20_000)
    take.click()
    zoe.fill("#buy-in", "120")
    zoe.click("#buy-in-sit")
    # 120 bought in; a hand may start at once with her in a blind (1 or 2) before the check
    expect(zoe.locator('.seat.mine[data-seat="2"] .stack')).to_have_attribute(
        "data-stack", re.compile(r"^(120|119|118)$")
    )
    # the books' stack (a hand may have been dealt already, the blind behind the bets)
    assert room.call(lambda: room.runtime.stored_stacks("full"))["zoe"] == 120


def test_a_table_link_opened_before_signing_in_shows_the_table(room: Any, browser: Any) -> None:
    """A link straight to a table (#table/ID) opened in a fresh tab of a signed-in player: the
    page connects, then observes the table and draws it."""
    amy = sign_up(browser, room.url, "amy")
    tab = amy.context.new_page()
    tab.goto(room.url + "/#table/pl")
    expect(tab.locator(".table-head h1")).to_have_text("Cedar PL")
    expect(tab.locator(".observing")).to_be_visible()

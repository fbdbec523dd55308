"""What a new player meets first, in Debian's chromium: joining from the lobby, the buy-in of a
table without a maximum, a raise out of range, seats on a phone and on a desktop, the sign-up
form and the first play chips, and the server's refusals said in words."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .helpers import (
    check_or_call,
    fold_or_check,
    server_legal,
    server_stacks,
    server_to_act,
    sign_up,
    sit,
    three_at,
    to_act,
)

pytestmark = pytest.mark.browser

# Every table size, by the browser tests' tables (conftest.TABLES).
SIZES = {2: "drop", 3: "miss", 4: "seats4", 5: "seats5", 6: "pl", 7: "seats7", 8: "seats8"}
SIZES |= {9: "seats9", 10: "seats10"}


def test_joining_from_the_lobby_shows_the_table_and_offers_a_free_seat(
    room: Any, browser: Any
) -> None:
    """The lobby's Join button opens the table with its players drawn (not an empty table) and
    offers the first free seat, never a taken one (R-SEAT-1)."""
    room.seat_players("nl", ["ann"], 200)
    bea = sign_up(browser, room.url, "bea")
    bea.get_by_role("button", name="join Oak NL").click()
    expect(bea.locator(".table-head h1")).to_have_text("Oak NL")
    expect(bea.locator('.seat[data-player="ann"]')).to_have_attribute("data-seat", "1")
    expect(bea.locator(".dialog label[for=buy-in]")).to_have_text("Chips for seat 2")
    bea.fill("#buy-in", "100")
    bea.click("#buy-in-sit")
    # 100, or 99/98 once a hand has started and she posted a blind (the table deals at once)
    stack = bea.locator('.seat.mine[data-seat="2"] .stack')
    expect(stack).to_have_attribute("data-stack", re.compile(r"^(100|99|98)$"))
    expect(bea.locator(".observing")).to_have_count(0)


def test_r_buyin_1_a_table_without_a_maximum_offers_the_balance(room: Any, browser: Any) -> None:
    """A Fixed-Limit table with no maximum buy-in (R-BUYIN-1): the dialog says so and offers
    the balance (R-BUYIN-2); adding chips offers the balance too, never "to 0"."""
    cleo = sign_up(browser, room.url, "cleo")
    cleo.goto(room.url + "/#table/open")
    cleo.locator('.seat.empty[data-seat="1"] button').click()
    bounds = cleo.locator(".dialog .bounds")
    expect(bounds).to_have_text(
        "Buy-in 20 or more (no maximum); default 10,000 (your balance). Balance: 10,000."
    )
    expect(cleo.locator("#buy-in")).to_have_value("10000")
    cleo.fill("#buy-in", "40")
    cleo.click("#buy-in-sit")
    expect(cleo.locator('.seat.mine[data-seat="1"] .stack')).to_have_attribute("data-stack", "40")
    cleo.click("#add-chips-open")
    expect(cleo.locator(".dialog .bounds")).to_contain_text("no maximum")
    expect(cleo.locator("#add-chips")).to_have_value("9960")
    cleo.fill("#add-chips", "960")
    cleo.click("#add-chips-ok")
    expect(cleo.locator('.seat.mine[data-seat="1"] .stack')).to_have_attribute("data-stack", "1000")


def test_r_bet_6_a_raise_out_of_range_is_said_once_in_words(room: Any, browser: Any) -> None:
    """A raise below the minimum (R-BET-6, R-NL-3) is refused with "the minimum raise is to N",
    once, under the action buttons; no toast covers Sit out and Leave."""
    dina = sign_up(browser, room.url, "dina")
    emil = sign_up(browser, room.url, "emil")
    sit(dina, "solo", 1, 200)
    sit(emil, "solo", 2, 200)
    _, page = to_act({1: dina, 2: emil}, room=room, table="solo")
    legal = server_legal(room, "solo")
    assert legal is not None
    verb = "bet is" if legal["bet"] else "raise is to"
    page.fill("#raise-amount", str(legal["raise_min"] - 1))
    page.click("#act-bet" if legal["bet"] else "#act-raise")
    expect(page.locator("#act-error")).to_have_text(f"The minimum {verb} {legal['raise_min']}.")
    said = page.get_by_text(re.compile("minimum"))
    expect(said).to_have_count(1)
    expect(page.locator("#toast")).to_be_hidden()
    for control in ("#sit-out", "#leave"):
        hit = page.evaluate(
            """(sel) => { const el = document.querySelector(sel);
                el.scrollIntoView({ block: "center" });
                const r = el.getBoundingClientRect();
                return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).id; }""",
            control,
        )
        assert hit == control[1:]


def seat_boxes(page: Page) -> list[dict[str, float]]:
    boxes: list[dict[str, float]] = page.eval_on_selector_all(
        ".felt .seat",
        """els => els.map(e => { const r = e.getBoundingClientRect();
            return {seat: Number(e.dataset.seat), x: r.x, y: r.y, w: r.width, h: r.height}; })""",
    )
    return boxes


def check_layout(page: Page, size: int, width: int) -> None:
    boxes = seat_boxes(page)
    assert len(boxes) == size
    for box in boxes:
        assert box["x"] >= 0, (size, width, box)
        assert box["x"] + box["w"] <= width, (size, width, box)
    for a, b in itertools.combinations(boxes, 2):
        apart = (
            a["x"] + a["w"] <= b["x"]
            or b["x"] + b["w"] <= a["x"]
            or a["y"] + a["h"] <= b["y"]
            or b["y"] + b["h"] <= a["y"]
        )
        assert apart, (size, width, a, b)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, (size, width)


def test_every_table_size_fits_a_phone_and_a_desktop_without_overlap(
    room: Any, browser: Any
) -> None:
    """Tables of 2 to 10 seats, every seat taken, a hand dealt: at 390 and at 1280 px every seat
    box lies inside the page and no two overlap (the test measures the boxes)."""
    for size, table in SIZES.items():
        names = [f"{table[:6]}-player{k}" for k in range(1, size + 1)]
        room.seat_players(table, names, 200)
    page = sign_up(browser, room.url, "finn", width=390, height=844)
    for size, table in SIZES.items():
        page.goto(room.url + f"/#table/{table}")
        expect(page.locator(".felt .seat[data-player]")).to_have_count(size)
        expect(page.locator(".felt .seat .card.back").first).to_be_visible()
        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)
            check_layout(page, size, width)
        page.set_viewport_size({"width": 390, "height": 844})


def test_sign_up_says_a_name_is_too_long_and_a_new_account_is_shown_its_play_chips(
    room: Any, browser: Any
) -> None:
    """A name of 33 characters is not cut to 32 without a word: the form says how long it is
    and signs nobody up. A new account with no chips is offered play chips in the lobby; the
    balance is formatted as the lobby's amounts are."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(room.url + "/")
    page.fill("#auth-name", "g" * 33)
    expect(page.locator("#auth-name-hint")).to_have_text(
        "A name has at most 32 characters; this one has 33."
    )
    page.fill("#auth-password", "password-long")
    page.click("#signup")
    expect(page.locator(".auth .form-error[role=alert]")).to_have_text(
        "A name has at most 32 characters; this one has 33."
    )
    # nobody was signed up under the name cut to 32: that name is still free
    room.runtime.accounts.sign_up("g" * 32, "password-cut")
    page.fill("#auth-name", "gus")
    page.click("#signup")
    expect(page.locator("nav .who")).to_have_text("gus")
    expect(page.locator('nav .balance[data-currency="PLAY"]')).to_have_text("Play chips 0")
    page.click("#grant-hint-take")
    expect(page.locator('nav .balance[data-currency="PLAY"]')).to_have_text("Play chips 10,000")
    expect(page.locator("#grant-hint")).to_have_count(0)
    # a second grant in the same period: when, in the player's own time, not an ISO stamp
    page.get_by_role("button", name="take a play-money grant").click()
    expect(page.locator("#toast")).to_contain_text("free play chips recently")
    expect(page.locator("#toast")).not_to_contain_text("+00:00")


def test_refusals_are_sentences_with_the_table_s_name_and_amounts(room: Any, browser: Any) -> None:
    """A buy-in below the minimum reads "The buy-in at Oak NL is 40 to 400." (R-BUYIN-1): no
    rule ids, no protocol field names; the error the server sent carries the figures in
    ``details``."""
    hana = sign_up(browser, room.url, "hana")
    hana.goto(room.url + "/#table/side")
    hana.locator('.seat.empty[data-seat="3"] button').click()
    hana.fill("#buy-in", "39")
    hana.click("#buy-in-sit")
    expect(hana.locator(".dialog .form-error")).to_have_text("The buy-in at Side NL is 40 to 400.")
    hana.fill("#buy-in", "12.5")
    hana.click("#buy-in-sit")
    expect(hana.locator(".dialog .form-error")).to_have_text("Enter a whole number of chips.")


def test_r_buyin_3_chips_bought_during_a_hand_join_the_stack_when_it_ends(
    room: Any, browser: Any
) -> None:
    """Add chips during a hand: accepted at once (the wallet pays now), shown as pending, and
    on the stack when the hand ends, never in the hand in progress (R-BUYIN-3)."""
    kai = sign_up(browser, room.url, "kai")
    lea = sign_up(browser, room.url, "lea")
    sit(kai, "full", 1, 100)
    sit(lea, "full", 2, 100)
    pages = {1: kai, 2: lea}
    to_act(pages, room=room, table="full")
    stack = server_stacks(room, "full")[1]
    kai.click("#add-chips-open")
    expect(kai.locator(".dialog .bounds")).to_contain_text("the chips join your stack when it ends")
    kai.fill("#add-chips", "50")
    kai.click("#add-chips-ok")
    expect(kai.locator("#toast")).to_have_text("50 will join your stack when this hand ends.")
    expect(kai.locator("#pending-chips")).to_have_text("+50 after this hand")
    expect(kai.locator('nav .balance[data-currency="PLAY"]')).to_have_attribute(
        "data-amount", "9850"
    )
    assert server_stacks(room, "full")[1] == stack  # not in the hand in progress
    hand = room.call(lambda: room.runtime.runners["full"].playing)
    while room.call(lambda: room.runtime.runners["full"].playing) == hand:
        if server_to_act(room, "full") is not None:
            fold_or_check(room, "full", pages)
        kai.wait_for_timeout(200)
    ended = room.call(lambda: room.runtime.runners["full"].last_hand_id)
    assert ended == hand
    expect(kai.locator("#pending-chips")).to_have_count(0)
    added = server_stacks(room, "full")[1]
    expect(kai.locator('.seat.mine[data-seat="1"] .stack')).to_have_attribute(
        "data-stack", str(added)
    )
    # all 50 fitted under the maximum (400): nothing came back to the wallet
    expect(kai.locator('nav .balance[data-currency="PLAY"]')).to_have_attribute(
        "data-amount", "9850"
    )
    assert room.call(lambda: room.runtime.runners["full"].pending_chips) == {}


def server_hand(room: Any, table: str) -> dict[str, Any] | None:
    """The hand in progress as the presets need it: the pot, the dead money, the live bet of
    the seat to act and the highest one (None between hands)."""

    def read() -> dict[str, Any] | None:
        hand = room.runtime.runners[table].table.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        bets = dict(zip(hand.seats, hand.bets, strict=True))
        return {
            "seat": hand.to_act,
            "seats": list(hand.seats),
            "street": hand.street,
            "pot": hand.pot_total,
            "dead": hand.dead_money,
            "bet": bets[hand.to_act],
        }

    result: dict[str, Any] | None = room.call(read)
    return result


def test_r_miss_1_bet_presets_count_a_dead_blind_in_the_pot_not_as_a_bet(
    room: Any, browser: Any
) -> None:
    """A player coming back posts the missed small blind dead (R-MISS-1/2): it is in the pot
    but is not a live bet, so the presets (⅓, ½, ¾ pot, pot) are the fractions of the pot after a
    call, counted from the server's figures, on the returning player's own page (R-BET-6)."""
    pages = three_at(room, browser, "livepots", [("mia", 200), ("ned", 200), ("ola", 200)])
    ola = pages[3]
    checked = False
    # She comes back with a dead blind when the blind she missed was the small one; which she
    # misses first depends on where the button was when she sat out (how many hands went by
    # before, which a loaded machine changes): when her first hand back has no dead blind, she
    # sits out again.
    for _ in range(4):
        ola.click("#sit-out")
        for _ in range(40):
            if ola.locator("#sit-in-wait").count():
                break
            if server_to_act(room, "livepots") is not None:
                fold_or_check(room, "livepots", {1: pages[1], 2: pages[2]})
            ola.wait_for_timeout(200)
        expect(ola.locator("#sit-in")).to_contain_text("post the missed blinds")
        ola.click("#sit-in")
        dead: bool | None = None  # whether her first hand back has her dead blind
        for _ in range(150):
            hand = server_hand(room, "livepots")
            if hand is None:
                if dead is not None:
                    break  # her first hand back is over
                ola.wait_for_timeout(200)
                continue
            if dead is None and 3 in hand["seats"]:
                dead = hand["dead"] > 0
            if dead and hand["seat"] == 3 and hand["street"] == 0:
                expect(ola.locator("#raise-controls")).to_be_visible()
                legal = server_legal(room, "livepots")
                assert legal is not None
                low, high = legal["raise_min"], legal["raise_max"]
                call = legal["call"] or 0
                facing = hand["bet"] + call
                parts = (("third", 1 / 3), ("half", 1 / 2), ("three-quarters", 3 / 4))
                for part, fraction in parts:
                    value = max(low, min(high, int(facing + (hand["pot"] + call) * fraction)))
                    preset = ola.locator(f"#preset-{part}")
                    if low < value < high:
                        expect(preset).to_have_attribute("data-amount", str(value))
                    else:
                        expect(preset).to_have_count(0)
                pot = max(low, min(high, facing + hand["pot"] + call))
                if low < pot < high:
                    expect(ola.locator("#preset-pot")).to_have_attribute("data-amount", str(pot))
                checked = True
                break
            if dead and hand["street"] == 0:
                # The others call, so that the action reaches her (folding to a big blind she
                # posted live would end the hand before her turn).
                check_or_call(room, "livepots", pages)
            else:
                fold_or_check(room, "livepots", pages)
        if checked:
            break
    assert checked, "the returning player never acted preflop with a dead blind in the pot"


def test_r_show_1_the_showdown_names_the_winning_hand_and_highlights_its_five_cards(
    room: Any, browser: Any
) -> None:
    """Two players check and call to a showdown: the winner's seat reads "wins N with ..." in
    the words of the hand the server evaluated (R-SHOW-1), its five cards are highlighted on
    both pages."""
    pia = sign_up(browser, room.url, "pia")
    quin = sign_up(browser, room.url, "quin")
    sit(pia, "side", 1, 100)
    sit(quin, "side", 2, 100)
    pages = {1: pia, 2: quin}
    to_act(pages, room=room, table="side")
    hand = room.call(lambda: room.runtime.runners["side"].playing)
    while room.call(lambda: room.runtime.runners["side"].playing) == hand:
        seat = server_to_act(room, "side")
        if seat is None:
            pia.wait_for_timeout(100)
            continue
        page = pages[seat]
        button = "#act-check" if page.locator("#act-check").count() else "#act-call"
        try:
            page.click(button, timeout=3_000)
        except PlaywrightTimeoutError:
            continue

    def result() -> tuple[list[tuple[list[int], list[int]]], dict[int, Any]]:
        from feltroom.server.wire import showdown_hand

        finished = room.runtime.runners["side"].table.last_result.hand
        pots = [(list(p.winners), list(p.shares)) for p in finished.results]
        made = {s: showdown_hand(finished.hole_cards(s), finished.board) for s in finished.seats}
        return pots, made

    pots, made = room.call(result)
    winners, shares = pots[0]
    for page in (pia, quin):
        for winner, share in zip(winners, shares, strict=True):
            words = made[winner]["description"]
            badge = page.locator(f'.seat[data-seat="{winner}"] .badge.win')
            expect(badge).to_contain_text(f"wins {share}")
            expect(badge).to_contain_text(words.split(", ", 1)[-1])
        best = set().union(*(made[w]["cards"] for w in winners))
        expect(page.locator(".card.best")).to_have_count(len(best))
        shown = set(page.eval_on_selector_all(".card.best", "els => els.map(e => e.dataset.card)"))
        assert shown == best
    assert pia.errors == []
    assert quin.errors == []


def test_r_time_1_the_base_time_and_the_time_bank_are_shown_apart(room: Any, browser: Any) -> None:
    """A table with 8 s base time, a 2 s countdown and a 6 s time bank (R-TIME-1): while the
    base time runs the bank shows whole and still; when the base time is over the bank runs
    down on its own bar, and the player who does not act times out at its end (R-TIME-2).
    (The base time is long enough for both pages to be looked at on a loaded machine.)"""
    rex = sign_up(browser, room.url, "rex")
    sue = sign_up(browser, room.url, "sue")
    sit(rex, "bank", 1, 100)
    sit(sue, "bank", 2, 100)
    seat, page = to_act({1: rex, 2: sue}, room=room, table="bank")
    other = {1: sue, 2: rex}[seat]
    for viewer in (page, other):
        bank = viewer.locator(".seat.acting .clock .bank")
        expect(bank).to_be_visible()
        expect(bank.locator(".bank-count")).to_have_text("Time bank 6s")
        expect(bank).not_to_have_class(re.compile("running"))
        expect(viewer.locator(".seat.acting .timer")).to_be_visible()
    bank = page.locator(".seat.acting .clock .bank")
    expect(bank).to_have_class(re.compile("running"), timeout=15_000)
    expect(page.locator(".seat.acting .timer")).to_have_attribute("aria-valuenow", "0")
    expect(bank.locator(".bank-count")).to_have_text(re.compile(r"^Time bank [1-5]s$"))
    expect(other.locator(".log")).to_contain_text("uses the time bank")
    expect(other.locator(".log")).to_contain_text("timed out", timeout=15_000)

"""The player's room polished (issue 43), in Debian's chromium: the table that waits for the
player raised only as the player wants and never under the pointer; messages in sentences with
names as written and times in the player's zone, no seat offered during a break; the words and
figures of the lobby and the table; the operator's broadcast on every page and the console's
care; an opponent's statistics asked once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from feltroom.room.operators import Operators
from feltroom.room.player_stats import PlayerStatistics
from feltroom.room.runtime import RuntimeSettings
from feltroom.rules.actions import Call, Fold

from .conftest import Room, serve_room
from .helpers import check_or_call, server_hole, server_to_act, sign_up, sit
from .test_operator_console import console
from .test_player_room import TABLE

pytestmark = pytest.mark.browser

NL = "big_blind = 2\nsmall_blind = 1"
TABLES = "".join(
    TABLE.format(id=i, name=n, structure=s, blinds=b, seats=k, low=40, high=400)
    for i, n, s, b, k in [
        ("ra", "Rowan", "no_limit", NL, 2),
        ("rb", "Birch", "no_limit", NL, 2),
        ("lim", "Larch Limit", "fixed_limit", "lower = 2\nupper = 4", 2),
        ("rk", "Rake NL", "no_limit", NL, 2),
        ("crowd", "Crowd NL", "no_limit", NL, 3),
        ("pair", "Pair NL", "no_limit", NL, 2),
        ("hudt", "Hud NL", "no_limit", NL, 3),
        ("bc", "Broadcast NL", "no_limit", NL, 2),
    ]
)
TOURNAMENTS = """
[[tournament]]
id = "sng-turbo-6"
format = "sng"
seats_per_table = 6
max_entries = 6
starting_stack = 1500
level_minutes = 5
buy_in = 100
fee = 10
"""


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    settings = RuntimeSettings(
        house_bots=0, bot_think=(0.0, 0.0), between_hands=1.0, poll=0.05, selftest_first=10**9
    )
    with serve_room(TABLES, settings, TOURNAMENTS) as served:
        yield served


def _wait(page: Page, done: Any, what: str, tries: int = 200) -> None:
    for _ in range(tries):
        if done():
            return
        page.wait_for_timeout(100)
    raise AssertionError(what)


def _shows_next_hand(page: Page, room: Room, table: str, hand: int) -> None:
    """The page shows the player's cards of ``table``'s next hand (after hand ``hand``): the
    table is still the one shown, and every message before that hand's cards was taken in."""

    def dealt() -> bool:
        runner = room.runtime.runners[table].table
        return runner.hand_number > hand and runner.hand is not None

    _wait(page, lambda: room.call(dealt), f"no next hand at {table}")
    for card in server_hole(room, table, 2):
        expect(page.locator(f'.my-hand [data-card="{card}"]')).to_have_count(1)


def _hand_number(room: Room, table: str) -> int:
    number: int = room.call(lambda: room.runtime.runners[table].table.hand_number)
    return number


def test_the_waiting_table_is_raised_as_the_player_wants_and_never_under_the_pointer(
    room: Room, browser: Any
) -> None:
    """tess is first to act at two heads-up tables. Folding with the mouse leaves the pointer in
    the action bar: the table shown stays until the pointer leaves, then the other is raised.
    With the setting off, a fold by key leaves the table shown in place."""
    tess = sign_up(browser, room.url, "tess")
    sit(tess, "ra", 2, 200)
    sit(tess, "rb", 2, 200)
    room.seat_players("ra", ["ravi"], 200)
    room.seat_players("rb", ["rhea"], 200)
    for table in ("ra", "rb"):
        _wait(tess, lambda t=table: server_to_act(room, t) == 2, f"tess acts first at {table}")
    names = {"ra": "Rowan", "rb": "Birch"}
    head = tess.locator(".table-head h1")
    expect(tess.locator(".table-view.your-turn")).to_have_count(1)
    shown = "ra" if head.inner_text() == "Rowan" else "rb"
    other = "rb" if shown == "ra" else "ra"
    raise_box = tess.locator("#raise-waiting")
    expect(raise_box).to_be_checked()  # on by default

    # a fold with the mouse: the pointer stays in the action bar, so does the table
    hand = _hand_number(room, shown)
    tess.click("#act-fold")
    _shows_next_hand(tess, room, shown, hand)
    expect(head).to_have_text(names[shown])
    tess.mouse.move(2, 2)  # out of the action bar: the table that waits is raised
    expect(head).to_have_text(names[other])
    expect(tess.locator("#actions .row button").first).to_be_visible()

    # the setting off: the next turn at the first table raises nothing, and a fold by key at
    # this one leaves it shown
    hand = _hand_number(room, shown)
    opponent = "ravi" if shown == "ra" else "rhea"
    room.run(room.runtime.act(shown, opponent, Fold()))
    _wait(
        tess,
        lambda: server_to_act(room, shown) == 2 and _hand_number(room, shown) > hand,
        "tess's turn again at the first table",
    )
    raise_box.uncheck()
    hand = _hand_number(room, other)
    tess.keyboard.press("f")
    _shows_next_hand(tess, room, other, hand)
    expect(head).to_have_text(names[other])
    tess.reload()
    expect(tess.locator("#raise-waiting")).not_to_be_checked()  # kept by the browser
    assert tess.errors == []  # type: ignore[attr-defined]


def test_messages_are_sentences_with_names_as_written_times_in_the_players_zone(
    room: Room, browser: Any
) -> None:
    """coolcat's break refuses a seat in a sentence (not "Coolcat is in a cool-off until
    2026-...+00:00"): the end in New York's time; the lobby then offers no Join, no waiting list
    and no buy-in. The reminder field takes 10 to 1440 minutes, or none."""
    page = sign_up(browser, room.url, "coolcat", timezone_id="America/New_York")
    page.goto(room.url + "/#table/pair")
    expect(page.locator('.seat.empty[data-seat="1"] button')).to_be_visible()
    view = room.call(lambda: room.runtime.protection.cool_off("coolcat", 24))
    until = float(view["cool_off_until"])
    page.locator('.seat.empty[data-seat="1"] button').click()  # the page does not know yet
    page.fill("#buy-in", "100")
    page.click("#buy-in-sit")
    error = page.locator("dialog .form-error")
    local = datetime.fromtimestamp(until, ZoneInfo("America/New_York"))
    clock = f"{local.hour % 12 or 12}:{local.minute:02d}"
    expect(error).to_contain_text("You are taking a break until")
    expect(error).to_contain_text(clock)
    text = error.inner_text()
    assert "Coolcat" not in text
    assert "+00:00" not in text
    assert not re.search(r"\dT\d", text)
    page.get_by_role("button", name="Cancel").click()

    page.goto(room.url + "/#lobby")
    expect(page.locator("#break-notice")).to_contain_text(clock)
    row = page.locator('tr[data-table="pair"]')
    expect(row.get_by_role("button", name="Observe Pair NL")).to_be_visible()
    joins = page.locator(".lobby tbody").get_by_role("button", name=re.compile("^Join "))
    expect(joins).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("waiting list"))).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("^Register for"))).to_have_count(0)
    page.goto(room.url + "/#table/pair")
    expect(page.locator('.seat.empty[data-seat="1"]')).to_be_visible()
    expect(page.locator('.seat.empty[data-seat="1"] button')).to_have_count(0)  # no buy-in

    # the reminder: the field's bounds are the server's; a wrong number is said in a sentence
    page.goto(room.url + "/#limits")
    field = page.locator("#reminder-minutes")
    expect(field).to_have_attribute("min", "10")
    expect(field).to_have_attribute("max", "1440")
    field.fill("1")
    page.get_by_role("button", name="Save reminder").click()
    expect(page.locator("#toast")).to_have_text(
        "A reminder comes every 10 to 1440 minutes (24 hours): leave the field empty for none."
    )
    field.fill("")
    page.get_by_role("button", name="Save reminder").click()
    expect(page.locator("#toast")).to_have_text("No reminders.")
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_lobby_says_seats_names_tournaments_and_offers_no_join_at_a_full_table(
    room: Room, browser: Any
) -> None:
    room.seat_players("pair", ["pia", "pol"], 100)
    page = sign_up(browser, room.url, "lou")
    # the tournaments are a click away above the fold, named in words, not by id
    go = page.locator("#go-tournaments")
    expect(go).to_be_in_viewport()
    go.click()
    expect(page.locator("#tournaments-title")).to_be_in_viewport()
    row = page.locator('#tournaments tr[data-tournament="sng-turbo-6-1"]')
    expect(row.locator("strong")).to_have_text("Sit & Go Turbo 6 #1")
    expect(row).not_to_contain_text("sng-turbo-6")
    # a full table: "2 of 2 full" and no Join, only the waiting list
    full = page.locator('tr[data-table="pair"]')
    expect(full.locator(".seats-taken")).to_have_text("2 of 2 full")
    expect(full.get_by_role("button", name="Join Pair NL")).to_have_count(0)
    expect(full.get_by_role("button", name=re.compile("waiting list of Pair NL"))).to_be_visible()
    expect(page.locator('tr[data-table="rk"] .seats-taken')).to_have_text("0 of 2")
    expect(page.locator("#cash-tables thead")).not_to_contain_text("free")
    # the tournament's page: its name, the big-blind ante said as such
    row.get_by_role("link", name="Details of Sit & Go Turbo 6 #1").click()
    expect(page.locator(".tournament h1")).to_have_text("Sit & Go Turbo 6 #1")
    expect(page.locator("#levels thead")).to_contain_text("Big-blind ante")
    # opponents' long names keep their ends apart; the full name is the seat's title
    room.seat_players("crowd", ["guest.nl-25-101", "guest.nl-25-102"], 100)
    page.goto(room.url + "/#table/crowd")
    first = page.locator('.seat[data-player="guest.nl-25-101"] .name')
    second = page.locator('.seat[data-player="guest.nl-25-102"] .name')
    expect(first).to_have_attribute("title", "guest.nl-25-101")
    expect(first).to_contain_text("-25-101")
    expect(second).to_contain_text("-25-102")
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_table_says_its_words_key_hints_and_the_rake(room: Room, browser: Any) -> None:
    """At Fixed-Limit no key hint for presets that are not there; the pre-actions' heading in
    words; the rake taken from a pot shown beside it."""
    kai = sign_up(browser, room.url, "kai")
    sit(kai, "lim", 2, 200)
    room.seat_players("lim", ["lia"], 200)
    _wait(kai, lambda: server_to_act(room, "lim") == 2, "kai acts first at lim")
    hints = kai.locator("#shortcuts")
    expect(hints).to_contain_text("bet or raise")
    expect(kai.locator(".preset")).to_have_count(0)
    expect(hints).not_to_contain_text("pot")
    expect(hints).not_to_contain_text("all-in")
    check_or_call(room, "lim", {2: kai})
    legend = kai.locator("#pre-actions legend")
    expect(legend).to_have_text("Before your turn")

    # the rake: kai all-in, the opponent calls, the pot line says what the house took
    sit(kai, "rk", 2, 200)
    room.seat_players("rk", ["rob"], 200)
    _wait(kai, lambda: server_to_act(room, "rk") == 2, "kai acts first at rk")
    kai.goto(room.url + "/#table/rk")
    expect(kai.locator("#preset-allin")).to_be_visible()
    hints = kai.locator("#shortcuts")
    expect(hints).to_contain_text("All-in")  # the presets shown, by their keys
    kai.click("#preset-allin")
    kai.click("#act-raise")
    _wait(kai, lambda: server_to_act(room, "rk") == 1, "rob to call")
    room.run(room.runtime.act("rk", "rob", Call()))
    line = kai.locator(".pot-line").first
    expect(line).to_contain_text(re.compile(r"Main pot 400 \(rake \d+\)"), timeout=30_000)
    assert kai.errors == []  # type: ignore[attr-defined]


def test_the_broadcast_reaches_every_page_and_the_console_takes_care(
    room: Room, browser: Any
) -> None:
    """The operator's broadcast shows in the lobby, on a tournament's page and at a table;
    the console asks before Close and Kick, lists the tournaments and offers no action on an
    operator's account."""
    runtime = room.runtime
    lobby = sign_up(browser, room.url, "lena")
    page = sign_up(browser, room.url, "tim")
    page.goto(room.url + "/#tournament/sng-turbo-6-1")
    expect(page.locator(".tournament h1")).to_have_text("Sit & Go Turbo 6 #1")
    seated = sign_up(browser, room.url, "sal")
    sit(seated, "bc", 2, 100)
    runtime.accounts.sign_up("ops", "password-ops")
    Operators(runtime.accounts).grant("ops", "", "root", "the floor")
    runtime.accounts.sign_up("deputy", "password-deputy")
    Operators(runtime.accounts).grant("deputy", "", "root", "the floor")
    runtime.cashier.grant("deputy", 1000, "deputy")
    room.run(runtime.join("bc", "deputy", 1, 100, _post()))
    admin = console(browser, room.url, "ops")
    expect(admin.locator("#who")).to_contain_text("Operator: ops")
    # tournaments listed
    expect(admin.locator('#tournaments tr[data-tournament="sng-turbo-6-1"]')).to_contain_text(
        "Sit & Go Turbo 6 #1"
    )
    # an operator at a table has no Kick, a player has
    table = admin.locator('#tables tr[data-table="bc"]')
    expect(table.locator('li[data-player="deputy"] .operator')).to_have_text("operator")
    expect(table.locator('li[data-player="deputy"] button')).to_have_count(0)
    expect(table.locator('li[data-player="sal"] button[data-action="kick"]')).to_be_visible()
    admin.fill("#account-name", "deputy")
    expect(admin.locator('#account-form button[data-action="suspend"]')).to_be_disabled()
    expect(admin.locator("#account-note")).to_contain_text("deputy is an operator")
    admin.fill("#account-name", "sal")
    expect(admin.locator('#account-form button[data-action="suspend"]')).to_be_enabled()
    # Kick and Close ask first: a "no" does nothing
    admin.fill("#reason", "testing the floor")
    questions: list[str] = []

    def answer(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.dismiss()

    admin.once("dialog", answer)
    table.locator('li[data-player="sal"] button[data-action="kick"]').click()
    expect(admin.locator("#result")).to_have_text("Nothing done: kick cancelled.")
    admin.once("dialog", answer)
    table.locator('button[data-action="close-table"]').click()
    expect(admin.locator("#result")).to_have_text("Nothing done: close-table cancelled.")
    assert questions[0].startswith("Kick sal from Broadcast NL?")
    assert questions[1].startswith("Close Broadcast NL?")
    assert room.call(lambda: runtime.runners["bc"].table.seat_of("sal")) == 2
    expect(table.locator(".status")).to_have_text("running")
    # the broadcast: everywhere a signed-in player is
    admin.fill("#broadcast-text", "The room restarts at 03:00 UTC")
    admin.click("#broadcast-form button")
    expect(admin.locator("#result")).to_contain_text("broadcast done")
    for where in (lobby, page, seated):
        banner = where.locator("#announcement")
        expect(banner).to_contain_text("The room restarts at 03:00 UTC")
        expect(banner).to_contain_text("From the room")
    expect(page.locator(".tournament h1")).to_be_visible()  # still on the tournament's page
    lobby.click("#announcement-close")
    expect(lobby.locator("#announcement")).to_have_count(0)
    for who in (lobby, page, seated, admin):
        assert who.errors == []  # type: ignore[attr-defined]


def test_an_opponents_statistics_are_asked_once_a_session(room: Room, browser: Any) -> None:
    """Two opponents, one who shares and one who does not (403): each is asked once, and not
    again minutes later at a redraw of the table."""
    room.seat_players("hudt", ["ada", "bea"], 100)
    PlayerStatistics(room.runtime.settlement.storage).update_settings("ada", {"share_stats": True})
    cyd = sign_up(browser, room.url, "cyd")
    cyd.clock.install()
    asked: list[str] = []
    players = "/api/players/"
    cyd.on("request", lambda r: asked.append(r.url.split(players)[1]) if players in r.url else None)
    cyd.goto(room.url + "/?clock#table/hudt")  # a page loaded anew, on the installed clock
    expect(cyd.locator('.seat .hud[data-stats="ada"]')).to_be_visible()
    expect(cyd.locator(".seat.empty")).to_have_count(1)

    def settled() -> None:  # a request of the page's after every one it started before
        cyd.evaluate("() => fetch('/api/lobby').then((r) => r.status)")

    settled()
    assert sorted(asked) == ["ada/stats", "bea/stats"]
    cyd.clock.fast_forward("02:00")  # two minutes on; a broadcast redraws the table
    room.call(lambda: room.hub.broadcast("two minutes later"))
    expect(cyd.locator(".chat-lines")).to_contain_text("two minutes later")
    settled()
    assert sorted(asked) == ["ada/stats", "bea/stats"]
    expect(cyd.locator('.seat .hud[data-stats="ada"]')).to_be_visible()
    expect(cyd.locator('.seat .hud[data-stats="bea"]')).to_have_count(0)
    assert cyd.errors == []  # type: ignore[attr-defined]


def _post() -> Any:
    from feltroom.table import Entry

    return Entry.POST

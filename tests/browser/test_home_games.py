"""Issue 45, item 5 (R-HOME-1, R-HOME-2, R-HOME-5): a home game in the browser, from "Host a
game" in the lobby to the ledger, with three players in three browser contexts: the host on a
1366x657 laptop, a guest on a laptop and a guest on a 390x844 phone (a touch screen). The guests
open the invite link signed out and sign up and ask for a seat in one step; the host admits
them and approves their buy-ins and a rebuy from the panel beside the table; a few hands are
played (on the phone with the whole action bar inside the viewport at its turn); the host ends
the game, and every page shows the ledger, its nets summing to zero, with its CSV. The books
balance after it (the room's audit)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.room import audit

from .conftest import Room, quiet_room
from .helpers import axe_violations, fold_or_check, server_to_act, sign_up, to_act
from .test_layout import outside, resize

pytestmark = pytest.mark.slow  # (three browsers through a whole game: up to a minute)

# the public lobby's one table: the home game is a table of the room, never listed with it
TABLES = """
[[table]]
id = "public"
name = "Public NL"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
min_buy_in = 40
max_buy_in = 400
first_button = "first_seated"
act_seconds = 30
"""

BOUND = 60.0  # seconds: a generous bound for what the server and the pages do


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    with quiet_room(TABLES) as served:
        yield served


def guest(browser: Any, url: str, *, phone: bool = False) -> Page:
    """A new browser context, signed out, at a laptop's or a phone's size."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844} if phone else {"width": 1366, "height": 657},
        has_touch=phone,
        is_mobile=phone,
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def join_by_link(page: Page, invite: str, name: str, buy_in: int) -> None:
    """Open the invite link signed out: sign up and ask for a seat in one step."""
    page.goto(invite)
    expect(page.locator("#invite-summary")).to_contain_text("alice invites you")
    assert axe_violations(page) == []
    page.fill("#invite-buy-in", str(buy_in))
    page.fill("#auth-name", name)
    page.fill("#auth-password", "password-" + name)
    page.click("#invite-signup")
    expect(page.locator("nav .who")).to_have_text(name)


def answer_requests(host: Page, wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The host admits or approves the requests in the panel that are ``wanted`` (player,
    kind), as they come; those answered."""
    answered: set[tuple[str, str]] = set()
    for player, kind in sorted(wanted):
        yes = host.locator(
            f'#game-requests li.request[data-player="{player}"][data-kind="{kind}"] button.yes'
        )
        if yes.count():
            yes.click()
            answered.add((player, kind))
    return answered


def status_of(page: Page, invite: str) -> int:
    """The HTTP status of what the invite link ``invite`` shows."""
    status: int = page.evaluate(
        "u => fetch('/api/invites/' + u.split('/g/')[1]).then(r => r.status)", invite
    )
    return status


def seated(room: Room, table: str) -> dict[str, int]:
    """The server's stacks at ``table`` by player."""

    def read() -> dict[str, int]:
        t = room.runtime.runners[table].table
        return {p.account: p.stack for p in t.seats.values()}

    result: dict[str, int] = room.call(read)
    return result


def hands_played(room: Room, table: str) -> int:
    def read() -> int:
        t = room.runtime.runners[table].table
        return int(t.hand_number)

    result: int = room.call(read)
    return result


def test_R_HOME_1_R_HOME_2_R_HOME_5_a_home_game_from_the_lobby_to_the_ledger(
    room: Room, browser: Any
) -> None:
    host = sign_up(browser, room.url, "alice", width=1366, height=657)
    # R-HOME-1: "Host a game" from the lobby, every field filled with a sensible default
    host.click("#host-game")
    expect(host.locator("#host-small-blind")).to_have_value("1")
    expect(host.locator("#host-big-blind")).to_have_value("2")
    expect(host.locator("#host-min-buy-in")).to_have_value("40")
    expect(host.locator("#host-max-buy-in")).to_have_value("200")
    expect(host.locator("#host-admission")).to_be_checked()
    # R-HOME-3, R-HOME-4: the straddle and run it twice are off unless the host allows them
    expect(host.locator("#host-straddle")).not_to_be_checked()
    expect(host.locator("#host-run-it-twice")).not_to_be_checked()
    host.check("#host-straddle")
    host.fill("#host-name", "Friday game")
    host.click("#host-create")
    panel = host.locator("#home-panel")
    expect(panel).to_be_visible()
    invite = host.locator("#invite-link").input_value()
    assert "/g/" in invite, invite
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    host.click("#copy-invite")
    expect(host.locator("#toast")).to_contain_text("The link is copied")
    assert host.evaluate("() => navigator.clipboard.readText()") == invite
    table = host.evaluate("() => location.hash").removeprefix("#table/")
    assert table in room.runtime.runners, table
    config = room.runtime.runners[table].table.config
    assert (config.straddle, config.run_it_twice) == (True, False)
    # the home table is not in the public lobby
    lobby = host.evaluate(
        "() => fetch('/api/lobby').then(r => r.json()).then(j => j.tables.map(t => t.id))"
    )
    assert table not in lobby
    assert "public" in lobby
    # the host sits (a buy-in of the game's chips the host approves when asked)
    host.locator('.seat.empty[data-seat="1"] button').click()
    host.fill("#buy-in", "200")
    host.click("#buy-in-sit")

    # two guests open the link signed out: one on a laptop, one on a phone
    bob = guest(browser, room.url)
    join_by_link(bob, invite, "bob", 100)
    carol = guest(browser, room.url, phone=True)
    join_by_link(carol, invite, "carol", 150)
    for page in (bob, carol):
        expect(page.locator("#waiting-host")).to_be_visible()

    # R-HOME-2: the requests reach the host's panel as they come; admit, then approve the
    # buy-ins; each guest that was let in without a seat takes one (asking for the buy-in)
    expect(host.locator("#requests-jump")).to_be_visible()
    expect(host.locator('#game-requests li.request[data-player="carol"]')).to_be_visible()
    assert axe_violations(host) == []  # the host's panel with its requests
    wanted = {(p, k) for p in ("alice", "bob", "carol") for k in ("seat", "buy_in")}
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        wanted -= answer_requests(host, wanted)
        stacks = seated(room, table)
        if {"alice", "bob", "carol"} <= set(stacks):
            break
        for page, seat, buy_in in ((bob, 2, 100), (carol, 3, 150)):
            free = page.locator(f'.seat.empty[data-seat="{seat}"] button')
            if free.count() and page.locator(".seat.mine").count() == 0:
                free.click()
                page.fill("#buy-in", str(buy_in))
                page.click("#buy-in-sit")
        host.wait_for_timeout(250)
    stacks = seated(room, table)
    assert stacks.get("bob") == 100, stacks
    assert stacks.get("carol") == 150, stacks
    for page in (bob, carol):
        expect(page.locator(".seat.mine")).to_be_visible()
        expect(page.locator("#home-panel")).to_contain_text("alice's game")
        expect(page.locator("#invite-link")).to_have_count(0)  # the link is the host's

    # a few hands; carol plays on the phone with the whole action bar in its viewport
    pages = {1: host, 2: bob, 3: carol}
    start = hands_played(room, table)
    turns = {1: 0, 3: 0}
    deadline = time.monotonic() + 3 * BOUND
    while hands_played(room, table) < start + 3 and time.monotonic() < deadline:
        seat, page = to_act(pages, 30_000, room=room, table=table)
        size = (390, 844) if seat == 3 else (1366, 657)
        if seat != 2 and page.locator("#raise-slider").count():
            # the whole action bar in view, beside the host's panel or above it on the phone
            resize(page, *size)
            if server_to_act(room, table) == seat:
                assert outside(page, *size) == [], seat
                turns[seat] += 1
        fold_or_check(room, table, pages)
    assert hands_played(room, table) >= start + 3

    # a rebuy: carol adds chips from the phone, the host approves it
    rebuy = min(25, 200 - seated(room, table)["carol"])  # up to the largest buy-in
    assert rebuy > 0
    carol.click("#add-chips-open")
    carol.fill("#add-chips", str(rebuy))
    carol.click("#add-chips-ok")
    expect(host.locator('#game-requests li.request[data-player="carol"]')).to_be_visible()
    kind = host.locator('#game-requests li.request[data-player="carol"]').get_attribute("data-kind")
    assert kind in ("buy_in", "rebuy"), kind
    host.locator('#game-requests li.request[data-player="carol"] button.yes').click()
    expect(host.locator('#game-requests li.request[data-player="carol"]')).to_have_count(0)
    # the rebuy reaches the stack at the end of the hand in progress: a hand more
    after = hands_played(room, table)
    deadline = time.monotonic() + 2 * BOUND
    while hands_played(room, table) < after + 1 and time.monotonic() < deadline:
        fold_or_check(room, table, pages)

    # R-HOME-2: the host's other controls from the panel. A new link: the old one is 404
    host.click("#renew-invite")
    expect(host.locator("#invite-link")).not_to_have_value(invite)
    renewed = host.locator("#invite-link").input_value()
    assert status_of(bob, invite) == 404
    assert status_of(bob, renewed) == 200
    # a pause said at every page of the game, then resumed
    host.click("#game-pause")
    expect(bob.locator("#game-head .paused")).to_be_visible()
    expect(carol.locator("#game-head .paused")).to_be_visible()
    host.click("#game-resume")
    expect(bob.locator("#game-head .paused")).to_have_count(0)
    # the blinds for the next hand
    host.click("#next-hand-details summary")
    host.fill("#set-small-blind", "2")
    host.fill("#set-big-blind", "4")
    host.click("#settings-save")
    expect(host.locator("#home-panel .game-line")).to_contain_text("2/4")
    expect(bob.locator("#home-panel .game-line")).to_contain_text("2/4")
    # bob named co-host: the host's panel (the link, the requests) on his page too
    host.click("#game-players summary")
    host.click('#game-players li[data-player="bob"] button.cohost')
    expect(bob.locator("#invite-link")).to_have_value(renewed)
    expect(bob.locator("#game-requests")).to_be_visible()

    # the ledger during the game, beside the table
    host.click("#ledger-block summary")
    expect(host.locator('#ledger-table tr[data-player="carol"]')).to_be_visible()

    # R-HOME-2: the host ends the game; R-HOME-5: the ledger on every page, nets summing to 0
    host.click("#game-end")
    host.click("#end-ok")
    # the hand in progress is played out; then everyone leaves with their chips
    deadline = time.monotonic() + BOUND
    while server_to_act(room, table) is not None and time.monotonic() < deadline:
        try:
            fold_or_check(room, table, pages)
        except AssertionError:
            if server_to_act(room, table) is not None:
                raise  # (else the hand ended as the pages were looked at)
    for page in (host, bob, carol):
        expect(page.locator("#ledger-page")).to_be_visible(timeout=BOUND * 1000)
        expect(page.locator("#game-ended")).to_be_visible()
        expect(page.locator("#ledger-table tbody tr")).to_have_count(3)
        nets = page.eval_on_selector_all(
            "#ledger-table tbody tr", "rows => rows.map(r => Number(r.dataset.net))"
        )
        assert sum(nets) == 0, nets
        expect(page.locator("#ledger-totals")).to_have_attribute("data-net", "0")
        expect(page.locator("#ledger-check")).to_contain_text("add up to zero")
        expect(page.locator("#ledger-csv")).to_be_visible()
        # the chips at the table became cash-outs: the ledger is final
        for row in page.locator("#ledger-table tbody tr").all():
            expect(row.locator("td").nth(3)).to_have_text("0")
    # every host action is in the game's log, shown with the ledger
    log = host.locator("#game-log")
    for line in ("alice admitted bob", "alice approved carol's rebuy", "alice ended the game"):
        expect(log).to_contain_text(line)
    carol_row = host.locator('#ledger-table tr[data-player="carol"] td')
    assert carol_row.nth(1).inner_text() == str(rebuy)  # the rebuy: added
    csv = host.evaluate(
        """id => fetch(`/api/games/${id}/ledger?format=csv`, {headers: {Authorization:
            'Bearer ' + localStorage.getItem('feltroom.token')}}).then(r => r.text())""",
        host.locator("#ledger-page").get_attribute("data-game"),
    )
    assert csv.splitlines()[0] == "player,buy_ins,added,cash_outs,at_table,net"
    assert len(csv.splitlines()) >= 4
    # the ended game's link is gone
    assert status_of(bob, renewed) == 404
    assert turns[3] >= 1, turns  # the phone's action bar was measured
    for page in (host, bob, carol):
        assert page.errors == []  # type: ignore[attr-defined]
    assert audit(room.runtime.settlement.storage, shuffles=0)["problems"] == []


def test_R_HOME_1_the_currency_choice_only_where_the_operator_allows_it(
    room: Room, browser: Any
) -> None:
    """The host's form asks for the game's currency only where the operator allows wallet
    currencies (``[home] currencies``); a game made in one plays from the wallet."""
    host = sign_up(browser, room.url, "dora", width=1366, height=657)
    host.click("#host-game")
    expect(host.locator("#host-create")).to_be_visible()
    expect(host.locator("#host-currency")).to_have_count(0)
    home = room.runtime.home
    allowed = replace(home.settings, currencies=("PLAY",))
    room.call(lambda: setattr(home, "settings", allowed))
    try:
        host.reload()
        host.click("#host-game")
        choice = host.locator("#host-currency")
        expect(choice).to_be_visible()
        expect(choice).to_have_value("")  # the game's own chips by default
        assert axe_violations(host) == []
        choice.select_option("PLAY")
        expect(host.locator("#host-currency-note")).to_contain_text("PLAY wallet")
        host.click("#host-create")
        expect(host.locator("#home-panel")).to_be_visible()
        table = host.evaluate("() => location.hash").removeprefix("#table/")
        spec = room.runtime.runners[table].spec
        assert (spec.currency, spec.config.rake_percent) == ("PLAY", 5)
    finally:
        room.call(lambda: setattr(home, "settings", replace(allowed, currencies=())))
    assert host.errors == []  # type: ignore[attr-defined]

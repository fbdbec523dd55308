"""The operator console at /admin in Debian's chromium (docs/operator.md): operator accounts only;
the live tables and players, the actions with their reason, the operator log, and the reports
(the integrity report)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.room import audit
from feltroom.room.operators import OperatorLog, Operators

from .helpers import sign_up

pytestmark = pytest.mark.browser


def console(browser: Any, url: str, name: str) -> Page:
    """A fresh browser context on /admin, signed in as ``name``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url + "/admin")
    page.fill("#signin-name", name)
    page.fill("#signin-password", "password-" + name)
    page.click("#signin-form button[type=submit]")
    return page


def test_a_player_who_is_not_an_operator_sees_nothing(room: Any, browser: Any) -> None:
    room.runtime.accounts.sign_up("pat", "password-pat")
    page = console(browser, room.url, "pat")
    expect(page.locator("#who")).to_contain_text("'pat' is not an operator")
    expect(page.locator("#console")).to_be_hidden()
    expect(page.locator("#tables tbody tr")).to_have_count(0)
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_operator_acts_on_the_live_room_with_a_reason_on_record(
    room: Any, browser: Any
) -> None:
    runtime = room.runtime
    runtime.accounts.sign_up("boss", "password-boss")
    Operators(runtime.accounts).grant("boss", "127.0.0.1", "root", "head of the floor")
    # one player a table: no hand is dealt, so every leave happens at once
    room.seat_players("pl", ["ann"], 100)
    room.seat_players("fl", ["ben"], 100)
    page = console(browser, room.url, "boss")
    expect(page.locator("#who")).to_have_text("Operator: boss (from 127.0.0.1/32)")
    row = page.locator('#tables tr[data-table="fl"]')
    expect(row.locator('li[data-player="ben"]')).to_be_visible()
    expect(page.locator('#tables tr[data-table="pl"] li[data-player="ann"]')).to_be_visible()

    # no reason: refused, nothing changes
    row.locator('li[data-player="ben"] button[data-action="kick"]').click()
    expect(page.locator("#result")).to_have_text(
        "Give a reason: every operator action is on record."
    )
    assert room.call(lambda: runtime.runners["fl"].table.seat_of("ben")) is not None

    page.fill("#reason", "slow play")
    page.once("dialog", lambda dialog: dialog.accept())  # Kick asks first
    row.locator('li[data-player="ben"] button[data-action="kick"]').click()
    expect(page.locator("#result")).to_contain_text("kick done (log entry")
    expect(row.locator('li[data-player="ben"]')).to_have_count(0)

    # a refused action says why
    page.fill("#account-name", "nobody")
    page.click('#account-form button[data-action="suspend"]')
    expect(page.locator("#result")).to_contain_text(
        "suspend refused: no player account named 'nobody'"
    )

    page.fill("#reason", "dealer break")
    page.once("dialog", lambda dialog: dialog.accept())  # Close asks first
    row.locator('button[data-action="close-table"]').click()
    expect(row.locator(".status")).to_have_text("closed")
    player = sign_up(browser, room.url, "vic")  # a player's lobby says so, and offers no join
    closed = player.locator('tr[data-table="fl"]')
    expect(closed.locator(".closed")).to_have_text("Closed by the room")
    expect(closed.get_by_role("button", name="Join Birch Limit")).to_have_count(0)
    row.locator('button[data-action="reopen-table"]').click()
    expect(row.locator(".status")).to_have_text("running")

    page.fill("#reason", "maintenance notice")
    page.fill("#broadcast-text", "The room restarts at 03:00 UTC")
    page.click("#broadcast-form button")
    expect(page.locator("#result")).to_contain_text("broadcast done")
    expect(player.locator("#announcement")).to_contain_text("The room restarts at 03:00 UTC")

    page.fill("#account-name", "ann")
    page.fill("#reason", "chargeback")
    page.click('#account-form button[data-action="suspend"]')
    expect(page.locator("#result")).to_contain_text("suspend done")
    expect(page.locator('#tables tr[data-table="pl"] li[data-player="ann"]')).to_have_count(0)

    log = page.locator("#log tbody tr")
    expect(log.first).to_contain_text("suspend")
    actions = ["grant-operator", "kick", "close-table", "reopen-table", "broadcast", "suspend"]
    entries = OperatorLog(runtime.settlement.storage).entries()
    assert [e["action"] for e in entries] == actions
    assert entries[1]["reason"] == "slow play"
    expect(log).to_have_count(len(actions))

    page.click("#integrity-run")
    expect(page.locator("#integrity")).to_contain_text("pairs to review")
    page.fill("#integrity-account", "ann")  # the same report, for one account (issue 24)
    page.click("#integrity-run")
    expect(page.locator("#integrity")).to_contain_text("ann: dealt")
    page.fill("#integrity-account", "nobody")
    page.click("#integrity-run")
    expect(page.locator("#integrity")).to_contain_text("there is no account named 'nobody'")

    report = audit(runtime.settlement.storage, shuffles=0)
    assert report["problems"] == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_operator_renames_and_removes_an_account(room: Any, browser: Any) -> None:
    runtime = room.runtime
    runtime.accounts.sign_up("chief", "password-chief")
    Operators(runtime.accounts).grant("chief", "", "root", "head of the floor")
    runtime.accounts.sign_up("kim", "password-kim")
    runtime.accounts.sign_up("lee", "password-lee")
    runtime.cashier.grant("lee", 50, "welcome-lee")
    page = console(browser, room.url, "chief")
    expect(page.locator("#who")).to_contain_text("Operator: chief")
    page.fill("#reason", "the player asked")
    page.fill("#account-name", "kim")
    page.fill("#account-new-name", "LEE")  # the sign-up rules: taken in any letter case
    page.click('#account-form button[data-action="rename"]')
    expect(page.locator("#result")).to_contain_text("rename refused: the name 'LEE' is taken")
    page.fill("#account-new-name", "kimberly")
    page.click('#account-form button[data-action="rename"]')
    expect(page.locator("#result")).to_contain_text("rename done (log entry")
    expect(page.locator("#result")).to_contain_text("kim is now kimberly.")
    expect(page.locator("#account-name")).to_have_value("kimberly")
    page.once("dialog", lambda dialog: dialog.accept())
    page.fill("#account-name", "lee")
    page.click('#account-form button[data-action="remove"]')
    expect(page.locator("#result")).to_contain_text("remove refused: 'lee' still holds 50 PLAY")
    page.once("dialog", lambda dialog: dialog.accept())
    page.fill("#account-name", "kimberly")
    page.click('#account-form button[data-action="remove"]')
    expect(page.locator("#result")).to_contain_text("The account kimberly is removed.")
    log = page.locator("#log tbody tr")
    expect(log.first).to_contain_text("remove")
    entries = OperatorLog(runtime.settlement.storage).entries()  # the room is the module's
    assert [(e["action"], e["target"]) for e in entries][-3:] == [
        ("grant-operator", "chief"),
        ("rename", "kim"),
        ("remove", "kimberly"),
    ]
    with runtime.settlement.storage.transaction(write=False) as tx:
        assert tx.get_user("kimberly") is None
        assert tx.get_user("lee") is not None
    report = audit(runtime.settlement.storage, shuffles=0)
    assert report["problems"] == []
    assert page.errors == []  # type: ignore[attr-defined]

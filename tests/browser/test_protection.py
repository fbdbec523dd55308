"""The player's limits and breaks page in Debian's chromium (issue 25): set a limit, see a
raise pending for 24 hours, set the session reminder, take a break after a confirmation; the
operator sees it in the console. Every figure the page shows is the server's."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from feltroom.room import audit
from feltroom.room.operators import OperatorLog, Operators

from .helpers import sign_up
from .test_operator_console import console

pytestmark = pytest.mark.browser


def _limits_page(browser: Any, url: str, name: str) -> Page:
    page = sign_up(browser, url, name)
    page.get_by_role("link", name="Limits").click()
    expect(page.locator("#limits-title")).to_have_text("Limits and breaks")
    return page


def _set_limit(page: Page, kind: str, period: str, amount: str) -> None:
    page.select_option("#limit-currency", "USD")
    page.select_option("#limit-kind", kind)
    page.select_option("#limit-period", period)
    page.fill("#limit-amount", amount)
    page.get_by_role("button", name="Set limit").click()


def test_the_player_sets_a_limit_sees_a_raise_pending_and_a_reminder(
    room: Any, browser: Any
) -> None:
    page = _limits_page(browser, room.url, "lena")
    expect(page.locator("#no-limits")).to_have_text("No limits set.")
    expect(page.locator("#verified")).to_contain_text("not verified yet")
    expect(page.locator("#protection-status")).to_have_text("You can play.")

    _set_limit(page, "loss", "day", "100.00")
    row = page.locator('#limits tr[data-kind="loss"][data-period="day"]')
    expect(row.locator(".amount")).to_contain_text("100.00")
    expect(row.locator(".pending")).to_have_text("")
    expect(page.locator("#toast")).to_have_text("The limit is in force now.")

    _set_limit(page, "loss", "day", "500.00")
    expect(row.locator(".amount")).to_contain_text("100.00")  # the lower one stays in force
    expect(row.locator(".pending")).to_contain_text("raise to")
    expect(row.locator(".pending")).to_contain_text("500.00")
    expect(page.locator("#toast")).to_contain_text("24 hours from now")

    # a bad amount: refused with what is valid, nothing changes
    _set_limit(page, "deposit", "week", "12.345")
    expect(page.locator("#toast")).to_contain_text("multiples of 0.01")
    expect(page.locator("#limits tbody tr")).to_have_count(1)

    page.fill("#reminder-minutes", "30")
    page.get_by_role("button", name="Save reminder").click()
    expect(page.locator("#toast")).to_have_text("A reminder every 30 minutes.")

    view = room.call(lambda: room.runtime.protection.view("lena"))
    (limit,) = view["limits"]
    assert limit["amount"] == "100.00"
    assert limit["pending"]["amount"] == "500.00"
    assert view["reminder_minutes"] == 30
    page.reload()
    expect(page.locator("#reminder-minutes")).to_have_value("30")
    expect(row.locator(".pending")).to_contain_text("500.00")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_break_needs_a_confirmation_and_cannot_be_ended_early(room: Any, browser: Any) -> None:
    page = _limits_page(browser, room.url, "milo")
    page.select_option("#cool-off-hours", "48")
    page.get_by_role("button", name="Take a break").click()
    dialog = page.locator("dialog")
    expect(dialog).to_contain_text("cannot be ended early")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    assert room.call(lambda: room.runtime.protection.view("milo"))["blocked"] is None

    page.get_by_role("button", name="Take a break").click()
    page.locator("#confirm-break").click()
    expect(page.locator("#protection-status")).to_contain_text("You are taking a break until")
    expect(page.locator("#protection-status")).to_have_attribute("data-blocked", "cool-off")
    view = room.call(lambda: room.runtime.protection.view("milo"))
    assert view["blocked"] == "cool-off"
    # a shorter break is refused: the running one cannot be shortened
    page.select_option("#cool-off-hours", "24")
    page.get_by_role("button", name="Take a break").click()
    page.locator("#confirm-break").click()
    expect(page.locator("#toast")).to_contain_text("cannot be shortened")
    assert room.call(lambda: room.runtime.protection.view("milo")) == view
    entries = OperatorLog(room.runtime.settlement.storage).entries()
    assert [e["action"] for e in entries if e["target"] == "milo"] == ["cool-off"]

    # the operator sees it in the console and verifies the account
    runtime = room.runtime
    runtime.accounts.sign_up("floor", "password-floor")
    Operators(runtime.accounts).grant("floor", "", "root", "floor manager")
    admin = console(browser, room.url, "floor")
    admin.fill("#account-name", "milo")
    admin.locator('#account-form button[data-action="protection"]').click()
    expect(admin.locator("#protection-summary")).to_contain_text("not verified; cooling off until")
    admin.fill("#reason", "passport seen")
    admin.fill("#account-identity", "X1234567")
    admin.locator('#account-form button[data-action="verify"]').click()
    expect(admin.locator("#result")).to_contain_text("verify done")
    admin.locator('#account-form button[data-action="protection"]').click()
    expect(admin.locator("#protection-summary")).to_contain_text("milo: verified")
    page.reload()
    expect(page.locator("#verified")).to_contain_text("Your account is verified")
    assert page.errors == []  # type: ignore[attr-defined]
    assert admin.errors == []  # type: ignore[attr-defined]
    assert audit(runtime.settlement.storage, shuffles=0)["problems"] == []

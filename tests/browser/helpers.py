"""Helpers for the browser tests: a signed-up player's page and what a page shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def sign_up(
    browser: Any,
    url: str,
    name: str,
    *,
    width: int = 1280,
    height: int = 800,
    reduced_motion: str = "no-preference",
    init_script: str | None = None,
    touch: bool = False,
    timezone_id: str | None = None,
) -> Page:
    """A new browser context (its own storage), signed up as ``name`` with a play-money grant;
    ``reduced_motion`` is the browser's setting, ``init_script`` runs in every page first,
    ``touch`` makes it a phone's browser (a touch screen, a mobile viewport), ``timezone_id``
    is the browser's time zone (the machine's when None)."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        reduced_motion=reduced_motion,
        has_touch=touch,
        is_mobile=touch,
        timezone_id=timezone_id,
    )
    if init_script is not None:
        context.add_init_script(init_script)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url + "/")
    page.fill("#auth-name", name)
    page.fill("#auth-password", "password-" + name)
    page.click("#signup")
    expect(page.locator("nav .who")).to_have_text(name)
    page.get_by_role("button", name="take a play-money grant").click()
    balance = page.locator('nav .balance[data-currency="PLAY"]')
    expect(balance).to_have_attribute("data-amount", "10000")
    expect(balance).to_have_text("Play chips 10,000")
    return page


def cards_on(page: Page) -> set[str]:
    """Every face-up card the page shows."""
    found: list[str] = page.eval_on_selector_all(
        "[data-card]", "els => els.map(e => e.dataset.card)"
    )
    return set(found)


def sit(
    page: Page, table: str, seat: int, buy_in: int, *, wait: bool = False, auto_post: bool = True
) -> None:
    """From the lobby: open ``table`` and sit in ``seat`` through the buy-in dialog."""
    page.goto(page.url.split("#")[0] + f"#table/{table}")
    buy_in_field = page.locator("#buy-in")
    for _ in range(3):  # a click on a seat drawn just before the table's snapshot came may be lost
        page.locator(f'.seat.empty[data-seat="{seat}"] button').click()
        try:
            expect(buy_in_field).to_be_visible(timeout=5_000)
            break
        except AssertionError:
            continue
    page.fill("#buy-in", str(buy_in))
    if wait:
        page.check("#entry-wait")
    if not auto_post:
        page.uncheck("#sit-auto-post")
    page.click("#buy-in-sit")
    expect(page.locator(f'.seat.mine[data-seat="{seat}"]')).to_be_visible()


def server_legal(room: Any, table: str) -> dict[str, Any] | None:
    """The legal actions the server's table offers the player to act, as the wire has them."""
    from feltroom.server.wire import legal_of

    def read() -> dict[str, Any] | None:
        hand = room.runtime.runners[table].table.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        return legal_of(hand.legal_actions())

    result: dict[str, Any] | None = room.call(read)
    return result


def server_stacks(room: Any, table: str) -> dict[int, int]:
    """The stacks in the server's books for each seat (during a hand: behind the bets)."""

    def read() -> dict[int, int]:
        view = room.runtime.runners[table].table.view(None)
        return {info.seat: info.stack for info in view.seats}

    result: dict[int, int] = room.call(read)
    return result


def server_hole(room: Any, table: str, seat: int) -> set[str]:
    """The hole cards the server dealt ``seat`` in the hand in progress."""

    def read() -> set[str]:
        hand = room.runtime.runners[table].table.hand
        return {str(c) for c in hand.hole_cards(seat) if c is not None}

    result: set[str] = room.call(read)
    return result


def to_act(
    pages: dict[int, Page], timeout: float = 15_000, *, room: Any = None, table: str | None = None
) -> tuple[int, Page]:
    """The seat (and page) whose action buttons are showing. Given the room and the table, the
    seat is the one the server waits for (a page still drawing an earlier turn is not taken)."""
    deadline = timeout
    while deadline > 0:
        seats = list(pages)
        if room is not None and table is not None:
            seat = server_to_act(room, table)
            seats = [seat] if seat in pages else []
        for seat in seats:
            if pages[seat].locator("#actions .row button").count() > 0:
                return seat, pages[seat]
        next(iter(pages.values())).wait_for_timeout(100)
        deadline -= 100
    raise AssertionError("nobody has the action")


def fold_or_check(room: Any, table: str, pages: dict[int, Page]) -> None:
    """The player the server waits for folds, or checks when folding is not offered; a turn
    that moves on before the click lands (a clock, a redraw) is looked for again."""
    _first_offered(room, table, pages, "#act-fold", "#act-check")


def check_or_call(room: Any, table: str, pages: dict[int, Page]) -> None:
    """The player the server waits for checks, or calls when checking is not offered (so that
    the action goes on to the next player)."""
    _first_offered(room, table, pages, "#act-check", "#act-call")


def _first_offered(
    room: Any, table: str, pages: dict[int, Page], first: str, otherwise: str
) -> None:
    for _ in range(5):
        seat, page = to_act(pages, room=room, table=table)
        button = first if page.locator(first).count() else otherwise
        try:
            page.click(button, timeout=5_000)
            return
        except PlaywrightTimeoutError:
            if server_to_act(room, table) != seat:
                return  # the turn went on without this click
    raise AssertionError(f"no fold or check could be clicked at {table}")


def server_to_act(room: Any, table: str) -> int | None:
    """The seat the server's table waits for, if any."""

    def read() -> int | None:
        hand = room.runtime.runners[table].table.hand
        if hand is None or hand.is_over:
            return None
        seat: int | None = hand.to_act
        return seat

    result: int | None = room.call(read)
    return result


def page_stacks(page: Page) -> dict[int, int]:
    """The stacks a page shows, by seat."""
    rows: list[list[int]] = page.eval_on_selector_all(
        ".seat[data-player]",
        "els => els.map(e => [Number(e.dataset.seat),"
        " Number(e.querySelector('.stack').dataset.stack)])",
    )
    return {int(seat): int(stack) for seat, stack in rows}


def check_labels(page: Page) -> None:
    """Every visible button, input and select has an accessible name."""
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, input, select')]
            .filter(e => e.offsetParent !== null)
            .filter(e => !(e.getAttribute('aria-label') || e.labels?.length
                           || e.textContent.trim()))
            .map(e => e.outerHTML)"""
    )
    assert unnamed == []


def three_at(
    room: Any, browser: Any, table: str, players: list[tuple[str, int]]
) -> dict[int, Page]:
    """Three players signed up and seated in seats 1 to 3 of ``table`` with these buy-ins; the
    heads-up hand dealt before the third sat is folded away, so that a three-handed hand is
    under way when this returns. The pages by seat."""
    pages: dict[int, Page] = {}
    for seat, (name, buy_in) in enumerate(players, start=1):
        pages[seat] = sign_up(browser, room.url, name)
        sit(pages[seat], table, seat, buy_in)

    def third_dealt_in() -> bool:
        hand = room.runtime.runners[table].table.hand
        return hand is not None and not hand.is_over and 3 in hand.seats

    for _ in range(8):
        to_act(pages, room=room, table=table)
        if room.call(third_dealt_in):
            break
        fold_or_check(room, table, pages)
        pages[3].wait_for_timeout(300)
    expect(pages[3].locator(".my-hand [data-card]")).to_have_count(2)
    return pages


AXE = Path(__file__).parent / "data" / "axe-core" / "axe.min.js"
SERIOUS = {"serious", "critical"}


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is, serious and critical ones only."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the browser's debugging protocol: the room's Content-Security-Policy
        # (script-src 'self') rightly refuses an inline <script> tag.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
            .map(v => ({ id: v.id, impact: v.impact, help: v.help,
                         nodes: v.nodes.map(n => n.html).slice(0, 3) }))"""
    )
    return [v for v in found if v["impact"] in SERIOUS]

"""Motion and sound in chromium: cards dealt, bets to the pot and the pot to the winner move,
and the table has sounds with a switch; with the browser's reduced-motion setting nothing moves
and the sound starts off."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import server_to_act, sign_up, sit, to_act

pytestmark = pytest.mark.browser

# Records the class of every element the page adds (the animations are short-lived elements and
# classes: a recorder sees them all).
RECORDER = """
window.addEventListener("DOMContentLoaded", () => {
  window.added = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      for (const e of [n, ...n.querySelectorAll("*")]) {
        const name = typeof e.className === "string" ? e.className : "";
        if (/deal-in|fly/.test(name)) window.added.push(name);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
});
"""


def moved(page: Page, name: str) -> int:
    count: int = page.evaluate(f"() => window.added.filter(c => c.includes('{name}')).length")
    return count


def test_dealing_bets_and_the_pot_move_with_sound_and_not_with_reduced_motion(
    room: Any, browser: Any
) -> None:
    """One player with the browser's default motion, one who asked for reduced motion, play to
    the flop: the first sees the cards dealt and the bets fly to the pot, and hears the table
    (the sound switch is on); the second sees nothing move and the switch starts off, and
    turning it on is kept across a reload."""
    moe = sign_up(browser, room.url, "moe", init_script=RECORDER)
    nia = sign_up(browser, room.url, "nia", reduced_motion="reduce", init_script=RECORDER)
    expect(moe.locator("body")).to_have_attribute("data-motion", "full")
    expect(nia.locator("body")).to_have_attribute("data-motion", "reduced")
    expect(moe.locator("#sound")).to_have_attribute("aria-pressed", "true")
    expect(nia.locator("#sound")).to_have_attribute("aria-pressed", "false")
    expect(nia.locator("#sound")).to_have_text("Sound off")
    sit(moe, "solo", 1, 100)
    sit(nia, "solo", 2, 100)
    pages = {1: moe, 2: nia}
    for _ in range(20):  # call and check to the flop
        if moe.locator(".board .card").count() >= 3:
            break
        _, page = to_act(pages, room=room, table="solo")
        button = "#act-check" if page.locator("#act-check").count() else "#act-call"
        page.click(button)
        page.wait_for_timeout(300)
        if server_to_act(room, "solo") is None:
            break
    expect(moe.locator(".board .card")).to_have_count(3)
    expect(nia.locator(".board .card")).to_have_count(3)
    assert moved(moe, "deal-in") >= 5  # two hole cards each and the flop
    assert moved(moe, "fly") >= 1  # the preflop bets to the pot
    assert int(moe.locator("body").get_attribute("data-sounds") or 0) >= 3
    assert moved(nia, "deal-in") == 0
    assert moved(nia, "fly") == 0
    assert nia.locator("body").get_attribute("data-sounds") is None
    nia.click("#sound")
    expect(nia.locator("#sound")).to_have_attribute("aria-pressed", "true")
    nia.reload()
    expect(nia.locator("#sound")).to_have_text("Sound on")


# Records every sound the page plays: the client names the last one in ``data-last-sound``
# (docs/web.md); each time it is set, the old value is kept, so the list is exact even when two
# sounds come in one task.
SOUNDS = """
window.addEventListener("DOMContentLoaded", () => {
  window.soundOlds = [];
  new MutationObserver((records) => {
    for (const r of records) window.soundOlds.push(r.oldValue);
  }).observe(document.body, {
    attributes: true, attributeFilter: ["data-last-sound"], attributeOldValue: true,
  });
});
"""


def heard(page: Page) -> list[str]:
    """The sounds ``page`` has played, in order."""
    sounds: list[str] = page.evaluate(
        "() => window.soundOlds.length"
        " ? [...window.soundOlds.slice(1), document.body.dataset.lastSound] : []"
    )
    return sounds


def turns_heard(page: Page) -> int:
    return heard(page).count("turn")


def test_the_players_turn_plays_the_turn_sound_only_with_sound_on(room: Any, browser: Any) -> None:
    """Issue 21 ("an optional sound says your turn"): with the sound on, each of the player's
    turns plays the turn sound, and the opponent's turns do not; a player who switched the sound
    off hears nothing at all, their turns included, until they switch it on again."""
    tao = sign_up(browser, room.url, "tao", init_script=SOUNDS)
    pia = sign_up(browser, room.url, "pia", init_script=SOUNDS)
    expect(tao.locator("#sound")).to_have_attribute("aria-pressed", "true")
    pia.click("#sound")
    expect(pia.locator("#sound")).to_have_attribute("aria-pressed", "false")
    sit(tao, "drop", 1, 100)
    sit(pia, "drop", 2, 100)
    pages = {1: tao, 2: pia}
    body = tao.locator("body")
    turns = {1: 0, 2: 0}
    heard_at_turn = 0

    def act(page: Page) -> None:
        page.click("#act-check" if page.locator("#act-check").count() else "#act-call")
        page.wait_for_timeout(300)

    for _ in range(12):
        seat, page = to_act(pages, room=room, table="drop")
        turns[seat] += 1
        if seat == 1:
            expect(body).to_have_attribute("data-last-sound", "turn")
            for _ in range(50):  # the sound of this turn, beyond those of the turns before
                if turns_heard(tao) > heard_at_turn:
                    break
                tao.wait_for_timeout(100)
            heard_at_turn = turns_heard(tao)
            assert heard_at_turn >= turns[1]
        else:
            assert turns_heard(tao) == heard_at_turn  # the opponent's turn is silent
        if seat == 1 and turns[2] >= 2:
            break
        act(page)
    assert turns[1] >= 2
    assert turns[2] >= 2
    assert pia.locator("body").get_attribute("data-sounds") is None
    assert heard(pia) == []
    # switched on while it is tao's turn: pia's next turn sounds
    pia.click("#sound")
    expect(pia.locator("#sound")).to_have_attribute("aria-pressed", "true")
    act(tao)
    for _ in range(6):
        seat, page = to_act(pages, room=room, table="drop")
        if seat == 2:
            break
        act(page)
    assert seat == 2
    expect(pia.locator("body")).to_have_attribute("data-last-sound", "turn")
    assert "turn" in heard(pia)
    assert not tao.errors  # type: ignore[attr-defined]
    assert not pia.errors  # type: ignore[attr-defined]

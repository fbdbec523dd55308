"""The browser client in Debian's chromium: players sign up, sit through the buy-in dialog and
play by clicking what the page offers; an observer watches. Every page is checked against the
server's books (stacks, pots, legal amounts) and for cards it must not show yet."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    cards_on,
    check_labels,
    page_stacks,
    server_hole,
    server_legal,
    server_stacks,
    sign_up,
    sit,
    three_at,
    to_act,
)

pytestmark = pytest.mark.browser


def pot_of(room: Any, table: str) -> int:
    def read() -> int:
        hand = room.runtime.runners[table].table.hand
        return 0 if hand is None else int(hand.pot_total)

    result: int = room.call(read)
    return result


def check_books(room: Any, table: str, pages: list[Page]) -> None:
    """Each page shows the stacks and the pot of the server's books (read while the table waits
    for an action; a page that is a message behind gets a moment to catch up)."""
    books = server_stacks(room, table)
    pot = pot_of(room, table)
    for page in pages:
        for _ in range(30):
            shown = (page_stacks(page), page.locator(".center .pot").get_attribute("data-pot"))
            if shown == (books, str(pot)):
                break
            page.wait_for_timeout(100)
        assert shown == (books, str(pot))


def check_no_early_cards(
    room: Any, table: str, players: dict[int, Page], watchers: list[Page]
) -> None:
    """Nobody sees another player's hole cards before they are shown."""
    holes = {seat: server_hole(room, table, seat) for seat in players}
    for seat, page in players.items():
        expect(page.locator(".my-hand [data-card]")).to_have_count(2)
        seen = cards_on(page)
        assert holes[seat] <= seen  # one's own cards are shown
        for other, cards in holes.items():
            if other != seat:
                assert not (cards & seen), (seat, other)
    for page in watchers:
        assert not (set().union(*holes.values()) & cards_on(page))


def check_raise_controls(page: Page, legal: dict[str, Any]) -> None:
    """R-BET-6: the wager controls offer exactly the server's range."""
    controls = page.locator("#raise-controls")
    assert controls.get_attribute("data-min") == str(legal["raise_min"])
    assert controls.get_attribute("data-max") == str(legal["raise_max"])
    if legal["raise_min"] != legal["raise_max"]:
        assert page.locator("#raise-amount").get_attribute("min") == str(legal["raise_min"])
        assert page.locator("#raise-amount").get_attribute("max") == str(legal["raise_max"])
        # the slider steps by the big blind; its ends are the server's range
        assert page.locator("#raise-slider").get_attribute("data-min") == str(legal["raise_min"])
        assert page.locator("#raise-slider").get_attribute("data-max") == str(legal["raise_max"])


def server_words(room: Any, table: str, seat: int) -> str:
    """The words the server's evaluator gives ``seat``'s hand now (hole cards and board)."""
    from feltroom.server.wire import describe_hand

    def read() -> str:
        hand = room.runtime.runners[table].table.hand
        return str(describe_hand(hand.hole_cards(seat), hand.board))

    result: str = room.call(read)
    return result


def check_history_and_chat(room: Any, browser: Any) -> None:
    """After the hands above: alice signs in again in a new context and finds her hands; each
    has a step-by-step replayer, the room's download formats, and the page checks the deal's
    proof itself (WebCrypto) — a tampered proof fails. Chat reaches the table, observers too."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(room.url + "/")
    page.fill("#auth-name", "alice")
    page.fill("#auth-password", "wrong password")
    page.click("#signin")
    expect(page.locator(".auth .form-error")).to_contain_text("Wrong name or password.")
    page.fill("#auth-password", "password-alice")
    page.click("#signin")
    expect(page.locator("nav .who")).to_have_text("alice")
    page.click("nav a[href='#history']")
    hands = page.locator(".hand-link")
    expect(hands.first).to_be_visible()
    assert hands.count() >= 2
    expect(page.locator(".hand-list .verdict.verified")).to_have_count(
        hands.count(), timeout=10_000
    )
    hands.first.click()
    # a new page: it did not see the commitment announced before the deal
    expect(page.locator("#proof-status")).to_contain_text(
        "verified against the published commitment", timeout=10_000
    )
    page.click("#replay-next")
    expect(page.locator(".replay li")).to_have_count(2)
    expect(page.locator(".replay-board [data-card]")).to_have_count(0)
    page.click("#replay-last")
    expect(page.locator(".replay li.current")).to_contain_text("pot")
    # the newest hand went all-in to a showdown: the board came street by street
    expect(page.locator(".replay-board [data-card]")).to_have_count(5)
    expect(page.locator(".replay li", has_text="Flop:")).to_have_count(1)
    expect(page.locator(".replay li", has_text="River:")).to_have_count(1)
    for fmt in ("json", "phh"):
        with page.expect_download() as info:
            page.click(f'button.download[data-format="{fmt}"]')
        assert info.value.suggested_filename.endswith("." + fmt)
    hand_id = hands.first.get_attribute("data-hand")
    verdict = page.evaluate(
        """async (id) => {
            const { verifyProof } = await import('/static/verify.js');
            const token = localStorage.getItem('feltroom.token');
            const r = await fetch(`/api/hands/${id}/proof`,
                                  {headers: {Authorization: `Bearer ${token}`}});
            const proof = await r.json();
            const good = await verifyProof(proof);
            const card = proof.cards[0];
            const other = card.card === 'As' ? 'Ks' : 'As';
            proof.cards[0] = {...card, card: other};
            const bad = await verifyProof(proof);
            return [good.ok, bad.ok];
        }""",
        hand_id,
    )
    assert verdict == [True, False]
    # chat at the table: alice (seated) speaks, an observer reads it as text
    page.goto(room.url + "/#table/nl")
    watcher = sign_up(browser, room.url, "mona")
    watcher.goto(room.url + "/#table/nl")
    expect(watcher.locator(".observing")).to_be_visible()
    page.fill("#chat-text", "<b>gg</b> all")
    page.click(".chat button[type=submit]")
    expect(watcher.locator(".chat-lines li").last).to_have_text("alice: <b>gg</b> all")
    context.close()


def test_r_bet_6_r_nl_3_r_show_4_two_players_and_an_observer_at_no_limit(
    room: Any, browser: Any
) -> None:
    """Two players sign up and play No-Limit: a fold after a bet and a raise (the winner shows,
    R-SHOW-4), then an all-in to a showdown; a third context observes. Each page matches the
    books; nobody sees a hole card early; an invalid amount shows the server's range (R-NL-3)."""
    alice = sign_up(browser, room.url, "alice")
    alice.select_option('select[name="structure"]', "no_limit")
    expect(alice.locator('tr[data-table="fl"]')).to_have_count(0)
    expect(alice.locator('tr[data-table="nl"] .seats-taken')).to_have_text("0 of 6")
    expect(alice.locator('tr[data-table="nl"]')).to_contain_text("Minimum Buy-in 40")
    bob = sign_up(browser, room.url, "bob")
    carol = sign_up(browser, room.url, "carol")
    carol.locator('tr[data-table="nl"]').get_by_role("button", name="observe Oak NL").click()
    expect(carol.locator(".observing")).to_be_visible()

    alice.goto(room.url + "/#table/nl")
    alice.locator('.seat.empty[data-seat="1"] button').click()
    expect(alice.locator(".dialog .bounds")).to_contain_text("Buy-in 40 to 400; default 400")
    alice.fill("#buy-in", "200")
    alice.click("#buy-in-sit")
    sit(bob, "nl", 2, 300)
    players = {1: alice, 2: bob}

    # hand 1: call, check, a bet, a raise, a fold
    seat, page = to_act(players)
    check_no_early_cards(room, "nl", players, [carol])
    check_books(room, "nl", [alice, bob, carol])
    page.click("#act-call")
    seat, page = to_act({s: p for s, p in players.items() if s != seat})
    page.click("#act-check")
    expect(alice.locator(".board .card")).to_have_count(3)
    seat, page = to_act(players)
    for n, player in players.items():  # the hand in words is the server's evaluator's
        expect(player.locator("#hand-words")).to_have_text(server_words(room, "nl", n))
    check_labels(page)
    legal = server_legal(room, "nl")
    assert legal is not None
    assert legal["bet"]
    assert legal["check"]
    check_raise_controls(page, legal)
    check_books(room, "nl", [alice, bob, carol])
    page.fill("#raise-amount", str(legal["raise_min"] - 1))  # R-NL-3: below the minimum
    page.click("#act-bet")
    # said once, in words, under the controls (no toast over Sit out and Leave)
    error = page.locator("#act-error")
    expect(error).to_have_text(f"The minimum bet is {legal['raise_min']}.")
    expect(page.locator("#toast")).to_be_hidden()
    page.click("#preset-min")
    page.click("#act-bet")
    bettor = seat
    seat, page = to_act({s: p for s, p in players.items() if s != bettor})
    legal = server_legal(room, "nl")
    assert legal is not None
    assert not legal["bet"]
    check_raise_controls(page, legal)
    check_books(room, "nl", [alice, bob, carol])
    page.click("#preset-pot")
    assert page.locator("#raise-amount").input_value() == page.locator("#preset-pot").get_attribute(
        "data-amount"
    )
    page.click("#act-raise")
    raiser = seat
    winner_cards = server_hole(room, "nl", raiser)
    seat, page = to_act({bettor: players[bettor]})
    check_no_early_cards(room, "nl", players, [carol])
    page.keyboard.press("f")  # the fold shortcut
    winner = players[raiser]
    expect(carol.locator(".seat.winner")).to_have_attribute("data-seat", str(raiser))
    # R-SHOW-4: the uncontested winner may show; everyone then sees those cards
    winner.click("#show-cards")
    for other in (players[bettor], carol):
        expect(other.locator(f'.seat[data-seat="{raiser}"] [data-card]')).to_have_count(2)
        assert winner_cards <= cards_on(other)

    # hand 2: all-in and call, to a showdown
    seat, page = to_act(players)
    check_no_early_cards(room, "nl", players, [carol])
    check_books(room, "nl", [alice, bob, carol])
    legal = server_legal(room, "nl")
    assert legal is not None
    check_raise_controls(page, legal)
    page.click("#preset-allin")
    assert page.locator("#raise-amount").input_value() == str(legal["raise_max"])
    page.click("#act-raise")
    seat, page = to_act({s: p for s, p in players.items() if s != seat})
    check_no_early_cards(room, "nl", players, [carol])
    holes = set().union(*(server_hole(room, "nl", s) for s in players))
    page.keyboard.press("c")  # the check/call shortcut
    for watcher in (alice, bob, carol):
        expect(watcher.locator(".board .card")).to_have_count(5)
        expect(watcher.locator(".pot-line").first).to_be_visible()
        assert holes <= cards_on(watcher)  # both hands shown at the showdown
    books = server_stacks(room, "nl")
    for watcher in (alice, bob, carol):
        assert page_stacks(watcher) == books
        shown = watcher.eval_on_selector_all(
            ".pot-line", "els => els.map(e => Number(e.dataset.amount))"
        )
        assert sum(shown) > 0
    for watcher in (alice, bob, carol):
        assert not watcher.errors  # type: ignore[attr-defined]
    # sign-in, the hand history (replayer, downloads, deal proof) and chat, on these hands
    check_history_and_chat(room, browser)


def test_three_all_ins_show_the_main_and_the_side_pot_as_the_server_awarded_them(
    room: Any, browser: Any
) -> None:
    """A short stack all-in against two bigger ones: every page lists the main pot and the side
    pot with the amounts and winners the server awarded, and the stacks of the books."""
    players = three_at(room, browser, "side", [("uma", 60), ("vic", 200), ("wes", 200)])
    uma, vic, wes = players[1], players[2], players[3]
    hand = room.call(lambda: room.runtime.runners["side"].playing)
    for _ in range(3):  # everyone all-in (or calls the all-in)
        _, page = to_act(players)
        if page.locator("#preset-allin").count():
            page.click("#preset-allin")
            page.click("#act-raise")
        elif page.locator("#act-raise").count():
            page.click("#act-raise")
        else:
            page.click("#act-call")
        page.wait_for_timeout(200)
        if room.call(lambda: room.runtime.runners["side"].playing) != hand:
            break

    def awarded() -> list[tuple[int, list[int], list[int]]]:
        result = room.runtime.runners["side"].table.last_result
        return [(p.amount, list(p.winners), list(p.shares)) for p in result.hand.results]

    for page in (uma, vic, wes):
        expect(page.locator(".pot-line").first).to_be_visible()
    pots = room.call(awarded)
    assert len(pots) >= 2  # a main pot and a side pot
    books = server_stacks(room, "side")
    for page in (uma, vic, wes):
        # One look at the lines (the next hand clears them two seconds after this one).
        shown = page.wait_for_function(
            """n => {
                const lines = [...document.querySelectorAll('.pot-line')];
                return lines.length === n
                    && lines.map(e => [e.textContent, Number(e.dataset.amount)]);
            }""",
            arg=len(pots),
        ).json_value()
        assert "Main pot" in shown[0][0], shown
        assert "Side pot 1" in shown[1][0], shown
        assert [amount for _, amount in shown] == [amount for amount, _, _ in pots]
        assert page_stacks(page) == books


# Rules: R-ALLIN-2
def test_r_allin_2_a_side_pot_shows_while_the_hand_goes_on(room: Any, browser: Any) -> None:
    """A short stack all-in preflop, the two others raising on: after the flop every page
    shows the main pot and the side pot as the server's pots message has them."""
    from feltroom.server.wire import pots_message

    players = three_at(room, browser, "livepots", [("xan", 40), ("yul", 200), ("zed", 200)])

    def state() -> tuple[int, int, bool]:
        hand = room.runtime.runners["livepots"].table.hand
        put_in = dict(zip(hand.seats, hand.contributions, strict=True))
        return len(hand.board), put_in.get(hand.to_act, 0), hand.is_over

    for _ in range(8):  # xan all-in; yul and zed raise to 80 between them and call
        board, put_in, over = room.call(state)
        if board or over:
            break
        seat, page = to_act(players, room=room, table="livepots")
        if seat == 1 and page.locator("#preset-allin").count():
            page.click("#preset-allin")
            page.click("#act-raise")
        elif (
            seat != 1
            and put_in < 80
            and page.locator("#raise-amount").count()
            and int(page.locator("#raise-amount").get_attribute("min") or 0) <= 80
        ):
            page.fill("#raise-amount", "80")
            page.click("#act-raise")
        else:
            page.click("#act-call" if page.locator("#act-call").count() else "#act-check")
        page.wait_for_timeout(200)
    pots = room.call(
        lambda: pots_message("livepots", None, room.runtime.runners["livepots"].table.hand)
    )["pots"]
    assert len(pots) == 2, (pots, room.call(state))  # the main pot and one side pot
    for page in players.values():
        lines = page.locator(".live-pot-line")
        expect(lines).to_have_count(2)
        expect(lines.first).to_contain_text(f"Main pot {pots[0]['amount']}")
        expect(lines.nth(1)).to_contain_text(f"Side pot 1 {pots[1]['amount']}")

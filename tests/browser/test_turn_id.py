"""The browser page names the turn it acts on (issue 27, point 6): every ``act`` it sends
carries the ``turn_id`` of the turn on screen, so a doubled click is refused (``stale_turn``)
instead of landing at a later turn of the hand."""

from __future__ import annotations

import json
from typing import Any

from .helpers import server_to_act, sign_up, sit, to_act


def test_the_page_sends_the_turn_id_of_the_turn_it_answers(room: Any, browser: Any) -> None:
    acts: list[tuple[dict[str, Any], int | None]] = []
    original = room.hub.receive

    async def spy(connection: Any, frame: str | bytes) -> None:
        message = json.loads(frame)
        if isinstance(message, dict) and message.get("type") == "act":
            acts.append((message, room.runtime.runners["solo"].table.turn_id))
        await original(connection, frame)

    room.hub.receive = spy
    try:
        alice = sign_up(browser, room.url, "tina")
        bob = sign_up(browser, room.url, "tom")
        sit(alice, "solo", 1, 200)
        sit(bob, "solo", 2, 200)
        players = {1: alice, 2: bob}
        for _ in range(2):
            seat, page = to_act(players, room=room, table="solo")
            page.click("#act-call" if page.locator("#act-call").count() else "#act-check")
            for _ in range(100):
                if server_to_act(room, "solo") != seat:
                    break
                page.wait_for_timeout(50)
    finally:
        room.hub.receive = original
    assert len(acts) >= 2
    for message, current in acts:
        assert isinstance(message.get("turn_id"), int), message
        assert message["turn_id"] == current  # the turn in progress when it arrived
    assert alice.errors == []  # type: ignore[attr-defined]
    assert bob.errors == []  # type: ignore[attr-defined]

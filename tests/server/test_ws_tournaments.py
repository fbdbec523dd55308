"""Tournaments over the websocket protocol: people registered over HTTP are taken to their
table (``moved``), act at their turns, follow the director's moves to the final table, get
their tournament view and their result; nobody sees a card they may not (the wire tap); the
books balance."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from feltroom.room.audit import audit
from feltroom.server.metrics import REGISTRY
from feltroom.store import SqlStorage

from .live import HEADS_UP, Client, Live, live_server, room_for

FOUR = """
[[tournament]]
id = "four"
format = "sng"
seats_per_table = 3
max_entries = 4
starting_stack = 500
buy_in = 1000
fee = 100
"""

NAMES = ("ann", "bob", "cid", "dee")


def _shove(legal: dict[str, Any]) -> dict[str, Any]:
    """All in: the biggest raise there is, else a call, else a check."""
    if legal["raise_max"] is not None:
        return {"action": "bet" if legal["bet"] else "raise", "amount": legal["raise_max"]}
    if legal["call"]:
        return {"action": "call"}
    return {"action": "check"}


async def _play(client: Client) -> dict[str, Any]:
    """Shoves at every turn (those already received first; a past one is refused as stale)
    until the player's result comes; returns it."""
    seen = 0
    while True:
        if seen < len(client.log):
            message = client.log[seen]
        else:
            message = await client.recv(60)
        seen += 1
        if message["type"] == "tournament_result":
            return message
        if message["type"] == "turn" and message["legal"] is not None:
            act = {
                "type": "act",
                "table": message["table"],
                "hand": message["hand"],
                "turn_id": message["turn_id"],
                **_shove(message["legal"]),
            }
            await client.send(act)


def _action_counts() -> tuple[float, float]:
    """The process's accepted actions and the action broadcasts it timed so far."""
    accepted = REGISTRY.get_sample_value("feltroom_actions_total", {"result": "accepted"})
    timed = REGISTRY.get_sample_value("feltroom_action_broadcast_seconds_count")
    return accepted or 0.0, timed or 0.0


async def _view(client: Client) -> dict[str, Any]:
    ref = await client.send({"type": "tournament", "tournament": "four-1"})
    return await client.wait_for(
        lambda m: m.get("ref") == ref and m["type"] in ("tournament", "error")
    )


async def _register(live: Live, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=live.http) as http:
        response = await http.post(
            "/api/tournaments/four-1/register", headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_people_play_a_tournament_over_the_protocol(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP, FOUR)
        async with live_server(room) as live:
            tokens = {name: await live.account(name) for name in NAMES}
            async with (
                live.client("ann", tokens["ann"]) as ann,
                live.client("bob", tokens["bob"]) as bob,
                live.client("cid", tokens["cid"]) as cid,
                live.client("dee", tokens["dee"]) as dee,
            ):
                clients = [ann, bob, cid, dee]
                unknown = await _view(ann)
                assert unknown["code"] == "not_joined", unknown
                for name in NAMES:
                    await _register(live, tokens[name])
                # the start takes each connection to its table: moved, then the snapshot
                seated = {}
                for client in clients:
                    moved = await client.wait_for(lambda m: m["type"] == "moved")
                    assert moved["reason"] == "seated"
                    assert moved["from_table"] is None
                    snap = await client.wait_for(lambda m: m["type"] == "snapshot")
                    assert (snap["table"], snap["you"]) == (moved["table"], moved["seat"])
                    seated[client.name] = moved["table"]
                assert sorted(set(seated.values())) == ["four-1.1", "four-1.2"]
                view = await _view(bob)
                assert view["type"] == "tournament", view
                assert view["tournament"] == "four-1"
                assert (view["level"], view["blinds"], view["next_blinds"]) == (
                    1,
                    [10, 20, 0],
                    [15, 30, 0],
                )
                assert (view["players_left"], view["entries"], view["places_paid"]) == (4, 4, 1)
                assert view["average_stack"] == 500
                assert (view["on_break"], view["hand_for_hand"]) == (False, False)
                assert view["you"]["account"] == "bob"
                assert view["you"]["status"] == "playing"
                assert view["table_id"] == seated["bob"]
                # a cash-table message at a tournament table is refused (R-TOURN-15)
                refused = await ann.request(
                    {"type": "add_chips", "table": seated["ann"], "amount": 100}
                )
                assert refused["type"] == "error"
                assert "R-TOURN-15" in refused["message"]
                accepted, broadcast = _action_counts()
                results = await asyncio.gather(*(_play(c) for c in clients))
                # each action taken at a tournament table counted and timed to its broadcast
                # (feltroom_action_broadcast_seconds, as at a cash table)
                accepted_after, broadcast_after = _action_counts()
                assert accepted_after > accepted
                assert broadcast_after - broadcast == accepted_after - accepted
                by_place = sorted((r["place"], r["prize"]) for r in results)
                assert by_place[0] == (1, 4000)
                assert all(prize == 0 for _, prize in by_place[1:])
                assert {r["entries"] for r in results} == {4}
                # the final table took everyone left from the other table
                moves = [m for c in clients for m in c.log if m["type"] == "moved"]
                assert any(m["reason"] == "final" for m in moves), moves
                for move in moves:
                    if move["reason"] == "final":
                        assert move["table"] == "four-1.1"
                # each move is followed by the player's view where the move left them
                for client in clients:
                    for k, message in enumerate(client.log):
                        if message["type"] != "moved" or message["reason"] != "final":
                            continue
                        after = client.log[k:]
                        view = next(m for m in after if m["type"] == "tournament")
                        dealt = next(
                            (
                                i
                                for i, m in enumerate(after)
                                if m["type"] == "event" and m["kind"] == "hand_started"
                            ),
                            len(after),
                        )
                        assert after.index(view) < dealt  # at once, not after the next hand
                        assert view["table_id"] == "four-1.1"
                        assert view["players_left"] in (2, 3)  # one or two out before the draw
                        assert view["you"]["table"] == 1
                # everyone acted over the protocol: nobody was made away by the clock
                events = [m for c in clients for m in c.log if m["type"] == "event"]
                assert not [e for e in events if e["kind"] == "timed_out"]
            assert live.tap.leaks == []
            await asyncio.sleep(0.2)
        report = audit(storage, shuffles=0)
        assert report["problems"] == [], report["problems"]
        assert report["pass"] is True

    asyncio.run(asyncio.wait_for(scenario(), 120))

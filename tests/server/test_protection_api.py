"""The player's protection over HTTP and the websocket (issue 25, docs/protocol.md): limits
set, lowered at once and raised after 24 hours; a cool-off or a self-exclusion takes the cash
seats at the end of the hand and refuses sitting, deposits and waiting lists but not
withdrawals; the session-time reminder; the operator's view and `feltroom admin verify`;
every refusal says what is valid and changes nothing; the books balance."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from feltroom.room.errors import ProtectionRefused
from feltroom.room.operators import OperatorLog
from feltroom.store import SqlStorage

from .live import HEADS_UP, live_server, room_for
from .test_operator_api import _bearer, _cli, _error, _operator
from .test_ws import _audit_passes, _run, _seat


def _actions(storage: SqlStorage, target: str) -> list[str]:
    return [e["action"] for e in OperatorLog(storage).entries() if e["target"] == target]


def test_limits_round_trip_with_a_pending_raise_and_the_operators_view(
    storage: SqlStorage,
) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            alice = await live.account("alice")
            op = await _operator(live)
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(alice)) as http:
                start = (await http.get("/api/me/limits")).json()
                assert start["limits"] == []
                assert start["verified"] is False
                assert start["blocked"] is None
                body = {
                    "limits": [
                        {"currency": "USD", "kind": "loss", "period": "week", "amount": "200.00"}
                    ],
                    "reminder_minutes": 60,
                }
                done = (await http.put("/api/me/limits", json=body)).json()
                assert done["changes"][0]["effect"] == "now"
                assert done["reminder_minutes"] == 60
                assert live.hub.reminders["alice"] == 60
                body["limits"][0]["amount"] = "900.00"
                del body["reminder_minutes"]
                raised = (await http.put("/api/me/limits", json=body)).json()
                (limit,) = raised["limits"]
                assert limit["amount"] == "200.00"
                assert limit["pending"]["amount"] == "900.00"
                assert limit["pending"]["time"].endswith("+00:00")
                before = (await http.get("/api/me/limits")).json()
                logged = _actions(storage, "alice")
                for bad, message in (
                    ({"limits": "x"}, "must be an array"),
                    ({"limit": []}, "unknown field 'limit'"),
                    ({"limits": [{"currency": "PLAY"}]}, "missing 'kind'"),
                    ({"reminder_minutes": "60"}, "must be a whole number"),
                    ({"reminder_minutes": 3}, "from 10 to 1440"),
                ):
                    message_text = _error(
                        await http.put("/api/me/limits", json=bad), 400, "invalid_field"
                    )
                    assert message in message_text
                assert (await http.get("/api/me/limits")).json() == before
                assert _actions(storage, "alice") == logged
                forbidden = await http.get("/api/operator/protection?account=alice")
                _error(forbidden, 403, "not_operator")
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http:
                seen = (await http.get("/api/operator/protection?account=alice")).json()
                assert seen == before
                missing = await http.get("/api/operator/protection?account=zed")
                assert "no player account named 'zed'" in _error(missing, 404, "not_found")

    _run(scenario())
    assert _actions(storage, "alice") == ["limits", "limits"]
    _audit_passes(storage)


def test_a_cool_off_leaves_the_table_after_the_hand_and_refuses_play_but_not_withdrawals(
    storage: SqlStorage,
) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            alice = await live.account("alice")
            bob = await live.account("bob")
            await asyncio.to_thread(runtime.cashier.deposit, "alice", "EUR", "50.00", "eur")
            async with live.client("alice", alice) as a, live.client("bob", bob) as b:
                await _seat(a, "hu", 1)
                await _seat(b, "hu", 2)
                await a.wait_for(lambda m: m["type"] == "hole_cards")
                async with httpx.AsyncClient(base_url=live.http, headers=_bearer(alice)) as http:
                    short = await http.post("/api/me/cool-off", json={"hours": 12})
                    assert "from 24 to 1008 hours" in _error(short, 400, "invalid_field")
                    done = (await http.post("/api/me/cool-off", json={"hours": 24})).json()
                    assert done["blocked"] == "cool-off"
                    assert done["tables_left"] == ["hu"]
                    for _ in range(200):
                        if not runtime.seats_of("alice"):
                            break
                        await asyncio.sleep(0.05)
                    assert runtime.seats_of("alice") == []
                    shorter = await http.post("/api/me/cool-off", json={"hours": 24})
                    assert shorter.status_code == 200  # the same length from now: longer
                    again = await http.post("/api/me/exclusion", json={"months": 3})
                    assert "from 6 to 120 months" in _error(again, 400, "invalid_field")
                reply = await a.request({"type": "sit", "table": "hu", "seat": 1, "buy_in": 100})
                assert reply["type"] == "error"
                assert reply["code"] == "refused"
                assert "cool-off until" in reply["message"]
                assert reply["details"]["state"] == "cool-off"
                waiting = await a.request({"type": "wait_list", "table": "hu"})
                assert waiting["type"] == "error"
                assert "cool-off" in waiting["message"]
            with pytest.raises(ProtectionRefused, match="no deposit"):
                await asyncio.to_thread(runtime.cashier.deposit, "alice", "EUR", "1.00", "x")
            paid = await asyncio.to_thread(runtime.cashier.withdraw, "alice", "EUR", "50.00", "out")
            assert paid["balance"] == "0.00"
            wallet = await asyncio.to_thread(runtime.cashier.balance, "alice")
            stacks = await asyncio.to_thread(runtime.stored_stacks, "hu")
            assert "alice" not in stacks
            assert (
                int(wallet["balances"]["PLAY"])
                + sum(stacks.values())
                + int((await asyncio.to_thread(runtime.cashier.balance, "bob"))["balances"]["PLAY"])
                == 20_000
            )

    _run(scenario())
    assert _actions(storage, "alice") == ["cool-off", "cool-off"]
    _audit_passes(storage)


def test_a_permanent_self_exclusion_and_the_session_reminder(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            alice = await live.account("alice")
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(alice)) as http:
                await http.put("/api/me/limits", json={"reminder_minutes": 10})
                async with live.client("alice", alice) as a:
                    assert live.hub.send_reminders() == 0  # not ten minutes yet
                    live.hub.session_started["alice"] -= 601
                    assert live.hub.send_reminders() == 1
                    reminder = await a.wait_for(lambda m: m["type"] == "reminder")
                    assert reminder["minutes"] == 10
                    assert reminder["every"] == 10
                    assert live.hub.send_reminders() == 0  # once per interval
                    both = await http.post(
                        "/api/me/exclusion", json={"months": 6, "permanent": True}
                    )
                    assert "not both" in _error(both, 400, "invalid_field")
                    done = (await http.post("/api/me/exclusion", json={"permanent": True})).json()
                    assert done["excluded_permanently"] is True
                    assert done["tables_left"] == []
                    again = await http.post("/api/me/exclusion", json={"months": 120})
                    assert "permanently already" in _error(again, 409, "refused")
                    reply = await a.request(
                        {"type": "sit", "table": "hu", "seat": 1, "buy_in": 100}
                    )
                    assert "self-exclusion permanently" in reply["message"]

    _run(scenario())
    assert _actions(storage, "alice") == ["limits", "self-exclusion"]
    _audit_passes(storage)


def test_feltroom_admin_verify_on_the_database_and_the_live_room(
    storage: SqlStorage, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    usd = HEADS_UP.replace('id = "hu"', 'id = "usd"\ncurrency = "USD"')
    runtime = room_for(storage, usd)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            alice = await live.account("alice")
            await live.account("bob")
            await _operator(live)
            for name in ("alice", "bob"):
                await asyncio.to_thread(runtime.cashier.deposit, name, "USD", "10.00", name)
            async with live.client("alice", alice) as a:
                reply = await a.request({"type": "sit", "table": "usd", "seat": 1, "buy_in": 400})
                assert "alice is not verified" in reply["message"]
                monkeypatch.setenv("FELTROOM_OPERATOR_PASSWORD", "password-op")
                code, text = await asyncio.to_thread(
                    _cli,
                    "admin",
                    "--url",
                    live.http,
                    "--operator",
                    "op",
                    "--reason",
                    "passport seen",
                    "verify",
                    "alice",
                    "--identity",
                    "alice@example.org",
                )
                assert code == 0, text
                assert json.loads(text)["verified"] is True
                await _seat(a, "usd", 1, 400)
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--db",
                db_url,
                "--operator",
                "root",
                "--reason",
                "id card",
                "verify",
                "bob",
                "--identity",
                "ID 123 456 789",
            )
            assert code == 0, text
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--db",
                db_url,
                "--operator",
                "root",
                "--reason",
                "x",
                "verify",
                "bob",
                "--identity",
                "ID 123 456 789",
            )
            assert code == 2
            assert "verified already" in text
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--db",
                db_url,
                "--operator",
                "root",
                "verify",
                "bob",
                "--identity",
                "x@y.z",
            )
            assert code == 2
            assert "needs --reason" in text

    _run(scenario())
    assert _actions(storage, "alice") == ["verify"]
    assert _actions(storage, "bob") == ["verify"]
    _audit_passes(storage)


DUEL = """
[[tournament]]
id = "duel"
format = "sng"
seats_per_table = 2
max_entries = 2
starting_stack = 1000
buy_in = 100
fee = 10
"""


def test_a_cool_off_leaves_a_running_tournament_entry_in_play_as_away(
    storage: SqlStorage,
) -> None:
    """docs/operator.md, R-TOURN-6: a player who takes a cool-off in a running tournament keeps
    the entry and the seat; they are away (blinds posted, folded at their turn) and cannot
    come back or act until the cool-off ends."""
    runtime = room_for(storage, HEADS_UP, DUEL)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            tokens = {name: await live.account(name) for name in ("ann", "bob")}
            async with (
                live.client("ann", tokens["ann"]) as ann,
                live.client("bob", tokens["bob"]) as bob,
            ):
                for name in ("ann", "bob"):
                    async with httpx.AsyncClient(
                        base_url=live.http, headers=_bearer(tokens[name])
                    ) as http:
                        done = await http.post("/api/tournaments/duel-1/register")
                        assert done.status_code == 200, done.text
                moved = await ann.wait_for(lambda m: m["type"] == "moved")
                table, seat = moved["table"], moved["seat"]
                await bob.wait_for(lambda m: m["type"] == "moved")
                async with httpx.AsyncClient(
                    base_url=live.http, headers=_bearer(tokens["ann"])
                ) as http:
                    done = (await http.post("/api/me/cool-off", json={"hours": 24})).json()
                assert done["blocked"] == "cool-off"
                assert done["tables_left"] == []
                away = await ann.wait_for(
                    lambda m: m["type"] == "event" and m["kind"] == "went_away"
                )
                assert away["seat"] == seat
                assert runtime.tournament_seats_of("ann") != []  # not removed
                back = await ann.request({"type": "sit_in", "table": table})
                assert back["type"] == "error", back
                assert back["code"] == "refused", back
                assert "cool-off until" in back["message"]
                assert back["details"]["state"] == "cool-off"
                acted = await ann.request(
                    {"type": "act", "table": table, "hand": away["hand"], "action": "fold"}
                )
                assert acted["code"] == "refused", acted
                assert "no play" in acted["message"]

                async def bob_plays(hands: int) -> None:
                    started = 0
                    while started < hands:
                        m = await bob.recv(30)
                        if m["type"] == "event" and m["kind"] == "hand_started":
                            started += 1
                        if m["type"] == "turn" and m["legal"] is not None:
                            legal = m["legal"]
                            move = {"action": "call"} if legal["call"] else {"action": "check"}
                            await bob.send(
                                {
                                    "type": "act",
                                    "table": table,
                                    "hand": m["hand"],
                                    "turn_id": m["turn_id"],
                                    **move,
                                }
                            )

                await bob_plays(4)
                # the hands after the cool-off: ann's blinds are posted, she is folded (or
                # checked when checking is free) at once at her turn, with no clock
                later = [
                    m
                    for m in bob.log
                    if m.get("table") == table and (m.get("hand") or 0) > away["hand"]
                ]
                hands = {m["hand"] for m in later}
                assert len(hands) >= 3
                mine = [m for m in later if m.get("seat") == seat]
                assert any(m.get("kind") == "posted" for m in mine)
                assert any(m.get("kind") in ("folded", "checked") for m in mine)
                assert not [m for m in mine if m["type"] == "turn"]
                assert not [m for m in mine if m.get("kind") in ("came_back", "timed_out")]
                # the entry plays on: still in the tournament, away at the same seat
                ref = await ann.send({"type": "tournament", "tournament": "duel-1"})
                view = await ann.wait_for(lambda m: m.get("ref") == ref)
                assert view["type"] == "tournament", view
                assert view["you"]["status"] == "playing"
                assert view["players_left"] == 2
                (entry,) = runtime.tournament_seats_of("ann")
                assert entry[1:] == (table, seat)
                tab = runtime.tournaments["duel-1"].by_id[table]
                assert tab.table.seats[seat].away is True

    _run(scenario())
    assert _actions(storage, "ann") == ["cool-off"]
    _audit_passes(storage)

"""Home games (issue 45, docs/home-games.md): a private table a player hosts, reached by its
invite link, run by its host, with a ledger from the books. In process, on the fake clock:
the HTTP API on a Starlette test client whose event loop also drives the room."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.audit import audit
from feltroom.room.ledger import player_wallet_key
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.runtime.settings import HomeSettings
from feltroom.room.tables_config import parse_tables, room_tables
from feltroom.rules import Call, Check, Fold, RaiseTo
from feltroom.rules.actions import LegalActions
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage

from .live import live_server, room_for
from .test_operator_api import _bearer
from .test_rest import _error, _sign_in

TABLE = """
[[table]]
id = "public"
name = "Birch"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""

GAME = {"name": "Friday game", "small_blind": 1, "big_blind": 2, "min_buy_in": 40}


@pytest.fixture
def room(settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock) -> RoomRuntime:
    return RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLE),
        settings=RuntimeSettings(
            house_bots=2,
            bot_think=(0.2, 0.2),
            between_hands=0.5,
            after_showdown=0.5,
            selftest_first=10**9,
            home=HomeSettings(games_at_once=2, games_per_day=3, idle_hours=1.0),
        ),
        clock=clock,
    )


@pytest.fixture
def client(room: RoomRuntime, clock: Clock, players: tuple[str, ...]) -> Iterator[TestClient]:
    limits = RestLimits(clock=clock, signups=1)
    with TestClient(create_app(room, drive=False, limits=limits)) as test_client:
        assert test_client.portal is not None
        test_client.portal.call(room.start)
        yield test_client
        test_client.portal.call(room.stop)


def _advance(
    client: TestClient, room: RoomRuntime, clock: Clock, seconds: float, step: float = 0.5
) -> None:
    assert client.portal is not None
    end = clock.now + seconds
    while clock.now < end:
        clock.now += step
        client.portal.call(room.advance, clock.now)


def _call_down(legal: LegalActions) -> Any:
    if legal.check:
        return Check()
    return Call() if legal.call is not None else Fold()


def _shove(legal: LegalActions) -> Any:
    if legal.raise_max is not None:
        return RaiseTo(legal.raise_max)
    return _call_down(legal)


def _play(
    client: TestClient,
    room: RoomRuntime,
    clock: Clock,
    table_id: str,
    policies: dict[str, Any],
    until: Any,
    bound: int = 4000,
) -> None:
    """Play the table's hands (each person by their policy) until ``until()`` holds."""
    assert client.portal is not None
    runner = room.runners[table_id]
    for _ in range(bound):
        if until():
            return
        clock.now += 0.5
        client.portal.call(room.advance, clock.now)
        hand = runner.table.hand
        if hand is not None and not hand.is_over and hand.to_act is not None:
            account = runner.table.seats[hand.to_act].account
            legal = hand.legal_actions()
            assert legal is not None
            policy = policies.get(account, _call_down)
            client.portal.call(room.act, table_id, account, policy(legal))
    raise AssertionError("the condition never held")


def _audit_passes(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


def _create(client: TestClient, host: dict[str, str], **fields: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={**GAME, **fields}, headers=host)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()["game"]
    return game


def test_R_HOME_1_a_game_with_its_link_absent_from_the_lobby(
    client: TestClient, room: RoomRuntime, storage: SqlStorage
) -> None:
    alice, bob = _sign_in(client, "alice"), _sign_in(client, "bob")
    game = _create(client, alice)
    assert game["id"] == "g-1"
    assert game["table"] == "home-g-1"
    assert game["host"] == "alice"
    assert game["you"] == "host"
    assert game["status"] == "open"
    assert (game["game"], game["seats"], game["max_buy_in"]) == ("NL", 6, 200)
    assert (game["admission"], game["auto_buy_in"]) == (True, False)
    assert game["currency"] == "g-1"
    assert game["invite"].startswith("/g/")
    assert game["requests"] == []
    # a real table of the room, never in the lobby (nor its status page)
    assert "home-g-1" in room.runners
    lobby = client.get("/api/lobby").json()["tables"]
    assert [t["id"] for t in lobby] == ["public"]
    assert "home-g-1" not in client.get("/status").text
    secret = game["invite"].removeprefix("/g/")
    shown = client.get(f"/api/invites/{secret}").json()["game"]
    assert shown["name"] == "Friday game"
    assert "invite" not in shown
    assert "requests" not in shown
    page = client.get(game["invite"])
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    _error(client.get("/api/invites/not-the-secret"), 404, "not_found")
    # strangers do not see the game; the caller's games list it
    _error(client.get("/api/games/g-1", headers=bob), 404, "not_found")
    assert client.get("/api/games", headers=bob).json() == {"games": [], "currencies": []}
    assert [g["id"] for g in client.get("/api/games", headers=alice).json()["games"]] == ["g-1"]
    # the link renewed: the old secret is 404
    renewed = client.post("/api/games/g-1/link", headers=alice).json()["game"]
    assert renewed["invite"] != game["invite"]
    _error(client.get(f"/api/invites/{secret}"), 404, "not_found")
    new_secret = renewed["invite"].removeprefix("/g/")
    assert client.get(f"/api/invites/{new_secret}").status_code == 200
    # bad input: a clear refusal, nothing created
    for bad, status, code in (
        ({"game": "XL"}, 409, "refused"),
        ({"big_blind": "2"}, 400, "invalid_field"),
        ({"seats": 11}, 409, "refused"),
        ({"min_buy_in": 500}, 409, "refused"),
        ({"currency": "USD"}, 409, "refused"),
        ({"colour": "red"}, 400, "invalid_field"),
    ):
        _error(client.post("/api/games", json={**GAME, **bad}, headers=bob), status, code)
    assert client.get("/api/games", headers=bob).json() == {"games": [], "currencies": []}
    # the host's limits: games at once
    _create(client, alice)
    refused = client.post("/api/games", json=GAME, headers=alice)
    assert "at most 2 at once" in _error(refused, 409, "refused")
    _audit_passes(storage)


def test_R_HOME_1_R_HOME_2_admission_and_buy_in_approval(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    game = _create(client, alice)
    secret = game["invite"].removeprefix("/g/")
    # the host sits at once, with the game's own chips: no wallet touched
    seated = client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=alice)
    assert seated.json()["seat"] == 1
    balance = client.get("/api/balance", headers=alice).json()
    assert balance["balances"].get("PLAY") == "1000"
    # bob asks: a seat request the host sees
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 150, "seat": 3}, headers=bob)
    request = asked.json()["request"]
    assert (request["kind"], request["player"], request["amount"]) == ("seat", "bob", 150)
    assert client.get("/api/games/g-1", headers=bob).json()["game"]["you"] == "pending"
    host_view = client.get("/api/games/g-1", headers=alice).json()["game"]
    assert [r["id"] for r in host_view["requests"]] == [request["id"]]
    again = client.post(f"/api/invites/{secret}/join", json={"buy_in": 150}, headers=bob)
    _error(again, 409, "refused")
    # a player may not run the game; a wrong request number changes nothing
    _error(
        client.post("/api/games/g-1/admit", json={"request": 1, "admit": True}, headers=bob),
        409,
        "refused",
    )
    wrong = client.post("/api/games/g-1/admit", json={"request": 99, "admit": True}, headers=alice)
    assert "pending: [" in _error(wrong, 409, "refused")
    admitted = client.post(
        "/api/games/g-1/admit", json={"request": request["id"], "admit": True}, headers=alice
    ).json()["game"]
    assert admitted["requests"] == []
    assert room.runners["home-g-1"].table.seat_of("bob") == 3
    assert client.get("/api/games/g-1", headers=bob).json()["game"]["you"] == "player"
    # carol is refused; her buy-in outside the range is refused before any request
    _error(
        client.post(f"/api/invites/{secret}/join", json={"buy_in": 500}, headers=carol),
        409,
        "refused",
    )
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 60}, headers=carol)
    number = asked.json()["request"]["id"]
    client.post("/api/games/g-1/admit", json={"request": number, "admit": False}, headers=alice)
    assert room.runners["home-g-1"].table.seat_of("carol") is None
    # admission off: carol's ask is a buy-in the host approves
    settings = {"admission": False}
    client.post("/api/games/g-1/settings", json=settings, headers=alice)
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 60}, headers=carol)
    buy_in = asked.json()["request"]
    assert buy_in["kind"] == "buy_in"
    client.post(
        "/api/games/g-1/approve", json={"request": buy_in["id"], "approve": True}, headers=alice
    )
    assert room.runners["home-g-1"].table.seat_of("carol") is not None
    # they play; a rebuy is asked and approved
    _play(
        client,
        room,
        clock,
        "home-g-1",
        {"carol": _shove},
        lambda: (
            any(p.stack == 0 for p in room.runners["home-g-1"].table.seats.values())
            and not room.runners["home-g-1"].table.in_hand
        ),
    )
    runner = room.runners["home-g-1"]
    busted = next(p.account for p in runner.table.seats.values() if p.stack == 0)
    rebuy = client.portal.call(room.home.rebuy, "home-g-1", busted, 100)  # type: ignore[union-attr]
    if busted in ("alice",):
        assert rebuy is None  # the host's own chips need no approval
    else:
        assert rebuy is not None
        assert rebuy["kind"] == "rebuy"
        client.post(
            "/api/games/g-1/approve",
            json={"request": rebuy["id"], "approve": True},
            headers=alice,
        )
    _advance(client, room, clock, 2)
    seat = runner.table.seat_of(busted)
    assert seat is not None
    assert runner.table.seats[seat].stack == 100
    _audit_passes(storage)
    # the ledger (R-HOME-5) is the books': nets add up to zero in the game's own chips
    book = client.get("/api/games/g-1/ledger", headers=bob).json()
    assert book["currency"] == "g-1"
    rows = {r["player"]: r for r in book["players"]}
    assert set(rows) == {"alice", "bob", "carol"}
    assert rows[busted]["added"] == 100
    assert rows["bob"]["buy_ins"] == 150
    assert sum(r["net"] for r in rows.values()) == 0
    assert book["totals"]["net"] == 0
    stacks = room.stored_stacks("home-g-1")
    for name, row in rows.items():
        assert row["at_table"] == stacks.get(name, 0)
        assert row["net"] == row["cash_outs"] + row["at_table"] - row["buy_ins"] - row["added"]
    text = client.get("/api/games/g-1/ledger?format=csv", headers=alice)
    assert text.headers["content-type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(text.text)))
    assert lines[0] == ["player", "buy_ins", "added", "cash_outs", "at_table", "net"]
    assert len(lines) == 4
    _error(client.get("/api/games/g-1/ledger?format=xml", headers=alice), 400, "invalid_field")


def test_R_HOME_2_every_control_removal_and_end_mid_hand_and_the_ledger(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    _create(client, alice, admission=False, auto_buy_in=True)
    secret = client.get("/api/games/g-1", headers=alice).json()["game"]["invite"][3:]
    for who in (alice, bob, carol):
        joined = client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=who)
        assert "seat" in joined.json(), joined.text
    runner = room.runners["home-g-1"]
    # co-host: bob may run the game but not end it nor name co-hosts
    named = client.post("/api/games/g-1/cohost", json={"player": "bob", "on": True}, headers=alice)
    assert named.json()["game"]["cohosts"] == ["bob"]
    assert "invite" in client.get("/api/games/g-1", headers=bob).json()["game"]
    _error(client.post("/api/games/g-1/end", headers=bob), 409, "refused")
    body = {"player": "carol", "on": True}
    _error(client.post("/api/games/g-1/cohost", json=body, headers=bob), 409, "refused")
    # pause between hands stops the clocks: no deal, no release of a sitting-out seat
    _advance(client, room, clock, 1)
    paused = client.post("/api/games/g-1/pause", headers=bob).json()["game"]
    assert paused["status"] == "paused"
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.in_hand)
    client.portal.call(room.sit_out, "home-g-1", "carol")  # type: ignore[union-attr]
    hands = runner.table.hand_number
    _advance(client, room, clock, 1800, step=5)  # beyond sit_out_minutes (10)
    assert runner.table.hand_number == hands
    assert runner.table.seat_of("carol") is not None
    client.post("/api/games/g-1/resume", headers=alice)
    client.portal.call(room.sit_in, "home-g-1", "carol")  # type: ignore[union-attr]
    # new blinds from the next hand, announced in the game's log
    changed = client.post(
        "/api/games/g-1/settings", json={"small_blind": 2, "big_blind": 4}, headers=alice
    )
    assert changed.json()["game"]["big_blind"] == 4
    _error(
        client.post("/api/games/g-1/settings", json={"big_blind": 0}, headers=alice),
        409,
        "refused",
    )
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.in_hand)
    assert runner.table.config.big == 4
    # carol removed mid-hand: she leaves after it with her chips, and cannot ask again
    client.post("/api/games/g-1/remove", json={"player": "carol"}, headers=bob)
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.seat_of("carol") is None)
    again = client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=carol)
    assert "removed" in _error(again, 409, "refused")
    # ended mid-hand: the hand plays out, then everyone leaves; the link dies
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.in_hand)
    ended = client.post("/api/games/g-1/end", headers=alice).json()["game"]
    assert ended["status"] == "ended"
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.seats)
    _error(client.get(f"/api/invites/{secret}"), 404, "not_found")
    _error(client.post("/api/games/g-1/pause", headers=alice), 409, "refused")
    book = client.get("/api/games/g-1/ledger", headers=carol).json()
    assert {r["player"] for r in book["players"]} == {"alice", "bob", "carol"}
    assert all(r["at_table"] == 0 for r in book["players"])
    assert book["totals"]["net"] == 0
    assert book["totals"]["cash_outs"] == 300
    seen = client.get("/api/games/g-1", headers=bob).json()["game"]
    lines = [entry["line"] for entry in seen["log"]]
    assert any("paused" in line for line in lines)
    assert any("removed carol" in line for line in lines)
    _audit_passes(storage)


def test_R_HOME_2_the_host_leaving_passes_the_role(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    _create(client, alice, admission=False, auto_buy_in=True)
    secret = client.get("/api/games/g-1", headers=alice).json()["game"]["invite"][3:]
    for who in (alice, bob, carol):
        client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=who)
    client.portal.call(room.leave, "home-g-1", "alice")  # type: ignore[union-attr]
    runner = room.runners["home-g-1"]
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.seat_of("alice") is None)
    game = client.get("/api/games/g-1", headers=bob).json()["game"]
    assert game["host"] == "bob"  # the longest-seated player (no co-host)
    assert game["you"] == "host"
    assert client.get("/api/games/g-1", headers=alice).json()["game"]["you"] == "player"
    _audit_passes(storage)


def test_R_HOME_1_guests_sign_up_through_the_link(client: TestClient, room: RoomRuntime) -> None:
    alice = _sign_in(client, "alice")
    game = _create(client, alice, seats=2)
    secret = game["invite"].removeprefix("/g/")
    # the room's sign-up limit is one per address here; the link counts per seat instead
    for name in ("dora", "ed"):
        response = client.post(
            f"/api/invites/{secret}/signup",
            json={"name": name, "password": "correct horse", "buy_in": 50},
        )
        assert response.status_code == 201, response.text
        assert response.json()["player"] == name
        assert response.json()["request"]["kind"] == "seat"
    third = client.post(
        f"/api/invites/{secret}/signup",
        json={"name": "fay", "password": "correct horse", "buy_in": 50},
    )
    assert "one per seat" in _error(third, 409, "refused")
    weak = client.post(
        f"/api/invites/{secret}/signup", json={"name": "gus", "password": "x", "buy_in": 50}
    )
    _error(weak, 400, "invalid_field")
    dora = _sign_in(client, "dora")
    assert client.get("/api/games/g-1", headers=dora).json()["game"]["you"] == "pending"


def test_R_HOME_1_an_idle_game_ends_and_its_link_dies(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    alice, bob = _sign_in(client, "alice"), _sign_in(client, "bob")
    game = _create(client, alice)
    secret = game["invite"].removeprefix("/g/")
    client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=alice)
    _advance(client, room, clock, 3000, step=60)  # 50 minutes: not idle_hours (1) yet
    assert client.get("/api/games/g-1", headers=alice).json()["game"]["status"] == "open"
    _advance(client, room, clock, 900, step=60)
    ended = client.get("/api/games/g-1", headers=alice).json()["game"]
    assert ended["status"] == "ended"
    assert ended["ended"] is not None
    _error(client.get(f"/api/invites/{secret}"), 404, "not_found")
    assert room.runners.get("home-g-1") is None  # empty, its table left the room
    book = client.get("/api/games/g-1/ledger", headers=alice).json()
    assert book["players"] == [
        {"player": "alice", "buy_ins": 100, "added": 0, "cash_outs": 100, "at_table": 0, "net": 0}
    ]
    _error(client.get("/api/games/g-1", headers=bob), 404, "not_found")
    _audit_passes(storage)


def test_R_HOME_2_controls_and_news_over_the_websocket(storage: SqlStorage) -> None:
    runtime = room_for(storage, TABLE)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            alice, bob = await live.account("alice"), await live.account("bob")
            async with httpx.AsyncClient(base_url=live.http) as http:
                made = await http.post("/api/games", json=GAME, headers=_bearer(alice))
                assert made.status_code == 201, made.text
            async with live.client("alice", alice) as host, live.client("bob", bob) as guest:
                # bob sits at the home table: a pending seat request the host hears of
                sat = await guest.request(
                    {"type": "sit", "table": "home-g-1", "seat": 2, "buy_in": 80}
                )
                assert sat["type"] == "ok", sat
                assert sat["pending"] is True
                assert sat["request"]["kind"] == "seat"
                news = await host.wait_for(lambda m: m["type"] == "game")
                requests = news["game"]["requests"]
                assert [r["player"] for r in requests] == ["bob"]
                number = requests[0]["id"]
                admit = {"type": "game", "game": "g-1", "control": "admit", "request": number}
                refused = await guest.request({**admit, "admit": True})
                assert refused["code"] == "refused"
                unknown = await host.request({"type": "game", "game": "g-9", "control": "pause"})
                assert unknown["code"] == "not_found"
                ref = await host.send({**admit, "admit": True})
                reply = await host.wait_for(lambda m: m["type"] == "game" and m.get("ref") == ref)
                assert reply["game"]["requests"] == []
                answered = await guest.wait_for(lambda m: m["type"] == "game_request")
                assert answered["request"]["status"] == "admitted"
                assert runtime.runners["home-g-1"].table.seat_of("bob") == 2
                reduced = await guest.wait_for(lambda m: m["type"] == "game")
                assert "invite" not in reduced["game"]
                assert "requests" not in reduced["game"]
                line = await guest.wait_for(lambda m: m["type"] == "chat")
                assert line["player"] == "room"
                assert "admitted bob" in line["text"]
                # bob asks for a rebuy and withdraws it before the host answers
                asked = await guest.request(
                    {"type": "add_chips", "table": "home-g-1", "amount": 20}
                )
                assert asked["pending"] is True, asked
                number = asked["request"]["id"]
                withdraw = {"type": "game_request", "game": "g-1", "request": number}
                bad = await guest.request({**withdraw, "action": "keep"})
                assert bad["type"] == "error", bad
                theirs = await host.request({**withdraw, "action": "withdraw"})
                assert "no pending request" in theirs["message"], theirs
                ref = await guest.send({**withdraw, "action": "withdraw"})
                reply = await guest.wait_for(lambda m: m["type"] == "game" and m.get("ref") == ref)
                assert reply["game"]["you"] == "player"
                note = await guest.wait_for(
                    lambda m: m["type"] == "game_request" and m["request"]["id"] == number
                )
                assert note["request"]["status"] == "withdrawn"
                seen = await host.wait_for(
                    lambda m: m["type"] == "game" and m["game"]["log"][-1]["action"] == "withdraw"
                )
                assert seen["game"]["requests"] == []
            assert not live.tap.leaks

    asyncio.run(asyncio.wait_for(scenario(), 120))
    _audit_passes(storage)


def test_R_HOME_1_a_game_outlives_a_restart(
    client: TestClient,
    room: RoomRuntime,
    storage: SqlStorage,
    clock: Clock,
    fast_tmp: Path,
    settlement: Settlement,
    accounts: Accounts,
    cashier: Cashier,
) -> None:
    alice, bob = _sign_in(client, "alice"), _sign_in(client, "bob")
    game = _create(client, alice)
    secret = game["invite"].removeprefix("/g/")
    client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=alice)
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 90}, headers=bob)
    number = asked.json()["request"]["id"]
    assert client.portal is not None
    client.portal.call(room.stop)
    tables_file = fast_tmp / "tables.toml"
    tables_file.write_text(TABLE)
    again = RoomRuntime(
        settlement,
        accounts,
        cashier,
        room_tables(storage, tables_file),
        settings=room.settings,
        clock=clock,
    )
    with TestClient(create_app(again, drive=False)) as second:
        assert second.portal is not None
        second.portal.call(again.start)
        assert again.runners["home-g-1"].table.seat_of("alice") == 1
        assert [t["id"] for t in second.get("/api/lobby").json()["tables"]] == ["public"]
        seen = second.get("/api/games/g-1", headers=alice).json()["game"]
        assert seen["invite"] == game["invite"]
        assert [r["id"] for r in seen["requests"]] == [number]
        body = {"request": number, "admit": True}
        second.post("/api/games/g-1/admit", json=body, headers=alice)
        assert again.runners["home-g-1"].table.seat_of("bob") is not None
        second.portal.call(again.stop)
    client.portal.call(room.start)  # (the fixture stops it again)
    _audit_passes(storage)


def test_R_HOME_3_R_HOME_4_a_game_with_the_straddle_and_run_it_twice(
    client: TestClient, room: RoomRuntime, storage: SqlStorage
) -> None:
    """A host may turn on the straddle and run it twice when creating a game: the game and its
    invite say so and its table has both settings; the straddle at Fixed-Limit is refused and
    creates nothing."""
    alice = _sign_in(client, "alice")
    game = _create(client, alice, straddle=True, run_it_twice=True)
    assert (game["straddle"], game["run_it_twice"]) == (True, True)
    config = room.runners["home-g-1"].table.config
    assert (config.straddle, config.run_it_twice) == (True, True)
    secret = game["invite"].removeprefix("/g/")
    shown = client.get(f"/api/invites/{secret}").json()["game"]
    assert (shown["straddle"], shown["run_it_twice"]) == (True, True)
    refused = client.post(
        "/api/games", json={**GAME, "game": "FL", "straddle": True}, headers=alice
    )
    assert "straddle" in _error(refused, 409, "refused")
    _error(
        client.post("/api/games", json={**GAME, "straddle": 1}, headers=alice), 400, "invalid_field"
    )
    plain = _create(client, alice)
    assert (plain["straddle"], plain["run_it_twice"]) == (False, False)
    assert [g["id"] for g in client.get("/api/games", headers=alice).json()["games"]] == [
        "g-2",
        "g-1",
    ]
    _audit_passes(storage)


def test_R_HOME_2_the_host_role_passes_after_a_restart_as_without_it(
    client: TestClient,
    room: RoomRuntime,
    storage: SqlStorage,
    clock: Clock,
    fast_tmp: Path,
    settlement: Settlement,
    accounts: Accounts,
    cashier: Cashier,
) -> None:
    """Who sits since when is stored with the game: after a restart the host leaving passes
    the role to the longest-seated player (no co-host), not to the earliest admitted."""
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    _create(client, alice, admission=False, auto_buy_in=True)
    secret = client.get("/api/games/g-1", headers=alice).json()["game"]["invite"][3:]
    for who in (alice, bob, carol):
        joined = client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=who)
        assert "seat" in joined.json(), joined.text
    runner = room.runners["home-g-1"]
    # bob (admitted before carol) leaves and sits again: carol has sat longer now
    assert client.portal is not None
    client.portal.call(room.leave, "home-g-1", "bob")
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.seat_of("bob") is None)
    _advance(client, room, clock, 5)
    again = client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=bob)
    assert "seat" in again.json(), again.text
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.in_hand)
    client.portal.call(room.stop)
    tables_file = fast_tmp / "tables.toml"
    tables_file.write_text(TABLE)
    restarted = RoomRuntime(
        settlement,
        accounts,
        cashier,
        room_tables(storage, tables_file),
        settings=room.settings,
        clock=clock,
    )
    with TestClient(create_app(restarted, drive=False)) as second:
        assert second.portal is not None
        second.portal.call(restarted.start)
        table = restarted.runners["home-g-1"].table
        assert {table.seats[s].account for s in table.seats} == {"alice", "bob", "carol"}
        second.portal.call(restarted.leave, "home-g-1", "alice")
        _play(second, restarted, clock, "home-g-1", {}, lambda: table.seat_of("alice") is None)
        game = second.get("/api/games/g-1", headers=carol).json()["game"]
        assert game["host"] == "carol"
        assert game["you"] == "host"
        assert any("carol is the host now" in e["line"] for e in game["log"])
        assert second.get("/api/games/g-1", headers=alice).json()["game"]["you"] == "player"
        second.portal.call(restarted.stop)
    client.portal.call(room.start)  # (the fixture stops it again)
    _audit_passes(storage)


def test_R_HOME_2_a_player_withdraws_their_own_requests(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    game = _create(client, alice)
    secret = game["invite"].removeprefix("/g/")
    client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=alice)
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 80}, headers=bob)
    number = asked.json()["request"]["id"]
    # nobody else may withdraw it (the host refuses instead); a wrong number changes nothing
    for who, body in ((alice, {"request": number}), (bob, {"request": number + 7})):
        wrong = client.post("/api/games/g-1/withdraw", json=body, headers=who)
        assert "no pending request" in _error(wrong, 409, "refused")
    _error(client.post("/api/games/g-1/withdraw", json={}, headers=bob), 400, "invalid_field")
    _error(
        client.post("/api/games/g-1/withdraw", json={"request": number}, headers=carol),
        404,
        "not_found",
    )
    pending = client.get("/api/games/g-1", headers=alice).json()["game"]["requests"]
    assert [r["id"] for r in pending] == [number]
    withdrawn = client.post("/api/games/g-1/withdraw", json={"request": number}, headers=bob)
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json()["game"]["you"] is None
    host_view = client.get("/api/games/g-1", headers=alice).json()["game"]
    assert host_view["requests"] == []
    assert host_view["log"][-1]["action"] == "withdraw"
    assert host_view["log"][-1]["line"] == "bob withdrew their request for a seat"
    admit = {"request": number, "admit": True}
    _error(client.post("/api/games/g-1/admit", json=admit, headers=alice), 409, "refused")
    assert room.runners["home-g-1"].table.seat_of("bob") is None
    # bob may ask again; admitted, his rebuy request is withdrawn too (no chips issued)
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 80}, headers=bob)
    number = asked.json()["request"]["id"]
    client.post("/api/games/g-1/admit", json={"request": number, "admit": True}, headers=alice)
    runner = room.runners["home-g-1"]
    _play(client, room, clock, "home-g-1", {}, lambda: runner.table.in_hand)
    assert client.portal is not None
    rebuy = client.portal.call(room.home.rebuy, "home-g-1", "bob", 20)
    assert rebuy is not None
    after = client.post("/api/games/g-1/withdraw", json={"request": rebuy["id"]}, headers=bob)
    assert after.json()["game"]["you"] == "player"
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.in_hand)
    book = client.get("/api/games/g-1/ledger", headers=bob).json()
    rows = {r["player"]: r for r in book["players"]}
    assert (rows["bob"]["buy_ins"], rows["bob"]["added"]) == (80, 0)
    assert book["totals"]["net"] == 0
    seen = client.get("/api/games/g-1", headers=alice).json()["game"]
    assert "bob withdrew their rebuy of 20" in [entry["line"] for entry in seen["log"]]
    _audit_passes(storage)


def _allow(room: RoomRuntime, *codes: str) -> None:
    """The operator's ``[home] currencies`` (wallet currencies a host may choose)."""
    room.home.settings = replace(room.home.settings, currencies=codes)


def _wallet(client: TestClient, who: dict[str, str], code: str) -> str:
    balances: dict[str, str] = client.get("/api/balance", headers=who).json()["balances"]
    return balances.get(code, "0")


def test_R_HOME_1_R_HOME_5_a_game_in_a_wallet_currency_with_the_rake_in_its_ledger(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock
) -> None:
    """Where the operator allows a wallet currency, a game in it is a cash table of that
    currency: the wallet pays each buy-in and rebuy the host approves and gets the cash-outs
    back, no chip is issued, the room's buy-in bounds and rake hold, and the ledger's rake
    column (each hand's rake by contribution) and nets add up to zero with the books'."""
    alice, bob, carol = (_sign_in(client, n) for n in ("alice", "bob", "carol"))
    refused = client.post("/api/games", json={**GAME, "currency": "PLAY"}, headers=alice)
    assert "offers no wallet currency" in _error(refused, 409, "refused")
    _allow(room, "PLAY")
    assert client.get("/api/games", headers=alice).json()["currencies"] == ["PLAY"]
    refused = client.post("/api/games", json={**GAME, "currency": "USD"}, headers=alice)
    message = _error(refused, 409, "refused")
    assert "own chips" in message
    assert "PLAY" in message
    for bad in ({"min_buy_in": 30}, {"max_buy_in": 300}):
        refused = client.post("/api/games", json={**GAME, "currency": "PLAY", **bad}, headers=alice)
        assert "R-BUYIN-1" in _error(refused, 409, "refused")
    assert client.get("/api/games", headers=alice).json()["games"] == []
    game = _create(client, alice, currency="play")
    assert game["currency"] == "PLAY"
    assert game["rake"] == {"percent": 5, "cap": 12, "no_flop_no_drop": False}
    runner = room.runners["home-g-1"]
    assert (runner.spec.currency, runner.table.config.rake_percent) == ("PLAY", 5)
    assert runner.table.config.rake_cap_amount == 12
    secret = game["invite"].removeprefix("/g/")
    assert client.get(f"/api/invites/{secret}").json()["game"]["currency"] == "PLAY"
    # the host sits at once, paying from the wallet; bob's seat waits for the host
    client.post(f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=alice)
    assert _wallet(client, alice, "PLAY") == "900"
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 150}, headers=bob)
    request = asked.json()["request"]
    assert _wallet(client, bob, "PLAY") == "1000"
    client.post(
        "/api/games/g-1/admit", json={"request": request["id"], "admit": True}, headers=alice
    )
    assert _wallet(client, bob, "PLAY") == "850"
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 200}, headers=carol)
    client.post(
        "/api/games/g-1/admit",
        json={"request": asked.json()["request"]["id"], "admit": True},
        headers=alice,
    )
    # the host's changes stay within the room's buy-in bounds
    lowered = client.post("/api/games/g-1/settings", json={"min_buy_in": 20}, headers=alice)
    assert "R-BUYIN-1" in _error(lowered, 409, "refused")
    # all-in pots pay the rake; a busted player's rebuy comes from the wallet once approved
    _play(
        client,
        room,
        clock,
        "home-g-1",
        {"carol": _shove, "bob": _shove},
        lambda: any(p.stack == 0 for p in runner.table.seats.values()) and not runner.table.in_hand,
    )
    busted = next(p.account for p in runner.table.seats.values() if p.stack == 0)
    who = {"alice": alice, "bob": bob, "carol": carol}[busted]
    before = int(_wallet(client, who, "PLAY"))
    assert client.portal is not None
    rebuy = client.portal.call(room.home.rebuy, "home-g-1", busted, 100)
    if rebuy is not None:  # (the host's own rebuy needs no approval)
        body = {"request": rebuy["id"], "approve": True}
        client.post("/api/games/g-1/approve", json=body, headers=alice)
    assert int(_wallet(client, who, "PLAY")) == before - 100
    book = client.get("/api/games/g-1/ledger", headers=bob).json()
    assert book["currency"] == "PLAY"
    rows = {r["player"]: r for r in book["players"]}
    assert rows[busted]["added"] == 100
    assert book["totals"]["rake"] > 0
    assert sum(r["rake"] for r in rows.values()) == book["totals"]["rake"]
    assert book["totals"]["net"] + book["totals"]["rake"] == 0
    # ended: everyone cashes out to the wallet; the ledger equals the wallets' and the house's
    client.post("/api/games/g-1/end", headers=alice)
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.seats)
    book = client.get("/api/games/g-1/ledger", headers=alice).json()
    rows = {r["player"]: r for r in book["players"]}
    assert set(rows) == {"alice", "bob", "carol"}
    for name, row in rows.items():
        assert row["at_table"] == 0
        assert row["net"] == row["cash_outs"] - row["buy_ins"] - row["added"]
        assert int(_wallet(client, {"alice": alice, "bob": bob, "carol": carol}[name], "PLAY")) == (
            1000 + row["net"]
        )
    assert book["totals"]["net"] + book["totals"]["rake"] == 0
    assert sum(r["rake"] for r in rows.values()) == book["totals"]["rake"]
    with storage.transaction(write=False) as tx:
        house = sum(a.balance for a in tx.all_accounts() if a.key.startswith("house:PLAY"))
        assert tx.get_account("external:g-1") is None  # no chip issued
    assert house == book["totals"]["rake"]
    text = client.get("/api/games/g-1/ledger?format=csv", headers=alice).text
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == ["player", "buy_ins", "added", "cash_outs", "at_table", "rake", "net"]
    _audit_passes(storage)


def test_R_HOME_1_R_HOME_5_a_game_in_a_real_currency_keeps_real_money_rules(
    client: TestClient, room: RoomRuntime, storage: SqlStorage, clock: Clock, cashier: Cashier
) -> None:
    """A game in USD (where the operator allows it): amounts in cents, an unverified account
    is refused before any request, the wallets pay and are paid, the rake goes to the house,
    and the ledger's nets plus its rake add up to zero."""
    alice, bob = _sign_in(client, "alice"), _sign_in(client, "bob")
    _allow(room, "USD")
    for name in ("alice", "bob"):
        cashier.deposit(name, "USD", "5.00", f"deposit-{name}")
    with storage.transaction() as tx:
        tx.set_verified("alice", True)
    game = _create(client, alice, currency="USD")
    assert (game["currency"], game["rake"]["cap"]) == ("USD", 12)
    assert room.runners["home-g-1"].table.config.money == "real"
    secret = game["invite"].removeprefix("/g/")
    client.post(f"/api/invites/{secret}/join", json={"buy_in": 200}, headers=alice)
    unverified = client.post(f"/api/invites/{secret}/join", json={"buy_in": 150}, headers=bob)
    assert "not verified" in _error(unverified, 409, "refused")
    assert client.get("/api/games/g-1", headers=alice).json()["game"]["requests"] == []
    with storage.transaction() as tx:
        tx.set_verified("bob", True)
    asked = client.post(f"/api/invites/{secret}/join", json={"buy_in": 200}, headers=bob)
    number = asked.json()["request"]["id"]
    client.post("/api/games/g-1/admit", json={"request": number, "admit": True}, headers=alice)
    assert _wallet(client, bob, "USD") == "3.00"
    runner = room.runners["home-g-1"]
    _play(
        client,
        room,
        clock,
        "home-g-1",
        {"alice": _shove, "bob": _shove},
        lambda: runner.table.hand_number >= 1 and not runner.table.in_hand,
    )
    client.post("/api/games/g-1/end", headers=alice)
    _play(client, room, clock, "home-g-1", {}, lambda: not runner.table.seats)
    book = client.get("/api/games/g-1/ledger", headers=bob).json()
    rows = {r["player"]: r for r in book["players"]}
    assert book["totals"]["rake"] == 12  # 5% of a pot of 400 cents is 20: capped at 12
    assert sum(r["rake"] for r in rows.values()) == 12
    assert book["totals"]["net"] + book["totals"]["rake"] == 0
    with storage.transaction(write=False) as tx:
        for name, row in rows.items():
            wallet = tx.get_account(player_wallet_key(tx, name, "USD"))
            assert wallet is not None
            assert wallet.balance == 500 + row["net"]
    _audit_passes(storage)


def test_R_HOME_5_each_hands_rake_is_shared_by_contribution() -> None:
    """The ledger's rake per player: each hand's rake in proportion to the contributions, the
    odd units to the largest remainders (the lower seat first), every unit given out."""
    from feltroom.room.runtime.home_games import _rake_shares

    hands = [
        (1, 7, 11, 1, 100),
        (1, 7, 12, 2, 100),
        (1, 7, 13, 3, 50),
        (2, 3, 12, 2, 40),
        (2, 3, 13, 3, 40),
        (2, 3, 11, 4, 0),  # folded without paying: no share
    ]
    assert _rake_shares(hands) == {"#11": 3, "#12": 3 + 2, "#13": 1 + 1}
    assert sum(_rake_shares(hands).values()) == 7 + 3

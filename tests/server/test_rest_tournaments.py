"""The tournament calls of the HTTP API: the list, registering and unregistering (the wallet
pays buy-in and fee, refunded before the start), and bad input refused, changing nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.audit import audit
from feltroom.room.operator import run_cancel_tournament
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage

from .test_rest import PASSWORD, TABLE, _error, _sign_in

SNG = """
[[tournament]]
id = "sng"
format = "sng"
seats_per_table = 6
max_entries = 6
buy_in = 1000
fee = 100
"""


@pytest.fixture
def client(
    settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock
) -> Iterator[TestClient]:
    room = RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLE),
        tournaments=parse_tournaments(SNG),
        settings=RuntimeSettings(house_bots=0, selftest_first=10**9),
        clock=clock,
    )
    app = create_app(room, drive=False, limits=RestLimits(clock=clock, signups=10))
    with TestClient(app) as test_client:
        test_client.portal.call(room.start)  # type: ignore[union-attr]
        try:
            yield test_client
        finally:
            test_client.portal.call(room.stop)  # type: ignore[union-attr]


def test_a_player_registers_and_unregisters_for_a_sit_and_go(client: TestClient) -> None:
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert [(t["id"], t["state"], t["entries"]) for t in listed] == [("sng-1", "registering", 0)]
    assert client.post("/api/signup", json={"name": "ann", "password": PASSWORD}).status_code == 201
    headers = _sign_in(client, "ann")
    broke = client.post("/api/tournaments/sng-1/register", headers=headers)
    assert "the entry costs 1000 + 100 fee" in _error(broke, 409, "refused")
    assert broke.json()["error"]["details"] == {"balance": 0, "amount": 1100}
    assert client.post("/api/grant", headers=headers).status_code == 200
    before = client.get("/api/balance", headers=headers).json()["balances"]["PLAY"]
    entered = client.post("/api/tournaments/sng-1/register", headers=headers)
    assert entered.status_code == 200, entered.text
    assert entered.json() == {
        "tournament": "sng-1",
        "account": "ann",
        "entry": 1,
        "state": "registering",
        "table": None,
        "seat": None,
    }
    paid = client.get("/api/balance", headers=headers).json()["balances"]["PLAY"]
    assert int(before) - int(paid) == 1100
    twice = client.post("/api/tournaments/sng-1/register", headers=headers)
    assert "ann already has entry 1" in _error(twice, 409, "refused")
    lobby = client.get("/api/tournaments").json()["tournaments"][0]
    assert (lobby["entries"], lobby["registered"]) == (1, ["ann"])
    left = client.post("/api/tournaments/sng-1/unregister", headers=headers)
    assert left.json() == {"tournament": "sng-1", "account": "ann", "refunded": 1100}
    assert client.get("/api/balance", headers=headers).json()["balances"]["PLAY"] == before
    again = client.post("/api/tournaments/sng-1/unregister", headers=headers)
    assert "ann is not registered" in _error(again, 409, "refused")
    unknown = client.post("/api/tournaments/nope/register", headers=headers)
    assert "no tournament 'nope'; tournaments are sng-1" in _error(unknown, 404, "not_found")
    anonymous = client.post("/api/tournaments/sng-1/register")
    _error(anonymous, 401, "unauthenticated")


def _players(client: TestClient, names: list[str]) -> dict[str, dict[str, str]]:
    """Signs each name up, signs in and takes the play-money grant; their headers."""
    headers = {}
    for name in names:
        assert (
            client.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 201
        )
        headers[name] = _sign_in(client, name)
        assert client.post("/api/grant", headers=headers[name]).status_code == 200
    return headers


def test_one_tournament_whole_and_delete_register(client: TestClient) -> None:
    names = ["ann", "bob", "cid", "dee", "eve", "fay"]
    headers = _players(client, names)
    for name in names[:5]:
        assert (
            client.post("/api/tournaments/sng-1/register", headers=headers[name]).status_code == 200
        )
    balance = client.get("/api/balance", headers=headers["eve"]).json()["balances"]["PLAY"]
    left = client.delete("/api/tournaments/sng-1/register", headers=headers["eve"])
    assert left.json() == {"tournament": "sng-1", "account": "eve", "refunded": 1100}
    assert int(client.get("/api/balance", headers=headers["eve"]).json()["balances"]["PLAY"]) == (
        int(balance) + 1100
    )
    before = client.get("/api/tournaments/sng-1").json()
    assert (before["state"], before["entries"], before["players_left"]) == ("registering", 4, 0)
    assert before["payouts"] == [{"place": 1, "prize": 4000}]
    assert not before["payouts_final"]
    assert [p["account"] for p in before["players"]] == ["ann", "bob", "cid", "dee"]
    assert {p["status"] for p in before["players"]} == {"registered"}
    structure = before["structure"]
    assert (structure["schedule"], structure["level_minutes"], structure["breaks"]) == (
        "turbo",
        5,
        None,
    )
    assert structure["levels"][:4] == [
        {"level": 1, "blinds": [10, 20, 0]},
        {"level": 2, "blinds": [15, 30, 0]},
        {"level": 3, "blinds": [25, 50, 0]},
        {"level": 4, "blinds": [50, 100, 100]},
    ]
    for name in ("eve", "fay"):
        assert (
            client.post("/api/tournaments/sng-1/register", headers=headers[name]).status_code == 200
        )
    now = client.get("/api/tournaments/sng-1").json()
    assert now["state"] == "running"
    assert (now["level"], now["blinds"], now["next_blinds"]) == (1, [10, 20, 0], [15, 30, 0])
    assert now["next_level_in"] == 300.0
    assert (now["players_left"], now["average_stack"], now["places_paid"]) == (6, 1500, 2)
    assert (now["on_break"], now["break_ends_in"], now["hand_for_hand"]) == (False, None, False)
    assert now["payouts"] == [{"place": 1, "prize": 3900}, {"place": 2, "prize": 2100}]
    assert now["payouts_final"] is True
    assert len(now["tables"]) == 1
    assert len(now["tables"][0]["players"]) == 6
    assert sorted(p["account"] for p in now["players"]) == names
    for player in now["players"]:
        assert (player["status"], player["chips"], player["rank"]) == ("playing", 1500, 1)
        assert player["table"] == 1
        assert player["seat"] is not None
        assert (player["place"], player["prize"]) == (None, 0)
    # once it runs, an entry stays: refused, nothing changed
    balance = client.get("/api/balance", headers=headers["ann"]).json()["balances"]["PLAY"]
    late = client.delete("/api/tournaments/sng-1/register", headers=headers["ann"])
    _error(late, 409, "refused")
    assert client.get("/api/balance", headers=headers["ann"]).json()["balances"]["PLAY"] == balance
    assert client.get("/api/tournaments/sng-1").json()["entries"] == 6
    lobby = client.get("/api/lobby").json()
    assert [t["id"] for t in lobby["tournaments"]] == ["sng-1", "sng-2"]
    assert lobby["tournaments"][0]["chips"][0]["rank"] == 1
    missing = client.get("/api/tournaments/nope")
    assert "no tournament 'nope'; tournaments are sng-1, sng-2" in _error(missing, 404, "not_found")


MTT = """
[[tournament]]
id = "mt"
format = "mtt"
buy_in = 1000
fee = 100
level_minutes = 10
late_registration_levels = 1
start = "1970-01-12T14:00"
"""
MTT_START = 1_000_800.0  # 1970-01-12T14:00 UTC; the clock starts 800 seconds before


@pytest.fixture
def both_client(
    settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock
) -> Iterator[tuple[TestClient, RoomRuntime]]:
    """A room with the sit-and-go and a scheduled tournament with one level of late
    registration; the test drives it with ``room.advance``."""
    room = RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLE),
        tournaments=parse_tournaments(SNG + MTT),
        settings=RuntimeSettings(house_bots=0, selftest_first=10**9),
        clock=clock,
    )
    app = create_app(room, drive=False, limits=RestLimits(clock=clock, signups=10))
    with TestClient(app) as test_client:
        test_client.portal.call(room.start)  # type: ignore[union-attr]
        try:
            yield test_client, room
        finally:
            test_client.portal.call(room.stop)  # type: ignore[union-attr]


def test_R_TOURN_3_registering_once_registration_is_closed_is_refused_naming_what_is_open(
    both_client: tuple[TestClient, RoomRuntime], clock: Clock, storage: SqlStorage
) -> None:
    """R-TOURN-2, R-TOURN-3 (issue 19): a new entry is taken before the start and during late
    registration only. Once late registration is over, once a sit-and-go has started (it takes
    no late entries) and once a tournament is finished, ``POST /api/tournaments/{id}/register``
    is refused with 409 ``refused`` saying why and naming the instances open for registration;
    the player's wallet, the entries and the prize pool are unchanged."""
    client, room = both_client

    def advance(to: float) -> None:
        clock.now = to
        client.portal.call(room.advance, to)  # type: ignore[union-attr]

    def balance(name: str) -> str:
        answer = client.get("/api/balance", headers=headers[name]).json()
        return str(answer["balances"]["PLAY"])

    def books(tournament_id: str) -> tuple[Any, ...]:
        one = client.get(f"/api/tournaments/{tournament_id}").json()
        return one["state"], one["entries"], one["registered"], one["prize_pool"]

    advance(clock.now + 1.0)
    mtt = "mt-19700112T1400"
    assert [t["id"] for t in client.get("/api/tournaments").json()["tournaments"]] == [
        "sng-1",
        mtt,
    ]
    headers = _players(client, ["ann", "bob", "cid", "dee", "eve", "fay", "gus"])
    for name in ("ann", "bob"):
        answer = client.post(f"/api/tournaments/{mtt}/register", headers=headers[name])
        assert answer.status_code == 200, answer.text
    advance(MTT_START)
    assert books(mtt)[0] == "late_registration"
    late = client.post(f"/api/tournaments/{mtt}/register", headers=headers["cid"])
    assert late.status_code == 200, late.text
    assert late.json()["table"] is not None  # a late entry is seated at once
    advance(MTT_START + 10 * 60 + 1)  # level 1 is over: so is late registration
    before = books(mtt)
    assert before[0] == "running"
    assert before[1:3] == (3, ["ann", "bob", "cid"])
    wallet = balance("dee")
    refused = client.post(f"/api/tournaments/{mtt}/register", headers=headers["dee"])
    assert _error(refused, 409, "refused") == (
        f"registration for {mtt} is closed (late registration ended with level 1); "
        "tournaments open for registration: sng-1"
    )
    assert balance("dee") == wallet
    assert books(mtt) == before

    # a sit-and-go starts full and takes no late entry
    for name in ("ann", "bob", "cid", "dee", "eve", "fay"):
        answer = client.post("/api/tournaments/sng-1/register", headers=headers[name])
        assert answer.status_code == 200, answer.text
    advance(clock.now + 31.0)  # the next instance opens
    before = books("sng-1")
    assert before[:2] == ("running", 6)
    assert before[3] == 6000
    wallet = balance("gus")
    refused = client.post("/api/tournaments/sng-1/register", headers=headers["gus"])
    assert _error(refused, 409, "refused") == (
        "registration for sng-1 is closed (it has started and takes no late entries); "
        "tournaments open for registration: sng-2"
    )
    assert balance("gus") == wallet
    assert books("sng-1") == before

    # a finished tournament (here cancelled by the operator, R-TOURN-13)
    code, _ = run_cancel_tournament(storage, "sng-1", clock)
    assert code == 0
    advance(clock.now + 31.0)  # the room sees it at its next heartbeat
    before = books("sng-1")
    assert before[0] == "cancelled"
    refused = client.post("/api/tournaments/sng-1/register", headers=headers["gus"])
    assert _error(refused, 409, "refused") == (
        "registration for sng-1 is closed (it is cancelled); tournaments open for "
        "registration: sng-2"
    )
    assert balance("gus") == wallet
    assert books("sng-1") == before
    assert audit(storage, shuffles=0)["problems"] == []

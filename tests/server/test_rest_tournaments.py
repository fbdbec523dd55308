"""The tournament calls of the HTTP API: the list, registering and unregistering (the wallet
pays buy-in and fee, refunded before the start), and bad input refused, changing nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.server import create_app
from feltroom.server.rest import RestLimits

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
    app = create_app(room, drive=False, limits=RestLimits(clock=clock))
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

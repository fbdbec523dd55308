"""Statistics over HTTP (issue 21): ``GET /api/me/stats``, ``GET /api/players/{name}/stats``
for players who share them, the player's own settings (``/api/me/settings``, default off) and
the tables a findable player sits at; the figures are those counted by hand on fixed hands."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.operators import Operators
from feltroom.room.runtime import RoomRuntime
from feltroom.room.tables_config import parse_tables
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage
from integrity.stats_scenes import EXPECTED, stats_hands, store_hands

from .test_rest import TABLE, _error, _sign_in

FIGURES = ("hands", "vpip", "pfr", "af", "wtsd", "counts")


@pytest.fixture
def client(
    settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock
) -> Iterator[TestClient]:
    room = RoomRuntime(settlement, accounts, cashier, parse_tables(TABLE), clock=clock)
    with TestClient(create_app(room, drive=False, limits=RestLimits(clock=clock))) as test_client:
        yield test_client


@pytest.fixture
def stored(storage: SqlStorage, players: tuple[str, ...]) -> list[int]:
    return store_hands(storage, stats_hands())


def test_settings_are_off_until_the_player_turns_them_on(
    client: TestClient, players: tuple[str, ...]
) -> None:
    alice = _sign_in(client, "alice")
    assert client.get("/api/me/settings", headers=alice).json() == {
        "player": "alice",
        "share_stats": False,
        "findable": False,
    }
    answer = client.put("/api/me/settings", headers=alice, json={"share_stats": True})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"player": "alice", "share_stats": True, "findable": False}
    answer = client.put("/api/me/settings", headers=alice, json={"findable": True})
    assert answer.json() == {"player": "alice", "share_stats": True, "findable": True}
    assert client.get("/api/me/settings", headers=alice).json()["share_stats"] is True


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "at least one setting"),
        ({"share": True}, "unknown setting 'share'"),
        ({"share_stats": "yes"}, "true or false, not a JSON string"),
        ({"share_stats": 1}, "true or false, not a JSON number"),
    ],
)
def test_bad_settings_are_refused_and_change_nothing(
    client: TestClient, players: tuple[str, ...], body: dict[str, object], says: str
) -> None:
    alice = _sign_in(client, "alice")
    assert says in _error(
        client.put("/api/me/settings", headers=alice, json=body), 400, "invalid_field"
    )
    assert client.get("/api/me/settings", headers=alice).json()["share_stats"] is False


def test_a_players_stats_only_when_they_share_them(client: TestClient, stored: list[int]) -> None:
    bob = _sign_in(client, "bob")
    message = _error(client.get("/api/players/alice/stats", headers=bob), 403, "refused")
    assert "alice does not share" in message
    _error(client.get("/api/players/nobody/stats", headers=bob), 404, "not_found")
    _error(client.get("/api/players/alice/stats"), 401, "unauthenticated")
    client.put("/api/me/settings", headers=_sign_in(client, "alice"), json={"share_stats": True})
    answer = client.get("/api/players/ALICE/stats", headers=bob)
    assert answer.status_code == 200, answer.text
    figures = answer.json()
    assert figures["player"] == "alice"
    assert {key: figures[key] for key in FIGURES} == EXPECTED["alice"]
    assert "results" not in figures  # a player's results are their own
    assert figures["limited"] is False
    assert figures["unreadable"] == []


@pytest.mark.parametrize("player", sorted(EXPECTED))
def test_my_stats_are_the_hand_counted_figures_and_my_results(
    client: TestClient, stored: list[int], player: str
) -> None:
    figures = client.get("/api/me/stats", headers=_sign_in(client, player)).json()
    assert {key: figures[key] for key in FIGURES} == EXPECTED[player]
    net = sum(
        s.payout - s.contribution for h in stats_hands() for s in h.seats if s.account == player
    )
    won = sum(
        s.payout > s.contribution for h in stats_hands() for s in h.seats if s.account == player
    )
    assert figures["results"] == [
        {
            "currency": "PLAY",
            "exponent": 0,
            "hands": 3,
            "won": won,
            "net_units": net,
            "net": str(net),
        }
    ]
    assert figures["session"]["hands"] == 0  # every stored hand was played before this sign-in
    assert figures["session"]["since"] is not None


def test_stats_over_a_period(client: TestClient, stored: list[int]) -> None:
    alice = _sign_in(client, "alice")
    # the hands started at 60, 120 and 180 s past the epoch: the period holds the third only
    since = client.get("/api/me/stats?since=1970-01-01T00:02:30Z", headers=alice).json()
    assert since["hands"] == 1
    assert since["since"] == "1970-01-01T00:02:30Z"
    assert since["counts"]["raises"] == 1
    until = client.get("/api/me/stats?until=1970-01-01T00:02:30", headers=alice).json()
    assert until["hands"] == 2
    assert until["counts"]["showdowns"] == 1
    message = _error(
        client.get("/api/me/stats?since=1970-01-02&until=1970-01-01", headers=alice),
        400,
        "invalid_field",
    )
    assert "since must be earlier" in message
    assert "ISO 8601" in _error(
        client.get("/api/me/stats?since=yesterday", headers=alice), 400, "invalid_field"
    )
    assert "unknown query parameter" in _error(
        client.get("/api/me/stats?player=bob", headers=alice), 400, "invalid_field"
    )


def test_my_tables_and_a_findable_players_tables(
    client: TestClient, players: tuple[str, ...]
) -> None:
    alice = _sign_in(client, "alice")
    bob = _sign_in(client, "bob")
    assert client.get("/api/me/tables", headers=alice).json() == {
        "player": "alice",
        "seats": [],
        "waiting": [],
    }
    _error(client.get("/api/players/alice/tables", headers=bob), 403, "refused")
    client.put("/api/me/settings", headers=alice, json={"findable": True})
    assert client.get("/api/players/alice/tables", headers=bob).json() == {
        "player": "alice",
        "tables": [],
    }


def test_the_hand_list_has_a_summary_line_per_hand(client: TestClient, stored: list[int]) -> None:
    answer = client.get("/api/hands", headers=_sign_in(client, "bob")).json()
    assert answer["hands"] == list(reversed(stored))
    expected = [
        {
            "hand_id": hand_id,
            "table_id": "t1",
            "currency": "PLAY",
            "started_at": hand.started_at,
            "seat": seat.seat,
            "hole": seat.hole,
            "net": seat.payout - seat.contribution,
        }
        for hand_id, hand in zip(stored, stats_hands(), strict=True)
        for seat in hand.seats
        if seat.account == "bob"
    ]
    assert answer["summaries"] == list(reversed(expected))


def test_a_renamed_player_keeps_their_figures_hands_and_the_names_played_under(
    client: TestClient, stored: list[int], accounts: Accounts
) -> None:
    Operators(accounts).rename("alice", "alicia", "op", "asked by the player")
    alicia = _sign_in(client, "alicia")
    figures = client.get("/api/me/stats", headers=alicia).json()
    assert {key: figures[key] for key in FIGURES} == EXPECTED["alice"]
    assert figures["results"][0]["hands"] == 3
    answer = client.get("/api/hands", headers=alicia).json()
    assert answer["hands"] == list(reversed(stored))
    view = client.get(f"/api/hands/{stored[0]}", headers=alicia).json()
    assert "alice" in {p["player"] for p in view["players"]}  # the name the hand was played under
    assert "alicia" not in {p["player"] for p in view["players"]}
    text = client.get(f"/api/hands/{stored[0]}.txt", headers=alicia)
    assert text.status_code == 200, text.text
    assert "Dealt to alice " in text.text  # the hero is the name the account had then

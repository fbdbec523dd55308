"""Issue 40, item 4: every query value the HTTP API takes is a 400 naming the field when it
cannot be used (a time outside years 1 to 9999 in UTC once its offset is applied, a number out
of range, a value not among the choices, a name that is no account's, a parameter given twice,
an unknown parameter); none is a 500."""

from __future__ import annotations

from starlette.testclient import TestClient

from feltroom.room import Accounts
from feltroom.room.operators import Operators
from feltroom.store import SqlStorage

from . import test_player_stats
from .test_rest import _error, _sign_in
from .test_ws import _audit_passes

YEAR_0 = "0001-01-01T00:00:00%2B14:00"  # 31 December of year 0 in UTC
YEAR_10000 = "9999-12-31T23:59:59-14:00"  # 1 January of year 10000 in UTC

client = test_player_stats.client  # the same room and client

CASES = [
    ("/api/me/stats", "since", YEAR_0),
    ("/api/me/stats", "until", YEAR_10000),
    ("/api/me/stats", "since", "2026-13-01"),
    ("/api/me/stats", "since", "2026-01-01&since=2026-01-02"),
    ("/api/players/bob/stats", "since", YEAR_0),
    ("/api/players/bob/stats", "until", YEAR_10000),
    ("/api/hands/export", "since", YEAR_0),
    ("/api/hands/export", "until", YEAR_10000),
    ("/api/hands/export", "format", "xml"),
    ("/api/hands/export", "format", "phh&format=ohh"),
    ("/api/hands/export", "limit", "0"),
    ("/api/hands/export", "limit", "99999999999999999999999"),
    ("/api/hands", "limit", "-1"),
    ("/api/hands", "limit", "\u00b2"),
    ("/api/hands", "before", "0"),
    ("/api/hands", "before", "1&before=2"),
    ("/api/hands/1", "format", "xml"),
    ("/api/hands/1", "format", "json&format=phh"),
    ("/api/operator/log", "since", YEAR_0),
    ("/api/operator/log", "limit", "10001"),
    ("/api/operator/integrity", "since", YEAR_10000),
    ("/api/operator/integrity", "account", "no%20such%20name"),
    ("/api/operator/integrity", "account", ""),
    ("/api/operator/protection", "account", "x" * 40),
    ("/api/operator/protection", "account", "a&account=b"),
    ("/api/me/stats", "nonsense", "1"),
]


def test_every_unusable_query_value_is_a_400_naming_the_field(
    client: TestClient, accounts: Accounts, players: tuple[str, ...], storage: SqlStorage
) -> None:
    Operators(accounts).grant("alice", "", "root", "test operator")
    alice = _sign_in(client, "alice")
    bob = _sign_in(client, "bob")
    assert client.put("/api/me/settings", headers=bob, json={"share_stats": True}).status_code
    for path, field, value in CASES:
        other = "format=phh&" if path.endswith("export") and field != "format" else ""
        response = client.get(f"{path}?{other}{field}={value}", headers=alice)
        _error(response, 400, "invalid_field")
        details = response.json()["error"]["details"]
        assert details.get("field") == field, (path, field, value, response.text)
    # the values that can be used still answer
    for path in (
        "/api/me/stats?since=0001-01-02T00:00:00-01:00&until=9999-12-29T23:59:59%2B01:00",
        "/api/players/bob/stats?since=2026-01-01T00:00:00Z",
        "/api/hands/export?format=phh&limit=5",
        "/api/operator/log?since=2020-01-01&limit=5",
        "/api/operator/integrity?account=bob",
        "/api/operator/protection?account=bob",
    ):
        response = client.get(path, headers=alice)
        assert response.status_code == 200, (path, response.text)
    _audit_passes(storage)

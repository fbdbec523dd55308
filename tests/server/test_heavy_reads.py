"""Issue 40, item 5: statistics and exports are limited per account (429 with ``Retry-After``
beyond ``heavy_reads`` in ``heavy_window``) and cheap to repeat (the same statistics within
``read_cache_seconds`` come from a cache and do not count); another account is not held up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.player_stats import PlayerStatistics
from feltroom.room.runtime import RoomRuntime
from feltroom.room.tables_config import parse_tables
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage
from integrity.stats_scenes import stats_hands, store_hands

from .test_rest import TABLE, _error, _sign_in
from .test_ws import _audit_passes


@pytest.fixture
def client(
    settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock
) -> Iterator[TestClient]:
    room = RoomRuntime(settlement, accounts, cashier, parse_tables(TABLE), clock=clock)
    limits = RestLimits(heavy_reads=3, heavy_window=60.0, read_cache_seconds=30.0, clock=clock)
    with TestClient(create_app(room, drive=False, limits=limits)) as test_client:
        yield test_client


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Each statistics computation: (player, since, until)."""
    calls: list[tuple[Any, ...]] = []
    real = PlayerStatistics.stats

    def counted(self: PlayerStatistics, player: str, since: Any = None, until: Any = None) -> Any:
        calls.append((player, since, until))
        return real(self, player, since, until)

    monkeypatch.setattr(PlayerStatistics, "stats", counted)
    return calls


def test_statistics_and_exports_are_limited_per_account_and_cheap_to_repeat(
    client: TestClient,
    storage: SqlStorage,
    players: tuple[str, ...],
    clock: Clock,
    computed: list[tuple[Any, ...]],
) -> None:
    store_hands(storage, stats_hands())
    alice = _sign_in(client, "alice")
    bob = _sign_in(client, "bob")
    first = client.get("/api/me/stats", headers=alice)
    assert first.status_code == 200, first.text
    assert first.json()["hands"] == 3
    assert len(computed) == 2  # the period's and this session's
    for _ in range(5):  # the same again: from the cache, not counted
        assert client.get("/api/me/stats", headers=alice).json() == first.json()
    assert len(computed) == 2
    assert client.get("/api/me/stats?since=1970-01-01T00:01:00Z", headers=alice).status_code == 200
    export = client.get("/api/hands/export?format=phh", headers=alice)
    assert export.status_code == 200, export.text
    # the fourth computation within the window is refused, saying when to come back
    refused = client.get("/api/me/stats?since=1970-01-01T00:02:00Z", headers=alice)
    _error(refused, 429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "at most 3 statistics or exports in 60 s" in refused.json()["error"]["message"]
    _error(client.get("/api/hands/export?format=ohh", headers=alice), 429, "rate_limited")
    assert len(computed) == 4
    # what is cached is still answered, and another account is not held up
    assert client.get("/api/me/stats", headers=alice).status_code == 200
    assert client.get("/api/me/stats", headers=bob).status_code == 200
    # the window passes: alice may ask again; the cache's answers have expired
    clock.now += 61
    assert client.get("/api/me/stats", headers=alice).status_code == 200
    assert len(computed) == 8
    _audit_passes(storage)


def test_a_settled_hand_is_replayed_once_for_any_period(
    storage: SqlStorage, players: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    from feltroom.room import player_stats

    replays: list[int] = []
    real = player_stats.played

    def counted(stored: Any) -> Any:
        replays.append(stored.hand_id)
        return real(stored)

    monkeypatch.setattr(player_stats, "played", counted)
    store_hands(storage, stats_hands())
    stats = PlayerStatistics(storage)
    whole = stats.stats("alice")
    assert len(replays) == 3
    assert stats.stats("alice", since=150.0)["hands"] == 1  # another period: no replay
    assert stats.stats("alice") == whole
    assert len(replays) == 3
    assert stats.stats("bob")["hands"] == 3  # another account's share: its own replays
    assert len(replays) == 6

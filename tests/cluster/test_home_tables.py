"""A home game's table on a cluster's worker (issue 45, docs/home-games.md): a worker takes it
through its lease like any table, its lobby entry says it is a home game's (the gateways list it
in no lobby, their owners' routing unchanged), no house bot sits there, and no seat is given
there but the game's; the worker that takes the table runs the game, as stored."""

from __future__ import annotations

import asyncio
import json

import pytest

from feltroom.cluster.games import GatewayRoom
from feltroom.room import Accounts, Argon2Settings, Cashier, RoomError, Settlement
from feltroom.room.errors import LeaseLost
from feltroom.room.leases import Leases
from feltroom.room.runtime import RuntimeSettings
from feltroom.room.runtime.home_games import HomeGames, HomeRequest
from feltroom.room.tables_config import spec_of
from feltroom.room.worker import WorkerRuntime
from feltroom.store import SqlStorage

from .support import PASSWORD


def test_R_HOME_1_a_worker_runs_a_home_table_like_any_but_lists_it_nowhere(
    storage: SqlStorage,
) -> None:
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    accounts.sign_up("alice", PASSWORD)
    definition = {
        "id": "home-g-3",
        "home": "g-3",
        "currency": "g-3",
        "name": "Friday game",
        "max_seats": 6,
        "structure": "no_limit",
        "big_blind": 2,
        "small_blind": 1,
        "min_buy_in": 40,
        "max_buy_in": 200,
        "rake_percent": 0,
    }
    with storage.transaction() as tx:
        assert tx.add_table_definition("home-g-3", json.dumps(definition, sort_keys=True))
        defined = tx.table_definitions()
    spec = spec_of(json.loads(defined["home-g-3"]), "table_definitions")
    assert (spec.home, spec.currency, spec.play_money) == ("g-3", "g-3", True)
    leases = Leases(storage, "w1", seconds=30)
    runtime = WorkerRuntime(
        Settlement(storage, fence=leases.fence, shard="w1"),
        accounts,
        Cashier(storage),
        leases,
        settings=RuntimeSettings(house_bots=3, between_hands=3600.0),
    )

    async def scenario() -> None:
        await runtime.start()
        try:
            assert leases.take("home-g-3") is not None
            runner = await runtime.adopt(spec)
            entry = runner.lobby(runtime.clock())
            assert entry["home"] == "g-3"
            assert runtime.lobby() == []
            await runtime.advance(runtime.clock() + 5)
            assert runner.table.seats == {}  # no house bot at a home game's table
            with pytest.raises(RoomError, match="ask its host"):
                await runtime.join("home-g-3", "alice", 1, 100)
        finally:
            await runtime.stop()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    with pytest.raises(RoomError, match="a home game's own chips"):
        spec_of({**definition, "id": "t9", "home": None}, "a tables file")


def test_R_HOME_2_a_worker_takes_a_game_with_its_table_as_stored(storage: SqlStorage) -> None:
    """A game created as a gateway creates it (``ClusterGames``: over the stored games, its
    table defined) is loaded by the worker that takes its table, as stored: its pause (no
    deal there), its pending request, its roles; the host's controls run there and are stored
    for every gateway to read; the table lost, the game is the next owner's, and the worker
    stores nothing more of it."""
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    for name in ("alice", "bob"):
        accounts.sign_up(name, PASSWORD)
    gateway = GatewayRoom(storage, accounts.clock)
    stored = HomeGames(gateway)
    leases = Leases(storage, "w1", seconds=30)
    runtime = WorkerRuntime(
        Settlement(storage, fence=leases.fence, shard="w1"),
        accounts,
        Cashier(storage),
        leases,
        settings=RuntimeSettings(house_bots=0, between_hands=3600.0),
    )

    async def scenario() -> None:
        gateway.writer.start()
        await runtime.start()
        try:
            await stored.reload()
            game = await stored.create("alice", {"name": "Friday game", "big_blind": 2})
            assert game.table_id == "home-g-1"
            with pytest.raises(RoomError, match="runs on its worker"):
                await stored.join(game, "alice", 1, 100)  # (a gateway seats nobody)
            game.status = "paused"
            game.requests.append(HomeRequest(1, "seat", "bob", 80, accounts.clock(), 2))
            game.next_request = 2
            await stored.store(game)
            with storage.transaction(write=False) as tx:
                definition = json.loads(tx.table_definitions()["home-g-1"])
            assert leases.take("home-g-1") is not None
            runner = await runtime.adopt(spec_of(definition, "table_definitions"))
            taken = runtime.home.game_of_table("home-g-1")
            assert taken is not None
            assert (taken.status, runner.hold) == ("paused", True)
            assert [(r.player, r.amount) for r in taken.requests] == [("bob", 80)]
            await runtime.home.control("g-1", "alice", "admit", {"request": 1, "admit": True})
            await runtime.home.control("g-1", "alice", "resume", {})
            assert runner.hold is False
            assert runner.table.seat_of("bob") == 2
            await stored.reload()  # (what every gateway reads)
            again = stored.game("g-1", "bob")
            assert (again.status, again.requests, again.role("bob")) == ("open", [], "player")
            await runtime.lost("home-g-1")
            assert runtime.home.game_of_table("home-g-1") is None
            with pytest.raises(LeaseLost):  # (what it held of the game is stored no more)
                await runtime.home.store(taken)
        finally:
            await runtime.stop()
            gateway.writer.stop()

    asyncio.run(asyncio.wait_for(scenario(), 60))

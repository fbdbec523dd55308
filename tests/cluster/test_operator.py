"""The operator API on a cluster's gateways (docs/operator.md, docs/cluster.md): two workers and
two gateways on a real PostgreSQL and a real Redis. The operator acts through gateway A (over
HTTP and with `feltroom admin --url`) on players connected through gateway B at a table run by a
worker process: every action reaches the table's owner or every gateway, the refusals change
nothing, and the books pass the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from feltroom.cluster.client import TableClient
from feltroom.cluster.gateway import GatewayHub
from feltroom.cluster.worker import load_definitions
from feltroom.room import Accounts, Argon2Settings, Cashier, RoomError, Settlement, audit
from feltroom.room.leases import Leases
from feltroom.room.operators import OperatorLog, Operators
from feltroom.room.storage import Storage
from feltroom.room.tables_config import TableSpec, table_entries
from feltroom.room.worker import WorkerRuntime
from feltroom.server.session import Connection, _drain
from feltroom.store import SqlStorage, open_storage
from server.live import Client
from services import RedisServer

from .support import (
    PASSWORD,
    TABLES,
    Workers,
    free_seats,
    leases,
    play_along,
    players,
    sign_in,
    until,
    until_json,
    ws_client,
)


def test_every_operator_action_through_a_gateway_reaches_the_table_owner_and_every_gateway(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    accounts = players(store, "op", "alice", "bob", "mallory")
    Operators(accounts).grant("op", "", "root", "floor manager")
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=3.0)
    try:
        ports, where = cluster.start_two_by_two(store)
        table_id = next(t for t, w in sorted(where.items()) if w == "worker-b")
        other = next(t for t in where if t != table_id)
        asyncio.run(_operate(cluster, ports, table_id, other, store))
    finally:
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    # The chips of the kicked, suspended and closed-out players went back under their entries.
    assert report["operator_transfers_checked"] >= 2, report
    store.close()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    message: str = error["message"]
    return message


def _admin(port: int, *argv: str) -> tuple[int, str, str]:
    """`feltroom admin --url http://gateway --operator op ...` in a process of its own."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "feltroom.cli",
            "admin",
            "--url",
            f"http://127.0.0.1:{port}",
            "--operator",
            "op",
            *argv,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FELTROOM_OPERATOR_PASSWORD": PASSWORD},
    )
    return done.returncode, done.stdout, done.stderr


def _seated(store: Storage, table_id: str) -> set[str]:
    with store.transaction(write=False) as tx:
        return {row.player for row in tx.seats_at_tables([table_id])}


def _entries(store: Storage) -> list[dict[str, Any]]:
    return OperatorLog(store).entries()


async def _operate(
    cluster: Workers, ports: dict[str, int], table_id: str, other: str, store: Storage
) -> None:
    op = await sign_in(ports["A"], "op")
    alice = await sign_in(ports["B"], "alice")
    mallory = await sign_in(ports["B"], "mallory")
    a = httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports['A']}", timeout=60)
    b = httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports['B']}", timeout=60)
    players: list[asyncio.Task[None]] = []
    stack = contextlib.AsyncExitStack()  # (mallory's second connection)
    try:
        # The console is served by every gateway.
        page = await a.get("/admin")
        assert page.status_code == 200
        assert "operator console" in page.text

        # Refusals: nobody, a player, an unknown table, account or player. Nothing is written.
        before = len(_entries(store))
        body = {"table": table_id, "reason": "x"}
        _error(await a.post("/api/operator/close-table", json=body), 401, "unauthenticated")
        message = _error(
            await a.post("/api/operator/close-table", json=body, headers=_bearer(alice)),
            403,
            "not_operator",
        )
        assert "'alice' is not an operator" in message
        _error(await b.get("/api/operator/online", headers=_bearer(alice)), 403, "not_operator")
        message = _error(
            await a.post(
                "/api/operator/close-table",
                json={"table": "nope", "reason": "x"},
                headers=_bearer(op),
            ),
            404,
            "not_found",
        )
        assert message == "no table 'nope'; the tables are c1, c2"
        message = _error(
            await a.post(
                "/api/operator/kick",
                json={"table": table_id, "player": "nobody", "reason": "x"},
                headers=_bearer(op),
            ),
            404,
            "not_found",
        )
        assert message == f"'nobody' has no seat and is not waiting at table {table_id}"
        _error(
            await a.post(
                "/api/operator/suspend",
                json={"account": "nobody", "reason": "x"},
                headers=_bearer(op),
            ),
            404,
            "not_found",
        )
        message = _error(
            await a.post(
                "/api/operator/reopen-table", json=body | {"reason": "r"}, headers=_bearer(op)
            ),
            409,
            "refused",
        )
        assert message == f"table {table_id} is open; close-table closes it"
        assert len(_entries(store)) == before

        # alice plays through gateway B, mallory through gateway A and B at once.
        async with (
            ws_client(ports["B"], "alice", alice) as (on_alice, _),
            ws_client(ports["A"], "mallory", mallory) as (on_mallory, _),
        ):
            seats = await free_seats(on_alice, table_id)
            assert len(seats) >= 2, seats
            for client, seat in ((on_alice, seats[0]), (on_mallory, seats[1])):
                sat = await client.request(
                    {"type": "sit", "table": table_id, "seat": seat, "buy_in": 2000}
                )
                assert sat["type"] == "ok", sat
            mallory_b = await stack.enter_async_context(ws_client(ports["B"], "mallory", mallory))
            players = [
                asyncio.create_task(play_along(on_alice, table_id, seats[0])),
                asyncio.create_task(play_along(on_mallory, table_id, seats[1])),
            ]

            # Who is online: every gateway's connections, with their seats from the books.
            online = (await a.get("/api/operator/online", headers=_bearer(op))).json()
            found = {p["player"]: p for p in online["players"]}
            assert set(found) == {"alice", "mallory"}, online
            assert found["alice"]["seats"] == [{"table": table_id, "seat": seats[0]}]
            assert found["alice"]["watching"] == [table_id]
            assert found["alice"]["addresses"] == ["127.0.0.1"]
            assert len(found["alice"]["gateways"]) == 1
            assert found["mallory"]["connections"] == 2
            assert len(found["mallory"]["gateways"]) == 2
            assert set(found["alice"]["gateways"]) < set(found["mallory"]["gateways"])
            assert found["mallory"]["watching"] == [table_id]  # (a seat is watched on hello)
            assert online["connections"] == 3
            code, out, err = await asyncio.to_thread(_admin, ports["A"], "online")
            assert code == 0, err
            assert {p["player"] for p in json.loads(out)["players"]} == {"alice", "mallory"}

            # The live tables, from their owners.
            tables = (await a.get("/api/operator/tables", headers=_bearer(op))).json()["tables"]
            assert sorted(t["id"] for t in tables) == ["c1", "c2"]
            mine = next(t for t in tables if t["id"] == table_id)
            people = {p["player"]: p for p in mine["players"] if not p["bot"]}
            assert people["alice"]["seat"] == seats[0]
            assert people["alice"]["stack"] > 0
            assert people["mallory"]["suspended"] is False
            assert any(p["bot"] for p in mine["players"])  # the house bots (--house-bots 2)

            # A broadcast reaches the connections at every table through every gateway.
            sent = await a.post(
                "/api/operator/broadcast",
                json={"text": "the room closes at midnight", "reason": "notice"},
                headers=_bearer(op),
            )
            assert sent.status_code == 200, sent.text
            assert sent.json()["connections"] == 3
            for client in (on_alice, on_mallory):  # (their frames are read by play_along)
                lines = await until(
                    f"the broadcast at {client.name}",
                    lambda c=client: [
                        m for m in c.log if m["type"] == "chat" and m["player"] == "room"
                    ],
                )
                assert [m["text"] for m in lines] == ["the room closes at midnight"]
                assert lines[0]["table"] == table_id

            # A kick reaches the table's owner: alice leaves with her chips after the hand.
            kicked = await a.post(
                "/api/operator/kick",
                json={"table": table_id, "player": "alice", "reason": "abuse in chat"},
                headers=_bearer(op),
            )
            assert kicked.status_code == 200, kicked.text
            assert kicked.json()["seat"] == seats[0]
            await until("alice's seat released", lambda: "alice" not in _seated(store, table_id))

            # A suspension, with `feltroom admin --url` on gateway A: mallory's connections on
            # both gateways are closed, her seat left at the end of the hand on worker B.
            code, out, err = await asyncio.to_thread(
                _admin, ports["A"], "--reason", "chargeback 4411", "suspend", "mallory"
            )
            assert code == 0, err
            done = json.loads(out)
            assert done["connections_closed"] == 2
            assert done["tables_left"] == [table_id]
            assert done["sessions_ended"] >= 1
            [ended] = await asyncio.wait_for(asyncio.gather(players[1], return_exceptions=True), 30)
            assert isinstance(ended, ConnectionClosed), ended
            assert on_mallory.ws.close_code == 1008
            assert await _close_code(mallory_b[0]) == 1008
            await until(
                "mallory's seat released", lambda: "mallory" not in _seated(store, table_id)
            )
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)

        signin = await b.post("/api/signin", json={"name": "mallory", "password": PASSWORD})
        assert signin.status_code == 403, signin.text
        reinstated = await b.post(
            "/api/operator/reinstate",
            json={"account": "mallory", "reason": "paid"},
            headers=_bearer(await sign_in(ports["B"], "op")),
        )
        assert reinstated.status_code == 200, reinstated.text
        signin = await b.post("/api/signin", json={"name": "mallory", "password": PASSWORD})
        assert signin.status_code == 200, signin.text

        # Rename and remove through a gateway: mallory becomes morgana (her chips follow the
        # account id); a removal is refused while she holds chips, then done with none.
        op_b = _bearer(await sign_in(ports["B"], "op"))
        body = {"account": "mallory", "to": "morgana", "reason": "asked by the player"}
        renamed = await b.post("/api/operator/rename", json=body, headers=op_b)
        assert renamed.status_code == 200, renamed.text
        assert renamed.json()["renamed_to"] == "morgana"
        signin = await a.post("/api/signin", json={"name": "morgana", "password": PASSWORD})
        assert signin.status_code == 200, signin.text
        body = {"account": "morgana", "reason": "closing"}
        held = Cashier(store).balance("morgana")["balances"]["PLAY"]
        refused = await a.post("/api/operator/remove", json=body, headers=op_b)
        assert f"'morgana' still holds {held} PLAY" in _error(refused, 409, "refused")
        await asyncio.to_thread(Cashier(store).withdraw, "morgana", "PLAY", held, "cash-out")
        removed = await a.post("/api/operator/remove", json=body, headers=op_b)
        assert removed.status_code == 200, removed.text
        assert removed.json()["removed"] is True
        signin = await b.post("/api/signin", json={"name": "morgana", "password": PASSWORD})
        assert signin.status_code == 401, signin.text

        reset = await a.post(
            "/api/operator/reset-password",
            json={"account": "bob", "reason": "lost password"},
            headers=_bearer(op),
        )
        assert reset.status_code == 200, reset.text
        fresh = reset.json()["password"]

        # The other table (worker A's) closes and opens again.
        for action in ("close-table", "reopen-table"):
            answer = await a.post(
                f"/api/operator/{action}",
                json={"table": other, "reason": "maintenance"},
                headers=_bearer(op),
            )
            assert answer.status_code == 200, answer.text
        # The player's protection calls on the gateways: bob, seated at worker A's table
        # through gateway A, sets a reminder and takes a cool-off through gateway B; his seat is
        # left at the end of the hand there, his chips back in his wallet.
        bob = await sign_in(ports["A"], "bob", fresh)
        async with ws_client(ports["A"], "bob", bob) as (on_bob, _):
            seats = await free_seats(on_bob, other)
            sat = await on_bob.request({"type": "sit", "table": other, "seat": seats[0]})
            assert sat["type"] == "ok", sat
            playing = asyncio.create_task(play_along(on_bob, other, seats[0]))
            try:
                limits = await b.put(
                    "/api/me/limits", json={"reminder_minutes": 30}, headers=_bearer(bob)
                )
                assert limits.status_code == 200, limits.text
                cool = await b.post("/api/me/cool-off", json={"hours": 24}, headers=_bearer(bob))
                assert cool.status_code == 200, cool.text
                assert cool.json()["tables_left"] == [other]
                await until("bob's seat released", lambda: "bob" not in _seated(store, other))
            finally:
                playing.cancel()
        mine = (await a.get("/api/me/limits", headers=_bearer(bob))).json()
        assert mine["reminder_minutes"] == 30
        assert mine["blocked"] == "cool-off"

        # Worker B's table closes: everyone leaves after the hand; then it is retired, leaves
        # the lobby and its lease is given up.
        closed = await a.post(
            "/api/operator/close-table",
            json={"table": table_id, "reason": "retiring"},
            headers=_bearer(op),
        )
        assert closed.status_code == 200, closed.text
        assert closed.json()["status"] == "closed"
        await until("the closed table empty", lambda: not _seated(store, table_id), 60)
        joined = await _sit(ports["B"], alice, table_id)
        assert joined["type"] == "error", joined
        assert "closed by the room" in joined["message"]
        retired = await a.post(
            "/api/operator/retire-table",
            json={"table": table_id, "reason": "retiring"},
            headers=_bearer(op),
        )
        assert retired.status_code == 200, retired.text
        await until("the retired table's lease given up", lambda: table_id not in leases(store))
        lobby = await until_json(b, "/api/lobby", lambda j: len(j["tables"]) == 1)
        assert [t["id"] for t in lobby["tables"]] == [other]

        # A table added through a gateway: a worker takes it through its lease.
        definition = {"id": "c3", "preset": "nl_25_50", "max_seats": 6}
        added = await a.post(
            "/api/operator/add-table",
            json={"definition": definition, "reason": "busy night"},
            headers=_bearer(op),
        )
        assert added.status_code == 200, added.text
        assert added.json()["owner"] is not None
        await until_json(b, "/api/lobby", lambda j: "c3" in {t["id"] for t in j["tables"]})
        again = await a.post(
            "/api/operator/add-table",
            json={"definition": definition, "reason": "busy night"},
            headers=_bearer(op),
        )
        _error(again, 409, "refused")

        code, out, err = await asyncio.to_thread(_admin, ports["B"], "log")
        assert code == 0, err
        actions = [e["action"] for e in json.loads(out)["entries"]]
        for action in (
            "broadcast",
            "kick",
            "suspend",
            "reinstate",
            "reset-password",
            "close-table",
            "reopen-table",
            "retire-table",
            "add-table",
        ):
            assert action in actions, actions

        # No worker runs: an action on a table says so, and changes nothing.
        cluster.kill("worker-a")
        cluster.kill("worker-b")
        before = len(_entries(store))
        unavailable = await a.post(
            "/api/operator/close-table",
            json={"table": "c3", "reason": "x"},
            headers=_bearer(op),
        )
        message = _error(unavailable, 503, "table_unavailable")
        assert "table c3 did not answer within 10 s" in message
        assert len(_entries(store)) == before
    finally:
        for task in players:
            task.cancel()
        await stack.aclose()
        await a.aclose()
        await b.aclose()


async def _close_code(client: Client) -> int | None:
    """Read what the client was sent until the server closes the connection: its code."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await client.recv(30)
    return client.ws.close_code


async def _sit(port: int, token: str, table_id: str) -> dict[str, Any]:
    async with ws_client(port, "alice", token) as (client, _):
        seats = await free_seats(client, table_id)
        return await client.request({"type": "sit", "table": table_id, "seat": seats[0]})


def test_a_closed_table_stays_closed_on_its_next_owner_and_a_retired_one_is_given_up(
    storage: SqlStorage, tmp_path: Path
) -> None:
    """The database is the source of truth: a worker that adopts a table an operator closed
    (on another worker, before a takeover) keeps it closed; retiring it there stops it and
    gives its lease up, and no worker takes it again."""
    load_definitions(storage, _tables_file(tmp_path))
    log = OperatorLog(storage)
    with storage.transaction() as tx:
        tx.set_table_status("c1", "closed")
        entry = log.add(tx, "op", "close-table", "c1", "maintenance")
    leases = Leases(storage, "w1", seconds=30)
    runtime = WorkerRuntime(
        Settlement(storage, fence=leases.fence, shard="w1"),
        Accounts(storage, argon2=Argon2Settings.cheap()),
        Cashier(storage),
        leases,
    )

    async def scenario() -> None:
        await runtime.start()
        try:
            specs = {spec.table_id: spec for spec in _specs(tmp_path)}
            for table_id in ("c1", "c2"):
                assert leases.take(table_id) is not None
                await runtime.adopt(specs[table_id])
            closed, other = runtime.runners["c1"], runtime.runners["c2"]
            assert closed.closed == entry
            assert other.closed is None
            assert closed.lobby(runtime.clock())["status"] == "closed"
            with pytest.raises(RoomError, match="closed by the room"):
                closed.check_open()
            done = await runtime.retire_table("c1", "op", "for good")
            assert done["status"] == "retired"
            assert list(runtime.runners) == ["c2"]
            assert leases.held() == ["c2"]
        finally:
            await runtime.stop()

    asyncio.run(scenario())
    with storage.transaction(write=False) as tx:
        assert sorted(tx.table_definitions()) == ["c2"]
        lease = {row.table_id: row for row in tx.all_leases()}["c1"]
        assert lease.expires_at <= tx.database_time()
    assert [e["action"] for e in log.entries()] == ["close-table", "retire-table"]
    assert audit(storage, shuffles=0)["pass"]


def _tables_file(folder: Path) -> Path:
    path = folder / "tables.toml"
    path.write_text(TABLES)
    return path


def _specs(folder: Path) -> list[TableSpec]:
    return [spec for spec, _ in table_entries(_tables_file(folder).read_text())]


def test_a_gateway_sends_the_session_time_reminder_and_keeps_sweeping(
    storage: SqlStorage,
) -> None:
    """Issue 25's reminder from a gateway (a hub without a room of its own): the player's
    connection through it is reminded once each interval of session time."""
    now = [1000.0]
    accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=lambda: now[0])
    accounts.sign_up("alice", PASSWORD)
    hub = GatewayHub(storage, accounts, TableClient("redis://:password@127.0.0.1:1/0"))

    async def scenario() -> None:
        await hub._begin_session("alice", hub.protection)
        hub.set_reminder("alice", 30)
        connection = Connection(hub, player="alice")
        hub.by_player["alice"] = {connection}
        now[0] += 29 * 60
        assert hub.send_reminders() == 0
        now[0] += 60
        assert hub.send_reminders() == 1
        assert hub.send_reminders() == 0  # once an interval
        [frame] = _drain(connection)
        reminder = json.loads(frame)
        assert (reminder["type"], reminder["minutes"], reminder["every"]) == ("reminder", 30, 30)

    asyncio.run(scenario())

"""Tournaments in a cluster (docs/cluster.md, "Tournaments"), on a real PostgreSQL and Redis:
a tournament is owned by one worker with all its tables under one lease; registrations go
through any gateway and are refused or accepted word for word as in the single process; a
sit-and-go is played to its end by people connected through two gateways (``moved``,
``tournament``, ``tournament_result`` reach them), every place given and the prize pool paid
once; the books pass the audit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from feltroom.room import Cashier, audit
from feltroom.store import open_storage
from server.live import Client, live_server, room_for
from services import RedisServer

from .support import PASSWORD, TABLES, Workers, leases, players, sign_in, wait_for, ws_client

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

pytestmark = pytest.mark.slow  # (a minute or more each: processes, a whole tournament)


def _shove(legal: dict[str, Any]) -> dict[str, Any]:
    """All in: the biggest raise there is, else a call, else a check."""
    if legal["raise_max"] is not None:
        return {"action": "bet" if legal["bet"] else "raise", "amount": legal["raise_max"]}
    if legal["call"]:
        return {"action": "call"}
    return {"action": "check"}


async def _play(client: Client) -> dict[str, Any]:
    """Shove at every turn (those already received first; a past one is refused as stale)
    until the player's result comes; returns it."""
    seen = 0
    while True:
        if seen < len(client.log):
            message = client.log[seen]
        else:
            message = await client.recv(90)
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


async def _registrations(base: str, tokens: dict[str, str]) -> list[tuple[int, Any]]:
    """The same registration calls, refused and accepted, against a room at ``base``: each
    answer's status and body."""
    answers: list[tuple[int, Any]] = []

    def auth(name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {tokens[name]}"}

    async with httpx.AsyncClient(base_url=base) as http:
        calls = [
            ("POST", "/api/tournaments/nope-1/register", "ann"),  # no such tournament
            ("POST", "/api/tournaments/four-1/register", None),  # not signed in
            ("POST", "/api/tournaments/four-1/register", "poor"),  # short of buy-in and fee
            ("DELETE", "/api/tournaments/four-1/register", "ann"),  # not registered
            ("POST", "/api/tournaments/four-1/register", "ann"),
            ("POST", "/api/tournaments/four-1/register", "ann"),  # twice
            ("DELETE", "/api/tournaments/four-1/register", "ann"),  # refunded
            ("POST", "/api/tournaments/four-1/register", "ann"),
        ]
        for method, path, who in calls:
            headers = auth(who) if who is not None else {}
            response = await http.request(method, path, headers=headers)
            answers.append((response.status_code, response.json()))
    return answers


def _single_process_registrations(tmp_path: Path) -> list[tuple[int, Any]]:
    """The registration calls against the single process (SQLite) with the same tournament."""
    storage = open_storage(f"sqlite:///{tmp_path}/single.db")

    async def scenario() -> list[tuple[int, Any]]:
        room = room_for(storage, TABLES, FOUR)
        async with live_server(room) as live:
            tokens = {name: await live.account(name, 100_000) for name in ("ann",)}
            tokens["poor"] = await live.account("poor", 500)
            return await _registrations(live.http, tokens)

    try:
        return asyncio.run(scenario())
    finally:
        storage.close()


def test_R_TOURN_2_registration_through_a_gateway_as_in_the_single_process_and_a_sit_and_go_to_its_end(  # noqa: E501
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """R-TOURN-2 (registration, its refusals and the refund before the start), R-TOURN-14
    (the lobby lists the tournament), R-DEAL-4 (each player's frames are their own): through
    two gateways of a cluster, answered by the tournament's owner."""
    expected = _single_process_registrations(tmp_path)
    store = open_storage(pg_url)
    accounts = players(store, *NAMES)
    accounts.sign_up("poor", PASSWORD)
    Cashier(store).grant("poor", 500, "poor-grant")
    workers = Workers(
        tmp_path, pg_url, redis_server.url, lease=2.0, tables=TABLES + FOUR, house_bots=0
    )
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        ports = {"A": workers.start_gateway("gateway-A"), "B": workers.start_gateway("gateway-B")}
        # The instance is in the books, then leased by one worker (its id as the lease's).
        wait_for("a worker to own four-1", lambda: leases(store).get("four-1"), 60)
        results = asyncio.run(_scenario(ports))
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    got, places = results
    assert got == expected
    by_place = sorted((r["place"], r["prize"]) for r in places)
    assert by_place == [(1, 4000), (2, 0), (3, 0), (4, 0)]
    with store.transaction(write=False) as tx:
        row = tx.get_tournament("four-1")
    assert row is not None
    assert row.status == "finished"
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _scenario(ports: dict[str, int]) -> tuple[list[tuple[int, Any]], list[dict[str, Any]]]:
    base = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    async with httpx.AsyncClient(base_url=base["A"]) as http:
        for _ in range(300):
            listed = (await http.get("/api/tournaments")).json()["tournaments"]
            if any(t["id"] == "four-1" for t in listed):
                break
            await asyncio.sleep(0.2)
        else:
            raise AssertionError(f"four-1 never listed on gateway A: {listed}")
        lobby = (await http.get("/api/lobby")).json()
        assert [t["id"] for t in lobby["tournaments"]] == ["four-1"], lobby
    tokens = {name: await sign_in(ports["B"], name) for name in (*NAMES, "poor")}
    got = await _registrations(base["B"], tokens)
    gateway = {"ann": "A", "bob": "A", "cid": "B", "dee": "B"}
    async with (
        ws_client(ports["A"], "ann", tokens["ann"]) as (ann, _),
        ws_client(ports["A"], "bob", tokens["bob"]) as (bob, _),
        ws_client(ports["B"], "cid", tokens["cid"]) as (cid, _),
        ws_client(ports["B"], "dee", tokens["dee"]) as (dee, _),
    ):
        clients = [ann, bob, cid, dee]
        for name in NAMES[1:]:  # (ann registered above)
            async with httpx.AsyncClient(base_url=base[gateway[name]]) as http:
                response = await http.post(
                    "/api/tournaments/four-1/register",
                    headers={"Authorization": f"Bearer {tokens[name]}"},
                )
                assert response.status_code == 200, response.text
        # The start takes each connection to its table, through its own gateway: moved, then
        # the table's snapshot with the player in their seat.
        for client in clients:
            moved = await client.wait_for(lambda m: m["type"] == "moved", 30)
            assert (moved["reason"], moved["from_table"]) == ("seated", None), moved
            snap = await client.wait_for(
                lambda m, t=moved["table"]: m["type"] == "snapshot" and m["table"] == t, 30
            )
            assert snap["you"] == moved["seat"]
        # A second connection of ann's, through the other gateway: its welcome lists her
        # tournament seat, and her table's snapshot and her view come from the owner.
        seat_of_ann = next(m for m in ann.log if m["type"] == "moved")
        async with ws_client(ports["B"], "ann", tokens["ann"]) as (again, welcome):
            seated = [[s["table"], s["seat"]] for s in welcome["seats"]]
            assert [seat_of_ann["table"], seat_of_ann["seat"]] in seated, welcome
            snap = await again.wait_for(
                lambda m: m["type"] == "snapshot" and m["table"] == seat_of_ann["table"], 30
            )
            assert snap["you"] == seat_of_ann["seat"]
            view = await again.wait_for(lambda m: m["type"] == "tournament", 30)
            assert view["you"]["account"] == "ann"
        ref = await bob.send({"type": "tournament", "tournament": "four-1"})
        view = await bob.wait_for(lambda m: m.get("ref") == ref, 30)
        assert view["type"] == "tournament", view
        assert (view["tournament"], view["entries"], view["players_left"]) == ("four-1", 4, 4)
        assert view["you"]["account"] == "bob"
        results = await asyncio.wait_for(asyncio.gather(*(_play(c) for c in clients)), 300)
    async with httpx.AsyncClient(base_url=base["B"]) as http:
        detail = (await http.get("/api/tournaments/four-1")).json()
    assert detail["state"] == "finished", detail
    return got, results


SPREAD = "".join(
    f"""
[[tournament]]
id = "s{k}"
format = "sng"
recurring = false
seats_per_table = 2
max_entries = 2
starting_stack = 100
buy_in = 1000
fee = 100
"""
    for k in range(1, 5)
)


def test_tournaments_spread_over_the_workers(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Four sit-and-gos open for entries and two cash tables over two workers: each worker
    takes its share, three, counting a tournament open for entries as a table (docs/cluster.md,
    "Tournaments"); the worker without the tables file runs tournaments as well as the one
    that opened them."""
    store = open_storage(pg_url)
    workers = Workers(
        tmp_path, pg_url, redis_server.url, lease=2.0, tables=TABLES + SPREAD, house_bots=0
    )
    instances = {f"s{k}-1" for k in range(1, 5)}
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")

        def spread() -> dict[str, str] | None:
            held = leases(store)
            if not instances <= set(held) or len(held) != 6:
                return None
            owners = workers.owners(held)
            tournaments = {owners[t] for t in instances}
            shares = sorted(owners.values())
            if tournaments != {"worker-a", "worker-b"} or shares.count("worker-a") != 3:
                return None
            return owners

        owners = wait_for("the tournaments spread over both workers", spread, 60)
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    assert sorted(owners.values()).count("worker-b") == 3, owners
    store.close()

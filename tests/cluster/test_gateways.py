"""Gateways (docs/cluster.md): two workers and two gateways on loopback, on a real PostgreSQL
and a real Redis. A player on gateway A plays at a table run by a worker process of its own;
another player on gateway B at the same table; the wire tap over both gateways (every frame a
connection gets is one the table's owner built for its viewer, and nobody sees another's hole
cards); gateway A killed (SIGKILL) and the player resumed through gateway B within the grace
(R-TIME-4); the books pass the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import httpx

from feltroom.cluster.client import TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.store import open_storage
from server.live import CARD, Client
from services import RedisServer

from .support import (
    PASSWORD,
    Workers,
    free_seats,
    leases,
    play_two,
    players,
    sign_in,
    sit_two,
    until_json,
    wait_for,
    ws_client,
)


def test_players_on_two_gateways_play_at_a_table_of_another_process_and_resume_elsewhere(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """R-DEAL-4 and R-HIST-2 over the gateways; R-TIME-4 (a killed gateway's player resumes
    through another within the grace period)."""
    store = open_storage(pg_url)
    players(store, "alice", "bob")
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=3.0)
    try:
        ports, where = cluster.start_two_by_two(store)
        table_id = next(t for t, w in sorted(where.items()) if w == "worker-b")
        asyncio.run(_play(cluster, ports, table_id, store))
    finally:
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _play(cluster: Workers, ports: dict[str, int], table_id: str, store: Any) -> None:
    # Sessions live in PostgreSQL: a token signed in on one gateway works on the other.
    alice_token = await sign_in(ports["A"], "alice")
    bob_token = await sign_in(ports["B"], "bob")
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports['B']}") as http:
        me = await http.get("/api/me", headers={"Authorization": f"Bearer {alice_token}"})
        assert me.json()["player"] == "alice"
        # The lobby is every worker's tables, whichever gateway is asked.
        lobby = await until_json(http, "/api/lobby", lambda b: len(b["tables"]) == 2)
        assert sorted(t["id"] for t in lobby["tables"]) == ["c1", "c2"]
        # A gateway is ready when the database and the broker answer (docs/operations.md).
        ready = await http.get("/readyz")
        assert ready.status_code == 200, ready.text
        assert ready.json()["checks"] == {"database": "ok", "broker": "ok"}
        assert (await http.get("/healthz")).json()["status"] == "alive"

    # The test's own ear on the broker: every batch the owner publishes for the table.
    tap = TableClient(cluster.broker)
    await tap.start()
    published: list[dict[str, Any]] = []

    async def record() -> None:
        async for batch in tap.watch(table_id):
            published.append(batch)

    recorder = asyncio.create_task(record())
    players: list[asyncio.Task[None]] = []
    logs: dict[str, list[dict[str, Any]]] = {}
    try:
        # The tap hears the table (its bots play on) before anyone looks at it: a frame a
        # connection gets is then one the tap heard too.
        await _until("the tap to hear the table", lambda: published, 60)
        async with (
            ws_client(ports["A"], "alice", alice_token) as (alice, _),
            ws_client(ports["B"], "bob", bob_token) as (bob, _),
        ):
            # A command refused by the owner comes back typed, through the gateway.
            seats = await sit_two(alice, bob, table_id)
            players = play_two(alice, bob, table_id, seats)
            await _until(
                "two hands dealt to alice and bob",
                lambda: _dealt(alice) >= 2 and _dealt(bob) >= 2,
                90,
                lambda: _explain(cluster, alice, bob),
            )
            logs["alice@A"] = list(alice.log)
            logs["bob@B"] = list(bob.log)
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            # Gateway A dies; alice comes back through gateway B with the same token.
            cluster.kill("gateway-A")
            async with ws_client(ports["B"], "alice", alice_token) as (again, welcome):
                assert {"table": table_id, "seat": seats[0]} in welcome["seats"]
                snap = await again.wait_for(
                    lambda m: m["type"] == "snapshot" and m["table"] == table_id
                )
                mine = next(e for e in snap["view"]["seats"] if e["seat"] == seats[0])
                assert mine["player"] == "alice", mine
                assert mine["stack"] > 0, mine
                if mine["sitting_out"]:  # a turn of hers ran out while she was away
                    back = await again.request({"type": "sit_in", "table": table_id})
                    assert back["type"] == "ok", back
                dealt = _dealt(again)
                players = play_two(again, bob, table_id, seats)
                await _until(
                    "alice dealt again through gateway B",
                    lambda: _dealt(again) > dealt,
                    90,
                    lambda: _explain(cluster, again, bob),
                )
                logs["alice@B"] = list(again.log)
                logs["bob@B"] = list(bob.log)
                for task in players:
                    task.cancel()
                await asyncio.gather(*players, return_exceptions=True)
    finally:
        for task in players:
            task.cancel()
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder
        await tap.close()
    _check_the_wire(logs, published, table_id)


def _dealt(client: Client) -> int:
    return len({m["hand"] for m in client.log if m["type"] == "hole_cards"})


def _check_the_wire(
    logs: dict[str, list[dict[str, Any]]], published: list[dict[str, Any]], table_id: str
) -> None:
    """The wire tap over both gateways: every table frame a connection got is one its owner
    built for that viewer, and no hole card reached anyone but its owner before the
    showdown showed it. (The owner's reply to a watch is a snapshot and, mid-hand, the
    ``pots`` of the public actions so far; the reply is not published, so the pots frame right
    after a snapshot of the same hand is checked against the snapshot, not the tap.)"""
    built: dict[str, set[str]] = {}
    for batch in published:
        for frame in batch["observer"]:
            built.setdefault("", set()).add(frame)
        for player, frames in batch["players"].items():
            built.setdefault(player, set()).update(frames)
    holes: dict[tuple[str, int], set[str]] = {}  # (player, hand) -> their hole cards
    checked = 0
    for who, log in logs.items():
        player = who.split("@")[0]
        snapshot_of: Any = None
        for message in log:
            follows, snapshot_of = snapshot_of, None
            if message["type"] == "snapshot" and message.get("table") == table_id:
                snapshot_of = message
            if message["type"] == "pots" and follows is not None:
                assert message["hand"] == follows["view"]["hand"], (follows, message)
                continue  # part of the watch's reply (above)
            if message["type"] == "hole_cards":
                holes[(player, message["hand"])] = set(message["cards"])
            if message.get("table") != table_id or message["type"] not in (
                "event",
                "turn",
                "hole_cards",
                "hand_result",
                "pots",
            ):
                continue
            frame = json.dumps(message, separators=(",", ":"))
            mine = {json.dumps(json.loads(f), separators=(",", ":")) for f in built.get(player, ())}
            if frame not in mine:
                observed = {
                    json.dumps(json.loads(f), separators=(",", ":")) for f in built.get("", ())
                }
                assert frame in observed, f"{who} got a frame built for nobody: {frame}"
            checked += 1
    assert checked > 50, checked
    assert {p for p, _ in holes} == {"alice", "bob"}
    for who, log in logs.items():
        player = who.split("@")[0]
        for message in log:
            hand = message.get("hand")
            if message["type"] in ("hand_result", "snapshot") or hand is None:
                continue  # a showdown shows cards by the rules (R-SHOW-*)
            if message.get("kind") in ("cards_shown", "showdown", "shown"):
                continue
            seen = set(CARD.findall(json.dumps(message)))
            for (owner, dealt_hand), cards in holes.items():
                if owner != player and dealt_hand == hand:
                    assert not seen & cards, f"{who} saw {owner}'s hole cards: {message}"


async def _until(what: str, check: Any, seconds: float = 30.0, explain: Any = lambda: "") -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not check():
        if loop.time() > end:
            raise AssertionError(f"gave up waiting {seconds} s for {what}\n{explain()}")
        await asyncio.sleep(0.1)


def _explain(cluster: Workers, *clients: Client) -> str:
    """What the clients last got and what the processes last logged."""
    got = "\n".join(
        f"--- {client.name} got {_dealt(client)} hands; last frames:\n"
        + "\n".join(json.dumps(m)[:300] for m in client.log[-12:])
        for client in clients
    )
    return f"{got}\n{cluster.tails()}"


def test_a_player_on_two_gateways_is_disconnected_only_when_both_close(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Two gateways never disagree about a player (R-TIME-4): carol, connected through A and
    B, stays connected at her table when A's connection closes, and is shown disconnected once
    B's closes too; a snapshot the owner built shows her own mutes."""
    store = open_storage(pg_url)
    accounts = Accounts(store, argon2=Argon2Settings.cheap())
    with store.transaction(write=False) as tx:
        known = tx.get_user("carol") is not None
    if not known:
        accounts.sign_up("carol", PASSWORD)
    Cashier(store).grant("carol", 100_000, f"carol-grant-{tmp_path.name}")
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=3.0)
    try:
        cluster.start("worker", load_tables=True)
        ports = {"A": cluster.start_gateway("gateway-A"), "B": cluster.start_gateway("gateway-B")}
        wait_for("both tables owned", lambda: len(leases(store)) == 2, 60)
        asyncio.run(_two_gateways(cluster, ports))
    finally:
        cluster.stop_all()
    store.close()


async def _two_gateways(cluster: Workers, ports: dict[str, int]) -> None:
    token = await sign_in(ports["A"], "carol")
    tap = TableClient(cluster.broker)
    await tap.start()

    async def disconnected() -> bool | None:
        reply = await tap.call("c1", "snapshot", "carol")
        view = json.loads(reply["frames"][0])["view"]
        mine = [s for s in view["seats"] if s.get("player") == "carol"]
        return bool(mine[0]["disconnected"]) if mine else None

    try:
        async with ws_client(ports["B"], "carol", token) as (on_b, _):
            async with ws_client(ports["A"], "carol", token) as (on_a, _):
                seats = await free_seats(on_a, "c1")
                sat = await on_a.request(
                    {"type": "sit", "table": "c1", "seat": seats[0], "buy_in": 2000}
                )
                assert sat["type"] == "ok", sat
                assert await disconnected() is False
            # A's connection closed; B's holds: she is not shown disconnected.
            for _ in range(20):
                await asyncio.sleep(0.25)
                assert await disconnected() is False
            # Her mutes are her connection's (kept by its gateway): the snapshots the owner
            # builds show them to her.
            muted = await on_b.request(
                {"type": "mute", "table": "c1", "player": "mallory", "on": True}
            )
            assert muted["type"] == "ok", muted
            earlier = {id(m) for m in on_b.log}
            assert (await on_b.request({"type": "observe", "table": "c1"}))["type"] == "ok"
            snap = await on_b.wait_for(
                lambda m: m["type"] == "snapshot" and m["table"] == "c1" and id(m) not in earlier
            )
            assert snap["muted"] == ["mallory"]
            assert (await on_b.request({"type": "ping"}))["type"] == "pong"
        # Her last connection closed: now she is.
        for _ in range(60):
            if await disconnected():
                break
            await asyncio.sleep(0.25)
        assert await disconnected() is True
        await tap.call("c1", "leave", "carol")  # her chips back to her account
    finally:
        await tap.close()

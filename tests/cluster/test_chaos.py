"""The cluster under faults, one after another, under load (docs/cluster.md, "Failover"): two
workers with direct links, two gateways behind nginx (the configuration the project ships), a
PostgreSQL and a Redis of the test's own, and players on the public protocol who act with their
hand and turn ids. Meanwhile: both gateways killed in a row (the first started again in
between), a worker paused for less and for more than its lease, its database backends stopped,
PostgreSQL restarted, Redis restarted. After each fault play goes on; at the end every action
acknowledged ``ok`` is in the books (in its hand's record, if the hand was settled; a void hand
is void for all), none was acknowledged twice, no hand was settled twice, and the audit passes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from feltroom.room import audit
from feltroom.store import open_storage
from server.live import Client
from services import NginxServer, PostgresServer, RedisServer

from .support import PASSWORD, Workers, choose, leases, players, until, wait_for

pytestmark = pytest.mark.slow

LEASE = 2.0
PLAYERS = {"c1": ["k1", "k2", "k3"], "c2": ["k4", "k5", "k6"]}


@dataclass
class Player:
    """A player on the public protocol through nginx: sits at its table, acts at its turns
    (check, a small call, else fold) with the hand and turn ids, comes back after a lost
    connection, and keeps every action acknowledged ``ok``."""

    name: str
    table: str
    token: str
    url: str
    acks: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    refused: int = 0  # connections nginx answered 502 (no gateway let in)

    async def run(self) -> None:
        while True:
            try:
                async with connect(self.url, max_size=None, open_timeout=10) as ws:
                    await self._session(Client(ws, self.name))
            except InvalidStatus as error:
                self.refused += error.response.status_code == 502
                await asyncio.sleep(0.2)  # (a client's retry)
            except Exception:  # (a lost connection, a gateway refusing while it starts)
                self.reconnects += 1
                await asyncio.sleep(0.2)

    async def _session(self, client: Client) -> None:
        welcome = await client.request({"type": "hello", "version": 1, "token": self.token})
        assert welcome["type"] == "welcome", welcome
        seated = [s["seat"] for s in welcome["seats"] if s["table"] == self.table]
        seat = seated[0] if seated else await self._sit(client)
        if seat is None:
            return
        await client.send({"type": "sit_in", "table": self.table})  # (refused if seated in)
        pending: dict[int, dict[str, Any]] = {}
        while True:
            try:
                message = await client.recv(20)
            except TimeoutError:
                await client.send({"type": "ping"})
                continue
            kind = message["type"]
            if kind == "turn" and message.get("seat") == seat and message.get("legal"):
                action = choose(message["legal"])
                act = {
                    "type": "act",
                    "table": self.table,
                    "hand": message["hand"],
                    "turn_id": message["turn_id"],
                    "action": action,
                }
                pending[await client.send(act)] = act
            elif kind in ("ok", "error") and message.get("ref") in pending:
                act = pending.pop(message["ref"])
                if kind == "ok":
                    self.acks.append({**act, "player": self.name, "seat": seat})
            elif kind == "snapshot" and message.get("table") == self.table:
                mine = [s for s in message["view"]["seats"] if s.get("player") == self.name]
                if not mine:
                    return  # (not seated any more: sit again)
                if mine[0].get("sitting_out"):
                    await client.send({"type": "sit_in", "table": self.table})

    async def _sit(self, client: Client) -> int | None:
        reply = await client.request({"type": "observe", "table": self.table})
        if reply["type"] != "ok":
            return None
        snap = await client.wait_for(
            lambda m: m["type"] == "snapshot" and m.get("table") == self.table
        )
        taken = {entry["seat"] for entry in snap["view"]["seats"]}
        for seat in range(1, 7):
            if seat not in taken:
                sat = await client.request(
                    {"type": "sit", "table": self.table, "seat": seat, "buy_in": 2000}
                )
                if sat["type"] == "ok":
                    return seat
        return None


def test_the_cluster_under_faults_loses_and_doubles_no_acknowledged_action(
    own_postgres: tuple[PostgresServer, str], redis_server: RedisServer, tmp_path: Path
) -> None:
    database, url = own_postgres
    store = open_storage(url)
    names = [name for table in PLAYERS.values() for name in table]
    accounts = players(store, *names)
    tokens = {name: accounts.sign_in(name, PASSWORD).token for name in names}
    store.close()
    cluster = Workers(tmp_path, url, redis_server.url, lease=LEASE, think=0.3)
    nginx = None
    try:
        cluster.start("worker-a", load_tables=True, direct=True)
        cluster.start("worker-b", direct=True)
        gateways = {"A": cluster.start_gateway("gateway-A")}
        gateways["B"] = cluster.start_gateway("gateway-B")
        nginx = NginxServer(list(gateways.values()))
        chaos = Chaos(cluster, database, redis_server, url, gateways)
        acks = asyncio.run(chaos.run(f"ws://127.0.0.1:{nginx.port}/ws", tokens))
        reconnects = sum(p.reconnects for p in chaos.players)
        refused = sum(p.refused for p in chaos.players)
        print(f"chaos: {reconnects} reconnections, {refused} refused by nginx")
        # nginx let every player back in through a live gateway, each time (max_fails=0).
        assert refused == 0, refused
        for worker in ("worker-a", "worker-b"):  # (no takeover's state write failed: uvloop)
            assert "a listener failed" not in cluster.log(worker), cluster.tails()
    finally:
        if nginx is not None:
            nginx.stop()
        cluster.stop_all()
    store = open_storage(url)
    try:
        _check_the_books(store, acks)
        report = audit(store, shuffles=0)
        assert report["pass"], report["problems"]
    finally:
        store.close()


class Chaos:
    def __init__(
        self,
        cluster: Workers,
        database: PostgresServer,
        broker: RedisServer,
        url: str,
        gateways: dict[str, int],
    ) -> None:
        self.cluster, self.database, self.broker = cluster, database, broker
        self.url, self.gateways = url, gateways
        self.players: list[Player] = []

    def acked(self) -> int:
        return sum(len(p.acks) for p in self.players)

    async def play_goes_on(self, after: str, count: int = 6) -> None:
        """Wait until the players have had ``count`` more actions acknowledged."""
        start = self.acked()
        await until(f"play to go on after {after}", lambda: self.acked() >= start + count, 180)

    def leases(self) -> dict[str, Any]:
        store = open_storage(self.url, upgrade=False)
        try:
            return leases(store)
        finally:
            store.close()

    def owner_of(self, worker: str) -> str | None:
        """A table the worker owns now, if any."""
        held = self.leases()
        return next((t for t, w in self.cluster.owners(held).items() if w == worker), None)

    async def run(self, url: str, tokens: dict[str, str]) -> list[dict[str, Any]]:
        await asyncio.to_thread(
            wait_for, "each worker to own a table", lambda: self.owner_of("worker-b"), 60
        )
        self.players = [
            Player(name, table, tokens[name], url)
            for table, names in PLAYERS.items()
            for name in names
        ]
        tasks = [asyncio.create_task(p.run(), name=p.name) for p in self.players]
        try:
            await self.play_goes_on("the start", 12)
            await self.gateways_in_a_row()
            await self.play_goes_on("two gateway failures")
            await self.pause("worker-b", longer=False)
            await self.play_goes_on("a short pause")
            await self.pause("worker-b", longer=True)
            await self.play_goes_on("a pause past the lease")
            await self.backends_stopped()
            await self.play_goes_on("stopped backends")
            await asyncio.to_thread(self.database.stop)
            try:  # (a sign-in meanwhile: 503, to be tried again)
                await self.signin_while_away(url)
            finally:
                await asyncio.to_thread(self.database.start)
            await self.play_goes_on("PostgreSQL's restart")
            await asyncio.to_thread(self.broker.stop)
            await asyncio.sleep(2)
            await asyncio.to_thread(self.broker.start)
            await self.play_goes_on("Redis's restart")
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.cluster.tails()}") from None
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return [ack for p in self.players for ack in p.acks]

    async def signin_while_away(self, url: str) -> None:
        http_url = url.replace("ws://", "http://").removesuffix("/ws")
        name = self.players[0].name
        async with httpx.AsyncClient(base_url=http_url, timeout=30) as http:
            answer = await http.post("/api/signin", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "2"

    async def gateways_in_a_row(self) -> None:
        """Gateway A killed, a while of play through B, A started again, B killed."""
        self.cluster.kill("gateway-A")
        await self.play_goes_on("gateway A's failure", 3)
        await asyncio.to_thread(self.cluster.start_gateway, "gateway-A", self.gateways["A"])
        self.cluster.kill("gateway-B")
        await self.play_goes_on("gateway B's failure", 3)
        await asyncio.to_thread(self.cluster.start_gateway, "gateway-B", self.gateways["B"])

    async def pause(self, worker: str, *, longer: bool) -> None:
        """SIGSTOP the worker for a third of its lease, or until another worker took one of
        its tables."""
        table_id = await asyncio.to_thread(
            wait_for, f"{worker} to own a table", lambda: self.owner_of(worker), 60
        )
        epoch = self.leases()[table_id].epoch
        pid = self.cluster.processes[worker].pid
        os.kill(pid, signal.SIGSTOP)
        try:
            if longer:
                await until(
                    "another worker to take the paused worker's table",
                    lambda: (row := self.leases().get(table_id)) is not None and row.epoch > epoch,
                    60,
                )
            else:
                await asyncio.sleep(LEASE / 3)  # (the pause's length)
        finally:
            os.kill(pid, signal.SIGCONT)

    async def backends_stopped(self) -> None:
        """Stop a worker's PostgreSQL backends for up to three leases (until another worker
        took one of its tables)."""
        worker = "worker-a" if self.owner_of("worker-a") else "worker-b"
        table_id = self.owner_of(worker)
        pid = self.cluster.processes[worker].pid
        engine = create_engine(self.url)
        try:
            with engine.connect() as connection:
                rows = connection.execute(
                    text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                    {"name": f"feltroom-worker-{pid}"},
                )
                backends = [int(row.pid) for row in rows]
        finally:
            engine.dispose()
        assert backends, f"no backend of {worker}'s"
        epoch = self.leases()[table_id].epoch if table_id else 0
        at = time.monotonic()
        for backend in backends:
            os.kill(backend, signal.SIGSTOP)
        try:
            await until(
                "another worker to take a table, or three leases",
                lambda: (
                    time.monotonic() > at + 3 * LEASE
                    or (
                        (row := self.leases().get(table_id or "")) is not None and row.epoch > epoch
                    )
                ),
                60,
            )
        finally:
            for backend in backends:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(backend, signal.SIGCONT)


def _check_the_books(store: Any, acks: list[dict[str, Any]]) -> None:
    """Every acknowledged action once, and in its hand's record when the hand was settled."""
    assert len(acks) > 50, len(acks)
    turns = Counter((a["table"], a["hand"], a["turn_id"]) for a in acks)
    twice = [turn for turn, count in turns.items() if count > 1]
    assert not twice, f"acknowledged twice: {twice[:5]}"
    hands: dict[int, list[dict[str, Any]]] = {}
    for ack in acks:
        hands.setdefault(ack["hand"], []).append(ack)
    with store.transaction(write=False) as tx:
        rows = tx.get_hands(sorted(hands))
        settled = tx.c.exec_driver_sql(
            "SELECT count(*), count(DISTINCT hand_id) FROM hands WHERE status = 'settled'"
        ).one()
    assert settled[0] == settled[1]
    # (a hand still in play when the workers stopped is voided by the next to run the table)
    counted = {"settled": 0, "void": 0, "started": 0}
    for hand_id, acked in hands.items():
        row = rows.get(hand_id)
        assert row is not None, f"hand {hand_id} is not in the books"
        assert row.status in counted, (hand_id, row.status)
        counted[row.status] += 1
        if row.status != "settled":
            continue
        record = json.loads(row.record)
        for seat in {a["seat"] for a in acked}:
            ordered = sorted(acked, key=lambda a: a["turn_id"])
            mine = [a["action"] for a in ordered if a["seat"] == seat]
            done = [str(a) for s, a in record["actions"] if s == seat]
            assert _within(mine, done), f"hand {hand_id}, seat {seat}: {mine} not in {done}"
    assert counted["settled"] >= 5, counted  # (hands with acknowledged actions)
    print(f"chaos: {len(acks)} actions acknowledged in {len(hands)} hands {counted}")


def _within(acked: list[str], done: list[str]) -> bool:
    """Whether ``acked`` is ``done`` with some left out (a timeout's fold, say), in order."""
    rest = iter(done)
    return all(any(a == d for d in rest) for a in acked)

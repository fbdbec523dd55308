"""A local cluster for the tests: worker processes (``feltroom serve --role worker``) and
gateway processes (``--role gateway``) on a throwaway PostgreSQL and Redis, and what the tests
read back from the database."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
from redis.exceptions import RedisError
from websockets.asyncio.client import connect

from feltroom.cluster.client import TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier
from feltroom.room.storage import LeaseRow, Storage
from server.live import Client
from services import free_port

T = TypeVar("T")

PASSWORD = "correct horse"
SMALL_CALL = 100  # two big blinds at the tables below: play_along calls up to this

TABLES = """
[[table]]
id = "c1"
preset = "nl_25_50"
max_seats = 6

[[table]]
id = "c2"
preset = "nl_25_50"
max_seats = 6
"""


class Workers:
    """Worker processes, each logging to a file of its own."""

    def __init__(
        self,
        folder: Path,
        db: str,
        broker: str,
        lease: float = 1.0,
        think: float = 0.6,
        *,
        tables: str = TABLES,
        house_bots: int = 2,
        env: dict[str, str] | None = None,
    ) -> None:
        self.folder = folder
        self.db, self.broker, self.lease, self.think = db, broker, lease, think
        self.house_bots = house_bots
        self.env = None if env is None else {**os.environ, **env}
        self.tables = folder / "tables.toml"
        self.tables.write_text(tables)
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(
        self, name: str, *, load_tables: bool = False, direct: bool = False
    ) -> subprocess.Popen[bytes]:
        """Worker ``name``; ``direct``: with its direct links on a Unix socket in the folder."""
        command = [
            sys.executable,
            "-m",
            "feltroom.cli",
            "serve",
            "--role",
            "worker",
            "--db",
            self.db,
            "--broker",
            self.broker,
            "--lease-seconds",
            str(self.lease),
            "--house-bots",
            str(self.house_bots),
            "--bot-think",
            # Bots take 0.15 to 0.6 s an action: a hand cannot finish between a test's reading
            # of the books and its kill -9 (the books then hold the start-of-hand stacks).
            str(self.think),
        ]
        if load_tables:
            command += ["--tables", str(self.tables)]
        if direct:
            command += ["--direct", f"unix:{self.folder}/{name}.sock"]
        log = (self.folder / f"{name}.log").open("ab")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        self.processes[name] = process
        return process

    def start_gateway(self, name: str, port: int | None = None) -> int:
        """A gateway on ``port`` (a free loopback port by default: a gateway started again
        takes its old one); returns the port once it serves."""
        port = port or free_port()
        before = len(self.log(name)) if (self.folder / f"{name}.log").exists() else 0
        command = [
            sys.executable,
            "-m",
            "feltroom.cli",
            "serve",
            "--role",
            "gateway",
            "--db",
            self.db,
            "--broker",
            self.broker,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
        log = (self.folder / f"{name}.log").open("ab")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        self.processes[name] = process

        def serving() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"gateway {name} ended: {self.log(name)[-2000:]}")
            return f":{port}/" in self.log(name)[before:]

        # A loaded machine: the interpreter's start and the database's migration take a while.
        wait_for(f"gateway {name} to serve", serving, 180)
        return port

    def kill(self, name: str) -> float:
        """SIGKILL the worker; returns the time it was sent."""
        at = time.time()
        os.kill(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait()
        return at

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def tails(self, lines: int = 30) -> str:
        """The last lines of every process's log, for a failing test's message."""
        return "\n".join(
            f"--- {name} (exit {process.poll()}):\n"
            + "\n".join(self.log(name).splitlines()[-lines:])
            for name, process in self.processes.items()
        )

    def owners(self, owned: dict[str, LeaseRow]) -> dict[str, str]:
        """Which of the processes started here owns each table of ``owned``."""
        pids = {str(p.pid): n for n, p in self.processes.items()}
        return {t: pids[row.owner.split(".")[0].rsplit("-", 1)[1]] for t, row in owned.items()}

    def start_two_by_two(self, store: Storage) -> tuple[dict[str, int], dict[str, str]]:
        """Workers a (loading the tables) and b, gateways A and B; returns the gateways' ports
        and, once each worker owns one table, which worker owns each table."""
        self.start("worker-a", load_tables=True)
        self.start("worker-b")
        ports = {"A": self.start_gateway("gateway-A"), "B": self.start_gateway("gateway-B")}
        return ports, self.owners(self.one_table_each(store))

    def one_table_each(self, store: Storage) -> dict[str, LeaseRow]:
        """The running leases, once each of the two tables has a worker of its own."""
        found: dict[str, LeaseRow] = wait_for(
            "each worker to own one table",
            lambda: (
                (held := leases(store))
                and len(held) == 2
                and len({row.owner for row in held.values()}) == 2
                and held
            ),
            60,
        )
        return found

    def both_tables_of(self, store: Storage, name: str) -> dict[str, LeaseRow]:
        """The running leases, once worker ``name`` owns both tables."""
        found: dict[str, LeaseRow] = wait_for(
            f"{name} to own both tables",
            lambda: (
                (held := leases(store))
                and len(held) == 2
                and set(self.owners(held).values()) == {name}
                and held
            ),
            60,
        )
        return found


def players(storage: Storage, *names: str) -> Accounts:
    """Sign these players up (password ``PASSWORD``), each with 100,000 play chips; their
    accounts."""
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    for name in names:
        accounts.sign_up(name, PASSWORD)
        Cashier(storage).grant(name, 100_000, f"{name}-grant")
    return accounts


def leases(storage: Storage) -> dict[str, LeaseRow]:
    """The running leases by table id."""
    with storage.transaction(write=False) as tx:
        now = tx.database_time()
        return {row.table_id: row for row in tx.all_leases() if row.expires_at > now}


def wait_for(what: str, check: Callable[[], T | None], seconds: float = 30.0) -> T:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting {seconds} s for {what}")


async def batches(client: TableClient, table_id: str) -> AsyncIterator[dict[str, Any]]:
    """The table's batches, across the broker's restart (subscribing again)."""
    while True:
        try:
            async for batch in client.watch(table_id):
                yield batch
        except (RedisError, OSError):
            await asyncio.sleep(0.2)


async def until(what: str, check: Any, seconds: float = 30.0) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting {seconds} s for {what}")


async def until_ok(call: Any, seconds: float = 20.0) -> Any:
    end = time.monotonic() + seconds
    while True:
        try:
            return await call()
        except Exception:
            if time.monotonic() > end:
                raise
            await asyncio.sleep(0.5)


async def sign_in(port: int, name: str, password: str = PASSWORD) -> str:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        response = await http.post("/api/signin", json={"name": name, "password": password})
        response.raise_for_status()
        token: str = response.json()["token"]
    return token


@contextlib.asynccontextmanager
async def ws_client(port: int, name: str, token: str) -> AsyncIterator[tuple[Client, Any]]:
    async with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        client = Client(ws, name)
        welcome = await client.request({"type": "hello", "version": 1, "token": token})
        assert welcome["type"] == "welcome", welcome
        yield client, welcome


def choose(legal: dict[str, Any]) -> str:
    """A test player's action: check, or call a small bet, else fold (``play_along``)."""
    call = legal.get("call")
    if legal.get("check"):
        return "check"
    if call is not None and call <= SMALL_CALL:
        return "call"
    return "fold"


async def play_along(client: Client, table_id: str, seat: int) -> None:
    """Check, or call a small bet, whenever it is the client's turn (a turn it was shown
    before this began, too), and fold to a larger one: a house bot's shove called would bust
    the player, who is then sat out and dealt no more. Every frame is kept in its log."""
    turns = [m for m in client.log if m["type"] == "turn"]
    pending = turns[-1:]
    while True:
        message = pending.pop() if pending else await client.recv(60)
        if message["type"] == "turn" and message["seat"] == seat and message.get("legal"):
            action = choose(message["legal"])
            await client.send(
                {
                    "type": "act",
                    "table": table_id,
                    "hand": message["hand"],
                    "turn_id": message["turn_id"],
                    "action": action,
                }
            )


async def sit_two(first: Client, second: Client, table_id: str) -> list[int]:
    """Seat two players at the table (2,000 chips each); their seats. A sit at a taken seat is
    refused with a typed error, through the gateway."""
    seats = await free_seats(first, table_id)
    assert len(seats) >= 2, seats
    for client, seat in ((first, seats[0]), (second, seats[1])):
        sat = await client.request({"type": "sit", "table": table_id, "seat": seat, "buy_in": 2000})
        assert sat["type"] == "ok", sat
    taken = {"type": "sit", "table": table_id, "seat": seats[0], "buy_in": 2000}
    refused = await second.request(taken)
    assert refused["type"] == "error", refused
    return seats


def play_two(
    first: Client, second: Client, table_id: str, seats: list[int]
) -> list[asyncio.Task[None]]:
    """``play_along`` for both players (at ``seats[0]`` and ``seats[1]``)."""
    return [
        asyncio.create_task(play_along(first, table_id, seats[0])),
        asyncio.create_task(play_along(second, table_id, seats[1])),
    ]


async def free_seats(client: Client, table_id: str) -> list[int]:
    reply = await client.request({"type": "observe", "table": table_id})
    assert reply["type"] == "ok", reply
    snap = await client.wait_for(lambda m: m["type"] == "snapshot" and m["table"] == table_id)
    taken = {entry["seat"] for entry in snap["view"]["seats"]}
    return [seat for seat in range(1, 7) if seat not in taken]  # 6-max (support.TABLES)


async def until_json(http: httpx.AsyncClient, path: str, check: Any) -> Any:
    for _ in range(100):
        body = (await http.get(path)).json()
        if check(body):
            return body
        await asyncio.sleep(0.2)
    raise AssertionError(f"{path} never showed what was expected: {body}")

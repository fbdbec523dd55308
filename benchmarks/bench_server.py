"""`feltroom bench server [--json]`: the server under load from network bots in other processes.

The server is ``feltroom serve`` in a process of its own (a temporary SQLite file, persistence
on, house bots off, ``--bot-think 0`` so a hand follows the last at once), on loopback, with a
tables file of No-Limit 1/2 six-max tables written to a temporary folder. The bots are
``feltroom.bots.client.Client`` connections in ``--processes`` client processes (this script
run with ``--worker``), each bot one account at one seat, playing random legal actions
(``RandomBrain``) after a think time drawn uniformly from ``--think LOW HIGH``. A bot that busts
leaves and sits down again with a new buy-in.

The accounts (and their play chips and session tokens) are made in the database before the
server starts, with the cheapest Argon2id parameters: at the server's parameters a hash costs
about 0.15 s, so 600 sign-ups and sign-ins would spend three minutes of the two cores on
setup. Every bot still says ``hello`` with its token and plays over the websocket.

Measured per scenario, in a window that opens ``--warm-up`` seconds after every bot sat down:

- ``connections``: the bots' websockets;
- ``actions_per_second``: ``act`` messages sent in the window and broadcast back;
- ``hands_per_second``: ``hand_ended`` events (counted by one bot per table);
- ``latency_ms``: p50, p99 and max of the action-to-broadcast latency: from a bot sending
  ``act`` to that bot receiving the event that broadcasts its action, on its own monotonic
  clock (client-side delays under load included);
- ``rss_mb``: the server's resident memory (``VmRSS`` of ``/proc/<pid>/status``) at the end;
- ``server_cpu_percent``: the server process's CPU time in the window (100: one core busy);
- ``ping_ms``: p50, p99 and max of a ``ping``'s round trip on a connection that does nothing
  else (ten a second): the server's event loop and hub apart from any table;
- ``client_lag_ms``: p99 and max of how late the client processes' event loops woke a 10 ms
  sleep (the part of a latency that is the clients' own, on a shared machine);
- ``audit``: ``feltroom audit --db ... --shuffles 0`` after the server stopped.

Scenarios (the defaults are the issue's):

- ``a``: ``--tables`` (100) tables x 6 bots thinking 0.25..0.75 s, for ``--seconds`` (60);
  target p99 at most 50 ms.
- ``b``: no think time; the table count steps up through ``--steps`` (4,8,16,32,64), each step
  ``--step-seconds`` (15) long, until two steps in a row raise actions/s less than 5 % over the
  best step (one step may be noise on a shared machine); the line reports the best step and
  lists them all; target at least 1,000 actions/s.

``--json`` prints one object per scenario per line: ``{"scenario", "tables", "connections",
"actions_per_second", "hands_per_second", "latency_ms": {"p50", "p99", "max"}, "rss_mb",
"server_cpu_percent", "ping_ms", "client_lag_ms", "audit"}`` (scenario ``b`` also ``"steps"``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvloop

from feltroom.server.collector import calm_collector
from served import Children, ServedRoom, loopback_config, percentile

SEATS = 6
BUY_IN = 200
PASSWORD = "bench-password"
CAPACITY_THINK = (2.0, 6.0)
CAPACITY_P99_MS = 100.0
ACTION_EVENTS = frozenset({"folded", "checked", "called", "raised"})
REPLY_SECONDS = 10.0
NOTABLE = frozenset({"timed_out", "table_paused", "hand_voided", "disconnected"})

TABLE = """
[[table]]
id = "t{k}"
name = "Bench {k}"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = {seats}
min_buy_in = 40
max_buy_in = 400
act_seconds = 30
"""


# ------------------------------------------------------------------------------ client processes


class Records:
    """What one client process measured: (sent, latency) per action, hand ends, refusals."""

    def __init__(self) -> None:
        self.actions: list[tuple[float, float]] = []
        self.hands: list[float] = []
        self.refused = 0
        self.rebuys = 0
        self.notable: dict[str, int] = {}
        self.lag: list[tuple[float, float]] = []
        self.pings: list[tuple[float, float]] = []


class Bot:
    """One network bot: one account at one seat, random legal actions after a think time."""

    def __init__(
        self,
        url: str,
        spec: list[Any],
        think: tuple[float, float],
        records: Records,
        seed: int,
    ) -> None:
        from feltroom.bots.client import Client
        from feltroom.strategy import RandomBrain

        self.table, self.seat, self.name, token = str(spec[0]), int(spec[1]), spec[2], spec[3]
        self.client = Client(url, keep_messages=False, on_message=self.on_message, timeout=60)
        self.client.token = str(token)
        self.think = think
        self.records = records
        self.random = random.Random(seed)
        self.brain = RandomBrain(seed, fold=0.2, passive=0.6, aggressive=0.2)
        self.counts_hands = self.seat == 1
        self.sent: float | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.pace = Pace()

    async def start(self) -> None:
        await self.client.connect()
        await self.client.sit(self.table, self.seat, buy_in=BUY_IN, entry="post")

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "turn":
            if message.get("seat") == self.seat and message.get("legal") is not None:
                self.spawn(self.act(int(message["hand"])))
            return
        if kind == "error":
            code = f"error {message.get('code')}"
            self.records.notable[code] = self.records.notable.get(code, 0) + 1
            return
        if kind != "event":
            return
        event = message.get("kind")
        if event in NOTABLE and self.counts_hands:
            self.records.notable[event] = self.records.notable.get(event, 0) + 1
        if event in ACTION_EVENTS and message.get("seat") == self.seat and self.sent is not None:
            now = time.monotonic()
            self.records.actions.append((self.sent, now - self.sent))
            self.sent = None
        elif event == "hand_ended" and self.counts_hands:
            self.records.hands.append(time.monotonic())
        elif (
            event == "sat_out"
            and message.get("seat") == self.seat
            and message.get("reason") == "busted"
        ):
            self.spawn(self.rebuy())

    async def act(self, hand: int) -> None:
        from feltroom.bots.client import ClientError, action_message

        low, high = self.think
        if high > 0:
            await asyncio.sleep(self.random.uniform(low, high))
        await self.pace.take()
        state = self.client.tables.get(self.table)
        if self.stopping or state is None or not state.my_turn or state.hand != hand:
            return
        legal = state.legal_actions()
        assert legal is not None
        message = action_message(self.table, hand, self.brain.choose(None, legal), legal)
        self.sent = time.monotonic()
        try:
            await self.client.request(message, timeout=REPLY_SECONDS)
        except (ClientError, TimeoutError):
            if not self.stopping:
                self.records.refused += 1
            self.sent = None

    async def rebuy(self) -> None:
        """Leave the seat (the stack is empty) and sit down again with a new buy-in."""
        from feltroom.bots.client import ClientError

        try:
            await self.pace.take()
            await self.client.request({"type": "leave", "table": self.table}, timeout=REPLY_SECONDS)
            for _ in range(200):
                state = self.client.tables.get(self.table)
                if state is None or state.you is None or self.stopping:
                    break
                await asyncio.sleep(0.05)
            if not self.stopping:
                await self.pace.take()
                await self.client.sit(self.table, self.seat, buy_in=BUY_IN, entry="post")
                self.records.rebuys += 1
        except (ClientError, TimeoutError) as error:
            if not self.stopping:
                print(f"  {self.name} could not buy in again: {error}", file=sys.stderr)


class Pace:
    """A token bucket that keeps a connection under the server's inbound rate limit (20
    messages a second, bursts of 40: docs/protocol.md); a message over it would be refused
    with a ``rate_limited`` error whose ``ref`` is null, leaving the request unanswered."""

    def __init__(self, rate: float = 18.0, burst: float = 30.0) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    async def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.rate)
            self.at = time.monotonic()
            self.tokens = 1.0
        self.tokens -= 1


async def _probe(url: str, token: str, records: Records) -> None:
    """A connection that only pings, ten times a second: the server's own responsiveness (its
    event loop and the hub) apart from any table."""
    from feltroom.bots.client import Client, ClientError

    client = Client(url, keep_messages=False)
    client.token = token
    try:
        await client.connect()
        while True:
            start = time.monotonic()
            await client.ping()
            records.pings.append((start, time.monotonic() - start))
            await asyncio.sleep(0.1)
    except ClientError as error:
        print(f"  the probe stopped: {error}", file=sys.stderr)
    finally:
        await client.close()


async def _worker(url: str, think: tuple[float, float], seed: int) -> None:
    """A client process: bots added on command (``{"bots": [...]}``), counts on request
    (``{"count": [t0, t1]}``), everything measured on ``{"stop": true}``; one JSON line out
    per command."""
    records = Records()
    bots: list[Bot] = []
    loop = asyncio.get_running_loop()
    # The clients hold thousands of connections too: without this their own full collections
    # (0.3 to 0.6 s each at 2,500 connections) would be counted as the room's latency.
    calm_collector()

    async def watch_lag() -> None:
        """How late the process's event loop wakes a 10 ms sleep: the client's own delay."""
        while True:
            start = time.monotonic()
            await asyncio.sleep(0.01)
            records.lag.append((start, time.monotonic() - start - 0.01))

    lag_task = loop.create_task(watch_lag())
    probe_task: asyncio.Task[None] | None = None

    def reply(answer: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()

    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        command = json.loads(line)
        if "probe" in command:
            probe_task = loop.create_task(_probe(url, command["probe"], records))
            reply({"probing": True})
        elif "bots" in command:
            new = [
                Bot(url, spec, think, records, seed * 100_003 + len(bots) + k)
                for k, spec in enumerate(command["bots"])
            ]
            gate = asyncio.Semaphore(16)

            async def start(bot: Bot, gate: asyncio.Semaphore = gate) -> str | None:
                async with gate:
                    try:
                        await bot.start()
                    except Exception as error:
                        return f"{bot.name}: {error}"
                return None

            failures = [f for f in await asyncio.gather(*(start(b) for b in new)) if f]
            bots.extend(new)
            reply({"seated": len(new) - len(failures), "failures": failures[:3]})
        elif "count" in command:
            t0, t1 = command["count"]
            reply({"actions": sum(1 for sent, _ in records.actions if t0 <= sent < t1)})
        elif "latencies" in command:
            t0, t1 = command["latencies"]
            reply({"latencies": [d for sent, d in records.actions if t0 <= sent < t1]})
        elif "stop" in command:
            lag_task.cancel()
            if probe_task is not None:
                probe_task.cancel()
            for bot in bots:
                bot.stopping = True
                if not bot.client.connected:
                    key = f"lost (close code {bot.client.close_code})"
                    records.notable[key] = records.notable.get(key, 0) + 1
            await asyncio.gather(*(bot.client.close() for bot in bots), return_exceptions=True)
            reply(
                {
                    "actions": records.actions,
                    "hands": records.hands,
                    "refused": records.refused,
                    "rebuys": records.rebuys,
                    "notable": records.notable,
                    "lag": records.lag,
                    "pings": records.pings,
                }
            )
            break


class Workers(Children):
    """The client processes (``served.Children`` running this script's ``_worker``)."""

    def __init__(self, url: str, count: int, think: tuple[float, float]) -> None:
        super().__init__(
            __file__, [[url, str(think[0]), str(think[1]), str(k + 1)] for k in range(count)]
        )

    def add(self, specs: list[list[Any]]) -> int:
        """Seat these bots (spread over the processes by table); the number seated."""
        shares: list[list[list[Any]]] = [[] for _ in self.processes]
        for spec in specs:
            shares[int(str(spec[0])[1:]) % len(shares)].append(spec)
        answers = self.ask([{"bots": share} for share in shares])
        for answer in answers:
            for failure in answer["failures"]:
                print(f"  a bot could not sit: {failure}", file=sys.stderr)
        return sum(int(a["seated"]) for a in answers)

    def probe(self, token: str) -> None:
        """Start the ping probe in the first client process."""
        process = self.processes[0]
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps({"probe": token}) + "\n")
        process.stdin.flush()
        process.stdout.readline()

    def count(self, t0: float, t1: float) -> int:
        return sum(int(a["actions"]) for a in self.ask([{"count": [t0, t1]}] * len(self.processes)))

    def latencies(self, t0: float, t1: float) -> list[float]:
        """The action-to-broadcast latencies of the actions sent in ``[t0, t1)``."""
        answers = self.ask([{"latencies": [t0, t1]}] * len(self.processes))
        return [float(d) for answer in answers for d in answer["latencies"]]

    def stop(self) -> Records:
        records = Records()
        for answer in self.ask([{"stop": True}] * len(self.processes)):
            records.actions.extend((float(s), float(d)) for s, d in answer["actions"])
            records.hands.extend(float(t) for t in answer["hands"])
            records.refused += int(answer["refused"])
            records.rebuys += int(answer["rebuys"])
            records.lag.extend((float(s), float(d)) for s, d in answer["lag"])
            records.pings.extend((float(s), float(d)) for s, d in answer["pings"])
            for kind, n in answer["notable"].items():
                records.notable[kind] = records.notable.get(kind, 0) + int(n)
        self.wait()
        return records


# ------------------------------------------------------------------------------------ the server


class Server(ServedRoom):
    """``feltroom serve`` in its own process on a free loopback port, with its own database
    and a tables file of ``tables`` six-seat tables."""

    def __init__(self, folder: Path, tables: int, real_pace: bool = False) -> None:
        tables_file = write_tables(folder, tables)
        options = ["--tables", str(tables_file), *room_options(real_pace)]
        # (every bot connects from 127.0.0.1: the per-address cap holds a bot in every seat)
        config = loopback_config(folder, tables * SEATS)
        super().__init__(folder, [*options, "--config", str(config)])


def write_tables(folder: Path, tables: int) -> Path:
    """The tables file of ``tables`` six-seat No-Limit 1/2 tables, in ``folder``."""
    path = folder / "tables.toml"
    path.write_text("".join(TABLE.format(k=k, seats=SEATS) for k in range(1, tables + 1)), "utf-8")
    return path


def room_options(real_pace: bool) -> list[str]:
    """No house bots; the next hand at once, or (``real_pace``, the capacity runs) after the
    room's usual pauses between hands (2 s, 4 s after a showdown)."""
    return ["--house-bots", "0", "--bot-think", "2" if real_pace else "0"]


# ---------------------------------------------------------------------------------- scenarios


def _window(records: Records, t0: float, t1: float) -> dict[str, Any]:
    latencies = [d for s, d in records.actions if t0 <= s < t1]
    hands = sum(1 for t in records.hands if t0 <= t < t1)
    lag = [d for s, d in records.lag if t0 <= s < t1]
    pings = [d for s, d in records.pings if t0 <= s < t1]
    span = t1 - t0
    return {
        "actions_per_second": round(len(latencies) / span, 1),
        "hands_per_second": round(hands / span, 2),
        "latency_ms": {
            "p50": round(percentile(latencies, 0.50) * 1000, 2),
            "p99": round(percentile(latencies, 0.99) * 1000, 2),
            "max": round(max(latencies, default=0.0) * 1000, 2),
        },
        "ping_ms": {
            "p50": round(percentile(pings, 0.50) * 1000, 2),
            "p99": round(percentile(pings, 0.99) * 1000, 2),
            "max": round(max(pings, default=0.0) * 1000, 2),
        },
        "client_lag_ms": {
            "p99": round(percentile(lag, 0.99) * 1000, 2),
            "max": round(max(lag, default=0.0) * 1000, 2),
        },
    }


def _specs(
    first: int, last: int, tokens: dict[str, str], *, named_only: bool = False
) -> list[list[Any]]:
    """The bots of tables ``first`` to ``last``: table, seat, name, token (none: ``named_only``)."""
    return [
        [f"t{k}", seat, f"b{k}s{seat}", None if named_only else tokens[f"b{k}s{seat}"]]
        for k in range(first, last + 1)
        for seat in range(1, SEATS + 1)
    ]


def per_action(before: dict[str, float], after: dict[str, float], actions: int) -> dict[str, Any]:
    """What the room spent per action in a window, from its counters at both ends
    (``ServedRoom.sample``; a cluster's also per part and the broker's commands)."""
    spent = {key: after[key] - before[key] for key in before}

    def per(value: float, scale: float, digits: int) -> float | None:
        return round(scale * value / actions, digits) if actions else None  # none: no figure

    figures: dict[str, Any] = {"server_cpu_ms_per_action": per(spent["cpu"], 1000, 3)}
    if "broker_commands" in spent:
        figures["broker_messages_per_action"] = per(spent["broker_commands"], 1, 2)
    parts = {k: per(spent[k], 1000, 3) for k in ("room", "broker", "database") if k in spent}
    if parts:
        figures["cpu_ms_per_action_by_part"] = parts
    return figures


def _actions(records: Records, t0: float, t1: float) -> int:
    return sum(1 for sent, _ in records.actions if t0 <= sent < t1)


def run_scenario(
    name: str,
    steps: list[int],
    seconds: float,
    think: tuple[float, float],
    processes: int,
    warm_up: float,
    make_room: Callable[[Path, int], Any] = Server,
) -> dict[str, Any]:
    """One scenario: the tables of each step added in turn, each step measured for
    ``seconds``; scenario ``b`` stops after two steps in a row without a 5 % rise.
    ``make_room(folder, tables)`` makes the room (``Server``: one ``feltroom serve``)."""
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-server-"))
    room = make_room(folder, max(steps))
    workers: Workers | None = None
    results: list[dict[str, Any]] = []
    try:
        names = [f"b{k}s{seat}" for k in range(1, max(steps) + 1) for seat in range(1, SEATS + 1)]
        tokens = room.seed_accounts([*names, "probe"], PASSWORD, 1_000_000)
        room.start()
        workers = Workers(room.url, processes, think)
        workers.probe(tokens["probe"])
        seated, tables, windows, misses = 0, 0, [], 0
        for step in steps:
            seated += workers.add(_specs(tables + 1, step, tokens))
            tables = step
            time.sleep(warm_up)
            t0, sample0 = time.monotonic(), room.sample()
            print(f"  [{name}] {step} tables: a window of {seconds:g} s", file=sys.stderr)
            time.sleep(seconds)
            t1, sample1 = time.monotonic(), room.sample()
            rate = workers.count(t0, t1) / (t1 - t0)
            cpu = round(100 * (sample1["cpu"] - sample0["cpu"]) / (t1 - t0))
            windows.append((step, seated, t0, t1, room.rss_mb(), cpu, sample0, sample1))
            print(
                f"  [{name}] {step} tables, {seated} bots: {rate:.0f} actions/s",
                file=sys.stderr,
            )
            misses = misses + 1 if results and rate < max(results) * 1.05 else 0
            results.append(rate)
            if misses >= 2:
                break
        records = workers.stop()
        workers = None
        room.stop()
        audit = room.audit()
        print(
            f"  [{name}] refused or unanswered actions {records.refused}, rebuys {records.rebuys}, "
            f"other: {records.notable or 'none'}",
            file=sys.stderr,
        )
    except BaseException:
        print(room.log_tail(), file=sys.stderr)
        raise
    finally:
        if workers is not None:
            workers.kill()
        room.close()
        shutil.rmtree(folder, ignore_errors=True)
    lines = []
    for step, bots, t0, t1, rss, cpu, sample0, sample1 in windows:
        line = (
            {"scenario": name, "tables": step, "connections": bots}
            | _window(records, t0, t1)
            | {"rss_mb": rss, "server_cpu_percent": cpu}
            | per_action(sample0, sample1, _actions(records, t0, t1))
        )
        if "database_commits" in sample0:
            hands = sum(1 for t in records.hands if t0 <= t < t1)
            commits = sample1["database_commits"] - sample0["database_commits"]
            line["database_commits_per_hand"] = round(commits / max(hands, 1), 2)
        lines.append(line | {"audit": audit})
    best_line = max(lines, key=lambda line: line["actions_per_second"])
    if len(lines) > 1:
        best_line["steps"] = [
            {
                "tables": line["tables"],
                "actions_per_second": line["actions_per_second"],
                "p99_ms": line["latency_ms"]["p99"],
            }
            for line in lines
        ]
    return best_line


def raise_open_files() -> int:
    """``ulimit -n`` raised to its hard limit (the client processes and the room's inherit it):
    every bot is a socket in a client process and one in the room. Returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        want = 1_048_576 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _cpu_percent(before: dict[str, float], after: dict[str, float], span: float) -> dict[str, int]:
    parts = [k for k in ("room", "broker", "database") if k in before] or ["cpu"]
    parts.append("bots")
    return {
        ("room" if k == "cpu" else k): round(100 * (after[k] - before[k]) / span) for k in parts
    }


def run_capacity(
    first: int,
    step: int,
    most: int,
    seconds: float,
    processes: int,
    warm_up: float,
    make_room: Callable[..., Any] = Server,
) -> dict[str, Any]:
    """``--capacity``: six-seat tables, bots thinking 2 to 6 s (the room pausing between hands
    as it does for people); ``first`` bots, then ``step`` more at a time up to ``most``, each
    count held for a window of ``seconds``; stops at the first count whose p99 latency is over
    100 ms (or whose bots could not all sit). The line is the largest count that held."""
    limit = raise_open_files()
    if 2 * most + 200 > limit:
        raise SystemExit(
            f"feltroom bench: --capacity-max {most} needs about {2 * most + 200} open files; "
            f"the hard limit (ulimit -Hn) is {limit}"
        )
    tables_most = -(-most // SEATS)
    folder = Path(tempfile.mkdtemp(prefix="feltroom-bench-capacity-"))
    room = make_room(folder, tables_most, real_pace=True)
    workers: Workers | None = None
    steps: list[dict[str, Any]] = []
    try:
        tokens = room.seed_accounts(["probe"], PASSWORD, 1_000_000)
        room.start()
        empty_rss = room.rss_mb()
        workers = Workers(room.url, processes, CAPACITY_THINK)
        workers.probe(tokens["probe"])
        seated, tables, count = 0, 0, first
        while count <= most:
            target = -(-count // SEATS)
            names = [spec[2] for spec in _specs(tables + 1, target, {}, named_only=True)]
            tokens |= room.seed_accounts(names, PASSWORD, 1_000_000)
            seated += workers.add(_specs(tables + 1, target, tokens))
            tables = target
            time.sleep(warm_up)
            t0, sample0 = time.monotonic(), room.sample() | {"bots": workers.cpu_seconds()}
            time.sleep(seconds)
            t1, sample1 = time.monotonic(), room.sample() | {"bots": workers.cpu_seconds()}
            latencies = workers.latencies(t0, t1)
            rss = room.rss_mb()
            line = {
                "connections": seated,
                "tables": tables,
                "actions_per_second": round(len(latencies) / (t1 - t0), 1),
                "latency_ms": {
                    "p50": round(percentile(latencies, 0.50) * 1000, 2),
                    "p99": round(percentile(latencies, 0.99) * 1000, 2),
                    "max": round(max(latencies, default=0.0) * 1000, 2),
                },
                "cpu_percent": _cpu_percent(sample0, sample1, t1 - t0),
                "rss_mb": rss,
                "memory_per_connection_kib": round((rss - empty_rss) * 1024 / max(seated, 1), 1),
            } | per_action(sample0, sample1, len(latencies))
            held = line["latency_ms"]["p99"] <= CAPACITY_P99_MS and seated == tables * SEATS
            line["held"] = held
            steps.append(line)
            print(
                f"  [capacity] {seated} bots at {tables} tables: p99 "
                f"{line['latency_ms']['p99']} ms, {line['actions_per_second']} actions/s, "
                f"CPU {line['cpu_percent']} %: {'held' if held else 'did not hold'}",
                file=sys.stderr,
            )
            if not held:
                break
            count += step
        records = workers.stop()
        workers = None
        room.stop()
        audit = room.audit()
        print(
            f"  [capacity] refused or unanswered actions {records.refused}, other: "
            f"{records.notable or 'none'}",
            file=sys.stderr,
        )
    except BaseException:
        print(room.log_tail(), file=sys.stderr)
        raise
    finally:
        if workers is not None:
            workers.kill()
        room.close()
        shutil.rmtree(folder, ignore_errors=True)
    held_steps = [line for line in steps if line["held"]]
    best = held_steps[-1] if held_steps else steps[0]
    return (
        {
            "scenario": "capacity",
            "capacity": best["connections"] if held_steps else 0,
            "think": list(CAPACITY_THINK),
            "window_seconds": seconds,
        }
        | {k: v for k, v in best.items() if k != "held"}
        | {
            "steps": [
                {
                    "connections": line["connections"],
                    "p99_ms": line["latency_ms"]["p99"],
                    "actions_per_second": line["actions_per_second"],
                    "cpu_percent": line["cpu_percent"],
                    "held": line["held"],
                }
                for line in steps
            ],
            "audit": audit,
        }
    )


def _print(line: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(line), flush=True)
        return
    latency = line["latency_ms"]
    if line["scenario"] == "capacity":
        print(
            f"capacity: {line['capacity']} bot players held p99 <= {CAPACITY_P99_MS:.0f} ms "
            f"(think {line['think'][0]:g}-{line['think'][1]:g} s, {line['window_seconds']:g} s "
            f"windows): {line['actions_per_second']} actions/s, latency p99 {latency['p99']} ms, "
            f"CPU {line['cpu_percent']} % of a core, "
            f"{line['server_cpu_ms_per_action']} ms of room CPU per action, "
            f"{line['memory_per_connection_kib']} KiB per connection, audit "
            f"{'pass' if line['audit'] else 'FAIL'}",
            flush=True,
        )
        for step in line["steps"]:
            print(
                f"  {step['connections']:>6} bots: p99 {step['p99_ms']} ms, "
                f"{step['actions_per_second']} actions/s, CPU {step['cpu_percent']} %",
                flush=True,
            )
        return
    cluster = ""
    if "workers" in line:
        cluster = (
            f"{line['gateways']} gateways, {line['workers']} workers, "
            f"{line['broker_messages_per_action']} broker messages per action, "
        )
    print(
        f"scenario {line['scenario']}: {cluster}{line['tables']} tables, {line['connections']} "
        f"connections: {line['actions_per_second']} actions/s, {line['hands_per_second']} "
        f"hands/s, latency p50 {latency['p50']} ms p99 {latency['p99']} ms max "
        f"{latency['max']} ms, server RSS {line['rss_mb']} MB, server CPU "
        f"{line['server_cpu_percent']} % of a core, {line['server_cpu_ms_per_action']} ms per "
        f"action, ping p99 {line['ping_ms']['p99']} ms, client loop lag p99 "
        f"{line['client_lag_ms']['p99']} ms, audit "
        f"{'pass' if line['audit'] else 'FAIL'}",
        flush=True,
    )
    for step in line.get("steps", []):
        print(
            f"  {step['tables']:>4} tables: {step['actions_per_second']} actions/s, "
            f"p99 {step['p99_ms']} ms",
            flush=True,
        )


def parser_for(prog: str, description: str | None) -> argparse.ArgumentParser:
    """The options of ``bench server``, which ``bench cluster`` shares."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--scenario", choices=("a", "b", "all"), default="all")
    parser.add_argument("--tables", type=int, default=100, metavar="T", help="scenario a")
    parser.add_argument("--seconds", type=float, default=60.0, metavar="S", help="scenario a")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.25, 0.75),
        metavar=("LOW", "HIGH"),
        help="scenario a's think time, seconds",
    )
    parser.add_argument(
        "--steps", default="4,8,16,32,64", metavar="T1,T2,...", help="scenario b's table counts"
    )
    parser.add_argument("--step-seconds", type=float, default=15.0, metavar="S")
    parser.add_argument("--processes", type=int, default=2, metavar="P", help="client processes")
    parser.add_argument("--warm-up", type=float, default=3.0, metavar="S")
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="instead of the scenarios: the most bot players that keep p99 <= 100 ms",
    )
    parser.add_argument(
        "--capacity-start", type=int, default=5000, metavar="N", help="first count (5000)"
    )
    parser.add_argument(
        "--capacity-step", type=int, default=2500, metavar="N", help="added each step (2500)"
    )
    parser.add_argument(
        "--capacity-max", type=int, default=20000, metavar="N", help="last count tried (20000)"
    )
    parser.add_argument(
        "--capacity-seconds", type=float, default=180.0, metavar="S", help="window (180 s)"
    )
    parser.add_argument("--json", action="store_true")
    return parser


def run(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    make_room: Callable[..., Any],
    extra: dict[str, Any] | None = None,
) -> int:
    """Check the options, run what they ask for with rooms from ``make_room`` and print a
    line each (with the ``extra`` fields)."""
    try:
        steps = sorted({int(s) for s in args.steps.split(",")})
    except ValueError:
        parser.error(f"--steps takes table counts such as 4,8,16; got {args.steps!r}")
    if args.tables < 1 or args.seconds <= 0 or args.processes < 1 or not steps or steps[0] < 1:
        parser.error("--tables, --steps and --processes must be at least 1, --seconds positive")
    low, high = args.think
    if not 0 <= low <= high:
        parser.error("--think LOW HIGH needs 0 <= LOW <= HIGH")
    fields = extra or {}
    if args.capacity:
        first, step, most = args.capacity_start, args.capacity_step, args.capacity_max
        if first < 1 or step < 1 or most < first or args.capacity_seconds <= 0:
            parser.error(
                "--capacity-start and --capacity-step must be at least 1, --capacity-max at "
                f"least --capacity-start, --capacity-seconds positive; got {first}, {step}, "
                f"{most}, {args.capacity_seconds}"
            )
        line = run_capacity(
            first, step, most, args.capacity_seconds, args.processes, args.warm_up, make_room
        )
        _print(fields | line, args.json)
        return 0 if line["audit"] and line["capacity"] > 0 else 1
    ok = True
    if args.scenario in ("a", "all"):
        line = run_scenario(
            "a", [args.tables], args.seconds, (low, high), args.processes, args.warm_up, make_room
        )
        _print(line | fields, args.json)
        ok = ok and line["audit"]
    if args.scenario in ("b", "all"):
        line = run_scenario(
            "b", steps, args.step_seconds, (0.0, 0.0), args.processes, args.warm_up, make_room
        )
        _print(line | fields, args.json)
        ok = ok and line["audit"]
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        url, low, high, seed = argv[1], float(argv[2]), float(argv[3]), int(argv[4])
        uvloop.run(_worker(url, (low, high), seed))  # as the server: the load costs less CPU
        return 0
    parser = parser_for("feltroom bench server", __doc__)
    return run(parser, parser.parse_args(argv), Server)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`feltroom bench reads [--json]`: one account asks for its statistics as fast as it may while
another player pings (issue 40, item 5).

The server is ``feltroom serve`` in a process of its own (a temporary SQLite file, one No-Limit
table of house bots with ``--bot-think 0``, so hands follow one another at once). Once the table
has settled ``--hands`` hands, a session is opened in the database for one of its house bots
(the asker: an account with that many hands), and a player account (the pinger, made before
the start) says hello on a websocket.

- baseline: the pinger pings ten times a second for ``--seconds`` seconds, nothing else asks;
- attack: the asker calls ``GET /api/me/stats?since=...`` in a loop, each call a period of its
  own (so the cache cannot answer it), as fast as answers come back, at least ``--calls``
  times and for as long as the pinger pings ``--seconds`` seconds again.

Printed: the ping's p50, p99 and max in each phase and the p99's difference (target: at most
10 ms), the answers by status (200 computed, 429 refused), the server's resident memory before
the attack and after it (target: at most 20 MiB of growth over ``--calls`` calls), the load
average, and ``feltroom audit`` on the database after the server stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from served import ServedRoom, percentile, seed_accounts

PASSWORD = "bench-password"
TABLES = """
[[table]]
id = "bench"
structure = "no_limit"
small_blind = 1
big_blind = 2
max_seats = 6
"""


def _open_session(db: str, name: str) -> str:
    """A session for the account ``name`` (a house bot has no password), its token."""
    import secrets

    from feltroom.room.accounts import token_hash
    from feltroom.room.storage import SessionRow
    from feltroom.store import open_storage

    storage = open_storage(db)
    try:
        token = secrets.token_urlsafe(32)
        now = time.time()
        with storage.transaction() as tx:
            tx.add_session(SessionRow(token_hash(token), name, now, now + 86_400))
    finally:
        storage.close()
    return token


def _hands_of(db: str, name: str) -> int:
    from feltroom.store import open_storage

    storage = open_storage(db)
    try:
        with storage.transaction(write=False) as tx:
            return len(tx.hands_of_player(name, 100_000, None))
    finally:
        storage.close()


async def _pings(url: str, token: str, seconds: float) -> list[float]:
    """Ping ten times a second for ``seconds``; each round trip in ms."""
    found = []
    async with websockets.connect(url.replace("http", "ws") + "/ws") as ws:
        await ws.send(json.dumps({"type": "hello", "version": 1, "token": token, "id": 1}))
        while json.loads(await ws.recv()).get("type") != "welcome":
            pass
        end = time.monotonic() + seconds
        n = 1
        while time.monotonic() < end:
            n += 1
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "id": n}))
            while True:
                message = json.loads(await ws.recv())
                if message.get("type") == "pong" and message.get("ref") == n:
                    break
            found.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.1)
    return found


def _ask(url: str, token: str, calls: int, stop: threading.Event, out: dict[str, Any]) -> None:
    """The asker: statistics of a new period each call, as fast as answers come back."""
    statuses: dict[int, int] = {}
    computed: list[float] = []
    done = 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        while done < calls or not stop.is_set():
            since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(86_400 + done))
            started = time.perf_counter()
            try:
                answer = http.get(f"/api/me/stats?since={since}", timeout=600)
                status = answer.status_code
                if status == 200:
                    computed.append((time.perf_counter() - started) * 1000)
            except httpx.TimeoutException:
                status = 0  # (counted as 0: no answer within 10 minutes)
            statuses[status] = statuses.get(status, 0) + 1
            done += 1
            if done == calls:
                out["calls_done_at"] = time.monotonic()
                out["rss_after_calls"] = out["room"].rss_mb()
    out["statuses"] = statuses
    out["computed_ms"] = _figures(computed)
    out["calls"] = done


def _figures(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 0.50), 2),
        "p99": round(percentile(values, 0.99), 2),
        "max": round(max(values, default=0.0), 2),
        "n": len(values),
    }


def run(hands: int, seconds: float, calls: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="feltroom-bench-reads-") as tmp:
        folder = Path(tmp)
        tables = folder / "tables.toml"
        tables.write_text(TABLES, "utf-8")
        options = ["--tables", str(tables), "--house-bots", "6", "--bot-think", "0"]
        room = ServedRoom(folder, options)
        tokens = seed_accounts(room.db, ["pinger"], PASSWORD, 1000)
        room.start()
        try:
            asker = "bot.bench.1"
            deadline = time.monotonic() + 900
            while _hands_of(room.db, asker) < hands:
                if time.monotonic() > deadline:
                    raise RuntimeError("the table did not play enough hands in 15 minutes")
                time.sleep(2)
            asker_hands = _hands_of(room.db, asker)
            token = _open_session(room.db, asker)
            rss_start = room.rss_mb()
            baseline = asyncio.run(_pings(room.url, tokens["pinger"], seconds))
            out: dict[str, Any] = {"room": room}
            stop = threading.Event()
            rss_before = room.rss_mb()
            thread = threading.Thread(target=_ask, args=(room.url, token, calls, stop, out))
            load_before = os.getloadavg()
            thread.start()
            attacked = asyncio.run(_pings(room.url, tokens["pinger"], seconds))
            stop.set()
            thread.join()
            load_after = os.getloadavg()
            rss_end = room.rss_mb()
        finally:
            room.stop()
        audit = room.audit()
    base, attack = _figures(baseline), _figures(attacked)
    return {
        "asker_hands": asker_hands,
        "ping_ms_baseline": base,
        "ping_ms_attack": attack,
        "p99_difference_ms": round(attack["p99"] - base["p99"], 2),
        "calls": out["calls"],
        "statuses": out["statuses"],
        "computed_call_ms": out["computed_ms"],
        "rss_mb_baseline_growth": round(rss_before - rss_start, 1),
        "rss_mb_before": rss_before,
        "rss_mb_after_calls": out.get("rss_after_calls"),
        "rss_mb_end": rss_end,
        "rss_growth_mb": round(out.get("rss_after_calls", rss_end) - rss_before, 1),
        "load_average": {"before": load_before, "after": load_after},
        "audit": audit,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench reads", description=__doc__)
    parser.add_argument("--hands", type=int, default=5000, help="the asker's hands (5000)")
    parser.add_argument("--seconds", type=float, default=30.0, help="each phase's pings (30)")
    parser.add_argument("--calls", type=int, default=1000, help="the asker's calls (1000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = run(args.hands, args.seconds, args.calls)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    met = result["p99_difference_ms"] <= 10 and result["rss_growth_mb"] <= 20 and result["audit"]
    return 0 if met else 1

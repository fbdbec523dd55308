"""`feltroom bench signups [--count 40] [--pool 2] [--json]`: a crowd of sign-ups against a live
server, its memory and its event loop.

The server is ``feltroom serve`` in a process of its own (a temporary SQLite file, house bots
off, the real Argon2id parameters: 64 MiB and three passes a hash), on loopback, with
``--hash-pool POOL``. The sign-ups come from 127.0.0.1, which ``--signup-exempt`` exempts by
default, so the per-address limit does not hide the hashing: every one of them is hashed.

One account signs up and in first, and its websocket sends a ``ping`` every 60 ms and times the
``pong``. After ``--settle`` seconds the server's resident memory (``VmRSS``) is the baseline;
then ``--count`` sign-ups go at once, and the memory is sampled every 10 ms until the last
answer. Reported: the baseline and peak RSS and the rise, the bound ``pool x 64 MiB + 50 MiB``,
the ping round trips during the crowd (p50, p99, max; and before it, for comparison on a
shared machine), how long the crowd took, the answers'
status codes, and ``pass`` (rise within the bound and ping p99 under 50 ms).

``--json`` prints one object: ``{"count", "pool", "baseline_mb", "peak_mb", "rise_mb",
"bound_mb", "ping_ms": {"p50", "p99", "max", "n"}, "ping_idle_ms", "seconds", "statuses",
"pass"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from served import ServedRoom, percentile

ARGON2_MIB = 64
MARGIN_MIB = 50
PING_P99_MS = 50.0
PING_EVERY = 0.06
"""Seconds between pings: about 15 a second, under the server's 20 messages a second."""


class Server(ServedRoom):
    """``feltroom serve`` with house bots off and ``--hash-pool pool``."""

    def __init__(self, folder: Path, pool: int) -> None:
        super().__init__(folder, ["--house-bots", "0", "--hash-pool", str(pool)])
        self.pool = pool


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 0.50), 2),
        "p99": round(percentile(values, 0.99), 2),
        "max": round(max(values, default=0.0), 2),
        "n": len(values),
    }


async def measure(server: Server, count: int, settle: float) -> dict[str, Any]:
    """The crowd against a started server; the figures described in the module docstring."""
    password = "pinger-password"
    async with httpx.AsyncClient(base_url=server.url, timeout=600) as http:
        (
            await http.post("/api/signup", json={"name": "pinger", "password": password})
        ).raise_for_status()
        signed = await http.post("/api/signin", json={"name": "pinger", "password": password})
        signed.raise_for_status()
        token = signed.json()["token"]
        ws_url = server.url.replace("http://", "ws://") + "/ws"
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "version": 1, "token": token}))
            await ws.recv()
            pings: list[float] = []
            idle: list[float] = []
            crowd_on = asyncio.Event()
            done = asyncio.Event()

            async def pinger() -> None:
                ident = 0
                while not done.is_set():
                    ident += 1
                    started = time.perf_counter()
                    await ws.send(json.dumps({"type": "ping", "id": ident}))
                    while True:
                        reply = json.loads(await ws.recv())
                        if reply.get("ref") == ident and reply.get("type") in ("pong", "error"):
                            break
                    if reply["type"] != "pong":
                        raise RuntimeError(f"the ping was refused: {reply}")
                    took = (time.perf_counter() - started) * 1000
                    (pings if crowd_on.is_set() else idle).append(took)
                    await asyncio.sleep(PING_EVERY)

            ping_task = asyncio.create_task(pinger())
            await asyncio.sleep(settle)  # pings before the crowd: the machine's own noise
            baseline = server.rss_mb()
            peak = baseline

            async def sampler() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, server.rss_mb())
                    await asyncio.sleep(0.01)

            sample_task = asyncio.create_task(sampler())
            crowd_on.set()
            started = time.perf_counter()
            answers = await asyncio.gather(
                *(
                    http.post(
                        "/api/signup", json={"name": f"crowd{k}", "password": f"pw-{k}-crowd"}
                    )
                    for k in range(count)
                )
            )
            seconds = time.perf_counter() - started
            peak = max(peak, server.rss_mb())
            done.set()
            await sample_task
            await asyncio.wait_for(ping_task, 10)
    statuses: dict[str, int] = {}
    for answer in answers:
        statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1
    bound = server.pool * ARGON2_MIB + MARGIN_MIB
    ping, ping_idle = _summary(pings), _summary(idle)
    rise = peak - baseline
    return {
        "count": count,
        "pool": server.pool,
        "baseline_mb": round(baseline, 1),
        "peak_mb": round(peak, 1),
        "rise_mb": round(rise, 1),
        "bound_mb": bound,
        "ping_ms": ping,
        "ping_idle_ms": ping_idle,
        "seconds": round(seconds, 2),
        "statuses": statuses,
        "pass": rise <= bound and ping["p99"] < PING_P99_MS and statuses == {"201": count},
    }


def run(count: int, pool: int, settle: float) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="feltroom-signups-"))
    server = Server(folder, pool)
    try:
        server.start()
        return asyncio.run(measure(server, count, settle))
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="feltroom bench signups", description=__doc__)
    parser.add_argument("--count", type=int, default=40, help="sign-ups at once (default 40)")
    parser.add_argument("--pool", type=int, default=2, help="the server's --hash-pool (default 2)")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds before the baseline")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    report = run(args.count, args.pool, args.settle)
    if args.json:
        print(json.dumps(report))
    else:
        ping = report["ping_ms"]
        print(
            f"{report['count']} sign-ups at once, hash pool {report['pool']}: RSS "
            f"{report['baseline_mb']} -> {report['peak_mb']} MiB (rise {report['rise_mb']} MiB, "
            f"bound {report['bound_mb']} MiB); ping p50 {ping['p50']} ms, p99 {ping['p99']} ms, "
            f"max {ping['max']} ms ({ping['n']} pings; before the crowd p99 "
            f"{report['ping_idle_ms']['p99']} ms); {report['seconds']} s; answers "
            f"{report['statuses']}; {'pass' if report['pass'] else 'FAIL'}"
        )
    return 0 if report["pass"] else 1

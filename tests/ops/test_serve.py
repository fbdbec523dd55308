"""``feltroom serve`` run for real (issue 22): the start-up and shutdown lines, the access log,
each hand and settlement at debug level, ``/healthz``, ``/readyz`` and ``/metrics`` on the main
port (loopback only by default) and on a listener of its own."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import signal
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from feltroom import __version__
from feltroom.server.protocol import PROTOCOL_VERSION
from services import free_port

from .support import Room

SECRET = "hunter2-not-in-logs"


def _a_frame_too_large(url: str) -> int:
    """The close code of a connection that sends a frame over 16 KiB (1009)."""

    async def run() -> int:
        async with connect(url.replace("http", "ws") + "/ws", max_size=None) as socket:
            await socket.send(json.dumps({"type": "ping", "id": 1, "pad": "x" * 20000}))
            with contextlib.suppress(ConnectionClosed):
                async for _ in socket:
                    pass
            assert socket.close_code is not None
            return socket.close_code

    return asyncio.run(run())


def _signed_in_connection(url: str, token: str) -> int:
    """A connection that says hello with ``token``, is welcomed, and closes (1000)."""

    async def run() -> int:
        async with connect(url.replace("http", "ws") + "/ws") as socket:
            hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "token": token}
            await socket.send(json.dumps(hello))
            while json.loads(await socket.recv())["type"] != "welcome":
                pass
        assert socket.close_code is not None
        return socket.close_code

    return asyncio.run(run())


def test_a_room_logs_serves_health_and_metrics(fast_tmp: Path) -> None:
    metrics_port = free_port()
    room = Room(
        fast_tmp,
        "--db",
        f"sqlite:///{fast_tmp / 'room.sqlite3'}",
        "--house-bots",
        "3",
        "--bot-think",
        "0.05",
        "--log-format",
        "json",
        "--log-level",
        "debug",
        "--metrics-port",
        str(metrics_port),
        env={"FELTROOM_SERVER__BROKER": f"redis://:{SECRET}@broker:6379/0"},
    )
    try:
        room.wait_hands(3)
        health = room.get("/healthz")
        assert (health.status_code, health.json()) == (
            200,
            {"status": "alive", "version": __version__},
        )
        ready = room.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"status": "ready", "checks": {"database": "ok"}}
        metrics = room.get("/metrics")
        assert metrics.status_code == 200
        assert metrics.headers["content-type"].startswith("text/plain")
        text = metrics.text
        for name in (
            "feltroom_connections",
            'feltroom_players_seated{kind="bot"}',
            'feltroom_players_seated{kind="person"} 0.0',
            "feltroom_tables_running 9.0",
            "feltroom_hands_dealt_total",
            "feltroom_hands_settled_total",
            "feltroom_actions_total",
            "feltroom_action_broadcast_seconds_bucket",
            "feltroom_settlement_seconds_bucket",
            "feltroom_errors_total",
            'feltroom_rate_limited_total{channel="http"}',
            'feltroom_sign_ins_total{result="failed"}',
            "feltroom_shuffle_selftest_pass -1.0",
            "feltroom_writer_queue_depth",
        ):
            assert name in text, name
        figures = {
            line.split()[0]: float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith("feltroom_") and " " in line
        }
        assert figures["feltroom_hands_settled_total"] >= 3
        assert figures["feltroom_hands_dealt_total"] >= figures["feltroom_hands_settled_total"]
        assert figures['feltroom_players_seated{kind="bot"}'] >= 9 * 2
        assert figures["feltroom_settlement_seconds_count"] >= 3
        own = room.get("/metrics", metrics_port)
        assert own.status_code == 200
        assert "feltroom_hands_settled_total" in own.text
        assert room.get("/", metrics_port).status_code == 404
        refused = room.get("/api/nowhere")
        assert refused.status_code == 404
        # the two 404s: the metrics listener's and the main port's
        assert (
            'feltroom_errors_total{channel="http",code="not_found"} 2.0'
            in room.get("/metrics").text
        )
        assert _a_frame_too_large(room.url) == 1009
        account = {"name": "operator1", "password": "long enough password"}
        # (the room's own password hashing: slow on purpose, slower on a loaded machine)
        post = functools.partial(httpx.post, timeout=60)
        assert post(f"{room.url}/api/signup", json=account).status_code == 201
        wrong = {**account, "password": "wrong one!"}
        assert post(f"{room.url}/api/signin", json=wrong).status_code == 401
        token = post(f"{room.url}/api/signin", json=account).json()["token"]
        assert _signed_in_connection(room.url, token) == 1000
        signed = room.get("/metrics").text
        assert 'feltroom_sign_ins_total{result="ok"} 1.0' in signed
        assert 'feltroom_sign_ins_total{result="failed"} 1.0' in signed
    finally:
        assert room.stop() == 0
    lines = room.json_lines()
    assert SECRET not in room.log()
    start = lines[0]
    assert start["level"] == "info"
    assert start["version"] == __version__
    assert start["config"]["server"]["broker"] == "redis://:***@broker:6379/0"
    assert start["config"]["log"] == {"level": "debug", "format": "json", "access": True}
    access = [line for line in lines if line["logger"] == "feltroom.access"]
    ok = [line for line in access if line["path"] == "/readyz"]
    assert ok
    assert ok[0]["status"] == 200
    assert ok[0]["address"] == "127.0.0.1"
    assert ok[0]["duration_ms"] >= 0
    sockets = [line for line in access if line["method"] == "WS"]
    assert sockets
    assert sockets[0]["status"] == 1009
    assert sockets[0]["account"] is None
    assert (sockets[1]["status"], sockets[1]["account"]) == (1000, "operator1")
    sign_ins = [line for line in access if line["path"] == "/api/signin"]
    assert [(line["status"], line["account"]) for line in sign_ins] == [
        (401, "operator1"),
        (200, "operator1"),
    ]
    dealt = [line for line in lines if " dealt" in line["message"]]
    settled_lines = [line for line in lines if " settled in " in line["message"]]
    assert dealt
    assert settled_lines
    assert settled_lines[0]["message"].startswith("table ")
    assert lines[-1]["message"].startswith("feltroom stopped after")


def test_metrics_are_refused_to_addresses_the_operator_did_not_allow(fast_tmp: Path) -> None:
    room = Room(
        fast_tmp,
        "--db",
        f"sqlite:///{fast_tmp / 'room.sqlite3'}",
        "--house-bots",
        "0",
        "--metrics-allow",
        "10.0.0.0/8",
    )
    try:
        refused = room.get("/metrics")
        assert refused.status_code == 403
        assert "10.0.0.0/8" in refused.json()["error"]["message"]
        assert room.get("/healthz").status_code == 200
    finally:
        assert room.stop(signal.SIGTERM) == 0  # as a service manager stops it
    text_lines = room.log().splitlines()
    assert text_lines[0].split()[1] == "INFO"  # the text format: TIME LEVEL LOGGER: MESSAGE
    assert f"feltroom {__version__} starting" in text_lines[0]
    assert any('"GET /metrics" 403' in line for line in text_lines)
    assert "feltroom stopped after" in text_lines[-1]


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (["--config", "CONFIG"], {}, "unknown setting [room] house_bot;"),
        ([], {"FELTROOM_ROOM__BOT_STYLE": "wild"}, "FELTROOM_ROOM__BOT_STYLE"),
        ([], {"FELTROOM_LOGS__LEVEL": "debug"}, "unknown section FELTROOM_LOGS__*"),
    ],
)
def test_a_bad_setting_stops_the_start_and_touches_nothing(
    fast_tmp: Path, args: list[str], env: dict[str, str], named: str
) -> None:
    import os
    import subprocess
    import sys

    config = fast_tmp / "feltroom.toml"
    config.write_text("[room]\nhouse_bot = 2\n")
    database = fast_tmp / "never.sqlite3"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "feltroom.cli",
            "serve",
            "--db",
            f"sqlite:///{database}",
            *[str(config) if arg == "CONFIG" else arg for arg in args],
        ],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=180,  # (a start takes seconds of imports; on a loaded machine many times that)
    )
    assert done.returncode == 2
    assert named in done.stderr
    assert not database.exists()

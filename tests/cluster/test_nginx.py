"""Two gateways behind nginx with the configuration the project ships (``ops.services``,
docs/cluster.md), and two gateway failures in a row: gateway A killed (SIGKILL), a player's
request, A started again, then gateway B killed. nginx marks a gateway it failed to reach, and
clears the mark only when a request to it finishes; a websocket never finishes, so with
``max_fails=1`` the second failure left nginx letting one connection in every ``fail_timeout``
and answering the rest ``502`` (no live upstreams). With ``max_fails=0`` every player is back
in at once, through the gateway that is up."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from feltroom.store import open_storage
from server.live import Client
from services import NginxServer, RedisServer

from .support import PASSWORD, Workers, players, until

PLAYERS = [f"n{i}" for i in range(16)]


def established(port: int) -> int:
    """How many TCP connections to this loopback port are established (Linux's /proc)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


class Room:
    """The players' websockets through nginx, and what getting back in cost them."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.url, self.tokens = url, tokens
        self.clients: dict[str, Client] = {}
        self.refused = 0  # 502s (or any other refusal) answered by nginx

    async def enter(self, name: str, seconds: float = 60.0, key: str = "") -> float:
        """Connect ``name`` through nginx (trying again after a refusal), as ``key`` among the
        room's connections (the name by default); the seconds taken."""
        began = time.monotonic()
        while True:
            try:
                ws = await connect(self.url, max_size=None, open_timeout=10)
            except (InvalidStatus, OSError, TimeoutError):
                self.refused += 1
                if time.monotonic() - began > seconds:
                    raise
                await asyncio.sleep(0.1)  # a player's retry, as the browser client's
                continue
            client = Client(ws, name)
            welcome = await client.request(
                {"type": "hello", "version": 1, "token": self.tokens[name]}
            )
            assert welcome["type"] == "welcome", welcome
            self.clients[key or name] = client
            return time.monotonic() - began

    async def back_in(self) -> list[float]:
        """Every player whose connection is gone connects again; how long each took."""

        async def alive(client: Client) -> bool:
            try:
                return (await client.request({"type": "ping"}))["type"] == "pong"
            except Exception:
                return False

        names = list(self.clients)
        up = await asyncio.gather(*(alive(self.clients[n]) for n in names))
        gone = [n for n, ok in zip(names, up, strict=True) if not ok]
        return list(await asyncio.gather(*(self.enter(n) for n in gone)))


def test_players_get_back_in_at_once_after_two_gateway_failures_in_a_row(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    accounts = players(store, *PLAYERS)
    tokens = {name: accounts.sign_in(name, PASSWORD).token for name in PLAYERS}
    cluster = Workers(tmp_path, pg_url, redis_server.url)
    nginx = None
    try:
        a, b = cluster.start_gateway("gateway-A"), cluster.start_gateway("gateway-B")
        nginx = NginxServer([a, b])
        url = f"ws://127.0.0.1:{nginx.port}/ws"
        text = (nginx.folder / "nginx.conf").read_text()
        assert "max_fails=0" in text
        assert "proxy_connect_timeout 2s" in text
        asyncio.run(_two_failures(cluster, Room(url, tokens), a, b))
    finally:
        if nginx is not None:
            nginx.stop()
        cluster.stop_all()
        store.close()


async def _two_failures(cluster: Workers, room: Room, a: int, b: int) -> None:
    await asyncio.gather(*(room.enter(name) for name in PLAYERS))
    assert established(a) > 0, "nobody reached gateway A"
    assert established(b) > 0, "nobody reached gateway B"
    # Gateway A dies; its players come back through nginx (their first try at A marks it).
    cluster.kill("gateway-A")
    first = await room.back_in()
    assert first, "nobody was on gateway A"
    # A is started again, on its port; new connections reach it again, and stay open.
    assert cluster.start_gateway("gateway-A", a) == a
    probes = Room(room.url, room.tokens)

    async def one_on_a() -> bool:
        count = len(probes.clients)
        await probes.enter(PLAYERS[count % len(PLAYERS)], key=str(count))
        return established(a) > 0

    end = time.monotonic() + 60
    while not await one_on_a():
        assert time.monotonic() < end, "no connection reached the restarted gateway A"
    # Gateway B dies: every player it held is back in promptly, through A, none refused.
    refused = room.refused
    cluster.kill("gateway-B")
    await until("gateway B's connections to close", lambda: established(b) == 0, 30)
    second = await room.back_in()
    assert second, "nobody was on gateway B"
    assert room.refused == refused, f"{room.refused - refused} refusals; back in after {second}"
    assert max(second) < 5.0, second

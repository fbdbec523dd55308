"""The ASGI application (Starlette): a status page and the lobby as JSON.

- ``GET /`` — the browser client (``static/index.html``, plain ES modules and CSS served under
  ``/static``; docs/web.md): sign-in, the lobby, the table and the hand history over the
  protocol below.
- ``GET /sw.js`` — the client's service worker (``static/sw.js``, served from the root for a
  scope of the whole client): it keeps the static client for an installed web app, never an
  API or websocket answer.
- ``GET /status`` — the status page (HTML; every text from the room is escaped): the room's
  figures and one line per table.
- ``GET /api/lobby`` — ``{"tables": [...], "tournaments": [...], "status": {...}}``: per table
  the game, structure, stakes, seats taken and free, waiting list, average pot, hands per hour,
  players per flop, the table information of R-TABLE-1 and all of its settings
  (``feltroom.room.lobby``); per tournament its lobby entry (R-TOURN-14, docs/tournaments.md).
- ``GET /api/status`` — the room's figures alone.
- ``GET /admin`` and ``/api/operator/...`` — the operator console and API, for operator
  accounts only (``feltroom.server.operator_api``, docs/operator.md).
- ``GET /healthz``, ``GET /readyz``, ``GET /metrics`` — liveness, readiness (the database and
  any extra check answer) and the Prometheus metrics (``feltroom.server.observe``,
  docs/operations.md); every request and websocket connection is logged to ``feltroom.access``.
- ``/api/me/limits``, ``/api/me/cool-off``, ``/api/me/exclusion`` — the player's protection
  (``feltroom.server.protection_api``, docs/protocol.md).
- ``/ws`` — the websocket protocol for play (``feltroom.server.session``, docs/protocol.md).
- The HTTP API of the player protocol (``feltroom.server.rest``): sign-up, sign-in, sign-out,
  balances, play-money grants and hand histories under ``/api``.

Errors Starlette raises itself (an unknown path, a method a route does not take) are answered in
the API's one error shape, ``{"error": {"code": ..., "message": ...}}``.

The application's lifespan starts the room (``RoomRuntime.start``, which voids what a crash left
unsettled), drives its tables while it serves, and stops it on shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import uvicorn
import uvloop
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from feltroom.room.histories import HandHistories
from feltroom.room.runtime import RoomRuntime
from feltroom.room.signins import SignInLog
from feltroom.server.access import AccessLog
from feltroom.server.collector import calm_collector
from feltroom.server.games_api import LocalGames, games_routes
from feltroom.server.headers import SecurityHeaders
from feltroom.server.metrics import RoomCollector
from feltroom.server.observe import ReadyCheck, health_routes, metrics_app
from feltroom.server.operator_api import LocalRoom, operator_routes
from feltroom.server.protection_api import protection_routes
from feltroom.server.protocol import MAX_FRAME
from feltroom.server.rest import (
    DATABASE_AWAY,
    RestLimits,
    RoomServices,
    database_away,
    error_response,
    rest_routes,
    tournament_routes,
)
from feltroom.server.session import Hub, HubSettings
from feltroom.server.timeouts import READ_TIMEOUTS, ReadTimeouts, timed_http
from feltroom.server.transport import BatchedWebSocketProtocol
from feltroom.server.ws import websocket_endpoint

__all__ = [
    "STATIC",
    "create_app",
    "metrics_server",
    "render_status",
    "room_app",
    "serve",
    "server_config",
]

STATIC = Path(str(resources.files("feltroom.server") / "static"))
"""The browser client's files (package data)."""


def render_status(status: dict[str, Any], tables: list[dict[str, Any]]) -> str:
    """The status page as HTML; every value is escaped."""

    def cell(value: Any) -> str:
        return f"<td>{escape(str(value))}</td>"

    rows = "\n".join(
        "<tr>"
        + "".join(
            cell(t[key])
            for key in (
                "name",
                "stakes",
                "seats_taken",
                "seats",
                "waiting",
                "average_pot",
                "hands_per_hour",
                "players_per_flop",
                "status",
            )
        )
        + f"<td>{escape(str(t['info']))}</td></tr>"
        for t in tables
    )
    last = status.get("last_selftest")
    selftest = (
        "not run yet"
        if last is None
        else f"{'pass' if last.get('pass') else 'FAIL'} ({last.get('shuffles')} shuffles)"
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>feltroom</title>
<style>body{{font-family:sans-serif;margin:2em}}td,th{{padding:.2em .6em;text-align:left}}
tr:nth-child(even){{background:#f3f3f3}}</style></head>
<body><h1>feltroom</h1>
<p>{escape(str(status["tables"]))} tables, {escape(str(status["hands_settled"]))} hands settled
since start ({escape(str(status["uptime_seconds"]))} s); paused:
{escape(", ".join(status["paused"]) or "none")}; shuffle self-test: {escape(selftest)}.
The lobby as JSON: <a href="/api/lobby">/api/lobby</a>.</p>
<table><thead><tr><th>table</th><th>stakes</th><th>seated</th><th>seats</th><th>waiting</th>
<th>average pot</th><th>hands/hour</th><th>players/flop %</th><th>status</th><th>information</th>
</tr></thead><tbody>
{rows}
</tbody></table></body></html>
"""


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (unknown path, wrong method) in the API's error shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"nothing at {request.url.path}; the API is documented in docs/protocol.md"
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "another method")
        message = f"{request.method} is not allowed at {request.url.path}; use {allowed}"
    else:
        message = str(exc.detail)
    return error_response(
        exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), message, exc.headers
    )


async def _database_away(request: Request, exc: Exception) -> Response:
    if request.scope.get("type") != "http":  # (a websocket's own handling closes it)
        raise exc
    return database_away.response(exc)


def create_app(
    runtime: RoomRuntime,
    *,
    drive: bool = True,
    histories: HandHistories | None = None,
    limits: RestLimits | None = None,
    hub_settings: HubSettings | None = None,
    sign_ins: SignInLog | None = None,
    metrics_allow: Sequence[str] = ("127.0.0.1", "::1"),
    ready_checks: Mapping[str, ReadyCheck] | None = None,
) -> Starlette:
    """The application for a room. With ``drive`` the lifespan starts the room and drives its
    tables on the real clock; without it the caller drives them (tests with a fake clock).
    ``histories`` and ``limits`` configure the HTTP API (``feltroom.server.rest.rest_routes``);
    ``hub_settings`` the websocket protocol (``feltroom.server.session``); ``sign_ins`` the
    sign-in log (``feltroom.room.signins``). ``metrics_allow``: the client addresses or networks
    that may read ``GET /metrics`` (``*``: any); ``ready_checks``: what ``GET /readyz`` asks
    besides the database. The hub is ``app.state.hub``, the metrics' collector
    ``app.state.metrics``."""
    hub = Hub(runtime, hub_settings)
    collector = RoomCollector(runtime, hub)
    operator_room = LocalRoom(runtime, hub)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not drive:
            hub.start()
            try:
                yield
            finally:
                await hub.stop()
            return
        await runtime.start()
        hub.start()
        task = asyncio.create_task(runtime.run())
        try:
            yield
        finally:
            await hub.stop()
            await runtime.stop()
            await task

    app = room_app(
        hub,
        RoomServices.of(runtime),
        lobby=runtime.lobby,
        status=runtime.status,
        lifespan=lifespan,
        tournaments=runtime.tournaments_lobby,
        histories=histories,
        limits=limits,
        sign_ins=sign_ins,
        extra_routes=[
            *tournament_routes(runtime, limits),
            *games_routes(LocalGames(runtime), STATIC, limits),
            *protection_routes(operator_room),
            *operator_routes(operator_room, STATIC),
            *health_routes(
                runtime, collector, metrics_allow=metrics_allow, ready_checks=ready_checks
            ),
        ],
    )
    app.state.metrics = collector
    return app


def room_app(
    hub: Hub,
    services: RoomServices,
    *,
    lobby: Callable[[], list[dict[str, Any]]],
    status: Callable[[], dict[str, Any]],
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]],
    tournaments: Callable[[], list[dict[str, Any]]] = list,
    histories: HandHistories | None = None,
    limits: RestLimits | None = None,
    sign_ins: SignInLog | None = None,
    shared_throttles: bool = False,
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The routes of the room around a hub: the browser client, the status page, the lobby,
    the HTTP API and the websocket protocol, and ``extra_routes``. A single process gives its
    runtime's lobby and figures, the operator API and the health and metrics routes; a
    cluster's gateway (``feltroom.cluster.gateway``) those of every worker and its health
    routes, and keeps the sign-in and sign-up throttles in the database (``shared_throttles``)."""

    async def client_page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def service_worker(request: Request) -> FileResponse:
        # served from the root, so that its scope is the whole client (docs/web.md)
        return FileResponse(
            STATIC / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"}
        )

    async def status_page(request: Request) -> HTMLResponse:
        return HTMLResponse(render_status(status(), lobby()))

    async def lobby_route(request: Request) -> JSONResponse:
        return JSONResponse({"tables": lobby(), "tournaments": tournaments(), "status": status()})

    async def status_route(request: Request) -> JSONResponse:
        return JSONResponse(status())

    app = Starlette(
        routes=[
            Route("/", client_page),
            Route("/sw.js", service_worker),
            Route("/status", status_page),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/api/lobby", lobby_route),
            Route("/api/status", status_route),
            *rest_routes(
                services,
                histories=histories,
                limits=limits,
                on_sign_out=hub.end_session,
                sign_ins=sign_ins,
                shared_throttles=shared_throttles,
            ),
            *extra_routes,
            WebSocketRoute("/ws", websocket_endpoint(hub)),
        ],
        exception_handlers={
            HTTPException: _http_error,
            # (the routes outside the API's guard: the database out of reach, 503)
            **dict.fromkeys(DATABASE_AWAY, _database_away),
        },
        middleware=[Middleware(AccessLog), Middleware(SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.hub = hub
    return app


def server_config(
    app: ASGIApp,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    log_level: str = "warning",
    forwarded_allow_ips: Sequence[str] = (),
    read_timeouts: ReadTimeouts = READ_TIMEOUTS,
) -> uvicorn.Config:
    """uvicorn's settings for the room (``serve`` and the tests' live servers use them).

    ``forwarded_allow_ips``: the addresses (a reverse proxy's) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` headers are believed; none by default, so a client's address is the
    one it connects from and no header can make it another (the sign-in and sign-up throttles
    count per address). uvicorn itself would trust them from 127.0.0.1. ``read_timeouts``: how
    long a request's headers and body may take to arrive (``feltroom.server.timeouts``)."""
    trusted = [address.strip() for address in forwarded_allow_ips if address.strip()]
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=None,  # logging is the process's (feltroom.ops.logs): uvicorn adds none
        access_log=False,  # the room's own access log (feltroom.server.observe.AccessLog)
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted if trusted else "",
        lifespan="on",
        ws_max_size=MAX_FRAME,  # a larger frame is refused with 1009 before it is read
        # Frames are a few hundred bytes: compressing each one cost the event loop a third of
        # its time under load and saved little (docs/performance.md, "Server load").
        ws_per_message_deflate=False,
        ws=BatchedWebSocketProtocol,  # a connection's frames of one loop turn in one write
        http=timed_http(read_timeouts),  # no half-sent request holds a connection for long
    )


class _QuietServer(uvicorn.Server):
    """The metrics listener: the main server takes the signals and, once it stops, stops this
    one (two servers taking them would end the process before the room's own shutdown)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def metrics_server(
    collector: RoomCollector,
    host: str,
    port: int,
    *,
    log_level: str = "warning",
    read_timeouts: ReadTimeouts = READ_TIMEOUTS,
) -> uvicorn.Server:
    """The listener of ``--metrics-port``: ``GET /metrics`` (``collector``'s figures and the
    process's) on a port of its own, which leaves the signals to the process's main loop (the
    room's server, or a worker's)."""
    config = server_config(
        metrics_app(collector), host, port, log_level=log_level, read_timeouts=read_timeouts
    )
    config.ws = "none"
    return _QuietServer(config)


def serve(
    app: Starlette,
    host: str,
    port: int,
    *,
    on_ready: Callable[[str], None] | None = None,
    log_level: str = "warning",
    forwarded_allow_ips: Sequence[str] = (),
    metrics_port: int | None = None,
    read_timeouts: ReadTimeouts = READ_TIMEOUTS,
) -> None:
    """Serve ``app`` with uvicorn until interrupted; ``on_ready(url)`` once it listens. With
    ``metrics_port``, ``GET /metrics`` is also served on a listener of its own on that port (the
    same host), to any client that reaches it."""
    server = uvicorn.Server(
        server_config(
            app,
            host,
            port,
            log_level=log_level,
            forwarded_allow_ips=forwarded_allow_ips,
            read_timeouts=read_timeouts,
        )
    )
    servers = [server]
    if metrics_port is not None:
        servers.append(
            metrics_server(
                app.state.metrics,
                host,
                metrics_port,
                log_level=log_level,
                read_timeouts=read_timeouts,
            )
        )

    async def main() -> None:
        collector = calm_collector()  # no second-long full collections (collector.py)
        tasks = [asyncio.create_task(one.serve()) for one in servers]
        while not all(one.started for one in servers) and not any(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        if all(one.started for one in servers) and on_ready is not None:
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
            on_ready(f"http://{shown}:{port}/")
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for one in servers:  # one stopped (a signal, or its port was taken): stop the other
            one.should_exit = True
        await asyncio.gather(*tasks)
        collector.cancel()
        for task in done:
            task.result()

    # uvloop's event loop and sockets cost the server about a fifth less CPU an action than
    # asyncio's (docs/performance.md, "Server load")
    uvloop.run(main())

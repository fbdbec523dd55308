"""What an operator asks the room: ``GET /healthz``, ``GET /readyz`` and ``GET /metrics``
(docs/operations.md; the access log is ``feltroom.server.access``).

- ``/healthz``: 200 ``{"status": "alive"}`` while the process serves.
- ``/readyz``: 200 ``{"status": "ready", "checks": {...}}`` when the database (and each extra
  check, e.g. a cluster's broker) answers within ``READY_SECONDS``, else 503 with
  ``"status": "not ready"`` and what failed.
- ``/metrics``: the Prometheus text (``feltroom.server.metrics``), only to the addresses the
  operator allows; others get 403 ``forbidden`` saying so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from feltroom import __version__
from feltroom.room.runtime import RoomRuntime
from feltroom.room.storage import Storage
from feltroom.server.metrics import RoomCollector, allowed, exposition
from feltroom.server.rest import error_response

__all__ = ["READY_SECONDS", "ReadyCheck", "health_routes", "metrics_app", "probe_routes"]

READY_SECONDS = 2.0
"""How long ``/readyz`` waits for each check."""
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

ReadyCheck = Callable[[], Awaitable[None]]
"""A readiness check: returns when the service answers, raises what went wrong otherwise."""


def _database_check(storage: Storage) -> ReadyCheck:
    def read() -> None:
        with storage.transaction(write=False) as tx:
            tx.get_account("readyz")

    async def check() -> None:
        await run_in_threadpool(read)

    return check


async def _ready(checks: Mapping[str, ReadyCheck]) -> tuple[bool, dict[str, str]]:
    results: dict[str, str] = {}
    for name, check in checks.items():
        try:
            await asyncio.wait_for(check(), READY_SECONDS)
            results[name] = "ok"
        except TimeoutError:
            results[name] = f"no answer in {READY_SECONDS:g} s"
        except Exception as error:
            results[name] = f"{type(error).__name__}: {error}"
    return all(result == "ok" for result in results.values()), results


def _metrics_endpoint(
    collector: RoomCollector, allow: Sequence[str]
) -> Callable[[Request], Awaitable[Response]]:
    async def metrics(request: Request) -> Response:
        address = request.client.host if request.client is not None else None
        if not allowed(address, allow):
            return error_response(
                403,
                "forbidden",
                f"the metrics are served to {', '.join(allow) or 'no address'} only "
                "([server] metrics_allow, or a listener of their own with --metrics-port)",
            )
        # on the event loop: the room's figures are read between two of its turns (a few
        # dozen series, well under a millisecond)
        body = exposition(collector)
        return Response(body, media_type=CONTENT_TYPE)

    return metrics


def health_routes(
    runtime: RoomRuntime,
    collector: RoomCollector,
    *,
    metrics_allow: Sequence[str],
    ready_checks: Mapping[str, ReadyCheck] | None = None,
) -> list[Route]:
    """``/healthz``, ``/readyz`` and ``/metrics`` for the main application."""
    return [
        *probe_routes(
            runtime.accounts.storage, lambda: runtime.stopping, ready_checks=ready_checks
        ),
        Route("/metrics", _metrics_endpoint(collector, metrics_allow)),
    ]


def probe_routes(
    storage: Storage,
    stopping: Callable[[], bool],
    *,
    ready_checks: Mapping[str, ReadyCheck] | None = None,
) -> list[Route]:
    """``/healthz`` and ``/readyz``: of the single process (above) and of a cluster's gateway,
    whose readiness is the database's and the broker's (``ready_checks``)."""
    checks: dict[str, ReadyCheck] = {"database": _database_check(storage)}
    checks.update(ready_checks or {})

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "alive", "version": __version__})

    async def readyz(request: Request) -> JSONResponse:
        ready, results = await _ready(checks)
        if stopping():
            ready, results["room"] = False, "stopping"
        return JSONResponse(
            {"status": "ready" if ready else "not ready", "checks": results},
            status_code=200 if ready else 503,
        )

    return [Route("/healthz", healthz), Route("/readyz", readyz)]


def metrics_app(collector: RoomCollector) -> ASGIApp:
    """The separate metrics listener (``--metrics-port``): ``/metrics`` to anyone who reaches it
    (bind it where only the scraper does), 404 elsewhere."""
    metrics = _metrics_endpoint(collector, ("*",))

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        if request.url.path == "/metrics" and request.method in ("GET", "HEAD"):
            response = await metrics(request)
        else:
            response = error_response(404, "not_found", "this listener serves GET /metrics only")
        await response(scope, receive, send)

    return app

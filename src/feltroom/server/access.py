"""The access log: one line to the ``feltroom.access`` logger for every HTTP request (when its
answer is sent) and every websocket connection (when it ends), with the client's address (the
proxy's ``X-Forwarded-For`` when ``--forwarded-allow-ips`` believes it), the account (the name of a
sign-in, the bearer token's or the websocket ``hello``'s player), the status (the HTTP status, or
the websocket's close code) and the duration (docs/operations.md, "Logging")."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ACCESS", "AccessLog", "note_account"]

ACCESS = "feltroom.access"
"""The access log's logger."""
_NOTE = "feltroom.access"
log = logging.getLogger(ACCESS)


def note_account(scope: Scope | Mapping[str, Any], account: str | None) -> None:
    """Name the account of this request or connection in its access log line."""
    note = scope.get(_NOTE)
    if isinstance(note, dict) and account:
        note["account"] = account


class AccessLog:
    """ASGI middleware: one ``feltroom.access`` line per request and per websocket connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        note: dict[str, Any] = {"account": None, "status": None}
        scope[_NOTE] = note

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                note["status"] = message["status"]
            elif message["type"] == "websocket.close" and note["status"] is None:
                note["status"] = message.get("code", 1000)
            elif message["type"] == "websocket.http.response.start":
                note["status"] = message["status"]
            await send(message)

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "websocket.disconnect" and note["status"] is None:
                note["status"] = message.get("code", 1005)
            return message

        try:
            await self.app(scope, receiving if kind == "websocket" else receive, sending)
        finally:
            client = scope.get("client")
            address = client[0] if client else "-"
            took = (time.perf_counter() - began) * 1000
            method = scope.get("method", "WS") if kind == "http" else "WS"
            path = scope.get("path", "")
            status = note["status"] if note["status"] is not None else "-"
            log.info(
                '%s %s "%s %s" %s %.1fms',
                address,
                note["account"] or "-",
                method,
                path,
                status,
                took,
                extra={
                    "address": address,
                    "account": note["account"],
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": round(took, 1),
                },
            )

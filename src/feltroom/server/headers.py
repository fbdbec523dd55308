"""Security headers on every HTTP answer, and the ``/api`` origin rule on every ``/api`` path.

``SecurityHeaders`` wraps the whole ASGI application, so no route can forget them:

- every HTTP response (the page, the status page, static files, the API, errors) carries
  ``Content-Security-Policy`` (scripts and connections from this origin only, no framing:
  ``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer``;
- every request to a path under ``/api`` that carries an ``Origin`` header must come from the
  origin it is served on (docs/protocol.md, "HTTP API"), whatever the route, known or not: a
  foreign origin gets 403 ``forbidden_origin`` before any route runs.

Websocket handshakes pass through untouched (``ws.py`` applies its own origin rule).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feltroom.server.rest import _origin_allowed, error_response

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SecurityHeaders"]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The page's scripts are modules served from ``/static``; the status page and the client set
inline styles, hence ``'unsafe-inline'`` for styles alone."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP response, the origin rule on ``/api``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        path: str = scope.get("path", "")
        if path == "/api" or path.startswith("/api/"):
            request = Request(scope)
            if not _origin_allowed(request):
                response = error_response(
                    403,
                    "forbidden_origin",
                    "requests from a web page must come from this room's own origin "
                    f"({request.url.scheme}://{request.url.netloc})",
                )
                await response(scope, receive, send_with_headers)
                return
        await self.app(scope, receive, send_with_headers)

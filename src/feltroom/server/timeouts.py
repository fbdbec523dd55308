"""Read time-outs for HTTP requests: a half-sent request does not hold a connection open.

uvicorn closes a connection idle between two requests (``timeout_keep_alive``) but waits as long
as a client likes for a request's headers and body once it has begun (and for the first request
of a new connection): three hundred slow requests ("slow-loris") hold three hundred connections
for as long as their senders trickle bytes. ``timed_http`` is uvicorn's HTTP protocol with two
clocks: the headers of a request must all arrive within ``ReadTimeouts.headers`` seconds of the
moment the server began waiting for them (the connection opened, or the previous response was
sent), and its body within ``ReadTimeouts.body`` seconds of its headers; past either, the server
answers 408 and closes the connection. A websocket is out of this once upgraded (its own
``hello_seconds`` and keepalive apply). The same holds behind nginx, which has its own
``client_header_timeout`` and ``client_body_timeout`` (docs/cluster.md, its nginx example).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["READ_TIMEOUTS", "ReadTimeouts", "timed_http"]

log = logging.getLogger("feltroom.server")

_TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)


@dataclass(frozen=True, slots=True)
class ReadTimeouts:
    """``headers``: seconds a request's headers may take to arrive (from the connection's
    opening or the previous response); ``body``: seconds its body may take after them."""

    headers: float = 10.0
    body: float = 30.0

    def __post_init__(self) -> None:
        for name in ("headers", "body"):
            if not getattr(self, name) > 0:
                raise ValueError(f"the {name} read time-out must be a positive number of seconds")


READ_TIMEOUTS = ReadTimeouts()
"""The defaults: 10 s for the headers, 30 s for the body."""


class _TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the request's read clocks (``timed_http``)."""

    timeouts = READ_TIMEOUTS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timer: asyncio.TimerHandle | None = None
        self._reading: str | None = None  # "headers", "body" or None (not reading)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_reading()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_reading()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_reading()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._stop_clock()
        self._reading = "upgraded"
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def _watch_reading(self) -> None:
        """Start the clock of what the server now waits for (a request's headers or its
        body), or stop it when it waits for neither."""
        if self._reading == "upgraded" or self.transport.is_closing():
            self._stop_clock()
            return
        state = self.conn.their_state
        reading = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if reading == self._reading:
            return
        self._stop_clock()
        self._reading = reading
        if reading is not None:
            seconds = self.timeouts.headers if reading == "headers" else self.timeouts.body
            self._read_timer = self.loop.call_later(seconds, self._timed_out, reading, seconds)

    def _stop_clock(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        self._reading = None

    def _timed_out(self, reading: str, seconds: float) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        log.debug("a request's %s took over %s s: closing its connection", reading, seconds)
        message = f"the request's {reading} took over {seconds:g} s\n".encode()
        if reading == "headers" or self.cycle is None or not self.cycle.response_started:
            self.transport.write(_TIMED_OUT % (len(message), message))
        if self.cycle is not None:
            self.cycle.keep_alive = False
        self.transport.close()


def timed_http(timeouts: ReadTimeouts) -> type[H11Protocol]:
    """uvicorn's HTTP protocol class (``uvicorn.Config(http=...)``) with ``timeouts``."""
    return type("TimedH11Protocol", (_TimedH11Protocol,), {"timeouts": timeouts})

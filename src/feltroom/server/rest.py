"""The HTTP (REST) part of the player protocol: accounts, balances, play-money grants and hand
histories, all JSON under ``/api`` (docs/protocol.md, section "HTTP API").

- ``POST /api/signup`` ``{"name", "password"}`` -> 201 ``{"player"}``; sign-ups are throttled
  per client address (``RestLimits.signups``, except ``signup_exempt`` addresses), in memory.
- ``POST /api/signin`` ``{"name", "password"}`` -> ``{"token", "player", "expires"}``; failed
  sign-ins are throttled per client address, and per account name and address together (so
  that nobody elsewhere can lock an owner out of their account), in memory; a successful one is
  written to the sign-in log (address, user agent; ``room.signins``).
- ``POST /api/signout`` -> ``{"player", "signed_out": true}``; the token no longer works and the
  connections that said hello with it are closed at once (``on_sign_out``).
- ``GET /api/me`` -> ``{"player", "balances"}``; ``GET /api/balance`` -> the cashier's balances.
- ``POST /api/grant`` -> play chips only (R-GAME-6): the PLAY balance topped up to
  ``RestLimits.grant_to``, once per period of ``grant_every`` seconds, idempotent by a key made of
  the player and the period, so a double click cannot grant twice. ``GET /api/grant`` -> whether
  a grant is possible now (``available``) and when the next is (``next_grant_at``).
- ``GET /api/hands?limit=&before=`` -> the player's hand ids, newest first (R-HIST-1);
  ``GET /api/hands/{id}`` -> the hand as the player may see it (R-HIST-2);
  ``GET /api/hands/{id}.phh`` (or ``?format=phh``) -> the same hand as PHH text;
  ``GET /api/hands/{id}.txt`` -> PokerStars text, ``GET /api/hands/{id}.ohh`` -> OHH JSON;
  ``GET /api/hands/export?format=pokerstars|ohh|phh&limit=N`` (or ``&since=ISO&until=ISO``)
  -> many hands in one file, newest last (``feltroom.server.hand_files``).
- ``GET /api/hands/{id}/proof`` -> the hand's proof file (verifiable deals): the cards of the
  player's view opened against the commitment published before the first card.
- ``GET /api/tournaments`` -> ``{"tournaments": [...]}``: each instance's state, entries, prize
  pool and prizes, level, tables and chips (docs/tournaments.md);
  ``GET /api/tournaments/{id}`` -> one instance whole: its lobby entry, structure (the blind
  levels, breaks), payout table, and every entry with chips, rank, table, place and prize;
  ``POST /api/tournaments/{id}/register`` -> the entry (the wallet pays buy-in and fee);
  ``DELETE /api/tournaments/{id}/register`` (or ``POST .../unregister``) -> its refund before
  the start; refused with 409 ``refused`` saying why, changing nothing.
- ``GET``/``PUT /api/me/settings`` -> the player's own settings (``share_stats``, ``findable``,
  both off until turned on); ``GET /api/me/stats?since=&until=`` -> the player's statistics,
  results and this session's (``feltroom.room.player_stats``); ``GET /api/me/tables`` -> where
  the player sits and waits; ``GET /api/players/{name}/stats`` and ``/tables`` -> another
  player's statistics or tables, only if they share them (403 otherwise).

Every request that carries an ``Origin`` header must come from the served origin (browsers;
cross-site requests are refused with 403). Every authenticated call sends ``Authorization: Bearer
<token>``. Every error is ``{"error": {"code", "message", "details"}}`` and changes nothing.
Every call into the room (accounts, cashier, histories) blocks on the database: they run in the
thread pool, never on the event loop. Sign-up and sign-in hash with Argon2 (64 MiB each by
default): they run in a pool of their own of ``RestLimits.hash_pool`` threads, which bounds the
memory and CPU that a crowd of sign-ups can take.

The PHH, PokerStars and OHH files are built from the filtered view alone
(``feltroom.server.hand_files``): the hand is replayed through the engine from the public record
with a deck that holds only the cards the requester may see, every other card unknown, so a file
cannot hold a card the JSON does not show; hidden hole cards are written ``????`` in PHH. The
replay must reproduce the stored pots, else the export is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import re
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from feltroom.errors import IllegalAction
from feltroom.money import PLAY, to_units
from feltroom.room.accounts import Accounts, reserved, token_hash
from feltroom.room.cashier import Cashier
from feltroom.room.errors import (
    AccountSuspended,
    AuthenticationFailed,
    IdempotencyConflict,
    InsufficientFunds,
    NotAvailable,
    RoomError,
)
from feltroom.room.histories import HandHistories
from feltroom.room.ledger import valid_name
from feltroom.room.player_stats import SETTINGS, PlayerStatistics
from feltroom.room.runtime import RoomRuntime
from feltroom.room.signins import SignInLog
from feltroom.room.storage import Storage
from feltroom.room.throttles import StoredThrottle
from feltroom.server.access import note_account
from feltroom.server.hand_files import (
    EXPORT_FORMATS,
    export_file,
    ohh_of_view,
    phh_of_view,
    pokerstars_of_view,
)
from feltroom.server.metrics import SIGN_INS, count_error

__all__ = [
    "DATABASE_AWAY",
    "ApiError",
    "DatabaseAway",
    "RestLimits",
    "RoomServices",
    "TournamentDesk",
    "authenticated",
    "database_away",
    "guard",
    "phh_of_view",
    "rest_routes",
    "tournament_routes",
]

log = logging.getLogger("feltroom.server")

_BEARER = 'Bearer realm="feltroom"'
_MAX_TOKEN = 128  # as on the websocket (docs/protocol.md, Limits)
_HAND_REF = re.compile(r"([1-9][0-9]{0,17})(\.phh|\.json)?")
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII only: str.isdigit() accepts "²", int() refuses it
_FORMATS = {
    "json": {"url": "/api/hands/{id}", "media_type": "application/json"},
    "phh": {"url": "/api/hands/{id}.phh", "media_type": "text/plain"},
    "pokerstars": {"url": "/api/hands/{id}.txt", "media_type": "text/plain"},
    "ohh": {"url": "/api/hands/{id}.ohh", "media_type": "application/json"},
}


@dataclass(frozen=True, slots=True)
class RestLimits:
    """The room's settings for the HTTP API.

    ``account_failures`` / ``address_failures``: failed sign-ins allowed per account name and
    client address together, and per client address, within ``failure_window`` seconds; beyond
    them every sign-in for that account from that address, or from that address, is refused
    (429, even with the right password) until the oldest failure leaves the window. A wrong
    password from elsewhere never locks the owner out. ``signups`` / ``signup_window``: sign-ups
    allowed per client address within that many seconds (429 with ``Retry-After`` beyond);
    ``signup_exempt``: addresses without that limit (``feltroom serve --signup-exempt``).
    ``hash_pool``: how many passwords are hashed at once (sign-up and sign-in). ``grant_to``:
    the play chips a grant tops the PLAY balance up to;
    ``grant_every``: the length of a grant period (periods are aligned to the epoch: with 3600, one
    grant per clock hour). ``max_body``: the largest request body in bytes. ``password_min`` /
    ``password_max``: the password lengths sign-up accepts. ``hands_default`` / ``hands_max``:
    the hand list's page size. ``heavy_reads`` / ``heavy_window``: the statistics and
    exports (``/api/me/stats``, ``/api/players/{name}/stats``, ``/api/hands/export``) one
    account may have computed within that many seconds, per process or gateway (429 with
    ``Retry-After`` beyond); the same statistics asked again within ``read_cache_seconds``, with
    no hand of the player settled since, are answered from a cache of ``read_cache_size``
    answers and do not count. They are computed one at a time, in a thread of their own.
    ``clock``: epoch seconds (the throttle and grants; tests inject one).
    """

    account_failures: int = 5
    address_failures: int = 20
    failure_window: float = 300.0
    signups: int = 5
    signup_window: float = 600.0
    signup_exempt: frozenset[str] = frozenset({"127.0.0.1", "::1"})
    hash_pool: int = 2
    grant_to: int = 10_000
    grant_every: float = 3600.0
    max_body: int = 4096
    password_min: int = 8
    password_max: int = 128
    hands_default: int = 50
    hands_max: int = 200
    heavy_reads: int = 10
    heavy_window: float = 60.0
    read_cache_seconds: float = 30.0
    read_cache_size: int = 256
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        for name in (
            "account_failures",
            "address_failures",
            "signups",
            "hash_pool",
            "grant_to",
            "max_body",
            "heavy_reads",
            "read_cache_size",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, not {getattr(self, name)}")
        for name in ("failure_window", "signup_window", "grant_every", "heavy_window"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds")
        if not 1 <= self.password_min <= self.password_max:
            raise ValueError("password lengths need 1 <= password_min <= password_max")
        if not 1 <= self.hands_default <= self.hands_max:
            raise ValueError("hand pages need 1 <= hands_default <= hands_max")


# ------------------------------------------------------------------------------ errors


class ApiError(Exception):
    """An error answer: the status, a code, a message that says what is valid."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.details = dict(details or {})

    def response(self) -> JSONResponse:
        return error_response(self.status, self.code, self.message, self.headers, self.details)


def error_response(
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    details: Mapping[str, Any] | None = None,
) -> JSONResponse:
    """The one shape of every error: ``{"error": {"code", "message", "details"}}``; ``details``
    (``{}`` when there is nothing to add) holds the figures behind the message. Each is counted
    in ``feltroom_errors_total`` by code."""
    count_error(code, "http")
    return JSONResponse(
        {"error": {"code": code, "message": message, "details": dict(details or {})}},
        status_code=status,
        headers=headers,
    )


def _invalid(message: str, details: Mapping[str, Any] | None = None) -> ApiError:
    return ApiError(400, "invalid_field", message, details=details)


def _malformed(message: str) -> ApiError:
    return ApiError(400, "malformed", message)


# ------------------------------------------------------------------------------ throttle


async def _now(call: Callable[..., Any], *args: Any) -> Any:
    """Call ``call`` on the event loop (an in-memory throttle: it never waits)."""
    return call(*args)


class FailureThrottle:
    """Failures per key in a sliding window, in memory: at most ``limit`` within ``window``.

    ``max_keys`` bounds the memory an attacker can make it use: past it, keys whose failures
    have all left the window are dropped, then the least recently failed ones.
    """

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float], max_keys: int = 100_000
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.max_keys = max_keys
        self._failures: dict[str, deque[float]] = {}

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: it may now)."""
        now = self.clock()
        stamps = self._live(key, now)
        if stamps is None or len(stamps) < self.limit:
            return 0.0
        return max(0.0, stamps[-self.limit] + self.window - now)

    def fail(self, key: str) -> float:
        """Count a failure for ``key``; returns its time (to ``forgive`` it)."""
        now = self.clock()
        stamps = self._live(key, now)
        if stamps is None:
            if len(self._failures) >= self.max_keys:
                self._prune(now)
            stamps = self._failures[key] = deque()
        stamps.append(now)
        return now

    def forgive(self, key: str, stamp: float) -> None:
        """Take back one failure counted at ``stamp``."""
        stamps = self._failures.get(key)
        if stamps is not None:
            with contextlib.suppress(ValueError):
                stamps.remove(stamp)
            if not stamps:
                del self._failures[key]

    def clear(self, key: str) -> None:
        self._failures.pop(key, None)

    def _live(self, key: str, now: float) -> deque[float] | None:
        stamps = self._failures.get(key)
        if stamps is None:
            return None
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        return stamps

    def _prune(self, now: float) -> None:
        horizon = now - self.window
        for key in [k for k, s in self._failures.items() if not s or s[-1] <= horizon]:
            del self._failures[key]
        if len(self._failures) >= self.max_keys:
            by_age = sorted(self._failures, key=lambda k: self._failures[k][-1])
            for key in by_age[: len(by_age) - self.max_keys // 2]:
                del self._failures[key]


class ReadCache:
    """Answers kept for ``seconds`` (at most ``size``, the least recently used dropped
    first), so that asking again is cheap."""

    def __init__(self, size: int, seconds: float, clock: Callable[[], float]) -> None:
        self.size = size
        self.seconds = seconds
        self.clock = clock
        self._kept: OrderedDict[tuple[Any, ...], tuple[float, Any]] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Any:
        """The answer kept for ``key``, or ``None``."""
        found = self._kept.get(key)
        if found is None:
            return None
        if found[0] <= self.clock():
            del self._kept[key]
            return None
        self._kept.move_to_end(key)
        return found[1]

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        self._kept[key] = (self.clock() + self.seconds, value)
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)


# ------------------------------------------------------------------------------ requests


def _origin_allowed(request: Request) -> bool:
    """No ``Origin`` (curl, bots), or exactly the origin this request was served on."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.path or parts.query or parts.fragment or parts.username or not parts.hostname:
        return False
    url = request.url
    return _origin_key(parts.scheme, parts.hostname, port) == _origin_key(
        url.scheme, url.hostname or "", url.port
    )


def _origin_key(scheme: str, host: str, port: int | None) -> tuple[str, str, int | None]:
    scheme = scheme.lower()
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    default = {"http": 80, "https": 443}.get(scheme)
    return scheme, host.lower(), default if port is None else port


async def _read_json(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object (an empty body is ``{}``); 413 past ``limit`` bytes."""
    length = request.headers.get("content-length")
    too_large = ApiError(
        413, "too_large", f"the request body is larger than {limit} bytes; send at most {limit}"
    )
    if length is not None:
        if _DIGITS.fullmatch(length) is None:
            raise _malformed("Content-Length must be a number of bytes (digits 0-9)")
        if int(length) > limit:
            raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:  # (a body that took too long: feltroom.server.timeouts)
        raise ApiError(408, "timeout", "the request's body did not arrive whole") from None
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        value = json.loads(
            raw.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant
        )
    except (UnicodeDecodeError, ValueError) as error:
        raise _malformed(
            f"the body is not valid JSON ({error}); send a JSON object such as "
            '{"name": "alice", "password": "..."}'
        ) from None
    if not isinstance(value, dict):
        raise _malformed(f"the body must be a JSON object, not a JSON {_json_type(value)}")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the field {key!r} appears twice")
        result[key] = value
    return result


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "object"


def _strings(body: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The fields ``names``, each a string; exactly these fields, no others."""
    expected = ", ".join(repr(name) for name in names) or "none"
    extra = sorted(set(body) - set(names))
    if extra:
        raise _invalid(f"unknown field {extra[0]!r}; the fields are {expected}")
    values = []
    for name in names:
        if name not in body:
            raise _invalid(f"the field {name!r} is missing; the fields are {expected}")
        value = body[name]
        if type(value) is not str:
            raise _invalid(f"the field {name!r} must be a string, not a JSON {_json_type(value)}")
        values.append(value)
    return values


def _client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _retry_after(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds)))}


def _query_value(request: Request, name: str) -> str | None:
    """The query's one value of ``name`` (``None`` when absent); given twice is a 400."""
    values = request.query_params.getlist(name)
    if not values:
        return None
    if len(values) > 1:
        raise _invalid(
            f"the query parameter {name!r} is given {len(values)} times; give it once",
            {"field": name},
        )
    return values[0]


def _query_int(request: Request, name: str, low: int, high: int) -> int | None:
    text = _query_value(request, name)
    if text is None:
        return None
    if _DIGITS.fullmatch(text) is None or not low <= int(text) <= high:
        raise _invalid(
            f"{name} must be a whole number from {low} to {high}, not {text[:40]!r}",
            {"field": name, "min": low, "max": high},
        )
    return int(text)


def _query_choice(request: Request, name: str, choices: Sequence[str]) -> str | None:
    """The query's value of ``name``, one of ``choices`` (``None`` when absent)."""
    text = _query_value(request, name)
    if text is not None and text not in choices:
        raise _invalid(
            f"{name} must be one of {', '.join(choices)}, not {text[:40]!r}",
            {"field": name, "valid": list(choices)},
        )
    return text


def _only_params(request: Request, allowed: Sequence[str]) -> None:
    for name in request.query_params:
        if name not in allowed:
            valid = ", ".join(allowed) or "none"
            raise _invalid(
                f"unknown query parameter {name[:40]!r}; the parameters are {valid}",
                {"field": name[:40], "valid": list(allowed)},
            )
    for name in allowed:
        _query_value(request, name)  # none given twice


async def authenticated(request: Request, accounts: Accounts) -> tuple[str, str]:
    """The player and the token of a request's ``Authorization: Bearer`` session (401
    otherwise)."""
    header = request.headers.get("authorization")
    if header is None:
        raise ApiError(
            401,
            "unauthenticated",
            "sign in first (POST /api/signin) and send Authorization: Bearer <token>",
            {"WWW-Authenticate": _BEARER},
        )
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > _MAX_TOKEN:
        raise ApiError(
            401,
            "unauthenticated",
            "the Authorization header must be 'Bearer <token>' with the token of a sign-in",
            {"WWW-Authenticate": f'{_BEARER}, error="invalid_request"'},
        )
    try:
        player = await run_in_threadpool(accounts.authenticate, token)
        note_account(request.scope, player)
    except AuthenticationFailed:
        raise ApiError(
            401,
            "unauthenticated",
            "unknown or expired session; sign in again (POST /api/signin)",
            {"WWW-Authenticate": f'{_BEARER}, error="invalid_token"'},
        ) from None
    return player, token


# ------------------------------------------------------------------------------ routes


Handler = Callable[[Request], Awaitable[Response]]

DATABASE_AWAY = (OperationalError, InterfaceError)
"""The errors of a database out of reach this moment (a restart): the driver's connection
errors, as SQLAlchemy raises them."""

DATABASE_RETRY_SECONDS = 2
"""What a call that needed the database while it was out of reach is told to wait
(``Retry-After``) before it tries again."""


class DatabaseAway:
    """The answer to an HTTP call that needed the database while it is out of reach: 503 with
    ``Retry-After`` and a sentence. The log says it once an outage, without a traceback
    (nothing is wrong with the call or the room); an outage ends after a quiet minute."""

    QUIET = 60.0

    def __init__(self) -> None:
        self.last: float | None = None

    def response(self, error: Exception) -> JSONResponse:
        now = time.monotonic()
        if self.last is None or now - self.last > self.QUIET:
            first = str(error).strip().splitlines()
            log.warning(
                "the database is out of reach (%s); the calls that need it answer 503 until "
                "it is back",
                first[0] if first else type(error).__name__,
            )
        self.last = now
        return error_response(
            503,
            "database_unavailable",
            "the room's database is not answering this moment (a restart, most likely); "
            f"nothing was changed: try again in {DATABASE_RETRY_SECONDS} s",
            {"Retry-After": str(DATABASE_RETRY_SECONDS)},
        )


database_away = DatabaseAway()


def guard(handler: Handler) -> Handler:
    """An endpoint of the API: requests from another web origin refused (403), ``ApiError``
    answered in the one error shape, anything else logged and answered 500."""

    async def guarded(request: Request) -> Response:
        if not _origin_allowed(request):
            return error_response(
                403,
                "forbidden_origin",
                "requests from a web page must come from this room's own origin "
                f"({request.url.scheme}://{request.url.netloc})",
            )
        try:
            return await handler(request)
        except ApiError as error:
            return error.response()
        except DATABASE_AWAY as error:
            return database_away.response(error)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(500, "internal", "the room could not answer; try again")

    return guarded


@dataclass(frozen=True, slots=True)
class RoomServices:
    """What the HTTP API needs of a room: its accounts, its cashier and its storage (a
    single process takes them from its runtime, a cluster's gateway opens them itself), and
    where a player sits and waits: the runtime's live tables, or else what the books and the
    tables' kept states say (a gateway: every worker's tables)."""

    accounts: Accounts
    cashier: Cashier
    storage: Storage
    seats_of: Callable[[str], list[tuple[str, int]]] | None = None
    waiting_of: Callable[[str], list[tuple[str, int, int]]] | None = None

    @classmethod
    def of(cls, runtime: RoomRuntime) -> RoomServices:
        return cls(
            runtime.accounts,
            runtime.cashier,
            runtime.settlement.storage,
            runtime.seats_of,
            runtime.waiting_of,
        )

    def seats(self, player: str) -> list[tuple[str, int]]:
        """Every (table id, seat) where ``player`` sits (blocking)."""
        if self.seats_of is not None:
            return self.seats_of(player)
        with self.storage.transaction(write=False) as tx:
            tables = tx.table_definitions()
            rows = tx.seats_of_player(player)
        return [(row.table_id, row.seat) for row in rows if row.table_id in tables]

    def waiting(self, player: str) -> list[tuple[str, int, int]]:
        """Every (table id, place, length) of a waiting list ``player`` is on (blocking)."""
        if self.waiting_of is not None:
            return self.waiting_of(player)
        places = []
        with self.storage.transaction(write=False) as tx:
            for table_id in sorted(tx.table_definitions()):
                text = tx.table_state(table_id)
                waiting = json.loads(text).get("waiting", []) if text else []
                if player in waiting:
                    places.append((table_id, waiting.index(player) + 1, len(waiting)))
        return places


def rest_routes(
    runtime: RoomRuntime | RoomServices,
    *,
    histories: HandHistories | None = None,
    limits: RestLimits | None = None,
    on_sign_out: Callable[[str], object] | None = None,
    sign_ins: SignInLog | None = None,
    shared_throttles: bool = False,
    statistics: PlayerStatistics | None = None,
) -> list[Route]:
    """The routes of the HTTP API for a room (see the module docstring). ``on_sign_out`` is
    told the token hash of every session signed out (the hub closes its connections); every
    sign-in is written to ``sign_ins`` (the sign-in log, default: on the room's storage)."""
    limits = limits or RestLimits()
    room = runtime if isinstance(runtime, RoomServices) else RoomServices.of(runtime)
    sign_in_log = sign_ins or SignInLog(room.storage)
    accounts = room.accounts
    cashier = room.cashier
    hands = histories or HandHistories(room.storage)
    stats = statistics or PlayerStatistics(room.storage)
    throttled: Callable[..., Awaitable[Any]] = _now
    if shared_throttles:  # a cluster's gateways count the same failures (in the database)
        by_account: Any = StoredThrottle(
            room.storage, "account", limits.account_failures, limits.failure_window, limits.clock
        )
        by_address: Any = StoredThrottle(
            room.storage, "address", limits.address_failures, limits.failure_window, limits.clock
        )
        signups: Any = StoredThrottle(
            room.storage, "signup", limits.signups, limits.signup_window, limits.clock
        )
        throttled = run_in_threadpool
    else:
        by_account = FailureThrottle(limits.account_failures, limits.failure_window, limits.clock)
        by_address = FailureThrottle(limits.address_failures, limits.failure_window, limits.clock)
        signups = FailureThrottle(limits.signups, limits.signup_window, limits.clock)
    password_min = max(limits.password_min, accounts.min_password_length)
    # At most ``hash_pool`` sign-ups and sign-ins at once (their own threads, so a crowd does
    # not take the thread pool every other call uses), and as many hashes (``HashingPool``).
    accounts.bound_hashing(limits.hash_pool)
    hashing = ThreadPoolExecutor(limits.hash_pool, thread_name_prefix="feltroom-signin")
    # Statistics and exports: one at a time, in a thread of their own (a replay of thousands of
    # hands holds the interpreter's lock; the connections' event loop must still get it).
    heavy_pool = ThreadPoolExecutor(1, thread_name_prefix="feltroom-reads")
    heavy_reads = FailureThrottle(limits.heavy_reads, limits.heavy_window, limits.clock)
    answers = ReadCache(limits.read_cache_size, limits.read_cache_seconds, limits.clock)

    async def heavy(
        player: str, key: tuple[Any, ...] | None, call: Callable[..., Any], *args: Any
    ) -> Any:
        """``call(*args)``'s answer for ``player``: the one kept for ``key`` if any, else
        computed (429 when the player had ``heavy_reads`` computed in ``heavy_window``) and
        kept (not when ``key`` is None: an export's file may be large)."""
        found = None if key is None else answers.get(key)
        if found is not None:
            return found
        wait = heavy_reads.wait(player)
        if wait > 0:
            raise ApiError(
                429,
                "rate_limited",
                f"at most {limits.heavy_reads} statistics or exports in "
                f"{limits.heavy_window:g} s (a repeat within {limits.read_cache_seconds:g} s is "
                f"free); try again in {max(1, math.ceil(wait))} s",
                _retry_after(wait),
                {"retry_after": max(1, math.ceil(wait))},
            )
        heavy_reads.fail(player)
        value = await asyncio.get_running_loop().run_in_executor(heavy_pool, call, *args)
        if key is not None:
            answers.put(key, value)
        return value

    async def hashed(call: Callable[..., Any], *args: Any) -> Any:
        """``call`` (sign-up, sign-in) in its own pool of ``hash_pool`` threads."""
        return await asyncio.get_running_loop().run_in_executor(hashing, call, *args)

    endpoint = guard

    async def player_of(request: Request) -> tuple[str, str]:
        return await authenticated(request, accounts)

    async def no_body(request: Request) -> None:
        _strings(await _read_json(request, limits.max_body), ())

    # -- accounts

    async def signup(request: Request) -> Response:
        name, password = _strings(await _read_json(request, limits.max_body), ("name", "password"))
        try:
            valid_name(name, "player name")
        except RoomError as error:
            raise _invalid(
                str(error), {"field": "name", "min_length": 1, "max_length": 32}
            ) from None
        why = reserved(name)
        if why is not None:
            raise _invalid(why, {"field": "name"})
        if not password_min <= len(password) <= limits.password_max:
            raise _invalid(
                f"a password has {password_min} to {limits.password_max} characters, "
                f"not {len(password)}"
            )
        try:
            accounts.check_new_account(name, password)
        except RoomError as error:
            raise _invalid(str(error)) from None
        address = _client_address(request)
        if address not in limits.signup_exempt:
            wait = await throttled(signups.wait, address)
            if wait > 0:
                raise ApiError(
                    429,
                    "rate_limited",
                    f"at most {limits.signups} sign-ups from one address in "
                    f"{limits.signup_window:g} s; try again in {max(1, math.ceil(wait))} s",
                    _retry_after(wait),
                )
            await throttled(signups.fail, address)  # every sign-up that would hash counts
        try:
            player = await hashed(accounts.sign_up, name, password)
        except RoomError as error:
            if "taken" in str(error):
                raise ApiError(409, "refused", str(error)) from None
            raise _invalid(str(error)) from None
        return JSONResponse({"player": player}, status_code=201)

    async def signin(request: Request) -> Response:
        name, password = _strings(await _read_json(request, limits.max_body), ("name", "password"))
        if len(password) > limits.password_max:
            raise _invalid(f"a password has at most {limits.password_max} characters")
        address = _client_address(request)
        # Names that cannot exist are not tracked per account (bounded memory); the address is.
        # The account's key holds the address too: a stranger's guesses cannot lock the owner
        # out, and names are one whatever their letter case.
        account = f"{name.lower()} {address}" if _is_name(name) else None
        wait = max(
            await throttled(by_account.wait, account) if account else 0.0,
            await throttled(by_address.wait, address),
        )
        note_account(request.scope, name if _is_name(name) else None)
        if wait > 0:
            SIGN_INS.labels("refused").inc()
            raise ApiError(
                429,
                "rate_limited",
                "too many failed sign-ins for this account from this address, or from this "
                "address; "
                f"try again in {max(1, math.ceil(wait))} s",
                _retry_after(wait),
            )
        # Counted before the check and forgiven on success: concurrent guesses cannot overshoot.
        stamps = [(by_address, address, await throttled(by_address.fail, address))]
        if account:
            stamps.append((by_account, account, await throttled(by_account.fail, account)))
        try:
            session = await hashed(accounts.sign_in, name, password)
        except AccountSuspended as error:
            raise ApiError(403, "suspended", str(error)) from None
        except AuthenticationFailed:
            SIGN_INS.labels("failed").inc()
            raise ApiError(
                401,
                "unauthenticated",
                "wrong name or password",
                {"WWW-Authenticate": _BEARER},
            ) from None
        except BaseException:
            for throttle, key, stamp in stamps:
                await throttled(throttle.forgive, key, stamp)
            raise
        await throttled(by_address.forgive, address, stamps[0][2])
        if account:
            await throttled(by_account.clear, account)
        SIGN_INS.labels("ok").inc()
        try:  # the sign-in log (integrity report): a failure to write it does not refuse play
            agent = request.headers.get("user-agent", "")
            await run_in_threadpool(sign_in_log.record, session.user, address, agent)
        except Exception:
            log.exception("the sign-in of %s was not logged", session.user)
        return JSONResponse(
            {"token": session.token, "player": session.user, "expires": session.expires_at}
        )

    async def signout(request: Request) -> Response:
        player, token = await player_of(request)
        await no_body(request)
        await run_in_threadpool(accounts.sign_out, token)
        if on_sign_out is not None:
            on_sign_out(token_hash(token))
        return JSONResponse({"player": player, "signed_out": True})

    # -- money

    async def me(request: Request) -> Response:
        player, _ = await player_of(request)
        balance = await run_in_threadpool(cashier.balance, player)
        return JSONResponse({"player": player, "balances": balance["balances"]})

    async def balance(request: Request) -> Response:
        player, _ = await player_of(request)
        return JSONResponse(await run_in_threadpool(cashier.balance, player))

    def book_grant(player: str) -> dict[str, Any]:
        """The grant, in the thread pool: the period's key first, then the top-up."""
        now = limits.clock()
        period = math.floor(now / limits.grant_every)
        key = f"play-grant:{player}:{period}"
        next_at = (period + 1) * limits.grant_every
        refused = ApiError(
            429,
            "rate_limited",
            f"{player} had a play-money grant in this period; one grant per "
            f"{limits.grant_every:g} s; the next is possible at "
            f"{datetime.fromtimestamp(next_at, UTC).isoformat()} (in "
            f"{max(1, math.ceil(next_at - now))} s)",
            _retry_after(next_at - now),
            {"next_at": next_at, "every": limits.grant_every},
        )
        with cashier.storage.transaction(write=False) as tx:
            if tx.get_operation("grant", key) is not None:
                raise refused
        held = to_units(cashier.balance(player)["balances"].get("PLAY", "0"), PLAY)
        if held >= limits.grant_to:
            raise ApiError(
                409,
                "refused",
                f"{player} holds {held} play chips; a grant tops the balance up to "
                f"{limits.grant_to} and is possible below that",
                details={"held": held, "grant_to": limits.grant_to},
            )
        try:
            receipt = cashier.grant(player, limits.grant_to - held, key)
        except IdempotencyConflict:
            raise refused from None  # a grant of this period was booked meanwhile
        return {
            "player": player,
            "currency": "PLAY",
            "granted": receipt["amount"],
            "balance": receipt["balance"],
            "key": key,
            "repeated": receipt["repeated"],
            "next_grant_at": next_at,
        }

    async def grant(request: Request) -> Response:
        player, _ = await player_of(request)
        if request.method == "GET":
            return JSONResponse(await run_in_threadpool(grant_status, player))
        await no_body(request)
        return JSONResponse(await run_in_threadpool(book_grant, player))

    def grant_status(player: str) -> dict[str, Any]:
        """Whether a grant is possible now and, if not, when the next is (issue 42: a busted
        player out of play chips is told when)."""
        now = limits.clock()
        period = math.floor(now / limits.grant_every)
        with cashier.storage.transaction(write=False) as tx:
            taken = tx.get_operation("grant", f"play-grant:{player}:{period}") is not None
        held = to_units(cashier.balance(player)["balances"].get("PLAY", "0"), PLAY)
        return {
            "player": player,
            "currency": "PLAY",
            "held": held,
            "grant_to": limits.grant_to,
            "every": limits.grant_every,
            "available": not taken and held < limits.grant_to,
            "next_grant_at": (period + 1) * limits.grant_every if taken else now,
        }

    # -- hand histories

    async def hand_list(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ("limit", "before"))
        limit = _query_int(request, "limit", 1, limits.hands_max) or limits.hands_default
        before = _query_int(request, "before", 1, 10**18)
        ids = await run_in_threadpool(hands.hands_of, player, limit, before)
        summaries = await run_in_threadpool(hands.summaries, player, ids)
        return JSONResponse(
            {
                "player": player,
                "hands": ids,
                "summaries": summaries,
                "limit": limit,
                "before": before,
                "next_before": ids[-1] if len(ids) == limit else None,
                "formats": _FORMATS,
            }
        )

    async def hand_one(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ("format",))
        ref = request.path_params["ref"]
        match = _HAND_REF.fullmatch(ref)
        if match is None:
            raise _invalid(
                f"{ref!r} is not a hand id: use /api/hands/<id> (JSON) or /api/hands/<id>.phh"
            )
        hand_id = int(match.group(1))
        wanted = (match.group(2) or "").lstrip(".")
        wanted = wanted or _query_choice(request, "format", tuple(_FORMATS)) or "json"
        try:
            view = await run_in_threadpool(hands.for_player, hand_id, player)
        except NotAvailable:
            raise ApiError(
                404,
                "not_found",
                f"no hand {hand_id} among your hands: a player may request only settled hands "
                "they were dealt into (R-HIST-1); GET /api/hands lists them",
            ) from None
        if wanted == "json":
            return JSONResponse(view)
        try:
            text = await run_in_threadpool(phh_of_view, view)
        except ValueError as error:
            log.warning("PHH export refused: %s", error)
            raise ApiError(
                409,
                "refused",
                f"hand {hand_id} cannot be written as PHH; its JSON history is at "
                f"/api/hands/{hand_id}",
            ) from None
        return PlainTextResponse(
            text,
            headers={"Content-Disposition": f'inline; filename="hand-{hand_id}.phh"'},
        )

    async def hand_proof(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ())
        ref = request.path_params["ref"]
        match = _HAND_REF.fullmatch(ref)
        if match is None or match.group(2):
            raise _invalid(f"{ref!r} is not a hand id: use /api/hands/<id>/proof")
        hand_id = int(match.group(1))
        try:
            proof = await run_in_threadpool(hands.proof_for_player, hand_id, player)
        except NotAvailable as error:
            raise ApiError(
                404,
                "not_found",
                f"no proof of hand {hand_id} for you ({error}); proofs are of settled hands you "
                "were dealt into (R-HIST-1): GET /api/hands lists them",
            ) from None
        return JSONResponse(
            proof,
            headers={"Content-Disposition": f'attachment; filename="hand-{hand_id}-proof.json"'},
        )

    # -- hand history downloads for trackers: PokerStars text, OHH, many hands in one file

    async def download_view(request: Request) -> tuple[str, dict[str, Any]]:
        """The requester and the view of the hand of the path (R-HIST-1/2)."""
        player, _ = await player_of(request)
        _only_params(request, ())
        ref = request.path_params["ref"]
        if _HAND_REF.fullmatch(ref) is None or not ref.isdigit():
            raise _invalid(
                f"{ref!r} is not a hand id: use /api/hands/<id>.txt (PokerStars text) or "
                "/api/hands/<id>.ohh (OHH)"
            )
        hand_id = int(ref)
        try:
            return player, await run_in_threadpool(hands.for_player, hand_id, player)
        except NotAvailable:
            raise ApiError(
                404,
                "not_found",
                f"no hand {hand_id} among your hands: a player may request only settled hands "
                "they were dealt into (R-HIST-1); GET /api/hands lists them",
            ) from None

    def hand_file(
        write: Callable[[dict[str, Any], str], str], what: str, extension: str, media_type: str
    ) -> Handler:
        """The handler of one hand's download: ``write(view, player)`` gives the file."""

        async def download(request: Request) -> Response:
            player, view = await download_view(request)
            hand_id = view["hand_id"]
            try:
                text = await run_in_threadpool(write, view, player)
            except ValueError as error:
                log.warning("%s export refused: %s", what, error)
                raise ApiError(
                    409,
                    "refused",
                    f"hand {hand_id} cannot be written as {what}; its JSON history is at "
                    f"/api/hands/{hand_id}",
                ) from None
            disposition = f'attachment; filename="hand-{hand_id}.{extension}"'
            return Response(
                text, media_type=media_type, headers={"Content-Disposition": disposition}
            )

        return download

    async def hand_export(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ("format", "limit", "since", "until"))
        target = _query_choice(request, "format", tuple(EXPORT_FORMATS))
        if target is None:
            raise _invalid(
                f"format must be one of {', '.join(EXPORT_FORMATS)}; give it (format=NAME)",
                {"field": "format", "valid": list(EXPORT_FORMATS)},
            )
        limit = _query_int(request, "limit", 1, limits.hands_max)
        since, until = _query_period(request)
        if limit is None:
            ranged = since is not None or until is not None
            limit = limits.hands_max if ranged else limits.hands_default
        views, more, text, left_out = await heavy(
            player, None, export_of, player, target, limit, since, until
        )
        media_type, extension = EXPORT_FORMATS[target]
        headers = {
            "Content-Disposition": f'attachment; filename="hands.{extension}"',
            "X-Hands": str(len(views) - len(left_out)),
        }
        if more:
            oldest = datetime.fromtimestamp(views[0]["started_at"], UTC)
            headers["X-More-Hands-Until"] = oldest.isoformat().replace("+00:00", "Z")
        if left_out:
            headers["X-Hands-Left-Out"] = " ".join(map(str, left_out))
        return Response(text, media_type=media_type, headers=headers)

    def export_of(
        player: str, target: str, limit: int, since: float | None, until: float | None
    ) -> tuple[list[dict[str, Any]], bool, str, list[int]]:
        views, more = hands.export_for_player(player, limit, since, until)
        text, left_out = export_file(views, target, player)
        return [{"started_at": v["started_at"]} for v in views], more, text, left_out

    # -- a player's settings, statistics and tables (issue 21)

    async def my_settings(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ())
        if request.method == "GET":
            return JSONResponse(await run_in_threadpool(stats.settings, player))
        body = await _read_json(request, limits.max_body)
        names = ", ".join(repr(name) for name in SETTINGS)
        if not body:
            raise _invalid(f"send at least one setting: {names}, each true or false")
        for name, value in body.items():
            if name not in SETTINGS:
                raise _invalid(f"unknown setting {name!r}; the settings are {names}")
            if type(value) is not bool:
                raise _invalid(
                    f"the setting {name!r} is true or false, not a JSON {_json_type(value)}",
                    {"field": name},
                )
        return JSONResponse(await run_in_threadpool(stats.update_settings, player, body))

    def period(request: Request) -> tuple[float | None, float | None]:
        _only_params(request, ("since", "until"))
        return _query_period(request)

    async def my_stats(request: Request) -> Response:
        player, token = await player_of(request)
        since, until = period(request)
        signed_in = await run_in_threadpool(stats.signed_in_at, token_hash(token))
        latest = await run_in_threadpool(stats.latest_hand, player)
        key = ("me", player, since, until, signed_in, latest)
        figures = await heavy(player, key, my_figures, player, since, until, signed_in)
        return JSONResponse(figures)

    def my_figures(
        player: str, since: float | None, until: float | None, signed_in: float | None
    ) -> dict[str, Any]:
        figures = stats.stats(player, since, until)
        session = stats.stats(player, signed_in, None)
        figures["session"] = {
            "since": session["since"],
            "hands": session["hands"],
            "results": session["results"],
        }
        return figures

    async def named_player(request: Request, setting: str, what: str) -> str:
        """The player of the path, who must have turned ``setting`` on; else 404 or 403."""
        await player_of(request)
        name = request.path_params["name"]
        try:
            player = await run_in_threadpool(stats.canonical, name)
        except NotAvailable as error:
            raise ApiError(404, "not_found", f"{error}; player names are as in the lobby") from None
        if not await run_in_threadpool(stats.sharing, [player], setting):
            raise ApiError(
                403,
                "refused",
                f"{player} does not share {what}: a player shares them by turning "
                f"{setting} on (PUT /api/me/settings)",
                details={"player": player, "setting": setting},
            )
        return player

    async def player_stats(request: Request) -> Response:
        since, until = period(request)
        asker, _ = await player_of(request)
        player = await named_player(request, "share_stats", "their statistics")
        latest = await run_in_threadpool(stats.latest_hand, player)
        key = ("player", player, since, until, latest)
        figures = await heavy(asker, key, shared_figures, player, since, until)
        return JSONResponse(figures)

    def shared_figures(player: str, since: float | None, until: float | None) -> dict[str, Any]:
        figures = stats.stats(player, since, until)
        figures.pop("results")  # a player's results are their own
        return figures

    async def player_tables(request: Request) -> Response:
        _only_params(request, ())
        player = await named_player(request, "findable", "the tables they sit at")
        seats = await run_in_threadpool(room.seats, player)
        return JSONResponse(
            {"player": player, "tables": [{"table": t, "seat": seat} for t, seat in seats]}
        )

    async def my_tables(request: Request) -> Response:
        player, _ = await player_of(request)
        _only_params(request, ())
        seats = await run_in_threadpool(room.seats, player)
        waiting = await run_in_threadpool(room.waiting, player)
        return JSONResponse(
            {
                "player": player,
                "seats": [{"table": t, "seat": seat} for t, seat in seats],
                "waiting": [
                    {"table": t, "position": place, "waiting": length}
                    for t, place, length in waiting
                ],
            }
        )

    download_routes = [
        Route("/api/hands/export", endpoint(hand_export), methods=["GET"]),
        Route(
            "/api/hands/{ref}.txt",
            endpoint(hand_file(pokerstars_of_view, "PokerStars text", "txt", "text/plain")),
            methods=["GET"],
        ),
        Route(
            "/api/hands/{ref}.ohh",
            endpoint(hand_file(ohh_of_view, "OHH", "ohh", "application/json")),
            methods=["GET"],
        ),
    ]

    return [
        Route("/api/signup", endpoint(signup), methods=["POST"]),
        Route("/api/signin", endpoint(signin), methods=["POST"]),
        Route("/api/signout", endpoint(signout), methods=["POST"]),
        Route("/api/me", endpoint(me), methods=["GET"]),
        Route("/api/me/settings", endpoint(my_settings), methods=["GET", "PUT"]),
        Route("/api/me/stats", endpoint(my_stats), methods=["GET"]),
        Route("/api/me/tables", endpoint(my_tables), methods=["GET"]),
        Route("/api/players/{name}/stats", endpoint(player_stats), methods=["GET"]),
        Route("/api/players/{name}/tables", endpoint(player_tables), methods=["GET"]),
        Route("/api/balance", endpoint(balance), methods=["GET"]),
        Route("/api/grant", endpoint(grant), methods=["GET", "POST"]),
        Route("/api/hands", endpoint(hand_list), methods=["GET"]),
        *download_routes,
        Route("/api/hands/{ref}", endpoint(hand_one), methods=["GET"]),
        Route("/api/hands/{ref}/proof", endpoint(hand_proof), methods=["GET"]),
    ]


class TournamentDesk(Protocol):
    """Where the tournaments' routes find the tournaments: the single process's runtime, or a
    cluster's gateway (``feltroom.cluster.gateway``), which asks each tournament's owner."""

    accounts: Accounts

    def tournaments_lobby(self) -> list[dict[str, Any]]: ...

    def tournament_ids(self) -> Sequence[str]: ...

    async def tournament_detail(self, tournament_id: str) -> dict[str, Any]: ...

    async def register_tournament(self, tournament_id: str, account: str) -> dict[str, Any]: ...

    async def unregister_tournament(self, tournament_id: str, account: str) -> dict[str, Any]: ...


def tournament_routes(runtime: TournamentDesk, limits: RestLimits | None = None) -> list[Route]:
    """The tournaments' routes of a room that runs them (docs/tournaments.md): the list, one
    tournament whole, registration and withdrawal; a cluster's gateway serves the same, each
    call answered by the tournament's owner."""
    max_body = (limits or RestLimits()).max_body

    async def no_body(request: Request) -> None:
        _strings(await _read_json(request, max_body), ())

    async def tournament_list(request: Request) -> Response:
        _only_params(request, ())
        return JSONResponse({"tournaments": runtime.tournaments_lobby()})

    def tournament_of(request: Request) -> str:
        tournament_id: str = request.path_params["tournament"]
        known = sorted(runtime.tournament_ids())
        if tournament_id not in known:
            raise ApiError(
                404,
                "not_found",
                f"no tournament {tournament_id!r}; tournaments are "
                f"{', '.join(known) or 'none'} (GET /api/tournaments)",
            )
        return tournament_id

    async def tournament_one(request: Request) -> Response:
        _only_params(request, ())
        tournament_id = tournament_of(request)
        return JSONResponse(await runtime.tournament_detail(tournament_id))

    def tournament_call(call: Callable[[str, str], Awaitable[dict[str, Any]]]) -> Handler:
        async def handler(request: Request) -> Response:
            player, _ = await authenticated(request, runtime.accounts)
            await no_body(request)
            tournament_id = tournament_of(request)
            try:
                return JSONResponse(await call(tournament_id, player))
            except (RoomError, IllegalAction) as error:
                # a wallet short of buy-in and fee: its balance and the entry's cost, so that
                # a client can say it in its own words
                details = (
                    {"balance": error.balance, "amount": error.amount}
                    if isinstance(error, InsufficientFunds)
                    else None
                )
                raise ApiError(409, "refused", str(error), details=details) from None

        return handler

    return [
        Route("/api/tournaments", guard(tournament_list), methods=["GET"]),
        Route("/api/tournaments/{tournament}", guard(tournament_one), methods=["GET"]),
        Route(
            "/api/tournaments/{tournament}/register",
            guard(tournament_call(runtime.register_tournament)),
            methods=["POST"],
        ),
        Route(
            "/api/tournaments/{tournament}/register",
            guard(tournament_call(runtime.unregister_tournament)),
            methods=["DELETE"],
        ),
        Route(
            "/api/tournaments/{tournament}/unregister",
            guard(tournament_call(runtime.unregister_tournament)),
            methods=["POST"],
        ),
    ]


_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
_LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def _query_time(request: Request, name: str) -> float | None:
    """An ISO 8601 time of the query (UTC when it names no zone) in epoch seconds; a time
    that is not one, or that is not a time of years 1 to 9999 in UTC (0001-01-01T00:00+14:00
    is in year 0), is a 400 naming the field."""
    text = _query_value(request, name)
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
        if not _EARLIEST <= moment <= _LATEST:  # (a day's margin: answers write it back)
            raise ValueError(moment)
        return moment.timestamp()
    except (ValueError, OverflowError):
        raise _invalid(
            f"{name} must be an ISO 8601 time of years 1 to 9999 in UTC, such as "
            f"2026-12-01T15:00:00Z, not {text[:40]!r}",
            {"field": name},
        ) from None


def _query_period(request: Request) -> tuple[float | None, float | None]:
    """The query's ``since`` and ``until`` (each optional), the one before the other."""
    since = _query_time(request, "since")
    until = _query_time(request, "until")
    if since is not None and until is not None and since >= until:
        raise _invalid("since must be earlier than until", {"field": "since"})
    return since, until


def _query_name(request: Request, name: str) -> str | None:
    """The query's value of ``name``, an account's name (``None`` when absent)."""
    text = _query_value(request, name)
    if text is not None and not _is_name(text):
        raise _invalid(
            f"{name} must be an account's name (1 to 32 letters, digits, '_', '.' or '-'), "
            f"not {text[:40]!r}",
            {"field": name},
        )
    return text


def _is_name(name: str) -> bool:
    try:
        valid_name(name)
    except RoomError:
        return False
    return True

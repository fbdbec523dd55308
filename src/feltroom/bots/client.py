"""An asyncio client of the feltroom protocol (docs/protocol.md), for bots and other programs.

The client speaks only the public protocol: the HTTP API for accounts and money, one websocket
for everything else. It keeps a small picture of each table it watches (``TableState``), brought
up to date by every ``snapshot``, ``event``, ``hole_cards``, ``turn`` and ``hand_result``, so a
program can decide from the state alone; a brain of the strategy layer gets the same
``HandView`` and ``LegalActions`` a house bot gets (``TableState.hand_view``/``legal_actions``).

Typical use::

    client = Client("http://127.0.0.1:8000")
    await client.sign_up("ann", "secret-password")        # True, or False if the name exists
    await client.sign_in("ann", "secret-password")        # keeps the token
    await client.grant()                                  # play chips (None when refused)
    await client.connect()                                # websocket + hello -> welcome
    await client.sit("holdem-1", 3, buy_in=200)           # raises RequestRefused on an error
    async for message in client.messages():               # ends when the connection ends
        state = client.tables.get(message.get("table", ""))
        if message["type"] == "turn" and state is not None and state.my_turn:
            await client.act("holdem-1", brain.choose(state.hand_view(), state.legal_actions()))
    await client.close()

API in short:

- ``Client(url)``: ``url`` is the server's address, ``http://host:port`` (the websocket is then
  ``ws://host:port/ws``) or the websocket's ``ws://host:port/ws`` (``endpoints`` tells both).
- HTTP (blocking calls run in a thread): ``sign_up``, ``sign_in`` (stores ``token`` and
  ``player``), ``grant``, ``balances``, ``lobby_tables``, ``sign_out``, and ``http`` for any
  other call. An error answer raises ``HttpError`` (``status``, ``code``, ``message``).
- The websocket: ``connect()`` opens it and says ``hello``, returning the ``welcome`` (call it
  again after a disconnection to resume: the server sends a ``snapshot`` of each seat's
  table); ``close()``; ``connected``; ``close_code`` (the websocket close code of the last
  connection, or ``None``).
- Requests: ``request(message)`` sends a message with a fresh ``id`` and waits for its reply
  (``ok``, ``pong``, ``lobby`` or ``welcome``); an ``error`` reply raises ``RequestRefused``
  (``code``, ``message``, ``legal``) unless ``check=False``. A connection that ends first raises
  ``ConnectionLost``, no reply in time ``RequestTimeout``. ``send(message)`` sends without
  waiting. Shortcuts: ``ping``, ``lobby``, ``observe``, ``unobserve``, ``sit``, ``leave``,
  ``sit_in``, ``sit_out``, ``post_blind``, ``decline_blind``, ``auto_post``, ``wait_list``,
  ``act`` (a strategy ``Action``), ``chat``.
- Server messages: ``messages()`` yields every message that is not a reply (events, turns,
  snapshots, prompts, offers, chat, lobby updates, errors without a ``ref``), after the table
  state has taken it in, and ends when the connection ends. Or pass ``on_message`` (called
  with each such message, in order) and ``keep_messages=False`` to read only the state.
- State: ``tables`` (table id -> ``TableState``), ``offers`` (table id -> the latest
  ``seat_offer``), ``welcome`` (the last ``welcome``).

Errors are ``ClientError`` subclasses (``feltroom.errors.FeltroomError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from feltroom.cards import Card
from feltroom.errors import FeltroomError
from feltroom.rules import Action, Call, Check, Fold, HandView, LegalActions, RaiseTo, SeatView

__all__ = [
    "Client",
    "ClientError",
    "ConnectionLost",
    "HttpError",
    "RequestRefused",
    "RequestTimeout",
    "SeatState",
    "TableState",
    "action_message",
    "endpoints",
    "invite_secret",
    "legal_from_wire",
]

Message = dict[str, Any]

_REPLIES = frozenset({"ok", "pong", "error", "welcome", "lobby", "tournament"})
_DEAD_MONEY = frozenset({"ante", "dead"})
_MAX_ID = 2_147_483_647


class ClientError(FeltroomError):
    """Something the protocol client could not do; the message says what and why."""


class HttpError(ClientError):
    """The HTTP API answered with an error: ``status``, the error ``code`` and its message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.detail = message


class RequestRefused(ClientError):
    """The server answered a request with ``error``: its ``code``, ``message`` and, for a
    refused ``act``, the ``legal`` actions (a wire dict, or ``None``)."""

    def __init__(self, reply: Message) -> None:
        self.code: str = str(reply.get("code"))
        self.detail: str = str(reply.get("message"))
        self.legal: Message | None = reply.get("legal")
        self.reply = reply
        super().__init__(f"{self.code}: {self.detail}")


class ConnectionLost(ClientError):
    """The websocket is not open (never opened, or it ended before the reply came)."""


class RequestTimeout(ClientError, TimeoutError):
    """No reply came in time (the request may still be done: the table's messages tell)."""


_INVITE = re.compile(r"(.*)/g/([A-Za-z0-9_-]{8,64})/?")


def invite_secret(url: str) -> str | None:
    """The secret of a home game's invite link (``http://h:p/g/<secret>``), or ``None`` for a
    server's address."""
    found = _INVITE.fullmatch(urllib.parse.urlsplit(url.strip()).path)
    return None if found is None else found.group(2)


def endpoints(url: str) -> tuple[str, str]:
    """The HTTP base address and the websocket address of a server given either one, or a home
    game's invite link: ``http://h:p`` -> (``http://h:p``, ``ws://h:p/ws``); ``wss://h/ws`` ->
    (``https://h``, ``wss://h/ws``); ``http://h/g/<secret>`` -> (``http://h``, ``ws://h/ws``).
    Anything else raises ``ClientError``."""
    parts = urllib.parse.urlsplit(url.strip())
    invite = _INVITE.fullmatch(parts.path)
    if invite is not None:
        parts = parts._replace(path=invite.group(1))
    scheme = parts.scheme.lower()
    pairs = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if scheme not in pairs or not parts.netloc:
        raise ClientError(
            f"not a server address: {url!r}; give http://host:port (or ws://host:port/ws)"
        )
    http_scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    path = parts.path.rstrip("/")
    if path.endswith("/ws"):
        path = path[: -len("/ws")]
    base = f"{http_scheme}://{parts.netloc}{path}"
    return base, f"{pairs[scheme]}://{parts.netloc}{path}/ws"


def legal_from_wire(legal: Message, seat: int) -> LegalActions:
    """The strategy layer's ``LegalActions`` of a wire ``legal`` object (as in ``turn``)."""
    return LegalActions(
        seat=seat,
        fold=bool(legal["fold"]),
        check=bool(legal["check"]),
        call=legal.get("call"),
        raise_min=legal.get("raise_min"),
        raise_max=legal.get("raise_max"),
        bet=bool(legal.get("bet", False)),
    )


def action_message(
    table: str,
    hand: int,
    action: Action,
    legal: LegalActions | None,
    turn_id: int | None = None,
) -> Message:
    """The ``act`` message for a strategy action: ``RaiseTo`` becomes ``bet`` or ``raise`` as
    ``legal.bet`` says (``raise`` without ``legal``). Only fold, check, call and raise-to are
    actions a player sends. ``turn_id`` (of the turn message answered) makes a retried or
    doubled action refused (``stale_turn``) instead of applied at a later turn."""
    message: Message = {"type": "act", "table": table, "hand": hand}
    if turn_id is not None:
        message["turn_id"] = turn_id
    if isinstance(action, Fold):
        message["action"] = "fold"
    elif isinstance(action, Check):
        message["action"] = "check"
    elif isinstance(action, Call):
        message["action"] = "call"
    elif isinstance(action, RaiseTo):
        message["action"] = "bet" if legal is not None and legal.bet else "raise"
        message["amount"] = action.amount
    else:
        raise ClientError(f"{action} is not a player's action; send fold, check, call or raise")
    return message


@dataclass(slots=True)
class SeatState:
    """One taken seat as the client knows it (the fields of a snapshot's seat)."""

    seat: int
    player: str
    stack: int
    sitting_out: bool = False
    disconnected: bool = False
    in_hand: bool = False
    bet: int = 0
    folded: bool = False
    all_in: bool = False
    cards: tuple[str, ...] | None = None


@dataclass(slots=True)
class TableState:
    """What the client knows of one table: the last ``snapshot`` brought up to date by the
    table's messages. ``hand`` is the hand in progress or the last one played; ``in_progress``
    tells which. ``legal`` (a wire dict) is set only while it is this client's turn."""

    table: str
    you: int | None = None
    hand: int | None = None
    in_progress: bool = False
    street: int = 0
    button: int | None = None
    small: int | None = None
    big: int | None = None
    seats: dict[int, SeatState] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    pot: int = 0
    to_act: int | None = None
    deadline: float | None = None
    legal: Message | None = None
    turn_id: int | None = None
    hole: tuple[str, ...] | None = None
    blind_prompt: Message | None = None
    turns: int = 0
    """How many ``turn`` messages came (any seat's): tells one turn from the next."""
    hands_played: int = 0
    """Hands this client's seat was dealt into and saw the end of (counted at ``hand_result``)."""
    last_played: int | None = None
    """The id of the last of those hands."""
    last_result: Message | None = None
    strength: str | None = None
    """The client's own hand in words (``hand_strength``: "Two Pair, Kings and Sevens")."""

    @property
    def my_turn(self) -> bool:
        """Whether the client's seat is to act now (a ``turn`` with legal actions came)."""
        return self.legal is not None and self.you is not None and self.to_act == self.you

    @property
    def my_seat(self) -> SeatState | None:
        """The client's own seat, if it has one here."""
        return self.seats.get(self.you) if self.you is not None else None

    def legal_actions(self) -> LegalActions | None:
        """The legal actions of the client's turn, as the strategy layer's ``LegalActions``."""
        if self.legal is None or self.you is None:
            return None
        return legal_from_wire(self.legal, self.you)

    def hand_view(self) -> HandView:
        """The hand as the client's seat sees it, in the strategy layer's ``HandView``: the
        players dealt in (in seat order), the board, the pot, one's own cards and shown
        cards."""
        players = tuple(
            SeatView(
                s.seat,
                s.stack,
                s.bet,
                s.folded,
                s.all_in,
                _cards(s.cards),
            )
            for s in sorted(self.seats.values(), key=lambda s: s.seat)
            if s.in_hand
        )
        return HandView(
            viewer=self.you,
            street=self.street,
            board=tuple(Card.parse(c) for c in self.board),
            pot=self.pot,
            players=players,
            to_act=self.to_act,
            legal=self.legal_actions(),
            over=not self.in_progress,
            results=(),
        )

    def apply(self, message: Message) -> None:
        """Take in one message about this table (unknown kinds and fields are ignored)."""
        kind = message.get("type")
        if kind == "snapshot":
            self._snapshot(message)
        elif kind == "event":
            self._event(message)
        elif kind == "hole_cards":
            self.hole = tuple(message["cards"])
            seat = self.seats.get(message["seat"])
            if seat is not None:
                seat.cards = self.hole
        elif kind == "turn":
            self.turns += 1
            self.hand = message.get("hand", self.hand)
            self.in_progress = True
            self.to_act = message["seat"]
            self.deadline = message.get("deadline")
            self.turn_id = message.get("turn_id")
            self.legal = message.get("legal") if message["seat"] == self.you else None
        elif kind == "blind_prompt":
            self.blind_prompt = message
        elif kind == "hand_strength":
            if message.get("seat") == self.you:
                self.strength = message.get("description")
        elif kind == "hand_result":
            self._stacks(message.get("stacks", {}).items())
            if self.you is not None and str(self.you) in message.get("stacks", {}):
                self.hands_played += 1
                self.last_played = message.get("hand")
            self.last_result = message
            self._hand_over()

    def _snapshot(self, message: Message) -> None:
        view = message["view"]
        self.you = message.get("you")
        self.hand = view.get("hand") if view.get("hand") is not None else self.hand
        self.in_progress = view.get("hand") is not None
        self.button, self.small, self.big = view.get("button"), view.get("small"), view.get("big")
        self.board = list(view.get("board", []))
        self.street = {0: 0, 3: 1, 4: 2, 5: 3}.get(len(self.board), 0)
        self.pot = view.get("pot", 0)
        self.to_act = view.get("to_act")
        self.deadline = view.get("deadline")
        self.turn_id = view.get("turn_id")
        self.legal = view.get("legal") if self.to_act is not None else None
        self.seats = {}
        for s in view.get("seats", []):
            cards = tuple(s["cards"]) if s.get("cards") is not None else None
            self.seats[s["seat"]] = SeatState(
                seat=s["seat"],
                player=s["player"],
                stack=s["stack"],
                sitting_out=s.get("sitting_out", False),
                disconnected=s.get("disconnected", False),
                in_hand=s.get("in_hand", False),
                bet=s.get("bet", 0),
                folded=s.get("folded", False),
                all_in=s.get("all_in", False),
                cards=cards,
            )
        mine = self.my_seat
        self.hole = mine.cards if mine is not None and self.in_progress else None

    def _event(self, message: Message) -> None:
        kind = message.get("kind")
        seat = self.seats.get(message.get("seat", 0) or 0)
        if message.get("hand") is not None:
            self.hand = message["hand"]
        if kind == "hand_started":
            dealt = set(message.get("dealt", []))
            self.in_progress = True
            self.street, self.board, self.pot = 0, [], 0
            self.to_act, self.legal, self.hole, self.blind_prompt = None, None, None, None
            self.strength = None
            self.button, self.small, self.big = (
                message.get("button"),
                message.get("small"),
                message.get("big"),
            )
            for s in self.seats.values():
                s.in_hand = s.seat in dealt
                s.bet, s.folded, s.all_in, s.cards = 0, False, False, None
        elif kind == "player_seated":
            self.seats[message["seat"]] = SeatState(
                message["seat"], message["account"], message["buy_in"]
            )
        elif kind == "seat_released":
            self.seats.pop(message["seat"], None)
            if message["seat"] == self.you:
                self.you, self.legal, self.hole, self.blind_prompt = None, None, None, None
        elif kind == "seat_changed":
            moved = self.seats.pop(message["old"], None)
            if moved is not None:
                moved.seat = message["new"]
                self.seats[moved.seat] = moved
            if message["old"] == self.you:
                self.you = message["new"]
        elif kind == "hand_voided" or kind == "table_reloaded":
            self._hand_over()
        elif kind == "hand_ended":
            self._stacks((str(s), stack) for s, stack in message.get("stacks", []))
            self._hand_over()
        elif kind == "board_dealt":
            self.board.extend(message.get("cards", []))
            self.street = message.get("street", self.street)
            self.to_act, self.legal = None, None
            for s in self.seats.values():
                s.bet = 0
        elif seat is not None:
            self._seat_event(kind, seat, message)

    def _seat_event(self, kind: Any, seat: SeatState, message: Message) -> None:
        if kind == "chips_added" or kind == "stack_reset":
            seat.stack = message["stack"]
        elif kind == "sat_out":
            seat.sitting_out = True
        elif kind == "sat_in":
            seat.sitting_out = False
        elif kind == "disconnected":
            seat.disconnected = True
        elif kind == "resumed":
            seat.disconnected = False
        elif kind == "posted":
            amount = message["amount"]
            seat.stack -= amount
            self.pot += amount
            if message.get("forced") not in _DEAD_MONEY:
                seat.bet += amount
            seat.all_in = seat.all_in or bool(message.get("all_in"))
        elif kind == "called":
            self._put_in(seat, message["amount"])
            seat.all_in = seat.all_in or bool(message.get("all_in"))
        elif kind == "raised":
            self._put_in(seat, message["to"] - seat.bet)
            seat.all_in = seat.all_in or bool(message.get("all_in"))
        elif kind == "folded":
            seat.folded = True
        elif kind == "protected":
            seat.all_in = True
        elif kind == "uncalled_bet_returned":
            amount = message["amount"]
            seat.stack += amount
            seat.bet = max(0, seat.bet - amount)
            self.pot -= amount
        elif kind == "cards_shown":
            seat.cards = tuple(message["cards"])
        if kind in ("folded", "checked", "called", "raised") and self.to_act == seat.seat:
            self.to_act, self.legal = None, None

    def _put_in(self, seat: SeatState, amount: int) -> None:
        seat.stack -= amount
        seat.bet += amount
        self.pot += amount

    def _stacks(self, stacks: Any) -> None:
        for key, stack in stacks:
            seat = self.seats.get(int(key))
            if seat is not None:
                seat.stack = stack

    def _hand_over(self) -> None:
        self.in_progress = False
        self.to_act, self.legal, self.deadline = None, None, None


def _cards(cards: tuple[str, ...] | None) -> tuple[Card | None, Card | None] | None:
    if cards is None or len(cards) != 2:
        return None
    return (Card.parse(cards[0]), Card.parse(cards[1]))


class Client:
    """One player's connection to a feltroom server (see the module docstring for the API)."""

    def __init__(
        self,
        url: str,
        *,
        keep_messages: bool = True,
        on_message: Callable[[Message], None] | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.http_url, self.ws_url = endpoints(url)
        self.token: str | None = None
        self.player: str | None = None
        self.tables: dict[str, TableState] = {}
        self.offers: dict[str, Message] = {}
        self.welcome: Message | None = None
        self.close_code: int | None = None
        self.timeout = timeout
        self._keep = keep_messages
        self._on_message = on_message
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue()
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._next_id = 0

    # --- HTTP ---------------------------------------------------------------------------------

    async def http(
        self, method: str, path: str, body: Message | None = None, *, auth: bool = True
    ) -> Any:
        """Call the HTTP API (``path`` such as ``/api/me``) and return the decoded JSON answer;
        the token goes along when ``auth`` and one is held. An error answer raises
        ``HttpError``; no answer at all raises ``ClientError``."""
        token = self.token if auth else None
        return await asyncio.to_thread(self._http, method, path, body, token)

    def _http(self, method: str, path: str, body: Message | None, token: str | None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.http_url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            try:
                detail = json.loads(error.read()).get("error", {})
            except (ValueError, AttributeError):
                detail = {}
            raise HttpError(
                error.code, str(detail.get("code", "http")), str(detail.get("message", error))
            ) from None
        except (urllib.error.URLError, OSError) as error:
            raise ClientError(f"cannot reach {self.http_url}: {error}") from None

    async def sign_up(self, name: str, password: str, *, exist_ok: bool = True) -> bool:
        """Create the account: ``True`` when created, ``False`` when the name was taken already
        and ``exist_ok`` (otherwise that is an ``HttpError`` 409)."""
        try:
            await self.http("POST", "/api/signup", {"name": name, "password": password})
        except HttpError as error:
            if exist_ok and error.status == 409:
                return False
            raise
        return True

    async def sign_in(self, name: str, password: str) -> str:
        """Sign in; the token is kept (``token``) for HTTP calls and ``connect``."""
        answer = await self.http(
            "POST", "/api/signin", {"name": name, "password": password}, auth=False
        )
        self.token = str(answer["token"])
        self.player = str(answer["player"])
        return self.token

    async def sign_out(self) -> None:
        """End the session token (the websocket, if open, stays as it is)."""
        await self.http("POST", "/api/signout", {})
        self.token = None

    async def grant(self) -> int | None:
        """Ask for play chips (``POST /api/grant``): the chips granted, or ``None`` when the
        room refuses (balance already at the grant level, or granted this period)."""
        try:
            answer = await self.http("POST", "/api/grant", {})
        except HttpError as error:
            if error.status in (409, 429):
                return None
            raise
        return int(answer["granted"])

    async def balances(self) -> dict[str, str]:
        """The player's balances, currency -> amount in major units as text."""
        answer = await self.http("GET", "/api/balance")
        return dict(answer["balances"])

    async def invite(self, secret: str) -> Message:
        """A home game's invite (``GET /api/invites/{secret}``; no token needed): its id, table,
        name, stakes, seats and buy-in range (docs/home-games.md)."""
        answer = await self.http("GET", f"/api/invites/{secret}", auth=False)
        return dict(answer["game"])

    async def lobby_tables(self) -> list[Message]:
        """Every table's lobby entry (``GET /api/lobby``; no token needed)."""
        answer = await self.http("GET", "/api/lobby", auth=False)
        return list(answer["tables"])

    # --- the websocket ------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether the websocket is open and said hello."""
        return self._ws is not None and self._reader is not None and not self._reader.done()

    async def connect(self) -> Message:
        """Open the websocket and say ``hello`` with the token; returns the ``welcome``. After a
        disconnection, calling it again resumes (snapshots of the seats' tables follow)."""
        if self.token is None:
            raise ClientError("sign in first: connect needs a session token")
        await self.close()
        try:
            ws = await ws_connect(self.ws_url, max_size=2**22, open_timeout=self.timeout)
        except (OSError, TimeoutError, WebSocketException) as error:
            # Every way a connection can fail (refused, reset, a server that dies during the
            # handshake: InvalidMessage, InvalidStatus, ...) is one error: the caller retries.
            raise ConnectionLost(f"cannot open {self.ws_url}: {error}") from None
        self._ws = ws
        self.close_code = None
        self._queue = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(ws))
        welcome = await self.request({"type": "hello", "version": 1, "token": self.token})
        self.welcome = welcome
        self.player = str(welcome["player"])
        return welcome

    async def close(self) -> None:
        """Close the websocket (a disconnection for the room: the seats are kept; ``leave``
        first to give a seat up)."""
        ws, reader = self._ws, self._reader
        self._ws = None
        if ws is not None:
            await ws.close()
        if reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                message = json.loads(frame)
                if not isinstance(message, dict):
                    continue
                self._take(message)
        except ConnectionClosed:
            pass
        finally:
            self.close_code = ws.close_code
            lost = ConnectionLost(f"the connection ended (close code {ws.close_code})")
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(lost)
            self._pending.clear()
            self._queue.put_nowait(None)

    def _take(self, message: Message) -> None:
        kind = message.get("type")
        ref = message.get("ref")
        if kind in _REPLIES and ref is not None and ref in self._pending:
            future = self._pending.pop(ref)
            if not future.done():
                future.set_result(message)
            return
        table = message.get("table")
        if kind == "seat_offer" and isinstance(table, str):
            self.offers[table] = message
        elif kind == "event" and message.get("kind") == "seat_offer_expired":
            self.offers.pop(str(table), None)
        elif isinstance(table, str) and kind in (
            "snapshot",
            "event",
            "hole_cards",
            "turn",
            "blind_prompt",
            "hand_strength",
            "hand_result",
        ):
            self.tables.setdefault(table, TableState(table)).apply(message)
        if self._on_message is not None:
            self._on_message(message)
        if self._keep:
            self._queue.put_nowait(message)

    async def messages(self) -> AsyncIterator[Message]:
        """Every server message that is not a reply, in order, until the connection ends."""
        queue = self._queue
        while True:
            message = await queue.get()
            if message is None:
                return
            yield message

    async def send(self, message: Message) -> int:
        """Send a message with a fresh ``id`` (returned) without waiting for the reply."""
        self._next_id = self._next_id % _MAX_ID + 1
        await self._send(self._next_id, message)
        return self._next_id

    async def _send(self, ident: int, message: Message) -> None:
        if self._ws is None:
            raise ConnectionLost("not connected: call connect() first")
        try:
            await self._ws.send(json.dumps({**message, "id": ident}))
        except ConnectionClosed as error:
            raise ConnectionLost(f"the connection ended: {error}") from None

    async def request(
        self, message: Message, *, timeout: float | None = None, check: bool = True
    ) -> Message:
        """Send a message and wait for its reply. An ``error`` reply raises ``RequestRefused``
        (or is returned, with ``check=False``); ``ConnectionLost`` if the connection ends
        first, ``RequestTimeout`` (a ``TimeoutError``) after ``timeout`` seconds (default: the
        client's)."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._next_id = self._next_id % _MAX_ID + 1
        ident = self._next_id
        self._pending[ident] = future
        try:
            await self._send(ident, message)
            wait = self.timeout if timeout is None else timeout
            try:
                reply = await asyncio.wait_for(future, wait)
            except TimeoutError:
                kind = message.get("type")
                raise RequestTimeout(f"no reply to {kind!r} within {wait} s") from None
        finally:
            self._pending.pop(ident, None)
        if check and reply.get("type") == "error":
            raise RequestRefused(reply)
        return reply

    # --- shortcuts ----------------------------------------------------------------------------

    async def ping(self) -> Message:
        """``ping``; returns the ``pong``."""
        return await self.request({"type": "ping"})

    async def lobby(self) -> list[Message]:
        """Subscribe to the lobby; returns every table's entry (``lobby_update``s follow)."""
        reply = await self.request({"type": "lobby"})
        return list(reply["tables"])

    async def observe(self, table: str) -> Message:
        """Watch a table (a ``snapshot`` comes first)."""
        return await self.request({"type": "observe", "table": table})

    async def unobserve(self, table: str) -> Message:
        """Stop watching a table."""
        return await self.request({"type": "unobserve", "table": table})

    async def sit(
        self,
        table: str,
        seat: int,
        *,
        buy_in: int | None = None,
        entry: str = "post",
        auto_post: bool = True,
        auto_muck: bool = True,
    ) -> Message:
        """Take ``seat`` at ``table`` with ``buy_in`` chips (``None``: the table's default)."""
        message: Message = {
            "type": "sit",
            "table": table,
            "seat": seat,
            "buy_in": buy_in,
            "entry": entry,
            "auto_post": auto_post,
        }
        if not auto_muck:
            message["auto_muck"] = False
        return await self.request(message)

    async def leave(self, table: str) -> Message:
        """Give the seat up (the stack goes back to the wallet)."""
        return await self.request({"type": "leave", "table": table})

    async def sit_in(self, table: str, entry: str = "post") -> Message:
        """Come back from sitting out."""
        return await self.request({"type": "sit_in", "table": table, "entry": entry})

    async def sit_out(self, table: str) -> Message:
        """Keep the seat but be dealt no hands."""
        return await self.request({"type": "sit_out", "table": table})

    async def post_blind(self, table: str) -> Message:
        """Answer a ``blind_prompt`` by posting."""
        return await self.request({"type": "post_blind", "table": table})

    async def decline_blind(self, table: str) -> Message:
        """Answer a ``blind_prompt`` by declining (one sits out)."""
        return await self.request({"type": "decline_blind", "table": table})

    async def auto_post(self, table: str, on: bool = True) -> Message:
        """Post blinds without being asked (or be asked each time)."""
        return await self.request({"type": "auto_post", "table": table, "on": on})

    async def wait_list(self, table: str) -> Message:
        """Join the table's waiting list (a ``seat_offer`` comes when a seat is free)."""
        return await self.request({"type": "wait_list", "table": table})

    async def chat(self, table: str, text: str) -> Message:
        """Say something at a table one watches."""
        return await self.request({"type": "chat", "table": table, "text": text})

    async def act(self, table: str, action: Action, *, hand: int | None = None) -> Message:
        """Act in one's turn with a strategy ``Action`` (fold, check, call, raise-to); the hand
        is the table's current one unless given."""
        state = self.tables.get(table)
        hand_id = hand if hand is not None else (state.hand if state is not None else None)
        if hand_id is None:
            raise ClientError(f"no hand is known at {table}: wait for a turn before acting")
        legal = state.legal_actions() if state is not None else None
        turn_id = state.turn_id if state is not None and hand is None else None
        return await self.request(action_message(table, hand_id, action, legal, turn_id))

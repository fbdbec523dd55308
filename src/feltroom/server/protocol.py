"""The websocket protocol's wire codec, sans-I/O (version 1; the reference is docs/protocol.md).

``decode`` turns one inbound frame into one typed, validated message struct, or raises
``ProtocolError``; ``encode`` turns one outbound message into a compact JSON frame. Nothing
here touches a socket, a clock or the room, so the whole protocol surface is testable (and
fuzzable) as plain functions, as h11 and websockets do it.

Why so strict: every byte of an inbound frame comes from someone we do not trust. A frame is
accepted only if it is exactly one of the documented messages, so the server never acts on a
guess: a float where an integer belongs (``1.0``), a boolean (``true`` is 1 to Python), a
duplicate key (which copy wins depends on the parser), ``NaN``, an amount of ``10**30`` or an
unknown field are refused with an error that names the field and says what would be valid.

Why two paths: a valid frame is decoded by one cached, typed ``msgspec`` decoder plus a cheap
duplicate-key count, the only rule msgspec does not enforce (a couple of microseconds a frame,
validation included: no slower than the standard library's ``json.loads`` parsing it alone).
Only a refused frame is parsed a second time, by the standard library, to find out exactly what
is wrong with it and to recover its request id for the error's ``ref``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeAlias

import msgspec
import msgspec.inspect
import msgspec.structs

from feltroom.cards import Card
from feltroom.errors import FeltroomError

if TYPE_CHECKING:
    from feltroom.rules import LegalActions

__all__ = [
    "DECODE_ERROR_CODES",
    "ERROR_CODES",
    "INBOUND_TYPES",
    "MAX_AMOUNT",
    "MAX_CHAT",
    "MAX_FRAME",
    "MAX_ID",
    "NAME_PATTERN",
    "OUTBOUND_TYPES",
    "PROTOCOL_VERSION",
    "Act",
    "AddChips",
    "AutoMuck",
    "AutoPost",
    "AutoRebuy",
    "Chat",
    "DeclineBlind",
    "Hello",
    "Inbound",
    "Leave",
    "Lobby",
    "LobbyStop",
    "Mute",
    "Observe",
    "Ping",
    "PostBlind",
    "PreAction",
    "ProtocolError",
    "RunTwice",
    "RunTwiceChoice",
    "Show",
    "Sit",
    "SitIn",
    "SitOut",
    "Straddle",
    "Tournament",
    "Unobserve",
    "WaitList",
    "WaitListLeave",
    "decode",
    "encode",
    "error",
    "legal_dict",
    "ok",
    "pong",
]

PROTOCOL_VERSION: Final = 1
"""The version a client names in ``hello``; a change that breaks clients bumps it."""
MAX_FRAME: Final = 16 * 1024
"""Largest inbound frame, in bytes of its UTF-8 text (the server closes with 1009 above it)."""
MAX_AMOUNT: Final = 10**12
"""Largest integer any amount or hand id may be: far above any real stack, far below the
point where a client's JSON library (doubles: 2**53) would round it."""
MAX_ID: Final = 2**31 - 1
"""Largest request id: fits the signed 32-bit integer of every client language."""
MAX_CHAT: Final = 200
"""Longest chat line, in characters after stripping surrounding whitespace."""
NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}\Z"
"""Table ids and account names. ``\\Z``, not ``$``: ``$`` would let a trailing newline in."""

ERROR_CODES: Final = (
    "malformed",
    "too_large",
    "unknown_type",
    "invalid_field",
    "version",
    "unauthenticated",
    "rate_limited",
    "not_found",
    "illegal_action",
    "not_your_turn",
    "stale_hand",
    "stale_turn",
    "not_joined",
    "refused",
)
"""Every ``code`` an ``error`` message may carry (docs/protocol.md has the table)."""
DECODE_ERROR_CODES: Final = ("malformed", "too_large", "unknown_type", "invalid_field", "version")
"""The codes ``decode`` itself raises: the frame, not the room, is at fault."""
OUTBOUND_TYPES: Final = (
    "welcome",
    "ok",
    "pong",
    "error",
    "lobby",
    "lobby_update",
    "snapshot",
    "event",
    "hole_cards",
    "hand_strength",
    "pots",
    "turn",
    "blind_prompt",
    "seat_offer",
    "run_twice",
    "hand_result",
    "chat",
    "reminder",
    "announcement",
    "tournament",
    "moved",
    "tournament_result",
    "game",
    "game_request",
)
"""The ``type`` of every message the server sends."""


# --------------------------------------------------------------------------- inbound messages

_Id = Annotated[int, msgspec.Meta(ge=0, le=MAX_ID)]
_Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=NAME_PATTERN)]
_Amount = Annotated[int, msgspec.Meta(ge=1, le=MAX_AMOUNT)]
_Seat = Annotated[int, msgspec.Meta(ge=1, le=10)]
_Version = Annotated[int, msgspec.Meta(ge=0, le=MAX_ID)]
_Token = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
_Text = Annotated[str, msgspec.Meta(pattern=r"\A[^\x00-\x1f\x7f]*\Z")]
_Entry = Literal["post", "wait"]
_TurnId = Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)]


class _Message(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", kw_only=True
):
    """Shared by every inbound message: the optional request id, echoed as ``ref``.

    Subclasses inherit the configuration (frozen, unknown fields refused, tagged by ``"type"``)
    and name their own tag; ``frozen=True`` is repeated on each only for the type checker.
    """

    id: _Id | None = None


class Hello(_Message, frozen=True, tag="hello"):
    """The first message of a connection: the protocol version and the session token."""

    version: _Version
    token: _Token


class Ping(_Message, frozen=True, tag="ping"):
    """Is the connection alive? Answered by ``pong``."""


class Lobby(_Message, frozen=True, tag="lobby"):
    """Subscribe to the lobby: a ``lobby`` message now, ``lobby_update`` messages later."""


class LobbyStop(_Message, frozen=True, tag="lobby_stop"):
    """Unsubscribe from the lobby."""


class Observe(_Message, frozen=True, tag="observe"):
    """Watch a table without a seat: a ``snapshot`` now, its public messages later."""

    table: _Name


class Unobserve(_Message, frozen=True, tag="unobserve"):
    """Stop watching a table."""

    table: _Name


class Sit(_Message, frozen=True, tag="sit"):
    """Take a seat: buy-in (None: the table's default buy-in, R-BUYIN-2), entry, auto-post,
    auto-muck (off: from the first deal, as an ACPC bridge needs)."""

    table: _Name
    seat: _Seat
    buy_in: _Amount | None = None
    entry: _Entry = "post"
    auto_post: bool = True
    auto_muck: bool = True


class Leave(_Message, frozen=True, tag="leave"):
    """Give up the seat (with the stack) at a table."""

    table: _Name


class WaitList(_Message, frozen=True, tag="wait_list"):
    """Join a full table's waiting list."""

    table: _Name


class WaitListLeave(_Message, frozen=True, tag="wait_list_leave"):
    """Leave a table's waiting list."""

    table: _Name


class AddChips(_Message, frozen=True, tag="add_chips"):
    """Add chips to the stack (between hands, within the table's buy-in limits)."""

    table: _Name
    amount: _Amount


class SitOut(_Message, frozen=True, tag="sit_out"):
    """Keep the seat but be dealt no hands."""

    table: _Name


class SitIn(_Message, frozen=True, tag="sit_in"):
    """Come back from sitting out: post now, or wait for the big blind."""

    table: _Name
    entry: _Entry = "post"


class PostBlind(_Message, frozen=True, tag="post_blind"):
    """Answer a ``blind_prompt``: post the blind now."""

    table: _Name


class DeclineBlind(_Message, frozen=True, tag="decline_blind"):
    """Answer a ``blind_prompt``: do not post (sit out instead)."""

    table: _Name


class AutoPost(_Message, frozen=True, tag="auto_post"):
    """Post blinds without being asked (on) or be asked each time (off)."""

    table: _Name
    on: bool


class AutoRebuy(_Message, frozen=True, tag="auto_rebuy"):
    """Buy in again from the wallet when the stack is empty (on), or be offered it (off)."""

    table: _Name
    on: bool


class Straddle(_Message, frozen=True, tag="straddle"):
    """Straddle whenever the seat may (on), or never (off): a standing choice (R-HOME-3), at
    tables that allow straddles; it applies from the next deal."""

    table: _Name
    on: bool


class Act(_Message, frozen=True, tag="act"):
    """Act in one's turn; ``amount`` is the raise-to total, given for bet and raise only.
    ``turn_id``, when given, must name the turn in progress (the ``turn_id`` of its ``turn``
    message), else the action is refused with ``stale_turn``: a retried or doubled ``act`` is
    never applied at a later turn of the hand."""

    table: _Name
    hand: _Amount
    action: Literal["fold", "check", "call", "bet", "raise"]
    amount: _Amount | None = None
    turn_id: _TurnId | None = None


class PreAction(_Message, frozen=True, tag="pre_action"):
    """Choose (or with ``kind: null`` clear) an action to take when the turn comes."""

    table: _Name
    hand: _Amount
    kind: Literal["check_fold", "check", "call_any", "fold", "call"] | None
    amount: _Amount | None = None


class Show(_Message, frozen=True, tag="show"):
    """Show one's cards after the hand instead of mucking them."""

    table: _Name
    hand: _Amount


class AutoMuck(_Message, frozen=True, tag="auto_muck"):
    """Muck losing or uncalled hands without being asked (on), or keep the choice (off)."""

    table: _Name
    on: bool


class RunTwiceChoice(_Message, frozen=True, tag="run_twice_choice"):
    """The standing choice for running it twice at a table that allows it (R-HOME-4):
    ``always`` agree, ``ask`` (a ``run_twice`` question each time) or ``never``."""

    table: _Name
    choice: Literal["always", "ask", "never"]


class RunTwice(_Message, frozen=True, tag="run_twice"):
    """Answer the ``run_twice`` question of the hand in progress (R-HOME-4)."""

    table: _Name
    agree: bool


class Chat(_Message, frozen=True, tag="chat"):
    """Say something at a table (decoded text is stripped of surrounding whitespace)."""

    table: _Name
    text: _Text


class Mute(_Message, frozen=True, tag="mute"):
    """Stop (on) or resume (off) receiving a player's chat at a table."""

    table: _Name
    player: _Name
    on: bool


_Control = Literal[
    "admit", "approve", "pause", "resume", "settings", "remove", "cohost", "link", "end"
]


class Game(_Message, frozen=True, tag="game"):
    """A home game host's control (docs/home-games.md), with that control's fields; answered
    by a ``game`` message (the game as the sender sees it)."""

    game: _Name
    control: _Control
    request: _Id | None = None
    admit: bool | None = None
    approve: bool | None = None
    player: _Name | None = None
    on: bool | None = None
    small_blind: _Amount | None = None
    big_blind: _Amount | None = None
    min_buy_in: _Amount | None = None
    max_buy_in: _Amount | None = None
    admission: bool | None = None
    auto_buy_in: bool | None = None


class GameRequest(_Message, frozen=True, tag="game_request"):
    """A player's own pending request in a home game (docs/home-games.md): ``withdraw`` takes
    it back before the host answers; answered by a ``game`` message (the game as the sender
    sees it) and the ``game_request`` note with ``status`` ``withdrawn``."""

    game: _Name
    request: _Id
    action: Literal["withdraw"]


class Tournament(_Message, frozen=True, tag="tournament"):
    """Where a tournament you entered stands: answered by a ``tournament`` message."""

    tournament: _Name


Inbound: TypeAlias = (
    Hello
    | Ping
    | Lobby
    | LobbyStop
    | Observe
    | Unobserve
    | Sit
    | Leave
    | WaitList
    | WaitListLeave
    | AddChips
    | SitOut
    | SitIn
    | PostBlind
    | DeclineBlind
    | AutoPost
    | AutoRebuy
    | Straddle
    | Act
    | PreAction
    | Show
    | AutoMuck
    | RunTwiceChoice
    | RunTwice
    | Chat
    | Mute
    | Tournament
    | Game
    | GameRequest
)
"""Any inbound message; dispatch on its class (or ``type(m).__struct_config__.tag``)."""

_CLASSES: tuple[type[_Message], ...] = (
    Hello,
    Ping,
    Lobby,
    LobbyStop,
    Observe,
    Unobserve,
    Sit,
    Leave,
    WaitList,
    WaitListLeave,
    AddChips,
    SitOut,
    SitIn,
    PostBlind,
    DeclineBlind,
    AutoPost,
    AutoRebuy,
    Straddle,
    Act,
    PreAction,
    Show,
    AutoMuck,
    RunTwiceChoice,
    RunTwice,
    Chat,
    Mute,
    Tournament,
    Game,
    GameRequest,
)
_BY_TAG: dict[str, type[_Message]] = {str(c.__struct_config__.tag): c for c in _CLASSES}
INBOUND_TYPES: Final = tuple(sorted(_BY_TAG))
"""The ``type`` of every message a client may send."""


# --------------------------------------------------------------------------- errors


class ProtocolError(FeltroomError):
    """A frame the protocol refuses: the sender is at fault, nothing was done.

    ``code`` is one of ``DECODE_ERROR_CODES``; ``message`` says what was wrong and what would be
    valid; ``ref`` is the frame's request id when it could be read, so that a client can match
    the error to its request even when the rest of the frame is broken; ``details`` the
    figures of the ``error`` message (docs/protocol.md, per code).
    """

    def __init__(
        self,
        code: str,
        message: str,
        ref: int | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        if code not in DECODE_ERROR_CODES:
            raise ValueError(f"protocol error code {code!r}; codes are {DECODE_ERROR_CODES}")
        super().__init__(code, message, ref, details)  # all four, so that the error pickles
        self.code = code
        self.message = message
        self.ref = ref
        self.details: dict[str, Any] = dict(details or {})

    def __str__(self) -> str:
        return self.message

    def to_message(self) -> dict[str, Any]:
        """The ``error`` message that answers the refused frame."""
        return error(self.code, self.message, self.ref, details=self.details)


# --------------------------------------------------------------------------- field descriptions


def _describe(t: msgspec.inspect.Type) -> str:
    """What a field accepts, in words, for error messages (from the struct's own constraints,
    so the messages cannot drift from the rules)."""
    if isinstance(t, msgspec.inspect.IntType):
        if t.ge is not None and t.le is not None:
            return f"an integer {t.ge}..{t.le}"
        return "an integer"  # pragma: no cover - every integer field has both bounds
    if isinstance(t, msgspec.inspect.StrType):
        if t.pattern == NAME_PATTERN:
            return (
                "a name of 1..32 characters: letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        return f"a string of {t.min_length}..{t.max_length} characters"
    if isinstance(t, msgspec.inspect.BoolType):
        return "true or false"
    if isinstance(t, msgspec.inspect.LiteralType):
        return "one of " + ", ".join(json.dumps(v) for v in t.values)
    if isinstance(t, msgspec.inspect.UnionType):
        return " or ".join(_describe(u) for u in t.types)
    if isinstance(t, msgspec.inspect.NoneType):
        return "null"
    return str(t)  # pragma: no cover - no other field types exist


_TEXT_HELP = (
    f"a string of 1..{MAX_CHAT} characters after stripping surrounding whitespace, "
    "without control characters (U+0000..U+001F, U+007F)"
)


def _fields(cls: type[_Message]) -> tuple[msgspec.inspect.Field, ...]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return info.fields


def _field_help(fields: tuple[msgspec.inspect.Field, ...]) -> dict[str, str]:
    """What each field accepts. An optional field (null means absent) is described without
    its ``or null``."""
    helps: dict[str, str] = {}
    for f in fields:
        t = f.type
        if not f.required and isinstance(t, msgspec.inspect.UnionType):
            t = msgspec.inspect.UnionType(
                tuple(u for u in t.types if not isinstance(u, msgspec.inspect.NoneType))
            )
        helps[f.name] = _describe(t)
    return helps


_FIELDS: Final = {tag: _fields(cls) for tag, cls in _BY_TAG.items()}
_HELP: Final = {tag: _field_help(fields) for tag, fields in _FIELDS.items()}
_HELP["chat"]["text"] = _TEXT_HELP
_REQUIRED: Final = {tag: tuple(f.name for f in fs if f.required) for tag, fs in _FIELDS.items()}
_FIELD_ORDER: Final = {tag: ("type", *(f.name for f in fs)) for tag, fs in _FIELDS.items()}


# --------------------------------------------------------------------------- decoding

_DECODER: Final = msgspec.json.Decoder(Inbound)
_PLAIN: Final = msgspec.json.Decoder()
_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_ID_IN_TEXT: Final = re.compile(rb'"id"\s*:\s*(0|[1-9][0-9]{0,9})\s*[,}]')
_AT_FIELD: Final = re.compile(r"- at `\$\.([A-Za-z_][A-Za-z0-9_]*)`$")


def decode(frame: str | bytes) -> Inbound:
    """The message in one inbound frame, validated; raises ``ProtocolError`` and nothing else.

    The returned struct obeys every rule of docs/protocol.md, cross-field rules included, so
    the server can act on it without checking types again (only the room's rules remain).
    """
    data = _frame_bytes(frame)
    try:
        message: Inbound = _DECODER.decode(data)
    except (msgspec.MsgspecError, RecursionError) as exc:
        raise _diagnose(data, exc) from None
    if _has_duplicate_keys(data):
        raise _diagnose(data, None)
    check = _CHECKS.get(type(message))
    return message if check is None else check(message)


def _frame_bytes(frame: object) -> bytes:
    if isinstance(frame, str):
        if len(frame) > MAX_FRAME:  # never smaller in UTF-8: refuse before encoding
            raise _too_large(len(frame))
        try:
            data = frame.encode()
        except UnicodeEncodeError as exc:
            raise ProtocolError(
                "malformed", f"the frame is not valid Unicode text ({exc.reason}); {_FRAMING}"
            ) from None
    elif isinstance(frame, (bytes, bytearray, memoryview)):
        data = bytes(frame)
    else:
        raise ProtocolError("malformed", f"a frame is text, not {type(frame).__name__}")
    if len(data) > MAX_FRAME:
        raise _too_large(len(data))
    return data


def _too_large(size: int) -> ProtocolError:
    return ProtocolError(
        "too_large", f"frame of {size} bytes or more; frames are at most {MAX_FRAME} bytes"
    )


_FRAMING = 'a frame is one UTF-8 JSON object with a "type", such as {"type":"ping"}'


def _has_duplicate_keys(data: bytes) -> bool:
    """Whether a frame msgspec accepted repeats a key (msgspec keeps the last copy silently).

    An accepted frame is one flat object of scalars, so it has one member per colon outside
    its strings; more members than distinct keys means a repeated key. Counting every colon
    is exact when no string holds one, which is the common case; otherwise the strings are cut
    out first.
    """
    distinct = len(_PLAIN.decode(data))
    if data.count(b":") == distinct:
        return False
    return _STRING.sub(b"", data).count(b":") != distinct


class _Number:
    """A JSON number that is not a small integer, kept as its text for error messages."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Scan:
    """Hooks for ``json.loads`` that record what msgspec would not tell: repeated keys (at any
    depth) and the non-JSON constants NaN, Infinity and -Infinity."""

    def __init__(self) -> None:
        self.duplicates: list[str] = []
        self.constants: list[str] = []

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.duplicates.append(key)
                seen.add(key)
        return obj

    def constant(self, text: str) -> _Number:
        self.constants.append(text)
        return _Number(text)


def _parse_int(text: str) -> int | _Number:
    # Long digit strings are not converted: they are refused anyway, and converting one of
    # 5000 digits would trip Python's integer-string limit.
    return int(text) if len(text) <= 20 else _Number(text)


def _show(value: Any) -> str:
    """A received value, shortly, as the client wrote it."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, _Number):
        text = value.text
        return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} characters)"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 40 else f'{text[:36]}..." ({len(value)} characters)'
    if isinstance(value, list):
        return "an array"
    return "an object"


def _short(text: str) -> str:
    return repr(text if len(text) <= 32 else text[:32] + "...")


def _ref(obj: dict[str, Any]) -> int | None:
    value = obj.get("id")
    if type(value) is int and 0 <= value <= MAX_ID:
        return value
    return None


def _ref_in_text(data: bytes) -> int | None:
    """The request id of a frame that is not JSON, if exactly one plausible ``"id": n`` is in
    it; otherwise None (a guess could answer the wrong request)."""
    found = _ID_IN_TEXT.findall(data)
    if len(found) == 1 and int(found[0]) <= MAX_ID:
        return int(found[0])
    return None


def _diagnose(data: bytes, exc: BaseException | None) -> ProtocolError:
    """Why a frame was refused, in words a client author can act on. Slow, and only for
    refused frames."""
    try:
        text = data.decode()
    except UnicodeDecodeError as bad:
        return ProtocolError(
            "malformed",
            f"the frame is not valid UTF-8 (byte {bad.start}); {_FRAMING}",
            _ref_in_text(data),
        )
    scan = _Scan()
    try:
        value = json.loads(
            text,
            object_pairs_hook=scan.pairs,
            parse_constant=scan.constant,
            parse_int=_parse_int,
            parse_float=_Number,
        )
    except json.JSONDecodeError as bad:
        return ProtocolError(
            "malformed",
            f"not JSON: {bad.msg} (line {bad.lineno}, column {bad.colno}); {_FRAMING}",
            _ref_in_text(data),
        )
    except RecursionError:
        return ProtocolError("malformed", f"JSON nested too deeply; {_FRAMING}", _ref_in_text(data))
    ref = _ref(value) if isinstance(value, dict) and "id" not in scan.duplicates else None
    if scan.constants:
        return ProtocolError(
            "malformed",
            f"{scan.constants[0]} is not JSON; numbers are finite (amounts: integers)",
            ref,
        )
    if scan.duplicates:
        return ProtocolError(
            "malformed",
            f"duplicate key {scan.duplicates[0]!r}; a key may appear only once in an object",
            ref,
        )
    if not isinstance(value, dict):
        return ProtocolError("malformed", f"{_FRAMING}; got {_show(value)}", None)
    return _diagnose_object(value, ref, exc)


def _diagnose_object(
    obj: dict[str, Any], ref: int | None, exc: BaseException | None
) -> ProtocolError:
    kind = obj.get("type")
    if "type" not in obj:
        return ProtocolError("malformed", f'the object has no "type"; {_FRAMING}', ref)
    if not isinstance(kind, str):
        return ProtocolError(
            "malformed", f'"type" must be a string naming the message, got {_show(kind)}', ref
        )
    if kind not in _BY_TAG:
        return ProtocolError(
            "unknown_type",
            f"unknown message type {_short(kind)}; valid types are: {', '.join(INBOUND_TYPES)}",
            ref,
            {"valid": list(INBOUND_TYPES)},
        )
    if kind == "hello":
        version = obj.get("version")
        if type(version) is int and version != PROTOCOL_VERSION:
            return _version_error(version, ref)
    order = _FIELD_ORDER[kind]
    for name in obj:
        if name not in order:
            return ProtocolError(
                "invalid_field",
                f"{kind}: unknown field {_show(name)}; the fields of {kind} are: "
                f"{', '.join(order)}",
                ref,
                {"field": f"{kind}.{name}", "valid": list(order)},
            )
    for name in _REQUIRED[kind]:
        if name not in obj:
            return ProtocolError(
                "invalid_field",
                f"{kind}.{name}: missing; expected {_HELP[kind][name]}",
                ref,
                {"field": f"{kind}.{name}", "expected": _HELP[kind][name], "missing": True},
            )
    detail = str(exc) if exc is not None else "the frame was refused"
    match = _AT_FIELD.search(detail)
    if match is not None and match.group(1) in _HELP[kind]:
        name = match.group(1)
        return ProtocolError(
            "invalid_field",
            f"{kind}.{name}: expected {_HELP[kind][name]}, got {_show(obj[name])}",
            ref,
            {
                "field": f"{kind}.{name}",
                "expected": _HELP[kind][name],
                "got": _show(obj[name]),
            },
        )
    if isinstance(exc, msgspec.DecodeError):
        # The standard library parser accepts what msgspec does not: a lone surrogate escape.
        reason = (
            "a string holds a lone surrogate escape (such as \\ud800); strings are Unicode text"
            if _has_lone_surrogate(obj)
            else detail
        )
        return ProtocolError("malformed", f"not JSON: {reason}; {_FRAMING}", ref)
    return ProtocolError("invalid_field", f"{kind}: {detail}", ref)  # pragma: no cover


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _version_error(version: int, ref: int | None) -> ProtocolError:
    return ProtocolError(
        "version",
        f"hello.version: this server speaks protocol version {PROTOCOL_VERSION}, not {version}",
        ref,
        {"version": PROTOCOL_VERSION, "got": version},
    )


# Cross-field rules, which a field's type alone cannot say.


def _check_hello(m: Hello) -> Hello:
    if m.version != PROTOCOL_VERSION:
        raise _version_error(m.version, m.id)
    return m


def _amount_rule(
    kind: str,
    field: str,
    value: str | None,
    needs: tuple[str, ...],
    amount: int | None,
    ref: int | None,
) -> None:
    """``amount`` is required for the values in ``needs`` and forbidden for the others."""
    if (value in needs) == (amount is not None):
        return
    shown = "null" if value is None else json.dumps(value)
    if amount is None:
        raise ProtocolError(
            "invalid_field",
            f"{kind}.amount: required for {field} {shown}; expected an integer 1..{MAX_AMOUNT}",
            ref,
            {"field": f"{kind}.amount", "missing": True, "min": 1, "max": MAX_AMOUNT},
        )
    allowed = " and ".join(json.dumps(n) for n in needs)
    raise ProtocolError(
        "invalid_field",
        f"{kind}.amount: given only for {field} {allowed}; leave it out for {field} {shown}",
        ref,
        {"field": f"{kind}.amount", "unexpected": True},
    )


def _check_act(m: Act) -> Act:
    _amount_rule("act", "action", m.action, ("bet", "raise"), m.amount, m.id)
    return m


def _check_pre_action(m: PreAction) -> PreAction:
    _amount_rule("pre_action", "kind", m.kind, ("call",), m.amount, m.id)
    return m


def _check_chat(m: Chat) -> Chat:
    text = m.text.strip()
    if not 1 <= len(text) <= MAX_CHAT:
        raise ProtocolError(
            "invalid_field",
            f"chat.text: expected {_TEXT_HELP}, got {len(text)} characters",
            m.id,
            {"field": "chat.text", "min_length": 1, "max_length": MAX_CHAT, "length": len(text)},
        )
    return m if text == m.text else msgspec.structs.replace(m, text=text)


_CHECKS: Final[dict[type[Any], Callable[[Any], Inbound]]] = {
    Hello: _check_hello,
    Act: _check_act,
    PreAction: _check_pre_action,
    Chat: _check_chat,
}


# --------------------------------------------------------------------------- outbound


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _wire(value: Any) -> Any:
    """``value`` with every card as its text, at any depth. msgspec cannot do this through
    ``enc_hook``: a Card is a dataclass, which msgspec writes as an object of its fields
    without asking the hook, so cards are replaced before encoding."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if cls is Card:
        return str(value)
    if isinstance(value, Mapping):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_wire(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _wire(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value  # enums and the like: msgspec writes them; anything else reaches _enc_hook


def _enc_hook(obj: Any) -> Any:
    raise TypeError(f"the protocol has no JSON form for {type(obj).__name__}: {obj!r}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_enc_hook)


def encode(message: Mapping[str, Any]) -> str:
    """One outbound message as a compact JSON frame: cards as their text (``"As"``), tuples
    and sets as arrays, integer keys as strings, dataclasses as objects. Raises ``TypeError``
    for a value the protocol has no form for: that is a server bug, not the client's fault."""
    return _ENCODER.encode(_wire(message)).decode()


FrameCache = dict[int, tuple[Mapping[str, Any], str]]
"""Encodings of the messages of one broadcast by message identity (``encode_once``)."""


def encode_once(message: Mapping[str, Any], frames: FrameCache) -> str:
    """``encode(message)``, once per message across the viewers of a broadcast: ``frames``
    caches the encoding by the message's identity and holds the message too, so that no
    identity is reused by another message while the cache lives (a message built for one
    viewer and freed could otherwise be taken for the next viewer's and hand them its frame)."""
    cached = frames.get(id(message))
    if cached is None:
        cached = frames[id(message)] = (message, encode(message))
    return cached[1]


def ok(ref: int | None) -> dict[str, Any]:
    """The reply to a request that worked and has nothing else to say."""
    return {"type": "ok", "ref": ref}


def pong(ref: int | None) -> dict[str, Any]:
    """The reply to ``ping``."""
    return {"type": "pong", "ref": ref}


def error(
    code: str,
    message: str,
    ref: int | None = None,
    legal: Mapping[str, Any] | LegalActions | None = None,
    details: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The reply to a refused request: ``code`` (one of ``ERROR_CODES``) for programs,
    ``message`` (what would be valid) for people, ``details`` (always there, ``{}`` when there
    is nothing to add) the figures behind the message for a program or a page that writes its
    own sentence, ``legal`` when an action was illegal."""
    if code not in ERROR_CODES:
        raise ValueError(f"error code {code!r}; codes are {', '.join(ERROR_CODES)}")
    reply: dict[str, Any] = {
        "type": "error",
        "ref": ref,
        "code": code,
        "message": message,
        "details": dict(details or {}),
    }
    if legal is not None:
        reply["legal"] = dict(legal) if isinstance(legal, Mapping) else legal_dict(legal)
    return reply


def legal_dict(legal: LegalActions) -> dict[str, Any]:
    """The legal actions as the wire carries them (R-BET-6): exactly these six options; the
    seat is implied by whom the message goes to."""
    return {
        "fold": legal.fold,
        "check": legal.check,
        "call": legal.call,
        "raise_min": legal.raise_min,
        "raise_max": legal.raise_max,
        "bet": legal.bet,
    }

"""The operator API (docs/operator.md): the live room's operator actions, JSON under
``/api/operator``, and the operator console at ``/admin``.

Every call sends ``Authorization: Bearer <token>`` of an operator account's sign-in (``POST
/api/signin``); an account that is not an operator, or an operator calling from an address it did
not name, is refused (403) and nothing changes. Every action takes a ``reason`` and is written to
the operator log before it acts; a refused action (unknown account or table, bad input: 400, 404
or 409 with a message saying what is valid) writes nothing and changes nothing.

- ``GET /api/operator/me``: the operator and their addresses;
- ``GET /api/operator/online``: who is connected, from where, watching and seated where;
- ``GET /api/operator/tables``: every table's lobby entry and the players seated there;
- ``GET /api/operator/log?since=ISO&limit=N``: the operator log, oldest first;
- ``GET /api/operator/integrity?since=ISO[&account=NAME]``: the integrity report
  (docs/integrity.md), or one account's;
- ``GET /api/operator/protection?account=NAME``: a player's limits, cool-off, self-exclusion and
  verification (``feltroom.server.protection_api``);
- ``POST /api/operator/<action>``: ``suspend``, ``reinstate``, ``reset-password``,
  ``remove`` (``{"account", "reason"}``), ``verify`` (``{"account", "identity", "reason"}``:
  the e-mail address or document number checked, kept only as a keyed hash), ``rename``
  (``{"account", "to", "reason"}``), none of them on an operator's account (409);
  ``close-table``, ``reopen-table``, ``retire-table``
  (``{"table", "reason"}``), ``add-table`` (``{"definition": {a tables file's [[table]]
  entry}, "reason"}``), ``kick`` (``{"table", "player", "reason"}``), ``broadcast``
  (``{"text", "reason"}``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from feltroom.integrity.report import DEFAULT_THRESHOLD
from feltroom.room.accounts import Accounts
from feltroom.room.errors import NotAnOperator, NotSeated, RoomError, UnknownAccount
from feltroom.room.operator import run_integrity
from feltroom.room.operators import MAX_REASON, Operators, check_reason
from feltroom.room.protection import Protection
from feltroom.room.runtime import RoomRuntime
from feltroom.room.storage import Storage
from feltroom.room.tables_config import TableSpec, check_cash_table_id, spec_of
from feltroom.server.rest import (
    ApiError,
    _client_address,
    _invalid,
    _json_type,
    _only_params,
    _query_int,
    _query_name,
    _query_time,
    _read_json,
    authenticated,
    guard,
)
from feltroom.server.session import Hub

__all__ = ["ACCOUNT_ACTIONS", "TABLE_ACTIONS", "LocalRoom", "OperatorRoom", "operator_routes"]

ACCOUNT_ACTIONS = ("suspend", "reinstate", "reset-password")
TABLE_ACTIONS = ("close-table", "reopen-table", "retire-table")
MAX_BROADCAST = 500
MAX_BODY = 16_384  # a table's definition is the largest body

Action = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def _fields(body: dict[str, Any], names: dict[str, type]) -> dict[str, Any]:
    """Exactly the fields ``names``, each of its type."""
    expected = ", ".join(repr(name) for name in names)
    extra = sorted(set(body) - set(names))
    if extra:
        raise _invalid(f"unknown field {extra[0]!r}; the fields are {expected}")
    for name, kind in names.items():
        if name not in body:
            raise _invalid(f"the field {name!r} is missing; the fields are {expected}")
        if type(body[name]) is not kind:
            wanted = "a string" if kind is str else "a JSON object"
            raise _invalid(
                f"the field {name!r} must be {wanted}, not a JSON {_json_type(body[name])}"
            )
    try:
        body["reason"] = check_reason(body["reason"])
    except RoomError as error:
        raise _invalid(str(error), {"field": "reason", "max_length": MAX_REASON}) from None
    return body


def _refused(error: RoomError) -> ApiError:
    if isinstance(error, UnknownAccount | NotSeated):
        return ApiError(404, "not_found", str(error))
    return ApiError(409, "refused", str(error))


class OperatorRoom(Protocol):
    """The live room as the operator API acts on it: the single process's
    (``LocalRoom``: its runtime and hub) or a cluster's, from any gateway
    (``feltroom.cluster.operator.ClusterRoom``: the tables' owners and every gateway through
    the broker). Refusals raise ``RoomError`` (or ``ApiError``), having changed nothing."""

    accounts: Accounts
    storage: Storage
    protection: Protection

    async def online(self) -> dict[str, Any]:
        """``{"players": [...], "connections": N}``: who is connected, from where, watching
        and seated where."""
        ...

    async def tables(self) -> list[dict[str, Any]]:
        """Each table's lobby entry with ``players`` (``TableRunner.operator_view``) and
        ``hand``."""
        ...

    async def check_table(self, table_id: str) -> None:
        """``ApiError`` 404 unless the room has the table."""
        ...

    async def close_player(self, account: str, reason: str) -> int:
        """Close every connection of ``account`` (1008, ``reason``); how many."""
        ...

    async def seated_at(self, account: str) -> list[str]:
        """The tables where ``account`` holds a seat now."""
        ...

    async def remove_account(self, account: str, entry: int, hooks: bool) -> dict[str, Any]:
        """``RoomRuntime.remove_account`` wherever the tables run: ``{"tables_left": [...]}``."""
        ...

    async def table_action(
        self, action: str, table_id: str, operator: str, reason: str
    ) -> dict[str, Any]:
        """``close-table``, ``reopen-table`` or ``retire-table`` at the table."""
        ...

    async def add_table(
        self, spec: TableSpec, definition: str, operator: str, reason: str
    ) -> dict[str, Any]: ...

    async def kick(
        self, table_id: str, player: str, operator: str, reason: str
    ) -> dict[str, Any]: ...

    async def broadcast(self, text: str) -> int:
        """The room's chat line to every table; the connections reached."""
        ...

    async def set_reminder(self, player: str, minutes: int) -> None:
        """The player's session-time reminder, wherever they are connected."""
        ...


class LocalRoom:
    """The single process's room (``feltroom serve``, ``--role all``)."""

    def __init__(self, runtime: RoomRuntime, hub: Hub) -> None:
        self.runtime = runtime
        self.hub = hub
        self.accounts = runtime.accounts
        self.storage = runtime.settlement.storage
        self.protection = runtime.protection

    async def online(self) -> dict[str, Any]:
        return {"players": self.hub.online(), "connections": len(self.hub.connections)}

    async def tables(self) -> list[dict[str, Any]]:
        runners = self.runtime.runners
        return [{**e, **runners[e["id"]].operator_view()} for e in self.runtime.lobby()]

    async def check_table(self, table_id: str) -> None:
        if table_id not in self.runtime.runners:
            known = ", ".join(self.runtime.runners) or "none"
            raise ApiError(404, "not_found", f"no table {table_id!r}; the tables are {known}")

    async def close_player(self, account: str, reason: str) -> int:
        return self.hub.close_player(account, reason)

    async def seated_at(self, account: str) -> list[str]:
        # The live tables: a seat just taken may not be in the books yet.
        runners = self.runtime.runners.items()
        return [t for t, r in runners if r.table.seat_of(account) is not None]

    async def remove_account(self, account: str, entry: int, hooks: bool) -> dict[str, Any]:
        return {"tables_left": await self.runtime.remove_account(account, entry, hooks=hooks)}

    async def table_action(
        self, action: str, table_id: str, operator: str, reason: str
    ) -> dict[str, Any]:
        call = {
            "close-table": self.runtime.close_table,
            "reopen-table": self.runtime.reopen_table,
            "retire-table": self.runtime.retire_table,
        }[action]
        return await call(table_id, operator, reason)

    async def add_table(
        self, spec: TableSpec, definition: str, operator: str, reason: str
    ) -> dict[str, Any]:
        return await self.runtime.add_table(spec, definition, operator, reason)

    async def kick(self, table_id: str, player: str, operator: str, reason: str) -> dict[str, Any]:
        return await self.runtime.kick(table_id, player, operator, reason)

    async def broadcast(self, text: str) -> int:
        return self.hub.broadcast(text)

    async def set_reminder(self, player: str, minutes: int) -> None:
        self.hub.set_reminder(player, minutes)


def operator_routes(room: OperatorRoom, static: Any) -> list[Route]:
    """The operator API and console of a room; ``static`` is the folder of ``admin.html``."""
    operators = Operators(room.accounts, on_operators=False)

    async def operator_of(request: Request) -> str:
        player, _ = await authenticated(request, room.accounts)
        try:
            await run_in_threadpool(operators.check_operator, player, _client_address(request))
        except NotAnOperator as error:
            raise ApiError(403, "not_operator", str(error)) from None
        return player

    # -- reads

    async def me(request: Request) -> Response:
        name = await operator_of(request)
        user = await run_in_threadpool(operators.check_operator, name)
        return JSONResponse({"operator": name, "addresses": user.operator_addresses})

    async def online(request: Request) -> Response:
        await operator_of(request)
        found = await room.online()
        flags = await run_in_threadpool(
            operators.describe, sorted(p["player"] for p in found["players"])
        )
        for player in found["players"]:  # the console offers no action on an operator
            player["operator"] = flags.get(player["player"], {}).get("operator", False)
        return JSONResponse(found)

    async def tables(request: Request) -> Response:
        await operator_of(request)
        found = await room.tables()
        names = {p["player"] for entry in found for p in entry["players"]}
        flags = await run_in_threadpool(operators.describe, sorted(names))
        for entry in found:
            for player in entry["players"]:
                player["suspended"] = flags.get(player["player"], {}).get("suspended", False)
                player["verified"] = flags.get(player["player"], {}).get("verified", False)
                player["operator"] = flags.get(player["player"], {}).get("operator", False)
        return JSONResponse({"tables": found})

    async def oplog(request: Request) -> Response:
        await operator_of(request)
        _only_params(request, ("since", "limit"))
        since = _query_time(request, "since") or 0.0
        limit = _query_int(request, "limit", 1, 10_000) or 1000
        entries = await run_in_threadpool(operators.log.entries, since, limit)
        return JSONResponse({"entries": entries})

    async def integrity(request: Request) -> Response:
        await operator_of(request)
        _only_params(request, ("since", "account"))
        since = _query_time(request, "since")
        account = _query_name(request, "account")
        code, report = await run_in_threadpool(
            run_integrity, room.storage, since, DEFAULT_THRESHOLD, account
        )
        if code != 0:
            raise ApiError(404, "not_found", report["error"], details={"account": account})
        return JSONResponse(report)

    # -- actions

    async def account_action(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"account": str, "reason": str})
        account, reason = b["account"], b["reason"]
        if action == "suspend":
            result = await run_in_threadpool(operators.suspend, account, operator, reason)
            result["connections_closed"] = await room.close_player(
                account, "this account is suspended by the room"
            )
            result.update(await room.remove_account(account, result["entry"], True))
            return result
        if action == "reinstate":
            return await run_in_threadpool(operators.reinstate, account, operator, reason)
        result = await run_in_threadpool(operators.reset_password, account, operator, reason)
        result["connections_closed"] = await room.close_player(
            account, "the room reset this account's password; sign in again"
        )
        return result

    async def verify(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"account": str, "identity": str, "reason": str})
        return await run_in_threadpool(
            operators.verify, b["account"], operator, b["reason"], b["identity"]
        )

    async def not_seated_live(account: str, action: str) -> None:
        """Refuse an account seated at a table of this room (the books may not know yet)."""
        tables = await room.seated_at(account)
        if tables:
            raise RoomError(
                f"{account!r} sits at {', '.join(tables)}; {action} it once it has left "
                "(kick it first if need be)"
            )

    async def rename(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"account": str, "to": str, "reason": str})
        account, new_name = b["account"], b["to"]
        await not_seated_live(account, action)
        result = await run_in_threadpool(operators.rename, account, new_name, operator, b["reason"])
        result["connections_closed"] = await room.close_player(
            account, f"the room renamed this account to {new_name}; sign in as {new_name}"
        )
        await room.remove_account(account, result["entry"], False)  # waiting lists
        return result

    async def remove(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"account": str, "reason": str})
        account = b["account"]
        await not_seated_live(account, action)
        result = await run_in_threadpool(operators.remove, account, operator, b["reason"])
        result["connections_closed"] = await room.close_player(
            account, "the room removed this account"
        )
        await room.remove_account(account, result["entry"], False)  # waiting lists
        return result

    async def table_action(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"table": str, "reason": str})
        await room.check_table(b["table"])
        return await room.table_action(action, b["table"], operator, b["reason"])

    async def add_table(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"definition": dict, "reason": str})
        try:
            spec = spec_of(b["definition"], "the definition")
            check_cash_table_id(spec.table_id)
        except (RoomError, ValueError) as error:
            raise _invalid(f"{error}; docs/tables.md lists a table's settings") from None
        definition = json.dumps(b["definition"], sort_keys=True)
        return await room.add_table(spec, definition, operator, b["reason"])

    async def kick(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"table": str, "player": str, "reason": str})
        await room.check_table(b["table"])
        return await room.kick(b["table"], b["player"], operator, b["reason"])

    async def broadcast(action: str, operator: str, body: dict[str, Any]) -> dict[str, Any]:
        b = _fields(body, {"text": str, "reason": str})
        text = b["text"].strip()
        if not 1 <= len(text) <= MAX_BROADCAST:
            raise _invalid(
                f"a broadcast has 1 to {MAX_BROADCAST} characters, not {len(text)}",
                {"field": "text", "max_length": MAX_BROADCAST},
            )
        entry = await run_in_threadpool(
            operators.log.record, operator, "broadcast", "room", b["reason"], {"text": text}
        )
        return {"text": text, "connections": await room.broadcast(text), "entry": entry}

    actions: dict[str, Callable[[str, str, dict[str, Any]], Awaitable[dict[str, Any]]]] = {
        **dict.fromkeys(ACCOUNT_ACTIONS, account_action),
        **dict.fromkeys(TABLE_ACTIONS, table_action),
        "verify": verify,
        "rename": rename,
        "remove": remove,
        "add-table": add_table,
        "kick": kick,
        "broadcast": broadcast,
    }

    async def act(request: Request) -> Response:
        operator = await operator_of(request)
        action = request.path_params["action"]
        handler = actions.get(action)
        if handler is None:
            raise ApiError(
                404,
                "not_found",
                f"no operator action {action!r}; the actions are {', '.join(actions)}",
            )
        body = await _read_json(request, MAX_BODY)
        try:
            result = await handler(action, operator, body)
        except RoomError as error:
            raise _refused(error) from None
        return JSONResponse({"action": action, "operator": operator, **result})

    async def console(request: Request) -> FileResponse:
        return FileResponse(static / "admin.html", headers={"Cache-Control": "no-cache"})

    return [
        Route("/admin", console),
        Route("/api/operator/me", guard(me), methods=["GET"]),
        Route("/api/operator/online", guard(online), methods=["GET"]),
        Route("/api/operator/tables", guard(tables), methods=["GET"]),
        Route("/api/operator/log", guard(oplog), methods=["GET"]),
        Route("/api/operator/integrity", guard(integrity), methods=["GET"]),
        Route("/api/operator/{action}", guard(act), methods=["POST"]),
    ]

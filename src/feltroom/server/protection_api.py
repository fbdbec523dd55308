"""The player's protection settings over HTTP (issue 25, docs/protocol.md), and the
operator's view of them (docs/operator.md).

- ``GET /api/me/limits``: the player's limits (with what each has used and any raise pending),
  reminder, cool-off, self-exclusion and whether the account is verified;
- ``PUT /api/me/limits``: ``{"limits": [{"currency", "kind", "period", "amount"}],
  "reminder_minutes"}`` (either or both): lowering or setting a limit takes effect at once,
  raising or removing one (``"amount": null``) 24 hours later;
- ``POST /api/me/cool-off``: ``{"hours": 24..1008}``;
- ``POST /api/me/exclusion``: ``{"months": 6..120}`` or ``{"permanent": true}``;
- ``GET /api/operator/protection?account=NAME``: an operator's view of the same.

A cool-off or a self-exclusion takes the player's cash seats at the end of the hand in progress
(the chips back in the wallet) and takes them off every waiting list; tournament entries play on
as away (R-TOURN-6).
A refused change (400 ``invalid_field``, 409 ``refused``) says what would be valid and changes
nothing.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from feltroom.room.errors import NotAnOperator, RoomError, UnknownAccount
from feltroom.room.operators import Operators
from feltroom.room.protection import COOL_OFF_HOURS, EXCLUSION_MONTHS
from feltroom.server.operator_api import OperatorRoom
from feltroom.server.rest import (
    ApiError,
    _client_address,
    _invalid,
    _json_type,
    _only_params,
    _query_name,
    _read_json,
    authenticated,
    guard,
)

__all__ = ["protection_routes"]

MAX_BODY = 8_192


def _integer(body: dict[str, Any], name: str) -> int:
    value = body[name]
    if type(value) is not int:
        raise _invalid(f"the field {name!r} must be a whole number, not a JSON {_json_type(value)}")
    return value


def _only(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise _invalid(f"unknown field {extra[0]!r}; the fields are {', '.join(allowed)}")


def protection_routes(room: OperatorRoom) -> list[Route]:
    """The protection routes of a room (the single process's or a cluster's gateway's,
    ``feltroom.server.operator_api.OperatorRoom``): it takes a player who takes a break out of
    play and gets the player's reminder."""
    protection = room.protection
    operators = Operators(room.accounts)

    async def player_of(request: Request) -> str:
        player, _ = await authenticated(request, room.accounts)
        return player

    async def call(function: Any, *args: Any) -> dict[str, Any]:
        try:
            result: dict[str, Any] = await run_in_threadpool(function, *args)
        except UnknownAccount as error:
            raise ApiError(404, "not_found", str(error)) from None
        except RoomError as error:
            details = dict(getattr(error, "details", None) or {})
            raise ApiError(409, "refused", str(error), details=details) from None
        return result

    async def read(request: Request) -> Response:
        player = await player_of(request)
        _only_params(request, ())
        return JSONResponse(await call(protection.view, player))

    async def put(request: Request) -> Response:
        player = await player_of(request)
        body = await _read_json(request, MAX_BODY)
        _only(body, ("limits", "reminder_minutes"))
        limits = body.get("limits", [])
        if not isinstance(limits, list):
            raise _invalid(f"the field 'limits' must be an array, not a JSON {_json_type(limits)}")
        reminder = _integer(body, "reminder_minutes") if "reminder_minutes" in body else None
        try:
            result = await run_in_threadpool(protection.set_limits, player, limits, reminder)
        except UnknownAccount as error:
            raise ApiError(404, "not_found", str(error)) from None
        except RoomError as error:
            raise _invalid(str(error)) from None
        if reminder is not None:
            await room.set_reminder(player, reminder)
        return JSONResponse(result)

    async def out_of_play(player: str, result: dict[str, Any]) -> Response:
        result.update(await room.remove_account(player, result["entry"], False))
        return JSONResponse(result)

    async def cool_off(request: Request) -> Response:
        player = await player_of(request)
        body = await _read_json(request, MAX_BODY)
        _only(body, ("hours",))
        if "hours" not in body:
            raise _invalid("the field 'hours' is missing: a cool-off lasts 24 to 1008 hours")
        hours = _integer(body, "hours")
        low, high = COOL_OFF_HOURS
        if not low <= hours <= high:
            raise _invalid(f"a cool-off lasts from {low} to {high} hours (6 weeks), not {hours}")
        return await out_of_play(player, await call(protection.cool_off, player, hours))

    async def exclusion(request: Request) -> Response:
        player = await player_of(request)
        body = await _read_json(request, MAX_BODY)
        _only(body, ("months", "permanent"))
        if ("months" in body) == ("permanent" in body):
            raise _invalid("give either 'months' (6 to 120) or 'permanent': true, and not both")
        if "permanent" in body:
            if body["permanent"] is not True:
                raise _invalid("'permanent' must be true (or give 'months' instead)")
            months = None
        else:
            months = _integer(body, "months")
            low, high = EXCLUSION_MONTHS
            if not low <= months <= high:
                raise _invalid(
                    f"a self-exclusion lasts from {low} to {high} months, or is permanent "
                    f"('permanent': true); not {months} months"
                )
        return await out_of_play(player, await call(protection.exclude, player, months))

    async def operator_view(request: Request) -> Response:
        player, _ = await authenticated(request, room.accounts)
        try:
            await run_in_threadpool(operators.check_operator, player, _client_address(request))
        except NotAnOperator as error:
            raise ApiError(403, "not_operator", str(error)) from None
        _only_params(request, ("account",))
        account = _query_name(request, "account")
        if account is None:
            raise _invalid(
                "give the account: /api/operator/protection?account=NAME", {"field": "account"}
            )
        return JSONResponse(await call(protection.view, account))

    return [
        Route("/api/me/limits", guard(read), methods=["GET"]),
        Route("/api/me/limits", guard(put), methods=["PUT"]),
        Route("/api/me/cool-off", guard(cool_off), methods=["POST"]),
        Route("/api/me/exclusion", guard(exclusion), methods=["POST"]),
        Route("/api/operator/protection", guard(operator_view), methods=["GET"]),
    ]

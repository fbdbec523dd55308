"""Home games over HTTP (issue 45, R-HOME-1, R-HOME-2, R-HOME-5; docs/home-games.md).

- ``POST /api/games``: create a game (201 ``{"game"}``); ``GET /api/games``: the caller's games,
  newest first, and the wallet ``currencies`` a new game may choose; ``GET /api/games/{id}``:
  one (404 for anyone not in it).
- ``GET /api/invites/{secret}``: what the invite link shows (no sign-in needed; 404 for a wrong,
  renewed-away or ended secret); ``POST /api/invites/{secret}/join`` ``{seat?, buy_in}``: ask for
  a seat (``{"request"}``, or the seat at once when no answer is needed);
  ``POST /api/invites/{secret}/signup`` ``{name, password, seat?, buy_in}``: a guest's sign-up
  and seat request in one step (counted against the game's seats, not the per-address sign-up
  limit).
- ``POST /api/games/{id}/{control}``: the host's controls (``admit``, ``approve``, ``pause``,
  ``resume``, ``settings``, ``remove``, ``cohost``, ``link``, ``end``), each answering
  ``{"game"}``.
- ``POST /api/games/{id}/withdraw`` ``{request}``: a player withdraws their own pending request
  (``{"game"}``).
- ``GET /api/games/{id}/ledger`` (``?format=csv``): the ledger from the books.
- ``GET /g/{secret}``: the browser client, which opens the game from its URL.

Errors are the API's one shape; a refused request (409 ``refused``, 400 ``invalid_field``) says
what would be valid and changes nothing.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from feltroom.errors import FeltroomError, IllegalAction
from feltroom.room.accounts import Accounts, reserved
from feltroom.room.errors import RoomError
from feltroom.room.ledger import valid_name
from feltroom.room.runtime import RoomRuntime
from feltroom.room.runtime.home_games import CONTROLS, HomeRefused, NotFound
from feltroom.server.rest import (
    ApiError,
    RestLimits,
    _invalid,
    _json_type,
    _read_json,
    authenticated,
    guard,
)

__all__ = ["GameDesk", "LocalGames", "games_routes"]

MAX_BODY = 4_096
_CREATE = {
    "name": str,
    "game": str,
    "small_blind": int,
    "big_blind": int,
    "seats": int,
    "min_buy_in": int,
    "max_buy_in": int,
    "admission": bool,
    "auto_buy_in": bool,
    "straddle": bool,
    "run_it_twice": bool,
    "currency": str,
}
_CONTROL_FIELDS: dict[str, dict[str, type]] = {
    "admit": {"request": int, "admit": bool},
    "approve": {"request": int, "approve": bool},
    "pause": {},
    "resume": {},
    "settings": {
        "small_blind": int,
        "big_blind": int,
        "min_buy_in": int,
        "max_buy_in": int,
        "admission": bool,
        "auto_buy_in": bool,
    },
    "remove": {"player": str},
    "cohost": {"player": str, "on": bool},
    "link": {},
    "end": {},
}
_REQUIRED = {
    "admit": ("request", "admit"),
    "approve": ("request", "approve"),
    "remove": ("player",),
    "cohost": ("player", "on"),
}
LEDGER_COLUMNS = ("player", "buy_ins", "added", "cash_outs", "at_table", "net")


def check_fields(
    body: dict[str, Any], allowed: dict[str, type], required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The body's fields, each of its type; unknown or missing ones refused (400)."""
    extra = sorted(set(body) - set(allowed))
    names = ", ".join(allowed) or "none"
    if extra:
        raise _invalid(f"unknown field {extra[0]!r}; the fields are {names}", {"field": extra[0]})
    for name in required:
        if name not in body:
            raise _invalid(f"the field {name!r} is missing", {"field": name})
    for name, value in body.items():
        kind = allowed[name]
        if type(value) is not kind:
            want = {int: "a whole number", bool: "true or false", str: "a string"}[kind]
            raise _invalid(
                f"the field {name!r} must be {want}, not a JSON {_json_type(value)}",
                {"field": name},
            )
    return body


async def answer(call: Awaitable[Any]) -> Any:
    """Await a home-game call, its refusals in the API's error shape."""
    try:
        return await call
    except NotFound as error:
        raise ApiError(404, "not_found", str(error)) from None
    except (HomeRefused, IllegalAction) as error:
        details = dict(getattr(error, "details", None) or {})
        raise ApiError(409, "refused", str(error), details=details) from None
    except (RoomError, FeltroomError) as error:
        details = dict(getattr(error, "details", None) or {})
        raise ApiError(409, "refused", str(error), details=details) from None


def _join_fields(body: dict[str, Any]) -> tuple[int | None, int]:
    if "buy_in" not in body:
        raise _invalid("the field 'buy_in' is missing: the chips you ask for", {"field": "buy_in"})
    return body.get("seat"), body["buy_in"]


class GameDesk(Protocol):
    """What the home games' routes need of a room: the single process's games
    (``LocalGames``), or a cluster's gateway's (``feltroom.cluster.games.ClusterGames``: each
    call answered by the game's table's owner, where the game runs, or read from the stored
    games). Each answer is the game as the caller sees it (``HomeGame.view``)."""

    accounts: Accounts

    @property
    def currencies(self) -> tuple[str, ...]:
        """The wallet currencies a new game may play besides its own chips ([home])."""

    async def create(self, host: str, fields: dict[str, Any]) -> dict[str, Any]: ...
    async def games_of(self, player: str) -> list[dict[str, Any]]: ...
    async def game(self, game_id: str, player: str) -> dict[str, Any]: ...
    async def invite(self, secret: str) -> dict[str, Any]: ...
    async def join(
        self, secret: str, player: str, seat: int | None, buy_in: int
    ) -> dict[str, Any]: ...
    async def take_signup(self, secret: str) -> None: ...
    async def give_back_signup(self, secret: str) -> None: ...
    async def control(
        self, game_id: str, player: str, control: str, fields: dict[str, Any]
    ) -> dict[str, Any]: ...
    async def withdraw(self, game_id: str, player: str, request: int) -> dict[str, Any]: ...
    async def ledger(self, game_id: str, player: str) -> dict[str, Any]: ...


class LocalGames:
    """The single process's games (``RoomRuntime.home``) as the routes' desk."""

    def __init__(self, runtime: RoomRuntime) -> None:
        self.home = runtime.home
        self.accounts = runtime.accounts

    @property
    def currencies(self) -> tuple[str, ...]:
        return self.home.settings.currencies

    async def create(self, host: str, fields: dict[str, Any]) -> dict[str, Any]:
        return (await self.home.create(host, fields)).view(host)

    async def games_of(self, player: str) -> list[dict[str, Any]]:
        return [g.view(player) for g in self.home.games_of(player)]

    async def game(self, game_id: str, player: str) -> dict[str, Any]:
        return self.home.game(game_id, player).view(player)

    async def invite(self, secret: str) -> dict[str, Any]:
        return self.home.by_invite(secret).invite_view()

    async def join(self, secret: str, player: str, seat: int | None, buy_in: int) -> dict[str, Any]:
        game = self.home.by_invite(secret)
        result = await self.home.join(game, player, seat, buy_in)
        return {**result, "game": game.view(player)}

    async def take_signup(self, secret: str) -> None:
        self.home.take_signup(self.home.by_invite(secret))

    async def give_back_signup(self, secret: str) -> None:
        with contextlib.suppress(NotFound):
            self.home.give_back_signup(self.home.by_invite(secret))

    async def control(
        self, game_id: str, player: str, control: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        return (await self.home.control(game_id, player, control, fields)).view(player)

    async def withdraw(self, game_id: str, player: str, request: int) -> dict[str, Any]:
        return (await self.home.withdraw(game_id, player, request)).view(player)

    async def ledger(self, game_id: str, player: str) -> dict[str, Any]:
        return await self.home.ledger(game_id, player)


def games_routes(games: GameDesk, static: Path, limits: RestLimits | None = None) -> list[Route]:
    """The home games' routes, of a single process's room (``LocalGames``) or of a cluster's
    gateway (``feltroom.cluster.games.ClusterGames``): the same routes over either."""
    accounts = games.accounts
    limits = limits or RestLimits()

    async def player_of(request: Request) -> str:
        player, _ = await authenticated(request, accounts)
        return player

    def game_id(request: Request) -> str:
        return str(request.path_params["game"])

    def secret(request: Request) -> str:
        return str(request.path_params["secret"])

    async def create(request: Request) -> Response:
        player = await player_of(request)
        body = check_fields(await _read_json(request, MAX_BODY), _CREATE)
        game = await answer(games.create(player, body))
        return JSONResponse({"game": game}, status_code=201)

    async def listing(request: Request) -> Response:
        player = await player_of(request)
        mine = await answer(games.games_of(player))
        # the wallet currencies a new game may play besides its own chips ([home] currencies)
        return JSONResponse({"games": mine, "currencies": list(games.currencies)})

    async def one(request: Request) -> Response:
        player = await player_of(request)
        game = await answer(games.game(game_id(request), player))
        return JSONResponse({"game": game})

    async def invite(request: Request) -> Response:
        game = await answer(games.invite(secret(request)))
        return JSONResponse({"game": game})

    async def join(request: Request) -> Response:
        player = await player_of(request)
        body = check_fields(await _read_json(request, MAX_BODY), {"seat": int, "buy_in": int})
        seat, buy_in = _join_fields(body)
        result = await answer(games.join(secret(request), player, seat, buy_in))
        return JSONResponse(result)

    async def signup(request: Request) -> Response:
        body = check_fields(
            await _read_json(request, MAX_BODY),
            {"name": str, "password": str, "seat": int, "buy_in": int},
            ("name", "password"),
        )
        seat, buy_in = _join_fields(body)
        link = secret(request)
        await answer(games.invite(link))
        name, password = body["name"], body["password"]
        try:
            valid_name(name, "player name")
        except RoomError as error:
            raise _invalid(str(error), {"field": "name"}) from None
        why = reserved(name)
        if why is not None:
            raise _invalid(why, {"field": "name"})
        low = max(limits.password_min, accounts.min_password_length)
        if not low <= len(password) <= limits.password_max:
            raise _invalid(
                f"a password has {low} to {limits.password_max} characters, not {len(password)}"
            )
        try:
            accounts.check_new_account(name, password)
        except RoomError as error:
            raise _invalid(str(error)) from None
        await answer(games.take_signup(link))
        try:
            player = await run_in_threadpool(accounts.sign_up, name, password)
        except RoomError as error:
            with contextlib.suppress(ApiError):  # (the link died meanwhile: nothing to give)
                await answer(games.give_back_signup(link))
            if "taken" in str(error):
                raise ApiError(409, "refused", str(error)) from None
            raise _invalid(str(error)) from None
        result = await answer(games.join(link, player, seat, buy_in))
        result.pop("game", None)  # (sign-up's answer: the player and the request)
        return JSONResponse({"player": player, **result}, status_code=201)

    def control_of(name: str) -> Callable[[Request], Awaitable[Response]]:
        async def control(request: Request) -> Response:
            player = await player_of(request)
            body = check_fields(
                await _read_json(request, MAX_BODY),
                _CONTROL_FIELDS[name],
                _REQUIRED.get(name, ()),
            )
            game = await answer(games.control(game_id(request), player, name, body))
            return JSONResponse({"game": game})

        return control

    async def withdraw(request: Request) -> Response:
        player = await player_of(request)
        body = check_fields(await _read_json(request, MAX_BODY), {"request": int}, ("request",))
        game = await answer(games.withdraw(game_id(request), player, body["request"]))
        return JSONResponse({"game": game})

    async def ledger(request: Request) -> Response:
        player = await player_of(request)
        for key in request.query_params:
            if key != "format":
                raise _invalid(f"unknown query parameter {key[:40]!r}; the parameter is format")
        form = request.query_params.get("format", "json")
        if form not in ("json", "csv"):
            raise _invalid(f"format {form[:20]!r}: json (the default) or csv")
        book = await answer(games.ledger(game_id(request), player))
        if form == "json":
            return JSONResponse(book)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        columns: tuple[str, ...] = LEDGER_COLUMNS
        if "rake" in book["totals"]:  # a wallet currency: the rake column (R-HOME-5)
            columns = (*LEDGER_COLUMNS[:-1], "rake", LEDGER_COLUMNS[-1])
        writer.writerow(columns)
        for row in book["players"]:
            writer.writerow([row[c] for c in columns])
        return Response(
            out.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="ledger-{book["game"]}.csv"'},
        )

    async def page(request: Request) -> FileResponse:
        return FileResponse(static / "index.html", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/api/games", guard(create), methods=["POST"]),
        Route("/api/games", guard(listing), methods=["GET"]),
        Route("/api/games/{game}", guard(one), methods=["GET"]),
        Route("/api/games/{game}/ledger", guard(ledger), methods=["GET"]),
        Route("/api/games/{game}/withdraw", guard(withdraw), methods=["POST"]),
        Route("/api/invites/{secret}", guard(invite), methods=["GET"]),
        Route("/api/invites/{secret}/join", guard(join), methods=["POST"]),
        Route("/api/invites/{secret}/signup", guard(signup), methods=["POST"]),
        Route("/g/{secret}", page, methods=["GET"]),
    ]
    routes += [
        Route(f"/api/games/{{game}}/{name}", guard(control_of(name)), methods=["POST"])
        for name in CONTROLS
    ]
    return routes

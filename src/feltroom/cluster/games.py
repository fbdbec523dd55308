"""Home games through a cluster's gateway (issue 45, docs/home-games.md, docs/cluster.md).

A home game runs where its table runs: the worker that holds the table's lease holds the game
too (its requests, roles, pause and log: ``HomeGames.load_game`` as it takes the table), and
stores each change in ``home_games``. A gateway serves the single process's routes
(``feltroom.server.games_api.games_routes``) over ``ClusterGames``:

- **creating** a game runs ``HomeGames.create`` here, over the stored games (the host's games
  counted against the operator's bounds as the single process counts them): the game is stored
  with its table's definition, and a worker takes the table through its lease like any table;
- **reading** (the caller's games, one game, an invite link, the ledger) reads the stored games
  and the books with the single process's code (``HomeGames.reload``): every change the owner
  answers is stored before its answer;
- **everything that changes a game** (a seat asked for through the link, a sign-up counted
  against the game's seats, a host's control) goes to the table's owner (``TableClient.call``,
  as a tournament's registration does) and is answered with the single process's words; its
  news (the ``game`` and ``game_request`` messages, a line at the table) comes back on the
  ``gateways`` channel (``ClusterWorker._on_game``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from feltroom.room.accounts import Accounts
from feltroom.room.errors import RoomError
from feltroom.room.protection import check_may_play
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.home_games import HomeGames, HomeRefused, NotFound
from feltroom.room.runtime.host import Listener
from feltroom.room.runtime.settings import HomeSettings
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.storage import Storage, Transaction
from feltroom.room.tables_config import TableSpec
from feltroom.server.rest import ApiError

from .client import RemoteError, TableClient

__all__ = ["ClusterGames"]

_ELSEWHERE = "a home game's table runs on its worker, not on a gateway"


class _Taken(RoomError):
    """The game's number was taken by another gateway meanwhile (its table is defined)."""


class _Refused(HomeRefused):
    """The owner's refusal, with its figures."""

    def __init__(self, message: str, details: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.details = dict(details or {})


class GatewayRoom:
    """What a gateway's ``HomeGames`` needs of a room (``HomeRoom``): the books, to read the
    stored games and the ledger and to define a new game's table. It runs no table: a worker
    takes the table through its lease."""

    def __init__(self, storage: Storage, clock: Callable[[], float]) -> None:
        self.books = GroupStorage(storage)
        self.settlement = Settlement(self.books, clock=clock)
        self.books_settlement = self.settlement
        self.writer = Writer(self.settlement, self.books)
        self.clock = clock
        self.runners: dict[str, TableRunner] = {}
        self.stopping = False

    def runner(self, table_id: str) -> TableRunner:
        raise RoomError(f"table {table_id}: {_ELSEWHERE}")

    def check_may_play(self, player: str, what: str) -> None:
        with self.books.transaction(write=False) as tx:
            check_may_play(tx, player, self.clock(), what)

    def add_listener(self, listener: Listener) -> None:
        pass  # (no table runs here)

    def check_lease(self, tx: Transaction, table_id: str) -> None:
        pass  # (a new game's table has no owner yet: the gateway stores it once, at creation)

    async def add_home_table(self, spec: TableSpec, definition: str) -> None:
        """The new game's table is defined (with its escrow): a worker takes it."""

        def define() -> None:
            with self.books.transaction() as tx:
                if not tx.add_table_definition(spec.table_id, definition):
                    raise _Taken(f"a table {spec.table_id!r} is defined already")
            self.settlement.open_table(spec.table_id, spec.currency)

        await self.writer.call(define)

    async def join(
        self,
        table_id: str,
        player: str,
        seat: int,
        buy_in: int | None = None,
        *,
        home: bool,
        reference: str | None = None,
    ) -> int:
        raise RoomError(_ELSEWHERE)

    async def buy_chips(
        self, table_id: str, player: str, amount: int, *, home: bool, reference: str | None = None
    ) -> tuple[int, int]:
        raise RoomError(_ELSEWHERE)

    async def close_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        raise RoomError(_ELSEWHERE)

    async def retire_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]:
        raise RoomError(_ELSEWHERE)


class ClusterGames:
    """The home games' desk of a gateway (``feltroom.server.games_api.GameDesk``; the module
    docstring)."""

    def __init__(
        self,
        storage: Storage,
        accounts: Accounts,
        client: TableClient,
        settings: HomeSettings | None = None,
    ) -> None:
        self.accounts = accounts
        self.client = client
        self.room = GatewayRoom(storage, accounts.clock)
        self.settings = settings
        self._creating = asyncio.Lock()

    @property
    def currencies(self) -> tuple[str, ...]:
        return (self.settings or HomeSettings()).currencies

    def start(self) -> None:
        self.room.writer.start()

    async def stop(self) -> None:
        await asyncio.to_thread(self.room.writer.stop)

    async def _stored(
        self, *, game_id: str | None = None, secret: str | None = None, host: str | None = None
    ) -> HomeGames:
        """The stored games (those with this id, secret or host), for one call: each call
        reads its own (no other call's read changes them while it runs)."""
        home = HomeGames(self.room, self.settings)
        await home.reload(game_id=game_id, secret=secret, host=host)
        return home

    async def _owner(self, table_id: str, op: str, player: str, **args: Any) -> dict[str, Any]:
        """A call to the game's table's owner, its refusal in the single process's terms."""
        try:
            return await self.client.call(table_id, op, player, **args)
        except RemoteError as error:
            if error.kind == "table_unavailable":
                raise ApiError(
                    503,
                    "unavailable",
                    f"the game's table {table_id} is changing hands or its worker is away; "
                    "nothing changed, try again",
                    headers={"Retry-After": "2"},
                ) from None
            if error.kind in ("NotFound", "UnknownGame"):
                raise NotFound(error.message) from None
            raise _Refused(error.message, error.details) from None

    async def create(self, host: str, fields: dict[str, Any]) -> dict[str, Any]:
        """``HomeGames.create`` over the stored games; a number another gateway took this
        moment is taken again from the stored games."""
        for attempt in range(5):
            async with self._creating:
                home = await self._stored(host=host)  # (the host's games, counted)
                try:
                    game = await home.create(host, fields)
                except _Taken:
                    if attempt == 4:
                        raise
                    continue
            return game.view(host)
        raise RoomError("no game number was free; try again")  # (not reached)

    async def games_of(self, player: str) -> list[dict[str, Any]]:
        home = await self._stored()
        return [game.view(player) for game in home.games_of(player)]

    async def game(self, game_id: str, player: str) -> dict[str, Any]:
        home = await self._stored(game_id=game_id)
        return home.game(game_id, player).view(player)

    async def invite(self, secret: str) -> dict[str, Any]:
        home = await self._stored(secret=secret)
        return home.by_invite(secret).invite_view()

    async def join(self, secret: str, player: str, seat: int | None, buy_in: int) -> dict[str, Any]:
        game = (await self._stored(secret=secret)).by_invite(secret)
        return await self._owner(
            game.table_id, "game_join", player, secret=secret, seat=seat, buy_in=buy_in
        )

    async def _signup(self, secret: str, back: bool) -> None:
        game = (await self._stored(secret=secret)).by_invite(secret)
        await self._owner(game.table_id, "game_signup", "", secret=secret, back=back)

    async def take_signup(self, secret: str) -> None:
        await self._signup(secret, False)

    async def give_back_signup(self, secret: str) -> None:
        await self._signup(secret, True)

    async def control(
        self, game_id: str, player: str, control: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        home = await self._stored(game_id=game_id)
        game = home.game(game_id, player)
        if game.status == "ended":  # (no table runs it: refused here as the single process does)
            await home.control(game_id, player, control, fields)
            raise HomeRefused(f"game {game_id} has ended")
        result = await self._owner(
            game.table_id, "game_control", player, control=control, fields=fields
        )
        view: dict[str, Any] = result["game"]
        return view

    async def withdraw(self, game_id: str, player: str, request: int) -> dict[str, Any]:
        home = await self._stored(game_id=game_id)
        game = home.game(game_id, player)
        if game.status == "ended":  # (no table runs it; an ended game's requests were answered)
            raise HomeRefused(f"game {game_id} has ended: no request of yours is pending")
        result = await self._owner(game.table_id, "game_withdraw", player, request=request)
        view: dict[str, Any] = result["game"]
        return view

    async def ledger(self, game_id: str, player: str) -> dict[str, Any]:
        home = await self._stored(game_id=game_id)
        return await home.ledger(game_id, player)

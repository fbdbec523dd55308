"""Home games (issue 45, R-HOME-1, R-HOME-2, R-HOME-5; docs/home-games.md): private tables a
player hosts for friends, reached by an invite link, run by the host, with a ledger.

A home game's table is a table of the room like any other (``TableRunner``: the same books,
histories, clocks, protection and audit; its definition stored as the operator's are, so a
restart loads it again), marked with the game's id (``TableSpec.home``) so that it is never in
the lobby and no house bot sits there. Its chips are a currency of their own in the books, whose
code is the game's id (``g-7``; ``feltroom.room.ledger.home_currency``): the host issues them by
approving a buy-in or rebuy (external -> the player's wallet in that currency, then the usual
buy-in wallet -> escrow), so no wallet of the room is touched and the audit balances them like
any currency. The ledger (R-HOME-5) is read from those books alone: chips issued (buy-ins and
rebuys, by the transfer's reference), chips cashed out (the wallet in the game's currency),
chips at the table (the stored stack and any chips pending).

Where the operator allows it (``HomeSettings.currencies``) a game may play a wallet currency
instead: its table is a cash table of that currency (R-BUYIN-1's bounds, the operator's rake),
each approved buy-in or rebuy is paid from the wallet (a ``buy_in`` transfer whose reference
names the game's request) and the ledger reads the table's transfers, with each hand's rake
shared among its players by contribution.

``HomeGames`` keeps every game in memory (a home room holds few) and stores each change in
``home_games``; every host action is a line in the game's log and, through the listeners, at
the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from feltroom.errors import IllegalAction
from feltroom.room.errors import RoomError, UnknownAccount
from feltroom.room.ledger import (
    CURRENCIES,
    AccountKind,
    TransferKind,
    account_owner,
    ensure_system_account,
    ensure_wallet,
    escrow_key,
    external_key,
    home_currency,
    new_transfer,
    pending_key,
    player_owner,
    player_pending_key,
    player_wallet_key,
    wallet_key,
)
from feltroom.room.protection import check_stake
from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.host import Listener
from feltroom.room.runtime.settings import HomeSettings
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.storage import HomeGameRow, Storage, Transaction
from feltroom.room.tables_config import TableSpec, spec_of
from feltroom.table import HandStarted, SeatReleased

__all__ = [
    "CONTROLS",
    "GAMES",
    "HomeGame",
    "HomeGames",
    "HomeRefused",
    "HomeRequest",
    "HomeSettings",
    "NotFound",
]

log = logging.getLogger("feltroom.room")

GAMES = {"NL": "no_limit", "PL": "pot_limit", "FL": "fixed_limit"}
"""The games a host may choose (R-HOME-1): No-Limit, Pot-Limit and Fixed-Limit Hold'em."""

CONTROLS = (
    "admit",
    "approve",
    "pause",
    "resume",
    "settings",
    "remove",
    "cohost",
    "link",
    "end",
)
"""The host's controls (R-HOME-2), over HTTP and the websocket alike."""

_HOST_ONLY = ("cohost", "end")  # a co-host may do all the rest (R-HOME-2)
_SETTINGS = ("small_blind", "big_blind", "min_buy_in", "max_buy_in", "admission", "auto_buy_in")
DAY = 24 * 3600.0


class HomeRefused(RoomError):
    """A home game's request or control that is not valid now (it changes nothing)."""


class NotFound(RoomError):
    """No such game for this player (or a wrong, renewed-away or ended invite secret)."""


@dataclass(slots=True)
class HomeRequest:
    """A pending request: a seat (with its buy-in), a buy-in or a rebuy."""

    request_id: int
    kind: str  # "seat" | "buy_in" | "rebuy"
    player: str
    amount: int
    at: float
    seat: int | None = None

    def view(self) -> dict[str, Any]:
        return {
            "id": self.request_id,
            "kind": self.kind,
            "player": self.player,
            "amount": self.amount,
            "at": self.at,
        }


@dataclass(slots=True)
class HomeGame:
    """One home game: its settings, roles, pending requests and log."""

    game_id: str
    name: str
    host: str
    secret: str
    status: str  # "open" | "paused" | "ended"
    game: str  # "NL" | "PL" | "FL"
    small_blind: int
    big_blind: int
    seats: int
    min_buy_in: int
    max_buy_in: int
    admission: bool
    auto_buy_in: bool
    currency: str
    created: float
    ended: float | None = None
    cohosts: list[str] = field(default_factory=list)
    players: dict[str, float] = field(default_factory=dict)  # admitted, since when
    removed: list[str] = field(default_factory=list)
    requests: list[HomeRequest] = field(default_factory=list)
    next_request: int = 1
    log: list[dict[str, Any]] = field(default_factory=list)
    last_deal: float = 0.0
    seated_at: dict[str, float] = field(default_factory=dict)
    signups: int = 0  # accounts signed up through the invite link
    straddle: bool = False  # R-HOME-3, the table's setting (chosen at creation)
    run_it_twice: bool = False  # R-HOME-4, likewise
    # a game in a wallet currency: the operator's rake when it was created (R-RAKE-1/3; the
    # cap in big blinds, so that it follows the host's blinds)
    rake_percent: int = 0
    rake_cap: int = 0
    no_flop_no_drop: bool = False

    @property
    def table_id(self) -> str:
        return f"home-{self.game_id}"

    @property
    def own_chips(self) -> bool:
        return self.currency == self.game_id  # (else a wallet currency the operator allows)

    def rake_view(self) -> dict[str, Any] | None:
        """The house's rake (a game in a wallet currency; None in the game's own chips): the
        percentage, its cap per hand in the currency's units, and ``no_flop_no_drop``."""
        if self.own_chips:
            return None
        return {
            "percent": self.rake_percent,
            "cap": self.rake_cap * self.big_blind,
            "no_flop_no_drop": self.no_flop_no_drop,
        }

    def role(self, player: str | None) -> str | None:
        if player is None:
            return None
        if player == self.host:
            return "host"
        if player in self.cohosts:
            return "cohost"
        if player in self.players:
            return "player"
        if any(r.player == player for r in self.requests):
            return "pending"
        return None

    def view(self, player: str | None) -> dict[str, Any]:
        """The game as ``player`` sees it: the invite and the requests for the host and the
        co-hosts only."""
        role = self.role(player)
        out: dict[str, Any] = {
            "id": self.game_id,
            "name": self.name,
            "table": self.table_id,
            "host": self.host,
            "cohosts": list(self.cohosts),
            "status": self.status,
            "game": self.game,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "seats": self.seats,
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
            "admission": self.admission,
            "auto_buy_in": self.auto_buy_in,
            "straddle": self.straddle,
            "run_it_twice": self.run_it_twice,
            "currency": self.currency,
            "rake": self.rake_view(),
            "created": self.created,
            "ended": self.ended,
            "you": role,
        }
        if role is not None or player in self.removed:
            out["log"] = [dict(entry) for entry in self.log[-50:]]  # (the lines at the table)
        if role in ("host", "cohost"):
            out["invite"] = f"/g/{self.secret}"
            out["requests"] = [r.view() for r in self.requests]
        return out

    def invite_view(self) -> dict[str, Any]:
        """What an invite link shows anyone who opens it."""
        keys = (
            "id",
            "name",
            "host",
            "game",
            "small_blind",
            "big_blind",
            "seats",
            "straddle",
            "run_it_twice",
            "currency",
            "rake",
        )
        full = self.view(None)
        out = {k: full[k] for k in keys}
        out.update(
            table=self.table_id,
            min_buy_in=self.min_buy_in,
            max_buy_in=self.max_buy_in,
            status=self.status,
        )
        return out

    def row(self) -> HomeGameRow:
        state = {
            "name": self.name,
            "game": self.game,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "seats": self.seats,
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
            "admission": self.admission,
            "auto_buy_in": self.auto_buy_in,
            "currency": self.currency,
            "cohosts": self.cohosts,
            "players": self.players,
            "removed": self.removed,
            "requests": [
                [r.request_id, r.kind, r.player, r.amount, r.at, r.seat] for r in self.requests
            ],
            "next_request": self.next_request,
            "log": self.log[-500:],
            "last_deal": self.last_deal,
            "signups": self.signups,
            "seated_at": self.seated_at,
            "straddle": self.straddle,
            "run_it_twice": self.run_it_twice,
            "rake": [self.rake_percent, self.rake_cap, self.no_flop_no_drop],
        }
        return HomeGameRow(
            self.game_id,
            self.host,
            self.secret,
            self.status,
            self.created,
            self.ended,
            json.dumps(state, sort_keys=True),
        )

    @classmethod
    def of_row(cls, row: HomeGameRow) -> HomeGame:
        s = json.loads(row.state)
        return cls(
            game_id=row.game_id,
            name=s["name"],
            host=row.host,
            secret=row.secret,
            status=row.status,
            game=s["game"],
            small_blind=s["small_blind"],
            big_blind=s["big_blind"],
            seats=s["seats"],
            min_buy_in=s["min_buy_in"],
            max_buy_in=s["max_buy_in"],
            admission=s["admission"],
            auto_buy_in=s["auto_buy_in"],
            currency=s["currency"],
            created=row.created_at,
            ended=row.ended_at,
            cohosts=list(s["cohosts"]),
            players=dict(s["players"]),
            removed=list(s["removed"]),
            requests=[HomeRequest(*r) for r in s["requests"]],
            next_request=s["next_request"],
            log=list(s["log"]),
            last_deal=s["last_deal"],
            signups=s.get("signups", 0),
            seated_at=dict(s.get("seated_at", {})),
            straddle=s.get("straddle", False),
            run_it_twice=s.get("run_it_twice", False),
            rake_percent=s.get("rake", [0, 0, False])[0],
            rake_cap=s.get("rake", [0, 0, False])[1],
            no_flop_no_drop=s.get("rake", [0, 0, False])[2],
        )

    def definition(self) -> dict[str, Any]:
        """The table's definition (a tables file entry): what the room loads after a restart."""
        entry: dict[str, Any] = {
            "id": self.table_id,
            "home": self.game_id,
            "currency": self.currency,
            "name": self.name,
            "max_seats": self.seats,
            "structure": GAMES[self.game],
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
        }
        if self.straddle:
            entry["straddle"] = True
        if self.run_it_twice:
            entry["run_it_twice"] = True
        if self.own_chips:
            entry["rake_percent"] = 0  # the game's own chips: no rake, the nets add up to zero
        else:  # a wallet currency: the operator's rake (R-RAKE-1/3), its cap in big blinds
            entry["rake_percent"] = self.rake_percent
            entry["rake_cap"] = self.rake_cap * self.big_blind
            entry["no_flop_no_drop"] = self.no_flop_no_drop
        if self.game == "FL":
            entry["lower"] = self.big_blind
            entry["small_blind"] = self.small_blind
        else:
            entry["big_blind"] = self.big_blind
            entry["small_blind"] = self.small_blind
        return entry


# ------------------------------------------------------------------------ the books (blocking)


def _issue(storage: Storage, player: str, code: str, amount: int, reference: str) -> None:
    """(Writer thread) ``amount`` of a game's own chips issued to the player's wallet."""
    with storage.transaction() as tx:
        external = ensure_system_account(tx, AccountKind.EXTERNAL, code)
        wallet = ensure_wallet(tx, player, code)
        tx.post_transfer(
            new_transfer(TransferKind.ISSUE, code, external.key, wallet.key, amount, reference)
        )


def _unissue(storage: Storage, player: str, code: str, amount: int, reference: str) -> None:
    """(Writer thread) chips issued for a seat the player did not take, taken back."""
    with storage.transaction() as tx:
        wallet = player_wallet_key(tx, player, code)
        tx.post_transfer(
            new_transfer(TransferKind.ISSUE, code, wallet, external_key(code), amount, reference)
        )


def _may_stake(
    storage: Storage, player: str, code: str, amount: int, now: float, verified: bool
) -> int:
    """(Blocking) what the player's wallet holds in ``code``, after the checks every buy-in
    makes (``check_stake``: a cool-off or exclusion, an unverified account at real money where
    ``verified`` is required, a loss limit), which refuse."""
    with storage.transaction(write=False) as tx:
        check_stake(tx, player, code, amount, now, require_verified=verified)
        wallet = tx.get_account(player_wallet_key(tx, player, code))
        return 0 if wallet is None else wallet.balance


def _rake_shares(rows: Sequence[tuple[int, int, int, int, int]]) -> dict[str, int]:
    """Each hand's rake shared among its players by their contributions (largest remainders
    take the odd units, the lower seat first on a tie): the rake per ledger owner."""
    shares: dict[str, int] = {}
    by_hand: dict[int, list[tuple[int, int, int, int, int]]] = {}
    for row in rows:
        by_hand.setdefault(row[0], []).append(row)
    for players in by_hand.values():
        rake = players[0][1]
        paid = sum(p[4] for p in players)
        if paid <= 0:
            continue
        parts = {p[2]: rake * p[4] // paid for p in players}
        odd = rake - sum(parts.values())
        order = sorted(players, key=lambda p: (-(rake * p[4] % paid), p[3]))
        for p in order[:odd]:
            parts[p[2]] += 1
        for account_id, part in parts.items():
            owner = account_owner(account_id)
            shares[owner] = shares.get(owner, 0) + part
    return shares


def _wallet_ledger(
    tx: Any, game: HomeGame, names: Sequence[str]
) -> tuple[list[dict[str, Any]], int]:
    """The ledger of a game in a wallet currency: the wallet's buy-ins and rebuys into the
    table (by the transfers' references), its cash-outs (the table's escrow and pending chips
    back to the wallet), the stored stack and pending chips, the rake each paid (each hand's
    rake by contribution); and the game's whole rake (the table's rake transfers)."""
    code, table_id = game.currency, game.table_id
    owners = {}
    for name in names:
        try:
            owners[name] = player_owner(tx, name)
        except UnknownAccount:
            continue  # removed from the room since
    escrow = escrow_key(table_id)
    keys = [escrow, *(pending_key(table_id, owner) for owner in owners.values())]
    flows = tx.account_flows(code, keys)
    shares = _rake_shares(tx.raked_contributions(table_id))
    rows = []
    for name, owner in owners.items():
        wallet = wallet_key(owner, code)
        buy_ins = added = cash_outs = 0
        for debit, credit, reference, amount, _ in flows:
            if debit == wallet:
                if ":rebuy:" in reference:
                    added += amount
                else:
                    buy_ins += amount
            elif credit == wallet:
                cash_outs += amount
        seat = tx.get_seat(table_id, name)
        pending = tx.get_account(pending_key(table_id, owner))
        at_table = (seat.stack if seat is not None else 0) + (
            pending.balance if pending is not None else 0
        )
        row = _ledger_row(name, buy_ins, added, cash_outs, at_table, shares.get(owner, 0))
        if row is not None:
            rows.append(row)
    house = sum(f[3] for f in flows if f[0] == escrow and f[4] == TransferKind.RAKE.value)
    return rows, house


def _ledger_row(
    name: str, buy_ins: int, added: int, cash_outs: int, at_table: int, rake: int | None = None
) -> dict[str, Any] | None:
    """A player's line of the ledger (``rake`` in a wallet currency's), None for a player
    with nothing in it."""
    if not (buy_ins or added or cash_outs or at_table or rake):
        return None
    row: dict[str, Any] = {
        "player": name,
        "buy_ins": buy_ins,
        "added": added,
        "cash_outs": cash_outs,
        "at_table": at_table,
    }
    if rake is not None:
        row["rake"] = rake
    row["net"] = cash_outs + at_table - buy_ins - added
    return row


def _ledger_rows(
    storage: Storage, game: HomeGame, names: Sequence[str]
) -> tuple[list[dict[str, Any]], int]:
    """(Blocking) the ledger of R-HOME-5 from the books alone, and the game's rake."""
    code = game.currency
    if not game.own_chips:
        with storage.transaction(write=False) as tx:
            return _wallet_ledger(tx, game, names)
    rows = []
    with storage.transaction(write=False) as tx:
        flows = tx.issued_chips(code, external_key(code))
        for name in names:
            try:
                wallet_key = player_wallet_key(tx, name, code)
                pending_key = player_pending_key(tx, game.table_id, name)
            except UnknownAccount:
                continue  # removed from the room since
            buy_ins = added = 0
            for debit, credit, reference, amount in flows:
                sign = 1 if credit == wallet_key else -1 if debit == wallet_key else 0
                if not sign:
                    continue
                if ":rebuy:" in reference:
                    added += sign * amount
                else:
                    buy_ins += sign * amount
            wallet = tx.get_account(wallet_key)
            cash_outs = wallet.balance if wallet is not None else 0
            seat = tx.get_seat(game.table_id, name)
            pending = tx.get_account(pending_key)
            at_table = (seat.stack if seat is not None else 0) + (
                pending.balance if pending is not None else 0
            )
            row = _ledger_row(name, buy_ins, added, cash_outs, at_table)
            if row is not None:
                rows.append(row)
    return rows, 0


# ------------------------------------------------------------------------ the service


class HomeRoom(Protocol):
    """What the home games need of the room (``RoomRuntime``)."""

    writer: Writer
    books: GroupStorage
    books_settlement: Settlement
    clock: Callable[[], float]
    runners: dict[str, TableRunner]
    stopping: bool

    def runner(self, table_id: str) -> TableRunner: ...
    def check_may_play(self, player: str, what: str) -> None: ...
    def check_lease(self, tx: Transaction, table_id: str) -> None: ...
    def add_listener(self, listener: Listener) -> None: ...
    async def add_home_table(self, spec: TableSpec, definition: str) -> None: ...
    async def join(
        self,
        table_id: str,
        player: str,
        seat: int,
        buy_in: int | None = ...,
        *,
        home: bool,
        reference: str | None = ...,
    ) -> int: ...
    async def buy_chips(
        self, table_id: str, player: str, amount: int, *, home: bool, reference: str | None = ...
    ) -> tuple[int, int]: ...
    async def close_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]: ...
    async def retire_table(self, table_id: str, operator: str, reason: str) -> dict[str, Any]: ...


Notify = Callable[[HomeGame, list[tuple[str, dict[str, Any]]], str | None], None]
"""A listener: (the game, the answered requests as (player, request with its status), the line
for the table or None)."""


class HomeGames:
    """Every home game of a room (``RoomRuntime.home``)."""

    def __init__(self, room: HomeRoom, settings: HomeSettings | None = None) -> None:
        self.room = room
        self.settings = settings or HomeSettings()
        self.games: dict[str, HomeGame] = {}
        self.by_secret: dict[str, str] = {}
        self.by_table: dict[str, str] = {}
        self.lock = asyncio.Lock()
        self.listeners: list[Notify] = []
        self.count = 0
        self._storing: set[asyncio.Task[None]] = set()

    # -------------------------------------------------------------- loading and storing

    async def load(self) -> None:
        """The stored games (at the room's start); the room's table listener."""
        rows = await self.room.writer.call(self._rows)
        now = self.room.clock()
        for row in rows:
            game = HomeGame.of_row(row)
            game.last_deal = max(game.last_deal, now)  # the idle hours count from the start
            self._seated_since(game)
            self._index(game)
        self.count = len(rows)
        self.room.add_listener(self._on_table)

    def _seated_since(self, game: HomeGame) -> None:
        """Since when each player at the game's table (as the books seat them at the start)
        sits: the stored times (R-HOME-2's longest-seated player); a seat the stored game does
        not know (stored before the times were kept) counts from the player's admission, else
        the game's creation."""
        runner = self.room.runners.get(game.table_id)
        seated = [] if runner is None else [s.account for s in runner.table.seats.values()]
        game.seated_at = {
            name: game.seated_at.get(name, game.players.get(name, game.created)) for name in seated
        }

    def _rows(self) -> list[HomeGameRow]:
        with self.room.books.transaction(write=False) as tx:
            return tx.home_games()

    def _index(self, game: HomeGame) -> None:
        self.games[game.game_id] = game
        self.by_table[game.table_id] = game.game_id
        if game.status != "ended":
            self.by_secret[game.secret] = game.game_id

    async def _store(self, game: HomeGame) -> None:
        row = game.row()

        def put() -> None:
            with self.room.books.transaction() as tx:
                self.room.check_lease(tx, game.table_id)  # (a cluster's worker: still its own)
                tx.put_home_game(row)

        await self.room.writer.call(put)

    def game_of_table(self, table_id: str) -> HomeGame | None:
        game_id = self.by_table.get(table_id)
        return None if game_id is None else self.games.get(game_id)

    # -------------------------------------------------------------- reading

    def game(self, game_id: str, player: str) -> HomeGame:
        """The game for its host, co-hosts, players (those removed too: their chips are in
        its ledger) and those asking (``NotFound`` else)."""
        game = self.games.get(game_id)
        if game is None or (game.role(player) is None and player not in game.removed):
            raise NotFound(f"no game {game_id!r} of yours; GET /api/games lists your games")
        return game

    def games_of(self, player: str) -> list[HomeGame]:
        """The player's games (hosted, co-hosted, played or asked for), newest first."""
        mine = [g for g in self.games.values() if g.role(player) is not None or player in g.removed]
        return sorted(mine, key=lambda g: (g.created, int(g.game_id[2:])), reverse=True)

    def by_invite(self, secret: str) -> HomeGame:
        game_id = self.by_secret.get(secret)
        game = None if game_id is None else self.games.get(game_id)
        if game is None or game.status == "ended" or game.secret != secret:
            raise NotFound("no game at this link: it is wrong, renewed or the game has ended")
        return game

    # -------------------------------------------------------------- creating

    def _check_stakes(
        self,
        game: str,
        small: int,
        big: int,
        low: int,
        high: int,
        seats: int,
        *,
        own_chips: bool = True,
    ) -> None:
        s = self.settings
        if game not in GAMES:
            raise HomeRefused(f"game {game!r}: choose NL, PL or FL")
        if not s.min_big_blind <= big <= s.max_big_blind:
            raise HomeRefused(
                f"the big blind must be from {s.min_big_blind} to {s.max_big_blind}, not {big}"
            )
        if not 1 <= small <= big:
            raise HomeRefused(f"the small blind must be from 1 to the big blind {big}, not {small}")
        if not 2 <= seats <= s.max_seats:
            raise HomeRefused(f"a game has 2 to {s.max_seats} seats, not {seats}")
        if not big <= low <= high:
            raise HomeRefused(
                f"the buy-in range must be at least one big blind ({big}) with min_buy_in <= "
                f"max_buy_in, not {low}..{high}"
            )
        if own_chips:
            return
        # a wallet currency: the buy-in bounds of the room's tables (R-BUYIN-1)
        floor, ceiling = (10 * big, None) if game == "FL" else (20 * big, 100 * big)
        if low < floor or (ceiling is not None and high > ceiling):
            most = "" if ceiling is None else f" and max_buy_in at most {ceiling}"
            raise HomeRefused(
                f"a game in a wallet currency keeps the room's buy-in bounds (R-BUYIN-1): "
                f"min_buy_in at least {floor}{most} at a big blind of {big}, not {low}..{high}",
                {"min_buy_in": floor, "max_buy_in": ceiling},
            )

    def _currency(self, asked: Any, own: str) -> str:
        """The game's currency: its own chips (``own``; ``currency`` left out or empty), or a
        wallet currency the operator allows (``[home] currencies``)."""
        if asked in (None, "", own):
            return own
        allowed = self.settings.currencies
        if isinstance(asked, str) and asked.upper() in allowed and asked.upper() in CURRENCIES:
            return asked.upper()
        others = f" or one of {', '.join(allowed)}" if allowed else ""
        offered = "" if allowed else " (this room offers no wallet currency for home games)"
        raise HomeRefused(
            f"currency {asked!r}: valid are the game's own chips (leave currency out){others}"
            f"{offered}",
            {"currencies": list(allowed)},
        )

    async def create(self, host: str, fields: dict[str, Any]) -> HomeGame:
        """A new game (R-HOME-1) hosted by ``host``, its table dealing at once."""
        s = self.settings
        now = self.room.clock()
        await self.room.writer.call(self.room.check_may_play, host, "home game")
        if s.games_at_once == 0 or s.games_per_day == 0:
            raise HomeRefused("this room offers no home games (its [home] settings)")
        async with self.lock:
            hosted = [g for g in self.games.values() if g.host == host]
            running = [g for g in hosted if g.status != "ended"]
            if len(running) >= s.games_at_once:
                raise HomeRefused(
                    f"you host {len(running)} games already (at most {s.games_at_once} at once):"
                    " end one first",
                    {"games_at_once": s.games_at_once},
                )
            today = [g for g in hosted if g.created > now - DAY]
            if len(today) >= s.games_per_day:
                raise HomeRefused(
                    f"you created {len(today)} games in 24 hours (at most {s.games_per_day})",
                    {"games_per_day": s.games_per_day},
                )
            game_code = fields.get("game", "NL")
            big = fields.get("big_blind", 2)
            small = fields.get("small_blind", max(1, big // 2))
            seats = fields.get("seats", min(6, s.max_seats))
            low = fields.get("min_buy_in", 20 * big)
            high = fields.get("max_buy_in", 100 * big)
            number = max(self.count, len(self.games)) + 1  # taken once the table is made
            game_id = f"g-{number}"
            code = self._currency(fields.get("currency"), home_currency(game_id))
            own = code == game_id
            self._check_stakes(game_code, small, big, low, high, seats, own_chips=own)
            name = str(fields.get("name") or f"{host}'s game").strip()[:40]
            game = HomeGame(
                game_id=game_id,
                name=name,
                host=host,
                secret=secrets.token_urlsafe(18),
                status="open",
                game=game_code,
                small_blind=small,
                big_blind=big,
                seats=seats,
                min_buy_in=low,
                max_buy_in=high,
                admission=bool(fields.get("admission", True)),
                auto_buy_in=bool(fields.get("auto_buy_in", False)),
                straddle=bool(fields.get("straddle", False)),
                run_it_twice=bool(fields.get("run_it_twice", False)),
                currency=code,
                created=now,
                last_deal=now,
                rake_percent=0 if own else s.rake_percent,
                rake_cap=0 if own else s.rake_cap,
                no_flop_no_drop=False if own else s.no_flop_no_drop,
            )
            definition = game.definition()
            try:
                spec = spec_of(definition, f"game {game_id}")
            except Exception as error:
                raise HomeRefused(f"these settings make no table: {error}") from None
            await self.room.add_home_table(spec, json.dumps(definition, sort_keys=True))
            self.count = number
            self._log(game, host, "create", f"{host} opened the game")
            await self._store(game)
            self._index(game)
        return game

    # -------------------------------------------------------------- joining

    def _check_joinable(self, game: HomeGame, player: str) -> None:
        if game.status == "ended":
            raise NotFound("this game has ended")
        if player in game.removed:
            raise HomeRefused(f"the host removed {player} from this game")

    def _check_buy_in(self, game: HomeGame, amount: int) -> None:
        if not game.min_buy_in <= amount <= game.max_buy_in:
            raise HomeRefused(
                f"a buy-in of {amount} is outside the game's range {game.min_buy_in} to "
                f"{game.max_buy_in}",
                {"min": game.min_buy_in, "max": game.max_buy_in, "amount": amount},
            )

    async def _check_wallet(self, game: HomeGame, player: str, amount: int) -> None:
        """A game in a wallet currency: the player may stake the chips asked for and the wallet
        holds them (checked again when the host approves)."""
        if game.own_chips:
            return
        code, books = game.currency, self.room.books
        verified = self.room.books_settlement.require_verified
        now = self.room.clock()
        held = await self.room.writer.call(_may_stake, books, player, code, amount, now, verified)
        if held < amount:
            raise HomeRefused(
                f"{player} holds {held} units of {code}; ask for at most {held}",
                {"balance": held, "amount": amount, "currency": code},
            )

    def _free_seat(self, game: HomeGame, wanted: int | None) -> int:
        runner = self.room.runner(game.table_id)
        taken = set(runner.table.seats)
        if wanted is not None:
            if not 1 <= wanted <= game.seats:
                raise HomeRefused(f"seat {wanted}: the game's seats are 1 to {game.seats}")
            if wanted not in taken:
                return wanted
        free = [n for n in range(1, game.seats + 1) if n not in taken]
        if not free:
            raise HomeRefused(f"every seat of {game.name} is taken; ask again when one frees")
        return free[0]

    async def join(
        self, game: HomeGame, player: str, seat: int | None, amount: int
    ) -> dict[str, Any]:
        """A player asks for a seat (the invite link, or ``sit`` at the table): a request the
        host answers, or (admission off, automatic buy-ins, or the host's and co-hosts' own
        seat) the seat at once. Returns ``{"request": ...}`` or ``{"seat": n, "stack": s}``."""
        await self.room.writer.call(self.room.check_may_play, player, "seat")
        async with self.lock:
            self._check_joinable(game, player)
            self._check_buy_in(game, amount)
            await self._check_wallet(game, player, amount)
            runner = self.room.runner(game.table_id)
            if runner.table.seat_of(player) is not None:
                raise HomeRefused(f"{player} already sits in this game")
            if any(r.player == player and r.kind != "rebuy" for r in game.requests):
                raise HomeRefused(f"{player} has asked already: the host answers soon")
            if seat is not None and not 1 <= seat <= game.seats:
                raise HomeRefused(f"seat {seat}: the game's seats are 1 to {game.seats}")
            role = game.role(player)
            admitted = role in ("host", "cohost", "player") or not game.admission
            if role in ("host", "cohost") or (admitted and game.auto_buy_in):
                where = await self._seat(game, player, seat, amount, "buy_in", 0)
                if role is None:
                    game.players[player] = self.room.clock()
                await self._store(game)
                self._changed(game, [], None)
                return where
            kind = "buy_in" if admitted else "seat"
            request = self._request(game, kind, player, amount, seat)
            await self._store(game)
            self._changed(game, [], None)
            return {"request": request.view()}

    def _request(
        self, game: HomeGame, kind: str, player: str, amount: int, seat: int | None
    ) -> HomeRequest:
        request = HomeRequest(game.next_request, kind, player, amount, self.room.clock(), seat)
        game.next_request += 1
        game.requests.append(request)
        return request

    async def _seat(
        self, game: HomeGame, player: str, wanted: int | None, amount: int, kind: str, ref: int
    ) -> dict[str, Any]:
        """Issue the buy-in (the game's own chips; a wallet currency: the wallet pays) and sit
        the player."""
        seat = self._free_seat(game, wanted)
        reference = f"home:{game.game_id}:{kind}:{ref}:{player}"
        writer = self.room.writer
        if game.own_chips:
            await writer.call(_issue, self.room.books, player, game.currency, amount, reference)
        try:
            stack = await self.room.join(
                game.table_id, player, seat, amount, home=True, reference=reference
            )
        except Exception:
            if game.own_chips:
                await writer.call(
                    _unissue, self.room.books, player, game.currency, amount, reference
                )
            raise
        game.seated_at[player] = self.room.clock()
        return {"seat": seat, "stack": stack}

    async def rebuy(self, table_id: str, player: str, amount: int) -> dict[str, Any] | None:
        """Chips added at a home table (``add_chips``): a rebuy request the host answers, or at
        once (automatic buy-ins, the host and co-hosts). Returns the request or None."""
        game = self.game_of_table(table_id)
        if game is None:
            raise RoomError(f"table {table_id} is no home game's")
        async with self.lock:
            self._check_joinable(game, player)
            runner = self.room.runner(table_id)
            seat = runner.seat_of(player)
            runner.table.verify_chips_bounds(seat, runner.pending_chips.get(player, 0) + amount)
            await self._check_wallet(game, player, amount)
            if game.auto_buy_in or game.role(player) in ("host", "cohost"):
                await self._add(game, player, amount, 0)
                return None
            request = self._request(game, "rebuy", player, amount, None)
            await self._store(game)
            self._changed(game, [], None)
            return request.view()

    async def _add(self, game: HomeGame, player: str, amount: int, ref: int) -> None:
        reference = f"home:{game.game_id}:rebuy:{ref}:{player}"
        if game.own_chips:
            await self.room.writer.call(
                _issue, self.room.books, player, game.currency, amount, reference
            )
        try:
            await self.room.buy_chips(game.table_id, player, amount, home=True, reference=reference)
        except Exception:
            if game.own_chips:
                await self.room.writer.call(
                    _unissue, self.room.books, player, game.currency, amount, reference
                )
            raise

    async def withdraw(self, game_id: str, player: str, number: int) -> HomeGame:
        """``player`` withdraws their own pending request (a seat, a buy-in or a rebuy) before
        the host answers it: it leaves the host's list, its player hears ``withdrawn``, and it
        is a line in the game's log and at the table. Refused, changing nothing, unless the
        request is the player's and still pending."""
        game = self.game(game_id, player)
        async with self.lock:
            request = next(
                (r for r in game.requests if r.request_id == number and r.player == player), None
            )
            if request is None:
                mine = [r.request_id for r in game.requests if r.player == player]
                raise HomeRefused(
                    f"no pending request {number!r} of yours in game {game_id}; yours: "
                    f"{mine or 'none'}",
                    {"pending": mine},
                )
            answered = self._answer(game, request, "withdrawn")
            what = {"seat": "request for a seat", "buy_in": "buy-in", "rebuy": "rebuy"}
            amount = "" if request.kind == "seat" else f" of {request.amount}"
            line = f"{player} withdrew their {what[request.kind]}{amount}"
            self._log(game, player, "withdraw", line)
            await self._store(game)
        self._changed(game, answered, line)
        return game

    # -------------------------------------------------------------- the host's controls

    async def control(
        self, game_id: str, actor: str, control: str, fields: dict[str, Any]
    ) -> HomeGame:
        """One of the host's controls (R-HOME-2); refused, changing nothing, unless ``actor``
        is the host (or a co-host, for all but ``cohost`` and ``end``) and it is valid now."""
        game = self.game(game_id, actor)
        role = game.role(actor)
        if role not in ("host", "cohost"):
            raise HomeRefused(f"only the host and co-hosts run game {game_id}")
        if control in _HOST_ONLY and role != "host":
            raise HomeRefused(f"only the host may {control} (co-hosts do all the rest)")
        if control not in CONTROLS:
            raise HomeRefused(
                f"unknown control {control!r}; the controls are {', '.join(CONTROLS)}"
            )
        if game.status == "ended":
            raise HomeRefused(f"game {game_id} has ended")
        async with self.lock:
            handler = getattr(self, f"_c_{control}")
            answered, line = await handler(game, actor, fields)
            self._log(game, actor, control, line)
            await self._store(game)
        self._changed(game, answered, line)
        return game

    def _pending(
        self, game: HomeGame, fields: dict[str, Any], kinds: tuple[str, ...]
    ) -> HomeRequest:
        number = fields.get("request")
        for request in game.requests:
            if request.request_id == number and request.kind in kinds:
                return request
        open_ids = [r.request_id for r in game.requests if r.kind in kinds]
        raise HomeRefused(
            f"no pending {' or '.join(kinds)} request {number!r}; pending: {open_ids or 'none'}"
        )

    async def _c_admit(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        request = self._pending(game, fields, ("seat",))
        if fields.get("admit") is True:
            await self._grant(game, request)
            line = f"{actor} admitted {request.player} with {request.amount}"
            return self._answer(game, request, "admitted"), line
        line = f"{actor} refused {request.player}'s request for a seat"
        return self._answer(game, request, "refused"), line

    async def _c_approve(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        request = self._pending(game, fields, ("buy_in", "rebuy"))
        what = "buy-in" if request.kind == "buy_in" else "rebuy"
        if fields.get("approve") is True:
            await self._grant(game, request)
            line = f"{actor} approved {request.player}'s {what} of {request.amount}"
            return self._answer(game, request, "approved"), line
        line = f"{actor} refused {request.player}'s {what} of {request.amount}"
        return self._answer(game, request, "refused"), line

    async def _grant(self, game: HomeGame, request: HomeRequest) -> None:
        """What an accepted request asks for: the seat with its buy-in (a seat request the host
        admits, a buy-in approved), or the chips of a rebuy. Raises, changing nothing, when it
        cannot be given (the request stays pending)."""
        if request.kind == "rebuy":
            await self._add(game, request.player, request.amount, request.request_id)
            return
        await self._seat(
            game, request.player, request.seat, request.amount, "buy_in", request.request_id
        )
        game.players.setdefault(request.player, self.room.clock())

    def _answer(
        self, game: HomeGame, request: HomeRequest, status: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """The request answered (no longer pending): the note its player gets."""
        game.requests.remove(request)
        return [(request.player, {**request.view(), "status": status})]

    async def _c_pause(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        if game.status == "paused":
            raise HomeRefused("the game is paused already; resume it")
        runner = self.room.runner(game.table_id)
        async with runner.lock:
            runner.hold = True
            runner.wake.set()
        game.status = "paused"
        later = " after the hand in progress" if runner.playing is not None else ""
        return [], f"{actor} paused the game{later}"

    async def _c_resume(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        if game.status != "paused":
            raise HomeRefused("the game is not paused")
        runner = self.room.runner(game.table_id)
        async with runner.lock:
            runner.hold = False
            runner.wake.set()
        game.status = "open"
        game.last_deal = max(game.last_deal, self.room.clock())
        return [], f"{actor} resumed the game"

    async def _c_settings(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        changes = {k: v for k, v in fields.items() if k in _SETTINGS}
        if not changes:
            raise HomeRefused(f"give one or more of {', '.join(_SETTINGS)}")
        new = replace(game, **changes)
        self._check_stakes(
            new.game,
            new.small_blind,
            new.big_blind,
            new.min_buy_in,
            new.max_buy_in,
            new.seats,
            own_chips=game.own_chips,
        )
        definition = new.definition()
        spec = spec_of(definition, f"game {game.game_id}")
        runner = self.room.runner(game.table_id)
        text = json.dumps(definition, sort_keys=True)

        def put() -> None:
            with self.room.books.transaction() as tx:
                tx.put_table_definition(game.table_id, text)

        await self.room.writer.call(put)
        async with runner.lock:
            runner.next_spec = spec
            runner.wake.set()
        for key, value in changes.items():
            setattr(game, key, value)
        said = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(changes.items()))
        return [], f"{actor} changed {said} (from the next hand)"

    async def _c_remove(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        player = fields.get("player")
        if not isinstance(player, str) or player in (game.host, actor):
            raise HomeRefused("name a player to remove (not the host, not yourself)")
        runner = self.room.runner(game.table_id)
        known = player in game.players or any(r.player == player for r in game.requests)
        if not known and runner.table.seat_of(player) is None:
            raise HomeRefused(f"{player} is not in this game")
        answered = []
        for request in [r for r in game.requests if r.player == player]:
            game.requests.remove(request)
            answered.append((player, {**request.view(), "status": "refused"}))
        game.players.pop(player, None)
        if player in game.cohosts:
            game.cohosts.remove(player)
        if player not in game.removed:
            game.removed.append(player)
        async with runner.lock:
            now = self.room.clock()
            table = runner.table
            events = table.leave_waiting_list(player, now)
            seat = table.seat_of(player)
            if seat is not None:
                with contextlib.suppress(IllegalAction):
                    events += table.leave(seat, now)
            await runner.command(events, now)
        later = " after the hand in progress" if runner.table.seat_of(player) else ""
        return answered, f"{actor} removed {player}{later}"

    async def _c_cohost(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        player, on = fields.get("player"), fields.get("on")
        if not isinstance(player, str) or not isinstance(on, bool):
            raise HomeRefused("give the player and on (true or false)")
        if on:
            if player not in game.players or player == game.host:
                raise HomeRefused(f"{player} is not a player of this game")
            if player not in game.cohosts:
                game.cohosts.append(player)
            return [], f"{actor} named {player} co-host"
        if player not in game.cohosts:
            raise HomeRefused(f"{player} is not a co-host")
        game.cohosts.remove(player)
        return [], f"{actor} made {player} a player again (no longer co-host)"

    async def _c_link(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        self.by_secret.pop(game.secret, None)
        game.secret = secrets.token_urlsafe(18)
        self.by_secret[game.secret] = game.game_id
        return [], f"{actor} renewed the invite link (the old one no longer works)"

    async def _c_end(
        self, game: HomeGame, actor: str, fields: dict[str, Any]
    ) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        answered = await self._end(game, actor, f"ended by {actor}")
        return answered, f"{actor} ended the game"

    async def _end(
        self, game: HomeGame, actor: str, reason: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """End the game: no new hand; after the hand in progress everyone leaves with their
        chips (the table closes), the requests are refused, the link dies (R-HOME-1)."""
        answered = [(r.player, {**r.view(), "status": "refused"}) for r in game.requests]
        game.requests.clear()
        # ended first: the players who leave at once (between hands) pass the host role to
        # nobody (``_on_table``)
        status, game.status = game.status, "ended"
        runner = self.room.runners.get(game.table_id)
        try:
            if runner is not None and runner.closed is None:
                await self.room.close_table(game.table_id, actor, f"home game {reason}")
                async with runner.lock:
                    runner.hold = False
                    runner.wake.set()
        except BaseException:
            game.status = status
            raise
        game.ended = self.room.clock()
        self.by_secret.pop(game.secret, None)
        return answered

    # -------------------------------------------------------------- the ledger

    async def ledger(self, game_id: str, player: str) -> dict[str, Any]:
        """R-HOME-5: per player, buy-ins, chips added, cash-outs, chips at the table and net,
        from the books; with the totals."""
        game = self.game(game_id, player)
        names = list(dict.fromkeys([game.host, *game.cohosts, *game.players, *game.removed]))
        names += [n for n in game.seated_at if n not in names]
        rows, rake = await self.room.writer.call(_ledger_rows, self.room.books, game, names)
        keys = ("buy_ins", "added", "cash_outs", "at_table", "net")
        totals = {k: sum(r[k] for r in rows) for k in keys}
        if not game.own_chips:  # a wallet currency: the rake column (R-HOME-5)
            totals = {**totals, "rake": rake}
            totals["net"] = totals.pop("net")
        return {"game": game.game_id, "currency": game.currency, "players": rows, "totals": totals}

    # -------------------------------------------------------------- the clock

    async def tick(self, now: float) -> None:
        """End the games idle for ``idle_hours`` (no hand dealt; R-HOME-1)."""
        idle = self.settings.idle_hours * 3600.0
        for game in list(self.games.values()):
            if game.status == "ended":
                # under the lock: a host's end (``control``) marks the game ended before its
                # table closes and stores the game after; its table retires only after that
                # (retired, its lease given up, the game's storing would be refused)
                async with self.lock:
                    await self._retire(game)
                continue
            if now - game.last_deal < idle:
                continue
            async with self.lock:
                if game.status == "ended":
                    continue
                answered = await self._end(game, game.host, "after idle hours")
                line = f"the game ended: no hand for {self.settings.idle_hours:g} hours"
                self._log(game, "room", "end", line)
                await self._store(game)
            self._changed(game, answered, line)

    async def _retire(self, game: HomeGame) -> None:
        """An ended game's table, once everyone has left, leaves the room (its hands and books
        stay): it is not loaded again."""
        runner = self.room.runners.get(game.table_id)
        if runner is None or runner.closed is None or runner.table.seats:
            return
        with contextlib.suppress(RoomError):
            await self.room.retire_table(
                game.table_id, game.host, f"home game {game.game_id} ended"
            )

    async def run(self) -> None:
        """``tick`` every minute on the real clock."""
        while not self.room.stopping:
            try:
                await self.tick(self.room.clock())
            except Exception:
                log.exception("home games: the idle check failed")
            await asyncio.sleep(60.0)

    # -------------------------------------------------------------- the table's events

    def _on_table(self, runner: Any, events: Sequence[object]) -> None:
        game = self.game_of_table(getattr(runner, "table_id", ""))
        if game is None:
            return
        for event in events:
            if isinstance(event, HandStarted):
                game.last_deal = self.room.clock()
            elif isinstance(event, SeatReleased):
                game.seated_at.pop(event.account, None)
                gone = [r for r in game.requests if r.player == event.account and r.kind == "rebuy"]
                for request in gone:  # (no seat to add chips to)
                    game.requests.remove(request)
                if event.account == game.host and game.status != "ended":
                    self._pass_host(game)
                    continue
                self._later_store(game)  # (who sits since when: kept for a restart)
                if gone:
                    answered = [(r.player, {**r.view(), "status": "refused"}) for r in gone]
                    self._changed(game, answered, None)

    def _pass_host(self, game: HomeGame) -> None:
        """The host left: the earliest co-host, else the longest-seated player, is host."""
        old = game.host
        if game.cohosts:
            new = game.cohosts.pop(0)
        elif game.seated_at:
            new = min(game.seated_at, key=lambda n: game.seated_at[n])
        else:
            return  # nobody to pass it to: the host stays host
        game.host = new
        game.players.setdefault(old, game.created)
        game.players.pop(new, None)
        line = f"{old} left: {new} is the host now"
        self._log(game, "room", "host", line)
        self._later_store(game)
        self._changed(game, [], line)

    def _later_store(self, game: HomeGame) -> None:
        """Store the game soon (from a table listener, which may not wait)."""
        task = asyncio.get_running_loop().create_task(self._store(game))
        self._storing.add(task)
        task.add_done_callback(self._stored)

    def _stored(self, task: asyncio.Task[None]) -> None:
        self._storing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("home games: a game could not be stored", exc_info=task.exception())

    # -------------------------------------------------------------- log and listeners

    def _log(self, game: HomeGame, actor: str, action: str, line: str) -> None:
        game.log.append({"at": self.room.clock(), "by": actor, "action": action, "line": line})
        del game.log[:-500]

    def log_of(self, game_id: str, player: str) -> list[dict[str, Any]]:
        return list(self.game(game_id, player).log)

    def _changed(
        self, game: HomeGame, answered: list[tuple[str, dict[str, Any]]], line: str | None
    ) -> None:
        for listener in list(self.listeners):
            try:
                listener(game, answered, line)
            except Exception:
                log.exception("a home-game listener failed")

    # -------------------------------------------------------------- guests

    def take_signup(self, game: HomeGame) -> None:
        """A guest's sign-up through the invite link: it counts against the game's seats (one
        sign-up per seat), not the room's per-address sign-up limit (friends share one
        address); every other sign-up rule still holds."""
        if game.signups >= game.seats:
            raise HomeRefused(
                f"this link has signed up {game.signups} players, one per seat of the game: "
                "sign up in the room (its sign-up limit applies) or sign in",
                {"signups": game.signups, "seats": game.seats},
            )
        game.signups += 1

    def give_back_signup(self, game: HomeGame) -> None:
        game.signups = max(0, game.signups - 1)

    # -------------------------------------------------------------- in a cluster

    async def reload(
        self, *, game_id: str | None = None, secret: str | None = None, host: str | None = None
    ) -> None:
        """The stored games read again, as stored: all of them, or those with this id, secret
        or host (a cluster's gateway: it runs no table, and what it shows, and the games it
        creates, go by the stored games; docs/cluster.md)."""

        def read() -> tuple[list[HomeGameRow], int]:
            with self.room.books.transaction(write=False) as tx:
                rows = tx.home_games(game_id=game_id, secret=secret, host=host)
                return rows, tx.home_game_count()

        rows, count = await self.room.writer.call(read)
        self.games.clear()
        self.by_secret.clear()
        self.by_table.clear()
        for row in rows:
            self._index(HomeGame.of_row(row))
        self.count = count

    async def store(self, game: HomeGame) -> None:
        """Store the game now (a cluster's worker, after a sign-up through its link)."""
        await self._store(game)

    def attach(self) -> None:
        """Hear the tables' events (a cluster's worker, which loads games one by one)."""
        self.room.add_listener(self._on_table)

    async def load_game(self, game_id: str, runner: TableRunner) -> HomeGame | None:
        """A cluster's worker took the game's table (``runner``): the game, as stored (its
        requests, roles, pause and log), runs here from now; its idle hours count from now."""

        def read() -> list[HomeGameRow]:
            with self.room.books.transaction(write=False) as tx:
                return tx.home_games(game_id=game_id)

        rows = await self.room.writer.call(read)
        if not rows:
            return None
        game = HomeGame.of_row(rows[0])
        game.last_deal = max(game.last_deal, self.room.clock())
        runner.hold = game.status == "paused"  # (no deal while the host pauses the game)
        self.games.pop(game.game_id, None)
        self._index(game)
        return game

    def drop_game(self, table_id: str) -> None:
        """A cluster's worker no longer runs the table: its game is its next owner's."""
        game_id = self.by_table.pop(table_id, None)
        game = None if game_id is None else self.games.pop(game_id, None)
        if game is not None:
            self.by_secret.pop(game.secret, None)


def home_spec(spec: TableSpec) -> bool:
    """Whether the table is a home game's (never in the lobby, no house bots)."""
    return spec.home is not None

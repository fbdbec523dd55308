"""The operator API on a cluster's gateways (docs/operator.md, docs/cluster.md): any gateway
serves it, and each action reaches what it acts on through the broker.

- **An action on a table** (``close-table``, ``reopen-table``, ``retire-table``, ``kick``) goes
  to the table's owner through the table's stream, as a player's command does
  (``TableClient.call``); the owner runs it as the single process does, its operator log entry
  included. When no worker answers within the timeout (the table has no owner now, or it is
  changing hands) the caller gets 503 ``table_unavailable`` and may try again.
- **What concerns connections** (closing a suspended account's connections, a broadcast, who
  is online, a player's reminder) goes to every gateway on the ``gateways`` channel
  (``TableClient.gather``); each answers for its own connections, and the answers are summed.
- **Suspension** ends the account's sessions in the database, closes its connections on every
  gateway, and asks the owner of every table to take it out of play there: its cash seats are
  left at the end of the hand in progress with the chips back in its wallet.
- **add-table** stores the definition and its log entry in the database (the source of truth);
  a worker takes the new table through the lease mechanism at its next look, and the answer
  says which one did (``owner``, or ``null`` when none has within the timeout).
- The reads (``me``, ``log``, ``integrity``, ``protection``) and the account actions
  (``reinstate``, ``reset-password``, ``verify``) need only the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from feltroom.room.operators import OperatorLog
from feltroom.room.runtime import define_table
from feltroom.room.settlement import Settlement
from feltroom.room.tables_config import TableSpec
from feltroom.server.rest import ApiError

from .client import RemoteError

if TYPE_CHECKING:
    from .gateway import GatewayHub

__all__ = ["ClusterRoom"]

log = logging.getLogger("feltroom.cluster")

_NOT_FOUND = ("NotSeated", "UnknownAccount", "UnknownTable")
"""The owners' refusals that are a 404 (as in the single process)."""


def _api_error(error: RemoteError) -> ApiError:
    """The owner's (or the broker's) refusal as the operator API's error."""
    if error.kind in ("table_unavailable", "broker_unavailable"):
        return ApiError(503, error.kind, error.message)
    if error.kind in _NOT_FOUND:
        return ApiError(404, "not_found", error.message)
    if error.kind == "internal":
        return ApiError(500, "internal", f"the table's owner failed: {error.message}")
    return ApiError(409, "refused", error.message)


class ClusterRoom:
    """The live room as the operator API sees it from one gateway
    (``feltroom.server.operator_api.OperatorRoom``)."""

    def __init__(self, hub: GatewayHub, *, timeout: float = 10.0) -> None:
        self.hub = hub
        self.client = hub.client
        self.accounts = hub.accounts
        self.storage = hub.storage
        self.protection = hub.protection
        self.timeout = timeout

    # -------------------------------------------------------------- the broker

    async def _at(self, table_id: str, op: str, who: str, /, **args: Any) -> dict[str, Any]:
        """Run ``op`` at the table's owner; its answer, or the API's error."""
        try:
            return await self.client.call(table_id, op, who, timeout=self.timeout, **args)
        except RemoteError as error:
            raise _api_error(error) from None

    async def _everywhere(self, op: str, /, **args: Any) -> list[tuple[str, dict[str, Any]]]:
        """Run ``op`` on every gateway; each one's name and result (those that answered in
        time)."""
        try:
            replies, heard = await self.client.gather(op, timeout=self.timeout, **args)
        except RemoteError as error:
            raise _api_error(error) from None
        if len(replies) < heard:
            log.warning(
                "operator %s: %d of %d gateways answered within %g s",
                op,
                len(replies),
                heard,
                self.timeout,
            )
        return [(str(reply.get("gateway")), reply.get("result") or {}) for reply in replies]

    async def _defined(self) -> list[str]:
        def read() -> list[str]:
            with self.storage.transaction(write=False) as tx:
                return sorted(tx.table_definitions())

        return await run_in_threadpool(read)

    # -------------------------------------------------------------- reads

    async def online(self) -> dict[str, Any]:
        players: dict[str, dict[str, Any]] = {}
        connections = 0
        for gateway, result in await self._everywhere("online"):
            connections += int(result.get("connections", 0))
            for entry in result.get("players", ()):
                found = players.setdefault(
                    entry["player"],
                    {
                        "player": entry["player"],
                        "connections": 0,
                        "addresses": set(),
                        "watching": set(),
                        "gateways": set(),
                    },
                )
                found["connections"] += entry["connections"]
                found["addresses"].update(entry["addresses"])
                found["watching"].update(entry["watching"])
                found["gateways"].add(gateway)
        tables = await self._defined()

        def seats() -> list[tuple[str, str, int]]:
            with self.storage.transaction(write=False) as tx:
                rows = tx.seats_at_tables(tables)
            return sorted((row.player, row.table_id, row.seat) for row in rows)

        held: dict[str, list[dict[str, Any]]] = {}
        for player, table_id, seat in await run_in_threadpool(seats):
            held.setdefault(player, []).append({"table": table_id, "seat": seat})
        listed = [
            {
                **entry,
                "addresses": sorted(entry["addresses"]),
                "watching": sorted(entry["watching"]),
                "gateways": sorted(entry["gateways"]),
                "seats": held.get(name, []),
            }
            for name, entry in sorted(players.items())
        ]
        return {"players": listed, "connections": connections}

    async def tables(self) -> list[dict[str, Any]]:
        """Every table defined, each asked of its owner; a table whose owner has not written
        its lobby entry lately (none owns it, or it is busy) is listed with what is known."""
        entries = {entry["id"]: entry for entry in self.hub._lobby_entries()}
        ids = sorted(set(self.hub.tables) | set(entries))

        async def one(table_id: str) -> dict[str, Any]:
            entry = entries.get(table_id) or {"id": table_id, "name": table_id, "status": "unknown"}
            try:
                view = await self.client.call(table_id, "operator_table", "", timeout=self.timeout)
            except RemoteError as error:
                return {**entry, "players": [], "hand": None, "unreachable": error.message}
            return {**entry, **view}

        return list(await asyncio.gather(*(one(table_id) for table_id in ids)))

    async def check_table(self, table_id: str) -> None:
        known = await self._defined()
        if table_id not in known:
            raise ApiError(
                404,
                "not_found",
                f"no table {table_id!r}; the tables are {', '.join(known) or 'none'}",
            )

    # -------------------------------------------------------------- actions

    async def close_player(self, account: str, reason: str) -> int:
        try:
            results = await self._everywhere("close_player", player=account, reason=reason)
        except ApiError as error:  # (the broker is away: the whole room waits for it)
            raise ApiError(
                error.status,
                error.code,
                f"done in the database (every session of {account!r} ended), but the gateways "
                f"could not be told to close its connections: {error.message}",
            ) from None
        return sum(int(r.get("closed", 0)) for _, r in results)

    async def seated_at(self, account: str) -> list[str]:
        """The tables where the books seat ``account`` (an owner writes a seat at the sit)."""

        def read() -> list[str]:
            with self.storage.transaction(write=False) as tx:
                return sorted(tx.seats_of(account))

        return await run_in_threadpool(read)

    async def remove_account(self, account: str, entry: int, hooks: bool) -> dict[str, Any]:
        """Every table's owner takes the account out of play there; with ``hooks`` (a
        suspension) every running tournament's owner disqualifies it there (R-TOURN-15)."""
        tables = await self._defined()
        disqualified: list[str] = []
        if hooks:
            running = [
                t
                for t, shown in self.hub._tournaments.items()
                if shown.get("held")
                and shown["lobby"].get("state") not in ("finished", "cancelled")
            ]
            for tournament_id in running:
                try:
                    done = await self.client.call(
                        tournament_id, "disqualify", account, timeout=self.timeout
                    )
                except RemoteError as error:
                    log.warning(
                        "operator: %s not disqualified in %s: %s", account, tournament_id, error
                    )
                    continue
                if done.get("disqualified"):
                    disqualified.append(tournament_id)

        async def one(table_id: str) -> tuple[str, bool | str]:
            try:
                answer = await self.client.call(
                    table_id, "remove_account", account, timeout=self.timeout, entry=entry
                )
            except RemoteError as error:
                return table_id, error.message
            return table_id, bool(answer.get("left"))

        outcomes = await asyncio.gather(*(one(t) for t in tables))
        result: dict[str, Any] = {"tables_left": [t for t, left in outcomes if left is True]}
        if disqualified:
            result["tournaments_disqualified"] = disqualified
        unreachable = {t: why for t, why in outcomes if isinstance(why, str)}
        if unreachable:
            # No owner answered there: the account cannot sign in, so a seat it keeps there
            # is sat out and released as any absent player's (R-SIT-1, R-SIT-2).
            result["tables_unreachable"] = unreachable
        return result

    async def table_action(
        self, action: str, table_id: str, operator: str, reason: str
    ) -> dict[str, Any]:
        return await self._at(table_id, action, operator, reason=reason)

    async def add_table(
        self, spec: TableSpec, definition: str, operator: str, reason: str
    ) -> dict[str, Any]:
        storage = self.storage
        clock = self.accounts.clock
        entry = await run_in_threadpool(
            define_table,
            storage,
            OperatorLog(storage, clock),
            Settlement(storage, clock=clock),
            spec,
            definition,
            operator,
            reason,
        )
        return {
            "table": spec.table_id,
            "status": "open",
            "entry": entry,
            "owner": await self._owner_of(spec.table_id),
        }

    async def _owner_of(self, table_id: str) -> str | None:
        """The worker that took the table, once one has (``None`` after the timeout)."""

        def owner() -> str | None:
            with self.storage.transaction(write=False) as tx:
                now = tx.database_time()
                for row in tx.all_leases():
                    if row.table_id == table_id and row.expires_at > now:
                        return row.owner
            return None

        end = time.monotonic() + self.timeout
        while True:
            found = await run_in_threadpool(owner)
            if found is not None or time.monotonic() > end:
                return found
            await asyncio.sleep(0.2)

    async def kick(self, table_id: str, player: str, operator: str, reason: str) -> dict[str, Any]:
        return await self._at(table_id, "kick", operator, player=player, reason=reason)

    async def broadcast(self, text: str) -> int:
        results = await self._everywhere("broadcast", text=text)
        return sum(int(r.get("connections", 0)) for _, r in results)

    async def set_reminder(self, player: str, minutes: int) -> None:
        await self._everywhere("set_reminder", player=player, minutes=minutes)

"""Connections and the hub: who is at which table, what each message does, what each is sent.

- A ``Connection`` is one websocket: its player once ``hello`` authenticated it, the tables it
  watches (seated or observing), its outbound queue and its inbound rate limit. It knows
  nothing of sockets: ``ws.py`` feeds it frames and sends what it queues.
- The ``Hub`` is told of every batch of table events by the room (a listener) and sends each
  connection watching that table the messages its viewer may see (``wire.messages_for``). It
  turns inbound messages into the room's commands; whatever the room refuses comes back to the
  sender alone as a typed error, and nothing changes.
- Disconnection (R-SIT-1, R-TIME-4): when the last connection of a seated player ends without
  ``leave``, the hub tells the room the player is disconnected (the seat is kept; the room sits
  them out after its grace period). A new connection with the player's token resumes: the hub
  tells the room, sends ``welcome`` with the seats and a ``snapshot`` of each table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from feltroom.errors import FeltroomError, IllegalAction
from feltroom.room import RoomError
from feltroom.room.accounts import Accounts, token_hash
from feltroom.room.errors import InsufficientFunds, NotSeated, StaleHand, StaleTurn
from feltroom.room.events import PlayerMoved, TournamentEvent, TournamentNews
from feltroom.room.protection import Protection
from feltroom.room.rebuys import set_auto_rebuy
from feltroom.room.runtime import RoomRuntime, TableRunner, WatchedTable
from feltroom.room.runtime.home_games import HomeGame
from feltroom.room.runtime.home_games import NotFound as HomeNotFound
from feltroom.room.runtime.tournament import TournamentRunner, TournamentTableRef
from feltroom.rules import Action, Call, Check, Fold, LegalActions, RaiseTo
from feltroom.server import protocol
from feltroom.server.metrics import ACTION_BROADCAST, ACTIONS, count_error
from feltroom.server.protocol import PROTOCOL_VERSION, ProtocolError
from feltroom.server.released import ReleasedSeats
from feltroom.server.wire import (
    Fanout,
    legal_of,
    messages_for,
    moved_message,
    snapshot_messages,
)
from feltroom.table import Entry, PreAction, PreActionKind, SeatOffered, SeatOfferExpired

__all__ = [
    "ANSWERED",
    "Closed",
    "Connection",
    "Hub",
    "HubSettings",
    "UnknownTable",
    "UnknownTournament",
    "limits_of",
    "tournament_result",
    "welcome",
]

log = logging.getLogger("feltroom.server")

Message = dict[str, Any]

_PRE_ACTIONS = {
    "check_fold": PreActionKind.CHECK_FOLD,
    "check": PreActionKind.CHECK,
    "call_any": PreActionKind.CALL_ANY,
    "fold": PreActionKind.FOLD,
    "call": PreActionKind.CALL,
}


@dataclass(frozen=True, slots=True)
class HubSettings:
    """Limits of the protocol.

    ``rate`` / ``burst``: inbound messages per second a connection may send, and the burst
    above that; a connection over it gets ``rate_limited`` errors, and after ``strikes`` of
    them it is closed (1008). ``chat_rate`` / ``chat_burst``: the same for chat lines.
    ``outbox``: frames queued for a slow connection before it is dropped (a disconnection).
    ``strike_decay``: strikes decay, one every that many seconds, so that only a sustained
    flood (not one burst an hour) reaches ``strikes``.
    ``hello_seconds``: how long a new connection has to say ``hello``.
    ``lobby_every``: how often lobby subscribers get the tables that changed.
    ``sweep_every``: how often connections whose session expired are closed (1008).
    ``purge_every``: how often expired sessions are deleted from the database.
    ``send_seconds``: how long one frame may wait for a reader that does not read before the
    connection is closed (1008, like a reader that falls ``outbox`` frames behind).
    ``per_address`` / ``per_session``: the connections this server holds at once from one
    client address (friends at a home game share one: at least 32 is advised) and with one
    session's token; one more is closed (1008, saying which limit) as it connects or as it
    says hello.
    """

    rate: float = 20.0
    burst: float = 40.0
    strikes: int = 20
    strike_decay: float = 30.0
    chat_rate: float = 1.0
    chat_burst: float = 5.0
    outbox: int = 2000
    hello_seconds: float = 10.0
    lobby_every: float = 2.0
    sweep_every: float = 1.0
    purge_every: float = 3600.0
    send_seconds: float = 10.0
    per_address: int = 64
    per_session: int = 16


class _Bucket:
    """A token bucket: ``take()`` is False when the sender is over its rate."""

    __slots__ = ("at", "burst", "clock", "rate", "tokens")

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class Closed(Exception):
    """The hub closes this connection with ``code`` (1008: policy, 1011: server error)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(eq=False)
class Connection:
    """One client connection (sans-I/O): frames in through ``Hub.receive``, frames out through
    ``outbox``."""

    hub: Hub
    address: str = ""
    player: str | None = None
    tables: set[str] = field(default_factory=set)
    lobby: bool = False
    muted: dict[str, set[str]] = field(default_factory=dict)
    outbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    closed: bool = False
    left: set[str] = field(default_factory=set)
    strikes: float = 0.0
    struck_at: float = 0.0
    token_hash: str | None = None
    expires_at: float | None = None
    close_reason: str = "too slow to read what the table sends"
    bucket: _Bucket | None = None
    chat_bucket: _Bucket | None = None

    def send(self, message: Message, frames: protocol.FrameCache | None = None) -> None:
        """Queue one message (encoded now, so a frame shows the state it was made in).
        ``frames`` caches encodings across the connections of a broadcast
        (``protocol.encode_once``)."""
        if self.closed:
            return
        if frames is None:
            frame = protocol.encode(message)
        else:
            frame = protocol.encode_once(message, frames)
        if message.get("type") == "error":
            count_error(message["code"], "websocket")
        self.send_frame(frame, message)

    def send_frame(self, frame: str, message: Message | None = None) -> None:
        """Queue one encoded frame (a gateway forwards the frames a table's owner built);
        the wire tap sees it with its message (decoded here when not given)."""
        if self.closed:
            return
        tap = self.hub.tap
        if tap is not None:
            tap(self, message if message is not None else json.loads(frame), frame)
        if self.outbox.qsize() >= self.hub.settings.outbox:
            log.warning("connection of %s is too slow: dropped", self.player)
            while not self.outbox.empty():  # what it has not read is dropped with it
                self.outbox.get_nowait()
            self.close()
            return
        self.outbox.put_nowait(frame)

    def close(self, reason: str | None = None) -> None:
        """End the connection: nothing more is sent or handled; its sender closes the socket
        (1008 with ``reason``)."""
        if not self.closed:
            self.closed = True
            if reason is not None:
                self.close_reason = reason
            self.outbox.put_nowait(None)


class Hub:
    """Every connection of the server, and the room's events fanned out to them."""

    def __init__(
        self,
        runtime: RoomRuntime,
        settings: HubSettings | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._setup(runtime.accounts, settings, clock)
        self.runtime = runtime
        runtime.add_listener(self._on_events)
        runtime.add_tournament_listener(self._on_tournament)
        runtime.home.listeners.append(self._on_game)

    def _setup(
        self, accounts: Accounts, settings: HubSettings | None, clock: Callable[[], float]
    ) -> None:
        """What every hub has: its connections, limits and sessions (a gateway's hub has no
        room of its own: ``feltroom.cluster.gateway``)."""
        self.accounts = accounts
        self.settings = settings or HubSettings()
        self.clock = clock
        self.connections: set[Connection] = set()
        self.by_address: dict[str, int] = {}
        self.by_table: dict[str, set[Connection]] = {}
        self.by_player: dict[str, set[Connection]] = {}
        self.tap: Callable[[Connection, Message, str], None] | None = None
        # when a player's action at a table was received, until its events are broadcast
        self._acting: dict[str, float] = {}
        self._lobby_sent: dict[str, Any] = {}
        self._lobby_task: asyncio.Task[None] | None = None
        self._sweep_task: asyncio.Task[None] | None = None
        # The session-time reminder (issue 25): each player's interval (minutes, from their
        # protection settings), when their session began (their first connection's hello,
        # until their last connection ends) and how many reminders it has had.
        self.reminders: dict[str, int] = {}
        self.session_started: dict[str, float] = {}
        self.reminded: dict[str, int] = {}
        # seats released (sat out too long) while their players were not watching: said on
        # their return (issue 42)
        self.released = ReleasedSeats()

    # -------------------------------------------------------------- lifecycle

    def open(self, address: str = "") -> Connection:
        """A new connection from ``address``; ``Closed`` (1008) when the address holds
        ``per_address`` connections already."""
        settings = self.settings
        held = self.by_address.get(address, 0)
        if held >= settings.per_address:
            raise Closed(
                1008, f"too many connections from your address (at most {settings.per_address})"
            )
        self.by_address[address] = held + 1
        connection = Connection(self, address)
        connection.bucket = _Bucket(settings.rate, settings.burst, self.clock)
        connection.chat_bucket = _Bucket(settings.chat_rate, settings.chat_burst, self.clock)
        self.connections.add(connection)
        return connection

    async def close(self, connection: Connection) -> None:
        """The connection ended (any way at all): unless the player chose to leave, their seats
        are kept and shown as disconnected (R-SIT-1, R-TIME-4)."""
        connection.close()
        if connection in self.connections:
            self.connections.discard(connection)
            held = self.by_address.get(connection.address, 0) - 1
            if held > 0:
                self.by_address[connection.address] = held
            else:
                self.by_address.pop(connection.address, None)
        for table in list(connection.tables):
            self._unwatch(connection, table)
        player = connection.player
        if player is None:
            return
        others = self.by_player.get(player, set())
        others.discard(connection)
        if others:
            return
        self.by_player.pop(player, None)
        self.session_started.pop(player, None)
        self.reminded.pop(player, None)
        await self._disconnected(player)

    async def _disconnected(self, player: str) -> None:
        """The player's last connection here ended: their seats are shown disconnected."""
        for table_id, _ in self.runtime.seats_of(player):
            with contextlib.suppress(FeltroomError):
                await self.runtime.disconnect(table_id, player)

    def start(self) -> None:
        if self._lobby_task is None:
            self._lobby_task = asyncio.create_task(self._lobby_loop(), name="lobby updates")
        if self._sweep_task is None:
            self._sweep_task = asyncio.create_task(self._sweep_loop(), name="session sweep")

    async def stop(self) -> None:
        self._detach()
        for task in (self._lobby_task, self._sweep_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._lobby_task = self._sweep_task = None
        for connection in list(self.connections):
            connection.close()

    def _detach(self) -> None:
        """Stop hearing the room's events."""
        self.runtime.remove_listener(self._on_events)
        self.runtime.remove_tournament_listener(self._on_tournament)
        with contextlib.suppress(ValueError):
            self.runtime.home.listeners.remove(self._on_game)

    def _table_ids(self) -> list[str]:
        """The tables a player may name (for a ``not_found`` error's details)."""
        return list(self.runtime.runners)

    def _playing_at(self, table_id: str) -> int | None:
        """The hand in progress at a table (for a ``stale_hand`` error's details)."""
        runner = self.runtime.runners.get(table_id)
        return None if runner is None else runner.playing

    def _lobby_entries(self) -> list[dict[str, Any]]:
        return self.runtime.lobby()

    def _lobby_tournaments(self) -> list[dict[str, Any]]:
        return self.runtime.tournaments_lobby()

    # -------------------------------------------------------------- sessions

    def end_session(self, token_hash: str, reason: str = "signed out; sign in again") -> int:
        """Close at once (1008) every connection that said hello with the session whose token
        hashes to ``token_hash`` (sign-out): nothing they send afterwards is handled. Returns how
        many were closed."""
        ended = [c for c in self.connections if c.token_hash == token_hash and not c.closed]
        for connection in ended:
            connection.close(reason)
        return len(ended)

    def close_player(self, player: str, reason: str) -> int:
        """Close at once (1008, ``reason``) every connection of ``player`` (a suspended
        account); returns how many."""
        ended = [c for c in self.by_player.get(player, ()) if not c.closed]
        for connection in ended:
            connection.close(reason)
        return len(ended)

    def broadcast(self, text: str) -> int:
        """The room's message: an ``announcement`` to every signed-in player's connection,
        wherever they are (the lobby, a tournament's page, a table), and a chat line from
        ``room`` (a reserved name, so no player can pass for it) to everyone watching each
        table. Returns the connections reached."""
        now = self._now()
        reached: set[Connection] = set()
        announcement = {"type": "announcement", "text": text, "time": now}
        for connections in list(self.by_player.values()):
            for connection in list(connections):
                connection.send(announcement)
                reached.add(connection)
        for table_id in self._table_ids():
            line = {"type": "chat", "table": table_id, "player": "room", "text": text, "time": now}
            for connection in list(self.by_table.get(table_id, ())):
                connection.send(line)
                reached.add(connection)
        return len(reached)

    def online(self) -> list[dict[str, Any]]:
        """Who is connected and where: per player, the connections, their addresses, the
        tables watched and the seats held."""
        return [
            {
                **entry,
                "seats": [
                    {"table": t, "seat": seat} for t, seat in self.runtime.seats_of(entry["player"])
                ],
            }
            for entry in self.connected()
        ]

    def connected(self) -> list[dict[str, Any]]:
        """The players connected here: per player, the connections, their addresses and the
        tables watched (``online`` adds the seats; a cluster's gateway reads them from the
        database)."""
        found = []
        for player, connections in sorted(self.by_player.items()):
            live = [c for c in connections if not c.closed]
            if not live:
                continue
            found.append(
                {
                    "player": player,
                    "connections": len(live),
                    "addresses": sorted({c.address for c in live}),
                    "watching": sorted({t for c in live for t in c.tables}),
                }
            )
        return found

    def set_reminder(self, player: str, minutes: int) -> None:
        """The player chose a reminder every ``minutes`` of session time (0: none)."""
        self.reminders[player] = minutes

    def send_reminders(self) -> int:
        """Send a ``reminder`` to every connection of each player whose session passed one
        more of their intervals; returns how many players were reminded."""
        now = self._now()
        reminded = 0
        for player, started in list(self.session_started.items()):
            minutes = self.reminders.get(player, 0)
            if minutes <= 0:
                continue
            due = int((now - started) // (minutes * 60.0))
            if due <= self.reminded.get(player, 0):
                continue
            self.reminded[player] = due
            played = int((now - started) // 60.0)
            message = {
                "type": "reminder",
                "minutes": played,
                "every": minutes,
                "since": started,
                "time": now,
                "text": f"You have been playing for {played} minutes.",
            }
            for connection in list(self.by_player.get(player, ())):
                connection.send(message)
            reminded += 1
        return reminded

    def close_expired(self) -> int:
        """Close (1008) every connection whose session has expired; returns how many."""
        now = self.accounts.clock()
        ended = [
            c
            for c in self.connections
            if c.expires_at is not None and c.expires_at <= now and not c.closed
        ]
        for connection in ended:
            connection.close("the session expired; sign in again")
        return len(ended)

    async def _sweep_loop(self) -> None:
        """Close the connections of expired sessions; now and then delete expired sessions
        from the database."""
        settings = self.settings
        purged_at = self.clock()
        while True:
            await asyncio.sleep(settings.sweep_every)
            self.close_expired()
            self.send_reminders()
            if self.clock() - purged_at >= settings.purge_every:
                purged_at = self.clock()
                try:
                    await run_in_threadpool(self.accounts.purge_expired_sessions)
                except Exception:  # the database may be busy: try again next time
                    log.exception("purging expired sessions failed")

    # -------------------------------------------------------------- fan-out

    def _viewer(self, runner: WatchedTable, connection: Connection) -> int | None:
        if connection.player is None:
            return None
        return runner.table.seat_of(connection.player)

    def _on_events(self, runner: WatchedTable, events: Sequence[object]) -> None:
        began = self._acting.pop(runner.table_id, None)
        table_id = runner.table_id
        self.released.note(
            events,
            lambda account: any(table_id in c.tables for c in self.by_player.get(account, ())),
            lambda event: messages_for(table_id, None, [event], None, event.account, None)[0],
        )
        try:
            self._broadcast(runner, events)
        finally:
            if began is not None:  # a player's action: its events are now queued for everyone
                ACTION_BROADCAST.observe(time.perf_counter() - began)

    def _broadcast(self, runner: WatchedTable, events: Sequence[object]) -> None:
        watchers = self.by_table.get(runner.table_id)
        offered = _offered_accounts(events)
        if not watchers and not offered:
            return
        fanout = Fanout(runner, events)
        sent: set[Connection] = set()
        for connection in list(watchers or ()):
            viewer = self._viewer(runner, connection)
            for message in fanout.messages(viewer, connection.player):
                connection.send(message, fanout.frames)
            if fanout.reloaded:
                self.send_snapshot(connection, runner)
            sent.add(connection)
        for account in offered:  # a seat offer reaches a waiting player wherever they are
            for connection in self.by_player.get(account, ()):
                if connection in sent:
                    continue
                for message in fanout.away(account):
                    if message["type"] in ("seat_offer", "event"):
                        if message["type"] == "event" and message["kind"] != "seat_offer_expired":
                            continue
                        connection.send(message)

    def send_snapshot(self, connection: Connection, runner: WatchedTable) -> None:
        muted = connection.muted.get(runner.table_id, set())
        for message in snapshot_messages(runner, self._viewer(runner, connection), sorted(muted)):
            connection.send(message)

    def _on_tournament(self, events: Sequence[TournamentEvent]) -> None:
        """Tournament news: a moved player's connections follow them to the new table (a
        ``moved`` message, then the new table's snapshot); players get their ``tournament``
        view, and their ``tournament_result`` once their place is final."""
        now = self.runtime.clock()
        for event in events:
            tournament = self.runtime.tournaments.get(event.tournament)
            if tournament is None:
                continue
            if isinstance(event, PlayerMoved):
                self._moved(tournament, event)
                continue
            assert isinstance(event, TournamentNews)
            online = [a for a in event.accounts if self.by_player.get(a)]
            views = tournament.player_views(online, now)
            for account in online:
                connections = self.by_player.get(account)
                view = views.get(account)
                if not connections or view is None:
                    continue
                result = _result_of(view) if account in event.results else None
                for connection in list(connections):
                    connection.send({"type": "tournament", "ref": None, **view})
                    if result is not None:
                        connection.send(result)

    def _moved(self, tournament: TournamentRunner, event: PlayerMoved) -> None:
        connections = self.by_player.get(event.account)
        target = tournament.by_id.get(event.to_table)
        if not connections or target is None:
            return
        for connection in list(connections):
            if event.from_table is not None:
                self._unwatch(connection, event.from_table)
            self._watch(connection, event.to_table)
            connection.send(moved_message(event))
            self.send_snapshot(connection, target)

    def _watch(self, connection: Connection, table_id: str) -> None:
        connection.tables.add(table_id)
        self.by_table.setdefault(table_id, set()).add(connection)

    def _unwatch(self, connection: Connection, table_id: str) -> None:
        connection.tables.discard(table_id)
        watchers = self.by_table.get(table_id)
        if watchers is not None:
            watchers.discard(connection)
            if not watchers:
                del self.by_table[table_id]

    async def _lobby_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lobby_every)
            watchers = [c for c in self.connections if c.lobby]
            entries = self._lobby_entries()
            changed = []
            for entry in entries:
                key = entry["id"]
                if self._lobby_sent.get(key) != entry:
                    self._lobby_sent[key] = entry
                    changed.append(entry)
            for connection in watchers:
                for entry in changed:
                    connection.send({"type": "lobby_update", "table": entry})

    # -------------------------------------------------------------- inbound

    async def receive(self, connection: Connection, frame: str | bytes) -> None:
        """Handle one inbound frame: a reply or typed error goes to this connection only.
        Raises ``Closed`` when the connection must be closed."""
        if connection.closed:  # signed out, expired or dropped: nothing more is handled
            raise Closed(1008, connection.close_reason)
        expires = connection.expires_at
        if expires is not None and expires <= self.accounts.clock():
            connection.close("the session expired; sign in again")
            raise Closed(1008, connection.close_reason)
        bucket = connection.bucket
        if bucket is not None and not bucket.take():
            now = self.clock()
            decayed = (now - connection.struck_at) / self.settings.strike_decay
            connection.strikes = max(0.0, connection.strikes - decayed) + 1.0
            connection.struck_at = now
            if connection.strikes > self.settings.strikes:
                raise Closed(1008, "too many messages")
            connection.send(
                protocol.error(
                    "rate_limited",
                    f"at most {self.settings.rate:g} messages per second "
                    f"(bursts of {self.settings.burst:g}); slow down",
                    _ref_of(frame),
                    details={"rate": self.settings.rate, "burst": self.settings.burst},
                )
            )
            return
        await self.handle(connection, frame)

    async def handle(self, connection: Connection, frame: str | bytes) -> None:
        """Decode and run one frame the connection may send now (past the limits): its reply
        or its typed error is queued for this connection alone."""
        try:
            message = protocol.decode(frame)
        except ProtocolError as error:
            if error.code == "too_large":
                raise Closed(1009, error.message) from None
            connection.send(
                protocol.error(error.code, error.message, error.ref, details=error.details)
            )
            return
        ref: int | None = message.id
        kind: str = type(message).__struct_config__.tag  # type: ignore[assignment]
        if connection.player is None and kind != "hello":
            connection.send(
                protocol.error("unauthenticated", "say hello with your token first", ref)
            )
            return
        try:
            reply = await self._dispatch(connection, kind, message)
        except Closed:
            raise
        except ProtocolError as error:
            connection.send(protocol.error(error.code, error.message, ref, details=error.details))
            return
        except StaleHand as error:
            details = {
                "hand": getattr(message, "hand", None),
                "playing": self._playing_at(getattr(message, "table", "")),
            }
            connection.send(protocol.error("stale_hand", str(error), ref, details=details))
            return
        except StaleTurn as error:
            details = {"turn_id": getattr(message, "turn_id", None)}
            connection.send(protocol.error("stale_turn", str(error), ref, details=details))
            return
        except NotSeated as error:
            details = {"table": getattr(message, "table", None)}
            connection.send(protocol.error("not_joined", str(error), ref, details=details))
            return
        except _NotYourTurn as error:
            connection.send(protocol.error("not_your_turn", str(error), ref, details=error.details))
            return
        except IllegalAction as error:
            legal = error.legal if isinstance(error.legal, LegalActions) else None
            text = error.reason if legal is None else f"{error.reason}; legal: {legal}"
            connection.send(
                protocol.error("illegal_action", text, ref, legal_of(legal), error.details)
            )
            return
        except UnknownTable as error:
            details = {
                "table": getattr(message, "table", None),
                "tables": self._table_ids(),
            }
            connection.send(protocol.error("not_found", str(error), ref, details=details))
            return
        except UnknownTournament as error:
            connection.send(protocol.error("not_found", str(error), ref, details=error.details))
            return
        except UnknownGame as error:
            connection.send(protocol.error("not_found", str(error), ref))
            return
        except (RoomError, FeltroomError) as error:
            connection.send(protocol.error("refused", str(error), ref, details=_details_of(error)))
            return
        if reply is ANSWERED:
            return
        if reply is not None:
            connection.send(reply)
        elif kind != "hello":
            connection.send(protocol.ok(ref))

    async def run_for(
        self, player: str, table_id: str, frame: str, watching: bool
    ) -> tuple[list[str], bool]:
        """A message of ``player``'s that a gateway forwarded to this table's owner (the
        cluster): handled as if it came from a connection of theirs that watches ``table_id``
        (``watching``) or not. Returns the frames that connection is sent (the reply or the
        typed error, a snapshot) and whether it watches the table afterwards."""
        connection = Connection(self, player=player)
        if watching:
            self._watch(connection, table_id)
        try:
            await self.handle(connection, frame)
        finally:
            watched = table_id in connection.tables
            for table in list(connection.tables):
                self._unwatch(connection, table)
        return _drain(connection), watched

    async def resume_for(self, player: str, table_id: str) -> list[str]:
        """A player's connection (on a gateway) said hello: the seat resumes (R-TIME-4) and
        the frames of a snapshot of the table for them."""
        connection = Connection(self, player=player)
        with contextlib.suppress(FeltroomError):
            await self.runtime.resume(table_id, player)
        self.send_snapshot(connection, self._runner(table_id))
        return _drain(connection)

    def _runner(self, table_id: str) -> TableRunner:
        runner = self.runtime.runners.get(table_id)
        if runner is None:
            raise UnknownTable(
                f"no table {table_id!r}; tables are {', '.join(self.runtime.runners)}"
            )
        return runner

    def _seated(self, connection: Connection, table_id: str) -> tuple[TableRunner, int]:
        runner = self._runner(table_id)
        assert connection.player is not None
        seat = runner.table.seat_of(connection.player)
        if seat is None:
            raise NotSeated(f"you have no seat at table {table_id}; sit first")
        return runner, seat

    async def _dispatch(self, connection: Connection, kind: str, m: Any) -> Message | None:
        player = connection.player
        if kind == "hello":
            return await self._hello(connection, m)
        assert player is not None
        if kind == "ping":
            return protocol.pong(m.id)
        if kind == "lobby":
            connection.lobby = True
            return {
                "type": "lobby",
                "ref": m.id,
                "tables": self._lobby_entries(),
                "tournaments": self._lobby_tournaments(),
            }
        if kind == "lobby_stop":
            connection.lobby = False
            return None
        if kind == "chat":
            return await self._chat(connection, m)
        if kind == "mute":
            self._check_table(m.table)
            mutes = connection.muted.setdefault(m.table, set())
            if m.on:
                mutes.add(m.player)
            else:
                mutes.discard(m.player)
            return None
        runtime = self.runtime
        if kind == "tournament":
            return self._tournament_view(player, m)
        if kind == "game":
            return await self._game_control(player, m)
        found = runtime.tournament_table(m.table)
        if found is not None:
            return await self._at_tournament_table(connection, kind, m, *found)
        runner = self._runner(m.table)
        game = runtime.home.game_of_table(m.table)
        if kind == "observe":
            if game is not None and game.role(player) is None:
                raise RoomError(
                    f"table {m.table} is a private game's: open its invite link to ask for a seat"
                )
            self._watch(connection, m.table)
            self.send_snapshot(connection, runner)
            return None
        if kind == "unobserve":
            if runner.table.seat_of(player) is not None:
                raise IllegalAction(
                    f"you sit at table {m.table}: leave (or sit out) instead of unobserving"
                )
            self._unwatch(connection, m.table)
            return None
        if kind == "sit" and game is not None:
            return await self._home_sit(connection, player, game, m)
        if kind == "sit":
            watched = m.table in connection.tables
            self._watch(connection, m.table)  # first, so the player sees their own arrival
            entry = Entry.WAIT if m.entry == "wait" else Entry.POST
            try:
                await runtime.join(m.table, player, m.seat, m.buy_in, entry)
            except Exception:
                if not watched:
                    self._unwatch(connection, m.table)
                raise
            if not m.auto_muck:  # first: the seat's next deal may be the table's next command
                await runtime.set_auto_muck(m.table, player, False)
            if not m.auto_post:
                await runtime.set_auto_post(m.table, player, False)
            self.send_snapshot(connection, runner)
            return None
        if kind == "wait_list":
            await runtime.join_waiting_list(m.table, player)
            if m.table not in connection.tables:
                self._watch(connection, m.table)
                self.send_snapshot(connection, runner)
            return None
        if kind == "wait_list_leave":
            await runtime.leave_waiting_list(m.table, player)
            return None
        # Everything below needs a seat at the table.
        runner, seat = self._seated(connection, m.table)
        if kind == "leave":
            await runtime.leave(m.table, player)
            return None
        if kind == "add_chips" and game is not None:
            asked = await runtime.home.rebuy(m.table, player, m.amount)
            return None if asked is None else {**_pending_ok(m.id), "request": asked}
        if kind == "add_chips":
            _, pending = await runtime.buy_chips(m.table, player, m.amount)
            return _pending_ok(m.id) if pending else None
        if kind == "sit_out":
            await runtime.sit_out(m.table, player)
            return None
        if kind == "sit_in":
            entry = Entry.WAIT if m.entry == "wait" else Entry.POST
            later = await runtime.sit_in(m.table, player, entry)
            return _pending_ok(m.id) if later else None
        if kind == "post_blind":
            await runtime.post_blind(m.table, player)
            return None
        if kind == "decline_blind":
            await runtime.decline_blind(m.table, player)
            return None
        if kind == "auto_post":
            await runtime.set_auto_post(m.table, player, m.on)
            return None
        if kind == "auto_muck":
            await runtime.set_auto_muck(m.table, player, m.on)
            return None
        if kind == "auto_rebuy":
            await set_auto_rebuy(runtime, m.table, player, m.on)
            return None
        if kind == "straddle":
            await runtime.set_straddle(m.table, player, m.on)
            return None
        if kind == "run_twice_choice":
            await runtime.set_run_twice(m.table, player, m.choice)
            return None
        if kind == "run_twice":
            await runtime.answer_run_twice(m.table, player, m.agree)
            return None
        if kind == "act":
            try:
                action = self._action(runner, seat, m)
                self._acting[m.table] = time.perf_counter()
                await runtime.act(m.table, player, action, m.hand, m.turn_id)
            except Exception:
                self._acting.pop(m.table, None)
                ACTIONS.labels("refused").inc()
                raise
            ACTIONS.labels("accepted").inc()
            return None
        if kind == "pre_action":
            pre = None if m.kind is None else PreAction(_PRE_ACTIONS[m.kind], m.amount)
            await runtime.set_pre_action(m.table, player, m.hand, pre)
            return None
        if kind == "show":
            await runtime.show(m.table, player, m.hand)
            return None
        raise ProtocolError("unknown_type", f"message type {kind!r} is not handled", m.id)

    def _tournament_view(self, player: str, m: Any) -> Message:
        tournament = self.runtime.tournaments.get(m.tournament)
        if tournament is None:
            known = ", ".join(sorted(self.runtime.tournaments)) or "none"
            raise UnknownTournament(
                f"no tournament {m.tournament!r}; tournaments are {known}",
                {"tournament": m.tournament, "tournaments": sorted(self.runtime.tournaments)},
            )
        view = tournament.player_view(player, self.runtime.clock())
        if view is None:
            raise NotSeated(
                f"you have no entry in tournament {m.tournament}; register with POST "
                f"/api/tournaments/{m.tournament}/register"
            )
        return {"type": "tournament", "ref": m.id, **view}

    async def _at_tournament_table(
        self,
        connection: Connection,
        kind: str,
        m: Any,
        tournament: TournamentRunner,
        tab: TournamentTableRef,
    ) -> Message | None:
        """A message about a tournament's table: watch it, and at your seat act, go away
        (``sit_out``) and come back (``sit_in``, R-TOURN-6); the cash table's seat, chips and
        blind messages do not apply there (R-TOURN-15)."""
        player = connection.player
        assert player is not None
        now = self.runtime.clock()
        if kind == "observe":
            self._watch(connection, tab.table_id)
            self.send_snapshot(connection, tab)
            return None
        seat = tab.table.seat_of(player)
        if kind == "unobserve":
            if seat is not None:
                raise IllegalAction(
                    f"you play at table {tab.table_id} of tournament {tournament.tournament_id}; "
                    "its table is yours until the director moves you or you are out"
                )
            self._unwatch(connection, tab.table_id)
            return None
        if kind in ("act", "sit_out", "sit_in", "auto_muck") and seat is None:
            raise NotSeated(f"you have no seat at table {tab.table_id}")
        if kind == "act":
            await tournament.check_away(player)  # refused during a cool-off or exclusion
            try:
                action = self._action(tab, seat, m)  # type: ignore[arg-type]
                self._acting[tab.table_id] = time.perf_counter()  # as at a cash table
                await tournament.act(player, action, now, m.hand, m.turn_id)
            except Exception:
                self._acting.pop(tab.table_id, None)
                ACTIONS.labels("refused").inc()
                raise
            ACTIONS.labels("accepted").inc()
            return None
        if kind == "sit_out":
            await tournament.away(player, now)
            return None
        if kind == "sit_in":
            await tournament.back(player, now)
            return None
        raise IllegalAction(
            f"{kind} does not apply at tournament table {tab.table_id}: players are seated, "
            "moved and given chips by the tournament (R-TOURN-15); at your seat you may act, "
            "sit_out (be away) and sit_in (be back)"
        )

    def _action(self, runner: WatchedTable, seat: int, m: Any) -> Action:
        """The engine's action for an ``act`` message, checked against the turn first so the
        error says exactly what is wrong (R-BET-6)."""
        hand = runner.table.hand
        if runner.playing is not None and m.hand != runner.playing:
            raise StaleHand(
                f"hand {m.hand} is not the hand in progress at table {runner.table_id} "
                f"({runner.playing})"
            )
        if hand is None or hand.is_over:
            raise _NotYourTurn(
                f"no hand is in progress at table {runner.table_id}", details={"to_act": None}
            )
        runner.check_turn(m.turn_id)
        if hand.runs_pending:
            raise _NotYourTurn(
                "betting is over: the hand waits for the run-it-twice answers (R-HOME-4)",
                details={"to_act": None, "seat": seat},
            )
        if hand.to_act != seat:
            raise _NotYourTurn(
                f"it is seat {hand.to_act}'s turn, not yours (seat {seat})",
                details={"to_act": hand.to_act, "seat": seat},
            )
        legal = hand.legal_actions()
        action: Action
        if m.action == "fold":
            action = Fold()
        elif m.action == "check":
            action = Check()
        elif m.action == "call":
            action = Call()
        else:
            if legal is not None and legal.raise_min is not None:
                wanted = "bet" if legal.bet else "raise"
                if m.action != wanted:
                    raise IllegalAction(
                        f"{m.action} is not possible here: it would be a {wanted} "
                        f"(to {legal.raise_min}..{legal.raise_max})",
                        legal,
                        {"action": m.action, "wanted": wanted},
                    )
                _check_wager(m.action, m.amount, legal)
            action = RaiseTo(m.amount)
        if legal is not None and not legal.allows(action):
            raise IllegalAction(
                f"{m.action} is not a legal action now", legal, {"action": m.action}
            )
        return action

    async def _hello(self, connection: Connection, m: Any) -> Message | None:
        player = await self._authenticate(connection, m)
        await self._begin_session(player, self.runtime.protection)
        seats = self.runtime.seats_of(player)
        tournament_seats = self.runtime.tournament_seats_of(player)
        everywhere = [*seats, *((table_id, seat) for _, table_id, seat in tournament_seats)]
        now = self.runtime.clock()
        connection.send(welcome(m.id, player, everywhere, now, limits_of(self.settings)))
        for released in self.released.take(player):  # while away (issue 42)
            connection.send(released)
        for table_id, _ in seats:
            runner = self.runtime.runners[table_id]
            self._watch(connection, table_id)
            with contextlib.suppress(FeltroomError):
                await self.runtime.resume(table_id, player)
            self.send_snapshot(connection, runner)
        now = self.runtime.clock()
        for tournament, table_id, _ in tournament_seats:
            tab = tournament.by_id[table_id]
            self._watch(connection, table_id)
            self.send_snapshot(connection, tab)
            view = tournament.player_view(player, now)
            if view is not None:
                connection.send({"type": "tournament", "ref": None, **view})
        return None

    async def _begin_session(self, player: str, protection: Protection) -> None:
        """The player's first connection here said hello: their session time starts, and
        their reminder interval is read (issue 25)."""
        if player in self.session_started:
            return
        self.session_started[player] = self._now()
        try:
            settings = await run_in_threadpool(protection.view, player)
        except FeltroomError:  # the account went meanwhile: no reminder
            settings = {"reminder_minutes": 0}
        self.reminders[player] = settings["reminder_minutes"]

    async def _authenticate(self, connection: Connection, m: Any) -> str:
        """``hello``: the session of the token (any process of the room knows it: sessions are
        in the database) becomes the connection's player."""
        if connection.player is not None:
            raise ProtocolError("invalid_field", "this connection has said hello already", m.id)
        if m.version != PROTOCOL_VERSION:
            raise ProtocolError(
                "version", f"this server speaks version {PROTOCOL_VERSION}, not {m.version}", m.id
            )
        try:
            session = await run_in_threadpool(self.accounts.session, m.token)
        except FeltroomError:
            raise Closed(1008, "unknown or expired token; sign in again") from None
        if connection.closed:
            raise Closed(1008, connection.close_reason)
        player = session.user
        hashed = token_hash(m.token)
        limit = self.settings.per_session
        same = [c for c in self.by_player.get(player, ()) if c.token_hash == hashed]
        if len(same) >= limit:
            raise Closed(1008, f"too many connections with this sign-in (at most {limit})")
        connection.player = player
        connection.token_hash = hashed
        connection.expires_at = session.expires_at
        self.by_player.setdefault(player, set()).add(connection)
        return player

    async def _chat(self, connection: Connection, m: Any) -> Message | None:
        self.chat_out(m.table, self._chat_line(connection, m))
        return None

    # -------------------------------------------------------------- home games

    async def _game_control(self, player: str, m: Any) -> Message:
        """A host's control over the websocket: as over HTTP (docs/home-games.md)."""
        fields = {
            name: getattr(m, name)
            for name in m.__struct_fields__
            if name not in ("id", "game", "control") and getattr(m, name) is not None
        }
        try:
            game = await self.runtime.home.control(m.game, player, m.control, fields)
        except HomeNotFound as error:
            raise UnknownGame(str(error)) from None
        return {"type": "game", "ref": m.id, "game": game.view(player)}

    async def _home_sit(
        self, connection: Connection, player: str, game: HomeGame, m: Any
    ) -> Message | None:
        """``sit`` at a home game's table: a seat request its host answers (``ok`` with
        ``pending`` and the request), or the seat at once when no answer is needed."""
        watched = m.table in connection.tables
        self._watch(connection, m.table)
        amount = game.max_buy_in if m.buy_in is None else m.buy_in
        try:
            result = await self.runtime.home.join(game, player, m.seat, amount)
        except Exception:
            if not watched:
                self._unwatch(connection, m.table)
            raise
        if "request" in result:
            return {**_pending_ok(m.id), "request": result["request"]}
        self.send_snapshot(connection, self._runner(m.table))
        return None

    def _on_game(
        self, game: HomeGame, answered: list[tuple[str, dict[str, Any]]], line: str | None
    ) -> None:
        """A home game changed: the game to its host, co-hosts and players (each as they may
        see it), the answer to each player whose request was answered, the host's action as a
        line at the table."""
        people = {game.host, *game.cohosts, *game.players, *(r.player for r in game.requests)}
        for person in people:
            connections = self.by_player.get(person)
            if not connections:
                continue
            message = {"type": "game", "game": game.view(person)}
            for connection in list(connections):
                connection.send(message)
        runner = self.runtime.runners.get(game.table_id)
        for person, request in answered:
            note = {"type": "game_request", "game": game.game_id, "request": request}
            seated = request["kind"] != "rebuy" and request["status"] in ("admitted", "approved")
            for connection in list(self.by_player.get(person, ())):
                connection.send(note)
                if seated and runner is not None:  # seated now: the table from the seat
                    self._watch(connection, game.table_id)
                    self.send_snapshot(connection, runner)
        if line is not None:
            said = {
                "type": "chat",
                "table": game.table_id,
                "player": "room",
                "text": line,
                "time": self._now(),
            }
            for connection in list(self.by_table.get(game.table_id, ())):
                connection.send(said)

    def _check_table(self, table_id: str) -> None:
        """Raise ``UnknownTable`` unless the room has the table."""
        self._runner(table_id)

    def _chat_line(self, connection: Connection, m: Any) -> Message:
        """The chat line a connection may send now (it watches the table, within its chat
        rate), or the refusal."""
        self._check_table(m.table)
        if m.table not in connection.tables:
            raise NotSeated(f"observe or sit at table {m.table} to chat there")
        bucket = connection.chat_bucket
        if bucket is not None and not bucket.take():
            raise RoomError(
                f"at most {self.settings.chat_rate:g} chat line per second "
                f"(bursts of {self.settings.chat_burst:g}); wait a moment"
            )
        return {
            "type": "chat",
            "table": m.table,
            "player": connection.player,
            "text": m.text.strip(),
            "time": self._now(),
        }

    def _now(self) -> float:
        return self.runtime.clock()

    def chat_out(self, table_id: str, line: Message) -> None:
        """A chat line to every connection here at the table, but those that muted its
        sender."""
        sender = line.get("player")
        for other in list(self.by_table.get(table_id, ())):
            if sender in other.muted.get(table_id, ()):
                continue
            other.send(line)


ANSWERED: Message = {"type": "answered"}
"""What ``_dispatch`` returns when the reply was sent already (a gateway forwards the frames
the table's owner built, reply included)."""


class _NotYourTurn(IllegalAction):
    pass


class UnknownTable(RoomError):
    """No such table in the room (``not_found``)."""


class UnknownGame(RoomError):
    """No such home game for this player (``not_found``)."""


class UnknownTournament(RoomError):
    """No such tournament in the room (``not_found``, with the ones there are)."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.details = details


def _pending_ok(ref: int | None) -> Message:
    """``ok`` for a request done when the hand in progress ends (chips added during a hand,
    R-BUYIN-3, or sitting in on them)."""
    return {**protocol.ok(ref), "pending": True}


def _check_wager(action: str, amount: int, legal: LegalActions) -> None:
    """A bet or raise outside the offered range, said as a player says it (R-BET-6): "the
    minimum raise is to 100"; ``details`` carry the range and the amount asked."""
    low, high = legal.raise_min, legal.raise_max
    assert low is not None
    assert high is not None
    details = {"action": action, "amount": amount, "min": low, "max": high}
    verb = "bet is" if action == "bet" else "raise is to"
    if amount < low:
        raise IllegalAction(f"the minimum {verb} {low}", legal, details)
    if amount > high:
        raise IllegalAction(f"the maximum {verb} {high}", legal, details)


def tournament_result(view: Message) -> Message | None:
    """The ``tournament_result`` message of a player's tournament view (a cluster's worker
    sends it through the gateways), ``None`` until their place is final."""
    return _result_of(view)


def _result_of(view: Message) -> Message | None:
    """The ``tournament_result`` message of a player's tournament view, once their place is
    final."""
    you = view["you"]
    if you["place"] is None:
        return None
    return {
        "type": "tournament_result",
        "tournament": view["tournament"],
        "place": you["place"],
        "prize": you["prize"],
        "entries": view["entries"],
    }


def _details_of(error: Exception) -> dict[str, Any]:
    """The figures of a refusal of the room's (``refused``): the funds a wallet lacks, or what
    the error carries itself."""
    if isinstance(error, InsufficientFunds):
        return {"balance": error.balance, "amount": error.amount}
    details: dict[str, Any] = dict(getattr(error, "details", None) or {})
    return details


def _drain(connection: Connection) -> list[str]:
    """The frames queued for a connection that no socket reads (``Hub.run_for``)."""
    frames = []
    while not connection.outbox.empty():
        frame = connection.outbox.get_nowait()
        if frame is not None:
            frames.append(frame)
    return frames


def limits_of(settings: HubSettings) -> Message:
    """The inbound rate limit a connection is told in ``welcome``, so that a client (a bot, a
    bridge) can pace itself under it rather than learn it from ``rate_limited`` refusals."""
    return {"rate": settings.rate, "burst": settings.burst}


def welcome(
    ref: int | None,
    player: str,
    seats: Sequence[tuple[str, int]],
    now: float,
    limits: Message | None = None,
) -> Message:
    message: Message = {
        "type": "welcome",
        "ref": ref,
        "version": PROTOCOL_VERSION,
        "player": player,
        "seats": [{"table": t, "seat": s} for t, s in seats],
        "time": now,
    }
    if limits is not None:
        message["limits"] = limits
    return message


def _offered_accounts(events: Sequence[object]) -> list[str]:
    return [e.account for e in events if isinstance(e, (SeatOffered, SeatOfferExpired))]


def _ref_of(frame: str | bytes) -> int | None:
    """The id of a refused frame, when it is a well-formed message, so that the sender can
    match the refusal to its request."""
    try:
        return protocol.decode(frame).id
    except ProtocolError as error:
        return error.ref

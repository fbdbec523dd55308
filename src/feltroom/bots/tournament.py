"""Network bots in a tournament: ``feltroom bots --url URL --tournament ID --count N``.

``run_tournament_bots`` makes N accounts (``<prefix>.<run>.<k>``, or those of ``--accounts``),
takes the play-money grant, registers each in tournament ``ID`` over HTTP (``POST
/api/tournaments/{id}/register``) and plays it over the websocket: the director seats each bot
(``moved``) and moves it (the client follows the new table's snapshot); at each turn the bot's
brain chooses from its own view and the legal actions, after ``think`` seconds. A bot is done
when its ``tournament_result`` comes (its place and prize) or the tournament ends without one
(cancelled). A registration the room refuses (closed, full, the wallet short) stops the run
before any bot plays, with the room's reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from feltroom.bots.client import (
    Client,
    ClientError,
    ConnectionLost,
    HttpError,
    RequestRefused,
    RequestTimeout,
    legal_from_wire,
)
from feltroom.bots.runner import AccountFile, BotSettings
from feltroom.rules import Call, Check, Fold
from feltroom.strategy import Brain, make_brain

_RATE = 15.0
"""Messages a second a bot sends at most (the server limits each connection's rate)."""
_RECONNECTS = 5
"""How many times a bot connects again after its connection ended."""

__all__ = ["TournamentBot", "TournamentRun", "main", "run_tournament_bots"]


@dataclass(slots=True)
class TournamentBot:
    """One bot's tournament: its place and prize once final."""

    name: str
    place: int | None = None
    prize: int = 0
    actions: int = 0
    moves: int = 0
    timeouts: int = 0
    reconnects: int = 0
    problem: str | None = None


@dataclass(slots=True)
class TournamentRun:
    """How the team's tournament went."""

    tournament: str
    bots: list[TournamentBot]
    seconds: float
    state: str = "running"
    entries: int = 0
    latencies: list[float] = field(default_factory=list)
    """Seconds from each turn message to the server's answer to the bot's action."""
    move_latencies: list[tuple[str, float]] = field(default_factory=list)
    """(reason, seconds from the end of the hand at the old table to the ``moved`` message)
    for each move between tables."""
    hand_for_hand_moves: list[tuple[str, float]] = field(default_factory=list)
    """Those of ``move_latencies`` made while the bot's last view of the tournament said
    hand-for-hand (moves wait for the round's end then, R-TOURN-9)."""
    hands: set[tuple[str, int]] = field(default_factory=set)
    """The distinct hands the bots saw end."""

    @property
    def ok(self) -> bool:
        """Every bot finished (with a place, or in a cancelled tournament) without a problem."""
        if self.state == "timed out":
            return False
        return all(b.problem is None for b in self.bots) and all(
            b.place is not None or self.state == "cancelled" for b in self.bots
        )

    def summary(self) -> str:
        """One line for people: places and prizes."""
        placed = sorted((b for b in self.bots if b.place is not None), key=lambda b: b.place or 0)
        places = ", ".join(f"{b.place}" for b in placed) or "none"
        prizes = [f"{b.name} {_ordinal(b.place or 0)} {b.prize}" for b in placed if b.prize]
        return (
            f"tournament {self.tournament} {self.state}: {len(self.bots)} bots of "
            f"{self.entries} entries; places {places}; prizes "
            f"{sum(b.prize for b in self.bots)} ({', '.join(prizes) or 'none won'}); "
            f"{sum(b.actions for b in self.bots)} actions, "
            f"{sum(b.moves for b in self.bots)} moves in {self.seconds:.1f} s"
        )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class _Player:
    def __init__(
        self,
        settings: BotSettings,
        tournament: str,
        name: str,
        brain: Brain,
        password: str | None,
        accounts: AccountFile | None,
        run: TournamentRun,
        token: str | None = None,
    ) -> None:
        self.settings = settings
        self.tournament = tournament
        self.report = TournamentBot(name)
        self.brain = brain
        self.existing = password is not None
        self.password = password if password is not None else secrets.token_urlsafe(18)
        self.accounts = accounts
        self.run = run
        self.client = Client(settings.url)
        self.token = token
        self._acted: dict[str, int] = {}
        self._hand_ended: dict[str, float] = {}
        self._last_sent = 0.0
        self._turn_at: dict[str, float] = {}
        self._hand_for_hand = False

    async def register(self) -> None:
        name = self.report.name
        if self.token is not None:  # signed in already (the benchmark's accounts)
            self.client.token, self.client.player = self.token, name
            await self.client.connect()
            await self.client.http("POST", f"/api/tournaments/{self.tournament}/register")
            return
        if not self.existing:
            await self.client.sign_up(name, self.password, exist_ok=False)
            if self.accounts is not None:
                self.accounts.add(name, self.password)
        await self.client.sign_in(name, self.password)
        await self.client.grant()
        await self.client.connect()  # before the start: the seat draw's ``moved`` reaches us
        await self.client.http("POST", f"/api/tournaments/{self.tournament}/register")

    async def play(self) -> None:
        try:
            for attempt in range(_RECONNECTS + 1):
                if attempt:  # the connection ended: connect again (the seat is resumed)
                    await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
                    with contextlib.suppress(ClientError):
                        await self.client.connect()
                    self.report.reconnects += 1
                with contextlib.suppress(ConnectionLost):
                    async for message in self.client.messages():
                        if await self._handle(message):
                            return
            self.report.problem = "the connection ended before the tournament did"
        except ClientError as error:
            self.report.problem = str(error)
        finally:
            await self.client.close()

    async def _pace(self) -> None:
        """At most ``_RATE`` messages a second: under the server's inbound rate limit."""
        now = time.monotonic()
        wait = self._last_sent + 1 / _RATE - now
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_sent = time.monotonic()

    async def _handle(self, message: dict[str, Any]) -> bool:
        kind = message.get("type")
        if kind == "tournament_result" and message.get("tournament") == self.tournament:
            self.report.place = int(message["place"])
            self.report.prize = int(message["prize"])
            self.run.entries = max(self.run.entries, int(message["entries"]))
            return True
        if kind == "tournament" and message.get("tournament") == self.tournament:
            self.run.entries = max(self.run.entries, int(message["entries"]))
            self._hand_for_hand = bool(message.get("hand_for_hand"))
            if message["state"] in ("finished", "cancelled"):
                self.run.state = message["state"]
                return message["you"]["place"] is None  # else its result follows
            return False
        table = message.get("table")
        if kind == "moved":
            self.report.moves += 1
            ended = self._hand_ended.get(str(message.get("from_table")))
            if ended is not None:
                move = (str(message["reason"]), time.monotonic() - ended)
                self.run.move_latencies.append(move)
                if self._hand_for_hand:
                    self.run.hand_for_hand_moves.append(move)
            return False
        if kind == "hand_result" and isinstance(table, str):
            self._hand_ended[table] = time.monotonic()
            if message.get("hand") is not None:
                self.run.hands.add((table, int(message["hand"])))
        if kind == "snapshot" and isinstance(table, str):
            self._acted.pop(table, None)  # a new view of the table: its turns count anew
        if kind == "event" and message.get("kind") == "timed_out" and isinstance(table, str):
            state = self.client.tables.get(table)
            if state is not None and message.get("seat") == state.you:
                self.report.timeouts += 1  # away (R-TOURN-6): back at once
                await self._pace()
                with contextlib.suppress(RequestRefused, RequestTimeout):
                    await self.client.request({"type": "sit_in", "table": table})
        if kind in ("turn", "snapshot") and isinstance(table, str):
            if kind == "turn" and message.get("legal") is not None:
                self._turn_at[table] = time.monotonic()
            await self._maybe_act(table)
        return False

    async def _maybe_act(self, table: str) -> None:
        state = self.client.tables.get(table)
        if state is None or not state.my_turn or self._acted.get(table) == state.turns:
            return
        turn = state.turns
        if self.settings.think > 0:
            await asyncio.sleep(self.settings.think)
        legal = state.legal_actions()
        if not state.my_turn or state.turns != turn or legal is None:
            return
        self._acted[table] = turn
        await self._pace()
        action = self.brain.choose(state.hand_view(), legal)
        self.report.actions += 1
        started = self._turn_at.pop(table, None)
        try:
            await self.client.act(table, action)
        except RequestRefused as refused:
            if refused.code == "illegal_action" and refused.legal is not None:
                options = legal_from_wire(refused.legal, legal.seat)
                fallback = Check() if options.check else Call() if options.call else Fold()
                await self._pace()
                with contextlib.suppress(RequestRefused):
                    await self.client.act(table, fallback)
        except RequestTimeout:
            return
        if started is not None:
            self.run.latencies.append(time.monotonic() - started)


async def run_tournament_bots(
    settings: BotSettings,
    tournament: str,
    tokens: dict[str, str] | None = None,
    limit: float | None = None,
) -> TournamentRun:
    """Register ``settings.count`` bots in ``tournament`` and play until each is out or the
    tournament ends. Raises ``ClientError`` (``HttpError``) when a registration is refused.
    ``tokens``: accounts signed in already (name -> session token), used instead of new ones.
    ``limit``: seconds after which the bots stop (the run's state is then ``timed out``)."""
    started = time.monotonic()
    rng = random.Random(settings.seed)
    run_id = f"{rng.getrandbits(32):08x}" if settings.seed is not None else secrets.token_hex(4)
    accounts = AccountFile(settings.accounts) if settings.accounts is not None else None
    known = list(accounts.accounts) if accounts is not None else []
    if tokens is not None:
        known = [(name, "") for name in tokens]
    run = TournamentRun(tournament, [], 0.0)
    players = [
        _Player(
            settings,
            tournament,
            known[k][0] if k < len(known) else f"{settings.prefix}.{run_id}.{k}",
            make_brain(settings.style, rng.getrandbits(64)),
            known[k][1] if k < len(known) else None,
            accounts,
            run,
            None if tokens is None or k >= len(known) else tokens[known[k][0]],
        )
        for k in range(settings.count)
    ]
    run.bots = [p.report for p in players]
    tasks: list[asyncio.Task[None]] = []
    try:
        for player in players:  # one by one: a sit-and-go starts with its last entry
            try:
                await player.register()
            except HttpError as error:
                for other in players:  # those registered already withdraw (refunded)
                    if other is player:
                        break
                    with contextlib.suppress(ClientError):
                        await other.client.http("DELETE", f"/api/tournaments/{tournament}/register")
                raise ClientError(
                    f"{player.report.name} cannot register in {tournament}: {error}"
                ) from None
            tasks.append(asyncio.create_task(player.play()))
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), limit)
        except TimeoutError:
            run.state = "timed out"
    finally:
        for task in tasks:
            task.cancel()
        for player in players:
            await player.client.close()
    if run.state == "running" and all(b.place is not None for b in run.bots):
        run.state = "finished"
    run.seconds = time.monotonic() - started
    return run


def main(settings: BotSettings, tournament: str) -> int:
    """``feltroom bots --tournament ID``: the summary line; exit 0 when every bot finished
    (or the tournament was cancelled) without a problem, 1 otherwise."""
    import sys

    try:
        run = asyncio.run(run_tournament_bots(settings, tournament))
    except ClientError as error:
        print(f"feltroom bots: {error}", file=sys.stderr)
        return 1
    print(run.summary(), flush=True)
    for bot in run.bots:
        if bot.problem is not None:
            print(f"feltroom bots: {bot.name}: {bot.problem}", file=sys.stderr)
    return 0 if run.ok else 1

"""Network bots: a team of bot players that sign up and play a room over its public protocol.

``feltroom bots --url URL --count N [--hands H] [--think SECONDS] [--style STYLE]`` runs
``run_bots``: N players, each with its own account (a unique name ``net.<run>.<k>``), its own
websocket (``feltroom.bots.client.Client``) and its own brain of the strategy layer
(``make_brain(style)``). The team reads the lobby, picks the running play-money tables with
free seats and fills them together (a bot never sits alone at an empty table while others can
join it; bots beyond the free seats join a waiting list and sit when a seat is offered). Each
bot buys in with the table's default buy-in (R-BUYIN-2; five times the minimum where a table
has no maximum, whose default is the whole wallet), posts its blinds, waits ``think``
seconds before each action and plays what its brain chooses from its own view and the legal
actions of its turn.

A bot copes with what a player meets: a ``blind_prompt`` is answered by posting, a
``seat_offer`` by sitting, a busted stack by leaving and buying in again (with a play-money
grant when the wallet is short), being sat out by sitting in, being stood up by sitting down
again, a lost connection by reconnecting with backoff (the room resumes the seats) and signing
in again when the token no longer works.

With ``--accounts FILE`` the team keeps its accounts in a JSON file (``{"accounts": [{"name",
"password"}, ...]}``, readable by its owner only): a later run signs in with the accounts made
before instead of signing up new ones (a room limits sign-ups per address), and adds the ones it
had to make.

When every bot has been dealt into ``hands`` hands (a bot that is done keeps playing so that its
table goes on, or gives its seat to a waiting team mate), or when ``stop`` is set (Ctrl-C), every
bot leaves its table (its stack goes back to its wallet) and closes its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import re
import secrets
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from feltroom.bots.client import (
    Client,
    ClientError,
    ConnectionLost,
    HttpError,
    RequestRefused,
    RequestTimeout,
    TableState,
    invite_secret,
    legal_from_wire,
)
from feltroom.errors import InvalidConfiguration
from feltroom.rules import Call, Check, Fold
from feltroom.strategy import STYLES, Brain, make_brain

__all__ = [
    "BotReport",
    "BotSettings",
    "RunReport",
    "invite_entry",
    "main",
    "plan_seats",
    "run_bots",
]

_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,15}")
_LEAVE_WAIT = 10.0
"""How long a leaving bot waits for its seat to be released (a hand in progress ends first)."""


@dataclass(frozen=True, slots=True)
class BotSettings:
    """What a run of network bots does: ``count`` bots at ``url``, each until it has been dealt
    ``hands`` hands (``None``: until stopped), ``think`` seconds before each action, brains of
    ``style`` (``random``, ``station`` or ``tag``). ``prefix`` starts the bots' names;
    ``seed`` makes the brains and names reproducible. ``accounts``: the file of accounts to
    reuse and to add new ones to (``None``: new accounts every run)."""

    url: str
    count: int
    hands: int | None = None
    think: float = 0.1
    style: str = "random"
    prefix: str = "net"
    seed: int | None = None
    accounts: str | None = None

    def __post_init__(self) -> None:
        if self.count < 1:
            raise InvalidConfiguration(f"count is the number of bots, at least 1, not {self.count}")
        if self.hands is not None and self.hands < 1:
            raise InvalidConfiguration(f"hands is at least 1 (or none: forever), not {self.hands}")
        if not (math.isfinite(self.think) and 0 <= self.think <= 60):
            raise InvalidConfiguration(f"think is 0..60 seconds, not {self.think}")
        if self.style not in STYLES:
            raise InvalidConfiguration(
                f"unknown bot style {self.style!r}; styles are {', '.join(STYLES)}"
            )
        if not _PREFIX.fullmatch(self.prefix):
            raise InvalidConfiguration(
                f"prefix {self.prefix!r} must be 1..16 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )


@dataclass(slots=True)
class BotReport:
    """How one bot's run went."""

    name: str
    hands: int = 0
    tables: list[str] = field(default_factory=list)
    actions: int = 0
    refused: int = 0
    rebuys: int = 0
    reconnects: int = 0
    problem: str | None = None


@dataclass(slots=True)
class RunReport:
    """How the team's run went: every bot, the distinct hands they were dealt into, whether it
    was stopped before the end, and how long it took."""

    bots: list[BotReport]
    hands: int
    stopped: bool
    seconds: float
    wanted: int | None

    @property
    def ok(self) -> bool:
        """No bot had a problem, and (unless stopped) each played the hands asked for."""
        if any(b.problem is not None for b in self.bots):
            return False
        return self.stopped or self.wanted is None or all(b.hands >= self.wanted for b in self.bots)

    def summary(self) -> str:
        """One line for people."""
        tables = sorted({t for b in self.bots for t in b.tables})
        least = min((b.hands for b in self.bots), default=0)
        how = "stopped" if self.stopped else "done"
        return (
            f"{how}: {len(self.bots)} bots were dealt {self.hands} hands (at least {least} each) "
            f"at {', '.join(tables) or 'no table'} in {self.seconds:.1f} s; "
            f"{sum(b.actions for b in self.bots)} actions, "
            f"{sum(b.refused for b in self.bots)} refused, "
            f"{sum(b.rebuys for b in self.bots)} rebuys, "
            f"{sum(b.reconnects for b in self.bots)} reconnects"
        )


def plan_seats(tables: list[dict[str, Any]], count: int) -> list[tuple[str, bool]]:
    """Where each of ``count`` bots goes, from the lobby's entries: ``(table, False)`` to sit
    there, ``(table, True)`` to join its waiting list. Running play-money tables with free seats
    are filled together, one after another (tables where people already sit first); a lone bot is
    not sent to an empty table while another table has players. Raises ``ClientError`` when no
    table fits."""
    usable = [
        t
        for t in tables
        if t.get("status") == "running" and t.get("currency") == "PLAY" and t.get("seats", 0) >= 2
    ]
    if not usable:
        raise ClientError("no running play-money table in the lobby; start the room with tables")
    usable.sort(key=lambda t: (-int(t.get("seats_taken", 0) > 0), -int(t.get("seats_free", 0))))
    plan: list[tuple[str, bool]] = []
    left = count
    for t in usable:
        free, taken = int(t.get("seats_free", 0)), int(t.get("seats_taken", 0))
        take = min(free, left)
        if take == 0 or (take + taken < 2 and plan):
            continue
        plan += [(str(t["id"]), False)] * take
        left -= take
        if left == 0:
            break
    waiting = str(usable[0]["id"])
    plan += [(waiting, True)] * left
    return plan


def invite_entry(game: dict[str, Any]) -> dict[str, Any]:
    """A home game's invite (``GET /api/invites/{secret}``) as the lobby entry of its table,
    for the bots and the terminal client that join by the link."""
    return {
        "id": game["table"],
        "name": game["name"],
        "seats": game["seats"],
        "currency": game["id"],
        "stakes": f"{game['small_blind']}/{game['big_blind']}",
        "status": "running",
        "settings": {"buy_in_min": game["min_buy_in"], "buy_in_max": game["max_buy_in"]},
    }


class _Team:
    """What the bots of one run share: the stop signal, who is done, who is waiting."""

    def __init__(self, count: int, stop: asyncio.Event) -> None:
        self.stop = stop
        self.count = count
        self.done: set[str] = set()
        self.waiting: set[str] = set()
        self.hands: set[tuple[str, int]] = set()
        self.handoffs = 0
        """Seats given up by bots that are done, not yet taken by a waiting team mate."""
        self.completed = False

    def finished(self, name: str) -> None:
        self.done.add(name)
        if len(self.done) >= self.count and not self.stop.is_set():
            self.completed = True
            self.stop.set()


class AccountFile:
    """The accounts of ``feltroom bots --accounts FILE``: read once, written again (atomically,
    owner-only) whenever a bot made a new account."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self.accounts: list[tuple[str, str]] = []
        if self.path.exists():
            self.accounts = self._read()

    def _read(self) -> list[tuple[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise InvalidConfiguration(
                f"cannot read the accounts file {self.path}: {error}"
            ) from None
        entries = data.get("accounts") if isinstance(data, dict) else None
        if not isinstance(entries, list) or not all(
            isinstance(e, dict)
            and isinstance(e.get("name"), str)
            and isinstance(e.get("password"), str)
            for e in entries
        ):
            raise InvalidConfiguration(
                f"the accounts file {self.path} must hold "
                '{"accounts": [{"name": "...", "password": "..."}, ...]}'
            )
        return [(str(e["name"]), str(e["password"])) for e in entries]

    def add(self, name: str, password: str) -> None:
        """Record a new account (the file is replaced whole: never half written)."""
        self.accounts.append((name, password))
        data = {"accounts": [{"name": n, "password": p} for n, p in self.accounts]}
        temporary = self.path.with_name(self.path.name + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
        os.replace(temporary, self.path)


class NetworkBot:
    """One bot player: its client, brain and place; ``run()`` plays until the team stops.
    ``password`` given: the account exists (``--accounts``) and is signed in to; otherwise a
    new one is made and, with ``accounts``, recorded there."""

    def __init__(
        self,
        settings: BotSettings,
        name: str,
        brain: Brain,
        place: tuple[str, bool],
        lobby: dict[str, dict[str, Any]],
        team: _Team,
        rng: random.Random,
        password: str | None = None,
        accounts: AccountFile | None = None,
    ) -> None:
        self.settings = settings
        self.name = name
        self.existing = password is not None
        self.password = password if password is not None else secrets.token_urlsafe(18)
        self.accounts = accounts
        self.brain = brain
        self.place = place
        self.lobby = lobby
        self.team = team
        self.rng = rng
        self.client = Client(settings.url, on_message=self._count)
        self.report = BotReport(name)
        self._acted: dict[str, int] = {}
        self._leaving = False
        self._retired = False
        self._asked: set[str] = set()  # home games' tables where a seat request waits

    # --- the life of a bot ---------------------------------------------------------------------

    async def run(self) -> BotReport:
        """Sign up, sit down, play until the team stops; then leave and close."""
        try:
            if not self.existing:
                await self.client.sign_up(self.name, self.password, exist_ok=False)
                if self.accounts is not None:
                    self.accounts.add(self.name, self.password)
            await self.client.sign_in(self.name, self.password)
            await self.client.grant()
            await self.client.connect()
            with contextlib.suppress(ConnectionLost, RequestTimeout):
                await self._join(*self.place)  # else joined on reconnecting
            while not self.team.stop.is_set():
                await self._play()
                if self.team.stop.is_set():
                    break
                await self._reconnect()
        except ClientError as error:
            # a bot that cannot go on stops the run: its team mates might otherwise wait for
            # ever at a table it left them alone at
            self.report.problem = str(error)
            self.team.stop.set()
        finally:
            await self._leave_all()
            await self.client.close()
        self.report.hands = self._hands()
        return self.report

    def _hands(self) -> int:
        return sum(state.hands_played for state in self.client.tables.values())

    async def _play(self) -> None:
        """Handle the server's messages until the connection ends or the team stops."""
        messages = self.client.messages().__aiter__()
        stopped = asyncio.ensure_future(self.team.stop.wait())
        try:
            while True:
                following = asyncio.ensure_future(anext(messages))
                done, _ = await asyncio.wait(
                    {following, stopped}, return_when=asyncio.FIRST_COMPLETED
                )
                if following not in done:
                    following.cancel()
                    return
                try:
                    message = following.result()
                except StopAsyncIteration:
                    return
                try:
                    await self._handle(message)
                except (RequestRefused, RequestTimeout):
                    self.report.refused += 1  # the table's next messages tell what happened
                except ConnectionLost:
                    return  # the connection ended while a request waited: reconnect
        finally:
            stopped.cancel()

    async def _reconnect(self) -> None:
        """Connect again (resuming the seats), backing off; sign in again if need be."""
        delay = 0.1
        while not self.team.stop.is_set():
            try:
                welcome = await self.client.connect()
                self.report.reconnects += 1
                if not welcome["seats"] and not self._retired and not self._waiting():
                    await self._join(self.place[0], False)
                return
            except ConnectionLost:  # the hello refused (token gone), or the server went away
                with contextlib.suppress(ClientError):
                    await self.client.sign_in(self.name, self.password)
            except ClientError:
                pass
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)

    # --- messages -------------------------------------------------------------------------------

    async def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "game_request":  # a home game's host answered
            self._asked.discard(f"home-{message.get('game')}")
            return
        table = message.get("table")
        if not isinstance(table, str):
            return
        state = self.client.tables.get(table)
        if kind == "snapshot" and state is not None:
            self._acted.pop(table, None)
            mine = state.my_seat
            if mine is not None and mine.sitting_out and not self._leaving:
                await self._come_back(table, state)
        if kind in ("turn", "snapshot") and state is not None:
            await self._maybe_act(table, state)
        elif kind == "blind_prompt":
            await self.client.post_blind(table)
        elif kind == "seat_offer" and not self._leaving and not self._seated():
            await self.client.sit(table, int(message["seat"]), buy_in=self._buy_in(table))
            if self.name in self.team.waiting:
                self.team.waiting.discard(self.name)
                self.team.handoffs = max(0, self.team.handoffs - 1)
            self._note_table(table)
        elif kind == "hand_result" and state is not None:
            await self._hand_over(table, state, message)
        elif kind == "event" and state is not None:
            await self._event(table, state, message)

    async def _event(self, table: str, state: TableState, message: dict[str, Any]) -> None:
        event = message.get("kind")
        if self._leaving:
            return
        if event == "sat_out" and message.get("seat") == state.you:
            await self._come_back(table, state)
        elif (
            event == "seat_released"
            and message.get("account") == self.name
            and not self._retired
            and not self._seated()
        ):
            await self._join(table, False)  # stood up (R-SIT-2): sit down again

    def _count(self, message: dict[str, Any]) -> None:
        """Called as each message arrives, right after the table state took it in: the hands
        the bot was dealt into, for the team's count of distinct hands."""
        if message.get("type") != "hand_result" or message.get("hand") is None:
            return
        table = str(message.get("table"))
        state = self.client.tables.get(table)
        if state is not None and state.last_played == message["hand"]:
            self.team.hands.add((table, int(message["hand"])))

    async def _hand_over(self, table: str, state: TableState, message: dict[str, Any]) -> None:
        wanted = self.settings.hands
        if wanted is not None and self._hands() >= wanted and self.name not in self.team.done:
            self.team.finished(self.name)
        team = self.team
        full = len(state.seats) >= self._seat_count(table)
        if (
            self.name in team.done
            and full  # with a free seat the team mate sits there: the table needs this bot
            and team.handoffs < len(team.waiting)
            and state.you is not None
        ):
            self._retired = True  # done: give the seat to a team mate on the waiting list
            team.handoffs += 1
            await self.client.leave(table)

    async def _maybe_act(self, table: str, state: TableState) -> None:
        if not state.my_turn or self._acted.get(table) == state.turns:
            return
        turn = state.turns
        if self.settings.think > 0:
            await asyncio.sleep(self.settings.think)
        legal = state.legal_actions()
        if not state.my_turn or state.turns != turn or legal is None:
            return
        self._acted[table] = turn
        action = self.brain.choose(state.hand_view(), legal)
        self.report.actions += 1
        try:
            await self.client.act(table, action)
        except RequestRefused as refused:
            self.report.refused += 1
            if refused.code == "illegal_action" and refused.legal is not None:
                options = legal_from_wire(refused.legal, legal.seat)
                fallback = Check() if options.check else Call() if options.call else Fold()
                with contextlib.suppress(RequestRefused):
                    await self.client.act(table, fallback)

    # --- seats ----------------------------------------------------------------------------------

    def _waiting(self) -> bool:
        return self.name in self.team.waiting

    def _seated(self) -> bool:
        return any(state.you is not None for state in self.client.tables.values())

    def _note_table(self, table: str) -> None:
        if table not in self.report.tables:
            self.report.tables.append(table)

    async def _join(self, table: str, wait: bool) -> None:
        """Sit at ``table`` at a free seat (or join its waiting list when ``wait`` or full).
        At a home game's table the seat may be a request its host answers: asked once, the bot
        waits for the answer (``game_request``)."""
        if table in self._asked:
            return
        state = self.client.tables.get(table)
        if state is None or state.you is None:
            with contextlib.suppress(RequestRefused):
                await self.client.observe(table)
        state = self.client.tables.setdefault(table, TableState(table))
        if wait:
            await self._wait_list(table)
            return
        seats = self._seat_count(table)
        last: RequestRefused | None = None
        buy_in = self._buy_in(table)
        for attempt in range(3 * seats):
            free = [s for s in range(1, seats + 1) if s not in state.seats]
            if not free:
                break
            seat = free[self.rng.randrange(len(free))]
            try:
                reply = await self.client.sit(table, seat, buy_in=buy_in)
                if reply.get("pending"):
                    self._asked.add(table)  # a home game's seat request
            except RequestRefused as refused:
                last = refused
                if refused.code not in ("refused", "illegal_action"):
                    raise
                if buy_in is not None:
                    buy_in = None  # the wallet may hold less: the default, all of it, then
                else:
                    await self._top_up()  # short of the minimum (or the seat went): a grant
                await asyncio.sleep(0.02 * (attempt + 1))
                continue
            self._note_table(table)
            self.team.waiting.discard(self.name)  # seated: no longer waiting for a seat
            return
        else:
            if last is not None:  # seats were free and every try was refused: no use waiting
                raise ClientError(f"{self.name} cannot sit at {table}: {last}")
        await self._wait_list(table)

    def _seat_count(self, table: str) -> int:
        return int(self.lobby.get(table, {}).get("seats", 10))

    def _buy_in(self, table: str) -> int | None:
        """The table's default buy-in (R-BUYIN-2), except at a table without a maximum (Limit),
        where the default is the whole wallet: there five times the minimum, so that one bad
        run does not lose the bot every chip it has."""
        settings = self.lobby.get(table, {}).get("settings", {})
        low, high = settings.get("buy_in_min"), settings.get("buy_in_max")  # as in effect
        if high is None and isinstance(low, int):
            return 5 * low
        return None

    async def _wait_list(self, table: str) -> None:
        self.team.waiting.add(self.name)
        with contextlib.suppress(RequestRefused):
            await self.client.wait_list(table)

    async def _top_up(self) -> None:
        """Ask for play chips; a bot that gets none and cannot buy in has a problem."""
        try:
            granted = await self.client.grant()
        except HttpError as error:
            raise ClientError(f"{self.name} cannot get play chips: {error}") from None
        if granted is None:
            balances = await self.client.balances()
            if balances.get("PLAY", "0") in ("0", "0.00"):
                raise ClientError(f"{self.name} is out of play chips until the next grant")

    async def _come_back(self, table: str, state: TableState) -> None:
        """Sat out (busted, timed out, restored, ...): buy in again if busted, else sit in."""
        mine = state.my_seat
        if mine is None:
            return
        if mine.stack > 0:
            with contextlib.suppress(RequestRefused):
                await self.client.sit_in(table)
            return
        self.report.rebuys += 1
        with contextlib.suppress(RequestRefused):
            await self.client.leave(table)
        await self._wait_released(table)
        await self._join(table, False)

    async def _wait_released(self, table: str) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + _LEAVE_WAIT
        state = self.client.tables.get(table)
        while state is not None and state.you is not None and loop.time() < end:
            if not self.client.connected:
                return
            await asyncio.sleep(0.02)

    async def _leave_all(self) -> None:
        """Leave every table where the bot sits and wait for the seats to be released."""
        self._leaving = True
        if not self.client.connected:
            return
        for table, state in list(self.client.tables.items()):
            if state.you is None:
                continue
            try:
                await self.client.leave(table)
            except ClientError:
                continue
            await self._wait_released(table)
        if self.name in self.team.waiting:
            for table in list(self.client.tables):
                with contextlib.suppress(ClientError):
                    await self.client.request({"type": "wait_list_leave", "table": table})


async def run_bots(
    settings: BotSettings,
    stop: asyncio.Event | None = None,
    *,
    log: Callable[[str], None] | None = None,
) -> RunReport:
    """Run the team until each bot was dealt ``settings.hands`` hands or ``stop`` is set; every
    bot leaves its table before this returns. Raises ``ClientError`` when the lobby cannot be
    read or offers no table."""
    started = time.monotonic()
    stop = stop if stop is not None else asyncio.Event()
    rng = random.Random(settings.seed)
    lobby_client = Client(settings.url)
    secret = invite_secret(settings.url)
    if secret is not None:  # a home game's link: every bot asks its host for a seat there
        entries = [invite_entry(await lobby_client.invite(secret))]
        lobby = {str(t["id"]): t for t in entries}
        if settings.count > entries[0]["seats"]:
            raise ClientError(
                f"the game has {entries[0]['seats']} seats; run at most that many bots there"
            )
        plan = [(str(entries[0]["id"]), False)] * settings.count
    else:
        entries = await lobby_client.lobby_tables()
        lobby = {str(t["id"]): t for t in entries}
        plan = plan_seats(entries, settings.count)
    run = f"{rng.getrandbits(32):08x}" if settings.seed is not None else secrets.token_hex(4)
    team = _Team(settings.count, stop)
    accounts = AccountFile(settings.accounts) if settings.accounts is not None else None
    known = list(accounts.accounts) if accounts is not None else []
    bots = [
        NetworkBot(
            settings,
            known[k][0] if k < len(known) else f"{settings.prefix}.{run}.{k}",
            make_brain(settings.style, rng.getrandbits(64)),
            plan[k],
            lobby,
            team,
            random.Random(rng.getrandbits(64)),
            known[k][1] if k < len(known) else None,
            accounts,
        )
        for k in range(settings.count)
    ]
    if log is not None:
        places = sorted({table for table, _ in plan})
        log(f"{settings.count} {settings.style} bots ({bots[0].name}...) to {', '.join(places)}")
    reports = await asyncio.gather(*(bot.run() for bot in bots))
    seconds = time.monotonic() - started
    return RunReport(list(reports), len(team.hands), not team.completed, seconds, settings.hands)


def main(settings: BotSettings, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the team from the command line: Ctrl-C (or SIGTERM) stops it cleanly (every bot
    leaves its table). Exit 0 when every bot played its hands or the run was stopped without a
    problem, 1 otherwise."""

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr

    async def go() -> RunReport:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        return await run_bots(settings, stop, log=lambda line: print(line, file=out, flush=True))

    try:
        report = asyncio.run(go())
    except (ClientError, InvalidConfiguration) as error:
        print(f"feltroom bots: {error}", file=err)
        return 1
    print(report.summary(), file=out)
    for bot in report.bots:
        if bot.problem is not None:
            print(f"feltroom bots: {bot.name}: {bot.problem}", file=err)
    return 0 if report.ok else 1

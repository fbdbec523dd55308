"""The ACPC bridge: one bot written for the ACPC dealer protocol (2.0.0) plays a seat in the room.

``feltroom acpc --url URL --port P --account NAME --table ID [--game GAMEDEF]`` runs ``Bridge``:

1. It signs in as the account (the password from ``FELTROOM_PASSWORD``) and reads the table's
   settings from the lobby. The table must play the game definition (``--game``; without it the
   definition is the table's own, ``game_for_table``) and reset stacks every hand, as ACPC bots
   assume: ``table_problems`` lists every setting that does not fit, and the bridge refuses such a
   table with all of them before it listens.
2. It listens on ``127.0.0.1:P`` for one bot, which says ``VERSION:2.0.0`` first, then sits at
   the table with the definition's stack (posting blinds automatically, with auto-muck off from
   the first deal: its cards are shown at a showdown as the ACPC dealer shows everyone's). Its
   requests keep under the rate limit the room announces in ``welcome`` (``Pace``), and an
   action refused for the rate is sent again.
3. For each hand it is dealt it sends the bot a ``MATCHSTATE`` line whenever a player is to act
   and when the hand is over, built from the room's messages (``HandTrack``); when it is the bot's
   turn it waits for the answer (``<state>:<action>``) until the turn's deadline and plays it as
   the ACPC dealer plays it (``room_action``): what it cannot read is a call, a fold when
   checking is free checks, a raise that is not possible (the cap, ``MAX_NUM_ACTIONS``) calls, a
   raise size out of range becomes the nearest legal one. Every line sent is one the dealer's
   reader reads: a fold the room made where checking was free is shown as ``c``. A hand that
   does not fit the definition (fewer players dealt, an entering player's post, a stack that
   could not be reset) is not shown to the bot: the bridge checks or folds it.

It ends when the bot closes its connection (or resets it, or sends a line over 64 KiB), after
``hands`` hands, or when stopped; it then leaves the table (the stack goes back to the wallet),
closes both connections and reports why (``BridgeReport.ended``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from feltroom.bots.client import (
    Client,
    ClientError,
    HttpError,
    RequestRefused,
    legal_from_wire,
)
from feltroom.cards import Card
from feltroom.errors import FeltroomError
from feltroom.history.acpc import (
    MAX_NUM_ACTIONS,
    PROTOCOL_VERSION,
    GameDef,
    MatchState,
    hand_from_state,
    read_answer,
)
from feltroom.rules import Action, Call, Check, Fold, LegalActions, RaiseTo

__all__ = [
    "Bridge",
    "BridgeError",
    "BridgeReport",
    "BridgeSettings",
    "HandTrack",
    "game_for_table",
    "room_action",
    "table_problems",
]

log = logging.getLogger("feltroom.acpc")

Message = dict[str, Any]


class BridgeError(FeltroomError):
    """The bridge cannot play: a table that does not fit, a bot that does not speak ACPC 2.0.0,
    a room that refuses; the message says what and why."""


class _BotEnded(Exception):
    """The bot's side ended the match (a line too long, a connection reset): why."""


BOT_LINE_LIMIT = 64 * 1024
"""The longest line the bridge reads from its bot (the reference dealer's lines are far
shorter); a longer one ends the match."""


class Pace:
    """Keeps the bridge's requests under the room's inbound rate limit (``welcome``'s
    ``limits``: ``rate`` a second, bursts of ``burst``), with a margin, so that the room never
    refuses an action of the bot's for the room's own limit."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0) -> None:
        self.rate = max(1.0, 0.9 * rate)
        self.burst = max(1.0, 0.75 * burst)
        self.tokens = self.burst
        self.at = time.monotonic()

    @classmethod
    def of(cls, welcome: Mapping[str, Any] | None) -> Pace:
        limits = (welcome or {}).get("limits") or {}
        return cls(float(limits.get("rate", 20.0)), float(limits.get("burst", 40.0)))

    async def wait(self) -> None:
        """Wait until one more request stays under the limit, and count it."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            await asyncio.sleep((1.0 - self.tokens) / self.rate)
            self.tokens, self.at = 1.0, time.monotonic()
        self.tokens -= 1.0


# ------------------------------------------------------------------------------ the table's fit


def game_for_table(settings: Mapping[str, Any]) -> GameDef:
    """The ACPC game definition a table plays (its settings as the lobby lists them): Limit or
    No-Limit Hold'em for its seats, its blinds, its bets, its one buy-in as the stack."""
    seats = settings.get("max_seats")
    structure = settings.get("structure")
    if seats not in (2, 3):
        raise BridgeError(f"the table has {seats} seats; the bridge plays heads-up and 3-player")
    if structure not in ("fixed_limit", "no_limit"):
        raise BridgeError(f"the table plays {structure}; ACPC games are Limit or No-Limit")
    small, big = int(settings["small_blind_amount"]), int(settings["big_blind_amount"])
    blind = (big, small) if seats == 2 else (small, big, 0)
    first = (2, 1, 1, 1) if seats == 2 else (3, 1, 1, 1)
    board = (0, 3, 1, 1)
    if structure == "fixed_limit":
        upper = settings.get("upper") or 2 * big
        cap = int(settings.get("max_bets_per_round", 4))
        return GameDef(
            "limit",
            seats,
            4,
            blind,
            first,
            board,
            raise_size=(big, big, upper, upper),
            max_raises=(cap - 1, cap, cap, cap),
        )
    return GameDef(
        "nolimit", seats, 4, blind, first, board, stack=(settings["buy_in_min"],) * seats
    )


def table_problems(game: GameDef, settings: Mapping[str, Any], house_bots: int = 0) -> list[str]:
    """Every setting of the table (as the lobby lists them) that does not fit ``game``, each
    saying what would; empty when the bridge can play there. ``house_bots``: the house bots the
    lobby lists at the table (a bridge table has none: only bridged bots play, under the
    dealer's rules)."""
    problem = game.holdem_problem()
    if problem is not None:
        return [f"the game definition: {problem}"]
    problems: list[str] = []

    def want(name: str, value: object, expected: object) -> None:
        if value != expected:
            problems.append(f"{name} is {value!r}; the game needs {expected!r}")

    want("reset_stacks", settings.get("reset_stacks", False), True)
    want("money", settings.get("money"), "play")
    want("max_seats", settings.get("max_seats"), game.num_players)
    want("small blind", settings.get("small_blind_amount"), game.small_blind)
    want("big blind", settings.get("big_blind_amount"), game.big_blind)
    want("timeout_action", settings.get("timeout_action"), "check_or_fold")
    want("house bots", house_bots, 0)
    for name in sorted(settings):
        if ("straddle" in name or "run_it" in name) and settings[name]:
            problems.append(f"{name} is {settings[name]!r}; an ACPC game has none")
    low, high = settings.get("buy_in_min"), settings.get("buy_in_max")
    if game.limit:
        assert game.raise_size is not None
        want("structure", settings.get("structure"), "fixed_limit")
        upper = settings.get("upper") or 2 * int(settings.get("lower") or 0)
        want("upper (the big bet)", upper, game.raise_size[2])
        want("max_bets_per_round", settings.get("max_bets_per_round"), game.bets_per_round)
        want("uncapped_heads_up", settings.get("uncapped_heads_up"), False)
        if not isinstance(low, int) or low < game.hand_cost():
            problems.append(
                f"the buy-in is {low!r}; a Limit game needs at least {game.hand_cost()}, the "
                "most one hand can cost, so that nobody is ever all-in"
            )
    else:
        assert game.stack is not None
        want("structure", settings.get("structure"), "no_limit")
        want("buy-in", (low, high), (game.stack[0], game.stack[0]))
    return problems


# ------------------------------------------------------------------------------ one hand


@dataclass
class HandTrack:
    """One hand the bridge's seat was dealt, in ACPC terms, from the room's messages: the seats
    by position (clockwise from the button's left: the ACPC order), the betting per round, the
    cards known. ``fits``: the hand is one of the game definition's."""

    seats: list[int]
    me: int
    fits: bool
    limit: bool
    rounds: list[list[str]] = field(default_factory=lambda: [[]])
    holes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    board: list[tuple[str, ...]] = field(default_factory=list)
    spent: dict[int, int] = field(default_factory=dict)
    bets: dict[int, int] = field(default_factory=dict)
    shown_as_call: bool = False
    """A seat folded where checking was free (a seat leaving mid-hand): shown as ``c``, as the
    dealer fixes such a fold; the lines after it are checked on the engine before they go."""

    @classmethod
    def start(
        cls, game: GameDef, message: Message, stacks: Mapping[int, int], me: int
    ) -> HandTrack:
        """From a ``hand_started`` event (``stacks``: the seats' stacks at the deal)."""
        seats = [int(s) for s in message.get("dealt", [])]
        forced = sorted(
            (int(f["seat"]), str(f["kind"]), int(f["amount"])) for f in message.get("forced", [])
        )
        fits = len(seats) == game.num_players and me in seats
        if fits:
            if len(seats) == 2:
                usual = [(seats[1], "small_blind", game.small_blind)]
                usual.append((seats[0], "big_blind", game.big_blind))
            else:
                usual = [(seats[0], "small_blind", game.small_blind)]
                usual.append((seats[1], "big_blind", game.big_blind))
            fits = forced == sorted(usual)
            need = game.hand_cost()
            if game.limit:
                fits = fits and all(stacks.get(s, 0) >= need for s in seats)
            else:
                fits = fits and all(stacks.get(s) == need for s in seats)
        track = cls(seats, seats.index(me) if me in seats else -1, fits, game.limit)
        track.spent = dict.fromkeys(seats, 0)
        track.bets = dict.fromkeys(seats, 0)
        return track

    def take(self, message: Message) -> None:
        """Take in one of the hand's messages."""
        kind = message.get("kind") if message.get("type") == "event" else message.get("type")
        seat = message.get("seat")
        if kind == "hole_cards" and seat in self.seats:
            self.holes[self.seats.index(seat)] = tuple(message["cards"])
        elif kind == "posted" and seat in self.bets:
            if message.get("forced") not in ("ante", "dead"):
                self.bets[seat] += int(message["amount"])
        elif kind in ("checked", "called", "folded", "raised") and seat in self.bets:
            token = "f" if kind == "folded" else "c"
            if kind == "folded" and self.bets[seat] >= max(self.bets.values()):
                token = "c"  # the dealer's fix: a fold where checking was free is a call
                self.shown_as_call = True
            if kind == "called":
                self.bets[seat] += int(message["amount"])
            elif kind == "raised":
                to = int(message["to"])
                self.bets[seat] = to
                token = "r" if self.limit else f"r{self.spent[seat] + to}"
            self.rounds[-1].append(token)
        elif kind == "board_dealt":
            for s in self.seats:
                self.spent[s] += self.bets[s]
                self.bets[s] = 0
            self.rounds.append([])
            self.board.append(tuple(message.get("cards", [])))
        elif kind == "cards_shown" and seat in self.seats:
            self.holes[self.seats.index(seat)] = tuple(message["cards"])

    def state(self, number: int) -> MatchState:
        """The ACPC line for the bridge's seat: hand ``number``, the betting, the cards known."""
        holes = tuple(_cards(self.holes.get(p, ())) for p in range(len(self.seats)))
        return MatchState(
            self.me,
            number,
            tuple(tuple(r) for r in self.rounds),
            holes,
            tuple(_cards(b) for b in self.board),
        )

    def line(self, game: GameDef, number: int) -> str | None:
        """The line to send for hand ``number``, or ``None`` when the reference dealer's reader
        would not read it (only possible after a fold shown as a call: the room's betting goes
        on without that seat). The hand is then no longer shown to the bot."""
        state = self.state(number)
        if self.shown_as_call:
            try:
                hand_from_state(game, state)
            except FeltroomError:
                self.fits = False
                return None
        return str(state)


def _cards(texts: tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)


def room_action(
    game: GameDef, token: str, legal: LegalActions, spent: int, actions: int = 0
) -> tuple[Action, str | None]:
    """The room's action for a bot's ACPC action text ``token`` at a turn with ``legal`` options
    (``spent``: the seat's chips in earlier rounds, for No-Limit totals; ``actions``: the
    actions of the betting round so far), and what was fixed (``None``: nothing), as the
    reference dealer plays every answer it accepts: what it cannot read (``x``, nothing, a
    No-Limit ``r`` without a size) is a call, a fold when checking is free a check, a raise when
    no raise is possible (the cap, or the round's actions plus the players over
    ``MAX_NUM_ACTIONS``) a check or call, a size out of range the nearest legal one."""
    letter, amount, readable = read_answer(game, token)
    passive: Action = Check() if legal.check else Call()
    said = "checked" if legal.check else "called"
    if not readable:
        return passive, f"{token!r} is not an action the dealer reads: {said}"
    if letter == "f":
        if legal.fold:
            return Fold(), None
        return Check(), "a fold when checking is free: checked"
    if letter == "c":
        return passive, None
    low, high = legal.raise_min, legal.raise_max
    if low is None or high is None:
        return passive, f"{token}: no raise is possible here: {said}"
    if actions + game.num_players > MAX_NUM_ACTIONS:
        return passive, f"{token}: the round has {actions} actions, too many to raise: {said}"
    if game.limit or amount is None:
        return RaiseTo(low), None
    to = amount - spent
    if to < low:
        return RaiseTo(low), f"{token} is below the minimum raise to {low + spent}"
    if to > high:
        return RaiseTo(high), f"{token} is above the maximum raise to {high + spent}"
    return RaiseTo(to), None


# ------------------------------------------------------------------------------ the bridge


@dataclass(frozen=True, slots=True)
class BridgeSettings:
    """What ``feltroom acpc`` is told: the room, the port to listen on, the account and its
    password, the table, the game definition (``None``: the table's own), how many hands
    shown to the bot (``None``: until the bot leaves) and the address to listen on."""

    url: str
    port: int
    account: str
    password: str
    table: str
    game: GameDef | None = None
    hands: int | None = None
    host: str = "127.0.0.1"


@dataclass
class BridgeReport:
    """What the bridge did: the hands the bot played, the hands the bridge played for it (not
    of the game definition), the bot's actions played, those fixed, why it stopped."""

    hands: int = 0
    skipped: int = 0
    actions: int = 0
    fixed: int = 0
    ended: str = ""

    def line(self) -> str:
        return (
            f"done: the bot played {self.hands} hands ({self.skipped} not of the game "
            f"definition, played by the bridge); {self.actions} actions, {self.fixed} fixed; "
            f"{self.ended}"
        )


class Bridge:
    """One bot, one seat (see the module docstring). ``listening`` is called with the port
    once the bridge listens (``port`` 0 picks a free one)."""

    def __init__(
        self, settings: BridgeSettings, *, listening: Callable[[int], None] | None = None
    ) -> None:
        self.settings = settings
        self.listening = listening
        self.client = Client(settings.url, on_message=self._seen)
        # the stacks at each deal, by hand id: read as the client takes the hand_started in
        # (the table state is ahead of the messages the bridge reads)
        self._deal_stacks: dict[object, dict[int, int]] = {}
        self.report = BridgeReport()
        self.game: GameDef | None = settings.game
        self._seat: int | None = None
        self._bot_taken = False
        self.pace = Pace()

    def _seen(self, message: Message) -> None:
        if message.get("kind") == "hand_started" and message.get("table") == self.settings.table:
            state = self.client.tables.get(self.settings.table)
            if state is not None:
                stacks = {n: seat.stack for n, seat in state.seats.items()}
                self._deal_stacks[message.get("hand")] = stacks
                while len(self._deal_stacks) > 16:  # hands the bridge has long read
                    del self._deal_stacks[next(iter(self._deal_stacks))]

    async def run(self, stop: asyncio.Event | None = None) -> BridgeReport:
        """Check the table, wait for the bot, play until the bot leaves, ``hands`` hands, or
        ``stop``; ``BridgeError`` when it cannot start."""
        s = self.settings
        client = self.client
        try:
            await client.sign_in(s.account, s.password)
        except (HttpError, ClientError) as error:
            raise BridgeError(f"cannot sign in to {s.url} as {s.account}: {error}") from None
        game, table_settings = await self._check_table()
        self.game = game
        await self._check_wallet(int(table_settings["buy_in_min"]))
        connected: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.Queue()
        )

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if not self._bot_taken:
                self._bot_taken = True
                await connected.put((reader, writer))
            else:  # one bot only
                writer.close()

        server = await asyncio.start_server(accept, s.host, s.port, limit=BOT_LINE_LIMIT)
        port = server.sockets[0].getsockname()[1]
        log.info("listening for an ACPC bot on %s:%d", s.host, port)
        if self.listening is not None:
            self.listening(port)
        try:
            waiter = asyncio.ensure_future(connected.get())
            stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
            done, _ = await asyncio.wait(
                [w for w in (waiter, stopper) if w is not None],
                return_when=asyncio.FIRST_COMPLETED,
            )
            if waiter not in done:
                waiter.cancel()
                self.report.ended = "stopped before a bot came"
                return self.report
            if stopper is not None:
                stopper.cancel()
            reader, writer = waiter.result()
            try:
                await self._handshake(reader)
                await self._play(reader, writer, table_settings, stop)
            except _BotEnded as ended:
                self.report.ended = str(ended)
            finally:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
        finally:
            server.close()
            await server.wait_closed()
            await self._leave()
        return self.report

    async def _check_table(self) -> tuple[GameDef, Mapping[str, Any]]:
        s = self.settings
        try:
            tables = await self.client.lobby_tables()
        except ClientError as error:
            raise BridgeError(f"cannot read the lobby of {s.url}: {error}") from None
        entry = next((t for t in tables if t.get("id") == s.table), None)
        if entry is None:
            names = ", ".join(str(t.get("id")) for t in tables) or "none"
            raise BridgeError(f"no table {s.table!r} at {s.url}; tables are {names}")
        settings: Mapping[str, Any] = entry.get("settings", {})
        try:
            game = s.game if s.game is not None else game_for_table(settings)
        except BridgeError as error:
            raise BridgeError(f"table {s.table} is not an ACPC table: {error}") from None
        problems = table_problems(game, settings, int(entry.get("house_bots") or 0))
        if problems:
            raise BridgeError(
                f"table {s.table} does not fit the game definition: " + "; ".join(problems)
            )
        return game, settings

    async def _handshake(self, reader: asyncio.StreamReader) -> None:
        while True:
            line = (await _read_line(reader)).decode("ascii", "replace").strip()
            if not line:
                if reader.at_eof():
                    raise BridgeError("the bot left before it said VERSION:2.0.0")
                continue
            if line.startswith(("#", ";")):
                continue
            major = line.split(":", 1)[-1].split(".", 1)[0] if line.startswith("VERSION:") else ""
            if major != "2":
                raise BridgeError(f"the bot said {line!r}; the bridge speaks {PROTOCOL_VERSION}")
            return

    async def _play_chips(self) -> int:
        balances = await self.client.balances()
        return int(str(balances.get("PLAY", "0")))

    async def _check_wallet(self, buy_in: int) -> None:
        """Refuse to start (before listening) when the wallet cannot pay the table's buy-in,
        after taking the hourly grant of play chips if it is due."""
        held = await self._play_chips()
        if held < buy_in:
            with contextlib.suppress(ClientError):
                await self.client.grant()
            held = await self._play_chips()
        if held < buy_in:
            raise BridgeError(
                f"{self.settings.account} holds {held} play chips; the table's buy-in is "
                f"{buy_in} (the room's operator can add chips: feltroom cashier deposit)"
            )

    async def _sit(self, settings: Mapping[str, Any]) -> None:
        s = self.settings
        client = self.client
        buy_in = int(settings["buy_in_min"])
        welcome = await client.connect()
        self.pace = Pace.of(welcome)
        await client.observe(s.table)
        last: Exception | None = None
        for seat in range(1, int(settings["max_seats"]) + 1):
            try:
                await client.sit(s.table, seat, buy_in=buy_in, auto_post=True, auto_muck=False)
            except RequestRefused as error:
                last = error
                continue
            self._seat = seat
            return
        raise BridgeError(f"cannot sit at table {s.table}: {last}")

    async def _play(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        settings: Mapping[str, Any],
        stop: asyncio.Event | None,
    ) -> None:
        s = self.settings
        game = self.game
        assert game is not None
        await self._sit(settings)
        client = self.client
        track: HandTrack | None = None
        report = self.report
        messages = client.messages()
        bot_gone = asyncio.ensure_future(self._eof(reader))
        stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
        try:
            while True:
                getter = asyncio.ensure_future(anext(messages))
                waits = [w for w in (getter, bot_gone, stopper) if w is not None]
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    report.ended = "the bot left" if bot_gone.done() else "stopped"
                    return
                try:
                    message = getter.result()
                except StopAsyncIteration:
                    report.ended = "the room closed the connection"
                    return
                if message.get("table") != s.table:
                    continue
                state = client.tables[s.table]
                me = state.you
                kind = message.get("kind") if message.get("type") == "event" else None
                if kind == "hand_started" and me is not None and me in message.get("dealt", []):
                    stacks = self._deal_stacks.pop(message.get("hand"), {})
                    track = HandTrack.start(game, message, stacks, me)
                    continue
                if kind == "seat_released" and message.get("account") == s.account:
                    report.ended = "the room released the seat"
                    self._seat = None
                    return
                if kind == "sat_out" and message.get("seat") == me:
                    await self._sit_in(int(settings["buy_in_min"]))
                    continue
                if track is None:
                    continue
                track.take(message)
                sent: str | None = None
                if message.get("type") == "turn" and track.fits:
                    sent = track.line(game, report.hands)
                    if sent is not None:
                        await _write_line(writer, sent)
                wire_legal = message.get("legal")
                if (
                    message.get("type") == "turn"
                    and me is not None
                    and message.get("seat") == me
                    and wire_legal
                ):
                    legal = legal_from_wire(wire_legal, me)
                    if track.fits and sent is not None:
                        await self._bot_turn(reader, track, sent, legal, message)
                    else:
                        await self._act(Check() if legal.check else Fold())
                if kind == "hand_ended":
                    last = track.line(game, report.hands) if track.fits else None
                    if last is not None:
                        await _write_line(writer, last)
                        report.hands += 1
                    else:
                        report.skipped += 1
                    track = None
                    if s.hands is not None and report.hands >= s.hands:
                        report.ended = f"{report.hands} hands played"
                        return
        finally:
            for task in (bot_gone, stopper):
                if task is not None:
                    task.cancel()

    async def _eof(self, reader: asyncio.StreamReader) -> None:
        """Wait until the bot closes its connection (lines are read elsewhere)."""
        while not reader.at_eof():
            await asyncio.sleep(0.05)

    async def _bot_turn(
        self,
        reader: asyncio.StreamReader,
        track: HandTrack,
        expected: str,
        legal: LegalActions,
        message: Message,
    ) -> None:
        """Wait for the bot's answer to ``expected`` (the line sent) until the turn's deadline
        and play it as the reference dealer would (``room_action``)."""
        game = self.game
        assert game is not None
        deadline = message.get("deadline")
        prefix = expected + ":"
        while True:
            left = (float(deadline) - time.time()) if deadline is not None else 3600.0
            if left <= 0:
                log.warning("the bot did not answer in time; the room's clock acts")
                return
            try:
                raw = await asyncio.wait_for(_read_line(reader), left)
            except TimeoutError:
                log.warning("the bot did not answer in time; the room's clock acts")
                return
            if not raw:
                return  # the bot left
            line = raw.decode("ascii", "replace").rstrip("\r\n")
            if not line.strip() or line.startswith(("#", ";")):
                continue
            if not line.startswith(prefix):
                log.warning("ignored an answer to another state: %.200s", line)
                continue
            token = line[len(prefix) :]
            seat = track.seats[track.me]
            actions = len(track.rounds[-1])
            action, fixed = room_action(game, token, legal, track.spent[seat], actions)
            if fixed is not None:
                self.report.fixed += 1
                log.info("the bot's %.40r was fixed: %s", token, fixed)
            await self._act(action, bot=True)
            return

    async def _act(self, action: Action, *, bot: bool = False) -> None:
        """Play ``action`` at the seat's turn (``bot``: the bot's, counted in the report). A
        refusal for the room's rate limit is waited out and the action sent again: the room's
        own limit never costs the bot its action."""
        while True:
            await self.pace.wait()
            try:
                await self.client.act(self.settings.table, action)
            except RequestRefused as error:
                if error.code == "rate_limited":
                    log.info("the room's rate limit: %s again shortly", action)
                    await asyncio.sleep(1.0 / self.pace.rate)
                    continue
                log.warning("the room refused %s: %s", action, error)
                return
            break
        if bot:
            self.report.actions += 1

    async def _sit_in(self, buy_in: int) -> None:
        """The seat was sat out (a timeout, or busted when the wallet could not refill it):
        play chips from the hourly grant, chips added up to the buy-in, and in again."""
        client = self.client
        table = self.settings.table
        with contextlib.suppress(ClientError):
            await client.grant()
        state = client.tables.get(table)
        mine = state.my_seat if state is not None else None
        try:
            if mine is not None and mine.stack < buy_in:
                amount = buy_in - mine.stack
                await self.pace.wait()
                await client.request({"type": "add_chips", "table": table, "amount": amount})
            await self.pace.wait()
            await client.sit_in(table)
        except RequestRefused as error:
            log.warning("cannot sit in again: %s", error)

    async def _leave(self) -> None:
        client = self.client
        if self._seat is not None and client.connected:
            with contextlib.suppress(ClientError):
                await client.leave(self.settings.table)
            self._seat = None
        await client.close()


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    """One line from the bot (``b""``: it closed the connection); ``_BotEnded`` for a line over
    ``BOT_LINE_LIMIT`` or a connection the bot reset."""
    try:
        return await reader.readline()
    except ValueError:
        raise _BotEnded(f"the bot sent a line over {BOT_LINE_LIMIT} bytes") from None
    except OSError as error:
        raise _BotEnded(f"the bot's connection failed ({error.__class__.__name__})") from None


async def _write_line(writer: asyncio.StreamWriter, line: str) -> None:
    """Send the bot one line; ``_BotEnded`` when its connection is closed or reset."""
    try:
        writer.write(line.encode("ascii") + b"\r\n")
        await writer.drain()
    except OSError as error:
        raise _BotEnded(f"the bot's connection failed ({error.__class__.__name__})") from None

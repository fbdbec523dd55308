"""``feltroom play --url URL``: a terminal client for a person, over the public protocol.

It signs in (or signs up when the account does not exist), shows the lobby, takes a seat with
the buy-in the person types, and plays with the keyboard while the table is redrawn in place.
It renders only what the server sends (through ``feltroom.bots.client``'s ``TableState``) and
sends only the actions the server offers; an amount out of range is the server's to refuse, and
its error is shown.

The module has two halves:

- pure functions, unit-tested without a terminal: ``render`` (a ``Screen`` to lines),
  ``describe`` (a table message to a line of the action log), ``key_command`` (a key to what it
  asks for), ``lobby_lines`` and ``buy_in_bounds``;
- the I/O: ``KeyboardInput`` reads standard input without blocking (cbreak mode through
  termios/tty, restored on exit) and ``TerminalClient`` runs the screens on asyncio.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import sys
import termios
import tty
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, TextIO

from feltroom.bots.client import (
    Client,
    ClientError,
    ConnectionLost,
    HttpError,
    RequestRefused,
    TableState,
    invite_secret,
)
from feltroom.bots.runner import invite_entry

__all__ = [
    "AskAmount",
    "Command",
    "KeyboardInput",
    "Notice",
    "Screen",
    "Send",
    "TerminalClient",
    "buy_in_bounds",
    "describe",
    "key_command",
    "lobby_lines",
    "main",
    "render",
]

Message = dict[str, Any]

LOG_LINES = 8
"""How many lines of the action log the table screen shows."""


# ------------------------------------------------------------------------------- pure functions


@dataclass(frozen=True, slots=True)
class Screen:
    """Everything the table screen shows. ``now`` is the server's clock (for countdowns),
    ``entry`` the line being typed (an amount), ``notice`` the last error or note."""

    state: TableState
    player: str
    title: str = ""
    log: tuple[str, ...] = ()
    now: float | None = None
    auto_post: bool = True
    entry: str = ""
    notice: str = ""


@dataclass(frozen=True, slots=True)
class Send:
    """A key asks to send this message (a request to the server)."""

    message: Message


@dataclass(frozen=True, slots=True)
class AskAmount:
    """A key asks for an amount to ``bet`` or ``raise`` to, within ``low``..``high`` (``None``:
    no upper bound, as adding chips at a table without a maximum buy-in)."""

    action: str
    low: int
    high: int | None

    def bounds(self) -> str:
        """The bounds as the prompt shows them."""
        return f"{self.low}.." + ("no maximum" if self.high is None else str(self.high))


@dataclass(frozen=True, slots=True)
class Notice:
    """A key that does nothing now; ``text`` says why (or what the keys are)."""

    text: str


Command = Send | AskAmount | Notice

LEAVE = "leave"
QUIT = "quit"


def _name(state: TableState, seat: Any) -> str:
    taken = state.seats.get(seat) if isinstance(seat, int) else None
    return taken.player if taken is not None else f"seat {seat}"


_FORCED = {
    "ante": "an ante",
    "small_blind": "the small blind",
    "big_blind": "the big blind",
    "straddle": "a straddle",
    "post": "the entry blind",
    "dead": "a dead blind",
}


def _cards(message: Message) -> str:
    """The cards of a ``board_dealt`` or ``cards_shown`` event, space-separated."""
    return " ".join(str(card) for card in message.get("cards", []))


def _drawn(message: Message) -> list[tuple[Any, Any]]:
    """The ``[seat, card]`` pairs of a ``first_button_drawn`` event (another event's cards are
    no pairs: none)."""
    return [tuple(pair) for pair in message.get("cards", []) if isinstance(pair, list)]


def describe(message: Message, state: TableState) -> str | None:
    """One line of the action log for a table message (after ``state`` has taken it in), or
    ``None`` for a message that is not worth a line."""
    kind = message.get("type")
    if kind == "hand_result":
        return None
    if kind == "chat":
        return f"{message.get('player')}: {message.get('text')}"
    if kind != "event":
        return None
    event = message.get("kind")
    who = _name(state, message.get("seat"))
    lines: dict[str, str] = {
        "player_seated": f"{message.get('account')} sits in seat {message.get('seat')} "
        f"with {message.get('buy_in')}",
        "seat_released": f"{message.get('account')} leaves seat {message.get('seat')}",
        "chips_added": f"{who} adds {message.get('amount')} (stack {message.get('stack')})",
        "stack_reset": f"{who}'s stack is reset from {message.get('before')} to "
        f"{message.get('stack')}",
        "sat_out": f"{who} sits out ({message.get('reason')})",
        "sat_in": f"{who} is back",
        "posted": f"{who} posts {_FORCED.get(str(message.get('forced')), 'a forced bet')} "
        f"{message.get('amount')}" + (" (all-in)" if message.get("all_in") else ""),
        "folded": f"{who} folds",
        "checked": f"{who} checks",
        "called": f"{who} calls {message.get('amount')}"
        + (" (all-in)" if message.get("all_in") else ""),
        "raised": f"{who} {'bets' if message.get('bet') else 'raises to'} {message.get('to')}"
        + (" (all-in)" if message.get("all_in") else ""),
        "uncalled_bet_returned": f"{message.get('amount')} uncalled returned to {who}",
        "board_dealt": f"{('', 'Flop', 'Turn', 'River')[int(message.get('street', 0)) % 4]}: "
        f"{_cards(message)}",
        "cards_shown": f"{who} shows {_cards(message)}",
        "first_button_drawn": "Button draw: "
        + ", ".join(f"{_name(state, seat)} {card}" for seat, card in _drawn(message))
        + f"; the button is seat {message.get('button')}",
        "cards_mucked": f"{who} mucks",
        "timed_out": f"{who} timed out ({message.get('action')})",
        "disconnected": f"{who} disconnected",
        "resumed": f"{who} reconnected",
        "hand_started": f"Hand #{message.get('hand')} dealt (button seat {message.get('button')})",
        "blind_declined": f"{who} declines the blind",
        "table_paused": f"table paused: {message.get('reason')}",
        "table_resumed": "table resumed",
        "hand_voided": f"hand {message.get('hand_id')} void: {message.get('reason')}",
    }
    if event == "pot_awarded":
        winners = message.get("winners", [])
        shares = message.get("shares", [])
        parts = ", ".join(f"{_name(state, w)} {s}" for w, s in zip(winners, shares, strict=False))
        pot = "main pot" if message.get("index") == 0 else f"side pot {message.get('index')}"
        return f"{pot} {message.get('amount')} (rake {message.get('rake')}): {parts}"
    return lines.get(str(event))


def key_command(
    key: str, state: TableState, *, auto_post: bool = True, max_buy_in: int | None = None
) -> Command | str:
    """What a key asks for at the table: a message to send, an amount to ask for, ``LEAVE``,
    ``QUIT``, or a ``Notice`` when the key offers nothing now. Only actions the server offered
    in this turn's ``legal`` are ever sent. ``max_buy_in`` (the table's; ``None`` at a table
    without one, as Fixed-Limit tables) bounds the chips ``m`` offers to add (R-BUYIN-3)."""
    table = state.table
    legal = state.legal if state.my_turn else None
    if key in "fcrb" and key:
        if legal is None or state.hand is None:
            return Notice("it is not your turn")
        act: Message = {"type": "act", "table": table, "hand": state.hand}
        if state.turn_id is not None:
            act["turn_id"] = state.turn_id  # a key pressed twice cannot act at a later turn
        if key == "f":
            if not legal.get("fold"):
                return Notice("fold is not offered now (nothing to call: check)")
            return Send({**act, "action": "fold"})
        if key == "c":
            if legal.get("check"):
                return Send({**act, "action": "check"})
            if legal.get("call") is not None:
                return Send({**act, "action": "call"})
            return Notice("neither check nor call is offered now")
        low, high = legal.get("raise_min"), legal.get("raise_max")
        if low is None or high is None:
            return Notice("no bet or raise is offered now")
        return AskAmount("bet" if legal.get("bet") else "raise", int(low), int(high))
    mine = state.my_seat
    if key == "p" or key == "d":
        if state.blind_prompt is None:
            return Notice("no blind is asked of you now")
        kind = "post_blind" if key == "p" else "decline_blind"
        return Send({"type": kind, "table": table})
    if key == "o":
        if mine is None or mine.sitting_out:
            return Notice("you are not playing here (i: sit in)")
        return Send({"type": "sit_out", "table": table})
    if key == "i":
        if mine is None or not mine.sitting_out:
            return Notice("you are not sitting out")
        return Send({"type": "sit_in", "table": table})
    if key == "a":
        return Send({"type": "auto_post", "table": table, "on": not auto_post})
    if key == "m":
        if mine is None:
            return Notice("you have no seat here")
        if max_buy_in is None:
            return AskAmount("add_chips", 1, None)
        if mine.stack >= max_buy_in:
            return Notice(f"your stack is at the table's maximum ({max_buy_in})")
        return AskAmount("add_chips", 1, max_buy_in - mine.stack)
    if key == "l":
        return LEAVE
    if key == "q":
        return QUIT
    return Notice(_KEYS)


_KEYS = (
    "keys: f=fold c=check/call r=bet/raise p=post blind d=decline blind o=sit out i=sit in "
    "a=auto-post m=add chips l=leave q=quit"
)


def _seat_line(state: TableState, number: int) -> str:
    seat = state.seats[number]
    marks = []
    if state.button == number:
        marks.append("D")
    if state.small == number:
        marks.append("SB")
    if state.big == number:
        marks.append("BB")
    pointer = ">" if state.to_act == number and state.in_progress else " "
    name = seat.player + (" (you)" if state.you == number else "")
    if seat.cards is not None:
        cards = " ".join(seat.cards)
    elif state.in_progress and seat.in_hand and not seat.folded:
        cards = "## ##"
    else:
        cards = ""
    status = []
    if seat.folded:
        status.append("folded")
    if seat.all_in:
        status.append("all-in")
    if seat.sitting_out:
        status.append("sitting out")
    if seat.disconnected:
        status.append("disconnected")
    if state.in_progress and not seat.in_hand and not seat.sitting_out:
        status.append("waits")
    return (
        f"{pointer}{number:>3} {'/'.join(marks):<5} {name[:24]:<24} {seat.stack:>9} "
        f"{seat.bet:>7}  {cards:<6} {', '.join(status)}"
    ).rstrip()


def _seconds(deadline: Any, now: float | None) -> str:
    if not isinstance(deadline, int | float) or now is None:
        return ""
    return f" ({max(0, int(deadline - now + 0.999))} s)"


def _offered(legal: Message) -> str:
    options = []
    if legal.get("fold"):
        options.append("f=fold")
    if legal.get("check"):
        options.append("c=check")
    elif legal.get("call") is not None:
        options.append(f"c=call {legal['call']}")
    low, high = legal.get("raise_min"), legal.get("raise_max")
    if low is not None and high is not None:
        word = "bet" if legal.get("bet") else "raise to"
        span = f"{low}" if low == high else f"{low}..{high}"
        options.append(f"r={word} {span}")
    return "  ".join(options)


# How a hand's category reads after "wins 570 with" (as the browser says it).
_HAND_PHRASES = {
    "High Card": "high card",
    "One Pair": "a pair",
    "Two Pair": "two pair",
    "Three of a Kind": "three of a kind",
    "Straight": "a straight",
    "Flush": "a flush",
    "Full House": "a full house",
    "Four of a Kind": "four of a kind",
    "Straight Flush": "a straight flush",
}


def hand_phrase(description: str) -> str:
    """A showdown hand's words after "wins N with": "Flush, Ace high" -> "a flush, Ace high"."""
    category, _, rest = description.partition(", ")
    phrase = _HAND_PHRASES.get(category, category.lower())
    return f"{phrase}, {rest}" if rest else phrase


_RULE_IDS = re.compile(r"\s*\((?:R-[A-Z]+-\d+(?:,\s*)?)+\)")
_RULE_REF = re.compile(r",\s*R-[A-Z]+-\d+")


def error_sentence(error: RequestRefused) -> str:
    """A refusal in a sentence for people, from its ``code`` and ``details`` (docs/protocol.md,
    errors), as the browser writes it; the server's message, without rule ids and protocol
    names, otherwise."""
    details = error.reply.get("details") or {}
    code = error.code
    if code == "illegal_action" and {"min", "amount", "action"} <= set(details):
        verb = "bet is" if details["action"] == "bet" else "raise is to"
        if details["amount"] < details["min"]:
            return f"The minimum {verb} {details['min']}."
        return f"The maximum {verb} {details['max']}."
    if code == "illegal_action" and {"min", "max", "stack"} <= set(details):
        if details["stack"] == 0:
            if details["max"] is None:
                return f"The buy-in here is at least {details['min']}."
            return f"The buy-in here is {details['min']} to {details['max']}."
        if details["max"] is not None:
            room = max(0, details["max"] - details["stack"])
            return f"You may add up to {room}: the most you can have here is {details['max']}."
    if code == "refused" and {"balance", "amount"} <= set(details):
        return f"You hold {details['balance']}, not {details['amount']}: take fewer chips."
    if code == "not_your_turn":
        return "It is not your turn yet."
    if code == "stale_hand":
        return "That hand is over."
    if code == "invalid_field" and str(details.get("field", "")).endswith(("amount", "buy_in")):
        return "Type a whole number of chips."
    text = _RULE_IDS.sub("", error.detail)
    text = _RULE_REF.sub("", text).split("; legal:")[0].strip() or "Refused"
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def render(screen: Screen) -> list[str]:
    """The table screen as lines of text (no colours, no escape codes): the table and its
    seats (button and blinds, stacks, bets, cards one may see), the pot and board, whose turn
    with its countdown, the last actions, and the keys with the actions offered."""
    state = screen.state
    lines = [f"feltroom — {screen.title or state.table}   player: {screen.player}"]
    if state.hand is None:
        lines.append("No hand yet")
    else:
        progress = "in progress" if state.in_progress else "over"
        lines.append(f"Hand #{state.hand} ({progress})   Pot {state.pot}")
    lines.append(f"Board: {' '.join(state.board) if state.board else '-'}")
    lines.append("")
    lines.append(f" {'seat':>3} {'':<5} {'player':<24} {'stack':>9} {'bet':>7}  cards")
    lines.extend(_seat_line(state, number) for number in sorted(state.seats))
    lines.append("")
    if state.you is None:
        lines.append("You have no seat here.")
    elif state.hole is not None:
        words = (
            f" — {state.strength}" if state.strength else ""
        )  # the server's words, as on the web
        lines.append(f"Your cards: {' '.join(state.hole)}{words}")
    result = state.last_result
    if result is not None and not state.in_progress:
        for index, pot in enumerate(result.get("pots", [])):
            label = "Main pot" if index == 0 else f"Side pot {index}"
            made = result.get("hands") or {}
            won = ", ".join(
                f"{_name(state, w)} wins {s}"
                + (f" with {hand_phrase(made[str(w)]['description'])}" if str(w) in made else "")
                for w, s in zip(pot.get("winners", []), pot.get("shares", []), strict=False)
            )
            lines.append(f"{label} {pot.get('amount')} (rake {pot.get('rake')}): {won}")
    if state.in_progress and state.to_act is not None:
        who = "Your turn" if state.to_act == state.you else f"To act: {_name(state, state.to_act)}"
        lines.append(who + _seconds(state.deadline, screen.now))
    lines.append("Last actions:")
    lines.extend(f"  {line}" for line in screen.log[-LOG_LINES:])
    lines.extend("" for _ in range(LOG_LINES - min(LOG_LINES, len(screen.log))))
    prompt = state.blind_prompt
    if prompt is not None:
        lines.append(
            f"Blind due: {prompt.get('amount')} — p=post  d=decline"
            + _seconds(prompt.get("expires"), screen.now)
        )
    if state.my_turn and state.legal is not None:
        lines.append(f"Your turn: {_offered(state.legal)}")
    mine = state.my_seat
    sitting = "i=sit in" if mine is not None and mine.sitting_out else "o=sit out"
    lines.append(
        f"Keys: {sitting}  a=auto-post ({'on' if screen.auto_post else 'off'})  m=add chips  "
        "l=leave  q=quit"
    )
    if screen.entry:
        lines.append(screen.entry)
    if screen.notice:
        lines.append(f"! {screen.notice}")
    return lines


def lobby_lines(tables: Sequence[Message], balances: dict[str, str]) -> list[str]:
    """The lobby as lines: one numbered line per table (game, stakes, currency, seats taken and
    free), and the player's balances."""
    lines = [
        f"{'#':>3}  {'table':<16} {'game':<14} {'stakes':<22} {'cur':<5} "
        f"{'seats':>5} {'taken':>5} {'free':>5}  status"
    ]
    for number, entry in enumerate(tables, start=1):
        lines.append(
            f"{number:>3}  {str(entry.get('name', entry.get('id')))[:16]:<16} "
            f"{str(entry.get('game', ''))[:14]:<14} {str(entry.get('stakes', ''))[:22]:<22} "
            f"{entry.get('currency', '')!s:<5} {entry.get('seats', 0):>5} "
            f"{entry.get('seats_taken', 0):>5} {entry.get('seats_free', 0):>5}  "
            f"{entry.get('status', '')}"
        )
    money = ", ".join(f"{c} {a}" for c, a in sorted(balances.items())) or "nothing yet"
    lines.append(f"Your balance: {money}")
    return lines


def buy_in_bounds(entry: Message, balances: dict[str, str]) -> tuple[int, int | None, int]:
    """The lowest and highest buy-in of a lobby entry's table (``None``: the table has no
    maximum, as the Fixed-Limit tables) and the default the server gives when none is named
    (R-BUYIN-2: the whole balance in the table's currency, up to the maximum), all in the
    currency's minor unit."""
    settings = entry.get("settings", {})
    low = int(settings.get("buy_in_min") or settings.get("min_buy_in") or 1)
    most = settings.get("buy_in_max", settings.get("max_buy_in"))
    high = None if most is None else int(most)
    exponent = int(settings.get("exponent", 0))
    try:
        balance = Decimal(balances.get(str(entry.get("currency")), "0"))
    except InvalidOperation:
        balance = Decimal(0)
    units = int(balance.scaleb(exponent))
    return low, high, units if high is None else min(units, high)


# ---------------------------------------------------------------------------------------- I/O


class KeyboardInput:
    """Standard input read without blocking: in cbreak mode on a terminal (keys come at once,
    not echoed; restored on exit), each character is put on a queue by the event loop's reader.
    ``wake`` lets other tasks end a ``key`` wait early (to redraw)."""

    def __init__(self, fd: int, out: TextIO) -> None:
        self.fd = fd
        self.out = out
        self._saved: list[Any] | None = None
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.closed = False

    def __enter__(self) -> KeyboardInput:
        if os.isatty(self.fd):
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)
        asyncio.get_running_loop().add_reader(self.fd, self._readable)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.fd)
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 1024)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
            asyncio.get_running_loop().remove_reader(self.fd)
            self._queue.put_nowait("\x04")
            return
        for char in self._decoder.decode(data):
            self._queue.put_nowait(char)

    def wake(self) -> None:
        """End a waiting ``key`` call with ``None``."""
        self._queue.put_nowait(None)

    async def key(self, timeout: float | None = None) -> str | None:
        """The next key, or ``None`` on a timeout or a ``wake``; ``"\\x04"`` at the end of
        input."""
        try:
            return await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            return None

    async def line(self, prompt: str, *, echo: bool = True) -> str | None:
        """A line typed after ``prompt`` (backspace edits; not echoed when ``echo`` is false);
        ``None`` at the end of input (Ctrl-D) or on Escape."""
        self.out.write(prompt)
        self.out.flush()
        typed: list[str] = []
        while True:
            char = await self.key()
            if char is None:
                continue
            if char in "\r\n":
                self.out.write("\n")
                self.out.flush()
                return "".join(typed)
            if char in "\x04\x1b":
                self.out.write("\n")
                self.out.flush()
                return None
            if char in "\x7f\b":
                if typed:
                    typed.pop()
                    if echo:
                        self.out.write("\b \b")
            elif char.isprintable():
                typed.append(char)
                if echo:
                    self.out.write(char)
            self.out.flush()


class _Quit(Exception):
    """The person asked to quit (or input ended)."""


class TerminalClient:
    """The screens of ``feltroom play``: sign in, lobby, buy-in, table."""

    def __init__(self, url: str, keys: KeyboardInput, out: TextIO) -> None:
        self.keys = keys
        self.out = out
        self.client = Client(url, keep_messages=False, on_message=self._message)
        self.invite = invite_secret(url)  # a home game's link: its table, not the lobby
        self.table: str | None = None
        self.title = ""
        self.log: deque[str] = deque(maxlen=50)
        self.auto_post = True
        self.max_buy_in: int | None = None
        self.entry = ""
        self.notice = ""
        self.offset = 0.0
        self._dirty = False

    # --- output

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def clear(self) -> None:
        self.out.write("\x1b[H\x1b[2J")

    def now(self) -> float:
        """The server's clock, from the ``welcome``'s ``time`` and the local clock since."""
        return asyncio.get_running_loop().time() + self.offset

    def draw(self) -> None:
        """Redraw the table in place: cursor home, each line cleared to its end, the rest of the
        screen cleared."""
        if self.table is None:
            return
        state = self.client.tables.get(self.table)
        if state is None:
            return
        screen = Screen(
            state,
            self.client.player or "",
            self.title,
            tuple(self.log),
            self.now(),
            self.auto_post,
            self.entry,
            self.notice,
        )
        text = "".join(f"{line}\x1b[K\n" for line in render(screen))
        self.out.write("\x1b[H" + text + "\x1b[J")
        self.out.flush()
        self._dirty = False

    def _message(self, message: Message) -> None:
        if self.table is None or message.get("table") != self.table:
            return
        state = self.client.tables.get(self.table)
        if state is not None:
            line = describe(message, state)
            if line is not None:
                self.log.append(line)
        if message.get("type") == "event" and message.get("kind") == "hand_started":
            self.entry = ""
        if not self._dirty:
            self._dirty = True
            self.keys.wake()

    # --- screens

    async def run(self) -> int:
        """Sign in, then lobby and table until the person quits; 0, or 1 when the server could
        not be reached or refused the sign-in."""
        self.say(f"feltroom — {self.client.http_url}")
        try:
            if not await self.sign_in():
                return 1
            welcome = await self.client.connect()
            self.offset = float(welcome["time"]) - asyncio.get_running_loop().time()
            done = False
            if self.invite is not None:  # the game's table first; the lobby after it
                invited = invite_entry(await self.client.invite(self.invite))
                done = await self.join(invited) and await self.admitted() and await self.play()
            while not done:
                entry = await self.lobby()
                if entry is None:
                    break
                if await self.join(entry) and await self.play():
                    break
        except _Quit:
            pass
        except ConnectionLost as error:
            self.say(f"\nThe connection ended: {error}")
            return 1
        except ClientError as error:
            self.say(f"\n{error}")
            return 1
        finally:
            await self.client.close()
        self.say("Bye.")
        return 0

    async def choose(self, prompt: str, keys: str) -> str:
        """A question answered with one key of ``keys`` (no Enter), as docs/play.md says."""
        self.out.write(prompt)
        self.out.flush()
        while True:
            key = await self.keys.key()
            if key is None:
                raise _Quit
            if key.lower() in keys:
                self.say(key.lower())
                return key.lower()

    async def ask(self, prompt: str, *, echo: bool = True) -> str:
        text = await self.keys.line(prompt, echo=echo)
        if text is None:
            raise _Quit
        return text.strip()

    async def sign_in(self) -> bool:
        """Name and password; a sign-in the server refuses may become a sign-up."""
        name = await self.ask("Name: ")
        password = await self.ask("Password: ", echo=False)
        try:
            await self.client.sign_in(name, password)
            return True
        except HttpError as error:
            if error.status != 401:
                self.say(f"Sign-in refused: {error.detail}")
                return False
        answer = await self.ask(f"No such account or a wrong password. Create '{name}'? [y/N] ")
        if answer.lower() not in ("y", "yes"):
            return False
        try:
            await self.client.sign_up(name, password, exist_ok=False)
        except HttpError as error:
            self.say(f"Sign-up refused: {error.detail}")
            return False
        await self.client.sign_in(name, password)
        granted = await self.client.grant()
        if granted is not None:
            self.say(f"Account created; {granted} play chips granted.")
        return True

    async def lobby(self) -> Message | None:
        """The lobby until a table is picked (its entry) or the person quits (``None``)."""
        while True:
            tables = await self.client.lobby_tables()
            balances = await self.client.balances()
            self.clear()
            self.say(f"Lobby — signed in as {self.client.player}")
            for line in lobby_lines(tables, balances):
                self.say(line)
            answer = await self.ask("Table number (Enter: refresh, g: play chips, q: quit): ")
            if answer.lower() == "q":
                return None
            if answer.lower() == "g":
                granted = await self.client.grant()
                self.say("no grant now" if granted is None else f"{granted} play chips granted")
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(tables):
                return tables[int(answer) - 1]
            if answer:
                self.say(f"pick a number from 1 to {len(tables)}")
                await asyncio.sleep(1.0)

    async def join(self, entry: Message) -> bool:
        """Watch the table, pick a free seat, ask the buy-in and how to enter, and sit."""
        table = str(entry["id"])
        try:
            await self.client.observe(table)
        except RequestRefused:
            if self.invite is None:
                raise
            # (a home game's table shows itself to its players only: the request comes first)
        state = self.client.tables.setdefault(table, TableState(table))
        free = [s for s in range(1, int(entry.get("seats", 0)) + 1) if s not in state.seats]
        if not free:
            self.say("The table is full.")
            await self.client.unobserve(table)
            await asyncio.sleep(1.0)
            return False
        balances = await self.client.balances()
        low, high, default = buy_in_bounds(entry, balances)
        self.max_buy_in = high
        currency = entry.get("currency", "")
        hint = "your balance up to the maximum"
        if self.invite is not None and high is not None:  # a home game: the host issues chips
            default, hint = high, "the game's maximum"
        while True:
            text = await self.ask(
                f"Buy-in for {entry.get('name', table)} "
                f"({low}..{'no maximum' if high is None else high} {currency}; "
                f"Enter: {default}, {hint}): "
            )
            if not text or text.isdigit():
                break
            self.say("type a whole number of chips, or Enter")
        buy_in = int(text) if text else None
        how = await self.choose(
            "Post now to be dealt in at once (p) or wait for the big blind (w)? ", "pw"
        )
        try:
            await self.client.sit(
                table,
                free[0],
                buy_in=buy_in,
                entry="wait" if how == "w" else "post",
                auto_post=self.auto_post,
            )
        except RequestRefused as error:
            self.say(error_sentence(error))
            await self.client.unobserve(table)
            await self.ask("Enter to go back to the lobby ")
            return False
        self.table = table
        self.title = f"{entry.get('name', table)} — {entry.get('stakes', '')} ({currency})"
        self.log.clear()
        self.notice = ""
        self.clear()
        return True

    async def admitted(self) -> bool:
        """At a home game's table: wait for the host to admit the seat request and approve the
        buy-in (q: give up, back to the lobby)."""
        assert self.table is not None
        state = self.client.tables[self.table]
        if state.you is None:
            self.say("Asked for a seat: waiting for the host (q: back to the lobby)...")
        while state.you is None:
            key = await self.keys.key(timeout=0.5)
            if key is not None and key.lower() == "q":
                self.table = None
                return False
            if not self.client.connected:
                raise ConnectionLost("the server closed the connection")
        return True

    async def play(self) -> bool:
        """The table until the seat is released (back to the lobby: ``False``) or the person
        quits (``True``)."""
        assert self.table is not None
        table = self.table
        leaving = False
        try:
            while True:
                state = self.client.tables[table]
                if state.you is None:
                    break
                self.draw()
                key = await self.keys.key(timeout=0.5)
                if not self.client.connected:
                    raise ConnectionLost("the server closed the connection")
                if key is None:
                    continue
                if key == "\x04":
                    raise _Quit
                command = key_command(
                    key, state, auto_post=self.auto_post, max_buy_in=self.max_buy_in
                )
                if command == QUIT:
                    if state.you is not None:
                        await self._request({"type": "leave", "table": table})
                    raise _Quit
                if command == LEAVE:
                    leaving = leaving or await self._request({"type": "leave", "table": table})
                    if leaving:
                        self.notice = "leaving: the seat is released when the hand ends"
                elif isinstance(command, Send):
                    await self._send(command.message, state)
                elif isinstance(command, AskAmount):
                    await self._amount(command, state)
                elif isinstance(command, Notice):
                    self.notice = command.text
            with contextlib.suppress(RequestRefused):
                await self.client.unobserve(table)
            return False
        finally:
            self.table = None
            self.clear()

    async def _request(self, message: Message) -> bool:
        try:
            await self.client.request(message)
        except RequestRefused as error:
            self.notice = error_sentence(error)
            return False
        self.notice = ""
        return True

    async def _send(self, message: Message, state: TableState) -> None:
        if await self._request(message):
            kind = message["type"]
            if kind in ("post_blind", "decline_blind"):
                state.blind_prompt = None
            elif kind == "auto_post":
                self.auto_post = bool(message["on"])

    async def _amount(self, ask: AskAmount, state: TableState) -> None:
        """Type an amount (Enter sends it, Escape cancels); the server judges it."""
        hand = state.hand
        turn_id = state.turn_id  # the turn asked about, even if the amount comes later
        typed = ""
        word = {"bet": "bet", "raise": "raise to"}.get(ask.action, "add chips")
        adding = ask.action == "add_chips"
        while adding or (state.my_turn and state.hand == hand):
            self.entry = f"{word} ({ask.bounds()}, Enter sends, Esc cancels): {typed}_"
            self.draw()
            key = await self.keys.key(timeout=0.5)
            if key is None:
                continue
            if key in "\x1b\x04":
                break
            if key in "\x7f\b":
                typed = typed[:-1]
            elif key.isdigit():
                typed += key
            elif key in "\r\n" and typed:
                self.entry = ""
                message: Message = {"type": "act", "table": state.table, "hand": hand}
                message |= {"action": ask.action, "amount": int(typed)}
                if turn_id is not None:
                    message["turn_id"] = turn_id
                if adding:
                    message = {"type": "add_chips", "table": state.table, "amount": int(typed)}
                await self._request(message)
                return
        self.entry = ""


async def play(url: str, fd: int | None = None, out: TextIO | None = None) -> int:
    """Run the terminal client against the server at ``url`` on a terminal (standard input and
    output by default); the terminal's modes are restored however it ends."""
    stream = out if out is not None else sys.stdout
    with KeyboardInput(sys.stdin.fileno() if fd is None else fd, stream) as keys:
        return await TerminalClient(url, keys, stream).run()


def main(url: str) -> int:
    """``feltroom play --url URL``."""
    try:
        return asyncio.run(play(url))
    except KeyboardInterrupt:
        print()
        return 130

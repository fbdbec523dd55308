"""Import PokerStars text hand histories (layer ``history``): ``loads(text)``, ``load_file(path)``.

A file holds one or more hands, each starting with its header line (``PokerStars Hand #N:`` or
the older ``PokerStars Game #N:``); blank lines between hands, a byte-order mark, CRLF line ends
and trailing spaces are accepted. Hold'em No Limit, Pot Limit and Limit (whose header gives the
small and big *bet*), cash and tournament, are read into a ``HandRecord``: seats in dealing order
with names and starting stacks, the button (an empty seat under the dead-button rule), forced
bets (antes, blinds, an entering player's ``posts big blind``, ``posts small & big blinds`` as a
dead small blind plus a post, straddles), the actions with bets and raises as raise-to amounts,
the board, and every hole card the file shows (``Dealt to``, ``shows``, ``mucked [..]`` in the
summary, R-SHOW-5). A forced bet posted all-in for less keeps its nominal amount (the header's
stakes), as the engine posts it.

Player names are matched against the seat list, longest first, so names holding spaces or
colons are read whole; lines that are not part of the play (chat, joins and leaves, sitting out,
tournament finishes) are skipped.

Every hand is replayed through the engine (``feltroom.history.replay.replay``) and checked
against the file: each post, call, raise and uncalled bet must be what the engine does, the
total pot must be the sum of the engine's pots, and for each pot (the engine's pots in order,
PokerStars' ``main pot``, ``side pot-1``...) what the file says was collected must be the pot
less its rake, split among the engine's winners as R-POT-1 splits it; the pots' rakes must add
up to the summary's ``Rake``. The file's results are kept: ``winnings`` (what each player
collected), ``finishing_stacks``, and the rake (R-RAKE-3) as a ``RakeRecord`` whose rule gives
the file's rake pot by pot (``fraction`` the largest pot's share, ``cap`` the hand's rake), so
that replaying the record gives the file's stacks. When no such rule exists (a site that spreads
the rake over the pots differently) the record has no rake rule and ``metadata['rake']`` holds
the amount. A hand that cannot be read, replayed or reconciled is an ``ImportProblem`` with its
hand number and line; the rest of the file is still imported.

``metadata`` keeps ``table``, ``time`` (as written), ``started`` (ISO 8601 UTC, from the ET
time), ``currency`` (``USD``/``EUR``/``GBP``, ``PLAY`` for play money, ``CHIPS`` for tournament
chips), ``tournament``, ``buy_in`` and ``level`` for tournaments, ``pots`` (each pot's amount
and rake, in units) and ``rake``. See docs/hand-histories.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from feltroom.cards import Card
from feltroom.errors import FeltroomError
from feltroom.history.imports import ImportProblem, ImportResult, awarded, with_results
from feltroom.history.pokerstars import format_amount
from feltroom.history.record import (
    Action,
    ActionKind,
    ForcedBet,
    ForcedKind,
    HandRecord,
    PlayerRecord,
    Stakes,
    Structure,
)
from feltroom.history.replay import ReplayError, replay
from feltroom.money import Currency, to_units
from feltroom.rules import (
    Called,
    Checked,
    Folded,
    Hand,
    Posted,
    PotAwarded,
    Raised,
    UncalledBetReturned,
)

__all__ = ["is_pokerstars", "load_file", "loads"]

_HEADER = re.compile(r"PokerStars\b.*?\b(?:Hand|Game) #(\d+):\s*(.*)")
_GAME = re.compile(
    r"(?:Tournament #(?P<tournament>\d+),\s*(?P<buy_in>.*?)\s+|\{[^}]*\}\s+)?"
    r"Hold'em (?P<limit>No Limit|Pot Limit|Limit)\s+"
    r"(?:-\s+(?:Match Round \S+,\s+)?Level (?P<level>\S+)\s+)?"
    r"\((?P<low>[^/()\s]+)/(?P<high>[^/()\s]+)(?:\s+(?P<code>[A-Z]{3}))?\)"
    r"\s+-\s+(?P<time>.*)"
)
_ET_TIME = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2}) ET\b")
_TABLE = re.compile(
    r"Table '(?P<name>.*)' (?:(?P<max>\d+)-max\s*)?(?P<play>\(Play Money\)\s*)?"
    r"(?:\(Real Money\)\s*)?Seat #(?P<button>\d+) is the button"
)
_SEAT = re.compile(
    r"Seat (?P<seat>\d+): (?P<name>.+) \((?P<stack>[^()\s]+) in chips(?:, [^()]*)?\)(?P<tail>.*)"
)
_AMOUNT = r"[$€£]?\d[\d,]*(?:\.\d+)?"
_ALLIN = r"(?P<allin> and is all-in)?"
_POST = re.compile(
    r"posts (?P<what>small blind|big blind|the ante|small & big blinds|straddle|dead blind) "
    rf"(?P<amount>{_AMOUNT}){_ALLIN}"
)
_CALL = re.compile(rf"calls (?P<amount>{_AMOUNT}){_ALLIN}")
_BET = re.compile(rf"bets (?P<amount>{_AMOUNT}){_ALLIN}")
_RAISE = re.compile(rf"raises (?P<amount>{_AMOUNT}) to (?P<to>{_AMOUNT}){_ALLIN}")
_SHOWS = re.compile(r"shows \[(?P<cards>[^\]]*)\](?: \(.*\))?")
_FOLDS = re.compile(r"folds(?: \[(?P<cards>[^\]]*)\])?")
_MUCKS = re.compile(r"mucks(?: hand)?(?: \[(?P<cards>[^\]]*)\])?")
_COLLECTED = re.compile(
    rf"collected (?P<amount>{_AMOUNT}) from (?P<pot>pot|main pot|side pot(?:-(?P<n>\d+))?)"
)
_UNCALLED = re.compile(rf"Uncalled bet \((?P<amount>{_AMOUNT})\) returned to (?P<name>.+)")
_TOTAL = re.compile(
    rf"Total pot (?P<total>{_AMOUNT})(?P<pots>(?: (?:Main pot|Side pot(?:-\d+)?) {_AMOUNT}\.)*)"
    rf" \| Rake (?P<rake>{_AMOUNT})(?: \|.*)?"
)
_LISTED_POT = re.compile(rf"(Main pot|Side pot(?:-(\d+))?) ({_AMOUNT})\.")
_SUMMARY_CARDS = re.compile(r"(?:showed|mucked) \[(?P<cards>[^\]]*)\]")
_SUMMARY_WON = re.compile(rf"(?:won|collected) \((?P<amount>{_AMOUNT})\)")
_VERBS = ("posts", "folds", "checks", "calls", "bets", "raises", "shows", "mucks")
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}
_STRUCTURES = {
    "No Limit": Structure.NO_LIMIT,
    "Pot Limit": Structure.POT_LIMIT,
    "Limit": Structure.FIXED_LIMIT,
}
_STREETS = {"FLOP": 1, "TURN": 2, "RIVER": 3}
_EASTERN = ZoneInfo("America/New_York")


def is_pokerstars(text: str) -> bool:
    """Whether ``text`` looks like a PokerStars hand history (a hand header line)."""
    return any(_HEADER.match(line.lstrip("\ufeff")) for line in text.split("\n", 50)[:50])


def load_file(path: str | Path) -> ImportResult:
    """Import every hand of the PokerStars text file at ``path`` (UTF-8, with or without BOM)."""
    return loads(Path(path).read_text(encoding="utf-8"))


def loads(text: str) -> ImportResult:
    """Import every hand of PokerStars text: the records of the hands that read, replay and
    reconcile, in file order, and one problem for each hand that does not."""
    records: list[HandRecord] = []
    problems: list[ImportProblem] = []
    for start, hand_id, lines in _split(text):
        if hand_id is None:
            problems.append(
                ImportProblem(
                    None,
                    start,
                    "expected a hand header such as 'PokerStars Hand #123: Hold'em No Limit "
                    "($0.01/$0.02 USD) - ...'",
                )
            )
            continue
        try:
            records.append(_Hand(hand_id, lines).record())
        except _Bad as bad:
            problems.append(ImportProblem(hand_id, bad.line, bad.message))
    return ImportResult(tuple(records), tuple(problems))


def _split(text: str) -> Iterator[tuple[int, str | None, list[tuple[int, str]]]]:
    """``(first line, hand id, numbered lines)`` per hand; a run of text before the first header
    (or that is no hand) comes with the id ``None``."""
    current: list[tuple[int, str]] = []
    current_id: str | None = None
    junk: int | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.replace("\ufeff", "").rstrip()
        header = _HEADER.match(line)
        if header is not None:
            if current:
                yield current[0][0], current_id, current
            current, current_id = [(number, line)], header.group(1)
        elif current:
            current.append((number, line))
        elif line and junk is None:
            junk = number
            yield number, None, []
    if current:
        yield current[0][0], current_id, current


class _Bad(Exception):
    """A hand that cannot be imported: the line and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(slots=True)
class _Play:
    """One betting action as the file writes it, to compare with the engine's."""

    line: int
    seat: int
    verb: str  # fold, check, call, bet, raise
    amount: int = 0  # calls: the chips added; bets and raises: the raise-to total
    all_in: bool = False


@dataclass(slots=True)
class _Post:
    line: int
    seat: int
    what: str
    amount: int
    all_in: bool


@dataclass(slots=True)
class _Summary:
    line: int = 0
    total: int = 0
    rake: int = 0
    listed: list[tuple[int, int]] = field(default_factory=list)  # (pot index, net amount)
    board_line: int = 0
    board: tuple[Card | None, ...] | None = None
    second_board: tuple[Card | None, ...] | None = None  # "SECOND Board" (run it twice)
    won: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (line, amount)
    seats: set[int] = field(default_factory=set)


class _Hand:
    """One hand's lines, read into a record (``record()``) or a ``_Bad``."""

    def __init__(self, hand_id: str, lines: list[tuple[int, str]]) -> None:
        self.hand_id = hand_id
        self.lines = [(n, text) for n, text in lines if text]
        self.header_line = lines[0][0]
        self.currency = Currency("PLAY", 0)
        self.seats: dict[int, tuple[str, int]] = {}  # dealt-in seats: (name, stack)
        self.by_name: dict[str, int] = {}
        self.names: list[str] = []  # longest first
        self.holes: dict[int, list[Card | None]] = {}
        self.posts: list[_Post] = []
        self.plays: list[_Play] = []
        self.actions: list[Action] = []
        self.action_lines: list[int] = []
        self.uncalled: list[tuple[int, int, int]] = []  # (line, seat, amount)
        self.collected: list[tuple[int, int, int, int | None]] = []  # (line, seat, amount, pot)
        self.board: list[Card | None] = []
        self.second: list[Card | None] = []  # a board run twice: the second run's whole board
        self.run = 1  # 2 after "*** SECOND SHOW DOWN ***": collections of the second run
        self.collected2: list[tuple[int, int, int, int | None]] = []
        self.summary = _Summary()
        self.dealt_to: list[str] = []  # the names of the "Dealt to" lines with cards

    # ---------------------------------------------------------------- reading

    def money(self, text: str, line: int) -> int:
        """An amount of the hand's currency in units."""
        digits = text.lstrip("$€£").replace(",", "")
        try:
            return to_units(digits, self.currency)
        except ValueError as error:
            raise _Bad(line, f"cannot read the amount {text!r}: {error}") from None

    def cards(self, text: str, line: int) -> tuple[Card | None, ...]:
        """Cards as written (``??``: a card not shown)."""
        try:
            return tuple(None if word == "??" else Card.parse(word) for word in text.split())
        except FeltroomError as error:
            raise _Bad(line, f"cannot read the cards [{text}]: {error}") from None

    def know(self, seat: int, cards: Sequence[Card | None], line: int) -> None:
        """Record hole cards the file shows; a different card for the same hole is a problem."""
        hole = self.holes.setdefault(seat, [None, None])
        if len(cards) > 2:
            raise _Bad(line, f"Hold'em hole cards are two cards, not {len(cards)}")
        for k, card in enumerate(cards):
            if card is None:
                continue
            if hole[k] is not None and hole[k] != card:
                raise _Bad(
                    line, f"seat {seat} shows {card} where the hand already gave it {hole[k]}"
                )
            hole[k] = card

    def who(self, text: str) -> Iterator[tuple[int, str]]:
        """``(seat, rest)`` for each player whose name starts ``text``, longest name first;
        ``rest`` follows the name and its ``": "`` or space."""
        for name in self.names:
            if text.startswith(name):
                tail = text[len(name) :]
                if tail.startswith(": "):
                    yield self.by_name[name], tail[2:]
                elif tail.startswith(" "):
                    yield self.by_name[name], tail[1:]

    def record(self) -> HandRecord:
        lines = iter(self.lines)
        header_number, header = next(lines)
        game = self.read_header(header_number, header)
        table_number, table = next(lines, (header_number, ""))
        match = _TABLE.fullmatch(table)
        if match is None:
            raise _Bad(
                table_number,
                "expected the table line \"Table 'NAME' 9-max Seat #N is the button\", "
                f"not {table!r}",
            )
        game["table"] = match["name"]
        if match["play"]:
            game["currency"] = "PLAY"
        self.button = int(match["button"])
        seat_count = int(match["max"]) if match["max"] else None
        rest = list(lines)
        k = self.read_seats(rest, table_number)
        summary_at = self.read_body(rest[k:])
        if summary_at is None:
            last = rest[-1][0] if rest else table_number
            raise _Bad(last, "the hand stops before its *** SUMMARY *** (a truncated hand?)")
        self.read_summary(rest[summary_at + k + 1 :], rest[summary_at + k][0])
        return self.check(game, seat_count)

    def read_header(self, number: int, line: str) -> dict[str, object]:
        match = _HEADER.match(line)
        assert match is not None
        game_text = match.group(2)
        game = _GAME.fullmatch(game_text)
        if game is None:
            shown = re.split(r" \(| - ", game_text, maxsplit=1)[0]
            raise _Bad(
                number,
                f"unknown game {shown!r}: expected Hold'em No Limit, Pot Limit or Limit with "
                "the stakes in brackets and the time, e.g. \"Hold'em No Limit ($0.01/$0.02 USD)"
                ' - 2026/12/01 10:00:00 ET"',
            )
        low_text, high_text, code = game["low"], game["high"], game["code"]
        symbol = low_text[0] if low_text[0] in _SYMBOLS else None
        if code is None and symbol is not None:
            code = _SYMBOLS[symbol]
        tournament = game["tournament"]
        if code is not None:
            self.currency = Currency(code, 2)
        else:
            self.currency = Currency("CHIPS" if tournament else "PLAY", 0)
        self.structure = _STRUCTURES[game["limit"]]
        self.low = self.money(low_text, number)
        self.high = self.money(high_text, number)
        if not 0 < self.low <= self.high:
            raise _Bad(number, f"the stakes {low_text}/{high_text} must be positive, low first")
        metadata: dict[str, object] = {"time": game["time"], "currency": self.currency.code}
        when = _ET_TIME.search(game["time"])
        if when is not None:
            year, month, day, hour, minute, second = map(int, when.groups())
            try:
                local = datetime(year, month, day, hour, minute, second, tzinfo=_EASTERN)
            except ValueError:
                pass
            else:
                metadata["started"] = local.astimezone(UTC).isoformat().replace("+00:00", "Z")
        if tournament:
            metadata["tournament"] = int(tournament)
            metadata["buy_in"] = game["buy_in"]
            if game["level"]:
                metadata["level"] = game["level"]
        return metadata

    def read_seats(self, lines: list[tuple[int, str]], after: int) -> int:
        """The seat lines; returns how many lines they take."""
        k = 0
        for number, line in lines:
            match = _SEAT.fullmatch(line)
            if match is None:
                break
            k += 1
            tail = match["tail"].strip()
            if "sitting out" in tail or "out of hand" in tail:
                continue
            seat = int(match["seat"])
            if seat in self.seats:
                raise _Bad(number, f"seat {seat} is listed twice")
            stack = self.money(match["stack"], number)
            if stack <= 0:
                raise _Bad(number, f"seat {seat} has no chips: every player needs a stack")
            name = match["name"]
            if name in self.by_name:
                raise _Bad(number, f"the name {name!r} is seated twice")
            self.seats[seat] = (name, stack)
            self.by_name[name] = seat
        if not self.seats:
            where = lines[0][0] if lines else after
            raise _Bad(where, "expected the seat lines 'Seat N: NAME ($X in chips)'")
        self.names = sorted(self.by_name, key=len, reverse=True)
        return k

    def read_body(self, lines: list[tuple[int, str]]) -> int | None:
        """Posts, dealing and play up to the summary; returns the summary's index or ``None``."""
        street = -1
        street_bets = dict.fromkeys(self.seats, 0)
        for index, (number, line) in enumerate(lines):
            if line.startswith("*** "):
                if line == "*** SUMMARY ***":
                    return index
                if line == "*** HOLE CARDS ***":
                    street = 0
                    continue
                if line in ("*** SHOW DOWN ***", "*** FIRST SHOW DOWN ***"):
                    continue
                if line == "*** SECOND SHOW DOWN ***":
                    self.run = 2
                    continue
                deal = re.fullmatch(
                    r"\*\*\* (FIRST |SECOND )?(FLOP|TURN|RIVER) \*\*\* ((?:\[[^\]]*\] ?)+)", line
                )
                if deal is None:
                    raise _Bad(number, f"unknown section {line!r}")
                brackets = re.findall(r"\[([^\]]*)\]", deal.group(3))
                new = self.cards(brackets[-1], number)
                kind = _STREETS[deal.group(2)]
                expected = (3, 1, 1)[kind - 1]
                if deal.group(1) == "SECOND ":
                    # R-HOME-4: the second run, from the street the runs part on
                    if not self.second:
                        self.second = list(self.board[: (0, 3, 4)[kind - 1]])
                    if len(new) != expected or len(self.second) != (0, 3, 4)[kind - 1]:
                        raise _Bad(number, f"second {deal.group(2).lower()} out of order")
                    self.second.extend(new)
                    continue
                if len(new) != expected or len(self.board) != (0, 3, 4)[kind - 1]:
                    raise _Bad(number, f"{deal.group(2).lower()} out of order or of the wrong size")
                self.board.extend(new)
                self.actions.append(Action(None, ActionKind.DEAL_BOARD, None, new))
                self.action_lines.append(number)
                street = kind
                street_bets = dict.fromkeys(self.seats, 0)
                continue
            if line.startswith("Dealt to "):
                for seat, rest in self.who(line[9:]):
                    if rest.startswith("["):
                        self.know(seat, self.cards(rest[1:].split("]")[0], number), number)
                        self.dealt_to.append(self.seats[seat][0])
                        break
                continue
            uncalled = _UNCALLED.fullmatch(line)
            if uncalled is not None and uncalled["name"] in self.by_name:
                seat = self.by_name[uncalled["name"]]
                self.uncalled.append((number, seat, self.money(uncalled["amount"], number)))
                continue
            for seat, rest in self.who(line):
                verb = rest.split(" ", 1)[0]
                if verb == "collected":
                    match = _COLLECTED.fullmatch(rest)
                    if match is None:
                        raise _Bad(number, f"cannot read {line!r}")
                    pot = None if match["pot"] == "pot" else 0 if match["pot"] == "main pot" else 1
                    if match["n"]:
                        pot = int(match["n"])
                    amount = self.money(match["amount"], number)
                    (self.collected2 if self.run == 2 else self.collected).append(
                        (number, seat, amount, pot)
                    )
                    break
                if self.run == 2 and verb in ("shows", "mucks"):
                    break  # the second showdown shows the same hands again

                if verb not in _VERBS:
                    continue
                if street < 0 and verb != "posts":
                    raise _Bad(number, f"{line!r} before *** HOLE CARDS ***")
                self.read_action(number, seat, rest, street_bets)
                break
        return None

    def read_action(self, number: int, seat: int, rest: str, bets: dict[int, int]) -> None:
        """One player line (``rest`` follows ``NAME: ``); ``bets`` are the street's bets so far
        (a bet's raise-to amount is the player's bet plus what the line adds)."""
        if rest.startswith("posts "):
            match = _POST.fullmatch(rest)
            if match is None:
                raise _Bad(number, f"cannot read the post {rest!r}")
            amount = self.money(match["amount"], number)
            post = _Post(number, seat, match["what"], amount, bool(match["allin"]))
            self.posts.append(post)
            if post.what not in ("the ante", "dead blind"):
                bets[seat] += (
                    self.combined(post)[1] if post.what == "small & big blinds" else amount
                )
            return
        shows = _SHOWS.fullmatch(rest)
        if shows is not None:
            cards = self.cards(shows["cards"], number)
            self.know(seat, cards, number)
            self.add(number, Action(seat, ActionKind.SHOW, None, cards))
            return
        if rest.startswith("mucks"):
            mucks = _MUCKS.fullmatch(rest)
            if mucks is None:
                raise _Bad(number, f"cannot read {rest!r}")
            if mucks["cards"]:
                self.know(seat, self.cards(mucks["cards"], number), number)
            self.add(number, Action(seat, ActionKind.MUCK))
            return
        if rest.startswith("shows"):
            raise _Bad(number, f"cannot read {rest!r}")
        folds = _FOLDS.fullmatch(rest)
        if folds is not None:
            if folds["cards"]:
                self.know(seat, self.cards(folds["cards"], number), number)
            self.play(number, seat, "fold", ActionKind.FOLD)
            return
        if rest == "checks":
            self.play(number, seat, "check", ActionKind.CHECK_CALL)
            return
        match = _CALL.fullmatch(rest)
        if match is not None:
            amount = self.money(match["amount"], number)
            bets[seat] += amount
            self.play(number, seat, "call", ActionKind.CHECK_CALL, amount, bool(match["allin"]))
            return
        match = _BET.fullmatch(rest)
        if match is not None:
            to = bets[seat] + self.money(match["amount"], number)
        else:
            match = _RAISE.fullmatch(rest)
            if match is None:
                raise _Bad(number, f"cannot read the action {rest!r}")
            to = self.money(match["to"], number)
        bets[seat] = to
        self.play(
            number, seat, rest.split(" ", 1)[0][:-1], ActionKind.BET_RAISE, to, bool(match["allin"])
        )

    def add(self, number: int, action: Action) -> None:
        self.actions.append(action)
        self.action_lines.append(number)

    def play(
        self,
        number: int,
        seat: int,
        verb: str,
        kind: ActionKind,
        amount: int = 0,
        all_in: bool = False,
    ) -> None:
        self.plays.append(_Play(number, seat, verb, amount, all_in))
        self.add(number, Action(seat, kind, amount if kind is ActionKind.BET_RAISE else None))

    def read_summary(self, lines: list[tuple[int, str]], start: int) -> None:
        summary = self.summary
        summary.line = start
        for number, line in lines:
            if line.startswith("Total pot "):
                match = _TOTAL.fullmatch(line)
                if match is None:
                    raise _Bad(
                        number,
                        "expected 'Total pot $T | Rake $R' (with ' Main pot $M. Side pot-1 $S.' "
                        f"when there are side pots), not {line!r}",
                    )
                summary.line = number
                summary.total = self.money(match["total"], number)
                summary.rake = self.money(match["rake"], number)
                for name, n, amount in _LISTED_POT.findall(match["pots"]):
                    index = 0 if name == "Main pot" else int(n) if n else 1
                    summary.listed.append((index, self.money(amount, number)))
            elif line.startswith(("Board [", "FIRST Board [")):
                summary.board_line = number
                summary.board = self.cards(line.split("[", 1)[1].split("]")[0], number)
            elif line.startswith("SECOND Board ["):
                summary.second_board = self.cards(line[14:].split("]")[0], number)
            elif line.startswith("Seat "):
                match = re.match(r"Seat (\d+): ", line)
                if match is None or int(match.group(1)) not in self.seats:
                    continue
                seat = int(match.group(1))
                name = self.seats[seat][0]
                rest = line[match.end() :]
                if not rest.startswith(name):
                    raise _Bad(number, f"seat {seat} is {name!r} in the seat list")
                rest = rest[len(name) :]
                summary.seats.add(seat)
                cards = _SUMMARY_CARDS.search(rest)
                if cards is not None:
                    self.know(seat, self.cards(cards["cards"], number), number)
                # a board run twice: "won ($x) with ..., and won ($y) with ..."
                amounts = [self.money(m["amount"], number) for m in _SUMMARY_WON.finditer(rest)]
                if amounts:
                    summary.won[seat] = (number, sum(amounts))
        if not any(line.startswith("Total pot ") for _, line in lines):
            last = lines[-1][0] if lines else start
            raise _Bad(last, "the summary has no 'Total pot ... | Rake ...' line (truncated?)")
        missing = sorted(set(self.seats) - summary.seats)
        if missing:
            last = lines[-1][0] if lines else start
            raise _Bad(
                last,
                f"the summary has no line for seat {missing[0]} (every player dealt in has one; "
                "a truncated hand?)",
            )

    # ---------------------------------------------------------------- the record

    def forced_bets(self) -> list[ForcedBet]:
        """The forced bets with nominal amounts: one posted all-in for less is given the
        stakes' amount, as the engine posts it (up to the stack)."""
        small, big = self.nominal()
        antes = [post.amount for post in self.posts if post.what == "the ante" and not post.all_in]
        all_antes = [post.amount for post in self.posts if post.what == "the ante"]
        ante = max(antes or all_antes or [0])
        # Which "posts small blind" / "posts big blind" is the blind: the one from the seat the
        # blind is due from (R-BLIND-1/4), else the first; the others are a dead small blind and
        # entering players' posts (R-ENTRY-1, R-MISS-1/2). A blind its player could not post at
        # all (the stack went on the ante) has no line and is given to the seat it is due from.
        order = self.order()
        sb_seat, bb_seat = (order[1], order[0]) if len(order) == 2 else (order[0], order[1])
        spent = dict.fromkeys(order, 0)
        for post in self.posts:
            if post.what in ("the ante", "dead blind"):
                spent[post.seat] += post.amount
        broke = {seat for seat in order if spent[seat] >= self.seats[seat][1]}
        blind_posts: dict[str, _Post | None] = {}
        for what, due in (("small blind", sb_seat), ("big blind", bb_seat)):
            candidates = [post for post in self.posts if post.what == what]
            blind_posts[what] = next(
                (post for post in candidates if post.seat == due),
                None if due in broke or not candidates else candidates[0],
            )
        bets: list[ForcedBet] = []
        if blind_posts["small blind"] is None and sb_seat in broke:
            bets.append(ForcedBet(sb_seat, ForcedKind.SMALL_BLIND, small))
        if blind_posts["big blind"] is None and bb_seat in broke:
            bets.append(ForcedBet(bb_seat, ForcedKind.BIG_BLIND, big))

        def nominal(post: _Post, amount: int) -> int:
            return amount if post.all_in and post.amount < amount else post.amount

        for post in self.posts:
            seat, what = post.seat, post.what
            if what == "the ante":
                bets.append(ForcedBet(seat, ForcedKind.ANTE, nominal(post, ante)))
            elif what == "small blind":
                first = post is blind_posts[what]
                kind = ForcedKind.SMALL_BLIND if first else ForcedKind.DEAD_BLIND
                bets.append(ForcedBet(seat, kind, nominal(post, small)))
            elif what == "big blind":
                kind = ForcedKind.BIG_BLIND if post is blind_posts[what] else ForcedKind.POST
                bets.append(ForcedBet(seat, kind, nominal(post, big)))
            elif what == "straddle":
                bets.append(ForcedBet(seat, ForcedKind.STRADDLE, nominal(post, 2 * big)))
            elif what == "dead blind":
                bets.append(ForcedBet(seat, ForcedKind.DEAD_BLIND, nominal(post, small)))
            else:  # small & big blinds: a dead small blind and a live post
                dead = self.combined(post)[0]
                if dead <= 0:
                    raise _Bad(post.line, f"posts small & big blinds for less than {big}")
                bets.append(ForcedBet(seat, ForcedKind.DEAD_BLIND, dead))
                bets.append(ForcedBet(seat, ForcedKind.POST, big))
        return bets

    def combined(self, post: _Post) -> tuple[int, int]:
        """``posts small & big blinds``: the dead small blind's nominal amount and the live
        chips posted (the engine posts the dead blind first, then the big blind)."""
        small, big = self.nominal()
        if post.all_in and post.amount < small + big:
            return small, post.amount - min(post.amount, small)
        return post.amount - big, big

    def nominal(self) -> tuple[int, int]:
        """The small and big blind the stakes give: the header's blinds in pot and no limit; in
        fixed limit the big blind is the small bet and the small blind half of it."""
        if self.structure is Structure.FIXED_LIMIT:
            return self.low // 2, self.low
        return self.low, self.high

    def order(self) -> list[int]:
        """Seats in dealing order: first left of the button first."""
        ordered = sorted(self.seats)
        start = next((k for k, seat in enumerate(ordered) if seat > self.button), 0)
        return ordered[start:] + ordered[:start]

    def check(self, metadata: dict[str, object], seat_count: int | None) -> HandRecord:
        if len(self.dealt_to) == 1:  # the file's hero (several: an operator's full record)
            metadata["hero"] = self.dealt_to[0]
        order = self.order()
        if not 2 <= len(order) <= 10:
            raise _Bad(self.header_line, f"a hand has 2 to 10 players, not {len(order)}")
        players = tuple(
            PlayerRecord(
                seat,
                self.seats[seat][0],
                self.seats[seat][1],
                tuple(self.holes.get(seat, (None, None))),
            )
            for seat in order
        )
        fixed = self.structure is Structure.FIXED_LIMIT
        stakes = Stakes(self.low, self.high) if fixed else Stakes.min_bet(self.high)
        record = HandRecord(
            structure=self.structure,
            stakes=stakes,
            players=players,
            button=self.button,
            forced_bets=tuple(self.forced_bets()),
            actions=tuple(self.actions),
            exponent=self.currency.exponent,
            seat_count=seat_count,
            hand_id=int(self.hand_id),
            second_board=tuple(self.second),
        )
        try:
            hand = replay(record)
        except ReplayError as error:
            message = str(error)
            line = self.summary.line
            found = re.match(r"action (\d+) ", message)
            if found is not None and 0 < int(found.group(1)) <= len(self.action_lines):
                line = self.action_lines[int(found.group(1)) - 1]
            elif message.startswith("cannot set up"):
                line = self.header_line
            raise _Bad(line, f"our engine cannot replay the hand: {message}") from None
        self.compare_play(hand)
        return self.reconcile(record, hand, metadata)

    def compare_play(self, hand: Hand) -> None:
        """Every post, action and uncalled bet of the file is what the engine did."""
        posted: dict[int, int] = {}
        for event in hand.events:
            if isinstance(event, Posted):
                posted[event.seat] = posted.get(event.seat, 0) + event.amount
        written: dict[int, int] = {}
        for post in self.posts:
            written[post.seat] = written.get(post.seat, 0) + post.amount
        for post in self.posts:
            if written[post.seat] != posted.get(post.seat, 0):
                raise _Bad(
                    post.line,
                    f"seat {post.seat} posts {self.text(written[post.seat])} in all; "
                    f"our engine posts {self.text(posted.get(post.seat, 0))}",
                )
        events = [e for e in hand.events if isinstance(e, Folded | Checked | Called | Raised)]
        for play, event in zip(self.plays, events, strict=False):
            engine = _engine_play(event)
            same = engine.verb == play.verb or {engine.verb, play.verb} == {"bet", "raise"}
            if (
                not same
                or engine.seat != play.seat
                or engine.amount != play.amount
                or engine.all_in != play.all_in
            ):
                raise _Bad(
                    play.line,
                    f"the file has seat {play.seat} {self.describe(play)}; our engine has seat "
                    f"{engine.seat} {self.describe(engine)}",
                )
        if len(events) != len(self.plays):
            line = (
                self.plays[len(events)].line if len(self.plays) > len(events) else self.summary.line
            )
            raise _Bad(
                line,
                f"the file has {len(self.plays)} player actions; our engine plays {len(events)}",
            )
        returned = [
            (event.seat, event.amount)
            for event in hand.events
            if isinstance(event, UncalledBetReturned)
        ]
        ours = [(seat, amount) for _, seat, amount in self.uncalled]
        if returned != ours:
            line = self.uncalled[0][0] if self.uncalled else self.summary.line
            raise _Bad(
                line,
                "uncalled bets returned: the file has "
                f"{self.returns(ours)}, our engine {self.returns(returned)}",
            )
        if self.summary.board is not None and tuple(self.summary.board) != tuple(self.board):
            raise _Bad(self.summary.board_line, "the summary's board is not the board dealt")
        second = self.summary.second_board
        if second is not None and tuple(second) != tuple(self.second):
            raise _Bad(self.summary.line, "the summary's SECOND Board is not the second run dealt")

    def reconcile(self, record: HandRecord, hand: Hand, metadata: dict[str, object]) -> HandRecord:
        """Check the pots, the rake and what was collected against the engine's pots; the
        record with the file's results and rake."""
        summary = self.summary
        pots = [event for event in hand.events if isinstance(event, PotAwarded)]
        total = sum(pot.amount for pot in pots)
        if total != summary.total:
            raise _Bad(
                summary.line,
                f"Total pot {self.text(summary.total)}, but the bets make {self.text(total)}",
            )
        by_pot: list[dict[int, int]] = [{} for _ in pots]
        first_line: list[int] = [summary.line] * len(pots)
        for number, seat, amount, which in [*self.collected, *self.collected2]:
            index = 0 if which is None else which
            if which is None and len(pots) != 1:
                raise _Bad(
                    number,
                    f"collected from 'pot', but the bets make {len(pots)} pots (main pot, "
                    "side pot-1...)",
                )
            if index >= len(pots):
                raise _Bad(
                    number, f"collected from a pot our engine does not have ({len(pots)} pots)"
                )
            if not by_pot[index]:
                first_line[index] = number
            by_pot[index][seat] = by_pot[index].get(seat, 0) + amount
        rakes: list[int] = []
        for index, pot in enumerate(pots):
            net = sum(by_pot[index].values())
            rake = pot.amount - net
            name = _pot_name(index, len(pots))
            if rake < 0:
                raise _Bad(
                    first_line[index],
                    f"{self.text(net)} collected from the {name}, which holds "
                    f"{self.text(pot.amount)}",
                )
            rakes.append(rake)
            shares = awarded(pot, net)
            if shares != by_pot[index]:
                raise _Bad(
                    first_line[index],
                    f"the {name}: the file has {self.shares(by_pot[index])} collected; our engine "
                    f"awards {self.shares(shares)}",
                )
        if sum(rakes) != summary.rake:
            raise _Bad(
                summary.line,
                f"Rake {self.text(summary.rake)}, but the pots less what was collected leave "
                f"{self.text(sum(rakes))}",
            )
        if summary.listed:
            listed = dict(summary.listed)
            nets = {
                index: pot.amount - rake
                for index, (pot, rake) in enumerate(zip(pots, rakes, strict=True))
            }
            if len(pots) == 1 or listed != nets:
                raise _Bad(
                    summary.line,
                    f"the summary's pots {self.pots_text(listed)} are not what was collected "
                    f"from each pot: {self.pots_text(nets)}",
                )
        won: dict[int, int] = {}
        for shares in by_pot:
            for seat, amount in shares.items():
                won[seat] = won.get(seat, 0) + amount
        for seat, (number, amount) in summary.won.items():
            if amount != won.get(seat, 0):
                raise _Bad(
                    number,
                    f"seat {seat} won {self.text(amount)} in the summary but collected "
                    f"{self.text(won.get(seat, 0))}",
                )
        return with_results(record, hand, won, rakes, metadata)

    # ---------------------------------------------------------------- messages

    def text(self, units: int) -> str:
        return format_amount(units, self.currency)

    def describe(self, play: _Play) -> str:
        if play.verb in ("bet", "raise"):
            word = f"{play.verb} to {self.text(play.amount)}"
        elif play.verb == "call":
            word = f"call {self.text(play.amount)}"
        else:
            word = play.verb
        return word + (" all-in" if play.all_in else "")

    def returns(self, items: list[tuple[int, int]]) -> str:
        return ", ".join(f"{self.text(a)} to seat {s}" for s, a in items) or "none"

    def shares(self, shares: dict[int, int]) -> str:
        return ", ".join(f"seat {s} {self.text(a)}" for s, a in sorted(shares.items())) or "nothing"

    def pots_text(self, pots: dict[int, int]) -> str:
        return ", ".join(
            f"{_pot_name(i, len(pots))} {self.text(a)}" for i, a in sorted(pots.items())
        )


def _engine_play(event: Folded | Checked | Called | Raised) -> _Play:
    if isinstance(event, Folded):
        return _Play(0, event.seat, "fold")
    if isinstance(event, Checked):
        return _Play(0, event.seat, "check")
    if isinstance(event, Called):
        return _Play(0, event.seat, "call", event.amount, event.all_in)
    return _Play(0, event.seat, "bet" if event.bet else "raise", event.to, event.all_in)


def _pot_name(index: int, count: int) -> str:
    if count == 1:
        return "pot"
    if index == 0:
        return "main pot"
    return "side pot" if count == 2 else f"side pot-{index}"

"""The Annual Computer Poker Competition's notation (the ACPC dealer protocol, version 2.0.0).

ACPC bots are written for the competition's dealer: a game definition file says the game, and the
dealer sends each bot, over TCP, one ``MATCHSTATE`` line after every action. This module reads and
writes that notation and plays it on the rules engine:

- ``GameDef``: a game definition (``GAMEDEF`` ... ``END GAMEDEF``), read and written back;
  ``holdem_problem()`` says why a definition is not one the room can play (Limit or No-Limit
  Texas Hold'em, two or three players, the usual blinds and order of play).
- ``MatchState``: one ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` line, read and written
  back (``str``). Betting is per round, ``f`` fold, ``c`` check or call, ``r`` a Limit raise and
  ``r<amount>`` a No-Limit raise to ``<amount>``, the player's total in the hand (not the round).
- ``new_hand`` / ``apply_betting`` play ACPC betting on the engine (``feltroom.rules.Hand``):
  positions are seats ``1..n``, the button is seat ``n``, so the engine's order of play is the
  definition's; a No-Limit raise becomes the engine's raise-to total of the round.
  ``state_of(hand, ...)`` writes an engine hand back as the line the dealer would send.
- ``parse_log`` / ``replay_log`` read the dealer's match log (``STATE`` lines and ``SCORE``) and
  replay every hand through the engine to its recorded result (``feltroom replay`` takes
  ``.log`` files).

A Limit game has no stacks in ACPC; here each player then starts every hand with
``hand_cost()``, the most one hand can cost a player, so that nobody is ever all-in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from feltroom.cards import Card
from feltroom.errors import FeltroomError, IllegalAction, InvalidNotation
from feltroom.rules import (
    Action,
    Call,
    Check,
    FixedLimit,
    Fold,
    Hand,
    NoLimit,
    PotAwarded,
    RaiseTo,
    blinds,
)

__all__ = [
    "MAX_NUM_ACTIONS",
    "PROTOCOL_VERSION",
    "AcpcError",
    "GameDef",
    "HandCheck",
    "LogHand",
    "MatchLog",
    "MatchState",
    "action_text",
    "apply_betting",
    "dealer_counted",
    "game_named_by",
    "hand_from_state",
    "new_hand",
    "parse_action",
    "parse_log",
    "read_answer",
    "replay_hand",
    "replay_log",
    "split_reply",
    "state_of",
]

PROTOCOL_VERSION = "VERSION:2.0.0"
"""The first line a bot sends to the dealer."""

_HOLDEM = {"numRounds": 4, "numSuits": 4, "numRanks": 13, "numHoleCards": 2}
_HOLDEM_BOARD = (0, 3, 1, 1)
_BOARD_ROUNDS = {0: 0, 3: 1, 4: 2, 5: 3}  # board cards -> rounds past the pre-flop
_LIST_KEYS = ("stack", "blind", "raiseSize", "firstPlayer", "maxRaises", "numBoardCards")
_INT_KEYS = ("numPlayers", "numRounds", "numSuits", "numRanks", "numHoleCards")
_KEYS = {key.lower(): key for key in _LIST_KEYS + _INT_KEYS}


class AcpcError(FeltroomError, ValueError):
    """ACPC text that cannot be read, or a game the room cannot play; the message says why."""


# ------------------------------------------------------------------------------ game definitions


@dataclass(frozen=True, slots=True)
class GameDef:
    """A game definition. Lists are per player (``stack``, ``blind``) or per round (the rest),
    as in the file; ``first_player`` counts players from 1, as the file does. ``stack`` is
    ``None`` when the file gives none (Limit games: no limit on what a player may lose)."""

    betting: str
    num_players: int
    num_rounds: int
    blind: tuple[int, ...]
    first_player: tuple[int, ...]
    num_board_cards: tuple[int, ...]
    num_suits: int = 4
    num_ranks: int = 13
    num_hole_cards: int = 2
    stack: tuple[int, ...] | None = None
    raise_size: tuple[int, ...] | None = None
    max_raises: tuple[int, ...] | None = None

    @classmethod
    def parse(cls, text: str) -> GameDef:
        """Read a game definition file's text (keys in any case, ``#`` comments)."""
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        lines = [line for line in lines if line]
        if not lines or lines[0].upper() != "GAMEDEF":
            raise AcpcError("a game definition starts with a line GAMEDEF")
        if lines[-1].upper() != "END GAMEDEF":
            raise AcpcError("a game definition ends with a line END GAMEDEF")
        betting: str | None = None
        values: dict[str, tuple[int, ...]] = {}
        for line in lines[1:-1]:
            word = line.lower()
            if word in ("limit", "nolimit"):
                betting = word
                continue
            if "=" not in line:
                raise AcpcError(
                    f"game definition line {line!r} is not understood: write limit, nolimit "
                    "or key = values"
                )
            key, _, raw = line.partition("=")
            name = _KEYS.get(key.strip().lower())
            if name is None:
                raise AcpcError(
                    f"game definition key {key.strip()!r} is not known; known keys are "
                    f"{', '.join(_LIST_KEYS + _INT_KEYS)}"
                )
            try:
                values[name] = tuple(int(v) for v in raw.split())
            except ValueError:
                raise AcpcError(f"{name}: {raw.strip()!r} is not whole numbers") from None
        if betting is None:
            raise AcpcError("a game definition says limit or nolimit (pot-limit has no ACPC name)")
        missing = [
            k for k in ("numPlayers", "numRounds", "blind", "firstPlayer") if k not in values
        ]
        if missing:
            raise AcpcError(f"the game definition lacks {', '.join(missing)}")
        for key in _INT_KEYS:
            if key in values and len(values[key]) != 1:
                raise AcpcError(f"{key} is one number, not {len(values[key])}")

        def one(key: str, default: int) -> int:
            return values[key][0] if key in values else default

        game = cls(
            betting=betting,
            num_players=one("numPlayers", 2),
            num_rounds=one("numRounds", 4),
            blind=values["blind"],
            first_player=values["firstPlayer"],
            num_board_cards=values.get("numBoardCards", (0,) * one("numRounds", 4)),
            num_suits=one("numSuits", 4),
            num_ranks=one("numRanks", 13),
            num_hole_cards=one("numHoleCards", 2),
            stack=values.get("stack"),
            raise_size=values.get("raiseSize"),
            max_raises=values.get("maxRaises"),
        )
        game._check_lengths()
        return game

    def _check_lengths(self) -> None:
        players, rounds = self.num_players, self.num_rounds
        if not 2 <= players <= 10:
            raise AcpcError(f"numPlayers: {players} is not valid; valid values are 2..10")
        per_player = [("blind", self.blind), ("stack", self.stack)]
        per_round = [
            ("firstPlayer", self.first_player),
            ("numBoardCards", self.num_board_cards),
            ("raiseSize", self.raise_size),
            ("maxRaises", self.max_raises),
        ]
        for name, value in per_player:
            if value is not None and len(value) != players:
                raise AcpcError(f"{name} gives {len(value)} numbers; numPlayers is {players}")
        for name, value in per_round:
            if value is not None and len(value) != rounds:
                raise AcpcError(f"{name} gives {len(value)} numbers; numRounds is {rounds}")
        if self.betting == "limit" and self.raise_size is None:
            raise AcpcError("a limit game definition gives raiseSize")

    def text(self) -> str:
        """The definition as a file (``GameDef.parse`` reads it back)."""

        def row(name: str, value: Iterable[int]) -> str:
            return f"{name} = {' '.join(map(str, value))}"

        lines = ["GAMEDEF", self.betting, row("numPlayers", [self.num_players])]
        lines.append(row("numRounds", [self.num_rounds]))
        if self.stack is not None:
            lines.append(row("stack", self.stack))
        lines.append(row("blind", self.blind))
        if self.raise_size is not None:
            lines.append(row("raiseSize", self.raise_size))
        lines.append(row("firstPlayer", self.first_player))
        if self.max_raises is not None:
            lines.append(row("maxRaises", self.max_raises))
        lines.append(row("numSuits", [self.num_suits]))
        lines.append(row("numRanks", [self.num_ranks]))
        lines.append(row("numHoleCards", [self.num_hole_cards]))
        lines.append(row("numBoardCards", self.num_board_cards))
        lines.append("END GAMEDEF")
        return "\n".join(lines) + "\n"

    # -- what the room can play

    def holdem_problem(self) -> str | None:
        """Why the room cannot play this game (``None``: it can): Texas Hold'em (four rounds,
        52 cards, two hole cards, boards of 0 3 1 1), Limit or No-Limit, two or three players,
        the usual blinds (heads-up ``blind = BB SB``, three-handed ``blind = SB BB 0``), the
        usual order of play (``firstPlayer = 2 1 1 1`` or ``3 1 1 1``); Limit: small bets
        before the turn equal to the big blind, big bets after, a cap of ``maxRaises = k-1 k k
        k``; No-Limit: one stack for everyone."""
        sizes = {
            "numRounds": self.num_rounds,
            "numSuits": self.num_suits,
            "numRanks": self.num_ranks,
            "numHoleCards": self.num_hole_cards,
        }
        for key, value in _HOLDEM.items():
            if sizes[key] != value:
                return f"{key} is {sizes[key]}; Texas Hold'em has {value}"
        if self.num_board_cards != _HOLDEM_BOARD:
            return f"numBoardCards is {_spaced(self.num_board_cards)}; Texas Hold'em has 0 3 1 1"
        n = self.num_players
        if n not in (2, 3):
            return f"numPlayers is {n}; the bridge plays heads-up and 3-player games"
        first = (2, 1, 1, 1) if n == 2 else (3, 1, 1, 1)
        if self.first_player != first:
            return (
                f"firstPlayer is {_spaced(self.first_player)}; the room's order of play is "
                f"{_spaced(first)}"
            )
        small, big = self.small_blind, self.big_blind
        usual = (big, small) if n == 2 else (small, big, 0)
        if not 0 < small <= big or self.blind != usual:
            want = "BB SB" if n == 2 else "SB BB 0"
            return f"blind is {_spaced(self.blind)}; the room posts blind = {want}"
        if self.betting == "limit":
            sizes_ = self.raise_size
            assert sizes_ is not None
            low, high = sizes_[0], sizes_[2]
            if sizes_ != (low, low, high, high) or low != big:
                return (
                    f"raiseSize is {_spaced(sizes_)}; the room's Limit bets are the big blind "
                    f"before the turn and one bigger bet after ({big} {big} B B)"
                )
            raises = self.max_raises
            if raises is None or raises[0] + 1 != raises[1] or raises[1:] != (raises[1],) * 3:
                shown = "none" if raises is None else _spaced(raises)
                return f"maxRaises is {shown}; the room caps every round alike (k-1 k k k)"
        elif self.stack is None or len(set(self.stack)) != 1:
            shown = "none" if self.stack is None else _spaced(self.stack)
            return f"stack is {shown}; a No-Limit game here gives every player one stack"
        return None

    def check_holdem(self) -> None:
        """Raise ``AcpcError`` unless the room can play this game (see ``holdem_problem``)."""
        problem = self.holdem_problem()
        if problem is not None:
            raise AcpcError(f"the game definition is not one the room plays: {problem}")

    @property
    def limit(self) -> bool:
        return self.betting == "limit"

    @property
    def big_blind(self) -> int:
        return max(self.blind)

    @property
    def small_blind(self) -> int:
        positive = sorted(b for b in self.blind if b > 0)
        return positive[0] if len(positive) > 1 else 0

    @property
    def bets_per_round(self) -> int:
        """The room's cap: bets in a round, the big blind counting as the first (Limit)."""
        assert self.max_raises is not None
        return self.max_raises[1]

    def hand_cost(self) -> int:
        """The most one hand can cost a player: the stack (No-Limit), else every round capped
        (Limit)."""
        if not self.limit:
            assert self.stack is not None
            return self.stack[0]
        assert self.raise_size is not None
        return self.bets_per_round * sum(self.raise_size)

    def structure(self) -> FixedLimit | NoLimit:
        """The engine's betting structure for this game (never uncapped heads-up: ACPC caps)."""
        if self.limit:
            assert self.raise_size is not None
            return FixedLimit(
                self.raise_size[0], self.raise_size[2], self.bets_per_round, uncapped_heads_up=False
            )
        return NoLimit(self.big_blind)


def _spaced(values: Iterable[int]) -> str:
    return " ".join(map(str, values))


# ------------------------------------------------------------------------------ match states


def parse_action(token: str) -> tuple[str, int | None]:
    """``"f"``, ``"c"``, ``"r"`` or ``"r<amount>"`` as (letter, amount or ``None``)."""
    if token in ("f", "c", "r"):
        return token, None
    if token[:1] == "r" and token[1:].isdigit():
        return "r", int(token[1:])
    raise AcpcError(f"{token!r} is not an ACPC action; valid: f, c, r, r<amount>")


MAX_NUM_ACTIONS = 64
"""The reference dealer's most actions in one betting round: a raise when the round's actions
plus the players would exceed it is not possible (the dealer plays a call instead)."""

_DEALER_LETTERS = {"f": "f", "c": "c", "k": "c", "r": "r", "b": "r"}
_SIZE = re.compile(r"\s*([+-]?\d+)")


def read_answer(game: GameDef, text: str) -> tuple[str, int | None, bool]:
    """A bot's action text read as the reference dealer reads it: (``f``, ``c`` or ``r``; the
    No-Limit size; whether it could be read). The first character names the action in either
    case (``k`` a call, ``b`` a raise); a No-Limit raise is followed by a signed number. What the
    dealer cannot read (``x``, nothing, ``r`` without a size in No-Limit) it plays as a call:
    ``("c", None, False)``. A size out of range is the caller's to fix."""
    letter = _DEALER_LETTERS.get(text[:1].lower())
    if letter is None:
        return "c", None, False
    if letter != "r" or game.limit:
        return letter, None, True
    size = _SIZE.match(text, 1)
    if size is None:
        return "c", None, False
    return "r", int(size.group(1)), True


def _actions(text: str) -> tuple[str, ...]:
    """One round's betting text split into action tokens."""
    tokens: list[str] = []
    k = 0
    while k < len(text):
        letter = text[k]
        if letter not in "fcr":
            raise AcpcError(f"betting {text!r}: {letter!r} is not f, c or r")
        end = k + 1
        if letter == "r":
            while end < len(text) and text[end].isdigit():
                end += 1
        tokens.append(text[k:end])
        k = end
    return tuple(tokens)


def _card_run(text: str, what: str) -> tuple[Card, ...]:
    if len(text) % 2:
        raise AcpcError(f"{what} {text!r} is not whole cards (two characters each)")
    try:
        return tuple(Card.parse(text[i : i + 2]) for i in range(0, len(text), 2))
    except InvalidNotation as error:
        raise AcpcError(f"{what} {text!r}: {error}") from None


@dataclass(frozen=True, slots=True)
class MatchState:
    """One ``MATCHSTATE`` line: the viewer's ``position``, the ``hand`` number, the betting per
    round reached (``betting[0]`` the pre-flop), the hole cards per position (empty where
    unknown) and the board cards per round past the pre-flop."""

    position: int
    hand: int
    betting: tuple[tuple[str, ...], ...] = ((),)
    holes: tuple[tuple[Card, ...], ...] = ()
    board: tuple[tuple[Card, ...], ...] = ()

    @classmethod
    def parse(cls, line: str) -> MatchState:
        text = line.rstrip("\r\n")
        parts = text.split(":")
        if len(parts) != 5 or parts[0] != "MATCHSTATE":
            raise AcpcError(
                f"{text!r} is not a match state: MATCHSTATE:<position>:<hand>:<betting>:<cards>"
            )
        _, position, number, betting, cards = parts
        if not position.isdigit() or not number.isdigit():
            raise AcpcError(f"{text!r}: position and hand number are whole numbers")
        rounds = tuple(_actions(r) for r in betting.split("/"))
        pieces = cards.split("/")
        holes = tuple(_card_run(h, "hole cards") for h in pieces[0].split("|"))
        board = tuple(_card_run(b, "board cards") for b in pieces[1:])
        return cls(int(position), int(number), rounds, holes, board)

    def __str__(self) -> str:
        betting = "/".join("".join(r) for r in self.betting)
        cards = "|".join("".join(map(str, h)) for h in self.holes)
        cards += "".join("/" + "".join(map(str, b)) for b in self.board)
        return f"MATCHSTATE:{self.position}:{self.hand}:{betting}:{cards}"

    def reply(self, action: str) -> str:
        """The line that answers this state with ``action`` (no line end)."""
        parse_action(action)
        return f"{self}:{action}"

    @property
    def actions(self) -> tuple[str, ...]:
        """Every action of the hand so far, in order."""
        return tuple(token for r in self.betting for token in r)


def split_reply(line: str) -> tuple[str, str]:
    """A bot's answer ``<match state>:<action>`` as (the state text, the action token)."""
    text = line.rstrip("\r\n")
    state, sep, action = text.rpartition(":")
    if not sep or not state.startswith("MATCHSTATE:"):
        raise AcpcError(f"{text!r} is not an answer: <the match state>:<action>")
    parse_action(action)
    return state, action


# ------------------------------------------------------------------------------ on the engine


def _deck(
    game: GameDef, holes: Sequence[Sequence[Card]], board: Sequence[Card]
) -> list[Card | None]:
    """The engine's deck (first hole cards by position, second ones, then burn, flop, burn,
    turn, burn, river): the cards known, ``None`` for the rest."""
    n = game.num_players
    deck: list[Card | None] = [None] * (2 * n + 8)
    for p in range(n):
        cards = holes[p] if p < len(holes) else ()
        if len(cards) == 2:
            deck[p], deck[n + p] = cards[0], cards[1]
        elif cards:
            raise AcpcError(f"position {p} holds {len(cards)} hole cards; Hold'em deals 2")
    spots = [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7]
    for spot, card in zip(spots, board, strict=False):
        deck[spot] = card
    return deck


def new_hand(
    game: GameDef,
    holes: Sequence[Sequence[Card]] = (),
    board: Sequence[Card] = (),
    stacks: Sequence[int] | None = None,
) -> Hand:
    """A fresh engine hand of ``game``: position ``p`` is seat ``p + 1``, the button seat ``n``;
    each player has ``stacks`` (default ``hand_cost()``) and the cards known are dealt."""
    game.check_holdem()
    n = game.num_players
    chips = list(stacks) if stacks is not None else [game.hand_cost()] * n
    players = [(p + 1, chips[p]) for p in range(n)]
    forced = blinds(players, n, game.small_blind, game.big_blind)
    return Hand(game.structure(), players, n, forced, _deck(game, holes, board))


def _engine_action(game: GameDef, hand: Hand, token: str) -> Action:
    letter, amount = parse_action(token)
    legal = hand.legal_actions()
    if legal is None:
        raise AcpcError(f"{token!r} comes after the hand is over")
    if letter == "f":
        return Fold()
    if letter == "c":
        return Check() if legal.check else Call()
    if game.limit:
        if amount is not None:
            raise AcpcError(f"{token!r}: a Limit raise is written r, without an amount")
        if legal.raise_min is None:
            raise AcpcError(f"{token!r}: no raise is possible here ({legal})")
        return RaiseTo(legal.raise_min)
    if amount is None:
        raise AcpcError(f"{token!r}: a No-Limit raise says its amount, r<total>")
    p = hand.seats.index(legal.seat)
    before_round = hand.contributions[p] - hand.bets[p]
    return RaiseTo(amount - before_round)


def apply_betting(game: GameDef, hand: Hand, betting: Sequence[Sequence[str]]) -> Hand:
    """Play ACPC betting (tokens per round) on ``hand``; ``AcpcError`` names the first action
    the engine refuses (or one in a round the hand has not reached)."""
    for number, tokens in enumerate(betting):
        for token in tokens:
            if hand.is_over:
                raise AcpcError(f"{token!r} comes after the hand is over")
            if hand.street != number:
                raise AcpcError(
                    f"{token!r} is written in round {number}; the hand is in round {hand.street}"
                )
            action = _engine_action(game, hand, token)
            try:
                hand.act(action)
            except IllegalAction as error:
                raise AcpcError(f"{token!r} is not legal here: {error}") from None
    return hand


def hand_from_state(game: GameDef, state: MatchState) -> Hand:
    """The engine hand a match state describes (unknown cards left ``None``): who is to act
    and the legal actions come from it."""
    board = [card for cards in state.board for card in cards]
    return apply_betting(game, new_hand(game, state.holes, board), state.betting)


def action_text(game: GameDef, hand: Hand, action: Action) -> str:
    """The ACPC token for ``action`` by the player to act in ``hand`` (before it is played)."""
    if isinstance(action, Fold):
        return "f"
    if isinstance(action, Check | Call):
        return "c"
    if isinstance(action, RaiseTo):
        if game.limit:
            return "r"
        p = hand.seats.index(hand.to_act) if hand.to_act is not None else 0
        return f"r{hand.contributions[p] - hand.bets[p] + action.amount}"
    raise AcpcError(f"{action} is not a player's action")


def state_of(
    game: GameDef, hand: Hand, position: int, number: int, show_all: bool = False
) -> MatchState:
    """The line the dealer would send ``position`` about ``hand`` (hand ``number``): its own
    cards, the cards shown at the table (``show_all``: every player's not folded, as the ACPC
    dealer shows them once the hand is over)."""
    replayed = Hand.from_setup(hand.setup)
    rounds: list[list[str]] = [[] for _ in range(4)]
    for seat, action in hand.log:
        if not isinstance(action, Fold | Check | Call | RaiseTo):
            continue
        street = replayed.street
        rounds[street].append(action_text(game, replayed, action))
        replayed.act(action, seat, forced=isinstance(action, Fold))
    reached = _BOARD_ROUNDS[len(hand.board)]
    n = game.num_players
    showdown = show_all and hand.is_over and hand.folded.count(False) > 1
    holes: list[tuple[Card, ...]] = []
    for p in range(n):
        seat = p + 1
        visible = p == position or seat in hand.shown
        visible = visible or (showdown and not hand.folded[p])
        cards = hand.hole_cards(seat)
        known = visible and all(c is not None for c in cards)
        holes.append(tuple(c for c in cards if c is not None) if known else ())
    board = [c for c in hand.board if c is not None]
    per_round = [tuple(board[:3]), tuple(board[3:4]), tuple(board[4:5])][:reached]
    return MatchState(
        position,
        number,
        tuple(tuple(r) for r in rounds[: reached + 1]),
        tuple(holes),
        tuple(per_round),
    )


# ------------------------------------------------------------------------------ match logs


@dataclass(frozen=True, slots=True)
class LogHand:
    """One ``STATE`` line: the hand number, the betting, every position's cards and the board,
    the value each position won (negative: lost) and the players' names by position."""

    number: int
    betting: tuple[tuple[str, ...], ...]
    holes: tuple[tuple[Card, ...], ...]
    board: tuple[tuple[Card, ...], ...]
    values: tuple[Decimal, ...]
    names: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A dealer's match log: the hands, the final ``SCORE`` per player (``None`` if absent)."""

    hands: tuple[LogHand, ...]
    score: dict[str, Decimal] | None = field(default=None)
    header: tuple[str, ...] = ()


def _decimal(text: str, where: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        raise AcpcError(f"{where}: {text!r} is not a number") from None


def parse_log(text: str) -> MatchLog:
    """Read a dealer's match log (``#`` header lines, ``STATE`` lines, ``SCORE``)."""
    hands: list[LogHand] = []
    header: list[str] = []
    score: dict[str, Decimal] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"line {number}"
        if not line:
            continue
        if line.startswith("#"):
            header.append(line)
            continue
        parts = line.split(":")
        if parts[0] == "SCORE" and len(parts) == 3:
            totals = [_decimal(v, where) for v in parts[1].split("|")]
            players = parts[2].split("|")
            if len(totals) != len(players):
                raise AcpcError(f"{where}: {len(totals)} scores for {len(players)} players")
            score = dict(zip(players, totals, strict=True))
            continue
        if parts[0] != "STATE" or len(parts) != 6:
            raise AcpcError(
                f"{where}: {line!r} is neither STATE:<hand>:<betting>:<cards>:<values>:<names> "
                "nor SCORE:<values>:<names>"
            )
        state = MatchState.parse(f"MATCHSTATE:0:{parts[1]}:{parts[2]}:{parts[3]}")
        values = tuple(_decimal(v, where) for v in parts[4].split("|"))
        names = tuple(parts[5].split("|"))
        if len(values) != len(names) or len(state.holes) != len(names):
            raise AcpcError(f"{where}: positions disagree ({len(names)} names)")
        hands.append(
            LogHand(state.hand, state.betting, state.holes, state.board, values, names, number)
        )
    return MatchLog(tuple(hands), score, tuple(header))


def replay_hand(game: GameDef, logged: LogHand) -> Hand:
    """Play one logged hand through the engine (every player with ``hand_cost()`` chips)."""
    board = [card for cards in logged.board for card in cards]
    hand = apply_betting(game, new_hand(game, logged.holes, board), logged.betting)
    if not hand.is_over:
        raise AcpcError(f"hand {logged.number}: the betting stops before the hand is over")
    return hand


@dataclass(frozen=True, slots=True)
class HandCheck:
    """One logged hand replayed: the engine's final stacks and the recorded ones (start plus
    value), by position; ``error`` when the engine refused the hand. ``counted``: the engine's
    stacks counted as the dealer counts them (``dealer_counted``), which the check compares."""

    number: int
    start: int
    finishing: tuple[int, ...] | None
    expected: tuple[Decimal, ...]
    error: str | None = None
    counted: tuple[Decimal, ...] | None = None

    @property
    def odd_chip(self) -> bool:
        """The hand matched only as the dealer counts odd chips (``dealer_counted``)."""
        if self.counted is None or self.finishing is None:
            return False
        return any(Decimal(f) != c for f, c in zip(self.finishing, self.counted, strict=True))

    @property
    def match(self) -> bool:
        got = self.counted if self.counted is not None else self.finishing
        return (
            self.error is None
            and got is not None
            and all(f == e for f, e in zip(got, self.expected, strict=True))
        )


def dealer_counted(hand: Hand) -> tuple[Decimal, ...]:
    """A finished hand's final stacks (by position) counted as the reference dealer counts
    them: a pot split between winners is shared equally, an odd chip included (a pot of 5
    split two ways is 2.5 each; the engine gives the odd chip to the first winner from the
    button's left, 3 and 2, R-POT-1). The two agree but for those odd chips: each pot's total
    is the same, and each winner's share differs by less than one chip."""
    stacks = [Decimal(stack) for stack in hand.final_stacks]
    for event in hand.events:
        if isinstance(event, PotAwarded) and len(event.winners) > 1:
            equal = Decimal(event.amount - event.rake) / len(event.winners)
            for seat, share in zip(event.winners, event.shares, strict=True):
                stacks[seat - 1] += equal - share
    return tuple(stacks)


def replay_log(game: GameDef, log: MatchLog) -> tuple[list[HandCheck], dict[str, Decimal]]:
    """Replay every hand of a match log; returns each hand's check and each player's total
    by the engine (to compare with ``log.score``)."""
    checks: list[HandCheck] = []
    totals: dict[str, Decimal] = {}
    start = game.hand_cost()
    for logged in log.hands:
        expected = tuple(start + v for v in logged.values)
        try:
            hand = replay_hand(game, logged)
        except (AcpcError, FeltroomError) as error:
            checks.append(HandCheck(logged.number, start, None, expected, str(error)))
            continue
        counted = dealer_counted(hand)
        checks.append(HandCheck(logged.number, start, hand.final_stacks, expected, counted=counted))
        for name, final in zip(logged.names, counted, strict=True):
            totals[name] = totals.get(name, Decimal(0)) + final - start
    return checks, totals


def game_named_by(log: MatchLog) -> str | None:
    """The game definition file a dealer's log names in its header
    (``# name/game/hands/seed <match> <game file> <hands> <seed>``), or ``None``."""
    for line in log.header:
        words = line.lstrip("#").split()
        if words and words[0] == "name/game/hands/seed" and len(words) >= 3:
            return words[2]
    return None

"""Import Open Hand History (OHH) JSON (layer ``history``): ``loads(text)``, ``load_file(path)``.

A file holds one OHH document (``{"ohh": {...}}``) or several: one per line (as our export and
``feltroom convert --to ohh`` write them), a JSON array of them, or documents separated by any
whitespace (pretty-printed ones too). ``spec_version`` 1.2 and newer (1.x) is read; amounts are
parsed as ``Decimal``, never as floats. Each document is first checked against the shipped schema
(``feltroom.history.ohh.validate``: errors name the JSON path), then read into a ``HandRecord``:

* Hold'em only; ``bet_limit.bet_type`` ``NL``/``PL``/``FL``; a cap game (``bet_cap`` above 0) is
  not supported. Stakes: the big blind is the minimum bet (no- and pot-limit) or the small bet
  (fixed-limit, whose big bet is the first turn or river bet not all-in, else twice the small).
* Money: ``exponent`` is the number of decimals of the currency (2 for USD, EUR, GBP, CAD, AUD,
  CHF) or, when the amounts have more, theirs; every amount must be a whole number of units.
* Players (those sitting out and never acting are left out) in dealing order from the button's
  left; their hole cards from ``Dealt Cards``, ``Shows Cards`` and ``Mucks Cards`` actions.
* Forced bets: ``Post SB``, ``Post BB`` (the first one is the big blind, later ones an entering
  player's post), ``Post Ante``, ``Straddle``, ``Post Dead`` and ``Added To Pot`` (dead money),
  ``Post Extra Blind`` (a live post). A forced bet posted all-in for less keeps its nominal amount
  (the header's stakes; a straddle twice the big blind), as the engine posts it; a big blind the
  player could not post at all (all-in on the ante) is added back the same way.
* Actions: OHH amounts are the chips each action adds; a ``Bet``/``Raise`` becomes the record's
  raise-to total for the street. The board comes from the rounds' ``cards``.
* Protections (R-ALLIN-5) have no OHH action: in our own files (``site_name`` ``feltroom``) a
  player the engine waits for who acts no more is protected just there.

Every hand is replayed through the engine (``feltroom.history.replay.replay``) and checked: each
post, check, call, bet and raise must be what the engine does; the file's pots (each pot's
``amount`` including its rake, and ``jackpot`` counted as house take with the rake) must be the
engine's pots; in each pot, ``amount - rake`` must be what the pot's ``player_wins`` received,
split among the engine's winners as R-POT-1 splits it, and ``contributed_rake`` (when given) must
add up to the pot's rake. The file's results are kept: ``winnings`` (what each player received),
``finishing_stacks``, and the rake (R-RAKE-3) as a ``RakeRecord`` whose rule gives the file's rake
pot by pot (``fraction`` the largest pot's share, ``cap`` the hand's rake), so that replaying the
record gives the file's pots and stacks; when no such rule exists the record has no rake rule and
``metadata['rake']`` still holds the amount.

``metadata`` keeps ``table``, ``started`` (ISO 8601 UTC), ``currency``, ``site``, ``network``,
``table_size``, ``hero`` (the hero's name), ``tournament`` and ``tournament_info``, ``pots`` (each
pot's amount and rake, in units) and ``rake``. The hand id is ``game_number``, an ``int`` when it
is all digits. A document that cannot be read, replayed or reconciled is an ``ImportProblem`` with
its hand id and the line where the document starts; the other documents are still imported. See
docs/hand-histories.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

from feltroom.cards import Card
from feltroom.errors import FeltroomError
from feltroom.history.imports import ImportProblem, ImportResult, awarded, with_results
from feltroom.history.ohh import validate
from feltroom.history.record import (
    Action,
    ActionKind,
    ForcedBet,
    ForcedKind,
    HandRecord,
    PlayerRecord,
    Protection,
    Stakes,
    Structure,
)
from feltroom.history.replay import ReplayError, build_deck, replay
from feltroom.rules import (
    Called,
    Check,
    Checked,
    FixedLimit,
    Fold,
    Folded,
    Forced,
    Hand,
    NoLimit,
    Posted,
    PotAwarded,
    PotLimit,
    Raised,
    RaiseTo,
)
from feltroom.rules import ForcedBet as EngineForcedBet

__all__ = ["is_ohh", "load_file", "loads"]

# Currencies whose unit is a hundredth (the same list as the room's ledger).
_CENTS = frozenset({"USD", "EUR", "GBP", "CAD", "AUD", "CHF"})
_STRUCTURES = {
    "NL": Structure.NO_LIMIT,
    "PL": Structure.POT_LIMIT,
    "FL": Structure.FIXED_LIMIT,
}
_STREETS = {"Preflop": 0, "Flop": 1, "Turn": 2, "River": 3, "Showdown": 4}
_BOARD_SIZE = {1: 3, 2: 1, 3: 1}
_POSTS = {
    "Post SB": ForcedKind.SMALL_BLIND,
    "Post BB": ForcedKind.BIG_BLIND,
    "Post Ante": ForcedKind.ANTE,
    "Straddle": ForcedKind.STRADDLE,
    "Post Dead": ForcedKind.DEAD_BLIND,
    "Added To Pot": ForcedKind.DEAD_BLIND,
    "Post Extra Blind": ForcedKind.POST,
}
_IGNORED = frozenset({"Sits Down", "Stands Up"})
_DEAD = (ForcedKind.ANTE, ForcedKind.DEAD_BLIND)
_SITE = "feltroom"  # our own exports: their table protections (R-ALLIN-5) are read back
_AMOUNT_KEYS = ("amount", "rake", "jackpot")
_WIN_KEYS = ("win_amount", "contributed_rake")
_GAME_NUMBER = re.compile(r'"game_number"\s*:\s*"([^"\\]*)"')


class _Bad(Exception):
    """A hand that cannot be imported: why (the line is the document's)."""


# ------------------------------------------------------------------------------ the file


def is_ohh(text: str) -> bool:
    """Whether ``text`` looks like OHH JSON (by content, not by file name): a JSON object or
    array that names ``"ohh"`` or ``"spec_version"`` near its start. A truncated or invalid
    document still counts, so that its problem is reported."""
    stripped = text.removeprefix("\ufeff").lstrip()
    head = stripped[:4096]
    return stripped[:1] in ("{", "[") and ('"ohh"' in head or '"spec_version"' in head)


def load_file(path: str | Path) -> ImportResult:
    """Import every OHH document of the file at ``path`` (UTF-8, a byte-order mark allowed)."""
    return loads(Path(path).read_text(encoding="utf-8-sig"))


def loads(text: str) -> ImportResult:
    """Import every OHH document of ``text``, in file order: the records of the hands read and
    one ``ImportProblem`` for each document that could not be (invalid or truncated JSON, not an
    OHH document, a schema error, an unsupported game, amounts that do not reconcile with the
    engine's replay)."""
    records: list[HandRecord] = []
    problems: list[ImportProblem] = []
    for line, document, error, raw in _documents(text.removeprefix("\ufeff")):
        hand_id = _id_of(document, raw)
        if error is not None:
            problems.append(ImportProblem(hand_id, line, error))
            continue
        try:
            records.append(_import(document))
        except _Bad as bad:
            problems.append(ImportProblem(hand_id, line, str(bad)))
        except (KeyError, TypeError, ValueError, ArithmeticError) as error:
            # Content the schema lets through but no hand can have: still this hand's problem.
            problems.append(ImportProblem(hand_id, line, f"cannot read the hand: {error!r}"))
    return ImportResult(tuple(records), tuple(problems))


def _id_of(document: object, raw: str) -> str | None:
    if isinstance(document, dict):
        hand = document.get("ohh", document)
        if isinstance(hand, dict) and isinstance(hand.get("game_number"), str):
            return str(hand["game_number"])
    found = _GAME_NUMBER.search(raw)
    return found.group(1) if found else None


def _documents(text: str) -> Iterator[tuple[int, object, str | None, str]]:
    """``(line, document, error, raw text)`` for each document of ``text``: the 1-based line where
    it starts, the parsed JSON (``None`` with an error message when it cannot be parsed) and its
    text. After a parse error, reading resumes at the next line starting with ``{`` at the
    column where the bad document started."""
    decoder = json.JSONDecoder(parse_float=Decimal)
    position = _skip(text, 0)
    in_array = position < len(text) and text[position] == "["
    if in_array:
        position = _skip(text, position + 1)
        if text.startswith("]", position):
            return
    line, counted = 1, 0  # the line of ``position``, counted up to ``counted``
    while position < len(text):
        line += text.count("\n", counted, position)
        counted = position
        try:
            document, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            column = position - (text.rfind("\n", 0, position) + 1)
            resume = re.compile(rf"^[ \t]{{{column}}}\{{", re.MULTILINE)
            found = resume.search(text, text.find("\n", position) + 1 or len(text))
            stop = found.start() if found else len(text)
            message = f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
            yield line, None, message, text[position:stop]
            position = stop
            continue
        yield line, document, None, text[position:end]
        position = _skip(text, end)
        if in_array and position < len(text):
            if text[position] == ",":
                position = _skip(text, position + 1)
            elif text[position] == "]":
                position = _skip(text, position + 1)
                in_array = False
    return


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


# ------------------------------------------------------------------------------ one document


def _import(document: object) -> HandRecord:
    if isinstance(document, dict) and "ohh" not in document and "spec_version" in document:
        document = {"ohh": document}  # a bare hand object, as some writers give it
    if not isinstance(document, dict) or "ohh" not in document:
        raise _Bad('not an OHH document: expected an object {"ohh": {...}}')
    errors = validate(document)
    if errors:
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise _Bad("does not fit the OHH schema: " + "; ".join(errors[:3]) + more)
    reader = _Reader(document["ohh"])
    base = reader.record()
    failure: _Bad | None = None
    for extra in reader.options:
        record = replace(base, forced_bets=base.forced_bets + extra)
        if reader.hand["site_name"] == _SITE:
            record = replace(record, protections=_protections(record))
        try:
            try:
                hand = replay(record)
            except (ReplayError, FeltroomError) as error:
                raise _Bad(f"our engine cannot replay the hand: {error}") from error
            reader.check_actions(hand)
            return reader.reconcile(record, hand)
        except _Bad as bad:
            failure = failure or bad
    assert failure is not None
    raise failure


def _protections(record: HandRecord) -> tuple[Protection, ...]:
    """Where our table protected a player (R-ALLIN-5), which OHH has no action for: a player the
    engine waits for who acts no more in the record was protected just there. Empty when the
    hand needs none, or goes wrong before (its replay then says why)."""
    stakes = record.stakes
    structure: FixedLimit | PotLimit | NoLimit
    if record.structure is Structure.FIXED_LIMIT:
        structure = FixedLimit(stakes.small_bet, stakes.big_bet, max_bets_per_round=None)
    elif record.structure is Structure.POT_LIMIT:
        structure = PotLimit(stakes.small_bet)
    else:
        structure = NoLimit(stakes.small_bet)
    forced = [
        EngineForcedBet(
            bet.seat,
            Forced.DEAD if bet.kind is ForcedKind.DEAD_BLIND else Forced(bet.kind.value),
            bet.amount,
        )
        for bet in record.forced_bets
    ]
    plays = [
        (index, action)
        for index, action in enumerate(record.actions)
        if action.kind in (ActionKind.FOLD, ActionKind.CHECK_CALL, ActionKind.BET_RAISE)
    ]
    last = {action.seat: index for index, action in plays}
    stacks = [(player.seat, player.stack or 0) for player in record.players]
    protections: list[Protection] = []
    try:
        hand = Hand(structure, stacks, record.button, forced, build_deck(record))
        for index, next_play in [*plays, (len(record.actions), None)]:
            while (
                (seat := hand.to_act) is not None
                and (next_play is None or seat != next_play.seat)
                and last.get(seat, -1) < index
            ):
                hand.protect(seat)
                protections.append(Protection(index, seat))
            if next_play is None:
                break
            if next_play.kind is ActionKind.CHECK_CALL:
                hand.check_or_call()
            elif next_play.kind is ActionKind.FOLD:
                hand.act(Fold(), next_play.seat, forced=hand.can(Check(), next_play.seat))
            else:
                hand.act(RaiseTo(next_play.amount or 0), next_play.seat)
    except FeltroomError:
        return ()
    return tuple(protections)


def _amounts(hand: Mapping[str, Any]) -> Iterator[Decimal | int]:
    """Every amount of the hand that is money at the table."""
    for key in ("small_blind_amount", "big_blind_amount", "ante_amount"):
        yield hand[key]
    yield hand["bet_limit"].get("bet_cap", 0)
    for player in hand["players"]:
        yield player["starting_stack"]
    for round_ in hand["rounds"]:
        for action in round_["actions"]:
            yield action.get("amount", 0)
    for pot in hand["pots"]:
        for key in _AMOUNT_KEYS:
            yield pot.get(key, 0)
        for win in pot["player_wins"]:
            for key in _WIN_KEYS:
                yield win.get(key, 0)


def _decimals(value: Decimal | int) -> int:
    if not isinstance(value, Decimal) or not value.is_finite():
        return 0
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _cards(value: object, where: str) -> tuple[Card | None, ...]:
    if not isinstance(value, list):
        return ()
    cards: list[Card | None] = []
    for text in value:
        cards.append(None if text == "??" else Card.parse(str(text)))
    if len({card for card in cards if card is not None}) != sum(c is not None for c in cards):
        raise _Bad(f"{where}: a card appears twice")
    return tuple(cards)


class _Reader:
    """One validated OHH hand object, read into a record and checked against the engine."""

    def __init__(self, hand: Mapping[str, Any]) -> None:
        self.hand = hand
        game = hand["game_type"]
        if game != "Holdem":
            raise _Bad(f"game_type {game!r} is not supported; feltroom plays 'Holdem' only")
        limit = hand["bet_limit"]
        if limit.get("bet_cap", 0):
            raise _Bad(f"bet_cap {limit['bet_cap']}: capped games are not supported (expected 0)")
        self.twice = "Run_It_Twice" in (hand.get("flags") or ())
        self.structure = _STRUCTURES[limit["bet_type"]]
        currency = str(hand["currency"])
        self.exponent = max(2 if currency.upper() in _CENTS else 0, *map(_decimals, _amounts(hand)))
        self.scale = Decimal(10) ** self.exponent
        # What the file states, filled in by ``record``.
        self.posts: list[tuple[int, int]] = []  # (seat, amount posted)
        self.plays: list[tuple[str, int, int, str]] = []  # (verb, seat, amount, where)

    def units(self, value: Decimal | int, where: str) -> int:
        if not isinstance(value, Decimal | int) or not Decimal(value).is_finite():
            raise _Bad(f"{where}: {value} is not an amount")
        scaled = Decimal(value) * self.scale
        if scaled != scaled.to_integral_value():
            raise _Bad(f"{where}: {value} is not a whole number of units")
        return int(scaled)

    def record(self) -> HandRecord:
        hand = self.hand
        players_in = hand["players"]
        acting = {
            action["player_id"]
            for round_ in hand["rounds"]
            for action in round_["actions"]
            if action["action"] not in _IGNORED
        }
        seat_of: dict[int, int] = {}
        name_of: dict[int, str] = {}
        stack_of: dict[int, int] = {}
        for k, player in enumerate(players_in):
            if player.get("is_sitting_out") and player["id"] not in acting:
                continue
            seat, pid = player["seat"], player["id"]
            if pid in seat_of:
                raise _Bad(f"$.ohh.players[{k}]: player id {pid} appears twice")
            if seat in stack_of:
                raise _Bad(f"$.ohh.players[{k}]: seat {seat} holds two players")
            seat_of[pid] = seat
            name_of[seat] = player["name"]
            stack_of[seat] = self.units(player["starting_stack"], f"$.ohh.players[{k}]")
        if len(seat_of) < 2:
            raise _Bad(f"$.ohh.players: {len(seat_of)} players dealt in; a hand needs 2 to 10")
        self.seat_of = seat_of
        button = hand["dealer_seat"]
        order = _clockwise(sorted(stack_of), button)
        self.order = order
        holes: dict[int, list[Card | None]] = {seat: [None, None] for seat in order}
        remaining = dict(stack_of)
        nominal = {
            ForcedKind.SMALL_BLIND: hand["small_blind_amount"],
            ForcedKind.BIG_BLIND: hand["big_blind_amount"],
            ForcedKind.POST: hand["big_blind_amount"],
            ForcedKind.ANTE: hand["ante_amount"],
            ForcedKind.DEAD_BLIND: hand["small_blind_amount"],
            ForcedKind.STRADDLE: 2 * hand["big_blind_amount"],
        }
        big_blind = self.units(hand["big_blind_amount"], "$.ohh.big_blind_amount")
        forced: list[ForcedBet] = []
        actions: list[Action] = []
        big_bet: int | None = None
        raised = False  # the pre-flop betting has seen a raise not all-in
        levels: list[int] = []  # the pre-flop levels it shows before that raise
        streets_seen: set[int] = set()
        rounds = list(enumerate(hand["rounds"]))
        second_run: list[tuple[int, Any]] = []
        if self.twice:
            # R-HOME-4 (feltroom's extension, docs/hand-histories.md): with the flag
            # Run_It_Twice, a second Flop, Turn or River round is the second run's
            kept, dealt = [], set()
            for r, round_ in rounds:
                street = _STREETS[round_["street"]]
                if street in _BOARD_SIZE and street in dealt:
                    second_run.append((r, round_))
                    continue
                dealt.add(street)
                kept.append((r, round_))
            rounds = kept
        indexed = sorted(rounds, key=lambda item: _STREETS[item[1]["street"]])
        for r, round_ in indexed:
            street = _STREETS[round_["street"]]
            if street in streets_seen:
                raise _Bad(f"$.ohh.rounds[{r}]: a second {round_['street']} round")
            streets_seen.add(street)
            if street in _BOARD_SIZE:
                cards = _cards(round_.get("cards"), f"$.ohh.rounds[{r}].cards")
                size = _BOARD_SIZE[street]
                if len(cards) not in (0, size):
                    raise _Bad(
                        f"$.ohh.rounds[{r}].cards: the {round_['street']} deals {size} "
                        f"card{'s' if size > 1 else ''}, not {len(cards)}"
                    )
                actions.append(Action(None, ActionKind.DEAL_BOARD, None, cards or (None,) * size))
            street_bets = dict.fromkeys(order, 0)
            ranked = sorted(enumerate(round_["actions"]), key=lambda item: item[1]["action_number"])
            for a, entry in ranked:
                where = f"$.ohh.rounds[{r}].actions[{a}]"
                verb = entry["action"]
                if verb in _IGNORED:
                    continue
                seat = seat_of.get(entry["player_id"])
                if seat is None:
                    raise _Bad(f"{where}: no player has id {entry['player_id']}")
                amount = self.units(entry.get("amount", 0), f"{where}.amount")
                cards = _cards(entry.get("cards"), f"{where}.cards")
                if verb in _POSTS:
                    if street:
                        raise _Bad(f"{where}: {verb!r} outside the Preflop round")
                    kind = _POSTS[verb]
                    if kind is ForcedKind.BIG_BLIND and any(
                        bet.kind is ForcedKind.BIG_BLIND for bet in forced
                    ):
                        kind = ForcedKind.POST  # an entering player's post of a big blind
                    remaining[seat] -= amount
                    if remaining[seat] < 0:
                        raise _Bad(f"{where}: {verb} {entry['amount']} is more than the stack")
                    self.posts.append((seat, amount))
                    stated = amount
                    if not remaining[seat] or entry.get("is_allin"):
                        stated = max(amount, self.units(nominal[kind], f"{where} (nominal)"))
                    if kind.live:
                        street_bets[seat] += amount
                    forced.append(ForcedBet(seat, kind, stated))
                elif verb in ("Dealt Cards", "Dealt Card"):
                    # Into the free places of the hole ("Dealt Card" deals them one by one).
                    hole = holes[seat]
                    for card in cards:
                        if card is not None and card not in hole and None in hole:
                            hole[hole.index(None)] = card
                elif verb in ("Fold", "Check", "Call", "Bet", "Raise"):
                    if street == 4:
                        raise _Bad(f"{where}: {verb!r} in the Showdown round")
                    if amount > remaining[seat]:
                        raise _Bad(f"{where}: {verb} {entry['amount']} is more than the stack")
                    self.plays.append((verb, seat, amount, where))
                    if not street and not raised and verb in ("Call", "Raise"):
                        # Levels the pre-flop betting shows before its first full raise.
                        all_in = amount >= remaining[seat]
                        if verb == "Call":
                            levels.append(street_bets[seat] + amount)
                        elif self.structure is Structure.FIXED_LIMIT:
                            levels.append(street_bets[seat] + amount - big_blind)
                        raised = not all_in
                    if verb == "Fold":
                        actions.append(Action(seat, ActionKind.FOLD))
                    elif verb in ("Check", "Call"):
                        actions.append(Action(seat, ActionKind.CHECK_CALL))
                    else:
                        if (
                            big_bet is None
                            and street >= 2
                            and verb == "Bet"
                            and remaining[seat] > amount
                        ):
                            big_bet = amount
                        actions.append(
                            Action(seat, ActionKind.BET_RAISE, street_bets[seat] + amount)
                        )
                    remaining[seat] -= amount
                    street_bets[seat] += amount
                elif verb == "Shows Cards":
                    actions.append(Action(seat, ActionKind.SHOW, None, cards or (None, None)))
                elif verb == "Mucks Cards":
                    hole = holes[seat]
                    for k, shown in enumerate(cards[:2]):
                        if hole[k] is None:
                            hole[k] = shown
                    actions.append(Action(seat, ActionKind.MUCK))
                else:
                    raise _Bad(f"{where}: action {verb!r} is not supported in a hand")

        def dead_all_in(seat: int) -> bool:
            """Whether an ante or dead blind took the whole stack of ``seat``."""
            bets = [bet for bet in forced if bet.seat == seat]
            return not remaining[seat] and bool(bets) and all(bet.kind in _DEAD for bet in bets)

        # A big blind its player could not post (all-in on the ante or a dead blind): the
        # engine still plays to its nominal amount, and a "Post BB" of another seat is then an
        # entering player's post.
        bb_seat = order[0] if len(order) == 2 else order[1]
        if big_blind and dead_all_in(bb_seat):
            forced = [
                replace(bet, kind=ForcedKind.POST) if bet.kind is ForcedKind.BIG_BLIND else bet
                for bet in forced
            ]
            forced.append(ForcedBet(bb_seat, ForcedKind.BIG_BLIND, big_blind))
        top = max((bet.amount for bet in forced if bet.kind.live), default=0)
        # Likewise a straddle of the next seat: at the level the first call or fixed-limit raise
        # shows, or twice the big blind. The forced bets to add are tried in this order until
        # the hand replays and reconciles.
        self.options: list[tuple[ForcedBet, ...]] = [()]
        if len(order) > 2 and dead_all_in(order[2]):
            guesses = [level for level in levels if level > top]
            if self.structure is Structure.FIXED_LIMIT or not guesses:
                guesses.append(2 * big_blind)
            straddles = [(ForcedBet(order[2], ForcedKind.STRADDLE, level),) for level in guesses]
            evident = bool(levels) and levels[0] > top  # the first call or raise shows one
            options = [*straddles, ()] if evident else [(), *straddles]
            self.options = list(dict.fromkeys(options))
        if self.structure is Structure.FIXED_LIMIT:
            small_bet = big_blind
            stakes = Stakes(small_bet, big_bet if big_bet is not None else 2 * small_bet)
        else:
            stakes = Stakes.min_bet(big_blind)
        number = hand["game_number"]
        players = tuple(
            PlayerRecord(seat, name_of[seat], stack_of[seat], tuple(holes[seat])) for seat in order
        )
        return HandRecord(
            structure=self.structure,
            stakes=stakes,
            players=players,
            button=button,
            forced_bets=tuple(forced),
            actions=tuple(actions),
            exponent=self.exponent,
            seat_count=max(hand["table_size"], *order),
            hand_id=int(number) if number.isdigit() else number,
            metadata=MappingProxyType(self.metadata()),
            second_board=self.second_board(actions, second_run),
        )

    def second_board(
        self, actions: list[Action], second_run: list[tuple[int, Any]]
    ) -> tuple[Card | None, ...]:
        """The second run's whole board: the first run's cards before the streets the second
        run deals again, then its own (R-HOME-4)."""
        if not second_run:
            return ()
        board = [card for a in actions if a.kind is ActionKind.DEAL_BOARD for card in a.cards]
        own: list[Card | None] = []
        for r, round_ in sorted(second_run, key=lambda item: _STREETS[item[1]["street"]]):
            street = _STREETS[round_["street"]]
            cards = _cards(round_.get("cards"), f"$.ohh.rounds[{r}].cards")
            if len(cards) != _BOARD_SIZE[street] or round_["actions"]:
                raise _Bad(
                    f"$.ohh.rounds[{r}]: a second run's {round_['street']} deals "
                    f"{_BOARD_SIZE[street]} card(s) and has no action"
                )
            own.extend(cards)
        if len(own) not in (1, 2, 5) or len(board) != 5:
            raise _Bad("$.ohh.rounds: the second run deals the river, turn and river, or all")
        return (*board[: 5 - len(own)], *own)

    def metadata(self) -> dict[str, object]:
        hand = self.hand
        started = str(hand["start_date_utc"])
        if not re.search(r"(Z|[+-]\d\d:\d\d)$", started):
            started += "Z"  # the spec's times are UTC; real files often omit the zone
        metadata: dict[str, object] = {
            "table": hand["table_name"],
            "started": started,
            # "" in tournament files: tournament chips, like the PokerStars import's.
            "currency": hand["currency"] or ("CHIPS" if _tournament(hand) else "PLAY"),
            "site": hand["site_name"],
            "table_size": hand["table_size"],
        }
        if "network_name" in hand:
            metadata["network"] = hand["network_name"]
        hero = hand.get("hero_player_id")
        names = {player["id"]: player["name"] for player in hand["players"]}
        if hero in names:
            metadata["hero"] = names[hero]
        if _tournament(hand):
            metadata["tournament"] = True
            if "tournament_info" in hand:
                metadata["tournament_info"] = hand["tournament_info"]
        return metadata

    # -------------------------------------------------------------- checks

    def money(self, units: int) -> str:
        return format(Decimal(units) / self.scale, "f") if self.exponent else str(units)

    def check_actions(self, hand: Hand) -> None:
        """The engine's posts and players' actions must be the file's."""
        posted = sorted(
            (event.seat, event.amount) for event in hand.events if isinstance(event, Posted)
        )
        if posted != sorted(self.posts):
            raise _Bad(
                f"the posts {self.pairs(sorted(self.posts))} are not what our engine posts: "
                f"{self.pairs(posted)}"
            )
        ours: list[tuple[str, int, int]] = []
        for event in hand.events:
            if isinstance(event, Folded):
                ours.append(("Fold", event.seat, 0))
            elif isinstance(event, Checked):
                ours.append(("Check", event.seat, 0))
            elif isinstance(event, Called):
                ours.append(("Call", event.seat, event.amount))
            elif isinstance(event, Raised):
                ours.append(("Bet" if event.bet else "Raise", event.seat, -1))
        for (verb, seat, amount, where), (our_verb, our_seat, our_amount) in zip(
            self.plays, ours, strict=False
        ):
            # A raise's amount already decided the record's raise-to total.
            same = verb == our_verb and seat == our_seat and our_amount in (-1, amount)
            if not same:
                said = f"{our_verb} {self.money(our_amount)}" if our_amount > 0 else our_verb
                raise _Bad(
                    f"{where}: {verb} {self.money(amount)} by seat {seat}, but our engine has "
                    f"seat {our_seat}: {said}"
                )

    def pairs(self, pairs: Sequence[tuple[int, int]]) -> str:
        return ", ".join(f"seat {seat} {self.money(amount)}" for seat, amount in pairs) or "none"

    def reconcile(self, record: HandRecord, hand: Hand) -> HandRecord:
        """Check the file's pots, rake and winnings against the engine's pots; the record with
        the file's results and rake."""
        pots = [event for event in hand.events if isinstance(event, PotAwarded)]
        file_pots = sorted(enumerate(self.hand["pots"]), key=lambda item: item[1]["number"])
        if len(file_pots) != len(pots):
            raise _Bad(
                f"$.ohh.pots: the file has {len(file_pots)} pots "
                f"({', '.join(self.money(self.units(p['amount'], '')) for _, p in file_pots)}); "
                f"our engine makes {len(pots)} "
                f"({', '.join(self.money(pot.amount) for pot in pots)})"
            )
        rakes: list[int] = []
        won: dict[int, int] = {}
        for (k, pot), ours in zip(file_pots, pots, strict=True):
            where = f"$.ohh.pots[{k}]"
            amount = self.units(pot["amount"], f"{where}.amount")
            rake = self.units(pot.get("rake", 0), f"{where}.rake")
            rake += self.units(pot.get("jackpot", 0), f"{where}.jackpot")
            wins: dict[int, int] = {}
            contributed = 0
            for w, win in enumerate(pot["player_wins"]):
                seat = self.seat_of.get(win["player_id"])
                if seat is None:
                    raise _Bad(f"{where}.player_wins[{w}]: no player has id {win['player_id']}")
                share = self.units(win["win_amount"], f"{where}.player_wins[{w}].win_amount")
                wins[seat] = wins.get(seat, 0) + share
                contributed += self.units(win.get("contributed_rake", 0), f"{where}")
            net = sum(wins.values())
            if amount - rake != net:
                raise _Bad(
                    f"{where}: amount {self.money(amount)} less rake {self.money(rake)} is "
                    f"{self.money(amount - rake)}, but the player_wins receive {self.money(net)}"
                )
            if any("contributed_rake" in win for win in pot["player_wins"]) and contributed != (
                rake - self.units(pot.get("jackpot", 0), where)
            ):
                raise _Bad(
                    f"{where}: the winners' contributed_rake add up to {self.money(contributed)},"
                    f" not the pot's rake {self.money(rake)}"
                )
            if amount != ours.amount:
                raise _Bad(
                    f"{where}: amount {self.money(amount)}, but the bets make a pot of "
                    f"{self.money(ours.amount)}"
                )
            shares = awarded(ours, net)
            if shares != {seat: share for seat, share in wins.items() if share}:
                raise _Bad(
                    f"{where}: the file has {self.pairs(sorted(wins.items()))} received; our "
                    f"engine awards {self.pairs(sorted(shares.items()))}"
                )
            rakes.append(rake)
            for seat, share in wins.items():
                won[seat] = won.get(seat, 0) + share
        return with_results(record, hand, won, rakes, record.metadata)


def _tournament(hand: Mapping[str, Any]) -> bool:
    return bool(hand.get("tournament")) or "tournament_info" in hand


def _clockwise(seats: Sequence[int], button: int) -> list[int]:
    start = next((k for k, seat in enumerate(seats) if seat > button), 0)
    return [*seats[start:], *seats[:start]]

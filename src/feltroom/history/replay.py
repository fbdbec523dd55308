"""Replaying recorded hands through the rules engine, and the ``feltroom replay`` command.

A record replays as recorded: the structure comes from the variant, no raise cap is enforced
unless the record carries one (``_max_bets_per_round``), and each player action is applied with
the engine's own verification, so an action the rules refuse stops the replay with the engine's
reason. The deck is built in the engine's fixed dealing order from every card the record knows
(hole cards dealt or shown, board cards); unknown cards stay ``None``.

The showdown is the engine's (cards speak, R-SHOW-1): a player whose cards the record does not
know has no known hand and cannot win a contested pot; hands the record shows are shown. A hand
mucked at the showdown (``sm``, or shown face down, ``sm ????``) keeps the hole cards the record
holds (R-HIST-2, R-SHOW-5: the room's record keeps mucked hands), so that the replayed hand and
every export of it still hold them; when the engine would show such a hand instead (it could
win a pot, or it is the first to show), the record is replayed again with that hand unknown,
which is what the record says happened. Odd chips go per R-POT-1.

A recorded fold is what happened: when checking was free it can only have been the table's
(R-SIT-1, R-TIME-2), and it is replayed as the engine's table-side fold (``forced=True``). The
table's protections (R-ALLIN-5, ``HandRecord.protections``) are applied where they fall among the
actions.

The result to compare with is ``finishing_stacks`` only (PHH ``winnings`` are net of an unknown
rake in most sources, so they are not ground truth). Files that split an odd chip into halves
(the Pluribus logs write ``10387.5``) match when the only difference is that odd chip.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO

from feltroom.cards import CARDS, Card
from feltroom.errors import FeltroomError, IllegalAction
from feltroom.history import acpc, phh, toml_subset
from feltroom.history.record import Action as RecordAction
from feltroom.history.record import (
    ActionKind,
    ForcedKind,
    HandRecord,
    PlayerRecord,
    Protection,
    RakeRecord,
    Stakes,
    Structure,
)
from feltroom.history.record import ForcedBet as RecordForcedBet
from feltroom.rules import (
    BoardDealt,
    Call,
    Called,
    CardsMucked,
    CardsShown,
    Check,
    Checked,
    FixedLimit,
    Fold,
    Folded,
    Forced,
    ForcedBet,
    Hand,
    NoLimit,
    PotLimit,
    Protected,
    Raised,
    RaiseTo,
    RakeRule,
    Show,
)

__all__ = [
    "ReplayError",
    "ReplayResult",
    "build_deck",
    "compare_stacks",
    "hand_paths",
    "record_from_hand",
    "replay",
    "replay_file",
    "replay_paths",
]

_FORCED = {
    ForcedKind.ANTE: Forced.ANTE,
    ForcedKind.SMALL_BLIND: Forced.SMALL_BLIND,
    ForcedKind.BIG_BLIND: Forced.BIG_BLIND,
    ForcedKind.STRADDLE: Forced.STRADDLE,
    ForcedKind.POST: Forced.POST,
    ForcedKind.DEAD_BLIND: Forced.DEAD,
}
_FORCED_BACK = {engine: ours for ours, engine in _FORCED.items()}
_FOLD = Fold()
_CHECK = Check()
_CALL = Call()
_SUFFIXES = (".phh", ".phhs", ".log")  # .log: an ACPC dealer's match log


class ReplayError(FeltroomError, ValueError):
    """A record that cannot be replayed: the message says which action or field and why."""


def build_deck(
    record: HandRecord, *, keep_mucked: bool = False, unknown: Collection[int] = ()
) -> list[Card | None]:
    """The deck in the engine's dealing order (R-DEAL-1..3), from every card the record knows.

    Hole card ``k`` of the player in position ``i`` (0 = first left of the button) is at
    ``k * n + i``; burns at ``2n``, ``2n+4``, ``2n+6``; the flop at ``2n+1..2n+3``, the turn at
    ``2n+5``, the river at ``2n+7``. A card the record shows at the showdown fills an unknown
    hole card. A player who mucks or shows face down gets ``None`` (the hand is not known and
    cannot win a contested pot), unless ``keep_mucked``: then the hole cards the record holds stay,
    except those of the seats in ``unknown``.
    """
    n = len(record.players)
    deck: list[Card | None] = [None] * (2 * n + (16 if record.second_board else 8))
    holes: list[list[Card | None]] = [
        [*player.hole[:2], None, None][:2] for player in record.players
    ]
    position = {player.seat: i for i, player in enumerate(record.players)}
    board: list[Card | None] = []
    for action in record.actions:
        kind = action.kind
        if kind is ActionKind.DEAL_BOARD:
            board.extend(action.cards)
        elif kind is ActionKind.SHOW or kind is ActionKind.MUCK:
            assert action.seat is not None
            hole = holes[position[action.seat]]
            if kind is ActionKind.MUCK or all(card is None for card in action.cards):
                if not keep_mucked or action.seat in unknown:
                    hole[0] = hole[1] = None
            else:
                for k, card in enumerate(action.cards[:2]):
                    if card is not None:
                        hole[k] = card
    for i, hole in enumerate(holes):
        deck[i] = hole[0]
        deck[n + i] = hole[1]
    if len(board) > 5:
        raise ReplayError(f"the board has {len(board)} cards; Hold'em deals five")
    for card, offset in zip(board, (1, 2, 3, 5, 7), strict=False):
        deck[2 * n + offset] = card
    second = record.second_board
    if second:
        # R-HOME-4: the second run from 2n + 8, after the streets both runs share
        shared = len(second) - sum(
            1 for k, card in enumerate(second) if k >= len(board) or card != board[k]
        )
        offsets = {0: (9, 10, 11, 13, 15), 3: (9, 11), 4: (9,)}.get(shared)
        if len(second) != 5 or len(board) != 5 or offsets is None:
            raise ReplayError(
                f"a board run twice has two boards of five cards sharing 0, 3 or 4 cards, not "
                f"{len(board)} and {len(second)} cards sharing {shared}"
            )
        for card, offset in zip(second[shared:], offsets, strict=True):
            deck[2 * n + offset] = card
    return deck


def _structure(record: HandRecord) -> FixedLimit | PotLimit | NoLimit:
    stakes = record.stakes
    if record.structure is Structure.FIXED_LIMIT:
        return FixedLimit(
            stakes.small_bet,
            stakes.big_bet,
            max_bets_per_round=record.max_bets_per_round,
            uncapped_heads_up=record.uncapped_heads_up,
        )
    if record.structure is Structure.POT_LIMIT:
        return PotLimit(stakes.small_bet)
    return NoLimit(stakes.small_bet)


def _clockwise(seats: Sequence[int], button: int) -> list[int]:
    ordered = sorted(seats)
    start = next((k for k, seat in enumerate(ordered) if seat > button), 0)
    return ordered[start:] + ordered[:start]


def replay(record: HandRecord) -> Hand:
    """Replay ``record`` through the engine and return the finished hand.

    Raises ``ReplayError`` when the record cannot be replayed: an unknown starting stack, an
    action the engine refuses (with the engine's reason), an action after the hand ended, a
    hand the record leaves unfinished, or board cards that disagree with the engine's deal.
    """
    mucked = {
        action.seat
        for action in record.actions
        if action.seat is not None
        and (
            action.kind is ActionKind.MUCK
            or (action.kind is ActionKind.SHOW and all(card is None for card in action.cards))
        )
    }
    unknown: set[int] = set()
    try:
        while True:
            hand, seat_map = _replay(record, unknown)
            # a hand the record mucks but the engine shows: replayed again with it unknown
            shown = {seat for seat in mucked - unknown if seat_map[seat] in hand.shown}
            if not shown:
                return hand
            unknown |= shown
    except ReplayError:
        # e.g. a mucked hand's cards that the record also deals elsewhere
        return _replay(record, None)[0]


def _replay(record: HandRecord, unknown: Collection[int] | None) -> tuple[Hand, dict[int, int]]:
    """``replay`` with the mucked hands kept but those of the seats in ``unknown`` (``None``:
    every mucked hand unknown); the hand and the record's seats mapped to the engine's."""
    players = record.players
    seats = [player.seat for player in players]
    button = record.button
    # The engine orders players by seat number clockwise from the button; a record whose seat
    # numbers do not run clockwise in its own order is replayed on seats 1..n instead.
    if _clockwise(seats, button) != seats:
        seat_map = {seat: k for k, seat in enumerate(seats, start=1)}
        button = len(seats)
    else:
        seat_map = {seat: seat for seat in seats}
    stacks = []
    for player in players:
        if player.stack is None:
            raise ReplayError(f"the starting stack of seat {player.seat} is unknown")
        stacks.append((seat_map[player.seat], player.stack))
    # Antes are ``Forced.ANTE``: in the engine both antes and dead blinds (``Forced.DEAD``) are
    # dead money, straight into the main pot and not part of the poster's contribution, which is
    # PHH's ``ante_trimming_status = false`` (a big-blind ante stays in the pot for its winner when
    # its poster is all-in). Files with ``true`` read the same: with the same antes from everyone,
    # each covered by its stack, counting antes as contributions gives the same pots.
    forced = [
        ForcedBet(seat_map[bet.seat], _FORCED[bet.kind], bet.amount) for bet in record.forced_bets
    ]
    rake = record.rake
    rule = (
        None if rake is None else RakeRule(rake.fraction, rake.cap, rake.no_flop_no_drop, rake.pots)
    )
    shows = [
        seat_map[action.seat]
        for action in record.actions
        if action.kind is ActionKind.SHOW
        and action.seat is not None
        and any(card is not None for card in action.cards)
    ]
    try:
        hand = Hand(
            _structure(record),
            stacks,
            button,
            forced,
            build_deck(record, keep_mucked=unknown is not None, unknown=unknown or ()),
            rule,
            show_losing=shows,
            straddle_full_raise=record.straddle_full_raise,
            run_twice=bool(record.second_board),
        )
    except FeltroomError as error:
        raise ReplayError(f"cannot set up the hand: {error}") from error

    # The table's protections, by the index of the action they precede.
    protections: dict[int, list[Protection]] = {}
    for protection in record.protections:
        if not 0 <= protection.before <= len(record.actions):
            raise ReplayError(
                f"seat {protection.seat} is protected before action {protection.before + 1}; "
                f"the record has {len(record.actions)} actions"
            )
        protections.setdefault(protection.before, []).append(protection)

    board_seen = 0
    for number, action in enumerate(record.actions, start=1):
        if protections and number - 1 in protections:
            _protect(hand, protections[number - 1], seat_map)
        kind = action.kind
        if kind is ActionKind.DEAL_BOARD:
            board_seen += len(action.cards)
            continue
        if kind is ActionKind.SHOW or kind is ActionKind.MUCK:
            continue  # the engine's showdown decides; see build_deck and show_losing
        if hand.runs_pending:
            raise ReplayError(
                f"action {number} ({_describe(action)}): betting is over, the board runs twice"
            )
        assert action.seat is not None
        seat = seat_map[action.seat]
        if hand.is_over:
            raise ReplayError(f"action {number} ({_describe(action)}): the hand is already over")
        if kind is ActionKind.CHECK_CALL:
            if hand.to_act == seat:
                hand.check_or_call()
                continue
            engine_action: Fold | Check | Call | RaiseTo = _CALL  # refused with the reason
        elif kind is ActionKind.FOLD:
            if hand.can(_CHECK, seat):
                # The engine refuses a player's fold when checking is free, so it was the
                # table's (R-SIT-1, R-TIME-2): replayed as such.
                hand.act(_FOLD, seat, forced=True)
                continue
            engine_action = _FOLD
        else:
            assert action.amount is not None
            engine_action = RaiseTo(action.amount)
        try:
            hand.act(engine_action, seat)
        except FeltroomError as error:
            raise ReplayError(f"action {number} ({_describe(action)}): {error}") from error
    if protections and len(record.actions) in protections:
        _protect(hand, protections[len(record.actions)], seat_map)
    if hand.runs_pending:
        try:
            hand.run_out(2)  # R-HOME-4: the record holds a second board
        except FeltroomError as error:
            raise ReplayError(f"cannot run the board twice: {error}") from error
    if record.second_board and list(hand.second_board) != list(record.second_board):
        raise ReplayError("the record's second board is not the second run the engine deals")
    if not hand.is_over:
        raise ReplayError(f"the record ends before the hand does (seat {hand.to_act} to act)")
    if board_seen > len(hand.board):
        raise ReplayError(
            f"the record deals {board_seen} board cards; the hand ended after {len(hand.board)}"
        )
    if shows:
        shown = hand.shown
        for seat in shows:
            if seat not in shown and hand.can(Show(seat)):
                hand.show(seat)
    return hand, seat_map


def _protect(hand: Hand, protections: list[Protection], seat_map: Mapping[int, int]) -> None:
    for protection in protections:
        where = f"protecting seat {protection.seat} before action {protection.before + 1}"
        seat = seat_map.get(protection.seat)
        if seat is None:
            raise ReplayError(f"{where}: no player in seat {protection.seat}")
        try:
            hand.protect(seat)
        except FeltroomError as error:
            raise ReplayError(f"{where}: {error}") from error


def _describe(action: RecordAction) -> str:
    word = {
        ActionKind.FOLD: "fold",
        ActionKind.CHECK_CALL: "check/call",
        ActionKind.BET_RAISE: f"bet/raise to {action.amount}",
    }.get(action.kind, action.kind.value)
    return f"seat {action.seat} {word}"


# ------------------------------------------------------------------------------ comparing


def compare_stacks(
    stacks: Sequence[int], expected: Sequence[Decimal] | None
) -> tuple[bool | None, bool]:
    """``(match, odd_chip)``: equal stacks match; stacks that differ only because the record
    split an odd chip in fractions (``10387.5`` each) where R-POT-1 gives it whole also match,
    with ``odd_chip`` true. ``(None, False)`` when there is nothing to compare with."""
    if expected is None:
        return None, False
    if len(expected) != len(stacks):
        return False, False
    if all(s == e for s, e in zip(stacks, expected, strict=True)):
        return True, False
    differences = [s - e for s, e in zip(stacks, expected, strict=True)]
    odd = (
        sum(differences) == 0
        and all(-1 < d < 1 for d in differences)
        and all(e != e.to_integral_value() for e, d in zip(expected, differences, strict=True) if d)
    )
    return (True, True) if odd else (False, False)


# ------------------------------------------------------------------------------ the direct path
#
# ``feltroom replay`` spends as much time building records as the engine spends playing them, so
# for the common shape of a hand (whole-number amounts, two-card holes, plain ``pN`` actors) it
# goes straight from the parsed fields to the engine: one pass over the actions, no record
# objects. It mirrors ``phh.record_from_fields`` followed by ``replay`` step by step, and gives
# up (returns ``None``) on anything else and on any error, so that the general path then gives
# the same result or the exact error message. tests/history/test_replay.py checks that the two
# paths agree.

_CC, _F, _PROTECT = 0, 1, -1
_POSITION_OF = [{f"p{i + 1}": i for i in range(count)} for count in range(11)]
# "pN cc" and "pN f", the bulk of every hand, looked up whole: (verb, position).
_SIMPLE = [
    {
        **{f"p{i + 1} cc": (_CC, i) for i in range(count)},
        **{f"p{i + 1} f": (_F, i) for i in range(count)},
    }
    for count in range(11)
]
# "d dh pN " of "d dh pN AsKd": position.
_DEAL_OF = [{f"d dh p{i + 1} ": i for i in range(count)} for count in range(11)]
_SEATS = [list(range(1, count + 1)) for count in range(11)]
_CARD_OF: dict[str, Card | None] = {str(card): card for card in CARDS}
_CARD_OF["??"] = None
_INT = frozenset({int})
_RESULT_TYPES = frozenset({int, Decimal})
_ONE = Decimal(1)
_EXACT = 10**27
_CACHE_LIMIT = 4096
# Engine values are immutable, so equal ones are shared between hands.
_STRUCTURE_CACHE: dict[tuple[object, ...], FixedLimit | PotLimit | NoLimit] = {}
_FORCED_CACHE: dict[tuple[int, int, int], ForcedBet] = {}
# Forced bet kinds by a small code (cheaper to hash than the enum).
_ANTE, _SMALL, _BIG, _STRADDLE, _POST, _DEAD = range(6)
_FORCED_KINDS = (
    Forced.ANTE,
    Forced.SMALL_BLIND,
    Forced.BIG_BLIND,
    Forced.STRADDLE,
    Forced.POST,
    Forced.DEAD,
)
_RAISE_CACHE: dict[int, RaiseTo] = {}


def _direct_result(source: str, fields: Mapping[str, Any]) -> ReplayResult | None:
    """The replay result of one hand's parsed TOML fields (which hold no ``None``) by the direct
    path, or ``None`` to take the general path."""
    try:
        return _direct(source, fields)
    except Exception:  # the general path gives the same result or the exact error
        return None


def _engine_structure(
    variant: str, small: int, big: int, cap: int | None, uncapped: bool
) -> FixedLimit | PotLimit | NoLimit:
    key = (variant, small, big, cap, uncapped)
    structure = _STRUCTURE_CACHE.get(key)
    if structure is None:
        if variant == "FT":
            structure = FixedLimit(small, big, max_bets_per_round=cap, uncapped_heads_up=uncapped)
        elif variant == "PT":
            structure = PotLimit(small)
        else:
            structure = NoLimit(small)
        if len(_STRUCTURE_CACHE) < _CACHE_LIMIT:
            _STRUCTURE_CACHE[key] = structure
    return structure


def _forced_bet(seat: int, kind: int, amount: int) -> ForcedBet:
    key = (seat, kind, amount)
    bet = _FORCED_CACHE.get(key)
    if bet is None:
        bet = ForcedBet(seat, _FORCED_KINDS[kind], amount)
        if len(_FORCED_CACHE) < _CACHE_LIMIT:
            _FORCED_CACHE[key] = bet
    return bet


def _direct(source: str, fields: Mapping[str, Any]) -> ReplayResult | None:
    get = fields.get
    variant = get("variant")
    small: Any
    big: Any
    if variant == "FT":
        small, big = get("small_bet"), get("big_bet")
    elif variant == "NT" or variant == "PT":
        small = big = get("min_bet")
    else:
        return None
    stacks = get("starting_stacks")
    antes = get("antes")
    blinds_ = get("blinds_or_straddles")
    dead = get("_dead_blinds")
    if type(stacks) is not list or type(antes) is not list or type(blinds_) is not list:
        return None
    count = len(stacks)
    if not 2 <= count <= 10 or len(antes) != count or len(blinds_) != count:
        return None
    # Whole numbers only (the file's exponent is 0, amounts are units).
    whole = _INT.issuperset
    if not (
        type(small) is int
        and type(big) is int
        and whole(map(type, stacks))
        and whole(map(type, antes))
        and whole(map(type, blinds_))
    ):
        return None
    if dead is not None and (
        type(dead) is not list or len(dead) != count or not whole(map(type, dead))
    ):
        return None
    seats = get("seats")
    if seats is None:
        seats = _SEATS[count]
    elif (
        type(seats) is not list
        or len(seats) != count
        or not whole(map(type, seats))
        or len(set(seats)) != count
    ):
        return None
    names = get("players")
    if names is not None and (type(names) is not list or len(names) != count):
        return None
    button = get("_button", seats[-1])
    cap = get("_max_bets_per_round")
    seat_count = get("seat_count")
    if (
        type(button) is not int
        or (cap is not None and type(cap) is not int)
        or (seat_count is not None and type(seat_count) is not int)
    ):
        return None
    results = get("finishing_stacks")
    winnings = get("winnings")
    for values in (results, winnings):
        if values is not None and (
            type(values) is not list
            or len(values) != count
            or not _RESULT_TYPES.issuperset(map(type, values))
            or any(type(v) is Decimal and not v.is_finite() for v in values)
        ):
            return None
    # As ``phh`` computes them: ``Decimal(value) * scale``, which is ``Decimal(value)`` for a
    # whole number of fewer than 28 digits (the context's precision).
    whole_results = results is not None and whole(map(type, results))
    if results is None:
        expected = None
    elif whole_results and min(results) > -_EXACT and max(results) < _EXACT:
        expected = tuple(map(Decimal, results))
    else:
        expected = tuple([Decimal(value) * _ONE for value in results])
    rule = None
    if "_rake_pots" in fields:
        return None  # a recorded per-pot rake: the general path reads it
    if "_rake_percent" in fields or "_rake_cap" in fields or "_rake" in fields:
        percent = get("_rake_percent", 0)
        rake_cap = get("_rake_cap")
        taken = get("_rake")
        if (
            type(percent) not in (int, Decimal, str)
            or (rake_cap is not None and type(rake_cap) is not int)
            or (taken is not None and type(taken) is not int)
        ):
            return None
        rule = RakeRule(Fraction(percent) / 100, rake_cap, bool(get("_no_flop_no_drop", False)))
    structure = _engine_structure(variant, small, big, cap, bool(get("_uncapped_heads_up", True)))

    # The engine orders players by seat number clockwise from the button; a hand whose seats do
    # not run clockwise in position order is played on seats 1..n (see ``replay``).
    if (seats is not _SEATS[count] or button != count) and _clockwise(seats, button) != seats:
        seats = _SEATS[count]
        button = count
    heads_up = count == 2
    forced: list[ForcedBet] = []
    # Antes are ``Forced.ANTE`` whatever ``ante_trimming_status`` says: antes and dead blinds are
    # both dead money in the engine (see ``replay``).
    for index, ante in enumerate(antes):
        amount = ante if dead is None else ante - dead[index]
        if amount < 0:
            return None
        if amount:
            forced.append(_forced_bet(seats[1 - index if heads_up else index], _ANTE, amount))
    if dead is not None:
        for index, amount in enumerate(dead):
            if amount:
                forced.append(_forced_bet(seats[1 - index if heads_up else index], _DEAD, amount))
    for index, amount in enumerate(blinds_):
        if not amount:
            continue
        if amount < 0:
            kind = _POST
            amount = -amount
        elif index == 0:
            kind = _SMALL if blinds_[1] > 0 else _BIG
        elif index == 1:
            kind = _BIG
        else:
            kind = _STRADDLE
        forced.append(_forced_bet(seats[1 - index if heads_up else index], kind, amount))

    actions = get("actions")
    if type(actions) is not list:
        return None
    # The table's protections (``_protected``): the positions protected before each action.
    protected = get("_protected")
    marks: dict[int, list[int]] = {}
    if protected is not None:
        if type(protected) is not list:
            return None
        for entry in protected:
            if type(entry) is not list or len(entry) != 2 or not whole(map(type, entry)):
                return None
            before, player = entry
            if not 0 <= before <= len(actions) or not 1 <= player <= count:
                return None
            marks.setdefault(before, []).append(player - 1)
    simple = _SIMPLE[count]
    position_of = _POSITION_OF[count]
    card_of = _CARD_OF
    plays: list[tuple[int, int]] = []  # (verb or raise-to amount + 2, position)
    play = plays.append
    dealt: list[tuple[Card | None, Card | None]] = [(None, None)] * count
    shown: list[tuple[int, tuple[Card | None, Card | None] | None]] = []  # None: mucked
    board: list[Card | None] = []
    deal_of = _DEAL_OF[count]
    for number, text in enumerate(actions):
        if marks and number in marks:
            plays.extend((_PROTECT, position) for position in marks[number])
        found = simple.get(text)
        if found is not None:
            play(found)
            continue
        if type(text) is not str:
            return None
        # "d dh pN AsKd" and "d db AsKdQh" / "d db Tc", written plainly.
        position = deal_of.get(text[:-4])
        if position is not None:
            dealt[position] = (card_of[text[-4:-2]], card_of[text[-2:]])
            continue
        if text[:5] == "d db " and "#" not in text:
            size = len(text)
            if size == 11:
                board += (card_of[text[5:7]], card_of[text[7:9]], card_of[text[9:]])
                continue
            if size == 7:
                board.append(card_of[text[5:]])
                continue
        cut = text.find("#")
        words = (text if cut < 0 else text[:cut]).split()
        size = len(words)
        if size == 4:
            if words[0] != "d" or words[1] != "dh" or len(words[3]) != 4:
                return None
            cards = words[3]
            dealt[position_of[words[2]]] = (card_of[cards[:2]], card_of[cards[2:]])
        elif size == 3:
            actor, verb, argument = words
            if actor == "d":
                if verb != "db" or len(argument) % 2:
                    return None
                board.extend(card_of[argument[i : i + 2]] for i in range(0, len(argument), 2))
            elif verb == "cbr":
                if not argument.isdigit():
                    return None
                play((int(argument) + 2, position_of[actor]))
            elif verb == "sm":
                index = position_of[actor]
                if argument == "-":
                    shown.append((index, dealt[index]))
                elif len(argument) == 4:
                    shown.append((index, (card_of[argument[:2]], card_of[argument[2:]])))
                else:
                    return None
            else:
                return None
        elif size == 2:
            actor, verb = words
            found = simple.get(f"{actor} {verb}")
            if found is not None:
                play(found)
            elif verb == "sm":
                shown.append((position_of[actor], None))
            else:
                return None
        elif size:
            return None
    if marks and len(actions) in marks:
        plays.extend((_PROTECT, position) for position in marks[len(actions)])
    if len(board) > 5:
        return None

    # The deck in the engine's dealing order (see ``build_deck``).
    deck: list[Card | None] = [None] * (2 * count + 8)
    holes = [list(hole) for hole in dealt]
    showing: list[int] = []
    for index, show in shown:
        hole = holes[index]
        if show is None or (show[0] is None and show[1] is None):
            hole[0] = hole[1] = None
        else:
            if show[0] is not None:
                hole[0] = show[0]
            if show[1] is not None:
                hole[1] = show[1]
            showing.append(seats[index])
    for index, hole in enumerate(holes):
        deck[index] = hole[0]
        deck[count + index] = hole[1]
    for card, offset in zip(board, (1, 2, 3, 5, 7), strict=False):
        deck[2 * count + offset] = card

    # A straddle's raise size: its increment (PokerKit, real hands) unless the file says
    # ``_straddle_full_raise = true`` (R-HOME-3, feltroom's own files); see phh.py.
    full = get("_straddle_full_raise", False)
    if type(full) is not bool:
        return None
    hand = Hand(
        structure,
        list(zip(seats, stacks, strict=True)),
        button,
        forced,
        deck,
        rule,
        show_losing=showing,
        straddle_full_raise=full,
    )
    check_or_call = hand.check_or_call
    act = hand.act
    for code, index in plays:
        seat = seats[index]
        if code == _CC:
            # The first event is the check or call, by the player who was to act.
            if check_or_call()[0].seat != seat:  # type: ignore[union-attr]
                return None
        elif code == _F:
            try:
                act(_FOLD, seat)
            except IllegalAction:
                if not hand.can(_CHECK, seat):
                    raise
                act(_FOLD, seat, forced=True)  # the table's fold; see ``replay``
        elif code == _PROTECT:
            hand.protect(seat)
        else:
            amount = code - 2
            raise_to = _RAISE_CACHE.get(amount)
            if raise_to is None:
                raise_to = RaiseTo(amount)
                if len(_RAISE_CACHE) < _CACHE_LIMIT:
                    _RAISE_CACHE[amount] = raise_to
            act(raise_to, seat)
    if not hand.is_over or len(board) > len(hand.board):
        return None
    if showing:
        face_up = hand.shown
        for seat in showing:
            if seat not in face_up and hand.can(Show(seat)):
                hand.show(seat)
    final = hand.final_stacks
    match: bool | None
    if whole_results and list(final) == results:
        match, odd = True, False
    else:
        match, odd = compare_stacks(final, expected)
    return ReplayResult(source, final, expected, match, 0, odd)


# ------------------------------------------------------------------------------ the command


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """One hand's line of ``feltroom replay`` output."""

    source: str
    finishing_stacks: tuple[int, ...] | None
    expected: tuple[Decimal, ...] | None
    match: bool | None
    exponent: int = 0
    odd_chip: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Replayed, and not contradicted by the record."""
        return self.error is None and self.match is not False

    def json_line(self) -> str:
        """The output contract: one JSON object, stacks in the file's own units."""
        source = self.source
        # json.dumps leaves printable ASCII but quotes and backslashes as it is.
        if source.isascii() and source.isprintable() and '"' not in source and "\\" not in source:
            quoted = f'"{source}"'
        else:
            quoted = json.dumps(source)
        parts = [
            f'"source": {quoted}',
            f'"finishing_stacks": {_numbers(self.finishing_stacks, self.exponent)}',
            f'"expected": {_numbers(self.expected, self.exponent)}',
            f'"match": {"null" if self.match is None else str(self.match).lower()}',
        ]
        if self.odd_chip:
            parts.append('"odd_chip": true')
        if self.error is not None:
            parts.append(f'"error": {json.dumps(self.error)}')
        return "{" + ", ".join(parts) + "}"


def _numbers(values: Iterable[int | Decimal] | None, exponent: int) -> str:
    if values is None:
        return "null"
    if not exponent:
        try:
            whole = list(map(int, values))
        except (ValueError, OverflowError):  # NaN, infinity
            pass
        else:
            if whole == list(values):
                return "[" + ", ".join(map(str, whole)) + "]"
    return "[" + ", ".join(_number(value, exponent) for value in values) + "]"


def _number(units: int | Decimal, exponent: int) -> str:
    if not exponent and (isinstance(units, int) or units == units.to_integral_value()):
        return str(int(units))
    text = format(Decimal(units).scaleb(-exponent), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _result(source: str, record: HandRecord) -> ReplayResult:
    expected = record.finishing_stacks
    try:
        stacks = replay(record).final_stacks
    except (ReplayError, FeltroomError) as error:  # e.g. a setting the engine refuses
        return ReplayResult(
            source,
            None,
            expected,
            None if expected is None else False,
            record.exponent,
            error=str(error),
        )
    match, odd = compare_stacks(stacks, expected)
    return ReplayResult(source, stacks, expected, match, record.exponent, odd)


def acpc_log_results(path: Path, label: str) -> list[ReplayResult]:
    """Replay every hand of an ACPC dealer's match log (``feltroom.history.acpc``) with the game
    definition file its header names, found beside it: one result per hand, stacks by position
    (start plus the value recorded); one more, failed, when the totals differ from ``SCORE``."""
    try:
        log = acpc.parse_log(path.read_text(encoding="utf-8"))
        named = acpc.game_named_by(log)
        if named is None:
            raise acpc.AcpcError("the log's header names no game definition")
        game_path = path.parent / Path(named).name
        if not game_path.is_file():
            raise acpc.AcpcError(f"the game definition {named} is not beside the log")
        game = acpc.GameDef.parse(game_path.read_text(encoding="utf-8"))
        checks, totals = acpc.replay_log(game, log)
    except (OSError, UnicodeDecodeError, acpc.AcpcError) as error:
        return [ReplayResult(f"{label}#1", None, None, None, error=f"cannot replay: {error}")]
    results = [
        ReplayResult(
            f"{label}#{check.number}",
            check.finishing,
            check.expected,
            check.match if check.error is None else False,
            odd_chip=check.odd_chip,
            error=check.error,
        )
        for check in checks
    ]
    if log.score is not None and all(check.error is None for check in checks):
        names = sorted(log.score)
        if any(totals.get(name, 0) != log.score[name] for name in names):
            results.append(
                ReplayResult(
                    f"{label}#score",
                    None,
                    tuple(log.score[name] for name in names),
                    False,
                    error=f"the hands add up to {totals}; SCORE says {log.score}",
                )
            )
    return results


def replay_file(path: Path, name: str | None = None) -> list[ReplayResult]:
    """Replay every hand of one ``.phh`` or ``.phhs`` file (or an ACPC ``.log``), in file
    order."""
    label = str(path) if name is None else name
    if path.suffix == ".log":
        return acpc_log_results(path, label)
    try:
        document = toml_subset.loads(path.read_text(encoding="utf-8"))
        tables = phh.tables_of(document) if path.suffix == ".phhs" else [document]
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return [
            ReplayResult(f"{label}#1", None, None, None, error=f"cannot read the file: {error}")
        ]
    results = []
    for number, fields in enumerate(tables, start=1):
        source = f"{label}#{number}"
        direct = _direct_result(source, fields)
        if direct is not None:
            results.append(direct)
            continue
        try:
            record = phh.record_from_fields(fields)
        except phh.PHHError as error:
            results.append(ReplayResult(source, None, None, None, error=str(error)))
            continue
        results.append(_result(source, record))
    return results


def hand_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The files to replay: each file as given; each directory walked for ``.phh``/``.phhs``
    files in sorted order."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
        else:
            yield path


def replay_paths(paths: Iterable[str | Path], out: TextIO) -> int:
    """``feltroom replay PATH...``: one JSON line per hand; 1 if any hand failed to replay or
    did not match its recorded result, else 0."""
    status = 0
    write = out.write
    for path in hand_paths(paths):
        for result in replay_file(path):
            write(result.json_line() + "\n")
            if not result.ok:
                status = 1
    return status


# ------------------------------------------------------------------------------ recording


def record_from_hand(
    hand: Hand,
    *,
    names: Sequence[str] | None = None,
    seat_count: int | None = None,
    hand_id: str | int | None = None,
    exponent: int = 0,
) -> HandRecord:
    """The record of a hand the engine played (finished or not), ready to be written as PHH.

    Players are listed in dealing order (first left of the button first); every hole card the
    deck holds is recorded (this is the house's record: what a player may request is decided
    elsewhere, R-HIST-2). ``names`` follow ``hand.seats``.
    """
    setup = hand.setup
    structure = setup.structure
    if isinstance(structure, FixedLimit):
        kind = Structure.FIXED_LIMIT
        stakes = Stakes(structure.small_bet, structure.big_bet)
        cap = structure.max_bets_per_round
        uncapped = structure.uncapped_heads_up
    else:
        kind = Structure.POT_LIMIT if isinstance(structure, PotLimit) else Structure.NO_LIMIT
        stakes = Stakes.min_bet(structure.big_blind)
        cap = None
        uncapped = True
    seats = hand.seats
    n = len(seats)
    deck = setup.deck
    starting = dict(setup.players)
    players = tuple(
        PlayerRecord(
            seat,
            "" if names is None else names[i],
            starting[seat],
            (deck[i], deck[n + i]),
        )
        for i, seat in enumerate(seats)
    )
    # The order PHH reads them back in: antes, dead blinds, then live bets, each by PHH array
    # index (position order, reversed heads-up).
    index = {seat: (n - 1 - i if n == 2 else i) for i, seat in enumerate(seats)}
    group = {Forced.ANTE: 0, Forced.DEAD: 1}
    forced = tuple(
        RecordForcedBet(bet.seat, _FORCED_BACK[bet.kind], bet.amount)
        for bet in sorted(setup.forced, key=lambda b: (group.get(b.kind, 2), index[b.seat]))
        if bet.amount
    )
    actions: list[RecordAction] = []
    protections: list[Protection] = []
    for event in hand.events:
        if isinstance(event, Folded):
            actions.append(RecordAction(event.seat, ActionKind.FOLD))
        elif isinstance(event, Checked | Called):
            actions.append(RecordAction(event.seat, ActionKind.CHECK_CALL))
        elif isinstance(event, Raised):
            actions.append(RecordAction(event.seat, ActionKind.BET_RAISE, event.to))
        elif isinstance(event, BoardDealt):
            if event.run != 2:  # the second run of a board run twice: ``second_board``
                actions.append(RecordAction(None, ActionKind.DEAL_BOARD, None, tuple(event.cards)))
        elif isinstance(event, CardsShown):
            actions.append(RecordAction(event.seat, ActionKind.SHOW, None, tuple(event.cards)))
        elif isinstance(event, CardsMucked):
            actions.append(RecordAction(event.seat, ActionKind.MUCK))
        elif isinstance(event, Protected):
            # One per ``Protect`` entry of the log, in its place among the actions.
            protections.append(Protection(len(actions), event.seat))
    has_dead = any(bet.kind is Forced.DEAD for bet in setup.forced)
    has_ante = any(bet.kind is Forced.ANTE for bet in setup.forced)
    final = dict(zip((seat for seat, _ in setup.players), hand.final_stacks, strict=True))
    rake = setup.rake
    return HandRecord(
        structure=kind,
        stakes=stakes,
        players=players,
        button=setup.button,
        forced_bets=forced,
        actions=tuple(actions),
        exponent=exponent,
        finishing_stacks=(tuple(Decimal(final[seat]) for seat in seats) if hand.is_over else None),
        rake=(
            None
            if rake is None
            else RakeRecord(
                rake.fraction,
                rake.cap,
                rake.no_flop_no_drop,
                hand.rake if hand.is_over else None,
                rake.pots,
            )
        ),
        max_bets_per_round=cap,
        uncapped_heads_up=uncapped,
        seat_count=seat_count,
        # The engine's antes and dead blinds are dead money for the main pot: PHH's untrimmed
        # antes (``false``), both written in ``antes``. ``true`` only when there are none.
        ante_trimming=not (has_ante or has_dead),
        hand_id=hand_id,
        protections=tuple(protections),
        # the flag matters only with a straddle: without one it keeps the default
        straddle_full_raise=setup.straddle_full_raise
        or not any(bet.kind is Forced.STRADDLE for bet in setup.forced),
        second_board=hand.second_board,
    )

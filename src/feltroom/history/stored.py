"""A hand the room stored, played again through the rules engine.

The room keeps each settled hand as JSON (``RoomRuntime``'s ``outcome``): the table settings it
was played under and its public record (players and starting stacks, forced bets, the actions as
text, the board, the cards shown, the pots). ``replay_stored`` rebuilds the engine's ``Hand`` from
that record and the hole cards the caller knows (every other card stays unknown), and checks that
the replay reproduces the stored pots, board and shown cards. The PHH export of the HTTP API (from
a player's filtered view) and the integrity report (from the house's whole record) both read
stored hands this way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from fractions import Fraction
from typing import Any

from feltroom.cards import Card, parse_cards
from feltroom.rules import (
    Action,
    Call,
    Check,
    Fold,
    Forced,
    ForcedBet,
    Hand,
    HandSetup,
    LogEntry,
    Protect,
    RaiseTo,
    RunOut,
    Show,
)
from feltroom.table import TableConfig

__all__ = ["config_of", "engine_action", "replay_stored"]

_CONFIG_FIELDS = {f.name for f in fields(TableConfig) if not f.name.startswith("_")}


def config_of(settings: Mapping[str, Any]) -> TableConfig:
    """The table configuration of stored settings (fields the configuration does not know, such
    as the table id and currency, are left out)."""
    options = {name: value for name, value in settings.items() if name in _CONFIG_FIELDS}
    for name in ("rake_percent", "tax_percent"):
        if isinstance(options.get(name), str):
            options[name] = Fraction(options[name])
    return TableConfig(**options)


def engine_action(text: str) -> Action:
    """An engine action from its text in the stored log (``str(action)``)."""
    words = text.split()
    simple: dict[str, Action] = {"fold": Fold(), "check": Check(), "call": Call()}
    if text in ("run once", "run twice"):
        return RunOut(2 if text == "run twice" else 1)
    if len(words) == 1 and words[0] in simple:
        return simple[words[0]]
    if len(words) == 3 and words[2].isdigit():
        amount = int(words[2])
        if words[:2] == ["raise", "to"]:
            return RaiseTo(amount)
        if words[:2] == ["protect", "seat"]:
            return Protect(amount)
        if words[:2] == ["show", "seat"]:
            return Show(amount)
    raise ValueError(f"unknown action {text!r} in the stored log")


def replay_stored(
    record: Mapping[str, Any],
    settings: Mapping[str, Any],
    holes: Mapping[int, tuple[Card, ...]],
) -> Hand:
    """The stored hand played again: ``holes`` are the hole cards known per seat (the record's
    shown cards are added). Raises ``ValueError`` (or the engine's error) when the replay does not
    reproduce the stored pots, board and shown cards."""
    config = config_of(settings)
    order = [int(seat) for seat, _name, _stack in record["players"]]
    players = tuple((int(seat), int(stack)) for seat, _name, stack in record["players"])
    known = dict(holes)
    for seat, cards in record.get("shown", {}).items():
        known.setdefault(int(seat), parse_cards(cards))
    n = len(order)
    deck: list[Card | None] = [None] * (2 * n + 16)
    for index, seat in enumerate(order):
        hole = known.get(seat)
        if hole is not None:
            if len(hole) != 2:
                raise ValueError(f"seat {seat} holds {len(hole)} cards, not 2")
            deck[index], deck[n + index] = hole
    board = parse_cards(record.get("board", ""))
    for position, card in zip((1, 2, 3, 5, 7), board, strict=False):
        deck[2 * n + position] = card
    second = parse_cards(record.get("second_board", ""))
    if second:
        # R-HOME-4: the second run's cards from 2n + 8, after the cards both runs share
        shared = sum(1 for a, b in zip(board, second, strict=False) if a == b)
        positions = {0: (9, 10, 11, 13, 15), 3: (9, 11), 4: (9,)}.get(shared)
        if positions is None or len(second) != 5:
            raise ValueError("the record's second board does not follow its first")
        for position, card in zip(positions, second[shared:], strict=True):
            deck[2 * n + position] = card
    forced = tuple(
        ForcedBet(int(seat), Forced(kind), int(amount)) for seat, kind, amount in record["forced"]
    )
    entries: list[LogEntry] = [(int(seat), engine_action(text)) for seat, text in record["actions"]]
    shown = {int(seat) for seat in record.get("shown", {})}
    # Hands shown at the showdown that the player did not have to show (show_losing): those of
    # the shown seats that were not shown later by a Show action.
    shown_later = {action.seat for _, action in entries if isinstance(action, Show)}
    setup = HandSetup(
        config.engine_structure(),
        players,
        int(record["button"]),
        forced,
        tuple(deck),
        config.rake_rule(),
        frozenset(shown - shown_later),
        run_twice=config.run_it_twice,
    )
    hand = Hand.replay(setup, entries)
    pots = [[pot.amount, pot.rake, list(pot.winners), list(pot.shares)] for pot in hand.results]
    if list(hand.seats) != order or not hand.is_over or pots != record["pots"]:
        raise ValueError("the replay does not reproduce the stored pots")
    replayed_board = [str(card) for card in hand.board if card is not None]
    if replayed_board != [str(card) for card in board] or set(hand.shown) != shown:
        raise ValueError("the replay does not reproduce the stored board and shown cards")
    runs = [[[list(w), list(s)] for w, s in pot.runs] for pot in hand.results]
    if list(hand.second_board) != list(second) or (second and runs != record.get("runs")):
        raise ValueError("the replay does not reproduce the stored second run")
    return hand

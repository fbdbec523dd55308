"""Export one hand the engine played as Open Hand History (OHH) JSON, spec 1.4.6 (layer
``history``), and check OHH documents against the schema shipped with the package.

The source is the finished engine ``Hand`` (as for ``feltroom.history.pokerstars``): setup,
events and per-pot results. Hole cards follow R-HIST-2 exactly as in the PokerStars export
(``pokerstars.visible_seats``): the hero's own cards in a ``Dealt Cards`` action, the cards of
every showdown player in ``Shows Cards`` / ``Mucks Cards`` actions of the ``Showdown`` round
(mucked hands included, R-SHOW-5), never a folded player's; an observer's history has only the
cards shown at the table. Each pot carries its own rake and each winner's share of it
(R-RAKE-3).

Amounts follow the spec and the published examples: decimals in the table's currency;
``Bet``/``Raise``/``Call`` amounts are the chips that action added; an uncalled bet is not an
action (the returned part is simply not in any pot); a pot's ``amount`` includes its rake and
``win_amount`` is what the player received. ``to_dict`` gives amounts as ``Decimal`` (``int``
for play chips, exponent 0); ``dumps`` writes them as JSON numbers (short decimals, exact).
A tournament hand (``tournament``) has ``"tournament": true`` and ``tournament_info`` (name,
start time, type ``STT``/``MTT``, buy-in and fee in the buy-in's currency, tournament number,
starting stack, speed), as the spec's PokerStars tournament example; its amounts are tournament
chips (``"currency": ""``, whole numbers).
See docs/hand-histories.md for the mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

from feltroom.history.pokerstars import now, visible_seats
from feltroom.history.tournament_info import TournamentInfo
from feltroom.money import Currency
from feltroom.rules import (
    BoardDealt,
    Called,
    CardsMucked,
    CardsShown,
    Checked,
    FixedLimit,
    Folded,
    Forced,
    Hand,
    HoleCardsDealt,
    Posted,
    PotAwarded,
    PotLimit,
    Raised,
    split_pot,
)

__all__ = ["SPEC_VERSION", "dumps", "line", "schema", "to_dict", "validate"]

SPEC_VERSION = "1.4.6"
_POSTS = {
    Forced.ANTE: "Post Ante",
    Forced.SMALL_BLIND: "Post SB",
    Forced.BIG_BLIND: "Post BB",
    Forced.STRADDLE: "Straddle",
    Forced.POST: "Post BB",
    Forced.DEAD: "Post Dead",
}
_STREETS = ("Preflop", "Flop", "Turn", "River")


def to_dict(
    hand: Hand,
    *,
    hand_id: int,
    table_name: str,
    hero: str | None,
    names: Mapping[int, str],
    currency: Currency,
    started: datetime | None = None,
    seat_count: int = 9,
    site_name: str = "feltroom",
    show_all: bool = False,
    reveal_showdown: bool = False,
    tournament: TournamentInfo | None = None,
) -> dict[str, Any]:
    """The OHH object (the value of the file's ``"ohh"`` key) of a finished hand, as ``hero``
    (a player's name, or ``None`` for an observer) may request it (R-HIST-1/2). ``show_all``
    writes every hole card the hand holds (the operator's full record): a ``Dealt Cards``
    action per player and every mucked hand. ``reveal_showdown`` (without a hero) writes the
    cards of every hand of the showdown, mucked ones included, and no ``Dealt Cards``.
    ``started`` defaults to the time of the export (``pokerstars.now()``), never the epoch."""
    if not hand.is_over:
        raise ValueError("only a finished hand can be exported")
    setup = hand.setup

    def money(units: int) -> Decimal | int:
        if currency.exponent == 0:
            return units
        return Decimal(units).scaleb(-currency.exponent)

    hero_seat = next((seat for seat, name in names.items() if name == hero), None)
    if hero is not None and hero_seat is None:
        raise ValueError(f"the hero {hero!r} is not a player of this hand")
    visible = (
        frozenset(hand.seats)
        if show_all
        else visible_seats(hand, hero_seat, showdown=reveal_showdown)
    )
    seats = sorted(seat for seat, _ in setup.players)
    ids = {seat: index for index, seat in enumerate(seats)}
    stacks = dict(setup.players)
    structure = setup.structure
    if isinstance(structure, FixedLimit):
        bet_type = "FL"
        big_blind = structure.small_bet
    else:
        bet_type = "PL" if isinstance(structure, PotLimit) else "NL"
        big_blind = structure.big_blind
    nominal = {bet.kind: bet.amount for bet in setup.forced if bet.amount}
    started = started or now()
    document: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": site_name,
        "network_name": site_name,
        "internal_version": SPEC_VERSION,
        "tournament": False,
        "game_number": str(hand_id),
        "start_date_utc": started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "table_name": table_name,
        "table_handle": table_name,
        "table_size": seat_count,
        "game_type": "Holdem",
        "bet_limit": {"bet_type": bet_type, "bet_cap": money(0)},
        "currency": currency.code,
        "dealer_seat": setup.button,
        "small_blind_amount": money(nominal.get(Forced.SMALL_BLIND, big_blind // 2)),
        "big_blind_amount": money(nominal.get(Forced.BIG_BLIND, big_blind)),
        "ante_amount": money(nominal.get(Forced.ANTE, 0)),
    }
    if tournament is not None:
        document["tournament"] = True
        document["currency"] = ""
        document["tournament_info"] = _tournament_info(tournament)
    if hero_seat is not None:
        document["hero_player_id"] = ids[hero_seat]
    document["players"] = [
        {"id": ids[seat], "seat": seat, "name": names[seat], "starting_stack": money(stacks[seat])}
        for seat in seats
    ]
    rounds: list[dict[str, Any]] = [
        {"id": 0, "street": "Preflop", "cards": [], "actions": []},
    ]
    showdown: dict[str, Any] | None = None
    street_bets = dict.fromkeys(hand.seats, 0)

    def add(
        round_: dict[str, Any],
        seat: int,
        action: str,
        amount: int = 0,
        all_in: bool = False,
        cards: list[str] | None = None,
    ) -> None:
        entry: dict[str, Any] = {
            "action_number": len(round_["actions"]) + 1,
            "player_id": ids[seat],
            "action": action,
            "amount": money(amount),
            "is_allin": all_in,
        }
        if cards is not None:
            entry["cards"] = cards
        round_["actions"].append(entry)

    for event in hand.events:
        current = rounds[-1]
        if isinstance(event, Posted):
            if event.kind not in (Forced.ANTE, Forced.DEAD):
                street_bets[event.seat] += event.amount
            add(current, event.seat, _POSTS[event.kind], event.amount, event.all_in)
        elif isinstance(event, HoleCardsDealt):
            for seat in hand.seats if show_all else () if hero_seat is None else (hero_seat,):
                cards = [str(card) for card in hand.hole_cards(seat) if card is not None]
                add(current, seat, "Dealt Cards", cards=cards)
        elif isinstance(event, Folded):
            add(current, event.seat, "Fold")
        elif isinstance(event, Checked):
            add(current, event.seat, "Check")
        elif isinstance(event, Called):
            street_bets[event.seat] += event.amount
            add(current, event.seat, "Call", event.amount, event.all_in)
        elif isinstance(event, Raised):
            added = event.to - street_bets[event.seat]
            street_bets[event.seat] = event.to
            add(current, event.seat, "Bet" if event.bet else "Raise", added, event.all_in)
        elif isinstance(event, BoardDealt):
            street_bets = dict.fromkeys(hand.seats, 0)
            rounds.append(
                {
                    "id": len(rounds) if event.run == 2 else event.street,
                    "street": _STREETS[event.street],
                    "cards": [str(card) for card in event.cards],
                    "actions": [],
                }
            )
        elif isinstance(event, CardsShown | CardsMucked):
            if showdown is None:
                showdown = {"id": max(4, len(rounds)), "street": "Showdown", "actions": []}
                rounds.append(showdown)
            if isinstance(event, CardsShown):
                shown = [str(card) for card in event.cards]
                add(showdown, event.seat, "Shows Cards", cards=shown)
            elif event.seat in visible:
                mucked = [str(card) for card in hand.hole_cards(event.seat) if card is not None]
                add(showdown, event.seat, "Mucks Cards", cards=mucked)
            else:
                add(showdown, event.seat, "Mucks Cards")
    document["rounds"] = rounds
    if hand.second_board:
        # R-HOME-4: the spec's flag; the second run's rounds (Flop, Turn or River again, no
        # action) follow the first run's river (docs/hand-histories.md)
        document["flags"] = ["Run_It_Twice"]
    pots = []
    for event in hand.events:
        if isinstance(event, PotAwarded):
            rakes = split_pot(event.rake, event.winners)
            pots.append(
                {
                    "number": event.index,
                    "amount": money(event.amount),
                    "rake": money(event.rake),
                    "player_wins": [
                        {
                            "player_id": ids[seat],
                            "win_amount": money(share),
                            "contributed_rake": money(rake),
                        }
                        for seat, share, rake in zip(
                            event.winners, event.shares, rakes, strict=True
                        )
                    ],
                }
            )
    document["pots"] = pots
    return document


def _tournament_info(tournament: TournamentInfo) -> dict[str, Any]:
    money = tournament.currency

    def amount(units: int) -> Decimal | int:
        return units if money.exponent == 0 else Decimal(units).scaleb(-money.exponent)

    started = tournament.started
    return {
        "name": tournament.name,
        "start_date_utc": (
            "" if started is None else started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        ),
        "type": tournament.kind,
        "buyin_amount": amount(tournament.buy_in),
        "currency": money.code,
        "fee_amount": amount(tournament.fee),
        "bounty_fee_amount": amount(0),
        "tournament_number": str(tournament.number),
        "flags": "",
        "initial_stack": tournament.starting_stack,
        "speed": {
            "type": "Turbo" if 0 < tournament.level_minutes <= 5 else "Normal",
            "round_time": tournament.level_minutes,
        },
    }


def _number(value: object) -> float | int:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"not JSON serializable: {value!r}")


def line(hand: Hand, **options: Any) -> str:
    """One ``{"ohh": to_dict(hand, **options)}`` document on one line (no newline): the form of
    a file of several hands, one per line."""
    return json.dumps({"ohh": to_dict(hand, **options)}, default=_number)


def dumps(hand: Hand, **options: Any) -> str:
    """The ``.ohh`` file text of a finished hand: ``{"ohh": to_dict(hand, **options)}``.

    Amounts are written as JSON numbers; every amount has at most a few decimals, so the
    shortest float text is the exact decimal (read it back with ``parse_float=Decimal``).
    """
    return json.dumps({"ohh": to_dict(hand, **options)}, indent=2, default=_number) + "\n"


@cache
def schema() -> dict[str, Any]:
    """The OHH JSON Schema shipped with the package (``ohh-schema.json``)."""
    text = resources.files("feltroom.history").joinpath("ohh-schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float, Decimal),
}


def validate(document: object, schema_: Mapping[str, Any] | None = None) -> list[str]:
    """Errors of ``document`` against the OHH schema (empty when valid), each with its JSON path.

    A small validator for the subset of JSON Schema the shipped schema uses (``type``,
    ``required``, ``properties``, ``items``, ``enum``, ``pattern``, ``minimum``, ``anyOf`` and
    ``$ref`` to ``#/$defs/...``): the history layer uses the standard library only.
    """
    root = schema() if schema_ is None else schema_
    errors: list[str] = []
    _check(document, root, root, "$", errors)
    return errors


def _check(
    value: object, rule: Mapping[str, Any], root: Mapping[str, Any], path: str, errors: list[str]
) -> None:
    if "$ref" in rule:
        target: Any = root
        for part in rule["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        _check(value, target, root, path, errors)
    if "anyOf" in rule and not any(_fits(value, option, root, path) for option in rule["anyOf"]):
        errors.append(f"{path}: matches none of the allowed forms")
    kind = rule.get("type")
    if kind is not None:
        is_bool = isinstance(value, bool)
        if not isinstance(value, _TYPES[kind]) or (is_bool and kind != "boolean"):
            errors.append(f"{path}: expected {kind}, got {type(value).__name__}")
            return
    if "enum" in rule and value not in rule["enum"]:
        errors.append(f"{path}: {value!r} is not one of {rule['enum']}")
    if "pattern" in rule and isinstance(value, str) and not re.search(rule["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {rule['pattern']}")
    number = isinstance(value, int | float | Decimal)
    if "minimum" in rule and number and value < rule["minimum"]:
        errors.append(f"{path}: {value} is below {rule['minimum']}")
    if isinstance(value, dict):
        for name in rule.get("required", ()):
            if name not in value:
                errors.append(f"{path}: missing {name!r}")
        for name, sub in rule.get("properties", {}).items():
            if name in value:
                _check(value[name], sub, root, f"{path}.{name}", errors)
    if isinstance(value, list) and "items" in rule:
        for index, item in enumerate(value):
            _check(item, rule["items"], root, f"{path}[{index}]", errors)


def _fits(value: object, rule: Mapping[str, Any], root: Mapping[str, Any], path: str) -> bool:
    errors: list[str] = []
    _check(value, rule, root, path, errors)
    return not errors

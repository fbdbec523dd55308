"""PHH (Poker Hand History, uoftcprg/phh-std) reading and writing for Texas Hold'em.

A ``.phh`` file is one TOML document describing one hand; a ``.phhs`` file holds several, as tables
``[1]``, ``[2]``... Players are listed by position: the first player dealt (the small blind) first
and the button last; heads-up the order is the same (``p1`` is the big blind, ``p2`` the button)
but ``antes`` and ``blinds_or_straddles`` are read reversed. Amounts, which PHH writes as integers
or decimals, become integer units exactly (``Decimal``, never ``float``).

Where PHH has no field for something feltroom records, the writer uses ``_``-prefixed fields,
which PHH reserves for user-defined data and other readers ignore: ``_button`` (the button seat),
``_dead_blinds`` (the part of each ``antes`` entry that is a dead blind), ``_max_bets_per_round``
(a limit raise cap to enforce on replay), ``_rake_percent``, ``_rake_cap``, ``_no_flop_no_drop``,
``_rake`` and ``_rake_pots`` (the rake rule, the rake taken and, for imported hands, each pot's
recorded rake), ``_protected`` (the table's protections,
R-ALLIN-5: ``[[action index, player number], ...]``, each player protected just before that entry
of ``actions``), ``_straddle_full_raise`` (written for a hand with a straddle: ``true`` when the
straddle's size is the last full raise, R-HOME-3; a file without it follows PokerKit, where a
straddle's increment is), ``_second_board`` (a board run twice, R-HOME-4: the second run's
whole board as PHH writes cards; ``actions`` deal the first run). docs/phh.md has the full mapping.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from feltroom.cards import Card
from feltroom.errors import FeltroomError, InvalidNotation
from feltroom.history import toml_subset
from feltroom.history.record import (
    Action,
    ActionKind,
    ForcedBet,
    ForcedKind,
    HandRecord,
    PlayerRecord,
    Protection,
    RakeRecord,
    Stakes,
    Structure,
)

__all__ = [
    "PHHError",
    "dumps",
    "dumps_all",
    "load_file",
    "loads",
    "loads_all",
    "record_from_fields",
    "started_at",
]


class PHHError(FeltroomError, ValueError):
    """A PHH document that does not describe a Texas Hold'em hand we can read; the message says
    which field or action is wrong."""


# Fields the reader interprets; every other field is kept in ``HandRecord.metadata``.
_INTERPRETED = frozenset(
    {
        "variant",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "starting_stacks",
        "actions",
        "players",
        "seats",
        "seat_count",
        "hand",
        "finishing_stacks",
        "winnings",
        "ante_trimming_status",
        "_button",
        "_dead_blinds",
        "_max_bets_per_round",
        "_uncapped_heads_up",
        "_rake_percent",
        "_rake_cap",
        "_no_flop_no_drop",
        "_rake",
        "_rake_pots",
        "_protected",
        "_straddle_full_raise",
        "_second_board",
    }
)
_STRUCTURES = {structure.value: structure for structure in Structure}
_CARD = Card.parse
_UNKNOWN = "??"


# --------------------------------------------------------------------------------------- reading


def loads(text: str) -> HandRecord:
    """Read one hand from the text of a ``.phh`` file."""
    return record_from_fields(toml_subset.loads(text))


def loads_all(text: str) -> list[HandRecord]:
    """Read every hand of a ``.phhs`` file (tables ``[1]``, ``[2]``... in file order)."""
    return [record_from_fields(fields) for fields in tables_of(toml_subset.loads(text))]


def load_file(path: str | Path) -> list[HandRecord]:
    """Read the hands of a ``.phh`` (one hand) or ``.phhs`` (several) file."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    return loads_all(text) if path.suffix == ".phhs" else [loads(text)]


def tables_of(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The hand tables of a parsed ``.phhs`` document, in file order."""
    hands: list[Mapping[str, Any]] = []
    for name, value in document.items():
        if not isinstance(value, dict):
            raise PHHError(f"a .phhs file holds only tables [1], [2]...; found the key {name!r}")
        hands.append(value)
    return hands


# Time zone abbreviations PHH files write (``time_zone_abbreviation``), by IANA name.
_ZONES = {
    "UTC": "UTC",
    "GMT": "UTC",
    "Z": "UTC",
    "ET": "America/New_York",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "CT": "America/Chicago",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "MT": "America/Denver",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "PT": "America/Los_Angeles",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "CET": "Europe/Paris",
    "CEST": "Europe/Paris",
    "WET": "Europe/Lisbon",
    "WEST": "Europe/Lisbon",
    "BST": "Europe/London",
}


def started_at(fields: Mapping[str, Any]) -> datetime | None:
    """When a PHH hand was played (aware), from its ``year``, ``month``, ``day`` and ``time``
    fields (or ``HandRecord.metadata``), in its ``time_zone`` (an IANA name such as
    ``America/New_York``) or ``time_zone_abbreviation`` (``ET``, ``UTC``, ``CET``...), else UTC;
    a date without ``time`` is midnight. ``None`` when the hand has no date. Raises
    ``ValueError`` naming what is wrong for a partial or impossible date or an unknown zone."""
    parts = {name: fields.get(name) for name in ("year", "month", "day")}
    given = [name for name, value in parts.items() if value is not None]
    if not given:
        return None
    if len(given) < 3 or not all(
        isinstance(value, int) and not isinstance(value, bool) for value in parts.values()
    ):
        raise ValueError(
            "the hand's date needs whole numbers in year, month and day; the file has "
            + ", ".join(f"{name} = {value!r}" for name, value in parts.items())
        )
    moment = fields.get("time", time(0))
    if not isinstance(moment, time):
        raise ValueError(f"time must be a local time such as 21:47:13, not {moment!r}")
    zone_name = fields.get("time_zone")
    abbreviation = fields.get("time_zone_abbreviation")
    if zone_name is None and abbreviation is not None:
        zone_name = _ZONES.get(str(abbreviation).upper())
        if zone_name is None:
            raise ValueError(
                f"unknown time_zone_abbreviation {abbreviation!r}; known: {', '.join(_ZONES)} "
                "(or give time_zone as an IANA name)"
            )
    try:
        zone = ZoneInfo(str(zone_name or "UTC"))
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time_zone {zone_name!r}; give an IANA name such as 'America/New_York' "
            "or 'UTC'"
        ) from None
    try:
        day = date(parts["year"], parts["month"], parts["day"])  # type: ignore[arg-type]
    except ValueError as error:
        raise ValueError(f"year, month and day are not a date: {error}") from None
    return datetime.combine(day, moment.replace(tzinfo=None), zone)


def record_from_fields(fields: Mapping[str, Any]) -> HandRecord:
    """Build a record from the fields of one PHH hand (a parsed TOML table)."""
    try:
        return _Reader(fields).record()
    except PHHError:
        raise
    except (InvalidNotation, InvalidOperation, KeyError, TypeError, ValueError) as error:
        raise PHHError(f"{type(error).__name__}: {error}") from error


class _Reader:
    __slots__ = ("count", "exponent", "fields", "structure")

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.fields = fields
        variant = _required(fields, "variant")
        structure = _STRUCTURES.get(variant) if isinstance(variant, str) else None
        if structure is None:
            raise PHHError(
                f"variant {variant!r} is not Texas Hold'em; expected one of NT, PT, FT "
                "(no-, pot-, fixed-limit)"
            )
        self.structure = structure
        stacks = _array(fields, "starting_stacks")
        self.count = len(stacks)
        if not 2 <= self.count <= 10:
            raise PHHError(f"a hand has 2 to 10 players, this one {self.count}")
        self.exponent = 0

    def record(self) -> HandRecord:
        fields = self.fields
        count = self.count
        structure = self.structure
        stacks = _array(fields, "starting_stacks")
        antes = self._per_player("antes")
        blinds = self._per_player("blinds_or_straddles")
        dead = self._per_player("_dead_blinds") if "_dead_blinds" in fields else [0] * count
        if structure is Structure.FIXED_LIMIT:
            stake_values = [_required(fields, "small_bet"), _required(fields, "big_bet")]
        else:
            stake_values = [_required(fields, "min_bet")]
        raw_actions = _array(fields, "actions")
        parsed = [_split_action(text) for text in raw_actions if isinstance(text, str)]
        if len(parsed) != len(raw_actions):
            raise PHHError("actions must be strings")
        amounts: list[Any] = [*stacks, *antes, *blinds, *dead, *stake_values]
        amounts.extend(words[2] for words in parsed if len(words) == 3 and words[1] == "cbr")
        if "_rake_cap" in fields:
            amounts.append(fields["_rake_cap"])
        if "_rake" in fields:
            amounts.append(fields["_rake"])
        if isinstance(fields.get("_rake_pots"), list):
            amounts.extend(fields["_rake_pots"])
        self.exponent = _exponent_of(amounts)
        units = self.units

        seats = self._seats()
        names = self._names()
        button = fields.get("_button", seats[-1])
        if not isinstance(button, int) or isinstance(button, bool):
            raise PHHError(f"_button is a seat number, not {button!r}")
        heads_up = count == 2

        def player_of(index: int) -> int:
            return count - 1 - index if heads_up else index

        forced: list[ForcedBet] = []
        for index, value in enumerate(antes):
            amount = units(value) - units(dead[index])
            if amount < 0:
                raise PHHError("_dead_blinds exceeds antes")
            if amount:
                forced.append(ForcedBet(seats[player_of(index)], ForcedKind.ANTE, amount))
        for index, value in enumerate(dead):
            if units(value):
                forced.append(
                    ForcedBet(seats[player_of(index)], ForcedKind.DEAD_BLIND, units(value))
                )
        for index, value in enumerate(blinds):
            amount = units(value)
            if not amount:
                continue
            if amount < 0:
                kind = ForcedKind.POST
                amount = -amount
            elif index == 0:
                has_big = units(blinds[1]) > 0
                kind = ForcedKind.SMALL_BLIND if has_big else ForcedKind.BIG_BLIND
            elif index == 1:
                kind = ForcedKind.BIG_BLIND
            else:
                kind = ForcedKind.STRADDLE
            forced.append(ForcedBet(seats[player_of(index)], kind, amount))

        holes: list[tuple[Card | None, ...]] = [(None, None)] * count
        actions: list[Action] = []
        append = actions.append
        # Actions are immutable, so one fold and one check/call per player serve every street.
        index_of = {f"p{i + 1}": i for i in range(count)}
        folds = {f"p{i + 1}": Action(seats[i], ActionKind.FOLD) for i in range(count)}
        calls = {f"p{i + 1}": Action(seats[i], ActionKind.CHECK_CALL) for i in range(count)}
        whole = self.exponent == 0
        # With ``_protected``: how many record actions precede each entry of ``actions`` (the
        # hole card deals and blank entries make none).
        starts: list[int] | None = [] if "_protected" in fields else None
        for words in parsed:
            if starts is not None:
                starts.append(len(actions))
            size = len(words)
            if size == 2:
                verb = words[1]
                if verb == "cc":
                    action = calls.get(words[0])
                elif verb == "f":
                    action = folds.get(words[0])
                else:
                    action = None
                if action is not None:
                    append(action)
                    continue
            if not size:
                continue
            actor = words[0]
            if actor == "d":
                if size == 4 and words[1] == "dh":
                    holes[_player_index(words[2], count)] = _cards(words[3])
                elif size == 3 and words[1] == "db":
                    append(Action(None, ActionKind.DEAL_BOARD, None, _cards(words[2])))
                else:
                    raise PHHError(f"unknown dealer action {' '.join(words)!r}")
                continue
            found = index_of.get(actor)
            index = _player_index(actor, count) if found is None else found
            seat = seats[index]
            verb = words[1] if size > 1 else ""
            if verb == "cbr" and size == 3:
                written = words[2]
                value = int(written) if whole and written.isdigit() else units(written)
                append(Action(seat, ActionKind.BET_RAISE, value))
            elif verb == "sm" and size == 2:
                append(Action(seat, ActionKind.MUCK))
            elif verb == "sm" and size == 3:
                shown = words[2]
                cards = holes[index] if shown == "-" else _cards(shown)
                append(Action(seat, ActionKind.SHOW, None, cards))
            else:
                raise PHHError(f"unknown or malformed action {' '.join(words)!r}")

        protections: list[Protection] = []
        if starts is not None:
            starts.append(len(actions))
            for entry in _array(fields, "_protected"):
                if not (
                    isinstance(entry, list)
                    and len(entry) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in entry)
                ):
                    raise PHHError(
                        f"_protected holds [action index, player number] pairs, not {entry!r}"
                    )
                before, player = entry
                if not 0 <= before < len(starts):
                    raise PHHError(
                        f"_protected: no action {before} in a hand of {len(parsed)} actions "
                        f"(0..{len(parsed)}, {len(parsed)}: after the last one)"
                    )
                if not 1 <= player <= count:
                    raise PHHError(
                        f"_protected: no player p{player} in a hand of {count} players "
                        f"(p1..p{count})"
                    )
                protections.append(Protection(starts[before], seats[player - 1]))

        players = tuple(
            PlayerRecord(
                seats[index],
                names[index],
                None if _is_infinite(stacks[index]) else units(stacks[index]),
                holes[index],
            )
            for index in range(count)
        )
        return HandRecord(
            structure=structure,
            stakes=Stakes(units(stake_values[0]), units(stake_values[-1])),
            players=players,
            button=button,
            forced_bets=tuple(forced),
            actions=tuple(actions),
            exponent=self.exponent,
            finishing_stacks=self._results("finishing_stacks"),
            winnings=self._results("winnings"),
            rake=self._rake(),
            max_bets_per_round=self._optional_int("_max_bets_per_round"),
            uncapped_heads_up=bool(fields.get("_uncapped_heads_up", True)),
            seat_count=self._optional_int("seat_count"),
            ante_trimming=bool(fields.get("ante_trimming_status", False)),
            hand_id=fields.get("hand"),
            protections=tuple(protections),
            # Real hands (the PHH corpus, PokerKit) take a straddle's increment as the raise
            # size; feltroom's own files say ``_straddle_full_raise = true`` (R-HOME-3). Without
            # a straddle the flag changes nothing and stays at its default.
            straddle_full_raise=bool(
                fields.get(
                    "_straddle_full_raise",
                    not any(bet.kind is ForcedKind.STRADDLE for bet in forced),
                )
            ),
            second_board=self._second_board(),
            metadata=MappingProxyType(
                {key: value for key, value in fields.items() if key not in _INTERPRETED}
            ),
        )

    def _second_board(self) -> tuple[Card | None, ...]:
        """``_second_board``: the second run of a board run twice (R-HOME-4), or none."""
        text = self.fields.get("_second_board", "")
        if not isinstance(text, str) or len(text) not in (0, 10):
            raise PHHError(
                f"_second_board is a board of five cards such as 'AsKd2c3h4s', not {text!r}"
            )
        return _cards(text)

    def units(self, value: Any) -> int:
        """An amount in the file's currency as integer units."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value * 10**self.exponent if self.exponent else value
        if isinstance(value, str):
            value = Decimal(value)
        if not isinstance(value, Decimal) or not value.is_finite():
            raise PHHError(f"not an amount: {value!r}")
        scaled = value.scaleb(self.exponent)
        if scaled != scaled.to_integral_value():  # pragma: no cover - exponent covers all inputs
            raise PHHError(f"{value} is finer than the unit")
        return int(scaled)

    def _per_player(self, name: str) -> list[Any]:
        values = _array(self.fields, name)
        if len(values) != self.count:
            raise PHHError(
                f"{name} has {len(values)} entries for {self.count} players; "
                "each player needs one, in position order"
            )
        return values

    def _seats(self) -> list[int]:
        if "seats" not in self.fields:
            return list(range(1, self.count + 1))
        seats = self._per_player("seats")
        if len(set(seats)) != len(seats) or not all(
            isinstance(seat, int) and not isinstance(seat, bool) for seat in seats
        ):
            raise PHHError(f"seats must be distinct seat numbers, not {seats}")
        return seats

    def _names(self) -> list[str]:
        if "players" not in self.fields:
            return [""] * self.count
        names = self._per_player("players")
        return [str(name) for name in names]

    def _results(self, name: str) -> tuple[Decimal, ...] | None:
        if name not in self.fields:
            return None
        scale = Decimal(1).scaleb(self.exponent)
        values = []
        for value in self._per_player(name):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | Decimal)
                or (isinstance(value, Decimal) and not value.is_finite())
            ):
                raise PHHError(f"{name} holds finite amounts, not {value!r}")
            values.append(Decimal(value) * scale)
        return tuple(values)

    def _optional_int(self, name: str) -> int | None:
        value = self.fields.get(name)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise PHHError(f"{name} is a whole number, not {value!r}")
        return value

    def _rake(self) -> RakeRecord | None:
        fields = self.fields
        if not any(key in fields for key in ("_rake_percent", "_rake_cap", "_rake", "_rake_pots")):
            return None
        percent = fields.get("_rake_percent", 0)
        if isinstance(percent, bool) or not isinstance(percent, int | Decimal | str):
            raise PHHError(f"_rake_percent is a number, not {percent!r}")
        cap = fields.get("_rake_cap")
        taken = fields.get("_rake")
        pots = fields.get("_rake_pots")
        if pots is not None and not isinstance(pots, list):
            raise PHHError(f"_rake_pots is a list of amounts, one per pot, not {pots!r}")
        return RakeRecord(
            fraction=Fraction(percent) / 100,
            cap=None if cap is None else self.units(cap),
            no_flop_no_drop=bool(fields.get("_no_flop_no_drop", False)),
            taken=None if taken is None else self.units(taken),
            pots=None if pots is None else tuple(self.units(value) for value in pots),
        )


def _required(fields: Mapping[str, Any], name: str) -> Any:
    if name not in fields:
        raise PHHError(f"the required field {name!r} is missing")
    return fields[name]


def _array(fields: Mapping[str, Any], name: str) -> list[Any]:
    value = _required(fields, name)
    if not isinstance(value, list):
        raise PHHError(f"{name} must be an array")
    return value


def _is_infinite(value: Any) -> bool:
    return isinstance(value, Decimal) and value.is_infinite()


def _exponent_of(amounts: Iterable[Any]) -> int:
    """The fewest decimal places that hold every amount exactly (0 for whole numbers)."""
    exponent = 0
    for value in amounts:
        if isinstance(value, int):
            continue
        if isinstance(value, str):
            if value.isdigit():
                continue
            try:
                value = Decimal(value)
            except InvalidOperation:
                raise PHHError(f"not an amount: {value!r}") from None
        if not isinstance(value, Decimal):
            raise PHHError(f"not an amount: {value!r}")
        if not value.is_finite():
            continue
        power = value.normalize().as_tuple().exponent
        if isinstance(power, int) and -power > exponent:
            exponent = -power
    return exponent


def _split_action(text: str) -> list[str]:
    """The words of an action, without its commentary (``# ...``)."""
    cut = text.find("#")
    return (text if cut < 0 else text[:cut]).split()


def _player_index(word: str, count: int) -> int:
    if word[:1] == "p" and word[1:].isdigit():
        index = int(word[1:]) - 1
        if 0 <= index < count:
            return index
    raise PHHError(f"no player {word!r} in a hand of {count} players (p1..p{count})")


def _cards(text: str) -> tuple[Card | None, ...]:
    if len(text) % 2:
        raise PHHError(f"cards are written in pairs of characters such as 'AsKd', not {text!r}")
    return tuple(
        None if text[i : i + 2] == _UNKNOWN else _CARD(text[i : i + 2])
        for i in range(0, len(text), 2)
    )


# --------------------------------------------------------------------------------------- writing


def dumps(record: HandRecord) -> str:
    """Write one hand as the text of a ``.phh`` file."""
    return "\n".join(f"{key} = {_toml(value)}" for key, value in _fields(record)) + "\n"


def dumps_all(records: Iterable[HandRecord]) -> str:
    """Write several hands as the text of a ``.phhs`` file, as tables ``[1]``, ``[2]``..."""
    return "\n".join(
        f"[{number}]\n{dumps(record)}" for number, record in enumerate(records, start=1)
    )


def _fields(record: HandRecord) -> list[tuple[str, Any]]:
    count = len(record.players)
    heads_up = count == 2
    exponent = record.exponent

    def amount(units: int) -> Decimal | int:
        return units if not exponent or not units else Decimal(units).scaleb(-exponent)

    def array_index(player_index: int) -> int:
        return count - 1 - player_index if heads_up else player_index

    antes = [0] * count
    dead = [0] * count
    blinds = [0] * count
    for bet in record.forced_bets:
        index = array_index(record.index_of(bet.seat))
        if bet.kind is ForcedKind.ANTE:
            antes[index] += bet.amount
        elif bet.kind is ForcedKind.DEAD_BLIND:
            antes[index] += bet.amount
            dead[index] += bet.amount
        elif bet.kind is ForcedKind.POST:
            blinds[index] -= bet.amount
        else:
            blinds[index] += bet.amount
    position = {player.seat: f"p{index}" for index, player in enumerate(record.players, 1)}

    actions = [
        f"d dh {position[player.seat]} {_card_text(player.hole)}" for player in record.players
    ]
    for action in record.actions:
        kind = action.kind
        if kind is ActionKind.DEAL_BOARD:
            actions.append(f"d db {_card_text(action.cards)}")
            continue
        assert action.seat is not None
        actor = position[action.seat]
        if kind is ActionKind.BET_RAISE:
            assert action.amount is not None
            actions.append(f"{actor} cbr {_plain(amount(action.amount))}")
        elif kind is ActionKind.SHOW:
            actions.append(f"{actor} sm {_card_text(action.cards)}")
        elif kind is ActionKind.MUCK:
            actions.append(f"{actor} sm")
        else:
            actions.append(f"{actor} {kind.value}")

    fields: list[tuple[str, Any]] = [
        ("variant", record.structure.value),
        ("ante_trimming_status", record.ante_trimming),
        ("antes", [amount(value) for value in antes]),
        ("blinds_or_straddles", [amount(value) for value in blinds]),
    ]
    if record.structure is Structure.FIXED_LIMIT:
        fields.append(("small_bet", amount(record.stakes.small_bet)))
        fields.append(("big_bet", amount(record.stakes.big_bet)))
    else:
        fields.append(("min_bet", amount(record.stakes.small_bet)))
    fields.append(
        (
            "starting_stacks",
            [Decimal("inf") if p.stack is None else amount(p.stack) for p in record.players],
        )
    )
    fields.append(("actions", actions))
    if record.hand_id is not None:
        fields.append(("hand", record.hand_id))
    fields.append(("seats", list(record.seats)))
    if record.seat_count is not None:
        fields.append(("seat_count", record.seat_count))
    fields.append(("players", [player.name for player in record.players]))
    scale = Decimal(1).scaleb(-exponent)
    for name, results in (
        ("finishing_stacks", record.finishing_stacks),
        ("winnings", record.winnings),
    ):
        if results is not None:
            fields.append((name, [_result(value * scale) for value in results]))
    fields.append(("_button", record.button))
    if any(dead):
        fields.append(("_dead_blinds", [amount(value) for value in dead]))
    if record.max_bets_per_round is not None:
        fields.append(("_max_bets_per_round", record.max_bets_per_round))
        fields.append(("_uncapped_heads_up", record.uncapped_heads_up))
    rake = record.rake
    if rake is not None:
        fields.append(("_rake_percent", _percent(rake.fraction * 100)))
        if rake.cap is not None:
            fields.append(("_rake_cap", amount(rake.cap)))
        fields.append(("_no_flop_no_drop", rake.no_flop_no_drop))
        if rake.taken is not None:
            fields.append(("_rake", amount(rake.taken)))
        if rake.pots is not None:
            fields.append(("_rake_pots", [amount(value) for value in rake.pots]))
    if record.second_board:
        fields.append(("_second_board", _card_text(record.second_board)))
    if record.protections:
        # Indices into the written ``actions``: the hole card deals come first, one per player.
        fields.append(
            (
                "_protected",
                [
                    [count + protection.before, record.index_of(protection.seat) + 1]
                    for protection in record.protections
                ],
            )
        )
    if any(bet.kind is ForcedKind.STRADDLE for bet in record.forced_bets):
        fields.append(("_straddle_full_raise", record.straddle_full_raise))
    fields.extend((key, value) for key, value in record.metadata.items() if key not in _INTERPRETED)
    return fields


def _percent(value: Fraction) -> Decimal | int | str:
    """A percentage as a number when a decimal holds it exactly, else as text 'p/q'."""
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    if denominator != 1:
        return str(value)
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return _result(exact)


def _result(value: Decimal) -> Decimal | int:
    return int(value) if value == value.to_integral_value() else value


def _card_text(cards: Sequence[Card | None]) -> str:
    return "".join(_UNKNOWN if card is None else str(card) for card in cards) or "-"


def _plain(value: Decimal | int) -> str:
    return str(value) if isinstance(value, int) else format(value, "f")


def _string(value: str) -> str:
    """A TOML string: literal ('...') when it can be, else basic with escapes."""
    if "'" not in value and not any(ord(c) < 32 or c == "\x7f" for c in value):
        return f"'{value}'"
    escaped = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 32 or c == "\x7f" else "\\" + c if c in '"\\' else c
        for c in value
    )
    return f'"{escaped}"'


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if value.is_infinite():
            return "inf" if value > 0 else "-inf"
        text = format(value, "f")
        return text if "." in text else text + ".0"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{_string(str(k))} = {_toml(v)}" for k, v in value.items())
        return "{" + pairs + "}"
    raise PHHError(f"cannot write {value!r} ({type(value).__name__}) as a PHH value")

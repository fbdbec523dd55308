"""What a tournament hand's history says of its tournament (layer ``history``).

A hand played at a tournament table is written as PokerStars writes tournament hands
(``feltroom.history.pokerstars``: ``Tournament #<number>, $10+$1 USD`` — play chips without
symbol or code, ``1000+100`` —, ``Level <roman> (<sb>/<bb>)``, the ante, the lines of the entries
whose places became final with the hand) and as OHH writes them (``feltroom.history.ohh``:
``tournament`` true and ``tournament_info``). The stacks and bets of a tournament hand are
tournament chips: written bare, whatever the buy-in's currency.

The room keeps this beside each stored tournament hand: ``settings["tournament"]`` (the
tournament, its buy-in and the level of the hand) and ``record["finishes"]`` (``[account, place,
prize]`` for each place made final when the hand ended). ``from_stored`` reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from feltroom.money import Currency

__all__ = ["Finish", "TournamentInfo", "from_stored", "ordinal", "roman"]

_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman(number: int) -> str:
    """``number`` (from 1) in Roman numerals, as PokerStars names levels (``Level XIV``)."""
    if number < 1:
        raise ValueError(f"a level is numbered from 1, not {number}")
    text = ""
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        text += letters * count
    return text


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``..."""
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@dataclass(frozen=True, slots=True)
class Finish:
    """An entry whose place became final when the hand ended: ``prize`` in the buy-in's
    currency (0: none); place 1 wins the tournament."""

    name: str
    place: int
    prize: int


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """The tournament of a hand. ``number`` is the tournament's number (digits, as trackers
    read it); ``kind`` ``STT`` (a sit-and-go) or ``MTT`` (scheduled); ``buy_in`` and ``fee`` in
    ``currency``'s smallest units; ``level`` the number of the hand's level (from 1)."""

    number: int
    name: str
    kind: str
    buy_in: int
    fee: int
    currency: Currency
    level: int
    starting_stack: int
    level_minutes: int
    started: datetime | None = None
    finishes: tuple[Finish, ...] = ()


def from_stored(settings: Mapping[str, Any], record: Mapping[str, Any]) -> TournamentInfo | None:
    """The tournament of a stored hand (``None`` for a cash-table hand, or a tournament hand
    stored before its histories were kept)."""
    info = settings.get("tournament")
    if not isinstance(info, Mapping):
        return None
    started = info.get("started_at")
    return TournamentInfo(
        number=int(info["number"]),
        name=str(info.get("name", "")),
        kind=str(info.get("type", "STT")),
        buy_in=int(info["buy_in"]),
        fee=int(info["fee"]),
        currency=Currency(str(info["currency"]), int(info.get("exponent", 0))),
        level=int(info["level"]),
        starting_stack=int(info.get("starting_stack", 0)),
        level_minutes=int(info.get("level_minutes", 0)),
        started=(
            datetime.fromtimestamp(started, UTC).replace(microsecond=0)
            if isinstance(started, int | float)
            else None
        ),
        finishes=tuple(
            Finish(str(name), int(place), int(prize))
            for name, place, prize in record.get("finishes", ())
        ),
    )

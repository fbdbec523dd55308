"""A settled hand as a file a player downloads: PHH, PokerStars text or OHH (layer ``server``).

Every file is built from the requester's filtered view alone (``HandHistories.for_player``,
R-HIST-2): the players' hole cards it shows, the public record (actions, board, cards shown at
the table) and the table settings. The hand is replayed through the engine with every other card
unknown, so a file can never show more than the JSON history; the replay must reproduce the
stored pots, else the hand cannot be written (``ValueError``).

The files carry what a tracker needs: the time the hand started (the view's ``started_at``),
the table by its name (the settings' ``name``, else its id), the requester as the hero (their
own ``Dealt to`` line / ``Dealt Cards`` action, the only one with cards), every hand of the
showdown, mucked ones included (R-SHOW-5); a tournament hand its tournament (PokerStars'
tournament header and finishing lines, OHH's ``tournament_info``). Several hands make one file,
oldest first:
PokerStars hands separated by two blank lines, OHH one document per line, PHH a ``.phhs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from feltroom.cards import parse_cards
from feltroom.errors import FeltroomError
from feltroom.history import ohh, phh, pokerstars
from feltroom.history.record import HandRecord
from feltroom.history.replay import record_from_hand
from feltroom.history.stored import config_of, replay_stored
from feltroom.history.tournament_info import TournamentInfo, from_stored
from feltroom.money import Currency
from feltroom.rules import Hand

__all__ = [
    "EXPORT_FORMATS",
    "ViewedHand",
    "export_file",
    "ohh_of_view",
    "phh_of_view",
    "phh_record_of_view",
    "pokerstars_of_view",
    "replay_view",
]

EXPORT_FORMATS = {
    "pokerstars": ("text/plain; charset=utf-8", "txt"),
    "ohh": ("application/x-ndjson", "ohh"),
    "phh": ("text/plain; charset=utf-8", "phhs"),
}
"""The formats of ``GET /api/hands/export``: media type and file extension."""


@dataclass(frozen=True, slots=True)
class ViewedHand:
    """A stored hand replayed from a view: the engine's hand (unknown cards ``None``) and what
    the files name it by."""

    hand: Hand
    hand_id: int
    names: dict[int, str]
    table_name: str
    currency: Currency
    started: datetime | None
    seat_count: int
    exponent: int
    tournament: TournamentInfo | None = None
    viewer: str | None = None
    """The name the requester played the hand under (an account renamed since keeps, in each
    hand file, the name it had then)."""


def replay_view(view: Mapping[str, Any]) -> ViewedHand:
    """The hand of a view (``HandHistories.for_player`` or ``for_observer``) replayed through
    the engine with every card the view does not show unknown. ``ValueError`` when the stored
    hand cannot be rebuilt this way (the replay must reproduce the stored pots)."""
    try:
        return _replay_view(view)
    except (FeltroomError, ValueError, KeyError, TypeError, IndexError) as error:
        raise ValueError(f"hand {view.get('hand_id')} cannot be rebuilt: {error}") from None


def _replay_view(view: Mapping[str, Any]) -> ViewedHand:
    record = view["record"]
    settings = view["settings"]
    config = config_of(settings)
    names = {int(seat): str(name) for seat, name, _stack in record["players"]}
    known = {int(row["seat"]): parse_cards(row["hole"]) for row in view["players"] if row["hole"]}
    hand = replay_stored(record, settings, known)
    moment = view.get("started_at") or view.get("finished_at")
    name = settings.get("name")
    return ViewedHand(
        hand=hand,
        hand_id=int(view["hand_id"]),
        names=names,
        table_name=name if isinstance(name, str) and name else str(view["table_id"]),
        currency=Currency(str(view["currency"]), config.exponent),
        started=(
            datetime.fromtimestamp(moment, UTC).replace(microsecond=0)
            if isinstance(moment, int | float)
            else None
        ),
        seat_count=config.max_seats,
        exponent=config.exponent,
        tournament=from_stored(settings, record),
        viewer=view.get("viewer"),
    )


def phh_record_of_view(view: Mapping[str, Any]) -> HandRecord:
    """The PHH record of a view: hidden hole cards unknown (``????``), the table's name
    (``table``), the ``currency`` and the time the hand started (``year``, ``month``, ``day``,
    ``time``, ``time_zone = 'UTC'``). ``ValueError`` as ``replay_view``."""
    viewed = replay_view(view)
    hand = viewed.hand
    record = record_from_hand(
        hand,
        names=[viewed.names[seat] for seat in hand.seats],
        seat_count=viewed.seat_count,
        hand_id=viewed.hand_id,
        exponent=viewed.exponent,
    )
    metadata: dict[str, object] = {"table": viewed.table_name, "currency": viewed.currency.code}
    if viewed.started is not None:
        moment = viewed.started
        metadata.update(
            year=moment.year,
            month=moment.month,
            day=moment.day,
            time=moment.time().replace(tzinfo=None),
            time_zone="UTC",
        )
    return replace(record, metadata=metadata)


def phh_of_view(view: Mapping[str, Any]) -> str:
    """The PHH text of a hand as ``HandHistories.for_player`` (or ``for_observer``) returned it.
    Raises ``ValueError`` when the stored hand cannot be rebuilt."""
    return phh.dumps(phh_record_of_view(view))


def _options(viewed: ViewedHand, player: str | None) -> dict[str, Any]:
    return {
        "hand_id": viewed.hand_id,
        "table_name": viewed.table_name,
        "hero": next(
            (name for name in (viewed.viewer, player) if name in viewed.names.values()), None
        ),
        "names": viewed.names,
        "currency": viewed.currency,
        "started": viewed.started,
        "seat_count": viewed.seat_count,
        "tournament": viewed.tournament,
    }


def pokerstars_of_view(view: Mapping[str, Any], player: str | None) -> str:
    """The PokerStars text of a view, ``player`` the hero (``None``: an observer's view)."""
    viewed = replay_view(view)
    return pokerstars.dumps(viewed.hand, **_options(viewed, player))


def ohh_of_view(view: Mapping[str, Any], player: str | None) -> str:
    """The OHH file (one ``{"ohh": {...}}`` document) of a view, ``player`` the hero."""
    viewed = replay_view(view)
    return ohh.line(viewed.hand, **_options(viewed, player)) + "\n"


def export_file(
    views: Sequence[Mapping[str, Any]], target: str, player: str | None
) -> tuple[str, list[int]]:
    """One file of the hands of ``views`` in the given order, in ``target`` (a key of
    ``EXPORT_FORMATS``): the text and the ids of the hands that could not be rebuilt (left
    out)."""
    if target not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}, not {target!r}")
    left_out: list[int] = []
    parts: list[str] = []
    records: list[HandRecord] = []
    for view in views:
        try:
            if target == "phh":
                records.append(phh_record_of_view(view))
                continue
            viewed = replay_view(view)
        except ValueError:
            left_out.append(int(view["hand_id"]))
            continue
        if target == "pokerstars":
            parts.append(pokerstars.dumps(viewed.hand, **_options(viewed, player)))
        else:
            parts.append(ohh.line(viewed.hand, **_options(viewed, player)) + "\n")
    if target == "phh":
        return (phh.dumps_all(records) if records else ""), left_out
    if target == "pokerstars":
        return pokerstars.join(parts), left_out
    return "".join(parts), left_out

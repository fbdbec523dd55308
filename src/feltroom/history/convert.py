"""``feltroom convert --to pokerstars|ohh|phh [--hero NAME] PATH...`` (layer ``history``).

Reads PHH (``.phh``/``.phhs`` files, or folders of them) and PokerStars text (files given by
name, recognised by their content): each hand is replayed through the engine
(``feltroom.history.replay.replay``) and written to standard output in the target format:
PokerStars text (hands separated by two blank lines, as the site writes them), OHH (one
``{"ohh": {...}}`` JSON object per line) or PHH (one ``.phhs`` document, tables ``[1]``,
``[2]``...).

Player names come from the PHH ``players`` field (``Player N`` when absent); the hand id from
``hand`` when it is a whole number, else the running index of the hand in this run; the table
name from ``table``, else the file name; the currency code from ``currency`` with the file's
own decimals, else play chips (``PLAY``); the time from ``year``, ``month``, ``day``, ``time``
and the time zone (``phh.started_at``), else the time of the conversion (never the epoch).

PokerStars hands are imported by ``feltroom.history.pokerstars_import`` and OHH JSON (files
given by name, recognised by their content) by ``feltroom.history.ohh_import`` (checked against
the engine and reconciled pot by pot): names, hand number, table name, currency, start time and
the rake come from the file.

Hole cards: with ``--hero NAME`` what R-HIST-2 shows that player (their own cards, in the only
``Dealt to`` line / ``Dealt Cards`` action, and those of every player who reached the showdown,
mucked hands included); without it no one's ``Dealt to`` line, and the cards of every hand of the
showdown (shown, and mucked in the summary). PHH output keeps every hole card the input holds.

A PHH hand that cannot be read or replayed is reported on stderr with its file and number, a
PokerStars or OHH hand that cannot be imported as ``PATH: line N: hand ID: message``; the rest
are converted (exit 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from feltroom.errors import FeltroomError
from feltroom.history import ohh, ohh_import, phh, pokerstars, pokerstars_import, toml_subset
from feltroom.history.imports import ImportResult
from feltroom.history.pokerstars import visible_seats
from feltroom.history.record import HandRecord
from feltroom.history.replay import ReplayError, hand_paths, record_from_hand, replay
from feltroom.money import Currency
from feltroom.rules import Hand

__all__ = ["FORMATS", "convert_paths"]

FORMATS = ("pokerstars", "ohh", "phh")


def _hand_id(fields: Any, index: int) -> int:
    value = fields.get("hand")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return index


def _hide(record: HandRecord, visible: frozenset[int], seats: list[int]) -> HandRecord:
    """``record`` with the hole cards of players outside ``visible`` (engine seats) unknown."""
    players = tuple(
        player if seat in visible else replace(player, hole=(None,) * len(player.hole))
        for player, seat in zip(record.players, seats, strict=True)
    )
    return replace(record, players=players)


_DATE_FIELDS = ("year", "month", "day", "time", "time_zone", "time_zone_abbreviation")


def _phh_metadata(record: HandRecord, table_name: str, started: datetime) -> dict[str, Any]:
    """The PHH fields of a converted hand beyond the play: a PHH input's own fields (its date
    and zone as written), else the hand's time in UTC; the table's name."""
    metadata: dict[str, Any] = (
        {k: v for k, v in record.metadata.items() if k in _DATE_FIELDS}
        if phh.started_at(record.metadata) is not None
        else {}
    )
    if not metadata:
        moment = started.astimezone(UTC)
        metadata = {
            "year": moment.year,
            "month": moment.month,
            "day": moment.day,
            "time": moment.time().replace(microsecond=0, tzinfo=None),
            "time_zone": "UTC",
        }
    metadata["table"] = table_name
    return metadata


@dataclass(slots=True)
class _Writer:
    """Writes replayed hands to ``out`` in the target format (PHH: all at the end)."""

    target: str
    hero: str | None
    out: TextIO
    now: datetime = field(default_factory=pokerstars.now)
    first: bool = True
    records: list[HandRecord] = field(default_factory=list)

    def write(
        self,
        record: HandRecord,
        hand: Hand,
        *,
        table_name: str,
        currency: Currency,
        hand_id: int,
        phh_hand: Any,
        started: datetime | None = None,
        file_hero: str | None = None,
    ) -> None:
        """Write the replayed ``hand`` of ``record``; a ``ValueError`` when the hero is not one
        of its players. Without ``--hero`` the hero is the input file's own (``file_hero``)."""
        hero = self.hero if self.hero is not None else file_hero
        names_list = [
            player.name or f"Player {k}" for k, player in enumerate(record.players, start=1)
        ]
        names = dict(zip(hand.seats, names_list, strict=True))
        if hero is not None and hero not in names_list:
            raise ValueError(f"the hero {hero!r} is not a player of this hand")
        if self.target == "phh":
            written = record_from_hand(
                hand,
                names=[names[seat] for seat in hand.seats],
                seat_count=record.seat_count,
                hand_id=phh_hand,
                exponent=record.exponent,
            )
            written = replace(
                written, metadata=_phh_metadata(record, table_name, started or self.now)
            )
            if hero is not None:
                hero_seat = next(s for s, name in names.items() if name == hero)
                written = _hide(written, visible_seats(hand, hero_seat), list(hand.seats))
            self.records.append(written)
            return
        options: dict[str, Any] = {
            "hand_id": hand_id,
            "table_name": table_name,
            "hero": hero,
            "names": names,
            "currency": currency,
            "reveal_showdown": hero is None,
            "started": started or self.now,
        }
        if record.seat_count is not None:
            options["seat_count"] = record.seat_count
        if self.target == "pokerstars":
            output = pokerstars.dumps(hand, **options)
            self.out.write(output if self.first else pokerstars.SEPARATOR + output)
        else:
            self.out.write(ohh.line(hand, **options) + "\n")
        self.first = False


def _imported(path: Path, result: ImportResult, writer: _Writer, err: TextIO) -> tuple[int, int]:
    """Write the hands imported from one file (PokerStars text or OHH) and report its problems:
    (1 if any hand failed, else 0; how many hands were imported)."""
    status = 0
    for problem in result.problems:
        err.write(f"{path}: {problem}\n")
        status = 1
    for record in result.records:
        metadata = record.metadata
        hand_id = record.hand_id if isinstance(record.hand_id, int) else 0
        started = metadata.get("started")
        file_hero = metadata.get("hero")
        try:
            writer.write(
                record,
                replay(record),
                table_name=str(metadata.get("table", path.name)),
                currency=Currency(str(metadata.get("currency", "PLAY")), record.exponent),
                hand_id=hand_id,
                phh_hand=record.hand_id,
                started=(
                    datetime.fromisoformat(started.replace("Z", "+00:00"))
                    if isinstance(started, str)
                    else None
                ),
                file_hero=file_hero if isinstance(file_hero, str) else None,
            )
        except (ReplayError, FeltroomError, ValueError) as error:
            err.write(f"{path}: hand {record.hand_id}: {error}\n")
            status = 1
    return status, len(result.records)


def convert_paths(
    paths: Iterable[str | Path], target: str, hero: str | None, out: TextIO, err: TextIO
) -> int:
    """Convert every hand of ``paths`` to ``target``; 1 if any hand failed, else 0."""
    if target not in FORMATS:
        raise ValueError(f"unknown target format {target!r}")
    status = 0
    index = 0
    writer = _Writer(target, hero, out)
    for path in hand_paths(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            err.write(f"{path}: cannot read the file: {error}\n")
            status = max(status, 1)
            continue
        if pokerstars_import.is_pokerstars(text):
            failed, count = _imported(path, pokerstars_import.loads(text), writer, err)
            status, index = max(status, failed), index + count
            continue
        if ohh_import.is_ohh(text):
            failed, count = _imported(path, ohh_import.loads(text), writer, err)
            status, index = max(status, failed), index + count
            continue
        try:
            document = toml_subset.loads(text)
            tables = phh.tables_of(document) if path.suffix == ".phhs" else [document]
        except ValueError as error:
            err.write(f"{path}: cannot read the file as PHH: {error}\n")
            status = max(status, 1)
            continue
        for number, fields in enumerate(tables, start=1):
            index += 1
            where = f"{path} hand {number}"
            try:
                record = phh.record_from_fields(fields)
                started = phh.started_at(fields)
                hand = replay(record)
                table = fields.get("table")
                code = fields.get("currency")
                writer.write(
                    record,
                    hand,
                    table_name=str(table) if table is not None else path.name,
                    currency=Currency(str(code) if code else "PLAY", record.exponent),
                    hand_id=_hand_id(fields, index),
                    phh_hand=fields.get("hand"),
                    started=started,
                )
            except (ReplayError, FeltroomError, ValueError) as error:
                err.write(f"{where}: {error}\n")
                status = max(status, 1)
    if target == "phh" and writer.records:
        out.write(phh.dumps_all(writer.records))
    return status

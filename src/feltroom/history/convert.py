"""``feltroom convert --to pokerstars|ohh|phh [--hero NAME] PATH...`` (layer ``history``).

Reads PHH today (``.phh``/``.phhs`` files, or folders of them): each hand is replayed through
the engine (``feltroom.history.replay.replay``) and written to standard output in the target
format: PokerStars text (hands separated by a blank line), OHH (one ``{"ohh": {...}}`` JSON
object per line) or PHH (one ``.phhs`` document, tables ``[1]``, ``[2]``...).

Player names come from the PHH ``players`` field (``Player N`` when absent); the hand id from
``hand`` when it is a whole number, else the running index of the hand in this run; the table
name from ``table``, else the file name; the currency code from ``currency`` with the file's
own decimals, else play chips (``PLAY``).

Hole cards: with ``--hero NAME`` what R-HIST-2 shows that player (their own cards and those of
every player who reached the showdown); without it every hole card the input holds (the
operator's full record).

PokerStars text and OHH JSON inputs are recognised by their content and refused for now
(exit 2, other files still converted); a PHH hand that cannot be read or replayed is reported
on stderr with its file and number and the rest are converted (exit 1).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from feltroom.errors import FeltroomError
from feltroom.history import ohh, phh, pokerstars, toml_subset
from feltroom.history.pokerstars import visible_seats
from feltroom.history.record import HandRecord
from feltroom.history.replay import ReplayError, hand_paths, record_from_hand, replay
from feltroom.money import Currency

__all__ = ["FORMATS", "convert_paths"]

FORMATS = ("pokerstars", "ohh", "phh")


def _foreign(text: str) -> str | None:
    """The name of a hand-history format we cannot import yet, recognised by content."""
    if "PokerStars Hand #" in text:
        return "PokerStars text"
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            document = json.loads(stripped)
        except ValueError:
            return None
        if isinstance(document, dict) and ("ohh" in document or "spec_version" in document):
            return "OHH"
    return None


def _json_number(value: object) -> float | int:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"not JSON serializable: {value!r}")


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


def convert_paths(
    paths: Iterable[str | Path], target: str, hero: str | None, out: TextIO, err: TextIO
) -> int:
    """Convert every hand of ``paths`` to ``target``; 2 if a file is in a format we cannot
    import yet, else 1 if any hand failed, else 0."""
    if target not in FORMATS:
        raise ValueError(f"unknown target format {target!r}")
    status = 0
    index = 0
    records: list[HandRecord] = []
    first = True
    for path in hand_paths(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            err.write(f"{path}: cannot read the file: {error}\n")
            status = max(status, 1)
            continue
        foreign = _foreign(text)
        if foreign is not None:
            err.write(f"{path}: importing {foreign} is not implemented yet\n")
            status = 2
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
                hand = replay(record)
                names_list = [
                    player.name or f"Player {k}" for k, player in enumerate(record.players, start=1)
                ]
                names = dict(zip(hand.seats, names_list, strict=True))
                if hero is not None and hero not in names_list:
                    raise ValueError(f"the hero {hero!r} is not a player of this hand")
                table = fields.get("table")
                table_name = str(table) if table is not None else path.name
                code = fields.get("currency")
                currency = Currency(str(code) if code else "PLAY", record.exponent)
                hand_id = _hand_id(fields, index)
                if target == "phh":
                    written = record_from_hand(
                        hand,
                        names=[names[seat] for seat in hand.seats],
                        seat_count=record.seat_count,
                        hand_id=fields.get("hand"),
                        exponent=record.exponent,
                    )
                    if hero is not None:
                        hero_seat = next(s for s, name in names.items() if name == hero)
                        written = _hide(written, visible_seats(hand, hero_seat), list(hand.seats))
                    records.append(written)
                    continue
                options: dict[str, Any] = {
                    "hand_id": hand_id,
                    "table_name": table_name,
                    "hero": hero,
                    "names": names,
                    "currency": currency,
                    "show_all": hero is None,
                }
                if record.seat_count is not None:
                    options["seat_count"] = record.seat_count
                if target == "pokerstars":
                    output = pokerstars.dumps(hand, **options)
                    out.write(output if first else "\n" + output)
                else:
                    document_ = {"ohh": ohh.to_dict(hand, **options)}
                    out.write(json.dumps(document_, default=_json_number) + "\n")
                first = False
            except (ReplayError, FeltroomError, ValueError) as error:
                err.write(f"{where}: {error}\n")
                status = max(status, 1)
    if target == "phh" and records:
        out.write(phh.dumps_all(records))
    return status

"""The room's tournaments, from ``[[tournament]]`` entries in the tables file (docs/tournaments.md).

Beside the ``[[table]]`` entries (``tables_config``) a tables file may list tournaments::

    [[tournament]]
    id = "nightly"               # letters, digits, "_", ".", "-"; unique; instance ids build on it
    currency = "PLAY"            # PLAY or an ISO code; buy_in, fee, guarantee in its units
    format = "mtt"               # sng | mtt; then any TournamentSettings field
    buy_in = 1000
    fee = 100
    schedule = "regular"
    late_registration_levels = 3
    breaks = { at_minute = 55, minutes = 5 }   # or "none"; omitted: the format's default
    start = "2026-12-24T20:00"   # mtt: a local time in time_zone
    time_zone = "Europe/Berlin"  # an IANA zone (default UTC)
    repeat = "daily"             # optional: none, daily or weekly

A sit-and-go has no start: it starts when full and, with ``recurring = true`` (the default), a new
instance opens for registration when one starts. Every instance has a stable id: ``<id>-<n>`` for
the n-th sit-and-go instance, ``<id>-<YYYYMMDDTHHMM>`` (the local start) for a scheduled one.
Every setting is validated by ``TournamentSettings``; an error names the tournament and the field.

``feltroom serve`` runs them (``feltroom.room.runtime.tournament``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from feltroom.errors import InvalidConfiguration
from feltroom.room.errors import RoomError
from feltroom.room.ledger import currency, valid_name
from feltroom.tournament import BreakPolicy, TournamentSettings

__all__ = ["REPEATS", "TournamentSpec", "load_tournaments", "parse_tournaments"]

REPEATS = ("none", "daily", "weekly")
_STEP = {"daily": timedelta(days=1), "weekly": timedelta(weeks=1)}
_FIELDS = {f.name for f in fields(TournamentSettings)}
_OWN = ("id", "currency", "start", "time_zone", "repeat", "recurring")


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """One configured tournament: its id, currency, settings and when its instances start."""

    tournament_id: str
    currency: str
    settings: TournamentSettings
    start: datetime | None = None
    """A scheduled tournament's first start (aware, in ``time_zone``)."""
    repeat: str = "none"
    recurring: bool = False
    """A sit-and-go that opens a new instance when one starts."""

    def next_start(self, after: float) -> datetime | None:
        """The first start at or after ``after`` (seconds since the epoch), counted in the local
        time of the zone (so a daily 20:00 stays at 20:00 across daylight-saving changes);
        ``None`` for a sit-and-go or a one-off start already past."""
        start = self.start
        if start is None:
            return None
        zone = start.tzinfo
        step = _STEP.get(self.repeat)
        local = start.replace(tzinfo=None)
        while local.replace(tzinfo=zone).timestamp() < after:
            if step is None:
                return None
            local += step
        return local.replace(tzinfo=zone)

    def instance_id(self, number: int = 1, start: datetime | None = None) -> str:
        """The stable id of an instance: the n-th sit-and-go, or the scheduled one starting at
        ``start`` (local time)."""
        if self.settings.format == "sng" or start is None:
            return f"{self.tournament_id}-{number}"
        return f"{self.tournament_id}-{start.strftime('%Y%m%dT%H%M')}"


def _breaks(value: Any, where: str) -> BreakPolicy | str | None:
    if value is None or isinstance(value, str):
        return None if value == "default" else value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"at_minute", "minutes", "utc_offset_minutes"})
        if unknown:
            raise RoomError(
                f"{where}: breaks: unknown keys {', '.join(unknown)}; valid keys are at_minute, "
                "minutes, utc_offset_minutes"
            )
        return BreakPolicy(**value)
    raise RoomError(
        f'{where}: breaks: {value!r} is not valid; valid values are "none", '
        '"default" or { at_minute = M, minutes = N }'
    )


def _spec(entry: dict[str, Any], where: str) -> TournamentSpec:
    entry = dict(entry)
    tid = entry.get("id")
    if not isinstance(tid, str):
        raise RoomError(f"{where}: every tournament needs an id (a string)")
    valid_name(tid, "tournament id")
    here = f"tournament {tid}"
    code = str(entry.pop("currency", "PLAY")).upper()
    currency(code)
    unknown = sorted(set(entry) - _FIELDS - set(_OWN))
    if unknown:
        raise RoomError(
            f"{here}: unknown settings {', '.join(unknown)}; valid settings are "
            f"{', '.join(sorted(_FIELDS | set(_OWN)))}"
        )
    repeat = entry.pop("repeat", "none")
    if repeat not in REPEATS:
        raise RoomError(
            f"{here}: repeat: {repeat!r} is not valid; valid values are {', '.join(REPEATS)}"
        )
    zone_name = entry.pop("time_zone", "UTC")
    try:
        zone = ZoneInfo(str(zone_name))
    except (ZoneInfoNotFoundError, ValueError):
        raise RoomError(
            f"{here}: time_zone: {zone_name!r} is not a known IANA time zone (e.g. UTC, "
            "Europe/Berlin, America/New_York)"
        ) from None
    start_text = entry.pop("start", None)
    recurring = entry.pop("recurring", None)
    entry.pop("id")
    try:
        settings = TournamentSettings(**{**entry, "breaks": _breaks(entry.get("breaks"), here)})
    except InvalidConfiguration as error:
        raise RoomError(f"{here}: {error}") from None
    except TypeError as error:
        raise RoomError(f"{here}: {error}") from None
    start = None
    if settings.format == "mtt":
        if not isinstance(start_text, str):
            raise RoomError(f'{here}: a scheduled tournament needs start = "YYYY-MM-DDTHH:MM"')
        try:
            local = datetime.fromisoformat(start_text)
        except ValueError:
            raise RoomError(
                f'{here}: start: {start_text!r} is not a local time like "2026-12-24T20:00"'
            ) from None
        if local.tzinfo is not None:
            raise RoomError(f"{here}: start: give the local time and time_zone, not an offset")
        start = local.replace(tzinfo=zone)
    elif start_text is not None or repeat != "none":
        raise RoomError(f"{here}: a sit-and-go starts when full: no start or repeat")
    if recurring is not None and not isinstance(recurring, bool):
        raise RoomError(
            f"{here}: recurring: {recurring!r} is not valid; valid values are true, false"
        )
    is_sng = settings.format == "sng"
    return TournamentSpec(
        tid, code, settings, start, repeat, is_sng and (recurring is None or recurring)
    )


def parse_tournaments(text: str, where: str = "tables") -> list[TournamentSpec]:
    """The ``[[tournament]]`` entries of a tables file's TOML text (none: an empty list)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RoomError(f"{where}: not valid TOML: {error}") from None
    entries = document.get("tournament", [])
    if not isinstance(entries, list):
        raise RoomError(f"{where}: tournaments are [[tournament]] entries")
    specs = [_spec(entry, where) for entry in entries]
    ids = [spec.tournament_id for spec in specs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise RoomError(f"{where}: tournament ids used twice: {', '.join(duplicates)}")
    return specs


def load_tournaments(path: str | Path | None = None) -> list[TournamentSpec]:
    """The tournaments of a tables file, or of the shipped demo tables when ``path`` is
    ``None``."""
    if path is None:
        text = resources.files("feltroom").joinpath("data", "tables.toml").read_text("utf-8")
        return parse_tournaments(text, "the demo tables")
    return parse_tournaments(Path(path).read_text("utf-8"), str(path))

"""The room's tables, from a TOML file: each table's id, its currency and its house-rule settings.

A file lists ``[[table]]`` entries::

    [[table]]
    id = "pl-25-50"            # letters, digits, "_", ".", "-"; unique; the ledger's table id
    preset = "pl_25_50"        # optional: start from a preset of feltroom.table.config
    currency = "PLAY"          # PLAY (play money, whole chips) or an ISO code (two decimals)
    name = "Birch"             # any TableConfig field may follow (amounts in units)
    max_seats = 6

Play-money tables get ``money = "play"`` and ``exponent = 0``; real-money tables ``money =
"real"`` and ``exponent = 2``. Percentages may be written as integers or as a fraction in a string
(``"5/2"``). Every setting is validated by ``TableConfig``; an error names the table and the field.
The package ships ``feltroom/data/tables.toml``, the demo tables ``feltroom serve`` opens by
default.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from feltroom.errors import InvalidConfiguration
from feltroom.room.errors import RoomError
from feltroom.room.ledger import currency, is_home_currency, valid_name
from feltroom.room.storage import Storage
from feltroom.table import TableConfig, preset

__all__ = [
    "DEFAULT_TABLES",
    "TableSpec",
    "check_cash_table_id",
    "load_tables",
    "parse_tables",
    "room_tables",
    "settings_of",
    "spec_of",
    "table_entries",
]

DEFAULT_TABLES = "feltroom/data/tables.toml"
"""The shipped demo tables (package data), what ``load_tables(None)`` reads."""

_FIELDS = {f.name for f in fields(TableConfig) if not f.name.startswith("_")}
_PERCENTS = ("rake_percent", "tax_percent")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One table of the room: its ledger id, its currency code and its settings; ``home``: the
    id of the home game whose private table it is (R-HOME-1; never in the lobby), else None."""

    table_id: str
    currency: str
    config: TableConfig
    home: str | None = None

    @property
    def play_money(self) -> bool:
        return self.config.money == "play"


def _value(name: str, value: Any) -> Any:
    if name in _PERCENTS and isinstance(value, str):
        try:
            return Fraction(value)
        except ValueError:
            raise InvalidConfiguration(f"{name}: {value!r} is not a number or fraction") from None
    return value


def _spec(entry: Mapping[str, Any], where: str) -> TableSpec:
    entry = dict(entry)
    table_id = entry.pop("id", None)
    if not isinstance(table_id, str):
        raise RoomError(f"{where}: every table needs an id (a string)")
    valid_name(table_id, "table id")
    home = entry.pop("home", None)
    if home is not None and not isinstance(home, str):
        raise RoomError(f"table {table_id}: 'home' is a home game's id (text), not {home!r}")
    code = str(entry.pop("currency", "PLAY"))
    if not is_home_currency(code):
        code = code.upper()
    elif home != code:
        raise RoomError(
            f"table {table_id}: currency {code} is a home game's own chips (docs/home-games.md); "
            "use PLAY or an ISO code"
        )
    currency(code)
    base = entry.pop("preset", None)
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise RoomError(
            f"table {table_id}: unknown settings {', '.join(unknown)}; valid settings are "
            f"{', '.join(sorted(_FIELDS))}"
        )
    settings = {name: _value(name, value) for name, value in entry.items()}
    own_chips = code == "PLAY" or is_home_currency(code)
    if own_chips:
        settings.setdefault("money", "play")
        settings.setdefault("exponent", 0)
    else:
        settings.setdefault("money", "real")
    try:
        if base is not None:
            config = preset(str(base)).with_(**settings)
        else:
            config = TableConfig(**settings)
    except InvalidConfiguration as error:
        raise RoomError(f"table {table_id}: {error}") from None
    if (config.money == "play") != own_chips:
        raise RoomError(f"table {table_id}: money {config.money!r} does not fit currency {code}")
    return TableSpec(table_id, code, config, home)


def table_entries(text: str, where: str = "tables") -> list[tuple[TableSpec, dict[str, Any]]]:
    """Each table of a TOML text with its entry as written (what a cluster's database keeps,
    ``spec_of`` rebuilds it)."""
    specs = parse_tables(text, where)  # refuses what is not valid, with the reason
    return list(zip(specs, tomllib.loads(text)["table"], strict=True))


def check_cash_table_id(table_id: str) -> str:
    """A new cash table's id: never a tournament table's, present or future (those are
    ``{instance}.{n}``), so no cash table id contains a ".". (Tables the database already
    holds keep their ids.)"""
    if "." in table_id:
        raise RoomError(
            f"a cash table's id may not contain '.' ({table_id!r}): tournament tables are "
            "named {instance}.{n}; use letters, digits, '-' or '_'"
        )
    return table_id


def spec_of(entry: Mapping[str, Any], where: str) -> TableSpec:
    """The table of one entry of a tables file (validated as ``parse_tables`` does)."""
    return _spec(entry, where)


def parse_tables(text: str, where: str = "tables") -> list[TableSpec]:
    """The tables of a TOML text (see the module docstring)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RoomError(f"{where}: not valid TOML: {error}") from None
    entries = document.get("table")
    if not isinstance(entries, list) or not entries:
        raise RoomError(f"{where}: no [[table]] entries")
    specs = [_spec(entry, where) for entry in entries]
    ids = [check_cash_table_id(spec.table_id) for spec in specs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise RoomError(f"{where}: table ids used twice: {', '.join(duplicates)}")
    return specs


def _tables_text(path: str | Path | None) -> tuple[str, str]:
    if path is None:
        text = resources.files("feltroom").joinpath("data", "tables.toml").read_text("utf-8")
        return text, DEFAULT_TABLES
    return Path(path).read_text("utf-8"), str(path)


def load_tables(path: str | Path | None = None) -> list[TableSpec]:
    """The tables of a file, or the shipped demo tables when ``path`` is ``None``."""
    return parse_tables(*_tables_text(path))


def room_tables(storage: Storage, path: str | Path | None = None) -> list[TableSpec]:
    """The room's tables: the database is their source of truth once it holds them.

    Each table of the tables file (``path``; the demo tables when ``None``) that the database
    does not know yet is stored (``table_definitions``); then every table the database defines
    and that is not retired is loaded, the file's first, in its order, then the others (added by
    an operator) by id. A table the database knows keeps its stored definition whatever the file
    now says: to change a table, retire it and add a new one (docs/operator.md)."""
    entries = table_entries(*_tables_text(path))
    with storage.transaction() as tx:
        for spec, entry in entries:
            tx.add_table_definition(spec.table_id, json.dumps(entry, sort_keys=True))
        stored = tx.table_definitions()
    order = [spec.table_id for spec, _ in entries]
    ids = [t for t in order if t in stored] + sorted(set(stored) - set(order))
    return [spec_of(json.loads(stored[t]), f"table_definitions ({t})") for t in ids]


def settings_of(config: TableConfig) -> dict[str, Any]:
    """Every setting of a table as JSON-ready values (fractions as text), with the derived
    blinds and buy-in bounds: what the lobby shows and each stored hand keeps."""
    settings: dict[str, Any] = {}
    for f in fields(config):
        if f.name.startswith("_"):
            continue
        value = getattr(config, f.name)
        settings[f.name] = str(value) if isinstance(value, Fraction) else value
    settings["small_blind_amount"] = config.small
    settings["big_blind_amount"] = config.big
    settings["buy_in_min"] = config.buy_in_min
    settings["buy_in_max"] = config.buy_in_max
    return settings

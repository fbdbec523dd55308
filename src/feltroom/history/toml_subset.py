"""A fast reader for the line-oriented TOML that PHH files use, with ``tomllib`` as the fallback.

PHH files are TOML, and almost all of them (every file we write, and the public datasets) use a
small subset: one ``key = value`` per line; values that are strings, integers, decimals, booleans,
local times or one-line arrays of those; ``[n]`` table headers in ``.phhs`` files; comments.
``tomllib`` reads that subset at about 150 microseconds per hand, which is more than replaying
the hand itself, so this module reads the subset directly with a few regular expressions and
hands anything it is not sure about (multi-line arrays, escapes, dotted keys, duplicate keys,
dates...) to ``tomllib`` unchanged. For the input it accepts it gives exactly what
``tomllib.loads(text, parse_float=Decimal)`` gives: decimals are ``Decimal``, never ``float``.
"""

from __future__ import annotations

import re
import tomllib
from datetime import time
from decimal import Decimal
from typing import Any

__all__ = ["loads"]

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_HEADER = re.compile(r"\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*(?:#.*)?")
# One scalar: a literal string, a basic string without escapes, or a bare word (number, boolean,
# time). Control characters other than tab are not allowed in TOML strings.
_SCALAR = re.compile(
    r"[ \t]*(?:'([^'\x00-\x08\x0a-\x1f\x7f]*)'"
    r'|"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"'
    r"|([A-Za-z0-9_.:+-]+))[ \t]*"
)
_INTEGER = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)")
_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)")


class _Unsure(Exception):
    """The text leaves the subset; let tomllib read it."""


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text, fast for the PHH subset; decimals come back as ``Decimal``."""
    try:
        return _loads_subset(text)
    except _Unsure:
        return tomllib.loads(text, parse_float=Decimal)


def _loads_subset(text: str) -> dict[str, Any]:
    root: dict[str, Any] = {}
    table = root
    keys: set[str] = set()  # valid bare keys met so far
    # The lines of a .phhs file repeat from hand to hand (variant, blinds, seats...): each
    # distinct key-value line is parsed once. Values are immutable scalars or lists of them; a
    # repeated list is a copy, so no two tables share one.
    seen: dict[str, tuple[str, Any]] = {}
    for raw in text.split("\n"):
        entry = seen.get(raw)
        if entry is not None:
            key, value = entry
            if key in table:
                raise _Unsure
            table[key] = value.copy() if type(value) is list else value
            continue
        line = raw.strip(" \t\r")
        if not line or line[0] == "#":
            continue
        if line[0] != "[":
            # key = value: a bare key, blanks and "=", the value (the first "=" ends the key).
            key, equals, rest = line.partition("=")
            key = key.rstrip(" \t")
            if key not in keys:
                if not equals or _KEY.fullmatch(key) is None:
                    raise _Unsure
                keys.add(key)
            if key in table:
                raise _Unsure
            value = table[key] = _value(rest.lstrip(" \t"))
            seen[raw] = (key, value)
            continue
        header = _HEADER.fullmatch(line)
        if header is None:
            raise _Unsure
        name = header.group(1)
        if name in root:
            raise _Unsure
        table = root[name] = {}
    return root


def _value(text: str) -> Any:
    if text[:1] == "[":
        if text[-1] == "]":
            return _array(text)
        return _general_array(text)
    match = _SCALAR.match(text)
    if match is None:
        raise _Unsure
    _check_rest(text, match.end())
    return _scalar(match)


# Whole one-line arrays of plain literal strings or of plain numbers, the bulk of a PHH file.
_STRINGS = re.compile(
    r"\[[ \t]*(?:'[^'\x00-\x08\x0a-\x1f\x7f]*'[ \t]*,[ \t]*)*"
    r"(?:'[^'\x00-\x08\x0a-\x1f\x7f]*'[ \t]*,?[ \t]*)?\]"
)
_STRING_ITEM = re.compile(r"'([^']*)'")
_INTEGERS = re.compile(
    r"\[[ \t]*(?:[+-]?(?:0|[1-9][0-9]*)[ \t]*,[ \t]*)*"
    r"(?:[+-]?(?:0|[1-9][0-9]*)[ \t]*,?[ \t]*)?\]"
)


def _array(text: str) -> list[Any]:
    if text[1] == "'" == text[-2] and text.isprintable():
        # Written as PHH writers write it, ['a', 'b'] (no control characters), the items are
        # what lies between "', '" when the quotes number two per item: no item holds one.
        items = text[2:-2].split("', '")
        if text.count("'") == 2 * len(items):
            return items
    if _STRINGS.fullmatch(text):
        return _STRING_ITEM.findall(text)
    if _INTEGERS.fullmatch(text):
        items = text[1:-1].split(",")
        if items[-1].strip(" \t"):  # no trailing comma: every item holds a number
            return [int(item) for item in items]
        return [int(item) for item in items if item.strip()]
    return _general_array(text)


def _general_array(text: str) -> list[Any]:
    items: list[Any] = []
    position = 1
    length = len(text)
    scalar = _SCALAR.match
    while True:
        while position < length and text[position] in " \t":
            position += 1
        if position < length and text[position] == "]":
            _check_rest(text, position + 1)
            return items
        match = scalar(text, position)
        if match is None:
            raise _Unsure
        items.append(_scalar(match))
        position = match.end()
        if position < length and text[position] == ",":
            position += 1
        elif position < length and text[position] == "]":
            _check_rest(text, position + 1)
            return items
        else:
            raise _Unsure


def _check_rest(text: str, position: int) -> None:
    rest = text[position:].lstrip(" \t")
    if rest and rest[0] != "#":
        raise _Unsure
    if any((ord(c) < 32 and c != "\t") or c == "\x7f" for c in rest):
        raise _Unsure


def _scalar(match: re.Match[str]) -> Any:
    literal, basic, bare = match.groups()
    if literal is not None:
        return literal
    if basic is not None:
        return basic
    if _INTEGER.fullmatch(bare):
        return int(bare)
    if bare == "true":
        return True
    if bare == "false":
        return False
    if _DECIMAL.fullmatch(bare):
        return Decimal(bare)
    clock = _TIME.fullmatch(bare)
    if clock is not None:
        hour, minute, second = (int(part) for part in clock.groups())
        if second == 60:
            raise _Unsure
        return time(hour, minute, second)
    raise _Unsure

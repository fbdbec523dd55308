"""The room's logging, configured once through ``logging.config.dictConfig``
(docs/operations.md, "Logging").

``configure(level, format, access)``: every record to standard error, as text lines
(``2026-12-02T12:00:00.123Z INFO feltroom.room: ...``) or one JSON object a line (``time``,
``level``, ``logger``, ``message`` and the record's own fields: an access line's ``address``,
``account``, ``method``, ``path``, ``status``, ``duration_ms``). ``level`` is the room's
(``feltroom.*``; ``debug`` adds a line for each hand dealt and settled, with the table and the hand
id); the libraries log warnings and above. ``access`` off silences ``feltroom.access``.
"""

from __future__ import annotations

import json
import logging
import logging.config
import time
from typing import Any

__all__ = ["JsonFormatter", "configure", "logging_config"]

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the extra fields
    and, for an exception, its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: MESSAGE`` with the time in UTC."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return _iso(record.created)


def _iso(created: float) -> str:
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
        + f".{int(created % 1 * 1000):03d}Z"
    )


def logging_config(
    level: str = "info", format: str = "text", access: bool = True
) -> dict[str, Any]:
    """The ``dictConfig`` dictionary of ``configure``."""
    room_level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "text": {
                "()": TextFormatter,
                "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
            },
            "json": {"()": JsonFormatter},
        },
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": format,
            }
        },
        "loggers": {
            "feltroom": {"level": room_level},
            "feltroom.access": {"level": "INFO" if access else "WARNING"},
            "uvicorn": {"level": "INFO" if room_level == "DEBUG" else "WARNING"},
            "uvicorn.error": {"level": "INFO" if room_level == "DEBUG" else "WARNING"},
        },
        "root": {"level": "WARNING", "handlers": ["stderr"]},
    }


def configure(level: str = "info", format: str = "text", access: bool = True) -> None:
    """Configure the process's logging (``feltroom serve``)."""
    logging.config.dictConfig(logging_config(level, format, access))

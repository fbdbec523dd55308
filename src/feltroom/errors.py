"""The error tree of feltroom.

Errors are typed by cause, so that the party at fault gets the error and everyone else carries on
(DESIGN.md, principle 9). Every message says what was wrong and, where it can, what would be valid.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FeltroomError", "IllegalAction", "InvalidConfiguration", "InvalidNotation"]


class FeltroomError(Exception):
    """Base of every error feltroom raises on purpose."""


class InvalidNotation(FeltroomError, ValueError):
    """Text that should name cards (``"As Kd"``) does not, or names a card twice."""


class InvalidConfiguration(FeltroomError, ValueError):
    """A setting is out of range; the message names the field and the valid values."""


class IllegalAction(FeltroomError):
    """An action the rules do not allow at this moment; nothing was changed.

    ``reason`` says why; ``legal`` carries the options that were legal instead; ``details`` the
    figures a program (or a page writing a sentence) needs, such as ``{"min": 40, "max": 400}``.
    """

    def __init__(
        self, reason: str, legal: Any = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(reason if legal is None else f"{reason}; legal: {legal}")
        self.reason = reason
        self.legal = legal
        self.details: dict[str, Any] = dict(details or {})

"""What importing a hand-history file gives (layer ``history``): the hands that were read and,
for each hand that could not be, where and why.

A bad hand never stops the import of the rest of the file: the importers of PokerStars text
(``feltroom.history.pokerstars_import``) and of OHH (``feltroom.history.ohh_import``) collect one
:class:`ImportProblem` per bad hand and go on with the next one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from feltroom.history.record import HandRecord

__all__ = ["ImportProblem", "ImportResult"]


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One hand that could not be imported: its id as the file gives it (``None`` when the
    hand's header could not be read), the 1-based line of the file where the problem is, and
    what is wrong, saying what was expected."""

    hand: str | None
    line: int
    message: str

    def __str__(self) -> str:
        which = f"hand {self.hand}" if self.hand is not None else "a hand"
        return f"line {self.line}: {which}: {self.message}"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The hands read from one file, in file order, and the problems met."""

    records: tuple[HandRecord, ...] = ()
    problems: tuple[ImportProblem, ...] = field(default=())

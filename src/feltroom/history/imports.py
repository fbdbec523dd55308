"""What importing a hand-history file gives (layer ``history``): the hands that were read and,
for each hand that could not be, where and why.

A bad hand never stops the import of the rest of the file: the importers of PokerStars text
(``feltroom.history.pokerstars_import``) and of OHH (``feltroom.history.ohh_import``) collect one
:class:`ImportProblem` per bad hand and go on with the next one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from feltroom.history.record import HandRecord, RakeRecord
from feltroom.rules import RakeRule, rake_pots

__all__ = ["ImportProblem", "ImportResult", "rake_record"]


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


def rake_record(amounts: Sequence[int], rakes: Sequence[int]) -> RakeRecord | None:
    """A rake rule that takes ``rakes`` from the pots of ``amounts`` (main pot first) the way
    the engine does (R-RAKE-3), so that a replayed import pays the file's rake pot by pot:
    ``fraction`` is the largest share a pot paid, ``cap`` the hand's rake. ``None`` when the
    hand paid no rake or no such rule gives those rakes (a site that spreads the rake over the
    pots otherwise)."""
    total = sum(rakes)
    if not total:
        return None
    fraction = max(
        Fraction(rake, amount) for rake, amount in zip(rakes, amounts, strict=True) if amount
    )
    if fraction >= 1 or rake_pots(amounts, RakeRule(fraction, total), True) != list(rakes):
        return None
    return RakeRecord(fraction, total, False, total)

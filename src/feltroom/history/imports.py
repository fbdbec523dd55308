"""What importing a hand-history file gives (layer ``history``): the hands that were read and,
for each hand that could not be, where and why.

A bad hand never stops the import of the rest of the file: the importers of PokerStars text
(``feltroom.history.pokerstars_import``) and of OHH (``feltroom.history.ohh_import``) collect one
:class:`ImportProblem` per bad hand and go on with the next one.

Both replay each hand through the engine without rake and settle it against the file with the
same helpers: ``awarded`` (the engine's split of what is left of a pot after its rake),
``with_results`` (the file's winnings, stacks and rake on the record) and ``rake_record`` (the
rake rule that takes the file's rake pot by pot, R-RAKE-3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from feltroom.history.record import HandRecord, RakeRecord
from feltroom.rules import Hand, PotAwarded, split_pot

__all__ = ["ImportProblem", "ImportResult", "awarded", "rake_record", "with_results"]


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
    """The recorded rake of an imported hand: ``rakes`` taken from the pots of ``amounts`` (main
    pot first) exactly as the file records them, pot by pot (R-RAKE-3: imported hands keep their
    per-pot rake, however the site computed it); ``fraction`` is the largest share a pot paid
    (the hand's share when a pot paid all it held) and ``cap`` the hand's rake, for the record.
    ``None`` when the hand paid no rake or all it held."""
    total = sum(rakes)
    if not total:
        return None
    fraction = max(
        Fraction(rake, amount) for rake, amount in zip(rakes, amounts, strict=True) if amount
    )
    if fraction >= 1:
        fraction = Fraction(total, sum(amounts))
        if fraction >= 1:
            return None
    return RakeRecord(fraction, total, False, total, tuple(rakes))


def awarded(pot: PotAwarded, net: int) -> dict[int, int]:
    """What the engine gives each winner of ``pot`` (replayed without rake) when ``net`` is left
    of it after the rake: equal parts, odd units clockwise from the button (R-POT-1), each
    run's half apart for a pot run twice (R-HOME-4); a zero share is left out, as hand
    histories leave it out."""
    if pot.runs:
        # R-HOME-4: the halves (the odd unit to the first run), each split among its run's
        # winners
        out: dict[int, int] = {}
        for half, (winners, _) in zip((net - net // 2, net // 2), pot.runs, strict=True):
            for seat, share in zip(winners, split_pot(half, winners), strict=True):
                out[seat] = out.get(seat, 0) + share
        return {seat: share for seat, share in out.items() if share}
    shares = split_pot(net, pot.winners)
    return {seat: share for seat, share in zip(pot.winners, shares, strict=True) if share}


def with_results(
    record: HandRecord,
    hand: Hand,
    won: Mapping[int, int],
    rakes: Sequence[int],
    metadata: Mapping[str, object],
) -> HandRecord:
    """``record`` (replayed without rake as ``hand``) with the file's results: ``winnings``
    (``won``: seat -> what the file says the player collected), ``finishing_stacks`` (the
    engine's stacks less each winner's part of the rake), the rake rule that takes ``rakes``
    pot by pot (``rake_record``), and ``metadata`` plus ``pots`` (each pot's amount and rake)
    and ``rake`` (their sum)."""
    pots = [event for event in hand.events if isinstance(event, PotAwarded)]
    engine_won: dict[int, int] = {}
    for pot in pots:
        for seat, share in zip(pot.winners, pot.shares, strict=True):
            engine_won[seat] = engine_won.get(seat, 0) + share
    final = dict(zip((seat for seat, _ in hand.setup.players), hand.final_stacks, strict=True))
    seats = record.seats
    kept = dict(metadata)
    kept["pots"] = tuple((pot.amount, rake) for pot, rake in zip(pots, rakes, strict=True))
    kept["rake"] = sum(rakes)
    return replace(
        record,
        finishing_stacks=tuple(
            Decimal(final[seat] - engine_won.get(seat, 0) + won.get(seat, 0)) for seat in seats
        ),
        winnings=tuple(Decimal(won.get(seat, 0)) for seat in seats),
        rake=rake_record([pot.amount for pot in pots], rakes),
        metadata=MappingProxyType(kept),
    )

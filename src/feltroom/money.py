"""Chips are integers in the currency's smallest unit (R-GAME-5); this module converts at the edges.

Amounts enter and leave feltroom as text or ``Decimal`` in major units ("12.34" dollars) and are
held everywhere else as ``int`` units (1234 cents). Floats are refused: they cannot hold most
decimal amounts exactly. An amount finer than the currency's unit is refused, never rounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = ["PLAY", "Currency", "format_units", "to_units"]


@dataclass(frozen=True, slots=True)
class Currency:
    """A currency: its code and how many decimal places its smallest unit has."""

    code: str
    exponent: int

    @property
    def unit(self) -> Decimal:
        """The smallest unit in major units (0.01 for cents, 1 for play chips)."""
        return Decimal(1).scaleb(-self.exponent)


PLAY = Currency("PLAY", 0)
"""Play chips: whole chips only."""


def to_units(amount: str | Decimal | int, currency: Currency) -> int:
    """Convert an amount in major units to integer units, exactly, or raise ``ValueError``."""
    if isinstance(amount, bool) or not isinstance(amount, str | Decimal | int):
        raise ValueError(
            f"amounts are decimal text, Decimal or int, not {type(amount).__name__} "
            "(floats cannot hold money exactly)"
        )
    try:
        value = Decimal(amount.strip() if isinstance(amount, str) else amount)
    except InvalidOperation:
        raise ValueError(f"not an amount: {amount!r}; write it like '12.34'") from None
    if not value.is_finite():
        raise ValueError(f"not an amount: {amount!r}")
    units = value.scaleb(currency.exponent)
    if units != units.to_integral_value():
        raise ValueError(
            f"{amount} {currency.code} is finer than the smallest unit {currency.unit}"
        )
    return int(units)


def format_units(units: int, currency: Currency) -> str:
    """Integer units as major-unit text with the currency's decimals: 1234 -> '12.34'."""
    if currency.exponent == 0:
        return str(units)
    sign = "-" if units < 0 else ""
    whole, part = divmod(abs(units), 10**currency.exponent)
    return f"{sign}{whole}.{part:0{currency.exponent}d}"

"""Integer chips in the smallest unit (R-GAME-5)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from feltroom.money import PLAY, Currency, format_units, to_units

USD = Currency("USD", 2)


@pytest.mark.parametrize(
    ("text", "units"),
    [("12.34", 1234), ("0.05", 5), ("0.5", 50), ("100", 10000), ("-1.25", -125), (" 3 ", 300)],
)
# Rules: R-GAME-5
def test_R_GAME_5_decimal_amounts_convert_exactly_to_integer_units(text: str, units: int) -> None:
    value = to_units(text, USD)
    assert value == units
    assert isinstance(value, int)
    assert to_units(format_units(value, USD), USD) == value


# Rules: R-GAME-5
def test_R_GAME_5_play_chips_have_unit_one() -> None:
    assert to_units("250", PLAY) == 250
    assert format_units(250, PLAY) == "250"
    with pytest.raises(ValueError, match=r"finer than the smallest unit 1$"):
        to_units("2.5", PLAY)


# Rules: R-GAME-5
def test_R_GAME_5_floats_and_sub_unit_amounts_are_refused() -> None:
    with pytest.raises(ValueError, match="floats cannot hold money exactly"):
        to_units(0.1, USD)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"finer than the smallest unit 0\.01"):
        to_units("0.005", USD)
    with pytest.raises(ValueError, match=r"write it like '12\.34'"):
        to_units("twelve", USD)
    with pytest.raises(ValueError, match="not an amount"):
        to_units("NaN", USD)
    assert to_units(Decimal("0.10"), USD) == 10
    assert format_units(-5, USD) == "-0.05"

"""Where the tests find hand histories: ``tests/data`` (in the repository, always there) and the
full corpora in ``../shared`` beside the checkout (optional).

Tests that read ``../shared`` carry the ``corpus`` marker; ``tests/conftest.py`` skips them, with
the reason, when ``../shared`` is absent.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
PHH = DATA / "phh"
POKERSTARS = DATA / "pokerstars"
OHH = DATA / "ohh"

SHARED = Path(__file__).resolve().parents[3] / "shared"
SHARED_PHH = SHARED / "phh"
SHARED_POKERSTARS = SHARED / "handhistories" / "pokerstars"
SHARED_OHH = SHARED / "handhistories" / "ohh"

# The Pluribus logs split these pots' odd chip into halves (README of the corpus).
ODD_CHIP_HANDS = frozenset(
    {
        "pluribus/32/23.phh",
        "pluribus/41b/204.phh",
        "pluribus/60/88.phh",
        "pluribus/75b/76.phh",
        "pluribus/88/128.phh",
        "pluribus/91/43.phh",
        "pluribus/91/53.phh",
    }
)

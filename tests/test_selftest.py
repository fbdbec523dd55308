"""The shuffle's statistical self-tests (R-RNG-2) and their command line."""

from __future__ import annotations

import json
import random

import pytest
from scipy import stats

from feltroom.cards import CARDS, Deck
from feltroom.cli import main
from feltroom.selftest import ALPHA, chi2_isf, chi2_sf, production_orders, run_selftest

SHUFFLES = 100_000


@pytest.mark.parametrize("df", [1, 5, 51, 2601, 2651])
def test_chi_square_tail_matches_scipy(df: int) -> None:
    for x in (0.2 * df, df, 1.2 * df, df + 10 * df**0.5):
        assert chi2_sf(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9, abs=1e-300)
    assert chi2_isf(ALPHA, df) == pytest.approx(stats.chi2.isf(ALPHA, df), rel=1e-8)


# Rules: R-RNG-2
def test_R_RNG_2_production_shuffle_passes_on_100000_shuffles() -> None:
    # Each test rejects at alpha = 1e-3; a failure is rerun once on fresh data before failing.
    report = run_selftest(SHUFFLES)
    if not report["pass"]:
        report = run_selftest(SHUFFLES)
    assert report["shuffles"] == SHUFFLES
    assert set(report["tests"]) == {"card_position", "first_two_cards", "adjacency", "fixed_points"}
    assert report["pass"], report
    thresholds = {name: t["threshold"] for name, t in report["tests"].items()}
    assert thresholds["card_position"] == pytest.approx(stats.chi2.isf(ALPHA, 2601), rel=1e-8)
    assert thresholds["first_two_cards"] == pytest.approx(stats.chi2.isf(ALPHA, 2651), rel=1e-8)
    assert thresholds["fixed_points"] == pytest.approx(stats.chi2.isf(ALPHA, 5), rel=1e-8)


# Rules: R-RNG-2
def test_R_RNG_2_self_tests_catch_the_classic_biased_shuffle() -> None:
    # Swapping every position with any position (not only those at or before it) is the textbook
    # biased shuffle; the card-by-position and adjacency tests must reject it.
    rng = random.Random(2026)

    def biased() -> Deck:
        cards = list(CARDS)
        for i in range(len(cards)):
            j = rng.randrange(len(cards))
            cards[i], cards[j] = cards[j], cards[i]
        return Deck(tuple(cards))

    report = run_selftest(20_000, deal=biased)
    assert not report["pass"]
    assert not report["tests"]["card_position"]["pass"]


def test_production_orders_are_card_indices() -> None:
    orders = production_orders(3)
    assert len(orders) == 3 * 52
    for k in range(3):
        assert sorted(orders[k * 52 : (k + 1) * 52]) == list(range(52))


# Rules: R-RNG-2
def test_R_RNG_2_selftest_command_prints_one_json_object(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["selftest", "--shuffles", "2000", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if report["pass"] else 1)
    assert report["shuffles"] == 2000
    for result in report["tests"].values():
        assert set(result) == {"statistic", "threshold", "pass"}
        assert result["pass"] == (result["statistic"] < result["threshold"])
    assert report["pass"] == all(t["pass"] for t in report["tests"].values())


def test_selftest_command_refuses_a_bad_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["selftest", "--shuffles", "0"])
    assert exit_info.value.code == 2
    assert "at least 1" in capsys.readouterr().err

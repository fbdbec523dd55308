"""Whole tournaments simulated offline (``feltroom simulate --tournament``): 200 of each format with
2 to 60 random players in the suite, 1,000 and 2,000 players in the slow step. Every run checks
the invariants of ``feltroom.simulate_tournament`` after every hand (chips, balancing R-TOURN-7,
entry between the small blind and the button R-TOURN-3/8, blinds and antes R-TOURN-5) and at the
end (one winner, places R-TOURN-10, prizes R-TOURN-11)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from feltroom.errors import InvalidConfiguration
from feltroom.simulate_tournament import TournamentReport, simulate_tournament

GAMES = ("no_limit", "pot_limit", "fixed_limit")
CHUNKS = 20
PER_CHUNK = 10  # 20 x 10 = 200 tournaments of each format


def simulate(*args: str) -> subprocess.CompletedProcess[str]:
    """``feltroom simulate ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "feltroom.cli", "simulate", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def check(report: TournamentReport, players: int) -> None:
    assert report.violations == 0, report.examples
    assert report.places_ok
    assert report.players == players
    assert report.paid == report.prize_pool > 0
    assert report.hands > 0


@pytest.mark.parametrize("form", ["sng", "mtt"])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_R_TOURN_simulated_tournaments_2_to_60_players(form: str, chunk: int) -> None:
    """R-TOURN-3/5/7/8/9/10/11: 200 tournaments of each format, 2..60 players, every game."""
    for k in range(PER_CHUNK):
        seed = chunk * PER_CHUNK + k
        players = random.Random(f"{form}{seed}").randint(2, 60)
        report = simulate_tournament(form, players, seed, game=GAMES[seed % 3])
        check(report, players)


def test_R_TOURN_simulation_is_reproducible_and_moves_players() -> None:
    one = simulate_tournament("mtt", 60, 7)
    two = simulate_tournament("mtt", 60, 7)
    assert {**one.as_json(), "hands_per_second": 0} == {**two.as_json(), "hands_per_second": 0}
    assert one.tables_max == 7  # 54 on time at 9-seat tables, 6 late: a seventh table
    assert one.moves > 0
    assert one.tables_broken >= one.tables_max - 1


def test_simulate_tournament_refuses_bad_input() -> None:
    with pytest.raises(InvalidConfiguration, match=r"players: 1 .* from 2"):
        simulate_tournament("sng", 1, 1)
    with pytest.raises(InvalidConfiguration, match=r"tournament: 'freeroll' .* sng, mtt"):
        simulate_tournament("freeroll", 10, 1)


def test_the_cli_prints_the_json_line() -> None:
    """The JSON line of the issue, field for field."""
    run = simulate("--tournament", "sng", "--players", "9", "--seed", "2", "--json")
    assert run.returncode == 0, run.stderr
    line = json.loads(run.stdout)
    assert list(line) == [
        "players",
        "hands",
        "tables_max",
        "moves",
        "tables_broken",
        "violations",
        "violation_examples",
        "places_ok",
        "prize_pool",
        "paid",
        "hands_per_second",
    ]
    assert line["players"] == 9
    assert line["violations"] == 0
    assert line["places_ok"] is True
    assert line["paid"] == line["prize_pool"] == 9 * 1000
    missing = simulate("--tournament", "mtt")
    assert missing.returncode == 2
    assert "--players" in missing.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("form", "players"), [("sng", 1000), ("mtt", 1000), ("mtt", 2000)])
def test_R_TOURN_large_simulated_tournaments(form: str, players: int) -> None:
    report = simulate_tournament(form, players, 1)
    check(report, players)
    assert report.tables_broken >= report.tables_max - 1


def test_R_TOURN_the_soak_draws_each_run_from_its_seed() -> None:
    """The soak's runs: sizes 2..3,000 (log-uniform), seats 2..10, both formats, late
    registration and breaks drawn from the seed, the same for the same seed."""
    from feltroom.simulate_tournament import soak_run

    runs = [soak_run(seed) for seed in range(1, 401)]
    assert runs[0] == soak_run(1)
    assert {r["form"] for r in runs} == {"sng", "mtt"}
    assert {r["seats"] for r in runs} == set(range(2, 11))
    sizes = sorted(r["players"] for r in runs)
    assert sizes[0] >= 2
    assert sizes[-1] <= 3000
    assert sizes[len(sizes) // 2] < 200  # log-uniform: the median near sqrt(2 x 3000)
    assert sizes[-1] > 1000
    mtt = [r for r in runs if r["form"] == "mtt"]
    assert {r["late_levels"] for r in mtt} == {0, 1, 2}
    assert any("breaks" not in r for r in mtt)
    assert any(r.get("breaks") == "none" for r in mtt)
    assert any("cancel_after" in r for r in runs)


def test_the_cli_soaks_tournaments() -> None:
    run = simulate("--tournament", "soak", "--runs", "3", "--seed", "4")
    assert run.returncode == 0, run.stdout + run.stderr
    line = json.loads(run.stdout)
    assert (line["runs"], line["seeds"], line["crashes"], line["violations"]) == (3, "4..6", 0, 0)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(5))
def test_R_TOURN_soak_of_fifty_seeds(chunk: int) -> None:
    """Fifty seeds of the soak (``feltroom simulate --tournament soak --runs 2000``): no crash,
    no violation."""
    from feltroom.simulate_tournament import soak

    report = soak(10, 1 + 10 * chunk)
    assert report.crashes == 0, report.examples
    assert report.violations == 0, report.examples


@pytest.mark.parametrize(
    ("players", "seed"),
    [
        pytest.param(11, 12, id="never-finished"),
        pytest.param(349, 5, id="IndexError-in-register"),
        pytest.param(1516, 7009, id="IndexError-1516", marks=pytest.mark.slow),
    ],
)
def test_R_TOURN_8_R_TOURN_10_the_audit_s_simulations_finish_clean(players: int, seed: int) -> None:
    """Issue 39's commands: ``feltroom simulate --tournament mtt --players 349 --seed 5`` (and
    1516 --seed 7009) crashed in ``Director.register`` (a table marked to break held for good,
    then a new table broken into full ones), ``--players 11 --seed 12`` never ended."""
    report = simulate_tournament("mtt", players, seed)
    assert report.violations == 0, report.examples
    assert report.places_ok
    assert report.paid == report.prize_pool > 0

"""Property tests of the director (hypothesis): random registrations, late entries, hands,
knock-outs, breaks, disqualifications and cancellations, in random orders, against the
invariants of ``tests/tournament/driver.py`` — every table held during a break (R-TOURN-12), one
hand a player a hand-for-hand round and no move during one (R-TOURN-9), no entry after the close
(R-TOURN-3), no table kept beyond what the field needs and none left marked between hands
(R-TOURN-8), the refunds of a cancellation (R-TOURN-13), chips conserved, places and prizes
(R-TOURN-10/11), and a tournament that always finishes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feltroom.tournament import BreakPolicy, TournamentSettings

from .driver import drive

breaks = st.one_of(
    st.just("none"),
    st.builds(BreakPolicy, at_minute=st.integers(0, 59), minutes=st.integers(1, 15)),
)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[TournamentSettings, int]:
    players = draw(st.integers(2, 70))
    seats = draw(st.integers(2, 10))
    config = TournamentSettings(
        format="mtt",
        max_entries=None,
        seats_per_table=seats,
        starting_stack=1000,
        buy_in=100,
        fee=10,
        late_registration_levels=draw(st.integers(0, 3)),
        re_entries=draw(st.integers(0, 1)),
        breaks=draw(breaks),
        level_minutes=draw(st.sampled_from([None, 1, 2])),
    )
    return config, players


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tournament=tournaments(),
    seed=st.integers(0, 2**32),
    disqualify=st.sampled_from([0.0, 0.005, 0.03]),
)
def test_R_TOURN_director_invariants_hold_in_any_order(
    tournament: tuple[TournamentSettings, int], seed: int, disqualify: float
) -> None:
    config, players = tournament
    run = drive(config, players, seed, disqualify=disqualify)
    assert run.violations == []
    assert run.director.state == "finished"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tournament=tournaments(),
    seed=st.integers(0, 2**32),
    cancel=st.sampled_from([0.002, 0.01, 0.05]),
)
def test_R_TOURN_13_cancellations_at_any_moment_refund_and_pay_the_pool_out(
    tournament: tuple[TournamentSettings, int], seed: int, cancel: float
) -> None:
    config, players = tournament
    run = drive(config, players, seed, cancel=cancel, disqualify=0.01)
    assert run.violations == []
    assert run.director.state in ("finished", "cancelled")

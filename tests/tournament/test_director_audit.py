"""The director's rule bugs of the outside audit (issue 39), each by rule ID: breaking tables
while late entries come (R-TOURN-8, R-TOURN-3), the close of late registration by time, a late
entry's table during a break (R-TOURN-12), hand-for-hand rounds (R-TOURN-9, R-TOURN-10),
cancellation refunds (R-TOURN-13) and a tournament whose last entries leave together."""

from __future__ import annotations

import pytest

from feltroom.errors import IllegalAction
from feltroom.tournament import (
    BreakPolicy,
    CancellationPaid,
    Director,
    Finished,
    HandForHandEnded,
    HandForHandStarted,
    HoldTable,
    MovePlayer,
    OpenTable,
    PlaceFinal,
    Refunded,
    ReleaseTable,
    SeatPlayer,
)

from .test_director import account_at, counts, hand, of, started, to_bubble


def late(seats: int, n: int, seed: int = 1, **changes: object) -> Director:
    """A started scheduled tournament of ``n`` at ``seats``-seat tables, late registration
    open for one level."""
    d, _ = started(n, seed, seats_per_table=seats, late_registration_levels=1, **changes)
    return d


# ---------------------------------------------------------------------- R-TOURN-8 with R-TOURN-3


def test_R_TOURN_8_a_table_marked_to_break_whose_players_no_longer_fit_plays_on() -> None:
    """A table marked to break during its hand while late entries fill the other tables plays
    on when its hand ends (it is released, not held for good), and the next late entry that
    finds no open seat opens a table without anything breaking into full tables."""
    d = late(3, 7)
    assert counts(d) == {1: 3, 2: 2, 3: 2}
    d.hand_started(3, 0, min(d.tables[3].seats), 1.0)
    out = hand(d, 1, busts=[min(d.tables[1].seats)], now=2.0)
    assert d.tables[3].breaking  # 6 left fit two tables: table 3 breaks after its hand
    assert HoldTable(3, "breaking") in out
    out = d.register("late1", 3.0)
    assert not d.tables[3].breaking  # 7 need three tables again
    assert ReleaseTable(3) in out
    d.register("late2", 4.0)
    out = hand(d, 3, begun=True, now=5.0)
    assert of(MovePlayer, out) == []
    assert not d.tables[3].holds
    d.register("late3", 6.0)  # the last open seat
    out = d.register("late4", 6.0)  # every seat taken: a fourth table
    assert of(OpenTable, out) != []
    assert sum(counts(d).values()) == d.remaining == 10
    assert all(not t.holds for t in d.tables.values())


def test_R_TOURN_8_a_final_table_merge_undone_by_a_late_entry_frees_both_tables() -> None:
    """Two tables waiting to merge into the final table: a late entry that needs both again
    releases both, and a table opened later is never held by the merge."""
    d = late(3, 4)
    assert counts(d) == {1: 2, 2: 2}
    d.hand_started(2, 0, min(d.tables[2].seats), 1.0)
    hand(d, 1, busts=[min(d.tables[1].seats)], now=2.0)
    assert {t: sorted(m.holds) for t, m in d.tables.items()} == {
        1: ["final_table"],
        2: ["final_table"],
    }
    d.register("late1", 3.0)
    assert all(not t.holds for t in d.tables.values())
    d.register("late2", 3.0)
    d.register("late3", 3.0)
    out = hand(d, 2, begun=True, now=4.0)
    assert of(MovePlayer, out) == []
    assert all(not t.holds for t in d.tables.values())


def test_R_TOURN_8_the_tables_the_field_no_longer_needs_are_marked_at_once() -> None:
    """R-TOURN-8: when the players left fit in k tables fewer, the k highest-numbered tables are
    marked at once (not the next only once the first has broken); each breaks when its own hand
    ends, into the shortest tables not breaking."""
    d, _ = started(16, seats_per_table=4, balance_gap=8, halt_gap=9)  # no balancing here
    assert counts(d) == {1: 4, 2: 4, 3: 4, 4: 4}
    for table in (3, 4):
        d.hand_started(table, 0, min(d.tables[table].seats), 1.0)
    hand(d, 1, busts=sorted(d.tables[1].seats)[:3], now=2.0)  # 13 left: four tables
    hand(d, 2, busts=sorted(d.tables[2].seats)[:3], now=3.0)  # 10 left: three
    assert [t for t, m in d.tables.items() if m.breaking] == [4]
    d.disqualify(account_at(d, 1, min(d.tables[1].seats)), 4.0)
    out = d.disqualify(account_at(d, 2, min(d.tables[2].seats)), 5.0)  # 8 left: two tables
    assert d.remaining == 8
    assert sorted(t for t, m in d.tables.items() if m.breaking) == [3, 4]
    assert HoldTable(3, "breaking") in out
    out = hand(d, 4, begun=True, now=6.0)
    assert {m.to_table for m in of(MovePlayer, out)} == {1, 2}
    assert 4 not in d.tables
    assert counts(d) == {1: 2, 2: 2, 3: 4}
    out = hand(d, 3, begun=True, now=7.0)
    assert {m.to_table for m in of(MovePlayer, out)} == {1, 2}
    assert counts(d) == {1: 4, 2: 4}
    assert all(not m.holds for m in d.tables.values())


# ---------------------------------------------------------------------- R-TOURN-3: the close


def test_R_TOURN_3_late_registration_closes_by_time_without_a_tick() -> None:
    """An entry at or after the close is refused even when nobody ticked the director first,
    and the refusal changes nothing."""
    d = late(9, 6, level_minutes=10)
    d.register("early", 599.0)
    before = d.entry_count
    with pytest.raises(IllegalAction, match="closed"):
        d.register("on_time_no_more", 600.0)
    with pytest.raises(IllegalAction, match="closed"):
        d.register("later", 900.0)
    assert d.entry_count == before
    assert all(e.account != "later" for e in d.entries)


# ---------------------------------------------------------------------- R-TOURN-12 with 3


def test_R_TOURN_12_a_late_entry_s_new_table_waits_out_the_break() -> None:
    """During a break a late entry that opens a table finds it held like every other table."""
    policy = BreakPolicy(at_minute=1, minutes=5)
    d, _ = started(4, seats_per_table=2, late_registration_levels=3, breaks=policy)
    assert counts(d) == {1: 2, 2: 2}
    d.tick(60.0)
    assert d.state == "on_break"
    out = d.register("late1", 70.0)
    (opened,) = of(OpenTable, out)
    assert HoldTable(opened.table, "break") in out
    assert "break" in d.tables[opened.table].holds
    d.register("late2", 80.0)  # filled by balancing or seating: it still waits
    assert "break" in d.tables[opened.table].holds


# ---------------------------------------------------------------------- R-TOURN-10, 15


def test_R_TOURN_10_the_last_two_leaving_in_one_hand_finish_the_tournament() -> None:
    """B is disqualified during a heads-up hand that A loses to B: every place is given, and
    the tournament is finished (the winner is the one in first place)."""
    d, _ = started(2, starting_stack=100)
    a_seat, b_seat = sorted(d.tables[1].seats)
    a, b = account_at(d, 1, a_seat), account_at(d, 1, b_seat)
    d.hand_started(1, 0, a_seat, 1.0)
    d.disqualify(b, 1.0)
    out = hand(d, 1, begun=True, busts=[a_seat], now=2.0)
    places = {p.account: (p.place, p.prize) for p in of(PlaceFinal, out)}
    assert places == {a: (1, 200), b: (2, 0)}
    number = next(e.number for e in d.entries if e.account == a)
    assert of(Finished, out) == [Finished(number, a)]
    assert d.state == "finished"
    assert d.paid_out == d.pool


# ---------------------------------------------------------------------- R-TOURN-13


def test_R_TOURN_13_a_late_entry_that_never_played_gets_buy_in_and_fee_back() -> None:
    """A late entry not yet dealt a hand when the operator cancels is refunded with its fee;
    the rest of the pool goes to the entries that played."""
    d = late(9, 4, starting_stack=100)
    hand(d, 1)  # the four on time have played
    out = d.register("late", 5.0)
    (seated,) = of(SeatPlayer, out)
    out = d.cancel(6.0)
    assert of(Refunded, out) == [Refunded(seated.entry, "late", 100, 10)]
    shares = {p.account: p.amount for p in of(CancellationPaid, out)}
    assert "late" not in shares
    assert sum(shares.values()) == d.pool - 100 == 400


# ---------------------------------------------------------------------- R-TOURN-9, 10


def test_R_TOURN_9_the_first_round_waits_for_every_table_s_hand_in_progress() -> None:
    """R-TOURN-9: the table whose hand made the bubble does not deal again while the others
    finish theirs; the first round then deals at every table together."""
    d, _ = started(13, seats_per_table=3)
    to_bubble(d, 6)
    assert counts(d) == {1: 3, 2: 3}
    d.hand_started(2, 0, min(d.tables[2].seats), 10.0)
    out = hand(d, 1, busts=[min(d.tables[1].seats)], now=11.0)  # 5 left: the bubble
    assert of(HandForHandStarted, out) == [HandForHandStarted(5)]
    assert HoldTable(1, "hand_for_hand") in out
    assert d.tables[1].held
    out = hand(d, 2, begun=True, now=12.0)  # the last hand in progress ends: the first round
    assert ReleaseTable(1) in out
    assert not d.tables[1].held
    assert not d.tables[2].held
    assert d.hand_for_hand_round == 1


def test_R_TOURN_10_a_knock_out_before_the_first_round_is_ranked_alone() -> None:
    """R-TOURN-9 / R-TOURN-10 (the first round's ranking): a hand already in progress when the
    bubble came bursts it; its knock-out is the bubble, ranked at once and alone, and the
    player out at the table that made the bubble (already ranked) cannot take it."""
    d, _ = started(13, seats_per_table=3)
    to_bubble(d, 6)
    d.hand_started(2, 0, min(d.tables[2].seats), 10.0)
    out = hand(d, 1, busts=[min(d.tables[1].seats)], now=11.0)
    (sixth,) = of(PlaceFinal, out)
    assert (sixth.place, sixth.prize) == (6, 0)
    seat = min(d.tables[2].seats)
    bubble = d.tables[2].seats[seat]
    d.entries[bubble - 1].stack = 5000  # more chips than anyone: still out after the bubble came
    out = hand(d, 2, begun=True, busts=[seat], now=12.0)
    assert [(p.entry, p.place, p.prize) for p in of(PlaceFinal, out)] == [(bubble, 5, 0)]
    assert of(HandForHandEnded, out) == [HandForHandEnded(4)]
    assert all(not t.held for t in d.tables.values())


def test_R_TOURN_9_a_table_breaking_in_a_round_moves_its_players_after_the_round() -> None:
    """R-TOURN-9 / R-TOURN-8: a table whose round hand leaves the field needing one table fewer
    breaks only when the round is over, so nobody it sends is dealt twice in one round; its
    knock-outs are ranked with the round's."""
    d, _ = started(34, seats_per_table=3)
    assert d.paid_places == 6
    to_bubble(d, 7)
    assert d.hand_for_hand
    assert counts(d) == {1: 2, 2: 2, 3: 3}
    out = hand(d, 3, busts=sorted(d.tables[3].seats)[:2], now=20.0)  # 5 left: two tables
    assert of(MovePlayer, out) == []  # tables 1 and 2 have not dealt their round hand
    assert of(PlaceFinal, out) == []
    out = hand(d, 1, now=21.0)
    assert of(MovePlayer, out) == []
    out = hand(d, 2, now=22.0)  # the round is over: table 3 breaks
    (move,) = of(MovePlayer, out)
    assert move.from_table == 3
    assert 3 not in d.tables
    assert sorted(p.place for p in of(PlaceFinal, out)) == [6, 7]

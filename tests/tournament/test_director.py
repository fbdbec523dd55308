"""The tournament director by rule ID (R-TOURN-1..15), its decisions as table-driven scenarios."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TypeVar

import pytest

from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.table import Level
from feltroom.tournament import (
    BreakEnded,
    BreakPolicy,
    BreakStarted,
    CancellationPaid,
    Cancelled,
    CloseTable,
    Director,
    Disqualified,
    Eliminated,
    Finished,
    ForfeitPaid,
    HandForHandEnded,
    HandForHandStarted,
    HoldTable,
    LevelStarted,
    MovePlayer,
    OpenTable,
    Output,
    PlaceFinal,
    RedrawTable,
    Refunded,
    Registered,
    RegistrationClosed,
    ReleaseTable,
    RemovePlayer,
    SeatPlayer,
    SetLevel,
    Started,
    TournamentSettings,
    payout_table,
    schedule,
)
from feltroom.tournament.seating import draw_seats, next_big_blind, worst_open_seat

T = TypeVar("T")


def mtt(**changes: object) -> TournamentSettings:
    settings: dict[str, object] = {
        "format": "mtt",
        "max_entries": None,
        "buy_in": 100,
        "fee": 10,
        "breaks": "none",
        **changes,
    }
    return TournamentSettings(**settings)  # type: ignore[arg-type]


def started(n: int, seed: int = 1, **changes: object) -> tuple[Director, list[Output]]:
    d = Director(mtt(**changes), rng=random.Random(seed), start_at=0.0)
    for k in range(1, n + 1):
        d.register(f"p{k}", 0.0)
    return d, d.tick(0.0)


def hand(
    d: Director,
    table: int,
    *,
    big: int | None = None,
    busts: Sequence[int] = (),
    win: Mapping[int, int] | None = None,
    now: float = 1.0,
    begun: bool = False,
) -> list[Output]:
    """Table ``table`` plays a hand (big blind in ``big``): the seats in ``busts`` lose every
    chip to the first other seat; ``win`` moves chips (seat -> change, adding up to zero)."""
    model = d.tables[table]
    if not begun:
        d.hand_started(table, 0, big if big is not None else min(model.seats), now)
    before = {s: d.entries[e - 1].stack for s, e in model.seats.items()}
    after = dict(before)
    for seat, change in (win or {}).items():
        after[seat] += change
    for seat in busts:
        taker = next(s for s in sorted(after) if s not in busts)
        after[taker] += after[seat]
        after[seat] = 0
    assert sum(after.values()) == sum(before.values())
    return d.hand_finished(table, before, after, now)


def counts(d: Director) -> dict[int, int]:
    return {t: len(m.seats) for t, m in d.tables.items()}


def of(kind: type[T], outputs: Sequence[Output]) -> list[T]:
    return [o for o in outputs if isinstance(o, kind)]


# ---------------------------------------------------------------------- R-TOURN-1, 2


def test_R_TOURN_1_a_sit_and_go_starts_the_moment_its_seats_are_filled() -> None:
    settings = TournamentSettings(format="sng", max_entries=6, seats_per_table=6)
    d = Director(settings, rng=random.Random(2))
    for k in range(1, 6):
        out = d.register(f"p{k}", 0.0)
        assert of(Started, out) == []
    out = d.register("p6", 0.0)
    assert of(Started, out) == [Started(6, 1)]
    assert len(of(SeatPlayer, out)) == 6
    assert d.state == "running"
    with pytest.raises(IllegalAction, match="closed"):
        d.register("p7", 0.0)


def test_R_TOURN_1_a_scheduled_tournament_without_min_players_is_cancelled_and_refunded() -> None:
    d = Director(mtt(min_players=3), rng=random.Random(1), start_at=600.0)
    d.register("a", 0.0)
    d.register("b", 0.0)
    assert d.wake_at() == 600.0
    assert d.tick(599.0) == []
    out = d.tick(600.0)
    assert of(Refunded, out) == [Refunded(1, "a", 100, 10), Refunded(2, "b", 100, 10)]
    assert of(Cancelled, out) == [Cancelled("too few players", {})]
    assert d.state == "cancelled"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "freezeout"}, "format: 'freezeout' is not valid; valid values are sng, mtt"),
        ({"game": "omaha"}, "game"),
        ({"seats_per_table": 11}, r"seats_per_table: 11 .* 2\.\.10"),
        ({"schedule": "hyper"}, "schedule: 'hyper' .* turbo, regular"),
        ({"payouts": "top3"}, "payouts"),
        ({"halt_gap": 1}, "halt_gap"),
        ({"format": "sng", "max_entries": None}, "max_entries"),
        ({"format": "sng", "max_entries": 9, "re_entries": 1}, "sit-and-go"),
        ({"breaks": "sometimes"}, "breaks"),
    ],
)
def test_R_TOURN_1_settings_are_validated(changes: dict[str, object], message: str) -> None:
    """R-TOURN-1: the settings are checked when built; the error names the valid values."""
    with pytest.raises(InvalidConfiguration, match=message):
        mtt(**changes)


def test_R_TOURN_2_entries_refunds_and_the_overlay() -> None:
    """R-TOURN-2: an entry is a buy-in plus a fee; unregistering before the start refunds both;
    a guarantee is topped up by the house."""
    d = Director(mtt(guarantee=1000), rng=random.Random(1), start_at=0.0)
    assert d.register("a", 0.0) == [Registered(1, "a", 100, 10)]
    d.register("b", 0.0)
    d.register("c", 0.0)
    assert d.unregister("c", 0.0) == [Refunded(3, "c", 100, 10)]
    with pytest.raises(IllegalAction, match="already has entry 1"):
        d.register("a", 0.0)
    out = d.tick(0.0)
    closed = of(RegistrationClosed, out)
    assert closed == [RegistrationClosed(2, 1000, 800, (1000,))]
    with pytest.raises(IllegalAction, match="before the start"):
        d.unregister("a", 0.0)


# ---------------------------------------------------------------------- R-TOURN-3, 4


def test_R_TOURN_4_the_seat_draw_is_random_and_even() -> None:
    """R-TOURN-4: every player a random seat; as few tables as hold everyone, at most one player
    apart."""
    for n, seats in ((2, 9), (9, 9), (10, 9), (100, 9), (61, 6)):
        layout = draw_seats(list(range(1, n + 1)), seats, random.Random(n))
        sizes = [len(t) for t in layout.values()]
        assert len(layout) == -(-n // seats)
        assert max(sizes) - min(sizes) <= 1
        assert sorted(e for t in layout.values() for e in t.values()) == list(range(1, n + 1))
        assert all(1 <= s <= seats for t in layout.values() for s in t)
    one = draw_seats(list(range(1, 19)), 9, random.Random(1))
    two = draw_seats(list(range(1, 19)), 9, random.Random(2))
    assert one != two


def test_R_TOURN_3_late_registration_seats_at_the_shortest_table_or_opens_one() -> None:
    """R-TOURN-3: a late entry gets a full starting stack and a random open seat at the shortest
    table (ties: the lowest number); a new table opens when no seat is free."""
    d, _ = started(20, late_registration_levels=2)
    assert d.state == "late_registration"
    assert sorted(counts(d).values()) == [6, 7, 7]
    short = min(counts(d), key=lambda t: (counts(d)[t], t))
    out = d.register("late1", 10.0)
    seat = of(SeatPlayer, out)
    assert len(seat) == 1
    assert seat[0].table == short
    assert seat[0].stack == 1500
    assert seat[0].seat not in (s for s, e in d.tables[short].seats.items() if e != 21)
    for k in range(2, 8):
        d.register(f"late{k}", 10.0)
    assert sorted(counts(d).values()) == [9, 9, 9]
    out = d.register("late8", 10.0)
    assert of(OpenTable, out) == [OpenTable(4, d.level)]
    assert of(SeatPlayer, out)[0].table == 4


def test_R_TOURN_3_re_entry_while_late_registration_is_open() -> None:
    """R-TOURN-3: a re-entry buys a new full stack (a new entry, R-TOURN-10), up to
    ``re_entries``; registration closes after ``late_registration_levels`` levels."""
    d, _ = started(12, late_registration_levels=1, re_entries=1)
    with pytest.raises(IllegalAction, match="already has entry"):
        d.register("p1", 5.0)
    table, seat = d.entries[0].table, d.entries[0].seat
    assert table is not None
    assert seat is not None
    out = hand(d, table, busts=[seat])
    assert of(Eliminated, out)[0].entry == 1
    assert of(PlaceFinal, out) == []  # ranked when late registration closes
    out = d.register("p1", 6.0)
    assert of(Registered, out) == [Registered(13, "p1", 100, 10, True)]
    new = d.entries[12]
    assert new.table is not None
    assert new.seat is not None
    hand(d, new.table, busts=[new.seat])
    with pytest.raises(IllegalAction, match="every re-entry"):
        d.register("p1", 7.0)
    out = d.tick(300.0)
    closed = of(RegistrationClosed, out)
    assert closed[0].entries == 13
    places = {p.entry: p.place for p in of(PlaceFinal, out)}
    assert places == {1: 13, 13: 12}  # in the order they went out
    with pytest.raises(IllegalAction, match="closed"):
        d.register("late", 301.0)


# ---------------------------------------------------------------------- R-TOURN-5, 12


def test_R_TOURN_5_levels_follow_the_tournament_clock() -> None:
    """R-TOURN-5: each level lasts ``level_minutes``; every table gets the new level (applied
    from its next hand)."""
    d, out = started(20)
    assert of(LevelStarted, out) == [LevelStarted(1, Level(10, 20))]
    assert d.wake_at() == 300.0
    assert d.tick(299.0) == []
    out = d.tick(300.0)
    assert of(LevelStarted, out) == [LevelStarted(2, Level(15, 30))]
    assert of(SetLevel, out) == [SetLevel(t, Level(15, 30)) for t in (1, 2, 3)]
    out = d.tick(900.0)
    assert of(LevelStarted, out) == [LevelStarted(4, Level(50, 100, 100))]
    regular = schedule("regular", "no_limit")
    assert regular.level_minutes == 10
    assert regular.level(24) == Level(20000, 40000, 40000)
    assert regular.level(26) == Level(80000, 160000, 160000)  # past the list: doubling
    limit = schedule("turbo", "fixed_limit")
    assert limit.level(4) == Level(50, 100, 0, 200)


def test_R_TOURN_12_a_synchronized_break_pauses_the_clock() -> None:
    """R-TOURN-12: at :55 every table finishes its hand and waits; the level clock pauses."""
    settings = mtt(breaks=BreakPolicy(55, 5))
    d = Director(settings, rng=random.Random(1), start_at=3000.0)
    for k in range(12):
        d.register(f"p{k}", 0.0)
    d.tick(3000.0)
    d.hand_started(1, 0, min(d.tables[1].seats), 3100.0)
    assert d.wake_at() == 3300.0
    out = d.tick(3300.0)
    assert of(LevelStarted, out) == [LevelStarted(2, Level(15, 30))]
    assert of(BreakStarted, out) == [BreakStarted(3600.0)]
    assert {o.table for o in of(HoldTable, out)} == {1, 2}
    assert d.state == "on_break"
    assert d.clock(3500.0) == 300.0
    out = hand(d, 1, begun=True, now=3400.0)
    assert of(ReleaseTable, out) == []
    assert d.wake_at() == 3600.0
    out = d.tick(3600.0)
    assert of(BreakEnded, out) == [BreakEnded()]
    assert {o.table for o in of(ReleaseTable, out)} == {1, 2}
    assert d.wake_at() == 3900.0  # the level resumes where it stood
    assert of(BreakStarted, d.tick(6900.0)) == [BreakStarted(7200.0)]  # the next hour's :55


def test_R_TOURN_12_sit_and_gos_have_no_break_by_default() -> None:
    assert TournamentSettings(format="sng").break_policy is None
    assert mtt(breaks=None).break_policy == BreakPolicy(55, 5)
    assert mtt().break_policy is None  # "none"


# ---------------------------------------------------------------------- R-TOURN-7: balancing


@pytest.mark.parametrize(
    ("occupied", "last_big", "mover"),
    [
        ({1, 2, 3, 4, 5, 6, 7, 8, 9}, 4, 5),
        ({1, 2, 3, 4, 5, 6, 7, 8, 9}, 9, 1),
        ({1, 3, 5, 7, 9}, 5, 7),
        ({2, 6}, 6, 2),
        ({2, 3, 4}, None, 2),  # no hand dealt yet: the lowest seat
    ],
)
def test_R_TOURN_7_the_player_due_for_the_big_blind_moves(
    occupied: set[int], last_big: int | None, mover: int
) -> None:
    assert next_big_blind(occupied, last_big, 9) == mover


@pytest.mark.parametrize(
    ("occupied", "last_big", "seat"),
    [
        ({1, 2, 3, 5, 6, 7}, 3, 4),  # right after the big blind: the next big blind
        ({1, 2, 4, 5, 6, 7, 8}, 4, 9),  # the first open seat clockwise after the big blind
        ({2, 3, 4, 5, 6, 7, 8}, 8, 9),
        ({1, 2, 3, 5, 6, 7}, 4, 8),  # 4 (last big blind, busted) is the small-blind seat: never
        ({1, 3, 4, 5, 6, 7, 8, 9}, 1, 2),
    ],
)
def test_R_TOURN_7_into_the_seat_that_reaches_the_big_blind_soonest(
    occupied: set[int], last_big: int, seat: int
) -> None:
    assert worst_open_seat(occupied, last_big, 9, random.Random(1)) == seat


def test_R_TOURN_7_balancing_scenario_in_the_director() -> None:
    """R-TOURN-7: the fullest table (ties: lowest number) gives its next big blind to the
    shortest table's seat that reaches the big blind soonest; never the small-blind seat."""
    d, _ = started(27)
    assert counts(d) == {1: 9, 2: 9, 3: 9}
    hand(d, 1, big=4)
    hand(d, 2, big=7)
    # table 3, big blind in seat 5: the big blind (5) and seat 7 bust; 5 is next hand's
    # small-blind seat, so the mover goes to 7, the first other open seat after the big blind
    out = hand(d, 3, big=5, busts=[5, 7])
    moves = of(MovePlayer, out)
    assert moves == [MovePlayer(moves[0].entry, moves[0].account, 1, 5, 3, 7, "balance")]
    assert counts(d) == {1: 8, 2: 9, 3: 8}
    # table 2 is now the fullest by one: within balance_gap, nobody moves
    assert of(MovePlayer, hand(d, 2, big=8)) == []


def test_R_TOURN_7_a_table_halt_gap_short_waits_until_balanced() -> None:
    """R-TOURN-7: a table ``halt_gap`` (3) or more short does not deal until balanced; the
    fullest tables in a hand give players up when their hands end."""
    d, _ = started(27)
    d.hand_started(1, 0, 1, 1.0)
    d.hand_started(2, 0, 1, 1.0)
    out = hand(d, 3, big=1, busts=[2, 3, 4])
    assert of(MovePlayer, out) == []  # the fullest tables are in their hands
    assert HoldTable(3, "halt") in out
    out = hand(d, 1, begun=True)
    assert [(m.from_table, m.to_table) for m in of(MovePlayer, out)] == [(1, 3)]
    assert counts(d) == {1: 8, 2: 9, 3: 7}
    out = hand(d, 2, begun=True)
    assert [(m.from_table, m.to_table) for m in of(MovePlayer, out)] == [(2, 3)]
    assert counts(d) == {1: 8, 2: 8, 3: 8}
    assert ReleaseTable(3) in out


# ---------------------------------------------------------------------- R-TOURN-8: breaking


def test_R_TOURN_8_the_highest_numbered_table_breaks_into_the_shortest_tables() -> None:
    """R-TOURN-8: as soon as the players fit in one table fewer, the highest-numbered table
    breaks after its hand; its players one by one to a random open seat at the then shortest
    table."""
    d, _ = started(30)
    assert counts(d) == {1: 8, 2: 8, 3: 7, 4: 7}
    d.hand_started(4, 0, min(d.tables[4].seats), 1.0)
    hand(d, 1, busts=[min(d.tables[1].seats)])
    hand(d, 2, busts=[min(d.tables[2].seats)])
    out = hand(d, 3, busts=[min(d.tables[3].seats)])
    assert d.remaining == 27
    assert of(MovePlayer, out) == []  # table 4 is in its hand: it breaks after it
    assert d.tables[4].breaking
    assert HoldTable(4, "breaking") in out
    sizes = counts(d)
    out = hand(d, 4, begun=True)
    moves = of(MovePlayer, out)
    assert len(moves) == 7
    for move in moves:
        assert move.reason == "break"
        assert move.from_table == 4
        open_tables = {t: n for t, n in sizes.items() if t != 4}
        assert move.to_table == min(open_tables, key=lambda t: (open_tables[t], t))
        sizes[move.to_table] += 1
    assert of(CloseTable, out) == [CloseTable(4)]
    assert counts(d) == {1: 9, 2: 9, 3: 9}
    assert d.tables_broken == 1


def test_R_TOURN_8_the_final_table_is_drawn_anew() -> None:
    """R-TOURN-8: the last two tables make the final table by a new random draw (and a new
    high-card draw for the button, no blind owed: ``RedrawTable``)."""
    d, _ = started(12)
    assert counts(d) == {1: 6, 2: 6}
    hand(d, 1, busts=[min(d.tables[1].seats)])
    d.hand_started(1, 0, min(d.tables[1].seats), 2.0)
    out = hand(d, 2, busts=[min(d.tables[2].seats)], now=2.0)
    assert d.remaining == 10
    assert of(RedrawTable, out) == []
    out = hand(d, 2, busts=[min(d.tables[2].seats)], now=3.0)
    assert d.remaining == 9
    assert of(RedrawTable, out) == []  # table 1 is still in its hand
    out = hand(d, 1, begun=True, now=4.0)
    redraw = of(RedrawTable, out)
    assert len(redraw) == 1
    assert redraw[0].table == 1
    assert len(redraw[0].moves) == 9
    assert sorted(m.to_seat for m in redraw[0].moves) == sorted(d.tables[1].seats)
    assert {m.from_table for m in redraw[0].moves} == {1, 2}
    assert of(CloseTable, out) == [CloseTable(2)]
    assert d.tables[1].last_big is None


# ---------------------------------------------------------------------- R-TOURN-9, 10, 11


def to_bubble(d: Director, remaining: int) -> list[Output]:
    """Bust players one hand at a time (the lowest seat of the fullest idle table) until
    ``remaining`` are left."""
    out: list[Output] = []
    while d.remaining > remaining:
        table = max(d.tables, key=lambda t: (len(d.tables[t].seats), -t))
        seats = sorted(d.tables[table].seats)
        out += hand(d, table, busts=[seats[0]])
    return out


def test_R_TOURN_9_hand_for_hand_two_out_in_one_round_by_starting_stacks() -> None:
    """R-TOURN-9 / R-TOURN-10: from the bubble every table plays one hand and waits; two players
    out in one round finish by their stacks at the start of their hands, whatever the order."""
    d, _ = started(13, seats_per_table=3)
    assert d.paid_places == 4
    out = to_bubble(d, 5)
    assert of(HandForHandStarted, out) == [HandForHandStarted(5)]
    assert d.state == "hand_for_hand"
    assert sorted(counts(d).values()) == [2, 3]
    first, second = sorted(d.tables)
    first_loser = min(d.tables[first].seats)
    second_loser = min(d.tables[second].seats)
    first_entry = d.tables[first].seats[first_loser]
    second_entry = d.tables[second].seats[second_loser]
    d.entries[first_entry - 1].stack = 400  # the first to go out started with more chips
    d.entries[second_entry - 1].stack = 50
    d.hand_started(first, 0, 1, 10.0)
    d.hand_started(second, 0, 1, 10.0)
    out = hand(d, first, begun=True, busts=[first_loser], now=11.0)
    assert HoldTable(first, "hand_for_hand") in out
    assert of(PlaceFinal, out) == []  # the round is not over
    out = hand(d, second, begun=True, busts=[second_loser], now=12.0)
    places = {p.entry: (p.place, p.prize) for p in of(PlaceFinal, out)}
    assert places == {first_entry: (4, d.prizes[3]), second_entry: (5, 0)}
    assert of(HandForHandEnded, out) == [HandForHandEnded(3)]
    assert d.remaining == 3


@pytest.mark.parametrize(
    ("stacks", "places", "prizes"),
    [
        # three out in one hand with 5 entries left (paid: 4 places of 13 entries: 520 390 260
        # 130): more chips finish higher; equal stacks share the places and split the prizes
        ((300, 200, 100), (3, 4, 5), (260, 130, 0)),
        ((200, 200, 100), (3, 3, 5), (195, 195, 0)),
        ((100, 100, 100), (3, 3, 3), (130, 130, 130)),
        ((100, 200, 200), (5, 3, 3), (0, 195, 195)),
    ],
)
def test_R_TOURN_10_simultaneous_eliminations(
    stacks: tuple[int, int, int], places: tuple[int, ...], prizes: tuple[int, ...]
) -> None:
    d = Director(mtt(seats_per_table=9, starting_stack=100), rng=random.Random(3))
    for k in range(13):
        d.register(f"p{k}", 0.0)
    d.start(0.0)
    assert d.prizes == (520, 390, 260, 130)
    to_bubble(d, 5)
    table = 1
    seats = sorted(d.tables[table].seats)
    losers, keep = seats[:3], seats[3:]
    total = sum(d.entries[d.tables[table].seats[s] - 1].stack for s in seats)
    assert len(keep) == 2
    before = dict(zip(losers, stacks, strict=True))
    before[keep[1]] = 100
    before[keep[0]] = total - sum(stacks) - 100
    for seat, chips in before.items():
        d.entries[d.tables[table].seats[seat] - 1].stack = chips
    d.hand_started(table, 0, 1, 5.0)
    after = dict(before)
    after[keep[0]] += sum(stacks)
    for seat in losers:
        after[seat] = 0
    entries = [d.tables[table].seats[s] for s in losers]
    out = d.hand_finished(table, before, after, 6.0)
    final = {p.entry: (p.place, p.prize) for p in of(PlaceFinal, out)}
    assert tuple(final[e] for e in entries) == tuple(zip(places, prizes, strict=True))


def test_R_TOURN_10_a_shared_prize_remainder_goes_in_registration_order() -> None:
    """R-TOURN-10: places 2 and 3 of 5 entries (65/35 of 500: 325, 175) shared by two: 175 + 0
    = 175 split 88 / 87, the odd unit to the earlier entry."""
    d = Director(mtt(starting_stack=100), rng=random.Random(4))
    for k in range(5):
        d.register(f"p{k}", 0.0)
    d.start(0.0)
    assert d.prizes == (325, 175)
    seats = sorted(d.tables[1].seats)
    hand(d, 1, busts=[seats[0], seats[1]])
    seats = sorted(d.tables[1].seats)
    out = hand(d, 1, busts=[seats[1], seats[2]])
    final = sorted((p.entry, p.place, p.shared, p.prize) for p in of(PlaceFinal, out))
    assert [f[1:] for f in final if f[1] == 2] == [(2, 2, 88), (2, 2, 87)]
    assert of(Finished, out)
    assert sum(p.prize for p in d.entries) == 500


PERCENT = {
    2: (100,),
    4: (100,),
    5: (65, 35),
    7: (65, 35),
    8: (50, 30, 20),
    12: (50, 30, 20),
    13: (40, 30, 20, 10),
    18: (40, 30, 20, 10),
    19: (35, 25, 18, 13, 9),
    27: (35, 25, 18, 13, 9),
}


@pytest.mark.parametrize("entries", [*range(2, 31), 1000])
def test_R_TOURN_11_the_default_payout_table(entries: int) -> None:
    """R-TOURN-11: the default payouts for N = 2..30 and 1,000: the prizes add up to the pool
    exactly (rounded down, the remainder to first place), never increase, and from 28 entries
    pay ceil(0.15 N) places or fewer, dropped from the bottom while the last prize would be
    below 1.5 buy-ins."""
    buy_in = 1000
    pool = entries * buy_in + 7  # an odd pool shows the rounding
    prizes = payout_table(entries, pool, buy_in)
    assert sum(prizes) == pool
    assert list(prizes) == sorted(prizes, reverse=True)
    shares = next((p for n, p in sorted(PERCENT.items()) if entries <= n), None)
    if entries <= 27:
        assert shares is not None
        assert len(prizes) == len(shares)
        expected = [pool * s // 100 for s in shares]
        expected[0] += pool - sum(expected)
        assert list(prizes) == expected
        return
    places = len(prizes)
    assert places <= -(-15 * entries // 100)
    assert 2 * prizes[-1] >= 3 * buy_in
    if places < -(-15 * entries // 100):
        longer = payout_table(entries, pool, buy_in)  # the same: deterministic
        assert longer == prizes
    ratio = [prizes[k] / prizes[0] for k in range(1, min(places, 5))]
    expected_ratio = [(k + 1) ** -1.1 for k in range(1, min(places, 5))]
    assert ratio == pytest.approx(expected_ratio, rel=1e-3)


def test_R_TOURN_11_places_dropped_while_the_last_prize_is_below_one_and_a_half_buy_ins() -> None:
    assert len(payout_table(28, 28_000, 1000)) == 5
    assert len(payout_table(1000, 1_000_000, 1000)) == 98  # of ceil(150): 52 dropped
    assert payout_table(1000, 1_000_000, 1000)[:3] == (234494, 109373, 70018)
    assert payout_table(9, 900, 100, "winner_takes_all") == (900,)


# ---------------------------------------------------------------------- R-TOURN-13


def test_R_TOURN_13_cancellation_before_the_money() -> None:
    """R-TOURN-13: before the money each remaining player first gets the buy-in back, the rest
    goes in proportion to chips (rounded down, the remainder to the biggest stack)."""
    d, _ = started(13, starting_stack=100)
    seats = sorted(d.tables[1].seats)
    hand(d, 1, busts=[seats[0]])  # 12 left, 4 paid: before the money
    hand(d, 1, busts=[sorted(d.tables[1].seats)[0]])
    out = d.cancel(10.0)
    paid = {o.entry: o.amount for o in of(CancellationPaid, out)}
    assert len(paid) == 11
    assert sum(paid.values()) == 1300
    chips = d.stacks()
    rest = 1300 - 11 * 100
    for entry, amount in paid.items():
        assert amount >= 100 + rest * chips[entry] // 1300
    assert of(Cancelled, out)[0].paid == paid
    assert d.state == "cancelled"
    with pytest.raises(IllegalAction):
        d.cancel(11.0)


def test_R_TOURN_13_cancellation_in_the_money() -> None:
    """R-TOURN-13: in the money each remaining player first gets the prize of the next place to
    finish; prizes already won stay paid; the pool left is paid out exactly."""
    d, _ = started(13, starting_stack=100, seats_per_table=9)
    to_bubble(d, 3)
    won = sum(e.prize for e in d.entries if e.out)
    assert won == 130  # fourth place
    out = d.cancel(20.0)
    paid = {o.entry: o.amount for o in of(CancellationPaid, out)}
    assert len(paid) == 3
    assert sum(paid.values()) == 1300 - 130
    assert all(amount >= 260 for amount in paid.values())  # third place's prize at least
    assert d.paid_out == 1300


def test_R_TOURN_13_cancellation_before_the_start_refunds_every_fee() -> None:
    d = Director(mtt(), rng=random.Random(1), start_at=100.0)
    d.register("a", 0.0)
    d.register("b", 0.0)
    out = d.cancel(50.0)
    assert of(Refunded, out) == [Refunded(1, "a", 100, 10), Refunded(2, "b", 100, 10)]


# ---------------------------------------------------------------------- R-TOURN-14 (states)


def test_R_TOURN_14_the_states_a_lobby_shows() -> None:
    """R-TOURN-14 (the director's part): registering, late registration, running, hand-for-hand
    and finished (on break: R-TOURN-12's test)."""
    d = Director(
        mtt(late_registration_levels=1, seats_per_table=3), rng=random.Random(5), start_at=0.0
    )
    assert d.state == "registering"
    for k in range(13):
        d.register(f"p{k}", 0.0)
    d.tick(0.0)
    assert d.state == "late_registration"
    d.tick(300.0)
    assert d.state == "running"
    to_bubble(d, 5)
    assert d.state == "hand_for_hand"
    while d.state != "finished":
        busy = [t for t in d.tables if len(d.tables[t].seats) >= 2 and not d.tables[t].holds]
        table = busy[0]
        hand(d, table, busts=[sorted(d.tables[table].seats)[0]])
    assert sum(e.prize for e in d.entries) == d.pool
    assert sorted(e.place or 0 for e in d.entries) == list(range(1, 14))


def test_reports_from_unknown_tables_are_refused() -> None:
    d, _ = started(4)
    with pytest.raises(IllegalAction, match="not a table"):
        d.hand_started(9, 1, 2, 0.0)
    with pytest.raises(IllegalAction, match="did not start"):
        d.hand_finished(1, {}, {}, 0.0)
    assert of(RemovePlayer, hand(d, 1, busts=[min(d.tables[1].seats)])) != []


# ---------------------------------------------------------------------- R-TOURN-15


def account_at(d: Director, table: int, seat: int) -> str:
    return d.entries[d.tables[table].seats[seat] - 1].account


@pytest.mark.parametrize(
    ("busted_first", "during_hand", "place", "prizes_after"),
    [
        # 5 entries pay (325, 175). Disqualified with 5 left: 5th, no prize (none was due)
        (0, False, 5, (325, 175)),
        (0, True, 5, (325, 175)),
        # with 2 left: 2nd without its 175, which goes to the better place (the winner)
        (3, False, 2, (500, 0)),
        (3, True, 2, (500, 0)),
    ],
)
def test_R_TOURN_15_a_suspended_account_is_disqualified(
    busted_first: int, during_hand: bool, place: int, prizes_after: tuple[int, ...]
) -> None:
    """R-TOURN-15: the chips leave play at the end of the hand (at once between hands) and the
    entry finishes in the current place without a prize."""
    d, _ = started(5, starting_stack=100)
    assert d.prizes == (325, 175)
    for _ in range(busted_first):
        hand(d, 1, busts=[max(d.tables[1].seats)])
    seat = min(d.tables[1].seats)
    account = account_at(d, 1, seat)
    number = d.tables[1].seats[seat]
    if during_hand:
        chips = d.entries[number - 1].stack + 20
        d.hand_started(1, 0, seat, 5.0)
        assert d.disqualify(account, 5.0) == []  # nothing leaves play before the hand ends
        assert d.tables[1].seats[seat] == number
        out = hand(d, 1, win={seat: 20, max(d.tables[1].seats): -20}, begun=True, now=6.0)
    else:
        chips = d.entries[number - 1].stack
        out = d.disqualify(account, 6.0)
    assert of(Disqualified, out) == [Disqualified(number, account, 1, chips)]
    assert RemovePlayer(1, seat, number, account) in out
    assert of(PlaceFinal, out)[0] == PlaceFinal(number, account, place, 1, 0)
    assert d.entries[number - 1].prize == 0
    assert d.entries[number - 1].disqualified
    assert d.disqualified_chips == chips
    assert sum(d.stacks().values()) + chips == 5 * 100
    assert d.prizes == prizes_after
    if place == 2:  # the last one left wins the whole pool
        (winner,) = [e for e in d.entries if not e.out]
        assert of(Finished, out) == [Finished(winner.number, winner.account)]
        assert winner.prize == 500
        assert sum(e.prize for e in d.entries) == d.pool == 500
        assert d.state == "finished"
    else:
        assert d.remaining == 4


def test_R_TOURN_15_disqualified_below_the_players_out_in_the_same_hand() -> None:
    """A player knocked out in the hand that ends with a disqualification finishes above the
    disqualified entry (which takes the current place, without a prize)."""
    d, _ = started(5, starting_stack=100)
    seats = sorted(d.tables[1].seats)
    dq, bust = seats[0], seats[1]
    dq_account, bust_account = account_at(d, 1, dq), account_at(d, 1, bust)
    d.hand_started(1, 0, dq, 1.0)
    d.disqualify(dq_account, 1.0)
    out = hand(d, 1, busts=[bust], begun=True, now=2.0)
    places = {p.account: (p.place, p.prize) for p in of(PlaceFinal, out)}
    assert places == {dq_account: (5, 0), bust_account: (4, 0)}
    assert d.remaining == 3


@pytest.mark.parametrize("busted_first", [3, 0])
def test_R_TOURN_15_first_place_disqualified_forfeits_to_the_best_entry_not_disqualified(
    busted_first: int,
) -> None:
    """Every entry left in play is disqualified in the same hand: first place's prize (with
    what the second place's forfeit gave it) has no better place to go to, so it goes to the
    best-placed entry not disqualified (``ForfeitPaid``), and the pool is paid out in full;
    when every entry is disqualified, to the entry in first place (nobody else is left)."""
    d, _ = started(5, starting_stack=100)
    for _ in range(busted_first):
        hand(d, 1, busts=[max(d.tables[1].seats)])
    seats = sorted(d.tables[1].seats)
    accounts = [account_at(d, 1, seat) for seat in seats]
    d.hand_started(1, 0, seats[0], 5.0)
    for account in accounts:
        assert d.disqualify(account, 5.0) == []
    out = hand(d, 1, begun=True, now=6.0)
    assert d.state == "finished"
    (paid,) = of(ForfeitPaid, out)
    assert paid.amount == 500
    assert all(e.disqualified == (e.account in accounts) for e in d.entries)
    if busted_first:
        best = min((e for e in d.entries if not e.disqualified), key=lambda e: e.place or 0)
        assert (best.place, best.account) == (3, paid.account)
        assert best.prize == 500
    else:
        first = next(e for e in d.entries if e.place == 1)
        assert first.account == paid.account
        assert first.prize == 500
    assert sum(e.prize for e in d.entries) == d.pool == d.paid_out == 500


@pytest.mark.parametrize(
    ("account", "message"),
    [("nobody", "no entry in play"), ("busted", "no entry in play"), ("twice", "already")],
)
def test_R_TOURN_15_refusals_change_nothing(account: str, message: str) -> None:
    d, _ = started(5, starting_stack=100)
    seats = sorted(d.tables[1].seats)
    if account == "busted":
        account = account_at(d, 1, seats[-1])
        hand(d, 1, busts=[seats[-1]])
    elif account == "twice":
        account = account_at(d, 1, seats[0])
        d.hand_started(1, 0, seats[0], 1.0)
        d.disqualify(account, 1.0)
    before = (d.remaining, d.disqualified_chips, d.prizes, {e.number: e.stack for e in d.entries})
    with pytest.raises(IllegalAction, match=message):
        d.disqualify(account, 2.0)
    after = (d.remaining, d.disqualified_chips, d.prizes, {e.number: e.stack for e in d.entries})
    assert after == before


def test_R_TOURN_15_a_cancellation_during_the_hand_leaves_the_disqualified_entry_out() -> None:
    """R-TOURN-13 with R-TOURN-15: the hand in progress is void, so the entry to be disqualified
    at its end is out at once with its start-of-hand chips, in the current place without a
    prize, and has no share of the pool left; the others share it all."""
    d, _ = started(5, starting_stack=100)
    seat = min(d.tables[1].seats)
    account = account_at(d, 1, seat)
    d.hand_started(1, 0, seat, 1.0)
    d.disqualify(account, 1.0)
    out = d.cancel(2.0)
    (gone,) = of(Disqualified, out)
    assert (gone.account, gone.chips) == (account, 100)
    assert of(PlaceFinal, out) == [PlaceFinal(gone.entry, account, 5, 1, 0)]
    shares = {p.account: p.amount for p in of(CancellationPaid, out)}
    assert account not in shares
    assert sum(shares.values()) == d.pool == 500
    assert d.disqualified_chips == 100

"""The button and blind rules across hands, one test per rule ID (R-BUTTON, R-BLIND, R-ENTRY,
R-MISS), including the transitions between a ring game, heads-up and a restart.

Each multi-hand test runs a short script of ``scenario.Runner`` (``deal`` / ``walk`` /
``expect``); the single-hand cases call ``plan_hand`` on seats built here.
"""

from __future__ import annotations

import pytest

from feltroom.table import Entry, Owes, Positions, Seat, plan_hand

from .scenario import Runner

RULES = ("dead", "moving")
FOUR = "sit 1 A 100\nsit 2 B 100\nsit 3 C 100\nsit 4 D 100\n"
"""Four players in seats 1 to 4."""


def script(rule: str, seats: int = 6) -> str:
    return (
        "config dead_nl_1_2 money=play exponent=0 big_blind=2 small_blind=1 min_buy_in=40 "
        f"max_buy_in=1000 first_button=first_seated max_seats={seats} button_rule={rule}\n"
    )


def run(rule: str, text: str, seats: int = 6) -> Runner:
    runner = Runner()
    runner.run(script(rule, seats) + text)
    return runner


def seat(number: int, owes: Owes = Owes.NOTHING, entry: Entry = Entry.POST) -> Seat:
    return Seat(number, f"p{number}", 100, number, owes=owes, entry=entry)


# Rules: R-BUTTON-2, R-MISS-1, R-MISS-4, R-BLIND-4
@pytest.mark.parametrize("rule", RULES)
def test_R_BUTTON_2_R_MISS_4_ring_to_heads_up_and_back(rule: str) -> None:
    """Three players; C sits out for a hand (heads-up), then comes back. Heads-up, the big blind
    goes to the player after last hand's big blind and C, due for the small blind, is marked as
    having missed it. Back to a ring: the big blind moves on one player again (nobody posts it
    twice in a row), the small blind is last hand's big blind, the button moves one player
    clockwise to C, who pays the small blind they owe (dead) to play there."""
    run(
        rule,
        """
        sit 1 A 100
        sit 2 B 100
        sit 3 C 100
        deal
        expect button=1 sb=2 bb=3
        walk
        sitout 3
        deal
        expect button=2 sb=2 bb=1 dealt=1,2 arrangement=heads_up
        expect owes 3=MS
        walk
        sitin 3
        deal
        expect button=3 sb=1 bb=2 dealt=1,2,3 dead=3 arrangement=from_heads_up
        expect owes 3=-
        walk
        deal
        expect button=1 sb=2 bb=3
        """,
    )


# Rules: R-BUTTON-2, R-MISS-1, R-ENTRY-1
@pytest.mark.parametrize("rule", RULES)
def test_R_BUTTON_2_a_fresh_heads_up_start_becomes_a_ring(rule: str) -> None:
    """The table's first hand is heads-up; a third player waits for the big blind, which moves
    on to them: the small blind is last hand's big blind, the button the other player."""
    run(
        rule,
        """
        sit 1 A 100
        sit 2 B 100
        deal
        expect button=1 sb=1 bb=2 arrangement=fresh
        walk
        sit 3 C 100 wait
        deal
        expect button=1 sb=2 bb=3 dealt=1,2,3 posts=none
        """,
    )


# Rules: R-MISS-1, R-ENTRY-1
@pytest.mark.parametrize("rule", RULES)
def test_R_MISS_1_one_player_in_the_game_and_a_returning_player_take_the_big_blind(
    rule: str,
) -> None:
    """One player is in the game and a returning player missed the big blind: the game does
    not restart (which would deal the debtor in for nothing); the returning player comes in on
    the big blind, the other player has the button and the small blind."""
    runner = run(
        rule,
        FOUR
        + """
        deal
        walk
        sitout 3
        deal
        walk
        deal
        walk
        deal
        walk
        deal
        walk
        expect owes 3=ML
        leave 2
        leave 4
        sitin 3
        deal
        expect button=1 sb=1 bb=3 dealt=1,3 arrangement=heads_up
        """,
    )
    assert runner.t.plan is not None
    assert not runner.t.plan.fresh


# Rules: R-MISS-1, R-MISS-4
def test_R_MISS_1_the_heads_up_plan_keeps_the_markers() -> None:
    """Heads-up with a sitting-out player the big blind passes: they owe the big blind (ML);
    last hand's big blind sitting out owes the small blind (MS)."""
    seats = {1: seat(1), 3: seat(3), 4: seat(4), 5: seat(5)}
    seats[4].sitting_out = True
    seats[5].sitting_out = True
    for rule in RULES:
        plan = plan_hand(rule, seats, 6, 1, 2, Positions(3, 4, 5))
        assert plan is not None
        assert (plan.button, plan.small, plan.big, plan.dealt) == (3, 3, 1, (1, 3))
        assert dict(plan.missed) == {5: Owes.MISSED_SMALL}
        plan = plan_hand(rule, seats, 6, 1, 2, Positions(1, 1, 3))
        assert plan is not None
        assert plan.big == 1
        assert dict(plan.missed) == {4: Owes.MISSED_BIG, 5: Owes.MISSED_BIG}


# Rules: R-BUTTON-2
@pytest.mark.parametrize("rule", RULES)
def test_R_BUTTON_2_the_button_moves_clockwise_after_each_hand(rule: str) -> None:
    runner = run(rule, "sit 1 A 100\nsit 2 B 100\nsit 4 C 100\nsit 5 D 100\n")
    buttons = []
    for _ in range(6):
        runner.run("deal\nwalk")
        assert runner.t.plan is not None
        buttons.append(runner.t.plan.button)
    assert buttons == [1, 2, 4, 5, 1, 2]


# Rules: R-BUTTON-4
def test_R_BUTTON_4_dead_the_button_goes_to_the_empty_seat_then_follows_the_next_player() -> None:
    run(
        "dead",
        FOUR
        + """
        deal
        walk
        deal
        expect button=2 sb=3 bb=4
        walk
        leave 3
        deal
        expect button=3 sb=4 bb=1 dealt=1,2,4
        walk
        deal
        expect button=4 sb=1 bb=2
        """,
    )


# Rules: R-BUTTON-4
def test_R_BUTTON_4_moving_the_button_skips_empty_seats() -> None:
    runner = run(
        "moving",
        FOUR
        + """
        deal
        walk
        deal
        expect button=2 sb=3 bb=4
        walk
        leave 3
        deal
        expect button=4 sb=1 bb=2
        """,
    )
    assert runner.t.plan is not None
    assert runner.t.plan.button in runner.t.seats


# Rules: R-BLIND-5, R-ENTRY-3
def test_R_BLIND_5_dead_a_third_player_posting_into_a_heads_up_game_two_big_blinds() -> None:
    runner = run(
        "dead",
        """
        sit 1 A 100
        sit 4 B 100
        deal
        expect button=1 sb=1 bb=4
        walk
        sit 2 C 100
        deal
        expect button=4 sb=none bb=1 posts=2 dealt=1,2,4
        """,
        seats=8,
    )
    hand = runner.t.hand
    assert hand is not None
    assert sorted(f.amount for f in hand.setup.forced) == [2, 2]  # no small blind


# Rules: R-ENTRY-2
def test_R_ENTRY_2_moving_a_new_player_between_the_button_and_the_big_blind_waits() -> None:
    run(
        "moving",
        """
        sit 1 A 100
        sit 2 B 100
        sit 4 D 100
        sit 5 E 100
        deal
        expect button=1 sb=2 bb=4
        walk
        sit 3 X 100
        deal
        expect button=2 sb=4 bb=5 dealt=1,2,4,5
        expect owes 3=new
        walk
        deal
        expect button=4 sb=5 bb=1 posts=3 dealt=1,2,3,4,5
        """,
    )


# Rules: R-ENTRY-4
@pytest.mark.parametrize("rule", RULES)
def test_R_ENTRY_4_changing_seats_is_entering_anew(rule: str) -> None:
    runner = run(
        rule,
        FOUR
        + """
        deal
        expect button=1 sb=2 bb=3
        walk
        move 1 6 wait
        expect owes 6=new
        deal
        """,
    )
    hand = runner.t.hand
    assert hand is not None
    assert 6 not in hand.seats  # waits for the big blind like a new player
    runner.run("walk\nmove 6 5\nexpect owes 5=new\ndeal")
    hand = runner.t.hand
    assert hand is not None
    assert runner.t.plan is not None
    kinds = [f.kind.value for f in hand.setup.forced if f.seat == 5]
    assert kinds in (["post"], ["big_blind"])  # posts in, or is the big blind


# Rules: R-ENTRY-5
def test_R_ENTRY_5_dead_posting_between_the_blinds_moves_the_button_back() -> None:
    run(
        "dead",
        """
        sit 1 A 100
        sit 2 C 100
        sit 4 B 100
        deal
        expect button=1 sb=2 bb=4
        walk
        sit 5 E 100
        deal
        expect button=4 sb=none bb=1 posts=5 dealt=1,2,4,5 arrangement=entry_post
        walk
        deal
        expect button=5 sb=1 bb=2 posts=none
        """,
    )


# Rules: R-MISS-2
@pytest.mark.parametrize("rule", RULES)
def test_R_MISS_2_missed_small_blind_posted_dead_not_before_the_button_has_passed(
    rule: str,
) -> None:
    """A player who missed only the small blind and wants to post waits while they sit
    between the button and the big blind; behind the big blind they post it dead."""
    seats = {n: seat(n) for n in (1, 2, 4, 5, 6)}
    seats[3] = seat(3, Owes.MISSED_SMALL)
    # dead: button on 2 (last hand's small-blind position), big blind 5; moving: button on 2
    # (last hand's small blind), small 4, big 5. Seat 3 is between the button and the big blind.
    plan = plan_hand(rule, seats, 6, 1, 2, Positions(1, 2, 4))
    assert plan is not None
    assert (plan.button, plan.big) == (2, 5)
    assert 3 not in plan.dealt
    assert all(f.seat != 3 for f in plan.forced)
    # Once the button has passed them they post the small blind dead and play.
    plan = plan_hand(rule, seats, 6, 1, 2, Positions(3, 4, 6))
    assert plan is not None
    assert 3 in plan.dealt
    assert [f.kind.value for f in plan.forced if f.seat == 3] == ["dead"]
    # Waiting for the big blind instead: dealt in only when it reaches them, without a post.
    seats[3] = seat(3, Owes.MISSED_SMALL, Entry.WAIT)
    plan = plan_hand(rule, seats, 6, 1, 2, Positions(3, 4, 6))
    assert plan is not None
    assert 3 not in plan.dealt


# Rules: R-MISS-3
@pytest.mark.parametrize("rule", RULES)
def test_R_MISS_3_the_next_active_player_takes_the_missing_players_big_blind(rule: str) -> None:
    runner = run(
        rule,
        FOUR
        + """
        deal
        expect button=1 sb=2 bb=3
        walk
        sitout 4
        deal
        expect bb=1
        expect owes 4=ML
        """,
    )
    assert runner.t.plan is not None
    assert 4 not in runner.t.plan.dealt


# Rules: R-MISS-4
@pytest.mark.parametrize("rule", RULES)
def test_R_MISS_4_each_player_pays_each_blind_once_per_orbit(rule: str) -> None:
    runner = run(rule, "sit 1 A 100\nsit 2 B 100\nsit 3 C 100\nsit 5 D 100\nsit 6 E 100\n")
    runner.run("deal\nwalk")
    smalls, bigs = [], []
    for _ in range(5):  # one orbit of five players
        runner.run("deal\nwalk")
        plan = runner.t.plan
        assert plan is not None
        smalls.append(plan.small)
        bigs.append(plan.big)
    assert sorted(bigs) == [1, 2, 3, 5, 6]
    assert sorted(s for s in smalls if s is not None) == [1, 2, 3, 5, 6]


# Rules: R-MISS-4, R-MISS-1
@pytest.mark.parametrize("rule", RULES)
def test_R_MISS_4_a_returning_player_pays_the_equivalent_on_re_entry(rule: str) -> None:
    """D sits out as the big blind reaches them (ML) and comes back posting: they pay the big
    blind live and the small blind dead (one of each, as if they had stayed) and play at once,
    behind the blinds; after it they owe nothing."""
    runner = run(
        rule,
        FOUR
        + """
        sit 5 E 100
        deal
        expect button=1 sb=2 bb=3
        walk
        sitout 4
        deal
        expect button=2 sb=3 bb=5
        expect owes 4=ML
        walk
        deal
        walk
        sitin 4
        deal
        expect button=5 sb=1 bb=2 dealt=1,2,3,4,5 posts=4 dead=4
        expect owes 4=-
        """,
    )
    hand = runner.t.hand
    assert hand is not None
    assert sorted(f.amount for f in hand.setup.forced if f.seat == 4) == [1, 2]


# Rules: R-MISS-5
def test_R_MISS_5_moving_the_big_blind_posts_the_small_blind_for_an_absent_player() -> None:
    run(
        "moving",
        FOUR
        + """
        sit 5 E 100
        deal
        expect button=1 sb=2 bb=3
        walk
        deal
        expect button=2 sb=3 bb=4
        walk
        sitout 4
        deal
        expect button=3 sb=5 bb=1
        expect owes 4=MS
        """,
    )


# Rules: R-MISS-5
def test_R_MISS_5_dead_no_small_blind_when_its_player_is_absent() -> None:
    run(
        "dead",
        FOUR
        + """
        deal
        expect button=1 sb=2 bb=3
        walk
        sitout 3
        deal
        expect button=2 sb=none bb=4 dealt=1,2,4
        expect owes 3=MS
        """,
    )

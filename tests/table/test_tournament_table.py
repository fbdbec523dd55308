"""Tournament tables (``TournamentTable``): the table support of R-TOURN-3..8 and R-TOURN-15."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from feltroom.cards import Card, Deck
from feltroom.deal_proof import CommittedDeck, commit
from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import Call, Check, Folded, Forced, Protected, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import (
    CameBack,
    FirstButtonDrawn,
    HandStarted,
    Level,
    SatOut,
    SeatReleased,
    TableEvent,
    TimedOut,
    TournamentTable,
    TurnStarted,
    WentAway,
    tournament_table_config,
)

LEVEL = Level(10, 20)


class Decks:
    """Deals the given decks in turn (then seeded ones)."""

    def __init__(self, *decks: Deck) -> None:
        self.decks = list(decks)
        self.rest = SeededDeckSource(5)

    def next_deck(self) -> Deck:
        return self.decks.pop(0) if self.decks else self.rest.next_deck()

    def next_committed(self) -> CommittedDeck:
        return commit(self.next_deck())


def deck_starting(cards: str) -> Deck:
    """A full deck whose first cards are ``cards``."""
    first = [Card.parse(c) for c in cards.split()]
    return Deck(tuple(first + [c for c in Deck.standard().cards if c not in first]))


def make(
    seats: Sequence[int] = (1, 2, 3),
    stack: int = 1000,
    level: Level = LEVEL,
    structure: str = "no_limit",
    max_seats: int = 9,
    decks: Decks | None = None,
) -> TournamentTable:
    config = tournament_table_config(structure, level, max_seats)
    table = TournamentTable(config, level, deck_source=decks or Decks())
    for seat in seats:
        table.seat_player(f"p{seat}", seat, stack, 0.0)
    return table


def started(events: list[TableEvent]) -> HandStarted:
    return next(e for e in events if isinstance(e, HandStarted))


def fold_round(table: TournamentTable, now: float = 1.0) -> list[TableEvent]:
    """Everyone calls or checks down (the hand ends)."""
    events: list[TableEvent] = []
    while table.in_hand:
        hand = table.hand
        assert hand is not None
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_actions()
        assert legal is not None
        events += table.act(seat, Check() if legal.check else Call(), now)
    return events


def test_R_TOURN_4_dead_button_and_the_high_card_draw_ties_by_suit() -> None:
    """R-TOURN-4: the first button by a high card, ties broken by suit (spades high)."""
    # seats 1, 2, 3 draw Ah, As, Kd: the two aces tie on rank, spades beat hearts.
    table = make(decks=Decks(deck_starting("Ah As Kd")))
    events = table.start_hand(0.0)
    draw = next(e for e in events if isinstance(e, FirstButtonDrawn))
    assert draw.button == 2
    assert started(events).button == 2
    with pytest.raises(InvalidConfiguration, match="button_rule: 'moving'"):
        TournamentTable(
            tournament_table_config("no_limit", LEVEL, 9).with_(button_rule="moving"), LEVEL
        )
    with pytest.raises(InvalidConfiguration, match="mode"):
        TournamentTable(tournament_table_config("no_limit", LEVEL, 9).with_(mode="cash"), LEVEL)


def test_R_TOURN_3_a_new_player_is_dealt_in_at_once_without_a_post() -> None:
    """R-TOURN-3: a player who comes to the table (late entry, a move) plays the next hand
    without any post, except between the small blind and the button."""
    table = make(seats=(1, 3, 5, 7))
    first = started(table.start_hand(0.0))
    fold_round(table)
    button, big = first.button, first.big
    # the seat right after the big blind: dealt in next hand, no post; it is the next big blind
    seat = next(s for s in range(big + 1, 10) if s not in table.seats)
    table.seat_player("late", seat, 1500, 2.0)
    second = started(table.start_hand(3.0))
    assert seat in second.dealt
    assert second.big == seat  # it reaches the big blind at once: the blind is its only post
    assert {f.kind for f in second.forced} <= {Forced.SMALL_BLIND, Forced.BIG_BLIND}
    assert button != second.button


def test_R_TOURN_3_between_the_small_blind_and_the_button_waits_for_the_button() -> None:
    """R-TOURN-3 / R-TOURN-8: a seat strictly between the small blind and the button is not
    dealt in until the button has passed it."""
    table = make(seats=(1, 4, 7))
    first = started(table.start_hand(0.0))
    fold_round(table)
    # next hand: the button goes to this hand's small blind, the small blind to its big blind
    next_button, next_small = first.small, first.big
    assert next_button is not None
    zone = [
        s
        for s in (next_button % 9 + 1, (next_button + 1) % 9 + 1)
        if s not in table.seats and s != next_small
    ]
    seat = zone[0]
    table.seat_player("mover", seat, 1500, 2.0)
    second = started(table.start_hand(3.0))
    assert (second.button, second.small) == (next_button, next_small)
    assert seat not in second.dealt
    fold_round(table)
    third = started(table.start_hand(5.0))
    assert seat in third.dealt  # the button has passed: dealt in, still without a post
    assert all(f.seat != seat or f.kind is Forced.BIG_BLIND for f in third.forced)


def test_R_TOURN_5_a_new_level_applies_from_the_next_hand() -> None:
    """R-TOURN-5: a hand in progress finishes at the old level; the next hand plays the new."""
    table = make()
    table.start_hand(0.0)
    table.set_level(Level(25, 50, 50))
    assert table.config.big == 20  # the hand in progress keeps its level
    fold_round(table)
    second = started(table.start_hand(2.0))
    amounts = {f.kind: f.amount for f in second.forced}
    assert amounts == {Forced.SMALL_BLIND: 25, Forced.BIG_BLIND: 50, Forced.ANTE: 50}
    assert table.config.big == 50
    ante = next(f for f in second.forced if f.kind is Forced.ANTE)
    assert ante.seat == second.big  # the big-blind ante


def test_R_TOURN_5_the_big_blind_before_the_ante_when_a_stack_cannot_cover_both() -> None:
    """R-TOURN-5: a big blind who cannot cover both posts the blind first, the ante from the
    rest."""
    table = make(level=Level(50, 100, 100), decks=Decks(deck_starting("As 2c 3d")))
    first = started(table.start_hand(0.0))
    assert (first.button, first.small, first.big) == (1, 2, 3)
    fold_round(table)
    # the next big blind (seat 1) has 130 chips: blind 100, ante 30
    nxt = 1
    total = sum(p.stack for p in table.seats.values())
    table.seats[2].stack += table.seats[nxt].stack - 130
    table.seats[nxt].stack = 130
    assert sum(p.stack for p in table.seats.values()) == total
    second = started(table.start_hand(2.0))
    assert second.big == nxt
    posted = {f.kind: f.amount for f in second.forced if f.seat == nxt}
    assert posted == {Forced.BIG_BLIND: 100, Forced.ANTE: 30}
    hand = table.hand
    assert hand is not None
    assert hand.stack_of(nxt) == 0


def test_R_TOURN_5_fixed_limit_levels_give_the_small_and_big_bet() -> None:
    """R-TOURN-5: Fixed-Limit levels give the small bet (the big blind) and the big bet; the cap
    holds heads-up in tournaments (R-LIMIT-3)."""
    table = make(structure="fixed_limit", level=Level(10, 20, 0, 40))
    assert table.config.stakes_name() == "20-40 Fixed Limit"
    table.set_level(Level(15, 30, 0, 60))
    table.start_hand(0.0)
    assert table.config.stakes_name() == "30-60 Fixed Limit"
    assert table.config.small == 15
    assert not table.config.heads_up_uncapped


def test_R_TOURN_6_a_timeout_makes_the_player_away_and_never_removed() -> None:
    """R-TOURN-6: after one timeout (check_or_fold) the player is away: dealt in, blinds posted,
    folded at once at their turn with no clock, until they say they are back."""
    table = make()
    table.start_hand(0.0)
    hand = table.hand
    assert hand is not None
    seat = hand.to_act
    assert seat is not None
    view = table.view()
    assert view.deadline is not None
    events = table.tick(view.deadline)
    assert WentAway(seat, "timeout") in events
    assert any(isinstance(e, TimedOut) for e in events)
    events += fold_round(table)
    assert not any(isinstance(e, SatOut) for e in events)
    assert table.seats[seat].away
    assert not table.seats[seat].sitting_out
    # later hands: dealt in, posting, acted for at once, never given a turn or a clock
    for k in range(6):
        events = table.start_hand(10.0 + k)
        assert seat in started(events).dealt
        events += fold_round(table, 10.0 + k)
        assert not any(isinstance(e, TurnStarted) and e.seat == seat for e in events)
    assert seat in table.seats
    assert table.back(seat) == [CameBack(seat)]
    events = table.start_hand(30.0)
    events += fold_round(table, 30.0)
    assert any(isinstance(e, TurnStarted) and e.seat == seat for e in events)


def test_R_TOURN_6_an_away_player_facing_a_bet_is_folded() -> None:
    """R-TOURN-6: folded at once at their turn (checked only when checking is free)."""
    table = make(seats=(1, 2, 3))
    first = started(table.start_hand(0.0))
    fold_round(table)
    away = first.big  # last hand's big blind is the next small blind: it faces a bet pre-flop
    table.set_away(away)
    events = table.start_hand(2.0)
    assert away in started(events).dealt
    events += fold_round(table, 2.0)
    assert Folded(away) in events
    assert not any(isinstance(e, TurnStarted) and e.seat == away for e in events)


def test_R_TOURN_6_protect_on_never_protects_nobody() -> None:
    """R-TOURN-6: tournament tables set protect_on = never (a new value of R-TIME-3's setting):
    a disconnected player with chips in the pot who times out is folded or checked, never
    protected."""
    assert tournament_table_config("no_limit", LEVEL, 9).protect_on == "never"
    table = make()
    first = started(table.start_hand(0.0))
    hand = table.hand
    assert hand is not None
    # the small blind has chips in the pot; make it disconnected and let it time out
    small = first.small
    assert small is not None
    while hand.to_act != small:
        seat = hand.to_act
        assert seat is not None
        table.act(seat, Call(), 1.0)
    table.disconnect(small, 1.0)
    view = table.view()
    assert view.deadline is not None
    events = table.tick(view.deadline)
    assert not any(isinstance(e, Protected) for e in events)
    assert TimedOut(small, "fold") in events


def test_R_TOURN_15_cash_rules_that_do_not_apply() -> None:
    """R-TOURN-15: buy-ins and added chips (R-BUYIN-1..3), entering by a post (R-ENTRY),
    leaving with chips, changing seats and the waiting list are refused; sitting out is being
    away (R-MISS, R-SIT-2 do not apply); no rake (R-RAKE-2)."""
    table = make()
    for call in (
        lambda: table.sit("x", 5, 1000, 0.0),
        lambda: table.add_chips(1, 100, 0.0),
        lambda: table.leave(1, 0.0),
        lambda: table.change_seat(1, 5, 0.0),
        lambda: table.join_waiting_list("x", 0.0),
    ):
        with pytest.raises(IllegalAction, match="R-TOURN-15"):
            call()
    with pytest.raises(IllegalAction, match="always posted"):
        table.set_auto_post(1, False)
    assert table.sit_out(1, 0.0) == [WentAway(1, "chosen")]
    assert not table.seats[1].sitting_out
    assert table.sit_in(1, 0.0) == [CameBack(1)]
    assert table.config.rake_rule() is None


def test_R_TOURN_15_a_busted_seat_waits_for_the_director() -> None:
    """R-TOURN-15 (R-SIT-2 does not apply): a player out of chips is never released by the clock;
    the director removes them (R-TOURN-3), with their chips (none)."""
    table = make(seats=(1, 2), stack=100)
    table.start_hand(0.0)
    hand = table.hand
    assert hand is not None
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_actions()
        assert legal is not None
        if legal.raise_max is not None:
            table.act(seat, RaiseTo(legal.raise_max), 1.0)
        else:
            table.act(seat, Call() if legal.call is not None else Check(), 1.0)
    busted = next(s for s, p in table.seats.items() if p.stack == 0)
    assert table.tick(1_000_000.0) == []
    assert busted in table.seats
    chips, events = table.remove_player(busted, 2.0, "eliminated")
    assert chips == 0
    assert isinstance(events[0], SeatReleased)


def test_R_TOURN_7_hold_and_release_the_deal() -> None:
    """R-TOURN-7/9/12: a held table deals no new hand until released."""
    table = make()
    table.hold()
    assert not table.can_start()
    with pytest.raises(IllegalAction, match="held"):
        table.start_hand(0.0)
    table.release()
    assert table.can_start()
    hand_started = started(table.start_hand(0.0))
    with pytest.raises(IllegalAction, match="hand in progress"):
        table.remove_player(hand_started.dealt[0], 0.0, "moved")


def test_R_TOURN_8_the_final_table_draws_the_button_again_with_no_blind_owed() -> None:
    """R-TOURN-8: a new high-card draw for the button; nobody owes a blind; everyone is dealt."""
    table = make(seats=(1, 2, 3, 4))
    table.start_hand(0.0)
    fold_round(table)
    chips, _ = table.remove_player(4, 1.0, "final_table")
    table.seat_player("p4", 6, chips, 1.0)
    table.seat_player("p9", 8, 1500, 1.0)
    table.new_button_draw()
    events = table.start_hand(2.0)
    assert any(isinstance(e, FirstButtonDrawn) for e in events)
    hand_started = started(events)
    assert hand_started.arrangement == "fresh"
    assert set(hand_started.dealt) == {1, 2, 3, 6, 8}


def heads_up_hand() -> tuple[TournamentTable, HandStarted]:
    """Two players at seats 1 and 5 play a heads-up hand (the button posts the small blind)."""
    table = make(seats=(1, 5))
    first = started(table.start_hand(0.0))
    assert first.small == first.button
    fold_round(table)
    return table, first


def test_R_TOURN_3_after_a_heads_up_hand_the_newcomer_on_the_button_is_dealt_in() -> None:
    """R-TOURN-3 / R-TOURN-8: after a heads-up hand a newcomer between last hand's button and
    big blind takes the next button and is dealt in (not left out of a heads-up hand between the
    other two)."""
    table, first = heads_up_hand()
    seat = 3 if first.button == 1 else 7  # strictly between the button and the big blind
    table.seat_player("newcomer", seat, 1500, 2.0)
    second = started(table.start_hand(3.0))
    assert sorted(second.dealt) == sorted([1, 5, seat])
    assert second.button == seat
    assert (second.small, second.big) == (first.big, first.button)
    assert all(f.seat != seat for f in second.forced)  # no post


def test_R_TOURN_4_after_a_heads_up_hand_without_its_big_blind_the_blind_goes_on_as_due() -> None:
    """R-TOURN-4 / R-TOURN-8: last hand's big blind is gone; the big blind is due from the
    player who had the button (and the small blind): they post it, and the newcomer is dealt in
    on the button (not the newcomer on the big blind and the other posting the small blind
    twice)."""
    table, first = heads_up_hand()
    table.remove_player(first.big, 2.0, "eliminated")
    seat = 3 if first.button == 1 else 7
    table.seat_player("newcomer", seat, 1500, 2.0)
    second = started(table.start_hand(3.0))
    assert sorted(second.dealt) == sorted([first.button, seat])
    assert second.big == first.button
    assert second.button == second.small == seat


def test_R_TOURN_4_a_ring_turned_heads_up_deals_the_newcomer_in_and_the_big_blind_goes_on() -> None:
    """R-TOURN-3 / R-TOURN-4: last hand's small and big blinds are gone and a newcomer sits
    between them, where he would wait for the button; with nobody else to play, the next hand
    is heads-up with him dealt in, and the big blind goes to the player due for it (last hand's
    button), not to the newcomer."""
    table = make(seats=(1, 4, 7))
    first = started(table.start_hand(0.0))
    fold_round(table)
    assert first.small is not None
    table.remove_player(first.small, 2.0, "eliminated")
    table.remove_player(first.big, 2.0, "eliminated")
    seat = first.small % 9 + 1  # strictly between last hand's small and big blinds
    table.seat_player("newcomer", seat, 1500, 2.0)
    second = started(table.start_hand(3.0))
    assert sorted(second.dealt) == sorted([first.button, seat])
    assert second.big == first.button
    assert second.button == second.small == seat

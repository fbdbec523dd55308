"""The planted colluders of the integrity benchmark (issue 24): with the partner in the hand each
plays its scheme, without it each plays like the tight-aggressive brain; never a house style."""

from __future__ import annotations

from feltroom.cards import parse_cards
from feltroom.rules import Call, Check, Fold, HandView, LegalActions, RaiseTo, SeatView
from feltroom.strategy import STYLES
from feltroom.strategy.collusion import CardSharingBrain, DumperBrain, Partner, ReceiverBrain

PARTNER = Partner(2, (parse_cards("5c 4d")[0], parse_cards("5c 4d")[1]))


def _view(me: str, board: str, bets: dict[int, int], *, pot: int, all_in: int = 0) -> HandView:
    cards = parse_cards(me)
    players = tuple(
        SeatView(
            seat,
            0 if seat == all_in else 200 - bet,
            bet,
            False,
            seat == all_in,
            (cards[0], cards[1]) if seat == 4 else None,
        )
        for seat, bet in sorted(bets.items())
    )
    shown = parse_cards(board) if board else ()
    street = {0: 0, 3: 1, 4: 2, 5: 3}[len(shown)]
    return HandView(4, street, shown, pot, players, 4, None, False, ())


FREE = LegalActions(seat=4, fold=False, check=True, call=None, raise_min=2, raise_max=200)
FACING = LegalActions(seat=4, fold=True, check=False, call=20, raise_min=40, raise_max=200)


def test_the_colluding_brains_are_not_house_bot_styles() -> None:
    assert STYLES == ("random", "station", "tag")


def test_card_sharers_never_bet_while_the_partner_is_in_the_hand() -> None:
    brain = CardSharingBrain(1)
    view = _view("As Ad", "Ah Kd 2c", {2: 0, 4: 0, 6: 0}, pot=30)
    assert brain.choose(view, FREE, PARTNER) == Check()  # aces full: still no bet
    assert isinstance(brain.choose(view, FREE, None), RaiseTo)  # without the partner: it bets
    facing = _view("As Ad", "Ah Kd 2c", {2: 0, 4: 0, 6: 20}, pot=50)
    assert brain.choose(facing, FACING, PARTNER) == Call()  # a third player's bet: called


def test_the_weaker_card_sharer_leaves_a_third_players_bet_to_its_partner() -> None:
    partner = Partner(2, (parse_cards("Kh Kc")[0], parse_cards("Kh Kc")[1]))
    view = _view("Qs Qd", "Kd 7h 2c", {2: 0, 4: 0, 6: 20}, pot=50)
    assert CardSharingBrain(1).choose(view, FACING, partner) == Fold()


def test_the_dumper_folds_to_its_partners_turn_bet_and_pays_off_its_all_in_when_behind() -> None:
    brain = DumperBrain(1)
    turn = _view("Qs Qd", "Kd 7h 2c 9s", {2: 20, 4: 0}, pot=60)
    assert brain.choose(turn, FACING, PARTNER) == Fold()
    flop = _view("Qs Qd", "Kd 7h 2c", {2: 20, 4: 0}, pot=60)
    assert brain.choose(flop, FACING, PARTNER) == Call()
    partner = Partner(2, (parse_cards("Kh Kc")[0], parse_cards("Kh Kc")[1]))
    shove = _view("Qs Qd", "Kd 7h 2c 9s 3h", {2: 20, 4: 0}, pot=200, all_in=2)
    assert brain.choose(shove, FACING, partner) == Call()  # queens against kings: hopeless
    assert brain.choose(shove, FACING, PARTNER) == Fold()  # ahead of 5-4: it does not pay


def test_the_receiver_bets_the_pot_at_its_partner_and_moves_in_on_the_river_when_ahead() -> None:
    brain = ReceiverBrain(1)
    flop = _view("Qs Qd", "Kd 7h 2c", {2: 0, 4: 0}, pot=30)
    assert brain.choose(flop, FREE, PARTNER) == RaiseTo(30)
    river = _view("Qs Qd", "Kd 7h 2c 9s 3h", {2: 0, 4: 0}, pot=30)
    assert brain.choose(river, FREE, PARTNER) == RaiseTo(200)

"""Constructed hands for the integrity tests: a scripted hand played by the rules engine and kept
exactly as the room stores it (the record, the settings and every player's row)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from feltroom.cards import Card, parse_cards
from feltroom.integrity import StoredHand, StoredSeat
from feltroom.room.storage import HandPlayerRow, Storage, TableRow
from feltroom.room.tables_config import settings_of
from feltroom.rules import Action, Hand, HandSetup, blinds
from feltroom.table import TableConfig

CONFIG = TableConfig(
    structure="no_limit",
    big_blind=2,
    small_blind=1,
    money="play",
    exponent=0,
    rake_percent=0,
    max_seats=6,
)


def stored_hand(
    hand_id: int,
    players: Sequence[tuple[str, int, str]],
    board: str,
    script: Sequence[tuple[str, Action]],
    *,
    button: int = 1,
    table: str = "t1",
    started_at: float | None = None,
) -> StoredHand:
    """A hand with ``players`` (account, stack, hole cards) in seats 1, 2, ... and the
    ``script`` of actions (account, action), each checked to be that account's turn."""
    seats = {name: k for k, (name, _, _) in enumerate(players, start=1)}
    stacks = tuple((seats[name], stack) for name, stack, _ in players)
    holes = {seats[name]: parse_cards(hole) for name, _, hole in players}
    forced = blinds(stacks, button, CONFIG.small, CONFIG.big)
    order = _dealing_order(list(seats.values()), button)
    n = len(order)
    deck: list[Card | None] = [None] * (2 * n + 8)
    for index, seat in enumerate(order):
        deck[index], deck[n + index] = holes[seat]
    for position, card in zip((1, 2, 3, 5, 7), parse_cards(board), strict=False):
        deck[2 * n + position] = card
    setup = HandSetup(CONFIG.engine_structure(), stacks, button, forced, tuple(deck))
    hand = Hand.from_setup(setup)
    for name, action in script:
        hand.act(action, seats[name])
    assert hand.is_over, "the script must play the hand to its end"
    won: dict[int, int] = {}
    for pot in hand.results:
        for seat, share in zip(pot.winners, pot.shares, strict=True):
            won[seat] = won.get(seat, 0) + share
    start = dict(stacks)
    names = {seat: name for name, seat in seats.items()}
    record: dict[str, Any] = {
        "table": table,
        "hand_number": hand_id,
        "button": button,
        "small_blind": CONFIG.small,
        "big_blind": CONFIG.big,
        "players": [[seat, names[seat], start[seat]] for seat in hand.seats],
        "forced": [[f.seat, f.kind.value, f.amount] for f in forced],
        "actions": [[seat, str(action)] for seat, action in hand.log],
        "board": " ".join(str(card) for card in hand.board if card is not None),
        "shown": {
            str(seat): " ".join(str(c) for c in hand.hole_cards(seat) if c is not None)
            for seat in sorted(hand.shown)
        },
        "pots": [[p.amount, p.rake, list(p.winners), list(p.shares)] for p in hand.results],
    }
    rows = tuple(
        StoredSeat(
            names[seat],
            seat,
            start[seat],
            start[seat] - hand.stack_of(seat) + won.get(seat, 0),
            won.get(seat, 0),
            " ".join(str(card) for card in holes[seat]),
            seat in hand.showdown_seats,
        )
        for seat in hand.seats
    )
    settings = {"table_id": table, "currency": "PLAY", **settings_of(CONFIG)}
    at = float(hand_id * 60) if started_at is None else started_at
    return StoredHand(hand_id, table, at, rows, record, settings)


def _dealing_order(seats: list[int], button: int) -> list[int]:
    ordered = sorted(seats)
    after = [seat for seat in ordered if seat > button]
    return after + [seat for seat in ordered if seat <= button]


def store_hands(storage: Storage, hands: list[StoredHand]) -> None:
    """Keep the hands as the room's settlement does: a started hand finished as settled."""
    with storage.transaction() as tx:
        tx.add_table(TableRow("t1", "PLAY"))
        for hand in hands:
            hand_id = tx.new_hand("t1", "PLAY", hand.started_at)
            tx.finish_hand(
                hand_id,
                "settled",
                hand.started_at + 30,
                0,
                0,
                0,
                json.dumps(hand.settings),
                json.dumps(hand.record),
            )
            tx.add_hand_players(
                [
                    HandPlayerRow(
                        hand_id,
                        seat.account,
                        seat.seat,
                        seat.start_stack,
                        seat.contribution,
                        seat.payout,
                        0,
                        seat.hole,
                        seat.showdown,
                        False,
                    )
                    for seat in hand.seats
                ]
            )

"""A finished hand as the books keep it: its public record (``hand_record``), each player's
part in it (``player_outcomes``), the tax rule of its table (``tax_rule``), and a tournament
hand's rows (``hand_rows``)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from feltroom.deal_proof import SCHEME
from feltroom.room.settlement import PlayerOutcome, TaxRule
from feltroom.room.storage import HandDealRow, HandPlayerRow
from feltroom.table import HandResult, TableConfig

__all__ = ["hand_record", "hand_rows", "player_outcomes", "tax_rule"]


def hand_record(table_id: str, result: HandResult) -> dict[str, Any]:
    """The public record of a finished hand, as the books keep it with the hand."""
    hand = result.hand
    shown = hand.shown
    return {
        "table": table_id,
        "hand_number": result.number,
        "button": result.button,
        "small_blind": result.small,
        "big_blind": result.big,
        "players": [[seat, result.accounts[seat], result.before[seat]] for seat in hand.seats],
        "forced": [[f.seat, f.kind.value, f.amount] for f in result.forced],
        "actions": [[seat, str(action)] for seat, action in hand.log],
        "board": " ".join(str(card) for card in hand.board),
        "shown": {
            str(seat): " ".join(str(c) for c in hand.hole_cards(seat) if c is not None)
            for seat in sorted(shown)
        },
        "pots": [
            [pot.amount, pot.rake, list(pot.winners), list(pot.shares)] for pot in hand.results
        ],
        **_runs(result),
    }


def _runs(result: HandResult) -> dict[str, Any]:
    """A board run twice (R-HOME-4): the second run's whole board and each pot's halves
    (``[[winners, shares], [winners, shares]]``, empty for a pot with one eligible player)."""
    hand = result.hand
    if not hand.second_board:
        return {}
    return {
        "second_board": " ".join(str(card) for card in hand.second_board),
        "runs": [
            [[list(winners), list(shares)] for winners, shares in pot.runs] for pot in hand.results
        ],
    }


def player_outcomes(result: HandResult) -> list[PlayerOutcome]:
    """Per player dealt into a finished hand: the chips put in, the chips won less the
    collection fee, the hole cards, whether they stayed to the showdown and showed (what the
    books keep with the hand, ``hand_players``)."""
    hand = result.hand
    won: dict[int, int] = {}
    for pot in hand.results:
        for seat, share in zip(pot.winners, pot.shares, strict=True):
            won[seat] = won.get(seat, 0) + share
    showdown = set(hand.showdown_seats)
    shown = hand.shown
    players = []
    for seat in hand.seats:
        before = result.before[seat]
        final = hand.stack_of(seat)
        paid = final - result.after[seat] - result.tax.get(seat, 0)  # collection fee
        gain = won.get(seat, 0)
        hole = " ".join(str(card) for card in hand.hole_cards(seat) if card is not None)
        players.append(
            PlayerOutcome(
                result.accounts[seat],
                seat,
                before,
                before - final + gain,
                gain - paid,
                hole,
                seat in showdown,
                seat in shown,
            )
        )
    return players


def tax_rule(config: TableConfig) -> TaxRule | None:
    """The table's tax on winnings (R-TAX-1), or ``None`` where it has none."""
    if config.tax_threshold is None or not config.tax_percent:
        return None
    percent = Fraction(config.tax_percent)
    exact = Decimal(percent.numerator) / Decimal(percent.denominator)
    return TaxRule(config.tax_threshold, exact)


def hand_rows(
    hand_id: int, result: HandResult
) -> tuple[tuple[HandPlayerRow, ...], HandDealRow | None]:
    """The rows the books keep with a tournament hand (no escrow moves: tournament chips are not
    money): each player's and the committed deck's."""
    players = tuple(
        HandPlayerRow(
            hand_id,
            p.player,
            p.seat,
            p.start_stack,
            p.contribution,
            p.payout,
            0,
            p.hole,
            p.showdown,
            p.shown,
        )
        for p in player_outcomes(result)
    )
    deal = None
    if result.deal is not None:
        deck, salts = result.deal.stored()
        deal = HandDealRow(hand_id, SCHEME, result.deal.commitment, deck, salts)
    return players, deal

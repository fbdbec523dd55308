"""Buying in again after busting (issue 42, point 6): the rebuy a busted player is offered, and
the seat's auto-rebuy.

A player whose stack is empty sits out (R-BUYIN-1: the table deals no hand to an empty stack).
The rebuy offered is the table's full buy-in (its maximum, or ten minimums where there is none:
what a house bot brings) or, when the wallet holds less, the wallet, provided it covers the
minimum. With ``auto_rebuy`` on (a seat setting, like ``auto_post``; the room keeps it with the
seat, off by default) the room buys that rebuy from the wallet as soon as the hand that emptied
the stack is over and sits the player in again (posting any missed blinds, R-MISS-1/2): they are
dealt the next hand. A wallet that
cannot cover the minimum turns the setting off; the player then sees the seat as busted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from feltroom.money import to_units
from feltroom.room.errors import RoomError
from feltroom.room.housebots import bot_buy_in
from feltroom.room.ledger import currency
from feltroom.table import Entry, TableConfig

if TYPE_CHECKING:
    from feltroom.room.runtime.cash_table import TableRunner

__all__ = ["rebuy_amount", "rebuy_busted", "set_auto_rebuy"]

log = logging.getLogger(__name__)


class CashTables(Protocol):
    """What ``set_auto_rebuy`` needs of the room (its clock and its cash tables' runners), so
    that the runner's module and this one do not import the room."""

    @property
    def clock(self) -> Callable[[], float]: ...

    def runner(self, table_id: str) -> TableRunner: ...


def rebuy_amount(config: TableConfig, wallet: int) -> int | None:
    """The rebuy a busted player is offered with ``wallet`` (units of the table's currency):
    the table's full buy-in, or the wallet when it holds less; ``None`` when the wallet does
    not cover the table's minimum."""
    amount = min(bot_buy_in(config), wallet)
    return amount if amount >= config.buy_in_min else None


async def set_auto_rebuy(runtime: CashTables, table_id: str, player: str, on: bool) -> None:
    """Turn the seat's auto-rebuy on or off; on at an empty stack, the rebuy comes between
    hands (at once when no hand is being played)."""
    runner = runtime.runner(table_id)
    async with runner.lock:
        now = runtime.clock()
        runner.table.seats[runner.seat_of(player)].auto_rebuy = on
        await runner.command([], now)


async def rebuy_busted(runner: TableRunner, now: float) -> None:
    """Between hands: each seat with auto-rebuy on and an empty stack (no chips on their way to
    it) buys the rebuy from the wallet and sits in again."""
    table = runner.table
    config = runner.spec.config
    for seat, player in sorted(table.seats.items()):
        account = player.account
        if not player.auto_rebuy or player.stack > 0 or account in runner.pending_chips:
            continue
        held = await runner.writer.call(runner.room.cashier.balance, account)
        text = held["balances"].get(runner.spec.currency, "0")
        amount = rebuy_amount(config, to_units(Decimal(text), currency(runner.spec.currency)))
        if amount is None:
            log.info("table %s: %s cannot rebuy: auto-rebuy off", runner.table_id, account)
            player.auto_rebuy = False
            continue
        try:
            await runner.writer.call(
                runner.books_settlement.buy_in, runner.table_id, account, seat, amount
            )
        except RoomError as error:  # the wallet moved meanwhile: the player decides
            log.info("table %s: %s's rebuy refused: %s", runner.table_id, account, error)
            player.auto_rebuy = False
            continue
        log.info("table %s: %s buys in again for %d", runner.table_id, account, amount)
        await runner._handle(table.add_chips(seat, amount, now), now)
        if player.sitting_out:  # what it owes is posted, or asked for without auto-post
            await runner._handle(table.sit_in(seat, now, Entry.POST), now)

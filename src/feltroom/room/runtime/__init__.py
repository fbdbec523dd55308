"""The room at runtime: every table driven on the clock, house bots, and one writer for the books.

- **One task per table** (``TableRunner``, ``cash_table.py``; a tournament's
  ``TournamentRunner``, ``tournament.py``: both on the hosting core, ``clocked.py``) drives its
  ``Table`` with the clock (``tick(now)``): it deals when a hand is due, lets house bots act
  when their (short) thinking time is up, and books what the table reports through
  ``Settlement``: buy-ins, the hand's settlement, seats left or released after sitting out too
  long (R-SIT-2), session fees.
- **One writer** (``Writer``, ``writer.py``): a thread that owns every write to the books.
  Requests queue up while it commits; it settles all the hands that are waiting in ONE transaction
  (``Settlement.settle_hands`` with ``begin_next``, a group commit that also hands each table the
  id of its next hand), so the room settles hundreds of hands per second on SQLite with
  ``synchronous=FULL``. Each table waits for its own request, so its books stay in order.
- **Isolation**: an exception at one table (its bots, its table, its books) pauses that table
  only: its hand is voided (``Settlement.void_hand``), the table is rebuilt from the books, so
  every stack is back at its start-of-hand value (nothing moves in the ledger during a hand), and
  the error is logged with the table and hand id. After ``error_pause`` seconds it plays again.
- **Crash policy**: at start every hand left unsettled is void (``void_unsettled``) and every
  table is rebuilt from the stored stacks (their start-of-hand values); hand ids come from the
  database and are never reused.
- **R-RNG-2**: the shuffle self-test runs on a daily schedule; the result is logged.
- **R-TIME-3**: when the table would protect a player whose time ran out, the runner asks
  ``Accounts.consume_protection`` (the allowance is per account, across all tables).
- **Listeners** (``RoomRuntime.add_listener``): every batch of events a table reports, and the
  room's own (``feltroom.room.events``), is published to them synchronously, in order, before it
  is booked; a listener that raises is logged and the table goes on.
- **A person's seat**: every command a person may give (``act``, ``add_chips``, ``show`` ...)
  runs under the table's lock and is refused with a typed error, changing nothing, when it is
  not valid. A disconnected player who has not resumed after ``disconnect_grace`` seconds is sat
  out (the seat is kept; R-SIT-2 releases it later as for anyone sitting out).

Time is injected (``clock``); ``advance(now)`` drives every table to ``now`` for tests with a fake
clock, ``run()`` drives them on the real clock.

Modules: docs/architecture.md draws the package and its layers (an import-linter contract).
"""

from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.host import Listener, TournamentListener, WatchedTable
from feltroom.room.runtime.outcomes import hand_record, player_outcomes
from feltroom.room.runtime.room import RoomRuntime, closed_tables, define_table
from feltroom.room.runtime.settings import SETTLEMENT_BUCKETS, Randomness, RuntimeSettings
from feltroom.room.runtime.writer import GroupStorage, Writer

__all__ = [
    "SETTLEMENT_BUCKETS",
    "GroupStorage",
    "Listener",
    "Randomness",
    "RoomRuntime",
    "RuntimeSettings",
    "TableRunner",
    "TournamentListener",
    "WatchedTable",
    "Writer",
    "closed_tables",
    "define_table",
    "hand_record",
    "player_outcomes",
]

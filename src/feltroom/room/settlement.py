"""Settlement: the money side of the tables, as the table runtime calls it.

Chips at a table live in that table's escrow account; how they split between the players there is
the table's stacks, which the room stores with every change so that the audit can check, from the
database alone, that each escrow equals the stacks at its table.

- ``buy_in`` moves chips wallet -> escrow (sitting down, or adding chips between hands);
  ``default_buy_in`` is the amount to offer (R-BUYIN-2: the whole balance, capped by the table
  maximum).
- ``reset_stack`` books a ``reset_stacks`` table's reset between hands: the difference between
  the stack and the buy-in, wallet -> escrow or escrow -> wallet.
- ``leave`` returns the stack escrow -> wallet (also for a seat released after sitting out too
  long, R-SIT-2), and any chips still pending.
- ``pend_chips`` takes chips bought during a hand wallet -> the player's pending account (R-BUYIN-3:
  they never enter the hand in progress); ``apply_pending`` moves them into the escrow when the
  hand has ended, up to the table maximum then, and the rest back to the wallet.
- ``begin_hand`` hands out a hand id that is never reused; ``settle_hand`` settles the hand in ONE
  transaction together with its record: rake and fees escrow -> house, tax withheld escrow -> tax
  (R-TAX-1), each player's contribution and payout, the new stacks. A hand is settled or voided
  once: a second attempt raises ``AlreadySettled``.
- ``void_hand`` (and ``void_unsettled`` after a restart) voids a hand: nothing moved while it was
  played, so every stack stays at its start-of-hand value.

In a cluster (docs/cluster.md) a worker's settlement has a ``fence``: every write about a table
(buy-ins, leaving, session fees, a new hand, the settlement of hands) first checks, in its own
transaction, that the worker still holds the table's lease at its epoch (``LeaseLost``
otherwise, and nothing is written); and a ``shard``: the worker's name, whose own house and tax
sub-accounts (``house:<CUR>:<shard>``, ``tax:<CUR>:<shard>``) take its rake, fees and tax, so that
the settlements of several workers never queue on one balance row (the audit sums by kind).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from feltroom.deal_proof import SCHEME, CommittedDeck
from feltroom.room.errors import (
    AlreadySettled,
    InsufficientFunds,
    RoomError,
    StackMismatch,
    UnknownAccount,
)
from feltroom.room.ledger import (
    AccountKind,
    Transfer,
    TransferKind,
    check_same_currency,
    currency,
    ensure_system_account,
    ensure_wallet,
    escrow_key,
    new_transfer,
    operator_reference,
    pending_key,
    player_owner,
    player_pending_key,
    player_wallet_key,
    system_key,
    valid_name,
)
from feltroom.room.protection import check_stake
from feltroom.room.storage import (
    HandDealRow,
    HandPlayerRow,
    SeatRow,
    Storage,
    TableRow,
    Transaction,
)

if TYPE_CHECKING:
    from feltroom.room.leases import Fence

__all__ = [
    "HandOutcome",
    "PlayerOutcome",
    "SettledHand",
    "Settlement",
    "TaxRule",
    "void_hands",
]


@dataclass(frozen=True, slots=True)
class TaxRule:
    """Winnings tax (R-TAX-1): ``percent`` of a hand's net win above ``threshold`` units is
    withheld, rounded down to the unit. Off unless a table sets it."""

    threshold: int
    percent: Decimal

    def __post_init__(self) -> None:
        if self.threshold < 0:
            raise RoomError(f"tax_threshold must be 0 or more, not {self.threshold}")
        if not Decimal(0) <= Decimal(self.percent) <= Decimal(100):
            raise RoomError(f"tax_percent must be between 0 and 100, not {self.percent}")

    def withheld(self, net_win: int) -> int:
        """The tax on a net win: ``floor((net_win - threshold) * percent / 100)``, or 0."""
        above = net_win - self.threshold
        if above <= 0:
            return 0
        return int(above * Fraction(Decimal(self.percent)) / 100)


@dataclass(frozen=True, slots=True)
class PlayerOutcome:
    """One player dealt into a hand, as the table reports it at the end of the hand.

    ``payout`` is what the player won from the pots before any tax. ``hole`` is the hole cards as
    text; ``showdown``: the player stayed to the showdown (R-HIST-2 reveals those cards to the
    hand's players, mucked or not); ``shown``: they were shown face up at the table.
    """

    player: str
    seat: int
    start_stack: int
    contribution: int
    payout: int
    hole: str
    showdown: bool = False
    shown: bool = False


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """A finished hand to settle.

    ``rake`` and ``fee`` (a collection fee, R-RAKE-4) go to the house; contributions must equal
    payouts plus rake plus fee. ``settings`` are the table settings the hand was played under;
    ``record`` is the public record (actions, board, cards shown at the table): it must not hold
    hole cards that were not shown, which live only in ``players``. ``deal`` is the committed
    deck the hand was dealt from (verifiable deals): kept with the hand, secret, for proofs.
    """

    hand_id: int
    table_id: str
    players: tuple[PlayerOutcome, ...]
    rake: int = 0
    fee: int = 0
    tax: TaxRule | None = None
    settings: Mapping[str, Any] = field(default_factory=_empty)
    record: Mapping[str, Any] = field(default_factory=_empty)
    deal: CommittedDeck | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class SettledHand:
    """The result of a settlement: each player's stack after the hand and the tax withheld
    (the table must take the tax off its stacks: the engine does not know about it)."""

    hand_id: int
    stacks: Mapping[str, int]
    tax: Mapping[str, int]
    next_hand_id: int | None = None


class Settlement:
    """The ledger side of tables: buy-ins, leaving, and settling or voiding hands."""

    def __init__(
        self,
        storage: Storage,
        clock: Callable[[], float] = time.time,
        *,
        fence: Fence | None = None,
        shard: str | None = None,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.fence = fence
        self.shard = None if shard is None else valid_name(shard, "worker name")
        # Whether real-money buy-ins need a verified account (the room turns it on, issue 25).
        self.require_verified = False
        # Rows that never change once committed: a group commit need not read them again.
        self._tables: dict[str, TableRow] = {}
        self._system_accounts: set[str] = set()
        self._json_cache: dict[int, tuple[Mapping[str, Any], str]] = {}

    # -- tables and seats

    def open_table(self, table_id: str, code: str) -> TableRow:
        """Register a table and its escrow in currency ``code`` (idempotent)."""
        valid_name(table_id, "table id")
        currency(code)
        with self.storage.transaction() as tx:
            row = tx.get_table(table_id)
            if row is None:
                row = TableRow(table_id, code)
                tx.add_table(row)
                tx.create_account(escrow_key(table_id), AccountKind.ESCROW.value, code, table_id)
            check_same_currency(row.currency, code, f"table {table_id}")
            return row

    def seats(self, table_id: str) -> dict[str, SeatRow]:
        """The stored stacks at a table (what a restarted runtime seats its players with)."""
        with self.storage.transaction(write=False) as tx:
            self._table(tx, table_id)
            return {row.player: row for row in tx.seats_at(table_id)}

    def default_buy_in(self, table_id: str, player: str, maximum: int | None) -> int:
        """The buy-in to offer (R-BUYIN-2): the player's whole balance in the table's currency,
        capped by the table maximum less the chips they already have there."""
        with self.storage.transaction(write=False) as tx:
            table = self._table(tx, table_id)
            self._player(tx, player)
            wallet = tx.get_account(player_wallet_key(tx, player, table.currency))
            balance = 0 if wallet is None else wallet.balance
            seat = tx.get_seat(table_id, player)
        if maximum is None:
            return balance
        return max(0, min(balance, maximum - (0 if seat is None else seat.stack)))

    def buy_in(
        self, table_id: str, player: str, seat: int, amount: int, reference: str | None = None
    ) -> SeatRow:
        """Move ``amount`` units wallet -> escrow and add them to the player's stack.

        The table checks its buy-in bounds (R-BUYIN-1); this refuses what the wallet does not
        hold, and a seat number that differs from the player's current seat at the table.
        ``reference``: the transfer's (default ``table:<id>``; a home game's names its buy-in or
        rebuy, which its ledger reads).
        """
        _check_units(amount, "buy-in")
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._known_table(tx, table_id)
            self._fenced(tx, table_id)
            self._player(tx, player)
            check_stake(
                tx, player, table.currency, amount, now, require_verified=self.require_verified
            )
            wallet = ensure_wallet(tx, player, table.currency)
            if wallet.balance < amount:
                raise InsufficientFunds(
                    wallet.key,
                    wallet.balance,
                    amount,
                    f"{player} holds {wallet.balance} units of {table.currency}; "
                    f"a buy-in of at most {wallet.balance} is possible",
                )
            current = tx.get_seat(table_id, player)
            if current is not None and current.seat != seat:
                raise RoomError(f"{player} already sits in seat {current.seat} at {table_id}")
            tx.post_transfer(
                new_transfer(
                    TransferKind.BUY_IN,
                    table.currency,
                    wallet.key,
                    escrow_key(table_id),
                    amount,
                    reference or f"table:{table_id}",
                    now,
                )
            )
            row = SeatRow(table_id, player, seat, amount + (current.stack if current else 0))
            tx.put_seat(row)
            return row

    def pend_chips(
        self, table_id: str, player: str, amount: int, reference: str | None = None
    ) -> int:
        """Move ``amount`` units wallet -> the player's pending account at the table (chips
        added during a hand, R-BUYIN-3); returns the units pending now. Refuses what the wallet
        does not hold and a player without a seat at the table. ``reference`` as ``buy_in``'s."""
        _check_units(amount, "chips to add")
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._known_table(tx, table_id)
            if tx.get_seat(table_id, player) is None:
                raise UnknownAccount(f"{player!r} has no seat at table {table_id}")
            check_stake(
                tx,
                player,
                table.currency,
                amount,
                now,
                require_verified=self.require_verified,
                what="chips added",
            )
            wallet = ensure_wallet(tx, player, table.currency)
            if wallet.balance < amount:
                raise InsufficientFunds(
                    wallet.key,
                    wallet.balance,
                    amount,
                    f"{player} holds {wallet.balance} units of {table.currency}; "
                    f"at most {wallet.balance} can be added",
                )
            owner = player_owner(tx, player)
            pending = tx.create_account(
                pending_key(table_id, owner), AccountKind.PENDING.value, table.currency, owner
            )
            tx.post_transfer(
                new_transfer(
                    TransferKind.BUY_IN,
                    table.currency,
                    wallet.key,
                    pending.key,
                    amount,
                    reference or f"table:{table_id}",
                    now,
                )
            )
            return pending.balance + amount

    def pending_chips(self, table_id: str) -> dict[str, int]:
        """The units pending at the table, by player (those with any)."""
        with self.storage.transaction(write=False) as tx:
            found: dict[str, int] = {}
            for row in tx.seats_at(table_id):
                account = tx.get_account(player_pending_key(tx, table_id, row.player))
                if account is not None and account.balance > 0:
                    found[row.player] = account.balance
            return found

    def apply_pending(self, table_id: str, player: str, room: int | None) -> tuple[int, int]:
        """After a hand: the player's pending units go pending -> escrow onto the stack, at
        most ``room`` of them (the table maximum less the stack; ``None``: no maximum), and the
        rest pending -> wallet. Returns (added, returned)."""
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._known_table(tx, table_id)
            account = tx.get_account(player_pending_key(tx, table_id, player))
            held = 0 if account is None else account.balance
            seat = tx.get_seat(table_id, player)
            if account is None or held == 0:
                return 0, 0
            added = held if seat is None or room is None else max(0, min(held, room))
            if seat is None:
                added = 0
            moves = [(added, escrow_key(table_id), TransferKind.BUY_IN)]
            wallet = ensure_wallet(tx, player, table.currency)
            moves.append((held - added, wallet.key, TransferKind.CASH_OUT))
            for amount, credit, kind in moves:
                if amount > 0:
                    tx.post_transfer(
                        new_transfer(
                            kind,
                            table.currency,
                            account.key,
                            credit,
                            amount,
                            f"table:{table_id}",
                            now,
                        )
                    )
            if seat is not None and added:
                tx.put_seat(SeatRow(table_id, player, seat.seat, seat.stack + added))
            return added, held - added

    def leave(
        self,
        table_id: str,
        player: str,
        expected_stack: int | None = None,
        entry: int | None = None,
    ) -> int:
        """Return the player's stack escrow -> wallet and free the seat; returns the amount.

        Used when a player leaves and when a seat is released after sitting out too long
        (R-SIT-2). ``expected_stack`` is the table's own figure; a disagreement is refused.
        ``entry``: the operator log entry whose action made the player leave (a suspension, a
        kick, a table closed); the transfers name it (``operator_reference``).
        """
        now = self.clock()
        reference = f"table:{table_id}"
        if entry is not None:
            reference = operator_reference(reference, entry)
        with self.storage.transaction() as tx:
            table = self._table(tx, table_id)
            self._fenced(tx, table_id)
            seat = self._seat(tx, table_id, player)
            if expected_stack is not None and expected_stack != seat.stack:
                raise StackMismatch(
                    f"the table says {player} has {expected_stack}; the books say {seat.stack}"
                )
            pending = tx.get_account(player_pending_key(tx, table_id, player))
            if pending is not None and pending.balance > 0:  # chips bought during the hand
                tx.post_transfer(
                    new_transfer(
                        TransferKind.CASH_OUT,
                        table.currency,
                        pending.key,
                        ensure_wallet(tx, player, table.currency).key,
                        pending.balance,
                        reference,
                        now,
                    )
                )
            if seat.stack:
                wallet = ensure_wallet(tx, player, table.currency)
                tx.post_transfer(
                    new_transfer(
                        TransferKind.CASH_OUT,
                        table.currency,
                        escrow_key(table_id),
                        wallet.key,
                        seat.stack,
                        reference,
                        now,
                    )
                )
            tx.delete_seat(table_id, player)
            return seat.stack

    def charge_session_fee(self, table_id: str, player: str, amount: int) -> int:
        """A session fee (R-RAKE-4) between hands: escrow -> house, off the player's stack.
        Returns the new stack."""
        _check_units(amount, "session fee")
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._table(tx, table_id)
            seat = self._seat(tx, table_id, player)
            if seat.stack < amount:
                raise InsufficientFunds(f"stack of {player} at {table_id}", seat.stack, amount)
            self._fenced(tx, table_id)
            house = ensure_system_account(tx, AccountKind.HOUSE, table.currency, self.shard)
            tx.post_transfer(
                new_transfer(
                    TransferKind.FEE,
                    table.currency,
                    escrow_key(table_id),
                    house.key,
                    amount,
                    f"session:{table_id}:{player}",
                    now,
                )
            )
            tx.put_seat(SeatRow(table_id, player, seat.seat, seat.stack - amount))
            return seat.stack - amount

    def reset_stack(self, table_id: str, player: str, before: int, after: int) -> int:
        """A ``reset_stacks`` table set the player's stack from ``before`` back to the buy-in,
        ``after``, between hands: the difference moves wallet -> escrow (``buy_in``) or
        escrow -> wallet (``cash_out``). Refused (nothing moves) when the books' stack is not
        ``before`` or the wallet cannot pay. Returns the new stack."""
        _check_units(after, "stack")
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._table(tx, table_id)
            seat = self._seat(tx, table_id, player)
            if seat.stack != before:
                raise StackMismatch(
                    f"the table reset {player}'s stack from {before}; the books say {seat.stack}"
                )
            wallet = ensure_wallet(tx, player, table.currency)
            escrow = escrow_key(table_id)
            if after > before:
                if wallet.balance < after - before:
                    raise InsufficientFunds(
                        wallet.key,
                        wallet.balance,
                        after - before,
                        f"{player} holds {wallet.balance} units of {table.currency}; the stack "
                        f"cannot be brought back to {after}",
                    )
                kind, debit, credit = TransferKind.BUY_IN, wallet.key, escrow
            else:
                kind, debit, credit = TransferKind.CASH_OUT, escrow, wallet.key
            if after != before:
                tx.post_transfer(
                    new_transfer(
                        kind,
                        table.currency,
                        debit,
                        credit,
                        abs(after - before),
                        f"reset:{table_id}",
                        now,
                    )
                )
            tx.put_seat(SeatRow(table_id, player, seat.seat, after))
            return after

    # -- hands

    def begin_hand(self, table_id: str) -> int:
        """A new hand id at this table: never returned before, even across restarts."""
        now = self.clock()
        with self.storage.transaction() as tx:
            table = self._table(tx, table_id)
            self._fenced(tx, table_id)
            return tx.new_hand(table_id, table.currency, now)

    def settle_hand(self, outcome: HandOutcome, *, begin_next: bool = False) -> SettledHand:
        """Settle a finished hand and store its record, all in one transaction.

        With ``begin_next`` the same transaction also starts the table's next hand, whose id is
        ``next_hand_id`` of the result: one commit per hand instead of two.
        """
        return self.settle_hands([outcome], begin_next=begin_next)[0]

    def settle_hands(
        self, outcomes: Sequence[HandOutcome], *, begin_next: bool = False
    ) -> list[SettledHand]:
        """Settle hands of several tables in one transaction (a group commit): all of them or,
        if any is refused, none. Each hand is stored together with its own record.

        The writes are batched: a few statements for the whole group (the ledger totals per
        account, one insert of the transfers, of the hands' players, one update of the hands
        and of the seats), so that a group of many hands costs little more than one.
        """
        checked = [_check_outcome(outcome) for outcome in outcomes]
        if not outcomes:
            return []
        now = self.clock()
        with self.storage.transaction() as tx:
            table_ids = list(dict.fromkeys(o.table_id for o in outcomes))
            tables = {table_id: self._known_table(tx, table_id) for table_id in table_ids}
            for table_id in table_ids:  # the lease rows stay locked until the commit
                self._fenced(tx, table_id)
            hands = tx.get_hands([o.hand_id for o in outcomes])
            seats = {(r.table_id, r.player): r for r in tx.seats_at_tables(table_ids)}
            system: dict[tuple[AccountKind, str], str] = {}
            known = self._system_accounts
            transfers: list[Transfer] = []
            finished: list[tuple[int, str, float, int, int, int, str, str]] = []
            rows: list[HandPlayerRow] = []
            deals: list[HandDealRow] = []
            changed: dict[tuple[str, str], SeatRow] = {}
            seen: set[int] = set()
            for outcome, (taxes, stacks) in zip(outcomes, checked, strict=True):
                table = tables[outcome.table_id]
                code = table.currency
                hand = hands.get(outcome.hand_id)
                if hand is None or hand.table_id != outcome.table_id:
                    raise UnknownAccount(
                        f"no hand {outcome.hand_id} at table {outcome.table_id}; see begin_hand"
                    )
                if hand.status != "started" or outcome.hand_id in seen:
                    status = hand.status if hand.status != "started" else "settled"
                    raise AlreadySettled(
                        f"hand {outcome.hand_id} is already {status}; nothing is settled twice"
                    )
                seen.add(outcome.hand_id)
                for p in outcome.players:
                    seat = seats.get((outcome.table_id, p.player))
                    if seat is None or seat.seat != p.seat or seat.stack != p.start_stack:
                        books = (
                            "no seat" if seat is None else f"seat {seat.seat}, stack {seat.stack}"
                        )
                        raise StackMismatch(
                            f"hand {outcome.hand_id}: {p.player} in seat {p.seat} with "
                            f"{p.start_stack} at the start; the books say {books}"
                        )
                escrow = escrow_key(outcome.table_id)
                reference = f"hand:{outcome.hand_id}"
                for amount, kind, account in (
                    (outcome.rake, TransferKind.RAKE, AccountKind.HOUSE),
                    (outcome.fee, TransferKind.FEE, AccountKind.HOUSE),
                ):
                    if amount:
                        credit = self._system(tx, system, known, account, code, self.shard)
                        transfers.append(
                            new_transfer(kind, code, escrow, credit, amount, reference, now)
                        )
                for player, amount in taxes.items():
                    if amount:
                        credit = self._system(tx, system, known, AccountKind.TAX, code, self.shard)
                        transfers.append(
                            new_transfer(
                                TransferKind.TAX,
                                code,
                                escrow,
                                credit,
                                amount,
                                f"{reference}:{player}",
                                now,
                            )
                        )
                finished.append(
                    (
                        outcome.hand_id,
                        "settled",
                        now,
                        outcome.rake,
                        outcome.fee,
                        sum(taxes.values()),
                        self._settings_json(outcome.settings),
                        json.dumps(dict(outcome.record), sort_keys=True, default=str),
                    )
                )
                if outcome.deal is not None:
                    deck, salts = outcome.deal.stored()
                    deals.append(
                        HandDealRow(outcome.hand_id, SCHEME, outcome.deal.commitment, deck, salts)
                    )
                for p in outcome.players:
                    rows.append(
                        HandPlayerRow(
                            outcome.hand_id,
                            p.player,
                            p.seat,
                            p.start_stack,
                            p.contribution,
                            p.payout - taxes[p.player],
                            taxes[p.player],
                            p.hole,
                            p.showdown,
                            p.shown,
                        )
                    )
                    row = SeatRow(outcome.table_id, p.player, p.seat, stacks[p.player])
                    seats[outcome.table_id, p.player] = changed[outcome.table_id, p.player] = row
            tx.post_transfers(transfers)
            if tx.finish_hands(finished) != len(finished):
                raise AlreadySettled("a hand of the group was settled or voided meanwhile")
            tx.add_hand_players(rows)
            tx.add_hand_deals(deals)
            tx.update_seats(list(changed.values()))
            next_ids: list[int | None] = [None] * len(outcomes)
            if begin_next:
                next_ids = list(
                    tx.new_hands([(o.table_id, tables[o.table_id].currency) for o in outcomes], now)
                )
        known.update(system.values())  # committed: they exist from now on
        return [
            SettledHand(o.hand_id, MappingProxyType(stacks), MappingProxyType(taxes), next_id)
            for o, (taxes, stacks), next_id in zip(outcomes, checked, next_ids, strict=True)
        ]

    def forget(self) -> None:
        """Drop what is kept of committed rows (after a transaction shared with other work,
        ``feltroom.room.runtime``'s group commits, failed to commit)."""
        self._tables.clear()
        self._system_accounts.clear()

    def _settings_json(self, settings: Mapping[str, Any]) -> str:
        """The settings as JSON text; a table passes the same mapping with every hand, so the
        text of the last few mappings is kept (by identity, with the mapping itself)."""
        cached = self._json_cache.get(id(settings))
        if cached is not None and cached[0] is settings:
            return cached[1]
        text = json.dumps(dict(settings), sort_keys=True, default=str)
        if len(self._json_cache) >= 256:
            self._json_cache.clear()
        self._json_cache[id(settings)] = (settings, text)
        return text

    @staticmethod
    def _system(
        tx: Transaction,
        cache: dict[tuple[AccountKind, str], str],
        known: set[str],
        kind: AccountKind,
        code: str,
        shard: str | None,
    ) -> str:
        key = cache.get((kind, code))
        if key is None:
            key = system_key(kind, code, shard)
            if key not in known:
                key = ensure_system_account(tx, kind, code, shard).key
            cache[kind, code] = key
        return key

    def _fenced(self, tx: Transaction, table_id: str) -> None:
        """In a cluster: refuse (``LeaseLost``) unless this worker still owns the table."""
        if self.fence is not None:
            self.fence.check(tx, table_id)

    def _known_table(self, tx: Transaction, table_id: str) -> TableRow:
        row = self._tables.get(table_id)
        if row is None:
            row = self._tables[table_id] = self._table(tx, table_id)
        return row

    def void_hand(self, hand_id: int, reason: str = "") -> None:
        """Void a hand that has not settled: nothing moved during it, so every stack stays at
        its start-of-hand value. A settled or already voided hand raises ``AlreadySettled``."""
        now = self.clock()
        record = json.dumps({"void": reason})
        with self.storage.transaction() as tx:
            hand = tx.get_hand(hand_id)
            if hand is None:
                raise UnknownAccount(f"no hand {hand_id}")
            if not tx.finish_hand(hand_id, "void", now, 0, 0, 0, "{}", record):
                raise AlreadySettled(f"hand {hand_id} is already {hand.status}")

    def discard_hand(self, hand_id: int) -> bool:
        """Drop a hand id the table began but never dealt (a table handed over between hands,
        docs/cluster.md): no hand was played, so none is void. Fenced in a cluster; False (and
        nothing changed) if the hand was dealt, settled or void."""
        with self.storage.transaction() as tx:
            hand = tx.get_hand(hand_id)
            if hand is None:
                raise UnknownAccount(f"no hand {hand_id}")
            self._fenced(tx, hand.table_id)
            return tx.discard_hand(hand_id)

    def void_unsettled(self, table_id: str | None = None, reason: str = "restart") -> list[int]:
        """Void every hand left unsettled (after a crash), at one table or all; returns them."""
        with self.storage.transaction() as tx:
            if table_id is not None:
                self._fenced(tx, table_id)  # never another worker's hand
            return void_hands(tx, table_id, reason, self.clock())

    # -- helpers

    @staticmethod
    def _table(tx: Transaction, table_id: str) -> TableRow:
        row = tx.get_table(table_id)
        if row is None:
            raise UnknownAccount(f"no table {table_id!r}; open it first (Settlement.open_table)")
        return row

    @staticmethod
    def _seat(tx: Transaction, table_id: str, player: str) -> SeatRow:
        seat = tx.get_seat(table_id, player)
        if seat is None:
            raise UnknownAccount(f"{player!r} has no seat at table {table_id}")
        return seat

    @staticmethod
    def _player(tx: Transaction, player: str) -> None:
        if tx.get_user(player) is None:
            raise UnknownAccount(f"no player account named {player!r}")


def void_hands(tx: Transaction, table_id: str | None, reason: str, now: float) -> list[int]:
    """Void, in ``tx``, every hand left unsettled at one table (or all); returns their ids."""
    record = json.dumps({"void": reason})
    hands = tx.unsettled_hands(table_id)
    for hand_id in hands:
        tx.finish_hand(hand_id, "void", now, 0, 0, 0, "{}", record)
    return hands


def _check_units(value: int, what: str, zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        least = 0 if zero else 1
        raise RoomError(f"{what} must be a whole number of units, at least {least}, not {value!r}")


def _check_outcome(outcome: HandOutcome) -> tuple[dict[str, int], dict[str, int]]:
    """Validate a hand's money; returns each player's tax and stack after the hand."""
    players = outcome.players
    names = [p.player for p in players]
    if len(set(names)) != len(names) or len({p.seat for p in players}) != len(players):
        raise RoomError(f"hand {outcome.hand_id}: a player or seat appears twice: {names}")
    for value, what in ((outcome.rake, "rake"), (outcome.fee, "fee")):
        _check_units(value, what, zero=True)
    for p in players:
        _check_units(p.contribution, f"{p.player}'s contribution", zero=True)
        _check_units(p.payout, f"{p.player}'s payout", zero=True)
        if p.contribution > p.start_stack:
            raise StackMismatch(
                f"{p.player} put in {p.contribution} with a stack of {p.start_stack}"
            )
    paid_in = sum(p.contribution for p in players)
    paid_out = sum(p.payout for p in players) + outcome.rake + outcome.fee
    if paid_in != paid_out:
        raise RoomError(
            f"hand {outcome.hand_id}: contributions {paid_in} must equal payouts plus rake "
            f"and fee, {paid_out}"
        )
    taxes = {
        p.player: (outcome.tax.withheld(p.payout - p.contribution) if outcome.tax else 0)
        for p in players
    }
    stacks = {
        p.player: p.start_stack - p.contribution + p.payout - taxes[p.player] for p in players
    }
    return taxes, stacks

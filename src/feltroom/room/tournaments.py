"""A tournament's money in the books (R-TOURN-2, R-TOURN-11, R-TOURN-13).

The director (``feltroom.tournament``) decides; this books its money events in the double-entry
ledger, each call in one transaction (all or nothing):

- ``Registered``: checked (balance, loss limits, cool-off, exclusion, verification) and, in the
  same transaction, the buy-in from the wallet into ``prizepool:<id>`` (transfer kind ``entry``)
  and the fee from the wallet to the house (``entry_fee``);
- ``Refunded``: the buy-in from the prize pool and the fee from the house back to the wallet
  (``refund``);
- ``RegistrationClosed``: a guarantee's overlay from the house into the prize pool (``overlay``);
- ``PlaceFinal``, ``ForfeitPaid`` and ``CancellationPaid``: the prize from the prize pool into
  the wallet (``prize``).

Tournament chips are not money: tournament tables have no escrow and no hand of theirs is
settled here. Every prize comes out of the prize pool, so a finished tournament's pool is empty
and no prize can be paid twice over (the pool would go below zero, which the store refuses).

The room's tournament runtime (``feltroom.room.runtime.tournament``) books through this in the
same transaction as the director's journal (``feltroom.room.tournament_journal``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from feltroom.money import format_units
from feltroom.room.errors import InsufficientFunds, UnknownAccount
from feltroom.room.ledger import (
    AccountKind,
    Transfer,
    TransferKind,
    currency,
    ensure_system_account,
    ensure_wallet,
    new_transfer,
    operator_reference,
    player_wallet_key,
    valid_name,
)
from feltroom.room.protection import check_stake
from feltroom.room.storage import Storage, Transaction
from feltroom.tournament import (
    CancellationPaid,
    ForfeitPaid,
    Output,
    PlaceFinal,
    Refunded,
    Registered,
    RegistrationClosed,
)

__all__ = ["TournamentBooks", "prizepool_key"]


def prizepool_key(tournament_id: str) -> str:
    return f"prizepool:{tournament_id}"


class TournamentBooks:
    """The money of tournament ``tournament_id`` in currency ``code``."""

    def __init__(
        self,
        storage: Storage,
        tournament_id: str,
        code: str,
        *,
        clock: Callable[[], float] = time.time,
        require_verified: bool = True,
        operator_entry: int | None = None,
    ) -> None:
        self.storage = storage
        self.require_verified = require_verified
        # The operator log entry whose action these books carry out (a cancellation): every
        # transfer's reference names it (``operator_reference``), which the audit checks.
        self.operator_entry = operator_entry
        self.tournament_id = valid_name(tournament_id, "tournament id")
        self.currency = currency(code)
        self.code = code
        self.pool = prizepool_key(tournament_id)
        self.clock = clock

    def verify_entry(self, account: str, buy_in: int, fee: int) -> None:
        """``check_entry`` in a read-only transaction of its own: the room's early refusal
        before the director registers the entry (``book_in`` checks again as it books)."""
        with self.storage.transaction(write=False) as tx:
            self.check_entry(tx, account, buy_in, fee, lock=False)

    def check_entry(
        self, tx: Transaction, account: str, buy_in: int, fee: int, *, lock: bool = True
    ) -> None:
        """Raise ``InsufficientFunds`` (or ``UnknownAccount``) unless ``account`` can pay an
        entry now, ``ProtectionRefused`` during its cool-off or self-exclusion, at real money
        when it is unverified (``require_verified``) or the entry would take its net losses
        over a loss limit. ``book_in`` makes this check in the transaction that books the entry
        (the account's row locked, ``lock``, on PostgreSQL), so that entries sent at once are
        checked one after the other, each against what the others booked."""
        if tx.get_user(account, lock=lock) is None:
            raise UnknownAccount(f"no player account named {account!r}")
        check_stake(
            tx,
            account,
            self.code,
            buy_in + fee,
            self.clock(),
            require_verified=self.require_verified,
            what="tournament entry",
        )
        key = player_wallet_key(tx, account, self.code)
        wallet = tx.get_account(key)
        balance = wallet.balance if wallet is not None else 0
        cost = buy_in + fee
        if balance < cost:
            text = format_units
            raise InsufficientFunds(
                key,
                balance,
                cost,
                f"{account} holds {text(balance, self.currency)} {self.code}; the entry costs "
                f"{text(buy_in, self.currency)} + {text(fee, self.currency)} fee",
            )

    def book(self, outputs: Iterable[Output]) -> list[Transfer]:
        """Book the money among ``outputs`` (the rest are not money) in one transaction."""
        with self.storage.transaction() as tx:
            return self.book_in(tx, outputs)

    def book_in(self, tx: Transaction, outputs: Iterable[Output]) -> list[Transfer]:
        """``book`` within the caller's transaction ``tx`` (with other writes of its own). Each
        entry (``Registered``) is checked first (``check_entry``): a refusal raises and books
        nothing."""
        outputs = list(outputs)
        for out in outputs:
            if isinstance(out, Registered):
                self.check_entry(tx, out.account, out.buy_in, out.fee)
        now = self.clock()
        house = ensure_system_account(tx, AccountKind.HOUSE, self.code).key
        owner = f"tournament:{self.tournament_id}"  # never a player's name
        tx.create_account(self.pool, AccountKind.PRIZEPOOL.value, self.code, owner)
        transfers: list[Transfer] = []
        for out in outputs:
            transfers += self._transfers(tx, out, house, now)
        tx.post_transfers(transfers)
        return transfers

    def pool_left(self) -> int:
        """What the prize pool holds now."""
        with self.storage.transaction(write=False) as tx:
            row = tx.get_account(self.pool)
            return row.balance if row is not None else 0

    def _transfers(self, tx: Transaction, out: Output, house: str, now: float) -> list[Transfer]:
        code, pool, tid = self.code, self.pool, self.tournament_id
        moves: list[tuple[TransferKind, str, str, int, str]] = []
        if isinstance(out, Registered):
            wallet = ensure_wallet(tx, out.account, code).key
            ref = f"tournament:{tid}:entry:{out.entry}"
            moves += [
                (TransferKind.ENTRY, wallet, pool, out.buy_in, ref),
                (TransferKind.ENTRY_FEE, wallet, house, out.fee, ref),
            ]
        elif isinstance(out, Refunded):
            wallet = ensure_wallet(tx, out.account, code).key
            ref = f"tournament:{tid}:refund:{out.entry}"
            moves += [
                (TransferKind.REFUND, pool, wallet, out.buy_in, ref),
                (TransferKind.REFUND, house, wallet, out.fee, ref),
            ]
        elif isinstance(out, RegistrationClosed):
            moves.append((TransferKind.OVERLAY, house, pool, out.overlay, f"tournament:{tid}"))
        elif isinstance(out, PlaceFinal | CancellationPaid):
            wallet = ensure_wallet(tx, out.account, code).key
            amount = out.prize if isinstance(out, PlaceFinal) else out.amount
            ref = f"tournament:{tid}:prize:{out.entry}"
            moves.append((TransferKind.PRIZE, pool, wallet, amount, ref))
        elif isinstance(out, ForfeitPaid):
            wallet = ensure_wallet(tx, out.account, code).key
            ref = f"tournament:{tid}:forfeit:{out.entry}"
            moves.append((TransferKind.PRIZE, pool, wallet, out.amount, ref))
        entry = self.operator_entry
        if entry is not None:
            moves = [(k, d, c, a, operator_reference(ref, entry)) for k, d, c, a, ref in moves]
        return [
            new_transfer(kind, code, debit, credit, amount, ref, now)
            for kind, debit, credit, amount, ref in moves
            if amount > 0
        ]

"""The room (layer ``room``): accounts, the double-entry chip ledger, settlement, hand histories
and the audit. Standard library only; storage comes through the protocols of ``storage``.

See docs/room.md.
"""

from feltroom.room.accounts import Accounts, Argon2Settings, Session
from feltroom.room.audit import audit
from feltroom.room.cashier import Cashier
from feltroom.room.errors import (
    AlreadySettled,
    AuthenticationFailed,
    CurrencyMismatch,
    DuplicateKey,
    IdempotencyConflict,
    InsufficientFunds,
    LeaseLapsed,
    LeaseLost,
    NotAvailable,
    NotSeated,
    RoomError,
    StackMismatch,
    StaleHand,
    StaleTurn,
    UnknownAccount,
    UnknownCurrency,
)
from feltroom.room.events import HandVoided, RoomEvent, TablePaused, TableReloaded, TableResumed
from feltroom.room.histories import HandHistories
from feltroom.room.ledger import CURRENCIES, AccountKind, Transfer, TransferKind
from feltroom.room.settlement import HandOutcome, PlayerOutcome, SettledHand, Settlement, TaxRule
from feltroom.room.storage import Storage, Transaction

__all__ = [
    "CURRENCIES",
    "AccountKind",
    "Accounts",
    "AlreadySettled",
    "Argon2Settings",
    "AuthenticationFailed",
    "Cashier",
    "CurrencyMismatch",
    "DuplicateKey",
    "HandHistories",
    "HandOutcome",
    "HandVoided",
    "IdempotencyConflict",
    "InsufficientFunds",
    "LeaseLapsed",
    "LeaseLost",
    "NotAvailable",
    "NotSeated",
    "PlayerOutcome",
    "RoomError",
    "RoomEvent",
    "Session",
    "SettledHand",
    "Settlement",
    "StackMismatch",
    "StaleHand",
    "StaleTurn",
    "Storage",
    "TablePaused",
    "TableReloaded",
    "TableResumed",
    "TaxRule",
    "Transaction",
    "Transfer",
    "TransferKind",
    "UnknownAccount",
    "UnknownCurrency",
    "audit",
]

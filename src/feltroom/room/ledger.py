"""The double-entry chip ledger (R-GAME-5, R-GAME-6).

Every movement of money is one immutable ``Transfer`` of a positive integer amount from one
account (the *debit* side, which gives) to another (the *credit* side, which receives), with a
unique id. An account's balance is its credits minus its debits; the store keeps it alongside as
a running total that the audit re-derives from the transfers.

Accounts, each in exactly one currency (currencies never mix, R-GAME-6):

========= ============================ ======================================

A player's accounts (wallets, chips pending at a table) are keyed by the account's stable id,
not its name (``wallet:#17:USD``, ``pending:t1:#17``; ``account_owner``).

Because every transfer moves the same amount out of one account and into another, the balances of
all accounts of one currency, the external one included, sum to zero.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from feltroom.money import PLAY, Currency
from feltroom.room.errors import CurrencyMismatch, UnknownAccount, UnknownCurrency

if TYPE_CHECKING:
    from feltroom.room.storage import AccountRow, Transaction

__all__ = [
    "CURRENCIES",
    "OPERATOR_MARK",
    "AccountKind",
    "Transfer",
    "TransferKind",
    "account_owner",
    "check_same_currency",
    "currency",
    "ensure_system_account",
    "ensure_wallet",
    "escrow_key",
    "external_key",
    "home_currency",
    "house_key",
    "is_home_currency",
    "new_transfer",
    "operator_reference",
    "pending_key",
    "player_owner",
    "player_pending_key",
    "player_wallet_key",
    "system_key",
    "tax_key",
    "valid_name",
    "wallet_key",
]

CURRENCIES: dict[str, Currency] = {
    "PLAY": PLAY,
    **{code: Currency(code, 2) for code in ("USD", "EUR", "GBP", "CAD", "AUD", "CHF")},
}
"""The currencies the room keeps: play chips (unit 1) and ISO codes with two decimals."""

OPERATOR_MARK = ":operator:"
"""What a transfer's reference holds before the id of the operator log entry whose action made
it (a suspension, a kick, a table closed: docs/operator.md); ``feltroom audit`` checks it."""


def operator_reference(reference: str, entry_id: int) -> str:
    """A transfer reference that names the operator log entry whose action made it."""
    return f"{reference}{OPERATOR_MARK}{entry_id}"


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


_HOME = re.compile(r"g-[1-9][0-9]{0,5}")


def home_currency(game_id: str) -> str:
    """The currency of a home game's own chips (R-HOME-1): its code is the game's id
    (``g-7``), whole chips, worth nothing outside the game; they mix with no other (R-GAME-6)."""
    if not _HOME.fullmatch(game_id):
        raise UnknownCurrency(f"{game_id!r} is not a home game's id (g-1 to g-999999)")
    return game_id


def is_home_currency(code: str) -> bool:
    """Whether ``code`` is a home game's own chips (``home_currency``)."""
    return bool(_HOME.fullmatch(code))


def currency(code: str) -> Currency:
    """The currency with this code (a home game's own chips included, ``home_currency``), or
    ``UnknownCurrency`` naming the valid codes."""
    found = CURRENCIES.get(code)
    if found is None:
        if is_home_currency(code):
            return Currency(code, 0)
        raise UnknownCurrency(
            f"unknown currency {code!r}; valid: {', '.join(CURRENCIES)} or a home game's "
            "chips (its id, g-N)"
        )
    return found


def valid_name(name: str, what: str = "name") -> str:
    """A player or table name: 1 to 32 letters, digits, '_', '.' or '-', starting alphanumeric."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UnknownAccount(
            f"{what} {name!r} is not valid: use 1 to 32 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


class AccountKind(Enum):
    """What an account is for (see the module's table)."""

    WALLET = "wallet"
    ESCROW = "escrow"
    HOUSE = "house"
    TAX = "tax"
    EXTERNAL = "external"
    PRIZEPOOL = "prizepool"
    PENDING = "pending"  # chips bought during a hand, held until it ends (R-BUYIN-3)


class TransferKind(Enum):
    """Why money moved."""

    DEPOSIT = "deposit"  # external -> wallet (the cashier)
    WITHDRAWAL = "withdrawal"  # wallet -> external (the cashier)
    GRANT = "grant"  # external -> wallet, play money only
    BUY_IN = "buy_in"  # wallet -> escrow (sitting down or adding chips)
    CASH_OUT = "cash_out"  # escrow -> wallet (leaving, or a released seat, R-SIT-2)
    RAKE = "rake"  # escrow -> house, at settlement
    FEE = "fee"  # escrow -> house: a collection fee at settlement, or a session fee
    TAX = "tax"  # escrow -> tax, withheld at settlement (R-TAX-1)
    ENTRY = "entry"  # wallet -> prizepool: a tournament buy-in (R-TOURN-2)
    ENTRY_FEE = "entry_fee"  # wallet -> house: a tournament entry's fee
    REFUND = "refund"  # prizepool or house -> wallet: unregistration, cancellation
    OVERLAY = "overlay"  # house -> prizepool: a guarantee's top-up
    PRIZE = "prize"  # prizepool -> wallet (R-TOURN-11, R-TOURN-13)
    ISSUE = "issue"  # external -> wallet: a home game's own chips, as its host approves a buy-in


def account_owner(account_id: int) -> str:
    """The owner of a player's ledger accounts: the account's stable id (``#17``), never its
    name, so that a renamed account keeps its books and a name signed up again after a removal
    starts new ones. ``#`` is in no valid name."""
    return f"#{account_id}"


def player_owner(tx: Transaction, player: str) -> str:
    """The ledger owner of the player account named ``player`` (``UnknownAccount`` if none)."""
    user = tx.get_user(player)
    if user is None:
        raise UnknownAccount(f"no player account named {player!r} (names are case-sensitive)")
    return account_owner(user.account_id)


def wallet_key(owner: str, code: str) -> str:
    """The key of the wallet of ``owner`` (``account_owner``) in ``code``."""
    return f"wallet:{owner}:{code}"


def player_wallet_key(tx: Transaction, player: str, code: str) -> str:
    """The key of the wallet of the player named ``player`` in ``code``."""
    return wallet_key(player_owner(tx, player), code)


def escrow_key(table_id: str) -> str:
    return f"escrow:{table_id}"


def pending_key(table_id: str, owner: str) -> str:
    """The key of the chips ``owner`` (``account_owner``) bought during a hand at the table."""
    return f"pending:{table_id}:{owner}"


def player_pending_key(tx: Transaction, table_id: str, player: str) -> str:
    """The key of the chips the player named ``player`` bought during a hand at the table."""
    return pending_key(table_id, player_owner(tx, player))


def house_key(code: str) -> str:
    return f"house:{code}"


def tax_key(code: str) -> str:
    return f"tax:{code}"


def external_key(code: str) -> str:
    return f"external:{code}"


@dataclass(frozen=True, slots=True)
class Transfer:
    """One immutable movement of ``amount`` units from ``debit`` to ``credit``."""

    transfer_id: str
    currency: str
    debit: str
    credit: str
    amount: int
    kind: TransferKind
    reference: str
    created_at: float

    def __post_init__(self) -> None:
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount <= 0:
            raise ValueError(
                f"a transfer moves a positive whole number of units, not {self.amount}"
            )
        if self.debit == self.credit:
            raise ValueError(f"a transfer needs two different accounts, not {self.debit} twice")
        currency(self.currency)


def new_transfer(
    kind: TransferKind,
    code: str,
    debit: str,
    credit: str,
    amount: int,
    reference: str = "",
    now: float | None = None,
) -> Transfer:
    """A transfer with a fresh unique id (a random UUID)."""
    return Transfer(
        transfer_id=uuid.uuid4().hex,
        currency=code,
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        reference=reference,
        created_at=time.time() if now is None else now,
    )


def check_same_currency(expected: str, actual: str, what: str) -> None:
    """Refuse to mix currencies (R-GAME-6)."""
    if expected != actual:
        raise CurrencyMismatch(
            f"{what} plays {expected}; {actual} never mixes with it (R-GAME-6): use {expected}"
        )


def ensure_wallet(tx: Transaction, player: str, code: str) -> AccountRow:
    """The wallet of the player named ``player`` in ``code``, created empty on first use."""
    owner = player_owner(tx, player)
    return tx.create_account(wallet_key(owner, code), AccountKind.WALLET.value, code, owner)


def system_key(kind: AccountKind, code: str, shard: str | None = None) -> str:
    """The key of a system account; with ``shard`` (a cluster worker's name), that worker's own
    sub-account, so that workers settling at once never update one balance row."""
    return f"{kind.value}:{code}" if shard is None else f"{kind.value}:{code}:{shard}"


def ensure_system_account(
    tx: Transaction, kind: AccountKind, code: str, shard: str | None = None
) -> AccountRow:
    """The room's house, tax or external account in ``code`` (a house or tax account may be a
    worker's sub-account, ``shard``), created on first use."""
    if kind not in (AccountKind.HOUSE, AccountKind.TAX, AccountKind.EXTERNAL):
        raise ValueError(f"{kind} is not a system account")
    if shard is not None and kind is AccountKind.EXTERNAL:
        raise ValueError("the external account has no sub-accounts")
    key = system_key(kind, code, shard)
    return tx.create_account(key, kind.value, code, kind.value)

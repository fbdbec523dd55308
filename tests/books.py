"""Reading the books in tests: a player's ledger accounts are keyed by the account's stable id,
not its name (``feltroom.room.ledger.account_owner``)."""

from __future__ import annotations

from feltroom.room.ledger import player_wallet_key
from feltroom.room.storage import Storage


def wallet_of(storage: Storage, player: str, code: str) -> str:
    """The key of the wallet of the account named ``player`` in ``code``."""
    with storage.transaction(write=False) as tx:
        return player_wallet_key(tx, player, code)


def wallet_balance(storage: Storage, player: str, code: str) -> int:
    """The units in that wallet (0 when it was never used)."""
    with storage.transaction(write=False) as tx:
        row = tx.get_account(player_wallet_key(tx, player, code))
        return 0 if row is None else row.balance

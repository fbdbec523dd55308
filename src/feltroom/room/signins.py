"""The sign-in log: who signed in from which address and user agent, and when.

The integrity report (docs/integrity.md) looks for accounts that sign in from the same address or
the same browser; the sessions table keeps no address, so every successful sign-in is written
here. Entries are kept for ``retention_days`` (a room setting, default 90) and purged: ``record``
deletes the expired ones at most once per ``purge_every`` seconds, in its own transaction, and
``purge`` does it at once (the operator, or a schedule).

Addresses and user agents are stored as the server saw them, cut to the columns' widths (64 and
255 characters); an empty user agent is stored empty.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from feltroom.room.errors import RoomError
from feltroom.room.storage import SignInRow, Storage

__all__ = ["DEFAULT_RETENTION_DAYS", "SignInLog"]

DEFAULT_RETENTION_DAYS = 90.0

ADDRESS_WIDTH = 64
USER_AGENT_WIDTH = 255


class SignInLog:
    """Writes and reads the sign-in log over a ``Storage``."""

    def __init__(
        self,
        storage: Storage,
        *,
        retention_days: float = DEFAULT_RETENTION_DAYS,
        purge_every: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not retention_days > 0:  # also refuses nan
            raise RoomError(f"retention_days must be a positive number, not {retention_days}")
        if purge_every < 0:
            raise RoomError(f"purge_every must be 0 or more seconds, not {purge_every}")
        self.storage = storage
        self.retention_days = retention_days
        self.purge_every = purge_every
        self.clock = clock
        self._next_purge = float("-inf")

    @property
    def retention_seconds(self) -> float:
        return self.retention_days * 24 * 3600.0

    def record(self, account: str, address: str, user_agent: str) -> SignInRow:
        """Log a sign-in (the account must exist); purge expired entries when one is due."""
        now = self.clock()
        row = SignInRow(
            account,
            address[:ADDRESS_WIDTH],
            user_agent[:USER_AGENT_WIDTH],
            now,
        )
        with self.storage.transaction() as tx:
            tx.add_sign_in(row)
        if now >= self._next_purge:
            self._next_purge = now + self.purge_every
            self.purge()
        return row

    def purge(self) -> int:
        """Delete the entries older than the retention; returns how many."""
        before = self.clock() - self.retention_seconds
        with self.storage.transaction() as tx:
            return tx.delete_sign_ins_before(before)

    def since(self, since: float) -> list[SignInRow]:
        """The entries at or after ``since`` (and within the retention), oldest first."""
        start = max(since, self.clock() - self.retention_seconds)
        with self.storage.transaction(write=False) as tx:
            return tx.sign_ins(start)

"""Throttles kept in the database: the sign-in and sign-up throttles of a cluster's gateways
(docs/cluster.md), so that two gateways never disagree about an address or an account.

``StoredThrottle`` counts failures per key in a sliding window, as the single process's
in-memory ``FailureThrottle`` (``feltroom.server.rest``) does, with the same methods; each call
is one short transaction (the HTTP API runs them in its thread pool: ``blocking``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from feltroom.room.storage import Storage

__all__ = ["StoredThrottle"]


class StoredThrottle:
    """At most ``limit`` failures of a key within ``window`` seconds, across processes."""

    blocking = True
    """Each call waits on the database: callers on an event loop run it in a thread."""

    def __init__(
        self,
        storage: Storage,
        scope: str,
        limit: int,
        window: float,
        clock: Callable[[], float] = time.time,
        *,
        purge_every: int = 1000,
    ) -> None:
        self.storage = storage
        self.scope = scope
        self.limit = limit
        self.window = window
        self.clock = clock
        self.purge_every = purge_every
        self._counted = 0

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: it may now)."""
        now = self.clock()
        with self.storage.transaction(write=False) as tx:
            stamps = tx.failure_times(self.scope, key, now - self.window)
        if len(stamps) < self.limit:
            return 0.0
        return max(0.0, stamps[-self.limit] + self.window - now)

    def fail(self, key: str) -> float:
        """Count a failure for ``key``; returns its time (to ``forgive`` it)."""
        now = self.clock()
        self._counted += 1
        with self.storage.transaction() as tx:
            tx.add_failure(self.scope, key, now)
            if self._counted % self.purge_every == 0:  # failures out of every window
                tx.delete_failures_before(self.scope, now - self.window)
        return now

    def forgive(self, key: str, stamp: float) -> None:
        """Take back one failure counted at ``stamp``."""
        with self.storage.transaction() as tx:
            tx.delete_failure(self.scope, key, stamp)

    def clear(self, key: str) -> None:
        with self.storage.transaction() as tx:
            tx.clear_failures(self.scope, key)

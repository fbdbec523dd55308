"""The cluster tests start several processes each (workers, gateways) beside a throwaway
PostgreSQL and Redis: on the project's 2-core machine two of them at once starve each other's
clocks (leases, turn clocks), so they take turns: each holds a lock file shared by the
pytest-xdist workers (and by any other run of the suite on the machine) while it runs."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

LOCK = Path(tempfile.gettempdir()) / "feltroom-cluster-tests.lock"


@pytest.fixture(autouse=True)
def one_cluster_at_a_time() -> Iterator[None]:
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

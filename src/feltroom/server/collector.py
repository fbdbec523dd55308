"""The garbage collector of a long-running room process (docs/performance.md, "Capacity").

CPython's automatic full collection (generation 2) walks every object the process holds. A room
process with 5,000 connections holds about a million, and a full collection stopped it for about
a second every 10 to 15 s (measured with a ``gc.callbacks`` hook during ``feltroom bench server
--capacity``): every table's turns waited, which made that run's p99 latency (1.1 s, against
2 ms at the median). Almost nothing it collected was garbage: the room's objects are freed by
their reference counts.

``calm_collector()`` (each ``feltroom serve`` role calls it once it runs):

- what the start made (modules, tables, the books' caches) is frozen out of the collector's view
  (``gc.freeze``);
- the young generations are collected as before (pauses of a few to about 60 ms);
- the automatic full collection is off; instead one runs every ``FULL_EVERY`` seconds (15
  minutes), so that cyclic garbage among long-lived objects is still freed: one pause of about a
  second at 5,000 connections every 15 minutes instead of every 10 to 15 s.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

__all__ = ["FULL_EVERY", "calm_collector"]

log = logging.getLogger("feltroom.server")

FULL_EVERY = 900.0
"""Seconds between the full collections a room process runs itself."""

_NEVER = 1_000_000_000
"""A generation-2 threshold the process never reaches: no automatic full collection."""


def calm_collector(every: float = FULL_EVERY) -> asyncio.Task[None]:
    """Freeze what the start made, turn the automatic full collection off and run one every
    ``every`` seconds instead; returns that task (cancel it to stop them). Call it from the
    process's event loop."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    return asyncio.get_running_loop().create_task(_full_collections(every), name="collector")


async def _full_collections(every: float) -> None:
    while True:
        await asyncio.sleep(every)
        started = time.perf_counter()
        freed = gc.collect()
        log.info(
            "full garbage collection: %d objects freed in %.0f ms",
            freed,
            (time.perf_counter() - started) * 1000,
        )

"""A room process's garbage collector (feltroom.server.collector): no automatic full collection,
one every so often instead, which still frees cyclic garbage."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from feltroom.server.collector import calm_collector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def restored_collector() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_collector")
def test_the_full_collection_runs_on_its_own_schedule_and_frees_cycles() -> None:
    async def main() -> tuple[bool, bool, int, int]:
        task = calm_collector(every=0.2)
        frozen = gc.get_freeze_count()
        threshold = gc.get_threshold()[2]
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        gc.collect(1)  # the young collections move it to the oldest generation
        gc.collect(1)
        gone = weakref.ref(a)
        del a, b
        gc.collect(1)  # a young collection does not look at the oldest generation
        kept = gone() is not None
        await asyncio.sleep(0.5)  # the scheduled full collection does
        task.cancel()
        return kept, gone() is None, frozen, threshold

    kept, freed, frozen, threshold = asyncio.run(main())
    assert frozen > 0  # what the start made is out of the collector's view
    assert threshold >= 10**9  # no automatic full collection
    assert kept
    assert freed

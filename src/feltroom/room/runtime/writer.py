"""The single writer: a thread that owns every write to the books, with group commits
(``Writer``), on a storage whose transactions it can group (``GroupStorage``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import queue
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from feltroom.room.settlement import HandOutcome, SettledHand, Settlement
from feltroom.room.storage import Storage, Transaction

__all__ = ["GroupStorage", "Writer"]

T = TypeVar("T")


@dataclass(slots=True)
class _Job:
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    call: Callable[[], Any] | None = None
    outcome: HandOutcome | None = None


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class GroupStorage:
    """A ``Storage`` whose transactions are one while ``group()`` is open on the thread that
    opened it (the writer's group commit); other threads get transactions of their own."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._tx: Transaction | None = None
        self._owner: int | None = None

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        if self._tx is not None and self._owner == threading.get_ident():
            yield self._tx
            return
        with self.storage.transaction(write=write) as tx:
            yield tx

    @contextlib.contextmanager
    def group(self) -> Iterator[Transaction]:
        with self.storage.transaction() as tx:
            self._tx, self._owner = tx, threading.get_ident()
            try:
                yield tx
            finally:
                self._tx = self._owner = None

    def close(self) -> None:
        self.storage.close()


class Writer:
    """The single writer: a thread that runs every write to the books. Whatever is waiting when
    it wakes runs in ONE transaction (a group commit), each request in a savepoint of its own so
    that a refused request undoes only itself; the hands waiting are settled together. Results
    are handed back once the transaction has committed."""

    def __init__(self, settlement: Settlement, books: GroupStorage, *, max_group: int = 1000):
        self.settlement = settlement
        self.books = books
        self.max_group = max_group
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.commits = 0
        self.hands = 0

    def depth(self) -> int:
        """Requests waiting for the writer (the metrics' ``feltroom_writer_queue_depth``)."""
        return self._queue.qsize()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="feltroom-writer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> Awaitable[T]:
        """Run ``function(*args, **kwargs)`` in the writer thread; await the result."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Job(loop, future, call=functools.partial(function, *args, **kwargs)))
        return future

    def settle(self, outcome: HandOutcome) -> Awaitable[SettledHand]:
        """Settle a hand together with whatever other hands are waiting (and begin the table's
        next hand in the same transaction)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[SettledHand] = loop.create_future()
        self._queue.put(_Job(loop, future, outcome=outcome))
        return future

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            jobs = [first]
            while len(jobs) < self.max_group:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                jobs.append(job)
            self._group(jobs)

    def _group(self, jobs: list[_Job]) -> None:
        done: list[tuple[_Job, Any, BaseException | None]] = []
        # Each table has at most one request waiting, so requests of different tables may be
        # reordered: the calls first, then the settlements together.
        settles = [job for job in jobs if job.outcome is not None]
        try:
            with self.books.group() as tx:
                for job in jobs:
                    if job.call is not None:
                        done.append(self._one(tx, job, job.call))
                if settles:
                    done += self._settle(tx, settles)
        except Exception as error:  # the commit failed: none of it holds
            self.settlement.forget()
            done = [(job, None, error) for job in jobs]
        else:
            self.commits += 1
            self.hands += sum(1 for job, _, error in done if job.outcome and error is None)
        for job, result, failure in done:
            job.loop.call_soon_threadsafe(_resolve, job.future, result, failure)

    @staticmethod
    def _one(
        tx: Transaction, job: _Job, call: Callable[[], Any]
    ) -> tuple[_Job, Any, BaseException | None]:
        try:
            with tx.savepoint():
                return job, call(), None
        except Exception as error:  # handed to the table that asked
            return job, None, error

    def _settle(
        self, tx: Transaction, jobs: list[_Job]
    ) -> list[tuple[_Job, Any, BaseException | None]]:
        outcomes = [job.outcome for job in jobs if job.outcome is not None]
        try:
            with tx.savepoint():
                results = self.settlement.settle_hands(outcomes, begin_next=True)
        except Exception:
            # One of them was refused: settle each on its own so that only that table fails.
            return [
                self._one(
                    tx, job, functools.partial(self.settlement.settle_hand, o, begin_next=True)
                )
                for job, o in zip(jobs, outcomes, strict=True)
            ]
        return [(job, result, None) for job, result in zip(jobs, results, strict=True)]

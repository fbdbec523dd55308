"""A multi-table tournament survives a kill -9 of ``feltroom serve`` (R-TOURN-13): the restarted
room resumes it from the books — the hands in progress void, the stacks at their start-of-hand
values, the places already final kept with their prizes — and plays it to its end, the books
audited after the kill and at the end."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from feltroom.room.audit import audit
from feltroom.room.tournament_journal import Replayed, replay
from feltroom.store import open_storage

from .test_crash import _script

TABLES = """
[[table]]
id = "hu"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2

[[tournament]]
id = "mt"
format = "sng"
seats_per_table = 6
max_entries = 12
starting_stack = 6000
buy_in = 1000
fee = 100
recurring = false
"""


def _state(url: str) -> tuple[Replayed | None, str]:
    """The tournament's director rebuilt from the books, and its status there."""
    storage = open_storage(url)
    try:
        with storage.transaction(write=False) as tx:
            row = tx.get_tournament("mt-1")
            if row is None:
                return None, ""
            return replay(row, tx.journal("mt-1")), row.status
    finally:
        storage.close()


def _places(done: Replayed) -> dict[str, tuple[int, int]]:
    return {e.account: (e.place, e.prize) for e in done.director.entries if e.place is not None}


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


@pytest.mark.slow  # (10 to 45 s: the main step stays under 20 minutes)
def test_a_kill_in_the_middle_of_a_multi_table_tournament_and_its_resumption(
    fast_tmp: Path,
) -> None:
    crash = _script()
    tables = fast_tmp / "tables.toml"
    tables.write_text(TABLES, encoding="utf-8")
    url = f"sqlite:///{fast_tmp / 'room.sqlite3'}"
    log = (fast_tmp / "serve.log").open("wb")
    options = ("--tables", str(tables))
    process = crash.start(url, crash.free_port(), 1, log, *options)
    try:
        assert crash.wait_ready(process, 60), (fast_tmp / "serve.log").read_text()
        deadline = time.monotonic() + 120
        while True:  # two tables, some entries already out, hands in progress
            assert time.monotonic() < deadline, "the tournament never reached the middle"
            done, _ = _state(url)
            if (
                done is not None
                and len(done.director.tables) == 2
                and done.director.remaining <= 10
                and done.playing
            ):
                # stopped, then read again: the hands seen in progress may have ended between
                # the read and the stop (then it goes on and the next look tries again)
                # (stopped in the middle of a write, it holds the database: it goes on too)
                process.send_signal(signal.SIGSTOP)
                try:
                    still, _ = _state(url)
                except OperationalError:
                    still = None
                if still is not None and len(still.director.tables) == 2 and still.playing:
                    break
                process.send_signal(signal.SIGCONT)
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        _stop(process)

    before, status = _state(url)
    assert before is not None
    assert status == "running"
    assert len(before.director.tables) == 2
    places_before = _places(before)
    assert len(places_before) >= 2
    in_progress = dict(before.playing)
    assert in_progress
    storage = open_storage(url)
    try:
        report = audit(storage, shuffles=0)
    finally:
        storage.close()
    assert report["problems"] == [], report["problems"]

    process = crash.start(url, crash.free_port(), 1, log, *options)
    try:
        assert crash.wait_ready(process, 60)
        deadline = time.monotonic() + 180
        while True:
            assert time.monotonic() < deadline, "the resumed tournament did not finish"
            after, status = _state(url)
            if status == "finished":
                break
            time.sleep(0.2)
    finally:
        _stop(process)
        log.close()

    assert after is not None
    storage = open_storage(url)
    try:
        report = audit(storage, shuffles=0)
        with storage.transaction(write=False) as tx:
            journal = tx.journal("mt-1")
            for _, hand_id in in_progress.values():
                assert hand_id is not None
                hand = tx.get_hand(hand_id)
                assert hand is not None
                assert hand.status == "void"
    finally:
        storage.close()
    assert report["problems"] == [], report["problems"]
    assert report["tournaments"]["mt-1"]["pool_left"] == 0
    assert report["tournaments"]["mt-1"]["prizes"] == 12 * 1000
    # the hands in progress were void: each table's next input after the kill is a void
    # hand_finished with the stacks at the start of the hand
    first_after = journal[before.seq :]
    voids = [j for j in first_after[: len(in_progress)] if j.kind == "hand_finished"]
    assert len(voids) == len(in_progress)
    for void in voids:
        payload = json.loads(void.payload)
        assert payload["void"] is True
        stacks, hand_id = in_progress[payload["table"]]
        assert payload["hand_id"] == hand_id
        assert {int(s): c for s, c in payload["before"].items()} == stacks
        assert payload["after"] == payload["before"]
    resumed_inputs = [j.kind for j in first_after[: len(in_progress) + 1]]
    assert resumed_inputs[-1] == "resume"
    # the places final before the kill kept their prizes; every place given once
    places_after = _places(after)
    for account, place in places_before.items():
        assert places_after[account] == place
    # every place given once: entries out in the same hand with equal starting stacks share
    # the higher place (R-TOURN-10), which then stands for as many places as they are
    shared = Counter(p for p, _ in places_after.values())
    assert sorted(k for p, n in shared.items() for k in range(p, p + n)) == list(range(1, 13))
    assert sum(prize for _, prize in places_after.values()) == 12 * 1000

"""The integrity report on the room's books: the stored hands and the sign-in log read through
the storage protocols and handed to ``feltroom.integrity`` (the analysis itself knows no
database). Hands are read a page at a time, each page in its own read transaction, so the report
can run beside the server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from feltroom.integrity import DEFAULT_THRESHOLD, SignIn, StoredHand, StoredSeat, integrity_report
from feltroom.room.storage import HandPlayerRow, HandRow, Storage

__all__ = ["PAGE", "room_integrity_report", "stored_hands", "stored_of"]

PAGE = 1000


def stored_hands(storage: Storage, since: float = 0.0, page: int = PAGE) -> Iterator[StoredHand]:
    """The settled cash-table hands started at or after ``since``, by id (tournament hands,
    played for tournament chips, are left out)."""
    after = 0
    while True:
        with storage.transaction(write=False) as tx:
            rows = tx.settled_hands(since, after, page)
            players = tx.hand_players_of([row.hand_id for row in rows])
        for hand in stored_of(rows, players):
            if "tournament" not in hand.settings:  # tournament chips are not money
                yield hand
        if len(rows) < page:
            return
        after = rows[-1].hand_id


def stored_of(rows: Sequence[HandRow], players: Sequence[HandPlayerRow]) -> list[StoredHand]:
    """The stored hands of ``rows`` with their ``players`` (the rows of those hands)."""
    by_hand: dict[int, list[StoredSeat]] = {}
    for p in players:
        by_hand.setdefault(p.hand_id, []).append(
            StoredSeat(
                p.player, p.seat, p.start_stack, p.contribution, p.payout, p.hole, p.showdown
            )
        )
    return [
        StoredHand(
            row.hand_id,
            row.table_id,
            row.started_at,
            tuple(by_hand.get(row.hand_id, ())),
            json.loads(row.record),
            json.loads(row.settings),
        )
        for row in rows
    ]


def room_integrity_report(
    storage: Storage,
    since: float | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    account: str | None = None,
) -> dict[str, Any]:
    """The integrity report over the hands and sign-ins since ``since`` (all when ``None``);
    with ``account``, that account's pairs, groups and hands only."""
    start = 0.0 if since is None else since
    with storage.transaction(write=False) as tx:
        logged = [
            SignIn(row.account, row.address, row.user_agent, row.at) for row in tx.sign_ins(start)
        ]
    return integrity_report(
        stored_hands(storage, start), logged, threshold=threshold, since=since, account=account
    )

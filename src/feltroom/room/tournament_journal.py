"""A tournament's journal: every input its director took, kept in the books so that the director
can be rebuilt exactly after a restart (R-TOURN-13; docs/tournaments.md).

The director is sans-I/O and draws from a ``random.Random`` seeded with the instance's seed, so
replaying its inputs in order (``replay``) gives back the same director: entries, places, tables
and who sits where, the stacks at the start of any hand in progress, the level clock. The inputs:

- ``register`` / ``unregister`` ``{"account"}``;
- ``tick`` (only those that decided something: a level, a break, the start, the close of late
  registration);
- ``hand_started`` ``{"table", "button", "big", "stacks", "hand_id"}`` (the stacks of the seats
  dealt in, and the id of the stored hand);
- ``hand_finished`` ``{"table", "before", "after", "hand_id"}`` (``"void": true`` for a hand the
  room voided: ``after`` is ``before``);
- ``disqualify`` ``{"account"}``: the operator suspended the account (R-TOURN-15);
- ``resume`` ``{"stopped_at"}``: the room stopped then (the clock resumes where it stood);
- ``cancel`` ``{"reason"}``: the operator's cancellation.

Each input is written in ONE transaction with what it books (``write_input``): the money of the
director's outputs (``TournamentBooks.book_in``), the stored hand, the instance's status. Two
writers cannot append the same input number: the second is refused (``DuplicateKey``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from feltroom.room.errors import RoomError
from feltroom.room.storage import (
    HandDealRow,
    HandPlayerRow,
    JournalRow,
    Storage,
    TableRow,
    TournamentRow,
    Transaction,
)
from feltroom.room.tournaments import TournamentBooks
from feltroom.tournament import (
    BreakPolicy,
    CancellationPaid,
    Cancelled,
    Director,
    Finished,
    Output,
    Refunded,
    Started,
    TournamentSettings,
)

__all__ = [
    "DONE",
    "Replayed",
    "cancel_tournament",
    "replay",
    "settings_from_json",
    "settings_json",
    "status_after",
    "write_input",
]

DONE = ("finished", "cancelled")
"""The statuses of an instance that no longer runs."""


def settings_json(settings: TournamentSettings) -> str:
    return json.dumps(asdict(settings), sort_keys=True)


def settings_from_json(text: str) -> TournamentSettings:
    data: dict[str, Any] = json.loads(text)
    breaks = data.get("breaks")
    if isinstance(breaks, dict):
        data["breaks"] = BreakPolicy(**breaks)
    return TournamentSettings(**data)


def _seats(mapping: Mapping[str, int]) -> dict[int, int]:
    return {int(seat): int(chips) for seat, chips in mapping.items()}


@dataclass(slots=True)
class Replayed:
    """A director rebuilt from its journal, with what the journal says beside it."""

    director: Director
    seq: int = 0
    """The number of the last input."""
    last_at: float = 0.0
    playing: dict[int, tuple[dict[int, int], int | None]] = field(default_factory=dict)
    """table -> (the stacks at the start of its hand in progress, the stored hand's id)"""
    chip_errors: list[str] = field(default_factory=list)
    """Hands whose chips did not add up (the audit reports them)."""


def replay(row: TournamentRow, journal: Sequence[JournalRow]) -> Replayed:
    """The instance's director after every input of ``journal``, in order."""
    settings = settings_from_json(row.settings)
    director = Director(settings, rng=random.Random(int(row.seed)), start_at=row.start_at)
    done = Replayed(director)
    for entry in journal:
        if entry.seq != done.seq + 1:
            raise RoomError(f"tournament {row.tournament_id}: input {entry.seq} follows {done.seq}")
        done.seq, done.last_at = entry.seq, entry.at
        data: dict[str, Any] = json.loads(entry.payload)
        kind, at = entry.kind, entry.at
        if kind == "register":
            director.register(data["account"], at)
        elif kind == "unregister":
            director.unregister(data["account"], at)
        elif kind == "tick":
            director.tick(at)
        elif kind == "hand_started":
            table = int(data["table"])
            director.hand_started(table, int(data["button"]), int(data["big"]), at)
            done.playing[table] = (_seats(data["stacks"]), data.get("hand_id"))
        elif kind == "hand_finished":
            table = int(data["table"])
            before, after = _seats(data["before"]), _seats(data["after"])
            if sum(before.values()) != sum(after.values()):
                done.chip_errors.append(
                    f"tournament {row.tournament_id} table {table} input {entry.seq}: "
                    f"{sum(before.values())} chips before the hand, {sum(after.values())} after"
                )
            director.hand_finished(table, before, after, at)
            done.playing.pop(table, None)
        elif kind == "disqualify":
            director.disqualify(data["account"], at)
        elif kind == "resume":
            director.resume(float(data["stopped_at"]), at)
        elif kind == "cancel":
            director.cancel(at, str(data.get("reason", "cancelled by the operator")))
            done.playing.clear()
        else:
            raise RoomError(f"tournament {row.tournament_id}: unknown input {kind!r}")
    return done


def status_after(status: str, outputs: Sequence[Output]) -> str:
    """The instance's status once ``outputs`` are done."""
    for out in outputs:
        if isinstance(out, Started) and status == "registering":
            status = "running"
        elif isinstance(out, Finished):
            status = "finished"
        elif isinstance(out, Cancelled):
            status = "cancelled"
    return status


def write_input(
    tx: Transaction,
    row: TournamentRow,
    seq: int,
    kind: str,
    payload: dict[str, Any],
    at: float,
    outputs: Sequence[Output],
    *,
    books: TournamentBooks,
    status: str,
    hand_table: str | None = None,
    hand_record: Mapping[str, Any] | None = None,
    hand_settings: Mapping[str, Any] | None = None,
    hand_players: Sequence[HandPlayerRow] = (),
    hand_deal: HandDealRow | None = None,
) -> int | None:
    """Write input ``seq`` and book what it decided, in ``tx``. For ``hand_started`` the hand
    is stored at ``hand_table`` (returns its id); for ``hand_finished`` it is closed, settled
    with its record and the table's settings, its players (the players' hand histories,
    R-HIST-1) and its committed deck (or void). Returns the new hand's id, if any."""
    hand_id: int | None = None
    if kind == "hand_started" and hand_table is not None:
        if tx.get_table(hand_table) is None:
            tx.add_table(TableRow(hand_table, row.currency))  # no escrow: chips are not money
        hand_id = tx.new_hand(hand_table, row.currency, at)
        payload = {**payload, "hand_id": hand_id}
    elif kind == "hand_finished" and payload.get("hand_id") is not None:
        void = bool(payload.get("void"))
        record = json.dumps(
            {"void": "restart"} if void else dict(hand_record or {}), sort_keys=True, default=str
        )
        stored = dict(hand_settings) if hand_settings and not void else {}
        stored.setdefault("tournament", row.tournament_id)
        settings = json.dumps(stored, sort_keys=True, default=str)
        closed = tx.finish_hand(
            int(payload["hand_id"]), "void" if void else "settled", at, 0, 0, 0, settings, record
        )
        if not closed and not void:
            raise RoomError(
                f"tournament {row.tournament_id}: hand {payload['hand_id']} was closed meanwhile"
            )
        if closed and not void:
            tx.add_hand_players(list(hand_players))
            if hand_deal is not None:
                tx.add_hand_deals([hand_deal])
    tx.append_journal(
        JournalRow(row.tournament_id, seq, at, kind, json.dumps(payload, sort_keys=True))
    )
    books.book_in(tx, outputs)
    tx.set_tournament(row.tournament_id, status=status, seen_at=at)
    return hand_id


def cancel_tournament(
    storage: Storage,
    tournament_id: str,
    now: float,
    reason: str = "cancelled by the operator",
    *,
    log_entry: Callable[[Transaction], int] | None = None,
) -> dict[str, Any]:
    """The operator's cancellation (R-TOURN-13), in one transaction: the director rebuilt from
    the books cancels (any hand in progress is void, its stacks at their start-of-hand values),
    the prize pool left is paid out as the rule says (entries that never played get buy-in and
    fee back), and the instance is ``cancelled``. A room running it sees the new input and stops
    it. ``log_entry`` writes the operator log entry in that transaction once the cancellation is
    known to be valid and returns its id: every transfer's reference names it (``entry`` in the
    result)."""
    with storage.transaction() as tx:
        return _cancel(storage, tx, tournament_id, now, reason, log_entry)


def _cancel(
    storage: Storage,
    tx: Transaction,
    tournament_id: str,
    now: float,
    reason: str,
    log_entry: Callable[[Transaction], int] | None,
) -> dict[str, Any]:
    row = tx.get_tournament(tournament_id, lock=True)
    if row is None:
        known = [t.tournament_id for t in tx.tournaments() if t.status not in DONE]
        raise RoomError(
            f"no tournament {tournament_id!r}; tournaments that can be cancelled: "
            f"{', '.join(known) or 'none'}"
        )
    if row.status in DONE:
        raise RoomError(f"tournament {tournament_id} is already {row.status}: nothing to cancel")
    done = replay(row, tx.journal(tournament_id))
    director = done.director
    outputs = director.cancel(now, reason)
    for _, hand_id in done.playing.values():
        if hand_id is not None:
            record = json.dumps({"void": "the tournament was cancelled"})
            tx.finish_hand(hand_id, "void", now, 0, 0, 0, "{}", record)
    entry = None if log_entry is None else log_entry(tx)
    books = TournamentBooks(
        storage, row.tournament_id, row.currency, clock=lambda: now, operator_entry=entry
    )
    write_input(
        tx,
        row,
        done.seq + 1,
        "cancel",
        {"reason": reason},
        now,
        outputs,
        books=books,
        status="cancelled",
    )
    paid: dict[str, int] = {}
    refunded: dict[str, int] = {}
    for out in outputs:
        if isinstance(out, CancellationPaid):
            paid[out.account] = paid.get(out.account, 0) + out.amount
        elif isinstance(out, Refunded):
            refunded[out.account] = refunded.get(out.account, 0) + out.buy_in + out.fee
    result: dict[str, Any] = {
        "tournament": tournament_id,
        "status": "cancelled",
        "currency": row.currency,
        "in_the_money": director.remaining <= director.paid_places,
        "paid": paid,
        "refunded": refunded,
        "prizes_already_won": {
            e.account: e.prize for e in director.entries if e.place is not None and e.prize
        },
    }
    if entry is not None:
        result["entry"] = entry
    return result

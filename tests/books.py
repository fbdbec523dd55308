"""Reading the books in tests: a player's ledger accounts are keyed by the account's stable id,
not its name (``feltroom.room.ledger.account_owner``)."""

from __future__ import annotations

import random

from feltroom.room import (
    Accounts,
    Argon2Settings,
    Cashier,
    HandOutcome,
    PlayerOutcome,
    Settlement,
)
from feltroom.room.ledger import player_wallet_key
from feltroom.room.storage import ProtectionRow, Storage, TournamentRow
from feltroom.room.tournament_journal import settings_json, write_input
from feltroom.room.tournaments import TournamentBooks
from feltroom.tournament import Director, TournamentSettings


def wallet_of(storage: Storage, player: str, code: str) -> str:
    """The key of the wallet of the account named ``player`` in ``code``."""
    with storage.transaction(write=False) as tx:
        return player_wallet_key(tx, player, code)


def wallet_balance(storage: Storage, player: str, code: str) -> int:
    """The units in that wallet (0 when it was never used)."""
    with storage.transaction(write=False) as tx:
        row = tx.get_account(player_wallet_key(tx, player, code))
        return 0 if row is None else row.balance


def build_history(storage: Storage, now: float = 1_000_000.0) -> dict[str, int]:
    """A room with history: alice, bob and carol granted 1000 play chips each; a hand at cash
    table ``t1`` that alice won from bob (rake 10), after which alice left and bob stays
    seated; carol registered (buy-in 100 + fee 10) in the sit-and-go ``sng-1``, still
    registering; carol cooled off for a day. Returns the hand's id under ``hand``."""
    accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=lambda: now)
    cashier, settlement = Cashier(storage, clock=lambda: now), Settlement(storage)
    for name in ("alice", "bob", "carol"):
        accounts.sign_up(name, "correct horse")
        cashier.grant(name, 1000, f"welcome-{name}")
    settlement.open_table("t1", "PLAY")
    settlement.buy_in("t1", "alice", 1, 500)
    settlement.buy_in("t1", "bob", 2, 400)
    hand = settlement.begin_hand("t1")
    settlement.settle_hand(
        HandOutcome(
            hand,
            "t1",
            (
                PlayerOutcome("alice", 1, 500, 100, 190, "As Ks", showdown=True, shown=True),
                PlayerOutcome("bob", 2, 400, 100, 0, "2c 2d", showdown=True),
            ),
            rake=10,
            record={"players": [[1, "alice", 500], [2, "bob", 400]]},
        )
    )
    settlement.leave("t1", "alice")
    settings = TournamentSettings(
        format="sng", max_entries=3, seats_per_table=3, buy_in=100, fee=10
    )
    row = TournamentRow(
        "sng-1", "sng", 1, "PLAY", settings_json(settings), "1", None, "registering", now, now
    )
    director = Director(settings, rng=random.Random(1))
    books = TournamentBooks(storage, "sng-1", "PLAY")
    with storage.transaction() as tx:
        tx.add_tournament(row)
        write_input(
            tx,
            row,
            1,
            "register",
            {"account": "carol"},
            now,
            director.register("carol", now),
            books=books,
            status="registering",
        )
    with storage.transaction() as tx:
        tx.put_protection(ProtectionRow("carol", 0, now + 86_400.0, None, False))
    return {"hand": hand}

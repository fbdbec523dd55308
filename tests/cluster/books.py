"""Books for the lease and fencing tests: players seated at tables, and a raked hand to settle."""

from __future__ import annotations

from feltroom.room import Accounts, Argon2Settings, Cashier, HandOutcome, PlayerOutcome, Settlement
from feltroom.room.storage import Storage


def seat_two(storage: Storage, table_id: str, names: tuple[str, str] = ("alice", "bob")) -> None:
    """Open ``table_id`` (play chips) and seat two players with 1000 each (unfenced: set-up)."""
    accounts = Accounts(storage, argon2=Argon2Settings.cheap())
    cashier, settlement = Cashier(storage), Settlement(storage)
    settlement.open_table(table_id, "PLAY")
    for seat, name in enumerate(names, start=1):
        with storage.transaction(write=False) as tx:
            known = tx.get_user(name) is not None
        if not known:
            accounts.sign_up(name, "correct horse")
        cashier.grant(name, 1000, f"grant-{name}-{table_id}")
        settlement.buy_in(table_id, name, seat, 1000)


def raked_hand(
    hand_id: int,
    table_id: str,
    stacks: dict[str, int],
    names: tuple[str, str] = ("alice", "bob"),
    *,
    second_wins: bool = False,
) -> HandOutcome:
    """The player in seat 1 (``names[0]``) wins 100 from the one in seat 2, 10 of it raked (a
    200 pot); the other way round with ``second_wins``."""
    first, second = names
    won = (0, 190) if second_wins else (190, 0)
    return HandOutcome(
        hand_id,
        table_id,
        (
            PlayerOutcome(first, 1, stacks[first], 100, won[0], "As Ks", showdown=True),
            PlayerOutcome(second, 2, stacks[second], 100, won[1], "2c 2d", showdown=True),
        ),
        rake=10,
    )

"""A player's seats found by the ``ix_seats_player`` index (a cluster's gateway asks for them at
every hello), not by reading every seat of every table."""

from __future__ import annotations

from feltroom.room import Settlement
from feltroom.room.storage import SeatRow
from feltroom.store import SqlStorage


def test_a_players_seats_at_every_table_and_nobody_elses(
    settlement: Settlement, players: tuple[str, ...], storage: SqlStorage
) -> None:
    for table_id in ("t2", "t1", "t3"):
        settlement.open_table(table_id, "PLAY")
    settlement.buy_in("t2", "alice", 4, 300)
    settlement.buy_in("t1", "alice", 1, 500)
    settlement.buy_in("t1", "bob", 2, 500)
    settlement.buy_in("t3", "bob", 6, 200)
    with storage.transaction(write=False) as tx:
        assert tx.seats_of_player("alice") == [
            SeatRow("t1", "alice", 1, 500),
            SeatRow("t2", "alice", 4, 300),
        ]
        assert [row.table_id for row in tx.seats_of_player("bob")] == ["t1", "t3"]
        assert tx.seats_of_player("nobody") == []
    with storage.engine.connect() as connection:
        plan = connection.exec_driver_sql(
            "EXPLAIN QUERY PLAN SELECT * FROM seats WHERE player = 'alice'"
        ).all()
    assert any("ix_seats_player" in str(row) for row in plan), plan

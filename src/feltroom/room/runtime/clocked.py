"""What every table the room hosts on the clock shares."""

from __future__ import annotations

from dataclasses import dataclass

from feltroom.room.errors import StaleHand, check_turn
from feltroom.table import TournamentTable

__all__ = ["TournamentTableRef"]


@dataclass(slots=True)
class TournamentTableRef:
    """One table of a running tournament, as the room's listeners see it (like a cash table's
    ``TableRunner``: ``table_id``, ``table``, ``playing``, ``last_hand_id``, ``check_turn``)."""

    number: int
    table_id: str
    table: TournamentTable
    hand_id: int | None = None
    last_hand_id: int | None = None
    next_deal: float = 0.0
    level: int = 1
    """The number of the level of the hand in progress (or the last one)."""

    @property
    def playing(self) -> int | None:
        """The stored id of the hand in progress, or ``None``."""
        return self.hand_id

    def check_turn(self, turn_id: int | None) -> None:
        """Refuse an action that names a turn other than the one in progress."""
        check_turn(self.table_id, self.table.turn_id, turn_id)

    def check_hand(self, hand_id: int | None) -> None:
        """Refuse an action that names a hand other than the one in progress."""
        if hand_id is not None and hand_id != self.hand_id:
            playing = "none" if self.hand_id is None else self.hand_id
            raise StaleHand(
                f"hand {hand_id} is not the hand in progress at table {self.table_id} ({playing})"
            )

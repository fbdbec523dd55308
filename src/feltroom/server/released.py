"""Seats released while their players were away (issue 42, point 7).

A seat sitting out longer than the table's ``sit_out_minutes`` is released and its stack goes
back to the wallet (R-SIT-2): ``seat_released`` with the reason ``sit_out_expired``. A player
who watches the table at that moment is told at once, by that event. A player who does not
(the page closed, the network gone) is told on return: the hub keeps the event for them, in
this process's memory, and sends it again after the ``welcome`` of their next ``hello``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from feltroom.table import SeatReleased

__all__ = ["ReleasedSeats"]

Message = dict[str, Any]

KEPT = 20
"""The most releases kept for one player (the oldest go first)."""


class ReleasedSeats:
    """The ``seat_released`` events (``sit_out_expired``) of players who were not watching."""

    def __init__(self) -> None:
        self._kept: dict[str, list[Message]] = {}

    def note(
        self,
        events: Sequence[object],
        watching: Callable[[str], bool],
        message_of: Callable[[SeatReleased], Message],
    ) -> None:
        """Keep each release of a seat that sat out too long whose player is not ``watching``
        the table; ``message_of`` gives the event as the wire sends it."""
        for event in events:
            if not isinstance(event, SeatReleased) or event.reason != "sit_out_expired":
                continue
            if watching(event.account):
                continue
            kept = self._kept.setdefault(event.account, [])
            kept.append(message_of(event))
            del kept[:-KEPT]

    def take(self, player: str) -> Iterable[Message]:
        """The releases kept for ``player``, oldest first; they are then forgotten."""
        return self._kept.pop(player, [])

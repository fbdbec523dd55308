"""Lobby figures per table: what a player choosing a table sees (R-TABLE-1).

``TableStats`` keeps the last hour of finished hands of one table; ``lobby_entry`` turns a table,
its settings and its statistics into the JSON object ``GET /api/lobby`` lists.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from feltroom.rules import BoardDealt, Folded, Hand
from feltroom.table import Table

__all__ = ["HandFigures", "TableStats", "figures_of", "lobby_entry"]

GAME = "Texas Hold'em"
WINDOW = 3600.0
"""Average pot, hands per hour and players per flop are over the last hour of play."""


@dataclass(frozen=True, slots=True)
class HandFigures:
    """One finished hand, as the lobby counts it."""

    at: float
    pot: int
    dealt: int
    saw_flop: int


def figures_of(hand: Hand, at: float) -> HandFigures:
    """The lobby's figures of a finished hand: the pot (every chip that went in, rake included)
    and how many of the players dealt in saw the flop."""
    pot = sum(result.amount for result in hand.results)
    folded = 0
    saw = 0
    for event in hand.events:
        if isinstance(event, Folded):
            folded += 1
        elif isinstance(event, BoardDealt):
            saw = len(hand.seats) - folded
            break
    return HandFigures(at, pot, len(hand.seats), saw)


class TableStats:
    """The last hour of a table's hands."""

    def __init__(self, started_at: float) -> None:
        self.started_at = started_at
        self.hands: deque[HandFigures] = deque()
        self.total_hands = 0

    def add(self, figures: HandFigures) -> None:
        self.hands.append(figures)
        self.total_hands += 1
        self._trim(figures.at)

    def _trim(self, now: float) -> None:
        hands = self.hands
        while hands and hands[0].at < now - WINDOW:
            hands.popleft()

    def summary(self, now: float) -> dict[str, Any]:
        self._trim(now)
        hands = list(self.hands)
        n = len(hands)
        span = min(WINDOW, max(60.0, now - self.started_at))
        dealt = sum(h.dealt for h in hands)
        return {
            "average_pot": round(sum(h.pot for h in hands) / n) if n else 0,
            "hands_per_hour": round(n * 3600.0 / span),
            "players_per_flop": round(100.0 * sum(h.saw_flop for h in hands) / dealt)
            if dealt
            else 0,
            "hands_played": self.total_hands,
        }


def lobby_entry(
    table_id: str,
    currency: str,
    table: Table,
    settings: dict[str, Any],
    stats: TableStats,
    now: float,
    *,
    status: str = "running",
    bots: int = 0,
) -> dict[str, Any]:
    """One table's line of the lobby (JSON-ready)."""
    config = table.config
    taken = len(table.seats)
    summary = stats.summary(now)
    return {
        "id": table_id,
        "name": config.name,
        "game": GAME,
        "structure": config.structure,
        "stakes": config.stakes_name(),
        "currency": currency,
        "seats": config.max_seats,
        "seats_taken": taken,
        "seats_free": config.max_seats - taken,
        "house_bots": bots,
        "waiting": len(table.waiting),
        "average_pot": summary["average_pot"],
        "hands_per_hour": summary["hands_per_hour"],
        "players_per_flop": summary["players_per_flop"],
        "hands_played": summary["hands_played"],
        "info": config.info(),
        "status": status,
        "settings": settings,
    }

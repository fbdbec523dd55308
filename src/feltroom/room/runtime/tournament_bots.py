"""House bots in the room's play-money sit-and-gos (issue 42, point 5), and what a tournament
waiting for entries waits for.

While a play-money sit-and-go is open and nobody has registered, a house bot registers every
``tournament_bot_wait`` seconds, and only while no other instance of the same tournament runs:
the bots keep one instance of each going, not a flood. Once a person has registered, the bots
fill that instance whatever else runs, quickly enough that it starts within ``FILL_SECONDS`` of
the person's entry (the demo's six-seat sit-and-go used to wait half an hour for a running
instance to end, showing "Entries 1 of 6" and no word why).
"""

from __future__ import annotations

from typing import Any, Protocol

from feltroom.room.runtime.host import HostedTournament, RoomHost
from feltroom.room.storage import TournamentRow
from feltroom.tournament import Director, TournamentSettings

__all__ = [
    "FILL_SECONDS",
    "FilledTournament",
    "bot_wait",
    "bots_may_register",
    "people_registered",
    "waiting_for",
]

FILL_SECONDS = 40.0
"""Within how long of a person's entry the house bots fill the rest of a sit-and-go."""


class FilledTournament(HostedTournament, Protocol):
    """What the house bots' filling reads of a tournament's runner (``TournamentRunner``)."""

    room: RoomHost
    row: TournamentRow
    settings: TournamentSettings
    director: Director
    bot_names: set[str]
    next_bot: float


def people_registered(runner: FilledTournament) -> int:
    """How many people (not house bots) are registered."""
    return sum(
        1
        for e in runner.director.entries
        if not e.unregistered and e.account not in runner.bot_names
    )


def _fills(runner: FilledTournament) -> bool:
    """A play-money sit-and-go not yet started, in a room with house bots."""
    return (
        runner.room.settings.house_bots > 0
        and runner.row.currency == "PLAY"
        and runner.settings.format == "sng"
        and runner.director.started_at is None
    )


def bots_may_register(runner: FilledTournament) -> bool:
    """Whether a house bot may register now: at a play-money sit-and-go not started, when a
    person waits in it or no other instance of the tournament is running."""
    if not _fills(runner):
        return False
    if people_registered(runner) > 0:
        return True
    return not any(
        other is not runner
        and other.spec.tournament_id == runner.spec.tournament_id
        and other.status == "running"
        for other in runner.room.tournaments.values()
    )


def _wanted(runner: FilledTournament) -> int:
    """The entries that start the sit-and-go."""
    return runner.settings.max_entries or runner.settings.min_players


def _seats_left(runner: FilledTournament) -> int:
    return max(0, _wanted(runner) - runner.director.entry_count)


def bot_wait(runner: FilledTournament) -> float:
    """Seconds until the next house bot registers: ``tournament_bot_wait``, shorter while a
    person waits (every seat but the person's filled within ``FILL_SECONDS``)."""
    wait = runner.room.settings.tournament_bot_wait
    if people_registered(runner) == 0:
        return wait
    return min(wait, FILL_SECONDS / max(1, _wanted(runner) - 1))


def waiting_for(runner: FilledTournament, now: float) -> dict[str, Any] | None:
    """What a tournament open for entries waits for (the lobby's ``waiting``): a sit-and-go the
    entries it still needs (``entries_wanted``) and whether house bots fill them
    (``house_bots``: ``filling``, with ``next_bot_in`` seconds; ``after_a_player``, once a
    person registers, while another instance runs; ``None``, the room has none); a scheduled
    tournament its start (``start_at``). ``None`` once it has started."""
    director = runner.director
    if director.started_at is not None or not director.registration_open:
        return None
    if runner.settings.format != "sng":
        return {"start_at": runner.row.start_at}
    bots = bots_may_register(runner)
    return {
        "entries_wanted": _seats_left(runner),
        "house_bots": "filling" if bots else "after_a_player" if _fills(runner) else None,
        "next_bot_in": round(max(0.0, runner.next_bot - now), 1) if bots else None,
    }

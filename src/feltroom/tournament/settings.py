"""A tournament's settings (R-TOURN-1): shown before anyone registers, validated when built.

Amounts are integers: the buy-in, the fee and the guarantee in the currency's smallest unit
(R-GAME-5), the stacks and blinds in tournament chips. An invalid setting is refused with
``InvalidConfiguration`` naming the field and its valid values.

Schedules (R-TOURN-5) are presets: ``turbo`` (5-minute levels) and ``regular`` (10-minute
levels), the same blinds; the big-blind ante from level 4 (No-Limit and Pot-Limit); Fixed-Limit
levels give the small bet (the big blind) and the big bet (twice it). After the last listed level
every level doubles the one before, so a schedule never runs out.
"""

from __future__ import annotations

from dataclasses import dataclass

from feltroom.errors import InvalidConfiguration
from feltroom.table.config import _choice, _int
from feltroom.table.tournament import Level

__all__ = [
    "FORMATS",
    "GAMES",
    "PAYOUTS",
    "SCHEDULES",
    "BreakPolicy",
    "Schedule",
    "TournamentSettings",
    "schedule",
]

FORMATS = ("sng", "mtt")
GAMES = ("fixed_limit", "pot_limit", "no_limit")
PAYOUTS = ("default", "winner_takes_all")

_BLINDS = (
    (10, 20),
    (15, 30),
    (25, 50),
    (50, 100),
    (75, 150),
    (100, 200),
    (150, 300),
    (200, 400),
    (300, 600),
    (400, 800),
    (500, 1000),
    (600, 1200),
    (800, 1600),
    (1000, 2000),
    (1500, 3000),
    (2000, 4000),
    (3000, 6000),
    (4000, 8000),
    (5000, 10000),
    (6000, 12000),
    (8000, 16000),
    (10000, 20000),
    (15000, 30000),
    (20000, 40000),
)
_ANTE_FROM = 4  # the big-blind ante from level 4 on (No-Limit, Pot-Limit)
SCHEDULES = {"turbo": 5, "regular": 10}
"""Schedule presets and their ``level_minutes``."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """A blind schedule: ``levels`` each lasting ``level_minutes`` on the tournament clock
    (R-TOURN-5); past the last level each level doubles the one before."""

    levels: tuple[Level, ...]
    level_minutes: int

    def level(self, number: int) -> Level:
        """Level ``number`` (1-based)."""
        if number < 1:
            raise InvalidConfiguration(f"level {number} does not exist; levels start at 1")
        if number <= len(self.levels):
            return self.levels[number - 1]
        last = self.levels[-1]
        factor = 2 ** (number - len(self.levels))
        big_bet = None if last.big_bet is None else last.big_bet * factor
        return Level(
            last.small_blind * factor, last.big_blind * factor, last.ante * factor, big_bet
        )


def schedule(name: str, game: str, level_minutes: int | None = None) -> Schedule:
    """The preset schedule ``name`` (``turbo``, ``regular``) for ``game``."""
    if name not in SCHEDULES:
        raise InvalidConfiguration(
            f"schedule: {name!r} is not valid; valid values are {', '.join(SCHEDULES)}"
        )
    levels = []
    for number, (small, big) in enumerate(_BLINDS, start=1):
        if game == "fixed_limit":
            levels.append(Level(small, big, 0, 2 * big))
        else:
            levels.append(Level(small, big, big if number >= _ANTE_FROM else 0))
    minutes = SCHEDULES[name] if level_minutes is None else level_minutes
    return Schedule(tuple(levels), minutes)


@dataclass(frozen=True, slots=True)
class BreakPolicy:
    """A synchronized break (R-TOURN-12) of ``minutes`` starting every hour at ``at_minute`` of
    the wall clock (``utc_offset_minutes`` places the wall clock's zone)."""

    at_minute: int = 55
    minutes: int = 5
    utc_offset_minutes: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.at_minute <= 59:
            raise InvalidConfiguration(
                f"breaks.at_minute: {self.at_minute!r} is not valid; valid values are 0..59"
            )
        if not 1 <= self.minutes <= 59:
            raise InvalidConfiguration(
                f"breaks.minutes: {self.minutes!r} is not valid; valid values are 1..59"
            )
        if not -14 * 60 <= self.utc_offset_minutes <= 14 * 60:
            raise InvalidConfiguration(
                f"breaks.utc_offset_minutes: {self.utc_offset_minutes!r} is not valid; valid "
                "values are -840..840"
            )

    def next_start(self, now: float) -> float:
        """The first break start at or after ``now`` (seconds since the epoch)."""
        local = now + 60 * self.utc_offset_minutes
        hour = local - local % 3600
        start = hour + 60 * self.at_minute
        if start < local:
            start += 3600
        return start - 60 * self.utc_offset_minutes


_NO_BREAKS = "none"


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """Every setting of one tournament (R-TOURN-1). See the module docstring.

    ``max_entries``: a sit-and-go starts when this many have registered (one table of 2..10, or
    several tables); a scheduled tournament (``mtt``) takes at most this many (``None``: no
    limit) and starts at its time with at least ``min_players``. ``breaks``: ``None`` for the
    format's default (none for sit-and-gos, 5 minutes at :55 for scheduled ones, R-TOURN-12);
    ``"none"`` for no breaks.
    """

    format: str = "sng"
    game: str = "no_limit"
    seats_per_table: int = 9
    max_entries: int | None = 9
    min_players: int = 2
    starting_stack: int = 1500
    buy_in: int = 1000
    fee: int = 100
    guarantee: int = 0
    schedule: str = "turbo"
    level_minutes: int | None = None
    payouts: str = "default"
    late_registration_levels: int = 0
    re_entries: int = 0
    balance_gap: int = 1
    halt_gap: int = 3
    breaks: BreakPolicy | str | None = None

    def __post_init__(self) -> None:
        _choice("format", self.format, FORMATS)
        _choice("game", self.game, GAMES)
        _choice("schedule", self.schedule, tuple(SCHEDULES))
        _choice("payouts", self.payouts, PAYOUTS)
        _int("seats_per_table", self.seats_per_table, 2, 10)
        _int("min_players", self.min_players, 2)
        _int("starting_stack", self.starting_stack, 1)
        _int("buy_in", self.buy_in, 0)
        _int("fee", self.fee, 0)
        _int("guarantee", self.guarantee, 0)
        _int("late_registration_levels", self.late_registration_levels, 0)
        _int("re_entries", self.re_entries, 0)
        _int("balance_gap", self.balance_gap, 1)
        _int("halt_gap", self.halt_gap, self.balance_gap + 1)
        if self.level_minutes is not None:
            _int("level_minutes", self.level_minutes, 1)
        if self.format == "sng":
            _int("max_entries", self.max_entries, max(2, self.min_players))
            if self.late_registration_levels or self.re_entries:
                raise InvalidConfiguration(
                    "late_registration_levels, re_entries: a sit-and-go starts full; valid "
                    "values are 0"
                )
        elif self.max_entries is not None:
            _int("max_entries", self.max_entries, self.min_players)
        if self.breaks is not None and not isinstance(self.breaks, BreakPolicy):
            _choice("breaks", self.breaks, (_NO_BREAKS,))

    @property
    def break_policy(self) -> BreakPolicy | None:
        """The synchronized breaks (R-TOURN-12): the format's default unless set."""
        if isinstance(self.breaks, BreakPolicy):
            return self.breaks
        if self.breaks == _NO_BREAKS or self.format == "sng":
            return None
        return BreakPolicy()

    @property
    def blind_schedule(self) -> Schedule:
        return schedule(self.schedule, self.game, self.level_minutes)

    @property
    def level_seconds(self) -> int:
        return 60 * self.blind_schedule.level_minutes

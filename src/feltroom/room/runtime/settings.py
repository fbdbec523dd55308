"""How the room runs its tables (``RuntimeSettings``), where its chance comes from
(``Randomness``), and the runtime's constants."""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from feltroom.shuffle import CsprngDeckSource, DeckSource, SeededDeckSource

__all__ = [
    "KEEP_FINISHED",
    "SETTLEMENT_BUCKETS",
    "HomeSettings",
    "Randomness",
    "RuntimeSettings",
]

SETTLEMENT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Upper bounds (seconds) of the settlement latency buckets (feltroom_settlement_seconds)."""


KEEP_FINISHED = 5
"""Finished or cancelled instances of each tournament the lobby keeps showing."""


@dataclass(frozen=True, slots=True)
class HomeSettings:
    """The operator's bounds for home games (the settings file's ``[home]`` section).

    ``games_at_once`` / ``games_per_day``: the games a player may host at once (not ended) and
    create in 24 hours; ``max_seats``: the most seats a game may have; ``min_big_blind`` /
    ``max_big_blind``: the stakes' bounds in the game's chips; ``idle_hours``: a game ends after
    this long with no hand dealt (R-HOME-1). ``currencies``: the wallet currencies a host may
    choose besides the game's own chips (none by default); a game in one is a cash table of that
    currency: the wallet pays, the buy-in bounds of R-BUYIN-1 hold, and the house takes the rake
    set by ``rake_percent``, ``rake_cap`` (in big blinds) and ``no_flop_no_drop`` (R-RAKE-1/3).
    The stakes' bounds are in the units of the game's currency."""

    games_at_once: int = 3
    games_per_day: int = 10
    max_seats: int = 10
    min_big_blind: int = 2
    max_big_blind: int = 1_000_000
    idle_hours: float = 12.0
    currencies: tuple[str, ...] = ()
    rake_percent: int = 5
    rake_cap: int = 6
    no_flop_no_drop: bool = False


@dataclass(frozen=True, slots=True)
class RuntimeSettings:
    """How the room runs its tables.

    ``house_bots``: bots per table (one seat stays free at tables of more than two seats).
    ``bot_think``: a bot's thinking time, drawn between the two bounds (0, 0: at once).
    ``bot_style``: how house bots play: ``tag`` (the default), ``station`` or ``random``.
    ``between_hands``: the pause after a hand before the next deal.
    ``after_showdown``: the pause after a hand that went to a showdown, so that people can read
    who won what with which hand (at least ``between_hands``).
    ``poll``: how often a tournament with a person to act looks at its clock.
    ``idle_look``: the longest a cash table sleeps: it wakes when its clock next has something
    due (``Table.next_due``: a turn's next stage, a blind prompt or seat offer running out, a
    sat-out seat's release), a bot is to act, a hand is to be dealt, or a command or the
    operator wakes it; this is only a backstop (with 0.5 s looks every table cost the room
    a wake-up twice a second, docs/performance.md).
    ``error_pause``: how long a table that failed stays paused.
    ``settle_retry``: how long a settlement the database could not take (not a refusal of the
    room's: a database restarting) is tried again before the table fails (0: it fails at once,
    the single process; a cluster's worker waits as long as the table is still its own, its
    clocks stopped meanwhile).
    ``selftest_first`` / ``selftest_interval``: when the shuffle self-test runs (R-RNG-2).
    ``bot_bankroll``: the play chips granted to a bot's wallet whenever it runs low.
    ``disconnect_grace``: how long a disconnected player keeps playing before they are sat out
    (R-SIT-1, R-TIME-4; in the meantime R-TIME-3 may protect them).
    ``tournament_bot_wait``: while a play-money sit-and-go is open, a house bot registers every
    so many seconds (people register in between; docs/tournaments.md).
    ``require_verified``: real-money tables take only accounts the operator verified (issue 25;
    ``feltroom admin verify NAME``).
    ``bot_restack``: a house bot whose stack passes this many times its buy-in (the table's
    maximum) leaves and buys in again, between hands.
    ``home``: the operator's bounds for home games (``HomeSettings``).
    """

    house_bots: int = 3
    bot_think: tuple[float, float] = (0.5, 2.0)
    bot_style: str = "tag"
    between_hands: float = 2.0
    after_showdown: float = 4.0
    poll: float = 0.5
    idle_look: float = 30.0
    error_pause: float = 60.0
    settle_retry: float = 0.0
    selftest_first: float = 600.0
    selftest_interval: float = 24 * 3600.0
    selftest_shuffles: int = 100_000
    bot_bankroll: int = 100_000_000
    disconnect_grace: float = 60.0
    tournament_bot_wait: float = 20.0
    require_verified: bool = True
    bot_restack: int = 3
    home: HomeSettings = HomeSettings()

    def pauses(self) -> dict[str, float]:
        """Every pace the room keeps, by setting, in seconds: a house bot's longest thinking
        time, the pause between hands and the one after a showdown (a benchmark that measures
        the room's work turns them all off: ``unpaced``)."""
        return {
            "bot_think": max(self.bot_think),
            "between_hands": self.between_hands,
            "after_showdown": self.after_showdown,
        }

    def unpaced(self) -> RuntimeSettings:
        """These settings with every pause of ``pauses`` off: bots act at once, the next hand is
        dealt as soon as the last is settled, showdown or not."""
        return replace(self, bot_think=(0.0, 0.0), between_hands=0.0, after_showdown=0.0)


def _fresh_seed() -> int:
    return secrets.randbits(64)


def _fresh_id() -> str:
    return uuid.uuid4().hex


def _system_decks(table_id: str) -> DeckSource:
    return CsprngDeckSource()


def _system_bot_seed(account: str) -> int | str | None:
    return None


@dataclass(frozen=True, slots=True)
class Randomness:
    """Where the room's chance comes from; the defaults are the production sources.

    ``decks(table_id)``: a table's deck source (decks and the salts of their commitments: the
    CSPRNG, ``CsprngDeckSource``). ``bot_seed(account)``: the seed of a house bot's brain and
    thinking times (``None``: seeded by the system). ``tournament_seed()``: a new tournament
    instance's seed (its seat draws; ``secrets.randbits(64)``). ``new_id()``: a unique id in the
    references of play-chip grants (``uuid4``). ``seeded(seed)`` gives a reproducible room for
    tests; never use it to deal real hands.
    """

    decks: Callable[[str], DeckSource] = _system_decks
    bot_seed: Callable[[str], int | str | None] = _system_bot_seed
    tournament_seed: Callable[[], int] = _fresh_seed
    new_id: Callable[[], str] = _fresh_id

    @classmethod
    def seeded(cls, seed: int | str) -> Randomness:
        """Every source drawn from ``seed`` (tests, replays)."""
        seeds = random.Random(f"tournaments:{seed}")
        ids = random.Random(f"ids:{seed}")
        return cls(
            decks=lambda table_id: SeededDeckSource(f"{seed}:{table_id}"),
            bot_seed=lambda account: f"{seed}:{account}",
            tournament_seed=lambda: seeds.getrandbits(64),
            new_id=lambda: f"{ids.getrandbits(128):032x}",
        )

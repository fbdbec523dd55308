"""House bots: accounts the room plays itself, in-process, so that a newcomer sees live play.

A house bot is an account flagged ``bot`` in the database (``Accounts.ensure_bot``), so it is
clearly marked wherever accounts are listed. It plays through the same table interface a person's
seat uses (``Table.act`` with the seat's own view and the legal options), choosing with a brain of
the strategy layer: the random brain by default, or the style the room names (``house_bot``).
Its play chips come from grants to its wallet; it buys in like anyone (``Settlement.buy_in``) and
buys again when busted.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from feltroom.rules import Action, Hand
from feltroom.strategy import Brain, make_brain, reads_view
from feltroom.table import TableConfig

__all__ = ["HouseBot", "bot_buy_in", "bot_name", "bot_seats", "house_bot"]


def bot_name(table_id: str, k: int) -> str:
    """The name of a table's k-th house bot (at most 32 characters, a valid account name)."""
    name = f"bot.{table_id}.{k}"
    if len(name) <= 32:
        return name
    return f"bot.{hashlib.sha256(table_id.encode()).hexdigest()[:12]}.{k}"


def bot_seats(config: TableConfig, wanted: int) -> int:
    """How many house bots a table gets: ``wanted``, leaving one seat free for a person at
    tables of more than two seats."""
    room = config.max_seats if config.max_seats <= 2 else config.max_seats - 1
    return max(0, min(wanted, room))


def bot_buy_in(config: TableConfig) -> int:
    """What a house bot brings: the maximum buy-in, or ten minimums (a hundred big bets at a
    limit table) where there is none."""
    return config.buy_in_max if config.buy_in_max is not None else 10 * config.buy_in_min


@dataclass(slots=True)
class HouseBot:
    """One house bot at one table: its brain and how long it 'thinks' before acting."""

    account: str
    brain: Brain
    think: tuple[float, float] = (0.0, 0.0)
    rng: random.Random = field(default_factory=random.Random)
    act_at: float | None = None
    reads_view: bool = False

    def delay(self) -> float:
        low, high = self.think
        return low if high <= low else self.rng.uniform(low, high)

    def choose(self, hand: Hand, seat: int) -> Action:
        """An action for ``seat`` from the legal options and, for a brain that reads it, what
        the seat may see (``view_for(seat)``: never another player's hole cards). The random
        brain reads only the legal options, so it is given no view at all."""
        legal = hand.legal_actions()
        assert legal is not None
        view = hand.view_for(seat) if self.reads_view else None
        return self.brain.choose(view, legal)


def house_bot(
    account: str,
    style: str,
    think: tuple[float, float] = (0.0, 0.0),
    seed: int | str | None = None,
) -> HouseBot:
    """A house bot playing ``style`` (``strategy.STYLES``): ``random`` is the random brain
    weighed toward calling (fewer all-ins, fewer busted bots); a brain that reads the hand
    (``tag``) is given the seat's own view. ``seed`` (tests and replays) seeds its brain and
    its thinking times; ``None``, the room's default, seeds them from the system."""
    rng = random.Random() if seed is None else random.Random(f"think:{seed}")
    return HouseBot(account, make_brain(style, seed), think, rng, reads_view=reads_view(style))

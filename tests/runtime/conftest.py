"""Fixtures for the runtime's tests: the runtime's clock and a room factory (the database and
the room's services come from tests/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tournaments_config import parse_tournaments

from .support import Clock, Room, tables


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_room(settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock) -> Room:
    def make(text: str, tournaments: str = "", **settings: Any) -> RoomRuntime:
        options: dict[str, Any] = {
            "house_bots": 3,
            "bot_think": (1.0, 1.0),
            "between_hands": 1.0,
            "selftest_first": 10**9,
        }
        options.update(settings)
        extra: dict[str, Any] = {
            name: options.pop(name) for name in ("selftest", "randomness") if name in options
        }
        return RoomRuntime(
            settlement,
            accounts,
            cashier,
            tables(text),
            tournaments=parse_tournaments(tournaments) if tournaments else (),
            settings=RuntimeSettings(**options),
            clock=clock,
            **extra,
        )

    return make

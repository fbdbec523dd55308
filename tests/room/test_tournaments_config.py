"""``[[tournament]]`` entries in the tables file (R-TOURN-1: the settings shown before anyone
registers)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from feltroom.room.errors import RoomError
from feltroom.room.tables_config import parse_tables
from feltroom.room.tournaments_config import parse_tournaments
from feltroom.tournament import BreakPolicy

FILE = """
[[table]]
id = "cash-1"
preset = "nl_25_50"
currency = "PLAY"
big_blind = 2
small_blind = 1
min_buy_in = 40
max_buy_in = 200

[[tournament]]
id = "sng9"
format = "sng"
max_entries = 9
buy_in = 100
fee = 10

[[tournament]]
id = "nightly"
currency = "USD"
format = "mtt"
max_entries = 1000
game = "pot_limit"
schedule = "regular"
buy_in = 1000
fee = 100
guarantee = 100000
late_registration_levels = 3
re_entries = 1
breaks = { at_minute = 55, minutes = 5 }
start = "2026-03-28T20:00"
time_zone = "Europe/Berlin"
repeat = "daily"
"""


def test_R_TOURN_1_tournaments_beside_the_cash_tables() -> None:
    assert [t.table_id for t in parse_tables(FILE)] == ["cash-1"]
    sng, nightly = parse_tournaments(FILE)
    assert sng.settings.format == "sng"
    assert sng.settings.max_entries == 9
    assert sng.recurring
    assert sng.currency == "PLAY"
    assert sng.next_start(0.0) is None
    assert [sng.instance_id(n) for n in (1, 2)] == ["sng9-1", "sng9-2"]
    assert nightly.currency == "USD"
    assert nightly.settings.game == "pot_limit"
    assert nightly.settings.re_entries == 1
    assert nightly.settings.break_policy == BreakPolicy(55, 5)
    assert not nightly.recurring
    berlin = ZoneInfo("Europe/Berlin")
    first = datetime(2026, 3, 28, 20, 0, tzinfo=berlin)
    assert nightly.next_start(first.timestamp()) == first
    # across the change to summer time (29 March 2026) the start stays at 20:00 local time
    after = nightly.next_start(first.timestamp() + 1)
    assert after == datetime(2026, 3, 29, 20, 0, tzinfo=berlin)
    assert after is not None
    assert after.timestamp() - first.timestamp() == 23 * 3600
    assert nightly.instance_id(start=after) == "nightly-20260329T2000"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('id = "x"\nformat = "mtt"', "needs start"),
        ('id = "x"\nformat = "mtt"\nstart = "tomorrow"', "not a local time"),
        (
            'id = "x"\nformat = "mtt"\nstart = "2026-01-01T20:00"\ntime_zone = "Mars/Base"',
            "not a known IANA time zone",
        ),
        (
            'id = "x"\nformat = "mtt"\nstart = "2026-01-01T20:00"\nrepeat = "hourly"',
            "repeat: 'hourly' is not valid; valid values are none, daily, weekly",
        ),
        ('id = "x"\nformat = "sng"\nstart = "2026-01-01T20:00"', "starts when full"),
        ('id = "x"\nseats = 9', "unknown settings seats"),
        ('id = "x"\nbuy_in = -5', "tournament x: buy_in: -5 is not valid"),
        ('id = "x"\nbreaks = { every = 60 }', "unknown keys every"),
        ('format = "sng"', "needs an id"),
    ],
)
def test_invalid_tournament_entries_are_refused(entry: str, message: str) -> None:
    with pytest.raises(RoomError, match=message):
        parse_tournaments(f"[[tournament]]\n{entry}\n")


def test_tournament_ids_are_unique() -> None:
    text = '[[tournament]]\nid = "a"\n[[tournament]]\nid = "a"\n'
    with pytest.raises(RoomError, match="used twice: a"):
        parse_tournaments(text)
    assert parse_tournaments('[[table]]\nid = "t"\nbig_blind = 2\n') == []

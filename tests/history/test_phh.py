"""PHH reading and writing: fields, positions, exact amounts, the TOML subset reader."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feltroom.cards import Card
from feltroom.history import phh, toml_subset
from feltroom.history.record import ActionKind, ForcedBet, ForcedKind, Structure

SIX_MAX = """\
variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [50, 100, 0, 0, 0, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000, 10000, 10000, 10000]
actions = ['d dh p1 3c9s', 'd dh p2 6d5s', 'd dh p3 9dTs', 'd dh p4 2sQs', 'd dh p5 AdKd', \
'd dh p6 7cTc', 'p3 f', 'p4 f', 'p5 cbr 225', 'p6 f', 'p1 f', 'p2 f']
hand = 0
players = ['MrWhite', 'Gogo', 'Budd', 'Eddie', 'Bill', 'Pluribus']
finishing_stacks = [9950, 9900, 10000, 10000, 10150, 10000]
"""

DECIMALS = """\
[1]
variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0, 0, 0]
blinds_or_straddles = [0.10, 0.25, -0.25, 0, 0]
min_bet = 0.25
starting_stacks = [48.30, 7.95, 12.80, 7.75, 30.20]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', \
'p3 cc', 'p4 f', 'p5 f', 'p1 cc', 'p2 cc', 'd db Qd2dTs', 'p1 cbr 0.75', 'p2 f', 'p3 cbr 2', \
'p1 cc', 'd db 9c', 'p1 cc', 'p3 cbr 2.50', 'p1 cc', 'd db 9d', 'p1 cc', 'p3 cc', \
'p1 sm QsKc', 'p3 sm ????']
time = 00:00:01
seats = [5, 6, 2, 3, 4]
seat_count = 6

[2]
variant = 'FT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
small_bet = 2
big_bet = 4
starting_stacks = [100, 80]
actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 cc', 'p1 cc']
"""


def test_reads_a_six_max_hand_in_position_order() -> None:
    record = phh.loads(SIX_MAX)
    assert record.structure is Structure.NO_LIMIT
    assert record.seats == (1, 2, 3, 4, 5, 6)
    assert record.button == 6  # the last player in PHH order has the button
    assert record.forced_bets == (
        ForcedBet(1, ForcedKind.SMALL_BLIND, 50),
        ForcedBet(2, ForcedKind.BIG_BLIND, 100),
    )
    assert record.players[4].hole == (Card.parse("Ad"), Card.parse("Kd"))
    assert record.players[0].name == "MrWhite"
    assert record.actions[2].kind is ActionKind.BET_RAISE
    assert record.actions[2].amount == 225
    assert record.finishing_stacks == tuple(
        Decimal(v) for v in (9950, 9900, 10000, 10000, 10150, 10000)
    )


# Rules: R-GAME-5
def test_R_GAME_5_decimal_amounts_become_integer_units_exactly() -> None:
    first, second = phh.loads_all(DECIMALS)
    assert first.exponent == 2
    assert [p.stack for p in first.players] == [4830, 795, 1280, 775, 3020]
    assert all(isinstance(p.stack, int) for p in first.players)
    assert first.forced_bets == (
        ForcedBet(5, ForcedKind.SMALL_BLIND, 10),
        ForcedBet(6, ForcedKind.BIG_BLIND, 25),
        ForcedBet(2, ForcedKind.POST, 25),  # a negative entry is an entry post
    )
    raises = [a.amount for a in first.actions if a.kind is ActionKind.BET_RAISE]
    assert raises == [75, 200, 250]
    assert first.button == 4
    assert first.seat_count == 6
    assert first.players[0].hole == (None, None)
    show, face_down = first.actions[-2:]
    assert show.kind is ActionKind.SHOW
    assert face_down.kind is ActionKind.SHOW
    assert face_down.cards == (None, None)
    assert second.exponent == 0


def test_heads_up_blinds_and_antes_are_reversed() -> None:
    record = phh.loads_all(DECIMALS)[1]
    # p1 is the big blind, p2 the button who posts the small blind (the array reads reversed).
    assert record.button == 2
    assert record.forced_bets == (
        ForcedBet(2, ForcedKind.SMALL_BLIND, 1),
        ForcedBet(1, ForcedKind.BIG_BLIND, 2),
    )
    assert record.structure is Structure.FIXED_LIMIT
    assert (record.stakes.small_bet, record.stakes.big_bet) == (2, 4)
    text = phh.dumps(record)
    assert "blinds_or_straddles = [1, 2]" in text
    assert phh.loads(text) == record


def test_write_then_read_gives_the_same_record() -> None:
    for record in [phh.loads(SIX_MAX), *phh.loads_all(DECIMALS)]:
        assert phh.loads(phh.dumps(record)) == record
    both = phh.loads_all(DECIMALS)
    assert phh.loads_all(phh.dumps_all(both)) == both


def test_written_fields_follow_the_mapping() -> None:
    text = phh.dumps(phh.loads_all(DECIMALS)[0])
    fields = tomllib.loads(text, parse_float=Decimal)
    assert fields["blinds_or_straddles"] == [
        Decimal("0.10"),
        Decimal("0.25"),
        Decimal("-0.25"),
        0,
        0,
    ]
    assert fields["seats"] == [5, 6, 2, 3, 4]
    assert fields["seat_count"] == 6
    assert fields["_button"] == 4
    assert "p3 cbr 2.00" in fields["actions"]


def test_dead_blinds_are_written_as_antes_and_read_back() -> None:
    record = phh.loads(SIX_MAX)
    dead = ForcedBet(4, ForcedKind.DEAD_BLIND, 50)
    with_dead = type(record)(
        **{
            **{f: getattr(record, f) for f in record.__dataclass_fields__},
            "forced_bets": (*record.forced_bets, dead),
        }
    )
    text = phh.dumps(with_dead)
    fields = tomllib.loads(text)
    assert fields["antes"] == [0, 0, 0, 50, 0, 0]
    assert fields["_dead_blinds"] == [0, 0, 0, 50, 0, 0]
    assert phh.loads(text).forced_bets == (dead, *record.forced_bets)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (SIX_MAX.replace("'NT'", "'PO'"), "not Texas Hold'em"),
        (SIX_MAX.replace("min_bet = 100\n", ""), "'min_bet' is missing"),
        (SIX_MAX.replace("'p3 f'", "'p9 f'"), "no player 'p9'"),
        (SIX_MAX.replace("'p3 f'", "'p3 zz'"), "unknown or malformed action"),
        (SIX_MAX.replace("antes = [0, 0, 0, 0, 0, 0]", "antes = [0, 0]"), "antes has 2 entries"),
        (SIX_MAX.replace("3c9s", "3c9"), "pairs of characters"),
    ],
)
def test_malformed_hands_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(phh.PHHError, match=message):
        phh.loads(text)


def test_commentary_and_show_dash() -> None:
    text = SIX_MAX.replace(
        "'p2 f'",
        "'p2 cc # calls', 'd db AhKhQh', 'p2 cc', 'p5 cc', "
        "'d db 2c', 'p2 cc', 'p5 cc', 'd db 2d', 'p2 cc', 'p5 cc', "
        "'p2 sm -', 'p5 sm'",
    )
    record = phh.loads(text)
    assert record.actions[-2].cards == (Card.parse("6d"), Card.parse("5s"))
    assert record.actions[-1].kind is ActionKind.MUCK
    assert len(record.board) == 5


# ------------------------------------------------------------------------ the TOML subset reader

_scalars = st.one_of(
    st.integers(-(10**12), 10**12),
    st.decimals(
        allow_nan=False, allow_infinity=False, places=2, min_value=-(10**6), max_value=10**6
    ),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.booleans(),
)


def _toml_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_text(v) for v in value) + "]"
    return phh._toml(value)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
        st.one_of(_scalars, st.lists(_scalars, max_size=5)),
        max_size=6,
    )
)
def test_subset_reader_agrees_with_tomllib(fields: dict[str, Any]) -> None:
    text = "\n".join(f"{key} = {_toml_text(value)}" for key, value in fields.items())
    assert toml_subset.loads(text) == tomllib.loads(text, parse_float=Decimal)


@pytest.mark.parametrize(
    "text",
    [
        "a = [\n  1,\n  2,\n]\n",
        'a = "x\\ty"\n',
        "a.b = 1\n",
        "a = 1_000\n",
        "a = 1979-05-27\n",
        "[1]\na = 1\n[2]\na = 2 # two\n",
        "a = 'x' # note\nb = [1, 'two', 3.50, true] # list\n",
        "t = 07:32:00\n",
        "x = inf\ny = -0.0\nz = 1e3\n",
    ],
)
def test_subset_reader_matches_tomllib_on_edge_cases(text: str) -> None:
    assert toml_subset.loads(text) == tomllib.loads(text, parse_float=Decimal)


@pytest.mark.parametrize("text", ["a = 1\na = 2\n", "a = 01\n", "a = [1, 2\n", "= 1\n"])
def test_subset_reader_refuses_what_tomllib_refuses(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        toml_subset.loads(text)

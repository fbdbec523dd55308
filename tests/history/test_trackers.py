"""What a tracker (PokerTracker 4, Hold'em Manager 3) needs of a converted file: the hand's own
date, mucked hands kept (R-HIST-2, R-SHOW-5), two blank lines between PokerStars hands (PokerKit's
PokerStars parser reads them), one hero, and the table's name."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import replace
from datetime import UTC, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from feltroom.cli import main
from feltroom.history import phh, pokerstars, pokerstars_import
from feltroom.history.record import ActionKind, HandRecord
from feltroom.history.replay import record_from_hand, replay
from feltroom.money import PLAY
from feltroom.rules import CardsMucked, CardsShown

from .corpora import PHH
from .test_pokerstars_export import limit_muck_hand

PLURIBUS = PHH / "pluribus" / "83"
HANDHQ = next((PHH / "handhq").rglob("*.phhs"))
DATED = "year = 2026\nmonth = 3\nday = 14\ntime = 21:47:13\ntime_zone = 'UTC'\ntable = 'Birch'\n"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["convert", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _headers(text: str) -> list[str]:
    return re.findall(r"^PokerStars Hand #\d+: .* - (.*)$", text, re.M)


def _dated(tmp_path: Path, extra: str = DATED, name: str = "63.phh") -> Path:
    path = tmp_path / f"dated-{name}"
    path.write_text((PLURIBUS / name).read_text(encoding="utf-8") + "\n" + extra, "utf-8")
    return path


# ------------------------------------------------------------------------------ 1. dates


def test_a_phh_hand_is_dated_by_its_own_time_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = str(_dated(tmp_path))
    code, out, err = _run(capsys, "--to", "pokerstars", path)
    assert (code, err) == (0, "")
    # 21:47:13 UTC on 14 March 2026 is 17:47:13 in New York (daylight time since 8 March)
    assert _headers(out) == ["2026/03/14 17:47:13 ET"]
    assert "Table 'Birch' " in out  # the table by its name
    code, out, err = _run(capsys, "--to", "ohh", path)
    document = json.loads(out)["ohh"]
    assert document["start_date_utc"] == "2026-03-14T21:47:13Z"
    assert document["table_name"] == document["table_handle"] == "Birch"
    code, out, err = _run(capsys, "--to", "phh", path)
    (record,) = phh.loads_all(out)
    assert (record.metadata["year"], record.metadata["month"], record.metadata["day"]) == (
        2026,
        3,
        14,
    )
    assert record.metadata["table"] == "Birch"


def test_a_time_in_et_stays_the_same_time_in_the_header(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The handhq hands: ``time = 00:00:00``, 1 July 2009, ``time_zone_abbreviation = 'ET'``."""
    code, out, err = _run(capsys, "--to", "pokerstars", str(HANDHQ))
    assert (code, err) == (0, "")
    headers = _headers(out)
    assert len(headers) == 19
    times = [record.metadata["time"] for record in phh.load_file(HANDHQ)]
    assert headers == [f"2009/07/01 0:{t:%M:%S} ET" for t in times]
    code, out, _ = _run(capsys, "--to", "ohh", str(HANDHQ))
    starts = [json.loads(line)["ohh"]["start_date_utc"] for line in out.splitlines()]
    assert starts == [f"2009-07-01T04:{t:%M:%S}Z" for t in times]  # EDT is UTC-4


def test_a_hand_without_a_date_gets_the_time_of_the_conversion_never_the_epoch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    code, out, err = _run(capsys, "--to", "ohh", str(PLURIBUS / "63.phh"), str(PLURIBUS / "53.phh"))
    after = datetime.now(UTC)
    assert (code, err) == (0, "")
    for line in out.splitlines():
        started = datetime.fromisoformat(json.loads(line)["ohh"]["start_date_utc"])
        assert before <= started <= after
    code, out, err = _run(capsys, "--to", "pokerstars", str(PLURIBUS / "63.phh"))
    (header,) = _headers(out)
    assert not header.startswith(("1969", "1970"))
    assert header.startswith(f"{before.year}/")


def test_the_library_exports_default_to_now_not_the_epoch() -> None:
    hand = limit_muck_hand()
    text = pokerstars.dumps(
        hand,
        hand_id=1,
        table_name="Birch",
        hero=None,
        names={1: "Ann", 2: "Bob", 3: "Cy"},
        currency=PLAY,
    )
    (header,) = _headers(text)
    assert not header.startswith(("1969", "1970"))
    moment = datetime.strptime(header.removesuffix(" ET"), "%Y/%m/%d %H:%M:%S")
    assert abs((moment - datetime.now(pokerstars.EASTERN).replace(tzinfo=None)).days) <= 1


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"year": 2026, "month": 13, "day": 1}, "are not a date"),
        ({"year": 2026, "day": 1}, "needs whole numbers in year, month and day"),
        ({"year": 2026, "month": 1, "day": 1, "time_zone": "Mars/Olympus"}, "IANA name"),
        ({"year": 2026, "month": 1, "day": 1, "time_zone_abbreviation": "XYZ"}, "known: UTC"),
        ({"year": 2026, "month": 1, "day": 1, "time": "noon"}, "a local time"),
    ],
)
def test_a_bad_date_is_refused_with_what_is_valid(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        phh.started_at(fields)


def test_dates_read_in_their_zone() -> None:
    assert phh.started_at({}) is None
    day_only = phh.started_at({"year": 2023, "month": 6, "day": 22})
    assert day_only == datetime(2023, 6, 22, tzinfo=UTC)
    paris = phh.started_at(
        {"year": 2024, "month": 1, "day": 5, "time": time(9, 30), "time_zone": "Europe/Paris"}
    )
    assert paris is not None
    assert paris.astimezone(UTC) == datetime(2024, 1, 5, 8, 30, tzinfo=UTC)


def test_a_bad_date_names_the_hand_and_the_rest_are_converted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = _dated(tmp_path, DATED.replace("month = 3", "month = 13"))
    code, out, err = _run(capsys, "--to", "pokerstars", str(bad), str(PLURIBUS / "53.phh"))
    assert code == 1
    assert f"{bad} hand 1: year, month and day are not a date" in err
    assert out.count("PokerStars Hand #") == 1


# ------------------------------------------------------------------------------ 2. mucked hands


NAMES = ["Ann", "Bob", "Cy"]  # by seat 1, 2, 3; Cy (seat 3, the button) mucks 8s 9s


def _muck_file(tmp_path: Path, record: HandRecord | None = None) -> Path:
    hand = limit_muck_hand()
    record = record or record_from_hand(
        hand, names=[NAMES[seat - 1] for seat in hand.seats], seat_count=6, hand_id=7
    )
    path = tmp_path / "muck.phh"
    path.write_text(phh.dumps(replace(record, metadata={"table": "Birch"})), encoding="utf-8")
    return path


# Rules: R-SHOW-5, R-HIST-2
def test_R_SHOW_5_a_mucked_hand_keeps_its_cards_through_the_replay(tmp_path: Path) -> None:
    (record,) = phh.load_file(_muck_file(tmp_path))
    assert [a.kind for a in record.actions].count(ActionKind.MUCK) == 1
    hand = replay(record)
    assert [str(card) for card in hand.hole_cards(3)] == ["8s", "9s"]
    assert [e.seat for e in hand.events if isinstance(e, CardsMucked)] == [3]
    assert [e.seat for e in hand.events if isinstance(e, CardsShown)] == [1]
    assert hand.final_stacks == limit_muck_hand().final_stacks


# Rules: R-SHOW-5, R-HIST-2
def test_R_SHOW_5_the_player_who_mucked_is_dealt_their_cards_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = str(_muck_file(tmp_path))
    code, out, err = _run(capsys, "--to", "pokerstars", "--hero", "Cy", path)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "Dealt to Cy [8s 9s]" in lines
    assert "Cy: mucks hand" in lines
    assert "Seat 3: Cy (button) mucked [8s 9s]" in lines
    # another player of the showdown sees the muck (R-SHOW-5); a folded player's cards stay hidden
    code, out, err = _run(capsys, "--to", "pokerstars", "--hero", "Ann", path)
    assert "Seat 3: Cy (button) mucked [8s 9s]" in out.splitlines()
    assert "2c" not in out
    code, out, err = _run(capsys, "--to", "ohh", "--hero", "Cy", path)
    document = json.loads(out)["ohh"]
    actions = [a for r in document["rounds"] for a in r["actions"]]
    (dealt,) = [a for a in actions if a["action"] == "Dealt Cards"]
    assert dealt["cards"] == ["8s", "9s"]
    (muck,) = [a for a in actions if a["action"] == "Mucks Cards"]
    assert muck["cards"] == ["8s", "9s"]


# Rules: R-SHOW-1
def test_R_SHOW_1_a_record_that_mucks_the_best_hand_replays_as_recorded(tmp_path: Path) -> None:
    """Ann (seat 1) holds the best hand; a record where she mucks it and Cy shows his gives the
    pot to Cy, as the record says happened, and her cards stay unknown."""
    hand = limit_muck_hand()
    record = record_from_hand(hand, names=[NAMES[seat - 1] for seat in hand.seats])
    cy_cards = tuple(hand.hole_cards(3))
    swapped = {
        ActionKind.SHOW: lambda a: replace(a, kind=ActionKind.MUCK, cards=()),
        ActionKind.MUCK: lambda a: replace(a, kind=ActionKind.SHOW, cards=cy_cards),
    }
    actions = tuple(swapped[a.kind](a) if a.kind in swapped else a for a in record.actions)
    (again,) = phh.load_file(_muck_file(tmp_path, replace(record, actions=actions)))
    played = replay(again)
    assert played.hole_cards(1) == (None, None)
    stacks = dict(zip((s for s, _ in played.setup.players), played.final_stacks, strict=True))
    assert stacks[3] > 500 > stacks[1]


# ------------------------------------------------------------------------------ 3. several hands


def _pokerkit(text: str) -> list[Any]:
    from pokerkit import HandHistory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about the time zone field
        return list(HandHistory.from_pokerstars(text, parse_value=Decimal, error_status=True))


def test_several_hands_in_one_file_are_read_by_pokerkits_pokerstars_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = sorted(PLURIBUS.glob("*.phh"), key=lambda p: int(p.stem))[:12]
    code, out, err = _run(capsys, "--to", "pokerstars", *map(str, names))
    assert (code, err) == (0, "")
    # two blank lines between hands, as the site writes them
    assert out.count("\n\n\nPokerStars Hand #") == len(names) - 1
    assert "\n\n\n\n" not in out
    histories = _pokerkit(out)
    assert len(histories) == len(names)
    for history, path in zip(histories, names, strict=True):
        (record,) = phh.load_file(path)
        hand = replay(record)
        ours = {
            p.name: Decimal(final)
            for p, final in zip(
                record.players,
                [dict(zip(hand.seats, hand.final_stacks, strict=True))[s] for s in hand.seats],
                strict=True,
            )
        }
        state = list(history)[-1]
        assert dict(zip(history.players, state.stacks, strict=True)) == ours, path.name
    # our own importer splits the file the same way
    assert len(pokerstars_import.loads(out).records) == len(names)


# ------------------------------------------------------------------------------ 4. the hero


def test_only_the_heros_dealt_to_line_carries_cards(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(PLURIBUS / name) for name in ("63.phh", "53.phh", "104.phh")]
    code, out, err = _run(capsys, "--to", "pokerstars", *paths)
    assert (code, err) == (0, "")
    assert not re.search(r"^Dealt to .*\[", out, re.M)
    code, out, err = _run(capsys, "--to", "pokerstars", "--hero", "Pluribus", *paths)
    assert (code, err) == (0, "")
    dealt = re.findall(r"^Dealt to (.*) \[", out, re.M)
    assert dealt == ["Pluribus"] * 3
    code, out, err = _run(capsys, "--to", "ohh", *paths)
    for line in out.splitlines():
        document = json.loads(line)["ohh"]
        assert "hero_player_id" not in document
        actions = [a["action"] for r in document["rounds"] for a in r["actions"]]
        assert "Dealt Cards" not in actions


def test_a_pokerstars_file_keeps_its_own_hero(capsys: pytest.CaptureFixture[str]) -> None:
    path = PHH.parent / "pokerstars" / "nlhe-cash-6max-eur-dealt-to-hero.txt"
    code, out, err = _run(capsys, "--to", "pokerstars", str(path))
    assert (code, err) == (0, "")
    assert re.findall(r"^Dealt to (.*) \[", out, re.M) == ["PS_Hero"]

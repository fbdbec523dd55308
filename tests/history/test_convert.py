"""``feltroom convert``: PHH hands to PokerStars text, OHH and PHH."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from feltroom.cli import main
from feltroom.history import ohh, phh
from feltroom.history.replay import replay

from .corpora import PHH

PLURIBUS = PHH / "pluribus" / "83"
FILES = ("63.phh", "53.phh", "104.phh")


def _paths() -> list[str]:
    return [str(PLURIBUS / name) for name in FILES]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["convert", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _units(text: str) -> int:
    return int(text.replace(",", ""))


def test_pokerstars_one_header_per_hand_and_summaries_reconcile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "--to", "pokerstars", *_paths())
    assert code == 0, err
    assert out.count("PokerStars Hand #") == len(FILES)
    hands = [h for h in re.split(r"\n\n(?=PokerStars Hand #)", out) if h.strip()]
    assert len(hands) == len(FILES)
    assert hands[0].startswith("PokerStars Hand #63:")
    for text in hands:
        total = re.search(r"Total pot (\d+)(?: Main pot \d+\.)?.*\| Rake (\d+)", text)
        assert total is not None
        collected = sum(_units(m) for m in re.findall(r"collected (\d+) from", text))
        assert collected + _units(total.group(2)) == _units(total.group(1))


def test_ohh_lines_validate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--to", "ohh", *_paths())
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == len(FILES)
    for line in lines:
        document = json.loads(line)
        assert ohh.validate(document) == []
        assert document["ohh"]["table_name"].endswith(".phh")


def test_phh_reads_back_and_replays_to_the_same_stacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "--to", "phh", *_paths())
    assert code == 0, err
    records = phh.loads_all(out)
    assert len(records) == len(FILES)
    for record, name in zip(records, FILES, strict=True):
        original = phh.load_file(PLURIBUS / name)[0]
        assert replay(record).final_stacks == replay(original).final_stacks
        assert [p.name for p in record.players] == [p.name for p in original.players]


def test_hero_hides_a_folded_opponent(capsys: pytest.CaptureFixture[str]) -> None:
    # Hand 63: Pluribus folds preflop; Bill and MrBlue show down.
    path = str(PLURIBUS / "63.phh")
    _, full, _ = _run(capsys, "--to", "pokerstars", path)
    assert "Dealt to" not in full  # no hero: no one's Dealt to line
    assert "2s 5c" not in full
    assert "Bill: shows [6s 8h]" in full  # the showdown's cards where they were shown
    code, out, err = _run(capsys, "--to", "pokerstars", "--hero", "Pluribus", path)
    assert code == 0, err
    assert "Dealt to Pluribus [4h 3d]" in out
    assert "2s 5c" not in out
    assert "Dealt to MrWhite" not in out
    assert "[6s 8h]" in out  # a showdown hand stays visible
    code, out, err = _run(capsys, "--to", "ohh", "--hero", "Pluribus", path)
    assert code == 0, err
    document = json.loads(out)["ohh"]
    carded = {
        action["player_id"]
        for round_ in document["rounds"]
        for action in round_["actions"]
        if action.get("cards")
    }
    assert carded == {0, 1, 2}  # Bill and MrBlue (showdown), Pluribus (hero)
    code, out, err = _run(capsys, "--to", "phh", "--hero", "Pluribus", path)
    assert code == 0, err
    assert "2s5c" not in out
    assert "4h3d" in out
    assert phh.loads_all(out)[0].players[3].hole == (None, None)


def test_bad_imports_are_reported_and_the_rest_converted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stars = tmp_path / "stars.txt"
    stars.write_text("PokerStars Hand #1:  Hold'em No Limit (1/2) - 2020/01/01 0:00:00 ET\n")
    open_hh = tmp_path / "hand.ohh"
    open_hh.write_text('{"ohh": {"spec_version": "1.4.6"}}\n')
    code, out, err = _run(
        capsys, "--to", "pokerstars", str(stars), str(open_hh), str(PLURIBUS / "63.phh")
    )
    assert code == 1
    assert f"{stars}: line 1: hand 1: expected the table line" in err
    assert f"{open_hh}: line 1: a hand: does not fit the OHH schema: $.ohh: missing" in err
    assert out.count("PokerStars Hand #") == 1


def test_a_bad_hand_is_named_and_the_rest_converted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = (PLURIBUS / "63.phh").read_text(encoding="utf-8")
    bad = good.replace("'p1 cc', 'p2 cc', 'd db JcQh3s'", "'p2 cc', 'd db JcQh3s'")
    hands = tmp_path / "two.phhs"
    hands.write_text(f"[1]\n{bad}\n[2]\n{good}\n", encoding="utf-8")
    code, out, err = _run(capsys, "--to", "ohh", str(hands))
    assert code == 1
    assert f"{hands} hand 1:" in err
    assert len(out.splitlines()) == 1

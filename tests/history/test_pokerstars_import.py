"""PokerStars text import: the real hands (tests/data, and ../shared in the corpus run), bad
hands, byte-level robustness, names with spaces and colons, and ``feltroom convert`` of
PokerStars input."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from feltroom.cards import Card, parse_cards
from feltroom.cli import main
from feltroom.history import phh, pokerstars, pokerstars_import
from feltroom.history.imports import rake_record
from feltroom.history.record import ForcedKind, HandRecord, Stakes, Structure
from feltroom.history.replay import replay
from feltroom.money import PLAY, Currency, to_units
from feltroom.rules import Call, Check, Fold, Hand, NoLimit, RaiseTo, RakeRule, blinds, rake_pots

from .corpora import PHH, POKERSTARS, SHARED_POKERSTARS

SHARED = POKERSTARS  # the real samples, kept in tests/data
FILES = sorted(SHARED.glob("*.txt"))
TEN_HANDS = SHARED / "nlhe-cash-9max-ten-hands-one-file.txt"
# every sample of tests/data, then (marker ``corpus``) every file of ../shared
SAMPLES = [
    *(pytest.param(path, id=path.name) for path in FILES),
    pytest.param(SHARED_POKERSTARS, marks=pytest.mark.corpus, id="shared"),
]

_COLLECTED = re.compile(r"^(.*) collected ([$€£]?[\d.]+) from (?:main |side )?pot", re.M)
_RAKE = re.compile(r"\| Rake ([$€£]?[\d.]+)")


def _units(text: str, record: HandRecord) -> int:
    return to_units(text.lstrip("$€£"), Currency("X", record.exponent))


def _hands_of(text: str) -> list[str]:
    return [part for part in re.split(r"\n(?=\ufeff?PokerStars )", text) if part.strip()]


def _stacks_by_seat(hand: Hand) -> dict[int, int]:
    return dict(zip((seat for seat, _ in hand.setup.players), hand.final_stacks, strict=True))


def test_the_samples_are_all_there() -> None:
    assert len(FILES) == 10


# Rules: R-RAKE-3
@pytest.mark.parametrize("sample", SAMPLES)
def test_r_rake_3_every_shared_hand_imports_replays_and_collects_what_the_file_says(
    sample: Path,
) -> None:
    paths = sorted(sample.glob("*.txt")) if sample.is_dir() else [sample]
    assert paths
    for path in paths:
        _every_hand_imports_and_collects(path)


def _every_hand_imports_and_collects(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = pokerstars_import.loads(text)
    assert result.problems == ()
    hands = _hands_of(text)
    assert len(result.records) == len(hands)
    for record, hand_text in zip(result.records, hands, strict=True):
        number = re.search(r"(?:Hand|Game) #(\d+):", hand_text)
        assert number is not None
        assert record.hand_id == int(number.group(1))
        # Every "collected" line, read here on its own, is what the record says each won.
        collected: dict[str, int] = {}
        for name, amount in _COLLECTED.findall(hand_text):
            collected[name] = collected.get(name, 0) + _units(amount, record)
        assert record.winnings is not None
        won = {p.name: int(w) for p, w in zip(record.players, record.winnings, strict=True) if w}
        assert won == collected
        rake = _RAKE.search(hand_text)
        assert rake is not None
        assert record.metadata["rake"] == _units(rake.group(1), record)
        # Replaying the record (with its rake rule) gives the file's stacks.
        hand = replay(record)
        assert record.finishing_stacks is not None
        assert hand.final_stacks == tuple(int(s) for s in record.finishing_stacks)
        assert hand.rake == record.metadata["rake"]


def test_r_rake_3_two_side_pots_each_keep_their_rake() -> None:
    (record,) = pokerstars_import.load_file(SHARED / "nlhe-cash-9max-eur-two-side-pots.txt").records
    assert record.exponent == 2
    assert record.metadata["currency"] == "EUR"
    # Main pot €5.62 less €0.25, side pot-1 €7.86 less €0.36, side pot-2 €6.36 less €0.28.
    assert record.metadata["pots"] == ((562, 25), (786, 36), (636, 28))
    assert record.rake is not None
    assert record.rake.taken == 89
    hand = replay(record)
    assert [(r.amount, r.rake) for r in hand.results] == [(562, 25), (786, 36), (636, 28)]
    winnings = dict(zip((p.name for p in record.players), record.winnings or (), strict=True))
    assert winnings["templargio"] == 608 + 750
    assert winnings["CrSilva.11"] == 537


def test_tournament_header_antes_and_a_name_with_a_space() -> None:
    (record,) = pokerstars_import.load_file(SHARED / "nlhe-mtt-9max-antes-side-pot.txt").records
    assert record.hand_id == 118723697322
    assert record.metadata["tournament"] == 937193984
    assert record.metadata["level"] == "V"
    assert record.metadata["buy_in"] == "$0.91+$0.09 USD"
    assert record.metadata["currency"] == "CHIPS"
    assert record.metadata["table"] == "937193984 7"
    assert record.metadata["started"] == "2014-07-13T22:48:13Z"
    assert record.exponent == 0
    assert record.seat_count == 9
    assert record.stakes == Stakes.min_bet(80)
    antes = [bet for bet in record.forced_bets if bet.kind is ForcedKind.ANTE]
    assert len(antes) == 7
    assert {bet.amount for bet in antes} == {8}
    jas = next(p for p in record.players if p.seat == 7)
    assert jas.name == "jas v121"
    assert jas.hole == parse_cards("4s 5h")
    assert record.rake is None
    assert record.metadata["pots"] == ((984, 0), (236, 0))


def test_fixed_limit_header_gives_the_bets_and_a_one_card_show() -> None:
    (record,) = pokerstars_import.load_file(SHARED / "flhe-cash-6max-3bet-showdown.txt").records
    assert record.structure is Structure.FIXED_LIMIT
    assert record.stakes == Stakes(100, 200)
    blinds_ = {(bet.kind, bet.amount) for bet in record.forced_bets}
    assert blinds_ == {(ForcedKind.SMALL_BLIND, 50), (ForcedKind.BIG_BLIND, 100)}
    zaza = next(p for p in record.players if p.name == "Zaza5573")
    assert zaza.hole == (Card.parse("Qc"), None)
    (pot,) = replay(record).results
    assert pot.winners == (5,)


# Rules: R-HIST-2, R-SHOW-5
def test_r_hist_2_r_show_5_hole_cards_come_from_dealt_to_shows_and_summary_mucks() -> None:
    (hero,) = pokerstars_import.load_file(SHARED / "nlhe-cash-6max-eur-dealt-to-hero.txt").records
    holes = {p.name: p.hole for p in hero.players}
    assert holes["PS_Hero"] == parse_cards("4s 7h")  # Dealt to: the requester's own cards
    assert holes["Player6"] == parse_cards("As 9d")  # shown at the showdown
    assert holes["Player4"] == (None, None)  # folded: never shown
    # A mucked hand written in the summary is kept (R-SHOW-5).
    hand = _play_muck_hand()
    names = {1: "Ann", 2: "Bob", 3: "Cat"}
    text = pokerstars.dumps(hand, hand_id=7, table_name="T", hero="Ann", names=names, currency=PLAY)
    assert "mucked [" in text
    (record,) = pokerstars_import.loads(text).records
    mucker = next(p for p in record.players if p.seat in hand.showdown_seats and p.name != "Ann")
    assert mucker.hole == hand.hole_cards(mucker.seat)


def _play_muck_hand() -> Hand:
    """Three players; Cat folds, Ann and Bob check it down and the loser mucks."""
    players = [(1, 500), (2, 500), (3, 500)]
    cards = parse_cards(
        "7d 2c 8h 7s 3c 9h 4d Kc Qd Jd 5s 6h Th Ah 9c Tc Js Ks Qs As 2d 3d 4h 5d 6d 8d 9d"
    )
    hand = Hand(NoLimit(10), players, 3, blinds(players, 3, 5, 10), cards)
    hand.act(Fold())  # seat 3
    hand.act(Call())  # seat 1
    hand.act(Check())  # seat 2
    while not hand.is_over:
        hand.act(Check())
    return hand


def test_names_with_spaces_and_colons_match_the_seat_list_longest_first() -> None:
    players = [(1, 1000), (2, 1000), (3, 1000), (4, 1000)]
    deck = parse_cards(
        "2c 7d 8h 3c 7s 9h 4d Kc Qd Jd 5s 6h Th Ah 9c Tc Js Ks Qs As 2d 3d 4h 5d 6d 8d 9d"
    )
    hand = Hand(NoLimit(20), players, 4, blinds(players, 4, 10, 20), deck)
    hand.act(RaiseTo(60))  # seat 3
    hand.act(Call())  # seat 4
    hand.act(Fold())  # seat 1
    hand.act(RaiseTo(200))  # seat 2
    hand.act(Fold())  # seat 3
    hand.act(Call())  # seat 4
    while not hand.is_over:
        hand.act(Check())
    names = {1: "a", 2: "a: b", 3: "a b: c d", 4: "Seat 3: a"}
    text = pokerstars.dumps(
        hand,
        hand_id=11,
        table_name="Colon: table",
        hero=None,
        names=names,
        currency=PLAY,
        show_all=True,
    )
    result = pokerstars_import.loads(text)
    assert result.problems == ()
    (record,) = result.records
    assert {p.seat: p.name for p in record.players} == names
    assert record.metadata["table"] == "Colon: table"
    assert [(a.seat, a.kind.value, a.amount) for a in record.actions[:5]] == [
        (3, "cbr", 60),
        (4, "cc", None),
        (1, "f", None),
        (2, "cbr", 200),
        (3, "f", None),
    ]
    assert _stacks_by_seat(replay(record)) == _stacks_by_seat(hand)


HOME_GAME = """\
PokerStars Home Game Hand #1234: {Club 77} Hold'em No Limit ($0.01/$0.02) - 2020/01/01 10:00:00 ET
Table 'Home: table' 6-max Seat #1 is the button
Seat 1: a b ($2 in chips)
Seat 2: a ($2.50 in chips)
Seat 3: a b: c ($1 in chips) is sitting out
a b: posts small blind $0.01
a: posts big blind $0.02
*** HOLE CARDS ***
a b said, "a: folds"
a b: raises $0.04 to $0.06
a: folds
Uncalled bet ($0.04) returned to a b
a b collected $0.04 from pot
a b: doesn't show hand
*** SUMMARY ***
Total pot $0.04 | Rake $0
Seat 1: a b (button) (small blind) collected ($0.04)
Seat 2: a (big blind) folded before Flop
"""


def test_a_hand_written_by_hand_chat_sitting_out_and_a_club_header() -> None:
    result = pokerstars_import.loads(HOME_GAME)
    assert result.problems == ()
    (record,) = result.records
    assert record.hand_id == 1234
    assert [(p.seat, p.name, p.stack) for p in record.players] == [(2, "a", 250), (1, "a b", 200)]
    assert [(a.seat, a.kind.value, a.amount) for a in record.actions] == [
        (1, "cbr", 6),
        (2, "f", None),
    ]
    assert record.metadata["currency"] == "USD"
    assert record.metadata["started"] == "2020-01-01T15:00:00Z"
    assert record.winnings == (Decimal(0), Decimal(4))
    assert record.finishing_stacks == (Decimal(248), Decimal(202))


def test_bom_crlf_and_trailing_spaces_read_the_same() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    plain = pokerstars_import.loads(text.replace("\ufeff", ""))
    messy = "\ufeff" + "\r\n".join(line.rstrip() + "   " for line in text.split("\n"))
    again = pokerstars_import.loads(messy)
    assert again.problems == ()
    assert len(again.records) == 10
    assert again.records == plain.records


def _problem_line(text: str, fragment: str) -> int:
    """The 1-based line of ``text`` that holds ``fragment``."""
    for number, line in enumerate(text.split("\n"), start=1):
        if fragment in line:
            return number
    raise AssertionError(fragment)


def test_a_truncated_hand_in_the_middle_is_a_problem_and_the_others_import() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    hands = _hands_of(text)
    third = hands[2]
    cut = third[: third.index("*** TURN ***")]  # the hand stops on the flop
    broken = "\n".join([*hands[:2], cut, *hands[3:]])
    result = pokerstars_import.loads(broken)
    assert len(result.records) == 9
    (problem,) = result.problems
    assert problem.hand == "109674148786"
    last_line_of_cut = len("\n".join([*hands[:2], cut.rstrip()]).split("\n"))
    assert broken.split("\n")[last_line_of_cut - 1].startswith("ValueH: checks")
    assert problem.line == last_line_of_cut
    assert "SUMMARY" in problem.message
    assert 109674148786 not in [r.hand_id for r in result.records]


def test_an_unreconciled_total_is_a_problem_naming_its_line() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    broken = text.replace("Total pot $360 | Rake $3", "Total pot $361 | Rake $3")
    result = pokerstars_import.loads(broken)
    assert len(result.records) == 9
    (problem,) = result.problems
    assert problem.hand == "109674128046"
    assert problem.line == _problem_line(broken, "Total pot $361")
    assert problem.message == "Total pot $361, but the bets make $360"


def test_a_collected_amount_the_pot_cannot_pay_is_a_problem() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    broken = text.replace("ValueH collected $357 from pot", "ValueH collected $361 from pot")
    result = pokerstars_import.loads(broken)
    (problem,) = result.problems
    assert problem.hand == "109674128046"
    assert problem.line == _problem_line(broken, "ValueH collected $361")
    assert problem.message == "$361 collected from the pot, which holds $360"
    # What was collected leaves a rake that is not the summary's:
    broken = text.replace("ValueH collected $357 from pot", "ValueH collected $358 from pot")
    (problem,) = pokerstars_import.loads(broken).problems
    assert problem.line == _problem_line(broken, "Total pot $360 | Rake $3")
    assert problem.message == "Rake $3, but the pots less what was collected leave $2"


def test_a_call_the_engine_does_not_make_is_a_problem_on_its_line() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    broken = text.replace("ValueH: calls $90", "ValueH: calls $80")
    (problem,) = pokerstars_import.loads(broken).problems
    assert problem.hand == "109674128046"
    assert problem.line == _problem_line(broken, "ValueH: calls $80")
    assert problem.message == ("the file has seat 4 call $80; our engine has seat 4 call $90")


def test_an_unknown_game_line_is_a_problem_and_the_next_hand_imports() -> None:
    hands = _hands_of(TEN_HANDS.read_text(encoding="utf-8"))
    omaha = hands[0].replace("Hold'em No Limit", "Omaha Pot Limit")
    text = "\n".join([omaha, hands[1]])
    result = pokerstars_import.loads(text)
    assert [r.hand_id for r in result.records] == [109674128046]
    (problem,) = result.problems
    assert problem.hand == "109673992001"
    assert problem.line == 1
    assert "Omaha Pot Limit" in problem.message
    assert "Hold'em No Limit, Pot Limit or Limit" in problem.message


def test_text_before_the_first_header_is_a_problem_without_a_hand() -> None:
    text = "exported by some tool\n\n" + TEN_HANDS.read_text(encoding="utf-8")
    result = pokerstars_import.loads(text)
    assert len(result.records) == 10
    (problem,) = result.problems
    assert problem.hand is None
    assert problem.line == 1
    assert str(problem).startswith("line 1: a hand: expected a hand header")


def test_an_amount_finer_than_the_currency_is_a_problem() -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    broken = text.replace("ValueH: calls $90", "ValueH: calls $90.001")
    (problem,) = pokerstars_import.loads(broken).problems
    assert problem.line == _problem_line(broken, "$90.001")
    assert "finer than" in problem.message


def test_a_straddle_and_a_returning_players_small_and_big_blinds() -> None:
    players = [(1, 1000), (2, 1000), (3, 1000), (4, 1000), (5, 1000)]
    deck = parse_cards(
        "2c 7d 8h 3c 7s 9h 4d Kc Qd Jd 5s 6h Th Ah 9c Tc Js Ks Qs As 2d 3d 4h 5d 6d 8d 9d"
    )
    from feltroom.rules import Forced, ForcedBet

    forced = [
        *blinds(players, 5, 5, 10),
        ForcedBet(3, Forced.STRADDLE, 20),
        ForcedBet(4, Forced.DEAD, 5),
        ForcedBet(4, Forced.POST, 10),
    ]
    hand = Hand(NoLimit(10), players, 5, forced, deck)
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.check else Call())
    names = {seat: f"p{seat}" for seat, _ in players}
    text = pokerstars.dumps(
        hand,
        hand_id=5,
        table_name="T",
        hero=None,
        names=names,
        currency=Currency("USD", 2),
        started=datetime(2026, 12, 1, 15, tzinfo=UTC),
    )
    assert "p3: posts straddle $0.20" in text
    assert "p4: posts small & big blinds $0.15" in text
    (record,) = pokerstars_import.loads(text).records
    assert sorted((b.seat, b.kind.value, b.amount) for b in record.forced_bets) == sorted(
        [
            (1, "small_blind", 5),
            (2, "big_blind", 10),
            (3, "straddle", 20),
            (4, "dead_blind", 5),
            (4, "post", 10),
        ]
    )
    assert record.metadata["started"] == "2026-12-01T15:00:00Z"
    assert _stacks_by_seat(replay(record)) == _stacks_by_seat(hand)


# ------------------------------------------------------------------------- feltroom convert


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["convert", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_convert_pokerstars_to_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(TEN_HANDS)
    code, out, err = _run(capsys, "--to", "pokerstars", path)
    assert (code, err) == (0, "")
    # R-HIST-2: only the hole cards the file knew are written, never an unknown "??"
    assert "??" not in out
    # the file names no hero (no "Dealt to"): neither does the conversion; shown hands stay
    assert "Dealt to" not in out
    shown = re.findall(r": shows (\[[^\]]*\])", out)
    assert shown
    original_text = TEN_HANDS.read_text(encoding="utf-8-sig")
    assert all(cards in original_text for cards in shown)
    again = pokerstars_import.loads(out)
    original = pokerstars_import.load_file(TEN_HANDS)
    assert again.problems == ()
    assert [r.hand_id for r in again.records] == [r.hand_id for r in original.records]
    for ours, theirs in zip(again.records, original.records, strict=True):
        assert ours.actions == theirs.actions
        assert ours.winnings == theirs.winnings
        assert ours.metadata["pots"] == theirs.metadata["pots"]
        assert ours.metadata["table"] == "Hveen II 40-100 bb"
        assert ours.metadata["time"] == theirs.metadata["time"]
    code, out, err = _run(capsys, "--to", "ohh", path)
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 10
    code, out, err = _run(capsys, "--to", "phh", path)
    assert (code, err) == (0, "")
    records = phh.loads_all(out)
    assert len(records) == 10
    for record, original_record in zip(records, original.records, strict=True):
        assert record.hand_id == original_record.hand_id
        assert record.rake is not None or original_record.rake is None
        if original_record.rake is not None:
            assert record.rake is not None
            assert record.rake.fraction == original_record.rake.fraction
        # The same stacks in the currency (PHH writes the fewest decimals it needs).
        ours = [Decimal(s).scaleb(-record.exponent) for s in replay(record).final_stacks]
        theirs = [
            Decimal(s).scaleb(-original_record.exponent)
            for s in replay(original_record).final_stacks
        ]
        assert ours == theirs


def test_convert_reports_import_problems_and_converts_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = TEN_HANDS.read_text(encoding="utf-8")
    broken = text.replace("Total pot $360 | Rake $3", "Total pot $361 | Rake $3")
    path = tmp_path / "hands.txt"
    path.write_text(broken, encoding="utf-8")
    line = _problem_line(broken, "Total pot $361")
    code, out, err = _run(capsys, "--to", "pokerstars", str(path))
    assert code == 1
    assert err == f"{path}: line {line}: hand 109674128046: {_message(broken)}\n"
    assert out.count("PokerStars Hand #") == 9
    # With a hero, a hand the hero was not dealt into is named on stderr too.
    code, out, err = _run(capsys, "--to", "pokerstars", "--hero", "ValueH", str(path))
    assert code == 1
    assert "ValueH" in out
    assert "Dealt to ValueH [8s Ts]" not in out  # hand 109674128046 is the broken one


def _message(text: str) -> str:
    (problem,) = pokerstars_import.loads(text).problems
    return problem.message


def test_convert_mixes_pokerstars_and_phh_files_in_one_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    phh_hand = PHH / "pluribus" / "83" / "63.phh"
    code, out, err = _run(capsys, "--to", "pokerstars", str(TEN_HANDS), str(phh_hand))
    assert (code, err) == (0, "")
    headers = re.findall(r"^PokerStars Hand #(\d+):", out, re.M)
    assert len(headers) == 11
    assert headers[0] == "109673992001"
    assert headers[-1] == "63"


def test_rake_rule_of_an_import_is_the_largest_pot_share_capped_at_the_hand_rake() -> None:
    (record,) = pokerstars_import.load_file(SHARED / "nlhe-cash-9max-eur-two-side-pots.txt").records
    assert record.rake is not None
    assert record.rake.fraction == Fraction(36, 786)
    assert record.rake.cap == 89
    assert Decimal(sum(record.winnings or ())) == Decimal(1984 - 89)


# Rules: R-RAKE-3
def test_r_rake_3_an_imported_hand_keeps_a_per_pot_rake_no_rule_would_give() -> None:
    """A site that took its rake from the side pot only: the import keeps each pot's rake as
    the file records it, through replay and through a PHH export and import."""
    record = rake_record([40, 30], [0, 3])
    assert record is not None
    assert record.pots == (0, 3)
    assert record.taken == 3
    rule = RakeRule(record.fraction, record.cap, record.no_flop_no_drop, record.pots)
    assert rake_pots([40, 30], rule, True) == [0, 3]
    (imported,) = pokerstars_import.load_file(
        SHARED / "nlhe-cash-9max-eur-two-side-pots.txt"
    ).records
    assert imported.rake is not None
    assert imported.rake.pots == (25, 36, 28)
    again = phh.loads(phh.dumps(imported))
    assert again.rake is not None
    assert again.rake.pots == (25, 36, 28)
    hand = replay(again)
    assert [r.rake for r in hand.results] == [25, 36, 28]

"""Replay: the shared PHH corpus, PokerKit as an oracle, round trips, the replay command."""

from __future__ import annotations

import json
import random
import tomllib
import warnings
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feltroom.cards import CARDS
from feltroom.cli import main
from feltroom.history import phh, toml_subset
from feltroom.history.record import Protection
from feltroom.history.replay import (
    ReplayError,
    ReplayResult,
    _direct_result,
    _result,
    compare_stacks,
    record_from_hand,
    replay,
    replay_file,
    replay_paths,
)
from feltroom.rules import (
    Call,
    Check,
    Fold,
    Forced,
    Hand,
    NoLimit,
    Posted,
    Protect,
    Protected,
    RaiseTo,
    Show,
    blinds,
)

from .corpora import ODD_CHIP_HANDS, PHH, SHARED_PHH
from .random_hands import play_random_hand

# The hands in tests/data (always there) and the full corpus in ../shared (marker ``corpus``).
FULL = pytest.param(SHARED_PHH, marks=pytest.mark.corpus, id="shared")
CORPORA = [pytest.param(PHH, id="data"), FULL]
# (hands, hands with finishing_stacks, whole-number .phh files) of each corpus
COUNTS = {PHH: (260, 240, 241), SHARED_PHH: (6882, 6862, 6863)}


# Rules: R-POT-1
@pytest.mark.parametrize("corpus", CORPORA)
def test_R_POT_1_every_corpus_hand_replays_and_matches_its_finishing_stacks(corpus: Path) -> None:
    results = [
        (path, result)
        for path in sorted(corpus.rglob("*"))
        if path.suffix in (".phh", ".phhs")
        for result in replay_file(path)
    ]
    hands, with_stacks, _ = COUNTS[corpus]
    assert len(results) == hands
    errors = [r for _, r in results if r.error is not None]
    assert errors == []
    with_result = [(p, r) for p, r in results if r.expected is not None]
    assert len(with_result) == with_stacks
    assert all(r.match for _, r in with_result)
    odd = {p.relative_to(corpus).as_posix() for p, r in with_result if r.odd_chip}
    assert odd == ODD_CHIP_HANDS


def _pokerkit_stacks(text: str, multiple: bool = False) -> list[list[Decimal]]:
    from pokerkit import HandHistory

    histories = (
        list(HandHistory.loads_all(text, parse_value=Decimal))
        if multiple
        else [HandHistory.loads(text, parse_value=Decimal)]
    )
    stacks = []
    for history in histories:
        states = list(history)
        state = states[-1]
        stacks.append([Decimal(value) for value in state.stacks])
    return stacks


@pytest.mark.parametrize("corpus", CORPORA)
def test_hands_without_a_recorded_result_agree_with_pokerkit(corpus: Path) -> None:
    files = [corpus / "historical" / "dwan-ivey-2009.phh", *sorted(corpus.rglob("*.phhs"))]
    checked = 0
    for path in files:
        text = path.read_text()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            oracle = _pokerkit_stacks(text, multiple=path.suffix == ".phhs")
        ours = replay_file(path)
        assert len(ours) == len(oracle)
        for result, expected in zip(ours, oracle, strict=True):
            assert result.error is None
            assert result.finishing_stacks is not None
            unit = Decimal(1).scaleb(-result.exponent)
            assert [s * unit for s in result.finishing_stacks] == expected, result.source
            checked += 1
    assert checked == 20
    dwan = replay_file(files[0])[0]
    assert dwan.finishing_stacks == (572100, 1997500, 1109500)


def _by_seat(hand: Hand) -> dict[int, int]:
    return dict(zip((seat for seat, _ in hand.setup.players), hand.final_stacks, strict=True))


def _events_key(hand: Hand) -> tuple[list[tuple[int, str, int]], list[object]]:
    posted = sorted((e.seat, e.kind.value, e.amount) for e in hand.events if isinstance(e, Posted))
    return posted, [e for e in hand.events if not isinstance(e, Posted)]


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**64))
def test_phh_round_trips_write_read_replay_gives_the_same_hand(seed: int) -> None:
    # Half the hands carry the table's own actions: protections and table-side folds.
    hand = play_random_hand(random.Random(seed), table_actions=seed % 2 == 0)
    record = record_from_hand(hand, names=[f"player {s}" for s in hand.seats], seat_count=10)
    text = phh.dumps(record)
    again = phh.loads(text)
    assert again == record
    replayed = replay(again)
    assert replayed.log == hand.log
    assert _by_seat(replayed) == _by_seat(hand)
    assert replayed.results == hand.results
    assert replayed.rake == hand.rake
    assert _events_key(replayed) == _events_key(hand)


def test_phhs_round_trip_of_many_hands() -> None:
    rng = random.Random(7)
    hands = [play_random_hand(rng) for _ in range(50)]
    records = [record_from_hand(hand) for hand in hands]
    assert phh.loads_all(phh.dumps_all(records)) == records


def _odd_chips(hand: Hand) -> int:
    return sum((r.amount - r.rake) % len(r.winners) for r in hand.results if len(r.winners) > 1)


# Rules: R-POT-1
def test_R_POT_1_written_nt_and_ft_hands_replay_in_pokerkit_to_the_same_stacks() -> None:
    rng = random.Random(2026)
    exact = 0
    for _ in range(600):
        hand = play_random_hand(
            rng, structures=("NT", "FT"), extras=False, rake=False, pokerkit_safe=True
        )
        record = record_from_hand(hand)
        ours = [int(value) for value in record.finishing_stacks or ()]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (theirs,) = _pokerkit_stacks(phh.dumps(record))
        odd = _odd_chips(hand)
        if odd == 0:
            assert theirs == ours
            exact += 1
        else:
            # PokerKit does not deal odd chips clockwise from the button per pot (R-POT-1);
            # the totals agree and no player is off by more than the odd chips.
            assert sum(theirs) == sum(ours)
            assert all(abs(t - o) <= odd for t, o in zip(theirs, ours, strict=True))
    assert exact > 500


# ------------------------------------------------------------------------- the command contract

HAND = """\
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'd dh p3 2c7h', 'p3 f', 'p1 cbr 10', 'p2 f']
"""


def _run(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[dict[str, object]]]:
    code = main(["replay", *map(str, paths)])
    lines = capsys.readouterr().out.splitlines()
    return code, [json.loads(line) for line in lines]


def test_replay_command_prints_one_json_line_per_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single = tmp_path / "a.phh"
    single.write_text(HAND + "finishing_stacks = [102, 98, 100]\n")
    many = tmp_path / "b.phhs"
    many.write_text(f"[1]\n{HAND}\n[2]\n{HAND}finishing_stacks = [102, 98, 100]\n")
    code, lines = _run(capsys, tmp_path)
    assert code == 0
    assert lines == [
        {
            "source": f"{single}#1",
            "finishing_stacks": [102, 98, 100],
            "expected": [102, 98, 100],
            "match": True,
        },
        {
            "source": f"{many}#1",
            "finishing_stacks": [102, 98, 100],
            "expected": None,
            "match": None,
        },
        {
            "source": f"{many}#2",
            "finishing_stacks": [102, 98, 100],
            "expected": [102, 98, 100],
            "match": True,
        },
    ]


def test_replay_command_fails_on_a_mismatch_or_an_unplayable_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(HAND + "finishing_stacks = [100, 100, 100]\n")
    code, lines = _run(capsys, wrong)
    assert code == 1
    assert lines[0]["match"] is False
    illegal = tmp_path / "illegal.phh"
    illegal.write_text(HAND.replace("'p1 cbr 10'", "'p1 cbr 3'"))
    code, lines = _run(capsys, illegal)
    assert code == 1
    assert lines[0]["finishing_stacks"] is None
    assert "cannot raise to 3" in str(lines[0]["error"])
    broken = tmp_path / "broken.phhs"
    broken.write_text(f"[1]\n{HAND.replace('NT', 'XX')}\n[2]\n{HAND}")
    code, lines = _run(capsys, broken)
    assert code == 1
    assert [line["source"] for line in lines] == [f"{broken}#1", f"{broken}#2"]
    assert "error" in lines[0]
    assert "error" not in lines[1]


def test_replay_reports_bad_values_as_error_lines_and_carries_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A non-finite recorded result and a rake the engine refuses are errors of that hand only.
    infinite = tmp_path / "infinite.phh"
    infinite.write_text(HAND + "finishing_stacks = [inf, 100, 100]\n")
    rake = tmp_path / "rake.phh"
    rake.write_text(HAND + "_rake_percent = 150\n")
    good = tmp_path / "good.phh"
    good.write_text(HAND)
    code, lines = _run(capsys, infinite, rake, good)
    assert code == 1
    assert len(lines) == 3
    assert "finite amounts" in str(lines[0]["error"])
    assert "rake fraction" in str(lines[1]["error"])
    assert lines[1]["finishing_stacks"] is None
    assert "error" not in lines[2]


def test_replay_prints_amounts_in_the_files_units(tmp_path: Path) -> None:
    path = tmp_path / "cents.phh"
    path.write_text(
        HAND.replace("[1, 2, 0]", "[0.10, 0.25, 0]")
        .replace("min_bet = 2", "min_bet = 0.25")
        .replace("[100, 100, 100]", "[25, 10.50, 25]")
        .replace("cbr 10", "cbr 0.75")
        + "finishing_stacks = [25.25, 10.25, 25]\n"
    )
    out = __import__("io").StringIO()
    assert replay_paths([path], out) == 0
    line = out.getvalue().strip()
    assert '"finishing_stacks": [25.25, 10.25, 25]' in line
    assert json.loads(line)["match"] is True


# Rules: R-POT-1
def test_R_POT_1_a_file_that_halves_the_odd_chip_matches_with_odd_chip_flag() -> None:
    expected = (Decimal("10387.5"), Decimal("10387.5"), Decimal(9225))
    assert compare_stacks((10388, 10387, 9225), expected) == (True, True)
    assert compare_stacks((10388, 10387, 9225), (*expected[:2], Decimal(9224))) == (
        False,
        False,
    )
    assert compare_stacks((10388, 10386, 9226), expected) == (False, False)
    assert compare_stacks((1, 2), None) == (None, False)


# ------------------------------------------------------------------------- the direct path


def _general(source: str, fields: dict[str, object]) -> str:
    try:
        record = phh.record_from_fields(fields)
    except phh.PHHError as error:
        return ReplayResult(source, None, None, None, error=str(error)).json_line()
    return _result(source, record).json_line()


def _variants(text: str, rng: random.Random) -> list[str]:
    """The hand as written and altered the ways real files differ (and break)."""
    lines = text.splitlines()
    actions = next(i for i, line in enumerate(lines) if line.startswith("actions = "))
    items = lines[actions][len("actions = ['") : -2].split("', '")
    out = [text]
    for change in range(10):
        edited = list(items)
        k = rng.randrange(len(edited))
        if change == 0:
            del edited[k]
        elif change == 1:
            edited[k] += " # note"
        elif change == 2:
            edited[k] = edited[k].replace("d dh p1 ", "d dh p1 ????")[:12]
        elif change == 3:
            edited.append(rng.choice(["p1 sm", "p1 sm -", "p1 sm ????", "p2 sm As??"]))
        elif change == 4:
            edited[k] = edited[k].replace(" cbr ", " cbr 1")
        elif change == 5:
            edited.insert(k, edited[k])
        elif change == 6:
            edited[k] = edited[k].lower()
        elif change == 7:
            edited[k] = rng.choice(["p01 cc", "p1  cc", "d f", "p1 cbr 1.5", "", "d db 2c"])
        rewritten = [*lines]
        rewritten[actions] = "actions = [" + ", ".join(f"'{item}'" for item in edited) + "]"
        if change == 8:
            rewritten = [line for line in rewritten if not line.startswith("seats = ")]
        elif change == 9:
            rewritten = [
                line.replace("seats = [", "seats = [9, ") if line.startswith("seats") else line
                for line in rewritten
            ]
        out.append("\n".join(rewritten) + "\n")
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**64))
def test_the_direct_replay_path_agrees_with_records_and_replay(seed: int) -> None:
    rng = random.Random(seed)
    hand = play_random_hand(rng, table_actions=rng.random() < 0.5)
    text = phh.dumps(record_from_hand(hand, names=[f"p {s}" for s in hand.seats]))
    direct_taken = 0
    for number, variant in enumerate(_variants(text, rng)):
        fields = toml_subset.loads(variant)
        direct = _direct_result(f"x#{number}", fields)
        general = _general(f"x#{number}", fields)
        if direct is not None:
            direct_taken += 1
            assert direct.json_line() == general
        if number == 0:
            assert direct is not None  # a hand the engine played takes the direct path
    assert direct_taken >= 1


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_direct_replay_path_takes_every_whole_number_corpus_hand(corpus: Path) -> None:
    taken = 0
    for path in sorted(corpus.rglob("*.phh")):
        fields = toml_subset.loads(path.read_text())
        direct = _direct_result("x", fields)
        assert direct is not None, path
        assert direct.json_line() == _general("x", fields)
        taken += 1
    assert taken == COUNTS[corpus][2]


# ----------------------------------------------------- the table's folds, protections, antes


def _three_handed() -> Hand:
    """Seats 1..3, button 3: seat 1 posts the small blind (1), seat 2 the big blind (2)."""
    players = [(1, 100), (2, 100), (3, 100)]
    return Hand(NoLimit(2), players, 3, blinds(players, 3, 1, 2), list(CARDS))


def _both_paths(hand: Hand) -> tuple[str, Hand]:
    """Write the hand; check that the record, the general and the direct path agree with it."""
    record = record_from_hand(hand)
    text = phh.dumps(record)
    again = phh.loads(text)
    assert again == record
    replayed = replay(again)
    assert replayed.log == hand.log
    assert _events_key(replayed) == _events_key(hand)
    assert _by_seat(replayed) == _by_seat(hand)
    direct = _direct_result("x", toml_subset.loads(text))
    assert direct is not None
    assert direct.json_line() == _general("x", toml_subset.loads(text))
    assert direct.match is True
    return text, replayed


# Rules: R-SIT-1
def test_R_SIT_1_a_table_fold_when_checking_was_free_replays_as_the_tables() -> None:
    hand = _three_handed()
    hand.act(Call(), 3)
    hand.act(Call(), 1)
    # Seat 2, the big blind, could check: the table folds the hand (e.g. the player left).
    hand.act(Fold(), 2, forced=True)
    hand.act(Check(), 1)
    hand.act(Fold(), 3, forced=True)  # seat 3 times out with checking free (R-TIME-2)
    assert hand.is_over
    text, _ = _both_paths(hand)
    fields = tomllib.loads(text)
    assert fields["actions"][3:6] == ["p3 cc", "p1 cc", "p2 f"]
    assert fields["actions"][7:] == ["p1 cc", "p3 f"]


def test_a_recorded_fold_out_of_turn_is_still_refused() -> None:
    hand = _three_handed()
    hand.act(Call(), 3)
    hand.act(Call(), 1)
    hand.act(Check(), 2)
    hand.act(Check(), 1)
    hand.act(Check(), 2)
    hand.act(Check(), 3)
    text = phh.dumps(record_from_hand(hand)).replace("'p1 cc', 'p2 cc', 'p3 cc'", "'p2 f'", 1)
    with pytest.raises(ReplayError, match="seat 1's turn"):
        replay(phh.loads(text))


# Rules: R-ALLIN-5
def test_R_ALLIN_5_protections_are_written_to_protected_and_replayed_in_place() -> None:
    hand = _three_handed()
    hand.act(RaiseTo(10), 3)
    hand.protect(1)  # seat 1's contribution frozen at the small blind, before acting
    hand.act(Call(), 2)
    hand.act(Check(), 2)
    hand.protect(3)  # the betting ends: the board is dealt out, then the showdown
    assert hand.is_over
    record = record_from_hand(hand)
    assert record.protections == (Protection(1, 1), Protection(4, 3))
    text, replayed = _both_paths(hand)
    fields = tomllib.loads(text)
    # Indices into the written actions, three hole card deals first; players by PHH number.
    assert fields["_protected"] == [[4, 1], [7, 3]]
    assert fields["actions"][3:5] == ["p3 cbr 10", "p2 cc"]
    assert fields["actions"][6] == "p2 cc"
    assert sum(isinstance(event, Protected) for event in replayed.events) == 2


def test_protected_is_read_against_the_files_own_actions() -> None:
    hand = _three_handed()
    hand.act(RaiseTo(10), 3)
    hand.protect(1)
    hand.act(Call(), 2)
    hand.act(Check(), 2)
    hand.act(Check(), 3)
    hand.act(Check(), 2)
    hand.act(Check(), 3)
    hand.act(Check(), 2)
    hand.act(Check(), 3)
    text = phh.dumps(record_from_hand(hand))
    # Hole cards dealt at the end and a commentary line: the protection moves with its action.
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("actions = "))
    items = lines[k][len("actions = ['") : -2].split("', '")
    moved = ["# start", *items[3:], *items[:3]]
    lines[k] = "actions = [" + ", ".join(f"'{item}'" for item in moved) + "]"
    lines = ["_protected = [[2, 1]]" if line.startswith("_protected") else line for line in lines]
    edited = "\n".join(lines) + "\n"
    assert phh.loads(edited).protections == (Protection(1, 1),)
    again = replay(phh.loads(edited))
    assert again.log == hand.log
    assert again.final_stacks == hand.final_stacks
    direct = _direct_result("x", toml_subset.loads(edited))
    assert direct is not None
    assert direct.json_line() == _general("x", toml_subset.loads(edited))


@pytest.mark.parametrize(
    ("protected", "message"),
    [
        ("[[4, 7]]", "no player p7"),
        ("[[99, 1]]", "no action 99"),
        ("[[4]]", "pairs"),
        ("[4, 1]", "pairs"),
        ("[[4, true]]", "pairs"),
    ],
)
def test_malformed_protected_is_refused(protected: str, message: str) -> None:
    hand = _three_handed()
    hand.act(Fold(), 3)
    hand.act(Fold(), 1)
    text = phh.dumps(record_from_hand(hand)) + f"_protected = {protected}\n"
    with pytest.raises(phh.PHHError, match=message):
        phh.loads(text)
    assert _direct_result("x", toml_subset.loads(text)) is None


def test_a_protection_the_engine_refuses_stops_the_replay() -> None:
    hand = _three_handed()
    hand.act(Fold(), 3)
    hand.act(Call(), 1)
    hand.act(Check(), 2)
    for _ in range(3):
        hand.act(Check(), 1)
        hand.act(Check(), 2)
    text = phh.dumps(record_from_hand(hand)) + "_protected = [[4, 3]]\n"  # p3 has folded
    with pytest.raises(ReplayError, match="seat 3 has folded"):
        replay(phh.loads(text))
    assert _direct_result("x", toml_subset.loads(text)) is None


def test_random_hands_with_the_tables_actions_round_trip() -> None:
    rng = random.Random(11)
    protected = table_folds = 0
    for _ in range(300):
        hand = play_random_hand(rng, table_actions=True)
        _, replayed = _both_paths(hand)
        protected += sum(isinstance(event, Protected) for event in replayed.events)
        probe = Hand.from_setup(hand.setup)
        for seat, action in hand.log:
            if type(action) is Fold and probe.can(Check(), seat):
                table_folds += 1
            if type(action) is Fold:
                probe.act(action, seat, forced=True)
            else:
                probe.act(action, None if isinstance(action, Protect | Show) else seat)
    assert protected >= 50
    assert table_folds >= 20


def test_antes_are_dead_money_written_untrimmed() -> None:
    players = [(1, 100), (2, 3), (3, 100)]
    forced = blinds(players, 3, 1, 2, ante=5)  # seat 2 is all-in on its ante
    hand = Hand(NoLimit(2), players, 3, forced, list(CARDS))
    while not hand.is_over:
        hand.check_or_call()
    text, replayed = _both_paths(hand)
    # PHH: ``false`` is untrimmed antes, dead money in the main pot (PokerKit's reading).
    assert tomllib.loads(text)["ante_trimming_status"] is False
    assert [e.kind for e in replayed.events if isinstance(e, Posted)][:3] == [Forced.ANTE] * 3
    # Without antes or dead blinds the flag is ``true`` (nothing to trim either way).
    plain = _three_handed()
    plain.act(Fold(), 3)
    plain.act(Fold(), 1)
    assert tomllib.loads(phh.dumps(record_from_hand(plain)))["ante_trimming_status"] is True


def test_antes_of_either_trimming_status_replay_as_engine_antes() -> None:
    players = [(1, 100), (2, 100), (3, 100)]
    hand = Hand(NoLimit(2), players, 3, blinds(players, 3, 1, 2, ante=1), list(CARDS))
    hand.act(RaiseTo(6), 3)
    hand.act(Fold(), 1)
    hand.act(Fold(), 2)
    text = phh.dumps(record_from_hand(hand))
    for status in ("true", "false"):
        edited = text.replace("ante_trimming_status = false", f"ante_trimming_status = {status}")
        again = replay(phh.loads(edited))
        assert [b.kind for b in again.setup.forced if b.amount == 1 and b.seat != 1] == [
            Forced.ANTE
        ] * 2
        assert again.final_stacks == hand.final_stacks
        direct = _direct_result("x", toml_subset.loads(edited))
        assert direct is not None
        assert direct.json_line() == _general("x", toml_subset.loads(edited))

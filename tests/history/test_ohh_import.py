"""OHH import: our examples (tests/data; the spec's in ../shared in the corpus run), files of
several documents, bad documents, convert."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from feltroom.cards import CARDS
from feltroom.cli import main
from feltroom.history import ohh, ohh_import
from feltroom.history.imports import ImportProblem
from feltroom.history.record import ActionKind, ForcedKind, Structure
from feltroom.history.replay import replay
from feltroom.money import Currency
from feltroom.rules import FixedLimit, Forced, ForcedBet, Hand, NoLimit, Posted, PotAwarded, blinds

from .corpora import OHH, SHARED_OHH
from .test_pokerstars_export import STARTED, limit_muck_hand, side_pot_hand

EXAMPLES = sorted(OHH.glob("*.ohh"))  # our own, in tests/data
SPLIT_POT = "holdem-cash-usd-split-pot.ohh"
TOURNAMENT = "holdem-tournament-stt-uncontested-muck.ohh"
# every example of tests/data, then (marker ``corpus``) the spec's examples in ../shared
ALL_EXAMPLES = [
    *(pytest.param(path, id=path.name) for path in EXAMPLES),
    *(
        pytest.param(SHARED_OHH / name, marks=pytest.mark.corpus, id=f"shared-{name}")
        for name in (
            "spec-example-holdem-cash-888.ohh",
            "spec-example-holdem-cash-ipoker.ohh",
            "spec-example-holdem-tournament-pokerstars.ohh",
        )
    ),
]


def example(name: str, folder: Path = OHH) -> dict[str, Any]:
    """An example's document, exact decimals."""
    loaded: dict[str, Any] = json.loads((folder / name).read_text("utf-8"), parse_float=Decimal)
    return loaded


def dumps(document: dict[str, Any]) -> str:
    """One line of JSON with the decimals written as numbers."""

    def number(value: object) -> float:
        assert isinstance(value, Decimal)
        return float(value)

    return json.dumps(document, default=number)


def units(value: Decimal, exponent: int) -> int:
    return int(value.scaleb(exponent))


def exported(hand: Hand, names: dict[int, str], hand_id: int = 42) -> str:
    return ohh.dumps(
        hand,
        hand_id=hand_id,
        table_name="Felt I",
        hero=None,
        names=names,
        currency=Currency("USD", 2),
        started=STARTED,
        seat_count=6,
        show_all=True,
    )


SIDE_NAMES = {1: "Ann", 2: "Bob", 3: "Cat", 4: "Dan", 6: "Eve"}


# ------------------------------------------------------------------------------ the examples


def test_the_examples_are_all_there() -> None:
    assert [path.name for path in EXAMPLES] == sorted(
        [SPLIT_POT, TOURNAMENT, "holdem-cash-eur-flop-raise-fold.ohh"]
    )


@pytest.mark.parametrize("path", ALL_EXAMPLES)
def test_the_spec_examples_validate_import_and_replay(path: Path) -> None:
    document = example(path.name, path.parent)
    assert ohh.validate(document) == []
    result = ohh_import.load_file(path)
    assert result.problems == ()
    (record,) = result.records
    hand = document["ohh"]
    exponent = record.exponent
    assert record.hand_id == int(hand["game_number"])
    assert record.button == hand["dealer_seat"]
    assert record.structure is Structure.NO_LIMIT
    assert record.stakes.small_bet == units(hand["big_blind_amount"], exponent)
    files = {p["seat"]: (p["name"], units(p["starting_stack"], exponent)) for p in hand["players"]}
    assert {p.seat: (p.name, p.stack) for p in record.players} == files
    # Dealing order: clockwise from the button's left.
    seats = sorted(files)
    left = [s for s in seats if s > hand["dealer_seat"]] + [
        s for s in seats if s <= hand["dealer_seat"]
    ]
    assert list(record.seats) == left
    hero = next(p for p in hand["players"] if p["id"] == hand["hero_player_id"])
    assert record.metadata["hero"] == hero["name"]
    dealt = [a for r in hand["rounds"] for a in r["actions"] if a["action"] == "Dealt Cards"]
    assert [str(c) for c in record.players[record.index_of(hero["seat"])].hole] == dealt[0]["cards"]
    board = [card for r in hand["rounds"] for card in (r.get("cards") or [])]
    assert [str(card) for card in record.board] == board
    # Pots, rake and winnings as the file states them; the replay pays the same.
    pots = [(units(p["amount"], exponent), units(p["rake"], exponent)) for p in hand["pots"]]
    assert record.metadata["pots"] == tuple(pots)
    won: dict[int, int] = {}
    ids = {p["id"]: p["seat"] for p in hand["players"]}
    for pot in hand["pots"]:
        for win in pot["player_wins"]:
            seat = ids[win["player_id"]]
            won[seat] = won.get(seat, 0) + units(win["win_amount"], exponent)
    assert record.winnings == tuple(Decimal(won.get(seat, 0)) for seat in record.seats)
    played = replay(record)
    awarded = [(e.amount, e.rake) for e in played.events if isinstance(e, PotAwarded)]
    assert awarded == pots
    final = dict(zip((s for s, _ in played.setup.players), played.final_stacks, strict=True))
    assert record.finishing_stacks == tuple(Decimal(final[s]) for s in record.seats)
    assert sum(final.values()) == sum(p.stack or 0 for p in record.players) - sum(
        rake for _, rake in pots
    )


def test_amounts_are_increments_in_the_file_and_raise_to_totals_in_the_record() -> None:
    """The split pot example's flop: bet 0.20, raise 0.60, call 0.40: raises to 20 and 60
    cents."""
    document = example(SPLIT_POT)
    (record,) = ohh_import.loads(dumps(document)).records
    flop = next(r for r in document["ohh"]["rounds"] if r["street"] == "Flop")
    totals: dict[int, Decimal] = {}
    expected = []
    for action in flop["actions"]:
        totals[action["player_id"]] = totals.get(action["player_id"], 0) + action["amount"]
        if action["action"] in ("Bet", "Raise"):
            expected.append(units(totals[action["player_id"]], 2))
    start = record.actions.index(next(a for a in record.actions if a.kind is ActionKind.DEAL_BOARD))
    end = record.actions.index([a for a in record.actions if a.kind is ActionKind.DEAL_BOARD][1])
    flop_raises = [a.amount for a in record.actions[start:end] if a.kind is ActionKind.BET_RAISE]
    assert flop_raises == expected
    assert record.rake is not None
    assert record.rake.taken == units(document["ohh"]["pots"][0]["rake"], 2)


def test_tournament_hand_metadata() -> None:
    document = example(TOURNAMENT)
    (record,) = ohh_import.loads(dumps(document)).records
    assert record.metadata["tournament"] is True
    info = record.metadata["tournament_info"]
    assert isinstance(info, dict)
    assert info["tournament_number"] == document["ohh"]["tournament_info"]["tournament_number"]
    assert record.metadata["currency"] == "CHIPS"  # the file's currency is ""
    assert record.exponent == 0
    assert record.metadata["started"] == document["ohh"]["start_date_utc"] + "Z"
    assert record.rake is None
    (muck,) = [a for a in record.actions if a.kind is ActionKind.MUCK]
    assert muck.seat == 3


# ------------------------------------------------------------------------------ file forms


def _three() -> list[str]:
    hand = side_pot_hand()
    return [exported(hand, SIDE_NAMES, hand_id) for hand_id in (7, 8, 9)]


def test_one_document_per_line_an_array_and_pretty_printed_documents() -> None:
    texts = _three()
    compact = [json.dumps(json.loads(t, parse_float=Decimal), default=float) for t in texts]
    for text in (
        "\n".join(compact) + "\n",
        "[" + ",\n".join(compact) + "]",
        "\n\n".join(texts),
        "\ufeff" + "".join(texts),
    ):
        result = ohh_import.loads(text)
        assert result.problems == ()
        assert [r.hand_id for r in result.records] == [7, 8, 9]
    assert ohh_import.loads("").records == ()
    assert ohh_import.loads("[]").records == ()


def test_a_truncated_document_is_a_problem_at_its_line_and_the_others_import() -> None:
    texts = _three()
    lines = [json.dumps(json.loads(t, parse_float=Decimal), default=float) for t in texts]
    lines[1] = lines[1][: len(lines[1]) // 2]
    result = ohh_import.loads("\n".join(lines) + "\n")
    assert [r.hand_id for r in result.records] == [7, 9]
    (problem,) = result.problems
    assert (problem.hand, problem.line) == ("8", 2)
    assert problem.message.startswith("not valid JSON")
    # Pretty-printed: the next document is found at the next line starting with "{".
    pretty = texts[0] + texts[1][: len(texts[1]) // 2] + "\n" + texts[2]
    result = ohh_import.loads(pretty)
    assert [r.hand_id for r in result.records] == [7, 9]
    (problem,) = result.problems
    assert problem.line == texts[0].count("\n") + 1
    assert str(problem).startswith(f"line {problem.line}: hand 8: not valid JSON")


# ------------------------------------------------------------------------------ bad documents


def _problem(document: dict[str, Any]) -> ImportProblem:
    good = exported(side_pot_hand(), SIDE_NAMES, 1)
    result = ohh_import.loads(good + dumps(document) + "\n" + good)
    assert len(result.records) == 2
    (problem,) = result.problems
    assert problem.line == good.count("\n") + 1
    return problem


def _side_pot_document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        exported(side_pot_hand(), SIDE_NAMES, 5), parse_float=Decimal
    )
    return loaded


def test_a_schema_error_names_the_json_path() -> None:
    document = _side_pot_document()
    del document["ohh"]["players"][2]["seat"]
    document["ohh"]["rounds"][0]["actions"][3]["action"] = "Dances"
    problem = _problem(document)
    assert problem.hand == "5"
    assert "does not fit the OHH schema" in problem.message
    assert "$.ohh.players[2]: missing 'seat'" in problem.message
    assert "$.ohh.rounds[0].actions[3].action:" in problem.message


def test_not_an_ohh_document() -> None:
    problem = _problem({"hand": 3})
    assert problem.hand is None
    assert "not an OHH document" in problem.message


def test_winnings_that_do_not_reconcile_with_the_pot() -> None:
    document = _side_pot_document()
    win = document["ohh"]["pots"][1]["player_wins"][0]
    win["win_amount"] += Decimal("0.01")
    problem = _problem(document)
    assert "$.ohh.pots[1]:" in problem.message
    assert "the player_wins receive" in problem.message


def test_a_pot_the_bets_do_not_make() -> None:
    document = _side_pot_document()
    pot = document["ohh"]["pots"][0]
    pot["amount"] += 1
    pot["player_wins"][0]["win_amount"] += 1
    problem = _problem(document)
    assert "$.ohh.pots[0]: amount" in problem.message
    assert "the bets make a pot of" in problem.message


def test_a_winner_the_engine_does_not_award() -> None:
    document = _side_pot_document()
    # The main pot given to another showdown player than the engine's winner.
    pot = document["ohh"]["pots"][0]
    winner = pot["player_wins"][0]["player_id"]
    other = next(p["id"] for p in document["ohh"]["players"] if p["id"] not in (winner, 2))
    pot["player_wins"][0]["player_id"] = other
    problem = _problem(document)
    assert "our engine awards" in problem.message


def test_a_call_of_the_wrong_amount() -> None:
    document = _side_pot_document()
    preflop = document["ohh"]["rounds"][0]["actions"]
    call = next(a for a in preflop if a["action"] == "Call")
    call["amount"] -= Decimal("0.05")
    call["is_allin"] = False
    problem = _problem(document)
    assert "Call" in problem.message
    assert "our engine" in problem.message


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda h: h.update(game_type="Omaha"), "game_type 'Omaha' is not supported"),
        (lambda h: h["bet_limit"].update(bet_cap=5), "capped games are not supported"),
    ],
    ids=["omaha", "cap"],
)
def test_unsupported_games(change: Any, words: str) -> None:
    document = _side_pot_document()
    change(document["ohh"])
    assert words in _problem(document).message


# Rules: R-HOME-4
def test_R_HOME_4_a_second_run_round_deals_cards_and_nothing_else() -> None:
    """With the flag Run_It_Twice a second River round is the second run's (feltroom's
    extension); one with an action, or without the flag, is refused."""
    document = _side_pot_document()
    hand = document["ohh"]
    river = next(r for r in hand["rounds"] if r["street"] == "River")
    check = {"action_number": 1, "player_id": 0, "action": "Check", "amount": 0, "is_allin": False}
    second = {"id": 9, "street": "River", "cards": ["2c"], "actions": [check]}
    hand["rounds"].insert(hand["rounds"].index(river) + 1, second)
    assert "a second River round" in _problem(document).message
    hand["flags"] = ["Run_It_Twice"]
    assert "a second run's River deals 1 card(s) and has no action" in _problem(document).message


def test_an_action_after_the_hand_is_over() -> None:
    document = _side_pot_document()
    river = next(r for r in document["ohh"]["rounds"] if r["street"] == "River")
    river["actions"].append(
        {"action_number": 9, "player_id": 0, "action": "Check", "amount": 0, "is_allin": False}
    )
    assert "cannot replay" in _problem(document).message


# ------------------------------------------------------------------------------ structures


def test_fixed_limit_stakes_and_a_newer_spec_version() -> None:
    """Fixed-limit: the big blind is the small bet, the first turn/river bet the big bet."""
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    document: dict[str, Any] = json.loads(exported(limit_muck_hand(), names), parse_float=Decimal)
    document["ohh"]["spec_version"] = "1.5.0"
    (record,) = ohh_import.loads(dumps(document)).records
    assert record.structure is Structure.FIXED_LIMIT
    engine = limit_muck_hand().setup.structure
    assert isinstance(engine, FixedLimit)
    assert (record.stakes.small_bet, record.stakes.big_bet) == (engine.small_bet, engine.big_bet)
    replay(record)


def test_an_entering_players_post_a_dead_blind_and_antes() -> None:
    """The second "Post BB" is an entering player's post; "Post Dead" is dead money."""
    players = [(1, 500), (2, 500), (3, 500), (5, 500)]
    forced = [
        *blinds(players, 5, 5, 10, 1),
        ForcedBet(3, Forced.DEAD, 5),
        ForcedBet(3, Forced.POST, 10),
    ]
    hand = Hand(NoLimit(10), players, 5, forced, list(CARDS))
    while not hand.is_over:
        hand.check_or_call()
    text = exported(hand, {1: "Ann", 2: "Bob", 3: "Cy", 5: "Di"})
    (record,) = ohh_import.loads(text).records
    assert sorted(((b.seat, b.kind, b.amount) for b in record.forced_bets), key=str) == sorted(
        [
            *[(seat, ForcedKind.ANTE, 1) for seat, _ in players],
            (1, ForcedKind.SMALL_BLIND, 5),
            (2, ForcedKind.BIG_BLIND, 10),
            (3, ForcedKind.DEAD_BLIND, 5),
            (3, ForcedKind.POST, 10),
        ],
        key=str,
    )
    again = replay(record)
    posted = [e for e in hand.events if isinstance(e, Posted)]
    assert [e for e in again.events if isinstance(e, Posted)] == posted


# ------------------------------------------------------------------------------ convert


def test_convert_reads_ohh_reports_bad_hands_and_converts_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = exported(side_pot_hand(), SIDE_NAMES, 11)
    bad = _side_pot_document()
    bad["ohh"]["game_number"] = "12"
    bad["ohh"]["pots"][0]["rake"] += Decimal("0.01")
    path = tmp_path / "hands.json"
    path.write_text(good + dumps(bad) + "\n" + good.replace('"11"', '"13"'), encoding="utf-8")
    code = main(["convert", "--to", "pokerstars", str(path)])
    captured = capsys.readouterr()
    assert code == 1
    line = good.count("\n") + 1
    assert captured.err.startswith(f"{path}: line {line}: hand 12: $.ohh.pots[0]: amount")
    assert captured.out.count("PokerStars Hand #") == 2
    assert "PokerStars Hand #13:" in captured.out
    # OHH to OHH: the same hands, still valid, the rake still per pot (R-RAKE-3).
    code = main(["convert", "--to", "ohh", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert len(out) == 2
    original = json.loads(good, parse_float=Decimal)["ohh"]
    # without a hero the conversion writes no Dealt Cards (the showdown's cards stay)
    seen = json.loads(
        ohh.dumps(
            side_pot_hand(),
            hand_id=11,
            table_name="Felt I",
            hero=None,
            names=SIDE_NAMES,
            currency=Currency("USD", 2),
            started=STARTED,
            seat_count=6,
            reveal_showdown=True,
        ),
        parse_float=Decimal,
    )["ohh"]
    assert seen["rounds"] != original["rounds"]
    for text in out:
        again = json.loads(text, parse_float=Decimal)
        assert ohh.validate(again) == []
        assert again["ohh"]["pots"] == original["pots"]
        assert again["ohh"]["rounds"] == seen["rounds"]


def test_convert_the_spec_examples_to_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    for target in ("pokerstars", "ohh", "phh"):
        code = main(["convert", "--to", target, *map(str, EXAMPLES)])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert captured.err == ""
        assert captured.out


def test_is_ohh_by_content() -> None:
    assert ohh_import.is_ohh('\ufeff {"ohh": {')
    assert ohh_import.is_ohh('[{"spec_version": "1.4.6"}]')
    assert not ohh_import.is_ohh("PokerStars Hand #1: ...")
    assert not ohh_import.is_ohh('variant = "NT"\n')
    # A copy changes nothing of the original (bad input changes nothing).
    document = _side_pot_document()
    before = copy.deepcopy(document)
    ohh_import.loads(dumps(document))
    assert document == before


def test_a_non_finite_amount_is_a_problem_of_its_hand() -> None:
    good = exported(side_pot_hand(), SIDE_NAMES, 1)
    bad = dumps(_side_pot_document()).replace('"starting_stack": 2}', '"starting_stack": NaN}', 1)
    assert "NaN" in bad
    result = ohh_import.loads(bad + "\n" + good)
    assert len(result.records) == 1
    (problem,) = result.problems
    assert (problem.hand, problem.line) == ("5", 1)
    assert "is not an amount" in problem.message


def test_a_missing_action_in_another_sites_file_is_not_read_as_a_protection() -> None:
    """R-ALLIN-5 protections are read back from feltroom's own files only: elsewhere a player
    the engine waits for who acts no more is a problem."""
    document = _side_pot_document()
    document["ohh"]["site_name"] = "Elsewhere"
    preflop = document["ohh"]["rounds"][0]["actions"]
    fold = next(a for a in preflop if a["action"] == "Fold")
    preflop.remove(fold)
    problem = _problem(document)
    assert "our engine cannot replay the hand" in problem.message
    players = document["ohh"]["players"]
    seat = next(p["seat"] for p in players if p["id"] == fold["player_id"])
    assert f"seat {seat}" in problem.message


def test_hole_cards_dealt_one_by_one() -> None:
    document = example("holdem-cash-eur-flop-raise-fold.ohh")
    actions = document["ohh"]["rounds"][0]["actions"]
    k, dealt = next((k, a) for k, a in enumerate(actions) if a["action"] == "Dealt Cards")
    first, second = dealt["cards"]
    actions[k : k + 1] = [
        {**dealt, "action": "Dealt Card", "cards": [first]},
        {**dealt, "action": "Dealt Card", "cards": [second]},
    ]
    (record,) = ohh_import.loads(dumps(document)).records
    hero = next(p for p in document["ohh"]["players"] if p["id"] == dealt["player_id"])
    assert [str(c) for c in record.players[record.index_of(hero["seat"])].hole] == [first, second]

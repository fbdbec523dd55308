"""Each signal of the integrity report on constructed hands: the pattern it looks for is flagged,
and the honest pattern that looks most like it is not (issue 24, docs/integrity.md)."""

from __future__ import annotations

import random
from typing import Any

from feltroom.integrity import DEFAULT_THRESHOLD, SignIn, StoredHand, integrity_report, played
from feltroom.integrity.signals import seats_together, shared_sign_ins
from feltroom.rules import Call, Check, Fold, RaiseTo

from .build import stored_hand
from .scenes import (
    background,
    bet_fold,
    check_down,
    raise_fold,
    short_all_in_check_down,
    shove_call,
)

NAMES = ["ann", "ben", "cat", "dan", "eve", "fay"]


def _pair(report: dict[str, Any], a: str, b: str) -> dict[str, Any] | None:
    for entry in report["pairs"] + report["watch"]:
        if entry["accounts"] == sorted([a, b]):
            return entry
    return None


def _flagged(report: dict[str, Any]) -> list[list[str]]:
    return [entry["accounts"] for entry in report["pairs"]]


# ----------------------------------------------------------------------------- the moves


def test_a_stored_hand_replays_into_moves_with_who_faced_whose_bet() -> None:
    hand = stored_hand(
        7,
        [("ann", 200, "As Ad"), ("ben", 200, "7c 2d"), ("cat", 200, "Kh Qh")],
        "2s 3s 4h 5c 9d",
        [
            ("ann", Call()),
            ("ben", Call()),
            ("cat", Check()),
            ("ben", Check()),
            ("cat", RaiseTo(10)),
            ("ann", Fold()),
            ("ben", Fold()),
        ],
    )
    moves = played(hand).moves
    assert [(m.street, m.account, m.kind, m.added) for m in moves] == [
        (0, "ann", "call", 2),
        (0, "ben", "call", 1),
        (0, "cat", "check", 0),
        (1, "ben", "check", 0),
        (1, "cat", "bet", 10),
        (1, "ann", "fold", 0),
        (1, "ben", "fold", 0),
    ]
    fold = moves[5]
    assert (fold.facing, fold.owed, fold.invested, fold.forced) == ("cat", 10, 2, 0)
    assert fold.live == {"ben", "cat"}
    assert [(p.account, p.net) for p in played(hand).players] == [
        ("ann", -2),
        ("ben", -2),
        ("cat", 4),
    ]


def test_a_hand_that_does_not_replay_is_listed_not_counted() -> None:
    good = raise_fold(1, "ann", "ben", "cat")
    broken = StoredHand(
        2, "t1", 0.0, good.seats, {**good.record, "pots": [[1, 0, [1], [1]]]}, good.settings
    )
    report = integrity_report([good, broken], [])
    assert report["hands"] == 1
    assert report["unreadable_hands"] == [2]


# ----------------------------------------------------------------------------- chip dumping


def test_chip_dumping_folds_to_one_account_after_investing_are_flagged() -> None:
    honest = background(NAMES, 150, 1, seed=1, shapes=[raise_fold, bet_fold, check_down])
    rng = random.Random(2)
    dumped = [
        raise_fold(1000 + k, "ben", rng.choice(["ann", "cat", "eve"]), "dan") for k in range(40)
    ]
    report = integrity_report(honest + dumped, [])
    assert _flagged(report) == [["ben", "dan"]]
    evidence = report["pairs"][0]["signals"]["chip_dumping"]
    assert (evidence["from"], evidence["to"]) == ("dan", "ben")
    assert evidence["score"] >= DEFAULT_THRESHOLD
    assert evidence["folds_after_investing"] >= 40
    assert evidence["folds_after_investing"] > 2 * evidence["expected_folds"]
    assert evidence["example_hands"]
    assert report["groups"][0]["accounts"] == ["ben", "dan"]


def test_chip_dumping_a_strong_player_beating_a_weak_one_everywhere_is_not_flagged() -> None:
    rng = random.Random(3)
    hands = []
    for k in range(300):
        trio = rng.sample(NAMES, 3)
        # ann wins every hand she plays; fay loses every hand she plays
        if "ann" in trio:
            trio.remove("ann")
            trio.insert(0, "ann")
        if "fay" in trio:
            trio.remove("fay")
            trio.append("fay")
        hands.append(raise_fold(k + 1, *trio))
    report = integrity_report(hands, [])
    assert _flagged(report) == []
    entry = _pair(report, "ann", "fay")
    assert entry is None or entry["signals"]["chip_dumping"]["score"] < DEFAULT_THRESHOLD


def test_chip_dumping_hopeless_calls_of_one_accounts_all_ins_are_flagged() -> None:
    rng = random.Random(4)
    honest = [  # ten against an overcard and a pair above it: called with a fair chance
        shove_call(
            k + 1,
            *rng.sample(NAMES, 3),
            caller_hole=rng.choice(["Ac Kc", "Qc Qd", "9c 9d"]),
            shover_hole="Ts Tc",
        )
        for k in range(120)
    ]
    dumped = [
        shove_call(1000 + k, "eve", rng.choice(["ann", "ben"]), "cat", caller_hole="7c 2d")
        for k in range(30)
    ]
    report = integrity_report(honest + dumped, [])
    assert ["cat", "eve"] in _flagged(report)
    evidence = _pair(report, "cat", "eve")["signals"]["chip_dumping"]  # type: ignore[index]
    assert (evidence["from"], evidence["to"]) == ("cat", "eve")
    assert evidence["hopeless_calls"] >= 30
    assert evidence["all_in_calls"] >= 30


def test_chip_dumping_a_calling_station_calling_everyones_all_in_is_not_flagged() -> None:
    rng = random.Random(5)
    hands = []
    for k in range(200):
        shover, third = rng.sample([n for n in NAMES if n != "fay"], 2)
        hands.append(shove_call(k + 1, shover, third, "fay", caller_hole="7c 2d"))
    report = integrity_report(hands, [])
    assert _flagged(report) == []


# ----------------------------------------------------------------------------- soft play


def test_soft_play_two_players_who_never_bet_at_each_other_are_flagged() -> None:
    others = ["cat", "dan", "eve", "fay"]
    honest = [
        hand
        for hand in background(NAMES, 400, 1, seed=6, shapes=[bet_fold, raise_fold, check_down])
        if not {"ann", "ben"} <= {seat.account for seat in hand.seats}
    ]
    rng = random.Random(7)
    soft = [check_down(1000 + k, "ann", "ben", rng.choice(others)) for k in range(40)]
    soft += [short_all_in_check_down(2000 + k, rng.choice(others), "ann", "ben") for k in range(10)]
    report = integrity_report(honest + soft, [])
    assert ["ann", "ben"] in _flagged(report)
    evidence = _pair(report, "ann", "ben")["signals"]["soft_play"]  # type: ignore[index]
    assert evidence["score"] >= DEFAULT_THRESHOLD
    assert evidence["bets_and_raises"] == 0
    assert evidence["expected_bets_and_raises"] > 10
    assert evidence["checkdowns_with_a_third_all_in"] == 30
    assert len(evidence["example_hands"]) == 5


def test_soft_play_two_passive_players_who_never_bet_at_anyone_are_not_flagged() -> None:
    rng = random.Random(8)
    hands = []
    for k in range(400):
        trio = rng.sample(NAMES, 3)
        bettors = [name for name in trio if name not in ("ann", "ben")]
        if bettors and rng.random() < 0.6:
            trio.remove(bettors[0])
            hands.append(bet_fold(k + 1, bettors[0], *trio))
        else:
            hands.append(check_down(k + 1, *trio))
    report = integrity_report(hands, [])
    assert _flagged(report) == []


# ----------------------------------------------------------------------------- sign-ins


def _sign_ins(rows: list[tuple[str, str, str]]) -> list[SignIn]:
    return [SignIn(a, address, agent, float(k)) for k, (a, address, agent) in enumerate(rows)]


def test_shared_sign_ins_one_home_and_one_rare_browser_score_a_point_and_a_half() -> None:
    rows = [("ann", "198.51.100.7", "Firefox/1 rare"), ("ben", "198.51.100.7", "Firefox/1 rare")]
    rows += [("cat", "203.0.113.1", "Chrome"), ("dan", "203.0.113.2", "Chrome")]
    found = shared_sign_ins(_sign_ins(rows))
    assert set(found) == {("ann", "ben"), ("cat", "dan")}
    assert found["ann", "ben"]["score"] == 1.5
    assert found["ann", "ben"]["shared_addresses"] == [{"address": "198.51.100.7", "accounts": 2}]
    assert found["cat", "dan"]["score"] == 0.5  # a rare browser alone
    # corroboration alone never reaches the threshold: listed to watch, not to review
    report = integrity_report([], _sign_ins(rows))
    assert report["pairs"] == []
    assert report["watch"][0]["accounts"] == ["ann", "ben"]
    assert report["watch"][0]["score"] == 1.0


def test_shared_sign_ins_a_cafe_and_a_common_browser_are_not_evidence() -> None:
    cafe = [(f"p{k}", "192.0.2.80", "Chrome/131") for k in range(11)]
    found = shared_sign_ins(_sign_ins(cafe))
    assert found == {}  # 11 accounts: a public address; 11 users: a common browser


# ----------------------------------------------------------------------------- seats


def _tables(pattern: list[tuple[str, list[str]]]) -> list[tuple[int, str, list[str]]]:
    return [(k + 1, table, names) for k, (table, names) in enumerate(pattern)]


def test_seats_taken_together_again_and_again_are_counted_against_chance() -> None:
    rng = random.Random(9)
    regulars = [f"r{k}" for k in range(40)]
    pattern: list[tuple[str, list[str]]] = []
    for block in range(200):  # tables of four regulars who change every 20 hands
        table = f"t{block % 4}"
        crowd = rng.sample(regulars, 4)
        if block % 25 == 5:  # now and then the pair sits down together
            crowd = [*crowd[:2], "ann", "ben"]
        pattern += [(table, crowd)] * 20
    found = seats_together(_tables(pattern))
    assert found["ann", "ben"]["seats_taken_together"] == 8
    assert found["ann", "ben"]["expected"] < 1
    assert found["ann", "ben"]["score"] >= DEFAULT_THRESHOLD
    assert all(
        entry["score"] < DEFAULT_THRESHOLD
        for pair, entry in found.items()
        if pair != ("ann", "ben")
    )


def test_seats_regulars_who_join_often_are_not_a_pair() -> None:
    rng = random.Random(10)
    regulars = [f"r{k}" for k in range(8)]
    pattern: list[tuple[str, list[str]]] = []
    for _ in range(300):
        pattern.append((f"t{rng.randrange(2)}", rng.sample(regulars, 5)))
    found = seats_together(_tables(pattern))
    assert all(entry["score"] < DEFAULT_THRESHOLD for entry in found.values())

"""The ACPC notation on the engine: game definitions, MATCHSTATE lines and the dealer's match logs
(tests/data/acpc: the reference dealer's own recordings) replay to their recorded results."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from feltroom.bots.acpc_player import answer
from feltroom.cli import main
from feltroom.history.acpc import (
    AcpcError,
    GameDef,
    MatchState,
    apply_betting,
    hand_from_state,
    new_hand,
    parse_log,
    replay_log,
    split_reply,
    state_of,
)
from feltroom.history.replay import replay_paths

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"
MATCHES = {
    "acpc-2p-limit": "holdem.limit.2p.reverse_blinds.game",
    "acpc-2p-nolimit": "holdem.nolimit.2p.reverse_blinds.game",
    "acpc-3p-nolimit": "holdem.nolimit.3p.game",
}


def _game(name: str) -> GameDef:
    return GameDef.parse((DATA / name).read_text(encoding="utf-8"))


def _wire(match: str) -> list[tuple[str, int, str]]:
    """The dealer's messages: (TO or FROM, the player's number, the line)."""
    text = (DATA / f"{match}.dealer-stderr.txt").read_bytes().decode("ascii")
    found = []
    for raw in text.split("\r\n"):
        line = raw.split("\n")[-1]
        if line.startswith(("TO ", "FROM ")):
            direction, player, _, _, message = line.split(" ", 4)
            found.append((direction, int(player), message))
    return found


def test_the_licence_notice_travels_with_the_copies() -> None:
    notice = (DATA / "README.md").read_text(encoding="utf-8")
    assert (
        "Copyright (C) 2011 by the Computer Poker Research Group, University of Alberta" in notice
    )


@pytest.mark.parametrize("path", sorted(DATA.glob("*.game")), ids=lambda p: p.name)
def test_game_definitions_read_and_write_back(path: Path) -> None:
    game = GameDef.parse(path.read_text(encoding="utf-8"))
    assert GameDef.parse(game.text()) == game


def test_the_room_plays_the_four_holdem_definitions_and_says_why_not_kuhn() -> None:
    for name in set(MATCHES.values()) | {"holdem.limit.3p.game"}:
        assert _game(name).holdem_problem() is None
    assert _game("kuhn.limit.3p.game").holdem_problem() == "numRounds is 1; Texas Hold'em has 4"
    limit = _game("holdem.limit.2p.reverse_blinds.game")
    assert limit.hand_cost() == 240  # four bets of 10, 10, 20 and 20
    assert limit.bets_per_round == 4
    with pytest.raises(AcpcError, match="blind is 5 10; the room posts blind = BB SB"):
        GameDef.parse(limit.text().replace("blind = 10 5", "blind = 5 10")).check_holdem()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("limit\nEND GAMEDEF", "starts with a line GAMEDEF"),
        ("GAMEDEF\nnumPlayers = 2\nEND GAMEDEF", "says limit or nolimit"),
        ("GAMEDEF\nnolimit\nstakes = 3\nEND GAMEDEF", "key 'stakes' is not known"),
        (
            "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nblind = 1\nfirstPlayer = 1 1 1 1\n"
            "END GAMEDEF",
            "blind gives 1 numbers; numPlayers is 2",
        ),
    ],
)
def test_a_bad_game_definition_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(AcpcError, match=message):
        GameDef.parse(text)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("MATCHSTATE:0:1:cc", "is not a match state"),
        ("MATCHSTATE:x:1::AsKd|", "whole numbers"),
        ("MATCHSTATE:0:1:cx:AsKd|", "'x' is not f, c or r"),
        ("MATCHSTATE:0:1::AsK|", "not whole cards"),
    ],
)
def test_a_bad_match_state_says_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(AcpcError, match=message):
        MatchState.parse(line)


@pytest.mark.parametrize("match", sorted(MATCHES))
def test_every_line_the_dealer_sent_is_read_written_back_and_made_again_by_the_engine(
    match: str,
) -> None:
    game = _game(MATCHES[match])
    hands = {h.number: h for h in parse_log((DATA / f"{match}.log").read_text()).hands}
    sent = 0
    for direction, _, line in _wire(match):
        if direction != "TO":
            continue
        state = MatchState.parse(line)
        assert str(state) == line
        logged = hands[state.hand]
        board = [card for cards in logged.board for card in cards]
        hand = apply_betting(game, new_hand(game, logged.holes, board), state.betting)
        assert str(state_of(game, hand, state.position, state.hand, show_all=True)) == line
        sent += 1
    assert sent == {"acpc-2p-limit": 60, "acpc-2p-nolimit": 40, "acpc-3p-nolimit": 90}[match]


@pytest.mark.parametrize("match", sorted(MATCHES))
def test_every_answer_a_bot_sent_answers_its_last_state_at_its_turn(match: str) -> None:
    """The recorded players answered exactly the states where the engine says they act; the
    reference bot answers those states and no other."""
    game = _game(MATCHES[match])
    last: dict[int, str] = {}
    answered = 0
    for direction, player, line in _wire(match):
        if direction == "TO":
            state = MatchState.parse(line)
            hand = hand_from_state(game, state)
            mine = not hand.is_over and hand.to_act == state.position + 1
            reply = answer(game, state, "station", seed=1)
            assert (reply is not None) == mine
            last[player] = line
            continue
        state_text, action = split_reply(line)
        assert state_text == last[player]
        state = MatchState.parse(state_text)
        hand = hand_from_state(game, state)
        assert hand.to_act == state.position + 1
        apply_betting(
            game, hand, [[action]] if hand.street == 0 else [[]] * hand.street + [[action]]
        )
        answered += 1
    assert answered > 0


@pytest.mark.parametrize("match", sorted(MATCHES))
def test_the_recorded_matches_replay_to_their_recorded_results(match: str) -> None:
    game = _game(MATCHES[match])
    log = parse_log((DATA / f"{match}.log").read_text())
    checks, totals = replay_log(game, log)
    assert [c.error for c in checks] == [None] * len(log.hands)
    assert all(c.match for c in checks)
    assert log.score is not None
    assert totals == log.score


def test_feltroom_replay_takes_acpc_logs_and_prints_one_line_a_hand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(DATA)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 11
    assert all(line["match"] is True for line in lines)
    first = next(line for line in lines if line["source"].endswith("acpc-2p-nolimit.log#0"))
    assert first["finishing_stacks"] == [0, 40000]


def test_a_log_whose_values_are_wrong_fails_its_replay(tmp_path: Path) -> None:
    (tmp_path / "holdem.nolimit.2p.reverse_blinds.game").write_text(
        (DATA / "holdem.nolimit.2p.reverse_blinds.game").read_text()
    )
    text = (DATA / "acpc-2p-nolimit.log").read_text().replace(":503|-503:", ":504|-504:")
    (tmp_path / "m.log").write_text(text)
    out = io.StringIO()
    assert replay_paths([tmp_path / "m.log"], out) == 1
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["match"] for r in results] == [True, True, True, False]
    score = (DATA / "acpc-2p-nolimit.log").read_text().replace("SCORE:-22224|", "SCORE:-22223|")
    (tmp_path / "m.log").write_text(score)
    out = io.StringIO()
    assert replay_paths([tmp_path / "m.log"], out) == 1
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["match"] for r in results] == [True, True, True, True, False]
    assert results[-1]["source"].endswith("#score")
    (tmp_path / "holdem.nolimit.2p.reverse_blinds.game").unlink()
    out = io.StringIO()
    assert replay_paths([tmp_path / "m.log"], out) == 1
    assert "is not beside the log" in out.getvalue()

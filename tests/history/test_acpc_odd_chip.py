"""A dealer's log of three-handed hands whose split pots have an odd chip replays with every hand
matching: the dealer counts 2.5 and 2.5 where R-POT-1 gives 3 and 2 (docs/acpc.md)."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from feltroom.cli import main
from feltroom.history.acpc import GameDef, dealer_counted, parse_log, replay_hand, replay_log

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"

# Limit, blinds 5/10: the button and the big blind call, the small blind folds, both play the
# board's straight: 25 split two ways. No-Limit: the small blind folds its 201 to a raise, and
# the other two split 1201.
LIMIT = """# name/game/hands/seed odd holdem.limit.3p.game 2 7
STATE:0:cfc/cc/cc/cc:2c3d|4h5s|6c7d/AsKdQh/Jc/Ts:-5|2.5|2.5:Alice|Bob|Carol
STATE:1:ccc/ccc/ccc/ccc:2c3d|4h5s|6c7d/AsKdQh/Jc/Ts:0|0|0:Bob|Carol|Alice
SCORE:-5|2.5|2.5:Alice|Bob|Carol
"""
NOLIMIT = """# name/game/hands/seed odd holdem.nolimit.3p.game 1 7
STATE:0:r201cr500cf/cc/cc/cc:2c3d|4h5s|6c7d/AsKdQh/Jc/Ts:-201|100.5|100.5:Alice|Bob|Carol
SCORE:-201|100.5|100.5:Alice|Bob|Carol
"""


@pytest.mark.parametrize(
    ("text", "game"), [(LIMIT, "holdem.limit.3p.game"), (NOLIMIT, "holdem.nolimit.3p.game")]
)
def test_an_odd_chip_split_counts_as_the_dealer_counts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, game: str
) -> None:
    definition = GameDef.parse((DATA / game).read_text(encoding="utf-8"))
    log = parse_log(text)
    hand = replay_hand(definition, log.hands[0])
    counted = dealer_counted(hand)
    # the engine's chips are whole (R-POT-1); the dealer's count shares the odd one
    assert sum(hand.final_stacks) == sum(counted)
    assert counted != tuple(Decimal(s) for s in hand.final_stacks)
    assert all(abs(c - s) < 1 for c, s in zip(counted, hand.final_stacks, strict=True))
    checks, totals = replay_log(definition, log)
    assert all(check.match for check in checks)
    assert totals == log.score
    (tmp_path / "odd.log").write_text(text, encoding="utf-8")
    shutil.copy(DATA / game, tmp_path / game)
    assert main(["replay", str(tmp_path / "odd.log")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["match"] for line in lines] == [True] * len(log.hands)
    assert lines[0]["odd_chip"] is True

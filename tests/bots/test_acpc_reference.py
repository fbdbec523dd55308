"""Matches of agents built on the ACPC reference server's own game code, through the bridges at
the room's default settings: 300 hands of each of the four games, every line read by the
reference ``readMatchState`` and printed back unchanged by ``printMatchState``, every answer
played as sent, the bots' hands agreeing with each other, the audit passing.

The reference code (``game.cc``, ``rng.cc`` of project_acpc_server, with its licence) comes from
the ``open_spiel`` source distribution on PyPI, which ships it; the test downloads it once with
pip into a cache folder (``FELTROOM_TEST_CACHE``, default ``~/.cache/feltroom-tests``) and builds
``acpc_agent.cc`` (ours, beside this file) on it with the system C++ compiler."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from bots.test_acpc import TABLES
from feltroom.bots.acpc import Bridge, BridgeReport, BridgeSettings
from feltroom.cli import main
from feltroom.history.acpc import GameDef, MatchState
from feltroom.room import audit
from feltroom.store import SqlStorage
from server.live import live_server, room_for

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[0] / "data" / "acpc"
SOURCE = "open_spiel==1.5"  # its sdist ships project_acpc_server's game code
INSIDE = "open_spiel/games/universal_poker/acpc/project_acpc_server/"
HANDS = 300


def _cache() -> Path:
    root = os.environ.get("FELTROOM_TEST_CACHE") or Path.home() / ".cache" / "feltroom-tests"
    return Path(root) / "acpc-reference"


def reference_agent() -> Path:
    """The built agent: the reference game code fetched (once) and compiled with ours."""
    cache = _cache()
    agent = cache / "acpc_agent"
    source = HERE / "acpc_agent.cc"
    if agent.exists() and agent.stat().st_mtime >= source.stat().st_mtime:
        return agent
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler (g++) to build the reference ACPC game code")
    code = cache / "project_acpc_server"
    if not (code / "game.cc").exists():
        with tempfile.TemporaryDirectory() as tmp:
            fetch = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
            done = subprocess.run(
                [*fetch, SOURCE, "-d", tmp], capture_output=True, text=True, timeout=600
            )
            archives = list(Path(tmp).glob("open_spiel-*.tar.gz"))
            if not archives:
                pytest.skip(f"pip could not fetch {SOURCE}: {done.stderr[-500:]}")
            code.mkdir(parents=True, exist_ok=True)
            with tarfile.open(archives[0]) as archive:
                for member in archive.getmembers():
                    name = member.name.split("/", 1)[-1]
                    if name.startswith(INSIDE) and member.isfile():
                        data = archive.extractfile(member)
                        assert data is not None
                        (code / name[len(INSIDE) :]).write_bytes(data.read())
                    elif name == "LICENSE":
                        data = archive.extractfile(member)
                        assert data is not None
                        (code / "LICENSE").write_bytes(data.read())
    building = agent.with_name(f"acpc_agent.{os.getpid()}")  # test processes build alike
    flags = ["-O2", "-D__STDC_FORMAT_MACROS=1", f"-I{code}", "-o", str(building)]
    built = subprocess.run(
        [compiler, *flags, str(source), str(code / "game.cc"), str(code / "rng.cc")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    building.replace(agent)
    return agent


async def _match(
    live: object, table: str, game_file: str, players: int
) -> tuple[list[BridgeReport], list[tuple[int, str, str]]]:
    agent = reference_agent()
    game = GameDef.parse((DATA / game_file).read_text(encoding="utf-8"))
    runs, agents = [], []
    for k in range(players):
        name = f"{table[5:]}a{k}"
        await live.account(name, chips=50_000_000)  # the refills of 300 hands  # type: ignore[attr-defined]
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        settings = BridgeSettings(
            live.http,  # type: ignore[attr-defined]
            0,
            name,
            "password-" + name,
            table,
            game,
            HANDS,
        )
        bridge = Bridge(settings, listening=port.set_result)
        runs.append(asyncio.create_task(bridge.run()))
        number = await port
        agents.append(
            await asyncio.create_subprocess_exec(
                str(agent),
                str(DATA / game_file),
                "127.0.0.1",
                str(number),
                str(k + 1),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        )
    reports = await asyncio.gather(*runs)
    outputs = []
    for process in agents:
        out, err = await process.communicate()
        assert process.returncode is not None
        outputs.append((process.returncode, out.decode(), err.decode()))
    return list(reports), outputs


def _stored(storage: SqlStorage, table: str, players: int) -> list[tuple[str, str]]:
    """The room's histories of a table's hands of ``players`` players, in order: the betting as
    ACPC letters (``f``, ``c``, ``r``) and the board."""
    letters = {"fold": "f", "check": "c", "call": "c"}
    with storage.transaction(write=False) as tx:
        rows = tx.settled_hands(0.0, 0, 100_000)
    hands = []
    for row in rows:
        record = json.loads(row.record)
        if row.table_id != table or len(record["players"]) != players:
            continue
        betting = "".join(letters.get(text, "r") for _, text in record["actions"])
        hands.append((betting, record["board"]))
    return hands


GAMES = [
    ("acpc-nl", "holdem.nolimit.2p.reverse_blinds.game", 2),
    ("acpc-fl", "holdem.limit.2p.reverse_blinds.game", 2),
    ("acpc-nl3", "holdem.nolimit.3p.game", 3),
    ("acpc-fl3", "holdem.limit.3p.game", 3),
]


def test_reference_agents_play_300_hands_of_each_game_at_the_rooms_default_settings(
    storage: SqlStorage,
) -> None:
    """The four matches at once in one room (hands follow at once, the default rate limit and
    clocks, no think time): each runs to its last hand."""
    reference_agent()  # fetched and built before the room starts

    async def scenario() -> list[tuple[list[BridgeReport], list[tuple[int, str, str]]]]:
        room = room_for(storage, TABLES, between_hands=0.0, after_showdown=0.0)
        async with live_server(room) as live:
            matches = [_match(live, table, game, players) for table, game, players in GAMES]
            results = await asyncio.gather(*matches)
            assert live.tap.leaks == []
            for table, _, _ in GAMES:
                assert room.runners[table].table.seats == {}
        return list(results)

    results = asyncio.run(asyncio.wait_for(scenario(), 900))
    for (table, _, players), (reports, outputs) in zip(GAMES, results, strict=True):
        finals: list[list[MatchState]] = []
        for report, (code, out, err) in zip(reports, outputs, strict=True):
            # the agent read every line with readMatchState and printed it back unchanged
            assert code == 0, err[-2000:]
            lines = out.splitlines()
            words = lines[-1].split()
            assert words[:2] == ["hands", str(HANDS)], lines[-1]
            assert report.hands == HANDS, report
            assert int(words[3]) == report.actions  # every answer played...
            assert report.fixed == 0  # ...as sent
            assert report.ended == f"{HANDS} hands played"
            finals.append([MatchState.parse(line) for line in lines[:-1]])
        # the bots' last lines of each hand agree on the betting and the board, and the room's
        # histories hold the same actions and board, hand by hand
        # (a hand dealt as a bridge sat, with its entry post, or as they left is not the bots')
        shown = []
        for hands in zip(*finals, strict=True):
            assert len({(h.betting, h.board) for h in hands}) == 1, hands
            betting = "".join(t[0] for r in hands[0].betting for t in r)
            board = " ".join(str(c) for cards in hands[0].board for c in cards)
            shown.append((betting, board))
        stored = _stored(storage, table, players)
        extra = len(stored) - HANDS
        assert 0 <= extra <= 2
        assert any(stored[k : k + HANDS] == shown for k in range(extra + 1))
    result = audit(storage, shuffles=0)
    assert result["problems"] == []
    assert result["pass"] is True
    assert result["hands_checked"] >= 4 * HANDS


@pytest.mark.parametrize(
    ("game_file", "odd"),
    [
        ("holdem.limit.2p.reverse_blinds.game", False),
        ("holdem.nolimit.2p.reverse_blinds.game", False),
        ("holdem.limit.3p.game", True),
        ("holdem.nolimit.3p.game", True),
    ],
)
def test_logs_valued_by_the_reference_code_replay_with_every_hand_matching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game_file: str, odd: bool
) -> None:
    """3,000 hands of each game dealt with the reference code's random numbers (seed 7) and
    valued by its ``valueOfState``, written as the dealer writes its log: ``feltroom replay``
    matches every hand and the SCORE, the three-handed split pots' odd chips included."""
    agent = reference_agent()
    shutil.copy(DATA / game_file, tmp_path / game_file)
    made = subprocess.run(
        [str(agent), "--log", str(tmp_path / game_file), "3000", "7"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    log = tmp_path / "match.log"
    log.write_text(made.stdout, encoding="utf-8")
    assert main(["replay", str(log)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3000
    assert all(line["match"] is True for line in lines)
    odd_chips = sum(1 for line in lines if line.get("odd_chip"))
    assert (odd_chips > 0) is odd

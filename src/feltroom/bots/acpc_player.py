"""Reference ACPC bots: programs that speak the ACPC dealer protocol (2.0.0) and nothing else.

They play against the ACPC dealer or against the room through ``feltroom acpc`` alike, which is
what they are for: the test suite plays a match of two of them through two bridges. Run one as
the ACPC's own example player is run, with the game definition file, the dealer's host and port::

    python -m feltroom.bots.acpc_player GAMEDEF HOST PORT [--style station|random|tag] [--seed S]

It says ``VERSION:2.0.0``, then reads ``MATCHSTATE`` lines. For each, it rebuilds the hand on the
rules engine from the line alone (``feltroom.history.acpc.hand_from_state``); when the hand is
not over and its own position is to act, it asks a brain of the strategy layer (``station``
checks and calls, ``random`` plays random legal actions, ``tag`` tight-aggressive) and answers
``<the line>:<action>``. It ends when the dealer closes the connection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from feltroom.history.acpc import (
    PROTOCOL_VERSION,
    AcpcError,
    GameDef,
    MatchState,
    action_text,
    hand_from_state,
)
from feltroom.strategy import STYLES, make_brain

__all__ = ["PlayerReport", "answer", "main", "play"]


@dataclass
class PlayerReport:
    """What one reference bot did: the states read, the actions sent, the hands seen to the end
    (``finals``: the last line of each)."""

    states: int = 0
    actions: int = 0
    hands: int = 0
    finals: list[MatchState] = field(default_factory=list)


def answer(
    game: GameDef, state: MatchState, style: str, seed: int | str | None = None
) -> str | None:
    """The answer line to ``state`` (without the line end), or ``None`` when the position is
    not to act (or the hand is over)."""
    hand = hand_from_state(game, state)
    seat = state.position + 1
    if hand.is_over or hand.to_act != seat:
        return None
    legal = hand.legal_actions()
    assert legal is not None
    brain = make_brain(style, seed)
    action = brain.choose(hand.view_for(seat), legal)
    return state.reply(action_text(game, hand, action))


async def play(
    game: GameDef, host: str, port: int, style: str = "station", seed: int | str | None = None
) -> PlayerReport:
    """Connect to a dealer (or a bridge) and play until it closes the connection."""
    game.check_holdem()
    brain_seed = seed
    report = PlayerReport()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"{PROTOCOL_VERSION}\r\n".encode("ascii"))
        await writer.drain()
        while True:
            raw = await reader.readline()
            if not raw:
                return report
            line = raw.decode("ascii", "replace").strip()
            if not line.startswith("MATCHSTATE:"):
                continue
            state = MatchState.parse(line)
            report.states += 1
            hand = hand_from_state(game, state)
            if hand.is_over:
                report.hands += 1
                report.finals.append(state)
                continue
            # one brain per hand and seed, so that a seeded match is reproducible
            seed_now = None if brain_seed is None else f"{brain_seed}:{state.hand}:{report.states}"
            reply = answer(game, state, style, seed_now)
            if reply is not None:
                writer.write(f"{reply}\r\n".encode("ascii"))
                await writer.drain()
                report.actions += 1
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m feltroom.bots.acpc_player",
        description="A reference ACPC bot: plays one match against an ACPC dealer or bridge.",
    )
    parser.add_argument("game", type=Path, help="the game definition file")
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--style", choices=STYLES, default="station")
    parser.add_argument("--seed", default=None)
    args = parser.parse_args(argv)
    try:
        game = GameDef.parse(args.game.read_text(encoding="utf-8"))
        report = asyncio.run(play(game, args.host, args.port, args.style, args.seed))
    except (OSError, AcpcError) as error:
        print(f"acpc_player: {error}", file=sys.stderr)
        return 1
    print(f"done: {report.hands} hands, {report.actions} actions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

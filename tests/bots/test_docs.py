"""docs/bots.md: the bot written there plays as written, against a live server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from feltroom.room import audit
from feltroom.store import SqlStorage
from server.live import HEADS_UP, live_server, room_for

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def _example() -> str:
    section = DOC.read_text(encoding="utf-8").split("## Writing a bot", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "docs/bots.md has no python example under 'Writing a bot'"
    return found.group(1)


def test_the_documented_bot_plays_heads_up_against_itself(storage: SqlStorage) -> None:
    code = _example()
    assert len(code.splitlines()) <= 25  # a short example
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    play = namespace["play"]

    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            played = await asyncio.gather(
                play(live.http, "docbot1", "password-1", "hu", 1, 3),
                play(live.http, "docbot2", "password-2", "hu", 2, 3),
            )
            assert all(n >= 3 for n in played)
            while room.runners["hu"].table.seats:  # both left: a hand may have to end first
                await asyncio.sleep(0.02)
        report = audit(storage, shuffles=0)
        assert report["pass"] is True
        assert report["hands_checked"] >= 3

    asyncio.run(asyncio.wait_for(scenario(), 60))

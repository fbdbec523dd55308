"""Network bots answer the run-it-twice question (R-HOME-4) by their setting."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from feltroom.bots.client import RequestRefused
from feltroom.bots.runner import BotSettings, NetworkBot, _Team
from feltroom.errors import InvalidConfiguration
from feltroom.strategy import make_brain


def _bot(choice: str) -> tuple[NetworkBot, list[tuple[str, bool]]]:
    settings = BotSettings("ws://127.0.0.1:1/ws", 1, run_twice=choice)
    team = _Team(1, asyncio.Event())
    bot = NetworkBot(settings, "net1", make_brain("random", 1), ("t", False), {},
                     team, random.Random(1))  # fmt: skip
    answers: list[tuple[str, bool]] = []

    async def answer(table: str, agree: bool) -> dict[str, Any]:
        answers.append((table, agree))
        if len(answers) > 1:  # the question closed meanwhile: refused, not an error
            raise RequestRefused({"type": "error", "code": "illegal_action", "message": "no"})
        return {"type": "ok"}

    bot.client.answer_run_twice = answer  # type: ignore[method-assign]
    return bot, answers


# Rules: R-HOME-4
@pytest.mark.parametrize(("choice", "agree"), [("always", True), ("ask", True), ("never", False)])
def test_R_HOME_4_a_network_bot_answers_the_question(choice: str, agree: bool) -> None:
    bot, answers = _bot(choice)
    question = {"type": "run_twice", "table": "t", "hand": 7, "deadline": 1.0}

    async def scenario() -> None:
        await bot._handle(question)
        await bot._handle(question)

    asyncio.run(scenario())
    assert answers == [("t", agree), ("t", agree)]


def test_R_HOME_4_the_bot_setting_is_checked() -> None:
    with pytest.raises(InvalidConfiguration, match="run_twice is always, ask or never"):
        BotSettings("ws://127.0.0.1:1/ws", 1, run_twice="maybe")

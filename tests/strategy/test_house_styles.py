"""House bots of each style: the brain the style names, the seat's own view for a brain that
reads it, and only legal actions in engine hands."""

from __future__ import annotations

import random

import pytest

from feltroom.cards import CARDS
from feltroom.errors import InvalidConfiguration
from feltroom.room.housebots import house_bot
from feltroom.room.runtime import RuntimeSettings
from feltroom.rules import Hand, NoLimit, blinds
from feltroom.strategy import STYLES, RandomBrain, StationBrain, TagBrain


def test_house_bot_styles_name_their_brains_and_tag_is_the_default() -> None:
    assert RuntimeSettings().bot_style == "tag"
    random_bot = house_bot("bot.t.1", "random", (0.5, 2.0))
    assert isinstance(random_bot.brain, RandomBrain)
    assert (random_bot.brain.fold, random_bot.brain.passive, random_bot.brain.aggressive) == (
        0.25,
        0.6,
        0.15,
    )
    assert random_bot.think == (0.5, 2.0)
    assert not random_bot.reads_view
    assert isinstance(house_bot("b", "station").brain, StationBrain)
    tag = house_bot("b", "tag")
    assert isinstance(tag.brain, TagBrain)
    assert tag.reads_view
    with pytest.raises(InvalidConfiguration, match="styles are random, station, tag"):
        house_bot("b", "wild")


@pytest.mark.parametrize("style", STYLES)
def test_house_bots_of_every_style_play_legal_hands(style: str) -> None:
    rng = random.Random(style)
    for _ in range(40):
        players = [(seat, rng.randint(10, 400)) for seat in (1, 2, 4, 6)]
        deck = list(CARDS)
        rng.shuffle(deck)
        hand = Hand(NoLimit(2), players, 1, blinds(players, 1, 1, 2), deck)
        bots = {seat: house_bot(f"bot.t.{seat}", style) for seat, _ in players}
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            action = bots[seat].choose(hand, seat)
            legal = hand.legal_actions()
            assert legal is not None
            assert legal.allows(action)  # type: ignore[arg-type]
            hand.act(action)

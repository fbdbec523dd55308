from __future__ import annotations

from feltroom.rules import Call, Check, Fold, LegalActions, RaiseTo
from feltroom.strategy import RandomBrain


def test_random_brain_chooses_only_legal_actions_and_is_seedable() -> None:
    legal = LegalActions(seat=1, fold=True, check=False, call=10, raise_min=20, raise_max=200)
    free = LegalActions(seat=1, fold=False, check=True, call=None, raise_min=None, raise_max=None)
    brain = RandomBrain(1)
    kinds = set()
    for _ in range(500):
        action = brain.choose(None, legal)
        assert legal.allows(action)  # type: ignore[arg-type]
        kinds.add(type(action))
        assert brain.choose(None, free) == Check()
    assert kinds == {Fold, Call, RaiseTo}
    a, b = RandomBrain(9), RandomBrain(9)
    assert [a.choose(None, legal) for _ in range(50)] == [b.choose(None, legal) for _ in range(50)]

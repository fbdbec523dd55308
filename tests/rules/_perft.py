"""Counting terminal betting sequences (perft, as in python-chess) by depth-first replay."""

from __future__ import annotations

from feltroom.rules import Call, Check, Fold, Hand, HandSetup, LogEntry, RaiseTo


def perft(setup: HandSetup, prefix: list[LogEntry], street: int | None) -> int:
    """Sequences of actions from the state after ``prefix`` until the hand ends, or (with
    ``street``) until that street's betting round is over. Every raise amount counts."""
    hand = Hand.replay(setup, prefix)
    return _count(setup, hand, prefix, street)


def _count(setup: HandSetup, hand: Hand, log: list[LogEntry], street: int | None) -> int:
    if hand.is_over or (street is not None and hand.street != street):
        return 1
    options = hand.legal_actions()
    assert options is not None
    actions: list[Fold | Check | Call | RaiseTo] = []
    if options.fold:
        actions.append(Fold())
    if options.check:
        actions.append(Check())
    if options.call is not None:
        actions.append(Call())
    if options.raise_min is not None and options.raise_max is not None:
        actions += [RaiseTo(a) for a in range(options.raise_min, options.raise_max + 1)]
    total = 0
    for action in actions:
        child = [*log, (options.seat, action)]
        total += _count(setup, Hand.replay(setup, child), child, street)
    return total

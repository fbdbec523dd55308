"""A player's statistics over played hands (issue 21; docs/web.md, "Statistics"), the figures a
hand tracker shows beside an opponent, computed from the room's own records:

- ``hands``: hands the player was dealt into;
- ``vpip`` (voluntarily put money in the pot): the percentage of those hands in which the
  player called, bet or raised before the flop (posting a blind or an ante is not voluntary;
  the big blind's check is not either);
- ``pfr`` (pre-flop raise): the percentage in which the player bet or raised before the flop;
- ``af`` (aggression factor): ``(bets + raises) / calls`` on the flop, turn and river, the
  player's own actions; ``None`` without a call (nothing to divide by);
- ``wtsd`` (went to showdown): the percentage of the hands in which the player saw the flop
  (the flop was dealt and they had not folded) that they stayed in to the showdown.

Percentages have one decimal and the aggression factor two; each figure's numerator and
denominator are given under ``counts`` so that they can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from feltroom.integrity.hands import PlayedHand

__all__ = ["StatsTally"]

_PREFLOP = 0
_VOLUNTARY = ("call", "bet", "raise")
_AGGRESSIVE = ("bet", "raise")


@dataclass(slots=True)
class StatsTally:
    """The counts behind one player's figures; ``add`` one played hand at a time."""

    account: str
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    bets: int = 0
    raises: int = 0
    calls: int = 0
    saw_flop: int = 0
    showdowns: int = 0

    def add(self, hand: PlayedHand) -> None:
        """Count ``hand`` if the player was dealt into it."""
        seat = next((s for s in hand.players if s.account == self.account), None)
        if seat is None:
            return
        mine = [m for m in hand.moves if m.account == self.account]
        preflop = [m.kind for m in mine if m.street == _PREFLOP]
        self.hands += 1
        self.vpip += any(kind in _VOLUNTARY for kind in preflop)
        self.pfr += any(kind in _AGGRESSIVE for kind in preflop)
        for move in mine:
            if move.street > _PREFLOP:
                self.bets += move.kind == "bet"
                self.raises += move.kind == "raise"
                self.calls += move.kind == "call"
        if len(hand.board) >= 3 and "fold" not in preflop:
            self.saw_flop += 1
            self.showdowns += seat.showdown

    def add_all(self, hands: Iterable[PlayedHand]) -> StatsTally:
        for hand in hands:
            self.add(hand)
        return self

    def figures(self) -> dict[str, Any]:
        """``hands``, ``vpip``, ``pfr``, ``af``, ``wtsd`` and the ``counts`` behind them."""
        return {
            "hands": self.hands,
            "vpip": _percent(self.vpip, self.hands),
            "pfr": _percent(self.pfr, self.hands),
            "af": round((self.bets + self.raises) / self.calls, 2) if self.calls else None,
            "wtsd": _percent(self.showdowns, self.saw_flop),
            "counts": {
                "vpip": self.vpip,
                "pfr": self.pfr,
                "bets": self.bets,
                "raises": self.raises,
                "calls": self.calls,
                "saw_flop": self.saw_flop,
                "showdowns": self.showdowns,
            },
        }


def _percent(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None

"""The hand engine (layer ``rules``): one hand of Fixed-Limit, Pot-Limit or No-Limit Hold'em.

Sans-I/O and standard library only: a ``Hand`` takes the structure, the players, the button, the
forced bets, the rake rule and a deck, and returns events for each action. See
docs/rules-engine.md for the API, the dealing order and the choices made where the rules are open.
"""

from feltroom.rules.actions import (
    Action,
    Call,
    Check,
    Fold,
    Forced,
    ForcedBet,
    LegalActions,
    Protect,
    RaiseTo,
    RunOut,
    Show,
)
from feltroom.rules.events import (
    BoardDealt,
    Called,
    CardsMucked,
    CardsShown,
    Checked,
    Event,
    Folded,
    HandEnded,
    HoleCardsDealt,
    Posted,
    PotAwarded,
    Protected,
    Raised,
    RunsChosen,
    UncalledBetReturned,
)
from feltroom.rules.hand import OVER, Hand, HandSetup, LogEntry, blinds
from feltroom.rules.pots import PotResult, RakeRule, build_pots, rake_pots, split_pot
from feltroom.rules.showdown import showdown_order
from feltroom.rules.structure import FixedLimit, NoLimit, PotLimit, Structure
from feltroom.rules.views import HandView, SeatView, view_for

__all__ = [
    "OVER",
    "Action",
    "BoardDealt",
    "Call",
    "Called",
    "CardsMucked",
    "CardsShown",
    "Check",
    "Checked",
    "Event",
    "FixedLimit",
    "Fold",
    "Folded",
    "Forced",
    "ForcedBet",
    "Hand",
    "HandEnded",
    "HandSetup",
    "HandView",
    "HoleCardsDealt",
    "LegalActions",
    "LogEntry",
    "NoLimit",
    "Posted",
    "PotAwarded",
    "PotLimit",
    "PotResult",
    "Protect",
    "Protected",
    "RaiseTo",
    "Raised",
    "RakeRule",
    "RunOut",
    "RunsChosen",
    "SeatView",
    "Show",
    "Structure",
    "UncalledBetReturned",
    "blinds",
    "build_pots",
    "rake_pots",
    "showdown_order",
    "split_pot",
    "view_for",
]

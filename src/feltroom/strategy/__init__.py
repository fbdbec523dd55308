"""Bot brains (layer ``strategy``): a seat's view and the legal actions in, an action out.

Brains serve the room's house bots and network bots alike; they see only what their seat may see
(``HandView``) and choose from the exact legal options (DESIGN.md principle 4).
"""

from feltroom.strategy.equity import equity
from feltroom.strategy.random_brain import Brain, RandomBrain
from feltroom.strategy.station import StationBrain
from feltroom.strategy.styles import STYLES, make_brain, reads_view
from feltroom.strategy.tag import TagBrain

__all__ = [
    "STYLES",
    "Brain",
    "RandomBrain",
    "StationBrain",
    "TagBrain",
    "equity",
    "make_brain",
    "reads_view",
]

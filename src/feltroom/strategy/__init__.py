"""Bot brains (layer ``strategy``): a seat's view and the legal actions in, an action out.

Brains serve the room's house bots and network bots alike; they see only what their seat may see
(``HandView``) and choose from the exact legal options (DESIGN.md principle 4).
"""

from feltroom.strategy.random_brain import Brain, RandomBrain

__all__ = ["Brain", "RandomBrain"]

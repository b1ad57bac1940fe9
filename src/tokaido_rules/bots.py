"""Players that choose among legal actions. Bots keep their own random state: they never
draw from the game's."""

from __future__ import annotations

from .chance import random_below
from .engine import Game
from .events import Action


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded stream."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed & ((1 << 64) - 1)
        self.decisions = 0

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        index = random_below(self.seed, self.decisions, 0, len(actions))
        self.decisions += 1
        return actions[index]

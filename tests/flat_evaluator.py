"""A small evaluator for the analysis tests (a test double of the ISMCTS bot): flat
Monte Carlo on sampled completions of the view, random playouts, every action given
the same completions. It speaks :class:`~tokaido_rules.estimates.Evaluates`."""

from __future__ import annotations

import math

from tokaido_rules import Action, View
from tokaido_rules.bots import (
    BotOption,
    RandomBot,
    determinize,
    determinize_fast,
    fast_lookahead,
    outcome,
)
from tokaido_rules.chance import random_below
from tokaido_rules.estimates import ActionEstimate

Z = 1.96


class FlatEvaluator:
    """Plays each legal action out ``samples`` times with random players and reports
    the mean final margin and win share, with normal 95% intervals."""

    bot_options = (BotOption("samples", "int", 6, "completions per action"),)

    def __init__(self, seed: int = 0, samples: int = 6) -> None:
        self.seed = seed
        self.samples = samples

    def choose(self, view: View) -> Action:
        estimates = self.evaluate(view)
        return max(estimates, key=lambda e: e.margin).action

    def evaluate(self, view: View) -> tuple[ActionEstimate, ...]:
        assert view.seat is not None
        seat = view.seat
        fast = fast_lookahead(view.ruleset, view.players)
        out = []
        for index, action in enumerate(view.legal_actions):
            margins = []
            wins = []
            for k in range(self.samples):
                world_seed = random_below(self.seed, k, 0, 1 << 62)
                bot = RandomBot(random_below(self.seed, k, 1 + index, 1 << 62))
                if fast:
                    world = determinize_fast(view, world_seed)
                    world.apply(action)
                    while not world.is_over:
                        world.apply(bot.choose_from(world.legal_actions()))
                    scores = [sum(world.score[s]) for s in range(world.players)]
                    margin = outcome(world, seat)
                else:
                    game = determinize(view, world_seed).apply(action)
                    while not game.is_over:
                        game = game.apply(bot.choose_from(game.legal_actions()))
                    scores = [p.total for p in game.state.pieces[:game.players]]
                    margin = outcome(game, seat)
                margins.append(margin)
                top = max(scores)
                winners = [s for s in range(len(scores)) if scores[s] == top]
                wins.append(1 / len(winners) if seat in winners else 0.0)
            out.append(_estimate(action, margins, wins))
        return tuple(out)


def _estimate(action: Action, margins: list[float], wins: list[float]) -> ActionEstimate:
    n = len(margins)
    mean = sum(margins) / n
    sd = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1)) if n > 1 else 0.0
    half = Z * sd / math.sqrt(n)
    win = sum(wins) / n
    w_half = Z * math.sqrt(win * (1 - win) / n)
    return ActionEstimate(action, n, mean, mean - half, mean + half, win,
                          max(0.0, win - w_half), min(1.0, win + w_half))

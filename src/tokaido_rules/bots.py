"""Players that choose among legal actions, seeing only their seat's view.

The bot interface is one method, ``choose(view) -> Action``: a bot gets what its seat
may see (:class:`~tokaido_rules.views.View`, which includes the legal actions) and never
the game itself, so it cannot read hidden information. Bots keep their own random state
and never draw from the game's. :func:`next_action` asks a bot to decide for a game.

- :class:`RandomBot`: uniformly random legal actions.
- :class:`GreedyBot`: the best immediate gain (points, and coins at a point each, minus
  a lot for every space skipped), judged on a sampled completion of its view.
- :class:`SearchBot`: information-set Monte Carlo search: it samples the hidden cards
  consistently with its view (:func:`~tokaido_rules.views.determinize`) many times,
  plays each candidate action out with a fast policy, and keeps the best on average.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

from .chance import random_below
from .engine import Game
from .events import Action, Move
from .views import View, determinize

MASK = (1 << 64) - 1
COIN_VALUE = 0.5
"""What a coin is worth, in points, when the search bot scores a playout."""
GREEDY_COIN_VALUE = 1.0
"""What a coin is worth, in points, to the greedy evaluation: a purchase must bring at
least a point per coin. (Tuned in greedy-against-greedy games: 0.5 lost clearly to
0.8-1.2.)"""
SKIP_COST = 2.5
"""What each space skipped by a move costs the greedy evaluation, in points: stops are
the scarce resource of the game. (Tuned like :data:`GREEDY_COIN_VALUE`: 0.4 to 1.2 lost
clearly to 2-3; higher is no better.)"""


class Bot(Protocol):
    """A player: given its seat's view, return one of ``view.legal_actions``."""

    def choose(self, view: View) -> Action: ...


def next_action(bot: Bot, game: Game) -> Action:
    """Ask ``bot`` for the decision of the seat whose turn it is (it sees only its view)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: nobody decides")
    return bot.choose(game.view(seat))


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded stream."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed & MASK
        self.decisions = 0

    def choose(self, view: View) -> Action:
        actions = view.legal_actions
        index = random_below(self.seed, self.decisions, 0, len(actions))
        self.decisions += 1
        return actions[index]


def standing(game: Game, seat: int, coin_value: float = COIN_VALUE) -> float:
    """A seat's points plus its coins at ``coin_value`` points each."""
    p = game.state.pieces[seat]
    return p.total + coin_value * p.coins


def _skip_cost(game: Game, action: Action) -> float:
    if isinstance(action, Move) and game.state.pieces[action.piece].seat is not None:
        skipped = action.position - game.state.pieces[action.piece].position - 1
        return SKIP_COST * max(0, skipped)
    return 0.0


GREEDY_DEPTH = 2
"""How many of its own further decisions at the same stop the greedy evaluation looks
through: 2 sees past an expansion's choice of action (Crossroads) to the purchase."""


def greedy_value(game: Game, action: Action, seat: int, depth: int = GREEDY_DEPTH) -> float:
    """The immediate gain of ``action`` for ``seat`` on a complete game: its standing
    after the action (and, up to ``depth`` times, after its own best next decision of the
    same stop), minus the cost of skipped spaces.

    What happens at an inn is no reason to hurry there: every traveller stops at every
    inn, so a move to an inn is worth only what it skips (counting the meal made
    travellers rush from inn to inn and skip the road)."""
    after = game.apply(action)
    gain = (standing(after, seat, GREEDY_COIN_VALUE) - standing(game, seat, GREEDY_COIN_VALUE)
            - _skip_cost(game, action))
    if isinstance(action, Move):
        if game.state.pieces[action.piece].seat is None:
            return -gain  # moving the neutral: judged by what it costs us, roughly nothing
        if game.state.rules.board[action.position].inn:
            return gain
    step = after.current_step
    if depth > 0 and step is not None and step.seat == seat and step.kind != "core.move":
        follow = [greedy_value(after, a, seat, depth - 1) for a in after.legal_actions()]
        if follow:
            gain += max(follow)
    return gain


class GreedyBot:
    """Takes the action with the best immediate gain, judged on a sampled completion of
    its view (ties broken by the order of the legal actions)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed & MASK
        self.decisions = 0

    def choose(self, view: View) -> Action:
        actions = view.legal_actions
        self.decisions += 1
        if len(actions) == 1:
            return actions[0]
        world = determinize(view, random_below(self.seed, self.decisions, 0, MASK))
        values = [greedy_value(world, a, view.seat) for a in actions]
        return actions[values.index(max(values))]


def _rollout_action(game: Game, seed: int, n: int) -> Action:
    """The fast playout policy: a move to one of the three nearest stops, otherwise a
    random legal action."""
    actions = game.legal_actions()
    moves = [a for a in actions if isinstance(a, Move)]
    if moves and len(moves) == len(actions):
        nearest = sorted(moves, key=lambda m: m.position)[:3]
        return nearest[random_below(seed, n, 0, len(nearest))]
    return actions[random_below(seed, n, 1, len(actions))]


class SearchBot:
    """Information-set Monte Carlo search over its own decision.

    Each of ``iterations`` samples completes the hidden part of its view at random, picks
    a candidate action by UCB1, applies it and plays on with a fast policy for
    ``horizon`` decisions; the result is the seat's standing minus the best opponent's.
    It returns the candidate with the best average. It never reads hidden state: every
    sample is built from the view alone.
    """

    def __init__(self, seed: int = 0, iterations: int = 64, horizon: int = 24,
                 exploration: float = 4.0) -> None:
        self.seed = seed & MASK
        self.iterations = iterations
        self.horizon = horizon
        self.exploration = exploration
        self.decisions = 0
        self._greedy = GreedyBot(seed ^ 0x5EA5C4)

    def choose(self, view: View) -> Action:
        actions = view.legal_actions
        self.decisions += 1
        if len(actions) == 1:
            return actions[0]
        if view.current_step is not None and view.current_step.kind == "base.choose_traveller":
            return self._greedy.choose(view)
        visits = [0] * len(actions)
        totals = [0.0] * len(actions)
        for it in range(self.iterations):
            seed = random_below(self.seed, self.decisions, it, MASK)
            world = determinize(view, seed)
            index = self._select(visits, totals, it)
            totals[index] += self._playout(world, actions[index], view.seat, seed)
            visits[index] += 1
        means = [totals[i] / visits[i] if visits[i] else -math.inf for i in range(len(actions))]
        return actions[means.index(max(means))]

    def _select(self, visits: list[int], totals: list[float], it: int) -> int:
        for i, n in enumerate(visits):
            if n == 0:
                return i
        log_n = math.log(it + 1)
        scores = [totals[i] / visits[i] + self.exploration * math.sqrt(log_n / visits[i])
                  for i in range(len(visits))]
        return scores.index(max(scores))

    def _playout(self, world: Game, action: Action, seat: int, seed: int) -> float:
        game = world.apply(action)
        for n in range(self.horizon):
            if game.is_over:
                break
            game = game.apply(_rollout_action(game, seed, n))
        mine = standing(game, seat)
        others = [standing(game, s) for s in range(game.players) if s != seat]
        return mine - max(others)


BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": SearchBot,
}
"""The bots by name (for ``--bots`` on the command line); each takes a seed."""

"""Information-set Monte Carlo tree search: a bot that plans from its seat's view alone.

:class:`ISMCTSBot` is single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) with
availability counts: one tree of the decisions that follow the seat's own, searched by
many iterations, each on a new *determinisation* of the view (a complete game consistent
with everything the seat can see, the rest sampled: :func:`~tokaido_rules.bots.determinize`,
:func:`~tokaido_rules.bots.determinize_fast`). The true hidden state is never read, so
twin games that differ only in what the seat cannot see get the same decisions.

An iteration walks down the tree choosing by UCB1 among the actions legal *in that
determinisation* (an action that exists only in some of them is judged against the
number of times it was available, not against the node's visits), adds one node, plays
the game out to its end with a cheap rollout policy (:data:`ROLLOUTS`) and credits every
action on its path with the reward of the seat that took it (several players: each
node's choice is scored for whoever chose). Playouts run on the fast engine wherever it
loads the ruleset's states (:func:`~tokaido_rules.bots.fast_lookahead`), else on the
reference engine, with the same figures either way.

:meth:`ISMCTSBot.evaluate` gives the root's statistics as
:class:`~tokaido_rules.estimates.ActionEstimate` (the analysis of a game reads them);
:meth:`ISMCTSBot.choose` plays the action visited most. The difficulty ladder is three
registered factories (:data:`LEVELS`): :func:`ismcts_fast` and :func:`ismcts` (50 and
200 iterations of cheap playouts), :func:`ismcts_strong` (greedy playouts, the other
seats answering by the greedy policy on the way down the tree, the budget spent on the
greedy evaluation's close calls, compared on the same determinisations) (``--bots ismcts-fast``,
``ismcts``, ``ismcts-strong``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from .bots import (
    GREEDY_DEPTH,
    MASK,
    BotOption,
    World,
    _fast_values,
    completions_fast,
    determinize,
    fast_lookahead,
    greedy_action,
    greedy_value,
)
from .chance import draw_below, event_stream, random_below
from .engine import Game
from .errors import BotError
from .estimates import ActionEstimate
from .events import Action, Move

if TYPE_CHECKING:
    from .fast import FastGame
    from .views import View

__all__ = [
    "DEFAULT_ITERATIONS",
    "ENGINES",
    "LEVELS",
    "OPPONENTS",
    "Level",
    "REWARDS",
    "ROLLOUTS",
    "ROOTS",
    "ISMCTSBot",
    "ismcts",
    "ismcts_fast",
    "ismcts_strong",
]

ROLLOUTS = ("near", "random", "greedy")
"""How a playout chooses for every seat: ``"near"`` moves a traveller to the nearest
space it may take three times in four (else to any of them) and answers every other
decision at random, which is how Tokaido is mostly played (stops are scarce);
``"random"`` chooses uniformly everywhere (both well under a millisecond per 4-player
game on the fast engine); ``"greedy"`` plays every seat by the greedy evaluation
(:func:`~tokaido_rules.bots.greedy_action`, about 15 times dearer), looking through
``rollout_depth`` of the seat's further decisions of the same stop (0 by default: a
move is judged by itself, not by the purchase it leads to; ``search``'s playouts look
through 1)."""

REWARDS = ("mixed", "win", "margin")
"""What a playout is worth to a seat, between 0 and 1: ``"win"``, its share of first
place (a tie for first shares it); ``"margin"``, its final margin (its score minus the
best other seat's) squashed by ``(1 + tanh(margin / 10)) / 2``; ``"mixed"``, the mean
of the two (a win, and by how much)."""

OPPONENTS = ("tree", "greedy")
"""How the other seats decide on an iteration's way down the tree (option
``opponents``): ``"tree"``, by the tree, each for itself (UCB1 on its own reward);
``"greedy"``, by the greedy playout policy, so that the tree holds the seat's own
decisions only and every iteration spends its budget on them (the others answer as
a greedy player would, as in :class:`~tokaido_rules.bots.SearchBot`'s playouts)."""

ROOTS = ("all", "close")
"""Which actions :meth:`ISMCTSBot.choose` searches at the root (option ``root``):
``"all"``, every legal action; ``"close"``, the greedy evaluation's close calls, as
:class:`~tokaido_rules.bots.SearchBot` has them: the actions within ``margin`` points of
the best greedy value (:func:`~tokaido_rules.bots.greedy_value`) on the search's first
determinisation, or every action of a decision that shapes the whole game (its step
registered ``shapes_game=True``, such as the choice of a traveller); a lone candidate is
played without a search. :meth:`ISMCTSBot.evaluate` always searches every legal action
(the analysis gives figures for each)."""

ENGINES = ("auto", "fast", "reference")
"""Where the playouts run (option ``engine``): ``"auto"``, on the fast engine wherever it
loads the ruleset's states, else the reference; ``"fast"``, there only (a ruleset it does
not load is refused); ``"reference"``, on the reference engine. The same figures on
either."""

DEFAULT_ITERATIONS = 200
"""The iterations per decision of :class:`ISMCTSBot` and the ``ismcts`` level."""

PRIOR_SCALE = 5.0
"""Points of greedy value (:func:`~tokaido_rules.bots.greedy_value`) below the best
action of a node that cost an action ``prior`` of reward, fading as 1 / (visits + 1)."""

PRIOR_DEPTH = 1
"""How many of its own decisions of the same stop the prior's greedy value looks ahead."""

MARGIN_SCALE = 10.0
"""The margin, in points, that the ``"margin"`` reward puts at about 0.88 (tanh 1)."""

_Z = 1.96  # the normal quantile of a 95% interval


class _Edge:
    """One action from a node: its statistics for the seat that takes it, its prior (how
    much worse the greedy evaluation finds it than the best action of its node, in
    points, <= 0) and the node it leads to."""

    __slots__ = ("available", "children", "margin", "margin2", "prior", "reward", "visits",
                 "win")

    def __init__(self) -> None:
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.margin = 0.0
        self.margin2 = 0.0
        self.win = 0.0
        self.prior = 0.0
        self.children = _Node()


class _Node:
    """The actions tried from one point of the tree (keyed by action: an information
    set's children), and the best greedy value seen among them (for the priors)."""

    __slots__ = ("best", "edges")

    def __init__(self) -> None:
        self.edges: dict[Action, _Edge] = {}
        self.best = -math.inf


def _check(bot: str, ok: bool, message: str) -> None:
    if not ok:
        raise BotError(f"bot {bot!r}: {message}", bot)


class ISMCTSBot:
    """Information-set Monte Carlo tree search from its seat's view (single observer,
    availability counts), playouts on the fast engine where it covers the ruleset.

    ``iterations`` determinisations are searched per decision (``ms``: instead, as many
    as fit in that many milliseconds of wall time, which is not reproducible); the same
    ``seed``, view and ``iterations`` give the same decision and the same
    :meth:`evaluate` figures. ``exploration`` is UCB1's constant (rewards are in [0, 1]);
    ``rollout`` one of :data:`ROLLOUTS`, ``reward`` one of :data:`REWARDS`, ``engine``
    one of :data:`ENGINES`, ``opponents`` one of :data:`OPPONENTS`; ``name`` is what
    statistics and errors call it (a ladder level's name). Bad values raise
    :class:`~tokaido_rules.BotError`."""

    bot_options: ClassVar[tuple[BotOption, ...]]
    """What ``--bot-option ismcts.KEY=VALUE`` sets (the same for every level)."""

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS,
                 ms: float | None = None, exploration: float = 0.7, prior: float = 1.0,
                 rollout: str = "near", reward: str = "mixed", engine: str = "auto",
                 opponents: str = "tree", root: str = "all", margin: float = 3.0,
                 paired: bool = False, rollout_depth: int = 0,
                 name: str = "ismcts") -> None:
        self.bot_name = name
        _check(name, isinstance(iterations, int) and iterations >= 1,
               f"iterations must be a whole number >= 1, got {iterations!r}")
        _check(name, ms is None or (isinstance(ms, int | float) and ms > 0),
               f"ms must be a positive number of milliseconds (or none), got {ms!r}")
        _check(name, isinstance(exploration, int | float) and exploration >= 0,
               f"exploration must be a number >= 0, got {exploration!r}")
        _check(name, isinstance(prior, int | float) and prior >= 0,
               f"prior must be a number >= 0, got {prior!r}")
        _check(name, rollout in ROLLOUTS,
               f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        _check(name, reward in REWARDS,
               f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        _check(name, engine in ENGINES,
               f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        _check(name, opponents in OPPONENTS,
               f"opponents must be one of {', '.join(OPPONENTS)}, got {opponents!r}")
        _check(name, root in ROOTS, f"root must be one of {', '.join(ROOTS)}, got {root!r}")
        _check(name, isinstance(margin, int | float) and margin >= 0,
               f"margin must be a number >= 0, got {margin!r}")
        _check(name, isinstance(paired, bool), f"paired must be true or false, got {paired!r}")
        _check(name, isinstance(rollout_depth, int) and 0 <= rollout_depth <= 3,
               f"rollout_depth must be a whole number from 0 to 3, got {rollout_depth!r}")
        self.seed = seed & MASK
        self.iterations = iterations
        self.ms = ms
        self.exploration = float(exploration)
        self.prior = float(prior)
        self.rollout = rollout
        self.reward = reward
        self.engine = engine
        self.opponents = opponents
        self.root = root
        self.margin = float(margin)
        self.paired = paired
        self.rollout_depth = rollout_depth
        self.searched = 0
        """Iterations run by the last search (with ``ms``, how many fitted)."""

    # --- the bot ------------------------------------------------------------------------
    def choose(self, view: View) -> Action:
        """The action visited most from the root (ties: the better mean reward, then the
        order of the legal actions); with ``paired``, where every candidate has as many
        playouts, the one with the best mean reward (ties: the order). A lone legal
        action, or with ``root="close"`` a lone close call, is taken without a search."""
        actions = view.legal_actions
        if len(actions) == 1:
            self.searched = 0
            return actions[0]
        searching = self._searching(view)
        candidates = (tuple(range(len(actions))) if self.root == "all"
                      else self._close_calls(view, searching))
        if len(candidates) == 1:
            self.searched = 0
            return actions[candidates[0]]
        root = self._search(view, candidates, searching)

        def key(i: int) -> tuple[float, float, int]:
            edge = root[i]
            mean = edge.reward / edge.visits if edge.visits else 0.0
            return (0.0 if self.paired else edge.visits, mean, -i)

        return actions[max(candidates, key=key)]

    def evaluate(self, view: View) -> tuple[ActionEstimate, ...]:
        """One :class:`~tokaido_rules.estimates.ActionEstimate` per legal action of
        ``view``, in their order, from the root of a search (the decision :meth:`choose`
        makes, at ``root="all"``, is the one with the most ``playouts``; with ``paired``
        the best mean reward). The margin's interval is the
        normal one (mean +- 1.96 standard errors), the win share's Wilson's; an action
        with fewer than two playouts (a budget smaller than twice the legal actions) has
        an unbounded margin interval. Every legal action is searched whatever ``root``
        says (``paired``: each on the same determinisations)."""
        actions = view.legal_actions
        root = self._search(view, tuple(range(len(actions))), self._searching(view))
        return tuple(_estimate(action, edge) for action, edge in zip(view.legal_actions, root,
                                                                    strict=True))

    # --- the search ---------------------------------------------------------------------
    def _world_maker(self, view: View) -> Callable[[int], World]:
        if self.engine != "reference":
            if fast_lookahead(view.ruleset, view.players):
                return completions_fast(view)  # determinize_fast, the census made once
            if self.engine == "fast":
                from .fast import why_not_loadable

                raise BotError(f"bot {self.bot_name!r}: the fast engine does not load states "
                               f"of {','.join(view.ruleset.ids)} with {view.players} "
                               f"players: {why_not_loadable(view.ruleset, view.players)}",
                               self.bot_name)
        return lambda seed: determinize(view, seed)

    def _searching(self, view: View) -> tuple[Callable[[int], World], int]:
        """How a search of ``view`` makes its determinisations, and the seed they are
        drawn from: that of the seed and the view's point in the game, so that a search
        is a function of (seed, view, budget)."""
        seat = view.seat
        if seat is None:
            raise ValueError("a bot decides for a seat: the public view has none")
        if not view.legal_actions:
            raise ValueError("nothing to decide: the view has no legal actions")
        return self._world_maker(view), random_below(self.seed, view.seq, seat, MASK)

    def _close_calls(self, view: View,
                     searching: tuple[Callable[[int], World], int]) -> tuple[int, ...]:
        """The indexes of the legal actions ``root="close"`` searches (:data:`ROOTS`),
        judged on the search's first determinisation (that of iteration 0)."""
        make, base = searching
        world = make(random_below(base, 0, 0, MASK))
        actions = view.legal_actions
        if _shapes_game(world):
            return tuple(range(len(actions)))
        seat = view.seat
        assert seat is not None
        values = ([greedy_value(world, a, seat) for a in actions] if isinstance(world, Game)
                  else _fast_values(world, actions, seat, GREEDY_DEPTH))
        best = max(values)
        return tuple(i for i, v in enumerate(values) if v >= best - self.margin)

    def _search(self, view: View, candidates: tuple[int, ...],
                searching: tuple[Callable[[int], World], int]) -> list[_Edge]:
        """Search the root's ``candidates`` (indexes of the legal actions) of ``view``;
        the root's edges, in the order of its legal actions (an action not searched has
        an empty one). With ``paired`` the budget is spent in rounds, one determinisation
        each, every candidate played once on it (common random numbers: the candidates
        are compared on the same worlds); the last round is completed."""
        seat = view.seat
        assert seat is not None
        actions = view.legal_actions
        make, base = searching
        searched = tuple(actions[i] for i in candidates)
        root = _Node()
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000
        done = 0
        rounds = 0
        while True:
            if deadline is None:
                if done >= self.iterations:
                    break
            elif done and time.perf_counter() >= deadline:
                break
            if self.paired:
                world_seed = random_below(base, rounds, 0, MASK)
                world = make(world_seed)
                for action in searched:
                    copy = world if isinstance(world, Game) else world.clone()
                    self._iterate(copy, root, event_stream(world_seed, 1), seat, searched,
                                  action)
                    done += 1
                rounds += 1
            else:
                world_seed = random_below(base, done, 0, MASK)
                self._iterate(make(world_seed), root, event_stream(world_seed, 1), seat,
                              searched)
                done += 1
        self.searched = done
        return [root.edges.get(action) or _Edge() for action in actions]

    def _iterate(self, world: World, root: _Node, stream: int, seat: int,
                 searched: tuple[Action, ...], forced: Action | None = None) -> None:
        """One iteration on ``world``: select, expand one node, play out, back up. At
        the root it chooses among ``searched`` (``forced``: takes that one).
        With ``opponents="greedy"`` the other seats' decisions on the way down are the
        greedy policy's, not the tree's: the tree holds ``seat``'s own decisions."""
        path: list[tuple[_Edge, int]] = []
        node = root
        at_root = True
        greedy_others = self.opponents == "greedy"
        depth = self.rollout_depth
        while not world.is_over:
            legal = world.legal_actions()
            mover = world.current_player
            assert mover is not None
            if greedy_others and mover != seat:
                world = world.apply(_greedy_choice(world, legal, mover, depth))
                continue
            if at_root:
                if forced is not None:
                    chosen = forced
                    edge = node.edges.get(forced) or node.edges.setdefault(forced, _Edge())
                    edge.available += 1
                else:
                    chosen, edge = self._select(world, node, searched, mover, True)
            else:
                chosen, edge = self._select(world, node, legal, mover, False)
            at_root = False
            path.append((edge, mover))
            world = world.apply(chosen)
            if edge.visits == 0:  # a new node: play out from here
                break
            node = edge.children
        if isinstance(world, Game):
            world = _play_out(world, stream, self.rollout, depth)
        else:
            _play_out_fast(world, stream, self.rollout, depth)
        margins, wins = _results(world)
        for edge, mover in path:
            margin = margins[mover]
            win = wins[mover]
            edge.visits += 1
            edge.margin += margin
            edge.margin2 += margin * margin
            edge.win += win
            edge.reward += self._reward(margin, win)

    def _select(self, world: World, node: _Node, legal: tuple[Action, ...], mover: int,
                at_root: bool) -> tuple[Action, _Edge]:
        """The action to follow among ``legal`` (those of this determinisation), and its
        edge: an action never tried first (in the greedy order where there are priors,
        else that of ``legal``; at the root, any tried fewer than twice, so that every
        option gets an interval), else the best of UCB1 against the action's
        availability count plus the greedy prior, which fades as the action is tried.
        Every legal action's availability is counted."""
        edges = node.edges
        weight = self.prior
        order: tuple[Action, ...] | list[Action] = legal
        if weight:
            if any(a not in edges for a in legal):
                _add_priors(world, node, legal, mover)
            order = sorted(legal, key=lambda a: -edges[a].prior)  # stable: ties keep order
        c = self.exploration
        untried: tuple[Action, _Edge] | None = None
        best: tuple[Action, _Edge] | None = None
        best_score = -math.inf
        top = node.best
        for action in order:
            edge = edges.get(action)
            if edge is None:
                edge = edges[action] = _Edge()
            edge.available += 1
            if untried is not None:
                continue
            visits = edge.visits
            if visits == 0 or (at_root and visits < 2):
                untried = (action, edge)
                continue
            score = edge.reward / visits + c * math.sqrt(math.log(edge.available) / visits)
            if weight:
                score += weight * (edge.prior - top) / (PRIOR_SCALE * (visits + 1))
            if score > best_score:
                best_score = score
                best = (action, edge)
        chosen = untried or best
        assert chosen is not None
        return chosen

    def _reward(self, margin: float, win: float) -> float:
        if self.reward == "win":
            return win
        squashed = 0.5 + 0.5 * math.tanh(margin / MARGIN_SCALE)
        if self.reward == "margin":
            return squashed
        return 0.5 * (win + squashed)


def _shapes_game(world: World) -> bool:
    """Whether the decision of ``world`` (a determinisation) is one its plugin registered
    as shaping the whole game (``shapes_game=True``), whose every option is searched."""
    if isinstance(world, Game):
        step = world.current_step
        kind = None if step is None else step.kind
    else:
        kind = world.current_kind
    return kind is not None and world.ruleset.registry.steps[kind].shapes_game


def _add_priors(world: World, node: _Node, legal: tuple[Action, ...], mover: int) -> None:
    """Give the actions of ``legal`` that ``node`` has not met their greedy value in
    ``world`` (:func:`~tokaido_rules.bots.greedy_value`, :data:`PRIOR_DEPTH` decisions
    deep), and raise the node's best accordingly."""
    edges = node.edges
    for action in legal:
        if action not in edges:
            edge = edges[action] = _Edge()
            edge.prior = value = greedy_value(world, action, mover, PRIOR_DEPTH)
            if value > node.best:
                node.best = value


def _play_out(world: Game, stream: int, rollout: str, depth: int) -> Game:
    """The playout from ``world`` to the end of the game (:data:`ROLLOUTS`; ``depth``:
    the greedy policy's lookahead), on the reference engine: what
    :func:`_play_out_fast` does on a fast game."""
    draw = 0
    while not world.is_over:
        legal = world.legal_actions()
        if len(legal) == 1:
            world = world.apply(legal[0])
        elif rollout == "greedy":
            world = world.apply(greedy_action(world, depth))
        else:
            world = world.apply(_rollout_choice(legal, stream, draw, rollout == "near"))
            draw += 2
    return world


def _play_out_fast(world: FastGame, stream: int, rollout: str, depth: int) -> None:
    """:func:`_play_out` on a fast game, in place (the world is the iteration's own):
    the same choices, with the calls of the playout's loop written out (it is most of
    an iteration)."""
    apply = world.apply
    legal_actions = world.legal_actions
    if rollout == "greedy":
        while not world.is_over:
            legal = legal_actions()
            if len(legal) == 1:
                apply(legal[0])
                continue
            mover = world.current_player
            assert mover is not None
            values = _fast_values(world.clone(), legal, mover, depth)
            apply(legal[values.index(max(values))])
        return
    near = rollout == "near"
    draw = 0
    while not world.is_over:
        legal = legal_actions()
        n = len(legal)
        if n == 1:
            apply(legal[0])
            continue
        first = legal[0]
        if near and isinstance(first, Move) and draw_below(stream, draw + 1, 4):
            nearest = first
            for action in legal:
                if isinstance(action, Move) and action.position < nearest.position:
                    nearest = action
            apply(nearest)
        else:
            apply(legal[draw_below(stream, draw, n)])
        draw += 2


def _greedy_choice(world: World, legal: tuple[Action, ...], mover: int,
                   depth: int) -> Action:
    """What the greedy playout policy plays in ``world`` (``legal``: its legal actions,
    ``mover`` the seat deciding): :func:`~tokaido_rules.bots.greedy_action` looking
    ``depth`` of the seat's further decisions of the same stop ahead, on either
    engine."""
    if len(legal) == 1:
        return legal[0]
    if isinstance(world, Game):
        return greedy_action(world, depth)
    values = _fast_values(world.clone(), legal, mover, depth)
    return legal[values.index(max(values))]


def _rollout_choice(legal: tuple[Action, ...], stream: int, draw: int,
                    near: bool) -> Action:
    """The playout policy's choice (:data:`ROLLOUTS`), from the iteration's stream."""
    if near and isinstance(legal[0], Move) and draw_below(stream, draw + 1, 4):
        nearest: Move = legal[0]
        for action in legal:
            if isinstance(action, Move) and action.position < nearest.position:
                nearest = action
        return nearest
    return legal[draw_below(stream, draw, len(legal))]


def _results(world: World) -> tuple[list[float], list[float]]:
    """Per seat, the final margin (its score minus the best other's) and its share of
    first place (ranked by the game's own tie-break)."""
    scores = world.scores()
    totals = [float(s.total) for s in scores]
    first = [s.seat for s in scores if s.rank == 1]
    share = 1.0 / len(first)
    margins = []
    for s, total in enumerate(totals):
        others = totals[:s] + totals[s + 1:]
        margins.append(total - max(others) if others else 0.0)
    wins = [share if s in first else 0.0 for s in range(len(totals))]
    return margins, wins


def _estimate(action: Action, edge: _Edge) -> ActionEstimate:
    n = edge.visits
    if n == 0:
        return ActionEstimate(action, 0, 0.0, -math.inf, math.inf, 0.0, 0.0, 1.0)
    mean = edge.margin / n
    if n < 2:
        low, high = -math.inf, math.inf
    else:
        variance = max(0.0, (edge.margin2 - n * mean * mean) / (n - 1))
        half = _Z * math.sqrt(variance / n)
        low, high = mean - half, mean + half
    win = edge.win / n
    centre = (win + _Z * _Z / (2 * n)) / (1 + _Z * _Z / n)
    spread = _Z * math.sqrt(win * (1 - win) / n + _Z * _Z / (4 * n * n)) / (1 + _Z * _Z / n)
    return ActionEstimate(action, n, mean, min(low, mean), max(high, mean), win,
                          max(0.0, min(win, centre - spread)), min(1.0, max(win, centre + spread)))


# --- the difficulty ladder ------------------------------------------------------------

class Level(NamedTuple):
    """What a ladder level changes of :class:`ISMCTSBot`'s defaults (its options may
    still set each): the budget, the playout policy, how the other seats decide on the
    way down the tree, the reward, and how the root is searched (:data:`ROOTS`,
    ``paired``)."""

    iterations: int
    rollout: str = "near"
    opponents: str = "tree"
    reward: str = "mixed"
    root: str = "all"
    paired: bool = False
    rollout_depth: int = 0


LEVELS: dict[str, Level] = {
    "ismcts-fast": Level(50),
    "ismcts": Level(DEFAULT_ITERATIONS),
    "ismcts-strong": Level(200, rollout="greedy", opponents="greedy", root="close",
                           paired=True),
}
"""The ladder: registered name -> its defaults. The top step plays out with the greedy
policy and lets the other seats answer by it on the way down (``opponents="greedy"``):
dearer per iteration (about 2 ms against 0.4), but in measured play that, not more
iterations of cheap playouts, is what keeps up with
:class:`~tokaido_rules.bots.SearchBot` (800 iterations of ``near`` playouts did not);
and it searches only the greedy evaluation's close calls, on shared determinisations
(``root="close"``, ``paired``), which is what put it ahead of ``search`` (it had been
level when the budget was spread over every action, each iteration on its own
determinisation)."""


def _options(level: Level) -> tuple[BotOption, ...]:
    return (
        BotOption("iterations", "int", level.iterations, "determinisations searched per "
                  "decision (the budget; reproducible)"),
        BotOption("ms", "float", None, "instead, milliseconds of wall time per decision "
                  "(not reproducible)"),
        BotOption("exploration", "float", 0.7, "UCB1's exploration constant (rewards in 0..1)"),
        BotOption("prior", "float", 1.0, "weight of the greedy evaluation's prior (0: none)"),
        BotOption("rollout", "str", level.rollout, "playout policy: near, random or greedy"),
        BotOption("reward", "str", level.reward, "what a playout is worth: mixed, win or margin"),
        BotOption("engine", "str", "auto", "where playouts run: auto (the fast engine where "
                  "it covers the ruleset), fast or reference; the same figures"),
        BotOption("opponents", "str", level.opponents, "the other seats on the way down the "
                  "tree: tree (searched) or greedy (the greedy policy)"),
        BotOption("root", "str", level.root, "the actions a decision searches: all, or close (the "
                  "greedy evaluation's close calls, within margin; a lone one is played)"),
        BotOption("margin", "float", 3.0, "points from the best greedy value that make a close "
                  "call (root close)"),
        BotOption("paired", "bool", level.paired, "search the root's actions in rounds, "
                  "each on the same determinisation, and play the best mean reward"),
        BotOption("rollout_depth", "int", level.rollout_depth, "how many of a seat's further "
                  "decisions of the same stop the greedy playouts and answers look through"),
    )


ISMCTSBot.bot_options = _options(Level(DEFAULT_ITERATIONS))


def _level(name: str, doc: str) -> Callable[..., ISMCTSBot]:
    """The factory of a ladder level: an :class:`ISMCTSBot` named ``name`` whose
    defaults are ``LEVELS[name]`` (a module-level function, so that it pickles)."""
    level = LEVELS[name]

    def factory(seed: int = 0, **options: Any) -> ISMCTSBot:
        return ISMCTSBot(seed=seed, name=name, **{**level._asdict(), **options})

    factory.__name__ = factory.__qualname__ = name.replace("-", "_")
    factory.__doc__ = doc
    factory.bot_options = _options(level)  # type: ignore[attr-defined]
    return factory


ismcts_fast = _level("ismcts-fast", f"""ISMCTS, the ladder's first step:
    {LEVELS['ismcts-fast'].iterations} iterations per decision, ``near`` playouts
    (:class:`ISMCTSBot`).""")
ismcts = _level("ismcts", f"""ISMCTS, the ladder's middle step: {LEVELS['ismcts'].iterations}
    iterations per decision, ``near`` playouts (:class:`ISMCTSBot`).""")
ismcts_strong = _level("ismcts-strong", f"""ISMCTS, the ladder's top step:
    {LEVELS['ismcts-strong'].iterations} iterations per decision on the greedy evaluation's
    close calls, each on the same determinisations, greedy playouts and the other seats
    answering by the greedy policy on the way down (:class:`ISMCTSBot`).""")

"""Players that choose among legal actions, seeing only their seat's view.

The bot interface is one method, ``choose(view) -> Action``: a bot gets what its seat
may see (:class:`~tokaido_rules.views.View`, which includes the legal actions) and never
the game itself, so it cannot read hidden information. A bot that looks at nothing but
the legal actions may also have ``choose_from(actions) -> Action`` (:class:`ActionsBot`):
:func:`next_action` then gives it the legal actions alone and builds no view, which is
most of the cost of a decision in a batch of random games. Bots keep their own random
state and never draw from the game's. :func:`next_action` asks a bot to decide for a
game.

- :class:`RandomBot`: uniformly random legal actions.
- :class:`GreedyBot`: the best immediate gain (points, and coins at a point each, minus
  a lot for every space skipped), judged on a sampled completion of its view.
- :class:`SearchBot`: Monte Carlo search of the greedy bot's close calls: it samples
  the hidden cards consistently with its view (:func:`determinize`)
  several times, plays each close candidate out to the end with greedy players, and
  keeps the best on average.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from .chance import event_stream, random_below, shuffle
from .engine import Game, make_rules
from .events import Action, Move
from .frozen import FrozenMap
from .model import GameState
from .ruleset import Setup
from .views import View

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



# --- information-set sampling ---------------------------------------------------------


def determinize(view: View, seed: int) -> Game:
    """A complete game consistent with everything ``view`` shows, the rest sampled.

    The cards the seat cannot see are dealt at random (from ``seed``) into the hidden
    zones, respecting each zone's card backs (a meal deck gets meals); hidden game data
    is left out, and the game's own seed is ``seed``. This is what a bot that must not
    read hidden state searches on (information-set sampling). A public view works too:
    then every card some seat may not see is sampled.
    """
    registry = view.ruleset.registry
    seen: dict[str, int] = {}
    for cards in view.zones.values():
        for card in cards:
            seen[card] = seen.get(card, 0) + 1
    pools: dict[str, list[str]] = {}
    for card, home, copies in registry.deck_census():
        left = copies - seen.get(card, 0)
        if left > 0:
            pool = pools.get(home)
            if pool is None:
                pool = pools[home] = []
            pool.extend([card] * left)
    stream = event_stream(seed, 0)
    draw = 0
    for pool in pools.values():
        draw = shuffle(pool, stream, draw)
    zones = dict(view.zones)
    for name in sorted(view.hidden_backs):
        dealt: list[str] = []
        for home, count in sorted(view.hidden_backs[name].items()):
            pool = pools.get(home, [])
            dealt.extend(pool[:count])
            del pool[:count]
        zones[name] = tuple(dealt)
    rules = make_rules(view.ruleset, view.players, Setup())
    state = GameState(rules=rules, seed=seed, pieces=view.pieces, zones=FrozenMap(zones),
                      agenda=view.agenda, data=view.data, seq=view.seq, turn=view.turn,
                      over=view.over)
    return Game(state, ())


class Bot(Protocol):
    """A player: given its seat's view, return one of ``view.legal_actions``."""

    def choose(self, view: View) -> Action: ...


class ActionsBot(Bot, Protocol):
    """A bot whose choice depends on the legal actions alone (and its own state).

    ``choose_from(actions)`` must return what ``choose(view)`` would for a view whose
    ``legal_actions`` are ``actions``; :func:`next_action` calls it instead, and no view
    is made. The actions are those of the seat deciding (``actions[0].seat``), which its
    view shows too, so nothing hidden is handed over."""

    def choose_from(self, actions: tuple[Action, ...]) -> Action: ...


class Decides(Protocol):
    """What :func:`next_action` reads of a game: whose decision it is, the legal actions
    and a seat's view. A reference :class:`~tokaido_rules.Game` has them, and so has a
    :class:`~tokaido_rules.fast.FastGame` (whose views are built from its flat state)."""

    @property
    def current_player(self) -> int | None: ...

    def legal_actions(self) -> tuple[Action, ...]: ...

    def view(self, seat: int | None) -> View: ...


def next_action(bot: Bot, game: Decides) -> Action:
    """Ask ``bot`` for the decision of the seat whose turn it is: from its view, or, for
    an :class:`ActionsBot`, from the legal actions alone (a reference game or a fast
    one: :class:`Decides`)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: nobody decides")
    choose_from: Callable[[tuple[Action, ...]], Action] | None = getattr(
        bot, "choose_from", None)
    if choose_from is not None:
        return choose_from(game.legal_actions())
    return bot.choose(game.view(seat))


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded stream (an
    :class:`ActionsBot`: it needs no view)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed & MASK
        self.decisions = 0

    def choose(self, view: View) -> Action:
        return self.choose_from(view.legal_actions)

    def choose_from(self, actions: tuple[Action, ...]) -> Action:
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


_NO_SEAT = "a bot decides for a seat: the public view has none"
"""Why a bot refuses the public view (``seat`` ``None``): bots get their seat's view."""


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
        seat = view.seat
        if seat is None:
            raise ValueError(_NO_SEAT)
        world = determinize(view, random_below(self.seed, self.decisions, 0, MASK))
        values = [greedy_value(world, a, seat) for a in actions]
        return actions[values.index(max(values))]


def greedy_action(game: Game, depth: int = GREEDY_DEPTH) -> Action:
    """The greedy choice of the seat deciding in a complete game (first of equals)."""
    actions = game.legal_actions()
    if len(actions) == 1:
        return actions[0]
    seat = game.current_player
    assert seat is not None
    values = [greedy_value(game, a, seat, depth) for a in actions]
    return actions[values.index(max(values))]


def outcome(game: Game, seat: int) -> float:
    """A seat's score minus the best other seat's; before the end, coins count at
    :data:`COIN_VALUE` (at the end they are worth nothing)."""
    values: list[float]
    if game.is_over:
        values = [game.state.pieces[s].total for s in range(game.players)]
    else:
        values = [standing(game, s) for s in range(game.players)]
    mine = values.pop(seat)
    return mine - max(values)


class SearchBot:
    """Monte Carlo search of its close calls, on samples of what it cannot see.

    It ranks its legal actions by :func:`greedy_value` on one sampled completion of its
    view. When several are within ``margin`` points of the best (or the decision shapes
    the whole game, such as the choice of a traveller: by default the decisions their
    plugin registered with ``shapes_game=True``, else the kinds in ``whole_game``), it
    plays each of them
    out on ``samples`` sampled completions (the same ones for every candidate), with
    every seat played by :func:`greedy_action` (looking ``rollout_depth`` decisions deep)
    for ``horizon`` decisions (``None``: to the end of the game), and keeps the candidate
    with the best mean :func:`outcome`. So what the greedy evaluation cannot see (the
    temple ranking, the end-of-game achievements, a space taken from a rival) settles
    the close calls. It never reads hidden state: every sample is built from the view
    alone (:func:`determinize`).
    """

    def __init__(self, seed: int = 0, samples: int = 6, margin: float = 3.0,
                 horizon: int | None = None, rollout_depth: int = 1,
                 whole_game: Collection[str] | None = None) -> None:
        self.seed = seed & MASK
        self.whole_game = None if whole_game is None else frozenset(whole_game)
        self.samples = samples
        self.margin = margin
        self.horizon = horizon
        self.rollout_depth = rollout_depth
        self.decisions = 0

    def choose(self, view: View) -> Action:
        actions = view.legal_actions
        self.decisions += 1
        if len(actions) == 1:
            return actions[0]
        seat = view.seat
        if seat is None:
            raise ValueError(_NO_SEAT)
        first = determinize(view, random_below(self.seed, self.decisions, 0, MASK))
        if self._shapes_game(view):
            candidates = list(range(len(actions)))
        else:
            prior = [greedy_value(first, a, seat) for a in actions]
            best = max(prior)
            candidates = [i for i, v in enumerate(prior) if v >= best - self.margin]
        if len(candidates) == 1:
            return actions[candidates[0]]
        worlds = [first, *(determinize(view, random_below(self.seed, self.decisions, i, MASK))
                           for i in range(1, self.samples))]
        totals = [sum(self._playout(world, actions[i], seat) for world in worlds)
                  for i in candidates]
        return actions[candidates[totals.index(max(totals))]]

    def _shapes_game(self, view: View) -> bool:
        """Whether every option of the decision is played out."""
        step = view.current_step
        if step is None:
            return False
        if self.whole_game is not None:
            return step.kind in self.whole_game
        return view.ruleset.registry.steps[step.kind].shapes_game

    def _playout(self, world: Game, action: Action, seat: int) -> float:
        game = world.apply(action)
        played = 0
        while not game.is_over and (self.horizon is None or played < self.horizon):
            game = game.apply(greedy_action(game, self.rollout_depth))
            played += 1
        return outcome(game, seat)


BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": SearchBot,
}
"""The bots by name (for ``--bots`` on the command line); each takes a seed."""

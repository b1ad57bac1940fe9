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

Bots are found by name in the entry-point group ``tokaido_rules.bots`` (:data:`BOTS`,
:data:`BOT_GROUP`): any installed package may add one, a callable called as
``factory(seed=..., **options)`` that returns a :class:`Bot`, and may declare its options
(:class:`BotOption`, in its ``bot_options`` attribute). :func:`make_bot` makes a bot from
a name, a class, a factory or an object; :func:`next_action` refuses a bot that raises or
answers an action that is not legal with a one-line :class:`~tokaido_rules.BotError`.
"""

from __future__ import annotations

import copy
import re
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, MutableMapping
from functools import partial
from importlib import metadata
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias

from attrs import frozen

from .chance import event_stream, random_below
from .engine import Game, make_rules
from .errors import BotError, UnknownBotError
from .events import Action, Move
from .frozen import FrozenMap
from .model import GameState
from .moves import MOVE
from .ruleset import Ruleset, Setup
from .views import View

if TYPE_CHECKING:  # the fast engine is loaded only by a bot that looks ahead there
    from .fast import FastGame

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
    then every card some seat may not see is sampled. :func:`determinize_fast` makes the
    same completion as a fast game.
    """
    zones = _sampled_zones(view, seed)
    rules = make_rules(view.ruleset, view.players, Setup())
    state = GameState(rules=rules, seed=seed, pieces=view.pieces, zones=FrozenMap(zones),
                      agenda=view.agenda, data=view.data, seq=view.seq, turn=view.turn,
                      over=view.over)
    return Game(state, ())


def _sampled_zones(view: View, seed: int) -> dict[str, tuple[str, ...]]:
    """Every zone of a completion of ``view``: those it shows, and its hidden ones dealt
    from the cards it does not show (from ``seed``; see :func:`determinize`).

    The cards not shown make one pool per card back (in the order of
    :meth:`~tokaido_rules.registry.Registry.deck_census`), each shuffled in turn
    (:func:`~tokaido_rules.chance.shuffle`, draws counted on across the pools, from the
    stream of event 0); the hidden zones, by name, then take from the top of the pools
    of their card backs, by back."""
    return _Sampler(view).zones(seed)


class _Sampler:
    """What every completion of one view shares (the pools of the cards it does not
    show, before the shuffle), made once: :meth:`zones` deals one completion's zones
    from a seed. A search that samples many completions of one view pays for the census
    once (:func:`completions_fast`)."""

    __slots__ = ("hidden", "pools", "shown")

    def __init__(self, view: View) -> None:
        census = view.ruleset.registry.deck_census()
        seen = Counter(chain.from_iterable(view.zones.values()))
        pools: dict[str, list[str]] = {}
        for card, home, copies in census:
            left = copies - seen[card] if card in seen else copies
            if left > 0:
                pool = pools.get(home)
                if pool is None:
                    pool = pools[home] = []
                if left == 1:
                    pool.append(card)
                else:
                    pool.extend([card] * left)
        self.pools = pools
        self.shown = view.zones
        hidden_backs = view.hidden_backs
        self.hidden = [(name, sorted(hidden_backs[name].items()))
                       for name in sorted(hidden_backs)]

    def zones(self, seed: int) -> dict[str, tuple[str, ...]]:
        """The zones of the completion from ``seed`` (:func:`_sampled_zones`)."""
        pools = {home: pool[:] for home, pool in self.pools.items()}
        from .fast import shuffle_pools

        shuffle_pools(list(pools.values()), event_stream(seed, 0))
        zones = dict(self.shown)
        for name, backs in self.hidden:
            if len(backs) == 1:
                home, count = backs[0]
                pool = pools.get(home, [])
                zones[name] = tuple(pool[:count])
                del pool[:count]
                continue
            dealt: list[str] = []
            for home, count in backs:
                pool = pools.get(home, [])
                dealt.extend(pool[:count])
                del pool[:count]
            zones[name] = tuple(dealt)
        return zones


class _Completion:
    """A sampled completion of a view, as :func:`~tokaido_rules.fast.from_state` reads a
    state (:class:`~tokaido_rules.fast.StateLike`)."""

    __slots__ = ("agenda", "data", "over", "pieces", "seq", "turn", "zones")

    def __init__(self, view: View, zones: dict[str, tuple[str, ...]]) -> None:
        self.pieces = view.pieces
        self.zones = zones
        self.agenda = view.agenda
        self.data = view.data
        self.seq = view.seq
        self.turn = view.turn
        self.over = view.over


def determinize_fast(view: View, seed: int) -> FastGame:
    """The completion :func:`determinize` makes of ``view`` with ``seed`` (the same cards
    dealt into the same hidden zones), as a plain fast game
    (:func:`~tokaido_rules.fast.from_state`): its play from there is the reference
    completion's, many times faster. It has no history (no log, no view). Raises
    :class:`~tokaido_rules.fast.NotCoveredError` where :func:`fast_lookahead` is false."""
    from .fast import from_state

    return from_state(_Completion(view, _sampled_zones(view, seed)), view.ruleset,
                      view.players, seed)


def completions_fast(view: View) -> Callable[[int], FastGame]:
    """:func:`determinize_fast` of ``view`` by seed, for many seeds: the census of the
    cards the view does not show is made once, not once per completion (what a search
    that samples a completion per iteration pays). The same games as
    :func:`determinize_fast`."""
    from .fast import from_state

    sampler = _Sampler(view)
    ruleset = view.ruleset
    players = view.players

    def complete(seed: int) -> FastGame:
        return from_state(_Completion(view, sampler.zones(seed)), ruleset, players, seed)

    return complete


_FAST: weakref.WeakKeyDictionary[Ruleset, dict[int, bool]] = weakref.WeakKeyDictionary()


def fast_lookahead(ruleset: Ruleset, players: int) -> bool:
    """Whether the greedy and search bots look ahead on the fast engine in games of
    ``ruleset`` with ``players`` (:func:`determinize_fast`: the fast engine loads its
    states, :func:`~tokaido_rules.fast.why_not_loadable`); remembered per ruleset."""
    known = _FAST.get(ruleset)
    if known is None:
        known = _FAST[ruleset] = {}
    found = known.get(players)
    if found is None:
        from .fast import why_not_loadable

        found = known[players] = why_not_loadable(ruleset, players) is None
    return found


_TYPES: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@frozen
class BotOption:
    """One option a bot's factory takes as a keyword (``--bot-option NAME.KEY=VALUE``).

    A factory declares its options in its ``bot_options`` attribute (a tuple of these),
    so that ``tokaido bots`` can list them and a value given on the command line is
    checked and converted before any game is played."""

    name: str
    kind: str
    """Its type: ``"int"``, ``"float"``, ``"str"`` or ``"bool"``."""
    default: object
    """What the factory uses when the option is not given (``None`` allowed: then the
    value ``none`` gives it)."""
    help: str = ""

    def __attrs_post_init__(self) -> None:
        if self.kind not in _TYPES:
            raise ValueError(f"bot option {self.name!r}: type must be one of "
                             f"{', '.join(_TYPES)}, got {self.kind!r}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ValueError(f"bot option {self.name!r} is not a keyword name")

    def value(self, raw: object) -> object:
        """``raw`` as this option's type: text is parsed (``none`` for ``None`` where
        the default is ``None``), a typed value is checked. Raises ``ValueError``."""
        kind = _TYPES[self.kind]
        if isinstance(raw, str) and kind is not str:
            text = raw.strip().lower()
            if text == "none" and self.default is None:
                return None
            if kind is bool:
                if text in _TRUE or text in _FALSE:
                    return text in _TRUE
                raise ValueError(f"{raw!r} is not true or false")
            try:
                return kind(text)
            except ValueError:
                raise ValueError(f"{raw!r} is not {'an' if kind is int else 'a'} "
                                 f"{self.kind}") from None
        if raw is None and self.default is None:
            return None
        if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        if type(raw) is not kind:
            raise ValueError(f"{raw!r} is not {'an' if kind is int else 'a'} {self.kind}")
        return raw


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


Complete: TypeAlias = "Callable[[int], FastGame | None]"
"""A seat's sampled completions, by seed (:meth:`~tokaido_rules.fast.FastGame.completion`)."""


class SamplingBot(Bot, Protocol):
    """A bot that looks ahead on sampled completions of its view (:func:`determinize`)
    and may be handed them ready-made.

    In a fast game that makes them from its flat state
    (:attr:`~tokaido_rules.fast.FastGame.completes`), :func:`next_action` calls
    ``choose_sampled(seat, actions, complete, view)`` instead of ``choose``: ``complete(seed)``
    is the completion :func:`determinize_fast` makes of the seat's view with ``seed``
    (made without the view: most of the cost of such a bot's decision otherwise), and
    ``view()`` the view itself, for a bot that wants it after all. Both show nothing
    the view does not, and the answer must be the one ``choose(view())`` gives."""

    def choose_sampled(self, seat: int, actions: tuple[Action, ...], complete: Complete,
                       view: Callable[[], View]) -> Action: ...


class Decides(Protocol):
    """What :func:`next_action` reads of a game: whose decision it is, the legal actions
    and a seat's view. A reference :class:`~tokaido_rules.Game` has them, and so has a
    :class:`~tokaido_rules.fast.FastGame` (whose views are built from its flat state)."""

    @property
    def current_player(self) -> int | None: ...

    def legal_actions(self) -> tuple[Action, ...]: ...

    def view(self, seat: int | None) -> View: ...


def next_action(bot: Bot, game: Decides, name: str | None = None) -> Action:
    """Ask ``bot`` for the decision of the seat whose turn it is: from its view, or, for
    an :class:`ActionsBot`, from the legal actions alone (a reference game or a fast
    one: :class:`Decides`).

    A bot that raises, or answers anything but one of the legal actions, is refused with
    :class:`~tokaido_rules.BotError` (one line, naming the bot: ``name``, else
    :func:`bot_name`); the game is not touched, so it stays as it was."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: nobody decides")
    choose_from: Callable[[tuple[Action, ...]], Action] | None = getattr(
        bot, "choose_from", None)
    choose_sampled: Callable[..., Action] | None = getattr(bot, "choose_sampled", None)
    if choose_sampled is not None and getattr(game, "completes", False):
        actions = game.legal_actions()
        fast: Any = game
        try:
            action = choose_sampled(seat, actions, partial(fast.completion, seat),
                                    partial(game.view, seat))
        except Exception as exc:
            raise _failed(bot, name, seat, exc) from exc
    elif choose_from is not None:
        actions = game.legal_actions()
        try:
            action = choose_from(actions)
        except Exception as exc:  # the bot's own failure, told in one line
            raise _failed(bot, name, seat, exc) from exc
    else:
        view = game.view(seat)
        actions = view.legal_actions
        try:
            action = bot.choose(view)
        except Exception as exc:
            raise _failed(bot, name, seat, exc) from exc
    if not is_legal(action, actions):
        raise _illegal(bot, name, seat, action)
    return action


def is_legal(action: object, actions: tuple[Action, ...]) -> bool:
    """Whether ``action`` is one of ``actions``: first by identity (a bot almost always
    answers one of the very objects it was given, and comparing actions field by field
    is what would cost), then by equality."""
    for candidate in actions:
        if candidate is action:
            return True
    return action in actions


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _failed(bot: object, name: str | None, seat: int, exc: Exception) -> BotError:
    label = name or bot_name(bot)
    return BotError(f"bot {label!r} (seat {seat}) raised {type(exc).__name__}: "
                    f"{_one_line(str(exc))}", label)


def _illegal(bot: object, name: str | None, seat: int, action: object) -> BotError:
    label = name or bot_name(bot)
    return BotError(f"bot {label!r} (seat {seat}) answered an action that is not legal: "
                    f"{_one_line(repr(action))}", label)


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


World: TypeAlias = "Game | FastGame"
"""What the greedy and search bots look ahead on: a complete game, reference or fast
(:func:`determinize`, :func:`determinize_fast`); the same values on either."""


def standing(game: World, seat: int, coin_value: float = COIN_VALUE) -> float:
    """A seat's points plus its coins at ``coin_value`` points each."""
    if not isinstance(game, Game):
        return sum(game.score[seat]) + coin_value * game.coins[seat]
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


def greedy_value(game: World, action: Action, seat: int, depth: int = GREEDY_DEPTH) -> float:
    """The immediate gain of ``action`` for ``seat`` on a complete game: its standing
    after the action (and, up to ``depth`` times, after its own best next decision of the
    same stop), minus the cost of skipped spaces. The same value on a reference game and
    on a fast one of the same state (``game`` is left as it was).

    What happens at an inn is no reason to hurry there: every traveller stops at every
    inn, so a move to an inn is worth only what it skips (counting the meal made
    travellers rush from inn to inn and skip the road)."""
    if not isinstance(game, Game):
        return _fast_greedy_value(game, action, seat, depth)
    after = game.apply(action)
    gain = (standing(after, seat, GREEDY_COIN_VALUE) - standing(game, seat, GREEDY_COIN_VALUE)
            - _skip_cost(game, action))
    if isinstance(action, Move):
        if game.state.pieces[action.piece].seat is None:
            return -gain  # moving the neutral: judged by what it costs us, roughly nothing
        if game.state.rules.board[action.position].inn:
            return gain
    step = after.current_step
    if depth > 0 and step is not None and step.seat == seat and step.kind != MOVE:
        follow = [greedy_value(after, a, seat, depth - 1) for a in after.legal_actions()]
        if follow:
            gain += max(follow)
    return gain


def _fast_greedy_value(game: FastGame, action: Action, seat: int, depth: int) -> float:
    """:func:`greedy_value` on a fast game, on a copy of it."""
    return _fast_values(game.clone(), (action,), seat, depth)[0]


def _fast_values(game: FastGame, actions: tuple[Action, ...], seat: int,
                 depth: int) -> list[float]:
    """:func:`greedy_value` of each of ``actions`` on a fast game, which it uses up
    (:func:`~tokaido_rules.lookahead.gains`: the same arithmetic in the same order,
    compiled with the fast engine's kernel)."""
    if not _GAINS:  # loaded with the fast engine, by a bot looking there, once
        from .lookahead import gains

        _GAINS.append(gains)
    return _GAINS[0](game, actions, seat, depth, GREEDY_COIN_VALUE, SKIP_COST)


_GAINS: list[Callable[[FastGame, tuple[Action, ...], int, int, float, float],
                      list[float]]] = []
""":func:`~tokaido_rules.lookahead.gains` once imported (an import statement in the
function would cost about 1.5 µs a call, a few percent of a decision)."""


_NO_SEAT = "a bot decides for a seat: the public view has none"
"""Why a bot refuses the public view (``seat`` ``None``): bots get their seat's view."""

ENGINES = ("auto", "fast", "reference")
"""Where the greedy and search bots look ahead (their option ``engine``): ``"auto"``, on
the fast engine wherever it loads the ruleset's states (:func:`fast_lookahead`), else
the reference; ``"fast"``, there only (a ruleset it does not load is refused);
``"reference"``, on the reference engine. The choices are the same on either."""


def _check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return engine


def _world(view: View, seed: int, engine: str) -> World:
    """The completion of ``view`` from ``seed`` that the bot looks ahead on, on the
    engine ``engine`` says (:data:`ENGINES`)."""
    if engine != "reference":
        if fast_lookahead(view.ruleset, view.players):
            return determinize_fast(view, seed)
        if engine == "fast":
            from .fast import why_not_loadable

            raise ValueError(f"the fast engine does not load states of "
                             f"{','.join(view.ruleset.ids)} with {view.players} players: "
                             f"{why_not_loadable(view.ruleset, view.players)}")
    return determinize(view, seed)


def _completing(complete: Complete, view: Callable[[], View],
                engine: str) -> Callable[[int], World]:
    """The completions of a seat's view by seed: made ready, else from the view."""
    def world_of(seed: int) -> World:
        world = complete(seed)
        return _world(view(), seed, engine) if world is None else world

    return world_of


def look_ahead_on(bots: Iterable[object], engine: str) -> None:
    """Make the bots whose lookahead engine is ``"auto"`` (their ``engine`` attribute,
    :data:`ENGINES`) look ahead on ``engine``: a batch played on the reference engine
    plays there throughout (``tokaido simulate --engine reference``), which is what the
    fast lookahead is measured and checked against."""
    for bot in bots:
        if getattr(bot, "engine", None) == "auto":
            bot.engine = engine  # type: ignore[attr-defined]


_ENGINE_OPTION = BotOption("engine", "str", "auto", "where it looks ahead: auto (the fast "
                           "engine where it covers the ruleset), fast or reference; the "
                           "same choices")


class _LookingAhead:
    """What the greedy and search bots share: a seed, the engine they look ahead on
    (:data:`ENGINES`), a count of the decisions asked, and the two ways of being asked
    (:meth:`choose` from a view, :meth:`choose_sampled` with completions made ready),
    both answered by the bot's ``_choose`` from its seat, the legal actions and the
    completions by seed."""

    seed: int
    engine: str
    decisions: int

    def choose(self, view: View) -> Action:
        engine = self.engine
        return self._choose(view.seat, view.legal_actions,
                            lambda seed: _world(view, seed, engine))

    def choose_sampled(self, seat: int, actions: tuple[Action, ...], complete: Complete,
                       view: Callable[[], View]) -> Action:
        """:meth:`choose` on completions made ready (:class:`SamplingBot`): the same
        answer."""
        if self.engine == "reference":
            return self.choose(view())
        return self._choose(seat, actions, _completing(complete, view, self.engine))

    def _choose(self, seat: int | None, actions: tuple[Action, ...],
                world_of: Callable[[int], World]) -> Action:
        """The answer: the lone action, else the bot's :meth:`_decide` on the
        decision's first completion (its seed drawn from the bot's seed and the count of
        decisions asked)."""
        self.decisions += 1
        if len(actions) == 1:
            return actions[0]
        if seat is None:
            raise ValueError(_NO_SEAT)
        world = world_of(random_below(self.seed, self.decisions, 0, MASK))
        return self._decide(seat, actions, world, world_of)

    def _decide(self, seat: int, actions: tuple[Action, ...], world: World,
                world_of: Callable[[int], World]) -> Action:
        """The bot's choice among several ``actions`` given the first completion
        ``world`` (and ``world_of``, for more)."""
        raise NotImplementedError


class GreedyBot(_LookingAhead):
    """Takes the action with the best immediate gain, judged on a sampled completion of
    its view (ties broken by the order of the legal actions); looks ahead on the fast
    engine wherever it can (option ``engine``: :data:`ENGINES`), with the same choices."""

    bot_options: ClassVar[tuple[BotOption, ...]] = (_ENGINE_OPTION,)
    """What ``--bot-option greedy.KEY=VALUE`` sets."""

    def __init__(self, seed: int = 0, engine: str = "auto") -> None:
        self.seed = seed & MASK
        self.engine = _check_engine(engine)
        self.decisions = 0

    def _decide(self, seat: int, actions: tuple[Action, ...], world: World,
                world_of: Callable[[int], World]) -> Action:
        if isinstance(world, Game):
            values = [greedy_value(world, a, seat) for a in actions]
        else:  # the completion is this decision's alone: used up
            values = _fast_values(world, actions, seat, GREEDY_DEPTH)
        return actions[values.index(max(values))]


def greedy_action(game: World, depth: int = GREEDY_DEPTH) -> Action:
    """The greedy choice of the seat deciding in a complete game (first of equals)."""
    actions = game.legal_actions()
    if len(actions) == 1:
        return actions[0]
    seat = game.current_player
    assert seat is not None
    if isinstance(game, Game):
        values = [greedy_value(game, a, seat, depth) for a in actions]
    else:
        values = _fast_values(game.clone(), actions, seat, depth)
    return actions[values.index(max(values))]


def outcome(game: World, seat: int) -> float:
    """A seat's score minus the best other seat's; before the end, coins count at
    :data:`COIN_VALUE` (at the end they are worth nothing)."""
    values: list[float]
    if not isinstance(game, Game):
        if game.is_over:
            values = [sum(game.score[s]) for s in range(game.players)]
        else:
            values = [standing(game, s) for s in range(game.players)]
    elif game.is_over:
        values = [game.state.pieces[s].total for s in range(game.players)]
    else:
        values = [standing(game, s) for s in range(game.players)]
    mine = values.pop(seat)
    return mine - max(values)


class SearchBot(_LookingAhead):
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
    alone (:func:`determinize`). Its samples and playouts are fast games wherever the
    fast engine loads the ruleset's states (option ``engine``: :data:`ENGINES`), with
    the same choices.
    """

    bot_options: ClassVar[tuple[BotOption, ...]] = (
        BotOption("samples", "int", 6, "sampled completions of the view per close call"),
        BotOption("margin", "float", 3.0, "points from the best greedy value that make a "
                  "close call"),
        BotOption("horizon", "int", None, "decisions played out per playout (none: to the end)"),
        BotOption("rollout_depth", "int", 1, "the greedy players' lookahead in playouts"),
        _ENGINE_OPTION,
    )
    """What ``--bot-option search.KEY=VALUE`` sets."""

    def __init__(self, seed: int = 0, samples: int = 6, margin: float = 3.0,
                 horizon: int | None = None, rollout_depth: int = 1,
                 whole_game: Collection[str] | None = None, engine: str = "auto") -> None:
        self.seed = seed & MASK
        self.whole_game = None if whole_game is None else frozenset(whole_game)
        self.samples = samples
        self.margin = margin
        self.horizon = horizon
        self.rollout_depth = rollout_depth
        self.engine = _check_engine(engine)
        self.decisions = 0

    def _decide(self, seat: int, actions: tuple[Action, ...], first: World,
                world_of: Callable[[int], World]) -> Action:
        if self._shapes_game(first):
            candidates = list(range(len(actions)))
        else:
            prior = ([greedy_value(first, a, seat) for a in actions] if isinstance(first, Game)
                     else _fast_values(first.clone(), actions, seat, GREEDY_DEPTH))
            best = max(prior)
            candidates = [i for i, v in enumerate(prior) if v >= best - self.margin]
        if len(candidates) == 1:
            return actions[candidates[0]]
        worlds = [first, *(world_of(random_below(self.seed, self.decisions, i, MASK))
                           for i in range(1, self.samples))]
        totals = [sum(self._playout(world, actions[i], seat) for world in worlds)
                  for i in candidates]
        return actions[candidates[totals.index(max(totals))]]

    def _shapes_game(self, world: World) -> bool:
        """Whether every option of the decision (that of ``world``, a completion of the
        view) is played out."""
        if isinstance(world, Game):
            step = world.current_step
            kind = None if step is None else step.kind
        else:
            kind = world.current_kind
        if kind is None:
            return False
        if self.whole_game is not None:
            return kind in self.whole_game
        return world.ruleset.registry.steps[kind].shapes_game

    def _playout(self, world: World, action: Action, seat: int) -> float:
        if not isinstance(world, Game):
            fast = world.applied(action)  # a copy: the world serves every candidate
            played = 0
            while not fast.is_over and (self.horizon is None or played < self.horizon):
                fast.apply(greedy_action(fast, self.rollout_depth))
                played += 1
            return outcome(fast, seat)
        game = world.apply(action)
        played = 0
        while not game.is_over and (self.horizon is None or played < self.horizon):
            game = game.apply(greedy_action(game, self.rollout_depth))
            played += 1
        return outcome(game, seat)


# --- bots from any package: the registry ----------------------------------------------

BOT_GROUP = "tokaido_rules.bots"
"""The entry-point group where packages register bots: ``name = "module:factory"``."""

def bot_options(factory: object) -> tuple[BotOption, ...]:
    """The options ``factory`` declares (its ``bot_options`` attribute; none if absent).
    A declaration that is not a tuple of :class:`BotOption` is refused (``TypeError``)."""
    declared = getattr(factory, "bot_options", ())
    if not isinstance(declared, tuple) or not all(isinstance(o, BotOption) for o in declared):
        raise TypeError("bot_options must be a tuple of BotOption")
    return declared


@frozen
class BotSpec:
    """A registered bot: what ``tokaido bots`` lists."""

    name: str
    factory: Callable[..., Bot]
    options: tuple[BotOption, ...]
    summary: str
    """The first line of the factory's docstring."""
    distribution: str
    """The installed distribution that registers it."""
    actions_only: bool
    """Whether it chooses from the legal actions alone (an :class:`ActionsBot` class, or
    a factory with ``actions_only = True``): such a bot can play on the fast engine."""


_BUILT_IN: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": SearchBot,
}


def _target(factory: object) -> str:
    return f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', '?')}"


class BotRegistry(MutableMapping[str, Callable[..., Bot]]):
    """The bots by name: the built-in ones and every entry point of :data:`BOT_GROUP`
    of the installed packages, read once, when first asked, and loaded (imported) only
    when named. A mapping of name to factory; setting a name adds a bot to this process
    (tests do), ``del`` removes it.

    A name registered by two packages with different targets is refused when used
    (:class:`~tokaido_rules.UnknownBotError` naming both), never silently one of them;
    a target that fails to import is refused the same way, naming the bot."""

    def __init__(self, built_in: Mapping[str, Callable[..., Bot]]) -> None:
        self._built_in = dict(built_in)
        self._found: dict[str, list[tuple[str, str, metadata.EntryPoint | None]]] | None = None
        self._loaded: dict[str, Callable[..., Bot]] = {}
        self._added: dict[str, Callable[..., Bot]] = {}
        self._removed: set[str] = set()

    def _entries(self) -> dict[str, list[tuple[str, str, metadata.EntryPoint | None]]]:
        """name -> (distribution, target, entry point) of every registration."""
        if self._found is None:
            found: dict[str, list[tuple[str, str, metadata.EntryPoint | None]]] = {
                name: [("tokaido-rules", _target(f), None)] for name, f in self._built_in.items()}
            for ep in metadata.entry_points(group=BOT_GROUP):
                dist = ep.dist.name if ep.dist is not None else "?"
                target = ep.value.replace(" ", "")
                known = found.setdefault(ep.name, [])
                if all(t != target for _, t, _ in known):
                    known.append((dist, target, ep))
            self._found = found
        return self._found

    def reload(self) -> None:
        """Read the entry points again (after installing a package in this process)."""
        self._found = None
        self._loaded.clear()

    def __getitem__(self, name: str) -> Callable[..., Bot]:
        if name in self._added:
            return self._added[name]
        if name in self._removed or not isinstance(name, str):
            raise KeyError(name)
        if name in self._loaded:
            return self._loaded[name]
        entries = self._entries().get(name)
        if not entries:
            raise KeyError(name)
        if len(entries) > 1:
            where = ", ".join(f"{d} ({t})" for d, t, _ in entries)
            raise UnknownBotError(f"bot {name!r} is registered more than once: {where}; "
                                  "uninstall one of them", name)
        _, target, ep = entries[0]
        if ep is None:
            factory = self._built_in[name]
        else:
            try:
                factory = ep.load()
            except Exception as exc:
                raise UnknownBotError(f"bot {name!r} ({target}) cannot be loaded: "
                                      f"{type(exc).__name__}: {_one_line(str(exc))}",
                                      name) from exc
            if not callable(factory):
                raise UnknownBotError(f"bot {name!r} ({target}) is not callable", name)
        self._loaded[name] = factory
        return factory

    def __setitem__(self, name: str, factory: Callable[..., Bot]) -> None:
        self._removed.discard(name)
        self._added[name] = factory

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._added.pop(name, None)
        if name in self._entries():
            self._removed.add(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._added or (
            name not in self._removed and name in self._entries()))

    def __iter__(self) -> Iterator[str]:
        names = {n for n in self._entries() if n not in self._removed} | set(self._added)
        return iter(sorted(names, key=lambda n: (n not in self._built_in, n)))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def distribution(self, name: str) -> str:
        """The distribution that registers ``name`` (``"-"`` for one added in this
        process)."""
        if name in self._added:
            return "-"
        entries = self._entries().get(name) or [("-", "", None)]
        return entries[0][0]

    def name_of(self, factory: object) -> str | None:
        """The name ``factory`` is registered under (loaded or not: an entry point whose
        target is its ``module:qualname``), or ``None``."""
        for name, f in (*self._added.items(), *self._loaded.items(),
                        *self._built_in.items()):
            if f is factory and name in self:
                return name
        target = _target(factory)
        for name, entries in self._entries().items():
            if (name in self and name not in self._added
                    and any(t == target for _, t, _ in entries)):
                return name
        return None


BOTS = BotRegistry(_BUILT_IN)
"""The bots by name (``--bots`` on the command line): name -> factory, called as
``factory(seed=..., **options)``. The built-in ones and those of every installed package
(entry-point group :data:`BOT_GROUP`); see :class:`BotRegistry`."""


def _unknown(name: str) -> UnknownBotError:
    return UnknownBotError(f"unknown bot {name!r} (installed: {', '.join(BOTS)}; a "
                           f"package registers one in the entry-point group {BOT_GROUP})",
                           name)


def bot_factory(name: str) -> Callable[..., Bot]:
    """The factory registered as ``name``; an unknown name raises
    :class:`~tokaido_rules.UnknownBotError` (a subclass of ``SetupError``)."""
    if not isinstance(name, str) or name not in BOTS:
        raise _unknown(str(name))
    return BOTS[name]


def bot_spec(name: str) -> BotSpec:
    """What :data:`BOTS` knows of ``name``: its factory, options, summary, package."""
    factory = bot_factory(name)
    try:
        options = bot_options(factory)
    except TypeError as exc:
        raise UnknownBotError(f"bot {name!r}: {exc}", name) from None
    doc = (getattr(factory, "__doc__", None) or "").strip()
    summary = _one_line(doc.split("\n\n")[0], 300) if doc else ""
    return BotSpec(name, factory, options, summary, BOTS.distribution(name),
                   actions_only(factory))


def actions_only(bot: object) -> bool:
    """Whether ``bot`` (a factory, class or object) chooses from the legal actions alone:
    it has ``choose_from`` (:class:`ActionsBot`) or says ``actions_only = True``."""
    return bool(getattr(bot, "actions_only", False)) or callable(
        getattr(bot, "choose_from", None))


BotLike = Any
"""A bot as the library takes it: a registered name, a :class:`Bot` object, or a class
or factory called as ``factory(seed=..., **options)``."""


def is_bot_object(bot: object) -> bool:
    """Whether ``bot`` is a bot itself (it has ``choose``), not a class or factory."""
    return not isinstance(bot, type) and callable(getattr(bot, "choose", None))


def bot_name(bot: BotLike) -> str:
    """The name statistics and errors give ``bot``: a name as given; a registered
    class or factory (or an object of a registered class) by its registered name; else
    its ``bot_name`` attribute, else its class's (or function's) name."""
    if isinstance(bot, str):
        return bot
    kind = bot if not is_bot_object(bot) else type(bot)
    registered = BOTS.name_of(kind)
    if registered is not None:
        return registered
    own = getattr(bot, "bot_name", None)
    if isinstance(own, str) and own:
        return own
    return str(getattr(kind, "__name__", type(bot).__name__))


def check_options(bot: BotLike, options: Mapping[str, object] | None) -> dict[str, object]:
    """``options`` checked against what ``bot`` declares and converted to its types
    (text from the command line is parsed); an option it does not declare, or a value
    it cannot take, raises :class:`~tokaido_rules.UnknownBotError`. A bot object takes
    no options."""
    given = dict(options or {})
    if not given:
        return {}
    name = bot_name(bot)
    if is_bot_object(bot):
        raise UnknownBotError(f"bot {name!r} is an object already made: it takes no "
                              "options", name)
    factory = bot_factory(bot) if isinstance(bot, str) else bot
    try:
        declared = {o.name: o for o in bot_options(factory)}
    except TypeError as exc:
        raise UnknownBotError(f"bot {name!r}: {exc}", name) from None
    out: dict[str, object] = {}
    for key, raw in sorted(given.items()):
        option = declared.get(key)
        if option is None:
            has = ", ".join(declared) or "none"
            raise UnknownBotError(f"bot {name!r} has no option {key!r} (its options: {has})",
                                  name)
        try:
            out[key] = option.value(raw)
        except ValueError as exc:
            raise UnknownBotError(f"bot {name!r}, option {key}: {exc}", name) from None
    return out


def make_bot(bot: BotLike, seed: int, options: Mapping[str, object] | None = None) -> Bot:
    """A bot ready to play: a name or a class or factory is called as
    ``factory(seed=seed, **options)`` (options checked: :func:`check_options`); a bot
    object is copied (``copy.deepcopy``), so that every game starts it from the same
    state. A bad name, option or factory raises :class:`~tokaido_rules.BotError`
    (:class:`~tokaido_rules.UnknownBotError` for the name and options)."""
    name = bot_name(bot)
    checked = check_options(bot, options)
    if is_bot_object(bot):
        try:
            return copy.deepcopy(bot)  # type: ignore[no-any-return]
        except Exception as exc:
            raise BotError(f"bot {name!r} cannot be copied for a new game: "
                           f"{type(exc).__name__}: {_one_line(str(exc))}", name) from exc
    factory = bot_factory(bot) if isinstance(bot, str) else bot
    if not callable(factory):
        raise UnknownBotError(f"{bot!r} is not a bot: give a name, a Bot (with choose), "
                              "or a class or factory that makes one", name)
    try:
        made = factory(seed=seed, **checked)
    except Exception as exc:
        raise BotError(f"bot {name!r} could not be made: {type(exc).__name__}: "
                       f"{_one_line(str(exc))}", name) from exc
    if not callable(getattr(made, "choose", None)):
        raise BotError(f"bot {name!r}: its factory returned {type(made).__name__}, which "
                       "has no choose(view)", name)
    return made


def check_bot(bot: BotLike) -> str:
    """``bot``'s name, once it is known to be usable as a bot: a registered name, a bot
    object, or a callable (a class or factory); else :class:`~tokaido_rules.UnknownBotError`."""
    if isinstance(bot, str):
        bot_factory(bot)
        return bot
    if is_bot_object(bot) or callable(bot):
        return bot_name(bot)
    raise UnknownBotError(f"{bot!r} is not a bot: give a name, a Bot (with choose), or a "
                          "class or factory that makes one", type(bot).__name__)


def parse_bot_options(items: Iterable[str],
                      names: Collection[str]) -> dict[str, dict[str, str]]:
    """``NAME.KEY=VALUE`` items (``--bot-option``) as name -> key -> text; ``NAME`` must
    be one of ``names`` (the bots in play). Malformed items raise
    :class:`~tokaido_rules.UnknownBotError`; the values are checked by
    :func:`check_options` when the bots are made."""
    out: dict[str, dict[str, str]] = {}
    for item in items:
        match = re.fullmatch(r"\s*([^.=\s]+)\.([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)", item)
        if match is None:
            raise UnknownBotError(f"a bot option is NAME.KEY=VALUE, e.g. search.samples=4, "
                                  f"got {item!r}")
        name, key, value = match.group(1), match.group(2), match.group(3).strip()
        if name not in names:
            raise UnknownBotError(f"bot option {item!r}: {name!r} is not among the bots "
                                  f"in play ({', '.join(sorted(names))})", name)
        out.setdefault(name, {})[key] = value
    return out

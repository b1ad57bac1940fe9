"""A fast simulator, exact to the reference engine: the kernel every plugin's fast rules
plug into.

The reference engine (:func:`~tokaido_rules.new_game`, :class:`~tokaido_rules.Game`) is the
specification: immutable states, an event per change, every rule in a plugin. It is
built to be right and to be read, not to play millions of games. :class:`FastGame` plays
the same games with flat, mutable internals: lists of integers, an agenda of small
tuples, no events.

What "the same games" means, and what is proven (``tests/test_fast*.py``,
:func:`differential`):

- the same chance outcomes: every draw comes from :mod:`tokaido_rules.chance` with the
  seed and the sequence number the reference engine would use, because the simulator
  counts the events the reference would emit (it emits none itself); under purpose
  keying (``Setup.keying``), with the purpose and its count, which it keeps as the
  reference state does (:meth:`FastGame._chance`, the one place it keys chance);
- the same decisions, asked of the same seat, in the same order: :meth:`FastGame.legal_actions`
  is the very tuple :meth:`Game.legal_actions` gives (the reference's action objects,
  in its order), and the decisions the reference takes alone (a single answer every seat
  can see) are taken alone here too;
- the same results: :meth:`FastGame.scores` equals :meth:`Game.scores`, and
  :meth:`FastGame.to_game` replays the decisions through the reference engine, whose log
  is then the reference log byte for byte.

Where the rules live, and why. The core never names a plugin, so this module is a
*kernel*: the flat state of what the reference core knows (the travellers' pieces, their
positions, slots and order, coins, score rows by registered category, decks by zone,
the count of events), the agenda and its loop (decisions that lapse, lone answers taken
alone), the move rule (the rearmost traveller moves; a seat decides for a neutral one),
chance, :meth:`~FastGame.apply` and its checks, copies, :meth:`~FastGame.to_game`, the
machinery of direct views and the dispatch by step kind. Every rule of a plugin is in
that plugin's package, given through the ``tokaido_fast_rules`` hook as a
:class:`FastRules`, in one of two shapes:

- a plugin whose rules change what other plugins' steps do may give a *game class*, a
  subclass of :class:`FastGame` (and of the game class of the plugin it builds on): the
  base game's class holds the base rules as if-chains over small integers, and
  Crossroads' class derives from it; the game classes of a ruleset's plugins must form
  one chain (as mypyc compiles them natively);
- every other plugin is *additive*: rules for its own step kinds (run, legal actions,
  resolve), numbered by the kernel when a ruleset's tables are made, and reactions at
  the seams its reference hooks use (the deal, the setup steps, arrival steps, a card
  gained, end steps), reading the game classes' state through their methods.

:func:`why_not_covered` says why a ruleset is not played here (a plugin without fast
rules, step kinds that clash, game classes that do not form one chain, an option value
its owner's fast rules do not implement); such a ruleset plays on the reference engine.
The duplication of rules (reference and fast) is acceptable only because it is checked:
the differential test plays thousands of games against the reference at every decision.

Use it as a bot or a learning environment would::

    game = FastGame.new(4, seed=7)
    while not game.is_over:
        game.apply(random.choice(game.legal_actions()))   # in place; returns the game
    game.scores()

:meth:`FastGame.apply` changes the game in place (and returns it); :meth:`FastGame.applied`
returns a changed copy and leaves the game alone; :meth:`FastGame.clone` is a cheap copy
for tree search. :meth:`FastGame.view` gives the reference's view, built from the flat
state where the ruleset's fast rules say how (:class:`ViewableGame` records as it plays
what views need beyond it), by a replay for any other ruleset.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

import attrs
from attrs import frozen

from .chance import (
    _MACHINE_WORDS,
    EVENT,
    PURPOSE,
    purpose_stream,
)
from .chance import draw_below as _draw_below
from .chance import event_stream as _event_stream
from .chance import shuffle as _shuffle
from .engine import Game, Score, make_rules, new_game, with_keying
from .errors import CompiledBuildWarning, IllegalActionError, StaleActionError, TokaidoError
from .events import Action, Move, field_names
from .frozen import EMPTY, FrozenMap
from .log import dump_log
from .model import Piece
from .ruleset import Ruleset, Setup
from .views import UnknownSeatError, View, _hidden_backs

try:  # a local annotated ``_Word`` is a machine word in the compiled build (mypyc)
    from mypy_extensions import i64 as _Word
except ImportError:  # plain Python without mypy: the annotation is never read
    _Word = int  # type: ignore[misc]

__all__ = ["CompiledBuildWarning", "DifferentialReport", "FastGame", "FastRules", "FastTables",
           "NotCoveredError", "StateLike", "ViewTables", "ViewableGame", "compare", "compiled",
           "covers", "differential", "draw_below", "event_stream", "from_state", "purpose_stream",
           "shuffle", "shuffle_pools", "take_compiled", "views_direct", "why_not_covered",
           "why_not_loadable"]

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""


class NotCoveredError(TokaidoError, ValueError):
    """The fast simulator does not cover this ruleset or setup (see :func:`covers`): use
    the reference engine (:func:`~tokaido_rules.new_game`)."""


# --- step kinds ---------------------------------------------------------------------------
# A step of the agenda is (kind, piece, seat, data). Kinds below DECISION are run by the
# engine, the others are decisions. Game classes number their own kinds below
# ADDITIVE (run) and from DECISION to DECISION + ADDITIVE (decisions), each plugin in a
# range of its own; the kernel numbers additive plugins' kinds from ADDITIVE (run) and
# DECISION + ADDITIVE (decisions) when a ruleset's tables are made.

K_START_COINS: Final = 0
"""The core's step that sets the coins a setup gives (``core.start_coins``)."""
K_GAME_OVER: Final = 1
"""The core's first end step (``core.game_over``)."""
ADDITIVE: Final = 128
DECISION: Final = 256
D_MOVE: Final = DECISION
"""The core's move decision (``core.move``)."""

Step = tuple[int, int, int | None, int]
"""A step of the agenda: (kind, piece, seat, data). Steps are compared as the engine
compares its own (to know when the reference writes its agenda), so each maps one to
one to a reference step: ``data`` is whatever distinguishes two such steps (a card, a
bit mask of options), 0 otherwise."""

_Road = tuple[int, int, int, int, tuple[tuple[int, int, int, tuple[Move, ...]], ...],
              dict[int, tuple[Action, ...]]]
"""The road ahead of a traveller (:meth:`FastTables.road`)."""

_MOVES: tuple[tuple[Step, ...], ...] = tuple(
    tuple((D_MOVE, piece, seat, 0) for seat in range(5)) for piece in range(5))
"""The move decision of each piece and deciding seat."""
_START_COINS: Step = (K_START_COINS, -1, None, 0)
_GAME_OVER: Step = (K_GAME_OVER, -1, None, 0)
_CORE_KINDS = {K_START_COINS: "core.start_coins", K_GAME_OVER: "core.game_over",
               D_MOVE: "core.move"}


# --- a plugin's fast rules -----------------------------------------------------------------


class FastRules:
    """A plugin's rules for the fast simulator, what its ``tokaido_fast_rules`` hook
    returns. Make one with the facts below; an additive plugin subclasses it and
    overrides the methods of the seams it uses (each is called only if the plugin says
    it uses it: :attr:`seams`).

    - ``game``: the plugin's game class (a subclass of :class:`FastGame`), if it changes
      what other plugins' steps do; ``tables``: its tables class (a subclass of
      :class:`FastTables`), made once per ruleset and player count;
    - ``kinds``: the reference step kind of each step kind its game class numbers;
      ``automatic``: those of its decisions a lone answer of which the reference takes
      alone (1: always, 2: when the game class's ``_lone`` says so);
    - ``steps`` and ``decisions``: the reference kinds of an additive plugin's own run
      steps and decisions (numbered by the kernel: :meth:`FastTables.kind`), and
      ``automatic_decisions``: those of them a lone answer of which is taken alone;
    - ``effects``: the step kind (a number of its game class, or the name of one of its
      additive steps) each card effect it registers runs;
    - ``card_kinds``, ``spaces``, ``powers``: the number its rules give each card kind,
      space kind and traveller it registers (a traveller without one has no power);
    - ``categories``: its score categories, in the order of its score rows;
    - ``options``: each option it registers with the values its fast rules implement
      (a preset plugin's values are checked by the option's owner);
    - ``setup_order``: where its ``setup`` seam comes among the others' (the order of
      its reference setup steps: the travellers' offer is at 100);
    - ``views``: whether the direct views (:meth:`FastGame.view`) know its content: its
      game class fills its part of the view tables (:meth:`FastGame._fill_view_tables`),
      an additive plugin in :meth:`fill_view` (nothing, for a plugin that adds no zone,
      data key or counter), and a step of its own has the values :meth:`step_values`
      gives (see :meth:`FastGame._view_tables`).
    """

    def __init__(self, *, game: type[FastGame] | None = None,
                 tables: type[FastTables] | None = None,
                 kinds: Mapping[int, str] | None = None,
                 automatic: Mapping[int, int] | None = None,
                 steps: Sequence[str] = (), decisions: Sequence[str] = (),
                 automatic_decisions: Sequence[str] = (),
                 effects: Mapping[str, int | str] | None = None,
                 card_kinds: Mapping[str, int] | None = None,
                 spaces: Mapping[str, int] | None = None,
                 powers: Mapping[str, int] | None = None,
                 categories: Sequence[str] = (),
                 options: Mapping[str, Sequence[object]] | None = None,
                 seams: Sequence[str] = (), setup_order: int = 0,
                 views: bool = False) -> None:
        self.game = game
        self.tables = tables
        self.kinds: dict[int, str] = dict(kinds or {})
        self.automatic: dict[int, int] = dict(automatic or {})
        self.steps = tuple(steps)
        self.decisions = tuple(decisions)
        self.automatic_decisions = tuple(automatic_decisions)
        self.effects: dict[str, int | str] = dict(effects or {})
        self.card_kinds: dict[str, int] = dict(card_kinds or {})
        self.spaces: dict[str, int] = dict(spaces or {})
        self.powers: dict[str, int] = dict(powers or {})
        self.categories = tuple(categories)
        self.options: dict[str, tuple[object, ...]] = {
            name: tuple(values) for name, values in (options or {}).items()}
        unknown = set(seams) - set(SEAMS)
        if unknown:
            raise ValueError(f"no seam {sorted(unknown)[0]!r} (the seams: {', '.join(SEAMS)})")
        self.seams = frozenset(seams)
        self.setup_order = setup_order
        self.views = views

    # --- the seams of an additive plugin (see SEAMS) --------------------------------------
    def prepare(self, T: FastTables) -> object:
        """What the plugin's rules need of one ruleset and player count (made once, kept
        in ``T.extra[plugin id]``); may also set the kernel's switches on ``T``."""
        return None

    def deal(self, game: FastGame) -> None:
        """After the decks are shuffled and the start queue drawn, before the travellers
        are handed out (the setup of a deck, such as thinning it)."""

    def setup(self, game: FastGame, working: list[Step]) -> None:
        """The setup steps: change ``working`` (the steps before the first decision)."""

    def arrival(self, T: FastTables, piece: int, seat: int | None, power: int,
                position: int, steps: list[Step]) -> None:
        """The steps of a stop of ``piece`` at ``position`` (``tokaido_arrival_steps``):
        change ``steps``, made once per piece, power and position."""

    def gained(self, game: FastGame, piece: int, card: int) -> None:
        """A card gained (``tokaido_card_gained``), after the game classes' reactions."""

    def end_steps(self, T: FastTables) -> Sequence[Step]:
        """Steps to run at the end of the game, after the game classes' own."""
        return ()

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        """Run one of the plugin's own steps; steps it schedules go to ``new``."""
        raise AssertionError(f"no step of kind {step[0]}")

    def legal(self, game: FastGame, step: Step) -> tuple[Action, ...]:
        """The legal actions of one of the plugin's own decisions (none: it lapses)."""
        raise AssertionError(f"no decision of kind {step[0]}")

    def resolve(self, game: FastGame, step: Step, action: Any, new: list[Step]) -> None:
        """Carry out ``action``, the answer to one of the plugin's own decisions (its
        event is counted)."""
        raise AssertionError(f"no decision of kind {step[0]}")

    # --- the direct views of an additive plugin (with ``views``) ---------------------------
    def fill_view(self, game: FastGame, V: ViewTables) -> bool:
        """Add the plugin's zones, data keys and counters to ``V`` (:meth:`ViewTables.add_zone`,
        :meth:`~ViewTables.add_data`, :meth:`~ViewTables.add_counter`, the names in
        :attr:`~ViewTables.known_zones` and :attr:`~ViewTables.known_data`, the checks of
        its own visibility functions in :attr:`~ViewTables.own_rules`), after the game
        classes' part; whether the views can be built directly. ``game`` is a game of
        the ruleset's game class, perhaps not yet dealt. Nothing here by default: a
        plugin that shows nothing of its own."""
        return True

    def step_values(self, game: FastGame, V: ViewTables, step: Step) -> dict[str, Any]:
        """The values (``Step.data``) of the reference step of one of the plugin's own
        steps (none by default; a card's effect names its card without it)."""
        return {}


SEAMS = ("deal", "setup", "arrival", "gained", "end_steps")
"""The seams an additive plugin's fast rules may use (:attr:`FastRules.seams`)."""


def _rules_of(ruleset: Ruleset) -> tuple[list[tuple[str, FastRules]], str | None]:
    """Every enabled plugin's fast rules by id, in plugin order, or why there are none."""
    pairs: list[tuple[object, Any]] = ruleset.hooks.fast_rules(FastRules)  # Any: compiled
    given = {id(plugin): rules for plugin, rules in pairs}
    found: list[tuple[str, FastRules]] = []
    for plugin_id, plugin in zip(ruleset.ids, ruleset.plugins, strict=True):
        rules = given.get(id(plugin))
        if rules is None:
            return [], f"plugin {plugin_id!r} gives no fast rules"
        found.append((plugin_id, rules))
    return found, None


_WHY: weakref.WeakKeyDictionary[Ruleset, tuple[str | None, Any]] = weakref.WeakKeyDictionary()


def _checked(ruleset: Ruleset) -> tuple[str | None, Any]:
    """Why the ruleset is not covered (``None``: it is) and, if it is, its fast rules
    (the plugins' rules in plugin order, the chain of game classes, the tables class);
    remembered per ruleset."""
    found = _WHY.get(ruleset)
    if found is not None:
        return found
    found = _WHY[ruleset] = _check(ruleset)
    return found


def _check(ruleset: Ruleset) -> tuple[str | None, Any]:
    rules, why = _rules_of(ruleset)
    if why is not None:
        return why, None
    games = [(pid, r.game) for pid, r in rules if r.game is not None]
    if not games:
        return "no enabled plugin gives a game class", None
    game_class: type[FastGame] = games[0][1]
    owner = games[0][0]
    for pid, cls in games[1:]:
        if issubclass(cls, game_class):
            game_class, owner = cls, pid
        elif not issubclass(game_class, cls):
            return (f"the game classes of plugins {owner!r} and {pid!r} do not form one "
                    "chain"), None
    tables = [(pid, r.tables) for pid, r in rules if r.tables is not None]
    tables_class: type[FastTables] = FastTables
    for pid, made in tables:
        if issubclass(made, tables_class):
            tables_class = made
        elif not issubclass(tables_class, made):
            return f"the tables class of plugin {pid!r} is not in one chain", None
    numbers: dict[int, str] = {}
    names: dict[str, str] = {}
    for pid, r in rules:
        for number in r.kinds:
            if number in numbers or number in _CORE_KINDS or not (
                    0 <= number < ADDITIVE or DECISION < number < DECISION + ADDITIVE):
                return (f"plugin {pid!r}'s step kind {number} clashes with another or is "
                        "out of its range"), None
            numbers[number] = pid
        for name in (*r.kinds.values(), *r.steps, *r.decisions):
            if name in names and not (name in r.kinds.values() and names[name] == pid):
                return (f"plugins {names[name]!r} and {pid!r} both give the step kind "
                        f"{name!r}"), None
            names[name] = pid
    owners = dict(rules)
    implemented: dict[str, tuple[object, ...]] = {}
    for _, r in rules:
        implemented.update(r.options)
    for name, value in ruleset.options.items():
        if name not in implemented:
            owner_id = name.split(".", 1)[0]
            who = f"plugin {owner_id!r}" if owner_id in owners else "no plugin"
            return f"{who} implements no value of option {name!r} in its fast rules", None
        if value not in implemented[name]:
            return (f"option {name!r} = {value!r} is not implemented by the fast rules "
                    f"(they implement {list(implemented[name])})"), None
    powers: dict[str, int] = {}
    for _, r in rules:
        powers.update(r.powers)
    for traveller in ruleset.registry.travellers:
        if traveller not in powers:
            return f"traveller {traveller!r} has no fast rules", None
    return None, (rules, game_class, tables_class)


def why_not_covered(ruleset: Ruleset) -> str | None:
    """Why :class:`FastGame` does not play games of ``ruleset`` (a one-line reason
    naming the plugin or option), or ``None`` when it does: every enabled plugin gives
    fast rules (``tokaido_fast_rules``), their step kinds do not clash, their game
    classes form one chain, every traveller's power is known and every option's value is
    one its owner's fast rules implement."""
    if not isinstance(ruleset, Ruleset):
        return f"{ruleset!r} is not a Ruleset"
    return _checked(ruleset)[0]


def covers(ruleset: Ruleset) -> bool:
    """Whether :class:`FastGame` plays games of ``ruleset`` exactly
    (:func:`why_not_covered` says why not)."""
    return why_not_covered(ruleset) is None


# --- the content, read from the registry once per ruleset and player count ------------------


class FastTables:
    """The content of a covered ruleset for one player count, as flat tables; shared by
    every game made from it, never changed. A game class's plugin may extend it with a
    subclass (its ``tables``) holding its own facts; an additive plugin keeps its own in
    :attr:`extra`."""

    def __init__(self, ruleset: Ruleset, players: int, rules: list[tuple[str, FastRules]],
                 game_class: type[FastGame]) -> None:
        reg = ruleset.registry
        self.ruleset = ruleset
        self.players = players
        self.game_class = game_class
        self.neutrals = ruleset.hooks.neutral_travellers(players)
        self.pieces = players + self.neutrals
        self.events: dict[str, Any] = {}
        """The registered event classes, by wire name, as asked (:meth:`action`)."""
        self.takes_travellers = True
        """Whether a game may be given its travellers (a plugin's ``prepare`` may say not,
        when the reference refuses them)."""
        self.offers_travellers = True
        """Whether the seats are offered travellers at the setup (a plugin whose setup
        replaces the offer says not)."""
        card_kinds: dict[str, int] = {}
        spaces: dict[str, int] = {}
        powers: dict[str, int] = {}
        effects: dict[str, int | str] = {}
        categories: list[str] = []
        self.kind_names: dict[int, str] = dict(_CORE_KINDS)
        """The reference's step kind of every step kind."""
        self.kinds: dict[str, int] = {}
        """The number of every step kind, by the reference's name."""
        self.additive: dict[int, FastRules] = {}
        """The additive plugin that runs or decides each additive step kind."""
        auto: dict[int, int] = {}
        run_next, decide_next = ADDITIVE, DECISION + ADDITIVE
        for _, r in rules:
            card_kinds.update(r.card_kinds)
            spaces.update(r.spaces)
            powers.update(r.powers)
            effects.update(r.effects)
            categories += [c for c in r.categories if c not in categories]
            self.kind_names.update(r.kinds)
            auto.update(r.automatic)
            for name in r.steps:
                self.kind_names[run_next] = name
                self.additive[run_next] = r
                run_next += 1
            for name in r.decisions:
                self.kind_names[decide_next] = name
                self.additive[decide_next] = r
                if name in r.automatic_decisions:
                    auto[decide_next] = 1
                decide_next += 1
        self.kinds = {name: number for number, name in self.kind_names.items()}
        self.auto = [auto.get(k, 0) for k in range(decide_next)]
        """Per step kind: 0, a lone answer is asked; 1, taken alone; 2, taken alone when
        the game class's ``_lone`` says so."""
        names = tuple(sorted(reg.cards))  # card codes sort as the card ids do
        self.names = names
        self.code = {name: i for i, name in enumerate(names)}
        cards = [reg.cards[n] for n in names]
        self.kind = [card_kinds.get(c.kind, -1) for c in cards]
        self.price = [c.price for c in cards]
        self.points = [c.points for c in cards]
        families = sorted({c.family for c in cards if c.family is not None})
        self.families = len(families)
        self.family = [-1 if c.family is None else families.index(c.family) for c in cards]
        effect_kinds = {name: (kind if isinstance(kind, int) else self.kinds[kind])
                        for name, kind in effects.items()}
        self.effect = [effect_kinds.get(c.effect or "", -1) for c in cards]
        """The step kind each card's effect runs (-1: none)."""
        board = reg.board
        self.end = len(board) - 1
        self.space = [spaces.get(s.kind, -1) for s in board]
        self.inn = [bool(s.inn) for s in board]
        slots, next_inn = ruleset.board_for(players)
        self.slots = list(slots)
        self.next_inn = list(next_inn)
        # decks, in the order the engine fills them
        self.decks = [(spec.zone, [self.code[c] for c in spec.cards], spec.shuffled)
                      for spec in reg.decks.values()]
        self.deck_index = {zone: i for i, (zone, _, _) in enumerate(self.decks)}
        # travellers: codes sort as their names do
        self.traveller_names = tuple(sorted(reg.travellers))
        self.traveller_index = {t: i for i, t in enumerate(self.traveller_names)}
        self.traveller_coins = [reg.travellers[t].coins for t in self.traveller_names]
        self.power = [powers.get(t, -1) for t in self.traveller_names]
        self.power.append(-1)  # index -1, no traveller (neutral; Initiation): no power
        self.categories = tuple(reg.categories)
        self.category_slots = tuple((k, name) for k, name in enumerate(categories)
                                    if name in reg.categories)
        """The score categories the ruleset registers, with their place in a score row."""
        self.category_index = {name: k for k, name in enumerate(categories)}
        self.score_width = len(categories)
        self.roads: dict[int, _Road] = {}
        self.arrivals: dict[int, tuple[Step, ...]] = {}
        self.remembered = 0
        self.misc: dict[tuple[Any, ...], Action] = {}
        self.view_tables: ViewTables | None = None
        self.census: _Census | None = None
        """What :meth:`FastGame.completion` deals from (made when first asked)."""
        """What :meth:`FastGame.view` reads to build a view straight from the flat state
        (made when first asked)."""
        self.rules = rules
        self.views = all(r.views for _, r in rules)
        self.extra: dict[str, Any] = {pid: r.prepare(self) for pid, r in rules}
        """What each plugin's rules made of this ruleset and player count, by plugin id."""
        self.dealers = [r for _, r in rules if "deal" in r.seams]
        self.setups = sorted((r for _, r in rules if "setup" in r.seams),
                             key=lambda r: r.setup_order)
        self.arrivers = [r for _, r in rules if "arrival" in r.seams]
        self.gainers = [r for _, r in rules if "gained" in r.seams]
        ends: list[Step] = [_GAME_OVER, *self.game_end_steps()]
        for _, r in rules:
            if "end_steps" in r.seams:
                ends += r.end_steps(self)
        self.end_steps = tuple(ends)

    def kind_of(self, name: str) -> int:
        """The number of a step kind, by the reference's name (an additive plugin's
        kinds are numbered per ruleset)."""
        return self.kinds[name]

    def game_end_steps(self) -> list[Step]:
        """The game classes' end steps, after ``core.game_over`` (none here)."""
        return []

    def stop_steps(self, piece: int, seat: int | None, power: int,
                   position: int) -> list[Step]:
        """What a stop schedules by the game classes' rules (none here)."""
        return []

    def stop_check(self, position: int) -> int:
        """What may forbid a stop at ``position``: the bit of :meth:`FastGame._moves`'s
        mask (1: a coin is needed, 2 + k: the traveller's completion ``k`` bars it, 0:
        nothing)."""
        return 0

    def arrival(self, piece: int, seat: int | None, power: int,
                position: int) -> tuple[Step, ...]:
        """What a stop of ``piece`` at ``position`` schedules (``tokaido_arrival_steps``,
        in their order): made once per piece, power and position."""
        steps = self.stop_steps(piece, seat, power, position)
        for rules in self.arrivers:
            rules.arrival(self, piece, seat, power, position, steps)
        found = self.arrivals[(piece * 32 + power + 1) * 64 + position] = tuple(steps)
        return found

    def action(self, type_name: str, *fields: Any) -> Action:
        """The action of a registered type with these fields, made once."""
        key = (type_name, *fields)
        found = self.misc.get(key)
        if found is None:
            maker: Any = self.events.get(type_name)
            if maker is None:
                maker = self.events[type_name] = self.ruleset.registry.events[type_name]
            made: Action = maker(*fields)
            self.misc[key] = made
            return made
        return found

    def road(self, seat: int, piece: int, here: int) -> _Road:
        """The road ahead of ``piece`` at ``here`` up to the next inn, the decider
        ``seat``: where its spaces' bits are in :attr:`FastGame.taken` (shift, mask), its
        inn and the width of the spaces' bits, then per position its slots (0: an inn),
        what may forbid a stop there (:meth:`stop_check`) and the move to each slot;
        last, the legal moves found so far by key. Made once per seat, piece and
        position."""
        road = []
        inn = self.next_inn[here]
        for q in range(here + 1, inn + 1):
            n = self.slots[q]
            moves = tuple(Move(seat, piece, q, s) for s in range(n or self.pieces))
            road.append((q, n, self.stop_check(q), moves))
        width = 2 * (inn - here - 1)
        found: _Road = (2 * (here + 1), (1 << width) - 1, inn, width, tuple(road), {})
        self.roads[(seat * 8 + piece) * 64 + here] = found
        return found


_Tables = FastTables  # the name the view tests know


_TABLES: weakref.WeakKeyDictionary[Ruleset, dict[int, FastTables]] = (
    weakref.WeakKeyDictionary())
_DEFAULT: list[Ruleset] = []


def _tables(ruleset: Ruleset, players: int) -> FastTables:
    by_players = _TABLES.get(ruleset)
    if by_players is None:
        if not isinstance(ruleset, Ruleset):
            raise NotCoveredError(f"{ruleset!r} is not a Ruleset")
        why, _ = _checked(ruleset)
        if why is not None:
            raise NotCoveredError(f"the fast simulator does not cover the ruleset "
                                  f"{list(ruleset.ids)}: {why} (see why_not_covered())")
        by_players = _TABLES[ruleset] = {}
    found = by_players.get(players)
    if found is None:
        _, (rules, game_class, tables_class) = _checked(ruleset)
        found = by_players[players] = tables_class(ruleset, players, rules, game_class)
    return found


def _ruleset(plugins: Ruleset | Iterable[str | object],
             options: Mapping[str, object] | None) -> Ruleset:
    """The ruleset of :meth:`FastGame.new`'s arguments, as :func:`new_game` builds it
    (the default plugins without options are built once and shared)."""
    if isinstance(plugins, Ruleset):
        if options:
            from .errors import SetupError

            raise SetupError("options belong to the Ruleset when a Ruleset is passed")
        return plugins
    plugins = tuple(plugins)
    if plugins == ("base",) and not options:
        if not _DEFAULT:
            _DEFAULT.append(Ruleset.build(plugins))
        return _DEFAULT[0]
    return Ruleset.build(plugins, options)


_MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
_LANES: dict[tuple[int, ...], tuple[int, tuple[int, ...], int, int]] = {}


def _lanes(counts: tuple[int, ...]) -> tuple[int, tuple[int, ...], int, int]:
    """The constants of :func:`_setup_shuffles` for shuffles of ``counts`` draws: one
    128-bit lane per draw, holding the draw's offset ``_GOLDEN * (draw + 1)``; per
    shuffle, a 1 in each of its lanes; a 64-bit mask in every lane; the bytes."""
    offsets = ones_all = 0
    ones = []
    lane = 0
    for count in counts:
        ones_here = 0
        for draw in range(count):
            offsets |= ((_GOLDEN * (draw + 1)) & _MASK) << (128 * lane)
            ones_here |= 1 << (128 * lane)
            lane += 1
        ones.append(ones_here)
        ones_all |= ones_here
    found = _LANES[counts] = (offsets, tuple(ones), ones_all * _MASK, 16 * lane)
    return found


def _setup_shuffles(jobs: list[tuple[int, list[int]]]) -> None:
    """Shuffle each list of ``jobs`` in place as :func:`tokaido_rules.chance.shuffle`
    does with the stream of its event (``(stream, items)``), draws from 0: the same
    numbers, but the hashes of every draw of every shuffle computed at once, as lanes of
    one big integer (a 128-bit lane holds each 64-bit value and its products with the
    finaliser's 64-bit multipliers, so lanes never carry into each other). The setup's
    shuffles are most of the cost of a game's start otherwise."""
    counts = tuple(len(items) - 1 for _, items in jobs)
    found = _LANES.get(counts)
    if found is None:
        found = _lanes(counts)
    offsets, ones, mask, size = found
    z = offsets
    for (stream, _), lanes in zip(jobs, ones, strict=True):
        z += stream * lanes
    z &= mask
    z = ((z ^ (z >> 30 & mask)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27 & mask)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31 & mask
    hashes = memoryview(z.to_bytes(size, "little")).cast("Q")[::2].tolist()
    k = 0
    for _, items in jobs:
        for i in range(len(items) - 1, 0, -1):
            j = (hashes[k] * (i + 1)) >> 64
            items[i], items[j] = items[j], items[i]
            k += 1


class FastGame:
    """A game with mutable flat internals, exact to the reference engine: the kernel,
    which the game class of a ruleset extends (its plugins' rules).

    Make one with :meth:`new`. :attr:`current_player` decides among
    :meth:`legal_actions` (the reference engine's action objects, in its order);
    :meth:`apply` applies one in place (validated: anything else raises
    :class:`~tokaido_rules.IllegalActionError`, as the reference does, and leaves the game
    unchanged). :meth:`to_game` rebuilds the reference :class:`~tokaido_rules.Game`.
    """

    __slots__ = (
        "T",
        "_chronicle",
        "_decisions",
        "_legal",
        "_replica",
        "_step",
        "agenda",
        "asks",
        "automatic",
        "chances",
        "coins",
        "done",
        "given",
        "hooked",
        "is_over",
        "occ",
        "order",
        "pos",
        "score",
        "seat",
        "seed",
        "seq",
        "setup",
        "slot",
        "taken",
        "trav",
    )

    T: FastTables
    seed: int
    chances: dict[str, int] | None
    """``None`` under event keying; under purpose keying, how many chance events of each
    purpose came so far (the reference state's ``chances``), counted by :meth:`_chance`."""
    setup: Setup | None
    given: tuple[str, ...] | None
    is_over: bool
    """Whether the journey has ended (a plain attribute: read at every decision)."""
    automatic: int
    """How many decisions the engine has taken alone (one answer every seat can see):
    with :attr:`decisions`, the decision events of the reference log
    (:func:`~tokaido_rules.simulate.decision_count` is ``len(decisions) + automatic``)."""
    _step: Step | None
    _legal: tuple[Action, ...] | None
    _chronicle: _Chronicle | None
    """What views need beyond the flat state, recorded as the game plays (a
    :class:`ViewableGame`); ``None``: nothing is recorded."""
    _replica: FastGame | None
    """A plain game's recording twin, which replays its decisions for its views."""
    done: list[int]
    """Per traveller, the bits of what bars its stops (:meth:`FastTables.stop_check`)."""
    hooked: bool
    """Whether a card gained is recorded or reacted to (:meth:`_recorded_gain`): a
    recording game, or an additive plugin reacting to cards gained."""
    asks: bool
    """Whether the game class may ask even a lone answer (:meth:`_asks_anyway`): set by
    its ``_deal`` (an instance attribute, not a class one, which compiled code would not
    see overridden in an interpreted subclass)."""

    def __init__(self) -> None:
        """An empty game, for :meth:`new` and :meth:`clone` to fill (a plain ``__init__``
        keeps the class compilable by mypyc)."""

    # --- making a game -----------------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int = 0,
            plugins: Ruleset | Iterable[str | object] = ("base",),
            travellers: Sequence[str] | None = None,
            options: Mapping[str, object] | None = None,
            setup: Setup | None = None, *, chance: str | None = None) -> FastGame:
        """The game :func:`~tokaido_rules.new_game` makes with the same arguments, at its
        first decision, of the ruleset's game class. Bad input raises the same errors; a
        ruleset the simulator does not cover (:func:`why_not_covered`) or a setup that
        scripts chance outcomes (``Setup.chance``) raises :class:`NotCoveredError`."""
        return _make_game(players, seed, plugins, travellers, options, setup, False,
                          chance)

    def _made(self, players: int, seed: int, ruleset: Ruleset,
              travellers: Sequence[str] | None, setup: Setup | None, T: FastTables | None,
              record: bool) -> FastGame:
        """:meth:`new`'s work on an empty game of the ruleset's game class (an instance
        method rather than ``super()`` in a class method, which mypyc does not
        compile)."""
        game = self
        if T is not None:
            if travellers is None:
                game._start(T, seed, None, None, record)
                return game
            names = tuple(travellers)
            index = T.traveller_index
            if len(names) == players and len(set(names)) == players and all(
                    name in index for name in names) and T.takes_travellers:
                game._start(T, seed, names, None, record)
                return game
        setup = setup or Setup()
        if travellers is not None:
            if setup.travellers is not None:
                from .errors import SetupError

                raise SetupError("travellers given twice (argument and setup)")
            setup = attrs.evolve(setup, travellers=travellers)
        make_rules(ruleset, players, setup)  # the reference's checks, and its errors
        T = _tables(ruleset, players)
        if not T.takes_travellers and setup.travellers is not None:  # the reference refuses
            new_game(players, seed=seed, plugins=ruleset, setup=setup)  # raises its error
            raise AssertionError("the reference engine takes travellers here")
        if setup.chance:
            raise NotCoveredError("the fast simulator does not take scripted chance "
                                  "outcomes (Setup.chance): use the reference engine")
        game._start(T, seed, setup.travellers, setup, record)
        return game

    def _start(self, T: FastTables, seed: int, travellers: tuple[str, ...] | None,
               setup: Setup | None, record: bool) -> None:
        """The setup of ``new_game``: decks, the queue, the travellers (given, or as the
        game class's setup hands them out), up to the first decision. ``setup`` is
        ``None`` for the default one, with ``travellers`` or not."""
        self.T = T
        self.seed = seed
        self.setup = setup
        self.given = travellers
        self._chronicle = None
        self._replica = None
        n = T.pieces
        self.seq = 0
        self.is_over = False
        self.automatic = 0
        self.pos = [0] * n
        self.slot = [0] * n
        self.coins = [0] * n
        self.trav = [-1] * n
        self.seat: list[int | None] = [i if i < T.players else None for i in range(n)]
        self.score = [[0] * T.score_width for _ in range(n)]
        self.occ = [0] * (T.end + 1)
        self.taken = 0
        self.done = [0] * n
        self.agenda: list[Step] = []
        self._decisions: list[Action] = []
        self.asks = False
        decks = [list(cards) for _, cards, _ in T.decks]
        queue = list(range(n)) if setup is None or setup.queue is None else list(setup.queue)
        # every shuffle of the setup at once (the same draws as chance.shuffle)
        if setup is None or setup.keying != PURPOSE:
            self.chances = None
            jobs = [(event_stream(seed, i), deck) for i, deck in enumerate(decks)
                    if T.decks[i][2] and len(deck) > 1]
            if (setup is None or setup.queue is None) and n > 1:
                jobs.append((event_stream(seed, len(decks)), queue))
        else:  # every deck set and the queue set count once for their purpose
            chances = self.chances = {"queue": 1}
            jobs = []
            for (zone, _, shuffled), deck in zip(T.decks, decks, strict=True):
                if shuffled:
                    chances["shuffle." + zone] = 1
                    if len(deck) > 1:
                        jobs.append((purpose_stream(seed, "shuffle." + zone, 0), deck))
            if setup.queue is None and n > 1:
                jobs.append((purpose_stream(seed, "queue", 0), queue))
        _setup_shuffles(jobs)
        if setup is not None and setup.stacks:
            for (zone, _, _), deck in zip(T.decks, decks, strict=True):
                top = setup.stacks.get(zone)
                if top:
                    stacked = [T.code[c] for c in top]
                    for c in stacked:
                        deck.remove(c)
                    deck[:0] = stacked
        self._deal(decks)
        if record:
            V = T.view_tables
            if V is None:
                V = self._view_tables()
            if V.direct:
                self._chronicle = _Chronicle(V, setup)
        self.hooked = self._chronicle is not None or bool(T.gainers)
        self.seq = len(decks) + 1  # a deck set per deck, the queue set
        for rules in T.dealers:
            rules.deal(self)
        for slot, piece in enumerate(queue):
            self.slot[piece] = slot
        self.order = [-self.slot[i] for i in range(n)]
        self.occ[0] = n
        working: list[Step] = []
        if travellers is not None:
            for seat, name in enumerate(travellers):
                self._set_traveller(seat, T.traveller_index[name])
        else:
            working = self._setup_steps()
        if setup is not None and setup.coins:
            working.append(_START_COINS)
        for rules in T.setups:
            rules.setup(self, working)
        self._run(working)

    def _deal(self, decks: list[list[int]]) -> None:
        """The game classes' state at the setup: the decks they keep (top first, in the
        order of ``T.decks``, shuffled)."""

    def _setup_steps(self) -> list[Step]:
        """The setup steps that hand out the travellers (none given), by the game class."""
        return []

    def _chance(self, purpose: str) -> int:
        """The stream of the draws of the chance event about to be counted, drawn for
        ``purpose`` (the reference event's ``chance_purpose()``): keyed by the event count
        under event keying, by the purpose and its count under purpose keying (counted
        here, once per chance event). The one place the fast engine keys chance; call it
        once per chance event that draws, as the reference draws. An event that draws for
        several purposes calls it once per purpose and numbers each stream's draws itself:
        draws for A, then B, then A again go on with A's stream where they stopped (as
        :meth:`Context._start_draws <tokaido_rules.Context>` does), never calling this a
        second time for A (that would count A twice)."""
        chances = self.chances
        if chances is None:
            return event_stream(self.seed, self.seq)
        count = chances.get(purpose, 0)
        chances[purpose] = count + 1
        return purpose_stream(self.seed, purpose, count)

    def _add_points(self, piece: int, category: int, points: int) -> None:
        """``points`` more in ``piece``'s score row at ``category`` (no event counted:
        the caller counts it). The row is replaced by a changed copy, never changed in
        place, so that copies of the game share the rows (:meth:`clone` copies only the
        list of rows): every fast rule that scores goes through here."""
        row = self.score[piece][:]
        row[category] += points
        self.score[piece] = row

    def _set_traveller(self, seat: int, code: int) -> None:
        trav = self.trav[:]  # replaced, never changed in place: copies share it (clone)
        trav[seat] = code
        self.trav = trav
        self.seq += 1
        coins = self.T.traveller_coins[code]
        if coins:
            self.coins[seat] += coins
            self.seq += 1

    # --- reading -------------------------------------------------------------------------
    @property
    def ruleset(self) -> Ruleset:
        return self.T.ruleset

    @property
    def players(self) -> int:
        return self.T.players

    @property
    def current_player(self) -> int | None:
        """The seat whose decision it is; ``None`` when the game is over."""
        step = self._step
        return None if step is None else step[2]

    @property
    def current_kind(self) -> str | None:
        """The reference's step kind of the decision now (``Game.current_step.kind``,
        e.g. ``"core.move"``); ``None`` when the game is over."""
        step = self._step
        return None if step is None else self.T.kind_names[step[0]]

    @property
    def decisions(self) -> tuple[Action, ...]:
        """The actions applied so far, in order (the decisions the engine took alone are
        not among them, as in :func:`~tokaido_rules.decisions`)."""
        return tuple(self._decisions)

    @property
    def state_seq(self) -> int:
        """The sequence number the reference game's state has at this point (its count
        of events): what ``expected_seq`` is compared with."""
        return self.seq

    @property
    def records_views(self) -> bool:
        """Whether the game records what its views need as it plays (a
        :class:`ViewableGame`'s games do), so that :meth:`view` needs no replay."""
        return self._chronicle is not None

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions: the tuple :meth:`Game.legal_actions` gives at this point
        (empty only when the game is over)."""
        legal = self._legal
        if legal is None:
            step = self._step
            if step is None:
                legal = ()
            elif step[0] == D_MOVE:
                legal = self._moves(step[1], step[2])  # type: ignore[arg-type]
            else:
                legal = self._legal_for(step)
            self._legal = legal
        return legal

    def _tiebreak(self, piece: int) -> int:
        """What breaks a tie for first place (``tokaido_tiebreak``), by the game class."""
        return 0

    def scores(self) -> tuple[Score, ...]:
        """Per seat: total, points by category, tie-break, rank (as :meth:`Game.scores`)."""
        T = self.T
        rows = []
        for i in range(T.players):
            own = self.score[i]
            by_name = dict.fromkeys(T.categories, 0)
            for k, name in T.category_slots:
                by_name[name] = own[k]
            traveller = None if self.trav[i] < 0 else T.traveller_names[self.trav[i]]
            rows.append((i, traveller, sum(own), FrozenMap(by_name), self._tiebreak(i)))
        keys = [(r[2], r[4]) for r in rows]
        return tuple(Score(*r, rank=1 + sum(1 for k in keys if k > (r[2], r[4])))
                     for r in rows)

    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several in a shared victory)."""
        return tuple(s.seat for s in self.scores() if s.rank == 1)

    def to_game(self) -> Game:
        """The reference game at this point: the decisions replayed through
        :func:`~tokaido_rules.new_game` and :meth:`Game.apply` (slow: a replay)."""
        if self.setup is None:
            game = new_game(self.T.players, seed=self.seed, plugins=self.T.ruleset,
                            travellers=self.given)
        else:
            game = new_game(self.T.players, seed=self.seed, plugins=self.T.ruleset,
                            setup=self.setup)
        for action in self._decisions:
            game = game.apply(action)
        return game

    def view(self, seat: object) -> View:
        """What ``seat`` (an ``int``) may see now (``None``: the public view), the very view
        :meth:`Game.view` of :meth:`to_game` gives: built straight from the flat state for
        the rulesets whose fast rules say how (:func:`views_direct`), else from
        :meth:`to_game` (slow: a replay of the game). Anything but a seat of the game
        (``True``, ``"0"``, ``1.0`` included) raises
        :class:`~tokaido_rules.views.UnknownSeatError`, as the reference does: the
        parameter is typed ``object`` so that the compiled build checks it here rather
        than refusing it with its own ``TypeError`` at the call."""
        players = self.T.players
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise UnknownSeatError(f"no seat {seat!r} in a {players}-player game")
        checked: int | None = seat if seat is None or isinstance(seat, int) else None
        V = self.T.view_tables
        if V is None:
            V = self._view_tables()
        if not V.direct:
            return self.to_game().view(checked)
        return self._direct_view(V, checked)

    # --- a game at a given state (from_state) -------------------------------------------
    def _load_state(self, state: StateLike) -> None:
        """Load the game classes' part of ``state`` (:func:`from_state` has loaded the
        kernel's): a game class that keeps state of its own defines it (and
        :func:`why_not_loadable` refuses a class of the chain that does not)."""

    def _load_data(self, data: Mapping[str, Any]) -> None:
        """Load what the game classes read of the state's data (after
        :meth:`_load_state`, and on a :meth:`completion`, from the data its seat's view
        shows): a game class whose state holds data values defines it."""

    def _step_data(self, V: ViewTables, kind: int, step: Any) -> int:
        """The data of the fast step of kind ``kind`` whose reference step is ``step``
        (the inverse of :meth:`_step_values`): a card's effect, its card; a step whose
        reference carries no values, 0 (a game class overrides it for its own kinds
        that carry some)."""
        if kind in V.effects:
            return self.T.code[step.data["card"]]
        if step.data:
            raise NotCoveredError(f"the fast simulator does not read back the step "
                                  f"{step.kind!r} with data {dict(step.data)!r}")
        return 0

    # --- views straight from the flat state (FastGame.view) ---------------------------------
    # A view shows what the flat state does not keep: each collection in the order it was
    # acquired, and the order in which zones, data keys, score categories and counters
    # first appeared (a reference state's mappings keep their insertion order). A
    # ViewableGame's games keep those as they play; a plain game has one replay its
    # decisions (a recording game of its own, brought up to date at each view: the cost of
    # a fast apply per decision, paid only by games that are viewed). What is where in the
    # flat state (which zones, counters and data keys a ruleset has) is each plugin's to
    # say: the game classes' _fill_view_tables, the additive plugins' FastRules.fill_view.

    def _view_tables(self) -> ViewTables:
        """The tables of the direct view of this game's ruleset and player count, made
        once (``direct`` false: the views replay). If every plugin's fast rules say the
        views know its content, the game classes fill them (:meth:`_fill_view_tables`),
        then each additive plugin (:meth:`FastRules.fill_view`), and the kernel checks
        what they filled (:meth:`ViewTables.finish`)."""
        T = self.T
        V = ViewTables(T)
        T.view_tables = V
        if T.views:
            V.effects = frozenset(k for k in T.effect if k >= 0)
            V.categories = tuple(sorted(T.category_index, key=T.category_index.__getitem__))
            V.direct = (self._fill_view_tables(V)
                        and all(r.fill_view(self, V) for _, r in T.rules if r.game is None)
                        and V.finish())
        return V

    def _fill_view_tables(self, V: ViewTables) -> bool:
        """Fill ``V`` with the game classes' part (zones, data keys, counters); whether
        they know this ruleset's views."""
        return False

    def _step_values(self, V: ViewTables, step: Step) -> dict[str, Any]:
        """The values of the reference step of ``step``: a card's effect names the card;
        an additive plugin's step, what its fast rules say (a game class overrides it for
        its own kinds)."""
        kind = step[0]
        if kind in V.effects:
            return {"card": self.T.names[step[3]]}
        rules = self.T.additive.get(kind)
        if rules is not None:
            return rules.step_values(self, V, step)
        return {}

    def _note_zone(self, name: str) -> None:
        """Zone ``name`` holds cards now, if only for a moment (a recording game notes it:
        a zone, once made, stays among the state's zones); nothing for a plain game."""
        book = self._chronicle
        if book is not None:
            book.fill(book.tables.zone_index[name])

    def _note_data(self, name: str, value: Any = None) -> None:
        """Data key ``name`` is set (a recording game notes it, with ``value`` if its
        view part reads none from the flat state); nothing for a plain game."""
        book = self._chronicle
        if book is not None:
            code = book.tables.data_index[name]
            book.note(code)
            if book.tables.data_value[code] is None:
                book.values[code] = value

    def _recorded_zone(self, name: str) -> list[int] | None:
        """The cards of zone ``name``, which only the records hold (``FROM_RECORD``), to
        change in place (it is noted as filled); ``None`` for a plain game."""
        book = self._chronicle
        if book is None:
            return None
        code = book.tables.zone_index[name]
        book.fill(code)
        cards = book.kept.get(code)
        if cards is None:
            cards = book.kept[code] = []
        return cards

    def _chronicle_now(self) -> _Chronicle:
        """The records of this game's history up to now (see :class:`ViewableGame`)."""
        book = self._chronicle
        if book is not None:
            return book
        replica = self._replica
        if replica is None:
            T = self.T
            if self.setup is None:
                replica = ViewableGame.new(T.players, self.seed, T.ruleset, self.given)
            else:
                replica = ViewableGame.new(T.players, self.seed, T.ruleset, setup=self.setup)
            self._replica = replica
        mine = self._decisions
        for action in mine[len(replica._decisions):]:
            replica.apply(action)
        found = replica._chronicle
        assert found is not None
        return found

    def _direct_view(self, V: ViewTables, seat: int | None) -> View:
        """The view of ``seat`` (``None``: the public one), made as
        :func:`~tokaido_rules.views.make_view` makes it from the reference state."""
        T = self.T
        book = self._chronicle_now()
        last = book.last_view
        if last is not None and last[0] == self.seq and last[1] == seat:
            return last[2]
        common = book.common
        if common is None or common[0] != self.seq:
            common = book.common = self._view_common(V, book)
        _, pieces, zones, sizes = common
        shown: dict[str, tuple[str, ...]] = {}
        hidden: dict[str, tuple[str, ...]] = {}
        asked_shown: dict[str, tuple[str, ...]] = {}
        asked_hidden: dict[str, tuple[str, ...]] = {}
        for code, name, content, rule, owner in zones:
            if rule == SHOWN:
                shown[name] = content
                continue
            if rule == HIDDEN:
                hidden[name] = content
                continue
            if rule == OWNER:
                seen = seat is not None and self.seat[owner] == seat
            else:  # a rule of a plugin's own
                seen = V.zone_seen[code](self, seat)
            if seen:
                asked_shown[name] = content
            else:
                asked_hidden[name] = content
        shown.update(asked_shown)
        hidden.update(asked_hidden)
        data = self._view_data(V, book, seat)
        step = self._step
        current = None if step is None else V.steps.get(step) or V.step(self, step)
        player = None if step is None else step[2]
        steps = V.steps
        view = _new(View)
        _set(view, "__dict__", {
            "seat": seat, "players": T.players, "seq": self.seq, "turn": book.turn,
            "over": self.is_over, "pieces": pieces, "zones": FrozenMap(shown),
            "zone_sizes": sizes,
            "hidden_backs": _hidden_backs(T.ruleset.registry, hidden) if hidden else EMPTY,
            "data": FrozenMap(data),
            "agenda": tuple([steps.get(s) or V.step(self, s) for s in self.agenda]),
            "current_player": player, "current_step": current,
            "legal_actions": self.legal_actions() if seat is not None and player == seat
            else (),
            "ruleset": T.ruleset,
        })
        book.last_view = (self.seq, seat, view)
        return view

    def _view_data(self, V: ViewTables, book: _Chronicle, seat: int | None) -> dict[str, Any]:
        """The data keys and values the view of ``seat`` shows, in the view's order."""
        data: dict[str, Any] = {}
        asked_data: dict[str, Any] = {}
        if book.data_order:
            data_rule, data_owner, data_value = V.data_rule, V.data_owner, V.data_value
            for code in book.data_order:
                rule = data_rule[code]
                if rule == SHOWN:
                    into = data
                elif rule == OWNER and seat is not None and self.seat[data_owner[code]] == seat:
                    into = asked_data
                else:
                    continue
                value = data_value[code]
                into[V.data_names[code]] = (book.values[code] if value is None
                                            else value(self, book, V.data_argument[code]))
            if asked_data:
                data.update(asked_data)
        return data

    def _view_common(self, V: ViewTables, book: _Chronicle) -> _Common:
        """What every seat's view shows alike at this point: the pieces, and every zone in
        the state's order with its cards, who may see them and how many there are. A
        zone's cards are named again only when they changed since the last view."""
        T = self.T
        categories = V.categories
        pieces = []
        for i in range(T.pieces):
            own = self.score[i]
            counters: dict[str, int] = {}
            for k in book.counter_order[i]:
                counters[V.counters[k]] = V.counter_value[k](self, book, i)
            trav = self.trav[i]
            piece = _new(Piece)
            _set(piece, "__dict__", {
                "seat": self.seat[i],
                "traveller": None if trav < 0 else T.traveller_names[trav],
                "coins": self.coins[i], "position": self.pos[i], "slot": self.slot[i],
                "score": FrozenMap({categories[k]: own[k] for k in book.score_order[i]}),
                "counters": FrozenMap(counters)})
            pieces.append(piece)
        by_name = T.names.__getitem__
        named = book.named
        zones = []
        sizes: dict[str, int] = {}
        source = V.source
        for code in (*V.deck_codes, *book.zones):
            how, where = source[code]
            if how == FROM_GAME:
                cards = getattr(self, where)
            elif how == FROM_PIECES:
                attribute, piece_ = where
                cards = getattr(self, attribute)[piece_]
            elif how == FROM_COLLECTION:
                cards = book.collections[where]
            elif how == FROM_SUPPLY:
                cards = book.supplies[where]
            else:
                cards = book.kept.get(code, ())
            codes = tuple(cards)
            kept = named.get(code)
            if kept is not None and kept[0] == codes:
                content = kept[1]
            else:
                content = tuple(map(by_name, codes))
                named[code] = (codes, content)
            name = V.zone_names[code]
            sizes[name] = len(codes)
            zones.append((code, name, content, V.zone_rule[code], V.zone_owner[code]))
        return self.seq, tuple(pieces), zones, FrozenMap(sizes)

    # --- a sampled completion of a seat's view, from the flat state ----------------------
    @property
    def completes(self) -> bool:
        """Whether :meth:`completion` makes the completions of this game's views: a game
        that records them (:class:`ViewableGame`), of a ruleset whose states the engine
        loads, whose game classes load their data apart (``_load_data``) and whose
        hidden zones the flat state keeps."""
        T = self.T
        V = T.view_tables
        if self._chronicle is None or V is None or not V.direct:
            return False
        census = T.census
        if census is None:
            census = T.census = _Census(T, V)
        return census.usable

    def completion(self, seat: int, seed: int) -> FastGame | None:
        """The completion of ``seat``'s view that a sampling bot looks ahead on, made
        from the flat state: the plain fast game that
        :func:`~tokaido_rules.bots.determinize_fast` makes of ``self.view(seat)`` with
        ``seed`` (every zone the seat may not see dealt again from the cards it does not
        see, the data it may not see left out, no history), without the view, the
        card names or a load. ``None`` where it cannot be made so: a game that records
        no views (:class:`ViewableGame`), a ruleset whose states the engine does not load
        (:func:`why_not_loadable`) or whose game classes do not load data
        (``_load_data``), a hidden zone the flat state does not keep. What is dealt
        depends on nothing the seat may not see (the tests compare it with the view's
        completion at every decision)."""
        if not self.completes or self._step is None:
            return None
        book = self._chronicle
        T = self.T
        V = T.view_tables
        census = T.census
        assert book is not None and V is not None and census is not None
        seen = [0] * len(T.names)
        hidden: list[tuple[str, int, list[int]]] = []
        source = V.source
        for code in (*V.deck_codes, *book.zones):
            how, where = source[code]
            rule = V.zone_rule[code]
            if rule == SHOWN:
                shown = True
            elif rule == HIDDEN:
                shown = False
            elif rule == OWNER:
                shown = self.seat[V.zone_owner[code]] == seat
            else:
                shown = V.zone_seen[code](self, seat)
            if how == FROM_GAME:
                cards: list[int] = getattr(self, where)
            elif how == FROM_PIECES:
                cards = getattr(self, where[0])[where[1]]
            elif how == FROM_COLLECTION:
                cards = book.collections[where]
            elif how == FROM_SUPPLY:
                cards = book.supplies[where]
            else:
                cards = book.kept.get(code, [])
            if shown:
                for card in cards:
                    seen[card] += 1
            else:
                hidden.append((V.zone_names[code], code, cards))
        pools: list[list[int]] = [[] for _ in census.homes]
        order: list[list[int]] = []
        for card, home, copies in census.cards:
            left = copies - seen[card]
            if left > 0:
                pool = pools[home]
                if not pool:
                    order.append(pool)
                if left == 1:
                    pool.append(card)
                else:
                    pool.extend([card] * left)
        shuffle_pools(order, event_stream(seed, 0))
        data = self._view_data(V, book, seat)
        decisions = self._decisions
        self._chronicle = None  # not copied: a completion has no history
        self._decisions = []
        try:
            game = self.clone()
        finally:
            self._chronicle = book
            self._decisions = decisions
        game.seed = seed
        game.chances = None  # keyed by event, as the view's completion is (determinize)
        game.setup = None
        game.given = None
        game.automatic = 0
        game.hooked = bool(T.gainers)
        taken = [0] * len(census.homes)
        home_of = census.home_of
        hidden.sort()
        for _, code, cards in hidden:
            dealt: list[int] = []
            if cards:
                first = home_of[cards[0]]
                alike = True
                for card in cards:
                    if home_of[card] != first:
                        alike = False
                        break
                if alike:  # a deck of its own cards: one slice of its pool
                    start = taken[first]
                    dealt = pools[first][start:start + len(cards)]
                    taken[first] = start + len(cards)
                else:  # from each home in turn, as many as it holds of each
                    counts: dict[int, int] = {}
                    for card in cards:
                        home = home_of[card]
                        counts[home] = counts.get(home, 0) + 1
                    for home in sorted(counts):
                        start = taken[home]
                        dealt += pools[home][start:start + counts[home]]
                        taken[home] = start + counts[home]
            how, where = source[code]
            if how == FROM_GAME:
                setattr(game, where, dealt)
            else:
                getattr(game, where[0])[where[1]] = dealt
        game._load_data(data)
        return game

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} players={self.T.players} seq={self.seq} "
                f"current_player={self.current_player} over={self.is_over}>")

    # --- copying -------------------------------------------------------------------------
    def clone(self) -> FastGame:
        """An independent copy: applying actions to one never changes the other."""
        new = type(self)()
        new.T = self.T
        new.seed = self.seed
        chances = self.chances
        new.chances = None if chances is None else dict(chances)
        new.setup = self.setup
        new.given = self.given
        new.seq = self.seq
        new.is_over = self.is_over
        new.automatic = self.automatic
        new.pos = self.pos[:]
        new.order = self.order[:]
        new.slot = self.slot[:]
        new.coins = self.coins[:]
        new.trav = self.trav  # replaced, never changed in place (_set_traveller)
        new.seat = self.seat
        new.score = self.score[:]  # rows replaced, never changed in place (_add_points)
        new.occ = self.occ[:]
        new.taken = self.taken
        new.done = self.done[:]
        new.agenda = self.agenda[:]
        new.asks = self.asks
        new.hooked = self.hooked
        new._step = self._step
        new._legal = self._legal
        new._decisions = self._decisions[:]
        book = self._chronicle
        new._chronicle = None if book is None else book.copy()
        new._replica = None
        return new

    # --- acting --------------------------------------------------------------------------
    def applied(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        """A copy of the game after ``action``; this game is unchanged (as
        :meth:`Game.apply`, at the cost of a :meth:`clone`)."""
        return self.clone().apply(action, expected_seq=expected_seq)

    def apply(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        """Apply ``action`` in place and return this game. An action that is not legal
        now raises the :class:`~tokaido_rules.IllegalActionError` the reference engine
        raises, with its message, and changes nothing; ``expected_seq`` as in
        :meth:`Game.apply` (:class:`~tokaido_rules.StaleActionError`)."""
        if expected_seq is not None and expected_seq != self.seq:
            raise StaleActionError(
                f"the action was sent at seq {expected_seq}; the game is at seq {self.seq}")
        step = self._step
        if step is None:
            raise IllegalActionError("the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._legal_for(step)
        for index, candidate in enumerate(legal):  # usually the very object offered  # noqa: B007
            if candidate is action:
                break
        else:
            index = self._matching(legal, action)
        chosen = legal[index]
        self._decisions.append(chosen)
        self.seq += 1  # the action's event; it answers the first step of the agenda
        new: list[Step] = []
        if step[0] == D_MOVE:  # the agenda is empty
            self._move(step[1], chosen.position, chosen.slot, new)  # type: ignore[attr-defined]
        else:
            agenda = self.agenda
            if agenda:
                del agenda[0]
            self._resolve(step, chosen, index, new)
            new.extend(agenda)
        self._run(new)
        return self

    def _matching(self, legal: tuple[Action, ...], action: object) -> int:
        """The index of the legal action equal to ``action`` (of the same shape: no
        ``2.0`` for ``2``); otherwise the reference engine decides, and raises its own
        error (slow: it replays the game first, which only a refused action costs)."""
        for index, candidate in enumerate(legal):
            if candidate == action and all(
                    type(getattr(candidate, name)) is type(getattr(action, name))
                    for name in field_names(type(candidate))):
                return index
        self.to_game().apply(action)  # type: ignore[arg-type]  # raises, saying why
        for index, candidate in enumerate(legal):  # the reference took it after all
            if candidate == action:
                return index
        raise AssertionError(f"the reference engine accepts {action!r}, which the fast "
                             "simulator does not offer")

    # --- the engine's loop, as the reference runs it ------------------------------------
    def _run(self, working: list[Step]) -> None:
        """Run steps until a decision with legal actions comes first (as the reference's
        ``_run``): a decision without any lapses; one with a single answer that the
        engine may take alone (an ``automatic`` step: :attr:`FastTables.auto`) is taken,
        after the agenda is written and an automatic marker; with nothing pending the
        rearmost traveller moves, or, everyone at the final inn, the game ends and is
        scored. The agenda is written (an event) wherever it differs from the
        reference's. A recording game (with :attr:`_chronicle`) records what the views
        need after the decision just applied, each step run and each decision taken
        alone."""
        recording = self._chronicle is not None
        if recording:
            self._note_decisions()
        legal: tuple[Action, ...] = ()
        pending: Step | None = None
        while True:
            while working:
                step = working[0]
                kind = step[0]
                if kind >= DECISION:
                    legal = self._legal_for(step)
                    if legal:
                        if len(legal) == 1 and (
                                (auto := self.T.auto[kind]) == 1
                                or (auto == 2 and self._lone(step))) and not (
                                self.asks and self._asks_anyway(step)):
                            if working != self.agenda:
                                self.seq += 1  # the agenda is written
                            self.seq += 2  # the automatic marker, then the action
                            self.automatic += 1
                            self.agenda = working[1:]
                            new: list[Step] = []
                            self._resolve(step, legal[0], 0, new)
                            if recording:
                                self._noticed(step[1])
                            del working[0]
                            if new:
                                working[:0] = new
                            continue
                        break
                    del working[0]  # nothing to decide: the decision lapses
                    continue
                del working[0]
                new = []
                self._run_step(step, new)
                if recording:
                    self._noticed(step[1])
                if new:
                    working[:0] = new
            if working or self.is_over:
                break
            pending = self._pending_move(working)
            if pending is not None:
                break
        self._settle(working, legal, pending)

    def _note_decisions(self) -> None:
        """A recording game's record of the decisions applied since its last run (the
        moves among them: the turn) and of what the last one made appear."""
        book = self._chronicle
        assert book is not None
        decisions = self._decisions
        for action in decisions[book.decided:]:  # the moves among the decisions applied
            if isinstance(action, Move):
                book.turn += 1
        book.decided = len(decisions)
        book.notice(self, -1)  # what the decision applied made appear

    def _noticed(self, piece: int) -> None:
        """What a step just run, or a decision taken alone, made appear (``piece``: whose
        step), in a recording game's record."""
        book = self._chronicle
        if book is not None:
            book.notice(self, piece)

    def _pending_move(self, working: list[Step]) -> Step | None:
        """With nothing pending, the rearmost traveller's move; ``None`` when everyone
        has arrived, the end steps then added to ``working``. The seated traveller
        furthest ahead decides the neutral traveller's. Travellers are ordered by
        ``order``, ``position * 8 - slot`` (a later arrival is further back), which no
        two share."""
        order = self.order
        rearmost = min(order)
        if rearmost < self.T.end * 8 - 7:
            piece = order.index(rearmost)
            seat = self.seat[piece]
            if seat is None:
                seated = order[:self.T.players]
                seat = seated.index(max(seated))
            return _MOVES[piece][seat]
        working.extend(self.T.end_steps)
        return None

    def _settle(self, working: list[Step], legal: tuple[Action, ...],
                pending: Step | None) -> None:
        """The end of a run: the agenda written (an event) where it differs from the
        reference's, and the decision now (the agenda's first step, with its ``legal``
        actions, else the ``pending`` move; none: the game is over)."""
        if working != self.agenda:
            self.seq += 1
            self.agenda = working
        if working:
            self._step = working[0]
            self._legal = legal
        else:
            self._step = pending
            self._legal = None if pending is not None else ()

    def _lone(self, step: Step) -> bool:
        """Whether the lone answer of ``step`` (automatic code 2) is taken alone."""
        return False

    def _asks_anyway(self, step: Step) -> bool:
        """Whether even a lone answer of ``step`` is asked (with :attr:`asks`)."""
        return False

    # --- dispatch by step kind: the game class's if-chains, then the additive plugins ----
    def _legal_for(self, step: Step) -> tuple[Action, ...]:
        """The legal actions of a decision (not a move): the game class's kinds, else
        the additive plugin's that numbered it."""
        return self._legal_more(step)

    def _resolve(self, step: Step, action: Any, index: int, new: list[Step]) -> None:
        """Carry out ``action``, the answer to ``step`` (its event counted); steps it
        schedules go to ``new``."""
        if step[0] == D_MOVE:
            self._move(step[1], action.position, action.slot, new)
            return
        self._resolve_more(step, action, new)

    def _run_step(self, step: Step, new: list[Step]) -> None:
        """Run a step; steps it schedules go to ``new``."""
        self._run_more(step, new)

    def _legal_more(self, step: Step) -> tuple[Action, ...]:
        """The legal actions of a decision the game class does not know: an additive
        plugin's (a game class's if-chain ends here, or in its parent's)."""
        rules = self.T.additive.get(step[0])
        if rules is None:
            raise AssertionError(f"no decision of kind {step[0]}")
        return rules.legal(self, step)

    def _resolve_more(self, step: Step, action: Any, new: list[Step]) -> None:
        """Carry out the answer to a decision the game class does not know."""
        rules = self.T.additive.get(step[0])
        if rules is None:
            raise AssertionError(f"no decision of kind {step[0]}")
        rules.resolve(self, step, action, new)

    def _run_more(self, step: Step, new: list[Step]) -> None:
        """Run a step the game class does not know: the core's, or an additive
        plugin's."""
        kind = step[0]
        if kind == K_START_COINS:
            self._start_coins()
            return
        if kind == K_GAME_OVER:
            self.is_over = True
            self.seq += 1
            return
        rules = self.T.additive.get(kind)
        if rules is None:
            raise AssertionError(f"no step of kind {kind}")
        rules.run(self, step, new)

    def _start_coins(self) -> None:
        """The coins a setup gives (``core.start_coins``)."""
        assert self.setup is not None
        for seat_, coins in self.setup.coins.items():
            if coins != self.coins[seat_]:
                self.coins[seat_] = coins
                self.seq += 1

    # --- the move rule ---------------------------------------------------------------------
    def _moves(self, piece: int, seat: int) -> tuple[Action, ...]:
        """Every free slot up to the next inn that a rule allows (``legal_moves``): the
        road ahead (:meth:`FastTables.road`) less the full spaces and those the traveller
        may not stop at (bit 1 of the mask: a coin is needed and it has none; bits 2 and
        up: :attr:`done`). Remembered per road by what decides it: which slots ahead are
        taken, how many travellers the inn holds, and what the traveller may not stop
        at."""
        here = self.pos[piece]
        T = self.T
        road = T.roads.get((seat * 8 + piece) * 64 + here)
        if road is None:
            road = T.road(seat, piece, here)
        shift, mask, inn, width, entries, known = road
        if self.seat[piece] is None:
            bad = 0
        else:
            bad = (2 if self.coins[piece] < 1 else 0) | self.done[piece] << 2
        key = (self.taken >> shift & mask) | (self.occ[inn] | bad << 3) << width
        found = known.get(key)
        if found is not None:
            return found
        occ = self.occ
        out = []
        for q, n, check, moves in entries:
            o = occ[q]
            if n == 1:
                if o:
                    continue
                move = moves[0]
            elif n == 0:
                move = moves[o]
            elif not o & 1:
                move = moves[0]
            elif not o & 2:
                move = moves[1]
            else:
                continue
            if bad >> check & 1:
                continue
            out.append(move)
        found = known[key] = tuple(out)
        T.remembered += 1
        if T.remembered > 1 << 18:  # a long simulation: start again
            T.remembered = 0
            for other in T.roads.values():
                other[5].clear()
        return found

    def _move(self, piece: int, position: int, slot: int, new: list[Step]) -> None:
        """The traveller moves; its stop's steps are scheduled (``tokaido_arrival_steps``)."""
        T = self.T
        occ = self.occ
        old = self.pos[piece]
        if T.slots[old] == 0:
            occ[old] -= 1
        else:
            occ[old] &= ~(1 << self.slot[piece])
            self.taken &= ~(1 << (2 * old + self.slot[piece]))
        if T.slots[position] == 0:
            occ[position] += 1
        else:
            occ[position] |= 1 << slot
            self.taken |= 1 << (2 * position + slot)
        self.pos[piece] = position
        self.slot[piece] = slot
        self.order[piece] = position * 8 - slot
        power = self.trav[piece]
        if power >= 0:
            power = T.power[power]
        steps = T.arrivals.get((piece * 32 + power + 1) * 64 + position)
        if steps is None:
            steps = T.arrival(piece, self.seat[piece], power, position)
        new += steps

    # --- shared effects ------------------------------------------------------------------
    def _recorded_gain(self, piece: int, card: int, category: int = -1) -> None:
        """A card gained, for the views' records (a game class calls it as it gains a
        card, with :attr:`_chronicle` set; ``category``: the place in the score row of
        the points the card scored, which appeared before any bonus for it), then the
        additive plugins' reactions."""
        book = self._chronicle
        if book is not None:
            if category >= 0 and self.score[piece][category]:
                bit = 1 << category
                if not book.scored[piece] & bit:
                    book.scored[piece] |= bit
                    book.score_order[piece].append(category)
            V = book.tables
            book.fill(V.collection + piece)
            book.collections[piece].append(card)
            supply = V.supply_of[card] if V.supply_of else -1
            if supply >= 0:
                book.supplies[supply].remove(card)
        for rules in self.T.gainers:
            rules.gained(self, piece, card)
        if book is not None:
            book.notice(self, piece)


def _make_game(players: int, seed: int, plugins: Ruleset | Iterable[str | object],
               travellers: Sequence[str] | None, options: Mapping[str, object] | None,
               setup: Setup | None, record: bool, chance: str | None = None) -> FastGame:
    """A new game of the ruleset's game class (:meth:`FastGame.new`); ``record``: it
    records what its views need (:class:`ViewableGame`); ``chance``: its keying, which
    goes into the setup (``Setup.keying``)."""
    if chance is not None and (setup is not None or chance != EVENT):
        setup = with_keying(setup or Setup(), chance)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        from .errors import SetupError

        raise SetupError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    ruleset = _ruleset(plugins, options)
    T: FastTables | None = None
    if setup is None and type(players) is int and 2 <= players <= 5:
        T = _tables(ruleset, players)  # raises NotCoveredError
        game_class = T.game_class
    else:
        why, found = _checked(ruleset)
        if why is not None:
            _tables(ruleset, 2)  # raises NotCoveredError, saying why
        game_class = found[1]
    return game_class()._made(players, seed, ruleset, travellers, setup, T, record)


# --- a fast game from a state: what a bot searches on (FastGame.from_state) ---------------
# A bot that must not read hidden state searches on a sampled completion of its view
# (tokaido_rules.bots.determinize): a state, with no history. The kernel loads what it
# keeps of such a state (the pieces, the agenda, the count of events); each game class
# loads its own part (``_load_state``: its decks and what it counts of the collections)
# and says how its steps' data are read back (``_step_data``). Additive plugins keep no
# state of their own (a game class's slots hold it all); their steps carry no data but
# a card's, which the kernel reads.


class _Census:
    """The cards of a ruleset's decks as :meth:`FastGame.completion` deals them: per
    card (in the order of their names, as
    :meth:`~tokaido_rules.registry.Registry.deck_census`), its code, its home deck's
    number and its copies in all decks; the home decks in the order of their names (a
    card of no deck: ``""``, first); each code's home."""

    def __init__(self, T: FastTables, V: ViewTables) -> None:
        registry = T.ruleset.registry
        census = registry.deck_census()
        homes_by_card = registry._homes()
        self.homes = sorted({"", *(home for _, home, _ in census)})
        index = {home: i for i, home in enumerate(self.homes)}
        self.home_of = [index.get(homes_by_card.get(name, ""), 0) for name in T.names]
        self.usable = why_not_loadable(T.ruleset, T.players) is None and all(
            card in T.code for card, _, _ in census) and all(
            "_load_data" in vars(cls) or "_load_state" not in vars(cls)
            for cls in T.game_class.__mro__ if issubclass(cls, FastGame)) and all(
            rule == SHOWN or how in (FROM_GAME, FROM_PIECES)
            for rule, (how, _) in zip(V.zone_rule, V.source, strict=True))
        """Whether the engine loads the ruleset's states, every card is coded, every
        game class that loads a state loads its data apart
        (:meth:`FastGame._load_data`) and every zone a seat may not see is in the flat
        state (not in the records alone)."""
        self.cards = [(T.code[card], index[home], copies) for card, home, copies in census
                      if card in T.code]


_POOL_LANES: dict[int, tuple[int, int, int, int]] = {}


def shuffle_pools(pools: list[list[Any]], stream: int) -> None:
    """Shuffle each list of ``pools`` in place, in turn, as
    :func:`~tokaido_rules.chance.shuffle` does with ``stream``, the draws counted on
    from 0 across the lists (how a sampling bot shuffles the cards it does not see): the
    same numbers, but every draw's hash computed at once, as the 128-bit lanes of one
    big integer (as :func:`_setup_shuffles`). On PyPy, whose big integers are slow,
    the generator's own shuffle."""
    if _MACHINE_WORDS:
        draw = 0
        for pool in pools:
            draw = shuffle(pool, stream, draw)
        return
    if _BUILT_FROM is not None:  # compiled: machine words are faster than the lanes
        _shuffle_halves(pools, stream)
        return
    draws = 0
    for pool in pools:
        if len(pool) > 1:
            draws += len(pool) - 1
    if draws == 0:
        return
    found = _POOL_LANES.get(draws)
    if found is None:
        offsets = ones = 0
        for draw in range(draws):
            offsets |= ((_GOLDEN * (draw + 1)) & _MASK) << (128 * draw)
            ones |= 1 << (128 * draw)
        found = _POOL_LANES[draws] = (offsets, ones, ones * _MASK, 16 * draws)
    offsets, ones, mask, size = found
    z = (offsets + stream * ones) & mask
    z = ((z ^ (z >> 30 & mask)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27 & mask)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31 & mask
    # each hash h as its 32-bit halves: (h * n) >> 64 is (hi * n + (lo * n >> 32)) >> 32,
    # in small integers (a compiled build's machine words)
    words = memoryview(z.to_bytes(size, "little")).cast("I")
    lows: list[int] = words[::4].tolist()
    highs: list[int] = words[1::4].tolist()
    k = 0
    for items in pools:
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            j = (highs[k] * n + ((lows[k] * n) >> 32)) >> 32
            items[i], items[j] = items[j], items[i]
            k += 1


_GOLDEN_HIGH: list[int] = []
_GOLDEN_LOW: list[int] = []
"""The halves of ``_GOLDEN * (draw + 1)`` modulo ``2**64``, by draw (as many as asked)."""


def _times(high: _Word, low: _Word, by_high: _Word, by_low: _Word) -> tuple[_Word, _Word]:
    """``(high, low) * (by_high, by_low)`` modulo ``2**64``, each a 64-bit number as its
    32-bit halves: every product has 16 bits on one side, so below ``2**49`` (in a
    compiled build, machine words that never overflow)."""
    low0 = low & 0xFFFF
    low1 = low >> 16
    a = low0 * by_low
    b = low1 * by_low
    t = a + ((b & 0xFFFF) << 16)
    up = (b >> 16) + (t >> 32)
    up += (high & 0xFFFF) * by_low + (((high >> 16) * (by_low & 0xFFFF) & 0xFFFF) << 16)
    up += low0 * by_high + ((low1 * (by_high & 0xFFFF) & 0xFFFF) << 16)
    return up & 0xFFFFFFFF, t & 0xFFFFFFFF


def _shuffle_halves(pools: list[list[Any]], stream: int) -> None:
    """:func:`shuffle_pools` in 32-bit halves held in machine words (``_Word``): the
    same numbers as :func:`~tokaido_rules.chance.shuffle` (the SplitMix64 finaliser,
    then multiply-and-shift), every intermediate below ``2**50``. A compiled build's
    route: about five times faster there than the big-integer lanes, and much slower
    than them in plain Python."""
    stream_high: _Word = stream >> 32
    stream_low: _Word = stream & 0xFFFFFFFF
    draws = 0
    for pool in pools:
        if len(pool) > 1:
            draws += len(pool) - 1
    golden_high = _GOLDEN_HIGH
    golden_low = _GOLDEN_LOW
    while len(golden_high) < draws:
        g = (_GOLDEN * (len(golden_high) + 1)) & _MASK
        golden_high.append(g >> 32)
        golden_low.append(g & 0xFFFFFFFF)
    k = 0
    for items in pools:
        for i in range(len(items) - 1, 0, -1):
            lo: _Word = stream_low + golden_low[k]
            hi: _Word = (stream_high + golden_high[k] + (lo >> 32)) & 0xFFFFFFFF
            hi, lo = _hash_halves(hi, lo & 0xFFFFFFFF)
            n: _Word = i + 1
            j = (hi * n + ((lo * n) >> 32)) >> 32  # (z * n) >> 64
            items[i], items[j] = items[j], items[i]
            k += 1


def _hash_halves(hi: _Word, lo: _Word) -> tuple[_Word, _Word]:
    """The SplitMix64 finaliser of the 64-bit number ``(hi, lo)`` (its 32-bit halves),
    in machine words when compiled (:func:`_times`)."""
    lo ^= ((hi << 2) & 0xFFFFFFFF) | (lo >> 30)  # z ^= z >> 30
    hi ^= hi >> 30
    hi, lo = _times(hi, lo, 0xBF58476D, 0x1CE4E5B9)
    lo ^= ((hi << 5) & 0xFFFFFFFF) | (lo >> 27)  # z ^= z >> 27
    hi ^= hi >> 27
    hi, lo = _times(hi, lo, 0x94D049BB, 0x133111EB)
    lo ^= ((hi << 1) & 0xFFFFFFFF) | (lo >> 31)  # z ^= z >> 31
    hi ^= hi >> 31
    return hi, lo


def _offset_halves(stream: int, count: int) -> tuple[_Word, _Word]:
    """``stream + _GOLDEN * count`` modulo ``2**64``, as its 32-bit halves."""
    g_hi, g_lo = _times(_GOLDEN >> 32, _GOLDEN & 0xFFFFFFFF, count >> 32 & 0xFFFFFFFF,
                        count & 0xFFFFFFFF)
    lo: _Word = (stream & 0xFFFFFFFF) + g_lo
    hi: _Word = ((stream >> 32 & 0xFFFFFFFF) + g_hi + (lo >> 32)) & 0xFFFFFFFF
    return hi, lo & 0xFFFFFFFF


def event_stream(seed: int, seq: int) -> int:
    """:func:`tokaido_rules.chance.event_stream`, the same numbers: in 32-bit halves in
    machine words in the compiled build (a call into the generator's big-integer
    arithmetic costs more than the hash there), else the generator's own."""
    if _BUILT_FROM is None or _MACHINE_WORDS or not 0 <= seq < 1 << 62:
        return _event_stream(seed, seq)
    hi, lo = _hash_halves(*_offset_halves(seed, seq + 1))
    return int(hi) << 32 | int(lo)


def draw_below(stream: int, draw: int, n: int) -> int:
    """:func:`tokaido_rules.chance.draw_below`, the same numbers (in machine words in
    the compiled build, as :func:`event_stream`); ``n <= 0`` raises its
    ``ValueError``."""
    if _BUILT_FROM is None or _MACHINE_WORDS or not 0 < n < 1 << 31 or not (
            0 <= draw < 1 << 62):
        return _draw_below(stream, draw, n)
    hi, lo = _hash_halves(*_offset_halves(stream, draw + 1))
    m: _Word = n
    return int((hi * m + ((lo * m) >> 32)) >> 32)


def shuffle(items: list[Any], stream: int, draw: int = 0) -> int:
    """:func:`tokaido_rules.chance.shuffle`, the same permutation and the same next draw
    number returned (in machine words in the compiled build, as :func:`event_stream`)."""
    if _BUILT_FROM is None or _MACHINE_WORDS or len(items) >= 1 << 31 or not (
            0 <= draw < 1 << 61):
        return _shuffle(items, stream, draw)
    for i in range(len(items) - 1, 0, -1):
        hi, lo = _hash_halves(*_offset_halves(stream, draw + 1))
        m: _Word = i + 1
        j = (hi * m + ((lo * m) >> 32)) >> 32  # (z * m) >> 64
        items[i], items[j] = items[j], items[i]
        draw += 1
    return draw


class StateLike(Protocol):
    """What :func:`from_state` reads of a state: a reference
    :class:`~tokaido_rules.model.GameState` has it, and so has a seat's sampled
    completion of its view."""

    @property
    def pieces(self) -> tuple[Piece, ...]: ...

    @property
    def zones(self) -> Mapping[str, tuple[str, ...]]: ...

    @property
    def agenda(self) -> tuple[Any, ...]: ...

    @property
    def data(self) -> Mapping[str, Any]: ...

    @property
    def seq(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def over(self) -> bool: ...


_LOADS: dict[type, bool] = {}


def why_not_loadable(ruleset: Ruleset, players: int) -> str | None:
    """Why :func:`from_state` does not load states of ``ruleset`` with ``players``
    (``None``: it does): the ruleset is covered, its views are built from the flat state
    (their tables say how a step's data read) and every game class of its chain loads
    its own state (defines ``_load_state`` itself)."""
    why = why_not_covered(ruleset)
    if why is not None:
        return why
    if type(players) is not int or not 2 <= players <= 5:
        return f"no {players!r}-player game"
    if not views_direct(ruleset, players):
        return "its views are not built from the flat state"
    game_class = _tables(ruleset, players).game_class
    found = _LOADS.get(game_class)
    if found is None:
        found = _LOADS[game_class] = all(
            "_load_state" in vars(cls) for cls in game_class.__mro__
            if issubclass(cls, FastGame) and cls is not FastGame)
    if not found:
        return f"the game class {game_class.__name__} does not load a state"
    return None


def from_state(state: StateLike, ruleset: Ruleset, players: int, seed: int) -> FastGame:
    """A plain fast game at ``state`` (a reference state, or a sampled completion of a
    view), whose play from there is the reference's from that state with the seed
    ``seed``: the same legal actions, chance outcomes and scores. It has no history:
    :meth:`FastGame.to_game`, :meth:`FastGame.view` and :attr:`FastGame.decisions` know
    nothing of what came before. Raises :class:`NotCoveredError` where
    :func:`why_not_loadable` says why."""
    why = why_not_loadable(ruleset, players)
    if why is not None:
        raise NotCoveredError(f"the fast simulator does not load states of "
                              f"{list(ruleset.ids)}: {why}")
    T = _tables(ruleset, players)
    V = T.view_tables
    assert V is not None  # made by views_direct
    game = T.game_class()
    game.T = T
    game.seed = seed
    chances = getattr(state, "chances", None)  # purpose keying: the counts go on
    game.chances = None if chances is None else dict(chances)
    game.setup = None
    game.given = None
    game._chronicle = None
    game._replica = None
    game._decisions = []
    game.automatic = 0
    game.asks = False
    game.hooked = bool(T.gainers)
    game.seq = state.seq
    game.is_over = bool(state.over)
    n = T.pieces
    pieces = state.pieces
    index = T.traveller_index
    category = T.category_index
    game.pos = [p.position for p in pieces]
    game.slot = [p.slot for p in pieces]
    game.coins = [p.coins for p in pieces]
    game.trav = [-1 if p.traveller is None else index[p.traveller] for p in pieces]
    game.seat = [p.seat for p in pieces]
    game.order = [p.position * 8 - p.slot for p in pieces]
    score = [[0] * T.score_width for _ in range(n)]
    for i, p in enumerate(pieces):
        row = score[i]
        for name, points in p.score.items():
            row[category[name]] = points
    game.score = score
    occ = [0] * (T.end + 1)
    taken = 0
    slots = T.slots
    for p in pieces:
        if slots[p.position] == 0:
            occ[p.position] += 1
        else:
            occ[p.position] |= 1 << p.slot
            taken |= 1 << (2 * p.position + p.slot)
    game.occ = occ
    game.taken = taken
    game.done = [0] * n
    game._load_state(state)
    game._load_data(state.data)
    kinds = T.kinds
    agenda: list[Step] = []
    for ref in state.agenda:
        kind = kinds[ref.kind]
        agenda.append((kind, ref.piece, ref.seat, game._step_data(V, kind, ref)))
    game.agenda = agenda
    if agenda:
        game._step = agenda[0]
    elif game.is_over:
        game._step = None
    else:
        order = game.order
        rearmost = min(order)
        if rearmost < T.end * 8 - 7:
            piece = order.index(rearmost)
            seat = game.seat[piece]
            if seat is None:
                seated = order[:T.players]
                seat = seated.index(max(seated))
            game._step = _MOVES[piece][seat]
        else:
            game._step = None
    game._legal = None if game._step is not None else ()
    return game


# --- proving it: the fast game beside the reference, decision by decision --------------------


@frozen
class DifferentialReport:
    """What :func:`differential` found: games and decisions compared, and the first
    difference of each game that had one (empty: every game was the same)."""

    games: int
    decisions: int
    differences: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        head = (f"{self.games} games, {self.decisions} decisions: "
                + ("all equal" if self.ok else f"{len(self.differences)} games differ"))
        return "\n".join([head, *self.differences])


def differential(players: int | Iterable[int], seeds: Iterable[int], *,
                 plugins: Ruleset | Iterable[str | object] = ("base",),
                 options: Mapping[str, object] | None = None,
                 travellers: bool = False, policy: str = "random", logs: bool = True,
                 setup: Setup | None = None, stop_after: int = 10) -> DifferentialReport:
    """Play each seed at each player count on the fast simulator and on the reference
    engine side by side, random decisions (a :class:`random.Random` seeded from the game
    seed), comparing at every decision the seat to play, the legal actions (the same
    tuple, in the same order) and the count of events; at the end the scores and, with
    ``logs``, the reference log of :meth:`FastGame.to_game` with the reference game's,
    byte for byte. ``travellers``: each game's travellers are chosen from its seed and
    given (``new_game(travellers=...)``) instead of offered (a ruleset whose reference
    refuses given travellers has its games played as they are). ``policy``: how
    decisions are chosen, ``"random"``, ``"eager"`` or ``"seek"`` (:class:`_Policy`: the
    last two play rarer paths, such as decks that run out). Stops after ``stop_after``
    games that differ."""
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {sorted(_POLICIES)}, not {policy!r}")
    import random

    ruleset = _ruleset(plugins, options)
    counts = (players,) if isinstance(players, int) else tuple(players)
    seeds = tuple(seeds)
    games = decisions = 0
    differences: list[str] = []
    for n in counts:
        for seed in seeds:
            rng = random.Random(seed * 7919 + n)
            names = (tuple(rng.sample(sorted(ruleset.registry.travellers), n))
                     if travellers and _tables(ruleset, n).takes_travellers else None)
            games += 1
            choose = _Policy(policy, rng, ruleset.registry.board)
            found, made = _differ(n, seed, ruleset, names, choose, logs, setup)
            decisions += made
            if found is not None:
                differences.append(f"{n} players, seed {seed}: {found}")
                if len(differences) >= stop_after:
                    return DifferentialReport(games, decisions, tuple(differences))
    return DifferentialReport(games, decisions, tuple(differences))


class _Policy:
    """How :func:`differential` chooses: ``"random"`` uniformly; ``"eager"`` mostly the
    nearest stop and the last action of other decisions (the most cards, the largest
    amount); ``"seek"`` as eager, but stopping first at spaces of one or two kinds drawn
    for the game (of the board's kinds), so decks run out."""

    def __init__(self, name: str, rng: Any, board: Sequence[Any]) -> None:
        self.name = name
        self.rng = rng
        self.targets: frozenset[int] = frozenset()
        if name == "seek":
            road = sorted({s.kind for s in board if not s.inn})
            kinds = rng.sample(road, min(2, len(road)))
            self.targets = frozenset(i for i, s in enumerate(board) if s.kind in kinds)

    def __call__(self, legal: tuple[Action, ...]) -> int:
        rng = self.rng
        if self.name == "random" or rng.random() < 0.2:
            return int(rng.randrange(len(legal)))
        if isinstance(legal[0], Move):
            for i, move in enumerate(legal):
                if isinstance(move, Move) and move.position in self.targets:
                    return i
            return 0
        return len(legal) - 1


_POLICIES = ("random", "eager", "seek")


def _differ(players: int, seed: int, ruleset: Ruleset, travellers: tuple[str, ...] | None,
            choose: _Policy, logs: bool,
            setup: Setup | None = None) -> tuple[str | None, int]:
    """The first difference of one game (``None``: none), and the decisions compared."""
    game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers, setup=setup)
    fast = FastGame.new(players, seed=seed, plugins=ruleset, travellers=travellers,
                        setup=setup)
    return compare(game, fast, choose, logs)


def compare(game: Game, fast: FastGame, choose: Callable[[tuple[Action, ...]], int],
            logs: bool = True) -> tuple[str | None, int]:
    """Play ``game`` and ``fast`` side by side to the end, ``choose`` picking the index
    of each decision among the legal actions: the first difference (``None``: none; see
    :func:`differential`), and the decisions compared. ``logs``: compare the log of
    :meth:`FastGame.to_game` with the reference game's at the end."""
    made = 0
    while True:
        where = f"decision {made} (seq {game.state.seq})"
        if fast.state_seq != game.state.seq:
            return f"{where}: the fast game is at seq {fast.state_seq}", made
        if fast.current_player != game.current_player or fast.is_over != game.is_over:
            return (f"{where}: seat {fast.current_player} (over: {fast.is_over}) to play, "
                    f"not {game.current_player} (over: {game.is_over})"), made
        expected = game.legal_actions()
        got = fast.legal_actions()
        if got != expected:
            step = game.current_step
            kind = None if step is None else step.kind
            return (f"{where}, seat {game.current_player}, step {kind}: legal "
                    f"{list(map(str, got))}, not {list(map(str, expected))}"), made
        if game.is_over:
            break
        index = choose(expected)
        game = game.apply(expected[index])
        fast.apply(got[index])
        made += 1
    if fast.scores() != game.scores():
        return f"at the end: scores {fast.scores()}, not {game.scores()}", made
    if logs and dump_log(fast.to_game()) != dump_log(game):
        return "at the end: the log of to_game() is not the reference log", made
    return None, made


# --- views straight from the flat state: their tables and the records they read ---------------
# (FastGame.view; the builder itself is FastGame._direct_view)

# Where a zone's cards are (ViewTables.source) and who sees them (ViewTables.zone_rule).
FROM_GAME: Final = 0
FROM_PIECES: Final = 1
FROM_COLLECTION: Final = 2
FROM_SUPPLY: Final = 3
FROM_RECORD: Final = 4
HIDDEN: Final = 0
SHOWN: Final = 1
OWNER: Final = 2
OWN_RULE: Final = 3

_new = object.__new__
_set = object.__setattr__

ValueOf = Callable[["FastGame", Any, int], Any]
"""What reads a data value or a counter of the flat state: ``(game, records, argument)``
(the records: :class:`_Chronicle`; the argument: the piece, or whatever was given)."""
PresentIf = Callable[["FastGame", int], bool]
"""Whether a data key has appeared (it stays once it has): ``(game, argument)``."""
SeenBy = Callable[["FastGame", "int | None"], bool]
"""Whether a seat (``None``: every seat) sees a zone whose rule is a plugin's own."""


class ViewTables:
    """What the direct view of one ruleset and player count reads: every zone the game
    can have, numbered (the decks first, in the order the setup makes them), where its
    cards are and who may see them; the data keys and counters, how to read them and
    when they appear; the reference step of each step. The plugins fill it, each its own
    part (the game classes' :meth:`FastGame._fill_view_tables`, the additive plugins'
    :meth:`FastRules.fill_view`), and the kernel resolves the visibility rules and checks
    that every zone and data key the ruleset registers is known
    (:meth:`FastGame._view_tables`); ``direct`` is false otherwise, and
    :meth:`FastGame.view` replays then."""

    def __init__(self, T: FastTables) -> None:
        self.T = T
        self.direct = False
        self.zone_names: list[str] = []
        self.zone_index: dict[str, int] = {}
        self.source: list[tuple[int, Any]] = []
        self.zone_rule: list[int] = []
        self.zone_owner: list[int] = []
        self.zone_seen: dict[int, SeenBy] = {}
        """By zone number, the check of a zone whose rule is a plugin's own."""
        self.own_rules: dict[Any, SeenBy] = {}
        """A plugin's visibility functions (those it registers with a zone), each with
        the check that answers it from the flat state."""
        self.deck_sources: dict[str, tuple[int, Any]] = {}
        """Where the flat state keeps a deck's cards, by zone (a game class says, before
        the decks are laid out); a deck not among them is a supply, unshuffled, whose
        cards the records follow."""
        self.known_zones: set[str] = {"core.collection", "core.secret"}
        """The zones (and zone families) whose content the plugins' view parts know: the
        ruleset must register no other."""
        self.known_data: set[str] = set()
        """The data keys (prefixes, as registered) the plugins' view parts know."""
        self.deck_codes: tuple[int, ...] = ()
        self.supplies: dict[int, list[int]] = {}
        """The cards of each deck the flat state does not keep (unshuffled supplies), at
        the start, by zone number."""
        self.supply_of: list[int] = []
        """Per card, the zone number of the supply it is taken from (-1: none)."""
        self.collection = -1
        """The zone number of ``core.collection.0`` (that of piece ``i``: plus ``i``)."""
        self.categories: tuple[str, ...] = ()
        self.counters: list[str] = []
        self.counter_value: list[ValueOf] = []
        """Per counter, what reads it for a piece; a counter appears when it is first
        not 0."""
        self.watched: list[tuple[str, int]] = []
        """Zones of the game class's lists (attribute, zone number): filled when not empty."""
        self.watched_pieces: list[tuple[str, int]] = []
        """Zones of the game class's lists per piece (attribute, zone number of piece 0)."""
        self.data_names: list[str] = []
        self.data_index: dict[str, int] = {}
        self.data_value: list[ValueOf | None] = []
        """Per data key, what reads its value (``None``: the value recorded when the key
        was noted, :meth:`FastGame._note_data`), and its argument."""
        self.data_argument: list[int] = []
        self.data_rule: list[int] = []
        self.data_owner: list[int] = []
        self.watched_data: list[tuple[int, PresentIf, int]] = []
        """Data keys that appear when a check first says so (key number, check,
        argument); the others are noted by the rules that set them."""
        self.effects: frozenset[int] = frozenset()
        """The step kinds that run a card's effect (their reference step names the card)."""
        self.extra: dict[str, Any] = {}
        """Whatever else the plugins' view methods read."""
        self.steps: dict[Step, Any] = {}

    def add_zone(self, name: str, how: int, where: Any) -> int:
        """A zone the views show (its cards: ``how`` and ``where``); its number."""
        self.zone_names.append(name)
        self.source.append((how, where))
        code = self.zone_index[name] = len(self.zone_names) - 1
        return code

    def add_data(self, name: str, value: ValueOf | None, argument: int = -1,
                 present: PresentIf | None = None) -> int:
        """A data key the views show: what reads its value (``None``: recorded when
        noted), and the check that says it has appeared (``None``: the rules that set it
        note it, :meth:`FastGame._note_data`); its number."""
        code = len(self.data_names)
        self.data_names.append(name)
        self.data_index[name] = code
        self.data_value.append(value)
        self.data_argument.append(argument)
        if present is not None:
            self.watched_data.append((code, present, argument))
        return code

    def add_counter(self, name: str, value: ValueOf) -> int:
        """A counter of every piece (it appears when first not 0); its number."""
        self.counters.append(name)
        self.counter_value.append(value)
        return len(self.counters) - 1

    def step(self, game: FastGame, step: Step) -> Any:
        """The reference :class:`~tokaido_rules.model.Step` of a step (made once)."""
        from .model import Step as RefStep

        kind, piece, seat, _ = step
        found = self.steps[step] = RefStep(self.T.kind_names[kind], piece, seat,
                                           game._step_values(self, step))
        return found

    def finish(self) -> bool:
        """Resolve the rule of every zone and data key (the registry's, as the reference
        resolves it) and check that the ruleset registers no zone or data key the view
        parts do not know; whether the views can be built directly."""
        from .visibility import _data_rule, _zone_rule

        registry = self.T.ruleset.registry
        if not set(registry.zones) <= self.known_zones:
            return False
        if not set(registry.data_keys) <= self.known_data:
            return False
        for name in self.zone_names:
            found = self._rule_code(_zone_rule(registry.zones, name), name)
            if found is None:
                return False
            self.zone_rule.append(found[0])
            self.zone_owner.append(found[1])
            check = found[2]
            if check is not None:  # a plugin's own rule
                self.zone_seen[len(self.zone_rule) - 1] = check
        for name in self.data_names:
            found = self._rule_code(_data_rule(registry.data_keys, name), name)
            if found is None or found[0] == OWN_RULE:
                return False
            self.data_rule.append(found[0])
            self.data_owner.append(found[1])
        return True

    def _rule_code(self, rule: Any, name: str) -> tuple[int, int, SeenBy | None] | None:
        """A visibility rule, resolved for ``name``, as (rule code, owning piece, the
        check of a plugin's own rule); ``None`` for a rule no view part knows."""
        from .visibility import _resolve

        resolved = _resolve(rule, name)
        if resolved is True:
            return SHOWN, -1, None
        if resolved is False:
            return HIDDEN, -1, None
        if type(resolved) is int:
            return OWNER, resolved, None
        check = self.own_rules.get(resolved)
        if check is None:
            return None
        return OWN_RULE, -1, check


_ViewTables = ViewTables  # the name the view tests know

_Common = tuple[int, tuple[Piece, ...], list[tuple[int, str, tuple[str, ...], int, int]],
                FrozenMap[str, int]]
"""What every seat's view shows alike at one point (:meth:`FastGame._view_common`)."""


def views_direct(ruleset: Ruleset, players: int) -> bool:
    """Whether :meth:`FastGame.view` builds the views of ``ruleset``'s games of
    ``players`` from the flat state (else it replays each game); false for a ruleset the
    simulator does not cover."""
    if not covers(ruleset) or type(players) is not int or not 2 <= players <= 5:
        return False
    T = _tables(ruleset, players)
    V = T.view_tables
    if V is None:
        probe = T.game_class()
        probe.T = T
        V = probe._view_tables()
    return V.direct


def _present_now(entry: tuple[int, PresentIf, int], game: FastGame) -> bool:
    """Whether the watched data key of ``entry`` (number, check, argument) is there."""
    return entry[1](game, entry[2])


class _Chronicle:
    """What a view needs that the flat state does not keep, recorded as a recording
    game plays: the zones in the order they were first filled (after the decks), each
    collection in acquisition order, the supplies and the zones only the records hold,
    per traveller the order in which its score categories and counters first appeared,
    the data keys in the order they appeared (with the values recorded for some), the
    moves made, and the last view made (a view is asked several times at one
    decision)."""

    __slots__ = (
        "collections",
        "common",
        "counted",
        "counter_order",
        "data_made",
        "data_order",
        "data_seen",
        "decided",
        "kept",
        "last_view",
        "made",
        "named",
        "score_order",
        "scored",
        "supplies",
        "tables",
        "turn",
        "values",
        "waiting",
        "zones",
    )

    def __init__(self, V: ViewTables, setup: Setup | None, *, blank: bool = False) -> None:
        """The records of a game at its setup; ``blank``: to be filled by :meth:`copy`."""
        self.tables = V
        if blank:
            return
        n = V.T.pieces
        self.zones: list[int] = []
        self.made = 0
        """A bit per zone number of the zones in :attr:`zones`."""
        self.collections: list[list[int]] = [[] for _ in range(n)]
        self.supplies = {code: cards[:] for code, cards in V.supplies.items()}
        if setup is not None and setup.stacks:  # cards stacked on a supply (as _start does)
            T = V.T
            for code, cards in self.supplies.items():
                top = setup.stacks.get(V.zone_names[code])
                if top:
                    stacked = [T.code[c] for c in top]
                    for c in stacked:
                        cards.remove(c)
                    cards[:0] = stacked
        self.kept: dict[int, list[int]] = {}
        """The cards of the zones only the records hold (``FROM_RECORD``), by number."""
        self.score_order: list[list[int]] = [[] for _ in range(n)]
        self.scored = [0] * n
        self.counter_order: list[list[int]] = [[] for _ in range(n)]
        self.counted = [0] * n
        self.data_order: list[int] = []
        """The data keys (their numbers) in the order they appeared."""
        self.data_made = 0
        """A bit per data key in :attr:`data_order`."""
        self.values: dict[int, Any] = {}
        """The values recorded for data keys noted with one."""
        self.waiting = tuple(V.watched_data)
        """The watched data keys that have not appeared yet."""
        self.data_seen = 0
        """The length of :attr:`data_order` when :attr:`waiting` was made."""
        self.turn = 0
        """The moves made (``GameState.turn``)."""
        self.decided = 0
        """The decisions whose moves :attr:`turn` counts."""
        self.last_view: tuple[int, int | None, View] | None = None
        self.common: _Common | None = None
        """What the views of every seat share, at one point (its seq first)."""
        self.named: dict[int, tuple[tuple[int, ...], tuple[str, ...]]] = {}
        """By zone number, its cards last named for a view, as codes and as names (the
        same tuple of names while they do not change: card backs are counted once)."""

    def copy(self) -> _Chronicle:
        new = _Chronicle(self.tables, None, blank=True)
        new.zones = self.zones[:]
        new.made = self.made
        new.collections = [c[:] for c in self.collections]
        new.supplies = {code: cards[:] for code, cards in self.supplies.items()}
        new.kept = {code: cards[:] for code, cards in self.kept.items()}
        new.score_order = [o[:] for o in self.score_order]
        new.scored = self.scored[:]
        new.counter_order = [o[:] for o in self.counter_order]
        new.counted = self.counted[:]
        new.data_order = self.data_order[:]
        new.data_made = self.data_made
        new.values = self.values.copy()
        new.waiting = self.waiting
        new.data_seen = self.data_seen
        new.turn = self.turn
        new.decided = self.decided
        new.last_view = self.last_view
        new.common = self.common
        new.named = self.named.copy()
        return new

    def fill(self, code: int) -> None:
        """Zone ``code`` holds cards: the first time, it joins the state's zones."""
        if not self.made >> code & 1:
            self.made |= 1 << code
            self.zones.append(code)

    def note(self, code: int) -> None:
        """Data key ``code`` is set: the first time, it joins the state's data."""
        if not self.data_made >> code & 1:
            self.data_made |= 1 << code
            self.data_order.append(code)

    def notice(self, game: FastGame, piece: int) -> None:
        """Record what first appeared for ``piece`` (every piece: -1) since the last
        notice: zones filled, data keys, score categories and counters. Called after
        each card gained, step run and decision resolved, which each make at most one
        thing appear per mapping (a card gained: its category before a bonus for it,
        the order of the scores' categories here)."""
        V = self.tables
        for attribute, code in V.watched:
            if getattr(game, attribute):
                self.fill(code)
        waiting = self.waiting
        if waiting:
            for entry in waiting:
                if _present_now(entry, game):
                    self.note(entry[0])
            if len(self.data_order) != self.data_seen:
                self.data_seen = len(self.data_order)
                self.waiting = tuple(e for e in waiting if not self.data_made >> e[0] & 1)
        every = len(game.pos)
        counters = V.counter_value
        full = (1 << len(counters)) - 1
        for i in range(every) if piece < 0 else (piece,):
            for attribute, code in V.watched_pieces:
                if getattr(game, attribute)[i]:
                    self.fill(code + i)
            score = game.score[i]
            scored = self.scored[i]
            for k in range(len(score)):
                if score[k] and not scored >> k & 1:
                    scored |= 1 << k
                    self.score_order[i].append(k)
            self.scored[i] = scored
            counted = self.counted[i]
            if counted != full:
                for k, value in enumerate(counters):
                    if not counted >> k & 1 and value(game, self, i):
                        counted |= 1 << k
                        self.counter_order[i].append(k)
                self.counted[i] = counted


class ViewableGame(FastGame):
    """How to make games that record, as they play, what their views need beyond the
    flat state (:class:`_Chronicle`), so that :meth:`FastGame.view` builds each view
    without a replay (:attr:`FastGame.records_views`). The same games, of the ruleset's
    game class, the same actions; each step costs a little more. What the RL
    environments play on the fast path; a plain game keeps one of these to replay its
    decisions when first viewed. For a ruleset whose views are not built directly
    (:func:`views_direct`), :meth:`new` makes a plain game (its views replay)."""

    __slots__ = ()

    @classmethod
    def new(cls, players: int, seed: int = 0,
            plugins: Ruleset | Iterable[str | object] = ("base",),
            travellers: Sequence[str] | None = None,
            options: Mapping[str, object] | None = None,
            setup: Setup | None = None, *, chance: str | None = None) -> FastGame:
        """As :meth:`FastGame.new`, a game that records what its views need; for a
        ruleset whose views are not built directly (:func:`views_direct`), a plain game:
        there is nothing to record."""
        return _make_game(players, seed, plugins, travellers, options, setup, True, chance)


# Fast rules take chance from here as well (draw_below, event_stream, shuffle: the
# reference's own draws, re-exported), so that plugins' fast modules import
# tokaido_rules and this module only (the import contracts say so).


def compiled() -> bool:
    """Whether the simulator in use is the compiled build (``tokaido build-fast``, see
    :mod:`tokaido_rules.native`): the same code, compiled by mypyc, faster."""
    return _BUILT_FROM is not None


def _load_compiled(name: str, source: str) -> Any:
    """The compiled copy ``name`` of the module whose source file is ``source``, or
    ``None`` (nothing built: silently; built from another source, or failing to load
    however it fails: with a :class:`CompiledBuildWarning`, never an exception)."""
    import hashlib
    import importlib
    import importlib.util
    import warnings

    try:
        if importlib.util.find_spec(name) is None:
            return None  # nothing built
    except (ImportError, ValueError):
        return None
    again = "run `tokaido build-fast` again, or `tokaido build-fast --remove`"
    try:
        built = importlib.import_module(name)
    except Exception as exc:  # whatever a broken build raises, the source runs
        warnings.warn(CompiledBuildWarning(
            f"the compiled build {name} failed to load ({type(exc).__name__}: {exc}); "
            f"the pure Python simulator runs instead: {again}"), stacklevel=3)
        return None
    try:
        with open(source, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return None  # no source to compare with (a frozen install): not taken
    if getattr(built, "_BUILT_FROM", None) != digest:
        warnings.warn(CompiledBuildWarning(
            f"the compiled build {name} was built from another version of {source}; "
            f"the pure Python simulator runs instead: {again}"), stacklevel=3)
        return None
    return built


def take_compiled(namespace: dict[str, Any]) -> bool:
    """Take every name of a plugin's fast module (whose globals are ``namespace``) from
    its compiled copy (``tokaido_rules.native.compiled_name``), when there is one built
    from this very source, the kernel in use is compiled too and so is every fast module
    the copy was compiled against; whether it did. A copy built from another source, or
    one that fails to load, is left with a :class:`CompiledBuildWarning`. A plugin's
    fast module calls it last::

        if not __name__.endswith("_compiled"):  # not in the compiled copy itself
            take_compiled(globals())
    """
    import os
    import sys

    if os.environ.get("TOKAIDO_PURE_PYTHON") or not compiled():
        return False
    package, _, name = str(namespace["__name__"]).rpartition(".")
    built = _load_compiled(f"{package}._{name}_compiled", str(namespace["__file__"]))
    if built is None:
        return False
    for needed in getattr(built, "_NEEDS", ()):
        module = sys.modules.get(needed)
        if module is None or getattr(module, "_BUILT_FROM", None) is None:
            return False  # compiled against a copy that is not in use
    for key, value in vars(built).items():
        if not key.startswith("__"):
            namespace[key] = value
    return True


def _use_compiled() -> None:
    """Take every name of this module from the compiled build when there is one, built
    from this very source, unless ``TOKAIDO_PURE_PYTHON`` is set in the environment; a
    build from another source, or one that fails to load, is left with a
    :class:`CompiledBuildWarning` (the source runs)."""
    import os

    if os.environ.get("TOKAIDO_PURE_PYTHON"):
        return
    built = _load_compiled("tokaido_rules._fast_compiled", __file__)
    if built is None:
        return
    namespace = globals()
    for name, value in vars(built).items():
        if not name.startswith("__"):
            namespace[name] = value


if __name__ == "tokaido_rules.fast":  # not in the compiled copy itself
    _use_compiled()

"""The engine: running steps, applying actions, and the :class:`Game` API.

A :class:`Game` is an immutable pair of a state and the events that produced it.
Applying a legal action returns a new game; the old one stays valid, so undo,
branching and tree search cost nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import attrs
from attrs import frozen

from .chance import EVENT, PURPOSE, draw_below, event_stream, purpose_stream, shuffle
from .errors import IllegalActionError, PluginError, SetupError, StaleActionError, TokaidoError
from .events import (
    Action,
    AgendaSet,
    Automatic,
    CardsMoved,
    CoinsChanged,
    CounterChanged,
    DataSet,
    DeckSet,
    Event,
    QueueSet,
    Scored,
    field_names,
    fold,
    fold_rest,
)
from .frozen import FrozenMap, freeze_value
from .model import GameState, Piece, Staged, Step, collection_zone
from .moves import GAME_OVER_STEP, MOVE, START_COINS_ORDER, START_COINS_STEP
from .moves import legal_moves as legal_moves  # the core's rules, kept importable from here
from .moves import resolve_move as resolve_move
from .moves import schedule_arrival as schedule_arrival
from .registry import Registry, StepType
from .ruleset import Hooks, Rules, Ruleset, Setup, check_players, describe_exception
from .views import View, make_public_view, make_view

T = TypeVar("T")

class Context:
    """What a step or resolver works with: the current state, and ways to change it.

    Every change goes through :meth:`emit`, which folds the event into :attr:`state` at
    once, so later code sees its effect. Randomness comes only from :meth:`random_below`
    and :meth:`permute` (seeded by the state), or from a scripted outcome
    (:meth:`scripted`).
    """

    __slots__ = ("_draws", "_new", "_paused", "_stream", "_stream_purpose", "_stream_seq",
                 "events", "hooks", "registry", "rules", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []
        self._draws = 0
        self._stream = 0
        self._stream_seq = -1
        self._stream_purpose: str | None = None
        self._paused: dict[str | None, tuple[int, int]] = {}
        self._new: list[Step] = []
        rules = state.rules
        self.rules: Rules = rules
        self.hooks: Hooks = rules.hooks
        self.registry: Registry = rules.registry

    def emit(self, event: Event) -> None:
        """Record an event and fold it into the state (:func:`fold`, written out here:
        every event of every game passes through)."""
        state = self.state
        new = event.apply(state)
        if new.script or new is state or new.seq != state.seq or new.chances is not None:
            new = fold_rest(state, new, event)
        else:  # a fresh state nobody else has seen yet: numbered in place, as fold does
            new.__dict__["seq"] = state.seq + 1
        self.state = new
        self.events.append(event)

    def schedule(self, *steps: Step) -> None:
        """Queue steps to run right after the current one, in the given order."""
        self._new.extend(steps)

    # --- chance ---------------------------------------------------------------------
    def scripted(self, kind: str) -> Any | None:
        """The next scripted outcome of chance ``kind``, or ``None`` if none is scripted.

        The event recording the outcome must return ``kind`` from ``chance_kind()``; its
        fold uses the scripted outcome up.
        """
        outcomes = self.state.script.get(kind)
        return outcomes[0] if outcomes else None

    def _start_draws(self, purpose: str | None) -> None:
        """The draws of the next event come from its own stream, counted from 0; an
        event emitted since the last draw starts a new one. Under event keying the stream
        is keyed by (seed, seq); under purpose keying (``state.chances`` is not ``None``)
        by (seed, purpose, how many events of that purpose came before), a draw without a
        purpose taking the event's stream. Within one event each purpose keeps its own
        count of draws: draws for A, then B, then A again go on with A's (the k-th draw
        for a purpose never depends on the draws for others). The one place the
        reference engine keys chance."""
        state = self.state
        seq = state.seq
        chances = state.chances
        key = None if chances is None else purpose
        if self._stream_seq == seq:
            if self._stream_purpose == key:
                return
            paused = self._paused  # another purpose of this event: keep its place
            paused[self._stream_purpose] = (self._stream, self._draws)
            resumed = paused.pop(key, None)
            if resumed is not None:
                self._stream, self._draws = resumed
                self._stream_purpose = key
                return
        else:
            if self._paused:
                self._paused.clear()
            self._stream_seq = seq
        self._stream = (event_stream(state.seed, seq) if chances is None or key is None
                        else purpose_stream(state.seed, key, chances.get(key, 0)))
        self._stream_purpose = key
        self._draws = 0

    def random_below(self, n: int, purpose: str | None = None) -> int:
        """A seeded random number in ``range(n)``; emit its outcome as an event.
        ``purpose``: what it is drawn for, the :meth:`~Event.chance_purpose` of that
        event (under purpose keying the draw is keyed by it; a draw without one is keyed
        by the event count, and is not the same across duplicate games)."""
        self._start_draws(purpose)
        value = draw_below(self._stream, self._draws, n)
        self._draws += 1
        return value

    def permute(self, items: Sequence[T], purpose: str | None = None) -> tuple[T, ...]:
        """A seeded random order of ``items`` (Fisher-Yates); ``purpose`` as for
        :meth:`random_below`."""
        out = list(items)
        if len(out) > 1:
            self._start_draws(purpose)
            self._draws = shuffle(out, self._stream, self._draws)
        return tuple(out)

    def random_order(self, kind: str, items: Sequence[T], purpose: str | None = None,
                     ) -> tuple[T, ...]:
        """The scripted order of ``items`` for chance ``kind``, else a seeded random one,
        drawn for ``purpose`` (default: ``kind``; give it when the event recording the
        outcome names another :meth:`~Event.chance_purpose`)."""
        scripted = self.scripted(kind)
        if scripted is None:
            return self.permute(items, kind if purpose is None else purpose)
        order = tuple(scripted) if isinstance(scripted, tuple | list) else (scripted,)
        if sorted(map(str, order)) != sorted(map(str, items)):
            raise SetupError(f"scripted {kind!r} outcome {list(order)} is not an order of "
                             f"{list(items)} (the cards to order at seq {self.state.seq + 1})")
        return order

    def random_pick(self, kind: str, items: Sequence[T], purpose: str | None = None) -> T:
        """The scripted item for chance ``kind``, else a seeded random one of ``items``,
        drawn for ``purpose`` (default: ``kind``; e.g. the die of one traveller, whose
        event says so in its :meth:`~Event.chance_purpose`)."""
        scripted = self.scripted(kind)
        if scripted is None:
            return items[self.random_below(len(items), kind if purpose is None else purpose)]
        if scripted not in items:
            raise SetupError(f"scripted {kind!r} outcome {scripted!r} is not one of "
                             f"{list(items)} (at seq {self.state.seq + 1})")
        return scripted  # type: ignore[no-any-return]

    # --- common changes -------------------------------------------------------------
    def coins(self, piece: int, delta: int) -> None:
        if delta:
            self.emit(CoinsChanged(piece, delta))

    def score(self, piece: int, category: str, points: int) -> None:
        if points:
            self.emit(Scored(piece, category, points))

    def emit_data(self, key: str, value: Any) -> None:
        """Set a plugin value; it is frozen first (:func:`~tokaido_rules.frozen.freeze_value`),
        so nobody holding the state can change it."""
        self.emit(DataSet(key, freeze_value(value)))

    def count(self, piece: int, name: str, delta: int) -> None:
        if delta:
            self.emit(CounterChanged(piece, name, delta))

    def move_cards(self, src: str, dst: str, cards: Iterable[str], *, from_top: bool = False,
                   bottom: bool = True, chance: str | None = None) -> None:
        cards = tuple(cards)
        if cards:
            self.emit(CardsMoved(src, dst, cards, from_top, bottom, chance, len(cards)))

    def return_to_bottom(self, src: str, deck: str, cards: Iterable[str]) -> None:
        """Put cards under ``deck`` in random order (chance kind ``"order.<deck>"``, used
        for two cards or more; a scripted order that is not an order of these cards is a
        :class:`SetupError` naming them and the seq)."""
        cards = tuple(cards)
        if not cards:
            return
        kind = f"order.{deck}"
        if len(cards) == 1:  # one card has no order: it uses up no scripted outcome
            self.emit(CardsMoved(src, deck, cards))
        else:
            self.emit(CardsMoved(src, deck, self.random_order(kind, cards), chance=kind))

    def gain(self, piece: int, card: str, source: str, *, from_top: bool = True,
             category: str = "", points: int = 0) -> None:
        """Move ``card`` from zone ``source`` into the collection, score its own
        ``points`` in ``category``, then let plugins react
        (:func:`~tokaido_rules.hookspecs.tokaido_card_gained`)."""
        self.emit(CardsMoved(source, collection_zone(piece), (card,), from_top, True, None, 1))
        if points:
            self.emit(Scored(piece, category, points))
        self.hooks.card_gained(self, piece, card, source)

    def pay_for_cards(self, piece: int, amount: int, cards: tuple[str, ...]) -> None:
        """Pay for cards: plugins may redirect the coins (:func:`tokaido_pay`), else the bank."""
        if amount <= 0:
            return
        if not self.hooks.pay(self, piece, amount, cards):
            self.emit(CoinsChanged(piece, -amount))


# --- running ----------------------------------------------------------------------------


def _implicit_move(state: GameState) -> Step | None:
    """With nothing pending, the rearmost traveller moves (``None`` if all have arrived)."""
    pieces = state.pieces
    piece = state.rearmost()
    p = pieces[piece]
    if p.position >= state.rules.end:
        return None
    seat = p.seat if p.seat is not None else state.rules.hooks.decider(state, piece)
    step = _MOVE_STEPS.get((piece, seat))
    if step is None:
        step = _MOVE_STEPS[piece, seat] = Step(MOVE, piece, seat)
    return step


_MOVE_STEPS: dict[tuple[int, int | None], Step] = {}
"""The move decision of each (piece, seat): steps are immutable, so one is shared."""


def _legal(state: GameState, step: Step) -> tuple[Action, ...]:
    """The legal actions of a decision in their canonical order: its own and those
    plugins add, each once.

    Actions that leave the decision open (``CONSUMES_STEP`` false, e.g. using an item
    first) never keep alive a decision that has nothing else to choose: it lapses.
    """
    rules = state.rules
    stype = rules.registry.steps[step.kind]
    assert stype.legal is not None
    try:
        actions = stype.legal(state, step)
    except TokaidoError:
        raise
    except Exception as exc:
        raise _step_failed(stype, "legal actions", exc) from exc
    hooks = rules.hooks
    extra = hooks.extra_actions(state, step) if hooks.adds_actions else None
    if extra:
        actions = list(dict.fromkeys([*actions, *extra]))
        if not any(a.CONSUMES_STEP for a in actions):
            return ()
    elif stype.ordered:
        return tuple(actions)
    return tuple(sorted(actions, key=Action.sort_key))


def _run(ctx: Context, working: list[Step]) -> tuple[Step | None, tuple[Action, ...] | None]:
    """Run steps until a decision with legal actions is first, or nothing is pending.

    When every traveller has reached the final inn and nothing is pending, the game is
    over (:class:`GameOver`) and the end-of-game scoring steps run. The agenda is
    written back once, at the end.
    """
    steps = ctx.registry.steps
    legal: tuple[Action, ...] = ()
    pending: Step | None = None
    while True:
        while working:
            step = working[0]
            stype = steps.get(step.kind)
            if stype is None:
                raise SetupError(f"step kind {step.kind!r} is not registered")
            if stype.legal is not None:
                legal = _legal(ctx.state, step)
                if legal:
                    if stype.automatic is not False:
                        forced = _forced(ctx, stype, step, legal)
                        if forced is not None:
                            _take_alone(ctx, working, step, forced)
                            continue
                    break
                working.pop(0)  # nothing to decide: the decision lapses
                continue
            working.pop(0)
            ctx._new = []
            assert stype.run is not None
            try:
                stype.run(ctx, step)
            except TokaidoError:
                raise
            except Exception as exc:
                raise _step_failed(stype, "run", exc) from exc
            working[:0] = ctx._new
        if working or ctx.state.over:
            break
        pending = _implicit_move(ctx.state)
        if pending is not None:
            break
        working.append(Step(GAME_OVER_STEP))
        working.extend(s.step for s in ctx.hooks.end_steps(ctx.state))
    # (the implicit move is only looked for while nothing is pending)
    if not _same_steps(working, ctx.state.agenda):
        ctx.emit(AgendaSet(tuple(working)))
    if working:
        return working[0], legal
    return pending, None  # the rearmost traveller moves (None: the game is over)


def _forced(ctx: Context, stype: StepType, step: Step,
            legal: tuple[Action, ...]) -> Action | None:
    """The one possible answer of an ``automatic`` decision, if it has one and the engine
    may take it: the step type allows it here and no plugin asks for the decision
    (:func:`~tokaido_rules.hookspecs.tokaido_ask_decision`). Actions that leave the
    decision open (using an item) are not answers."""
    answer: Action | None = None
    for action in legal:
        if action.CONSUMES_STEP:
            if answer is not None:
                return None
            answer = action
    if answer is None:
        return None
    automatic = stype.automatic
    if automatic is not True:
        try:
            if not (callable(automatic) and automatic(ctx.state, step)):
                return None
        except TokaidoError:
            raise
        except Exception as exc:
            raise _step_failed(stype, "automatic test", exc) from exc
    if ctx.hooks.ask_decision(ctx.state, step):
        return None
    return answer


_AUTOMATIC = Automatic()


def _take_alone(ctx: Context, working: list[Step], step: Step, action: Action) -> None:
    """Take a forced answer as :meth:`Game.apply` would, after an :class:`Automatic`
    marker (the agenda is written first, so that the action answers ``step``)."""
    if not _same_steps(working, ctx.state.agenda):
        ctx.emit(AgendaSet(tuple(working)))
    ctx.emit(_AUTOMATIC)
    _answer(ctx, step, action)
    working.pop(0)
    working[:0] = ctx._new


def _answer(ctx: Context, step: Step, action: Action) -> tuple[Step, ...]:
    """Emit ``action``, the answer to ``step``, and run its resolver, which schedules on
    a fresh ``ctx._new``; return the agenda as the action left it. A plugin's mutator
    (:meth:`~Action.effect`) or resolver that raises is a :class:`PluginError` naming it."""
    try:
        ctx.emit(action)
    except TokaidoError:
        raise
    except Exception as exc:
        raise _action_failed(ctx.registry, action, "mutator", exc) from exc
    agenda = ctx.state.agenda
    ctx._new = []
    try:
        ctx.registry.resolvers[type(action)](ctx, step, action)
    except TokaidoError:
        raise
    except Exception as exc:
        raise _action_failed(ctx.registry, action, "resolver", exc) from exc
    return agenda


def _step_failed(stype: StepType, part: str, exc: Exception) -> PluginError:
    """A step kind's function raised: named as a failing hook is (the plugin that
    registered the step, and which of its functions)."""
    where = f"{part} of step {stype.kind!r}"
    return PluginError(f"plugin {stype.plugin!r}: {where} raised {describe_exception(exc)}",
                       stype.plugin, where)


def _action_failed(registry: Registry, action: Action, part: str,
                   exc: Exception) -> PluginError:
    """An action's mutator or resolver raised: named as a failing hook is (the plugin
    that registered the action type; ``None`` for a type nobody registered)."""
    plugin = registry.event_plugins.get(action.TYPE)
    where = f"{part} of action {action.TYPE!r}"
    who = "an unregistered action type" if plugin is None else f"plugin {plugin!r}"
    return PluginError(f"{who}: {where} raised {describe_exception(exc)}", plugin, where)


def _same_steps(working: list[Step], agenda: tuple[Step, ...]) -> bool:
    """Whether the working list equals the agenda (usually the very same steps)."""
    if len(working) != len(agenda):
        return False
    for a, b in zip(working, agenda, strict=True):
        if a is not b:
            return tuple(working) == agenda
    return True


def _malformed(state: GameState, action: object, legal: tuple[Action, ...]) -> str | None:
    """Why ``action`` is malformed: not an action, a seat or traveller that is not in the
    game, or a field holding another type than every legal action of its type has there
    (a string or a float for an integer, an integer for a boolean). ``None`` if its shape
    is sound; matching then records the legal instance it equals, so no client object
    ever enters the state."""
    if not isinstance(action, Action):
        return f"{action!r} is not an action"
    same = [a for a in legal if type(a) is type(action)]
    for name in field_names(type(action)):
        value = getattr(action, name)
        kinds = {int} if name in ("seat", "piece") else {type(getattr(a, name)) for a in same}
        if (kinds == {int} or kinds == {bool}) and type(value) not in kinds:
            return (f"{action.TYPE} field {name!r} must be {kinds.pop().__name__}, not "
                    f"{type(value).__name__} ({value!r})")
    seat, piece = action.seat, getattr(action, "piece", 0)
    if not 0 <= seat < state.rules.players:
        return f"there is no seat {seat} in this game"
    if type(piece) is int and not 0 <= piece < len(state.pieces):
        return f"there is no traveller {piece} in this game"
    return None


# --- results -----------------------------------------------------------------------------


@frozen
class Score:
    """A seat's result: total, points by category, tie-break value and rank (1 = best)."""

    seat: int
    traveller: str | None
    total: int
    categories: FrozenMap[str, int]
    tiebreak: int
    rank: int


# --- the game -----------------------------------------------------------------------------


class _History:
    """The events of a game as a chain of the parts each :meth:`Game.apply` added.

    A game links to its parent's history, never to its parent: the states of earlier
    games are freed as soon as nobody holds those games (a simulation keeps only the
    newest), while every game can still list all its events."""

    __slots__ = ("everything", "new", "parent")

    def __init__(self, new: tuple[Event, ...], parent: _History | None) -> None:
        self.new = new
        self.parent = parent
        self.everything: tuple[Event, ...] | None = new if parent is None else None

    def events(self) -> tuple[Event, ...]:
        """Every event of the chain, in order (joined once, then kept)."""
        if self.everything is None:
            parts: list[tuple[Event, ...]] = []
            link: _History | None = self
            while link is not None and link.everything is None:
                parts.append(link.new)
                link = link.parent
            base = () if link is None or link.everything is None else link.everything
            self.everything = base + tuple(e for part in reversed(parts) for e in part)
            self.parent = None
        return self.everything


class Game:
    """An immutable game: a state and the events that led to it.

    Use :func:`new_game` to create one, :meth:`legal_actions` to see the choices of
    :attr:`current_player`, and :meth:`apply` to get the next game.
    """

    __slots__ = ("_history", "_legal", "_step", "state")

    def __init__(self, state: GameState, new_events: tuple[Event, ...],
                 parent: Game | None = None, legal: tuple[Action, ...] | None = None,
                 step: Step | None = None) -> None:
        self.state = state
        self._history: _History = _History(
            new_events, None if parent is None else parent._history)
        self._legal = legal
        self._step = step

    # --- reading -------------------------------------------------------------------------
    @property
    def ruleset(self) -> Ruleset:
        return self.state.rules.ruleset

    @property
    def players(self) -> int:
        return self.state.rules.players

    @property
    def seed(self) -> int:
        return self.state.seed

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event since the start, setup included, in order."""
        return self._history.events()

    @property
    def is_over(self) -> bool:
        return self.state.over

    @property
    def current_step(self) -> Step | None:
        """The decision waiting to be made (``None`` when the game is over)."""
        if self._step is None and not self.state.over:
            self._step = self.state.agenda[0] if self.state.agenda else _implicit_move(self.state)
        return self._step

    @property
    def current_player(self) -> int | None:
        """The seat whose decision it is; ``None`` when the game is over."""
        step = self.current_step
        return None if step is None else step.seat

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions, sorted; empty only when the game is over."""
        if self._legal is None:
            step = self.current_step
            self._legal = () if step is None else _legal(self.state, step)
        return self._legal

    # --- acting --------------------------------------------------------------------------
    def view(self, seat: int | None) -> View:
        """What ``seat`` may see now (:class:`~tokaido_rules.views.View`); ``None``: the
        public view (:meth:`public_view`)."""
        return make_view(self, seat)

    def public_view(self) -> View:
        """What every seat may see now, as a spectator does: a
        :class:`~tokaido_rules.views.View` whose ``seat`` is ``None``, holding a zone's
        cards or a data value only if each seat may see them, and no legal actions."""
        return make_public_view(self)

    def apply(self, action: Action, *, expected_seq: int | None = None) -> Game:
        """Return the game after ``action``; raise :class:`IllegalActionError` if it is not
        legal now (this game is unchanged either way).

        ``expected_seq``: the sequence number (``state.seq``) the sender saw; if the game
        has moved on since, :class:`StaleActionError` is raised instead of applying.
        """
        if expected_seq is not None and expected_seq != self.state.seq:
            raise StaleActionError(
                f"the action was sent at seq {expected_seq}; the game is at seq {self.state.seq}"
            )
        step = self._step or self.current_step
        if step is None:
            raise IllegalActionError("the game is over")
        legal = self._legal or self.legal_actions()
        for candidate in legal:  # usually the very object offered: no equality calls
            if candidate is action:
                break
        else:
            action = self._matching(legal, step, action)
        ctx = Context(self.state)
        working = list(_answer(ctx, step, action))
        working[:0] = ctx._new
        next_step, next_legal = _run(ctx, working)
        return Game(ctx.state, tuple(ctx.events), self, next_legal, next_step)

    def _matching(self, legal: tuple[Action, ...], step: Step, action: object) -> Action:
        """The legal action equal to ``action``, which is what is recorded: a client's
        object never enters the state, and one of the wrong shape (``2.0`` or ``True``
        for ``2``) is refused (:func:`_malformed`). Otherwise :class:`IllegalActionError`,
        saying why."""
        reason = _malformed(self.state, action, legal)
        if reason is None:
            for candidate in legal:
                if candidate == action:
                    return candidate
            try:
                reason = self._why_illegal(step, action)
            except Exception:  # a malformed action the explanation code did not foresee
                reason = f"{action!r} is not one of the {len(legal)} legal actions"
        raise IllegalActionError(reason)

    def _why_illegal(self, step: Step, action: object) -> str:
        if not isinstance(action, Action):
            return f"{action!r} is not an action"
        if action.seat != step.seat:
            return f"it is seat {step.seat}'s decision, not seat {action.seat}'s"
        legal = self.legal_actions()
        if type(action) not in {type(a) for a in legal}:
            kinds = ", ".join(sorted({a.TYPE for a in legal}))
            return f"{action.TYPE} is not a decision open now (open: {kinds})"
        stype = self.ruleset.registry.steps[step.kind]
        reason = stype.explain(self.state, step, action) if stype.explain is not None else None
        return reason or f"{action} is not one of the {len(legal)} legal actions"

    # --- results -------------------------------------------------------------------------
    def scores(self) -> tuple[Score, ...]:
        """Per seat: total, points by category (every registered one), tie-break, rank."""
        state = self.state
        cats = state.rules.ruleset.registry.categories
        hooks = state.rules.ruleset.hooks
        rows = []
        for i, p in enumerate(state.pieces):
            if p.seat is None:
                continue
            rows.append((p.seat, p.traveller, p.total,
                         FrozenMap({c: p.score.get(c, 0) for c in cats}),
                         hooks.tiebreak(state, i)))
        keys = [(r[2], r[4]) for r in rows]
        return tuple(
            Score(*r, rank=1 + sum(1 for k in keys if k > (r[2], r[4]))) for r in rows
        )

    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several in a shared victory)."""
        return tuple(s.seat for s in self.scores() if s.rank == 1)

    def __repr__(self) -> str:
        return (f"<Game players={self.players} seq={self.state.seq} "
                f"current_player={self.current_player} over={self.is_over}>")

    def _repr_svg_(self) -> str:
        """The board as SVG, for notebooks (:func:`tokaido_rules.render.svg`): the whole
        game, every seat's secrets included."""
        from .render import svg

        return svg(self)


# --- creating games ------------------------------------------------------------------------


def make_rules(ruleset: Ruleset, players: int, setup: Setup) -> Rules:
    """What a game fixes, checked: its ruleset, player count and crafted setup."""
    check_players(players)
    neutrals = ruleset.hooks.neutral_travellers(players)
    _check_setup(ruleset, players, players + neutrals, setup)
    slots, next_inn = ruleset.board_for(players)
    return Rules(ruleset, players, neutrals, setup, slots, next_inn)


def initial_state(rules: Rules, seed: int) -> GameState:
    """The state before the first event: every piece at the start, nothing dealt."""
    pieces = tuple(Piece(seat=i) for i in range(rules.players)) + tuple(
        Piece(seat=None) for _ in range(rules.neutrals)
    )
    return GameState(rules, seed, pieces, script=rules.setup.chance,
                     chances=FrozenMap() if rules.setup.keying == PURPOSE else None)


def replay(rules: Rules, seed: int, events: Iterable[Event]) -> GameState:
    """Fold events from the initial state: re-runs no rules and rolls no dice."""
    state = initial_state(rules, seed)
    for event in events:
        state = fold(state, event)
    return state


def _check_setup(ruleset: Ruleset, players: int, pieces: int, setup: Setup) -> None:
    reg = ruleset.registry
    if setup.travellers is not None:
        if len(setup.travellers) != players:
            raise SetupError(f"travellers: {players} names needed, {len(setup.travellers)} given")
        unknown = [t for t in setup.travellers if t not in reg.travellers]
        if unknown:
            raise SetupError(f"unknown traveller(s) {unknown} (known: {sorted(reg.travellers)})")
        if len(set(setup.travellers)) != players:
            raise SetupError("travellers: each traveller can be chosen once")
    if setup.queue is not None and sorted(setup.queue) != list(range(pieces)):
        raise SetupError(f"queue must order the pieces 0..{pieces - 1}, got {list(setup.queue)}")
    for zone, cards in setup.stacks.items():
        spec = reg.decks.get(zone)
        if spec is None:
            raise SetupError(f"stacks: unknown deck {zone!r} (decks: {sorted(reg.decks)})")
        remaining = list(spec.cards)
        for c in cards:
            if c not in remaining:
                raise SetupError(f"stacks: deck {zone!r} has no (further) card {c!r}")
            remaining.remove(c)
    for seat, coins in setup.coins.items():
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise SetupError(f"coins: no seat {seat!r}")
        if not isinstance(coins, int) or isinstance(coins, bool) or coins < 0:
            raise SetupError(f"coins: seat {seat} cannot start with {coins!r}")


def _stack(cards: tuple[str, ...], top: tuple[str, ...]) -> tuple[str, ...]:
    rest = list(cards)
    for c in top:
        rest.remove(c)
    return top + tuple(rest)


def with_keying(setup: Setup, chance: str | None) -> Setup:
    """``setup`` with chance keyed as ``chance`` says (``None``: as it is); a value other
    than ``"event"`` or ``"purpose"`` is a :class:`SetupError`, as is a ``chance`` that
    contradicts the setup's own ``keying``."""
    if chance is None or chance == setup.keying:
        return setup
    if setup.keying != EVENT:
        raise SetupError(f"chance keying given twice ({chance!r} and the setup's "
                         f"{setup.keying!r})")
    return attrs.evolve(setup, keying=chance)


def new_game(
    players: int,
    seed: int = 0,
    plugins: Ruleset | Iterable[str | object] = ("base",),
    travellers: Sequence[str] | None = None,
    options: Mapping[str, object] | None = None,
    setup: Setup | None = None,
    *,
    chance: str | None = None,
) -> Game:
    """Create a game and run its setup up to the first decision.

    ``plugins``: plugin ids or objects (or a prebuilt :class:`Ruleset`, to share its
    setup cost across many games); ``travellers``: a traveller name per seat, skipping the
    offer; ``options``: ``"plugin.option" -> value``; ``setup``: a crafted start
    (:class:`Setup`); ``chance``: how chance is keyed, ``"event"`` or ``"purpose"``
    (``Setup.keying``; the duplicate format). Bad input raises a
    :class:`~tokaido_rules.errors.TokaidoError`.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise SetupError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    if isinstance(plugins, Ruleset):
        if options:
            raise SetupError("options belong to the Ruleset when a Ruleset is passed")
        ruleset = plugins
    else:
        ruleset = Ruleset.build(plugins, options)
    setup = with_keying(setup or Setup(), chance)
    if travellers is not None:
        if setup.travellers is not None:
            raise SetupError("travellers given twice (argument and setup)")
        setup = attrs.evolve(setup, travellers=travellers)
    rules = make_rules(ruleset, players, setup)
    ctx = Context(initial_state(rules, seed))
    for spec in ruleset.registry.decks.values():
        cards = spec.cards
        if spec.shuffled:
            cards = ctx.random_order(f"shuffle.{spec.zone}", cards)
        top = setup.stacks.get(spec.zone)
        if top:
            cards = _stack(cards, top)
        ctx.emit(DeckSet(spec.zone, cards, spec.shuffled))
    if setup.queue is not None:
        queue = setup.queue
    else:
        queue = ctx.random_order("queue", tuple(range(len(ctx.state.pieces))))
    ctx.emit(QueueSet(queue))
    staged = ruleset.hooks.setup_steps(ctx.state)
    if setup.coins:
        staged = sorted([*staged, Staged(START_COINS_ORDER, Step(START_COINS_STEP))],
                        key=lambda s: s.order)
    step, legal = _run(ctx, [s.step for s in staged])
    return Game(ctx.state, tuple(ctx.events), None, legal, step)


class ReproductionError(IllegalActionError):
    """A recorded decision is not legal at its point of a reproduced game.

    ``index`` is its position in the list of decisions (0-based), ``decision`` the
    action, ``game`` the game just before it (to inspect what was legal instead).
    """

    def __init__(self, index: int, decision: Action, game: Game, reason: str) -> None:
        self.index = index
        self.decision = decision
        self.game = game
        legal = ", ".join(str(a) for a in game.legal_actions()[:8])
        more = "" if len(game.legal_actions()) <= 8 else ", ..."
        super().__init__(f"decision {index} ({decision}) is not legal: {reason} "
                         f"[legal: {legal}{more}]")


def reproduce(
    players: int,
    decisions: Iterable[Action],
    *,
    plugins: Ruleset | Iterable[str | object] = ("base",),
    setup: Setup | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
) -> Game:
    """Replay a recorded real game: a crafted ``setup`` scripts its chance outcomes
    (travellers, start queue, stacked decks, the order of returned cards, die rolls,
    ...) and each recorded decision is applied in turn.

    Raises :class:`ReproductionError` at the first decision that is not legal, naming
    it and what was legal instead. Chance outcomes that are not scripted come from
    ``seed``; script everything the record shows.
    """
    game = new_game(players, seed=seed, plugins=plugins, options=options, setup=setup)
    for index, decision in enumerate(decisions):
        try:
            game = game.apply(decision)
        except IllegalActionError as exc:
            raise ReproductionError(index, decision, game, str(exc)) from None
    return game

"""Take-backs: when a seat may take back its last decision without anyone learning a
hidden fact, computed from the declared visibility of the events (never per action).

A take-back by seat ``S`` returns the game to the point just before ``S``'s last
decision ``D``: the events from ``D`` on are removed, and the game goes on from the
state before ``D`` as if they had never happened. Every seat has seen its own copy of
those events, though, and keeps what it learned. The take-back is therefore allowed
only if what the removed events showed is no hidden fact, for any seat:

1. **No chance.** No removed event records a chance outcome
   (:meth:`~tokaido_rules.events.Event.chance_kind`): a shuffle, a random pick, a
   random order. Deciding again would draw again (a re-roll), and the same decision
   again would draw the same outcome (the generator is counter based), which the seat
   has now seen.
2. **Nothing shown to some seats only.** For every removed event, every seat sees the
   same fields (:meth:`~tokaido_rules.events.Event.visible_fields`, the same sets as
   :func:`~tokaido_rules.views.redact`): what ``S`` alone was shown (a private draw) it
   would re-decide with; what another seat alone was shown it would keep.
3. **Nothing hidden touched.** Every zone and game data value a removed event changes
   is visible to every seat before and after it
   (:func:`~tokaido_rules.visibility.zone_visible_to_all`,
   :func:`~tokaido_rules.visibility.data_visible_to_all`): a card that leaves a zone
   some seat cannot see (the top card of a deck, drawn face up) tells everyone a hidden
   fact even though every seat sees the same.
4. **No one else's decision that tells a hidden fact.** No other seat decided after
   ``D``, unless the caller lets that decision be taken back with it (a table lets a
   bot's: a bot decides again, the same way from the same state; a person's decision
   is theirs) *and* that seat, when it decided, could see nothing ``S`` could not (a
   zone or data value visible to it and hidden from ``S``): a decision is made from
   the decider's view, and one made from a view holding more than ``S``'s would tell
   ``S`` something of it before ``S`` decides again. The engine's own actions (after
   :class:`~tokaido_rules.events.Automatic`) are not decisions.

Every input of the rule is public: which events exist, their types, whether each
records chance, which fields each seat sees, which zones and data keys they touch and
who may see those, who decided. So the answer, and the reason given, is the same for
every seat in two games that differ only in hidden facts (the twin games of
:mod:`tokaido_rules.testing`), and everything a seat was shown of the removed events
is the same in both: an allowed take-back lets no seat learn a hidden fact.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from attrs import frozen

from .engine import Game, replay
from .events import Action, Automatic, Event, field_names, fold
from .model import GameState
from .visibility import (
    data_visible,
    data_visible_to_all,
    zone_visible,
    zone_visible_to_all,
)

__all__ = ["TakeBack", "TakeBackChecker", "check_take_back"]


@frozen
class TakeBack:
    """Whether ``seat`` may take back its last decision now: ``to_seq`` is the seq the
    game goes back to (the decision's own seq, as the tables record it: the events
    before it are kept), ``None`` when the seat has made no decision; ``reason`` says
    why not in words every seat may read (``None``: allowed)."""

    seat: int
    to_seq: int | None
    reason: str | None

    @property
    def allowed(self) -> bool:
        return self.reason is None


def _last_decision(events: tuple[Event, ...], seat: int,
                   others_undoable: Collection[int]) -> tuple[int | None, str | None]:
    """The index of ``seat``'s last decision, and why it may not be taken back if
    another seat's decision (not in ``others_undoable``) came after it."""
    other: int | None = None
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if not isinstance(event, Action):
            continue
        if index > 0 and type(events[index - 1]) is Automatic:
            continue  # the engine's own action: not a decision
        if event.seat == seat:
            if other is not None:
                return index, f"seat {other} has decided since"
            return index, None
        if index not in others_undoable and other is None:
            other = event.seat
    return None, None


def _touches_hidden(before: GameState, after: GameState) -> str | None:
    """The first zone or data key the event between ``before`` and ``after`` changed
    that some seat cannot see (before or after), else ``None``."""
    if after.zones is not before.zones:
        old, new = before.zones, after.zones
        for name in old.keys() | new.keys():
            if old.get(name) is new.get(name):
                continue
            if not (zone_visible_to_all(before, name) and zone_visible_to_all(after, name)):
                return f"cards some seat cannot see moved ({name})"
    if after.data is not before.data:
        old_data, new_data = before.data, after.data
        for key in old_data.keys() | new_data.keys():
            if key in old_data and key in new_data and old_data[key] is new_data[key]:
                continue
            if not (data_visible_to_all(before, key) and data_visible_to_all(after, key)):
                return f"a value some seat cannot see changed ({key})"
    return None


def _shown_unequally(event: Event, after: GameState) -> bool:
    """Whether some seat sees other fields of ``event`` than another seat does."""
    seen = [frozenset(event.visible_fields(after, s)) for s in range(after.players)]
    return any(s != seen[0] for s in seen[1:])


def check_take_back(game: Game, seat: int,
                    others_undoable: Collection[int] = (),
                    states: Mapping[int, GameState] | None = None) -> TakeBack:
    """Whether ``seat`` may take back its last decision in ``game`` now (the rule of
    this module). ``others_undoable``: the seqs of other seats' decisions that may be
    taken back with it (a table passes its bots' decisions). ``states``: states of this
    game already at hand, by seq (a server keeps its latest games'), so that the state
    before the decision is not replayed from the start when it is among them."""
    if game.is_over:
        return TakeBack(seat, None, "the journey is over")
    events = game.events
    index, other = _last_decision(events, seat, others_undoable)
    if index is None:
        return TakeBack(seat, None, f"seat {seat} has made no decision to take back")
    if other is not None:
        return TakeBack(seat, index, other)
    known = None if states is None else states.get(index)
    state = known if known is not None and known.seq == index else replay(
        game.state.rules, game.seed, events[:index])
    for at in range(index, len(events)):
        event = events[at]
        if (at > index and isinstance(event, Action) and event.seat != seat
                and type(events[at - 1]) is not Automatic
                and _sees_more(state, event.seat, seat)):
            return TakeBack(seat, index, f"seat {event.seat} decided since, seeing what "
                            f"seat {seat} cannot")
        after = fold(state, event)
        why = _why_not(event, state, after)
        if why is not None:
            return TakeBack(seat, index, why)
        state = after
    return TakeBack(seat, index, None)


class TakeBackChecker:
    """:func:`check_take_back` for one game as it goes on, each event folded once: what
    the rule reads of an event (why it forbids a take-back) is the same for every seat
    and every later check, and whether a decision's seat saw more than another is the
    same for every later check, so a server asking each seat at each decision folds
    each event at most once instead of once per seat and per check, and only as far as
    a check reads (the first refusal ends it, as in :func:`check_take_back`). Its
    answers are :func:`check_take_back`'s. A game whose events are not those seen
    before (a take-back, a table read again) starts it afresh."""

    _KEPT = 64
    """How many states before a decision are kept for the decision's seat's view."""

    def __init__(self) -> None:
        self._events: tuple[Event, ...] = ()
        self._why: dict[int, str | None] = {}  # event index: why it forbids, or None
        self._more: dict[tuple[int, int], bool] = {}  # (decision, seat): saw more
        self._before: dict[int, GameState] = {}  # a decision's index: the state before
        self._start = 0  # the first index with its facts known (to self._end)
        self._end = 0
        self._state: GameState | None = None  # the state before event self._end

    def check(self, game: Game, seat: int, others_undoable: Collection[int] = (),
              states: Mapping[int, GameState] | None = None) -> TakeBack:
        """As :func:`check_take_back` (same arguments and answer)."""
        if game.is_over:
            return TakeBack(seat, None, "the journey is over")
        events = game.events
        index, other = _last_decision(events, seat, others_undoable)
        if index is None:
            return TakeBack(seat, None, f"seat {seat} has made no decision to take back")
        if other is not None:
            return TakeBack(seat, index, other)
        self._follow(game, index, states)
        for at in range(index, len(events)):
            event = events[at]
            if (at > index and isinstance(event, Action) and event.seat != seat
                    and type(events[at - 1]) is not Automatic
                    and self._sees_more(game, at, seat, states)):
                return TakeBack(seat, index, f"seat {event.seat} decided since, seeing "
                                f"what seat {seat} cannot")
            found = self._fact(events, at)
            if found is not None:
                return TakeBack(seat, index, found)
        return TakeBack(seat, index, None)

    def _follow(self, game: Game, index: int,
                states: Mapping[int, GameState] | None) -> None:
        """Start afresh at ``index`` unless the events known are ``game``'s and its
        facts are known from before ``index``."""
        events, known = game.events, self._events
        if (self._state is not None and len(events) >= len(known) and index >= self._start
                and (not known or events[len(known) - 1] is known[-1])):
            self._events = events
            return
        found = None if states is None else states.get(index)
        self._state = found if found is not None and found.seq == index else replay(
            game.state.rules, game.seed, events[:index])
        self._events, self._start, self._end = events, index, index
        self._why, self._more, self._before = {}, {}, {}

    def _fact(self, events: tuple[Event, ...], at: int) -> str | None:
        """Why event ``at`` forbids a take-back (folding the events up to it once)."""
        while self._end <= at:
            state = self._state
            assert state is not None
            end = self._end
            event = events[end]
            if isinstance(event, Action):
                self._before[end] = state
                while len(self._before) > self._KEPT:
                    del self._before[next(iter(self._before))]
            after = fold(state, event)
            self._why[end] = _why_not(event, state, after)
            self._state, self._end = after, end + 1
        return self._why[at]

    def _sees_more(self, game: Game, at: int, seat: int,
                   states: Mapping[int, GameState] | None) -> bool:
        """Whether the seat deciding at ``at`` could see what ``seat`` cannot then."""
        key = (at, seat)
        found = self._more.get(key)
        if found is None:
            state = None if states is None else states.get(at)
            if state is None or state.seq != at:
                self._fact(game.events, at - 1)  # the state before ``at`` folded once
                state = self._before.get(at)
                if state is None:
                    state = self._state if self._end == at else replay(
                        game.state.rules, game.seed, game.events[:at])
            assert state is not None
            decider = game.events[at].seat  # type: ignore[attr-defined]
            found = self._more[key] = _sees_more(state, decider, seat)
        return found


def _sees_more(state: GameState, other: int, seat: int) -> bool:
    """Whether ``other`` may see a zone or data value of ``state`` that ``seat`` may
    not (the zones and keys are public, their rules declared)."""
    return any(zone_visible(state, other, z) and not zone_visible(state, seat, z)
               for z in state.zones) or any(
        data_visible(state, other, k) and not data_visible(state, seat, k)
        for k in state.data)


def _why_not(event: Event, before: GameState, after: GameState) -> str | None:
    """Why an event after the point taken back to forbids the take-back, else ``None``."""
    if event.chance_kind() is not None:
        return f"chance was drawn since ({event.TYPE})"
    if field_names(type(event)) and _shown_unequally(event, after):
        return f"something was shown to some seats only since ({event.TYPE})"
    return _touches_hidden(before, after)

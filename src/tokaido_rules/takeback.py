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

__all__ = ["CheckMemo", "TakeBack", "check_take_back"]


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
    if type(event).visible_fields is Event.visible_fields:
        return False  # the default's fields (all, or none) are the same for every seat
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


class _Progress:
    """One seat's check so far (:class:`CheckMemo`): its last decision and the latest
    other seat's since (not undoable), how far the events after its decision were
    folded and checked, and the answer last given."""

    __slots__ = ("answer", "index", "other", "seen", "state", "told", "upto", "why")

    def __init__(self) -> None:
        self.told = -1  # the number of events when the answer was made
        self.seen = 0  # the memo's decisions looked at
        self.index: int | None = None
        self.other: int | None = None
        self.upto = 0  # the events before it are folded into state (from index on)
        self.state: GameState | None = None
        self.why: str | None = None  # why an event after index forbids, once found
        self.answer: TakeBack | None = None


class CheckMemo:
    """The answers of :func:`check_take_back` for the seats of one game story, each
    carried on from the seat's answer at an earlier seq rather than made again: only
    the decisions and events since are looked at (the events after a decision do not
    change, so a refusal they gave stands until the seat decides again).

    For a table that asks at every seq: the answers equal :func:`check_take_back`'s
    with the same arguments as long as the games asked about are the same story
    (each one the last extended; a memo starts again when the event it looked at last
    is not in the game asked about) and ``others_undoable`` says the same of every
    decision already made (a decision's seat is known when it is played, and never
    changes; the caller makes a new memo when it does)."""

    def __init__(self) -> None:
        self._decided: list[tuple[int, int]] = []  # (index, seat) of every decision
        self._scanned = 0  # events looked at for decisions
        self._last: Event | None = None  # the last of them
        self._seats: dict[int, _Progress] = {}

    def _reset(self) -> None:
        self._decided, self._scanned, self._last, self._seats = [], 0, None, {}

    def check(self, game: Game, seat: int, others_undoable: Collection[int] = (),
              states: Mapping[int, GameState] | None = None) -> TakeBack:
        """:func:`check_take_back` (same arguments) from where this seat's last
        answer left off."""
        if game.is_over:
            return TakeBack(seat, None, "the journey is over")
        events = game.events
        end = len(events)
        scanned = self._scanned
        if scanned and (end < scanned or events[scanned - 1] is not self._last):
            self._reset()  # another story: start again
            scanned = 0
        if scanned < end:
            decided = self._decided
            for at in range(scanned, end):
                event = events[at]
                if isinstance(event, Action) and not (
                        at > 0 and type(events[at - 1]) is Automatic):
                    decided.append((at, event.seat))
            self._scanned = end
            self._last = events[end - 1]
        progress = self._seats.get(seat)
        if progress is None:
            progress = self._seats[seat] = _Progress()
        elif progress.told == end and progress.answer is not None:
            return progress.answer  # nothing new since the last answer
        progress.told = end
        if progress.seen < len(self._decided):
            for at, who in self._decided[progress.seen:]:
                if who == seat:
                    progress.index, progress.other = at, None
                    progress.upto, progress.state, progress.why = at, None, None
                elif at not in others_undoable:
                    progress.other = who
            progress.seen = len(self._decided)
        index = progress.index
        if index is None:
            return self._answer(progress, seat, None,
                                f"seat {seat} has made no decision to take back")
        if progress.other is not None:
            return self._answer(progress, seat, index,
                                f"seat {progress.other} has decided since")
        if progress.why is None and progress.upto < end:
            state = progress.state
            if state is None:
                known = None if states is None else states.get(index)
                state = known if known is not None and known.seq == index else replay(
                    game.state.rules, game.seed, events[:index])
            progress.why = _checked(events, seat, index, progress.upto, end, state,
                                    progress)
        progress.upto = end
        return self._answer(progress, seat, index, progress.why)

    @staticmethod
    def _answer(progress: _Progress, seat: int, index: int | None,
                reason: str | None) -> TakeBack:
        """The answer, the same object as the last one when it is the same."""
        answer = progress.answer
        if answer is None or answer.to_seq != index or answer.reason != reason:
            answer = progress.answer = TakeBack(seat, index, reason)
        return answer


def _checked(events: tuple[Event, ...], seat: int, index: int, start: int, end: int,
             state: GameState, progress: _Progress) -> str | None:
    """The loop of :func:`check_take_back` over the events from ``start`` (``state``:
    the state before it) to ``end``: why one forbids the take-back of the decision at
    ``index``, else ``None`` (the state reached is kept in ``progress``)."""
    for at in range(start, end):
        event = events[at]
        if (at > index and isinstance(event, Action) and event.seat != seat
                and type(events[at - 1]) is not Automatic
                and _sees_more(state, event.seat, seat)):
            return f"seat {event.seat} decided since, seeing what seat {seat} cannot"
        after = fold(state, event)
        why = _why_not(event, state, after)
        if why is not None:
            return why
        state = after
    progress.state = state
    return None


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

"""Events: the only way the state changes, and the core's own event types.

An event is a frozen attrs instance with a stable wire name (``TYPE``), a ``VERSION``
and one mutator, :meth:`Event.apply`, that returns the next state. Player decisions are
events too (:class:`Action`). The state of a game is the fold of its events
(:func:`fold`); replaying events re-runs no rules and rolls no dice.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from operator import attrgetter
from typing import Any, ClassVar

from attrs import Factory, field, fields, frozen

from .errors import FoldError
from .frozen import FrozenMap
from .model import GameState, Step, _copy_piece, _copy_state
from .visibility import data_visible, zone_visible


@frozen
class Event:
    """Base of every event type.

    Subclasses set ``TYPE`` (``"<plugin id>.<name>"``) and ``VERSION`` and implement
    :meth:`apply`. An event that records a chance outcome returns its chance kind from
    :meth:`chance_kind`, so that a scripted outcome of that kind is used up by the fold.
    """

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    UPCASTERS: ClassVar[dict[int, Callable[[dict[str, Any]], dict[str, Any]]]] = {}
    """Upcasters for older versions of this event's data: ``{1: v1_to_v2, ...}``."""
    PUBLIC: ClassVar[bool] = False
    """True: every field is visible to every seat. An event type that neither sets this
    nor overrides :meth:`visible_fields` has all its data withheld (fail closed)."""

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        """The fields ``seat`` may see; ``state`` is the state right after the event."""
        return field_names(type(self)) if self.PUBLIC else ()

    def apply(self, state: GameState) -> GameState:
        """Return the state after this event. Raise :class:`FoldError` if it does not fit."""
        raise NotImplementedError

    def chance_kind(self) -> str | None:
        """The chance kind whose outcome this event records, or ``None``."""
        return None

    def chance_purpose(self) -> str | None:
        """What the recorded outcome was drawn for, under purpose keying
        (:data:`~tokaido_rules.chance.PURPOSE`): its chance kind unless the event says
        more (e.g. whose die roll it is). The fold counts the events of each purpose,
        and the next draw for a purpose is keyed by that count; the draw must name the
        same purpose (:meth:`~tokaido_rules.engine.Context.random_pick`)."""
        return self.chance_kind()

    def chance_outcome(self) -> Any:
        """The recorded outcome, in the form a :class:`~tokaido_rules.Setup` script takes
        (so that :func:`~tokaido_rules.log.verify_log` can serve it again)."""
        return None


def relative_piece(state: GameState, seat: int, piece: int) -> str:
    """A traveller as seen by the seat deciding: ``"self"``, ``"neutral"`` or ``"other"``."""
    owner = state.pieces[piece].seat
    return "self" if owner == seat else "neutral" if owner is None else "other"


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The data fields of an event or action type, in order."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _sort_value(value: Any) -> tuple[Any, ...]:
    if type(value) is int:
        return (1, value)
    if value is None:
        return (0,)
    if isinstance(value, bool | int):
        return (1, int(value))
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, tuple):
        return (3, tuple(_sort_value(v) for v in value))
    return (4, repr(value))


@frozen
class Action(Event):
    """A decision by ``seat``. Applying it as an event removes the decision it answers
    from the agenda (unless ``CONSUMES_STEP`` is false: an extra option such as using an
    item before moving) and then applies :meth:`effect`.
    """

    seat: int
    CONSUMES_STEP: ClassVar[bool] = True

    def apply(self, state: GameState) -> GameState:
        if self.CONSUMES_STEP and state.agenda:
            state = state.replace(agenda=state.agenda[1:])
        return self.effect(state)

    def effect(self, state: GameState) -> GameState:
        """The direct change the decision makes to the state (none by default)."""
        return state

    def key(self, state: GameState) -> tuple[Any, ...]:
        """This decision whoever takes it: its type, then its fields in order without the
        seat, a traveller (field ``piece``) named ``"self"``, ``"neutral"`` (no seat) or
        ``"other"``. Plugins list every key they can produce with
        :func:`~tokaido_rules.hookspecs.tokaido_action_space`, which numbers decisions
        for learning agents."""
        values: list[Any] = [self.TYPE]
        for name in field_names(type(self)):
            if name == "seat":
                continue
            value = getattr(self, name)
            values.append(relative_piece(state, self.seat, value) if name == "piece" else value)
        return tuple(values)

    def sort_key(self) -> tuple[Any, ...]:
        """A total order over actions, for the sorted tuple of legal actions (by type,
        then field by field; actions whose fields are all integers sort first)."""
        values = _field_values(self)
        for v in values:
            if type(v) is not int:
                return (self.TYPE, 1, tuple([_sort_value(v) for v in values]))
        return (self.TYPE, 0, values)


_VALUE_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _field_values(obj: Any) -> tuple[Any, ...]:
    """The values of an attrs instance's fields, in order, with one getter per class."""
    getter = _VALUE_GETTERS.get(type(obj))
    if getter is None:
        names = field_names(type(obj))
        if len(names) == 1:
            name = names[0]
            getter = _VALUE_GETTERS[type(obj)] = lambda o: (getattr(o, name),)
        else:
            getter = _VALUE_GETTERS[type(obj)] = attrgetter(*names)
    return getter(obj)


def fold(state: GameState, event: Event) -> GameState:
    """Apply one event: its mutator, the use of a scripted chance outcome, the count.

    A mutator returns the state it was given (no change) or a state it has just made
    from it; such a fresh state is given its sequence number in place, before anyone else
    can see it, which saves a copy per event.
    """
    new = event.apply(state)
    if new.script or new is state or new.seq != state.seq or new.chances is not None:
        return fold_rest(state, new, event)
    new.__dict__["seq"] = state.seq + 1  # frozen to everyone else; states keep a __dict__
    return new


def fold_rest(state: GameState, new: GameState, event: Event) -> GameState:
    """The end of :func:`fold` once the mutator has run, where it needs a copy: a
    scripted outcome is used up, or the mutator returned a state that is not fresh."""
    seq = state.seq + 1
    chances = new.chances
    if chances is not None:  # purpose keying: count the event's purpose
        purpose = event.chance_purpose()
        if purpose is not None:
            new = new.replace(chances=chances.set(purpose, chances.get(purpose, 0) + 1))
    if new.script:
        kind = event.chance_kind()
        if kind is not None and new.script.get(kind):
            remaining = new.script[kind][1:]
            script = new.script.set(kind, remaining) if remaining else new.script.without(kind)
            return new.replace(script=script, seq=seq)
    if new is state or new.seq != state.seq:
        return new.replace(seq=seq)
    new.__dict__["seq"] = seq
    return new


# ----------------------------------------------------------------------------------
# Core events
# ----------------------------------------------------------------------------------


def _card_count(event: Any) -> int:
    return len(event.cards)


def _count_matches(event: Any, attribute: Any, count: int) -> None:
    if count != len(event.cards):
        raise ValueError(f"count {count} but {len(event.cards)} cards")


def _add_count(data: dict[str, Any]) -> dict[str, Any]:
    """Upcaster to version 2: the number of cards, kept visible when the cards are not."""
    cards = data.get("cards")
    return {**data, "count": len(cards) if isinstance(cards, list) else 0}


@frozen
class DeckSet(Event):
    """A zone is filled with cards in the given order (a shuffled deck, a pile).

    Version 2 added ``count``, which a seat's copy of the log shows when the cards are
    withheld.
    """

    TYPE: ClassVar[str] = "core.deck_set"
    VERSION: ClassVar[int] = 2
    UPCASTERS: ClassVar[dict[int, Any]] = {1: _add_count}
    zone: str
    cards: tuple[str, ...]
    shuffled: bool = True
    count: int = field(default=Factory(_card_count, takes_self=True), validator=_count_matches)

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        if zone_visible(state, seat, self.zone):
            return field_names(DeckSet)
        return ("zone", "shuffled", "count")

    def apply(self, state: GameState) -> GameState:
        return state.with_zone(self.zone, self.cards)

    def chance_kind(self) -> str | None:
        return f"shuffle.{self.zone}" if self.shuffled else None

    def chance_outcome(self) -> Any:
        return self.cards


@frozen
class QueueSet(Event):
    """The travellers line up at the start inn: ``order[0]`` nearest the road."""

    TYPE: ClassVar[str] = "core.queue_set"
    PUBLIC: ClassVar[bool] = True
    order: tuple[int, ...]

    def apply(self, state: GameState) -> GameState:
        if sorted(self.order) != list(range(len(state.pieces))):
            raise FoldError(f"queue {list(self.order)} is not an order of the travellers")
        start = state.rules.start
        pieces = list(state.pieces)
        for slot, piece in enumerate(self.order):
            pieces[piece] = pieces[piece].replace(position=start, slot=slot)
        return state.replace(pieces=tuple(pieces))

    def chance_kind(self) -> str | None:
        return "queue"

    def chance_outcome(self) -> Any:
        return self.order


@frozen
class TravellerSet(Event):
    """A piece becomes a traveller (its starting coins come as a separate event)."""

    TYPE: ClassVar[str] = "core.traveller_set"
    PUBLIC: ClassVar[bool] = True
    piece: int
    traveller: str | None

    def apply(self, state: GameState) -> GameState:
        return state.with_piece(self.piece, traveller=self.traveller)


@frozen
class CoinsChanged(Event):
    """A traveller gains (``delta`` > 0) or pays coins; never below zero."""

    TYPE: ClassVar[str] = "core.coins"
    PUBLIC: ClassVar[bool] = True
    piece: int
    delta: int

    def apply(self, state: GameState) -> GameState:
        coins = state.pieces[self.piece].coins + self.delta
        if coins < 0:
            raise FoldError(f"piece {self.piece} cannot pay {-self.delta} coins")
        return state.with_piece(self.piece, coins=coins)


@frozen
class Scored(Event):
    """A traveller scores (or, if negative, loses) points in a category."""

    TYPE: ClassVar[str] = "core.scored"
    PUBLIC: ClassVar[bool] = True
    piece: int
    category: str
    points: int

    def apply(self, state: GameState) -> GameState:
        if self.category not in state.rules.registry.categories:
            raise FoldError(f"unknown score category {self.category!r}")
        score = state.pieces[self.piece].score
        return state.with_piece(
            self.piece, score=score.set(self.category, score.get(self.category, 0) + self.points)
        )


@frozen
class CounterChanged(Event):
    """A plugin counter of a traveller changes (e.g. its temple donation)."""

    TYPE: ClassVar[str] = "core.counter"
    PUBLIC: ClassVar[bool] = True
    piece: int
    name: str
    delta: int

    def apply(self, state: GameState) -> GameState:
        counters = state.pieces[self.piece].counters
        return state.with_piece(
            self.piece, counters=counters.set(self.name, counters.get(self.name, 0) + self.delta)
        )


@frozen
class DataSet(Event):
    """A plugin value of the game changes."""

    TYPE: ClassVar[str] = "core.data_set"
    key: str
    value: Any

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        return ("key", "value") if data_visible(state, seat, self.key) else ("key",)

    def apply(self, state: GameState) -> GameState:
        return state.with_data(self.key, self.value)


@frozen
class CardsMoved(Event):
    """Cards move from one zone to another.

    ``from_top``: they are the top cards of ``src`` in order (a draw), else any copies;
    ``bottom``: they go under ``dst`` (else on top). ``chance`` names the chance kind when
    which cards moved, or their order, was a random outcome. Version 2 added ``count``,
    which a seat's copy of the log shows when the cards are withheld.
    """

    TYPE: ClassVar[str] = "core.cards_moved"
    VERSION: ClassVar[int] = 2
    UPCASTERS: ClassVar[dict[int, Any]] = {1: _add_count}
    src: str
    dst: str
    cards: tuple[str, ...]
    from_top: bool = False
    bottom: bool = True
    chance: str | None = None
    count: int = field(default=Factory(_card_count, takes_self=True), validator=_count_matches)

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        """Which cards moved is seen by those who can see where they went; how many, by
        everyone."""
        if zone_visible(state, seat, self.dst):
            return field_names(CardsMoved)
        return ("src", "dst", "from_top", "bottom", "chance", "count")

    def apply(self, state: GameState) -> GameState:
        return state.move_cards(self.src, self.dst, self.cards, from_top=self.from_top,
                                bottom=self.bottom)

    def chance_kind(self) -> str | None:
        return self.chance

    def chance_outcome(self) -> Any:
        """An order of several cards, or the one card picked."""
        return self.cards if len(self.cards) > 1 else self.cards[0]


@frozen
class AgendaSet(Event):
    """What must happen next is now ``steps`` (the engine writes this after each action)."""

    TYPE: ClassVar[str] = "core.agenda_set"
    PUBLIC: ClassVar[bool] = True
    steps: tuple[Step, ...]

    def apply(self, state: GameState) -> GameState:
        return state.replace(agenda=self.steps)


@frozen
class GameOver(Event):
    """The journey has ended; the end-of-game scoring events follow it."""

    TYPE: ClassVar[str] = "core.game_over"
    PUBLIC: ClassVar[bool] = True

    def apply(self, state: GameState) -> GameState:
        return state.replace(over=True)


@frozen
class Automatic(Event):
    """The next event is an action the engine took on its own: the decision had one
    possible answer, and every seat could see that it had only one.

    The action is recorded all the same, so that every client can show what was chosen
    ("seat 2 takes the farm"); :func:`decisions` leaves it out of the decisions a player
    made.
    """

    TYPE: ClassVar[str] = "core.automatic"
    PUBLIC: ClassVar[bool] = True

    def apply(self, state: GameState) -> GameState:
        return state


def decisions(events: Iterable[Event]) -> Iterator[Action]:
    """The actions players chose, in order: every :class:`Action` event except those the
    engine took on its own (right after an :class:`Automatic` marker).

    These are what :func:`~tokaido_rules.reproduce` or a fresh game need, applied one by
    one, to play the same game again.
    """
    automatic = False
    for event in events:
        if isinstance(event, Action):
            if not automatic:
                yield event
            automatic = False
        else:
            automatic = type(event) is Automatic


@frozen
class Move(Action):
    """Move a traveller forward to a position and slot, then resolve the stop."""

    TYPE: ClassVar[str] = "core.move"
    PUBLIC: ClassVar[bool] = True
    piece: int
    position: int
    slot: int

    def key(self, state: GameState) -> tuple[Any, ...]:
        """The destination only: the slot follows from it."""
        return (self.TYPE, relative_piece(state, self.seat, self.piece), self.position)

    def apply(self, state: GameState) -> GameState:
        """The decision is answered and the traveller moves, in one copy of the state."""
        agenda = state.agenda
        return self._moved(state, agenda[1:] if self.CONSUMES_STEP and agenda else agenda)

    def effect(self, state: GameState) -> GameState:
        return self._moved(state, state.agenda)

    def _moved(self, state: GameState, agenda: tuple[Step, ...]) -> GameState:
        pieces = list(state.pieces)  # copies as Piece.replace and GameState.replace make
        pieces[self.piece] = _copy_piece(pieces[self.piece],
                                         {"position": self.position, "slot": self.slot})
        return _copy_state(state, {"pieces": tuple(pieces), "turn": state.turn + 1,
                                   "agenda": agenda})

    def __str__(self) -> str:
        slot = f" (slot {self.slot})" if self.slot else ""
        return f"seat {self.seat}: move traveller {self.piece} to {self.position}{slot}"


CORE_EVENTS: tuple[type[Event], ...] = (
    DeckSet, QueueSet, TravellerSet, CoinsChanged, Scored, CounterChanged, DataSet,
    CardsMoved, AgendaSet, GameOver, Automatic, Move,
)

__all__ = [
    "CORE_EVENTS", "Action", "AgendaSet", "Automatic", "CardsMoved", "CoinsChanged",
    "CounterChanged", "DataSet", "DeckSet", "Event", "FrozenMap", "GameOver", "Move",
    "QueueSet", "Scored", "TravellerSet", "decisions", "fold",
]

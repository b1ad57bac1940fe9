"""The immutable game state and the static content it refers to.

Everything here is a frozen attrs class holding tuples and :class:`FrozenMap` values.
State never changes in place: events return new states (:mod:`tokaido_rules.events`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import field, fields, frozen

from .errors import FoldError
from .frozen import EMPTY, FrozenMap, freeze

if TYPE_CHECKING:
    from .ruleset import Rules

JSON = Any
"""A value made of ``None``, ``bool``, ``int``, ``str``, tuples and FrozenMaps."""


def collection_zone(piece: int) -> str:
    """The zone holding a traveller's collection: every card acquired, face up."""
    return _COLLECTIONS[piece] if piece < len(_COLLECTIONS) else f"{COLLECTION}.{piece}"


def secret_zone(piece: int) -> str:
    """The zone holding a traveller's secret cards (e.g. amulets)."""
    return _SECRETS[piece] if piece < len(_SECRETS) else f"{SECRET}.{piece}"


COLLECTION = "core.collection"
"""The zone family of collections: ``core.collection.<piece>``, public."""
SECRET = "core.secret"
"""The zone family of secret cards: ``core.secret.<piece>``, seen by that seat only."""
_COLLECTIONS = tuple(f"{COLLECTION}.{i}" for i in range(8))
_SECRETS = tuple(f"{SECRET}.{i}" for i in range(8))


@frozen
class Space:
    """One position of the road. ``double`` spaces may have a second, off-road slot."""

    kind: str
    double: bool = False
    inn: bool = False


_new = object.__new__


def _copy_state(state: GameState, changes: dict[str, Any]) -> GameState:
    """A copy of a state with ``changes``, made by copying its attribute dictionary: the
    cheapest copy CPython offers (state classes are not slotted for this reason; every
    event fold makes one or two). The new dictionary is set through the class's own
    ``__dict__`` descriptor, a cheaper call than ``object.__setattr__``."""
    new = _new(type(state))
    _set_state_dict(new, {**state.__dict__, **changes})
    return new


def _copy_piece(piece: Piece, changes: dict[str, Any]) -> Piece:
    """A copy of a piece with ``changes``, made as :func:`_copy_state` makes a state's."""
    new = _new(type(piece))
    _set_piece_dict(new, {**piece.__dict__, **changes})
    return new


def _string_set(items: Iterable[str]) -> frozenset[str]:
    return frozenset(items)


@frozen
class Card:
    """A card a plugin registers.

    ``kind`` groups cards (``"souvenir"``, ``"meal"``, ...); ``family`` is the souvenir
    family for set scoring (``None`` for cards outside souvenir sets); ``tags`` say what
    else the card counts as (e.g. ``"collector"`` for the Collector achievement);
    ``effect`` is the step kind that applies the card when it is drawn (encounters).
    """

    id: str
    kind: str
    name: str
    family: str | None = None
    price: int = 0
    points: int = 0
    tags: frozenset[str] = field(default=frozenset(), converter=_string_set)
    effect: str | None = None


@frozen
class Traveller:
    """A traveller tile: its id (lower case), starting coins and display name."""

    name: str
    coins: int
    label: str = ""


@frozen
class Step:
    """One item of the agenda: something that must happen, or be decided, next.

    ``seat`` is the seat that decides (``None`` for a step the engine runs by itself);
    ``piece`` the traveller the step is about; ``data`` any parameters of the step.
    """

    kind: str
    piece: int = -1
    seat: int | None = None
    data: FrozenMap[str, JSON] = field(default=EMPTY, converter=freeze)


@frozen(order=True)
class Staged:
    """A step contributed by a hook, with its place in the sequence (lower runs first)."""

    order: int
    step: Step = field(order=False)


@frozen(slots=False)
class Piece:
    """A traveller on the road. ``seat`` is ``None`` for the 2-player neutral traveller.

    ``slot`` is 0 for the on-road slot of a space, 1 for the off-road slot; at an inn it
    is the arrival order. ``score`` holds points by category; ``counters`` holds plugin
    counters such as temple donations.
    """

    seat: int | None
    traveller: str | None = None
    coins: int = 0
    position: int = 0
    slot: int = 0
    score: FrozenMap[str, int] = field(default=EMPTY, converter=freeze)
    counters: FrozenMap[str, int] = field(default=EMPTY, converter=freeze)

    @property
    def total(self) -> int:
        """The sum of the points of every category."""
        return sum(self.score.values())

    def counter(self, name: str) -> int:
        """A plugin counter's value (0 if never set)."""
        return self.counters.get(name, 0)

    def replace(self, **changes: Any) -> Piece:
        """A copy with ``changes``: much faster than ``attrs.evolve``, because it runs no
        converters (the values must already have the fields' types)."""
        if not changes.keys() <= _PIECE_FIELDS:
            raise TypeError(f"Piece has no field(s) {sorted(changes.keys() - _PIECE_FIELDS)}")
        return _copy_piece(self, changes)


@frozen(slots=False)
class GameState:
    """The whole state of a game at one point; the fold of its events.

    ``zones`` maps zone names to cards (index 0 is the top of a deck); ``agenda`` is what
    must happen next (empty: the rearmost traveller moves); ``data`` holds plugin values;
    ``script`` holds scripted chance outcomes not yet used; ``seq`` counts the events;
    ``chances`` is ``None`` under event keying (the default) and, under purpose keying
    (``Setup.keying``), how many chance events of each purpose came so far
    (:meth:`~tokaido_rules.events.Event.chance_purpose`), which keys the next draws.
    """

    rules: Rules = field(eq=False, repr=False)
    seed: int
    pieces: tuple[Piece, ...]
    zones: FrozenMap[str, tuple[str, ...]] = field(default=EMPTY, converter=freeze)
    agenda: tuple[Step, ...] = ()
    data: FrozenMap[str, JSON] = field(default=EMPTY, converter=freeze)
    script: FrozenMap[str, tuple[JSON, ...]] = field(default=EMPTY, converter=freeze)
    seq: int = 0
    turn: int = 0
    over: bool = False
    chances: FrozenMap[str, int] | None = None

    # --- reading -----------------------------------------------------------------
    @property
    def players(self) -> int:
        """The number of seats (the neutral traveller is not a player)."""
        return self.rules.players

    def zone(self, name: str) -> tuple[str, ...]:
        """The cards of a zone (empty if the zone was never filled)."""
        return self.zones.get(name, ())

    def collection(self, piece: int) -> tuple[str, ...]:
        """A traveller's collection, in acquisition order."""
        return self.zones.get(
            _COLLECTIONS[piece] if piece < len(_COLLECTIONS) else collection_zone(piece), ())

    def secret(self, piece: int) -> tuple[str, ...]:
        """A traveller's secret cards."""
        return self.zones.get(secret_zone(piece), ())

    def order_key(self, piece: int) -> tuple[int, int]:
        """Sort key along the road: higher is further ahead.

        On a space the off-road slot (or any later slot) is further back; at an inn the
        later arrival is further back, so it leaves first.
        """
        p = self.pieces[piece]
        return (p.position, -p.slot)

    def rearmost(self) -> int:
        """The piece that moves next when nothing else is pending: the lowest
        :meth:`order_key` (written out, as it runs at every move)."""
        pieces = self.pieces
        best = 0
        position = pieces[0].position
        slot = pieces[0].slot
        for i in range(1, len(pieces)):
            p = pieces[i]
            if p.position < position or (p.position == position and p.slot > slot):
                best, position, slot = i, p.position, p.slot
        return best

    def leader(self, *, seated_only: bool = False) -> int:
        """The piece furthest along the road (first arrival on a shared space or inn)."""
        candidates = [
            i for i, p in enumerate(self.pieces) if not seated_only or p.seat is not None
        ]
        return max(candidates, key=self.order_key)

    def occupants(self, position: int) -> tuple[int, ...]:
        """Pieces at a position, by slot."""
        at = [(p.slot, i) for i, p in enumerate(self.pieces) if p.position == position]
        return tuple(i for _, i in sorted(at))

    # --- pure updates used by event folds ----------------------------------------
    def replace(self, **changes: Any) -> GameState:
        """A copy with ``changes``: much faster than ``attrs.evolve``, because it runs no
        converters (the values must already have the fields' types). Event folds use it."""
        if not changes.keys() <= _STATE_FIELDS:
            raise TypeError(f"GameState has no field(s) {sorted(changes.keys() - _STATE_FIELDS)}")
        return _copy_state(self, changes)

    def with_piece(self, index: int, **changes: Any) -> GameState:
        """A copy in which piece ``index`` has ``changes`` (as :meth:`Piece.replace`,
        unchecked: event folds call it with the fields' own types)."""
        pieces = self.pieces
        old = pieces[index]
        piece = _new(type(old))
        _set_piece_dict(piece, {**old.__dict__, **changes})
        new = _new(type(self))
        _set_state_dict(new, {**self.__dict__,
                              "pieces": (*pieces[:index], piece, *pieces[index + 1:])})
        return new

    def with_zone(self, name: str, cards: tuple[str, ...]) -> GameState:
        return self.replace(zones=self.zones.set(name, cards))

    def with_data(self, key: str, value: JSON) -> GameState:
        return self.replace(data=self.data.set(key, value))

    def move_cards(self, src: str, dst: str, cards: tuple[str, ...], *, from_top: bool,
                   bottom: bool) -> GameState:
        """Take ``cards`` from ``src`` (its top cards in order if ``from_top``, else any
        copies of them) and put them under (``bottom``) or on top of ``dst``."""
        zones = self.zones
        have = zones.get(src, ())
        if from_top:
            if have[: len(cards)] != cards:
                top = list(have[: len(cards)])
                raise FoldError(f"zone {src!r} does not start with {list(cards)} (top: {top})")
            left = have[len(cards):]
        else:
            rest = list(have)
            for card in cards:
                try:
                    rest.remove(card)
                except ValueError:
                    raise FoldError(f"zone {src!r} holds no {card!r}") from None
            left = tuple(rest)
        target = left if dst == src else zones.get(dst, ())
        return _copy_state(self, {"zones": zones.merge(
            ((src, left), (dst, target + cards if bottom else cards + target)))})


_set_piece_dict = Piece.__dict__["__dict__"].__set__
_set_state_dict = GameState.__dict__["__dict__"].__set__
"""The setters of the ``__dict__`` of pieces and states (:func:`_copy_state`)."""
_PIECE_FIELDS = frozenset(f.name for f in fields(Piece))
_STATE_FIELDS = frozenset(f.name for f in fields(GameState))

"""Per-seat views: what one seat may see of a game (rules reference, Hidden information),
and its copy of the log; and the public view and copy: what every seat may see (a
spectator's).

Public: positions, coins, collections, donations, scores, face-up cards, every zone's
size and card backs. Hidden from a seat: the order of every deck and the seed, other
seats' secret cards and private draws, anything a plugin did not declare visible (fail
closed).

A :class:`View` holds only what its seat may see: nothing reachable from it (its
attributes, theirs, the ruleset's registry and hooks) holds a game state, a game, its
seed or a hidden card, so a view can be handed as it is to a bot, or to whatever turns
it into a client's message. The public view (``seat`` ``None``) holds only what every
seat may see: a zone's cards or a data value only if each seat may see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, Literal

from attrs import field, frozen

from .codec import event_data
from .errors import TokaidoError
from .events import Action, Event, field_names
from .frozen import EMPTY, FrozenMap
from .model import GameState, Piece, Step, collection_zone
from .visibility import hidden_backs, view_data, view_zones

if TYPE_CHECKING:
    from .engine import Game
    from .registry import Registry
    from .ruleset import Ruleset


class UnknownSeatError(TokaidoError, ValueError):
    """A view was asked for a seat that is not in the game."""


PUBLIC: Final = "public"
"""The viewer of the public copy of a log (``dump_log(game, viewer=PUBLIC)``): what every
seat may see, as a spectator does."""

SeatOrPublic = int | Literal["public"]
"""Whose copy of a log a :class:`~tokaido_rules.log.SeatCopy` is: a seat's, or the
public one (:data:`PUBLIC`)."""

Viewer = SeatOrPublic | None
"""Whose copy of a log: a seat's, the public one (:data:`PUBLIC`), or ``None`` for the
full log."""


@frozen(slots=False)  # attrs fills a dict class's 16 fields more cheaply (a view per decision)
class View:
    """What ``seat`` may see at one point of a game; with ``seat`` ``None``, the public
    view (:meth:`Game.public_view <tokaido_rules.Game.public_view>`): what every seat may
    see, as a spectator does.

    ``zones`` holds the cards of every zone the seat may see; ``zone_sizes`` the number
    of cards of every zone; ``hidden_backs`` the card backs of every other zone;
    ``legal_actions`` is filled only when the seat decides (never in the public view).
    """

    seat: int | None
    players: int
    seq: int
    turn: int
    over: bool
    pieces: tuple[Piece, ...]
    zones: FrozenMap[str, tuple[str, ...]]
    zone_sizes: FrozenMap[str, int]
    hidden_backs: FrozenMap[str, FrozenMap[str, int]]
    """Per zone the seat may not see, how many of its cards come from each deck (card
    backs are public); :attr:`zone_backs` has every zone's."""
    data: FrozenMap[str, Any]
    agenda: tuple[Step, ...]
    current_player: int | None
    current_step: Step | None
    legal_actions: tuple[Action, ...]
    ruleset: Ruleset = field(eq=False, repr=False)
    """The rules the table plays (plugins and options are public)."""

    @cached_property
    def zone_backs(self) -> FrozenMap[str, FrozenMap[str, int]]:
        """Per zone, how many of its cards come from each deck: card backs are public.

        Those of the zones the seat sees are counted from their cards when first asked
        (a view is made at every decision, and few readers need them)."""
        hidden = self.hidden_backs
        seen = self.ruleset.registry.zone_backs(self.zones)
        return FrozenMap({name: hidden[name] if name in hidden else seen[name]
                          for name in self.zone_sizes})

    def collection(self, piece: int) -> tuple[str, ...]:
        return self.zones.get(collection_zone(piece), ())

    def _repr_svg_(self) -> str:
        """The board as this seat sees it, as SVG, for notebooks
        (:func:`tokaido_rules.render.svg`)."""
        from .render import svg

        return svg(self)


def check_seat(state: GameState, seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise UnknownSeatError(f"no seat {seat!r} in a {state.players}-player game")
    return seat


_new = object.__new__
_set = object.__setattr__

_last_sizes: tuple[Mapping[str, tuple[str, ...]], FrozenMap[str, int]] = (EMPTY, EMPTY)
"""The zones of the last view made and the number of cards of each (public): the next
view is often of the same zones, for another seat. Kept here, where no view reaches."""


def _hidden_backs(registry: Registry, hidden: dict[str, tuple[str, ...]]) -> FrozenMap[
        str, FrozenMap[str, int]]:
    """:meth:`Registry.zone_backs` of the hidden zones, counted again only for a zone
    whose cards are not the same tuple as when last counted
    (:func:`~tokaido_rules.visibility.hidden_backs`, kept per registry there, where no
    view reaches; the fast engine's views count theirs here)."""
    return FrozenMap(hidden_backs(registry, hidden))


def make_view(game: Game, seat: int | None) -> View:
    """The :class:`View` of ``seat`` (a bot gets one at every decision): each zone's
    size, and its cards or, hidden, its card backs. ``None``: the public view
    (:func:`make_public_view`)."""
    global _last_sizes
    state = game.state
    rules = state.rules
    if type(seat) is not int or not 0 <= seat < rules.players:
        if seat is None:  # off the hot path: a seat's view never comes here
            return make_public_view(game)
        seat = check_seat(state, seat)
    zones = state.zones
    shown, backs = view_zones(state, seat)
    step = game.current_step
    player = None if step is None else step.seat
    last = _last_sizes  # read once: another thread may replace it meanwhile
    if last[0] is zones:
        sizes = last[1]
    else:
        sizes = FrozenMap(zip(zones, map(len, zones.values()), strict=False))
        _last_sizes = (zones, sizes)
    view = _new(View)
    _set(view, "__dict__", {  # View's own fields, as attrs would set them (no converters)
        "seat": seat, "players": rules.players, "seq": state.seq, "turn": state.turn,
        "over": state.over, "pieces": state.pieces, "zones": shown,
        "zone_sizes": sizes, "hidden_backs": backs,
        "data": view_data(state, seat), "agenda": state.agenda,
        "current_player": player, "current_step": step,
        "legal_actions": game.legal_actions() if player == seat else (),
        "ruleset": rules.ruleset,
    })
    return view


def make_public_view(game: Game) -> View:
    """The public view (``seat`` ``None``): what every seat may see, as a spectator does.

    A zone's cards only if every seat may see them (the intersection over the seats of
    :func:`~tokaido_rules.visibility.zone_visible`), the card backs of the others; the
    game data every seat may see; every zone's size, the pieces, the agenda and whose
    decision it is (public, as in every seat's view); never legal actions."""
    global _last_sizes
    state = game.state
    rules = state.rules
    zones = state.zones
    shown, backs = view_zones(state, None)
    step = game.current_step
    last = _last_sizes
    if last[0] is zones:
        sizes = last[1]
    else:
        sizes = FrozenMap(zip(zones, map(len, zones.values()), strict=False))
        _last_sizes = (zones, sizes)
    view = _new(View)
    _set(view, "__dict__", {
        "seat": None, "players": rules.players, "seq": state.seq, "turn": state.turn,
        "over": state.over, "pieces": state.pieces, "zones": shown,
        "zone_sizes": sizes, "hidden_backs": backs,
        "data": view_data(state, None), "agenda": state.agenda,
        "current_player": None if step is None else step.seat, "current_step": step,
        "legal_actions": (), "ruleset": rules.ruleset,
    })
    return view


def redact(event: Event, state: GameState, seat: int | None, *,
           data: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The data of ``event`` that ``seat`` may see (``state``: right after the event), and
    the names of the withheld fields; ``seat`` ``None``: the data every seat may see
    (:func:`public_fields`), as in the public copy of the log. ``data``: the event's
    whole data (:func:`~tokaido_rules.codec.event_data`) when the caller has it already
    (several copies of one log)."""
    shown = set(event.visible_fields(state, seat)) if seat is not None else public_fields(
        event, state)
    if data is None:
        data = event_data(event)
    withheld = tuple(n for n in field_names(type(event)) if n not in shown)
    return {k: v for k, v in data.items() if k in shown}, withheld


def public_fields(event: Event, state: GameState) -> set[str]:
    """The fields of ``event`` every seat may see (``state``: right after the event): the
    intersection over the seats of :meth:`~tokaido_rules.events.Event.visible_fields`."""
    shown = set(event.visible_fields(state, 0))
    for seat in range(1, state.players):
        if not shown:
            break
        shown &= set(event.visible_fields(state, seat))
    return shown

"""Per-seat views: what one seat may see of a game (RULES.md 7), and its copy of the log.

Public: positions, coins, collections, donations, scores, face-up cards, every zone's
size. Hidden from a seat: the order of every deck and the seed, other seats' secret
cards and private draws, anything a plugin did not declare visible (fail closed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from attrs import frozen

from .errors import TokaidoError
from .events import Action, Event, fold
from .frozen import FrozenMap
from .model import GameState, Piece, Step
from .visibility import data_visible, zone_visible

if TYPE_CHECKING:
    from .engine import Game


class UnknownSeatError(TokaidoError, ValueError):
    """A view was asked for a seat that is not in the game."""


@frozen
class View:
    """What ``seat`` may see at one point of a game.

    ``zones`` holds the cards of every zone the seat may see; ``zone_sizes`` the number
    of cards of every zone; ``legal_actions`` is filled only when the seat decides.
    """

    seat: int
    players: int
    seq: int
    turn: int
    over: bool
    pieces: tuple[Piece, ...]
    zones: FrozenMap[str, tuple[str, ...]]
    zone_sizes: FrozenMap[str, int]
    data: FrozenMap[str, Any]
    current_player: int | None
    current_step: Step | None
    legal_actions: tuple[Action, ...]

    def collection(self, piece: int) -> tuple[str, ...]:
        from .model import collection_zone

        return self.zones.get(collection_zone(piece), ())


def check_seat(state: GameState, seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise UnknownSeatError(f"no seat {seat!r} in a {state.players}-player game")
    return seat


def make_view(game: Game, seat: int) -> View:
    state = game.state
    seat = check_seat(state, seat)
    visible = FrozenMap({
        name: cards for name, cards in state.zones.items() if zone_visible(state, seat, name)
    })
    return View(
        seat=seat,
        players=state.players,
        seq=state.seq,
        turn=state.turn,
        over=state.over,
        pieces=state.pieces,
        zones=visible,
        zone_sizes=FrozenMap({name: len(cards) for name, cards in state.zones.items()}),
        data=FrozenMap({k: v for k, v in state.data.items() if data_visible(state, seat, k)}),
        current_player=game.current_player,
        current_step=game.current_step,
        legal_actions=game.legal_actions() if game.current_player == seat else (),
    )


def redacted_events(
    game: Game, seat: int
) -> Iterator[tuple[Event, dict[str, Any], tuple[str, ...]]]:
    """Each event with the data ``seat`` may see and the names of the withheld fields."""
    from .engine import initial_state

    seat = check_seat(game.state, seat)
    state = initial_state(game.state.rules, game.seed)
    for event in game.events:
        state = fold(state, event)
        data, withheld = redact(event, state, seat)
        yield event, data, withheld


def redact(event: Event, state: GameState, seat: int) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The data of ``event`` that ``seat`` may see (``state``: right after the event), and
    the names of the withheld fields."""
    from .events import field_names
    from .log import event_data

    shown = set(event.visible_fields(state, seat))
    data = event_data(event)
    withheld = tuple(n for n in field_names(type(event)) if n not in shown)
    return {k: v for k, v in data.items() if k in shown}, withheld

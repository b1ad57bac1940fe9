"""Helpers to build exact scenarios: chosen travellers, queues, stacked decks, coins.

Queue order: ``queue[0]`` is nearest the road; the last piece in the queue moves first.
In 2-player games the neutral traveller is piece 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from tokaido_rules import Action, Game, Move, Setup, new_game
from tokaido_variants.good_luck import BuyLuck

A = TypeVar("A", bound=Action)

# Zones of the base game.
SOUVENIRS = "base.souvenirs"
MEALS = "base.meals"
HOT_SPRINGS = "base.hot_springs"
ENCOUNTERS = "base.encounters"


def start(
    travellers: Sequence[str],
    *,
    queue: Sequence[int] | None = None,
    stacks: Mapping[str, Sequence[str]] | None = None,
    coins: Mapping[int, int] | None = None,
    chance: Mapping[str, Sequence[Any]] | None = None,
    options: Mapping[str, object] | None = None,
    plugins: Sequence[str] = ("base",),
    seed: int = 0,
) -> Game:
    """A game with one traveller per seat (their number sets the player count)."""
    players = len(travellers)
    pieces = players + (1 if players == 2 else 0)
    setup = Setup(
        travellers=tuple(travellers),
        queue=tuple(queue) if queue is not None else tuple(range(pieces)),
        stacks={k: tuple(v) for k, v in (stacks or {}).items()},
        coins=dict(coins or {}),
        chance={k: tuple(v) for k, v in (chance or {}).items()},
    )
    return new_game(players, seed=seed, plugins=plugins, options=options, setup=setup)


def legal(game: Game, cls: type[A], **fields: Any) -> list[A]:
    """The legal actions of type ``cls`` whose fields equal ``fields``."""
    return [
        a for a in game.legal_actions()
        if isinstance(a, cls) and all(getattr(a, k) == v for k, v in fields.items())
    ]


def act(game: Game, cls: type[A], **fields: Any) -> Game:
    """Apply the one legal action of type ``cls`` matching ``fields``."""
    found = legal(game, cls, **fields)
    if len(found) != 1:
        raise AssertionError(
            f"expected one legal {cls.__name__} with {fields}, found {found}; "
            f"legal: {game.legal_actions()}"
        )
    return game.apply(found[0])


def move(game: Game, position: int) -> Game:
    """The current traveller moves to ``position`` (its free slot)."""
    return act(game, Move, position=position)


def coins(game: Game, piece: int) -> int:
    return game.state.pieces[piece].coins


def points(game: Game, piece: int, category: str | None = None) -> int:
    p = game.state.pieces[piece]
    return p.total if category is None else p.score.get(category, 0)


def collection(game: Game, piece: int) -> tuple[str, ...]:
    return game.state.collection(piece)


def moving_piece(game: Game) -> int:
    """The piece the current decision is about."""
    step = game.current_step
    assert step is not None
    return step.piece


GOOD_LUCK = ("base", "crossroads", "good-luck")


def lucky(
    travellers: Sequence[str],
    holdings: Mapping[int, str],
    *,
    queue: Sequence[int] | None = None,
    coins: Mapping[int, int] | None = None,
    stacks: Mapping[str, Sequence[str]] | None = None,
    chance: Mapping[str, Sequence[Any]] | None = None,
    options: Mapping[str, object] | None = None,
    plugins: Sequence[str] = GOOD_LUCK,
) -> Game:
    """Good Luck: every seat in ``holdings`` buys that (scripted) amulet at setup, usable
    from the first move (RULES.md 9).

    ``coins`` are the coins each seat has once the amulets are bought (a buyer starts
    with one more, since crafted starting coins come before Good Luck's purchases).
    """
    pieces = len(travellers) + (1 if len(travellers) == 2 else 0)
    order = tuple(queue) if queue is not None else tuple(range(pieces))
    picks = [holdings[p] for p in reversed(order) if p in holdings]  # departure order
    starting = None if coins is None else {
        seat: n + (1 if seat in holdings else 0) for seat, n in coins.items()}
    game = start(
        travellers, plugins=plugins, queue=queue, coins=starting, stacks=stacks,
        chance={**(chance or {}), "pick.crossroads.amulets": picks}, options=options,
    )
    while game.current_step is not None and game.current_step.kind == "good-luck.buy":
        game = act(game, BuyLuck, buy=moving_piece(game) in holdings)
    return game

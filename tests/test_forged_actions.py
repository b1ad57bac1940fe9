"""Forged actions (a server builds actions from client JSON): a variant of a legal
action with a float, a boolean, a string, an out-of-range number or another seat is
refused with ``IllegalActionError`` and changes nothing, or, if it equals a legal
action, the legal instance is what the game records. The log always loads back."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

from tokaido_rules import (
    Action,
    Event,
    Game,
    IllegalActionError,
    Ruleset,
    dump_log,
    field_names,
    load_log,
    new_game,
)
from tokaido_rules.frozen import FrozenMap

RULESETS = (
    (3, ("base",)),
    (4, ("base", "crossroads", "good-luck")),
    (2, ("base", "new-encounters", "crossroads", "rare-and-precious")),
    (5, ("base", "crossroads", "bga")),
)


def variants(action: Action, players: int) -> list[Action]:
    """Forgeries of ``action``: each field given another type or an impossible value, and
    the same action claimed by every other seat."""
    out: list[Action] = []
    cls = type(action)
    for name in field_names(cls):
        value = getattr(action, name)
        forged: list[Any] = []
        if type(value) is bool:
            forged = [int(value), str(value).lower(), None]
        elif type(value) is int:
            forged = [float(value), str(value), value + 1000, -1 - value, [value]]
            if value in (0, 1):
                forged.append(bool(value))
        elif isinstance(value, str):
            forged = [value + "x", 1, None, [value]]
        elif value is None:
            forged = [0, "", False]
        elif isinstance(value, tuple):
            forged = [list(value), (*value, value[0]) if value else ("koma",)]
        for bad in forged:
            out.append(attrs.evolve(action, **{name: bad}))
    for seat in range(players):
        if seat != action.seat:
            out.append(attrs.evolve(action, seat=seat))
    return out


def same_types(a: Event, b: Event) -> bool:
    return type(a) is type(b) and all(
        type(getattr(a, n)) is type(getattr(b, n)) for n in field_names(type(a)))


@pytest.mark.parametrize(("players", "plugins"), RULESETS,
                         ids=["-".join(p) + f"-{n}" for n, p in RULESETS])
def test_forged_actions_are_refused_or_recorded_as_the_legal_one(
        players: int, plugins: tuple[str, ...]) -> None:
    """At every decision of a game, forgeries of (some of) the legal actions are refused
    with the game unchanged, or recorded exactly as the legal action they equal."""
    ruleset = Ruleset.build(plugins)
    pick = random.Random(players)
    game = new_game(players, seed=11 + players, plugins=ruleset)
    tried = 0
    while not game.is_over:
        legal = game.legal_actions()
        state = game.state
        for action in pick.sample(legal, min(3, len(legal))):
            for forged in variants(action, players):
                try:
                    after = game.apply(forged)
                except IllegalActionError:
                    assert game.state is state
                else:
                    recorded = after.events[state.seq]
                    assert forged in legal, forged
                    assert same_types(recorded, legal[legal.index(forged)]), recorded
                tried += 1
        game = game.apply(pick.choice(legal))
    assert tried > 1000
    assert load_log(dump_log(game)).state == game.state


def test_a_float_amount_never_reaches_the_state() -> None:
    """The issue's example: a donation of 2.0 coins is refused, not recorded."""
    from tokaido_base import Donate
    from tokaido_rules import Move, Setup

    game = new_game(3, seed=1, setup=Setup(travellers=("kinko", "zenemon", "satsuki"),
                                           queue=(0, 1, 2)))
    game = game.apply(Move(2, 2, 2, 0))  # the temple
    assert Donate(2, 2, 2) in game.legal_actions()
    forged: Any = 2.0
    with pytest.raises(IllegalActionError, match="amount"):
        game.apply(Donate(2, 2, forged))
    assert game.apply(Donate(2, 2, 2)).state.pieces[2].counter("base.donation") == 2


def test_state_values_are_frozen_deeply() -> None:
    """Rare & Precious records the cards in play: what a view gets cannot be changed,
    so neither the live state nor a past event can be."""
    game = new_game(3, plugins=("base", "crossroads", "rare-and-precious"), seed=3)
    record = game.state.data["rare-and-precious.in_play"]
    assert isinstance(record, FrozenMap)
    assert all(isinstance(v, tuple) for v in record.values())
    view_record = game.view(0).data["rare-and-precious.in_play"]
    with pytest.raises(TypeError):
        view_record["amulets"] = ()
    hash(game.state.data)


def test_malformed_actions_name_the_problem() -> None:
    """A malformed action is an ``IllegalActionError`` saying what is wrong, never an
    ``IndexError`` or ``TypeError`` from the explanation code."""
    from tokaido_rules import Move

    game: Game = new_game(3, travellers=("kinko", "zenemon", "satsuki"), seed=2)
    step = game.current_step
    assert step is not None and step.seat is not None
    seat, piece = step.seat, step.piece
    cases: list[tuple[object, str]] = [
        (Move(seat, 99, 5, 0), "no traveller 99"),
        (Move(seat, piece, "5", 0), "'position' must be int"),  # type: ignore[arg-type]
        (Move(seat, piece, 5, [0]), "'slot' must be int"),  # type: ignore[arg-type]
        (Move(seat, piece, 5.0, 0), "'position' must be int"),  # type: ignore[arg-type]
        (Move(9, piece, 5, 0), "no seat 9"),
        ("move", "not an action"),
    ]
    for forged, reason in cases:
        with pytest.raises(IllegalActionError, match=reason):
            game.apply(forged)  # type: ignore[arg-type]
        assert game.current_step == step

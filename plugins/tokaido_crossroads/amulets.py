"""Amulets (RULES.md 5.5): held secretly, usable from the next move on, returned after use."""

from __future__ import annotations

from tokaido_rules import Context, FrozenMap, GameState, Step, secret_zone

from .content import AMULETS

ACQUIRED = "crossroads.amulet_turns"
"""Data family ``crossroads.amulet_turns.<piece>``: amulet -> turn it was acquired in
(seen only by its owner's seat)."""
DEVOTION_ACTIVE = "crossroads.devotion"
"""Data family ``crossroads.devotion.<piece>``: the turn in which Devotion is active."""


def acquired_key(piece: int) -> str:
    return f"{ACQUIRED}.{piece}"


def devotion_key(piece: int) -> str:
    return f"{DEVOTION_ACTIVE}.{piece}"


def holds(state: GameState, piece: int, amulet: str) -> bool:
    return amulet in state.zones.get(secret_zone(piece), ())


def usable(state: GameState, piece: int, amulet: str, step: Step) -> bool:
    """Whether ``piece`` may use ``amulet`` at decision ``step``.

    An amulet acquired in turn T is usable from the traveller's next move on: at the
    decision before a move (which starts turn ``state.turn + 1``) or later in a later
    turn. Option ``crossroads.amulet_same_turn`` lifts the wait.
    """
    if not holds(state, piece, amulet) or state.pieces[piece].seat is None:
        return False
    if state.rules.option("crossroads.amulet_same_turn"):
        return True
    acquired = state.data.get(acquired_key(piece), FrozenMap()).get(amulet, -1)
    current = state.turn + (1 if step.kind == "core.move" else 0)
    return bool(current > acquired)


def gain_amulet(ctx: Context, piece: int, amulet: str, *, chance: str | None = None) -> None:
    """An amulet joins a traveller's secret cards; remember when (for its first use)."""
    ctx.move_cards(AMULETS, secret_zone(piece), (amulet,), chance=chance)
    turns = ctx.state.data.get(acquired_key(piece), FrozenMap())
    ctx.emit_data(acquired_key(piece), FrozenMap({**turns, amulet: ctx.state.turn}))


def spend_amulet(ctx: Context, piece: int, amulet: str) -> None:
    """A used amulet is revealed and goes back to the pile, where it can be taken again."""
    ctx.move_cards(secret_zone(piece), AMULETS, (amulet,))


def amulet_pile_visible(state: GameState, seat: int, zone: str) -> bool:
    """The pile is face down; a seat choosing an amulet looks through it."""
    return bool(state.agenda) and state.agenda[0].kind == "crossroads.take_amulet" and (
        state.agenda[0].seat == seat)

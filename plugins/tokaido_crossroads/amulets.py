"""Amulets (rules reference, Amulets): held secretly, usable from the next move on,
returned after use."""

from __future__ import annotations

from tokaido_rules import Context, FrozenMap, GameState, Step, secret_zone

from .content import AMULET_CARDS, AMULETS

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


def usable_count(state: GameState, piece: int, step: Step) -> int:
    """How many of its amulets ``piece`` may use at decision ``step``.

    Public, although which amulets are held is not: every seat sees how many amulets a
    traveller holds and in which turn each was taken (only not which one).
    """
    if state.pieces[piece].seat is None:
        return 0
    held = [a for a in state.zones.get(secret_zone(piece), ()) if a in AMULET_CARDS]
    if not held or state.rules.option("crossroads.amulet_same_turn"):
        return len(held)
    acquired = state.data.get(acquired_key(piece), FrozenMap())
    current = state.turn + (1 if step.kind == "core.move" else 0)
    return sum(1 for a in held if current > acquired.get(a, -1))


def amulet_window(state: GameState, piece: int, step: Step) -> bool:
    """Whether ``piece``'s seat is asked at ``step`` even where it has one possible answer:
    it holds an amulet it may use now, whichever it is. Asking on this public condition,
    and offering the amulet only to its holder, keeps secret which amulet is held."""
    return usable_count(state, piece, step) > 0


def holds_any(state: GameState, piece: int) -> bool:
    """Whether a traveller holds an amulet (the count is public)."""
    return any(a in AMULET_CARDS for a in state.zones.get(secret_zone(piece), ()))


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

"""The core's own rules: the move decision, the end of the journey and crafted starting
coins (registered by the ruleset for every game, before any plugin).

They sit below both :mod:`~tokaido_rules.ruleset`, which registers them, and
:mod:`~tokaido_rules.engine`, which runs them, so neither module imports the other
back; the engine re-exports the public names (``MOVE``, :func:`legal_moves`,
:func:`schedule_arrival`, ...).
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

from .events import Action, GameOver, Move
from .model import GameState, Step

if TYPE_CHECKING:
    from .engine import Context

MOVE = "core.move"
GAME_OVER_STEP = "core.game_over"
START_COINS_STEP = "core.start_coins"
START_COINS_ORDER = 110
"""Crafted starting coins replace the travellers' printed coins (setup order 100) and
come before anything that adjusts or spends them (Preparations, Good Luck)."""


# --- the move decision ----------------------------------------------------------------


_MOVES: dict[tuple[int, int, int, int], Move] = {}
"""Every plain move made so far, by its fields: moves are immutable and few (seat,
piece, position, slot), so one instance of each is shared."""


def _move(seat: int, piece: int, position: int, slot: int) -> Move:
    key = (seat, piece, position, slot)
    move = _MOVES.get(key)
    if move is None:
        move = _MOVES[key] = Move(seat, piece, position, slot)
    return move


OpenRoad = tuple[tuple[int, ...], tuple[Move, ...]]
"""Every position up to the next inn and the move to its first slot."""


def _open_road(next_inn: tuple[int, ...], seat: int, piece: int, here: int) -> OpenRoad:
    positions = tuple(range(here + 1, next_inn[here] + 1))
    return positions, tuple(_move(seat, piece, pos, 0) for pos in positions)


_ROADS: dict[int, tuple[tuple[int, ...], dict[tuple[int, int, int], OpenRoad]]] = {}
"""The open roads of each board layout (its ``next_inn`` table, one per ruleset and
player count), by seat, traveller and position. Kept here, not on the ruleset, which
every view reaches: a table filled by play would tell one table's bot where the
travellers of other games have been. An entry remembers its layout, so a layout made
later at the same address is never answered from it."""


def _roads(next_inn: tuple[int, ...]) -> dict[tuple[int, int, int], OpenRoad]:
    global _last_roads
    last = _last_roads  # read once: another thread may replace it meanwhile
    if last[0] is next_inn:
        return last[1]
    entry = _ROADS.get(id(next_inn))
    if entry is None or entry[0] is not next_inn:
        if len(_ROADS) >= 64:
            _ROADS.clear()
        entry = _ROADS[id(next_inn)] = (next_inn, {})
    _last_roads = entry
    return entry[1]


_last_roads: tuple[tuple[int, ...], dict[tuple[int, int, int], OpenRoad]] = ((), {})
"""The entry of :data:`_ROADS` used last: nearly always the one asked for next."""


def _free_stops(state: GameState, piece: int, seat: int) -> OpenRoad:
    """Every position up to the next inn with a free slot, and the move to that slot.

    The moves of an empty road ahead are made once per board layout (:data:`_ROADS`);
    only the positions other travellers hold are looked at each time.
    """
    rules = state.rules
    pieces = state.pieces
    here = pieces[piece].position
    next_inn = rules.next_inn
    last = next_inn[here]
    roads = _roads(next_inn)
    found = roads.get((seat, piece, here))
    if found is None:
        found = roads[seat, piece, here] = _open_road(next_inn, seat, piece, here)
    positions, moves = found
    taken: dict[int, list[int]] | None = None
    for q in pieces:
        pos = q.position
        if here < pos <= last:
            if taken is None:
                taken = {pos: [q.slot]}
            else:
                used = taken.get(pos)
                if used is None:
                    taken[pos] = [q.slot]
                else:
                    used.append(q.slot)
    if taken is None:
        return found
    listed = list(moves)
    full: list[int] = []
    slots = rules.slots
    for pos, used in taken.items():
        i = pos - here - 1
        count = slots[pos]
        if count == 1:  # most spaces: free only if its one slot is
            if 0 in used:
                full.append(i)
        elif count == 0:  # an inn (no slot limit) takes everyone, in order of arrival
            listed[i] = _move(seat, piece, pos, len(used))
        else:
            for slot in range(count):
                if slot not in used:
                    if slot:
                        listed[i] = _move(seat, piece, pos, slot)
                    break
            else:
                full.append(i)
    if full:
        kept = list(positions)
        for i in sorted(full, reverse=True):
            del kept[i]
            del listed[i]
        positions = tuple(kept)
    return positions, tuple(listed)


def legal_moves(state: GameState, step: Step) -> tuple[Action, ...]:
    """The moves of ``step.piece``: every free slot up to the next inn a rule allows."""
    piece = step.piece
    positions, moves = _free_stops(state, piece, step.seat if step.seat is not None else -1)
    forbidden = state.rules.hooks.forbidden_stops(state, piece, positions)
    if not forbidden:
        return moves
    reason = forbidden.get
    return tuple([m for m in moves if reason(m.position) is None])


def _explain_move(state: GameState, step: Step, action: Move) -> str:
    p = state.pieces[action.piece]
    if action.piece != step.piece:
        return f"traveller {action.piece} does not move now (traveller {step.piece} does)"
    if action.position <= p.position:
        return f"a move goes forward: {action.position} is not past {p.position}"
    last = state.rules.next_inn[p.position]
    if action.position > last:
        return f"a move never passes the next inn ({last}): {action.position} is past it"
    positions, moves = _free_stops(state, action.piece,
                                   step.seat if step.seat is not None else -1)
    forbidden = state.rules.hooks.forbidden_stops(state, action.piece, positions)
    for move in moves:
        if move.position == action.position:
            reason = forbidden.get(move.position)
            if reason is not None:
                return f"cannot stop at {move.position}: {reason}"
            if move.slot != action.slot:
                return f"the free slot at {move.position} is {move.slot}, not {action.slot}"
    return f"position {action.position} is full"


def resolve_move(ctx: Context, step: Step, action: Move) -> None:
    """After a move, schedule what the stop triggers (the space, powers, meals, ...)."""
    schedule_arrival(ctx, action.piece)


_STEP_OF = attrgetter("step")


def schedule_arrival(ctx: Context, piece: int) -> None:
    """Schedule what a traveller's stop triggers (:func:`tokaido_arrival_steps`).

    Plugins that add their own kinds of move (a :class:`Move` subclass) call this from
    the move's resolver, as the core does for a plain move.
    """
    ctx._new.extend(map(_STEP_OF, ctx.hooks.arrival_steps(ctx.state, piece)))


def _game_over(ctx: Context, step: Step) -> None:
    ctx.emit(GameOver())


def _start_coins(ctx: Context, step: Step) -> None:
    for seat, coins in ctx.rules.setup.coins.items():
        ctx.coins(seat, coins - ctx.state.pieces[seat].coins)

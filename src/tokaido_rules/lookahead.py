"""The greedy bot's lookahead on a fast game: a bot's concern, kept out of the kernel
(:mod:`tokaido_rules.fast`) yet compiled with it.

:func:`gains` is most of a greedy decision on the fast engine. It reads the kernel's
flat state (scores, coins, positions, the step ahead), so in the compiled build
(``tokaido build-fast``, :mod:`tokaido_rules.native`) it is compiled in the kernel's
group, as the plugins' fast modules are: its copy carries the SHA-256 of this source
and is used only while it matches and the kernel in use is compiled too; otherwise this
plain Python runs, with the same results.
"""

from __future__ import annotations

from tokaido_rules.events import Action, Move
from tokaido_rules.fast import D_MOVE, FastGame, take_compiled

__all__ = ["gains"]

_BUILT_FROM: str | None = None
"""In the compiled build, the SHA-256 of the source of this module it was compiled
from; ``None`` in the source itself."""


def gains(game: FastGame, actions: tuple[Action, ...], seat: int, depth: int,
          coin_value: float, skip_cost: float) -> list[float]:
    """What each of ``actions`` gains ``seat`` on ``game``, as the greedy bot judges it
    (:func:`~tokaido_rules.bots.greedy_value`, its specification on either engine): its
    points plus its coins at ``coin_value`` after the action, less before, less
    ``skip_cost`` per space a move of its own skips; a move of the neutral traveller
    counts against; a move to an inn is judged there; else, up to ``depth`` times, the
    best of its own next decision at the same stop is added. The same arithmetic in the
    same order as the bot's. ``game`` is used up: each action but the last is applied to
    a copy (:meth:`~tokaido_rules.fast.FastGame.clone`), the last to ``game`` itself."""
    before = sum(game.score[seat]) + coin_value * game.coins[seat]
    pos = game.pos
    seats = game.seat
    inn = game.T.inn
    last = len(actions) - 1
    values: list[float] = []
    for k in range(len(actions)):
        action = actions[k]
        cost = 0.0
        target = -1  # where a move goes
        seated = True
        if isinstance(action, Move):
            target = action.position
            seated = seats[action.piece] is not None
            if seated:
                cost = skip_cost * max(0, target - pos[action.piece] - 1)
        after = (game if k == last else game.clone()).apply(action)
        gain = (sum(after.score[seat]) + coin_value * after.coins[seat]) - before - cost
        if target >= 0:
            if not seated:
                values.append(-gain)
                continue
            if inn[target]:
                values.append(gain)
                continue
        step = after._step  # the kernel's next step (kind, piece, seat, data)
        if depth > 0 and step is not None and step[2] == seat and step[0] != D_MOVE:
            follow = after.legal_actions()
            if follow:
                gain += max(gains(after, follow, seat, depth - 1, coin_value, skip_cost))
        values.append(gain)
    return values


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    take_compiled(globals())

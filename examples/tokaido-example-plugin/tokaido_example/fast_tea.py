"""The ``tea-ceremony`` plugin on the fast simulator (:mod:`tokaido_rules.fast`): additive
rules.

One step kind of its own (``tea-ceremony.serve``), scheduled by the ``arrival`` seam
where the reference's ``tokaido_arrival_steps`` schedules it: at every inn a seated
traveller stops at, the final one included (the step finds there is nothing to serve,
as the reference's does, but the agenda holds it all the same), after every other step
of the stop (its order, 950, is after each step the shipped plugins schedule at an
inn: the inn closing is 900). One score category (``tea``), one event counted where
the reference emits ``tea-ceremony.tea_served``, and the option
``tea-ceremony.points`` at both of its values. Loaded only by the plugin's
``tokaido_fast_rules`` hook, never by the reference engine.
"""

from __future__ import annotations

from tokaido_rules.fast import FastGame, FastRules, FastTables, Step

from .tea import CATEGORY

_SERVE = "tea-ceremony.serve"
_POINTS = "tea-ceremony.points"


class _Tea:
    """What the rules need of one ruleset and player count: the kernel's number of the
    serve step, the tea's place in a score row and the points the option gives."""

    __slots__ = ("category", "points", "serve")

    def __init__(self, T: FastTables) -> None:
        self.serve = T.kind_of(_SERVE)
        self.category = T.category_index[CATEGORY]
        points = T.ruleset.options[_POINTS]
        assert isinstance(points, int)
        self.points = points


class TeaRules(FastRules):
    """The serve step: scheduled at an inn, run when the last traveller arrives."""

    def prepare(self, T: FastTables) -> object:
        return _Tea(T)

    def arrival(self, T: FastTables, piece: int, seat: int | None, power: int,
                position: int, steps: list[Step]) -> None:
        """A seated traveller's stop at an inn ends with the serve step (as the
        reference's ``Step("tea-ceremony.serve", piece)``: no seat, no data)."""
        if seat is not None and T.inn[position]:
            K: _Tea = T.extra["tea-ceremony"]
            steps.append((K.serve, piece, None, 0))

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        """Tea for the traveller whose arrival completes an intermediate inn (every
        traveller there, neutral ones included); nothing at the final inn."""
        piece = step[1]
        here = game.pos[piece]
        if here == game.T.end or game.pos.count(here) != len(game.pos):
            return
        K: _Tea = game.T.extra["tea-ceremony"]
        game._add_points(piece, K.category, K.points)
        game.seq += 1  # the reference's TeaServed


RULES = TeaRules(steps=(_SERVE,), seams=("arrival",), categories=(CATEGORY,),
                 options={_POINTS: (1, 2)}, views=True)
"""The tea-ceremony plugin's fast rules (what its ``tokaido_fast_rules`` returns)."""

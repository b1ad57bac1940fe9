"""The ``tea-ceremony`` plugin, a house rule: at each intermediate inn, the last traveller
to arrive is served tea and scores points (option ``tea-ceremony.points``: 1 or 2).

It shows a plugin's own event type (with its wire name, version, fold and visibility),
its own score category and its own rule option.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from attrs import frozen

from tokaido_rules import (
    Context,
    Event,
    GameState,
    PluginInfo,
    Registry,
    Staged,
    Step,
    hookimpl,
)

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

CATEGORY = "tea"
SERVE_ORDER = 950
"""After everything else the arrival triggers (the meal, the inn closing)."""


@frozen
class TeaServed(Event):
    """A traveller is served tea at an inn and scores ``points``."""

    TYPE: ClassVar[str] = "tea-ceremony.tea_served"
    VERSION: ClassVar[int] = 1
    PUBLIC: ClassVar[bool] = True  # everyone at the table sees the tea
    piece: int
    points: int

    def apply(self, state: GameState) -> GameState:
        score = state.pieces[self.piece].score
        return state.with_piece(
            self.piece, score=score.set(CATEGORY, score.get(CATEGORY, 0) + self.points))


def serve(ctx: Context, step: Step) -> None:
    """The last arrival at an intermediate inn is served."""
    state = ctx.state
    here = state.pieces[step.piece].position
    if here == state.rules.end or not all(p.position == here for p in state.pieces):
        return
    points = ctx.rules.option("tea-ceremony.points")
    assert isinstance(points, int)
    ctx.emit(TeaServed(step.piece, points))


class TeaCeremony:
    """The tea ceremony house rule."""

    tokaido_plugin = PluginInfo(
        "tea-ceremony", "1.0.0", requires=("base",),
        description="Example house rule: the last to arrive at an intermediate inn is "
                    "served tea (+1 or +2 points).",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_category(CATEGORY, "Tea")
        registry.add_event(TeaServed)
        registry.add_step("tea-ceremony.serve", run=serve)
        registry.add_option("tea-ceremony.points", 1, (1, 2),
                            "Points for the tea served to the last arrival at an inn.")

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        p = state.pieces[piece]
        if p.seat is None or not state.rules.board[p.position].inn:
            return []
        return [Staged(SERVE_ORDER, Step("tea-ceremony.serve", piece))]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The tea ceremony on the fast simulator (imported only when asked, so that the
        reference engine never loads the simulator)."""
        from .fast_tea import RULES

        return RULES


plugin = TeaCeremony()

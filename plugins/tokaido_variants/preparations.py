"""Preparations (rules reference, Base variants): at the start only, coins are adjusted
by departure order from the start inn (1st = first to leave), counting players only;
never below 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokaido_base import departure_order
from tokaido_rules import Context, GameState, PluginInfo, Registry, Staged, Step, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

ADJUSTMENTS = {
    5: (-1, -1, 0, 1, 2),
    4: (-1, 0, 1, 2),
    3: (0, 1, 2),
    2: (1, 2),
}
"""Coins gained (or lost) by the 1st, 2nd, ... player to leave, by player count."""
SETUP_ORDER = 150
"""After the travellers' starting coins (100), before anything bought with coins."""


def run_adjust(ctx: Context, step: Step) -> None:
    table = ADJUSTMENTS[ctx.rules.players]
    for rank, piece in enumerate(departure_order(ctx.state)):
        coins = ctx.state.pieces[piece].coins
        ctx.coins(piece, max(table[rank], -coins))


class Preparations:
    """Preparations: later departures start with more coins."""

    tokaido_plugin = PluginInfo(
        "preparations", "1.0.0", requires=("base",),
        description="Base variant: starting coins adjusted by departure order.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("preparations.adjust", run=run_adjust,
                          doc="At setup: starting coins adjusted by departure order, "
                              "later departures gaining more (never below 0).")

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(SETUP_ORDER, Step("preparations.adjust"))]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import PREPARATIONS

        return PREPARATIONS


plugin = Preparations()

"""Rare & Precious (rules reference, Crossroads variants): only 4 random cards of each
Crossroads pile stay in play with 2-3 players, 5 with 4-5; the amulets and calligraphy
in play are public."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokaido_crossroads import AMULETS, CALLIGRAPHY, PILES
from tokaido_rules import Context, GameState, PluginInfo, Registry, Staged, Step, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

BOX = "rare-and-precious.box"
"""The cards out of play (unseen)."""
IN_PLAY = "rare-and-precious.in_play"
"""Public data: the amulets and calligraphy cards in play."""
SETUP_ORDER = 50


def cards_in_play(players: int) -> int:
    return 4 if players <= 3 else 5


def run_remove(ctx: Context, step: Step) -> None:
    """Take random cards out of each pile until the number in play is left."""
    keep = cards_in_play(ctx.rules.players)
    for pile in PILES:
        kind = f"pick.{pile}"
        while len(ctx.state.zone(pile)) > keep:
            card = ctx.random_pick(kind, ctx.state.zone(pile))
            ctx.move_cards(pile, BOX, (card,), chance=kind)
    ctx.emit_data(IN_PLAY, {"amulets": tuple(sorted(ctx.state.zone(AMULETS))),
                            "calligraphy": tuple(sorted(ctx.state.zone(CALLIGRAPHY)))})


class RareAndPrecious:
    """Rare & Precious: a smaller, known selection of Crossroads cards."""

    tokaido_plugin = PluginInfo(
        "rare-and-precious", "1.0.0", requires=("crossroads",),
        description="Crossroads variant: 4 (2-3 players) or 5 cards of each pile in play.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_zone(BOX, "hidden")
        registry.add_data(IN_PLAY, "public")
        registry.add_step("rare-and-precious.remove", run=run_remove,
                          doc="At setup: random cards of each Crossroads pile leave the "
                              "game, unseen, until 4 (2-3 players) or 5 are left.")

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(SETUP_ORDER, Step("rare-and-precious.remove"))]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast_crossroads import RARE_AND_PRECIOUS

        return RARE_AND_PRECIOUS


plugin = RareAndPrecious()

"""The ``pilgrim`` plugin: Basho, a travelling poet who joins the traveller pool.

Basho starts with 5 coins. Each encounter card he gains (from an encounter space,
Chuubei-style powers or anything else) pays him 1 coin for the story.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokaido_rules import Context, PluginInfo, Registry, Traveller, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

BASHO = "basho"


class Pilgrim:
    """Adds the traveller Basho."""

    tokaido_plugin = PluginInfo(
        "pilgrim", "1.0.0", requires=("base",),
        description="Example: Basho the poet, a new traveller (+1 coin per encounter card).",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_traveller(Traveller(BASHO, 5, "Basho"))

    @hookimpl
    def tokaido_card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        if ctx.state.pieces[piece].traveller == BASHO and (
                ctx.registry.cards[card].kind == "encounter"):
            ctx.coins(piece, 1)

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """Basho on the fast simulator (imported only when asked, so that the reference
        engine never loads the simulator)."""
        from .fast_pilgrim import RULES

        return RULES


plugin = Pilgrim()

"""Return journey (rules reference, Base variants): travel Edo to Kyoto. The board is
reversed, each space keeping its type and double flag; the start and the final inn are
roles, so every other rule is unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokaido_rules import PluginInfo, Registry, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules


class ReturnJourney:
    """Return journey: the same road, walked the other way."""

    tokaido_plugin = PluginInfo(
        "return-journey", "1.0.0", requires=("base",),
        description="Base variant: travel from Edo back to Kyoto on the reversed road.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.set_board(tuple(reversed(registry.board)))

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import RETURN_JOURNEY

        return RETURN_JOURNEY


plugin = ReturnJourney()

"""Return journey (rules reference, Base variants): travel Edo to Kyoto. The board is
reversed, each space keeping its type and double flag; the start and the final inn are
roles, so every other rule is unchanged."""

from __future__ import annotations

from tokaido_rules import PluginInfo, Registry, hookimpl


class ReturnJourney:
    """Return journey: the same road, walked the other way."""

    tokaido_plugin = PluginInfo(
        "return-journey", "1.0.0", requires=("base",),
        description="Base variant: travel from Edo back to Kyoto on the reversed road.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.set_board(tuple(reversed(registry.board)))


plugin = ReturnJourney()

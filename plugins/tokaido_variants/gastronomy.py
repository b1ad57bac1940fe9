"""Gastronomy (rules reference, Base variants): the first arrival at an inn draws as many
meal cards as there are players (instead of players + 1): the base option
``base.meal_hand = "players"``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tokaido_rules import PluginInfo, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules


class Gastronomy:
    """Gastronomy: scarcer meals."""

    tokaido_plugin = PluginInfo(
        "gastronomy", "1.0.0", requires=("base",),
        description="Base variant: the inn hand has one meal card per player.",
    )

    @hookimpl
    def tokaido_preset_options(self) -> Mapping[str, object] | None:
        return {"base.meal_hand": "players"}

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import GASTRONOMY

        return GASTRONOMY


plugin = Gastronomy()

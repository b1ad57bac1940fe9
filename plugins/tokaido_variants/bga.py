"""The ``bga`` preset (rules reference, Rule options): the rules as played online on
Board Game Arena.

It sets every rule option whose online value differs from the printed rules, for the
plugins that are enabled (Crossroads' options only with ``crossroads``). Options given
explicitly to a game still win over the preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tokaido_rules import PluginInfo, Registry, hookimpl

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

ONLINE_VALUES: dict[str, object] = {
    "base.meal_hand": "players",
    "base.hirotada_bank_coin": "auto",
    "base.zenemon_discount": "most_expensive",
    "crossroads.cherry_tree_on_completed_panorama": True,
    "crossroads.fortune_timing": "any_time_in_turn",
    "crossroads.amulet_same_turn": True,
    "crossroads.shodo_emaki_counts_legendary": True,
    "crossroads.devotion": "dearest_card",
    "crossroads.optional_purchase": True,
    "crossroads.health_where_both": True,
    "base.panorama_choice_optional": True,
}
"""Every rule option with its online value (rules reference, Rule options)."""


class OnlineRules:
    """Board Game Arena's rules: a preset of option values."""

    tokaido_plugin = PluginInfo(
        "bga", "1.1.0", requires=("base",),
        description="Preset: the rules as played online (Board Game Arena), with or "
                    "without Crossroads.",
    )

    @hookimpl
    def tokaido_preset_options(self, registry: Registry) -> Mapping[str, object] | None:
        return {name: value for name, value in ONLINE_VALUES.items()
                if name in registry.options}

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import BGA

        return BGA


plugin = OnlineRules()

"""The base game of Tokaido as a tokaido-rules plugin (entry point ``base``).

Other plugins that require ``base`` may use the names exported here.
"""

from __future__ import annotations

from .actions import (
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    ChooseTraveller,
    Donate,
    KeepEncounter,
    SatsukiMeal,
    TravellersOffered,
)
from .plugin import SPACE_ACTIONS, SPACE_ORDER, VERSION, BasePlugin, plugin
from .scoring import DONATION, set_total, temple_ranking

__all__ = [
    "DONATION", "SPACE_ACTIONS", "SPACE_ORDER", "VERSION", "BasePlugin", "BuyMeal",
    "BuySouvenirs", "ChoosePanorama", "ChooseTraveller", "Donate", "KeepEncounter",
    "SatsukiMeal", "TravellersOffered", "plugin", "set_total", "temple_ranking",
]

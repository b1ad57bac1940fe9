"""The base game of Tokaido as a tokaido-rules plugin (entry point ``base``).

Plugins that require ``base`` (Crossroads, the variants, third-party expansions) may use
the names exported here: its zones, score helpers, step orders and actions.
"""

from __future__ import annotations

from .actions import (
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    ChooseTraveller,
    Donate,
    KeepEncounter,
    SatsukiMeal,
    TravellersOffered,
)
from .content import (
    BATHER,
    CHATTERBOX,
    COLLECTOR,
    ENCOUNTER,
    FARM,
    GOURMET,
    HOT_SPRING,
    INN,
    MOUNTAIN,
    PADDY,
    PANORAMAS,
    SEA,
    TEMPLE,
    VILLAGE,
)
from .plugin import (
    INN_CLOSE_ORDER,
    INN_HAND_ORDER,
    INN_POWER_ORDER,
    MEAL_ORDER,
    SATSUKI_ORDER,
    SPACE_ACTIONS,
    SPACE_ORDER,
    VERSION,
    BasePlugin,
    completed_panorama_reason,
    plugin,
)
from .rules import (
    ACHIEVEMENT_SUPPLY,
    ENCOUNTERS,
    HOT_SPRINGS,
    INN_HAND,
    INN_MEALS,
    MEALS,
    PANORAMA_SUPPLY,
    SOUVENIRS,
    VILLAGE_OFFER,
    after_temple_action,
    ate_here_key,
    award,
    donate,
    drawn,
    eat_meal,
    gain_souvenir,
    take_panorama,
)
from .scoring import (
    DONATION,
    achievement_count,
    departure_order,
    meals_eaten,
    open_panoramas,
    panorama_complete,
    panorama_sections,
    set_total,
    souvenir_points,
    tagged_count,
    temple_ranking,
)
from .travellers import POWER

__all__ = [
    # plugin
    "VERSION", "BasePlugin", "plugin", "completed_panorama_reason",
    # space kinds, panoramas and card tags
    "ENCOUNTER", "FARM", "HOT_SPRING", "INN", "MOUNTAIN", "PADDY", "SEA", "TEMPLE", "VILLAGE",
    "PANORAMAS", "BATHER", "CHATTERBOX", "COLLECTOR", "GOURMET",
    # zones and counters
    "ACHIEVEMENT_SUPPLY", "ENCOUNTERS", "HOT_SPRINGS", "INN_HAND", "MEALS", "PANORAMA_SUPPLY",
    "SOUVENIRS", "VILLAGE_OFFER", "DONATION", "INN_MEALS", "POWER", "drawn", "ate_here_key",
    # step orders
    "SPACE_ACTIONS", "SPACE_ORDER", "INN_POWER_ORDER", "SATSUKI_ORDER", "INN_HAND_ORDER",
    "MEAL_ORDER", "INN_CLOSE_ORDER",
    # effects and counts
    "after_temple_action", "award", "donate", "eat_meal", "gain_souvenir", "take_panorama",
    "achievement_count", "departure_order", "meals_eaten", "open_panoramas", "panorama_complete",
    "panorama_sections", "set_total", "souvenir_points", "tagged_count", "temple_ranking",
    # actions and events
    "AddBankCoin", "BuyMeal", "BuySouvenirs", "ChoosePanorama", "ChooseTraveller", "Donate",
    "KeepEncounter", "SatsukiMeal", "TravellersOffered",
]

"""The Crossroads expansion of Tokaido as a tokaido-rules plugin (entry point
``crossroads``, requires ``base``). Its variants (``rare-and-precious``, ``good-luck``)
and other plugins may use the names exported here."""

from __future__ import annotations

from .actions import (
    BuyLegendary,
    DieRolled,
    FriendshipMove,
    Gamble,
    HospitalityMeal,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseDevotion,
    UseFortune,
    UseVitality,
)
from .amulets import gain_amulet, spend_amulet, usable
from .content import (
    AMULET_CARDS,
    AMULETS,
    BATH_HOUSES,
    CALLIGRAPHY,
    CHERRY_TREES,
    DIE,
    DIE_FACES,
    LEGENDARY,
    PILES,
)
from .plugin import VERSION, CrossroadsPlugin, plugin
from .rules import CROSSROADS_OPTION, calligraphy_points, roll

__all__ = [
    "VERSION", "CrossroadsPlugin", "plugin",
    "AMULET_CARDS", "AMULETS", "BATH_HOUSES", "CALLIGRAPHY", "CHERRY_TREES", "DIE",
    "DIE_FACES", "LEGENDARY", "PILES", "CROSSROADS_OPTION",
    "calligraphy_points", "gain_amulet", "roll", "spend_amulet", "usable",
    "BuyLegendary", "DieRolled", "FriendshipMove", "Gamble", "HospitalityMeal", "TakeAmulet",
    "TakeCalligraphy", "TakeOption", "UseDevotion", "UseFortune", "UseVitality",
]

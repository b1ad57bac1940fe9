"""Crossroads components (rules reference, Crossroads, Components): travellers, the five
piles, the Fortune die."""

from __future__ import annotations

from tokaido_base import BATHER, CHATTERBOX, COLLECTOR
from tokaido_rules import Card, Traveller

CHERRY_TREES = "crossroads.cherry_trees"
BATH_HOUSES = "crossroads.bath_houses"
LEGENDARY = "crossroads.legendary"
CALLIGRAPHY = "crossroads.calligraphy"
AMULETS = "crossroads.amulets"
PILES = (BATH_HOUSES, LEGENDARY, CHERRY_TREES, AMULETS, CALLIGRAPHY)

DIE_FACES = (0, 1, 2, 3, 3, 4)
"""The Fortune die: X (counts 0), 1, 2, 3, 3, 4."""
DIE = "die.crossroads.fortune"
"""The chance kind of a roll of the Fortune die (scripted outcome: the face, X = 0)."""

CHERRY_TREE_POINTS = 2
BATH_HOUSE_POINTS = 4

SHODO, EMAKI, BUPPATSU, EMA, MURASAME, MASAMUNE = (
    "shodo", "emaki", "buppatsu", "ema", "murasame", "masamune")
LEGENDARY_OBJECTS = {SHODO: 1, EMAKI: 1, BUPPATSU: 2, EMA: 2, MURASAME: 3, MASAMUNE: 3}
SCROLLS = (SHODO, EMAKI)
"""The legendary objects that score for souvenirs owned and acquired later."""
FIFTH_FAMILY = "legendary"
"""Buppatsu and Ema form a fifth souvenir family (a full five-family set scores 25)."""
SWORD_POINTS = 8

FORESIGHT, CONTEMPLATION, NOSTALGIA, PATIENCE, PERFECTION, FASTING = (
    "foresight", "contemplation", "nostalgia", "patience", "perfection", "fasting")
CALLIGRAPHIES = (FORESIGHT, CONTEMPLATION, NOSTALGIA, PATIENCE, PERFECTION, FASTING)

VITALITY, FORTUNE, HEALTH, FRIENDSHIP, HOSPITALITY, DEVOTION = (
    "vitality", "fortune", "health", "friendship", "hospitality", "devotion")
AMULET_CARDS = (VITALITY, FORTUNE, HEALTH, FRIENDSHIP, HOSPITALITY, DEVOTION)

JIROCHO, DAIGORO, NAMPO, GOTOZAEMON, MIYATAKA, KITA = (
    "jirocho", "daigoro", "nampo", "gotozaemon", "miyataka", "kita")
TRAVELLERS = (
    Traveller(JIROCHO, 5, "Jirocho"),
    Traveller(DAIGORO, 3, "Daigoro"),
    Traveller(NAMPO, 2, "Nampo"),
    Traveller(GOTOZAEMON, 0, "Gotozaemon"),
    Traveller(MIYATAKA, 4, "Miyataka"),
    Traveller(KITA, 4, "Kita"),
)

CARD_KINDS = {
    "cherry_tree": "Cherry trees",
    "bath_house": "Bath houses",
    "legendary": "Legendary objects",
    "calligraphy": "Calligraphy",
    "amulet": "Amulets",
}
"""Display names of the kinds of cards (pictures summarise collections by kind)."""
PILE_KINDS = {BATH_HOUSES: "bath_house", LEGENDARY: "legendary", CHERRY_TREES: "cherry_tree",
              AMULETS: "amulet", CALLIGRAPHY: "calligraphy"}
"""The kind of card of each pile (pictures show the piles' sizes)."""

CATEGORIES = {
    "cherry_trees": "Cherry trees",
    "bath_houses": "Bath houses",
    "legendary_objects": "Legendary objects",
    "calligraphy": "Calligraphy",
}


def cards() -> list[Card]:
    out = [
        Card("cherry_tree", "cherry_tree", "Cherry tree", points=CHERRY_TREE_POINTS),
        Card("bath_house", "bath_house", "Bath house", price=1, points=BATH_HOUSE_POINTS,
             tags={BATHER}),
    ]
    for name, price in LEGENDARY_OBJECTS.items():
        family = FIFTH_FAMILY if name in (BUPPATSU, EMA) else None
        points = SWORD_POINTS if name in (MURASAME, MASAMUNE) else 0
        out.append(Card(name, "legendary", name.title(), family=family, price=price,
                        points=points, tags={COLLECTOR}))
    for name in CALLIGRAPHIES:
        out.append(Card(name, "calligraphy", name.title(), price=1, tags={CHATTERBOX}))
    for name in AMULET_CARDS:
        out.append(Card(name, "amulet", name.title(), price=1))
    return out


def piles() -> dict[str, tuple[str, ...]]:
    return {
        CHERRY_TREES: ("cherry_tree",) * 6,
        BATH_HOUSES: ("bath_house",) * 6,
        LEGENDARY: tuple(LEGENDARY_OBJECTS),
        CALLIGRAPHY: CALLIGRAPHIES,
        AMULETS: AMULET_CARDS,
    }

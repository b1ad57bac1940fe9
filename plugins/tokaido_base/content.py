"""The base game's components (rules reference, The road and
Components of the base game): board, cards and travellers."""

from __future__ import annotations

from tokaido_rules import Card, Space, Traveller

INN = "inn"
VILLAGE = "village"
TEMPLE = "temple"
ENCOUNTER = "encounter"
FARM = "farm"
HOT_SPRING = "hot_spring"
PADDY = "paddy"
MOUNTAIN = "mountain"
SEA = "sea"

PANORAMAS: dict[str, int] = {PADDY: 3, MOUNTAIN: 4, SEA: 5}
"""Each panorama type and its number of sections."""
PANORAMA_POINTS = {PADDY: 6, MOUNTAIN: 10, SEA: 15}

# Road positions 0..54 from the start inn; "*" marks a double space.
_ROAD = (
    "inn village* temple encounter paddy hot_spring* mountain* farm* village temple* "
    "encounter sea* mountain hot_spring inn sea temple farm* paddy* mountain* encounter* "
    "temple hot_spring* mountain sea* village farm inn paddy village encounter* farm "
    "mountain* hot_spring sea* paddy temple* farm* encounter sea village* inn hot_spring "
    "temple* encounter village* sea farm* hot_spring* encounter mountain paddy* sea* "
    "village inn"
).split()


def board() -> tuple[Space, ...]:
    """The 55 positions of the road from Kyoto to Edo."""
    return tuple(
        Space(name.rstrip("*"), double=name.endswith("*"), inn=name == INN) for name in _ROAD
    )


# --- cards -----------------------------------------------------------------------------

SOUVENIR_FAMILIES = {
    "small_objects": (("koma", 1), ("gofu", 1), ("yunomi", 1), ("uchiwa", 1), ("hashi", 1),
                      ("washi", 1)),
    "food_drinks": (("manju", 1), ("kamaboko", 1), ("konpeito", 1), ("daifuku", 2),
                    ("sake", 2), ("ocha", 2)),
    "clothing": (("haori", 2), ("furoshiki", 2), ("sandogasa", 2), ("kanzashi", 2),
                 ("geta", 2), ("yukata", 2)),
    "art": (("netsuke", 2), ("jubako", 2), ("shikki", 2), ("shamisen", 3), ("sumie", 3),
            ("ukiyoe", 3)),
}

MEALS = {  # meal -> (price, copies)
    "dango": (1, 3), "nigirimeshi": (1, 3), "misoshiru": (1, 3),
    "tempura": (2, 2), "yakitori": (2, 2), "tofu": (2, 2), "sushi": (2, 2), "soba": (2, 2),
    "unagi": (3, 1), "fugu": (3, 1), "donburi": (3, 1), "udon": (3, 1), "tai_meshi": (3, 1),
    "sashimi": (3, 1),
}
MEAL_POINTS = 6

ENCOUNTERS = {  # card -> copies
    "shokunin": 2, "samurai": 2, "kuge": 2, "miko": 2,
    "annaibito.paddy": 1, "annaibito.mountain": 2, "annaibito.sea": 3,
}

ACHIEVEMENTS = ("paddy", "mountain", "sea", "gourmet", "collector", "bather", "chatterbox")
ACHIEVEMENT_POINTS = 3

# Tags: what a card counts as for the end-game achievements.
GOURMET = "gourmet"
COLLECTOR = "collector"
BATHER = "bather"
CHATTERBOX = "chatterbox"


def _title(card_id: str) -> str:
    return card_id.replace("_", " ").replace(".", " ").title()


def cards() -> list[Card]:
    out: list[Card] = []
    for family, items in SOUVENIR_FAMILIES.items():
        for name, price in items:
            out.append(Card(name, "souvenir", _title(name), family=family, price=price,
                            tags={COLLECTOR}))
    for name, (price, _) in MEALS.items():
        out.append(Card(name, "meal", _title(name), price=price, points=MEAL_POINTS,
                        tags={GOURMET}))
    for kind, sections in PANORAMAS.items():
        for n in range(1, sections + 1):
            out.append(Card(f"{kind}.{n}", "panorama", f"{_title(kind)} {n}", points=n))
    for points in (2, 3):
        out.append(Card(f"hot_spring.{points}", "hot_spring", f"Hot spring {points}",
                        points=points, tags={BATHER}))
    for name in ENCOUNTERS:
        effect = "base.effect." + name.split(".")[0]
        out.append(Card(name, "encounter", _title(name), tags={CHATTERBOX}, effect=effect))
    for name in ACHIEVEMENTS:
        out.append(Card(f"achievement.{name}", "achievement", f"{_title(name)} achievement",
                        points=ACHIEVEMENT_POINTS))
    return out


def deck_contents() -> dict[str, tuple[tuple[str, ...], bool]]:
    """Zone -> (cards, shuffled). Supplies (panoramas, achievements) are not shuffled and
    hold enough copies for every traveller."""
    souvenirs = tuple(n for items in SOUVENIR_FAMILIES.values() for n, _ in items)
    meals = tuple(n for n, (_, copies) in MEALS.items() for _ in range(copies))
    springs = ("hot_spring.2",) * 6 + ("hot_spring.3",) * 6
    encounters = tuple(n for n, copies in ENCOUNTERS.items() for _ in range(copies))
    panoramas = tuple(
        f"{kind}.{n}" for kind, sections in PANORAMAS.items() for n in range(1, sections + 1)
        for _ in range(5)
    )
    achievements = tuple(f"achievement.{a}" for a in ACHIEVEMENTS for _ in range(5))
    return {
        "base.souvenirs": (souvenirs, True),
        "base.meals": (meals, True),
        "base.hot_springs": (springs, True),
        "base.encounters": (encounters, True),
        "base.panoramas": (panoramas, False),
        "base.achievements": (achievements, False),
    }


TRAVELLERS = (
    Traveller("hiroshige", 3, "Hiroshige"),
    Traveller("chuubei", 4, "Chuubei"),
    Traveller("kinko", 7, "Kinko"),
    Traveller("yoshiyasu", 9, "Yoshiyasu"),
    Traveller("satsuki", 2, "Satsuki"),
    Traveller("mitsukuni", 6, "Mitsukuni"),
    Traveller("sasayakko", 5, "Sasayakko"),
    Traveller("hirotada", 8, "Hirotada"),
    Traveller("umegae", 5, "Umegae"),
    Traveller("zenemon", 6, "Zen-emon"),
)

SPACE_KINDS = {  # kind -> (display name, terminal name, colour in pictures)
    INN: ("Inn", "Inn", "#f1e2bb"),
    VILLAGE: ("Village", "Vil", "#f4cf86"),
    TEMPLE: ("Temple", "Tem", "#f0a493"),
    ENCOUNTER: ("Encounter", "Enc", "#cdb8ea"),
    FARM: ("Farm", "Far", "#bfe0a0"),
    HOT_SPRING: ("Hot spring", "Hot", "#a6dbe4"),
    PADDY: ("Paddy", "Pad", "#dde8a0"),
    MOUNTAIN: ("Mountain", "Mou", "#c4ccd6"),
    SEA: ("Sea", "Sea", "#9ec3ec"),
}
"""How pictures show each kind of space."""

CARD_KINDS = {
    "panorama": "Panoramas",
    "souvenir": "Souvenirs",
    "meal": "Meals",
    "hot_spring": "Hot springs",
    "encounter": "Encounters",
    "achievement": "Achievements",
}
"""Display names of the kinds of cards (pictures summarise collections by kind)."""

CATEGORIES = {
    "panoramas": "Panoramas",
    "souvenirs": "Souvenirs",
    "meals": "Meals",
    "hot_springs": "Hot springs",
    "encounters": "Encounters",
    "temple_donations": "Temple donations",
    "temple_ranking": "Temple ranking",
    "achievements": "Achievements",
    "traveller_powers": "Traveller powers",
}

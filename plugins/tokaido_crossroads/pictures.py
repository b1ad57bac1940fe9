"""What Crossroads adds to pictures of a game (``tokaido_render_notes``): the sizes of its
piles and each traveller's amulets. Which amulets a traveller holds is named only where
the scene shows its secret cards (the owner's view, or a whole game); elsewhere the
picture counts the amulet backs, which are public. Its words for its things
(``tokaido_render_glossary``): the new travellers' powers, what its cards do, the fifth
souvenir family."""

from __future__ import annotations

from tokaido_rules import Note, Registry, Scene, secret_zone

from .content import AMULET_CARDS, AMULETS, PILE_KINDS


def notes(scene: Scene) -> list[Note]:
    registry = scene.registry
    piles = ", ".join(f"{registry.card_kind_label(kind)} {scene.size(zone)}"
                      for zone, kind in PILE_KINDS.items())
    out = [Note("Piles", piles)]
    for i, p in enumerate(scene.pieces):
        if p.seat is None:
            continue
        held = scene.cards(secret_zone(i))
        if held is not None:
            amulets = tuple(a for a in held if a in AMULET_CARDS)
            if amulets:
                out.append(Note("Amulets", ", ".join(map(registry.card_name, amulets)), i,
                                cards=amulets))
        else:
            count = scene.backs(secret_zone(i)).get(AMULETS, 0)
            if count:
                out.append(Note("Amulets", f"{count} held", i))
    return out


POWERS = {
    "jirocho": "May stake 1 coin on a roll of the die at each inn on the way.",
    "daigoro": "Gets a free souvenir before the meal at each inn on the way.",
    "nampo": "Scores extra points equal to the printed price of each meal he eats.",
    "gotozaemon": "Gains 1 coin at every panorama stop.",
    "miyataka": "May both donate and buy an amulet at a temple.",
    "kita": "May both draw an encounter and buy a calligraphy at an encounter.",
}
"""Each Crossroads traveller's power in one short sentence, without a comma."""

EFFECTS = {
    "cherry_tree": "and 1 coin",
    "bath_house": "counts as a hot spring",
    "shodo": "1 point per souvenir owned, and per souvenir gained later",
    "emaki": "1 point per souvenir owned, and per souvenir gained later",
    "buppatsu": "a souvenir of a fifth family",
    "ema": "a souvenir of a fifth family",
    "foresight": "at the end, 2 points per coin left",
    "contemplation": "at the end, 3 points per finished panorama, 1 per cherry tree",
    "nostalgia": "at the end, 2 points per legendary object, 1 per souvenir",
    "patience": "at the end, 6 points if last to arrive, 4 if next to last, else 2",
    "perfection": "at the end, 2 points per achievement, 1 per calligraphy",
    "fasting": "at the end, 3 points per meal inn without a meal",
    "vitality": "move again after a move that takes the lead",
    "fortune": "before a move, roll the die for coins",
    "health": "take both options of a space",
    "friendship": "stop on a single space another traveller holds",
    "hospitality": "a free meal at an inn",
    "devotion": "coins paid for cards at a stop become a donation",
}
"""What each Crossroads card does beyond its price and points, in a few words."""


def glossary(registry: Registry) -> dict[str, str]:
    words = {f"traveller:{t}": power for t, power in POWERS.items()}
    words.update({f"card:{card}": effect for card, effect in EFFECTS.items()})
    words["kind:legendary"] = "legendary object"
    words["family:legendary"] = "fifth"
    words["sets"] = ("one souvenir of each family makes a set: its 1st to 5th cards score "
                     "1, 3, 5, 7 and 9")
    return words

"""What Crossroads adds to pictures of a game (``tokaido_render_notes``): the sizes of its
piles and each traveller's amulets. Which amulets a traveller holds is named only where
the scene shows its secret cards (the owner's view, or a whole game); elsewhere the
picture counts the amulet backs, which are public. Its words for its things
(``tokaido_render_glossary``): the new travellers' powers, what its cards do, the fifth
souvenir family."""

from __future__ import annotations

import weakref

from tokaido_rules import FrozenMap, Note, Registry, Scene, secret_zone

from .content import AMULET_CARDS, AMULETS, PILE_KINDS


def notes(scene: Scene) -> list[Note]:
    registry = scene.registry
    out = [_piles(scene, registry)]
    for i, p in enumerate(scene.pieces):
        if p.seat is None:
            continue
        held = scene.cards(secret_zone(i))
        if held is not None:
            amulets = tuple(a for a in held if a in AMULET_CARDS)
            if amulets:
                key: tuple[object, ...] = (registry, i, amulets)
                note = _NOTES.get(key)
                if note is None:
                    note = _keep(key, Note("Amulets", ", ".join(
                        map(registry.card_name, amulets)), i, cards=amulets))
            else:
                continue
        else:
            count = scene.backs(secret_zone(i)).get(AMULETS, 0)
            if not count:
                continue
            key = (i, count)
            note = _NOTES.get(key)
            if note is None:
                note = _keep(key, Note("Amulets", f"{count} held", i))
        out.append(note)
    return out


_NOTES: dict[tuple[object, ...], Note] = {}
"""The pieces' notes of amulets made so far, by what each is made from (the registry
that names the cards, the piece, its amulets or how many it holds face down): the same
object in every picture that shows the same, so that a server's audiences' scenes find
them by identity."""


def _keep(key: tuple[object, ...], note: Note) -> Note:
    if len(_NOTES) >= 4096:
        _NOTES.clear()
    _NOTES[key] = note
    return note


_PILES: dict[int, tuple[weakref.ref[Registry], FrozenMap[str, int], Note]] = {}
"""Each living registry's note of the piles last made, with the zones' sizes it was made
from (one object in every audience's view of a move: found by its identity)."""


def _piles(scene: Scene, registry: Registry) -> Note:
    """The note of the piles' sizes (public): made once per zones' sizes."""
    sizes = scene.zone_sizes
    last = _PILES.get(id(registry))
    if last is not None and last[0]() is registry and last[1] is sizes:
        return last[2]
    note = Note("Piles", ", ".join(f"{registry.card_kind_label(kind)} {scene.size(zone)}"
                                   for zone, kind in PILE_KINDS.items()))
    key = id(registry)
    ref = last[0] if last is not None and last[0]() is registry else weakref.ref(
        registry, lambda _: _PILES.pop(key, None))
    _PILES[key] = (ref, sizes, note)
    return note


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

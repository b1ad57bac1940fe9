"""What the base game adds to pictures of a game (``tokaido_render_notes``): each
traveller's panorama progress, temple donations and private draws; the village's and the
inn's cards; the sizes of the decks. Made from the scene alone, so a seat's picture names
only cards that seat sees."""

from __future__ import annotations

from tokaido_rules import Note, Scene

from .content import PANORAMAS
from .rules import ENCOUNTERS, HOT_SPRINGS, INN_HAND, MEALS, SOUVENIRS, VILLAGE_OFFER, drawn
from .scoring import DONATION

DECKS = {SOUVENIRS: "souvenir", MEALS: "meal", HOT_SPRINGS: "hot_spring",
         ENCOUNTERS: "encounter"}
"""The shuffled decks and the kind of card each holds (for its display name)."""


def _names(scene: Scene, cards: tuple[str, ...]) -> str:
    return ", ".join(scene.registry.card_name(c) for c in cards)


def notes(scene: Scene) -> list[Note]:
    registry = scene.registry
    out: list[Note] = []
    for i, p in enumerate(scene.pieces):
        if p.seat is None:
            continue
        cards = scene.collection(i)
        held = {kind: sum(1 for c in cards if c.startswith(kind + ".")) for kind in PANORAMAS}
        if any(held.values()):
            out.append(Note("Panoramas", ", ".join(
                f"{registry.space_kind(kind).label} {held[kind]}/{sections}"
                for kind, sections in PANORAMAS.items()), i))
        donated = p.counter(DONATION)
        if donated:
            out.append(Note("Temples", f"{donated} coin{'s' if donated > 1 else ''} donated",
                            i))
        private = scene.cards(drawn(i))
        if private:
            out.append(Note("Drawn", _names(scene, private), i))
        elif private is None:
            out.append(Note("Drawn", f"{scene.size(drawn(i))} card(s), face down", i))
    offer = scene.cards(VILLAGE_OFFER)
    if offer:
        out.append(Note("Village", _names(scene, offer)))
    hand = scene.cards(INN_HAND)
    if hand:
        out.append(Note("Inn meals", _names(scene, hand)))
    elif hand is None:
        out.append(Note("Inn meals", f"{scene.size(INN_HAND)} meal(s), face down"))
    decks = ", ".join(f"{registry.card_kind_label(kind)} {scene.size(zone)}"
                      for zone, kind in DECKS.items())
    out.append(Note("Decks", decks))
    return out

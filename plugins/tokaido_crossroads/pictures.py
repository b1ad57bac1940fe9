"""What Crossroads adds to pictures of a game (``tokaido_render_notes``): the sizes of its
piles and each traveller's amulets. Which amulets a traveller holds is named only where
the scene shows its secret cards (the owner's view, or a whole game); elsewhere the
picture counts the amulet backs, which are public."""

from __future__ import annotations

from tokaido_rules import Note, Scene, secret_zone

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
            amulets = [registry.card_name(a) for a in held if a in AMULET_CARDS]
            if amulets:
                out.append(Note("Amulets", ", ".join(amulets), i))
        else:
            count = scene.backs(secret_zone(i)).get(AMULETS, 0)
            if count:
                out.append(Note("Amulets", f"{count} held", i))
    return out

"""What the base game adds to pictures of a game (``tokaido_render_notes``): each
traveller's panorama progress, temple donations and private draws; the village's and the
inn's cards; the sizes of the decks. Made from the scene alone, so a seat's picture names
only cards that seat sees. And its words for its things (``tokaido_render_glossary``):
each traveller's power, the encounters' effects, the souvenir families and how sets
score, the tie-break."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from tokaido_rules import Note, Registry, Scene, collection_zone, traveller_facts

from .content import PANORAMAS
from .rules import ENCOUNTERS, HOT_SPRINGS, INN_HAND, MEALS, SOUVENIRS, VILLAGE_OFFER, drawn
from .scoring import DONATION

if TYPE_CHECKING:
    from tokaido_rules import Piece

DECKS = {SOUVENIRS: "souvenir", MEALS: "meal", HOT_SPRINGS: "hot_spring",
         ENCOUNTERS: "encounter"}
"""The shuffled decks and the kind of card each holds (for its display name)."""


def _names(scene: Scene, cards: tuple[str, ...]) -> str:
    return ", ".join(scene.registry.card_name(c) for c in cards)


def notes(scene: Scene) -> list[Note]:
    registry = scene.registry
    out: list[Note] = []
    kept = _kept(registry)
    made = kept.made
    zones, sizes_of, data = scene.zones, scene.zone_sizes, scene.data
    for i, p in enumerate(scene.pieces):
        if p.seat is None:
            continue
        offered = (data.get(_OFFERS[p.seat] if p.seat < 8 else f"base.offer.{p.seat}")
                   if p.traveller is None else None)
        zone = _DRAWN[i] if i < 8 else drawn(i)
        private = zones.get(zone)  # (a zone's cards are a tuple, never None)
        if private is None:
            hidden = sizes_of.get(zone, 0)
            if not hidden:
                private = ()
        else:
            hidden = 0
        collection = zones.get(_COLLECTIONS[i] if i < 8 else collection_zone(i), ())
        # a piece's notes are made from these alone: found by their identity while the
        # piece lives (every audience's picture at every move that left them unchanged)
        last = _BY_PIECE.get(id(p))
        if (last is not None and last[0]() is p and last[1] is registry and last[2] == i
                and last[3] is offered and last[4] is collection and last[5] is private
                and last[6] == hidden):
            out += last[7]
            continue
        # else by their values: made once, shared by the pictures that show the same
        key = (i, offered, collection, p.counter(DONATION), private, hidden)
        try:
            found = made.get(key)
        except TypeError:  # a value that cannot be a key: made each time
            out += _piece_notes(scene, i, offered, private, hidden)
            continue
        if found is None:
            if len(made) >= 4096:
                made.clear()
            found = made[key] = _piece_notes(scene, i, offered, private, hidden)
        ref = last[0] if last is not None and last[0]() is p else weakref.KeyedRef(
            p, _forget, id(p))
        _BY_PIECE[id(p)] = (ref, registry, i, offered, collection, private, hidden, found)
        out += found
    offer = scene.cards(VILLAGE_OFFER)
    hand = scene.cards(INN_HAND)
    # the table's notes are made from these alone: made once, shared by the pictures
    # that show the same (every audience's alike, as a rule), so that a server's scenes
    # find them by identity (``render.scene_json``); the sizes of the zones are one
    # object in every audience's scene of a move: the last found by its identity
    last_table = kept.last_table
    if (last_table is not None and last_table[0] is sizes_of and last_table[1] is offer
            and last_table[2] is hand):
        return out + list(last_table[3])
    decks = _decks(registry, kept)
    sizes = tuple(sizes_of.get(zone, 0) for zone, _ in decks)
    said: tuple[object, ...] = ("table", offer, hand,
                                scene.size(INN_HAND) if hand is None else 0, sizes)
    try:
        table = made.get(said)
    except TypeError:  # a value that cannot be a key: made each time
        return out + list(_table_notes(scene, offer, hand, decks))
    if table is None:
        if len(made) >= 4096:
            made.clear()
        table = made[said] = _table_notes(scene, offer, hand, decks)
    kept.last_table = (sizes_of, offer, hand, table)
    out += table
    return out


_OFFERS = tuple(f"base.offer.{seat}" for seat in range(8))
_DRAWN = tuple(drawn(piece) for piece in range(8))
_COLLECTIONS = tuple(collection_zone(piece) for piece in range(8))
"""The names a picture reads, per seat or piece (a table seats at most five)."""


def _forget(ref: weakref.KeyedRef[int, Piece]) -> None:
    """A piece is gone: so is its entry in :data:`_BY_PIECE`."""
    _BY_PIECE.pop(ref.key, None)


_BY_PIECE: dict[int, tuple[weakref.KeyedRef[int, Piece], Registry, int, object,
                           tuple[str, ...], tuple[str, ...] | None, int,
                           tuple[Note, ...]]] = {}
"""Each living piece's notes, by the piece's identity, with what they were made from
(the piece weakly held, so that what is kept follows the games in play): the last
found (every audience's alike, as a rule; a seat's own offer or private draws are
found by value), found again by identity with no key hashed."""


def _table_notes(scene: Scene, offer: tuple[str, ...] | None,
                 hand: tuple[str, ...] | None,
                 decks: tuple[tuple[str, str], ...]) -> tuple[Note, ...]:
    """The notes of the table: the village's offer, the inn's meals (face down for a
    seat that may not see them) and the decks' sizes."""
    out: list[Note] = []
    if offer:
        out.append(Note("Village", _names(scene, offer), cards=offer))
    if hand:
        out.append(Note("Inn meals", _names(scene, hand), cards=hand))
    elif hand is None:
        out.append(Note("Inn meals", f"{scene.size(INN_HAND)} meal(s), face down"))
    out.append(Note("Decks", ", ".join(f"{label} {scene.size(zone)}"
                                       for zone, label in decks)))
    return tuple(out)


def _piece_notes(scene: Scene, i: int, offered: object, private: tuple[str, ...] | None,
                 hidden: int) -> tuple[Note, ...]:
    """The notes of piece ``i``: the travellers offered to its seat, its panoramas, its
    donations and its private draws (``hidden``: how many, face down)."""
    registry = scene.registry
    out: list[Note] = []
    if offered:  # what a seat choosing its traveller needs: coins and powers
        out.append(Note("Travellers offered", ", ".join(
            f"{f.name} ({f.summary()})"
            for f in (traveller_facts(t, scene.ruleset) for t in offered)), i))  # type: ignore[attr-defined]
    held = dict.fromkeys(PANORAMAS, 0)
    for card in scene.collection(i):
        kind, dot, _ = card.partition(".")
        if dot and kind in held:
            held[kind] += 1
    if any(held.values()):
        out.append(Note("Panoramas", ", ".join(
            f"{registry.space_kind(kind).label} {held[kind]}/{sections}"
            for kind, sections in PANORAMAS.items()), i))
    donated = scene.pieces[i].counter(DONATION)
    if donated:
        out.append(Note("Temples", f"{donated} coin{'s' if donated > 1 else ''} donated", i))
    if private:
        out.append(Note("Drawn", _names(scene, private), i, cards=private))
    elif private is None:
        out.append(Note("Drawn", f"{hidden} card(s), face down", i))
    return tuple(out)


class _Kept:
    """What :func:`notes` keeps for one registry (one ruleset: a server's table): the
    pieces' and the table's notes made so far, by what they are made from, the decks
    to count, and the table's notes last found (by the identity of the zones' sizes
    they were made from, with the village's and the inn's cards)."""

    __slots__ = ("decks", "last_table", "made", "ref")

    def __init__(self, ref: weakref.KeyedRef[int, Registry]) -> None:
        self.ref = ref
        self.made: dict[tuple[object, ...], tuple[Note, ...]] = {}
        self.decks: tuple[tuple[str, str], ...] | None = None
        self.last_table: tuple[object, tuple[str, ...] | None, tuple[str, ...] | None,
                               tuple[Note, ...]] | None = None


_KEPT: dict[int, _Kept] = {}
"""Each living registry's :class:`_Kept`, by the registry's identity (the registry
weakly held: what is kept follows the rulesets in use, however many tables a server
runs; a bound of a few registries emptied the notes of them all at every turn of a
server's tables)."""


def _drop(ref: weakref.KeyedRef[int, Registry]) -> None:
    """A registry is gone: so is what was kept for it (unless its identity is reused)."""
    found = _KEPT.get(ref.key)
    if found is not None and found.ref is ref:
        del _KEPT[ref.key]


def _kept(registry: Registry) -> _Kept:
    found = _KEPT.get(id(registry))
    if found is None or found.ref() is not registry:
        found = _KEPT[id(registry)] = _Kept(weakref.KeyedRef(registry, _drop, id(registry)))
    return found


def _made(registry: Registry) -> dict[tuple[object, ...], tuple[Note, ...]]:
    """Each registry's pieces' and table's notes made so far (:func:`notes`)."""
    return _kept(registry).made


def _decks(registry: Registry, kept: _Kept | None = None) -> tuple[tuple[str, str], ...]:
    """The decks whose sizes a picture shows, each with its label: the base game's, then
    the shuffled decks of other plugins; found once per registry (a server draws every
    audience's picture of every move)."""
    kept = _kept(registry) if kept is None else kept
    if kept.decks is not None:
        return kept.decks
    decks = [(zone, registry.card_kind_label(kind)) for zone, kind in DECKS.items()]
    for zone, spec in registry.decks.items():  # the shuffled decks of other plugins too
        if zone not in DECKS and spec.shuffled and not zone.startswith("base."):
            kinds = {registry.cards[c].kind for c in spec.cards if c in registry.cards}
            label = (registry.card_kind_label(kinds.pop()) if len(kinds) == 1
                     else zone.partition(".")[2] or zone)
            decks.append((zone, label))
    kept.decks = tuple(decks)
    return kept.decks


POWERS = {
    "hiroshige": "Takes the next section of a panorama of his choice at each inn on the way.",
    "chuubei": "Meets an encounter before the meal at each inn on the way.",
    "kinko": "Pays 1 coin less for every meal.",
    "yoshiyasu": "Draws two encounter cards and keeps the one he prefers.",
    "satsuki": "Draws a meal at each meal inn and may keep it for free.",
    "mitsukuni": "Scores 1 more for each hot spring and each achievement card.",
    "sasayakko": "Gets the cheapest free when she buys two or more souvenirs.",
    "hirotada": "May add 1 coin from the bank to each temple donation.",
    "umegae": "Gains 1 point and 1 coin at every encounter.",
    "zenemon": "Pays only 1 coin for one souvenir at each village.",
}
"""Each traveller's power in one short sentence, without a comma (a note's items are
separated by commas): pictures, the choice of a traveller."""

EFFECTS = {
    "shokunin": "a free souvenir from the deck",
    "samurai": "3 points",
    "kuge": "3 coins",
    "miko": "a bank coin donated at the temple: 1 point",
    "annaibito.paddy": "the next paddy section",
    "annaibito.mountain": "the next mountain section",
    "annaibito.sea": "the next sea section",
    "achievement.paddy": "first to finish the paddy panorama",
    "achievement.mountain": "first to finish the mountain panorama",
    "achievement.sea": "first to finish the sea panorama",
    "achievement.gourmet": "at the end, most spent on meals",
    "achievement.collector": "at the end, most souvenirs",
    "achievement.bather": "at the end, most hot springs",
    "achievement.chatterbox": "at the end, most encounters",
}
"""What each card does beyond its price and points, in a few words."""

FAMILIES = {"small_objects": "small object", "food_drinks": "food and drink",
            "clothing": "clothing", "art": "art"}
"""The souvenir families' display names."""


def glossary(registry: Registry) -> dict[str, str]:
    words = {f"traveller:{t}": power for t, power in POWERS.items()}
    words.update({f"card:{card}": effect for card, effect in EFFECTS.items()})
    words.update({f"family:{f}": name for f, name in FAMILIES.items()})
    words["kind:hot_spring"] = "hot spring"
    words["sets"] = ("one souvenir of each family makes a set: its 1st, 2nd, 3rd and 4th "
                     "cards score 1, 3, 5 and 7")
    words["tiebreak"] = "more achievement cards"
    return words

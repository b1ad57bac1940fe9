"""What a picture may show (:class:`Scene`), what a plugin adds to it (:class:`Note`), and
the plugins' words for their things (:func:`glossary`, :func:`traveller_facts`).

These are what the render hooks (``tokaido_render_notes``, ``tokaido_render_glossary``)
take and give, so they belong to the core: a plugin draws its part of a picture with
them, through the public API (``tokaido_rules.Note``, ``Scene``, ``traveller_facts``),
without importing :mod:`tokaido_rules.render`, which turns scenes into text and SVG and
re-exports these names.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from .frozen import FrozenMap
from .model import Piece, collection_zone

if TYPE_CHECKING:
    from .model import Space
    from .registry import Registry
    from .ruleset import Ruleset

__all__ = ["Note", "Scene", "TravellerFacts", "glossary", "traveller_facts",
           "SCENE_FORMAT", "SCENE_VERSION", "scene_schema"]

SCENE_FORMAT = "tokaido-scene"
"""The ``format`` of a scene as JSON (:func:`tokaido_rules.render.scene_json`)."""
SCENE_VERSION = 1
"""The ``version`` of a scene as JSON: raised when a field changes meaning or goes, so
that a drawing made for one version refuses another."""


def _cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(cards)


@frozen
class Note:
    """A labelled line a plugin adds to a picture
    (:func:`~tokaido_rules.hookspecs.tokaido_render_notes`): about traveller ``piece``,
    or about the table when ``piece`` is ``None``. ``text`` uses display names.
    ``cards``: the ids of the cards the note names, in order, if it names cards (the
    village's souvenirs, the inn's meals): pictures then show each with its facts
    (:func:`~tokaido_rules.render.card_facts`), price and family, instead of ``text``."""

    label: str
    text: str
    piece: int | None = None
    cards: tuple[str, ...] = field(default=(), converter=_cards)


@frozen
class Scene:
    """What a picture may show: a seat's view (``seat``), the public view (``seat`` is
    ``None`` and ``spectator``: what every seat sees) or a whole game (``seat`` is
    ``None``: everything, secret cards included).

    ``zones`` holds the cards of the zones the picture may show, ``zone_sizes`` the size
    of every zone, ``hidden_backs`` the card backs of the others; ``data`` the game data
    it may show. Read zones through :meth:`cards`, :meth:`size` and :meth:`backs`.
    """

    seat: int | None
    players: int
    turn: int
    seq: int
    over: bool
    pieces: tuple[Piece, ...]
    zones: FrozenMap[str, tuple[str, ...]]
    zone_sizes: FrozenMap[str, int]
    hidden_backs: FrozenMap[str, FrozenMap[str, int]]
    data: FrozenMap[str, Any]
    current_player: int | None
    ruleset: Ruleset = field(eq=False, repr=False)
    spectator: bool = False

    @property
    def registry(self) -> Registry:
        """The ruleset's registry: the board and every display name."""
        return self.ruleset.registry

    @property
    def board(self) -> tuple[Space, ...]:
        return self.ruleset.registry.board

    @property
    def slots(self) -> tuple[int, ...]:
        """How many travellers each position holds at this player count (0: an inn,
        which holds everyone)."""
        return self.ruleset.board_for(self.players)[0]

    def cards(self, zone: str) -> tuple[str, ...] | None:
        """The cards of ``zone``, or ``None`` if the picture may not show them."""
        if zone in self.zones:
            return self.zones[zone]
        return None if self.zone_sizes.get(zone, 0) else ()

    def size(self, zone: str) -> int:
        """How many cards ``zone`` holds (public, even where the cards are not)."""
        return self.zone_sizes.get(zone, 0)

    def backs(self, zone: str) -> FrozenMap[str, int]:
        """How many cards of ``zone`` come from each deck (card backs are public)."""
        if zone in self.hidden_backs:
            return self.hidden_backs[zone]
        return self.registry.card_backs(self.zones.get(zone, ()))

    def collection(self, piece: int) -> tuple[str, ...]:
        """A traveller's collection (public), in acquisition order."""
        return self.zones.get(collection_zone(piece), ())

    def traveller_name(self, piece: int) -> str:
        """The display name of a piece's traveller."""
        p = self.pieces[piece]
        if p.traveller is None:
            return "neutral traveller" if p.seat is None else "no traveller yet"
        return self.registry.traveller_name(p.traveller)

    def who(self, piece: int) -> str:
        """A piece as the table names it: ``"seat 0 (Zen-emon)"``."""
        p = self.pieces[piece]
        if p.seat is None:
            return "the neutral traveller"
        return f"seat {p.seat} ({self.traveller_name(piece)})"


_GLOSSARIES: weakref.WeakKeyDictionary[Ruleset, FrozenMap[str, str]] = (
    weakref.WeakKeyDictionary())


def glossary(ruleset: Ruleset) -> FrozenMap[str, str]:
    """The plugins' words for their things
    (:func:`~tokaido_rules.hookspecs.tokaido_render_glossary`), merged in plugin order:
    ``"traveller:<id>"`` a power, ``"card:<id>"`` an effect, ``"kind:<kind>"``,
    ``"family:<family>"``, ``"sets"``, ``"tiebreak"``. Asked once per ruleset."""
    found = _GLOSSARIES.get(ruleset)
    if found is None:
        found = _GLOSSARIES[ruleset] = ruleset.hooks.render_glossary(ruleset.registry)
    return found


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@frozen
class TravellerFacts:
    """A traveller tile as a player choosing it sees it (:func:`traveller_facts`)."""

    id: str
    name: str
    """Its display name (``"Zen-emon"``)."""
    coins: int
    """Its starting coins."""
    power: str | None
    """Its power in one short sentence, in the words of the plugin that owns it."""

    def summary(self) -> str:
        """``"7 starting coins; pays 1 coin less for every meal"``."""
        said = f"{_plural(self.coins, 'starting coin')}"
        if not self.power:
            return said
        power = self.power.rstrip(".")
        return f"{said}; {power[:1].lower()}{power[1:]}"


def traveller_facts(traveller: str, ruleset: Ruleset) -> TravellerFacts:
    """The facts of traveller ``traveller`` (an id) in ``ruleset``: display name,
    starting coins and power (:class:`TravellerFacts`)."""
    registry = ruleset.registry
    tile = registry.travellers.get(traveller)
    return TravellerFacts(traveller, registry.traveller_name(traveller),
                          tile.coins if tile is not None else 0,
                          glossary(ruleset).get(f"traveller:{traveller}"))


def _pairs(what: str) -> dict[str, Any]:
    return {"type": "array", "description": what,
            "items": {"type": "array", "prefixItems": [{"type": "string"},
                                                       {"type": "integer"}],
                      "minItems": 2, "maxItems": 2}}


def _object(required: list[str], properties: dict[str, Any], what: str,
            optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "description": what, "additionalProperties": False,
            "required": required, "properties": {**properties, **(optional or {})}}


def scene_schema() -> dict[str, Any]:
    """The JSON Schema of a scene as JSON (:func:`tokaido_rules.render.scene_json`),
    ``$defs/scene`` of :func:`~tokaido_rules.wire.schemas`: the same for every
    ruleset, because a scene says everything in display names, colours and facts."""
    text = {"type": "string"}
    integer = {"type": "integer"}
    seat = {"type": ["integer", "null"], "minimum": 0}
    colour = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
    names = {"type": "array", "items": text}
    space = _object(
        ["kind", "label", "colour", "inn", "double", "slots"],
        {"kind": text, "label": text, "colour": colour, "inn": {"type": "boolean"},
         "double": {"type": "boolean"}, "slots": {"type": "integer", "minimum": 0}},
        "A position of the road: its kind's id and display name, its colour, whether it "
        "is an inn or a double space, how many travellers it holds at this player count "
        "(0: an inn, which holds everyone).")
    piece = _object(
        ["seat", "position", "slot", "coins", "total", "traveller", "who"],
        {"seat": seat, "position": {"type": "integer", "minimum": 0},
         "slot": {"type": "integer", "minimum": 0}, "coins": integer, "total": integer,
         "traveller": text, "who": text},
        "A traveller, in piece order: seat (null: neutral), position and slot, coins, "
        "points, its traveller's display name and how the table names it. A seated "
        "traveller's collection by kind, its souvenirs by family and its points by "
        "category; the scene's own seat's also names its cards (ids into `cards`).",
        {"collection": _pairs("Cards by kind: display name and count."),
         "families": _pairs("Souvenirs by family: display name and count."),
         "points": _pairs("Points by category: display name and points."),
         "cards": names})
    note = _object(
        ["label", "text", "piece", "cards"],
        {"label": text, "text": text, "piece": {"type": ["integer", "null"], "minimum": 0},
         "cards": names},
        "A plugin's note: about a traveller (`piece`) or the table (null); the cards it "
        "names (ids into `cards`) are drawn with their facts instead of `text`.")
    card = _object(
        ["name", "tag", "line", "family", "colour", "attributes"],
        {"name": text, "tag": text, "line": text, "family": {"type": "boolean"},
         "colour": colour,
         "attributes": {"type": "array", "items": {
             "type": "array", "prefixItems": [text, text], "minItems": 2, "maxItems": 2}}},
        "The facts of a card shown: display name, its short facts and all of them in one "
        "line, whether it is a souvenir of a family and the colour it is edged in, and "
        "its data attributes in the picture, in order (name, value).")
    return _object(
        ["format", "version", "seat", "spectator", "players", "turn", "seq", "over",
         "current_player", "status", "plugins", "colours", "neutral_colour", "board",
         "pieces", "notes", "cards", "standings", "outcome", "legend"],
        {"format": {"const": SCENE_FORMAT}, "version": {"const": SCENE_VERSION},
         "seat": seat, "spectator": {"type": "boolean"},
         "players": {"type": "integer", "minimum": 1}, "turn": integer, "seq": integer,
         "over": {"type": "boolean"}, "current_player": seat, "status": text,
         "plugins": names, "colours": {"type": "array", "items": colour, "minItems": 1},
         "neutral_colour": colour, "board": {"type": "array", "items": space},
         "pieces": {"type": "array", "items": piece},
         "notes": {"type": "array", "items": note},
         "cards": {"type": "object", "additionalProperties": card},
         "standings": {"anyOf": [{"type": "null"}, {"type": "array", "items": _object(
             ["seat", "rank", "winner"],
             {"seat": {"type": "integer", "minimum": 0},
              "rank": {"type": "integer", "minimum": 1}, "winner": {"type": "boolean"}},
             "A seat's rank, in rank order.")}]},
         "outcome": {"type": ["string", "null"]},
         "legend": {"anyOf": [{"type": "null"}, {"type": "array", "items": _object(
             ["key", "label", "swatch"], {"key": text, "label": text, "swatch": text},
             "A legend entry: what it explains, in words, and its swatch (SVG).")}]}},
        "What a picture of a game or of a view shows, for a browser to draw "
        "(pages/board.js): render.scene_json. Made from the view, so it holds nothing "
        "the view does not.")

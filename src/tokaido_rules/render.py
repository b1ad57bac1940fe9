"""Pictures of a game or of a seat's view: text for the terminal, SVG for notebooks,
documents and web pages (DESIGN 3.7: one place draws a game; python-chess keeps
``chess.svg`` apart the same way).

Everything is drawn from a :class:`Scene`, what the picture may show:

- ``scene(view)`` holds only what the view's seat sees, so a seat's picture cannot show
  more than its view (the cards of a zone it cannot see are not in the scene at all);
- ``scene(game)`` holds everything: a game's picture may show every seat's secret
  cards and the inn's meal hand. Draw a :class:`~tokaido_rules.View` for a player.

The core draws the road (:attr:`Registry.board <tokaido_rules.Registry>`, its space kinds
named and coloured by the plugins with :meth:`~tokaido_rules.Registry.add_space_kind`),
the travellers in their slots, their coins, scores and collections summarised by kind;
plugins add what only they know how to present through
:func:`~tokaido_rules.hookspecs.tokaido_render_notes`, and their words for their things
(powers, card effects, souvenir families) through
:func:`~tokaido_rules.hookspecs.tokaido_render_glossary`. What a player needs to decide
and to read the end is here for every front end: the facts of a card
(:func:`card_facts`: price, family, points) and of a traveller
(:func:`traveller_facts`: starting coins, power), the standings (:func:`final_standings`,
:func:`outcome`) and the legend of the pictures' marks (:func:`legend_items`).

Every name shown is a display name registered by the plugin that owns the thing
(travellers, cards, categories, space and card kinds), never an id.

The text functions take a ``width`` and never write a longer line; the CLI,
``tokaido play`` and the RL environments' ``render()`` use them. Output is plain text and
plain SVG strings, built without any dependency (this module never imports ``rich``),
and the same input always gives the same output.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import re
import textwrap
import weakref
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from attrs import frozen

from .events import Action, CardsMoved, CoinsChanged, Event, GameOver, Move, Scored, fold
from .frozen import EMPTY, FrozenMap
from .model import COLLECTION, GameState, collection_zone
from .scene import SCENE_FORMAT as SCENE_FORMAT
from .scene import SCENE_VERSION as SCENE_VERSION
from .scene import Note as Note  # what a picture shows: in the core, kept importable here
from .scene import Scene as Scene
from .scene import TravellerFacts as TravellerFacts
from .scene import glossary as glossary
from .scene import traveller_facts as traveller_facts
from .views import View

if TYPE_CHECKING:
    from .engine import Game, Score
    from .model import Space
    from .registry import Registry
    from .ruleset import Ruleset

__all__ = [
    "SEAT_COLOURS", "NEUTRAL_COLOUR", "Note", "Scene", "scene", "notes",
    "text", "road_text", "Grid", "score_rows", "score_table", "table", "journey",
    "journey_lines", "describe_action", "describe_effects", "svg",
    "glossary", "CardFacts", "card_facts", "TravellerFacts", "traveller_facts",
    "Standing", "final_standings", "outcome", "standings_lines",
    "LegendItem", "legend_items", "legend_svg", "legend_html",
    "SCENE_FORMAT", "SCENE_VERSION", "scene_json", "SceneMemo", "board_js",
]

SEAT_COLOURS = ("#1f5fbf", "#cc3526", "#2c8a3c", "#e3a21a", "#7b44b8")
"""The colour of each seat's pieces, seat 0 first."""
NEUTRAL_COLOUR = "#6f6f6f"
"""The colour of a traveller without a seat (the 2-player neutral traveller)."""


# --- what a picture shows ---------------------------------------------------------------


def scene(subject: Game | View | Scene) -> Scene:
    """What a picture of ``subject`` may show: for a view, what its seat sees; for a
    game, everything."""
    if isinstance(subject, Scene):
        return subject
    if isinstance(subject, View):
        return Scene(seat=subject.seat, players=subject.players, turn=subject.turn,
                     seq=subject.seq, over=subject.over, pieces=subject.pieces,
                     zones=subject.zones, zone_sizes=subject.zone_sizes,
                     hidden_backs=subject.hidden_backs, data=subject.data,
                     current_player=subject.current_player, ruleset=subject.ruleset,
                     spectator=subject.seat is None)
    state = subject.state
    return Scene(seat=None, players=state.players, turn=state.turn, seq=state.seq,
                 over=state.over, pieces=state.pieces, zones=state.zones,
                 zone_sizes=FrozenMap({name: len(c) for name, c in state.zones.items()}),
                 hidden_backs=EMPTY, data=state.data, current_player=subject.current_player,
                 ruleset=state.rules.ruleset)


def notes(subject: Game | View | Scene) -> list[Note]:
    """What the plugins add to a picture of ``subject``, in plugin order."""
    found = scene(subject)
    return found.ruleset.hooks.render_notes(found)


def _kind_counts(sc: Scene, cards: Iterable[str]) -> list[tuple[str, int]]:
    """How many cards of each kind, as (display name, count): kinds in the order the
    plugins named them, then any other."""
    registry = sc.registry
    counts: dict[str, int] = {}
    for card in cards:
        found = registry.cards.get(card)
        kind = found.kind if found is not None else "?"
        counts[kind] = counts.get(kind, 0) + 1
    order = {kind: n for n, kind in enumerate(registry.card_kinds)}
    kinds = sorted(counts, key=lambda k: (order.get(k, len(order)), k))
    return [(registry.card_kind_label(k), counts[k]) for k in kinds]


def _points(sc: Scene, piece: int) -> list[tuple[str, int]]:
    """A piece's points by category (display names), the categories that scored."""
    score = sc.pieces[piece].score
    registry = sc.registry
    shown = [(registry.category_label(c), score[c]) for c in registry.categories
             if score.get(c, 0)]
    shown += [(c, v) for c, v in sorted(score.items())
              if v and c not in registry.categories]
    return shown


def _status(sc: Scene) -> str:
    if sc.over:
        return "the journey is over"
    if sc.current_player is None:
        return "in progress"
    mover = next((i for i, p in enumerate(sc.pieces) if p.seat == sc.current_player), None)
    who = sc.who(mover) if mover is not None else f"seat {sc.current_player}"
    return f"{who} to play"


# --- facts: what a card, a traveller and the end of a game tell a player -----------------


class _Words:
    """What this module keeps per ruleset: the plugins' glossary, the facts of each card
    and traveller asked so far, and the pattern of the ids that text names."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.glossary = glossary(ruleset)
        self.cards: dict[str, CardFacts] = {}
        self.ids: tuple[re.Pattern[str], dict[str, str]] | None = None
        self.families: dict[str, int] | None = None
        self.family_of: dict[str, tuple[int, str]] | None = None
        """Per card of a souvenir family: the family's number and display name."""
        self.markup: dict[str, str] = {}
        """Per card, its name as an SVG ``<tspan>`` with its facts."""
        self.legends: dict[tuple[tuple[int, ...], bool, tuple[str, ...]], str] = {}
        """Each legend's HTML (:func:`legend_html`), by seats, neutral and colours."""
        self.scene_cards: dict[str, dict[str, Any]] = {}
        """Per card, its entry in a scene's ``cards`` (:func:`scene_json`)."""
        self.scene_pieces: dict[tuple[Any, ...], dict[str, Any]] = {}
        """A scene's entries of pieces, by what they are made from (shared: read only)."""
        self.scene_road: tuple[Any, list[tuple[str, str, str, bool, bool]],
                               dict[tuple[int, int], dict[str, Any]]] | None = None
        """The road last drawn in a scene, what its spaces show but their slots, and
        each space's entry by its slots taken (shared: read only)."""
        self.scene_boards: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        """The road's list of entries in a scene, by its slots (shared: read only)."""
        self.scene_board: tuple[tuple[int, ...] | None, list[dict[str, Any]] | None] = (
            None, None)
        """The slots and the road's list last asked for: found with no key hashed."""
        self.scene_notes: dict[Note, dict[str, Any]] = {}
        """A scene's entries of notes, by note (shared: read only)."""
        self.memo = SceneMemo(4096)
        """What :func:`scene_json` finds by identity for a caller that keeps no
        :class:`SceneMemo` of its own (shared by every game of the ruleset)."""
        self.plugins: list[str] = list(ruleset.ids)
        """The plugins' ids, as a scene names them (shared by the scenes: read only)."""
        self.colours: list[str] = []
        """The seats' colours of the last scene: the list every scene of those colours
        shares (read only)."""
        self.colours_asked: Sequence[str] | None = None
        """The colours the last scene was asked with (:attr:`colours` made from them):
        the same object, as a rule (the default), found with nothing made."""


class SceneMemo:
    """What :func:`scene_json` finds by identity in the scenes of a game: the entries of
    its pieces, of its notes and its status, each kept with the objects it was made from
    (so that an identity stays theirs). A server keeps one per table and drops it with
    the table, so that what is kept follows the tables served, and the scenes of one
    table do not push out another's; the entries are the scenes' own (read only).
    Only what every audience may see is kept here, by the identity of public objects
    (a piece, its collection, the pieces' tuple, a note): a seat's own cards are added
    to its own piece's entry, kept with the piece, and go to that seat's scenes only."""

    __slots__ = ("bound", "notes", "notes_lists", "pieces", "shown", "status")

    def __init__(self, bound: int = 256) -> None:
        self.bound = bound
        """How many entries each kind may hold before it is emptied (a table's few
        pieces and notes at its latest steps, by default)."""
        self.pieces: dict[tuple[int, int], tuple[Any, Any, dict[str, Any],
                                                 dict[str, Any] | None]] = {}
        """A scene's entry of a piece by the piece's identity and number, with the
        piece and collection it was made from and the entry with the cards, as its own
        seat's scene shows it."""
        self.notes: dict[int, tuple[Note, dict[str, Any]]] = {}
        """The entries of notes by the identity of the note (kept with it): a plugin
        that keeps its notes (the base game's) has them found with no note hashed."""
        self.status: dict[int, tuple[Any, Any, bool, str]] = {}
        """A scene's ``status``, by the identity of the pieces it names (with them,
        whose decision, whether over): the same in every audience's scene of a seq."""
        self.notes_lists: dict[tuple[int, ...], tuple[tuple[Note, ...],
                                                      list[dict[str, Any]],
                                                      tuple[str, ...]]] = {}
        """A scene's list of notes' entries, by the identities of the notes the plugins
        said (kept with them) and with the cards they name: the same list in every
        scene whose plugins said the very same notes (every audience's alike at a seq,
        but for a seat's own draws and offer, as a rule)."""
        self.shown: dict[tuple[int, int], tuple[object, object, dict[str, Any]]] = {}
        """A scene's ``cards``, by the identities of the own piece's cards (``None``:
        no own piece) and of the notes' list's entry above (kept with them): the facts
        of those cards alone, so the same object in the scenes that show the same."""


_WORDS: weakref.WeakKeyDictionary[Ruleset, _Words] = weakref.WeakKeyDictionary()


_LAST_WORDS: tuple[weakref.ref[Ruleset], _Words] | None = None
"""The ruleset last asked for (weakly held) and its words: a server asks for one
ruleset's many times per decision, and a weak dictionary's lookup makes a reference."""


def _words(ruleset: Ruleset) -> _Words:
    global _LAST_WORDS
    last = _LAST_WORDS  # read once: another thread may replace it meanwhile
    if last is not None and last[0]() is ruleset:
        return last[1]
    found = _WORDS.get(ruleset)
    if found is None:
        found = _WORDS[ruleset] = _Words(ruleset)
    _LAST_WORDS = (weakref.ref(ruleset), found)
    return found


def _plural(n: int, word: str) -> str:
    """``"1 coin"``, ``"-1 coin"``, ``"0 coins"``, ``"2 coins"``."""
    return f"{n} {word}{'' if abs(n) == 1 else 's'}"


@frozen
class CardFacts:
    """What a buyer needs to know of a card (:func:`card_facts`): display names, the
    printed price, the card's own points, its souvenir family and how sets score, and
    what it does, in the words of the plugin that owns it."""

    id: str
    name: str
    """Its display name (``"Sake"``)."""
    kind: str
    """The id of its kind (``"souvenir"``)."""
    kind_name: str
    """What one card of its kind is called (``"souvenir"``, ``"legendary object"``)."""
    family: str | None
    """The id of its souvenir family (``"food_drinks"``), ``None`` outside sets."""
    family_name: str | None
    """The family's display name (``"food and drink"``)."""
    price: int | None
    """Its printed price in coins, ``None`` for a card that is not bought (a traveller
    may pay less: Kinko, Zen-emon, Sasayakko)."""
    points: int
    """The points it scores by itself (0 for a souvenir, which scores by sets)."""
    effect: str | None
    """What it does beyond its price and points, a few words (``"3 coins"``)."""
    sets: str | None
    """For a card of a family, how sets score (one line)."""

    def summary(self) -> str:
        """Its facts in a few words: ``"souvenir, food and drink family, 2 coins"``,
        ``"meal, 2 coins, 6 points"``, ``"encounter: 3 points"``."""
        parts = [self.kind_name]
        if self.family_name is not None:
            parts.append(f"{self.family_name} family")
        if self.price:
            parts.append(_plural(self.price, "coin"))
        if self.points:
            parts.append(_plural(self.points, "point"))
        said = ", ".join(parts)
        return f"{said}: {self.effect}" if self.effect else said

    def tag(self) -> str:
        """The shortest useful facts, for a small card in a picture: price, family or
        points (``"2 coins · food and drink"``), else its effect."""
        parts = []
        if self.price:
            parts.append(_plural(self.price, "coin"))
        if self.family_name is not None:
            parts.append(self.family_name)
        elif self.points:
            parts.append(_plural(self.points, "point"))
        if not parts and self.effect:
            parts.append(self.effect)
        return " · ".join(parts) or self.kind_name

    def line(self) -> str:
        """Everything, one line (a picture's tooltip): ``"Sake: souvenir, food and drink
        family, 2 coins. Sets: ..."``."""
        said = f"{self.name}: {self.summary()}"
        return f"{said}. Sets: {self.sets}" if self.sets else said

    def attributes(self) -> dict[str, str]:
        """The ``data-`` attributes of the card in an SVG picture: ``data-card`` (id),
        ``data-kind``, ``data-name``, and where they apply ``data-price``,
        ``data-family``, ``data-family-name`` and ``data-points``."""
        found = {"data-card": self.id, "data-kind": self.kind, "data-name": self.name}
        if self.price:
            found["data-price"] = str(self.price)
        if self.family is not None:
            found["data-family"] = self.family
            found["data-family-name"] = self.family_name or self.family
        if self.points:
            found["data-points"] = str(self.points)
        return found


def _family_name(words: FrozenMap[str, str], family: str) -> str:
    return words.get(f"family:{family}", family.replace("_", " "))


def card_facts(card: str, ruleset: Ruleset) -> CardFacts:
    """The facts of card ``card`` (an id) in ``ruleset``: its names, printed price,
    points, family and effect (:class:`CardFacts`). The core knows the registered
    card; the words (families' names, effects, how sets score) are the plugins'
    (:func:`~tokaido_rules.hookspecs.tokaido_render_glossary`). A card id no plugin
    registered (a placeholder for a card unseen) has its id as its name and no facts."""
    words = _words(ruleset)
    found = words.cards.get(card)
    if found is not None:
        return found
    registered = ruleset.registry.cards.get(card)
    said = words.glossary
    if registered is None:
        found = CardFacts(card, card, "?", "card", None, None, None, 0, None, None)
    else:
        kind = registered.kind
        family = registered.family
        found = CardFacts(
            id=card, name=registered.name or card, kind=kind,
            kind_name=said.get(f"kind:{kind}", kind.replace("_", " ")),
            family=family, family_name=None if family is None else _family_name(said, family),
            price=registered.price or None, points=registered.points,
            effect=said.get(f"card:{card}"),
            sets=None if family is None else said.get("sets"))
    words.cards[card] = found
    return found


@frozen
class Standing:
    """One seat's line of the standings (:func:`final_standings`)."""

    rank: int
    """1 for the best; seats tied on points and on the tie-break share a rank."""
    seat: int
    traveller: str
    """The traveller's display name (``"-"`` for none)."""
    total: int
    categories: tuple[tuple[str, int], ...]
    """Points in every score category, as (display name, points), in the order the
    plugins registered the categories; they sum to ``total``."""
    winner: bool
    """Whether the seat won (rank 1 of a finished game; several in a shared victory)."""
    tiebreak: int
    """The tie-break value (:func:`~tokaido_rules.hookspecs.tokaido_tiebreak`)."""
    tied: bool = False
    """Whether another seat has as many points (so the tie-break ranks them)."""


def _public_game(sc: Scene) -> Game:
    """A game holding what the scene shows, to rank it as ``Game.scores`` does
    (the tie-break is read from what the picture shows: collections are public)."""
    from .engine import Game, make_rules
    from .model import GameState
    from .ruleset import Setup

    rules = make_rules(sc.ruleset, sc.players, Setup())
    state = GameState(rules=rules, seed=0, pieces=sc.pieces, zones=sc.zones, data=sc.data,
                      seq=sc.seq, turn=sc.turn, over=sc.over)
    return Game(state, ())


def _ranked(subject: Game | View | Scene | Sequence[Score],
            ruleset: Ruleset | None) -> tuple[list[Standing], Ruleset]:
    from .engine import Game

    over = True
    if isinstance(subject, Game):
        scores, ruleset, over = subject.scores(), subject.ruleset, subject.is_over
    elif isinstance(subject, Sequence):
        if ruleset is None:
            raise TypeError("final_standings(scores) needs the ruleset of the scores")
        scores = tuple(subject)
    else:
        sc = scene(subject)
        scores, ruleset, over = _public_game(sc).scores(), sc.ruleset, sc.over
    registry = ruleset.registry
    totals = [s.total for s in scores]
    rows = [Standing(rank=s.rank, seat=s.seat,
                     traveller=registry.traveller_name(s.traveller) if s.traveller else "-",
                     total=s.total,
                     categories=tuple((registry.category_label(c), v)
                                      for c, v in s.categories.items()),
                     winner=over and s.rank == 1, tiebreak=s.tiebreak,
                     tied=totals.count(s.total) > 1)
            for s in scores]
    return sorted(rows, key=lambda r: (r.rank, r.seat)), ruleset


def final_standings(subject: Game | View | Scene | Sequence[Score],
                    ruleset: Ruleset | None = None) -> list[Standing]:
    """The seats in rank order (the same rank: by seat), as
    :meth:`Game.scores <tokaido_rules.Game.scores>` ranks them: most points, then the
    tie-break, seats still tied sharing the rank. Each with its traveller's display
    name, total, points by category (display names) and whether it won (``winner``:
    rank 1 once the game is over; during a game, nobody).

    ``subject``: a game; a view or a scene (ranked from what it shows); or the
    :class:`~tokaido_rules.Score` rows of a game's scores, with their ``ruleset`` (then
    a rank 1 counts as won)."""
    return _ranked(subject, ruleset)[0]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _outcome(rows: Sequence[Standing], ruleset: Ruleset) -> str:
    if not rows:
        return "Nobody is seated."
    firsts = [r for r in rows if r.rank == 1]
    names = [f"seat {r.seat}" + (f" ({r.traveller})" if r.traveller != "-" else "")
             for r in firsts]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    points = _plural(firsts[0].total, "point")
    if not any(r.winner for r in rows):
        return f"{'Leaders' if len(firsts) > 1 else 'Leader'}: {who}, {points}."
    if len(firsts) > 1:
        return f"Winners, a shared victory: {who}, {points} each."
    said = f"Winner: {who}, {points}"
    if firsts[0].tied:
        rule = glossary(ruleset).get("tiebreak")
        said += ", on the tie-break" + (f" ({rule})" if rule else "")
    return said + "."


def outcome(subject: Game | View | Scene | Sequence[Score],
            ruleset: Ruleset | None = None) -> str:
    """Who won and how, one sentence: ``"Winner: seat 2 (Kinko), 71 points."``, with
    the tie-break where it decided (``"Winner: seat 1 (Kinko), 60 points, on the
    tie-break (more achievement cards)."``), or ``"Winners, a shared victory: seat 0
    (Kinko) and seat 1 (Umegae), 60 points each."``; during a game, who leads
    (``"Leader: ..."``). Arguments as :func:`final_standings`."""
    return _outcome(*_ranked(subject, ruleset))


def standings_lines(subject: Game | View | Scene | Sequence[Score],
                    ruleset: Ruleset | None = None, *, width: int = 80) -> list[str]:
    """The standings as text, no line longer than ``width``: who won and how
    (:func:`outcome`), then each seat in rank order, its rank, traveller and total
    (``winner`` marked) and, under it, its points in the categories that scored."""
    rows, ruleset = _ranked(subject, ruleset)
    lines = _wrap(_outcome(rows, ruleset), width, "", "  ")
    for r in rows:
        who = f"seat {r.seat}" + (f" ({r.traveller})" if r.traveller != "-" else "")
        head = (f"{_ordinal(r.rank):>4}  {who}: "
                f"{_plural(r.total, 'point')}" + (", winner" if r.winner else ""))
        lines += _wrap(head, width, "", "      ")
        cats = [f"{c} {v}" for c, v in r.categories if v]
        if cats:
            lines += _pack(cats, width, "      ", "      ")
    return lines


# --- words: actions, their effects, the journey ----------------------------------------


def _ids_pattern(registry: Registry) -> tuple[re.Pattern[str], dict[str, str]]:
    """The ids of every card and traveller, and their display names: a plugin's action
    text (``str(action)``) names things by id, the table by display name."""
    names = {card.id: card.name for card in registry.cards.values() if card.name}
    names.update({t.name: t.label for t in registry.travellers.values() if t.label})
    ids = sorted(names, key=lambda i: (-len(i), i))
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, ids)) + r")(?!\w|\.\w)"
                         if ids else r"(?!x)x")
    return pattern, names


def _named(text: str, ruleset: Ruleset, facts: bool = False) -> str:
    """``text`` with the ids of cards and travellers replaced by their display names;
    with ``facts``, the first mention of each followed by its facts in brackets
    (:meth:`CardFacts.summary`, :meth:`TravellerFacts.summary`). Where the text names
    the card's kind beside it ("the vitality amulet"), the facts follow the kind's word
    and leave it out."""
    words = _words(ruleset)
    if words.ids is None:
        words.ids = _ids_pattern(ruleset.registry)
    pattern, names = words.ids
    if not facts:
        return pattern.sub(lambda m: names[m.group(1)], text)
    travellers = ruleset.registry.travellers
    out: list[str] = []
    told: set[str] = set()
    at = 0
    for m in pattern.finditer(text):
        found = m.group(1)
        out.append(text[at:m.start()] + names[found])
        at = m.end()
        if found in told:
            continue
        told.add(found)
        if found in travellers:
            out.append(f" ({traveller_facts(found, ruleset).summary()})")
            continue
        card = card_facts(found, ruleset)
        said = card.summary()
        after = " " + card.kind_name
        if text.startswith(after, at) and not text[at + len(after):at + len(after) + 1].isalnum():
            out.append(after)
            at += len(after)
            said = said[len(card.kind_name):].lstrip(",: ")
        elif text[:m.start()].endswith(card.kind_name + " "):
            said = said[len(card.kind_name):].lstrip(",: ")
        if said:
            out.append(f" ({said})")
    out.append(text[at:])
    return "".join(out)


def _who(state: GameState, piece: int) -> str:
    p = state.pieces[piece]
    if p.seat is None:
        return "neutral"
    if p.traveller is None:  # a variant without travellers (initiation), or before the choice
        return f"seat {p.seat}"
    return f"seat {p.seat} ({state.rules.registry.traveller_name(p.traveller)})"


def describe_action(state: GameState | Game, action: Action, *, facts: bool = False) -> str:
    """One line for a decision, in the words of the table (display names, not ids);
    ``state`` is the game when the decision was taken (its state, or the
    :class:`~tokaido_rules.Game` itself). With ``facts``, each card and
    traveller it names is followed by what a player choosing needs:
    ``"seat 0: buy Sake (souvenir, food and drink family, 2 coins)"``,
    ``"seat 1: choose Kinko (7 starting coins; pays 1 coin less for every meal)"``
    (:func:`card_facts`, :func:`traveller_facts`), for a page with room for it (the
    replay viewer's lines); without, the names alone, short enough for a terminal's
    numbered list (``tokaido play``, whose screen shows the facts of the village's
    souvenirs, the inn's meals and the travellers offered) and the journey."""
    if not isinstance(state, GameState):
        state = state.state  # a game: the decision is taken on its state
    registry = state.rules.registry
    if isinstance(action, Move) and type(action) is Move:
        space = registry.space_kind(state.rules.board[action.position].kind).label
        by = f" [moved by seat {action.seat}]" if state.pieces[action.piece].seat is None else ""
        return f"{_who(state, action.piece)} moves to {action.position} ({space}){by}"
    return _named(str(action), state.rules.ruleset, facts)


def describe_effects(events: Sequence[Event], state: GameState,
                     first: int | None = None) -> str:
    """A short summary of what followed a decision: coins, points, cards gained. Effects
    on another traveller than ``first`` (the decider) are prefixed with its name."""
    registry = state.rules.registry
    parts: list[str] = []
    last = first
    for ev in events:
        piece = getattr(ev, "piece", None)
        said = None
        if isinstance(ev, CoinsChanged):
            said = f"{'+' if ev.delta > 0 else ''}{_plural(ev.delta, 'coin')}"
        elif isinstance(ev, Scored):
            said = (f"{'+' if ev.points > 0 else ''}{ev.points} "
                    f"{registry.category_label(ev.category)}")
        elif isinstance(ev, CardsMoved) and ev.dst.startswith(COLLECTION + "."):
            piece = int(ev.dst.rsplit(".", 1)[1])
            said = f"gets {', '.join(registry.card_name(c) for c in ev.cards)}"
        if said is None:
            continue
        if piece is not None and piece != last:
            said = f"{_who(state, piece)} {said}"
        last = piece
        parts.append(said)
    return "; ".join(parts)


def journey(game: Game, upto: int | None = None) -> list[tuple[int, str]]:
    """One line per decision (seat, text) with what followed; ``seat`` -1 marks the end
    of the journey and, once every event of the end is in, who won and how
    (:func:`outcome`). ``upto``: stop after that event."""
    from .engine import Game, initial_state

    state = initial_state(game.state.rules, game.seed)
    events = game.events if upto is None else game.events[: upto + 1]
    lines: list[tuple[int, str]] = []
    i = 0
    while i < len(events):
        event = events[i]
        j = i + 1
        while j < len(events) and not isinstance(events[j], Action | GameOver):
            j += 1
        before = state
        for e in events[i:j]:
            state = fold(state, e)
        decider = getattr(event, "piece", event.seat) if isinstance(event, Action) else None
        effects = describe_effects(events[i + 1:j], state, decider)
        if isinstance(event, Action):
            lines.append((event.seat, describe_action(before, event) +
                          (f": {effects}" if effects else "")))
        elif isinstance(event, GameOver):
            lines.append((-1, "end of the journey: " + effects))
            if j == len(events) and state.over:
                lines.append((-1, outcome(Game(state, ()))))
        i = j
    return lines


def journey_lines(game: Game, upto: int | None = None, *, width: int = 80) -> list[str]:
    """The journey (:func:`journey`) as numbered lines, wrapped to ``width``."""
    out: list[str] = []
    n = 0
    for seat, said in journey(game, upto):
        if seat < 0:
            out += _wrap(said, width, "      ", "      ")
        else:
            n += 1
            out += _wrap(said, width, f"{n:4d}. ", "      ")
    return out


# --- text ---------------------------------------------------------------------------------


def _wrap(line: str, width: int, first: str = "", later: str = "    ") -> list[str]:
    """``line`` wrapped to ``width`` (words cut only when one is longer than a line)."""
    width = max(width, len(first) + 1, len(later) + 1)
    return textwrap.wrap(line, width, initial_indent=first, subsequent_indent=later,
                         break_on_hyphens=False) or [first.rstrip()]


def _pack(items: Sequence[str], width: int, first: str = "", later: str = "    ",
          sep: str = ", ") -> list[str]:
    """``items`` joined by ``sep`` and wrapped to ``width`` between items where one
    fits on a line ("Cherry trees 2" stays whole), else as words."""
    trailing = sep.rstrip()
    space = sep[len(trailing):]
    lines: list[str] = []
    line = first
    for n, item in enumerate(items):
        piece = item + (trailing if n + 1 < len(items) else "")
        joiner = "" if line in (first, later) else space
        if len(line) + len(joiner) + len(piece) <= width:
            line += joiner + piece
            continue
        if line not in (first, later):
            lines.append(line)
            line = later
        if len(line) + len(piece) <= width:
            line += piece
        else:
            cut = _wrap(piece, width, line, later)
            lines += cut[:-1]
            line = cut[-1]
    lines.append(line)
    return [x.rstrip() for x in lines]


_CELL = 5
"""Characters per position on the terminal's board (four and a space)."""


def _stretches(board: Sequence[Space]) -> list[list[int]]:
    """The road cut after every inn but the first: the stretches between inns."""
    out: list[list[int]] = [[]]
    for i, space in enumerate(board):
        out[-1].append(i)
        if space.inn and i > 0 and i < len(board) - 1:
            out.append([])
    return out


def _text_rows(board: Sequence[Space], per_row: int) -> list[list[int]]:
    """The positions of each line of the terminal's board: whole stretches between inns
    where they fit, cut where one is longer than a line."""
    rows: list[list[int]] = []
    row: list[int] = []
    for stretch in _stretches(board):
        if row and len(row) + len(stretch) > per_row:
            rows.append(row)
            row = []
        if len(stretch) > per_row:  # cut in even parts, the last one left open
            parts = -(-len(stretch) // per_row)
            size = -(-len(stretch) // parts)
            rows += [stretch[k:k + size] for k in range(0, len(stretch) - size, size)]
            stretch = stretch[(parts - 1) * size:]
        row += stretch
    if row:
        rows.append(row)
    return rows


def _occupants(sc: Scene) -> dict[int, list[tuple[int, int]]]:
    """Per position, its pieces as (slot, piece), the first slot (or arrival) first."""
    at: dict[int, list[tuple[int, int]]] = {}
    for i, p in enumerate(sc.pieces):
        at.setdefault(p.position, []).append((p.slot, i))
    for found in at.values():
        found.sort()
    return at


def _mark(sc: Scene, piece: int) -> str:
    seat = sc.pieces[piece].seat
    return "N" if seat is None else str(seat)


def road_text(subject: Game | View | Scene, *, width: int = 80) -> list[str]:
    """The road as a board for the terminal, at most ``width`` characters wide.

    Per position: its number, its kind (three letters; ``*`` marks a second slot open
    at this player count) and, under it, the travellers there by seat number (``N`` the
    neutral traveller), one line per slot: on a road space the first line is the road
    slot and the second the off-road one; at an inn, travellers in arrival order, the
    first arrival on top. Lines are cut between inns where the width allows."""
    sc = scene(subject)
    board, slots = sc.board, sc.slots
    at = _occupants(sc)
    lines: list[str] = []
    for row in _text_rows(board, max(1, (width + 1) // _CELL)):
        if lines:
            lines.append("")
        kinds = [sc.registry.space_kind(board[i].kind).short + ("*" if slots[i] > 1 else "")
                 for i in row]
        lines.append(" ".join(f"{i:>4}" for i in row))
        lines.append(" ".join(f"{k:>4}" for k in kinds))
        # a road space's line n is its slot n; an inn's are its travellers in order
        levels = {i: {(n if board[i].inn else slot): _mark(sc, piece)
                      for n, (slot, piece) in enumerate(at.get(i, []))} for i in row}
        depth = max((max(found) + 1 for found in levels.values() if found), default=0)
        for level in range(depth):
            lines.append(" ".join(f"{levels[i].get(level, ''):>4}" for i in row).rstrip())
    return [line[:width] for line in lines]


def _piece_lines(sc: Scene, found: Sequence[Note], width: int) -> list[str]:
    """Each traveller: who, where, coins and points on one line (where ``width``
    allows), then its cards by kind, points by category and the plugins' notes."""
    names = [sc.who(i) + (", you" if p.seat is not None and p.seat == sc.seat else "")
             for i, p in enumerate(sc.pieces)]
    places = [sc.registry.space_kind(sc.board[p.position].kind).label for p in sc.pieces]
    name_w, place_w = max(map(len, names)), max(map(len, places))
    lines: list[str] = []
    for i, p in enumerate(sc.pieces):
        turn = "> " if p.seat is not None and p.seat == sc.current_player else "  "
        head = [f"{turn}{names[i]:<{name_w}}", f"at {p.position:>2} {places[i]:<{place_w}}"]
        if p.seat is not None:
            head += [f"{p.coins:>2} coin{'' if abs(p.coins) == 1 else 's'}",
                     f"{p.total:>3} point{'' if abs(p.total) == 1 else 's'}"]
        lines += _pack(head, width, "", "      ", sep="  ")
        if p.seat is None:
            continue
        cards = sc.collection(i)
        if cards:
            lines += _pack([f"{label} {n}" for label, n in _kind_counts(sc, cards)], width,
                           "    Cards: ", "      ")
        points = _points(sc, i)
        if points:
            lines += _pack([f"{c} {v}" for c, v in points], width, "    Points: ", "      ")
        families = _families(sc, cards)
        if families:
            lines += _pack([f"{name} {n}" for name, n in families], width,
                           "    Souvenir families: ", "      ")
        if p.seat == sc.seat and cards:
            lines += _pack([sc.registry.card_name(c) for c in cards], width,
                           "    Your cards: ", "      ")
        for note in found:
            if note.piece == i:
                lines += _pack(_note_items(sc, note), width, f"    {note.label}: ", "      ")
    return lines


def _note_items(sc: Scene, note: Note) -> list[str]:
    """What a note lists in text: its cards with their facts, else its text's items."""
    if not note.cards:
        return note.text.split(", ")
    return [f"{f.name} ({f.summary()})" for f in (card_facts(c, sc.ruleset) for c in note.cards)]


def _family_order(ruleset: Ruleset) -> dict[str, int]:
    """The souvenir families, numbered in the order their first card was registered."""
    words = _words(ruleset)
    if words.families is None:
        order: dict[str, int] = {}
        for card in ruleset.registry.cards.values():
            if card.family is not None:
                order.setdefault(card.family, len(order))
        words.families = order
    return words.families


def _families(sc: Scene, cards: Iterable[str]) -> list[tuple[str, int]]:
    """How many cards of each souvenir family, as (display name, count), in the order
    the families were registered."""
    words = _words(sc.ruleset)
    family_of = words.family_of
    if family_of is None:
        order = _family_order(sc.ruleset)
        family_of = words.family_of = {
            card.id: (order[card.family], _family_name(words.glossary, card.family))
            for card in sc.registry.cards.values() if card.family is not None}
    counts: dict[tuple[int, str], int] = {}
    for card in cards:
        found = family_of.get(card)
        if found is not None:
            counts[found] = counts.get(found, 0) + 1
    return [(name, counts[(n, name)]) for n, name in sorted(counts)]


def _title(sc: Scene) -> str:
    plugins = ", ".join(sc.ruleset.ids)
    seen = ", as a spectator sees it" if sc.spectator else (
        "" if sc.seat is None else f", as seat {sc.seat} sees it")
    return f"Tokaido, {sc.players} players ({plugins}), turn {sc.turn}{seen}: {_status(sc)}"


def text(subject: Game | View | Scene, *, width: int = 80) -> str:
    """A picture of a game or a seat's view for the terminal, no line longer than
    ``width``: a title, the road (:func:`road_text`), each traveller with its coins,
    points, cards by kind and souvenirs by family (a seat's own cards by name), and the
    plugins' notes, the cards they name with their facts (price, family: the village's
    souvenirs, the inn's meals); once the game is over, the standings
    (:func:`standings_lines`: who won and how, ranks, points by category)."""
    sc = scene(subject)
    found = notes(sc)
    lines = _wrap(_title(sc), width, "", "  ")
    lines.append("")
    lines += road_text(sc, width=width)
    lines.append("")
    lines += _piece_lines(sc, found, width)
    table = [n for n in found if n.piece is None]
    if table:
        lines.append("")
        for note in table:
            lines += _pack(_note_items(sc, note), width, f"{note.label}: ", "    ")
    if sc.over:
        lines.append("")
        lines += standings_lines(sc, width=width)
    return "\n".join(line[:width] for line in lines)


class Grid(NamedTuple):
    """A table's content, before any layout: the text of its header and of each row's
    cells. The first ``left`` columns hold names (laid out aligned left), the others
    figures (aligned right). :func:`table` lays a grid out as plain text; the command
    line draws the same grid with ``rich`` at a terminal."""

    headers: list[str]
    """The header of each column."""
    rows: list[list[str]]
    """Each row's cells, one per header."""
    left: int = 1
    """How many columns, from the first, hold names."""


def score_rows(game: Game, *, seats_as_columns: bool = False) -> Grid:
    """The content of the score table (:func:`score_table` lays it out): one row per
    seat with its seat number, traveller, points in each category (display names),
    total and rank (``left`` 2); or, with ``seats_as_columns``, turned: the headers are
    ``seat`` and the seat numbers, and each row is one of those figures across the
    seats, its label first (``left`` 1)."""
    registry = game.ruleset.registry
    cats = list(registry.categories)
    headers = ["seat", "traveller", *(registry.category_label(c) for c in cats), "total",
               "rank"]
    rows = [[str(s.seat), registry.traveller_name(s.traveller) if s.traveller else "-",
             *[str(s.categories[c]) for c in cats], str(s.total), str(s.rank)]
            for s in game.scores()]
    if not seats_as_columns:
        return Grid(headers, rows, left=2)
    turned = [[label, *(row[k] for row in rows)] for k, label in enumerate(headers)]
    return Grid(turned[0], turned[1:], left=1)


def score_table(game: Game, *, width: int = 80) -> str:
    """The scores of every seat by category, total and rank (:func:`score_rows`), at
    most ``width`` wide: seats as rows where that fits, else seats as columns (a
    ruleset with many categories), names shortened only when even that does not fit."""
    wide = score_rows(game)
    lines = _grid(wide.headers, wide.rows, left=wide.left)
    if max(len(line) for line in lines) <= width:
        return "\n".join(lines)
    turned = score_rows(game, seats_as_columns=True)
    every = [turned.headers, *turned.rows]
    seats = len(turned.headers) - 1
    label_width = max(len(line[0]) for line in every)
    column_width = max(len(v) for line in every for v in line[1:])
    spare = width - 2 * seats
    while label_width + column_width * seats > spare and (label_width > 8
                                                          or column_width > 4):
        if label_width > 8 and label_width >= column_width:
            label_width -= 1
        else:
            column_width -= 1
    lines = []
    for label, *values in every:
        cells = [_cut(v, column_width).rjust(column_width) for v in values]
        lines.append(_cut(label, label_width).ljust(label_width) + "  " + "  ".join(cells))
    return "\n".join(line.rstrip()[:width] for line in lines)


def _cut(value: str, size: int) -> str:
    return value if len(value) <= size else value[: max(size - 1, 1)] + "."


def _grid(headers: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 1,
          widths: Sequence[int] | None = None) -> list[str]:
    """A table: the first ``left`` columns aligned left, the others right; cells cut
    to ``widths`` where given."""
    if widths is None:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i < left else f"{{:>{w}}}" for i, w in enumerate(widths))
    out = [fmt.format(*(_cut(h, w) for h, w in zip(headers, widths, strict=True))),
           fmt.format(*["-" * w for w in widths])]
    out.extend(fmt.format(*(_cut(c, w) for c, w in zip(r, widths, strict=True)))
               for r in rows)
    return [line.rstrip() for line in out]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, width: int = 80,
          left: int = 1) -> str:
    """A table of text under a line of dashes, at most ``width`` wide: the first
    ``left`` columns (names) aligned left and shortened if the table is too wide, the
    others (figures) aligned right and never cut."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    while sum(widths) + 2 * (len(widths) - 1) > width:
        longest = max(range(min(left, len(widths))), key=lambda i: widths[i], default=None)
        if longest is None or widths[longest] <= 4:
            break
        widths[longest] -= 1
    return "\n".join(line[:width] for line in _grid(headers, rows, left=left, widths=widths))


# --- SVG ----------------------------------------------------------------------------------

_W = 1200
_MARGIN = 24
_TILE = 58
_INN_W = 88
_ROW_H = 134
_SLOT_DROP = 24
"""From a tile's bottom edge to the centre of its off-road slot."""
_MAX_ROW = 14
"""Road spaces in one row of the SVG board at most."""
_FONT = "'Helvetica Neue', Helvetica, Arial, sans-serif"
_INK = "#2b2b2b"
_MUTED = "#6b6b6b"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@cache
def _darker(colour: str, amount: float = 0.42) -> str:
    r, g, b = (round(c * (1 - amount)) for c in _rgb(colour))
    return f"#{r:02x}{g:02x}{b:02x}"


@cache
def _ink_on(colour: str) -> str:
    """Dark or white text, whichever reads better on ``colour``."""
    r, g, b = (c / 255 for c in _rgb(colour))
    return _INK if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else "#ffffff"


@cache
def _colour(value: str, default: str) -> str:
    return value if re.fullmatch(r"#[0-9a-fA-F]{6}", value) else default


_SEAT_COLOURS_MADE: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The seats' colours of a picture (:func:`_seat_colours`) by the colours asked: a
server draws every audience's scene of every move with the same few."""


def _seat_colours(colours: Sequence[str]) -> list[str]:
    """``colours`` with each one that is not ``#RRGGBB`` replaced by the default of its
    seat (:data:`SEAT_COLOURS`), the defaults for none; checked once per set of
    colours."""
    key = tuple(colours)
    found = _SEAT_COLOURS_MADE.get(key)
    if found is None:
        found = tuple(_colour(c, SEAT_COLOURS[n % len(SEAT_COLOURS)])
                      for n, c in enumerate(key)) or SEAT_COLOURS
        if len(_SEAT_COLOURS_MADE) < 64:
            _SEAT_COLOURS_MADE[key] = found
    return list(found)


def _n(x: float) -> str:
    """A coordinate, short and the same on every platform (one decimal at most)."""
    return f"{round(x, 1):g}"


class _Svg:
    """An SVG document as a list of elements (strings), text escaped on the way in."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, rx: float = 0,
             stroke: str = "none", width: float = 1, extra: str = "") -> None:
        self.add(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                 f'rx="{_n(rx)}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{_n(width)}"{extra}/>')

    def circle(self, x: float, y: float, r: float, fill: str, *, stroke: str = "none",
               width: float = 1, extra: str = "") -> None:
        self.add(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="{_n(width)}"{extra}/>')

    def text(self, x: float, y: float, said: str, *, size: float = 12, fill: str = _INK,
             anchor: str = "start", weight: str = "normal", fit: float | None = None) -> None:
        squeeze = ""
        if fit is not None and _text_width(said, size) > fit:
            squeeze = f' textLength="{_n(fit)}" lengthAdjust="spacingAndGlyphs"'
        self.add(f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" fill="{fill}" '
                 f'text-anchor="{anchor}" font-weight="{weight}"{squeeze}>'
                 f'{escape(said)}</text>')


_EM = 0.52
"""The width of an average character in the pictures' sans-serif font, in font sizes
(a little more than Helvetica's, so that text estimated to fit does)."""


def _text_width(said: str, size: float) -> float:
    """About how wide ``said`` is in the pictures' sans-serif font."""
    return len(said) * size * _EM


def _wrap_px(items: Sequence[str], pixels: float, size: float,
             sep: str = " · ") -> list[str]:
    """``items`` joined by ``sep`` in lines at most ``pixels`` wide (estimated)."""
    return _pack(items, max(8, int(pixels / (size * _EM))), "", "", sep=sep)


def _svg_rows(board: Sequence[Space]) -> list[tuple[list[int], int | None]]:
    """The rows of the SVG board: the road spaces of each stretch between inns (cut in
    rows of at most ``_MAX_ROW``) and the inn the row turns at (``None`` for a cut)."""
    inns = [i for i, s in enumerate(board) if s.inn]
    rows: list[tuple[list[int], int | None]] = []
    for a, b in itertools.pairwise(inns):
        road = list(range(a + 1, b))
        chunks = [road[k:k + _MAX_ROW] for k in range(0, len(road), _MAX_ROW)] or [[]]
        for n, chunk in enumerate(chunks):
            rows.append((chunk, b if n == len(chunks) - 1 else None))
    return rows


def svg(subject: Game | View | Scene, *, colours: Sequence[str] = SEAT_COLOURS,
        width: int = _W, legend: bool = False) -> str:
    """An SVG picture of a game or a seat's view (a string, valid XML, the same for the
    same input): the road in rows that turn at the inns, each space coloured by kind
    with its number and its second, off-road slot where open; the travellers in their
    slots in their seat's colour (``colours``, seat 0 first), the deciding seat's ringed;
    below, one card per traveller with its points, coins, position, collection by kind,
    souvenirs by family, points by category and the plugins' notes, then the plugins'
    notes on the table. The cards a note names (the village's souvenirs, the inn's
    meals, a seat's own cards) show their facts: price, family, points
    (:func:`card_facts`). Once the game is over, the winners are marked (a gold star on
    the piece, a gold card saying "winner"), each card shows its rank and the title
    says who won and how (:func:`outcome`).

    Data attributes, for a page to read: the root ``<svg>`` has ``data-over`` and, once
    over, ``data-winners`` (seats, comma-separated); each traveller's piece and card is
    a ``<g>`` with ``data-piece``, ``data-seat`` (``""`` for the neutral traveller) and,
    once over, ``data-rank`` and ``data-winner`` (``"true"``/``"false"``); each card
    shown is an element with ``data-card`` and the other attributes of
    :meth:`CardFacts.attributes` (``data-price``, ``data-family``, ...), its facts in a
    ``<title>`` (a tooltip).

    ``width``: the picture's width in pixels (it scales; the drawing is 1200 units wide).
    ``legend``: add the legend (:func:`legend_items`) at the bottom.
    """
    sc = scene(subject)
    standings = None
    if sc.over:
        from .engine import Game

        standings = final_standings(subject if isinstance(subject, Game) else sc)
    picture = _Picture(sc, colours, standings)
    height = picture.table(picture.cards(picture.board(88) + 30) + 18)
    if legend:
        height = picture.legend(height + 18)
    height += _MARGIN
    head = picture.head(height)
    over = ' data-over="true"' if sc.over else ' data-over="false"'
    if standings is not None:
        over += f' data-winners="{",".join(str(r.seat) for r in standings if r.winner)}"'
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{_n(height * width / _W)}" viewBox="0 0 {_W} {_n(height)}" '
            f'font-family={quoteattr(_FONT)}{over}>'
            + "".join(head.parts) + "".join(picture.out.parts) + "</svg>")


def scene_json(subject: Game | View | Scene, *, colours: Sequence[str] = SEAT_COLOURS,
               legend: bool = False, memo: SceneMemo | None = None) -> dict[str, Any]:
    """What :func:`svg` draws of ``subject``, as JSON-ready data for a browser to draw
    (``pages/board.js``, :func:`board_js`): the same picture, with no JavaScript of the
    plugins, because everything is said here in display names, colours and facts.

    Made from :func:`scene`, so a seat's view gives what that seat sees and no more:
    the cards of a seat's own collection only in its own scene, the plugins' notes
    (:func:`notes`) as they are drawn for that scene, the facts (:func:`card_facts`)
    of the cards shown and nothing of the others. The fields are documented in
    ``docs/reference/wire-format.md`` and their schema is ``$defs/scene`` of
    :func:`~tokaido_rules.wire.schemas`. ``legend``: add the legend's items, drawn at
    the bottom as ``svg(..., legend=True)`` does. ``memo``: what to find the entries of
    the game's earlier scenes in (:class:`SceneMemo`; a server keeps one per table),
    else a memo every game of the ruleset shares. Its lists and objects are shared with
    other scenes (read them, never change them).
    """
    sc = scene(subject)
    standings = None
    if sc.over:
        from .engine import Game

        standings = final_standings(subject if isinstance(subject, Game) else sc)
    registry, slots = sc.registry, sc.slots

    words = _words(sc.ruleset)
    if memo is None:
        memo = words.memo
    bound = memo.bound
    road = sc.board
    if words.scene_road is None or words.scene_road[0] is not road:
        looks = [(space, registry.space_kind(space.kind)) for space in road]
        words.scene_road = (road, [
            (space.kind, look.label, _colour(look.colour, "#dddddd"), space.inn,
             space.double) for space, look in looks], {})
        words.scene_boards = {}
        words.scene_board = (None, None)
    spaces, made_spaces = words.scene_road[1], words.scene_road[2]
    # the board's list, the same for every scene of the road at a player count (its
    # slots): made once and shared, as its entries are
    last_board = words.scene_board
    board = last_board[1] if last_board[0] is slots else words.scene_boards.get(slots)
    if board is None:
        board = words.scene_boards[slots] = []
        for n, taken in enumerate(slots):  # each space's entry shared by the scenes alike
            entry = made_spaces.get((n, taken))
            if entry is None:
                kind, label, colour, inn, double = spaces[n]
                entry = made_spaces[(n, taken)] = {
                    "kind": kind, "label": label, "colour": colour, "inn": inn,
                    "double": double, "slots": taken}
            board.append(entry)
    if last_board[0] is not slots:
        words.scene_board = (slots, board)
    pieces = []
    made_pieces = words.scene_pieces
    kept = memo.pieces
    zones = sc.zones
    own_cards: tuple[str, ...] | None = None
    for i, p in enumerate(sc.pieces):
        cards = (zones.get(_COLLECTION_ZONES[i] if i < 8 else collection_zone(i), ())
                 if p.seat is not None else ())
        # a piece's entry is made from the piece and its collection alone (all that is
        # in the key): made once, it is shared by every scene that shows the same
        last = kept.get((id(p), i))  # the same objects: no key hashed
        if last is None or last[0] is not p or last[1] is not cards:
            key = (i, p, cards)
            piece = made_pieces.get(key)
            if piece is None:
                piece = {
                    "seat": p.seat, "position": p.position, "slot": p.slot,
                    "coins": p.coins, "total": p.total, "traveller": sc.traveller_name(i),
                    "who": sc.who(i)}
                if p.seat is not None:
                    piece["collection"] = [[label, n] for label, n in _kind_counts(sc, cards)]
                    piece["families"] = [[name, n] for name, n in _families(sc, cards)]
                    piece["points"] = [[c, v] for c, v in _points(sc, i)]
                if len(made_pieces) >= 4096:
                    made_pieces.clear()
                made_pieces[key] = piece
            if len(kept) >= bound:
                kept.clear()
            last = kept[(id(p), i)] = (p, cards, piece, None)
        if p.seat is not None and p.seat == sc.seat:
            # (a seat of more pieces than one: their cards in order, in a new tuple)
            own_cards = cards if own_cards is None else own_cards + cards
            own = last[3]  # with the cards' list, the same for its seat's scenes
            if own is None:
                own = {**last[2], "cards": list(cards)}
                kept[(id(p), i)] = (p, cards, last[2], own)
            pieces.append(own)
        else:
            pieces.append(last[2])
    # the notes' entries and the status are shared by the scenes that show the same
    # (every audience's alike at a seq, for the most part): the same objects, whose
    # texts a server makes once (``tables.py``)
    said_notes = sc.ruleset.hooks.render_notes(sc)
    ids = tuple(map(id, said_notes))
    lists = memo.notes_lists
    listed = lists.get(ids)
    if listed is None or not all(map(operator.is_, listed[0], said_notes)):  # kept alive
        listed = _note_entries(said_notes, words.scene_notes, memo)
        if len(lists) >= bound:
            lists.clear()
        lists[ids] = listed
    notes_made = listed[1]
    shown_key = (id(own_cards), id(listed))
    found_shown = memo.shown.get(shown_key)
    if (found_shown is not None and found_shown[0] is own_cards
            and found_shown[1] is listed):
        shown = found_shown[2]
    else:
        shown = {}
        if own_cards is not None:
            _facts(shown, own_cards, words.scene_cards, sc.ruleset)
        _facts(shown, listed[2], words.scene_cards, sc.ruleset)
        if len(memo.shown) >= bound:
            memo.shown.clear()
        memo.shown[shown_key] = (own_cards, listed, shown)
    said = memo.status.get(id(sc.pieces))
    if (said is not None and said[0] is sc.pieces and said[1] == sc.current_player
            and said[2] == sc.over):
        status = said[3]
    else:
        status = _status(sc)
        if len(memo.status) >= bound:
            memo.status.clear()
        memo.status[id(sc.pieces)] = (sc.pieces, sc.current_player, sc.over, status)
    if colours is words.colours_asked:  # (a tuple, as the default: never changed)
        scene_colours = words.colours
    else:
        scene_colours = _seat_colours(colours)
        if scene_colours == words.colours:  # the list every scene shares (read only)
            scene_colours = words.colours
        else:
            words.colours = scene_colours
        words.colours_asked = colours if isinstance(colours, tuple) else None
    return {
        "format": SCENE_FORMAT, "version": SCENE_VERSION, "seat": sc.seat,
        "spectator": sc.spectator, "players": sc.players, "turn": sc.turn, "seq": sc.seq,
        "over": sc.over, "current_player": sc.current_player, "status": status,
        "plugins": words.plugins, "colours": scene_colours,
        "neutral_colour": NEUTRAL_COLOUR, "board": board, "pieces": pieces,
        "notes": notes_made,
        "cards": shown,
        "standings": None if standings is None else [
            {"seat": r.seat, "rank": r.rank, "winner": r.winner} for r in standings],
        "outcome": None if standings is None else _outcome(standings, sc.ruleset),
        "legend": None if not legend else [
            {"key": item.key, "label": item.label, "swatch": item.swatch}
            for item in legend_items(sc, colours=scene_colours)],
    }


def _facts(shown: dict[str, dict[str, Any]], cards: Iterable[str],
           made: dict[str, dict[str, Any]], ruleset: Ruleset) -> None:
    """Add to a scene's ``cards`` (``shown``) the facts of ``cards`` not there yet, each
    entry made once per ruleset (``made``: a card's facts are the same in every scene,
    shared by the scenes: read, never changed)."""
    for card in cards:
        if card not in shown:
            entry = made.get(card)
            if entry is None:
                f = card_facts(card, ruleset)
                entry = made[card] = {
                    "name": f.name, "tag": f.tag(), "line": f.line(),
                    "family": f.family is not None,
                    "colour": _family_colour(ruleset, f.family),
                    "attributes": [[k, v] for k, v in f.attributes().items()]}
            shown[card] = entry


def _note_entries(said: list[Note], made: dict[Note, dict[str, Any]], memo: SceneMemo
                  ) -> tuple[tuple[Note, ...], list[dict[str, Any]], tuple[str, ...]]:
    """The entries of the notes ``said`` in a scene (each found by the note's identity
    in ``memo``, else by its value in ``made``, else made) and the cards they name, in
    order: what :attr:`SceneMemo.notes_lists` keeps."""
    by_id, bound = memo.notes, memo.bound
    entries = []
    cards: list[str] = []
    for said_note in said:
        if said_note.cards:
            cards += said_note.cards
        same = by_id.get(id(said_note))
        if same is not None and same[0] is said_note:
            entries.append(same[1])
            continue
        try:
            note = made.get(said_note)
            keyed = True
        except TypeError:  # a note whose fields cannot be a key: made each time
            note, keyed = None, False
        if note is None:
            note = {"label": said_note.label, "text": said_note.text,
                    "piece": said_note.piece, "cards": list(said_note.cards)}
            if keyed:
                if len(made) >= 4096:
                    made.clear()
                made[said_note] = note
        if keyed:
            if len(by_id) >= bound:
                by_id.clear()
            by_id[id(said_note)] = (said_note, note)
        entries.append(note)
    return tuple(said), entries, tuple(cards)


_COLLECTION_ZONES = tuple(collection_zone(piece) for piece in range(8))
"""The zones of the collections of the first pieces (a table seats at most five)."""


def _family_colour(ruleset: Ruleset, family: str | None) -> str:
    """The colour a card of souvenir ``family`` is drawn in (``None``: not a souvenir)."""
    if family is None:
        return "#8c8577"
    order = _family_order(ruleset)
    n = order.get(family, len(order))
    return _FAMILY_COLOURS[n % len(_FAMILY_COLOURS)]


def board_js() -> str:
    """The browser's drawing of a scene (``pages/board.js``, no dependency, no build
    step): ``TokaidoBoard.svg(scene)`` gives, from :func:`scene_json`, the text
    :func:`svg` gives of the same subject, and ``TokaidoBoard.draw(element, scene)``
    puts it in a page. A page that has the scene draws the board itself, so that the
    server sends data, not pictures, and a plugin's additions need no JavaScript."""
    from importlib.resources import files

    return files("tokaido_rules").joinpath("pages", "board.js").read_text(encoding="utf-8")


class _Picture:
    """One SVG picture being drawn from a scene, part by part: each part takes the top
    of the space it may use and returns its bottom."""

    def __init__(self, sc: Scene, colours: Sequence[str],
                 standings: Sequence[Standing] | None = None) -> None:
        self.sc = sc
        self.notes = notes(sc)
        self.out = _Svg()
        self.colours = _seat_colours(colours)
        self.standings = list(standings or ())
        self.ranks = {r.seat: r for r in self.standings}

    @functools.cached_property
    def at(self) -> dict[int, list[tuple[int, int]]]:
        """Who is where (drawn pictures only: a scene's JSON does not need it)."""
        return _occupants(self.sc)

    @functools.cached_property
    def ringed(self) -> set[int]:
        """The pieces whose seat is to play."""
        sc = self.sc
        return {i for i, p in enumerate(sc.pieces)
                if p.seat is not None and p.seat == sc.current_player}

    def standing(self, piece: int) -> Standing | None:
        seat = self.sc.pieces[piece].seat
        return None if seat is None else self.ranks.get(seat)

    def marks(self, piece: int) -> str:
        """The data attributes of a traveller's piece and card."""
        seat = self.sc.pieces[piece].seat
        said = f' data-piece="{piece}" data-seat="{"" if seat is None else seat}"'
        found = self.standing(piece)
        if found is not None:
            said += (f' data-rank="{found.rank}" '
                     f'data-winner="{"true" if found.winner else "false"}"')
        return said

    def colour(self, piece: int) -> str:
        seat = self.sc.pieces[piece].seat
        return NEUTRAL_COLOUR if seat is None else self.colours[seat % len(self.colours)]

    def piece(self, i: int, x: float, y: float, r: float = 14) -> None:
        """A traveller: a disc in its seat's colour with the seat's number (``N`` the
        neutral traveller), ringed if its seat is to play, its figures as a tooltip."""
        out, p = self.out, self.sc.pieces[i]
        colour = self.colour(i)
        tip = f"{self.sc.who(i)}: {_plural(p.coins, 'coin')}, {_plural(p.total, 'point')}"
        standing = self.standing(i)
        if standing is not None:
            tip += f", {_ordinal(standing.rank)}" + (", winner" if standing.winner else "")
        out.add(f'<g class="piece"{self.marks(i)}><title>{escape(tip)}</title>')
        if i in self.ringed:
            out.circle(x, y, r + 4, "none", stroke=_INK, width=2,
                       extra=' stroke-dasharray="3 2"')
        out.circle(x + 1, y + 1.5, r, "#000000", extra=' opacity="0.22"')
        out.circle(x, y, r, colour, stroke="#ffffff", width=2)
        out.text(x, y + r * 0.34, _mark(self.sc, i), size=r * 0.95, fill=_ink_on(colour),
                 anchor="middle", weight="bold")
        if standing is not None and standing.winner:
            out.add(_star(x + r * 0.8, y - r * 0.8, 7))
        out.add("</g>")

    def board(self, top: float) -> float:
        """The road: rows of spaces between inn tiles that stand at the turns, a row
        running left to right, the next right to left."""
        rows = _svg_rows(self.sc.board)
        centre: dict[int, tuple[float, float]] = {}
        left_inn, right_inn = float(_MARGIN), float(_W - _MARGIN - _INN_W)
        road_a, road_b = left_inn + _INN_W + 18, right_inn - 18
        content_h = _TILE + _SLOT_DROP + 22
        inns: dict[int, tuple[float, float, float]] = {0: (left_inn, top, content_h)}
        road: list[tuple[float, float]] = [(left_inn + _INN_W / 2, top + _TILE / 2)]
        for r, (spaces, turn) in enumerate(rows):
            y = top + r * _ROW_H
            forward = r % 2 == 0
            pitch = (road_b - road_a) / max(len(spaces), 1)
            for k, i in enumerate(spaces):
                cx = road_a + pitch * (k + 0.5) if forward else road_b - pitch * (k + 0.5)
                centre[i] = (cx, y)
                road.append((cx, y + _TILE / 2))
            side_x = right_inn if forward else left_inn
            road.append((side_x + _INN_W / 2, y + _TILE / 2))
            if r + 1 < len(rows):
                road.append((side_x + _INN_W / 2, y + _ROW_H + _TILE / 2))
            if turn is not None:
                inns[turn] = (side_x, y, content_h + (0 if r + 1 == len(rows) else _ROW_H))
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in road)
        self.out.add(f'<polyline points="{points}" fill="none" stroke="#d9cfbd" '
                     'stroke-width="16" stroke-linejoin="round" stroke-linecap="round"/>')
        self.out.add(f'<polyline points="{points}" fill="none" stroke="#fffaf0" '
                     'stroke-width="2" stroke-dasharray="7 7"/>')
        for i, box in sorted(inns.items()):
            self.inn(i, *box)
        for i, (cx, y) in sorted(centre.items()):
            self.space(i, cx, y)
        return top + (len(rows) - 1) * _ROW_H + content_h

    def inn(self, i: int, x: float, y: float, h: float) -> None:
        """An inn: a tall tile under a dark band, its travellers in arrival order."""
        out = self.out
        look = self.sc.registry.space_kind(self.sc.board[i].kind)
        fill = _colour(look.colour, "#dddddd")
        band = _darker(fill, 0.5)
        out.add(f'<g data-position="{i}">')
        out.rect(x, y, _INN_W, h, fill, rx=12, stroke=band, width=2)
        out.add(f'<path d="M{_n(x)},{_n(y + 26)} v-14 a12,12 0 0 1 12,-12 '
                f'h{_n(_INN_W - 24)} a12,12 0 0 1 12,12 v14 z" fill="{band}"/>')
        out.text(x + 10, y + 18, look.label, size=13, fill=_ink_on(band), weight="bold",
                 fit=_INN_W - 36)
        out.text(x + _INN_W - 8, y + 18, str(i), size=10, fill=_ink_on(band), anchor="end")
        here = self.at.get(i, [])
        # two travellers a line, three where the inn is too short for that
        across = 2 if 42 + (len(here) - 1) // 2 * 28 + 12 <= h - 6 else 3
        step = (_INN_W - 20) / across
        for n, (_, piece) in enumerate(here):
            self.piece(piece, x + 10 + step * (n % across + 0.5), y + 42 + (n // across) * 28,
                       r=12 if across == 2 else 11)
        out.add("</g>")

    def space(self, i: int, cx: float, y: float) -> None:
        """A road space: a tile coloured by kind, with its number, its kind, two dots if
        it is a double space, and below it the off-road slots open at this player
        count; its travellers in their slots."""
        out, space, slots = self.out, self.sc.board[i], self.sc.slots[i]
        look = self.sc.registry.space_kind(space.kind)
        fill = _colour(look.colour, "#dddddd")
        edge = _darker(fill)
        x = cx - _TILE / 2

        def slot_x(slot: int) -> float:
            return cx + (slot - slots / 2) * 34 if slots > 2 else cx

        out.add(f'<g data-position="{i}">')
        for slot in range(1, slots):
            sy = y + _TILE + _SLOT_DROP
            out.add(f'<line x1="{_n(cx)}" y1="{_n(y + _TILE)}" x2="{_n(slot_x(slot))}" '
                    f'y2="{_n(sy - 15)}" stroke="{edge}" stroke-width="1.5" '
                    'stroke-dasharray="2 2"/>')
            out.circle(slot_x(slot), sy, 15, "#ffffff", stroke=edge, width=1.5,
                       extra=' stroke-dasharray="3 2" fill-opacity="0.7"')
        out.rect(x, y, _TILE, _TILE, fill, rx=9, stroke=edge, width=1.5)
        out.text(x + 5, y + 12, str(i), size=10, fill=_darker(fill, 0.6))
        if space.double:
            for d in (0, 6):
                out.circle(x + _TILE - 13 + d, y + 8, 2.2, edge)
        out.text(cx, y + _TILE - 6, look.label, size=9.5, fill=_darker(fill, 0.72),
                 anchor="middle", fit=_TILE - 6)
        for slot, piece in self.at.get(i, []):
            if slot == 0:
                self.piece(piece, cx, y + _TILE / 2 - 4)
            else:
                self.piece(piece, slot_x(slot), y + _TILE + _SLOT_DROP, r=13)
        out.add("</g>")

    def card_body(self, i: int, inner: float) -> list[_Row]:
        """The rows of a traveller's card under its figures: heads, lines of text, lines
        of card names (each with its facts) and rows of small cards."""
        sc, p = self.sc, self.sc.pieces[i]
        body: list[_Row] = []

        def section(head: str, items: Sequence[str], sep: str = " · ") -> None:
            body.append(_Row("head", head))
            body.extend(_Row("line", line) for line in _wrap_px(items, inner, 12, sep))

        if p.seat is not None:
            cards = sc.collection(i)
            section("Collection", [f"{label} {n}" for label, n in _kind_counts(sc, cards)]
                    or ["nothing yet"])
            families = _families(sc, cards)
            if families:
                section("Souvenir families", [f"{name} {n}" for name, n in families])
            section("Points", [f"{c} {v}" for c, v in _points(sc, i)] or ["none yet"])
            if p.seat == sc.seat and cards:
                body.append(_Row("head", "Your cards"))
                body.extend(_Row("cards", cards=line)
                            for line in self.name_lines(cards, inner, 12))
        for note in self.notes:
            if note.piece == i:
                if note.cards:
                    body.append(_Row("head", note.label))
                    body.extend(_Row("chips", cards=row)
                                for row in self.chip_rows(note.cards, inner))
                else:
                    section(note.label, note.text.split(", "), ", ")
        return body

    def cards(self, top: float) -> float:
        """One card per traveller, side by side, as high as the fullest."""
        out, sc = self.out, self.sc
        count = len(sc.pieces)
        gap = 14
        card_w = (_W - 2 * _MARGIN - gap * (count - 1)) / max(count, 1)
        inner = card_w - 24
        bodies = [self.card_body(i, inner) for i in range(count)]
        card_h = 104 + max((sum(_ROW_HEIGHT[row.kind] for row in body) for body in bodies),
                           default=0)
        for i, p in enumerate(sc.pieces):
            colour = self.colour(i)
            x = _MARGIN + i * (card_w + gap)
            standing = self.standing(i)
            won = standing is not None and standing.winner
            out.add(f'<g class="traveller"{self.marks(i)}>')
            out.rect(x, top, card_w, card_h, "#ffffff", rx=10,
                     stroke=_GOLD if won else "#d8d2c4", width=3 if won else 1.5)
            out.add(f'<path d="M{_n(x)},{_n(top + 30)} v-20 a10,10 0 0 1 10,-10 '
                    f'h{_n(card_w - 20)} a10,10 0 0 1 10,10 v20 z" fill="{colour}"/>')
            ink = _ink_on(colour)
            name = ("Neutral traveller" if p.seat is None
                    else f"Seat {p.seat} · {sc.traveller_name(i)}")
            out.text(x + 12, top + 20, name, size=14, fill=ink, weight="bold",
                     fit=card_w - 64 - (50 if won else 0))
            tag = " · ".join(t for t, on in (("you", p.seat is not None and p.seat == sc.seat),
                                              ("to play", i in self.ringed),
                                              ("winner", won)) if on)
            if tag:
                out.text(x + card_w - (26 if won else 10), top + 20, tag, size=11, fill=ink,
                         anchor="end", weight="bold")
            if won:
                out.add(_star(x + card_w - 14, top + 15, 8))
            place = sc.registry.space_kind(sc.board[p.position].kind).label
            stats = ([(str(p.total), "points"), (str(p.coins), "coins")]
                     if p.seat is not None else [])
            if standing is not None:
                stats.append((_ordinal(standing.rank), "winner" if won else "rank"))
            else:
                stats.append((str(p.position), place))
            for k, (big, small) in enumerate(stats):
                sx = x + 12 + k * inner / 3
                out.text(sx, top + 62, big, size=24, weight="bold")
                out.text(sx, top + 78, small, size=10.5, fill=_MUTED, fit=inner / 3 - 6)
            y = top + 96
            for row in bodies[i]:
                if row.kind == "head":
                    out.text(x + 12, y + 16, row.text, size=10.5, fill=_MUTED, weight="bold",
                             fit=inner)
                elif row.kind == "cards":
                    self.names(x + 12, y + 10, row.cards, 12)
                elif row.kind == "chips":
                    self.chips(x + 12, y + 3, row.cards, inner)
                else:
                    out.text(x + 12, y + 10, row.text, size=12, fit=inner)
                y += _ROW_HEIGHT[row.kind]
            out.add("</g>")
        return top + card_h

    # --- cards with their facts ---------------------------------------------------------

    def facts(self, card: str) -> CardFacts:
        return card_facts(card, self.sc.ruleset)

    def family_colour(self, family: str | None) -> str:
        return _family_colour(self.sc.ruleset, family)

    def name_lines(self, cards: Sequence[str], pixels: float,
                   size: float) -> list[tuple[str, ...]]:
        """Card names in lines at most ``pixels`` wide (estimated), ", " between."""
        lines: list[list[str]] = [[]]
        used = 0.0
        for card in cards:
            wide = _text_width(self.facts(card).name + ", ", size)
            if lines[-1] and used + wide > pixels:
                lines.append([])
                used = 0.0
            lines[-1].append(card)
            used += wide
        return [tuple(line) for line in lines if line]

    def names(self, x: float, y: float, cards: Sequence[str], size: float) -> None:
        """One line of card names, each a ``<tspan>`` with its data attributes, its
        facts as a tooltip, a souvenir's name in its family's colour."""
        parts = []
        markup = _words(self.sc.ruleset).markup
        for n, card in enumerate(cards):
            found = markup.get(card)
            if found is None:
                f = self.facts(card)
                fill = (f' fill="{self.family_colour(f.family)}" font-weight="bold"'
                        if f.family is not None else "")
                found = markup[card] = (f"<tspan{_attributes(f)}{fill}><title>"
                                        f"{escape(f.line())}</title>{escape(f.name)}</tspan>")
            parts.append(found + (", " if n + 1 < len(cards) else ""))
        self.out.add(f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" fill="{_INK}">'
                     + "".join(parts) + "</text>")

    def chip_width(self, card: str) -> float:
        f = self.facts(card)
        return max(_text_width(f.name, 11.5), _text_width(f.tag(), 9.5), 44) + 18

    def chip_rows(self, cards: Sequence[str], pixels: float) -> list[tuple[str, ...]]:
        """Small cards in rows at most ``pixels`` wide."""
        rows: list[list[str]] = [[]]
        used = 0.0
        for card in cards:
            wide = min(self.chip_width(card), pixels)
            if rows[-1] and used + wide > pixels:
                rows.append([])
                used = 0.0
            rows[-1].append(card)
            used += wide + _CHIP_GAP
        return [tuple(row) for row in rows if row]

    def chips(self, x: float, y: float, cards: Sequence[str], pixels: float) -> None:
        """A row of small cards: name, then price and family (or points, or effect),
        a souvenir edged in its family's colour; data attributes and a tooltip."""
        out = self.out
        for card in cards:
            f = self.facts(card)
            w = min(self.chip_width(card), pixels)
            edge = self.family_colour(f.family)
            out.add(f'<g class="card"{_attributes(f)}><title>{escape(f.line())}</title>')
            out.rect(x, y, w, _CHIP_H, "#fffdf7", rx=5, stroke=edge, width=1.2)
            out.rect(x, y, 5, _CHIP_H, edge, rx=2)
            out.text(x + 10, y + 14, f.name, size=11.5, weight="bold", fit=w - 14)
            out.text(x + 10, y + 28, f.tag(), size=9.5, fill=_MUTED, fit=w - 14)
            out.add("</g>")
            x += w + _CHIP_GAP

    def table(self, top: float) -> float:
        """The plugins' notes on the table, in a box across the picture (if any); the
        cards a note names as small cards with their facts."""
        table = [n for n in self.notes if n.piece is None]
        if not table:
            return top - 18
        room = _W - 2 * _MARGIN - 200
        rows: list[tuple[str, _Row]] = []
        for note in table:
            if note.cards:
                found = [_Row("chips", cards=row) for row in self.chip_rows(note.cards, room)]
            else:
                found = [_Row("line", w) for w in _wrap_px(note.text.split(", "), room, 12.5,
                                                            ", ")]
            rows += [(note.label if k == 0 else "", row) for k, row in enumerate(found)]
        box_h = 20 + sum(19 if row.kind == "line" else _CHIP_H + 8 for _, row in rows)
        self.out.rect(_MARGIN, top, _W - 2 * _MARGIN, box_h, "#fbf7ee", rx=10,
                      stroke="#d8d2c4", width=1.5)
        y = top + 25
        for label, row in rows:
            chips = row.kind == "chips"
            if label:
                self.out.text(_MARGIN + 14, y + (9 if chips else 0), label, size=12.5,
                              weight="bold", fit=170)
            if chips:
                self.chips(_MARGIN + 190, y - 13, row.cards, room)
                y += _CHIP_H + 8
            else:
                self.out.text(_MARGIN + 190, y, row.text, size=12.5)
                y += 19
        return top + box_h

    def legend(self, top: float) -> float:
        """The legend (:func:`legend_items`) in a box across the picture."""
        items = legend_items(self.sc, colours=self.colours)
        room = _W - 2 * _MARGIN - 28
        rows: list[list[tuple[LegendItem, float]]] = [[]]
        used = 0.0
        for item in items:
            wide = 30 + _text_width(item.label, 12) + 18
            if rows[-1] and used + wide > room:
                rows.append([])
                used = 0.0
            rows[-1].append((item, wide))
            used += wide
        box_h = 34 + 30 * len(rows)
        out = self.out
        out.add('<g class="legend">')
        out.rect(_MARGIN, top, _W - 2 * _MARGIN, box_h, "#fbf7ee", rx=10, stroke="#d8d2c4",
                 width=1.5)
        out.text(_MARGIN + 14, top + 20, "Legend", size=12.5, weight="bold")
        for r, row in enumerate(rows):
            x, y = _MARGIN + 14.0, top + 30 + 30 * r
            for item, wide in row:
                out.add(f'<g data-key={quoteattr(item.key)} '
                        f'transform="translate({_n(x)},{_n(y)})">{item.swatch}</g>')
                out.text(x + 30, y + 16, item.label, size=12)
                x += wide
        out.add("</g>")
        return top + box_h

    def head(self, height: float) -> _Svg:
        """The background and the title: players, whose picture, the turn and who is to
        play, the plugins; once the game is over, who won and how."""
        sc = self.sc
        title = f"Tokaido · {sc.players} players"
        seen = " · as a spectator sees it" if sc.spectator else (
            "" if sc.seat is None else f" · as seat {sc.seat} sees it")
        head = _Svg()
        head.rect(0, 0, _W, height, "#f6f1e6")
        head.add(f'<text x="{_MARGIN}" y="40" font-size="24" font-weight="bold" '
                 f'fill="{_INK}">{escape(title)}<tspan font-size="15" font-weight="normal" '
                 f'fill="{_MUTED}">{escape(seen)}</tspan></text>')
        head.text(_W - _MARGIN, 40, f"Turn {sc.turn} · {_status(sc)}", size=15,
                  anchor="end", fit=_W / 2 - _MARGIN)
        plugins_fit: float = _W - 2 * _MARGIN
        if self.standings:
            said = _outcome(self.standings, sc.ruleset)
            head.add('<g class="outcome">')
            head.text(_W - _MARGIN, 64, said, size=14, anchor="end", weight="bold",
                      fill=_darker(_GOLD, 0.35), fit=_W * 0.6 - _MARGIN)
            head.add("</g>")
            plugins_fit = _W * 0.4 - _MARGIN - 12
        head.text(_MARGIN, 64, "Plugins: " + ", ".join(sc.ruleset.ids), size=13,
                  fill=_MUTED, fit=plugins_fit)
        return head


class _Row(NamedTuple):
    """A row of a traveller's card (or of the table's box): ``kind`` ``"head"``,
    ``"line"`` (``text``), ``"cards"`` (a line of card names) or ``"chips"`` (a row of
    small cards)."""

    kind: str
    text: str = ""
    cards: tuple[str, ...] = ()


_CHIP_H = 34
_CHIP_GAP = 6
_ROW_HEIGHT = {"head": 22, "line": 16, "cards": 16, "chips": _CHIP_H + 6}
_GOLD = "#e0a800"
_FAMILY_COLOURS = ("#b5651d", "#2f7d32", "#1f5f9f", "#8e3b8e", "#a33131", "#5a6b00")
"""The colour of each souvenir family in pictures, in the order the families' first
cards were registered."""


def _attributes(f: CardFacts) -> str:
    return "".join(f" {k}={quoteattr(v)}" for k, v in f.attributes().items())


def _star(x: float, y: float, r: float) -> str:
    """A gold five-pointed star centred on (x, y): the winner's mark."""
    points = []
    for k in range(10):
        angle = math.pi / 2 + k * math.pi / 5
        d = r if k % 2 == 0 else r * 0.45
        points.append(f"{_n(x + d * math.cos(angle))},{_n(y - d * math.sin(angle))}")
    return (f'<polygon class="winner-mark" points="{" ".join(points)}" fill="{_GOLD}" '
            f'stroke="{_darker(_GOLD, 0.45)}" stroke-width="1"/>')


# --- the legend ---------------------------------------------------------------------------


@frozen
class LegendItem:
    """One entry of a picture's legend (:func:`legend_items`)."""

    key: str
    """What it explains: ``"space:<kind>"``, ``"double"``, ``"slot"``,
    ``"seat:<n>"``, ``"neutral"``, ``"to-play"``, ``"winner"``,
    ``"family:<family>"``."""
    label: str
    """What it means, in words."""
    swatch: str
    """How the picture draws it: SVG elements in a 24 by 24 box at the origin."""


def legend_items(subject: Game | View | Scene | Ruleset, *,
                 colours: Sequence[str] = SEAT_COLOURS) -> list[LegendItem]:
    """What the marks of a picture (:func:`svg`) mean, in the order a legend lists them:
    the kinds of space on the road (their colours), a double space's two dots, an open
    second slot, each seat's colour (``colours``; of a ruleset, five seats), the
    neutral traveller (where there is one), the ring of the seat to play, the winner's
    star, the colours of the souvenir families."""
    ruleset, seats, neutral = _legend_inputs(subject)
    registry = ruleset.registry
    items: list[LegendItem] = []
    kinds: list[str] = []
    for space in registry.board:
        if space.kind not in kinds:
            kinds.append(space.kind)
    for kind in kinds:
        look = registry.space_kind(kind)
        fill = _colour(look.colour, "#dddddd")
        items.append(LegendItem(
            f"space:{kind}", look.label,
            f'<rect x="1" y="1" width="22" height="22" rx="5" fill="{fill}" '
            f'stroke="{_darker(fill)}" stroke-width="1.2"/>'))
    grey = "#dddddd"
    items.append(LegendItem(
        "double", "double space (two dots)",
        f'<rect x="1" y="1" width="22" height="22" rx="5" fill="{grey}" '
        f'stroke="{_darker(grey)}" stroke-width="1.2"/>'
        f'<circle cx="13" cy="7" r="2.2" fill="{_darker(grey)}"/>'
        f'<circle cx="19" cy="7" r="2.2" fill="{_darker(grey)}"/>'))
    items.append(LegendItem(
        "slot", "second slot, open at this player count",
        f'<circle cx="12" cy="12" r="10" fill="#ffffff" stroke="{_darker(grey)}" '
        'stroke-width="1.5" stroke-dasharray="3 2"/>'))
    palette = [_colour(c, SEAT_COLOURS[n % len(SEAT_COLOURS)])
               for n, c in enumerate(colours)] or list(SEAT_COLOURS)
    for seat in seats:
        colour = palette[seat % len(palette)]
        items.append(LegendItem(f"seat:{seat}", f"seat {seat}", _disc(colour, str(seat))))
    if neutral:
        items.append(LegendItem("neutral", "neutral traveller (moved by the leader)",
                                _disc(NEUTRAL_COLOUR, "N")))
    items.append(LegendItem(
        "to-play", "the traveller to play",
        f'<circle cx="12" cy="12" r="11" fill="none" stroke="{_INK}" stroke-width="2" '
        'stroke-dasharray="3 2"/>'))
    items.append(LegendItem("winner", "winner", _star(12, 12.5, 10)))
    said = glossary(ruleset)
    for family, n in _family_order(ruleset).items():
        colour = _FAMILY_COLOURS[n % len(_FAMILY_COLOURS)]
        items.append(LegendItem(
            f"family:{family}", f"{_family_name(said, family)} family (souvenirs)",
            f'<rect x="1" y="3" width="22" height="18" rx="4" fill="#fffdf7" '
            f'stroke="{colour}" stroke-width="1.2"/>'
            f'<rect x="1" y="3" width="5" height="18" rx="2" fill="{colour}"/>'))
    return items


def _disc(colour: str, mark: str) -> str:
    return (f'<circle cx="12" cy="12" r="10" fill="{colour}" stroke="#ffffff" '
            f'stroke-width="1.5"/><text x="12" y="16" font-size="11" fill="{_ink_on(colour)}" '
            f'text-anchor="middle" font-weight="bold">{escape(mark)}</text>')


def legend_svg(subject: Game | View | Scene | Ruleset, *,
               colours: Sequence[str] = SEAT_COLOURS, columns: int = 1) -> str:
    """The legend (:func:`legend_items`) as a picture of its own: a standalone
    ``<svg>``, the items in ``columns`` columns, each ``<g data-key=...>``."""
    items = legend_items(subject, colours=colours)
    columns = max(1, columns)
    col_w = 40 + max((_text_width(i.label, 12) for i in items), default=0) + 16
    rows = -(-len(items) // columns)
    parts = []
    for n, item in enumerate(items):
        x, y = 8 + (n // rows) * col_w, 8 + (n % rows) * 30
        parts.append(f'<g data-key={quoteattr(item.key)} transform="translate({_n(x)},'
                     f'{_n(y)})">{item.swatch}<text x="32" y="16" font-size="12" '
                     f'fill="{_INK}">{escape(item.label)}</text></g>')
    w, h = 16 + col_w * columns, 16 + 30 * rows
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w)}" height="{_n(h)}" '
            f'viewBox="0 0 {_n(w)} {_n(h)}" font-family={quoteattr(_FONT)} '
            'class="tokaido-legend">' + "".join(parts) + "</svg>")


def _legend_inputs(subject: Game | View | Scene | Ruleset
                   ) -> tuple[Ruleset, tuple[int, ...], bool]:
    """All a legend reads of its subject besides the colours: the ruleset, the seats
    (sorted) and whether a neutral traveller is on the road."""
    from .ruleset import Ruleset

    if isinstance(subject, Ruleset):
        return subject, tuple(range(5)), False
    sc = scene(subject)
    return (sc.ruleset, tuple(sorted(p.seat for p in sc.pieces if p.seat is not None)),
            any(p.seat is None for p in sc.pieces))


def legend_html(subject: Game | View | Scene | Ruleset, *,
                colours: Sequence[str] = SEAT_COLOURS) -> str:
    """The legend (:func:`legend_items`) as an HTML list for a page to place: a
    ``<ul class="tokaido-legend">`` of ``<li data-key=...>``, each an inline 24-pixel
    ``<svg>`` swatch and a ``<span>`` label. No style: the page gives it one. Made once
    per ruleset, seats and colours (every page of a server opens with one)."""
    ruleset, seats, neutral = _legend_inputs(subject)
    made = _words(ruleset).legends
    key = (seats, neutral, tuple(colours))
    found = made.get(key)
    if found is None:
        items = legend_items(subject, colours=colours)
        found = ('<ul class="tokaido-legend">' + "".join(
            f'<li data-key={quoteattr(i.key)}><svg xmlns="http://www.w3.org/2000/svg" '
            f'width="24" height="24" viewBox="0 0 24 24" aria-hidden="true">{i.swatch}'
            f'</svg> <span>{escape(i.label)}</span></li>' for i in items) + "</ul>")
        if len(made) >= 64:
            made.clear()
        made[key] = found
    return found

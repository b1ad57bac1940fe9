"""The registry: where plugins add content (board, cards, decks, travellers, steps,
actions, events, options and score categories).

One registry is built per ruleset. During :func:`~tokaido_rules.hookspecs.tokaido_register`
it is bound to the registering plugin, and every name a plugin adds (except cards,
travellers and score categories, which only need to be unique) must start with the
plugin id and a dot, so two plugins can never clash.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from .errors import PluginDefinitionError
from .events import Action, Event, field_names
from .frozen import FrozenMap
from .model import Card, GameState, Space, Step, Traveller
from .visibility import Visibility

if TYPE_CHECKING:
    from .engine import Context


StepRunner = Callable[["Context", Step], None]
LegalFn = Callable[[GameState, Step], Sequence[Action]]
Resolver = Callable[["Context", Step, Any], None]
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
ExplainFn = Callable[[GameState, Step, Action], "str | None"]
AutomaticFn = Callable[[GameState, Step], bool]


@frozen
class OptionSpec:
    """A rule option: its full name, default, accepted values and a one-line doc."""

    name: str
    default: object
    choices: tuple[object, ...]
    doc: str


@frozen
class StepType:
    """How a step kind behaves: ``run`` for a step the engine performs, ``legal`` for a
    decision (the legal actions; the actions' own resolvers carry them out).

    ``ordered``: ``legal`` returns its actions in canonical order already, so the engine
    need not sort them (unless plugins add actions to the decision). ``shapes_game``: a
    decision whose options shape the whole game (the choice of a traveller), which
    searching bots play out rather than judge by its immediate gain. ``automatic``: a
    decision with a single possible answer is taken by the engine, recorded with a
    :class:`~tokaido_rules.events.Automatic` marker (``True``, or a test of the state
    and step that says where).

    ``doc``, ``answers`` and ``plugin`` describe the step for the catalogue of step
    kinds in the reference: what it is (one sentence), the action types that answer the
    decision (none for a step the engine runs), and the plugin that registered it.
    ``words``: what is being decided, as a person is told it ("choose where to stop"):
    a verb phrase that reads after "Your decision:" and after "Waiting for seat 2 to";
    :attr:`prompt` falls back on ``doc`` for a step registered without."""

    kind: str
    run: StepRunner | None
    legal: LegalFn | None
    explain: ExplainFn | None = None
    ordered: bool = False
    shapes_game: bool = False
    automatic: bool | AutomaticFn = False
    doc: str = ""
    answers: tuple[type[Action], ...] = ()
    plugin: str = ""
    words: str = ""

    @property
    def is_decision(self) -> bool:
        return self.legal is not None

    @property
    def prompt(self) -> str:
        """What is being decided, in words: ``words``, else made from ``doc`` (its first
        sentence) or the kind, so that a step of any plugin can be told."""
        if self.words:
            return self.words
        first = self.doc.split(". ")[0].strip().rstrip(".")
        return f"decide ({first})" if first else f"decide ({self.kind})"


@frozen
class DeckSpec:
    """A zone filled at setup: its cards and whether it is shuffled."""

    zone: str
    cards: tuple[str, ...]
    shuffled: bool


_NO_BACKS: FrozenMap[str, int] = FrozenMap()
"""The card backs of an empty zone."""


@frozen
class SpaceKind:
    """How pictures show a kind of road space (:attr:`Space.kind <tokaido_rules.Space>`):
    its display name, a name of up to three characters for the terminal's board, and a
    colour (``#rrggbb``) for SVG pictures."""

    kind: str
    label: str
    short: str
    colour: str


@frozen
class CounterSpec:
    """A per-traveller tally a plugin keeps (:meth:`Context.count
    <tokaido_rules.Context.count>`, :meth:`Piece.counter <tokaido_rules.Piece.counter>`),
    declared with :meth:`Registry.add_counter`. Counters are public, like the rest of a
    piece."""

    name: str
    plugin: str
    """The plugin that declared it."""
    observed: bool
    """Whether a learning agent observes it for every traveller (the RL environments'
    observation, :class:`~tokaido_rules.rl.ObservationEncoder`)."""
    doc: str


_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


class Registry:
    """Content of one ruleset. Filled by plugins, then read by the engine."""

    def __init__(self) -> None:
        self.plugin = ""
        self.board: tuple[Space, ...] = ()
        self.cards: dict[str, Card] = {}
        self.decks: dict[str, DeckSpec] = {}
        self.zones: dict[str, Visibility] = {}
        self.travellers: dict[str, Traveller] = {}
        self.steps: dict[str, StepType] = {}
        self.resolvers: dict[type[Action], Resolver] = {}
        self.events: dict[str, type[Event]] = {}
        self.event_plugins: dict[str, str] = {}
        """The plugin that registered each event type, by wire name (it is named when
        the event's mutator or, for an action, its resolver fails)."""
        self.options: dict[str, OptionSpec] = {}
        self.categories: dict[str, str] = {}
        self.counters: dict[str, CounterSpec] = {}
        """The declared counters, in registration order (plugin order)."""
        self.upcasters: dict[tuple[str, int], Upcaster] = {}
        self.data_keys: dict[str, Visibility] = {}
        self.space_kinds: dict[str, SpaceKind] = {}
        self.card_kinds: dict[str, str] = {}

    def home_deck(self, card: str) -> str:
        """The deck a card belongs to (its back shows which): the first deck declared
        with it. Cards in no deck have the home ``""``."""
        return self._homes().get(card, "")

    def card_backs(self, cards: tuple[str, ...]) -> FrozenMap[str, int]:
        """How many of ``cards`` come from each deck (what their backs show), the decks
        in sorted order: nothing in the answer depends on the order of the cards.

        Counted afresh at every call, from tables fixed by the registered content: a
        registry is reachable from every view, so it remembers nothing of any game (a
        cache keyed by zones' cards would hold the order of the hidden decks).
        """
        return self.zone_backs({"": cards})[""]

    def deck_census(self) -> tuple[tuple[str, str, int], ...]:
        """Every card found in the decks, once, sorted: ``(card, home deck, copies in
        all decks)``. Built once the plugins have registered (when first asked); bots
        that sample hidden cards start from it at every decision."""
        census: tuple[tuple[str, str, int], ...] | None = self.__dict__.get("_deck_census")
        if census is None:
            copies: dict[str, int] = {}
            for spec in self.decks.values():
                for c in spec.cards:
                    copies[c] = copies.get(c, 0) + 1
            homes = self._homes()
            census = tuple((c, homes[c], copies[c]) for c in sorted(copies))
            self.__dict__["_deck_census"] = census
        return census

    def zone_backs(self, zones: Mapping[str, tuple[str, ...]]) -> dict[str, FrozenMap[str, int]]:
        """:meth:`card_backs` of every zone, in one pass (a view needs them, at every
        decision). A zone whose cards all share one back, as nearly every zone's do, costs
        one set check: its answer is made in advance (:meth:`_backs_tables`)."""
        same_back, home_of = self._backs_tables()
        backs: dict[str, FrozenMap[str, int]] = {}
        for name, cards in zones.items():
            if not cards:
                backs[name] = _NO_BACKS
                continue
            found = same_back.get(cards[0])
            if found is not None:
                members, made = found
                n = len(cards)
                if n < len(made) and members.issuperset(cards):
                    backs[name] = made[n]
                    continue
            counts: dict[str, int] = {}
            for card in cards:
                home = home_of(card, "")
                counts[home] = counts.get(home, 0) + 1
            backs[name] = FrozenMap(sorted(counts.items()))
        return backs

    def _backs_tables(self) -> tuple[
            dict[str, tuple[frozenset[str], tuple[FrozenMap[str, int], ...]]],
            Callable[[str, str], str]]:
        """What :meth:`zone_backs` reads, made once the plugins have registered (when
        first asked) from the registered cards and decks alone, so it holds no game fact:
        for each registered card, the cards with the same home deck and the answers for
        a zone of 0, 1, ... such cards (up to as many as all decks hold; for the home
        ``""``, as many as there are such cards); and the home of a card."""
        tables: tuple[dict[str, tuple[frozenset[str], tuple[FrozenMap[str, int], ...]]],
                      Callable[[str, str], str]] | None = self.__dict__.get("_backs_made")
        if tables is None:
            homes = dict.fromkeys(self.cards, "")
            homes.update(self._homes())
            cards_of: dict[str, set[str]] = {}
            for card, home in homes.items():
                cards_of.setdefault(home, set()).add(card)
            most = {home: 0 if home else len(cards) for home, cards in cards_of.items()}
            for spec in self.decks.values():
                for card in spec.cards:
                    most[homes[card]] += 1
            by_home = {home: (frozenset(cards_of[home]),
                              (_NO_BACKS, *(FrozenMap({home: n}) for n in range(1, top + 1))))
                       for home, top in most.items()}
            tables = ({card: by_home[home] for card, home in homes.items()}, homes.get)
            self.__dict__["_backs_made"] = tables
        return tables

    def _homes(self) -> dict[str, str]:
        """Card -> home deck, built once the plugins have registered (when first asked)."""
        homes: dict[str, str] | None = self.__dict__.get("_home_decks")
        if homes is None:
            homes = {}
            for spec in self.decks.values():
                for c in spec.cards:
                    homes.setdefault(c, spec.zone)
            self.__dict__["_home_decks"] = homes
        return homes

    # --- helpers -----------------------------------------------------------------
    def _own(self, name: str, what: str) -> str:
        if not name.startswith(self.plugin + "."):
            raise PluginDefinitionError(
                f"plugin {self.plugin!r} registers {what} {name!r}: "
                f"its name must start with {self.plugin + '.'!r}"
            )
        return name

    @staticmethod
    def _unique(table: dict[str, Any], name: str, what: str) -> None:
        if name in table:
            raise PluginDefinitionError(f"{what} {name!r} is registered twice")

    # --- board -------------------------------------------------------------------
    def set_board(self, spaces: Iterable[Space]) -> None:
        """Set the road: positions in travel order, the first and last being inns."""
        board = tuple(spaces)
        if len(board) < 2 or not board[0].inn or not board[-1].inn:
            raise PluginDefinitionError("a board must start and end with an inn")
        self.board = board

    # --- content -----------------------------------------------------------------
    def add_content(self, *, cards: Iterable[Card] = (), travellers: Iterable[Traveller] = (),
                    categories: Mapping[str, str] | None = None,
                    card_kinds: Mapping[str, str] | None = None) -> None:
        """Register a plugin's printed content at once: its cards
        (:meth:`add_card`), travellers (:meth:`add_traveller`), score categories
        (:meth:`add_category`: name -> label) and card kinds (:meth:`add_card_kind`),
        each in the order given; what every content plugin writes out otherwise."""
        for card in cards:
            self.add_card(card)
        for traveller in travellers:
            self.add_traveller(traveller)
        for name, label in (categories or {}).items():
            self.add_category(name, label)
        for kind, label in (card_kinds or {}).items():
            self.add_card_kind(kind, label)

    def add_card(self, card: Card) -> None:
        self._unique(self.cards, card.id, "card")
        self.cards[card.id] = card

    def add_deck(self, zone: str, cards: Iterable[str], *, shuffled: bool = True,
                 visibility: Visibility = "hidden") -> None:
        """Declare a zone filled at setup (shuffled unless ``shuffled=False``)."""
        self._own(zone, "deck")
        self._unique(self.decks, zone, "deck")
        cards = tuple(cards)
        for c in cards:
            if c not in self.cards:
                raise PluginDefinitionError(f"deck {zone!r} holds unregistered card {c!r}")
        self.decks[zone] = DeckSpec(zone, cards, shuffled)
        self.zones[zone] = visibility

    def add_to_deck(self, zone: str, cards: Iterable[str]) -> None:
        """Add cards to a deck another plugin declared (e.g. promo cards shuffled into a
        deck). The deck keeps its owner's name and visibility."""
        spec = self.decks.get(zone)
        if spec is None:
            raise PluginDefinitionError(f"plugin {self.plugin!r} adds cards to unknown deck "
                                        f"{zone!r}")
        cards = tuple(cards)
        for c in cards:
            if c not in self.cards:
                raise PluginDefinitionError(f"deck {zone!r} gets unregistered card {c!r}")
        self.decks[zone] = DeckSpec(zone, spec.cards + cards, spec.shuffled)

    def add_zone(self, zone: str, visibility: Visibility) -> None:
        """Declare a zone that starts empty (an inn hand, revealed cards, ...).

        A zone declared with ``"seat"`` visibility is a family: ``"<zone>.<piece>"`` names
        one per traveller, each visible to that traveller's seat only.
        """
        self._own(zone, "zone")
        self._unique(self.zones, zone, "zone")
        self.zones[zone] = visibility

    def add_traveller(self, traveller: Traveller) -> None:
        self._unique(self.travellers, traveller.name, "traveller")
        self.travellers[traveller.name] = traveller

    def add_category(self, name: str, label: str) -> None:
        """Add a score category (e.g. ``"panoramas"``) with its display name."""
        self._unique(self.categories, name, "score category")
        self.categories[name] = label

    def add_counter(self, name: str, *, observed: bool = False, doc: str = "") -> None:
        """Declare a per-traveller counter (named ``"<plugin>.<name>"``). A plugin may
        count without declaring; declaring says what the counter is, and
        ``observed=True`` makes it part of what a learning agent sees of every traveller
        (:meth:`observed_counters`): a tally that matters for play, such as temple
        donations. So the RL observation takes its counters from the plugins, and the
        core names none."""
        self._own(name, "counter")
        self._unique(self.counters, name, "counter")
        self.counters[name] = CounterSpec(name, self.plugin, observed, doc)

    def observed_counters(self) -> tuple[str, ...]:
        """The counters declared ``observed``, in registration order (plugin order, then
        each plugin's own): the order of the RL observation's counter features."""
        return tuple(c.name for c in self.counters.values() if c.observed)

    # --- display names (pictures, the CLI) ------------------------------------------
    def add_space_kind(self, kind: str, label: str, *, short: str = "",
                       colour: str = "#dddddd") -> None:
        """Name a kind of road space for pictures (:mod:`tokaido_rules.render`): its
        display name, a terminal name of up to three characters (default: the first
        three of ``label``) and a ``#rrggbb`` colour, so that the core draws the board
        without knowing what its spaces are."""
        self._unique(self.space_kinds, kind, "space kind")
        if not _COLOUR.fullmatch(colour):
            raise PluginDefinitionError(f"space kind {kind!r}: colour {colour!r} is not "
                                        "#rrggbb")
        self.space_kinds[kind] = SpaceKind(kind, label, (short or label)[:3], colour)

    def add_card_kind(self, kind: str, label: str) -> None:
        """Name a kind of card (:attr:`Card.kind <tokaido_rules.Card>`) in the plural
        (``"Souvenirs"``): pictures summarise collections by kind."""
        self._unique(self.card_kinds, kind, "card kind")
        self.card_kinds[kind] = label

    def card_name(self, card: str) -> str:
        """A card's display name (its id if no plugin registered it)."""
        found = self.cards.get(card)
        return found.name or card if found is not None else card

    def traveller_name(self, traveller: str) -> str:
        """A traveller's display name (its label, else its id)."""
        found = self.travellers.get(traveller)
        return found.label or found.name if found is not None else traveller

    def category_label(self, category: str) -> str:
        """A score category's display name."""
        return self.categories.get(category) or category

    def card_kind_label(self, kind: str) -> str:
        """A kind of card's display name, in the plural."""
        return self.card_kinds.get(kind) or kind

    def space_kind(self, kind: str) -> SpaceKind:
        """How pictures show a kind of space (a grey tile named by its id if no plugin
        named it)."""
        found = self.space_kinds.get(kind)
        return found if found is not None else SpaceKind(kind, kind, kind[:3], "#dddddd")

    # --- behaviour ---------------------------------------------------------------
    def add_step(self, kind: str, *, run: StepRunner | None = None,
                 legal: LegalFn | None = None, explain: ExplainFn | None = None,
                 ordered: bool = False, shapes_game: bool = False,
                 automatic: bool | AutomaticFn = False, doc: str = "",
                 answers: tuple[type[Action], ...] = (), words: str = "") -> None:
        """Register a step kind: ``run`` (performed by the engine) or ``legal`` (a decision).

        ``explain(state, step, action)`` may say why an action is not legal for this
        decision; it is used for the message of :class:`IllegalActionError`.
        ``ordered=True`` promises that ``legal`` returns its actions in canonical order
        (:meth:`~tokaido_rules.events.Action.sort_key`), which saves sorting them at every
        decision; :func:`~tokaido_rules.testing.run_conformance` checks the promise.
        ``shapes_game=True`` marks a decision whose options shape the whole game (such as
        the choice of a traveller): its immediate gain says little, so
        :class:`~tokaido_rules.bots.SearchBot` plays every option out.
        ``automatic``: when the decision has a single possible answer (one action that
        answers it, ignoring actions such as using an item that leave it open), the
        engine takes it without asking and records it after a
        :class:`~tokaido_rules.events.Automatic` marker. Use it only where every seat can
        see that the answer is forced; a function ``(state, step) -> bool`` limits it to
        where that holds. A plugin may still have the decision asked
        (:func:`~tokaido_rules.hookspecs.tokaido_ask_decision`).
        ``doc`` (one sentence: what the step is, and who decides where that is not the
        traveller's player) and ``answers`` (the action types that answer the decision)
        document the step kind: the reference's catalogue of step kinds shows them, so
        that bots, front ends and log readers know the vocabulary of decisions.
        ``words`` (a decision's only): what is being decided, as the page of
        ``tokaido serve`` tells a person ("buy souvenirs at the village"), a short verb
        phrase; see :attr:`StepType.prompt`.
        """
        if (run is None) == (legal is None):
            raise PluginDefinitionError(f"step {kind!r} needs exactly one of run= or legal=")
        if automatic is not False and legal is None:
            raise PluginDefinitionError(f"step {kind!r}: only a decision (legal=) can be "
                                        "taken automatically")
        if shapes_game and legal is None:
            raise PluginDefinitionError(f"step {kind!r}: only a decision (legal=) can shape "
                                        "the game")
        if words and legal is None:
            raise PluginDefinitionError(f"step {kind!r}: only a decision (legal=) has words")
        if answers and legal is None:
            raise PluginDefinitionError(f"step {kind!r}: only a decision (legal=) is "
                                        "answered by actions")
        if not all(isinstance(a, type) and issubclass(a, Action) for a in answers):
            raise PluginDefinitionError(f"step {kind!r}: answers= must be action types")
        self._own(kind, "step")
        self._unique(self.steps, kind, "step")
        self.steps[kind] = StepType(kind, run, legal, explain, ordered, shapes_game,
                                    automatic, doc=doc, answers=tuple(answers),
                                    plugin=self.plugin, words=words)

    def add_event(self, cls: type[Event]) -> None:
        """Register an event type under its wire name ``cls.TYPE``, with the upcasters it
        declares in ``cls.UPCASTERS`` (older version -> function to the next version)."""
        self._own(cls.TYPE, "event")
        self._unique(self.events, cls.TYPE, "event")
        self.events[cls.TYPE] = cls
        self.event_plugins[cls.TYPE] = self.plugin
        for version, upcast in cls.UPCASTERS.items():
            self.add_upcaster(cls.TYPE, version, upcast)

    def add_upcaster(self, event_type: str, from_version: int, upcast: Upcaster) -> None:
        """Register how to turn the data of ``event_type`` version ``from_version`` into
        version ``from_version + 1``, so that old logs keep loading."""
        self._own(event_type, "upcaster")
        key = (event_type, from_version)
        if key in self.upcasters:
            raise PluginDefinitionError(f"upcaster {event_type} v{from_version} registered twice")
        self.upcasters[key] = upcast

    def add_data(self, prefix: str, visibility: Visibility) -> None:
        """Declare who may see game data keys starting with ``prefix`` (``"seat"``: keys
        ending in ``.<seat>`` are visible to that seat). Undeclared data is hidden."""
        self._own(prefix, "data key")
        self._unique(self.data_keys, prefix, "data key")
        self.data_keys[prefix] = visibility

    def add_action(self, cls: type[Action], resolve: Resolver | None = None) -> None:
        """Register an action type and what happens after it is applied.

        ``resolve(ctx, step, action)`` emits the consequences; ``step`` is the decision
        the action answered.
        """
        if "type" in field_names(cls):  # the wire format puts the type's name there
            raise PluginDefinitionError(f"action {cls.TYPE} has a field named 'type', which "
                                        "an action's JSON holds its type's name in")
        self.add_event(cls)
        self.resolvers[cls] = resolve if resolve is not None else _no_consequence

    def add_option(self, name: str, default: object, choices: Sequence[object],
                   doc: str) -> None:
        """Declare a rule option ``"<plugin id>.<name>"`` with its accepted values."""
        self._own(name, "option")
        self._unique(self.options, name, "option")
        if default not in choices:
            raise PluginDefinitionError(f"option {name!r}: default {default!r} not a choice")
        self.options[name] = OptionSpec(name, default, tuple(choices), doc)


def _no_consequence(ctx: Context, step: Step, action: Any) -> None:
    return None

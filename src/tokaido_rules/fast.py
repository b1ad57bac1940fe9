"""A fast simulator of the shipped rulesets, exact to the reference engine.

The reference engine (:func:`~tokaido_rules.new_game`, :class:`~tokaido_rules.Game`) is the
specification: immutable states, an event per change, every rule in a plugin. It is
built to be right and to be read, not to play millions of games. :class:`FastGame` plays
the same games — the base game, with any of the Crossroads expansion, the New Encounters
promo cards, the variants and the ``bga`` preset (2 to 5 players, the 2-player neutral
traveller, every traveller and every value of those plugins' options) — with flat,
mutable internals: lists of integers, an agenda of small tuples, no events.

What "the same games" means, and what is proven (``tests/test_fast.py``,
:func:`differential`):

- the same chance outcomes: every draw comes from :mod:`tokaido_rules.chance` with the
  seed and the sequence number the reference engine would use, because the simulator
  counts the events the reference would emit (it emits none itself);
- the same decisions, asked of the same seat, in the same order: :meth:`FastGame.legal_actions`
  is the very tuple :meth:`Game.legal_actions` gives (the reference's action objects,
  in its order), and the decisions the reference takes alone (a single answer every seat
  can see: buying no souvenir with nothing affordable, the one open panorama, no meal
  where every seat sees the hand) are taken alone here too;
- the same results: :meth:`FastGame.scores` equals :meth:`Game.scores`, and
  :meth:`FastGame.to_game` replays the decisions through the reference engine, whose log
  is then the reference log byte for byte.

Where it lives, and why. The core never imports a plugin, so this module takes every
piece of *content* from the ruleset's registry when a game is made (the board, the
slots and inns the ruleset derives for the player count, each card's kind, family, price,
points, tags and effect, the decks and whether each is shuffled, the travellers and their
coins, the score categories, the option values). What it knows itself is the *rules*
— what a farm, a village or an inn does, what each traveller's power does, what
Crossroads' options and amulets do — written again, flat, from the plugins' rules. That
duplication is the price of speed and is acceptable only because it is checked:
:func:`covers` says which rulesets it serves (the plugins of ``_COVERED``, whatever
their option values), and the differential test plays thousands of games against the
reference at every decision. Anything else (a third-party plugin, a scripted chance
outcome) goes to the reference engine.

Use it as a bot or a learning environment would::

    game = FastGame.new(4, seed=7)
    while not game.is_over:
        game.apply(random.choice(game.legal_actions()))   # in place; returns the game
    game.scores()

:meth:`FastGame.apply` changes the game in place (and returns it); :meth:`FastGame.applied`
returns a changed copy and leaves the game alone; :meth:`FastGame.clone` is a cheap copy
for tree search. :meth:`FastGame.view` gives the reference's view, built from the flat
state for the base game and the ``bga`` preset (:class:`ViewableGame` records as it
plays what views need beyond it), by a replay for any other ruleset.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from operator import itemgetter
from typing import Any

from attrs import frozen

from .chance import draw_below, event_stream, shuffle
from .engine import Game, Score, make_rules, new_game
from .errors import IllegalActionError, StaleActionError, TokaidoError
from .events import Action, Move, field_names
from .frozen import EMPTY, FrozenMap
from .log import dump_log
from .model import Piece
from .ruleset import Ruleset, Setup
from .views import UnknownSeatError, View, _hidden_backs

__all__ = ["DifferentialReport", "FastGame", "NotCoveredError", "ViewableGame", "compare",
           "compiled", "covers", "differential", "views_direct"]

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""


class NotCoveredError(TokaidoError, ValueError):
    """The fast simulator does not cover this ruleset or setup (see :func:`covers`): use
    the reference engine (:func:`~tokaido_rules.new_game`)."""


# --- what the simulator knows of the base game's rules -------------------------------------
# Names the base plugin registers; the content behind them comes from the registry.

_COVERED: dict[str, tuple[str, dict[str, tuple[object, ...]]]] = {
    "base": ("tokaido_base", {
        "base.meal_hand": ("players_plus_one", "players"),
        "base.hirotada_bank_coin": ("choice", "auto"),
        "base.zenemon_discount": ("choice", "most_expensive"),
        "base.panorama_choice_optional": (False, True),
    }),
    "bga": ("tokaido_variants.bga", {}),
    "initiation": ("tokaido_variants.initiation", {}),
    "return-journey": ("tokaido_variants.return_journey", {}),
    "gastronomy": ("tokaido_variants.gastronomy", {}),
    "preparations": ("tokaido_variants.preparations", {}),
    "new-encounters": ("tokaido_new_encounters", {}),
    "rare-and-precious": ("tokaido_variants.rare_and_precious", {}),
    "good-luck": ("tokaido_variants.good_luck", {}),
    "crossroads": ("tokaido_crossroads", {
        "crossroads.cherry_tree_on_completed_panorama": (False, True),
        "crossroads.fortune_timing": ("before_move", "any_time_in_turn"),
        "crossroads.amulet_same_turn": (False, True),
        "crossroads.shodo_emaki_counts_legendary": (False, True),
        "crossroads.devotion": ("stop", "dearest_card"),
        "crossroads.optional_purchase": (False, True),
        "crossroads.health_where_both": (False, True),
    }),
}
"""Every plugin the simulator covers, by id: the module its plugin object must come from
(another plugin that takes the id is not covered), and each option it registers with
the values the simulator implements. A preset (``bga``, and ``gastronomy``, which sets
``base.meal_hand``) adds no rule of its own: the option values it sets are what is
played."""
_APART: tuple[frozenset[str], ...] = ()
"""Covered plugins whose combination is not: where the differential check finds the
simulator not exact with both, the pair goes here and such a ruleset plays on the
reference engine (none at present: Crossroads with New Encounters joined once Itamae's
meal, no inn meal, stopped counting for Fasting and for Nampo's bonus)."""
_OPTIONS: dict[str, tuple[object, ...]] = {
    name: values for _, options in _COVERED.values() for name, values in options.items()}
"""Every covered option and the values the simulator implements."""

_SOUVENIRS, _MEALS, _HOT_SPRINGS, _ENCOUNTERS = (
    "base.souvenirs", "base.meals", "base.hot_springs", "base.encounters")
_SPACE_KINDS = ("inn", "village", "temple", "encounter", "farm", "hot_spring", "paddy",
                "mountain", "sea")
_PANORAMA_KINDS = ("mountain", "paddy", "sea")
"""The panorama types, in sorted order (the order of ``base.choose_panorama``)."""
_EFFECTS = ("shokunin", "samurai", "kuge", "miko", "annaibito")
_TRAVELLERS = ("chuubei", "hiroshige", "hirotada", "kinko", "mitsukuni", "sasayakko",
               "satsuki", "umegae", "yoshiyasu", "zenemon")
_CATEGORIES = ("panoramas", "souvenirs", "meals", "hot_springs", "encounters",
               "temple_donations", "temple_ranking", "achievements", "traveller_powers")
_END_ACHIEVEMENTS = ("gourmet", "collector", "bather", "chatterbox")
CHOOSE, BUY, DONATE, BANK_COIN, KEEP, PANORAMA, SATSUKI, MEAL = _ACTION_TYPES = (
    "base.choose_traveller", "base.buy_souvenirs", "base.donate", "base.add_bank_coin",
    "base.keep_encounter", "base.choose_panorama", "base.satsuki_meal", "base.buy_meal")

# Names the Crossroads plugin registers (its zones, travellers, cards the rules name).
_CHERRY_TREES, _BATH_HOUSES, _LEGENDARY, _CALLIGRAPHY, _AMULETS = _CROSS_PILES = (
    "crossroads.cherry_trees", "crossroads.bath_houses", "crossroads.legendary",
    "crossroads.calligraphy", "crossroads.amulets")
_CROSS_TRAVELLERS = ("daigoro", "gotozaemon", "jirocho", "kita", "miyataka", "nampo")
_CROSS_CATEGORIES = ("cherry_trees", "bath_houses", "legendary_objects", "calligraphy")
_SCROLLS = ("shodo", "emaki")
_AMULET_NAMES = ("vitality", "fortune", "health", "friendship", "hospitality", "devotion")
_CALLIGRAPHIES = ("foresight", "contemplation", "nostalgia", "patience", "perfection",
                  "fasting")
_DIE_FACES = (0, 1, 2, 3, 3, 4)
"""The Fortune die (X counts 0), in the order the reference draws from."""
(OPTION, AMULET, LEGENDARY, CALLIGRAPHY, GAMBLE, VITALITY, FORTUNE, DEVOTION, FRIENDSHIP,
 HOSPITALITY) = _CROSS_ACTION_TYPES = (
    "crossroads.take_option", "crossroads.take_amulet", "crossroads.buy_legendary",
    "crossroads.take_calligraphy", "crossroads.gamble", "crossroads.use_vitality",
    "crossroads.use_fortune", "crossroads.use_devotion", "crossroads.friendship_move",
    "crossroads.hospitality_meal")

# Space kinds (the board as small integers).
S_INN, S_VILLAGE, S_TEMPLE, S_ENCOUNTER, S_FARM, S_HOT, S_PANO = range(7)
# Card kinds.
C_SOUVENIR, C_MEAL, C_PANORAMA, C_HOT, C_ENCOUNTER, C_ACHIEVEMENT = range(6)
C_CHERRY, C_BATH, C_LEGENDARY, C_CALLIGRAPHY, C_AMULET = range(6, 11)
_CARD_KINDS = {"souvenir": C_SOUVENIR, "meal": C_MEAL, "panorama": C_PANORAMA,
               "hot_spring": C_HOT, "encounter": C_ENCOUNTER, "achievement": C_ACHIEVEMENT,
               "cherry_tree": C_CHERRY, "bath_house": C_BATH, "legendary": C_LEGENDARY,
               "calligraphy": C_CALLIGRAPHY, "amulet": C_AMULET}
# Score categories, in the order of _CATEGORIES.
(P_PANO, P_SOUV, P_MEAL, P_HOT, P_ENC, P_DON, P_RANK, P_ACH, P_POWER) = range(9)
P_CHERRY, P_BATH, P_LEG, P_CALLI = range(9, 13)  # Crossroads', after _CATEGORIES
# Traveller powers.
(T_CHUUBEI, T_HIROSHIGE, T_HIROTADA, T_KINKO, T_MITSUKUNI, T_SASAYAKKO, T_SATSUKI,
 T_UMEGAE, T_YOSHIYASU, T_ZENEMON) = range(10)
T_DAIGORO, T_GOTOZAEMON, T_JIROCHO, T_KITA, T_MIYATAKA, T_NAMPO = range(10, 16)

# Step kinds: the engine runs those below _DECISION; the others are decisions. Each
# covered plugin numbers its kinds in a range of its own: base 0-23 and 64-72, the
# variants 24-31 and 73-79, New Encounters 32-39 and 80-84, Crossroads 40-63 and 85-127.
(K_FARM, K_PANO, K_HOT, K_VILLAGE, K_VILLAGE_END, K_ENCOUNTER, K_UMEGAE, K_HIROTADA,
 K_NTEMPLE, K_SHOKUNIN, K_SAMURAI, K_KUGE, K_MIKO, K_ANNAIBITO, K_HIROSHIGE, K_CHUUBEI,
 K_SATSUKI_DRAW, K_INN_HAND, K_NDISCARD, K_INN_CLOSE, K_START_COINS, K_GAME_OVER,
 K_END_ACH, K_END_TEMPLE) = range(24)
# The base variants' setup steps (Initiation's 7 coins, Preparations' adjustment); Return
# journey (a reversed board, read from the registry) and Gastronomy (an option value)
# need no rule of their own.
K_INITIATION_START, K_PREPARATIONS_ADJUST = range(24, 26)
_DECISION = 64
(D_CHOOSE, D_BUY, D_TEMPLE, D_BANK, D_KEEP, D_PANO, D_SATSUKI, D_MEAL, D_MOVE) = range(
    _DECISION, _DECISION + 9)
# Crossroads: the steps the engine runs, then its decisions.
(K_CHOOSE_OPTION, K_CHERRY, K_BATH, K_GAMING, K_AMULET, K_LEGENDARY, K_CALLIGRAPHY, K_GOTO,
 K_DAIGORO, K_VITALITY_CHECK, K_END_CALLIGRAPHY) = range(40, 51)
(D_OPTION, D_SECOND, D_TAKE_AMULET, D_LEGENDARY, D_CALLIGRAPHY, D_JIROCHO,
 D_VITALITY) = range(85, 92)
K_LUCK_OFFER = 51
D_LUCK = 92
"""Good Luck (a Crossroads variant): the offer at the start, each seat's decision."""
_CROSS_AUTOMATIC = (D_OPTION, D_JIROCHO)
"""The Crossroads decisions a lone answer of which the engine takes alone."""
_PURCHASE_KINDS = frozenset({D_BUY, D_MEAL, D_OPTION, D_SECOND, D_TAKE_AMULET, D_LEGENDARY,
                             D_CALLIGRAPHY})
"""Decisions at which Devotion may be switched on (``PURCHASE_DECISIONS``)."""
_OPTION_NAMES = {K_PANO: "base.panorama", D_TEMPLE: "base.temple", K_VILLAGE: "base.village",
                 K_FARM: "base.farm", K_HOT: "base.hot_spring", K_ENCOUNTER: "base.encounter",
                 K_CHERRY: "crossroads.cherry_tree", K_BATH: "crossroads.bath_house",
                 K_GAMING: "crossroads.gaming_room", K_AMULET: "crossroads.amulet",
                 K_LEGENDARY: "crossroads.legendary", K_CALLIGRAPHY: "crossroads.calligraphy"}
"""The step kind (and option name) of each option of a stop."""
_OPTION_CODES = {name: kind for kind, name in _OPTION_NAMES.items()}
_CROSS_OPTION = {K_PANO: K_CHERRY, K_HOT: K_BATH, K_FARM: K_GAMING, D_TEMPLE: K_AMULET,
                 K_VILLAGE: K_LEGENDARY, K_ENCOUNTER: K_CALLIGRAPHY}
"""The Crossroads option of each space, by the base one (``CROSSROADS_OPTION``)."""
_EFFECT_KINDS = {"base.effect." + name: K_SHOKUNIN + i for i, name in enumerate(_EFFECTS)}
_DECISION_KINDS: dict[int, str] = {
    D_CHOOSE: "base.choose_traveller", D_BUY: "base.buy_souvenirs", D_TEMPLE: "base.temple",
    D_BANK: "base.bank_coin", D_KEEP: "base.keep_encounter", D_PANO: "base.choose_panorama",
    D_SATSUKI: "base.satsuki_meal", D_MEAL: "base.meal", D_MOVE: "core.move",
    D_OPTION: "crossroads.option", D_SECOND: "crossroads.second_option",
    D_TAKE_AMULET: "crossroads.take_amulet", D_LEGENDARY: "crossroads.buy_legendary",
    D_CALLIGRAPHY: "crossroads.take_calligraphy", D_JIROCHO: "crossroads.jirocho",
    D_VITALITY: "crossroads.vitality", D_LUCK: "good-luck.buy"}
"""The reference's step kind of each decision kind."""

# New Encounters: one effect step for the four promo cards (which card: the step's data),
# and the three decisions to pay 1 coin for an effect.
K_PROMO = 32
D_ITAMAE, D_TAKUHATSUSO, D_KITOUSHI = range(80, 83)
_EFFECT_KINDS["new-encounters.effect"] = K_PROMO
_DECISION_KINDS.update({D_ITAMAE: "new-encounters.itamae_choice",
                        D_TAKUHATSUSO: "new-encounters.takuhatsuso_choice",
                        D_KITOUSHI: "new-encounters.kitoushi_choice"})
_PROMOS = ("itamae", "kitoushi", "saru", "takuhatsuso")
"""The promo cards' ids (the New Encounters plugin registers them)."""
E_ITAMAE, E_KITOUSHI, E_SARU, E_TAKUHATSUSO = range(len(_PROMOS))
PAY_PROMO, KITOUSHI = "new-encounters.pay", "new-encounters.kitoushi"
TAKUHATSUSO_POINTS = 4

Step = tuple[int, int, int | None, int]
"""A step of the agenda: (kind, piece, seat, data). Steps are compared as the engine
compares its own (to know when the reference writes its agenda), so each maps one to
one to a reference step: ``data`` is the encounter card of an effect step, the open
panoramas (a bit mask) of a panorama choice, 0 otherwise."""

_Plan = tuple[tuple[Callable[[tuple[int, ...]], tuple[int, ...]], int], ...]
"""The purchases of a village offer (:meth:`_Tables.plan`)."""
_Road = tuple[int, int, int, int, tuple[tuple[int, int, int, tuple[Move, ...]], ...],
              dict[int, tuple[Action, ...]]]
"""The road ahead of a traveller (:meth:`_Tables.road`)."""

_MOVES: tuple[tuple[Step, ...], ...] = tuple(
    tuple((D_MOVE, piece, seat, 0) for seat in range(5)) for piece in range(5))
"""The move decision of each piece and deciding seat."""
_VILLAGE_END: Step = (K_VILLAGE_END, -1, None, 0)
_START_COINS: Step = (K_START_COINS, -1, None, 0)
_END_STEPS: tuple[Step, ...] = ((K_GAME_OVER, -1, None, 0), (K_END_ACH, -1, None, 0),
                                (K_END_TEMPLE, -1, None, 0))
_INITIATION_START: Step = (K_INITIATION_START, -1, None, 0)
_PREPARATIONS_ADJUST: Step = (K_PREPARATIONS_ADJUST, -1, None, 0)
_INITIATION_COINS = 7
"""Initiation: every player's starting coins, there being no travellers."""
_DEPARTURE_COINS = {2: (1, 2), 3: (0, 1, 2), 4: (-1, 0, 1, 2), 5: (-1, -1, 0, 1, 2)}
"""Preparations: the coins gained (or lost) by the 1st, 2nd, ... player to leave the
start inn, by player count."""
X_CHERRY, X_BATH, X_LEGENDARY, X_CALLIGRAPHY, X_AMULET = range(5)
"""The Crossroads piles in :attr:`FastGame.piles` (the order of ``_CROSS_PILES``)."""
_RARE_ORDER = (X_BATH, X_LEGENDARY, X_CHERRY, X_AMULET, X_CALLIGRAPHY)
"""The order in which Rare & Precious thins the piles (``PILES``)."""
_LUCK_OFFER: Step = (K_LUCK_OFFER, -1, None, 0)


# --- the content, read from the registry once per ruleset and player count ------------------


class _Tables:
    """The content of a covered ruleset for one player count, as flat tables; shared by
    every game made from it, never changed."""

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        reg = ruleset.registry
        self.ruleset = ruleset
        self.players = players
        self.neutrals = ruleset.hooks.neutral_travellers(players)
        self.pieces = players + self.neutrals
        self.actions: dict[str, Any] = {name: reg.events[name] for name in _ACTION_TYPES}
        """The base plugin's action classes, by wire name (the registry holds them)."""
        names = tuple(sorted(reg.cards))  # card codes sort as the card ids do
        self.names = names
        self.code = {name: i for i, name in enumerate(names)}
        cards = [reg.cards[n] for n in names]
        self.kind = [_CARD_KINDS[c.kind] for c in cards]
        self.price = [c.price for c in cards]
        self.points = [c.points for c in cards]
        families = sorted({c.family for c in cards if c.family is not None})
        self.families = len(families)
        self.family = [-1 if c.family is None else families.index(c.family) for c in cards]
        self.collector = [1 if "collector" in c.tags else 0 for c in cards]
        self.bather = [1 if "bather" in c.tags else 0 for c in cards]
        self.chatterbox = [1 if "chatterbox" in c.tags else 0 for c in cards]
        self.gourmet = [c.price if "gourmet" in c.tags else 0 for c in cards]
        self.effect = [_EFFECT_KINDS.get(c.effect or "", -1) for c in cards]
        self.promo = [_PROMOS.index(c.id) if c.effect == "new-encounters.effect" else -1
                      for c in cards]
        """Which New Encounters promo card each card is (-1: none)."""
        for name in (PAY_PROMO, KITOUSHI):
            if name in reg.events:
                self.actions[name] = reg.events[name]
        # panoramas: the sections of each type, and the type an Annaibito shows
        self.sections = [0] * len(_PANORAMA_KINDS)
        self.section_card: list[list[int]] = [[-1] for _ in _PANORAMA_KINDS]
        self.shows = [-1] * len(cards)
        for i, c in enumerate(cards):
            if c.kind == "panorama":
                k = _PANORAMA_KINDS.index(c.id.rsplit(".", 1)[0])
                self.sections[k] += 1
            elif c.effect == "base.effect.annaibito":
                self.shows[i] = _PANORAMA_KINDS.index(c.id.split(".")[1])
        for k, kind in enumerate(_PANORAMA_KINDS):
            self.section_card[k] = [-1] + [self.code[f"{kind}.{n}"]
                                           for n in range(1, self.sections[k] + 1)]
        self.achievement = {name: self.code[f"achievement.{name}"]
                            for name in (*_PANORAMA_KINDS, *_END_ACHIEVEMENTS)}
        self.pano_achievement = [self.achievement[k] for k in _PANORAMA_KINDS]
        # the board
        board = reg.board
        self.end = len(board) - 1
        space = {"inn": S_INN, "village": S_VILLAGE, "temple": S_TEMPLE,
                 "encounter": S_ENCOUNTER, "farm": S_FARM, "hot_spring": S_HOT}
        self.space = [space.get(s.kind, S_PANO) for s in board]
        self.space_pano = [_PANORAMA_KINDS.index(s.kind) if s.kind in _PANORAMA_KINDS else -1
                           for s in board]
        slots, next_inn = ruleset.board_for(players)
        self.slots = list(slots)
        self.next_inn = list(next_inn)
        # decks, in the order the engine fills them
        self.decks = [(spec.zone, [self.code[c] for c in spec.cards], spec.shuffled)
                      for spec in reg.decks.values()]
        # travellers: codes sort as their names do
        self.traveller_names = tuple(sorted(reg.travellers))
        self.traveller_index = {t: i for i, t in enumerate(self.traveller_names)}
        self.traveller_coins = [reg.travellers[t].coins for t in self.traveller_names]
        self.power = [(_TRAVELLERS + _CROSS_TRAVELLERS).index(t) for t in self.traveller_names]
        self.power.append(-1)  # index -1, no traveller (neutral; Initiation): no power
        self.categories = tuple(reg.categories)
        self.category_slots = tuple((k, name) for k, name in enumerate(
            _CATEGORIES + _CROSS_CATEGORIES) if name in reg.categories)
        """The score categories the ruleset registers, with their place in a score row."""
        options = ruleset.options
        self.hand_size = players + (1 if options["base.meal_hand"] == "players_plus_one" else 0)
        self.hirotada_auto = options["base.hirotada_bank_coin"] == "auto"
        self.zenemon_dearest = options["base.zenemon_discount"] == "most_expensive"
        self.panorama_optional = bool(options["base.panorama_choice_optional"])
        # the base variants' setup: Initiation replaces the traveller offer by its coins,
        # Preparations adjusts the coins after it (and after the crafted ones)
        self.initiation = "initiation" in ruleset.ids
        self.preparations = "preparations" in ruleset.ids
        # the action objects handed out, made once each
        seats = range(players)
        meal_type = self.actions[MEAL]
        self.meals = [[meal_type(seat, seat, name) for name in names]
                      + [meal_type(seat, seat, None)] for seat in seats]
        """Per seat, the meal decision for each card (only meals are offered), then no
        meal (the seated travellers are the pieces numbered as their seats)."""
        self.kinko_price = [max(0, p - 1) for p in self.price]
        donate = self.actions[DONATE]
        self.donations = [[tuple(donate(seat, seat, amount) for amount in range(1, most + 1))
                           for most in range(4)] for seat in seats]
        self.roads: dict[int, _Road] = {}
        self.arrivals: dict[int, tuple[Step, ...]] = {}
        self.remembered = 0
        self.misc: dict[tuple[Any, ...], Action] = {}
        self.plans: dict[tuple[Any, ...], _Plan] = {}
        self.every_plan: dict[tuple[Any, ...], tuple[tuple[Any, int, int], ...]] = {}
        self.purchases: list[dict[tuple[tuple[int, ...], int], Action]] = [
            {} for _ in range(players)]
        """Per seat, the purchase actions made, by cards and Zen-emon's discounted card
        (-1: none)."""
        self.view_tables: _ViewTables | None = None
        """What :meth:`FastGame.view` reads to build a view straight from the flat state
        (made when first asked: :func:`_view_tables`)."""
        self.end_steps = _END_STEPS
        self.score_width = len(_CATEGORIES)
        """The length of a score row (Crossroads' categories after the base ones)."""
        self.cross = "crossroads" in ruleset.ids
        self.lift = False
        """Whether a completed panorama stays open while the cherry trees last."""
        if self.cross:
            self._crossroads(ruleset)

    def _crossroads(self, ruleset: Ruleset) -> None:
        """The Crossroads facts: its options, the cards its rules name, its actions."""
        reg = ruleset.registry
        options = ruleset.options
        self.end_steps = (*_END_STEPS, (K_END_CALLIGRAPHY, -1, None, 0))
        self.score_width = len(_CATEGORIES) + len(_CROSS_CATEGORIES)
        self.lift = bool(options["crossroads.cherry_tree_on_completed_panorama"])
        self.fortune_any = options["crossroads.fortune_timing"] == "any_time_in_turn"
        self.same_turn = bool(options["crossroads.amulet_same_turn"])
        self.scrolls_count_legendary = bool(options["crossroads.shodo_emaki_counts_legendary"])
        self.devotion_stop = options["crossroads.devotion"] == "stop"
        self.optional = bool(options["crossroads.optional_purchase"])
        self.health_where_both = bool(options["crossroads.health_where_both"])
        code = self.code
        self.scroll = [1 if name in _SCROLLS else 0 for name in self.names]
        (self.vitality, self.fortune, self.health, self.friendship, self.hospitality,
         self.devotion) = (code[name] for name in _AMULET_NAMES)
        self.calligraphy_rule = {code[name]: i for i, name in enumerate(_CALLIGRAPHIES)}
        self.actions.update({name: reg.events[name] for name in _CROSS_ACTION_TYPES})
        self.rare = "rare-and-precious" in ruleset.ids
        self.good_luck = "good-luck" in ruleset.ids
        if self.good_luck:
            self.actions["good-luck.buy"] = reg.events["good-luck.buy"]

    def cross_arrival(self, steps: list[Step], piece: int, seat: int | None, power: int,
                      position: int) -> list[Step]:
        """The stop's steps with Crossroads (its ``tokaido_arrival_steps`` wrapper): the
        base action of a road space becomes the choice of options; Gotozaemon's coin,
        Daigoro's souvenir and Jirocho's stake join (Vitality's check is added at each
        stop, as it depends on the amulets held)."""
        if seat is None:
            return steps
        if self.space[position] == S_INN:
            if position != self.end and power in (T_DAIGORO, T_JIROCHO):
                steps.insert(0, (K_DAIGORO if power == T_DAIGORO else D_JIROCHO, piece, seat, 0))
            return steps
        out: list[Step] = [(K_CHOOSE_OPTION, piece, seat, step[0]) if step[0] in _CROSS_OPTION
                           else step for step in steps]
        if power == T_GOTOZAEMON and self.space[position] == S_PANO:
            out.insert(0, (K_GOTO, piece, seat, 0))
        return out

    def arrival(self, piece: int, seat: int | None, power: int,
                position: int) -> tuple[Step, ...]:
        """What a stop of ``piece`` at ``position`` schedules (``tokaido_arrival_steps``,
        in their order): made once per piece, power and position."""
        T = self
        new: list[Step] = []
        space = T.space[position]
        if space == S_INN:
            if seat is None:
                new += ((K_INN_HAND, piece, None, 0), (K_NDISCARD, piece, None, 0),
                        (K_INN_CLOSE, piece, None, 0))
            else:
                if position != T.end:
                    if power == T_HIROSHIGE:
                        new.append((K_HIROSHIGE, piece, seat, 0))
                    elif power == T_CHUUBEI:
                        new.append((K_CHUUBEI, piece, seat, 0))
                if power == T_SATSUKI:
                    new.append((K_SATSUKI_DRAW, piece, seat, 0))
                new += ((K_INN_HAND, piece, None, 0), (D_MEAL, piece, seat, 0),
                        (K_INN_CLOSE, piece, None, 0))
        elif seat is None:
            if space == S_TEMPLE:
                new.append((K_NTEMPLE, piece, None, 0))
        elif space == S_ENCOUNTER:
            if power == T_UMEGAE:
                new.append((K_UMEGAE, piece, seat, 0))
            new.append((K_ENCOUNTER, piece, seat, 0))
        elif space == S_TEMPLE:
            new.append((D_TEMPLE, piece, seat, 0))
            if power == T_HIROTADA and not T.hirotada_auto:
                new.append((K_HIROTADA, piece, seat, 0))
        else:
            new.append(({S_PANO: K_PANO, S_VILLAGE: K_VILLAGE, S_FARM: K_FARM,
                         S_HOT: K_HOT}[space], piece, seat, 0))
        if self.cross:
            new = self.cross_arrival(new, piece, seat, power, position)
        found = self.arrivals[(piece * 32 + power + 1) * 64 + position] = tuple(new)
        return found

    def plan(self, buyer: int, prices: tuple[int, ...], ranks: tuple[int, ...],
             coins: int) -> _Plan:
        """The affordable purchases of an offer whose cards cost ``prices`` and sort in
        the order ``ranks`` (by card id), for a buyer (1 Sasayakko, 2 Zen-emon, 0 anyone
        else) with ``coins``: per purchase, what picks its cards from the offer and the
        position of the card Zen-emon pays 1 coin for (-1: none); in the order of
        ``legal_buy_souvenirs``. Made once per key, from :meth:`purchases_of`."""
        every = self.every_plan.get((buyer, prices, ranks))
        if every is None:
            every = self.purchases_of(buyer, prices, ranks)
        found = self.plans[buyer, prices, ranks, coins] = tuple(
            (pick, d) for pick, d, needed in every if needed <= coins)
        return found

    def purchases_of(self, buyer: int, prices: tuple[int, ...],
                     ranks: tuple[int, ...]) -> tuple[tuple[Any, int, int], ...]:
        """Every purchase of such an offer, affordable or not, in order, with the coins it
        needs (the ways to pay are ``tv.souvenir_prices``)."""
        options: dict[tuple[tuple[int, ...], int], int] = {}
        for r in range(len(prices) + 1):
            for combo in combinations(range(len(prices)), r):
                paid = [prices[i] for i in combo]
                cost = sum(paid)
                ways: list[tuple[int, int]]  # (discounted position, needed)
                if buyer == 1 and len(paid) >= 2:
                    ways = [(-1, cost)]
                elif buyer == 2 and paid:
                    if self.zenemon_dearest:
                        i = max(range(len(paid)), key=lambda k: (paid[k], -k))
                        ways = [(combo[i], cost - paid[i] + 1)]
                    else:  # the offer holds distinct cards: one way per card
                        ways = [(c, cost - paid[i] + 1) for i, c in enumerate(combo)]
                else:
                    ways = [(-1, cost)]
                for discount, needed in ways:
                    options.setdefault((combo, discount), needed)
        ordered = sorted(options, key=lambda o: (tuple(ranks[i] for i in o[0]), o[1] >= 0,
                                                 -1 if o[1] < 0 else ranks[o[1]]))
        found = self.every_plan[buyer, prices, ranks] = tuple(
            (_PICK[positions], d, options[positions, d]) for positions, d in ordered)
        return found

    def purchase(self, seat: int, piece: int, cards: tuple[int, ...], discount: int) -> Action:
        """The action buying ``cards`` (Zen-emon's 1-coin card ``discount``, -1: none),
        made once."""
        names = self.names
        found: Action = self.actions[BUY](
            seat, piece, tuple(names[c] for c in cards), None if discount < 0 else names[discount])
        self.purchases[seat][cards, discount] = found
        return found

    def action(self, type_name: str, *fields: Any) -> Action:
        key = (type_name, *fields)
        found = self.misc.get(key)
        if found is None:
            found = self.misc[key] = self.actions[type_name](*fields)
        return found

    def road(self, seat: int, piece: int, here: int) -> _Road:
        """The road ahead of ``piece`` at ``here`` up to the next inn, the decider
        ``seat``: where its spaces' bits are in :attr:`FastGame.taken` (shift, mask), its
        inn and the width of the spaces' bits, then per position its slots (0: an inn),
        what may forbid a stop there (the bit of :meth:`FastGame._moves`'s mask: 1 a
        coin, 2 + k panorama k complete, 0 nothing) and the move to each slot; last, the
        legal moves found so far by key. Made once per seat, piece and position."""
        road = []
        inn = self.next_inn[here]
        for q in range(here + 1, inn + 1):
            n = self.slots[q]
            space = self.space[q]
            check = (1 if space in (S_TEMPLE, S_VILLAGE) else
                     2 + self.space_pano[q] if space == S_PANO else 0)
            moves = tuple(Move(seat, piece, q, s) for s in range(n or self.pieces))
            road.append((q, n, check, moves))
        width = 2 * (inn - here - 1)
        found: _Road = (2 * (here + 1), (1 << width) - 1, inn, width, tuple(road), {})
        self.roads[(seat * 8 + piece) * 64 + here] = found
        return found


_TABLES: weakref.WeakKeyDictionary[Ruleset, dict[int, _Tables]] = weakref.WeakKeyDictionary()
_DEFAULT: list[Ruleset] = []


def _tables(ruleset: Ruleset, players: int) -> _Tables:
    by_players = _TABLES.get(ruleset)
    if by_players is None:
        if not covers(ruleset):
            raise NotCoveredError(f"the fast simulator does not cover the ruleset "
                                  f"{list(ruleset.ids)} with options "
                                  f"{dict(ruleset.options)} (see covers())")
        by_players = _TABLES[ruleset] = {}
    found = by_players.get(players)
    if found is None:
        found = by_players[players] = _Tables(ruleset, players)
    return found


def covers(ruleset: Ruleset) -> bool:
    """Whether :class:`FastGame` plays games of ``ruleset`` exactly: every plugin enabled
    is a built-in one the simulator covers (:data:`_COVERED`: ``base``, ``crossroads``,
    the ``bga`` preset, the variants and New Encounters), and every option has a value it
    implements, and no two of them are a pair of :data:`_APART`. Any other plugin (a
    third-party one) is not covered."""
    if not isinstance(ruleset, Ruleset) or "base" not in ruleset.ids:
        return False
    ids = set(ruleset.ids)
    if any(pair <= ids for pair in _APART):
        return False
    for plugin_id, plugin in zip(ruleset.ids, ruleset.plugins, strict=True):
        covered = _COVERED.get(plugin_id)
        if covered is None:
            return False
        module = type(plugin).__module__
        if module != covered[0] and not module.startswith(covered[0] + "."):
            return False  # another plugin that calls itself by a covered id
    options = ruleset.options
    return all(name in _OPTIONS and value in _OPTIONS[name]
               for name, value in options.items())


def _picker(positions: tuple[int, ...]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    if not positions:
        return lambda offer: ()
    if len(positions) == 1:
        only = positions[0]
        return lambda offer: (offer[only],)
    return itemgetter(*positions)  # a tuple of 2 or more


_PICK = {positions: _picker(positions) for r in range(4)
         for positions in combinations(range(3), r)}
"""What takes the cards at some positions of a village offer (of up to 3 cards)."""


def _ruleset(plugins: Ruleset | Iterable[str | object],
             options: Mapping[str, object] | None) -> Ruleset:
    """The ruleset of :meth:`FastGame.new`'s arguments, as :func:`new_game` builds it
    (``("base",)`` without options is built once and shared)."""
    if isinstance(plugins, Ruleset):
        if options:
            from .errors import SetupError

            raise SetupError("options belong to the Ruleset when a Ruleset is passed")
        return plugins
    plugins = tuple(plugins)
    if plugins == ("base",) and not options:
        if not _DEFAULT:
            _DEFAULT.append(Ruleset.build(("base",)))
        return _DEFAULT[0]
    return Ruleset.build(plugins, options)


_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_LANES: dict[tuple[int, ...], tuple[int, tuple[int, ...], int, int]] = {}


def _lanes(counts: tuple[int, ...]) -> tuple[int, tuple[int, ...], int, int]:
    """The constants of :func:`_setup_shuffles` for shuffles of ``counts`` draws: one
    128-bit lane per draw, holding the draw's offset ``_GOLDEN * (draw + 1)``; per
    shuffle, a 1 in each of its lanes; a 64-bit mask in every lane; the bytes."""
    offsets = ones_all = 0
    ones = []
    lane = 0
    for count in counts:
        ones_here = 0
        for draw in range(count):
            offsets |= ((_GOLDEN * (draw + 1)) & _MASK) << (128 * lane)
            ones_here |= 1 << (128 * lane)
            lane += 1
        ones.append(ones_here)
        ones_all |= ones_here
    found = _LANES[counts] = (offsets, tuple(ones), ones_all * _MASK, 16 * lane)
    return found


def _setup_shuffles(seed: int, jobs: list[tuple[int, list[int]]]) -> None:
    """Shuffle each list of ``jobs`` in place as :func:`tokaido_rules.chance.shuffle`
    does with the stream of its event (``(seq, items)``), draws from 0: the same
    numbers, but the hashes of every draw of every shuffle computed at once, as lanes of
    one big integer (a 128-bit lane holds each 64-bit value and its products with the
    finaliser's 64-bit multipliers, so lanes never carry into each other). The setup's
    shuffles are most of the cost of a game's start otherwise."""
    counts = tuple(len(items) - 1 for _, items in jobs)
    found = _LANES.get(counts)
    if found is None:
        found = _lanes(counts)
    offsets, ones, mask, size = found
    z = offsets
    for (seq, _), lanes in zip(jobs, ones, strict=True):
        z += event_stream(seed, seq) * lanes
    z &= mask
    z = ((z ^ (z >> 30 & mask)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27 & mask)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31 & mask
    hashes = memoryview(z.to_bytes(size, "little")).cast("Q")[::2].tolist()
    k = 0
    for _, items in jobs:
        for i in range(len(items) - 1, 0, -1):
            j = (hashes[k] * (i + 1)) >> 64
            items[i], items[j] = items[j], items[i]
            k += 1


def _temple_ranking(donations: list[int]) -> list[int]:
    distinct = sorted({d for d in donations if d > 0}, reverse=True)
    points = {amount: (10, 7, 4)[i] if i < 3 else 2 for i, amount in enumerate(distinct)}
    return [points.get(d, 0) for d in donations]


class FastGame:
    """A base game with mutable flat internals, exact to the reference engine.

    Make one with :meth:`new`. :attr:`current_player` decides among
    :meth:`legal_actions` (the reference engine's action objects, in its order);
    :meth:`apply` applies one in place (validated: anything else raises
    :class:`~tokaido_rules.IllegalActionError`, as the reference does, and leaves the game
    unchanged). :meth:`to_game` rebuilds the reference :class:`~tokaido_rules.Game`.
    """

    __slots__ = (
        "T",
        "_chronicle",
        "_decisions",
        "_legal",
        "_replica",
        "_step",
        "acq",
        "agenda",
        "ate",
        "automatic",
        "awarded",
        "calli",
        "coins",
        "devo",
        "don",
        "done",
        "drawn",
        "eaten",
        "encounters",
        "fam",
        "given",
        "gourmet",
        "hand",
        "held",
        "is_over",
        "meals",
        "nach",
        "nbath",
        "nchat",
        "ncol",
        "occ",
        "offer",
        "offers",
        "order",
        "piles",
        "pos",
        "score",
        "seat",
        "sect",
        "seed",
        "seq",
        "setup",
        "slot",
        "souvenirs",
        "springs",
        "taken",
        "trav",
        "turn",
        "xc",
    )

    T: _Tables
    seed: int
    setup: Setup | None
    given: tuple[str, ...] | None
    is_over: bool
    """Whether the journey has ended (a plain attribute: read at every decision)."""
    automatic: int
    """How many decisions the engine has taken alone (one answer every seat can see):
    with :attr:`decisions`, the decision events of the reference log
    (:func:`~tokaido_rules.simulate.decision_count` is ``len(decisions) + automatic``)."""
    _step: Step | None
    _legal: tuple[Action, ...] | None
    _AMULETS = False
    """Whether travellers may hold amulets (:class:`_CrossroadsGame`)."""
    # Crossroads only (set when the ruleset has it):
    turn: int
    """The moves made so far (``GameState.turn``): when amulets were taken, Devotion's stop."""
    piles: list[list[int]]
    """The Crossroads piles, top first (``X_CHERRY`` ...)."""
    held: list[list[int]]
    """Per traveller, its amulets (its secret zone, in order)."""
    acq: list[dict[int, int]]
    """Per traveller, the turn in which it took each amulet."""
    devo: list[int]
    """Per traveller, the turn in which Devotion is on (-1: none)."""
    xc: list[list[int]]
    """Per traveller: souvenirs, legendary objects, cherry trees, scrolls (Shodo, Emaki),
    meals gained away from an inn (Itamae's: they are no inn meals, for Fasting)."""
    calli: list[list[int]]
    """Per traveller, its calligraphy cards."""

    def __init__(self) -> None:
        """An empty game, for :meth:`new` and :meth:`clone` to fill (a plain ``__init__``
        keeps the class compilable by mypyc)."""

    # --- making a game -----------------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int = 0,
            plugins: Ruleset | Iterable[str | object] = ("base",),
            travellers: Sequence[str] | None = None,
            options: Mapping[str, object] | None = None,
            setup: Setup | None = None) -> FastGame:
        """The game :func:`~tokaido_rules.new_game` makes with the same arguments, at its
        first decision. Bad input raises the same errors; a ruleset the simulator does
        not cover (:func:`covers`) or a setup that scripts chance outcomes
        (``Setup.chance``) raises :class:`NotCoveredError`."""
        return _make_game(cls, players, seed, plugins, travellers, options, setup)

    def _made(self, players: int, seed: int, plugins: Ruleset | Iterable[str | object],
              travellers: Sequence[str] | None, options: Mapping[str, object] | None,
              setup: Setup | None) -> FastGame:
        """:meth:`new`'s work on an empty game of the class asked for (an instance method
        rather than ``super()`` in a class method, which mypyc does not compile)."""
        game = self
        ruleset = _ruleset(plugins, options)
        if setup is None and type(players) is int and 2 <= players <= 5:
            T = _tables(ruleset, players)  # raises NotCoveredError
            if travellers is None:
                game._start(T, seed, None, None)
                return game
            names = tuple(travellers)
            index = T.traveller_index
            if len(names) == players and len(set(names)) == players and all(
                    name in index for name in names) and not T.initiation:
                game._start(T, seed, names, None)
                return game
        setup = setup or Setup()
        if travellers is not None:
            if setup.travellers is not None:
                from .errors import SetupError

                raise SetupError("travellers given twice (argument and setup)")
            setup = Setup(travellers, setup.queue, setup.stacks, setup.coins, setup.chance)
        make_rules(ruleset, players, setup)  # the reference's checks, and its errors
        T = _tables(ruleset, players)
        if T.initiation and setup.travellers is not None:  # the reference refuses them
            new_game(players, seed=seed, plugins=ruleset, setup=setup)  # raises its error
            raise AssertionError("the reference engine takes travellers in Initiation")
        if setup.chance:
            raise NotCoveredError("the fast simulator does not take scripted chance "
                                  "outcomes (Setup.chance): use the reference engine")
        game._start(T, seed, setup.travellers, setup)
        return game

    def _start(self, T: _Tables, seed: int, travellers: tuple[str, ...] | None,
               setup: Setup | None) -> None:
        """The setup of ``new_game``: decks, the queue, the travellers (given, or two
        offered to each seat), up to the first decision. ``setup`` is ``None`` for the
        default one, with ``travellers`` or not."""
        self.T = T
        self.seed = seed
        self.setup = setup
        self.given = travellers
        n = T.pieces
        self.seq = 0
        self.is_over = False
        self.automatic = 0
        self.pos = [0] * n
        self.slot = [0] * n
        self.coins = [0] * n
        self.trav = [-1] * n
        self.seat: list[int | None] = [i if i < T.players else None for i in range(n)]
        self.score = [[0] * T.score_width for _ in range(n)]
        self.don = [0] * n
        self.sect = [[0] * len(_PANORAMA_KINDS) for _ in range(n)]
        self.fam = [[0] * T.families for _ in range(n)]
        self.eaten = [0] * n
        self.gourmet = [0] * n
        self.ncol = [0] * n
        self.nbath = [0] * n
        self.nchat = [0] * n
        self.nach = [0] * n
        self.ate = [-1] * n
        self.awarded = [False] * len(_PANORAMA_KINDS)
        self.offer: list[int] = []
        self.hand: list[int] = []
        self.drawn: list[list[int]] = [[] for _ in range(n)]
        self.occ = [0] * (T.end + 1)
        self.taken = 0
        self.done = [0] * n
        self.agenda: list[Step] = []
        self.offers: list[tuple[int, ...]] = []
        self._decisions: list[Action] = []
        decks = [list(cards) for _, cards, _ in T.decks]
        queue = list(range(n)) if setup is None or setup.queue is None else list(setup.queue)
        # every shuffle of the setup at once (the same draws as chance.shuffle)
        jobs = [(i, deck) for i, deck in enumerate(decks) if T.decks[i][2] and len(deck) > 1]
        if (setup is None or setup.queue is None) and n > 1:
            jobs.append((len(decks), queue))
        _setup_shuffles(seed, jobs)
        if setup is not None and setup.stacks:
            for (zone, _, _), deck in zip(T.decks, decks, strict=True):
                top = setup.stacks.get(zone)
                if top:
                    stacked = [T.code[c] for c in top]
                    for c in stacked:
                        deck.remove(c)
                    deck[:0] = stacked
        by_zone = {zone: deck for (zone, _, _), deck in zip(T.decks, decks, strict=True)}
        self.souvenirs = by_zone[_SOUVENIRS]
        self.meals = by_zone[_MEALS]
        self.springs = by_zone[_HOT_SPRINGS]
        self.encounters = by_zone[_ENCOUNTERS]
        if T.cross:
            self.turn = 0
            self.piles = [by_zone[zone] for zone in _CROSS_PILES]
            self.held = [[] for _ in range(n)]
            self.acq = [{} for _ in range(n)]
            self.devo = [-1] * n
            self.xc = [[0, 0, 0, 0, 0] for _ in range(n)]
            self.calli = [[] for _ in range(n)]
        self.seq = len(decks) + 1  # a deck set per deck, the queue set
        if T.cross and T.rare:
            self._thin_piles()
        for slot, piece in enumerate(queue):
            self.slot[piece] = slot
        self.order = [-self.slot[i] for i in range(n)]
        self.occ[0] = n
        working: list[Step] = []
        if travellers is not None:
            for seat, name in enumerate(travellers):
                self._set_traveller(seat, T.traveller_index[name])
        elif T.initiation:
            working = [_INITIATION_START]
        else:
            pool = list(range(len(T.traveller_names)))
            for _ in range(T.players):
                stream = event_stream(seed, self.seq)
                first = pool[draw_below(stream, 0, len(pool))]
                rest = [t for t in pool if t != first]
                offer = (first, rest[draw_below(stream, 1, len(rest))])
                self.offers.append(offer)
                self.seq += 1
                pool = [t for t in pool if t not in offer]
            working = [(D_CHOOSE, seat, seat, 0) for seat in range(T.players)]
        if setup is not None and setup.coins:
            working.append(_START_COINS)
        if T.preparations:
            working.append(_PREPARATIONS_ADJUST)
        if T.cross and T.good_luck:
            working.append(_LUCK_OFFER)
        self._run(working)

    def _set_traveller(self, seat: int, code: int) -> None:
        self.trav[seat] = code
        self.seq += 1
        coins = self.T.traveller_coins[code]
        if coins:
            self.coins[seat] += coins
            self.seq += 1

    # --- reading -------------------------------------------------------------------------
    @property
    def ruleset(self) -> Ruleset:
        return self.T.ruleset

    @property
    def players(self) -> int:
        return self.T.players

    @property
    def current_player(self) -> int | None:
        """The seat whose decision it is; ``None`` when the game is over."""
        step = self._step
        return None if step is None else step[2]

    @property
    def current_kind(self) -> str | None:
        """The reference's step kind of the decision now (``Game.current_step.kind``,
        e.g. ``"core.move"``, ``"base.meal"``); ``None`` when the game is over."""
        step = self._step
        return None if step is None else _DECISION_KINDS[step[0]]

    @property
    def decisions(self) -> tuple[Action, ...]:
        """The actions applied so far, in order (the decisions the engine took alone are
        not among them, as in :func:`~tokaido_rules.decisions`)."""
        return tuple(self._decisions)

    @property
    def state_seq(self) -> int:
        """The sequence number the reference game's state has at this point (its count
        of events): what ``expected_seq`` is compared with."""
        return self.seq

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions: the tuple :meth:`Game.legal_actions` gives at this point
        (empty only when the game is over)."""
        legal = self._legal
        if legal is None:
            step = self._step
            if step is None:
                legal = ()
            elif step[0] == D_MOVE:
                legal = self._moves(step[1], step[2])  # type: ignore[arg-type]
            else:
                legal = self._legal_for(step)
            self._legal = legal
        return legal

    def scores(self) -> tuple[Score, ...]:
        """Per seat: total, points by category, tie-break, rank (as :meth:`Game.scores`)."""
        T = self.T
        rows = []
        for i in range(T.players):
            own = self.score[i]
            by_name = dict.fromkeys(T.categories, 0)
            for k, name in T.category_slots:
                by_name[name] = own[k]
            traveller = None if self.trav[i] < 0 else T.traveller_names[self.trav[i]]
            rows.append((i, traveller, sum(own), FrozenMap(by_name), self.nach[i]))
        keys = [(r[2], r[4]) for r in rows]
        return tuple(Score(*r, rank=1 + sum(1 for k in keys if k > (r[2], r[4])))
                     for r in rows)

    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several in a shared victory)."""
        return tuple(s.seat for s in self.scores() if s.rank == 1)

    def to_game(self) -> Game:
        """The reference game at this point: the decisions replayed through
        :func:`~tokaido_rules.new_game` and :meth:`Game.apply` (slow: a replay)."""
        if self.setup is None:
            game = new_game(self.T.players, seed=self.seed, plugins=self.T.ruleset,
                            travellers=self.given)
        else:
            game = new_game(self.T.players, seed=self.seed, plugins=self.T.ruleset,
                            setup=self.setup)
        for action in self._decisions:
            game = game.apply(action)
        return game

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see now (``None``: the public view), the very view
        :meth:`Game.view` of :meth:`to_game` gives: built straight from the flat state for
        the rulesets whose views this module knows (:func:`_view_tables`: the base game
        and the ``bga`` preset), else from :meth:`to_game` (slow: a replay of the game)."""
        V = self.T.view_tables
        if V is None:
            V = _view_tables(self.T)
        if not V.direct:
            return self.to_game().view(seat)
        return self._direct_view(V, seat)

    # --- views straight from the flat state (FastGame.view) ---------------------------------
    # A view shows what the flat state does not keep: each collection in the order it was
    # acquired, and the order in which zones, data keys, score categories and counters
    # first appeared (a reference state's mappings keep their insertion order). A
    # ViewableGame keeps those as it plays; a plain FastGame has one replay its decisions
    # (a ViewableGame of its own, brought up to date at each view: the cost of a fast
    # apply per decision, paid only by games that are viewed).

    def _chronicle_now(self) -> _Chronicle:
        """The records of this game's history up to now (see :class:`ViewableGame`)."""
        if isinstance(self, ViewableGame):
            return self._chronicle
        replica: FastGame | None = getattr(self, "_replica", None)
        if replica is None:
            T = self.T
            if self.setup is None:
                replica = ViewableGame.new(T.players, self.seed, T.ruleset, self.given)
            else:
                replica = ViewableGame.new(T.players, self.seed, T.ruleset, setup=self.setup)
            self._replica = replica
        assert isinstance(replica, ViewableGame)
        mine = self._decisions
        for action in mine[len(replica._decisions):]:
            replica.apply(action)
        return replica._chronicle

    def _direct_view(self, V: _ViewTables, seat: int | None) -> View:
        """The view of ``seat`` (``None``: the public one), made as
        :func:`~tokaido_rules.views.make_view` makes it from the reference state."""
        T = self.T
        players = T.players
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise UnknownSeatError(f"no seat {seat!r} in a {players}-player game")
        book = self._chronicle_now()
        last = book.last_view
        if last is not None and last[0] == self.seq and last[1] == seat:
            return last[2]
        common = book.common
        if common is None or common[0] != self.seq:
            common = book.common = self._view_common(V, book)
        _, pieces, zones, sizes = common
        hand_at = -2  # not looked for yet
        pos = self.pos
        shown: dict[str, tuple[str, ...]] = {}
        hidden: dict[str, tuple[str, ...]] = {}
        asked_shown: dict[str, tuple[str, ...]] = {}
        asked_hidden: dict[str, tuple[str, ...]] = {}
        for name, content, rule, owner in zones:
            if rule == _SHOWN:
                shown[name] = content
                continue
            if rule == _HIDDEN:
                hidden[name] = content
                continue
            if rule == _OWNER:
                seen = seat is not None and self.seat[owner] == seat
            else:  # the inn's meal hand: seen from one's arrival at its inn
                if hand_at == -2:
                    hand_at = self._hand_inn()
                if hand_at < 0:
                    seen = False
                elif seat is None:
                    seen = all(pos[s] == hand_at for s in range(players))
                else:
                    seen = pos[seat] == hand_at
            if seen:
                asked_shown[name] = content
            else:
                asked_hidden[name] = content
        shown.update(asked_shown)
        hidden.update(asked_hidden)
        data: dict[str, Any] = {}
        asked_data: dict[str, Any] = {}
        if self.offers:
            traveller_names = T.traveller_names
            for i, offer in enumerate(self.offers):
                rule = V.offer_rule[i]
                if rule == _SHOWN or (rule == _OWNER and seat is not None
                                      and self.seat[V.offer_owner[i]] == seat):
                    value = (traveller_names[offer[0]], traveller_names[offer[1]])
                    (data if rule == _SHOWN else asked_data)[V.offer_keys[i]] = value
        for i in book.data_order:
            rule = V.meal_rule[i]
            if rule == _SHOWN:
                data[V.meal_keys[i]] = self.ate[i]
            elif rule == _OWNER and seat is not None and self.seat[V.meal_owner[i]] == seat:
                asked_data[V.meal_keys[i]] = self.ate[i]
        if asked_data:
            data.update(asked_data)
        step = self._step
        current = None if step is None else V.steps.get(step) or V.step(step)
        player = None if step is None else step[2]
        steps = V.steps
        view = _new(View)
        _set(view, "__dict__", {
            "seat": seat, "players": players, "seq": self.seq, "turn": book.turn,
            "over": self.is_over, "pieces": pieces, "zones": FrozenMap(shown),
            "zone_sizes": sizes,
            "hidden_backs": _hidden_backs(T.ruleset.registry, hidden) if hidden else EMPTY,
            "data": FrozenMap(data),
            "agenda": tuple([steps.get(s) or V.step(s) for s in self.agenda]),
            "current_player": player, "current_step": current,
            "legal_actions": self.legal_actions() if seat is not None and player == seat
            else (),
            "ruleset": T.ruleset,
        })
        book.last_view = (self.seq, seat, view)
        return view

    def _view_common(self, V: _ViewTables, book: _Chronicle) -> _Common:
        """What every seat's view shows alike at this point: the pieces, and every zone in
        the state's order with its cards, who may see them and how many there are. A
        zone's cards are named again only when they changed since the last view."""
        T = self.T
        categories = V.categories
        pieces = []
        for i in range(T.pieces):
            own = self.score[i]
            counters: dict[str, int] = {}
            for k in book.counter_order[i]:
                counters[V.counters[k]] = self.don[i] if k == 0 else self.eaten[i].bit_count()
            trav = self.trav[i]
            piece = _new(Piece)
            _set(piece, "__dict__", {
                "seat": self.seat[i],
                "traveller": None if trav < 0 else T.traveller_names[trav],
                "coins": self.coins[i], "position": self.pos[i], "slot": self.slot[i],
                "score": FrozenMap({categories[k]: own[k] for k in book.score_order[i]}),
                "counters": FrozenMap(counters)})
            pieces.append(piece)
        by_name = T.names.__getitem__
        named = book.named
        zones = []
        sizes: dict[str, int] = {}
        source = V.source
        for code in (*V.deck_codes, *book.zones):
            how, where = source[code]
            if how == _FROM_GAME:
                cards = getattr(self, where)  # type: ignore[arg-type]
            elif how == _FROM_DRAWN:
                cards = self.drawn[where]  # type: ignore[index]
            elif how == _FROM_COLLECTION:
                cards = book.collections[where]  # type: ignore[index]
            else:
                cards = book.supplies[where]  # type: ignore[index]
            codes = tuple(cards)
            kept = named.get(code)
            if kept is not None and kept[0] == codes:
                content = kept[1]
            else:
                content = tuple(map(by_name, codes))
                named[code] = (codes, content)
            name = V.zone_names[code]
            sizes[name] = len(codes)
            zones.append((name, content, V.zone_rule[code], V.zone_owner[code]))
        return self.seq, tuple(pieces), zones, FrozenMap(sizes)

    def __repr__(self) -> str:
        return (f"<FastGame players={self.T.players} seq={self.seq} "
                f"current_player={self.current_player} over={self.is_over}>")

    # --- copying -------------------------------------------------------------------------
    def clone(self) -> FastGame:
        """An independent copy: applying actions to one never changes the other."""
        new = type(self)()
        new.T = self.T
        new.seed = self.seed
        new.setup = self.setup
        new.given = self.given
        new.seq = self.seq
        new.is_over = self.is_over
        new.automatic = self.automatic
        new.pos = self.pos[:]
        new.order = self.order[:]
        new.slot = self.slot[:]
        new.coins = self.coins[:]
        new.trav = self.trav[:]
        new.seat = self.seat
        new.score = [s[:] for s in self.score]
        new.don = self.don[:]
        new.sect = [s[:] for s in self.sect]
        new.fam = [f[:] for f in self.fam]
        new.eaten = self.eaten[:]
        new.gourmet = self.gourmet[:]
        new.ncol = self.ncol[:]
        new.nbath = self.nbath[:]
        new.nchat = self.nchat[:]
        new.nach = self.nach[:]
        new.ate = self.ate[:]
        new.awarded = self.awarded[:]
        new.souvenirs = self.souvenirs[:]
        new.meals = self.meals[:]
        new.springs = self.springs[:]
        new.encounters = self.encounters[:]
        new.offer = self.offer[:]
        new.hand = self.hand[:]
        new.drawn = [d[:] for d in self.drawn]
        new.occ = self.occ[:]
        new.taken = self.taken
        new.done = self.done[:]
        new.agenda = self.agenda[:]
        new.offers = self.offers
        new._step = self._step
        new._legal = self._legal
        new._decisions = self._decisions[:]
        return new

    # --- acting --------------------------------------------------------------------------
    def applied(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        """A copy of the game after ``action``; this game is unchanged (as
        :meth:`Game.apply`, at the cost of a :meth:`clone`)."""
        return self.clone().apply(action, expected_seq=expected_seq)

    def apply(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        """Apply ``action`` in place and return this game. An action that is not legal
        now raises the :class:`~tokaido_rules.IllegalActionError` the reference engine
        raises, with its message, and changes nothing; ``expected_seq`` as in
        :meth:`Game.apply` (:class:`~tokaido_rules.StaleActionError`)."""
        if expected_seq is not None and expected_seq != self.seq:
            raise StaleActionError(
                f"the action was sent at seq {expected_seq}; the game is at seq {self.seq}")
        step = self._step
        if step is None:
            raise IllegalActionError("the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._legal_for(step)
        for index, candidate in enumerate(legal):  # usually the very object offered  # noqa: B007
            if candidate is action:
                break
        else:
            index = self._matching(legal, action)
        chosen = legal[index]
        self._decisions.append(chosen)
        self.seq += 1  # the action's event; it answers the first step of the agenda
        new: list[Step] = []
        if step[0] == D_MOVE:  # the agenda is empty
            self._move(step[1], chosen.position, chosen.slot, new)  # type: ignore[attr-defined]
        else:
            agenda = self.agenda
            if agenda:
                del agenda[0]
            self._resolve(step, chosen, index, new)
            new.extend(agenda)
        self._run(new)
        return self

    def _matching(self, legal: tuple[Action, ...], action: object) -> int:
        """The index of the legal action equal to ``action`` (of the same shape: no
        ``2.0`` for ``2``); otherwise the reference engine decides, and raises its own
        error (slow: it replays the game first, which only a refused action costs)."""
        for index, candidate in enumerate(legal):
            if candidate == action and all(
                    type(getattr(candidate, name)) is type(getattr(action, name))
                    for name in field_names(type(candidate))):
                return index
        self.to_game().apply(action)  # type: ignore[arg-type]  # raises, saying why
        for index, candidate in enumerate(legal):  # the reference took it after all
            if candidate == action:
                return index
        raise AssertionError(f"the reference engine accepts {action!r}, which the fast "
                             "simulator does not offer")

    # --- the engine's loop, as the reference runs it ------------------------------------
    def _run(self, working: list[Step]) -> None:
        """Run steps until a decision with legal actions comes first (as the reference's
        ``_run``): a decision without any lapses; one with a single answer that the
        engine may take alone (an ``automatic`` step) is taken, after the agenda is
        written and an automatic marker; with nothing pending the rearmost traveller
        moves, or, everyone at the final inn, the game ends and is scored. The agenda is
        written (an event) wherever it differs from the reference's."""
        legal: tuple[Action, ...] = ()
        pending: Step | None = None
        while True:
            while working:
                step = working[0]
                kind = step[0]
                if kind >= _DECISION:
                    legal = self._legal_for(step)
                    if legal:
                        if len(legal) == 1 and (kind in (D_BUY, D_PANO) or (
                                kind == D_MEAL and self._hand_seen_by_all())
                                or kind in _CROSS_AUTOMATIC) and not (
                                self._AMULETS and self._window(step)):
                            if working != self.agenda:
                                self.seq += 1  # the agenda is written
                            self.seq += 2  # the automatic marker, then the action
                            self.automatic += 1
                            self.agenda = working[1:]
                            new: list[Step] = []
                            self._resolve(step, legal[0], 0, new)
                            del working[0]
                            if new:
                                working[:0] = new
                            continue
                        break
                    del working[0]  # nothing to decide: the decision lapses
                    continue
                del working[0]
                new = []
                self._run_step(step, new)
                if new:
                    working[:0] = new
            if working or self.is_over:
                break
            # nothing pending: the rearmost traveller moves (none: everyone has arrived);
            # the seated traveller furthest ahead decides the neutral traveller's.
            # Travellers are ordered by ``order``, ``position * 8 - slot`` (a later
            # arrival is further back), which no two share.
            order = self.order
            rearmost = min(order)
            if rearmost < self.T.end * 8 - 7:
                piece = order.index(rearmost)
                seat = self.seat[piece]
                if seat is None:
                    seated = order[:self.T.players]
                    seat = seated.index(max(seated))
                pending = _MOVES[piece][seat]
                break
            working.extend(self.T.end_steps)
        if working != self.agenda:
            self.seq += 1
            self.agenda = working
        if working:
            self._step = working[0]
            self._legal = legal
        else:
            self._step = pending
            self._legal = None if pending is not None else ()

    def _hand_inn(self) -> int:
        """The inn whose meal hand is out: the furthest inn reached (-1: none)."""
        space = self.T.space
        furthest = -1
        for p in self.pos:
            if p and space[p] == S_INN and p > furthest:
                furthest = p
        return furthest

    def _hand_seen_by_all(self) -> bool:
        at = self._hand_inn()
        if at < 0:
            return False
        pos = self.pos
        return all(pos[i] == at for i in range(self.T.players))

    # --- legal actions -------------------------------------------------------------------
    def _legal_for(self, step: Step) -> tuple[Action, ...]:
        kind, piece, seat, data = step
        T = self.T
        assert seat is not None
        if kind == D_MOVE:
            return self._moves(piece, seat)
        if kind == D_MEAL:
            hand = self.hand
            if not hand or self.ate[piece] == self.pos[piece]:
                return ()
            coins = self.coins[piece]
            eaten = self.eaten[piece]
            cost = T.kinko_price if T.power[self.trav[piece]] == T_KINKO else T.price
            meals = T.meals[seat]
            out = [meals[-1]]  # no meal
            for meal in sorted(set(hand)):
                if cost[meal] <= coins and not eaten >> meal & 1:
                    out.append(meals[meal])
            return tuple(out)
        if kind == D_BUY:
            return self._purchases(piece, seat)
        if kind == D_TEMPLE:
            return T.donations[seat][min(3, self.coins[piece])]
        if kind == D_PANO:
            sect = self.sect[piece]
            sections = T.sections
            out = [T.action(PANORAMA, seat, piece, name)
                   for k, name in enumerate(_PANORAMA_KINDS)
                   if data >> k & 1 and sect[k] < sections[k]]
            if out and T.panorama_optional:
                out.insert(0, T.action(PANORAMA, seat, piece, None))
            return tuple(out)
        if kind == D_BANK:
            return (T.action(BANK_COIN, seat, piece, False),
                    T.action(BANK_COIN, seat, piece, True))
        if kind == D_KEEP:
            return tuple(T.action(KEEP, seat, piece, T.names[c])
                         for c in sorted(set(self.drawn[piece])))
        if kind == D_SATSUKI:
            keep = not all(self.eaten[piece] >> c & 1 for c in self.drawn[piece])
            if keep:
                return (T.action(SATSUKI, seat, piece, False),
                        T.action(SATSUKI, seat, piece, True))
            return (T.action(SATSUKI, seat, piece, False),)
        if kind == D_CHOOSE:
            return tuple(T.action(CHOOSE, seat, T.traveller_names[t])
                         for t in sorted(self.offers[seat]))
        if kind in (D_ITAMAE, D_TAKUHATSUSO):
            card = _PROMOS[E_ITAMAE if kind == D_ITAMAE else E_TAKUHATSUSO]
            return (T.action(PAY_PROMO, seat, piece, card, False),
                    T.action(PAY_PROMO, seat, piece, card, True))
        if kind == D_KITOUSHI:  # declining first, then the open panoramas (sorted)
            sect = self.sect[piece]
            return (T.action(KITOUSHI, seat, piece, None), *(
                T.action(KITOUSHI, seat, piece, name) for k, name in enumerate(_PANORAMA_KINDS)
                if sect[k] < T.sections[k]))
        if kind >= D_OPTION:
            return self._cross_own_legal(kind, piece, seat, data)
        raise AssertionError(f"no decision of kind {kind}")

    def _moves(self, piece: int, seat: int) -> tuple[Action, ...]:
        """Every free slot up to the next inn that a rule allows (``legal_moves``): the
        road ahead (:meth:`_Tables.road`) less the full spaces and those the traveller
        may not stop at (a temple or village without a coin, a completed panorama).
        Remembered per road by what decides it: which slots ahead are taken, how many
        travellers the inn holds, and what the traveller may not stop at."""
        here = self.pos[piece]
        T = self.T
        road = T.roads.get((seat * 8 + piece) * 64 + here)
        if road is None:
            road = T.road(seat, piece, here)
        shift, mask, inn, width, entries, known = road
        if self.seat[piece] is None:
            bad = 0
        else:
            bad = (2 if self.coins[piece] < 1 else 0) | self.done[piece] << 2
        key = (self.taken >> shift & mask) | (self.occ[inn] | bad << 3) << width
        found = known.get(key)
        if found is not None:
            return found
        occ = self.occ
        out = []
        for q, n, check, moves in entries:
            o = occ[q]
            if n == 1:
                if o:
                    continue
                move = moves[0]
            elif n == 0:
                move = moves[o]
            elif not o & 1:
                move = moves[0]
            elif not o & 2:
                move = moves[1]
            else:
                continue
            if bad >> check & 1:
                continue
            out.append(move)
        found = known[key] = tuple(out)
        T.remembered += 1
        if T.remembered > 1 << 18:  # a long simulation: start again
            T.remembered = 0
            for other in T.roads.values():
                other[5].clear()
        return found

    def _purchases(self, piece: int, seat: int) -> tuple[Action, ...]:
        """Every affordable purchase at a village, "buy nothing" first (in the order of
        ``legal_buy_souvenirs``)."""
        T = self.T
        offer = tuple(self.offer)
        price = T.price
        prices = tuple([price[c] for c in offer])
        power = T.power[self.trav[piece]]
        buyer = 1 if power == T_SASAYAKKO else 2 if power == T_ZENEMON else 0
        ranked = sorted(offer)
        key = (buyer, prices, tuple([ranked.index(c) for c in offer]),
               min(self.coins[piece], sum(prices)))
        plan = T.plans.get(key)
        if plan is None:
            plan = T.plan(*key)
        made = T.purchases[seat]
        actions = []
        named: tuple[str, ...] | None = None
        for pick, d in plan:
            cards = pick(offer)
            discount = offer[d] if d >= 0 else -1
            if len(cards) < 3:  # few: each made once
                found = made.get((cards, discount))
                if found is None:
                    found = T.purchase(seat, piece, cards, discount)
            else:  # the whole offer in its order: rarely seen again, so made afresh
                if named is None:
                    names = T.names
                    named = (names[offer[0]], names[offer[1]], names[offer[2]])
                found = T.actions[BUY](seat, piece, named,
                                       None if discount < 0 else T.names[discount])
            actions.append(found)
        return tuple(actions)

    # --- consequences of decisions ------------------------------------------------------
    def _resolve(self, step: Step, action: Any, index: int, new: list[Step]) -> None:
        """Carry out ``action`` (one of the base plugin's action types, read by its
        fields), the answer to ``step``; steps it schedules go to ``new``."""
        kind, piece, seat, _ = step
        if kind == D_MOVE:
            assert isinstance(action, Move)
            self._move(piece, action.position, action.slot, new)
        elif kind == D_MEAL:
            meal = action.meal
            if meal is not None:
                T = self.T
                code = T.code[meal]
                cost = T.price[code]
                if cost and T.power[self.trav[piece]] == T_KINKO:
                    cost -= 1
                if cost:
                    self.coins[piece] -= cost
                    self.seq += 1
                self.hand.remove(code)
                self._eat(piece, code)
        elif kind == D_BUY:  # what the purchase costs (``_purchase_cost``)
            T = self.T
            codes = T.code
            cards = [codes[name] for name in action.cards]
            prices = [T.price[c] for c in cards]
            cost = sum(prices)
            discount = action.discount
            if discount is not None:
                cost -= T.price[codes[discount]] - 1
            elif len(prices) >= 2 and T.power[self.trav[piece]] == T_SASAYAKKO:
                cost -= min(prices)
            if cost:
                self.coins[piece] -= cost
                self.seq += 1
            offer = self.offer
            for card in cards:
                offer.remove(card)
                self._gain_souvenir(piece, card)
        elif kind == D_TEMPLE:
            amount = action.amount
            self.coins[piece] -= amount
            self.don[piece] += amount
            self.score[piece][P_DON] += amount
            self.seq += 3
            if self.T.hirotada_auto and self.T.power[self.trav[piece]] == T_HIROTADA:
                self._bank_coin(piece)
        elif kind == D_PANO:
            panorama = action.panorama
            if panorama is not None:
                self._take_panorama(piece, _PANORAMA_KINDS.index(panorama))
        elif kind == D_BANK:
            if action.add:
                self._bank_coin(piece)
        elif kind == D_KEEP:
            code = self.T.code[action.card]
            others = self.drawn[piece]
            self.drawn[piece] = []
            others.remove(code)
            self._gain(piece, code, -1, 0)
            self.encounters.extend(others)
            self.seq += 1
            new.append((self.T.effect[code], piece, seat, code))
        elif kind == D_SATSUKI:
            card = self.drawn[piece][0]
            self.drawn[piece] = []
            if action.keep:
                self._eat(piece, card)
            else:
                self.meals.append(card)
                self.seq += 1
        elif kind == D_CHOOSE:
            self._set_traveller(piece, self.T.traveller_index[action.traveller])
        elif kind in (D_ITAMAE, D_TAKUHATSUSO, D_KITOUSHI):
            self._pay_promo(kind, piece, action)
        elif kind >= D_OPTION:
            self._cross_resolve(step, action, new)
        else:
            raise AssertionError(f"no decision of kind {kind}")

    def _pay_promo(self, kind: int, piece: int, action: Any) -> None:
        """A promo card's payment (``resolve_pay``, ``resolve_kitoushi``): 1 coin, not a
        card price (no Kinko discount), for 4 points, the top meal (kept if not eaten
        yet, else under the deck; not an inn meal: with Crossroads, no Nampo bonus and
        not counted by Fasting) or the next section of a panorama."""
        if kind == D_KITOUSHI:
            if action.panorama is not None:
                self.coins[piece] -= 1
                self.seq += 1
                self._take_panorama(piece, _PANORAMA_KINDS.index(action.panorama))
            return
        if not action.pay:
            return
        self.coins[piece] -= 1
        self.seq += 1
        if kind == D_TAKUHATSUSO:
            self.score[piece][P_ENC] += TAKUHATSUSO_POINTS
            self.seq += 1
            return
        meal = self.meals.pop(0)
        self.seq += 1  # drawn privately
        if self.eaten[piece] >> meal & 1:
            self.meals.append(meal)
            self.seq += 1
        elif self.T.cross:  # no inn meal: Crossroads' Nampo bonus and Fasting ignore it
            FastGame._gain(self, piece, meal, P_MEAL, self.T.points[meal])
            self.xc[piece][4] += 1
        else:
            self._gain(piece, meal, P_MEAL, self.T.points[meal])

    def _move(self, piece: int, position: int, slot: int, new: list[Step]) -> None:
        """The traveller moves; its stop's steps are scheduled (``tokaido_arrival_steps``)."""
        T = self.T
        occ = self.occ
        old = self.pos[piece]
        if T.slots[old] == 0:
            occ[old] -= 1
        else:
            occ[old] &= ~(1 << self.slot[piece])
            self.taken &= ~(1 << (2 * old + self.slot[piece]))
        if T.slots[position] == 0:
            occ[position] += 1
        else:
            occ[position] |= 1 << slot
            self.taken |= 1 << (2 * position + slot)
        self.pos[piece] = position
        self.slot[piece] = slot
        self.order[piece] = position * 8 - slot
        power = self.trav[piece]
        if power >= 0:
            power = T.power[power]
        steps = T.arrivals.get((piece * 32 + power + 1) * 64 + position)
        if steps is None:
            steps = T.arrival(piece, self.seat[piece], power, position)
        new += steps

    # --- shared effects ------------------------------------------------------------------
    def _gain(self, piece: int, card: int, category: int, points: int) -> None:
        """A card into the collection (an event), its own points (an event), what it
        counts for, and Mitsukuni's bonus point (``tokaido_card_gained``)."""
        T = self.T
        self.seq += 1
        if points:
            self.score[piece][category] += points
            self.seq += 1
        kind = T.kind[card]
        if kind == C_SOUVENIR:
            self.fam[piece][T.family[card]] += 1
        elif kind == C_MEAL:
            self.eaten[piece] |= 1 << card
        elif kind == C_ACHIEVEMENT:
            self.nach[piece] += 1
        self.ncol[piece] += T.collector[card]
        self.nchat[piece] += T.chatterbox[card]
        self.gourmet[piece] += T.gourmet[card]
        bather = T.bather[card]
        self.nbath[piece] += bather
        if (bather or kind == C_ACHIEVEMENT) and T.power[self.trav[piece]] == T_MITSUKUNI:
            self.score[piece][P_POWER] += 1
            self.seq += 1

    def _gain_souvenir(self, piece: int, card: int) -> None:
        counts = self.fam[piece]
        held = counts[self.T.family[card]]
        self._gain(piece, card, P_SOUV, 2 * sum(1 for n in counts if n > held) + 1)

    def _eat(self, piece: int, card: int) -> None:
        self._gain(piece, card, P_MEAL, self.T.points[card])
        self.ate[piece] = self.pos[piece]
        self.seq += 2  # the inn meal counter, the data of where it was eaten

    def _bank_coin(self, piece: int) -> None:
        self.don[piece] += 1
        self.score[piece][P_DON] += 1
        self.seq += 2

    def _take_panorama(self, piece: int, k: int) -> None:
        T = self.T
        n = self.sect[piece][k] + 1
        if n > T.sections[k]:
            return
        self.sect[piece][k] = n
        self._gain(piece, T.section_card[k][n], P_PANO, n)
        if n == T.sections[k]:
            self.done[piece] |= 1 << k
            if not self.awarded[k]:
                self.awarded[k] = True
                self._award(piece, T.pano_achievement[k])

    def _award(self, piece: int, card: int) -> None:
        self._gain(piece, card, P_ACH, self.T.points[card])

    def _choose_panorama(self, piece: int, seat: int | None, new: list[Step]) -> None:
        sect = self.sect[piece]
        sections = self.T.sections
        still = 0
        for k in range(len(_PANORAMA_KINDS)):
            if sect[k] < sections[k]:
                still |= 1 << k
        if still:
            new.append((D_PANO, piece, seat, still))

    def _draw_encounter(self, piece: int, seat: int | None, two: bool,
                        new: list[Step]) -> None:
        deck = self.encounters
        if not deck:
            return
        self.seq += 1
        if two and len(deck) >= 2:
            self.drawn[piece] = deck[:2]
            del deck[:2]
            new.append((D_KEEP, piece, seat, 0))
            return
        card = deck.pop(0)
        self.seq -= 1
        self._gain(piece, card, -1, 0)
        new.append((self.T.effect[card], piece, seat, card))

    def _return_to_bottom(self, cards: list[int], deck: list[int]) -> None:
        """Cards under a deck, two or more in a random order (``return_to_bottom``)."""
        if len(cards) > 1:
            shuffle(cards, event_stream(self.seed, self.seq), 0)
        deck.extend(cards)
        self.seq += 1

    # --- the steps the engine runs ----------------------------------------------------------
    def _run_step(self, step: Step, new: list[Step]) -> None:
        kind, piece, seat, data = step
        T = self.T
        if kind == K_INN_HAND:
            if self.slot[piece] == 0:
                meals = self.meals
                take = meals[:T.hand_size]
                if take:
                    del meals[:T.hand_size]
                    self.hand.extend(take)
                    self.seq += 1
        elif kind == K_INN_CLOSE:
            here = self.pos[piece]
            if self.hand and self.pos.count(here) == len(self.pos):
                hand = self.hand
                self.hand = []
                self._return_to_bottom(hand, self.meals)
        elif kind == K_FARM:
            self.coins[piece] += 3
            self.seq += 1
        elif kind == K_PANO:
            self._take_panorama(piece, T.space_pano[self.pos[piece]])
        elif kind == K_HOT:
            if self.springs:
                card = self.springs.pop(0)
                self._gain(piece, card, P_HOT, T.points[card])
        elif kind == K_VILLAGE:
            take = self.souvenirs[:3]
            if take:
                del self.souvenirs[:3]
                self.offer.extend(take)
                self.seq += 1
            new += ((D_BUY, piece, seat, 0), _VILLAGE_END)
        elif kind == K_VILLAGE_END:
            if self.offer:
                offer = self.offer
                self.offer = []
                self._return_to_bottom(offer, self.souvenirs)
        elif kind == K_ENCOUNTER:
            self._draw_encounter(piece, seat,
                                 T.power[self.trav[piece]] == T_YOSHIYASU, new)
        elif kind == K_UMEGAE:
            self.score[piece][P_POWER] += 1
            self.coins[piece] += 1
            self.seq += 2
        elif kind == K_HIROTADA:
            new.append((D_BANK, piece, seat, 0))
        elif kind == K_NTEMPLE:
            self.don[piece] += 1
            self.seq += 1
        elif kind == K_SHOKUNIN:
            if self.souvenirs:
                self._gain_souvenir(piece, self.souvenirs.pop(0))
        elif kind == K_SAMURAI:
            self.score[piece][P_ENC] += 3
            self.seq += 1
        elif kind == K_KUGE:
            self.coins[piece] += 3
            self.seq += 1
        elif kind == K_MIKO:
            self.don[piece] += 1
            self.score[piece][P_DON] += 1
            self.seq += 2
        elif kind == K_ANNAIBITO:
            k = T.shows[data]
            if self.sect[piece][k] < T.sections[k]:
                self._take_panorama(piece, k)
            else:
                self._choose_panorama(piece, seat, new)
        elif kind == K_HIROSHIGE:
            self._choose_panorama(piece, seat, new)
        elif kind == K_CHUUBEI:
            self._draw_encounter(piece, seat, False, new)
        elif kind == K_SATSUKI_DRAW:
            if self.meals:
                self.drawn[piece] = [self.meals.pop(0)]
                self.seq += 1
                new.append((D_SATSUKI, piece, seat, 0))
        elif kind == K_NDISCARD:
            hand = self.hand
            if hand:
                card = hand[draw_below(event_stream(self.seed, self.seq), 0, len(hand))]
                hand.remove(card)
                self.meals.append(card)
                self.seq += 1
        elif kind == K_START_COINS:
            assert self.setup is not None
            for seat_, coins in self.setup.coins.items():
                if coins != self.coins[seat_]:
                    self.coins[seat_] = coins
                    self.seq += 1
        elif kind == K_GAME_OVER:
            self.is_over = True
            self.seq += 1
        elif kind == K_END_ACH:
            self._end_achievements()
        elif kind == K_END_TEMPLE:
            points = _temple_ranking(self.don)
            for i in range(T.players):
                if points[i]:
                    self.score[i][P_RANK] += points[i]
                    self.seq += 1
        elif kind == K_INITIATION_START:
            for i in range(T.players):
                self.coins[i] += _INITIATION_COINS
                self.seq += 1
        elif kind == K_PREPARATIONS_ADJUST:
            self._adjust_for_departure()
        elif kind == K_PROMO:
            self._promo_effect(piece, seat, data, new)
        elif K_CHOOSE_OPTION <= kind <= K_LUCK_OFFER:
            self._cross_step(step, new)
        else:
            raise AssertionError(f"no step of kind {kind}")

    def _adjust_for_departure(self) -> None:
        """Preparations: the players' coins by their order of leaving the start inn
        (the last in its queue first), never below 0."""
        coins = self.coins
        slot = self.slot
        leaving = sorted(range(self.T.players), key=lambda i: -slot[i])
        for i, gain in zip(leaving, _DEPARTURE_COINS[self.T.players], strict=True):
            change = max(gain, -coins[i])
            if change:
                coins[i] += change
                self.seq += 1

    def _promo_effect(self, piece: int, seat: int | None, card: int, new: list[Step]) -> None:
        """A promo card's effect (``run_effect``): Saru's hot spring card at once; the
        others ask for 1 coin if the traveller has one and the effect would give
        something (a meal deck not empty, a panorama not complete)."""
        T = self.T
        promo = T.promo[card]
        if promo == E_SARU:
            if self.springs:
                spring = self.springs.pop(0)
                self._gain(piece, spring, P_HOT, T.points[spring])
        elif self.coins[piece] >= 1:
            if promo == E_TAKUHATSUSO:
                new.append((D_TAKUHATSUSO, piece, seat, 0))
            elif promo == E_ITAMAE:
                if self.meals:
                    new.append((D_ITAMAE, piece, seat, 0))
            elif any(self.sect[piece][k] < T.sections[k] for k in range(len(_PANORAMA_KINDS))):
                new.append((D_KITOUSHI, piece, seat, 0))

    def _end_achievements(self) -> None:
        """Gourmet, Collector, Bather, Chatterbox: to every traveller with the highest
        count (not 0)."""
        T = self.T
        seated = range(T.players)
        for name, values in zip(_END_ACHIEVEMENTS, (self.gourmet, self.ncol, self.nbath,
                                                    self.nchat), strict=True):
            best = max(values[i] for i in seated)
            if best > 0:
                card = T.achievement[name]
                for i in seated:
                    if values[i] == best:
                        self._award(i, card)

    # --- Crossroads ------------------------------------------------------------------------
    def _cross_legal(self, step: Step) -> tuple[Action, ...]:
        """The legal actions with Crossroads: the decision's own, and the amulets its
        traveller may use there (``tokaido_extra_actions``), as the engine joins them:
        each once, none if none answers the decision, sorted."""
        kind, piece, seat, data = step
        T = self.T
        if kind == D_MOVE and T.lift and self.piles[X_CHERRY] and self.seat[piece] is not None:
            done = self.done[piece]  # a completed panorama stays open for a cherry tree
            self.done[piece] = 0
            own = self._moves(piece, seat)  # type: ignore[arg-type]
            self.done[piece] = done
        else:
            own = FastGame._legal_for(self, step)
        if piece < 0 or seat is None or self.seat[piece] != seat or not self.held[piece]:
            return own
        extra: list[Action] = []
        move = kind == D_MOVE
        if move and self._usable(piece, T.friendship, True):
            extra += self._friendship_moves(piece, seat)
        if (move or T.fortune_any) and self._usable(piece, T.fortune, move):
            extra.append(T.action(FORTUNE, seat, piece))
        if (kind == D_OPTION and self._usable(piece, T.health, False)
                and (not data & 1 or T.health_where_both)):
            base = data >> 1
            extra += [T.action(OPTION, seat, piece, _OPTION_NAMES[o], True)
                      for o in (base, _CROSS_OPTION[base]) if self._available(piece, o)]
        if kind == D_MEAL and self._usable(piece, T.hospitality, False):
            extra += self._hospitality_meals(piece, seat)
        if (kind in _PURCHASE_KINDS and self._usable(piece, T.devotion, False)
                and self.devo[piece] != self.turn):
            extra.append(T.action(DEVOTION, seat, piece))
        if not extra:
            return own
        actions = list(dict.fromkeys([*own, *extra]))
        if not any(a.CONSUMES_STEP for a in actions):
            return ()
        return tuple(sorted(actions, key=Action.sort_key))

    def _usable(self, piece: int, amulet: int, move: bool) -> bool:
        """Whether ``piece`` may use ``amulet`` now (at a move decision: the next turn)."""
        if amulet not in self.held[piece]:
            return False
        return self.T.same_turn or self.turn + move > self.acq[piece][amulet]

    def _window(self, step: Step) -> bool:
        """Whether the traveller of ``step`` may use one of its amulets there, whichever
        (``amulet_window``): then even a lone answer is asked."""
        kind, piece, seat, _ = step
        if piece < 0 or seat is None or self.seat[piece] != seat:
            return False
        held = self.held[piece]
        if not held:
            return False
        if self.T.same_turn:
            return True
        current = self.turn + (kind == D_MOVE)
        acquired = self.acq[piece]
        return any(current > acquired[a] for a in held)

    def _available(self, piece: int, option: int) -> bool:
        """Whether an option of a stop can be taken now (``AVAILABLE``)."""
        T = self.T
        coins = self.coins[piece]
        if option == K_PANO:
            k = T.space_pano[self.pos[piece]]
            return self.sect[piece][k] < T.sections[k]
        if option in (D_TEMPLE, K_VILLAGE):
            return coins >= 1
        if option == K_CHERRY:
            return bool(self.piles[X_CHERRY])
        if option == K_BATH:
            return bool(self.piles[X_BATH]) and coins >= 1
        if option == K_GAMING:
            return coins >= 2
        if option == K_AMULET:
            return bool(self.piles[X_AMULET]) and (coins >= 1 or T.optional)
        if option == K_LEGENDARY:
            pile = self.piles[X_LEGENDARY]
            return any(T.price[c] <= coins for c in pile) or (T.optional and bool(pile))
        if option == K_CALLIGRAPHY:
            return bool(self.piles[X_CALLIGRAPHY]) and (coins >= 1 or T.optional)
        return True

    def _friendship_moves(self, piece: int, seat: int) -> list[Action]:
        """Stops on a single space another traveller holds alone, up to the next inn,
        where the traveller may stop (``friendship_moves``)."""
        T = self.T
        here = self.pos[piece]
        bad = (2 if self.coins[piece] < 1 else 0) | self.done[piece] << 2
        if T.lift and self.piles[X_CHERRY]:
            bad &= 3
        out: list[Action] = []
        pos = self.pos
        for q in range(here + 1, T.next_inn[here]):
            if T.slots[q] != 1 or pos.count(q) != 1:
                continue
            space = T.space[q]
            check = (1 if space in (S_TEMPLE, S_VILLAGE) else
                     2 + T.space_pano[q] if space == S_PANO else 0)
            if not bad >> check & 1:
                out.append(T.action(FRIENDSHIP, seat, piece, q, 1))
        return out

    def _hospitality_meals(self, piece: int, seat: int) -> list[Action]:
        if self.ate[piece] == self.pos[piece]:
            return []
        T = self.T
        eaten = self.eaten[piece]
        meals = [T.action(HOSPITALITY, seat, piece, T.names[m]) for m in sorted(set(self.hand))
                 if not eaten >> m & 1]
        if not meals:
            return []
        return [T.meals[seat][-1], *meals]

    def _cross_own_legal(self, kind: int, piece: int, seat: int,
                         data: int) -> tuple[Action, ...]:
        """The legal actions of a Crossroads decision (its legal function)."""
        T = self.T
        coins = self.coins[piece]
        if kind == D_OPTION:
            base = data >> 1
            return tuple(T.action(OPTION, seat, piece, _OPTION_NAMES[o])
                         for o in (base, _CROSS_OPTION[base]) if self._available(piece, o))
        if kind == D_SECOND:
            if not self._available(piece, data):
                return ()
            return (T.action(OPTION, seat, piece, None),
                    T.action(OPTION, seat, piece, _OPTION_NAMES[data]))
        if kind == D_JIROCHO:
            if coins < 1:
                return (T.action(GAMBLE, seat, piece, False),)
            return (T.action(GAMBLE, seat, piece, False), T.action(GAMBLE, seat, piece, True))
        if kind == D_LUCK:
            if coins < 1 or not self.piles[X_AMULET]:
                return ()
            return (T.action("good-luck.buy", seat, piece, False),
                    T.action("good-luck.buy", seat, piece, True))
        if kind == D_VITALITY:
            if not self._usable(piece, T.vitality, False):
                return (T.action(VITALITY, seat, piece, False),)
            return (T.action(VITALITY, seat, piece, False),
                    T.action(VITALITY, seat, piece, True))
        names = T.names
        if kind == D_TAKE_AMULET:
            type_name = AMULET
            cards = sorted(set(self.piles[X_AMULET])) if coins >= 1 else []
        elif kind == D_LEGENDARY:
            type_name = LEGENDARY
            cards = sorted({c for c in self.piles[X_LEGENDARY] if T.price[c] <= coins})
        elif kind == D_CALLIGRAPHY:
            type_name = CALLIGRAPHY
            cards = sorted(self.piles[X_CALLIGRAPHY]) if coins >= 1 else []
        else:
            raise AssertionError(f"no decision of kind {kind}")
        out = [T.action(type_name, seat, piece, names[c]) for c in cards]
        if T.optional:
            out.insert(0, T.action(type_name, seat, piece, None))
        return tuple(out)

    def _cross_apply(self, step: Step, chosen: Any, index: int, new: list[Step]) -> None:
        """Carry out a decision with Crossroads (the action's event is counted): an
        amulet used before the decision leaves it open; a move counts a turn; a purchase
        with Devotion on pays the temple."""
        T = self.T
        agenda = self.agenda
        piece = step[1]
        if not chosen.CONSUMES_STEP:  # Fortune or Devotion: the decision stays
            if chosen.TYPE == FORTUNE:
                self._spend(piece, T.fortune)
                self._gain_coins(piece, self._roll())
            else:
                self._spend(piece, T.devotion)
                self.devo[piece] = self.turn
                self.seq += 1
            new.extend(agenda)
            return
        if agenda:
            del agenda[0]
        if isinstance(chosen, Move):
            if chosen.TYPE == FRIENDSHIP:
                self._spend(piece, T.friendship)
            self._cross_move(piece, chosen.position, chosen.slot, new)
        elif chosen.TYPE == HOSPITALITY:
            self._spend(piece, T.hospitality)
            meal = T.code[chosen.meal]
            self.hand.remove(meal)
            self._eat(piece, meal)
        elif self.devo[piece] == self.turn and step[0] in (D_BUY, D_MEAL):
            self._devoted_purchase(step, chosen)
        else:
            self._resolve(step, chosen, index, new)
        new.extend(agenda)

    def _cross_move(self, piece: int, position: int, slot: int, new: list[Step]) -> None:
        """A move with Crossroads: a turn more; after a road stop of a traveller holding
        an amulet, Vitality's check. (A Friendship user, in slot 1 of a single space, is
        behind its host and so always leaves first: a single space is never held by
        slot 1 alone, and the slot bits of :meth:`_move` stay right.)"""
        T = self.T
        self._move(piece, position, slot, new)
        self.turn += 1
        seat = self.seat[piece]
        space = T.space[position]
        if seat is not None and space != S_INN and (
                self.held[piece] or (T.same_turn and space == S_TEMPLE)):
            new.append((K_VITALITY_CHECK, piece, seat, 0))

    def _spend(self, piece: int, amulet: int) -> None:
        """A used amulet goes back under the pile."""
        self.held[piece].remove(amulet)
        self.piles[X_AMULET].append(amulet)
        self.seq += 1

    def _roll(self) -> int:
        """The Fortune die (its event counted): the face, X = 0."""
        face = _DIE_FACES[draw_below(event_stream(self.seed, self.seq), 0, len(_DIE_FACES))]
        self.seq += 1
        return face

    def _gain_coins(self, piece: int, coins: int) -> None:
        if coins:
            self.coins[piece] += coins
            self.seq += 1

    def _pay(self, piece: int, amount: int, dearest: int = 0) -> None:
        """Pay for cards (``pay_for_cards``): to the bank, or with Devotion on to the
        temple; ``dearest``: the printed price of the dearest souvenir bought (0: the
        cards are not souvenirs)."""
        if amount <= 0:
            return
        if self.devo[piece] != self.turn:
            self.coins[piece] -= amount
            self.seq += 1
            return
        if self.T.devotion_stop:
            self._donate(piece, amount, 0)
            return
        if dearest:
            if amount > dearest:
                self.coins[piece] -= amount - dearest
                self.seq += 1
            self._donate(piece, min(amount, dearest), max(0, dearest - amount))
        else:
            self._donate(piece, amount, 0)
        self.devo[piece] = -1
        self.seq += 1

    def _donate(self, piece: int, coins: int, from_bank: int) -> None:
        if coins:
            self.coins[piece] -= coins
            self.seq += 1
        if coins + from_bank:
            self.don[piece] += coins + from_bank
            self.score[piece][P_DON] += coins + from_bank
            self.seq += 2

    def _devoted_purchase(self, step: Step, action: Any) -> None:
        """A village purchase or a meal with Devotion on (as ``_resolve``, paid through
        :meth:`_pay`)."""
        T = self.T
        piece = step[1]
        codes = T.code
        if step[0] == D_BUY:
            cards = [codes[name] for name in action.cards]
            prices = [T.price[c] for c in cards]
            cost = sum(prices)
            if action.discount is not None:
                cost -= T.price[codes[action.discount]] - 1
            elif len(prices) >= 2 and T.power[self.trav[piece]] == T_SASAYAKKO:
                cost -= min(prices)
            self._pay(piece, cost, max(prices, default=0))
            for card in cards:
                self.offer.remove(card)
                self._gain_souvenir(piece, card)
        elif action.meal is not None:
            meal = codes[action.meal]
            cost = T.price[meal]
            if cost and T.power[self.trav[piece]] == T_KINKO:
                cost -= 1
            self._pay(piece, cost)
            self.hand.remove(meal)
            self._eat(piece, meal)

    def _cross_resolve(self, step: Step, action: Any, new: list[Step]) -> None:
        """Carry out the answer to a Crossroads decision."""
        kind, piece, seat, data = step
        T = self.T
        if kind in (D_OPTION, D_SECOND):
            if action.option is None:
                return
            option = _OPTION_CODES[action.option]
            new.append((option, piece, seat, 0))
            if action.health:
                self._spend(piece, T.health)
            if kind == D_OPTION and (action.health or data & 1):
                base = data >> 1
                new.append((D_SECOND, piece, seat, _CROSS_OPTION[base] if option == base else base))
        elif kind == D_TAKE_AMULET:
            if action.amulet is None:
                return
            amulet = T.code[action.amulet]
            self._pay(piece, 1)
            self.piles[X_AMULET].remove(amulet)
            self.held[piece].append(amulet)
            self.acq[piece][amulet] = self.turn
            self.seq += 2
            if T.hirotada_auto and T.power[self.trav[piece]] == T_HIROTADA:
                self._bank_coin(piece)
        elif kind == D_LEGENDARY:
            if action.card is None:
                return
            card = T.code[action.card]
            self._pay(piece, T.price[card])
            if T.family[card] >= 0:
                counts = self.fam[piece]
                held = counts[T.family[card]]
                points, category = 2 * sum(1 for n in counts if n > held) + 1, P_SOUV
            elif T.scroll[card]:
                xc = self.xc[piece]
                points, category = xc[0] + xc[1], P_LEG
            else:
                points, category = T.points[card], P_LEG
            self.piles[X_LEGENDARY].remove(card)
            self._gain(piece, card, category, points)
        elif kind == D_CALLIGRAPHY:
            if action.card is None:
                return
            card = T.code[action.card]
            self._pay(piece, 1)
            self.piles[X_CALLIGRAPHY].remove(card)
            self._gain(piece, card, -1, 0)
        elif kind == D_JIROCHO:
            if action.stake:
                self.coins[piece] -= 1
                self.seq += 1
                self._gain_coins(piece, self._roll())
        elif kind == D_VITALITY:
            if action.use:
                self._spend(piece, T.vitality)
                new.append((D_MOVE, piece, seat, 0))
        elif kind == D_LUCK:
            if action.buy:
                self._pay(piece, 1)
                pile = self.piles[X_AMULET]
                amulet = pile[draw_below(event_stream(self.seed, self.seq), 0, len(pile))]
                pile.remove(amulet)
                self.held[piece].append(amulet)
                self.acq[piece][amulet] = self.turn
                self.seq += 2
        else:
            raise AssertionError(f"no decision of kind {kind}")

    def _cross_step(self, step: Step, new: list[Step]) -> None:
        """Run a Crossroads step."""
        kind, piece, seat, data = step
        T = self.T
        if kind == K_CHOOSE_OPTION:
            cross = _CROSS_OPTION[data]
            if not (self._available(piece, data) or self._available(piece, cross)):
                return
            power = T.power[self.trav[piece]]
            both = ((power == T_MIYATAKA and data == D_TEMPLE)
                    or (power == T_KITA and data == K_ENCOUNTER))
            new.append((D_OPTION, piece, seat, data * 2 + both))
        elif kind == K_CHERRY:
            card = self.piles[X_CHERRY].pop(0)
            self._gain(piece, card, P_CHERRY, T.points[card])
            self._gain_coins(piece, 1)
        elif kind == K_BATH:
            self._pay(piece, 1)
            card = self.piles[X_BATH].pop(0)
            self._gain(piece, card, P_BATH, T.points[card])
        elif kind == K_GAMING:
            self.coins[piece] -= 2
            self.seq += 1
            self._gain_coins(piece, 2 * self._roll())
        elif kind == K_AMULET:
            new.append((D_TAKE_AMULET, piece, seat, 0))
        elif kind == K_LEGENDARY:
            new.append((D_LEGENDARY, piece, seat, 0))
        elif kind == K_CALLIGRAPHY:
            new.append((D_CALLIGRAPHY, piece, seat, 0))
        elif kind == K_GOTO:
            self._gain_coins(piece, 1)
        elif kind == K_DAIGORO:
            if self.souvenirs:
                self._gain_souvenir(piece, self.souvenirs.pop(0))
        elif kind == K_VITALITY_CHECK:
            if T.space[self.pos[piece]] == S_INN:
                return
            order = self.order
            if order.index(max(order)) == piece and self._window(step):
                new.append((D_VITALITY, piece, seat, 0))
        elif kind == K_LUCK_OFFER:  # in departure order: the last of the queue first
            seated = sorted(range(T.players), key=lambda i: -self.slot[i])
            new += [(D_LUCK, i, self.seat[i], 0) for i in seated]
        elif kind == K_END_CALLIGRAPHY:
            for i in range(T.players):
                for card in self.calli[i]:
                    points = self._calligraphy_points(i, card)
                    if points:
                        self.score[i][P_CALLI] += points
                        self.seq += 1
        else:
            raise AssertionError(f"no step of kind {kind}")

    def _thin_piles(self) -> None:
        """Rare & Precious: random cards of each pile leave the game until 4 (2-3
        players) or 5 are left (``run_remove``), then the cards in play are noted."""
        keep = 4 if self.T.players <= 3 else 5
        for x in _RARE_ORDER:
            pile = self.piles[x]
            while len(pile) > keep:
                pile.remove(pile[draw_below(event_stream(self.seed, self.seq), 0, len(pile))])
                self.seq += 1
        self.seq += 1

    def _cross_gained(self, piece: int, card: int, kind: int) -> None:
        """Crossroads' part of a card gained (its ``tokaido_card_gained``): Nampo's meal
        bonus, Shodo's and Emaki's later-souvenir bonus; and the counts its scoring needs."""
        T = self.T
        xc = self.xc[piece]
        if kind == C_SOUVENIR:
            xc[0] += 1
            if xc[3]:
                self.score[piece][P_LEG] += xc[3]
                self.seq += 1
        elif kind == C_LEGENDARY:
            xc[1] += 1
            if T.family[card] >= 0:
                self.fam[piece][T.family[card]] += 1
            if T.scrolls_count_legendary and xc[3]:
                self.score[piece][P_LEG] += xc[3]
                self.seq += 1
            xc[3] += T.scroll[card]
        elif kind == C_MEAL:
            if T.power[self.trav[piece]] == T_NAMPO and T.price[card]:
                self.score[piece][P_POWER] += T.price[card]
                self.seq += 1
        elif kind == C_CHERRY:
            xc[2] += 1
        elif kind == C_CALLIGRAPHY:
            self.calli[piece].append(card)

    def _calligraphy_points(self, piece: int, card: int) -> int:
        """What a calligraphy card scores at the end (``calligraphy_points``)."""
        T = self.T
        rule = T.calligraphy_rule[card]
        xc = self.xc[piece]
        if rule == 0:  # Foresight
            return 2 * self.coins[piece]
        if rule == 1:  # Contemplation
            complete = sum(1 for k, n in enumerate(self.sect[piece]) if n == T.sections[k])
            return 3 * complete + xc[2]
        if rule == 2:  # Nostalgia
            return 2 * xc[1] + xc[0]
        if rule == 3:  # Patience: by the order of arrival at the final inn
            from_last = T.pieces - 1 - self.slot[piece]
            return 6 if from_last == 0 else 4 if from_last == 1 else 2
        if rule == 4:  # Perfection
            return 2 * self.nach[piece] + len(self.calli[piece])
        return 3 * max(0, 4 - bin(self.eaten[piece]).count("1") + xc[4])  # Fasting: inn meals


class _CrossroadsGame(FastGame):
    """A game with Crossroads (:meth:`FastGame.new` makes one for such a ruleset): the
    entry points Crossroads changes throughout are its own, so that the base game pays
    nothing for them: amulets join the legal actions of any decision
    (:meth:`FastGame._cross_legal`), an action is carried out by
    :meth:`FastGame._cross_apply` (moves count turns, amulets used leave the decision
    open, Devotion redirects payments), a card gained scores Crossroads' bonuses, and a
    copy copies its state. Its rules live in :class:`FastGame`'s Crossroads methods."""

    __slots__ = ()
    _AMULETS = True

    def legal_actions(self) -> tuple[Action, ...]:
        legal = self._legal
        if legal is None:
            step = self._step
            legal = self._legal = () if step is None else self._cross_legal(step)
        return legal

    def _legal_for(self, step: Step) -> tuple[Action, ...]:
        return self._cross_legal(step)

    def apply(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        if expected_seq is not None and expected_seq != self.seq:
            raise StaleActionError(
                f"the action was sent at seq {expected_seq}; the game is at seq {self.seq}")
        step = self._step
        if step is None:
            raise IllegalActionError("the game is over")
        legal = self.legal_actions()
        for index, candidate in enumerate(legal):  # noqa: B007
            if candidate is action:
                break
        else:
            index = self._matching(legal, action)
        chosen = legal[index]
        self._decisions.append(chosen)
        self.seq += 1  # the action's event
        new: list[Step] = []
        self._cross_apply(step, chosen, index, new)
        self._run(new)
        return self

    def clone(self) -> FastGame:
        new = FastGame.clone(self)  # a _CrossroadsGame: clone makes the type of its game
        assert isinstance(new, _CrossroadsGame)
        new.turn = self.turn
        new.piles = [pile[:] for pile in self.piles]
        new.held = [h[:] for h in self.held]
        new.acq = [dict(a) for a in self.acq]
        new.devo = self.devo[:]
        new.xc = [x[:] for x in self.xc]
        new.calli = [c[:] for c in self.calli]
        return new

    def _gain(self, piece: int, card: int, category: int, points: int) -> None:
        FastGame._gain(self, piece, card, category, points)
        self._cross_gained(piece, card, self.T.kind[card])


def _make_game(kind: type[FastGame], players: int, seed: int,
               plugins: Ruleset | Iterable[str | object], travellers: Sequence[str] | None,
               options: Mapping[str, object] | None, setup: Setup | None) -> FastGame:
    """A new game of class ``kind`` (:meth:`FastGame.new`); a plain FastGame of a
    Crossroads ruleset is a :class:`_CrossroadsGame`."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        from .errors import SetupError

        raise SetupError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    if kind is FastGame:
        ruleset = _ruleset(plugins, options)
        if "crossroads" in ruleset.ids:
            kind = _CrossroadsGame
        return kind()._made(players, seed, ruleset, travellers, None, setup)
    return kind()._made(players, seed, plugins, travellers, options, setup)


# --- proving it: the fast game beside the reference, decision by decision --------------------


@frozen
class DifferentialReport:
    """What :func:`differential` found: games and decisions compared, and the first
    difference of each game that had one (empty: every game was the same)."""

    games: int
    decisions: int
    differences: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        head = (f"{self.games} games, {self.decisions} decisions: "
                + ("all equal" if self.ok else f"{len(self.differences)} games differ"))
        return "\n".join([head, *self.differences])


def differential(players: int | Iterable[int], seeds: Iterable[int], *,
                 plugins: Ruleset | Iterable[str | object] = ("base",),
                 options: Mapping[str, object] | None = None,
                 travellers: bool = False, policy: str = "random", logs: bool = True,
                 setup: Setup | None = None, stop_after: int = 10) -> DifferentialReport:
    """Play each seed at each player count on the fast simulator and on the reference
    engine side by side, random decisions (a :class:`random.Random` seeded from the game
    seed), comparing at every decision the seat to play, the legal actions (the same
    tuple, in the same order) and the count of events; at the end the scores and, with
    ``logs``, the reference log of :meth:`FastGame.to_game` with the reference game's,
    byte for byte. ``travellers``: each game's travellers are chosen from its seed and
    given (``new_game(travellers=...)``) instead of offered (Initiation has none to
    give: its games are played as they are). ``policy``: how decisions
    are chosen, ``"random"``, ``"eager"`` or ``"seek"`` (:class:`_Policy`: the last two
    play rarer paths, such as decks that run out). Stops after ``stop_after`` games that differ."""
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {sorted(_POLICIES)}, not {policy!r}")
    import random

    ruleset = _ruleset(plugins, options)
    counts = (players,) if isinstance(players, int) else tuple(players)
    seeds = tuple(seeds)
    games = decisions = 0
    differences: list[str] = []
    for n in counts:
        for seed in seeds:
            rng = random.Random(seed * 7919 + n)
            names = (tuple(rng.sample(sorted(ruleset.registry.travellers), n))
                     if travellers and "initiation" not in ruleset.ids else None)
            games += 1
            choose = _Policy(policy, rng, ruleset.registry.board)
            found, made = _differ(n, seed, ruleset, names, choose, logs, setup)
            decisions += made
            if found is not None:
                differences.append(f"{n} players, seed {seed}: {found}")
                if len(differences) >= stop_after:
                    return DifferentialReport(games, decisions, tuple(differences))
    return DifferentialReport(games, decisions, tuple(differences))


class _Policy:
    """How :func:`differential` chooses: ``"random"`` uniformly; ``"eager"`` mostly the
    nearest stop and the last action of other decisions (the most souvenirs, a meal, the
    largest donation); ``"seek"`` as eager, but stopping first at spaces of one or two
    kinds drawn for the game (encounters, hot springs, villages, ...), so decks run out."""

    def __init__(self, name: str, rng: Any, board: Sequence[Any]) -> None:
        self.name = name
        self.rng = rng
        self.targets: frozenset[int] = frozenset()
        if name == "seek":
            kinds = rng.sample(("encounter", "hot_spring", "village", "farm", "temple"), 2)
            self.targets = frozenset(i for i, s in enumerate(board) if s.kind in kinds)

    def __call__(self, legal: tuple[Action, ...]) -> int:
        rng = self.rng
        if self.name == "random" or rng.random() < 0.2:
            return int(rng.randrange(len(legal)))
        if isinstance(legal[0], Move):
            for i, move in enumerate(legal):
                if isinstance(move, Move) and move.position in self.targets:
                    return i
            return 0
        return len(legal) - 1


_POLICIES = ("random", "eager", "seek")


def _differ(players: int, seed: int, ruleset: Ruleset, travellers: tuple[str, ...] | None,
            choose: _Policy, logs: bool,
            setup: Setup | None = None) -> tuple[str | None, int]:
    """The first difference of one game (``None``: none), and the decisions compared."""
    game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers, setup=setup)
    fast = FastGame.new(players, seed=seed, plugins=ruleset, travellers=travellers,
                        setup=setup)
    return compare(game, fast, choose, logs)


def compare(game: Game, fast: FastGame, choose: Callable[[tuple[Action, ...]], int],
            logs: bool = True) -> tuple[str | None, int]:
    """Play ``game`` and ``fast`` side by side to the end, ``choose`` picking the index
    of each decision among the legal actions: the first difference (``None``: none; see
    :func:`differential`), and the decisions compared. ``logs``: compare the log of
    :meth:`FastGame.to_game` with the reference game's at the end."""
    made = 0
    while True:
        where = f"decision {made} (seq {game.state.seq})"
        if fast.state_seq != game.state.seq:
            return f"{where}: the fast game is at seq {fast.state_seq}", made
        if fast.current_player != game.current_player or fast.is_over != game.is_over:
            return (f"{where}: seat {fast.current_player} (over: {fast.is_over}) to play, "
                    f"not {game.current_player} (over: {game.is_over})"), made
        expected = game.legal_actions()
        got = fast.legal_actions()
        if got != expected:
            return f"{where}: legal {list(map(str, got))}, not {list(map(str, expected))}", made
        if game.is_over:
            break
        index = choose(expected)
        game = game.apply(expected[index])
        fast.apply(got[index])
        made += 1
    if fast.scores() != game.scores():
        return f"at the end: scores {fast.scores()}, not {game.scores()}", made
    if logs and dump_log(fast.to_game()) != dump_log(game):
        return "at the end: the log of to_game() is not the reference log", made
    return None, made


# --- views straight from the flat state: their tables and the records they read ---------------
# (FastGame.view; the builder itself is FastGame._direct_view)

_VIEW_PLUGINS = frozenset({"base", "bga"})
"""The plugins whose views :meth:`FastGame.view` builds itself (with the option values
of :data:`_VIEW_OPTIONS`); any other ruleset's views come from the replay."""
_VIEW_OPTIONS: dict[str, tuple[object, ...]] = {
    "base.meal_hand": ("players_plus_one", "players"),
    "base.hirotada_bank_coin": ("choice", "auto"),
    "base.zenemon_discount": ("choice", "most_expensive"),
    "base.panorama_choice_optional": (False, True),
}
_VIEW_DATA = frozenset({"base.offer.", "base.meal_at."})
"""The data keys (prefixes) the builder knows: the travellers offered, where each ate."""
_DECK_SOURCES = {_SOUVENIRS: "souvenirs", _MEALS: "meals", _HOT_SPRINGS: "springs",
                 _ENCOUNTERS: "encounters"}
"""The shuffled decks, by zone, and the list of the flat state that holds each."""
_VILLAGE, _INN_HAND, _DRAWN = "base.village", "base.inn_hand", "base.drawn"
_COUNTERS = ("base.donation", "base.inn_meals")
"""The counters of a traveller, in the order of :attr:`_Chronicle.counter_order`."""
_RUN_KINDS: dict[int, str] = {
    K_FARM: "base.farm", K_PANO: "base.panorama", K_HOT: "base.hot_spring",
    K_VILLAGE: "base.village", K_VILLAGE_END: "base.village_end",
    K_ENCOUNTER: "base.encounter", K_UMEGAE: "base.umegae", K_HIROTADA: "base.hirotada",
    K_NTEMPLE: "base.neutral_temple", K_HIROSHIGE: "base.hiroshige", K_CHUUBEI: "base.chuubei",
    K_SATSUKI_DRAW: "base.satsuki_draw", K_INN_HAND: "base.inn_hand",
    K_NDISCARD: "base.neutral_discard", K_INN_CLOSE: "base.inn_close",
    K_START_COINS: "core.start_coins", K_GAME_OVER: "core.game_over",
    K_END_ACH: "base.end_achievements", K_END_TEMPLE: "base.end_temple",
    **{kind: name for name, kind in _EFFECT_KINDS.items()}, **_DECISION_KINDS}
"""The reference's step kind of every step kind of the base game."""
# Where a zone's cards are (_ViewTables.source) and who sees them (_ViewTables.zone_rule).
_FROM_GAME, _FROM_DRAWN, _FROM_COLLECTION, _FROM_SUPPLY = range(4)
_HIDDEN, _SHOWN, _OWNER, _HAND_RULE = range(4)

_new = object.__new__
_set = object.__setattr__


class _ViewTables:
    """What the direct view of one ruleset and player count reads: every zone the game
    can have, numbered (the decks first, in the order the setup makes them), where its
    cards are and who may see them; the data keys and who sees them; the reference step
    of each step. ``direct`` is false where the builder does not know the ruleset's
    views (:func:`_view_tables` says why): :meth:`FastGame.view` replays then."""

    def __init__(self, T: _Tables) -> None:
        self.T = T
        self.direct = False
        self.zone_names: list[str] = []
        self.source: list[tuple[int, str | int]] = []
        self.zone_rule: list[int] = []
        self.zone_owner: list[int] = []
        self.deck_codes: tuple[int, ...] = ()
        self.supplies: dict[int, list[int]] = {}
        """The cards of each deck the flat state does not keep (unshuffled supplies:
        panoramas, achievements), at the start, by zone number."""
        self.supply_of: list[int] = []
        """Per card, the zone number of the supply it is taken from (-1: none)."""
        self.village = self.hand = self.drawn = self.collection = -1
        """The zone numbers of the village offer, the inn's hand, ``drawn.0`` and
        ``collection.0`` (those of piece ``i``: plus ``i``)."""
        self.categories = _CATEGORIES
        self.counters = _COUNTERS
        self.offer_keys: tuple[str, ...] = ()
        self.meal_keys: tuple[str, ...] = ()
        self.offer_rule: list[int] = []
        self.offer_owner: list[int] = []
        self.meal_rule: list[int] = []
        self.meal_owner: list[int] = []
        self.options_order: tuple[int, ...] = ()
        """The panorama types (their numbers here) in the order the reference lists a
        choice's options."""
        self.steps: dict[Step, Any] = {}

    def add_zone(self, name: str, how: int, where: str | int) -> int:
        self.zone_names.append(name)
        self.source.append((how, where))
        return len(self.zone_names) - 1

    def step(self, step: Step) -> Any:
        """The reference :class:`~tokaido_rules.model.Step` of a step (made once)."""
        from .model import Step as RefStep

        kind, piece, seat, data = step
        values: dict[str, Any] = {}
        if K_SHOKUNIN <= kind <= K_ANNAIBITO:
            values = {"card": self.T.names[data]}
        elif kind == D_PANO:
            values = {"options": tuple(_PANORAMA_KINDS[k] for k in self.options_order
                                       if data >> k & 1)}
        found = self.steps[step] = RefStep(_RUN_KINDS[kind], piece, seat, values)
        return found


def _rule_code(rule: object, name: str) -> tuple[int, int] | None:
    """A visibility rule, resolved for ``name``, as (rule code, owning piece); ``None``
    for a rule the builder does not know."""
    from .visibility import _resolve

    resolved = _resolve(rule, name)  # type: ignore[arg-type]
    if resolved is True:
        return _SHOWN, -1
    if resolved is False:
        return _HIDDEN, -1
    if type(resolved) is int:
        return _OWNER, resolved
    if (getattr(resolved, "__module__", None) == "tokaido_base.rules"
            and getattr(resolved, "__qualname__", None) == "inn_hand_visible"):
        return _HAND_RULE, -1
    return None


def _view_tables(T: _Tables) -> _ViewTables:
    """The tables of the direct view, made once per ruleset and player count, with the
    explicit check of what the builder knows: only the plugins of :data:`_VIEW_PLUGINS`
    with option values of :data:`_VIEW_OPTIONS`, the zones and data keys the base game
    registers with the visibility rules it gives them, decks the flat state keeps or
    unshuffled supplies. Anything else: ``direct`` stays false (views by replay)."""
    from .visibility import _data_rule, _zone_rule

    V = _ViewTables(T)
    T.view_tables = V
    ruleset = T.ruleset
    registry = ruleset.registry
    if not set(ruleset.ids) <= _VIEW_PLUGINS or not all(
            name in _VIEW_OPTIONS and value in _VIEW_OPTIONS[name]
            for name, value in ruleset.options.items()):
        return V
    if not set(registry.data_keys) <= _VIEW_DATA:
        return V
    known_zones = {*(spec.zone for spec in registry.decks.values()), _VILLAGE, _INN_HAND,
                   _DRAWN, "core.collection", "core.secret"}
    if not set(registry.zones) <= known_zones:
        return V
    supply_of = [-1] * len(T.names)
    for zone, cards, shuffled in T.decks:
        attribute = _DECK_SOURCES.get(zone)
        if attribute is not None:
            V.add_zone(zone, _FROM_GAME, attribute)
        elif shuffled:
            return V  # a shuffled deck the flat state does not keep
        else:
            code = V.add_zone(zone, _FROM_SUPPLY, len(V.zone_names))
            V.supplies[code] = list(cards)
            for card in cards:
                if supply_of[card] not in (-1, code):
                    return V  # a card in two supplies
                supply_of[card] = code
    V.supply_of = supply_of
    V.deck_codes = tuple(range(len(V.zone_names)))
    V.village = V.add_zone(_VILLAGE, _FROM_GAME, "offer")
    V.hand = V.add_zone(_INN_HAND, _FROM_GAME, "hand")
    V.drawn = len(V.zone_names)
    for i in range(T.pieces):
        V.add_zone(f"{_DRAWN}.{i}", _FROM_DRAWN, i)
    V.collection = len(V.zone_names)
    for i in range(T.pieces):
        V.add_zone(f"core.collection.{i}", _FROM_COLLECTION, i)
    for name in V.zone_names:
        found = _rule_code(_zone_rule(registry.zones, name), name)
        if found is None:
            return V
        V.zone_rule.append(found[0])
        V.zone_owner.append(found[1])
    V.offer_keys = tuple(f"base.offer.{i}" for i in range(T.players))
    V.meal_keys = tuple(f"base.meal_at.{i}" for i in range(T.pieces))
    keys: tuple[str, ...]
    for keys, rules, owners in ((V.offer_keys, V.offer_rule, V.offer_owner),
                                (V.meal_keys, V.meal_rule, V.meal_owner)):
        for key in keys:
            found = _rule_code(_data_rule(registry.data_keys, key), key)
            if found is None or found[0] == _HAND_RULE:
                return V
            rules.append(found[0])
            owners.append(found[1])
    order: list[int] = []  # the panorama types in the order of the supply (the plugin's)
    for code in V.supplies:
        for card in V.supplies[code]:
            if T.kind[card] == C_PANORAMA:
                k = _PANORAMA_KINDS.index(T.names[card].rsplit(".", 1)[0])
                if k not in order:
                    order.append(k)
    if sorted(order) != list(range(len(_PANORAMA_KINDS))):
        return V
    V.options_order = tuple(order)
    V.direct = True
    return V


_Common = tuple[int, tuple[Piece, ...], list[tuple[str, tuple[str, ...], int, int]],
                FrozenMap[str, int]]
"""What every seat's view shows alike at one point (:meth:`FastGame._view_common`)."""


def views_direct(ruleset: Ruleset, players: int) -> bool:
    """Whether :meth:`FastGame.view` builds the views of ``ruleset``'s games of
    ``players`` from the flat state (else it replays each game: :func:`_view_tables`);
    false for a ruleset the simulator does not cover."""
    if not covers(ruleset) or type(players) is not int or not 2 <= players <= 5:
        return False
    T = _tables(ruleset, players)
    V = T.view_tables
    if V is None:
        V = _view_tables(T)
    return V.direct


class _Chronicle:
    """What a view needs that the flat state does not keep, recorded as a
    :class:`ViewableGame` plays: the zones in the order they were first filled (after
    the decks), each collection in acquisition order, the supplies, per traveller the
    order in which its score categories and counters first appeared, the pieces in the
    order of their first meal (the data key of where each ate), the moves made, and the
    last view made (a view is asked several times at one decision)."""

    __slots__ = (
        "collections",
        "common",
        "counted",
        "counter_order",
        "data_order",
        "last_view",
        "made",
        "named",
        "score_order",
        "scored",
        "supplies",
        "tables",
        "turn",
        "zones",
    )

    def __init__(self, V: _ViewTables, setup: Setup | None, *, blank: bool = False) -> None:
        """The records of a game at its setup; ``blank``: to be filled by :meth:`copy`."""
        self.tables = V
        if blank:
            return
        n = V.T.pieces
        self.zones: list[int] = []
        self.made = 0
        """A bit per zone number of the zones in :attr:`zones`."""
        self.collections: list[list[int]] = [[] for _ in range(n)]
        self.supplies = {code: cards[:] for code, cards in V.supplies.items()}
        if setup is not None and setup.stacks:  # cards stacked on a supply (as _start does)
            T = V.T
            for code, cards in self.supplies.items():
                top = setup.stacks.get(V.zone_names[code])
                if top:
                    stacked = [T.code[c] for c in top]
                    for c in stacked:
                        cards.remove(c)
                    cards[:0] = stacked
        self.score_order: list[list[int]] = [[] for _ in range(n)]
        self.scored = [0] * n
        self.counter_order: list[list[int]] = [[] for _ in range(n)]
        self.counted = [0] * n
        self.data_order: list[int] = []
        self.turn = 0
        self.last_view: tuple[int, int | None, View] | None = None
        self.common: _Common | None = None
        """What the views of every seat share, at one point (its seq first)."""
        self.named: dict[int, tuple[tuple[int, ...], tuple[str, ...]]] = {}
        """By zone number, its cards last named for a view, as codes and as names (the
        same tuple of names while they do not change: card backs are counted once)."""

    def copy(self) -> _Chronicle:
        new = _Chronicle(self.tables, None, blank=True)
        new.zones = self.zones[:]
        new.made = self.made
        new.collections = [c[:] for c in self.collections]
        new.supplies = {code: cards[:] for code, cards in self.supplies.items()}
        new.score_order = [o[:] for o in self.score_order]
        new.scored = self.scored[:]
        new.counter_order = [o[:] for o in self.counter_order]
        new.counted = self.counted[:]
        new.data_order = self.data_order[:]
        new.turn = self.turn
        new.last_view = self.last_view
        new.common = self.common
        new.named = self.named.copy()
        return new

    def fill(self, code: int) -> None:
        """Zone ``code`` holds cards: the first time, it joins the state's zones."""
        if not self.made >> code & 1:
            self.made |= 1 << code
            self.zones.append(code)

    def notice(self, game: FastGame, piece: int) -> None:
        """Record what first appeared for ``piece`` (every piece: -1) since the last
        notice: zones filled, score categories and counters, a first meal. Called after
        each card gained, step run and decision resolved, which each make at most one
        thing appear per mapping (a card gained: its category before Mitsukuni's point,
        the order of the scores' categories here)."""
        V = self.tables
        if game.offer:
            self.fill(V.village)
        if game.hand:
            self.fill(V.hand)
        for i in range(len(game.pos)) if piece < 0 else (piece,):
            if game.drawn[i]:
                self.fill(V.drawn + i)
            score = game.score[i]
            scored = self.scored[i]
            for k in range(len(score)):
                if score[k] and not scored >> k & 1:
                    scored |= 1 << k
                    self.score_order[i].append(k)
            self.scored[i] = scored
            counted = self.counted[i]
            if counted != 3:
                if game.don[i] and not counted & 1:
                    counted |= 1
                    self.counter_order[i].append(0)
                if game.eaten[i] and not counted & 2:
                    counted |= 2
                    self.counter_order[i].append(1)
                    self.data_order.append(i)  # a first meal: where it ate, a data key
                self.counted[i] = counted


class ViewableGame(FastGame):
    """A :class:`FastGame` that records, as it plays, what its views need beyond the
    flat state (:class:`_Chronicle`), so that :meth:`view` builds each view without a
    replay. The same games, the same actions; each step costs a little more. What the
    RL environments play on the fast path; a plain FastGame keeps one of these to replay
    its decisions when first viewed. For a ruleset whose views are not built directly
    (:func:`_view_tables`), :meth:`new` makes a plain FastGame (its views replay)."""

    __slots__ = ()

    _chronicle: _Chronicle

    @classmethod
    def new(cls, players: int, seed: int = 0,
            plugins: Ruleset | Iterable[str | object] = ("base",),
            travellers: Sequence[str] | None = None,
            options: Mapping[str, object] | None = None,
            setup: Setup | None = None) -> FastGame:
        """As :meth:`FastGame.new`; for a ruleset whose views are not built directly
        (:func:`views_direct`), a plain :class:`FastGame`: there is nothing to record."""
        ruleset = _ruleset(plugins, options)
        if covers(ruleset) and type(players) is int and 2 <= players <= 5 and not (
                views_direct(ruleset, players)):
            return _make_game(FastGame, players, seed, ruleset, travellers, None, setup)
        return _make_game(ViewableGame, players, seed, ruleset, travellers, None, setup)

    def _start(self, T: _Tables, seed: int, travellers: tuple[str, ...] | None,
               setup: Setup | None) -> None:
        V = T.view_tables
        if V is None:
            V = _view_tables(T)
        self._chronicle = _Chronicle(V, setup)
        FastGame._start(self, T, seed, travellers, setup)

    def clone(self) -> ViewableGame:
        new = FastGame.clone(self)  # a ViewableGame: clone makes the type of its game
        assert isinstance(new, ViewableGame)
        new._chronicle = self._chronicle.copy()
        return new

    def applied(self, action: Action, *, expected_seq: int | None = None) -> ViewableGame:
        return self.clone().apply(action, expected_seq=expected_seq)  # type: ignore[return-value]

    def _gain(self, piece: int, card: int, category: int, points: int) -> None:
        FastGame._gain(self, piece, card, category, points)
        book = self._chronicle
        V = book.tables
        book.fill(V.collection + piece)
        book.collections[piece].append(card)
        supply = V.supply_of[card] if V.supply_of else -1
        if supply >= 0:
            book.supplies[supply].remove(card)
        book.notice(self, piece)

    def _run_step(self, step: Step, new: list[Step]) -> None:
        FastGame._run_step(self, step, new)
        self._chronicle.notice(self, step[1])

    def _resolve(self, step: Step, action: Any, index: int, new: list[Step]) -> None:
        FastGame._resolve(self, step, action, index, new)
        self._chronicle.notice(self, step[1])

    def _move(self, piece: int, position: int, slot: int, new: list[Step]) -> None:
        FastGame._move(self, piece, position, slot, new)
        self._chronicle.turn += 1


def compiled() -> bool:
    """Whether the simulator in use is the compiled build (``tokaido build-fast``, see
    :mod:`tokaido_rules.native`): the same code, compiled by mypyc, faster."""
    return _BUILT_FROM is not None


def _use_compiled() -> None:
    """Take every name of this module from the compiled build when there is one, built
    from this very source (a build left over from an older source is ignored), unless
    ``TOKAIDO_PURE_PYTHON`` is set in the environment."""
    import hashlib
    import os

    if os.environ.get("TOKAIDO_PURE_PYTHON"):
        return
    try:
        from . import _fast_compiled as built  # type: ignore[attr-defined]
    except ImportError:
        return
    with open(__file__, "rb") as source:
        if hashlib.sha256(source.read()).hexdigest() != built._BUILT_FROM:
            return
    namespace = globals()
    for name, value in vars(built).items():
        if not name.startswith("__"):
            namespace[name] = value


if __name__ == "tokaido_rules.fast":  # not in the compiled copy itself
    _use_compiled()

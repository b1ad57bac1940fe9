"""The rule options of RULES.md 8 that differ online, each with its printed (default) and
online (``bga`` or explicit) value, and their interactions with travellers and amulets.

Covered options: ``crossroads.devotion``, ``crossroads.optional_purchase``,
``crossroads.health_where_both``, ``crossroads.fortune_timing`` (with
``crossroads.amulet_same_turn``), ``base.panorama_choice_optional`` and
``base.hirotada_bank_coin``. The reproductions of the issue come first, with its own
helpers (actions chosen by their text).

A traveller holding an amulet it may use now is asked every decision, even one with a
single answer (RULES.md 7: which amulet is held stays secret); forced answers are otherwise
taken by the engine, recorded after a ``core.automatic`` event.

Base-only parts (Hirotada, Hiroshige, Annaibito) are here too: a second module of the same
name under ``tests/plugins/base`` would clash (the test folders are not packages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from itertools import pairwise
from typing import Any

import pytest

import scenario
from scenario import act, coins, collection, legal, move, moving_piece, points, start
from tokaido_base import AddBankCoin, BuyMeal, BuySouvenirs, ChoosePanorama, Donate
from tokaido_crossroads import (
    BuyLegendary,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseDevotion,
    UseFortune,
    UseVitality,
)
from tokaido_rules import Action, Automatic, Game, Setup, Step, new_game

BASE = ("base",)
BASE_BGA = ("base", "bga")
CR = ("base", "crossroads")
CR_BGA = ("base", "crossroads", "bga")
GOOD_LUCK = ("base", "crossroads", "good-luck")
GOOD_LUCK_BGA = ("base", "crossroads", "good-luck", "bga")
TWO = ["mitsukuni", "yoshiyasu"]
FIRST = (1, 2, 0)  # 2 players: piece 0 leaves Kyoto first, then the neutral, then piece 1
QUEUE4 = (3, 2, 1, 0)  # 4 players: piece 0 leaves Kyoto first
PILE = "crossroads.amulets"
LEGENDARY = "crossroads.legendary"
CALLIGRAPHY = "crossroads.calligraphy"
DONATION = "base.donation"
DIE = "die.crossroads.fortune"
ENCOUNTERS = "base.encounters"
SOUVENIRS = "base.souvenirs"
MEALS = "base.meals"
ANY_TIME = {"crossroads.fortune_timing": "any_time_in_turn"}
BEFORE_MOVE = {"crossroads.fortune_timing": "before_move"}
ALL_AMULETS = ("devotion", "fortune", "friendship", "health", "hospitality", "vitality")
ALL_CALLIGRAPHY = ("contemplation", "fasting", "foresight", "nostalgia", "patience",
                   "perfection")


# --- helpers ------------------------------------------------------------------------------


def do(game: Game, text: str) -> Game:
    """Apply the legal action whose text is ``text`` (the issue's helper)."""
    for action in game.legal_actions():
        if str(action) == text:
            return game.apply(action)
    raise AssertionError(f"{text!r} not legal: {[str(a) for a in game.legal_actions()]}")


def texts(game: Game) -> set[str]:
    return {str(a) for a in game.legal_actions()}


def step(game: Game) -> Step:
    current = game.current_step
    assert current is not None
    return current


def kind(game: Game) -> str:
    return step(game).kind


def donated(game: Game, piece: int = 0) -> int:
    return game.state.pieces[piece].counter(DONATION)


def delta(before: Game, after: Game, piece: int = 0) -> dict[str, int]:
    """What a traveller gained between two points: coins, temple donation, points."""
    a, b = before.state.pieces[piece], after.state.pieces[piece]
    return {"coins": b.coins - a.coins,
            "donation": b.counter(DONATION) - a.counter(DONATION),
            "points": b.total - a.total}


def stay(game: Game) -> Game:
    """Answer "stay" if piece 0 is asked about Vitality (in the lead, holding an amulet
    usable now: with ``crossroads.amulet_same_turn`` right after buying one)."""
    if kind(game) == "crossroads.vitality" and moving_piece(game) == 0:
        assert UseVitality(0, 0, False) in game.legal_actions()
        return act(game, UseVitality, use=False)
    return game


def others_ahead(game: Game, stops: Sequence[tuple[int, int]] = ((1, 10), (2, 11), (3, 12))
                 ) -> Game:
    """Seats 1-3 move to ``stops`` and take their first answer there (the issue's helper,
    which then leaves piece 0 last)."""
    for seat, pos in stops:
        game = do(game, f"seat {seat}: move traveller {seat} to {pos}")
        while kind(game) != "core.move" and moving_piece(game) == seat:
            game = game.apply(game.legal_actions()[0])
    return game


def issue_game(travellers: Sequence[str], plugins: Sequence[str], *, coins0: int,
               stacks: Mapping[str, Sequence[str]] | None = None,
               options: Mapping[str, object] | None = None,
               chance: Mapping[str, Sequence[Any]] | None = None) -> Game:
    """4 players as in the issue: piece 0 leaves Kyoto first."""
    setup = Setup(travellers=tuple(travellers), queue=QUEUE4, coins={0: coins0},
                  stacks={k: tuple(v) for k, v in (stacks or {}).items()},
                  chance={k: tuple(v) for k, v in (chance or {}).items()})
    return new_game(4, plugins=plugins, options=options, setup=setup)


def amulet_at_temple(game: Game, amulet: str) -> Game:
    """Piece 0 moves to temple 2, takes the amulet option and ``amulet``; answers "stay"."""
    game = do(game, "seat 0: move traveller 0 to 2")
    game = do(game, "seat 0: take an amulet")
    game = do(game, f"seat 0: take the {amulet} amulet")
    return stay(game)


lucky = partial(scenario.lucky, queue=FIRST)
"""Good Luck amulets at setup (:func:`scenario.lucky`), piece 0 leaving Kyoto first."""


def options_taken(game: Game) -> set[tuple[str | None, bool]]:
    """The legal TakeOption answers as (option, health)."""
    return {(a.option, a.health) for a in legal(game, TakeOption)}


def buy_souvenirs(game: Game, cards: set[str], discount: str | None = None) -> Game:
    found = [a for a in legal(game, BuySouvenirs)
             if set(a.cards) == cards and a.discount == discount]
    assert len(found) == 1, game.legal_actions()
    return game.apply(found[0])


def automatic_taken(before: Game, after: Game) -> list[Action]:
    """The actions the engine took alone between two points (each after core.automatic)."""
    new = after.events[len(before.events):]
    return [e for prev, e in pairwise(new)
            if isinstance(prev, Automatic) and isinstance(e, Action)]


# --- the options and the preset (RULES.md 8) ------------------------------------------------


NEW_OPTIONS = {
    "crossroads.devotion": ("stop", "dearest_card"),
    "crossroads.optional_purchase": (False, True),
    "crossroads.health_where_both": (False, True),
    "base.panorama_choice_optional": (False, True),
    "base.hirotada_bank_coin": ("choice", "auto"),
    "crossroads.fortune_timing": ("before_move", "any_time_in_turn"),
    "crossroads.amulet_same_turn": (False, True),
}


@pytest.mark.parametrize("name", sorted(NEW_OPTIONS))
def test_defaults_are_printed_and_bga_sets_the_online_values(name: str) -> None:
    """RULES.md 8: the defaults are the printed rules; the preset ``bga`` sets the online
    values (the table of section 8)."""
    printed, online = NEW_OPTIONS[name]
    assert start(TWO, plugins=CR).state.rules.option(name) == printed
    assert start(TWO, plugins=CR_BGA).state.rules.option(name) == online


def test_an_explicit_option_wins_over_the_preset() -> None:
    """RULES.md 8: an option the user passes explicitly wins over a preset."""
    game = start(TWO, plugins=CR_BGA, options={"crossroads.devotion": "stop",
                                               "base.panorama_choice_optional": False})
    assert game.state.rules.option("crossroads.devotion") == "stop"
    assert game.state.rules.option("base.panorama_choice_optional") is False
    assert game.state.rules.option("crossroads.optional_purchase") is True


# --- the issue's reproductions ----------------------------------------------------------------


@pytest.mark.parametrize("plugins", [CR, CR_BGA], ids=["printed", "online"])
def test_issue_fortune_after_arriving_at_a_farm(plugins: tuple[str, ...]) -> None:
    """RULES.md 8 fortune_timing: online, Fortune may also be used after arriving, before
    the space's action, and the holder is asked even where the farm is the lone option
    (1 coin: no gaming room); the roll may open the gaming room (5.3: 2 coins).
    Printed: only before moving; the holder is still asked the lone option (7)."""
    online = plugins == CR_BGA
    game = issue_game(("satsuki", "kinko", "yoshiyasu", "hirotada"), plugins, coins0=2,
                      stacks={ENCOUNTERS: ("samurai", "samurai")}, chance={DIE: [3, 2]})
    game = do(game, "seat 0: move traveller 0 to 2")
    game = do(game, "seat 0: take an amulet")
    game = do(game, "seat 0: take the fortune amulet")
    assert coins(game, 0) == 1
    if online:  # amulet_same_turn: in the lead, asked about Vitality, Fortune usable too
        assert kind(game) == "crossroads.vitality"
        assert texts(game) == {"seat 0: use Fortune (roll for coins)", "seat 0: stay"}
        game = do(game, "seat 0: stay")
    else:
        assert kind(game) == "core.move" and moving_piece(game) == 1
    game = others_ahead(game)
    game = do(game, "seat 0: move traveller 0 to 7")
    assert kind(game) == "crossroads.option" and moving_piece(game) == 0
    if not online:
        assert texts(game) == {"seat 0: take the farm"}
        game = do(game, "seat 0: take the farm")
        assert coins(game, 0) == 4
        assert game.state.secret(0) == ("fortune",)
        return
    assert texts(game) == {"seat 0: take the farm", "seat 0: use Fortune (roll for coins)"}
    game = do(game, "seat 0: use Fortune (roll for coins)")
    assert coins(game, 0) == 4
    assert kind(game) == "crossroads.option"
    assert texts(game) == {"seat 0: take the farm", "seat 0: take the gaming room"}
    game = do(game, "seat 0: take the gaming room")  # stake 2, face 2: +4
    assert coins(game, 0) == 6
    assert game.state.secret(0) == ()
    assert "fortune" in game.state.zone(PILE)


def devotion_at_village(traveller: str, souvenirs: Sequence[str],
                        plugins: Sequence[str]) -> Game:
    """The issue's helper: Devotion taken at temple 2, used at village 8 (10 coins)."""
    game = issue_game((traveller, "kinko", "yoshiyasu", "mitsukuni"), plugins, coins0=10,
                      stacks={ENCOUNTERS: ("samurai", "samurai"), SOUVENIRS: souvenirs})
    game = amulet_at_temple(game, "devotion")
    game = others_ahead(game)
    game = do(game, "seat 0: move traveller 0 to 8")
    game = do(game, "seat 0: take the village")
    return do(game, "seat 0: use Devotion (purchases here become donations)")


@pytest.mark.parametrize(
    ("plugins", "traveller", "purchase", "expected"),
    [
        (CR, "satsuki", "buy shamisen, koma", {"coins": -4, "donation": 4, "points": 8}),
        (CR_BGA, "satsuki", "buy shamisen, koma", {"coins": -4, "donation": 3, "points": 7}),
        (CR, "zenemon", "buy shamisen (1 coin for shamisen)",
         {"coins": -1, "donation": 1, "points": 2}),
        (CR_BGA, "zenemon", "buy shamisen (1 coin for shamisen)",
         {"coins": -1, "donation": 3, "points": 4}),
    ],
    ids=["satsuki-printed", "satsuki-online", "zenemon-printed", "zenemon-online"],
)
def test_issue_devotion_at_a_village(plugins: tuple[str, ...], traveller: str, purchase: str,
                                     expected: dict[str, int]) -> None:
    """RULES.md 8 crossroads.devotion: printed ("stop"), every coin paid for the souvenirs
    is donated; online ("dearest_card"), the printed price of the dearest souvenir bought
    is donated (Zen-emon's 1-coin shamisen donates 3: 2 from the bank) and other coins go
    to the bank. Shamisen then koma score 1 + 3."""
    game = devotion_at_village(traveller, ("shamisen", "koma", "haori"), plugins)
    after = do(game, f"seat 0: {purchase}")
    assert delta(game, after) == expected
    assert points(after, 0, "temple_donations") == expected["donation"]
    assert points(after, 0, "souvenirs") == expected["points"] - expected["donation"]
    assert game.state.secret(0) == ()  # spent, back in the pile
    assert "devotion" in game.state.zone(PILE)


@pytest.mark.parametrize(("plugins", "donation"), [(GOOD_LUCK, 5), (GOOD_LUCK_BGA, 2)],
                         ids=["printed", "online"])
def test_issue_devotion_with_health_legendary_then_village(
        plugins: tuple[str, ...], donation: int) -> None:
    """RULES.md 8 and 9, Devotion with Health (two purchases at one stop, Devotion used
    before the first): printed, both purchases are donated (Buppatsu 2 + shamisen 3 = 5);
    online only the next purchase, Buppatsu (2); the shamisen is paid to the bank."""
    game = lucky(["satsuki", "kinko", "yoshiyasu", "mitsukuni"], {0: "health"},
                 queue=QUEUE4, coins={0: 10}, plugins=plugins,
                 stacks={ENCOUNTERS: ("samurai", "samurai"),
                         SOUVENIRS: ("shamisen", "koma", "haori")})
    game = amulet_at_temple(game, "devotion")
    assert coins(game, 0) == 9
    game = others_ahead(game)
    before = game = do(game, "seat 0: move traveller 0 to 8")
    game = do(game, "seat 0: use Devotion (purchases here become donations)")
    game = do(game, "seat 0: take a legendary object (Health: both)")
    game = do(game, "seat 0: buy buppatsu")
    game = do(game, "seat 0: take the village")
    game = do(game, "seat 0: buy shamisen")
    # Buppatsu (a fifth souvenir family) 1, shamisen joins its set: 3.
    assert delta(before, game) == {"coins": -5, "donation": donation, "points": 4 + donation}
    assert points(game, 0, "souvenirs") == 4
    assert game.state.secret(0) == ()
    assert {"devotion", "health"} <= set(game.state.zone(PILE))


@pytest.mark.parametrize("plugins", [CR, CR_BGA], ids=["printed", "online"])
def test_issue_optional_purchase_of_a_legendary_object(plugins: tuple[str, ...]) -> None:
    """RULES.md 8 crossroads.optional_purchase: printed, choosing the legendary object
    means buying one (the four affordable with 2 coins); online, buying nothing is also
    an answer, and it ends the action with no effect (no souvenir revealed)."""
    game = issue_game(("satsuki", "kinko", "yoshiyasu", "mitsukuni"), plugins, coins0=2)
    game = do(game, "seat 0: move traveller 0 to 1")
    game = do(game, "seat 0: take a legendary object")
    purchases = {"seat 0: buy buppatsu", "seat 0: buy ema", "seat 0: buy emaki",
                 "seat 0: buy shodo"}
    if plugins == CR:
        assert texts(game) == purchases
        return
    assert texts(game) == {*purchases, "seat 0: buy no legendary object"}
    deck = game.state.zone(SOUVENIRS)
    game = do(game, "seat 0: buy no legendary object")
    assert coins(game, 0) == 2 and points(game, 0) == 0
    assert collection(game, 0) == ()
    assert len(game.state.zone(LEGENDARY)) == 6
    assert game.state.zone(SOUVENIRS) == deck
    assert game.state.zone("base.village") == ()
    assert kind(game) == "core.move" and moving_piece(game) == 1


@pytest.mark.parametrize(
    ("plugins", "options", "expected"),
    [
        (CR_BGA, None, {"coins": -2, "donation": 3, "points": 3}),
        (CR, {"base.hirotada_bank_coin": "auto"}, {"coins": -2, "donation": 3, "points": 3}),
        (CR, None, {"coins": -2, "donation": 2, "points": 2}),
    ],
    ids=["online", "auto", "printed-choice"],
)
def test_issue_hirotada_with_health_at_a_temple(
        plugins: tuple[str, ...], options: dict[str, object] | None,
        expected: dict[str, int]) -> None:
    """RULES.md 8 base.hirotada_bank_coin: "auto" adds the bank coin after EACH temple
    action he takes, so two with Health (donation and amulet); printed "choice": he may
    add one coin per temple stop (3.7), one decision for the stop."""
    game = issue_game(("hirotada", "kinko", "yoshiyasu", "mitsukuni"), plugins, coins0=10,
                      stacks={ENCOUNTERS: ("samurai", "samurai")}, options=options)
    game = do(game, "seat 0: move traveller 0 to 2")
    game = do(game, "seat 0: take an amulet")
    game = do(game, "seat 0: take the health amulet")
    if kind(game) == "base.bank_coin":
        game = do(game, "seat 0: do not add a coin from the bank")
    game = stay(game)
    game = others_ahead(game)
    before = game = do(game, "seat 0: move traveller 0 to 9")
    for text in ("take a donation (Health: both)", "donate 1", "take an amulet",
                 "take the fortune amulet"):
        assert not legal(game, AddBankCoin)
        game = do(game, f"seat 0: {text}")
    if expected["donation"] == 2:
        assert kind(game) == "base.bank_coin"
        assert texts(game) == {"seat 0: add a coin from the bank",
                               "seat 0: do not add a coin from the bank"}
        game = do(game, "seat 0: add a coin from the bank")
    assert not legal(game, AddBankCoin)
    assert kind(game) == "core.move" and moving_piece(game) == 0  # still last
    assert delta(before, game) == expected
    assert game.state.secret(0) == ("fortune",)


@pytest.mark.parametrize(
    ("traveller", "position", "options", "health"),
    [
        ("kita", 3, ("base.encounter", "crossroads.calligraphy"), False),
        ("kita", 3, ("base.encounter", "crossroads.calligraphy"), True),
        ("miyataka", 9, ("base.temple", "crossroads.amulet"), False),
        ("miyataka", 9, ("base.temple", "crossroads.amulet"), True),
    ],
    ids=["kita-printed", "kita-online", "miyataka-printed", "miyataka-online"],
)
def test_issue_health_where_both_is_offered(traveller: str, position: int,
                                            options: tuple[str, str], health: bool) -> None:
    """RULES.md 8 crossroads.health_where_both: Kita at an encounter and Miyataka at a
    temple take both options anyway; printed, Health is not offered there; online
    (``bga``) the "(Health: both)" variants are offered too."""
    plugins = GOOD_LUCK_BGA if health else GOOD_LUCK
    game = lucky([traveller, "kinko", "yoshiyasu", "mitsukuni"], {0: "health"},
                 queue=QUEUE4, coins={0: 10}, plugins=plugins,
                 stacks={ENCOUNTERS: ("samurai",)})
    game = do(game, f"seat 0: move traveller 0 to {position}")
    assert kind(game) == "crossroads.option"
    expected = {(o, False) for o in options}
    if health:
        expected |= {(o, True) for o in options}
    assert options_taken(game) == expected
    assert ("seat 0: take an encounter (Health: both)" in texts(game)) is (
        health and traveller == "kita")
    assert ("seat 0: take a donation (Health: both)" in texts(game)) is (
        health and traveller == "miyataka")


@pytest.mark.parametrize("plugins", [BASE, BASE_BGA], ids=["printed", "online"])
def test_issue_hiroshige_may_refuse_his_section_online(plugins: tuple[str, ...]) -> None:
    """RULES.md 8 base.panorama_choice_optional: printed, Hiroshige must take a section at
    an intermediate inn (3.7); online he may refuse ("take no panorama section")."""
    game = start(["hiroshige", "kinko", "yoshiyasu", "mitsukuni"], plugins=plugins,
                 queue=QUEUE4)
    game = move(game, 14)
    assert kind(game) == "base.choose_panorama" and moving_piece(game) == 0
    sections = {"seat 0: take the next paddy section", "seat 0: take the next mountain section",
                "seat 0: take the next sea section"}
    if plugins == BASE:
        assert texts(game) == sections
        return
    assert texts(game) == {*sections, "seat 0: take no panorama section"}
    game = do(game, "seat 0: take no panorama section")
    assert collection(game, 0) == ()
    assert points(game, 0) == 0
    assert kind(game) == "base.meal" and moving_piece(game) == 0


# --- crossroads.fortune_timing (and crossroads.amulet_same_turn) ---------------------------------

ROAD_SPACES = [
    # position, kind, options with 1 coin, options with 5 coins (after Fortune rolls 4)
    (1, "village", {"base.village", "crossroads.legendary"}, None),
    (7, "farm", {"base.farm"}, {"base.farm", "crossroads.gaming_room"}),
    (5, "hot_spring", {"base.hot_spring", "crossroads.bath_house"}, None),
    (2, "temple", {"base.temple", "crossroads.amulet"}, None),
    (3, "encounter", {"base.encounter", "crossroads.calligraphy"}, None),
    (4, "paddy", {"base.panorama", "crossroads.cherry_tree"}, None),
    (6, "mountain", {"base.panorama", "crossroads.cherry_tree"}, None),
    (11, "sea", {"base.panorama", "crossroads.cherry_tree"}, None),
]


@pytest.mark.parametrize("timing", ["before_move", "any_time_in_turn"])
@pytest.mark.parametrize(("position", "space", "before", "after"), ROAD_SPACES,
                         ids=[s[1] for s in ROAD_SPACES])
def test_fortune_after_arriving_at_every_kind_of_road_space(
        position: int, space: str, before: set[str], after: set[str] | None,
        timing: str) -> None:
    """RULES.md 8 fortune_timing: with "any_time_in_turn" Fortune may also be used after
    arriving, before the space's action, at every kind of road space: the roll adds the
    face in coins, the option decision stays open (at a farm 1 + 4 coins open the gaming
    room, 5.3) and the amulet returns to the pile (5.5). With "before_move" (printed) it
    is not offered there, and the holder keeps it (still asked: 7)."""
    game = lucky(TWO, {0: "fortune"}, coins={0: 1, 1: 0}, chance={DIE: [4]},
                 options={"crossroads.fortune_timing": timing})
    assert game.state.rules.board[position].kind == space
    game = move(game, position)
    assert kind(game) == "crossroads.option" and moving_piece(game) == 0
    assert options_taken(game) == {(o, False) for o in before}
    if timing == "before_move":
        assert not legal(game, UseFortune)
        assert game.state.secret(0) == ("fortune",)
        return
    assert legal(game, UseFortune) == [UseFortune(0, 0)]
    game = act(game, UseFortune)
    assert coins(game, 0) == 5
    assert kind(game) == "crossroads.option" and moving_piece(game) == 0
    assert options_taken(game) == {(o, False) for o in (after or before)}
    assert not legal(game, UseFortune)
    assert game.state.secret(0) == ()
    assert "fortune" in game.state.zone(PILE)


@pytest.mark.parametrize(("holdings", "options", "asked"), [
    ({}, ANY_TIME, set()),
    ({0: "fortune"}, BEFORE_MOVE, {"seat 0: take the farm"}),
    ({0: "fortune"}, ANY_TIME, {"seat 0: take the farm", "seat 0: use Fortune (roll for coins)"}),
], ids=["no-amulet", "printed", "online"])
def test_fortune_holder_is_asked_at_a_lone_option(
        holdings: dict[int, str], options: dict[str, object], asked: set[str]) -> None:
    """RULES.md 8 fortune_timing and 7: at a farm with 1 coin the farm is the lone option,
    which the engine takes alone (recorded after core.automatic, 3.3: +3 coins) for a
    traveller without amulets; a holder of a usable amulet is asked anyway, and online
    Fortune is offered there."""
    game = lucky(TWO, holdings, coins={0: 1, 1: 0}, options=options)
    before = game
    game = move(game, 7)
    if not asked:
        assert automatic_taken(before, game) == [TakeOption(0, 0, "base.farm")]
        assert coins(game, 0) == 4
        assert kind(game) == "core.move" and moving_piece(game) == 2
        return
    assert automatic_taken(before, game) == []
    assert kind(game) == "crossroads.option" and moving_piece(game) == 0
    assert texts(game) == asked


def test_fortune_rolling_x_at_a_lone_option_leaves_it_to_the_engine() -> None:
    """RULES.md 5.1, 5.5: Fortune rolling X gains nothing; Fortune spent, the farm is
    again the lone option of a traveller with no usable amulet, so the engine takes it
    (recorded after core.automatic)."""
    game = lucky(TWO, {0: "fortune"}, coins={0: 1, 1: 0}, chance={DIE: [0]}, options=ANY_TIME)
    game = move(game, 7)
    before = game
    game = act(game, UseFortune)
    assert automatic_taken(before, game) == [TakeOption(0, 0, "base.farm")]
    assert coins(game, 0) == 4
    assert game.state.secret(0) == ()
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("timing", ["before_move", "any_time_in_turn"])
def test_fortune_opens_a_legendary_object_at_a_village(timing: str) -> None:
    """RULES.md 8 fortune_timing: online, Fortune is usable at any decision of the turn,
    here the legendary-object purchase: with 1 coin only Shodo and Emaki (1 coin) are
    offered (5.3); Fortune +3 opens the 2- and 3-coin objects, and Ema (2) is bought.
    Printed: Fortune is not offered there."""
    game = lucky(TWO, {0: "fortune"}, coins={0: 1, 1: 0}, chance={DIE: [3]},
                 options={"crossroads.fortune_timing": timing})
    game = move(game, 8)
    game = act(game, TakeOption, option="crossroads.legendary")
    assert kind(game) == "crossroads.buy_legendary"
    assert {a.card for a in legal(game, BuyLegendary)} == {"emaki", "shodo"}
    if timing == "before_move":
        assert not legal(game, UseFortune)
        return
    game = act(game, UseFortune)
    assert coins(game, 0) == 4
    assert {a.card for a in legal(game, BuyLegendary)} == {
        "buppatsu", "ema", "emaki", "masamune", "murasame", "shodo"}
    game = act(game, BuyLegendary, card="ema")
    assert coins(game, 0) == 2
    assert collection(game, 0) == ("ema",)
    assert points(game, 0, "souvenirs") == 1  # a fifth souvenir family (5.4)


@pytest.mark.parametrize("timing", ["before_move", "any_time_in_turn"])
def test_fortune_when_nothing_is_affordable_at_a_village(timing: str) -> None:
    """RULES.md 8 fortune_timing: with nothing affordable at a village (1 coin, three
    2-coin souvenirs) "buy nothing" is the lone answer; a Fortune holder is asked anyway,
    and online Fortune (+2) opens a purchase: haori (2), 1 point."""
    game = lucky(TWO, {0: "fortune"}, coins={0: 1, 1: 0}, chance={DIE: [2]},
                 stacks={SOUVENIRS: ["haori", "furoshiki", "sandogasa"]},
                 options={"crossroads.fortune_timing": timing})
    game = move(game, 8)
    game = act(game, TakeOption, option="base.village")
    assert kind(game) == "base.buy_souvenirs" and moving_piece(game) == 0
    if timing == "before_move":
        assert game.legal_actions() == (BuySouvenirs(0, 0, ()),)
        return
    assert set(game.legal_actions()) == {BuySouvenirs(0, 0, ()), UseFortune(0, 0)}
    game = act(game, UseFortune)
    assert coins(game, 0) == 3
    game = buy_souvenirs(game, {"haori"})
    assert coins(game, 0) == 1
    assert points(game, 0, "souvenirs") == 1


def test_without_an_amulet_nothing_affordable_at_a_village_is_automatic() -> None:
    """RULES.md 3.3 and 7: a traveller without amulets who can afford nothing revealed is
    not asked: the engine takes "buy nothing" (recorded after core.automatic)."""
    game = lucky(TWO, {}, coins={0: 1, 1: 0}, options=ANY_TIME,
                 stacks={SOUVENIRS: ["haori", "furoshiki", "sandogasa"]})
    game = move(game, 8)
    before = game
    game = act(game, TakeOption, option="base.village")
    assert automatic_taken(before, game) == [BuySouvenirs(0, 0, ())]
    assert coins(game, 0) == 1 and collection(game, 0) == ()
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize(("holdings", "timing"), [
    ({}, "any_time_in_turn"),
    ({0: "fortune"}, "before_move"),
    ({0: "fortune"}, "any_time_in_turn"),
], ids=["no-amulet", "printed", "online"])
def test_fortune_at_an_inn_with_no_coins(holdings: dict[int, str], timing: str) -> None:
    """RULES.md 8 fortune_timing, 3.4, 9: the last to arrive at an inn, with 0 coins, can
    afford no meal: without amulets the engine takes "no meal" (every seat has seen the
    hand); a Fortune holder is asked anyway; online Fortune (+1) opens a 1-coin meal
    (dango, 6 points), not the 2-coin tempura."""
    game = lucky(TWO, holdings, queue=(0, 1, 2), coins={0: 0, 1: 0},
                 chance={DIE: [1], "discard.base.inn_hand": ["unagi"]},
                 stacks={MEALS: ["dango", "tempura", "unagi"]},
                 options={"crossroads.fortune_timing": timing})
    game = move(game, 14)  # the neutral, first: draws 3 meals, discards unagi
    game = move(game, 14)  # piece 1, 0 coins: asked (piece 0 has not seen the hand)
    assert game.legal_actions() == (BuyMeal(1, 1, None),)
    game = act(game, BuyMeal, meal=None)
    assert moving_piece(game) == 0
    before = game
    game = move(game, 14)
    if not holdings:
        assert automatic_taken(before, game) == [BuyMeal(0, 0, None)]
        assert kind(game) == "core.move"
        return
    assert kind(game) == "base.meal" and moving_piece(game) == 0
    if timing == "before_move":
        assert game.legal_actions() == (BuyMeal(0, 0, None),)
        return
    assert set(game.legal_actions()) == {BuyMeal(0, 0, None), UseFortune(0, 0)}
    game = act(game, UseFortune)
    assert coins(game, 0) == 1
    assert set(game.legal_actions()) == {BuyMeal(0, 0, None), BuyMeal(0, 0, "dango")}
    game = act(game, BuyMeal, meal="dango")
    assert coins(game, 0) == 0
    assert points(game, 0, "meals") == 6
    assert collection(game, 0) == ("dango",)


@pytest.mark.parametrize(("plugins", "options", "same_turn"), [
    (CR, {**ANY_TIME, "crossroads.amulet_same_turn": False}, False),
    (CR, {**ANY_TIME, "crossroads.amulet_same_turn": True}, True),
    (CR_BGA, None, True),
], ids=["printed-same-turn", "same-turn", "online"])
def test_fortune_bought_at_a_temple_usable_at_once_only_with_same_turn(
        plugins: tuple[str, ...], options: dict[str, object] | None, same_turn: bool) -> None:
    """RULES.md 8 amulet_same_turn with fortune_timing "any_time_in_turn": Fortune bought
    at a temple while taking the lead is usable in that turn only with same_turn (then the
    buyer, in the lead with a usable amulet, is asked about Vitality and may roll there);
    printed, it waits for the next move (5.5) and nothing more is asked."""
    game = start(TWO, plugins=plugins, queue=FIRST, coins={0: 5, 1: 0}, chance={DIE: [2, 3]},
                 options=options)
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert coins(game, 0) == 4
    if not same_turn:
        assert kind(game) == "core.move" and moving_piece(game) == 2
        assert not legal(game, UseFortune)
        assert game.state.secret(0) == ("fortune",)
        return
    assert kind(game) == "crossroads.vitality" and moving_piece(game) == 0
    assert set(game.legal_actions()) == {UseFortune(0, 0), UseVitality(0, 0, False)}
    game = act(game, UseFortune)
    assert coins(game, 0) == 6
    assert game.legal_actions() == (UseVitality(0, 0, False),)
    game = act(game, UseVitality, use=False)
    assert game.state.secret(0) == ()
    assert kind(game) == "core.move" and moving_piece(game) == 2


# --- crossroads.devotion ---------------------------------------------------------------------


def devotee(travellers: Sequence[str], devotion: str, *, coins0: int,
            stacks: Mapping[str, Sequence[str]] | None = None,
            options: Mapping[str, object] | None = None) -> Game:
    """2 players, piece 0 holds Devotion (Good Luck) and leaves Kyoto first."""
    return lucky(travellers, {0: "devotion"}, coins={0: coins0, 1: 0}, stacks=stacks,
                 options={"crossroads.devotion": devotion, **(options or {})})


@pytest.mark.parametrize(("devotion", "donation"), [("stop", 5), ("dearest_card", 2)])
def test_devotion_several_souvenirs(devotion: str, donation: int) -> None:
    """RULES.md 5.5, 8 crossroads.devotion: koma 1 + daifuku 2 + haori 2 (5 coins, 1+3+5
    points). Printed ("stop"): all 5 coins are donated; online ("dearest_card"): the
    printed price of the dearest souvenir (2), the other 3 coins go to the bank."""
    game = devotee(TWO, devotion, coins0=6,
                   stacks={SOUVENIRS: ["koma", "daifuku", "haori"]})
    game = move(game, 1)
    before = game = act(game, UseDevotion)
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"koma", "daifuku", "haori"})
    assert delta(before, game) == {"coins": -5, "donation": donation, "points": 9 + donation}
    assert points(game, 0, "temple_donations") == donation


@pytest.mark.parametrize(("devotion", "cards", "discount", "paid", "donation"), [
    ("stop", {"shamisen", "haori"}, "shamisen", 3, 3),
    ("stop", {"shamisen", "haori"}, "haori", 4, 4),
    ("stop", {"shamisen"}, "shamisen", 1, 1),
    ("dearest_card", {"shamisen", "haori"}, "shamisen", 3, 3),
    ("dearest_card", {"shamisen", "haori"}, "haori", 4, 3),
    ("dearest_card", {"shamisen"}, "shamisen", 1, 3),
])
def test_devotion_with_zenemon_naming_his_card(devotion: str, cards: set[str], discount: str,
                                               paid: int, donation: int) -> None:
    """RULES.md 9 (Zen-emon names the discounted card; with Devotion the choice changes
    the score), 8 crossroads.devotion: printed, the coins he pays are donated; online the
    printed price of the dearest souvenir is donated (shamisen 3, from the bank where he
    paid less), other coins to the bank."""
    game = devotee(["zenemon", "yoshiyasu"], devotion, coins0=10,
                   stacks={SOUVENIRS: ["shamisen", "haori", "koma"]})
    game = move(game, 8)
    game = act(game, TakeOption, option="base.village")
    before = game = act(game, UseDevotion)
    game = buy_souvenirs(game, cards, discount)
    souvenirs = 1 if len(cards) == 1 else 4
    assert delta(before, game) == {"coins": -paid, "donation": donation,
                                   "points": souvenirs + donation}


@pytest.mark.parametrize(("devotion", "donation"), [("stop", 5), ("dearest_card", 3)])
def test_devotion_with_sasayakko(devotion: str, donation: int) -> None:
    """RULES.md 3.7 (Sasayakko: the cheapest of 2+ souvenirs is free), 8 devotion:
    shamisen 3 + haori 2 + koma 1 cost her 5; printed, the 5 coins are donated; online,
    the dearest printed price (3), the other 2 coins to the bank."""
    game = devotee(["sasayakko", "yoshiyasu"], devotion, coins0=6,
                   stacks={SOUVENIRS: ["shamisen", "haori", "koma"]})
    game = move(game, 8)
    game = act(game, TakeOption, option="base.village")
    before = game = act(game, UseDevotion)
    game = buy_souvenirs(game, {"shamisen", "haori", "koma"})
    assert delta(before, game) == {"coins": -5, "donation": donation, "points": 9 + donation}


@pytest.mark.parametrize("devotion", ["stop", "dearest_card"])
@pytest.mark.parametrize(("meal", "paid"), [("unagi", 2), ("tempura", 1), ("dango", 0)])
def test_devotion_with_kinko_meal_discount(devotion: str, meal: str, paid: int) -> None:
    """RULES.md 3.7 (Kinko pays 1 less per meal), 5.5, 8 devotion: for a meal the coins
    actually paid are donated, Kinko's discount included, with either value."""
    game = devotee(["kinko", "yoshiyasu"], devotion, coins0=5,
                   stacks={MEALS: ["unagi", "tempura", "dango"]})
    game = move(game, 14)
    before = game = act(game, UseDevotion)
    game = act(game, BuyMeal, meal=meal)
    assert delta(before, game) == {"coins": -paid, "donation": paid, "points": 6 + paid}
    assert points(game, 0, "meals") == 6


@pytest.mark.parametrize("devotion", ["stop", "dearest_card"])
@pytest.mark.parametrize(
    ("position", "option", "cls", "fields", "price", "category", "gained"),
    [
        (8, "crossroads.legendary", BuyLegendary, {"card": "murasame"}, 3,
         "legendary_objects", 8),
        (5, "crossroads.bath_house", None, {}, 1, "bath_houses", 4),
        (3, "crossroads.calligraphy", TakeCalligraphy, {"card": "foresight"}, 1,
         "calligraphy", 0),
        (2, "crossroads.amulet", TakeAmulet, {"amulet": "health"}, 1, "temple_donations", 1),
    ],
    ids=["legendary", "bath-house", "calligraphy", "amulet"],
)
def test_devotion_crossroads_cards_donate_the_coins_paid(
        devotion: str, position: int, option: str, cls: type[Action] | None,
        fields: dict[str, Any], price: int, category: str, gained: int) -> None:
    """RULES.md 5.5, 8 devotion: a legendary object, bath house, calligraphy or amulet
    donates the coins paid for it, with either value."""
    game = devotee(TWO, devotion, coins0=5)
    game = move(game, position)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option=option)
    if cls is not None:
        game = act(game, cls, **fields)
    assert coins(game, 0) == 5 - price
    assert donated(game, 0) == price
    assert points(game, 0, category) == gained
    assert points(game, 0, "temple_donations") == price


def devotion_and_health_at_village(devotion: str, switch_on: str) -> Game:
    """Devotion (Good Luck) and Health (bought at temple 2); at village 8 Health takes
    Buppatsu (2) then shamisen (3). ``switch_on``: the decision where Devotion is used,
    "option" (before the first purchase) or "souvenirs" (before the second)."""
    game = devotee(TWO, devotion, coins0=10, stacks={SOUVENIRS: ["shamisen", "koma", "haori"]})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="health")
    game = stay(game)  # Devotion is usable: asked about Vitality, it can only stay
    game = move(game, 14)  # the neutral
    game = move(game, 4)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 8)
    if switch_on == "option":
        game = act(game, UseDevotion)
    game = act(game, TakeOption, option="crossroads.legendary", health=True)
    game = act(game, BuyLegendary, card="buppatsu")
    game = act(game, TakeOption, option="base.village")
    if switch_on == "souvenirs":
        game = act(game, UseDevotion)
    return buy_souvenirs(game, {"shamisen"})


@pytest.mark.parametrize(("devotion", "switch_on", "donation"), [
    ("stop", "option", 5),
    ("dearest_card", "option", 2),
    ("stop", "souvenirs", 3),
    ("dearest_card", "souvenirs", 3),
])
def test_devotion_with_health_two_purchases_at_one_stop(devotion: str, switch_on: str,
                                                        donation: int) -> None:
    """RULES.md 9 and 8 devotion, with Health: printed, Devotion covers every purchase of
    the stop from its use on (Buppatsu 2 + shamisen 3, or only the shamisen if used
    after Buppatsu); online, only the next purchase after its use (Buppatsu, or the
    shamisen), the second purchase is paid to the bank."""
    game = devotion_and_health_at_village(devotion, switch_on)
    assert coins(game, 0) == 9 - 5
    assert donated(game, 0) == donation
    assert points(game, 0, "temple_donations") == donation
    assert points(game, 0, "souvenirs") == 1 + 3
    assert game.state.secret(0) == ()


@pytest.mark.parametrize("devotion", ["stop", "dearest_card"])
@pytest.mark.parametrize("first", ["base.encounter", "crossroads.calligraphy"])
def test_devotion_with_kita(devotion: str, first: str) -> None:
    """RULES.md 5.6 (Kita takes both options at an encounter, in the order chosen), 5.5,
    8 devotion: the calligraphy (1 coin) is the stop's one purchase; drawing an encounter
    pays nothing, so with either value the calligraphy's coin is donated."""
    game = devotee(["kita", "yoshiyasu"], devotion, coins0=2,
                   stacks={ENCOUNTERS: ["kuge"]})
    game = move(game, 3)
    game = act(game, UseDevotion)
    second = "crossroads.calligraphy" if first == "base.encounter" else "base.encounter"
    game = act(game, TakeOption, option=first)
    if first == "crossroads.calligraphy":
        game = act(game, TakeCalligraphy, card="foresight")
    game = act(game, TakeOption, option=second)
    if second == "crossroads.calligraphy":
        game = act(game, TakeCalligraphy, card="foresight")
    assert collection(game, 0) == (("kuge", "foresight") if first == "base.encounter"
                                   else ("foresight", "kuge"))
    assert coins(game, 0) == 2 + 3 - 1
    assert donated(game, 0) == 1
    assert points(game, 0) == 1


@pytest.mark.parametrize("devotion", ["stop", "dearest_card"])
@pytest.mark.parametrize("first", ["base.temple", "crossroads.amulet"])
def test_devotion_with_miyataka(devotion: str, first: str) -> None:
    """RULES.md 5.6 (Miyataka donates and buys an amulet, in the order chosen), 5.5, 8
    devotion: the amulet (1 coin) is donated with either value, on top of his own
    donation of 2."""
    game = devotee(["miyataka", "yoshiyasu"], devotion, coins0=5)
    game = move(game, 2)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option=first)
    if first == "base.temple":
        game = act(game, Donate, amount=2)
        game = act(game, TakeOption, option="crossroads.amulet")
        game = act(game, TakeAmulet, amulet="fortune")
    else:
        game = act(game, TakeAmulet, amulet="fortune")
        game = act(game, TakeOption, option="base.temple")
        game = act(game, Donate, amount=2)
    assert coins(game, 0) == 5 - 2 - 1
    assert donated(game, 0) == 3
    assert points(game, 0, "temple_donations") == 3
    assert game.state.secret(0) == ("fortune",)


# --- crossroads.optional_purchase ------------------------------------------------------------

OPTIONAL = {"crossroads.optional_purchase": True}
PURCHASES: list[tuple[int, str, type[Action], str, set[str]]] = [
    (8, "crossroads.legendary", BuyLegendary, "card", {"buppatsu", "ema", "emaki", "shodo"}),
    (3, "crossroads.calligraphy", TakeCalligraphy, "card", set(ALL_CALLIGRAPHY)),
    (2, "crossroads.amulet", TakeAmulet, "amulet", set(ALL_AMULETS)),
]


@pytest.mark.parametrize("optional", [False, True])
@pytest.mark.parametrize(("position", "option", "cls", "field", "cards"), PURCHASES,
                         ids=["legendary", "calligraphy", "amulet"])
def test_optional_purchase_offers_buying_nothing(
        position: int, option: str, cls: type[Action], field: str, cards: set[str],
        optional: bool) -> None:
    """RULES.md 5.2/5.3 and 8 optional_purchase: printed, choosing the legendary-object,
    calligraphy or amulet option means buying one (those affordable with 2 coins); online
    the purchase decision also includes buying nothing, which ends the action with no
    effect: no coin paid, no card, no souvenir revealed, no encounter drawn."""
    game = start(TWO, plugins=CR, queue=FIRST, coins={0: 2, 1: 0},
                 options={"crossroads.optional_purchase": optional})
    game = move(game, position)
    game = act(game, TakeOption, option=option)
    answers = {getattr(a, field) for a in legal(game, cls)}
    assert set(game.legal_actions()) == set(legal(game, cls))
    if not optional:
        assert answers == cards
        return
    assert answers == {None, *cards}
    sizes = {zone: len(game.state.zone(zone))
             for zone in (LEGENDARY, CALLIGRAPHY, PILE, ENCOUNTERS, SOUVENIRS)}
    game = act(game, cls, **{field: None})
    assert coins(game, 0) == 2
    assert points(game, 0) == 0 and donated(game, 0) == 0
    assert collection(game, 0) == () and game.state.secret(0) == ()
    assert {zone: len(game.state.zone(zone)) for zone in sizes} == sizes
    assert game.state.zone("base.village") == ()
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("optional", [False, True])
def test_optional_purchase_offers_calligraphy_without_coins(optional: bool) -> None:
    """RULES.md 5.2 and 8 optional_purchase: with 0 coins at an encounter, printed, the
    calligraphy is not offered, so the encounter is the lone option, which the engine
    takes (recorded after core.automatic; Kuge +3 coins); online the calligraphy option is
    offered (its pile is not empty), and its only answer is buying nothing: no encounter
    is drawn."""
    game = start(TWO, plugins=CR, queue=FIRST, coins={0: 0, 1: 0},
                 stacks={ENCOUNTERS: ["kuge"]},
                 options={"crossroads.optional_purchase": optional})
    before = game
    game = move(game, 3)
    if not optional:
        assert automatic_taken(before, game) == [TakeOption(0, 0, "base.encounter")]
        assert collection(game, 0) == ("kuge",) and coins(game, 0) == 3
        return
    assert kind(game) == "crossroads.option"
    assert options_taken(game) == {("base.encounter", False),
                                   ("crossroads.calligraphy", False)}
    game = act(game, TakeOption, option="crossroads.calligraphy")
    assert game.legal_actions() == (TakeCalligraphy(0, 0, None),)
    game = act(game, TakeCalligraphy, card=None)
    assert collection(game, 0) == () and coins(game, 0) == 0 and points(game, 0) == 0
    assert game.state.zone(ENCOUNTERS)[0] == "kuge"
    assert len(game.state.zone(CALLIGRAPHY)) == 6
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("optional", [False, True])
def test_optional_purchase_with_health_second_option_at_a_temple(optional: bool) -> None:
    """RULES.md 5.5 Health, 8 optional_purchase: donating the last coin first leaves none
    for an amulet; printed, no second option is offered; online the amulet option is
    still offered (the pile is not empty) and its only answer is buying nothing."""
    game = lucky(TWO, {0: "health"}, coins={0: 1, 1: 0},
                 options={"crossroads.optional_purchase": optional})
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple", health=True)
    game = act(game, Donate, amount=1)
    assert donated(game, 0) == 1 and points(game, 0) == 1 and coins(game, 0) == 0
    if not optional:
        assert not legal(game, TakeOption)
        assert kind(game) == "core.move" and moving_piece(game) == 2
        return
    assert kind(game) == "crossroads.second_option"
    assert set(game.legal_actions()) == {TakeOption(0, 0, None),
                                         TakeOption(0, 0, "crossroads.amulet")}
    game = act(game, TakeOption, option="crossroads.amulet")
    assert game.legal_actions() == (TakeAmulet(0, 0, None),)
    game = act(game, TakeAmulet, amulet=None)
    assert coins(game, 0) == 0 and donated(game, 0) == 1 and points(game, 0) == 1
    assert game.state.secret(0) == ()
    assert sorted(game.state.zone(PILE)) == sorted(ALL_AMULETS)  # Health is back
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("optional", [False, True])
def test_optional_purchase_with_health_second_option_at_a_village(optional: bool) -> None:
    """RULES.md 5.5 Health, 8 optional_purchase: buying koma with the last coin leaves
    nothing for a legendary object; printed, no second option; online the legendary
    option is offered and its only answer is buying nothing."""
    game = lucky(TWO, {0: "health"}, coins={0: 1, 1: 0},
                 stacks={SOUVENIRS: ["koma", "haori", "sake"]},
                 options={"crossroads.optional_purchase": optional})
    game = move(game, 8)
    game = act(game, TakeOption, option="base.village", health=True)
    game = buy_souvenirs(game, {"koma"})
    assert coins(game, 0) == 0 and points(game, 0) == 1
    if not optional:
        assert not legal(game, TakeOption)
        assert kind(game) == "core.move" and moving_piece(game) == 2
        return
    assert set(game.legal_actions()) == {TakeOption(0, 0, None),
                                         TakeOption(0, 0, "crossroads.legendary")}
    game = act(game, TakeOption, option="crossroads.legendary")
    assert game.legal_actions() == (BuyLegendary(0, 0, None),)
    game = act(game, BuyLegendary, card=None)
    assert collection(game, 0) == ("koma",)
    assert len(game.state.zone(LEGENDARY)) == 6
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("optional", [False, True])
def test_optional_purchase_buying_no_amulet_then_vitality(optional: bool) -> None:
    """RULES.md 8 optional_purchase, 5.5 Vitality: taking the lead at a temple, a Vitality
    holder takes the amulet option; online it may buy nothing (coins kept), printed it
    must buy one; either way the stop is resolved and it is then asked about Vitality,
    and may move again at once."""
    game = lucky(TWO, {0: "vitality"}, coins={0: 1, 1: 0},
                 options={"crossroads.optional_purchase": optional})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    bought = {a.amulet for a in legal(game, TakeAmulet)}
    others = set(ALL_AMULETS) - {"vitality"}
    if optional:
        assert bought == {None, *others}
        game = act(game, TakeAmulet, amulet=None)
        assert coins(game, 0) == 1 and game.state.secret(0) == ("vitality",)
    else:
        assert bought == others
        game = act(game, TakeAmulet, amulet="fortune")
        assert coins(game, 0) == 0
        assert sorted(game.state.secret(0)) == ["fortune", "vitality"]
    assert donated(game, 0) == 0 and points(game, 0) == 0
    assert kind(game) == "crossroads.vitality" and moving_piece(game) == 0
    assert set(game.legal_actions()) == {UseVitality(0, 0, False), UseVitality(0, 0, True)}
    game = act(game, UseVitality, use=True)
    assert kind(game) == "core.move" and moving_piece(game) == 0
    assert "vitality" not in game.state.secret(0)


# --- crossroads.health_where_both ------------------------------------------------------------


@pytest.mark.parametrize("spend", [False, True], ids=["printed", "online"])
def test_health_where_both_kita_spends_it_for_nothing(spend: bool) -> None:
    """RULES.md 8 health_where_both: Kita takes both options at an encounter anyway
    (5.6); online Health may be spent there: it goes back to the pile and changes nothing
    else (Samurai +3, then Foresight for 1 coin, as without it). Printed it is not
    offered, and is kept."""
    game = lucky(["kita", "yoshiyasu"], {0: "health"}, coins={0: 3, 1: 0},
                 stacks={ENCOUNTERS: ["samurai"]},
                 options={"crossroads.health_where_both": spend})
    game = move(game, 3)
    assert bool(legal(game, TakeOption, health=True)) is spend
    game = act(game, TakeOption, option="base.encounter", health=spend)
    assert kind(game) == "crossroads.second_option"
    assert set(game.legal_actions()) == {TakeOption(0, 0, None),
                                         TakeOption(0, 0, "crossroads.calligraphy")}
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="foresight")
    assert collection(game, 0) == ("samurai", "foresight")
    assert coins(game, 0) == 2 and points(game, 0) == 3
    assert game.state.secret(0) == (() if spend else ("health",))
    assert ("health" in game.state.zone(PILE)) is spend


@pytest.mark.parametrize("spend", [False, True], ids=["printed", "online"])
def test_health_where_both_miyataka_spends_it_for_nothing(spend: bool) -> None:
    """RULES.md 8 health_where_both: Miyataka donates and buys an amulet at a temple
    anyway (5.6); online Health may be spent there, back to the pile with no other
    effect (donation 2, then Vitality for 1 coin). Printed it is not offered."""
    game = lucky(["miyataka", "yoshiyasu"], {0: "health"}, coins={0: 5, 1: 0},
                 options={"crossroads.health_where_both": spend})
    game = move(game, 9)
    assert bool(legal(game, TakeOption, health=True)) is spend
    game = act(game, TakeOption, option="base.temple", health=spend)
    game = act(game, Donate, amount=2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="vitality")
    assert coins(game, 0) == 2 and donated(game, 0) == 2 and points(game, 0) == 2
    assert sorted(game.state.secret(0)) == (["vitality"] if spend else ["health", "vitality"])
    assert ("health" in game.state.zone(PILE)) is spend


@pytest.mark.parametrize("where_both", [False, True])
def test_health_still_offered_to_other_travellers(where_both: bool) -> None:
    """RULES.md 5.5 Health, 8 health_where_both: whatever its value, a traveller who
    takes one option at an encounter (not Kita) is offered Health for both."""
    game = lucky(TWO, {0: "health"}, coins={0: 3, 1: 0},
                 options={"crossroads.health_where_both": where_both})
    game = move(game, 3)
    assert options_taken(game) == {
        (o, h) for o in ("base.encounter", "crossroads.calligraphy") for h in (False, True)}


# --- base.panorama_choice_optional -------------------------------------------------------------


def passive(game: Game) -> Action:
    """An answer for decisions outside a test's focus: buy nothing, donate least."""
    actions = game.legal_actions()
    for a in actions:
        if (isinstance(a, BuyMeal) and a.meal is None) or (
                isinstance(a, BuySouvenirs) and not a.cards) or (
                isinstance(a, AddBankCoin) and not a.add):
            return a
    return actions[0]


def drive(game: Game, plans: dict[int, list[int]]) -> Game:
    """Move pieces along their ``plans`` whenever they must move; other decisions are
    :func:`passive`. Stops at a decision of piece 0 other than a meal, or when the piece
    to move has no plan left."""
    for _ in range(200):
        current = step(game)
        if current.kind == "core.move":
            todo = plans.get(current.piece)
            if not todo:
                return game
            game = move(game, todo.pop(0))
            continue
        if current.piece == 0 and current.kind != "base.meal":
            return game
        game = game.apply(passive(game))
    raise AssertionError("drive did not stop")


@pytest.mark.parametrize("plugins", [BASE, BASE_BGA], ids=["printed", "online"])
def test_annaibito_of_a_complete_panorama_may_be_refused_online(
        plugins: tuple[str, ...]) -> None:
    """RULES.md 3.3 Annaibito, 8 panorama_choice_optional: Annaibito-Paddy with the paddy
    complete gives a section of another panorama of the traveller's choice; printed one
    must be taken, online the choice may be refused (nothing taken)."""
    game = start(["kinko", "mitsukuni", "hirotada"], plugins=plugins,
                 stacks={ENCOUNTERS: ["annaibito.paddy"]})
    game = drive(game, {0: [4, 14, 18, 27, 28, 30], 1: [12, 14, 25, 27, 39],
                        2: [13, 14, 26, 27, 40]})
    assert game.state.pieces[0].position == 30
    assert collection(game, 0)[-1] == "annaibito.paddy"
    assert points(game, 0, "panoramas") == 6
    assert kind(game) == "base.choose_panorama" and moving_piece(game) == 0
    choices = {a.panorama for a in legal(game, ChoosePanorama)}
    if plugins == BASE:
        assert choices == {"mountain", "sea"}
        game = act(game, ChoosePanorama, panorama="sea")
        assert collection(game, 0)[-1] == "sea.1"
        assert points(game, 0, "panoramas") == 7
        return
    assert choices == {None, "mountain", "sea"}
    assert "seat 0: take no panorama section" in texts(game)
    cards = collection(game, 0)
    game = act(game, ChoosePanorama, panorama=None)
    assert collection(game, 0) == cards
    assert points(game, 0, "panoramas") == 6
    assert kind(game) == "core.move" and moving_piece(game) == 0


@pytest.mark.parametrize("plugins", [BASE, BASE_BGA], ids=["printed", "online"])
def test_annaibito_of_an_open_panorama_is_not_a_choice(plugins: tuple[str, ...]) -> None:
    """RULES.md 3.3 Annaibito, 8 panorama_choice_optional: only the choice given by a
    complete panorama may be refused; Annaibito-Sea with the sea open gives sea.1, with
    either value, without a decision."""
    game = start(["kinko", "mitsukuni", "hirotada"], plugins=plugins, queue=(1, 2, 0),
                 stacks={ENCOUNTERS: ["annaibito.sea"]})
    game = move(game, 3)
    assert collection(game, 0) == ("annaibito.sea", "sea.1")
    assert points(game, 0, "panoramas") == 1
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize("plugins", [BASE, BASE_BGA], ids=["printed", "online"])
def test_hiroshige_taking_a_section_with_either_value(plugins: tuple[str, ...]) -> None:
    """RULES.md 3.7 Hiroshige: on arrival at an intermediate inn, before the meal, the
    next section of a panorama of his choice (also online, where he may refuse)."""
    game = start(["hiroshige", "kinko", "yoshiyasu", "mitsukuni"], plugins=plugins,
                 queue=QUEUE4)
    game = move(game, 14)
    game = act(game, ChoosePanorama, panorama="sea")
    assert collection(game, 0) == ("sea.1",)
    assert points(game, 0, "panoramas") == 1
    assert kind(game) == "base.meal" and moving_piece(game) == 0


# --- base.hirotada_bank_coin -------------------------------------------------------------------


@pytest.mark.parametrize(("plugins", "options", "add"), [
    (BASE, None, True),
    (BASE, None, False),
    (BASE, {"base.hirotada_bank_coin": "auto"}, None),
    (BASE_BGA, None, None),
], ids=["choice-add", "choice-decline", "auto", "online"])
def test_hirotada_bank_coin_at_a_donation(plugins: tuple[str, ...],
                                          options: dict[str, object] | None,
                                          add: bool | None) -> None:
    """RULES.md 3.7 Hirotada, 8 hirotada_bank_coin: printed ("choice") he decides whether
    to add a bank coin to his donation (+1 point); "auto" (online) adds it at once after
    the donation, with no decision. Donating 2: donation 3 with the coin."""
    game = start(["hirotada", "kinko", "mitsukuni"], plugins=plugins, queue=(1, 2, 0),
                 coins={0: 5}, options=options)
    before = game = move(game, 2)
    game = act(game, Donate, amount=2)
    if add is not None:
        assert kind(game) == "base.bank_coin"
        assert set(game.legal_actions()) == {AddBankCoin(0, 0, False), AddBankCoin(0, 0, True)}
        game = act(game, AddBankCoin, add=add)
    gained = 0 if add is False else 1
    assert delta(before, game) == {"coins": -2, "donation": 2 + gained, "points": 2 + gained}
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize(("plugins", "options", "add"), [
    (CR, None, True),
    (CR, None, False),
    (CR, {"base.hirotada_bank_coin": "auto"}, None),
    (CR_BGA, None, None),
], ids=["choice-add", "choice-decline", "auto", "online"])
def test_hirotada_bank_coin_with_the_amulet_option(plugins: tuple[str, ...],
                                                   options: dict[str, object] | None,
                                                   add: bool | None) -> None:
    """RULES.md 5.6 (Hirotada's bank coin also with the amulet option), 8
    hirotada_bank_coin: printed he may add it; "auto" adds it after the amulet option.
    The amulet costs 1 coin to the bank (not a donation, 5.3)."""
    game = start(["hirotada", "kinko", "mitsukuni"], plugins=plugins, queue=(1, 2, 0),
                 coins={0: 5}, options=options)
    before = game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    if add is not None:
        assert kind(game) == "base.bank_coin"
        game = act(game, AddBankCoin, add=add)
    assert not legal(game, AddBankCoin)
    game = stay(game)  # online (same-turn amulets) he leads with a usable amulet
    gained = 0 if add is False else 1
    assert delta(before, game) == {"coins": -1, "donation": gained, "points": gained}
    assert game.state.secret(0) == ("fortune",)
    assert kind(game) == "core.move" and moving_piece(game) == 2


def test_hirotada_buying_no_amulet_gets_no_automatic_coin() -> None:
    """RULES.md 8 (ruling of this project): with optional purchases, buying no amulet
    ends the amulet action with no effect at all, so "auto" adds no bank coin after it."""
    game = start(["hirotada", "kinko", "mitsukuni"], plugins=("base", "crossroads", "bga"),
                 queue=(1, 2, 0), coins={0: 3})
    before = game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet=None)
    assert delta(before, game) == {"coins": 0, "donation": 0, "points": 0}
    assert game.state.secret(0) == ()
    assert kind(game) == "core.move" and moving_piece(game) == 2


@pytest.mark.parametrize(("options", "bank"), [
    ({"base.hirotada_bank_coin": "choice"}, 1),
    ({"base.hirotada_bank_coin": "auto"}, 2),
], ids=["choice", "auto"])
def test_hirotada_with_health_amulet_first_then_donation(options: dict[str, object],
                                                         bank: int) -> None:
    """RULES.md 8 hirotada_bank_coin with Health (5.5: both options, in the order chosen):
    "auto" adds a bank coin after each temple action, the amulet option and then the
    donation (2); "choice" offers one bank coin for the stop, after both actions."""
    game = lucky(["hirotada", "kinko", "mitsukuni"], {0: "health"}, queue=(1, 2, 0),
                 coins={0: 5}, options=options)
    before = game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet", health=True)
    game = act(game, TakeAmulet, amulet="fortune")
    assert donated(game) == bank - 1
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=1)
    if bank == 1:
        assert kind(game) == "base.bank_coin"
        game = act(game, AddBankCoin, add=True)
    assert not legal(game, AddBankCoin)
    assert delta(before, game) == {"coins": -2, "donation": 1 + bank, "points": 1 + bank}
    assert game.state.secret(0) == ("fortune",)
    assert kind(game) == "core.move" and moving_piece(game) == 2

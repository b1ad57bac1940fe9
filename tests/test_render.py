"""Pictures (tokaido_rules.render): SVG for every ruleset and player count, text that
keeps to its width, display names instead of ids, and a seat's picture that shows
nothing the seat may not see."""

from __future__ import annotations

import ast
import io
import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from attrs import evolve

from test_conformance import COMBINATIONS
from tokaido_rules import (
    Game,
    PluginDefinitionError,
    PluginInfo,
    Ruleset,
    Setup,
    View,
    decisions,
    hookimpl,
    new_game,
    secret_zone,
)
from tokaido_rules.render import (
    SceneMemo,
    journey_lines,
    notes,
    road_text,
    scene,
    scene_json,
    score_table,
    svg,
    text,
)
from tokaido_rules.rl import TokaidoAEC, TokaidoGymEnv
from tokaido_rules.testing import Twin, play, twins

SRC = Path(__file__).parent.parent / "src" / "tokaido_rules"
SHIPPED = ("base", "crossroads", "new-encounters", "initiation", "return-journey",
           "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga")
FULL = ("base", "crossroads", "new-encounters", "good-luck")


def games_along(plugins: tuple[str, ...], players: int, seed: int,
                every: int) -> list[Game]:
    """A random game at its first decision, every ``every`` decisions, and at the end."""
    ruleset = Ruleset.build(plugins)
    seen: list[Game] = []

    def keep(before: Game, after: Game, action: object) -> None:
        if not seen:
            seen.append(before)
        if len(seen) * every <= len(list(decisions(after.events))) or after.is_over:
            seen.append(after)

    play(ruleset, players, seed, keep)
    return seen


def svg_text(picture: str) -> list[str]:
    """The text nodes of an SVG picture (parsing it: it must be valid XML)."""
    root = ET.fromstring(picture)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return [t.strip() for t in root.itertext() if t.strip()]


# --- every ruleset, every player count --------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("plugins", COMBINATIONS, ids="+".join)
def test_svg_renders_for_every_combination(plugins: tuple[str, ...], players: int) -> None:
    """A game and every seat's view draw as valid SVG, at the start, along the journey
    and at the end, for every shipped combination and player count; the same picture
    twice is the same string."""
    for game in games_along(plugins, players, seed=7 * players, every=40):
        picture = svg(game)
        assert picture == svg(game)
        svg_text(picture)
        for seat in range(players):
            svg_text(svg(game.view(seat)))


# --- width ------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [40, 80, 120])
@pytest.mark.parametrize("players", [2, 5])
def test_text_keeps_to_its_width(width: int, players: int) -> None:
    """The text picture, the road, the score table and the journey never write a line
    longer than ``width``, with the most categories and notes (Crossroads and promos)."""
    games = games_along(FULL, players, seed=11, every=30)
    end = games[-1]
    assert end.is_over
    for game in games:
        for picture in (text(game, width=width), text(game.view(0), width=width)):
            assert max(map(len, picture.splitlines())) <= width
        assert max(map(len, road_text(game, width=width))) <= width
    assert max(map(len, score_table(end, width=width).splitlines())) <= width
    assert max(map(len, journey_lines(end, width=width))) <= width


def test_the_road_fills_the_width_between_inns() -> None:
    """At 80 columns each line of the road runs from an inn to the next; at 40 a stretch
    between inns is cut in even parts."""
    def numbers(road: list[str]) -> list[list[str]]:  # the line above each kinds line
        return [road[n - 1].split() for n, line in enumerate(road) if "Inn" in line
                or "Vil" in line]

    game = new_game(4, seed=1)
    assert [(row[0], row[-1]) for row in numbers(road_text(game, width=80))] == [
        ("0", "14"), ("15", "27"), ("28", "41"), ("42", "54")]
    assert [len(row) for row in numbers(road_text(game, width=40))[:2]] == [8, 7]


def test_score_table_is_wide_where_it_fits_and_turned_where_not() -> None:
    """Seats are rows when every category fits as a column, else columns."""
    game = games_along(("base",), 3, seed=2, every=500)[-1]
    wide = score_table(game, width=200).splitlines()
    assert wide[0].split()[:2] == ["seat", "traveller"] and wide[0].split()[-2:] == [
        "total", "rank"]
    turned = score_table(game, width=80).splitlines()
    assert [line.split()[0] for line in turned][:2] == ["seat", "traveller"]
    assert turned[-2].startswith("total") and turned[-1].startswith("rank")


# --- display names ------------------------------------------------------------------------


def test_every_shipped_thing_has_a_display_name() -> None:
    """Every traveller, card, score category, space kind and card kind of the shipped
    plugins has a display name, registered by the plugin that owns it."""
    registry = Ruleset.build(SHIPPED).registry
    assert all(t.label for t in registry.travellers.values())
    assert all(c.name for c in registry.cards.values())
    assert all(registry.categories.values())
    kinds = {s.kind for s in registry.board}
    assert kinds <= set(registry.space_kinds)
    assert all(k.label and k.short for k in registry.space_kinds.values())
    assert {c.kind for c in registry.cards.values()} <= set(registry.card_kinds)
    assert registry.card_name("achievement.gourmet") == "Gourmet achievement"
    assert registry.traveller_name("zenemon") == "Zen-emon"


def internal_ids(registry: object) -> list[str]:
    """Ids shown differently to people: travellers, cards, and every id written with a
    dot or an underscore (categories, kinds)."""
    from tokaido_rules import Registry

    assert isinstance(registry, Registry)
    ids = [t.name for t in registry.travellers.values() if t.label != t.name]
    ids += [c.id for c in registry.cards.values() if c.name != c.id]
    ids += [c for c in registry.categories if "_" in c]
    ids += [k for k in (*registry.space_kinds, *registry.card_kinds) if "_" in k]
    return ids


def test_pictures_and_the_journey_show_display_names_not_ids() -> None:
    """No traveller or card id, nor any category or kind id, appears in a picture (text
    or SVG), the journey or the score table: e.g. "Zen-emon", never "zenemon"."""
    games = games_along(FULL, 4, seed=5, every=25)
    end = games[-1]
    registry = end.ruleset.registry
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, internal_ids(registry)))
                         + r")(?![\w-])")
    outputs = ["\n".join(journey_lines(end, width=100)), score_table(end)]
    for game in games:
        outputs += [text(game), "\n".join(svg_text(svg(game)))]
        outputs += [text(game.view(1)), "\n".join(svg_text(svg(game.view(1))))]
    found = {m.group(1) for out in outputs for m in pattern.finditer(out)}
    assert not found, f"ids shown: {sorted(found)}"
    assert any(name in outputs[0] for name in ("Gourmet achievement", "Bather achievement",
                                               "Collector achievement"))


def test_a_space_kind_colour_must_be_rgb() -> None:
    """A space kind's colour goes into pictures as is: only #rrggbb is accepted."""
    from tokaido_rules import Registry

    registry = Registry()
    registry.add_space_kind("x.kind", "Kind", colour="#a0b1c2")
    with pytest.raises(PluginDefinitionError, match="#rrggbb"):
        registry.add_space_kind("y.kind", "Kind", colour='red" onload="x')


# --- hidden information -------------------------------------------------------------------


def test_a_seat_scene_holds_only_its_view() -> None:
    """The scene of a view holds the view's zones and data, nothing more; the scene of a
    game holds everything."""
    game = games_along(FULL, 4, seed=3, every=30)[2]
    view = game.view(2)
    sc = scene(view)
    assert sc.zones == view.zones and sc.data == view.data and sc.seat == 2
    assert all(sc.cards(zone) is None for zone in view.hidden_backs if view.zone_sizes[zone])
    whole = scene(game)
    assert whole.seat is None and whole.zones == game.state.zones


def test_a_memo_kept_for_a_game_gives_every_audience_its_own_scene() -> None:
    """A :class:`SceneMemo` kept for one game (as a server keeps one per table), asked
    for every audience's scene in turn and in any order, gives each the scene it gets
    from a new memo: what is found by identity never carries a seat's own cards (its
    piece's list of cards, its private draws, their facts) into another audience's
    scene. Checked along a game with private draws (amulets, encounters kept)."""
    memo = SceneMemo()
    rng = random.Random(7)
    secret = scenes = 0
    for game in games_along(FULL, 4, seed=5, every=2):
        views = [game.view(seat) for seat in range(4)] + [game.public_view()]
        for k in rng.sample(range(5), 5):
            view = views[k]
            got = scene_json(view, memo=memo)
            assert got == scene_json(view, memo=SceneMemo()), f"audience {k}, seq {view.seq}"
            assert got == scene_json(view), f"audience {k}, seq {view.seq}"
            for piece in got["pieces"]:
                assert ("cards" in piece) == (piece["seat"] is not None
                                              and piece["seat"] == view.seat)
            visible = {card for cards in view.zones.values() for card in cards}
            noted = {card for note in got["notes"] for card in note["cards"]}
            assert set(got["cards"]) <= visible and noted <= visible
            others = [v for v in views if v is not view]
            only_here = {card for zone, cards in view.zones.items()
                         if any(zone not in v.zones for v in others) for card in cards}
            secret += bool(noted & only_here)
            scenes += 1
    assert scenes > 200 and secret > 20


def test_the_base_game_notes_found_by_identity_are_those_made_anew() -> None:
    """The base game finds a piece's notes by the piece's identity (and the table's by
    the zone sizes' identity) when every audience's picture of a move asks: each
    audience, asked in any order, gets the notes made with the plugin's memos emptied,
    a seat's own offer and private draws in its notes only."""
    from tokaido_base import pictures

    rng = random.Random(11)
    for game in games_along(("base",), 4, seed=8, every=1)[:60]:
        views = [game.view(seat) for seat in range(4)] + [game.public_view()]
        for k in rng.sample(range(5), 5) * 2:
            found = notes(views[k])
            pictures._BY_PIECE.clear()
            pictures._KEPT.clear()
            assert found == notes(views[k]), f"audience {k}, seq {game.state.seq}"


def _card_words(game: Game, view: View) -> tuple[set[str], set[str]]:
    """The display names of the cards of zones ``view``'s seat cannot see and of those it
    can, but for names that read as a kind and a number (``Hot spring 2``), which a
    picture may show as a label beside a figure."""
    registry = game.ruleset.registry
    labels = {k.label for k in registry.space_kinds.values()} | set(registry.card_kinds.values())
    plain = re.compile("(" + "|".join(map(re.escape, labels)) + r") \d+")
    hidden: set[str] = set()
    shown: set[str] = set()
    for zone, cards in game.state.zones.items():
        names = {registry.card_name(c) for c in cards}
        (shown if zone in view.zones else hidden).update(names)
    return {n for n in hidden - shown if not plain.fullmatch(n)}, shown


def test_a_seat_picture_never_names_a_card_it_cannot_see() -> None:
    """Along a Crossroads game with random amulets and promo cards, no seat's text or
    SVG picture names a card found only in zones the seat cannot see (the decks, the
    inn's meal hand before the seat arrives, another seat's amulets); the game's own
    picture does name such cards (another seat's amulets, the meal hand), so the check
    can fail."""
    setup = Setup(travellers=("mitsukuni", "kita", "satsuki", "yoshiyasu"),
                  chance={"pick.crossroads.amulets": ["vitality", "fortune", "health",
                                                      "devotion"]})
    ruleset = Ruleset.build(FULL)
    game = new_game(4, seed=21, plugins=ruleset, setup=setup)
    from tokaido_rules.bots import RandomBot, next_action

    bot = RandomBot(4)
    caught = 0
    steps = 0
    while not game.is_over:
        if steps % 6 == 0:
            whole = text(game) + "\n".join(svg_text(svg(game)))
            for seat in range(4):
                view = game.view(seat)
                secret, _ = _card_words(game, view)
                if not secret:
                    continue
                words = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, secret))
                                   + r")(?![\w-])")
                mine = (text(view, width=100) + "\n" + "\n".join(svg_text(svg(view)))
                        + "\n" + json.dumps(scene_json(view), ensure_ascii=False))
                leaked = {m.group(1) for m in words.finditer(mine)}
                assert not leaked, f"seat {seat} sees {sorted(leaked)} at seq {game.state.seq}"
                caught += bool(words.search(whole))
        game = game.apply(next_action(bot, game))
        steps += 1
    assert caught > 5


def twin_points(game: Game, twin: Twin, every: int) -> Iterator[tuple[Game, Game]]:
    """The game and its twin side by side at every ``every``-th decision of the game,
    as long as the twin offers the game's decisions."""
    rules = game.state.rules
    setup = evolve(rules.setup, chance={**rules.setup.chance, **twin.chance})
    a = new_game(game.players, seed=game.seed, plugins=game.ruleset, setup=rules.setup)
    b = new_game(game.players, seed=game.seed, plugins=game.ruleset, setup=setup)
    for n, action in enumerate(decisions(game.events)):
        if n % every == 0:
            yield a, b
        if action not in b.legal_actions():
            return
        a, b = a.apply(action), b.apply(action)
    yield a, b


def test_a_seat_picture_is_the_same_in_twin_games_it_cannot_tell_apart() -> None:
    """The twin-game check of hidden information, on pictures: in twin games that differ
    in one hidden fact (a deck order, a random amulet, a traveller offered), wherever a
    seat's view is the same in both, so are its text and SVG pictures. The pictures of
    the two whole games do differ somewhere then (they show everything), so a seat's
    picture drawn from more than its view would be caught."""
    setup = Setup(chance={"pick.crossroads.amulets": ["friendship", "health"]})
    ruleset = Ruleset.build(FULL)
    start = new_game(4, seed=33, plugins=ruleset, setup=setup)
    from tokaido_rules.bots import RandomBot, next_action

    bot = RandomBot(9)
    game = start
    while not game.is_over:
        game = game.apply(next_action(bot, game))
    chosen = twins(game, 33, swaps=1)
    assert len(chosen) >= 6
    compared = revealing = scenes_differ = 0
    for twin in chosen:
        for a, b in twin_points(game, twin, every=5):
            same = [seat for seat in range(4) if a.view(seat) == b.view(seat)]
            for seat in same:
                va, vb = a.view(seat), b.view(seat)
                assert text(va) == text(vb), f"seat {seat}, twin {twin.label}"
                assert svg(va) == svg(vb), f"seat {seat}, twin {twin.label}"
                assert scene_json(va) == scene_json(vb), f"seat {seat}, twin {twin.label}"
                compared += 1
            if same and svg(a) != svg(b):
                revealing += 1
                scenes_differ += scene_json(a) != scene_json(b)
    assert compared > 300 and revealing > 10 and scenes_differ == revealing


# --- notebooks, the RL environments, the import graph --------------------------------


def test_games_and_views_show_as_svg_in_notebooks() -> None:
    """Game and View have _repr_svg_: the game's picture shows everything, the view's
    only its seat's."""
    game = games_along(FULL, 3, seed=8, every=30)[1]
    assert game._repr_svg_() == svg(game)
    view = game.view(1)
    assert view._repr_svg_() == svg(view)
    assert "as seat 1 sees it" in " ".join(svg_text(view._repr_svg_()))
    assert ET.fromstring(game._repr_svg_()).get("width") == "1200"


def test_rl_environments_render_the_board_as_text() -> None:
    """render_mode "ansi" returns the picture as text and "human" prints it: the whole
    game for the multi-agent environment, the agent's view for the single-agent one."""
    aec = TokaidoAEC(players=3, render_mode="ansi")
    aec.reset(seed=4)
    shown = aec.render()
    assert shown is not None and shown == text(aec.game, width=80)
    assert set(TokaidoAEC.metadata["render_modes"]) == {"ansi", "human"}
    gym = TokaidoGymEnv(players=3, seat=1, render_mode="human")
    gym.reset(seed=4)
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert gym.render() is None
    assert printed.getvalue() == text(gym.game.view(1), width=80) + "\n"
    assert "as seat 1 sees it" in printed.getvalue()
    assert TokaidoGymEnv(players=3).render() is None


def _imports(module: str) -> set[str]:
    tree = ast.parse((SRC / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
            found.update("." * node.level + a.name for a in node.names if not node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_command_line_play_and_rl_draw_through_render_only() -> None:
    """The pictures live in render: play and rl no longer import the CLI (no cycle
    cli <-> play, no rl -> cli), and render imports neither them nor rich."""
    assert ".cli" not in _imports("play")
    assert ".cli" not in _imports("rl")
    assert ".render" in _imports("play") and ".render" in _imports("rl")
    assert ".render" in _imports("cli")
    mine = _imports("render")
    assert not {".cli", ".play", ".rl"} & mine
    assert not any(name.split(".")[0] == "rich" for name in mine)
    assert all(not any(n.split(".")[0] == "rich" for n in _imports(p.stem))
               for p in SRC.glob("*.py") if p.stem != "cli")


def test_a_seat_amulet_is_named_for_its_owner_and_counted_for_others() -> None:
    """Crossroads' note: the owner's picture names its amulet, the others' count it."""
    setup = Setup(travellers=("mitsukuni", "kita", "satsuki"),
                  chance={"pick.crossroads.amulets": ["fortune", "health", "vitality"]})
    game = new_game(3, seed=2, plugins=FULL, setup=setup)
    from tokaido_base import BuyMeal  # noqa: F401 - the base plugin is loaded
    from tokaido_variants.good_luck import BuyLuck

    while game.state.zone(secret_zone(0)) == ():
        legal = game.legal_actions()
        buy = [a for a in legal if isinstance(a, BuyLuck) and a.buy]
        game = game.apply(buy[0] if buy else legal[0])
    held = game.ruleset.registry.card_name(game.state.zone(secret_zone(0))[0])
    assert f"Amulets: {held}" in text(game.view(0))
    assert f"Amulets: {held}" not in text(game.view(1))
    assert "Amulets: 1 held" in text(game.view(1))
    assert f"Amulets: {held}" in text(game)


def test_the_documentation_picture_is_up_to_date() -> None:
    """docs/_static/board.svg (README, tutorial, reference) is what make_board.py draws
    today: after a change to the pictures or to how the bots play, run
    ``python docs/_static/make_board.py`` and look at the new picture."""
    import runpy

    folder = Path(__file__).parent.parent / "docs" / "_static"
    board = runpy.run_path(str(folder / "make_board.py"))["board"]
    picture = board()
    assert "Amulets" in svg_text(picture)
    assert (folder / "board.svg").read_text(encoding="utf-8") == picture + "\n", (
        "docs/_static/board.svg is out of date: run python docs/_static/make_board.py")


# --- what a player needs: card facts, travellers, the legend, the end (issue 34) --------


def test_card_facts_give_the_printed_price_family_and_points() -> None:
    """A card's facts are the rules' figures: Sake is a 2-coin souvenir of the food and
    drink family, Ukiyoe a 3-coin art souvenir, a meal costs its printed price and
    scores 6, Samurai's effect is 3 points; Crossroads adds Buppatsu to a fifth family
    and restates how sets score (the fifth card of a set: 9)."""
    from tokaido_rules.render import card_facts

    base = Ruleset.build(("base",))
    sake = card_facts("sake", base)
    assert (sake.name, sake.kind, sake.family, sake.family_name, sake.price, sake.points) == (
        "Sake", "souvenir", "food_drinks", "food and drink", 2, 0)
    assert sake.summary() == "souvenir, food and drink family, 2 coins"
    assert sake.sets is not None and "1, 3, 5 and 7" in sake.sets
    assert sake.attributes() == {"data-card": "sake", "data-kind": "souvenir",
                                 "data-name": "Sake", "data-price": "2",
                                 "data-family": "food_drinks",
                                 "data-family-name": "food and drink"}
    ukiyoe = card_facts("ukiyoe", base)
    assert (ukiyoe.family_name, ukiyoe.price) == ("art", 3)
    assert card_facts("koma", base).price == 1
    tempura, fugu = card_facts("tempura", base), card_facts("fugu", base)
    assert (tempura.kind, tempura.price, tempura.points) == ("meal", 2, 6)
    assert (fugu.price, fugu.points, fugu.family) == (3, 6, None)
    assert tempura.summary() == "meal, 2 coins, 6 points"
    assert card_facts("samurai", base).summary() == "encounter: 3 points"
    assert card_facts("hot_spring.3", base).summary() == "hot spring, 3 points"
    assert card_facts("sea.5", base).points == 5
    assert "most spent on meals" in (card_facts("achievement.gourmet", base).effect or "")

    crossroads = Ruleset.build(("base", "crossroads"))
    buppatsu = card_facts("buppatsu", crossroads)
    assert (buppatsu.kind_name, buppatsu.family, buppatsu.price) == (
        "legendary object", "legendary", 2)
    assert buppatsu.summary().startswith("legendary object, fifth family, 2 coins")
    assert "9" in (card_facts("sake", crossroads).sets or "")
    murasame = card_facts("murasame", crossroads)
    assert (murasame.price, murasame.points) == (3, 8)
    assert card_facts("bath_house", crossroads).summary() == (
        "bath house, 1 coin, 4 points: counts as a hot spring")


def test_traveller_facts_give_the_starting_coins_and_the_power() -> None:
    """A traveller's facts: its display name, the rules' starting coins, its power in a
    short sentence (Crossroads' own travellers through its plugin)."""
    from tokaido_rules.render import traveller_facts

    ruleset = Ruleset.build(("base", "crossroads"))
    kinko = traveller_facts("kinko", ruleset)
    assert (kinko.name, kinko.coins) == ("Kinko", 7)
    assert kinko.power is not None and "meal" in kinko.power
    assert kinko.summary().startswith("7 starting coins; ")
    assert traveller_facts("yoshiyasu", ruleset).coins == 9
    assert traveller_facts("zenemon", ruleset).name == "Zen-emon"
    assert traveller_facts("gotozaemon", ruleset).coins == 0
    registry = ruleset.registry
    assert all(traveller_facts(t, ruleset).power for t in registry.travellers)
    assert all("," not in (traveller_facts(t, ruleset).power or "")
               for t in registry.travellers)  # a note's items are separated by commas


def test_describing_a_decision_with_facts() -> None:
    """describe_action(..., facts=True) names each card and traveller with what a player
    choosing needs (price, family, starting coins, power); the plain description stays
    a short line (the terminal's numbered list, the journey)."""
    from tokaido_base import BuyMeal, BuySouvenirs, ChooseTraveller
    from tokaido_crossroads.actions import TakeAmulet, TakeCalligraphy
    from tokaido_rules.render import describe_action

    state = new_game(3, seed=1, plugins=("base", "crossroads")).state
    buy = BuySouvenirs(0, 0, ("sake", "ukiyoe"), None)
    assert describe_action(state, buy) == "seat 0: buy Sake, Ukiyoe"
    assert describe_action(state, buy, facts=True) == (
        "seat 0: buy Sake (souvenir, food and drink family, 2 coins), "
        "Ukiyoe (souvenir, art family, 3 coins)")
    discounted = BuySouvenirs(0, 0, ("sake", "geta"), "geta")
    said = describe_action(state, discounted, facts=True)
    assert said.count("clothing family") == 1 and said.endswith("(1 coin for Geta)")
    assert describe_action(state, BuyMeal(1, 1, "tempura"), facts=True) == (
        "seat 1: buy Tempura (meal, 2 coins, 6 points)")
    choose = describe_action(state, ChooseTraveller(2, "kinko"), facts=True)
    assert choose == "seat 2: choose Kinko (7 starting coins; pays 1 coin less for every meal)"
    assert describe_action(state, ChooseTraveller(2, "kinko")) == "seat 2: choose Kinko"
    amulet = describe_action(state, TakeAmulet(0, 0, "vitality"), facts=True)
    assert amulet.startswith("seat 0: take the Vitality amulet (1 coin: ")
    calligraphy = describe_action(state, TakeCalligraphy(0, 0, "foresight"), facts=True)
    assert calligraphy == ("seat 0: take the Foresight calligraphy "
                           "(1 coin: at the end, 2 points per coin left)")


def village_view() -> View:
    """Seat 2 at a village where Sake, Geta and Ukiyoe are revealed."""
    from tokaido_rules import Move

    setup = Setup(travellers=("kinko", "umegae", "satsuki"), queue=(0, 1, 2),
                  stacks={"base.souvenirs": ("sake", "geta", "ukiyoe")})
    game = new_game(3, plugins=["base"], setup=setup).apply(Move(2, 2, 1, 0))
    assert game.state.zone("base.village") == ("sake", "geta", "ukiyoe")
    return game.view(2)


def test_pictures_show_the_facts_of_the_cards_on_offer() -> None:
    """The village's souvenirs show their price and family: in text, and in SVG as
    small cards with data attributes (data-card, data-price, data-family) and their
    facts as a tooltip; a traveller's souvenirs are counted by family."""
    view = village_view()
    said = text(view, width=120)
    assert "Village: Sake (souvenir, food and drink family, 2 coins), Geta (souvenir, " \
        "clothing family, 2 coins)" in said
    assert "Ukiyoe (souvenir, art family, 3 coins)" in said
    root = ET.fromstring(svg(view))
    ns = "{http://www.w3.org/2000/svg}"
    chips = {g.get("data-card"): g for g in root.iter(f"{ns}g") if g.get("class") == "card"}
    assert set(chips) == {"sake", "geta", "ukiyoe"}
    assert [chips["sake"].get(a) for a in ("data-price", "data-family", "data-kind")] == [
        "2", "food_drinks", "souvenir"]
    assert chips["ukiyoe"].get("data-price") == "3"
    assert chips["geta"].get("data-family-name") == "clothing"
    title = chips["sake"].find(f"{ns}title")
    assert title is not None and title.text is not None
    assert title.text.startswith("Sake: souvenir, food and drink family, 2 coins. Sets: ")


def test_the_offered_travellers_show_their_coins_and_powers() -> None:
    """Choosing a traveller, the seat's picture lists the two offered with their
    starting coins and powers; another seat's picture lists its own offer only (the
    offers are secret)."""
    game = new_game(3, seed=4)
    offered = [a.traveller for a in game.legal_actions()]  # type: ignore[attr-defined]
    assert len(offered) == 2 and game.current_player == 0
    from tokaido_rules.render import traveller_facts

    facts = [traveller_facts(t, game.ruleset) for t in offered]
    mine = text(game.view(0), width=200)
    assert all(f"{f.name} ({f.coins} starting coins; " in mine for f in facts)
    assert "Travellers offered" in " ".join(svg_text(svg(game.view(0))))
    other = text(game.view(1), width=200)
    assert other.count("Travellers offered") == 1
    assert not any(f"{f.name} ({f.coins} starting coins; " in other for f in facts)


def finished(plugins: tuple[str, ...] = ("base",), players: int = 3, seed: int = 2) -> Game:
    game = games_along(plugins, players, seed=seed, every=10_000)[-1]
    assert game.is_over
    return game


def test_final_standings_rank_the_seats_as_the_rules_do() -> None:
    """final_standings: the seats in rank order, as Game.scores ranks them; points by
    category (display names) sum to each total; the winners are Game.winners(); the
    same from the game, from a seat's view and from the scores themselves."""
    from tokaido_rules.render import final_standings

    game = finished(("base", "crossroads"), 4, seed=6)
    rows = final_standings(game)
    scores = {s.seat: s for s in game.scores()}
    assert [r.rank for r in rows] == sorted(s.rank for s in scores.values())
    assert [r.total for r in rows] == sorted((s.total for s in scores.values()), reverse=True)
    for r in rows:
        assert r.rank == scores[r.seat].rank and r.total == scores[r.seat].total
        assert sum(v for _, v in r.categories) == r.total
        assert r.traveller == game.ruleset.registry.traveller_name(
            scores[r.seat].traveller or "")
    names = [c for c, _ in rows[0].categories]
    assert "Temple ranking" in names and "Cherry trees" in names
    assert {r.seat for r in rows if r.winner} == set(game.winners())
    assert final_standings(game.view(1)) == rows
    assert final_standings(game.scores(), game.ruleset) == rows
    middle = games_along(("base",), 3, seed=2, every=20)[1]
    assert not middle.is_over
    assert not any(r.winner for r in final_standings(middle))


def test_the_outcome_says_who_won_and_how() -> None:
    """One winner with its points; the tie-break named where it decided (the base game:
    more achievement cards); a shared victory; during a game, the leader."""
    from tokaido_rules import Score
    from tokaido_rules.frozen import FrozenMap
    from tokaido_rules.render import final_standings, outcome

    ruleset = Ruleset.build(("base",))
    cats = FrozenMap(dict.fromkeys(ruleset.registry.categories, 0))

    def score(seat: int, total: int, tiebreak: int, rank: int) -> Score:
        return Score(seat, ("kinko", "umegae", "satsuki")[seat], total,
                     cats.set("meals", total), tiebreak, rank)

    by_tiebreak = [score(0, 60, 1, 2), score(1, 60, 3, 1), score(2, 40, 0, 3)]
    assert outcome(by_tiebreak, ruleset) == (
        "Winner: seat 1 (Umegae), 60 points, on the tie-break (more achievement cards).")
    rows = final_standings(by_tiebreak, ruleset)
    assert [(r.seat, r.rank, r.winner) for r in rows] == [
        (1, 1, True), (0, 2, False), (2, 3, False)]
    assert rows[0].categories[list(ruleset.registry.categories).index("meals")] == (
        "Meals", 60)
    shared = [score(0, 60, 2, 1), score(1, 60, 2, 1), score(2, 40, 0, 3)]
    assert outcome(shared, ruleset) == (
        "Winners, a shared victory: seat 0 (Kinko) and seat 1 (Umegae), 60 points each.")
    game = finished()
    best = max(game.scores(), key=lambda s: s.total)
    assert outcome(game).startswith(f"Winner: seat {game.winners()[0]} (")
    assert f"{best.total} points" in outcome(game)
    middle = games_along(("base",), 3, seed=2, every=20)[1]
    assert outcome(middle).startswith("Leader")


def test_a_finished_games_pictures_mark_the_winners() -> None:
    """The SVG of a finished game marks the winners (data-winner on the piece and the
    card, a star, "winner") and says who won in its title; data-winners on the root.
    The text picture ends with the standings: who won, ranks, points by category."""
    from tokaido_rules.render import final_standings, outcome

    game = finished(("base",), 3, seed=2)
    winners = set(game.winners())
    for subject in (game, game.view(0)):
        picture = svg(subject)
        root = ET.fromstring(picture)
        ns = "{http://www.w3.org/2000/svg}"
        assert root.get("data-over") == "true"
        assert root.get("data-winners") == ",".join(map(str, sorted(winners)))
        cards = [g for g in root.iter(f"{ns}g") if g.get("class") == "traveller"]
        pieces = [g for g in root.iter(f"{ns}g") if g.get("class") == "piece"]
        for found in (cards, pieces):
            assert {int(g.get("data-seat") or -1) for g in found
                    if g.get("data-winner") == "true"} == winners
        ranks = {int(g.get("data-seat") or -1): int(g.get("data-rank") or 0) for g in cards}
        assert ranks == {s.seat: s.rank for s in game.scores()}
        assert len(list(root.iter(f"{ns}polygon"))) >= 2 * len(winners)  # the stars
        assert outcome(game) in svg_text(picture)
    said = text(game, width=80)
    assert outcome(game) in said
    first = final_standings(game)[0]
    assert f" 1st  seat {first.seat} ({first.traveller}): {first.total} points, winner" in said
    middle = games_along(("base",), 3, seed=2, every=20)[1]
    assert 'data-winner="true"' not in svg(middle)
    assert ET.fromstring(svg(middle)).get("data-over") == "false"


def test_the_legend_says_what_each_mark_means() -> None:
    """legend_items: the kinds of space, a double space's dots, an open second slot,
    each seat's colour, the neutral traveller (2 players), the ring, the winner's star,
    the souvenir families; as HTML, as its own SVG, and in the picture on request."""
    from tokaido_rules.render import (
        SEAT_COLOURS,
        legend_html,
        legend_items,
        legend_svg,
    )

    game = new_game(2, seed=3)
    items = legend_items(game)
    keys = [i.key for i in items]
    assert keys[:2] == ["space:inn", "space:village"]
    assert {"double", "slot", "seat:0", "seat:1", "neutral", "to-play", "winner",
            "family:food_drinks", "family:art"} <= set(keys)
    assert "seat:2" not in keys
    labels = {i.key: i.label for i in items}
    assert labels["space:hot_spring"] == "Hot spring"
    assert SEAT_COLOURS[1] in next(i.swatch for i in items if i.key == "seat:1")
    html = legend_html(game)
    root = ET.fromstring(html)
    assert root.tag == "ul" and root.get("class") == "tokaido-legend"
    assert [li.get("data-key") for li in root] == keys
    assert "food and drink family" in html
    alone = ET.fromstring(legend_svg(game, columns=3))
    assert len([g for g in alone if g.get("data-key")]) == len(items)
    assert 'class="legend"' in svg(game, legend=True)
    assert 'class="legend"' not in svg(game)
    assert "neutral" not in [i.key for i in legend_items(new_game(4, seed=3))]
    assert "seat:4" in [i.key for i in legend_items(Ruleset.build(("base",)))]


class Glossed:
    """tokaido_render_glossary: a plugin's words replace those of the plugins before
    it (here Kinko's power and the tie-break)."""

    tokaido_plugin = PluginInfo("glossed", "1", requires=("base",))

    @hookimpl
    def tokaido_render_glossary(self, registry: object) -> dict[str, str]:
        return {"traveller:kinko": "Eats cheaply.", "tiebreak": "a coin toss"}


class Garbled:
    """A tokaido_render_glossary that returns a list instead of a mapping."""

    tokaido_plugin = PluginInfo("garbled", "1", requires=("base",))

    @hookimpl
    def tokaido_render_glossary(self, registry: object) -> object:
        return ["not", "a", "mapping"]


def test_render_glossary_hook() -> None:
    """The glossaries merge in plugin order, a later word replacing an earlier one; a
    glossary of the wrong type is a PluginError naming the plugin and the hook."""
    from tokaido_rules import PluginError
    from tokaido_rules.render import glossary, traveller_facts

    ruleset = Ruleset.build(["base", Glossed()])
    assert traveller_facts("kinko", ruleset).power == "Eats cheaply."
    assert glossary(ruleset)["tiebreak"] == "a coin toss"
    assert glossary(ruleset)["family:art"] == "art"  # the base game's word stays
    with pytest.raises(PluginError, match=r"garbled.*tokaido_render_glossary"):
        glossary(Ruleset.build(["base", Garbled()]))

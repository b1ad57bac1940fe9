"""Pictures (tokaido_rules.render): SVG for every ruleset and player count, text that
keeps to its width, display names instead of ids, and a seat's picture that shows
nothing the seat may not see."""

from __future__ import annotations

import ast
import io
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
    Ruleset,
    Setup,
    View,
    decisions,
    new_game,
    secret_zone,
)
from tokaido_rules.render import (
    journey_lines,
    road_text,
    scene,
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
                mine = text(view, width=100) + "\n" + "\n".join(svg_text(svg(view)))
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
    compared = revealing = 0
    for twin in chosen:
        for a, b in twin_points(game, twin, every=5):
            same = [seat for seat in range(4) if a.view(seat) == b.view(seat)]
            for seat in same:
                va, vb = a.view(seat), b.view(seat)
                assert text(va) == text(vb), f"seat {seat}, twin {twin.label}"
                assert svg(va) == svg(vb), f"seat {seat}, twin {twin.label}"
                compared += 1
            if same and svg(a) != svg(b):
                revealing += 1
    assert compared > 300 and revealing > 10


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

"""The fast simulator's views, built straight from its flat state, are the reference's.

At every decision of many games played side by side with the reference engine, the view
of every seat and the public view equal the reference game's field by field, and in the
order of every mapping (zones, their sizes, card backs, data, scores and counters): a
view is what a bot, an observation or a client's message is made from, so it shows
exactly what the reference view shows, no more. Every ruleset the fast simulator covers
is viewed directly (each plugin fills its part of the view tables); one whose views the
builder does not know is viewed through the replay (``to_game()``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tokaido_rules import Game, Ruleset, Setup, new_game
from tokaido_rules.fast import FastGame, ViewableGame, _Policy, views_direct
from tokaido_rules.testing import covered_rulesets
from tokaido_rules.views import UnknownSeatError, View

TRAVELLERS = ("chuubei", "hiroshige", "hirotada", "kinko", "mitsukuni", "sasayakko",
              "satsuki", "umegae", "yoshiyasu", "zenemon")
COVERED = covered_rulesets()
"""Every ruleset the fast simulator covers (plugins, options), as the differential suite
plays them."""


def ruleset_id(index: int) -> str:
    ids, options = COVERED[index]
    return "+".join(ids[1:] or ids) + ("" if not options else f"-{len(options)}options"
                                       if len(options) > 1 else f"-{next(iter(options))}="
                                       f"{next(iter(options.values()))}")


def view_fields(view: View) -> dict[str, Any]:
    """Every field of a view, each mapping as its list of items (the order counts)."""
    return {
        "seat": view.seat, "players": view.players, "seq": view.seq, "turn": view.turn,
        "over": view.over,
        "pieces": [(p, list(p.score.items()), list(p.counters.items())) for p in view.pieces],
        "zones": list(view.zones.items()), "zone_sizes": list(view.zone_sizes.items()),
        "hidden_backs": [(k, list(b.items())) for k, b in view.hidden_backs.items()],
        "data": list(view.data.items()), "agenda": view.agenda,
        "current_player": view.current_player, "current_step": view.current_step,
        "legal_actions": view.legal_actions,
        "ruleset": (view.ruleset.ids, list(view.ruleset.options.items())),
    }


def first_difference(fast: FastGame, game: Game) -> str | None:
    """The first field in which a view of ``fast`` differs from the reference's."""
    for seat in (None, *range(game.players)):
        got, expected = view_fields(fast.view(seat)), view_fields(game.view(seat))
        for name, value in expected.items():
            if got[name] != value:
                return f"seat {seat}, {name}: {got[name]!r}, not {value!r}"
        if fast.view(seat) != game.view(seat):
            return f"seat {seat}: the views are not equal"
    return None


def play_side_by_side(players: int, seed: int, *, ruleset: Ruleset | None = None,
                      given: bool = False, policy: str = "random",
                      kind: type[FastGame] = ViewableGame, setup: Setup | None = None,
                      every: int = 1) -> int:
    """Play one game on both engines, comparing the views at every ``every``-th
    decision and at the end; the decisions compared."""
    return side_by_side(players, seed, ruleset=ruleset, given=given, policy=policy,
                        kind=kind, setup=setup, every=every)[0]


def side_by_side(players: int, seed: int, *, ruleset: Ruleset | None = None,
                 given: bool = False, policy: str = "random",
                 kind: type[FastGame] = ViewableGame, setup: Setup | None = None,
                 every: int = 1) -> tuple[int, FastGame]:
    """As :func:`play_side_by_side`: the decisions compared and the fast game at its end."""
    ruleset = ruleset or Ruleset.build(["base"])
    rng = random.Random(seed * 31 + players)
    travellers = tuple(rng.sample(TRAVELLERS, players)) if given else None
    game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers, setup=setup)
    fast = kind.new(players, seed=seed, plugins=ruleset, travellers=travellers, setup=setup)
    choose = _Policy(policy, rng, ruleset.registry.board)
    made = 0
    while True:
        if made % every == 0 or game.is_over:
            found = first_difference(fast, game)
            assert found is None, f"{players} players, seed {seed}, decision {made}: {found}"
        if game.is_over:
            return made, fast
        index = choose(game.legal_actions())
        game = game.apply(game.legal_actions()[index])
        fast.apply(fast.legal_actions()[index])
        made += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_view_at_every_decision_is_the_reference_view(players: int) -> None:
    """12 base games per player count (travellers offered and given, random and seeking
    choices, a ViewableGame and a plain FastGame that replays its decisions): every
    seat's view and the public view, at every decision."""
    decisions = 0
    for seed in range(12):
        decisions += play_side_by_side(
            players, 100 * players + seed, given=seed % 2 == 1,
            policy=("random", "seek", "eager")[seed % 3],
            kind=FastGame if seed % 4 == 3 else ViewableGame)
    assert decisions > 12 * 50


@pytest.mark.parametrize("index", sorted(
    {i for i, (ids, _) in enumerate(COVERED) if len(ids) <= 2} | {len(COVERED) - 1}),
    ids=ruleset_id)
def test_every_covered_ruleset_is_viewed_directly(index: int) -> None:
    """No covered ruleset, at any player count, is left to the replay: each plugin with
    the base game at every option value, and the largest combination (every other
    covered ruleset at the player count of its game below)."""
    ids, options = COVERED[index]
    ruleset = Ruleset.build(ids, options)
    assert all(views_direct(ruleset, players) for players in (2, 3, 4, 5))


@pytest.mark.parametrize("index", range(len(COVERED)), ids=ruleset_id)
def test_every_covered_ruleset_gives_the_reference_views(index: int) -> None:
    """One game of every covered ruleset (every plugin combination, every option value;
    the player count turning with the index, random, seeking and eager choices, a plain
    FastGame now and then): every seat's view and the public view, at every decision."""
    ids, options = COVERED[index]
    ruleset = Ruleset.build(ids, options)
    assert views_direct(ruleset, 2 + index % 4)
    play_side_by_side(2 + index % 4, 1000 + index, ruleset=ruleset,
                      policy=("random", "seek", "eager")[index % 3],
                      kind=FastGame if index % 5 == 4 else ViewableGame)


EXAMPLES = [
    (("base", "pilgrim"), {}),
    (("base", "tea-ceremony"), {"tea-ceremony.points": 1}),
    (("base", "tea-ceremony"), {"tea-ceremony.points": 2}),
    (("base", "pilgrim", "tea-ceremony"), {}),
    (("base", "crossroads", "pilgrim", "tea-ceremony"), {}),
    (("base", "crossroads", "pilgrim", "tea-ceremony"), {"tea-ceremony.points": 2}),
]
"""The example distribution's rulesets (a third-party plugin's fast rules, additive):
each plugin with the base game (the tea at both of its values), both together, and
both with Crossroads."""


@pytest.mark.parametrize(("ids", "options"), EXAMPLES, ids=[
    "+".join(ids[1:]) + "".join(f"-{v}" for v in options.values()) for ids, options in EXAMPLES])
def test_the_example_plugins_are_viewed_directly_as_the_reference(
        ids: tuple[str, ...], options: dict[str, object]) -> None:
    """A third-party plugin's content in the direct views: Basho (given, so that he
    plays) and his coins, the tea's score category where it first appears in a score;
    one game per player count, every seat's view and the public one at every decision;
    the tea is seen served wherever the ruleset has it."""
    ruleset = Ruleset.build(ids, options)
    assert all(views_direct(ruleset, players) for players in (2, 3, 4, 5))
    travellers = sorted(set(ruleset.registry.travellers) - {"basho"})
    served = False
    for players in (2, 3, 4, 5):
        basho = ["basho"] if "pilgrim" in ids else []
        given = random.Random(players).sample(travellers, players - len(basho)) + basho
        _, fast = side_by_side(players, 50 + players, ruleset=ruleset,
                               setup=Setup(travellers=tuple(given)),
                               policy=("random", "seek", "eager", "random")[players - 2],
                               kind=FastGame if players == 5 else ViewableGame)
        pieces = fast.view(None).pieces
        assert [p.traveller for p in pieces[:players]] == given
        served = served or any("tea" in p.score for p in pieces)
    assert served == ("tea-ceremony" in ids)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_given_travellers_of_every_plugin_give_the_reference_views(players: int) -> None:
    """The largest covered combination that takes given travellers, with travellers of
    every plugin given: each traveller's power as a view shows it."""
    ids = max((ids for ids, options in COVERED if not options and "initiation" not in ids),
              key=len)
    ruleset = Ruleset.build(ids)
    travellers = sorted(ruleset.registry.travellers)
    for seed in range(3):
        rng = random.Random(seed)
        setup = Setup(travellers=tuple(rng.sample(travellers, players)))
        play_side_by_side(players, seed, ruleset=ruleset, setup=setup,
                          policy=("random", "seek", "eager")[seed])


def test_crafted_setups_give_the_reference_views() -> None:
    """A crafted queue, stacked decks (a supply among them) and starting coins, with
    offered and with given travellers."""
    setup = Setup(queue=(2, 0, 3, 1),
                  stacks={"base.encounters": ("annaibito.sea",) * 3,
                          "base.meals": ("fugu", "dango"), "base.panoramas": ("sea.1",)},
                  coins={0: 0, 2: 12})
    for seed in range(4):
        play_side_by_side(4, seed, setup=setup, kind=(ViewableGame, FastGame)[seed % 2])
    given = Setup(travellers=("yoshiyasu", "satsuki", "hiroshige"), coins={1: 1})
    for seed in range(4):
        play_side_by_side(3, seed, setup=given, policy="seek")


def test_a_plain_game_first_viewed_late_and_its_clones() -> None:
    """A FastGame viewed for the first time mid-game (its replay starts then), its clone
    and its ``applied`` copy (each with a replay of its own), and a ViewableGame's
    clone: each view is the reference's, and viewing one never changes another."""
    game = new_game(4, seed=9)
    rng = random.Random(9)
    plain = FastGame.new(4, seed=9)
    viewable = ViewableGame.new(4, seed=9)
    for _ in range(50):
        index = rng.randrange(len(game.legal_actions()))
        game = game.apply(game.legal_actions()[index])
        plain.apply(plain.legal_actions()[index])
        viewable.apply(viewable.legal_actions()[index])
    assert first_difference(plain, game) is None
    twins = [plain.clone(), viewable.clone(), plain.applied(plain.legal_actions()[0]),
             viewable.applied(viewable.legal_actions()[0])]
    assert twins[1].records_views and twins[3].records_views  # ViewableGame's games
    references = [game, game, game.apply(game.legal_actions()[0]),
                  game.apply(game.legal_actions()[0])]
    for twin, reference in zip(twins, references, strict=True):
        while not reference.is_over:
            assert first_difference(twin, reference) is None
            index = rng.randrange(len(reference.legal_actions()))
            reference = reference.apply(reference.legal_actions()[index])
            twin.apply(twin.legal_actions()[index])
        assert first_difference(twin, reference) is None
    assert first_difference(plain, game) is None
    assert first_difference(viewable, game) is None


def test_a_view_asked_for_a_seat_not_in_the_game_is_refused() -> None:
    fast = ViewableGame.new(3, seed=1)
    for seat in (3, -1, True, "0", 1.0):
        with pytest.raises(UnknownSeatError, match="no seat"):
            fast.view(seat)


def test_a_ruleset_the_builder_does_not_know_is_viewed_by_replay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the explicit check fails (here: the preset, or an option value, taken out of
    what the builder knows), the view comes from ``to_game()``, and is the reference's.

    A replay is counted where the reference's ``Game.view`` is called on a game this test
    did not make (a plain Python class, so counted alike whether the kernel is compiled
    or not: a compiled kernel calls its own methods natively, past a patched
    ``FastGame.to_game``); the option values the builder knows are patched in the module
    whose code runs (the compiled copy, when it is in use)."""
    import inspect

    from tokaido_base.fast import BaseGame
    from tokaido_variants.fast import BGA

    replays: list[Game] = []
    ours: list[Game] = []
    real = Game.view

    def counted(self: Game, seat: int | None) -> View:
        if not any(self is game for game in ours):
            replays.append(self)
        return real(self, seat)

    def reference(game: Game) -> Game:
        ours.append(game)
        return game

    monkeypatch.setattr(Game, "view", counted)
    monkeypatch.setattr(BGA, "views", False)  # the bga preset's views unknown
    bga = Ruleset.build(["base", "bga"])
    fast = ViewableGame.new(3, seed=4, plugins=bga)
    assert not fast.records_views  # nothing to record: a plain game
    game = reference(new_game(3, seed=4, plugins=bga))
    assert fast.view(1) == game.view(1) and fast.view(None) == game.view(None)
    assert len(replays) == 2
    assert fast.T.view_tables is not None and not fast.T.view_tables.direct
    rng = random.Random(4)
    for _ in range(12):  # plays on as the reference, each view a replay
        index = rng.randrange(len(game.legal_actions()))
        game = reference(game.apply(game.legal_actions()[index]))
        fast.apply(fast.legal_actions()[index])
        assert fast.view(game.current_player) == game.view(game.current_player)
    assert len(replays) == 14
    runs = inspect.getmodule(BaseGame)  # tokaido_base.fast, or its compiled copy
    assert runs is not None
    monkeypatch.setattr(runs, "_VIEW_OPTIONS", {
        **runs._VIEW_OPTIONS, "base.meal_hand": ("players_plus_one",)})
    players = Ruleset.build(["base"], {"base.meal_hand": "players"})
    fast = FastGame.new(2, seed=4, plugins=players)
    assert fast.view(0) == reference(new_game(2, seed=4, plugins=players)).view(0)
    assert len(replays) == 15
    default = FastGame.new(2, seed=4, plugins=Ruleset.build(["base"]))
    default.view(0)
    assert len(replays) == 15  # the defaults are still built directly


ISOLATED = sorted({index for index, (ids, options) in enumerate(COVERED)
                   if len(ids) <= 2 and not options}
                  | {len(COVERED) - 1})
"""Where the isolation search runs (a walk of every object a view reaches is costly):
each covered plugin with the base game, and the largest combination with every option
changed."""


@pytest.mark.parametrize("index", ISOLATED, ids=ruleset_id)
def test_nothing_reachable_from_a_direct_view_is_hidden(index: int) -> None:
    """The object graph of the direct views (a seat's, the public one) holds no hidden
    card order, hidden data, state, game or seed (the search of test_view_isolation),
    and none of the fast game's own objects (its tables, its records, itself)."""
    from test_view_isolation import SEEDS, leaks, reachable
    from tokaido_rules.fast import _Chronicle, _Tables, _ViewTables

    ids, options = COVERED[index]
    ruleset = Ruleset.build(ids, options)
    registry = ruleset.registry
    registry.deck_census()
    registry.card_backs(())
    exempt: dict[int, object] = {key: obj for key, (obj, _) in reachable(ruleset).items()
                                 if type(obj) is tuple}
    own = (FastGame, _Tables, _Chronicle, _ViewTables)
    walked = 0
    games = zip((2, 4), SEEDS, strict=False) if ids == ("base",) and not options else [
        (2 + index % 4, SEEDS[index % len(SEEDS)])]
    for players, seed in games:
        game = new_game(players, seed=seed, plugins=ruleset)
        fast = ViewableGame.new(players, seed=seed, plugins=ruleset)
        rng = random.Random(seed)
        made = 0
        while True:
            if made % 4 == 0 or game.is_over:
                for seat in (None, made % players):
                    view = fast.view(seat)
                    assert view.zone_backs
                    problems = leaks(view, game, exempt)
                    problems += [path for obj, path in reachable(view).values()
                                 if isinstance(obj, own)]
                    assert not problems, f"seat {seat}, decision {made}: {problems[:5]}"
                    walked += 1
            if game.is_over:
                break
            choice = rng.randrange(len(game.legal_actions()))
            game = game.apply(game.legal_actions()[choice])
            fast.apply(fast.legal_actions()[choice])
            made += 1
    assert walked > 20

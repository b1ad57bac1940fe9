"""The conformance kit on every shipped ruleset and player count, and on broken rulesets."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pytest

from tokaido_rules import (
    Context,
    GameState,
    PluginInfo,
    Registry,
    Ruleset,
    Staged,
    Step,
    hookimpl,
)
from tokaido_rules.fast import FastGame
from tokaido_rules.testing import (
    ConformanceError,
    ConformanceReport,
    check_twin,
    covered_options,
    covered_plugin_sets,
    covered_rulesets,
    fast_options,
    fast_plugins,
    play,
    run_conformance,
    run_differential,
)

BASE_VARIANTS = ("initiation", "return-journey", "gastronomy", "preparations")
VARIANT_SETS = [(), *[(v,) for v in BASE_VARIANTS], BASE_VARIANTS]
MATRIX = [
    core + promos + variants
    for core in (("base",), ("base", "crossroads"))
    for promos in ((), ("new-encounters",))
    for variants in VARIANT_SETS
]
"""{base, base+crossroads} x {with, without new-encounters} x {no variant, each base
variant alone, all of them together}."""
CROSSROADS_VARIANTS = [
    ("base", "crossroads", "rare-and-precious"),
    ("base", "crossroads", "good-luck"),
    ("base", "crossroads", "good-luck", "rare-and-precious", "new-encounters", *BASE_VARIANTS),
]
PRESETS = [("base", "bga"), ("base", "crossroads", "bga"),
           ("base", "crossroads", "bga", "gastronomy", "new-encounters")]
COMBINATIONS = MATRIX + CROSSROADS_VARIANTS + PRESETS
SWEEP_SEEDS = range(1000, 1005)
"""The slow sweep's games: every combination, every player count, these seeds."""


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_base_game_conforms(players: int) -> None:
    """The base game passes every conformance check at every player count."""
    report = run_conformance(["base"], players=players, games=6, seed=100 * players)
    assert report.games == 6 and report.decisions > 6 * 20
    assert report.actions_tried > report.decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("plugins", COMBINATIONS, ids="+".join)
def test_every_shipped_combination_conforms(plugins: tuple[str, ...], players: int) -> None:
    """Every combination of expansion, promos, variants and presets conforms."""
    report = run_conformance(plugins, players=players, games=1, seed=7 * players)
    assert report.decisions > 10


def twin_games(plugins: tuple[str, ...], players: int, seeds: Iterable[int]) -> int:
    """Play a game per seed and compare it with its twins, more of them than the kit
    does by default (an offer twin per seat); return how many twins."""
    ruleset = Ruleset.build(plugins)
    compared = 0
    for seed in seeds:
        game = play(ruleset, players, seed)
        compared += check_twin(ruleset, game, seed, swaps=3, picks=2, offers=players)
    return compared


@pytest.mark.parametrize(
    ("plugins", "players"),
    [pytest.param(p, 2 + i % 4, id=f"{'+'.join(p)}-{2 + i % 4}p")
     for i, p in enumerate(COMBINATIONS)],
)
def test_no_hidden_fact_shapes_a_seats_game(plugins: tuple[str, ...], players: int) -> None:
    """Twin games, each differing from the game in one hidden fact (two cards of a deck
    swapped, another random pick, another traveller offered), look the same to every
    seat until it may see the difference: views, copies of the log, and which decisions
    are asked and offered (RULES.md 7). One game per combination, the player count
    cycling from 2 to 5."""
    assert twin_games(plugins, players, [players]) > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("plugins", COMBINATIONS, ids="+".join)
def test_no_hidden_fact_shapes_a_seats_game_sweep(plugins: tuple[str, ...],
                                                   players: int) -> None:
    """The same at every player count, over several seeds (``pytest -m slow``)."""
    assert twin_games(plugins, players, SWEEP_SEEDS) >= len(SWEEP_SEEDS)


def test_fixture_for_plugin_authors(tokaido_conformance: Callable[..., ConformanceReport]) -> None:
    """The kit is a pytest fixture once tokaido_rules.testing is a pytest plugin."""
    assert tokaido_conformance(["base"], players=3, games=1).plugins == ("base",)


class Leaky:
    """A broken plugin: it puts the top souvenir into data every seat can see."""

    tokaido_plugin = PluginInfo("leaky", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_data("leaky.", "public")
        registry.add_step("leaky.peek", run=self.peek)

    @staticmethod
    def peek(ctx: Context, step: Step) -> None:
        ctx.emit_data("leaky.top", ctx.state.zone("base.souvenirs")[:1])

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        return [Staged(1, Step("leaky.peek", piece))]


class Hoarder:
    """A broken plugin: it conjures coins out of nothing and breaks an invariant."""

    tokaido_plugin = PluginInfo("hoarder", "1", requires=("base",))

    @hookimpl
    def tokaido_invariants(self, state: GameState) -> Sequence[str]:
        return ["always broken"] if state.turn > 3 else []


class NoMoves:
    """A broken plugin: it forbids every stop, so nobody can move."""

    tokaido_plugin = PluginInfo("nomoves", "1", requires=("base",))

    @hookimpl
    def tokaido_forbidden_stops(self, state: GameState, piece: int,
                                positions: tuple[int, ...]) -> Mapping[int, str]:
        return dict.fromkeys(positions, "closed") if state.turn > 2 else {}


@pytest.mark.parametrize(
    ("plugin", "message"),
    [(Leaky(), "facts (the seat|it) cannot see"), (Hoarder(), "invariant"),
     (NoMoves(), "no legal action")],
)
def test_kit_catches_broken_plugins(plugin: object, message: str) -> None:
    """Leaks, broken invariants and dead ends make the kit fail with a clear message."""
    with pytest.raises(ConformanceError, match=message):
        run_conformance(["base", plugin], players=3, games=2)


COVERED = covered_rulesets()


def test_covered_rulesets_are_every_combination_and_every_option_value() -> None:
    """What the differential mode plays by default: every covered plugin combination at
    its defaults, and every value of every covered option somewhere."""
    sets = covered_plugin_sets()
    assert sets[0] == ("base",) and ("base", "bga") in sets
    assert ("base", "crossroads", "new-encounters") in sets
    assert [ids for ids, options in COVERED if not options] == list(sets)
    assert len(covered_options()) == 6
    defaults = {ids: Ruleset.build(ids).options for ids in {
        ("base",), ("base", "bga"), ("base", "crossroads"), ("base", "bga", "crossroads"),
        *(ids for ids in sets if len(ids) == 2)}}
    for name, values in fast_options().items():
        seen = {options[name] for _, options in COVERED if name in options}
        seen |= {made[name] for made in defaults.values() if name in made}
        assert seen == set(values), name


def test_installed_third_party_plugins_with_fast_rules_join_the_default_rulesets() -> None:
    """Each installed third-party plugin that gives fast rules is played with the base
    game alone and with the largest built-in combination (not in every combination,
    which keeps the suite bounded): the example distribution's two, which the test
    command installs, among them."""
    plugins = fast_plugins()
    third = sorted(pid for pid, (_, own) in plugins.items() if not own)
    assert {"pilgrim", "tea-ceremony"} <= set(third)
    sets = covered_plugin_sets()
    built_in = [ids for ids in sets if all(plugins[pid][1] for pid in ids)]
    largest = max(built_in, key=len)
    for pid in third:
        assert [ids for ids in sets if pid in ids] == [("base", pid), (*largest, pid)]
    assert (("base", "tea-ceremony"), {"tea-ceremony.points": 2}) in COVERED


EXAMPLE_RULESETS = [
    (ids, {"tea-ceremony.points": points})
    for ids in (("base", "pilgrim", "tea-ceremony"),
                ("base", "crossroads", "pilgrim", "tea-ceremony"))
    for points in (1, 2)
] + [((*ids, pid), {}) for ids in (("base",), ("base", "crossroads"))
     for pid in ("pilgrim", "tea-ceremony")]
"""The example plugins together and with Crossroads (tea at both values), and each
alone with Crossroads: beyond the default rulesets, which play each with the base game
alone and with the largest built-in combination."""


@pytest.mark.parametrize(("ids", "options"), EXAMPLE_RULESETS, ids=[
    "+".join(ids) + "".join(f",{k}={v}" for k, v in sorted(options.items()))
    for ids, options in EXAMPLE_RULESETS])
def test_differential_mode_with_the_example_plugins(ids: tuple[str, ...],
                                                    options: dict[str, object]) -> None:
    """The example plugins' fast rules (a third party's) play the reference's games at 2
    to 5 players, each policy and offered or given travellers in turn."""
    report = run_differential(games=3, seed=len(ids), rulesets=[(ids, options)])
    assert report.rulesets == (Ruleset.build(ids).ids,)
    assert report.games == 3 * 4


@pytest.mark.parametrize("index", range(len(COVERED)), ids=[
    "+".join(ids) + "".join(f",{k}={v}" for k, v in sorted(options.items()))
    for ids, options in COVERED])
def test_differential_mode_over_every_covered_ruleset(index: int) -> None:
    """The fast simulator plays the reference's games in every covered ruleset at 2 to
    5 players (one game each, its policy and travellers turning with the ruleset)."""
    ids, options = COVERED[index]
    report = run_differential(games=1, seed=index, rulesets=[(ids, options)])
    assert report.rulesets == (Ruleset.build(ids).ids,)
    assert report.players == (2, 3, 4, 5) and report.games == 4


def test_differential_mode_raises_at_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulator that offers the travellers in the wrong order is caught at once."""
    offered = FastGame.legal_actions
    monkeypatch.setattr(FastGame, "legal_actions",
                        lambda self: tuple(reversed(offered(self))))
    with pytest.raises(ConformanceError, match=r"differs from the reference.*decision 0"):
        run_differential(players=3, games=1, options=[{}])


def test_differential_mode_plays_games_keyed_by_purpose(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """chance="purpose": the games key chance by purpose on both engines, so a fast
    engine that keys its draws by the event count whatever the keying passes the
    default mode and is caught in this one; another keying is refused."""
    from tokaido_rules import SetupError
    from tokaido_rules.chance import event_stream

    rulesets: list[tuple[tuple[str, ...], dict[str, object]]] = [(("base", "crossroads"), {})]
    report = run_differential(players=(2, 4), games=2, rulesets=rulesets, chance="purpose")
    assert report.games == 4
    monkeypatch.setattr(FastGame, "_chance",
                        lambda self, purpose: event_stream(self.seed, self.seq))
    run_differential(players=(2, 4), games=2, rulesets=rulesets)
    with pytest.raises(ConformanceError, match=r"chance by purpose\): "):
        run_differential(players=(2, 4), games=2, rulesets=rulesets, chance="purpose")
    with pytest.raises(SetupError, match="chance keying must be one of"):
        run_differential(games=1, rulesets=rulesets, chance="dice")

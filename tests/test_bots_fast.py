"""The greedy and search bots on the fast engine (issue 41): a fast game loaded from a
state plays as the reference does from that state, and the bots looking ahead on fast
games make the very choices they make looking ahead on the reference engine."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from tokaido_rules import Action, BotError, Ruleset, new_game
from tokaido_rules.bots import (
    GreedyBot,
    SearchBot,
    completions_fast,
    determinize,
    determinize_fast,
    fast_lookahead,
    make_bot,
    next_action,
)
from tokaido_rules.chance import event_stream, shuffle
from tokaido_rules.engine import Game
from tokaido_rules.fast import (
    FastGame,
    NotCoveredError,
    ViewableGame,
    compare,
    from_state,
    shuffle_pools,
    why_not_loadable,
)
from tokaido_rules.simulate import simulate

RULESETS = [("base",), ("base", "crossroads"), ("base", "new-encounters"),
            ("base", "crossroads", "new-encounters")]
_HISTORY = {"_chronicle", "_replica", "_decisions", "automatic", "setup", "given", "_legal"}
"""What a game loaded from a state cannot know: its history (and the legal actions, made
when first asked)."""


def flat_state(game: FastGame) -> dict[str, Any]:
    """Every slot of a fast game that says where the game is (not how it got there)."""
    out: dict[str, Any] = {}
    for cls in type(game).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in _HISTORY and name not in out:
                out[name] = getattr(game, name)
    return out


def _picker(seed: int) -> Callable[[tuple[Action, ...]], int]:
    pick = random.Random(seed).randrange
    return lambda legal: pick(len(legal))


@pytest.mark.parametrize("plugins", RULESETS, ids=",".join)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_loaded_from_a_state_is_the_game_at_that_state(
        plugins: tuple[str, ...], players: int) -> None:
    """At every decision of random games, the fast game loaded from the reference state
    holds what the fast game played there holds, offers the same actions, and plays on
    as the reference does to the end."""
    ruleset = Ruleset.build(plugins)
    for seed in range(2):
        rng = random.Random(seed)
        game = new_game(players, seed=seed, plugins=ruleset)
        fast = FastGame.new(players, seed=seed, plugins=ruleset)
        made = 0
        while not game.is_over:
            loaded = from_state(game.state, ruleset, players, seed)
            assert flat_state(loaded) == flat_state(fast), (seed, made)
            assert loaded.legal_actions() == game.legal_actions()
            if made % 40 == 7:
                why, _ = compare(game, loaded, _picker(made), logs=False)
                assert why is None, why
            index = rng.randrange(len(game.legal_actions()))
            game = game.apply(game.legal_actions()[index])
            fast.apply(fast.legal_actions()[index])
            made += 1


def test_the_fast_completion_of_a_view_is_the_reference_completion() -> None:
    """determinize_fast deals the hidden cards determinize deals, from the same seed."""
    ruleset = Ruleset.build(("base", "crossroads"))
    game = new_game(4, seed=3, plugins=ruleset)
    rng = random.Random(3)
    for _ in range(60):
        game = game.apply(rng.choice(game.legal_actions()))
    view = game.view(game.current_player)
    for seed in (1, 2, 99):
        reference = determinize(view, seed)
        assert flat_state(determinize_fast(view, seed)) == flat_state(
            from_state(reference.state, ruleset, 4, seed))
    complete = completions_fast(view)  # one census for many seeds: the same deals
    for seed in (99, 1, 2, 1):
        assert flat_state(complete(seed)) == flat_state(determinize_fast(view, seed))


def _same_choices(plugins: tuple[str, ...], players: int, seed: int, make: Any,
                  decisions: int | None = None) -> int:
    """Play a game with bots looking ahead on the reference engine, asking the same bots
    looking ahead on the fast engine at every decision; the decisions compared."""
    ruleset = Ruleset.build(plugins)
    reference = [make("reference", seed * 8 + seat) for seat in range(players)]
    fast = [make("fast", seed * 8 + seat) for seat in range(players)]
    game: Game = new_game(players, seed=seed, plugins=ruleset)
    made = 0
    while not game.is_over and (decisions is None or made < decisions):
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        chosen = reference[seat].choose(view)
        assert fast[seat].choose(view) == chosen, (plugins, players, seed, made)
        game = game.apply(chosen)
        made += 1
    return made


@pytest.mark.parametrize("plugins", RULESETS[:3], ids=",".join)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_greedy_chooses_the_same_on_either_engine(plugins: tuple[str, ...],
                                                  players: int) -> None:
    for seed in range(2):
        assert _same_choices(plugins, players, seed,
                             lambda engine, s: GreedyBot(seed=s, engine=engine)) > 50


@pytest.mark.parametrize("plugins", RULESETS[:3], ids=",".join)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_search_chooses_the_same_on_either_engine(plugins: tuple[str, ...],
                                                  players: int) -> None:
    """A small budget (two samples, short playouts, and whole playouts at the choice of a
    traveller), over the first decisions of a game."""
    def make(engine: str, seed: int) -> SearchBot:
        return SearchBot(seed=seed, samples=2, horizon=12, engine=engine)

    assert _same_choices(plugins, players, 5, make, decisions=30) == 30


def test_a_batch_of_greedy_and_search_games_is_the_same_on_either_engine() -> None:
    """auto plays greedy and search on the fast engine; the results are the reference's."""
    args: dict[str, Any] = {"games": 3, "players": 3, "seed": 11, "keep_logs": True,
                            "bots": ("greedy", "search", "random"),
                            "bot_options": {"search": {"samples": 2, "horizon": 10}}}
    fast = simulate(engine="auto", **args)
    reference = simulate(engine="reference", **args)
    assert fast.results == reference.results
    assert all(r.log for r in fast.results)


def test_where_the_bots_look_ahead() -> None:
    """Fast wherever the fast engine loads the ruleset's states; the option ``engine``
    says otherwise, and a bad value is refused when the bot is made."""
    assert fast_lookahead(Ruleset.build(("base", "crossroads")), 4)
    assert why_not_loadable(Ruleset.build(("base",)), 6) is not None
    with pytest.raises(BotError, match="engine must be one of"):
        make_bot("greedy", 1, {"engine": "quick"})
    assert make_bot("search", 1, {"engine": "reference"}).engine == "reference"  # type: ignore[attr-defined]


def test_a_state_the_fast_engine_does_not_load_is_refused() -> None:
    ruleset = Ruleset.build(("base",))
    with pytest.raises(NotCoveredError, match="no 7-player game"):
        from_state(new_game(4, seed=1, plugins=ruleset).state, ruleset, 7, 1)


def test_fast_lookahead_where_the_fast_engine_cannot_is_a_one_line_bot_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """engine="fast" insists: where the states are not loaded, the bot's decision fails
    as any bot's failure does (one line, naming it), and the game is left as it was."""
    import tokaido_rules.bots as bots_module

    monkeypatch.setattr(bots_module, "fast_lookahead", lambda ruleset, players: False)
    game = new_game(3, seed=2, plugins=("base",))
    while len(game.legal_actions()) < 2:
        game = game.apply(game.legal_actions()[0])
    with pytest.raises(BotError, match=r"bot 'greedy'.*fast engine does not load") as caught:
        next_action(GreedyBot(seed=1, engine="fast"), game, "greedy")
    assert "\n" not in str(caught.value)


SAMPLED = [("base",), ("base", "crossroads"), ("base", "new-encounters"),
           ("base", "crossroads", "good-luck"), ("base", "gastronomy"), ("base", "bga")]
"""Rulesets whose fast games make completions from their flat state: the expansion, an
additive plugin, a variant on each."""


@pytest.mark.parametrize("plugins", SAMPLED, ids=",".join)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_a_completion_from_the_flat_state_is_the_completion_of_the_view(
        plugins: tuple[str, ...], players: int) -> None:
    """At every decision of greedy games, the completion a recording fast game makes of
    the deciding seat's view holds what determinize_fast makes of that view with the
    same seed: the same cards dealt into the hidden zones, the hidden data left out,
    so nothing the seat may not see reaches it."""
    _check_completions(plugins, players, "event")


def _check_completions(plugins: tuple[str, ...], players: int, chance: str) -> None:
    ruleset = Ruleset.build(plugins)
    game = ViewableGame.new(players, seed=players, plugins=ruleset, chance=chance)
    bots = [GreedyBot(seed=seat) for seat in range(players)]
    assert game.completes
    made = 0
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        completion = game.completion(seat, 1000 + made)
        assert completion is not None
        assert flat_state(completion) == flat_state(determinize_fast(view, 1000 + made)), made
        game.apply(bots[seat].choose(view))
        made += 1
    assert made > 50


@pytest.mark.parametrize("plugins", SAMPLED[:2], ids=",".join)
def test_a_completion_of_a_game_keyed_by_purpose_is_keyed_by_event(
        plugins: tuple[str, ...]) -> None:
    """A game whose chance is keyed by purpose (the duplicate format) is completed as its
    view is (determinize: keyed by event), so the bots look ahead on the same samples
    whichever way the game itself is keyed."""
    _check_completions(plugins, 4, "purpose")


def test_only_a_recording_game_of_a_loadable_ruleset_makes_completions() -> None:
    """A plain fast game keeps no records of what its views show: no completion (the
    bots then sample from the view); nor a ruleset whose hidden zones only the records
    hold."""
    plain = FastGame.new(3, seed=1)
    assert not plain.completes and plain.completion(0, 1) is None
    boxed = ViewableGame.new(3, seed=1, plugins=("base", "crossroads", "rare-and-precious"))
    assert not boxed.completes


@pytest.mark.parametrize("plugins", SAMPLED[:4], ids=",".join)
def test_the_bots_choose_the_same_from_completions_made_ready(
        plugins: tuple[str, ...]) -> None:
    """In a recording fast game, the greedy and search bots handed ready-made
    completions (SamplingBot.choose_sampled, as next_action hands them) choose what the
    same bots choose from the view looking ahead on the reference engine."""
    ruleset = Ruleset.build(plugins)
    players = 4
    game = ViewableGame.new(players, seed=9, plugins=ruleset)

    def pair(seat: int) -> tuple[Any, Any]:
        if seat == 0:
            return (SearchBot(seed=seat, samples=2, horizon=8, engine="reference"),
                    SearchBot(seed=seat, samples=2, horizon=8))
        return GreedyBot(seed=seat, engine="reference"), GreedyBot(seed=seat)

    bots = [pair(seat) for seat in range(players)]
    made = 0
    while not game.is_over and made < 120:
        seat = game.current_player
        assert seat is not None
        reference, sampling = bots[seat]
        chosen = reference.choose(game.view(seat))
        assert next_action(sampling, game) == chosen, (plugins, made)
        game.apply(chosen)
        made += 1
    assert made == 120


def test_a_bot_asked_for_the_reference_engine_is_given_its_view() -> None:
    """engine="reference" looks ahead on the reference engine even when completions are
    made ready: the bot builds them from the view."""
    game = ViewableGame.new(3, seed=4)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    asked: list[int] = []

    def complete(seed: int) -> FastGame | None:
        asked.append(seed)
        return game.completion(0, seed)

    seat = game.current_player
    assert seat is not None
    bot = GreedyBot(seed=2, engine="reference")
    expected = GreedyBot(seed=2, engine="reference").choose(game.view(seat))
    assert bot.choose_sampled(seat, game.legal_actions(), complete,
                              lambda: game.view(seat)) == expected
    assert asked == []


def test_the_pools_are_shuffled_as_the_generator_shuffles() -> None:
    """shuffle_pools gives each pool the permutation chance.shuffle gives it, draws
    counted on across the pools."""
    rng = random.Random(5)
    for _ in range(20):
        pools = [list(range(rng.randrange(0, 30))) for _ in range(rng.randrange(1, 6))]
        stream = event_stream(rng.randrange(2**64), 0)
        expected = [pool[:] for pool in pools]
        draw = 0
        for pool in expected:
            draw = shuffle(pool, stream, draw)
        shuffle_pools(pools, stream)
        assert pools == expected


@pytest.mark.parametrize("halves", [False, True])
def test_the_pools_are_shuffled_alike_on_every_route(halves: bool) -> None:
    """The compiled build's route (32-bit halves in machine words) and the plain one
    (big-integer lanes) both give the generator's permutations, streams at the edges of
    64 bits and pools of up to 200 cards included."""
    from tokaido_rules import fast

    rng = random.Random(11)
    streams = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1]
    for case in range(60):
        pools = [list(range(rng.randrange(0, 200 if case % 5 == 0 else 40)))
                 for _ in range(rng.randrange(1, 6))]
        stream = streams[case] if case < len(streams) else event_stream(
            rng.randrange(2**64), 0)
        expected = [pool[:] for pool in pools]
        draw = 0
        for pool in expected:
            draw = shuffle(pool, stream, draw)
        if halves:
            fast._shuffle_halves(pools, stream)
        else:
            shuffle_pools(pools, stream)
        assert pools == expected


@pytest.mark.parametrize("compiled_route", [False, True])
def test_the_kernels_chance_gives_the_generators_numbers_on_every_route(
        compiled_route: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's ``event_stream``, ``draw_below`` and ``shuffle`` (what fast rules draw
    with, in machine words when compiled) give :mod:`tokaido_rules.chance`'s numbers,
    streams and seeds at the edges of 64 bits included; the machine-word route is
    checked in plain Python too, by taking it as the compiled build does."""
    from tokaido_rules import chance, fast

    if compiled_route and not fast.compiled():
        monkeypatch.setattr(fast, "_BUILT_FROM", "as if compiled")
    rng = random.Random(12)
    edges = [0, 1, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]
    for case in range(200):
        seed = edges[case % len(edges)] if case < 3 * len(edges) else rng.randrange(2**64)
        seq = rng.choice([0, 1, 7, 2**31, 2**40, rng.randrange(5000)])
        assert fast.event_stream(seed, seq) == chance.event_stream(seed, seq)
        stream = chance.event_stream(seed, seq)
        draw = rng.choice([0, 1, 5, 2**32 + 3, rng.randrange(100)])
        n = rng.choice([1, 2, 3, 2**31 - 1, 2**31, 2**40, rng.randrange(1, 60)])
        assert fast.draw_below(stream, draw, n) == chance.draw_below(stream, draw, n)
        items = list(range(rng.randrange(0, 40)))
        expected = items[:]
        assert fast.shuffle(items, stream, draw) == chance.shuffle(expected, stream, draw)
        assert items == expected
    with pytest.raises(ValueError, match="n >= 1"):
        fast.draw_below(1, 0, 0)

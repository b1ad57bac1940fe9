"""The RL environments on the fast simulator play the very episodes they play on the
reference engine: the same observations (bit for bit), action masks, rewards, episode
lengths and bot moves for the same seeds, and clones as independent."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from tokaido_rules import Game, Ruleset, SetupError, dump_log, new_game, rl
from tokaido_rules.engine import make_rules
from tokaido_rules.fast import FastGame, NotCoveredError, ViewableGame
from tokaido_rules.rl import ActionIndex, TokaidoAEC, TokaidoGymEnv
from tokaido_rules.ruleset import Setup


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", module="pettingzoo")


def same_observation(a: dict[str, np.ndarray[Any, Any]],
                     b: dict[str, np.ndarray[Any, Any]]) -> bool:
    """Equal bit for bit: the same keys, dtypes, shapes and bytes."""
    return a.keys() == b.keys() and all(
        a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes()
        for k in a)


def gym_pair(**kwargs: Any) -> tuple[TokaidoGymEnv, TokaidoGymEnv]:
    fast = TokaidoGymEnv(engine="fast", **kwargs)
    reference = TokaidoGymEnv(engine="reference", **kwargs)
    assert isinstance(fast.played, FastGame) and isinstance(reference.played, Game)
    return fast, reference


def play_gym_pair(fast: TokaidoGymEnv, reference: TokaidoGymEnv, seed: int,
                  check_views: bool = True) -> int:
    """One episode on both, the agent's choices random from the mask; every step
    compared. Returns the episode's length (the agent's decisions)."""
    got, _ = fast.reset(seed=seed)
    expected, _ = reference.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    done = False
    while True:
        assert same_observation(got, expected), f"seed {seed}, step {steps}"
        assert np.array_equal(fast.action_masks(), reference.action_masks())
        assert fast.legal_actions() == reference.legal_actions()
        if check_views:
            assert fast.view() == reference.view()
        assert fast.played.state_seq == reference.played.state.seq  # type: ignore[union-attr]
        if done:
            break
        action = int(rng.choice(np.flatnonzero(expected["action_mask"])))
        got, gained, done, truncated, info = fast.step(action)
        expected, reward, done_too, truncated_too, info_too = reference.step(action)
        assert (gained, done, truncated, info) == (reward, done_too, truncated_too, info_too)
        steps += 1
    assert fast.played.scores() == reference.played.scores()
    return steps


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_gym_episodes_against_random_bots_are_the_same(players: int) -> None:
    fast, reference = gym_pair(players=players, seat=players - 1, opponents=("random",))
    lengths = [play_gym_pair(fast, reference, 40 * players + seed) for seed in range(12)]
    assert min(lengths) > 10


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_gym_episodes_against_greedy_bots_are_the_same(players: int) -> None:
    """Greedy bots choose from their seat's view (a sampled completion of it): the fast
    path hands them the same views, so they make the same moves."""
    fast, reference = gym_pair(players=players, seat=0, opponents=("greedy", "random"))
    for seed in range(2):
        play_gym_pair(fast, reference, 7 * players + seed)


def test_gym_episodes_with_options_and_the_bga_preset_are_the_same() -> None:
    for kwargs in ({"plugins": ("base", "bga")},
                   {"options": {"base.meal_hand": "players",
                                "base.panorama_choice_optional": True}}):
        fast, reference = gym_pair(players=3, seat=1, opponents=("random", "greedy"), **kwargs)
        play_gym_pair(fast, reference, 5)


@pytest.mark.parametrize(("plugins", "options"), [
    (("base", "crossroads"), {}),
    (("base", "crossroads"), {"crossroads.fortune_timing": "any_time_in_turn",
                              "crossroads.amulet_same_turn": True,
                              "crossroads.devotion": "dearest_card",
                              "crossroads.optional_purchase": True}),
    (("base", "new-encounters"), {}),
    (("base", "crossroads", "new-encounters", "good-luck", "rare-and-precious"), {}),
])
def test_gym_episodes_of_crossroads_and_new_encounters_are_the_same(
        plugins: tuple[str, ...], options: dict[str, object]) -> None:
    """Crossroads (amulets, Devotion, a second option) and New Encounters on the fast
    path of ``auto``: the same observations, masks, rewards and views as the reference
    path, against random and greedy bots."""
    auto = TokaidoGymEnv(players=3, plugins=plugins, options=options)
    assert isinstance(auto.played, FastGame) and auto.played.records_views
    for players, seat in ((2, 0), (4, 3)):
        fast, reference = gym_pair(players=players, seat=seat, plugins=plugins,
                                   options=options, opponents=("random", "greedy"))
        for seed in range(2):
            assert play_gym_pair(fast, reference, 17 * players + seed) > 10


@pytest.mark.parametrize("points", [1, 2])
def test_gym_episodes_of_a_third_party_plugin_are_the_same(points: int) -> None:
    """The example distribution's tea ceremony (its own step, score category, event and
    option) on the fast path of ``auto``, which plays it fast as its views are built
    directly: the same observations, masks, rewards and views as the reference path."""
    plugins = ("base", "tea-ceremony")
    options = {"tea-ceremony.points": points}
    auto = TokaidoGymEnv(players=3, plugins=plugins, options=options)
    assert isinstance(auto.played, FastGame) and auto.played.records_views
    for players, seat in ((3, 1), (5, 4)):
        fast, reference = gym_pair(players=players, seat=seat, plugins=plugins,
                                   options=options, opponents=("random", "greedy"))
        for seed in range(2):
            assert play_gym_pair(fast, reference, 13 * players + seed) > 10
        assert any("tea" in p.score for p in fast.view().pieces)


def test_aec_episodes_of_crossroads_are_the_same() -> None:
    for plugins in (("base", "crossroads"), ("base", "crossroads", "new-encounters")):
        fast = TokaidoAEC(players=4, plugins=plugins, engine="fast")
        reference = TokaidoAEC(players=4, plugins=plugins, engine="reference")
        for seed in range(2):
            got, expected = aec_transcript(fast, seed), aec_transcript(reference, seed)
            assert len(got) == len(expected) > 50
            assert got == expected


def test_a_seeded_gym_environment_draws_the_same_episodes_on_both_engines() -> None:
    """Seeded once, then reset again and again: the same games and bot seeds."""
    fast, reference = gym_pair(players=4, opponents=("random",))
    for episode in range(6):
        seed = 3 if episode == 0 else None
        got, _ = fast.reset(seed=seed)
        expected, _ = reference.reset(seed=seed)
        assert same_observation(got, expected)
        assert fast.played.seed == reference.played.seed
        assert [b.seed for b in fast.bots.values()] == [  # type: ignore[attr-defined]
            b.seed for b in reference.bots.values()]  # type: ignore[attr-defined]


def test_a_gym_clone_is_independent_on_the_fast_path() -> None:
    """A clone plays on alone; the original is untouched and continues as the reference
    environment does (and the clone as the reference's clone)."""
    fast, reference = gym_pair(players=3, opponents=("random",))
    got, _ = fast.reset(seed=8)
    reference.reset(seed=8)
    for _ in range(10):
        action = int(np.flatnonzero(got["action_mask"])[0])
        got, *_ = fast.step(action)
        reference.step(action)
    assert not fast.played.is_over
    fast_branch, reference_branch = fast.clone(), reference.clone()
    assert fast_branch.played is not fast.played
    seq = fast.played.state_seq  # type: ignore[union-attr]
    for a, b in ((fast_branch, reference_branch), (fast, reference)):
        observation, *_ = a.step(int(np.flatnonzero(a.action_masks())[0]))
        expected, *_ = b.step(int(np.flatnonzero(b.action_masks())[0]))
        assert same_observation(observation, expected)
        if a is fast_branch:
            assert fast.played.state_seq == seq  # type: ignore[union-attr]
    assert dump_log(fast_branch.game) == dump_log(reference_branch.game)
    assert dump_log(fast.game) == dump_log(reference.game)


def test_the_reference_game_of_the_fast_path_is_the_reference_environment_game() -> None:
    """``env.game`` is a reference Game (a replay on the fast path, kept until the game
    changes); setting it plays on from the game given."""
    fast, reference = gym_pair(players=3, opponents=("random",))
    fast.reset(seed=2)
    reference.reset(seed=2)
    game = fast.game
    assert isinstance(game, Game) and game is fast.game
    assert dump_log(game) == dump_log(reference.game)
    fast.step(int(np.flatnonzero(fast.action_masks())[0]))
    assert fast.game is not game
    fast.game = reference.game
    assert fast.played is reference.played and fast.game is reference.game


def aec_transcript(env: TokaidoAEC, seed: int) -> list[Any]:
    """Everything an agent loop sees in one episode: each agent's observation at every
    step, the rewards, terminations and the agent selected."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    seen: list[Any] = []
    for agent in env.agent_iter(max_iter=2000):
        observation, reward, terminated, truncated, _ = env.last()
        seen.append((agent, observation["observation"].tobytes(),
                     observation["action_mask"].tobytes(), reward, terminated, truncated,
                     dict(env.rewards), dict(env.terminations)))
        seen.extend(env.observe(a)["observation"].tobytes() for a in env.agents)
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
    return seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_aec_episodes_are_the_same(players: int) -> None:
    fast = TokaidoAEC(players=players, engine="fast")
    reference = TokaidoAEC(players=players, engine="reference")
    for seed in range(5):
        got, expected = aec_transcript(fast, seed), aec_transcript(reference, seed)
        assert len(got) == len(expected) > 50
        assert got == expected
        assert dump_log(fast.game) == dump_log(reference.game)


def test_an_aec_clone_is_independent_on_the_fast_path() -> None:
    env = TokaidoAEC(players=3, engine="fast")
    env.reset(seed=2)
    seq = env.played.state_seq  # type: ignore[union-attr]
    before = env.last()[0]["observation"].tobytes()
    branch = env.clone()
    assert branch.played is not env.played
    observation = branch.last()[0]
    branch.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    assert branch.played.state_seq > seq == env.played.state_seq  # type: ignore[union-attr]
    assert env.last()[0]["observation"].tobytes() == before


@pytest.mark.parametrize(("policy", "games", "opponents"), [
    ("random", 30, ("random",)), ("first", 20, ("random",)), ("first", 3, ("greedy",)),
    ("greedy", 2, ("random",)),
])
def test_evaluate_gives_the_same_figures_on_both_engines(
        policy: str, games: int, opponents: tuple[str, ...]) -> None:
    def make() -> rl.Policy:
        if policy == "random":
            return rl.random_legal(5)
        if policy == "greedy":
            return rl.bot_policy("greedy", 5)
        return rl.first_legal
    figures = [rl.evaluate(make(), games, players=4, seat=1, opponents=opponents, seed=11,
                           engine=engine) for engine in ("fast", "reference", "auto")]
    assert figures[0] == figures[1] == figures[2]


def test_the_engine_argument(slow_plugin: str) -> None:
    """``auto`` plays fast where the simulator covers the ruleset; ``fast`` elsewhere
    raises NotCoveredError; ``reference`` never plays fast; anything else is refused."""
    played = TokaidoGymEnv(players=3).played
    assert isinstance(played, FastGame) and played.records_views  # ViewableGame's
    played = TokaidoAEC(players=3, plugins=("base", "bga")).played
    assert isinstance(played, FastGame) and played.records_views
    # every covered ruleset is viewed directly: auto plays it fast
    played = TokaidoAEC(players=3, plugins=("base", "crossroads")).played
    assert isinstance(played, FastGame) and played.records_views
    assert isinstance(TokaidoGymEnv(players=3, engine="reference").played, Game)
    assert isinstance(TokaidoGymEnv(players=3, plugins=("base", "crossroads"),
                                    engine="fast").played, FastGame)
    with pytest.raises(NotCoveredError):
        TokaidoGymEnv(players=3, plugins=("base", slow_plugin), engine="fast")
    with pytest.raises(NotCoveredError):
        TokaidoAEC(players=3, plugins=("base", "crossroads", slow_plugin), engine="fast")
    with pytest.raises(SetupError, match="engine must be one of"):
        TokaidoAEC(players=3, engine="quick")
    with pytest.raises(NotCoveredError):
        rl.evaluate(rl.first_legal, 1, plugins=("base", slow_plugin), engine="fast")


def test_auto_plays_fast_only_where_the_views_are_built_directly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the simulator plays a ruleset but would replay each view, ``auto`` keeps
    the reference engine (an observation at every step); ``fast`` plays fast all the
    same, and its episodes are still the reference's."""
    from tokaido_variants.fast import BGA

    monkeypatch.setattr(BGA, "views", False)  # the bga preset's views unknown
    assert isinstance(TokaidoGymEnv(players=3, plugins=("base", "bga")).played, Game)
    fast, reference = gym_pair(players=3, plugins=("base", "bga"), opponents=("random",))
    assert isinstance(fast.played, FastGame) and not fast.played.records_views
    play_gym_pair(fast, reference, 1, check_views=False)


@pytest.mark.parametrize("players", [2, 4, 5])
def test_actions_are_numbered_alike_without_a_reference_state(players: int) -> None:
    """At every decision of fast games, each legal action has the number it has in the
    reference game (purchases are numbered by their cards' places in the village)."""
    ruleset = Ruleset.build(["base"])
    index = ActionIndex(make_rules(ruleset, players, Setup()))
    for seed in range(6):
        game = new_game(players, seed=seed, plugins=ruleset)
        kind = ViewableGame if seed % 2 else FastGame
        fast = kind.new(players, seed=seed, plugins=ruleset)
        rng = random.Random(seed)
        while not game.is_over:
            assert index.legal(fast) == index.legal(game)
            for action in fast.legal_actions():
                assert index.number(action, fast) == index.number(action, game)
            choice = rng.randrange(len(game.legal_actions()))
            game = game.apply(game.legal_actions()[choice])
            fast.apply(fast.legal_actions()[choice])
        assert index.legal(fast) == {} == index.legal(game)


def plain_encoding(encoder: rl.ObservationEncoder, view: Any) -> np.ndarray[Any, Any]:
    """The observation as :class:`ObservationEncoder` defines it, written plainly (a
    float32 array per part, concatenated): what its faster ``encode`` must give."""
    def counts(cards: Any) -> np.ndarray[Any, Any]:
        found = np.zeros(len(encoder.cards), dtype=np.float32)
        for c in cards:
            found[encoder.cards[c]] += 1
        return found
    end = float(encoder.rules.end)
    parts = []
    order = [(view.seat + k) % view.players for k in range(view.players)]
    order += list(range(view.players, len(view.pieces)))
    for i in order:
        p = view.pieces[i]
        head = [p.position / end, p.slot / 5, p.coins / 20, p.total / 100,
                float(p.seat is None), float(i == view.seat)]
        head += [p.score.get(c, 0) / 20 for c in encoder.categories]
        head += [p.counter(c) / 20 for c in encoder.counters]
        parts += [np.asarray(head, dtype=np.float32),
                  counts(view.zones.get(f"core.collection.{i}", ())),
                  np.asarray([view.zone_sizes.get(f"core.secret.{i}", 0)], dtype=np.float32)]
    for zone in encoder.zones:
        parts += [np.asarray([view.zone_sizes.get(zone, 0) / 30], dtype=np.float32),
                  counts(view.zones.get(zone, ()))]
    for family in encoder.families:
        mine = f"{family}.{view.seat}"
        parts += [np.asarray([view.zone_sizes.get(mine, 0)], dtype=np.float32),
                  counts(view.zones.get(mine, ()))]
    decision = np.zeros(len(encoder.steps), dtype=np.float32)
    if view.current_step is not None:
        decision[encoder.steps[view.current_step.kind]] = 1
    parts += [decision, np.asarray([float(view.current_player == view.seat),
                                    float(view.over)], dtype=np.float32)]
    return np.concatenate(parts)


@pytest.mark.parametrize("plugins", [("base",), ("base", "crossroads", "new-encounters",
                                                 "good-luck", "rare-and-precious")])
def test_the_observation_is_the_encoder_definition_bit_for_bit(
        plugins: tuple[str, ...]) -> None:
    from tokaido_rules.bots import RandomBot, next_action

    for players in (2, 5):
        ruleset = Ruleset.build(plugins)
        encoder = rl.ObservationEncoder(make_rules(ruleset, players, Setup()))
        game = new_game(players, seed=players, plugins=ruleset)
        bot = RandomBot(players)
        while True:
            for seat in range(players):
                view = game.view(seat)
                got, expected = encoder.encode(view), plain_encoding(encoder, view)
                assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
            if game.is_over:
                break
            game = game.apply(next_action(bot, game))

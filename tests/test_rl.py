"""The reinforcement-learning environments: PettingZoo's and Gymnasium's own checks, a
fixed action space, observations from the seat's view only, rewards, cheap clones."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from tokaido_rules import IllegalActionError, Ruleset, Setup, TokaidoError, new_game, rl
from tokaido_rules.bots import GreedyBot, RandomBot, next_action
from tokaido_rules.engine import make_rules
from tokaido_rules.rl import ActionIndex, ObservationEncoder, TokaidoAEC, TokaidoGymEnv
from tokaido_rules.simulate import wilson_interval
from tokaido_rules.testing import hidden_variant

RULESETS = [
    ("base",),
    ("base", "crossroads"),
    ("base", "crossroads", "new-encounters", "good-luck", "rare-and-precious"),
    ("base", "new-encounters", "initiation", "return-journey", "gastronomy", "preparations"),
    ("base", "crossroads", "bga"),
]


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", module="pettingzoo")


@pytest.mark.parametrize(("plugins", "players"), [(RULESETS[0], 3), (RULESETS[2], 2),
                                                   (RULESETS[4], 5)])
def test_pettingzoo_api(plugins: tuple[str, ...], players: int) -> None:
    """PettingZoo's api_test passes for several rulesets and player counts."""
    api_test(TokaidoAEC(players=players, plugins=plugins), num_cycles=150,
             verbose_progress=False)


def test_pettingzoo_seed() -> None:
    """PettingZoo's seed_test: the same seed gives the same episode."""
    seed_test(lambda: TokaidoAEC(players=4, plugins=("base", "crossroads")), num_cycles=60)


def test_gymnasium_checker() -> None:
    """Gymnasium's environment checker accepts the single-agent wrapper."""
    check_env(TokaidoGymEnv(players=3, opponents=("random",)), skip_render_check=True)


@pytest.mark.parametrize("plugins", RULESETS, ids="+".join)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_every_legal_action_is_in_the_fixed_space(plugins: tuple[str, ...],
                                                  players: int) -> None:
    """Each legal action of random games has one number; numbers are distinct."""
    ruleset = Ruleset.build(plugins)
    index = ActionIndex(make_rules(ruleset, players, Setup()))
    assert len(set(index.keys)) == len(index.keys)
    game = new_game(players, seed=players, plugins=ruleset)
    bot = RandomBot(players)
    while not game.is_over:
        numbers = index.legal(game)
        assert len(numbers) == len(game.legal_actions())
        game = game.apply(next_action(bot, game))


def test_the_space_is_fixed_per_ruleset_and_player_count() -> None:
    """Two builds of a ruleset number the decisions identically."""
    a = ActionIndex(make_rules(Ruleset.build(["base", "crossroads"]), 4, Setup()))
    b = ActionIndex(make_rules(Ruleset.build(["crossroads", "base"]), 4, Setup()))
    assert a.keys == b.keys
    assert ("core.move", "self", 54) in a.keys
    assert ("core.move", "neutral", 1) not in a.keys  # no neutral traveller with 4


def test_observation_leaks_nothing_hidden() -> None:
    """Changing what a seat cannot see leaves its observation identical."""
    ruleset = Ruleset.build(["base", "crossroads", "good-luck"])
    encoder = ObservationEncoder(make_rules(ruleset, 3, Setup()))
    game = new_game(3, seed=8, plugins=ruleset)
    bot = RandomBot(8)
    for step in range(60):
        for seat in range(3):
            twin = hidden_variant(game, seat, step + seat)
            assert np.array_equal(encoder.encode(game.view(seat)), encoder.encode(twin.view(seat)))
        game = game.apply(next_action(bot, game))
        if game.is_over:
            break


def play_out(env: TokaidoAEC, seed: int) -> dict[str, float]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_rewards_at_the_end() -> None:
    """score_difference: own total minus the best other's; win: +1 winners, -1 others."""
    env = TokaidoAEC(players=3)
    totals = play_out(env, 5)
    scores = {f"player_{s.seat}": s.total for s in env.game.scores()}
    for agent, total in scores.items():
        assert totals[agent] == total - max(v for a, v in scores.items() if a != agent)
    env = TokaidoAEC(players=3, reward="win")
    totals = play_out(env, 5)
    winners = {f"player_{w}" for w in env.game.winners()}
    assert {a for a, r in totals.items() if r == 1.0} == winners
    assert all(r == -1.0 for a, r in totals.items() if a not in winners)


def test_illegal_actions() -> None:
    """The AEC environment refuses a masked-out action; the Gymnasium one ends the
    episode with reward -1."""
    env = TokaidoAEC(players=2)
    env.reset(seed=1)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    gym_env = TokaidoGymEnv(players=2, opponents=("random",))
    observation, _ = gym_env.reset(seed=3)
    bad = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = gym_env.step(bad)
    assert (reward, terminated, info) == (-1.0, True, {"illegal": True})


def test_gym_episode_against_greedy_bots() -> None:
    """An episode against greedy bots ends with the seat's final reward."""
    env = TokaidoGymEnv(players=4, seat=2, opponents=("greedy", "random"))
    observation, _ = env.reset(seed=11)
    rng = np.random.default_rng(0)
    done, reward = False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, done, _, _ = env.step(action)
    scores = env.game.scores()
    assert reward == scores[2].total - max(s.total for s in scores if s.seat != 2)


def test_clone_branches_cheaply() -> None:
    """A clone continues independently; the original is untouched."""
    env = TokaidoAEC(players=3)
    env.reset(seed=2)
    branch = env.clone()
    obs, *_ = branch.last()
    branch.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert branch.game.state.seq > env.game.state.seq
    assert env.last()[0]["action_mask"].tolist() == obs["action_mask"].tolist()
    gym_env = TokaidoGymEnv(players=3, opponents=("random",))
    observation, _ = gym_env.reset(seed=4)
    other = gym_env.clone()
    other.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert other.game.state.seq > gym_env.game.state.seq


def test_pettingzoo_factories_and_metadata() -> None:
    """env() and raw_env() are PettingZoo's module-level factories; metadata names the
    environment and its render modes."""
    raw = rl.raw_env(players=3, render_mode="ansi")
    assert isinstance(raw, TokaidoAEC) and raw.render_mode == "ansi"
    wrapped = rl.env(players=3)
    assert isinstance(wrapped, OrderEnforcingWrapper)
    assert isinstance(wrapped.unwrapped, TokaidoAEC)
    for metadata in (TokaidoAEC.metadata, wrapped.metadata):
        assert metadata["name"] == "tokaido_v0"
        assert metadata["render_modes"] == ["ansi", "human"]
        assert metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError):
        wrapped.step(0)  # OrderEnforcingWrapper: reset first
    wrapped.reset(seed=1)
    with pytest.raises(AssertionError):
        wrapped.step(10**6)  # AssertOutOfBoundsWrapper: outside the action space


def test_wrapped_env_passes_the_api_test() -> None:
    """PettingZoo's api_test passes for the wrapped environment too."""
    api_test(rl.env(players=4, plugins=("base", "crossroads")), num_cycles=150,
             verbose_progress=False)


def test_gymnasium_make_and_checker_without_spec_warning() -> None:
    """gymnasium.make builds the registered id with its keyword arguments; check_env
    then runs its render checks through the spec and warns about nothing (about no
    spec, the wrapped env)."""
    assert rl.GYM_ID in gymnasium.registry
    made = gymnasium.make("tokaido_rules/Tokaido-v0", players=3, opponents=("random",))
    assert isinstance(made.unwrapped, TokaidoGymEnv)
    assert made.spec is not None and made.spec.id == "tokaido_rules/Tokaido-v0"
    assert made.unwrapped.table.players == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)
    assert [str(w.message) for w in caught] == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made)
    assert not [str(w.message) for w in caught if "spec" in str(w.message).lower()]


def test_registration_happens_once() -> None:
    """Registering again (as a second import would) leaves the one entry and does not
    warn about overriding it."""
    spec = gymnasium.spec("tokaido_rules/Tokaido-v0")
    assert spec.entry_point == "tokaido_rules.rl:TokaidoGymEnv"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rl._register()
    assert [str(w.message) for w in caught] == []
    assert gymnasium.spec("tokaido_rules/Tokaido-v0") is spec


def test_action_masks_match_the_legal_actions() -> None:
    """action_masks() is the observation's mask as booleans, the agent's legal actions
    at each step, and a random masked policy plays a game to its end with it."""
    made = gymnasium.make("tokaido_rules/Tokaido-v0", players=4, seat=1,
                          opponents=("random", "greedy"), plugins=("base", "crossroads"))
    inner = made.unwrapped
    assert isinstance(inner, TokaidoGymEnv)
    observation, _ = made.reset(seed=6)
    rng = np.random.default_rng(6)
    done, steps, reward = False, 0, 0.0
    while not done:
        masks = inner.action_masks()
        assert np.array_equal(masks, made.get_wrapper_attr("action_masks")())
        assert masks.dtype == np.bool_ and masks.shape == (len(inner.table.actions),)
        assert np.array_equal(masks, observation["action_mask"].astype(bool))
        assert set(np.flatnonzero(masks)) == set(inner.table.actions.legal(inner.game))
        assert len(np.flatnonzero(masks)) == len(inner.game.legal_actions()) > 0
        observation, gain, done, truncated, info = made.step(int(rng.choice(
            np.flatnonzero(masks))))
        reward = float(gain)
        assert not truncated and "illegal" not in info
        steps += 1
    assert inner.game.is_over and steps > 10
    assert not inner.action_masks().any()
    scores = inner.game.scores()
    assert reward == scores[1].total - max(s.total for s in scores if s.seat != 1)


def test_without_the_rl_extra_the_import_says_which_extra_to_install() -> None:
    """Importing tokaido_rules.rl without its libraries names the extra to install."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['pettingzoo'] = None\n"
            "try:\n    import tokaido_rules.rl\n"
            "except ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert "needs the 'rl' extra (pettingzoo is missing)" in out
    assert "pip install '.[rl]' in a clone" in out


# --- baselines and evaluation (issue 34) ----------------------------------------------


def test_the_seat_view_and_numbered_legal_actions_match_the_observation() -> None:
    """``view()`` is the agent's seat's view and ``legal_actions()`` its legal decisions
    by number, the ones of the observation's mask; both are empty of decisions once the
    game is over."""
    env = TokaidoGymEnv(players=3, seat=1, opponents=("random",))
    observation, _ = env.reset(seed=4)
    done = False
    while not done:
        legal = env.legal_actions()
        assert sorted(legal) == list(np.flatnonzero(observation["action_mask"]))
        assert env.view() == env.game.view(1)
        assert set(legal.values()) == set(env.view().legal_actions)
        observation, _, done, _, _ = env.step(min(legal))
    assert env.legal_actions() == {} and env.view().over


def test_evaluate_counts_wins_with_a_wilson_interval() -> None:
    """evaluate plays the policy's seat against bots and counts its wins (a shared win
    1/k) and mean margin; the interval is the Wilson interval of those wins; the same
    arguments give the same games, whatever was evaluated before."""
    first = rl.evaluate(rl.first_legal, 6, players=3, opponents=("random",), seed=3)
    rl.evaluate(rl.random_legal(1), 6, players=3, opponents=("random",), seed=3)
    again = rl.evaluate(rl.first_legal, 6, players=3, opponents=("random",), seed=3)
    assert first == again and first.games == 6 and 0 <= first.wins <= 6
    assert first.win_rate == first.wins / 6
    assert first.interval() == wilson_interval(first.wins, 6)
    assert first.interval(0.99)[0] <= first.interval()[0]
    low, high = first.interval()
    assert str(first) == (f"{first.win_rate:.3f} [{low:.3f}, {high:.3f}] over 6 games, "
                          f"margin {first.mean_margin:+.1f}")


def test_the_baselines_play_legal_decisions() -> None:
    """first_legal takes the lowest legal number, random_legal a legal one from its own
    seed, bot_policy the bot's choice from the seat's view; an unknown bot, a policy
    choosing a masked number and a batch of no games are refused."""
    env = TokaidoGymEnv(players=4, seat=0, opponents=("random",))
    observation, _ = env.reset(seed=2)
    legal = env.legal_actions()
    assert rl.first_legal(env, observation) == min(legal)
    assert rl.random_legal(5)(env, observation) in legal
    assert rl.random_legal(5)(env, observation) == rl.random_legal(5)(env, observation)
    greedy = GreedyBot(9).choose(env.view())
    assert legal[rl.bot_policy("greedy", 9)(env, observation)] == greedy
    with pytest.raises(TokaidoError, match="unknown bot 'clever'"):
        rl.bot_policy("clever")
    with pytest.raises(IllegalActionError, match="not legal now"):
        rl.evaluate(lambda env, observation: len(env.table.actions) - 1, 1)
    with pytest.raises(TokaidoError, match="positive number"):
        rl.evaluate(rl.first_legal, 0)


def test_first_legal_beats_random_bots_and_loses_to_greedy_ones() -> None:
    """The baseline a learner must beat: always the first legal action wins most games
    against random bots (they skip much of the road) and none against greedy bots."""
    against_random = rl.evaluate(rl.first_legal, 8, opponents=("random",), seed=1)
    against_greedy = rl.evaluate(rl.first_legal, 8, opponents=("greedy",), seed=1)
    assert against_random.win_rate >= 0.75 and against_random.mean_margin > 0
    assert against_greedy.wins == 0 and against_greedy.mean_margin < 0


def load_example() -> Any:
    path = Path(__file__).resolve().parent.parent / "examples" / "rl_agent.py"
    spec = importlib.util.spec_from_file_location("rl_agent_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_agent_learns_to_beat_the_first_legal_action() -> None:
    """The example's linear agent, trained on a few games (its small mode), has learnt
    that skipping spaces costs points, and wins more of the same games against greedy
    bots than the first legal action (which wins none) and random play."""
    example = load_example()
    env = TokaidoGymEnv(players=4, seat=0, opponents=("random",))
    agent = example.Agent(example.Features(env))
    agent.train(env, example.QUICK[0], np.random.default_rng(example.SEED))
    skipped = example.MOVE_FEATURES.index("spaces skipped")
    assert agent.weights[agent.features.actions + skipped] < 0
    games = 8
    results = {name: rl.evaluate(policy, games, opponents=("greedy",), seed=11)
               for name, policy in [("first", rl.first_legal), ("random", rl.random_legal(0)),
                                    ("agent", agent.play)]}
    assert results["agent"].wins > max(results["first"].wins, results["random"].wins)
    assert results["agent"].mean_margin > results["first"].mean_margin

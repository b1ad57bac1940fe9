"""The reinforcement-learning environments: PettingZoo's and Gymnasium's own checks, a
fixed action space, observations from the seat's view only, rewards, cheap clones."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from tokaido_rules import IllegalActionError, Ruleset, Setup, new_game
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.engine import make_rules
from tokaido_rules.rl import ActionIndex, ObservationEncoder, TokaidoAEC, TokaidoGymEnv
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

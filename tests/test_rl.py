"""The reinforcement-learning environments: PettingZoo's and Gymnasium's own checks, a
fixed action space, observations from the seat's view only, rewards, cheap clones."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from tokaido_rules import IllegalActionError, Ruleset, Setup, new_game, rl
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
    assert "pip install 'tokaido-rules[rl]'" in out

"""Train and evaluate a simple learning agent on the Gymnasium environment.

The agent is a bandit over the fixed action space: it keeps the average final reward
("win": +1 or -1) of the episodes in which it took each action, and prefers the best
legal one (with some exploration). It trains for a few thousand steps against three
random bots, then plays evaluation games without exploring and prints its win rate.

Run: ``python examples/rl_agent.py`` (needs the extra ``tokaido-rules[rl]``).
"""

from __future__ import annotations

import numpy as np

from tokaido_rules.rl import TokaidoGymEnv

TRAIN_STEPS = 3000
EVAL_GAMES = 30


def choose(values: np.ndarray, counts: np.ndarray, mask: np.ndarray,
           rng: np.random.Generator, explore: float) -> int:
    """The legal action with the best average reward (untried ones first)."""
    legal = np.flatnonzero(mask)
    if rng.random() < explore:
        return int(rng.choice(legal))
    scores = np.where(counts[legal] > 0, values[legal] / np.maximum(counts[legal], 1), 2.0)
    return int(legal[int(np.argmax(scores))])


def main() -> None:
    env = TokaidoGymEnv(players=4, seat=0, opponents=("random",), reward="win")
    size = int(env.action_space.n)  # type: ignore[attr-defined]
    values, counts = np.zeros(size), np.zeros(size)
    rng = np.random.default_rng(7)
    observation, _ = env.reset(seed=0)
    taken: list[int] = []
    episodes = 0
    for _ in range(TRAIN_STEPS):
        action = choose(values, counts, observation["action_mask"], rng, explore=0.2)
        taken.append(action)
        observation, reward, done, _, _ = env.step(action)
        if done:
            for a in taken:  # every action of the episode shares its outcome
                values[a] += reward
                counts[a] += 1
            taken.clear()
            episodes += 1
            observation, _ = env.reset(seed=episodes)
    wins = 0
    for game in range(EVAL_GAMES):
        observation, _ = env.reset(seed=10_000 + game)
        done, reward = False, 0.0
        while not done:
            action = choose(values, counts, observation["action_mask"], rng, explore=0.0)
            observation, reward, done, _, _ = env.step(action)
        wins += reward > 0
    print(f"trained for {TRAIN_STEPS} steps ({episodes} games), "
          f"{int((counts > 0).sum())} of {size} actions tried")
    print(f"win rate against three random bots: {wins / EVAL_GAMES:.2f} "
          f"(baseline 0.25) over {EVAL_GAMES} games")


if __name__ == "__main__":
    main()

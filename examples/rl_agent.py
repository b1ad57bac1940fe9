"""Train a learning agent on the Gymnasium environment and compare it with baselines.

The agent is a linear softmax policy over features of each legal decision, read from
the seat's view only: for a move, the kind of space it goes to, the spaces it skips and
the coins in hand; for a purchase, what it buys and costs; for any other decision, which
decision it is (one weight per number of the action space). It learns by REINFORCE:
after each game, each decision's weights move towards the features of the action taken,
in proportion to the points the seat scored from then on, minus their running average
at that point of the road. It trains against random bots, then against greedy bots.

Then it and three baselines play the same games, seat 0 of 4, against three random bots
and against three greedy bots: always the first legal action, uniformly random actions,
and the greedy bot itself. Each win rate comes with its 95% Wilson interval. Against
random bots the first legal action already wins nearly every game (it never skips a
space, and they do); against greedy bots it never wins, and the agent must.

Run: ``python examples/rl_agent.py`` (needs the extra ``tokaido-rules[rl]``; about 30 s
on one core), ``--quick`` for a smoke run of a few games, or ``--train-games N
--eval-games M --seed S``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from tokaido_rules import Action, Move, View
from tokaido_rules.rl import (
    Evaluation,
    Policy,
    TokaidoGymEnv,
    bot_policy,
    evaluate,
    first_legal,
    random_legal,
)

PLAYERS = 4
TRAIN_GAMES = 800
"""Training games: three quarters against random bots, then a quarter against greedy."""
EVAL_GAMES = 100
QUICK = (24, 6)
"""Training and evaluation games of ``--quick``."""
SEED = 7
KINDS = ("encounter", "farm", "hot_spring", "inn", "mountain", "paddy", "sea", "temple",
         "village")
MOVE_FEATURES = [f"move to {k}" for k in KINDS] + [
    "spaces skipped", "coins at a village", "coins at a temple", "coins at a farm",
    "coins at an inn", "next panorama section", "panorama complete"]
OTHER_FEATURES = ["souvenirs bought", "new souvenir families", "souvenir cost",
                  "meal bought", "meal cost"]


class Features:
    """The features of each legal decision, from the seat's view and the public rules."""

    def __init__(self, env: TokaidoGymEnv) -> None:
        self.actions = int(env.action_space.n)  # type: ignore[attr-defined]
        self.size = self.actions + len(MOVE_FEATURES) + len(OTHER_FEATURES)
        registry = env.table.ruleset.registry
        self.cards = registry.cards
        self.board = registry.board
        self.sections = {k: sum(c.kind == "panorama" and c.id.startswith(f"{k}.")
                                for c in registry.cards.values()) for k in KINDS}

    def of(self, view: View, legal: Sequence[tuple[int, Action]]) -> np.ndarray[Any, Any]:
        x = np.zeros((len(legal), self.size))
        seat = view.seat
        assert seat is not None  # a seat's view, not a spectator's
        me = view.pieces[seat]
        mine = view.collection(seat)
        coins = me.coins / 10
        move, other = self.actions, self.actions + len(MOVE_FEATURES)
        for row, (number, action) in enumerate(legal):
            if isinstance(action, Move):
                kind = self.board[action.position].kind
                x[row, move + KINDS.index(kind)] = 1
                x[row, move + 9] = action.position - view.pieces[action.piece].position - 1
                for column, where in enumerate(("village", "temple", "farm", "inn")):
                    if kind == where:
                        x[row, move + 10 + column] = coins
                if self.sections[kind]:
                    held = sum(c.startswith(f"{kind}.") for c in mine)
                    done = held >= self.sections[kind]
                    x[row, move + 14] = 0 if done else (held + 1) / 3
                    x[row, move + 15] = done
                continue
            x[row, number] = 1
            if action.TYPE == "base.buy_souvenirs":
                bought = [self.cards[c] for c in getattr(action, "cards", ())]
                families = {self.cards[c].family for c in mine}
                x[row, other] = len(bought)
                x[row, other + 1] = len({c.family for c in bought} - families)
                x[row, other + 2] = sum(c.price for c in bought) / 3
            elif action.TYPE == "base.buy_meal" and getattr(action, "meal", None):
                x[row, other + 3] = 1
                x[row, other + 4] = self.cards[action.meal].price / 3  # type: ignore[attr-defined]
        return x


class Agent:
    """A linear softmax policy: P(action) ∝ exp(weights · features(action))."""

    def __init__(self, features: Features, rate: float = 0.05) -> None:
        self.features = features
        self.weights = np.zeros(features.size)
        self.rate = rate
        self.baseline = np.zeros(len(features.board))  # points to come, by position

    def probabilities(self, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        z = x @ self.weights
        e = np.exp(z - z.max())
        return e / e.sum()  # type: ignore[no-any-return]

    def play(self, env: TokaidoGymEnv, observation: dict[str, Any]) -> int:
        """The policy being evaluated: the most probable legal action."""
        legal = sorted(env.legal_actions().items())
        x = self.features.of(env.view(), legal)
        return legal[int(np.argmax(x @ self.weights))][0]

    def train(self, env: TokaidoGymEnv, games: int, rng: np.random.Generator) -> None:
        """REINFORCE over ``games`` episodes, sampling from the policy."""
        for _ in range(games):
            env.reset(seed=int(rng.integers(2**63)))
            trail: list[tuple[np.ndarray[Any, Any], int, np.ndarray[Any, Any], int, int]] = []
            done = False
            while not done:
                legal = sorted(env.legal_actions().items())
                view = env.view()
                x = self.features.of(view, legal)
                p = self.probabilities(x)
                i = int(rng.choice(len(legal), p=p))
                me = view.pieces[env.seat]
                trail.append((x, i, p, me.total, me.position))
                _, _, done, _, _ = env.step(legal[i][0])
            final = env.view().pieces[env.seat].total
            for x, i, p, total, position in trail:
                to_come = final - total
                advantage = (to_come - self.baseline[position]) / 10
                self.baseline[position] += 0.05 * (to_come - self.baseline[position])
                self.weights += self.rate * advantage * (x[i] - p @ x)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-games", type=int, default=TRAIN_GAMES)
    parser.add_argument("--eval-games", type=int, default=EVAL_GAMES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few games")
    args = parser.parse_args(argv)
    train_games, eval_games = QUICK if args.quick else (args.train_games, args.eval_games)
    seed = args.seed

    rng = np.random.default_rng(seed)
    against_random = TokaidoGymEnv(players=PLAYERS, seat=0, opponents=("random",))
    against_greedy = TokaidoGymEnv(players=PLAYERS, seat=0, opponents=("greedy",))
    agent = Agent(Features(against_random))
    first = train_games * 3 // 4
    agent.train(against_random, first, rng)
    agent.train(against_greedy, train_games - first, rng)
    print(f"trained a linear policy for {train_games} games: {first} against random bots, "
          f"{train_games - first} against greedy bots")
    learned = dict(zip(MOVE_FEATURES + OTHER_FEATURES,
                       agent.weights[agent.features.actions:], strict=True))
    print("largest learned weights: " + ", ".join(
        f"{name} {value:+.2f}" for name, value in
        sorted(learned.items(), key=lambda item: -abs(item[1]))[:4]))

    policies: dict[str, Policy] = {
        "first legal action": first_legal,
        "random": random_legal(seed),
        "greedy bot": bot_policy("greedy", seed),
        "trained agent": agent.play,
    }
    print(f"\nseat 0 of {PLAYERS}, the same {eval_games} games for each policy: win rate "
          "[95% Wilson interval], mean margin")
    print(f"{'policy':<20}{'vs 3 random bots':<32}vs 3 greedy bots")
    for name, policy in policies.items():
        cells = []
        for opponents in ("random", "greedy"):
            result: Evaluation = evaluate(policy, eval_games, players=PLAYERS,
                                          opponents=(opponents,), seed=seed + 1)
            low, high = result.interval()
            cells.append(f"{result.win_rate:.2f} [{low:.2f}, {high:.2f}] "
                         f"{result.mean_margin:+6.1f}")
        print(f"{name:<20}{cells[0]:<32}{cells[1]}")


if __name__ == "__main__":
    main()

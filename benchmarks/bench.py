"""Speed of tokaido-rules on one core: complete random games per second.

Run: ``python benchmarks/bench.py [--games N] [--players 2,3,4,5] [--plugins base]``.
Legality checks are on (every action is checked against the legal actions, as
``Game.apply`` always does). Prints games per second and microseconds per decision.
"""

from __future__ import annotations

import argparse
import time

from tokaido_rules import Ruleset, new_game
from tokaido_rules.bots import RandomBot


def run(players: int, games: int, ruleset: Ruleset) -> tuple[float, float, float]:
    """Return (games per second, microseconds per decision, decisions per game)."""
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        game = new_game(players, seed=seed, plugins=ruleset)
        bot = RandomBot(seed)
        while not game.is_over:
            game = game.apply(bot.choose(game))
            decisions += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, elapsed / decisions * 1e6, decisions / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--plugins", default="base")
    args = parser.parse_args()
    ruleset = Ruleset.build(args.plugins.split(","))
    print(f"plugins: {args.plugins}; {args.games} games per row; one core")
    print(f"{'players':>7}  {'games/s':>8}  {'us/decision':>11}  {'decisions/game':>14}")
    for players in (int(p) for p in args.players.split(",")):
        gps, us, dpg = run(players, args.games, ruleset)
        print(f"{players:>7}  {gps:>8.1f}  {us:>11.1f}  {dpg:>14.1f}")


if __name__ == "__main__":
    main()

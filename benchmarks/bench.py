"""Speed of tokaido-rules on one core: complete random games per second, and log replay.

Run: ``python benchmarks/bench.py [--games N] [--players 2,3,4,5] [--plugins base]``.
Legality checks are on (every action is checked against the legal actions, as
``Game.apply`` always does). Prints games per second and microseconds per decision, then
the replay speed of logs (parse + fold, events per second) and the size of a log.
"""

from __future__ import annotations

import argparse
import time

from tokaido_rules import Game, Ruleset, dump_log, load_log, new_game
from tokaido_rules.bots import RandomBot, next_action


def run(players: int, games: int, ruleset: Ruleset) -> tuple[float, float, float]:
    """Return (games per second, microseconds per decision, decisions per game)."""
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        game = new_game(players, seed=seed, plugins=ruleset)
        bot = RandomBot(seed)
        while not game.is_over:
            game = game.apply(next_action(bot, game))
            decisions += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, elapsed / decisions * 1e6, decisions / games


def replay_speed(players: int, games: int, ruleset: Ruleset) -> tuple[float, float, int]:
    """Return (events per second loading logs, seconds per log, mean log size in bytes)."""
    logs = []
    for seed in range(games):
        game: Game = new_game(players, seed=seed, plugins=ruleset)
        bot = RandomBot(seed)
        while not game.is_over:
            game = game.apply(next_action(bot, game))
        logs.append(dump_log(game))
    events = sum(text.count("\n") - 1 for text in logs)
    start = time.perf_counter()
    for text in logs:
        load_log(text)
    elapsed = time.perf_counter() - start
    return events / elapsed, elapsed / games, sum(len(t.encode()) for t in logs) // games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--plugins", default="base")
    args = parser.parse_args()
    ruleset = Ruleset.build(args.plugins.split(","))
    print(f"plugins: {args.plugins}; {args.games} games per row; one core")
    print(f"{'players':>7}  {'games/s':>8}  {'us/decision':>11}  {'decisions/game':>14}")
    counts = [int(p) for p in args.players.split(",")]
    for players in counts:
        gps, us, dpg = run(players, args.games, ruleset)
        print(f"{players:>7}  {gps:>8.1f}  {us:>11.1f}  {dpg:>14.1f}")
    print()
    print(f"{'players':>7}  {'replay events/s':>15}  {'ms/log':>7}  {'log bytes':>9}")
    for players in counts:
        eps, per_log, size = replay_speed(players, max(10, args.games // 10), ruleset)
        print(f"{players:>7}  {eps:>15.0f}  {per_log * 1000:>7.1f}  {size:>9}")


if __name__ == "__main__":
    main()

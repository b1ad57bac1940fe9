"""Simulate a batch of games on a pool of two worker processes and print win rates.

Run: ``python examples/simulate_batch.py``. Greedy and random bots alternate seats in
3-player games of the base game. Game ``i`` is seeded from the batch seed and ``i``
alone, so the results do not depend on the executor or the number of workers: the
output is the same on every run (timings are left out for that reason).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from tokaido_rules.simulate import Batch, simulate

GAMES = 40
PLAYERS = 3
BOTS = ("greedy", "random")  # by seat, cycled: greedy, random, greedy
SEED = 1


def print_rates(title: str, rates: dict[str, float], games: dict[str, int] | None = None) -> None:
    print(title)
    for name, rate in sorted(rates.items(), key=lambda item: (-item[1], item[0])):
        played = f"  (played {games[name]} times)" if games is not None else ""
        print(f"  {name:<12}{rate:>7.1%}{played}")


def main() -> None:
    # The pool must be created under the __main__ guard: worker processes import this
    # module, and must not start pools of their own.
    with ProcessPoolExecutor(2) as pool:
        batch: Batch = simulate(games=GAMES, players=PLAYERS, bots=BOTS, seed=SEED,
                                executor=pool)
    summary = batch.summary
    print(f"{summary.games} games of {PLAYERS} players, bots {', '.join(BOTS)}, "
          f"seed {SEED}: {summary.decisions_per_game:.1f} decisions per game")
    # A win counts 1, or 1/k for each of k tied winners.
    print_rates("Win rate by traveller:", summary.win_rate_by_traveller,
                summary.games_by_traveller)
    print_rates("Win rate by bot:", summary.win_rate_by_bot)
    first = batch.results[0]
    print(f"First game (seed {first.seed}): " + ", ".join(
        f"{s.bot} {s.traveller} {s.score} (rank {s.rank})" for s in first.seats))


if __name__ == "__main__":
    main()

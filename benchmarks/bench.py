"""Speed of tokaido-rules on one core.

Run: ``python benchmarks/bench.py [--games N] [--players 2,3,4,5]
[--rulesets base,base+crossroads] [--repeat R] [--warmup W]``.

Prints, for each ruleset and player count, complete random games per second with
legality checks on (every ``Game.apply`` checks its action against the legal actions)
and microseconds per decision; then the replay speed of logs
(``load_log``: parse, check and fold, in events per second: over a corpus of distinct
logs, each loaded once, and "cold", each log loaded as the first of a process, see
:func:`replay_speed`), the size of a log, and the peak memory of the process. Timings
are CPU time of this process. Each game (and each log load) is timed on its own, ``R``
times (default 3), and its fastest time is kept: a
busy machine only ever adds time, in bursts, so the sum of the fastest times is the
figure that repeats from run to run. A second column, "sustained", times one pass over the
distinct games with everything included: the rate of a long simulation.

On PyPy, whose JIT compiles the engine while it runs, ``W`` random games (by default
10,000 on PyPy, none on CPython) are played over the rulesets and player counts asked
for, and one log in ten written and loaded, before anything is timed, so that the
figures are those of a long simulation; the JIT is tuned as ``tokaido simulate`` tunes
it (:func:`tokaido_rules.simulate.tune_jit`). The first pass over the timed games still
pays for compiling the paths they are the first to take, which the repeated runs do
not: on PyPy that, not the garbage collector (about 1% of the time), is most of the
gap between the two columns.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from functools import partial

from tokaido_rules import Game, Ruleset, dump_log, load_log, log, new_game
from tokaido_rules.chance import random_below
from tokaido_rules.simulate import PYPY_JIT, tune_jit


def random_game(players: int, seed: int, ruleset: Ruleset) -> tuple[Game, int]:
    """A complete game of uniformly random legal actions; returns it and its decisions."""
    game = new_game(players, seed=seed, plugins=ruleset)
    decisions = 0
    while not game.is_over:
        actions = game.legal_actions()
        game = game.apply(actions[random_below(seed, decisions, 3, len(actions))])
        decisions += 1
    return game, decisions


def fastest(runs: int, task: Callable[[], object]) -> float:
    """The fastest CPU time of ``task`` over ``runs`` runs."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        task()
        best = min(best, time.process_time() - start)
    return best


def games_per_second(players: int, games: int, ruleset: Ruleset,
                     repeat: int) -> tuple[float, float, float, float]:
    """(games per second, sustained games per second, microseconds per decision,
    decisions per game).

    The first figure sums each game's fastest of ``repeat`` runs: the machine's bursts of
    other work are left out, and so is any pause of the garbage collector that fell in
    one run only (small on CPython, not on PyPy). The sustained figure is one pass over
    the distinct games, everything included: what a long simulation gets.
    """
    start = time.process_time()
    decisions = sum(random_game(players, seed, ruleset)[1] for seed in range(games))
    sustained = games / (time.process_time() - start)
    total = sum(fastest(repeat, partial(random_game, players, seed, ruleset))
                for seed in range(games))
    return games / total, sustained, total / decisions * 1e6, decisions / games


def replay_speed(players: int, games: int, ruleset: Ruleset,
                 repeat: int) -> tuple[float, float, float, int]:
    """(events per second loading a corpus of distinct logs, events per second loading
    each as the first log of a process, milliseconds per log, mean log size in bytes).

    ``load_log`` remembers the event lines it has parsed (lines repeat across games), so
    the corpus figure is one pass over the logs, each loaded once, with that memory
    emptied first (the fastest of ``repeat`` passes); the cold figure empties it before
    every log (each log's fastest of ``repeat`` loads)."""
    logs = [dump_log(random_game(players, 10_000 + seed, ruleset)[0]) for seed in range(games)]
    events = sum(text.count("\n") - 1 for text in logs)
    load_log(logs[0])  # warm up: the ruleset's converter is built once per process

    def corpus() -> None:
        forget_lines()
        for text in logs:
            load_log(text)

    def cold(text: str) -> None:
        forget_lines()
        load_log(text)

    total = fastest(repeat, corpus)
    first = sum(fastest(repeat, partial(cold, text)) for text in logs)
    return (events / total, events / first, total / games * 1000,
            sum(len(t.encode()) for t in logs) // games)


def forget_lines() -> None:
    """Empty ``load_log``'s memory of the event lines it has seen (a private table;
    versions before it have none, so that the scripts compare them too)."""
    seen = getattr(log, "_SEEN", None)
    if seen is not None:
        seen.clear()


def default_warmup() -> int:
    """Games to play before timing: a JIT needs them, CPython does not."""
    return 10_000 if sys.implementation.name == "pypy" else 0


def warm_up(games: int, rulesets: list[Ruleset], counts: list[int]) -> None:
    """Play ``games`` random games over every ruleset and player count, and write and
    load the logs of one in ten (untimed)."""
    rows = itertools.cycle(itertools.product(rulesets, counts))
    for seed in range(games):
        ruleset, players = next(rows)
        game = random_game(players, 1_000_000 + seed, ruleset)[0]
        if seed % 10 == 0:
            load_log(dump_log(game))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--rulesets", default="base,base+crossroads")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each game and log load; the fastest is kept")
    parser.add_argument("--warmup", type=int, default=None,
                        help="untimed games first (default: 10000 on PyPy, 0 on CPython)")
    args = parser.parse_args()
    counts = [int(p) for p in args.players.split(",")]
    rulesets = [(name, Ruleset.build(name.split("+"))) for name in args.rulesets.split(",")]
    warmup = default_warmup() if args.warmup is None else args.warmup
    jit = f" (JIT: {os.environ.get('TOKAIDO_PYPY_JIT', PYPY_JIT)})" if tune_jit() else ""
    warm_up(warmup, [r for _, r in rulesets], counts)
    print(f"{platform.python_implementation()} {platform.python_version()}{jit}; "
          f"{args.games} random games per row, after {warmup} untimed games; one core, "
          "legality checks on\n"
          f"games/s: each game's fastest of {args.repeat} runs; sustained: one pass, "
          "everything included\n")
    print(f"{'ruleset':<16} {'players':>7} {'games/s':>8} {'sustained':>9} "
          f"{'us/decision':>11} {'decisions/game':>14}")
    for name, ruleset in rulesets:
        for players in counts:
            gps, steady, us, dpg = games_per_second(players, args.games, ruleset,
                                                    args.repeat)
            print(f"{name:<16} {players:>7} {gps:>8.1f} {steady:>9.1f} {us:>11.1f} "
                  f"{dpg:>14.1f}")
    print(f"\n{'ruleset':<16} {'players':>7} {'replay events/s':>15} {'cold':>9} "
          f"{'ms/log':>7} {'log bytes':>9}")
    for name, ruleset in rulesets:
        for players in counts:
            eps, cold, per_log, size = replay_speed(players, max(10, args.games // 4),
                                                    ruleset, args.repeat)
            print(f"{name:<16} {players:>7} {eps:>15.0f} {cold:>9.0f} {per_log:>7.1f} "
                  f"{size:>9}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory: {peak:.0f} MiB")


if __name__ == "__main__":
    main()

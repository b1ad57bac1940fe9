"""Machine instructions per complete random game, counted by valgrind: a cost measure
that repeats exactly from run to run, whatever else the machine is doing.

Run: ``python benchmarks/instructions.py [--games N] [--players P] [--ruleset base]
[--bots greedy,random] [--replay corpus|cold]``.

With ``--bots``, each game is played by those bots (cycled over the seats) through
``simulate.play_game``, as a batch plays it, views and bot decisions included; without,
by uniformly random legal actions on the game itself (as ``bench.py`` does).

With ``--replay``, what is counted is loading the logs of ``N`` random games instead
(``load_log``), per log: as a corpus (each log once, ``load_log``'s memory of the lines
it has seen emptied first) or each log cold (that memory emptied before every log), as
``bench.py`` times them.

Timings (``bench.py``) wander by 20% or more on a shared machine; instruction counts do
not, so they are the way to compare two versions of the code: run this on each. The
script runs itself twice under ``valgrind --tool=callgrind`` (about 50 times slower
than normal), once playing no game and once playing ``N``, and prints the difference
per game, so that start-up and imports are not counted. Needs ``valgrind`` on the PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

from bench import forget_lines, random_game
from tokaido_rules import Ruleset, dump_log, load_log
from tokaido_rules.simulate import play_game, specs


def play(games: int, players: int, ruleset: str, bots: str) -> None:
    """The counted work: one warm-up game (building caches), then ``games`` games."""
    if bots:
        batch = specs(games + 1, players, ruleset.split("+"), bots.split(","), seed=1)
        for spec in batch:
            play_game(spec)
        return
    rules = Ruleset.build(ruleset.split("+"))
    random_game(players, 10_000, rules)
    for seed in range(games):
        random_game(players, seed, rules)


def replay(games: int, players: int, ruleset: str, mode: str, load: bool) -> None:
    """The counted work of ``--replay``: the logs of ``games`` random games are written in
    both runs, and loaded (``load``) only in the counted one."""
    rules = Ruleset.build(ruleset.split("+"))
    logs = [dump_log(random_game(players, 10_000 + seed, rules)[0]) for seed in range(games)]
    load_log(dump_log(random_game(players, 9_999, rules)[0]))  # builds the converter
    forget_lines()
    if load:
        for text in logs:
            if mode == "cold":
                forget_lines()
            load_log(text)


def callgrind_count(arguments: list[str]) -> int:
    """Instructions executed by this Python running ``arguments``, under callgrind,
    with string hashes (so dict layouts) fixed, so that the count repeats exactly."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               sys.executable, *arguments]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    for line in result.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[1])
    raise SystemExit(f"error: valgrind reported no count:\n{result.stderr[-2000:]}")


def count(games: int, players: int, ruleset: str, bots: str) -> int:
    """Instructions executed by this script playing ``games`` games, under callgrind."""
    return callgrind_count([__file__, "--inner", "--games", str(games), "--players",
                            str(players), "--ruleset", ruleset, "--bots", bots])


def count_replay(games: int, players: int, ruleset: str, mode: str, load: bool) -> int:
    """Instructions executed by this script writing ``games`` logs and, with ``load``,
    loading them, under callgrind."""
    return callgrind_count([__file__, "--inner", "--games", str(games), "--players",
                            str(players), "--ruleset", ruleset, "--replay", mode,
                            *(["--load"] if load else [])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--ruleset", default="base", help="plugin ids joined by '+'")
    parser.add_argument("--bots", default="",
                        help="bots by seat, e.g. greedy,random (default: random actions, no bots)")
    parser.add_argument("--replay", choices=("corpus", "cold"),
                        help="count loading the games' logs instead of playing them")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        if args.replay:
            replay(args.games, args.players, args.ruleset, args.replay, args.load)
        else:
            play(args.games, args.players, args.ruleset, args.bots)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("error: valgrind is not installed")
    if args.games < 1:
        raise SystemExit("error: --games must be at least 1")
    if args.replay:
        per_log = (count_replay(args.games, args.players, args.ruleset, args.replay, True)
                   - count_replay(args.games, args.players, args.ruleset, args.replay,
                                  False)) / args.games
        print(f"{args.ruleset}, {args.players} players: {per_log / 1e6:.2f} million "
              f"instructions per log loaded ({args.replay}, mean of {args.games})")
        return
    per_game = (count(args.games, args.players, args.ruleset, args.bots)
                - count(0, args.players, args.ruleset, args.bots)) / args.games
    players = f"bots {args.bots}" if args.bots else "random actions"
    print(f"{args.ruleset}, {args.players} players: {per_game / 1e6:.2f} million "
          f"instructions per game ({players}, mean of {args.games})")


if __name__ == "__main__":
    main()

"""CPU time of ``tokaido analyse``: one seat of a game analysed, on one core.

Run: ``python benchmarks/analyse.py [--bot ismcts] [--bot-option KEY=VALUE ...]
[--players 4] [--seed 0] [--seat 0] [--plugins base] [--players-bots greedy]``.

Plays a game with the ``--players-bots`` (cycled, default greedy), then analyses
``--seat``'s decisions with ``--bot`` at its default budget (or the options given) and
prints the decisions analysed, the CPU time of this process
(``time.process_time``) in all and per decision. ``--bot flat`` uses the tests' flat
Monte Carlo test double (``tests/flat_evaluator.py``), as the tests do.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tokaido_rules import new_game
from tokaido_rules.analysis import analyse_game
from tokaido_rules.bots import BOTS, check_options
from tokaido_rules.cli import play_bots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="ismcts")
    parser.add_argument("--bot-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--plugins", default="base")
    parser.add_argument("--players-bots", default="greedy")
    args = parser.parse_args()
    if args.bot == "flat":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from flat_evaluator import FlatEvaluator

        BOTS["flat"] = FlatEvaluator
    given = dict(item.split("=", 1) for item in args.bot_option)
    options = check_options(args.bot, given)
    game = new_game(args.players, seed=args.seed, plugins=args.plugins.split(","))
    game = play_bots(game, args.seed, args.players_bots.split(","))
    start = time.process_time()
    found = analyse_game(game, args.seat, args.bot, options=options)
    spent = time.process_time() - start
    count = len(found.decisions)
    print(f"{args.bot} {options or '(default budget)'}: seat {args.seat} of a "
          f"{args.players}-player game ({args.plugins}, seed {args.seed}): {count} "
          f"decisions in {spent:.2f} s CPU ({spent / max(1, count) * 1000:.0f} ms each)")


if __name__ == "__main__":
    main()

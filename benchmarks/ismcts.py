"""What the ISMCTS ladder costs: 4-player base games with every seat played by one level
(:mod:`tokaido_rules.ismcts`), on the fast engine, CPU time per game and per searched
decision (a decision with one legal action is taken without a search).

Run: ``python benchmarks/ismcts.py [--level ismcts] [--games 1] [--seed S]
[--iterations N]``. CPU time (``time.process_time``), not wall time: the figure holds on
a machine shared with other work. The issue's bound: the default level (``ismcts``)
keeps a 4-player game of four ISMCTS seats under a minute of CPU on one core.
"""

from __future__ import annotations

import argparse
import time

from tokaido_rules.bots import make_bot, next_action
from tokaido_rules.fast import FastGame
from tokaido_rules.ismcts import LEVELS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="ismcts", choices=sorted(LEVELS))
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None,
                        help="override the level's budget")
    args = parser.parse_args()
    options = {} if args.iterations is None else {"iterations": args.iterations}
    total = 0.0
    searched = 0
    for g in range(args.games):
        seed = args.seed + g
        game = FastGame.new(4, seed=seed)
        bots = [make_bot(args.level, seed * 10 + s, options) for s in range(4)]
        start = time.process_time()
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            searched += len(game.legal_actions()) > 1
            game.apply(next_action(bots[seat], game))
        spent = time.process_time() - start
        total += spent
        print(f"game {seed}: {spent:.1f} s CPU, scores {[s.total for s in game.scores()]}")
    budget = args.iterations or LEVELS[args.level].iterations
    print(f"{args.level} ({budget} iterations): {total / args.games:.1f} s CPU per 4-player "
          f"game of four seats, {1000 * total / max(1, searched):.0f} ms per searched "
          f"decision ({searched / args.games:.0f} per game)")


if __name__ == "__main__":
    main()

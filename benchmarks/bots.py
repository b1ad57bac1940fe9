"""The greedy and search bots on the fast engine against the reference engine: games per
second of CPU time, on the same games.

Run: ``python benchmarks/bots.py [--greedy-games N] [--search-games M] [--players P]
[--plugins base] [--seed S] [--modes pure,compiled]``. Each row is a batch played as
``tokaido simulate`` plays it (:func:`tokaido_rules.simulate.simulate`, one process, no
jobs): four greedy bots (``N`` games, default 20), or the search bot in seat 0 against
greedy bots (``M`` games, default 2), looking ahead on each engine (``--engine fast``
and ``--engine reference``: the same seeds, so the same games and results, which the
script checks). CPU time (``time.process_time``), after one warm-up game. Each mode runs
in a child process of its own: ``pure`` forces the pure Python fast simulator
(``TOKAIDO_PURE_PYTHON=1``), ``compiled`` uses the build of ``tokaido build-fast`` (a
mode whose build is missing or stale says so and is skipped). The reference engine is
the same in both modes (it is never compiled).

Timings on a shared machine wander by 20% or more; compare runs made side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

from tokaido_rules.fast import compiled
from tokaido_rules.simulate import simulate

LINE_UPS = {"greedy": ("greedy",), "search": ("search", "greedy")}
"""The bots of each row, cycled over the seats."""


def measure(bots: str, games: int, players: int, plugins: tuple[str, ...], seed: int,
            engine: str) -> tuple[float, list[Any]]:
    """CPU seconds of ``games`` games of the line-up ``bots`` looking ahead on
    ``engine``, and the results (to check that both engines played the same games)."""
    line_up = LINE_UPS[bots]
    simulate(games=1, players=players, plugins=plugins, bots=line_up, seed=seed + 10**6,
             engine=engine)  # warm-up: tables and caches
    start = time.process_time()
    batch = simulate(games=games, players=players, plugins=plugins, bots=line_up,
                     seed=seed, engine=engine)
    spent = time.process_time() - start
    return spent, [[(s.seat, s.score, s.rank) for s in r.seats] for r in batch.results]


def child(args: argparse.Namespace) -> int:
    """One mode's rows, as JSON on stdout."""
    plugins = tuple(args.plugins.split(","))
    rows = []
    for bots, games in (("greedy", args.greedy_games), ("search", args.search_games)):
        if games <= 0:
            continue
        fast, fast_results = measure(bots, games, args.players, plugins, args.seed, "fast")
        ref, ref_results = measure(bots, games, args.players, plugins, args.seed,
                                   "reference")
        rows.append({"bots": bots, "games": games, "fast": fast, "reference": ref,
                     "same": fast_results == ref_results})
    print(json.dumps({"compiled": compiled(), "rows": rows}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--greedy-games", type=int, default=20)
    parser.add_argument("--search-games", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--plugins", default="base")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--modes", default="pure,compiled")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds a mode may take before it is stopped")
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    print(f"{args.players}-player games of {args.plugins}, seed {args.seed}; CPU time")
    print(f"{'mode':<9} {'bots':<7} {'games':>5} {'fast g/s':>9} {'ref g/s':>8} "
          f"{'ratio':>6}  same games")
    status = 0
    for mode in args.modes.split(","):
        env = dict(os.environ)
        env.pop("TOKAIDO_PURE_PYTHON", None)
        if mode == "pure":
            env["TOKAIDO_PURE_PYTHON"] = "1"
        command = [sys.executable, __file__, "--child", "--greedy-games",
                   str(args.greedy_games), "--search-games", str(args.search_games),
                   "--players", str(args.players), "--plugins", args.plugins,
                   "--seed", str(args.seed)]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True,
                                  timeout=args.timeout, check=False)
        except subprocess.TimeoutExpired:
            print(f"{mode:<9} stopped after {args.timeout:.0f} s")
            status = 1
            continue
        if done.returncode != 0:
            print(f"{mode:<9} failed: {done.stderr.strip().splitlines()[-1:]}")
            status = 1
            continue
        found = json.loads(done.stdout)
        if mode == "compiled" and not found["compiled"]:
            print(f"{mode:<9} no compiled build in use (tokaido build-fast): skipped")
            continue
        for row in found["rows"]:
            fast = row["games"] / row["fast"]
            ref = row["games"] / row["reference"]
            print(f"{mode:<9} {row['bots']:<7} {row['games']:>5} {fast:>9.1f} {ref:>8.2f} "
                  f"{fast / ref:>5.1f}x  {'yes' if row['same'] else 'NO'}")
            if not row["same"]:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

"""The fast simulator's differential check, at any scale: many games played on the fast
simulator (:class:`tokaido_rules.fast.FastGame`) and on the reference engine side by
side, compared at every decision (:func:`tokaido_rules.fast.differential`).

Run: ``python benchmarks/fast.py [--games N] [--players 2,3,4,5] [--seed S] [--jobs J]
[--plugins base,bga] [--no-logs]``: ``N`` seeds (default 1000) per player count, each
played three ways (offered travellers and random choices; given travellers; the "seek"
policy, which plays rare paths such as decks that run out), over every ruleset the
conformance kit's differential mode covers (:func:`tokaido_rules.testing.covered_rulesets`)
or, with ``--plugins``, that one at its option defaults. ``--jobs`` splits the seeds
among worker processes. A million games is only a longer run (``--games 83334
--plugins base`` plays 4 x 3 x 83,334): most of the time is the reference engine's and
the two logs compared at the end of each game, about 50 games a second per core
(``--no-logs`` skips the logs). The
exit status is 1 if any game differs, and the first differences are printed.

Speed is measured elsewhere: ``benchmarks/peer.py`` times the fast simulator, the
reference engine and the peer engine side by side (and counts their instructions).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from tokaido_rules import Ruleset
from tokaido_rules.fast import compiled, differential
from tokaido_rules.testing import covered_rulesets

WAYS: tuple[tuple[str, dict[str, bool | str]], ...] = (
    ("random", {}), ("given travellers", {"travellers": True}), ("seek", {"policy": "seek"}))
"""How each seed is played: the label printed and the arguments of ``differential``."""


def _part(ids: tuple[str, ...], options: dict[str, object], players: int, way: int,
          seeds: range, logs: bool) -> tuple[int, int, tuple[str, ...]]:
    """One worker's share: games, decisions and the differences found."""
    kind = WAYS[way][1]
    report = differential(players, seeds, plugins=Ruleset.build(ids, options), logs=logs,
                          travellers=bool(kind.get("travellers", False)),
                          policy=str(kind.get("policy", "random")))
    return report.games, report.decisions, report.differences


def check(rulesets: list[tuple[tuple[str, ...], dict[str, object]]], games: int,
          players: list[int], seed: int, jobs: int, logs: bool) -> int:
    start = time.perf_counter()
    print(f"fast simulator {'compiled (mypyc)' if compiled() else 'pure Python'}; "
          f"{games} seeds per player count and way, {len(rulesets)} rulesets, {jobs} jobs")
    total = failed = 0
    with ProcessPoolExecutor(jobs) as pool:
        for ids, options in rulesets:
            for n in players:
                for way, (label, _) in enumerate(WAYS):
                    step = -(-games // jobs)
                    parts = [pool.submit(_part, ids, options, n, way,
                                         range(s, min(s + step, seed + games)), logs)
                             for s in range(seed, seed + games, step)]
                    played = decisions = 0
                    differences: list[str] = []
                    for part in parts:
                        g, d, diff = part.result()
                        played, decisions = played + g, decisions + d
                        differences += diff
                    total += played
                    verdict = "all equal" if not differences else (
                        f"{len(differences)} differ, first: {differences[0]}")
                    print(f"{'+'.join(ids)} {options or ''} {n} players, {label}: "
                          f"{played} games, {decisions} decisions: {verdict}", flush=True)
                    failed += len(differences)
    print(f"{total} games in {time.perf_counter() - start:.0f} s: "
          + ("all equal" if not failed else f"{failed} differ"))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000,
                        help="seeds per ruleset, player count and way (default 1000)")
    parser.add_argument("--players", default="2,3,4,5", help="player counts (default 2,3,4,5)")
    parser.add_argument("--seed", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--plugins", help="one ruleset, e.g. base,bga (default: every "
                                          "covered ruleset)")
    parser.add_argument("--no-logs", action="store_true",
                        help="skip the byte-for-byte log comparison at the end of each game")
    parser.add_argument("--differential", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    games = args.differential if args.differential is not None else args.games
    rulesets = ([(tuple(args.plugins.split(",")), {})] if args.plugins
                else list(covered_rulesets()))
    return check(rulesets, games, [int(p) for p in args.players.split(",")], args.seed,
                 max(1, args.jobs), not args.no_logs)


if __name__ == "__main__":
    raise SystemExit(main())

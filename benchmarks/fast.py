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

``--time`` instead times both of our engines on each ruleset (base alone, each covered
plugin in the smallest ruleset that has it, the largest covered combination; or
``--plugins``): 4-player games of random legal actions,
in rounds of 25 games whose order turns, CPU time; printed per ruleset, games per
second on each and their ratio. The side by side with the peer engine, on the base game,
is ``benchmarks/peer.py``, which also counts instructions.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor

from tokaido_rules import Ruleset, new_game
from tokaido_rules.fast import FastGame, compiled, differential
from tokaido_rules.testing import covered_plugin_sets, covered_rulesets

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


def _play(engine: str, ruleset: Ruleset, seed: int) -> None:
    choose = random.Random(seed).choice
    if engine == "fast":
        fast = FastGame.new(4, seed=seed, plugins=ruleset)
        while not fast.is_over:
            fast.apply(choose(fast.legal_actions()))
    else:
        game = new_game(4, seed=seed, plugins=ruleset)
        while not game.is_over:
            game = game.apply(choose(game.legal_actions()))


def _each_plugin() -> list[tuple[str, ...]]:
    """Base alone, the smallest covered ruleset with each other plugin, the largest."""
    sets = covered_plugin_sets()
    chosen = [sets[0]]
    for plugin in sorted({p for ids in sets for p in ids} - {"base"}):
        smallest = min((ids for ids in sets if plugin in ids), key=len)
        if smallest not in chosen:
            chosen.append(smallest)
    largest = max(sets, key=len)
    return chosen + ([largest] if largest not in chosen else [])


def time_engines(rulesets: list[tuple[str, ...]], rounds: int, seed: int) -> int:
    """The fast simulator and the reference engine timed on each ruleset."""
    print(f"fast simulator {'compiled (mypyc)' if compiled() else 'pure Python'}; "
          f"4 players, random legal actions, {rounds} rounds of 25 games per ruleset")
    for ids in rulesets:
        ruleset = Ruleset.build(ids)
        spent = {"reference": 0.0, "fast": 0.0}
        for r in range(rounds):
            seeds = range(seed + 25 * r, seed + 25 * (r + 1))
            for engine in (("reference", "fast") if r % 2 == 0 else ("fast", "reference")):
                start = time.process_time()
                for s in seeds:
                    _play(engine, ruleset, s)
                spent[engine] += time.process_time() - start
        games = 25 * rounds
        print(f"  {'+'.join(ids):<60} reference {games / spent['reference']:>6,.0f} games/s"
              f"  fast {games / spent['fast']:>6,.0f} games/s"
              f"  ratio {spent['reference'] / spent['fast']:.2f}", flush=True)
    return 0


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
    parser.add_argument("--time", action="store_true",
                        help="time the two engines on each ruleset instead")
    parser.add_argument("--rounds", type=int, default=8, help="with --time (default 8)")
    parser.add_argument("--differential", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.time:
        sets = [tuple(args.plugins.split(","))] if args.plugins else _each_plugin()
        return time_engines(sets, args.rounds, args.seed)
    games = args.differential if args.differential is not None else args.games
    rulesets = ([(tuple(args.plugins.split(",")), {})] if args.plugins
                else list(covered_rulesets()))
    return check(rulesets, games, [int(p) for p in args.players.split(",")], args.seed,
                 max(1, args.jobs), not args.no_logs)


if __name__ == "__main__":
    raise SystemExit(main())

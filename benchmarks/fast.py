"""The fast simulator (:class:`tokaido_rules.fast.FastGame`) side by side with the
reference engine and the peer engine, and its differential check over many games.

Run: ``python benchmarks/fast.py [--peer PATH] [--games N] [--rounds R] [--seed S]``
to time, or ``python benchmarks/fast.py --differential N [--players 2,3,4,5]`` to play
``N`` games per player count on both of our engines at once and compare them at every
decision (:func:`tokaido_rules.fast.differential`).

Timing is as in ``benchmarks/peer.py``, whose helpers it uses: each round plays the same
``N`` seeds on each engine, one engine after the other (peer, reference, fast, ...), so
the machine's load falls on all of them alike; a game is 4 distinct travellers drawn
from the seed among the nine both engines share (Satsuki left out: the peer's games with
her never end), then uniformly random legal actions to the end, chosen by a
``random.Random`` seeded from the game seed through ``legal_actions()`` / ``apply()``
(validation on, always). Printed per round: games per second (CPU time of this process),
microseconds per decision, the ratio to the peer; then the minimum and median over the
rounds. Without ``--peer``, the ratios are to the reference engine. Timing is never
asserted anywhere: a shared machine's speed wanders, so read the medians.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from instructions import callgrind_count
from peer import PLAYERS, SHARED, Runner, _nothing, in_directory, load_peer, ours_engine, travellers
from tokaido_rules import Ruleset
from tokaido_rules.fast import FastGame, differential


def fast_engine(ruleset: Ruleset) -> Runner:
    """The fast simulator, played as the reference is in ``peer.ours_engine``."""
    def play(seed: int) -> int:
        names = tuple(SHARED[t] for t in travellers(seed))
        game = FastGame.new(PLAYERS, seed=seed, plugins=ruleset, travellers=names)
        choose = random.Random(seed ^ 0x5EED).choice
        decisions = 0
        while not game.is_over:
            game.apply(choose(game.legal_actions()))
            decisions += 1
        return decisions
    return play


def fast_clone(ruleset: Ruleset) -> Runner:
    """The fast simulator copied before every decision (``applied``), as a tree search
    that keeps each node plays it."""
    def play(seed: int) -> int:
        names = tuple(SHARED[t] for t in travellers(seed))
        game = FastGame.new(PLAYERS, seed=seed, plugins=ruleset, travellers=names)
        choose = random.Random(seed ^ 0x5EED).choice
        decisions = 0
        while not game.is_over:
            game = game.applied(choose(game.legal_actions()))
            decisions += 1
        return decisions
    return play


RUNNERS: dict[str, Callable[[Ruleset], Runner]] = {
    "reference engine": ours_engine, "fast": fast_engine, "fast, a copy per decision": fast_clone}


def timed(run: Runner, seeds: range) -> tuple[float, int]:
    start = time.process_time()
    decisions = sum(run(seed) for seed in seeds)
    return time.process_time() - start, decisions


def check(games: int, players: list[int], seed: int) -> int:
    """The differential check: ``games`` seeds per player count, each played three
    ways (offered travellers and random choices; given travellers; the "seek" policy)."""
    start = time.perf_counter()
    failed = False
    for n in players:
        for label, kwargs in (("random", {}), ("given travellers", {"travellers": True}),
                              ("seek", {"policy": "seek"})):
            report = differential(n, range(seed, seed + games), logs=True, **kwargs)
            print(f"{n} players, {label}: {report}", flush=True)
            failed = failed or not report.ok
    print(f"{time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


def count_instructions(peer: Path | None, games: int, seed: int, warmup: int) -> None:
    """Machine instructions per game of each engine (valgrind's callgrind, each in a
    process of its own: ``N`` games minus none, after the same warm-up), and the ratio of
    the peer's (or the reference's) to each: exact from run to run, whatever the load."""
    names = (["peer"] if peer is not None else []) + list(RUNNERS)
    print(f"machine instructions per game (valgrind), {games} games after {warmup} warm-up "
          "games, each engine in its own process")
    per_game: dict[str, float] = {}
    for name in names:
        def run(n: int, name: str = name) -> int:
            arguments = [__file__, "--inner", name, "--games", str(n), "--seed", str(seed),
                         "--warmup", str(warmup)]
            return callgrind_count(arguments + (["--peer", str(peer)] if peer else []))
        per_game[name] = (run(games) - run(0)) / games
        base = per_game[names[0]]
        ratio = f"  ratio {base / per_game[name]:.2f}" if name != names[0] else ""
        print(f"  {name:<28} {per_game[name] / 1e6:>7.2f} M instructions/game{ratio}",
              flush=True)


def inner(name: str, peer: Path | None, games: int, seed: int, warmup: int) -> None:
    """The counted work of :func:`count_instructions`."""
    runner = load_peer(peer) if name == "peer" and peer else RUNNERS[name](
        Ruleset.build(["base"]))
    with in_directory(peer) if name == "peer" and peer else _nothing():
        for s in range(10**6, 10**6 + warmup):
            runner(s)
        for s in range(seed, seed + games):
            runner(s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, help="a checkout of liamdj/tokaido-bot")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--differential", type=int, metavar="N",
                        help="compare N games per player count with the reference instead")
    parser.add_argument("--players", default="2,3,4,5",
                        help="player counts of --differential (default 2,3,4,5)")
    parser.add_argument("--instructions", action="store_true",
                        help="count machine instructions per game with valgrind instead "
                             "of timing (exact from run to run)")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    peer = args.peer.resolve() if args.peer is not None else None
    if args.inner is not None:
        inner(args.inner, peer, args.games, args.seed, args.warmup)
        return 0
    if args.instructions:
        count_instructions(peer, args.games, args.seed, args.warmup)
        return 0
    if args.differential is not None:
        return check(args.differential, [int(p) for p in args.players.split(",")], args.seed)
    print(f"{platform.python_implementation()} {platform.python_version()}, "
          f"{PLAYERS}-player base games, uniformly random legal actions, Satsuki left out, "
          f"{args.games} games x {args.rounds} rounds, interleaved")
    ruleset = Ruleset.build(["base"])
    runners: dict[str, Runner] = {}
    peer_dir = None
    if args.peer is not None:
        peer_dir = args.peer.resolve()
        runners["peer"] = load_peer(peer_dir)
    else:
        print("peer: skipped (give --peer PATH, a checkout of liamdj/tokaido-bot); "
              "ratios are to the reference engine")
    for name, make in RUNNERS.items():
        runners[name] = make(ruleset)
    base = "peer" if "peer" in runners else "reference engine"
    for name, run in runners.items():
        with in_directory(peer_dir) if name == "peer" and peer_dir else _nothing():
            for seed in range(10**6, 10**6 + args.warmup):
                run(seed)
    rates: dict[str, list[float]] = {name: [] for name in runners}
    micros: dict[str, list[float]] = {name: [] for name in runners}
    ratios: dict[str, list[float]] = {name: [] for name in runners}
    for r in range(args.rounds):
        seeds = range(args.seed + r * args.games, args.seed + (r + 1) * args.games)
        print(f"round {r + 1}:")
        rate_of: dict[str, float] = {}
        for name, run in runners.items():
            with in_directory(peer_dir) if name == "peer" and peer_dir else _nothing():
                seconds, decisions = timed(run, seeds)
            rate = rate_of[name] = args.games / seconds
            rates[name].append(rate)
            micros[name].append(seconds / decisions * 1e6)
            ratio = rate / rate_of[base] if base in rate_of else float("nan")
            ratios[name].append(ratio)
            print(f"  {name:<28} {rate:>8,.0f} games/s {micros[name][-1]:>7.1f} us/decision"
                  f"  {decisions / args.games:>5.1f} decisions/game"
                  + (f"  ratio {ratio:.2f}" if name != base else ""), flush=True)
    print(f"summary (min / median over rounds; ratios to the {base}):")
    for name in runners:
        line = (f"  {name:<28} {min(rates[name]):>8,.0f} / {statistics.median(rates[name]):>6,.0f}"
                f" games/s  {statistics.median(micros[name]):>6.1f} us/decision")
        if name != base:
            line += f"  ratio {min(ratios[name]):.2f} / {statistics.median(ratios[name]):.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""tokaido-rules side by side with the fastest other Python Tokaido engine.

Run: ``python benchmarks/peer.py --peer PATH [--games N] [--rounds R] [--seed S]``,
where PATH is a checkout of ``liamdj/tokaido-bot`` (its ``tokaido_game.py`` plays
complete 4-player base games headless; it opens ``tokaido4p.txt`` from its working
directory, so the benchmark runs it from PATH). The peer is not a dependency and none of
its code is part of this project: it is imported from PATH at run time. Without
``--peer`` (or with ``--smoke``) only our side runs, briefly, and the peer is reported as
skipped.

Each round plays the same ``N`` seeds (100 by default) on each engine, one engine after
the other, and the order turns by one place every round, so that over the rounds (20 by
default) the machine's load falls on all of them alike: short rounds in turn are what
keeps a drifting machine's speed out of the ratios. The engines: the peer, ours through
the reference engine three ways, and the fast simulator two ways. A game: 4 distinct
travellers drawn from the seed among the nine both engines share (Satsuki left out: the
peer's games with her never end), then uniformly random legal actions until the end:

- peer: ``available_actions()`` / ``take_action()`` (its own global ``random`` seeded
  from the game seed, since it draws its cards from it);
- ours, engine path: ``new_game`` with a prebuilt ruleset, ``legal_actions``, ``apply``
  (validation on, as always), the action chosen as the peer's driver chooses (a
  ``random.Random`` seeded from the game seed);
- ours, random bot: a :class:`~tokaido_rules.bots.RandomBot` asked through
  :func:`~tokaido_rules.bots.next_action`, as ``tokaido simulate --bots random`` plays
  (it needs only the legal actions, so no view is made);
- ours, a view per decision: the same bot handed a :class:`~tokaido_rules.View` at
  every decision, as a bot that reads the game plays;
- fast: :class:`~tokaido_rules.fast.FastGame`, chosen as the engine path chooses, in
  place; and with a copy of the game per decision (``applied``), as a tree search plays.
  The header says whether the compiled build of the fast simulator is in use
  (``tokaido build-fast``).

Printed: per engine, games per second (CPU time of this process; minimum and median
over the rounds), microseconds per decision, and the speed ratio to the peer (minimum
and median over the rounds, and that of the total times); ``--verbose`` prints every
round too. Timing is never asserted anywhere: this machine's speed wanders.

With ``--instructions``, each engine instead plays the same ``N`` seeds under valgrind's
callgrind, in a process of its own, and the machine instructions per game are printed
with the ratio of the peer's to ours (the speed ratio if both ran at the same
instructions per second): a measure that repeats exactly whatever the machine's load.
Each count is that of ``N`` games minus that of none, after the same warm-up games.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from instructions import callgrind_count
from tokaido_rules import Ruleset, TokaidoError, new_game
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.fast import FastGame, compiled
from tokaido_rules.simulate import tune_jit

SHARED = {  # the peer's traveller names -> ours (Satsuki left out)
    "Chuubei": "chuubei", "Hiroshige": "hiroshige", "Hirotoda": "hirotada",
    "Kinko": "kinko", "Mitsukuni": "mitsukuni", "Sasayakko": "sasayakko",
    "Umegae": "umegae", "Yoshiyasu": "yoshiyasu", "Zen_emon": "zenemon",
}
PLAYERS = 4

Runner = Callable[[int], int]
"""Plays the game of one seed to the end; returns its number of decisions."""


def travellers(seed: int) -> list[str]:
    """The peer's names of the 4 travellers of a seed (ours through :data:`SHARED`)."""
    return random.Random(seed).sample(sorted(SHARED), PLAYERS)


def ours_engine(ruleset: Ruleset) -> Runner:
    def play(seed: int) -> int:
        names = tuple(SHARED[t] for t in travellers(seed))
        game = new_game(PLAYERS, seed=seed, plugins=ruleset, travellers=names)
        choose = random.Random(seed ^ 0x5EED).choice  # the peer's driver chooses so too
        decisions = 0
        while not game.is_over:
            game = game.apply(choose(game.legal_actions()))
            decisions += 1
        return decisions
    return play


def ours_bot(ruleset: Ruleset, *, views: bool = False) -> Runner:
    """A random bot through ``next_action`` (no view: it needs only the legal actions),
    or, with ``views``, handed its seat's view at every decision."""
    def play(seed: int) -> int:
        names = tuple(SHARED[t] for t in travellers(seed))
        game = new_game(PLAYERS, seed=seed, plugins=ruleset, travellers=names)
        bot = RandomBot(seed)
        decisions = 0
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            game = game.apply(bot.choose(game.view(seat)) if views else next_action(bot, game))
            decisions += 1
        return decisions
    return play


def ours_views(ruleset: Ruleset) -> Runner:
    return ours_bot(ruleset, views=True)


def fast_engine(ruleset: Ruleset, *, copies: bool = False) -> Runner:
    """The fast simulator (:class:`~tokaido_rules.fast.FastGame`), played as the
    reference is in :func:`ours_engine`: in place, or with ``copies`` a new game per
    decision (``applied``), as a tree search that keeps each node plays it."""
    def play(seed: int) -> int:
        names = tuple(SHARED[t] for t in travellers(seed))
        game = FastGame.new(PLAYERS, seed=seed, plugins=ruleset, travellers=names)
        choose = random.Random(seed ^ 0x5EED).choice
        decisions = 0
        while not game.is_over:
            if copies:
                game = game.applied(choose(game.legal_actions()))
            else:
                game.apply(choose(game.legal_actions()))
            decisions += 1
        return decisions
    return play


def fast_copies(ruleset: Ruleset) -> Runner:
    return fast_engine(ruleset, copies=True)


RUNNERS: dict[str, Callable[[Ruleset], Runner]] = {
    "ours, engine": ours_engine, "ours, random bot": ours_bot,
    "ours, a view per decision": ours_views, "fast": fast_engine,
    "fast, a copy per decision": fast_copies}
"""Our paths, by the name printed: the reference engine three ways, the fast simulator
two ways."""


@contextmanager
def in_directory(path: Path) -> Any:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def load_peer(path: Path) -> Runner:
    """The peer's driver: uniformly random legal actions through its own API."""
    if not (path / "tokaido_game.py").is_file():
        raise SystemExit(f"error: no tokaido_game.py in {path} (a checkout of "
                         "liamdj/tokaido-bot is expected)")
    sys.path.insert(0, str(path))
    with in_directory(path):
        import tokaido_game as peer  # type: ignore[import-not-found]  # from PATH

        peer.TokaidoGame(list(SHARED)[:PLAYERS])  # reads its board file once, here
    game_class: Any = peer.TokaidoGame

    def play(seed: int) -> int:
        random.seed(seed)  # the peer draws its cards from the global generator
        choose = random.Random(seed ^ 0x5EED).choice
        game = game_class(travellers(seed))
        decisions = 0
        while not game.is_over():
            game.take_action(choose(game.available_actions()))
            decisions += 1
        return decisions
    return play


def timed(run: Runner, seeds: range) -> tuple[float, int]:
    """CPU seconds and decisions of playing every seed once."""
    start = time.process_time()
    decisions = sum(run(seed) for seed in seeds)
    return time.process_time() - start, decisions


def instructions(peer: Path | None, name: str, games: int, seed: int, warmup: int,
                 plugins: str = "base") -> int:
    """Instructions executed by a process playing ``games`` games of one engine, under
    callgrind (see :func:`inner`)."""
    arguments = [__file__, "--inner", name, "--games", str(games), "--seed", str(seed),
                 "--warmup", str(warmup), "--plugins", plugins]
    if peer is not None:
        arguments += ["--peer", str(peer)]
    return callgrind_count(arguments)


def inner(runner: Runner, games: int, seed: int, warmup: int, where: Path | None) -> None:
    """The counted work of :func:`instructions`: the warm-up, then ``games`` games."""
    with in_directory(where) if where is not None else _nothing():
        for s in range(10**6, 10**6 + warmup):
            runner(s)
        for s in range(seed, seed + games):
            runner(s)


def count_instructions(peer: Path | None, names: list[str], games: int, seed: int,
                       warmup: int, plugins: str = "base") -> None:
    """Print each engine's instructions per game, and the ratio to the peer's."""
    if shutil.which("valgrind") is None:
        raise SystemExit("error: --instructions needs valgrind on the PATH")
    print(f"machine instructions per game (valgrind), {games} games after {warmup} "
          "warm-up games, each engine in its own process")
    per_game: dict[str, float] = {}
    for name in names:
        per_game[name] = (instructions(peer, name, games, seed, warmup, plugins)
                          - instructions(peer, name, 0, seed, warmup, plugins)) / games
        ratio = (f"  ratio {per_game['peer'] / per_game[name]:.2f}"
                 if "peer" in per_game and name != "peer" else "")
        print(f"  {name:<28} {per_game[name] / 1e6:>7.2f} M instructions/game{ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, help="a checkout of liamdj/tokaido-bot")
    parser.add_argument("--games", type=int, default=100, help="games per round")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--verbose", action="store_true", help="print every round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=None,
                        help="untimed games per engine first (default: 3000 on PyPy, 50)")
    parser.add_argument("--smoke", action="store_true",
                        help="a few games of our side only (what CI runs)")
    parser.add_argument("--instructions", action="store_true",
                        help="count machine instructions per game with valgrind instead "
                             "of timing (exact from run to run)")
    parser.add_argument("--plugins", default="base",
                        help="with --instructions: the ruleset our engines play, plugin ids "
                             "joined by commas (the peer plays the base game only, so it is "
                             "left out of any other)")
    parser.add_argument("--engine", action="append", default=None,
                        help="with --instructions: only this one of our engines (repeat it "
                             f"for more), of: {'; '.join(RUNNERS)}")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner is not None:  # one engine's games, counted by an outer --instructions
        runner = (load_peer(args.peer.resolve()) if args.inner == "peer"
                  else RUNNERS[args.inner](Ruleset.build(args.plugins.split(","))))
        inner(runner, args.games, args.seed, args.warmup or 0,
              args.peer.resolve() if args.inner == "peer" else None)
        return 0
    if args.instructions:
        peer = (args.peer.resolve() if args.peer is not None and args.plugins == "base"
                else None)
        if peer is not None:
            load_peer(peer)  # a wrong path is said here, not by valgrind
        elif args.plugins != "base":
            print(f"peer: skipped (it plays the base game only, not {args.plugins})")
        else:
            print("peer: skipped (give --peer PATH, a checkout of liamdj/tokaido-bot)")
        ours = list(RUNNERS) if args.engine is None else args.engine
        unknown = [name for name in ours if name not in RUNNERS]
        if unknown:
            raise SystemExit(f"error: no engine named {unknown[0]!r} (--engine takes: "
                             f"{'; '.join(RUNNERS)})")
        try:
            Ruleset.build(args.plugins.split(","))
        except TokaidoError as error:  # said in one line, not a traceback
            raise SystemExit(f"error: --plugins {args.plugins}: {error}") from None
        names = (["peer"] if peer is not None else []) + ours
        warmup = args.warmup if args.warmup is not None else 50
        count_instructions(peer, names, 5 if args.smoke else args.games, args.seed,
                           0 if args.smoke else warmup, args.plugins)
        return 0
    pypy = platform.python_implementation() == "PyPy"
    if pypy:
        tune_jit()
    games, rounds = (5, 1) if args.smoke else (args.games, args.rounds)
    warmup = args.warmup if args.warmup is not None else (3000 if pypy else 50)
    if args.smoke:
        warmup = 0
    print(f"{platform.python_implementation()} {platform.python_version()}, "
          f"{PLAYERS}-player base games, uniformly random legal actions, Satsuki left out, "
          f"{games} games x {rounds} rounds, interleaved; fast simulator "
          f"{'compiled (mypyc)' if compiled() else 'pure Python'}")
    ruleset = Ruleset.build(["base"])
    runners: dict[str, Runner] = {}
    if args.peer is not None and not args.smoke:
        runners["peer"] = load_peer(args.peer.resolve())
    else:
        print("peer: skipped (give --peer PATH, a checkout of liamdj/tokaido-bot)")
    for name, make in RUNNERS.items():
        runners[name] = make(ruleset)
    peer_dir = args.peer.resolve() if "peer" in runners and args.peer else None
    for name, run in runners.items():
        with in_directory(peer_dir) if name == "peer" and peer_dir else _nothing():
            for seed in range(10**6, 10**6 + warmup):
                run(seed)
    rates: dict[str, list[float]] = {name: [] for name in runners}
    micros: dict[str, list[float]] = {name: [] for name in runners}
    ratios: dict[str, list[float]] = {name: [] for name in runners}
    totals = dict.fromkeys(runners, 0.0)
    names = list(runners)
    for r in range(rounds):
        seeds = range(args.seed + r * games, args.seed + (r + 1) * games)
        shift = r % len(names)  # each engine takes each place in the order in turn
        seconds_of: dict[str, float] = {}
        for name in names[shift:] + names[:shift]:
            with in_directory(peer_dir) if name == "peer" and peer_dir else _nothing():
                seconds, decisions = timed(runners[name], seeds)
            seconds_of[name] = seconds
            totals[name] += seconds
            rates[name].append(games / seconds)
            micros[name].append(seconds / decisions * 1e6)
        if "peer" in seconds_of:
            for name in names:
                ratios[name].append(seconds_of["peer"] / seconds_of[name])
        if args.verbose:
            print(f"round {r + 1}: " + ", ".join(
                f"{name} {rates[name][-1]:,.0f}" for name in names) + " games/s")
    print(f"summary over {rounds} rounds (games/s min / median; speed ratio to the peer "
          "min / median over rounds, and of the total times):")
    for name in runners:
        line = (f"  {name:<28} {min(rates[name]):>8,.0f} / {statistics.median(rates[name]):>6,.0f}"
                f" games/s  {statistics.median(micros[name]):>6.1f} us/decision")
        if "peer" in runners and name != "peer":
            line += (f"  ratio {min(ratios[name]):.2f} / "
                     f"{statistics.median(ratios[name]):.2f}, total "
                     f"{totals['peer'] / totals[name]:.2f}")
        print(line)
    return 0


@contextmanager
def _nothing() -> Any:
    yield


if __name__ == "__main__":
    raise SystemExit(main())

"""Where a game's time goes, counted in Python bytecodes: a profile that repeats exactly.

Run: ``python benchmarks/bytecodes.py [--games N] [--warmup W] [--views] [--top K]``.

Plays the games of ``benchmarks/peer.py`` (4-player base games, four travellers drawn
from the seed, uniformly random legal actions; ``--views``: through a view per decision,
as a bot that reads the game plays) under a ``sys.settrace`` opcode tracer and
prints the bytecodes executed per game, by category (event construction and folding,
move generation, views, the engine's decision loop, hook dispatch, chance, the base
game's rules, the driver), then the ``K`` functions that execute the most.

Timings on a shared machine wander by a factor of 1.5 or more between runs; bytecode
counts do not, so they show what a change of the code did, category by category (run
it on each version). A bytecode is not a unit of time (those that call into C, such as a
dictionary copy, cost more), so read it beside ``instructions.py`` (valgrind, machine
instructions) and the side-by-side timings of ``peer.py``. The first ``W`` games
(default 300) are played untraced, so that the tables the engine builds as it plays are
built before counting, as in a long simulation.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from types import FrameType
from typing import Any

from peer import ours_engine, ours_views
from tokaido_rules import Ruleset

CATEGORIES: tuple[tuple[str, tuple[str, ...], frozenset[str]], ...] = (
    ("views", ("/views.py", "/visibility.py"),
     frozenset({"zone_backs", "_backs_tables", "inn_hand_visible", "hand_inn"})),
    ("move generation", (), frozenset({
        "_free_slots", "_free_stops", "legal_moves", "forbidden_stops", "tokaido_forbidden_stops",
        "_stops_needing_checks", "_roads", "_move", "_open_road", "panorama_complete"})),
    ("event construction and folding", ("/events.py", "/model.py", "/frozen.py",
                                        "<attrs generated"), frozenset({"emit"})),
    ("engine decision loop", ("/engine.py",), frozenset()),
    ("hook dispatch", ("/ruleset.py",), frozenset()),
    ("chance", ("/chance.py",), frozenset()),
    ("base game rules", ("/tokaido_base/",), frozenset()),
    ("driver", ("/peer.py", "/bots.py"), frozenset()),
)
"""Each function goes to the first category that names it, or one of whose strings is in
its file name."""


def category(filename: str, function: str) -> str:
    for name, files, functions in CATEGORIES:
        if function in functions or any(part in filename for part in files):
            return name
    return "other"


def count(games: int, warmup: int, views: bool) -> Counter[tuple[str, str]]:
    """Bytecodes executed per (file, function), over ``games`` traced games."""
    ruleset = Ruleset.build(["base"])
    play = ours_views(ruleset) if views else ours_engine(ruleset)
    for seed in range(10**6, 10**6 + warmup):
        play(seed)
    counted: Counter[tuple[str, str]] = Counter()

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
        elif event == "opcode":
            code = frame.f_code
            counted[code.co_filename, code.co_name] += 1
        return trace

    sys.settrace(trace)
    try:
        for seed in range(1, games + 1):
            play(seed)
    finally:
        sys.settrace(None)
    return counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--views", action="store_true",
                        help="a view per decision (as a bot that reads the game plays)")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    counted = count(args.games, args.warmup, args.views)
    total = sum(counted.values())
    games = args.games
    by_category: Counter[str] = Counter()
    for (filename, function), n in counted.items():
        by_category[category(filename, function)] += n
    path = "a view per decision" if args.views else "engine"
    print(f"{total / games:,.0f} bytecodes per game ({path} path, {games} games after "
          f"{args.warmup} untraced)")
    for name, n in by_category.most_common():
        print(f"  {name:<32} {n / games:>9,.0f} {100 * n / total:5.1f}%")
    if args.top > 0:
        print(f"top {args.top} functions:")
    for (filename, function), n in counted.most_common(max(args.top, 0)):
        where = filename.rsplit("/", 2)
        print(f"  {n / games:>9,.0f} {100 * n / total:5.1f}%  {function} "
              f"({'/'.join(where[-2:])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The duplicate format's variance reduction, measured: two bots in 4-player games, two
seats each, seats rotated (``aabb``, ``abba``, ``bbaa``, ``baab``: a group), played
plain (every game its own seed, event keying) and duplicate (the group's games share one
seed, chance keyed by purpose: :mod:`tokaido_rules.chance`), the same number of groups
each.

Run: ``python benchmarks/duplicate.py [--bots search,greedy] [--groups G] [--seed S]
[--plugins base] [--bot-option BOT.KEY=VALUE ...]``. Printed, for each format: the mean
and the variance of the first bot's *margin* (the mean score of its two seats minus the
other's, per game) and of its *win share* (its seats' share of the win, parity 0.5), the
variance of a group's mean (the unit of a duplicate interval), and the games needed for
a 95% interval of half-width 1 point (margin) or 0.05 (share): ``4 * 1.96² *
var(group mean) / width²``; then the ratio plain / duplicate of the games needed (the
variance reduction), and the CPU time each format took (``time.process_time``, this
process: play is serial).

The games run on the fast engine where it covers the ruleset (``engine="auto"``), the
same games as on the reference.

Measured (seed 1, serial, a shared 2-core machine): ``--bots search,greedy --groups 16``
(64 games per format, 259 s CPU plain and 241 s duplicate): the per-game variance of the
margin drops from 60.3 to 39.0 and of the win share from 0.164 to 0.123 (the seats' luck
cancels within a group), but a group's games are correlated (same decks, different
play), so the variance of a group's mean does not drop: 8.56 plain, 9.62 duplicate
(margin), 0.0268 and 0.0247 (win share); games needed for the same interval, plain /
duplicate: 0.89x (margin), 1.08x (win share); with 16 groups a ratio between about 0.35
and 2.9 is within sampling error. ``--bots greedy,random --groups 100``: 0.71x (base),
0.77x (``--plugins base,crossroads``), 10 and 23 s CPU per format. This is why a
duplicate tournament's intervals are computed over groups.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from tokaido_rules.chance import EVENT, PURPOSE
from tokaido_rules.simulate import (
    GameResult,
    GameSpec,
    _ruleset,
    choose_engine,
    play_game,
)
from tokaido_rules.tournament import game_seeds, rotations

Z = 1.96


def group_specs(bots: Sequence[str], groups: int, seed: int, plugins: tuple[str, ...],
                options: tuple[tuple[str, object], ...], duplicate: bool,
                bot_options: dict[str, tuple[tuple[str, object], ...]]) -> list[GameSpec]:
    """The games: ``groups`` groups of the four rotations of ``aabb``."""
    order = [(g * 4 + r, g, r) for g in range(groups) for r in range(4)]
    seeds = game_seeds(seed, order, duplicate)
    turns = rotations((0, 0, 1, 1))
    ruleset = _ruleset(plugins, options)
    engine = choose_engine("auto", ruleset, list(bots), 4)
    any_option = any(bot_options.values())
    return [GameSpec(4, game_seed, plugins, options, tuple(bots[b] for b in turns[r]),
                     False, (), engine, (),
                     tuple(bot_options.get(bots[b], ()) for b in turns[r])
                     if any_option else (),
                     PURPOSE if duplicate else EVENT)
            for (_, _, r), game_seed in zip(order, seeds, strict=True)]


def figures(first: str, results: Sequence[GameResult]) -> tuple[list[float], list[float]]:
    """Per game, the first bot's margin (its seats' mean score minus the other's) and
    win share."""
    margins, shares = [], []
    for result in results:
        mine = [s.score for s in result.seats if s.bot == first]
        theirs = [s.score for s in result.seats if s.bot != first]
        margins.append(statistics.fmean(mine) - statistics.fmean(theirs))
        shares.append(sum(s.win for s in result.seats if s.bot == first))
    return margins, shares


def by_group(values: Sequence[float]) -> list[float]:
    return [statistics.fmean(values[i:i + 4]) for i in range(0, len(values), 4)]


def needed(group_variance: float, width: float) -> float:
    """Games for a 95% interval of half-width ``width`` (groups of four)."""
    return 4 * Z * Z * group_variance / (width * width)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="search,greedy", help="two bots (default "
                        "search,greedy)")
    parser.add_argument("--groups", type=int, default=10,
                        help="groups of 4 rotations per format (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plugins", default="base")
    parser.add_argument("--bot-option", action="append", default=[],
                        metavar="BOT.KEY=VALUE")
    args = parser.parse_args(argv)
    if args.groups < 2:
        parser.error("--groups must be at least 2 (a variance needs two groups)")
    bots = args.bots.split(",")
    if len(bots) != 2 or bots[0] == bots[1]:
        parser.error("--bots takes two distinct bots")
    bot_options: dict[str, dict[str, object]] = {}
    for text in args.bot_option:
        key, _, value = text.partition("=")
        bot, _, name = key.partition(".")
        bot_options.setdefault(bot, {})[name] = int(value) if value.isdigit() else value
    typed = {b: tuple(sorted(o.items())) for b, o in bot_options.items()}
    plugins = tuple(args.plugins.split(","))
    print(f"{bots[0]} vs {bots[1]}, 4 players, two seats each, rotated; plugins "
          f"{','.join(plugins)}; {args.groups} groups (= {4 * args.groups} games) per "
          f"format; seed {args.seed}"
          + (f"; options {bot_options}" if bot_options else ""))
    needs = {}
    for duplicate in (False, True):
        specs = group_specs(bots, args.groups, args.seed, plugins, (), duplicate, typed)
        start = time.process_time()
        results = [play_game(spec, i) for i, spec in enumerate(specs)]
        cpu = time.process_time() - start
        margins, shares = figures(bots[0], results)
        gm, gs = by_group(margins), by_group(shares)
        vm, vs = statistics.variance(gm), statistics.variance(gs)
        needs[duplicate] = (needed(vm, 1.0), needed(vs, 0.05))
        print(f"\n{'duplicate' if duplicate else 'plain'} ({specs[0].engine} engine, "
              f"{cpu:.1f} s CPU, {cpu / len(specs):.2f} s per game)")
        print(f"  margin: mean {statistics.fmean(margins):+.2f}, per-game variance "
              f"{statistics.variance(margins):.1f}, group-mean variance {vm:.2f}; games "
              f"for ±1 point: {needs[duplicate][0]:.0f}")
        per_game = statistics.variance(margins)
        if per_game > 0:  # the intraclass correlation: how alike a group's games are
            print(f"  margin: correlation within a group "
                  f"{(4 * vm / per_game - 1) / 3:+.2f} (0: as independent games)")
        print(f"  win share: mean {statistics.fmean(shares):.3f}, per-game variance "
              f"{statistics.variance(shares):.4f}, group-mean variance {vs:.5f}; games "
              f"for ±0.05: {needs[duplicate][1]:.0f}")
    ratios = [f"{plain / dup:.2f}x" if dup else "n/a (no spread)"
              for plain, dup in zip(needs[False], needs[True], strict=True)]
    print(f"\nvariance reduction (games needed, plain / duplicate): margin {ratios[0]}, "
          f"win share {ratios[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

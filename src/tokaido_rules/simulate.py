"""Batch simulation: many games with given bots, seeds and ruleset, on any executor.

Each game is described by a :class:`GameSpec` (plain data, so it can travel to another
process or machine) and played by :func:`play_game`, a top-level function. The seed of
game ``i`` is derived from the batch seed and ``i`` alone, so the results are identical
whatever the executor and the number of workers::

    from concurrent.futures import ProcessPoolExecutor
    from tokaido_rules.simulate import simulate

    with ProcessPoolExecutor(4) as pool:
        batch = simulate(games=1000, players=4, bots=("search", "greedy"), executor=pool)
    print(batch.summary.win_rate_by_traveller)
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from functools import lru_cache
from typing import Any

from attrs import field, frozen

from .bots import BOTS, Bot, next_action
from .chance import random_below
from .engine import Game, new_game
from .errors import SetupError
from .events import Action
from .log import dump_log
from .ruleset import Ruleset


@frozen
class GameSpec:
    """One game of a batch: everything needed to play it anywhere."""

    players: int
    seed: int
    plugins: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    bots: tuple[str, ...]
    """One bot name per seat (see :data:`tokaido_rules.bots.BOTS`)."""
    keep_log: bool = False
    random_decisions: tuple[str, ...] = ()
    """Decision kinds taken uniformly at random (seeded by the game) instead of by the
    seat's bot: ``("base.choose_traveller",)`` deals travellers by chance, so that a
    balance study sees every traveller equally often, whatever the bots prefer."""


@frozen
class SeatResult:
    seat: int
    bot: str
    traveller: str | None
    score: int
    rank: int
    win: float
    """1 for a sole winner, 1/k for each of k tied winners, else 0."""
    categories: dict[str, int]


@frozen
class GameResult:
    index: int
    seed: int
    seats: tuple[SeatResult, ...]
    decisions: int
    events: int
    log: str | None = field(default=None, repr=False)


@lru_cache(maxsize=16)
def _ruleset(plugins: tuple[str, ...], options: tuple[tuple[str, Any], ...]) -> Ruleset:
    """Rulesets are built once per worker process and reused for its games."""
    return Ruleset.build(plugins, dict(options))


def play_game(spec: GameSpec, index: int = 0) -> GameResult:
    """Play one game to the end with the spec's bots (each seeded from the game seed)."""
    ruleset = _ruleset(spec.plugins, spec.options)
    game = new_game(spec.players, seed=spec.seed, plugins=ruleset)
    bots = [BOTS[name](random_below(spec.seed, seat, 1, 2**63))
            for seat, name in enumerate(spec.bots)]
    decisions = 0
    while not game.is_over:
        game = game.apply(decide(game, bots, spec.random_decisions, spec.seed, decisions))
        decisions += 1
    winners = game.winners()
    seats = tuple(
        SeatResult(s.seat, spec.bots[s.seat], s.traveller, s.total, s.rank,
                   1 / len(winners) if s.seat in winners else 0.0, dict(s.categories))
        for s in game.scores()
    )
    return GameResult(index, spec.seed, seats, decisions, len(game.events),
                      dump_log(game) if spec.keep_log else None)


def decide(game: Game, bots: Sequence[Bot], random_decisions: Collection[str], seed: int,
           decisions: int) -> Action:
    """The action of the seat deciding: its bot's choice, or a uniformly random legal
    action (draw ``decisions`` of ``seed``) for a decision of a kind in
    ``random_decisions``."""
    step = game.current_step
    if step is not None and step.kind in random_decisions:
        actions = game.legal_actions()
        return actions[random_below(seed, decisions, 2, len(actions))]
    seat = game.current_player
    return next_action(bots[seat if seat is not None else 0], game)


def _play_indexed(args: tuple[GameSpec, int]) -> GameResult:
    return play_game(*args)


@frozen
class Summary:
    """Aggregate statistics of a batch."""

    games: int
    seconds: float
    games_per_second: float
    decisions_per_game: float
    win_rate_by_seat: dict[int, float]
    mean_score_by_seat: dict[int, float]
    win_rate_by_traveller: dict[str, float]
    mean_score_by_traveller: dict[str, float]
    games_by_traveller: dict[str, int]
    win_rate_by_bot: dict[str, float]
    mean_points_by_category: dict[str, float]


@frozen
class Batch:
    results: tuple[GameResult, ...]
    summary: Summary


def summarize(results: Sequence[GameResult], seconds: float) -> Summary:
    n = len(results)
    by_seat: dict[int, list[SeatResult]] = defaultdict(list)
    by_traveller: dict[str, list[SeatResult]] = defaultdict(list)
    by_bot: dict[str, list[SeatResult]] = defaultdict(list)
    categories: dict[str, float] = defaultdict(float)
    entries = 0
    for r in results:
        for s in r.seats:
            by_seat[s.seat].append(s)
            by_traveller[s.traveller or "-"].append(s)
            by_bot[s.bot].append(s)
            entries += 1
            for c, v in s.categories.items():
                categories[c] += v

    def rate(rows: list[SeatResult]) -> float:
        return sum(s.win for s in rows) / len(rows)

    def mean(rows: list[SeatResult]) -> float:
        return sum(s.score for s in rows) / len(rows)

    return Summary(
        games=n,
        seconds=seconds,
        games_per_second=n / seconds if seconds > 0 else 0.0,
        decisions_per_game=sum(r.decisions for r in results) / n if n else 0.0,
        win_rate_by_seat={k: rate(v) for k, v in sorted(by_seat.items())},
        mean_score_by_seat={k: mean(v) for k, v in sorted(by_seat.items())},
        win_rate_by_traveller={k: rate(v) for k, v in sorted(by_traveller.items())},
        mean_score_by_traveller={k: mean(v) for k, v in sorted(by_traveller.items())},
        games_by_traveller={k: len(v) for k, v in sorted(by_traveller.items())},
        win_rate_by_bot={k: rate(v) for k, v in sorted(by_bot.items())},
        mean_points_by_category={k: v / entries for k, v in categories.items()} if entries else {},
    )


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a batch: a function of the batch seed and the index."""
    return random_below(seed & ((1 << 64) - 1), index, 7, 2**63)


def decision_kinds(ruleset: Ruleset, kinds: Iterable[str]) -> tuple[str, ...]:
    """``kinds`` without repeats, checked: each must be a decision of ``ruleset``."""
    wanted = tuple(dict.fromkeys(kinds))
    decisions = sorted(k for k, step in ruleset.registry.steps.items() if step.is_decision)
    unknown = [kind for kind in wanted if kind not in decisions]
    if unknown:
        raise SetupError(f"unknown decision kind(s) {unknown} (this ruleset's decisions: "
                         f"{', '.join(decisions)})")
    return wanted


def specs(games: int, players: int, plugins: Iterable[str] = ("base",),
          bots: Sequence[str] = ("random",), seed: int = 0,
          options: Mapping[str, object] | None = None,
          keep_logs: bool = False, random_decisions: Iterable[str] = ()) -> list[GameSpec]:
    """The specs of a batch; ``bots`` is cycled over the seats; ``random_decisions``
    (:attr:`GameSpec.random_decisions`) must be decision kinds of the ruleset."""
    if not bots:
        raise SetupError("at least one bot is needed")
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise SetupError(f"unknown bot(s) {unknown} (known: {sorted(BOTS)})")
    if not isinstance(games, int) or games < 1:
        raise SetupError(f"games must be a positive number, got {games!r}")
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise SetupError(f"players must be 2 to 5, got {players!r}")
    plugin_ids = tuple(plugins)
    frozen_options = tuple(sorted((options or {}).items()))
    ruleset = _ruleset(plugin_ids, frozen_options)  # fail early on a bad ruleset
    by_chance = decision_kinds(ruleset, random_decisions)
    seats = tuple(bots[i % len(bots)] for i in range(players))
    return [GameSpec(players, game_seed(seed, i), plugin_ids, frozen_options, seats,
                     keep_logs, by_chance) for i in range(games)]


def simulate(
    games: int,
    players: int = 4,
    plugins: Iterable[str] = ("base",),
    bots: Sequence[str] = ("random",),
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    *,
    executor: Executor | None = None,
    keep_logs: bool = False,
    progress: Callable[[int], None] | None = None,
    random_decisions: Iterable[str] = (),
) -> Batch:
    """Play ``games`` games and aggregate them. With an ``executor`` (a process pool, a
    Dask cluster's executor, ...) games run there; results are the same either way.
    ``progress(n)`` is called after each finished game with the number finished.
    ``random_decisions``: decision kinds taken at random rather than by the bots
    (:attr:`GameSpec.random_decisions`)."""
    batch = specs(games, players, plugins, bots, seed, options, keep_logs, random_decisions)
    start = time.perf_counter()
    results: list[GameResult] = []
    jobs = [(spec, i) for i, spec in enumerate(batch)]
    if executor is None:
        for job in jobs:
            results.append(_play_indexed(job))
            if progress is not None:
                progress(len(results))
    else:
        for result in executor.map(_play_indexed, jobs):
            results.append(result)
            if progress is not None:
                progress(len(results))
    results.sort(key=lambda r: r.index)
    return Batch(tuple(results), summarize(results, time.perf_counter() - start))

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

For millions of games, :func:`play_games` hands the results over one by one and
:class:`Tally` adds them up, so memory stays flat; :func:`simulate` is both together
(``keep_results=False`` keeps only the summary). Games travel to the executor in chunks
(:func:`play_chunk`), and only a bounded number of chunks is queued at a time.
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import (
    Callable,
    Collection,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from concurrent.futures import Executor, Future
from functools import lru_cache
from itertools import islice
from typing import Any, TypeVar

from attrs import field, frozen

from .bots import BOTS, Bot, next_action
from .chance import bot_seed, random_below
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
    bots = [BOTS[name](bot_seed(spec.seed, seat))  # one way: a bot cannot find the game's
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


PYPY_JIT = "trace_eagerness=20"
"""The PyPy JIT parameters :func:`tune_jit` sets: a branch of compiled code that is left
20 times (not PyPy's default 200) gets compiled code of its own. Game rules branch a
great deal, and each branch left to the interpreter is slow, so a simulation reaches its
full speed after a few thousand games instead of fifteen thousand or more."""


def tune_jit() -> bool:
    """Set PyPy's JIT parameters for a simulation; return whether any were set (never
    on CPython).

    They are :data:`PYPY_JIT`, or the environment variable ``TOKAIDO_PYPY_JIT`` if it is
    set: other parameters in PyPy's ``--jit`` syntax, or nothing (empty), which leaves
    PyPy's own, e.g. those given with ``pypy --jit``. Bad parameters raise
    :class:`~tokaido_rules.errors.SetupError`. It is a setting of the whole process, so
    the library's functions leave it alone: a ``tokaido simulate`` batch calls it, in
    every worker process too, and so does ``benchmarks/bench.py``. A program that runs
    its own batches on PyPy can call it once at its start.
    """
    params = os.environ.get("TOKAIDO_PYPY_JIT", PYPY_JIT)
    if not params:
        return False
    try:
        import pypyjit  # type: ignore[import-not-found]
    except ImportError:
        return False
    try:
        pypyjit.set_param(params)
    except ValueError:
        raise SetupError(f"TOKAIDO_PYPY_JIT: {params!r} is not a PyPy JIT parameter string "
                         "(e.g. 'trace_eagerness=20,trace_limit=6000')") from None
    return True


def play_chunk(first: int, chunk: Sequence[GameSpec]) -> list[GameResult]:
    """Play games ``first``, ``first + 1``, ... of a batch: one task for an executor
    (a task per game would spend much of a fast game's time travelling)."""
    return [play_game(spec, first + i) for i, spec in enumerate(chunk)]


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
    score_counts_by_traveller: dict[str, dict[int, int]] = field(factory=dict)
    """Per traveller, how often each final score was reached (score -> count): the whole
    distribution, in room that does not grow with the number of games."""
    win_rate_margin_by_seat: dict[int, float] = field(factory=dict)
    """The 95% margin of each win rate (1.96 standard errors, normal approximation): the
    interval ``win rate ± margin`` holds the true rate in about 95% of batches. A row of
    a single player has none."""
    mean_score_margin_by_seat: dict[int, float] = field(factory=dict)
    """The 95% margin of each mean score, likewise."""
    win_rate_margin_by_traveller: dict[str, float] = field(factory=dict)
    mean_score_margin_by_traveller: dict[str, float] = field(factory=dict)


@frozen
class Batch:
    results: tuple[GameResult, ...]
    """Every game's result in index order (empty when ``keep_results=False``)."""
    summary: Summary


class _Group:
    """Running sums of one row of the summary (a seat, a traveller or a bot)."""

    __slots__ = ("entries", "score", "score_squares", "win_squares", "wins")

    def __init__(self) -> None:
        self.entries = 0
        self.wins = 0.0
        self.win_squares = 0.0
        self.score = 0
        self.score_squares = 0


Z95 = 1.96
"""Standard errors in a 95% margin (normal approximation)."""


def margin(entries: int, total: float, squares: float) -> float:
    """The 95% margin of the mean of ``entries`` values, given their sum and the sum of
    their squares: :data:`Z95` times the standard error (sample variance)."""
    mean = total / entries
    variance = max(0.0, (squares - entries * mean * mean) / (entries - 1))
    return Z95 * math.sqrt(variance / entries)


K = TypeVar("K")


def _group(groups: dict[K, _Group], key: K) -> _Group:
    group = groups.get(key)
    if group is None:
        group = groups[key] = _Group()
    return group


class Tally:
    """The summary of a batch, added up one result at a time (:meth:`add`), so that the
    results need not be kept: its memory grows with the number of seats, travellers,
    bots and distinct scores, never with the number of games."""

    def __init__(self) -> None:
        self.games = 0
        self.decisions = 0
        self.entries = 0
        self.by_seat: dict[int, _Group] = {}
        self.by_traveller: dict[str, _Group] = {}
        self.by_bot: dict[str, _Group] = {}
        self.categories: dict[str, float] = {}
        self.scores: dict[str, dict[int, int]] = {}

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.decisions += result.decisions
        categories = self.categories
        for s in result.seats:
            traveller = s.traveller or "-"
            for group in (_group(self.by_seat, s.seat), _group(self.by_traveller, traveller),
                          _group(self.by_bot, s.bot)):
                group.entries += 1
                group.wins += s.win
                group.win_squares += s.win * s.win
                group.score += s.score
                group.score_squares += s.score * s.score
            counts = self.scores.setdefault(traveller, {})
            counts[s.score] = counts.get(s.score, 0) + 1
            self.entries += 1
            for c, v in s.categories.items():
                categories[c] = categories.get(c, 0.0) + v

    def summary(self, seconds: float) -> Summary:
        """The statistics so far; ``seconds`` is the wall time the games took."""
        n = self.games
        seats = sorted(self.by_seat.items())
        travellers = sorted(self.by_traveller.items())
        return Summary(
            games=n,
            seconds=seconds,
            games_per_second=n / seconds if seconds > 0 else 0.0,
            decisions_per_game=self.decisions / n if n else 0.0,
            win_rate_by_seat={k: g.wins / g.entries for k, g in seats},
            mean_score_by_seat={k: g.score / g.entries for k, g in seats},
            win_rate_by_traveller={k: g.wins / g.entries for k, g in travellers},
            mean_score_by_traveller={k: g.score / g.entries for k, g in travellers},
            games_by_traveller={k: g.entries for k, g in travellers},
            win_rate_by_bot={k: g.wins / g.entries for k, g in sorted(self.by_bot.items())},
            mean_points_by_category=({k: v / self.entries for k, v in self.categories.items()}
                                     if self.entries else {}),
            score_counts_by_traveller={k: dict(sorted(v.items()))
                                       for k, v in sorted(self.scores.items())},
            win_rate_margin_by_seat=_margins(seats, wins=True),
            mean_score_margin_by_seat=_margins(seats, wins=False),
            win_rate_margin_by_traveller=_margins(travellers, wins=True),
            mean_score_margin_by_traveller=_margins(travellers, wins=False),
        )


def _margins(groups: list[tuple[K, _Group]], *, wins: bool) -> dict[K, float]:
    return {k: margin(g.entries, g.wins, g.win_squares) if wins
            else margin(g.entries, g.score, g.score_squares)
            for k, g in groups if g.entries > 1}


def summarize(results: Iterable[GameResult], seconds: float) -> Summary:
    """The summary of finished games (see :class:`Tally`)."""
    tally = Tally()
    for result in results:
        tally.add(result)
    return tally.summary(seconds)


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
    return list(_specs(games, players, plugins, bots, seed, options, keep_logs,
                       random_decisions))


def _specs(games: int, players: int, plugins: Iterable[str], bots: Sequence[str], seed: int,
           options: Mapping[str, object] | None, keep_logs: bool,
           random_decisions: Iterable[str]) -> Iterator[GameSpec]:
    """:func:`specs`, checked at once and then made one at a time."""
    if not bots:
        raise SetupError("at least one bot is needed")
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise SetupError(f"unknown bot(s) {unknown} (known: {sorted(BOTS)})")
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise SetupError(f"games must be a positive number, got {games!r}")
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise SetupError(f"players must be 2 to 5, got {players!r}")
    plugin_ids = tuple(plugins)
    frozen_options = tuple(sorted((options or {}).items()))
    ruleset = _ruleset(plugin_ids, frozen_options)  # fail early on a bad ruleset
    by_chance = decision_kinds(ruleset, random_decisions)
    seats = tuple(bots[i % len(bots)] for i in range(players))
    return (GameSpec(players, game_seed(seed, i), plugin_ids, frozen_options, seats,
                     keep_logs, by_chance) for i in range(games))


CHUNK_GAMES = 16
"""The most games sent to an executor as one task (:func:`play_chunk`)."""
MAX_PENDING = 256
"""The most tasks queued on an executor at a time, by default: enough to keep a large
cluster busy, few enough that a batch of millions never sits in memory."""


def chunk_size(games: int) -> int:
    """Games per task for a batch of ``games``: one for small batches (so that slow bots
    spread evenly over the workers), up to :data:`CHUNK_GAMES` for big ones."""
    return max(1, min(CHUNK_GAMES, games // 256))


def play_games(
    games: int,
    players: int = 4,
    plugins: Iterable[str] = ("base",),
    bots: Sequence[str] = ("random",),
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    *,
    executor: Executor | None = None,
    keep_logs: bool = False,
    random_decisions: Iterable[str] = (),
    chunk: int | None = None,
    max_pending: int = MAX_PENDING,
) -> Generator[GameResult, None, None]:
    """The results of a batch one at a time, in index order, as the games finish.

    The arguments are those of :func:`simulate`. With an ``executor``, games go to it
    ``chunk`` at a time (default :func:`chunk_size`), with at most ``max_pending`` tasks
    queued; the results are the same whatever the executor, chunk and queue. The input
    is checked before any game is played (:class:`~tokaido_rules.errors.SetupError`).
    Closing the iterator early cancels the tasks not yet started.
    """
    batch = _specs(games, players, plugins, bots, seed, options, keep_logs, random_decisions)
    size = chunk_size(games) if chunk is None else chunk
    if size < 1 or max_pending < 1:
        raise SetupError(f"chunk and max_pending must be at least 1, got {size}, {max_pending}")
    return _results(batch, executor, size, max_pending)


def _results(batch: Iterator[GameSpec], executor: Executor | None, size: int,
             max_pending: int) -> Generator[GameResult, None, None]:
    first = 0
    if executor is None:
        for spec in batch:
            yield play_game(spec, first)
            first += 1
        return
    pending: deque[Future[list[GameResult]]] = deque()
    try:
        while True:
            chunk = list(islice(batch, size))
            if chunk:
                pending.append(executor.submit(play_chunk, first, chunk))
                first += len(chunk)
            if pending and (not chunk or len(pending) >= max_pending):
                yield from pending.popleft().result()
            elif not chunk:
                return
    finally:
        for future in pending:
            future.cancel()


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
    keep_results: bool = True,
    chunk: int | None = None,
    max_pending: int = MAX_PENDING,
) -> Batch:
    """Play ``games`` games and aggregate them. With an ``executor`` (a process pool, a
    Dask cluster's executor, ...) games run there; results are the same either way.
    ``progress(n)`` is called after each finished game with the number finished.
    ``random_decisions``: decision kinds taken at random rather than by the bots
    (:attr:`GameSpec.random_decisions`). ``keep_results=False`` keeps only the summary,
    for batches too big to hold every result; ``chunk`` and ``max_pending``: see
    :func:`play_games`."""
    results = play_games(games, players, plugins, bots, seed, options, executor=executor,
                         keep_logs=keep_logs, random_decisions=random_decisions, chunk=chunk,
                         max_pending=max_pending)
    start = time.perf_counter()
    tally = Tally()
    kept: list[GameResult] = []
    for result in results:
        tally.add(result)
        if keep_results:
            kept.append(result)
        if progress is not None:
            progress(tally.games)
    return Batch(tuple(kept), tally.summary(time.perf_counter() - start))

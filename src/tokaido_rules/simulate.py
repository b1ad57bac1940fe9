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

Games are played on the reference engine or, where it gives the same games, on the fast
simulator (:mod:`tokaido_rules.fast`): ``engine="auto"`` (the command line's default;
the functions here default to ``"reference"``) takes the fast one when it covers the
ruleset (:func:`~tokaido_rules.fast.covers`) and every bot chooses from the legal
actions alone (:func:`choose_engine`). The results, logs and summaries are the same
either way; only the time differs.
"""

from __future__ import annotations

import math
import os
import pickle
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
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from functools import lru_cache
from itertools import islice
from statistics import NormalDist
from typing import Any, TypeVar

from attrs import field, frozen

from .bots import (
    Bot,
    BotLike,
    _failed,
    _illegal,
    actions_only,
    bot_factory,
    bot_name,
    check_bot,
    check_options,
    is_legal,
    look_ahead_on,
    make_bot,
    next_action,
)
from .chance import EVENT, KEYINGS, bot_seed, random_below
from .engine import Game, new_game
from .errors import SetupError, UnknownBotError
from .events import Action, Event
from .fast import FastGame, ViewableGame, views_direct, why_not_covered
from .log import SeatCopy, dump_log
from .ruleset import Ruleset, check_players


def decision_count(subject: Game | SeatCopy | Iterable[Event]) -> int:
    """How many decisions a game has taken: its log's decision events (every
    :class:`~tokaido_rules.Action`), which is what every output counts (the numbered
    lines of a printed journey, ``decisions`` in the command line's JSON and a batch's
    statistics, the replay page's "decision N of M").

    Every decision a seat takes counts, the moves of the 2-player neutral traveller too
    (the leading seat takes them), and so does a decision with a single possible answer
    that the engine took without asking: it is in the log as the action chosen, after a
    :class:`~tokaido_rules.events.Automatic` marker.
    (:func:`~tokaido_rules.decisions` leaves those out: it gives the actions to feed a
    fresh game, which takes the forced ones again by itself.)

    ``subject``: a game, a seat's copy of a log (whose decision lines count even where
    the seat saw none of their data), or events (e.g. ``game.events[:seq + 1]``: the
    decisions up to event ``seq``)."""
    if isinstance(subject, Game):
        subject = subject.events
    elif isinstance(subject, SeatCopy):
        types = subject.ruleset.registry.events
        return sum(1 for line in subject.lines if issubclass(types[line.type], Action))
    return sum(1 for event in subject if isinstance(event, Action))


@frozen
class GameSpec:
    """One game of a batch: everything needed to play it anywhere."""

    players: int
    seed: int
    plugins: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    bots: tuple[str, ...]
    """One bot name per seat (see :data:`tokaido_rules.bots.BOTS`): the registered name,
    or, for a bot given as an object, class or factory, :func:`~tokaido_rules.bots.bot_name`
    (what the statistics call it)."""
    keep_log: bool = False
    random_decisions: tuple[str, ...] = ()
    """Decision kinds taken uniformly at random (seeded by the game) instead of by the
    seat's bot: ``("base.choose_traveller",)`` deals travellers by chance, so that a
    balance study sees every traveller equally often, whatever the bots prefer."""
    engine: str = "reference"
    """``"reference"`` or ``"fast"`` (:func:`choose_engine`): the engine that plays the
    game. The game is the same on either."""
    makers: tuple[Any, ...] = ()
    """Per seat, the bot object, class or factory given instead of a name (``None``
    where the name is registered); empty when every bot is given by name. It travels
    with the spec, so to another process it must pickle."""
    bot_options: tuple[tuple[tuple[str, Any], ...], ...] = ()
    """Per seat, the options its bot's factory is called with (checked and typed:
    :func:`~tokaido_rules.bots.check_options`); empty: none anywhere."""
    chance: str = EVENT
    """How the game's chance is keyed (``Setup.keying``): ``"event"`` or ``"purpose"``
    (the duplicate format: games of one seed share their chance outcomes)."""


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
    """The game's decisions (:func:`decision_count`)."""
    events: int
    log: str | None = field(default=None, repr=False)


@lru_cache(maxsize=16)
def _ruleset(plugins: tuple[str, ...], options: tuple[tuple[str, Any], ...]) -> Ruleset:
    """Rulesets are built once per worker process and reused for its games."""
    return Ruleset.build(plugins, dict(options))


ENGINES = ("auto", "fast", "reference")
"""The engines a batch may ask for (:func:`choose_engine`)."""


def fast_bot(bot: BotLike, ruleset: Ruleset | None = None, players: int | None = None) -> bool:
    """Whether ``bot`` (a name of :data:`~tokaido_rules.bots.BOTS`, or a bot object,
    class or factory) can play on the fast simulator: it chooses from the legal actions
    alone (:func:`~tokaido_rules.bots.actions_only`: an
    :class:`~tokaido_rules.bots.ActionsBot`, such as the random bot), or, in games of
    ``ruleset`` with ``players``, the fast simulator builds its seat's views from its
    flat state (:func:`~tokaido_rules.fast.views_direct`: the very views the reference
    engine gives, so any bot, greedy and search included, chooses there as it would on
    the reference). Without a ruleset, only the first."""
    if actions_only(bot_factory(bot) if isinstance(bot, str) else bot):
        return True
    return ruleset is not None and players is not None and views_direct(ruleset, players)


def choose_engine(engine: str, ruleset: Ruleset, bots: Iterable[BotLike],
                  players: int | None = None) -> str:
    """The engine that plays games of ``ruleset`` with ``bots`` (and ``players``):
    ``"fast"`` or ``"reference"``.

    ``"auto"`` is the fast simulator when it covers the ruleset
    (:func:`~tokaido_rules.fast.covers`: every plugin gives fast rules, every option
    value is implemented there) and every bot can play there (:func:`fast_bot`: a bot
    that reads views, where they are built directly for ``players``), else the reference
    engine; ``"reference"`` is always the reference; ``"fast"`` is the simulator, and
    raises :class:`~tokaido_rules.errors.SetupError` saying why
    (:func:`~tokaido_rules.fast.why_not_covered`) where it cannot be used. The games are
    the same on either engine, and so are the bots' choices."""
    if engine not in ENGINES:
        raise SetupError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "reference":
        return engine
    why = why_not_covered(ruleset)
    slow = sorted({bot_name(bot) for bot in bots
                   if not fast_bot(bot, ruleset if why is None else None, players)})
    if engine == "auto":
        return "fast" if why is None and not slow else "reference"
    if why is not None:
        raise SetupError(f"the fast engine does not cover plugins {','.join(ruleset.ids)}: "
                         f"{why}; use the reference engine (or auto)")
    if slow:
        raise SetupError(f"the fast engine plays bots that choose from the legal actions "
                         f"alone, or others where it builds the views itself, not "
                         f"{', '.join(slow)} here: use the reference engine (or auto)")
    return engine


def play_fast(game: FastGame, bots: Sequence[Bot], random_decisions: Collection[str],
              seed: int, names: Sequence[str] | None = None) -> FastGame:
    """Play a fast game to the end in place, as :func:`decide` would on the reference
    engine: each seat's bot chooses from the legal actions (``choose_from``, for an
    :class:`~tokaido_rules.bots.ActionsBot`) or from its seat's view
    (:meth:`FastGame.view <tokaido_rules.fast.FastGame.view>`, the reference's view: a
    :class:`~tokaido_rules.fast.ViewableGame` builds it without a replay), a decision of
    a kind in ``random_decisions`` is taken uniformly at random (draw ``n`` of ``seed``
    for the ``n``-th decision asked). A bot that raises or answers an action that is not
    legal is refused (:class:`~tokaido_rules.BotError`, naming it: ``names`` by seat)
    before its answer is applied."""
    choosers: list[Callable[[tuple[Action, ...]], Action] | None] = [
        getattr(bot, "choose_from", None) for bot in bots]
    asked = 0
    while not game.is_over:
        actions = game.legal_actions()
        if random_decisions and game.current_kind in random_decisions:
            action = actions[random_below(seed, asked, 2, len(actions))]
        else:
            seat = game.current_player
            index = seat if seat is not None else 0
            label = None if names is None else names[index]
            chooser = choosers[index]
            if chooser is None:
                action = next_action(bots[index], game, label)
            else:
                try:
                    action = chooser(actions)
                except Exception as exc:  # the bot's own failure, told in one line
                    raise _failed(bots[index], label, index, exc) from exc
                if not is_legal(action, actions):
                    raise _illegal(bots[index], label, index, action)
        game.apply(action)
        asked += 1
    return game


def fast_game(players: int, seed: int, ruleset: Ruleset, bots: Sequence[Bot],
              chance: str = EVENT) -> FastGame:
    """A new fast game for ``bots``: one that records what its views need
    (:class:`~tokaido_rules.fast.ViewableGame`) if a bot reads views, else a plain one;
    ``chance``: its keying."""
    if all(actions_only(bot) for bot in bots):
        return FastGame.new(players, seed=seed, plugins=ruleset, chance=chance)
    return ViewableGame.new(players, seed=seed, plugins=ruleset, chance=chance)


def _fast_result(spec: GameSpec, index: int, ruleset: Ruleset,
                 bots: Sequence[Bot]) -> GameResult:
    game = play_fast(fast_game(spec.players, spec.seed, ruleset, bots, spec.chance), bots,
                     spec.random_decisions, spec.seed, spec.bots)
    winners = game.winners()
    seats = tuple(
        SeatResult(s.seat, spec.bots[s.seat], s.traveller, s.total, s.rank,
                   1 / len(winners) if s.seat in winners else 0.0, dict(s.categories))
        for s in game.scores()
    )
    return GameResult(index, spec.seed, seats, len(game.decisions) + game.automatic,
                      game.state_seq, dump_log(game.to_game()) if spec.keep_log else None)


def play_game(spec: GameSpec, index: int = 0) -> GameResult:
    """Play one game to the end with the spec's bots (each seeded from the game seed), on
    the spec's engine."""
    ruleset = _ruleset(spec.plugins, spec.options)
    bots = seat_bots(spec)
    if spec.engine == "fast":
        return _fast_result(spec, index, ruleset, bots)
    look_ahead_on(bots, "reference")
    game = new_game(spec.players, seed=spec.seed, plugins=ruleset, chance=spec.chance)
    asked = 0
    while not game.is_over:
        game = game.apply(decide(game, bots, spec.random_decisions, spec.seed, asked,
                                 spec.bots))
        asked += 1
    winners = game.winners()
    seats = tuple(
        SeatResult(s.seat, spec.bots[s.seat], s.traveller, s.total, s.rank,
                   1 / len(winners) if s.seat in winners else 0.0, dict(s.categories))
        for s in game.scores()
    )
    return GameResult(index, spec.seed, seats, decision_count(game), len(game.events),
                      dump_log(game) if spec.keep_log else None)


def seat_bots(spec: GameSpec) -> list[Bot]:
    """The bots of a game, one per seat, each seeded one way from the game's seed (a bot
    cannot find the game's) and made with the seat's options
    (:func:`~tokaido_rules.bots.make_bot`)."""
    out: list[Bot] = []
    for seat, name in enumerate(spec.bots):
        maker = spec.makers[seat] if spec.makers else None
        options = dict(spec.bot_options[seat]) if spec.bot_options else {}
        out.append(make_bot(name if maker is None else maker, bot_seed(spec.seed, seat),
                            options))
    return out


def decide(game: Game, bots: Sequence[Bot], random_decisions: Collection[str], seed: int,
           decisions: int, names: Sequence[str] | None = None) -> Action:
    """The action of the seat deciding: its bot's choice, or a uniformly random legal
    action (draw ``decisions`` of ``seed``) for a decision of a kind in
    ``random_decisions``. A bot that fails is refused with
    :class:`~tokaido_rules.BotError` naming it (``names`` by seat)."""
    step = game.current_step
    if step is not None and step.kind in random_decisions:
        actions = game.legal_actions()
        return actions[random_below(seed, decisions, 2, len(actions))]
    seat = game.current_player
    index = seat if seat is not None else 0
    return next_action(bots[index], game, None if names is None else names[index])


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
    a single player has none. It is too narrow for few games or a rate near 0 or 1 (0
    wins in 10 games gives a margin of 0): read ``win_rate_interval_by_seat`` instead."""
    mean_score_margin_by_seat: dict[int, float] = field(factory=dict)
    """The 95% margin of each mean score, likewise."""
    win_rate_margin_by_traveller: dict[str, float] = field(factory=dict)
    mean_score_margin_by_traveller: dict[str, float] = field(factory=dict)
    win_rate_interval_by_seat: dict[int, tuple[float, float]] = field(factory=dict)
    """The 95% Wilson score interval of each win rate (:func:`wilson_interval`; a
    shared win counts 1/k, as in the rate): right for small samples and for rates near
    0 or 1, where the normal margin is not. Every row has one, a single player's too."""
    win_rate_interval_by_traveller: dict[str, tuple[float, float]] = field(factory=dict)
    win_rate_interval_by_bot: dict[str, tuple[float, float]] = field(factory=dict)


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


def wilson_interval(successes: float, trials: int,
                    confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a success rate: ``(low, high)``, which holds the true
    rate with probability ``confidence`` (about; for any number of trials).

    Unlike the normal approximation (the rate ± z standard errors), it never leaves
    [0, 1] and is not empty at 0 or all successes: 0 of 10 gives (0, 0.278), 5 of 10
    (0.237, 0.763), 10 of 10 (0.722, 1). With ``z`` the standard normal quantile of
    ``(1 + confidence) / 2``, ``n`` the trials and ``p`` the observed rate, the centre is
    ``(p + z²/2n) / (1 + z²/n)`` and the half-width
    ``z / (1 + z²/n) * sqrt(p(1 - p)/n + z²/4n²)``. ``successes`` may be fractional
    (a shared win counted 1/k)."""
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be a positive int, got {trials!r}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be from 0 to {trials}, got {successes!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    n = trials
    p = successes / n
    z2 = z * z
    scale = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / scale
    half = z / scale * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n)))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


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
        bots = sorted(self.by_bot.items())
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
            win_rate_by_bot={k: g.wins / g.entries for k, g in bots},
            mean_points_by_category=({k: v / self.entries for k, v in self.categories.items()}
                                     if self.entries else {}),
            score_counts_by_traveller={k: dict(sorted(v.items()))
                                       for k, v in sorted(self.scores.items())},
            win_rate_margin_by_seat=_margins(seats, wins=True),
            mean_score_margin_by_seat=_margins(seats, wins=False),
            win_rate_margin_by_traveller=_margins(travellers, wins=True),
            mean_score_margin_by_traveller=_margins(travellers, wins=False),
            win_rate_interval_by_seat=_intervals(seats),
            win_rate_interval_by_traveller=_intervals(travellers),
            win_rate_interval_by_bot=_intervals(bots),
        )


def _margins(groups: list[tuple[K, _Group]], *, wins: bool) -> dict[K, float]:
    return {k: margin(g.entries, g.wins, g.win_squares) if wins
            else margin(g.entries, g.score, g.score_squares)
            for k, g in groups if g.entries > 1}


def _intervals(groups: list[tuple[K, _Group]]) -> dict[K, tuple[float, float]]:
    # a sum of 1/k shares may overshoot the entries by a rounding error
    return {k: wilson_interval(min(g.wins, g.entries), g.entries) for k, g in groups}


def summarize(results: Iterable[GameResult], seconds: float) -> Summary:
    """The summary of finished games (see :class:`Tally`)."""
    tally = Tally()
    for result in results:
        tally.add(result)
    return tally.summary(seconds)


def check_keying(chance: object) -> None:
    """Refuse a chance keying other than ``"event"`` or ``"purpose"`` (a
    :class:`~tokaido_rules.errors.SetupError`), before any game is played."""
    if not isinstance(chance, str) or chance not in KEYINGS:
        raise SetupError(f"chance must be one of {', '.join(KEYINGS)}, got {chance!r}")


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
          bots: Sequence[BotLike] = ("random",), seed: int = 0,
          options: Mapping[str, object] | None = None,
          keep_logs: bool = False, random_decisions: Iterable[str] = (),
          engine: str = "reference",
          bot_options: Mapping[str, Mapping[str, object]] | None = None) -> list[GameSpec]:
    """The specs of a batch; ``bots`` (names, bot objects, classes or factories) is
    cycled over the seats; ``bot_options``: bot name -> its options
    (:func:`~tokaido_rules.bots.check_options`); ``random_decisions``
    (:attr:`GameSpec.random_decisions`) must be decision kinds of the ruleset; ``engine``
    is resolved by :func:`choose_engine`."""
    return list(_specs(games, players, plugins, bots, seed, options, keep_logs,
                       random_decisions, engine, bot_options))


def seat_makers(bots: Sequence[BotLike], players: int,
                bot_options: Mapping[str, Mapping[str, object]] | None = None,
                ) -> tuple[tuple[str, ...], tuple[Any, ...],
                           tuple[tuple[tuple[str, Any], ...], ...]]:
    """The seats' bots, checked: their names, their makers (:attr:`GameSpec.makers`)
    and their options (:attr:`GameSpec.bot_options`), ``bots`` cycled over ``players``
    seats. A bad bot, option, or an option for a bot not in play raises
    :class:`~tokaido_rules.UnknownBotError` (a ``SetupError``)."""
    if not bots or isinstance(bots, str):
        raise SetupError("at least one bot is needed (a sequence of names or bots)")
    names = tuple(check_bot(b) for b in bots)
    given = {str(k): dict(v) for k, v in (bot_options or {}).items()}
    stray = sorted(set(given) - set(names))
    if stray:
        raise UnknownBotError(f"options for bot(s) not in play: {', '.join(stray)} (in play: "
                              f"{', '.join(dict.fromkeys(names))})", stray[0])
    checked = {n: tuple(sorted(check_options(b, given.get(n)).items()))
               for n, b in zip(names, bots, strict=True)}
    seats = [i % len(bots) for i in range(players)]
    makers = tuple(None if isinstance(bots[i], str) else bots[i] for i in seats)
    return (tuple(names[i] for i in seats),
            makers if any(m is not None for m in makers) else (),
            tuple(checked[names[i]] for i in seats) if any(checked.values()) else ())


def check_picklable(makers: Iterable[Any]) -> None:
    """Refuse, before any game, a bot given as an object, class or factory that cannot
    go to another process (a ``--jobs`` pool, a Dask cluster): it must pickle (a class
    or function defined at a module's top level, an object of such a class)."""
    for maker in makers:
        if maker is None:
            continue
        try:
            pickle.dumps(maker)
        except Exception as exc:
            name = bot_name(maker)
            raise UnknownBotError(
                f"bot {name!r} cannot go to another process (--jobs, Dask): a bot given "
                f"to a pool must pickle ({type(exc).__name__}: {_line(str(exc))}); define "
                "it at a module's top level, register it by name, or play without an "
                "executor", name) from None


def _line(text: str) -> str:
    return " ".join(text.split())[:200]


def _specs(games: int, players: int, plugins: Iterable[str], bots: Sequence[BotLike],
           seed: int, options: Mapping[str, object] | None, keep_logs: bool,
           random_decisions: Iterable[str], engine: str = "reference",
           bot_options: Mapping[str, Mapping[str, object]] | None = None,
           chance: str = EVENT) -> Iterator[GameSpec]:
    """:func:`specs`, checked at once and then made one at a time."""
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise SetupError(f"games must be a positive number, got {games!r}")
    check_keying(chance)
    check_players(players)
    plugin_ids = tuple(plugins)
    frozen_options = tuple(sorted((options or {}).items()))
    ruleset = _ruleset(plugin_ids, frozen_options)  # fail early on a bad ruleset
    by_chance = decision_kinds(ruleset, random_decisions)
    seats, makers, seat_options = seat_makers(bots, players, bot_options)
    chosen = choose_engine(engine, ruleset, [
        name if not makers or makers[i] is None else makers[i]
        for i, name in enumerate(seats)], players)
    return (GameSpec(players, game_seed(seed, i), plugin_ids, frozen_options, seats,
                     keep_logs, by_chance, chosen, makers, seat_options, chance)
            for i in range(games))


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
    bots: Sequence[BotLike] = ("random",),
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    *,
    executor: Executor | None = None,
    keep_logs: bool = False,
    random_decisions: Iterable[str] = (),
    chunk: int | None = None,
    max_pending: int = MAX_PENDING,
    engine: str = "reference",
    bot_options: Mapping[str, Mapping[str, object]] | None = None,
    chance: str = EVENT,
) -> Generator[GameResult, None, None]:
    """The results of a batch one at a time, in index order, as the games finish.

    The arguments are those of :func:`simulate`. With an ``executor``, games go to it
    ``chunk`` at a time (default :func:`chunk_size`), with at most ``max_pending`` tasks
    queued; the results are the same whatever the executor, chunk and queue. The input
    is checked before any game is played (:class:`~tokaido_rules.errors.SetupError`).
    Closing the iterator early cancels the tasks not yet started.
    """
    batch = _specs(games, players, plugins, bots, seed, options, keep_logs, random_decisions,
                   engine, bot_options, chance)
    if executor is not None and not isinstance(executor, ThreadPoolExecutor):
        check_picklable(b for b in bots if not isinstance(b, str))
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
    bots: Sequence[BotLike] = ("random",),
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
    engine: str = "reference",
    bot_options: Mapping[str, Mapping[str, object]] | None = None,
    chance: str = EVENT,
) -> Batch:
    """Play ``games`` games and aggregate them. With an ``executor`` (a process pool, a
    Dask cluster's executor, ...) games run there; results are the same either way.
    ``progress(n)`` is called after each finished game with the number finished.
    ``random_decisions``: decision kinds taken at random rather than by the bots
    (:attr:`GameSpec.random_decisions`). ``keep_results=False`` keeps only the summary,
    for batches too big to hold every result; ``chunk`` and ``max_pending``: see
    :func:`play_games`. ``engine``: ``"reference"`` (the default), ``"auto"`` (the fast
    simulator where it gives the same games) or ``"fast"`` (:func:`choose_engine`); the
    results are the same on either, only faster. ``bots``: names (:data:`~tokaido_rules.bots.BOTS`),
    bot objects (copied for each game), or classes or factories (called as
    ``factory(seed=..., **options)``), cycled over the seats; with a process pool or a
    Dask executor they must pickle. ``bot_options``: bot name -> options. The statistics
    name each bot by its registered name (:func:`~tokaido_rules.bots.bot_name`).
    ``chance``: ``"event"`` (the default) or ``"purpose"``, how each game keys its chance
    (:class:`~tokaido_rules.Setup` ``keying``); another value is a
    :class:`~tokaido_rules.errors.SetupError`."""
    results = play_games(games, players, plugins, bots, seed, options, executor=executor,
                         keep_logs=keep_logs, random_decisions=random_decisions, chunk=chunk,
                         max_pending=max_pending, engine=engine, bot_options=bot_options,
                         chance=chance)
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

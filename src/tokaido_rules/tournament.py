"""Tournaments: bots rated against each other over every line-up, seats rotated.

:func:`plan` works out the games; :func:`play` plays them (on any executor, as a batch
of :mod:`~tokaido_rules.simulate` does) and sums them up; :func:`run_tournament` is both.
The result (:class:`TournamentResult`) gives each bot a rating with its interval
(Plackett-Luce, from ``openskill``: the ``lab`` extra), its win rate with a Wilson
interval, its mean score and margin, and a head-to-head matrix; :func:`to_text`,
:func:`to_document` and :func:`to_csv` format it (``tokaido tournament``)::

    from tokaido_rules.tournament import run_tournament, to_text

    result = run_tournament(["greedy", "random", MyBot], players=3, games=60, seed=1)
    print(to_text(result))

**Line-ups.** With fewer bots than seats, every mix of the bots in which each plays at
least one seat (3 bots at 4 seats: ``aabc``, ``abbc``, ``abcc``); with as many or more,
every combination of distinct bots (4 bots at 3 seats: 4 line-ups). **Groups.** A line-up
is played as a group of one game per seat rotation (at 4 seats, ``aabc``, ``abca``,
``bcaa``, ``caab``), so that every bot sits in every seat as often as its copies allow.
``games`` is the total: it is rounded up to whole groups (said in the result), and the
groups go to the line-ups in turn.

**The same output.** A game's seed is drawn from the tournament seed and the game's
number alone, the games come back in their order whatever the executor, and the ratings
are updated in that order: the same arguments give the same result, serial, on worker
processes or on a Dask cluster.

**The duplicate format** (``duplicate=True``, ``tokaido tournament --duplicate``): every
game of a group has the group's seed and keys its chance by purpose
(:data:`~tokaido_rules.chance.PURPOSE`), so the rotations of a line-up get the same
chance outcomes (the decks' orders, each seat's offers and die rolls): a bot's luck in one
seat is every bot's luck in that seat, and cancels within the group. The games of a group
are then not independent, so the win-rate interval is computed over groups
(:func:`group_interval`), not seats.
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from itertools import combinations, combinations_with_replacement
from typing import Any

from attrs import frozen

from .bots import BotLike, check_bot, check_options
from .chance import EVENT, PURPOSE, random_below
from .errors import SetupError, UnknownBotError
from .render import table
from .ruleset import check_players
from .simulate import (
    MAX_PENDING,
    GameResult,
    GameSpec,
    _results,
    _ruleset,
    check_picklable,
    choose_engine,
    chunk_size,
    wilson_interval,
)

__all__ = [
    "Seating", "Plan", "BotStanding", "TournamentResult", "lineups", "rotations",
    "game_seeds", "group_interval", "plan", "play", "run_tournament", "to_text",
    "to_document", "to_csv", "plot", "RATING_Z",
]

RATING_Z = 1.96
"""Standard deviations either side of a rating in its interval (about 95%)."""


@frozen
class Seating:
    """One game of a tournament: which bot (an index into :attr:`Plan.bots`) sits in
    each seat, its line-up and rotation, its group, and its seed."""

    index: int
    group: int
    """The group (a line-up's run of seat rotations) it belongs to."""
    lineup: int
    """Its line-up: an index into :attr:`Plan.lineups`."""
    rotation: int
    seats: tuple[int, ...]
    seed: int


@frozen
class Plan:
    """The games of a tournament, worked out and checked before any is played."""

    bots: tuple[str, ...]
    """The names of the bots entered, as given (registered names, else
    :func:`~tokaido_rules.bots.bot_name`)."""
    makers: tuple[Any, ...]
    """Per bot, the object, class or factory given instead of a name (``None`` for a
    name)."""
    bot_options: tuple[tuple[tuple[str, Any], ...], ...]
    """Per bot, its options (checked and typed)."""
    players: int
    seed: int
    plugins: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    engine: str
    lineups: tuple[tuple[int, ...], ...]
    """Each line-up: the bots (indices) of its seats, in the order of the first
    rotation."""
    schedule: tuple[Seating, ...]
    asked: int | None
    """The games asked for (``None``: one round, a group for every line-up)."""
    duplicate: bool = False
    """The duplicate format: a group's games share one seed, chance keyed by purpose."""

    @property
    def games(self) -> int:
        return len(self.schedule)

    @property
    def groups(self) -> int:
        return self.games // self.players

    @property
    def note(self) -> str:
        """What the output says of the games: the line-ups, rotations and rounding."""
        said = (f"{self.games} games: {len(self.lineups)} line-up"
                f"{'s' if len(self.lineups) != 1 else ''} x {self.players} seat rotations, "
                f"{self.groups} group{'s' if self.groups != 1 else ''}")
        if self.asked is not None and self.asked != self.games:
            said += (f" (rounded up from {self.asked} to whole groups of {self.players} "
                     "rotations)")
        if self.duplicate:
            said += ("; duplicate format: each group's games share one seed, chance keyed "
                     "by purpose")
        return said


@frozen
class BotStanding:
    """One bot's figures over a tournament."""

    name: str
    rating: float
    """Its Plackett-Luce rating (``mu``)."""
    rating_interval: tuple[float, float]
    """``rating ± RATING_Z * sigma``."""
    games: int
    """Games it played (a game where it held two seats counts once)."""
    seats: int
    """Seats it played (a game where it held two counts twice)."""
    wins: float
    """Seats won: a shared win counts 1/k for each of the k winners."""
    win_rate: float
    """Wins per seat played."""
    win_interval: tuple[float, float]
    """The 95% interval of the win rate: Wilson's over seats
    (:func:`~tokaido_rules.simulate.wilson_interval`); in the duplicate format, over
    groups (:func:`group_interval`), whose games are not independent."""
    mean_score: float
    mean_margin: float
    """The mean of its score minus the best other seat's (negative: behind)."""


@frozen
class TournamentResult:
    """A tournament's figures: the plan, each bot's standing (best rating first) and the
    head-to-head matrix."""

    plan: Plan
    standings: tuple[BotStanding, ...]
    head_to_head: tuple[tuple[float | None, ...], ...]
    """``[i][j]``: the share of the seats of bot ``i`` (in :attr:`Plan.bots` order) that
    finished ahead of a seat of bot ``j`` in the games where both played (a tie counts
    half); ``None`` where they never met (and on the diagonal)."""
    meetings: tuple[tuple[int, ...], ...]
    """``[i][j]``: how many pairs of seats of bots ``i`` and ``j`` the share is over."""
    results: tuple[GameResult, ...]
    """Every game's result, in schedule order."""


# --- the schedule ---------------------------------------------------------------------


def lineups(bots: int, players: int) -> list[tuple[int, ...]]:
    """The line-ups of ``bots`` bots at ``players`` seats, as sorted tuples of bot
    indices: with fewer bots than seats, every multiset in which each bot appears at
    least once; else every combination of distinct bots."""
    if bots < 1:
        raise SetupError("a tournament needs bots")
    if bots < players:
        return [c for c in combinations_with_replacement(range(bots), players)
                if len(set(c)) == bots]
    return list(combinations(range(bots), players))


def rotations(lineup: Sequence[int]) -> list[tuple[int, ...]]:
    """The seat rotations of a line-up: seat ``s`` of rotation ``r`` gets the bot of
    seat ``(s + r) % n`` of the first."""
    n = len(lineup)
    return [tuple(lineup[(s + r) % n] for s in range(n)) for r in range(n)]


def game_seeds(seed: int, schedule: Iterable[tuple[int, int, int]],
               duplicate: bool = False) -> list[int]:
    """The seed of each game ``(index, group, rotation)``: drawn from the tournament
    seed and the game's index alone; in the duplicate format, from the group alone, the
    same for every rotation of the group. The one place a game gets its seed."""
    seed &= (1 << 64) - 1
    if duplicate:
        return [random_below(seed, group, 13, 2**63) for _index, group, _rot in schedule]
    return [random_below(seed, index, 11, 2**63) for index, _group, _rotation in schedule]


def group_interval(shares: Sequence[tuple[float, int]], z: float = 1.96,
                   ) -> tuple[float, float]:
    """The interval of a win rate summed over groups, each ``(wins, seats)`` of one
    group, taking the group as the unit (its games share their chance, so they are not
    independent): a Wilson interval (:func:`~tokaido_rules.simulate.wilson_interval`'s
    formula) of the rate ``sum(wins) / sum(seats)`` over an *effective* number of seats,
    the seats divided by the design effect (the variance of the ratio estimated from the
    groups' deviations ``wins - rate * seats``, over the binomial variance), at most the
    seats. Where that cannot be estimated (a rate of 0 or 1) the effective number is the
    number of groups, one observation each; with fewer than two groups nothing is known
    of the spread: ``(0, 1)``."""
    used = [(w, n) for w, n in shares if n > 0]
    g = len(used)
    if g < 2:
        return (0.0, 1.0)
    seats = sum(n for _, n in used)
    rate = sum(w for w, _ in used) / seats
    mean_seats = seats / g
    spread = sum(((w - rate * n) / mean_seats) ** 2 for w, n in used) / (g * (g - 1))
    binomial = rate * (1 - rate) / seats
    if binomial <= 0:
        effective = float(g)
    elif spread <= 0:
        effective = float(seats)
    else:
        effective = min(float(seats), seats * binomial / spread)
    zz = z * z / effective
    centre = (rate + zz / 2) / (1 + zz)
    half = z / (1 + zz) * math.sqrt(rate * (1 - rate) / effective + zz / (4 * effective))
    return (max(0.0, centre - half), min(1.0, centre + half))


def plan(bots: Sequence[BotLike], players: int = 4, games: int | None = None,
         seed: int = 0, plugins: Iterable[str] = ("base",),
         options: Mapping[str, object] | None = None,
         bot_options: Mapping[str, Mapping[str, object]] | None = None, *,
         engine: str = "reference", duplicate: bool = False) -> Plan:
    """The games of a tournament of ``bots`` (two or more, distinct names: registered
    names, bot objects, classes or factories) at ``players`` seats, checked before any
    game is played: a bad bot, option, ruleset or count raises
    :class:`~tokaido_rules.SetupError` (:class:`~tokaido_rules.UnknownBotError` for a
    bot). ``games``: the total, rounded up to whole groups (``None``: a group per
    line-up); ``engine``: as :func:`~tokaido_rules.simulate.choose_engine`;
    ``duplicate``: the duplicate format (a group's games share one seed, chance keyed by
    purpose)."""
    if isinstance(bots, str) or len(bots) < 2:
        raise SetupError("a tournament needs at least two bots")
    names = tuple(check_bot(b) for b in bots)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SetupError(f"bot(s) entered twice: {', '.join(twice)} (each bot once; a bot "
                         "plays several seats when there are fewer bots than seats)")
    check_players(players)
    given = {str(k): dict(v) for k, v in (bot_options or {}).items()}
    stray = sorted(set(given) - set(names))
    if stray:
        raise UnknownBotError(f"options for bot(s) not entered: {', '.join(stray)}", stray[0])
    typed = tuple(tuple(sorted(check_options(b, given.get(n)).items()))
                  for n, b in zip(names, bots, strict=True))
    if games is not None and (isinstance(games, bool) or not isinstance(games, int)
                              or games < 1):
        raise SetupError(f"games must be a positive number, got {games!r}")
    plugin_ids = tuple(plugins)
    frozen_options = tuple(sorted((options or {}).items()))
    ruleset = _ruleset(plugin_ids, frozen_options)
    makers = tuple(None if isinstance(b, str) else b for b in bots)
    chosen = choose_engine(engine, ruleset, [m if m is not None else n
                                             for n, m in zip(names, makers, strict=True)],
                           players)
    _rating_model()  # openskill is there, before any game
    ups = lineups(len(names), players)
    groups = len(ups) if games is None else -(-games // players)
    order = [(g * players + r, g, r) for g in range(groups) for r in range(players)]
    seeds = game_seeds(seed, order, bool(duplicate))
    turns = [rotations(ups[g % len(ups)]) for g in range(min(groups, len(ups)))]
    schedule = tuple(Seating(index, group, group % len(ups), rotation,
                             turns[group % len(ups)][rotation], game_seed)
                     for (index, group, rotation), game_seed in zip(order, seeds, strict=True))
    return Plan(names, makers, typed, players, seed, plugin_ids, frozen_options, chosen,
                tuple(ups), schedule, games, bool(duplicate))


# --- playing and rating -----------------------------------------------------------------


def _rating_model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise SetupError("tournament ratings need openskill: pip install "
                         "'tokaido-rules[lab]' (or '.[lab]' in a clone)") from None
    return PlackettLuce()


def specs(plan: Plan) -> list[GameSpec]:
    """The games of ``plan`` as batch specs (:class:`~tokaido_rules.simulate.GameSpec`)."""
    out = []
    any_maker = any(m is not None for m in plan.makers)
    any_option = any(plan.bot_options)
    for seating in plan.schedule:
        seats = seating.seats
        out.append(GameSpec(
            plan.players, seating.seed, plan.plugins, plan.options,
            tuple(plan.bots[b] for b in seats), False, (), plan.engine,
            tuple(plan.makers[b] for b in seats) if any_maker else (),
            tuple(plan.bot_options[b] for b in seats) if any_option else (),
            PURPOSE if plan.duplicate else EVENT))
    return out


def play(plan: Plan, *, executor: Executor | None = None,
         progress: Callable[[int], None] | None = None,
         max_pending: int = MAX_PENDING) -> TournamentResult:
    """Play the games of ``plan`` (on ``executor`` if given: bots given as objects,
    classes or factories must then pickle) and sum them up. ``progress(n)`` is called
    with the number of games finished. A bot that fails raises
    :class:`~tokaido_rules.BotError` naming it."""
    if executor is not None and not isinstance(executor, ThreadPoolExecutor):
        check_picklable(plan.makers)
    batch = specs(plan)
    results: list[GameResult] = []
    for result in _results(iter(batch), executor, chunk_size(len(batch)), max_pending):
        results.append(result)
        if progress is not None:
            progress(len(results))
    return _sum_up(plan, results)


def run_tournament(bots: Sequence[BotLike], players: int = 4, games: int | None = None,
                   seed: int = 0, plugins: Iterable[str] = ("base",),
                   options: Mapping[str, object] | None = None,
                   bot_options: Mapping[str, Mapping[str, object]] | None = None, *,
                   engine: str = "reference", executor: Executor | None = None,
                   progress: Callable[[int], None] | None = None,
                   duplicate: bool = False) -> TournamentResult:
    """:func:`plan` and :func:`play`: the tournament's result, the same whatever the
    executor."""
    return play(plan(bots, players, games, seed, plugins, options, bot_options,
                     engine=engine, duplicate=duplicate), executor=executor,
                progress=progress)


def _sum_up(plan: Plan, results: Sequence[GameResult]) -> TournamentResult:
    model = _rating_model()
    index = {name: i for i, name in enumerate(plan.bots)}
    k = len(plan.bots)
    ratings = [model.rating() for _ in range(k)]
    seats = [0] * k
    games = [0] * k
    wins = [0.0] * k
    scores = [0] * k
    margins = [0.0] * k
    ahead = [[0.0] * k for _ in range(k)]
    met = [[0] * k for _ in range(k)]
    by_group: list[list[tuple[float, int]]] = [[] for _ in range(k)]
    """Per bot, its (wins, seats) in each group it played (the duplicate format)."""
    for number, result in enumerate(results):
        who = [index[s.bot] for s in result.seats]
        if plan.duplicate:
            if number % plan.players == 0:
                for b in range(k):
                    by_group[b].append((0.0, 0))
            for n, s in enumerate(result.seats):
                w, c = by_group[who[n]][-1]
                by_group[who[n]][-1] = (w + s.win, c + 1)
        for b in set(who):
            games[b] += 1
        totals = [s.score for s in result.seats]
        for n, s in enumerate(result.seats):
            b = who[n]
            seats[b] += 1
            wins[b] += s.win
            scores[b] += s.score
            margins[b] += s.score - max(t for m, t in enumerate(totals) if m != n)
            for m, other in enumerate(result.seats):
                c = who[m]
                if m == n or c == b:
                    continue
                met[b][c] += 1
                ahead[b][c] += 1.0 if s.rank < other.rank else 0.5 if s.rank == other.rank else 0.0
        _rate(model, ratings, who, [s.rank for s in result.seats])
    standings = []
    for b, name in enumerate(plan.bots):
        mu, sigma = float(ratings[b].mu), float(ratings[b].sigma)
        n = seats[b]
        standings.append(BotStanding(
            name, mu, (mu - RATING_Z * sigma, mu + RATING_Z * sigma), games[b], n,
            wins[b], wins[b] / n if n else 0.0,
            (group_interval(by_group[b]) if plan.duplicate
             else wilson_interval(min(wins[b], n), n) if n else (0.0, 1.0)),
            scores[b] / n if n else 0.0, margins[b] / n if n else 0.0))
    standings.sort(key=lambda s: (-s.rating, s.name))
    h2h = tuple(tuple(None if b == c or not met[b][c] else ahead[b][c] / met[b][c]
                      for c in range(k)) for b in range(k))
    return TournamentResult(plan, tuple(standings), h2h,
                            tuple(tuple(row) for row in met), tuple(results))


def _rate(model: Any, ratings: list[Any], who: Sequence[int], ranks: Sequence[int]) -> None:
    """Update the ratings from one game: every seat a team of one. A bot at several
    seats is rated at each as a copy of itself; its rating moves by the sum of the
    copies' moves, and its variance shrinks by the product of theirs (as if the seats
    were rated one after the other)."""
    teams = [[model.rating(mu=ratings[b].mu, sigma=ratings[b].sigma)] for b in who]
    rated = model.rate(teams, ranks=list(ranks))
    moved: dict[int, tuple[float, float]] = {}
    for b, team in zip(who, rated, strict=True):
        old = ratings[b]
        mu, shrink = moved.get(b, (0.0, 1.0))
        moved[b] = (mu + team[0].mu - old.mu, shrink * (team[0].sigma / old.sigma) ** 2)
    for b, (delta, shrink) in moved.items():
        old = ratings[b]
        ratings[b] = model.rating(mu=old.mu + delta, sigma=old.sigma * math.sqrt(shrink))


# --- output -----------------------------------------------------------------------------


def _header(result: TournamentResult) -> list[str]:
    p = result.plan
    return [f"Tournament: {len(p.bots)} bots ({', '.join(p.bots)}), {p.players} players, "
            f"plugins {','.join(p.plugins)}"
            + (f" ({', '.join(f'{k}={v}' for k, v in p.options)})" if p.options else "")
            + f", seed {p.seed}, {p.engine} engine",
            p.note]


def to_text(result: TournamentResult, width: int = 100) -> str:
    """The tournament as plain text: the games, a row per bot (best rating first) and
    the head-to-head matrix. The same result, the same text."""
    lines = _header(result)
    options = [f"{b}: " + ", ".join(f"{k}={v}" for k, v in o)
               for b, o in zip(result.plan.bots, result.plan.bot_options, strict=True) if o]
    if options:
        lines.append("bot options: " + "; ".join(options))
    rows = [[s.name, f"{s.rating:.2f}", f"{(s.rating_interval[1] - s.rating):.2f}",
             f"{s.win_rate:.3f}", f"{s.win_interval[0]:.3f}-{s.win_interval[1]:.3f}",
             f"{s.mean_score:.1f}", f"{s.mean_margin:+.1f}", str(s.games)]
            for s in result.standings]
    lines += ["", table(["bot", "rating", "±95%", "win rate", "95% interval", "mean score",
                         "margin", "games"], rows, width=width)]
    names = [s.name for s in result.standings]
    order = [result.plan.bots.index(n) for n in names]
    grid = [[names[r]] + ["-" if result.head_to_head[b][c] is None
                          else f"{result.head_to_head[b][c]:.3f}" for c in order]
            for r, b in enumerate(order)]
    lines += ["", "Head to head: the share of the row's seats that finished ahead of the "
              "column's (ties count half)", table(["", *names], grid, width=width)]
    if result.plan.duplicate:
        lines += ["", "Rating: Plackett-Luce (openskill), mean ± 1.96 sigma (the model "
                  "counts each game as independent, which a group's games are not); win "
                  "rate: seats won (a shared win split), 95% interval over groups (a "
                  "group's games share their chance); margin: score minus the best other "
                  "seat's."]
    else:
        lines += ["", "Rating: Plackett-Luce (openskill), mean ± 1.96 sigma; win rate: "
                  "seats won (a shared win split), Wilson 95% interval; margin: score "
                  "minus the best other seat's."]
    out: list[str] = []
    for line in lines:  # the tables fit already; the sentences are wrapped
        out += [line] if not line or line.startswith(("-", " ")) or "  " in line else (
            textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return "\n".join(out) + "\n"


def to_document(result: TournamentResult) -> dict[str, Any]:
    """The tournament as a JSON-ready document: the plan, the standings, the matrix."""
    p = result.plan
    return {
        "bots": list(p.bots),
        "players": p.players, "seed": str(p.seed), "plugins": list(p.plugins),
        "options": dict(p.options), "engine": p.engine,
        "bot_options": {b: dict(o) for b, o in zip(p.bots, p.bot_options, strict=True) if o},
        "games": p.games, "games_asked": p.asked, "groups": p.groups,
        "duplicate": p.duplicate,
        "lineups": [[p.bots[b] for b in up] for up in p.lineups],
        "note": p.note,
        "standings": [{"bot": s.name, "rating": s.rating,
                       "rating_interval": list(s.rating_interval), "games": s.games,
                       "seats": s.seats, "wins": s.wins, "win_rate": s.win_rate,
                       "win_interval": list(s.win_interval), "mean_score": s.mean_score,
                       "mean_margin": s.mean_margin} for s in result.standings],
        "head_to_head": {b: {c: result.head_to_head[i][j]
                             for j, c in enumerate(p.bots) if j != i}
                         for i, b in enumerate(p.bots)},
        "meetings": {b: {c: result.meetings[i][j] for j, c in enumerate(p.bots) if j != i}
                     for i, b in enumerate(p.bots)},
    }


def to_csv(result: TournamentResult) -> str:
    """The standings as CSV: a row per bot (best rating first), its figures, then its
    head-to-head share against each bot (``vs_NAME``; empty where they never met)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    bots = result.plan.bots
    writer.writerow(["bot", "rating", "rating_low", "rating_high", "games", "seats", "wins",
                     "win_rate", "win_low", "win_high", "mean_score", "mean_margin",
                     *[f"vs_{b}" for b in bots], "duplicate"])
    for s in result.standings:
        i = bots.index(s.name)
        writer.writerow([s.name, f"{s.rating:.4f}", f"{s.rating_interval[0]:.4f}",
                         f"{s.rating_interval[1]:.4f}", s.games, s.seats, f"{s.wins:.4f}",
                         f"{s.win_rate:.4f}", f"{s.win_interval[0]:.4f}",
                         f"{s.win_interval[1]:.4f}", f"{s.mean_score:.4f}",
                         f"{s.mean_margin:.4f}",
                         *["" if v is None else f"{v:.4f}" for v in result.head_to_head[i]],
                         "true" if result.plan.duplicate else "false"])
    return out.getvalue()


def plot(result: TournamentResult, path: str) -> None:
    """Draw the ratings with their intervals, and the win rates with theirs, into an
    image file (the ``plot`` extra: matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(result.standings))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 1.2 + 0.5 * len(rows)))
    ys = list(range(len(rows)))
    left.errorbar([s.rating for s in rows], ys, fmt="o",
                  xerr=[[s.rating - s.rating_interval[0] for s in rows],
                        [s.rating_interval[1] - s.rating for s in rows]])
    left.set_yticks(ys, [s.name for s in rows])
    left.set_xlabel("rating (Plackett-Luce), 95% interval")
    right.errorbar([s.win_rate for s in rows], ys, fmt="o",
                   xerr=[[s.win_rate - s.win_interval[0] for s in rows],
                         [s.win_interval[1] - s.win_rate for s in rows]])
    right.set_yticks(ys, [s.name for s in rows])
    right.set_xlabel("win rate, 95% Wilson interval")
    fig.suptitle(result.plan.note)
    fig.tight_layout()
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)

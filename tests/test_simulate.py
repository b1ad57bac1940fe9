"""Batch simulation (tokaido_rules.simulate) and ``tokaido simulate --games``: the same
results on any executor, per-game seeds, a consistent summary, and the command line's
text, JSON, CSV, logs, plot, Dask and errors."""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import sys
from collections import Counter, defaultdict
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import numpy
import pytest

from tokaido_rules import Ruleset, SetupError, TokaidoError, load_log, verify_log
from tokaido_rules.cli import _box_stats, log_name, main
from tokaido_rules.simulate import (
    CHUNK_GAMES,
    Batch,
    GameResult,
    GameSpec,
    Summary,
    choose_engine,
    chunk_size,
    fast_bot,
    game_seed,
    play_game,
    play_games,
    simulate,
    specs,
    summarize,
    tune_jit,
    wilson_interval,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BOTS = ("greedy", "random")


def outcome(batch: Batch) -> list[tuple[int, int, int, Any]]:
    """What must not depend on the executor: index, seed, decisions and seat results."""
    return [(r.index, r.seed, r.decisions, r.seats) for r in batch.results]


def figures(summary: Summary) -> dict[str, Any]:
    """A summary without its timings."""
    return {k: v for k, v in attrs.asdict(summary).items()
            if k not in ("seconds", "games_per_second")}


@pytest.fixture(scope="module")
def reference() -> Batch:
    """Six 3-player games, greedy and random bots, played in this process."""
    return simulate(6, 3, ("base",), BOTS, seed=11)


# --- executors and seeds ---------------------------------------------------------------


def test_thread_pool_gives_the_same_results(reference: Batch) -> None:
    """A ThreadPoolExecutor gives exactly the results of a run without executor."""
    with ThreadPoolExecutor(2) as pool:
        batch = simulate(6, 3, ("base",), BOTS, seed=11, executor=pool)
    assert outcome(batch) == outcome(reference)
    assert batch.results == reference.results


def test_process_pool_gives_the_same_results(reference: Batch) -> None:
    """A ProcessPoolExecutor(2) gives exactly the results of a run without executor."""
    with ProcessPoolExecutor(2) as pool:
        batch = simulate(6, 3, ("base",), BOTS, seed=11, executor=pool)
    assert outcome(batch) == outcome(reference)
    assert batch.results == reference.results


def test_results_are_in_index_order_and_progress_counts(reference: Batch) -> None:
    """Results come sorted by index and progress(n) is called once per finished game."""
    seen: list[int] = []
    with ThreadPoolExecutor(3) as pool:
        batch = simulate(6, 3, ("base",), BOTS, seed=11, executor=pool, progress=seen.append)
    assert [r.index for r in batch.results] == list(range(6))
    assert seen == [1, 2, 3, 4, 5, 6]
    seen.clear()
    simulate(2, 2, seed=1, progress=seen.append)
    assert seen == [1, 2]


def test_game_seeds_depend_only_on_batch_seed_and_index(reference: Batch) -> None:
    """Game i's seed is game_seed(seed, i), whatever the batch size, players or bots."""
    seeds = [r.seed for r in reference.results]
    assert seeds == [game_seed(11, i) for i in range(6)]
    assert len(set(seeds)) == 6
    other = specs(9, 4, ("base", "crossroads"), ("random",), seed=11)
    assert [s.seed for s in other[:6]] == seeds
    assert [s.seed for s in specs(3, 2, seed=12)] != seeds[:3]
    assert all(s.bots == ("random",) * 4 for s in other)


def test_a_prefix_of_a_batch_is_the_smaller_batch(reference: Batch) -> None:
    """A batch's first games equal a smaller batch's, and each replays alone from its spec."""
    small = simulate(2, 3, ("base",), BOTS, seed=11)
    assert small.results == reference.results[:2]
    spec = specs(6, 3, ("base",), BOTS, seed=11)[4]
    assert play_game(spec, 4) == reference.results[4]


def test_keep_logs_records_loadable_logs() -> None:
    """keep_logs=True attaches a full log per game that loads to the finished game."""
    batch = simulate(2, 2, ("base", "crossroads"), BOTS, seed=4, keep_logs=True)
    for r in batch.results:
        assert r.log is not None
        game = load_log(r.log)
        assert game.is_over and game.seed == r.seed
        assert len(game.events) == r.events
        assert [s.total for s in game.scores()] == [s.score for s in r.seats]
    assert all(r.log is None for r in simulate(1, 2, seed=4).results)


def test_spec_and_result_are_plain_data() -> None:
    """GameSpec cycles the bots over the seats; a result has one entry per seat."""
    (spec,) = specs(1, 4, ("base",), BOTS, seed=3)
    assert spec == GameSpec(4, game_seed(3, 0), ("base",), (), BOTS * 2, False)
    result = play_game(spec)
    assert isinstance(result, GameResult)
    assert [s.seat for s in result.seats] == [0, 1, 2, 3]
    assert [s.bot for s in result.seats] == list(BOTS * 2)


# --- the summary ---------------------------------------------------------------------


def test_summary_is_consistent_with_the_results(reference: Batch) -> None:
    """The summary's rates, means and decisions per game follow from the results."""
    results, summary = reference.results, reference.summary
    rows = [s for r in results for s in r.seats]
    assert summary.games == len(results) == 6
    assert summary.decisions_per_game == pytest.approx(
        sum(r.decisions for r in results) / 6)
    assert summary.decisions_per_game > 20
    for r in results:
        assert sum(s.win for s in r.seats) == pytest.approx(1)
        assert {s.rank for s in r.seats if s.win > 0} == {1}
        for s in r.seats:
            assert s.score == sum(s.categories.values())
    assert sum(summary.win_rate_by_seat.values()) == pytest.approx(1)
    by_seat: dict[int, list[float]] = defaultdict(list)
    for s in rows:
        by_seat[s.seat].append(s.win)
    assert summary.win_rate_by_seat == pytest.approx(
        {k: sum(v) / len(v) for k, v in by_seat.items()})
    assert summary.mean_score_by_seat == pytest.approx(
        {k: sum(s.score for s in rows if s.seat == k) / 6 for k in range(3)})
    assert sum(summary.games_by_traveller.values()) == len(rows)
    assert sum(summary.win_rate_by_traveller[t] * n
               for t, n in summary.games_by_traveller.items()) == pytest.approx(6)
    bot_rows = {b: [s for s in rows if s.bot == b] for b in BOTS}
    assert summary.win_rate_by_bot == pytest.approx(
        {b: sum(s.win for s in v) / len(v) for b, v in bot_rows.items()})
    categories = {c for s in rows for c in s.categories}
    assert set(summary.mean_points_by_category) == categories
    for c in categories:
        assert summary.mean_points_by_category[c] == pytest.approx(
            sum(s.categories[c] for s in rows) / len(rows))
    assert sum(summary.mean_points_by_category.values()) == pytest.approx(
        sum(s.score for s in rows) / len(rows))
    assert summary.seconds > 0 and summary.games_per_second > 0


def test_score_distribution_by_traveller_matches_the_results(reference: Batch) -> None:
    """score_counts_by_traveller counts every final score of every traveller; its means
    are the mean scores."""
    summary = reference.summary
    expected: dict[str, Counter[int]] = defaultdict(Counter)
    for r in reference.results:
        for s in r.seats:
            expected[s.traveller or "-"][s.score] += 1
    assert summary.score_counts_by_traveller == {t: dict(c) for t, c in expected.items()}
    for t, counts in summary.score_counts_by_traveller.items():
        assert list(counts) == sorted(counts)
        assert sum(counts.values()) == summary.games_by_traveller[t]
        assert sum(v * n for v, n in counts.items()) / sum(counts.values()) == pytest.approx(
            summary.mean_score_by_traveller[t])


def test_margins_are_95_percent_normal_intervals(reference: Batch) -> None:
    """Each margin is 1.96 standard errors of its row's mean (sample standard
    deviation); a row of one player has none."""
    summary = reference.summary
    rows = [s for r in reference.results for s in r.seats]
    for seat in range(3):
        wins = [s.win for s in rows if s.seat == seat]
        scores = [s.score for s in rows if s.seat == seat]
        assert summary.win_rate_margin_by_seat[seat] == pytest.approx(
            1.96 * statistics.stdev(wins) / math.sqrt(len(wins)))
        assert summary.mean_score_margin_by_seat[seat] == pytest.approx(
            1.96 * statistics.stdev(scores) / math.sqrt(len(scores)))
    for traveller, n in summary.games_by_traveller.items():
        scores = [s.score for s in rows if s.traveller == traveller]
        if n == 1:
            assert traveller not in summary.mean_score_margin_by_traveller
            assert traveller not in summary.win_rate_margin_by_traveller
        else:
            assert summary.mean_score_margin_by_traveller[traveller] == pytest.approx(
                1.96 * statistics.stdev(scores) / math.sqrt(n))
    assert 1 in summary.games_by_traveller.values()  # the case of a single player is seen


@pytest.mark.parametrize(("successes", "trials", "confidence", "expected"), [
    (0, 10, 0.95, (0.0, 0.2775)),
    (5, 10, 0.95, (0.2366, 0.7634)),
    (10, 10, 0.95, (0.7225, 1.0)),
    (50, 100, 0.95, (0.4038, 0.5962)),
    (81, 263, 0.95, (0.2553, 0.3662)),
    (15, 148, 0.95, (0.0624, 0.1605)),
    (0, 20, 0.95, (0.0, 0.1611)),
    (1, 29, 0.95, (0.0061, 0.1718)),
    (0, 10, 0.99, (0.0, 0.3989)),
])
def test_wilson_interval_known_values(successes: int, trials: int, confidence: float,
                                      expected: tuple[float, float]) -> None:
    """The Wilson score interval matches known values to 4 places: 0, 5 and 10 of 10
    and 50 of 100 at 95%; Newcombe's (1998) examples for his method 3 (81/263, 15/148,
    0/20, 1/29); 0 of 10 at 99% (upper bound z²/(n + z²), z = 2.5758). It stays inside
    [0, 1], is not empty at 0 or all successes, and widens with the confidence."""
    assert wilson_interval(successes, trials, confidence) == pytest.approx(expected,
                                                                           abs=1e-4)


def test_wilson_interval_refuses_what_is_not_a_rate() -> None:
    """No trials, more successes than trials, or a confidence outside (0, 1) is a
    ValueError, not a number."""
    for args in [(0, 0, 0.95), (3, 2, 0.95), (-1, 5, 0.95), (1, 5, 1.0), (1, 5, 0.0)]:
        with pytest.raises(ValueError, match="must be"):
            wilson_interval(*args)


def test_win_rate_intervals_are_wilson_intervals_of_every_row(reference: Batch) -> None:
    """Each win rate of a batch (by seat, by traveller, by bot) comes with the 95% Wilson
    interval of its wins (a shared win counting 1/k) over its games, holding the rate;
    a traveller seen once has one too."""
    summary = reference.summary
    rows = [s for r in reference.results for s in r.seats]
    groups: list[tuple[dict[Any, float], dict[Any, tuple[float, float]], Any]] = [
        (summary.win_rate_by_seat, summary.win_rate_interval_by_seat, lambda s: s.seat),
        (summary.win_rate_by_traveller, summary.win_rate_interval_by_traveller,
         lambda s: s.traveller or "-"),
        (summary.win_rate_by_bot, summary.win_rate_interval_by_bot, lambda s: s.bot),
    ]
    for rates, intervals, key in groups:
        assert set(intervals) == set(rates)
        for k, (low, high) in intervals.items():
            mine = [s.win for s in rows if key(s) == k]
            assert (low, high) == pytest.approx(wilson_interval(sum(mine), len(mine)))
            assert 0 <= low <= rates[k] <= high <= 1
    assert 1 in summary.games_by_traveller.values()


def test_summarize_adds_up_like_the_batch(reference: Batch) -> None:
    """summarize (a Tally over finished results) gives the batch's own figures."""
    assert figures(summarize(reference.results, 1.0)) == figures(reference.summary)


# --- big batches ---------------------------------------------------------------------


@pytest.mark.parametrize(("pool", "chunk", "pending"),
                         [("thread", 1, 1), ("thread", 4, 1), ("thread", 3, 2),
                          ("thread", 16, 256), ("process", 4, 2)])
def test_chunks_and_queue_bound_do_not_change_anything(reference: Batch, pool: str, chunk: int,
                                                       pending: int) -> None:
    """Games sent to the executor in chunks of any size, with any bound on the tasks
    queued, give exactly the results and figures of a run without executor."""
    executor: Executor = ThreadPoolExecutor(2) if pool == "thread" else ProcessPoolExecutor(2)
    with executor:
        batch = simulate(6, 3, ("base",), BOTS, seed=11, executor=executor, chunk=chunk,
                         max_pending=pending)
    assert batch.results == reference.results
    assert figures(batch.summary) == figures(reference.summary)


def test_keep_results_false_keeps_only_the_summary(reference: Batch) -> None:
    """keep_results=False returns no results and the same summary."""
    batch = simulate(6, 3, ("base",), BOTS, seed=11, keep_results=False)
    assert batch.results == ()
    assert figures(batch.summary) == figures(reference.summary)


class CountingPool(ThreadPoolExecutor):
    """A thread pool that counts the tasks submitted to it."""

    submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def test_play_games_streams_in_order_and_queues_a_bounded_number(reference: Batch) -> None:
    """play_games yields results in index order while keeping at most max_pending tasks
    queued; closing it early leaves the rest of the batch unplayed."""
    with CountingPool(2) as pool:
        results = play_games(60, 3, ("base",), BOTS, seed=11, executor=pool, chunk=1,
                             max_pending=2)
        assert pool.submitted == 0  # nothing runs before the first result is asked for
        first = next(results)
        assert first == reference.results[0]
        assert pool.submitted == 2
        results.close()
    assert pool.submitted == 2
    streamed = list(play_games(6, 3, ("base",), BOTS, seed=11))
    assert streamed == list(reference.results)


def test_chunk_size_grows_with_the_batch() -> None:
    """One game per task for small batches (slow bots spread evenly), up to CHUNK_GAMES."""
    assert chunk_size(1) == chunk_size(200) == 1
    assert chunk_size(1000) == 3
    assert chunk_size(10**6) == CHUNK_GAMES == 16


# --- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bots": ("nope",)},
        {"bots": ("greedy", "nope")},
        {"bots": ()},
        {"games": 0},
        {"games": -3},
        {"plugins": ("base", "nope")},
        {"plugins": ("crossroads",)},
        {"options": {"base.nope": "1"}},
        {"players": 7},
        {"random_decisions": ("base.nap",)},
        {"random_decisions": ("base.inn_close",)},  # a step, but not a decision
        {"chunk": 0},
        {"max_pending": 0},
    ],
    ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()),
)
def test_bad_input_raises_a_tokaido_error(kwargs: dict[str, Any]) -> None:
    """Unknown bots or plugins, no games, bad options or players raise a TokaidoError."""
    args: dict[str, Any] = {"games": 1, "players": 2, **kwargs}
    with pytest.raises(TokaidoError):
        simulate(**args)


def test_random_decisions_deal_travellers_by_chance() -> None:
    """Greedy bots take the richer of their two traveller tiles, so never Satsuki (2
    coins, the poorest); with that decision taken by chance she is dealt like any other
    tile, and the batch stays reproducible whatever the executor."""
    by_bots = simulate(20, 4, bots=("greedy",), seed=5).summary.games_by_traveller
    assert "satsuki" not in by_bots
    dealt = simulate(20, 4, bots=("greedy",), seed=5,
                     random_decisions=("base.choose_traveller",))
    assert dealt.summary.games_by_traveller["satsuki"] >= 3
    with ThreadPoolExecutor(2) as pool:
        again = simulate(6, 4, bots=("greedy",), seed=5, executor=pool,
                         random_decisions=("base.choose_traveller",))
    assert [r.seats for r in again.results] == [r.seats for r in dealt.results[:6]]


def test_cli_random_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    """--random-decisions is said under the headline, and a single game takes it too."""
    argv = ["simulate", "--bots", "greedy", "--random-decisions", "base.choose_traveller"]
    assert main([*argv, "--games", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "taken at random: base.choose_traveller"
    assert main(argv) == 0
    assert "Winner" in capsys.readouterr().out


def test_bad_bot_fails_before_any_game() -> None:
    """An unknown bot is a SetupError raised before the executor is used."""
    with ThreadPoolExecutor(1) as pool:
        pool.shutdown()
        with pytest.raises(SetupError, match="unknown bot"):
            simulate(2, 2, bots=("random", "nope"), executor=pool)


# --- the command line ----------------------------------------------------------------


def tables(text: str) -> dict[str, list[list[str]]]:
    """The tables of the summary, by their header line, rows split on 2+ spaces."""
    blocks = [b.splitlines() for b in text.strip().split("\n\n")]
    out: dict[str, list[list[str]]] = {}
    for block in blocks:
        if len(block) >= 2 and set(block[1].replace(" ", "")) == {"-"}:
            header = " ".join(block[0].split())
            out[header] = [[c for c in line.split("  ") if c.strip()] for line in block[2:]]
            out[header] = [[c.strip() for c in row] for row in out[header]]
    return out


def test_cli_batch_prints_the_summary_tables(capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --games prints the headline and summary tables with the library's numbers,
    travellers and categories by their display names, each win rate with its 95% Wilson
    interval (low-high)."""
    assert main(["simulate", "--games", "6", "--bots", "greedy,random"]) == 0
    out = capsys.readouterr().out
    first, second = out.splitlines()[:2]
    assert first == "6 games of 4 players, plugins base, bots greedy,random, seed 0"
    assert "games per second" in second
    decisions = float(second.split(", ")[1].split()[0])
    summary = simulate(6, 4, ("base",), BOTS, seed=0).summary
    assert decisions == pytest.approx(summary.decisions_per_game, abs=0.05)
    found = tables(out)
    seat_table = "seat win rate 95% interval mean score ±95%"
    traveller_table = "traveller games win rate 95% interval mean score ±95%"
    bot_table = "bot win rate 95% interval"
    assert set(found) == {seat_table, traveller_table, bot_table, "category mean points"}
    seats = found[seat_table]
    assert [int(r[0]) for r in seats] == [0, 1, 2, 3]
    assert sum(float(r[1]) for r in seats) == pytest.approx(1, abs=0.005)
    for row in seats:
        assert float(row[1]) == pytest.approx(summary.win_rate_by_seat[int(row[0])], abs=5e-4)
        low, high = map(float, row[2].split("-"))
        assert (low, high) == pytest.approx(summary.win_rate_interval_by_seat[int(row[0])],
                                            abs=5e-4)
        assert low <= float(row[1]) <= high
        assert float(row[3]) == pytest.approx(summary.mean_score_by_seat[int(row[0])], abs=0.05)
        assert float(row[4]) == pytest.approx(summary.mean_score_margin_by_seat[int(row[0])],
                                              abs=0.05)
    travellers = found[traveller_table]
    assert sum(int(r[1]) for r in travellers) == 24
    registry = Ruleset.build(["base"]).registry
    assert {r[0]: int(r[1]) for r in travellers} == {
        registry.traveller_name(t): n for t, n in summary.games_by_traveller.items()}
    names = {registry.traveller_name(t): t for t in summary.games_by_traveller}
    for row in travellers:  # a traveller seen once has an interval too (Wilson's)
        assert tuple(map(float, row[3].split("-"))) == pytest.approx(
            summary.win_rate_interval_by_traveller[names[row[0]]], abs=5e-4)
    bots = {r[0]: float(r[1]) for r in found[bot_table]}
    assert bots == pytest.approx(summary.win_rate_by_bot, abs=5e-4)
    for row in found[bot_table]:
        assert tuple(map(float, row[2].split("-"))) == pytest.approx(
            summary.win_rate_interval_by_bot[row[0]], abs=5e-4)
    categories = {r[0]: float(r[1]) for r in found["category mean points"]}
    assert categories == pytest.approx({registry.category_label(c): v for c, v in
                                        summary.mean_points_by_category.items()},
                                       abs=0.0051)  # 2 places
    assert "Temple donations" in categories


def test_cli_batch_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json prints one document: the summary and every game with its players."""
    assert main(["simulate", "--games", "3", "--players", "2", "--bots", "greedy,random",
                 "--seed", "5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"summary", "games"}
    assert doc["summary"]["games"] == 3
    assert sum(doc["summary"]["win_rate_by_seat"].values()) == pytest.approx(1)
    batch = simulate(3, 2, ("base",), BOTS, seed=5)
    assert [g["seed"] for g in doc["games"]] == [str(r.seed) for r in batch.results]
    assert [g["index"] for g in doc["games"]] == [0, 1, 2]
    for game, result in zip(doc["games"], batch.results, strict=True):
        assert game["decisions"] == result.decisions and game["events"] == result.events
        assert [(p["seat"], p["bot"], p["score"], p["rank"]) for p in game["players"]] == [
            (s.seat, s.bot, s.score, s.rank) for s in result.seats]


def test_cli_batch_json_ends_with_the_summary_and_the_score_distribution(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON document lists the games first (written as they finish), then the
    summary, score distribution by traveller included."""
    assert main(["simulate", "--games", "4", "--players", "3", "--seed", "5",
                 "--format", "json"]) == 0
    text = capsys.readouterr().out
    assert text.index('"games"') < text.index('"summary"')
    doc = json.loads(text)
    summary = simulate(4, 3, seed=5).summary
    assert list(doc["summary"]) == [f.name for f in attrs.fields(Summary)]
    assert doc["summary"]["score_counts_by_traveller"] == {
        t: {str(v): n for v, n in counts.items()}
        for t, counts in summary.score_counts_by_traveller.items()}


@pytest.mark.parametrize("data", [[5], [3, 3], [1, 2, 3, 4], [10, 1, 4, 4, 7, 50, 2, 3, 9],
                                  [*range(0, 100, 7), 400, -300]])
def test_box_plot_figures_from_counts(data: list[int]) -> None:
    """--plot draws boxes from score counts: the quartiles are numpy's (linear
    interpolation), whiskers reach the furthest values within 1.5 box lengths, and the
    values beyond are drawn one by one."""
    stats = _box_stats(dict(Counter(data)))
    q1, med, q3 = numpy.percentile(data, [25, 50, 75])
    assert (stats["q1"], stats["med"], stats["q3"]) == pytest.approx((q1, med, q3))
    inside = [v for v in data if q1 - 1.5 * (q3 - q1) <= v <= q3 + 1.5 * (q3 - q1)]
    assert (stats["whislo"], stats["whishi"]) == (min(inside), max(inside))
    assert sorted(stats["fliers"]) == sorted(set(data) - set(inside))


def test_cli_batch_csv(capsys: pytest.CaptureFixture[str]) -> None:
    """--format csv prints a header and one row per player and game."""
    assert main(["simulate", "--games", "4", "--players", "3", "--bots", "greedy,random",
                 "--seed", "2", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    header, body = rows[0], rows[1:]
    assert header[:8] == ["game", "seed", "seat", "bot", "traveller", "score", "rank", "win"]
    assert "panoramas" in header[8:]
    assert len(body) == 4 * 3
    assert [(int(r[0]), int(r[2])) for r in body] == [(g, s) for g in range(4) for s in range(3)]
    for r in body:
        assert len(r) == len(header)
        assert int(r[5]) == sum(int(v) for v in r[8:])
        assert r[3] == BOTS[int(r[2]) % 2]
    for g in range(4):
        game_rows = [r for r in body if int(r[0]) == g]
        assert int(game_rows[0][1]) == game_seed(2, g)
        assert sum(float(r[7]) for r in game_rows) == pytest.approx(1, abs=1e-3)


def test_cli_batch_out_writes_one_log_per_game(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--out DIR writes one full, loadable and verifiable log per game."""
    out = tmp_path / "logs" / "nested"
    assert main(["simulate", "--games", "3", "--players", "2", "--bots", "greedy,random",
                 "--seed", "8", "--out", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"game-{i:05d}.jsonl" for i in range(3)]
    for f, entry in zip(files, doc["games"], strict=True):
        text = f.read_text(encoding="utf-8")
        game = load_log(text)
        assert game.is_over and str(game.seed) == entry["seed"]
        assert len(game.events) == entry["events"]
        assert [s.total for s in game.scores()] == [p["score"] for p in entry["players"]]
        assert verify_log(text).ok


def test_log_names_sort_in_game_order() -> None:
    """--out names logs with at least five digits, more when the batch needs them."""
    assert log_name(7, 3) == "game-00007.jsonl"
    assert log_name(99_999, 100_000) == "game-99999.jsonl"
    names = [log_name(i, 1_000_001) for i in (0, 10_001, 100_000, 1_000_000)]
    assert names == sorted(names) and names[0] == "game-0000000.jsonl"


def test_cli_batch_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--plot FILE.png writes a PNG image of the score distributions."""
    path = tmp_path / "scores.png"
    assert main(["simulate", "--games", "3", "--players", "2", "--plot", str(path)]) == 0
    assert "3 games of 2 players" in capsys.readouterr().out
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 1000


def test_cli_jobs_gives_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    """--jobs 2 (worker processes) prints the same games as --jobs 1."""
    docs = []
    for jobs in ("1", "2"):
        assert main(["simulate", "--games", "4", "--players", "2", "--bots", "greedy,random",
                     "--seed", "6", "--jobs", jobs, "--format", "json"]) == 0
        docs.append(json.loads(capsys.readouterr().out)["games"])
    assert docs[0] == docs[1]


def test_tune_jit_is_for_pypy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """tune_jit sets PyPy's JIT parameters and says so; CPython has no JIT to tune.
    TOKAIDO_PYPY_JIT replaces the parameters, or (empty) leaves PyPy's own; bad ones
    are a SetupError on PyPy."""
    on_pypy = sys.implementation.name == "pypy"
    assert tune_jit() is on_pypy
    monkeypatch.setenv("TOKAIDO_PYPY_JIT", "")
    assert tune_jit() is False
    monkeypatch.setenv("TOKAIDO_PYPY_JIT", "trace_eagerness=50")
    assert tune_jit() is on_pypy
    monkeypatch.setenv("TOKAIDO_PYPY_JIT", "no_such_parameter=1")
    if on_pypy:
        with pytest.raises(SetupError, match="TOKAIDO_PYPY_JIT: 'no_such_parameter=1'"):
            tune_jit()
    else:
        assert tune_jit() is False
    monkeypatch.delenv("TOKAIDO_PYPY_JIT")
    assert tune_jit() is on_pypy


def test_cli_batch_tunes_the_jit(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A batch from the command line tunes the JIT first (a library call never does)."""
    calls: list[str] = []

    def record() -> bool:
        calls.append("tuned")
        return False

    monkeypatch.setattr("tokaido_rules.cli.tune_jit", record)
    assert main(["simulate", "--games", "2", "--players", "2", "--bots", "random"]) == 0
    assert calls == ["tuned"]
    simulate(games=2, players=2, bots=("random",))
    assert calls == ["tuned"]
    capsys.readouterr()


def test_cli_csv_of_a_single_game(capsys: pytest.CaptureFixture[str]) -> None:
    """--format csv without --games is a batch of one game: a header and a row per seat."""
    assert main(["simulate", "--players", "2", "--format", "csv", "--seed", "4"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("game,seed,seat,bot,traveller,score,rank,win")
    assert len(rows) == 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "2", "--log", "x.jsonl"], "--log"),
        (["--games", "2", "--view", "1"], "--view"),
        (["--bots", "nope"], "--bots"),
        (["--games", "3", "--bots", "greedy,nope"], "--bots"),
        (["--games", "0"], "--games"),
        (["--games", "2", "--jobs", "0"], "--jobs"),
        (["--games", "2", "--plugins", "base,nope"], "nope"),
        (["--games", "2", "--players", "9"], "players"),
        (["--random-decisions", "base.nap"], "base.nap"),
        (["--games", "2", "--random-decisions", "base.choose_traveller,x"], "'x'"),
    ],
)
def test_cli_bad_combinations(argv: list[str], message: str, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """Bad combinations print one line 'error: ...' on stderr and exit with status 2."""
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []  # nothing written


# --- Dask ----------------------------------------------------------------------------


@pytest.mark.dask
def test_dask_executor_gives_the_same_results(dask_cluster: Any) -> None:
    """simulate on a Dask client's executor gives the results of a single-process run."""
    from dask.distributed import Client

    expected = simulate(4, 3, ("base",), BOTS, seed=21)
    with Client(dask_cluster) as client:  # type: ignore[no-untyped-call]
        batch = simulate(4, 3, ("base",), BOTS, seed=21, executor=client.get_executor())
        chunked = simulate(4, 3, ("base",), BOTS, seed=21, executor=client.get_executor(),
                           chunk=3, max_pending=1)
    assert outcome(batch) == outcome(expected)
    assert batch.results == expected.results == chunked.results


@pytest.mark.dask
def test_cli_dask_gives_the_same_results(dask_cluster: Any,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --dask ADDRESS runs the batch on the cluster with the same games."""
    argv = ["simulate", "--games", "4", "--players", "3", "--bots", "greedy,random",
            "--seed", "21", "--format", "json"]
    assert main([*argv, "--dask", dask_cluster.scheduler_address]) == 0
    on_dask = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    local = json.loads(capsys.readouterr().out)
    assert on_dask["games"] == local["games"]
    assert on_dask["summary"]["games"] == 4
    assert on_dask["summary"]["win_rate_by_bot"] == local["summary"]["win_rate_by_bot"]



# --- the engine: the fast simulator where it gives the same games ------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_fast_engine_plays_the_same_games(players: int) -> None:
    """Random bots, with and without decisions taken by chance: the same results (seats,
    decisions, events) and the same logs, byte for byte, on either engine."""
    for by_chance in ((), ("base.choose_traveller", "core.move", "base.meal")):
        args: dict[str, Any] = {"games": 12, "players": players, "seed": players,
                                "keep_logs": True, "random_decisions": by_chance}
        fast = simulate(engine="fast", **args)
        slow = simulate(engine="reference", **args)
        assert fast.results == slow.results
        assert all(r.log for r in fast.results)
        assert figures(fast.summary) == figures(slow.summary)


def test_auto_takes_the_fast_engine_where_it_covers_the_game(slow_plugin: str) -> None:
    """auto: fast for a covered ruleset (base, Crossroads, New Encounters with either,
    any option values, a third-party plugin that gives fast rules) with random bots, and
    with bots that read views (built directly); the reference for a plugin without fast
    rules; a spec says
    which it got. The library's default is the reference (the command line's is
    auto)."""
    assert {s.engine for s in specs(3, 2, engine="auto")} == {"fast"}
    assert specs(1, 2, options={"base.meal_hand": "players"},
                 engine="auto")[0].engine == "fast"
    assert specs(1, 2, ("base", "crossroads"), engine="auto")[0].engine == "fast"
    assert specs(1, 2, ("base", slow_plugin), engine="auto")[0].engine == "reference"
    assert specs(1, 2, ("base", "tea-ceremony"), engine="auto")[0].engine == "fast"
    assert specs(1, 2, ("base", "crossroads", "new-encounters"),
                 engine="auto")[0].engine == "fast"
    assert specs(1, 2, bots=("random", "greedy"), engine="auto")[0].engine == "fast"
    assert specs(1, 2, ("base", slow_plugin), bots=("greedy",),
                 engine="auto")[0].engine == "reference"
    assert specs(1, 2)[0].engine == "reference"  # the functions' default
    assert specs(1, 2, engine="reference")[0].engine == "reference"
    assert specs(1, 2, engine="fast")[0].engine == "fast"
    assert choose_engine("auto", Ruleset.build(["base"]), ["random"]) == "fast"
    assert not fast_bot("search") and fast_bot("random")  # without a ruleset: actions only
    assert fast_bot("search", Ruleset.build(["base"]), 4)  # views built directly


@pytest.mark.parametrize("kwargs", [
    {"engine": "quick"},
], ids=["unknown"])
def test_the_fast_engine_where_it_cannot_play_is_a_setup_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SetupError):
        simulate(games=1, players=2, **kwargs)


def test_the_fast_engine_for_a_plugin_without_fast_rules_is_a_setup_error(
        slow_plugin: str) -> None:
    with pytest.raises(SetupError, match=f"plugin '{slow_plugin}' gives no fast rules"):
        simulate(games=1, players=2, plugins=("base", slow_plugin), engine="fast")


def test_cli_engines_print_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """--engine fast, reference and auto: the same batch JSON (less its timings) and CSV,
    and the same single game, text and JSON."""
    def run(*argv: str) -> str:
        assert main(["simulate", *argv]) == 0
        return capsys.readouterr().out

    def untimed(out: str) -> Any:
        doc = json.loads(out)
        for key in ("seconds", "games_per_second"):
            del doc["summary"][key]
        return doc

    for engine in ("fast", "auto"):
        for argv in (["--seed", "3", "--players", "3"], ["--seed", "8", "--format", "json"],
                     ["--games", "10", "--seed", "2", "--format", "csv"]):
            assert run(*argv, "--engine", engine) == run(*argv, "--engine", "reference")
        argv = ["--games", "10", "--players", "5", "--seed", "6", "--format", "json",
                "--random-decisions", "base.choose_traveller"]
        assert untimed(run(*argv, "--engine", engine)) == untimed(
            run(*argv, "--engine", "reference"))


def test_cli_engines_write_the_same_logs(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for engine in ("fast", "reference"):
        assert main(["simulate", "--engine", engine, "--players", "2", "--seed", "4",
                     "--log", str(tmp_path / f"{engine}.jsonl")]) == 0
        assert main(["simulate", "--engine", engine, "--games", "3", "--seed", "4",
                     "--out", str(tmp_path / engine)]) == 0
    capsys.readouterr()
    assert (tmp_path / "fast.jsonl").read_text() == (tmp_path / "reference.jsonl").read_text()
    names = sorted(p.name for p in (tmp_path / "fast").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "reference").iterdir())
    assert len(names) == 3
    for name in names:
        assert (tmp_path / "fast" / name).read_text() == (
            tmp_path / "reference" / name).read_text()


@pytest.mark.parametrize(("argv", "message"), [
    (["--plugins", "base,unhurried"], "does not cover plugins base,unhurried"),
    (["--plugins", "base,unhurried", "--bots", "random,greedy"],
     "does not cover plugins base,unhurried"),
])
def test_cli_fast_engine_where_it_cannot_play(argv: list[str], message: str, slow_plugin: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--engine fast with an uncovered ruleset (``unhurried``: a plugin without fast
    rules) or a bot that needs its view: one line, status 2, before any game."""
    assert slow_plugin == "unhurried"
    assert main(["simulate", "--engine", "fast", "--games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --engine fast:") and message in err
    assert err.count("\n") == 1


def test_cli_auto_plays_fast_for_the_base_game_with_random_bots(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        slow_plugin: str) -> None:
    """The command line's default, auto: the fast simulator for base with random bots (a
    batch, and a single game), with a greedy bot too (its views built directly); the
    reference for a plugin without fast rules."""
    import tokaido_rules.cli as cli_module
    import tokaido_rules.simulate as simulate_module

    played: list[str] = []
    batch_game, single_game = simulate_module._fast_result, cli_module.play_fast_bots

    def counted_batch(*args: Any) -> GameResult:
        played.append("batch")
        return batch_game(*args)

    def counted_single(*args: Any) -> Any:
        played.append("single")
        return single_game(*args)

    monkeypatch.setattr(simulate_module, "_fast_result", counted_batch)
    monkeypatch.setattr(cli_module, "play_fast_bots", counted_single)
    assert main(["simulate", "--games", "2", "--players", "2"]) == 0
    assert main(["simulate", "--players", "2"]) == 0
    assert played == ["batch", "batch", "single"]
    assert main(["simulate", "--games", "2", "--players", "2", "--plugins", slow_plugin]) == 0
    assert main(["simulate", "--players", "2", "--bots", "random,greedy"]) == 0
    assert main(["simulate", "--players", "2", "--engine", "reference"]) == 0
    assert played == ["batch", "batch", "single", "single"]
    capsys.readouterr()

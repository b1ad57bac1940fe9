"""Tournaments (issue #41): line-ups, seat rotations, games rounded up to whole groups,
ratings with intervals, Wilson win-rate intervals, the head-to-head matrix, and the same
output byte for byte whatever the executor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tokaido_rules import Action, SetupError, UnknownBotError, View
from tokaido_rules.simulate import wilson_interval
from tokaido_rules.tournament import (
    lineups,
    plan,
    rotations,
    run_tournament,
    to_csv,
    to_document,
    to_text,
)

TIMEOUT = 240


def tokaido(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a new process, killed (failing the test) after
    :data:`TIMEOUT` seconds."""
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "tokaido_rules", *args], env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def test_fewer_bots_than_seats_gives_every_mix_with_each_bot_once_at_least() -> None:
    """3 bots at 4 seats: the mixes with every bot at least once (a doubled bot each
    time); 2 bots at 3 seats: aab and abb."""
    assert sorted(lineups(3, 4)) == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    assert sorted(lineups(2, 3)) == [(0, 0, 1), (0, 1, 1)]
    assert lineups(2, 2) == [(0, 1)]


def test_more_bots_than_seats_gives_every_combination() -> None:
    """4 bots at 3 seats: every choice of 3 distinct bots (4 of them); 5 at 2: 10."""
    assert sorted(lineups(4, 3)) == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    assert len(lineups(5, 2)) == 10
    assert all(len(set(up)) == 2 for up in lineups(5, 2))


def test_rotations_put_every_bot_in_every_seat() -> None:
    """Over a line-up's rotations, each seat holds each bot as many times as the bot
    has copies in the line-up."""
    up = (0, 0, 1, 2)
    turns = rotations(up)
    assert len(turns) == 4 and len(set(turns)) == 4
    for seat in range(4):
        assert Counter(t[seat] for t in turns) == Counter(up)


def test_games_are_rounded_up_to_whole_groups_and_spread_over_the_line_ups() -> None:
    """--games is the total: rounded up to whole groups of seat rotations (the note
    says so), the groups going to the line-ups in turn; without it, one group per
    line-up."""
    p = plan(["greedy", "random", "search"], players=4, games=10, seed=1)
    assert p.games == 12 and p.groups == 3
    assert "rounded up from 10" in p.note
    assert [s.lineup for s in p.schedule] == [0] * 4 + [1] * 4 + [2] * 4
    assert [s.rotation for s in p.schedule] == [0, 1, 2, 3] * 3
    one_round = plan(["greedy", "random", "search"], players=4)
    assert one_round.games == 12 and "rounded" not in one_round.note
    exact = plan(["greedy", "random"], players=2, games=6, seed=1)
    assert exact.games == 6 and "rounded" not in exact.note
    assert len({s.seed for s in p.schedule}) == p.games  # each game its own deal


def test_a_bad_tournament_is_refused_before_any_game() -> None:
    """One bot, a bot twice, an unknown bot, a bad option or count: a SetupError."""
    with pytest.raises(SetupError, match="at least two"):
        plan(["greedy"])
    with pytest.raises(SetupError, match="twice"):
        plan(["greedy", "greedy"])
    with pytest.raises(UnknownBotError, match="unknown bot 'nope'"):
        plan(["greedy", "nope"])
    with pytest.raises(UnknownBotError, match="no option"):
        plan(["greedy", "search"], bot_options={"search": {"speed": 1}})
    with pytest.raises(SetupError, match="games"):
        plan(["greedy", "random"], games=0)


class FirstBot:
    """The first legal action: predictable, and beaten by the random bot's spread."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        return view.legal_actions[0]


def test_the_result_counts_seats_wins_scores_and_meetings() -> None:
    """Each bot's seats, wins and mean score add up from the games; its win rate's
    interval is the Wilson interval of its wins over its seats; the head-to-head
    shares of two bots are complements (a pair finishes one ahead, or tied)."""
    result = run_tournament(["greedy", "random", FirstBot], players=3, games=6, seed=2)
    assert len(result.results) == 6
    for s in result.standings:
        seats = [x for r in result.results for x in r.seats if x.bot == s.name]
        assert s.seats == len(seats)
        assert s.wins == pytest.approx(sum(x.win for x in seats))
        assert s.mean_score == pytest.approx(sum(x.score for x in seats) / len(seats))
        assert s.win_interval == wilson_interval(min(s.wins, s.seats), s.seats)
        low, high = s.rating_interval
        assert low < s.rating < high
    assert sum(s.seats for s in result.standings) == 6 * 3
    ratings = [s.rating for s in result.standings]
    assert ratings == sorted(ratings, reverse=True)
    h2h = result.head_to_head
    for i in range(3):
        assert h2h[i][i] is None
        for j in range(3):
            if i != j and h2h[i][j] is not None:
                assert h2h[i][j] + h2h[j][i] == pytest.approx(1.0)  # type: ignore[operator]
                assert result.meetings[i][j] == result.meetings[j][i] > 0
    names = {s.name for s in result.standings}
    assert names == {"greedy", "random", "FirstBot"}
    doc = to_document(result)
    assert json.loads(json.dumps(doc))["games"] == 6
    assert to_csv(result).splitlines()[0].startswith("bot,rating,rating_low,rating_high")
    text = to_text(result)
    assert "Head to head" in text and "greedy" in text


def test_the_same_arguments_give_the_same_result_on_a_process_pool() -> None:
    """A tournament on two worker processes gives the serial one's result."""
    args: dict[str, Any] = {"players": 2, "games": 4, "seed": 7}
    serial_result = run_tournament(["greedy", "random"], **args)
    with ProcessPoolExecutor(2) as pool:
        pooled = run_tournament(["greedy", "random"], executor=pool, **args)
    assert to_text(pooled) == to_text(serial_result)
    assert pooled.results == serial_result.results


@pytest.mark.dask
def test_the_same_result_on_a_dask_cluster(dask_cluster: Any) -> None:
    """A tournament on a Dask cluster's executor gives the serial one's result."""
    from dask.distributed import Client

    expected = run_tournament(["greedy", "random"], players=2, games=4, seed=7)
    with Client(dask_cluster) as client:  # type: ignore[no-untyped-call]
        result = run_tournament(["greedy", "random"], players=2, games=4, seed=7,
                                executor=client.get_executor())
    assert to_text(result) == to_text(expected)


def test_the_command_line_prints_the_same_bytes_serial_and_on_two_processes() -> None:
    """`tokaido tournament` with the same arguments prints the same stdout and stderr
    (nothing on stderr) serial and with --jobs 2, in every format."""
    base = ["tournament", "--bots", "greedy,random", "--players", "3", "--games", "5",
            "--seed", "4"]
    for fmt in ("text", "json", "csv"):
        serial = tokaido(*base, "--format", fmt)
        pooled = tokaido(*base, "--format", fmt, "--jobs", "2")
        assert serial.returncode == pooled.returncode == 0, serial.stderr + pooled.stderr
        assert serial.stdout == pooled.stdout and serial.stdout
        assert serial.stderr == pooled.stderr == ""
    text = tokaido(*base).stdout
    assert "6 games" in text and "rounded up from 5" in text
    assert "rating" in text and "win rate" in text and "Head to head" in text


def test_the_command_line_plots_and_refuses_bad_input(tmp_path: Path) -> None:
    """--plot writes a PNG; a bad bot or a single bot is one line and status 2."""
    path = tmp_path / "ratings.png"
    done = tokaido("tournament", "--bots", "random,greedy", "--players", "2", "--games", "2",
                   "--plot", str(path))
    assert done.returncode == 0, done.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for bots, words in (("random,nope", "unknown bot 'nope'"), ("random", "two bots")):
        bad = tokaido("tournament", "--bots", bots, "--players", "2")
        assert bad.returncode == 2
        lines = bad.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]

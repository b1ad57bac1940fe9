"""The analysis of a seat's decisions (issue 42): figures from the seat's view only,
marks by points lost, ``tokaido analyse``, the viewer's marks and ``play``'s hint.

The analysing bot is a test double (:class:`flat_evaluator.FlatEvaluator`, flat Monte
Carlo on completions of the view) registered for the test as ``flat``."""

from __future__ import annotations

import functools
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve

from flat_evaluator import FlatEvaluator
from test_play import reader
from test_viewer import page_data, played
from tokaido_rules import (
    Action,
    Game,
    IllegalActionError,
    Ruleset,
    View,
    decisions,
    dump_log,
    new_game,
)
from tokaido_rules.analysis import (
    INACCURACY,
    MISTAKE,
    AnalysisError,
    NotAnEvaluatorError,
    analyse_game,
    analyse_log,
    analyse_view,
    hint,
    load_analysis,
    mark,
    seat_decisions,
)
from tokaido_rules.bots import BOTS
from tokaido_rules.cli import main
from tokaido_rules.estimates import ActionEstimate
from tokaido_rules.log import load_seat_copy
from tokaido_rules.play import PlayRecord, run
from tokaido_rules.testing import twins
from tokaido_rules.viewer import replay_html, seat_copy_html

OPTIONS = {"samples": 3}


@pytest.fixture(autouse=True)
def flat() -> Iterator[None]:
    """The test double registered as ``flat`` for the test, removed after it."""
    BOTS["flat"] = FlatEvaluator
    try:
        yield
    finally:
        del BOTS["flat"]


@pytest.fixture(scope="module")
def game() -> Game:
    return played(3, 5, ("base",))


@pytest.fixture(scope="module")
def analysed(game: Game) -> dict[str, Any]:
    BOTS["flat"] = FlatEvaluator
    try:
        return analyse_game(game, 1, "flat", options=OPTIONS).document()
    finally:
        del BOTS["flat"]


# --- marks, from the documented thresholds -----------------------------------------


def estimate(action: Any, margin: float, half: float) -> ActionEstimate:
    return ActionEstimate(action, 100, margin, margin - half, margin + half, 0.5, 0.4, 0.6)


@pytest.mark.parametrize(("lost", "half", "expected"), [
    (0.0, 1.0, "best"),
    (INACCURACY / 2, 0.01, None),          # loses too little to be marked
    (INACCURACY + 0.1, 0.01, "inaccuracy"),
    (INACCURACY + 0.1, 1.0, None),         # the intervals overlap: cannot tell them apart
    (MISTAKE + 0.1, 0.01, "mistake"),
    (MISTAKE + 0.1, 2.0, None),
])
def test_marks_follow_points_lost_and_intervals(lost: float, half: float,
                                                expected: str | None) -> None:
    best = estimate("a", 5.0, half)
    other = estimate("b", 5.0 - lost, half)
    assert mark(best, other if lost else estimate("b", 5.0, half)) == expected


class Fixed:
    """An evaluator with given margins, by action index (intervals of 0.1)."""

    def __init__(self, margins: list[float]) -> None:
        self.margins = margins

    def choose(self, view: View) -> Action:
        return view.legal_actions[0]

    def evaluate(self, view: View) -> tuple[ActionEstimate, ...]:
        return tuple(estimate(a, m, 0.1) for a, m in zip(view.legal_actions, self.margins,
                                                          strict=False))


def first_choice(game: Game) -> tuple[View, Action]:
    return next((v, a) for s in range(game.players) for v, a in seat_decisions(game, s)
                if len(v.legal_actions) >= 3)


def test_the_best_action_and_the_points_lost(game: Game) -> None:
    """The best action has the highest mean margin; the points lost by the played one
    are the difference; the win probability is the played action's."""
    view, _ = first_choice(game)
    margins = [1.0, 4.0, 0.5] + [0.0] * (len(view.legal_actions) - 3)
    found = analyse_view(view, Fixed(margins), view.legal_actions[2])
    assert found.best == 1 and found.best_action == view.legal_actions[1]
    assert found.lost == pytest.approx(3.5) and found.mark == "mistake"
    assert found.win == 0.5
    before = analyse_view(view, Fixed(margins))  # a hint: nothing played yet
    assert before.played is None and before.lost is None and before.mark is None


def test_figures_that_do_not_fit_are_refused(game: Game) -> None:
    view, _ = first_choice(game)
    with pytest.raises(AnalysisError, match="one estimate per legal action"):
        analyse_view(view, Fixed([1.0]))
    other = next(a for v, a in seat_decisions(game, 0) if a not in view.legal_actions)
    with pytest.raises(AnalysisError, match="not one of seat"):
        analyse_view(view, Fixed([0.0] * len(view.legal_actions)), other)


# --- a crafted position: the last decision, whose outcome is known exactly -------------


def last_choice(game: Game) -> tuple[Game, View] | None:
    """The game at its last decision with a choice, if the game is over after it
    whatever is chosen, with the deciding seat's view."""
    last = max(((v, a) for s in range(game.players) for v, a in seat_decisions(game, s)),
               key=lambda x: x[0].seq)
    at = _game_at(game, last[0].seq)
    if all(at.apply(a).is_over for a in last[0].legal_actions):
        return at, last[0]
    return None


@functools.cache
def last_choices() -> list[tuple[Game, View]]:
    """Four such decisions, from the first games (2 to 4 players) that have one."""
    return [found for found in (last_choice(played(2 + seed % 3, seed, ("base",)))
                                for seed in range(1, 40)) if found is not None][:4]


def _game_at(game: Game, seq: int) -> Game:
    from tokaido_rules.engine import replay

    return Game(replay(game.state.rules, game.seed, game.events[:seq]), game.events[:seq])


@pytest.mark.parametrize("n", range(4))
def test_the_last_decision_is_scored_exactly(n: int) -> None:
    """At a decision after which the game is over whatever is chosen, every playout
    ends at once: each action's margin is the final margin it gives (the seat's score
    minus the best other's), with an empty interval, and the best one is the best."""
    at, view = last_choices()[n]
    seat = view.seat
    assert seat is not None
    exact = []
    for action in view.legal_actions:
        end = at.apply(action)
        totals = [p.total for p in end.state.pieces[:end.players]]
        exact.append(totals[seat] - max(t for s, t in enumerate(totals) if s != seat))
    found = analyse_view(view, FlatEvaluator(n, samples=3), view.legal_actions[-1])
    assert [e.margin for e in found.estimates] == exact
    assert all(e.margin_low == e.margin == e.margin_high for e in found.estimates)
    assert found.estimates[found.best].margin == max(exact)
    assert found.lost == max(exact) - exact[-1]


# --- what the seat cannot see ----------------------------------------------------------


def twin_games(game: Game, seed: int, count: int) -> Iterator[Game]:
    """Games with the same decisions as ``game`` (as long as they are legal there), one
    hidden chance outcome changed in each (:func:`tokaido_rules.testing.twins`)."""
    ruleset = Ruleset.build(game.ruleset.ids)
    for twin in twins(game, seed)[:count]:
        setup = evolve(game.state.rules.setup,
                       chance={**game.state.rules.setup.chance, **twin.chance})
        other = new_game(game.players, seed=game.seed, plugins=ruleset, setup=setup)
        for action in decisions(game.events):
            try:
                other = other.apply(action)
            except IllegalActionError:
                break
        yield other


@pytest.mark.parametrize(("plugins", "players", "seed"), [
    (("base",), 3, 11), (("base", "crossroads"), 4, 12)])
def test_the_analysis_never_uses_what_the_seat_cannot_see(
        plugins: tuple[str, ...], players: int, seed: int) -> None:
    """Twin games that differ in a hidden fact give the same analysis of every decision
    at which the seat's view is the same, though the full states differ there."""
    game = played(players, seed, plugins)
    seat = 1
    mine = {d.seq: d for d in analyse_game(game, seat, "flat", options=OPTIONS).decisions}
    views = {v.seq: v for v, _ in seat_decisions(game, seat)}
    states = {v.seq: _game_at(game, v.seq).state for v in views.values()}
    compared = hidden_differs = 0
    for twin in twin_games(game, seed, 6):
        theirs = analyse_game(twin, seat, "flat", options=OPTIONS).decisions
        for found in theirs:
            view = views.get(found.seq)
            twin_view = next(v for v, _ in seat_decisions(twin, seat) if v.seq == found.seq)
            if view is None or view != twin_view:
                continue
            assert found.document() == mine[found.seq].document(), found.seq
            compared += 1
            hidden_differs += _game_at(twin, found.seq).state.zones != states[found.seq].zones
    assert compared > 10 and hidden_differs > 5


# --- determinism -----------------------------------------------------------------------


def test_the_same_arguments_give_the_same_analysis(game: Game,
                                                   analysed: dict[str, Any]) -> None:
    assert analyse_game(game, 1, "flat", options=OPTIONS).document() == analysed
    other = analyse_game(game, 1, "flat", seed=1, options=OPTIONS).document()
    assert other["decisions"] != analysed["decisions"]  # the seed is the bot's


def test_a_hint_is_the_figure_the_analysis_gives(game: Game,
                                                 analysed: dict[str, Any]) -> None:
    """The evaluator is made per decision, so a decision analysed alone (a hint) gets
    the figures it gets in the analysis of the whole game."""
    view, _ = list(seat_decisions(game, 1))[3]
    alone = hint(view, "flat", options=OPTIONS).document()
    entry = next(d for d in analysed["decisions"] if d["seq"] == view.seq)
    assert alone["actions"] == entry["actions"] and alone["best"] == entry["best"]


def test_every_decision_with_a_choice_is_analysed(game: Game,
                                                  analysed: dict[str, Any]) -> None:
    mine = [a for _, a in seat_decisions(game, 1)]
    assert [d["seq"] for d in analysed["decisions"]] == [
        v.seq for v, _ in seat_decisions(game, 1)]
    assert len(mine) > 5
    for entry in analysed["decisions"]:
        assert len(entry["actions"]) > 1 and entry["actions"][entry["played"]]["action"][
            "seat"] == 1


def test_a_bot_that_cannot_analyse_is_named(game: Game) -> None:
    with pytest.raises(NotAnEvaluatorError, match="'greedy' cannot analyse"):
        analyse_game(game, 0, "greedy")
    with pytest.raises(AnalysisError, match="no seat 5"):
        analyse_game(game, 5, "flat")


# --- the command line ------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def log(tmp_path: Path, game: Game) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text(dump_log(game), encoding="utf-8")
    return path


def test_analyse_prints_a_line_per_decision(capsys: pytest.CaptureFixture[str], log: Path,
                                            analysed: dict[str, Any]) -> None:
    status, out, _ = run_cli(capsys, "analyse", str(log), "--seat", "1", "--bot", "flat",
                             "--bot-option", "flat.samples=3")
    assert status == 0
    head, *lines = out.splitlines()
    assert "seat 1" in head and "bot flat" in head
    assert len(lines) == len(analysed["decisions"])
    for line, entry in zip(lines, analysed["decisions"], strict=True):
        labels = [a["label"] for a in entry["actions"]]
        assert line.startswith(f"seq {entry['seq']}: played {labels[entry['played']]} · "
                               f"best {labels[entry['best']]} · lost ")
        assert re.search(r" · win \d+%", line)
        assert (f" · {entry['mark']}" in line) == (entry["mark"] is not None)
    assert run_cli(capsys, "analyse", str(log), "--seat", "1", "--bot", "flat",
                   "--bot-option", "flat.samples=3")[1] == out  # deterministic


def test_analyse_json_has_the_figures(capsys: pytest.CaptureFixture[str], log: Path,
                                      analysed: dict[str, Any]) -> None:
    status, out, _ = run_cli(capsys, "analyse", str(log), "--seat", "1", "--bot", "flat",
                             "--bot-option", "flat.samples=3", "--format", "json")
    assert status == 0
    doc = json.loads(out)
    assert doc["decisions"] == analysed["decisions"]
    assert doc["thresholds"] == {"inaccuracy": INACCURACY, "mistake": MISTAKE}
    assert load_analysis(out)["seat"] == 1
    first = doc["decisions"][0]["actions"][0]
    assert set(first) == {"action", "label", "playouts", "margin", "margin_low",
                          "margin_high", "win", "win_low", "win_high"}


@pytest.mark.parametrize(("argv", "said"), [
    (["--seat", "1", "--bot", "greedy"], "bot 'greedy' cannot analyse"),
    (["--seat", "1", "--bot", "nobody"], "unknown bot 'nobody'"),
    (["--seat", "1", "--bot", "flat", "--bot-option", "flat.depth=2"], "no option 'depth'"),
    (["--seat", "1", "--bot", "flat", "--bot-option", "greedy.samples=2"], "not among"),
    (["--bot", "flat"], "--seat is required"),
    (["--seat", "3", "--bot", "flat"], "--seat must be from 0 to 2"),
])
def test_analyse_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture[str], log: Path,
                                               argv: list[str], said: str) -> None:
    status, out, err = run_cli(capsys, "analyse", str(log), *argv)
    assert status == 2 and out == ""
    assert err.startswith("error: ") and said in err and err.count("\n") == 1


def test_analyse_refuses_a_bad_log_and_a_seat_copy(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path, game: Game) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    copy = tmp_path / "copy.jsonl"
    copy.write_text(dump_log(game, viewer=1), encoding="utf-8")
    for path, said in ((bad, "line 1"), (tmp_path / "none.jsonl", "cannot read"),
                       (copy, "seat's copy")):
        status, _, err = run_cli(capsys, "analyse", str(path), "--seat", "1", "--bot", "flat")
        assert status == 2 and said in err and err.count("\n") == 1


def test_analyse_as_a_process_fails_in_one_line(log: Path) -> None:
    """``python -m tokaido_rules analyse`` with a bot that cannot analyse: status 2 and
    one line on stderr, nothing on stdout."""
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", "analyse", str(log),
                           "--seat", "0", "--bot", "greedy"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: bot 'greedy' cannot analyse")
    assert done.stderr.count("\n") == 1


def test_analyse_log_reads_a_full_log(game: Game, analysed: dict[str, Any]) -> None:
    assert analyse_log(dump_log(game), 1, "flat", options=OPTIONS).document() == analysed


# --- the viewer ------------------------------------------------------------------------


def frames_with_analysis(page: str) -> dict[str, dict[int, dict[str, Any]]]:
    data = page_data(page)
    return {key: {n: f["analysis"] for n, f in enumerate(found) if "analysis" in f}
            for key, found in data["frames"].items()}


def decision_frames(game: Game) -> dict[int, int]:
    """seq of each decision's action -> the viewer frame that starts with it."""
    cuts = [i for i, e in enumerate(game.events) if isinstance(e, Action)]
    return {seq: n for n, seq in enumerate(cuts, 1)}


def test_the_viewer_shows_the_marks_at_the_seats_steps(game: Game,
                                                       analysed: dict[str, Any]) -> None:
    """Each analysed decision's figures are at the frame of that decision, in the
    seat's frames and the whole record, and nowhere in another seat's frames."""
    found = frames_with_analysis(replay_html(game, analysis=analysed))
    where = decision_frames(game)
    expected = {where[d["seq"]]: d for d in analysed["decisions"]}
    for key in ("all", "1"):
        assert set(found[key]) == set(expected)
        for n, shown in found[key].items():
            assert shown["mark"] == expected[n]["mark"]
            assert [a["margin"] for a in shown["actions"]] == [
                a["margin"] for a in expected[n]["actions"]]
    assert found["0"] == {} and found["2"] == {}
    only = frames_with_analysis(replay_html(game, [1], everything=False, analysis=analysed))
    assert set(only) == {"1"} and set(only["1"]) == set(expected)
    copy = load_seat_copy(dump_log(game, viewer=1))
    assert set(frames_with_analysis(seat_copy_html(copy, analysed))["1"]) == set(expected)


def test_the_viewer_refuses_an_analysis_that_does_not_fit(game: Game,
                                                          analysed: dict[str, Any]) -> None:
    with pytest.raises(AnalysisError, match="does not show"):
        replay_html(game, [0], everything=False, analysis=analysed)
    with pytest.raises(AnalysisError, match="seat 0's copy"):
        seat_copy_html(load_seat_copy(dump_log(game, viewer=0)), analysed)
    other = played(3, 6, ("base",))
    with pytest.raises(AnalysisError, match="this log"):
        replay_html(other, analysis=analysed)
    with pytest.raises(AnalysisError, match="not of this log"):
        replay_html(played(2, 6, ("base",)), analysis=analysed)


def test_analyse_html_and_replay_analysis(capsys: pytest.CaptureFixture[str], log: Path,
                                          tmp_path: Path, game: Game,
                                          analysed: dict[str, Any]) -> None:
    page = tmp_path / "a.html"
    status, out, _ = run_cli(capsys, "analyse", str(log), "--seat", "1", "--bot", "flat",
                             "--bot-option", "flat.samples=3", "--format", "json",
                             "--html", str(page))
    assert status == 0
    found = frames_with_analysis(page.read_text(encoding="utf-8"))
    assert set(found) == {"1"} and len(found["1"]) == len(analysed["decisions"])
    doc = tmp_path / "a.json"
    doc.write_text(out, encoding="utf-8")
    again = tmp_path / "b.html"
    assert run_cli(capsys, "replay", str(log), "--html", str(again), "--analysis",
                   str(doc))[0] == 0
    assert frames_with_analysis(again.read_text(encoding="utf-8"))["1"] == found["1"]
    doc.write_text('{"format": "something else"}', encoding="utf-8")
    status, _, err = run_cli(capsys, "replay", str(log), "--html", str(again), "--analysis",
                             str(doc))
    assert status == 2 and "not an analysis document" in err
    status, _, err = run_cli(capsys, "replay", str(log), "--analysis", str(doc))
    assert status == 2 and "--analysis goes with --html" in err


# --- play's hint ------------------------------------------------------------------------


def session(lines: list[str], hint_bot: str = "flat") -> tuple[Game, str, PlayRecord]:
    game = new_game(2, seed=3)
    out = io.StringIO()
    record = PlayRecord()
    end = run(game, 0, ("random",), 3, reader(lines), out, bot_options={"flat": OPTIONS},
              hint_bot=hint_bot, record=record)
    return end, out.getvalue(), record


def test_a_hint_scores_every_option_and_is_recorded() -> None:
    """``hint`` prints every legal action, numbered as listed, with its margin and win
    probability, the best one starred; the decision then taken is recorded as taken
    after a hint, and the one taken without is not."""
    end, out, record = session(["1", "hint", "2", "1"])
    said = out[out.index("Hint from flat"):]
    first_move = next(v for v, _ in seat_decisions(end, 0) if v.seq == record.hinted[0])
    numbered = re.findall(r"^ ([ *])\s*(\d+)\. .*: margin [-+]\d", said, re.M)
    assert len(numbered) == len(first_move.legal_actions)
    assert [n for _, n in numbered] == [str(i) for i in range(1, len(numbered) + 1)]
    expected = hint(first_move, "flat", seed=3, options=OPTIONS)
    assert [s for s, _ in numbered].index("*") == expected.best
    assert max(len(line) for line in out.splitlines()) <= 80  # the screen's width
    assert len(record.hinted) == 1
    assert isinstance(end.events[record.hinted[0]], Action)
    assert end.events[record.hinted[0]] == first_move.legal_actions[1]


def test_a_hint_from_a_bot_that_cannot_is_one_line_and_play_goes_on() -> None:
    end, out, record = session(["1", "hint", "1"], hint_bot="greedy")
    assert "No hint: bot 'greedy' cannot analyse" in out
    assert record.hinted == []
    assert len([a for a in decisions(end.events) if a.seat == 0]) == 2  # both taken


def test_an_interval_the_search_could_not_bound_is_null_in_json() -> None:
    """An action tried too few times has an infinite interval: the analysis document
    says null there (JSON has no infinity), and stays valid JSON."""
    from tokaido_rules.analysis import _round

    assert _round(float("inf")) is None and _round(float("-inf")) is None
    assert _round(1.23456) == 1.2346 and _round(None) is None

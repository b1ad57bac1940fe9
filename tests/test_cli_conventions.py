"""The command line follows the conventions of click/typer tools (issue 23)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any, NoReturn

import pytest

from processes import finished, watched
from tokaido_rules import MissingRequirementError, __version__, cli, load_log, new_game
from tokaido_rules.cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"tokaido-rules {__version__}\n"


def test_bare_command_prints_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tokaido")
    for command in ("simulate", "play", "serve", "tables", "schema", "plugins", "replay"):
        assert command in out


def test_python_dash_m_runs_the_same_command() -> None:
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == f"tokaido-rules {__version__}\n"
    bad = subprocess.run([sys.executable, "-m", "tokaido_rules", "simulate", "--players", "9"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


def _parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _parsers(sub)
    return found


def test_every_command_and_option_has_help() -> None:
    parsers = _parsers(cli._build_parser())
    assert len(parsers) == 14  # tokaido, its eleven commands, and tables' list and delete
    commands = {prog.split()[1] for prog, _ in parsers if prog.count(" ") == 1}
    assert commands == set(cli._COMMANDS)  # every command offered has what runs it
    for prog, parser in parsers:
        assert parser.description, prog
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help and action.help.strip(), (prog, action.dest)
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help and choice.help.strip(), (prog, choice.dest)


def test_simulate_description_says_what_it_does() -> None:
    simulate = dict(_parsers(cli._build_parser()))["tokaido simulate"]
    assert simulate.description is not None
    assert "random legal choices" not in simulate.description
    assert "bots" in simulate.description and "batch" in simulate.description


def _at_a_terminal() -> None:
    """Ctrl-C as at a terminal: a suite started in the background (``cmd &`` in a
    script) ignores SIGINT, and a child would inherit that and never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return watched(subprocess.Popen([sys.executable, "-m", "tokaido_rules", *argv], cwd=cwd,
                                    env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    preexec_fn=_at_a_terminal))


def _wait_for(stream: IO[str], text: str) -> str:
    """Read ``stream`` until ``text`` has come (a character at a time: a prompt has no
    end of line)."""
    seen = ""
    while text not in seen:
        char = stream.read(1)
        assert char, f"the stream ended before {text!r}: {seen[-300:]!r}"
        seen += char
    return seen


def test_ctrl_c_in_play_saves_the_game_and_exits_130(tmp_path: Path) -> None:
    proc = _start(["play", "--players", "3", "--seed", "5"], tmp_path)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        _wait_for(proc.stdout, "> ")
        proc.send_signal(signal.SIGINT)
        _, err = finished(proc, timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err and err.count("Aborted!") == 1
    saved = list(tmp_path.glob("tokaido-game-*.jsonl"))
    assert len(saved) == 1 and str(saved[0].name) in err
    assert f"tokaido play --resume {saved[0].name}" in err
    game = load_log(saved[0])
    assert game.seed == 5 and game.players == 3 and not game.is_over


def test_ctrl_c_in_play_saves_where_asked(tmp_path: Path) -> None:
    (tmp_path / "tokaido-game-0.jsonl").write_text("taken")
    proc = _start(["play", "--seed", "5", "--save-to", "mine.jsonl"], tmp_path)
    try:
        assert proc.stdout is not None
        _wait_for(proc.stdout, "> ")
        proc.send_signal(signal.SIGINT)
        _, err = finished(proc, timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "saved in mine.jsonl" in err
    assert load_log(tmp_path / "mine.jsonl").seed == 5


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_in_a_batch_is_aborted_and_exits_130(tmp_path: Path, jobs: str) -> None:
    proc = _start(["simulate", "--games", "100000", "--jobs", jobs, "--format", "csv"],
                  tmp_path)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the header: the batch has started
        proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        _, err = finished(proc, timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert err.strip() == "Aborted!"


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found |= {child} | _descendants(child)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads Linux's /proc")
def test_sigterm_to_a_batch_ends_its_workers(tmp_path: Path) -> None:
    proc = _start(["simulate", "--games", "100000", "--jobs", "2", "--format", "csv"],
                  tmp_path)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the header
        proc.stdout.readline()  # a game played: the workers are running
        deadline = time.monotonic() + 30
        while len(children := _descendants(proc.pid)) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = finished(proc, timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143 and "Traceback" not in err and "Terminated" in err
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in children if _alive(pid)]


def test_plot_without_the_extra_fails_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        return None if name.split(".")[0] == "matplotlib" else real(name, package)

    def no_games(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a game was played")

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(cli, "play_games", no_games)
    plot = tmp_path / "plot.png"
    assert main(["simulate", "--games", "50", "--plot", str(plot)]) == 2
    err = capsys.readouterr().err
    assert err == ("error: --plot needs the plot extra: pip install '.[plot]' in a clone, "
                   "or the wheel with [plot]\n")
    assert not plot.exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jobs_without_games_is_a_usage_error(jobs: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--jobs", jobs]) == 2
    assert capsys.readouterr().err == "error: --jobs goes with --games G (a batch of games)\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--players", "4"], "--players 4: the resumed game has 3 players"),
        (["--plugins", "base,crossroads"], "the resumed game has plugins base"),
        (["--seed", "8"], "--seed 8: the resumed game has seed 7"),
        (["--option", "base.meal_hand=players"], "keeps the options in its log"),
    ],
)
def test_play_resume_refuses_options_that_contradict_the_log(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "--players", "3", "--seed", "7", "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["play", "--resume", str(log), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_play_resume_accepts_options_that_agree_with_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "--players", "3", "--seed", "7", "--log", str(log)]) == 0
    assert main(["play", "--resume", str(log), "--players", "3", "--plugins", "base",
                 "--seed", "7"]) == 0
    assert "The journey is over." in capsys.readouterr().out


def test_plugins_option_enables_what_a_plugin_requires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "--plugins", "crossroads", "--seed", "2", "--log", str(log)]) == 0
    assert "plugins base,crossroads" in capsys.readouterr().out.splitlines()[0]
    header = json.loads(log.read_text().splitlines()[0])
    assert [p["id"] for p in header["plugins"]] == ["base", "crossroads"]
    assert load_log(log).ruleset.ids == ("base", "crossroads")
    with pytest.raises(MissingRequirementError, match="requires 'base'"):
        new_game(4, seed=2, plugins=["crossroads"])


def test_exit_statuses_are_documented_and_kept(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """0 ok, 1 verification disagrees, 2 unreadable input or usage (130 and 143: the
    signal tests above)."""
    doc = (Path(__file__).parent.parent / "docs/reference/cli.md").read_text()
    paragraph = " ".join(doc.split("Exit status:", 1)[1].split("\n\n", 1)[0].split())
    for status in ("0 done", "1 `replay --verify`", "2 bad input or usage",
                   "130 interrupted by Ctrl-C", "143 a batch ended by SIGTERM"):
        assert status in paragraph
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "--seed", "4", "--log", str(log)]) == 0
    assert main(["replay", str(log), "--verify"]) == 0
    lines = log.read_text().splitlines()
    head = json.loads(lines[0])
    head["seed"] += 1
    (tmp_path / "changed.jsonl").write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    assert main(["replay", str(tmp_path / "changed.jsonl"), "--verify"]) == 1
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    (tmp_path / "junk.jsonl").write_text("not json\n")
    assert main(["replay", str(tmp_path / "junk.jsonl")]) == 2
    assert main(["simulate", "--games"]) == 2


@pytest.mark.parametrize(("env", "argv", "width"), [
    ({"COLUMNS": "80"}, [], 80), ({}, ["--width", "40"], 40)])
def test_the_plugin_list_is_wrapped_to_the_width(env: dict[str, str], argv: list[str],
                                                  width: int) -> None:
    """`tokaido plugins` wraps its lines at word boundaries to the terminal's width (or
    `--width`), descriptions and requirements indented, and still names every plugin."""
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", "plugins", *argv],
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= width for line in lines), [x for x in lines if len(x) > width]
    words = " ".join(line.strip() for line in lines).split()
    for row in cli.plugin_rows():
        assert f"{row['id']}" in words
        if "description" in row:
            assert " ".join(row["description"].split()) in " ".join(words)


INTERNAL_IDS = ("zenemon", "achievement.", "base.souvenirs", "temple_donations",
                "traveller_powers", "hot_springs", "legendary_objects", "cherry_trees")
"""Ids that have a display name ("Zen-emon", "Temple donations", ...)."""


def test_outputs_fit_80_columns_and_show_display_names(tmp_path: Path) -> None:
    """Under COLUMNS=80 (the terminal's width, as a real terminal sets it) the text that
    `simulate`, a game's log (`simulate --log`) and `replay` print never passes 80
    characters, and shows display names, never the ids that have one."""
    env = {**os.environ, "COLUMNS": "80"}
    log = tmp_path / "game.jsonl"

    def run(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "tokaido_rules", *argv], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    outputs = [
        run("simulate", "--games", "6", "--players", "5", "--plugins", "crossroads",
            "--seed", "3"),
        run("simulate", "--players", "4", "--plugins", "crossroads", "--seed", "3",
            "--log", str(log)),  # Zen-emon and Hirotada play in this one
        run("replay", str(log)),
        run("replay", str(log), "--view", "1", "--to", "120"),
    ]
    assert "Zen-emon" in outputs[1] and "Hirotada" in outputs[1]
    for out in outputs:
        for line in out.splitlines():
            assert len(line) <= 80, line
        lowered = out.lower()
        for internal in INTERNAL_IDS:
            assert internal not in lowered, (internal, out)

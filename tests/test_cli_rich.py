"""At a terminal the command line draws its tables with ``rich`` at the terminal's width;
piped, it prints the render module's plain tables (issue 23). Both come from the same
content: :func:`tokaido_rules.render.score_rows` and :class:`~tokaido_rules.render.Grid`."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokaido_rules import load_log, new_game
from tokaido_rules.cli import play_bots
from tokaido_rules.play import run
from tokaido_rules.render import Grid, score_rows, score_table, table

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
BOX = set("┏┓┗┛┃━┡┩│─└┘┬┴┼╇┳")
"""Characters that only a rich table draws (the plain table has dashes and spaces)."""

pty = pytest.importorskip("pty")  # not on Windows


def _env(**extra: str) -> dict[str, str]:
    """The environment of a real terminal 80 columns wide, free of settings that would
    force or forbid rich's terminal detection or colours."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update(COLUMNS="80", LINES="24", TERM="xterm-256color", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def at_terminal(argv: list[str], cwd: Path, **env: str) -> str:
    """What ``tokaido ARGV`` writes on its standard output when that is a terminal (a
    pseudo-terminal), as the terminal receives it (escape sequences and all)."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "tokaido_rules", *argv], cwd=cwd,
                                   env=_env(**env), stdin=subprocess.DEVNULL, stdout=slave,
                                   stderr=subprocess.PIPE)
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert process.returncode == 0, err.decode()
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def piped(argv: list[str], cwd: Path) -> str:
    """What ``tokaido ARGV`` writes on its standard output into a pipe."""
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", *argv], cwd=cwd,
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def shown(out: str) -> list[str]:
    """The lines a terminal shows: escape sequences removed."""
    return ANSI.sub("", out).splitlines()


def cells(line: str) -> list[str]:
    """The text of a rich table's row, cell by cell."""
    return [c.strip() for c in re.split(r"[┃│]", line)[1:-1]]


# --- the content: score_rows --------------------------------------------------------------


def test_score_rows_is_the_score_tables_content() -> None:
    """score_rows gives the score table's headers and rows (seats as rows, names first),
    or turned (seats as columns); score_table lays out exactly those."""
    game = play_bots(new_game(3, seed=4), 4)
    wide = score_rows(game)
    assert isinstance(wide, Grid) and wide.left == 2
    assert wide.headers[:2] == ["seat", "traveller"] and wide.headers[-2:] == ["total", "rank"]
    assert "Temple ranking" in wide.headers and "temple_ranking" not in wide.headers
    scores = game.scores()
    assert [row[0] for row in wide.rows] == [str(s.seat) for s in scores]
    assert [row[-2:] for row in wide.rows] == [[str(s.total), str(s.rank)] for s in scores]
    assert all(len(row) == len(wide.headers) for row in wide.rows)

    turned = score_rows(game, seats_as_columns=True)
    assert turned.left == 1
    assert turned.headers == ["seat", *(str(s.seat) for s in scores)]
    assert [turned.headers, *turned.rows] == [list(c) for c in zip(wide.headers, *wide.rows,
                                                                    strict=True)]

    plain = score_table(game, width=300).splitlines()  # seats as rows
    assert plain[0].split("  ")[0] == "seat" and len(plain) == 2 + len(wide.rows)
    for line, row in zip(plain[2:], wide.rows, strict=True):
        assert line.split() == " ".join(row).split()
    narrow = score_table(game, width=80).splitlines()  # seats as columns
    for line, row in zip(narrow, [turned.headers, *turned.rows], strict=True):
        assert line.split() == " ".join(row).split()


def test_a_grid_is_what_table_lays_out() -> None:
    """A Grid unpacks into table()'s arguments."""
    headers, rows, left = Grid(["bot", "win rate"], [["greedy", "0.500"]])
    assert left == 1
    assert table(headers, rows, left=left) == "bot     win rate\n------  --------\ngreedy     0.500"


# --- at a terminal, and piped ------------------------------------------------------------


def test_a_games_scores_at_an_80_column_terminal_are_a_rich_table(tmp_path: Path) -> None:
    """At a terminal (COLUMNS=80) the score table is drawn with rich from score_rows
    (here seats as columns: the categories do not fit as columns), no line wider than
    80; the journey stays as it is. Piped, the same command prints the plain table."""
    argv = ["simulate", "--players", "5", "--plugins", "crossroads", "--seed", "3",
            "--log", "game.jsonl"]
    out = at_terminal(argv, tmp_path)
    game = load_log(tmp_path / "game.jsonl")
    lines = shown(out)
    assert "\x1b[" in out  # rich styles the header
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    drawn = [cells(line) for line in lines if line.startswith(("┃", "│"))]
    turned = score_rows(game, seats_as_columns=True)
    assert drawn == [turned.headers, *turned.rows]
    assert "   1. seat 0: choose" in out and "Winner" in out

    plain = piped(argv, tmp_path)
    assert not BOX & set(plain) and "\x1b" not in plain
    assert score_table(game, width=80) in plain
    assert [x for x in lines if not BOX & set(x)] == plain.replace(
        score_table(game, width=80) + "\n", "").splitlines()  # the rest is the same


def test_a_wide_terminal_shows_seats_as_rows(tmp_path: Path) -> None:
    """Where every category fits as a column, seats are rows, as in the plain table."""
    out = at_terminal(["simulate", "--players", "4", "--seed", "3", "--log", "game.jsonl"],
                      tmp_path, COLUMNS="250")
    wide = score_rows(load_log(tmp_path / "game.jsonl"))
    lines = shown(out)
    drawn = [cells(line) for line in lines if line.startswith(("┃", "│"))]
    assert drawn == [wide.headers, *wide.rows]
    assert max(map(len, lines)) <= 250


def test_a_batchs_statistics_at_a_terminal_are_rich_tables(tmp_path: Path) -> None:
    """A batch's four tables are rich tables at the terminal, within its 80 columns, and
    the plain tables when piped."""
    argv = ["simulate", "--games", "6", "--players", "5", "--plugins", "crossroads",
            "--seed", "3"]
    lines = shown(at_terminal(argv, tmp_path))
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    heads = [cells(line)[0] for line in lines if line.startswith("┃")]
    assert heads == ["seat", "traveller", "bot", "category"]
    assert "Zen-emon" in "\n".join(lines) and "zenemon" not in "\n".join(lines)

    plain = piped(argv, tmp_path).splitlines()
    assert not BOX & set("".join(plain))
    under = [n for n, line in enumerate(plain) if line.startswith("----")]
    assert [plain[n - 1].split()[0] for n in under] == heads


def test_width_narrows_the_tables_and_long_cells_fold(tmp_path: Path) -> None:
    """--width is honoured at a terminal too: at 40 columns the score table still fits
    (more compact, its long labels wrapped) and so does everything else."""
    out = at_terminal(["simulate", "--players", "3", "--seed", "3", "--width", "40",
                       "--log", "game.jsonl"], tmp_path)
    lines = shown(out)
    assert all(len(line) <= 40 for line in lines), max(lines, key=len)
    assert any("─" in line for line in lines)
    scores = load_log(tmp_path / "game.jsonl").scores()
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[1:] == [str(s.total) for s in scores]


@pytest.mark.parametrize("setting", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_colour_at_a_terminal_that_asks_for_none(tmp_path: Path,
                                                    setting: dict[str, str]) -> None:
    """NO_COLOR and TERM=dumb are honoured as rich honours them: no colour (a dumb
    terminal gets no escape sequence at all); the table is still drawn."""
    out = at_terminal(["simulate", "--players", "3", "--seed", "3"], tmp_path, **setting)
    assert BOX & set(out)
    assert not re.search(r"\x1b\[[0-9;]*(3[0-9]|9[0-7]|38;)", out)  # no foreground colour
    if setting.get("TERM") == "dumb":
        assert "\x1b" not in out


# --- tokaido play -------------------------------------------------------------------------


def test_play_shows_the_final_scores_as_asked() -> None:
    """play.run shows the final scores with show_scores when given (tokaido play draws
    them with rich at a terminal), else the plain score table on its output."""
    shown_games: list[int] = []
    out = io.StringIO()
    answers = iter(["1"] * 500)
    end = run(new_game(2, seed=9), 0, ("greedy",), 9, lambda: next(answers), out,
              show_scores=lambda game: shown_games.append(game.state.seq))
    assert end.is_over and shown_games == [end.state.seq]
    assert "The journey is over." in out.getvalue()
    assert "traveller" not in out.getvalue().split("The journey is over.")[1]


def test_rich_stays_with_the_command_line() -> None:
    """The render module and tokaido play's library never load rich; the CLI only when it
    draws (a progress bar, a table)."""
    code = ("import sys, tokaido_rules, tokaido_rules.render, tokaido_rules.play, "
            "tokaido_rules.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == "
            "'rich'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

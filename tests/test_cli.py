"""The ``tokaido`` command line: simulate output, JSON document, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tokaido_rules.cli import main


def test_simulate_prints_journey_and_score_table(capsys: pytest.CaptureFixture[str]) -> None:
    """A simulated game prints one numbered line per decision and a score table."""
    assert main(["simulate", "--players", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tokaido: 3 players, seed 4, plugins base")
    assert "   1. seat " in out
    assert "end of the journey" in out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("seat  traveller"))
    for column in ("Panoramas", "Souvenirs", "Meals", "Temple ranking", "total", "rank"):
        assert column in header
    assert "Winner" in out


def test_simulate_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json prints one document with players, decisions and events."""
    assert main(["simulate", "--players", "2", "--seed", "9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["seat"] for p in doc["players"]] == [0, 1]
    for player in doc["players"]:
        assert player["score"] == sum(player["categories"].values())
        assert player["rank"] >= 1 and player["traveller"]
    assert doc["decisions"] > 20 and doc["events"] > doc["decisions"]
    assert doc["plugins"] == ["base"]
    assert set(doc["winners"]) == {p["seat"] for p in doc["players"] if p["rank"] == 1}


def test_simulate_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed prints the same game."""
    main(["simulate", "--players", "4", "--seed", "2"])
    first = capsys.readouterr().out
    main(["simulate", "--players", "4", "--seed", "2"])
    assert capsys.readouterr().out == first


def test_simulate_with_option(capsys: pytest.CaptureFixture[str]) -> None:
    """--option PLUGIN.NAME=VALUE reaches the ruleset."""
    assert main(["simulate", "--option", "base.meal_hand=players", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["base.meal_hand"] == "players"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--players", "7"], "players must be 2 to 5"),
        (["simulate", "--players", "x"], "invalid int value"),
        (["simulate", "--plugins", "base,nope"], "unknown plugin 'nope'"),
        (["simulate", "--option", "base.meal_hand=lots"], "cannot be 'lots'"),
        (["simulate", "--option", "nonsense"], "PLUGIN.NAME=VALUE"),
        (["simulate", "--option", "base.nope=1"], "unknown option"),
        (["simulate", "--plugins", ","], "at least one plugin"),
        (["fly"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input prints a single 'error: ...' line on stderr and returns 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err


def test_console_script_exit_status() -> None:
    """The installed command exits with status 2 on bad input, 0 on success."""
    bad = subprocess.run([sys.executable, "-m", "tokaido_rules.cli", "simulate", "--players", "9"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
    good = subprocess.run([sys.executable, "-m", "tokaido_rules.cli", "simulate", "--seed", "1"],
                          capture_output=True, text=True)
    assert good.returncode == 0 and "Winner" in good.stdout

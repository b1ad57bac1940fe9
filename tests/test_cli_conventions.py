"""The command line follows the conventions of click/typer tools (issue 23)."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from tokaido_rules import __version__, cli
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
    for command in ("simulate", "play", "serve", "schema", "plugins", "replay"):
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
    assert len(parsers) == 7
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

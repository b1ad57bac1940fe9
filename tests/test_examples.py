"""The example scripts in ``examples/`` run to completion and print what they promise."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

EXPECTED: dict[str, tuple[str, ...]] = {
    "play_game.py": ("4 players, plugins base, crossroads, seed 2024", "Traveller",
                     "Total", "Rank", "Winner: seat 0"),
    "replay_and_verify.py": ("Loaded game equals the live one: True",
                             "146 events and 40 decisions agree with the current rules so "
                             "far (the game is not over)",
                             "Seat 1's view at seq 146", "seed in header: False",
                             "verified: True"),
    "simulate_batch.py": ("40 games of 3 players", "Win rate by traveller:",
                          "Win rate by bot:", "greedy", "random"),
    "rl_agent.py": ("trained a linear policy for 24 games: 18 against random bots, 6 against "
                    "greedy bots", "win rate [95% Wilson interval], mean margin",
                    "first legal action", "random", "greedy bot", "trained agent"),
    "server_loop.py": ("rejected: the action was sent at seq 11; the game is at seq 14",
                       "rejected: seat 2 cannot decide for seat 1",
                       "rejected: base.choose_traveller field 'traveller': expected str",
                       "complete copy: True",
                       "reloads: True; verifies: True"),
}
"""Every example script and lines of its output (deterministic: the scripts are seeded)."""

ARGS: dict[str, tuple[str, ...]] = {"rl_agent.py": ("--quick",)}
"""Arguments that keep a script short here (the RL example trains on a few games)."""


def run(script: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), *ARGS.get(script.name, ())],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_every_example_is_covered() -> None:
    """A new script in examples/ must be added to EXPECTED (and so run by this module)."""
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str) -> None:
    """The script exits with status 0, writes nothing on stderr and prints its results."""
    result = run(EXAMPLES / name)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for expected in EXPECTED[name]:
        assert expected in result.stdout, f"{expected!r} not in the output:\n{result.stdout}"


@pytest.mark.parametrize("name", ["play_game.py", "simulate_batch.py"])
def test_example_output_is_deterministic(name: str) -> None:
    """Seeded scripts print the same thing on every run, even with worker processes."""
    assert run(EXAMPLES / name).stdout == run(EXAMPLES / name).stdout


def need_valgrind() -> None:
    """Skip a test of the instruction counts where valgrind (a system tool, which
    ``.ci/run`` installs) is missing, saying so; fail instead under CI, as the browser
    tests do."""
    if shutil.which("valgrind") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the instruction-count tests: no valgrind "
                        "(apt-get install valgrind)")
        pytest.skip("no valgrind (apt-get install valgrind)")


def test_the_benchmark_prints_every_measure() -> None:
    """A tiny run of ``benchmarks/bench.py`` prints each table: six columns of games, six
    of replay (a corpus and cold) (timings are not checked: they depend on the machine)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--games", "2",
         "--players", "2,3", "--rulesets", "base", "--repeat", "1", "--warmup", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("; 2 random games per row, after 3 untimed games; one core, "
                             "legality checks on")
    assert lines[0].startswith(f"{platform.python_implementation()} ")
    on_pypy = sys.implementation.name == "pypy"
    assert ("(JIT: trace_eagerness=20);" in lines[0]) is on_pypy
    assert lines[1] == ("games/s: each game's fastest of 1 runs; sustained: one pass, "
                        "everything included")
    rows = [line.split() for line in lines if line.startswith("base ")]
    assert [row[:2] for row in rows] == [["base", "2"], ["base", "3"], ["base", "2"],
                                         ["base", "3"]]
    assert [len(row) for row in rows] == [6, 6, 6, 6]
    assert any("replay events/s" in line and "cold" in line for line in lines)
    assert lines[-1].startswith("peak memory:")


def test_the_benchmark_warms_up_a_jit_only() -> None:
    """Untimed games come first on PyPy (its JIT compiles while it runs), not on CPython."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert bench.default_warmup() == (10_000 if sys.implementation.name == "pypy" else 0)


@pytest.mark.parametrize(("bots", "players"), [([], "random actions"),
                                               (["--bots", "random"], "bots random")])
def test_the_instruction_count_prints_one_figure(bots: list[str], players: str) -> None:
    """``benchmarks/instructions.py`` counts a game's instructions under valgrind, played
    by random actions or (``--bots``) by bots through the batch runner."""
    need_valgrind()
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "instructions.py"), "--games", "1",
         "--players", "2", *bots], cwd=ROOT, capture_output=True, text=True, timeout=600,
        check=False)
    assert result.returncode == 0, result.stderr
    head, _, tail = result.stdout.strip().partition(": ")
    assert head == "base, 2 players"
    assert float(tail.split()[0]) > 1  # millions of instructions per game
    assert tail.endswith(f"instructions per game ({players}, mean of 1)")


def test_the_instruction_count_of_loading_logs_prints_one_figure() -> None:
    """``benchmarks/instructions.py --replay`` counts loading a log instead of playing."""
    need_valgrind()
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "instructions.py"), "--games", "1",
         "--players", "2", "--replay", "cold"], cwd=ROOT, capture_output=True, text=True,
        timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    head, _, tail = result.stdout.strip().partition(": ")
    assert head == "base, 2 players"
    assert float(tail.split()[0]) > 1  # millions of instructions per log
    assert tail.endswith("instructions per log loaded (cold, mean of 1)")


@pytest.mark.parametrize("views", [False, True])
def test_the_bytecode_profile_counts_every_category(views: bool) -> None:
    """``benchmarks/bytecodes.py`` traces a game and prints the bytecodes per game, the
    share of each category (the engine's own ones all present) and the top functions."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bytecodes.py"), "--games", "1",
         "--warmup", "0", "--top", "3", *(["--views"] if views else [])],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    path = "a view per decision" if views else "engine"
    assert lines[0].endswith(f"bytecodes per game ({path} path, 1 games after 0 untraced)")
    shares = {line[:34].strip(): float(line.rsplit(None, 1)[-1].rstrip("%"))
              for line in lines[1:] if line.startswith("  ") and line.endswith("%")
              and not line.startswith("   ")}
    for name in ("event construction and folding", "engine decision loop", "move generation",
                 "base game rules", "chance", "hook dispatch", "driver"):
        assert shares[name] > 0, (name, result.stdout)
    assert (shares.get("views", 0) > 5) is views
    assert 99 < sum(shares.values()) < 101
    assert lines[-4] == "top 3 functions:"


def test_the_side_by_side_benchmark_runs_without_the_peer() -> None:
    """``benchmarks/peer.py --smoke`` (what CI runs: the peer is not a dependency) plays
    a few games of our side through every path, the fast simulator's among them, and
    says the peer was skipped."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peer.py"), "--smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "peer: skipped (give --peer PATH" in out
    assert "ours, engine" in out and "ours, random bot" in out
    assert "ours, a view per decision" in out
    assert "  fast  " in out and "fast, a copy per decision" in out
    assert "fast simulator pure Python" in out or "fast simulator compiled" in out
    assert "summary over 1 rounds" in out


def test_the_differential_benchmark_compares_and_says_so() -> None:
    """``benchmarks/fast.py`` plays seeds on both engines, three ways, and exits 0 when
    every game agrees."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fast.py"), "--games", "2",
         "--players", "2,5", "--plugins", "base,bga", "--jobs", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 2 * 3 + 1
    assert all(line.endswith("all equal") for line in lines[1:])
    assert lines[-1].startswith("12 games in ")
    timed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fast.py"), "--time", "--rounds", "1",
         "--plugins", "base,crossroads"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert timed.returncode == 0, timed.stderr
    row = timed.stdout.splitlines()[1].split()
    assert row[0] == "base+crossroads" and row[1] == "reference" and "ratio" in row


def test_counting_instructions_without_valgrind_is_a_one_line_error(tmp_path: Path) -> None:
    """``peer.py --instructions`` needs valgrind: without it on the PATH the script says
    so in one line and exits with status 1, before playing anything."""
    bare = tmp_path / "bin"
    bare.mkdir()
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peer.py"), "--instructions", "--smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": str(bare)})
    assert result.returncode == 1
    assert result.stderr.strip() == "error: --instructions needs valgrind on the PATH"

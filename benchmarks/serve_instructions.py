"""Machine instructions of the table server per decision, counted by valgrind: a cost
measure that repeats from run to run, whatever else the machine is doing.

Run: ``python benchmarks/serve_instructions.py [--tables 4] [--clients 4] [--seed 3]``.

``serve_load.py`` plays its tables' games to the end (``--seconds`` is only a bound)
against ``tokaido serve`` running under ``valgrind --tool=callgrind`` (about 50 times
slower), once playing and once only starting (``--max-requests 1``); the difference per
decision played is printed: the server's whole work per decision (HTTP, the event loop,
the tables, SQLite; the pages opened included), start-up and imports left out.

The server is started through this script, which gives every new table the same seed
(:data:`TABLE_SEED`, where ``tokaido serve`` draws one), with string hashes fixed, so
that the games and the count repeat: two runs of one tree agree within about 0.1%
(what the clients' timing still changes). Compare two versions of the server by running
this in each tree. Needs ``valgrind`` on the PATH.
"""

from __future__ import annotations

import argparse
import json
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TABLE_SEED = 1000
"""The seed of every table's game (each table's clients choose by their own seed)."""


def serve(arguments: list[str]) -> None:
    """``tokaido serve ARGUMENTS``, every new table's game seeded with
    :data:`TABLE_SEED` (the server under count)."""
    import tokaido_rules.tables as tables

    tables.new_seed = lambda: TABLE_SEED  # type: ignore[attr-defined]
    sys.argv = ["tokaido_rules", *arguments]
    runpy.run_module("tokaido_rules", run_name="__main__", alter_sys=True)


def counted(args: argparse.Namespace, folder: Path, start_only: bool) -> tuple[int, int]:
    """(instructions, decisions) of one ``serve_load.py`` run against the server under
    callgrind."""
    out = folder / ("start.cg" if start_only else "play.cg")
    wrapper = folder / "server.sh"
    # serve_load starts "PYTHON -m tokaido_rules serve ...": the wrapper drops "-m
    # tokaido_rules" and runs this script's serve() under callgrind instead
    wrapper.write_text("#!/bin/sh\nshift 2\nPYTHONHASHSEED=0 exec valgrind --tool=callgrind "
                       f"--callgrind-out-file={out} {sys.executable} {Path(__file__).resolve()}"
                       ' --serve "$@"\n')
    wrapper.chmod(0o755)
    load = Path(__file__).with_name("serve_load.py")
    command = [sys.executable, str(load), "--tables", str(args.tables), "--clients",
               str(args.clients), "--seed", str(args.seed), "--seconds", str(args.seconds),
               "--json", "--python", str(wrapper),
               *(["--max-requests", "1"] if start_only else [])]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False,
                                timeout=args.seconds * 3 + 600)
    except subprocess.TimeoutExpired:
        raise SystemExit("error: serve_load.py did not finish in time") from None
    if result.returncode != 0:
        raise SystemExit(f"error: serve_load.py failed:\n{result.stderr[-2000:]}")
    decisions = int(json.loads(result.stdout)["runs"][-1]["decisions"])
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1]), decisions
    raise SystemExit(f"error: callgrind wrote no count in {out}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--clients", type=int, default=4, help="clients per table (4)")
    parser.add_argument("--seed", type=int, default=3, help="the clients' choices' seed")
    parser.add_argument("--seconds", type=float, default=240.0,
                        help="the most a run lasts (its games end sooner)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("error: valgrind is not installed")
    if args.tables < 1 or args.clients < 1:
        raise SystemExit("error: --tables and --clients must be at least 1")
    with tempfile.TemporaryDirectory(prefix="tokaido-serve-instructions-") as name:
        folder = Path(name)
        played, decisions = counted(args, folder, start_only=False)
        started, _ = counted(args, folder, start_only=True)
    if decisions == 0:
        raise SystemExit("error: no decision was played")
    print(json.dumps({"decisions": decisions, "instructions_played": played,
                      "instructions_start": started,
                      "million_per_decision": round((played - started) / decisions / 1e6,
                                                    3)}))


if __name__ == "__main__":
    main()

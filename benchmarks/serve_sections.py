"""Where the table server's CPU goes, section by section, in milliseconds per decision:
each section's CPU time measured by the thread's own clock (``time.thread_time``), not
sampled, so that time spent waiting in a system call is never counted as work.

Run: ``python benchmarks/serve_sections.py [--tables 200] [--clients 4] [--seconds 30]``.

``serve_load.py`` drives the server as it does for its own figures, but the server is
started through this script, which wraps the table service's main functions with a
clock: the move (decode, apply), storing it, the log copies, the narrators' words, the
views, the scenes, the rest of each update (the seat's part, the scene patches, the
text), garbage collection (``gc.callbacks``), and everything else (HTTP, asyncio, the
threads) as the process's CPU time less the sections. Each section counts its own time
only (a section called inside another is taken out of the outer one). The count starts at the first
move, so that making the tables and opening the pages are left out; serve_load's own
``server_cpu_ms_per_decision`` (from its first page on) is printed beside it.

The clock costs about a microsecond per wrapped call, a few percent of the whole.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECTIONS: list[tuple[str, str, str]] = [
    ("the move (decode, apply, checks)", "tokaido_rules.tables", "Table.act"),
    ("storing it (SQLite)", "tokaido_rules.store", "TableStore.append"),
    ("the log copies (feeds)", "tokaido_rules.log", "LogFeed.new_lines"),
    ("the words (narrators)", "tokaido_rules.viewer", "Narrator.add_shown"),
    ("the views", "tokaido_rules.views", "make_view"),
    ("the scenes (scene_json)", "tokaido_rules.render", "scene_json"),
    ("scene texts and patches", "tokaido_rules.tables", "Table._scene_news"),
    ("the seat's part (actions, purse, take-back)", "tokaido_rules.tables", "Table._own"),
    ("the table's part", "tokaido_rules.tables", "Table._head"),
    ("the rest of each update (lines, steps, text)", "tokaido_rules.tables", "Table.update"),
]
"""(label, module, function or Class.method) of each section, in the order printed."""

GC = "garbage collection"
OUTSIDE = "everything else (HTTP, asyncio, threads)"

_spent: dict[str, float] = {}
_local = threading.local()
_start: list[tuple[dict[str, float], float]] = []  # (spent, process CPU) at the first move
_lock = threading.Lock()


def _clocked(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def clocked(*args: Any, **kwargs: Any) -> Any:
        stack: list[list[float]] = _local.__dict__.setdefault("stack", [])
        frame = [time.thread_time(), 0.0]  # [start, time of the sections inside]
        stack.append(frame)
        try:
            return function(*args, **kwargs)
        finally:
            total = time.thread_time() - frame[0]
            stack.pop()
            if stack:
                stack[-1][1] += total
            with _lock:
                _spent[label] = _spent.get(label, 0.0) + total - frame[1]
    return clocked


def _collecting(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` entry: the collection's time is its own section, taken out of
    the section it interrupted."""
    if phase == "start":
        _local.collecting = time.thread_time()
        return
    began = _local.__dict__.pop("collecting", None)
    if began is None:
        return
    total = time.thread_time() - began
    stack: list[list[float]] = _local.__dict__.setdefault("stack", [])
    if stack:
        stack[-1][1] += total
    with _lock:
        _spent[GC] = _spent.get(GC, 0.0) + total


def _first_move(act: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(act)
    def first(*args: Any, **kwargs: Any) -> Any:
        if not _start:
            with _lock:
                _start.append((dict(_spent), _process_cpu()))
        return act(*args, **kwargs)
    return first


def _process_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _wrap() -> None:
    import importlib

    for label, module_name, name in SECTIONS:
        module = importlib.import_module(module_name)
        owner: Any = module
        if "." in name:
            cls_name, name = name.split(".")
            owner = getattr(module, cls_name)
        setattr(owner, name, _clocked(label, getattr(owner, name)))
    import gc

    gc.callbacks.append(_collecting)
    import tokaido_rules.engine as engine
    import tokaido_rules.render as render
    import tokaido_rules.tables as tables
    import tokaido_rules.views as views

    # functions imported by name elsewhere: the same clock there
    engine.make_view = views.make_view  # type: ignore[attr-defined]
    tables.scene_json = render.scene_json  # type: ignore[attr-defined]
    tables.Table.act = _first_move(tables.Table.act)  # type: ignore[method-assign]


def _dump(path: str) -> None:
    end = _process_cpu()
    with _lock:
        spent = dict(_spent)
    before, cpu_before = _start[0] if _start else ({}, 0.0)
    Path(path).write_text(json.dumps({
        "cpu_s": end - cpu_before,
        "sections": {k: v - before.get(k, 0.0) for k, v in spent.items()}}))


def serve(arguments: list[str]) -> None:
    """``tokaido serve ARGUMENTS`` with the sections clocked; their times are written to
    the file named by ``TOKAIDO_SECTIONS`` when the server stops."""
    out = os.environ["TOKAIDO_SECTIONS"]
    _wrap()
    raise_signal = signal.raise_signal

    def dump_then_raise(signum: int) -> None:  # uvicorn passes the stopping signal on
        _dump(out)
        raise_signal(signum)

    signal.raise_signal = dump_then_raise
    sys.argv = ["tokaido_rules", *arguments]
    try:
        runpy.run_module("tokaido_rules", run_name="__main__", alter_sys=True)
    finally:
        _dump(out)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--clients", type=int, default=4, help="clients per table (4)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tokaido-serve-sections-") as name:
        folder = Path(name)
        out = folder / "sections.json"
        wrapper = folder / "server.sh"
        # serve_load starts "PYTHON -m tokaido_rules serve ...": the wrapper drops "-m
        # tokaido_rules" and runs this script's serve() instead
        wrapper.write_text(f"#!/bin/sh\nshift 2\nTOKAIDO_SECTIONS={out} exec {sys.executable} "
                           f'{Path(__file__).resolve()} --serve "$@"\n')
        wrapper.chmod(0o755)
        load = Path(__file__).with_name("serve_load.py")
        result = subprocess.run(
            [sys.executable, str(load), "--tables", str(args.tables), "--clients",
             str(args.clients), "--seconds", str(args.seconds), "--json", "--python",
             str(wrapper)], capture_output=True, text=True, check=False,
            timeout=args.seconds * 4 + 600)
        if result.returncode != 0:
            raise SystemExit(f"error: serve_load.py failed:\n{result.stderr[-2000:]}")
        run = json.loads(result.stdout)["runs"][-1]
        if not out.is_file():
            raise SystemExit("error: the server wrote no sections")
        found = json.loads(out.read_text())
    decisions = int(run["decisions"])
    if decisions == 0:
        raise SystemExit("error: no decision was played")
    rows = [(label, found["sections"].get(label, 0.0))
            for label in [*(label for label, _, _ in SECTIONS), GC]]
    rows.append((OUTSIDE, found["cpu_s"] - sum(v for _, v in rows)))
    per = {label: round(1000 * v / decisions, 3) for label, v in rows}
    figures = {"decisions": decisions, "server_cpu_ms_per_decision":
               run["server_cpu_ms_per_decision"],
               "from_first_move_ms_per_decision": round(1000 * found["cpu_s"] / decisions, 3),
               "sections_ms_per_decision": per}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{decisions} decisions; server CPU per decision {run['server_cpu_ms_per_decision']}"
          f" ms (serve_load), {figures['from_first_move_ms_per_decision']} ms from the first"
          " move on:")
    for label, ms in per.items():
        print(f"  {ms:6.3f} ms  {label}")


if __name__ == "__main__":
    main()

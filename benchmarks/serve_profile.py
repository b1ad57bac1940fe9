"""Where the server's CPU goes: sums up the collapsed stacks that
``benchmarks/serve_load.py --profile DIR`` had py-spy sample (``DIR/serve-SHAPE.txt``).

Run: ``python benchmarks/serve_profile.py DIR/serve-each.txt [--decisions N]``.

Each sample (a thread on the CPU) is put in the first category whose pattern one of
its frames matches, the innermost frame first, so that a category names the work itself
(the pictures, the rules, SQLite, gzip, HTTP, asyncio) wherever it was called from.
With ``--decisions`` (the run's ``decisions``) and ``--cpu`` (its server CPU seconds),
each category is also given in milliseconds of CPU per decision.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

CATEGORIES: list[tuple[str, str]] = [
    ("pictures (SVG)", r"tokaido_rules/render\.py:.*\b(svg|_svg|_road|_board|_pieces)|"
                       r"\(svg |\(_svg"),
    ("gzip", r"zlib|gzip"),
    ("SQLite (store)", r"tokaido_rules/store\.py|sqlite3"),
    ("the rules (apply, views, legal actions)",
     r"tokaido_rules/(engine|moves|model|fast|frozen|visibility|views|registry|chance)\.py|"
     r"tokaido_base|tokaido_crossroads"),
    ("the log and the words (feeds, narrator)",
     r"tokaido_rules/(log|viewer|events|codec)\.py"),
    ("answers (documents, updates, JSON)", r"tokaido_rules/(tables|wire|render)\.py|"
                                           r"json/(encoder|decoder|__init__)"),
    ("HTTP (parsing, framing)", r"h11|httptools|uvicorn/protocols"),
    ("Starlette (routing, middleware, responses)", r"starlette"),
    ("threads (hand-offs to the pool)", r"anyio|threading\.py|concurrent/futures"),
    ("asyncio (the event loop, sockets)", r"asyncio|selectors"),
    ("the server (web.py)", r"tokaido_rules/web\.py"),
]


IDLE = re.compile(r"^(Condition\.wait|EpollSelector\.select|KqueueSelector\.select|"
                  r"SelectSelector\.select|Event\.wait|Thread\._wait_for_tstate_lock) ")
"""Innermost frames of a thread that waits (py-spy may count it as running)."""


def categorize(stack: str) -> str:
    frames = stack.split(";")[::-1]  # innermost first
    for frame in frames:
        for name, pattern in CATEGORIES:
            if re.search(pattern, frame):
                return name
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("--decisions", type=int)
    parser.add_argument("--cpu", type=float, help="the server's CPU seconds in the run")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    for line in args.samples.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit() and not IDLE.match(stack.split(";")[-1]):
            counts[categorize(stack)] += int(n)
    total = sum(counts.values()) or 1
    per = (args.cpu * 1000 / args.decisions) if args.cpu and args.decisions else None
    print(f"{'category':<46}{'share':>7}" + (f"{'ms/decision':>13}" if per else ""))
    for name, n in counts.most_common():
        print(f"{name:<46}{100 * n / total:>6.1f}%"
              + (f"{per * n / total:>13.2f}" if per else ""))
    print(f"{'(samples)':<46}{total:>7}" + (f"{per:>13.2f}" if per else ""))


if __name__ == "__main__":
    main()

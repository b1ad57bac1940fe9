"""How long ``tokaido serve`` takes to start on a database of many stored tables, each of
which is verified (played again from its seed) before it is served.

Run: ``python benchmarks/serve_restart.py [--tables N] [--finished F] [--db FILE]``.

Makes ``N`` tables (default 2,000) in a fresh database in a temporary directory (or
``--db``, kept if it exists): 4 players each, a person at seat 0 and bots at the others,
the bots having played up to the person's first decision; of them ``F`` (default 200)
bots only, played to the end (a finished game, about 250 events). Then it measures, in
this process:

- ``lobby``: ``Lobby(store, background=True)``, what ``tokaido serve`` does before it
  listens (reading the table records; the tables are verified in the background);
- ``all verified``: until the background has verified and resumed every table;
- ``one table``: ``Lobby.get`` of the last table at once, before the background
  reaches it (the table is verified then and there: a request never waits for the
  others);
- ``foreground``: ``Lobby(store)``, every table verified before the lobby is made;

and the real server: ``python -m tokaido_rules serve`` on the database until it answers
``GET /api/tables`` on 127.0.0.1 (every wait bounded), then until the listing holds every
table. The figures are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tokaido_rules.store import TableStore
from tokaido_rules.tables import Lobby


def make(path: Path, tables: int, finished: int) -> None:
    """``tables`` tables in the database at ``path``, ``finished`` of them bots only."""
    store = TableStore(path, synchronous="NORMAL")
    lobby = Lobby(store)
    for n in range(tables):
        if n < finished:
            lobby.create(4, ["base"], bots={str(s): "random" for s in range(4)}, seed=n)
        else:
            table, _ = lobby.create(4, ["base"], bots={"1": "random", "2": "greedy",
                                                       "3": "random"}, seed=n)
            table.join(0)
    store.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listed(url: str) -> int:
    with urllib.request.urlopen(url + "/api/tables", timeout=10) as answer:
        return len(json.loads(answer.read())["tables"])


def served(path: Path, tables: int, deadline: float = 300) -> tuple[float, float]:
    """Seconds from starting ``tokaido serve`` on ``path`` until it answers, and until
    its listing holds ``tables`` tables."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tokaido_rules", "serve", "--db",
                             str(path), "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    answered = complete = float("nan")
    try:
        end = started + deadline
        while time.perf_counter() < end:
            try:
                count = _listed(url)
            except OSError:
                time.sleep(0.02)
                continue
            if answered != answered:
                answered = time.perf_counter() - started
            if count >= tables:
                complete = time.perf_counter() - started
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    return answered, complete


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--finished", type=int, default=200)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "tables.db"
        if not path.exists():
            started = time.perf_counter()
            make(path, args.tables, args.finished)
            print(f"made {args.tables} tables ({args.finished} finished) in "
                  f"{time.perf_counter() - started:.1f} s: {path.stat().st_size / 2**20:.1f} MiB")
        store = TableStore(path)
        count = len(store.tables())
        last = store.tables()[-1].id
        store.close()

        store = TableStore(path)
        started = time.perf_counter()
        lobby = Lobby(store, background=True)
        made = time.perf_counter() - started
        lobby.get(last)
        one = time.perf_counter() - started - made
        assert lobby.wait_resumed(timeout=600)
        everything = time.perf_counter() - started
        print(f"lobby (the server listens after it): {made:.3f} s; one table asked for at "
              f"once: {one * 1000:.1f} ms; all {count} verified: {everything:.1f} s; "
              f"refused: {len(lobby.refused)}")
        store.close()

        store = TableStore(path)
        started = time.perf_counter()
        Lobby(store)
        print(f"foreground (every table verified first): {time.perf_counter() - started:.1f} s")
        store.close()

        answered, complete = served(path, count)
        print(f"tokaido serve: answers after {answered:.2f} s, lists all {count} tables "
              f"after {complete:.1f} s")


if __name__ == "__main__":
    main()

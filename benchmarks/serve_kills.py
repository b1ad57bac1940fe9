"""``kill -9`` loop of the game server ``tokaido serve``, on loopback only (127.0.0.1).

Run: ``python benchmarks/serve_kills.py [--tables N] [--kills K] [--json]``.

``N`` tables (default 10) of 3 seats: seat 0 played by a client of this script, seats
1 and 2 by random bots, each bot slowed down by ``--bot-delay`` seconds (default 0.05,
through the server's test hook ``TOKAIDO_TEST_BOT_DELAY``) so that kills often land
between a person's move and the bots'. The clients play for a random 0.5 to 2 s, then
the server is killed with SIGKILL, and the database is read as it was left: every move
the server acknowledged (a 200 with its ``seq``) must be stored, and the tables waiting
on a bot are counted. The server is started again on the same database, and after
``--settle`` seconds (default 5) with no request at all, the tables still waiting on a
bot are counted again: they should be none. After the last kill the server is stopped
with SIGTERM, and the tables waiting on a bot counted once more. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tokaido_rules import load_log
from tokaido_rules.tables import BOT_DELAY_VARIABLE


def call(url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    """One request: (status, JSON answer); a server killed mid-answer is an OSError
    (ConnectionError), like a refused connection: the caller counts it as failed."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except http.client.HTTPException as exc:  # IncompleteRead: killed mid-answer
        raise ConnectionError(f"the answer was cut off: {exc!r}") from None


def stored(db: Path) -> dict[str, tuple[int, bool, bool]]:
    """Each table as the database holds it: its seq, whether it is over, and whether
    its decision at hand is a bot's."""
    out = {}
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                            timeout=30)) as conn:
        for table, header in conn.execute("SELECT id, header FROM tables").fetchall():
            lines = [r[0] for r in conn.execute(
                "SELECT line FROM lines WHERE table_id = ? ORDER BY n", (table,))]
            kinds = [r[0] for r in conn.execute(
                "SELECT kind FROM seats WHERE table_id = ? ORDER BY seat", (table,))]
            game = load_log("".join(line + "\n" for line in [header, *lines]))
            bot = not game.is_over and kinds[game.current_player or 0] == "bot"
            out[table] = (game.state.seq, game.is_over, bot)
    return out


def start(db: Path, port: int, delay: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokaido_rules", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, BOT_DELAY_VARIABLE: str(delay)})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if call(f"http://127.0.0.1:{port}/api/tables")[0] == 200:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="tokaido-serve-kills-"))
    db = workdir / "tables.db"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    proc = start(db, port, args.bot_delay)
    seats: dict[str, str] = {}
    for _ in range(args.tables):
        made = call(url + "/api/tables", {"players": 3, "bots": {"1": "random",
                                                                 "2": "random"}})[1]
        seats[made["table"]] = call(f"{url}/api/tables/{made['table']}/join",
                                    {"seat": 0})[1]["token"]
    acknowledged: dict[str, int] = dict.fromkeys(seats, 0)
    moves = 0
    lost = waiting_after_kill = waiting_after_restart = 0
    lock = threading.Lock()

    def play(table: str, token: str, stop: threading.Event) -> None:
        nonlocal moves
        while not stop.is_set():
            try:
                status, doc = call(f"{url}/api/tables/{table}?since=0", token=token)
                if status != 200 or doc["over"]:
                    return
                if not doc["actions"]:
                    call(f"{url}/api/tables/{table}?since={doc['seq']}&wait=2", token=token)
                    continue
                action = rng.choice(doc["actions"])["action"]
                status, _ = call(f"{url}/api/tables/{table}/action",
                                 {"action": action, "expected_seq": doc["seq"]}, token)
                if status == 200:
                    with lock:
                        moves += 1
                        acknowledged[table] = max(acknowledged[table], doc["seq"] + 1)
            except (OSError, ValueError):
                time.sleep(0.05)  # the server is down: it comes back

    began = time.monotonic()
    for _ in range(args.kills):
        stop = threading.Event()
        clients = [threading.Thread(target=play, args=(t, k, stop), daemon=True)
                   for t, k in seats.items()]
        for client in clients:
            client.start()
        time.sleep(rng.uniform(0.5, 2.0))
        proc.kill()
        proc.communicate(timeout=60)
        stop.set()
        for client in clients:
            client.join(timeout=60)
        now = stored(db)
        with lock:
            lost += sum(1 for t, seq in acknowledged.items() if now[t][0] < seq)
        waiting_after_kill += sum(1 for _, _, bot in now.values() if bot)
        proc = start(db, port, args.bot_delay)
        time.sleep(args.settle)  # no request meanwhile
        waiting_after_restart += sum(1 for _, _, bot in stored(db).values() if bot)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    final = stored(db)
    report = {"tables": args.tables, "kills": args.kills, "bot_delay_s": args.bot_delay,
              "acknowledged_moves": moves, "acknowledged_moves_lost": lost,
              "tables_waiting_on_a_bot_right_after_the_kills": waiting_after_kill,
              f"tables_waiting_on_a_bot_{args.settle:g}s_after_the_restarts":
                  waiting_after_restart,
              "tables_waiting_on_a_bot_after_sigterm": sum(1 for *_, b in final.values() if b),
              "games_over": sum(1 for _, over, _ in final.values() if over),
              "elapsed_s": round(time.monotonic() - began, 1)}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0 if lost == 0 and waiting_after_restart == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

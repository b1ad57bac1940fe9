"""The real ``tokaido serve`` on loopback: its limits (bodies, slow and idle connections,
the number of connections), kill -9 and a restart, a busy port. Every request goes to
127.0.0.1 only, each loop is bounded, and every server started here is stopped."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from processes import call, free_port, started
from tokaido_rules import Game, load_log, web
from tokaido_rules.store import TableStore
from tokaido_rules.store_pg import PgTableStore
from tokaido_rules.tables import BOT_DELAY_VARIABLE, Lobby, _new_table_id
from tokaido_rules.web import bind, make_server


@pytest.fixture(params=["memory", "postgres"])
def server(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
           ) -> Iterator[tuple[str, Lobby]]:
    """A server in a thread with small limits: 12 connections, headers within 0.6 s,
    bodies within 0.6 s; its tables in memory, or in a PostgreSQL database (the same
    tests on both backends; PostgreSQL's skip without it, outside CI)."""
    monkeypatch.setattr(web, "BODY_SECONDS", 0.6)
    lobby = Lobby() if request.param == "memory" else \
        Lobby(PgTableStore(request.getfixturevalue("pg_url")))
    running = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0, max_connections=12,
                          header_seconds=0.6, idle_seconds=1).start()
    try:
        yield running.url, lobby
    finally:
        running.stop()


def _raw(url: str, data: bytes, *, wait: float = 5) -> bytes:
    """Send ``data`` as it is on a new connection; what comes back until it closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as conn:
        if data:
            conn.sendall(data)
        out = b""
        try:
            while chunk := conn.recv(65536):
                out += chunk
        except TimeoutError:
            pass
        return out


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def test_an_oversized_body_is_refused_before_it_is_read(server: tuple[str, Lobby]) -> None:
    """A Content-Length over the limit is answered 413 at once, the body never sent; a
    chunked body that grows past the limit is cut off with 413 too; the server stays
    up."""
    url, _ = server
    head = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            b"application/json\r\n")
    started = time.monotonic()
    answer = _raw(url, head + b"Content-Length: 419430400\r\nConnection: close\r\n\r\n")
    assert _status(answer) == 413 and b"too large" in answer
    assert time.monotonic() - started < 4
    chunk = b"[" * 16_000
    chunked = head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + b"".join(
        b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(6)) + b"0\r\n\r\n"
    assert _status(_raw(url, chunked)) == 413
    assert call(url + "/api/tables")[0] == 200


def test_slow_and_idle_connections_are_closed(server: tuple[str, Lobby]) -> None:
    """A connection that sends nothing, or its headers a byte at a time, is closed once
    its time is up; a body that does not come is answered 408; the server answers
    others meanwhile."""
    url, _ = server
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as idle:
        started = time.monotonic()
        assert idle.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < 4
    with socket.create_connection((host, int(port)), timeout=5) as slow:
        closed = False
        for byte in b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n":
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.1)
        if not closed:
            assert slow.recv(100) == b""
    answer = _raw(url, b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                       b"application/json\r\nContent-Length: 50\r\n\r\n{", wait=5)
    assert _status(answer) == 408
    assert call(url + "/api/tables")[0] == 200


def test_connections_are_bounded_and_the_server_stays_up(server: tuple[str, Lobby]) -> None:
    """Past the bound, a new connection is answered 503 (read by the client, not lost to
    a reset) and closed; once the idle ones are gone the server answers as before."""
    url, _ = server
    host, port = url.removeprefix("http://").split(":")
    held = [socket.create_connection((host, int(port)), timeout=5) for _ in range(12)]
    try:
        time.sleep(0.1)
        answer = _raw(url, b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _status(answer) == 503 and b"too many connections" in answer
    finally:
        for conn in held:
            conn.close()
    for _ in range(50):
        try:
            if call(url + "/api/tables", timeout=5)[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.1)
    assert call(url + "/api/tables")[0] == 200


def test_a_long_poll_answers_when_the_game_moves(server: tuple[str, Lobby]) -> None:
    """A client waiting on ``since=SEQ&wait=S`` is answered as soon as another seat's
    action moves the game past SEQ, with the steps since; with nothing new it is
    answered when the wait is over, with no steps."""
    url, _ = server
    status, made = call(url + "/api/tables", {"players": 2})
    assert status == 201
    table = made["table"]
    tokens = {s: call(f"{url}/api/tables/{table}/join", {"seat": s})[1]["token"]
              for s in (0, 1)}
    status, doc = call(f"{url}/api/tables/{table}", token=tokens[0])
    seat = doc["current_player"]
    other = 1 - seat
    seq = doc["seq"]
    started = time.monotonic()
    timed = call(f"{url}/api/tables/{table}?since={seq}&wait=1", token=tokens[other])[1]
    assert 0.9 < time.monotonic() - started < 10 and timed["seq"] == seq
    assert timed["steps"] == []
    got: dict[str, Any] = {}

    def wait() -> None:
        got.update(call(f"{url}/api/tables/{table}?since={seq}&wait=20",
                         token=tokens[other])[1])

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    mine = call(f"{url}/api/tables/{table}", token=tokens[seat])[1]
    status, _ = call(f"{url}/api/tables/{table}/action",
                      {"action": mine["actions"][0]["action"], "expected_seq": seq},
                      token=tokens[seat])
    assert status == 200
    started = time.monotonic()
    waiter.join(timeout=10)
    assert not waiter.is_alive() and time.monotonic() - started < 5
    assert got["seq"] > seq and got["steps"]


def _start(db: Path, *args: str, env: dict[str, str] | None = None
           ) -> tuple[subprocess.Popen[str], list[str]]:
    """``tokaido serve`` in its own process; its first lines of output (a server that
    has not said them within 60 s is killed, and the test fails saying so)."""
    proc = subprocess.Popen([sys.executable, "-m", "tokaido_rules", "serve", "--db", str(db),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **(env or {})})
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        lines = started(proc)
    finally:
        watchdog.cancel()
    if not lines[-1].startswith("All tables:"):
        proc.kill()
        _, err = proc.communicate(timeout=30)
        raise AssertionError(f"tokaido serve did not start: {lines} {err[-2000:]}")
    return proc, lines


def _stop_server(proc: subprocess.Popen[str], how: int = signal.SIGTERM) -> str:
    """Stop a server (SIGTERM: cleanly); its stderr. One that has not ended within 60 s
    is killed, and the test fails saying so."""
    if proc.poll() is None:
        proc.send_signal(how)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=30)
        raise AssertionError("tokaido serve did not stop within 60 s") from None
    return err


def _until_up(url: str) -> None:
    for _ in range(200):
        try:
            if call(url + "/api/tables", timeout=2)[0] == 200:
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server did not come up")


def test_kill_9_and_a_restart_resume_the_game_at_the_same_seq(tmp_path: Path) -> None:
    """Played through HTTP, killed with SIGKILL, started again on the same database:
    the table is at the seq of the last acknowledged action, the seat's token still
    plays it, and the game goes on."""
    db = tmp_path / "tables.db"
    port = str(free_port())
    proc, lines = _start(db, "--port", port, "--players", "3", "--human", "0",
                         "--bots", "random", "--seed", "7")
    url = f"http://127.0.0.1:{port}"
    try:
        found = re.search(r"/t/([\w-]+)#token=([\w-]+)", "".join(lines))
        assert found, lines
        table, token = found.groups()
        _until_up(url)
        acknowledged = 0
        for _ in range(6):
            doc = call(f"{url}/api/tables/{table}", token=token)[1]
            status, after = call(f"{url}/api/tables/{table}/action",
                                  {"action": doc["actions"][0]["action"],
                                   "expected_seq": doc["seq"]}, token=token)
            assert status == 200
            acknowledged = after["seq"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert TableStore(db).lines(table)  # the database is readable after the kill
    proc, lines = _start(db, "--port", port)
    try:
        assert not any("/t/" in line and "#token" in line for line in lines)  # no new table
        _until_up(url)
        doc = call(f"{url}/api/tables/{table}", token=token)[1]
        assert doc["seq"] == acknowledged and doc["actions"]
        status, after = call(f"{url}/api/tables/{table}/action",
                              {"action": doc["actions"][0]["action"],
                               "expected_seq": doc["seq"]}, token=token)
        assert status == 200 and after["seq"] > acknowledged
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


def test_a_busy_port_is_one_error_line_and_status_2(tmp_path: Path) -> None:
    """Started on a port another program listens on, the server says so in one
    ``error:`` line and exits 2, creating no table."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "tokaido_rules", "serve", "--db",
                               str(tmp_path / "t.db"), "--port", str(port)],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: 127.0.0.1:{port} is in use"
    assert not (tmp_path / "t.db").exists()


# --- tables that never get stuck: bots after a restart, limits, expiry, deletion ----


def _stored(db: Path, table: str) -> tuple[Game, list[str], list[str]]:
    """What the database holds of ``table``, read as another program would (read-only,
    beside the server): its game, its seats' kinds, and who played each decision."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                            timeout=30)) as conn:
        header = conn.execute("SELECT header FROM tables WHERE id = ?", (table,)).fetchone()
        assert header is not None, f"no table {table} in {db}"
        lines = [r[0] for r in conn.execute(
            "SELECT line FROM lines WHERE table_id = ? ORDER BY n", (table,))]
        kinds = [r[0] for r in conn.execute(
            "SELECT kind FROM seats WHERE table_id = ? ORDER BY seat", (table,))]
        played = [r[0] for r in conn.execute(
            "SELECT played_by FROM decisions WHERE table_id = ? ORDER BY seq", (table,))]
    game = load_log("".join(line + "\n" for line in [header[0], *lines]))
    return game, kinds, played


def _waits_on_bot(db: Path, table: str) -> bool:
    game, kinds, _ = _stored(db, table)
    return not game.is_over and kinds[game.current_player or 0] == "bot"


def _until(what: Callable[[], bool], why: str, seconds: float = 60) -> None:
    """Wait until ``what()`` holds; fail saying ``why`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds:g} s: {why}")
        time.sleep(0.1)


def _swallow(call: Callable[[], object]) -> None:
    with contextlib.suppress(OSError):
        call()


def _table_at_a_persons_decision(db: Path, port: str) -> tuple[str, str]:
    """A 3-seat table (seat 0 a person, two bots) waiting on the person; its id and the
    person's token. The server that made it is stopped cleanly."""
    proc, lines = _start(db, "--port", port, "--players", "3", "--human", "0",
                         "--bots", "random", "--seed", "11")
    try:
        found = re.search(r"/t/([\w-]+)#token=([\w-]+)", "".join(lines))
        assert found, lines
        table, token = found.groups()
    finally:
        _stop_server(proc)
    assert not _waits_on_bot(db, table)
    return table, token


def _cut_after(db: Path, table: str, seq: int) -> None:
    """Take back the decisions after ``seq`` and their log lines (line N is event N), as
    a kill between the person's move and the bots' would have left the table."""
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        first = conn.execute("SELECT min(seq) FROM decisions WHERE table_id = ? AND seq > ?",
                             (table, seq)).fetchone()[0]
        conn.execute("DELETE FROM decisions WHERE table_id = ? AND seq >= ?", (table, first))
        conn.execute("DELETE FROM lines WHERE table_id = ? AND n >= ?", (table, first))


def test_a_restarted_server_plays_the_bots_decisions_without_a_request(
        tmp_path: Path) -> None:
    """Killed with SIGKILL once a person's move is stored and before the bots have
    played theirs (each bot waits 30 s: the test hook), the server started again lets
    the bots play by itself: with no request to the table, its stored game moves past
    the bots' decisions to a person's."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    table, token = _table_at_a_persons_decision(db, port)
    _, _, before = _stored(db, table)
    proc, _ = _start(db, "--port", port, env={BOT_DELAY_VARIABLE: "30"})
    try:
        _until_up(url)
        doc = call(f"{url}/api/tables/{table}", token=token)[1]
        body = {"action": doc["actions"][0]["action"], "expected_seq": doc["seq"]}
        threading.Thread(target=lambda: _swallow(lambda: call(
            f"{url}/api/tables/{table}/action", body, token=token, timeout=60)),
            daemon=True).start()
        _until(lambda: len(_stored(db, table)[2]) > len(before), "the move is stored")
        assert _waits_on_bot(db, table)  # stored, and the bots have not played yet
    finally:
        _stop_server(proc, signal.SIGKILL)
    assert _waits_on_bot(db, table)
    proc, _ = _start(db, "--port", port)
    try:
        _until(lambda: not _waits_on_bot(db, table), "the bots play after the restart")
        _, _, played = _stored(db, table)
        assert played[len(before)] == "human"
        assert played[len(before) + 1:] and all(p == "bot:random"
                                                 for p in played[len(before) + 1:])
    finally:
        _stop_server(proc)


def test_a_clean_stop_leaves_no_table_waiting_on_a_bot(tmp_path: Path) -> None:
    """SIGTERM while the bots are still to play (a restart after a kill, each bot slowed
    down by the test hook): the server lets them play before it ends, and the stored
    table waits on a person."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    table, token = _table_at_a_persons_decision(db, port)
    proc, _ = _start(db, "--port", port)
    try:
        _until_up(url)
        doc = call(f"{url}/api/tables/{table}", token=token)[1]
        status, _ = call(f"{url}/api/tables/{table}/action",
                          {"action": doc["actions"][0]["action"],
                           "expected_seq": doc["seq"]}, token=token)
        assert status == 200
    finally:
        _stop_server(proc)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        last = conn.execute("SELECT max(seq) FROM decisions WHERE table_id = ? AND "
                            "played_by = 'human'", (table,)).fetchone()[0]
    _cut_after(db, table, last)  # as a kill after the person's move leaves it
    assert _waits_on_bot(db, table)
    proc, _ = _start(db, "--port", port, env={BOT_DELAY_VARIABLE: "0.3"})
    try:
        _until_up(url)
    finally:
        err = _stop_server(proc, signal.SIGTERM)
    assert proc.returncode in (0, -signal.SIGTERM, 128 + signal.SIGTERM), err
    assert not _waits_on_bot(db, table)


def _post_from(source: str, url: str, body: Any) -> tuple[int, Any]:
    """POST ``body`` as JSON from the local address ``source`` (127.0.0.N: each a client
    of its own to the server)."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", "/api/tables", json.dumps(body),
                     {"Content-Type": "application/json", "Host": "127.0.0.1"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def test_one_client_holding_hundreds_of_sockets_blocks_no_one_else(tmp_path: Path) -> None:
    """With the default limits, a client at one address opening 530 connections and
    holding them is refused past its share (429, with why); a client at another address
    is answered meanwhile. Started on an empty database without --players, the server
    made no table."""
    port = str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, lines = _start(tmp_path / "tables.db", "--port", port)
    held: list[socket.socket] = []
    try:
        assert not any("/t/" in line for line in lines)
        _until_up(url)
        assert call(url + "/api/tables")[1]["tables"] == []
        for _ in range(530):
            conn = socket.socket()
            conn.settimeout(10)
            conn.bind(("127.0.0.2", 0))
            conn.connect(("127.0.0.1", int(port)))
            held.append(conn)
        answer = held[-1].recv(1000)  # past the share: answered at once, and closed
        assert _status(answer) == 429 and b"too many connections from your address" in answer
        status, listed = call(url + "/api/tables", timeout=10)
        assert status == 200 and listed["tables"] == []
    finally:
        for conn in held:
            conn.close()
        _stop_server(proc)


def test_ordinary_use_is_not_refused_and_table_creation_is_bounded(tmp_path: Path) -> None:
    """With the default limits, a host makes several tables in a minute, and a page per
    seat and a spectator's on one machine, each with a long poll and a request, are all
    answered. A client making tables faster than --tables-per-minute gets 429 with why;
    past --max-tables every client gets 409 with why."""
    port = str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, _ = _start(tmp_path / "tables.db", "--port", port)
    try:
        _until_up(url)
        made = [call(url + "/api/tables", {"players": 4}) for _ in range(8)]
        assert [status for status, _ in made] == [201] * 8
        table = made[0][1]["table"]
        tokens = [call(f"{url}/api/tables/{table}/join", {"seat": s})[1]["token"]
                  for s in range(4)]
        got: list[int] = []

        def page(token: str | None) -> None:  # a long poll, and a request beside it
            waiting = threading.Thread(target=lambda: got.append(call(
                f"{url}/api/tables/{table}?since=999&wait=3", token=token)[0]))
            waiting.start()
            got.append(call(f"{url}/api/tables/{table}", token=token)[0])
            waiting.join(timeout=30)

        pages = [threading.Thread(target=page, args=(t,)) for t in [*tokens, None]]
        for p in pages:
            p.start()
        for p in pages:
            p.join(timeout=60)
        assert got == [200] * 10
    finally:
        _stop_server(proc)
    port = str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, _ = _start(tmp_path / "few.db", "--port", port, "--tables-per-minute", "3",
                     "--max-tables", "7")
    try:
        _until_up(url)
        statuses = [_post_from("127.0.0.1", url, {"players": 2}) for _ in range(4)]
        assert [s for s, _ in statuses] == [201, 201, 201, 429]
        assert statuses[-1][1] == {"error": "too many new tables from your address: "
                                            "at most 3 a minute"}
        statuses = [_post_from(f"127.0.0.{n}", url, {"players": 2})
                    for n in (3, 3, 3, 4, 4)]
        assert [s for s, _ in statuses] == [201, 201, 201, 201, 409]
        assert statuses[-1][1] == {"error": "this server holds 7 tables already"}
    finally:
        _stop_server(proc)


def _tables_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tokaido_rules", "tables", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_tables_expire_unless_a_person_is_connected(tmp_path: Path) -> None:
    """With expiry after a few seconds (fractions of a day), a table nobody plays, and a
    finished one, are deleted by the server by itself; a table whose seat's page keeps
    a long poll open stays, however long it waits."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    days = str(3 / 86_400)  # 3 seconds
    proc, _ = _start(db, "--port", port, "--expire-abandoned-days", days,
                     "--expire-finished-days", days)
    stop = threading.Event()
    try:
        _until_up(url)
        left = call(url + "/api/tables", {"players": 2})[1]["table"]
        over = call(url + "/api/tables", {"players": 2, "bots": {"0": "random",
                                                                  "1": "random"}})[1]
        assert over["over"]
        kept = call(url + "/api/tables", {"players": 2})[1]["table"]
        token = call(f"{url}/api/tables/{kept}/join", {"seat": 0})[1]["token"]

        def page() -> None:  # a seat's page: a long poll after another
            while not stop.is_set():
                _swallow(lambda: call(f"{url}/api/tables/{kept}?since=99999&wait=1",
                                       token=token, timeout=30))

        watching = threading.Thread(target=page)
        watching.start()

        def listed() -> set[str]:
            return {t["table"] for t in call(url + "/api/tables")[1]["tables"]}

        _until(lambda: listed() == {kept}, "the abandoned and the finished tables expire")
        assert call(f"{url}/api/tables/{left}")[0] == 404
        stop.set()
        watching.join(timeout=60)
        _until(lambda: listed() == set(), "the table expires once its page is gone")
    finally:
        stop.set()
        _stop_server(proc)
    assert _tables_cli("list", "--db", str(db)).stdout.endswith("0 tables\n")


def test_a_table_id_never_reads_as_an_option() -> None:
    """``tokaido tables delete --db F ID`` takes ids as arguments: one beginning with
    ``-`` would be read as an option (one id in 64 did)."""
    ids = [_new_table_id() for _ in range(3000)]
    assert not [i for i in ids if i.startswith("-")]
    assert len(set(ids)) == len(ids) and {len(i) for i in ids} == {12}


def test_the_host_and_the_operator_delete_tables(tmp_path: Path) -> None:
    """The host's token deletes its table (DELETE /api/tables/ID; another seat's token
    or none: 403). ``tokaido tables list`` lists the tables of the database of a
    running server and ``tokaido tables delete`` deletes them (the server drops them
    within seconds); an unknown id, or no database, is one error line and status 2,
    and deletes nothing."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, _ = _start(db, "--port", port)
    try:
        _until_up(url)
        made = [call(url + "/api/tables", {"players": 2})[1] for _ in range(3)]
        ids = [m["table"] for m in made]
        token = call(f"{url}/api/tables/{ids[0]}/join", {"seat": 0})[1]["token"]
        request = urllib.request.Request(f"{url}/api/tables/{ids[0]}", method="DELETE")
        for who in (None, token, made[1]["host_token"]):
            if who:
                request.add_header("Authorization", f"Bearer {who}")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 403
            assert "host" in json.loads(refused.value.read())["error"]
        request.add_header("Authorization", f"Bearer {made[0]['host_token']}")
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read()) == {"table": ids[0], "deleted": True}
        assert call(f"{url}/api/tables/{ids[0]}")[0] == 404

        listing = _tables_cli("list", "--db", str(db))
        assert listing.returncode == 0, listing.stderr
        assert [line.split()[0] for line in listing.stdout.splitlines()[1:-1]] == ids[1:]
        as_json = json.loads(_tables_cli("list", "--db", str(db), "--format", "json").stdout)
        assert [(t["table"], t["seats"], t["over"]) for t in as_json["tables"]] == [
            (i, ["open", "open"], False) for i in ids[1:]]
        bad = _tables_cli("delete", "--db", str(db), ids[1], "nosuchtable")
        assert (bad.returncode, bad.stdout) == (2, "")
        assert bad.stderr == f"error: {db}: no table nosuchtable\n"
        gone = _tables_cli("delete", "--db", str(db), ids[1])
        assert (gone.returncode, gone.stdout) == (0, f"deleted {ids[1]}\n")
        _until(lambda: call(f"{url}/api/tables/{ids[1]}")[0] == 404,
               "the server drops the table deleted beside it")
        assert [t["table"] for t in call(url + "/api/tables")[1]["tables"]] == [ids[2]]
    finally:
        _stop_server(proc)
    missing = _tables_cli("list", "--db", str(tmp_path / "none.db"))
    assert missing.returncode == 2
    assert missing.stderr == f"error: --db {tmp_path / 'none.db'}: no such database\n"
    assert not (tmp_path / "none.db").exists()


# --- stopping with pages open, and the addresses printed (issue 40) --------------------


def test_ctrl_c_with_a_page_waiting_stops_at_once_and_tells_the_page(tmp_path: Path) -> None:
    """SIGINT while a page's long poll waits: the poll is answered at once that the
    server is stopping, the terminal says so, and the process ends (the bound here is
    only a guard against a hang)."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, lines = _start(db, "--port", port, "--players", "2", "--bots", "greedy")
    seat_url = re.search(r"(http://\S+)/t/(\S+)#token=(\S+)", lines[0])
    assert seat_url is not None, lines
    table, token = seat_url.group(2), seat_url.group(3)
    try:
        _until_up(url)
        seq = call(f"{url}/api/tables/{table}", token=token)[1]["seq"]
        page = http.client.HTTPConnection("127.0.0.1", int(port), timeout=40)
        page.request("GET", f"/api/tables/{table}?since={seq}&wait=30",
                     headers={"Authorization": f"Bearer {token}"})  # sent: it waits
        call(f"{url}/api/tables")  # answered after the poll was taken up
        proc.send_signal(signal.SIGINT)
        answer = page.getresponse()
        status, body = answer.status, json.loads(answer.read())
        page.close()
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError("tokaido serve did not end after Ctrl-C") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert status == 503 and body["stopping"] is True
    assert "tokaido serve: stopping; 1 waiting page told" in err
    assert "tokaido serve: stopped" in err


def test_bound_to_every_address_the_links_name_this_machines_addresses(
        tmp_path: Path) -> None:
    """With ``--host 0.0.0.0`` the first line is as it always was; lines after it give
    the links with the machine's own addresses, never 0.0.0.0 nor loopback."""
    db, port = tmp_path / "tables.db", str(free_port())
    proc, lines = _start(db, "--port", port, "--host", "0.0.0.0", "--players", "2")
    try:
        assert lines[0].startswith("Tokaido: you are seat 0 of 2: open http://0.0.0.0:")
        assert proc.stdout is not None
        more = [proc.stdout.readline() for _ in web.reachable_hosts("0.0.0.0")]
    finally:
        _stop_server(proc)
    assert all(line.startswith("From another device: http://") for line in more), more
    assert not [line for line in more if "0.0.0.0" in line or "127.0.0.1" in line]
    assert all(f"#token={lines[0].split('#token=')[1].strip()}" in line for line in more)
    assert web.reachable_hosts("127.0.0.1") == ["127.0.0.1"]
    assert web.reachable_hosts("::1") == ["[::1]"]


def _events(url: str, token: str | None, since: int, stream: str | None = None
            ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """Open a push channel (``/events``; ``stream``: the page's name for it), with a
    timeout: a test never hangs on it."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    named = "" if stream is None else f"&stream={stream}"
    conn.request("GET", f"{parts.path}/events?since={since}{named}",
                 headers={} if token is None else {"Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    assert answer.status == 200
    assert answer.getheader("content-type", "").startswith("text/event-stream")
    return conn, answer


def _next_update(answer: http.client.HTTPResponse) -> tuple[dict[str, Any], str]:
    """The next update of a push channel (comments skipped), and its text."""
    while True:
        line = answer.readline().decode()
        assert line, "the push channel ended"
        if line.startswith("data: "):
            return json.loads(line[6:]), line


def test_the_push_channel_tells_each_audience_its_own_updates(
        server: tuple[str, Lobby]) -> None:
    """Each page's push channel (a seat's, a spectator's) sends an update at once from
    its seq, then one per change: after a seat's move each channel has an update past
    it, with that audience's actions only and no card another seat sees alone."""
    base, lobby = server
    table, _ = lobby.create(3, ["base"], seed=5)
    tokens = {seat: table.join(seat) for seat in range(3)}
    url = f"{base}/api/tables/{table.id}"
    channels = {seat: _events(url, tokens.get(seat) if seat is not None else None, 0)
                for seat in (0, 1, 2, None)}
    try:
        first = {seat: _next_update(answer)[0] for seat, (_, answer) in channels.items()}
        seq = table.game.state.seq
        assert all(u["seq"] == seq and u["since"] == 0 for u in first.values())
        mover = table.game.current_player
        assert mover is not None
        choice = first[mover]["actions"][0]["action"]
        assert [s for s, u in first.items() if u["actions"]] == [mover]
        status, moved = call(f"{url}/action?form=update",
                              {"action": choice, "expected_seq": seq}, tokens[mover])
        assert status == 200 and moved["seq"] > seq and moved["form"] == "update"
        game = table.game
        from tokaido_rules.wire import encode_action
        for seat, (_, answer) in channels.items():
            update, text = _next_update(answer)
            while update["seq"] < moved["seq"]:
                update, text = _next_update(answer)
            assert update["since"] == seq and update["seat"] == seat
            legal = [] if seat is None or seat != game.current_player else \
                [encode_action(a) for a in game.view(seat).legal_actions]
            assert [a["action"] for a in update["actions"]] == legal
            mine = game.public_view() if seat is None else game.view(seat)
            known = {c for cards in mine.zones.values() for c in cards}
            hidden = {c for other in range(3) if other != seat
                      for zone, cards in game.view(other).zones.items()
                      if zone not in mine.zones for c in cards} - known
            assert not [c for c in hidden if f'"{c}"' in text], seat
    finally:
        for conn, _ in channels.values():
            conn.close()


def test_a_moves_answer_is_not_sent_again_on_its_own_pages_channel(
        server: tuple[str, Lobby]) -> None:
    """A page names its push channel and its moves (``stream``): the move's answer is
    the update of the change, and that channel sends the next change only, from the
    answer's seq; the seat's other page and the other seats' channels get the move."""
    base, lobby = server
    table, host = lobby.create(2, ["base"], seed=5)
    tokens = {seat: table.join(seat) for seat in range(2)}
    url = f"{base}/api/tables/{table.id}"
    mover = table.game.current_player
    assert mover is not None
    other = 1 - mover
    channels = {"mine": _events(url, tokens[mover], 0, "page-1"),
                "my other page": _events(url, tokens[mover], 0, "page-2"),
                "theirs": _events(url, tokens[other], 0, "page-1")}
    try:
        first = {name: _next_update(answer)[0] for name, (_, answer) in channels.items()}
        seq = first["mine"]["seq"]
        status, refused = call(f"{url}/action?form=update&stream=a%20b",
                                {"action": first["mine"]["actions"][0]["action"],
                                 "expected_seq": seq}, tokens[mover])
        assert status == 400 and "stream" in refused["error"]
        status, moved = call(f"{url}/action?form=update&stream=page-1",
                              {"action": first["mine"]["actions"][0]["action"],
                               "expected_seq": seq}, tokens[mover])
        assert status == 200 and moved["seq"] > seq and moved["since"] == seq
        for name in ("my other page", "theirs"):
            update = _next_update(channels[name][1])[0]
            assert (update["seq"], update["since"]) == (moved["seq"], seq), name
        # the page's channel opened again under the same name starts with a whole update
        channels["mine again"] = _events(url, tokens[mover], seq, "page-1")
        again = _next_update(channels["mine again"][1])[0]
        assert (again["seq"], again["since"]) == (moved["seq"], seq) and "seats" in again
        status, _ = call(f"{base}/api/tables/{table.id}/hints", {"on": False}, host)
        assert status == 200
        update = _next_update(channels["mine"][1])[0]  # the next change, not the move
        assert (update["seq"], update["since"]) == (moved["seq"], moved["seq"])
        assert update["rules"]["hints"] is False and update["lines"] == []
        assert [e["base"] for e in update["scenes"]] == [moved["seq"]]
    finally:
        for conn, _ in channels.values():
            conn.close()


def test_a_quiet_push_channel_says_it_is_there_and_is_let_go_when_its_page_leaves(
        server: tuple[str, Lobby], monkeypatch: pytest.MonkeyPatch) -> None:
    """While the table does not change, the channel sends a comment every
    ``KEEP_ALIVE_SECONDS`` (one timer per channel, looked at when it fires); a change
    is still sent at once; the page gone, the channel ends and its seat is no longer
    counted as connected."""
    monkeypatch.setattr(web, "KEEP_ALIVE_SECONDS", 0.3)
    base, lobby = server
    table, _ = lobby.create(2, ["base"], seed=5)
    tokens = {seat: table.join(seat) for seat in range(2)}
    url = f"{base}/api/tables/{table.id}"
    mover = table.game.current_player
    assert mover is not None
    conn, answer = _events(url, tokens[1 - mover], 0)
    try:
        first = _next_update(answer)[0]
        assert table.connected == 1
        comments = 0
        while comments < 2:
            line = answer.readline()
            assert line and not line.startswith(b"data: ")
            comments += line == b": still here\n"
        status, mine = call(f"{url}?since=0&form=update", token=tokens[mover])
        assert status == 200
        status, moved = call(f"{url}/action?form=update",
                             {"action": mine["actions"][0]["action"],
                              "expected_seq": first["seq"]}, tokens[mover])
        assert status == 200
        update = _next_update(answer)[0]
        while update["seq"] < moved["seq"]:
            update = _next_update(answer)[0]
        assert update["since"] == first["seq"] and update["seat"] == 1 - mover
    finally:
        conn.close()
    deadline = time.monotonic() + 5
    while table.connected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.connected == 0


def test_an_answers_head_and_body_go_out_in_one_write() -> None:
    """A connection's transport joins a held write (an answer's head) with the next (its
    body); what nothing follows is written at the answer's end or the close; writes
    not held go out as they come."""

    class Transport:
        def __init__(self) -> None:
            self.writes: list[bytes] = []
            self.closed = False

        def write(self, data: bytes) -> None:
            self.writes.append(data)

        def close(self) -> None:
            self.closed = True

        def is_closing(self) -> bool:
            return self.closed

        def get_extra_info(self, name: str) -> str:
            return f"extra {name}"

    raw = Transport()
    joined = web._Joined(raw)  # type: ignore[arg-type]
    joined.hold()
    joined.write(b"HEAD\r\n\r\n")
    assert raw.writes == []
    joined.write(b"body")
    joined.write(b"more")
    assert raw.writes == [b"HEAD\r\n\r\nbody", b"more"]
    joined.hold()
    joined.write(b"HEAD only")
    joined.flush()
    joined.flush()
    joined.hold()
    joined.write(b"closed")
    joined.close()
    assert raw.writes[2:] == [b"HEAD only", b"closed"] and raw.closed
    assert joined.is_closing() and joined.get_extra_info("peername") == "extra peername"


def test_a_head_request_is_answered_whole(server: tuple[str, Lobby]) -> None:
    """An answer whose head is held for its body gets out when no body follows (HEAD):
    the client has its head, and the connection answers its next request."""
    base, lobby = server
    table, _ = lobby.create(2, ["base"], seed=5)
    path = f"/api/tables/{table.id}?since=0&form=update"
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):  # no next request, no close: it comes
            chunk = conn.recv(65536)
            assert chunk, head
            head += chunk
        assert _status(head) == 200 and b"content-type: application/json" in head
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Connection: close\r\n\r\n".encode())
        rest = b""
        while chunk := conn.recv(65536):
            rest += chunk
    assert _status(rest) == 200 and rest.endswith(b"}")


# --- kill -9 with pages following: what a page is told across a restart -----------------


class _Page:
    """A seat's page as ``pages/table.html`` follows a table: the whole story first
    (``?since=0&form=update``), then its push channel named ``stream`` from its seq
    (read as it comes, by a thread of its own), its moves answered as updates on that
    name, and a catch-up (``?since=SEQ&form=update``) when an update starts past its
    seq or a move is refused. It keeps each step it was told by seq (a step told again
    is kept aside, not shown twice), and every wait has a deadline: none hangs."""

    def __init__(self, url: str, token: str, deadline: float) -> None:
        self.url, self.token, self.deadline = url, token, deadline
        self.stream = "page-k9"
        self.steps: dict[int, dict[str, Any]] = {}
        self.again: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (kept, told again)
        self.updates = 0  # updates the channels sent
        self.seq = 0
        self.over = False
        self.actions: list[dict[str, Any]] = []
        self.channel: http.client.HTTPConnection | None = None
        self.socket: socket.socket | None = None
        self.reader: threading.Thread | None = None
        self.told: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def take(self, update: dict[str, Any]) -> None:
        assert not update.get("reset"), "no take-back was asked: no reset"
        for step in update["steps"]:
            kept = self.steps.setdefault(step["seq"], step)
            if kept is not step:
                self.again.append((kept, step))
        if update["seq"] >= self.seq:
            self.seq, self.over = update["seq"], update["over"]
            self.actions = update["actions"]

    def catch_up(self) -> None:
        status, update = call(f"{self.url}?since={self.seq}&form=update", token=self.token,
                              timeout=10)
        assert status == 200, update
        self.take(update)

    def open(self) -> None:
        """The push channel from the page's seq, read into :attr:`told` by a thread
        (``None`` once it ends)."""
        parts = urllib.parse.urlsplit(self.url)
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        conn.connect()
        self.channel, self.socket = conn, conn.sock
        conn.request("GET", f"{parts.path}/events?since={self.seq}&stream={self.stream}",
                     headers={"Authorization": f"Bearer {self.token}"})
        answer = conn.getresponse()
        assert answer.status == 200
        assert answer.getheader("content-type", "").startswith("text/event-stream")
        told = self.told

        def read() -> None:
            try:
                while True:
                    told.put(_next_update(answer)[0])
            except (OSError, AssertionError, ValueError, http.client.HTTPException):
                told.put(None)  # the channel ended (closed, or its server died)

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def close(self) -> None:
        """Close the channel: its socket shut (the reader's read ends), then, the
        reader gone, the connection; what it sent before is taken."""
        if self.socket is not None:
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)
            self.socket = None
        if self.reader is not None:
            self.reader.join(30)
            assert not self.reader.is_alive(), "the channel's reader did not end"
            self.reader = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self.drain()

    def _channel_update(self, update: dict[str, Any] | None) -> None:
        if update is None:
            return
        self.updates += 1
        if update["since"] > self.seq:
            self.catch_up()
        self.take(update)

    def drain(self) -> None:
        """Take the updates the channel has sent so far."""
        while not self.told.empty():
            self._channel_update(self.told.get_nowait())

    def listen(self, seconds: float | None = None) -> None:
        """Wait for the channel's next update (``seconds`` at most; else until the
        page's deadline, which fails the test) and take it."""
        left = self.deadline - time.monotonic()
        try:
            update = self.told.get(timeout=max(0.0, left if seconds is None else seconds))
        except queue.Empty:
            assert seconds is not None, f"the game did not end; at seq {self.seq}"
            return
        assert update is not None or seconds is not None, "the push channel ended"
        self._channel_update(update)

    def move(self) -> dict[str, Any]:
        """The body of a move: the first legal action, at the page's seq."""
        return {"action": self.actions[0]["action"], "expected_seq": self.seq}

    def send(self, move: dict[str, Any]) -> int:
        """Send ``move``; its answer taken, or (refused: 409) a catch-up. The status."""
        status, answer = call(f"{self.url}/action?form=update&stream={self.stream}", move,
                              token=self.token, timeout=10)
        assert status in (200, 409), answer
        if status == 200:
            self.take(answer)
        else:
            self.catch_up()
        return status


def _decisions(db: Path, table: str, seat: int) -> dict[int, str]:
    """Seat ``seat``'s stored decisions: seq to who played it (read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                            timeout=30)) as conn:
        return dict(conn.execute("SELECT seq, played_by FROM decisions WHERE "
                                 "table_id = ? AND seat = ?", (table, seat)).fetchall())


def _answer_into(answers: list[tuple[int, Any]], url: str, body: Any, token: str) -> None:
    """POST ``body`` to ``url``; its answer appended to ``answers`` (none if the server
    died meanwhile)."""
    with contextlib.suppress(OSError):
        answers.append(call(url, body, token=token, timeout=30))


def test_kill_9_mid_game_a_page_is_told_every_step_once(tmp_path: Path) -> None:
    """A four-seat table, seat 0 played over HTTP by a page-like client (:class:`_Page`),
    three bots each waiting a moment before they play (the test hook). After the
    person's eighth acknowledged move, the server is killed with SIGKILL at the first
    move of the person's that is stored while the bots after it are still to play (as
    the database shows a moment before the kill); that move's answer never comes.
    Started again on the same database, the server plays the bots; the page sends the
    move again (refused, 409: it was played; the page catches up), opens its push
    channel again from its seq, and plays to the end. Every move acknowledged, and the
    one stored before the kill, is stored as the person's; the steps the page holds are
    those of a fresh ``?since=0`` document of the finished table (the same seqs, the
    same words), and none was told to the page twice, by an answer, a catch-up or its
    push channel."""
    db, port = tmp_path / "tables.db", str(free_port())
    url = f"http://127.0.0.1:{port}"
    proc, lines = _start(db, "--port", port, "--players", "4", "--human", "0",
                         "--bots", "random,greedy,random", "--seed", "11",
                         env={BOT_DELAY_VARIABLE: "0.1"})
    found = re.search(r"/t/([\w-]+)#token=([\w-]+)", "".join(lines))
    assert found, lines
    table, token = found.groups()
    page = _Page(f"{url}/api/tables/{table}", token, time.monotonic() + 120)
    acknowledged: list[int] = []
    lost: dict[str, Any] | None = None
    try:
        _until_up(url)
        page.take(call(f"{page.url}?since=0&form=update", token=token, timeout=10)[1])
        page.open()
        while lost is None:
            page.drain()
            assert not page.over, "the game ended before a kill between moves"
            if not page.actions:
                page.listen()
                continue
            move = page.move()
            if len(acknowledged) < 8:
                assert page.send(move) == 200
                acknowledged.append(move["expected_seq"])
                continue
            answers: list[tuple[int, Any]] = []
            sender = threading.Thread(target=_answer_into, daemon=True, args=(
                answers, f"{page.url}/action?form=update&stream={page.stream}", move, token))
            sender.start()
            deadline = time.monotonic() + 30
            while move["expected_seq"] not in _decisions(db, table, 0):
                assert time.monotonic() < deadline, "a move was not stored in 30 s"
                time.sleep(0.005)
            if _waits_on_bot(db, table):
                _stop_server(proc, signal.SIGKILL)  # the bots still to play
                lost = move
                break
            sender.join(30)  # the person's decision again: the move is answered
            assert answers and answers[0][0] == 200, answers
            page.take(answers[0][1])
            acknowledged.append(move["expected_seq"])
        page.close()
        proc, _ = _start(db, "--port", port, env={BOT_DELAY_VARIABLE: "0.02"})
        _until_up(url)
        assert page.send(lost) == 409  # played already: refused, and the page caught up
        page.open()
        while not page.over:
            page.drain()
            if page.actions:
                move = page.move()
                assert page.send(move) == 200
                acknowledged.append(move["expected_seq"])
            else:
                page.listen()
        page.listen(seconds=0.5)  # anything the channel still sends
        status, fresh = call(f"{page.url}?since=0", token=token, timeout=10)
        assert status == 200, fresh
    finally:
        page.close()
        _stop_server(proc)
    stored = _decisions(db, table, 0)
    played = [*acknowledged, lost["expected_seq"]]
    assert {seq: stored.get(seq) for seq in played} == dict.fromkeys(played, "human")
    assert fresh["over"] and fresh["seq"] == page.seq
    assert [(s["seq"], s["words"]) for s in fresh["steps"]] == \
        [(seq, page.steps[seq]["words"]) for seq in sorted(page.steps)]
    assert page.again == [], f"{len(page.again)} steps told to the page again"
    assert page.updates >= 2  # each channel's first update, sent at once, was read

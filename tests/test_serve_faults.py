"""The real ``tokaido serve`` on faults of its database: a database another process holds
past the timeout, a full disk, a second server on the same file, a kill -9 and an
immediate restart, a damaged file, stored tables that do not verify. Every server runs in
its own process on 127.0.0.1, every wait has a deadline, and every process started here is
stopped."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from processes import call, free_port, two_people
from tokaido_rules.store import TableRecord, TableStore
from tokaido_rules.tables import Lobby

DEADLINE = 60.0
"""The longest any one wait here lasts before the test fails saying what it waited for."""


class Served:
    """``tokaido serve`` in its own process: its output lines as they come (read by a
    thread, so that no read blocks the test), its error output in a file."""

    def __init__(self, db: Path, *args: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.errors = db.parent / f"serve-{self.port}-{time.monotonic_ns()}.err"
        self._err: IO[str] = self.errors.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tokaido_rules", "serve", "--db", str(db), "--port",
             str(self.port), *args], stdout=subprocess.PIPE, stderr=self._err, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def line(self, starting: str) -> str:
        """The first output line that starts with ``starting`` (within the deadline)."""
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            if line.startswith(starting):
                return line
        raise AssertionError(f"the server never printed {starting!r} (status "
                             f"{self.proc.poll()}; stderr {self.stderr()!r})")

    def up(self) -> Served:
        """Wait until the server answers."""
        self.line("All tables:")
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            with contextlib.suppress(OSError):
                if call(self.url + "/api/tables", timeout=5)[0] == 200:
                    return self
            time.sleep(0.05)
        raise AssertionError(f"the server did not answer; stderr {self.stderr()!r}")

    def stderr(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.errors.read_text()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Stop the server (``sig``), killing it if it has not ended within the
        deadline; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=DEADLINE)
                raise AssertionError("the server did not stop") from None
        self._err.close()
        return int(self.proc.returncode)


@contextlib.contextmanager
def served(db: Path, *args: str) -> Iterator[Served]:
    server = Served(db, *args)
    try:
        yield server.up()
    finally:
        server.stop()


def _next_move(server: Served, table: str, tokens: dict[int, str]
               ) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Whose move it is (their token), the move's body, and the seat's document."""
    public = call(f"{server.url}/api/tables/{table}")[1]
    token = tokens[public["current_player"]]
    doc = call(f"{server.url}/api/tables/{table}", token=token)[1]
    return token, {"action": doc["actions"][0]["action"], "expected_seq": doc["seq"]}, doc


def _refused_then_played(server: Served, table: str, tokens: dict[int, str],
                         fault: Any, mend: Any, says: str) -> None:
    """With ``fault`` on, the next move is a 503 with a one-line reason that ``says``
    what, and the table unchanged; ``mend`` it, and the same move is played."""
    token, move, doc = _next_move(server, table, tokens)
    with fault():
        status, answer = call(f"{server.url}/api/tables/{table}/action", move, token)
        assert status == 503, answer
        assert set(answer) == {"error"} and "\n" not in answer["error"]
        assert says in answer["error"], answer
        assert call(f"{server.url}/api/tables/{table}", token=token)[1] == doc
        mend()
    status, answer = call(f"{server.url}/api/tables/{table}/action", move, token)
    assert status == 200 and answer["seq"] > doc["seq"], answer


def test_a_database_held_past_the_timeout_is_a_503_and_then_the_move_plays(
        tmp_path: Path) -> None:
    """Another process holds the database (``BEGIN EXCLUSIVE``) longer than the server's
    ``--db-timeout``: the move is answered 503 saying the database is locked, the table
    is as it was (its readers still read it), and once the other process lets go the
    same move is played."""
    db = tmp_path / "tables.db"
    with served(db, "--players", "2", "--open", "1", "--db-timeout", "0.3") as server:
        table, tokens = two_people([server.url])
        holder = sqlite3.connect(db, isolation_level=None, timeout=DEADLINE)

        @contextlib.contextmanager
        def held() -> Iterator[None]:
            holder.execute("BEGIN EXCLUSIVE")
            try:
                yield
            finally:
                if holder.in_transaction:
                    holder.execute("ROLLBACK")

        def released() -> None:
            holder.execute("ROLLBACK")

        token, move, _ = _next_move(server, table, tokens)
        with held():
            status, answer = call(f"{server.url}/api/tables/{table}/action", move, token)
        assert status == 503 and "locked" in answer["error"], answer
        _refused_then_played(server, table, tokens, held, released, "locked")
        holder.close()
    assert "Traceback" not in server.stderr()


def _mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root; a store whose writes fail "
                    "(test_store.py) stands for the full disk")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                           str(where)], capture_output=True, text=True, timeout=DEADLINE)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); a store whose "
                    "writes fail (test_store.py) stands for the full disk")


def test_a_full_disk_is_a_503_and_the_move_plays_once_there_is_room(tmp_path: Path) -> None:
    """The database on a small tmpfs filled up by another file: the move is answered 503
    (the disk is full), the table is unchanged; with the file removed the same move is
    played. Skipped where a tmpfs cannot be mounted (not root): the failing store of
    test_store.py covers that case."""
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "4m")
    try:
        db = disk / "tables.db"
        with served(db, "--players", "2", "--open", "1") as server:
            table, tokens = two_people([server.url])
            filler = disk / "filler"

            @contextlib.contextmanager
            def full() -> Iterator[None]:
                with contextlib.suppress(OSError), filler.open("wb", buffering=0) as out:
                    for _ in range(2_000):  # 4 MiB at most, in 2 kiB blocks
                        out.write(b"\0" * 2048)
                yield

            _refused_then_played(server, table, tokens, full, filler.unlink, "full")
        assert "Traceback" not in server.stderr()
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=DEADLINE)


def test_a_second_server_on_the_database_exits_2_and_a_kill_9_frees_it(
        tmp_path: Path) -> None:
    """A second ``tokaido serve`` on a database a server uses says so in one line and
    exits 2 without touching it; after ``kill -9`` of the first, a server started at once
    on the same file serves its tables; once it has stopped, the store opens in this
    process."""
    db = tmp_path / "tables.db"
    first = Served(db, "--players", "2", "--open", "1").up()
    try:
        table, tokens = two_people([first.url])
        second = subprocess.run([sys.executable, "-m", "tokaido_rules", "serve", "--db",
                                 str(db), "--port", str(free_port()), "--players", "3"],
                                capture_output=True, text=True, timeout=DEADLINE)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and second.stderr.startswith("error: ")
        assert "in use by another server" in second.stderr and not second.stdout
        assert call(f"{first.url}/api/tables")[1]["tables"][1]["table"] == table
    finally:
        first.stop(signal.SIGKILL)
    with served(db) as again:
        token, move, doc = _next_move(again, table, tokens)
        status, answer = call(f"{again.url}/api/tables/{table}/action", move, token)
        assert status == 200 and answer["seq"] > doc["seq"]
    store = TableStore(db, exclusive=True)
    assert table in [r.id for r in store.tables()]
    store.close()


def test_a_damaged_database_is_one_error_line_and_status_2(tmp_path: Path) -> None:
    """Pages of the database overwritten: ``tokaido serve`` says what is wrong with the
    file in one ``error:`` line, exit status 2, not as a bug."""
    db = tmp_path / "tables.db"
    store = TableStore(db)
    for seed in range(3):
        Lobby(store).create(2, ["base"], seed=seed)
    store.close()
    data = bytearray(db.read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)
    db.write_bytes(bytes(data))
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", "serve", "--db", str(db),
                           "--port", str(free_port())], capture_output=True, text=True,
                          timeout=DEADLINE)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {db}: ")
    assert "malformed" in done.stderr and "bug" not in done.stderr


def test_tables_that_do_not_verify_are_listed_with_the_reason_and_said_once(
        tmp_path: Path) -> None:
    """A table whose stored line was edited and one whose creation was cut after its
    header: the restarted server serves the others, lists both with their reasons,
    refuses them with 409, and says so once each in its output."""
    db = tmp_path / "tables.db"
    store = TableStore(db)
    lobby = Lobby(store)
    kept, _ = lobby.create(2, ["base"], seed=1)
    edited, _ = lobby.create(3, ["base"], bots={"1": "random"}, seed=2)
    made, _ = Lobby().create(2, ["base"], seed=3)
    store.create(TableRecord("cut-creation", made.record.created, 2, ("base",), (),
                             made.record.host_hash, made.record.header, made.record.seats))
    store.close()
    with sqlite3.connect(db) as raw:
        n, line = raw.execute("SELECT n, line FROM lines WHERE table_id = ? AND line LIKE "
                              "'%core.queue_set%'", (edited.id,)).fetchone()
        event = json.loads(line)
        event["data"]["order"].reverse()
        raw.execute("UPDATE lines SET line = ? WHERE table_id = ? AND n = ?",
                    (json.dumps(event, separators=(",", ":")), edited.id, n))
    with served(db) as server:
        end = time.monotonic() + DEADLINE
        listed: dict[str, Any] = {}
        while time.monotonic() < end:
            listed = call(server.url + "/api/tables")[1]
            if len(listed["tables"]) + len(listed["refused"]) == 3:
                break
            time.sleep(0.1)
        assert [t["table"] for t in listed["tables"]] == [kept.id]
        reasons = {r["table"]: r["reason"] for r in listed["refused"]}
        assert set(reasons) == {edited.id, "cut-creation"}
        assert f"seq {n}" in reasons[edited.id] and "seq 0" in reasons["cut-creation"]
        for table in reasons:
            status, answer = call(f"{server.url}/api/tables/{table}")
            assert status == 409 and reasons[table] in answer["error"]
    said = server.stderr().splitlines()
    for table in reasons:
        assert sum(table in line for line in said) == 1, said

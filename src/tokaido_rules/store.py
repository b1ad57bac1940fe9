"""Where ``tokaido serve`` keeps its tables: one SQLite database (the standard library's
:mod:`sqlite3`), so that a restarted server resumes every game where it stood.

Each table is stored as its full log, line by line, with its seats and who played each
decision. Every applied action is one transaction: its log lines and its decision row
are written together or not at all, before the action is acknowledged, so a server
killed at any moment (``kill -9`` included) loses at most an action it had not answered
yet. The database is in WAL mode with ``synchronous=NORMAL``: a committed transaction
survives the process dying; only a crash of the machine itself can take back the last
commits (``synchronous="FULL"`` makes those durable too, at a disk flush per action).

The log lines are exactly those of :class:`~tokaido_rules.log.LogFeed` without a viewer,
so the header and the lines of a table, joined, are its full log, which
:func:`~tokaido_rules.load_log` reads back.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from attrs import frozen

from .errors import TokaidoError

__all__ = ["StoreError", "SeatRecord", "TableRecord", "Decision", "TableStore", "SCHEMA"]

SCHEMA = 1
"""The version of the database's layout (SQLite's ``user_version``)."""

_TABLES = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    players INTEGER NOT NULL,
    plugins TEXT NOT NULL,
    options TEXT NOT NULL,
    host_hash TEXT NOT NULL,
    header TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('open', 'human', 'bot')),
    bot TEXT,
    token_hash TEXT,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lines (
    table_id TEXT NOT NULL REFERENCES tables(id),
    n INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS decisions (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    played_by TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""


class StoreError(TokaidoError):
    """The database cannot be used: not a database of this program, a layout of a newer
    version, or a file that cannot be opened or written."""


SeatKind = Literal["open", "human", "bot"]


@frozen
class SeatRecord:
    """One seat of a stored table: ``open`` (nobody has joined yet), ``human`` (joined:
    ``token_hash`` is the SHA-256 of its secret token, never the token itself) or
    ``bot`` (``bot`` names it)."""

    seat: int
    kind: SeatKind
    bot: str | None = None
    token_hash: str | None = None


@frozen
class TableRecord:
    """A stored table: what it was created with (``host_hash``: the SHA-256 of the token
    of whoever created it, who may hand any seat to a bot), the header of its log, and
    its seats."""

    id: str
    created: float
    players: int
    plugins: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    host_hash: str
    header: str
    seats: tuple[SeatRecord, ...]


@frozen
class Decision:
    """Who played one decision: the decision's ``seq`` (its event's place in the log),
    the ``seat`` it was taken for, and ``played_by``: ``"human"`` or ``"bot:NAME"``."""

    seq: int
    seat: int
    played_by: str


class TableStore:
    """The tables of one server in one SQLite file (``":memory:"``: kept in memory only,
    for tests). Safe to share between threads: one connection, one lock."""

    def __init__(self, path: str | Path, *,
                 synchronous: Literal["NORMAL", "FULL"] = "NORMAL") -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA:
                raise StoreError(f"{self.path}: a database of a newer tokaido-rules "
                                 f"(layout {version}; this one reads {SCHEMA})")
            known = {row[0] for row in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if known and version == 0:
                raise StoreError(f"{self.path}: not a tokaido-rules database")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA foreign_keys = ON")
            with self._transaction() as db:
                db.executescript("BEGIN;" + _TABLES + f"PRAGMA user_version = {SCHEMA};")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: {exc}") from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
                if self._db.in_transaction:
                    self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(self, record: TableRecord) -> None:
        """Store a new table (its header, no lines yet)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)", (
                record.id, record.created, record.players, json.dumps(record.plugins),
                json.dumps(dict(record.options)), record.host_hash, record.header))
            db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?)", [
                (record.id, s.seat, s.kind, s.bot, s.token_hash) for s in record.seats])

    def tables(self) -> list[TableRecord]:
        """Every stored table, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, created, players, plugins, options, host_hash, header FROM tables "
                "ORDER BY created, id").fetchall()
            seats: dict[str, list[SeatRecord]] = {}
            for table_id, seat, kind, bot, token_hash in self._db.execute(
                    "SELECT table_id, seat, kind, bot, token_hash FROM seats "
                    "ORDER BY table_id, seat"):
                seats.setdefault(table_id, []).append(SeatRecord(seat, kind, bot, token_hash))
        return [TableRecord(i, created, players, tuple(json.loads(plugins)),
                            tuple(json.loads(options).items()), host_hash, header,
                            tuple(seats.get(i, ())))
                for i, created, players, plugins, options, host_hash, header in rows]

    def lines(self, table_id: str) -> list[str]:
        """The table's log lines after its header, in order."""
        with self._lock:
            return [row[0] for row in self._db.execute(
                "SELECT line FROM lines WHERE table_id = ? ORDER BY n", (table_id,))]

    def decisions(self, table_id: str) -> list[Decision]:
        """Who played each decision of the table, in order."""
        with self._lock:
            return [Decision(*row) for row in self._db.execute(
                "SELECT seq, seat, played_by FROM decisions WHERE table_id = ? ORDER BY seq",
                (table_id,))]

    def append(self, table_id: str, first: int, lines: Sequence[str],
               decision: Decision | None = None,
               seat: SeatRecord | None = None) -> None:
        """In one transaction: the table's log lines numbered from ``first`` on, who
        played the decision that made them, and a seat's new record."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO lines VALUES (?, ?, ?)",
                           [(table_id, first + n, line) for n, line in enumerate(lines)])
            if decision is not None:
                db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?)",
                           (table_id, decision.seq, decision.seat, decision.played_by))
            if seat is not None:
                db.execute("UPDATE seats SET kind = ?, bot = ?, token_hash = ? "
                           "WHERE table_id = ? AND seat = ?",
                           (seat.kind, seat.bot, seat.token_hash, table_id, seat.seat))

    # --- deletion and activity (for expiry and the operator's ``tokaido tables``) ------
    # The activity is kept in a table of its own, made here when first used, so that it
    # needs no change to the tables above: ``activity(table_id, at)``, ``at`` the
    # ``time.time()`` of the table's last action or seat's request.

    _ACTIVITY = ("CREATE TABLE IF NOT EXISTS activity (table_id TEXT PRIMARY KEY "
                 "REFERENCES tables(id), at REAL NOT NULL) WITHOUT ROWID")

    def table_ids(self) -> list[str]:
        """The ids of the stored tables."""
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT id FROM tables")]

    def delete(self, table_ids: Sequence[str]) -> list[str]:
        """Delete these tables, in one transaction: all of them, or none if one is not
        stored (:class:`StoreError` naming it). The ids deleted."""
        with self._failing_as_store_error(), self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(self._ACTIVITY)
            known = {row[0] for row in db.execute("SELECT id FROM tables")}
            missing = [i for i in table_ids if i not in known]
            if missing:
                raise StoreError(f"{self.path}: no table {missing[0]}")
            for name in ("activity", "decisions", "lines", "seats"):
                db.executemany(f"DELETE FROM {name} WHERE table_id = ?",
                               [(i,) for i in table_ids])
            db.executemany("DELETE FROM tables WHERE id = ?", [(i,) for i in table_ids])
        return list(table_ids)

    @contextmanager
    def _failing_as_store_error(self) -> Iterator[None]:
        """SQLite's errors as :class:`StoreError`, one line naming the file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from None

    def activity(self) -> dict[str, float]:
        """When each table was last active, as stored (tables never stored: absent)."""
        with self._transaction() as db:
            db.execute(self._ACTIVITY)
            return {row[0]: row[1] for row in db.execute("SELECT table_id, at FROM activity")}

    def set_activity(self, active: dict[str, float]) -> None:
        """Store when these tables were last active (tables deleted meanwhile are left
        out)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(self._ACTIVITY)
            db.executemany("INSERT INTO activity SELECT ?, ? WHERE EXISTS (SELECT 1 FROM "
                           "tables WHERE id = ?) ON CONFLICT (table_id) DO UPDATE SET "
                           "at = excluded.at", [(i, at, i) for i, at in active.items()])

    def overview(self) -> list[dict[str, Any]]:
        """Each table as the operator lists it, without loading its game: ``table``,
        ``created``, ``players``, ``plugins``, ``seats`` (each seat's kind), ``seq`` (its
        events so far), ``over`` and ``active`` (its last activity as stored, else its
        creation)."""
        end = '%"type":"core.log_end"%'
        with self._failing_as_store_error(), self._transaction() as db:
            db.execute(self._ACTIVITY)
            rows = db.execute(
                "SELECT t.id, t.created, t.players, t.plugins, "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id), "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id AND l.line LIKE ?), "
                "(SELECT at FROM activity a WHERE a.table_id = t.id), "
                "(SELECT group_concat(kind, ',') FROM (SELECT kind FROM seats s "
                "WHERE s.table_id = t.id ORDER BY seat)) "
                "FROM tables t ORDER BY t.created, t.id", (end,)).fetchall()
        return [{"table": i, "created": created, "players": players,
                 "plugins": json.loads(plugins), "seats": (kinds or "").split(","),
                 "seq": count - ended, "over": bool(ended),
                 "active": created if at is None else max(at, created)}
                for i, created, players, plugins, count, ended, at, kinds in rows]

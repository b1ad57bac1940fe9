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

A write the database refuses (a full disk, a database another process holds longer
than ``timeout``) is rolled back and raised as a one-line :class:`StoreError`: the
caller's state need not move on (:class:`~tokaido_rules.tables.Table` does not). The
layout is versioned: :data:`MIGRATIONS` brings an older database up to :data:`SCHEMA`
when it is opened. One server per database: ``exclusive=True`` takes an ``flock`` the
system releases when the process ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal, Protocol

from attrs import frozen

from .errors import TokaidoError

__all__ = ["StoreError", "StoreBusyError", "SeatRecord", "TableRecord", "Decision",
           "TableStore", "SCHEMA", "MIGRATIONS", "TIMEOUT", "TableRules", "TakeBackRecord",
           "Store", "Hold", "StoredTable", "TakeBackRequest"]

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first layout (tokaido-rules 0.x): tables, seats, log lines, decisions
    ("""CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        created REAL NOT NULL,
        players INTEGER NOT NULL,
        plugins TEXT NOT NULL,
        options TEXT NOT NULL,
        host_hash TEXT NOT NULL,
        header TEXT NOT NULL)""",
     """CREATE TABLE seats (
        table_id TEXT NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('open', 'human', 'bot')),
        bot TEXT,
        token_hash TEXT,
        PRIMARY KEY (table_id, seat)) WITHOUT ROWID""",
     """CREATE TABLE lines (
        table_id TEXT NOT NULL REFERENCES tables(id),
        n INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (table_id, n)) WITHOUT ROWID""",
     """CREATE TABLE decisions (
        table_id TEXT NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        played_by TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)) WITHOUT ROWID"""),
    # 2: when each table was last active (an action or a seat's request), for expiry
    ("""CREATE TABLE activity (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        at REAL NOT NULL) WITHOUT ROWID""",),
    # 3: take-backs, clocks and leaving (issue #40): each table's rules for them, the
    # take-backs done, the deadline of the decision at hand, the seats away
    ("""CREATE TABLE table_rules (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        takeback TEXT NOT NULL CHECK (takeback IN ('off', 'none', 'all')),
        clock REAL,
        stand_in TEXT NOT NULL,
        away_after REAL) WITHOUT ROWID""",
     """CREATE TABLE takebacks (
        table_id TEXT NOT NULL REFERENCES tables(id),
        n INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        consent TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, n)) WITHOUT ROWID""",
     """CREATE TABLE clocks (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        seq INTEGER NOT NULL,
        deadline REAL NOT NULL) WITHOUT ROWID""",
     """CREATE TABLE away (
        table_id TEXT NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL,
        why TEXT NOT NULL,
        PRIMARY KEY (table_id, seat)) WITHOUT ROWID"""),
    # 4: each table's readable name, and the table its rematch was made as
    ("""CREATE TABLE names (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        name TEXT NOT NULL UNIQUE,
        rematch TEXT) WITHOUT ROWID""",),
    # 5: hints at the table (issue #42): whether a table offers them (old tables do),
    # and whether a decision was taken after its seat asked one
    ("ALTER TABLE table_rules ADD COLUMN hints INTEGER NOT NULL DEFAULT 1",
     "ALTER TABLE decisions ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0"),
    # 6: what was known to one server process only (several share a PostgreSQL
    # database): the take-back waiting for the others' consent, one per table at most
    # (``story``: the take-backs done before it, ``agreed``/``waiting``: JSON), and the
    # hints asked at the decision at hand (the decision is then recorded ``hinted``)
    ("""CREATE TABLE takeback_requests (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        story INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        agreed TEXT NOT NULL,
        waiting TEXT NOT NULL) WITHOUT ROWID""",
     """CREATE TABLE hint_asks (
        table_id TEXT NOT NULL REFERENCES tables(id),
        story INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        PRIMARY KEY (table_id, story, seq, seat)) WITHOUT ROWID"""),
)
"""The steps from one layout of the database to the next: step ``n`` (from 1) takes a
database of layout ``n - 1`` to layout ``n``, one SQL statement after another. A
database is brought up to :data:`SCHEMA` when it is opened, every missing step in one
transaction. To change the layout, append a step (a tuple of statements, e.g.
``("ALTER TABLE tables ADD COLUMN touched REAL NOT NULL DEFAULT 0",),``); never edit
one that has shipped."""

SCHEMA = len(MIGRATIONS)
"""The version of the database's layout this version writes (SQLite's
``user_version``); an older database is migrated when opened, a newer one refused."""

TIMEOUT = 5.0
"""How long, in seconds, a write waits for a database another process holds before it
fails (a :class:`StoreError`; the action is not applied)."""


class StoreError(TokaidoError):
    """The database cannot be used: not a database of this program, a layout of a newer
    version, a file that cannot be opened, read or written (a full disk, a damaged
    page), or one held by another process past the timeout. The message is one line
    naming the file. A write that raises it has changed nothing."""


class StoreBusyError(StoreError):
    """The database is in use by another server (``exclusive`` stores only)."""


SeatKind = Literal["open", "human", "bot"]


@frozen
class SeatRecord:
    """One seat of a stored table: ``open`` (nobody has joined yet), ``human`` (joined:
    ``token_hash`` is the SHA-256 of its secret token, never the token itself) or
    ``bot`` (``bot`` names it). An ``open`` seat with a ``token_hash`` is *invited*: the
    hash is that of its invitation's secret, which joining it needs."""

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
    name: str = ""
    """Its readable name (layout 4; a table stored before has none until it is given
    one)."""
    rematch: str | None = None
    """The id of the table made as its rematch, once there is one."""


@frozen
class Decision:
    """Who played one decision: the decision's ``seq`` (its event's place in the log),
    the ``seat`` it was taken for, and ``played_by``: ``"human"`` or ``"bot:NAME"``;
    ``hinted``: the seat's person asked the table for a hint at this decision before
    taking it (layout 5; decisions stored before were not)."""

    seq: int
    seat: int
    played_by: str
    hinted: bool = False


TakeBackRule = Literal["off", "none", "all"]


@frozen
class TableRules:
    """A table's rules for take-backs, clocks and leaving, set at its creation:
    ``takeback``: ``"off"`` (none allowed), ``"none"`` (a seat takes back its decision
    with nobody's consent, when the rule of :mod:`~tokaido_rules.takeback` allows it) or
    ``"all"`` (every other person at the table must agree); ``clock``: seconds per
    decision (``None``: no clock), after which the ``stand_in`` bot plays that decision;
    ``away_after``: seconds with no page of a seat connected after which the seat is
    away and the ``stand_in`` bot plays it until its person returns (``None``: never;
    on a shared store twice the keeper's interval at least, so that a page another
    process serves is not missed between two of its keeper's rounds);
    ``hints``: whether a seat may ask for a hint at its decision (layout 5; a table
    stored before offers them)."""

    takeback: TakeBackRule = "none"
    clock: float | None = None
    stand_in: str = "greedy"
    away_after: float | None = None
    hints: bool = True


@frozen
class TakeBackRecord:
    """One take-back done: by ``seat``, from ``from_seq`` (the table's seq before) back
    to ``to_seq``, with the consent of the seats in ``consent``, at ``at``
    (``time.time()``)."""

    seat: int
    from_seq: int
    to_seq: int
    consent: tuple[int, ...]
    at: float


@frozen
class TakeBackRequest:
    """A take-back waiting for the others' consent: asked by ``seat`` at ``from_seq``
    (the table's seq then), going back to ``to_seq``, after ``story`` take-backs done;
    the seats that ``agreed`` and those still ``waiting``. It lapses when the game moves
    on or goes back: a stored one counts only while ``story`` and ``from_seq`` are the
    table's (:meth:`current`)."""

    story: int
    seat: int
    from_seq: int
    to_seq: int
    agreed: tuple[int, ...]
    waiting: tuple[int, ...]

    def current(self, story: int, seq: int) -> bool:
        """Whether it still waits at a table with ``story`` take-backs done, at ``seq``."""
        return self.story == story and self.from_seq == seq


@frozen
class StoredTable:
    """Everything stored of one table, read in one go (:meth:`Store.load`): what a
    server process loads to catch up with a table another process moved."""

    record: TableRecord
    lines: list[str]
    decisions: list[Decision]
    rules: TableRules | None
    takebacks: list[TakeBackRecord]
    clock: tuple[int, float] | None
    away: dict[int, str]
    rev: int
    request: TakeBackRequest | None = None
    """The take-back waiting for consent as stored (it may have lapsed: see
    :meth:`TakeBackRequest.current`)."""
    hint_asks: frozenset[tuple[int, int, int]] = frozenset()
    """The hints asked at the decision at hand: (take-backs done, seq, seat)."""


class Hold:
    """A table's lock for one change (:meth:`Store.hold`): ``rev`` is the table's
    stored revision when the lock was taken and, once the change is committed, the
    revision it wrote (``None`` on a store that only one process writes: there is
    nothing to catch up with). ``taken`` is false when the lock was asked with
    ``skip_locked`` and another process holds it: the caller does nothing then."""

    __slots__ = ("failed", "rev", "table_id", "taken", "wrote")

    def __init__(self, table_id: str, rev: int | None, taken: bool = True) -> None:
        self.table_id = table_id
        self.rev = rev
        self.taken = taken
        self.wrote = False
        self.failed = False


class Store(Protocol):
    """Where a :class:`~tokaido_rules.tables.Lobby` keeps its tables: the embedded
    SQLite file (:class:`TableStore`, one server process) or a PostgreSQL database
    (:class:`~tokaido_rules.store_pg.PgTableStore`, any number of processes). Every
    failure of the database is a :class:`StoreError` and a write that raises it has
    changed nothing.

    ``shared`` says whether other processes write the same tables: then every change
    of a table is made inside :meth:`hold` (its row lock, the revision it had), and
    :meth:`listen` tells of the changes the others made."""

    path: str
    shared: bool

    def close(self) -> None: ...
    def create(self, record: TableRecord, lines: Sequence[str] = (),
               rules: TableRules | None = None, rematch_of: str | None = None) -> None: ...
    def tables(self) -> list[TableRecord]: ...
    def set_name(self, table_id: str, name: str) -> None: ...
    def lines(self, table_id: str) -> list[str]: ...
    def decisions(self, table_id: str) -> list[Decision]: ...
    def append(self, table_id: str, first: int, lines: Sequence[str],
               decision: Decision | None = None, seat: SeatRecord | None = None) -> None: ...
    def table_ids(self) -> list[str]: ...
    def delete(self, table_ids: Sequence[str]) -> list[str]: ...
    def activity(self) -> dict[str, float]: ...
    def set_activity(self, active: dict[str, float]) -> None: ...
    def overview(self) -> list[dict[str, Any]]: ...
    def set_rules(self, table_id: str, rules: TableRules) -> None: ...
    def rules(self) -> dict[str, TableRules]: ...
    def take_back(self, table_id: str, record: TakeBackRecord) -> None: ...
    def takebacks(self, table_id: str) -> list[TakeBackRecord]: ...
    def set_request(self, table_id: str, request: TakeBackRequest | None) -> None: ...
    def request(self, table_id: str) -> TakeBackRequest | None: ...
    def add_hint_ask(self, table_id: str, story: int, seq: int, seat: int) -> None: ...
    def hint_asks(self, table_id: str) -> frozenset[tuple[int, int, int]]: ...
    def set_clock(self, table_id: str, seq: int, deadline: float | None) -> None: ...
    def clocks(self) -> dict[str, tuple[int, float]]: ...
    def set_away(self, table_id: str, seat: int, why: str | None) -> None: ...
    def away(self) -> dict[str, dict[int, str]]: ...

    def set_seen(self, seen: Mapping[tuple[str, int], float]) -> None:
        """Store when each (table, seat)'s page was last seen (``time.time()``) by this
        process, keeping the latest any process stored: what a shared store's
        processes tell each other for ``away_after``."""
        ...

    def seen(self, table_id: str) -> dict[int, float]:
        """When each seat's page of the table was last seen by any process, as
        stored (in this process's ``time.time()``)."""
        ...

    def stale_seen(self, table_ids: Sequence[str], older: float) -> dict[str, dict[int, float]]:
        """By table (of ``table_ids``), the seats not away whose page was last seen
        more than ``older`` seconds ago as stored (in this process's ``time.time()``):
        pages no live process holds, e.g. those of a process that died, which
        refreshed its pages' times until then."""
        ...

    def due(self) -> list[str]:
        """The tables whose stored clock has run out."""
        ...

    def load(self, table_id: str) -> StoredTable | None:
        """The whole stored table (``None``: not stored, e.g. deleted)."""
        ...

    def hold(self, table_id: str, *, skip_locked: bool = False
             ) -> contextlib.AbstractContextManager[Hold]:
        """Lock the table for one change: the writes made inside (by this thread) are
        one transaction, committed at the end (then the other processes are told) or
        rolled back, raising :class:`StoreError`, if one failed."""
        ...

    def listen(self, told: Callable[[str | None, int], None]) -> None:
        """Call ``told(table_id, rev)`` (in a thread of the store's) for each change
        another process commits; ``told(None, 0)`` when changes may have been missed
        (the database was unreachable): everything is to be read again."""
        ...



# --- rows: how both stores (SQLite here, PostgreSQL in store_pg) turn records into rows
# and rows back into records; the SQL around them is each store's own (placeholders,
# upserts, aggregates), except the three queries of read_tables, the same on both -------

Row = Sequence[Any]
"""A row as a database driver gives it (a tuple)."""


def table_row(record: TableRecord) -> tuple[Any, ...]:
    """The values of a ``tables`` row, in column order (PostgreSQL's ``rev`` after)."""
    return (record.id, record.created, record.players, json.dumps(record.plugins),
            json.dumps(dict(record.options)), record.host_hash, record.header)


def seat_rows(record: TableRecord) -> list[tuple[Any, ...]]:
    """The ``seats`` rows of a new table."""
    return [(record.id, s.seat, s.kind, s.bot, s.token_hash) for s in record.seats]


def line_rows(table_id: str, first: int, lines: Sequence[str]) -> list[tuple[Any, ...]]:
    """The ``lines`` rows of log lines numbered from ``first`` on."""
    return [(table_id, first + n, line) for n, line in enumerate(lines)]


def decision_row(table_id: str, decision: Decision) -> tuple[Any, ...]:
    """The values of a ``decisions`` row (``hinted`` a bool: SQLite stores it as 1/0)."""
    return (table_id, decision.seq, decision.seat, decision.played_by, decision.hinted)


def seat_update(table_id: str, seat: SeatRecord) -> tuple[Any, ...]:
    """The parameters of ``UPDATE seats SET kind, bot, token_hash WHERE table_id AND
    seat``, in that order."""
    return (seat.kind, seat.bot, seat.token_hash, table_id, seat.seat)


def rules_row(table_id: str, rules: TableRules) -> tuple[Any, ...]:
    """The values of a ``table_rules`` row."""
    return (table_id, rules.takeback, rules.clock, rules.stand_in, rules.away_after,
            rules.hints)


def takeback_row(table_id: str, n: int, record: TakeBackRecord) -> tuple[Any, ...]:
    """The values of the table's ``n``-th ``takebacks`` row."""
    return (table_id, n, record.seat, record.from_seq, record.to_seq,
            json.dumps(list(record.consent)), record.at)


def table_record(row: Row, seats: Sequence[SeatRecord],
                 name: tuple[str, str | None]) -> TableRecord:
    """A table's record from the first seven columns of its ``tables`` row, its seats
    and its ``names`` row's name and rematch."""
    table_id, created, players, plugins, options, host_hash, header = row
    return TableRecord(table_id, created, players, tuple(json.loads(plugins)),
                       tuple(json.loads(options).items()), host_hash, header,
                       tuple(seats), *name)


def read_tables(execute: Callable[[str], Any]) -> list[TableRecord]:
    """Every stored table, oldest first, read with ``execute`` (a connection's: these
    queries take no parameters and read the same on SQLite and PostgreSQL)."""
    rows = execute("SELECT id, created, players, plugins, options, host_hash, header "
                   "FROM tables ORDER BY created, id").fetchall()
    seats: dict[str, list[SeatRecord]] = {}
    for table_id, seat, kind, bot, token_hash in execute(
            "SELECT table_id, seat, kind, bot, token_hash FROM seats "
            "ORDER BY table_id, seat").fetchall():
        seats.setdefault(table_id, []).append(SeatRecord(seat, kind, bot, token_hash))
    names = {row[0]: (row[1], row[2])
             for row in execute("SELECT table_id, name, rematch FROM names").fetchall()}
    return [table_record(row, seats.get(row[0], ()), names.get(row[0], ("", None)))
            for row in rows]


def decisions_of(rows: Iterable[Row]) -> list[Decision]:
    """Decisions from ``(seq, seat, played_by, hinted)`` rows."""
    return [Decision(seq, seat, by, bool(hinted)) for seq, seat, by, hinted in rows]


def rules_of(row: Row) -> TableRules:
    """A table's rules from ``(takeback, clock, stand_in, away_after, hints)``."""
    takeback, clock, stand_in, away_after, hints = row
    return TableRules(takeback, clock, stand_in, away_after, bool(hints))


def takeback_records(rows: Iterable[Row]) -> list[TakeBackRecord]:
    """Take-backs from ``(seat, from_seq, to_seq, consent, at)`` rows."""
    return [TakeBackRecord(seat, from_seq, to_seq, tuple(json.loads(consent)), at)
            for seat, from_seq, to_seq, consent, at in rows]


def request_row(table_id: str, request: TakeBackRequest) -> tuple[Any, ...]:
    """The values of a ``takeback_requests`` row."""
    return (table_id, request.story, request.seat, request.from_seq, request.to_seq,
            json.dumps(list(request.agreed)), json.dumps(list(request.waiting)))


def request_of(row: Row | None) -> TakeBackRequest | None:
    """A take-back request from ``(story, seat, from_seq, to_seq, agreed, waiting)``."""
    if row is None:
        return None
    story, seat, from_seq, to_seq, agreed, waiting = row
    return TakeBackRequest(story, seat, from_seq, to_seq, tuple(json.loads(agreed)),
                           tuple(json.loads(waiting)))


REQUEST_COLUMNS = "story, seat, from_seq, to_seq, agreed, waiting"
"""The columns :func:`request_of` reads, in its order."""


def by_table(rows: Iterable[Row]) -> dict[str, dict[int, str]]:
    """``(table_id, seat, value)`` rows as a dict by table of dicts by seat."""
    out: dict[str, dict[int, str]] = {}
    for table_id, seat, value in rows:
        out.setdefault(table_id, {})[seat] = value
    return out


def overview_entries(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """The operator's list (:meth:`Store.overview`) from rows of ``id, created,
    players, plugins, lines, end lines, activity, seat kinds (comma-separated), hinted
    decisions``."""
    return [{"table": i, "created": created, "players": players,
             "plugins": json.loads(plugins), "seats": (kinds or "").split(","),
             "seq": count - ended, "over": bool(ended),
             "active": created if at is None else max(at, created), "hinted": hinted}
            for i, created, players, plugins, count, ended, at, kinds, hinted in rows]


OVERVIEW_END = '%"type":"core.log_end"%'
"""The ``LIKE`` pattern of a log's end line, which the overview counts (a table over)."""


class TableStore:
    """The tables of one server in one SQLite file (``":memory:"``: kept in memory only,
    for tests). Safe to share between threads: one connection, one lock.

    ``timeout``: how long a write waits for a database another process holds
    (:data:`TIMEOUT`). ``exclusive``: take the server's lock, an advisory lock
    (``flock``) on the sidecar file ``PATH.lock`` that the system releases when the
    process ends however it ends; a second exclusive store on the same file, in this or
    another process, is refused with :class:`StoreBusyError`. ``tokaido serve`` opens its
    database exclusive; a plain store (reading, the operator's commands) does not, and
    may read a database a server is using. Systems without ``flock`` (Windows) take no
    lock.

    Opening migrates an older layout (:data:`MIGRATIONS`) and refuses a newer one. Every
    failure of the database is a :class:`StoreError`.
    """

    def __init__(self, path: str | Path, *,
                 synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
                 timeout: float = TIMEOUT, exclusive: bool = False) -> None:
        self.path = str(path)
        self.shared = False
        """One server process writes an SQLite database (see ``exclusive``)."""
        self.timeout = timeout
        self._lock = threading.Lock()
        self._held: int | None = None
        if exclusive and self.path != ":memory:":
            self._held = _take_lock(self.path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None, timeout=timeout)
        except sqlite3.Error as exc:
            self._release()
            raise StoreError(f"{self.path}: {_one_line(exc)}") from None
        try:
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except BaseException as exc:
            self._db.close()
            self._release()
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from None
            raise

    def _migrate(self) -> None:
        """Bring the database up to :data:`SCHEMA`, all missing steps in one transaction
        (a database another process is migrating waits for it)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA:
                raise StoreError(f"{self.path}: a database of a newer tokaido-rules "
                                 f"(layout {version}; this one reads {SCHEMA})")
            known = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                               ).fetchone()[0]
            if known and version == 0:
                raise StoreError(f"{self.path}: not a tokaido-rules database")
            for step in MIGRATIONS[version:]:
                for statement in step:
                    db.execute(statement)
            if version != SCHEMA:
                db.execute(f"PRAGMA user_version = {SCHEMA}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one transaction (begun by the caller) that commits at
        the end or is rolled back; any failure of the database is a StoreError."""
        with self._lock:
            try:
                yield self._db
                if self._db.in_transaction:
                    self._db.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._error(exc) from None
                raise

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise self._error(exc) from None

    def _error(self, exc: sqlite3.Error) -> StoreError:
        text = _one_line(exc)
        if "locked" in text or "busy" in text:
            text += f" (held by another process for more than {self.timeout:g} s)"
        return StoreError(f"{self.path}: {text}")

    def close(self) -> None:
        """Close the database and release the server's lock."""
        with self._lock:
            self._db.close()
            self._release()

    def load(self, table_id: str) -> StoredTable | None:
        """The whole stored table (``None``: not stored); its ``rev`` is 0 (one process
        writes an SQLite database: there is no other to catch up with)."""
        record = next((r for r in self.tables() if r.id == table_id), None)
        if record is None:
            return None
        clock = self.clocks().get(table_id)
        return StoredTable(record, self.lines(table_id), self.decisions(table_id),
                           self.rules().get(table_id), self.takebacks(table_id), clock,
                           self.away().get(table_id, {}), 0, self.request(table_id),
                           self.hint_asks(table_id))

    @contextmanager
    def hold(self, table_id: str, *, skip_locked: bool = False) -> Iterator[Hold]:
        """Nothing to lock: one process writes the file, each write its own
        transaction (the table's own lock orders the changes in memory)."""
        yield Hold(table_id, None)

    def listen(self, told: Callable[[str | None, int], None]) -> None:
        """Nothing to hear: no other process writes the file."""

    def set_seen(self, seen: Mapping[tuple[str, int], float]) -> None:
        """Nothing to store: the one process that writes the file knows every page
        (its tables' ``seen`` in memory are the whole truth)."""

    def seen(self, table_id: str) -> dict[int, float]:
        """Nothing stored (see :meth:`set_seen`)."""
        return {}

    def stale_seen(self, table_ids: Sequence[str], older: float) -> dict[str, dict[int, float]]:
        """Nothing stored (see :meth:`set_seen`)."""
        return {}

    def due(self) -> list[str]:
        """The tables whose stored clock has run out."""
        import time

        with self._reading() as db:
            return [row[0] for row in db.execute(
                "SELECT table_id FROM clocks WHERE deadline <= ?", (time.time(),))]

    def _release(self) -> None:
        if self._held is not None:
            os.close(self._held)  # closing the descriptor releases the flock
            self._held = None

    def create(self, record: TableRecord, lines: Sequence[str] = (),
               rules: TableRules | None = None,
               rematch_of: str | None = None) -> None:
        """Store a new table: its header, seats, name, first log lines (its setup, up
        to the first decision) and its rules for take-backs, clocks and leaving, in one
        transaction; ``rematch_of``: the table it is the rematch of, which then names
        it."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)", table_row(record))
            db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?)", seat_rows(record))
            db.executemany("INSERT INTO lines VALUES (?, ?, ?)", line_rows(record.id, 0, lines))
            if rules is not None:
                db.execute("INSERT INTO table_rules VALUES (?, ?, ?, ?, ?, ?)",
                           rules_row(record.id, rules))
            if record.name:
                db.execute("INSERT INTO names VALUES (?, ?, NULL)", (record.id, record.name))
            if rematch_of is not None:
                db.execute("UPDATE names SET rematch = ? WHERE table_id = ?",
                           (record.id, rematch_of))
                if not db.execute("SELECT changes()").fetchone()[0]:
                    raise StoreError(f"{self.path}: table {rematch_of} has no name row")

    def tables(self) -> list[TableRecord]:
        """Every stored table, oldest first."""
        with self._reading() as db:
            return read_tables(db.execute)

    def set_name(self, table_id: str, name: str) -> None:
        """Give a table stored without a name (before layout 4) its name."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO names VALUES (?, ?, NULL) ON CONFLICT (table_id) "
                       "DO NOTHING", (table_id, name))

    def lines(self, table_id: str) -> list[str]:
        """The table's log lines after its header, in order."""
        with self._reading() as db:
            return [row[0] for row in db.execute(
                "SELECT line FROM lines WHERE table_id = ? ORDER BY n", (table_id,))]

    def decisions(self, table_id: str) -> list[Decision]:
        """Who played each decision of the table, in order."""
        with self._reading() as db:
            return decisions_of(db.execute(
                "SELECT seq, seat, played_by, hinted FROM decisions WHERE table_id = ? "
                "ORDER BY seq", (table_id,)))

    def append(self, table_id: str, first: int, lines: Sequence[str],
               decision: Decision | None = None,
               seat: SeatRecord | None = None) -> None:
        """In one transaction: the table's log lines numbered from ``first`` on, who
        played the decision that made them, and a seat's new record. Raises
        :class:`StoreError`, having stored nothing, if the database cannot take it."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO lines VALUES (?, ?, ?)",
                           line_rows(table_id, first, lines))
            if decision is not None:
                db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?)",
                           decision_row(table_id, decision))
            if seat is not None:
                db.execute("UPDATE seats SET kind = ?, bot = ?, token_hash = ? "
                           "WHERE table_id = ? AND seat = ?", seat_update(table_id, seat))

    # --- deletion and activity (for expiry and the operator's ``tokaido tables``) ------
    # The activity is kept in a table of its own (layout 2): ``activity(table_id, at)``,
    # ``at`` the ``time.time()`` of the table's last action or seat's request.

    def table_ids(self) -> list[str]:
        """The ids of the stored tables."""
        with self._reading() as db:
            return [row[0] for row in db.execute("SELECT id FROM tables")]

    def delete(self, table_ids: Sequence[str]) -> list[str]:
        """Delete these tables, in one transaction: all of them, or none if one is not
        stored (:class:`StoreError` naming it). The ids deleted."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            known = {row[0] for row in db.execute("SELECT id FROM tables")}
            missing = [i for i in table_ids if i not in known]
            if missing:
                raise StoreError(f"{self.path}: no table {missing[0]}")
            for name in ("takeback_requests", "hint_asks", "names", "away", "clocks", "takebacks",
                         "table_rules", "activity", "decisions", "lines", "seats"):
                db.executemany(f"DELETE FROM {name} WHERE table_id = ?",
                               [(i,) for i in table_ids])
            db.executemany("DELETE FROM tables WHERE id = ?", [(i,) for i in table_ids])
        return list(table_ids)

    def activity(self) -> dict[str, float]:
        """When each table was last active, as stored (tables never stored: absent)."""
        with self._transaction() as db:
            return {row[0]: row[1] for row in db.execute("SELECT table_id, at FROM activity")}

    def set_activity(self, active: dict[str, float]) -> None:
        """Store when these tables were last active (tables deleted meanwhile are left
        out)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO activity SELECT ?, ? WHERE EXISTS (SELECT 1 FROM "
                           "tables WHERE id = ?) ON CONFLICT (table_id) DO UPDATE SET "
                           "at = excluded.at", [(i, at, i) for i, at in active.items()])

    def overview(self) -> list[dict[str, Any]]:
        """Each table as the operator lists it, without loading its game: ``table``,
        ``created``, ``players``, ``plugins``, ``seats`` (each seat's kind), ``seq`` (its
        events so far), ``over`` and ``active`` (its last activity as stored, else its
        creation) and ``hinted`` (the decisions taken after a hint)."""
        with self._transaction() as db:
            rows = db.execute(
                "SELECT t.id, t.created, t.players, t.plugins, "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id), "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id AND l.line LIKE ?), "
                "(SELECT at FROM activity a WHERE a.table_id = t.id), "
                "(SELECT group_concat(kind, ',') FROM (SELECT kind FROM seats s "
                "WHERE s.table_id = t.id ORDER BY seat)), "
                "(SELECT count(*) FROM decisions d WHERE d.table_id = t.id AND d.hinted) "
                "FROM tables t ORDER BY t.created, t.id", (OVERVIEW_END,)).fetchall()
        return overview_entries(rows)

    # --- take-backs, clocks and leaving (layout 3, issue #40) ----------------------------

    def set_rules(self, table_id: str, rules: TableRules) -> None:
        """Store (or replace) a table's rules for take-backs, clocks and leaving."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT OR REPLACE INTO table_rules VALUES (?, ?, ?, ?, ?, ?)",
                       rules_row(table_id, rules))

    def rules(self) -> dict[str, TableRules]:
        """Each table's stored rules (a table of an older layout has none: the
        defaults)."""
        with self._reading() as db:
            return {row[0]: rules_of(row[1:]) for row in db.execute(
                "SELECT table_id, takeback, clock, stand_in, away_after, hints "
                "FROM table_rules")}

    def take_back(self, table_id: str, record: TakeBackRecord) -> None:
        """In one transaction: remove the table's log lines and decisions from
        ``record.to_seq`` on (line ``n`` is event ``n``: the stored lines of an
        unfinished table are its events after the header) and record the take-back."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM lines WHERE table_id = ? AND n >= ?",
                       (table_id, record.to_seq))
            db.execute("DELETE FROM decisions WHERE table_id = ? AND seq >= ?",
                       (table_id, record.to_seq))
            n = db.execute("SELECT count(*) FROM takebacks WHERE table_id = ?",
                           (table_id,)).fetchone()[0]
            db.execute("INSERT INTO takebacks VALUES (?, ?, ?, ?, ?, ?, ?)",
                       takeback_row(table_id, n, record))

    def takebacks(self, table_id: str) -> list[TakeBackRecord]:
        """The take-backs done at a table, in order."""
        with self._reading() as db:
            return takeback_records(db.execute(
                "SELECT seat, from_seq, to_seq, consent, at FROM takebacks "
                "WHERE table_id = ? ORDER BY n", (table_id,)))

    def set_request(self, table_id: str, request: TakeBackRequest | None) -> None:
        """Store the take-back waiting for consent (``None``: none waits)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            if request is None:
                db.execute("DELETE FROM takeback_requests WHERE table_id = ?", (table_id,))
            else:
                db.execute("INSERT OR REPLACE INTO takeback_requests VALUES "
                           "(?, ?, ?, ?, ?, ?, ?)", request_row(table_id, request))

    def request(self, table_id: str) -> TakeBackRequest | None:
        """The take-back waiting for consent as stored (``None``: none)."""
        with self._reading() as db:
            return request_of(db.execute(
                f"SELECT {REQUEST_COLUMNS} FROM takeback_requests WHERE table_id = ?",
                (table_id,)).fetchone())

    def add_hint_ask(self, table_id: str, story: int, seq: int, seat: int) -> None:
        """Store that ``seat`` asked a hint at the decision at ``seq`` (after ``story``
        take-backs); the hints asked at earlier decisions are dropped."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM hint_asks WHERE table_id = ? AND (story != ? OR "
                       "seq != ?)", (table_id, story, seq))
            db.execute("INSERT OR IGNORE INTO hint_asks VALUES (?, ?, ?, ?)",
                       (table_id, story, seq, seat))

    def hint_asks(self, table_id: str) -> frozenset[tuple[int, int, int]]:
        """The hints asked at the table's decision at hand: (story, seq, seat)."""
        with self._reading() as db:
            return frozenset(tuple(row) for row in db.execute(
                "SELECT story, seq, seat FROM hint_asks WHERE table_id = ?", (table_id,)))

    def set_clock(self, table_id: str, seq: int, deadline: float | None) -> None:
        """Store the deadline of the decision at ``seq`` (``None``: no clock runs)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            if deadline is None:
                db.execute("DELETE FROM clocks WHERE table_id = ?", (table_id,))
            else:
                db.execute("INSERT OR REPLACE INTO clocks VALUES (?, ?, ?)",
                           (table_id, seq, deadline))

    def clocks(self) -> dict[str, tuple[int, float]]:
        """By table, the seq of the decision whose clock runs and its deadline."""
        with self._reading() as db:
            return {row[0]: (row[1], row[2]) for row in db.execute(
                "SELECT table_id, seq, deadline FROM clocks")}

    def set_away(self, table_id: str, seat: int, why: str | None) -> None:
        """Store that ``seat`` is away (``why``: ``"left"`` or ``"absent"``), or back
        (``None``)."""
        with self._transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            if why is None:
                db.execute("DELETE FROM away WHERE table_id = ? AND seat = ?",
                           (table_id, seat))
            else:
                db.execute("INSERT OR REPLACE INTO away VALUES (?, ?, ?)",
                           (table_id, seat, why))

    def away(self) -> dict[str, dict[int, str]]:
        """By table, the seats away and why."""
        with self._reading() as db:
            return by_table(db.execute("SELECT table_id, seat, why FROM away"))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _take_lock(path: str) -> int | None:
    """The server's lock on ``path``: an exclusive ``flock`` on ``PATH.lock``, held
    while the descriptor returned is open (the system releases it when the process
    ends, ``kill -9`` included)."""
    try:
        import fcntl
    except ImportError:  # no flock on this system (Windows): no lock
        return None
    where = path + ".lock"
    try:
        fd = os.open(where, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(f"{where}: cannot open the lock file ({exc.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
        except OSError:
            holder = ""
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise StoreBusyError(f"{path} is in use by another server{who}; one server "
                             "serves one database") from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd

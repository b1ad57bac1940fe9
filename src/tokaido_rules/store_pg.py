"""The tables of any number of ``tokaido serve`` processes in one PostgreSQL database
(``tokaido serve --db postgresql://...``; the ``postgres`` extra: ``psycopg`` 3).

The layout is that of the SQLite store (:mod:`~tokaido_rules.store`) with one more
column, each table's ``rev``: the number of changes committed to it. A change of a table
is made under the table's row lock (:meth:`PgTableStore.hold`: ``SELECT rev ... FOR
UPDATE``), in one transaction that bumps ``rev`` and sends ``NOTIFY tokaido_tables``
with the table's id and new ``rev``; the notification is delivered when, and only if,
the transaction commits. A process that holds a table at an older ``rev`` reads it again
before it changes it, so no seq is applied twice and no seat is handed out twice, and
each process's listener (:meth:`PgTableStore.listen`) hears the others' changes to wake
its own clients.

A database that cannot be reached is a :class:`~tokaido_rules.store.StoreError` (the
server answers 503 with ``Retry-After``); a broken connection is dropped and the next
use connects again, so the service resumes by itself. The URL's password is never
printed (:attr:`PgTableStore.path` leaves it out); libpq's environment variables
(``PGPASSWORD``, ``PGHOST``...) and ``~/.pgpass`` work as with ``psql``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from .store import (
    OVERVIEW_END,
    REQUEST_COLUMNS,
    TIMEOUT,
    Decision,
    Hold,
    SeatRecord,
    Store,
    StoredTable,
    StoreError,
    TableRecord,
    TableRules,
    TableStore,
    TakeBackRecord,
    TakeBackRequest,
    by_table,
    decision_row,
    decisions_of,
    line_rows,
    overview_entries,
    read_tables,
    request_of,
    request_row,
    rules_of,
    rules_row,
    seat_rows,
    seat_update,
    table_record,
    table_row,
    takeback_records,
    takeback_row,
)

__all__ = ["PgTableStore", "PG_MIGRATIONS", "PG_SCHEMA", "CHANNEL", "display_url",
           "open_store"]

CHANNEL = "tokaido_tables"
"""The ``LISTEN``/``NOTIFY`` channel: each payload is ``PROCESS:TABLE:REV`` (``REV`` -1:
the table was deleted)."""

PG_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the SQLite store's layout 4, and each table's rev (changes committed)
    ("""CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        created DOUBLE PRECISION NOT NULL,
        players INTEGER NOT NULL,
        plugins TEXT NOT NULL,
        options TEXT NOT NULL,
        host_hash TEXT NOT NULL,
        header TEXT NOT NULL,
        rev BIGINT NOT NULL DEFAULT 0)""",
     """CREATE TABLE seats (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('open', 'human', 'bot')),
        bot TEXT,
        token_hash TEXT,
        PRIMARY KEY (table_id, seat))""",
     """CREATE TABLE lines (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (table_id, n))""",
     """CREATE TABLE decisions (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        played_by TEXT NOT NULL,
        PRIMARY KEY (table_id, seq))""",
     """CREATE TABLE activity (
        table_id TEXT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        at DOUBLE PRECISION NOT NULL)""",
     """CREATE TABLE table_rules (
        table_id TEXT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        takeback TEXT NOT NULL CHECK (takeback IN ('off', 'none', 'all')),
        clock DOUBLE PRECISION,
        stand_in TEXT NOT NULL,
        away_after DOUBLE PRECISION)""",
     """CREATE TABLE takebacks (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        consent TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, n))""",
     """CREATE TABLE clocks (
        table_id TEXT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        deadline DOUBLE PRECISION NOT NULL)""",
     """CREATE TABLE away (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        why TEXT NOT NULL,
        PRIMARY KEY (table_id, seat))""",
     """CREATE TABLE names (
        table_id TEXT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        name TEXT NOT NULL UNIQUE,
        rematch TEXT)"""),
    # 2: the SQLite store's layout 5: hints at the table, decisions taken after one
    ("ALTER TABLE table_rules ADD COLUMN hints BOOLEAN NOT NULL DEFAULT TRUE",
     "ALTER TABLE decisions ADD COLUMN hinted BOOLEAN NOT NULL DEFAULT FALSE"),
    # 3: the SQLite store's layout 6: the take-back waiting for consent, which a
    # process other than the one it was asked at may show and answer, and the hints
    # asked at the decision at hand, whichever process the move is then made at; and
    # when each seat's page was last seen by any process (for away_after; the
    # database's clock), which SQLite needs not: one process sees every page
    ("""CREATE TABLE takeback_requests (
        table_id TEXT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        story INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        agreed TEXT NOT NULL,
        waiting TEXT NOT NULL)""",
     """CREATE TABLE hint_asks (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        story INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        PRIMARY KEY (table_id, story, seq, seat))""",
     """CREATE TABLE seen (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, seat))"""),
)
"""The steps of the PostgreSQL layout, as :data:`~tokaido_rules.store.MIGRATIONS` for
SQLite: step ``n`` takes layout ``n - 1`` to ``n``; append, never edit one shipped. The
version is kept in the table ``tokaido_schema``; the steps run under an advisory lock,
so processes started together migrate once."""

PG_SCHEMA = len(PG_MIGRATIONS)
"""The PostgreSQL layout this version writes."""

_DB_NOW = "extract(epoch FROM clock_timestamp())::float8"  # the database's time.time()
_MIGRATION_LOCK = 0x70CA1D0  # the advisory lock taken while migrating
_POOL = 16  # idle connections kept


def open_store(where: str, *, timeout: float = TIMEOUT, exclusive: bool = False) -> Store:
    """The store at ``where`` (``tokaido serve --db``): a ``postgresql://`` (or
    ``postgres://``) URL opens :class:`PgTableStore` (the ``postgres`` extra), anything
    else is an SQLite file (:class:`~tokaido_rules.store.TableStore`; ``exclusive``: the
    one server's lock)."""
    if where.startswith(("postgresql://", "postgres://")):
        return PgTableStore(where, timeout=timeout)
    return TableStore(where, timeout=timeout, exclusive=exclusive)


def display_url(url: str) -> str:
    """``url`` without its password (what messages and logs show)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(url)
    except Exception:  # not a URL psycopg reads: show its scheme only
        return url.split("://", 1)[0] + "://..."
    user = parts.get("user")
    host = str(parts.get("host") or "")
    port = parts.get("port")
    where = (f"{user}@" if user else "") + (host if "/" not in host else "")
    if port:
        where += f":{port}"
    shown = f"postgresql://{where}/{parts.get('dbname') or ''}"
    if "/" in host:
        shown += f"?host={host}"
    return shown


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class PgTableStore:
    """The tables of every server process on one PostgreSQL database (``url``: a
    ``postgresql://`` URL, libpq's environment variables and ``~/.pgpass`` filling in
    what it leaves out). Safe to share between threads: a small pool of connections.

    ``timeout``: seconds a connection attempt, and a change waiting for a table's lock
    another process holds, wait before failing with :class:`StoreError`. Opening
    migrates an older layout (:data:`PG_MIGRATIONS`) and refuses a newer one."""

    def __init__(self, url: str, *, timeout: float = TIMEOUT) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError("a postgresql:// database needs the postgres extra: "
                             "pip install 'tokaido-rules[postgres]'") from None
        self._psycopg = psycopg
        self._url = url
        self.path = display_url(url)
        self.shared = True
        """Any number of processes write the same tables."""
        self.timeout = timeout
        self.process = secrets.token_hex(6)
        """This store's name in the notifications (its own are not heard back)."""
        self._idle: list[Any] = []
        self._pool_lock = threading.Lock()
        self._local = threading.local()
        self._closed = threading.Event()
        self._listener: threading.Thread | None = None
        with self._connection() as conn:
            self._migrate(conn)

    # --- connections ---------------------------------------------------------------

    def _connect(self) -> Any:
        lock_ms = max(1, int(self.timeout * 1000))
        try:
            return self._psycopg.connect(
                self._url, autocommit=True, connect_timeout=max(2, round(self.timeout)),
                options=f"-c lock_timeout={lock_ms}", application_name="tokaido serve")
        except self._psycopg.Error as exc:
            raise self._error(exc) from None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection of the pool (a new one if none is idle), returned after use
        unless it broke (the next use connects again: the database came back)."""
        with self._pool_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed:
            conn = self._connect()
        try:
            yield conn
        finally:
            if conn.closed or conn.broken or self._closed.is_set():
                with suppress(Exception):
                    conn.close()
                if conn.broken:  # the database went away: the idle ones broke too
                    with self._pool_lock:
                        idle, self._idle = self._idle, []
                    for other in idle:
                        with suppress(Exception):
                            other.close()
            else:
                with self._pool_lock:
                    if len(self._idle) < _POOL:
                        self._idle.append(conn)
                        conn = None
                if conn is not None:
                    conn.close()

    def _error(self, exc: BaseException) -> StoreError:
        text = _one_line(exc)
        password = None
        with suppress(Exception):
            from psycopg.conninfo import conninfo_to_dict

            password = conninfo_to_dict(self._url).get("password")
        if password:
            text = text.replace(str(password), "***")
        return StoreError(f"{self.path}: {text}")

    @contextmanager
    def _tx(self, table_id: str | None = None) -> Iterator[Any]:
        """The connection for one write: inside this thread's :meth:`hold`, its
        transaction (the hold commits it); else a transaction of its own that, for a
        change of ``table_id``, bumps its rev and tells the other processes."""
        held = getattr(self._local, "held", None)
        if held is not None:
            conn, hold = held
            hold.wrote = True
            try:
                yield conn
            except self._psycopg.Error as exc:
                hold.failed = True
                raise self._error(exc) from None
            return
        try:
            with self._connection() as conn, conn.transaction():
                yield conn
                if table_id is not None:
                    row = conn.execute("UPDATE tables SET rev = rev + 1 WHERE id = %s "
                                       "RETURNING rev", (table_id,)).fetchone()
                    if row is not None:
                        self._notify(conn, table_id, row[0])
        except self._psycopg.Error as exc:
            raise self._error(exc) from None

    @contextmanager
    def _reading(self) -> Iterator[Any]:
        held = getattr(self._local, "held", None)
        try:
            if held is not None:
                yield held[0]
                return
            with self._connection() as conn:
                yield conn
        except self._psycopg.Error as exc:
            raise self._error(exc) from None

    def _notify(self, conn: Any, table_id: str, rev: int) -> None:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.process}:{table_id}:{rev}"))

    def _migrate(self, conn: Any) -> None:
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                conn.execute("CREATE TABLE IF NOT EXISTS tokaido_schema "
                             "(version INTEGER NOT NULL)")
                row = conn.execute("SELECT version FROM tokaido_schema").fetchone()
                version = 0 if row is None else row[0]
                if version > PG_SCHEMA:
                    raise StoreError(f"{self.path}: a database of a newer tokaido-rules "
                                     f"(layout {version}; this one reads {PG_SCHEMA})")
                if version == 0 and conn.execute(
                        "SELECT 1 FROM information_schema.tables WHERE table_schema = "
                        "current_schema() AND table_name = 'tables'").fetchone():
                    raise StoreError(f"{self.path}: not a tokaido-rules database")
                for step in PG_MIGRATIONS[version:]:
                    for statement in step:
                        conn.execute(statement)
                if row is None:
                    conn.execute("INSERT INTO tokaido_schema VALUES (%s)", (PG_SCHEMA,))
                elif version != PG_SCHEMA:
                    conn.execute("UPDATE tokaido_schema SET version = %s", (PG_SCHEMA,))
        except self._psycopg.Error as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        """Close every connection and stop the listener."""
        self._closed.set()
        with self._pool_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            with suppress(Exception):
                conn.close()
        if self._listener is not None:
            self._listener.join(timeout=5)

    # --- the lock of a table, and the others' changes --------------------------------

    @contextmanager
    def hold(self, table_id: str, *, skip_locked: bool = False) -> Iterator[Hold]:
        """Lock the table's row (``FOR NO KEY UPDATE``; with ``skip_locked``, not waiting
        for another process: then ``taken`` is false) for one change. Every change of a
        table bumps its ``rev``, so two changes still wait on each other, while the
        keepers' upserts of ``activity`` and ``seen`` (whose foreign keys only share
        the key) do not wait on a table another process is changing. The writes this
        thread makes inside are one transaction; at the end it bumps ``rev`` (set on the
        hold) and notifies the others, or is rolled back, raising
        :class:`StoreError`, if one of them failed. ``rev`` -1: no such table."""
        held = getattr(self._local, "held", None)
        if held is not None:  # within another table's hold: the same transaction, and
            conn = held[0]    # this table's rev bumped too (its writes are not told
            try:              # apart from the other's)
                row = conn.execute("SELECT rev FROM tables WHERE id = %s "
                                   "FOR NO KEY UPDATE",
                                   (table_id,)).fetchone()
                inner = Hold(table_id, -1 if row is None else row[0])
                yield inner
                if row is not None:
                    inner.rev = conn.execute("UPDATE tables SET rev = rev + 1 WHERE id = "
                                             "%s RETURNING rev", (table_id,)).fetchone()[0]
                    self._notify(conn, table_id, inner.rev)
            except self._psycopg.Error as exc:
                held[1].failed = True
                raise self._error(exc) from None
            return
        psycopg = self._psycopg
        hold = Hold(table_id, None)
        failed = False
        try:
            with self._connection() as conn, conn.transaction():
                row = conn.execute(
                    "SELECT rev FROM tables WHERE id = %s FOR NO KEY UPDATE"
                    + (" SKIP LOCKED" if skip_locked else ""), (table_id,)).fetchone()
                if row is None:
                    hold.taken = not skip_locked
                    hold.rev = -1
                else:
                    hold.rev = row[0]
                self._local.held = (conn, hold)
                try:
                    yield hold
                finally:
                    self._local.held = None
                if hold.failed:
                    failed = True
                    raise psycopg.Rollback()
                if hold.wrote and row is not None:
                    new = conn.execute("UPDATE tables SET rev = rev + 1 WHERE id = %s "
                                       "RETURNING rev", (table_id,)).fetchone()[0]
                    self._notify(conn, table_id, new)
                    hold.rev = new
        except psycopg.Error as exc:
            raise self._error(exc) from None
        if failed:
            raise StoreError(f"{self.path}: a write failed; the change was rolled back")

    def listen(self, told: Callable[[str | None, int], None]) -> None:
        """Hear the other processes' changes in a thread of its own: ``told(id, rev)``
        for each; ``told(None, 0)`` after the connection came back (changes may have
        been missed meanwhile). Tries again every second while the database is away.
        Returns once listening (or once the first try failed): a change committed after
        the return is heard."""
        if self._listener is not None:
            return
        ready = threading.Event()

        def run() -> None:
            lost = False
            while not self._closed.is_set():
                try:
                    conn = self._connect()
                except StoreError:
                    lost = True
                    ready.set()
                    self._closed.wait(1.0)
                    continue
                try:
                    conn.execute(f"LISTEN {CHANNEL}")
                    ready.set()
                    if lost:
                        told(None, 0)
                        lost = False
                    while not self._closed.is_set():
                        for note in conn.notifies(timeout=0.5):
                            process, _, rest = note.payload.partition(":")
                            table_id, _, rev = rest.rpartition(":")
                            if process != self.process and table_id:
                                told(table_id, int(rev))
                except Exception:  # the connection broke: listen again, read again
                    lost = True
                    self._closed.wait(1.0)
                finally:
                    with suppress(Exception):
                        conn.close()

        self._listener = threading.Thread(target=run, name="tokaido-listen", daemon=True)
        self._listener.start()
        ready.wait(self.timeout + 5)

    def due(self) -> list[str]:
        """The tables whose clock has run out (their stand-in is to play now): what a
        process's keeper plays for a process that died."""
        with self._reading() as conn:
            return [row[0] for row in conn.execute(
                "SELECT table_id FROM clocks WHERE deadline <= %s", (time.time(),))]

    # --- the tables ------------------------------------------------------------------

    def create(self, record: TableRecord, lines: Sequence[str] = (),
               rules: TableRules | None = None, rematch_of: str | None = None) -> None:
        """Store a new table in one transaction (see the SQLite store's); the other
        processes are told of it (and of the table it is the rematch of)."""
        with self._tx() as conn:
            conn.execute("INSERT INTO tables VALUES (%s, %s, %s, %s, %s, %s, %s, 0)",
                         table_row(record))
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO seats VALUES (%s, %s, %s, %s, %s)",
                                seat_rows(record))
                if lines:
                    cur.executemany("INSERT INTO lines VALUES (%s, %s, %s)",
                                    line_rows(record.id, 0, lines))
            if rules is not None:
                conn.execute("INSERT INTO table_rules VALUES (%s, %s, %s, %s, %s, %s)",
                             rules_row(record.id, rules))
            if record.name:
                conn.execute("INSERT INTO names VALUES (%s, %s, NULL)",
                             (record.id, record.name))
            self._notify(conn, record.id, 0)
            if rematch_of is not None:
                row = conn.execute("UPDATE names SET rematch = %s WHERE table_id = %s "
                                   "RETURNING table_id", (record.id, rematch_of)).fetchone()
                if row is None:
                    raise StoreError(f"{self.path}: table {rematch_of} has no name row")
                rev = conn.execute("UPDATE tables SET rev = rev + 1 WHERE id = %s "
                                   "RETURNING rev", (rematch_of,)).fetchone()[0]
                self._notify(conn, rematch_of, rev)

    def tables(self) -> list[TableRecord]:
        """Every stored table, oldest first."""
        with self._reading() as conn:
            return read_tables(conn.execute)

    def load(self, table_id: str) -> StoredTable | None:
        """The whole stored table, as of one snapshot (``None``: not stored)."""
        held = getattr(self._local, "held", None) is not None
        with self._reading() as conn, conn.transaction():
            if not held:  # inside a hold, the table is locked: one snapshot anyway
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = conn.execute(
                "SELECT id, created, players, plugins, options, host_hash, header, rev "
                "FROM tables WHERE id = %s", (table_id,)).fetchone()
            if row is None:
                return None
            seats = [SeatRecord(*r) for r in conn.execute(
                "SELECT seat, kind, bot, token_hash FROM seats WHERE table_id = %s "
                "ORDER BY seat", (table_id,))]
            name = conn.execute("SELECT name, rematch FROM names WHERE table_id = %s",
                                (table_id,)).fetchone()
            lines = [r[0] for r in conn.execute(
                "SELECT line FROM lines WHERE table_id = %s ORDER BY n", (table_id,))]
            decisions = decisions_of(conn.execute(
                "SELECT seq, seat, played_by, hinted FROM decisions WHERE table_id = %s "
                "ORDER BY seq", (table_id,)))
            rules = conn.execute("SELECT takeback, clock, stand_in, away_after, hints FROM "
                                 "table_rules WHERE table_id = %s", (table_id,)).fetchone()
            takebacks = self._takebacks(conn, table_id)
            clock = conn.execute("SELECT seq, deadline FROM clocks WHERE table_id = %s",
                                 (table_id,)).fetchone()
            away = {r[0]: r[1] for r in conn.execute(
                "SELECT seat, why FROM away WHERE table_id = %s", (table_id,))}
            request = self._request(conn, table_id)
            hint_asks = self._hint_asks(conn, table_id)
        return StoredTable(table_record(row[:7], seats, tuple(name) if name else ("", None)),
                           lines, decisions, None if rules is None else rules_of(rules),
                           takebacks, None if clock is None else (clock[0], clock[1]),
                           away, row[7], request, hint_asks)

    def set_name(self, table_id: str, name: str) -> None:
        """Give a table stored without a name its name."""
        with self._tx() as conn:
            conn.execute("INSERT INTO names VALUES (%s, %s, NULL) ON CONFLICT (table_id) "
                         "DO NOTHING", (table_id, name))

    def lines(self, table_id: str) -> list[str]:
        """The table's log lines after its header, in order."""
        with self._reading() as conn:
            return [row[0] for row in conn.execute(
                "SELECT line FROM lines WHERE table_id = %s ORDER BY n", (table_id,))]

    def decisions(self, table_id: str) -> list[Decision]:
        """Who played each decision of the table, in order."""
        with self._reading() as conn:
            return decisions_of(conn.execute(
                "SELECT seq, seat, played_by, hinted FROM decisions WHERE table_id = %s "
                "ORDER BY seq", (table_id,)))

    def append(self, table_id: str, first: int, lines: Sequence[str],
               decision: Decision | None = None, seat: SeatRecord | None = None) -> None:
        """The table's log lines from ``first`` on, who played the decision, and a
        seat's new record, in one transaction (that of the hold, inside one)."""
        with self._tx(table_id) as conn:
            if lines:
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO lines VALUES (%s, %s, %s)",
                                    line_rows(table_id, first, lines))
            if decision is not None:
                conn.execute("INSERT INTO decisions VALUES (%s, %s, %s, %s, %s)",
                             decision_row(table_id, decision))
            if seat is not None:
                conn.execute("UPDATE seats SET kind = %s, bot = %s, token_hash = %s "
                             "WHERE table_id = %s AND seat = %s", seat_update(table_id, seat))

    def table_ids(self) -> list[str]:
        """The ids of the stored tables."""
        with self._reading() as conn:
            return [row[0] for row in conn.execute("SELECT id FROM tables")]

    def delete(self, table_ids: Sequence[str]) -> list[str]:
        """Delete these tables, all or none (:class:`StoreError` naming one not
        stored); the other processes are told."""
        with self._tx() as conn:
            found = {row[0] for row in conn.execute(
                "SELECT id FROM tables WHERE id = ANY(%s) FOR UPDATE", (list(table_ids),))}
            missing = [i for i in table_ids if i not in found]
            if missing:
                raise StoreError(f"{self.path}: no table {missing[0]}")
            conn.execute("DELETE FROM tables WHERE id = ANY(%s)", (list(table_ids),))
            for table_id in table_ids:
                self._notify(conn, table_id, -1)
        return list(table_ids)

    def activity(self) -> dict[str, float]:
        """When each table was last active, as stored."""
        with self._reading() as conn:
            return {row[0]: row[1] for row in conn.execute(
                "SELECT table_id, at FROM activity")}

    def set_activity(self, active: dict[str, float]) -> None:
        """Store when these tables were last active (the latest any process saw)."""
        with self._tx() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO activity SELECT %s, %s WHERE EXISTS (SELECT 1 FROM tables "
                "WHERE id = %s) ON CONFLICT (table_id) DO UPDATE SET at = "
                "GREATEST(activity.at, excluded.at)", [(i, at, i) for i, at in active.items()])

    def overview(self) -> list[dict[str, Any]]:
        """Each table as the operator lists it (see the SQLite store's)."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT t.id, t.created, t.players, t.plugins, "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id), "
                "(SELECT count(*) FROM lines l WHERE l.table_id = t.id AND l.line LIKE %s), "
                "(SELECT at FROM activity a WHERE a.table_id = t.id), "
                "(SELECT string_agg(kind, ',' ORDER BY seat) FROM seats s "
                "WHERE s.table_id = t.id), "
                "(SELECT count(*) FROM decisions d WHERE d.table_id = t.id AND d.hinted) "
                "FROM tables t ORDER BY t.created, t.id", (OVERVIEW_END,)).fetchall()
        return overview_entries(rows)

    def set_rules(self, table_id: str, rules: TableRules) -> None:
        """Store (or replace) a table's rules for take-backs, clocks and leaving."""
        with self._tx(table_id) as conn:
            conn.execute("INSERT INTO table_rules VALUES (%s, %s, %s, %s, %s, %s) ON "
                         "CONFLICT (table_id) DO UPDATE SET takeback = excluded.takeback, "
                         "clock = excluded.clock, stand_in = excluded.stand_in, away_after = "
                         "excluded.away_after, hints = excluded.hints",
                         rules_row(table_id, rules))

    def rules(self) -> dict[str, TableRules]:
        """Each table's stored rules."""
        with self._reading() as conn:
            return {row[0]: rules_of(row[1:]) for row in conn.execute(
                "SELECT table_id, takeback, clock, stand_in, away_after, hints "
                "FROM table_rules")}

    def take_back(self, table_id: str, record: TakeBackRecord) -> None:
        """Remove the lines and decisions from ``record.to_seq`` on and record the
        take-back, in one transaction."""
        with self._tx(table_id) as conn:
            conn.execute("DELETE FROM lines WHERE table_id = %s AND n >= %s",
                         (table_id, record.to_seq))
            conn.execute("DELETE FROM decisions WHERE table_id = %s AND seq >= %s",
                         (table_id, record.to_seq))
            n = conn.execute("SELECT count(*) FROM takebacks WHERE table_id = %s",
                             (table_id,)).fetchone()[0]
            conn.execute("INSERT INTO takebacks VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         takeback_row(table_id, n, record))

    def takebacks(self, table_id: str) -> list[TakeBackRecord]:
        """The take-backs done at a table, in order."""
        with self._reading() as conn:
            return self._takebacks(conn, table_id)

    @staticmethod
    def _takebacks(conn: Any, table_id: str) -> list[TakeBackRecord]:
        return takeback_records(conn.execute(
            "SELECT seat, from_seq, to_seq, consent, at FROM takebacks "
            "WHERE table_id = %s ORDER BY n", (table_id,)))

    def set_request(self, table_id: str, request: TakeBackRequest | None) -> None:
        """Store the take-back waiting for consent (``None``: none waits)."""
        with self._tx(table_id) as conn:
            if request is None:
                conn.execute("DELETE FROM takeback_requests WHERE table_id = %s",
                             (table_id,))
            else:
                conn.execute("INSERT INTO takeback_requests VALUES (%s, %s, %s, %s, %s, %s, "
                             "%s) ON CONFLICT (table_id) DO UPDATE SET story = "
                             "excluded.story, seat = excluded.seat, from_seq = "
                             "excluded.from_seq, to_seq = excluded.to_seq, agreed = "
                             "excluded.agreed, waiting = excluded.waiting",
                             request_row(table_id, request))

    def request(self, table_id: str) -> TakeBackRequest | None:
        """The take-back waiting for consent as stored (``None``: none)."""
        with self._reading() as conn:
            return self._request(conn, table_id)

    @staticmethod
    def _request(conn: Any, table_id: str) -> TakeBackRequest | None:
        return request_of(conn.execute(
            f"SELECT {REQUEST_COLUMNS} FROM takeback_requests WHERE table_id = %s",
            (table_id,)).fetchone())

    def add_hint_ask(self, table_id: str, story: int, seq: int, seat: int) -> None:
        """Store that ``seat`` asked a hint at the decision at ``seq`` (after ``story``
        take-backs); the hints asked at earlier decisions are dropped."""
        with self._tx(table_id) as conn:
            conn.execute("DELETE FROM hint_asks WHERE table_id = %s AND (story != %s OR "
                         "seq != %s)", (table_id, story, seq))
            conn.execute("INSERT INTO hint_asks VALUES (%s, %s, %s, %s) ON CONFLICT DO "
                         "NOTHING", (table_id, story, seq, seat))

    def hint_asks(self, table_id: str) -> frozenset[tuple[int, int, int]]:
        """The hints asked at the table's decision at hand: (story, seq, seat)."""
        with self._reading() as conn:
            return self._hint_asks(conn, table_id)

    @staticmethod
    def _hint_asks(conn: Any, table_id: str) -> frozenset[tuple[int, int, int]]:
        return frozenset(tuple(row) for row in conn.execute(
            "SELECT story, seq, seat FROM hint_asks WHERE table_id = %s", (table_id,)))

    def set_clock(self, table_id: str, seq: int, deadline: float | None) -> None:
        """Store the deadline of the decision at ``seq`` (``None``: no clock runs)."""
        with self._tx(table_id) as conn:
            if deadline is None:
                conn.execute("DELETE FROM clocks WHERE table_id = %s", (table_id,))
            else:
                conn.execute("INSERT INTO clocks VALUES (%s, %s, %s) ON CONFLICT (table_id) "
                             "DO UPDATE SET seq = excluded.seq, deadline = excluded.deadline",
                             (table_id, seq, deadline))

    def clocks(self) -> dict[str, tuple[int, float]]:
        """By table, the seq of the decision whose clock runs and its deadline."""
        with self._reading() as conn:
            return {row[0]: (row[1], row[2]) for row in conn.execute(
                "SELECT table_id, seq, deadline FROM clocks")}

    def set_away(self, table_id: str, seat: int, why: str | None) -> None:
        """Store that ``seat`` is away (``why``), or back (``None``)."""
        with self._tx(table_id) as conn:
            if why is None:
                conn.execute("DELETE FROM away WHERE table_id = %s AND seat = %s",
                             (table_id, seat))
            else:
                conn.execute("INSERT INTO away VALUES (%s, %s, %s) ON CONFLICT (table_id, "
                             "seat) DO UPDATE SET why = excluded.why", (table_id, seat, why))

    def away(self) -> dict[str, dict[int, str]]:
        """By table, the seats away and why."""
        with self._reading() as conn:
            return by_table(conn.execute("SELECT table_id, seat, why FROM away"))

    def set_seen(self, seen: Mapping[tuple[str, int], float]) -> None:
        """Store when each (table, seat)'s page was last seen here, in one statement
        keeping the latest any process stored (tables deleted meanwhile left out). The
        times are stored on the database's clock (``at`` is sent as an age), so the
        hosts' clocks need not agree."""
        if not seen:
            return
        now = time.time()
        keys = list(seen)
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO seen SELECT r.t, r.s, " + _DB_NOW + " - r.age FROM "
                "unnest(%s::text[], %s::integer[], %s::float8[]) AS r(t, s, age) "
                "WHERE EXISTS (SELECT 1 FROM tables WHERE id = r.t) ON CONFLICT "
                "(table_id, seat) DO UPDATE SET at = GREATEST(seen.at, excluded.at)",
                ([k[0] for k in keys], [k[1] for k in keys],
                 [max(0.0, now - seen[k]) for k in keys]))

    def seen(self, table_id: str) -> dict[int, float]:
        """When each seat's page of the table was last seen by any process (in this
        host's ``time.time()``); inside :meth:`hold`, as of the table's lock."""
        with self._reading() as conn:
            rows = conn.execute("SELECT seat, at - " + _DB_NOW + " FROM seen "
                                "WHERE table_id = %s", (table_id,)).fetchall()
        now = time.time()
        return {seat: now + ago for seat, ago in rows}

    def stale_seen(self, table_ids: Sequence[str], older: float) -> dict[str, dict[int, float]]:
        """By table (of ``table_ids``), the seats not away whose page was last seen by
        any process more than ``older`` seconds ago (the database's clock; given in
        this host's ``time.time()``). A live process stores ``now`` for the pages it
        holds at every keeper round, so these are the pages no live process holds:
        closed, or held by a process that died (``kill -9``) and stored no more."""
        if not table_ids:
            return {}
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT s.table_id, s.seat, s.at - " + _DB_NOW + " FROM seen s "
                "WHERE s.table_id = ANY(%s) AND s.at < " + _DB_NOW + " - %s "
                "AND NOT EXISTS (SELECT 1 FROM away a WHERE a.table_id = s.table_id "
                "AND a.seat = s.seat)", (list(table_ids), older)).fetchall()
        now = time.time()
        out: dict[str, dict[int, float]] = {}
        for table_id, seat, ago in rows:
            out.setdefault(table_id, {})[seat] = now + ago
        return out

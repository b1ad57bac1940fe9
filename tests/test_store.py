"""The tables' database in process: a failed write leaves a table as it was and the next
one works, a damaged file is one StoreError, creation is one transaction, the server's
lock, stored logs verified on resume, and the migration of a database of an earlier
version (the real server on these faults: test_serve.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tokaido_rules import store as store_module
from tokaido_rules import verify_log
from tokaido_rules.store import (
    MIGRATIONS,
    SCHEMA,
    Decision,
    SeatRecord,
    StoreBusyError,
    StoreError,
    TableRecord,
    TableRules,
    TableStore,
)
from tokaido_rules.tables import Lobby, Table, TableError
from tokaido_rules.web import create_app
from tokaido_rules.wire import encode_action

FIXTURES = Path(__file__).parent / "fixtures"

V1_TABLE = "y1O2-mRkYiKe"
"""A table of two people in ``tables-v1.sqlite3``, written by the version of schema 1 at
seq 22, and its seats' tokens (made for this fixture only)."""
V1_TOKENS = {0: "g9w0i6H9hDVz45VSI233Pl7E--qHvuPZIy_hsUyR9x0",
             1: "DG8fCqJq7RPefE1X-huOWrp4NeMsAyJ0KpI0gdJQS-s"}
V1_BOTS_TABLE = "S0rVtWOWkJOi"
"""A table of one person and two bots in the same fixture, at seq 11."""


class FailingStore(TableStore):
    """A store whose writes fail while ``failing`` is set, as on a full disk or a
    database held by another process: the write is refused, nothing is stored."""

    failing = False

    def append(self, table_id: str, first: int, lines: Sequence[str],
               decision: Decision | None = None, seat: SeatRecord | None = None) -> None:
        if self.failing:
            raise StoreError(f"{self.path}: database or disk is full")
        super().append(table_id, first, lines, decision, seat)

    def create(self, record: TableRecord, lines: Sequence[str] = (),
               rules: TableRules | None = None,
               rematch_of: str | None = None) -> None:
        if self.failing:
            raise StoreError(f"{self.path}: database or disk is full")
        super().create(record, lines, rules, rematch_of)


def _snapshot(table: Table) -> tuple[Any, ...]:
    """Everything a table tells anyone, and what it has stored."""
    assert table._store is not None
    docs = tuple(table.document(seat, 0) for seat in (None, *range(len(table.seats))))
    return (table.game.state, table.game.events, table.seats, table.decisions(), docs,
            table._store.lines(table.id), table._store.decisions(table.id))


def _move(table: Table, seat: int) -> dict[str, Any]:
    return {"action": encode_action(table.game.legal_actions()[0]),
            "expected_seq": table.game.state.seq}


def test_a_failed_write_leaves_the_table_as_it_was_and_the_next_works(tmp_path: Path) -> None:
    """A write the database refuses (this store's writes fail as on a full disk; the
    full disk itself: test_serve.py, on a tmpfs where the test may mount one) is a 503
    with a one-line reason; the table's game, seq, audiences, decisions and stored
    lines are those before the action, and once the fault is gone the same action is
    played and the stored log verifies."""
    store = FailingStore(tmp_path / "t.db")
    lobby = Lobby(store)
    table, _ = lobby.create(2, ["base"], seed=5)
    table.join(0)
    table.join(1)
    for _ in range(3):
        table.act(table.game.current_player or 0, _move(table, 0))
    seat = table.game.current_player
    assert seat is not None
    before = _snapshot(table)
    move = _move(table, seat)
    store.failing = True
    for _ in range(2):
        with pytest.raises(TableError) as refused:
            table.act(seat, move)
        assert refused.value.status == 503 and "\n" not in str(refused.value)
        assert "disk is full" in str(refused.value)
        assert _snapshot(table) == before
    with pytest.raises(TableError) as joined:  # a seat's change is refused the same way
        table.hand_to_bot(seat, "random")
    assert joined.value.status == 503 and _snapshot(table) == before
    store.failing = False
    table.act(seat, move)
    assert table.game.state.seq > before[0].seq
    text = "".join(line + "\n" for line in [table.record.header, *store.lines(table.id)])
    assert verify_log(text, allow_unfinished=True).ok
    store.close()
    again = Lobby(TableStore(tmp_path / "t.db"))
    assert again.get(table.id).game.state == table.game.state


def test_a_failed_write_is_a_retryable_503_over_http(tmp_path: Path) -> None:
    """Over HTTP the refused action is 503 with ``{"error": one line}``, the seat's
    document is unchanged, and the action sent again after the fault is played."""
    store = FailingStore(tmp_path / "t.db")
    lobby = Lobby(store)
    http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
    made = http.post("/api/tables", json={"players": 2}).json()
    table = made["table"]
    tokens = {s: http.post(f"/api/tables/{table}/join", json={"seat": s}).json()["token"]
              for s in (0, 1)}
    seat = lobby.get(table).game.current_player
    assert seat is not None
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    doc = http.get(f"/api/tables/{table}", headers=auth).json()
    body = {"action": doc["actions"][0]["action"], "expected_seq": doc["seq"]}
    store.failing = True
    answer = http.post(f"/api/tables/{table}/action", headers=auth, json=body)
    assert answer.status_code == 503
    assert set(answer.json()) == {"error"} and "\n" not in answer.json()["error"]
    assert http.get(f"/api/tables/{table}", headers=auth).json() == doc
    refused = http.post("/api/tables", json={"players": 2})
    assert refused.status_code == 503 and len(lobby.tables()) == 1
    store.failing = False
    answer = http.post(f"/api/tables/{table}/action", headers=auth, json=body)
    assert answer.status_code == 200 and answer.json()["seq"] > doc["seq"]


def test_bots_refused_by_the_database_play_once_it_takes_them(tmp_path: Path) -> None:
    """A person's move is stored and answered; when the bots' moves after it cannot be
    stored, the table waits at the person's move (nothing half-told) and the bots play
    at the next request once the database takes writes again."""
    store = FailingStore(tmp_path / "t.db")
    lobby = Lobby(store)
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=3)
    table.join(0)
    while table.game.current_player != 0:  # the bot's seat first, if it starts
        table.start()
    original = store.append
    calls: list[int] = []

    def second_fails(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) > 1:
            raise StoreError(f"{store.path}: database is locked")
        original(*args, **kwargs)

    store.append = second_fails  # type: ignore[method-assign]
    seq = table.game.state.seq
    table.act(0, _move(table, 0))
    stored_seq = table.game.state.seq
    assert stored_seq > seq and table.stalled is not None
    text = "".join(line + "\n" for line in [table.record.header, *store.lines(table.id)])
    assert verify_log(text, allow_unfinished=True).ok
    store.append = original  # type: ignore[method-assign]
    table.document(0)
    assert table.stalled is None
    assert table.game.current_player == 0 or table.game.is_over
    assert table.game.state.seq > stored_seq


def test_creation_is_one_transaction(tmp_path: Path) -> None:
    """A table is stored with its setup in one write: a server whose second write would
    never happen (killed after the first) has stored the whole table, which verifies,
    or nothing."""

    class KilledAfterOneWrite(TableStore):
        def append(self, *args: Any, **kwargs: Any) -> None:
            raise StoreError("killed before a second write")

    store = KilledAfterOneWrite(tmp_path / "t.db")
    table, _ = Lobby(store).create(3, ["base"], seed=2)
    records = store.tables()
    assert [r.id for r in records] == [table.id]
    stored = "".join(line + "\n" for line in [records[0].header, *store.lines(table.id)])
    assert verify_log(stored, allow_unfinished=True).ok
    failing = FailingStore(tmp_path / "u.db")
    failing.failing = True
    with pytest.raises(TableError) as refused:
        Lobby(failing).create(3, ["base"], seed=2)
    assert refused.value.status == 503 and failing.tables() == []


def test_a_table_whose_setup_was_never_stored_is_refused_with_its_reason(
        tmp_path: Path) -> None:
    """A table stored by the earlier two-transaction creation, killed between the two
    (its header, no setup), is refused on resume, listed with the reason, reported once,
    and the other tables are served."""
    path = tmp_path / "t.db"
    store = TableStore(path)
    good, _ = Lobby(store).create(2, ["base"], seed=4)
    made, _ = Lobby().create(3, ["base"], seed=9)
    cut = TableRecord("cut-creation", made.record.created + 1, 3, ("base",), (),
                      made.record.host_hash, made.record.header, made.record.seats)
    store.create(cut)  # the header and seats only, as the first transaction left it
    store.close()
    told: list[tuple[str, str]] = []
    lobby = Lobby(TableStore(path), on_refused=lambda i, why: told.append((i, why)))
    assert [t.id for t in lobby.tables()] == [good.id]
    assert list(lobby.refused) == ["cut-creation"] and lobby._broken == lobby.refused
    assert len(told) == 1 and told[0][0] == "cut-creation" and "seq 0" in told[0][1]
    with pytest.raises(TableError) as refused:
        lobby.get("cut-creation")
    assert refused.value.status == 409 and "does not verify" in str(refused.value)


def _reverse_queue(path: Path, table_id: str) -> int:
    """Reverse the start queue in a table's stored ``core.queue_set`` line (it still
    folds: another deal); the seq of the line."""
    with sqlite3.connect(path) as db:
        n, line = db.execute("SELECT n, line FROM lines WHERE table_id = ? AND line LIKE "
                             "'%\"type\":\"core.queue_set\"%'", (table_id,)).fetchone()
        event = json.loads(line)
        event["data"]["order"].reverse()
        db.execute("UPDATE lines SET line = ? WHERE table_id = ? AND n = ?",
                   (json.dumps(event, separators=(",", ":")), table_id, n))
    return int(n)


def test_a_stored_line_edited_in_the_database_is_refused_on_resume(tmp_path: Path) -> None:
    """A start queue changed in a stored line still folds into a game, but the game does
    not verify: the table is refused with the seq and the reason, in the foreground and
    in the background (where the others are served, and asking for it says why)."""
    path = tmp_path / "t.db"
    store = TableStore(path)
    lobby = Lobby(store)
    edited, _ = lobby.create(3, ["base"], bots={"1": "random", "2": "greedy"}, seed=8)
    edited.join(0)
    kept, _ = lobby.create(2, ["base"], seed=1)
    store.close()
    n = _reverse_queue(path, edited.id)
    told: list[str] = []
    for background in (False, True):
        told.clear()
        again = Lobby(TableStore(path), background=background,
                      on_refused=lambda i, why: told.append(i))
        assert again.get(kept.id).game.state == kept.game.state
        assert again.wait_resumed(timeout=60)
        assert [t.id for t in again.tables()] == [kept.id]
        assert told == [edited.id] and f"seq {n}" in again.refused[edited.id]
        with pytest.raises(TableError, match="does not verify"):
            again.get(edited.id)
        assert again.store is not None
        again.store.close()


def test_a_damaged_page_is_one_store_error(tmp_path: Path) -> None:
    """Bytes overwritten in the file's pages are a StoreError naming the file, raised by
    the store (not sqlite3's own error)."""
    path = tmp_path / "t.db"
    store = TableStore(path)
    lobby = Lobby(store)
    for seed in range(3):
        lobby.create(2, ["base"], seed=seed)
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 2 * page
    data[page:] = b"\xa5" * (len(data) - page)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"t\.db: .*malformed") as raised:
        Lobby(TableStore(path))
    assert type(raised.value) is StoreError and "\n" not in str(raised.value)


def test_one_server_lock_per_database(tmp_path: Path) -> None:
    """An exclusive store (a server's) refuses a second on the same file with one line;
    a plain store reads alongside it; once the first is closed the lock is free."""
    path = tmp_path / "t.db"
    first = TableStore(path, exclusive=True)
    Lobby(first).create(2, ["base"], seed=1)
    with pytest.raises(StoreBusyError, match=r"in use by another server") as busy:
        TableStore(path, exclusive=True)
    assert "\n" not in str(busy.value)
    reader = TableStore(path)
    assert len(reader.tables()) == 1
    reader.close()
    first.close()
    again = TableStore(path, exclusive=True)
    assert len(again.tables()) == 1
    again.close()
    TableStore(":memory:", exclusive=True).close()  # nothing to lock


def test_the_fixture_of_schema_1_opens_migrates_resumes_and_plays_on(tmp_path: Path) -> None:
    """The database written by the version of layout 1 opens, is brought to the current
    layout, its tables resume at their seq with their seats, tokens and bots, verify,
    and play on."""
    path = tmp_path / "tables.db"
    shutil.copy(FIXTURES / "tables-v1.sqlite3", path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    lobby = Lobby(TableStore(path))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
    assert lobby.refused == {}
    people, bots = lobby.get(V1_TABLE), lobby.get(V1_BOTS_TABLE)
    assert people.game.state.seq == 22 and bots.game.state.seq == 11
    assert [s.kind for s in bots.seats] == ["human", "bot", "bot"]
    seat = people.game.current_player
    assert seat is not None and people.seat_for(V1_TOKENS[seat]) == seat
    people.act(seat, _move(people, seat))
    assert people.game.state.seq > 22
    assert lobby.store is not None
    stored = "".join(line + "\n" for line in [people.record.header,
                                                *lobby.store.lines(V1_TABLE)])
    assert verify_log(stored, allow_unfinished=True).ok
    # stored before tables had names (layout 4): named on resume, for good
    names = {people.name, bots.name}
    assert len(names) == 2 and all(n.count("-") == 2 for n in names)
    lobby.store.close()
    again = Lobby(TableStore(path))
    assert {again.get(V1_TABLE).name, again.get(V1_BOTS_TABLE).name} == names
    assert again.get(people.name).id == V1_TABLE


def test_a_database_of_layout_3_gains_the_names_of_layout_4(tmp_path: Path) -> None:
    """Layout 3 (take-backs, clocks, seats away) and layout 4 (names) came with the same
    issue, one after the other: a database of layout 3, made as that version made it
    (no ``names`` table), is brought to layout 4; its tables keep their rules, their
    take-backs and their clock's deadline, and get their names."""
    assert SCHEMA == len(MIGRATIONS) == 6
    path = tmp_path / "tables.db"
    lobby = Lobby(TableStore(path))
    table, _ = lobby.create(2, ["base"], seed=3, takeback="all", clock=60,
                            stand_in="random")
    token = table.join(0)
    table.join(1)
    deadline = table.deadline
    assert lobby.store is not None and deadline is not None
    lobby.store.close()
    with sqlite3.connect(path) as db:  # as the version of layout 3 left it
        db.execute("DROP TABLE names")
        db.execute("ALTER TABLE table_rules DROP COLUMN hints")  # layout 5's
        db.execute("ALTER TABLE decisions DROP COLUMN hinted")
        db.execute("DROP TABLE takeback_requests")  # layout 6's
        db.execute("DROP TABLE hint_asks")
        db.execute("PRAGMA user_version = 3")
    again = Lobby(TableStore(path))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
    resumed = again.get(table.id)
    assert resumed.rules == TableRules("all", 60.0, "random", None)
    assert resumed.deadline == deadline and resumed.seat_for(token) == 0
    assert resumed.name != table.id and again.get(resumed.name) is resumed


def test_a_migration_step_runs_once_in_one_transaction(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A step appended to MIGRATIONS is run on an older database once (the version is
    raised with it); a step that fails leaves the database at its version, a
    StoreError; a database of a newer layout is refused."""
    path = tmp_path / "tables.db"
    shutil.copy(FIXTURES / "tables-v1.sqlite3", path)
    bad = (*MIGRATIONS, ("ALTER TABLE tables ADD COLUMN note TEXT",
                         "ALTER TABLE no_such_table ADD COLUMN x TEXT"))
    monkeypatch.setattr(store_module, "MIGRATIONS", bad)
    monkeypatch.setattr(store_module, "SCHEMA", len(bad))
    with pytest.raises(StoreError, match="no_such_table"):
        TableStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        assert "note" not in [row[1] for row in db.execute("PRAGMA table_info(tables)")]
    good = (*MIGRATIONS, ("ALTER TABLE tables ADD COLUMN note TEXT",))
    monkeypatch.setattr(store_module, "MIGRATIONS", good)
    monkeypatch.setattr(store_module, "SCHEMA", len(good))
    TableStore(path).close()
    TableStore(path).close()  # once: the column is not added again
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(good)
        assert "note" in [row[1] for row in db.execute("PRAGMA table_info(tables)")]
    assert Lobby(TableStore(path)).get(V1_TABLE).game.state.seq == 22
    monkeypatch.setattr(store_module, "SCHEMA", len(MIGRATIONS))
    with pytest.raises(StoreError, match="newer tokaido-rules"):
        TableStore(path)

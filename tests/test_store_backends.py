"""The table service on both stores, SQLite and PostgreSQL: the same tests (a table
stored as it goes, resumed where it stood, its take-backs, clocks and seats away kept,
the operator's overview and deletion), and on PostgreSQL, two lobbies on one database
as two server processes are: a seat is given once, a seq applied once, each hears the
other's moves, and a database that goes away is a retryable 503 that loses nothing
acknowledged, the service coming back by itself."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from tokaido_rules import verify_log
from tokaido_rules.store import Store, StoreError, TableStore
from tokaido_rules.store_pg import PgTableStore, display_url, open_store
from tokaido_rules.tables import Lobby, Table, TableError
from tokaido_rules.web import create_app
from tokaido_rules.wire import encode_action


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """Where a store is: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "t.db")
    return str(request.getfixturevalue("pg_url"))


def _move(table: Table) -> dict[str, Any]:
    with table._lock:
        return {"action": encode_action(table.game.legal_actions()[0]),
                "expected_seq": table.game.state.seq}


def _seat(table: Table) -> int:
    with table._lock:
        seat = table.game.current_player
    assert seat is not None
    return seat


def test_a_table_is_stored_as_it_goes_and_resumed_where_it_stood(where: str) -> None:
    """Moves, bots, a seat handed to a bot, a take-back, a clock, a seat away and a
    new stand-in: a new lobby on the same database serves the table at the same seq,
    with the same seats, decisions, take-backs, clock and seats away, and its stored
    log verifies."""
    store = open_store(where)
    lobby = Lobby(store)
    table, host = lobby.create(3, ["base"], bots={"2": "random"}, seed=7, clock=600,
                               away_after=None)
    table.join(0)
    table.join(1)
    for _ in range(4):
        table.act(_seat(table), _move(table))
    seat = _seat(table)
    asked = table.ask_take_back(seat) if table.take_back_check(seat).allowed else None
    table.leave(1 - seat if seat in (0, 1) else 0)
    table.set_stand_in("random")
    stored = store.load(table.id)
    assert stored is not None and stored.record.seats == table.seats
    again = Lobby(open_store(where)).get(table.id)
    assert again.game.state == table.game.state
    assert again.seats == table.seats and again.decisions() == table.decisions()
    assert again.takebacks == table.takebacks and len(again.takebacks) == (asked is not None)
    assert again.away == table.away and again.rules == table.rules
    assert again.deadline == table.deadline
    text = "".join(line + "\n" for line in [table.record.header, *store.lines(table.id)])
    assert verify_log(text, allow_unfinished=True).ok
    assert host


def test_the_operators_overview_and_deletion(where: str) -> None:
    """``tokaido tables``' view: each table's seats, seq and state; deleting removes
    all of the named tables or, one being unknown, none."""
    store = open_store(where)
    lobby = Lobby(store)
    first, _ = lobby.create(2, ["base"], bots={"1": "greedy"}, seed=3)
    first.join(0)
    second, _ = lobby.create(2, ["base"], seed=4)
    rows = {row["table"]: row for row in store.overview()}
    assert rows[first.id]["seats"] == ["human", "bot"]
    assert rows[first.id]["seq"] == first.game.state.seq and not rows[first.id]["over"]
    assert rows[second.id]["seats"] == ["open", "open"]
    with pytest.raises(StoreError, match="no table nope"):
        store.delete([first.id, "nope"])
    assert set(store.table_ids()) == {first.id, second.id}
    assert store.delete([first.id]) == [first.id]
    assert store.table_ids() == [second.id]
    assert store.load(first.id) is None


def test_the_pages_seen_are_stored_for_the_other_processes_on_postgresql(
        where: str) -> None:
    """PostgreSQL keeps, per seat, the latest time any process saw its page (an
    older sighting told later does not go back; a table unknown or deleted keeps
    none); SQLite stores none: its one process sees every page."""
    store = open_store(where)
    table, _ = Lobby(store).create(2, ["base"], seed=5, away_after=60)
    now = time.time()
    store.set_seen({(table.id, 0): now - 30, (table.id, 1): now - 5, ("nope", 0): now})
    store.set_seen({(table.id, 0): now - 50})  # another process saw it earlier
    seen = store.seen(table.id)
    if not store.shared:
        assert seen == {}
        return
    assert set(seen) == {0, 1}
    # the same times, give or take the round trips to the database
    assert abs(seen[0] - (now - 30)) < 2 and abs(seen[1] - (now - 5)) < 2
    assert store.seen("nope") == {}
    store.delete([table.id])
    assert store.seen(table.id) == {}


def test_the_sightings_no_process_refreshes_are_read_as_stale(where: str) -> None:
    """On PostgreSQL, the seats whose page no process has seen for longer than asked
    are read (a page closed, or held by a process that died): only at the tables
    named, and not once the seat is away. SQLite has none to read: its one process
    sees every page."""
    store = open_store(where)
    lobby = Lobby(store)
    table, _ = lobby.create(2, ["base"], seed=5, away_after=60)
    other, _ = lobby.create(2, ["base"], seed=6, away_after=60)
    now = time.time()
    store.set_seen({(table.id, 0): now - 30, (table.id, 1): now - 5,
                    (other.id, 0): now - 30})
    stale = store.stale_seen([table.id], 10)
    if not store.shared:
        assert stale == {}
        return
    assert list(stale) == [table.id] and list(stale[table.id]) == [0]
    assert abs(stale[table.id][0] - (now - 30)) < 2  # give or take the round trips
    assert set(store.stale_seen([table.id, other.id], 10)) == {table.id, other.id}
    assert store.stale_seen([], 10) == {}
    store.set_away(table.id, 0, "absent")
    assert store.stale_seen([table.id], 10) == {}


def test_an_sqlite_file_is_the_embedded_store() -> None:
    """A path (or ``:memory:``) opens the SQLite store, which no other process
    writes."""
    store = open_store(":memory:")
    assert isinstance(store, TableStore) and not store.shared


# --- several processes on one PostgreSQL database --------------------------------------


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[Lobby, Lobby]]:
    """Two lobbies on one database, each with its own store, as two processes."""
    a, b = PgTableStore(pg_url), PgTableStore(pg_url)
    try:
        yield Lobby(a), Lobby(b)
    finally:
        a.close()
        b.close()


def _eventually(check: Any, seconds: float = 10) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "not within the time"
        time.sleep(0.02)


def test_a_keepers_upserts_do_not_wait_on_a_table_another_process_changes(
        pg_url: str) -> None:
    """While process A holds a table's lock for a change, process B's keeper stores
    the table's activity and its seats' sightings at once (its lock timeout of one
    second would fail them otherwise), and B's own change of the table still waits."""
    a, b = PgTableStore(pg_url), PgTableStore(pg_url, timeout=1)
    try:
        table, _ = Lobby(a).create(2, ["base"], seed=6, away_after=60)
        now = time.time()
        with a.hold(table.id):
            b.set_activity({table.id: now})
            b.set_seen({(table.id, 0): now})
            with pytest.raises(StoreError):
                b.set_away(table.id, 0, "left")
        assert set(b.seen(table.id)) == {0} and b.away().get(table.id) is None
    finally:
        a.close()
        b.close()


def test_the_url_password_is_never_shown(pg_url: str) -> None:
    """The store names its database without the password; a refused connection's
    error does not show it either."""
    assert display_url("postgresql://ann:s3cret@db.example:5433/tables") == \
        "postgresql://ann@db.example:5433/tables"
    with pytest.raises(StoreError) as refused:
        PgTableStore("postgresql://ann:s3cret@127.0.0.1:1/tables", timeout=2)
    assert "s3cret" not in str(refused.value) and "\n" not in str(refused.value)
    assert "s3cret" not in PgTableStore(pg_url).path


def test_a_table_made_by_one_process_is_served_by_the_other(
        two: tuple[Lobby, Lobby]) -> None:
    a, b = two
    table, _ = a.create(3, ["base"], bots={"2": "greedy"}, seed=11)
    _eventually(lambda: table.id in {t.id for t in b.tables()})
    assert b.get(table.id).name == table.name


def test_a_seat_is_given_once_and_a_seq_applied_once(two: tuple[Lobby, Lobby]) -> None:
    """Both processes are asked for the same open seat at once: one gets it, the other
    is refused (409); both are sent the same move at once: it is applied once, the
    other answer being 409 (stale), and the stored decisions have each seq once."""
    a, b = two
    table, _ = a.create(2, ["base"], seed=12)
    _eventually(lambda: table.id in {t.id for t in b.tables()})
    there = b.get(table.id)
    results: list[Any] = []

    def join(t: Table) -> None:
        try:
            results.append(t.join(0))
        except TableError as exc:
            results.append(exc.status)

    threads = [threading.Thread(target=join, args=(t,)) for t in (table, there)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    # one token (a string) and one refusal, in either order
    assert len(results) == 2 and sum(r == 409 for r in results) == 1, results
    assert sum(isinstance(r, str) for r in results) == 1, results
    there.join(1)

    def kinds() -> list[str]:
        with table._lock:  # caught up with the other process's change (once heard)
            return [s.kind for s in table.seats]

    _eventually(lambda: kinds() == ["human", "human"])

    def level() -> bool:  # each process has heard of the other's last move
        with table._lock, there._lock:
            return table.game.state.seq == there.game.state.seq

    for _ in range(6):
        _eventually(level)  # else both answers are rightly 409: a stale expected_seq
        seat = _seat(table)
        move = _move(table)
        outcomes: list[int] = []

        def act(t: Table, seat: int = seat, move: dict[str, Any] = move,
                outcomes: list[int] = outcomes) -> None:
            try:
                t.act(seat, move)
                outcomes.append(200)
            except TableError as exc:
                outcomes.append(exc.status)

        threads = [threading.Thread(target=act, args=(t,)) for t in (table, there)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(outcomes) == [200, 409]
    stored = a.store.decisions(table.id)  # type: ignore[union-attr]
    assert len(stored) == 6 and len({d.seq for d in stored}) == 6
    with table._lock, there._lock:
        assert table.game.state == there.game.state


def test_a_move_at_one_process_wakes_the_clients_of_the_other(
        two: tuple[Lobby, Lobby]) -> None:
    """A client waiting at process B (a long poll) is answered when a seat moves at
    process A."""
    a, b = two
    http_a = TestClient(create_app(a, animate_ms=0), base_url="http://127.0.0.1")
    http_b = TestClient(create_app(b, animate_ms=0), base_url="http://127.0.0.1")
    made = http_a.post("/api/tables", json={"players": 2}).json()
    table = made["table"]
    _eventually(lambda: table in {t.id for t in b.tables()})
    tokens = {s: http_a.post(f"/api/tables/{table}/join", json={"seat": s}).json()["token"]
              for s in (0, 1)}
    doc = http_a.get(f"/api/tables/{table}",
                     headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    seat, seq = doc["current_player"], doc["seq"]
    got: dict[str, Any] = {}

    def wait() -> None:
        got.update(http_b.get(f"/api/tables/{table}?since={seq}&wait=20", headers={
            "Authorization": f"Bearer {tokens[1 - seat]}"}).json())

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    mine = http_a.get(f"/api/tables/{table}",
                      headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
    answer = http_a.post(f"/api/tables/{table}/action",
                         json={"action": mine["actions"][0]["action"], "expected_seq": seq},
                         headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert answer.status_code == 200
    started = time.monotonic()
    waiter.join(15)
    assert not waiter.is_alive() and time.monotonic() - started < 10
    assert got.get("seq", -1) > seq, got


def test_a_clock_run_out_is_played_once_by_one_of_the_processes(
        two: tuple[Lobby, Lobby]) -> None:
    """A person's clock runs out while both processes' keepers look: the stand-in
    plays that decision once (one ``(clock)`` decision at that seq)."""
    a, b = two
    table, _ = a.create(2, ["base"], seed=13, clock=1)
    table.join(0)
    table.join(1)
    _eventually(lambda: table.id in {t.id for t in b.tables()})
    seq = table.game.state.seq
    time.sleep(1.3)  # the clock has run out (the next one, wound then, has not)
    threads = [threading.Thread(target=lobby.keep_clocks) for lobby in (a, b, a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    stored = a.store.decisions(table.id)  # type: ignore[union-attr]
    clocked = [d for d in stored if d.played_by.endswith("(clock)")]
    assert len(clocked) == 1 and clocked[0].seq == seq


def _connections(url: str, allow: bool) -> None:
    """Let the database take connections, or not, and end those it has (as a database
    that restarts or cannot be reached)."""
    import psycopg

    name = url.split("?")[0].rsplit("/", 1)[1]
    admin = url.replace(f"/{name}?", "/postgres?")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS {str(allow).lower()}")
        if not allow:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                         "datname = %s AND pid <> pg_backend_pid()", (name,))


def test_a_database_away_is_a_retryable_503_and_service_resumes(pg_url: str) -> None:
    """While the database cannot be reached a move is answered 503 with Retry-After
    and changes nothing; once it is back the same move is played, with no request to
    restart anything, and every move acknowledged before is stored."""
    store: Store = PgTableStore(pg_url, timeout=2)
    lobby = Lobby(store)
    http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
    table = http.post("/api/tables", json={"players": 2}).json()["table"]
    tokens = {s: http.post(f"/api/tables/{table}/join", json={"seat": s}).json()["token"]
              for s in (0, 1)}

    def play() -> Any:
        seat = _seat(lobby.get(table))
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        doc = http.get(f"/api/tables/{table}", headers=auth).json()
        return http.post(f"/api/tables/{table}/action", headers=auth, json={
            "action": doc["actions"][0]["action"], "expected_seq": doc["seq"]})

    for _ in range(3):
        assert play().status_code == 200
    acknowledged = lobby.get(table).game.state.seq
    _connections(pg_url, False)
    try:
        refused = play()
        assert refused.status_code == 503 and refused.headers["Retry-After"]
        assert "\n" not in refused.json()["error"]
    finally:
        _connections(pg_url, True)
    assert play().status_code == 200
    again = Lobby(PgTableStore(pg_url)).get(table)
    assert again.game.state.seq > acknowledged
    assert again.game.state == lobby.get(table).game.state


def test_a_seat_served_at_another_process_is_not_marked_away(
        two: tuple[Lobby, Lobby]) -> None:
    """Process A served each seat's page once, process B serves them from then on: A
    does not mark them away after ``away_after``. Once the pages are closed
    everywhere, each seat is marked away, once, by one of the two."""
    a, b = two
    table, _ = a.create(2, ["base"], seed=14, away_after=1, stand_in="random")
    table.join(0)
    table.join(1)
    _eventually(lambda: table.id in {t.id for t in b.tables()})
    there = b.get(table.id)
    for seat in (0, 1):
        table.page(seat, 1)
        table.page(seat, -1)
        there.page(seat, 1)
    marked: list[tuple[str, int, str | None]] = []
    for lobby in (a, b):
        store = lobby.store
        assert store is not None

        def set_away(table_id: str, seat: int, why: str | None,
                     inner: Any = store.set_away) -> None:
            inner(table_id, seat, why)
            marked.append((table_id, seat, why))

        store.set_away = set_away  # type: ignore[method-assign]

    def rounds(until: float) -> None:  # both keepers, every 0.2 s, side by side
        while time.monotonic() < until:
            threads = [threading.Thread(target=lobby.keep_clocks, kwargs={"every": 0.2})
                       for lobby in (a, b)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            time.sleep(0.2)

    rounds(time.monotonic() + 3)  # three times away_after
    assert marked == []
    assert a.store.away().get(table.id, {}) == {}  # type: ignore[union-attr]
    for seat in (0, 1):
        there.page(seat, -1)
    end = time.monotonic() + 15
    while a.store.away().get(table.id, {}) != {0: "absent", 1: "absent"}:  # type: ignore[union-attr]
        assert time.monotonic() < end, "the seats were not marked away"
        rounds(time.monotonic() + 0.5)
    rounds(time.monotonic() + 1)
    assert sorted(marked) == [(table.id, 0, "absent"), (table.id, 1, "absent")]

"""Several ``tokaido serve`` processes on one PostgreSQL database, as an operator runs
them behind a reverse proxy: clients on each process play one table; every move
acknowledged is stored once, no seat is given twice, every process's clients hear of
the moves made at the others, and a process killed with ``kill -9`` leaves its tables to
the others (a clock run out played once, a move it never acknowledged played again
elsewhere). Every process has a watchdog: none can hang the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from processes import READY, call, finished, free_port, started, two_people, watched
from tokaido_rules.store_pg import PgTableStore


class Servers:
    """``n`` server processes on one database; ``urls[i]`` is process ``i``'s."""

    def __init__(self, db: str, n: int, env: dict[str, str] | None = None) -> None:
        self.procs: list[subprocess.Popen[str]] = []
        self.urls: list[str] = []
        for _ in range(n):
            port = free_port()
            proc = watched(subprocess.Popen(
                [sys.executable, "-m", "tokaido_rules", "serve", "--db", db,
                 "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, env={**os.environ, **(env or {})}), 180)
            self.procs.append(proc)
            self.urls.append(f"http://127.0.0.1:{port}")
        for proc, url in zip(self.procs, self.urls, strict=True):
            line = started(proc)[-1]
            assert line.startswith(READY), f"a server did not start: {line!r}"
            assert "@" not in line or "postgres@" in line  # no password shown
            self._ready(url)

    @staticmethod
    def _ready(url: str) -> None:
        end = time.monotonic() + 30
        while True:
            try:
                if call(url + "/api/tables", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
            assert time.monotonic() < end, f"{url} did not answer within 30 s"
            time.sleep(0.1)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                finished(proc, 60)
            except AssertionError:
                if proc.returncode not in (-9, -15):
                    raise


@pytest.fixture
def three(pg_url: str) -> Iterator[tuple[Servers, str]]:
    servers = Servers(pg_url, 3)
    try:
        yield servers, pg_url
    finally:
        servers.stop()


def _doc(url: str, table: str, token: str) -> dict[str, Any]:
    status, doc = call(f"{url}/api/tables/{table}", token=token)
    assert status == 200, doc
    return dict(doc)


def test_three_processes_serve_one_table(three: tuple[Servers, str]) -> None:
    """A table made at process 0; seat 0 asked of all three at once is given once;
    seats 0, 1, 2 are played through processes 0, 1, 2, seat 3 by a bot. Every move
    answered 200 is in the stored decisions once, with its seat; a client waiting at
    each process is woken by a move made at another."""
    servers, url = three
    urls = servers.urls
    status, made = call(urls[0] + "/api/tables", {"players": 4, "bots": {"3": "greedy"}})
    assert status == 201
    table = made["table"]
    answers: list[tuple[int, Any]] = []

    def join(url: str) -> None:
        answers.append(call(f"{url}/api/tables/{table}/join", {"seat": 0}))

    threads = [threading.Thread(target=join, args=(u,)) for u in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(a[0] for a in answers) == [201, 409, 409], answers
    tokens = {0: next(a[1]["token"] for a in answers if a[0] == 201)}
    for seat in (1, 2):
        status, joined = call(f"{urls[seat]}/api/tables/{table}/join", {"seat": seat})
        assert status == 201
        tokens[seat] = joined["token"]
    acknowledged: list[tuple[int, int]] = []
    woken = set()
    last = -1  # the seq the last move's answer said
    for _ in range(12):
        # process 0 hears of a move made at another through the database's notice, a
        # moment after that move is answered: it is asked until it has (10 s at most)
        deadline = time.monotonic() + 10
        doc = _doc(urls[0], table, tokens[0])
        while doc["seq"] < last and time.monotonic() < deadline:
            time.sleep(0.05)
            doc = _doc(urls[0], table, tokens[0])
        assert doc["seq"] >= last, (doc["seq"], last)
        if doc["over"]:
            break
        seat, seq = doc["current_player"], doc["seq"]
        assert seat in tokens
        watcher = (seat + 1) % 3  # a client of another process waits for the move
        got: dict[str, Any] = {}

        def wait(watcher: int = watcher, seq: int = seq, got: dict[str, Any] = got) -> None:
            got.update(call(f"{urls[watcher]}/api/tables/{table}?since={seq}&wait=20",
                             token=tokens[watcher])[1])

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.2)
        mine = _doc(urls[seat], table, tokens[seat])
        assert mine["seq"] == seq
        status, answer = call(f"{urls[seat]}/api/tables/{table}/action",
                               {"action": mine["actions"][0]["action"],
                                "expected_seq": seq}, token=tokens[seat])
        assert status == 200, answer
        last = answer["seq"]
        acknowledged.append((seq, seat))
        waiter.join(30)
        assert not waiter.is_alive()
        if got.get("seq", -1) > seq:
            woken.add(watcher)
    assert woken == {0, 1, 2}
    store = PgTableStore(url)
    try:
        stored = store.decisions(table)
    finally:
        store.close()
    seqs = [d.seq for d in stored]
    assert len(seqs) == len(set(seqs))
    by_seq = {d.seq: d for d in stored}
    for seq, seat in acknowledged:
        assert by_seq[seq].seat == seat and by_seq[seq].played_by == "human"


def test_a_killed_process_leaves_its_tables_to_the_others(pg_url: str) -> None:
    """Process 0 plays its bots slowly; it is killed (``kill -9``) while a move it was
    sent waits on them: the move was never acknowledged, nothing of it is stored, and
    sent again to process 1 it is played there with the bots after it. A person's
    clock that runs out after the kill is played by one of the live processes, once."""
    slow = Servers(pg_url, 1, env={"TOKAIDO_TEST_BOT_DELAY": "3"})
    live = Servers(pg_url, 2)
    try:
        url0, url1 = slow.urls[0], live.urls[0]
        status, made = call(url0 + "/api/tables", {"players": 3, "bots": {"2": "random"},
                                                    "seat": 0, "clock": 2})
        assert status == 201, made
        table, token0 = made["table"], made["token"]
        status, joined = call(f"{url0}/api/tables/{table}/join", {"seat": 1})
        tokens = {0: token0, 1: joined["token"]}
        # play up to a decision of a person followed by the bot's
        for _ in range(30):
            doc = _doc(url1, table, tokens[0])
            seat = doc["current_player"]
            if seat in tokens and doc["seats"][(seat + 1) % 3]["kind"] == "bot":
                break
            mine = _doc(url1, table, tokens[seat]) if seat in tokens else doc
            if seat in tokens:
                call(f"{url1}/api/tables/{table}/action",
                      {"action": mine["actions"][0]["action"], "expected_seq": mine["seq"]},
                      token=tokens[seat])
            time.sleep(0.2)
        mine = _doc(url0, table, tokens[seat])
        move = {"action": mine["actions"][0]["action"], "expected_seq": mine["seq"]}
        sent: list[Any] = []

        def send() -> None:
            try:
                sent.append(call(f"{url0}/api/tables/{table}/action", move,
                                  token=tokens[seat], timeout=20))
            except OSError as exc:  # the process died: no answer
                sent.append(exc)

        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(1.0)  # the move applied, its bots waiting: kill the process
        slow.procs[0].send_signal(signal.SIGKILL)
        sender.join(30)
        assert sent and isinstance(sent[0], OSError)  # never acknowledged
        store = PgTableStore(pg_url)
        try:
            assert all(d.seq < move["expected_seq"] for d in store.decisions(table))
        finally:
            store.close()
        status, answer = call(f"{url1}/api/tables/{table}/action", move,
                               token=tokens[seat])
        assert status == 200, answer
        after = _doc(url1, table, tokens[0])
        assert after["seq"] > move["expected_seq"] + 1  # and the bot played after it
        # nobody moves now: the clocks run out and the live processes play them
        at = after["seq"]
        end = time.monotonic() + 30
        while _doc(live.urls[1], table, tokens[0])["seq"] <= at:
            assert time.monotonic() < end, "no live process played the clock run out"
            time.sleep(0.3)
        store = PgTableStore(pg_url)
        try:
            decisions = store.decisions(table)
        finally:
            store.close()
        seqs = [d.seq for d in decisions]
        assert len(seqs) == len(set(seqs))
        assert any(d.played_by.endswith("(clock)") and d.seq >= at for d in decisions)
    finally:
        slow.stop()
        live.stop()


def test_the_operators_commands_take_the_url_and_never_show_its_password(
        pg_url: str) -> None:
    """``tokaido tables list`` on a PostgreSQL URL lists its tables; a database that
    cannot be reached is one line and status 2; the URL's password is in neither."""
    store = PgTableStore(pg_url)
    store.close()
    with_password = pg_url.replace("postgres@", "postgres:s3cret@")
    listed = subprocess.run([sys.executable, "-m", "tokaido_rules", "tables", "list",
                             "--db", with_password], capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "0 tables" in listed.stdout and "s3cret" not in listed.stdout + listed.stderr
    refused = subprocess.run([sys.executable, "-m", "tokaido_rules", "serve", "--db",
                              "postgresql://ann:s3cret@127.0.0.1:1/none", "--port",
                              str(free_port()), "--db-timeout", "2"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "s3cret" not in refused.stdout + refused.stderr
    assert "postgresql://ann@127.0.0.1:1/none" in refused.stderr


def _eventually(read: Callable[[], Any], until: Callable[[Any], bool], what: str,
                seconds: float = 10) -> Any:
    """``read()`` again until ``until`` holds of it (a process hears of another's change
    through the database's notice, a moment after it was answered): ``seconds`` at
    most."""
    deadline = time.monotonic() + seconds
    got = read()
    while not until(got):
        assert time.monotonic() < deadline, f"{what}: still {got!r} after {seconds:g} s"
        time.sleep(0.05)
        got = read()
    return got


def test_a_take_back_asked_at_one_process_is_answered_at_another(pg_url: str) -> None:
    """With every person's consent needed (``takeback: "all"``), each seat a client of
    its own process: a take-back asked at one process waits, as the other seat's
    process shows; refused there, it is dropped at both; asked again and agreed to
    there, it is done, recorded with that seat's consent, and both processes are back
    at its point."""
    servers = Servers(pg_url, 2)
    try:
        urls = dict(enumerate(servers.urls))  # each seat's process
        table, tokens = two_people(servers.urls, takeback="all")
        at = urls[0]  # the process of the last move, which knows the table as it is
        for _ in range(200):  # play until the seat that just decided may take back
            seat = _doc(at, table, tokens[0])["current_player"]
            mine = _doc(urls[seat], table, tokens[seat])
            status, answer = call(f"{urls[seat]}/api/tables/{table}/action",
                                  {"action": mine["actions"][0]["action"],
                                   "expected_seq": mine["seq"]}, token=tokens[seat])
            assert status == 200, answer
            at = urls[seat]
            after = _doc(at, table, tokens[seat])
            if after["takeback"] is not None and after["takeback"]["allowed"]:
                break
        else:
            raise AssertionError("no decision that may be taken back was found")
        asker, other = seat, 1 - seat
        seq = after["seq"]

        def request_at(s: int) -> Callable[[], Any]:
            return lambda: _doc(urls[s], table, tokens[s])["takeback_request"]

        status, asked = call(f"{urls[asker]}/api/tables/{table}/takeback", {},
                             token=tokens[asker])
        assert status == 200 and asked["done"] is False and asked["waiting"] == [other]
        shown = _eventually(request_at(other), lambda r: r is not None,
                            "the other process shows the request")
        assert shown["seat"] == asker and shown["waiting"] == [other]
        status, refused = call(f"{urls[other]}/api/tables/{table}/takeback/answer",
                               {"agree": False}, token=tokens[other])
        assert status == 200 and refused == {"done": False, "refused_by": other}, refused
        _eventually(request_at(asker), lambda r: r is None,
                    "the asker's process drops the refused request")
        status, asked = call(f"{urls[asker]}/api/tables/{table}/takeback", {},
                             token=tokens[asker])
        assert status == 200 and asked["done"] is False
        _eventually(request_at(other), lambda r: r is not None,
                    "the other process shows the second request")
        status, agreed = call(f"{urls[other]}/api/tables/{table}/takeback/answer",
                              {"agree": True}, token=tokens[other])
        assert status == 200 and agreed["done"] is True, agreed
        to = agreed["to_seq"]
        assert to < seq
        def doc_at(s: int) -> Callable[[], Any]:
            return lambda: _doc(urls[s], table, tokens[s])

        for s in (asker, other):
            doc = _eventually(doc_at(s), lambda d: d["seq"] == to and d["takebacks"] == 1,
                              f"seat {s}'s process goes back")
            assert doc["takeback_request"] is None
        status, done = call(f"{urls[asker]}/api/tables/{table}/takebacks")
        assert [(t["seat"], t["from_seq"], t["to_seq"], t["consent"])
                for t in done["takebacks"]] == [(asker, seq, to, [other])]
    finally:
        servers.stop()


def test_a_seat_whose_page_another_process_serves_is_not_marked_away(pg_url: str) -> None:
    """With ``away_after: 1``: both seats' pages asked once at process A, then held
    open at process B only (long polls, one after another): A does not mark them
    away, in more than twice the time it takes to (``away_after``, or twice the
    keeper's interval), nor does the stand-in play for them. Once the pages are
    closed everywhere, the seats are away."""
    servers = Servers(pg_url, 2)
    store = PgTableStore(pg_url)
    try:
        url_a, url_b = servers.urls
        table, tokens = two_people([url_a], away_after=1, stand_in="random")
        seq = _doc(url_a, table, tokens[0])["seq"]  # seat 0's page at A ...
        _doc(url_a, table, tokens[1])               # ... and seat 1's
        stop = threading.Event()
        answers: list[int] = []

        def hold_open(seat: int) -> None:  # the page at B waits for news, again and again
            while not stop.is_set():
                answers.append(call(f"{url_b}/api/tables/{table}?since={seq}&wait=2",
                                    token=tokens[seat], timeout=30)[0])

        pages = [threading.Thread(target=hold_open, args=(s,)) for s in (0, 1)]
        for page in pages:
            page.start()
        try:
            end = time.monotonic() + 10
            while time.monotonic() < end:
                assert store.away().get(table, {}) == {}, "a seat present was marked away"
                time.sleep(0.5)
        finally:
            stop.set()
            for page in pages:
                page.join(40)
        assert not any(page.is_alive() for page in pages) and set(answers) == {200}
        # nor for a moment (B's next poll would bring the seat back): no stand-in played
        assert not [d for d in store.decisions(table) if d.played_by.endswith("(absent)")]
        away = _eventually(lambda: store.away().get(table, {}), lambda a: len(a) == 2,
                           "the seats are marked away once no page is open", 30)
        assert away == {0: "absent", 1: "absent"}
    finally:
        store.close()
        servers.stop()


def test_the_seats_of_a_killed_processs_pages_are_marked_away_by_a_survivor(
        pg_url: str) -> None:
    """With ``away_after: 1``: seat 0's page held open at process A, seat 1's at process
    B (long polls, one after another). A is killed with ``kill -9`` (its pages' polls
    end with no answer, and the page is not opened again): B marks seat 0 away
    (``absent``) once its last sighting, as A stored it, is older than the rule's time
    on a shared store (``away_after`` or twice the keeper's interval), and never seat 1,
    whose page B serves."""
    doomed = Servers(pg_url, 1)
    live = Servers(pg_url, 1)
    store = PgTableStore(pg_url)
    stop = threading.Event()
    pages: list[threading.Thread] = []
    try:
        url_a, url_b = doomed.urls[0], live.urls[0]
        table, tokens = two_people([url_a, url_b], away_after=1, stand_in="random")
        seq = _doc(url_a, table, tokens[0])["seq"]
        _doc(url_b, table, tokens[1])

        def hold_open(url: str, seat: int) -> None:  # a page waiting for news, again
            while not stop.is_set():
                try:
                    call(f"{url}/api/tables/{table}?since={seq}&wait=2",
                         token=tokens[seat], timeout=30)
                except OSError:
                    return  # its server is gone: the page is closed
        pages += [threading.Thread(target=hold_open, args=(url_a, 0)),
                  threading.Thread(target=hold_open, args=(url_b, 1))]
        for page in pages:
            page.start()
        end = time.monotonic() + 6  # present at both: nobody is marked away
        while time.monotonic() < end:
            assert store.away().get(table, {}) == {}, "a seat present was marked away"
            time.sleep(0.5)
        doomed.procs[0].send_signal(signal.SIGKILL)
        away = _eventually(lambda: store.away().get(table, {}), lambda a: 0 in a,
                           "the killed process's seat is marked away by the survivor",
                           30)
        assert away == {0: "absent"}
        end = time.monotonic() + 5  # and seat 1, whose page B serves, stays present
        while time.monotonic() < end:
            assert 1 not in store.away().get(table, {}), "seat 1 was marked away"
            time.sleep(0.5)
    finally:
        stop.set()
        for page in pages:
            page.join(40)
        store.close()
        doomed.stop()
        live.stop()
    assert not any(page.is_alive() for page in pages)

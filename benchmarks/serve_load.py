"""Load of the game server ``tokaido serve``, on loopback only (127.0.0.1).

Run: ``python benchmarks/serve_load.py [--tables N] [--clients C] [--seconds S]
[--seats each|one] [--json] [--legacy DIR]`` (``--help`` for the rest).

The server runs in a process of its own (its own GIL), on a fresh database in a
temporary directory, and is stopped at the end; everything is bounded: ``--seconds``
(default 60) of play, at most ``--max-requests`` requests, and every request has a
timeout. Setup creates ``N`` tables (default 200) of ``--players`` (default 4) through
``POST /api/tables`` and joins their seats; then ``C`` clients per table (default 4,
one per seat; a seat no client plays is given to a random bot at creation, and with more
clients than seats some seats have two; ``--seats one``: every client plays seat 0 and
bots the others, the old server's shape), each a simulated person with an HTTP
connection of its own, play until their game is over or the time is up::

    open the page: GET /api/tables/ID?since=0&form=update, then the push channel
          GET /api/tables/ID/events?stream=NAME (server-sent events, a connection of
          its own; NAME: the page's, which its moves name too)
    loop: when the latest update offers actions: think (--think), then
          POST /api/tables/ID/action?form=update&stream=NAME (a seeded random one of
          them, expected_seq = the update's seq; its answer is not sent again on the
          channel; a 409, stale, is counted, and followed by a GET of what is new)

as the table page does (``--transport poll``: the old page's long polls instead). Each
client keeps the board's scene as the page does, from the updates' patches, and asks
for the whole scene (``GET scene``) only when it must. Every page opens first (its first
update and its push channel's); the play, and the clock of ``--seconds``, begin once
all are open, as at an evening's tables, where the pages are not all opened in the same
millisecond (the server's CPU is counted from the first page on). A move sent on a
kept-alive connection the server had just closed is sent again at once, as a browser
does (the error is counted; a repeat of a move done is a 409).

Measured, per kind of request: count, requests per second, p50/p90/p99/max latency (the
whole answer received) and the bytes on the wire per answer (gzip accepted). A long poll's
latency includes its wait, so GETs are split: ``first`` (no since), ``ready`` (the game
had already moved on as far as the benchmark knew when it was sent), ``woken`` (it
waited and came back with a newer seq) and ``timed out`` (it waited the whole
``--wait``). What matters for people is the POST's latency and the **update latency**:
for each successful POST, the time from sending it until each other client of the table
has received an answer with a seq past the POST's ``expected_seq``. Also: decisions
played (successful POSTs) per second, seq advanced per second (events, bots' included),
games finished, errors by status (and by exception), the server's peak RSS
(``VmHWM`` of ``/proc/PID/status``) and CPU time, and the benchmark's own CPU time: on a
small machine the clients compete with the server for the cores, and the figures are
the pair's.

The server is ``python -m tokaido_rules serve``, with ``--max-connections`` raised past
:data:`tokaido_rules.web.MAX_CONNECTIONS` (512) when the clients need more (each keeps
one connection open), and the limits by client address off
(``--max-connections-per-address 0 --tables-per-minute 0``): every client is at
127.0.0.1, and the tables are all made at once.

``--legacy DIR`` measures the previous server first, the "before" figure: ``DIR`` is a
git worktree of the old code (``git worktree add /tmp/old-tree 10b851d``), whose server
serves one table per process, with one person's seat (0) and bots (random) at the
others, and no long polling. ``N`` such processes are started (default 20 with
``--legacy``), each with ``C`` clients that all play seat 0 (``GET /api/view?since=SEQ``
at once, ``POST /api/action``; the losers of each race get a 409, counted), measured
alike; then the new server with the same ``N`` and ``C``, twice: ``--seats one`` (seat 0
played by the clients, bots at the others: like for like) and ``--seats each`` (a
client per seat, no bots), and the three are printed side by side. Timing is never
asserted anywhere: this machine's speed wanders.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tokaido_rules.web import MAX_CONNECTIONS

HOST = "127.0.0.1"

GET_KINDS = ("GET first", "GET ready", "GET woken", "GET timed out")
LEGACY_KINDS = ("GET view", "POST action")


# --- measures ---------------------------------------------------------------------------


@dataclass
class Pending:
    """A POST under way or done, until every other client of its table has seen it."""

    sent: float
    old_seq: int
    waiting: set[int]
    ok: bool | None = None
    early: list[float] = field(default_factory=list)  # seen before the POST's answer


@dataclass
class TableState:
    """What the benchmark knows of one table: its URL paths, the highest seq any of its
    clients has been told, and the POSTs not yet seen by every client."""

    view_path: str
    action_path: str
    clients: list[int] = field(default_factory=list)
    known_seq: int = -1
    first_seq: int | None = None
    over: bool = False
    pending: list[Pending] = field(default_factory=list)


@dataclass
class Stats:
    """Everything measured in one run."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    wire: Counter[str] = field(default_factory=Counter)
    update: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    stale: int = 0
    decisions: int = 0
    requests: int = 0
    crash: str | None = None
    pushed: int = 0  # updates received on push channels
    pushed_bytes: int = 0

    def record(self, kind: str, seconds: float, nbytes: int) -> None:
        self.latencies.setdefault(kind, []).append(seconds)
        self.wire[kind] += nbytes


class Run:
    """One measured run: its tables, its deadline and its figures."""

    def __init__(self, seconds: float, max_requests: int) -> None:
        self.stats = Stats()
        self.tables: list[TableState] = []
        self.deadline = 0.0
        self.seconds = seconds
        self.max_requests = max_requests
        self.stop = asyncio.Event()
        self.go = asyncio.Event()  # every page is open: the play (and its clock) begins
        self.pages = 0  # pages to open first (push transport)
        self.opened = 0
        self.began = 0.0  # when the play began (perf_counter)

    def page_open(self) -> None:
        """One more page has its first update and its push channel's."""
        self.opened += 1
        if self.opened >= self.pages:
            self.go.set()

    def stopping(self) -> bool:
        return self.stop.is_set() or time.perf_counter() >= self.deadline

    def count_request(self) -> None:
        self.stats.requests += 1
        if self.stats.requests >= self.max_requests:
            self.stop.set()

    def seen(self, table: TableState, client: int, seq: int, over: bool, at: float) -> None:
        """``client`` of ``table`` has an answer at ``seq``: the POSTs it passes are
        seen by it."""
        if table.first_seq is None or seq < table.first_seq:
            table.first_seq = seq
        table.known_seq = max(table.known_seq, seq)
        table.over = table.over or over
        for post in list(table.pending):
            if post.old_seq < seq and client in post.waiting:
                post.waiting.discard(client)
                if post.ok:
                    self.stats.update.append(at - post.sent)
                else:
                    post.early.append(at - post.sent)
                if not post.waiting and post.ok is not None:
                    table.pending.remove(post)

    def post_sent(self, table: TableState, client: int, seq: int) -> Pending:
        post = Pending(time.perf_counter(), seq, {c for c in table.clients if c != client})
        table.pending.append(post)
        return post

    def post_done(self, table: TableState, post: Pending, ok: bool) -> None:
        post.ok = ok
        if ok:
            self.stats.update += post.early
        if (not ok or not post.waiting) and post in table.pending:
            table.pending.remove(post)

    def client_gone(self, table: TableState, client: int) -> None:
        """A client that stops waits for nothing more (the game is over)."""
        for post in list(table.pending):
            post.waiting.discard(client)
            if not post.waiting and post.ok is not None:
                table.pending.remove(post)


async def timed(run: Run, kind: str, call: Awaitable[httpx.Response],
                classify: Callable[[Any], str] | None = None) -> tuple[int, Any, float]:
    """Send one request: (status, JSON answer or None, time it was received); the
    latency is recorded under ``kind`` (or the kind ``classify`` picks from the
    answer), an error by status or by exception: (0, None, now) for a request that
    failed."""
    run.count_request()
    start = time.perf_counter()
    try:
        response = await call
    except httpx.HTTPError as exc:
        run.stats.errors[f"{kind.split()[0]} {type(exc).__name__}"] += 1
        return 0, None, time.perf_counter()
    end = time.perf_counter()
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code == 200:
        run.stats.record(kind if classify is None else classify(answer), end - start,
                         response.num_bytes_downloaded)
    elif response.status_code == 409 and kind.startswith("POST"):
        run.stats.stale += 1
    else:
        run.stats.errors[f"{kind.split()[0]} {response.status_code}"] += 1
    return response.status_code, answer, end


def new_client(base: str, wait: float, token: str | None = None) -> httpx.AsyncClient:
    """One simulated person's HTTP client: one connection, kept alive a little less than
    the server keeps an idle one (so that it never sends on a connection being closed),
    gzip accepted, no proxy from the environment."""
    headers = {"Accept-Encoding": "gzip"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.AsyncClient(
        base_url=base, headers=headers, trust_env=False,
        verify=False,  # plain HTTP on loopback: no certificates to load per client
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1,
                            keepalive_expiry=4.0),
        timeout=httpx.Timeout(10.0, read=wait + 30.0))


async def play(run: Run, http: httpx.AsyncClient, table: TableState, client: int,
               rng: random.Random, wait: float | None) -> None:
    """One person at one table until the game is over or the run stops: act on the last
    answer's actions, else ask again (a long poll when ``wait``, else at once)."""
    doc: Any = None
    while not run.stopping():
        if doc is not None and doc["over"]:
            break
        if doc is not None and doc["actions"]:
            choice = rng.choice(doc["actions"])["action"]
            post = run.post_sent(table, client, doc["seq"])
            status, answer, at = await timed(run, "POST action", http.post(
                table.action_path, json={"action": choice, "expected_seq": doc["seq"]}))
            run.post_done(table, post, status == 200)
            if status == 200:
                run.stats.decisions += 1
                doc = answer
                run.seen(table, client, doc["seq"], doc["over"], at)
            elif status == 409:
                doc = {**doc, "actions": []}  # ask again: the game has moved on
            else:
                doc = None
                await asyncio.sleep(0.2)
            continue
        params: dict[str, int] = {}
        kind = "GET first" if wait else "GET view"
        classify: Callable[[Any], str] | None = None
        if doc is not None:
            since = int(doc["seq"])
            params["since"] = since
            kind = "GET view"
            if wait:
                params["wait"] = int(wait)
                if table.known_seq > since:
                    kind = "GET ready"
                else:
                    kind = "GET wait"
                    classify = _waited(since)
        status, answer, at = await timed(run, kind, http.get(table.view_path, params=params),
                                         classify)
        if status == 200:
            if wait is None and doc is not None and answer["seq"] == doc["seq"] \
                    and not answer["actions"] and not answer["over"]:
                await asyncio.sleep(0.05)  # nothing to do yet (not with the old server)
            doc = answer
            run.seen(table, client, doc["seq"], doc["over"], at)
        else:
            await asyncio.sleep(0.2)
    run.client_gone(table, client)


async def play_pushed(run: Run, http: httpx.AsyncClient, stream: httpx.AsyncClient,
                      table: TableState, client: int, rng: random.Random, think: float,
                      pictures: bool, fetch_scenes: bool = False) -> None:
    """One person at one table as the page plays: the table's updates since 0 (``GET
    first``), then its push channel (server-sent events, on a connection of its own),
    and a move (``POST action?form=update``) whenever the latest update offers actions,
    after thinking a seeded random time (mean ``think`` seconds); with ``pictures``, the
    seat's picture of each update (what the page fetches while it draws SVG from the
    server)."""
    status, doc, at = await timed(run, "GET first", http.get(
        table.view_path, params={"since": 0, "form": "update"}))
    if status != 200:
        run.page_open()
        run.client_gone(table, client)
        return
    run.seen(table, client, doc["seq"], doc["over"], at)
    fresh = asyncio.Event()
    opened = asyncio.Event()
    latest: dict[str, Any] = {"doc": doc}
    board = Board(fetch_scenes)
    await board.take(run, http, table, doc, animate=False)

    name = f"c{client}"  # the page's name for its push channel, which its moves name
    moved = asyncio.Event()  # no move of this page under way
    moved.set()

    async def catch_up() -> None:
        """What is new since the page's seq, as the page asks for it (the push channel
        does not send again what a move's answer told)."""
        doc = latest["doc"]
        status, answer, at = await timed(run, "GET ready", http.get(
            table.view_path, params={"since": doc["seq"], "form": "update",
                                     "takebacks": doc["takebacks"]}))
        if status == 200:
            run.seen(table, client, answer["seq"], answer["over"], at)
            if answer["seq"] > latest["doc"]["seq"]:
                await board.take(run, http, table, answer)
                latest["doc"] = answer

    async def listen() -> None:
        while not run.stopping():
            params = {"since": latest["doc"]["seq"], "takebacks": latest["doc"]["takebacks"],
                      "stream": name}
            held: dict[str, Any] = {}  # a stream's update leaves out what did not change
            try:
                async with stream.stream("GET", table.view_path + "/events",
                                         params=params) as response:
                    if response.status_code != 200:
                        run.stats.errors[f"GET events {response.status_code}"] += 1
                        await asyncio.sleep(0.2)
                        continue
                    async for line in response.aiter_lines():
                        if not line.startswith("data: "):
                            continue
                        run.stats.pushed += 1
                        run.stats.pushed_bytes += len(line) + 2
                        update = held = {**held, **json.loads(line[6:])}
                        if update["since"] > latest["doc"]["seq"] and not update.get("reset"):
                            # as the page: what came before was its own move's answer,
                            # shown first (else asked for)
                            await moved.wait()
                            if update["since"] > latest["doc"]["seq"]:
                                await catch_up()
                        if not opened.is_set():
                            opened.set()
                            run.page_open()
                        now = time.perf_counter()
                        run.seen(table, client, update["seq"], update["over"], now)
                        if update["seq"] > latest["doc"]["seq"] or update.get("reset"):
                            await board.take(run, http, table, update,
                                             animate=not update.get("reset"))
                        if update["seq"] >= latest["doc"]["seq"]:
                            latest["doc"] = update
                            fresh.set()
            except httpx.HTTPError as exc:
                if not run.stopping():
                    run.stats.errors[f"GET events {type(exc).__name__}"] += 1
                    await asyncio.sleep(0.2)

    listener = asyncio.ensure_future(listen())
    acted = -1
    try:
        await run.go.wait()  # the pages open before anyone plays, as at a table
        while not run.stopping():
            doc = latest["doc"]
            if doc["over"]:
                break
            if pictures and doc.get("_drawn") is None:
                doc["_drawn"] = True
                await timed(run, "GET picture", http.get(
                    table.view_path + "/picture", params={"seq": doc["seq"]}))
            if doc["actions"] and doc["seq"] != acted:
                if think > 0:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
                    if latest["doc"]["seq"] != doc["seq"]:
                        continue  # the table moved on meanwhile
                acted = doc["seq"]
                choice = rng.choice(doc["actions"])["action"]
                post = run.post_sent(table, client, doc["seq"])
                moved.clear()
                for _ in range(2):  # a kept-alive connection the server had just
                    # closed: sent again at once, as a browser does (a repeat is a 409)
                    status, answer, at = await timed(run, "POST action", http.post(
                        table.action_path, params={"form": "update", "stream": name},
                        json={"action": choice, "expected_seq": doc["seq"]}))
                    if status != 0:
                        break
                run.post_done(table, post, status == 200)
                try:
                    if status != 200:
                        # as the page: a move refused (a repeat whose answer was lost:
                        # its channel sends nothing of it) is followed by a GET of what
                        # is new
                        if status not in (0, 409):
                            await asyncio.sleep(0.2)
                        await catch_up()
                        continue
                    run.stats.decisions += 1
                    run.seen(table, client, answer["seq"], answer["over"], at)
                    if answer["seq"] > latest["doc"]["seq"]:
                        await board.take(run, http, table, answer)
                    if answer["seq"] >= latest["doc"]["seq"]:
                        latest["doc"] = answer
                finally:
                    moved.set()
                continue
            fresh.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fresh.wait(), 1.0)
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener
        run.client_gone(table, client)


class Board:
    """The scene a page keeps to draw its board, as ``table.html`` keeps it: each
    update's scenes are patches of the one before; a patch of another base than the
    one held makes the page ask for the whole scene (``GET scene``, counted). With
    ``fetch`` (``--fetch-scenes``), the page of before issue 43 instead: the scene of
    each new step and of now asked for, one request each (the updates had none)."""

    def __init__(self, fetch: bool = False) -> None:
        self.scene: dict[str, Any] | None = None
        self.seq: int | None = None
        self.fetch = fetch

    async def take(self, run: Run, http: httpx.AsyncClient, table: TableState,
                   update: dict[str, Any], animate: bool = True) -> None:
        if self.fetch:
            told = self.seq if self.seq is not None else -1
            wanted = [s["seq"] for s in update.get("steps") or () if s["seq"] > told] \
                if animate else []
            for seq in [*wanted, update["seq"]]:
                await timed(run, "GET scene", http.get(table.view_path + "/scene",
                                                       params={"seq": seq}))
            self.seq = update["seq"]
            return
        for entry in update.get("scenes") or ():
            if entry["base"] is None:
                self.scene = entry["patch"]
            elif self.scene is not None and self.seq == entry["base"]:
                for path, value in entry["patch"].items():
                    key, _, item = path.partition("/")
                    if not item:
                        self.scene[key] = value
                    elif isinstance(self.scene[key], list):
                        self.scene[key][int(item)] = value
                    else:
                        self.scene[key][item] = value
            else:
                status, found, _ = await timed(run, "GET scene", http.get(
                    table.view_path + "/scene", params={"seq": entry["seq"]}))
                self.scene = found if status == 200 else None
            self.seq = None if self.scene is None else entry["seq"]


def _waited(since: int) -> Callable[[Any], str]:
    """The kind of a long poll's answer: woken by a newer seq, or timed out."""
    return lambda answer: "GET woken" if answer["seq"] > since else "GET timed out"


async def drive(run: Run, players: list[Callable[[], Awaitable[None]]]) -> float:
    """Run every client until all are done, the time is up or the requests are spent;
    the seconds of play. With ``run.pages``, the pages open first (their first update
    and their push channel's, at most 120 s), and the play and its clock begin once
    all are open: a page opened in the same instant as 800 others is not a move."""
    run.deadline = float("inf")
    tasks = [asyncio.ensure_future(p()) for p in players]
    together = asyncio.gather(*tasks, return_exceptions=True)
    if run.pages:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.go.wait(), 120)
    run.go.set()
    start = run.began = time.perf_counter()
    run.deadline = start + run.seconds
    stopper = asyncio.ensure_future(run.stop.wait())
    either: list[asyncio.Future[Any]] = [together, stopper]
    await asyncio.wait(either, timeout=run.seconds, return_when=asyncio.FIRST_COMPLETED)
    elapsed = time.perf_counter() - start
    run.stop.set()
    for task in tasks:
        task.cancel()
    results = await together
    stopper.cancel()
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            run.stats.errors[f"client crashed: {type(result).__name__}"] += 1
            if run.stats.crash is None:
                run.stats.crash = "".join(traceback.format_exception(result))
    return elapsed


# --- servers ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass
class Process:
    """A server process and its port."""

    popen: subprocess.Popen[bytes]
    port: int
    out: Path

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS (kB) and Threads of a live process."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "Threads"):
                out[key] = int(value.split()[0])
    return out


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a live process (0 if unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(argv: list[str], workdir: Path, name: str,
          env: dict[str, str] | None = None) -> Process:
    port = free_port()
    out = workdir / f"{name}.out"
    with out.open("wb") as sink:
        popen = subprocess.Popen([*argv[:1], *(a.replace("{port}", str(port)) for a in argv[1:])],
                                 stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=env, cwd=workdir, start_new_session=True)
    return Process(popen, port, out)


async def wait_ready(processes: list[Process], path: str, seconds: float = 120) -> None:
    """Until every server answers ``GET path`` (a server that exits is an error)."""
    async with httpx.AsyncClient(trust_env=False, timeout=5.0) as http:
        async def one(process: Process) -> None:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if process.popen.poll() is not None:
                    raise SystemExit(f"error: the server exited ({process.popen.returncode}):\n"
                                     + process.out.read_text(errors="replace")[-2000:])
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(process.base + path)).status_code == 200:
                        return
                await asyncio.sleep(0.1)
            raise SystemExit(f"error: the server on port {process.port} did not answer "
                             f"in {seconds:.0f} s")
        await asyncio.gather(*(one(p) for p in processes))


def stop_all(processes: list[Process]) -> None:
    """SIGTERM, then SIGKILL whatever is still running 10 s later."""
    for process in processes:
        if process.popen.poll() is None:
            process.popen.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    for process in processes:
        try:
            process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.popen.kill()
            process.popen.wait(timeout=10)


@contextlib.contextmanager
def servers(argvs: list[list[str]], workdir: Path,
            env: dict[str, str] | None = None) -> Iterator[list[Process]]:
    processes: list[Process] = []
    try:
        for n, argv in enumerate(argvs):
            processes.append(start(argv, workdir, f"server{n}", env))
        yield processes
    finally:
        stop_all(processes)


def raise_open_files(want: int) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (
            want if hard == resource.RLIM_INFINITY else min(want, hard), hard))


# --- the two servers' runs ------------------------------------------------------------------


def seat_plan(players: int, clients: int, shape: str) -> tuple[list[int], dict[str, str]]:
    """The seat of each client (``each``: cycling over the seats; ``one``: all seat 0)
    and the bots of the seats that no client plays."""
    seats = [c % players if shape == "each" else 0 for c in range(clients)]
    return seats, {str(s): "random" for s in range(players) if s not in seats}


async def setup_new(base: str, args: argparse.Namespace, shape: str
                    ) -> list[tuple[str, list[tuple[int, str]]]]:
    """Create the tables and join the seats played by clients: [(table id, [(seat,
    token)])]."""
    seats, bots = seat_plan(args.players, args.clients, shape)
    body: dict[str, Any] = {"players": args.players, "plugins": ["base"]}
    if bots:
        body["bots"] = bots
    gate = asyncio.Semaphore(8)
    limits = httpx.Limits(max_connections=8, max_keepalive_connections=8, keepalive_expiry=4.0)
    async with httpx.AsyncClient(base_url=base, trust_env=False, limits=limits,
                                 timeout=60.0) as http:
        async def one() -> tuple[str, list[tuple[int, str]]]:
            async with gate:
                made = await http.post("/api/tables", json=body)
                if made.status_code != 201:
                    raise SystemExit(f"error: POST /api/tables: {made.status_code} {made.text}")
                table = str(made.json()["table"])
                tokens: dict[int, str] = {}
                for seat in sorted(set(seats)):
                    joined = await http.post(f"/api/tables/{table}/join", json={"seat": seat})
                    if joined.status_code != 201:
                        raise SystemExit(f"error: join: {joined.status_code} {joined.text}")
                    tokens[seat] = str(joined.json()["token"])
                return table, [(s, tokens[s]) for s in seats]
        return list(await asyncio.gather(*(one() for _ in range(args.tables))))


def server_figures(processes: list[Process], cpu_before: list[float]) -> dict[str, Any]:
    status = [proc_status(p.popen.pid) for p in processes]
    peaks = [s.get("VmHWM", 0) / 1024 for s in status]
    cpu = sum(cpu_seconds(p.popen.pid) - b for p, b in zip(processes, cpu_before, strict=True))
    return {"processes": len(processes), "peak_rss_mib": round(sum(peaks), 1),
            "peak_rss_mib_per_process_max": round(max(peaks), 1),
            "rss_mib_at_end": round(sum(s.get("VmRSS", 0) for s in status) / 1024, 1),
            "threads": sum(s.get("Threads", 0) for s in status),
            "cpu_s": round(cpu, 2)}


def spy(args: argparse.Namespace, pid: int, shape: str) -> subprocess.Popen[bytes] | None:
    """With ``--profile DIR``: py-spy sampling the server ``pid`` for the run's
    seconds, only the thread that holds the GIL (where its Python CPU goes: a thread
    waiting for the GIL, a lock or a socket is not counted), its collapsed stacks
    written to ``DIR/serve-SHAPE.txt`` (``benchmarks/serve_profile.py`` sums them up)."""
    if not args.profile:
        return None
    tool = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(tool).is_file():
        raise SystemExit("error: --profile needs py-spy (pip install py-spy)")
    folder = Path(args.profile).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([tool, "record", "--pid", str(pid), "--duration",
                             str(max(1, int(args.seconds))), "--rate", "400",
                             "--gil", "--nonblocking", "--format", "raw", "--output",
                             str(folder / f"serve-{shape}.txt")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def run_new(args: argparse.Namespace, workdir: Path, shape: str) -> dict[str, Any]:
    """The new server: one process, ``args.tables`` tables, the clients at their seats
    (``shape``: see :func:`seat_plan`)."""
    db = args.db or workdir / f"bench-{shape}.db"
    needed = max(MAX_CONNECTIONS, 2 * args.tables * args.clients + 64)
    # Every client is at 127.0.0.1, and the tables are made at once: the limits by
    # address are off, the total ones raised past what the run needs.
    limits = ["--max-connections", str(needed), "--max-connections-per-address", "0",
              "--tables-per-minute", "0", "--max-tables", str(max(2000, args.tables))]
    argv = [args.python, "-m", "tokaido_rules", "serve", "--db",
            str(db), "--port", "{port}", *limits]
    launcher = f"python -m tokaido_rules serve {' '.join(limits)}"
    began = time.perf_counter()
    with servers([argv] * args.processes, workdir) as processes:
        await wait_ready(processes, "/api/tables")
        run = Run(args.seconds, args.max_requests)
        made = await setup_new(processes[0].base, args, shape)
        setup_s = time.perf_counter() - began
        players: list[Callable[[], Awaitable[None]]] = []
        clients: list[httpx.AsyncClient] = []
        for n, (table_id, seats) in enumerate(made):
            table = TableState(f"/api/tables/{table_id}", f"/api/tables/{table_id}/action")
            run.tables.append(table)
            for c, (_, token) in enumerate(seats):
                index = n * args.clients + c
                table.clients.append(index)
                # table n at process n % N: the proxy's affinity by table (host-tables)
                base = processes[n % len(processes)].base
                http = new_client(base, args.wait, token)
                clients.append(http)
                rng = random.Random(args.seed * 1_000_003 + index)
                if args.transport == "poll":
                    players.append(_player(run, http, table, index, rng, args.wait))
                    continue
                stream = new_client(base, 3600.0, token)
                clients.append(stream)
                players.append(functools.partial(play_pushed, run, http, stream, table,
                                                 index, rng, args.think, args.pictures,
                                                 args.fetch_scenes))
        if args.transport == "push":
            run.pages = len(players)
        cpu_before = [cpu_seconds(p.popen.pid) for p in processes]
        sampler = spy(args, processes[0].popen.pid, shape)
        mine = time.process_time()
        opening = time.perf_counter()
        elapsed = await drive(run, players)
        opened_s = run.began - opening
        mine = time.process_time() - mine
        figures = server_figures(processes, cpu_before)
        for http in clients:
            await http.aclose()
        if sampler is not None:
            sampler.wait(timeout=args.seconds + 60)
        log = processes[0].out
    _, bots = seat_plan(args.players, args.clients, shape)
    return report(run, elapsed, mine, figures, {
        "server": "new", "seats": shape, "launcher": launcher, "tables": args.tables,
        "processes": args.processes, "db": "postgresql" if args.db else "sqlite",
        "clients_per_table": args.clients, "players": args.players,
        "bot_seats_per_table": len(bots), "wait_s": args.wait, "setup_s": round(setup_s, 2),
        "transport": args.transport, "think_s": args.think, "pictures": args.pictures,
        "fetch_scenes": args.fetch_scenes,
        "pages_opened_s": round(opened_s, 2), "pages_opened": run.opened,
        "server_output": log.read_text(errors="replace")[-2000:]})


def _player(run: Run, http: httpx.AsyncClient, table: TableState, index: int,
            rng: random.Random, wait: float | None) -> Callable[[], Awaitable[None]]:
    return lambda: play(run, http, table, index, rng, wait)


async def run_legacy(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """The old server: one process per table, clients all playing seat 0 against bots."""
    tree = Path(args.legacy).resolve()
    if not (tree / "src" / "tokaido_rules" / "web.py").is_file():
        raise SystemExit(f"error: --legacy {tree}: no src/tokaido_rules/web.py there")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(tree / "plugins")])}
    argvs = [[args.python, "-m", "tokaido_rules", "serve", "--players", str(args.players),
              "--human", "0", "--bots", "random", "--seed", str(args.seed + n), "--port",
              "{port}"] for n in range(args.tables)]
    began = time.perf_counter()
    with servers(argvs, workdir, env) as processes:
        await wait_ready(processes, "/api/view")
        setup_s = time.perf_counter() - began
        run = Run(args.seconds, args.max_requests)
        players: list[Callable[[], Awaitable[None]]] = []
        clients: list[httpx.AsyncClient] = []
        for n, process in enumerate(processes):
            table = TableState("/api/view", "/api/action")
            run.tables.append(table)
            for c in range(args.clients):
                index = n * args.clients + c
                table.clients.append(index)
                http = new_client(process.base, 0.0)
                clients.append(http)
                players.append(_player(run, http, table, index,
                                       random.Random(args.seed * 1_000_003 + index), None))
        cpu_before = [cpu_seconds(p.popen.pid) for p in processes]
        mine = time.process_time()
        elapsed = await drive(run, players)
        mine = time.process_time() - mine
        figures = server_figures(processes, cpu_before)
        for http in clients:
            await http.aclose()
        logs = "".join(p.out.read_text(errors="replace") for p in processes)
    return report(run, elapsed, mine, figures, {
        "server": "legacy", "seats": "one", "launcher": f"{tree}: python -m tokaido_rules serve "
        f"--players {args.players} --human 0 --bots random, one process per table",
        "tables": args.tables, "clients_per_table": args.clients, "players": args.players,
        "bot_seats_per_table": args.players - 1, "wait_s": None,
        "setup_s": round(setup_s, 2), "server_output": logs[-2000:]})


# --- the report ---------------------------------------------------------------------------


def spread(values: list[float], elapsed: float) -> dict[str, Any]:
    """Count, rate and quantiles (milliseconds) of latencies in seconds."""
    if not values:
        return {"count": 0, "per_s": 0.0, "p50_ms": None, "p90_ms": None, "p99_ms": None,
                "max_ms": None, "mean_ms": None}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"count": len(values), "per_s": round(len(values) / elapsed, 2),
            "p50_ms": at(0.50), "p90_ms": at(0.90), "p99_ms": at(0.99),
            "max_ms": round(1000 * ordered[-1], 2),
            "mean_ms": round(1000 * statistics.fmean(values), 2)}


def report(run: Run, elapsed: float, client_cpu: float, server: dict[str, Any],
           config: dict[str, Any]) -> dict[str, Any]:
    stats = run.stats
    kinds = LEGACY_KINDS if config["server"] == "legacy" else (*GET_KINDS, "POST action")
    for extra in ("GET picture", "GET scene"):
        if extra in stats.latencies:
            kinds = (*kinds, extra)
    requests: dict[str, Any] = {}
    for kind in kinds:
        got = stats.latencies.get(kind, [])
        requests[kind] = spread(got, elapsed)
        requests[kind]["bytes_per_answer"] = round(stats.wire[kind] / len(got)) if got else None
    advanced = sum(t.known_seq - t.first_seq for t in run.tables if t.first_seq is not None)
    unseen = sum(len(p.waiting) for t in run.tables for p in t.pending if p.ok)
    server["cpu_share_of_a_core"] = round(server["cpu_s"] / elapsed, 3)
    return {
        "config": config,
        "elapsed_s": round(elapsed, 2),
        "requests_total": stats.requests,
        "requests": requests,
        "update_latency": {**spread(stats.update, elapsed), "unseen_at_end": unseen},
        "decisions": stats.decisions,
        "decisions_per_s": round(stats.decisions / elapsed, 2),
        "seq_advanced": advanced,
        "seq_per_s": round(advanced / elapsed, 2),
        "stale_409": stats.stale,
        "games_finished": sum(t.over for t in run.tables),
        "errors": dict(sorted(stats.errors.items())),
        "client_crash": stats.crash,
        "server_process": server,
        "client_cpu_s": round(client_cpu, 2),
        "client_cpu_share_of_a_core": round(client_cpu / elapsed, 3),
        "push": {"updates": stats.pushed, "bytes_per_update":
                 round(stats.pushed_bytes / stats.pushed) if stats.pushed else None},
        "server_cpu_ms_per_decision": round(1000 * server["cpu_s"] / stats.decisions, 2)
        if stats.decisions else None,
    }


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_run(result: dict[str, Any]) -> None:
    config = result["config"]
    bots = config["bot_seats_per_table"]
    print(f"== {config['server']} server, seats {config['seats']}: {config['tables']} "
          f"tables x {config['clients_per_table']} clients ({config['players']} players, "
          f"{bots} bot seat{'s' if bots != 1 else ''} per table), "
          f"{result['elapsed_s']:.1f} s of play"
          + (f", long polls of {config['wait_s']:g} s" if config["wait_s"] else
             ", no long polling"))
    print(f"   launcher: {config['launcher']}")
    print(f"   setup (start, tables, seats): {config['setup_s']:.1f} s")
    print(f"   {'request':<18}{'count':>8}{'req/s':>9}{'p50 ms':>9}{'p90 ms':>9}"
          f"{'p99 ms':>9}{'max ms':>9}{'KiB/ans':>9}")
    rows = [*result["requests"].items(), ("update latency", result["update_latency"])]
    for kind, row in rows:
        size = row.get("bytes_per_answer")
        print(f"   {kind:<18}{row['count']:>8}{row['per_s']:>9.1f}{ms(row['p50_ms']):>9}"
              f"{ms(row['p90_ms']):>9}{ms(row['p99_ms']):>9}{ms(row['max_ms']):>9}"
              f"{'-' if size is None else f'{size / 1024:.1f}':>9}")
    print("   (update latency: from sending a successful POST until each other client of "
          "the table has an answer past it; "
          f"{result['update_latency']['unseen_at_end']} not yet seen at the end)")
    print(f"   decisions: {result['decisions']} ({result['decisions_per_s']:.1f}/s); "
          f"seq advanced {result['seq_advanced']} ({result['seq_per_s']:.1f}/s); "
          f"stale 409s: {result['stale_409']}; games finished: "
          f"{result['games_finished']}/{config['tables']}")
    push = result.get("push") or {}
    if push.get("updates"):
        print(f"   pushed updates: {push['updates']}, {push['bytes_per_update']} bytes each; "
              f"server CPU per decision: {result['server_cpu_ms_per_decision']} ms")
    errors = result["errors"]
    print("   errors: " + (", ".join(f"{k}: {v}" for k, v in errors.items()) or "none"))
    srv = result["server_process"]
    print(f"   server: peak RSS {srv['peak_rss_mib']:.1f} MiB over {srv['processes']} "
          f"process{'es' if srv['processes'] != 1 else ''}"
          + (f" (largest {srv['peak_rss_mib_per_process_max']:.1f} MiB)"
             if srv["processes"] > 1 else "")
          + f", CPU {srv['cpu_s']:.1f} s ({100 * srv['cpu_share_of_a_core']:.0f}% of a core); "
          f"benchmark clients CPU {result['client_cpu_s']:.1f} s "
          f"({100 * result['client_cpu_share_of_a_core']:.0f}% of a core)")
    if result["client_crash"]:
        print(result["client_crash"], file=sys.stderr)
    if any(word in config["server_output"] for word in ("Traceback", "ERROR", "WARNING")):
        print("   the server said (its last lines):\n" + config["server_output"])


def title(result: dict[str, Any]) -> str:
    config = result["config"]
    return f"{config['server']}, seats {config['seats']}"


def print_comparison(results: list[dict[str, Any]]) -> None:
    def fig(result: dict[str, Any], *keys: str) -> Any:
        value: Any = result
        for key in keys:
            value = value[key]
        return value

    print("== before / after, same tables and clients (seats one: every client of a table "
          "plays seat 0, bots the others, as the old server; seats each: a client per seat)")
    rows = [("decisions/s (POSTs)", ("decisions_per_s",)),
            ("seq advanced/s", ("seq_per_s",)),
            ("POST p50 ms", ("requests", "POST action", "p50_ms")),
            ("POST p99 ms", ("requests", "POST action", "p99_ms")),
            ("update p50 ms", ("update_latency", "p50_ms")),
            ("update p99 ms", ("update_latency", "p99_ms")),
            ("stale 409s", ("stale_409",)),
            ("games finished", ("games_finished",)),
            ("play, s", ("elapsed_s",)),
            ("server peak RSS MiB", ("server_process", "peak_rss_mib")),
            ("server CPU s", ("server_process", "cpu_s"))]
    print(f"   {'':<22}" + "".join(f"{title(r):>20}" for r in results))
    for name, keys in rows:
        print(f"   {name:<22}" + "".join(f"{ms(fig(r, *keys)):>20}" for r in results))


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files(4 * args.tables * args.clients + 256)
    workdir = Path(tempfile.mkdtemp(prefix="tokaido-serve-load-"))
    load_before = os.getloadavg()
    runs: list[dict[str, Any]] = []
    shapes = [args.seats]
    if args.legacy:
        shapes = ["one", *(["each"] if args.seats == "each" else [])]
    try:
        if args.legacy:
            runs.append(await run_legacy(args, workdir))
            if not args.json:
                print_run(runs[-1])
        for shape in shapes:
            runs.append(await run_new(args, workdir, shape))
            if not args.json:
                print_run(runs[-1])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not args.json and len(runs) > 1:
        print_comparison(runs)
    return {"machine": {"python": f"{platform.python_implementation()} "
                                  f"{platform.python_version()}",
                        "cpus": os.cpu_count(), "load_average_before": load_before,
                        "load_average_after": os.getloadavg()},
            "seed": args.seed, "seconds": args.seconds, "max_requests": args.max_requests,
            "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=None,
                        help="tables (default 200; 20 with --legacy: one process each)")
    parser.add_argument("--clients", type=int, default=4, help="clients per table (4)")
    parser.add_argument("--players", type=int, default=4, help="players per table (4)")
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="the longest a run plays (60)")
    parser.add_argument("--wait", type=float, default=10.0,
                        help="a long poll's wait, seconds (10)")
    parser.add_argument("--max-requests", type=int, default=2_000_000,
                        help="the most requests a run sends (2,000,000)")
    parser.add_argument("--seed", type=int, default=1, help="the clients' choices' seed")
    parser.add_argument("--seats", choices=("each", "one"), default="each",
                        help="each: a client per seat, no bots (cycling if more clients "
                             "than seats, bots at seats without one); one: every client "
                             "plays seat 0, bots the others (the old server's shape)")
    parser.add_argument("--legacy", metavar="DIR",
                        help="first measure the old server of the git worktree DIR, then "
                             "the new one with --seats one (like for like), then (unless "
                             "--seats one) with --seats each")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs the servers (this one)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes on one database (more than 1 needs --db "
                             "postgresql://...); table n is played at process n mod N, "
                             "server CPU summed over them (1)")
    parser.add_argument("--db", metavar="URL",
                        help="the servers' database, e.g. postgresql://... (default: an "
                             "SQLite file of the run; a PostgreSQL one is not emptied)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a person thinks before a move, on average (drawn "
                             "from 0 to twice it by the client's seeded random; 0)")
    parser.add_argument("--transport", choices=("push", "poll"), default="push",
                        help="push: what the page speaks (updates, the push channel); "
                             "poll: whole documents and long polls, the old page's way")
    parser.add_argument("--pictures", action="store_true",
                        help="each client also fetches its seat's picture of each update "
                             "(what the page does while the server draws the board)")
    parser.add_argument("--fetch-scenes", action="store_true",
                        help="each client asks for the scene of each new step and of now "
                             "(GET scene), as the table page did before the updates "
                             "carried the scenes: the page's cost on the earlier server")
    parser.add_argument("--profile", metavar="DIR",
                        help="sample the server with py-spy during the run, into "
                             "DIR/serve-SEATS.txt (benchmarks/serve_profile.py sums it up)")
    args = parser.parse_args()
    if args.tables is None:
        args.tables = 20 if args.legacy else 200
    if not (args.tables > 0 and args.clients > 0 and 2 <= args.players <= 5
            and args.seconds > 0 and 1 <= args.wait <= 30 and args.max_requests > 0
            and args.think >= 0 and args.processes >= 1
            and (args.processes == 1 or (args.db or "").startswith("postgres"))):
        parser.error("--tables, --clients, --seconds, --max-requests must be positive, "
                     "--players from 2 to 5, --wait from 1 to 30, --processes from 1 "
                     "(more than 1 with --db postgresql://...)")
    if not args.json:
        print(f"{platform.python_implementation()} {platform.python_version()}, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; server and "
              f"clients on this machine (127.0.0.1); seed {args.seed}", flush=True)
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

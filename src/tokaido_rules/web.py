"""Play in the browser: ``tokaido serve``, a web server where people play tables of
Tokaido together, with bots and spectators (the ``web`` extra: Starlette and uvicorn).

The tables (:mod:`tokaido_rules.tables`) are kept in SQLite
(:mod:`tokaido_rules.store`): a restarted server resumes every game at its last seq.
The pages and the server speak the JSON wire format (:mod:`tokaido_rules.wire`):

- ``GET /api/tables``: the tables, their names, seats and who plays them;
  ``POST /api/tables`` with ``{"players": N, "plugins": [...], "options": {...},
  "bots": {"1": "greedy"}, "seat": 0, "invite": true}`` creates one and answers its
  id, its name and the host's token, which may hand any seat to a bot. Without
  ``seat`` nobody is seated, and the seats without a bot are open unless ``invite``
  (``true``, or a list of seats) makes them invited; with ``seat`` the answer holds
  that seat's ``token`` as well, and ``invites`` the secret of each invitation;
- ``POST /api/tables/ID/join`` with ``{"seat": N}``: take an open seat (an invited
  seat needs ``"invite": SECRET`` too); the answer holds the seat's secret token,
  shown once; ``GET /api/tables/ID/invites`` with the host's token: the invitations
  of the seats not joined yet;
- ``POST /api/tables/ID/rematch`` with a seat's token or the host's, once the game is
  over: the table of the rematch (made once), the same people with the seats moved on
  by one; each keeps their token. ``ID`` may be a table's name as well as its id;
- ``GET /api/tables/ID?since=SEQ&wait=S``: with ``Authorization: Bearer TOKEN``, the
  seat's view, picture and actions; without a token, the public view (a spectator's).
  With the log lines and the steps in words since ``SEQ``; with ``wait``, the answer
  waits up to ``S`` seconds for the game to pass ``SEQ`` (long polling);
- ``GET /api/tables/ID?since=SEQ&form=update`` and the push channel ``GET
  /api/tables/ID/events?since=SEQ``: updates, what is new since ``SEQ``, the scenes of
  the board among it as patches (the page draws them with ``GET /board.js``); a page
  that names its channel (``&stream=NAME``) and its moves alike is told each of its
  moves once, by the move's answer;
- ``GET /api/tables/ID/scene?seq=SEQ``: the scene of the seat's picture (the public
  one without a token) at ``SEQ`` (default: now), as JSON
  (:func:`~tokaido_rules.render.scene_json`), for a page that missed an update's
  patch; 404 for a seq whose game is no longer kept;
- ``POST /api/tables/ID/action`` with ``{"action": ..., "expected_seq": SEQ}`` and
  the seat's token: play it, then the bots up to a person's decision;
- ``POST /api/tables/ID/seats/N/bot`` with ``{"bot": NAME}`` and the seat's (or the
  host's) token: a bot plays the seat from now on;
- ``GET /api/tables/ID/log``: the seat's copy of the log (the public copy without a
  token), the full log once the game is over; ``GET /api/tables/ID/decisions``: who
  played each decision;
- ``DELETE /api/tables/ID`` with the host's token: delete the table;
- ``POST /api/tables/ID/takeback`` with the seat's token: take back its last decision
  (done at once, or asked of the others when the table's ``takeback`` rule is
  ``"all"``); ``POST /api/tables/ID/takeback/answer`` with ``{"agree": true|false}`` and
  another seat's token answers; ``GET /api/tables/ID/takebacks``: those done;
- ``POST /api/tables/ID/leave`` and ``POST /api/tables/ID/return`` with the seat's
  token: a stand-in bot plays the seat until its person returns;
  ``POST /api/tables/ID/stand-in`` with ``{"bot": NAME}`` and the host's token names
  the stand-in bot;
- ``POST /api/tables/ID/hint`` with the seat's token, at its own decision: the analysis
  of that decision from the seat's view (:meth:`~tokaido_rules.tables.Table.hint`;
  403 when the table's ``hints`` rule is off, 409 when the decision is not the seat's);
  ``POST /api/tables/ID/hints`` with ``{"on": true|false}`` and the host's token turns
  the table's hints on or off.

``GET /api/tables`` also lists the stored tables that are not served (``refused``,
each with its ``reason``: a stored log that does not verify). A write the database
refuses (a full disk, a database held past the timeout) is answered 503 with a one-line
``{"error": ...}``, and the table is as it was: send the request again.

Nothing a seat may not see leaves the server: every answer is made from that seat's
:class:`~tokaido_rules.View` (or the public view) and its copy of the log. Bad input is a
4xx answer with a one-line ``{"error": ...}``: a body larger than :data:`MAX_BODY` is
refused before it is read, slow or idle connections are closed, and the number of open
connections is bounded, in all and from one address, and so are the tables an address
creates in a minute. The server binds to 127.0.0.1 unless told otherwise.

Beside the requests, the server keeps its tables alive (:class:`Server`): from its start
on, and every :data:`~tokaido_rules.tables.KEEP_SECONDS` after, the bots play every
decision at hand that is a bot's (a restart, or a write that failed, left it unplayed),
finished and abandoned tables expire, and tables deleted from the database by
``tokaido tables delete`` are dropped. A clean stop (Ctrl-C, SIGTERM) answers every
waiting request at once (503, with ``"stopping": true``: the pages say the server is
gone, and come back with it), lets the bots play, and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import hashlib
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import (
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from importlib.resources import files
from typing import Any, Protocol, TypeVar

from .bots import BOTS
from .errors import TokaidoError
from .ruleset import installed_plugins
from .store import StoreError
from .tables import KEEP_SECONDS, Lobby, Table, TableError

__all__ = ["create_app", "serve", "make_server", "Server", "bind", "ServeError",
           "LOCAL_HOSTS", "MAX_BODY", "MAX_CONNECTIONS", "HEADER_SECONDS", "BODY_SECONDS",
           "IDLE_SECONDS", "MAX_WAIT", "MAX_PER_ADDRESS", "CREATES_PER_MINUTE",
           "EXPIRE_FINISHED_DAYS", "EXPIRE_ABANDONED_DAYS", "STOP_SECONDS",
           "reachable_hosts", "WILDCARD_HOSTS"]

MAX_BODY = 64_000
"""The largest request body accepted, in bytes (an action is a few dozen): a larger
``Content-Length`` is refused before anything is read, and a body that grows past it
while it is read is cut off (413)."""

MAX_CONNECTIONS = 512
"""The most connections open at once; one more is answered 503 and closed."""

MAX_PER_ADDRESS = 64
"""The most connections open at once from one client address; one more is answered 429
and closed. A page keeps one or two (a long poll and a request), and a browser opens at
most six to a server: a page per seat and a spectator's on one machine stay far below.
Behind a proxy every client has the proxy's address: raise it there."""

CREATES_PER_MINUTE = 20
"""The most tables one client address creates in a minute (sliding); one more is
answered 429. A host setting up an evening's tables stays below."""

EXPIRE_FINISHED_DAYS = 7.0
"""Days after its last action (or its seats' last request) that a finished table is
deleted."""

EXPIRE_ABANDONED_DAYS = 3.0
"""Days with no action and no request of a seat after which an unfinished table is
deleted; a table where a seat's page is connected never expires."""

HEADER_SECONDS = 10.0
"""How long a connection may take to send a request's headers, from when it opens or
its last answer was sent; then it is closed."""

BODY_SECONDS = 10.0
"""How long a request may take to send its body (408 after)."""

IDLE_SECONDS = 5
"""How long a kept-alive connection may stay idle between requests."""

STOP_SECONDS = 5
"""At a stop, the longest the server waits for the requests under way (the waiting
ones are answered at once) before it cancels them."""

KEEP_ALIVE_SECONDS = 15.0
"""How often the push channel says it is still there while the table does not change
(a comment line), so that a connection gone is noticed."""

GZIP_FROM = 14_000
"""Answers this long or longer (bytes) are gzipped for a client that accepts it (a
page's first update, a document with its picture). A shorter one (a move's answer, an
update: 1 to 8 kB) goes out whole in TCP's first flight (an initial window of ten
segments, about 14.6 kB), in the same round trip as compressed, and compressing it
cost the server more than the rest of its answer (zlib's set-up: about 0.4 million
instructions an answer, whatever its length); the push channel's updates were never
compressed."""

GZIP_LEVEL = 5
"""How hard answers are compressed (the pages and pictures are compressed once)."""

MAX_TABLES_PICTURED = 64
"""Pictures gzipped and kept for reuse: four times this many (the latest)."""

MAX_WAIT = 30.0
"""The longest a long-polling request waits for the game to move on."""

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names a request may give as its ``Host`` by default: a page of another site that
rebinds its own name to 127.0.0.1 is refused (400)."""


EVENING_FIELDS = ("takeback", "clock", "stand_in", "away_after", "hints")
"""The fields of ``POST /api/tables`` for take-backs, clocks, leaving and hints
(:class:`~tokaido_rules.store.TableRules`)."""


class ServeError(TokaidoError):
    """The server cannot start: the address is taken or cannot be used."""


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Asking(Protocol):
    """What the handlers of play read of a request: Starlette's ``Request``, or the
    server's own :class:`_Asked` (a request of play answered past the ASGI layers)."""

    @property
    def scope(self) -> MutableMapping[str, Any]: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def query_params(self) -> Mapping[str, str]: ...

    @property
    def path_params(self) -> dict[str, Any]: ...

    @property
    def receive(self) -> Callable[[], Awaitable[Any]]: ...


_R = TypeVar("_R")


class _Asked:
    """A request of play as uvicorn's protocol parsed it (its cycle's scope), read by
    the handlers as they read Starlette's ``Request``: its headers (names in lower
    case, the first of a name) and query (the last of a name, as Starlette's) made
    into dicts once, when first read."""

    __slots__ = ("_headers", "_query", "path_params", "receive", "scope")

    def __init__(self, cycle: Any, table: str) -> None:
        self.scope: MutableMapping[str, Any] = cycle.scope
        self.receive: Callable[[], Awaitable[Any]] = cycle.receive
        self.path_params: dict[str, Any] = {"table": table}
        self._headers: dict[str, str] | None = None
        self._query: dict[str, str] | None = None

    @property
    def headers(self) -> dict[str, str]:
        found = self._headers
        if found is None:
            found = self._headers = {}
            for name, value in self.scope["headers"]:
                key = name.decode("latin-1")
                if key not in found:
                    found[key] = value.decode("latin-1")
        return found

    @property
    def query_params(self) -> dict[str, str]:
        found = self._query
        if found is None:
            text = self.scope["query_string"].decode("latin-1")
            if "%" in text or "+" in text:  # escaped: as Starlette reads it
                from urllib.parse import parse_qsl
                found = dict(parse_qsl(text, keep_blank_values=True))
            else:
                found = {}
                for part in text.split("&"):
                    if part:
                        name, _, value = part.partition("=")
                        found[name] = value
            self._query = found
        return found


_STATUS_LINES: dict[int, bytes] = {}


def _status_line(status: int) -> bytes:
    """``HTTP/1.1 STATUS PHRASE``, as uvicorn writes it."""
    line = _STATUS_LINES.get(status)
    if line is None:
        import http

        try:
            phrase = http.HTTPStatus(status).phrase.encode()
        except ValueError:
            phrase = b""
        line = _STATUS_LINES[status] = b"HTTP/1.1 %d %b\r\n" % (status, phrase)
    return line


def _head(status: int, cycle: Any, headers: list[tuple[bytes, bytes]],
          chunked: bool) -> bytes:
    """An answer's head written straight to its connection, the bytes uvicorn's
    ``send`` writes: the status line, uvicorn's own headers (the date, the server),
    the answer's (in lower case already), ``connection: close`` when the connection
    ends with it, ``transfer-encoding: chunked`` for a stream (no length)."""
    parts = [_status_line(status)]
    for name, value in cycle.default_headers:
        parts += (name, b": ", value, b"\r\n")
    for name, value in headers:
        parts += (name, b": ", value, b"\r\n")
    if not cycle.keep_alive:
        parts.append(b"connection: close\r\n")
    if chunked:
        parts.append(b"transfer-encoding: chunked\r\n")
    parts.append(b"\r\n")
    return b"".join(parts)


def _ended(cycle: Any) -> None:
    """The answer on ``cycle`` is sent whole: what uvicorn's ``send`` does then (the
    connection closed unless kept alive, the next request let in)."""
    cycle.response_complete = True
    cycle.message_event.set()
    if not cycle.keep_alive:
        cycle.transport.close()
    cycle.on_response()


_TEXT_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""What :func:`_checked_text` writes a body with (made once: ``json.dumps`` with an
option makes an encoder per call)."""


_ANSWER_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False,
                                   separators=(",", ":"))
"""What an error's answer is written with (the bytes of Starlette's ``JSONResponse``)."""


def _checked_text(value: Any) -> None:
    """Refuse strings that are not text (a lone surrogate cannot be written as UTF-8)."""
    try:
        _TEXT_ENCODER.encode(value).encode("utf-8")
    except UnicodeEncodeError:
        raise _BadRequest(400, "the body holds a string that is not text "
                          "(a lone surrogate)") from None


def _page(name: str) -> str:
    return files("tokaido_rules").joinpath("pages", name).read_text(encoding="utf-8")


def create_app(lobby: Lobby, *, animate_ms: int = 450,
               hosts: Sequence[str] = LOCAL_HOSTS, max_body: int = MAX_BODY,
               creates_per_minute: int = CREATES_PER_MINUTE,
               public_url: str | None = None) -> Any:
    """The Starlette application serving ``lobby``: the pages and the API above.
    ``animate_ms``: how long the page shows each step of the other seats' turns;
    ``hosts``: the ``Host`` names accepted (``"*"``: any); ``creates_per_minute``: the
    most tables one client address creates in a minute (0: no limit); ``public_url``:
    where people reach the server (behind a reverse proxy), which the invitations'
    links start with (default: the address the page was opened at)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    waiters: dict[str, list[asyncio.Future[None]]] = {}
    channels: dict[str, set[_Channel]] = {}  # by table: its open push channels
    waiting = threading.Lock()
    stopping = threading.Event()

    created: dict[str, deque[float]] = {}  # by client address: when it created tables
    pictures: dict[tuple[str, int | None, int, int], tuple[bytes, bytes]] = {}

    def changed(table: Table, told: bool = False) -> None:
        """Note the activity and wake the requests waiting on ``table`` (called in
        whichever thread changed it: each future is resolved in its own loop);
        ``told``: called in the loop once a mover's answer is sent (no table's lock
        held), where the push channels tell the change at once."""
        table.touch()
        with waiting:
            futures = waiters.pop(table.id, [])
            pushed = list(channels.get(table.id, ()))
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # a thread of the pool, or the keeper's
            running = None
        for future in futures:
            loop = future.get_loop()
            if loop is running:  # in the loop: no wake-up through its self-pipe
                _resolve(future)
                continue
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(_resolve, future)
        for channel in pushed:
            if channel.loop is running:
                if told:
                    channel.wake_now()
                else:  # perhaps inside a change (its table's lock held): its task
                    channel.wake()
                continue
            with contextlib.suppress(RuntimeError):  # run where no lock is held
                channel.loop.call_soon_threadsafe(channel.wake_now)

    lobby.on_change = changed

    def stop_waiting() -> int:
        """The server stops: answer every waiting request now (503, ``stopping``), and
        any request from now on; how many were waiting."""
        stopping.set()
        with waiting:
            futures = [f for some in waiters.values() for f in some]
            waiters.clear()
            pushed = [c for some in channels.values() for c in some]
        for future in futures:
            with contextlib.suppress(RuntimeError):
                future.get_loop().call_soon_threadsafe(_resolve, future)
        for channel in pushed:
            with contextlib.suppress(RuntimeError):
                channel.loop.call_soon_threadsafe(channel.wake)
        return len(futures) + len(pushed)

    class _Pushed(Response):
        """A push channel's answer (server-sent events): its head, then each event as
        ``push`` sends it, until ``push`` ends or the client leaves (noticed by one
        task reading the request for the channel's life). Starlette's
        ``StreamingResponse`` ran it in a task group, each event through an async
        generator and a wrapper; the head and events are the same."""

        media_type = "text/event-stream"

        def __init__(self, push: Callable[[_Channel, Callable[[bytes], Awaitable[None]]],
                                          Awaitable[None]],
                     opened: Callable[[_Channel], None],
                     closed: Callable[[_Channel], None]) -> None:
            self.status_code = 200
            self.background = None
            self.push = push
            self.opened = opened
            self.closed = closed
            self.init_headers({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            channel = _Channel(asyncio.get_running_loop())
            self.opened(channel)  # before the table is first looked at: no change missed

            async def listen() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                channel.close()

            async def event(chunk: bytes) -> None:
                await send({"type": "http.response.body", "body": chunk,
                            "more_body": True})

            listening = asyncio.ensure_future(listen())
            try:
                await send({"type": "http.response.start", "status": 200,
                            "headers": self.raw_headers})
                await self.push(channel, event)
                if not channel.left:
                    await send({"type": "http.response.body", "body": b"",
                                "more_body": False})
            finally:
                self.closed(channel)
                channel.close()
                listening.cancel()

        async def put(self, cycle: Any) -> None:
            """The same channel written straight to the connection of uvicorn's
            ``cycle`` (a request of play answered past the ASGI layers): each event a
            chunk of the same bytes, written at once, as uvicorn's ``send`` would
            (waiting while the connection's writing is paused; nothing once the
            client has gone)."""
            channel = _Channel(asyncio.get_running_loop())
            self.opened(channel)  # before the table is first looked at: no change missed
            flow = cycle.flow
            write = cycle.transport.write

            async def listen() -> None:
                while (await cycle.receive())["type"] != "http.disconnect":
                    pass
                channel.close()

            async def event(chunk: bytes) -> None:
                if flow.write_paused and not cycle.disconnected:
                    await flow.drain()
                if not cycle.disconnected:
                    write(b"%x\r\n%b\r\n" % (len(chunk), chunk))

            def ready() -> bool:
                return not (flow.write_paused or cycle.disconnected)

            def now(chunk: bytes) -> None:
                write(b"%x\r\n%b\r\n" % (len(chunk), chunk))

            listening = asyncio.ensure_future(listen())
            try:
                if flow.write_paused and not cycle.disconnected:
                    await flow.drain()
                if cycle.disconnected:
                    return
                cycle.response_started = True
                cycle.waiting_for_100_continue = False
                cycle.chunked_encoding = True
                write(_head(200, cycle, self.raw_headers, True))
                channel.ready, channel.write = ready, now
                await self.push(channel, event)
                if not channel.left:
                    if flow.write_paused and not cycle.disconnected:
                        await flow.drain()
                    if not cycle.disconnected:
                        write(b"0\r\n\r\n")
                        _ended(cycle)
            finally:
                self.closed(channel)
                channel.close()
                listening.cancel()

    def error(status: int, message: str) -> Response:
        # 503: nothing changed, try again (the database is back within seconds, or
        # another process answers): Retry-After says when
        # (Starlette's JSONResponse's bytes and head, made as the other answers are:
        # a refused move, a stale one, goes out in one write too)
        return _Answer(_ANSWER_ENCODER.encode({"error": message}).encode(), status,
                       retry_head if status == 503 else [], b"application/json")

    def api(handler: Callable[[_R], Awaitable[Response]]
            ) -> Callable[[_R], Coroutine[Any, Any, Response]]:
        async def run(request: _R) -> Response:
            try:
                return await handler(request)
            except (TableError, _BadRequest) as exc:
                return error(exc.status, str(exc))
            except StoreError as exc:  # the database failed: nothing changed, retry
                return error(503, f"the database failed; try again: {exc}")
        return run

    def token_of(request: _Asking) -> str | None:
        raw = request.headers.get("authorization")
        if raw is None:
            return None
        kind, _, token = raw.partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            raise TableError(403, "the token goes in a header: Authorization: Bearer TOKEN")
        return token.strip()

    def table_of(request: _Asking) -> Table:
        return lobby.get(request.path_params["table"])

    def seat_of(request: _Asking, table: Table) -> int:
        seat = table.seat_for(token_of(request))
        if seat is None:
            raise TableError(403, "this needs the seat's token (Authorization: Bearer TOKEN)")
        return seat

    def body_headed(request: _Asking) -> None:
        """A body's head checked before it is read: JSON, and not too large."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise _BadRequest(415, "send application/json")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body):
            raise _BadRequest(413, f"request too large (at most {max_body} bytes)")

    def body_read(raw: bytes) -> Any:
        """A whole body's JSON, refused unless it is JSON text."""
        if len(raw) > max_body:
            raise _BadRequest(413, f"request too large (at most {max_body} bytes)")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise _BadRequest(400, "the body is not JSON") from None
        if not raw.isascii() or b"\\u" in raw:  # else no lone surrogate can be in it
            _checked_text(data)
        return data

    async def body_of(request: _Asking) -> Any:
        body_headed(request)
        chunks: list[bytes] = []
        size = 0

        async def read() -> None:
            nonlocal size
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    raise ClientDisconnect
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > max_body:
                    raise _BadRequest(413, f"request too large (at most {max_body} bytes)")
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return

        try:
            if request.scope.get(WHOLE_BODY):  # read already: no timer
                await read()
            else:
                async with asyncio.timeout(BODY_SECONDS):  # no task of its own
                    await read()
        except TimeoutError:
            raise _BadRequest(408, "the body came too slowly") from None
        except ClientDisconnect:  # nobody to answer: the move was never sent whole
            raise _BadRequest(400, "the client went away before its body came") from None
        return body_read(b"".join(chunks))

    def number(request: _Asking, name: str, most: float) -> float | None:
        raw = request.query_params.get(name)
        if raw is None:
            return None
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 15):
            raise _BadRequest(400, f"{name} must be a whole number")
        return min(float(raw), most)

    class _Answer(Response):
        """A whole answer, its head's lines made of parts made once (Starlette's
        ``Response`` makes each from a dict of strings); ``after``: called once it is
        sent (the other clients of a table woken after the player who moved)."""

        def __init__(self, body: bytes, status: int, head: list[tuple[bytes, bytes]],
                     media: bytes, after: Callable[[], None] | None = None) -> None:
            self.status_code = status
            self.body = body
            self.background = None
            self.after = after
            self.raw_headers = [*head, (b"content-length", b"%d" % len(body)),
                                (b"content-type", media)]

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            joined = scope.get(JOINED)
            if joined is not None:  # its head and body in one write
                joined.hold()
            await send({"type": "http.response.start", "status": self.status_code,
                        "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": self.body})
            if self.after is not None:
                self.after()

        async def put(self, cycle: Any) -> None:
            """The same answer written straight to the connection of uvicorn's
            ``cycle`` (a request of play answered past the ASGI layers): its head and
            body in one write, the bytes uvicorn's ``send`` would write."""
            flow = cycle.flow
            if flow.write_paused and not cycle.disconnected:
                await flow.drain()
            self.put_now(cycle)

        def put_now(self, cycle: Any) -> None:
            """:meth:`put` on a connection whose writing is not paused."""
            if not cycle.disconnected:
                cycle.response_started = True
                cycle.waiting_for_100_continue = False
                cycle.transport.write(_head(self.status_code, cycle, self.raw_headers,
                                            False) + self.body)
                _ended(cycle)
            if self.after is not None:
                self.after()

    retry_head = [(b"retry-after", b"1")]
    plain_head = [(b"cache-control", b"no-store"), (b"vary", b"Accept-Encoding")]
    zipped_head = [*plain_head, (b"content-encoding", b"gzip")]
    media_types: dict[str, bytes] = {}

    def zipped(request: _Asking, body: bytes, media: str, status: int = 200,
               packed: bytes | None = None,
               after: Callable[[], None] | None = None) -> Response:
        """An answer, gzipped where it pays: a body of :data:`GZIP_FROM` bytes or more,
        to a client that accepts gzip (``packed``: the body gzipped already)."""
        head = plain_head
        if len(body) >= GZIP_FROM and "gzip" in request.headers.get("accept-encoding", ""):
            body = packed if packed is not None else gzip.compress(body, GZIP_LEVEL)
            head = zipped_head
        kind = media_types.get(media)
        if kind is None:
            kind = media_types[media] = media.encode("latin-1")
        return _Answer(body, status, head, kind, after)

    def json_text(request: _Asking, text: str, status: int = 200,
                  after: Callable[[], None] | None = None) -> Response:
        return zipped(request, text.encode(), "application/json", status, after=after)

    # the bots a seat may be given: the registry's names (tokaido bots), not a list kept
    # in the page, so that every installed bot and the ISMCTS ladder are offered
    lobby_page = _page("lobby.html").replace(
        "__BOTS__", json.dumps(list(BOTS)).replace("<", "\\u003c")).encode()
    board_script = _page("board.js")
    board_tag = hashlib.sha256(board_script.encode()).hexdigest()[:16]
    table_page = (_page("table.html").replace("__ANIMATE__", str(max(0, int(animate_ms))))
                  .replace("__BOARD_JS__", f"/board.js?v={board_tag}")).encode()
    packed_pages = {page: gzip.compress(page, 9) for page in (lobby_page, table_page)}

    async def index(request: Request) -> Response:
        return zipped(request, lobby_page, "text/html; charset=utf-8",
                      packed=packed_pages[lobby_page])

    async def table_html(request: Request) -> Response:
        table_of(request)
        return zipped(request, table_page, "text/html; charset=utf-8",
                      packed=packed_pages[table_page])

    async def board(request: Request) -> Response:
        """The board's drawing (``board.js``): the page names it by its content's hash,
        so that address is cached for good; any other is checked again each time."""
        tag = f'"{board_tag}"'
        cache = ("public, max-age=31536000, immutable"
                 if request.query_params.get("v") == board_tag else "no-cache")
        headers = {"Cache-Control": cache, "ETag": tag}
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers=headers)
        return Response(board_script, media_type="text/javascript", headers=headers)

    @api
    async def scene(request: Request) -> Response:
        table = table_of(request)
        seat = table.seat_for(token_of(request))
        seq = number(request, "seq", 1e15)
        text = await run_in_threadpool(table.scene_json, seat,
                                       None if seq is None else int(seq))
        if text is None:
            raise TableError(404, "no picture of that seq is kept: ask for a later one")
        return json_text(request, text)

    @api
    async def list_tables(request: Request) -> Response:
        return JSONResponse({"tables": [t.summary() for t in lobby.tables()],
                             "refused": [{"table": i, "reason": why}
                                         for i, why in lobby.refused.items()],
                             "plugins": sorted(installed_plugins())})

    def may_create(address: str) -> None:
        """Count a table created from ``address``, or refuse it (429): at most
        ``creates_per_minute`` in the last 60 seconds."""
        if creates_per_minute <= 0:
            return
        now = time.monotonic()
        recent = created.setdefault(address, deque())
        while recent and now - recent[0] >= 60:
            recent.popleft()
        if len(recent) >= creates_per_minute:
            raise _BadRequest(429, f"too many new tables from your address: at most "
                              f"{creates_per_minute} a minute")
        recent.append(now)
        for other in [a for a, times in created.items() if not times]:
            del created[other]

    @api
    async def create_table(request: Request) -> Response:
        body = await body_of(request)
        if not isinstance(body, dict) or not set(body) <= {"players", "plugins", "options",
                                                           "bots", "seat", "invite",
                                                           *EVENING_FIELDS}:
            raise _BadRequest(400, 'the body is {"players": N, "plugins": [...], '
                              '"options": {...}, "bots": {"SEAT": "BOT"}, "seat": N, '
                              '"invite": true, "takeback": "none", "clock": S, '
                              '"stand_in": "BOT", "away_after": S, "hints": true}')
        may_create(request.client.host if request.client else "")
        evening = {k: body[k] for k in EVENING_FIELDS if k in body}
        made = await run_in_threadpool(functools.partial(
            lobby.open_table, body.get("players"), body.get("plugins", ["base"]),
            body.get("options"), body.get("bots"), seat=body.get("seat"),
            invite=body.get("invite", ()), **evening))
        return JSONResponse({"table": made.table.id, "host_token": made.host_token,
                             **made.table.summary(), "seat": made.seat,
                             "token": made.token,
                             "invites": {str(s): v for s, v in made.invites.items()}},
                            status_code=201)

    @api
    async def join(request: Request) -> Response:
        table = table_of(request)
        body = await body_of(request)
        if not isinstance(body, dict) or not {"seat"} <= set(body) <= {"seat", "invite"}:
            raise _BadRequest(400, 'the body is {"seat": N}, with "invite": SECRET for an '
                              'invited seat')
        token = await run_in_threadpool(table.join, body["seat"], body.get("invite"))
        return JSONResponse({"table": table.id, "seat": body["seat"], "token": token},
                            status_code=201)

    @contextlib.contextmanager
    def connected(table: Table, seat: int | None) -> Iterator[None]:
        """A seat's request under way: its table is active and does not expire."""
        if seat is None:
            yield
            return
        table.touch()
        table.connected += 1
        with contextlib.suppress(TableError):  # a seat's return that could not be stored
            table.page(seat, 1)
        try:
            yield
        finally:
            table.connected -= 1
            with contextlib.suppress(TableError):
                table.page(seat, -1)
            table.touch()

    def stream_of(request: _Asking) -> str | None:
        """The page's name for its push channel (``stream``: 1 to 64 letters, digits,
        ``-`` or ``_``), which its moves name too: a move's answer is not sent again on
        that channel; ``None`` when not given."""
        name = request.query_params.get("stream")
        if name is None:
            return None
        if not (0 < len(name) <= 64 and name.isascii()
                and name.replace("-", "").replace("_", "").isalnum()):
            raise _BadRequest(400, "stream must be 1 to 64 letters, digits, - or _")
        return name

    def form_of(request: _Asking) -> bool:
        """Whether the client asks for updates (``form=update``), else documents."""
        form = request.query_params.get("form", "document")
        if form not in ("document", "update"):
            raise _BadRequest(400, 'form must be "document" or "update"')
        return form == "update"

    async def made(call: Callable[[], str], table: Table) -> str:
        """``call`` (an answer of ``table``): at once in the event loop when the table
        is free (most answers are made of parts made once per version), else in a
        thread, behind the move that holds it."""
        if table._lock.acquire(blocking=False):
            try:
                return call()
            finally:
                table._lock.release()
        return await run_in_threadpool(call)

    @api
    async def document(request: _Asking) -> Response:
        table = table_of(request)
        seat = table.seat_for(token_of(request))
        since = number(request, "since", 1e15)
        wait = number(request, "wait", MAX_WAIT)
        known = number(request, "takebacks", 1e15)
        update = form_of(request)
        with connected(table, seat):
            return await answer(request, table, seat, since, wait,
                                None if known is None else int(known), update)

    def same(table: Table, since: float, known: int | None) -> bool:
        """Whether a client at ``since`` that knows ``known`` take-backs has the table
        as it is (else, a take-back since, it is answered at once)."""
        return table.game.state.seq == since and (known is None
                                                  or known == len(table.takebacks))

    def gone() -> Response:
        return _Answer(b'{"error":"the server is stopping","stopping":true}', 503,
                       [(b"cache-control", b"no-store")], b"application/json")

    async def until_changed(table: Table, still: Callable[[], bool], wait: float) -> None:
        """Wait up to ``wait`` seconds while ``still()`` holds (the table as the client
        knows it), woken by the table's changes and by the server's stop."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with waiting:
            waiters.setdefault(table.id, []).append(future)
        try:
            if still() and not stopping.is_set():  # not moved on meanwhile
                # the wait's end resolves the future as a change does: a timer, not a
                # timeout context (no task cancelled and uncancelled at every wait)
                timer = loop.call_later(wait, _resolve, future)
                try:
                    await future
                finally:
                    timer.cancel()
        finally:
            with waiting:
                left = waiters.get(table.id, [])
                if future in left:
                    left.remove(future)

    async def answer(request: _Asking, table: Table, seat: int | None,
                     since: float | None, wait: float | None, known: int | None = None,
                     update: bool = False) -> Response:
        if stopping.is_set():
            return gone()
        if wait and since is not None and same(table, since, known):
            await until_changed(table, lambda: same(table, since, known), wait)
            if stopping.is_set():
                return gone()
        at = None if since is None else int(since)
        if update:
            return json_text(request, await made(
                functools.partial(table.update, seat, at or 0, known), table))
        return json_text(request, await made(
            functools.partial(table.document, seat, at, known), table))

    def answered(table: Table, seat: int, body: Any, update: bool, stream: str | None
                 ) -> str:
        """The answer of a move: the mover's update (or document) at the table now."""
        since = body["expected_seq"]
        if not update:
            return table.document(seat, since)
        text = table.update(seat, since)
        if stream is not None:  # its page's push channel need not send it again
            table.answered(seat, stream)
        return text

    def moved_here(table: Table, seat: int, body: Any, update: bool, stream: str | None
                   ) -> tuple[str | None, bool, bool]:
        """The person's move in the event loop when the table is free (a move, its
        stored lines and its answer take about a millisecond: a hand-off to a thread
        and back costs a good part of that): (its answer, ``None`` if the bots play
        next or it was not played here; whether the table changed; whether it was
        played). The bots, who may think long, and a table busy with another move, are
        left to a thread. On a shared store the move and the bots' moves after it are
        one change, which may wait on the database's row lock: in a thread as well."""
        text: str | None = None
        moved = acted = False
        if table.stalled is None and not table.on_shared_store \
                and table._lock.acquire(blocking=False):
            try:
                with table.holding() as told:
                    table.act(seat, body, bots=False)
                    acted = True
                    if not table.waits_on_bot:
                        text = answered(table, seat, body, update, stream)
                moved = told[0]
            finally:
                table._lock.release()
        return text, moved, acted

    async def moved_there(request: _Asking, table: Table, seat: int, body: Any,
                          update: bool, stream: str | None, moved: bool,
                          acted: bool) -> Response:
        """In a thread: the move (unless ``acted``), the bots after it, and the
        answer."""
        def play() -> tuple[str, bool]:
            with table.holding() as told:
                if acted:
                    table.play_bots()
                else:
                    table.act(seat, body)
                text = answered(table, seat, body, update, stream)
            return text, told[0]

        text, more = await run_in_threadpool(play)
        return move_answer(request, table, text, moved or more)

    def move_answer(request: _Asking, table: Table, text: str, moved: bool) -> Response:
        # the others are woken once this answer is sent
        return json_text(request, text,
                         after=functools.partial(changed, table, True) if moved else None)

    @api
    async def action(request: _Asking) -> Response:
        table = table_of(request)
        seat = seat_of(request, table)
        update = form_of(request)
        stream = stream_of(request)
        body = await body_of(request)
        text, moved, acted = moved_here(table, seat, body, update, stream)
        if text is None:
            return await moved_there(request, table, seat, body, update, stream, moved,
                                     acted)
        return move_answer(request, table, text, moved)

    def action_at_once(request: _Asking, raw: bytes | None, late: bool = False
                       ) -> Response | Coroutine[Any, Any, Response] | None:
        """:func:`action` of a body come whole, in the step that read it (no task):
        the answer, or what is left to do in a task (the move, or the bots after it,
        in a thread). The same checks in the same order, the same errors. ``raw``
        ``None``: its body not come yet: its checks before the body (a refusal, or
        ``None`` to wait for it); ``late``: it did not come in time (408)."""
        try:
            table = table_of(request)
            seat = seat_of(request, table)
            update = form_of(request)
            stream = stream_of(request)
            body_headed(request)
            if raw is None:
                if late:
                    raise _BadRequest(408, "the body came too slowly")
                return None
            body = body_read(raw)
            text, moved, acted = moved_here(table, seat, body, update, stream)
        except (TableError, _BadRequest) as exc:
            return error(exc.status, str(exc))
        except StoreError as exc:  # the database failed: nothing changed, retry
            return error(503, f"the database failed; try again: {exc}")
        if text is None:
            return api(functools.partial(moved_there, table=table, seat=seat, body=body,
                                         update=update, stream=stream, moved=moved,
                                         acted=acted))(request)
        return move_answer(request, table, text, moved)

    @api
    async def events(request: _Asking) -> Response:
        """The push channel: a stream of server-sent events, one update (``form``
        ``"update"``) each time the table changes, from the client's ``since`` on
        (but the change a move of this page, named by ``stream``, was answered with);
        a comment every :data:`KEEP_ALIVE_SECONDS` while nothing happens, and a
        ``stopping`` event when the server stops (the stream then ends)."""
        table = table_of(request)
        seat = table.seat_for(token_of(request))
        since = number(request, "since", 1e15)
        known = number(request, "takebacks", 1e15)
        name = stream_of(request)
        if stopping.is_set():
            return gone()

        async def push(channel: _Channel,
                       send: Callable[[bytes], Awaitable[None]]) -> None:
            """The channel's events until the server stops, the table goes, or the
            client leaves: waits for the table's changes with one future per wait
            (woken by :func:`changed`) and one keep-alive timer per channel."""
            at = int(since or 0)
            story = None if known is None else int(known)
            told: tuple[int, int, int] | None = None
            said: dict[str, str] = {}  # each key as this stream last sent it
            loop = channel.loop

            def now() -> tuple[int, int, int]:
                return table.game.state.seq, len(table.takebacks), table.version

            def step() -> bool:
                """What the loop below does for a change, done in the caller's step
                while the channel waits (its future pending): the update made at once
                if the table is free, written at once if the connection takes it;
                False (nothing done) for anything else (a stop, the table gone, busy,
                the connection paused, a fault), which the channel's task does."""
                nonlocal told, at, story
                ready, write = channel.ready, channel.write
                if ready is None or write is None or not ready() or stopping.is_set() \
                        or table.gone or channel.left or channel.due:
                    return False
                mark = now()
                if mark == told:
                    return True
                if told is not None and table.was_answered(seat, name, mark):
                    told, at, story = mark, mark[0], mark[1]
                    return True
                if not table._lock.acquire(blocking=False):
                    return False
                try:
                    text = table.update(seat, at, story, said)
                except Exception:  # the channel's task meets it again, and ends
                    return False
                finally:
                    table._lock.release()
                told, at, story = mark, mark[0], mark[1]
                write(b"data: " + text.encode() + b"\n\n")
                channel.sent = loop.time()
                return True

            channel.step = step
            with connected(table, seat):
                while not channel.left:
                    mark = now()
                    if stopping.is_set() or table.gone:
                        word = "stopping" if stopping.is_set() else "gone"
                        await send(f'event: {word}\ndata: {{"{word}":true}}\n\n'.encode())
                        return
                    if told is not None and mark != told \
                            and table.was_answered(seat, name, mark):
                        # the page's own move's answer told it this: the next change
                        # is sent from there (what the channel last sent is unchanged;
                        # a channel's first update is always sent, whole)
                        told, at, story = mark, mark[0], mark[1]
                        continue
                    if mark != told:
                        text = await made(functools.partial(table.update, seat, at, story,
                                                            said), table)
                        told, at, story = mark, mark[0], mark[1]
                        await send(b"data: " + text.encode() + b"\n\n")
                        channel.sent = loop.time()
                        continue
                    if not channel.due:  # (a comment falls due while it was sending)
                        future = channel.future = loop.create_future()
                        if now() == told and not stopping.is_set() and not channel.left:
                            await future  # not moved on meanwhile
                        channel.future = None
                    if channel.due:  # the keep-alive timer woke it
                        channel.due = False
                        if now() == told and not stopping.is_set() and not channel.left:
                            await send(b": still here\n\n")
                            channel.sent = loop.time()

        def opened(channel: _Channel) -> None:
            with waiting:
                channels.setdefault(table.id, set()).add(channel)

        def closed(channel: _Channel) -> None:
            with waiting:
                some = channels.get(table.id)
                if some is not None:
                    some.discard(channel)
                    if not some:
                        del channels[table.id]

        return _Pushed(push, opened, closed)

    @api
    async def picture(request: Request) -> Response:
        """The picture (SVG) of the table at ``seq`` (default: now) as the token's seat
        sees it, or the public one; drawn once, gzipped once, shared."""
        table = table_of(request)
        seat = table.seat_for(token_of(request))
        raw = number(request, "seq", 1e15)
        seq = table.game.state.seq if raw is None else int(raw)
        key = (table.id, seat, seq, len(table.takebacks))
        found = pictures.get(key)
        if found is None:
            drawn = await run_in_threadpool(table.picture, seat, seq)
            if drawn is None:
                raise TableError(404, "no picture of that seq (too old, or not yet)")
            body = drawn.encode()
            found = (body, gzip.compress(body, GZIP_LEVEL))
            while len(pictures) >= 4 * MAX_TABLES_PICTURED:
                del pictures[next(iter(pictures))]
            pictures[key] = found
        return zipped(request, found[0], "image/svg+xml", packed=found[1])

    @api
    async def hand(request: Request) -> Response:
        table = table_of(request)
        raw = request.path_params["seat"]
        seat = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 3 else -1
        if not 0 <= seat < len(table.seats):
            raise TableError(404, "no such seat")
        if not table.may_hand(token_of(request), seat):
            raise TableError(403, "only the seat's token or the host's may hand it to a bot")
        body = await body_of(request)
        if not isinstance(body, dict) or set(body) != {"bot"}:
            raise _BadRequest(400, 'the body is {"bot": NAME}')
        await run_in_threadpool(table.hand_to_bot, seat, body["bot"])
        return JSONResponse(table.summary())

    @api
    async def log(request: Request) -> Response:
        table = table_of(request)
        seat = table.seat_for(token_of(request))
        text = await run_in_threadpool(table.log_text, seat)
        name = f"tokaido-{table.id}-" + ("full" if table.game.is_over else
                                         "public" if seat is None else f"seat{seat}")
        return Response(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{name}.jsonl"',
            "Cache-Control": "no-store"})

    @api
    async def decisions(request: Request) -> Response:
        table = table_of(request)
        return JSONResponse({"decisions": [
            {"seq": d.seq, "seat": d.seat, "played_by": d.played_by, "hinted": d.hinted}
            for d in table.decisions()]})

    @api
    async def delete(request: Request) -> Response:
        table = table_of(request)
        if not table.is_host(token_of(request)):
            raise TableError(403, "only the host's token may delete the table")
        if not await run_in_threadpool(lobby.delete, table.id):
            raise TableError(404, "no such table")
        changed(table)  # its long polls answer now
        return JSONResponse({"table": table.id, "deleted": True})

    # --- take-backs, clocks and leaving (issue #40) ------------------------------------

    async def small_body(request: Request, keys: set[str]) -> dict[str, Any]:
        """A body of these keys (an empty body is ``{}``)."""
        if not request.headers.get("content-length", "0").strip("0") and keys == set():
            return {}
        body = await body_of(request)
        if not isinstance(body, dict) or set(body) != keys:
            shown = ", ".join(f'"{k}": ...' for k in sorted(keys))
            raise _BadRequest(400, f"the body is {{{shown}}}")
        return body

    @api
    async def take_back(request: Request) -> Response:
        table = table_of(request)
        seat = seat_of(request, table)
        await small_body(request, set())
        return JSONResponse(await run_in_threadpool(table.ask_take_back, seat))

    @api
    async def take_back_answer(request: Request) -> Response:
        table = table_of(request)
        seat = seat_of(request, table)
        body = await small_body(request, {"agree"})
        return JSONResponse(await run_in_threadpool(table.answer_take_back, seat,
                                                    body["agree"]))

    @api
    async def take_backs(request: Request) -> Response:
        table = table_of(request)
        return JSONResponse({"takebacks": table.takeback_list()})

    def seat_goes(call: Callable[[Table, int], None]
                  ) -> Callable[[Request], Awaitable[Response]]:
        """A route where a seat leaves or returns (``call``, in a thread: it stores),
        with the seat's token and an empty body; the answer says the seat's state."""
        @api
        async def route(request: Request) -> Response:
            table = table_of(request)
            seat = seat_of(request, table)
            await small_body(request, set())
            await run_in_threadpool(call, table, seat)
            return JSONResponse({"seat": seat, "away": table.away.get(seat)})
        return route

    leave = seat_goes(Table.leave)
    come_back = seat_goes(Table.come_back)

    async def host_sets(request: Request, what: str, key: str,
                        setter: Callable[[Table, Any], None]) -> Table:
        """A rule of the table the host changes: the host's token (403 else) and a
        body ``{key: value}``, handed to ``setter`` in a thread (it stores)."""
        table = table_of(request)
        if not table.is_host(token_of(request)):
            raise TableError(403, f"only the host's token may {what}")
        body = await small_body(request, {key})
        await run_in_threadpool(setter, table, body[key])
        return table

    @api
    async def stand_in(request: Request) -> Response:
        table = await host_sets(request, "name the stand-in bot", "bot",
                                Table.set_stand_in)
        return JSONResponse({"stand_in": table.rules.stand_in})

    # --- hints (issue #42) ---------------------------------------------------------------

    @api
    async def hint(request: Request) -> Response:
        table = table_of(request)
        seat = seat_of(request, table)
        await small_body(request, set())
        # a search of 0.1-0.5 s of CPU: in a thread, never in the event loop
        found = await run_in_threadpool(table.hint, seat)
        return JSONResponse(found, headers={"Cache-Control": "no-store"})

    @api
    async def hints(request: Request) -> Response:
        table = await host_sets(request, "turn hints on or off", "on", Table.set_hints)
        return JSONResponse({"hints": table.rules.hints})

    # --- invitations and the rematch ---------------------------------------------------

    @api
    async def invites(request: Request) -> Response:
        table = table_of(request)
        found = table.invites(token_of(request))
        links = None
        if public_url:
            links = {str(s): f"{public_url}/t/{table.id}#seat={s}&invite={v}"
                     for s, v in found.items()}
        return JSONResponse({"table": table.id, "name": table.name,
                             "invites": {str(s): v for s, v in found.items()},
                             "links": links},
                            headers={"Cache-Control": "no-store"})

    @api
    async def rematch(request: Request) -> Response:
        table = table_of(request)
        new, seat = await run_in_threadpool(lobby.rematch, table, token_of(request))
        return JSONResponse({**new.summary(), "seat": seat}, status_code=201)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        return error(status, "no such page" if status == 404 else "not allowed here")

    routes = [
        # the routes of play first: a request's route is found by trying them in order
        Route("/api/tables/{table}/action", action, methods=["POST"]),
        Route("/api/tables/{table}/events", events),
        Route("/api/tables/{table}", document),
        Route("/", index), Route("/t/{table}", api(table_html)), Route("/board.js", board),
        Route("/api/tables", list_tables), Route("/api/tables", create_table,
                                                 methods=["POST"]),
        Route("/api/tables/{table}/picture", picture),
        Route("/api/tables/{table}", delete, methods=["DELETE"]),
        Route("/api/tables/{table}/join", join, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}/bot", hand, methods=["POST"]),
        Route("/api/tables/{table}/log", log),
        Route("/api/tables/{table}/scene", scene),
        Route("/api/tables/{table}/decisions", decisions),
        Route("/api/tables/{table}/takeback", take_back, methods=["POST"]),
        Route("/api/tables/{table}/takeback/answer", take_back_answer, methods=["POST"]),
        Route("/api/tables/{table}/takebacks", take_backs),
        Route("/api/tables/{table}/leave", leave, methods=["POST"]),
        Route("/api/tables/{table}/return", come_back, methods=["POST"]),
        Route("/api/tables/{table}/stand-in", stand_in, methods=["POST"]),
        Route("/api/tables/{table}/hint", hint, methods=["POST"]),
        Route("/api/tables/{table}/hints", hints, methods=["POST"]),
        Route("/api/tables/{table}/invites", invites),
        Route("/api/tables/{table}/rematch", rematch, methods=["POST"]),
    ]
    inner = Starlette(routes=routes, exception_handlers={HTTPException: not_found})
    # the requests of play (a move, a push channel, an update) go straight to their
    # handler, past Starlette's layers (its two middlewares, the router's trying of each
    # route, the wrappers of every piece sent): the same handlers, answered alike
    played: dict[tuple[str, str], Callable[[_Asking], Awaitable[Response]]] = {
        ("POST", "action"): action, ("GET", "events"): events, ("GET", ""): document}

    def route_of(scope: Any) -> tuple[Callable[[_Asking], Awaitable[Response]], str] | None:
        """The handler of a request of play under ``/api/tables/`` and its table."""
        parts = scope["path"][len("/api/tables/"):].split("/")
        if not parts[0] or len(parts) > 2 or (len(parts) == 2 and not parts[1]):
            return None
        handler = played.get((scope["method"], parts[1] if len(parts) == 2 else ""))
        return None if handler is None else (handler, parts[0])

    async def straight(scope: Any, receive: Any, send: Any) -> bool:
        found = route_of(scope)
        if found is None:
            return False
        handler, table = found
        scope["path_params"] = {"table": table}
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)
        return True

    def play(cycle: Any) -> Coroutine[Any, Any, None] | None:
        """A request of play (a move, a push channel, an update) from uvicorn's
        protocol, answered past the ASGI layers (no ASGI messages, Starlette request or
        host-checking layer): its handler, given the request as the protocol parsed
        it, and its answer written straight to the connection; the same bytes.
        ``None`` for any other request, or one whose ``Host`` is refused (the
        application answers those)."""
        scope = cycle.scope
        if not scope["path"].startswith("/api/tables/") or not app.host_allowed(scope):
            return None
        found = route_of(scope)
        if found is None:
            return None
        handler, table = found
        return played_through(cycle, handler(_Asked(cycle, table)))

    def play_now(cycle: Any, stage: str = "whole") -> Coroutine[Any, Any, None] | bool | None:
        """A move (``POST .../action``) answered in the protocol's step that read it,
        with no task (as :func:`action` would: the same checks, errors and bytes).
        ``stage`` ``"whole"``, its body come: ``True`` once answered; what is left to
        do in a task (the move or the bots after it, in a thread). ``"headed"``, its
        body not come yet: its checks before the body, ``True`` if refused (answered),
        ``False`` to wait for the body. ``"late"``: the body did not come in time,
        answered (408). ``None``: any other request, or the connection closing or not
        to be written now: a task answers it."""
        scope = cycle.scope
        if not cycle.keep_alive or cycle.flow.write_paused or cycle.disconnected \
                or not scope["path"].startswith("/api/tables/") \
                or not app.host_allowed(scope):
            return None
        found = route_of(scope)
        if found is None or found[0] is not action:
            return None
        try:
            out = action_at_once(_Asked(cycle, found[1]),
                                 bytes(cycle.body) if stage == "whole" else None,
                                 stage == "late")
            if out is None:
                return False
            if not isinstance(out, Response):
                return played_through(cycle, out)
            if not isinstance(out, _Answer):  # (the answers of a move are all _Answer)
                return played_through(cycle, _given(out))
            out.put_now(cycle)
        except BaseException as exc:  # what uvicorn's ``run_asgi`` does
            cycle.logger.error("Exception in ASGI application\n", exc_info=exc)
            if not cycle.response_started:
                cycle.keep_alive = False
                cycle.response_started = True
                cycle.transport.write(_head(500, cycle, [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", b"21")], False) + b"Internal Server Error")
                _ended(cycle)
            else:
                cycle.transport.close()
        return True

    async def played_through(cycle: Any, answer: Awaitable[Response]) -> None:
        # what uvicorn's ``run_asgi`` does around an application
        try:
            response = await answer
            if isinstance(response, (_Answer, _Pushed)):
                await response.put(cycle)
            else:  # (not made by the handlers of play)
                await response(cycle.scope, cycle.receive, cycle.send)
        except BaseException as exc:
            cycle.logger.error("Exception in ASGI application\n", exc_info=exc)
            if not cycle.response_started:
                await cycle.send_500_response()
            else:
                cycle.transport.close()
        else:
            if not cycle.response_started and not cycle.disconnected:
                cycle.logger.error("ASGI callable returned without starting response.")
                await cycle.send_500_response()
            elif not cycle.response_complete and not cycle.disconnected:
                cycle.logger.error("ASGI callable returned without completing response.")
                cycle.transport.close()
        finally:
            cycle.on_response = lambda: None

    app = _HostChecked(inner, hosts, straight)
    app.play = play
    app.play_now = play_now
    app.state = inner.state
    inner.state.stop_waiting = stop_waiting
    return app


class _HostChecked:
    """The application, behind the check of the ``Host`` header (a page of another
    site that rebinds its name to this address is refused, 400): one plain ASGI layer
    instead of Starlette's middleware stack (gzip is done by the answers that pay),
    which hands the requests of play to their handlers itself (``straight``)."""

    def __init__(self, app: Any, hosts: Sequence[str],
                 straight: Callable[[Any, Any, Any], Awaitable[bool]] | None = None
                 ) -> None:
        self.app = app
        self.any = "*" in hosts
        self.hosts = {h.lower() for h in hosts}
        self.state: Any = None
        self.straight = straight
        """Answers a request of ``/api/tables/...`` itself, or says it did not."""
        self.play: Callable[[Any], Coroutine[Any, Any, None] | None] | None = None
        """A request of play from the server's protocol, answered past the ASGI layers
        (``None``: not one; the application answers it)."""
        self.play_now: Callable[..., Coroutine[Any, Any, None] | bool | None] | None \
            = None
        """A move answered in the protocol's step (``True``), or what is left of it for
        a task, or waiting for its body (``False``); ``None``: not one."""

    def host_allowed(self, scope: Any) -> bool:
        """Whether the request's ``Host`` (its first) names this server."""
        if self.any:
            return True
        host = ""
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1").lower()
                break
        host = host.split("]")[0] + "]" if host.startswith("[") else host.split(":")[0]
        return host in self.hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self.any and not self.host_allowed(scope):
            body = b'{"error":"Invalid host header"}'
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        if (self.straight is not None and scope["type"] == "http"
                and scope["path"].startswith("/api/tables/")
                and await self.straight(scope, receive, send)):
            return
        await self.app(scope, receive, send)


async def _given(value: _R) -> _R:
    return value


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


WHOLE_BODY = "tokaido.whole_body"
"""The key of a request's ASGI scope that the server's protocol sets once the request's
body has all come (a move's few dozen bytes come with its headers): the body is read
without a deadline's timer."""


JOINED = "tokaido.joined"
"""The key of a request's ASGI scope holding its connection's :class:`_Joined`."""


class _Joined:
    """A connection's transport that can send an answer's head and body in one write
    (uvicorn writes them apart: two ``send`` calls, and asyncio's write path twice):
    :meth:`hold` keeps the next write (the head) until the one after it (the body,
    written in the same step), the answer's end, or the connection's close."""

    __slots__ = ("armed", "held", "transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.armed = False
        self.held: bytes | None = None

    def hold(self) -> None:
        """Keep the next write, to join it with the one after."""
        self.armed = True

    def write(self, data: bytes) -> None:
        held = self.held
        if held is not None:
            self.held = None
            data = held + data
        elif self.armed:
            self.armed = False
            self.held = data
            return
        self.transport.write(data)

    def flush(self) -> None:
        """Write what is held (an answer ended with no body written: ``HEAD``)."""
        self.armed = False
        held = self.held
        if held is not None:
            self.held = None
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _Channel:
    """An open push channel, as the table's changes, the server's stop, its client's
    leaving and its keep-alive timer wake it: registered once for the channel's life
    (not a future in :func:`create_app`'s waiters per wait), and one timer for its life
    that, when it fires, sees whether :data:`KEEP_ALIVE_SECONDS` passed since the last
    event sent (not a timer armed and cancelled at every wait)."""

    __slots__ = ("due", "future", "left", "loop", "ready", "sent", "step", "timer", "write")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.future: asyncio.Future[None] | None = None
        """What the channel awaits while the table is as it last told it."""
        self.left = False
        """Its client went away: the channel ends."""
        self.due = False
        """Woken by the keep-alive timer (a comment is due)."""
        self.sent = loop.time()
        """When it last sent something (the loop's clock)."""
        self.timer: asyncio.TimerHandle | None = loop.call_later(KEEP_ALIVE_SECONDS,
                                                                 self.tick)
        self.step: Callable[[], bool] | None = None
        """Tells the change now, in the caller's step, while the channel waits; False:
        it cannot (the table is busy, the connection paused), the channel's task does."""
        self.ready: Callable[[], bool] | None = None
        """Whether :attr:`write` may write now (its client there, its writing not
        paused); ``None``: only the channel's task writes (an ASGI channel)."""
        self.write: Callable[[bytes], None] | None = None
        """Writes an event straight to the channel's connection."""

    def wake(self) -> None:
        """In the channel's loop: the table changed, or the server stops."""
        future = self.future
        if future is not None and not future.done():
            future.set_result(None)

    def wake_now(self) -> None:
        """In the channel's loop, from a step that holds no table's lock (the mover's
        answer sent, a change of another thread): the table changed; the channel
        waiting tells it at once (:attr:`step`) rather than in its task's next step (a
        future resolved, the task scheduled and resumed)."""
        future = self.future
        if future is not None and not future.done():
            step = self.step
            if step is not None:
                try:
                    if step():
                        return
                except Exception:  # never the caller's (the mover's answer): its task's
                    pass
            future.set_result(None)

    def tick(self) -> None:
        """The keep-alive timer: a comment is due if nothing was sent for
        :data:`KEEP_ALIVE_SECONDS`; else the timer waits for the rest."""
        if self.left:
            self.timer = None
            return
        rest = self.sent + KEEP_ALIVE_SECONDS - self.loop.time()
        if rest > 0:
            self.timer = self.loop.call_later(rest, self.tick)
            return
        self.due = True
        self.wake()
        self.timer = self.loop.call_later(KEEP_ALIVE_SECONDS, self.tick)

    def close(self) -> None:
        """The channel ends: its timer with it."""
        self.left = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.wake()


def _refusal(status: bytes, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
            + body)


_TOO_MANY = _refusal(b"503 Service Unavailable", "too many connections")


def _proxies(allowed: str | None) -> Callable[[str], bool]:
    """Whether an address is one of the trusted proxies ``allowed`` names
    (``--forwarded-allow-ips``: addresses or networks, comma-separated; ``*``: any)."""
    import ipaddress

    if not allowed:
        return lambda address: False
    names = [a.strip() for a in allowed.split(",") if a.strip()]
    if "*" in names:
        return lambda address: True
    networks = []
    for name in names:
        with contextlib.suppress(ValueError):
            networks.append(ipaddress.ip_network(name, strict=False))

    def trusted(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return address in names
        return any(ip in network for network in networks)

    return trusted


_CYCLE_NEEDS = ("body", "chunked_encoding", "default_headers", "disconnected", "flow",
                "keep_alive", "logger", "message_event", "more_body", "on_response",
                "receive", "response_complete", "response_started", "scope", "send",
                "send_500_response", "transport", "waiting_for_100_continue")
"""What the requests of play answered past the ASGI layers read and set of uvicorn's
request cycle (``RequestResponseCycle``, not a public interface)."""


def _plays_past_asgi() -> bool:
    """Whether the installed uvicorn's protocol and request cycle are those the server's
    own answering of the requests of play was made for (a ``_start_asgi_task`` to
    override, a cycle with every attribute of :data:`_CYCLE_NEEDS`); else every request
    goes through the ASGI application, answered alike, a little slower."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

    if not callable(getattr(HttpToolsProtocol, "_start_asgi_task", None)):
        return False
    names = set(dir(RequestResponseCycle))
    init = RequestResponseCycle.__init__
    code = getattr(init, "__code__", None)
    if code is not None:  # the attributes its __init__ sets
        names |= set(code.co_names)
    return all(name in names for name in _CYCLE_NEEDS)


def _guarded_protocol(max_connections: int, header_seconds: float,
                      max_per_address: int = MAX_PER_ADDRESS,
                      proxy: Callable[[str], bool] = lambda address: False,
                      play: Callable[[Any], Coroutine[Any, Any, None] | None] | None = None,
                      play_now: Callable[..., Coroutine[Any, Any, None] | bool | None]
                      | None = None) -> type:
    """uvicorn's HTTP/1.1 protocol on httptools (the C parser), bounded: at most
    ``max_connections`` connections (one more is answered 503 and closed), at most
    ``max_per_address`` from one client address (one more is answered 429 and closed;
    0: no bound), and a connection that has not sent a whole request's headers
    ``header_seconds`` after it opened or was last answered is closed (uvicorn itself
    waits for a first request forever). ``play``: the application's requests of play,
    run in the request's task in place of the ASGI application (``None``: any other
    request); ``play_now``: a move answered in the step that read it (no task at
    all), its body waited for by the protocol (at most :data:`BODY_SECONDS`)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    if not _plays_past_asgi():  # another uvicorn than the one this was made for
        play = play_now = None
    per_address: dict[str, int] = {}
    from_one = _refusal(b"429 Too Many Requests", f"too many connections from your "
                        f"address (at most {max_per_address})")

    class Guarded(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _refused = False
        _address: str | None = None
        _answered = 0.0
        """When the connection opened or was last answered (the loop's clock)."""
        _feeding = False
        """Within :meth:`data_received` (the parser reading what came)."""
        _waiting: tuple[Any, Any] | None = None
        """A POST's cycle (and application) started once its body has come, or once
        the data being read ends (a move's: once its body has come, or
        :data:`BODY_SECONDS` after its head)."""
        _late: asyncio.TimerHandle | None = None
        """The deadline of a move's body waited for by the protocol."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.transport = _Joined(transport)  # type: ignore[assignment]
            address = self.client[0] if self.client else ""
            capped = max_per_address > 0 and not proxy(address)  # a proxy: many clients
            if capped and per_address.get(address, 0) >= max_per_address:
                self._refuse(transport, from_one)
                return
            if len(self.connections) > max_connections:
                self._refuse(transport, _TOO_MANY)
                return
            if capped:
                per_address[address] = per_address.get(address, 0) + 1
                self._address = address
            self._answered = self.loop.time()
            self._deadline = self.loop.call_later(header_seconds, self._too_slow)

        def _refuse(self, transport: asyncio.Transport, answer: bytes) -> None:
            # Answer, stop writing, and read what the client sends for a moment before
            # closing: closed with its request unread, the connection would be reset,
            # and the client might never read the answer.
            self._refused = True
            self.connections.discard(self)  # closing: it takes no one's place
            transport.write(answer)
            if transport.can_write_eof():
                transport.write_eof()
            self._deadline = self.loop.call_later(1.0, transport.close)

        def data_received(self, data: bytes) -> None:
            if not self._refused:
                self._feeding = True
                try:
                    super().data_received(data)
                finally:
                    self._feeding = False
                waiting = self._waiting
                if waiting is not None and self._late is None:  # its body comes later
                    cycle, app = waiting
                    if play_now is not None and not cycle.waiting_for_100_continue:
                        early = play_now(cycle, "headed")
                        if early is True:  # refused before its body
                            self._waiting = None
                            return
                        if early is False:  # a move: its body waited for here
                            self._late = self.loop.call_later(BODY_SECONDS, self._too_late)
                            return
                    self._waiting = None  # its task reads it
                    self._start(cycle, app)

        def _too_late(self) -> None:
            self._late = None
            waiting, self._waiting = self._waiting, None
            if waiting is not None and play_now is not None \
                    and play_now(waiting[0], "late") is None:
                self._start(*waiting)  # (cannot be answered here: its task does)

        def _too_slow(self) -> None:
            # One timer for the connection, looked at when it fires (not armed at
            # every answer and cancelled at every request's headers): a request under
            # way has no deadline (the answer arms it again); else the connection is
            # closed if its last answer (or its opening) is ``header_seconds`` old.
            self._deadline = None
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:  # a request under way
                return
            rest = self._answered + header_seconds - self.loop.time()
            if rest > 0:
                self._deadline = self.loop.call_later(rest, self._too_slow)
            else:
                self.transport.close()

        def _start_asgi_task(self, cycle: Any, app: Any) -> None:
            # A POST whose body may come in the data being read waits for the end of
            # it (its message's end, or the end of the data: then its task reads it,
            # with its deadline); a move come whole is answered at once, no task.
            if self._feeding and play_now is not None and cycle.more_body \
                    and cycle.scope["method"] == "POST":
                self._waiting = (cycle, app)
                return
            self._start(cycle, app)

        def _start(self, cycle: Any, app: Any) -> None:
            if play_now is not None and not cycle.more_body \
                    and cycle.scope["method"] == "POST":
                rest = play_now(cycle)
                if rest is True:
                    return
                if rest is not None and rest is not False:
                    self._task(rest)
                    return
            # a request of play runs its own coroutine in the task (uvicorn's pipeline
            # and keep-alive as before: the cycle is uvicorn's)
            coroutine = None if play is None else play(cycle)
            if coroutine is None:
                super()._start_asgi_task(cycle, app)
                return
            self._task(coroutine)

        def _task(self, coroutine: Coroutine[Any, Any, None]) -> None:
            task = self.loop.create_task(coroutine)
            task.add_done_callback(self.tasks.discard)
            self.tasks.add(task)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.scope[JOINED] = self.transport  # type: ignore[literal-required]

        def on_message_complete(self) -> None:
            super().on_message_complete()
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                cycle.scope[WHOLE_BODY] = True  # type: ignore[literal-required]
            waiting = self._waiting
            if waiting is not None and waiting[0] is cycle:
                self._waiting = None
                if self._late is not None:
                    self._late.cancel()
                    self._late = None
                self._start(*waiting)

        def on_response_complete(self) -> None:
            self.transport.flush()  # type: ignore[attr-defined]
            super().on_response_complete()
            self._answered = self.loop.time()
            if self._deadline is None and not self.transport.is_closing():
                self._deadline = self.loop.call_later(header_seconds, self._too_slow)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            if self._late is not None:  # a move whose body never came: nobody to answer
                self._late.cancel()
                self._late = None
                self._waiting = None
            if self._address is not None:
                left = per_address.get(self._address, 1) - 1
                if left > 0:
                    per_address[self._address] = left
                else:
                    per_address.pop(self._address, None)
                self._address = None
            super().connection_lost(exc)

    return Guarded


WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def reachable_hosts(host: str) -> list[str]:
    """The addresses by which another device may reach a server bound to ``host``: for
    a wildcard address (``0.0.0.0``, ``::``) this machine's own addresses that are
    neither loopback nor link-local, the one of the default route first (found without
    sending anything); for any other, ``host`` itself. IPv6 addresses in brackets."""
    import ipaddress

    if host not in WILDCARD_HOSTS:
        return ["[" + host + "]" if ":" in host else host]
    found: list[str] = []
    probes = [(socket.AF_INET, "192.0.2.1")]  # documentation addresses: nothing is sent
    if host == "::":
        probes.append((socket.AF_INET6, "2001:db8::1"))
    for family, probe in probes:
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.append(str(udp.getsockname()[0]))
        except OSError:
            continue
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None)
    except OSError:
        infos = []
    found += [str(info[4][0]) for info in infos
              if info[0] == socket.AF_INET or (host == "::" and info[0] == socket.AF_INET6)]
    out: list[str] = []
    for raw in found:
        try:
            address = ipaddress.ip_address(raw.split("%")[0])
        except ValueError:
            continue
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        text = f"[{address}]" if address.version == 6 else str(address)
        if text not in out:
            out.append(text)
    return out


def bind(host: str, port: int) -> socket.socket:
    """The listening socket of the server; a busy or unusable address is a
    :class:`ServeError` saying so."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        return socket.create_server((host, port), family=family, backlog=1024)
    except OSError as exc:
        why = "is in use" if exc.errno in (98, 48, 10048) else f"cannot be used ({exc.strerror})"
        raise ServeError(f"{host}:{port} {why}") from None


def make_server(lobby: Lobby, sock: socket.socket, *, host: str = "127.0.0.1",
                animate_ms: int = 450, max_connections: int = MAX_CONNECTIONS,
                header_seconds: float = HEADER_SECONDS,
                idle_seconds: int = IDLE_SECONDS, max_per_address: int = MAX_PER_ADDRESS,
                creates_per_minute: int = CREATES_PER_MINUTE,
                forwarded_allow_ips: str | None = None, public_url: str | None = None,
                expire_finished_days: float = EXPIRE_FINISHED_DAYS,
                expire_abandoned_days: float = EXPIRE_ABANDONED_DAYS,
                keep_seconds: float = KEEP_SECONDS,
                say: Callable[[str], None] | None = None) -> Server:
    """The uvicorn server of ``lobby`` on the bound socket ``sock`` (:func:`bind`),
    ready to ``run()``; the limits are those above, smaller in tests (0 days: a table
    never expires). ``say``: where the server tells what it does as it stops (the
    terminal, for ``tokaido serve``). ``forwarded_allow_ips``: the reverse proxies
    trusted (comma-separated addresses or networks, ``*``: any; default uvicorn's,
    this machine), whose ``X-Forwarded-For`` is taken as the client's address (the
    tables made per minute count it) and whose own connections are not capped per
    address; ``public_url``: see :func:`create_app`."""
    import uvicorn

    hosts = LOCAL_HOSTS if host in ("127.0.0.1", "localhost", "::1") else ("*",)
    app = create_app(lobby, hosts=hosts, animate_ms=animate_ms,
                     creates_per_minute=creates_per_minute,
                     public_url=public_url.rstrip("/") if public_url else None)
    tell = say or (lambda text: None)
    config = uvicorn.Config(app,
                            http=_guarded_protocol(max_connections, header_seconds,
                                                   max_per_address,
                                                   _proxies(forwarded_allow_ips),
                                                   app.play, app.play_now),
                            proxy_headers=True, forwarded_allow_ips=forwarded_allow_ips,
                            timeout_keep_alive=idle_seconds, log_level="warning",
                            # no access log: at "warning" its lines were never written,
                            # but each answer still made their client address and path
                            access_log=False,
                            lifespan="off", ws="none",
                            timeout_graceful_shutdown=STOP_SECONDS)
    keeper = _Keeper(lobby, keep_seconds, expire_finished_days * 86_400,
                     expire_abandoned_days * 86_400)

    class Stopping(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            """Answer the waiting requests at once (the pages say the server is gone),
            then, once the requests are answered, let the bots play, before uvicorn
            passes the signal that stopped it on."""
            told = app.state.stop_waiting()
            tell(f"tokaido serve: stopping; {told} waiting page"
                 f"{'' if told == 1 else 's'} told")
            await super().shutdown(sockets)
            await asyncio.to_thread(keeper.stop)
            tell("tokaido serve: stopped")

    return Server(Stopping(config), sock, keeper)


class _Keeper:
    """What the server does beside the requests, in a thread of its own: every
    ``every`` seconds from the start, the bots play the decisions at hand that are
    theirs, tables deleted from outside are dropped, finished and abandoned tables
    expire (after ``finished`` and ``abandoned`` seconds; 0: never), and the tables'
    activity is stored. :meth:`stop` ends it and lets the bots play one last time."""

    def __init__(self, lobby: Lobby, every: float, finished: float,
                 abandoned: float) -> None:
        self.lobby = lobby
        self.every = every
        self.finished = finished
        self.abandoned = abandoned
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._said: set[str] = set()

    def start(self) -> None:
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="tokaido-keeper",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None
        self.round(expire=False)

    def _run(self) -> None:
        while True:
            self.round()
            if self._stopping.wait(self.every):
                return

    def round(self, *, expire: bool = True) -> None:
        """One round; a fault is said once per table on stderr and tried again at the
        next round, never ending the thread."""
        lobby = self.lobby
        try:
            lobby.forget_deleted()
            failed = lobby.play_bots()
            lobby.keep_clocks(every=self.every)
            for table_id, why in failed.items():
                if table_id not in self._said:
                    self._said.add(table_id)
                    print(f"tokaido serve: table {table_id}: a bot's move could not be "
                          f"stored ({why}); trying again every {self.every:g} s",
                          file=sys.stderr, flush=True)
            self._said &= set(failed)
            if expire and (self.finished > 0 or self.abandoned > 0):
                lobby.expire(self.finished, self.abandoned)
            lobby.save_activity()
        except Exception as exc:  # the store failed: the next round tries again
            print(f"tokaido serve: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


class Server:
    """A uvicorn server and the socket it listens on: :meth:`run` it (``tokaido
    serve``), or :meth:`start` it in a thread of its own (tests, a program that serves
    on the side) and :meth:`stop` it. Its keeper (bots, expiry) runs from the start of
    :meth:`run` until the server stops."""

    def __init__(self, server: Any, sock: socket.socket, keeper: _Keeper | None = None) -> None:
        self.uvicorn = server
        self.socket = sock
        self.keeper = keeper
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        return bool(self.uvicorn.started)

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` of the socket (a port bound as 0 is the one chosen)."""
        host, port = self.socket.getsockname()[:2]
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}"

    def run(self) -> None:
        """Serve until :meth:`stop` (or Ctrl-C, in the main thread)."""
        if self.keeper is not None:
            self.keeper.start()
        try:
            self.uvicorn.run(sockets=[self.socket])
        finally:
            if self.keeper is not None:
                self.keeper.stop()  # stopped already, unless uvicorn failed

    def start(self, timeout: float = 20) -> Server:
        """Serve in a daemon thread; return once the server listens."""
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise ServeError("the server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving (and wait for a thread of :meth:`start` to end)."""
        self.uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None


def serve(lobby: Lobby, *, host: str = "127.0.0.1", port: int = 8000,
          sock: socket.socket | None = None, max_connections: int | None = None,
          **limits: Any) -> None:
    """Serve ``lobby`` until interrupted (``tokaido serve``); ``sock``: a socket already
    bound (:func:`bind`); ``max_connections``: default :data:`MAX_CONNECTIONS`;
    ``limits``: the other keywords of :func:`make_server`."""
    most = MAX_CONNECTIONS if max_connections is None else max_connections
    _raise_open_files_limit(most)
    _collect_less()
    limits.setdefault("say", lambda text: print(text, file=sys.stderr, flush=True))
    make_server(lobby, sock or bind(host, port), host=host, max_connections=most,
                **limits).run()


GC_THRESHOLD = 100_000
"""Allocations between two collections of the youngest generation in ``tokaido serve``
(Python's default: 700): a move makes thousands of short-lived objects (views, scenes,
answers), and each collection goes through the objects alive. Those of a table's
recent steps (its kept games, scenes and answers) live a dozen of its moves, a few
seconds at 200 tables; collected this rarely, most are gone before a collection
meets them (measured at 200 tables x 4: 20,000 spent 7.5% of the server's CPU in
collections, pauses of 50-110 ms; 100,000 3.5%, pauses up to 30 ms; freezing each
table as it is made did not help)."""


def _collect_less() -> None:
    """The server process's garbage collection: what is loaded at the start (modules,
    the tables resumed) is set aside for good (``gc.freeze``), and the young objects
    are collected less often (:data:`GC_THRESHOLD`)."""
    import gc

    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, middle, old)


def _raise_open_files_limit(connections: int) -> None:
    """Room for ``connections`` and the database: the soft limit on open files up to
    the hard one."""
    try:
        import resource
    except ImportError:  # not on this system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        top = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))

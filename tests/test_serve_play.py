"""The requests of play (a move, a push channel, a document or update) answered by the
server's protocol past the ASGI layers: over a real socket, the same bytes as through
the application (Starlette), the same limits (Host, bodies, slow bodies), keep-alive,
pipelining and HEAD as uvicorn gives them. Every request goes to 127.0.0.1 only, each
loop is bounded, and every server started here is stopped."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tokaido_rules import web
from tokaido_rules.tables import Lobby, Table
from tokaido_rules.web import bind, make_server


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str, Lobby, list[str]]]:
    """Two servers of one lobby (small limits): the first answers the requests of play
    itself (``played`` lists the paths it did, a move come whole at once or not) and
    hears the lobby's changes, the
    second answers through the application only (as before it could)."""
    monkeypatch.setattr(web, "BODY_SECONDS", 0.6)
    real = web.create_app
    played: list[str] = []
    plain = [False]

    def made(*args: Any, **kwargs: Any) -> Any:
        app = real(*args, **kwargs)
        if plain[0]:
            app.play = app.play_now = None
            return app
        inner, at_once = app.play, app.play_now

        def counted(cycle: Any) -> Any:
            found = inner(cycle)
            if found is not None:
                played.append(cycle.scope["path"])
            return found

        def counted_now(cycle: Any, stage: str = "whole") -> Any:
            found = at_once(cycle, stage)
            if found is not None and found is not False:  # "!": answered in the step
                played.append(cycle.scope["path"] + ("!" if found is True else ""))
            return found

        app.play, app.play_now = counted, counted_now
        return app

    monkeypatch.setattr(web, "create_app", made)
    lobby = Lobby()
    limits: dict[str, Any] = {"animate_ms": 0, "max_connections": 12,
                              "header_seconds": 0.6, "idle_seconds": 1}
    own = make_server(lobby, bind("127.0.0.1", 0), **limits)
    told = lobby.on_change  # the first server's: its channels hear the lobby's changes
    plain[0] = True
    through = make_server(lobby, bind("127.0.0.1", 0), **limits)
    lobby.on_change = told
    own.start()
    through.start()
    try:
        yield own.url, through.url, lobby, played
    finally:
        own.stop()
        through.stop()


def _exchange(url: str, data: bytes, *, until: bytes | None = None,
              wait: float = 5) -> bytes:
    """Send ``data`` on a new connection; what comes back until it closes (or, with
    ``until``, until that much has come)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as conn:
        conn.sendall(data)
        out = b""
        try:
            while chunk := conn.recv(65536):
                out += chunk
                if until is not None and until in out:
                    break
        except TimeoutError:
            pass
        return out


def _undated(answer: bytes) -> bytes:
    return re.sub(rb"date: [^\r]*\r\n", b"date: -\r\n", answer)


def _request(method: str, path: str, *, token: str | None = None, body: bytes = b"",
             kind: str = "application/json", host: str = "127.0.0.1",
             close: bool = True, version: str = "1.1") -> bytes:
    lines = [f"{method} {path} HTTP/{version}", f"Host: {host}"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    if body or method == "POST":
        lines += [f"Content-Type: {kind}", f"Content-Length: {len(body)}"]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _table(lobby: Lobby) -> tuple[Table, dict[int, str], int]:
    table, _ = lobby.create(3, ["base"], seed=5)
    tokens = {seat: table.join(seat) for seat in range(3)}
    mover = table.game.current_player
    assert mover is not None
    return table, tokens, mover


def test_the_requests_of_play_are_answered_with_the_same_bytes(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """Documents, updates, refused moves of every kind, a wrong Host, HEAD, HTTP/1.0,
    two requests in one write, a push channel's head and first event: byte for byte
    (but the date) the answers of the application; the requests of play only are
    answered past it."""
    own, through, lobby, played = servers
    table, tokens, mover = _table(lobby)
    seq = table.game.state.seq
    at = f"/api/tables/{table.id}"
    move = f"{at}/action?form=update"
    asked = [
        _request("GET", f"{at}?since=0&form=update", token=tokens[mover]),
        _request("GET", f"{at}?since={seq}&form=update", token=tokens[1 - mover]),
        _request("GET", at),
        _request("GET", f"{at}?form=document"),
        _request("GET", f"{at}?since=abc"),
        _request("GET", f"{at}?form=nonsense"),
        _request("GET", f"{at}?since=0&form=update&stream=a%20b"),
        _request("GET", "/api/tables/no-such-table"),
        _request("GET", at, token="not-a-token"),
        _request("GET", at, host="evil.example"),
        _request("HEAD", f"{at}?since=0&form=update", token=tokens[mover]),
        _request("GET", f"{at}?since=0&form=update", token=tokens[mover], version="1.0",
                 close=False),
        _request("POST", move, token=tokens[mover],
                 body=b'{"action": {"type": "nonsense"}, "expected_seq": %d}' % seq),
        _request("POST", move, token=tokens[mover], body=b"not json"),
        _request("POST", move, token=tokens[mover], body=b'{"a": "\xed\xa0\x80"}'),
        _request("POST", move, token=tokens[mover], body=b"{}", kind="text/plain"),
        _request("POST", move, body=b"{}"),
        _request("POST", move, token=tokens[mover],
                 body=b'{"action": {}, "expected_seq": %d}' % (seq + 5)),
        _request("POST", f"{at}/action?form=update&stream=a%20b", token=tokens[mover],
                 body=b"{}"),
        _request("POST", move, token=tokens[mover], body=b"{}", host="evil.example"),
        # two requests in one write: the second answered after the first
        _request("POST", move, token=tokens[mover], body=b"[]", close=False)
        + _request("GET", f"{at}?since={seq}&form=update", token=tokens[mover]),
        _request("GET", f"{at}?since=0&form=update", token=tokens[mover], close=False)
        + _request("POST", move, token=tokens[mover], body=b"[]", close=False)
        + _request("POST", move, token=tokens[mover], body=b"{}"),
    ]
    # the moves on a kept-alive connection (answered in the step that read them), each
    # followed by a request that closes it
    closing = _request("GET", f"{at}?since={seq}&form=update", token=tokens[mover])
    asked += [data.replace(b"Connection: close\r\n", b"") + closing
              for data in asked if data.startswith(b"POST") and data.count(b"HTTP/1.1") == 1]
    for data in asked:
        mine, theirs = _exchange(own, data), _exchange(through, data)
        assert mine.startswith(b"HTTP/1.1 ") and _undated(mine) == _undated(theirs), data
    # every request but the wrong Hosts' three and HEAD
    requests = sum(len(re.findall(rb" HTTP/1\.[01]\r\n", data)) for data in asked)
    assert len(played) == requests - 4
    assert f"{at}/action!" in played and f"{at}/action" in played  # kept alive, closed
    channel = _request("GET", f"{at}/events?since=0", token=tokens[2])
    mine = _exchange(own, channel, until=b"\n\n\r\n", wait=5)
    theirs = _exchange(through, channel, until=b"\n\n\r\n", wait=5)
    assert b"transfer-encoding: chunked" in mine and b"data: {" in mine
    assert _undated(mine) == _undated(theirs)
    assert played[-1] == f"{at}/events"
    assert table.game.state.seq == seq  # nothing was played


def test_a_move_and_its_push_channels_over_a_real_socket(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """A move answered past the application: its answer on a kept-alive connection,
    then the next request on it; the other seats' channels each send the move's update,
    with the audience's own seat."""
    own, _, lobby, played = servers
    table, tokens, mover = _table(lobby)
    seq = table.game.state.seq
    at = f"/api/tables/{table.id}"
    host, port = own.removeprefix("http://").split(":")
    channels = {}
    for seat in range(3):
        if seat != mover:
            conn = socket.create_connection((host, int(port)), timeout=10)
            conn.sendall(_request("GET", f"{at}/events?since={seq}", token=tokens[seat],
                                  close=False))
            channels[seat] = conn
    try:
        for conn in channels.values():  # the first update of each, at once
            got = b""
            while b"\n\n" not in got:
                got += conn.recv(65536)
        view = table.game.view(mover)
        from tokaido_rules.wire import encode_action
        action = json.dumps({"action": encode_action(view.legal_actions[0]),
                             "expected_seq": seq}).encode()
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(_request("POST", f"{at}/action?form=update", token=tokens[mover],
                                  body=action, close=False))
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(65536)
            length = int(re.search(rb"content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            body = head.split(b"\r\n\r\n", 1)[1]
            while len(body) < length:
                body += conn.recv(65536)
            assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection" not in head
            moved = json.loads(body)
            assert moved["seq"] > seq and moved["since"] == seq
            conn.sendall(_request("GET", f"{at}?since={moved['seq']}&form=update",
                                  token=tokens[mover]))
            rest = b""
            while chunk := conn.recv(65536):
                rest += chunk
            assert rest.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection: close" in rest
        for seat, conn in channels.items():
            got = b""
            deadline = time.monotonic() + 10
            while b'"seq":%d' % moved["seq"] not in got and time.monotonic() < deadline:
                got += conn.recv(65536)
            update = json.loads(got.split(b"data: ")[-1].split(b"\n\n")[0])
            assert update["seq"] == moved["seq"] and update["seat"] == seat
    finally:
        for conn in channels.values():
            conn.close()
    assert f"{at}/action!" in played and f"{at}/events" in played
    deadline = time.monotonic() + 5
    while table.connected and time.monotonic() < deadline:  # the channels let go
        time.sleep(0.05)
    assert table.connected == 0


def test_a_moves_body_too_large_or_too_slow_is_refused(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """A move's Content-Length over the limit is refused at once (413, the body never
    read); a body that comes too slowly is answered 408; a connection that sends no
    whole head is closed."""
    own, _, lobby, played = servers
    table, tokens, _ = _table(lobby)
    at = f"/api/tables/{table.id}/action"
    head = (f"POST {at} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            f"{tokens[0]}\r\nContent-Type: application/json\r\n").encode()
    big = _exchange(own, head + b"Content-Length: %d\r\n\r\n" % (web.MAX_BODY + 1))
    assert big.startswith(b"HTTP/1.1 413 ") and b"too large" in big
    host, port = own.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(head + b"Content-Length: 40\r\n\r\n{")
        slow = b""
        while chunk := conn.recv(65536):
            slow += chunk
    assert slow.startswith(b"HTTP/1.1 408 ") and b"too slowly" in slow
    assert time.monotonic() - started < 4
    assert played.count(f"{at}!") == 2  # by the protocol, with no task
    half = _exchange(own, head)  # no end of the head: closed after the header deadline
    assert half == b""


def test_a_push_channel_waits_while_its_connection_cannot_take_more() -> None:
    """A push channel written straight to its connection waits while the transport's
    writing is paused (flow control), sends nothing once its client has gone, and ends
    with the last chunk when the push ends."""

    class Flow:
        write_paused = True

        def __init__(self) -> None:
            self.writable = asyncio.Event()

        async def drain(self) -> None:
            await self.writable.wait()

    class Cycle:
        def __init__(self) -> None:
            self.flow = Flow()
            self.writes: list[bytes] = []
            self.transport = self
            self.disconnected = False
            self.response_started = self.response_complete = False
            self.waiting_for_100_continue = False
            self.chunked_encoding: bool | None = None
            self.keep_alive = True
            self.default_headers = [(b"server", b"uvicorn")]
            self.message_event = asyncio.Event()
            self.answered = 0

        def write(self, data: bytes) -> None:
            self.writes.append(data)

        def close(self) -> None:
            raise AssertionError("kept alive")

        async def receive(self) -> dict[str, Any]:
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        def on_response(self) -> None:
            self.answered += 1

    async def run() -> Cycle:
        cycle = Cycle()
        pushed: list[bytes] = []

        async def push(channel: Any, send: Any) -> None:
            await send(b"data: 1\n\n")
            pushed.append(b"1")

        response = _pushed(push)
        task = asyncio.ensure_future(response.put(cycle))
        await asyncio.sleep(0.05)
        assert cycle.writes == [] and not pushed  # paused: nothing written
        cycle.flow.write_paused = False
        cycle.flow.writable.set()
        await asyncio.wait_for(task, 5)
        return cycle

    cycle = asyncio.run(run())
    assert cycle.writes[0].startswith(b"HTTP/1.1 200 OK\r\nserver: uvicorn\r\n")
    assert cycle.writes[0].endswith(b"transfer-encoding: chunked\r\n\r\n")
    assert cycle.writes[1:] == [b"9\r\ndata: 1\n\n\r\n", b"0\r\n\r\n"]
    assert cycle.response_complete and cycle.answered == 1


def _pushed(push: Any) -> Any:
    """A push channel's answer, of the class a new application makes (found in the
    closures of its handlers of play)."""
    seen: set[int] = set()
    todo: list[Any] = [web.create_app(Lobby()).play]
    while todo:
        thing = todo.pop()
        if id(thing) in seen:
            continue
        seen.add(id(thing))
        if isinstance(thing, type) and thing.__name__ == "_Pushed":
            return thing(push, lambda channel: None, lambda channel: None)
        for cell in getattr(thing, "__closure__", None) or ():
            todo.append(cell.cell_contents)
    raise AssertionError("no _Pushed class found")


def test_a_waiting_channel_told_at_once_or_woken() -> None:
    """A change heard where no table's lock is held (``wake_now``) is told by the
    waiting channel at once when its step can (its future left pending: no task
    step); when it cannot (the table busy, the connection paused, a stop), the
    channel's task is woken; a plain ``wake`` always wakes the task."""

    async def run() -> list[tuple[str, bool]]:
        loop = asyncio.get_running_loop()
        seen: list[tuple[str, bool]] = []
        for name, can in (("told", True), ("busy", False), ("none", None)):
            channel = web._Channel(loop)
            channel.future = loop.create_future()
            if can is not None:
                channel.step = lambda can=can: can
            channel.wake_now()
            seen.append((name, channel.future.done()))
            channel.close()
        channel = web._Channel(loop)
        channel.future = loop.create_future()
        channel.step = lambda: True
        channel.wake()
        seen.append(("wake", channel.future.done()))
        channel.close()
        return seen

    assert asyncio.run(run()) == [("told", False), ("busy", True), ("none", True),
                                  ("wake", True)]


def test_a_change_heard_while_the_table_is_busy_is_sent_once_it_is_free(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """A change heard from another thread that still holds the table: the waiting
    channel cannot tell it at once (the table busy), so its task does, once the table
    is free; the update is the seat's own."""
    own, _, lobby, _ = servers
    table, tokens, mover = _table(lobby)
    seq = table.game.state.seq
    other = (mover + 1) % 3
    host, port = own.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(_request("GET", f"/api/tables/{table.id}/events?since={seq}",
                              token=tokens[other], close=False))
        got = b""
        while b"\n\n" not in got:  # its first update: the channel waits from here
            got += conn.recv(65536)
        time.sleep(0.3)  # (the outcome is the same if the channel is not waiting yet)
        from tokaido_rules.wire import encode_action
        view = table.game.view(mover)
        body = {"action": encode_action(view.legal_actions[0]), "expected_seq": seq}
        with table.holding():  # played here, the others told below
            table.act(mover, body, bots=False)
        moved = table.game.state.seq
        looked = threading.Event()
        answered = table.was_answered

        def was_answered(*args: Any) -> bool:
            looked.set()  # the channel's step looks, then finds the table held
            return answered(*args)

        table.was_answered = was_answered  # type: ignore[method-assign,assignment]
        table._lock.acquire()
        try:
            lobby.on_change(table)  # from this thread, the table held
            assert looked.wait(10)
            time.sleep(0.2)
        finally:
            table._lock.release()
        got = b""
        deadline = time.monotonic() + 10
        while b'"seq":%d' % moved not in got and time.monotonic() < deadline:
            got += conn.recv(65536)
    update = json.loads(got.split(b"data: ")[-1].split(b"\n\n")[0])
    assert update["seq"] == moved and update["since"] == seq and update["seat"] == other


def _keep_alive_move(conn: socket.socket, at: str, token: str, body: dict[str, Any]
                     ) -> tuple[bytes, dict[str, Any]]:
    """A move on a kept-alive connection: its answer's head and JSON."""
    conn.sendall(_request("POST", f"{at}/action?form=update", token=token,
                          body=json.dumps(body).encode(), close=False))
    got = b""
    while b"\r\n\r\n" not in got:
        got += conn.recv(65536)
    head, rest = got.split(b"\r\n\r\n", 1)
    found = re.search(rb"content-length: (\d+)", head)
    assert found is not None
    while len(rest) < int(found.group(1)):
        rest += conn.recv(65536)
    return head, json.loads(rest)


def test_a_move_come_whole_with_bots_after_it_is_answered_after_their_moves(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """A move answered in the step that read it, but for the bots' moves after it
    (played in a thread, then the answer): the answer is past the bots' moves, and
    the connection takes the next move."""
    own, _, lobby, played = servers
    table, _ = lobby.create(3, ["base"], bots={"1": "greedy", "2": "greedy"}, seed=5)
    token = table.join(0)
    at = f"/api/tables/{table.id}"
    from tokaido_rules.wire import encode_action
    host, port = own.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as conn:
        for _ in range(4):
            deadline = time.monotonic() + 20
            while table.game.current_player != 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            seq = table.game.state.seq
            legal = table.game.view(0).legal_actions
            head, moved = _keep_alive_move(conn, at, token, {
                "action": encode_action(legal[0]), "expected_seq": seq})
            assert head.startswith(b"HTTP/1.1 200 OK\r\n") and moved["since"] == seq
            assert moved["seq"] > seq and moved["seq"] == table.game.state.seq
            assert moved["current_player"] in (0, None)  # the bots' moves after it
    # those with the bots' moves after them left the rest to a task; all four answered
    assert played.count(f"{at}/action") >= 1
    assert played.count(f"{at}/action") + played.count(f"{at}/action!") == 4


def test_a_moves_body_after_its_head_is_waited_for_and_answered_alike(
        servers: tuple[str, str, Lobby, list[str]]) -> None:
    """A move whose body comes in a later packet than its head (as some clients send
    it): waited for by the protocol, then answered in the step that read it, the same
    bytes as through the application; a client that leaves before its body is let
    go."""
    own, through, lobby, played = servers
    table, tokens, mover = _table(lobby)
    seq = table.game.state.seq
    at = f"/api/tables/{table.id}/action?form=update"
    body = b'{"action": {"type": "nonsense"}, "expected_seq": %d}' % seq
    whole = _request("POST", at, token=tokens[mover], body=body, close=False)
    head, _ = whole.split(b"\r\n\r\n", 1)  # (kept alive: closed when idle)
    answers = []
    for url in (own, through):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as conn:
            conn.sendall(head + b"\r\n\r\n")
            time.sleep(0.2)
            conn.sendall(body)
            got = b""
            while chunk := conn.recv(65536):
                got += chunk
        answers.append(_undated(got))
    assert answers[0].startswith(b"HTTP/1.1 400 ") and answers[0] == answers[1]
    assert played.count(f"/api/tables/{table.id}/action!") == 1
    host, port = own.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(head + b"\r\n\r\n{")
        time.sleep(0.2)
    time.sleep(web.BODY_SECONDS + 0.3)  # its deadline passes with nobody to answer
    assert table.game.state.seq == seq
    status = _exchange(own, _request("GET", f"/api/tables/{table.id}"))
    assert status.startswith(b"HTTP/1.1 200 ")


def test_the_installed_uvicorn_is_the_one_the_protocol_answers_past_asgi_with(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests above run the protocol's own answering (the installed uvicorn has the
    request cycle it reads); a uvicorn whose cycle lacks an attribute it reads is not
    given it: every request then goes through the application."""
    from uvicorn.protocols.http import httptools_impl

    assert web._plays_past_asgi()

    class Other(httptools_impl.RequestResponseCycle):
        def __init__(self) -> None:
            pass

    monkeypatch.setattr(httptools_impl, "RequestResponseCycle", Other)
    monkeypatch.setattr(web, "_CYCLE_NEEDS", (*web._CYCLE_NEEDS, "not_in_any_cycle"))
    assert not web._plays_past_asgi()
    monkeypatch.undo()  # the real cycle again, the check still saying no
    monkeypatch.setattr(web, "_plays_past_asgi", lambda: False)
    real = web.create_app
    asked: list[str] = []

    def made(*args: Any, **kwargs: Any) -> Any:
        app = real(*args, **kwargs)
        inner = app.play

        def counted(cycle: Any) -> Any:
            asked.append(cycle.scope["path"])
            return inner(cycle)

        app.play = counted
        return app

    monkeypatch.setattr(web, "create_app", made)
    lobby = Lobby()
    server = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0)
    server.start()
    try:
        table, tokens, mover = _table(lobby)
        answer = _exchange(server.url, _request(
            "GET", f"/api/tables/{table.id}?form=update&since=0", token=tokens[mover]))
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'"form":"update"' in answer
    assert asked == []  # answered through the application

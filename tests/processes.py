"""Helpers for the tests that run a program: none may hang the suite. A process started
with :func:`watched` is killed once its time is up, so a read of its output ends (at the
end of the output) instead of waiting for ever, and the test fails saying so. For the
tests of ``tokaido serve``: a free port, a JSON call with a deadline, and the wait for a
server's first lines (:func:`started`)."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

_WATCHDOGS: dict[int, threading.Timer] = {}


def watched(proc: subprocess.Popen[str], seconds: float = 120) -> subprocess.Popen[str]:
    """Kill ``proc`` after ``seconds`` unless :func:`finished` is called first."""
    timer = threading.Timer(seconds, proc.kill)
    timer.daemon = True
    timer.start()
    _WATCHDOGS[proc.pid] = timer
    return proc


def finished(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """The rest of ``proc``'s output and its stderr once it has ended (within
    ``timeout`` seconds, else it is killed and the test fails); its watchdog is off."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=30)
        raise AssertionError(f"the process did not end within {timeout:g} s; "
                             "it was killed") from None
    finally:
        timer = _WATCHDOGS.pop(proc.pid, None)
        if timer is not None:
            timer.cancel()
    if proc.returncode == -9:
        raise AssertionError("the process was killed: it did not end in its time")
    return out, err


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (as the system chose it just now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(url: str, body: Any = None, token: str | None = None,
         timeout: float = 30) -> tuple[int, Any]:
    """GET ``url`` (POST with ``body`` as JSON), with the bearer ``token`` if any: the
    status and the JSON answer, an error status's too; no answer within ``timeout``
    seconds is an ``OSError``."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def two_people(urls: Sequence[str], **rules: Any) -> tuple[str, dict[int, str]]:
    """A table of two people made at ``urls[0]`` with these ``rules`` (the fields of
    ``POST /api/tables``), seat ``s`` joined at ``urls[s % len(urls)]``: the table's id
    and the seats' tokens."""
    status, made = call(urls[0] + "/api/tables", {"players": 2, **rules})
    assert status == 201, made
    table = made["table"]
    tokens = {}
    for seat in (0, 1):
        status, joined = call(f"{urls[seat % len(urls)]}/api/tables/{table}/join",
                              {"seat": seat})
        assert status == 201, joined
        tokens[seat] = joined["token"]
    return table, tokens


READY = "All tables:"
"""The start of the line ``tokaido serve`` prints once it listens."""


def started(proc: subprocess.Popen[str]) -> list[str]:
    """A ``tokaido serve`` process's first lines of output, up to the one that says it
    listens (:data:`READY`; at most six lines, or its output's end): the last line read
    is that line only if it started. The caller's watchdog bounds the reads."""
    assert proc.stdout is not None
    lines = []
    for _ in range(6):
        line = proc.stdout.readline()
        lines.append(line)
        if line.startswith(READY) or not line:
            break
    return lines

"""Helpers for the tests that run a program: none may hang the suite. A process started
with :func:`watched` is killed once its time is up, so a read of its output ends (at the
end of the output) instead of waiting for ever, and the test fails saying so."""

from __future__ import annotations

import subprocess
import threading

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

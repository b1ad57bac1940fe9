"""The ruleset's direct hook calls behave exactly as pluggy's own calls.

Rulesets call hook implementations directly, resolved once (for speed). Each scenario
here runs the same plugins through pluggy and through the direct caller and expects the
same result or the same exception.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

import pluggy
import pytest

from tokaido_rules import hookimpl, hookspecs
from tokaido_rules.ruleset import _hook_caller


def _both(*plugins: object) -> tuple[Callable[..., Any], Callable[..., Any],
                                     Callable[..., Any], Callable[..., Any]]:
    """(pluggy tiebreak, direct tiebreak, pluggy decider, direct decider)."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for i, plugin in enumerate(reversed(plugins)):
        pm.register(plugin, name=f"p{i}")
    tiebreak, decider = pm.hook.tokaido_tiebreak, pm.hook.tokaido_decider
    return (lambda s, p: tiebreak(state=s, piece=p), _hook_caller(tiebreak),
            lambda s, p: decider(state=s, piece=p), _hook_caller(decider))


def _outcome(call: Callable[..., Any], *args: Any) -> Any:
    try:
        return ("result", call(*args))
    except Exception as exc:  # the exception's type and text must match
        return ("raised", type(exc), str(exc))


class Plain:
    def __init__(self, value: int | None, *, fail: bool = False) -> None:
        self.value, self.fail = value, fail

    @hookimpl
    def tokaido_tiebreak(self, piece: int) -> int | None:  # declares fewer arguments
        if self.fail:
            raise ValueError("plain failed")
        return None if self.value is None else self.value + piece

    @hookimpl
    def tokaido_decider(self, state: object, piece: int) -> int | None:
        if self.fail:
            raise ValueError("plain failed")
        return self.value


class Doubler:
    """A wrapper that doubles every result (or turns a failure into ``[-1]`` / ``-1``)."""

    @hookimpl(wrapper=True)
    def tokaido_tiebreak(self, state: object, piece: int) -> Generator[None, Any, Any]:
        try:
            results = yield
        except ValueError:
            return [-1]
        return [r * 2 for r in results] + [piece]

    @hookimpl(wrapper=True)
    def tokaido_decider(self, state: object, piece: int) -> Generator[None, Any, Any]:
        try:
            result = yield
        except ValueError:
            return -1
        return None if result is None else result * 2


class Reraiser:
    @hookimpl(wrapper=True)
    def tokaido_tiebreak(self, state: object, piece: int) -> Generator[None, Any, Any]:
        results = yield
        if len(results) > 1:
            raise KeyError("too many")
        return results


class NoYield:
    @hookimpl(wrapper=True)
    def tokaido_tiebreak(self, state: object, piece: int) -> Generator[None, Any, Any]:
        if piece >= 0:
            return []
        yield  # pragma: no cover


class TwoYields:
    @hookimpl(wrapper=True)
    def tokaido_tiebreak(self, state: object, piece: int) -> Generator[None, Any, Any]:
        results = yield
        yield
        return results  # pragma: no cover


class OldStyle:
    """An old-style ``hookwrapper``: such calls go through pluggy itself."""

    @hookimpl(hookwrapper=True)
    def tokaido_tiebreak(self, state: object, piece: int) -> Generator[None, Any, None]:
        outcome = yield
        outcome.force_result([*outcome.get_result(), 100])


SCENARIOS: list[Sequence[object]] = [
    [Plain(1)],
    [Plain(None)],
    [Plain(1), Plain(2), Plain(None)],
    [Plain(1, fail=True)],
    [Doubler(), Plain(1), Plain(2)],
    [Doubler(), Plain(1, fail=True)],
    [Doubler(), Plain(None)],
    [Doubler(), Doubler(), Plain(3)],
    [Reraiser(), Plain(1)],
    [Reraiser(), Plain(1), Plain(2)],
    [Doubler(), Reraiser(), Plain(1), Plain(2)],
    [Reraiser(), Doubler(), Plain(1), Plain(2)],
    [NoYield(), Plain(1)],
    [TwoYields(), Plain(1)],
    [OldStyle(), Plain(1)],
    [OldStyle(), Doubler(), Plain(1)],
]


@pytest.mark.parametrize("plugins", SCENARIOS, ids=lambda ps: "+".join(
    type(p).__name__ for p in ps))
def test_direct_calls_match_pluggy(plugins: Sequence[object]) -> None:
    pluggy_tiebreak, direct_tiebreak, pluggy_decider, direct_decider = _both(*plugins)
    for piece in (0, 3):
        assert _outcome(direct_tiebreak, "state", piece) == _outcome(
            pluggy_tiebreak, "state", piece)
        assert _outcome(direct_decider, "state", piece) == _outcome(
            pluggy_decider, "state", piece)


def test_wrapper_results_reach_the_ruleset_facade() -> None:
    """A worked case: two plain results, doubled by a wrapper that adds the piece."""
    _, direct, _, decider = _both(Doubler(), Plain(1), Plain(2))
    assert direct("state", 3) == [8, 10, 3]
    assert decider("state", 3) == 2

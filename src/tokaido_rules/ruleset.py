"""Rulesets: an explicit list of plugins, resolved, checked, ordered and registered.

A :class:`Ruleset` owns one pluggy plugin manager (never a global one), the
:class:`Registry` its plugins filled and the resolved option values. :class:`Rules` adds
what a single game fixes: the player count and any crafted setup.
"""

from __future__ import annotations

import difflib
import inspect
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import EntryPoint, entry_points
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy
from attrs import field, frozen
from packaging.version import Version

from . import hookspecs
from .chance import EVENT, KEYINGS
from .errors import (
    MissingRequirementError,
    OptionError,
    PluginConflictError,
    PluginDefinitionError,
    PluginError,
    SetupError,
    TokaidoError,
    UnknownPluginError,
)
from .events import CORE_EVENTS, Action, Move
from .frozen import EMPTY, FrozenMap, freeze
from .model import COLLECTION, SECRET, GameState, Space, Staged, Step
from .moves import (
    GAME_OVER_STEP,
    MOVE,
    START_COINS_STEP,
    _explain_move,
    _game_over,
    _start_coins,
    legal_moves,
    resolve_move,
)
from .registry import Registry
from .scene import Note

if TYPE_CHECKING:
    from .engine import Context
    from .scene import Scene

ENTRY_POINT_GROUP = "tokaido_rules"


def _str_tuple(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(items)


@frozen
class PluginInfo:
    """What a plugin declares about itself.

    A plugin is any object, usually an instance of a class or a module, with a
    ``tokaido_plugin`` attribute holding a ``PluginInfo`` and with its hook
    implementations as methods (or functions) marked ``@hookimpl``, each named like the
    hook it implements. Every other name starting with ``tokaido_`` is kept for hooks:
    one that matches no hook, or a hook's name without the marker, is a
    :class:`~tokaido_rules.errors.PluginDefinitionError` when the ruleset is built.
    ``requires`` lists plugin ids that must be enabled with it; ``conflicts`` ids that
    must not.
    """

    id: str
    version: str
    requires: tuple[str, ...] = field(default=(), converter=_str_tuple)
    conflicts: tuple[str, ...] = field(default=(), converter=_str_tuple)
    description: str = ""


def plugin_info(plugin: object) -> PluginInfo:
    info = getattr(plugin, "tokaido_plugin", None)
    if not isinstance(info, PluginInfo):
        raise PluginDefinitionError(f"{plugin!r} has no 'tokaido_plugin' PluginInfo")
    return info


def check_version(info: PluginInfo) -> Version:
    """A plugin's version, which must follow PEP 440 (as in ``1.2.0``): logs record it,
    and loading a log compares it with the installed one."""
    try:
        return Version(info.version)
    except (TypeError, ValueError):  # InvalidVersion, digits beyond int(), not a str
        raise PluginDefinitionError(f"plugin {info.id!r} has version {_short(info.version)}, "
                                    "which is not a PEP 440 version (such as 1.2.0)",
                                    info.id) from None


_INSTALLED: dict[tuple[str, ...], dict[str, EntryPoint]] = {}


def installed_plugins() -> dict[str, EntryPoint]:
    """The plugins installed in this environment, by id (entry-point name).

    Entry points are read once per import path (``sys.path``), as reading them is slow.
    """
    key = tuple(sys.path)
    found = _INSTALLED.get(key)
    if found is None:
        found = _INSTALLED[key] = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return dict(found)


def load_plugin(plugin_id: str) -> object:
    """Import the installed plugin ``plugin_id``; raise :class:`UnknownPluginError`."""
    eps = installed_plugins()
    if plugin_id not in eps:
        known = ", ".join(sorted(eps)) or "none"
        raise UnknownPluginError(f"unknown plugin {plugin_id!r} (installed: {known})")
    try:
        plugin = eps[plugin_id].load()
    except Exception as exc:  # a broken third-party plugin must not crash the caller
        raise PluginDefinitionError(f"plugin {plugin_id!r} failed to import: {exc}",
                                    plugin_id) from exc
    if plugin_info(plugin).id != plugin_id:
        raise PluginDefinitionError(
            f"entry point {plugin_id!r} loads plugin {plugin_info(plugin).id!r}", plugin_id
        )
    return plugin


def canonical_order(plugins: Sequence[object]) -> list[object]:
    """Order plugins dependencies first, then by id; check requirements and conflicts."""
    by_id: dict[str, object] = {}
    for p in plugins:
        pid = plugin_info(p).id
        if pid in by_id and by_id[pid] is not p:
            raise PluginDefinitionError(f"two different plugins have the id {pid!r}", pid)
        by_id[pid] = p
    for pid, p in by_id.items():
        info = plugin_info(p)
        missing = [r for r in info.requires if r not in by_id]
        if missing:
            raise MissingRequirementError(
                f"plugin {pid!r} requires {', '.join(map(repr, missing))}, which is not enabled"
            )
        clash = [c for c in info.conflicts if c in by_id]
        if clash:
            raise PluginConflictError(
                f"plugin {pid!r} conflicts with {', '.join(map(repr, clash))}"
            )
    ordered: list[object] = []
    done: set[str] = set()
    while len(ordered) < len(by_id):
        ready = sorted(
            pid for pid, p in by_id.items()
            if pid not in done and all(r in done for r in plugin_info(p).requires)
        )
        if not ready:
            raise PluginDefinitionError("plugins require each other in a cycle")
        done.add(ready[0])
        ordered.append(by_id[ready[0]])
    return ordered


PLUGIN_ATTRIBUTE = "tokaido_plugin"
"""The one name starting with ``tokaido_`` on a plugin that is not a hook."""


def check_hooks(pm: pluggy.PluginManager, plugin: object) -> None:
    """Check the hook implementations of ``plugin`` against the specifications added to
    ``pm``, without registering anything; raise a :class:`PluginDefinitionError` naming
    the plugin and the hook.

    pluggy alone would accept a misspelt hook name (and the ruleset would fail later,
    far from the cause), reject unknown arguments with an error of its own, and drop a
    method named like a hook but not marked ``@hookimpl`` without a word.
    """
    pid = plugin_info(plugin).id
    for name in _hook_candidates(plugin):
        opts = pm.parse_hookimpl_opts(plugin, name)  # None: not a marked routine
        if opts is None:
            if name.startswith("tokaido_") and name != PLUGIN_ATTRIBUTE and (
                    inspect.isroutine(getattr(plugin, name, None))):
                _check_unmarked(pm, pid, name)
            continue
        hook = opts.get("specname") or name
        caller = getattr(pm.hook, hook, None)
        spec = None if caller is None else caller.spec
        if spec is None:
            if opts.get("optionalhook"):
                continue  # a hook of another version of tokaido-rules: left uncalled
            raise PluginDefinitionError(
                f"plugin {pid!r}: hook {hook!r} matches no hook specification"
                f"{_did_you_mean(pm, hook)}", pid, hook)
        function = getattr(plugin, name)
        if inspect.isclass(plugin) and inspect.isfunction(inspect.getattr_static(plugin, name)):
            raise PluginDefinitionError(
                f"plugin {pid!r}: hook {hook!r} is a method of the class "
                f"{plugin.__name__!r} itself: enable an instance of it, not the class",
                pid, hook)
        impl = pluggy.HookImpl(plugin, pid, function, opts)
        unknown = [a for a in impl.argnames if a not in spec.argnames + spec.kwargnames]
        if unknown:
            listed = ", ".join(map(repr, unknown))
            raise PluginDefinitionError(
                f"plugin {pid!r}: hook {hook!r} takes "
                f"{'argument' if len(unknown) == 1 else 'arguments'} {listed}, which its "
                f"specification does not give (it gives: {', '.join(spec.argnames)})",
                pid, hook)
        if impl.wrapper and impl.hookwrapper:
            raise PluginDefinitionError(
                f"plugin {pid!r}: hook {hook!r} is marked both wrapper=True and "
                "hookwrapper=True (choose one)", pid, hook)
        if (impl.wrapper or impl.hookwrapper) and not inspect.isgeneratorfunction(function):
            raise PluginDefinitionError(
                f"plugin {pid!r}: hook {hook!r} is marked as a wrapper but is not a "
                "generator function (a wrapper yields once)", pid, hook)


_MARK = f"{hookspecs.PROJECT}_impl"  # the attribute @hookimpl sets on a function


def _hook_candidates(plugin: object) -> list[str]:
    """The names of ``plugin`` that may be hook implementations: those with the hooks'
    prefix, and those marked ``@hookimpl`` (``specname=`` lets any name implement a
    hook). Read from the namespaces themselves: asking pluggy about every attribute, as
    registering does, costs more than the rest of the check."""
    spaces: list[Mapping[str, object]] = []
    if hasattr(plugin, "__dict__"):
        spaces.append(vars(plugin))
    if not inspect.ismodule(plugin):
        cls = plugin if isinstance(plugin, type) else type(plugin)
        spaces.extend(vars(c) for c in cls.__mro__)
    names = {name for space in spaces for name, value in space.items()
             if name.startswith("tokaido_")
             or hasattr(getattr(value, "__func__", value), _MARK)}
    return sorted(names)


def _check_unmarked(pm: pluggy.PluginManager, pid: str, name: str) -> None:
    """A routine named with the hooks' prefix but not marked ``@hookimpl``."""
    caller = getattr(pm.hook, name, None)
    if caller is not None and caller.spec is not None:
        raise PluginDefinitionError(
            f"plugin {pid!r}: {name!r} is named like the hook but not marked @hookimpl, "
            "so it would never be called (mark it with @hookimpl)", pid, name)
    raise PluginDefinitionError(
        f"plugin {pid!r}: hook {name!r} matches no hook specification"
        f"{_did_you_mean(pm, name)}", pid, name)


def _did_you_mean(pm: pluggy.PluginManager, name: str) -> str:
    """`` (did you mean 'tokaido_x'?)`` for the nearest hook name, or nothing.

    Names are compared without the common ``tokaido_`` prefix, which would make every
    hook look close to every typo."""
    prefix = "tokaido_"
    known = [h[len(prefix):] for h in dir(pm.hook)
             if h.startswith(prefix) and getattr(pm.hook, h).spec is not None]
    given = name[len(prefix):] if name.startswith(prefix) else name
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.5)
    return f" (did you mean {prefix + close[0]!r}?)" if close else ""


class _CorePlugin:
    """The core's own registrations: its event types and the move decision."""

    tokaido_plugin = PluginInfo("core", "1")

    @staticmethod
    def register(registry: Registry) -> None:
        for cls in CORE_EVENTS:
            if issubclass(cls, Action):
                continue
            registry.add_event(cls)
        registry.add_zone(COLLECTION, "public")
        registry.add_zone(SECRET, "seat")
        registry.add_step(MOVE, legal=legal_moves, explain=_explain_move,  # type: ignore[arg-type]
                          ordered=True, answers=(Move,), words="choose where to stop",
                          doc="The rearmost traveller moves forward to a free space, never "
                              "past the next inn; the seat that ``tokaido_decider`` names "
                              "moves a traveller without a seat (the 2-player neutral).")
        registry.add_step(GAME_OVER_STEP, run=_game_over,
                          doc="Every traveller has reached the final inn: the journey ends "
                              "(``core.game_over``) and the end-of-game scoring steps follow.")
        registry.add_step(START_COINS_STEP, run=_start_coins,
                          doc="The starting coins given in the setup (``Setup.coins``) replace "
                              "the travellers' printed ones.")
        registry.add_action(Move, resolve_move)


def _coerce(spec_choices: tuple[object, ...], value: object) -> object:
    """Accept the textual form of a value (``"true"``, ``"3"``) as the CLI gives it."""
    if value in spec_choices or not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed


def _hook_caller(caller: Any) -> Callable[..., Any]:
    """A function calling one hook's implementations, resolved once per ruleset, with
    the hook's arguments given positionally in the order of its specification.

    The implementations are called directly, in pluggy's order, each with the arguments
    it declares (much cheaper than going through pluggy on every call). Wrappers
    (``wrapper=True``) are run as pluggy runs them (:func:`_wrapped`); an old-style
    ``hookwrapper`` or an implementation with keyword arguments sends the call through
    pluggy itself.
    """
    impls = list(reversed(caller.get_hookimpls()))
    spec_names: tuple[str, ...] = tuple(caller.spec.argnames)
    firstresult = bool(caller.spec.opts.get("firstresult"))
    if any(i.hookwrapper or i.kwargnames for i in impls):
        return lambda *args: caller(**dict(zip(spec_names, args, strict=True)))
    calls = [_positional(i.function, tuple(i.argnames), spec_names) for i in impls]
    if not calls:
        return _no_result if firstresult else _no_results
    if any(i.wrapper for i in impls):
        return _wrapped([(i.wrapper, c) for i, c in zip(impls, calls, strict=True)],
                        firstresult)
    if firstresult:
        def first(*args: Any) -> Any:
            for call in calls:
                result = call(*args)
                if result is not None:
                    return result
            return None
        return first
    if len(calls) == 1:
        only = calls[0]
        return lambda *args: [] if (r := only(*args)) is None else [r]
    return lambda *args: [r for call in calls if (r := call(*args)) is not None]


def _only_implementation(caller: Any) -> Callable[..., Any] | None:
    """The one implementation of a hook, taking the spec's arguments positionally, if
    it has exactly one and no wrapper: then a hook that runs at every decision can call
    it without the list of results (``None`` otherwise)."""
    impls = caller.get_hookimpls()
    if len(impls) != 1:
        return None
    impl = impls[0]
    if impl.hookwrapper or impl.wrapper or impl.kwargnames:
        return None
    return _positional(impl.function, tuple(impl.argnames), tuple(caller.spec.argnames))


def _no_result(*args: Any) -> None:
    return None


def _no_results(*args: Any) -> list[Any]:
    return []


def _wrapped(calls: list[tuple[bool, Callable[..., Any]]],
             firstresult: bool) -> Callable[..., Any]:
    """A hook call with new-style wrappers, run as pluggy's ``_multicall`` runs it: each
    wrapper up to its ``yield``, then the plain implementations, then the wrappers'
    endings innermost first, each receiving the result (or the exception) so far."""
    def call(*args: Any) -> Any:
        results: list[Any] = []
        exception: BaseException | None = None
        teardowns: list[Any] = []
        try:
            for is_wrapper, function in calls:
                if is_wrapper:
                    wrapper = function(*args)
                    try:
                        next(wrapper)
                    except StopIteration:
                        raise _wrapper_error(wrapper, "did not yield") from None
                    teardowns.append(wrapper)
                else:
                    result = function(*args)
                    if result is not None:
                        results.append(result)
                        if firstresult:
                            break
        except BaseException as exc:
            exception = exc
        outcome: Any = (results[0] if results else None) if firstresult else results
        for wrapper in reversed(teardowns):
            try:
                if exception is not None:
                    try:
                        wrapper.throw(exception)
                    except RuntimeError as error:  # a StopIteration raised inside
                        if isinstance(exception, StopIteration) and error.__cause__ is exception:
                            wrapper.close()
                            continue
                        raise
                else:
                    wrapper.send(outcome)
                wrapper.close()
            except StopIteration as stop:
                outcome = stop.value
                exception = None
                continue
            except BaseException as exc:
                exception = exc
                continue
            raise _wrapper_error(wrapper, "has second yield")
        if exception is not None:
            raise exception
        return outcome
    return call


def _wrapper_error(wrapper: Any, problem: str) -> RuntimeError:
    """The error pluggy raises for a misbehaving wrapper, worded as pluggy words it."""
    code = wrapper.gi_code
    return RuntimeError(f"wrap_controller at {code.co_name!r} {code.co_filename}:"
                        f"{code.co_firstlineno} {problem}")


def _positional(function: Callable[..., Any], names: tuple[str, ...],
                spec_names: tuple[str, ...]) -> Callable[..., Any]:
    """``function`` taking the spec's arguments positionally (it may declare fewer)."""
    if names == spec_names:
        return function
    indices = [spec_names.index(n) for n in names]
    return lambda *args: function(*[args[i] for i in indices])


class _Hooks:
    """Attribute access to every hook of a plugin manager through :func:`_hook_caller`."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        for name in dir(pm.hook):
            caller = getattr(pm.hook, name)
            if name.startswith("tokaido_") and caller.spec is not None:  # not optionalhook
                setattr(self, name, _hook_caller(caller))

    def __getattr__(self, name: str) -> Any:  # only reached for unknown hooks
        raise AttributeError(name)


_R = TypeVar("_R")
"""What a plugin's ``tokaido_fast_rules`` returns (:meth:`Hooks.fast_rules`)."""


class Hooks:
    """A typed facade over the ruleset's hook calls, so mypy checks every call site.

    A hook implementation that raises (anything but a
    :class:`~tokaido_rules.errors.TokaidoError`, which passes through) surfaces as a
    :class:`~tokaido_rules.errors.PluginError` naming the plugin and the hook. Hooks that
    run once per ruleset or game have their results checked too; those that run at every
    decision are not (a check there would cost every game its speed: the conformance kit
    checks them). The ``try`` blocks cost nothing until something is raised.
    """

    def __init__(self, pm: pluggy.PluginManager) -> None:
        hook = _Hooks(pm)
        self._pm = pm
        self._hook = hook
        self._forbidden = hook.tokaido_forbidden_stops
        self._forbidden_only = _only_implementation(pm.hook.tokaido_forbidden_stops)
        self._extra = hook.tokaido_extra_actions
        self.adds_actions = bool(pm.hook.tokaido_extra_actions.get_hookimpls())
        """Whether any plugin implements ``tokaido_extra_actions`` (if none does, the
        engine does not call it: it would be called at every decision)."""
        self._arrival = hook.tokaido_arrival_steps
        self._arrival_only = _only_implementation(pm.hook.tokaido_arrival_steps)
        self._gained = hook.tokaido_card_gained
        only_gained = _only_implementation(pm.hook.tokaido_card_gained)
        if only_gained is not None:  # its result is not used: no list of results
            self._gained = only_gained
        self._pay = hook.tokaido_pay

    def neutral_travellers(self, players: int) -> int:
        name = "tokaido_neutral_travellers"
        try:
            result = self._hook.tokaido_neutral_travellers(players)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised(name, exc) from exc

        if result is None or (type(result) is int and 0 <= result <= MAX_PIECES - players):
            return result or 0

        def check(found: object) -> str | None:
            if found is None:
                return None
            if type(found) is not int:
                return f"returned {_short(found)}, not an int"
            if found < 0 or players + found > MAX_PIECES:
                return (f"returned {found}: {players} players and {found} neutral travellers "
                        f"are not 0 to {MAX_PIECES} travellers in all")
            return None

        raise _blame(self._pm, name, (players,), check)

    def space_slots(self, players: int, space: Space) -> int:
        name = "tokaido_space_slots"
        try:
            result = self._hook.tokaido_space_slots(players, space)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised(name, exc) from exc
        if _slots_problem(result) is not None:
            raise _blame(self._pm, name, (players, space), _slots_problem)
        return result or 1

    def setup_steps(self, state: GameState) -> list[Staged]:
        return self._staged("tokaido_setup_steps", state)

    def decider(self, state: GameState, piece: int) -> int | None:
        name = "tokaido_decider"
        try:
            result = self._hook.tokaido_decider(state, piece)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised(name, exc) from exc
        if result is None or (type(result) is int and 0 <= result < state.rules.players):
            return result

        def check(found: object) -> str | None:
            if found is None or (type(found) is int and 0 <= found < state.rules.players):
                return None
            return f"returned {_short(found)}, not a seat of this game"

        raise _blame(self._pm, name, (state, piece), check)

    def forbidden_stops(self, state: GameState, piece: int,
                        positions: tuple[int, ...]) -> Mapping[int, str]:
        try:
            one = self._forbidden_only
            if one is not None:  # its one result, as below, without the list of results
                result = one(state, piece, positions)
                if result is None:
                    return EMPTY
                if type(result) is dict or isinstance(result, Mapping):
                    return result
                raise TypeError("not a mapping")  # blamed below
            found = self._forbidden(state, piece, positions)
            if len(found) == 1:
                only = found[0]
                if type(only) is dict or isinstance(only, Mapping):
                    return only
                raise TypeError("not a mapping")  # blamed below
            forbidden: dict[int, str] = {}
            for group in found:
                for position, reason in group.items():
                    forbidden.setdefault(position, reason)
            return forbidden
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_forbidden_stops", exc, (state, piece, positions),
                               _mapping_problem) from exc

    def extra_actions(self, state: GameState, step: Step) -> list[Action]:
        try:
            return [a for group in self._extra(state, step) for a in group]
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_extra_actions", exc, (state, step),
                               _ACTIONS_PROBLEM) from exc

    def ask_decision(self, state: GameState, step: Step) -> bool:
        try:
            return any(self._hook.tokaido_ask_decision(state, step))
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_ask_decision", exc) from exc

    def arrival_steps(self, state: GameState, piece: int) -> list[Staged]:
        try:
            only = self._arrival_only
            if only is not None:  # as _flatten of its one result, without the lists
                found = only(state, piece)
                if not found:
                    return []
                staged = list(found)
                if len(staged) > 1:
                    staged.sort(key=_ORDER)
                return staged
            return _flatten(self._arrival(state, piece))
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_arrival_steps", exc, (state, piece),
                               _STAGED_PROBLEM) from exc

    def card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        try:
            self._gained(ctx, piece, card, source)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_card_gained", exc) from exc

    def pay(self, ctx: Context, piece: int, amount: int, cards: tuple[str, ...]) -> bool:
        try:
            return bool(self._pay(ctx, piece, amount, cards))
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised("tokaido_pay", exc) from exc

    def end_steps(self, state: GameState) -> list[Staged]:
        return self._staged("tokaido_end_steps", state)

    def fast_rules(self, kind: type[_R]) -> list[tuple[object, _R | None]]:
        """Each plugin that implements ``tokaido_fast_rules``, with what it returned (a
        ``kind``: the fast simulator's :class:`~tokaido_rules.fast.FastRules`, which it
        passes in so that this module need not import it; or ``None``), in plugin order;
        anything else returned is a :class:`PluginError` naming the plugin. Called by the
        fast simulator only."""
        name = "tokaido_fast_rules"
        found: list[tuple[object, _R | None]] = []
        for impl in reversed(self._pm.hook.tokaido_fast_rules.get_hookimpls()):
            try:
                result = impl.function()
            except TokaidoError:
                raise
            except Exception as exc:
                raise self._raised(name, exc) from exc
            if result is not None and not isinstance(result, kind):
                pid = plugin_info(impl.plugin).id
                raise PluginError(f"plugin {pid!r}: {name} returned {_short(result)}, not "
                                  "a FastRules or None", pid, name)
            found.append((impl.plugin, result))
        return found

    def tiebreak(self, state: GameState, piece: int) -> int:
        results = self._results("tokaido_tiebreak", (state, piece), _int_problem)
        return sum(results)

    def action_space(self, rules: Rules) -> list[tuple[object, ...]]:
        groups = self._results("tokaido_action_space", (rules,), _TUPLES_PROBLEM)
        return [k for group in groups for k in group]

    def invariants(self, state: GameState) -> list[str]:
        groups = self._results("tokaido_invariants", (state,), _STRINGS_PROBLEM)
        return [p for group in groups for p in group]

    def render_notes(self, scene: Scene) -> list[Note]:
        """The notes of every plugin for a picture (:mod:`tokaido_rules.render`), in
        plugin order; a plugin returning anything but notes is a :class:`PluginError`."""
        groups = self._results("tokaido_render_notes", (scene,), _NOTES_PROBLEM)
        return [note for group in groups for note in group]

    def render_glossary(self, registry: Registry) -> FrozenMap[str, str]:
        """Every plugin's words for its things (``tokaido_render_glossary``), merged in
        plugin order (a later word replaces an earlier); a plugin that raises or returns
        anything but a mapping of str to str is a :class:`PluginError`. Uncached: ask
        :func:`tokaido_rules.scene.glossary`, which keeps it per ruleset."""
        name = "tokaido_render_glossary"
        args = (registry,)
        try:
            results = self._pm.hook.tokaido_render_glossary(registry=registry)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised(name, exc, args, _glossary_problem) from exc
        if not isinstance(results, list) or any(_glossary_problem(r) for r in results):
            raise _blame(self._pm, name, args, _glossary_problem)
        merged: dict[str, str] = {}
        for found in results:
            merged.update(found)
        return FrozenMap(merged)

    # --- checking -----------------------------------------------------------------------
    def _staged(self, name: str, state: GameState) -> list[Staged]:
        return _flatten(self._results(name, (state,), _STAGED_PROBLEM))

    def _results(self, name: str, args: tuple[Any, ...],
                 check: Callable[[object], str | None]) -> list[Any]:
        """Call a hook that runs once per game (or per check) and check every result."""
        try:
            results: list[Any] = getattr(self._hook, name)(*args)
        except TokaidoError:
            raise
        except Exception as exc:
            raise self._raised(name, exc, args, check) from exc
        if not isinstance(results, _RESULTS) or any(check(r) is not None for r in results):
            raise _blame(self._pm, name, args, check)
        return results

    def _raised(self, name: str, exc: BaseException, args: tuple[Any, ...] | None = None,
                check: Callable[[object], str | None] | None = None) -> PluginError:
        return _failure(self._pm, name, exc, args, check)


MAX_PIECES = 5
"""Travellers in one game, seated and neutral: the board's inns hold no more."""
MIN_PLAYERS = 2
MAX_PLAYERS = 5
"""A game seats 2 to 5 players (:func:`is_player_count`)."""


def is_player_count(players: object) -> bool:
    """Whether ``players`` is the player count of a game: an int (not a bool) from
    :data:`MIN_PLAYERS` to :data:`MAX_PLAYERS`. The one place that says so: the engine,
    the simulator, the wire format and the command line each raise their own error."""
    return type(players) is int and MIN_PLAYERS <= players <= MAX_PLAYERS


def check_players(players: object) -> int:
    """``players`` if it is a player count (:func:`is_player_count`), else a
    :class:`SetupError` saying what it must be."""
    if not is_player_count(players):
        raise SetupError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    assert isinstance(players, int)
    return players


def _short(value: object) -> str:
    """A value for an error message, cut short (a hook may return anything)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def describe_exception(exc: BaseException) -> str:
    """An exception for an error message: its type, and its text if it has one."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _slots_problem(found: object) -> str | None:
    if found is None or (type(found) is int and found >= 1):
        return None
    return f"returned {_short(found)}, not a number of slots (an int of at least 1)"


def _int_problem(found: object) -> str | None:
    return None if found is None or type(found) is int else f"returned {_short(found)}, not an int"


def _mapping_problem(found: object) -> str | None:
    if found is None or isinstance(found, Mapping):
        return None
    return f"returned {_short(found)}, not a mapping"


def _sequence_problem(kind: type) -> Callable[[object], str | None]:
    """A check that a result is a sequence of ``kind`` (a bare string is not one)."""
    def check(found: object) -> str | None:
        if found is None:
            return None
        if type(found) in (list, tuple) or (isinstance(found, Sequence)
                                            and not isinstance(found, str | bytes)):
            for item in found:  # type: ignore[attr-defined]
                if not isinstance(item, kind):
                    return (f"returned an item {_short(item)} that is not a "
                            f"{kind.__name__}")
            return None
        return f"returned {_short(found)}, not a sequence of {kind.__name__}"
    return check


_STAGED_PROBLEM = _sequence_problem(Staged)
_TUPLES_PROBLEM = _sequence_problem(tuple)
_STRINGS_PROBLEM = _sequence_problem(str)
_ACTIONS_PROBLEM = _sequence_problem(Action)


def _in_call_order(pm: pluggy.PluginManager, name: str) -> list[Any]:
    return list(reversed(getattr(pm.hook, name).get_hookimpls()))


def _failure(pm: pluggy.PluginManager, name: str, exc: BaseException,
             args: tuple[Any, ...] | None = None,
             check: Callable[[object], str | None] | None = None) -> PluginError:
    """The :class:`PluginError` for an exception raised while hook ``name`` ran: the
    plugin is the one whose implementation is in the traceback; if none is (the results
    could not be combined), the one whose result fails ``check``."""
    impls = _in_call_order(pm, name)
    codes: dict[Any, str] = {}
    for impl in impls:
        function = getattr(impl.function, "__func__", impl.function)
        code = getattr(function, "__code__", None)
        if code is not None:
            codes.setdefault(code, impl.plugin_name)
    tb = exc.__traceback__
    while tb is not None:
        plugin = codes.get(tb.tb_frame.f_code)
        if plugin is not None:
            return PluginError(f"plugin {plugin!r}: {name} raised "
                               f"{describe_exception(exc)}", plugin, name)
        tb = tb.tb_next
    if args is not None and check is not None:
        return _blame(pm, name, args, check)
    return _unattributed(impls, name, f"raised {describe_exception(exc)}")


def _blame(pm: pluggy.PluginManager, name: str, args: tuple[Any, ...],
           check: Callable[[object], str | None]) -> PluginError:
    """The :class:`PluginError` for a bad result of hook ``name``: each plain
    implementation is called again on its own (the hooks checked are free of side
    effects) to find the first whose result fails ``check``; if none does, a wrapper
    changed the results."""
    impls = _in_call_order(pm, name)
    given = dict(zip(getattr(pm.hook, name).spec.argnames, args, strict=True))
    for impl in impls:
        if impl.wrapper or impl.hookwrapper:
            continue
        try:
            result = impl.function(*(given[n] for n in impl.argnames))
        except TokaidoError:
            continue
        except Exception as exc:
            return PluginError(f"plugin {impl.plugin_name!r}: {name} raised "
                               f"{describe_exception(exc)}", impl.plugin_name, name)
        problem = check(result)
        if problem is not None:
            return PluginError(f"plugin {impl.plugin_name!r}: {name} {problem}",
                               impl.plugin_name, name)
    wrappers = [i for i in impls if i.wrapper or i.hookwrapper]
    return _unattributed(wrappers or impls, name, "gave results of the wrong type")


def _unattributed(impls: list[Any], name: str, problem: str) -> PluginError:
    ids = sorted({i.plugin_name for i in impls})
    if len(ids) == 1:
        return PluginError(f"plugin {ids[0]!r}: {name} {problem}", ids[0], name)
    who = ", ".join(map(repr, ids)) or "no plugin"
    return PluginError(f"{name} {problem} (implemented by {who})", None, name)


_NOTES_PROBLEM = _sequence_problem(Note)


def _glossary_problem(found: object) -> str | None:
    if found is None:
        return None
    if not isinstance(found, Mapping):
        return f"returned {type(found).__name__}, not a mapping of str to str"
    bad = next((k for k, v in found.items()
                if not isinstance(k, str) or not isinstance(v, str)), None)
    return None if bad is None else f"returned an entry {bad!r} that is not str to str"

_ORDER = attrgetter("order")


def _flatten(groups: Iterable[Sequence[Staged]]) -> list[Staged]:
    """All contributions in ``order``; equal orders keep plugin order (sort is stable)."""
    staged = [s for g in groups for s in g]
    if len(staged) > 1:
        staged.sort(key=_ORDER)
    return staged


_RESULTS = (list, tuple)
"""What a hook's results may be (a tuple: a type union would be made at each call)."""


class Ruleset:
    """An explicit, ordered set of plugins with their options, ready to create games.

    Build it with :meth:`build`; plugins are given by id (resolved through the
    ``tokaido_rules`` entry-point group) or as plugin objects.
    """

    def __init__(self, plugins: Sequence[object], options: Mapping[str, object]) -> None:
        self.plugins: tuple[object, ...] = tuple(canonical_order(plugins))
        for plugin in self.plugins:
            check_version(plugin_info(plugin))
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        for plugin in self.plugins:  # every plugin checked before any is registered
            check_hooks(self.pm, plugin)
        # pluggy calls the most recently registered plugin first: register in reverse so
        # that hooks run in canonical order (a plugin after those it requires).
        for plugin in reversed(self.plugins):
            pid = plugin_info(plugin).id
            try:
                self.pm.register(plugin, name=pid)
            except pluggy.PluginValidationError as exc:  # a check pluggy has and we lack
                raise PluginDefinitionError(f"plugin {pid!r}: {exc}", pid) from exc
        self.hooks = Hooks(self.pm)
        self.registry = Registry()
        self.registry.plugin = "core"
        _CorePlugin.register(self.registry)
        for plugin in self.plugins:
            self.registry.plugin = plugin_info(plugin).id
            self._call_own("tokaido_register", plugin, registry=self.registry)
        self.registry.plugin = ""
        if not self.registry.board:
            raise PluginDefinitionError("no enabled plugin sets a board")
        self.options: FrozenMap[str, object] = self._resolve_options(options)
        self._board_cache: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def _call_own(self, hook: str, plugin: object, **kwargs: Any) -> Any:
        """Call one plugin's implementation of a hook (passing the arguments it takes),
        so that registration runs plugin by plugin, in canonical order."""
        for impl in getattr(self.pm.hook, hook).get_hookimpls():
            if impl.plugin is plugin:
                try:
                    return impl.function(*(kwargs[name] for name in impl.argnames))
                except PluginDefinitionError as exc:  # e.g. a name the registry refused
                    if exc.plugin is None:
                        exc.plugin, exc.hook = plugin_info(plugin).id, hook
                    raise
                except TokaidoError:
                    raise
                except Exception as exc:
                    pid = plugin_info(plugin).id
                    raise PluginError(f"plugin {pid!r}: {hook} raised "
                                      f"{describe_exception(exc)}", pid, hook) from exc
        return None

    @classmethod
    def build(cls, plugins: Iterable[str | object] = ("base",),
              options: Mapping[str, object] | None = None) -> Ruleset:
        """Resolve plugin ids, check requirements and conflicts, register, set options."""
        objs = [load_plugin(p) if isinstance(p, str) else p for p in plugins]
        return cls(objs, options or {})

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(plugin_info(p).id for p in self.plugins)

    def info(self) -> tuple[PluginInfo, ...]:
        return tuple(plugin_info(p) for p in self.plugins)

    def _resolve_options(self, explicit: Mapping[str, object]) -> FrozenMap[str, object]:
        specs = self.registry.options
        values = {name: spec.default for name, spec in specs.items()}
        preset_by: dict[str, str] = {}
        for plugin in self.plugins:
            preset = self._call_own("tokaido_preset_options", plugin, registry=self.registry)
            if preset is not None and not isinstance(preset, Mapping):
                pid = plugin_info(plugin).id
                raise PluginError(f"plugin {pid!r}: tokaido_preset_options returned "
                                  f"{_short(preset)}, not a mapping", pid,
                                  "tokaido_preset_options")
            for name, value in (preset or {}).items():
                self._check_option(name, value, f"preset of plugin {plugin_info(plugin).id!r}")
                if name in preset_by and values[name] != value:
                    raise PluginConflictError(
                        f"plugins {preset_by[name]!r} and {plugin_info(plugin).id!r} set "
                        f"option {name!r} to different values"
                    )
                preset_by[name] = plugin_info(plugin).id
                values[name] = value
        for name, raw in explicit.items():
            if not isinstance(name, str) or name not in specs:
                known = ", ".join(sorted(specs)) or "none"
                raise OptionError(f"unknown option {name!r} (options of this ruleset: {known})")
            value = _coerce(specs[name].choices, raw)
            self._check_option(name, value, "option")
            values[name] = value
        return FrozenMap(values)

    def _check_option(self, name: str, value: object, where: str) -> None:
        spec = self.registry.options.get(name)
        if spec is None:
            raise OptionError(f"{where}: unknown option {name!r}")
        if value not in spec.choices or type(value) is not type(spec.default):
            choices = ", ".join(json.dumps(c) for c in spec.choices)
            raise OptionError(f"{where}: {name!r} cannot be {value!r} (choose from {choices})")

    def board_for(self, players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Slots per position and the next inn after each position, for a player count."""
        cached = self._board_cache.get(players)
        if cached is None:
            board = self.registry.board
            slots = tuple(
                0 if s.inn else self.hooks.space_slots(players, s) for s in board
            )
            next_inn = []
            for i in range(len(board)):
                j = i + 1
                while j < len(board) and not board[j].inn:
                    j += 1
                next_inn.append(min(j, len(board) - 1))
            cached = (slots, tuple(next_inn))
            self._board_cache[players] = cached
        return cached


def _keying(setup: object, attribute: object, value: object) -> None:
    if value not in KEYINGS:
        raise SetupError(f"chance keying must be one of {', '.join(KEYINGS)}, got {value!r}")


def _optional_tuple(items: Iterable[Any] | None) -> tuple[Any, ...] | None:
    return None if items is None else tuple(items)


def _tuples(mapping: Mapping[Any, Iterable[Any]]) -> FrozenMap[Any, tuple[Any, ...]]:
    return FrozenMap({k: tuple(v) for k, v in mapping.items()})


@frozen
class Setup:
    """A crafted start, for tests, plugin authors and reproductions of real games.

    - ``travellers``: a traveller name per seat (skips the offer).
    - ``queue``: the start-inn queue, piece indices from the road side; the last moves
      first. (In 2-player games the neutral traveller is piece 2.)
    - ``stacks``: per deck zone, cards to put on top in order (the rest stays shuffled).
    - ``coins``: per seat, the starting coins, replacing the traveller's printed coins
      (variants that adjust or spend starting coins, such as Preparations or Good Luck,
      apply after them).
    - ``chance``: per chance kind, the list of its next outcomes, used before the
      seeded generator. One outcome of ``shuffle.<deck>`` or ``order.<deck>`` is a full
      order of cards, of ``queue`` an order of pieces, of ``travellers.<seat>`` the two
      tiles offered, of a pick such as ``discard.base.inn_hand`` the card picked; e.g.
      ``{"order.base.meals": [("tempura", "dango")], "discard.base.inn_hand": ["soba"]}``.
    - ``keying``: how the seeded generator keys its draws: ``"event"`` (the default, by
      the event count) or ``"purpose"`` (by what is drawn for whom, so that games of one
      seed whose decisions differ share their chance outcomes: the duplicate format;
      :mod:`tokaido_rules.chance`). Any other value is a :class:`SetupError`.
    """

    travellers: tuple[str, ...] | None = field(default=None, converter=_optional_tuple)
    queue: tuple[int, ...] | None = field(default=None, converter=_optional_tuple)
    stacks: FrozenMap[str, tuple[str, ...]] = field(default=EMPTY, converter=_tuples)
    coins: FrozenMap[int, int] = field(default=EMPTY, converter=freeze)
    chance: FrozenMap[str, tuple[Any, ...]] = field(default=EMPTY, converter=_tuples)
    keying: str = field(default=EVENT, validator=_keying)


@frozen
class Rules:
    """What one game fixes: its ruleset, player count, crafted setup and board layout.

    ``registry``, ``hooks``, ``options``, ``board``, ``start`` and ``end`` are plain
    attributes derived from the ruleset (read on every rule check, so not properties).
    """

    ruleset: Ruleset = field(eq=False)
    players: int
    neutrals: int
    setup: Setup
    slots: tuple[int, ...]
    next_inn: tuple[int, ...]
    registry: Registry = field(init=False, eq=False, repr=False)
    hooks: Hooks = field(init=False, eq=False, repr=False)
    options: FrozenMap[str, object] = field(init=False, eq=False, repr=False)
    board: tuple[Space, ...] = field(init=False, eq=False, repr=False)
    start: int = field(init=False, eq=False, repr=False)
    end: int = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        derived = {
            "registry": self.ruleset.registry, "hooks": self.ruleset.hooks,
            "options": self.ruleset.options, "board": self.ruleset.registry.board,
            "start": 0, "end": len(self.ruleset.registry.board) - 1,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def option(self, name: str) -> object:
        return self.ruleset.options[name]

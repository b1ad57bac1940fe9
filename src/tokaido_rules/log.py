"""Event logs: a documented JSON Lines format, strict loading, replay and verification.

Line 1 is a header (format and version, engine version, the ruleset with plugin
versions and options, players, seed, crafted setup); every further line is one event::

    {"seq": 17, "type": "core.coins", "v": 1, "data": {"piece": 2, "delta": 3}}

Events are (de)serialized with a cattrs converter built per ruleset from the event types
its plugins registered: no class paths in files, no executable serialization, no importing names
read from a file. Loading folds the events (it re-runs no rules and rolls no dice) and
raises a :class:`~tokaido_rules.errors.LogError` subclass naming the line and the problem
for anything that does not fit; nothing is ever half-loaded. See ``docs/log-format.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, get_args, get_origin

import cattrs
from attrs import frozen
from cattrs.gen import make_dict_structure_fn

from .engine import Game, initial_state, make_rules, new_game
from .errors import (
    IllegalActionError,
    LogFormatError,
    LogPluginError,
    LogSequenceError,
    LogStateError,
    LogVersionError,
    TokaidoError,
)
from .events import Action, Event, fold
from .frozen import FrozenMap
from .model import GameState, Piece, Step
from .registry import Registry
from .ruleset import Rules, Ruleset, Setup, installed_plugins, load_plugin, plugin_info

FORMAT = "tokaido-log"
FORMAT_VERSION = 1
MAX_LINE = 1_000_000
"""The longest line accepted, in characters (a real event is a few hundred)."""

HEADER_KEYS = ("format", "format_version", "engine", "plugins", "options", "players",
               "seed", "setup")
EVENT_KEYS = ("seq", "type", "v", "data")


# --- the converter --------------------------------------------------------------------


def freeze_json(value: Any) -> Any:
    """JSON data as state values: lists become tuples, objects become FrozenMaps."""
    if isinstance(value, list):
        return tuple(freeze_json(v) for v in value)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("object keys must be strings")
        return FrozenMap({k: freeze_json(v) for k, v in value.items()})
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"unexpected value {value!r}")


def _strict(kind: type) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    return structure


def make_converter() -> cattrs.Converter:
    """A strict converter: no coercion (``"3"`` is not an int), no extra keys."""
    conv = cattrs.Converter(forbid_extra_keys=True)
    for kind in (int, str, bool):
        conv.register_structure_hook(kind, _strict(kind))

    def is_tuple(t: Any) -> bool:
        return get_origin(t) is tuple

    def tuple_hook(t: Any) -> Callable[[Any, Any], tuple[Any, ...]]:
        """A structure function for one tuple type, made once per type."""
        args = get_args(t)
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            if item in (int, str):
                def structure_plain(value: Any, _: Any) -> tuple[Any, ...]:
                    if not isinstance(value, list):
                        raise TypeError(f"expected a list, got {type(value).__name__}")
                    for v in value:
                        if type(v) is not item:
                            raise TypeError(f"expected {item.__name__}, got "
                                            f"{type(v).__name__} {v!r}")
                    return tuple(value)
                return structure_plain

            def structure_items(value: Any, _: Any) -> tuple[Any, ...]:
                if not isinstance(value, list):
                    raise TypeError(f"expected a list, got {type(value).__name__}")
                return tuple(conv.structure(v, item) for v in value)
            return structure_items

        def structure_fixed(value: Any, _: Any) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise TypeError(f"expected a list, got {type(value).__name__}")
            if len(args) != len(value):
                raise TypeError(f"expected {len(args)} items, got {len(value)}")
            return tuple(conv.structure(v, a) for v, a in zip(value, args, strict=True))
        return structure_fixed

    conv.register_structure_hook_factory(is_tuple, tuple_hook)

    def is_frozen_map(t: Any) -> bool:
        return t is FrozenMap or get_origin(t) is FrozenMap

    def structure_map(value: Any, _: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {type(value).__name__}")
        return freeze_json(value)

    conv.register_structure_hook_func(is_frozen_map, structure_map)
    conv.register_structure_hook_func(lambda t: t is Any, lambda v, _: freeze_json(v))
    return conv


_CONVERTER = make_converter()
"""For the header and snapshots, whose types belong to the core."""

Structurer = Callable[[Any, Any], Any]
_RULESET_CONVERTERS: dict[tuple[type[Event], ...],
                          tuple[cattrs.Converter, dict[type[Event], Structurer]]] = {}


def converter_for(ruleset: Ruleset) -> cattrs.Converter:
    """The converter of a ruleset's events, built once every plugin has registered its
    event types: a structure function is generated for each of them, and only for them.
    Rulesets with the same event types share one (it holds no other state)."""
    return _converter_and_structurers(ruleset)[0]


def _converter_and_structurers(
        ruleset: Ruleset) -> tuple[cattrs.Converter, dict[type[Event], Structurer]]:
    """The converter, and its structure function of each event type (called directly
    when loading a log: it saves the converter's dispatch on every event)."""
    key = tuple(ruleset.registry.events.values())
    found = _RULESET_CONVERTERS.get(key)
    if found is None:
        conv = make_converter()
        structurers: dict[type[Event], Structurer] = {}
        for cls in key:
            structurers[cls] = make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True)
            conv.register_structure_hook(cls, structurers[cls])
        found = _RULESET_CONVERTERS[key] = (conv, structurers)
    return found


def event_data(event: Event) -> dict[str, Any]:
    """An event's fields as JSON-ready data."""
    return _CONVERTER.unstructure(event)  # type: ignore[no-any-return]


def event_line(seq: int, event: Event, data: Mapping[str, Any] | None = None,
               withheld: tuple[str, ...] = ()) -> str:
    line: dict[str, Any] = {"seq": seq, "type": event.TYPE, "v": event.VERSION,
                            "data": event_data(event) if data is None else data}
    if withheld:
        line["withheld"] = list(withheld)
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


# --- the header ------------------------------------------------------------------------


def _setup_data(setup: Setup, *, public_only: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "travellers": None if setup.travellers is None else list(setup.travellers),
        "queue": None if setup.queue is None else list(setup.queue),
        "coins": {str(seat): coins for seat, coins in setup.coins.items()},
    }
    if not public_only:  # stacked decks and scripted outcomes are hidden information
        data["stacks"] = {k: list(v) for k, v in setup.stacks.items()}
        data["chance"] = {k: [_thaw(o) for o in v] for k, v in setup.chance.items()}
    return data


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def header(game: Game, viewer: int | None = None) -> dict[str, Any]:
    """The header of a game's log; a seat's copy has no seed and no hidden setup."""
    from . import __version__

    rules = game.state.rules
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "engine": __version__,
        "plugins": [{"id": i.id, "version": i.version} for i in game.ruleset.info()],
        "options": dict(game.ruleset.options),
        "players": rules.players,
    }
    if viewer is None:
        doc["seed"] = game.seed
    else:
        doc["viewer"] = viewer
    doc["setup"] = _setup_data(rules.setup, public_only=viewer is not None)
    return doc


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in version.split("."))


# --- dumping -----------------------------------------------------------------------------


def dump_log(game: Game, viewer: int | None = None) -> str:
    """The game's log as JSON Lines text; with ``viewer``, that seat's copy.

    In a seat's copy every event keeps its sequence number and type; fields the seat may
    not see are left out of ``data`` and named in ``withheld``.
    """
    lines = [json.dumps(header(game, viewer), separators=(",", ":"), ensure_ascii=False)]
    if viewer is None:
        lines.extend(event_line(seq, e) for seq, e in enumerate(game.events))
    else:
        from .views import redacted_events

        for seq, (event, data, withheld) in enumerate(redacted_events(game, viewer)):
            lines.append(event_line(seq, event, data, withheld))
    return "\n".join(lines) + "\n"


# --- loading -----------------------------------------------------------------------------


@frozen
class _Header:
    ruleset: Ruleset
    players: int
    seed: int
    setup: Setup


def _parse_line(text: str, number: int) -> dict[str, Any]:
    if len(text) > MAX_LINE:
        raise LogFormatError(f"line longer than {MAX_LINE} characters", number)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"not valid JSON {_where(text, exc.pos)}", number) from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise LogFormatError(f"not valid JSON ({exc})", number) from None
    if not isinstance(obj, dict):
        raise LogFormatError("expected a JSON object", number)
    return obj


def _where(text: str, pos: int) -> str:
    """Where a line stops being JSON, told from the line itself: the decoder's own
    message is not used, as PyPy's can be malformed text when the line holds a lone
    surrogate (formatting it then fails inside the interpreter)."""
    if pos >= len(text):
        return f"(it ends at column {pos + 1}, unfinished)"
    return f"at column {pos + 1} (found {text[pos]!r})"


def _check_keys(obj: Mapping[str, Any], keys: tuple[str, ...], number: int,
                optional: tuple[str, ...] = ()) -> None:
    missing = [k for k in keys if k not in obj]
    unknown = [k for k in obj if k not in keys and k not in optional]
    if missing:
        raise LogFormatError(f"missing key(s) {', '.join(missing)}", number)
    if unknown:
        raise LogFormatError(f"unknown key(s) {', '.join(unknown)}", number)


def _parse_header(obj: dict[str, Any], known: Iterable[object] = ()) -> _Header:
    if obj.get("format") != FORMAT:
        raise LogFormatError(f"not a {FORMAT} file (format {obj.get('format')!r})", 1)
    if "viewer" in obj:
        raise LogFormatError("this is a seat's copy of a log (hidden facts withheld); only "
                             "a full log can be loaded as a game", 1)
    _check_keys(obj, HEADER_KEYS, 1)
    version = obj["format_version"]
    if type(version) is not int:
        raise LogFormatError("format_version must be an integer", 1)
    if version > FORMAT_VERSION:
        raise LogVersionError(f"log format version {version} is newer than this engine's "
                              f"({FORMAT_VERSION}); upgrade tokaido-rules", 1)
    try:
        plugins = _CONVERTER.structure(obj["plugins"], tuple[_PluginEntry, ...])
        options = _CONVERTER.structure(obj["options"], dict[str, Any])
        players = _CONVERTER.structure(obj["players"], int)
        seed = _CONVERTER.structure(obj["seed"], int)
        setup = _CONVERTER.structure(obj["setup"], _SetupData)
    except Exception as exc:
        raise LogFormatError(f"bad header: {_describe(exc)}", 1) from None
    installed = installed_plugins()
    given = {plugin_info(p).id: p for p in known}
    objects = []
    for entry in plugins:
        if entry.id in given:
            plugin = given[entry.id]
        elif entry.id not in installed:
            raise LogPluginError(f"plugin {entry.id!r} (version {entry.version}) is not "
                                 "installed", 1)
        else:
            try:
                plugin = load_plugin(entry.id)
            except TokaidoError as exc:
                raise LogPluginError(str(exc), 1) from None
        have = plugin_info(plugin).version
        if _version_key(entry.version) > _version_key(have):
            raise LogVersionError(f"log written with plugin {entry.id!r} {entry.version}, "
                                  f"newer than the installed {have}", 1)
        objects.append(plugin)
    try:
        ruleset = _ruleset(tuple(objects), tuple(sorted(options.items())))
        full_setup = Setup(
            travellers=setup.travellers,
            queue=setup.queue,
            stacks=setup.stacks or {},
            coins={int(k): v for k, v in setup.coins.items()},
            chance={k: tuple(freeze_json(o) for o in v) for k, v in (setup.chance or {}).items()},
        )
    except TokaidoError as exc:
        raise LogPluginError(f"bad ruleset: {exc}", 1) from None
    except ValueError as exc:
        raise LogFormatError(f"bad setup: {exc}", 1) from None
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise LogFormatError("seed out of range", 1)
    return _Header(ruleset, players, seed, full_setup)


@lru_cache(maxsize=32)
def _ruleset(plugins: tuple[object, ...], options: tuple[tuple[str, Any], ...]) -> Ruleset:
    """Logs of the same ruleset share one (rulesets are never changed once built)."""
    return Ruleset(plugins, dict(options))


@frozen
class _PluginEntry:
    id: str
    version: str


@frozen
class _SetupData:
    travellers: tuple[str, ...] | None
    queue: tuple[int, ...] | None
    coins: dict[str, int]
    stacks: dict[str, tuple[str, ...]] | None = None
    chance: dict[str, tuple[Any, ...]] | None = None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(exc))
    return str(exc) or type(exc).__name__


_EVENT_KEY_SET = frozenset(EVENT_KEYS)


def _parse_event(obj: dict[str, Any], number: int, seq: int, registry: Registry,
                 structurers: dict[type[Event], Structurer]) -> Event:
    if obj.keys() != _EVENT_KEY_SET:
        _check_keys(obj, EVENT_KEYS, number)
    if type(obj["seq"]) is not int:
        raise LogFormatError("seq must be an integer", number)
    if obj["seq"] != seq:
        raise LogSequenceError(f"expected seq {seq}, found {obj['seq']}", number)
    kind = obj["type"]
    cls = registry.events.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise LogFormatError(f"unknown event type {kind!r}", number)
    version, data = obj["v"], obj["data"]
    if type(version) is not int or version < 1:
        raise LogFormatError("v must be a positive integer", number)
    if not isinstance(data, dict):
        raise LogFormatError("data must be an object", number)
    if version > cls.VERSION:
        raise LogVersionError(f"event {kind} version {version} is newer than the installed "
                              f"version {cls.VERSION}", number)
    while version < cls.VERSION:
        upcast = registry.upcasters.get((kind, version))
        if upcast is None:
            raise LogVersionError(f"event {kind} version {version} cannot be upgraded (no "
                                  f"upcaster from version {version})", number)
        try:
            data = upcast(dict(data))
        except Exception as exc:
            raise LogFormatError(f"cannot upgrade {kind} v{version}: {_describe(exc)}",
                                 number) from None
        version += 1
    try:
        return structurers[cls](data, cls)  # type: ignore[no-any-return]
    except Exception as exc:
        raise LogFormatError(f"bad {kind} data: {_describe(exc)}", number) from None


def _lines(text: str) -> list[str]:
    if not isinstance(text, str):
        raise LogFormatError("a log is text")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise LogFormatError("empty log")
    return lines


def _event_objects(lines: list[str]) -> list[dict[str, Any]]:
    """The JSON objects of the event lines: parsed in one call when all is well (much
    faster), else line by line to name the first bad line."""
    for number, line in enumerate(lines[1:], start=2):
        if len(line) > MAX_LINE:
            raise LogFormatError(f"line longer than {MAX_LINE} characters", number)
    try:
        objs = json.loads("[" + ",".join(lines[1:]) + "]")
    except ValueError:
        objs = None
    if objs is None or len(objs) != len(lines) - 1 or not all(
            isinstance(o, dict) for o in objs):
        return [_parse_line(line, number) for number, line in enumerate(lines[1:], start=2)]
    return objs  # type: ignore[no-any-return]


def read_log(text: str, plugins: Iterable[object] = ()) -> tuple[_Header, list[Event], Game]:
    """Parse and fold a full log strictly; return its header, events and the game."""
    lines = _lines(text)
    head = _parse_header(_parse_line(lines[0], 1), plugins)
    try:
        rules = make_rules(head.ruleset, head.players, head.setup)
    except TokaidoError as exc:
        raise LogFormatError(f"bad game parameters: {exc}", 1) from None
    state = initial_state(rules, head.seed)
    registry = head.ruleset.registry
    structurers = _converter_and_structurers(head.ruleset)[1]
    events: list[Event] = []
    for number, obj in enumerate(_event_objects(lines), start=2):
        event = _parse_event(obj, number, len(events), registry, structurers)
        try:
            state = fold(state, event)
        except Exception as exc:  # any failure of a fold means the event does not fit
            raise LogStateError(f"{event.TYPE} does not fit the game: {_describe(exc)}",
                                number) from None
        events.append(event)
    game = Game(state, tuple(events))
    try:
        game.legal_actions()
    except Exception as exc:
        raise LogStateError(f"the log ends in a state the rules cannot continue: "
                            f"{_describe(exc)}", len(lines)) from None
    return head, events, game


def load_log(text: str, *, plugins: Iterable[object] = ()) -> Game:
    """Load a full log into a game equal to the live one, ready to be continued.

    Loading folds the events; it re-runs no rules and rolls no dice. Plugins are found
    by id among ``plugins`` (objects, e.g. one under development), then among the
    installed ones. Raises a :class:`~tokaido_rules.errors.LogError` subclass for anything
    that does not fit.
    """
    return read_log(text, plugins)[2]


# --- verification ----------------------------------------------------------------------------


@frozen
class Verification:
    """The result of :func:`verify_log`: ``ok``, or the first ``seq`` where the current
    rules disagree with the log, and why."""

    ok: bool
    seq: int | None
    message: str
    decisions: int


def verify_log(text: str, *, plugins: Iterable[object] = ()) -> Verification:
    """Re-run the current rules on the log's decisions, serving its recorded chance
    outcomes (no re-seeding), and report the first event where they disagree.

    This is how a rules change is checked against old games. The log must load.
    """
    head, events, _ = read_log(text, plugins)
    script: dict[str, list[Any]] = {}
    for event in events:
        kind = event.chance_kind()
        if kind is not None:
            script.setdefault(kind, []).append(event.chance_outcome())
    setup = Setup(head.setup.travellers, head.setup.queue, head.setup.stacks,
                  head.setup.coins, script)
    decisions = 0
    try:
        game = new_game(head.players, head.seed, head.ruleset, setup=setup)
    except Exception as exc:
        return Verification(False, 0, f"setup fails under the current rules: {exc}", 0)
    for seq, event in enumerate(events):
        produced = game.events
        if seq < len(produced):
            if produced[seq] != event:
                return Verification(False, seq, _mismatch(produced[seq], event), decisions)
            continue
        if seq > len(produced):  # unreachable: produced grows one decision at a time
            break
        if not isinstance(event, Action):
            return Verification(False, seq, f"the log has {event.TYPE} where the current "
                                "rules wait for a decision", decisions)
        try:
            game = game.apply(event)
        except IllegalActionError as exc:
            return Verification(False, seq, f"decision {event} is not legal under the "
                                f"current rules: {exc}", decisions)
        except Exception as exc:  # e.g. a recorded chance outcome that cannot happen now
            return Verification(False, seq, f"the current rules cannot play decision "
                                f"{event} with the recorded outcomes: {_describe(exc)}",
                                decisions)
        decisions += 1
    if len(game.events) > len(events):
        extra = game.events[len(events)]
        return Verification(False, len(events), f"the current rules add {extra.TYPE} "
                            "after the log's last event", decisions)
    return Verification(True, None, f"{len(events)} events and {decisions} decisions agree "
                        "with the current rules", decisions)


def _mismatch(produced: Event, recorded: Event) -> str:
    return (f"the log has {recorded.TYPE} {event_data(recorded)}, the current rules give "
            f"{produced.TYPE} {event_data(produced)}")


# --- state snapshots -----------------------------------------------------------------------

STATE_KEYS = ("seed", "pieces", "zones", "agenda", "data", "script", "seq", "turn", "over")


def dump_state(state: GameState) -> str:
    """A JSON snapshot of a state (without its rules, which the log header carries)."""
    data = {key: _CONVERTER.unstructure(getattr(state, key)) for key in STATE_KEYS}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def load_state(text: str, rules: Rules) -> GameState:
    """Read a snapshot written by :func:`dump_state` for a game with these ``rules``."""
    obj = _parse_line(text, 1)
    _check_keys(obj, STATE_KEYS, 1)
    try:
        return GameState(
            rules=rules,
            seed=_CONVERTER.structure(obj["seed"], int),
            pieces=_CONVERTER.structure(obj["pieces"], tuple[Piece, ...]),
            zones=_CONVERTER.structure(obj["zones"], dict[str, tuple[str, ...]]),
            agenda=_CONVERTER.structure(obj["agenda"], tuple[Step, ...]),
            data=_CONVERTER.structure(obj["data"], FrozenMap[str, Any]),
            script=_CONVERTER.structure(obj["script"], FrozenMap[str, Any]),
            seq=_CONVERTER.structure(obj["seq"], int),
            turn=_CONVERTER.structure(obj["turn"], int),
            over=_CONVERTER.structure(obj["over"], bool),
        )
    except Exception as exc:
        raise LogFormatError(f"bad state: {_describe(exc)}", 1) from None

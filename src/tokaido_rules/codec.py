"""The one codec of event and action data: the strict cattrs converter that turns JSON
data into events, actions, steps and the header's values (no coercion: ``"3"`` is not an
int, no extra keys), and back (:func:`event_data`).

:mod:`~tokaido_rules.log` reads and writes log lines with it and
:mod:`~tokaido_rules.wire` exchanges messages with it; :func:`~tokaido_rules.views.redact`
cuts a seat's copy of an event's data from :func:`event_data`. It knows no game: it sits
below the engine, the log and the wire format, so that none of them imports another to
reach it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache, partial
from operator import itemgetter
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn
from cattrs.v import format_exception

from .events import Event
from .frozen import EMPTY, FrozenMap

if TYPE_CHECKING:
    from .ruleset import Ruleset

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects accepted in a value of free form (a plugin's
data); real values nest three or four deep."""


def _shown(value: object) -> str:
    """A value read from a file, for a message: its repr, cut short."""
    try:
        text = repr(value)
    except Exception:  # e.g. an integer too long to print
        return f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _format(exc: BaseException, kind: type | None) -> str:
    """One problem found while structuring: its own message when it has one (the strict
    hooks above say what they expected and found), else cattrs' wording."""
    if isinstance(exc, TypeError | ValueError) and str(exc):
        text = str(exc)
        return text if len(text) <= 200 else text[:197] + "..."
    return format_exception(exc, kind)


# --- the converter --------------------------------------------------------------------


_SCALARS = (bool, int, str)
"""The scalars of JSON data but null (a tuple: a type union would be made at each
value)."""


_LEAVES = frozenset({str, int, bool, type(None)})
"""The exact types of the JSON values :func:`freeze_json` keeps as they are: a value of
one of them is kept without a call (most values of a line's data are)."""
_STR_KEYS = frozenset({str})


def freeze_json(value: Any, depth: int = 0) -> Any:
    """JSON data as state values: lists become tuples, objects become FrozenMaps.

    Nesting deeper than :data:`MAX_DEPTH` is refused: a file must not be able to make
    comparing or printing its values exhaust the interpreter's stack.
    """
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise TypeError(f"values nested deeper than {MAX_DEPTH} levels")
        return tuple([v if type(v) in _LEAVES else freeze_json(v, depth + 1) for v in value])
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            raise TypeError(f"values nested deeper than {MAX_DEPTH} levels")
        if not set(map(type, value)) <= _STR_KEYS and not all(
                isinstance(k, str) for k in value):  # (a str subclass is a string too)
            raise TypeError("object keys must be strings")
        return FrozenMap({k: v if type(v) in _LEAVES else freeze_json(v, depth + 1)
                          for k, v in value.items()})
    if value is None or isinstance(value, _SCALARS):
        return value
    raise TypeError(f"unexpected value {_shown(value)}")


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
            slow = make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True)
            conv.register_structure_hook(cls, slow)
            structurers[cls] = _with_fast_path(cls, slow)
        found = _RULESET_CONVERTERS[key] = (conv, structurers)
    return found


class _NotPlain(Exception):
    """Raised by a fast structurer for data it does not take: the converter decides."""


def _with_fast_path(cls: type, slow: Structurer) -> Structurer:
    """``slow`` (the converter's structure function of ``cls``) behind a fast path for
    the data a log usually holds: every field present, of exactly its type
    (:func:`_plain_structurer`). Any other data, including data that is wrong, goes to
    ``slow``, so results and error messages are the converter's own."""
    return _plain_structurer(cls, slow) or slow


_PLAIN_TYPES = (int, str, bool)
_JSON_TYPES = frozenset({type(None), bool, int, float, str, list, dict})
_MOST_SHAPES = 64
"""A class whose fields may hold more combinations of JSON types than this gets no
fast path (real events have one, two or seven)."""

Convert = Callable[[Any], Any]


@lru_cache(maxsize=1024)  # a class each: bounded only against classes made on the fly
def _plain_structurer(cls: type, slow: Structurer | None = None) -> Structurer | None:
    """A structure function making ``cls`` from a dict holding all its fields, each
    exactly of its declared type (JSON has no other way to hold them): fields of type
    int, str, bool, one of those or ``None``, a tuple of int or str, a tuple of attrs
    instances made the same way, a FrozenMap or ``Any`` (frozen as the converter freezes
    them). Other data goes to ``slow``, or raises without one. ``None`` for a class with
    a field of another type.

    Made once per class, from the field types, and run for every line of a log: the
    values are taken and their types checked in C (one ``itemgetter``, one set lookup
    of the tuple of their types); only the fields that need converting run Python."""
    if not attrs.has(cls):
        return None
    try:
        hints = get_type_hints(cls)
    except Exception:  # a hint that does not resolve: the converter alone decides
        return None
    fields = attrs.fields(cls)
    if not fields or any(not f.init or f.kw_only or f.alias != f.name for f in fields):
        return None
    allowed: list[frozenset[type]] = []
    converts: list[tuple[int, Convert]] = []
    for i, f in enumerate(fields):
        found = _plain_field(hints.get(f.name, Any))
        if found is None:
            return None
        allowed.append(found[0])
        if found[1] is not None:
            converts.append((i, found[1]))
    shapes = 1
    for kinds in allowed:
        shapes *= len(kinds)
    if shapes > _MOST_SHAPES:
        return None
    valid = frozenset(itertools.product(*allowed))
    names = [f.name for f in fields]
    count = len(names)
    pick: Callable[[Any], tuple[Any, ...]] = (
        itemgetter(*names) if count > 1 else lambda data: (data[names[0]],))

    def structure(data: Any, kind: Any = cls) -> Any:
        try:
            values = pick(data)  # every field there (else KeyError), and nothing else
            if len(data) == count and tuple(map(type, values)) in valid:
                if not converts:
                    return cls(*values)
                converted = list(values)
                for i, convert in converts:
                    converted[i] = convert(converted[i])
                return cls(*converted)
        except Exception:
            if slow is None:
                raise
        if slow is None:
            raise _NotPlain
        return slow(data, kind)

    return structure


def _plain_field(kind: Any) -> tuple[frozenset[type], Convert | None] | None:
    """The JSON types a field of type ``kind`` may hold, and what converts such a value
    (``None``: kept as it is); ``None`` for a type without a fast path."""
    if kind in _PLAIN_TYPES:
        return frozenset({kind}), None
    if kind is Any:
        return _JSON_TYPES, freeze_json
    if kind is FrozenMap or get_origin(kind) is FrozenMap:
        return frozenset({dict}), _frozen_map
    args = get_args(kind)
    if get_origin(kind) in (Union, UnionType) and len(args) == 2 and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        return (frozenset({other, type(None)}), None) if other in _PLAIN_TYPES else None
    if get_origin(kind) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if item in (int, str):
            return frozenset({list}), partial(_plain_tuple, frozenset({item}))
        inner = _plain_structurer(item) if isinstance(item, type) else None
        if inner is not None:
            return frozenset({list}), partial(_tuple_of, inner)
    return None


def _frozen_map(value: dict[str, Any]) -> FrozenMap[str, Any]:
    return freeze_json(value) if value else EMPTY


def _plain_tuple(kinds: frozenset[type], value: list[Any]) -> tuple[Any, ...]:
    if value and not kinds.issuperset(map(type, value)):
        raise _NotPlain
    return tuple(value)


def _tuple_of(structure: Callable[..., Any], value: list[Any]) -> tuple[Any, ...]:
    return tuple(map(structure, value))


def event_data(event: Event) -> dict[str, Any]:
    """An event's fields as JSON-ready data."""
    return _CONVERTER.unstructure(event)  # type: ignore[no-any-return]

"""The wire format: actions, steps and views as JSON, and JSON Schemas for them and for
the lines of a log.

Servers and clients in other languages exchange these with the library. An action is a
flat object, its type's wire name beside its fields::

    {"type": "base.donate", "seat": 0, "piece": 0, "amount": 2}

a step is ``{"kind": ..., "piece": ..., "seat": ..., "data": {...}}`` and a view is
every field of :class:`~tokaido_rules.View` (its legal actions encoded as above, its
``seq``, and the ruleset's plugins and options; never the seed; ``seat`` null for the
public view, what every seat may see).

The encoders return JSON-ready data (dicts, lists, strings, integers, booleans and
``None``: ``json.dumps`` writes the message). The decoders take JSON text (``str`` or
UTF-8 ``bytes``) or an object already parsed, check it against the types the ruleset
registered with the same strict cattrs converter that loads logs (no coercion: ``"2"``,
``2.0`` and ``true`` are not ``2``), and raise a typed error naming the field for
anything that does not fit: :class:`~tokaido_rules.IllegalActionError` for an action,
:class:`~tokaido_rules.LogFormatError` for a step or a view. A field with a default may
be left out; the encoders always write every field.

Integers on the wire stay within JavaScript's exact range, ±(2**53 - 1)
(:data:`MAX_SAFE_INTEGER`). The only larger ones are seeds, which travel as decimal
strings (:func:`encode_seed`); the log header keeps ``seed`` a JSON integer, which
JavaScript readers must parse as a big integer. :func:`schemas` generates the JSON
Schemas of a ruleset's messages (``tokaido schema``). See
``docs/reference/wire-format.md``.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable, Mapping
from contextlib import suppress
from functools import lru_cache
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import attrs
import cattrs
from cattrs.errors import IterableValidationError, IterableValidationNote

from .chance import KEYINGS
from .codec import (
    MAX_DEPTH,
    _converter_and_structurers,
    _format,
    _shown,
    event_data,
    make_converter,
)
from .errors import IllegalActionError, LogFormatError, TokaidoError
from .events import Action, Event, field_names
from .frozen import FrozenMap
from .log import EVENT_KEYS, FORMAT, FORMAT_VERSION, HEADER_KEYS, MAX_LINE, TRAILER, _where
from .model import Piece, Step
from .ruleset import MAX_PIECES, MIN_PLAYERS, Ruleset, is_player_count
from .ruleset import MAX_PLAYERS as MAX_PLAYERS
from .scene import scene_schema
from .views import View

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a message holds (``Number.MAX_SAFE_INTEGER``): JavaScript reads
every integer from ``-MAX_SAFE_INTEGER`` to ``MAX_SAFE_INTEGER`` exactly."""
MAX_NESTING = MAX_DEPTH + 4
"""The deepest nesting of arrays and objects in a message: a view's free-form data may
nest :data:`~tokaido_rules.codec.MAX_DEPTH` deep, inside the view's own three levels."""
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

Message = str | bytes | bytearray | Mapping[str, Any]
"""What the decoders take: JSON text (``bytes`` are UTF-8) or an object already parsed
(``json.loads``' result, or any mapping with string keys)."""

_MISSING = object()


# --- encoding ---------------------------------------------------------------------------


def encode_action(action: Action) -> dict[str, Any]:
    """An action as JSON-ready data: ``{"type": <wire name>, <field>: <value>, ...}``.

    The fields are those of a log line's ``data`` (tuples as lists); every field is
    written, defaults included.
    """
    names = _SCALAR_FIELDS.get(type(action))
    if names is None:
        names = _SCALAR_FIELDS[type(action)] = _scalar_fields(type(action))
    if names:  # the fields read directly when each holds a plain value (what it writes)
        out: dict[str, Any] = {"type": action.TYPE}
        for name in names:
            value = getattr(action, name)
            kind = type(value)
            if kind is int:
                if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                    break
            elif not (kind is str or kind is bool or value is None):
                break
            out[name] = value
        else:
            return out
    data = _plain(event_data(action), action.TYPE)
    return {"type": action.TYPE, **data}


_SCALAR_FIELDS: dict[type, tuple[str, ...]] = {}
"""By action type: its fields, when :func:`encode_action` may read them directly (else
empty): what ``event_data`` unstructures is then each field's own value."""


def _scalar_fields(cls: type) -> tuple[str, ...]:
    """The fields of an action type that ``event_data`` writes as they are, in its
    order, when it writes every field of the type under its own name (none left out
    as not set by ``__init__``, none named ``type``); else ``()``."""
    found = attrs.fields(cls)
    if not found or any(not f.init or f.name == "type" for f in found):
        return ()
    return tuple(f.name for f in found)


def encode_step(step: Step) -> dict[str, Any]:
    """A step (an item of the agenda, such as the decision waiting to be made) as
    JSON-ready data: ``{"kind", "piece", "seat", "data"}``."""
    return {"kind": step.kind, "piece": step.piece, "seat": step.seat,
            "data": _plain(step.data, "step data")}


def encode_view(view: View) -> dict[str, Any]:
    """A view as JSON-ready data: every field of :class:`~tokaido_rules.View`, its legal
    actions encoded with :func:`encode_action`, and ``ruleset`` (the plugins with their
    versions, and the options: public facts).

    It holds exactly what the view holds, so nothing the seat may not see: no seed, no
    hidden card. (:attr:`~tokaido_rules.View.zone_backs` is left out: it is
    ``hidden_backs`` for the hidden zones, and the cards themselves for the others.)
    """
    doc: dict[str, Any] = {}
    for name in _VIEW_FIELDS:
        value = getattr(view, name)
        if name == "legal_actions":
            doc[name] = [encode_action(a) for a in value]
        elif name == "ruleset":
            doc[name] = _ruleset_doc(view.ruleset)
        elif name == "agenda":
            doc[name] = [encode_step(s) for s in value]
        elif name == "current_step":
            doc[name] = None if value is None else encode_step(value)
        else:
            doc[name] = _plain(value, name)
    return doc


def encode_seed(seed: int) -> str:
    """A seed as the wire carries it: a decimal string (seeds are 64-bit, beyond
    JavaScript's exact integers)."""
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise ValueError(f"a seed is an integer from 0 to 2**64 - 1, not {_shown(seed)}")
    return str(seed)


def decode_seed(text: object) -> int:
    """A seed written by :func:`encode_seed`; :class:`~tokaido_rules.LogFormatError` for
    anything else (a number, a sign, leading zeros, more than 64 bits)."""
    if (not isinstance(text, str) or not text.isascii() or not text.isdigit()
            or len(text) > 20 or (len(text) > 1 and text[0] == "0") or int(text) >= 2**64):
        raise LogFormatError(f"a seed is a decimal string of 0 to 2**64 - 1, not "
                             f"{_shown(text)}")
    return int(text)


_WORDS = (bool, str)
_SEQUENCES = (tuple, list)
"""What :func:`_plain` tests values against (tuples: a type union would be made at each
value)."""


def _plain(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (tuples and FrozenMaps as lists and dicts), checked
    to be something the wire carries exactly."""
    if value is None or isinstance(value, _WORDS):
        return value
    if isinstance(value, int):
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise ValueError(f"{where}: an integer beyond ±(2**53 - 1) cannot cross the wire "
                             "exactly (send it as a string)")
        return int(value)
    if isinstance(value, _SEQUENCES):
        return [_plain(v, where) for v in value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"{where}: object keys must be strings")
        return {k: _plain(v, where) for k, v in value.items()}
    if attrs.has(type(value)):
        return {name: _plain(getattr(value, name), where) for name in field_names(type(value))}
    raise ValueError(f"{where}: a {type(value).__name__} cannot cross the wire")


def _ruleset_doc(ruleset: Ruleset) -> dict[str, Any]:
    """The public facts of a ruleset, as in a log header: plugins and options."""
    return {"plugins": [{"id": i.id, "version": i.version} for i in ruleset.info()],
            "options": _plain(dict(ruleset.options), "options")}


# --- decoding ---------------------------------------------------------------------------


def decode_action(data: Message, ruleset: Ruleset) -> Action:
    """The action a message holds, checked against the action types ``ruleset``
    registered: an instance of the type its ``type`` names, every field of the type's
    declared type.

    Anything else is an :class:`~tokaido_rules.IllegalActionError` naming the field:
    text that is not JSON, an unknown type, a missing or unknown field, a value of
    another type (``"2"``, ``2.0`` or ``true`` for an integer), an integer beyond
    ±(2**53 - 1), a seat or traveller out of range (a negative one, or beyond the
    largest game: the bounds of :func:`schemas` without ``players``), values nested too
    deep. Whether the action is legal now (its seat in this game) is for
    :meth:`~tokaido_rules.Game.apply` to say (with ``expected_seq``, whether it is
    stale); it records the legal action equal to this one.
    """
    obj = _parse(data, "action", IllegalActionError)
    return _action(obj, ruleset, IllegalActionError, "")


def decode_step(data: Message, ruleset: Ruleset) -> Step:
    """The step a message holds, of a kind ``ruleset`` registered;
    :class:`~tokaido_rules.LogFormatError` naming the field if it is malformed."""
    obj = _parse(data, "step", LogFormatError)
    return _step(obj, ruleset, "")


def decode_view(data: Message, ruleset: Ruleset) -> View:
    """The view a message holds (as written by :func:`encode_view`), for a client in
    Python: a bot can choose on it as on a view of a local game.

    ``ruleset`` must be the ruleset the view names (same plugins, versions and
    options). :class:`~tokaido_rules.LogFormatError` naming the field for anything that
    does not fit: a missing or unknown field, a value of another type, an unknown step
    kind or action type, a seat or traveller that is not in the view's game, a negative
    count, legal actions in the public view (``seat`` ``null``).
    """
    obj = _parse(data, "view", LogFormatError)
    _check_keys(obj, _VIEW_FIELDS, (), "view", LogFormatError)
    if obj["ruleset"] != _ruleset_doc(ruleset):
        raise LogFormatError(f"view field 'ruleset': the view is of another ruleset "
                             f"({_shown(obj['ruleset'])}) than {', '.join(ruleset.ids)} "
                             "with its options")
    values: dict[str, Any] = {"ruleset": ruleset}
    for name, hint in _view_hints().items():
        value = obj[name]
        if name == "legal_actions":
            if not isinstance(value, list):
                raise LogFormatError(f"view field 'legal_actions': expected a list, got "
                                     f"{type(value).__name__}")
            values[name] = value  # decoded below, once the game's size is known
            continue
        try:
            values[name] = _CONVERTER.structure(value, hint)
        except Exception as exc:
            raise LogFormatError(f"view {_problems(exc, name)}") from None
    players = values["players"]
    if not is_player_count(players):
        raise LogFormatError(f"view field 'players': {players} is not {MIN_PLAYERS} to "
                             f"{MAX_PLAYERS}")
    pieces = _pieces(ruleset, players)
    steps = [(f"agenda[{i}]", step) for i, step in enumerate(values["agenda"])]
    for where, step in [*steps, ("current_step", values["current_step"])]:
        if step is not None:
            if step.kind not in ruleset.registry.steps:
                raise LogFormatError(f"view field '{where}.kind': unknown step kind "
                                     f"{_shown(step.kind)}")
            _check_step(step, players, pieces, f"view field '{where}")
    for name in ("seat", "current_player"):
        seat = values[name]
        if seat is not None and not 0 <= seat < players:
            raise LogFormatError(f"view field '{name}': no seat {seat} in a "
                                 f"{players}-player game")
    for name in ("seq", "turn"):
        if values[name] < 0:
            raise LogFormatError(f"view field '{name}': {values[name]} is negative")
    counts = [(f"zone_sizes.{k}", n) for k, n in values["zone_sizes"].items()]
    counts += [(f"hidden_backs.{k}.{d}", n) for k, backs in values["hidden_backs"].items()
               for d, n in backs.items()]
    for where, n in counts:
        if n < 0:
            raise LogFormatError(f"view field '{where}': {n} is negative")
    if len(values["pieces"]) > pieces:
        raise LogFormatError(f"view field 'pieces': {len(values['pieces'])} travellers, "
                             f"more than the {pieces} of a {players}-player game")
    for i, piece in enumerate(values["pieces"]):
        _check_bounds(piece, players, pieces, LogFormatError, f"view field 'pieces[{i}].")
    actions = []
    for i, item in enumerate(values["legal_actions"]):
        where = f"view field 'legal_actions[{i}]'"
        if not isinstance(item, Mapping):
            raise LogFormatError(f"{where}: an action is a JSON object, not "
                                 f"{_json_type(item)}")
        actions.append(_action(item, ruleset, LogFormatError, f"{where}: ", players, pieces))
    if values["seat"] is None and actions:
        raise LogFormatError("view field 'legal_actions': the public view (seat null) has "
                             "no legal actions")
    values["legal_actions"] = tuple(actions)
    return View(**values)


def _parse(data: object, what: str, error: Callable[[str], TokaidoError]) -> dict[str, Any]:
    """A message as a JSON object, bounded: at most :data:`~tokaido_rules.log.MAX_LINE`
    characters, nested at most :data:`MAX_NESTING` deep, integers within ±(2**53 - 1)."""
    obj: object
    if isinstance(data, bytes | bytearray):
        if len(data) > 4 * MAX_LINE:
            raise error(f"the {what} is longer than {MAX_LINE} characters")
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise error(f"the {what} is not UTF-8 text") from None
    if isinstance(data, str):
        if len(data) > MAX_LINE:
            raise error(f"the {what} is longer than {MAX_LINE} characters")
        try:
            obj = json.loads(data, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise error(f"the {what} is not valid JSON {_where(data, exc.pos)}") from None
        except RecursionError:
            raise error(f"the {what} is not valid JSON (nested too deeply)") from None
        except ValueError as exc:  # NaN, Infinity, or an integer too long to convert
            raise error(f"the {what} is not valid JSON ({exc})") from None
    elif isinstance(data, Mapping):
        obj = data
    else:
        raise error(f"the {what} must be JSON text or an object, not {type(data).__name__}")
    if not isinstance(obj, Mapping):
        raise error(f"the {what} must be a JSON object, not {_json_type(obj)}")
    _check_values(obj, what, error)
    return dict(obj)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_type(value: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number",
            bool: "a boolean", type(None): "null"}.get(type(value), type(value).__name__)


def _check_values(obj: Mapping[str, Any], what: str,
                  error: Callable[[str], TokaidoError]) -> None:
    """Refuse keys that are not strings, nesting deeper than :data:`MAX_NESTING` and
    integers beyond ±(2**53 - 1), naming where (walked without recursion: a message
    given as an object may nest as deep as it likes)."""
    stack: list[tuple[Any, str, int]] = [(obj, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if type(value) is int or (isinstance(value, int) and not isinstance(value, bool)):
            if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                raise error(f"{what} field '{path}': an integer beyond ±(2**53 - 1) (larger "
                            "numbers travel as strings)")
        elif isinstance(value, Mapping):
            if depth >= MAX_NESTING:
                raise error(f"{what} field '{path}': values nested more than {MAX_NESTING} "
                            "deep")
            for key, item in value.items():
                if not isinstance(key, str):
                    raise error(f"{what} field '{path}': object keys must be strings")
                stack.append((item, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list | tuple):
            if depth >= MAX_NESTING:
                raise error(f"{what} field '{path}': values nested more than {MAX_NESTING} "
                            "deep")
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))


def _check_keys(obj: Mapping[str, Any], names: tuple[str, ...], required: tuple[str, ...],
                what: str, error: Callable[[str], TokaidoError]) -> None:
    """Refuse unknown fields, and missing ones among ``required`` (all of ``names`` if
    ``required`` is empty)."""
    unknown = [k for k in obj if k not in names]
    if unknown:
        shown = ", ".join(_shown(k) for k in unknown[:5])
        raise error(f"{what} has no field {shown} (its fields: {', '.join(names)})")
    for name in required or names:
        if name not in obj:
            raise error(f"{what}: missing field {name!r}")


def _action(obj: Mapping[str, Any], ruleset: Ruleset, error: Callable[[str], TokaidoError],
            prefix: str, seats: int = MAX_PLAYERS, pieces: int = MAX_PIECES) -> Action:
    """An action from a parsed object (``prefix``: where it is, in a larger message), its
    seats and travellers within a game of ``seats`` players and ``pieces`` travellers."""
    kind = obj.get("type", _MISSING)
    if kind is _MISSING:
        raise error(f"{prefix}action: missing field 'type'")
    registry = ruleset.registry
    cls = registry.events.get(kind) if isinstance(kind, str) else None
    if cls is None or cls not in registry.resolvers:
        what = "an event type, not an action type" if cls is not None else "unknown"
        raise error(f"{prefix}action field 'type': {_shown(kind)} is {what} (action types "
                    f"of this ruleset: {', '.join(sorted(c.TYPE for c in registry.resolvers))})")
    names = field_names(cls)
    _check_keys(obj, ("type", *names), _required(cls), f"{prefix}{kind}", error)
    data = {k: v for k, v in obj.items() if k != "type"}
    structure = _converter_and_structurers(ruleset)[1][cls]
    try:
        action = structure(data, cls)
    except Exception as exc:
        raise error(f"{prefix}{kind} {_problems(exc)}") from None
    assert isinstance(action, Action)
    _check_bounds(action, seats, pieces, error, f"{prefix}{kind} field '")
    return action


def _step(obj: Mapping[str, Any], ruleset: Ruleset, prefix: str) -> Step:
    _check_keys(obj, _STEP_FIELDS, ("kind",), f"{prefix}step", LogFormatError)
    try:
        step = _CONVERTER.structure(obj, Step)
    except Exception as exc:
        raise LogFormatError(f"{prefix}step {_problems(exc)}") from None
    if step.kind not in ruleset.registry.steps:
        raise LogFormatError(f"{prefix}step field 'kind': unknown step kind "
                             f"{_shown(step.kind)}")
    _check_step(step, MAX_PLAYERS, MAX_PIECES, f"{prefix}step field '")
    return step


def _pieces(ruleset: Ruleset, players: int) -> int:
    """The number of travellers of a game of ``players`` (seated and neutral)."""
    return players + ruleset.hooks.neutral_travellers(players)


def _check_step(step: Step, seats: int, pieces: int, where: str) -> None:
    """Refuse a step whose seat or traveller is not in a game of ``seats`` players and
    ``pieces`` travellers (``where``: the start of the message, up to the field's
    quote)."""
    if step.seat is not None and not 0 <= step.seat < seats:
        raise LogFormatError(f"{where}seat': {step.seat} is not a seat (0 to {seats - 1}, "
                             "or null)")
    if not -1 <= step.piece < pieces:
        raise LogFormatError(f"{where}piece': {step.piece} is not a traveller (0 to "
                             f"{pieces - 1}, or -1 for none)")


_BOUNDS: dict[tuple[type, int, int], tuple[tuple[str, int, int], ...]] = {}


def _bounds(cls: type, seats: int, pieces: int) -> tuple[tuple[str, int, int], ...]:
    """The fields of ``cls`` whose schema bounds an integer within narrower limits than
    ±(2**53 - 1) (a seat, a traveller, a count), with those limits: the decoders refuse
    what the schemas refuse (see :class:`_SchemaBuilder`)."""
    key = (cls, seats, pieces)
    found = _BOUNDS.get(key)
    if found is None:
        out = []
        for name, schema in _SchemaBuilder(seats, pieces).fields(cls).items():
            for case in schema.get("anyOf", [schema]):
                if case.get("type") == "integer" and "minimum" in case and (
                        case["minimum"], case["maximum"]) != (-MAX_SAFE_INTEGER,
                                                              MAX_SAFE_INTEGER):
                    out.append((name, case["minimum"], case["maximum"]))
        if len(_BOUNDS) >= 4096:
            _BOUNDS.clear()
        found = _BOUNDS[key] = tuple(out)
    return found


_WHAT = {"seat": "a seat", "piece": "a traveller"}


def _check_bounds(obj: Any, seats: int, pieces: int, error: Callable[[str], TokaidoError],
                  where: str) -> None:
    """Refuse an integer field of ``obj`` (an attrs instance) out of the bounds its
    schema states (:func:`_bounds`)."""
    for name, low, high in _bounds(type(obj), seats, pieces):
        value = getattr(obj, name)
        if type(value) is int and not low <= value <= high:
            raise error(f"{where}{name}': {value} is not {_WHAT.get(name, 'in range')} "
                        f"({low} to {high})")


_REQUIRED: dict[type, tuple[str, ...]] = {}


def _required(cls: type) -> tuple[str, ...]:
    """The fields of an attrs class that have no default: those a message must hold."""
    names = _REQUIRED.get(cls)
    if names is None:
        names = _REQUIRED[cls] = tuple(f.name for f in attrs.fields(cls)
                                       if f.default is attrs.NOTHING)
    return names


def _problems(exc: BaseException, name: str | None = None) -> str:
    """What a structuring failure found, field by field: ``field 'amount': expected
    int, got float 2.0`` (``name``: the field of the value that was structured)."""
    try:
        if isinstance(exc, cattrs.BaseValidationError):
            found = cattrs.transform_error(exc, format_exception=_format)
        else:
            found = [f"{_format(exc, None)} @ $"]
        parts = []
        for item in found:
            text, _, path = item.rpartition(" @ ")
            if not text:
                text, path = item, "$"
            field = path[2:] if path.startswith("$.") else path[1:]
            if name is not None:
                field = f"{name}{field}" if field.startswith("[") or not field else \
                    f"{name}.{field}"
            parts.append(f"field '{field}': {text}" if field else text)
        return "; ".join(parts)
    except Exception:  # describing must never fail in turn
        return f"field {name!r}: malformed" if name else "malformed"


def _frozen_map_hook(conv: cattrs.Converter) -> None:
    """Typed FrozenMaps (``FrozenMap[str, int]``) are checked value by value; those of
    free-form values (``FrozenMap[str, Any]``) keep the log converter's hook, which
    bounds their nesting."""

    def is_typed(t: Any) -> bool:
        return get_origin(t) is FrozenMap and get_args(t)[1:] != (Any,)

    def factory(t: Any) -> Callable[[Any, Any], Any]:
        key, value = get_args(t)
        as_dict = dict[key, value]  # type: ignore[valid-type]

        def structure(data: Any, _: Any) -> FrozenMap[Any, Any]:
            if not isinstance(data, Mapping):
                raise TypeError(f"expected an object, got {_json_type(data)}")
            return FrozenMap(conv.structure(data, as_dict))
        return structure

    conv.register_structure_hook_factory(is_typed, factory)


def _indexed_tuple_hook(conv: cattrs.Converter) -> None:
    """Tuples of structured items (``tuple[Piece, ...]``) say which item is wrong
    (``pieces[1].coins``), as cattrs' own sequences do."""

    def is_indexed(t: Any) -> bool:
        args = get_args(t)
        return (get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis
                and args[0] not in (int, str, bool))

    def factory(t: Any) -> Callable[[Any, Any], tuple[Any, ...]]:
        item = get_args(t)[0]

        def structure(data: Any, _: Any) -> tuple[Any, ...]:
            if not isinstance(data, list | tuple):
                raise TypeError(f"expected a list, got {_json_type(data)}")
            result, errors = [], []
            for index, value in enumerate(data):
                try:
                    result.append(conv.structure(value, item))
                except Exception as exc:
                    exc.__notes__ = [*getattr(exc, "__notes__", []), IterableValidationNote(
                        f"Structuring {t} @ index {index}", index, item)]
                    errors.append(exc)
            if errors:
                raise IterableValidationError(f"While structuring {t!r}", errors, t)
            return tuple(result)
        return structure

    conv.register_structure_hook_factory(is_indexed, factory)


_CONVERTER = make_converter()
"""The log's strict converter, with typed FrozenMaps and tuples of structured items
checked item by item (views, steps)."""
_frozen_map_hook(_CONVERTER)
_indexed_tuple_hook(_CONVERTER)

_VIEW_FIELDS = tuple(f.name for f in attrs.fields(View))
_STEP_FIELDS = field_names(Step)


@lru_cache(maxsize=1)
def _view_hints() -> dict[str, Any]:
    """The type of each field of a view, but its ruleset."""
    from .engine import Game

    hints = get_type_hints(View, localns={"Ruleset": Ruleset, "Game": Game})
    return {name: hints[name] for name in _VIEW_FIELDS if name != "ruleset"}


# --- schemas ---------------------------------------------------------------------------


def schemas(ruleset: Ruleset, players: int | None = None) -> dict[str, Any]:
    """The JSON Schemas (draft 2020-12) of ``ruleset``'s messages, generated from the
    types its plugins registered: one document whose ``$defs`` hold ``action``,
    ``step``, ``view``, ``log_header`` and ``log_line``, ``scene`` (a picture's scene,
    :func:`~tokaido_rules.render.scene_json`), and the definitions they share
    (``action.<type>`` and ``line.<type>`` for each action and event type).

    Validate a message against one of them with the document and a reference to it:
    ``{**schemas(ruleset), "$ref": "#/$defs/view"}``. ``players`` narrows seats and
    travellers to a game of that many players. A message decodes if and only if it
    validates, with one exception: the decoders also refuse what JSON Schema cannot tell
    apart from an integer (``2.0``, which JSON Schema compares by value).
    """
    pieces = MAX_PIECES
    if players is not None:
        if not is_player_count(players):
            raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, "
                             f"got {players!r}")
        pieces = players + ruleset.hooks.neutral_travellers(players)
    registry = ruleset.registry
    build = _SchemaBuilder(players if players is not None else MAX_PLAYERS, pieces)
    ids = [i.id for i in ruleset.info()]
    actions = {cls.TYPE: build.action(cls) for cls in registry.events.values()
               if cls in registry.resolvers}
    lines = {cls.TYPE: build.event_line(cls) for cls in registry.events.values()}
    lines[TRAILER] = build.trailer()
    defs: dict[str, Any] = {
        "json": {"description": "A JSON value of free form (a plugin's data): no "
                                "floating-point numbers, integers within ±(2**53 - 1), "
                                f"at most {MAX_DEPTH} levels deep.",
                 "anyOf": [{"type": ["null", "boolean", "string"]}, build.integer,
                           {"type": "array", "items": {"$ref": "#/$defs/json"}},
                           {"type": "object",
                            "additionalProperties": {"$ref": "#/$defs/json"}}]},
        "seed": {"type": "string", "pattern": "^(0|[1-9][0-9]{0,19})$",
                 "description": "A 64-bit seed as a decimal string (beyond JavaScript's "
                                "exact integers)."},
        "step": build.step(registry.steps),
        **_switch("action", actions, "A decision: its type's wire name and its fields."),
        "ruleset": {
            "type": "object", "additionalProperties": False,
            "required": ["plugins", "options"],
            "description": "The plugins (canonical order) with their versions, and the "
                           "value of every rule option.",
            "properties": {"plugins": _plugins_schema(ids),
                           "options": _options_schema(ruleset)}},
        "view": build.view(players, ruleset),
        "log_header": build.header(ruleset, ids, players),
        **_switch("log_line", lines, "A line of a log after the header: an event, or the "
                                     "trailer that ends a finished game's log.", "line"),
        "scene": scene_schema(),
    }
    described = ", ".join(f"{i.id} {i.version}" for i in ruleset.info())
    return {"$schema": SCHEMA_DIALECT, "title": "tokaido-rules wire format",
            "description": f"Actions, steps, views and log lines of games with {described}"
                           + ("" if players is None else f", {players} players") + ".",
            "$defs": defs}


def _switch(name: str, cases: Mapping[str, dict[str, Any]], description: str,
            prefix: str | None = None) -> dict[str, Any]:
    """Definitions of an object that is one of several, told apart by its ``type`` (a
    wire name): ``name`` itself, ``<prefix>.<type>`` for each case, and
    ``<prefix>.<plugin id>.*`` for the cases of each plugin.

    Each object is checked against its own type's schema only, picked first by plugin,
    then by type: validation stays fast (a validator tries a few ``if`` tests, not every
    type), and its errors are about the right type.
    """
    prefix = prefix or name
    groups: dict[str, dict[str, str]] = {}
    for kind in cases:
        groups.setdefault(kind.split(".", 1)[0], {})[kind] = f"#/$defs/{prefix}.{kind}"

    def pick(refs: Mapping[str, str], test: Callable[[str], dict[str, Any]]) -> list[Any]:
        return [{"if": {"properties": {"type": test(key)}}, "then": {"$ref": ref}}
                for key, ref in refs.items()]

    defs: dict[str, Any] = {name: {
        "description": description, "type": "object", "required": ["type"],
        "properties": {"type": {"enum": list(cases)}},
        "allOf": pick({plugin: f"#/$defs/{prefix}.{plugin}.*" for plugin in groups},
                      lambda plugin: {"pattern": f"^{re.escape(plugin)}\\."})}}
    for plugin, refs in groups.items():
        defs[f"{prefix}.{plugin}.*"] = {"allOf": pick(refs, lambda kind: {"const": kind})}
    for kind, schema in cases.items():
        defs[f"{prefix}.{kind}"] = schema
    return defs


_VIEW_DOCS = {
    "seat": "The seat this view is for; null for the public view (what every seat may "
            "see, a spectator's), which has no legal actions.",
    "players": "The number of players.",
    "seq": "The number of events so far: send it back with an action (expected_seq).",
    "turn": "The number of moves made so far.",
    "over": "Whether the game is over.",
    "pieces": "Every traveller, in piece order: seat (null: neutral), traveller, coins, "
              "position on the road, slot, points by category, plugin counters.",
    "zones": "The cards of every zone the seat may see (index 0: top of a deck).",
    "zone_sizes": "The number of cards of every zone.",
    "hidden_backs": "Per zone the seat may not see, how many of its cards come from "
                    "each deck (card backs are public).",
    "data": "The game data the seat may see (plugins' values).",
    "agenda": "What must happen next, in order.",
    "current_player": "The seat whose decision it is (null when the game is over).",
    "current_step": "The decision waiting to be made (null when the game is over).",
    "legal_actions": "The legal actions, sorted; empty unless this seat decides now (always "
                     "empty in the public view).",
    "ruleset": "The ruleset the table plays.",
}


def _plugins_schema(ids: list[str]) -> dict[str, Any]:
    return {"type": "array",
            "items": {"type": "object", "additionalProperties": False,
                      "required": ["id", "version"],
                      "properties": {"id": {"enum": ids},
                                     "version": {"type": "string",
                                                 "description": "A PEP 440 version."}}}}


def _options_schema(ruleset: Ruleset) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for name, spec in ruleset.registry.options.items():
        properties[name] = {"description": spec.doc}
        try:
            choices = _plain(list(spec.choices), name)
        except ValueError:  # not JSON values: described by the doc only
            continue
        if choices:
            properties[name]["enum"] = choices
    return {"type": "object", "additionalProperties": False, "properties": properties}


class _SchemaBuilder:
    """JSON Schemas of registered types, from their fields' declared types, for games
    of up to ``seats`` players and ``pieces`` travellers."""

    def __init__(self, seats: int, pieces: int) -> None:
        # Small schemas are written out where used: a reference costs a validator a
        # lookup at every value.
        self.integer = {"type": "integer", "minimum": -MAX_SAFE_INTEGER,
                        "maximum": MAX_SAFE_INTEGER}
        self.count = {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}
        self.seat = {"type": "integer", "minimum": 0, "maximum": seats - 1}
        self.piece = {"type": "integer", "minimum": 0, "maximum": pieces - 1}
        self.pieces = pieces

    def action(self, cls: type[Action]) -> dict[str, Any]:
        properties = {"type": {"const": cls.TYPE}, **self.fields(cls)}
        return {"type": "object", "additionalProperties": False,
                "required": ["type", *_required(cls)], "description": _first_line(cls),
                "properties": properties}

    def event_line(self, cls: type[Event]) -> dict[str, Any]:
        """An event type's line: every field in a full log; in a seat's copy, those it
        may not see left out of ``data`` and named in ``withheld``; for a type at version
        2 or more, also older versions (data in an older layout, upgraded on loading)."""
        fields = self.fields(cls)
        full = {"type": "object", "additionalProperties": False,
                "required": list(_required(cls)), "properties": fields}
        partial = {"type": "object", "additionalProperties": False, "properties": fields}
        properties: dict[str, Any] = {
            "seq": self.count, "type": {"const": cls.TYPE},
            "v": {"type": "integer", "minimum": 1, "maximum": cls.VERSION},
            "data": {"type": "object"}}
        if fields:
            properties["withheld"] = {"type": "array", "minItems": 1, "uniqueItems": True,
                                      "items": {"enum": list(fields)}}
        current = {"if": {"required": ["withheld"]},
                   "then": {"properties": {"data": partial}},
                   "else": {"properties": {"data": full}}}
        schema = {"type": "object", "additionalProperties": False,
                  "required": list(EVENT_KEYS), "description": _first_line(cls),
                  "properties": properties}
        if cls.VERSION == 1:
            return {**schema, **current}
        return {**schema, "if": {"properties": {"v": {"const": cls.VERSION}}},
                "then": current}

    def trailer(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "required": list(EVENT_KEYS),
                "description": "The last line of a finished game's log (format 2): it "
                               "counts the event lines before it (data.events equals seq).",
                "properties": {"seq": self.count, "type": {"const": TRAILER},
                               "v": {"const": 1},
                               "data": {"type": "object", "additionalProperties": False,
                                        "required": ["events"],
                                        "properties": {"events": self.count}}}}

    def step(self, kinds: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": ["kind"],
                "description": "An item of the agenda: something that must happen, or be "
                               "decided (seat not null), next.",
                "properties": {
                    "kind": {"enum": list(kinds),
                             "description": "The step kind (see the catalogue of step "
                                            "kinds)."},
                    "piece": {"type": "integer", "minimum": -1, "maximum": self.pieces - 1,
                              "description": "The traveller the step is about (-1: none)."},
                    "seat": {"anyOf": [self.seat, {"type": "null"}],
                             "description": "The seat that decides (null: the engine)."},
                    "data": {"type": "object",
                             "additionalProperties": {"$ref": "#/$defs/json"},
                             "description": "The step's parameters."}}}

    def view(self, players: int | None, ruleset: Ruleset) -> dict[str, Any]:
        hints = _view_hints()
        special: dict[str, dict[str, Any]] = {
            "seat": {"anyOf": [self.seat, {"type": "null"}]},
            "ruleset": {"$ref": "#/$defs/ruleset"},
            "legal_actions": {"type": "array", "items": {"$ref": "#/$defs/action"}},
            "players": ({"const": players} if players is not None
                        else {"type": "integer", "minimum": 2, "maximum": MAX_PLAYERS}),
            "seq": self.count, "turn": self.count,
            "current_player": {"anyOf": [self.seat, {"type": "null"}]},
            "pieces": {"type": "array", "items": self.attrs_class(Piece),
                       "maxItems": MAX_PIECES},
            "zone_sizes": {"type": "object", "additionalProperties": self.count},
            "hidden_backs": {"type": "object", "additionalProperties": {
                "type": "object", "additionalProperties": self.count}},
        }
        properties = {name: {**(special.get(name) or self.type_schema(hints[name], name)),
                             "description": _VIEW_DOCS[name]}
                      for name in _VIEW_FIELDS}
        public = {"if": {"required": ["seat"], "properties": {"seat": {"type": "null"}}},
                  "then": {"properties": {"legal_actions": {"maxItems": 0}}}}
        schema: dict[str, Any] = {
            "type": "object", "additionalProperties": False, "required": list(_VIEW_FIELDS),
            "description": "What one seat may see at one point of a game (seat null: what "
                           "every seat may see).",
            "properties": properties, "allOf": [public]}
        if players is None:  # seats and travellers within the game the view names
            schema["allOf"] += [self.game_size(n, _pieces(ruleset, n))
                                for n in range(2, MAX_PLAYERS + 1)]
        return schema

    @staticmethod
    def game_size(players: int, pieces: int) -> dict[str, Any]:
        """The bounds a view of a game of ``players`` (``pieces`` travellers) adds to
        those of the largest game: its seats and travellers."""
        seat = {"maximum": players - 1}
        step = {"properties": {"seat": seat, "piece": {"maximum": pieces - 1}}}
        return {"if": {"required": ["players"], "properties": {"players": {"const": players}}},
                "then": {"properties": {
                    "seat": seat, "current_player": seat,
                    "pieces": {"maxItems": pieces, "items": {"properties": {"seat": seat}}},
                    "agenda": {"items": step}, "current_step": step,
                    "legal_actions": {"items": step}}}}

    def header(self, ruleset: Ruleset, ids: list[str], players: int | None) -> dict[str, Any]:
        common: dict[str, Any] = {
            "format": {"const": FORMAT},
            "format_version": {"type": "integer", "minimum": 1, "maximum": FORMAT_VERSION},
            "engine": {"type": "string",
                       "description": "The tokaido-rules version that wrote the log."},
            "plugins": _plugins_schema(ids),
            "options": _options_schema(ruleset),
            "players": ({"const": players} if players is not None
                        else {"type": "integer", "minimum": 2, "maximum": MAX_PLAYERS}),
            "chance": {"enum": list(KEYINGS),
                       "description": "How chance is keyed: \"event\" (the default when "
                                      "absent) or \"purpose\" (the duplicate format; "
                                      "written only then)."},
        }
        setup: dict[str, Any] = {
            "travellers": {"anyOf": [{"type": "array", "items": {"type": "string"}},
                                     {"type": "null"}]},
            "queue": {"anyOf": [{"type": "array", "items": self.piece}, {"type": "null"}]},
            "coins": {"type": "object", "propertyNames": {"pattern": "^[0-9]{1,2}$"},
                      "additionalProperties": self.integer},
        }
        hidden: dict[str, Any] = {
            "stacks": {"type": "object",
                       "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            "chance": {"type": "object",
                       "additionalProperties": {"type": "array",
                                                "items": {"$ref": "#/$defs/json"}}},
        }
        required = ["travellers", "queue", "coins"]
        full = {
            "type": "object", "additionalProperties": False, "required": list(HEADER_KEYS),
            "properties": {
                **common,
                "seed": {"type": "integer", "minimum": 0,
                         "description": "The game's seed, from 0 to 2**64 - 1: beyond "
                                        "JavaScript's exact integers, so JavaScript readers "
                                        "must parse it as a big integer (BigInt; JSON.parse "
                                        "rounds it)."},
                "setup": {"type": "object", "additionalProperties": False,
                          "required": required, "properties": {**setup, **hidden}}}}
        seat = {
            "type": "object", "additionalProperties": False,
            "required": [*(k for k in HEADER_KEYS if k != "seed"), "viewer"],
            "properties": {
                **common,
                "viewer": {"anyOf": [self.seat, {"const": "public"}],
                           "description": "The seat whose copy this is, or \"public\": "
                                          "the public copy, what every seat may see."},
                "setup": {"type": "object", "additionalProperties": False,
                          "required": required, "properties": setup}}}
        if players is None:  # the viewer is a seat of the game the header names
            seat["allOf"] = [
                {"if": {"required": ["players"], "properties": {"players": {"const": n}}},
                 "then": {"properties": {"viewer": {"maximum": n - 1}}}}
                for n in range(2, MAX_PLAYERS + 1)]
        return {"description": "Line 1 of a log: a full log's header holds the seed; a "
                               "seat's copy's (or the public copy's) names its viewer "
                               "instead, and leaves out the hidden setup.",
                "type": "object", "if": {"required": ["viewer"]}, "then": seat, "else": full}

    def fields(self, cls: type) -> dict[str, Any]:
        with suppress(Exception):  # a type that does not resolve is described as free form
            attrs.resolve_types(cls)
        return {f.name: self.type_schema(f.type, f.name) for f in attrs.fields(cls)}

    def attrs_class(self, cls: type) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "required": list(_required(cls)), "properties": self.fields(cls)}

    def type_schema(self, t: Any, name: str = "") -> dict[str, Any]:
        """The schema of a field's declared type (``name``: fields named ``seat`` and
        ``piece`` hold a seat and a traveller of the game)."""
        if t is int:
            return self.seat if name == "seat" else self.piece if name == "piece" \
                else self.integer
        if t is bool:
            return {"type": "boolean"}
        if t is str:
            return {"type": "string"}
        if t is type(None):
            return {"type": "null"}
        if t is Any:
            return {"$ref": "#/$defs/json"}
        if t is Step:
            return {"$ref": "#/$defs/step"}
        origin, args = get_origin(t), get_args(t)
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.type_schema(a, name) for a in args]}
        if origin is Literal:
            return {"enum": list(args)}
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.type_schema(args[0])}
            if args == ((),):
                return {"type": "array", "maxItems": 0}
            return {"type": "array", "prefixItems": [self.type_schema(a) for a in args],
                    "minItems": len(args), "maxItems": len(args), "items": False}
        if origin in (list, frozenset, set) or t in (list, tuple):
            return {"type": "array", "items": self.type_schema(args[0]) if args else
                    {"$ref": "#/$defs/json"}}
        if origin in (dict, FrozenMap) or t in (dict, FrozenMap):
            value = self.type_schema(args[1]) if len(args) == 2 else {"$ref": "#/$defs/json"}
            return {"type": "object", "additionalProperties": value}
        if isinstance(t, type) and attrs.has(t):
            return self.attrs_class(t)
        return {"description": f"a value of type {getattr(t, '__name__', t)!s}, not "
                               "described further"}


def _first_line(cls: type) -> str:
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(doc.split()) or cls.__name__


def schema_text(ruleset: Ruleset, players: int | None = None) -> str:
    """:func:`schemas` as the text ``tokaido schema`` prints: sorted keys, indented, so
    that two versions can be compared with ``diff``."""
    return json.dumps(schemas(ruleset, players), indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


__all__ = ["MAX_SAFE_INTEGER", "Message", "decode_action", "decode_seed", "decode_step",
           "decode_view", "encode_action", "encode_seed", "encode_step", "encode_view",
           "schema_text", "schemas"]

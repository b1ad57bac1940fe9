"""Event logs: a documented JSON Lines format, strict loading, replay and verification.

Line 1 is a header (format and version, engine version, the ruleset with plugin
versions and options, players, seed, crafted setup); every further line is one event::

    {"seq": 17, "type": "core.coins", "v": 1, "data": {"piece": 2, "delta": 3}}

and the log of a finished game ends with a trailer that counts the events (format
version 2), so that a log cut short is never mistaken for a finished game.

Events are (de)serialized with a cattrs converter built per ruleset from the event types
its plugins registered: no class paths in files, no executable serialization, no importing names
read from a file. Loading folds the events (it re-runs no rules and rolls no dice) and
raises a :class:`~tokaido_rules.errors.LogError` subclass naming the line and the problem
for anything that does not fit; nothing is ever half-loaded. Logs are parsed line by line
from text, a path or a text stream, so memory follows the game, not the file.
:func:`verify_log` re-plays the decisions under the current rules, every chance outcome
drawn again from the seed. See ``docs/reference/log-format.md``.
"""

from __future__ import annotations

import itertools
import json
import json.scanner
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from functools import lru_cache
from operator import itemgetter
from typing import Any, BinaryIO, Protocol

import cattrs
from attrs import frozen
from packaging.version import Version

from ._version import __version__
from .chance import EVENT, KEYINGS

# the codec's public names stay importable from here, as before it was its own module
from .codec import _CONVERTER, Structurer, _converter_and_structurers, _format, _shown
from .codec import MAX_DEPTH as MAX_DEPTH
from .codec import converter_for as converter_for
from .codec import event_data as event_data
from .codec import freeze_json as freeze_json
from .codec import make_converter as make_converter
from .engine import Game, initial_state, make_rules, new_game
from .errors import (
    IllegalActionError,
    LogError,
    LogFormatError,
    LogPluginError,
    LogSequenceError,
    LogStateError,
    LogVersionError,
    TokaidoError,
)
from .events import (
    Action,
    AgendaSet,
    Automatic,
    CardsMoved,
    DeckSet,
    Event,
    field_names,
    fold,
)
from .frozen import FrozenMap
from .model import GameState, Piece, Step
from .registry import Registry
from .ruleset import (
    Rules,
    Ruleset,
    Setup,
    check_version,
    installed_plugins,
    load_plugin,
    plugin_info,
)
from .views import PUBLIC, SeatOrPublic, Viewer, check_seat, redact

FORMAT = "tokaido-log"
FORMAT_VERSION = 2
"""The layout written. Version 2 added the trailer; version 1 logs (no trailer) load."""
MAX_LINE = 1_000_000
"""The longest line accepted, in characters (a real event is a few hundred)."""
MAX_EVENTS = 10_000
"""The most events a log may hold (the limits below are measured against about 800
random games of every ruleset, 2 to 5 players: the longest has 539 events). A log
beyond one is refused at the line that passes it, so that no file can make loading it,
or drawing it (:mod:`tokaido_rules.viewer`), cost much more than a real game."""
MAX_CARDS = 1_000
"""The most cards one zone may hold, and so the most that one ``core.deck_set`` or
``core.cards_moved`` may name or count. Real games: 60 at most (the panoramas)."""
MAX_LOG_CARDS = 10_000
"""The most cards that all the ``core.deck_set`` and ``core.cards_moved`` events of a
log may name or count together (moving cards costs in proportion to those moved and
those in the zone). Real games: 338 at most."""
MAX_IDLE = 100
"""Every ``MAX_IDLE`` events, loading compares the state with the state ``MAX_IDLE``
events before; if nothing changed but the counters (``seq``, ``turn``), the log is
refused. So no run of ``2 * MAX_IDLE - 1`` events that change nothing (each a frame to
draw, when they are decisions) loads, nor moves done and undone as long. Real games
never leave the state as it was for more than 6 events (9 in a seat's or the public
copy, where what the seat did not see does not count)."""
TRAILER = "core.log_end"
"""The ``type`` of the trailer line that ends the log of a finished game."""

HEADER_KEYS = ("format", "format_version", "engine", "plugins", "options", "players",
               "seed", "setup")
OPTIONAL_HEADER_KEYS = ("chance",)
"""Header keys a log may leave out: ``chance``, how the game's chance is keyed
(``"event"``, the default when absent, or ``"purpose"``: :mod:`tokaido_rules.chance`);
written only for ``"purpose"``, so every other log is as it always was."""
EVENT_KEYS = ("seq", "type", "v", "data")


class TextStream(Protocol):
    """What :func:`load_log` and :func:`verify_log` read from besides text and paths: any
    object with ``readline(size)`` returning text (an open text file, ``io.StringIO``)."""

    def readline(self, size: int = -1, /) -> str: ...


LogSource = str | os.PathLike[str] | TextStream
"""A log to read: its text (a ``str`` is always the text itself, never a file name), a
path (``pathlib.Path``), or a text stream."""


_LINE_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""The encoder of every event line: ``json.dumps`` with these options makes an encoder
per call, and a server writes several lines per decision (the same text: the same class
with the same options)."""


def _one_shot_encoder() -> Callable[[Any], str]:
    """:data:`_LINE_ENCODER`'s ``encode``, or, where the interpreter has json's C encoder
    (CPython), that encoder made once with the options ``encode`` gives it at each call
    (the same text: it is the encoder ``encode`` runs), which saves making it per line.
    Checked against ``encode`` on a sample here; anything else keeps ``encode``."""
    encode = _LINE_ENCODER.encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # PyPy: json's own Python encoder
        return encode
    try:
        # markers None: no check for circular values (an event's data has none)
        c_encoder = make(None, _LINE_ENCODER.default, json.encoder.encode_basestring, None,
                         ":", ",", False, False, True)

        def one_shot(value: Any) -> str:
            return "".join(c_encoder(value, 0))

        sample = {"seq": 3, "type": "x.y", "v": 1, "data": {
            "a": [1, -2, True, False, None, "é\"\\\n\u2028<"], "b": {"c": [], "d": {}},
            "f": 0.1, "g": 1e300, "h": 10**30}, "withheld": ["z"]}
        if one_shot(sample) != encode(sample):
            return encode
    except Exception:  # another signature: keep encode
        return encode
    return one_shot


_encode_line = _one_shot_encoder()


def event_line(seq: int, event: Event, data: Mapping[str, Any] | None = None,
               withheld: tuple[str, ...] = ()) -> str:
    line: dict[str, Any] = {"seq": seq, "type": event.TYPE, "v": event.VERSION,
                            "data": event_data(event) if data is None else data}
    if withheld:
        line["withheld"] = list(withheld)
    return _encode_line(line)


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
    if isinstance(value, FrozenMap):
        return {k: _thaw(v) for k, v in value.items()}
    return value


def header(game: Game, viewer: Viewer = None) -> dict[str, Any]:
    """The header of a game's log; a seat's copy, and the public copy (``viewer``
    :data:`~tokaido_rules.views.PUBLIC`), have no seed and no hidden setup."""
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
    if rules.setup.keying != EVENT:
        doc["chance"] = rules.setup.keying
    doc["setup"] = _setup_data(rules.setup, public_only=viewer is not None)
    return doc


def trailer_line(events: int) -> str:
    """The last line of a finished game's log: shaped like an event line (so that a
    reader going line by line needs no special case), it is not an event. ``events`` is
    the number of event lines before it, which is also its ``seq``."""
    return json.dumps({"seq": events, "type": TRAILER, "v": 1, "data": {"events": events}},
                      separators=(",", ":"))


# --- dumping -----------------------------------------------------------------------------


def dump_log(game: Game, viewer: Viewer = None) -> str:
    """The game's log as JSON Lines text; with ``viewer``, that seat's copy, or with
    ``viewer="public"`` (:data:`~tokaido_rules.views.PUBLIC`) the public copy: what every
    seat may see, as a spectator does.

    In a seat's copy every event keeps its sequence number and type; fields the seat may
    not see are left out of ``data`` and named in ``withheld`` (in the public copy, the
    fields some seat may not see). The log of a finished
    game ends with its trailer. To send or store a log as the game goes on, use
    :class:`LogFeed`, which writes each line once.
    """
    return "".join(LogFeed(game, viewer).new_lines(game))


class FeedShare:
    """What several copies of one game's log have in common, made by the first feed that
    needs it and read by the others (a server's audiences, each a seat's copy or the
    public one): the state after each event, each event's whole data, and each line
    already written, by its seq and the fields shown. Hand one share to the feeds of one
    game for one batch of events (the same line of play), then drop it. ``read``: the
    lines as the copies' narrators read them, by their text
    (:meth:`~tokaido_rules.viewer.Narrator.add_shown`). ``alike``: by seq, the data shown,
    the fields withheld and the line of an event that every copy shows alike (its type
    keeps :meth:`Event.visible_fields <tokaido_rules.events.Event.visible_fields>`, which
    does not depend on the seat): redacted once for every copy (read only); the full
    log, when it writes its lines with the share first, gives its own line to an event
    whose every field every seat sees (the copies' line is then the same text).
    ``texts``: each line without its newline, by the line (one text object for every
    copy: its hash is computed once). ``words``: the steps in words as the copies'
    narrators said them (:meth:`~tokaido_rules.viewer.Narrator.take`)."""

    __slots__ = ("alike", "data", "lines", "read", "states", "texts", "words")

    def __init__(self) -> None:
        self.states: dict[int, Any] = {}
        self.data: dict[int, dict[str, Any]] = {}
        self.lines: dict[tuple[int, tuple[str, ...], tuple[str, ...]], str] = {}
        self.read: dict[str, Any] = {}
        self.alike: dict[int, tuple[dict[str, Any], tuple[str, ...], str]] = {}
        self.texts: dict[str, str] = {}
        self.words: dict[tuple[int, ...], Any] = {}


class LogFeed:
    """One copy of a game's log (``viewer``: a seat's copy; ``"public"``,
    :data:`~tokaido_rules.views.PUBLIC`: the public copy, what every seat may see;
    ``None``: the full log), handed out a few lines at a time as the game goes on.

    :meth:`new_lines` returns the lines not handed out yet: the header first, then the
    lines of the events since the last call, and the trailer once the game is over. It
    costs in proportion to the new events (each is redacted once, against the state right
    after it), where ``dump_log(game, viewer)`` redacts the whole game again; the lines
    of every call, joined, are ``dump_log(game, viewer)``. A seat's lines are made with
    the same redaction as its copy of the log (:func:`~tokaido_rules.views.redact`), so
    they hold nothing the seat may not see; the public lines, nothing some seat may not
    see.

    ``since``: the receiver already has the header and the events before seq ``since``
    of ``game`` (a client reconnecting, a server restarted from a stored log); the feed
    starts after them (folding them once).

    A feed follows one line of play: give it the game it was made for, or any game that
    game led to through :meth:`~tokaido_rules.Game.apply`. Make a new feed for a branch.
    """

    def __init__(self, game: Game, viewer: Viewer = None, *,
                 since: int | None = None) -> None:
        if viewer is not None and viewer != PUBLIC:
            viewer = check_seat(game.state, viewer)
        self.viewer: Viewer = viewer
        self._rules = game.state.rules
        self._seed = game.seed
        self._state = initial_state(self._rules, self._seed)
        self._sent = 0
        self._last: Event | None = None
        self._started = False
        self._ended = False
        if since is not None:
            events = game.events
            if type(since) is not int or not 0 <= since <= len(events):
                raise ValueError(f"since must be a seq from 0 to {len(events)}, got {since!r}")
            if viewer is not None:
                for event in events[:since]:
                    self._state = fold(self._state, event)
            self._sent = since
            self._last = events[since - 1] if since else None
            self._started = True

    @property
    def seq(self) -> int:
        """How many events have been handed out: the ``seq`` of the next one."""
        return self._sent

    @property
    def ended(self) -> bool:
        """Whether the trailer has been handed out (the game is over)."""
        return self._ended

    def new_lines(self, game: Game,
                  shown: list[tuple[int, Event, dict[str, Any], tuple[str, ...]]] | None
                  = None, share: FeedShare | None = None) -> list[str]:
        """The lines of the events of ``game`` not handed out yet, each ending with a
        newline: after the header on the first call, and followed by the trailer when
        the game is over. ``shown`` (a seat's or the public copy): a list that gets, for
        each event line, its seq, the event, the data shown and the fields withheld, so
        that a reader in the same process need not read them back from the text.
        ``share``: what the other copies of this game's log made of the same events
        (:class:`FeedShare`), used and added to: each state is folded, each event's data
        made, each line written once for every copy that shows the same fields; the
        full log (``viewer`` ``None``) makes each event's data there, for the copies."""
        if game.state.rules is not self._rules or game.seed != self._seed:
            raise ValueError("this is not the game the feed follows (make one feed per game)")
        lines: list[str] = []
        if not self._started:
            lines.append(json.dumps(header(game, self.viewer), separators=(",", ":"),
                                    ensure_ascii=False) + "\n")
            self._started = True
        events = game.events  # shared: a game's events are one tuple, made once
        if len(events) < self._sent or (self._sent and events[self._sent - 1] is not self._last):
            raise ValueError("the game is not a continuation of the one the feed followed "
                             f"up to seq {self._sent} (make a new feed for a branch or an "
                             "undo)")
        if len(events) > self._sent:
            new = events[self._sent:]
            seq = self._sent
            viewer = self.viewer
            if viewer is None:
                for event in new:
                    if share is None:
                        lines.append(event_line(seq, event) + "\n")
                    else:
                        whole = share.data.get(seq)
                        if whole is None:
                            whole = share.data[seq] = event_data(event)
                        line = event_line(seq, event, whole) + "\n"
                        lines.append(line)
                        if (event.PUBLIC and type(event).visible_fields is Event.visible_fields
                                and tuple(whole) == field_names(type(event))):
                            # every seat, and so the public copy, sees every field: each
                            # copy's line is this one (redact keeps the data whole, in
                            # order, and withholds nothing)
                            share.alike[seq] = (whole, (), line)
                    seq += 1
            else:
                seat = None if isinstance(viewer, str) else viewer  # None: the public copy
                state = self._state
                if share is not None:
                    states, alikes = share.states, share.alike
                for event in new:
                    if share is None:
                        state = fold(state, event)
                        data, withheld = redact(event, state, seat)
                        lines.append(event_line(seq, event, data, withheld) + "\n")
                    else:
                        after = states.get(seq)
                        if after is None:
                            state = states[seq] = fold(state, event)
                        else:
                            state = after
                        alike = alikes.get(seq)
                        if alike is not None:  # the same in every copy: redacted once
                            data, withheld, line = alike
                        else:
                            whole = share.data.get(seq)
                            if whole is None:
                                whole = share.data[seq] = event_data(event)
                            data, withheld = redact(event, state, seat, data=whole)
                            key = (seq, tuple(data), withheld)
                            written = share.lines.get(key)
                            if written is None:
                                written = share.lines[key] = event_line(seq, event, data,
                                                                        withheld) + "\n"
                            line = written
                            if type(event).visible_fields is Event.visible_fields:
                                # the fields every seat sees are the same (all, or none), and
                                # so are the public copy's (their intersection)
                                share.alike[seq] = (data, withheld, line)
                        lines.append(line)
                    if shown is not None:
                        shown.append((seq, event, data, withheld))
                    seq += 1
                self._state = state
            self._sent = seq
            self._last = events[-1]
        if game.is_over and not self._ended:
            lines.append(trailer_line(self._sent) + "\n")
            self._ended = True
        return lines


# --- reading lines -------------------------------------------------------------------------


BLOCK = 1 << 20
"""How much of a log is read at a time (characters of text, bytes of a file): the lines
of a block are split and checked at C speed, and memory stays within a few blocks."""


def _check_lengths(lines: list[str], number: int) -> None:
    """Refuse a line longer than :data:`MAX_LINE` (``number``: lines before ``lines``)."""
    if lines and max(map(len, lines)) > MAX_LINE:
        at = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE)
        raise LogFormatError(f"line longer than {MAX_LINE} characters", number + at + 1)


def _text_blocks(text: str) -> Iterator[list[str]]:
    """The lines of a log given as text, a block at a time (a line longer than
    :data:`MAX_LINE` is refused before it is copied)."""
    pos, size, number = 0, len(text), 0
    while pos < size:
        stop = pos + BLOCK
        if stop >= size:
            lines = text[pos:].split("\n")
            if text.endswith("\n"):
                lines.pop()
            pos = size
        else:
            begins = text.rfind("\n", pos, stop) + 1 or pos  # the line that crosses stop
            end = text.find("\n", stop)
            if (size if end < 0 else end) - begins > MAX_LINE:
                raise LogFormatError(f"line longer than {MAX_LINE} characters",
                                     number + text.count("\n", pos, begins) + 1)
            if end < 0:
                end = size
            lines = text[pos:end].split("\n")
            pos = end + 1
        _check_lengths(lines, number)
        number += len(lines)
        yield lines


def _decoded(data: bytes, number: int) -> list[str]:
    """The lines of whole lines of a file, checked (``number``: lines before them)."""
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise LogFormatError("not UTF-8 text",
                             number + data.count(b"\n", 0, exc.start) + 1) from None
    _check_lengths(lines, number)
    return lines


def _file_blocks(stream: BinaryIO) -> Iterator[list[str]]:
    """The lines of a file, a block at a time: a line that is not UTF-8 is named, and
    a line too long is refused after reading that much of it, never read whole."""
    number = 0
    limit = 4 * MAX_LINE  # a character takes at most 4 bytes in UTF-8
    rest = b""
    while True:
        chunk = stream.read(BLOCK)
        if not chunk:
            if rest:  # the last line, without its newline
                yield _decoded(rest, number)
            return
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            if len(data) > limit:
                raise LogFormatError(f"line longer than {MAX_LINE} characters", number + 1)
            rest = data
            continue
        rest = data[cut + 1:]
        lines = _decoded(data[:cut], number)
        number += len(lines)
        if len(rest) > limit:
            raise LogFormatError(f"line longer than {MAX_LINE} characters", number + 1)
        yield lines


def _stream_blocks(stream: TextStream) -> Iterator[list[str]]:
    """The lines of a text stream, each read on its own (a line longer than
    :data:`MAX_LINE` is refused after reading that much of it), a block at a time."""
    number = 0
    block: list[str] = []
    size = 0
    while True:
        try:
            line = stream.readline(MAX_LINE + 1)
        except UnicodeDecodeError:  # the stream decodes ahead: the line is approximate
            raise LogFormatError("not UTF-8 text (here or in the lines just after)",
                                 number + 1) from None
        if not isinstance(line, str):
            raise LogFormatError("a log is text: open the file in text mode, "
                                 "encoding='utf-8' (or pass its path)")
        if not line:
            break
        number += 1
        if line.endswith("\n"):
            line = line[:-1]
        elif len(line) > MAX_LINE:
            raise LogFormatError(f"line longer than {MAX_LINE} characters", number)
        block.append(line)
        size += len(line)
        if size >= BLOCK:
            yield block
            block, size = [], 0
    if block:
        yield block


@contextmanager
def _blocks(source: LogSource) -> Iterator[Iterator[list[str]]]:
    """The lines of a log given as text, a path or a text stream, a block at a time (a
    path is opened here and closed when reading ends)."""
    if isinstance(source, str):
        yield _text_blocks(source)
    elif isinstance(source, os.PathLike):
        with open(source, "rb") as stream:
            yield _file_blocks(stream)
    elif callable(getattr(source, "readline", None)):
        yield _stream_blocks(source)
    else:
        raise LogFormatError("a log is text, a path or a text stream, not "
                             f"{type(source).__name__}")


# --- loading -----------------------------------------------------------------------------


@frozen
class _Header:
    ruleset: Ruleset
    players: int
    seed: int
    setup: Setup
    version: int


def _parse_line(text: str, number: int) -> dict[str, Any]:
    if len(text) > MAX_LINE:
        raise LogFormatError(f"line longer than {MAX_LINE} characters", number)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"not valid JSON {_where(text, exc.pos)}", number) from None
    except RecursionError:
        raise LogFormatError("not valid JSON (nested too deeply)", number) from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise LogFormatError(f"not valid JSON ({exc})", number) from None
    if not isinstance(obj, dict):
        raise LogFormatError("expected a JSON object", number)
    _check_unique_keys(obj, text, number)
    return obj


class _RepeatedKey(Exception):
    """Raised while parsing a line again to find the key it names twice."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return obj


_PAIRS_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs)


def _key_count(value: Any) -> int:
    """How many keys the objects of a parsed JSON value have in all."""
    count = 0
    if type(value) is dict:
        count = len(value)
        value = value.values()
    for item in value:
        if type(item) is dict or type(item) is list:
            count += _key_count(item)
    return count


def _check_unique_keys(obj: dict[str, Any], text: str, number: int) -> None:
    """Refuse a line that names a key twice in one object (JSON readers differ on which
    value they keep; Python's keeps the last, silently).

    Cheap for the usual line: every key is followed by a colon, and JSON has no other
    colon outside its strings, so a line with as many colons as its parsed objects have
    keys (where a key named twice counts once) names none twice. A line with more colons
    (a colon in a string, or a key named twice) is parsed again, noting every key. (The
    reader of a log counts the keys of the usual line at once, those of the line and its
    data, and of an agenda's steps, :func:`_agenda_keys`: all of them or fewer; it calls
    this only when they and the colons differ.)"""
    colons = text.count(":")
    keys = None
    data = obj.get("data")
    if type(data) is dict and text.count("{") == 2:  # no other object: line, data
        keys = len(obj) + len(data)
    else:
        with suppress(RecursionError):  # told below
            keys = _key_count(obj)
    if colons == keys:
        return
    try:
        _PAIRS_DECODER.decode(text)
    except _RepeatedKey as exc:
        raise LogFormatError(f"key {_shown(exc.args[0])} appears twice in one object",
                             number) from None
    except RecursionError:
        raise LogFormatError("not valid JSON (nested too deeply)", number) from None
    except ValueError:  # parsed once already: not expected
        raise LogFormatError("not valid JSON", number) from None


_C_SCANNER: Any = getattr(json.scanner, "c_make_scanner", None)
_SCAN: Callable[[str, int], tuple[Any, int]] | None = (
    None if _C_SCANNER is None else _C_SCANNER(json.JSONDecoder()))
"""CPython's JSON scanner, the one behind ``json.loads``, called directly on a line:
about twice as fast per event line. (PyPy has none; its ``json.loads`` is fast.)"""



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
        raise LogFormatError(f"unknown key(s) {', '.join(_shown(k) for k in unknown[:5])}",
                             number)


def _version(text: str, what: str) -> Version:
    """A plugin version read from the header (PEP 440; ``LogFormatError`` if not)."""
    try:
        return Version(text)
    except ValueError:  # InvalidVersion, or digits beyond what int() converts
        raise LogFormatError(f"{what} has version {_shown(text)}, which is not a PEP 440 "
                             "version", 1) from None


def _parse_header(obj: dict[str, Any], known: Iterable[object] = ()) -> _Header:
    if obj.get("format") != FORMAT:
        raise LogFormatError(f"not a {FORMAT} file (format {_shown(obj.get('format'))})", 1)
    if "viewer" in obj:
        raise LogFormatError("this is a seat's copy of a log (hidden facts withheld, no "
                             "seed); only a full log can be loaded or verified", 1)
    _check_keys(obj, HEADER_KEYS, 1, OPTIONAL_HEADER_KEYS)
    keying = obj.get("chance", EVENT)
    if type(keying) is not str or keying not in KEYINGS:
        raise LogFormatError(f"chance must be one of {', '.join(KEYINGS)} (how chance is "
                             f"keyed), got {_shown(keying)}", 1)
    version = obj["format_version"]
    if type(version) is not int:
        raise LogFormatError("format_version must be an integer", 1)
    if version > FORMAT_VERSION:
        raise LogVersionError(f"log format version {_shown(version)} is newer than this "
                              f"engine's ({FORMAT_VERSION}); upgrade tokaido-rules", 1)
    if version < 1:
        raise LogFormatError(f"unknown log format version {_shown(version)}", 1)
    try:
        plugins = _CONVERTER.structure(obj["plugins"], tuple[_PluginEntry, ...])
        options = _CONVERTER.structure(obj["options"], dict[str, Any])
        players = _CONVERTER.structure(obj["players"], int)
        seed = _CONVERTER.structure(obj["seed"], int)
        setup = _CONVERTER.structure(obj["setup"], _SetupData)
    except Exception as exc:
        raise LogFormatError(f"bad header: {_describe(exc)}", 1) from None
    if not 0 <= seed < 2**64:
        raise LogFormatError("seed out of range", 1)
    listed: set[str] = set()
    for entry in plugins:
        if entry.id in listed:
            raise LogFormatError(f"plugin {_shown(entry.id)} is listed twice", 1)
        listed.add(entry.id)
    installed = installed_plugins()
    given = {plugin_info(p).id: p for p in known}
    objects = []
    for entry in plugins:
        wanted = _version(entry.version, f"plugin {entry.id!r}")
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
        try:
            have = check_version(plugin_info(plugin))
        except TokaidoError as exc:
            raise LogPluginError(str(exc), 1) from None
        if wanted > have:
            raise LogVersionError(f"log written with plugin {entry.id!r} {entry.version}, "
                                  f"newer than the installed {plugin_info(plugin).version}", 1)
        objects.append(plugin)
    coins: dict[int, int] = {}
    for key, value in setup.coins.items():
        if not (key.isascii() and key.isdigit() and len(key) <= 2):
            raise LogFormatError(f"bad setup: coins: {_shown(key)} is not a seat number", 1)
        coins[int(key)] = value
    try:
        ruleset = _ruleset(tuple(objects), tuple(sorted(options.items())))
    except TokaidoError as exc:
        raise LogPluginError(f"bad ruleset: {exc}", 1) from None
    try:
        full_setup = Setup(travellers=setup.travellers, queue=setup.queue,
                           stacks=setup.stacks or {}, coins=coins, chance=setup.chance or {},
                           keying=keying)
    except Exception as exc:
        raise LogFormatError(f"bad setup: {_describe(exc)}", 1) from None
    return _Header(ruleset, players, seed, full_setup, version)


@lru_cache(maxsize=32)
def _ruleset(plugins: tuple[object, ...], options: tuple[tuple[str, Any], ...]) -> Ruleset:
    """Logs of the same ruleset share one (rulesets are never changed once built).

    The header names every option the game was played with; an option it does not name
    did not exist when the game was recorded, so it takes its printed default, not a
    preset's value: an old game resumes and verifies as it was played."""
    given = dict(options)
    ruleset = Ruleset(plugins, given)
    missing = {name: spec.default for name, spec in ruleset.registry.options.items()
               if name not in given}
    if missing and any(ruleset.options[name] != value for name, value in missing.items()):
        ruleset = Ruleset(plugins, {**given, **missing})
    return ruleset


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
    try:
        if isinstance(exc, cattrs.BaseValidationError):
            return "; ".join(cattrs.transform_error(exc, format_exception=_format))
        return str(exc) or type(exc).__name__
    except Exception:  # describing must never fail in turn
        return type(exc).__name__


_EVENT_KEY_SET = frozenset(EVENT_KEYS)


def _parse_event(obj: dict[str, Any], number: int, seq: int, registry: Registry,
                 structurers: dict[type[Event], Structurer],
                 trailers: bool = False) -> Event | None:
    """The event of one line (``None`` for the trailer, where ``trailers`` are allowed:
    the caller checks it)."""
    kind: Any = obj.get("type")
    cls = registry.events.get(kind) if isinstance(kind, str) else None
    if cls is None and trailers and kind == TRAILER:
        return None
    data: Any = obj.get("data")
    if (cls is not None and obj.keys() == _EVENT_KEY_SET and type(obj["seq"]) is int
            and obj["seq"] == seq and obj["v"] == cls.VERSION and type(obj["v"]) is int
            and type(data) is dict):  # a usual line: the checks below, in one
        try:
            event = structurers[cls](data, cls)
        except Exception as exc:
            raise LogFormatError(f"bad {kind} data: {_describe(exc)}", number) from None
        return event if cls is not AgendaSet else _check_agenda(event, registry, number)
    if obj.keys() != _EVENT_KEY_SET:
        _check_keys(obj, EVENT_KEYS, number)
    if type(obj["seq"]) is not int:
        raise LogFormatError("seq must be an integer", number)
    if obj["seq"] != seq:
        raise LogSequenceError(f"expected seq {seq}, found {_shown(obj['seq'])}", number)
    if cls is None:
        raise LogFormatError(f"unknown event type {_shown(kind)}", number)
    version, data = obj["v"], obj["data"]
    if type(version) is not int or version < 1:
        raise LogFormatError("v must be a positive integer", number)
    if not isinstance(data, dict):
        raise LogFormatError("data must be an object", number)
    if version > cls.VERSION:
        raise LogVersionError(f"event {kind} version {_shown(version)} is newer than the "
                              f"installed version {cls.VERSION}", number)
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
        event = structurers[cls](data, cls)
    except Exception as exc:
        raise LogFormatError(f"bad {kind} data: {_describe(exc)}", number) from None
    return event if cls is not AgendaSet else _check_agenda(event, registry, number)


def _check_agenda(event: Event, registry: Registry, number: int) -> Event:
    """Refuse an agenda with a step of a kind no enabled plugin registered: nothing
    could run it (the line's own type allows any kind)."""
    if isinstance(event, AgendaSet):
        for step in event.steps:
            if step.kind not in registry.steps:
                raise LogFormatError(f"unknown step kind {_shown(step.kind)} in the agenda",
                                     number)
    return event


_CARD_EVENTS = (DeckSet, CardsMoved)
_CHECKED = (AgendaSet, *_CARD_EVENTS)
"""The event types that :func:`_check_fit` checks before they are folded."""
_WATCHED = frozenset(_CHECKED)
"""The same, to tell them by their exact type (cheaper than ``isinstance``)."""


def _check_trailer(obj: dict[str, Any], number: int, events: int) -> None:
    """The trailer must count exactly the event lines before it."""
    _check_keys(obj, EVENT_KEYS, number)
    if obj["v"] != 1 or not isinstance(obj["data"], dict) or list(obj["data"]) != ["events"]:
        raise LogFormatError("a trailer is {\"seq\": N, \"type\": \"core.log_end\", \"v\": 1, "
                             "\"data\": {\"events\": N}}", number)
    if type(obj["seq"]) is not int:
        raise LogFormatError("seq must be an integer", number)
    if obj["seq"] != events:
        raise LogSequenceError(f"expected seq {events}, found {_shown(obj['seq'])} (trailer)",
                               number)
    count = obj["data"]["events"]
    if type(count) is not int or count != events:
        raise LogFormatError(f"the trailer counts {_shown(count)} events; the log has "
                             f"{events}", number)


SEEN_CHARACTERS = 2_000_000
"""How much line text each set of event types remembers (:class:`_SeenLines`), in
characters; past that, it starts again from none. Measured in text, not in lines, so
that long lines cannot make it large: the events of 200 random 4-player games, about a
million characters of distinct lines, take about 4 MB."""


class _SeenLines:
    """The events already parsed from lines of logs with one set of event types and
    step kinds, by the text of the line after ``{"seq":N,"type":"`` (:attr:`events`).

    Events are immutable and that text decides a line's event alone (no line names a
    key twice: such lines are refused, so it holds no other ``seq``), so a line seen
    before is that event again: it needs no JSON scan and no structuring. Lines repeat a
    lot (nine in ten across a hundred random 4-player games: the same coins paid, points
    scored, agendas written); only lines that parsed the usual way (the current version
    of their event) and are written as the writer writes them are remembered: ``type``
    just after ``seq``, no escape sequence (a backslash), no space, ``data``, an object,
    last (so nothing after it, not even a carriage return). So the same content spelt
    otherwise (``"se\\u0071"`` for ``"seq"``, spaces after the colons, keys in another
    order) is read each time and takes no entry. (Keys within ``data`` in another order,
    a tab between two values or ``-0`` for ``0``, which no writer produces, would take an
    entry each, as any other line does: cheaper than testing for them, and the memory is
    bounded all the same.) The fold still checks every event against the game."""

    __slots__ = ("characters", "events")

    def __init__(self) -> None:
        self.events: dict[str, Event] = {}
        self.characters = 0

    def remember(self, rest: str, event: Event) -> None:
        if len(rest) > SEEN_CHARACTERS:
            return
        if self.characters + len(rest) > SEEN_CHARACTERS:
            self.events.clear()  # in place: readers hold this dictionary
            self.characters = 0
        self.events[rest] = event
        self.characters += len(rest)


_STEP_DATA = itemgetter("data")


def _agenda_keys(obj: dict[str, Any]) -> int:
    """The keys of an agenda line parsed as ``obj``, of its data, of its steps and of
    their data, counted at C speed (a key named twice counts once): all the keys of the
    line unless a step's data holds an object in turn, else fewer."""
    data = obj["data"]
    steps = data["steps"]
    try:
        inner = sum(map(len, map(_STEP_DATA, steps)))
    except KeyError:  # a step without data (its default)
        inner = 0
    return 4 + len(data) + sum(map(len, steps)) + inner


def _too_many_events(number: int) -> LogFormatError:
    return LogFormatError(f"more than {MAX_EVENTS} events (MAX_EVENTS; a real game has "
                          "a few hundred)", number)


_SEEN: dict[tuple[tuple[type[Event], ...], tuple[str, ...]], _SeenLines] = {}


def _seen_lines(registry: Registry) -> _SeenLines:
    """The :class:`_SeenLines` of a registry's event types and step kinds (rulesets with
    the same share one: a line's event is checked against both when it is parsed)."""
    key = (tuple(registry.events.values()), tuple(registry.steps))
    seen = _SEEN.get(key)
    if seen is None:
        if len(_SEEN) >= 64:
            _SEEN.clear()
        seen = _SEEN[key] = _SeenLines()
    return seen


class _Reader:
    """The header and the events of a log, parsed one line at a time.

    Iterating yields ``(line number, event)``; afterwards :attr:`complete` says whether
    the trailer was read, :attr:`count` how many events there were. Anything that does
    not fit raises a :class:`LogError` naming the line: a malformed line, a line after
    the trailer, a trailer that miscounts.
    """

    def __init__(self, blocks: Iterator[list[str]], plugins: Iterable[object]) -> None:
        self._blocks = blocks
        first = next(blocks, None)
        if not first:
            raise LogFormatError("empty log")
        self._first = first
        self.head = _parse_header(_parse_line(first[0], 1), plugins)
        self.complete = False
        self.count = 0
        self.number = 1

    def __iter__(self) -> Iterator[tuple[int, Event]]:
        registry = self.head.ruleset.registry
        structurers = _converter_and_structurers(self.head.ruleset)[1]
        memory = _seen_lines(registry)
        seen = memory.events
        trailers = self.head.version >= 2
        scan = _SCAN
        count = 0
        number = 1
        for block in itertools.chain((self._first[1:],), self._blocks):
            for index, text in enumerate(block):
                number += 1
                prefix = f'{{"seq":{count},"type":"'
                if text.startswith(prefix):  # the usual line: one seen before is known
                    rest = text[len(prefix):]
                    event = seen.get(rest)
                    if event is not None:
                        if count == MAX_EVENTS:
                            raise _too_many_events(number)
                        count += 1
                        yield number, event
                        continue
                else:
                    rest = ""
                obj: Any = None
                if scan is not None:  # the fast path; anything unusual is described below
                    try:
                        obj, end = scan(text, 0)
                    except (StopIteration, ValueError, RecursionError):
                        obj = None
                    else:
                        if end != len(text) or type(obj) is not dict:
                            obj = None
                if obj is None:
                    obj = _parse_line(text, number)
                try:
                    event = _parse_event(obj, number, count, registry, structurers, trailers)
                except LogError:
                    _check_unique_keys(obj, text, number)  # the fault to name, if it is one
                    raise
                if event is None:  # the trailer: check it, and that nothing follows it
                    _check_unique_keys(obj, text, number)
                    _check_trailer(obj, number, count)
                    self.count, self.number, self.complete = count, number, True
                    if index + 1 < len(block) or any(self._blocks):
                        raise LogFormatError(f"nothing may follow the trailer (line "
                                             f"{number}), which ends the log", number + 1)
                    return
                # the keys of the line and its data (of an agenda's steps too): all the
                # keys parsed or fewer, so as many colons means no key is named twice
                keys = (_agenda_keys(obj) if type(event) is AgendaSet
                        else 4 + len(obj["data"]))
                if text.count(":") != keys:  # a key named twice, a colon in a string, or
                    _check_unique_keys(obj, text, number)  # objects deeper in the data
                if count == MAX_EVENTS:
                    raise _too_many_events(number)
                if (rest and obj["v"] == event.VERSION  # and the writer's text (_SeenLines)
                        and "\\" not in rest and " " not in rest and rest.endswith("}}")):
                    memory.remember(rest, event)
                count += 1
                yield number, event
        self.count, self.number = count, number

    def check_end(self, over: bool) -> None:
        """At the end of the file: a trailer ends a finished game, and only one.

        A format 1 log has no trailer; a format 2 log of a game in progress has none.
        """
        if self.complete and not over:
            raise LogStateError("the trailer says the log is complete, but the game is "
                                "not over", self.number)
        if over and not self.complete and self.head.version >= 2:
            raise LogStateError("the game is over but the log has no trailer: it is cut "
                                "short", self.number)


def _read(source: LogSource, plugins: Iterable[object]) -> tuple[_Header, list[Event], Game]:
    """Parse and fold a full log strictly; return its header, events and the game."""
    with _blocks(source) as blocks:
        reader = _Reader(blocks, plugins)
        head = reader.head
        try:
            rules = make_rules(head.ruleset, head.players, head.setup)
        except TokaidoError as exc:
            raise LogFormatError(f"bad game parameters: {exc}", 1) from None
        state = initial_state(rules, head.seed)
        events: list[Event] = []
        cards = 0
        mark, check_at = state, MAX_IDLE + 1  # the line at which to compare with mark
        players, pieces = rules.players, len(state.pieces)
        for number, event in reader:
            if type(event) in _WATCHED:  # _check_fit's tests, written out for speed
                if isinstance(event, AgendaSet):
                    for step in event.steps:
                        if not (-1 <= step.piece < pieces
                                and (step.seat is None or 0 <= step.seat < players)):
                            _check_fit(event, state, cards, number)  # raises, saying why
                elif isinstance(event, _CARD_EVENTS):
                    named = len(event.cards)
                    cards += named
                    if (named > MAX_CARDS or cards > MAX_LOG_CARDS
                            or (isinstance(event, CardsMoved) and event.dst != event.src
                                and len(state.zones.get(event.dst, ())) + named > MAX_CARDS)):
                        _check_fit(event, state, cards - named, number)
            if state.over and isinstance(event, Action):
                raise LogStateError(f"{event.TYPE} is a decision after the end of the game",
                                    number)
            try:
                state = fold(state, event)
            except Exception as exc:  # any failure of a fold means the event does not fit
                raise LogStateError(f"{event.TYPE} does not fit the game: {_describe(exc)}",
                                    number) from None
            events.append(event)
            if number == check_at:
                _check_changed(mark, state, number)
                mark, check_at = state, number + MAX_IDLE
        reader.check_end(state.over)
        _check_setup_done(head, events, reader.number)
    game = Game(state, tuple(events))
    try:
        game.legal_actions()
    except Exception as exc:
        raise LogStateError(f"the log ends in a state the rules cannot continue: "
                            f"{_describe(exc)}", reader.number) from None
    return head, events, game


def _check_setup_done(head: _Header, events: list[Event], number: int) -> None:
    """Refuse a log that stops before the rules reach their first decision: its setup
    was cut short (a writer killed while it wrote it), and folded as it is the game
    would go on from a state the rules never leave. A log that records a decision
    made by a seat is past its setup; one that records none is compared with the
    setup the header makes (which is run only then)."""
    after_automatic = False
    for event in events:
        if isinstance(event, Action) and not after_automatic:
            return
        after_automatic = type(event) is Automatic
    try:
        setup = new_game(head.players, head.seed, head.ruleset, setup=head.setup).events
    except Exception:  # the rules cannot set the game up: loading does not judge that
        return
    if len(events) < len(setup):
        raise LogStateError(f"the log stops inside the game's setup, at seq {len(events)}, "
                            f"before the rules reach their first decision (they go on "
                            f"with {setup[len(events)].TYPE})", number)


def _check_fit(event: Event, state: GameState, cards: int, number: int,
               sizes: Mapping[str, int] | None = None) -> int:
    """Check an agenda, deck or move against the game before it is folded: each step for
    a seat and a traveller of the game, no deck, move or zone of more than
    :data:`MAX_CARDS` cards, the log's decks and moves within :data:`MAX_LOG_CARDS`
    cards in all (``cards``: so far; the new total is returned). ``sizes``: the zones'
    sizes, when not those of ``state``."""
    if isinstance(event, AgendaSet):
        players, pieces = state.rules.players, len(state.pieces)
        for step in event.steps:
            if step.seat is not None and not 0 <= step.seat < players:
                raise LogStateError(f"a step of the agenda is for seat {step.seat}, not a "
                                    f"seat of this {players}-player game", number)
            if not -1 <= step.piece < pieces:
                raise LogStateError(f"a step of the agenda is about traveller {step.piece}, "
                                    f"not one of the game's {pieces}", number)
        return cards
    if isinstance(event, _CARD_EVENTS):
        named = len(event.cards)
        if named > MAX_CARDS:
            raise LogFormatError(f"{event.TYPE} names {named} cards, more than {MAX_CARDS} "
                                 "(MAX_CARDS)", number)
        cards += named
        if cards > MAX_LOG_CARDS:
            raise LogFormatError("the log's decks and moves name more than "
                                 f"{MAX_LOG_CARDS} cards in all (MAX_LOG_CARDS)", number)
        if isinstance(event, CardsMoved) and event.dst != event.src:
            size = (len(state.zones.get(event.dst, ())) if sizes is None
                    else sizes.get(event.dst, 0)) + len(event.cards)
            if size > MAX_CARDS:
                raise LogFormatError(f"zone {_shown(event.dst)} would hold {size} cards, "
                                     f"more than {MAX_CARDS} (MAX_CARDS)", number)
    return cards


def _same_but_counters(before: GameState, after: GameState) -> bool:
    """Whether two states differ at most in their counters (``seq``, ``turn``)."""
    return (after.over == before.over and after.pieces == before.pieces
            and after.zones == before.zones and after.agenda == before.agenda
            and after.data == before.data and after.script == before.script)


def _check_changed(before: GameState, after: GameState, number: int) -> None:
    """Refuse a log whose last :data:`MAX_IDLE` events, up to line ``number``, leave
    the game as it was."""
    if _same_but_counters(before, after):
        raise LogFormatError(f"the last {MAX_IDLE} events change nothing but the "
                             "counters (MAX_IDLE)", number)


def read_log(source: LogSource,
             plugins: Iterable[object] = ()) -> tuple[_Header, list[Event], Game]:
    """Parse and fold a full log strictly; return its header, events and the game."""
    return _read(source, plugins)


def load_log(source: LogSource, *, plugins: Iterable[object] = ()) -> Game:
    """Load a full log into a game equal to the live one, ready to be continued.

    ``source`` is the log's text (a ``str`` is always the text itself), a path
    (``pathlib.Path``) or a text stream; it is read a block of lines at a time, so
    memory follows the game, not the file. Loading folds
    the events; it re-runs no rules and rolls no dice, so it proves nothing about how
    the game was played (:func:`verify_log` does). A log without a trailer loads as a
    game in progress, but one that stops before the rules reach their first decision
    (cut inside its setup) is refused with
    :class:`~tokaido_rules.errors.LogStateError`. Plugins are found by id among
    ``plugins`` (objects, e.g. one under development), then among the installed ones.
    Raises a :class:`~tokaido_rules.errors.LogError` subclass naming the line for
    anything that does not fit.
    """
    return _read(source, plugins)[2]


# --- verification ----------------------------------------------------------------------------


@frozen
class Verification:
    """The result of :func:`verify_log`: ``ok``, or the first ``seq`` where the log and
    a replay under the current rules part ways (``None`` when the fault is in the
    header), and why; ``decisions`` counts the decisions that agree, those the rules
    took alone (a single answer) included, as
    :func:`~tokaido_rules.simulate.decision_count` counts them."""

    ok: bool
    seq: int | None
    message: str
    decisions: int


def verify_log(source: LogSource, *, plugins: Iterable[object] = (),
               allow_unfinished: bool = False) -> Verification:
    """Play the log's game again under the current rules and report the first event
    where the log differs.

    The game is set up again from the header (seed, ruleset, crafted setup); each
    decision the log records is applied, and every event the rules produce, chance
    outcomes included, is compared with the log's. Outcomes the header's setup does not
    script are drawn from the seed again, so a forged die roll or shuffle, a changed seed
    or a rules change fails at its first effect. A header script that the events do not
    use up fails too (it would decide the game's future chance). A log that ends before
    the game does fails as incomplete unless ``allow_unfinished``.

    ``source`` is read as by :func:`load_log`, and reading stops at the first
    difference. Raises a :class:`~tokaido_rules.errors.LogError` for a log
    that is malformed up to that point, and for a seat's copy, which has no seed.
    Verification proves that the log is a game the rules allow from its header; it does
    not prove who wrote the file (logs are not signed).
    """
    return _verify(source, plugins, allow_unfinished)[0]


def _verify(source: LogSource, plugins: Iterable[object],
            allow_unfinished: bool) -> tuple[Verification, Game | None]:
    """:func:`verify_log`, and the game played again when the log verifies: equal to
    the one :func:`load_log` gives, made by the rules rather than folded."""
    with _blocks(source) as blocks:
        reader = _Reader(blocks, plugins)
        head = reader.head
        try:
            game = new_game(head.players, head.seed, head.ruleset, setup=head.setup)
        except Exception as exc:
            return _failed(0, f"setup fails under the current rules: "
                           f"{_describe(exc)}", 0)
        produced = game.events
        decisions = 0
        seq = -1
        for _, event in reader:
            seq += 1
            if seq < len(produced):
                if not _same(produced[seq], event):
                    return _failed(seq, _mismatch(produced[seq], event),
                                   decisions)
                if isinstance(event, Action):  # one the rules took alone, single answer
                    decisions += 1
                continue
            if game.is_over:
                return _failed(seq, f"the log has {event.TYPE} after the end of "
                               "the game", decisions)
            if not isinstance(event, Action):
                return _failed(seq, f"the log has {event.TYPE} {_data(event)} "
                               "where the current rules wait for a decision", decisions)
            try:
                game = game.apply(event)
            except IllegalActionError as exc:
                return _failed(seq, f"decision {_shown_event(event)} is not legal "
                               f"under the current rules: {_describe(exc)}", decisions)
            except Exception as exc:
                return _failed(seq, f"the current rules cannot play decision "
                               f"{_shown_event(event)}: {_describe(exc)}", decisions)
            decisions += 1
            produced = game.events
            if not _same(produced[seq], event):  # the rules recorded it otherwise
                return _failed(seq, _mismatch(produced[seq], event), decisions)
        count = reader.count
        if len(produced) > count:
            return _failed(count, f"the log stops at seq {count}, where the "
                           f"current rules go on with {produced[count].TYPE}", decisions)
        reader.check_end(game.is_over)
    if not game.is_over and not allow_unfinished:
        return _failed(count, f"incomplete: the game is not over (the log "
                       f"ends at seq {count}, before decision {decisions + 1})", decisions)
    left = {kind: len(outcomes) for kind, outcomes in game.state.script.items() if outcomes}
    if left:
        kinds = ", ".join(f"{kind} ({n})" for kind, n in sorted(left.items()))
        return _failed(None, "the header's setup scripts chance outcomes that "
                       f"the game has not used: {kinds}", decisions)
    state = "" if game.is_over else " so far (the game is not over)"
    return Verification(True, None, f"{count} events and {decisions} decisions agree with the "
                        f"current rules{state}", decisions), game


def _failed(seq: int | None, message: str, decisions: int) -> tuple[Verification, None]:
    return Verification(False, seq, message, decisions), None


def _same(produced: Event, recorded: Event) -> bool:
    """Whether two events are equal; values too deep to compare are not."""
    try:
        return produced == recorded
    except RecursionError:
        return False


def _data(event: Event) -> str:
    try:
        text = str(event_data(event))
    except Exception:
        return "(data not shown)"
    return text if len(text) <= 300 else text[:297] + "..."


def _shown_event(event: Event) -> str:
    try:
        text = str(event)
    except Exception:
        text = event.TYPE
    return text if len(text) <= 300 else text[:297] + "..."


def _mismatch(produced: Event, recorded: Event) -> str:
    return (f"the log has {recorded.TYPE} {_data(recorded)}, the current rules give "
            f"{produced.TYPE} {_data(produced)}")


# --- state snapshots -----------------------------------------------------------------------

STATE_KEYS = ("seed", "pieces", "zones", "agenda", "data", "script", "seq", "turn", "over")


def dump_state(state: GameState) -> str:
    """A JSON snapshot of a state (without its rules, which the log header carries);
    under purpose keying it has the counts of each purpose too (``chances``)."""
    data = {key: _CONVERTER.unstructure(getattr(state, key)) for key in STATE_KEYS}
    if state.chances is not None:
        data["chances"] = dict(state.chances)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def load_state(text: str, rules: Rules) -> GameState:
    """Read a snapshot written by :func:`dump_state` for a game with these ``rules``."""
    obj = _parse_line(text, 1)
    _check_keys(obj, STATE_KEYS, 1, ("chances",))
    if ("chances" in obj) != (rules.setup.keying != EVENT):
        raise LogFormatError("bad state: purpose counts (chances) are in a snapshot exactly "
                             "when chance is keyed by purpose", 1)
    try:
        state = GameState(
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
            chances=(None if "chances" not in obj
                     else FrozenMap(_CONVERTER.structure(obj["chances"], dict[str, int]))),
        )
    except Exception as exc:
        raise LogFormatError(f"bad state: {_describe(exc)}", 1) from None
    for step in state.agenda:
        if step.kind not in rules.registry.steps:
            raise LogFormatError(f"bad state: unknown step kind {_shown(step.kind)} in the "
                                 "agenda", 1)
    return state


# --- a seat's copy ---------------------------------------------------------------------------


@frozen
class SeatLine:
    """One event line of a seat's copy: what the seat saw of the event.

    ``data`` holds the fields the seat may see and ``withheld`` names the others;
    ``event`` is the event rebuilt from them when every field was shown, or when the
    only field withheld is a list of cards whose ``count`` is shown (each withheld card
    is then a placeholder, :data:`UNSEEN` followed by the deck its back shows when
    known); else ``None``.
    """

    seq: int
    type: str
    data: FrozenMap[str, Any]
    withheld: tuple[str, ...]
    event: Event | None


UNSEEN = "?"
"""How a card a seat did not see starts in a :class:`SeatLine`'s rebuilt event."""


@frozen
class SeatCopy:
    """A seat's copy of a log, or the public copy, read by :func:`load_seat_copy`: the
    ruleset, players and public setup of its header, the ``viewer`` seat (``"public"``,
    :data:`~tokaido_rules.views.PUBLIC`, for the public copy), its lines, and
    ``complete`` when it ends with the trailer of a finished game. It has no seed and no
    hidden fact, so it cannot become a :class:`~tokaido_rules.Game`; what the seat (or
    every seat) saw can be drawn from it (:mod:`tokaido_rules.viewer`)."""

    ruleset: Ruleset
    players: int
    viewer: SeatOrPublic
    setup: Setup
    lines: tuple[SeatLine, ...]
    complete: bool

    def rules(self) -> Rules:
        """The game's rules, as the header gives them."""
        return make_rules(self.ruleset, self.players, self.setup)


def _seat_event(obj: dict[str, Any], number: int, seq: int, registry: Registry,
                structurers: dict[type[Event], Structurer]) -> SeatLine:
    """The line of a seat's copy: checked like a full log's, its event rebuilt where the
    seat saw enough of it."""
    withheld_raw = obj.get("withheld", [])
    if not isinstance(withheld_raw, list) or not all(isinstance(w, str) for w in withheld_raw):
        raise LogFormatError("withheld must be a list of field names", number)
    withheld = tuple(withheld_raw)
    plain = {k: v for k, v in obj.items() if k != "withheld"}
    data = plain.get("data")
    kind = plain.get("type")
    cls = registry.events.get(kind) if isinstance(kind, str) else None
    event: Event | None = None
    if not withheld:
        event = _parse_event(plain, number, seq, registry, structurers)
    elif (cls is not None and withheld == ("cards",) and isinstance(data, dict)
          and type(data.get("count")) is int and data["count"] >= 0):
        if data["count"] > MAX_CARDS:
            raise LogFormatError(f"{kind} counts {data['count']} cards, more than "
                                 f"{MAX_CARDS} (MAX_CARDS)", number)
        filled = {**plain, "data": {**data, "cards": [UNSEEN] * data["count"]}}
        event = _parse_event(filled, number, seq, registry, structurers)
    else:
        _check_keys(plain, EVENT_KEYS, number)
        if plain["seq"] != seq:
            raise LogSequenceError(f"expected seq {seq}, found {_shown(plain['seq'])}", number)
        if cls is None:
            raise LogFormatError(f"unknown event type {_shown(plain['type'])}", number)
        if not isinstance(data, dict):
            raise LogFormatError("data must be an object", number)
    try:
        frozen_data = freeze_json(data)
    except TypeError as exc:
        raise LogFormatError(f"bad data: {exc}", number) from None
    return SeatLine(seq, str(plain["type"]), frozen_data, withheld, event)


class _SeatChecks:
    """What loading a full log checks across its lines (:func:`_read`), for the lines
    of a seat's or the public copy as :mod:`tokaido_rules.viewer` draws them: no zone
    over :data:`MAX_CARDS` cards (cards the seat did not see are placeholders, which
    the viewer adds where the copy counts more cards than it knows of), the decks and
    moves within :data:`MAX_LOG_CARDS` cards, agendas for the game's seats and
    travellers, and no :data:`MAX_IDLE` lines in a row that change nothing. What the
    copy shows is folded (a line that cannot be, for want of what was withheld, changes
    nothing here)."""

    def __init__(self, head: _Header) -> None:
        try:
            rules = make_rules(head.ruleset, head.players, head.setup)
        except TokaidoError as exc:
            raise LogFormatError(f"bad game parameters: {exc}", 1) from None
        self.state = self.mark = initial_state(rules, 0)
        self.sizes: dict[str, int] = {}
        self.cards = 0
        self.check_at = MAX_IDLE

    def check(self, line: SeatLine, number: int) -> SeatLine:
        """Check the next line (``number``: its line number) and fold what it shows."""
        event = line.event
        if event is not None:
            if isinstance(event, _CHECKED):
                self.cards = _check_fit(event, self.state, self.cards, number, self.sizes)
                sizes = self.sizes
                if isinstance(event, DeckSet):
                    sizes[event.zone] = event.count
                elif isinstance(event, CardsMoved):  # as the viewer folds it
                    if event.dst == event.src:
                        sizes[event.src] = event.count
                    else:
                        sizes[event.src] = max(0, sizes.get(event.src, 0) - event.count)
                        sizes[event.dst] = sizes.get(event.dst, 0) + event.count
            with suppress(Exception):  # a placeholder the fold cannot take
                self.state = fold(self.state, event)
        if line.seq + 1 == self.check_at:
            _check_changed(self.mark, self.state, number)
            self.mark, self.check_at = self.state, self.check_at + MAX_IDLE
        return line


def load_seat_copy(source: LogSource, *, plugins: Iterable[object] = ()) -> SeatCopy:
    """Read a seat's copy of a log (``dump_log(game, viewer=seat)``), or the public copy
    (``viewer="public"``), which :func:`load_log` refuses: it has no seed, and fields the
    seat (some seat) may not see are withheld. Lines are checked as strictly as a full
    log's (sequence, event types, the trailer); ``source`` is read as by
    :func:`load_log`. A full log is refused with a
    :class:`~tokaido_rules.errors.LogFormatError` (load it with :func:`load_log`, or
    write its seat's copy)."""
    with _blocks(source) as blocks:
        first = next(blocks, None)
        if not first:
            raise LogFormatError("empty log")
        obj = _parse_line(first[0], 1)
        if obj.get("format") == FORMAT and "viewer" not in obj:
            raise LogFormatError("this is a full log, not a seat's copy: load it with "
                                 "load_log", 1)
        viewer = obj.get("viewer")
        if type(viewer) is not int and viewer != PUBLIC:
            raise LogFormatError(f"viewer must be a seat number or {PUBLIC!r}", 1)
        setup = obj.get("setup")
        full = {k: v for k, v in obj.items() if k != "viewer"}
        full["seed"] = 0
        if isinstance(setup, dict):
            full["setup"] = {**setup, "stacks": {}, "chance": {}}
        head = _parse_header(full, plugins)
        if type(viewer) is int and not 0 <= viewer < head.players:
            raise LogFormatError(f"viewer {viewer} is not a seat of a {head.players}-player "
                                 "game", 1)
        registry = head.ruleset.registry
        structurers = _converter_and_structurers(head.ruleset)[1]
        checks = _SeatChecks(head)
        lines: list[SeatLine] = []
        complete = False
        number = 1
        for block in itertools.chain((first[1:],), blocks):
            for text in block:
                number += 1
                if complete:
                    raise LogFormatError("nothing may follow the trailer, which ends the log",
                                         number)
                line = _parse_line(text, number)
                if line.get("type") == TRAILER and head.version >= 2:
                    _check_trailer(line, number, len(lines))
                    complete = True
                    continue
                if len(lines) == MAX_EVENTS:
                    raise _too_many_events(number)
                lines.append(checks.check(_seat_event(line, number, len(lines), registry,
                                                      structurers), number))
    return SeatCopy(head.ruleset, head.players, viewer, head.setup, tuple(lines), complete)

"""The tables of a game server, transport aside: what ``tokaido serve`` runs behind HTTP.

A :class:`Lobby` holds tables; each :class:`Table` is one game with its seats, and a
readable name ("misty-heron-42"). A seat is ``open`` (anyone may join it) or
``invited`` (joining needs its invitation's secret, which only the host can hand out)
until someone joins it, then ``human``, played by whoever holds its secret token, or
``bot``. Bots play their seats' decisions as soon as they come up. Who played
each decision (``human`` or ``bot:NAME``) is recorded with the table, and a seat whose
player leaves can be handed to a bot.

Every audience (each seat, and the spectators) gets its own copy of the game as it goes
on: its log lines (:class:`~tokaido_rules.log.LogFeed`), and each step in plain words
(:class:`~tokaido_rules.viewer.Narrator`), each made once, when the step is played, and
handed out from the client's ``seq`` on. Spectators see the public view
(:meth:`~tokaido_rules.Game.public_view`): what every seat sees.

With a :class:`~tokaido_rules.store.TableStore` every table is stored as it goes, one
transaction per applied action, and a new lobby on the same store resumes every table
at its last ``seq``. On a store that several processes share (PostgreSQL,
:class:`~tokaido_rules.store_pg.PgTableStore`), each change of a table is made under the
table's lock in the database, after catching up with what the others stored
(:meth:`Table._write`), and the others' changes wake this process's clients
(:meth:`Lobby._told`).
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import copy
import hashlib
import hmac
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from itertools import compress
from operator import is_not
from typing import Any, NamedTuple

import attrs

from .analysis import DEFAULT_BOT, AnalysisError
from .analysis import hint as analyse_hint
from .bots import BOTS, Bot, RandomBot, make_bot, next_action
from .chance import bot_seed, new_seed
from .engine import Game, new_game, replay
from .errors import BotError, IllegalActionError, StaleActionError, TokaidoError
from .events import Action
from .log import FeedShare, LogFeed, _verify
from .model import GameState, collection_zone
from .render import (
    SceneMemo,
    card_facts,
    describe_action,
    final_standings,
    legend_html,
    outcome,
    scene_json,
    svg,
)
from .ruleset import Ruleset
from .store import (
    Decision,
    SeatRecord,
    Store,
    StoredTable,
    StoreError,
    TableRecord,
    TableRules,
    TakeBackRecord,
    TakeBackRequest,
)
from .takeback import CheckMemo, TakeBack
from .viewer import Narrator
from .wire import decode_action, encode_action, encode_view

__all__ = ["TableError", "Lobby", "Table", "NewTable", "MAX_TABLES", "PICTURES_KEPT",
           "PICTURES_CACHED", "BOT_DELAY_VARIABLE", "NAME_WORDS"]

MAX_TABLES = 2_000
"""The most tables a lobby holds; creating one more is refused (finished tables count:
a server that keeps this many should be given a new database)."""

BOT_DELAY_VARIABLE = "TOKAIDO_TEST_BOT_DELAY"
"""For tests only: an environment variable holding seconds that each bot waits before
it plays, so that a test can kill a server between a person's move and the bots'."""

PICTURES_KEPT = 12
"""How many of the latest steps keep their games, to draw each audience's picture of
them when asked (the page plays the other seats' turns back with them); older steps are
told in words only."""

KEEP_SECONDS = 2.0
"""How often the server's keeper runs (``tokaido serve``: every this many seconds): it
lets the bots play a decision left unplayed, plays a clock run out, marks seats away,
drops the tables deleted from outside and expires tables. On a shared store a seat is
marked away only after twice this at least (see :meth:`Table.keep`)."""

PICTURES_CACHED = 16
"""How many pictures a table keeps once drawn (about 45 kB each), the latest first out
last: each seat's client asks for each picture once, spectators and reloads again."""


NAME_WORDS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("amber", "autumn", "bamboo", "bright", "cherry", "cloudy", "coastal", "early",
     "gentle", "golden", "hidden", "jade", "lantern", "misty", "mossy", "quiet", "rainy",
     "silver", "snowy", "spring", "sunny", "twilight", "windy", "winter"),
    ("bridge", "crane", "fan", "ferry", "fox", "heron", "inn", "kite", "lake", "maple",
     "moon", "orchard", "path", "pine", "river", "road", "shrine", "teahouse", "tide",
     "valley", "village", "wave", "willow", "wind"),
)
"""The words of the tables' names: one of each, and a number from 10 to 99."""


def _draw_name(taken: Collection[str]) -> str:
    """A readable table name none of ``taken`` has: two words and a number, drawn from
    the system's secure source (no seed: a name tells nothing of the game)."""
    for tries in range(200):
        first, second = (secrets.choice(words) for words in NAME_WORDS)
        top = 90 if tries < 100 else 9000  # many taken: longer numbers
        name = f"{first}-{second}-{10 + secrets.randbelow(top)}"
        if name not in taken:
            return name
    raise TableError(409, "no free table name: delete some tables")


def _invite_secret(host_token: str, table_id: str, seat: int) -> str:
    """The secret of the invitation to ``seat``: made from the host's token, so that
    the host can show it again while the server keeps only its hash."""
    digest = hmac.new(host_token.encode(), f"invite:{table_id}:{seat}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


class NewTable(NamedTuple):
    """A table just made (:meth:`Lobby.open_table`): the host's token, the seat its
    creator sits at and that seat's token (``None``: nobody seated), and the secret of
    each invited seat's invitation."""

    table: Table
    host_token: str
    seat: int | None
    token: str | None
    invites: dict[int, str]


class TableError(TokaidoError):
    """A request a table refuses; ``status`` is the HTTP status that says why (400 bad
    input, 403 no or the wrong token, 404 no such table, 409 not now, 503 the database
    could not store it: nothing changed, try again)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _new_table_id() -> str:
    """A new table's id: 12 random URL-safe characters, never a leading ``-``, so that
    ``tokaido tables delete --db F ID`` does not read an id as an option."""
    while True:
        table_id = secrets.token_urlsafe(9)
        if not table_id.startswith("-"):
            return table_id


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _request_document(request: TakeBackRequest | None, story: int, seq: int,
                      ) -> dict[str, Any] | None:
    """A stored take-back request as :attr:`Table.request` holds it, if it still waits
    at a table with ``story`` take-backs done, at ``seq`` (else it lapsed: ``None``)."""
    if request is None or not request.current(story, seq):
        return None
    return {"seat": request.seat, "from_seq": request.from_seq, "to_seq": request.to_seq,
            "agreed": list(request.agreed), "waiting": list(request.waiting)}


def _unstored(exc: StoreError) -> TableError:
    """A write the database refused, as the request's answer: 503, nothing changed."""
    return TableError(503, f"not stored, nothing changed; try again: {exc}")


@contextlib.contextmanager
def _storing() -> Iterator[None]:
    """A write of the store inside: one the database refuses is answered 503 (nothing
    changed, :func:`_unstored`)."""
    try:
        yield
    except StoreError as exc:
        raise _unstored(exc) from None


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


_fast: Callable[[object], bytes] | None
try:  # the web extra's JSON encoder in C, about ten times json's on an update's parts
    from orjson import dumps as _fast
except ImportError:  # pragma: no cover - the extra not installed (PyPy): json alone
    _fast = None


def _dumps(value: object) -> str:
    """Compact JSON text: orjson's when installed (the ``web`` extra: the same JSON as
    json's, made in C), else json's, which also takes what orjson refuses (a key that
    is not a string, an integer past 64 bits)."""
    if _fast is not None:
        try:
            return _fast(value).decode()
        except TypeError:  # orjson.JSONEncodeError
            pass
    return _ENCODER.encode(value)


_Parts = dict[str, Any]
"""A scene's parts as JSON text: each key's text, or for a list (an object) the text of
each item (each entry), so that a patch names only the items that changed."""


_Texts = dict[object, tuple[Any, ...]]
"""What a table's scenes share of their texts, by the identity of what they show (kept
with it, so that the identity is not another's), made once for every audience that
shows the very same object and not once per audience: the JSON text of each entry of
the scenes' lists and objects (pieces, spaces, notes, cards' facts, which
:func:`render.scene_json` shares between scenes: read only), by the entry's identity;
under a scene's key, the value last shown there and its part (:data:`_Parts`); under
``(key,)``, the key's old and new part last compared (:func:`_scene_patch`) and what
changed, as the patch's text; under ``("latest", audience)``, the seq of the latest
scene made for the audience (:meth:`Table._scene`)."""


def _entry_text(item: Any, memo: _Texts) -> str:
    found = memo.get(id(item))
    if found is not None and found[0] is item:
        return found[1]  # type: ignore[no-any-return]
    text = _dumps(item)
    if isinstance(item, dict):  # only the entries that may be shared: not a number
        if len(memo) >= 8192:
            memo.clear()
        memo[id(item)] = (item, text)
    return text


_KEY_TEXTS: dict[str, str] = {}
"""The JSON text of a key of a scene's object (a card's id) or of a patch's path, made
once: a scene's keys are the plugins' ids, a few hundred."""


def _key_text(key: str) -> str:
    found = _KEY_TEXTS.get(key)
    if found is None:
        if len(_KEY_TEXTS) >= 8192:
            _KEY_TEXTS.clear()
        found = _KEY_TEXTS[key] = _dumps(key)
    return found


def _scene_parts(scene: Mapping[str, Any],
                 before: tuple[Mapping[str, Any], _Parts] | None,
                 memo: _Texts | None = None) -> _Parts:
    """``scene``'s parts as JSON text (:data:`_Parts`); those equal in the scene made
    ``before`` (the same audience's, at an earlier seq) are its texts, not made again
    (the road of the board, most collections and facts); a value that is the very
    object another audience's scene showed under the key (``memo``, :data:`_Texts`)
    has its part, and the entries written for another audience's scene their texts."""
    old, texts = before if before is not None else ({}, {})
    memo = {} if memo is None else memo
    keys = list(scene)
    if keys == list(old):  # the keys of the scene before, in order (as a rule): the
        # parts of the values that are the very objects it showed are its texts,
        # copied at once, and only the others are looked at
        parts: _Parts = dict(texts)
        looked: Iterator[str] = compress(keys, map(is_not, scene.values(), old.values()))
    else:
        parts, looked = {}, iter(keys)
    for key in looked:
        value = scene[key]
        was = old.get(key, parts)  # parts: a value no scene holds
        if was is value:  # the same object, as a rule: not compared
            parts[key] = texts[key]
            continue
        shared = memo.get(key)
        if shared is not None and shared[0] is value:  # another audience's: its part
            parts[key] = shared[1]
            continue
        if was == value:
            parts[key] = part = texts[key]
        elif isinstance(value, list):
            kept = texts.get(key) if isinstance(was, list) else None
            parts[key] = part = [
                kept[n] if kept is not None and n < len(was) and (
                    was[n] is item or was[n] == item)
                else _entry_text(item, memo) for n, item in enumerate(value)]
        elif isinstance(value, dict):
            kept = texts.get(key) if isinstance(was, dict) else None
            parts[key] = part = {
                k: kept[k] if kept is not None and k in was and (
                    was[k] is item or was[k] == item)
                else _entry_text(item, memo) for k, item in value.items()}
        else:
            parts[key] = part = _dumps(value)
        memo[key] = (value, part)
    return parts


def _whole(part: Any) -> str:
    if isinstance(part, list):
        return "[" + ",".join(part) + "]"
    if isinstance(part, dict):
        return "{" + ",".join(_key_text(k) + ":" + v for k, v in part.items()) + "}"
    return str(part)


def _scene_text(parts: _Parts) -> str:
    """The whole scene as JSON text, from its parts."""
    return "{" + ",".join(_key_text(k) + ":" + _whole(v) for k, v in parts.items()) + "}"


def _key_patch(key: str, was: Any, part: Any) -> str:
    """What changed under ``key`` from part ``was`` to ``part``, as the patch's text
    (its paths and values, ``""`` for none): see :func:`_scene_patch`."""
    if isinstance(part, list) and isinstance(was, list) and len(was) == len(part):
        return ",".join([f'"{key}/{n}":{p}' for n, (w, p) in enumerate(zip(was, part, strict=True))
                         if w is not p and w != p])
    if isinstance(part, dict) and isinstance(was, dict) and was.keys() <= part.keys():
        return ",".join([_key_text(f"{key}/{k}") + ":" + p for k, p in part.items()
                         if was.get(k) is not p and was.get(k) != p])
    if was != part:
        return _key_text(key) + ":" + _whole(part)
    return ""


def _scene_patch(old: _Parts, new: _Parts, memo: _Texts | None = None) -> str:
    """What changed from the scene ``old`` to ``new`` (the same audience's), as the JSON
    text of a patch: an object of paths to values, ``"KEY"`` for a key's new value and
    ``"KEY/N"`` for item ``N`` of a list of the same length (or entry ``N`` of an
    object that lost none), applied in order by the page (``table.html``). What
    changed under a key between the very parts another audience's patch compared
    (``memo``, :data:`_Texts`: the parts shared by :func:`_scene_parts`) is its text."""
    out = []
    keys = list(new)
    # the keys of the scene before, in order (as a rule): only the parts that are not
    # the very objects it had are looked at
    looked = (compress(keys, map(is_not, new.values(), old.values())) if keys == list(old)
              else keys)
    for key in looked:
        part = new[key]
        was = old.get(key)
        if was is part:
            continue
        if memo is None:
            text = _key_patch(key, was, part)
        else:
            found = memo.get((key,))
            if found is not None and found[0] is was and found[1] is part:
                text = found[2]
            else:
                text = _key_patch(key, was, part)
                memo[(key,)] = (was, part, text)
        if text:
            out.append(text)
    return "{" + ",".join(out) + "}"


_ALWAYS = frozenset({"over", "current_player", "seat", "actions", "takebacks"})
"""The keys of an update's public and own parts that every update holds, changed or
not (the others are left out of a push channel's update when unchanged)."""


def _test_delay() -> None:
    """Wait the seconds of :data:`BOT_DELAY_VARIABLE` (tests only; unset: none)."""
    raw = os.environ.get(BOT_DELAY_VARIABLE)
    if raw:
        try:
            seconds = float(raw)
        except ValueError:
            return
        if 0 < seconds <= 60:
            time.sleep(seconds)


class _Audience:
    """What one seat (``viewer``), or the spectators (``"public"``), is told: its copy of
    the log and the steps in words, each made once as the game goes on."""

    def __init__(self, game: Game, viewer: int | str,
                 share: FeedShare | None = None) -> None:
        self.viewer = viewer
        self._feed = LogFeed(game, viewer=viewer)  # type: ignore[arg-type]
        shown: list[Any] = []
        first = self._feed.new_lines(game, shown, share)
        self.header = first[0].rstrip("\n")
        self.lines: list[str] = []
        self.steps: list[tuple[int, str]] = []  # (seq after the step, its words)
        self._narrator = Narrator.for_header(self.header)
        self._take(first[1:], shown, share)

    def update(self, game: Game, share: FeedShare | None = None) -> None:
        shown: list[Any] = []
        self._take(self._feed.new_lines(game, shown, share), shown, share)

    def _take(self, new: list[str], shown: list[Any], share: FeedShare | None = None) -> None:
        # the steps in words from the events at hand (not read back from the lines)
        if share is None:
            lines = [line.rstrip("\n") for line in new]
            self.lines += lines
            self.steps += self._narrator.add_shown(lines, shown)
            return
        texts = share.texts  # a line alike in every copy: one text, its hash made once
        lines = []
        for line in new:
            text = texts.get(line)
            if text is None:
                text = texts[line] = line.rstrip("\n")
            lines.append(text)
        self.lines += lines
        self.steps += self._narrator.add_shown(lines, shown, share.read, share.words)

    def steps_after(self, since: int) -> list[tuple[int, str]]:
        """The steps that end after seq ``since``: found by bisection, since an update
        asks for the last few of a list as long as the game (their ends increase)."""
        steps = self.steps
        return steps[bisect.bisect_right(steps, since, key=_step_end):]


def _feed_copy(feed: LogFeed) -> LogFeed:
    """A shallow copy of a feed: what :func:`copy.copy` makes of it (a new object with
    the same attributes), without the copy protocol's lookups."""
    if type(feed) is not LogFeed or hasattr(LogFeed, "__copy__"):  # pragma: no cover
        return copy.copy(feed)
    made: LogFeed = object.__new__(LogFeed)
    made.__dict__.update(feed.__dict__)
    return made


def _same_plain(ours: Any, sent: Any) -> bool:
    """Whether ``sent`` (a request's parsed JSON) is exactly ``ours`` (plain data an
    encoder wrote): the same types all the way down (``1`` is not ``true`` nor
    ``1.0``), the same keys, equal values."""
    kind = type(ours)
    if type(sent) is not kind:
        return False
    if kind is dict:
        return ours.keys() == sent.keys() and all(
            _same_plain(value, sent[key]) for key, value in ours.items())
    if kind is list:
        return len(ours) == len(sent) and all(map(_same_plain, ours, sent))
    return bool(ours == sent)


def _step_end(step: tuple[int, str]) -> int:
    return step[0]


class _KeptStates(Mapping[int, GameState]):
    """The states of a table's kept games, by seq, read without copying them out."""

    __slots__ = ("_games",)

    def __init__(self, games: dict[int, Game]) -> None:
        self._games = games

    def __getitem__(self, seq: int) -> GameState:
        return self._games[seq].state

    def __iter__(self) -> Iterator[int]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)


class Table:
    """One game at a server: its seats, its audiences, and its stored record."""

    def __init__(self, record: TableRecord, game: Game, store: Store | None,
                 decisions: Sequence[Decision] = (), stored_lines: int | None = None,
                 rules: TableRules | None = None) -> None:
        self.id = record.id
        self.rules = TableRules() if rules is None else rules
        """Its rules for take-backs, clocks and leaving (set at creation)."""
        self.takebacks: list[TakeBackRecord] = []
        """The take-backs done, in order (their number tells a client the table went
        back)."""
        self.request: dict[str, Any] | None = None
        """A take-back waiting for the others' consent: ``seat``, ``from_seq``,
        ``agreed`` (seats), ``waiting`` (seats), or ``None``."""
        self.away: dict[int, str] = {}
        """The seats away (``"left"``, ``"absent"``), which the stand-in bot plays."""
        self.deadline: tuple[int, float] | None = None
        """The seq of the decision whose clock runs, and when it runs out."""
        self.seen: dict[int, float] = {}
        """When each seat's page last asked (``time.time()``), for ``away_after``."""
        self.pages: dict[int, int] = {}
        """How many requests of each seat are under way."""
        self._seen_stored: dict[int, float] = {}
        """The ``seen`` times known to be in a shared store (stored or read here)."""
        self.record = record
        self.game = game
        self._seats = list(record.seats)
        self._store = store
        self._decisions = list(decisions)
        self._lock = _TableLock(self)
        self._rev: int | None = 0
        """The stored revision this copy reflects (shared stores; ``None``: unknown)."""
        self._behind = False
        """Another process changed the table since: caught up at the next lock."""
        self._in_hold = False
        self._retry_at = 0.0  # when a catch-up that failed is tried again
        self._full = LogFeed(game, since=len(game.events))
        self._stored = len(game.events) if stored_lines is None else stored_lines
        if game.is_over:
            self._full.new_lines(game)  # the trailer is stored already
        self._audiences: dict[int | str, _Audience] = {}
        self._recent: dict[int, Game] = {game.state.seq: game}
        self._pictures: dict[tuple[int | str, int], str] = {}
        self._scenes: dict[tuple[int | str, int], tuple[dict[str, Any], _Parts]] = {}
        self._views: dict[tuple[int | str, int], Any] = {}  # (audience, seq): its view
        self._texts: _Texts = {}  # the scenes' shared entries' texts, see _scene_parts
        self._scene_memo = SceneMemo()  # its scenes' entries by identity: see _scene
        self._card_entries: dict[str, dict[str, Any]] = {}  # a purse's card (read only)
        self._purses: dict[int, tuple[Any, tuple[str, ...], dict[str, Any]]] = {}
        """By piece: its purse entry (read only), with the piece and collection it was
        made of (kept, so that their identity is theirs): see _purse."""
        self._offered: tuple[Game, list[tuple[Action, dict[str, Any]]]] | None = None
        """The mover's legal actions with their encodings as its update offered them,
        with the game they are of: see act()."""
        self._opening: tuple[Game, FeedShare] | None = None  # see _audience()
        self._changed: Callable[[Table], None] = lambda table: None
        self.version = 0
        """Counts every change a client is told of (an action, a seat, a take-back
        asked, a seat away...): what is made once per (seq, version) is shared."""
        self._parts: dict[tuple[Any, ...], Any] = {}  # made once per version, see update()
        self._takeback_docs: dict[int, tuple[TakeBack, dict[str, Any]]] = {}  # see _own
        self._checks = CheckMemo()  # the seats' take-back answers, carried seq to seq
        self._bot_seqs = self._undoable()  # the decisions a take-back may undo with one
        self._answered: dict[tuple[int, str], tuple[int, int, int]] = {}  # see answered()
        self._held = 0
        self._deferred = False
        self.stalled: str | None = None
        """Why the bots' decisions are not played (a write the database refused after
        the action before them was stored), until the next try succeeds."""
        self.active = record.created
        """When the table last saw an action or a request of a seat (``time.time()``)."""
        self.connected = 0
        """How many requests of its seats are under way (a page's long poll)."""
        self.gone = False
        self.name = record.name or record.id
        """The table's readable name (unique at its server)."""
        self.rematch: str | None = record.rematch
        """The id of the table made as its rematch, once there is one."""
        self.bot_options: Mapping[str, Mapping[str, object]] = {}
        """The server's options for its bots, by bot name (``--bot-option``)."""
        self.hint_bot: str = DEFAULT_BOT
        """The bot whose analysis a seat's hint is (``tokaido serve --hint-bot``), with
        its options from :attr:`bot_options`."""
        self._hints_asked: set[tuple[int, int, int]] = set()  # (story, seq, seat)
        self._hint_answers: dict[tuple[int, int, int], dict[str, Any]] = {}
        self._hinting = threading.Lock()  # one hint computed at a time per table
        self.bot_trouble: dict[int, str] = {}
        """The seats whose bot failed (not installed, raised, or answered an action that
        is not legal), each with why: the random bot plays them from then on, in this
        process (:meth:`_decide`)."""

    # --- seats ------------------------------------------------------------------------

    @property
    def seats(self) -> tuple[SeatRecord, ...]:
        return tuple(self._seats)

    def seat_for(self, token: str | None) -> int | None:
        """The seat ``token`` plays, ``None`` for no token (a spectator); a token that
        is no seat's is refused (403)."""
        if token is None:
            return None
        digest = _hash(token)
        for attempt in range(2):
            if attempt:  # joined at another process a moment ago? read the seats again
                if self._store is None or not self._store.shared:
                    break
                with self._lock, contextlib.suppress(StoreError, TokaidoError):
                    self._catch_up()
            for s in self._seats:
                if (s.kind != "open" and s.token_hash is not None
                        and hmac.compare_digest(s.token_hash, digest)):
                    return s.seat
        raise TableError(403, "this token is not a seat's token at this table")

    def join(self, seat: object, invite: object = None) -> str:
        """Take an open seat, or an invited one with its invitation's secret
        (``invite``; 403 without it, or with another): its new secret token, shown once
        (the server keeps only its hash)."""
        with self._write():
            if type(seat) is not int or not 0 <= seat < len(self._seats):
                raise TableError(400, f"seat must be from 0 to {len(self._seats) - 1}")
            record = self._seats[seat]
            if record.kind != "open":
                raise TableError(409, f"seat {seat} is taken"
                                 + (f" (a {record.bot} bot plays it)" if record.bot else ""))
            if invite is not None and not isinstance(invite, str):
                raise TableError(400, "invite must be the invitation's secret (a string)")
            if record.token_hash is not None and (invite is None or not hmac.compare_digest(
                    record.token_hash, _hash(invite))):
                raise TableError(403, f"seat {seat} is kept for an invited person: "
                                 "joining it needs the link of its invitation")
            token = secrets.token_urlsafe(32)
            self._set_seat(SeatRecord(seat, "human", None, _hash(token)))
            self._wind_clock()
            return token

    def invites(self, host_token: str | None) -> dict[int, str]:
        """The secret of the invitation of each seat still invited (not joined yet):
        for the host's token only (403 for any other)."""
        if host_token is None or not self.is_host(host_token):
            raise TableError(403, "only the host's token may see the invitations")
        with self._lock:
            return {s.seat: _invite_secret(host_token, self.id, s.seat) for s in self._seats
                    if s.kind == "open" and s.token_hash is not None}

    def hand_to_bot(self, seat: int, bot: object) -> None:
        """Let a bot play ``seat`` from now on (its player leaves); the seat's token
        still shows its view and its copy of the log."""
        with self._write():
            if not isinstance(bot, str) or bot not in BOTS:
                raise TableError(400, f"bot must be one of {', '.join(BOTS)}")
            record = self._seats[seat]
            if record.kind == "bot":
                raise TableError(409, f"a {record.bot} bot plays seat {seat} already")
            # a joined seat's token still shows its view; an invitation's secret never does
            kept = record.token_hash if record.kind == "human" else None
            self._set_seat(SeatRecord(seat, "bot", bot, kept))
            self._advance()

    def _set_seat(self, record: SeatRecord) -> None:
        if self._store is not None:
            with _storing():
                self._store.append(self.id, self._stored, [], seat=record)
        self._seats[record.seat] = record
        self._moved()

    def is_host(self, token: str | None) -> bool:
        """Whether ``token`` is the host's: the token of whoever created the table."""
        return token is not None and hmac.compare_digest(self.record.host_hash, _hash(token))

    def may_hand(self, token: str | None, seat: int) -> bool:
        """Whether ``token`` may hand ``seat`` to a bot: the seat's own, or the host's."""
        if token is None:
            return False
        digest = _hash(token)
        record = self._seats[seat]
        own = record.token_hash if record.kind != "open" else None
        return hmac.compare_digest(self.record.host_hash, digest) or (
            own is not None and hmac.compare_digest(own, digest))

    # --- play -------------------------------------------------------------------------

    def start(self) -> None:
        """Let the bots play the decisions that come before a person's (again, after a
        write the database refused: :attr:`stalled`)."""
        with self._write():
            self._advance()

    def act(self, seat: int, body: object, *, bots: bool = True) -> None:
        """Play ``seat``'s action from a request body ``{"action": ..., "expected_seq":
        SEQ}``, then the bots' decisions up to a person's (``bots=False``: stop before
        a bot's decision, :attr:`waits_on_bot`, so that a server plays the person's
        move where it is cheap and the bots, who may think long, elsewhere)."""
        if not isinstance(body, Mapping) or set(body) != {"action", "expected_seq"}:
            raise TableError(400, 'the body is {"action": {...}, "expected_seq": SEQ}')
        expected = body["expected_seq"]
        if type(expected) is not int:
            raise TableError(400, "expected_seq must be an integer")
        with self._write():
            if self._seats[seat].kind != "human":
                raise TableError(409, f"a bot plays seat {seat} now")
            if seat in self.away:
                raise TableError(409, f"seat {seat} is away (a bot plays it): take it back "
                                 "first")
            if self.stalled is not None:  # the bots' turns first, stored at last
                self._advance()
                if self.stalled is not None:
                    raise TableError(503, "the bots' moves cannot be stored; try again: "
                                     + self.stalled)
            action = self._offered_action(body["action"])
            if action is None:
                try:
                    action = decode_action(body["action"], self.game.ruleset)
                except IllegalActionError as exc:
                    raise TableError(400, str(exc)) from None
            if action.seat != seat:
                raise TableError(403, f"you play seat {seat}, not seat {action.seat}")
            try:
                game = self.game.apply(action, expected_seq=expected)
            except StaleActionError as exc:
                raise TableError(409, str(exc)) from None
            except IllegalActionError as exc:
                raise TableError(400, str(exc)) from None
            try:
                self._played(game, seat, "human")
            except StoreError as exc:
                raise _unstored(exc) from None
            if bots or not self.waits_on_bot:
                self._advance()

    def _offered_action(self, sent: object) -> Action | None:
        """The legal action of the game at hand whose encoding, as the mover's update
        offered it, is exactly ``sent`` (the same keys, each value of the same type and
        equal): what :func:`decode_action` would give and :meth:`Game.apply` record, found
        without decoding. ``None``: decoded (and checked) as any action is."""
        offered = self._offered
        if offered is None or offered[0] is not self.game or type(sent) is not dict:
            return None
        for action, data in offered[1]:
            if data == sent and _same_plain(data, sent):  # equal first: in C, mostly not
                return action
        return None

    def _advance(self) -> None:
        """Let the bots play until a person decides (or the game ends). A bot's seed is
        drawn one way from the game's, its seat and the seq, so that a restarted server
        plays the same moves. A move the database refuses stops them where the table
        stood (:attr:`stalled` says why); they go on at the next try."""
        game = self.game
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            player = self._bot_for(seat)
            if player is None:
                break
            name, played_by = player
            _test_delay()
            action, played_by = self._decide(game, seat, name, played_by)
            game = game.apply(action)
            try:
                self._played(game, seat, played_by)
            except StoreError as exc:
                self.stalled = str(exc)
                return
        self.stalled = None
        self._wind_clock()

    def _played(self, game: Game, seat: int, by: str) -> None:
        """Store and publish one applied decision: its lines and who played it, in one
        transaction, before anyone is told. Nothing changes until the write succeeds: a
        :class:`StoreError` leaves the table as it was."""
        decided = self.game.state.seq
        feed = _feed_copy(self._full)  # moved on only once the lines are stored
        share = FeedShare()  # each event's data made once for the full log and the copies
        lines = [line.rstrip("\n") for line in feed.new_lines(game, share=share)]
        hinted = by == "human" and (len(self.takebacks), decided, seat) in self._hints_asked
        decision = Decision(decided, seat, by, hinted)
        if self._store is not None:
            self._store.append(self.id, self._stored, lines, decision)
        self._full = feed
        self._stored += len(lines)
        self._decisions.append(decision)
        if by.startswith("bot:"):
            self._bot_seqs.add(decided)
        self.game = game
        self._recent[game.state.seq] = game
        while len(self._recent) > (1 if game.is_over else PICTURES_KEPT):
            del self._recent[next(iter(self._recent))]
        if game.is_over:
            self._pictures.clear()
            self._scenes.clear()
        self._opening = None
        for audience in self._audiences.values():  # each event folded, each line written
            # once for all the copies (the share the full log's lines were made with)
            audience.update(game, share)
        self.request = None  # a take-back asked for lapses when the game moves on
        self._moved()

    # --- kept alive, or not: bots, activity ------------------------------------------

    @property
    def waits_on_bot(self) -> bool:
        """Whether the decision at hand is a bot's (a restart, or a failed write, left
        it unplayed)."""
        game = self.game
        seat = game.current_player
        return (not game.is_over and seat is not None and not self.gone
                and self._bot_for(seat) is not None)

    def play_bots(self) -> None:
        """Let the bots play the decisions at hand up to a person's: what a restarted
        server, or one whose write failed, does without waiting for a request. On a
        shared store, a table another process is changing is left to it (it plays
        its bots in the same change)."""
        with self._write(skip_locked=True) as mine:
            if mine and self.waits_on_bot:
                self._advance()

    def touch(self, now: float | None = None) -> None:
        """Note activity: an action, or a request of one of its seats."""
        self.active = time.time() if now is None else now

    # --- take-backs, clocks and leaving (issue #40) ------------------------------------

    def _bot_for(self, seat: int) -> tuple[str, str] | None:
        """The bot that plays ``seat`` now and how its decisions are recorded: the
        seat's own bot, or the stand-in of a seat whose person is away; ``None``: a
        person plays it (or nobody has joined)."""
        record = self._seats[seat]
        if record.kind == "bot" and record.bot is not None:
            return record.bot, f"bot:{record.bot}"
        why = self.away.get(seat)
        if record.kind == "human" and why is not None:
            return self.rules.stand_in, f"bot:{self.rules.stand_in} ({why})"
        return None

    # --- a bot that fails (issue #41) ------------------------------------------------

    def _decide(self, game: Game, seat: int, name: str, played_by: str) -> tuple[Any, str]:
        """The action of the bot ``name`` at ``seat``, and how it is recorded. A bot that
        cannot be made (a name no longer installed), raises, or answers an action that
        is not legal is replaced by the random bot for this seat from then on (recorded
        ``bot:random (for NAME)``): the table never waits on a broken bot. The host is
        told in the table's document (``bot_trouble``) and, once, on stderr."""
        seed = bot_seed(game.seed, seat) ^ game.state.seq
        if seat not in self.bot_trouble:
            try:
                bot: Bot = make_bot(name, seed, self.bot_options.get(name))
                return next_action(bot, game, name), played_by
            except BotError as exc:
                self._bot_failed(seat, name, str(exc))
        return next_action(RandomBot(seed), game), f"bot:random (for {name})"

    def _bot_failed(self, seat: int, name: str, why: str) -> None:
        said = f"{why}; the random bot plays seat {seat} in its place"
        self.bot_trouble[seat] = said
        with contextlib.suppress(OSError, ValueError):
            print(f"table {self.id}: {said}", file=sys.stderr, flush=True)
        self._changed(self)

    def _trouble_fields(self) -> dict[str, Any]:
        """The document's part on failed bots: seat -> why, what the page shows the
        host."""
        return {"bot_trouble": {str(k): v for k, v in sorted(self.bot_trouble.items())}}

    def _wind_clock(self, now: float | None = None) -> None:
        """Start the clock of the decision at hand if a person's (and stop the last):
        its deadline is stored, so that a restart keeps the time left."""
        clock = self.rules.clock
        if clock is None:
            return
        game = self.game
        seat = game.current_player
        seq = game.state.seq
        wanted: tuple[int, float] | None = None
        if (not game.is_over and seat is not None and self._seats[seat].kind == "human"
                and seat not in self.away):
            if self.deadline is not None and self.deadline[0] == seq:
                return  # this decision's clock runs already
            wanted = (seq, (time.time() if now is None else now) + clock)
        if wanted == self.deadline:
            return
        if self._store is not None:
            with contextlib.suppress(StoreError):  # kept in memory; stored at the next
                self._store.set_clock(self.id, *(wanted or (seq, None)))
        self.deadline = wanted

    def keep(self, now: float | None = None, every: float = KEEP_SECONDS) -> None:
        """What the server's keeper (every ``every`` seconds) does for this table: a
        decision whose clock ran out is played by the stand-in bot (recorded
        ``bot:NAME (clock)``), and a seat with no page connected for ``away_after``
        seconds is away until its person returns. On a shared store the pages other
        processes saw count too (:meth:`Lobby.keep_clocks` stores them): read under
        the table's lock when this process's own sightings say a seat is absent, and a
        seat is away only after ``2 * every`` seconds at least, so that a page another
        process serves is never missed between two of its keeper's rounds."""
        now = time.time() if now is None else now
        with self._lock:  # nothing due: no lock of the database is taken
            if self.gone or self.game.is_over or not self._due(now, every):
                return
        with self._write(skip_locked=True) as mine:
            if not mine or self.gone or self.game.is_over:
                return  # another process does it now
            absent = self._absent(now, every)
            if absent and self._store is not None and self._store.shared:
                try:  # the pages the other processes saw, as they stored them
                    self._merge_seen(self._store.seen(self.id))
                except StoreError:
                    return  # who is present is not known: tried again next round
                absent = self._absent(now, every)
            for absent_seat in absent:
                self._set_away(absent_seat, "absent")
            self._advance()
            deadline = self.deadline
            if deadline is None or now < deadline[1] or deadline[0] != self.game.state.seq:
                return
            seat = self.game.current_player
            assert seat is not None
            name = self.rules.stand_in
            action, played_by = self._decide(self.game, seat, name, f"bot:{name} (clock)")
            game = self.game.apply(action)
            try:
                self._played(game, seat, played_by)
            except StoreError as exc:
                self.stalled = str(exc)
                return
            self._advance()

    def _due(self, now: float, every: float = KEEP_SECONDS) -> bool:
        """Whether :meth:`keep` has something to do: a bot's decision at hand, a clock
        run out, or a seat to be marked away. On a shared store a seat is looked at
        only by a process that saw its page or read when another did (the others
        cannot tell), and as this process last knew it: :meth:`keep` reads the
        stored times before it decides."""
        if self.waits_on_bot:
            return True
        deadline = self.deadline
        if deadline is not None and now >= deadline[1] and deadline[0] == self.game.state.seq:
            return True
        return bool(self._absent(now, every))

    def _absent(self, now: float, every: float = KEEP_SECONDS) -> list[int]:
        """The seats whose person is away now: no page connected for ``away_after``
        seconds (counted from the first look when none was ever seen); on a shared
        store ``2 * every`` seconds at least (see :meth:`keep`)."""
        after = self.rules.away_after
        if after is None:
            return []
        shared = self._store is not None and self._store.shared
        if shared:
            after = max(after, 2 * every)
        out = []
        for s in self._seats:
            if s.kind != "human" or s.seat in self.away or self.pages.get(s.seat):
                continue
            if shared and s.seat not in self.seen:
                continue  # its page may be at another process
            if now - self.seen.setdefault(s.seat, now) >= after:
                out.append(s.seat)
        return out

    def _merge_seen(self, stored: dict[int, float]) -> None:
        """Take the times another process saw a seat's page (as stored) where later
        than this process's own."""
        for seat, at in stored.items():
            if at > self.seen.get(seat, float("-inf")):
                self.seen[seat] = at
            self._seen_stored[seat] = max(at, self._seen_stored.get(seat, at))

    def _seen_to_store(self, now: float) -> dict[int, float]:
        """The seats' times to store for the other processes: ``now`` for a seat
        whose page is connected here, and any later sighting not stored yet. Read
        without the table's lock (copies of dicts, whole under the GIL), so that a
        table busy with a long change does not hold up the others' presence."""
        pages, seen, stored = dict(self.pages), dict(self.seen), self._seen_stored
        out = {seat: now for seat, n in pages.items() if n > 0}
        for seat, at in seen.items():
            if seat not in out and at > stored.get(seat, float("-inf")):
                out[seat] = at
        return out

    # --- several processes on one database (a shared store) --------------------------
    @property
    def on_shared_store(self) -> bool:
        """Whether other processes may change this table too (a shared store): then a
        change may wait on the database's row lock, and a person's move commits with
        the bots' moves after it, so a process that dies leaves no table waiting."""
        return self._store is not None and self._store.shared


    @contextlib.contextmanager
    def _write(self, *, skip_locked: bool = False) -> Iterator[bool]:
        """The table's lock for a change. On a shared store also its lock in the
        database, taken after the table's own: the table is read again if another
        process stored a change since (:meth:`_catch_up`), the change's writes are one
        transaction, and the others are told once it commits. Yields whether the
        change may go on: false when ``skip_locked`` and another process holds the
        table. A refusal (:class:`TableError`) after some writes keeps them; a write
        that failed rolls the whole change back, the table is read again, and the
        request is answered 503 (nothing acknowledged is lost)."""
        with self._lock:
            store = self._store
            if store is None or not store.shared or self._in_hold:
                yield True
                return
            self._in_hold = True
            refused: TableError | None = None
            try:
                with store.hold(self.id, skip_locked=skip_locked) as held:
                    if not held.taken:
                        yield False
                        return
                    if held.rev == -1:  # deleted by another process
                        self.gone = True
                        raise TableError(404, "no such table")
                    if held.rev != self._rev:
                        try:
                            self._catch_up()
                        except TableError:
                            raise
                        except TokaidoError as exc:  # its stored log does not verify
                            raise TableError(409, f"table {self.id} cannot be loaded: "
                                             f"{' '.join(str(exc).split())}") from None
                    try:
                        yield True
                    except TableError as exc:
                        refused = exc
                self._rev = held.rev
            except StoreError as exc:
                self._behind = True  # what is in memory may not be stored: read again
                with contextlib.suppress(StoreError, TableError):
                    self._catch_up()
                raise _unstored(exc) from None
            finally:
                self._in_hold = False
            if refused is not None:
                raise refused

    def _catch_up(self) -> None:
        """Read the table again from the store, as another process left it: its log
        (verified as any log), seats, decisions, take-backs, clock and seats away. The
        clients are woken (their next update says what is new)."""
        assert self._store is not None
        stored = self._store.load(self.id)
        if stored is None:
            self.gone = True
            self._behind = False
            self._moved()
            return
        game = _stored_game(stored)
        record = stored.record
        self.record = record
        self._seats = list(record.seats)
        self.name = record.name or record.id
        self.rematch = record.rematch
        self.game = game
        self._decisions = list(stored.decisions)
        self._bot_seqs = self._undoable()
        self._checks = CheckMemo()  # the story may be another
        self._full = LogFeed(game, since=len(game.events))
        if game.is_over:
            self._full.new_lines(game)
        self._stored = len(stored.lines)
        self.rules = stored.rules or TableRules()
        self.takebacks = list(stored.takebacks)
        self.away = dict(stored.away)
        seq = game.state.seq
        self.deadline = stored.clock if stored.clock and stored.clock[0] == seq else None
        self.request = _request_document(stored.request, len(self.takebacks), seq)
        self._hints_asked = set(stored.hint_asks)
        self._audiences.clear()
        self._recent = {seq: game}
        self._pictures.clear()
        self._scenes.clear()
        self.stalled = None
        self._rev = stored.rev
        self._behind = False
        self._moved()

    def page(self, seat: int, delta: int, now: float | None = None) -> None:
        """A request of ``seat``'s page begins (``delta`` 1) or ends (-1): a seat away
        because no page was connected (``"absent"``) is back."""
        now = time.time() if now is None else now
        with self._lock:
            self.pages[seat] = max(0, self.pages.get(seat, 0) + delta)
            self.seen[seat] = now
            if delta > 0 and self.away.get(seat) == "absent":
                self._set_away(seat, None)

    def leave(self, seat: int) -> None:
        """The person at ``seat`` leaves: the stand-in bot plays it until they return
        (:meth:`come_back`)."""
        with self._write():
            if self._seats[seat].kind != "human":
                raise TableError(409, f"seat {seat} is not a person's")
            if seat not in self.away:
                self._set_away(seat, "left")
            self._advance()

    def come_back(self, seat: int) -> None:
        """The person at ``seat`` takes their seat back from the stand-in bot."""
        with self._write():
            if self._seats[seat].kind != "human":
                raise TableError(409, f"seat {seat} is not a person's")
            if seat in self.away:
                self._set_away(seat, None)
            self._wind_clock()

    def set_stand_in(self, bot: object) -> None:
        """The host names another stand-in bot."""
        with self._write():
            if not isinstance(bot, str) or bot not in BOTS:
                raise TableError(400, f"bot must be one of {', '.join(BOTS)}")
            self._set_rules(stand_in=bot)

    def _set_rules(self, **changed: Any) -> None:
        """Store the table's rules with ``changed`` (503, nothing changed, when the
        database refuses), then tell the clients."""
        rules = attrs.evolve(self.rules, **changed)
        if self._store is not None:
            with _storing():
                self._store.set_rules(self.id, rules)
        self.rules = rules
        self._moved()

    # --- hints (issue #42) ---------------------------------------------------------------

    def hint(self, seat: int) -> dict[str, Any]:
        """The analysis of ``seat``'s decision at hand from its own view only
        (:func:`~tokaido_rules.analysis.hint` with :attr:`hint_bot`, seeded from the
        game's seed, the seat and the seq, so that asking again gives the same figures),
        as its document. Refused (:class:`TableError`) when the table's ``hints`` rule
        is off (403), the game is over, or the decision at hand is not this seat's
        person's (409). It takes a search's time: call it outside the event loop. The
        answer is kept per decision, one is computed at a time per table, and the
        seat's decision is then recorded as taken after a hint (:class:`Decision`'s
        ``hinted``)."""
        with self._lock:
            game = self.game
            self._hint_refused(game, seat)
            key = (len(self.takebacks), game.state.seq, seat)
            found = self._hint_answers.get(key)
        if found is None:
            with self._hinting:
                found = self._hint_answers.get(key)
                if found is None:
                    bot = self.hint_bot
                    try:
                        found = analyse_hint(game.view(seat), bot, seed=game.seed,
                                             options=self.bot_options.get(bot)).document()
                    except (AnalysisError, BotError) as exc:
                        raise TableError(409, f"no hint: {exc}") from None
                    for old in [k for k in self._hint_answers if k[:2] != key[:2]]:
                        del self._hint_answers[old]  # kept for the decision at hand only
                    self._hint_answers[key] = found
        with self._write():
            if (len(self.takebacks), self.game.state.seq) != key[:2]:
                raise TableError(409, "the game moved on while the hint was computed")
            if self._store is not None:  # so that the move is recorded hinted wherever
                try:                     # it is made (another process on the database)
                    self._store.add_hint_ask(self.id, *key)
                except StoreError as exc:
                    raise _unstored(exc) from None
            self._hints_asked = {k for k in self._hints_asked if k[0] == key[0]}
            self._hints_asked.add(key)
        return {**found, "bot": self.hint_bot}

    def _hint_refused(self, game: Game, seat: int) -> None:
        """Raise why ``seat`` may not have a hint now (nothing when it may)."""
        if not self.rules.hints:
            raise TableError(403, "the host turned hints off at this table")
        if game.is_over:
            raise TableError(409, "the game is over: no hint")
        if game.current_player != seat:
            raise TableError(409, f"no hint: the decision at hand is not seat {seat}'s")
        if self._seats[seat].kind != "human" or seat in self.away:
            raise TableError(409, f"no hint: a bot plays seat {seat} now")

    def set_hints(self, on: object) -> None:
        """The host turns the table's hints on or off (a hint already given stays
        recorded)."""
        with self._write():
            if type(on) is not bool:
                raise TableError(400, "hints must be true or false")
            self._set_rules(hints=on)

    def hints_taken(self) -> dict[int, int]:
        """By seat, how many of its decisions were taken after a hint (seats with none
        left out): what every seat and spectator may know, since it tells nothing of
        the game."""
        with self._lock:
            counts: dict[int, int] = {}
            for d in self._decisions:
                if d.hinted:
                    counts[d.seat] = counts.get(d.seat, 0) + 1
            return counts

    def _hint_fields(self, game: Game) -> dict[str, Any]:
        """The documents' part on hints: ``hints_taken``, once the game is over, how many
        decisions each seat took after a hint (during the game: ``null``)."""
        taken = None
        if game.is_over:
            taken = {str(k): v for k, v in sorted(self.hints_taken().items())}
        return {"hints_taken": taken}

    def _set_away(self, seat: int, why: str | None) -> None:
        if self._store is not None:
            with _storing():
                self._store.set_away(self.id, seat, why)
        if why is None:
            self.away.pop(seat, None)
            self.seen[seat] = time.time()
        else:
            self.away[seat] = why
            if self.deadline is not None:
                self.deadline = None
        self._moved()

    def _undoable(self) -> set[int]:
        """The seqs of decisions a take-back may undo with a seat's own: the bots' (kept
        up to date in :attr:`_bot_seqs` as decisions are played)."""
        return {d.seq for d in self._decisions if d.played_by.startswith("bot:")}

    def take_back_check(self, seat: int) -> TakeBack:
        """Whether ``seat`` may take back its last decision now (:mod:`.takeback`;
        never when the table's rule is ``"off"`` or a bot plays the seat)."""
        with self._lock:
            if self.rules.takeback == "off":
                return TakeBack(seat, None, "this table allows no take-backs")
            if self._bot_for(seat) is not None:
                return TakeBack(seat, None, "a bot plays this seat now")
            # carried on from the seat's answer at the seq before (a seat's page asks
            # at every change): only the decisions and events since are looked at, from
            # the kept games' states rather than a replay of the whole game
            return self._checks.check(self.game, seat, self._bot_seqs,
                                      _KeptStates(self._recent))

    def _consenters(self, seat: int) -> list[int]:
        """Who must agree to ``seat``'s take-back: every other person at the table."""
        if self.rules.takeback != "all":
            return []
        return [s.seat for s in self._seats if s.kind == "human" and s.seat != seat]

    def ask_take_back(self, seat: int) -> dict[str, Any]:
        """``seat`` asks to take back its last decision: done at once when nobody's
        consent is needed, else waiting for the others' (:meth:`answer_take_back`).
        409 when the rule of :mod:`.takeback` refuses it, with the reason."""
        with self._write():
            check = self.take_back_check(seat)
            if not check.allowed:
                raise TableError(409, f"no take-back: {check.reason}")
            if self.request is not None:
                raise TableError(409, f"seat {self.request['seat']}'s take-back waits "
                                 "for an answer")
            waiting = self._consenters(seat)
            if not waiting:
                self._take_back(seat, check, ())
                return {"done": True, "to_seq": check.to_seq}
            request = {"seat": seat, "from_seq": self.game.state.seq,
                       "to_seq": check.to_seq, "agreed": [], "waiting": waiting}
            self._keep_request(request)
            self._moved()
            return {"done": False, **request}

    def answer_take_back(self, seat: int, agree: object) -> dict[str, Any]:
        """Another person answers the take-back asked for: once all agree it is done
        (if the rule still allows it); one refusal drops it."""
        if type(agree) is not bool:
            raise TableError(400, "agree must be true or false")
        with self._write():
            request = self.request
            if request is None or seat not in request["waiting"]:
                raise TableError(409, "no take-back waits for your answer")
            if not agree:
                self._keep_request(None)
                self._moved()
                return {"done": False, "refused_by": seat}
            request = {**request, "agreed": [*request["agreed"], seat],
                       "waiting": [s for s in request["waiting"] if s != seat]}
            if request["waiting"]:
                self._keep_request(request)
                self._moved()
                return {"done": False, **request}
            self._keep_request(None)
            check = self.take_back_check(request["seat"])
            if not check.allowed:
                self._moved()
                raise TableError(409, f"no take-back: {check.reason}")
            self._take_back(request["seat"], check, tuple(request["agreed"]))
            return {"done": True, "to_seq": check.to_seq}

    def _keep_request(self, request: dict[str, Any] | None) -> None:
        """Set the take-back waiting for consent (:attr:`request`), stored first so
        that every process on the database shows it and takes its answer; a write the
        database refuses changes nothing (503)."""
        if self._store is not None:
            stored = None if request is None else TakeBackRequest(
                len(self.takebacks), request["seat"], request["from_seq"],
                request["to_seq"], tuple(request["agreed"]), tuple(request["waiting"]))
            try:
                self._store.set_request(self.id, stored)
            except StoreError as exc:
                raise _unstored(exc) from None
        self.request = request

    def _take_back(self, seat: int, check: TakeBack, consent: tuple[int, ...]) -> None:
        """Go back to ``check.to_seq``: the stored lines and decisions after it are
        removed and the take-back recorded, in one transaction, before anyone is told;
        every audience's copy is made again from the game at that point."""
        to = check.to_seq
        assert to is not None
        events = self.game.events[:to]
        game = Game(replay(self.game.state.rules, self.game.seed, events), events)
        record = TakeBackRecord(seat, self.game.state.seq, to, consent, time.time())
        if self._store is not None:
            with _storing():
                self._store.take_back(self.id, record)
        self.game = game
        self._full = LogFeed(game, since=len(game.events))
        self._stored = to
        self._decisions = [d for d in self._decisions if d.seq < to]
        self._bot_seqs = self._undoable()
        self._checks = CheckMemo()  # another story from here
        self._audiences.clear()
        self._recent = {game.state.seq: game}
        self._pictures.clear()
        self._scenes.clear()
        self.takebacks.append(record)
        self.request = None
        self.deadline = None
        self._moved()
        self._advance()

    # --- what each audience is told ---------------------------------------------------

    def _moved(self) -> None:
        """The table changed: what was made for its last version is dropped, and the
        clients waiting are woken (unless :meth:`holding`: then at its end)."""
        self.version += 1
        self._parts.clear()
        if self._held:
            self._deferred = True
        else:
            self._changed(self)

    @contextlib.contextmanager
    def holding(self) -> Iterator[list[bool]]:
        """Tell nobody of the changes made inside (a move and its answer): the list
        yielded holds, at the end, whether anything changed; the caller wakes the
        others (:meth:`wake`) once the player who moved is answered."""
        told = [False]
        with self._lock:
            self._held += 1
            try:
                yield told
            finally:
                self._held -= 1
                if not self._held:
                    told[0], self._deferred = self._deferred, False

    def wake(self) -> None:
        """Wake the clients waiting on the table (after :meth:`holding`)."""
        self._changed(self)

    @property
    def mark(self) -> tuple[int, int, int]:
        """The table as a client knows it: its seq, take-backs and :attr:`version`."""
        return self.game.state.seq, len(self.takebacks), self.version

    def answered(self, seat: int, stream: str) -> None:
        """``seat``'s move was just answered with the update of the table as it is
        (:attr:`mark`) to the page whose push channel is ``stream``: that channel need
        not send it again (:meth:`was_answered`). Called under the table's lock, with
        the answer made."""
        if len(self._answered) >= 8 * len(self._seats):  # pages gone: forgotten
            self._answered.clear()
        self._answered[(seat, stream)] = self.mark

    def was_answered(self, seat: int | None, stream: str | None,
                     mark: tuple[int, int, int]) -> bool:
        """Whether the page of ``seat`` whose push channel is ``stream`` was answered
        the table at ``mark`` by its move's answer (:meth:`answered`): its channel
        sends the next change only. A channel is named by its page and heard only by
        the seat's token, so a page can spare only its own updates."""
        return (seat is not None and stream is not None
                and self._answered.get((seat, stream)) == mark)

    def _view(self, game: Game, seat: int | None) -> Any:
        """``seat``'s view of ``game`` (``None``: the public view), made once per seq and
        shared by the update's parts (its actions and purse, its scene, the legend)."""
        key = ("public" if seat is None else seat, game.state.seq)
        found = self._views.get(key)
        if found is None or found[0] is not game:
            if len(self._views) >= 2 * (len(self._seats) + 1):
                self._views.clear()
            view = game.public_view() if seat is None else game.view(seat)
            found = self._views[key] = (game, view)
        return found[1]

    def _audience(self, seat: int | None) -> _Audience:
        key: int | str = "public" if seat is None else seat
        audience = self._audiences.get(key)
        if audience is None:
            # the audiences made at one point of the game (the pages opened as it
            # begins) share their copies' work, as the moves' updates do
            game = self.game
            if self._opening is None or self._opening[0] is not game:
                self._opening = (game, FeedShare())
            audience = self._audiences[key] = _Audience(game, key, self._opening[1])
        return audience

    def picture(self, seat: int | None, seq: int | None = None) -> str | None:
        """The picture (SVG) of the table at ``seq`` (default: now) as ``seat`` sees
        it (``None``: the public picture), drawn once when first asked and shared by
        every client of that audience; ``None`` for a step too old to have kept its
        game (:data:`PICTURES_KEPT`). The one place the server draws: a drawing made
        elsewhere (the browser, from the scene) replaces it here."""
        with self._lock:
            game = self.game if seq is None else self._recent.get(seq)
            if game is None:
                return None
            key = ("public" if seat is None else seat, game.state.seq)
            found = self._pictures.get(key)
            if found is None:
                while len(self._pictures) >= PICTURES_CACHED:
                    del self._pictures[next(iter(self._pictures))]
                found = self._pictures[key] = svg(game.public_view() if seat is None
                                                  else game.view(seat))
            return found

    def _picture(self, seat: int | None, seq: int) -> str | None:
        return self.picture(seat, seq)

    def scene_json(self, seat: int | None, seq: int | None = None) -> str | None:
        """The scene of ``seat``'s picture at ``seq`` (default: now) as JSON text
        (:func:`~tokaido_rules.render.scene_json`, drawn in the page by ``board.js``):
        made from the seat's view (``None``: the public view), so it holds nothing the
        seat may not see. Made once per audience and seq and kept (as many as
        :data:`PICTURES_CACHED`); ``None`` for a seq whose game is no longer kept (only
        the last :data:`PICTURES_KEPT` steps are)."""
        with self._lock:
            found = self._scene(seat, self.game.state.seq if seq is None else seq)
            return None if found is None else _scene_text(found[1])

    def _scene(self, seat: int | None, seq: int) -> tuple[dict[str, Any], _Parts] | None:
        """The scene of ``seat``'s picture at ``seq`` and its parts as JSON text (see
        :func:`_scene_parts`), made once per audience and seq; the parts that did not
        change since the audience's latest scene made before are that scene's own
        texts, so that a patch between the two is found by identity."""
        game = self._recent.get(seq)
        if game is None:
            return None
        audience: int | str = "public" if seat is None else seat
        found = self._scenes.get((audience, seq))
        if found is None:
            # the audience's latest scene made, if kept and older: the one before (else
            # the latest kept before seq, looked for, and the latest of all kept)
            latest = self._texts.get(("latest", audience))
            if latest is not None and latest[0] < seq and (audience, latest[0]) in self._scenes:
                before: int | None = latest[0]
                self._texts[("latest", audience)] = (seq,)
            else:
                made = [k[1] for k in self._scenes if k[0] == audience]
                before = max((n for n in made if n < seq), default=None)
                self._texts[("latest", audience)] = (max([*made, seq]),)
            scene = scene_json(self._view(game, seat), memo=self._scene_memo)
            parts = _scene_parts(scene, None if before is None
                                 else self._scenes[(audience, before)], self._texts)
            if before is not None:  # its texts are kept, its data no longer needed:
                # fewer objects alive, less for the garbage collector to go through
                self._scenes[(audience, before)] = ({}, self._scenes[(audience, before)][1])
            while len(self._scenes) >= PICTURES_CACHED:
                del self._scenes[next(iter(self._scenes))]
            found = self._scenes[(audience, seq)] = (scene, parts)
        return found

    def _scene_news(self, seat: int | None, since: int, seq: int,
                    ends: Sequence[int]) -> str:
        """The scenes of an update, as JSON text: for the steps that end after
        ``since`` (``ends``, the kept ones) and for ``seq``, each a patch of the one
        before (the first of the scene at ``since``, which the client has); the whole
        scene of ``seq`` alone when the client has none (``since`` 0, or too old)."""
        base = self._scene(seat, since) if since > 0 else None
        at: int | None = since if base is not None else None
        out = []
        for end in [*(e for e in ends if since < e < seq), seq] if base else [seq]:
            found = self._scene(seat, end)
            if found is None:
                continue
            patch = (_scene_text(found[1]) if base is None
                     else _scene_patch(base[1], found[1], self._texts))
            out.append(f'{{"seq":{end},"base":{_dumps(at)},"patch":{patch}}}')
            base, at = found, end
        return "[" + ",".join(out) + "]"

    def document(self, seat: int | None, since: int | None = None,
                 takebacks: int | None = None) -> str:
        """What a client is told, as JSON text: the view of ``seat`` (``None``: the
        public view), its picture and actions, the table's seats, and the log lines and
        steps (in words, with pictures) since ``since`` (default: none, only now; a
        page's first request asks since 0, for the whole story so far).

        A client that is ahead of the table (``since`` beyond its seq), or that knows
        another number of take-backs than ``takebacks``, missed a take-back: it gets
        the whole log again, with ``"reset": true``, to draw afresh."""
        with self._lock:
            if self.stalled is not None:  # the bots' moves the database refused: again
                self._advance()
            game = self.game
            seq = game.state.seq
            reset = since is not None and (since > seq or (
                takebacks is not None and takebacks != len(self.takebacks)))
            if reset:
                since = 0
            first = since is None or since <= 0  # a page's first request: the legend too
            since = seq if since is None else max(0, min(since, seq))
            audience = self._audience(seat)
            view = game.public_view() if seat is None else game.view(seat)
            mine = seat is not None and self._seats[seat].kind == "human"
            actions = [{"words": describe_action(game.state, a, facts=True),
                        "action": encode_action(a)} for a in view.legal_actions] if mine else []
            # the pictures of the recent steps for a client that shows them one by one;
            # a first request (or a reset) tells the story at once: words only, and the
            # picture of now ("svg" below)
            steps = [{"seq": end, "words": words,
                      "svg": self._picture(seat, end) if end < seq and not first else None}
                     for end, words in audience.steps_after(since)]
            lines = [line for line in audience.lines[since:]
                     if '"type":"core.log_end"' not in line]
            scores = None
            if game.is_over:
                scores = [{"seat": s.seat, "traveller": s.traveller, "total": s.total,
                           "rank": s.rank, "winner": s.winner, "tiebreak": s.tiebreak,
                           "tied": s.tied, "categories": dict(s.categories)}
                          for s in final_standings(game)]
            head = {"table": self.id, "name": self.name, "rematch": self.rematch,
                    "deciding": self._deciding(game),
                    "seat": seat, "seq": seq, "over": game.is_over,
                    "current_player": game.current_player, "seats": self.seat_list(),
                    "actions": actions, "purse": self._purse(view), "steps": steps,
                    "scores": scores, "outcome": outcome(game) if game.is_over else None,
                    "legend": legend_html(view) if first or since == seq else None,
                    "view": encode_view(view), "svg": self.picture(seat)}
            head.update(self._evening(seat, reset))
            head.update(self._trouble_fields())
            head.update(self._hint_fields(game))
            text = _dumps(head)
            return text[:-1] + ',"lines":[' + ",".join(lines) + "]}"

    def update(self, seat: int | None, since: int, takebacks: int | None = None,
               told: dict[str, str] | None = None) -> str:
        """What is new for a client of ``seat`` (``None``: a spectator) that was told
        the table at ``since``, as JSON text: the update that the pages and the push
        channel speak (``form`` ``"update"``). It holds the log lines and the steps (in
        words) after ``since``, the scenes of the picture since then (each a patch of
        the one before, :meth:`_scene_news`), the table's public part (seats, whose
        decision, the scores at the end, take-backs asked, seats away, rules) and the
        seat's own (actions, purse, whether it may take back); the view and the SVG
        picture are not in it (:meth:`document`, :meth:`picture`). A client ahead of
        the table, or that knows another number of take-backs than ``takebacks``,
        missed a take-back: the update is from 0, with ``"reset": true``.

        ``told``: what this client was told before, key by key (a push channel's
        memory, updated here): the keys of the public and the seat's part that did not
        change are left out; ``seq``, ``over``, ``current_player``, ``seat``,
        ``actions``, ``takebacks`` and ``clock`` are always in.

        Each part is made once per :attr:`version` and shared: the public part by every
        client, a seat's part by its clients, the lines and scenes by the clients at one
        ``since``; only the clock's seconds left are made per request."""
        with self._lock:
            if self.stalled is not None:  # the bots' moves the database refused: again
                self._advance()
            game = self.game
            seq = game.state.seq
            reset = since > seq or (takebacks is not None and takebacks != len(self.takebacks))
            since = 0 if reset else max(0, min(since, seq))
            key: int | str = "public" if seat is None else seat
            head = self._keyed(("head",), lambda: self._head(game))
            own = self._keyed(("own", key), lambda: self._own(game, seat))
            news = self._part(("news", key, since), lambda: self._news(seat, since, seq))
            clock = None
            if self.deadline is not None and self.deadline[0] == seq:
                clock = {"seat": game.current_player, "deadline": self.deadline[1],
                         "left": max(0.0, round(self.deadline[1] - time.time(), 1))}
            fields = []
            for k, text in (*head, *own):
                if told is not None and k not in _ALWAYS:
                    if told.get(k) == text:
                        continue
                    told[k] = text
                fields.append(f'"{k}":{text}')
            return (f'{{"form":"update","seq":{seq},"since":{since},'
                    f'"reset":{"true" if reset else "false"},{",".join(fields)},'
                    f'"clock":{_dumps(clock)},{news}}}')

    def _part(self, key: tuple[Any, ...], make: Callable[[], str]) -> str:
        found: str | None = self._parts.get(key)
        if found is None:
            found = self._parts[key] = make()
        return found

    def _keyed(self, key: tuple[Any, ...], make: Callable[[], dict[str, Any]]
               ) -> tuple[tuple[str, str], ...]:
        """A part of an update as (key, JSON text) pairs, made once per version."""
        found: tuple[tuple[str, str], ...] | None = self._parts.get(key)
        if found is None:
            found = self._parts[key] = tuple((k, _dumps(v)) for k, v in make().items())
        return found

    def _head(self, game: Game) -> dict[str, Any]:
        """The public part of an update (every audience's alike)."""
        scores = None
        if game.is_over:
            scores = [{"seat": s.seat, "traveller": s.traveller, "total": s.total,
                       "rank": s.rank, "winner": s.winner, "tiebreak": s.tiebreak,
                       "tied": s.tied, "categories": dict(s.categories)}
                      for s in final_standings(game)]
        rules = self.rules
        return {
            "table": self.id, "name": self.name, "rematch": self.rematch,
            "over": game.is_over, "current_player": game.current_player,
            "deciding": self._deciding(game), "seats": self.seat_list(), "scores": scores,
            "outcome": outcome(game) if game.is_over else None,
            "takebacks": len(self.takebacks), "takeback_request": self.request,
            "away": {str(k): v for k, v in sorted(self.away.items())},
            "rules": {"takeback": rules.takeback, "clock": rules.clock,
                      "stand_in": rules.stand_in, "away_after": rules.away_after,
                      "hints": rules.hints},
            **self._hint_fields(game),
        }

    def _own(self, game: Game, seat: int | None) -> dict[str, Any]:
        """A seat's own part of an update (a spectator's: none)."""
        if seat is None:
            return {"seat": None, "actions": [], "purse": [], "takeback": None}
        view = self._view(game, seat)
        actions = []
        if self._seats[seat].kind == "human" and view.legal_actions:
            offered = [(a, encode_action(a)) for a in view.legal_actions]
            actions = [{"words": describe_action(game.state, a, facts=True),
                        "action": data} for a, data in offered]
            self._offered = (game, offered)
        check = None
        if not game.is_over:
            found = self.take_back_check(seat)
            doc = self._takeback_docs.get(seat)
            if doc is None or doc[0] is not found:  # the same answer: the same (read only)
                doc = self._takeback_docs[seat] = (found, {
                    "allowed": found.allowed, "reason": found.reason, "to_seq": found.to_seq})
            check = doc[1]
        return {"seat": seat, "actions": actions, "purse": self._purse(view),
                "takeback": check}

    def _news(self, seat: int | None, since: int, seq: int) -> str:
        """The lines, steps and scenes of ``seat``'s copy after ``since`` (from 0: the
        legend too), without braces."""
        audience = self._audience(seat)
        after = audience.steps_after(since)
        steps = [{"seq": end, "words": words} for end, words in after]
        lines = [line for line in audience.lines[since:]
                 if '"type":"core.log_end"' not in line]
        legend = None
        if since == 0:
            game = self.game
            legend = legend_html(self._view(game, seat))
        scenes = self._scene_news(seat, since, seq, [end for end, _ in after])
        return (f'"legend":{_dumps(legend)},"steps":{_dumps(steps)},'
                f'"lines":[{",".join(lines)}],"scenes":{scenes}')

    def _evening(self, seat: int | None, reset: bool) -> dict[str, Any]:
        """The document's part on take-backs, clocks and leaving: ``takebacks`` (how
        many were done), ``reset``, ``takeback`` (for a seat: whether it may take back
        its last decision now, and why not), ``takeback_request`` (one waiting for
        consent), ``clock`` (the decision's deadline and seconds left), ``away`` (the
        seats a stand-in bot plays, and why) and the table's ``rules``."""
        check = None
        if seat is not None and not self.game.is_over:
            found = self.take_back_check(seat)
            check = {"allowed": found.allowed, "reason": found.reason,
                     "to_seq": found.to_seq}
        clock = None
        if self.deadline is not None and self.deadline[0] == self.game.state.seq:
            clock = {"seat": self.game.current_player, "deadline": self.deadline[1],
                     "left": max(0.0, round(self.deadline[1] - time.time(), 1))}
        rules = self.rules
        return {"takebacks": len(self.takebacks), "reset": reset, "takeback": check,
                "takeback_request": self.request, "clock": clock,
                "away": {str(k): v for k, v in sorted(self.away.items())},
                "rules": {"takeback": rules.takeback, "clock": rules.clock,
                          "stand_in": rules.stand_in, "away_after": rules.away_after,
                          "hints": rules.hints}}

    def progress(self) -> int:
        """How far the journey has gone, in percent: the travellers' mean position
        over the road's length (100 once over)."""
        game = self.game
        if game.is_over:
            return 100
        rules = game.state.rules
        start, end = rules.start, len(rules.board) - 1
        pieces = game.state.pieces
        if end <= start or not pieces:
            return 0
        mean = sum(max(0, p.position - start) for p in pieces) / len(pieces)
        return max(0, min(100, round(100 * mean / (end - start))))

    def takeback_list(self) -> list[dict[str, Any]]:
        """The take-backs done: who, from and to which seq, with whose consent, when."""
        with self._lock:
            return [{"seat": t.seat, "from_seq": t.from_seq, "to_seq": t.to_seq,
                     "consent": list(t.consent), "at": t.at} for t in self.takebacks]

    @staticmethod
    def _deciding(game: Game) -> dict[str, Any] | None:
        """Whose decision it is and what is being decided, in the words its plugin
        registered with the step kind (``None`` once the game is over)."""
        step = game.current_step
        if step is None:
            return None
        kind = game.ruleset.registry.steps.get(step.kind)
        return {"seat": step.seat, "kind": step.kind,
                "words": kind.prompt if kind is not None else f"decide ({step.kind})"}

    def _purse(self, view: Any) -> list[dict[str, Any]]:
        """What the seat holds (each traveller it plays): coins, points and its
        collection with each card's facts, shown beside its actions. Empty for a
        spectator."""
        if view.seat is None:
            return []
        ruleset = self.game.ruleset
        names = ruleset.registry.traveller_name
        out = []
        purses = self._purses
        for n, piece in enumerate(view.pieces):
            if piece.seat != view.seat:
                continue
            held = view.zones.get(collection_zone(n), ())
            kept = purses.get(n)
            if kept is not None and kept[0] is piece and kept[1] is held:
                out.append(kept[2])  # made of these very piece and cards: the same
                continue
            cards = []
            for card in held:
                entry = self._card_entries.get(card)
                if entry is None:  # a card's entry is the same in every purse: made once
                    facts = card_facts(card, ruleset)
                    entry = self._card_entries[card] = {
                        "card": card, "name": facts.name, "facts": facts.summary()}
                cards.append(entry)
            made = {"piece": n, "traveller": names(piece.traveller) if piece.traveller
                    else None, "coins": piece.coins, "points": piece.total, "cards": cards}
            purses[n] = (piece, held, made)
            out.append(made)
        return out

    def seat_list(self) -> list[dict[str, Any]]:
        """Each seat: who plays it (``open``, ``human``, ``bot``), and its traveller."""
        pieces = self.game.state.pieces
        names = self.game.ruleset.registry.traveller_name
        out = []
        for s in self._seats:
            traveller = next((p.traveller for p in pieces if p.seat == s.seat), None)
            kind = "invited" if s.kind == "open" and s.token_hash is not None else s.kind
            out.append({"seat": s.seat, "kind": kind, "bot": s.bot,
                        "traveller": names(traveller) if traveller else None})
        return out

    def log_text(self, seat: int | None) -> str:
        """The log to download: the full log once the game is over, else the copy of
        ``seat`` (``None``: the public copy)."""
        with self._lock:
            if self.game.is_over:
                from .log import dump_log

                return dump_log(self.game)
            audience = self._audience(seat)
            return "".join(line + "\n" for line in [audience.header, *audience.lines])

    def decisions(self) -> list[Decision]:
        """Who played each decision so far."""
        with self._lock:
            return list(self._decisions)

    def summary(self) -> dict[str, Any]:
        """The table as the lobby lists it."""
        with self._lock:
            return {"table": self.id, "name": self.name, "rematch": self.rematch,
                    "players": self.record.players,
                    "plugins": list(self.record.plugins), "options": dict(self.record.options),
                    "created": self.record.created, "seq": self.game.state.seq,
                    "over": self.game.is_over, "seats": self.seat_list(),
                    "progress": self.progress(), "takeback": self.rules.takeback,
                    "clock": self.rules.clock, "hints": self.rules.hints}


class _TableLock:
    """A table's lock (re-entrant), which first catches the table up with the changes
    another process stored (:attr:`Table._behind`, set when one is heard of), so that
    every reader sees them; a database that cannot be read leaves the table as it
    was, to be caught up at the next lock."""

    __slots__ = ("_depth", "_rlock", "_table")

    def __init__(self, table: Table) -> None:
        self._rlock = threading.RLock()
        self._table = table
        self._depth = 0

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock (``blocking=False``: only if free, and only if the table has
        nothing to catch up with, which reads the database)."""
        table = self._table
        if not blocking and table._behind:
            return False
        if not self._rlock.acquire(blocking):
            return False
        self._depth += 1
        if self._depth == 1 and table._behind and not table._in_hold \
                and time.monotonic() >= table._retry_at:
            try:
                table._catch_up()
            except (StoreError, TokaidoError):  # served as it was; tried again at a
                table._retry_at = time.monotonic() + 1.0  # lock a second from now
        return True

    def release(self) -> None:
        self._depth -= 1
        self._rlock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _stored_game(stored: StoredTable) -> Game:
    """The game of a stored table, its log verified as any log is."""
    text = "".join(line + "\n" for line in [stored.record.header, *stored.lines])
    verified, game = _verify(text, (), True)
    if game is None:
        where = "" if verified.seq is None else f" at seq {verified.seq}"
        raise TokaidoError(f"its stored log does not verify{where}: {verified.message}")
    return game


class Lobby:
    """The tables of one server, kept in ``store`` (``None``: in memory only).

    A lobby on a store resumes its tables, each after its stored log is verified as any
    log is (:func:`~tokaido_rules.verify_log`, the game played again from its seed): a
    line changed in the database, or a table whose creation was cut short, is refused
    and listed in :attr:`refused` with the reason, reported once to ``on_refused``, and
    the others are served. ``background``: resume in a thread of its own, so that the
    server answers at once; a table asked for before its turn is resumed there and then
    (:meth:`get`), and :meth:`tables` lists those resumed so far (:meth:`wait_resumed`
    waits for the rest). Without it, every table is resumed before the lobby is made.
    """

    max_tables: int = MAX_TABLES
    """The most tables this lobby holds (refused ones count): one more is refused."""

    def __init__(self, store: Store | None = None, *, background: bool = False,
                 on_refused: Callable[[str, str], None] | None = None,
                 bot_options: Mapping[str, Mapping[str, object]] | None = None,
                 hint_bot: str = DEFAULT_BOT) -> None:
        self.store = store
        self.bot_options: Mapping[str, Mapping[str, object]] = dict(bot_options or {})
        """The options of the server's bots, by name (``--bot-option``), for every
        table."""
        self.hint_bot: str = hint_bot
        """The bot whose analysis the seats' hints are (``--hint-bot``), every table's."""
        self._tables: dict[str, Table] = {}
        self._broken: dict[str, str] = {}
        self._waiting: dict[str, TableRecord] = {}
        self._saved: dict[str, float] = {}  # the activity last stored, by table
        self._lock = threading.Lock()
        self._loading = threading.Lock()
        self._resumer: threading.Thread | None = None
        self.on_change: Callable[[Table], None] = lambda table: None
        self.on_refused: Callable[[str, str], None] = on_refused or (lambda i, why: None)
        self._rules_read: dict[str, TableRules] | None = None
        self._clocks_read: tuple[dict[str, tuple[int, float]], dict[str, dict[int, str]]] | \
            None = None
        if store is not None:
            if store.shared:  # hear the other processes' changes from now on
                store.listen(self._told)
            records = store.tables()
            if background:
                self._waiting = {record.id: record for record in records}
                self._resumer = threading.Thread(target=self._resume_all, daemon=True,
                                                 name="tokaido-resume")
                self._resumer.start()
            else:
                for record in records:
                    self._resume(record)

    @property
    def refused(self) -> dict[str, str]:
        """The stored tables that are not served, each with the reason (a copy)."""
        return dict(self._broken)

    @property
    def size(self) -> int:
        """How many tables the lobby holds: served, still being resumed, and refused."""
        return len(self._tables) + len(self._waiting) + len(self._broken)

    def wait_resumed(self, timeout: float | None = None) -> bool:
        """Wait until every stored table is resumed or refused; whether they are."""
        if self._resumer is not None:
            self._resumer.join(timeout)
        return not self._waiting

    def _resume_all(self) -> None:
        for table_id in list(self._waiting):
            self._take(table_id)

    def _take(self, table_id: str) -> None:
        """Resume one stored table now, unless that is done already."""
        with self._loading:
            record = self._waiting.get(table_id)
            if record is not None:
                self._resume(record)
                del self._waiting[table_id]

    def _resume(self, record: TableRecord) -> None:
        """Load a stored table at its last seq, once its log verifies (a table whose
        log does not verify is refused: listed with the reason, and the others are
        served)."""
        assert self.store is not None
        try:
            lines = self.store.lines(record.id)
            text = "".join(line + "\n" for line in [record.header, *lines])
            verified, game = _verify(text, (), True)
            if game is None:
                where = "" if verified.seq is None else f" at seq {verified.seq}"
                raise TokaidoError(f"its stored log does not verify{where}: "
                                   f"{verified.message}")
            decisions = self.store.decisions(record.id)
        except TokaidoError as exc:
            reason = " ".join(str(exc).split())
            self._broken[record.id] = reason
            self.on_refused(record.id, reason)
            return
        if not record.name:  # stored before tables had names
            try:
                name = _draw_name({t.name for t in self._tables.values()})
                self.store.set_name(record.id, name)
                record = attrs.evolve(record, name=name)
            except (StoreError, TableError):
                pass  # named by its id until a later start
        table = Table(record, game, self.store, decisions, len(lines),
                      self._evening_rules().get(record.id))
        self._resume_evening(table)
        if self.store.shared:
            table._rev = None  # read again before its first change
        self._adopt(table)

    def _told(self, table_id: str | None, rev: int) -> None:
        """Another process stored a change of ``table_id`` (its new ``rev``; -1: it was
        deleted; ``None``: changes may have been missed, all are read again): the
        table is caught up at its next lock, and its clients here are woken for it. A
        table made by another process is loaded here."""
        if table_id is None:
            for each in self.tables():
                each._behind = True
                each._changed(each)
            with contextlib.suppress(StoreError):
                known = set(self._tables) | set(self._waiting) | set(self._broken)
                for new in self.store.table_ids() if self.store is not None else ():
                    if new not in known:
                        self._load_new(new)
            return
        table = self._tables.get(table_id)
        if table is None:
            if rev >= 0 and table_id not in self._waiting and table_id not in self._broken:
                with contextlib.suppress(StoreError):
                    self._load_new(table_id)
            return
        if rev == -1:
            with self._lock:
                self._tables.pop(table_id, None)
            table.gone = True
            table._changed(table)
        elif table._rev is None or rev > table._rev:
            table._behind = True
            table._changed(table)

    def _load_new(self, table_id: str) -> None:
        """Serve a table another process made (or one this process missed)."""
        assert self.store is not None
        with self._loading:
            if table_id in self._tables:
                return
            stored = self.store.load(table_id)
            if stored is None:
                return
            try:
                game = _stored_game(stored)
            except TokaidoError as exc:
                self._broken[table_id] = " ".join(str(exc).split())
                return
            table = Table(stored.record, game, self.store, stored.decisions,
                          len(stored.lines), stored.rules)
            table.takebacks = list(stored.takebacks)
            table.away = dict(stored.away)
            table.request = _request_document(stored.request, len(stored.takebacks),
                                              game.state.seq)
            table._hints_asked = set(stored.hint_asks)
            if stored.clock is not None and stored.clock[0] == game.state.seq:
                table.deadline = stored.clock
            table._rev = stored.rev
            with self._lock:
                self._adopt(table)

    def _adopt(self, table: Table) -> None:
        table._changed = lambda t: self.on_change(t)
        table.bot_options = self.bot_options
        table.hint_bot = self.hint_bot
        self._tables[table.id] = table

    def create(self, players: object, plugins: object = ("base",),
               options: object = None, bots: object = None,
               seed: int | None = None, *, takeback: object = "none",
               clock: object = None, stand_in: object = "greedy",
               away_after: object = None, hints: object = True) -> tuple[Table, str]:
        """A new table (``bots``: seat number to bot name; the other seats are open),
        and its host token, which may hand any seat to a bot. ``takeback``, ``clock``,
        ``stand_in``, ``away_after``, ``hints``: its
        :class:`~tokaido_rules.store.TableRules`."""
        made = self.open_table(players, plugins, options, bots, seed, takeback=takeback,
                               clock=clock, stand_in=stand_in, away_after=away_after,
                               hints=hints)
        return made.table, made.host_token

    def open_table(self, players: object, plugins: object = ("base",),
                   options: object = None, bots: object = None, seed: int | None = None,
                   *, seat: object = None, invite: object = (), takeback: object = "none",
                   clock: object = None, stand_in: object = "greedy",
                   away_after: object = None, hints: object = True) -> NewTable:
        """A new table, stored in one transaction with its seats: ``bots`` (seat number
        to bot name) are played by bots, ``seat`` (if given) is its creator's, joined at
        once, the seats in ``invite`` (a list of seat numbers, or ``True``: every seat
        left) are invited, the others open. The host's token may hand any seat to a bot
        and show the invitations again (:meth:`Table.invites`). ``takeback``, ``clock``,
        ``stand_in``, ``away_after``, ``hints``: its
        :class:`~tokaido_rules.store.TableRules`."""
        rules = _table_rules(takeback, clock, stand_in, away_after, hints)
        if type(players) is not int or not 2 <= players <= 5:
            raise TableError(400, "players must be from 2 to 5")
        bot_seats = self._bot_seats(players, {} if bots is None else bots)
        if seat is not None and (type(seat) is not int or not 0 <= seat < players
                                 or seat in bot_seats):
            raise TableError(400, f"seat must be a seat from 0 to {players - 1} that no "
                             "bot plays")
        left = [s for s in range(players) if s not in bot_seats and s != seat]
        if invite is True:
            invited = set(left)
        elif (isinstance(invite, list | tuple)
              and all(type(s) is int and s in left for s in invite)):
            invited = set(invite)
        else:
            raise TableError(400, "invite must be true or a list of the seats that are "
                             "neither a bot's nor the creator's")
        return self._make(players, plugins, options, seed, seated=seat, rules=rules,
                          kinds=lambda table_id, host: {
                              **{s: SeatRecord(s, "bot", b) for s, b in bot_seats.items()},
                              **{s: SeatRecord(s, "open", None,
                                               _hash(_invite_secret(host, table_id, s)))
                                 for s in invited}})

    def _make(self, players: int, plugins: object, options: object, seed: int | None,
              *, seated: int | None,
              kinds: Callable[[str, str], dict[int, SeatRecord]],
              rules: TableRules, host: str | None = None, host_hash: str | None = None,
              rematch_of: Table | None = None) -> NewTable:
        """Build, store (one transaction) and serve a new table. ``kinds(id, host)``:
        the records of the seats that are not open; ``seated``: a seat joined by its
        creator; ``rules``: its take-backs, clock and leaving; ``host_hash`` (a rematch):
        the host of the table it follows."""
        if (not isinstance(plugins, list | tuple) or not plugins
                or not all(isinstance(p, str) for p in plugins)):
            raise TableError(400, "plugins must be a list of plugin ids")
        if options is None:
            options = {}
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            raise TableError(400, "options must be an object of option names to values")
        try:
            ruleset = Ruleset.build([str(p) for p in plugins], dict(options))
            game = new_game(players, seed=new_seed() if seed is None else seed,
                            plugins=ruleset)
        except TokaidoError as exc:
            raise TableError(400, str(exc)) from None
        with self._lock:
            if self.size >= self.max_tables:
                raise TableError(409, f"this server holds {self.max_tables} tables already")
            if host is None:
                host = secrets.token_urlsafe(32)
            feed = LogFeed(game)
            first = [line.rstrip("\n") for line in feed.new_lines(game)]
            table_id = _new_table_id()
            given = kinds(table_id, host)
            token = None if seated is None else secrets.token_urlsafe(32)
            if seated is not None and token is not None:
                given[seated] = SeatRecord(seated, "human", None, _hash(token))
            seats = tuple(given.get(s, SeatRecord(s, "open")) for s in range(players))
            name = _draw_name({t.name for t in self._tables.values()})
            record = TableRecord(table_id, time.time(), players,
                                 tuple(ruleset.ids), tuple(sorted(ruleset.options.items())),
                                 host_hash or _hash(host), first[0], seats, name)
            if self.store is not None:
                try:  # one transaction
                    self.store.create(record, first[1:],
                                      None if rules == TableRules() else rules,  # defaults
                                      None if rematch_of is None else rematch_of.id)
                except StoreError as exc:
                    raise _unstored(exc) from None
            table = Table(record, game, self.store, (), len(first) - 1, rules)
            if rematch_of is not None:
                rematch_of.rematch = table.id
                rematch_of._moved()
            self._adopt(table)
        table.start()
        invites = {s.seat: _invite_secret(host, table_id, s.seat) for s in seats
                   if s.kind == "open" and s.token_hash is not None}
        return NewTable(table, host, seated, token, invites)

    def rematch(self, table: Table, token: str | None) -> tuple[Table, int | None]:
        """The rematch of a finished ``table`` (made once; asked again, the same): the
        same rules and people, each seat moved on by one (seat ``s`` plays seat ``s +
        1``, the last the first). Each person keeps their token, the host theirs, each
        bot plays on at its seat's new place. Asked with a seat's token or the host's
        (403 else; 409 before the end). The table, and the seat ``token`` plays there
        (``None`` for the host's token)."""
        seat = table.seat_for(token) if token is not None and not table.is_host(token) \
            else None
        if token is None or (seat is None and not table.is_host(token)):
            raise TableError(403, "a rematch is asked with a seat's token or the host's")
        n = len(table.seats)
        moved = None if seat is None else (seat + 1) % n
        with table._lock:
            if not table.game.is_over:
                raise TableError(409, "the game is not over")
            if table.rematch is not None and table.rematch in self._tables:
                return self._tables[table.rematch], moved

            def kinds(table_id: str, host: str) -> dict[int, SeatRecord]:
                out = {}
                for s in table.seats:
                    if s.kind != "open":  # an unjoined seat is open at the rematch
                        out[(s.seat + 1) % n] = SeatRecord((s.seat + 1) % n, s.kind, s.bot,
                                                           s.token_hash)
                return out

            # the same rules: the options, and the take-backs, clock, stand-in and
            # away-after of the table's rules (the stand-in as the host last named it)
            made = self._make(n, list(table.record.plugins), dict(table.record.options),
                              None, seated=None, kinds=kinds, rules=table.rules,
                              host_hash=table.record.host_hash, rematch_of=table)
        return made.table, moved

    @staticmethod
    def _bot_seats(players: int, bots: object) -> dict[int, str]:
        if not isinstance(bots, Mapping):
            raise TableError(400, 'bots must be an object of seats to bot names: {"1": "greedy"}')
        out: dict[int, str] = {}
        for key, name in bots.items():
            seat = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else key
            if type(seat) is not int or not 0 <= seat < players:
                raise TableError(400, f"bots: {key!r} is not a seat of a {players}-player game")
            if not isinstance(name, str) or name not in BOTS:
                raise TableError(400, f"bots: the bots are {', '.join(BOTS)}")
            out[seat] = name
        return out

    def get(self, table_id: str) -> Table:
        """The table ``table_id`` (404: none; 409: a refused table, with the reason)."""
        table = self._tables.get(table_id)
        if table is None:  # a name works as well as an id
            table = next((t for t in self._tables.values() if t.name == table_id), None)
        if table is None and table_id in self._waiting:
            self._take(table_id)  # asked for before the background came to it
            table = self._tables.get(table_id)
        if table is None and self.store is not None and self.store.shared \
                and table_id not in self._broken:
            with contextlib.suppress(StoreError):  # made by another process just now
                self._load_new(table_id)
            table = self._tables.get(table_id)
        if table is None:
            if table_id in self._broken:
                raise TableError(409, f"table {table_id} cannot be loaded: "
                                 f"{self._broken[table_id]}")
            raise TableError(404, "no such table")
        return table

    def tables(self) -> list[Table]:
        """The tables served (with ``background``: those resumed so far)."""
        return list(self._tables.values())

    # --- kept alive, or not: bots, expiry, deletion -------------------------------------

    def play_bots(self) -> dict[str, str]:
        """Let the bots play at every table whose decision at hand is a bot's (after a
        restart, or a write that failed); the tables that still wait, with why."""
        failed: dict[str, str] = {}
        for table in self.tables():
            if not table.waits_on_bot:
                continue
            try:
                table.play_bots()
            except Exception as exc:  # a bot that fails: tried again at the next call
                failed[table.id] = f"{type(exc).__name__}: {exc}"
            else:
                if table.stalled is not None:  # a write refused: tried again too
                    failed[table.id] = table.stalled
        return failed

    def expire(self, finished: float, abandoned: float,
               now: float | None = None) -> list[str]:
        """Delete the tables over for ``finished`` seconds, and the others with no action
        and no seat's request for ``abandoned`` seconds (0: never); a table with a
        seat's request under way (a connected person) never expires. The ids deleted."""
        now = time.time() if now is None else now
        if self.store is not None and self.store.shared:
            self._saved.clear()  # read again: the other processes' requests count too
        self._load_activity()

        def due(table: Table) -> bool:
            limit = finished if table.game.is_over else abandoned
            return limit > 0 and table.connected == 0 and now - table.active >= limit

        return [t.id for t in self.tables() if due(t) and self._drop(t.id, due)]

    def delete(self, table_id: str) -> bool:
        """Delete a table, in memory and in the store (a broken one too); ``False`` if
        there is none."""
        return self._drop(table_id, lambda table: True)

    def _drop(self, table_id: str, still: Callable[[Table], bool]) -> bool:
        table = self._tables.get(table_id)
        if table is None:
            with self._lock:
                if self._broken.pop(table_id, None) is None:
                    return False
                if self.store is not None:
                    self.store.delete([table_id])
            return True
        with table._lock:  # no action is half done meanwhile
            if not still(table):
                return False
            with self._lock:
                if self._tables.pop(table_id, None) is None:
                    return False
                if self.store is not None:
                    try:
                        self.store.delete([table_id])
                    except StoreError:
                        if not self.store.shared or table_id in self.store.table_ids():
                            self._tables[table_id] = table
                            raise
                        # deleted by another process meanwhile: gone all the same
            table.gone = True
        return True

    def forget_deleted(self) -> list[str]:
        """Drop the tables deleted from the store by another program (``tokaido tables
        delete`` while the server runs); their ids."""
        if self.store is None:
            return []
        with self._lock:
            stored = set(self.store.table_ids())
            gone = [i for i in [*self._tables, *self._broken] if i not in stored]
            for table_id in gone:
                self._broken.pop(table_id, None)
                table = self._tables.pop(table_id, None)
                if table is not None:
                    table.gone = True
        return gone

    def save_activity(self) -> None:
        """Store when each table was last active (those active since the last call), so
        that a restart keeps the clocks of expiry."""
        if self.store is None:
            return
        self._load_activity()
        changed = {t.id: t.active for t in self.tables()
                   if self._saved.get(t.id) != t.active}
        if changed:
            self.store.set_activity(changed)
            self._saved.update(changed)

    def _load_activity(self) -> None:
        """Once: the stored activity of the resumed tables (else their creation)."""
        if self.store is None or self._saved:
            return
        stored = self.store.activity()
        for table in self.tables():
            table.active = max(table.active, stored.get(table.id, 0.0))
        self._saved.update(stored)
        self._saved.setdefault("", 0.0)  # loaded, even with nothing stored

    # --- take-backs, clocks and leaving (issue #40) ------------------------------------

    def _evening_rules(self) -> dict[str, TableRules]:
        """The stored rules of every table, read once (older tables have none)."""
        if self._rules_read is None:
            self._rules_read = {} if self.store is None else self.store.rules()
        return self._rules_read

    def _resume_evening(self, table: Table) -> None:
        """A resumed table's take-backs, the one waiting for consent, seats away and
        running clock (its deadline as stored: the time left survives the restart)."""
        if self.store is None:
            return
        table.takebacks = self.store.takebacks(table.id)
        table.request = _request_document(self.store.request(table.id),
                                          len(table.takebacks), table.game.state.seq)
        table._hints_asked = set(self.store.hint_asks(table.id))
        if self._clocks_read is None:
            self._clocks_read = (self.store.clocks(), self.store.away())
        clocks, away = self._clocks_read
        table.away = dict(away.get(table.id, {}))
        clock = clocks.get(table.id)
        if clock is not None and clock[0] == table.game.state.seq:
            table.deadline = clock
        table._wind_clock()

    def keep_clocks(self, now: float | None = None, every: float = KEEP_SECONDS) -> None:
        """Clocks run out and departures (:meth:`Table.keep`) at every table with a
        clock or an ``away_after``, or a seat away; the keeper calls it every
        ``every`` seconds. On a shared store, a table another process moved is looked
        at only if its clock ran out as stored (the process that wound it may be gone:
        exactly one live process plays it, under the table's lock) or this process
        served its pages; and first the seats whose pages this process served since
        the last call are stored (:meth:`_share_seen`), so that the others do not mark
        them away, and the stored sightings no live process refreshes any more are
        read (:meth:`_read_stale_seen`), so that the seats whose pages a process that
        died held are marked away here."""
        due: set[str] | None = None
        if self.store is not None and self.store.shared:
            self._share_seen(time.time() if now is None else now)
            self._read_stale_seen(every)
            try:
                due = set(self.store.due())
            except StoreError:
                due = set()
        for table in self.tables():
            if table.rules.clock is not None or table.rules.away_after is not None \
                    or table.away:
                if due is not None and table._behind and table.id not in due \
                        and not table.seen:
                    continue
                table.keep(now, every)

    def _read_stale_seen(self, every: float) -> None:
        """Take the stored sightings older than ``2 * every`` (the least time after
        which a seat is away on a shared store) of the seats not away at this
        process's unfinished tables with an ``away_after``. A live process stores
        ``now`` for the pages it holds at each round, so a sighting this old is of a
        page no live process holds: one closed, or one a process that died held.
        This process may never have seen that seat's page itself, and
        :meth:`Table.keep` looks only at the seats it knows were seen. A read that
        fails is tried again at the next call."""
        assert self.store is not None
        tables = {t.id: t for t in self.tables() if t.rules.away_after is not None
                  and not t.gone and not t.game.is_over}
        if not tables:
            return
        try:
            stale = self.store.stale_seen(list(tables), 2 * every)
        except StoreError:
            return
        for table_id, rows in stale.items():
            table = tables.get(table_id)
            if table is not None:
                with table._lock:
                    table._merge_seen(rows)

    def _share_seen(self, now: float) -> None:
        """Store, in one write, when this process last saw each seat's page at its
        tables with an ``away_after`` (``now`` for the pages connected): what the
        other processes read before they mark a seat away. A write that fails is
        tried again at the next call (what it held is sent again)."""
        assert self.store is not None
        sent: dict[Table, dict[int, float]] = {}
        for table in self.tables():
            if table.rules.away_after is not None and not table.gone \
                    and not table.game.is_over:
                rows = table._seen_to_store(now)
                if rows:
                    sent[table] = rows
        if not sent:
            return
        try:
            self.store.set_seen({(t.id, seat): at for t, rows in sent.items()
                                 for seat, at in rows.items()})
        except StoreError:
            return
        for table, rows in sent.items():
            for seat, at in rows.items():
                table._seen_stored[seat] = max(at, table._seen_stored.get(seat, at))


def _seconds(name: str, value: object) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not 1 <= float(value) <= 86_400:  # type: ignore[arg-type]
        raise TableError(400, f"{name} must be seconds from 1 to 86400, or null")
    return float(value)  # type: ignore[arg-type]


def _table_rules(takeback: object, clock: object, stand_in: object,
                 away_after: object, hints: object = True) -> TableRules:
    """Check the rules of a new table (400 for bad values)."""
    if takeback not in ("off", "none", "all"):
        raise TableError(400, 'takeback must be "off", "none" (no consent needed) or '
                         '"all" (every other person agrees)')
    if not isinstance(stand_in, str) or stand_in not in BOTS:
        raise TableError(400, f"stand_in must be one of {', '.join(BOTS)}")
    if type(hints) is not bool:
        raise TableError(400, "hints must be true or false")
    return TableRules(takeback, _seconds("clock", clock), stand_in,
                      _seconds("away_after", away_after), hints)

"""The replay viewer: one self-contained HTML file to step through a game
(``tokaido replay FILE --html OUT.html``).

The page needs no network and works from ``file://``: its pictures are drawn here, by
:mod:`tokaido_rules.render`, and embedded with a small player (first, previous, next,
last, a slider over the decisions, a seat selector). Each point of the game, a *frame*,
holds the board's SVG, a score table (points, coins, collections: all public) and the
lines of the step that led to it, in the words of the table.

- From a full log the page offers every seat and "everything": the file is the whole
  record, and the page says so. A seat's frames are drawn from its
  :class:`~tokaido_rules.View`, their lines from its copy of the log.
- From a seat's copy (:func:`~tokaido_rules.log.load_seat_copy`) the page offers that
  seat only, and the file holds nothing else: its frames are drawn from a state folded
  from what the seat saw, each card it did not see a placeholder. The public copy (a
  spectator's) is drawn the same way, from what every seat saw.

The page shows one frame at a time: it takes its data out of the document once read, so
the document holds only the frame on show (what a seat's selector shows is what that
seat sees). Pictures repeat from frame to frame, so each is cut into parts kept once.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from operator import attrgetter
from typing import Any

from .codec import Structurer, _converter_and_structurers, freeze_json
from .engine import Game, initial_state
from .events import Action, CardsMoved, DeckSet, Event, GameOver, fold
from .frozen import FrozenMap
from .log import (
    TRAILER,
    UNSEEN,
    SeatCopy,
    SeatLine,
    _parse_line,
    _seat_event,
    dump_log,
    load_seat_copy,
)
from .model import GameState, collection_zone
from .registry import Registry
from .render import (
    Scene,
    _kind_counts,
    describe_action,
    describe_effects,
    final_standings,
    legend_html,
    outcome,
    scene,
    svg,
)
from .simulate import decision_count
from .visibility import public_data, split_public_zones, split_zones, visible_data

__all__ = ["replay_html", "seat_copy_html", "frames", "step_words"]


# --- the points of a game --------------------------------------------------------------


def _steps(events: Sequence[Event | type[Event]]) -> list[tuple[int, int]]:
    """The (start, stop) of each frame's events (or of their types): the setup, then
    each decision with what followed it (the last one's with the end of the journey, so
    that there is a frame per decision and no more: the slider's last place is the last
    decision)."""
    cuts = [i for i, e in enumerate(events)
            if isinstance(e, Action) or (isinstance(e, type) and issubclass(e, Action))]
    bounds = [0, *cuts, len(events)]
    return list(itertools.pairwise(bounds))


def _step_lines(events: Sequence[Event | None], before: GameState, after: GameState,
                first: Event | None, unseen: str = "", facts: bool = False) -> list[str]:
    """The words of one step: the decision and what followed it (``first``: the step's
    first event, ``None`` when the seat did not see enough of it to tell; ``unseen``
    then says what it was); with ``facts``, the decision's cards and travellers with
    their facts (:func:`~tokaido_rules.render.describe_action`). At the end, who won
    and how."""
    rest = [e for e in events[1:] if e is not None]
    if isinstance(first, GameOver):  # the end told on its own (the table's narrator)
        return _ending(rest, after)
    end = next((i for i, e in enumerate(rest) if isinstance(e, GameOver)), len(rest))
    ending = _ending(rest[end + 1:], after) if end < len(rest) else []
    if isinstance(first, Action):
        decider = getattr(first, "piece", first.seat)
        effects = describe_effects(rest[:end], after, decider)
        return [describe_action(before, first, facts=facts)
                + (f": {effects}" if effects else ""), *ending]
    return [f"{unseen}: not all of it shown to this seat", *ending]


def _ending(events: Sequence[Event], after: GameState) -> list[str]:
    """The words of the end of the journey: its scoring, then who won and how."""
    effects = describe_effects(events, after)
    said = ["end of the journey" + (f": {effects}" if effects else "")]
    return said + ([outcome(Game(after, ()))] if after.over else [])


def _table(sc: Scene) -> list[dict[str, Any]]:
    """The score table of a picture: per seated traveller, public facts only: its rank
    (:func:`~tokaido_rules.render.final_standings`), points, points by category (display
    names), coins, collection and, once the game is over, whether it won. Seats in
    order during the game, in rank order at its end."""
    standings = {r.seat: r for r in final_standings(sc)}
    rows = []
    for i, p in enumerate(sc.pieces):
        if p.seat is None:
            continue
        kinds = _kind_counts(sc, sc.zones.get(collection_zone(i), ()))
        found = standings[p.seat]
        rows.append({"seat": p.seat, "traveller": sc.traveller_name(i), "points": p.total,
                     "coins": p.coins,
                     "collection": ", ".join(f"{k} {n}" for k, n in kinds) or "nothing",
                     "rank": found.rank, "winner": found.winner,
                     "categories": [[c, v] for c, v in found.categories]})
    if sc.over:
        rows.sort(key=lambda r: (r["rank"], r["seat"]))
    return rows


def _frame(sc: Scene, lines: list[str], caption: str) -> dict[str, Any]:
    """One point of the game: its picture, words, score table and caption; ``over``
    and, at the end, ``outcome``: who won and how."""
    table = _table(sc)
    said = outcome(sc) if sc.over else ""
    return {"svg": svg(sc), "lines": lines, "table": table, "caption": caption,
            "over": sc.over, "outcome": said}


def _caption(n: int, decisions: int, sc: Scene) -> str:
    """Frame ``n``'s caption: the setup, or decision n of ``decisions``
    (:func:`~tokaido_rules.simulate.decision_count`; the last one ends the journey)."""
    where = "setup" if n == 0 else f"decision {n} of {decisions}"
    end = " · the journey is over" if sc.over else ""
    return f"{where} · turn {sc.turn} · seq {sc.seq}{end}"


def _game_frames(game: Game) -> list[dict[str, Any]]:
    """Every frame of the whole game: everything shown."""
    events = game.events
    steps = _steps(events)
    decisions = decision_count(events)
    state = initial_state(game.state.rules, game.seed)
    out = []
    for n, (a, b) in enumerate(steps):
        before = state
        for e in events[a:b]:
            state = fold(state, e)
        sc = scene(Game(state, ()))
        lines = ["the travellers set out"] if n == 0 else _step_lines(
            events[a:b], before, state, events[a], facts=True)
        out.append(_frame(sc, lines, _caption(n, decisions, sc)))
    return out


_store = dict.__setitem__


def _seen_fold(state: GameState, event: Event | None) -> GameState:
    """Fold what a seat saw of an event: cards it did not see are placeholders naming
    their deck where known; an event it saw too little of (or that a placeholder makes
    impossible to fold) only counts."""
    if isinstance(event, CardsMoved):
        zones = state.zones
        src = event.src
        count = event.count
        if event.from_top:
            cards = zones.get(src, ())
            taken: list[str] | tuple[str, ...] = cards[:count]
            left = cards[count:]
        else:  # the cards named, else those the seat did not see, else the first
            have = list(zones.get(src, ()))
            taken = []
            for card in event.cards:
                pick = card if card in have and card != UNSEEN else next(
                    (c for c in have if c.startswith(UNSEEN)), have[0] if have else None)
                if pick is not None:
                    have.remove(pick)
                    taken.append(pick)
            left = tuple(have)
        named = event.cards
        if named and not named[0].startswith(UNSEEN):
            moved = tuple(named)
        elif len(taken) < count:
            moved = (*taken, *[UNSEEN] * (count - len(taken)))
        else:
            moved = tuple(taken)
        # both zones set in one copy of the zones and one of the state (as with_zone
        # twice, then the count: the same zones in the same order)
        new = FrozenMap(zones)
        _store(new, src, left)
        dst = event.dst
        target = () if dst == src else new.get(dst, ())
        _store(new, dst, target + moved if event.bottom else moved + target)
        return state.replace(zones=new, seq=state.seq + 1)
    if isinstance(event, DeckSet) and event.cards and event.cards[0] == UNSEEN:
        return state.with_zone(event.zone, (UNSEEN + event.zone,) * event.count
                               ).replace(seq=state.seq + 1)
    if event is not None:
        try:
            return fold(state, event)
        except Exception:  # a placeholder the event's own fold cannot take
            pass
    return state.replace(seq=state.seq + 1)


def _seen_scene(state: GameState, seat: int | str) -> Scene:
    """A picture of a state folded from a seat's copy, as that seat sees it (``seat``
    ``"public"``: from the public copy, as a spectator sees it)."""
    if isinstance(seat, str):
        shown, hidden = split_public_zones(state)
        data = public_data(state)
    else:
        shown, hidden = split_zones(state, seat)
        data = visible_data(state, seat)
    registry = state.rules.registry
    backs: dict[str, FrozenMap[str, int]] = {}
    for name, cards in hidden.items():
        known = tuple(c for c in cards if not c.startswith(UNSEEN))
        counts = dict(registry.zone_backs({name: known})[name]) if known else {}
        for card in cards:
            if card.startswith(UNSEEN):
                home = card[len(UNSEEN):] or "?"
                counts[home] = counts.get(home, 0) + 1
        backs[name] = FrozenMap(sorted(counts.items()))
    try:
        current = Game(state, ()).current_player
    except Exception:  # an agenda the rules cannot read without a hidden fact
        current = None
    return Scene(seat=None if isinstance(seat, str) else seat, players=state.players,
                 turn=state.turn, seq=state.seq, over=state.over, pieces=state.pieces,
                 zones=FrozenMap({k: v for k, v in shown.items()
                                  if not any(c.startswith(UNSEEN) for c in v)}),
                 zone_sizes=FrozenMap({k: len(v) for k, v in state.zones.items()}),
                 hidden_backs=FrozenMap(backs), data=FrozenMap(data),
                 current_player=current, ruleset=state.rules.ruleset,
                 spectator=isinstance(seat, str))


def _copy_frames(copy: SeatCopy,
                 views: Sequence[Scene] | None = None) -> list[dict[str, Any]]:
    """Every frame as the copy's seat saw it: the lines from its copy, the pictures from
    ``views`` (a full log's views of the seat) or else from the copy itself."""
    events = [line.event for line in copy.lines]
    registry = copy.ruleset.registry
    steps = _steps([registry.events[line.type] for line in copy.lines])
    decisions = decision_count(copy)
    state = initial_state(copy.rules(), 0)
    out = []
    for n, (a, b) in enumerate(steps):
        before = state
        for e in events[a:b]:
            state = _seen_fold(state, e)
        sc = views[n] if views is not None else _seen_scene(state, copy.viewer)
        lines = ["the travellers set out"] if n == 0 else _step_lines(
            events[a:b], before, state, events[a], _unseen(copy.lines[a]), facts=True)
        out.append(_frame(sc, lines, _caption(n, decisions, sc)))
    return out


def step_words(copy: SeatCopy) -> list[tuple[int, str]]:
    """Each decision of a seat's copy (and the end) in plain words, as its seat saw it,
    with the seq the game reached after it."""
    narrator = Narrator(copy)
    return narrator.take(copy.lines)


_TOLD = (Action, GameOver)
"""The events that begin a step a narrator tells (a tuple: a union made at every line
costs more than the test)."""

_WHO = attrgetter("seat", "traveller")
"""What the words of a step read of a traveller (:func:`_who_key`)."""

Words = dict[tuple[int, ...], tuple[tuple[SeatLine, ...], object, tuple[Any, ...],
                                    tuple[Any, ...], str]]
"""Words said by the narrators of the other copies of a game, shared
(:attr:`~tokaido_rules.log.FeedShare.words`): by the ids of a step's lines, the lines
themselves, the ruleset, what the words read of the travellers before and after the
step (:func:`_who_key`), and the words."""


def _who_key(state: GameState) -> tuple[Any, ...]:
    """All that the words of a step (:func:`_step_lines`, without facts, before the end
    of the game) read of a state besides its ruleset: each traveller's seat and
    traveller (:func:`~tokaido_rules.render.describe_action`,
    :func:`~tokaido_rules.render.describe_effects`: who moved, who got what). Two
    narrators whose states agree on it, told the very same lines, say the same words."""
    return tuple(map(_WHO, state.pieces))


_Beginning = tuple[Registry, dict[type[Event], Structurer], GameState]
"""What a narrator begins from: the copy's registry, how its events are read, and the
state its setup begins from (read-only: states are never changed, only replaced)."""

_HEADERS: dict[str, _Beginning] = {}
"""What each header text read so far begins a narrator with
(:meth:`Narrator.for_header`), the oldest first out past :data:`_HEADERS_KEPT`."""

_HEADERS_KEPT = 256


def _beginning(copy: SeatCopy) -> _Beginning:
    return (copy.ruleset.registry, _converter_and_structurers(copy.ruleset)[1],
            initial_state(copy.rules(), 0))


class Narrator:
    """Tells the steps of a seat's (or the public) copy of a log in plain words as its
    lines come, reading each line once: what ``tokaido serve`` tells each audience of
    the turns played, without reading the copy again at every step.

    Give it whole steps: the lines up to a point where someone decides (or the end), as
    a :class:`~tokaido_rules.log.LogFeed` hands them out after each ``apply``. The
    setup, before the first decision, is folded but not told."""

    def __init__(self, copy: SeatCopy) -> None:
        self._start(_beginning(copy))

    def _start(self, beginning: _Beginning) -> None:
        self._registry, self._structurers, self._state = beginning
        self._step: list[SeatLine] = []
        self._started = False
        self._read = 0
        self._told: dict[str, bool] = {}  # by event type: whether it begins a step
        self._who: tuple[Any, tuple[Any, ...]] = ((), ())  # pieces, and their _who_key

    @classmethod
    def for_header(cls, header: str) -> Narrator:
        """A narrator for the copy whose header line is ``header``: what the header
        gives (its plugins resolved, the state its setup begins from) is read once per
        header text and shared, as a server opens a narrator for every seat of every
        table, and tables of one kind have the same seats' headers."""
        found = _HEADERS.get(header)
        if found is None:
            if len(_HEADERS) >= _HEADERS_KEPT:
                del _HEADERS[next(iter(_HEADERS))]  # the oldest
            found = _HEADERS[header] = _beginning(load_seat_copy(header + "\n"))
        narrator = cls.__new__(cls)
        narrator._start(found)
        return narrator

    def add(self, lines: Sequence[str]) -> list[tuple[int, str]]:
        """Read the next ``lines`` of the copy (JSON text, the trailer allowed): the
        steps they complete, each with the seq after it."""
        parsed = []
        for text in lines:
            obj = _parse_line(text, self._read + 2)
            if obj.get("type") == TRAILER:
                continue
            parsed.append(_seat_event(obj, self._read + 2, self._read, self._registry,
                                      self._structurers))
            self._read += 1
        return self.take(parsed)

    def add_shown(self, lines: Sequence[str],
                  shown: Sequence[tuple[int, Event, Mapping[str, Any], tuple[str, ...]]],
                  read: dict[str, SeatLine] | None = None,
                  words: Words | None = None) -> list[tuple[int, str]]:
        """:meth:`add` for the ``lines`` of a :class:`~tokaido_rules.log.LogFeed` whose
        events are at hand (``shown``, from ``new_lines(game, shown)``, one per event
        line): a line whose every field was shown is made from its event, not read back
        from its text (a server narrates every seat's copy of every move). ``read``:
        the lines as the narrators of the other copies of the game read them, by their
        text (:attr:`~tokaido_rules.log.FeedShare.read`), used and added to: a line is
        the same in every copy that has the same text. ``words``: the words those
        narrators said (:attr:`~tokaido_rules.log.FeedShare.words`), used and added to
        (:meth:`take`)."""
        at: dict[int, tuple[Event, Mapping[str, Any], tuple[str, ...]]] | None = None
        parsed = []
        known = {} if read is None else read
        for text in lines:
            line = known.get(text)
            if line is None:
                if at is None:
                    at = {seq: (event, data, withheld)
                          for seq, event, data, withheld in shown}
                found = at.get(self._read)
                frozen = None
                if found is not None and not found[2]:
                    with contextlib.suppress(TypeError):
                        frozen = freeze_json(found[1])
                if found is not None and frozen is not None:
                    event = found[0]
                    line = SeatLine(self._read, event.TYPE, frozen, (), event)
                else:
                    obj = _parse_line(text, self._read + 2)
                    if obj.get("type") == TRAILER:
                        continue
                    line = _seat_event(obj, self._read + 2, self._read, self._registry,
                                       self._structurers)
                if read is not None:
                    read[text] = line
            parsed.append(line)
            self._read += 1
        return self.take(parsed, words)

    def take(self, lines: Iterable[SeatLine],
             words: Words | None = None) -> list[tuple[int, str]]:
        """:meth:`add` for lines already read. ``words``: what the narrators of the
        other copies of the game said of the same lines, used and added to: a step is
        told in their words when its lines are the very same objects (the same text in
        every copy, :attr:`~tokaido_rules.log.FeedShare.read`), the ruleset is the same
        and the states agree on all the words read of them (:func:`_who_key`); else
        in this narrator's own."""
        out: list[tuple[int, str]] = []
        told = self._told
        for line in lines:
            begins = told.get(line.type)
            if begins is None:
                begins = told[line.type] = issubclass(self._registry.events[line.type],
                                                      _TOLD)
            if begins:
                out += self._tell(words)
            self._step.append(line)
        out += self._tell(words)
        return out

    def _tell(self, words: Words | None = None) -> list[tuple[int, str]]:
        """Fold the step read so far and, past the setup, say it in words."""
        step, self._step = self._step, []
        if not step:
            return []
        before = state = self._state
        events = [line.event for line in step]
        for e in events:
            state = _seen_fold(state, e)
        self._state = state
        if not self._started:
            self._started = True
            if not issubclass(self._registry.events[step[0].type], _TOLD):
                return []
        if words is None or state.over:  # the end's words read more (the standings)
            return [(step[-1].seq + 1, self._words(step, events, before, state))]
        pieces, who_before = self._who
        if pieces is not before.pieces:
            who_before = _who_key(before)
        pieces = state.pieces
        who_after = who_before if pieces is before.pieces else _who_key(state)
        self._who = (pieces, who_after)
        lines = tuple(step)
        key = tuple(map(id, lines))
        ruleset = state.rules.ruleset
        found = words.get(key)
        if (found is not None and found[1] is ruleset and found[2] == who_before
                and found[3] == who_after and all(map(operator.is_, found[0], lines))):
            said = found[4]
        else:
            said = self._words(step, events, before, state)
            words[key] = (lines, ruleset, who_before, who_after, said)
        return [(step[-1].seq + 1, said)]

    @staticmethod
    def _words(step: list[SeatLine], events: list[Event | None], before: GameState,
               after: GameState) -> str:
        """The words of a step, read from its lines and the states around it."""
        # what a decision seen in part was, said only for such a one (rarely)
        first = events[0]
        unseen = "" if isinstance(first, _TOLD) else _unseen(step[0])
        return " ".join(_step_lines(events, before, after, first, unseen))


def _unseen(line: SeatLine) -> str:
    """A decision the seat saw only in part: who took it, and its type in words
    (``crossroads.take_amulet``: "take amulet"), as ``tokaido play`` says it."""
    seat = line.data.get("seat")
    what = line.type.rsplit(".", 1)[-1].replace("_", " ")
    return f"seat {seat}: {what}" if type(seat) is int else what


def _seat_views(game: Game, seat: int) -> list[Scene]:
    """The seat's view at every frame of a full game."""
    events = game.events
    state = initial_state(game.state.rules, game.seed)
    out = []
    for a, b in _steps(events):
        for e in events[a:b]:
            state = fold(state, e)
        out.append(scene(Game(state, ()).view(seat)))
    return out


def frames(subject: Game | SeatCopy, seat: int | None = None) -> list[dict[str, Any]]:
    """The frames of a game (``seat`` ``None``: everything; else what ``seat`` saw) or
    of a seat's copy: per point, ``svg``, ``lines``, ``table`` and ``caption``."""
    if isinstance(subject, SeatCopy):
        return _copy_frames(subject)
    if seat is None:
        return _game_frames(subject)
    copy = load_seat_copy(dump_log(subject, viewer=seat))
    return _copy_frames(copy, _seat_views(subject, seat))


# --- the page ---------------------------------------------------------------------------


_CUT = "\x00"
"""Where a picture is cut into parts: before each group, rectangle, text and path, and
after each group (NUL never occurs in a picture's XML)."""


def _parts(picture: str) -> list[str]:
    """A picture cut into parts (str.replace: several times faster than a regex)."""
    for tag in ("<g>", "<g ", "<rect ", "<text ", "<path "):
        picture = picture.replace(tag, _CUT + tag)
    return [p for p in picture.replace("</g>", "</g>" + _CUT).split(_CUT) if p]


def _pack(choices: Iterable[tuple[str, str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """The page's data: each picture cut into parts, each distinct part kept once."""
    parts: dict[str, int] = {}
    out: dict[str, Any] = {"choices": [], "frames": {}}
    for key, label, found in choices:
        out["choices"].append({"key": key, "label": label})
        packed = []
        for frame in found:
            ids = []
            for part in _parts(frame["svg"]):
                ids.append(parts.setdefault(part, len(parts)))
            packed.append({**frame, "svg": _runs(ids)})
        out["frames"][key] = packed
    out["parts"] = list(parts)
    return out


def _runs(ids: list[int]) -> list[int]:
    """Part numbers as runs, ``[first, length, first, length, ...]``: a picture's parts
    are mostly numbered in order, so this keeps the page small."""
    out: list[int] = []
    for i in ids:
        if out and out[-2] + out[-1] == i:
            out[-1] += 1
        else:
            out += [i, 1]
    return out


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<`` at all (so no ``</script>``
    nor ``<!--``)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).replace("<", "\\u003c")


def _page(title: str, notice: str, data: dict[str, Any], legend: str = "") -> str:
    """The page: ``legend`` is :func:`~tokaido_rules.render.legend_html` (no secret in
    it: the road's kinds of space, the seats' colours, the souvenir families)."""
    return (_TEMPLATE.replace("__TITLE__", escape(title))
            .replace("__NOTICE__", escape(notice))
            .replace("__LEGEND__", legend)
            .replace("__DATA__", _script_json(data)))


def _title(ruleset_ids: Sequence[str], players: int) -> str:
    return f"Tokaido replay · {players} players · {', '.join(ruleset_ids)}"


def _analysed(frames_: list[dict[str, Any]], marks: dict[int, dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """The frames with the analysis of the decision each starts with, where analysed."""
    return [{**f, "analysis": marks[n]} if n in marks else f for n, f in enumerate(frames_)]


def _analysis_marks(doc: Mapping[str, Any], events: Sequence[Event | None],
                    kinds: Sequence[type[Event]], players: int,
                    ids: Sequence[str]) -> dict[int, dict[str, Any]]:
    """By frame number, the analysed decision (an item of the analysis document's
    ``decisions``, as :func:`~tokaido_rules.analysis.load_analysis` checked it) that
    the frame's step starts with. An analysis of another game (other players, plugins,
    or a decision that is not the analysed seat's action at its seq) raises
    :class:`~tokaido_rules.analysis.AnalysisError`."""
    from .analysis import AnalysisError
    from .wire import encode_action

    if doc["players"] != players or list(doc["plugins"]) != list(ids):
        raise AnalysisError(f"the analysis is of a game of {doc['players']} players with "
                            f"{', '.join(map(str, doc['plugins']))}, not of this log")
    starts = {a: n for n, (a, _) in enumerate(_steps(kinds)) if n > 0}
    out: dict[int, dict[str, Any]] = {}
    for item in doc["decisions"]:
        seq = item["seq"]
        event = events[seq] if 0 <= seq < len(events) else None
        if seq not in starts or not isinstance(event, Action) or event.seat != doc["seat"]:
            raise AnalysisError(f"the analysis has a decision of seat {doc['seat']} at seq "
                                f"{seq}, which this log does not have")
        played = item.get("played")
        shown = item["actions"][played].get("action") if played is not None else None
        if shown is not None and shown != encode_action(event):
            raise AnalysisError(f"the analysis's action played at seq {seq} is not this "
                                "log's")
        out[starts[seq]] = {k: item.get(k) for k in (
            "seq", "mark", "lost", "win", "best", "played")} | {"actions": [
                {k: a[k] for k in ("label", "playouts", "margin", "margin_low",
                                   "margin_high", "win", "win_low", "win_high")}
                for a in item["actions"]]}
    return out


def replay_html(game: Game, seats: Sequence[int] | None = None, *,
                everything: bool = True, analysis: Mapping[str, Any] | None = None) -> str:
    """The viewer page of a full game: each of ``seats`` (default: every seat) to
    choose from, and, with ``everything``, the whole record (the file then holds every
    secret, and the page says so). Without it the file holds only what those seats saw.

    ``analysis`` (an analysis document, :func:`~tokaido_rules.analysis.load_analysis`)
    shows its seat's marks and per-action figures at each analysed step, in the whole
    record and in that seat's frames only (the figures tell what the seat held); a page
    without them refuses it (:class:`~tokaido_rules.analysis.AnalysisError`)."""
    chosen = list(range(game.players) if seats is None else seats)
    for s in chosen:
        game.view(s)  # an unknown seat is refused before any work
    marks: dict[int, dict[str, Any]] = {}
    if analysis is not None:
        from .analysis import AnalysisError

        if not everything and analysis["seat"] not in chosen:
            raise AnalysisError(f"the analysis is of seat {analysis['seat']}, which this "
                                "page does not show")
        marks = _analysis_marks(analysis, game.events, [type(e) for e in game.events],
                                game.players, game.ruleset.ids)
    choices = [("all", "everything (the whole record)",
                _analysed(frames(game), marks))] if everything else []
    choices += [(str(s), f"seat {s}", _analysed(frames(game, s), marks)
                 if analysis is not None and s == analysis["seat"] else frames(game, s))
                for s in chosen]
    if not choices:
        raise ValueError("nothing to show: no seat and not everything")
    if everything:
        notice = ("This page was made from a full log: it is the whole record, and it can "
                  "show every seat's secret cards. Choose a seat to see what it saw.")
    else:
        names = ", ".join(str(s) for s in chosen)
        notice = f"This page holds only what seat(s) {names} could see."
    return _page(_title(game.ruleset.ids, game.players), notice, _pack(choices),
                 legend_html(Game(initial_state(game.state.rules, 0), ())))


def seat_copy_html(copy: SeatCopy, analysis: Mapping[str, Any] | None = None) -> str:
    """The viewer page of a seat's copy (or of the public copy): that seat only (every
    seat's view in common), holding nothing else; with the ``analysis`` of that seat's
    decisions (:func:`replay_html`), which another seat's (or the public) copy refuses."""
    s = copy.viewer
    if analysis is not None:
        from .analysis import AnalysisError

        if analysis["seat"] != s:
            whose = "the public copy" if isinstance(s, str) else f"seat {s}'s copy"
            raise AnalysisError(f"the analysis is of seat {analysis['seat']}: it cannot be "
                                f"shown with {whose}")
        registry = copy.ruleset.registry
        marks = _analysis_marks(analysis, [line.event for line in copy.lines],
                                [registry.events[line.type] for line in copy.lines],
                                copy.players, copy.ruleset.ids)
        notice = (f"This page was made from seat {s}'s copy of the log: it holds only "
                  f"what seat {s} could see, and the analysis of its decisions.")
        data = _pack([(str(s), f"seat {s}", _analysed(frames(copy), marks))])
    elif isinstance(s, str):
        notice = ("This page was made from the public copy of the log: it holds only what "
                  "every seat could see, as a spectator sees it.")
        data = _pack([(s, "spectator", frames(copy))])
    else:
        notice = (f"This page was made from seat {s}'s copy of the log: it holds only "
                  f"what seat {s} could see.")
        data = _pack([(str(s), f"seat {s}", frames(copy))])
    return _page(_title(copy.ruleset.ids, copy.players), notice, data,
                 legend_html(Game(initial_state(copy.rules(), 0), ())))


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { font-family: Helvetica, Arial, sans-serif; margin: 0; background: #f6f1e6;
       color: #2b2b2b; }
header, main { max-width: 1240px; margin: 0 auto; padding: 8px 16px; }
h1 { font-size: 20px; margin: 8px 0; }
#notice { font-size: 13px; color: #5a5a5a; margin: 0 0 8px; }
#controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#controls button { font-size: 15px; padding: 4px 12px; }
#slider { flex: 1; min-width: 200px; }
#caption { font-size: 14px; margin: 6px 0; }
#board svg { width: 100%; height: auto; display: block; }
#lines { font-size: 15px; background: #fffaf0; border: 1px solid #d8d2c4;
         border-radius: 8px; padding: 8px 12px; margin: 8px 0; min-height: 1.4em; }
#lines p { margin: 2px 0; }
table { border-collapse: collapse; font-size: 14px; margin: 8px 0; }
#scores-box { overflow-x: auto; max-width: 100%; }
th, td { border-bottom: 1px solid #d8d2c4; padding: 4px 10px; text-align: left; }
td.points, td.coins, td.rank, td.category { text-align: right; }
tr.winner td { background: #fbeab0; font-weight: bold; }
#outcome { font-size: 16px; font-weight: bold; color: #7a5c00; margin: 8px 0 0; }
#legend { font-size: 13px; margin: 8px 0 16px; }
#legend ul { list-style: none; padding: 0; margin: 6px 0; display: flex; flex-wrap: wrap;
             gap: 4px 16px; }
#legend li { display: flex; align-items: center; gap: 6px; }
#analysis { background: #fffaf0; border: 1px solid #d8d2c4; border-radius: 8px;
            padding: 6px 12px; margin: 8px 0; }
#analysis[hidden] { display: none; }
#mark { font-weight: bold; margin: 4px 0; }
#mark[data-mark="best"] { color: #1f6f2a; }
#mark[data-mark="inaccuracy"] { color: #9a6a00; }
#mark[data-mark="mistake"] { color: #a11d1d; }
#figures td.num { text-align: right; }
#figures tr.best td { font-weight: bold; }
#figures tr.played td:first-child::before { content: "\\25B6  "; }
</style>
</head>
<body>
<header>
<h1>__TITLE__</h1>
<p id="notice">__NOTICE__</p>
<div id="controls">
<label>Seat <select id="seat"></select></label>
<button id="first" title="Home">&#x25C0;&#x25C0; first</button>
<button id="prev" title="&#x2190;">&#x25C0; previous</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="decision">
<button id="next" title="&#x2192;">next &#x25B6;</button>
<button id="last" title="End">last &#x25B6;&#x25B6;</button>
</div>
<div id="caption"></div>
</header>
<main>
<div id="lines"></div>
<section id="analysis" hidden><p id="mark"></p>
<table id="figures"><thead><tr><th>Action</th><th>Margin</th><th>95% interval</th>
<th>Win</th><th>95% interval</th><th>Playouts</th></tr></thead><tbody></tbody></table>
</section>
<p id="outcome"></p>
<div id="scores-box"><table id="scores"><thead><tr></tr></thead><tbody></tbody></table></div>
<div id="board"></div>
<details id="legend"><summary>Legend</summary>__LEGEND__</details>
</main>
<script type="application/json" id="replay-data">__DATA__</script>
<script>
(function () {
  "use strict";
  var holder = document.getElementById("replay-data");
  var D = JSON.parse(holder.textContent);
  holder.parentNode.removeChild(holder);  // the document holds only the frame on show
  var $ = function (id) { return document.getElementById(id); };
  var choice = D.choices[0].key, at = 0;
  D.choices.forEach(function (c) {
    var o = document.createElement("option");
    o.value = c.key; o.textContent = c.label; $("seat").appendChild(o);
  });
  function cell(tr, text, cls) {
    var td = document.createElement("td"); td.textContent = String(text);
    if (cls) { td.className = cls; } tr.appendChild(td);
  }
  function show() {
    var list = D.frames[choice];
    at = Math.max(0, Math.min(at, list.length - 1));
    var f = list[at];
    $("slider").max = String(list.length - 1); $("slider").value = String(at);
    $("caption").textContent = f.caption;
    var svg = [];
    for (var k = 0; k < f.svg.length; k += 2) {
      for (var j = 0; j < f.svg[k + 1]; j++) { svg.push(D.parts[f.svg[k] + j]); }
    }
    $("board").innerHTML = svg.join("");
    var lines = $("lines"); lines.textContent = "";
    f.lines.forEach(function (t) {
      var p = document.createElement("p"); p.textContent = t; lines.appendChild(p);
    });
    var body = $("scores").tBodies[0]; body.textContent = "";
    $("outcome").textContent = f.outcome || "";
    var cats = f.over && f.table.length ? f.table[0].categories.map(function (c) {
      return c[0]; }) : [];
    var head = $("scores").tHead.rows[0]; head.textContent = "";
    ["Rank", "Seat", "Traveller", "Points"].concat(cats, ["Coins", "Collection"]).forEach(
      function (h) { var th = document.createElement("th"); th.textContent = h;
                     head.appendChild(th); });
    f.table.forEach(function (r) {
      var tr = document.createElement("tr"); tr.setAttribute("data-seat", String(r.seat));
      tr.setAttribute("data-rank", String(r.rank));
      tr.setAttribute("data-winner", r.winner ? "true" : "false");
      if (r.winner) { tr.className = "winner"; }
      cell(tr, (r.winner ? "\u2605 " : "") + r.rank, "rank"); cell(tr, r.seat);
      cell(tr, r.traveller); cell(tr, r.points, "points");
      if (f.over) { r.categories.forEach(function (c) { cell(tr, c[1], "category"); }); }
      cell(tr, r.coins, "coins"); cell(tr, r.collection); body.appendChild(tr);
    });
    showAnalysis(f.analysis);
    $("first").disabled = $("prev").disabled = at === 0;
    $("last").disabled = $("next").disabled = at === list.length - 1;
  }
  function num(x, digits) { return x.toFixed(digits); }
  function pct(x) { return Math.round(x * 100) + "%"; }
  function showAnalysis(a) {
    var box = $("analysis"), body = $("figures").tBodies[0];
    body.textContent = "";
    if (!a) { box.hidden = true; $("mark").removeAttribute("data-mark"); return; }
    box.hidden = false;
    var words = {best: "Best", inaccuracy: "Inaccuracy", mistake: "Mistake"};
    var said = a.mark ? words[a.mark] : "No mark (too close to call)";
    if (a.lost !== null && a.lost !== undefined) {
      said += " \u00b7 lost " + num(a.lost, 1) + " points";
    }
    said += " \u00b7 win " + pct(a.win) + " \u00b7 best: " + a.actions[a.best].label;
    $("mark").textContent = said;
    $("mark").setAttribute("data-mark", a.mark || "none");
    a.actions.forEach(function (e, i) {
      var tr = document.createElement("tr"); tr.setAttribute("data-index", String(i));
      var cls = []; if (i === a.best) { cls.push("best"); }
      if (i === a.played) { cls.push("played"); }
      tr.className = cls.join(" ");
      cell(tr, e.label); cell(tr, num(e.margin, 2), "num margin");
      cell(tr, num(e.margin_low, 2) + " \u2013 " + num(e.margin_high, 2), "num");
      cell(tr, pct(e.win), "num win");
      cell(tr, pct(e.win_low) + " \u2013 " + pct(e.win_high), "num");
      cell(tr, e.playouts, "num playouts"); body.appendChild(tr);
    });
  }
  function go(n) { at = n; show(); }
  $("first").onclick = function () { go(0); };
  $("prev").onclick = function () { go(at - 1); };
  $("next").onclick = function () { go(at + 1); };
  $("last").onclick = function () { go(D.frames[choice].length - 1); };
  $("slider").oninput = function () { go(parseInt($("slider").value, 10)); };
  $("seat").onchange = function () { choice = $("seat").value; show(); };
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") { return; }
    if (e.key === "ArrowLeft") { go(at - 1); } else if (e.key === "ArrowRight") { go(at + 1); }
    else if (e.key === "Home") { go(0); } else if (e.key === "End") { $("last").onclick(); }
  });
  show();
})();
</script>
</body>
</html>
"""

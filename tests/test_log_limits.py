"""Untrusted logs (issue #32): loading refuses what no real game holds, quickly.

Every refusal is a typed :class:`LogError` naming the line, raised before any game is
returned: an agenda step of a kind no plugin registered, a key named twice in one JSON
object, a plugin listed twice, and logs beyond the limits of ``tokaido_rules.log``
(``MAX_EVENTS``, ``MAX_CARDS``, ``MAX_LOG_CARDS``, ``MAX_IDLE``), which are set far above
what real games reach. The memory of lines seen before keys on the text as the writer
writes it, so the same content spelt otherwise can neither pass for another line nor
take more room. No test times anything: each shows that a forged log is refused, or
that a real one loads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tokaido_rules import Game, Ruleset, new_game
from tokaido_rules import log as log_module
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.errors import LogError, LogFormatError, LogStateError
from tokaido_rules.log import (
    MAX_CARDS,
    MAX_EVENTS,
    MAX_IDLE,
    MAX_LOG_CARDS,
    dump_log,
    dump_state,
    load_log,
    load_seat_copy,
    load_state,
    read_log,
    verify_log,
)

GOLDEN = Path(__file__).parent / "golden"
FIXTURES = Path(__file__).parent / "fixtures"

Record = dict[str, Any]


def played(players: int = 3, seed: int = 5, plugins: Sequence[str] = ("base",)) -> Game:
    """A game played to the end by a random bot."""
    game = new_game(players, seed=seed, plugins=Ruleset.build(plugins))
    bot = RandomBot(seed)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
    return game


@pytest.fixture(scope="module")
def game() -> Game:
    return played()


@pytest.fixture(scope="module")
def full(game: Game) -> str:
    return dump_log(game)


@pytest.fixture(scope="module")
def seat(game: Game) -> str:
    return dump_log(game, 0)


def records(text: str) -> list[Record]:
    return [json.loads(line) for line in text.splitlines()]


def text_of(objs: Sequence[Record]) -> str:
    return "".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for o in objs)


def event(kind: str, data: Record, v: int = 1, **more: Any) -> Record:
    return {"seq": -1, "type": kind, "v": v, "data": data, **more}


def before_first_move(text: str) -> tuple[Record, list[Record]]:
    """The header and the events of a log up to its first move (the setup): a game
    waiting for its first decision."""
    objs = records(text)
    first = next(i for i, o in enumerate(objs) if o.get("type") == "core.move")
    return objs[0], objs[1:first]


def forged(text: str, extra: Sequence[Record]) -> str:
    """The log's setup, then ``extra`` events, numbered on (no trailer: a game in
    progress, waiting for its first move)."""
    head, setup = before_first_move(text)
    events = [{**o, "seq": seq} for seq, o in enumerate([*setup, *extra])]
    return text_of([head, *events])


def line_of(text: str, seq: int) -> int:
    """The line number of the event ``seq`` (line 1 is the header)."""
    return seq + 2


def setup_length(text: str) -> int:
    return len(before_first_move(text)[1])


def still_loads(full: str, game: Game) -> None:
    """Nothing is left behind by a refusal: the genuine log loads as before."""
    assert load_log(full).state == game.state


def noop_moves(text: str, count: int) -> list[Record]:
    """``count`` moves of the rearmost traveller to where it already stands."""
    state = load_log(forged(text, [])).state
    piece = state.rearmost()
    where = state.pieces[piece]
    seat_of = where.seat if where.seat is not None else 0
    return [event("core.move", {"seat": seat_of, "piece": piece, "position": where.position,
                                "slot": where.slot})] * count


def coins(count: int, piece: int = 0) -> list[Record]:
    return [event("core.coins", {"piece": piece, "delta": 1})] * count


def deck(zone: str, cards: Sequence[str]) -> Record:
    return event("core.deck_set", {"zone": zone, "cards": list(cards), "shuffled": False,
                                   "count": len(cards)}, v=2)


def move(src: str, dst: str, cards: Sequence[str]) -> Record:
    return event("core.cards_moved", {"src": src, "dst": dst, "cards": list(cards),
                                      "from_top": False, "bottom": True, "chance": None,
                                      "count": len(cards)}, v=2)


def withheld_move(src: str, dst: str, count: int) -> Record:
    return event("core.cards_moved", {"src": src, "dst": dst, "from_top": False,
                                      "bottom": True, "chance": None, "count": count},
                 v=2, withheld=["cards"])


# --- real games stay far from the limits ---------------------------------------------------


def test_real_games_load_far_within_the_limits() -> None:
    """Every golden log and fixture loads (full logs with load_log, golden ones verified
    too; seats' copies with load_seat_copy), with a tenth of MAX_EVENTS events or fewer,
    and no deck or move near MAX_CARDS."""
    golden = sorted(GOLDEN.glob("*/*.full.jsonl"))
    fulls = [*golden, *sorted(FIXTURES.glob("*.jsonl"))]
    copies = sorted(GOLDEN.glob("*/*.seat*.jsonl"))
    assert len(golden) > 15 and len(copies) > 40
    for path in fulls:
        game = load_log(path)
        assert path not in golden or verify_log(path).ok, path
        assert len(game.events) < MAX_EVENTS // 10
        for obj in records(path.read_text(encoding="utf-8"))[1:]:
            assert len(obj["data"].get("cards", ())) < MAX_CARDS // 10
    for path in copies:
        assert len(load_seat_copy(path).lines) < MAX_EVENTS // 10


def test_long_real_games_load_in_every_copy() -> None:
    """The longest rulesets, five players: the full log, each seat's copy and the public
    copy load."""
    for plugins in [("base", "crossroads", "return-journey"),
                    ("base", "crossroads", "new-encounters", "return-journey",
                     "rare-and-precious", "good-luck")]:
        game = played(5, seed=3, plugins=plugins)
        assert load_log(dump_log(game)).state == game.state
        for viewer in [*range(5), "public"]:
            assert len(load_seat_copy(dump_log(game, viewer)).lines) == len(game.events)


# --- item 1: agenda steps ------------------------------------------------------------------


def with_step(text: str, change: Callable[[Record], None]) -> tuple[str, int]:
    """The log with the first step of its first non-empty agenda past the setup changed,
    and that line's number."""
    objs = records(text)
    start = setup_length(text) + 1
    index = next(i for i, o in enumerate(objs) if i > start
                 and o["type"] == "core.agenda_set" and o["data"]["steps"])
    changed = json.loads(json.dumps(objs[index]))
    change(changed["data"]["steps"][0])
    return text_of([*objs[:index], changed, *objs[index + 1:]]), index + 1


def test_an_unknown_step_kind_is_refused_by_every_reader(full: str, seat: str,
                                                         game: Game) -> None:
    """An agenda step of a kind no enabled plugin registered is a LogFormatError naming
    its line, in load_log, read_log, verify_log and load_seat_copy (once it was a
    KeyError, later, when the HTML viewer drew the game)."""
    text, line = with_step(full, lambda s: s.update(kind="nope.step"))
    for read in (load_log, read_log, verify_log):
        with pytest.raises(LogFormatError, match=re.escape("unknown step kind 'nope.step'")) as err:
            read(text)
        assert err.value.line == line
    copy, line = with_step(seat, lambda s: s.update(kind="nope.step"))
    with pytest.raises(LogFormatError, match=re.escape("unknown step kind 'nope.step'")) as err:
        load_seat_copy(copy)
    assert err.value.line == line
    still_loads(full, game)


def test_a_step_kind_is_checked_against_each_ruleset_even_from_memory() -> None:
    """The memory of lines seen is kept per set of event types and step kinds: an agenda
    line that is valid under base + initiation (which registers the step kind
    initiation.start and no event type) is refused under base alone, after loading it."""
    variant = dump_log(played(plugins=("base", "initiation")))
    text, line = with_step(variant, lambda s: s.update(kind="initiation.start"))
    assert load_log(text)  # the step kind is registered: the line is fine, and remembered
    base = dump_log(played())
    objs, line_text = records(base), text.splitlines()[line - 1]
    index = next(i for i, o in enumerate(objs) if i > setup_length(base) + 1
                 and o["type"] == "core.agenda_set")
    rest = line_text[line_text.index(",") + 1:]  # the text after {"seq":N,
    lines = base.splitlines(keepends=True)
    lines[index] = f'{{"seq":{index - 1},{rest}\n'
    problem = re.escape("unknown step kind 'initiation.start'")
    with pytest.raises(LogFormatError, match=problem) as err:
        load_log("".join(lines))
    assert err.value.line == index + 1


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("seat", 3, "for seat 3, not a seat of this 3-player game"),
    ("seat", -1, "for seat -1"),
    ("piece", 3, "about traveller 3, not one of the game's 3"),
    ("piece", -2, "about traveller -2"),
])
def test_a_step_for_a_seat_or_traveller_not_in_the_game_is_refused(
        full: str, game: Game, field: str, value: int, problem: str) -> None:
    """A step's seat must be a seat of the game (or none), its traveller one of the
    game's pieces (or -1, none): else a LogStateError naming the line, before the viewer
    would index a traveller that is not there."""
    text, line = with_step(full, lambda s: s.update({field: value}))
    with pytest.raises(LogStateError, match=problem) as err:
        load_log(text)
    assert err.value.line == line
    still_loads(full, game)


def test_a_snapshot_with_an_unknown_step_kind_is_refused(game: Game) -> None:
    """load_state checks the agenda's step kinds against the rules too."""
    state = game.state
    text = dump_state(state)
    obj = json.loads(text)
    obj["agenda"] = [{"kind": "nope.step", "piece": -1, "seat": None, "data": {}}]
    with pytest.raises(LogFormatError, match=re.escape("bad state: unknown step kind 'nope.step'")):
        load_state(json.dumps(obj), state.rules)
    assert load_state(text, state.rules) == state


# --- item 2: limits --------------------------------------------------------------------------


def test_more_than_max_events_is_refused_at_the_first_line_over(full: str) -> None:
    """A log of exactly MAX_EVENTS events loads; one more is a LogFormatError naming the
    line of the event past the limit, in a full log and in a seat's copy."""
    setup = setup_length(full)
    at_limit = forged(full, coins(MAX_EVENTS - setup))
    assert len(load_log(at_limit).events) == MAX_EVENTS
    over = forged(full, coins(MAX_EVENTS - setup + 1))
    for read in (load_log, read_log):
        with pytest.raises(LogFormatError, match=f"more than {MAX_EVENTS} events") as err:
            read(over)
        assert err.value.line == line_of(over, MAX_EVENTS)
    head, *events = over.splitlines(keepends=True)
    copy = json.loads(head)
    del copy["seed"]
    copy["viewer"] = 0
    copy_text = json.dumps(copy) + "\n" + "".join(events)
    with pytest.raises(LogFormatError, match=f"more than {MAX_EVENTS} events") as err:
        load_seat_copy(copy_text)
    assert err.value.line == line_of(over, MAX_EVENTS)


def test_a_deck_or_move_of_more_than_max_cards_is_refused(full: str, seat: str) -> None:
    """One event may name or count at most MAX_CARDS cards: a bigger deck, a bigger
    move, or (in a seat's copy) a bigger count of withheld cards is refused at its line
    (a forged copy of 0.35 MB once made the viewer take 190 MB and 107 s this way)."""
    names = [f"card.{i}" for i in range(MAX_CARDS + 1)]
    assert load_log(forged(full, [deck("x.pile", names[:MAX_CARDS])]))
    cases = [
        (forged(full, [deck("x.pile", names)]), load_log, "names 1001 cards"),
        (forged(full, [deck("x.pile", names[:MAX_CARDS]),
                       move("x.pile", "x.pile", names)]), load_log, "names 1001 cards"),
        (forged(seat, [event("core.deck_set", {"zone": "x.pile", "shuffled": True,
                                               "count": 10_000}, v=2,
                             withheld=["cards"])]),
         load_seat_copy, "counts 10000 cards"),
        (forged(seat, [withheld_move("base.meals", "x.pile", MAX_CARDS + 1)]),
         load_seat_copy, "counts 1001 cards"),
    ]
    for text, read, problem in cases:
        with pytest.raises(LogFormatError, match=f"{problem}, more than {MAX_CARDS}") as err:
            read(text)
        assert err.value.line == text.count("\n")  # the last line, the forged one


def test_a_zone_of_more_than_max_cards_is_refused(full: str, seat: str) -> None:
    """No zone may hold more than MAX_CARDS cards: a move onto a full zone is refused
    at its line, before it is folded; in a seat's copy, where the viewer makes
    placeholders for cards it counts but does not know, likewise."""
    names = [f"card.{i}" for i in range(MAX_CARDS)]
    text = forged(full, [deck("x.a", names), deck("x.b", ["card.x"]),
                         move("x.b", "x.a", ["card.x"])])
    with pytest.raises(LogFormatError, match=re.escape("zone 'x.a' would hold 1001 cards")) as err:
        load_log(text)
    assert err.value.line == text.count("\n")
    copy = forged(seat, [withheld_move("x.b", "x.a", 600), withheld_move("x.b", "x.a", 600)])
    with pytest.raises(LogFormatError, match=re.escape("zone 'x.a' would hold 1200 cards")) as err:
        load_seat_copy(copy)
    assert err.value.line == copy.count("\n")


def over_by(text: str, step: int) -> int:
    """Which forged event of ``step`` cards each, counted from 0 after the setup of
    ``text``, takes the log's decks and moves over MAX_LOG_CARDS."""
    setup: int = sum(o["data"]["count"] for o in before_first_move(text)[1]
                     if o["type"] in ("core.deck_set", "core.cards_moved"))
    return (MAX_LOG_CARDS - setup) // step


def test_decks_and_moves_of_more_than_max_log_cards_in_all_are_refused(
        full: str, seat: str, game: Game) -> None:
    """The decks and moves of a log may name or count MAX_LOG_CARDS cards in all: moving
    a full zone back and forth costs in proportion to both, and in a seat's copy the
    viewer's cost grows with each card it must place. Beyond it, a LogFormatError names
    the line."""
    names = [f"card.{i}" for i in range(MAX_CARDS)]
    decks = [deck(f"x.{i}", names) for i in range(MAX_LOG_CARDS // MAX_CARDS + 1)]
    text = forged(full, decks)
    with pytest.raises(LogFormatError, match=f"more than {MAX_LOG_CARDS} cards in all") as err:
        load_log(text)
    assert err.value.line == line_of(text, setup_length(full) + over_by(full, MAX_CARDS))
    back_and_forth = [deck("core.collection.0", names)] + [
        withheld_move(*(("core.collection.0", "x.b") if i % 2 == 0
                        else ("x.b", "core.collection.0")), MAX_CARDS)
        for i in range(50)]
    copy = forged(seat, back_and_forth)
    with pytest.raises(LogFormatError, match="cards in all") as err:
        load_seat_copy(copy)
    assert err.value.line == line_of(copy, setup_length(seat) + over_by(seat, MAX_CARDS))
    still_loads(full, game)


def test_a_run_of_moves_that_change_nothing_is_refused(full: str, seat: str,
                                                       game: Game) -> None:
    """Decisions that change nothing (a traveller moved to where it stands: each one a
    frame for the viewer to draw) cannot run on: MAX_IDLE events after a point that
    leave the state as it was, its counters aside, are a LogFormatError naming the line
    where that is found, in a full log and in a seat's copy. A thousand such moves once
    took the viewer 32 s."""
    run = noop_moves(full, 1000)
    text = forged(full, run)
    with pytest.raises(LogFormatError, match=f"last {MAX_IDLE} events change nothing") as err:
        load_log(text)
    assert err.value.line is not None
    assert err.value.line <= line_of(text, setup_length(full) + 2 * MAX_IDLE)
    assert (err.value.line - 1) % MAX_IDLE == 0
    with pytest.raises(LogFormatError, match="change nothing") as err:
        load_seat_copy(forged(seat, run))
    assert err.value.line is not None
    assert err.value.line <= line_of(text, setup_length(seat) + 2 * MAX_IDLE)
    assert load_log(forged(full, run[:MAX_IDLE // 2]))  # a shorter run is not refused
    still_loads(full, game)


def test_moves_done_and_undone_are_refused_too(full: str) -> None:
    """Forth and back, forth and back: every event changes the state, but no MAX_IDLE of
    them change it in all, so this is refused as well."""
    state = load_log(forged(full, [])).state
    piece = state.rearmost()
    p = state.pieces[piece]
    seat_of = p.seat if p.seat is not None else 0
    forth = event("core.move", {"seat": seat_of, "piece": piece,
                                "position": p.position + 1, "slot": 0})
    back = event("core.move", {"seat": seat_of, "piece": piece, "position": p.position,
                               "slot": p.slot})
    text = forged(full, [forth, back] * 300)
    with pytest.raises(LogFormatError, match="change nothing"):
        load_log(text)
    assert load_log(forged(full, [forth, back] * 10))


# --- item 3: the memory of lines keys on the writer's text ------------------------------------


def respelt(line: str) -> list[str]:
    """Other texts of the same JSON as an event line: an escaped key, a space, keys in
    another order."""
    obj = json.loads(line)
    head, rest = line.split(",", 1)
    reordered = {"seq": obj["seq"], "v": obj["v"], "type": obj["type"], "data": obj["data"]}
    return [
        head + "," + rest.replace('"type"', '"typ\\u0065"', 1),
        head + "," + rest.replace('"v":', '"v": ', 1),
        json.dumps(reordered, separators=(",", ":")),
    ]


def test_the_same_content_spelt_otherwise_is_not_remembered(full: str, game: Game) -> None:
    """A line that says what a remembered line says in other text (an escaped key, a
    space, another order of keys) loads as the same event but takes no entry in the
    memory of lines seen: the memory holds the writer's text only."""
    log_module._SEEN.clear()
    load_log(full)
    (memory,) = log_module._SEEN.values()
    before = dict(memory.events)
    lines = full.splitlines()
    changed = list(lines)
    for index in range(1, len(lines) - 1):
        changed[index] = respelt(lines[index])[index % 3]
    assert load_log("\n".join(changed) + "\n").state == game.state
    assert memory.events == before
    assert not any("\\" in text or " " in text for text in memory.events)


def test_an_escaped_second_seq_is_refused_and_never_remembered(full: str) -> None:
    """``"se\\u0071"`` is ``"seq"``: a line naming its seq again in escaped text (which
    the old text test for a second ``"seq"`` did not see) is refused as a key named
    twice, where it stands and at any other seq, so no copy of it can pass from memory
    with a seq it does not hold."""
    lines = full.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"type":"core.scored"' in line)
    seq = index - 1
    doubled = lines[index].rstrip("\n")[:-1] + f',"se\\u0071":{seq}}}\n'
    for at in (index, index + 1):
        text = doubled.replace(f'{{"seq":{seq},', f'{{"seq":{at - 1},', 1)
        with pytest.raises(LogFormatError, match="'seq' appears twice in one object") as err:
            load_log("".join([*lines[:at], text, *lines[at + 1:]]))
        assert err.value.line == at + 1
    for memory in log_module._SEEN.values():
        assert not any("\\u0071" in text for text in memory.events)


# --- item 4: keys named twice, plugins listed twice --------------------------------------------


def twice(line: str, key: str, value: str, where: str = "") -> str:
    """``line`` with ``"key":value`` added again, after the first ``where`` (default:
    at the end of the line's object)."""
    if not where:
        return line[:-1] + f',"{key}":{value}}}'
    at = line.index(where) + len(where)
    return line[:at] + f'"{key}":{value},' + line[at:]


def test_a_key_named_twice_is_refused_in_any_line(full: str, seat: str, game: Game) -> None:
    """A key twice in one object of any line (the header, an event line, its data, a
    step of an agenda; spelt plainly or escaped) is a LogFormatError naming the line and
    the key: JSON readers differ on which value they keep."""
    lines = full.splitlines()
    coins = next(i for i, line in enumerate(lines) if '"type":"core.coins"' in line)
    agenda = next(i for i, line in enumerate(lines) if '"kind":' in line)
    cases = [
        (0, twice(lines[0], "seed", "7"), "seed"),
        (0, twice(lines[0], "travellers", "null", where='"setup":{'), "travellers"),
        (coins, twice(lines[coins], "seq", str(coins - 1)), "seq"),
        (coins, twice(lines[coins], "delta", "9", where='"data":{'), "delta"),
        (coins, twice(lines[coins], "delt\\u0061", "9", where='"data":{'), "delta"),
        (coins, lines[coins].replace('"type":', '"typ\\u0065":"core.coins","type":', 1),
         "type"),
        (agenda, twice(lines[agenda], "kind", '"base.inn"', where='"steps":[{'), "kind"),
    ]
    for index, line, key in cases:
        text = "\n".join([*lines[:index], line, *lines[index + 1:]]) + "\n"
        for read in (load_log, verify_log):
            with pytest.raises(LogFormatError, match=f"key '{key}' appears twice") as err:
                read(text)
            assert err.value.line == index + 1
    seat_lines = seat.splitlines()
    doubled = twice(seat_lines[coins], "delta", "9", where='"data":{')
    with pytest.raises(LogFormatError, match="key 'delta' appears twice") as err:
        load_seat_copy("\n".join([*seat_lines[:coins], doubled, *seat_lines[coins + 1:]]))
    assert err.value.line == coins + 1
    state = json.loads(dump_state(game.state))
    with pytest.raises(LogFormatError, match="key 'turn' appears twice"):
        load_state(twice(json.dumps(state, separators=(",", ":")), "turn", "0"),
                   game.state.rules)
    still_loads(full, game)


def test_a_key_named_twice_is_found_however_the_line_is_shaped(full: str) -> None:
    """The count of keys that tells the usual line at once is exact or too low, never
    too high: a field left to its default does not hide a key named twice elsewhere,
    in a deck, in an agenda step without data, or in an object nested in a step's
    data."""
    cases = [
        ('{"zone":"x.a","zone":"x.b","cards":["c"],"count":1}', "core.deck_set", 2, "zone"),
        ('{"steps":[{"kind":"base.inn","kind":"base.inn","piece":0,"seat":0}]}',
         "core.agenda_set", 1, "kind"),
        ('{"steps":[{"kind":"base.inn","piece":0,"seat":0,"data":{"n":{"a":1,"a":2}}}]}',
         "core.agenda_set", 1, "a"),
        ('{"key":"x.map","value":{"a":{"b":1,"b":1}}}', "core.data_set", 1, "b"),
    ]
    setup = setup_length(full)
    for data, kind, v, key in cases:
        line = f'{{"seq":{setup},"type":"{kind}","v":{v},"data":{data}}}'
        text = forged(full, []) + line + "\n"
        with pytest.raises(LogFormatError, match=f"key '{key}' appears twice") as err:
            load_log(text)
        assert err.value.line == line_of(text, setup)
    nested = '{"key":"x.map","value":{"a":{"b":1,"c":1}}}'
    line = f'{{"seq":{setup},"type":"core.data_set","v":1,"data":{nested}}}'
    assert load_log(forged(full, []) + line + "\n").state.data["x.map"]["a"]["c"] == 1


def test_colons_and_braces_in_strings_are_no_repeated_keys(full: str) -> None:
    """The cheap test for repeated keys counts colons: a colon or a brace inside a string
    (here in plugin data, where a key may hold one too) is not a key, and such lines load."""
    data = [event("core.data_set", {"key": "x.note", "value": "a:b{c}"}),
            event("core.data_set", {"key": "x.map", "value": {"k:": "v:", "n": {"m:": 1}}}),
            event("core.data_set", {"key": "x.list", "value": [{"a": 1}, {"a": 2}]})]
    state = load_log(forged(full, data)).state
    assert state.data["x.note"] == "a:b{c}"
    assert state.data["x.map"]["n"]["m:"] == 1


def test_a_plugin_listed_twice_is_refused(full: str) -> None:
    """The header's plugins name each plugin once, whatever the versions."""
    lines = full.splitlines(keepends=True)
    for extra in ({"id": "base", "version": "1.1.0"}, {"id": "base", "version": "0.1"}):
        head = json.loads(lines[0])
        head["plugins"].append(extra)
        text = json.dumps(head) + "\n" + "".join(lines[1:])
        for read in (load_log, verify_log):
            with pytest.raises(LogFormatError, match="plugin 'base' is listed twice") as err:
                read(text)
            assert err.value.line == 1


def test_every_refusal_here_is_a_log_error_before_any_game(full: str, game: Game) -> None:
    """The forged logs of this file raise LogError subclasses only (no other exception,
    no game returned), and the genuine log loads the same after all of them."""
    forgeries = [
        forged(full, noop_moves(full, 300)),
        forged(full, coins(MAX_EVENTS)),
        forged(full, [deck("x.a", [f"c{i}" for i in range(MAX_CARDS + 1)])]),
        with_step(full, lambda s: s.update(kind="nope.step"))[0],
        twice(full.splitlines()[0], "seed", "1") + "\n" + "".join(
            full.splitlines(keepends=True)[1:]),
    ]
    for text in forgeries:
        with pytest.raises(LogError):
            load_log(text)
    still_loads(full, game)

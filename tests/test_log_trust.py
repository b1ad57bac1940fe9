"""Untrusted input (issue #19): logs prove themselves, and misbehaving plugins are named.

A game server reads logs it stored and plugins it did not write. Every log that was
changed, cut or malformed is either a typed :class:`LogError` or a failed verification
naming the first bad seq; none is accepted and none is a traceback. A plugin hook that
raises or returns the wrong type is a :class:`PluginError` naming the plugin and the hook.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from attrs import frozen

from tokaido_rules import (
    Game,
    GameState,
    PluginDefinitionError,
    PluginInfo,
    Ruleset,
    Setup,
    SetupError,
    Staged,
    Step,
    hookimpl,
    new_game,
)
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.cli import main
from tokaido_rules.errors import LogError, LogFormatError, LogStateError, PluginError
from tokaido_rules.events import Action, decisions
from tokaido_rules.log import dump_log, load_log, verify_log

# --- logs to tamper with ----------------------------------------------------------------


def finished(players: int, seed: int, plugins: Sequence[str] = ("base",),
             setup: Setup | None = None, decisions: int | None = None) -> Game:
    """A game played by a random bot, to the end or for ``decisions`` decisions."""
    game = new_game(players, seed=seed, plugins=Ruleset.build(plugins), setup=setup)
    bot = RandomBot(seed)
    n = 0
    while not game.is_over and (decisions is None or n < decisions):
        game = game.apply(next_action(bot, game))
        n += 1
    return game


@pytest.fixture(scope="module")
def base_log() -> str:
    return dump_log(finished(3, 5))


@pytest.fixture(scope="module")
def crossroads_game() -> Game:
    """A Crossroads game with several rolls of the Fortune die in the gaming room."""
    return finished(3, 20, ("base", "crossroads"))


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def text_of(objs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for o in objs)


def renumbered(objs: Sequence[dict[str, Any]]) -> str:
    """Event lines numbered 0, 1, ... again, and the trailer counting them: a change
    that keeps the file well formed, so that only verification can find it."""
    out = [objs[0]]
    for seq, obj in enumerate(objs[1:]):
        obj = {**obj, "seq": seq}
        if obj["type"] == "core.log_end":
            obj["data"] = {"events": seq}
        out.append(obj)
    return text_of(out)


def first_difference(original: str, tampered: str) -> int:
    """The seq of the first event line that differs in content (the seq aside)."""
    a = [(o["type"], o["v"], o["data"]) for o in records(original)[1:]]
    b = [(o["type"], o["v"], o["data"]) for o in records(tampered)[1:]]
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def outcome(text: str) -> tuple[str, object]:
    """("error", the LogError type) or ("failed", seq) or ("ok", None); any other
    exception fails the test."""
    try:
        result = verify_log(text)
    except LogError as exc:
        return ("error", type(exc))
    return ("ok", None) if result.ok else ("failed", result.seq)


def is_action(obj: dict[str, Any], events: dict[str, type]) -> bool:
    cls = events.get(obj["type"])
    return cls is not None and issubclass(cls, Action)


# --- the reproductions of the issue -------------------------------------------------------


def test_reproduction_logs_load_and_verify() -> None:
    """A game with list outcomes in Setup.chance (a shuffle, the queue, traveller offers,
    cards put under a deck) writes a log that loads (it raised a raw TypeError) and, the
    game over, verifies with every scripted outcome used."""
    start = new_game(3, seed=4, setup=Setup(chance={"queue": [(2, 1, 0)]}))
    assert load_log(dump_log(start)).state == start.state
    game = finished(3, 4)
    script: dict[str, list[Any]] = {}
    for event in game.events:
        kind = event.chance_kind()
        if kind is not None:
            script.setdefault(kind, []).append(event.chance_outcome())
    kinds = {kind.split(".")[0] for kind in script}
    assert {"shuffle", "queue", "travellers", "order"} <= kinds
    copy = new_game(3, seed=4, setup=Setup(chance=script))
    for decision in decisions(game.events):
        copy = copy.apply(decision)
    assert copy.events == game.events and not copy.state.script
    text = dump_log(copy)
    assert '"chance":{"shuffle.' in text
    assert load_log(text).state == copy.state
    assert verify_log(text).ok


def test_every_forged_die_roll_fails_at_the_roll(crossroads_game: Game) -> None:
    """A gaming room roll rewritten to another face, with the payout made consistent (an
    X turned into a 4 pays 8 coins), loads but fails verification at the roll: the
    outcome is drawn again from the seed (137 of 364 such forgeries passed)."""
    objs = records(dump_log(crossroads_game))
    rolls = [i for i, o in enumerate(objs) if o.get("type") == "crossroads.die_rolled"]
    assert len(rolls) >= 3
    forged = 0
    for i in rolls:
        face = objs[i]["data"]["face"]
        pays = objs[i + 1]["type"] == "core.coins" and objs[i + 1]["data"]["delta"] == 2 * face
        for other in sorted({0, 1, 2, 3, 4} - {face}):
            changed = [dict(o) for o in objs]
            changed[i] = {**objs[i], "data": {**objs[i]["data"], "face": other}}
            payout = {"seq": 0, "type": "core.coins", "v": 1,
                      "data": {"piece": objs[i]["data"]["piece"], "delta": 2 * other}}
            after = i + 2 if pays else i + 1
            middle = [payout] if other else []
            text = renumbered([*changed[:i + 1], *middle, *changed[after:]])
            if other > face:  # more coins never make a later payment impossible
                assert load_log(text).is_over
            assert outcome(text) == ("failed", i - 1)
            forged += 1
    assert forged == 4 * len(rolls)


def test_a_changed_seed_fails_at_the_first_shuffle(base_log: str) -> None:
    """The seed decides every outcome: a log whose seed was changed fails at seq 0."""
    objs = records(base_log)
    objs[0]["seed"] += 1
    assert outcome(text_of(objs)) == ("failed", 0)


def test_a_header_script_that_rigs_later_rolls_is_reported(crossroads_game: Game) -> None:
    """A script added to the header of a game in progress would decide its later rolls
    (every one a 4): verification reports the outcomes the events did not use."""
    game = finished(3, 20, ("base", "crossroads"), decisions=60)
    objs = records(dump_log(game))
    faces = [o["data"]["face"] for o in objs if o.get("type") == "crossroads.die_rolled"]
    assert faces
    objs[0]["setup"]["chance"]["die.crossroads.fortune"] = [*faces, *[4] * 20]
    text = text_of(objs)
    loaded = load_log(text)
    assert loaded.state.script["die.crossroads.fortune"] == (4,) * 20  # rigged if continued
    result = verify_log(text, allow_unfinished=True)
    assert not result.ok and result.seq is None
    assert "die.crossroads.fortune (20)" in result.message
    assert verify_log(dump_log(game), allow_unfinished=True).ok


def test_a_rule_change_fails_at_its_first_effect(base_log: str) -> None:
    """Verification still finds a rules change, at the first event it alters."""

    class Tips:
        tokaido_plugin = PluginInfo("tips", "1", requires=("base",))

        @hookimpl
        def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
            return [Staged(900, Step("tips.tip", piece))]

        @hookimpl
        def tokaido_register(self, registry: Any) -> None:
            registry.add_step("tips.tip", run=lambda ctx, step: ctx.coins(step.piece, 1))

    objs = records(base_log)
    objs[0]["plugins"].append({"id": "tips", "version": "1"})
    first_move = next(i for i, o in enumerate(objs) if o.get("type") == "core.move") - 1
    result = verify_log(text_of(objs), plugins=[Tips()])
    assert not result.ok and result.seq is not None and result.seq > first_move
    assert "the current rules give core.coins {'piece': " in result.message


def test_a_seats_copy_cannot_be_verified() -> None:
    """A seat's copy has no seed, so nothing can be drawn again: a LogError."""
    with pytest.raises(LogFormatError, match="seat's copy"):
        verify_log(dump_log(finished(2, 1), viewer=0))


def test_truncation_is_detectable(base_log: str) -> None:
    """Cut at a line boundary, a finished game's log loads as a game in progress (or is
    refused), and never verifies unless unfinished games are accepted."""
    lines = base_log.splitlines(keepends=True)
    game_over = next(i for i, line in enumerate(lines) if '"core.game_over"' in line)
    decided = 0
    for keep in range(2, len(lines)):
        text = "".join(lines[:keep])
        if keep > game_over:
            with pytest.raises(LogStateError, match="no trailer: it is cut short"):
                load_log(text)
        else:
            with contextlib.suppress(LogStateError):  # cut where no rule can go on
                assert not load_log(text).is_over
        try:
            result = verify_log(text)
        except LogError:
            continue
        assert not result.ok and result.seq == keep - 1  # the first event missing
        if result.message.startswith("incomplete: the game is not over"):
            assert verify_log(text, allow_unfinished=True).ok  # cut where a seat decides
            decided += 1
    assert decided > 20


# --- the corpus ----------------------------------------------------------------------------


def tampered_logs(text: str, game: Game) -> Iterator[tuple[str, str, int | None]]:
    """(name, changed log, the seq verification must name or None for any) for
    structural changes, header changes, single-value changes, forged chance outcomes,
    truncation, deep nesting, huge numbers and Unicode digits."""
    objs = records(text)
    events = game.ruleset.registry.events
    n = len(objs)
    for i in range(1, n - 1, 9):  # structural, kept well formed: only the rules can tell
        for name, changed in [
            ("drop", objs[:i] + objs[i + 1:]),
            ("repeat", objs[:i + 1] + objs[i:]),
            ("swap", [*objs[:i], objs[i + 1], objs[i], *objs[i + 2:]]),
        ]:
            tampered = renumbered(changed)
            if tampered != text:
                seq = first_difference(text, tampered)
                exact = not any(is_action(o, events) for o in objs[i:i + 2])
                yield f"{name} line {i + 1}", tampered, seq if exact else None
    for i in range(1, n - 1, 13):  # structural, as they come
        yield f"raw drop line {i + 1}", text_of(objs[:i] + objs[i + 1:]), None
        yield f"raw swap line {i + 1}", text_of([*objs[:i], objs[i + 1], objs[i],
                                                   *objs[i + 2:]]), None
    header_changes: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
        ("seed", lambda h: h.update(seed=h["seed"] ^ 1)),
        ("players", lambda h: h.update(players=h["players"] + 1)),
        ("option", lambda h: h["options"].update({"base.meal_hand": "players"})),
        ("travellers", lambda h: h["setup"].update(travellers=["kinko", "satsuki", "zen-emon"])),
        ("queue", lambda h: h["setup"].update(queue=[2, 1, 0])),
        ("coins", lambda h: h["setup"].update(coins={"0": 12})),
        ("stacks", lambda h: h["setup"].update(stacks={"base.meals": ["fugu"]})),
        ("script", lambda h: h["setup"]["chance"].update({"queue": [[1, 0, 2]]})),
        ("unused script", lambda h: h["setup"]["chance"].update({"order.base.meals": [[]]})),
        ("format", lambda h: h.update(format_version=1)),
        ("plugin", lambda h: h["plugins"].append({"id": "crossroads", "version": "1.0.0"})),
    ]
    for name, change in header_changes:
        head = json.loads(json.dumps(objs[0]))
        change(head)
        yield f"header {name}", text_of([head, *objs[1:]]), None
    for i in range(1, n - 1, 4):  # single values, in every event that is not a decision
        if is_action(objs[i], events) or objs[i]["type"] == "core.log_end":
            continue
        for key, value in objs[i]["data"].items():
            if isinstance(value, bool):
                new: Any = not value
            elif isinstance(value, int):
                new = value + 1
            elif isinstance(value, str):
                new = value + "x"
            elif isinstance(value, list) and len(set(map(str, value))) > 1:
                new = value[::-1]
            else:
                continue
            changed = [*objs[:i], {**objs[i], "data": {**objs[i]["data"], key: new}},
                       *objs[i + 1:]]
            yield f"line {i + 1} {key}", text_of(changed), i - 1
    for i, obj in enumerate(objs):  # forged chance outcomes, the rest consistent
        if obj.get("type") == "core.deck_set" and obj["data"]["shuffled"]:
            cards = obj["data"]["cards"]
            if cards[-1] != cards[-2]:  # the bottom cards, never drawn in a short game
                swapped = [*cards[:-2], cards[-1], cards[-2]]
                changed = [*objs[:i], {**obj, "data": {**obj["data"], "cards": swapped}},
                           *objs[i + 1:]]
                yield f"deck order {obj['data']['zone']}", text_of(changed), i - 1
        if obj.get("type") == "core.queue_set":
            order = obj["data"]["order"][::-1]
            changed = [*objs[:i], {**obj, "data": {"order": order}}, *objs[i + 1:]]
            yield "queue order", text_of(changed), i - 1
    lines = text.splitlines(keepends=True)
    for keep in range(1, len(lines), 7):  # cut at a line boundary, and within a line
        yield f"cut after line {keep}", "".join(lines[:keep]), None
        yield f"cut within line {keep + 1}", "".join(lines[:keep]) + lines[keep][:20], None
    last = len(lines) - 1
    end = lines[:last]
    for name, line in [
        ("deep nesting", "[" * 50_000 + "]" * 50_000),
        ("deep data", json.dumps({"seq": last - 1, "type": "core.data_set", "v": 1,
                                  "data": {"key": "base.x", "value": json.loads(
                                      "[" * 200 + "]" * 200)}})),
        ("huge seq", '{"seq":' + "9" * 4000 + ',"type":"core.game_over","v":1,"data":{}}'),
        ("too huge seq", '{"seq":' + "9" * 5000 + ',"type":"core.game_over","v":1,"data":{}}'),
        ("huge coins", json.dumps({"seq": last - 1, "type": "core.coins", "v": 1,
                                   "data": {"piece": 0, "delta": 10**4000}})),
        ("unicode digit seq", '{"seq":"\u0661","type":"core.game_over","v":1,"data":{}}'),
    ]:
        yield name, "".join([*end, line + "\n", lines[last]]), None
    head = json.loads(lines[0])
    for name, version in [("unicode version", "\u0661.0.0"), ("superscript version", "1.\u00b2"),
                          ("long version", "1" * 5000), ("not a version", "one")]:
        head["plugins"] = [{"id": "base", "version": version}]
        yield name, json.dumps(head) + "\n" + "".join(lines[1:]), None
    yield "empty", "", None
    yield "blank line", "".join([*lines[:5], "\n", *lines[5:]]), None
    yield "binary junk", "".join(lines[:5]) + "\x00\x01\ufffd\n" + "".join(lines[5:]), None


@pytest.fixture(scope="module")
def corpus(base_log: str) -> list[tuple[str, str, int | None]]:
    return list(tampered_logs(base_log, load_log(base_log)))


def test_no_tampered_log_is_accepted(corpus: list[tuple[str, str, int | None]]) -> None:
    """Every changed log is a LogError or fails verification; a change that keeps the
    file well formed fails at the first seq it changed."""
    assert len(corpus) > 250
    accepted, misplaced = [], []
    for name, text, seq in corpus:
        kind, where = outcome(text)
        if kind == "ok":
            accepted.append(name)
        elif kind == "failed" and seq is not None and where != seq:
            misplaced.append((name, seq, where))
    assert not accepted
    assert not misplaced


def test_the_command_line_exits_1_or_2_never_a_traceback(
        corpus: list[tuple[str, str, int | None]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """replay --verify exits 1 for a log that does not verify (naming the seq) and 2,
    with one 'error:' line, for a log it cannot read; replay alone exits 0 or 2."""
    path = tmp_path / "log.jsonl"
    for name, text, _ in corpus[::3]:
        path.write_text(text, encoding="utf-8")
        kind, seq = outcome(text)
        status = main(["replay", str(path), "--verify"])
        out, err = capsys.readouterr()
        if kind == "error":
            assert status == 2, name
            assert err.startswith("error: ") and err.count("\n") == 1, name
        else:
            assert status == 1, name
            where = "the header" if seq is None else f"seq {seq}"
            assert f"verify: DISAGREES at {where}: " in out, name
        assert main(["replay", str(path)]) in (0, 2), name
        capsys.readouterr()


def test_the_command_line_refuses_bytes_that_are_not_utf8(
        tmp_path: Path, base_log: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that is not UTF-8 is one error line naming the line, status 2."""
    path = tmp_path / "log.jsonl"
    lines = base_log.encode().split(b"\n")
    path.write_bytes(b"\n".join([*lines[:3], b"\xff\xfe", *lines[3:]]))
    for argv in (["replay", str(path)], ["replay", str(path), "--verify"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: line ") and "not UTF-8" in err


# --- memory ----------------------------------------------------------------------------------


@pytest.mark.tracemalloc
def test_a_100_mb_file_is_refused_in_bounded_memory(tmp_path: Path, base_log: str) -> None:
    """A finished game followed by 100 MB of junk is refused at the first line after
    the trailer, in little memory; so is one line of 100 MB, never read whole."""
    junk = json.dumps({"seq": 1, "type": "core.coins", "v": 1,
                       "data": {"piece": 0, "delta": 3}}) + "\n"
    lines, line = tmp_path / "lines.jsonl", tmp_path / "line.jsonl"
    with lines.open("w", encoding="utf-8") as out:
        out.write(base_log)
        block = junk * (1_000_000 // len(junk))
        while out.tell() < 100_000_000:
            out.write(block)
    with line.open("w", encoding="utf-8") as out:
        out.write(base_log.rstrip("\n"))
        block = "x" * 1_000_000
        for _ in range(100):
            out.write(block)
    trailer = len(base_log.splitlines())
    for path, message in [(lines, f"line {trailer + 1}: nothing may follow the trailer"),
                          (line, f"line {trailer}: line longer than")]:
        assert path.stat().st_size > 100_000_000
        for read in (load_log, verify_log):
            import tracemalloc  # CPython's; PyPy has none (the test is marked)

            tracemalloc.start()
            try:
                with pytest.raises(LogFormatError, match=message):
                    read(path)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 50_000_000
        path.unlink()  # pytest keeps the last runs' temporary files: not these


def test_logs_are_read_from_text_paths_and_streams(tmp_path: Path, base_log: str) -> None:
    """A str is the log's text; a path or a text stream is read line by line."""
    path = tmp_path / "g.jsonl"
    path.write_text(base_log, encoding="utf-8")
    expected = load_log(base_log).state
    with path.open(encoding="utf-8") as stream:
        assert load_log(stream).state == expected
    assert load_log(path).state == expected
    assert load_log(io.StringIO(base_log)).state == expected
    assert verify_log(path).ok and verify_log(io.StringIO(base_log)).ok
    with pytest.raises(LogFormatError, match="a log is text"), path.open("rb") as raw:
        load_log(raw)  # type: ignore[arg-type]
    with pytest.raises(LogFormatError, match="a log is text"):
        load_log(base_log.encode())  # type: ignore[arg-type]
    with pytest.raises(LogFormatError, match="line 1: not valid JSON"):
        load_log(str(path))  # a str is text, never a file name


# --- plugins that misbehave -------------------------------------------------------------------


class Crowd:
    """tokaido_neutral_travellers returning more travellers than the inns hold."""

    tokaido_plugin = PluginInfo("crowd", "1", requires=("base",))

    def __init__(self, neutrals: object) -> None:
        self.neutrals = neutrals

    @hookimpl
    def tokaido_neutral_travellers(self, players: int) -> object:
        return None if players == 2 else self.neutrals


@pytest.mark.parametrize(("neutrals", "problem"), [
    (9, "returned 9: 3 players and 9 neutral travellers"),
    (-1, "returned -1"),
    ("2", "returned '2', not an int"),
])
def test_neutral_travellers_are_checked(neutrals: object, problem: str) -> None:
    """tokaido_neutral_travellers must return an int with players + neutrals <= 5."""
    assert len(new_game(3, plugins=["base", Crowd(2)]).state.pieces) == 5
    with pytest.raises(PluginError, match=problem) as info:
        new_game(3, plugins=["base", Crowd(neutrals)])
    assert info.value.plugin == "crowd" and info.value.hook == "tokaido_neutral_travellers"
    assert str(info.value).startswith("plugin 'crowd': tokaido_neutral_travellers ")


class Worrier:
    """tokaido_invariants returning a bare string (a sequence of one-letter problems)."""

    tokaido_plugin = PluginInfo("worrier", "1", requires=("base",))

    @hookimpl
    def tokaido_invariants(self, state: GameState) -> Sequence[str]:
        return "all is well"


def test_invariants_must_be_a_sequence_of_strings() -> None:
    """A bare string is refused, naming the plugin; a list of strings is fine."""
    game = new_game(3, plugins=["base", Worrier()])
    with pytest.raises(PluginError, match="plugin 'worrier': tokaido_invariants returned "
                                          "'all is well', not a sequence of str"):
        game.ruleset.hooks.invariants(game.state)
    assert new_game(3).ruleset.hooks.invariants(new_game(3).state) == []


class Faulty:
    """A plugin whose hook ``hook`` raises, or returns ``value``."""

    tokaido_plugin = PluginInfo("faulty", "1", requires=("base",))

    def __init__(self, hook: str, value: object = None) -> None:
        self.hook, self.value = hook, value

    def _run(self, hook: str) -> object:
        if hook != self.hook:
            return None
        if self.value is None:
            raise ZeroDivisionError("the plugin divided by zero")
        return self.value

    @hookimpl
    def tokaido_forbidden_stops(self, state: GameState, piece: int,
                                positions: tuple[int, ...]) -> object:
        return self._run("tokaido_forbidden_stops")

    @hookimpl
    def tokaido_extra_actions(self, state: GameState, step: Step) -> object:
        return self._run("tokaido_extra_actions")

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> object:
        return self._run("tokaido_arrival_steps")

    @hookimpl
    def tokaido_card_gained(self, ctx: Any, piece: int, card: str, source: str) -> None:
        self._run("tokaido_card_gained")

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> object:
        return self._run("tokaido_setup_steps")

    @hookimpl
    def tokaido_end_steps(self, state: GameState) -> object:
        return self._run("tokaido_end_steps")

    @hookimpl
    def tokaido_tiebreak(self, state: GameState, piece: int) -> object:
        return self._run("tokaido_tiebreak")


def play_with_hook(reached: list[Game], faulty: Faulty, hook: str, bot: RandomBot) -> None:
    """Play on, the bot choosing with the hook off and the game going on with it on;
    ``reached`` gets every game made."""
    game = reached[-1]
    while not game.is_over:
        faulty.hook = ""
        action = next_action(bot, game)
        faulty.hook = hook
        game = game.apply(action)
        reached.append(game)
        game.legal_actions()  # a move's options are worked out when asked for
        if game.is_over:
            game.scores()


@pytest.mark.parametrize(("hook", "value", "problem"), [
    ("tokaido_forbidden_stops", None, "raised ZeroDivisionError: the plugin divided by zero"),
    ("tokaido_forbidden_stops", [(1, "no")], r"returned \[\(1, 'no'\)\], not a mapping"),
    ("tokaido_extra_actions", None, "raised ZeroDivisionError"),
    ("tokaido_extra_actions", 5, "returned 5, not a sequence of Action"),
    ("tokaido_arrival_steps", None, "raised ZeroDivisionError"),
    ("tokaido_arrival_steps", ["step"], "returned an item 'step' that is not a Staged"),
    ("tokaido_card_gained", None, "raised ZeroDivisionError"),
    ("tokaido_end_steps", None, "raised ZeroDivisionError"),
    ("tokaido_end_steps", [Step("base.x")], "returned an item Step"),
    ("tokaido_tiebreak", "3", "returned '3', not an int"),
])
def test_a_failing_hook_is_a_plugin_error_and_the_game_is_unchanged(
        hook: str, value: object, problem: str) -> None:
    """During play, a hook that raises (or whose result cannot be used) surfaces as a
    PluginError naming the plugin and the hook; the game before it stays valid."""
    game = new_game(3, seed=2, plugins=["base", Faulty("")])
    faulty = game.ruleset.plugins[-1]
    assert isinstance(faulty, Faulty)
    faulty.value = value
    bot = RandomBot(1)
    reached = [game]
    with pytest.raises(PluginError, match=problem) as info:
        play_with_hook(reached, faulty, hook, bot)
    game = reached[-1]
    assert info.value.plugin == "faulty" and info.value.hook == hook
    assert str(info.value).startswith(f"plugin 'faulty': {hook} ")
    faulty.hook = ""
    if not game.is_over:  # the game the hook failed in goes on as before
        assert game.apply(next_action(bot, game)).state.seq > game.state.seq
    else:
        assert game.scores()


def test_plugin_errors_at_setup_and_registration() -> None:
    """Hooks run when a game or a ruleset is made are checked and named too; a typed
    error a hook raises on purpose passes through."""
    with pytest.raises(PluginError, match="plugin 'faulty': tokaido_setup_steps raised"):
        new_game(3, plugins=["base", Faulty("tokaido_setup_steps")])
    with pytest.raises(PluginError, match="tokaido_setup_steps returned 'x'"):
        new_game(3, plugins=["base", Faulty("tokaido_setup_steps", "x")])

    class Broken:
        tokaido_plugin = PluginInfo("broken", "1")

        @hookimpl
        def tokaido_register(self, registry: Any) -> None:
            raise KeyError("board")

    class Closed:
        tokaido_plugin = PluginInfo("closed", "1")

        @hookimpl
        def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
            raise SetupError("this table is closed")

    with pytest.raises(PluginError, match="plugin 'broken': tokaido_register raised KeyError"):
        Ruleset.build(["base", Broken()])
    with pytest.raises(SetupError, match="this table is closed"):
        new_game(3, plugins=["base", Closed()])


def wobbly(fails: str) -> Any:
    """A plugin whose registered function ``fails`` raises: the run of a step, the legal
    actions or automatic test of a decision, or an action's mutator or resolver. At
    setup it asks seat 0 to poke; the poke's resolver schedules a step that runs."""

    @frozen
    class Poke(Action):
        TYPE: ClassVar[str] = "wobbly.poke"
        PUBLIC: ClassVar[bool] = True

        def effect(self, state: GameState) -> GameState:
            return state if fails != "mutator" else broken()

    def broken() -> Any:
        raise ZeroDivisionError("the plugin divided by zero")

    def resolve(ctx: Any, step: Step, action: Poke) -> None:
        if fails == "resolver":
            broken()
        ctx.schedule(Step("wobbly.after", 0))

    class Wobbly:
        tokaido_plugin = PluginInfo("wobbly", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Any) -> None:
            registry.add_action(Poke, resolve)
            registry.add_step(
                "wobbly.ask", legal=lambda state, step: (Poke(0),) if fails != "legal"
                else broken(), automatic=lambda state, step: fails == "automatic" and broken())
            registry.add_step("wobbly.after", run=lambda ctx, step: fails == "run" and broken())

        @hookimpl
        def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
            return [Staged(10_000, Step("wobbly.ask", 0, 0))]

    return Wobbly()


@pytest.mark.parametrize(("fails", "where"), [
    ("legal", "legal actions of step 'wobbly.ask'"),
    ("automatic", "automatic test of step 'wobbly.ask'"),
    ("mutator", "mutator of action 'wobbly.poke'"),
    ("resolver", "resolver of action 'wobbly.poke'"),
    ("run", "run of step 'wobbly.after'"),
])
def test_a_failing_step_or_action_function_is_a_plugin_error(fails: str, where: str) -> None:
    """The functions a plugin registers for its steps and actions are named like its
    hooks when they raise: a PluginError with the plugin and which function, the
    exception as its cause; the game before the failed apply stays as it was."""
    travellers = ["kinko", "satsuki", "umegae"]
    if fails in ("legal", "automatic"):  # asked while the game is set up
        with pytest.raises(PluginError) as info:
            new_game(3, plugins=["base", wobbly(fails)], travellers=travellers)
    else:
        game = new_game(3, plugins=["base", wobbly(fails)], travellers=travellers)
        assert game.legal_actions() == (game.legal_actions()[0],)
        poke, seq, events = game.legal_actions()[0], game.state.seq, game.events
        with pytest.raises(PluginError) as info:
            game.apply(poke)
        assert (game.state.seq, game.events, game.legal_actions()) == (seq, events, (poke,))
    assert (info.value.plugin, info.value.hook) == ("wobbly", where)
    assert str(info.value) == (f"plugin 'wobbly': {where} raised ZeroDivisionError: "
                               "the plugin divided by zero")
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_an_action_type_nobody_registered_is_a_plugin_error_naming_no_plugin() -> None:
    """A decision offering an action whose type no plugin registered fails when the
    action is taken: nobody registered what it does next, and no plugin can be named."""

    @frozen
    class Stray(Action):
        TYPE: ClassVar[str] = "loose.stray"
        PUBLIC: ClassVar[bool] = True

    class Loose:
        tokaido_plugin = PluginInfo("loose", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Any) -> None:
            registry.add_step("loose.ask", legal=lambda state, step: (Stray(0),))

        @hookimpl
        def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
            return [Staged(10_000, Step("loose.ask", 0, 0))]

    game = new_game(3, plugins=["base", Loose()], travellers=["kinko", "satsuki", "umegae"])
    with pytest.raises(PluginError) as info:
        game.apply(game.legal_actions()[0])
    assert str(info.value).startswith("an unregistered action type: resolver of action "
                                      "'loose.stray' raised KeyError")
    assert (info.value.plugin, info.value.hook) == (None, "resolver of action 'loose.stray'")


def test_a_typed_error_a_step_raises_on_purpose_passes_through() -> None:
    """A TokaidoError from a plugin's step is its message to the caller, not a fault."""

    class Strict:
        tokaido_plugin = PluginInfo("strict", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Any) -> None:
            registry.add_step("strict.check", run=self.check)

        def check(self, ctx: Any, step: Step) -> None:
            raise SetupError("this table needs a referee")

        @hookimpl
        def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
            return [Staged(10_000, Step("strict.check"))]

    with pytest.raises(SetupError, match="needs a referee"):
        new_game(3, plugins=["base", Strict()], travellers=["kinko", "satsuki", "umegae"])


def test_plugin_versions_must_follow_pep_440() -> None:
    """A plugin's own version is checked when a ruleset is built."""

    class Odd:
        tokaido_plugin = PluginInfo("odd", "first", requires=("base",))

    with pytest.raises(PluginDefinitionError, match="'odd' has version 'first'"):
        Ruleset.build(["base", Odd()])


def test_a_plugin_error_survives_a_process_boundary() -> None:
    """Batches run in worker processes: the error keeps its plugin and hook."""
    error = pickle.loads(pickle.dumps(PluginError("plugin 'x': h raised", "x", "h")))
    assert (str(error), error.plugin, error.hook) == ("plugin 'x': h raised", "x", "h")

"""Event logs: round trips, strict loading, versions, verification, stale actions."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokaido_rules import Game, Ruleset, StaleActionError, new_game
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.errors import (
    LogError,
    LogFormatError,
    LogPluginError,
    LogSequenceError,
    LogStateError,
    LogVersionError,
)
from tokaido_rules.events import CardsMoved, CoinsChanged
from tokaido_rules.log import MAX_LINE, dump_log, load_log, verify_log

FIXTURES = Path(__file__).parent / "fixtures"


def played(players: int = 3, seed: int = 5, decisions: int | None = None) -> Game:
    game = new_game(players, seed=seed)
    bot = RandomBot(seed)
    n = 0
    while not game.is_over and (decisions is None or n < decisions):
        game = game.apply(next_action(bot, game))
        n += 1
    return game


@pytest.fixture(scope="module")
def log_text() -> str:
    return dump_log(played())


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_round_trip_gives_the_live_game(log_text: str) -> None:
    """Loading a log folds its events into a game equal to the live one."""
    game = played()
    loaded = load_log(log_text)
    assert loaded.state == game.state
    assert loaded.events == game.events
    assert dump_log(loaded) == log_text


def test_loaded_game_can_be_continued() -> None:
    """A game loaded mid-way continues exactly as the live one would."""
    live = played(decisions=20)
    loaded = load_log(dump_log(live))
    assert loaded.legal_actions() == live.legal_actions()
    action = live.legal_actions()[-1]
    assert loaded.apply(action).state == live.apply(action).state


def test_same_seed_same_actions_byte_identical() -> None:
    """The same seed and actions give a byte-identical log."""
    assert dump_log(played(4, 9)) == dump_log(played(4, 9))
    assert dump_log(played(4, 9)) != dump_log(played(4, 10))


def test_header_and_event_lines(log_text: str) -> None:
    """Line 1 is the header; every further line is one event with a gap-free seq."""
    lines = lines_of(log_text)
    head = json.loads(lines[0])
    assert head["format"] == "tokaido-log"
    assert head["format_version"] == 1
    assert head["plugins"] == [{"id": "base", "version": "1.0.0"}]
    assert head["players"] == 3 and head["seed"] == 5
    assert head["options"]["base.meal_hand"] == "players_plus_one"
    for seq, line in enumerate(lines[1:]):
        event = json.loads(line)
        assert list(event) == ["seq", "type", "v", "data"]
        assert event["seq"] == seq


def test_old_event_version_fixture_loads() -> None:
    """A log written with core.cards_moved and core.deck_set version 1 is upcast."""
    text = (FIXTURES / "base-3p-cards-moved-v1.jsonl").read_text()
    assert '"type":"core.cards_moved","v":1' in text
    game = load_log(text)
    assert game.is_over
    moved = [e for e in game.events if isinstance(e, CardsMoved)]
    assert moved and all(e.count == len(e.cards) for e in moved)
    assert verify_log(text).ok
    assert '"type":"core.cards_moved","v":2' in dump_log(game)


def corrupt_line(text: str, index: int, change: dict[str, object]) -> str:
    lines = lines_of(text)
    obj = json.loads(lines[index])
    obj.update(change)
    lines[index] = json.dumps(obj, separators=(",", ":"))
    return join(lines)


def corrupt_data(text: str, index: int, change: dict[str, object]) -> str:
    lines = lines_of(text)
    obj = json.loads(lines[index])
    obj["data"].update(change)
    lines[index] = json.dumps(obj, separators=(",", ":"))
    return join(lines)


def line_of(text: str, predicate: str) -> int:
    return next(i for i, line in enumerate(lines_of(text)) if predicate in line)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda t: corrupt_line(t, 5, {"extra": 1}), LogFormatError, "unknown key"),
        (lambda t: corrupt_line(t, 5, {"type": "base.nonsense"}), LogFormatError,
         "unknown event type"),
        (lambda t: join(lines_of(t)[:5] + lines_of(t)[6:]), LogSequenceError, "expected seq"),
        (lambda t: join(lines_of(t)[:6] + lines_of(t)[5:]), LogSequenceError, "expected seq"),
        (lambda t: corrupt_line(t, 5, {"seq": "4"}), LogFormatError, "seq must be"),
        (lambda t: corrupt_data(t, line_of(t, '"core.coins"'), {"delta": "3"}),
         LogFormatError, "expected int"),
        (lambda t: corrupt_data(t, line_of(t, '"core.coins"'), {"surprise": 3}),
         LogFormatError, "surprise"),
        (lambda t: t[: len(t) // 2], LogFormatError, "not valid JSON"),
        (lambda t: join([*lines_of(t), '{"seq": 1,']), LogFormatError,
         r"line \d+: not valid JSON \(it ends at column 11, unfinished\)"),
        (lambda t: join([*lines_of(t), '{"seq"; 1}']), LogFormatError,
         r"not valid JSON at column 7 \(found ';'\)"),
        (lambda t: join([*lines_of(t), "\ud97a{}"]), LogFormatError,
         r"not valid JSON at column 1 \(found '\\ud97a'\)"),
        (lambda t: join([*lines_of(t), "x" * (MAX_LINE + 1)]), LogFormatError, "longer than"),
        (lambda t: join([*lines_of(t), "[1, 2]"]), LogFormatError, "JSON object"),
        (lambda t: corrupt_line(t, 0, {"format_version": 99}), LogVersionError, "newer"),
        (lambda t: corrupt_line(t, 0, {"format": "chess"}), LogFormatError, "not a tokaido-log"),
        (lambda t: corrupt_line(t, 0, {"plugins": [{"id": "base", "version": "9.0.0"}]}),
         LogVersionError, "newer than the installed"),
        (lambda t: corrupt_line(t, 0, {"plugins": [{"id": "base", "version": "1.0.0"},
                                                   {"id": "martian", "version": "1"}]}),
         LogPluginError, "'martian'"),
        (lambda t: corrupt_line(t, 0, {"players": 9}), LogFormatError, "players"),
        (lambda t: corrupt_line(t, 5, {"v": 7}), LogVersionError, "newer"),
        (lambda t: corrupt_line(t, 1, {"v": 0}), LogFormatError, "positive"),
        (lambda t: "", LogFormatError, "empty"),
    ],
)
def test_strict_loading_names_line_and_problem(
    log_text: str, make: object, error: type[LogError], message: str
) -> None:
    """Malformed, foreign or newer logs raise a typed LogError naming the problem."""
    assert callable(make)
    with pytest.raises(error, match=message):
        load_log(make(log_text))


def test_errors_carry_the_line_number(log_text: str) -> None:
    """A LogError says which line is wrong (1-based)."""
    with pytest.raises(LogFormatError) as info:
        load_log(corrupt_line(log_text, 7, {"type": "core.nope"}))
    assert info.value.line == 8
    assert str(info.value).startswith("line 8: ")


def test_event_that_does_not_fit_the_state(log_text: str) -> None:
    """A draw of a card that is not there (or from an empty deck) is a LogStateError."""
    index = line_of(log_text, '"core.cards_moved"')
    bad = corrupt_data(log_text, index, {"cards": ["no-such-card"], "count": 1})
    with pytest.raises(LogStateError, match="does not fit"):
        load_log(bad)
    spend = corrupt_data(log_text, line_of(log_text, '"core.coins"'), {"delta": -999})
    with pytest.raises(LogStateError, match="cannot pay"):
        load_log(spend)


def test_a_seats_copy_cannot_be_loaded_as_a_game(log_text: str) -> None:
    """A redacted copy lacks hidden facts, so it is refused with a clear message."""
    with pytest.raises(LogFormatError, match="seat's copy"):
        load_log(dump_log(played(), viewer=0))


def test_verify_accepts_a_faithful_log(log_text: str) -> None:
    """Re-running the current rules on the recorded decisions agrees with the log."""
    result = verify_log(log_text)
    assert result.ok and result.seq is None and result.decisions > 20


def test_verify_finds_the_first_disagreement(log_text: str) -> None:
    """A recorded effect the rules do not produce is reported at its seq."""
    index = line_of(log_text, '"core.coins","v":1,"data":{"piece":0,"delta":3}')
    tampered = corrupt_data(log_text, index, {"delta": 4})
    load_log(tampered)  # still a well-formed log
    result = verify_log(tampered)
    assert not result.ok
    assert result.seq == index - 1
    assert "core.coins" in result.message


def test_verify_reports_a_decision_the_rules_refuse(log_text: str) -> None:
    """A recorded decision that is not legal under the current rules is reported."""
    game = played()
    bad_seq, _ = next((i, e) for i, e in enumerate(game.events)
                      if type(e).__name__ == "Donate")
    tampered = corrupt_data(log_text, bad_seq + 1, {"amount": 4})
    result = verify_log(tampered)
    assert not result.ok and result.seq == bad_seq


def test_stale_action_is_refused() -> None:
    """apply(expected_seq=N) refuses an action sent for an earlier point of the game."""
    game = played(decisions=3)
    action = game.legal_actions()[0]
    assert game.apply(action, expected_seq=game.state.seq).state.seq > game.state.seq
    with pytest.raises(StaleActionError, match="seq"):
        game.apply(action, expected_seq=game.state.seq - 1)


@pytest.fixture(scope="module")
def small_log() -> str:
    return dump_log(played(2, 3))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_corrupted_logs_raise_only_log_errors(small_log: str, data: st.DataObject) -> None:
    """Byte flips, dropped, duplicated and swapped lines and changed values: loading and
    verifying either succeed or raise a LogError, never anything else."""
    lines = lines_of(small_log)
    kind = data.draw(st.sampled_from(["flip", "drop", "dup", "swap", "value"]))
    if kind == "flip":
        raw = bytearray(small_log.encode())
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] ^= data.draw(st.integers(1, 255))
        text = raw.decode("utf-8", errors="replace")
    elif kind == "drop":
        i = data.draw(st.integers(0, len(lines) - 1))
        text = join(lines[:i] + lines[i + 1:])
    elif kind == "dup":
        i = data.draw(st.integers(0, len(lines) - 1))
        text = join(lines[: i + 1] + lines[i:])
    elif kind == "swap":
        i = data.draw(st.integers(0, len(lines) - 2))
        j = data.draw(st.integers(i + 1, len(lines) - 1))
        swapped = list(lines)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        text = join(swapped)
    else:
        i = data.draw(st.integers(1, len(lines) - 1))
        obj = json.loads(lines[i])
        if obj["data"]:
            key = data.draw(st.sampled_from(sorted(obj["data"])))
            obj["data"][key] = data.draw(st.one_of(
                st.none(), st.booleans(), st.integers(-3, 60), st.text(max_size=5),
                st.lists(st.text(max_size=3), max_size=3)))
        lines[i] = json.dumps(obj)
        text = join(lines)
    try:
        load_log(text)
    except LogError:
        return
    with contextlib.suppress(LogError):
        verify_log(text)


def test_plugin_versions_and_options_survive(log_text: str) -> None:
    """A log records the options; loading builds the same ruleset."""
    game = new_game(3, seed=2, options={"base.meal_hand": "players"})
    loaded = load_log(dump_log(game))
    assert loaded.ruleset.options["base.meal_hand"] == "players"
    assert isinstance(loaded.ruleset, Ruleset)


def test_coins_event_is_public_in_copies() -> None:
    """Coins are public: a seat's copy shows every coins event in full."""
    game = played()
    copy = lines_of(dump_log(game, viewer=1))
    coins = [json.loads(line) for line in copy[1:] if '"core.coins"' in line]
    assert coins and all("withheld" not in c for c in coins)
    assert len(coins) == sum(1 for e in game.events if isinstance(e, CoinsChanged))

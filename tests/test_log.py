"""Event logs: round trips, strict loading, versions, verification, stale actions."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokaido_rules import (
    Event,
    Game,
    GameState,
    Ruleset,
    StaleActionError,
    UnknownSeatError,
    codec,
    new_game,
)
from tokaido_rules import log as log_module
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
from tokaido_rules.log import MAX_LINE, LogFeed, dump_log, load_log, verify_log
from tokaido_rules.ruleset import load_plugin, plugin_info
from tokaido_rules.views import redact

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
    """Line 1 is the header; every further line is one event with a gap-free seq; the
    log of a finished game ends with a trailer that counts the events."""
    lines = lines_of(log_text)
    head = json.loads(lines[0])
    assert head["format"] == "tokaido-log"
    assert head["format_version"] == 2
    assert head["plugins"] == [{"id": "base", "version": plugin_info(load_plugin("base")).version}]
    assert head["players"] == 3 and head["seed"] == 5
    assert head["options"]["base.meal_hand"] == "players_plus_one"
    for seq, line in enumerate(lines[1:]):
        event = json.loads(line)
        assert list(event) == ["seq", "type", "v", "data"]
        assert event["seq"] == seq
    events = len(lines) - 2
    assert json.loads(lines[-1]) == {"seq": events, "type": "core.log_end", "v": 1,
                                     "data": {"events": events}}
    assert len(load_log(log_text).events) == events
    assert '"core.log_end"' not in dump_log(played(decisions=10))


def test_old_event_version_fixture_loads() -> None:
    """A log written with core.cards_moved and core.deck_set version 1 is upcast."""
    text = (FIXTURES / "base-3p-cards-moved-v1.jsonl").read_text()
    assert '"type":"core.cards_moved","v":1' in text
    game = load_log(text)
    assert game.is_over
    moved = [e for e in game.events if isinstance(e, CardsMoved)]
    assert moved and all(e.count == len(e.cards) for e in moved)
    assert '"type":"core.cards_moved","v":2' in dump_log(game)
    # Recorded by base 1.0.0: a traveller who could afford no meal while another had not
    # seen the hand was not asked. base 1.1.0 asks (the shape of play is public), so the
    # old game loads but no longer verifies, at that decision.
    verification = verify_log(text)
    assert not verification.ok and verification.seq == 176
    assert "base.meal" in verification.message


def test_old_bga_log_keeps_the_printed_value_of_options_it_does_not_name() -> None:
    """A bga game recorded before the four newer online options existed (plugins 1.0.0)
    loads with their printed defaults although bga is enabled, so it resumes as played;
    Hirotada using Health at a temple now gets two automatic bank coins, so the game no
    longer verifies, at the first effect of the change (his per-stop step is gone)."""
    text = (FIXTURES / "bga-1.0-hirotada-health.jsonl").read_text()
    assert '"version":"1.0.0"' in text and '"crossroads.devotion"' not in text
    game = load_log(text)
    options = game.ruleset.options
    assert options["base.hirotada_bank_coin"] == "auto"  # named in the header
    assert options["crossroads.devotion"] == "stop"  # not named: printed, not bga's
    assert options["crossroads.optional_purchase"] is False
    assert options["crossroads.health_where_both"] is False
    assert options["base.panorama_choice_optional"] is False
    assert game.state.pieces[0].counter("base.donation") == 3  # as played: one coin a stop
    verification = verify_log(text, allow_unfinished=True)
    assert not verification.ok and verification.seq == 22
    assert "base.hirotada" in verification.message


def before_trailer(text: str, line: str) -> str:
    """The log with ``line`` added after its last event (lines after the trailer are
    refused as such)."""
    lines = lines_of(text)
    return join([*lines[:-1], line, lines[-1]])


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
        (lambda t: before_trailer(t, '{"seq": 1,'), LogFormatError,
         r"line \d+: not valid JSON \(it ends at column 11, unfinished\)"),
        (lambda t: before_trailer(t, '{"seq"; 1}'), LogFormatError,
         r"not valid JSON at column 7 \(found ';'\)"),
        (lambda t: before_trailer(t, "\ud97a{}"), LogFormatError,
         r"not valid JSON at column 1 \(found '\\ud97a'\)"),
        (lambda t: before_trailer(t, "x" * (MAX_LINE + 1)), LogFormatError, "longer than"),
        (lambda t: before_trailer(t, "[1, 2]"), LogFormatError, "JSON object"),
        (lambda t: before_trailer(t, "[" * 100_000), LogFormatError, "nested too deeply"),
        (lambda t: join([*lines_of(t), "{}"]), LogFormatError, "nothing may follow the trailer"),
        (lambda t: corrupt_data(t, -1, {"events": 3}), LogFormatError, "trailer counts 3"),
        (lambda t: corrupt_line(t, -1, {"seq": 3}), LogSequenceError, "expected seq"),
        (lambda t: corrupt_line(t, -1, {"v": 2}), LogFormatError, "a trailer is"),
        (lambda t: join(lines_of(t)[:-1]), LogStateError, "no trailer: it is cut short"),
        (lambda t: corrupt_line(t, 0, {"format_version": 1}), LogFormatError,
         "unknown event type 'core.log_end'"),
        (lambda t: corrupt_line(t, 0, {"format_version": 0}), LogFormatError,
         "unknown log format version"),
        (lambda t: corrupt_line(t, 0, {"plugins": [{"id": "base", "version": "1.\u00b2"}]}),
         LogFormatError, "not a PEP 440 version"),
        (lambda t: corrupt_line(t, 0, {"plugins": [{"id": "base", "version": "\u0661.0"}]}),
         LogFormatError, "not a PEP 440 version"),
        (lambda t: corrupt_line(t, 0, {"plugins": [{"id": "base", "version": "9" * 5000}]}),
         LogFormatError, "not a PEP 440 version"),
        (lambda t: corrupt_line(t, 0, {"setup": {"travellers": None, "queue": None,
                                                 "coins": {"\u0661": 3}}}),
         LogFormatError, "not a seat number"),
        (lambda t: corrupt_line(t, 0, {"setup": {"travellers": None, "queue": None,
                                                 "coins": {}, "chance": {"queue": [
                                                     json.loads("[" * 40 + "]" * 40)]}}}),
         LogFormatError, "nested deeper than 32"),
        (lambda t: before_trailer(t, '{"seq": 1' + "0" * 5000 + "}"), LogFormatError,
         "not valid JSON"),
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


def test_verify_refuses_an_unfinished_game_unless_asked() -> None:
    """A log that ends before the game does is incomplete, unless unfinished games are
    accepted: then it verifies as far as it goes."""
    text = dump_log(played(decisions=20))
    result = verify_log(text)
    assert not result.ok and result.message.startswith("incomplete: the game is not over")
    assert result.seq == len(lines_of(text)) - 1
    assert verify_log(text, allow_unfinished=True).ok


def test_feed_lines_add_up_to_each_copy() -> None:
    """LogFeed hands out each line once: joined, its lines are dump_log's, for every
    seat's copy and for the full log, at every point of the game and at its end."""
    game = new_game(4, seed=12)
    viewers: list[int | None] = [0, 1, 2, 3, None]
    feeds = [LogFeed(game, viewer) for viewer in viewers]
    sent: list[list[str]] = [feed.new_lines(game) for feed in feeds]
    bot = RandomBot(3)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        for feed, lines in zip(feeds, sent, strict=True):
            lines += feed.new_lines(game)
        if game.state.seq % 7 == 0 or game.is_over:
            for viewer, lines in zip(viewers, sent, strict=True):
                assert "".join(lines) == dump_log(game, viewer)
    assert all(feed.ended and feed.seq == len(game.events) for feed in feeds)
    assert all(feed.new_lines(game) == [] for feed in feeds)
    assert sent[-1][-1].startswith(f'{{"seq":{len(game.events)},"type":"core.log_end"')


def test_feeds_sharing_a_game_give_each_copy_its_own_lines() -> None:
    """Feeds of one game that share their work (FeedShare, a server's audiences) hand out
    each copy's own lines: joined, dump_log's of each seat and of the public copy, so
    that no copy gets a line of another's (a seat's secret) through the share."""
    from tokaido_rules.log import FeedShare

    game = new_game(4, seed=5)
    viewers: list[int | str] = [0, 1, 2, 3, "public"]
    feeds = [LogFeed(game, viewer) for viewer in viewers]  # type: ignore[arg-type]
    sent: list[list[str]] = [feed.new_lines(game) for feed in feeds]
    bot = RandomBot(8)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        share = FeedShare()
        for feed, lines in zip(feeds[::-1], sent[::-1], strict=True):  # public first
            lines += feed.new_lines(game, share=share)
    for viewer, lines in zip(viewers, sent, strict=True):
        assert "".join(lines) == dump_log(game, viewer)  # type: ignore[arg-type]
    assert len({"".join(lines) for lines in sent}) == len(viewers)  # the copies differ


def test_feed_redacts_each_event_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat's feed costs in proportion to the new events: each event is redacted once
    over the whole game (re-redacting the whole log after each decision cost 1.5 s of a
    5-player game)."""
    calls = []
    real = redact

    def counting(event: Event, state: GameState, seat: int) -> Any:
        calls.append(seat)
        return real(event, state, seat)

    monkeypatch.setattr(log_module, "redact", counting)
    game = new_game(5, seed=1)
    feeds = [LogFeed(game, seat) for seat in range(5)]
    bot = RandomBot(1)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        for feed in feeds:
            feed.new_lines(game)
    assert len(calls) == 5 * len(game.events)


def test_an_event_every_seat_sees_alike_is_redacted_once_for_all_copies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Feeds sharing their work (a server's audiences) redact an event whose fields do
    not depend on the seat (its type keeps ``Event.visible_fields``) once for every copy,
    and every other event once per copy; each copy is still its own (dump_log's)."""
    from tokaido_rules.events import Event as BaseEvent
    from tokaido_rules.log import FeedShare

    calls = _redactions_counted(monkeypatch)
    game = new_game(4, seed=6)
    viewers: list[int | str] = ["public", 0, 1, 2, 3]
    feeds = [LogFeed(game, viewer) for viewer in viewers]  # type: ignore[arg-type]
    sent = [feed.new_lines(game) for feed in feeds]
    calls.clear()
    start = len(game.events)
    bot = RandomBot(4)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        share = FeedShare()
        for feed, lines in zip(feeds, sent, strict=True):
            lines += feed.new_lines(game, share=share)
    for seq, event in enumerate(game.events[start:], start):
        alike = type(event).visible_fields is BaseEvent.visible_fields
        assert calls.count(seq + 1) == (1 if alike else len(viewers)), (seq, event.TYPE)
    for viewer, lines in zip(viewers, sent, strict=True):
        assert "".join(lines) == dump_log(game, viewer)  # type: ignore[arg-type]


def test_the_full_log_gives_its_line_to_every_copy_of_an_event_all_seats_see_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Feeds sharing their work after the full log wrote its lines with the share (a
    server's decision) redact an event whose every field every seat sees (a public type
    that keeps ``Event.visible_fields``) never: each copy's line is the full log's very
    text. Every other event is redacted as before, and each copy is still dump_log's."""
    from tokaido_rules.events import Event as BaseEvent
    from tokaido_rules.log import FeedShare

    calls = _redactions_counted(monkeypatch)
    game = new_game(4, seed=6)
    full = LogFeed(game)
    viewers: list[int | str] = ["public", 0, 1, 2, 3]
    feeds = [LogFeed(game, viewer) for viewer in viewers]  # type: ignore[arg-type]
    whole = full.new_lines(game)
    sent = [feed.new_lines(game) for feed in feeds]
    calls.clear()
    start = len(game.events)
    bot = RandomBot(4)
    public = 0
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        share = FeedShare()
        mine = full.new_lines(game, share=share)
        whole += mine
        by_seq = {json.loads(line)["seq"]: line for line in mine}
        copies = [feed.new_lines(game, share=share) for feed in feeds]
        for lines in copies:
            for line in lines:
                seq = json.loads(line)["seq"]
                event = game.events[seq] if seq < len(game.events) else None
                if (event is not None and event.PUBLIC
                        and type(event).visible_fields is BaseEvent.visible_fields):
                    assert line is by_seq[seq]  # the very text
                    public += 1
        for lines, more in zip(sent, copies, strict=True):
            lines += more
    for seq, event in enumerate(game.events[start:], start):
        alike = type(event).visible_fields is BaseEvent.visible_fields
        assert calls.count(seq + 1) == (0 if alike and event.PUBLIC else 1 if alike
                                        else len(viewers)), (seq, event.TYPE)
    assert public > 100
    assert "".join(whole) == dump_log(game)
    for viewer, lines in zip(viewers, sent, strict=True):
        assert "".join(lines) == dump_log(game, viewer)  # type: ignore[arg-type]


def test_feed_follows_one_line_of_play() -> None:
    """A feed refuses a game that is not a continuation of the one it followed, and a
    seat that is not in the game."""
    game = played(decisions=5)
    feed = LogFeed(game, 0)
    feed.new_lines(game)
    other = game.apply(game.legal_actions()[-1])
    feed.new_lines(game.apply(game.legal_actions()[0]))
    with pytest.raises(ValueError, match="not a continuation"):
        feed.new_lines(other)
    with pytest.raises(ValueError, match="not the game the feed follows"):
        feed.new_lines(played(decisions=5, seed=6))
    with pytest.raises(UnknownSeatError):
        LogFeed(game, 3)


def test_feed_since_a_seq_resumes_where_the_receiver_is() -> None:
    """LogFeed(game, seat, since=N) hands out only the lines from seq N on: what a client
    that already has the rest receives after a reconnection or a server restart."""
    game = played(4, 9, decisions=15)
    loaded = load_log(dump_log(game))
    copy = dump_log(game, viewer=2).splitlines(keepends=True)
    for since in (0, 40, len(game.events)):
        feed = LogFeed(loaded, 2, since=since)
        later = loaded.apply(loaded.legal_actions()[0])
        lines = copy[:since + 1] + feed.new_lines(loaded) + feed.new_lines(later)
        assert "".join(lines) == dump_log(later, viewer=2)
    with pytest.raises(ValueError, match="since must be a seq"):
        LogFeed(game, 0, since=len(game.events) + 1)


GOLDEN = Path(__file__).parent / "golden"


def _outcome(structure: Any, data: Any, cls: type) -> tuple[str, object]:
    """What a structure function makes of ``data``: its result, or its error message."""
    try:
        return "made", structure(data, cls)
    except Exception as exc:  # compared by message: the converter's own wording
        return type(exc).__name__, log_module._describe(exc)


def test_the_fast_path_of_loading_agrees_with_the_converter() -> None:
    """Every event line of every golden log, and wrong versions of each kind of line
    (each field missing, null, of another type, an extra key), give the same event or
    the same error with the fast path as with the converter's structure function."""
    checked: set[type] = set()
    for path in sorted(GOLDEN.glob("*/*.full.jsonl")):
        head, events, _ = log_module.read_log(path)
        conv, structurers = codec._converter_and_structurers(head.ruleset)
        for event in events:
            cls = type(event)
            data = log_module.event_data(event)
            slow = conv.get_structure_hook(cls)
            made = structurers[cls](json.loads(json.dumps(data)), cls)
            assert made == event and made == slow(json.loads(json.dumps(data)), cls)
            if cls in checked:
                continue
            checked.add(cls)
            wrong: list[Any] = [{**data, "extra": 1}, [], None]
            for name, value in data.items():
                wrong.append({k: v for k, v in data.items() if k != name})
                for other in (None, "1", 1, True, [1], ["x"], [{"kind": 1}], {"a": [1.5]}):
                    if other != value:
                        wrong.append({**data, name: other})
            for case in wrong:
                assert _outcome(structurers[cls], case, cls) == _outcome(slow, case, cls)
    assert len(checked) >= 20


def test_the_fast_path_is_made_only_for_the_field_types_it_knows() -> None:
    """A generated structure function exists for the core events; a class with a field
    of another type (a fixed-length tuple, a dict), or with a type hint that does not
    resolve, gets none and is loaded by the converter alone."""
    from attrs import frozen

    @frozen
    class Pair:
        pair: tuple[int, int]

    @frozen
    class Table:
        table: dict[str, int]

    @frozen
    class Unresolved:
        thing: NoSuchType  # type: ignore[name-defined]  # noqa: F821

    assert codec._plain_structurer(CardsMoved) is not None
    assert codec._plain_structurer(CoinsChanged) is not None
    for cls in (Pair, Table, Unresolved):
        assert codec._plain_structurer(cls) is None


# --- lines seen before --------------------------------------------------------------------


def test_a_line_seen_before_loads_as_the_same_event(log_text: str) -> None:
    """Loading remembers parsed event lines: a second load gives an equal game built
    from the very same (immutable) event objects."""
    first = load_log(log_text)
    second = load_log(log_text)
    assert second.state == first.state
    assert all(a is b for a, b in zip(first.events, second.events, strict=True))


def test_a_remembered_line_at_the_wrong_place_is_still_refused(log_text: str) -> None:
    """Only the text after the sequence number is remembered: the same event line with
    another seq is refused, and one that is seen but does not fit the game still fails."""
    load_log(log_text)
    lines = lines_of(log_text)
    index = line_of(log_text, '"type":"core.scored"')
    moved = lines[index].replace(f'{{"seq":{index - 1},', f'{{"seq":{index},', 1)
    with pytest.raises(LogSequenceError) as err:
        load_log(join([*lines[:index], moved, *lines[index + 1:]]))
    assert err.value.line == index + 1
    coins = line_of(log_text, '"type":"core.coins"')
    early = lines[coins].replace(f'{{"seq":{coins - 1},', '{"seq":0,', 1)
    with pytest.raises(LogStateError):  # seen, but coins before any traveller has any
        load_log(join([lines[0], early, *lines[2:]]))


def test_a_line_with_a_second_seq_is_never_taken_from_memory(log_text: str) -> None:
    """JSON readers differ on which of two equal keys they keep (Python's keeps the
    last): a line whose text names its seq twice is refused, where it stands and
    anywhere else, so a copy of it cannot pass from memory as another seq."""
    load_log(log_text)
    lines = lines_of(log_text)
    index = line_of(log_text, '"type":"core.scored"')
    seq = index - 1
    doubled = lines[index][:-1] + f',"seq":{seq}}}'
    with pytest.raises(LogFormatError, match="'seq' appears twice") as err:
        load_log(join([*lines[:index], doubled, *lines[index + 1:]]))
    assert err.value.line == index + 1
    elsewhere = doubled.replace(f'{{"seq":{seq},', f'{{"seq":{seq + 1},', 1)
    with pytest.raises(LogFormatError, match="'seq' appears twice"):
        load_log(join([*lines[:index + 1], elsewhere, *lines[index + 2:]]))


def test_the_memory_of_lines_is_bounded_in_characters(
        log_text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """However long the lines, the text remembered stays within ``SEEN_CHARACTERS``."""
    monkeypatch.setattr(log_module, "SEEN_CHARACTERS", 3000)
    log_module._SEEN.clear()
    for seed in range(3):
        load_log(dump_log(played(seed=seed)))
        for memory in log_module._SEEN.values():
            assert memory.characters == sum(map(len, memory.events)) <= 3000
            assert memory.events
    assert load_log(log_text).state == played().state


@pytest.mark.parametrize(("players", "plugins"), [(2, ("base",)), (4, ("base", "crossroads"))])
def test_a_log_cut_inside_its_setup_is_refused(players: int, plugins: tuple[str, ...]) -> None:
    """A log that stops before the rules reach their first decision (its writer killed
    while it wrote the setup) is a LogStateError naming the seq where the rules go on,
    as verification reports it; the whole setup, and anything after it, loads."""
    game = new_game(players, seed=21, plugins=plugins)
    lines = dump_log(game).splitlines(keepends=True)
    setup = len(game.events)
    for kept in range(setup):
        cut = "".join(lines[:1 + kept])
        with pytest.raises(LogStateError, match=f"setup, at seq {kept}, before the rules "
                                                "reach their first decision"):
            load_log(cut)
        assert not verify_log(cut, allow_unfinished=True).ok
    assert load_log("".join(lines)).state == game.state
    bot = RandomBot(3)
    later = game.apply(next_action(bot, game))
    assert load_log(dump_log(later)).state == later.state


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON_VALUES)
def test_event_lines_are_written_as_json_dumps_writes_them(value: Any) -> None:
    """The encoder made once for every event line (json's C encoder where there is one)
    writes what ``json.dumps`` with the log's options writes: floats, escapes, non-ASCII
    text alike."""
    line = {"seq": 1, "type": "x.y", "v": 1, "data": {"value": value}}
    assert log_module._encode_line(line) == json.dumps(line, separators=(",", ":"),
                                                       ensure_ascii=False)


def test_event_lines_keep_json_s_own_encoder_without_a_c_encoder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where json has no C encoder (PyPy), or one made with other arguments, event lines
    are written by ``JSONEncoder.encode``, as before."""
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    assert log_module._one_shot_encoder() == log_module._LINE_ENCODER.encode

    def other(*args: Any) -> Any:
        raise TypeError("takes other arguments")

    monkeypatch.setattr(json.encoder, "c_make_encoder", other)
    assert log_module._one_shot_encoder() == log_module._LINE_ENCODER.encode


def test_freeze_json_freezes_values_and_refuses_what_json_cannot_hold() -> None:
    """freeze_json: lists become tuples and objects FrozenMaps at every depth (a leaf kept
    as it is), keys that are strings (a str subclass too) are taken, other keys, values
    that are no JSON scalar and nesting past MAX_DEPTH are refused."""
    from tokaido_rules.codec import MAX_DEPTH, freeze_json
    from tokaido_rules.frozen import FrozenMap

    class Name(str):
        pass

    frozen = freeze_json({"a": [1, "b", None, True, {"c": [[]]}], Name("d"): {}})
    assert frozen == {"a": (1, "b", None, True, {"c": ((),)}), "d": {}}
    assert type(frozen) is FrozenMap and type(frozen["a"][4]) is FrozenMap
    assert type(frozen["a"][4]["c"]) is tuple and list(frozen) == ["a", "d"]
    for bad, message in (({1: 2}, "keys must be strings"), ({"a": 1.5}, "unexpected value"),
                         ([{"a": [object()]}], "unexpected value")):
        with pytest.raises(TypeError, match=message):
            freeze_json(bad)
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert freeze_json(deep) is not None
    with pytest.raises(TypeError, match="nested deeper"):
        freeze_json([deep])


def _redactions_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seqs of the states the feeds redact at from now on, one per redaction."""
    calls: list[int] = []
    real = redact

    def counting(event: Event, state: GameState, seat: int | None, **kw: Any) -> Any:
        calls.append(state.seq)
        return real(event, state, seat, **kw)

    monkeypatch.setattr(log_module, "redact", counting)
    return calls

"""The replay viewer and the reader of a seat's copy: frames, hidden information in the
page, the command line (the page in a real browser: test_browser.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tokaido_rules import Game, dump_log, load_log, new_game
from tokaido_rules.bots import RandomBot
from tokaido_rules.cli import main
from tokaido_rules.engine import initial_state
from tokaido_rules.errors import LogFormatError, LogSequenceError
from tokaido_rules.events import fold
from tokaido_rules.log import UNSEEN, load_seat_copy
from tokaido_rules.simulate import decision_count
from tokaido_rules.viewer import _steps, frames, replay_html, seat_copy_html
from tokaido_rules.visibility import split_zones


def played(players: int, seed: int, plugins: tuple[str, ...]) -> Game:
    game = new_game(players, seed=seed, plugins=list(plugins))
    bot = RandomBot(seed)
    while not game.is_over:
        assert game.current_player is not None
        game = game.apply(bot.choose(game.view(game.current_player)))
    return game


@pytest.fixture(scope="module")
def crossroads() -> Game:
    return played(4, 3, ("base", "crossroads"))


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'id="replay-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def frame_svg(data: dict[str, Any], key: str, n: int) -> str:
    runs = data["frames"][key][n]["svg"]
    return "".join(data["parts"][runs[k] + j] for k in range(0, len(runs), 2)
                   for j in range(runs[k + 1]))


def secrets_by_frame(game: Game, seat: int) -> list[set[str]]:
    """Per frame, the display names of cards ``seat`` may not see then (and sees
    nowhere else then)."""
    registry = game.ruleset.registry
    state = initial_state(game.state.rules, game.seed)
    out = []
    for a, b in _steps(game.events):
        for event in game.events[a:b]:
            state = fold(state, event)
        shown, hidden = split_zones(state, seat)
        seen = {registry.card_name(c) for cards in shown.values() for c in cards}
        out.append({registry.card_name(c) for cards in hidden.values() for c in cards} - seen)
    return out


def test_seat_copy_reads_back(crossroads: Game) -> None:
    """load_seat_copy reads what dump_log(viewer=) writes: every line, the withheld
    cards as placeholders, the trailer; load_log still refuses it, and it refuses a full
    log."""
    text = dump_log(crossroads, viewer=2)
    copy = load_seat_copy(text)
    assert copy.viewer == 2 and copy.players == 4 and copy.complete
    assert len(copy.lines) == len(crossroads.events)
    assert [line.seq for line in copy.lines] == list(range(len(copy.lines)))
    hidden = [line for line in copy.lines if line.withheld]
    assert hidden and all(line.type for line in hidden)
    placeholders = [line.event for line in hidden if line.event is not None]
    assert placeholders and all(c == UNSEEN for e in placeholders
                                for c in getattr(e, "cards", (UNSEEN,)))
    with pytest.raises(LogFormatError):
        load_log(text)
    with pytest.raises(LogFormatError, match="full log"):
        load_seat_copy(dump_log(crossroads))
    lines = text.splitlines()
    with pytest.raises(LogSequenceError):
        load_seat_copy("\n".join([lines[0], *lines[2:]]))
    with pytest.raises(LogFormatError):
        load_seat_copy("\n".join([*lines, lines[-1]]))


def test_frames_follow_the_decisions(crossroads: Game) -> None:
    """One frame for the setup and one per decision, the last with the end of the
    journey (so the slider's last place is the last decision); the last frame's table is
    the game's final score; every frame has words."""
    everything = frames(crossroads)
    steps = _steps(crossroads.events)
    assert len(everything) == len(steps)
    final = {row["seat"]: row["points"] for row in everything[-1]["table"]}
    assert final == {s.seat: s.total for s in crossroads.scores()}
    assert all(f["lines"] for f in everything)
    assert len(everything) == 1 + decision_count(crossroads.events)
    assert everything[-1]["lines"][1].startswith("end of the journey")
    assert everything[-1]["caption"].startswith(f"decision {len(everything) - 1} of ")
    seat = frames(crossroads, 1)
    assert [f["table"] for f in seat] == [f["table"] for f in everything]
    assert "as seat 1 sees it" in seat[3]["svg"]
    copy = frames(load_seat_copy(dump_log(crossroads, viewer=1)))
    assert [f["table"] for f in copy] == [f["table"] for f in everything]
    assert [f["lines"] for f in copy] == [f["lines"] for f in seat]


def test_a_seat_copy_page_holds_only_what_the_seat_saw(crossroads: Game) -> None:
    """A page made from a seat's copy names no card the seat could not see at that
    point, in any frame, and none that it never saw anywhere in the file; the full
    record's page does show other seats' secrets (so the check has teeth)."""
    seat = 0
    page = seat_copy_html(load_seat_copy(dump_log(crossroads, viewer=seat)))
    data = page_data(page)
    assert [c["key"] for c in data["choices"]] == [str(seat)]
    full = page_data(replay_html(crossroads))
    secrets = secrets_by_frame(crossroads, seat)
    shown_somewhere = 0
    for n, names in enumerate(secrets):
        mine = frame_svg(data, str(seat), n) + json.dumps(data["frames"][str(seat)][n])
        assert not [name for name in names if name in mine], n
        shown_somewhere += any(name in frame_svg(full, "all", n) for name in names)
        assert not [name for name in names if name in frame_svg(full, str(seat), n)], n
    assert shown_somewhere
    registry = crossroads.ruleset.registry
    text = dump_log(crossroads, viewer=seat)
    state = initial_state(crossroads.state.rules, crossroads.seed)
    seen: set[str] = set()
    for event in crossroads.events:
        state = fold(state, event)
        seen.update(c for cards in split_zones(state, seat)[0].values() for c in cards)
    seen.update(c for c in registry.cards if f'"{c}"' in text)
    never = ({registry.card_name(c) for c in registry.cards if c not in seen}
             - {registry.card_name(c) for c in seen})
    assert never
    assert not [name for name in never if name in page]


def test_the_page_is_self_contained(crossroads: Game) -> None:
    """No network: nothing loaded from elsewhere; the data cannot end its script."""
    page = replay_html(crossroads, [0], everything=False)
    assert not re.search(r"(src|href)\s*=", page)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    body = page.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body
    assert [c["key"] for c in page_data(page)["choices"]] == ["0"]


def test_replay_html_command(tmp_path: Path, crossroads: Game,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """tokaido replay FILE --html OUT: a full log offers everything and every seat, a
    seat's copy that seat only; mistakes are one error line and status 2."""
    full, copy = tmp_path / "game.jsonl", tmp_path / "seat1.jsonl"
    full.write_text(dump_log(crossroads), encoding="utf-8")
    copy.write_text(dump_log(crossroads, viewer=1), encoding="utf-8")
    out = tmp_path / "out.html"
    assert main(["replay", str(full), "--html", str(out)]) == 0
    keys = [c["key"] for c in page_data(out.read_text(encoding="utf-8"))["choices"]]
    assert keys == ["all", "0", "1", "2", "3"]
    assert main(["replay", str(copy), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert [c["key"] for c in page_data(page)["choices"]] == ["1"]
    assert "seat 1&#x27;s copy" in page or "seat 1's copy" in page
    assert main(["replay", str(full), "--html", str(out), "--seat", "2"]) == 0
    assert [c["key"] for c in page_data(out.read_text(encoding="utf-8"))["choices"]] == ["2"]
    capsys.readouterr()
    for args in (["--seat", "0"], ["--seat", "9"], ["--view", "1"]):
        src = copy if args == ["--seat", "0"] else full
        assert main(["replay", str(src), "--html", str(out), *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert main(["replay", str(tmp_path / "missing"), "--html", str(out)]) == 2
    assert main(["replay", str(full), "--seat", "1"]) == 2


def test_the_final_table_ranks_the_seats_and_marks_the_winners(crossroads: Game) -> None:
    """Issue 34: the last frame's table is in rank order with each seat's rank, points
    by category (display names, summing to its points) and the winners marked, as
    Game.scores and Game.winners have them; its picture marks the winners, its lines
    and ``outcome`` say who won; earlier frames rank the seats too but mark no winner.
    The same for a seat's frames and for its copy."""
    from tokaido_rules.render import outcome

    scores = {s.seat: s for s in crossroads.scores()}
    winners = set(crossroads.winners())
    registry = crossroads.ruleset.registry
    for found in (frames(crossroads), frames(crossroads, 2),
                  frames(load_seat_copy(dump_log(crossroads, viewer=2)))):
        last = found[-1]
        assert last["over"] and last["outcome"] == outcome(crossroads)
        assert last["lines"][-1] == outcome(crossroads)
        table = last["table"]
        assert [r["rank"] for r in table] == sorted(s.rank for s in scores.values())
        for row in table:
            score = scores[row["seat"]]
            assert row["rank"] == score.rank and row["points"] == score.total
            assert row["winner"] == (row["seat"] in winners)
            assert row["categories"] == [[registry.category_label(c), v]
                                         for c, v in score.categories.items()]
            assert sum(v for _, v in row["categories"]) == row["points"]
        assert 'data-winner="true"' in last["svg"]
        assert f'data-winners="{",".join(map(str, sorted(winners)))}"' in last["svg"]
        middle = found[len(found) // 2]
        assert not middle["over"] and middle["outcome"] == ""
        assert not any(r["winner"] for r in middle["table"])
        assert sorted(r["rank"] for r in middle["table"])[0] == 1


def test_the_page_shows_ranks_categories_facts_and_a_legend(crossroads: Game) -> None:
    """The page's table has rank and category columns (drawn by its script from each
    frame's data), a line for the outcome and the legend of the picture's marks; the
    frames' lines name the travellers chosen with their coins and powers."""
    page = replay_html(crossroads)
    assert '<p id="outcome">' in page and "data-winner" in page and '"Rank"' in page
    assert 'class="tokaido-legend"' in page and 'data-key="space:village"' in page
    assert 'data-key="family:legendary"' in page
    data = page_data(page)
    lines = [line for f in data["frames"]["all"] for line in f["lines"]]
    chosen = [line for line in lines if ": choose " in line]
    assert len(chosen) == 4 and all(" starting coins; " in line for line in chosen)
    copy_page = seat_copy_html(load_seat_copy(dump_log(crossroads, viewer=1)))
    assert 'class="tokaido-legend"' in copy_page


@pytest.mark.parametrize("viewer", [0, 2, "public"])
def test_a_narrator_given_the_events_at_hand_says_what_it_reads_from_the_lines(
        crossroads: Game, viewer: int | str) -> None:
    """A server narrates each copy from the events its feed hands out
    (``Narrator.add_shown``): every step, move by move, in the same words as the
    narrator that reads the same lines back from their text (``add``), withheld fields
    and the trailer included."""
    from tokaido_rules.log import LogFeed
    from tokaido_rules.viewer import Narrator

    state = initial_state(crossroads.state.rules, crossroads.seed)
    start = Game(state, ())
    read, made = LogFeed(start, viewer=viewer), LogFeed(start, viewer=viewer)  # type: ignore[arg-type]
    first: list[str] = read.new_lines(start)
    shown: list[Any] = []
    assert made.new_lines(start, shown) == first
    by_text, by_event = (Narrator.for_header(first[0].rstrip("\n")) for _ in range(2))
    said = by_text.add([line.rstrip("\n") for line in first[1:]])
    assert by_event.add_shown([line.rstrip("\n") for line in first[1:]], shown) == said
    steps = 0
    for seq in range(1, len(crossroads.events) + 1):
        state = fold(state, crossroads.events[seq - 1])
        game = Game(state, crossroads.events[:seq])
        lines = read.new_lines(game)
        shown = []
        assert made.new_lines(game, shown) == lines
        said = by_text.add([line.rstrip("\n") for line in lines])
        assert by_event.add_shown([line.rstrip("\n") for line in lines], shown) == said
        steps += len(said)
    assert steps > 20 and by_text.add([]) == by_event.add_shown([], [])



def test_narrators_sharing_a_game_say_each_copy_in_its_own_words(crossroads: Game) -> None:
    """A server's audiences share their feeds' and narrators' work (``FeedShare``): each
    copy is still told in the words of a narrator that reads only its own lines, so that
    no seat is told another's secret through what is shared."""
    from tokaido_rules.log import FeedShare

    viewers: list[int | str] = ["public", 0, 1, 2]
    state = initial_state(crossroads.state.rules, crossroads.seed)
    start = Game(state, ())
    alone, shared, by_text, by_share = _copies_told_twice(start, viewers)
    told: list[list[tuple[int, str]]] = [[] for _ in viewers]
    for seq in range(1, len(crossroads.events) + 1):
        state = fold(state, crossroads.events[seq - 1])
        game = Game(state, crossroads.events[:seq])
        share = FeedShare()
        for n in range(len(viewers)):
            lines = [line.rstrip("\n") for line in alone[n].new_lines(game)]
            shown: list[Any] = []
            mine = [line.rstrip("\n") for line in shared[n].new_lines(game, shown, share)]
            assert mine == lines
            said = by_text[n].add(lines)
            assert by_share[n].add_shown(mine, shown, share.read) == said
            told[n] += said
    assert len(told[0]) > 20 and len({tuple(t) for t in told}) > 1  # the copies differ


@pytest.mark.parametrize("plugins", [
    ("base",), ("base", "crossroads", "good-luck", "rare-and-precious"), ("base", "bga"),
    ("base", "gastronomy", "pilgrim"), ("base", "initiation"), ("base", "new-encounters"),
    ("base", "preparations", "tea-ceremony"), ("base", "return-journey")])
def test_a_steps_words_read_of_the_state_only_its_travellers_seats(
        plugins: tuple[str, ...]) -> None:
    """Narrators of one game share the words of a step when they read the very same
    lines and their states agree on what the words read (``viewer._who_key``): each
    traveller's seat and traveller, the ruleset aside. So the words of every step but
    the end are the same from states that keep only that: a word that read a zone, a
    coin or a game datum (which may differ between seats' copies) fails here."""
    from tokaido_rules.model import Piece
    from tokaido_rules.viewer import _step_lines, _who_key

    game = played(4, 11, plugins)
    events = game.events
    state = initial_state(game.state.rules, game.seed)
    bare = initial_state(game.state.rules, 0)  # no zone, no datum, no agenda

    def kept(full: Any) -> Any:  # only what _who_key keeps of the travellers
        out = bare.replace(pieces=tuple(Piece(seat=p.seat, traveller=p.traveller)
                                        for p in full.pieces))
        assert _who_key(out) == _who_key(full)
        return out

    told = 0
    for n, (a, b) in enumerate(_steps(events)):
        before = state
        for e in events[a:b]:
            state = fold(state, e)
        if n == 0 or state.over:  # the setup is not told; the end's words read the
            continue  # standings, and are never shared
        said = _step_lines(events[a:b], before, state, events[a])
        assert _step_lines(events[a:b], kept(before), kept(state), events[a]) == said
        told += 1
    assert told > 40


def test_narrators_sharing_words_tell_a_seat_specific_step_only_to_its_seat(
        crossroads: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """Narrators sharing their words (``FeedShare.words``, as a server's audiences do
    after the full log wrote its lines) make the words of a step once for the copies
    that read the same lines, and each copy is told what its own narrator, reading only
    its own lines, tells it: the amulet seat 0 took is named to seat 0 alone, the others
    are told that not all of it was shown to them."""
    from tokaido_rules import viewer as viewer_module
    from tokaido_rules.log import FeedShare, LogFeed

    made: list[str] = []
    real = viewer_module.Narrator._words

    def counting(*args: Any) -> str:
        said: str = real(*args)
        made.append(said)
        return said

    monkeypatch.setattr(viewer_module.Narrator, "_words", staticmethod(counting))
    viewers: list[int | str] = ["public", 0, 1, 2, 3]
    state = initial_state(crossroads.state.rules, crossroads.seed)
    start = Game(state, ())
    full = LogFeed(start, since=0)
    alone, shared, by_text, by_share = _copies_told_twice(start, viewers)
    shared_made = 0
    told: list[list[tuple[int, str]]] = [[] for _ in viewers]
    for seq in range(1, len(crossroads.events) + 1):
        state = fold(state, crossroads.events[seq - 1])
        game = Game(state, crossroads.events[:seq])
        share = FeedShare()
        full.new_lines(game, share=share)  # first, as the server's _played does
        for n in range(len(viewers)):
            shown: list[Any] = []
            mine = [line.rstrip("\n") for line in shared[n].new_lines(game, shown, share)]
            count = len(made)
            said = by_share[n].add_shown(mine, shown, share.read, share.words)
            shared_made += len(made) - count
            assert said == by_text[n].add([line.rstrip("\n") for line in
                                           alone[n].new_lines(game)])
            told[n] += said
    steps = len(told[0])
    assert steps > 20 and all(len(t) == steps for t in told)
    assert shared_made < 2 * steps  # five copies: each step's words made once or so
    amulet = [n for n in range(steps) if len({t[n] for t in told}) > 1]
    assert amulet  # a step told otherwise to one seat
    for n in amulet:
        words = [t[n][1] for t in told]
        named = [v for v, w in zip(viewers, words, strict=True) if "amulet:" not in w]
        assert len(named) == 1 and "amulet" in words[viewers.index(named[0])]
        assert all(w.endswith("not all of it shown to this seat")
                   for v, w in zip(viewers, words, strict=True) if v != named[0])


def _copies_told_twice(start: Game, viewers: list[int | str]) -> tuple[
        list[Any], list[Any], list[Any], list[Any]]:
    """For each viewer, two feeds of its copy of ``start`` (one to read alone, one to
    read with the others' share) and two narrators past its setup (one reading text,
    one told what the share holds)."""
    from tokaido_rules.log import LogFeed
    from tokaido_rules.viewer import Narrator

    alone = [LogFeed(start, viewer=v) for v in viewers]  # type: ignore[arg-type]
    shared = [LogFeed(start, viewer=v) for v in viewers]  # type: ignore[arg-type]
    heads = [feed.new_lines(start) for feed in alone]
    for feed in shared:
        feed.new_lines(start)
    by_text = [Narrator.for_header(h[0].rstrip("\n")) for h in heads]
    by_share = [Narrator.for_header(h[0].rstrip("\n")) for h in heads]
    for narrator, head in zip([*by_text, *by_share], heads * 2, strict=True):
        narrator.add([line.rstrip("\n") for line in head[1:]])
    return alone, shared, by_text, by_share


def _moved_as_before(state: Any, event: Any) -> Any:
    """A card movement folded as a narrator folded it before it was made cheaper: the
    source zone listed, each zone set on its own, then the count (the reference)."""
    have = list(state.zones.get(event.src, ()))
    if event.from_top:
        taken, left = have[:event.count], have[event.count:]
    else:
        taken = []
        for card in event.cards:
            pick = card if card in have and card != UNSEEN else next(
                (c for c in have if c.startswith(UNSEEN)), have[0] if have else None)
            if pick is not None:
                have.remove(pick)
                taken.append(pick)
        left = have
    if event.cards and not event.cards[0].startswith(UNSEEN):
        taken = list(event.cards)
    elif len(taken) < event.count:
        taken += [UNSEEN] * (event.count - len(taken))
    new = state.with_zone(event.src, tuple(left))
    target = () if event.dst == event.src else new.zones.get(event.dst, ())
    moved = tuple(taken)
    return new.with_zone(event.dst, target + moved if event.bottom else moved + target
                         ).replace(seq=state.seq + 1)


EVERY_PLUGIN = ("base", "crossroads", "new-encounters", "rare-and-precious", "good-luck",
                "initiation", "return-journey", "gastronomy", "preparations", "bga")


@pytest.mark.parametrize(("plugins", "players"), [
    (("base",), 5), (("base", "crossroads"), 3), (EVERY_PLUGIN, 4), (EVERY_PLUGIN, 2)])
def test_a_narrator_folds_a_card_movement_as_before(plugins: tuple[str, ...],
                                                    players: int) -> None:
    """Every card movement of every copy (each seat's, the public one) of a whole game,
    folded as a narrator folds what its seat saw (placeholders for cards not seen), gives
    the state the reference fold gives: every field, the zones in the same order."""
    from tokaido_rules.events import CardsMoved
    from tokaido_rules.viewer import _seen_fold

    game = new_game(players, seed=7, plugins=plugins)
    bot = RandomBot(seed=7)
    while not game.is_over:
        assert game.current_player is not None
        game = game.apply(bot.choose(game.view(game.current_player)))
    moved = 0
    for viewer in (*range(players), "public"):
        copy = load_seat_copy(dump_log(game, viewer=viewer))
        state = initial_state(copy.rules(), 0)
        for line in copy.lines:
            after = _seen_fold(state, line.event)
            if isinstance(line.event, CardsMoved):
                expected = _moved_as_before(state, line.event)
                assert after.__dict__ == expected.__dict__
                assert list(after.zones.items()) == list(expected.zones.items())
                moved += 1
            state = after
    assert moved

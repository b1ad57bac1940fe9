"""Per-seat views and log copies (RULES.md 7): public facts shown, hidden facts never."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario import MEALS, act, move, start
from tokaido_base import KeepEncounter
from tokaido_rules import DeckSet, Game, LogFeed, Setup, UnknownSeatError, dump_log, new_game
from tokaido_rules.bots import GreedyBot, RandomBot, SearchBot, next_action
from tokaido_rules.views import PUBLIC


def test_view_shows_public_facts_and_hides_deck_order() -> None:
    """Positions, coins, collections and deck sizes are public; deck order is not."""
    game = start(["kinko", "satsuki", "umegae"])
    game = move(game, 7)
    view = game.view(0)
    assert view.pieces == game.state.pieces
    assert "base.souvenirs" not in view.zones
    assert view.zone_sizes["base.souvenirs"] == 24
    assert view.zones["base.panoramas"] == game.state.zone("base.panoramas")
    assert view.collection(2) == game.state.collection(2)


def test_only_the_deciding_seat_sees_its_legal_actions() -> None:
    """legal_actions are in the view of the seat that decides, empty for others."""
    game = start(["kinko", "satsuki", "umegae"])
    assert game.view(2).legal_actions == game.legal_actions()
    assert game.view(0).legal_actions == ()
    assert game.view(0).current_player == 2


def test_inn_hand_is_seen_from_arrival_on() -> None:
    """The meal hand is hidden from a seat until its own arrival at the inn."""
    game = start(["kinko", "satsuki", "umegae"], stacks={MEALS: ["dango", "tempura", "unagi",
                                                                  "soba"]})
    game = move(game, 14)  # piece 2 arrives first and draws 4 cards
    assert game.view(2).zones["base.inn_hand"] == ("dango", "tempura", "unagi", "soba")
    assert "base.inn_hand" not in game.view(1).zones
    assert game.view(1).zone_sizes["base.inn_hand"] == 4


def test_yoshiyasus_draw_is_private() -> None:
    """Yoshiyasu's two drawn encounters are seen by him only; the returned one never."""
    game = start(["kinko", "satsuki", "yoshiyasu"],
                 stacks={"base.encounters": ["samurai", "kuge"]})
    game = move(game, 3)
    assert game.view(2).zones["base.drawn.2"] == ("samurai", "kuge")
    assert "base.drawn.2" not in game.view(0).zones
    game = act(game, KeepEncounter, card="kuge")
    copy0 = [json.loads(line) for line in dump_log(game, viewer=0).splitlines()[1:]]
    copy2 = [json.loads(line) for line in dump_log(game, viewer=2).splitlines()[1:]]
    draws0 = [e for e in copy0 if e["type"] == "core.cards_moved"
              and e["data"]["dst"] == "base.drawn.2"]
    draws2 = [e for e in copy2 if e["type"] == "core.cards_moved"
              and e["data"]["dst"] == "base.drawn.2"]
    assert draws0 == [{**draws2[0], "data": {k: v for k, v in draws2[0]["data"].items()
                                             if k != "cards"}, "withheld": ["cards"]}]
    assert draws0[0]["data"]["count"] == 2
    back = [e for e in copy2 if e["type"] == "core.cards_moved"
            and e["data"]["dst"] == "base.encounters"]
    assert back and back[0]["withheld"] == ["cards"]  # returned unseen, even to him


def test_traveller_offers_are_private() -> None:
    """Each seat sees its own two tiles, not the others'."""
    game = new_game(3, seed=4)
    for seat in range(3):
        view = game.view(seat)
        assert f"base.offer.{seat}" in view.data
        assert all(f"base.offer.{other}" not in view.data for other in range(3) if other != seat)


@pytest.mark.parametrize("seat", [-1, 3, "0", True])
def test_unknown_seat(seat: object) -> None:
    """A view of a seat that is not in the game raises UnknownSeatError."""
    with pytest.raises(UnknownSeatError):
        new_game(3).view(seat)  # type: ignore[arg-type]


def test_copy_keeps_every_seq_and_type_and_has_no_seed() -> None:
    """A seat's copy has one line per event with its seq and type; no seed, no stacks."""
    game = new_game(4, seed=12)
    bot = RandomBot(3)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
    full = dump_log(game).splitlines()
    for seat in range(4):
        copy = dump_log(game, viewer=seat).splitlines()
        head = json.loads(copy[0])
        assert "seed" not in head and head["viewer"] == seat
        assert "stacks" not in head["setup"] and "chance" not in head["setup"]
        assert len(copy) == len(full)
        for a, b in zip(full[1:], copy[1:], strict=True):
            ea, eb = json.loads(a), json.loads(b)
            assert (ea["seq"], ea["type"], ea["v"]) == (eb["seq"], eb["type"], eb["v"])
            assert set(eb["data"]) | set(eb.get("withheld", ())) == set(ea["data"])


def tail_shuffled(order: tuple[str, ...], keep: int) -> tuple[str, ...]:
    """The same deck with its cards below ``keep`` in reverse order."""
    return order[:keep] + tuple(reversed(order[keep:]))


def twin(game: Game, seed: int, keep: int, decisions: int) -> Game:
    """The same game with every hidden deck's lower part reordered, same decisions."""
    decks = {e.zone: e.cards for e in game.events[:6] if isinstance(e, DeckSet)}
    chance = {f"shuffle.{zone}": [tail_shuffled(cards, keep)]
              for zone, cards in decks.items() if zone not in ("base.panoramas",
                                                               "base.achievements")}
    other = new_game(game.players, seed=seed, setup=Setup(chance=chance))
    for event in game.events:
        if other.state.seq >= game.state.seq:
            break
        if event in other.legal_actions():
            other = other.apply(event)
    assert other.state.seq == game.state.seq
    return other


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_hidden_deck_order_does_not_reach_copies_or_views(players: int) -> None:
    """Changing what seats cannot see (the order of the unseen part of every deck) leaves
    every seat's view and log copy byte-identical, while the full logs differ."""
    for seed in range(3):
        game = new_game(players, seed=seed)
        bot = RandomBot(seed)
        for _ in range(12):
            game = game.apply(next_action(bot, game))
        other = twin(game, seed, keep=10, decisions=12)
        assert dump_log(other) != dump_log(game)
        for seat in range(players):
            assert dump_log(other, viewer=seat) == dump_log(game, viewer=seat)
            a, b = other.view(seat), game.view(seat)
            assert (a.zones, a.zone_sizes, a.data, a.pieces, a.legal_actions) == (
                b.zones, b.zone_sizes, b.data, b.pieces, b.legal_actions)


def test_other_seats_offers_do_not_reach_a_seat() -> None:
    """Swapping the tiles offered to other seats leaves a seat's view and copy identical."""
    offers = {"travellers.0": [("kinko", "satsuki")], "travellers.1": [("umegae", "chuubei")],
              "travellers.2": [("hirotada", "mitsukuni")]}
    swapped = {**offers, "travellers.1": [("zenemon", "yoshiyasu")],
               "travellers.2": [("umegae", "chuubei")]}
    a = new_game(3, seed=1, setup=Setup(chance=offers))
    b = new_game(3, seed=1, setup=Setup(chance=swapped))
    assert dump_log(a) != dump_log(b)
    assert dump_log(a, viewer=0) == dump_log(b, viewer=0)
    assert a.view(0).data == b.view(0).data


def test_next_inns_hand_is_hidden_from_those_still_at_the_previous_inn() -> None:
    """A seat still waiting at an inn does not see the hand drawn at the next inn."""
    game = start(["hirotada", "zenemon", "umegae"], coins={0: 0, 1: 0, 2: 0})
    for _ in range(3):
        game = move(game, 14)  # all three at inn 14, with no coin: "no meal" while hidden
        if game.current_step is not None and game.current_step.kind == "base.meal":
            game = game.apply(game.legal_actions()[0])
    mover = game.current_player
    assert mover is not None
    game = move(game, 27)  # the first to leave goes straight to inn 27 and draws
    hand = game.state.zone("base.inn_hand")
    assert len(hand) == 4
    assert game.view(mover).zones["base.inn_hand"] == hand
    for seat in range(3):
        if seat != mover:
            assert "base.inn_hand" not in game.view(seat).zones
            draws = [json.loads(line) for line in dump_log(game, viewer=seat).splitlines()[1:]
                     if '"dst":"base.inn_hand"' in line]
            assert draws[-1]["withheld"] == ["cards"]


# --- the public view and the public copy of the log (a spectator's) --------------------


def seats_in_common(game: Game) -> tuple[dict[str, tuple[str, ...]], dict[str, object]]:
    """The zones and data every seat's view holds, with their values."""
    views = [game.view(seat) for seat in range(game.players)]
    zones = {name: cards for name, cards in views[0].zones.items()
             if all(name in v.zones for v in views)}
    data = {key: value for key, value in views[0].data.items()
            if all(key in v.data for v in views)}
    return zones, data


def check_public_view(game: Game) -> None:
    """The public view holds what every seat's view holds, and nothing else."""
    view = game.public_view()
    zones, data = seats_in_common(game)
    assert view.seat is None and view.legal_actions == ()
    assert dict(view.zones) == zones and dict(view.data) == data
    assert view.zone_sizes == game.view(0).zone_sizes
    assert set(view.hidden_backs) == set(game.state.zones) - set(zones)
    assert view.zone_backs == game.view(0).zone_backs  # card backs are public
    assert (view.pieces, view.agenda, view.current_player, view.current_step) == (
        game.state.pieces, game.state.agenda, game.current_player, game.current_step)
    assert (view.players, view.seq, view.turn, view.over) == (
        game.players, game.state.seq, game.state.turn, game.is_over)
    assert game.view(None) == view


def test_the_public_view_hides_an_inn_hand_until_every_seat_has_seen_it() -> None:
    """A 3-player base game: the first traveller at the inn sees the meal hand, the
    public view does not, until every traveller has arrived; then it shows it."""
    game = start(["kinko", "satsuki", "umegae"], stacks={MEALS: ["dango", "tempura", "unagi",
                                                                  "soba"]})
    game = move(game, 14)
    hand = game.state.zone("base.inn_hand")
    view = game.public_view()
    assert game.view(2).zones["base.inn_hand"] == hand
    assert "base.inn_hand" not in view.zones and view.zone_sizes["base.inn_hand"] == 4
    assert view.hidden_backs["base.inn_hand"] == {"base.meals": 4}
    check_public_view(game)
    while any(p.position != 14 for p in game.state.pieces):
        if game.current_step is not None and game.current_step.kind == "core.move":
            game = move(game, 14)
        else:
            game = game.apply(game.legal_actions()[0])
        check_public_view(game)
    assert game.public_view().zones["base.inn_hand"] == game.state.zone("base.inn_hand")


@pytest.mark.parametrize(("plugins", "players"), [(("base",), 3), (("base", "crossroads"), 3),
                                                  (("base", "crossroads", "good-luck"), 2)])
def test_the_public_view_is_what_every_seat_sees_at_every_decision(
        plugins: tuple[str, ...], players: int) -> None:
    """Over random games: the public view is the intersection of the seats' views, and
    no zone a single seat holds secretly (Crossroads amulets, a private draw, the meal
    hand) shows in it."""
    secret = seen = 0
    for seed in range(3):
        game = new_game(players, seed=seed, plugins=plugins)
        bot = RandomBot(seed)
        while not game.is_over:
            check_public_view(game)
            public = game.public_view().zones
            for name in game.state.zones:
                private = [s for s in range(players) if name in game.view(s).zones]
                if game.state.zones[name] and 0 < len(private) < players:
                    assert name not in public
                    secret += 1
                    if name.startswith(("core.secret.", "base.drawn.", "base.inn_hand")):
                        seen += 1
            game = game.apply(next_action(bot, game))
        check_public_view(game)
    assert secret > 0 and seen > 0


def test_a_public_view_determinizes_and_draws_as_a_spectator_sees_it() -> None:
    """``determinize`` completes a public view like a seat's; pictures of it say whose
    they are."""
    from tokaido_rules import determinize
    from tokaido_rules.render import svg, text

    game = start(["kinko", "satsuki", "umegae"])
    game = move(game, 14)
    view = game.public_view()
    world = determinize(view, seed=3)
    assert world.state.pieces == game.state.pieces and world.state.seq == game.state.seq
    assert len(world.state.zone("base.inn_hand")) == len(game.state.zone("base.inn_hand"))
    assert "as a spectator sees it" in text(view)
    assert "as a spectator sees it" in svg(view)
    assert "as seat 1 sees it" in text(game.view(1))
    assert "spectator" not in text(game)
    for bot in (GreedyBot(1), SearchBot(1)):  # bots get their seat's view, never this one
        with pytest.raises(ValueError, match="public view"):
            bot.choose(view)


def played(plugins: tuple[str, ...], players: int, seed: int) -> Game:
    game = new_game(players, seed=seed, plugins=plugins)
    bot = RandomBot(seed)
    while not game.is_over:
        game = game.apply(next_action(bot, game))
    return game


@pytest.mark.parametrize(("plugins", "players"), [(("base",), 3), (("base", "crossroads"), 4),
                                                  (("base", "crossroads", "good-luck"), 2)])
def test_the_public_copy_withholds_what_some_seat_may_not_see(plugins: tuple[str, ...],
                                                             players: int) -> None:
    """The public copy keeps every line, with the fields every seat's copy shows (their
    values those of the full log) and the others withheld; no seed, no hidden setup."""
    game = played(plugins, players, 5)
    full = [json.loads(line) for line in dump_log(game).splitlines()]
    seats = [[json.loads(line) for line in dump_log(game, viewer=s).splitlines()]
             for s in range(players)]
    public = [json.loads(line) for line in dump_log(game, viewer=PUBLIC).splitlines()]
    assert public[0] == {**{k: v for k, v in full[0].items() if k != "seed"},
                         "viewer": "public", "setup": seats[0][0]["setup"]}
    assert "stacks" not in public[0]["setup"] and "chance" not in public[0]["setup"]
    assert len(public) == len(full)
    withheld = 0
    for n, line in enumerate(public[1:], 1):
        shown = set.intersection(*(set(copy[n]["data"]) for copy in seats))
        if line["type"] == "core.log_end":
            assert line == full[n]
            continue
        assert set(line["data"]) == shown
        assert line["data"] == {k: full[n]["data"][k] for k in shown}
        assert line.get("withheld", []) == [k for k in full[n]["data"] if k not in shown]
        withheld += bool(line.get("withheld"))
    assert withheld > 0
    text = dump_log(game, viewer="public")
    assert text == "".join(LogFeed(game, viewer=PUBLIC).new_lines(game))
    assert str(game.seed) not in text.splitlines()[0]


def test_the_public_copy_goes_as_the_game_goes_and_loads() -> None:
    """A public LogFeed hands out the lines of ``dump_log(game, viewer="public")`` a few
    at a time (also from ``since``); ``load_seat_copy`` reads the copy, and the replay
    viewer draws it as a spectator sees it."""
    from tokaido_rules.log import load_seat_copy
    from tokaido_rules.viewer import seat_copy_html

    game = new_game(3, seed=8, plugins=["base", "crossroads"])
    feed = LogFeed(game, viewer=PUBLIC)
    lines = feed.new_lines(game)
    bot = RandomBot(8)
    middle = None
    while not game.is_over:
        game = game.apply(next_action(bot, game))
        lines += feed.new_lines(game)
        if middle is None and game.state.turn == 10:
            middle = game
    assert "".join(lines) == dump_log(game, viewer=PUBLIC)
    assert middle is not None
    later = LogFeed(game, viewer=PUBLIC, since=middle.state.seq)
    assert "".join(later.new_lines(game)) == "".join(lines[1 + middle.state.seq:])
    copy = load_seat_copy(dump_log(game, viewer=PUBLIC))
    assert copy.viewer == PUBLIC and copy.complete and len(copy.lines) == len(game.events)
    page = seat_copy_html(copy)
    assert "public copy of the log" in page and "as a spectator sees it" in page
    hand = [line for line in copy.lines if line.data.get("dst") == "base.inn_hand"]
    assert hand and all("cards" in line.withheld for line in hand[:1])


@pytest.mark.parametrize("viewer", ["everyone", -1, 3, True])
def test_an_unknown_viewer_is_refused(viewer: object) -> None:
    """A copy of the log is a seat's, the public one, or (None) the full log."""
    with pytest.raises(UnknownSeatError):
        LogFeed(new_game(3), viewer=viewer)  # type: ignore[arg-type]


def test_tokaido_replay_reads_a_public_copy(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``tokaido replay`` tells a public copy's steps and writes its viewer page; it
    cannot show a seat from it."""
    from tokaido_rules.cli import main

    path = tmp_path / "public.jsonl"
    path.write_text(dump_log(played(("base",), 3, 2), viewer=PUBLIC), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert "the public copy of the log, what every seat saw" in capsys.readouterr().out
    page = tmp_path / "public.html"
    assert main(["replay", str(path), "--html", str(page)]) == 0
    assert "spectator" in page.read_text(encoding="utf-8")
    assert main(["replay", str(path), "--html", str(page), "--seat", "1"]) != 0
    assert "the public copy of the log: it cannot show seat 1" in capsys.readouterr().err

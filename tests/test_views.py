"""Per-seat views and log copies (RULES.md 7): public facts shown, hidden facts never."""

from __future__ import annotations

import json

import pytest

from scenario import MEALS, act, move, start
from tokaido_base import KeepEncounter
from tokaido_rules import DeckSet, Game, Setup, UnknownSeatError, dump_log, new_game
from tokaido_rules.bots import RandomBot, next_action


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

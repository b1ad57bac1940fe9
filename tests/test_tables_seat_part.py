"""A seat's part of a table's update made with less work (issue 43): a move sent
exactly as the mover's update offered it is found among the legal actions without
decoding, and is what decoding would have found; anything else is decoded and refused
as before. A purse made of the very piece and cards it was made of before is the same,
and each seat's purse reaches that seat only."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from tokaido_rules import decode_action
from tokaido_rules.tables import Lobby, Table, TableError, _feed_copy
from tokaido_rules.wire import encode_action

PLUGINS = [["base"], ["base", "crossroads", "new-encounters", "gastronomy"]]


def _table(plugins: list[str], players: int, seed: int) -> Table:
    lobby = Lobby(None)
    table, _ = lobby.create(players, plugins, seed=seed)
    for seat in range(players):
        table.join(seat)
    return table


def _forged(data: dict[str, Any]) -> list[object]:
    """Near misses of an offered action: each field's value of another JSON type, a
    field more, a field less, the same as text."""
    out: list[object] = [json.dumps(data), {**data, "extra": 1}]
    for key, value in data.items():
        out.append({k: v for k, v in data.items() if k != key})
        if type(value) is int:
            out += [{**data, key: float(value)}, {**data, key: str(value)},
                    {**data, key: value == 1}]
        elif type(value) is bool:
            out.append({**data, key: int(value)})
        elif value is None:
            out += [{**data, key: 0}, {**data, key: False}]
    return out


def _refusal(table: Table, seat: int, body: dict[str, Any]) -> tuple[int, str] | None:
    try:
        table.act(seat, body)
    except TableError as exc:
        return exc.status, str(exc)
    return None


@pytest.mark.parametrize("plugins", PLUGINS, ids="+".join)
def test_an_offered_move_is_the_legal_action_decoding_finds(plugins: list[str]) -> None:
    """At every decision of a game, each action the mover's update offers, sent back as
    JSON, is found without decoding as the very legal action that decoding and
    :meth:`Game.apply` record; near misses are not found, and are refused as a table
    without the offer refuses them (same status, same words)."""
    table = _table(plugins, 3, 7)
    bare = _table(plugins, 3, 7)  # never offered anything: every move decoded
    rng = random.Random(7)
    forged = decided = 0
    while not table.game.is_over:
        decided += 1
        game = table.game
        seat = game.current_player
        assert seat is not None
        update = json.loads(table.update(seat, game.state.seq))
        offered = [json.loads(json.dumps(a["action"])) for a in update["actions"]]
        assert len(offered) == len(game.legal_actions())
        for data, legal in zip(offered, game.legal_actions(), strict=True):
            found = table._offered_action(data)
            assert found is legal
            decoded = decode_action(data, game.ruleset)
            assert next(a for a in game.legal_actions() if a == decoded) is legal
        data = rng.choice(offered)
        if decided % 3 == 0:
            for near in _forged(data):
                assert table._offered_action(near) is None
                body = {"action": near, "expected_seq": game.state.seq}
                assert _refusal(table, seat, body) == _refusal(bare, seat, body)
                forged += 1
                if table.game is not game:  # decoded alike (a default left out)
                    assert table.game.events == bare.game.events
                    break
            if table.game is not game:
                continue
        table.act(seat, {"action": data, "expected_seq": game.state.seq})
        bare.act(seat, {"action": json.loads(json.dumps(data)),
                        "expected_seq": game.state.seq})
        assert table.game.events == bare.game.events
        assert table.game.events[game.state.seq] is next(
            a for a in game.legal_actions() if encode_action(a) == data)
    assert forged > 10


def test_an_offer_of_another_game_is_not_taken() -> None:
    """The offer is of the game it was made for: once the game moved on (or a seat
    that is not the mover asks), an action is decoded as any other."""
    table = _table(["base"], 2, 3)
    seat = table.game.current_player
    assert seat is not None
    update = json.loads(table.update(seat, 0))
    data = update["actions"][0]["action"]
    assert table._offered_action(data) is not None
    table.act(seat, {"action": data, "expected_seq": update["seq"]})
    assert table._offered_action(data) is None
    with pytest.raises(TableError) as refused:
        table.act(seat, {"action": data, "expected_seq": update["seq"]})
    assert refused.value.status == 409


@pytest.mark.parametrize("plugins", PLUGINS, ids="+".join)
def test_a_kept_purse_is_the_one_made_anew_and_only_its_seats(plugins: list[str]) -> None:
    """At every seq, each seat's purse as the table gives it (kept entries where the
    piece and its cards are the same objects) equals one made with nothing kept, and
    holds that seat's pieces only, in its own update."""
    players = 3
    table = _table(plugins, players, 11)
    rng = random.Random(11)
    while True:
        game = table.game
        for seat in range(players):
            view = table._view(game, seat)
            kept = table._purse(view)
            saved, table._purses = table._purses, {}
            assert table._purse(view) == kept
            table._purses = saved
            assert {p["piece"] for p in kept} == {
                n for n, piece in enumerate(game.state.pieces) if piece.seat == seat}
            update = json.loads(table.update(seat, game.state.seq))
            assert update["purse"] == kept
        if game.is_over:
            break
        mover = game.current_player
        assert mover is not None
        action = rng.choice(game.legal_actions())
        table.act(mover, {"action": encode_action(action), "expected_seq": game.state.seq})


def _forget(table: Table) -> None:
    """Drop what a table keeps from one version to the next for a seat's part."""
    table._takeback_docs.clear()
    table._purses.clear()


@pytest.mark.parametrize("plugins", PLUGINS, ids="+".join)
def test_updates_with_kept_texts_are_those_made_anew(plugins: list[str]) -> None:
    """Every seat's and the spectator's update (answers and pushes with their memory of
    what they were told) is, at every seq, the text a table that keeps nothing from
    one version to the next gives."""
    players = 3
    table, fresh = _table(plugins, players, 5), _table(plugins, players, 5)
    fresh.id, fresh.name = table.id, table.name  # told in the head: alike
    audiences: list[int | None] = [*range(players), None]
    told: dict[int | None, dict[str, str]] = {a: {} for a in audiences}
    told_fresh: dict[int | None, dict[str, str]] = {a: {} for a in audiences}
    at = dict.fromkeys(audiences, 0)
    rng = random.Random(5)
    while True:
        game = table.game
        for audience in audiences:
            _forget(fresh)
            assert (table.update(audience, at[audience], 0, told[audience])
                    == fresh.update(audience, at[audience], 0, told_fresh[audience]))
            assert told[audience] == told_fresh[audience]
            _forget(fresh)
            assert table.update(audience, 0) == fresh.update(audience, 0)
            at[audience] = game.state.seq
        if game.is_over:
            break
        mover = game.current_player
        assert mover is not None
        body = {"action": encode_action(rng.choice(game.legal_actions())),
                "expected_seq": game.state.seq}
        table.act(mover, body)
        fresh.act(mover, json.loads(json.dumps(body)))


def test_a_feed_copy_is_what_copy_makes() -> None:
    table = _table(["base"], 2, 1)
    made = _feed_copy(table._full)
    assert made is not table._full and type(made) is type(table._full)
    assert vars(made) == vars(copy.copy(table._full))

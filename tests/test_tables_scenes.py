"""A table's scenes as JSON text, shared between its audiences by identity (the parts of
the very same values, the patches between the very same parts, the notes' lists and
cards' facts found by the identity of what they are made from): every text is the
one made afresh, byte for byte, and a seat's own cards reach its own scenes only."""

from __future__ import annotations

import gc
import json
import random
from typing import Any

import pytest

from tokaido_rules import Registry, Ruleset, new_game
from tokaido_rules.render import SceneMemo, scene_json
from tokaido_rules.tables import Lobby, _dumps, _scene_parts, _scene_patch, _scene_text
from tokaido_rules.wire import encode_action


def _fresh(game: Any, audience: int | None) -> dict[str, Any]:
    return scene_json(game.public_view() if audience is None else game.view(audience),
                      memo=SceneMemo())


@pytest.mark.parametrize(("plugins", "players", "seed"), [
    (("base", "crossroads", "new-encounters", "good-luck", "pilgrim", "tea-ceremony",
      "gastronomy", "rare-and-precious", "return-journey", "preparations", "initiation"),
     4, 5),
    (("base", "return-journey", "preparations", "initiation", "bga"), 3, 2)])
def test_every_scene_and_patch_of_a_table_is_the_one_made_afresh_byte_for_byte(
        plugins: tuple[str, ...], players: int, seed: int) -> None:
    """Along a whole game with every built-in plugin, each audience asked in a random
    order at every seq: the table's text of its scene is, byte for byte, the one made
    from the scene of its own view by a memo of its own from a game of another ruleset
    (each audience's chain of parts alone, nothing shared between them), its patch
    from its scene before is the one made with nothing shared, and every scene is the
    JSON of a new memo's; a seat's own piece's cards are in its own scene only."""
    lobby = Lobby()
    table, _ = lobby.create(players, list(plugins), seed=seed)
    for seat in range(players):
        table.join(seat)
    fresh = new_game(players, seed=table.game.seed, plugins=Ruleset.build(plugins, {}),
                     setup=table.game.state.rules.setup)
    rng = random.Random(seed)
    audiences: list[int | None] = [*range(players), None]
    before: dict[int | None, Any] = {}
    alone: dict[int | None, tuple[SceneMemo, dict[object, Any], Any]] = {
        audience: (SceneMemo(), {}, None) for audience in audiences}
    owned = checked = 0
    while True:
        seq = table.game.state.seq
        for audience in rng.sample(audiences, len(audiences)):
            memo, texts, last = alone[audience]
            expected = scene_json(fresh.public_view() if audience is None
                                  else fresh.view(audience), memo=memo)
            mine = _scene_parts(expected, last, texts)
            alone[audience] = (memo, texts, (expected, mine))
            text = table.scene_json(audience)
            assert text == _scene_text(mine), (audience, seq)
            assert text is not None and json.loads(text) == json.loads(
                _dumps(_fresh(fresh, audience)))
            found = table._scene(audience, seq)
            assert found is not None
            parts = found[1]
            if audience in before:
                shared = _scene_patch(before[audience], parts, table._texts)
                assert shared == _scene_patch(last[1], mine), (audience, seq)
            before[audience] = parts
            for piece in json.loads(table.scene_json(audience) or "")["pieces"]:
                own = piece["seat"] is not None and piece["seat"] == audience
                assert ("cards" in piece) == own
                owned += own and bool(piece["cards"])
            checked += 1
        if fresh.is_over:
            break
        mover = table.game.current_player
        assert mover is not None
        actions = table.game.view(mover).legal_actions
        action = actions[rng.randrange(len(actions))]
        table.act(mover, {"action": encode_action(action), "expected_seq": seq})
        fresh = fresh.apply(action)
    assert checked > 20 * (players + 1) and owned > 20


def test_a_part_and_a_patch_are_shared_only_for_the_very_same_objects() -> None:
    """Two audiences whose scenes show the very same value under a key share its part
    and the patch between the very same parts; a value of one audience alone (a seat's
    own cards) gets its own part, and the other audience's patch does not carry it."""
    memo: dict[object, Any] = {}
    board = [{"kind": "inn"}]
    one_before = {"seq": 1, "board": board, "pieces": [{"seat": 0}]}
    two_before = {"seq": 1, "board": board, "pieces": [{"seat": 0}]}
    texts_one = _scene_parts(one_before, None, memo)
    texts_two = _scene_parts(two_before, None, memo)
    common = [{"seat": 0, "coins": 3}]
    one = {"seq": 2, "board": board, "pieces": [{**common[0], "cards": ["sake"]}]}
    two = {"seq": 2, "board": board, "pieces": common}
    parts_one = _scene_parts(one, (one_before, texts_one), memo)
    parts_two = _scene_parts(two, (two_before, texts_two), memo)
    assert parts_one["board"] is parts_two["board"]
    assert parts_one["pieces"] != parts_two["pieces"]
    patch_one = _scene_patch(texts_one, parts_one, memo)
    patch_two = _scene_patch(texts_two, parts_two, memo)
    assert "sake" in patch_one and "sake" not in patch_two
    assert json.loads(patch_two) == {"seq": 2, "pieces/0": {"seat": 0, "coins": 3}}
    three = {"seq": 2, "board": board, "pieces": common}  # the same list: shared
    parts_three = _scene_parts(three, (two_before, texts_two), memo)
    assert parts_three["pieces"] is parts_two["pieces"]
    assert _scene_patch(texts_two, parts_three, memo) == patch_two


def test_the_base_game_keeps_its_notes_for_every_living_ruleset() -> None:
    """The base game's notes are kept per registry for as many rulesets as are alive
    (a server's tables: more than a few dozen), each dropped with its registry."""
    from tokaido_base import pictures
    from tokaido_rules.render import notes

    games = [new_game(2, seed=n, plugins=Ruleset.build(("base",), {})) for n in range(80)]
    for game in games:
        notes(game.view(0))
    registries = [game.ruleset.registry for game in games]
    assert all(pictures._KEPT[id(r)].ref() is r for r in registries)
    lone = Registry()  # a registry of no ruleset that another memo keeps
    key = id(lone)
    assert pictures._kept(lone) is pictures._kept(lone)
    del lone
    gc.collect()
    assert key not in pictures._KEPT


def test_a_memo_shares_notes_and_cards_only_between_scenes_that_show_the_same() -> None:
    """Along a game, the scenes of one seq made with one memo: two audiences told the
    very same notes share the list of their entries; the ``cards`` (the facts shown)
    are shared only with the same own cards, and a seat's are those of its own
    piece's cards and of its notes' cards, no more (another seat's own cards' facts
    only where that audience sees them named)."""
    from tokaido_rules.render import notes

    game = new_game(4, seed=5, plugins=Ruleset.build(("base", "crossroads"), {}))
    rng = random.Random(2)
    memo = SceneMemo()
    shared_notes = steps = 0
    while not game.is_over and steps < 120:
        views = [game.view(seat) for seat in range(4)] + [game.public_view()]
        scenes = [scene_json(view, memo=memo) for view in views]
        for a, (view_a, scene_a) in enumerate(zip(views, scenes, strict=True)):
            own = {c for p in scene_a["pieces"] if "cards" in p for c in p["cards"]}
            named = {c for note in notes(view_a) for c in note.cards}
            assert set(scene_a["cards"]) == own | named
            for view_b, scene_b in zip(views[a + 1:], scenes[a + 1:], strict=True):
                if scene_a["notes"] is scene_b["notes"]:
                    shared_notes += 1
                    assert notes(view_a) == notes(view_b)
                if scene_a["cards"] is scene_b["cards"]:
                    assert scene_a["notes"] is scene_b["notes"]
                    assert [p.get("cards") for p in scene_a["pieces"]
                            if p["seat"] == view_a.seat] == [
                        p.get("cards") for p in scene_b["pieces"] if p["seat"] == view_b.seat]
        game = game.apply(rng.choice(game.legal_actions()))
        steps += 1
    assert shared_notes > steps

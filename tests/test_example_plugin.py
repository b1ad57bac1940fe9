"""The third-party path: the example distribution in examples/ is installed (by the test
command, as a user would) and its plugins play complete, conforming games, on the
reference engine and on the fast simulator (their own fast rules, additive)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from scenario import act, coins, move, points, start
from tokaido_base import BuyMeal
from tokaido_rules import (
    Action,
    Move,
    Ruleset,
    Setup,
    dump_log,
    installed_plugins,
    load_log,
    new_game,
)
from tokaido_rules.cli import plugin_rows
from tokaido_rules.fast import FastGame, compare, why_not_covered
from tokaido_rules.testing import run_conformance


def test_example_plugins_are_discovered() -> None:
    """Both plugins of the example distribution are found through entry points."""
    assert {"pilgrim", "tea-ceremony"} <= set(installed_plugins())
    rows = {row["id"]: row for row in plugin_rows()}
    assert rows["pilgrim"]["distribution"] == "tokaido-example-plugin"
    assert rows["tea-ceremony"]["requires"] == ["base"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_example_plugins_conform(players: int) -> None:
    """The conformance kit passes with the example plugins, with and without Crossroads."""
    run_conformance(["base", "pilgrim", "tea-ceremony"], players=players, games=2)
    run_conformance(["base", "crossroads", "pilgrim"], players=players, games=1)


def test_basho_earns_a_coin_per_encounter_card() -> None:
    """Basho (5 coins) gains 1 coin with each encounter card, after the card's effect."""
    game = start(["kinko", "basho", "satsuki"], plugins=("base", "pilgrim"),
                 queue=(0, 2, 1), stacks={"base.encounters": ["kuge"]})
    assert coins(game, 1) == 5
    game = move(game, 3)
    assert coins(game, 1) == 5 + 3 + 1


def test_last_arrival_at_an_inn_is_served_tea() -> None:
    """Tea ceremony: only the last traveller to arrive at an intermediate inn scores."""
    game = start(["kinko", "zenemon", "umegae"], plugins=("base", "tea-ceremony"),
                 options={"tea-ceremony.points": 2}, coins={0: 0, 1: 0, 2: 0})
    for _ in range(3):
        game = move(game, 14)
        if game.legal_actions() and isinstance(game.legal_actions()[0], BuyMeal):
            game = act(game, BuyMeal, meal=None)
    assert [points(game, i, "tea") for i in range(3)] == [2, 0, 0]
    text = dump_log(game)
    assert '"type":"tea-ceremony.tea_served"' in text
    assert load_log(text).state == game.state
    assert '"tea-ceremony.tea_served","v":1,"data":{"piece":0,"points":2}' in dump_log(
        game, viewer=1)


# --- on the fast simulator -------------------------------------------------------------

EXAMPLE_RULESETS = [
    (ids, {"tea-ceremony.points": points} if "tea-ceremony" in ids else {})
    for ids in (("base", "pilgrim"), ("base", "tea-ceremony"), ("base", "pilgrim", "tea-ceremony"),
                ("base", "crossroads", "pilgrim"), ("base", "crossroads", "tea-ceremony"),
                ("base", "crossroads", "pilgrim", "tea-ceremony"))
    for points in ((1, 2) if "tea-ceremony" in ids else (1,))
]
"""The example plugins alone, together and with Crossroads, tea at both values."""


@pytest.mark.parametrize(("ids", "options"), EXAMPLE_RULESETS, ids=[
    "+".join(ids) + "".join(f",{v}" for v in options.values())
    for ids, options in EXAMPLE_RULESETS])
def test_the_example_plugins_are_covered_by_the_fast_simulator(
        ids: tuple[str, ...], options: dict[str, object]) -> None:
    """Both give fast rules through ``tokaido_fast_rules``, so these rulesets play fast."""
    assert why_not_covered(Ruleset.build(ids, options)) is None


def _take(game: FastGame, cls: type[Any], **fields: Any) -> FastGame:
    """Apply the one legal action of type ``cls`` whose fields equal ``fields``."""
    found = [a for a in game.legal_actions() if isinstance(a, cls)
             and all(getattr(a, k) == v for k, v in fields.items())]
    assert len(found) == 1, (cls, fields, game.legal_actions())
    return game.apply(found[0])


def test_basho_earns_his_coin_on_the_fast_simulator() -> None:
    """Basho's encounter card pays him 1 coin on the fast simulator too, as on the
    reference: Kuge's 3 coins and Basho's 1; the same state of every traveller's coins
    and the same count of events."""
    setup = Setup(travellers=("kinko", "basho", "satsuki"), queue=(0, 2, 1),
                  stacks={"base.encounters": ("kuge",)})
    fast = FastGame.new(3, plugins=["base", "pilgrim"], setup=setup)
    reference = new_game(3, plugins=["base", "pilgrim"], setup=setup)
    fast = _take(fast, Move, position=3)
    reference = move(reference, 3)
    assert fast.coins[1] == 5 + 3 + 1
    assert fast.coins[:3] == [coins(reference, i) for i in range(3)]
    assert fast.state_seq == reference.state.seq


def _index_chooser(seed: int) -> Callable[[tuple[Action, ...]], int]:
    """A seeded random choice of the index of a legal action."""
    rng = random.Random(seed)
    return lambda legal: rng.randrange(len(legal))


@pytest.mark.parametrize("plugins", [("base", "pilgrim"), ("base", "crossroads", "pilgrim")])
def test_games_with_basho_play_the_reference_games(plugins: tuple[str, ...]) -> None:
    """Basho given to a seat, so that his power acts: equal to the reference at every
    decision, in the scores and in the log of the replay."""
    ruleset = Ruleset.build(plugins)
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4)):
        travellers = ("basho", *random.Random(seed).sample(
            sorted(set(ruleset.registry.travellers) - {"basho"}), players - 1))
        game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers)
        fast = FastGame.new(players, seed=seed, plugins=ruleset, travellers=travellers)
        found, decisions = compare(game, fast, _index_chooser(seed))
        assert found is None and decisions > 20, found


@pytest.mark.parametrize("served", [1, 2])
def test_tea_on_the_fast_simulator_at_intermediate_inns_only(served: int) -> None:
    """The last of three travellers to reach the first inn is served tea (``served``
    points), the others not; over the whole journey each intermediate inn serves one
    traveller and the final inn none, and every serving is a ``tea_served`` event in
    the log of the game's reference replay."""
    ruleset = Ruleset.build(["base", "tea-ceremony"], {"tea-ceremony.points": served})
    setup = Setup(travellers=("kinko", "zenemon", "umegae"), queue=(0, 1, 2),
                  coins={0: 0, 1: 0, 2: 0})
    game = FastGame.new(3, plugins=ruleset, setup=setup)
    for _ in range(3):
        game = _take(game, Move, position=14)
        if game.legal_actions() and isinstance(game.legal_actions()[0], BuyMeal):
            game = _take(game, BuyMeal, meal=None)
    tea = [dict(s.categories).get("tea", 0) for s in game.scores()]
    assert tea == [served, 0, 0]
    choose = random.Random(served).choice
    while not game.is_over:
        game.apply(choose(game.legal_actions()))
    board = ruleset.registry.board
    inns = sum(1 for i, space in enumerate(board) if space.inn and 0 < i < len(board) - 1)
    scores = game.scores()
    assert sum(dict(s.categories).get("tea", 0) for s in scores) == served * inns
    replay = game.to_game()
    assert scores == replay.scores()
    lines = [json.loads(line) for line in dump_log(replay).splitlines()]
    served_lines = [line["data"] for line in lines
                    if line.get("type") == "tea-ceremony.tea_served"]
    assert len(served_lines) == inns and {d["points"] for d in served_lines} == {served}


def test_the_reference_engine_never_loads_the_example_fast_rules() -> None:
    """A reference game with both example plugins loads neither the kernel nor their
    fast rules (the hooks import them only when the fast simulator asks)."""
    code = textwrap.dedent("""
        import random, sys
        from tokaido_rules import new_game
        game = new_game(4, seed=3, plugins=["base", "crossroads", "pilgrim", "tea-ceremony"],
                        travellers=["basho", "kinko", "zenemon", "umegae"])
        choose = random.Random(3).choice
        while not game.is_over:
            game = game.apply(choose(game.legal_actions()))
        game.scores()
        print(sorted(m for m in sys.modules if "fast" in m.rsplit(".", 1)[-1]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ}, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

"""The third-party path: the example distribution in examples/ is installed (by the test
command, as a user would) and its plugins play complete, conforming games."""

from __future__ import annotations

import pytest

from scenario import act, coins, move, points, start
from tokaido_base import BuyMeal
from tokaido_rules import dump_log, installed_plugins, load_log
from tokaido_rules.cli import plugin_rows
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

"""Small things a person reading the pages meets (issue 40): plurals, a game passed
where a state is expected, the RL module's public names, a plugin's own deck in the
picture's notes."""

from __future__ import annotations

from tokaido_rules import Card, PluginInfo, Registry, hookimpl, new_game
from tokaido_rules.engine import Game
from tokaido_rules.events import CoinsChanged
from tokaido_rules.render import describe_action, describe_effects, notes
from tokaido_rules.ruleset import Ruleset


def test_one_coin_and_minus_one_coin_are_singular() -> None:
    game = new_game(2, seed=1)
    state = game.state
    piece = 0
    for delta, said in ((1, "+1 coin"), (-1, "-1 coin"), (2, "+2 coins"), (-3, "-3 coins")):
        words = describe_effects([CoinsChanged(piece, delta)], state, piece)
        assert words == said, (delta, words)


def test_describe_action_takes_a_game_as_well_as_a_state() -> None:
    game = new_game(3, seed=2)
    action = game.legal_actions()[0]
    assert describe_action(game, action) == describe_action(game.state, action)
    assert describe_action(game, action, facts=True).startswith("seat ")


def test_the_rl_module_says_its_public_names() -> None:
    from tokaido_rules import rl

    assert {"TokaidoAEC", "TokaidoGymEnv", "ActionIndex", "ObservationEncoder", "evaluate",
            "env", "raw_env", "GYM_ID"} <= set(rl.__all__)
    assert all(hasattr(rl, name) for name in rl.__all__)
    assert not [n for n in rl.__all__ if n.startswith("_")]


class Fans:
    """A plugin with a shuffled deck of its own."""

    tokaido_plugin = PluginInfo("fans", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_card_kind("fans.fan", "Fans")
        for n in range(4):
            registry.add_card(Card(f"fans.fan{n}", "fans.fan", f"Fan {n}"))
        registry.add_deck("fans.deck", [f"fans.fan{n}" for n in range(4)])


def test_a_plugins_own_deck_is_in_the_decks_note() -> None:
    ruleset = Ruleset.build(["base", Fans()])
    game: Game = new_game(2, seed=3, plugins=ruleset)
    decks = [n.text for n in notes(game.public_view()) if n.label == "Decks"]
    assert len(decks) == 1 and "Fans 4" in decks[0], decks
    assert "Souvenirs" in decks[0]

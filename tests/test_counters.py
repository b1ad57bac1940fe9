"""Counters declared by plugins (``Registry.add_counter``): what a learning agent observes
of every traveller comes from the plugins, so the RL encoder names no plugin's counter."""

from __future__ import annotations

import pytest

from tokaido_rules import (
    Context,
    PluginDefinitionError,
    PluginInfo,
    Registry,
    Ruleset,
    Setup,
    hookimpl,
    new_game,
)
from tokaido_rules.engine import make_rules
from tokaido_rules.rl import ObservationEncoder


class Lanterns:
    """A plugin that counts the lanterns each traveller lights: one per card gained."""

    tokaido_plugin = PluginInfo("lanterns", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_counter("lanterns.lit", observed=True, doc="Lanterns lit.")
        registry.add_counter("lanterns.hidden_tally", doc="Not observed.")

    @hookimpl
    def tokaido_card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        ctx.count(piece, "lanterns.lit", 1)


def test_base_declares_its_two_observed_counters_in_order() -> None:
    """The base game's observed tallies: temple donations, then inn meals."""
    registry = Ruleset.build(["base"]).registry
    assert registry.observed_counters() == ("base.donation", "base.inn_meals")
    assert all(registry.counters[c].plugin == "base" for c in registry.observed_counters())


def test_an_observed_counter_of_a_plugin_enters_the_observation() -> None:
    """A plugin's observed counter is one more feature per traveller, after base's; an
    unobserved one adds nothing; the feature is the counter's value over 20."""
    plain = ObservationEncoder(make_rules(Ruleset.build(["base"]), 2, Setup()))
    ruleset = Ruleset.build(["base", Lanterns()])
    encoder = ObservationEncoder(make_rules(ruleset, 2, Setup()))
    assert encoder.counters == ["base.donation", "base.inn_meals", "lanterns.lit"]
    assert encoder.size == plain.size + 3  # one feature per traveller (2 seats, 1 neutral)
    game = new_game(2, seed=5, plugins=ruleset)
    while not game.is_over and not game.state.pieces[0].counter("lanterns.lit"):
        game = game.apply(game.legal_actions()[0])
    lit = game.state.pieces[0].counter("lanterns.lit")
    assert lit > 0
    view = game.view(0)
    at = 6 + len(encoder.categories) + 2  # the observer's features: lit after base's two
    assert encoder.encode(view)[at] == pytest.approx(lit / 20)


@pytest.mark.parametrize(("name", "problem"), [
    ("lit", "must start with 'lanterns.'"),
    ("base.donation", "must start with 'lanterns.'"),
])
def test_a_counter_is_named_by_its_plugin(name: str, problem: str) -> None:
    class Bad:
        tokaido_plugin = PluginInfo("lanterns", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Registry) -> None:
            registry.add_counter(name)

    with pytest.raises(PluginDefinitionError, match=problem):
        Ruleset.build(["base", Bad()])


def test_a_counter_is_declared_once() -> None:
    class Twice:
        tokaido_plugin = PluginInfo("lanterns", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Registry) -> None:
            registry.add_counter("lanterns.lit")
            registry.add_counter("lanterns.lit")

    with pytest.raises(PluginDefinitionError, match="registered twice"):
        Ruleset.build(["base", Twice()])

"""Rulesets: plugin resolution, ordering, requirements, conflicts, options, registry."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence

import pytest

from tokaido_rules import (
    Context,
    GameState,
    IllegalActionError,
    MissingRequirementError,
    Move,
    OptionError,
    PluginConflictError,
    PluginDefinitionError,
    PluginInfo,
    Registry,
    Ruleset,
    Setup,
    Staged,
    Step,
    UnknownPluginError,
    hookimpl,
    installed_plugins,
    new_game,
)


class Dummy:
    """A plugin that only declares itself."""

    def __init__(self, pid: str, requires: Sequence[str] = (), conflicts: Sequence[str] = (),
                 preset: Mapping[str, object] | None = None) -> None:
        self.tokaido_plugin = PluginInfo(pid, "1", requires, conflicts, f"dummy {pid}")
        self._preset = preset

    @hookimpl
    def tokaido_preset_options(self) -> Mapping[str, object] | None:
        return self._preset


def test_base_is_installed_through_the_entry_point_group() -> None:
    """The base game is found like any third-party plugin: by entry point."""
    assert "base" in installed_plugins()
    assert Ruleset.build(["base"]).ids == ("base",)


def test_core_does_not_import_the_base_plugin() -> None:
    """Importing the core and building nothing leaves the base plugin unimported."""
    code = "import sys, tokaido_rules, tokaido_rules.cli; print('tokaido_base' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_plugin_is_named() -> None:
    """An id with no installed plugin raises UnknownPluginError naming it."""
    with pytest.raises(UnknownPluginError, match="'nope'"):
        Ruleset.build(["base", "nope"])


def test_missing_requirement_is_named() -> None:
    """A plugin whose requirement is not enabled raises MissingRequirementError."""
    with pytest.raises(MissingRequirementError, match="'x' requires 'y'"):
        Ruleset.build(["base", Dummy("x", requires=["y"])])


def test_conflict_is_named() -> None:
    """Two plugins declared in conflict cannot be enabled together."""
    with pytest.raises(PluginConflictError, match="'b' conflicts with 'a'"):
        Ruleset.build(["base", Dummy("a"), Dummy("b", conflicts=["a"])])


def test_requirement_cycle_is_refused() -> None:
    """Plugins that require each other in a cycle cannot be ordered."""
    with pytest.raises(PluginDefinitionError, match="cycle"):
        Ruleset.build(["base", Dummy("p", requires=["q"]), Dummy("q", requires=["p"])])


def test_canonical_order_dependencies_first_then_id() -> None:
    """Plugins are registered dependencies first, then by id, whatever the given order."""
    plugins = [Dummy("zeta", requires=["alpha"]), Dummy("beta"), Dummy("alpha"), "base"]
    assert Ruleset.build(plugins).ids == ("alpha", "base", "beta", "zeta")
    assert Ruleset.build(list(reversed(plugins))).ids == ("alpha", "base", "beta", "zeta")


def test_unknown_option_and_bad_value() -> None:
    """Unknown option names and refused values raise OptionError."""
    with pytest.raises(OptionError, match=r"unknown option 'base\.nope'"):
        new_game(3, options={"base.nope": 1})
    with pytest.raises(OptionError, match="cannot be 'lots'"):
        new_game(3, options={"base.meal_hand": "lots"})
    game = new_game(3, options={"base.meal_hand": "players"})
    assert game.ruleset.options["base.meal_hand"] == "players"
    assert new_game(3).ruleset.options["base.meal_hand"] == "players_plus_one"


def test_presets_and_explicit_options() -> None:
    """A preset plugin sets options; an explicit option wins; presets may not disagree."""
    preset = Dummy("preset", requires=["base"], preset={"base.meal_hand": "players"})
    assert Ruleset.build(["base", preset]).options["base.meal_hand"] == "players"
    explicit = Ruleset.build(["base", preset], {"base.meal_hand": "players_plus_one"})
    assert explicit.options["base.meal_hand"] == "players_plus_one"
    other = Dummy("other", preset={"base.meal_hand": "players_plus_one"})
    with pytest.raises(PluginConflictError, match="different values"):
        Ruleset.build(["base", preset, other])
    bad = Dummy("bad", preset={"base.nope": 1})
    with pytest.raises(OptionError, match="preset of plugin 'bad'"):
        Ruleset.build(["base", bad])


class BadNames:
    tokaido_plugin = PluginInfo("bad", "1")

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_option("base.meal_hand", "x", ("x",), "steals a name")


def test_names_must_carry_the_plugin_prefix() -> None:
    """A plugin cannot register names in another plugin's namespace."""
    with pytest.raises(PluginDefinitionError, match=r"must start with 'bad\.'"):
        Ruleset.build(["base", BadNames()])


class ShapingRun:
    tokaido_plugin = PluginInfo("shaping", "1")

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("shaping.run", run=lambda ctx, step: None, shapes_game=True)


def test_only_decisions_shape_the_game() -> None:
    """shapes_game marks decisions (the base game's choice of a traveller); a step the
    engine runs by itself cannot carry it."""
    steps = Ruleset.build(["base"]).registry.steps
    assert [k for k, s in steps.items() if s.shapes_game] == ["base.choose_traveller"]
    with pytest.raises(PluginDefinitionError, match="only a decision"):
        Ruleset.build(["base", ShapingRun()])


class NoFarms:
    """A house rule written as a third party would: farms are closed; +1 point per move."""

    tokaido_plugin = PluginInfo("nofarms", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_category("house", "House rule")
        registry.add_step("nofarms.bonus", run=self.bonus)

    @staticmethod
    def bonus(ctx: Context, step: Step) -> None:
        ctx.score(step.piece, "house", 1)

    @hookimpl
    def tokaido_forbidden_stops(self, state: GameState, piece: int,
                                positions: tuple[int, ...]) -> Mapping[int, str]:
        board = state.rules.board
        return {p: "farms are closed (house rule)" for p in positions if board[p].kind == "farm"}

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        if state.pieces[piece].seat is None:
            return []
        return [Staged(50, Step("nofarms.bonus", piece))]


def test_a_plugin_object_adds_rules_through_hooks() -> None:
    """A plugin passed as an object forbids stops and scores in its own category."""
    game = new_game(3, plugins=["base", NoFarms()], travellers=["kinko", "satsuki", "umegae"],
                    setup=Setup(queue=(0, 1, 2)))
    moves = [a for a in game.legal_actions() if isinstance(a, Move)]
    assert moves and all(game.state.rules.board[m.position].kind != "farm" for m in moves)
    with pytest.raises(IllegalActionError, match="farms are closed"):
        game.apply(Move(2, 2, 7, 0))
    after = game.apply(next(m for m in moves if m.position == 3))
    assert after.state.pieces[2].score["house"] == 1
    assert "house" in after.scores()[2].categories

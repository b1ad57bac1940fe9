"""Rulesets: plugin resolution, ordering, requirements, conflicts, options, registry."""

from __future__ import annotations

import copy
import subprocess
import sys
import types
from collections.abc import Mapping, Sequence

import pluggy
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
    RulesetError,
    Setup,
    Staged,
    Step,
    TokaidoError,
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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120)
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


# --- hook implementations checked when a ruleset is built (issue 34) -------------------


class Spy:
    """A well-formed plugin that records each registration it is asked for."""

    tokaido_plugin = PluginInfo("spy", "1", requires=("base",))

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        self.calls += 1
        registry.add_category("spy.points", "Spy")


class Misspelt:
    tokaido_plugin = PluginInfo("wobbly", "1", requires=("base",))

    @hookimpl
    def tokaido_setpu(self, state: GameState) -> Sequence[Staged]:
        return []


class ExtraArgument:
    tokaido_plugin = PluginInfo("wobbly", "1", requires=("base",))

    @hookimpl
    def tokaido_tiebreak(self, state: GameState, piece: int, bonus: int) -> int:
        return bonus


class Unmarked:
    tokaido_plugin = PluginInfo("wobbly", "1", requires=("base",))

    def tokaido_tiebreak(self, state: GameState, piece: int) -> int:
        return 1


def refused(monkeypatch: pytest.MonkeyPatch, bad: object) -> PluginDefinitionError:
    """Build base, a spy and ``bad``; check that the build failed before any plugin was
    registered with pluggy or any hook ran, and that the same plugin objects without
    ``bad`` still build; return the error."""
    registered: list[str | None] = []
    register = pluggy.PluginManager.register

    def counting(self: pluggy.PluginManager, plugin: object,
                 name: str | None = None) -> str | None:
        registered.append(name)
        return register(self, plugin, name)

    spy = Spy()
    with monkeypatch.context() as patch:
        patch.setattr(pluggy.PluginManager, "register", counting)
        with pytest.raises(PluginDefinitionError) as info:
            Ruleset.build(["base", spy, bad])
    assert (registered, spy.calls) == ([], 0)
    assert Ruleset.build(["base", spy]).ids == ("base", "spy") and spy.calls == 1
    assert isinstance(info.value, RulesetError) and isinstance(info.value, TokaidoError)
    return info.value


def test_a_misspelt_hook_name_is_a_plugin_definition_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A method marked @hookimpl whose name matches no hook specification is refused when
    the ruleset is built, naming the plugin, the hook and the nearest hook name (pluggy
    alone would accept it, and the build would fail with an AttributeError)."""
    error = refused(monkeypatch, Misspelt())
    assert (error.plugin, error.hook) == ("wobbly", "tokaido_setpu")
    assert str(error) == ("plugin 'wobbly': hook 'tokaido_setpu' matches no hook "
                          "specification (did you mean 'tokaido_setup_steps'?)")


def test_a_hook_argument_the_specification_lacks_is_a_plugin_definition_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook implementation taking an argument its specification does not give is
    refused with a PluginDefinitionError naming the argument (not pluggy's own
    PluginValidationError)."""
    error = refused(monkeypatch, ExtraArgument())
    assert (error.plugin, error.hook) == ("wobbly", "tokaido_tiebreak")
    assert str(error) == ("plugin 'wobbly': hook 'tokaido_tiebreak' takes argument "
                          "'bonus', which its specification does not give (it gives: "
                          "state, piece)")
    assert not isinstance(error.__cause__, pluggy.PluginValidationError)


def test_an_unmarked_hook_method_is_a_plugin_definition_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A method named like a hook but not marked @hookimpl would never be called (pluggy
    drops it silently): the ruleset refuses it, naming the plugin and the hook."""
    error = refused(monkeypatch, Unmarked())
    assert (error.plugin, error.hook) == ("wobbly", "tokaido_tiebreak")
    assert str(error) == ("plugin 'wobbly': 'tokaido_tiebreak' is named like the hook but "
                          "not marked @hookimpl, so it would never be called (mark it with "
                          "@hookimpl)")


def test_the_hook_prefix_is_kept_for_hooks_in_a_module_plugin_too() -> None:
    """A module is a plugin as well as an instance is: its functions are checked alike,
    and a function with the hooks' prefix that is no hook is refused, marked or not;
    without a near hook name there is no suggestion."""
    good = types.ModuleType("good")
    good.tokaido_plugin = PluginInfo("good", "1", requires=("base",))  # type: ignore[attr-defined]
    good.tokaido_tiebreak = hookimpl(lambda state, piece: 1)  # type: ignore[attr-defined]
    assert Ruleset.build(["base", good]).ids == ("base", "good")
    helper = types.ModuleType("helper")
    helper.tokaido_plugin = PluginInfo("helper", "1", requires=("base",))  # type: ignore[attr-defined]
    helper.tokaido_helper = lambda: None  # type: ignore[attr-defined]
    with pytest.raises(PluginDefinitionError) as info:
        Ruleset.build(["base", helper])
    assert (info.value.plugin, info.value.hook) == ("helper", "tokaido_helper")
    assert str(info.value) == "plugin 'helper': hook 'tokaido_helper' matches no hook specification"


def test_a_plugin_class_given_instead_of_an_instance_is_refused() -> None:
    """Enabling the class of a plugin whose hooks are methods (they would be called
    without ``self``) is a PluginDefinitionError saying to enable an instance."""
    with pytest.raises(PluginDefinitionError) as info:
        Ruleset.build(["base", Spy])
    assert (info.value.plugin, info.value.hook) == ("spy", "tokaido_register")
    assert str(info.value) == ("plugin 'spy': hook 'tokaido_register' is a method of the "
                               "class 'Spy' itself: enable an instance of it, not the class")


def test_a_wrapper_that_does_not_yield_is_refused() -> None:
    """A hook marked wrapper=True must be a generator; one that is not is refused when
    the ruleset is built."""

    class Flat:
        tokaido_plugin = PluginInfo("flat", "1", requires=("base",))

        @hookimpl(wrapper=True)
        def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
            return []

    with pytest.raises(PluginDefinitionError) as info:
        Ruleset.build(["base", Flat()])
    assert (info.value.plugin, info.value.hook) == ("flat", "tokaido_arrival_steps")
    assert str(info.value) == ("plugin 'flat': hook 'tokaido_arrival_steps' is marked as a "
                               "wrapper but is not a generator function (a wrapper yields once)")


def test_an_optional_hook_of_another_version_is_left_uncalled() -> None:
    """@hookimpl(optionalhook=True) marks a hook this version may not have (a plugin
    written for a newer tokaido-rules): the ruleset builds and plays without calling it."""

    class Ahead:
        tokaido_plugin = PluginInfo("ahead", "1", requires=("base",))

        @hookimpl(optionalhook=True)
        def tokaido_from_the_future(self) -> None:
            raise AssertionError("called")

    game = new_game(3, plugins=["base", Ahead()], seed=1)
    assert game.ruleset.ids == ("base", "ahead") and game.legal_actions()


def test_a_registration_error_names_the_plugin_and_the_hook() -> None:
    """Content the registry refuses is a PluginDefinitionError whose ``plugin`` and
    ``hook`` say who registered it; the error survives being rebuilt from its
    ``__reduce__``, as pickling between batch workers rebuilds it (``copy.copy`` takes
    the same path)."""
    with pytest.raises(PluginDefinitionError) as info:
        Ruleset.build(["base", BadNames()])
    assert (info.value.plugin, info.value.hook) == ("bad", "tokaido_register")
    again = copy.copy(info.value)
    assert again is not info.value
    assert (type(again), str(again), again.plugin, again.hook) == (
        PluginDefinitionError, str(info.value), "bad", "tokaido_register")


def test_every_installed_plugin_passes_the_hook_checks() -> None:
    """The built-in plugins and the example third-party plugins all build, each with the
    plugins it requires."""
    for pid in sorted(installed_plugins()):
        assert pid in Ruleset.build(["base", "crossroads", pid]).ids

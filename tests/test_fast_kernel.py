"""The fast simulator's kernel knows no plugin: each plugin gives its own fast rules
(``tokaido_fast_rules``), a ruleset is covered only when all of its plugins do and
their rules fit together, and a third-party plugin's additive rules play the reference's
games exactly. The reference engine never loads the fast simulator."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

import pytest

from tokaido_rules import (
    Context,
    GameState,
    PluginInfo,
    Registry,
    Ruleset,
    Staged,
    Step,
    hookimpl,
    new_game,
)
from tokaido_rules.errors import SetupError
from tokaido_rules.fast import (
    FastGame,
    FastRules,
    NotCoveredError,
    covers,
    differential,
    why_not_covered,
)
from tokaido_rules.simulate import choose_engine


def _run_stipend(ctx: Context, step: Step) -> None:
    amount = ctx.rules.options["stipend.amount"]
    assert isinstance(amount, int)
    for piece in range(ctx.rules.players):
        ctx.coins(piece, amount)


class _StipendRules(FastRules):
    """The stipend on the fast simulator: a setup step of its own, run by the kernel."""

    def setup(self, game: FastGame, working: list[Any]) -> None:
        working.append((game.T.kind_of("stipend.pay"), -1, None, 0))

    def run(self, game: FastGame, step: Any, new: list[Any]) -> None:
        amount = game.T.ruleset.options["stipend.amount"]
        assert isinstance(amount, int)
        for piece in range(game.T.players):
            game.coins[piece] += amount
            game.seq += 1


class Stipend:
    """A third-party plugin: every player gains coins after the travellers are chosen
    (an option says how many); its fast rules implement 1 and 2 coins, not 3."""

    tokaido_plugin = PluginInfo("stipend", "1.0.0", requires=("base",),
                                description="Every player gains coins at the start.")

    def __init__(self, rules: FastRules | None) -> None:
        self.rules = rules

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("stipend.pay", run=_run_stipend, doc="Coins for every player.")
        registry.add_option("stipend.amount", 1, (1, 2, 3), "coins per player")

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(300, Step("stipend.pay"))]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        return self.rules


def _stipend(rules: FastRules | None = None) -> Stipend:
    return Stipend(rules if rules is not None else _StipendRules(
        steps=("stipend.pay",), seams=("setup",), setup_order=300,
        options={"stipend.amount": (1, 2)}))


class _Silent:
    """A third-party plugin that gives no fast rules."""

    tokaido_plugin = PluginInfo("silent", "1.0.0", requires=("base",),
                                description="Adds nothing.")

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        return None


class _Twin(_Silent):
    """A third-party plugin whose fast rules claim another plugin's step kind."""

    tokaido_plugin = PluginInfo("twin", "1.0.0", requires=("base",),
                                description="Claims a step kind of another.")

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        return FastRules(steps=("stipend.pay",))


class _Stranger(_Silent):
    """A third-party plugin whose game class is not in the base game's chain."""

    tokaido_plugin = PluginInfo("stranger", "1.0.0", requires=("base",),
                                description="A game class of its own.")

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        class Apart(FastGame):
            __slots__ = ()

        return FastRules(game=Apart)


def test_a_plugin_without_fast_rules_is_not_covered_and_the_reason_names_it() -> None:
    ruleset = Ruleset.build(["base", _Silent()])
    assert not covers(ruleset)
    assert why_not_covered(ruleset) == "plugin 'silent' gives no fast rules"
    with pytest.raises(NotCoveredError, match="plugin 'silent' gives no fast rules"):
        FastGame.new(3, plugins=ruleset)
    with pytest.raises(SetupError, match="plugin 'silent' gives no fast rules"):
        choose_engine("fast", ruleset, ["random"])
    assert choose_engine("auto", ruleset, ["random"]) == "reference"


def test_clashing_step_kinds_and_game_classes_out_of_chain_are_refused() -> None:
    clash = why_not_covered(Ruleset.build(["base", _stipend(), _Twin()]))
    assert clash is not None and "'stipend.pay'" in clash and "'twin'" in clash
    apart = why_not_covered(Ruleset.build(["base", _Stranger()]))
    assert apart is not None and "'stranger'" in apart and "one chain" in apart


def test_an_option_value_its_owner_does_not_implement_is_refused() -> None:
    assert covers(Ruleset.build(["base", _stipend()], {"stipend.amount": 2}))
    ruleset = Ruleset.build(["base", _stipend()], {"stipend.amount": 3})
    why = why_not_covered(ruleset)
    assert why is not None and "'stipend.amount'" in why and "3" in why
    unknown = Ruleset.build(["base", _stipend(FastRules(steps=("stipend.pay",)))])
    why = why_not_covered(unknown)
    assert why is not None and "'stipend.amount'" in why


@pytest.mark.parametrize("amount", [1, 2])
def test_a_third_party_additive_plugin_plays_the_reference_games(amount: int) -> None:
    """Alone with base and beside Crossroads and New Encounters, offered and given
    travellers: equal at every decision, in scores and in the replayed log."""
    for plugins in (["base", _stipend()], ["base", "crossroads", "new-encounters", _stipend()]):
        ruleset = Ruleset.build(plugins, {"stipend.amount": amount})
        assert covers(ruleset)
        for travellers in (False, True):
            report = differential((2, 4), range(3), plugins=ruleset, travellers=travellers)
            assert report.ok, str(report)
        game = FastGame.new(3, seed=5, plugins=ruleset)
        reference = new_game(3, seed=5, plugins=ruleset)
        assert [p.coins for p in reference.state.pieces][:3] == game.coins[:3]


def test_a_plugin_returning_anything_else_is_blamed() -> None:
    from tokaido_rules.errors import PluginError

    class Wrong(_Silent):
        tokaido_plugin = PluginInfo("wrong", "1.0.0", requires=("base",),
                                    description="Returns a string.")

        @hookimpl
        def tokaido_fast_rules(self) -> Any:
            return "fast"

    with pytest.raises(PluginError, match="'wrong'"):
        covers(Ruleset.build(["base", Wrong()]))


def test_the_reference_engine_never_loads_the_fast_simulator() -> None:
    """A reference game played to the end, every shipped plugin on, loads neither the
    kernel nor any plugin's fast rules."""
    code = textwrap.dedent("""
        import random, sys
        from tokaido_rules import new_game
        game = new_game(4, seed=3, plugins=["base", "crossroads", "new-encounters",
                                             "good-luck", "preparations"])
        choose = random.Random(3).choice
        while not game.is_over:
            game = game.apply(choose(game.legal_actions()))
        game.scores()
        print(sorted(m for m in sys.modules if m.endswith("fast")
                     or m.endswith("fast_crossroads") or "_fast" in m))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ}, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

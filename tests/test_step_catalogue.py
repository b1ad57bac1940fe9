"""Step kinds are a documented vocabulary: every shipped step kind says what it is, and
every decision names the action types that answer it (the reference's catalogue of step
kinds is generated from them), and those names are true of the games played."""

from __future__ import annotations

import random

import pytest

from tokaido_rules import Action, PluginDefinitionError, Registry, Ruleset, new_game
from tokaido_rules.registry import StepType

SHIPPED = ("base", "crossroads", "new-encounters", "initiation", "return-journey",
           "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga")

@pytest.fixture(scope="module")
def steps() -> dict[str, StepType]:
    return Ruleset.build(SHIPPED).registry.steps


def test_every_step_kind_says_what_it_is(steps: dict[str, StepType]) -> None:
    """Each shipped step kind has a one-sentence ``doc`` and records its plugin."""
    assert len(steps) > 40
    for kind, step in steps.items():
        assert step.plugin == kind.split(".")[0], kind
        assert step.doc.strip(), f"step {kind} has no doc"


def test_every_decision_names_its_answers(steps: dict[str, StepType]) -> None:
    """Each decision is answered by registered action types; an engine step by none."""
    registry = Ruleset.build(SHIPPED).registry
    for kind, step in steps.items():
        if not step.is_decision:
            assert step.answers == (), kind
        else:
            assert step.answers, f"decision {kind} names no answering action"
        for action in step.answers:
            assert action in registry.resolvers, f"{kind}: {action} is not registered"


GAMES = (
    (2, ("base", "new-encounters", "crossroads", "good-luck")),
    (3, ("base", "new-encounters", "crossroads", "bga")),
    (4, ("base", "new-encounters")),
    (5, ("base", "crossroads", "rare-and-precious", "preparations")),
)
"""Rulesets whose random games reach every documented decision (with enough seeds)."""
SEEDS = 24


def test_decisions_are_answered_by_their_named_actions(steps: dict[str, StepType]) -> None:
    """In random games, whatever a decision's own ``legal`` offers is one of its
    ``answers`` (other plugins' extra actions, such as amulets, aside), and every
    documented decision is met, so that each is checked."""
    seen: set[str] = set()
    for players, plugins in GAMES:
        ruleset = Ruleset.build(plugins)
        for seed in range(SEEDS):
            game = new_game(players, seed=seed, plugins=ruleset)
            pick = random.Random(seed)
            while not game.is_over:
                step = game.current_step
                assert step is not None
                stype = ruleset.registry.steps[step.kind]
                assert stype.legal is not None
                if stype.answers:
                    seen.add(step.kind)
                    for action in stype.legal(game.state, step):
                        assert isinstance(action, stype.answers), (step.kind, action)
                game = game.apply(pick.choice(game.legal_actions()))
    documented = {kind for kind, step in steps.items() if step.answers}
    assert documented <= seen, f"never met, so never checked: {sorted(documented - seen)}"


def test_answers_belong_to_decisions() -> None:
    """``answers=`` is for a decision, and must name action types."""
    registry = Registry()
    registry.plugin = "mine"
    with pytest.raises(PluginDefinitionError, match="only a decision"):
        registry.add_step("mine.run", run=lambda ctx, step: None, answers=(Action,))
    with pytest.raises(PluginDefinitionError, match="action types"):
        registry.add_step("mine.decide", legal=lambda state, step: [],
                          answers=(int,))  # type: ignore[arg-type]
    registry.add_step("mine.plain", run=lambda ctx, step: None)  # no doc: still accepted
    assert registry.steps["mine.plain"].plugin == "mine"

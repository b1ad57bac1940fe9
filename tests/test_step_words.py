"""Every decision a person may be asked has words to say what is being decided: each
plugin registers them with its step kinds (``add_step(words=...)``), and a step
registered without them still gets words, made from its ``doc``."""

from __future__ import annotations

import pytest

from tokaido_rules.errors import MissingRequirementError
from tokaido_rules.registry import StepType
from tokaido_rules.ruleset import Ruleset, installed_plugins


def _with_requirements(plugin: str) -> Ruleset:
    """``plugin`` with base and what it requires (crossroads for its variants)."""
    for ids in (["base", plugin], ["base", "crossroads", plugin]):
        try:
            return Ruleset.build(list(dict.fromkeys(ids)))
        except MissingRequirementError:  # try with more
            continue
    raise AssertionError(f"plugin {plugin!r} cannot be built with base (and crossroads)")


@pytest.mark.parametrize("plugin", sorted(installed_plugins()))
def test_every_decision_of_every_installed_plugin_has_words(plugin: str) -> None:
    steps = _with_requirements(plugin).registry.steps
    decisions = [s for s in steps.values() if s.is_decision]
    assert decisions
    missing = [s.kind for s in decisions if not s.words]
    assert not missing, f"decisions without words: {missing}"
    for step in decisions:  # a verb phrase that reads after "Waiting for seat 2 to"
        assert step.words == step.words.strip() and step.words[0].islower(), step.kind
        assert not step.words.endswith("."), step.kind


def test_a_step_without_words_is_told_from_its_doc() -> None:
    def legal(state: object, step: object) -> tuple[()]:
        return ()

    told = StepType("x.pick", None, legal, doc="Pick a fan. The other goes back.")
    assert told.prompt == "decide (Pick a fan)"
    assert StepType("x.pick", None, legal).prompt == "decide (x.pick)"
    assert StepType("x.pick", None, legal, words="pick a fan").prompt == "pick a fan"

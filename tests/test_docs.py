"""The documentation covers the public API, every hook and every shipped event type."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import tokaido_rules
import tokaido_rules.hookspecs as specs
from tokaido_rules import Ruleset

DOCS = Path(__file__).parent.parent / "docs"
SHIPPED = ("base", "crossroads", "new-encounters", "initiation", "return-journey",
           "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga")


def documented_names() -> set[str]:
    text = "\n".join(p.read_text() for p in (DOCS / "reference").glob("*.md"))
    return set(re.findall(r"\.\. (?:autofunction|autoclass|autoexception|data):: "
                          r"tokaido_rules\.(\w+)", text))


def test_every_public_name_is_in_the_api_reference() -> None:
    """Each name exported by tokaido_rules has a reference entry."""
    missing = sorted(set(tokaido_rules.__all__) - {"__version__"} - documented_names())
    assert not missing, f"undocumented public names: {missing}"


def test_every_public_name_has_a_docstring() -> None:
    """Each exported class and function says what it is for."""
    bare = [name for name in tokaido_rules.__all__
            if name != "__version__" and (inspect.isclass(getattr(tokaido_rules, name))
                                          or inspect.isfunction(getattr(tokaido_rules, name)))
            and not inspect.getdoc(getattr(tokaido_rules, name))]
    assert not bare, f"no docstring: {bare}"


def test_every_hook_is_documented() -> None:
    """Each hook has a docstring saying when it is called, and the hooks page includes
    the hook specifications module."""
    hooks = [getattr(specs, n) for n in dir(specs) if n.startswith("tokaido_")]
    assert len(hooks) >= 14
    for hook in hooks:
        doc = inspect.getdoc(hook) or ""
        assert "Called" in doc, f"{hook.__name__} does not say when it is called"
    page = (DOCS / "reference" / "hooks.md").read_text()
    assert ".. automodule:: tokaido_rules.hookspecs" in page
    for hook in hooks:
        assert hook.__name__ in page, f"{hook.__name__} missing from the lifecycle diagram"


def test_every_shipped_event_type_is_documented() -> None:
    """Every event and action type of every shipped plugin has a docstring (the event
    catalogue is generated from them)."""
    events = Ruleset.build(SHIPPED).registry.events
    assert len(events) > 30
    bare = [name for name, cls in events.items() if not inspect.getdoc(cls)]
    assert not bare, f"event types without a docstring: {bare}"
    assert "{tokaido-events}" in (DOCS / "reference" / "events.md").read_text()


def test_readme_links_the_docs_and_keeps_its_two_commands_first() -> None:
    """The README opens with the two commands and links the documentation."""
    readme = (DOCS.parent / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    assert "tokaido simulate" in blocks[0] and "pytest" in blocks[1]
    assert "docs/" in readme

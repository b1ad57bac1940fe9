"""The core names no plugin (DESIGN 3.4 and 3.9): no string literal in ``src/tokaido_rules``
is plugin content of a shipped plugin.

Every ``.py`` file of the package is parsed with :mod:`ast`; a string literal fails when it
is

- the id of a shipped plugin other than ``base``, the default ruleset the core may
  name (``"crossroads"``, ``"new-encounters"``, ``"bga"``, ``"initiation"``, ...);
- a dotted id whose first part is a shipped plugin's id, or that id with ``_`` for
  ``-`` (``"base.buy_meal"``, ``"crossroads.amulet"``, ``"new_encounters.x"``);
- the id of a card or of a traveller of a shipped plugin (``"kinko"``).

The shipped plugins are the installed plugins whose code lives in the packages this
distribution ships (``tokaido_base``, ``tokaido_crossroads``, ``tokaido_new_encounters``,
``tokaido_variants``); their cards and travellers are read from their registries, at
test time, never from a list written here.

Decisions:

- Docstrings are text for people, and may name the game's content as examples: every
  string that stands alone as a statement (a module's, class's or function's docstring,
  and the attribute docstrings under assignments) is skipped.
- f-strings: their literal parts are checked as fragments. A fragment that starts the
  f-string is plugin content when it starts with a shipped plugin's dotted prefix
  (``f"base.offer.{seat}"`` names base's data as surely as ``"base.offer.0"``); the
  exact-id rules apply to whole literals only, as a fragment is not a whole id.
- Ids that are ordinary words: the rules above compare whole literals, so an id is only
  caught where the literal is that id and nothing else (``"temple"`` the word inside a
  sentence never is). A literal equal to an id is caught even if it is also a word: in
  a literal on its own, the core has no way to mean the word and not the id.
- :data:`EXEMPT`: files the rule does not reach yet, each with the reason.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokaido_rules import Ruleset, installed_plugins
from tokaido_rules.ruleset import load_plugin, plugin_info

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tokaido_rules"
SHIPPED_PACKAGES = ("tokaido_base", "tokaido_crossroads", "tokaido_new_encounters",
                    "tokaido_variants")
DEFAULT = "base"

EXEMPT: set[str] = set()
"""None: the fast kernel names no plugin either (its rules are in the plugins)."""


@functools.cache
def shipped() -> dict[str, object]:
    """The installed plugins whose code this distribution ships, by id."""
    found: dict[str, object] = {}
    for pid, entry in installed_plugins().items():
        if entry.value.split(":")[0].split(".")[0] in SHIPPED_PACKAGES:
            found[pid] = load_plugin(pid)
    return found


def _with_requirements(pid: str) -> list[str]:
    out: list[str] = []

    def visit(p: str) -> None:
        for r in plugin_info(shipped()[p]).requires:
            visit(r)
        if p not in out:
            out.append(p)

    visit(pid)
    return out


@functools.cache
def content_ids() -> frozenset[str]:
    """The ids of every card and traveller the shipped plugins register."""
    ids: set[str] = set()
    for pid in shipped():
        registry = Ruleset.build(_with_requirements(pid)).registry
        ids.update(registry.cards)
        ids.update(registry.travellers)
    return frozenset(ids)


@functools.cache
def _prefix() -> re.Pattern[str]:
    names = {n for pid in shipped() for n in (pid, pid.replace("-", "_"))}
    return re.compile("|".join(re.escape(n) + r"\." for n in sorted(names)))


def problem(text: str, *, whole: bool = True) -> str | None:
    """Why ``text`` (a literal, or the first fragment of an f-string) names plugin
    content, or ``None``."""
    if _prefix().match(text):
        return "a dotted id of a shipped plugin"
    if not whole:
        return None
    if text in shipped() and text != DEFAULT:
        return "the id of a shipped plugin"
    if text in content_ids():
        return "the id of a card or traveller of a shipped plugin"
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of every string constant that stands alone as a statement."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def violations(source: str, name: str = "<source>") -> Iterator[str]:
    """Each literal of ``source`` that names plugin content, as ``name:line: text``."""
    tree = ast.parse(source)
    skipped = _docstrings(tree)
    fragments: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for i, part in enumerate(node.values):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    fragments.add(id(part))
                    why = problem(part.value, whole=False) if i == 0 else None
                    if why:
                        yield f"{name}:{node.lineno}: f-string {part.value!r}...: {why}"
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in skipped and id(node) not in fragments):
            why = problem(node.value)
            if why:
                yield f"{name}:{node.lineno}: {node.value!r}: {why}"


def test_the_shipped_plugins_and_their_content_are_found() -> None:
    """The registries give the ids the rule looks for: the check is not vacuous."""
    assert {"base", "crossroads", "new-encounters", "bga"} <= set(shipped())
    assert {"kinko", "hiroshige"} <= content_ids()  # base travellers
    assert len(content_ids()) > 100


@pytest.mark.parametrize(("source", "caught"), [
    ('x = "crossroads"', True),
    ('x = "base"', False),
    ('x = "base.buy_meal"', True),
    ('x = "new_encounters.card"', True),
    ('x = "kinko"', True),
    ('x = f"base.offer.{seat}"', True),
    ('x = f"{kind}.base.offer"', False),
    ('x = "basement"', False),
    ('x = "core.move"', False),
    ('def f() -> None:\n    """Kinko pays less: base.buy_meal, crossroads."""', False),
    ('X = 1\n"""The crossroads option."""', False),
])
def test_the_rule_on_small_sources(source: str, caught: bool) -> None:
    """What counts as naming plugin content (the decisions of this module's docstring)."""
    assert bool(list(violations(source))) is caught


def test_the_core_names_no_plugin_content() -> None:
    """No file of ``src/tokaido_rules`` (but :data:`EXEMPT`) names plugin content."""
    found = [v for path in sorted(PACKAGE.glob("*.py")) if path.name not in EXEMPT
             for v in violations(path.read_text(encoding="utf-8"), path.name)]
    assert not found, "plugin content named in the core:\n" + "\n".join(found)

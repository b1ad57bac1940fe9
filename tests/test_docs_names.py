"""The documentation's code shows its imports, and every name it imports from the
shipped packages has an entry in the reference.

A guide that imports ``ENCOUNTERS`` from ``tokaido_base`` sends its reader to the
reference to learn what it is; the reference must have it. And a reader copying a
snippet must see where each name comes from: the doctest build has no global setup, so
each page imports what it uses, and this test says which name is missing where.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import tokaido_base
import tokaido_crossroads
import tokaido_new_encounters
import tokaido_rules
import tokaido_variants

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
SHIPPED = ("tokaido_rules", "tokaido_base", "tokaido_crossroads", "tokaido_new_encounters",
           "tokaido_variants")
"""The top-level packages the distribution installs."""
PUBLIC = {name for package in (tokaido_rules, tokaido_base, tokaido_crossroads,
                               tokaido_new_encounters, tokaido_variants)
          for name in getattr(package, "__all__", ())}
"""Names a reader could take for the library's: a code block using one must import it."""

FENCE = re.compile(r"^```(\{?[\w-]+\}?)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
DIRECTIVE = re.compile(
    r"^\.\. (?:py:)?(?:auto)?(function|class|exception|data|attribute|method|module)::"
    r"[ \t]+([\w.]+)[ \t]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.M)


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def code_blocks(path: Path) -> Iterator[tuple[str, str, int]]:
    """Each Python block of a Markdown file: (fence, source code, line of the fence).
    Doctest blocks give the source of their examples."""
    text = path.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        fence, body = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if fence == "{doctest}":
            examples = doctest.DocTestParser().get_examples(body)
            yield fence, "".join(e.source for e in examples), line
        elif fence in ("python", "{testcode}", "{testsetup}"):
            lines = [t for t in body.splitlines() if not re.match(r":[\w-]+:", t)]
            yield fence, "\n".join(lines), line


def bound_and_used(source: str) -> tuple[set[str], set[str]]:
    """The names a piece of code binds (anywhere in it) and the names it reads."""
    bound: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, used


def imported_names(source: str) -> Iterator[tuple[str, str]]:
    """Each ``from X import a`` of a shipped package: (X, a)."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.ImportFrom) and node.module
                and node.module.split(".")[0] in SHIPPED):
            for alias in node.names:
                yield node.module, alias.name


def reference() -> tuple[set[str], dict[str, set[str] | None], dict[str, str]]:
    """What the reference pages document: the targets of their directives, the modules
    documented with ``automodule`` (their ``:members:``, ``None`` for all of them), and
    the ``:value:`` each ``data`` entry shows."""
    targets: set[str] = set()
    modules: dict[str, set[str] | None] = {}
    values: dict[str, str] = {}
    for page in (DOCS / "reference").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        for kind, target, body in DIRECTIVE.findall(text):
            targets.add(target)
            options: dict[str, str] = {}
            last = ""
            for line in body.splitlines():
                option = re.match(r"\s+:([\w-]+):\s*(.*)", line)
                if option:
                    last = option.group(1)
                    options[last] = option.group(2)
                elif last and line.strip() and not line.strip().startswith(".."):
                    options[last] += " " + line.strip()
                else:
                    last = ""
            if kind == "module" and "members" in options:
                listed = {m.strip() for m in options["members"].split(",") if m.strip()}
                modules[target] = listed or None
            if kind == "data" and "value" in options:
                values[target] = options["value"]
    return targets, modules, values


def resolve(dotted: str) -> object:
    """The object a dotted name denotes (a module, or an attribute of one)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise ImportError(dotted)


def documented(module: str, name: str, targets: set[str],
               modules: dict[str, set[str] | None]) -> bool:
    if f"{module}.{name}" in targets:
        return True
    if module in modules:
        members = modules[module]
        if members is None or name in members:
            return True
    obj = resolve(f"{module}.{name}")
    if not (inspect.isclass(obj) or inspect.isfunction(obj) or isinstance(obj, ModuleType)):
        return False  # a constant is documented under the name it is imported by
    for target in targets:
        try:
            if resolve(target) is obj:
                return True
        except (ImportError, AttributeError):
            continue
    return False


def test_every_imported_name_is_in_the_reference() -> None:
    """Each name the documentation (and the README) imports from a shipped package has
    a reference entry: its own directive, its module's ``automodule`` members, or the
    same class or function documented under another import path."""
    targets, modules, _ = reference()
    sources = [(page, source) for page in pages() for _, source, _ in code_blocks(page)]
    readme = ROOT / "README.md"
    sources += [(readme, block) for block in re.findall(
        r"^```python\n(.*?)^```", readme.read_text(encoding="utf-8"), re.S | re.M)]
    missing = sorted({f"{module}.{name} ({page.relative_to(ROOT)})"
                      for page, source in sources
                      for module, name in imported_names(source)
                      if not documented(module, name, targets, modules)})
    assert not missing, "imported in the docs but not in the reference:\n" + "\n".join(missing)


def test_the_guides_names_are_covered() -> None:
    """The names the issue asked for by name are there (the test above would also catch
    them, as long as a guide imports them)."""
    targets, _, _ = reference()
    for name in ("tokaido_base.BuySouvenirs", "tokaido_base.Donate", "tokaido_base.ENCOUNTERS",
                 "tokaido_base.MEAL_ORDER", "tokaido_base.CHATTERBOX"):
        assert name in targets, name


def test_data_entries_show_the_real_values() -> None:
    """A ``data`` entry written by hand shows the value the code has."""
    _, _, values = reference()
    assert values
    wrong = {target: (shown, repr(resolve(target))) for target, shown in values.items()
             if repr(resolve(target)) != shown}
    assert not wrong, wrong


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_code_blocks_show_their_imports(page: Path) -> None:
    """A page's examples, which run in order as one session, define or import every
    name they use (builtins aside) by the block that first uses it; a ``python`` block,
    which is not run, imports every library name it uses itself."""
    known = set(dir(builtins))
    problems = []
    for fence, source, line in code_blocks(page):
        bound, used = bound_and_used(source)
        if fence == "python":
            unimported = (used - bound) & PUBLIC
            problems += [f"line {line}: {n} (not imported in this block)" for n in unimported]
        known |= bound
        problems += [f"line {line}: {name}" for name in sorted(used - known)]
    assert not problems, f"{page.relative_to(DOCS)} uses names it never imports:\n" + "\n".join(
        problems)

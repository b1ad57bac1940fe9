"""The layering of the project (DESIGN 3.9, ``docs/explanation/composition.md``) is kept by
import-linter's contracts in ``pyproject.toml``: this runs ``lint-imports`` as CI does, so
a plain ``pytest`` run catches a broken contract, and checks that the contracts name every
module of ``tokaido_rules`` exactly once, as core or as face."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tokaido_rules"
TIMEOUT = 120  # seconds; the check takes well under one on a quiet machine
KERNEL = "tokaido_rules.fast"


def _config() -> dict[str, dict[str, object]]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    return {c["id"]: c for c in contracts}


def _names(contract: dict[str, object], key: str) -> set[str]:
    value = contract[key]
    assert isinstance(value, list)
    return {str(v) for v in value}


def _modules() -> set[str]:
    """Every module of the package but its root: ``tokaido_rules.<file stem>``."""
    return {f"tokaido_rules.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}


def _lint_imports() -> str:
    found = Path(sys.executable).parent / "lint-imports"
    command = str(found) if found.exists() else shutil.which("lint-imports")
    assert command, "lint-imports is not installed: it comes with the test extra"
    return command


def test_the_import_contracts_are_kept() -> None:
    """``lint-imports`` from the repository root exits 0: every contract kept."""
    try:
        done = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"lint-imports did not finish within {TIMEOUT} s") from exc
    assert done.returncode == 0, f"lint-imports failed:\n{done.stdout}\n{done.stderr}"
    assert "BROKEN" not in done.stdout


def test_every_module_is_core_or_face_and_protected_from_plugins() -> None:
    """The core and face lists split the package's modules between them, the core lists
    agree, and plugins may import no module but the fast kernel directly."""
    contracts = _config()
    core = _names(contracts["core-no-face"], "source_modules")
    faces = {m for m in _names(contracts["core-no-face"], "forbidden_modules")
             if m.startswith("tokaido_rules.")}
    modules = _modules()
    assert not core & faces, f"both core and face: {sorted(core & faces)}"
    assert core | faces == modules, (
        f"in neither list: {sorted(modules - core - faces)}; "
        f"listed but absent: {sorted((core | faces) - modules)}")
    assert _names(contracts["core-no-root"], "source_modules") == core
    assert KERNEL in core
    protected = _names(contracts["plugins-public-api"], "protected_modules")
    assert protected == modules - {KERNEL}
    assert _names(contracts["core-acyclic"], "ancestors") == {"tokaido_rules"}


def test_the_layers_are_the_documented_ones() -> None:
    """The faces named by DESIGN 3.9 and the issue are faces; the core named there is core."""
    core = _names(_config()["core-no-face"], "source_modules")
    for name in ("chance", "engine", "errors", "events", "frozen", "hookspecs", "log",
                 "model", "registry", "ruleset", "views", "visibility", "wire", "fast"):
        assert f"tokaido_rules.{name}" in core
    for name in ("bots", "cli", "play", "render", "rl", "simulate", "store", "tables",
                 "testing", "viewer", "web", "native"):
        assert f"tokaido_rules.{name}" not in core

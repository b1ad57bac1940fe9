"""Golden logs: the current code reproduces every committed reference game exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden.regenerate import expected
from tokaido_rules import load_log, verify_log
from tokaido_rules.testing import without_engine_version

EXPECTED = expected()


@pytest.mark.parametrize("path", sorted(EXPECTED), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_log_is_reproduced(path: Path) -> None:
    """Same rules, same seed, same bots: the committed log, byte for byte (engine aside).

    After an intended rules change, run ``python tests/golden/regenerate.py`` and review
    the diff.
    """
    assert path.exists(), f"missing golden log {path}; run tests/golden/regenerate.py"
    committed = path.read_text(encoding="utf-8")
    assert without_engine_version(committed) == without_engine_version(EXPECTED[path])


@pytest.mark.parametrize("path", sorted(p for p in EXPECTED if p.name.endswith(".full.jsonl")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_log_loads_and_verifies(path: Path) -> None:
    """Every full golden log loads and agrees with the current rules."""
    text = path.read_text(encoding="utf-8")
    assert load_log(text).is_over
    assert verify_log(text).ok

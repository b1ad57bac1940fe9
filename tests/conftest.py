"""Shared pytest configuration: make the scenario helpers importable."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# The conformance kit's fixtures, exactly as a plugin author enables them.
pytest_plugins = ["tokaido_rules.testing"]

"""Sphinx configuration of the tokaido-rules documentation (built with warnings as
errors by the README's test command)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from tokaido_rules import __version__  # noqa: E402

project = "tokaido-rules"
author = "tokaido-rules developers"
release = __version__
version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "_ext.catalogue",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_inventories", "_ext"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = "furo"
html_title = f"tokaido-rules {version}"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Offline intersphinx: the inventories in _inventories/ point at the real pages
# (regenerate them with _inventories/make_inventories.py).
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", str(HERE / "_inventories" / "python.inv")),
    "attrs": ("https://www.attrs.org/en/stable", str(HERE / "_inventories" / "attrs.inv")),
    "cattrs": ("https://catt.rs/en/stable", str(HERE / "_inventories" / "cattrs.inv")),
    "pluggy": ("https://pluggy.readthedocs.io/en/stable",
               str(HERE / "_inventories" / "pluggy.inv")),
}

# No doctest_global_setup: every page's examples import what they use (tested by
# tests/test_docs_names.py), so a reader can copy them as they are.

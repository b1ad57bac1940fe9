"""The installed distribution's version, read once: the package root exports it
(``tokaido_rules.__version__``) and a log's header records it, and the log reads it from
here so that no core module imports the package root back."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tokaido-rules")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

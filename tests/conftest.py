"""Shared pytest configuration: make the scenario helpers importable; a fixture for an
installed plugin without fast rules, and one for an in-process Dask cluster."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# The conformance kit's fixtures, exactly as a plugin author enables them.
pytest_plugins = ["tokaido_rules.testing"]


_UNHURRIED = '''
from tokaido_rules import PluginInfo, Registry, hookimpl


class Unhurried:
    """A third-party plugin that gives no fast rules."""

    tokaido_plugin = PluginInfo("unhurried", "1.0.0", requires=("base",),
                                description="Adds nothing, and has no fast rules.")

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        return None


plugin = Unhurried()
'''


@pytest.fixture
def slow_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The id of an installed third-party plugin without fast rules (a distribution
    made for the test: its module and its entry point), whose rulesets the fast
    simulator does not cover: the example distribution's plugins give fast rules."""
    (tmp_path / "unhurried_plugin.py").write_text(_UNHURRIED, encoding="utf-8")
    dist = tmp_path / "unhurried_plugin-1.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: unhurried-plugin\nVersion: 1.0.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[tokaido_rules]\nunhurried = unhurried_plugin:plugin\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "unhurried"


# The throwaway PostgreSQL cluster (tests/pg.py): pg_cluster, pg_url.
from pg import pg_cluster, pg_url  # noqa: E402, F401


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """An in-process Dask cluster with one single-threaded worker, closed afterwards
    (one per test module that uses it)."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    try:
        yield cluster
    finally:
        cluster.close()

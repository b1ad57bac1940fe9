"""Write the small intersphinx inventories the docs link through, so that the docs build
offline (CI has no network). Run ``python docs/_inventories/make_inventories.py``.

Each entry points at the real documentation page of the object.
"""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).parent

INVENTORIES: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
    "python": ("Python", "3.11", [
        ("ValueError", "py:exception", "library/exceptions.html#$"),
        ("Exception", "py:exception", "library/exceptions.html#$"),
        ("AssertionError", "py:exception", "library/exceptions.html#$"),
        ("int", "py:class", "library/functions.html#$"),
        ("str", "py:class", "library/stdtypes.html#$"),
        ("bool", "py:class", "library/functions.html#$"),
        ("tuple", "py:class", "library/stdtypes.html#$"),
        ("dict", "py:class", "library/stdtypes.html#$"),
        ("list", "py:class", "library/stdtypes.html#$"),
        ("float", "py:class", "library/functions.html#$"),
        ("object", "py:class", "library/functions.html#$"),
        ("collections.abc.Mapping", "py:class", "library/collections.abc.html#$"),
        ("collections.abc.Sequence", "py:class", "library/collections.abc.html#$"),
        ("collections.abc.Iterable", "py:class", "library/collections.abc.html#$"),
        ("collections.abc.Callable", "py:class", "library/collections.abc.html#$"),
        ("concurrent.futures.Executor", "py:class", "library/concurrent.futures.html#$"),
        ("concurrent.futures.ProcessPoolExecutor", "py:class",
         "library/concurrent.futures.html#$"),
        ("typing.Protocol", "py:class", "library/typing.html#$"),
        ("typing.Any", "py:data", "library/typing.html#$"),
    ]),
    "attrs": ("attrs", "26", [
        ("attrs.frozen", "py:function", "api.html#$"),
        ("attrs.evolve", "py:function", "api.html#$"),
        ("attrs.field", "py:function", "api.html#$"),
    ]),
    "cattrs": ("cattrs", "26", [
        ("cattrs.Converter", "py:class", "cattrs.html#$"),
    ]),
    "pluggy": ("pluggy", "1.6", [
        ("pluggy.PluginManager", "py:class", "api_reference.html#$"),
        ("pluggy.HookspecMarker", "py:class", "api_reference.html#$"),
        ("pluggy.HookimplMarker", "py:class", "api_reference.html#$"),
    ]),
}


def write(name: str, project: str, version: str, entries: list[tuple[str, str, str]]) -> None:
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n").encode()
    body = "".join(f"{obj} {role} 1 {uri} -\n" for obj, role, uri in entries).encode()
    (HERE / f"{name}.inv").write_bytes(header + zlib.compress(body))


if __name__ == "__main__":
    for key, (project, version, entries) in INVENTORIES.items():
        write(key, project, version, entries)

"""The optional compiled build of the fast simulator (``tokaido build-fast``).

:mod:`tokaido_rules.fast` is plain Python, typed for ``mypy --strict``. mypyc (part of
mypy) compiles that same source to a C extension that plays the same games faster. The
build is optional and local: it needs mypy, setuptools and a C compiler (the ``mypyc``
extra: ``pip install '.[mypyc]'`` in a clone), and it writes the extension into the
installed package, beside ``fast.py``, as ``tokaido_rules._fast_compiled``.

Why it cannot go stale: the compiled copy carries the SHA-256 of the ``fast.py`` it was
built from (``_BUILT_FROM``), and :mod:`tokaido_rules.fast` takes its names from the
compiled copy only when that hash is its own source's; after any change to ``fast.py``
the old build is ignored until it is built again. :func:`tokaido_rules.fast.compiled`
says which one is in use; ``TOKAIDO_PURE_PYTHON=1`` in the environment forces the
source.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from .errors import TokaidoError

__all__ = ["BuildError", "build", "built", "remove"]

MODULE = "_fast_compiled"
"""The compiled copy's module name, in the ``tokaido_rules`` package."""
_PACKAGE = Path(__file__).resolve().parent
_MARKER = "_BUILT_FROM: str | None = None\n"


class BuildError(TokaidoError, RuntimeError):
    """The compiled build could not be made (no mypyc, no C compiler, a compile error):
    the message says which; the pure Python simulator is still used."""


def built(package: Path = _PACKAGE) -> list[Path]:
    """The files of a compiled build in ``package`` (none: nothing built)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return sorted(p for p in package.iterdir()
                  if p.name.startswith(MODULE) and p.name.endswith(suffix))


def remove(package: Path = _PACKAGE) -> list[Path]:
    """Remove a compiled build from ``package``; returns the files removed."""
    files = built(package)
    for path in files:
        path.unlink()
    return files


def build(package: Path = _PACKAGE, *, quiet: bool = True) -> list[Path]:
    """Compile ``package``'s ``fast.py`` with mypyc into ``package`` (the installed
    ``tokaido_rules`` by default), replacing any earlier build; returns the files
    written. The package's sources are copied to a temporary directory first, so
    nothing but the built files is written into ``package``. Raises
    :class:`BuildError`."""
    if importlib.util.find_spec("mypyc") is None:
        raise BuildError("the compiled build needs mypyc, which comes with mypy: "
                         "pip install '.[mypyc]' in a clone, or mypy and setuptools")
    if importlib.util.find_spec("setuptools") is None:
        raise BuildError("the compiled build needs setuptools (mypyc builds with it)")
    source = (package / "fast.py").read_bytes()
    text = source.decode("utf-8")
    if text.count(_MARKER) != 1:
        raise BuildError(f"{package / 'fast.py'} has no line {_MARKER.strip()!r} to mark")
    digest = hashlib.sha256(source).hexdigest()
    with tempfile.TemporaryDirectory(prefix="tokaido-build-") as work:
        tree = Path(work) / "tokaido_rules"
        shutil.copytree(package, tree, ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", "*.pyd", "pages"))
        (tree / f"{MODULE}.py").write_text(
            text.replace(_MARKER, f"_BUILT_FROM: str | None = {digest!r}\n"),
            encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", f"tokaido_rules/{MODULE}.py"], cwd=work,
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
            raise BuildError("mypyc failed:\n" + "\n".join(tail))
        made = built(tree)
        if not made:
            raise BuildError("mypyc wrote no extension module")
        remove(package)
        written = []
        for path in made:
            target = package / path.name
            shutil.copy2(path, target)
            written.append(target)
    if not quiet:
        for path in written:
            print(path)
    return written

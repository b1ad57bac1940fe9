"""The optional compiled build of the fast simulator (``tokaido build-fast``).

:mod:`tokaido_rules.fast` is plain Python, typed for ``mypy --strict``. mypyc (part of
mypy) compiles that same source to a C extension that plays the same games faster. The
build is optional and local: it needs mypy, setuptools and a C compiler (the ``mypyc``
extra: ``pip install '.[mypyc]'`` in a clone), and it writes the extension into the
installed package, beside ``fast.py``, as ``tokaido_rules._fast_compiled`` (and the
greedy bot's lookahead, :mod:`tokaido_rules.lookahead`, which reads the kernel's flat
state, as ``tokaido_rules._lookahead_compiled``).

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

__all__ = ["BuildError", "build", "built", "compiled_name", "plugin_packages", "remove"]

MODULE = "_fast_compiled"
"""The compiled copy's module name, in the ``tokaido_rules`` package."""
MODULE_GROUP = "tokaido_rules._fast_compiled"
"""The group of the compiled build: its shared library is ``tokaido_rules``'s
``_fast_compiled__mypyc``."""
_DISTRIBUTION = "tokaido-rules"
"""The core's distribution, whose plugins are the built-in ones."""
_PACKAGE = Path(__file__).resolve().parent
_MARKER = "_BUILT_FROM: str | None = None\n"


class BuildError(TokaidoError, RuntimeError):
    """The compiled build could not be made (no mypyc, no C compiler, a compile error):
    the message says which; the pure Python simulator is still used."""


def built(package: Path = _PACKAGE) -> list[Path]:
    """The files of a compiled build in ``package`` (none: nothing built): the compiled
    copy of each fast module (``_<module>_compiled``) and, in the core's package, the
    library the group shares."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return sorted(p for p in package.iterdir()
                  if p.name.endswith(suffix) and p.name.startswith("_")
                  and p.name[:-len(suffix)].endswith(("_compiled", "_compiled__mypyc")))


def remove(package: Path | None = None) -> list[Path]:
    """Remove a compiled build from ``package``, or (``None``) from every package
    :func:`build` writes to by default: the core's and the built-in plugins'
    (:func:`plugin_packages`); returns the files removed."""
    packages = [_PACKAGE, *plugin_packages()] if package is None else [package]
    files = [path for where in packages for path in built(where)]
    for path in files:
        path.unlink()
    return files


def plugin_packages() -> list[Path]:
    """The packages of the built-in plugins (those installed with the core's own
    distribution) that hold fast modules: what :func:`build` compiles beside the
    kernel by default."""
    from importlib.util import find_spec

    from .ruleset import installed_plugins

    found: list[Path] = []
    for entry in installed_plugins().values():
        if entry.dist is None or entry.dist.name != _DISTRIBUTION:
            continue
        spec = find_spec(entry.module.split(".")[0])
        if spec is None or not spec.submodule_search_locations:
            continue
        path = Path(next(iter(spec.submodule_search_locations))).resolve()
        if path not in found and _fast_modules(path):
            found.append(path)
    return sorted(found)


def _fast_modules(package: Path) -> list[Path]:
    """The fast modules of a package: its sources with the ``_BUILT_FROM`` marker."""
    return sorted(p for p in package.glob("*.py") if not p.name.startswith("_")
                  and _MARKER in p.read_text(encoding="utf-8"))


def compiled_name(module: str) -> str:
    """The module name of the compiled copy of fast module ``module`` (``a.b`` ->
    ``a._b_compiled``)."""
    package, _, name = module.rpartition(".")
    return f"{package}._{name}_compiled"


_OPEN_BASES = ("FastGame", "FastTables", "FastRules")
"""Classes a plugin (compiled or not) may derive from: compiled so that they allow
interpreted subclasses, and so is every class of the group derived from them."""


def _compiled_source(text: str, digest: str, modules: list[str], needs: list[str]) -> str:
    """The compiled copy of a fast module: its source hash, its imports of the group's
    modules taken from their compiled copies, the classes plugins derive from open to
    interpreted subclasses, and the list of modules whose compiled copies it needs."""
    text = text.replace(_MARKER, f"_BUILT_FROM: str | None = {digest!r}\n")
    for module in modules:
        text = text.replace(f"from {module} import", f"from {compiled_name(module)} import")
    lines = []
    opened = False
    for line in text.split("\n"):
        if line.startswith("class ") and (
                any(f"class {name}" in line for name in _OPEN_BASES)
                or any(f"({name}" in line or f", {name}" in line for name in _OPEN_BASES)
                or "Game(" in line or "Tables(" in line):
            lines.append("@mypyc_attr(allow_interpreted_subclasses=True)")
            opened = True
        lines.append(line)
    text = "\n".join(lines)
    if opened:
        text = text.replace("from __future__ import annotations\n",
                            "from __future__ import annotations\n\n"
                            "from mypy_extensions import mypyc_attr\n", 1)
    return text + f"\n_NEEDS: tuple[str, ...] = {tuple(needs)!r}\n"


def build(package: Path = _PACKAGE, *, plugins: list[Path] | None = None,
          quiet: bool = True) -> list[Path]:
    """Compile ``package``'s fast modules (the kernel, ``fast.py``, and the modules
    compiled with it, which carry the same ``_BUILT_FROM`` marker) and the fast modules of the
    ``plugins`` packages (by default, for the installed core, the built-in plugins':
    :func:`plugin_packages`; none for another ``package``) with mypyc, as one group,
    into those packages, replacing any earlier build; returns the files written. The
    sources are copied to a temporary directory first, so nothing but the built files is
    written into the packages. Each compiled copy carries the SHA-256 of its source
    and is used only while it matches (and the copies it needs are used too). Raises
    :class:`BuildError`."""
    if importlib.util.find_spec("mypyc") is None:
        raise BuildError("the compiled build needs mypyc, which comes with mypy: "
                         "pip install '.[mypyc]' in a clone, or mypy and setuptools")
    if importlib.util.find_spec("setuptools") is None:
        raise BuildError("the compiled build needs setuptools (mypyc builds with it)")
    if plugins is None:
        plugins = plugin_packages() if package.resolve() == _PACKAGE else []
    packages = [package, *plugins]
    sources: list[tuple[Path, Path, str]] = []  # (package, module file, module name)
    for where in packages:
        modules = _fast_modules(where)  # the core's: the kernel and the lookahead
        for path in modules:
            text = path.read_text(encoding="utf-8")
            if text.count(_MARKER) != 1:
                raise BuildError(f"{path} has no line {_MARKER.strip()!r} to mark")
            sources.append((where, path, f"{where.name}.{path.stem}"))
    names = [name for _, _, name in sources]
    with tempfile.TemporaryDirectory(prefix="tokaido-build-") as work:
        root = Path(work)
        paths = []
        for where, path, name in sources:
            tree = root / where.name
            if not tree.exists():
                shutil.copytree(where, tree, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.so", "*.pyd", "pages"))
            raw = path.read_bytes()
            text = raw.decode("utf-8")
            needs = [other for other in names if other != name
                     and f"from {other} import" in text]
            target = tree / f"{compiled_name(name).rpartition('.')[2]}.py"
            target.write_text(_compiled_source(text, hashlib.sha256(raw).hexdigest(), names,
                                               needs), encoding="utf-8")
            paths.append(str(target.relative_to(root)))
        (root / "mypy.ini").write_text(  # hook specifications are bodiless signatures
            "[mypy]\n[mypy-tokaido_rules.hookspecs]\ndisable_error_code = empty-body\n",
            encoding="utf-8")
        script = (
            "from mypyc.build import mypycify\n"
            "from setuptools import setup\n"
            f"setup(name='tokaido-fast-build', script_args=['build_ext', '--inplace'],\n"
            f"      ext_modules=mypycify({paths!r}, group_name={MODULE_GROUP!r}))\n")
        done = subprocess.run([sys.executable, "-c", script], cwd=work,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
            raise BuildError("mypyc failed:\n" + "\n".join(tail))
        made = [(where, built(root / where.name)) for where in packages]
        if not made[0][1]:
            raise BuildError("mypyc wrote no extension module")
        written = []
        for where, files in made:
            remove(where)
            for path in files:
                target = where / path.name
                shutil.copy2(path, target)
                written.append(target)
    if not quiet:
        for path in written:
            print(path)
    return written

"""What the distribution ships: the sdist and the wheel, built as a release would build
them, hold what they must and pass ``twine check``.

The wheel is built from the sdist (``python -m build``'s default), so a file the sdist
leaves out fails here too. ``--no-isolation`` builds with the hatchling of this
environment (the ``test`` extra), so no network is needed. The wheel is pure Python and
the same whatever interpreter builds it; twine's README renderer needs ``nh3``, which
has no PyPy wheel, so these tests carry the ``packaging`` marker and the PyPy run
(``.ci/pypy``) leaves them out.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path
from typing import ClassVar

import pytest

from tokaido_rules import LogVersionError, PluginInfo, dump_log, load_log, new_game

ROOT = Path(__file__).parent.parent
PACKAGES = ("tokaido_rules", "tokaido_base", "tokaido_crossroads", "tokaido_new_encounters",
            "tokaido_variants")
"""The top-level packages the wheel installs: the core and each built-in plugin (one
distribution, each plugin its own package: docs/explanation/composition.md)."""
SHIPPED_PLUGINS = {
    "base": "tokaido_base:plugin",
    "crossroads": "tokaido_crossroads:plugin",
    "new-encounters": "tokaido_new_encounters:plugin",
    "initiation": "tokaido_variants.initiation:plugin",
    "return-journey": "tokaido_variants.return_journey:plugin",
    "gastronomy": "tokaido_variants.gastronomy:plugin",
    "preparations": "tokaido_variants.preparations:plugin",
    "rare-and-precious": "tokaido_variants.rare_and_precious:plugin",
    "good-luck": "tokaido_variants.good_luck:plugin",
    "bga": "tokaido_variants.bga:plugin",
}


class Dists:
    """The sdist and the wheel built into one directory."""

    def __init__(self, out: Path) -> None:
        (self.sdist,) = out.glob("*.tar.gz")
        (self.wheel,) = out.glob("*.whl")
        with zipfile.ZipFile(self.wheel) as wheel:
            self.wheel_files = {name: wheel.read(name) for name in wheel.namelist()}
        with tarfile.open(self.sdist) as sdist:
            self.sdist_names = sdist.getnames()
            root = self.sdist_names[0].split("/")[0]
            member = sdist.extractfile(f"{root}/LICENSE")
            self.sdist_license = member.read() if member is not None else b""
        (self.dist_info,) = {n.split("/")[0] for n in self.wheel_files
                             if n.split("/")[0].endswith(".dist-info")}

    def metadata(self) -> Message:
        text = self.wheel_files[f"{self.dist_info}/METADATA"].decode()
        return Parser().parsestr(text)


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """``python -m build``: the sdist, then the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, check=False, timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    return Dists(out)



@pytest.mark.packaging
def test_twine_check_passes(dists: Dists) -> None:
    """Both files pass ``twine check --strict`` (the README renders as the long
    description, the metadata is complete)."""
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(dists.sdist), str(dists.wheel)],
        capture_output=True, text=True, check=False, timeout=900)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


@pytest.mark.packaging
def test_wheel_installs_the_five_packages(dists: Dists) -> None:
    """Exactly the core and the four built-in plugin packages, each typed (py.typed),
    plus the dist-info."""
    top = {name.split("/")[0] for name in dists.wheel_files}
    assert top == {*PACKAGES, dists.dist_info}
    for package in PACKAGES:
        assert f"{package}/__init__.py" in dists.wheel_files, package
        assert f"{package}/py.typed" in dists.wheel_files, package
    assert not [n for n in dists.wheel_files if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.packaging
def test_license_is_shipped(dists: Dists) -> None:
    """The MIT licence text is in the wheel's dist-info (PEP 639 ``licenses/``) and at
    the root of the sdist, and the metadata declares it."""
    license_text = (ROOT / "LICENSE").read_bytes()
    assert license_text.startswith(b"MIT License")
    assert dists.wheel_files[f"{dists.dist_info}/licenses/LICENSE"] == license_text
    assert dists.sdist_license == license_text
    metadata = dists.metadata()
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]


@pytest.mark.packaging
def test_metadata(dists: Dists) -> None:
    """Python versions, typing and topic classifiers; the README as Markdown."""
    metadata = dists.metadata()
    classifiers = metadata.get_all("Classifier") or []
    for expected in ("Typing :: Typed", "Topic :: Games/Entertainment :: Board Games",
                     "Programming Language :: Python :: 3 :: Only",
                     "Programming Language :: Python :: 3.11",
                     "Programming Language :: Python :: 3.12",
                     "Programming Language :: Python :: 3.13"):
        assert expected in classifiers, expected
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"


@pytest.mark.packaging
def test_entry_points_name_every_built_in_plugin(dists: Dists) -> None:
    """Each built-in plugin is declared in the ``tokaido_rules`` group, as a third-party
    plugin declares itself, and points into a package of the wheel."""
    text = dists.wheel_files[f"{dists.dist_info}/entry_points.txt"].decode()
    section = text.split("[tokaido_rules]", 1)[1].split("\n[", 1)[0]
    found = dict(re.findall(r"^(\S+) = (\S+)$", section, re.M))
    assert found == SHIPPED_PLUGINS
    for target in found.values():
        module = target.split(":")[0].replace(".", "/")
        assert (f"{module}.py" in dists.wheel_files
                or f"{module}/__init__.py" in dists.wheel_files), target


@pytest.mark.packaging
def test_entry_points_name_every_built_in_bot(dists: Dists) -> None:
    """The built-in bots (and the ISMCTS ladder's levels) are declared in the
    ``tokaido_rules.bots`` group, as a third party's bot is, each pointing at a class or
    factory of the wheel."""
    text = dists.wheel_files[f"{dists.dist_info}/entry_points.txt"].decode()
    section = text.split("[tokaido_rules.bots]", 1)[1].split("\n[", 1)[0]
    found = dict(re.findall(r"^(\S+) = (\S+)$", section, re.M))
    assert found == {"random": "tokaido_rules.bots:RandomBot",
                     "greedy": "tokaido_rules.bots:GreedyBot",
                     "search": "tokaido_rules.bots:SearchBot",
                     "ismcts-fast": "tokaido_rules.ismcts:ismcts_fast",
                     "ismcts": "tokaido_rules.ismcts:ismcts",
                     "ismcts-strong": "tokaido_rules.ismcts:ismcts_strong"}


@pytest.mark.packaging
def test_shipped_text_points_only_at_shipped_things(dists: Dists) -> None:
    """Nothing shipped cites the unshipped rules file, the README shows no image (a
    package index shows it away from the repository, where a relative one breaks, and
    the project has no address of its own to point at), and its links are absolute."""
    for name, data in dists.wheel_files.items():
        if name.endswith(".py"):
            assert b"RULES.md" not in data, name
    readme = dists.metadata().get_payload()
    assert isinstance(readme, str) and "RULES.md" not in readme
    links = re.findall(r"(!?)\[[^\]]*\]\(([^)\s]+)", readme)
    assert not [target for image, target in links if image]
    for _, target in links:
        assert target.startswith(("https://", "http://", "#")), target


class _Versioned:
    """A plugin with a two-digit minor version, to order against a one-digit one."""

    tokaido_plugin: ClassVar[PluginInfo] = PluginInfo("versioned", "1.10.0", requires=("base",))


def test_plugin_versions_compare_as_pep_440_versions() -> None:
    """A log's plugin versions are compared with ``packaging.version``: 1.9.0 is older than
    the installed 1.10.0 (as text it would sort after it), 1.11.0 is newer."""
    plugin = _Versioned()
    text = dump_log(new_game(2, seed=1, plugins=["base", plugin]))
    header = json.loads(text.split("\n", 1)[0])

    def written_with(version: str) -> str:
        entries = [{**e, "version": version} if e["id"] == "versioned" else e
                   for e in header["plugins"]]
        return json.dumps({**header, "plugins": entries}) + "\n" + text.split("\n", 1)[1]

    assert load_log(written_with("1.9.0"), plugins=[plugin]).state == load_log(
        text, plugins=[plugin]).state
    with pytest.raises(LogVersionError, match=r"newer than the installed 1\.10\.0"):
        load_log(written_with("1.11.0"), plugins=[plugin])

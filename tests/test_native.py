"""The optional compiled build of the fast simulator (``tokaido build-fast``,
:mod:`tokaido_rules.native`): it compiles, it is taken only when built from the source
in place, and it plays the reference's games exactly, as the source does.

The build is made in a copy of the package in a temporary directory, never in the one
the other tests import, and used from a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tokaido_rules
from tokaido_rules import native
from tokaido_rules.cli import main

PACKAGE = Path(tokaido_rules.__file__).resolve().parent
PLUGINS = PACKAGE.parent.parent / "plugins"


BUILT_IN = ("tokaido_base", "tokaido_crossroads", "tokaido_new_encounters", "tokaido_variants")
"""The built-in plugins' packages, whose fast modules the build compiles with the kernel."""
TESTS = Path(__file__).resolve().parent


def _run(root: Path, code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (root, PLUGINS, TESTS))),
             **env},
        check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def built_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package and of the built-in plugins' packages with the compiled
    build in them (the kernel and every plugin's fast modules, one group)."""
    root = tmp_path_factory.mktemp("native")
    for name, source in (("tokaido_rules", PACKAGE),
                         *((name, PLUGINS / name) for name in BUILT_IN)):
        shutil.copytree(source, root / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    written = native.build(root / "tokaido_rules",
                           plugins=[root / name for name in BUILT_IN])
    assert written and all(p.parent.parent == root for p in written)
    assert {p.parent.name for p in written} == {"tokaido_rules", *BUILT_IN}
    assert sorted(p for name in ("tokaido_rules", *BUILT_IN)
                  for p in native.built(root / name)) == sorted(written)
    return root


def test_the_compiled_build_is_used_and_plays_the_reference_games(built_copy: Path) -> None:
    """Every covered ruleset of the conformance kit, 2 to 5 players, compared with the
    reference at every decision and byte for byte at the end, on the compiled build."""
    out = _run(built_copy, """
        import tokaido_rules.fast as fast
        from tokaido_rules.testing import run_differential
        assert fast.compiled(), "the compiled build is not in use"
        assert fast.FastGame.__module__ == "tokaido_rules._fast_compiled"
        assert fast.NotCoveredError.__module__ == "tokaido_rules._fast_compiled"
        import tokaido_rules.lookahead as lookahead  # greedy's, compiled with the kernel
        assert lookahead.gains.__module__ == "tokaido_rules._lookahead_compiled"
        games = [fast.FastGame.new(3, plugins=ids) for ids in (
            ["base"], ["base", "crossroads", "new-encounters", "good-luck"])]
        assert [type(g).__module__ for g in games] == [
            "tokaido_base._fast_compiled", "tokaido_crossroads._fast_compiled"]
        report = run_differential(games=3)
        print(report.games, report.decisions)
        print(fast.differential((2, 3, 4, 5), range(40, 90), policy="seek"))
        import random
        game = fast.ViewableGame.new(4, seed=3)
        assert game.records_views and game.clone().records_views
        assert type(game.clone()) is type(game)
        crossroads = fast.ViewableGame.new(
            4, seed=3, plugins=["base", "crossroads", "new-encounters", "good-luck"])
        assert crossroads.records_views  # every covered ruleset is viewed directly
        choose = random.Random(3).choice
        for viewed in (game, crossroads):
            while not viewed.is_over:  # the direct views, as the reference's
                seat = viewed.current_player
                assert viewed.view(seat) == viewed.to_game().view(seat)
                viewed.apply(choose(viewed.legal_actions()))
        from tokaido_rules.rl import evaluate, random_legal
        fast_figures = evaluate(random_legal(1), 6, players=3, opponents=("random",))
        reference = evaluate(random_legal(1), 6, players=3, opponents=("random",),
                             engine="reference")
        assert fast_figures == reference, (fast_figures, reference)
    """)
    games, decisions = map(int, out.splitlines()[0].split())
    assert games >= 3 * 4 * 7 and decisions > 1000
    assert out.splitlines()[1].endswith("all equal")


def test_the_source_is_used_when_the_build_is_stale_or_refused(built_copy: Path) -> None:
    """A build made from another source is ignored, and so is any build under
    ``TOKAIDO_PURE_PYTHON``: the source simulator runs."""
    check = """
        import tokaido_rules.fast as fast
        print(fast.compiled(), fast.FastGame.__module__)
    """
    assert _run(built_copy, check, TOKAIDO_PURE_PYTHON="1").split() == [
        "False", "tokaido_rules.fast"]
    source = built_copy / "tokaido_rules" / "fast.py"
    text = source.read_text(encoding="utf-8")
    try:
        source.write_text(text + "\n# changed after the build\n", encoding="utf-8")
        assert _run(built_copy, check).split() == ["False", "tokaido_rules.fast"]
    finally:
        source.write_text(text, encoding="utf-8")
    assert _run(built_copy, check).split() == ["True", "tokaido_rules._fast_compiled"]


def test_a_stale_plugin_module_and_a_third_party_plugin_run_beside_the_compiled_kernel(
        built_copy: Path) -> None:
    """A plugin's fast module changed after the build is used from its source, and so
    is every module compiled against it (Crossroads against the base game's), beside
    the compiled kernel; a third-party plugin's fast rules, never compiled, too: the
    games are still the reference's."""
    check = """
        import tokaido_rules.fast as fast
        from tokaido_rules import Ruleset
        from test_fast_kernel import _stipend
        assert fast.compiled()
        print(type(fast.FastGame.new(3)).__module__,
              type(fast.FastGame.new(3, plugins=["base", "crossroads"])).__module__)
        for plugins in (["base", "crossroads", "new-encounters", "good-luck"],
                        ["base", "crossroads", _stipend()]):
            report = fast.differential((2, 4), range(3), plugins=Ruleset.build(plugins),
                                       policy="seek")
            assert report.ok, str(report)
    """
    assert _run(built_copy, check).split() == [
        "tokaido_base._fast_compiled", "tokaido_crossroads._fast_compiled"]
    source = built_copy / "tokaido_base" / "fast.py"
    text = source.read_text(encoding="utf-8")
    try:
        source.write_text(text + "\n# changed after the build\n", encoding="utf-8")
        assert _run(built_copy, check).split() == ["tokaido_base.fast", "tokaido_crossroads.fast"]
    finally:
        source.write_text(text, encoding="utf-8")


def test_the_example_plugins_fast_rules_run_exact_beside_the_compiled_build(
        built_copy: Path) -> None:
    """The example distribution's fast rules (a third party's, never compiled) beside the
    compiled kernel and the compiled base and Crossroads game classes: they play the
    reference's games, with tea at both values, and the tea served is in the log of the
    reference replay."""
    out = _run(built_copy, """
        import random
        import tokaido_rules.fast as fast
        from tokaido_rules.log import dump_log
        from tokaido_rules.testing import run_differential
        assert fast.compiled(), "the compiled build is not in use"
        rulesets = [(ids, {"tea-ceremony.points": points})
                    for ids in (["base", "tea-ceremony", "pilgrim"],
                                ["base", "crossroads", "tea-ceremony", "pilgrim"])
                    for points in (1, 2)]
        report = run_differential(games=3, rulesets=rulesets)
        game = fast.FastGame.new(4, seed=5, plugins=rulesets[2][0],
                                 travellers=["basho", "chuubei", "kinko", "zenemon"])
        choose = random.Random(5).choice
        while not game.is_over:
            game.apply(choose(game.legal_actions()))
        import tokaido_example.fast_pilgrim as pilgrim, tokaido_example.fast_tea as tea
        print(report.games, type(game).__module__, pilgrim.__file__.endswith(".py"),
              tea.__file__.endswith(".py"),
              dump_log(game.to_game()).count('"type":"tea-ceremony.tea_served"'))
    """)
    games, module, pilgrim_source, tea_source, served = out.split()
    assert int(games) == 4 * 3 * 4
    assert module == "tokaido_crossroads._fast_compiled"
    assert pilgrim_source == tea_source == "True"
    assert int(served) == 3  # one traveller served at each intermediate inn


def test_removing_the_build(tmp_path: Path) -> None:
    package = tmp_path / "tokaido_rules"
    package.mkdir()
    suffix = ".cpython-311-x86_64-linux-gnu.so"
    import sysconfig

    suffix = sysconfig.get_config_var("EXT_SUFFIX") or suffix
    for name in (native.MODULE + suffix, native.MODULE + "__mypyc" + suffix,
                 "other" + suffix, "fast.py"):
        (package / name).write_text("")
    removed = native.remove(package)
    assert sorted(p.name for p in removed) == sorted(
        [native.MODULE + suffix, native.MODULE + "__mypyc" + suffix])
    assert sorted(p.name for p in package.iterdir()) == sorted(["other" + suffix, "fast.py"])


def test_a_build_without_mypyc_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """No mypyc: a typed error, and from the command line one line and status 2;
    nothing is written."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mypyc" else real(name, *a))
    before = native.built()
    with pytest.raises(native.BuildError, match="needs mypyc"):
        native.build()
    assert main(["build-fast"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the compiled build needs mypyc") and err.count("\n") == 1
    assert native.built() == before


def _stand_in(root: Path, body: str) -> Path:
    """A copy of the package without any build, with ``body`` as its compiled copy of
    the kernel (a plain module named as the build is: what a broken or foreign build
    does on import, without a C compiler)."""
    shutil.copytree(PACKAGE, root / "tokaido_rules",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    (root / "tokaido_rules" / f"{native.MODULE}.py").write_text(body, encoding="utf-8")
    return root


@pytest.mark.parametrize(("body", "said"), [
    ("raise RuntimeError('a library of another build')\n",
     "failed to load (RuntimeError: a library of another build)"),
    ("raise ImportError('undefined symbol: CPyDef_x')\n", "failed to load (ImportError"),
    ("_BUILT_FROM = 'from another fast.py'\n", "built from another version of"),
    ("FastGame = None  # a build that says nothing of its source\n",
     "built from another version of"),
])
def test_a_build_that_fails_to_load_or_is_from_another_source_leaves_a_warning(
        tmp_path: Path, body: str, said: str) -> None:
    """Whatever a compiled copy of the kernel raises on import, or whatever source it
    was built from, the pure Python simulator runs and plays; one warning says why and
    what to run; no traceback."""
    root = _stand_in(tmp_path, body)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import tokaido_rules.fast as fast
            game = fast.FastGame.new(2, seed=1)
            while not game.is_over:
                game.apply(game.legal_actions()[0])
            print(fast.compiled(), fast.FastGame.__module__)
        """)], capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (root, PLUGINS)))})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "tokaido_rules.fast"]
    assert "Traceback" not in done.stderr
    assert "CompiledBuildWarning" in done.stderr and said in done.stderr
    assert "tokaido build-fast" in done.stderr
    quiet = subprocess.run(  # under TOKAIDO_PURE_PYTHON the build is not even looked at
        [sys.executable, "-c", "import tokaido_rules.fast"], capture_output=True,
        text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (root, PLUGINS))),
             "TOKAIDO_PURE_PYTHON": "1"})
    assert quiet.returncode == 0 and quiet.stderr == ""

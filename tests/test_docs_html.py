"""The built HTML documentation shows what its sources mean.

A strict Sphinx build passes even when a page prints its markup instead of rendering it:
the Markdown parser once received reStructuredText from the catalogue directives and
showed ``.. list-table::`` as text. So the documentation is built once (as ``.ci/run``
builds it) and every page is read back: no directive or role markup in the visible text,
and the generated catalogues are real tables with the expected rows.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

import pytest

from tokaido_rules import Ruleset
from tokaido_variants.bga import ONLINE_VALUES

DOCS = Path(__file__).parent.parent / "docs"

RAW_MARKUP = re.compile(
    r"^\s*\.\. [\w:-]+::"  # a reStructuredText directive
    r"|list-table|:header-rows:|:widths:"  # ... and its options
    r"|```|:::|\{eval-rst\}"  # MyST fences
    r"|\{[\w:-]+\}`|:[\w:-]+:`"  # roles, MyST or reStructuredText
    r"|``",  # reStructuredText literals
    re.M,
)
"""Markup that never shows on a rendered page (outside code blocks, which show source
code, docstrings included, on purpose)."""

_HIDDEN = {"head", "script", "style"}


class Page(HTMLParser):
    """A built page: its visible text (outside code blocks) and its tables, each a list
    of rows ``(row id, cell texts, link targets)``."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tables: list[list[tuple[str, list[str], list[str]]]] = []
        self._hidden = 0
        self._pre = 0
        self._cell: list[str] | None = None
        self._row: tuple[str, list[str], list[str]] | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag == "pre":
            self._pre += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._row = (found.get("id") or "", [], [])
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "a" and self._row is not None:
            self._row[2].append(found.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden -= 1
        elif tag == "pre":
            self._pre -= 1
        elif tag in ("td", "th") and self._row is not None and self._cell is not None:
            text = "".join(self._cell).replace("\u2019", "'")  # Sphinx's smart quotes
            self._row[1].append(" ".join(text.split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if not self._pre:
            self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def rows(self) -> dict[str, tuple[str, list[str], list[str]]]:
        """Every table row by its first cell."""
        return {cells[0]: (rid, cells, links)
                for table in self.tables for rid, cells, links in table if cells}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Page]:
    """The documentation built once, strictly, every page parsed: path -> page."""
    out = tmp_path_factory.mktemp("html")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d",
         str(out / ".doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, check=False, timeout=900)
    assert build.returncode == 0, build.stderr
    return {path.relative_to(out).as_posix(): Page(path.read_text(encoding="utf-8"))
            for path in sorted(out.rglob("*.html"))}


def test_every_page_is_built(site: dict[str, Page]) -> None:
    """Every source page has its HTML page (the scan below covers them all)."""
    sources = {p.relative_to(DOCS).with_suffix(".html").as_posix()
               for p in DOCS.rglob("*.md") if "_build" not in p.parts}
    missing = sources - set(site)
    assert not missing, f"pages not built: {sorted(missing)}"


def test_no_page_shows_raw_markup(site: dict[str, Page]) -> None:
    """No page shows directive, fence or role syntax as text."""
    found = []
    for path, page in site.items():
        text = "".join(page.text)
        found += [f"{path}: {text[max(0, m.start() - 40):m.end() + 20]!r}"
                  for m in RAW_MARKUP.finditer(text)]
    assert not found, "raw markup on built pages:\n" + "\n".join(found)


def test_every_catalogue_directive_renders_tables(site: dict[str, Page]) -> None:
    """Each page using a catalogue directive has a table per directive at least, each with
    a header row and body rows."""
    for source in (DOCS / "reference").glob("*.md"):
        directives = re.findall(r"```\{(tokaido-[\w-]+)\}", source.read_text())
        if not directives:
            continue
        page = site[f"reference/{source.stem}.html"]
        assert len(page.tables) >= len(directives), source.name
        for table in page.tables:
            assert len(table) >= 2 and all(cells for _, cells, _ in table), source.name


def test_event_catalogue_rows(site: dict[str, Page]) -> None:
    """The event catalogue has a row per event type, which other pages can link to."""
    rows = site["reference/events.html"].rows()
    for name, kind in [("core.move", "decision"), ("crossroads.die_rolled", "event"),
                       ("base.buy_meal", "decision"), ("new-encounters.kitoushi", "decision")]:
        assert name in rows, f"no row for {name}"
        rid, cells, _ = rows[name]
        assert cells[2] == kind, cells
        assert rid == "tokaido-event-" + re.sub(r"[^a-z0-9]+", "-", name)
    assert "``" not in rows["base.buy_meal"][1][4]  # docstring literals are rendered


def test_plugin_and_option_catalogue_rows(site: dict[str, Page]) -> None:
    """The plugins page has a row per shipped plugin and per rule option."""
    rows = site["reference/plugins.html"].rows()
    assert rows["crossroads"][1][2] == "base"
    assert rows["base.meal_hand"][1][1:3] == ["'players_plus_one'",
                                              "'players_plus_one', 'players'"]


def test_step_catalogue_rows(site: dict[str, Page]) -> None:
    """The step catalogue says who decides each step, and links the answering actions
    to their rows of the event catalogue; the amulet table is a table too."""
    rows = site["reference/steps.html"].rows()
    _, move, links = rows["core.move"]
    assert move[1:4] == ["decision", "the traveller's player", "core.move"]
    assert links == ["events.html#tokaido-event-core-move"]
    assert rows["base.farm"][1][1:4] == ["engine step", "the engine", "-"]
    assert rows["base.meal"][1][3] == "base.buy_meal"
    assert "taken by the engine" in rows["base.buy_souvenirs"][1][2]
    assert rows["new-encounters.kitoushi_choice"][1][3] == "new-encounters.kitoushi"
    assert rows["Fortune"][1][1] == "UseFortune (crossroads.use_fortune)"


def test_rules_reference_states_the_options_travellers_and_road(site: dict[str, Page]) -> None:
    """The rules reference has a row per rule option of the shipped plugins, with its
    printed default and its online value, a row per traveller with its coins, and the
    road's spaces stretch by stretch: the page follows the code."""
    shipped = ["base", "crossroads", "new-encounters", "initiation", "return-journey",
               "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga"]
    registry = Ruleset.build(shipped).registry
    rows = site["reference/rules.html"].rows()
    for name, spec in registry.options.items():
        assert name in rows, f"no row for option {name}"
        cells = rows[name][1]
        assert cells[1:3] == [json.dumps(spec.default), json.dumps(ONLINE_VALUES[name])], cells
    for traveller in registry.travellers.values():
        assert traveller.label in rows, f"no row for {traveller.label}"
        assert rows[traveller.label][1][1] == str(traveller.coins), traveller
    board = Ruleset.build(["base"]).registry.board  # (the shipped set walks it backwards)
    inns = [i for i, space in enumerate(board) if space.inn]
    for start, end in pairwise(inns):
        stretch = ", ".join(registry.space_kind(space.kind).label + ("*" if space.double else "")
                            for space in board[start + 1:end])
        assert rows[f"{start + 1}\N{EN DASH}{end - 1}"][1][1] == stretch, (start, end)

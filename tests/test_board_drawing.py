"""The board drawn in the browser (``pages/board.js``) from a picture's scene as JSON
(``render.scene_json``) looks as the server's SVG (``render.svg``) of the same view:
headless Chromium draws both, screenshots are compared pixel by pixel (PNG decoded here
with ``zlib`` and ``struct``), and a drawing that diverges (a traveller missing or
moved) fails the comparison. The example plugins' additions (a score category, a
traveller) and a test plugin's notes and cards are drawn with no JavaScript of theirs.

Screenshots go to ``TOKAIDO_ARTEFACTS`` (else the test's temporary directory).
"""

from __future__ import annotations

import copy
import json
import struct
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from test_browser import _by_id, need_browser
from tokaido_rules import Game, Note, PluginInfo, Scene, View, hookimpl, new_game
from tokaido_rules.bots import RandomBot
from tokaido_rules.render import board_js, scene_json, svg

pytestmark = pytest.mark.browser

WIDTH = 600
"""The pictures' width in the screenshots (the drawing scales): small enough to decode
quickly in pure Python, large enough that one traveller's disc is hundreds of pixels."""
TOLERANCE = 0.0002
"""The share of pixels that may differ (fonts, antialiasing); one traveller's disc
moved is several times more."""
CHANNEL = 48
"""How far apart a channel of two pixels may be and still count as the same."""


class Lanterns:
    """A third-party plugin with no JavaScript: a note about each traveller (with
    characters to escape), and one about the table naming cards."""

    tokaido_plugin = PluginInfo("lanterns", "1", requires=("base",))

    @hookimpl
    def tokaido_render_notes(self, scene: Scene) -> Sequence[Note]:
        notes = [Note("Lanterns", f"{p.position % 3} lit, <&> kept", i)
                 for i, p in enumerate(scene.pieces) if p.seat is not None]
        cards = list(scene.registry.cards)[:4]
        return [*notes, Note("Lantern festival", "", None, cards)]


def played(players: int, seed: int, plugins: Sequence[Any], decisions: int | None) -> Game:
    game = new_game(players, seed=seed, plugins=list(plugins))
    bot = RandomBot(seed)
    while not game.is_over and (decisions is None or decisions > 0):
        assert game.current_player is not None
        game = game.apply(bot.choose(game.view(game.current_player)))
        decisions = None if decisions is None else decisions - 1
    return game


POSITIONS: dict[str, tuple[int, int, tuple[Any, ...], int | None]] = {
    "base-mid": (4, 5, ("base",), 45),
    "crossroads-mid": (4, 3, ("base", "crossroads"), 70),
    "examples-end": (3, 8, ("base", "tea-ceremony", "pilgrim"), None),
}


def subjects(name: str) -> list[tuple[str, View, bool]]:
    """The pictures compared at a position: a seat's (its own cards shown) and the
    public one; with the test plugin, the legend too."""
    players, seed, plugins, decisions = POSITIONS[name]
    if name == "examples-end":
        plugins = (*plugins, Lanterns())
    game = played(players, seed, plugins, decisions)
    return [(f"{name}-seat1", game.view(1), name == "examples-end"),
            (f"{name}-public", game.public_view(), False)]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium on a page that has board.js and an empty board, 600 pixels wide."""
    need_browser()
    from test_browser import _new_driver

    driver = _new_driver()
    driver.set_script_timeout(30)
    html = tmp_path_factory.mktemp("board") / "board.html"
    html.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><style>body { margin: 0; "
        f"background: #ffffff; }} #board {{ width: {WIDTH}px; }} #board svg {{ display: "
        "block; }</style><script>" + board_js() + "</script></head><body><div id='board'>"
        "</div></body></html>", encoding="utf-8")
    driver.get(html.as_uri())
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def artefacts(tmp_path: Path) -> Path:
    import os

    where = Path(os.environ.get("TOKAIDO_ARTEFACTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


# --- PNG, decoded in pure Python ---------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGBA bytes of an 8-bit, non-interlaced RGB or RGBA PNG
    (what Chromium's screenshots are)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat = 8, []
    width = height = colour = 0
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour)
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + size
    raw = zlib.decompress(b"".join(idat))
    bpp = 4 if colour == 6 else 3
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else:
            assert kind == 0, f"unknown PNG filter {kind}"
        prev = line
        if bpp == 3:
            rgba = bytearray(width * 4)
            rgba[0::4], rgba[1::4], rgba[2::4] = line[0::3], line[1::3], line[2::3]
            rgba[3::4] = b"\xff" * width
            line = rgba
        rows.append(bytes(line))
    return width, height, rows


def differing(a: bytes, b: bytes) -> float:
    """The share of pixels of two same-sized screenshots that differ by more than
    :data:`CHANNEL` in some channel (1.0 if their sizes differ)."""
    wa, ha, rows_a = decode_png(a)
    wb, hb, rows_b = decode_png(b)
    if (wa, ha) != (wb, hb):
        return 1.0
    off = 0
    for ra, rb in zip(rows_a, rows_b, strict=True):
        if ra == rb:
            continue
        for x in range(0, len(ra), 4):
            if ra[x:x + 4] != rb[x:x + 4] and max(
                    abs(ra[x + k] - rb[x + k]) for k in range(4)) > CHANNEL:
                off += 1
    return off / (wa * ha)


# --- the two drawings ----------------------------------------------------------------------


def server_shot(driver: Any, picture: str) -> bytes:
    driver.execute_script("document.getElementById('board').innerHTML = arguments[0];",
                          picture)
    shot: bytes = _by_id(driver, "board").screenshot_as_png
    return shot


def browser_shot(driver: Any, scene: dict[str, Any]) -> bytes:
    driver.execute_script("TokaidoBoard.draw(document.getElementById('board'), arguments[0],"
                          " {width: arguments[1]});", scene, WIDTH)
    shot: bytes = _by_id(driver, "board").screenshot_as_png
    return shot


@pytest.mark.timeout(300)
@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_the_browser_draws_the_board_as_the_server_does(page: Any, position: str,
                                                        artefacts: Path) -> None:
    """At a mid-game position of the base game and of Crossroads, and at the end of a
    game with the example plugins (and a plugin's notes and cards, and the legend): the
    browser's drawing of a seat's scene and of the public scene is the server's SVG,
    text for text, and its screenshot the same, pixel for pixel within the tolerance."""
    for name, view, legend in subjects(position):
        picture = svg(view, width=WIDTH, legend=legend)
        scene = json.loads(json.dumps(scene_json(view, legend=legend)))  # as sent
        drawn = page.execute_script("return TokaidoBoard.svg(arguments[0], {width: arguments[1]});",
                                    scene, WIDTH)
        assert drawn == picture, name
        server = server_shot(page, picture)
        browser = browser_shot(page, scene)
        (artefacts / f"board-{name}-server.png").write_bytes(server)
        (artefacts / f"board-{name}-browser.png").write_bytes(browser)
        share = differing(server, browser)
        assert share <= TOLERANCE, f"{name}: {share:.4%} of the pixels differ"


@pytest.mark.timeout(300)
def test_a_drawing_that_diverges_is_caught(page: Any, artefacts: Path) -> None:
    """The comparison fails where the drawing is not the server's: a traveller left out
    of the scene, or one traveller drawn on another space."""
    _, view, _ = subjects("base-mid")[0]
    server = server_shot(page, svg(view, width=WIDTH))
    scene = json.loads(json.dumps(scene_json(view)))
    missing = copy.deepcopy(scene)
    del missing["pieces"][-1]
    moved = copy.deepcopy(scene)
    piece = moved["pieces"][0]
    piece["position"] = next(i for i, s in enumerate(moved["board"])
                             if not s["inn"] and i != piece["position"]
                             and all(p["position"] != i for p in moved["pieces"]))
    piece["slot"] = 0
    for label, wrong in (("missing", missing), ("moved", moved)):
        shot = browser_shot(page, wrong)
        (artefacts / f"board-diverged-{label}.png").write_bytes(shot)
        assert differing(server, shot) > TOLERANCE * 3, label


def test_a_scene_of_another_version_is_refused(page: Any) -> None:
    """board.js draws the version of the scene it was written for, and says so of
    another (the page then shows the server's picture)."""
    scene = scene_json(new_game(2, seed=1).view(0))
    said = page.execute_script(
        "try { TokaidoBoard.svg(arguments[0]); return 'drawn'; } catch (e) { return e.message; }",
        {**scene, "version": scene["version"] + 1})
    assert "version" in said

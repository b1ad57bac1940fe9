"""The replay viewer and ``tokaido serve`` in a real browser: headless Chromium driven by
selenium through the system's chromedriver (Debian's ``chromium`` and
``chromium-driver``; nothing is downloaded at run time).

Without a browser these tests skip, saying why; where ``CI`` is set they fail instead,
so that CI cannot pass them by skipping. Screenshots of the board go to the directory
named by ``TOKAIDO_ARTEFACTS`` (else the test's temporary directory).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_viewer import played, secrets_by_frame
from tokaido_rules import Game, dump_log
from tokaido_rules.log import load_seat_copy
from tokaido_rules.viewer import replay_html, seat_copy_html

pytestmark = pytest.mark.browser

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = "chromedriver"


def _missing() -> str | None:
    """Why no browser can be driven here, or ``None``."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not any(shutil.which(name) for name in CHROMIUM):
        return "no Chromium (apt-get install chromium)"
    if not shutil.which(CHROMEDRIVER):
        return "no chromedriver (apt-get install chromium-driver)"
    return None


def need_browser() -> None:
    """Skip the test when no browser can be driven, saying why; fail instead under CI."""
    why = _missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--window-size=1280,1600"):
        options.add_argument(arg)
    binary = next(shutil.which(name) for name in CHROMIUM if shutil.which(name))
    assert binary is not None
    options.binary_location = binary
    driver = webdriver.Chrome(service=Service(shutil.which(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def artefacts(tmp_path: Path) -> Path:
    where = Path(os.environ.get("TOKAIDO_ARTEFACTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.fixture(scope="module")
def game() -> Game:
    return played(4, 3, ("base", "crossroads"))


def _by_id(driver: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def _scores(driver: Any) -> dict[int, int]:
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
    return {int(r.get_attribute("data-seat")):
            int(r.find_element(By.CSS_SELECTOR, ".points").text) for r in rows}


def _go(driver: Any, frame: int) -> None:
    """Move the slider to ``frame``, as a person dragging it would."""
    driver.execute_script(
        "var s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));", frame)


def _choose(driver: Any, key: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(_by_id(driver, "seat")).select_by_value(key)


def test_replay_steps_to_the_end(browser: Any, game: Game, tmp_path: Path,
                                 artefacts: Path) -> None:
    """Open a replay from file://, step with the buttons, jump to the end: the final
    scores shown are the game's."""
    page = tmp_path / "replay.html"
    page.write_text(replay_html(game), encoding="utf-8")
    browser.get(page.as_uri())
    assert "the whole record" in _by_id(browser, "notice").text
    assert _by_id(browser, "prev").get_attribute("disabled")
    assert "setup" in _by_id(browser, "caption").text
    _by_id(browser, "next").click()
    _by_id(browser, "next").click()
    assert _by_id(browser, "caption").text.startswith("decision 2 of ")
    assert _by_id(browser, "lines").text.strip()
    _by_id(browser, "prev").click()
    assert _by_id(browser, "caption").text.startswith("decision 1 of ")
    _by_id(browser, "last").click()
    assert "the journey is over" in _by_id(browser, "caption").text
    assert _by_id(browser, "lines").text.startswith("end of the journey")
    assert _scores(browser) == {s.seat: s.total for s in game.scores()}
    assert browser.find_elements("css selector", "#board svg [data-position]")
    _by_id(browser, "board").screenshot(str(artefacts / "replay-board.png"))
    _by_id(browser, "first").click()
    assert "setup" in _by_id(browser, "caption").text


def test_switching_seats_hides_the_others_cards(browser: Any, game: Game,
                                                tmp_path: Path, artefacts: Path) -> None:
    """At a point where another seat holds a secret card the whole record shows it;
    chosen as a seat, the page's document holds none of the cards that seat may not
    see then (the data it was built from is out of the document)."""
    seat = 0
    secrets = secrets_by_frame(game, seat)
    page = tmp_path / "replay.html"
    page.write_text(replay_html(game), encoding="utf-8")
    browser.get(page.as_uri())
    assert browser.execute_script("return document.getElementById('replay-data')") is None
    found = None
    for n, names in enumerate(secrets):
        if not names:
            continue
        _go(browser, n)
        shown = [name for name in names if name in browser.page_source]
        if shown:
            found = (n, shown)
            break
    assert found is not None, "no frame shows another seat's secret card"
    n, shown = found
    _choose(browser, str(seat))
    assert _by_id(browser, "caption").text.startswith(f"decision {n} of ")
    source = browser.page_source
    assert "as seat 0 sees it" in source
    assert not [name for name in secrets[n] if name in source]
    _by_id(browser, "board").screenshot(str(artefacts / "replay-seat0.png"))
    _choose(browser, "all")
    assert any(name in browser.page_source for name in shown)


def test_a_seat_copy_page_in_the_browser(browser: Any, game: Game, tmp_path: Path) -> None:
    """A seat's copy's page offers that seat only and, stepped through to the end,
    shows the final scores and none of the cards the seat may not see."""
    seat = 2
    page = tmp_path / "seat.html"
    page.write_text(seat_copy_html(load_seat_copy(dump_log(game, viewer=seat))),
                    encoding="utf-8")
    browser.get(page.as_uri())
    from selenium.webdriver.common.by import By

    options = browser.find_elements(By.CSS_SELECTOR, "#seat option")
    assert [o.get_attribute("value") for o in options] == [str(seat)]
    assert "seat 2's copy" in _by_id(browser, "notice").text
    _by_id(browser, "last").click()
    assert _scores(browser) == {s.seat: s.total for s in game.scores()}
    secrets = secrets_by_frame(game, seat)
    for n in range(0, len(secrets), 7):
        _go(browser, n)
        source = browser.page_source
        assert not [name for name in secrets[n] if name in source], n


@pytest.fixture
def server() -> Iterator[tuple[str, Any]]:
    """``tokaido serve``'s application on 127.0.0.1 and a free port, in a thread that
    stops with the test."""
    import socket
    import threading
    import time

    import uvicorn

    from tokaido_rules import new_game
    from tokaido_rules.web import Table, create_app

    game = new_game(3, seed=21, plugins=["base", "crossroads"])
    table = Table(game, 0, ["greedy"], 21)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(table, animate_ms=20), host="127.0.0.1", port=port,
                            log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(200):
        if running.started:
            break
        time.sleep(0.05)
    assert running.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}/", table
    finally:
        running.should_exit = True
        thread.join(timeout=10)


def _ready(driver: Any, timeout: float = 30) -> str:
    """Wait until the page waits for the person (``yes``) or the game is over."""
    from selenium.webdriver.support.ui import WebDriverWait

    state: str = WebDriverWait(driver, timeout).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready")
        in ("yes", "over") and d.find_element("tag name", "body").get_attribute("data-ready"))
    return state


def test_play_a_whole_game_in_the_browser(browser: Any, server: tuple[str, Any],
                                          artefacts: Path) -> None:
    """Through tokaido serve: click legal actions until the end (reloading the page
    once on the way), the other seats' turns told in words; the final scores shown are
    the game's."""
    from selenium.webdriver.common.by import By

    url, table = server
    browser.get(url)
    clicks = 0
    state = _ready(browser)
    while state == "yes":
        assert clicks < 400, "the game does not end"
        buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
        assert buttons
        if clicks == 1:
            _by_id(browser, "board").screenshot(str(artefacts / "serve-board.png"))
        buttons[clicks % len(buttons)].click()
        clicks += 1
        state = _ready(browser)
        if clicks == 5:  # the game is on the server: a reloaded page carries on
            seq = table.game.state.seq
            browser.refresh()
            state = _ready(browser)
            assert table.game.state.seq == seq
    assert table.game.is_over
    assert _by_id(browser, "status").text == "The journey is over."
    assert _scores(browser) == {s.seat: s.total for s in table.game.scores()}
    assert "end of the journey" in _by_id(browser, "events").text
    assert not _by_id(browser, "error").text
    _by_id(browser, "board").screenshot(str(artefacts / "serve-end.png"))


def test_without_a_browser_ci_fails_and_elsewhere_skips(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser tests cannot pass by skipping under CI."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser tests"):
        need_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        need_browser()

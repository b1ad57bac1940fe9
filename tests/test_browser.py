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
from tokaido_rules import Action, Game, Move, dump_log
from tokaido_rules.log import load_seat_copy
from tokaido_rules.simulate import decision_count
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
    driver = _new_driver()
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
    assert "\nend of the journey" in _by_id(browser, "lines").text  # with the last decision
    slider = _by_id(browser, "slider")
    count = decision_count(game.events)
    assert (slider.get_attribute("max"), slider.get_attribute("value")) == (str(count),) * 2
    assert _by_id(browser, "caption").text.startswith(f"decision {count} of {count} ")
    assert _scores(browser) == {s.seat: s.total for s in game.scores()}
    assert _by_id(browser, "outcome").text.startswith("Winner")  # who won, and how
    winners = browser.find_elements("css selector", '#scores tr[data-winner="true"]')
    assert tuple(int(w.get_attribute("data-seat")) for w in winners) == game.winners()
    assert "Rank" in _by_id(browser, "scores").text
    assert browser.find_elements("css selector", "#board svg[data-winners] .winner-mark")
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


def test_the_viewer_shows_the_analysis_marks_at_their_steps(browser: Any, game: Game,
                                                             tmp_path: Path) -> None:
    """With an analysis of seat 1, each of its analysed decisions shows its mark and a
    row of figures per legal action, the best one and the played one marked; other
    steps, and other seats' frames, show no analysis."""
    from selenium.webdriver.common.by import By

    from flat_evaluator import FlatEvaluator
    from tokaido_rules.analysis import analyse_game

    doc = analyse_game(game, 1, FlatEvaluator, options={"samples": 2}).document()
    starts = {seq: n for n, seq in enumerate(
        (i for i, e in enumerate(game.events) if isinstance(e, Action)), 1)}
    page = tmp_path / "analysed.html"
    page.write_text(replay_html(game, analysis=doc), encoding="utf-8")
    browser.get(page.as_uri())
    _choose(browser, "1")
    marks = {d["mark"] for d in doc["decisions"]}
    assert len(marks) > 1  # the page shows more than one kind
    for entry in doc["decisions"]:
        n = starts[entry["seq"]]
        _go(browser, n)
        assert _by_id(browser, "analysis").is_displayed()
        assert _by_id(browser, "mark").get_attribute("data-mark") == (entry["mark"] or "none")
        rows = browser.find_elements(By.CSS_SELECTOR, "#figures tbody tr")
        assert len(rows) == len(entry["actions"])
        best = browser.find_elements(By.CSS_SELECTOR, "#figures tbody tr.best")
        assert [r.get_attribute("data-index") for r in best] == [str(entry["best"])]
        played = browser.find_elements(By.CSS_SELECTOR, "#figures tbody tr.played")
        assert [r.get_attribute("data-index") for r in played] == [str(entry["played"])]
        margin = rows[entry["best"]].find_element(By.CSS_SELECTOR, ".margin").text
        assert float(margin) == pytest.approx(entry["actions"][entry["best"]]["margin"],
                                              abs=0.006)
        assert entry["actions"][entry["best"]]["label"] in _by_id(browser, "mark").text
    other = next(n for n in range(1, decision_count(game.events))
                 if n not in {starts[d["seq"]] for d in doc["decisions"]})
    _go(browser, other)
    assert not _by_id(browser, "analysis").is_displayed()
    _choose(browser, "0")
    _go(browser, starts[doc["decisions"][0]["seq"]])
    assert not _by_id(browser, "analysis").is_displayed()


def _new_driver() -> Any:
    """Another headless Chromium, with a profile of its own (another person)."""
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
    return driver


@pytest.fixture
def server() -> Iterator[tuple[str, Any]]:
    """``tokaido serve``'s server on 127.0.0.1 and a free port, with a lobby in memory,
    in a thread that stops with the test."""
    from tokaido_rules.tables import Lobby
    from tokaido_rules.web import bind, make_server

    lobby = Lobby()
    running = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0).start()
    try:
        yield running.url, lobby
    finally:
        running.stop()


def _ready(driver: Any, seq: int | None = None, timeout: float = 30) -> str:
    """Wait until the page waits for the person (``yes``) or the game is over, at
    ``seq`` when given."""
    from selenium.webdriver.support.ui import WebDriverWait

    def done(d: Any) -> str | None:
        body = d.find_element("tag name", "body")
        state = str(body.get_attribute("data-ready"))
        at = seq is None or body.get_attribute("data-seq") == str(seq)
        return state if state in ("yes", "over") and at else None
    from selenium.common.exceptions import TimeoutException

    try:
        return str(WebDriverWait(driver, timeout).until(done))
    except TimeoutException:
        body = driver.find_element("tag name", "body")
        raise AssertionError(
            f"the page is not ready at seq {seq}: data-ready={body.get_attribute('data-ready')}"
            f" data-seq={body.get_attribute('data-seq')} status="
            f"{_by_id(driver, 'status').text!r} error={_by_id(driver, 'error').text!r}"
        ) from None


def _secrets(game: Any, observer: int | None) -> set[str]:
    """The display names of the cards ``observer`` (``None``: a spectator) may not see
    now and sees nowhere else."""
    registry = game.ruleset.registry
    view = game.public_view() if observer is None else game.view(observer)
    seen = {registry.card_name(c) for cards in view.zones.values() for c in cards}
    hidden = {registry.card_name(c) for zone, cards in game.state.zones.items()
              if zone not in view.zones for c in cards}
    return hidden - seen


def test_two_people_play_a_table_to_the_end_while_a_third_watches(
        browser: Any, server: tuple[str, Any], artefacts: Path) -> None:
    """Two Chromium sessions join seats 0 and 1 of a table from the lobby and click
    legal actions until the end (one reloads on the way), a bot plays seat 2, and a
    third session watches. Neither the other seat's page nor the spectator's ever holds
    a card hidden from it; at the end all three show the same final scores."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    table, _ = lobby.create(3, ["base", "crossroads"], bots={"2": "greedy"}, seed=21)
    players = [browser, _new_driver()]
    watcher = _new_driver()
    try:
        for joining, driver in enumerate(players):
            driver.get(url + "/")
            _ready_lobby(driver)
            driver.find_element(
                By.CSS_SELECTOR, f'tr[data-table="{table.id}"] button.join[data-seat="{joining}"]'
            ).click()
        watcher.get(f"{url}/t/{table.id}")
        clicks = 0
        while not table.game.is_over:
            assert clicks < 600, "the game does not end"
            game = _settled(table)
            if game.is_over:
                break
            seat = game.current_player
            assert seat is not None
            driver = players[seat]
            assert _ready(driver, game.state.seq) == "yes"
            if clicks % 9 == 0:  # what the others are shown now holds no secret of now
                for observer, page in ((1 - seat, players[1 - seat]), (None, watcher)):
                    _shown_at(page, game.state.seq)
                    board = _by_id(page, "board").get_attribute("innerHTML")
                    assert not [n for n in _secrets(game, observer) if n in board], observer
                assert not watcher.find_elements(By.CSS_SELECTOR, "#actions button")
            if clicks == 2:
                driver.find_element(By.ID, "board").screenshot(
                    str(artefacts / "serve-board.png"))
            if clicks == 7:  # the game is on the server: a reloaded page carries on
                driver.refresh()
                assert _ready(driver, game.state.seq) == "yes"
            buttons = driver.find_elements(By.CSS_SELECTOR, "#actions button.action")
            assert buttons
            buttons[clicks % len(buttons)].click()
            clicks += 1
            _settled(table, after=game.state.seq)
        final = {s.seat: s.total for s in table.game.scores()}
        for observer, page in ((0, players[0]), (1, players[1]), (None, watcher)):
            _shown_at(page, table.game.state.seq)
            never = _never_seen(table.game, observer)
            assert never, observer  # the check checks something
            source = page.page_source
            assert not [n for n in never if n in source], observer
        for page in [*players, watcher]:
            _ready(page, table.game.state.seq)
            assert _by_id(page, "status").text == "The journey is over."
            assert _by_id(page, "outcome").text.startswith("Winner")
            assert _scores(page) == final
            assert "end of the journey" in _by_id(page, "events").text
            assert not _by_id(page, "error").text
        assert "Watching" in _by_id(watcher, "who").text
        _by_id(watcher, "board").screenshot(str(artefacts / "serve-end.png"))
        played = {d.played_by for d in table.decisions()}
        assert played == {"human", "bot:greedy"}
    finally:
        for driver in [*players[1:], watcher]:
            driver.quit()


def _shown_at(page: Any, seq: int) -> None:
    """Wait until ``page`` shows the game at ``seq`` (its long poll has answered)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(page, 30).until(lambda d: d.find_element("tag name", "body").get_attribute(
        "data-seq") == str(seq) and d.find_element("tag name", "body").get_attribute(
        "data-ready") in ("yes", "waiting", "over"))


def _never_seen(game: Game, observer: int | None) -> set[str]:
    """The display names of the cards ``observer`` (``None``: a spectator) never saw in
    the whole game: in no zone it could see at any point, and named in no line of its
    copy (a decision it sees may name a secret card: "use Hospitality")."""
    from tokaido_rules.engine import initial_state
    from tokaido_rules.events import fold
    from tokaido_rules.viewer import _steps

    registry = game.ruleset.registry
    every = {registry.card_name(card) for card, _, _ in registry.deck_census()}
    state = initial_state(game.state.rules, game.seed)
    seen: set[str] = set()
    for a, b in _steps(game.events):
        for event in game.events[a:b]:
            state = fold(state, event)
        point = Game(state, ())
        view = point.public_view() if observer is None else point.view(observer)
        seen |= {registry.card_name(c) for cards in view.zones.values() for c in cards}
    copy = dump_log(game, viewer="public" if observer is None else observer)
    seen |= {registry.card_name(card) for card, _, _ in registry.deck_census()
             if card in copy}  # named in a line, or by a decision it sees (an amulet used)
    return every - seen


def _settled(table: Any, after: int = -1) -> Game:
    """The table's game past seq ``after``, once the bots have played up to a person's
    decision."""
    import time

    for _ in range(600):
        game: Game = table.game
        if game.state.seq > after and (
                game.is_over or table.seats[game.current_player].kind == "human"):
            return game
        time.sleep(0.05)
    raise AssertionError("the bots do not hand over")


def _ready_lobby(driver: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "yes")


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


def _join_page(driver: Any, url: str, table: Any, seat: int) -> None:
    """Open ``seat``'s page of ``table`` (its token in the address, as the lobby does)."""
    driver.get(f"{url}/t/{table.id}#token={table.join(seat)}")


def _rect(driver: Any, element_id: str) -> dict[str, float]:
    found: dict[str, float] = driver.execute_script(
        "var r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};", element_id)
    return found


def test_the_table_page_shows_what_a_player_needs(browser: Any, server: tuple[str, Any],
                                                 artefacts: Path) -> None:
    """At 1280x800: the traveller choice shows each power and its starting coins; the
    purse (coins, points, cards) is above the fold beside the actions; a village's
    souvenirs show their family and price; a space of the board is a move; the legend
    names the board's marks. At the end: the winner, ranks and points by category."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    table, _ = lobby.create(3, ["base"], bots={"1": "greedy", "2": "greedy"}, seed=5)
    browser.set_window_size(1280, 800)
    _join_page(browser, url, table, 0)
    try:
        assert _ready(browser) == "yes"
        choices = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")]
        assert choices and all("starting coins" in c for c in choices), choices
        browser.find_elements(By.CSS_SELECTOR, "#actions button")[0].click()
        purse = _by_id(browser, "purse")
        clicked_board = saw_family = False
        for _ in range(120):
            if _ready(browser) == "over":
                break
            game = _settled(table)
            assert "coins" in purse.text and "points" in purse.text
            assert _rect(browser, "purse")["bottom"] <= 800  # above the fold
            words = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")]
            if any("family" in w and "coins)" in w for w in words):
                saw_family = True
                assert browser.find_elements(By.CSS_SELECTOR, "#board [data-price][data-family]")
            spaces = browser.find_elements(By.CSS_SELECTOR, "#board [data-position].playable")
            if spaces and not clicked_board:
                target = spaces[-1].get_attribute("data-position")
                browser.execute_script(
                    "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
                    spaces[-1])
                after = _settled(table, after=game.state.seq)
                moved = next(e for e in after.events[len(game.events):] if isinstance(e, Move))
                assert (moved.seat, str(moved.position)) == (0, target)
                clicked_board = True
                continue
            villages = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")
                        if "(Village)" in b.text]
            (villages or browser.find_elements(By.CSS_SELECTOR, "#actions button"))[0].click()
            _settled(table, after=game.state.seq)
        assert clicked_board and saw_family
        _by_id(browser, "legend-box").click()
        labels = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#legend li")]
        assert "Inn" in labels and len(labels) > 5
        assert table.game.is_over
        _ready(browser, table.game.state.seq)
        assert _by_id(browser, "outcome").text.startswith("Winner")
        head = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#scores th")]
        assert head[:4] == ["Rank", "Seat", "Traveller", "Points"] and "Panoramas" in head
        winners = browser.find_elements(By.CSS_SELECTOR, "#scores tr.winner")
        assert tuple(int(w.get_attribute("data-seat")) for w in winners) == table.game.winners()
        assert browser.find_elements(By.CSS_SELECTOR, '#board svg[data-winners]')
        browser.save_screenshot(str(artefacts / "serve-end-1280.png"))
    finally:
        browser.set_window_size(1280, 1600)


def test_the_table_page_fits_a_phone(browser: Any, server: tuple[str, Any],
                                    artefacts: Path) -> None:
    """At a phone's width the page does not scroll sideways, and the status, the purse
    and the actions come before the board."""
    url, lobby = server
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=3)
    browser.set_window_size(390, 844)
    try:
        _join_page(browser, url, table, 0)
        assert _ready(browser) == "yes"
        width = browser.execute_script("return document.documentElement.scrollWidth")
        inner = browser.execute_script("return window.innerWidth")
        assert width <= inner
        assert _rect(browser, "actions")["bottom"] <= _rect(browser, "board")["top"]
        assert _rect(browser, "board")["right"] <= inner
        browser.save_screenshot(str(artefacts / "serve-phone.png"))
    finally:
        browser.set_window_size(1280, 1600)


def test_the_page_says_when_the_server_is_gone_and_comes_back(
        browser: Any, artefacts: Path) -> None:
    """With the server stopped the page says it cannot reach it and counts down to the
    next try; with the server back (same address, same tables) it carries on by itself."""
    from tokaido_rules.tables import Lobby
    from tokaido_rules.web import bind, make_server

    lobby = Lobby()
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=4)
    running = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0).start()
    port = running.socket.getsockname()[1]
    try:
        _join_page(browser, running.url, table, 0)
        assert _ready(browser) == "yes"
        seq = table.game.state.seq
        running.stop()
        browser.find_elements("css selector", "#actions button")[0].click()
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 20).until(lambda d: _by_id(d, "offline").is_displayed())
        assert "cannot be reached" in _by_id(browser, "offline").text
        browser.save_screenshot(str(artefacts / "serve-offline.png"))
        running = make_server(lobby, bind("127.0.0.1", port), animate_ms=0).start()
        _by_id(browser, "retry").click()
        WebDriverWait(browser, 30).until(lambda d: not _by_id(d, "offline").is_displayed())
        assert _ready(browser) in ("yes", "over")
        assert table.game.state.seq > seq  # the click was sent once the server was back
    finally:
        running.stop()


# --- take-backs and clocks (issue #40) ------------------------------------------------


def _body_is(driver: Any, name: str, value: str, timeout: float = 30) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(
        lambda d: d.find_element("tag name", "body").get_attribute(name) == value)


def _play_until(table: Any, seat: int, allowed: bool) -> None:
    """Play each seat's first action through the table until ``seat`` has just decided
    and may (or may not) take it back."""
    from tokaido_rules.wire import encode_action

    for _ in range(300):
        game = table.game
        current = game.current_player
        table.act(current, {"action": encode_action(game.legal_actions()[0]),
                            "expected_seq": game.state.seq})
        if current == seat and table.take_back_check(seat).allowed is allowed:
            return
    raise AssertionError("no such point")


def test_a_take_back_and_its_refusal_in_the_page(browser: Any, server: tuple[str, Any]
                                                  ) -> None:
    """The button is off with the reason where the rule refuses; where it allows, a
    click takes the decision back and the page redraws at the lower seq with the whole
    log once."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    table, _ = lobby.create(2, ["base"], seed=11)
    _join_page(browser, url, table, 0)
    table.join(1)
    _play_until(table, 0, False)
    _body_is(browser, "data-seq", str(table.game.state.seq))
    button = _by_id(browser, "takeback")
    assert button.is_displayed() and not button.is_enabled()
    assert "No take-back now" in _by_id(browser, "takeback-why").text
    _play_until(table, 0, True)
    _body_is(browser, "data-seq", str(table.game.state.seq))
    to = table.take_back_check(0).to_seq
    _by_id(browser, "takeback").click()
    _body_is(browser, "data-takebacks", "1")
    _body_is(browser, "data-seq", str(to))
    import json

    fresh = json.loads(table.document(0, 0))
    shown = [p.text for p in browser.find_elements(By.CSS_SELECTOR, "#events p")]
    assert shown == [s["words"] for s in fresh["steps"]]


def test_a_take_back_redraws_every_page_once_and_play_goes_on(
        browser: Any, server: tuple[str, Any]) -> None:
    """Both halves of issue 40 together: a table made with its creator seated and the
    other seat invited (joined by its link); the creator's page in two tabs and a
    spectator's. A take-back answers every page with a lower seq and the whole log:
    each redraws it once (no line twice, none missing), and play goes on from there in
    every tab, each line still told once."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    made = lobby.open_table(2, ["base"], seed=11, seat=0, invite=[1])
    table = made.table
    table.join(1, made.invites[1])
    other, watcher = _new_driver(), _new_driver()
    try:
        for page in (browser, other):
            page.get(f"{url}/t/{table.id}#token={made.token}")
        watcher.get(f"{url}/t/{table.id}")
        _play_until(table, 0, True)
        before = table.game.state.seq
        for page in (browser, other, watcher):
            _shown_at(page, before)
        to = table.take_back_check(0).to_seq
        assert to is not None and to < before
        _by_id(browser, "takeback").click()
        for seat, page in ((0, browser), (0, other), (None, watcher)):
            _body_is(page, "data-takebacks", "1")
            _shown_at(page, to)
            assert _told(page) == [w for _, w in table._audience(seat).steps], seat
        # on from the point taken back: a click in one tab, the friend's turns after
        assert _ready(browser, to) == "yes"
        browser.find_elements(By.CSS_SELECTOR, "#actions button.action")[0].click()
        _play_until(table, 0, True)
        seq = table.game.state.seq
        for seat, page in ((0, browser), (0, other), (None, watcher)):
            _shown_at(page, seq)
            assert _told(page) == [w for _, w in table._audience(seat).steps], seat
    finally:
        other.quit()
        watcher.quit()


def test_the_clock_hands_a_seat_to_a_bot_in_the_page(browser: Any, server: tuple[str, Any]
                                                     ) -> None:
    """A table with a one-second clock: the page shows the time left; when it runs out
    the stand-in bot plays the decision (the record says so) and the page moves on."""
    url, lobby = server
    table, _ = lobby.create(2, ["base"], seed=12, clock=1, stand_in="random")
    _join_page(browser, url, table, 0)
    table.join(1)
    import time

    start = table.game.state.seq
    for _ in range(600):
        if any(d.played_by == "bot:random (clock)" for d in table.decisions()):
            break
        time.sleep(0.05)
    assert any(d.played_by == "bot:random (clock)" for d in table.decisions())
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda d: int(
        d.find_element("tag name", "body").get_attribute("data-seq") or 0) > start)


# --- an evening with friends (issue 40): the log, invitations, the end, a phone --------


def _told(page: Any) -> list[str]:
    return [str(p) for p in page.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#events p'),"
        " function (p) { return p.textContent; });")]


def _play_first(table: Any, seat: int, decisions: int) -> None:
    """Play ``seat``'s first legal action ``decisions`` times (the bots the others')."""
    from tokaido_rules.wire import encode_action

    for _ in range(decisions):
        game = _settled(table)
        if game.is_over:
            return
        table.act(seat, {"action": encode_action(game.legal_actions()[0]),
                         "expected_seq": game.state.seq})


def test_the_log_is_told_once_and_whole_in_two_tabs_and_after_a_reload(
        browser: Any, server: tuple[str, Any]) -> None:
    """Two tabs of the same seat, one clicking; a reload mid-game; a spectator opened
    mid-game: each page's log is the seat's (or the public) story so far, every line
    once, none missing."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    table, _ = lobby.create(2, ["base"], bots={"1": "greedy"}, seed=8)
    token = table.join(0)
    _play_first(table, 0, 3)  # opened mid-game
    other = _new_driver()
    watcher = _new_driver()
    try:
        for page in (browser, other):
            page.get(f"{url}/t/{table.id}#token={token}")
        watcher.get(f"{url}/t/{table.id}")
        for clicks in range(8):
            game = _settled(table)
            assert _ready(browser, game.state.seq) == "yes"
            if clicks == 4:
                browser.refresh()
                assert _ready(browser, game.state.seq) == "yes"
            browser.find_elements(By.CSS_SELECTOR, "#actions button.action")[0].click()
            _settled(table, after=game.state.seq)
        seq = _settled(table).state.seq
        for seat, page in ((0, browser), (0, other), (None, watcher)):
            _shown_at(page, seq)
            story = [words for _, words in table._audience(seat).steps]
            assert _told(page) == story, seat
    finally:
        other.quit()
        watcher.quit()


def test_a_waiting_page_says_at_once_that_the_server_stopped_and_comes_back(
        browser: Any) -> None:
    """A spectator's page waits on a person's decision (its long poll open); the server
    stops: the page says so without waiting for its poll to time out, and carries on
    once the server is back."""
    from selenium.webdriver.support.ui import WebDriverWait

    from tokaido_rules.tables import Lobby
    from tokaido_rules.web import bind, make_server

    lobby = Lobby()
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=4)
    table.join(0)  # the table waits on this person: the spectator's page waits too
    running = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0).start()
    port = running.socket.getsockname()[1]
    try:
        browser.get(f"{running.url}/t/{table.id}")
        _shown_at(browser, table.game.state.seq)
        running.stop()  # the poll's 25 s are not waited for: 10 s is only a hang guard
        WebDriverWait(browser, 10).until(lambda d: _by_id(d, "offline").is_displayed())
        assert "The server has stopped" in _by_id(browser, "offline").text
        running = make_server(lobby, bind("127.0.0.1", port), animate_ms=0).start()
        _play_first(table, 0, 1)
        _by_id(browser, "retry").click()
        WebDriverWait(browser, 30).until(lambda d: not _by_id(d, "offline").is_displayed())
        _shown_at(browser, _settled(table).state.seq)
    finally:
        running.stop()


def test_the_creator_is_seated_and_an_uninvited_page_cannot_take_a_seat(
        browser: Any, server: tuple[str, Any]) -> None:
    """From the lobby (its form setting the table's rules too): the creator lands on seat
    0, with a link per invited seat; the
    lobby offers no way into an invited seat, a page with a wrong link is refused and
    watches; the right link seats a friend."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    url, lobby = server
    browser.get(url + "/")
    _ready_lobby(browser)
    Select(_by_id(browser, "players")).select_by_visible_text("3")
    Select(_by_id(browser, "seat-2")).select_by_value("greedy")
    Select(_by_id(browser, "takeback")).select_by_value("all")
    Select(_by_id(browser, "clock")).select_by_value("60")
    Select(_by_id(browser, "stand-in")).select_by_value("random")
    _by_id(browser, "hints").click()  # hints off
    _by_id(browser, "create").click()
    WebDriverWait(browser, 30).until(lambda d: "/t/" in d.current_url)
    table = lobby.tables()[-1]
    assert [s.kind for s in table.seats] == ["human", "open", "bot"]
    assert (table.rules.takeback, table.rules.clock, table.rules.stand_in,
            table.rules.hints) == ("all", 60, "random", False)  # as the lobby's form set
    assert table.seat_list()[1]["kind"] == "invited"
    _ready(browser)
    assert _by_id(browser, "who").text == "You play seat 0"
    assert table.name in _by_id(browser, "name").text
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '#invites .invite[data-seat="1"] input'))
    link = browser.find_element(By.CSS_SELECTOR,
                                '#invites .invite[data-seat="1"] input').get_attribute("value")
    friend = _new_driver()
    try:
        friend.get(url + "/")
        _ready_lobby(friend)
        assert not friend.find_elements(By.CSS_SELECTOR, f'tr[data-table="{table.id}"] '
                                                         "button.join")
        friend.get(link.replace("invite=", "invite=x"))  # not the link: refused
        WebDriverWait(friend, 30).until(lambda d: "invited" in _by_id(d, "error").text
                                        and "Watching" in _by_id(d, "who").text)
        assert table.seat_list()[1]["kind"] == "invited"
        friend.get("about:blank")
        friend.get(link)
        WebDriverWait(friend, 30).until(lambda d: _by_id(d, "who").text == "You play seat 1")
        assert table.seats[1].kind == "human"
        assert "#token=" in friend.current_url and "invite" not in friend.current_url
    finally:
        friend.quit()


def test_the_end_says_where_you_placed_and_the_rematch_moves_the_seats_on(
        browser: Any, server: tuple[str, Any]) -> None:
    """At the end the page says "You won" or "You placed 2nd"; its rematch button
    takes the person to the new table, one seat on, with the same token."""
    url, lobby = server
    table, _ = lobby.create(2, ["base"], bots={"1": "greedy"}, seed=12)
    token = table.join(0)
    _play_first(table, 0, 500)
    assert table.game.is_over
    browser.get(f"{url}/t/{table.id}#token={token}")
    assert _ready(browser) == "over"
    place = _by_id(browser, "place").text
    winners = table.game.winners()
    assert place == ("You won!" if winners == (0,) else "You placed 2nd."), place
    _by_id(browser, "rematch").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda d: table.id not in d.current_url)
    assert table.rematch is not None
    _ready(browser)
    assert _by_id(browser, "who").text == "You play seat 1"
    assert lobby.get(table.rematch).seats[0].bot == "greedy"


def _within(driver: Any, element_id: str, width: int, height: int) -> None:
    """The element is shown, not empty, and inside the viewport (no sideways scroll)."""
    r = _rect(driver, element_id)
    assert r["right"] - r["left"] > 40 and r["bottom"] - r["top"] > 10, (element_id, r)
    assert r["left"] >= 0 and r["right"] <= width and 0 <= r["top"] < height, (element_id, r)


def _not_blank(png: Path) -> None:
    """A screenshot with something on it: its pixels hold many values, not one flat
    fill (read with the standard library: PNG chunks, zlib)."""
    import struct
    import zlib

    data, at, pixels = png.read_bytes(), 8, b""
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            pixels += data[at + 8:at + 8 + size]
        at += 12 + size
    assert len(set(zlib.decompress(pixels))) > 20, png


def test_on_a_phone_the_lobby_a_seat_and_the_end_read_well(
        browser: Any, server: tuple[str, Any], artefacts: Path) -> None:
    """At 390 x 844: the lobby, a seat mid-game and the end screen fit the width; the
    decision comes first, the board shows the spaces one can reach (scrolled to them,
    the whole road a swipe away) at a size to tap; screenshots of the three."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    width, height = 390, 844
    browser.set_window_size(width, height)
    table, _ = lobby.create(3, ["base"], bots={"1": "greedy", "2": "greedy"}, seed=31)
    token = table.join(0)
    try:
        inner = browser.execute_script("return window.innerWidth")
        browser.get(url + "/")
        _ready_lobby(browser)
        assert browser.execute_script("return document.documentElement.scrollWidth") <= inner
        _within(browser, "create", inner, 10_000)
        browser.save_screenshot(str(artefacts / "phone-lobby.png"))
        _not_blank(artefacts / "phone-lobby.png")
        _play_first(table, 0, 1)  # the traveller chosen: on the road
        browser.get(f"{url}/t/{table.id}#token={token}")
        for _ in range(20):
            game = _settled(table)
            assert _ready(browser, game.state.seq) == "yes"
            if browser.find_elements(By.CSS_SELECTOR, "#board [data-position].playable"):
                break
            browser.find_elements(By.CSS_SELECTOR, "#actions button.action")[0].click()
            _settled(table, after=game.state.seq)
        assert browser.execute_script("return document.documentElement.scrollWidth") <= inner
        for element in ("status", "actions"):
            _within(browser, element, inner, height)
        assert _rect(browser, "actions")["top"] < _rect(browser, "board")["top"]
        board = browser.execute_script(
            "var b = document.getElementById('board'); return {scroll: b.scrollWidth,"
            " client: b.clientWidth, left: b.scrollLeft};")
        assert board["scroll"] > 2 * board["client"]  # large: the road is a swipe wide
        spaces = browser.execute_script(
            "var b = document.getElementById('board').getBoundingClientRect();"
            "return Array.prototype.map.call(document.querySelectorAll("
            "'#board [data-position].playable'), function (g) {"
            " var r = g.getBoundingClientRect();"
            " return {left: r.left, right: r.right, width: r.width,"
            " inside: r.right > b.left && r.left < b.right}; });")
        assert any(s["inside"] for s in spaces), spaces  # scrolled to where one can go
        assert max(s["width"] for s in spaces) >= 24  # big enough to tap
        browser.save_screenshot(str(artefacts / "phone-seat.png"))  # the decision first
        _not_blank(artefacts / "phone-seat.png")
        browser.execute_script("document.getElementById('board').scrollIntoView()")
        browser.save_screenshot(str(artefacts / "phone-board.png"))  # then the road
        _not_blank(artefacts / "phone-board.png")
        _play_first(table, 0, 500)
        browser.execute_script("window.scrollTo(0, 0)")
        _shown_at(browser, table.game.state.seq)
        for element in ("status", "place", "rematch", "scores"):
            _within(browser, element, inner, height)
        assert browser.execute_script("return document.documentElement.scrollWidth") <= inner
        table_box = browser.execute_script(
            "var t = document.querySelector('#scores table').getBoundingClientRect();"
            "var s = document.getElementById('scores').getBoundingClientRect();"
            "return {table: t.right, box: s.right};")
        assert table_box["table"] <= table_box["box"] + 1 or browser.execute_script(
            "var s = document.getElementById('scores'); return s.scrollWidth > s.clientWidth"
            " && getComputedStyle(s).overflowX === 'auto';")
        browser.save_screenshot(str(artefacts / "phone-end.png"))
        _not_blank(artefacts / "phone-end.png")
        page = artefacts / "phone-replay.html"  # the replay's score table keeps its box
        page.write_text(replay_html(table.game), encoding="utf-8")
        browser.get(page.as_uri())
        _by_id(browser, "last").click()
        assert browser.execute_script("return document.documentElement.scrollWidth") <= inner
        assert _rect(browser, "scores-box")["right"] <= inner
    finally:
        browser.set_window_size(1280, 1600)


def test_the_hint_button_shows_the_figures_and_goes_when_hints_are_off(
        browser: Any, server: tuple[str, Any]) -> None:
    """At the seat's decision the Hint button shows each action's figures and
    highlights the best one (the analysis the table answers); they go when the seq
    moves on, the decision is recorded as taken after a hint, and the button goes when
    the host turns hints off."""
    from selenium.webdriver.common.by import By

    url, lobby = server
    lobby.bot_options = {"ismcts": {"iterations": 16}}  # a cheap hint bot
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=8)
    _join_page(browser, url, table, 0)
    assert _ready(browser) == "yes"
    _body_is(browser, "data-hints", "on")
    seq = table.game.state.seq
    assert _by_id(browser, "hint").is_displayed()
    _by_id(browser, "hint").click()
    _body_is(browser, "data-hinted", str(seq))
    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
    figures = [b.find_element(By.CSS_SELECTOR, ".figures").text for b in buttons]
    assert len(figures) == len(table.game.legal_actions()) >= 2
    assert all("win " in f and "margin " in f and "±" in f for f in figures), figures
    expected = table.hint(0)
    best = [i for i, b in enumerate(buttons) if "best" in str(b.get_attribute("class"))]
    assert best == [expected["best"]]
    assert _by_id(browser, "hint-best").text.startswith("Best: ")
    browser.set_window_size(390, 844)  # a phone: the figures fit, nothing scrolls sideways
    try:
        assert browser.execute_script("return document.documentElement.scrollWidth <= "
                                      "window.innerWidth")
        assert _rect(browser, "actions")["right"] <= 390
    finally:
        browser.set_window_size(1280, 1600)
    buttons[0].click()
    _settled(table, after=seq)
    _ready(browser, table.game.state.seq)
    assert not browser.find_elements(By.CSS_SELECTOR, "#actions .figures")
    assert [d.seq for d in table.decisions() if d.hinted] == [seq]
    table.set_hints(False)
    _body_is(browser, "data-hints", "off")
    assert not _by_id(browser, "hint").is_displayed()
    table.hand_to_bot(0, "random")  # to the end: the end screen counts the hints
    assert table.game.is_over
    _ready(browser, table.game.state.seq)
    assert _by_id(browser, "hints-taken").text == "Seat 0 took 1 hint."


def test_a_table_made_without_hints_shows_no_hint_button(
        browser: Any, server: tuple[str, Any]) -> None:
    url, lobby = server
    table, _ = lobby.create(2, ["base"], bots={"1": "random"}, seed=8, hints=False)
    _join_page(browser, url, table, 0)
    assert _ready(browser) == "yes"
    _body_is(browser, "data-hints", "off")
    assert not _by_id(browser, "hint").is_displayed()


def test_handing_a_seat_to_a_bot_gives_it_the_tables_stand_in(
        browser: Any, server: tuple[str, Any]) -> None:
    """The seat's "Hand my seat to a bot" hands it to the stand-in bot the host chose
    for the table (not always greedy)."""
    url, lobby = server
    table, _ = lobby.create(2, ["base"], bots={"1": "greedy"}, seed=8, stand_in="random")
    _join_page(browser, url, table, 0)
    assert _ready(browser) == "yes"
    _by_id(browser, "hand").click()
    import time

    for _ in range(600):  # at most 30 s
        if table.seats[0].kind == "bot":
            break
        time.sleep(0.05)
    assert (table.seats[0].kind, table.seats[0].bot) == ("bot", "random")


def test_the_host_turns_hints_off_and_on_in_the_page(browser: Any, server: tuple[str, Any]
                                                     ) -> None:
    """The host's box has the switch: the table's rule follows it, and the seat's Hint
    button goes and comes back."""
    url, lobby = server
    table, host = lobby.create(2, ["base"], bots={"1": "random"}, seed=8)
    token = table.join(0)
    browser.get(url + "/")
    browser.execute_script("localStorage.setItem(arguments[0], arguments[1])",
                           f"tokaido-host:{table.id}", host)
    browser.get(f"{url}/t/{table.id}#token={token}")
    try:
        assert _ready(browser) == "yes"
        _body_is(browser, "data-hints", "on")
        _by_id(browser, "host").click()  # open the host's box
        switch = _by_id(browser, "hints-switch")
        assert switch.text == "Turn hints off"
        switch.click()
        _body_is(browser, "data-hints", "off")
        assert table.rules.hints is False and not _by_id(browser, "hint").is_displayed()
        assert _by_id(browser, "hints-switch").text == "Turn hints on"
        _by_id(browser, "hints-switch").click()
        _body_is(browser, "data-hints", "on")
        assert table.rules.hints is True and _by_id(browser, "hint").is_displayed()
    finally:
        browser.execute_script("localStorage.clear()")

"""Take the documentation's screenshot of the replay viewer: the page of a 4-player
Crossroads game (the bots and seed of ``make_board.py``, played to the end), opened in
headless Chromium at decision 107 and photographed.

Run it from the repository (``python docs/_static/make_replay_png.py``) after a change
to the viewer (:mod:`tokaido_rules.viewer`); it needs selenium and the system's
``chromium`` and ``chromedriver`` (Debian: ``apt-get install chromium chromium-driver``)
and writes ``replay.png`` beside itself.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from tokaido_rules import new_game
from tokaido_rules.bots import GreedyBot, RandomBot, next_action
from tokaido_rules.chance import bot_seed
from tokaido_rules.viewer import replay_html

SEED = 2024
FRAME = 107


def main() -> None:
    game = new_game(4, seed=SEED, plugins=("base", "crossroads"))
    bots = [(GreedyBot if seat % 2 == 0 else RandomBot)(bot_seed(SEED, seat))
            for seat in range(4)]
    while not game.is_over:
        game = game.apply(next_action(bots[game.current_player or 0], game))
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1100,1500", "--hide-scrollbars"):
        options.add_argument(arg)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "replay.html"
        page.write_text(replay_html(game), encoding="utf-8")
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")),
                                  options=options)
        try:
            driver.get(page.as_uri())
            driver.execute_script(
                "var s = document.getElementById('slider'); s.value = arguments[0];"
                "s.dispatchEvent(new Event('input'));", FRAME)
            out = Path(__file__).with_name("replay.png")
            driver.find_element(By.TAG_NAME, "body").screenshot(str(out))
        finally:
            driver.quit()


if __name__ == "__main__":
    main()

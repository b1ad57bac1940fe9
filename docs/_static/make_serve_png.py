"""Take the documentation's screenshots of ``tokaido serve``: a 3-player table (two
greedy bots) at the seat's fourth decision, at 1280x800 (``serve.png``) and on a
phone's width (``serve-phone.png``), and the end of the same game (``serve-end.png``).

Run it from the repository (``python docs/_static/make_serve_png.py``) after a change
to the table page (``src/tokaido_rules/pages/table.html``) or to the pictures; it needs
selenium, the web extra and the system's ``chromium`` and ``chromedriver`` (Debian:
``apt-get install chromium chromium-driver``) and writes the PNGs beside itself. The
server listens on 127.0.0.1 only, and stops at the end.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tokaido_rules.tables import Lobby
from tokaido_rules.web import bind, make_server

SEED = 5


def _ready(driver: webdriver.Chrome) -> str:
    def ready(d: webdriver.Chrome) -> str | None:
        state = d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
        return state if state in ("yes", "over") else None
    return str(WebDriverWait(driver, 30).until(ready))


def main() -> None:
    lobby = Lobby()
    table, _ = lobby.create(3, ["base"], bots={"1": "greedy", "2": "greedy"}, seed=SEED)
    running = make_server(lobby, bind("127.0.0.1", 0), animate_ms=0).start()
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    here = Path(__file__).parent
    try:
        driver.set_window_size(1280, 900)
        driver.get(f"{running.url}/t/{table.id}#token={table.join(0)}")
        for _ in range(3):
            _ready(driver)
            driver.find_elements(By.CSS_SELECTOR, "#actions button")[-1].click()
            time.sleep(0.5)
        _ready(driver)
        driver.save_screenshot(str(here / "serve.png"))
        driver.set_window_size(390, 1400)
        time.sleep(0.5)
        driver.save_screenshot(str(here / "serve-phone.png"))
        driver.set_window_size(1280, 900)
        while _ready(driver) == "yes":
            driver.find_elements(By.CSS_SELECTOR, "#actions button")[0].click()
            time.sleep(0.3)
        driver.save_screenshot(str(here / "serve-end.png"))
    finally:
        driver.quit()
        running.stop()


if __name__ == "__main__":
    main()

"""A live server and a headless Chromium for the inspector's browser tests.

Chromium and chromedriver come from Debian's packages (``apt-get install chromium chromium-driver``),
driven by Selenium; nothing is downloaded. Without them the browser tests skip with the reason, except
under CI (``CI=true``), where a missing browser fails the run.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SHOTS = Path(__file__).resolve().parents[1] / "docs" / "ui"
CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver", "chromedriver")


def _find(names: tuple[str, ...]) -> str | None:
    for name in names:
        path = shutil.which(name) if not name.startswith("/") else (name if os.access(name, os.X_OK) else None)
        if path:
            return path
    return None


def browser_or_skip() -> tuple[str, str]:
    """Paths of chromium and chromedriver; skip (fail under CI) when either, or Selenium, is missing."""
    missing = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the Python package selenium (pip install -e '.[dev]')")
    chromium, driver = _find(CHROMIUM), _find(CHROMEDRIVER)
    if chromium is None:
        missing.append("chromium (apt-get install chromium)")
    if driver is None:
        missing.append("chromedriver (apt-get install chromium-driver)")
    if missing:
        reason = "BROWSER TESTS NOT RUN: missing " + ", ".join(missing)
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason + " (required under CI)", pytrace=False)
        pytest.skip(reason)
    assert chromium is not None and driver is not None
    return chromium, driver


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextmanager
def chromium_driver(chromium: str, chromedriver: str) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1366,900",
        "--force-device-scale-factor=1",
        "--lang=en-US",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver: Any, name: str) -> None:
    """Save the whole page as docs/ui/<name>.png, only when ANCHORMEM_UI_SCREENSHOTS=1."""
    if os.environ.get("ANCHORMEM_UI_SCREENSHOTS") != "1":
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = int(driver.execute_script("return Math.min(document.documentElement.scrollHeight, 3000)"))
    chrome = int(driver.execute_script("return window.outerHeight - window.innerHeight"))
    driver.set_window_size(1366, max(height, 700) + chrome)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    driver.set_window_size(1366, 900)

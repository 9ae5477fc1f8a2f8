"""Headless Chromium and a local static server, shared by the tests of the HTML pages."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
MISSING = "chromium and chromium-driver are not installed (scripts/setup.sh installs them)"
WAIT = 60  # seconds a page may take to load media on a busy machine
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def under_ci() -> bool:
    """Whether the tests run on a CI service (which sets CI=true)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_browser() -> None:
    """Skip a browser test where Chromium is missing, but fail it under CI=true: a CI
    without a browser would otherwise pass while testing no page."""
    if CHROMIUM and DRIVER:
        return
    if under_ci():
        pytest.fail(
            f"{MISSING}; under CI=true a browser test fails instead of skipping",
            pytrace=False,
        )
    pytest.skip(MISSING)


def browser_test(test):
    """Marked `browser`: conftest runs `require_browser` before its fixtures."""
    return pytest.mark.browser(test)


@contextlib.contextmanager
def chromium(*extra: str, size: tuple[int, int] | None = None) -> Iterator[object]:
    """A headless Chromium with a fresh profile and the browser log kept, removed afterwards."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pe-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*FLAGS, *extra, f"--user-data-dir={profile}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_script_timeout(WAIT)
    if size is not None:
        driver.set_window_size(*size)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """Serve `folder` on a free local port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def console_errors(driver) -> list[dict]:
    """The page's severe console messages so far."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]

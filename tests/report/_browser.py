"""Headless Chromium for the report tests, driven by Python playwright (never ``playwright
install``: the browser is Debian's ``chromium``, found by ``tests/cli/_chromium.py``).

Run as a script to screenshot the first screen of a report at 1280 x 900::

    python tests/report/_browser.py out/report.html first-screen.png
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
FIRST_SCREEN = {"width": 1280, "height": 900}


def chromium_path() -> str | None:
    """The browser ``tests/cli/_chromium.py`` finds (one place that knows where it is)."""
    module = sys.modules.get("_chromium")
    if module is None:
        path = Path(__file__).resolve().parents[1] / "cli" / "_chromium.py"
        spec = importlib.util.spec_from_file_location("_chromium", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_chromium"] = module
        spec.loader.exec_module(module)
    return module.chromium_path()


def why_no_browser() -> str | None:
    """None when a browser test can run here, else the reason it cannot."""
    if importlib.util.find_spec("playwright") is None:
        return "the 'playwright' package is not installed (pip install 'ixplain[dev]')"
    if chromium_path() is None:
        return ("chromium is not installed (.ci/run installs Debian's chromium package when it "
                "runs as root: apt-get install -y chromium)")
    return None


def module_browser() -> Iterator[Any]:
    """Body of each browser test module's ``browser`` fixture (one browser per module): skip with
    the reason when there is no browser, else a headless Chromium, closed at the end."""
    import pytest

    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        try:
            yield browser
        finally:
            browser.close()


def launch(playwright: Any) -> Any:
    """A headless Chromium (the system's, never a downloaded one)."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=ARGS)


@dataclass
class Recorder:
    """Everything a page said or asked for: console messages, uncaught errors, requests."""

    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Console errors and warnings and uncaught exceptions."""
        return [f"{kind}: {text}" for kind, text in self.console if kind in ("error", "warning")] + self.errors


def open_page(browser: Any, url: str, allowed: tuple[str, ...] = ("file:", "data:")) -> tuple[Any, Recorder]:
    """A new 1280 x 900 page at ``url`` whose requests outside ``allowed`` are recorded and refused."""
    page = browser.new_page(viewport=FIRST_SCREEN)
    seen = Recorder()
    page.on("console", lambda m: seen.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))

    def route(r: Any) -> None:
        seen.requests.append(r.request.url)
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", state="attached", timeout=30_000)
    return page, seen


def screenshot_first_screen(html: str | Path, out: str | Path, browser: Any = None) -> Path:
    """Save what a reader sees first (1280 x 900, no scrolling) of the report ``html`` as a PNG.

    ``browser``: a playwright browser to reuse; without one a headless Chromium is started and
    closed.
    """
    url = Path(html).resolve().as_uri()
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            own = launch(p)
            try:
                return screenshot_first_screen(html, out, own)
            finally:
                own.close()
    page, _ = open_page(browser, url)
    try:
        page.screenshot(path=str(out))
    finally:
        page.close()
    return Path(out)


if __name__ == "__main__":
    print(screenshot_first_screen(sys.argv[1], sys.argv[2]))

"""Headless Chromium (the operating system's package) for the viewer tests.

The page records uncaught script errors in ``data-js-errors`` on ``<html>`` and sets
``data-ready="1"`` when its script has drawn everything, so a dumped DOM tells whether the
script ran and whether it failed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def find_chromium() -> str | None:
    """The browser executable on PATH, or None (the library's own look-up)."""
    from conflicteval.view.files import find_chromium as find

    return find()


def require_chromium() -> str:
    """The browser, or skip the test with the reason."""
    path = find_chromium()
    if path is None and os.environ.get("CONFLICTEVAL_REQUIRE_BROWSER"):
        pytest.fail("CONFLICTEVAL_REQUIRE_BROWSER is set but no Chromium is installed")
    if path is None:
        pytest.skip(
            "no Chromium installed (apt-get install chromium): the browser tests need the "
            "operating system's headless Chromium"
        )
    return path


def _argv(browser: str, profile: Path) -> list[str]:
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
    ]


def dump_dom(page: Path, fragment: str, profile: Path, timeout: float = 120.0) -> str:
    """The page's DOM after its script ran (opened as ``file://...#fragment``)."""
    browser = require_chromium()
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    proc = subprocess.run(
        [*_argv(browser, profile), "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def screenshot(page: Path, fragment: str, out: Path, profile: Path, size: str = "1280,900") -> Path:
    """A PNG of the page at ``size`` (width,height)."""
    browser = require_chromium()
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    proc = subprocess.run(
        [*_argv(browser, profile), f"--window-size={size}", f"--screenshot={out}", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and out.is_file() and out.stat().st_size > 1000, proc.stderr[-2000:]
    return out


def check_ran(dom: str) -> None:
    """The script ran to its end and recorded no error."""
    head = dom[: dom.find(">", dom.find("<html")) + 1]
    assert "data-js-errors" not in head, head
    assert 'data-ready="1"' in head, f"the page's script did not finish: {head}"

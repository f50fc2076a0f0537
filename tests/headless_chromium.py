"""Debian's Chromium through Playwright, for the browser tests (no browser is downloaded).

`launch(wait_ms)` is the body of a module-scoped `browser` fixture: it skips, saying why, when
Chromium or the playwright package is missing, and otherwise yields a headless browser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("REFINERY_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(wait_ms: int) -> Iterator[Any]:
    """A headless Chromium (a fresh profile per launch); `expect` waits up to `wait_ms`."""
    if not CHROMIUM.is_file():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium with apt-get "
            "where it can (as root); set REFINERY_CHROMIUM to use another binary"
        )
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (it is in the dev extra)")
    expect.set_options(timeout=wait_ms)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()

"""Headless Chromium for the browser tests, driven by playwright with the system binary.

Playwright never downloads a browser here: the tests launch Debian's ``chromium-headless-shell``
(or ``chromium``; ``$REPLAY_TUI_CHROMIUM`` names another), which ``.ci/run`` installs. Without
one on this machine the tests are skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser")


def chromium_binary() -> str | None:
    named = os.environ.get("REPLAY_TUI_CHROMIUM")
    if named:
        return shutil.which(named) or (named if os.path.exists(named) else None)
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A browser per module, each test in a context of its own (``browser.new_context``:
    its own storage, viewport and colour scheme). Not one for the session: playwright's sync
    API marks its event loop as running in this thread while it is open, which would break
    every asyncio test that came after it. pytest closes a module's fixtures before it runs a
    test of another module, and the modules here hold their tests together on one xdist
    worker (the "browser" group): launching Chromium cost 0.6-0.8 s a test."""
    binary = chromium_binary()
    if binary is None:
        pytest.skip(
            "no Chromium binary found (apt-get install chromium-headless-shell; .ci/run does)"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is in the [test] extra"
    )
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=binary, args=["--no-sandbox"])
        yield b
        b.close()

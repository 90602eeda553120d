"""``replay-tui serve`` in a real browser: textual-serve's page connects its websocket to the TUI,
which draws the trace list; the page asks nothing of any other host."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from share.samples import TRACES

pytestmark = pytest.mark.xdist_group("browser")  # one worker, one Chromium a module

pytest.importorskip("textual_serve", reason="textual-serve is in the [test] extra")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")
_BOOT = "import sys; from replay_tui.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def served() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _BOOT, "serve", str(TRACES), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # printed once the port is bound
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield found.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_served_tui_shows_the_trace_list(browser: Any, served: str, name: str) -> None:
    """Reached by another name than the one it printed (an SSH tunnel's, another machine's
    with --allow-remote), the page loads its script and its websocket from that name: it
    named the server's own, which the browser's machine may not resolve or reach."""
    served = served.replace("127.0.0.1", name)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    foreign: list[str] = []
    page.on(
        "request",
        lambda r: (
            None
            if r.url.startswith((f"http://{name}:", f"ws://{name}:"))
            else foreign.append(r.url)
        ),
    )
    received: list[str] = []

    def websocket(ws: Any) -> None:
        ws.on(
            "framereceived",
            lambda f: received.append(f if isinstance(f, str) else f.decode("utf-8", "replace")),
        )

    page.on("websocket", websocket)
    page.goto(served)
    deadline = time.monotonic() + 20
    screen = ""
    while time.monotonic() < deadline:
        screen = _ANSI.sub("", "".join(received))
        if "qwen3-max-id-empty.sse" in screen and "erasing" in screen:
            break
        page.wait_for_timeout(100)
    assert "qwen3-max-id-empty.sse" in screen and "erasing" in screen
    # The keyboard is the TUI's from the start: no click first (which selects in it).
    page.keyboard.type("/dash")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        screen = _ANSI.sub("", "".join(received))
        if "2 of 26" in screen:
            break
        page.wait_for_timeout(100)
    assert "2 of 26" in screen
    assert foreign == []
    page.close()

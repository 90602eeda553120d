"""``replay-tui serve`` in a real browser: textual-serve's page connects its websocket to the TUI,
which draws the trace list; the page asks nothing of any other host."""

from __future__ import annotations

import http.server
import re
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
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
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
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


_ATTACK = """<!doctype html><script>
window.outcome = new Promise(function (resolve) {
  const got = [];
  const ws = new WebSocket("ws://127.0.0.1:PORT/ws?width=80&height=24");
  ws.onmessage = function (e) { got.push(typeof e.data); };
  ws.onclose = function (e) { resolve({code: e.code, messages: got.length}); };
  setTimeout(function () { ws.close(); }, 5000);
});
</script>"""


@pytest.fixture
def attacker() -> Iterator[Callable[[bytes], int]]:
    """A web server on 127.0.0.1 (another port) serving one page: the page elsewhere."""
    page: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page[0])

        def log_message(self, *args: Any) -> None:
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve_page(body: bytes) -> int:
        page.append(body)
        port: int = server.server_address[1]
        return port

    yield serve_page
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_a_page_elsewhere_cannot_open_the_tui(
    browser: Any, served: str, attacker: Callable[[bytes], int], name: str
) -> None:
    """In the browser that has the TUI open (its cookie set), a page on another port opens
    the TUI's websocket: refused before any screen is sent. On 127.0.0.1 it is the same site,
    so the browser sends the cookie: only the Origin check refuses it (without it, it got
    the TUI's screen)."""
    found = re.search(r":(\d+)/", served)
    assert found
    port = int(found.group(1))
    context = browser.new_context()
    context.new_page().goto(served)
    assert [c["name"] for c in context.cookies()] == [f"replay-tui-serve-{port}"]
    other = attacker(_ATTACK.replace("PORT", str(port)).encode())
    page = context.new_page()
    page.goto(f"http://{name}:{other}/")
    assert page.evaluate("window.outcome") == {"code": 1006, "messages": 0}
    context.close()


def test_e_in_the_served_tui_downloads_the_report_in_the_browser(
    browser: Any, served: str, tmp_path: Any
) -> None:
    """The report reaches the person at the browser (textual-serve's download), not a file
    on the server's disk."""
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    received: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda f: received.append(f if isinstance(f, str) else f.decode("utf-8", "replace")),
        ),
    )
    page.goto(served)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "erasing" not in _ANSI.sub("", "".join(received)):
        page.wait_for_timeout(100)
    page.keyboard.type("/qwen3-max")
    page.keyboard.press("Enter")
    page.wait_for_timeout(1500)
    with page.expect_download(timeout=20_000) as info:
        page.keyboard.press("e")
    download = info.value
    assert download.suggested_filename.endswith(".report.html")
    saved = tmp_path / "got.html"
    download.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert "<!DOCTYPE html>" in text and "replay-tui report" in text
    context.close()

"""Render the sharing features with a real browser into ``screenshots/`` (PNG).

    python scripts/screenshots_share.py

- ``report-light.png`` and ``report-dark.png``: ``replay-tui report`` of the DashScope trace,
  as Chromium shows it under each ``prefers-color-scheme``;
- ``report-phone.png``: the same page 390 px wide;
- ``serve.png``: ``replay-tui serve traces/`` in the browser, once the TUI has drawn its list.

Needs headless Chromium (Debian: ``chromium-headless-shell``, or ``$REPLAY_TUI_CHROMIUM``) and
playwright (the ``[test]`` extra); playwright drives the system binary, it downloads nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from replay_tui.cli import main  # noqa: E402

OUT = ROOT / "screenshots"
TRACE = ROOT / "traces" / "dashscope" / "qwen3-max-id-empty.sse"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def chromium() -> str:
    import os

    for name in (os.environ.get("REPLAY_TUI_CHROMIUM"), "chromium-headless-shell", "chromium"):
        if name and shutil.which(name):
            return str(shutil.which(name))
    raise SystemExit("no Chromium found: apt-get install chromium-headless-shell")


def reports(browser: Any, folder: Path) -> None:
    page_path = folder / "report.html"
    if main(["report", str(TRACE.relative_to(ROOT)), "-o", str(page_path)]) != 0:
        raise SystemExit("report failed")
    shots: list[tuple[str, dict[str, Any]]] = [
        ("report-light", {"color_scheme": "light", "viewport": {"width": 1100, "height": 900}}),
        ("report-dark", {"color_scheme": "dark", "viewport": {"width": 1100, "height": 900}}),
        (
            "report-phone",
            {
                "color_scheme": "light",
                "viewport": {"width": 390, "height": 844},
                "device_scale_factor": 2,
            },
        ),
    ]
    for name, options in shots:
        ctx = browser.new_context(**options)
        page = ctx.new_page()
        page.route(  # the page alone: anything else it asked for would be a bug
            "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
        )
        page.goto(page_path.as_uri())
        page.screenshot(path=str(OUT / f"{name}.png"), full_page=name != "report-phone")
        ctx.close()
        print(f"wrote screenshots/{name}.png")


def served(browser: Any) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from replay_tui.cli import main; sys.exit(main())",
            "serve",
            "traces",
            "--port",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"http://\S+/", proc.stdout.readline())
        if url is None:
            raise SystemExit("serve did not start")
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        received: list[str] = []
        page.on(
            "websocket",
            lambda ws: ws.on(
                "framereceived",
                lambda f: received.append(
                    f if isinstance(f, str) else f.decode("utf-8", "replace")
                ),
            ),
        )
        page.goto(url.group(0))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "calls" not in _ANSI.sub("", "".join(received)):
            page.wait_for_timeout(100)
        page.wait_for_timeout(1500)  # the first flagged trace opens once the list is judged
        page.screenshot(path=str(OUT / "serve.png"))
        print("wrote screenshots/serve.png")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        reports(browser, Path(tmp))
        served(browser)
        browser.close()


if __name__ == "__main__":
    run()

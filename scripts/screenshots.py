"""Render each view of the TUI on the bundled traces into ``screenshots/`` (SVG, and PNG too).

    python scripts/screenshots.py            # all of them
    python scripts/screenshots.py calls raw  # some of them

The app runs headless at a fixed terminal size; each scenario drives it with the keys a user
would press, waits until every worker is done, and exports the screen. PNGs are made with
``rsvg-convert`` (Debian: ``librsvg2-bin``) when it is installed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from replay_tui.tui.app import ReplayApp, make_app  # noqa: E402

TRACES = ROOT / "traces"
OUT = ROOT / "screenshots"
SIZE = (180, 50)

Steps = Callable[[ReplayApp, Pilot[int]], Awaitable[None]]


async def settle(app: ReplayApp, pilot: Pilot[int]) -> None:
    """Wait until discovery, judging, loading and view building are all done."""
    for _ in range(400):
        await pilot.pause(0.02)
        busy = app.judging or app.partial or any(w.is_running for w in app.workers)
        if not busy and app.current is not None:
            break
    await app.workers.wait_for_complete()
    await pilot.pause(0.1)


async def open_trace(app: ReplayApp, pilot: Pilot[int], address: str) -> None:
    app.choose_trace(address)
    await settle(app, pilot)


def scenario(address: str | None, *keys: str) -> Steps:
    async def steps(app: ReplayApp, pilot: Pilot[int]) -> None:
        if address is not None:
            await open_trace(app, pilot, address)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)

    return steps


def compare(a: str, b: str, *keys: str) -> Steps:
    """Mark ``a``, open ``b``, show the compare tab, then press ``keys``."""

    async def steps(app: ReplayApp, pilot: Pilot[int]) -> None:
        await open_trace(app, pilot, a)
        await pilot.press("m")
        await open_trace(app, pilot, b)
        for key in ("5", *keys):
            await pilot.press(key)
            await settle(app, pilot)

    return steps


SCENARIOS: dict[str, tuple[str, Steps]] = {
    # The first screen on traces/: the first flagged trace selected, its erasing delta marked.
    "calls": ("the calls view on traces/ (first flagged trace)", scenario(None)),
    "calls-parallel": (
        'two parallel calls, each erased by id:null / name:""',
        scenario("envoy/vertex-anthropic-parallel.sse"),
    ),
    "refused": (
        "a call the fix refuses (no id ever sent)",
        scenario("ollama/qwen3-no-id.sse"),
    ),
    "diff": ("the diff view", scenario("envoy/vertex-anthropic-parallel.sse", "2")),
    "raw": (
        "the raw view: data after [DONE] dimmed, the selected delta highlighted",
        scenario("opencode/zen-null-identity-data-after-done.sse", "3"),
    ),
    "raw-curl": (
        "a curl -i capture: status and headers",
        scenario("litellm/proxy-curl-i.txt", "3"),
    ),
    "har": ("a HAR entry with its request metadata", scenario("captures/mitmproxy-export.har#5")),
    "clients": (
        "the clients view: what each client library makes of the call (details hidden)",
        scenario("litellm/proxy-curl-i.txt", "4", "d", "down", "down", "down"),
    ),
    "compare": (
        "one request through two gateways compared: outcome, calls, events (details hidden)",
        compare("captures/mitmproxy-export.har#2", "captures/mitmproxy-export.har#4", "d"),
    ),
    "filter": ("the list filtered to erasing traces", scenario(None, "v")),
    "help": ("the key reference", scenario(None, "question_mark")),
}


async def shoot(name: str, steps: Steps) -> Path:
    app = make_app(["traces"])  # relative, as a user would type it
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await steps(app, pilot)
        app.clear_notifications()
        await pilot.pause(0.2)
        svg = app.export_screenshot(title=f"replay-tui — {name}")
    path = OUT / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def to_png(svg: Path) -> Path | None:
    """PNG beside the SVG, when rsvg-convert is there (whitespace kept as the terminal has it)."""
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        return None
    text = svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1)
    png = svg.with_suffix(".png")
    with tempfile.NamedTemporaryFile("w", suffix=".svg", encoding="utf-8", delete=False) as tmp:
        tmp.write(text)
    try:
        subprocess.run([rsvg, "--zoom", "1", tmp.name, "-o", str(png)], check=True)
    finally:
        Path(tmp.name).unlink()
    return png


def main(argv: list[str]) -> int:
    os.chdir(ROOT)
    names = argv or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
        return 2
    OUT.mkdir(exist_ok=True)
    for name in names:
        what, steps = SCENARIOS[name]
        svg = asyncio.run(shoot(name, steps))
        png = to_png(svg)
        made = f"{svg.name}" + (f" + {png.name}" if png else "")
        print(f"{made:<28} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

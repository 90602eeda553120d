"""Live-reload latency: from a write to the screen (README, Speed: under 300 ms).

The TUI runs headless on an empty temporary folder, watching it; each round writes a new trace
file and times until the app has it judged in its list (what the user sees), then a change to
an existing file until its new verdict is shown. ``bench/run.py`` calls :func:`measure`.

    python bench/live_latency.py [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLEAN = ROOT / "traces" / "openai" / "gpt-4.1-text-then-call.sse"
ERASING = ROOT / "traces" / "dashscope" / "qwen3-max-id-empty.sse"


async def _rounds(runs: int) -> tuple[list[float], list[float]]:
    sys.path.insert(0, str(ROOT))
    from replay_tui.core.trace import Badge
    from replay_tui.tui.app import make_app

    folder = Path(tempfile.mkdtemp())
    added: list[float] = []
    changed: list[float] = []
    try:
        app = make_app([str(folder)], watch=True)
        async with app.run_test(size=(180, 50)) as pilot:
            while not app.discovered:
                await pilot.pause(0.01)
            await pilot.pause(0.5)  # the watcher is up
            for i in range(runs):
                name = f"t{i}.sse"
                start = time.perf_counter()
                shutil.copy(CLEAN, folder / name)
                while name not in app.store.summaries:
                    await pilot.pause(0.002)
                added.append(time.perf_counter() - start)
                await pilot.pause(0.2)
                start = time.perf_counter()
                shutil.copy(ERASING, folder / name)
                while app.store.summaries[name].badge is not Badge.ERASING:
                    await pilot.pause(0.002)
                changed.append(time.perf_counter() - start)
                await pilot.pause(0.2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return added, changed


def measure(_trace: Path | None = None, runs: int = 10) -> tuple[float, float]:
    """Median latency (seconds) of a new file and of a changed file reaching the list."""
    added, changed = asyncio.run(_rounds(max(runs, 5)))
    a, c = statistics.median(added), statistics.median(changed)
    print(f"  new file on screen     median {a * 1000:.0f} ms   max {max(added) * 1000:.0f} ms")
    print(
        f"  changed file re-judged median {c * 1000:.0f} ms   max {max(changed) * 1000:.0f} ms"
        "   (budget: 300 ms)"
    )
    return a, c


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    measure(None, parser.parse_args().runs)

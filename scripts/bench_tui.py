"""The cost of rendering a page of the calls view of a big trace, anywhere in it.

    python scripts/bench_tui.py TRACE [--runs 5]

Each run is a fresh process that opens TRACE in the TUI (headless, 180x50), waits until it is
fully decoded, and times rendering one screenful of rows at places spread over the whole
trace. (The first screen as a user sees it, from launch in a real terminal, is
``bench/tui_launch.py``'s: a headless run is not what a user sees.) ``bench/run.py`` calls
:func:`measure`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE = (180, 50)


def _child(trace: str) -> None:
    import asyncio

    sys.path.insert(0, str(ROOT))
    from replay_tui.tui.app import make_app

    async def run() -> None:
        app = make_app([trace])
        async with app.run_test(size=SIZE) as pilot:
            while app.first_screen is None:
                await pilot.pause(0.005)
            print("first-screen", flush=True)
            while app.partial or any(w.is_running for w in app.workers):
                await pilot.pause(0.05)
            view = app.calls_view
            height = SIZE[1]
            pages = range(0, max(1, view.row_count - height), max(1, view.row_count // 40))
            start = time.perf_counter()
            for top in pages:
                view._cache.clear()
                view.scroll_to(y=top, animate=False, immediate=True)
                for y in range(height):
                    view.render_line(y)
            page = (time.perf_counter() - start) / len(pages)
            print(f"page {page:.6f} rows {view.row_count}", flush=True)

    asyncio.run(run())


def one_run(trace: Path) -> tuple[float, float]:
    """``(seconds to the first screen, seconds to render a page)`` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(trace)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    first = None
    page = float("nan")
    for line in proc.stdout:
        if line.startswith("first-screen") and first is None:
            first = time.perf_counter() - start
        elif line.startswith("page "):
            page = float(line.split()[1])
    if proc.wait() != 0 or first is None:
        raise SystemExit(f"the TUI run on {trace} failed ({proc.returncode})")
    return first, page


def measure(trace: Path, runs: int, label: str = "") -> float:
    """Print and return the median time to render a page over ``runs``."""
    pages = [one_run(trace)[1] for _ in range(runs)]
    page_ms = statistics.median(pages) * 1000
    print(f"  {label or trace.name:<16} one page of rows rendered  median {page_ms:.1f} ms")
    return statistics.median(pages)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1])
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trace", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    measure(args.trace, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

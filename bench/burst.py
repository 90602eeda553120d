"""A burst of new captures into a big watched folder: how soon the first is listed, and the
longest the UI stops answering meanwhile (headless TUI, watching).

    python bench/burst.py [--traces 3000] [--burst 200]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from replay_tui.tui.app import make_app  # noqa: E402
from tests.tui.conftest import settle  # noqa: E402

SAMPLE = ROOT / "traces" / "dashscope" / "qwen3-max-id-empty.sse"


async def measure(root: Path, burst: int) -> tuple[float, float, float]:
    data = SAMPLE.read_bytes()
    app = make_app([str(root)], watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, limit=300)
        while app.judging:
            await pilot.pause(0.1)
        before = len(app.store.sources)
        (root / "new").mkdir()
        start = time.perf_counter()
        for i in range(burst):
            (root / "new" / f"n{i}.sse").write_bytes(data)
        first = None
        worst = 0.0
        while time.perf_counter() - start < 30:
            tick = time.perf_counter()
            await pilot.pause(0.01)
            worst = max(worst, time.perf_counter() - tick - 0.01)
            if first is None and len(app.store.sources) > before:
                first = time.perf_counter() - start
            if len(app.store.sources) >= before + burst:
                break
        return first or float("nan"), time.perf_counter() - start, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=3000)
    parser.add_argument("--burst", type=int, default=200)
    args = parser.parse_args()
    data = SAMPLE.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(args.traces):
            folder = root / f"f{i // 500}"
            folder.mkdir(exist_ok=True)
            (folder / f"t{i}.sse").write_bytes(data)
        first, whole, worst = asyncio.run(measure(root, args.burst))
    print(
        f"{args.burst} new captures into {args.traces:,}: first listed {first:.2f} s, all"
        f" {whole:.2f} s, longest UI pause {worst * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()

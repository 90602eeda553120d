"""Live-reload latency: from a write to the screen (README, Speed: under 300 ms).

The TUI runs headless on an empty temporary folder, watching it; each round writes a new trace
file and times until the app has it judged in its list (what the user sees), then a change to
an existing file until its new verdict is shown. ``bench/run.py`` calls :func:`measure`.

With ``--append``, for each shape of ``bench/shapes.py`` (100,000 deltas, the capture still
being written: no ``[DONE]`` yet), the TUI opens the file alone, decodes it, puts the calls
view's cursor at its start, middle or end, and each round appends one delta (the file's last
one again) and times until the calls view shows one row more (:func:`measure_append`).

    python bench/live_latency.py [--runs 10] [--append] [--deltas 100000] [--shape NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLEAN = ROOT / "traces" / "openai" / "gpt-4.1-text-then-call.sse"
ERASING = ROOT / "traces" / "dashscope" / "qwen3-max-id-empty.sse"
APPEND_TIMEOUT = 10.0
"""Seconds a delta appended may take to reach the screen before the bench says so and stops."""


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
                while name not in app.store.judgements:
                    await pilot.pause(0.002)
                added.append(time.perf_counter() - start)
                await pilot.pause(0.2)
                start = time.perf_counter()
                shutil.copy(ERASING, folder / name)
                while app.store.judgements[name].badge is not Badge.ERASING:
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


def in_progress(path: Path) -> bytes:
    """Cut ``path`` after its last tool-call delta (before what follows: finish, usage,
    ``[DONE]``, huge-50mb's 5 MB error): a capture still being written. Returns one delta's
    event to append (that delta again, with the blank line that ends it as the file writes
    it: CRLF or LF; a text delta when there is no call)."""
    data = path.read_bytes()
    # Each event with the blank line after it (crlf-keepalive's events end in CRLF CRLF: cut
    # on LF LF alone, the whole file was one event, and appended again each round).
    events = re.findall(rb"(?s).*?(?:\r\n\r\n|\n\n|\r\r)|.+", data)
    # (a delta holding a tool call, whatever comes before it in the delta: OpenRouter's
    # deltas open with "role" and "content"; its finish chunk says "content" too, and taken
    # for the last delta, appending it added no row and the bench waited for ever)
    # (and a chunk written over several data lines: "[" ends one, "{" opens the next)
    calls = [
        i
        for i, e in enumerate(events)
        if re.search(rb'"tool_calls":(?:\s|data: ?)*\[(?:\s|data: ?)*\{', e)
    ]
    last = calls[-1] if calls else max(i for i, e in enumerate(events) if b'"content"' in e)
    path.write_bytes(b"".join(events[: last + 1]))
    return events[last]


async def _append_rounds(path: Path, event: bytes, runs: int) -> dict[str, list[float]]:
    sys.path.insert(0, str(ROOT))
    from replay_tui.tui.app import make_app

    out: dict[str, list[float]] = {"start": [], "middle": [], "end": []}
    # Being written, as a gateway streams: a delta a second while the app opens it (a
    # capture quiet for 5 s is judged as ended, and an append to it then reads it again).
    writing = threading.Event()

    def stream() -> None:
        while not writing.wait(1.0):
            with path.open("ab") as fh:
                fh.write(event)

    writer = threading.Thread(target=stream, daemon=True)
    writer.start()
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=(180, 50)) as pilot:
        while app.current is None or app.partial or app._loading is not None:
            await pilot.pause(0.05)
        view = app.calls_view
        while view.model is None or view.loading or view.model.trace is not app.current:
            await pilot.pause(0.05)
        await pilot.pause(0.5)  # the watcher is up
        writing.set()
        writer.join()
        for where in out:
            for _ in range(runs):
                model = view.model
                assert model is not None
                view.move_cursor(
                    {"start": 0, "middle": model.total // 2, "end": model.total - 1}[where]
                )
                await pilot.pause(0.05)
                before = model.total
                start = time.perf_counter()
                with path.open("ab") as fh:
                    fh.write(event)
                while view.model is None or view.model.total <= before or view.loading:
                    # (not the pilot's pause: each waits for a callback through every widget
                    # of the screen, some 40 messages every 2 ms for the app to handle)
                    await asyncio.sleep(0.002)
                    if time.perf_counter() - start > APPEND_TIMEOUT:
                        raise SystemExit(
                            f"{path.name}: a delta appended at the {where} not on screen"
                            f" after {APPEND_TIMEOUT:.0f} s"
                        )
                await pilot.pause(0)  # (the refresh it asked for)
                out[where].append(time.perf_counter() - start)
    return out


def measure_append(traces: dict[str, Path], runs: int) -> dict[str, float]:
    """Per shape: the median (over every cursor position) seconds from one delta appended to
    the open trace to its row in the calls view."""
    result: dict[str, float] = {}
    for name, path in traces.items():
        event = in_progress(path)
        rounds = asyncio.run(_append_rounds(path, event, runs))
        every = [t for ts in rounds.values() for t in ts]
        result[name] = statistics.median(every)
        per = "   ".join(f"{w} {statistics.median(ts) * 1000:.0f}" for w, ts in rounds.items())
        print(
            f"  {name:<16} a delta appended, on screen: median {result[name] * 1000:.0f} ms"
            f"   max {max(every) * 1000:.0f} ms   (cursor at {per} ms; budget 300 ms)",
            flush=True,
        )
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--append", action="store_true", help="appends to an open trace")
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--shape", action="append")
    ns = parser.parse_args()
    if not ns.append:
        measure(None, ns.runs)
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from shapes import write_shapes

        with tempfile.TemporaryDirectory() as tmp:
            measure_append(write_shapes(Path(tmp), ns.deltas, ns.shape), max(1, ns.runs // 3))

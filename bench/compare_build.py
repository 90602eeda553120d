"""Time to build the compare view's model of the 100,000-delta trace against itself.

What the compare pane makes (``diff_traces`` then ``build_compare_model``; the pane makes it in
slices between the keys), timed in stages, best of ``--runs``; then the time to make a
screenful (60) of event rows with their payload texts, as the view asks for them.

    python bench/compare_build.py [--deltas 100000] [--runs 3] [--changed]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--changed",
        action="store_true",
        help='against a copy whose continuation deltas send "id":null instead of "id":""'
        " (every payload and every delta row differs)",
    )
    ns = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from tracegen import write_big_trace

    from replay_tui.core.diff import diff_traces, event_text
    from replay_tui.core.trace import Form, Source, load_trace
    from replay_tui.core.translator import Behavior
    from replay_tui.tui.widgets.compare_model import build_compare_model

    with tempfile.TemporaryDirectory() as tmp:
        path = write_big_trace(Path(tmp) / "big.sse", deltas=ns.deltas)
        trace = load_trace(Source(path, path.name, Form.SSE))
        other = trace
        if ns.changed:
            changed = path.with_name("changed.sse")
            changed.write_bytes(path.read_bytes().replace(b'"id":"",', b'"id":null,'))
            other = load_trace(Source(changed, changed.name, Form.SSE))
        best: dict[str, float] = {}
        for _ in range(ns.runs):
            gc.collect()
            t0 = time.perf_counter()
            diff = diff_traces(trace, other)
            t1 = time.perf_counter()
            model = build_compare_model(diff, Behavior.ACCEPT_IDENTITY)
            t2 = time.perf_counter()
            rows = model.event_rows  # a screenful of expanded event rows, as the view reads them
            for r in range(min(60, len(rows))):
                row = rows[r]
                _ = [event_text(trace, i) for i in row.a], row.note, row.fields
                _ = [event_text(other, i) for i in row.b]
            t3 = time.perf_counter()
            for name, value in (("diff", t1 - t0), ("model", t2 - t1), ("screen", t3 - t2)):
                best[name] = min(best.get(name, value), value)
            del diff, model
        total = best["diff"] + best["model"]
        print(
            f"compare build, {ns.deltas:,} deltas against"
            f" {'a changed copy' if ns.changed else 'itself'} (best of {ns.runs}):"
            f" diff_traces {best['diff']:.2f} s + model {best['model']:.2f} s = {total:.2f} s;"
            f" first screen's rows {best['screen'] * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

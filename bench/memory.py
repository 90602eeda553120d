"""Memory of an open trace, against the budget: at most 3x the trace's size above the baseline.

Writes a 100,000-delta trace of each shape of ``bench/shapes.py`` (and its huge-payload shapes),
then loads each in a fresh process, four ways:

- ``whole``: ``load_trace`` on the file, as ``check`` and ``replay`` do;
- ``steps``: the TUI's loader (``tui/loading.py``): a first-screen snapshot of the start, then
  the whole capture decoded with progress reports;
- ``views``: as ``steps``, then the calls, diff, raw and clients views' models built and kept,
  as after a visit to each;
- ``compare``: as ``views``, plus the compare view of the trace against itself (the budget's
  "every view visited");
- ``noclients``: as ``compare`` without the clients view (its assessment's memory is the
  client libraries' models', measured apart);
- ``report``: ``replay-tui report FILE`` (HTML): the trace loaded as the command loads it,
  the page made (its reproducer minimized too).

For each it prints, as multiples of the file size: the peak RSS above the baseline measured
just before loading (``ru_maxrss``, in a process of its own), the memory the loaded trace
retains and the peak during loading (both from ``tracemalloc``, which counts Python
allocations only, in another process: tracing costs memory of its own), and with
``--breakdown`` the source lines that hold the retained memory. Exit status 1 when a peak is
over the budget.

    python bench/memory.py [--deltas 100000] [--shape NAME]... [--breakdown]
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

BUDGET = 3.0
VIEWS = ("views", "compare", "noclients")
STEP = 2 * 1024 * 1024


def _rss() -> int:
    """Resident set size now, in bytes (Linux: /proc; elsewhere the high-water mark)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * resource.getpagesize()
    except OSError:
        return _peak_rss()


def _peak_rss() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _load(path: Path, mode: str) -> Any:
    from replay_tui.core.trace import Form, Source, load_trace

    source = Source(path, path.name, Form.SSE)
    if mode == "whole":
        return load_trace(source)
    from replay_tui.tui.loading import load_in_steps  # the TUI's loader (imports no Textual)

    return load_in_steps(source, on_partial=lambda _t: None, on_progress=lambda _d, _t: None)


def _visit_views(trace: Any, compare: bool, clients: bool = True) -> list[Any]:
    """Every view's model of ``trace``, as the TUI keeps them once each view was shown: calls,
    diff, raw, clients (every library assessed) and, with ``compare``, the compare view (the
    trace against itself)."""
    from replay_tui.clientlibs import assess_frames, compact_frames
    from replay_tui.core.diff import diff_traces
    from replay_tui.core.translator import Behavior
    from replay_tui.tui.widgets.calls_view import build_calls_model
    from replay_tui.tui.widgets.clients_model import start_model
    from replay_tui.tui.widgets.compare_model import build_compare_model
    from replay_tui.tui.widgets.diff_view import build_diff_model, measure_side_widths
    from replay_tui.tui.widgets.raw_view import build_raw_model

    diff, raw = build_diff_model(trace), build_raw_model(trace)
    # What the two views build after their first screen, built too: every row measured,
    # every line indexed (the view keeps it).
    for _ in measure_side_widths(diff):
        pass
    raw.index.index_all()
    models = [build_calls_model(trace), diff, raw]
    if clients:
        model = start_model(trace)
        model.outcomes.update(assess_frames(compact_frames(trace), model.meant, model.policies))
        models.append(model)
    if compare:
        models.append(build_compare_model(diff_traces(trace, trace), Behavior.ACCEPT_IDENTITY))
    return models


def measure(path: Path, mode: str, traced: bool, breakdown: bool) -> dict[str, Any]:
    """Load ``path`` in this process and measure; meant to run in a fresh interpreter."""
    import replay_tui.core.check  # imports are the baseline, not the trace

    if mode == "report":
        return _report(path, traced, breakdown)
    if mode in VIEWS:  # the TUI's modules are part of the baseline too
        import replay_tui.clientlibs
        import replay_tui.core.diff
        import replay_tui.tui.app  # noqa: F401

    size = path.stat().st_size
    gc.collect()
    baseline = _rss()
    if traced:
        tracemalloc.start(2 if breakdown else 1)
    trace = _load(path, "steps" if mode in VIEWS else mode)
    models = _visit_views(trace, mode != "views", mode != "noclients") if mode in VIEWS else []
    out: dict[str, Any] = {"size": size, "models": len(models)}
    _measured(out, size, baseline, traced, breakdown)
    assert trace.analysis.deltas > 0
    return out


def _measured(out: dict[str, Any], size: int, baseline: int, traced: bool, breakdown: bool) -> None:
    """What was kept and the peak (traced), or the peak RSS above ``baseline``, into ``out``
    as multiples of ``size``."""
    if traced:
        current, peak = tracemalloc.get_traced_memory()
        out.update(retained=current / size, traced_peak=peak / size, lines=[])
        if breakdown:
            stats = tracemalloc.take_snapshot().statistics("lineno")
            out["lines"] = [(str(s.traceback), s.size / size) for s in stats[:12]]
        tracemalloc.stop()
    else:
        out["rss_peak"] = (_peak_rss() - baseline) / size


def _report(path: Path, traced: bool, breakdown: bool) -> dict[str, Any]:
    """``replay-tui report``'s load and page, measured as :func:`measure` does."""
    import replay_tui.share.html
    import replay_tui.share.minimize  # noqa: F401  (imported on the way: the baseline)
    from replay_tui.cli.report import _load
    from replay_tui.share.export import render

    size = path.stat().st_size
    gc.collect()
    baseline = _rss()
    if traced:
        tracemalloc.start(2 if breakdown else 1)
    traces, skipped, folder = _load(str(path))
    page = render(traces[0].address, traces, fmt="html", folder=folder, skipped=list(skipped))
    out: dict[str, Any] = {"size": size, "models": 0}
    _measured(out, size, baseline, traced, breakdown)
    assert page
    return out


def _child(path: Path, mode: str, *flags: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", str(path), mode, *flags]
    result: dict[str, Any] = json.loads(
        subprocess.run(argv, check=True, capture_output=True).stdout
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--breakdown", action="store_true", help="where retained memory is")
    parser.add_argument("--shape", action="append", help="only this shape (repeatable)")
    modes = ("whole", "steps", *VIEWS, "report")
    parser.add_argument("--mode", dest="modes", action="append", choices=modes)
    parser.add_argument("--child", nargs=2, metavar=("PATH", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.child:
        path, mode = Path(ns.child[0]), ns.child[1]
        print(json.dumps(measure(path, mode, ns.traced, ns.breakdown)))
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from shapes import write_shapes

    over = False
    with tempfile.TemporaryDirectory() as tmp:
        traces = write_shapes(Path(tmp), ns.deltas, ns.shape)
        print(f"{ns.deltas:,} deltas per shape; budget {BUDGET:.0f}x the file above baseline")
        for name, path in traces.items():
            size = path.stat().st_size
            print(f"{name} ({size / 1e6:.1f} MB):")
            for mode in ns.modes or modes:
                result = _child(path, mode)
                result.update(_child(path, mode, "--traced", *(["--breakdown"] * ns.breakdown)))
                ok = result["rss_peak"] <= BUDGET and result["traced_peak"] <= BUDGET
                over |= not ok
                rss, kept, peak = result["rss_peak"], result["retained"], result["traced_peak"]
                print(
                    f"  {mode:>7}: peak RSS {rss:.2f}x, retained {kept:.2f}x,"
                    f" peak traced {peak:.2f}x  {'ok' if ok else 'OVER BUDGET'}",
                    flush=True,
                )
                for where, ratio in result["lines"]:
                    print(f"           {ratio:6.3f}x  {where}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

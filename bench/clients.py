"""The client-library budgets (issue 15): anyone can run it, the README quotes it.

    python bench/clients.py              # 100,000-delta trace, 5 runs
    python bench/clients.py --deltas 20000 --runs 3

1. ``replay-tui check --clients`` against ``replay-tui check`` on the 100,000-delta trace, as
   whole processes alternating in the same run. Budget: at most 3x.
2. The TUI's Clients view on the same trace: a fresh headless process (180x50) opens the trace,
   waits until it is decoded, presses ``4`` and the time counted is from that key to the last
   library's outcome in the view. Budget: under 1 s.

Each figure is the median of ``--runs`` runs (the minimum beside it: on a busy machine it is the
steadier of the two).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import compare  # noqa: E402
from tracegen import write_big_trace  # noqa: E402

SIZE = (180, 50)


def check_vs_clients(trace: Path, runs: int) -> float:
    py = sys.executable
    check, clients = compare(
        runs,
        [py, "-m", "replay_tui.cli", "check", str(trace)],
        [py, "-m", "replay_tui.cli", "check", "--clients", str(trace)],
    )
    for name, xs in (("check", check), ("check --clients", clients)):
        print(f"  {name:<22}median {statistics.median(xs):.3f} s   min {min(xs):.3f} s")
    ratio = statistics.median(clients) / statistics.median(check)
    print(
        f"  ratio                 {ratio:.2f}x median, {min(clients) / min(check):.2f}x min"
        "   (budget: 3x)"
    )
    return ratio


def _child(trace: str) -> None:
    import asyncio

    sys.path.insert(0, str(ROOT))
    from replay_tui.tui.app import make_app

    async def run() -> None:
        app = make_app([trace])
        async with app.run_test(size=SIZE) as pilot:
            while app.partial or app.first_screen is None:
                await pilot.pause(0.01)
            while any(w.is_running for w in app.workers):
                await pilot.pause(0.01)
            start = time.perf_counter()
            await pilot.press("4")
            pane = app.clients_pane
            while True:
                model = pane.matrix.model
                if model is not None and model.done:
                    break
                await pilot.pause(0.005)
            print(f"clients {time.perf_counter() - start:.6f}", flush=True)

    asyncio.run(run())


def clients_view(trace: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(trace)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("clients ")]
        if done.returncode != 0 or not lines:
            raise SystemExit(f"the TUI run failed ({done.returncode}): {done.stderr[-800:]}")
        times.append(float(lines[-1].split()[1]))
    med = statistics.median(times)
    print(
        f"  from '4' to every outcome   median {med:.3f} s   min {min(times):.3f} s   (budget: 1 s)"
    )
    return med


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        trace = write_big_trace(Path(tmp) / "big.sse", args.deltas)
        print(f"trace: {args.deltas:,} tool-call deltas, {trace.stat().st_size / 1e6:.1f} MB")
        print("check vs check --clients (whole processes):")
        check_vs_clients(trace, args.runs)
        print("the TUI's Clients view (headless 180x50):")
        clients_view(trace, args.runs)


if __name__ == "__main__":
    main()

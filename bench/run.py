"""The benchmark behind SPEC §7's budgets: anyone can run it, the README quotes it.

    python bench/run.py              # all measurements
    python bench/run.py --deltas 20000 --runs 3

It builds a 100,000-delta trace and times, as whole processes alternating in the same run,
``replay-tui check`` against the typed msgspec floor SPEC §7 defines (bench/floor.py).
Budget: check at most 2x the floor (aim 1.5x). Each figure is the median of ``--runs`` runs (the
minimum is printed beside it: on a busy machine it is the steadier of the two).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from tracegen import write_big_trace  # noqa: E402


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[2:]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def compare(runs: int, *commands: list[str]) -> list[list[float]]:
    """Run the commands alternately ``runs`` times each (after one warm-up of each)."""
    for cmd in commands:
        timed(cmd)
    results: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for i, cmd in enumerate(commands):
            results[i].append(timed(cmd))
    return results


def check_vs_floor(trace: Path, runs: int) -> tuple[float, float, float]:
    py = sys.executable
    floor, check = compare(
        runs,
        [py, str(HERE / "floor.py"), str(trace)],
        [py, "-m", "replay_tui.cli", "check", str(trace)],
    )
    print(
        f"  typed msgspec floor   median {statistics.median(floor):.3f} s   min {min(floor):.3f} s"
    )
    print(
        f"  replay-tui check      median {statistics.median(check):.3f} s   min {min(check):.3f} s"
    )
    ratio = statistics.median(check) / statistics.median(floor)
    print(
        f"  ratio                 {ratio:.2f}x median, {min(check) / min(floor):.2f}x min"
        "   (budget: 2x)"
    )
    return statistics.median(floor), statistics.median(check), ratio


EXTRA: list[tuple[str, Callable[[Path, int], object]]] = []
"""Further measurements (TUI first screen, live-reload latency) register themselves here."""


def tui_first_screen(trace: Path, runs: int) -> object:
    """SPEC §7: the TUI shows a 100,000-delta trace's first screen in under 1.5 s."""
    sys.path.insert(0, str(HERE.parent / "scripts"))
    from bench_tui import measure

    return measure(trace, runs)


EXTRA.append(("TUI on the same trace (fresh processes, headless 180x50)", tui_first_screen))


def live_reload(_trace: Path, runs: int) -> object:
    """SPEC §7: a file change is on screen in under 300 ms."""
    from live_latency import measure

    return measure(None, max(runs, 10))


EXTRA.append(
    ("live reload, from a write to the list (headless TUI watching a folder)", live_reload)
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check-only", action="store_true", help="only check vs the floor")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trace = write_big_trace(Path(tmp) / "big.sse", args.deltas)
        size = trace.stat().st_size
        print(f"trace: {args.deltas:,} tool-call deltas, {size / 1e6:.1f} MB")
        print("check vs the typed floor (whole processes):")
        check_vs_floor(trace, args.runs)
        for name, measure in [] if args.check_only else EXTRA:
            print(f"{name}:")
            measure(trace, args.runs)


if __name__ == "__main__":
    main()

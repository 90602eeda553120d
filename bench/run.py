"""The benchmark behind the README's Speed budgets: anyone can run it, the README quotes it.

    python bench/run.py                          # every shape, every measurement
    python bench/run.py --deltas 20000 --runs 3 --shape many-calls --check-only

Every budget is measured on every shape of ``bench/shapes.py`` (100,000 deltas each: the
shapes real gateways send, plus two of huge payloads), each in the same run as its reference:

- ``replay-tui check`` against the typed msgspec floor (bench/floor.py: a typed decode of
  each payload, nothing else), as whole processes alternating. Budget: check at most 2x the
  floor (aim 1.5x).
- The TUI from launch to rows on screen in a real terminal (tmux), beside a bare Textual app
  showing a 40-row ``DataTable`` in the same terminal (``bench/tui_launch.py``). Budget: 1.5x.
- One screenful of the calls view rendered anywhere in the trace (``scripts/bench_tui.py``).
- One delta appended to the open trace, to its row in the calls view, with the cursor at the
  start, middle and end (``bench/live_latency.py``). Budget: 300 ms.
- A new file and a changed one in a watched folder, to the list (corpus captures).

Memory is ``bench/memory.py`` (every shape too), the client libraries ``bench/clients.py``.
Each figure is the median of ``--runs`` runs (the minimum is printed beside it: on a busy
machine it is the steadier of the two), in wall-clock time and, for check, CPU time too.

Both processes run as an installed package does, with compiled bytecode (kept in a private
cache, written by the warm-up run): an environment with ``PYTHONDONTWRITEBYTECODE`` set would
otherwise have ``check`` compile its own sources on every run while the floor's msgspec is
precompiled. ``--no-bytecode`` measures that way instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import write_shapes  # noqa: E402


def measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1) or b"Traceback (most recent call last)" in err:
        # (check exits 1 when a trace is flagged; a traceback exits 1 too)
        raise SystemExit(f"{cmd[2:]} failed ({proc.returncode}): {err.decode()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def timed(cmd: list[str]) -> float:
    """Wall-clock seconds of one run of ``cmd``."""
    return measured(cmd)[0]


def alternated(
    runs: int, *commands: list[str], env: dict[str, str] | None = None
) -> list[list[tuple[float, float]]]:
    """Run the commands alternately ``runs`` times each (after one warm-up of each); each
    run's wall-clock and CPU seconds."""
    for cmd in commands:
        measured(cmd, env)
    results: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for i, cmd in enumerate(commands):
            results[i].append(measured(cmd, env))
    return results


def compare(runs: int, *commands: list[str]) -> list[list[float]]:
    """:func:`alternated`, wall-clock seconds only."""
    return [[wall for wall, _ in times] for times in alternated(runs, *commands)]


def installed_env(cache: Path) -> dict[str, str]:
    """The environment with compiled bytecode allowed, kept in ``cache`` (see the module
    docstring)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def check_vs_floor(
    trace: Path, runs: int, env: dict[str, str] | None = None
) -> tuple[float, float, float]:
    py = sys.executable
    floor, check = alternated(
        runs,
        [py, str(HERE / "floor.py"), str(trace)],
        [py, "-m", "replay_tui.cli", "check", str(trace)],
        env=env,
    )
    for name, times in (("typed msgspec floor", floor), ("replay-tui check", check)):
        wall, cpu = [t for t, _ in times], [c for _, c in times]
        print(
            f"  {name:<20}  median {statistics.median(wall):.3f} s   min {min(wall):.3f} s"
            f"   cpu median {statistics.median(cpu):.3f} s   min {min(cpu):.3f} s"
        )
    ratio = statistics.median(t for t, _ in check) / statistics.median(t for t, _ in floor)
    cpu_ratio = statistics.median(c for _, c in check) / statistics.median(c for _, c in floor)
    print(
        f"  ratio                 {ratio:.2f}x median,"
        f" {min(t for t, _ in check) / min(t for t, _ in floor):.2f}x min;"
        f" cpu {cpu_ratio:.2f}x median   (budget: 2x, aim 1.5x)"
    )
    return (
        statistics.median(t for t, _ in floor),
        statistics.median(t for t, _ in check),
        ratio,
    )


EXTRA: list[tuple[str, Callable[[dict[str, Path], int], object]]] = []
"""Further measurements, each given every shape's trace (by name) and the runs."""

ONE_CALL = HERE.parent / "traces" / "dashscope" / "qwen3-max-id-empty.sse"
"""A trace of a few deltas: what the TUI costs before any trace's size counts."""


def tui_launch(traces: dict[str, Path], runs: int) -> object:
    """The TUI's rows on screen from launch, against a bare Textual app (tmux)."""
    from tui_launch import measure_shapes

    return measure_shapes({**traces, "one call (corpus)": ONE_CALL}, runs)


EXTRA.append(("TUI from launch to rows on screen (tmux, 120x40), against a bare app", tui_launch))


def tui_page(traces: dict[str, Path], runs: int) -> object:
    """One screenful of the calls view rendered, at places spread over the whole trace."""
    sys.path.insert(0, str(HERE.parent / "scripts"))
    from bench_tui import measure

    return {name: measure(trace, max(1, runs // 2), label=name) for name, trace in traces.items()}


EXTRA.append(("TUI: one screenful of the calls view rendered (headless 180x50)", tui_page))


def live_append(traces: dict[str, Path], runs: int) -> object:
    """A delta appended to the open trace is on screen in under 300 ms."""
    from live_latency import measure_append

    return measure_append(traces, max(1, runs // 2))


EXTRA.append(("live reload: a delta appended to the open trace (headless)", live_append))


def live_reload(_traces: dict[str, Path], runs: int) -> object:
    """A file change is on screen in under 300 ms."""
    from live_latency import measure

    return measure(None, max(runs, 10))


EXTRA.append(
    ("live reload, from a write to the list (corpus captures, headless, a folder)", live_reload)
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check-only", action="store_true", help="only check vs the floor")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run check vs the floor without a bytecode cache (as the environment says)",
    )
    parser.add_argument("--shape", action="append", help="only this shape (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        traces = write_shapes(Path(tmp), args.deltas, args.shape)
        env = None if args.no_bytecode else installed_env(Path(tmp) / "pycache")
        how = "as the environment says" if env is None else "compiled bytecode"
        print(f"check vs the typed floor (whole processes, {how}), {args.deltas:,} deltas:")
        for name, trace in traces.items():
            print(f"{name} ({trace.stat().st_size / 1e6:.1f} MB):", flush=True)
            check_vs_floor(trace, args.runs, env)
        for name, measure in [] if args.check_only else EXTRA:
            print(f"{name}:", flush=True)
            measure(traces, args.runs)


if __name__ == "__main__":
    main()

"""The TUI's first screen as a user sees it: from launching the process in a real terminal to
its rows on screen, beside a bare Textual app showing a 40-row ``DataTable`` in the same
terminal in the same run (SPEC §7: at most 1.5x the bare app).

    python bench/tui_launch.py TRACE... [--runs 5] [--size 120x40]

Each run starts the command in a detached tmux session of ``--size`` (a tmux server of its
own), polls ``tmux capture-pane`` every few milliseconds and stops the clock when the screen
shows rows: for replay-tui, the calls view's first numbered row under its ``Δ  line`` header;
for the bare app, its table's first data row. The two alternate, run for run, with compiled
bytecode (a private cache written by the warm-up run), so the ratio is measured under the same
load. ``bench/run.py`` calls :func:`measure_shapes`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUDGET = 1.5
TIMEOUT = 60.0
POLL = 0.005

BARE_APP = """
from textual.app import App
from textual.widgets import DataTable


class Bare(App[None]):
    def compose(self):
        yield DataTable()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("delta", "line", "id", "name", "arguments")
        for i in range(40):
            table.add_row(f"BARE{i}", str(2 * i + 1), '"call_0"', '"read_file"', "part/")


Bare().run()
"""

_ROW = re.compile(r"^[\s▶▸]*\d")


def calls_rows_visible(screen: str) -> bool:
    """The calls view's header and a numbered row under it are on screen."""
    lines = screen.splitlines()
    for i, line in enumerate(lines[:-1]):
        if "Δ" in line and " line " in line and _ROW.match(lines[i + 1]):
            return True
    return False


def bare_rows_visible(screen: str) -> bool:
    return "BARE0" in screen


class Terminal:
    """A tmux server of its own, one session at a time."""

    def __init__(self, size: str) -> None:
        self.socket = f"replay-bench-{os.getpid()}"
        self.cols, self.rows = size.split("x")

    def _tmux(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return out.stdout

    def time_to(self, cmd: list[str], env: dict[str, str], visible: Callable[[str], bool]) -> float:
        """Seconds from launching ``cmd`` in the terminal to ``visible(screen)``."""
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        line = f"env -u PYTHONDONTWRITEBYTECODE {exports} {shlex.join(cmd)}; sleep 30"
        # A session kept open holds the server up: the clock counts the command, not tmux's
        # own start.
        if "keep" not in self._tmux("list-sessions", "-F", "#S").split():
            self._tmux("new-session", "-d", "-s", "keep", "-x", self.cols, "-y", self.rows, "cat")
        screen = ""
        start = time.perf_counter()
        self._tmux("new-session", "-d", "-s", "b", "-x", self.cols, "-y", self.rows, line)
        try:
            while time.perf_counter() - start < TIMEOUT:
                screen = self._tmux("capture-pane", "-p", "-t", "b")
                if visible(screen):
                    return time.perf_counter() - start
                time.sleep(POLL)
            raise SystemExit(f"nothing on screen after {TIMEOUT:.0f} s: {cmd}\n{screen}")
        finally:
            self._tmux("kill-session", "-t", "b")

    def close(self) -> None:
        self._tmux("kill-server")


def _env(cache: Path) -> dict[str, str]:
    env = {"PYTHONPYCACHEPREFIX": str(cache), "TERM": "xterm-256color"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def measure_shapes(
    traces: dict[str, Path], runs: int, size: str = "120x40"
) -> dict[str, tuple[float, float]]:
    """For each trace, ``(median seconds to rows on screen, ratio to the bare app)``; the bare
    app runs before each trace's run, so each ratio compares runs under the same load."""
    term = Terminal(size)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp, contextlib.closing(term):
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        env = _env(Path(tmp) / "pycache")
        bare_cmd = [py, str(bare)]
        commands = {name: [py, "-m", "replay_tui.cli", str(t)] for name, t in traces.items()}
        term.time_to(bare_cmd, env, bare_rows_visible)  # warm-up: writes the bytecode
        for cmd in commands.values():
            term.time_to(cmd, env, calls_rows_visible)
        bare_times: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in commands}
        ratios: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, cmd in commands.items():
                bare_times.append(term.time_to(bare_cmd, env, bare_rows_visible))
                times[name].append(term.time_to(cmd, env, calls_rows_visible))
                ratios[name].append(times[name][-1] / bare_times[-1])
    bare_median = statistics.median(bare_times)
    print(
        f"  bare Textual app, 40-row DataTable ({size})   median {bare_median:.2f} s"
        f"   min {min(bare_times):.2f} s"
    )
    out: dict[str, tuple[float, float]] = {}
    for name, xs in times.items():
        med = statistics.median(xs)
        # Each run against the bare app's run just before it (the load of the machine drifts
        # from run to run: the ratio of the medians mixes runs under different loads).
        ratio = statistics.median(ratios[name])
        out[name] = (med, ratio)
        print(
            f"  {name:<16} rows visible  median {med:.2f} s   min {min(xs):.2f} s"
            f"   {ratio:.2f}x the bare app (median of the paired runs; of the medians"
            f" {med / bare_median:.2f}x, of the minimums {min(xs) / min(bare_times):.2f}x)"
            f"   {'ok' if ratio <= BUDGET else 'OVER BUDGET'}"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("traces", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    result = measure_shapes({t.stem: t for t in args.traces}, args.runs, args.size)
    return 0 if all(r <= BUDGET for _, r in result.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

"""The folder benchmark: ``check`` on N captures, with ``--jobs 1`` and ``--jobs 2``; the TUI.

    python bench/folder.py                          # N = 1,000, 20,000, 100,000
    python bench/folder.py --sizes 1000 20000 --runs 3
    python bench/folder.py --copy                   # real copies instead of hard links
    python bench/folder.py --tui --sizes 100000     # the TUI on N captures

``--tui`` launches the app as a user does, ``replay-tui --jobs N FOLDER`` in a real terminal
(a detached tmux session of 120x40, its screen read with ``tmux capture-pane``, as
``bench/tui_launch.py`` does), on 100,000 files (``--sizes``) of each shape (``--shapes``:
small one-call captures in 100 folders, corpus-shaped captures in one folder, a mix with HAR
files), and times from the process's launch to what the screen shows: the list (the counts
bar counts its traces), every badge (nothing "judging"), and on a re-open with the judgement
cache it wrote, the list with the cache's badges, then every file checked. While the first
open judges, a word is typed into the filter and erased, key by key: each key's time to the
screen. Beside it, in the same run and in turn: ``check FOLDER --jobs N`` (the larger of
``--jobs``) and a bare Textual app showing a 40-row ``DataTable`` (``bench/tui_launch.py``'s).
Budgets (issue 33): every badge within 1.3x ``check``'s time; the list within 1.5x the bare
app's time plus 1 s (the walk); a re-open's badges within 1.5x the bare app's plus 0.5 s; a
key under 100 ms.

It generates N captures shaped like the corpus (tests/data/corpus: 37 real streams from 20-odd
gateways, cycled), 1,000 to a folder, and times ``replay-tui check FOLDER --jobs J`` as a whole
process. Generation is fast because captures are hard links to one file per corpus stream
(``--copy`` writes real files); ``check`` reads and judges each one as it would a copy.

Figures per run: wall time, CPU time (user + system, all processes: on a machine shared with
other work, wall time with two workers depends on whether two cores are free; CPU time says
what the pool costs), and the peak RSS of the largest process (``ru_maxrss`` of the children:
the ``check`` process or one of its workers). Budgets (issue 13): ``--jobs 2`` at
most 0.65x the wall time of ``--jobs 1`` on 20,000 captures; peak RSS for 100,000 captures
within 50 MB of the peak for 1,000. Each figure is the median of ``--runs`` runs (the minimum
beside it: on a busy machine it is the steadier one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "data" / "corpus"
PER_FOLDER = 1000

# Runs one command and reports its wall time and the largest peak RSS among the processes it
# started (``check`` and its workers), as JSON on stdout. A process of its own per measurement,
# so that earlier runs' peaks do not count.
_MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss * 1024
cpu = usage.ru_utime + usage.ru_stime
print(json.dumps({"wall": wall, "peak": peak, "cpu": cpu, "code": done.returncode,
                  "err": done.stderr.decode(errors="replace")[-300:]}))
"""


def generate(root: Path, count: int, *, copy: bool) -> None:
    """``count`` captures under ``root``, cycling through the corpus, ``PER_FOLDER`` a folder."""
    sources = sorted(CORPUS.glob("*.sse"))
    if not sources:
        raise SystemExit(f"no corpus under {CORPUS}")
    originals = root / ".originals"  # hidden: check passes over it
    originals.mkdir(parents=True)
    firsts = []
    for src in sources:
        dst = originals / src.name
        shutil.copyfile(src, dst)
        firsts.append(dst)
    for i in range(count):
        folder = root / f"day-{i // PER_FOLDER:04d}"
        if i % PER_FOLDER == 0:
            folder.mkdir()
        src = firsts[i % len(firsts)]
        dst = folder / f"{i:07d}-{src.name}"
        if copy:
            shutil.copyfile(src, dst)
        else:
            os.link(src, dst)


# -- the TUI, as a user sees it ------------------------------------------------------------

SHAPES = ("small", "corpus", "har-mix")
"""The folders ``--tui`` opens: ``small``, one-call captures of 2 KB, 1,000 to a folder (100
folders for 100,000); ``corpus``, the corpus's 37 streams cycled, all in one folder; ``har-mix``,
small captures and corpus streams with every tenth file a HAR export (several entries each),
1,000 to a folder."""
SMALL_CAPTURE = HERE.parent / "traces" / "dashscope" / "qwen3-max-id-empty.sse"
HARS = [
    HERE.parent / "traces" / "captures" / "mitmproxy-export.har",
    HERE.parent / "tests" / "data" / "diff" / "direct-and-gateway.har",
]
LINKS = 30_000
"""Hard links made to one copy of a file at most (a filesystem allows some 65,000)."""
TUI_SIZE = "120x40"
POLL = 0.005
"""Seconds between looks at the screen until the list is on it."""
SLOW_POLL = 0.05
"""Seconds between looks at the screen while the judging goes on: the poll (a tmux client
each time) must not take the cores from what is timed."""
KEYS = [*"c0042", *["BSpace"] * 5]
"""Typed into the filter while the judging goes on, one at a time: each key's time is from
sending it to the filter box showing it."""
MOVES = ["Down"] * 4 + ["NPage"] * 3 + ["Up"] * 2 + ["Enter"]
"""Pressed in the list after the filter keys (escape leaves the box), while the judging goes
on: each one's time is from sending it to the list's cursor showing it (on another row, or
the list left for the calls view with enter)."""


def generate_shape(root: Path, shape: str, count: int) -> int:
    """``count`` files of ``shape`` under ``root`` (hard links to a few copies); returns the
    number of traces they hold (a HAR file holds several)."""
    originals = root / ".originals"  # hidden: neither check nor the TUI lists it
    originals.mkdir(parents=True)
    corpus = sorted(CORPUS.glob("*.sse"))
    pool: list[tuple[Path, int]] = []  # (file, traces in it)
    if shape == "small":
        pool = [(SMALL_CAPTURE, 1)]
    elif shape == "corpus":
        pool = [(src, 1) for src in corpus]
    else:
        sse = [(SMALL_CAPTURE, 1), *((src, 1) for src in corpus)]
        from replay_tui.core.discovery import discover

        hars = [(h, len(discover([h]).sources)) for h in HARS]
        pool = [*sse[:9], *hars[:1], *sse[9:18], *hars[1:]]  # every tenth a HAR file
    copies: dict[tuple[int, int], Path] = {}
    one_folder = shape == "corpus"
    traces = 0
    for i in range(count):
        k = i % len(pool)
        src, holds = pool[k]
        key = (k, i // (LINKS * len(pool)))
        first = copies.get(key)
        if first is None:
            first = copies[key] = originals / f"{key[1]}-{k}-{src.name}"
            shutil.copyfile(src, first)
        folder = root if one_folder else root / f"day-{i // PER_FOLDER:04d}"
        if not one_folder and i % PER_FOLDER == 0:
            folder.mkdir()
        os.link(first, folder / f"{i:07d}-{src.name}")
        traces += holds
    return traces


_COUNT = re.compile(r"([\d,]+) traces?\b")


def _header(screen: str) -> str:
    return screen.split("\n", 1)[0]


def listed(screen: str) -> bool:
    """The list is on screen: the counts bar counts its traces."""
    return bool(_COUNT.search(_header(screen)))


def badges_shown(screen: str) -> bool:
    """Every badge on screen is a verdict: nothing is being judged (the judgement cache's
    badges, still being checked against the files, count)."""
    return listed(screen) and "judging" not in _header(screen)


def checked(screen: str) -> bool:
    """Every badge is the file's own: judged, and checked against the files."""
    return badges_shown(screen) and "checking" not in _header(screen)


class TuiTerminal:
    """The app launched in a detached tmux terminal: milestones timed from the launch."""

    def __init__(self, terminal: Any) -> None:
        self.t = terminal

    def screen(self) -> str:
        out: str = self.t._tmux("capture-pane", "-p", "-t", "b")
        return out

    def run(
        self, cmd: list[str], env: dict[str, str], *, keys: bool, expected: int
    ) -> dict[str, Any]:
        t = self.t
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        line = f"env -u PYTHONDONTWRITEBYTECODE {exports} {shlex.join(cmd)}; sleep 600"
        if "keep" not in t._tmux("list-sessions", "-F", "#S").split():
            t._tmux("new-session", "-d", "-s", "keep", "-x", t.cols, "-y", t.rows, "cat")
        out: dict[str, Any] = {}
        start = time.perf_counter()
        t._tmux("new-session", "-d", "-s", "b", "-x", t.cols, "-y", t.rows, line)
        try:
            out["listed"] = self._until(listed, start, POLL)
            out["count_listed"] = _COUNT.search(_header(self.screen()))
            if keys:
                out["keys"] = self._type(start)
                out["moves"] = self._move(start)
            out["badges"] = self._until(badges_shown, start, SLOW_POLL)
            out["checked"] = self._until(checked, start, SLOW_POLL)
            found = _COUNT.search(_header(self.screen()))
            out["traces"] = int(found.group(1).replace(",", "")) if found else None
            out["peak"] = self._peak_rss()
        finally:
            t._tmux("kill-session", "-t", "b")
        if out["traces"] != expected:
            raise SystemExit(f"the TUI counted {out['traces']} traces, not {expected}")
        out.pop("count_listed")
        return out

    def _peak_rss(self) -> int | None:
        """The app's peak RSS in bytes (VmHWM of the python process under the pane's shell)."""
        shell = self.t._tmux("list-panes", "-t", "b", "-F", "#{pane_pid}").strip()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if fields[1] != shell:
                    continue
                for line in (stat.parent / "status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
            except (OSError, IndexError):
                continue
        return None

    def _until(self, seen: Callable[[str], bool], start: float, poll: float) -> float:
        screen = ""
        while time.perf_counter() - start < TUI_TIMEOUT:
            screen = self.screen()
            if seen(screen):
                return time.perf_counter() - start
            time.sleep(poll)
        raise SystemExit(f"not on screen after {TUI_TIMEOUT:.0f} s:\n{screen}")

    def _type(self, start: float) -> list[float] | str:
        """The filter keys, typed while the judging goes on: each one's time to the screen
        (a string: the judging was over before the keys were typed)."""
        if "judging" not in _header(self.screen()):
            return "the judging was over before the keys"
        self.t._tmux("send-keys", "-t", "b", "/")
        self._until(lambda s: s.split("\n")[1].startswith(" /"), start, POLL)
        typed = ""
        times = []
        for key in KEYS:
            typed = typed[:-1] if key == "BSpace" else typed + key
            sent = time.perf_counter()
            self.t._tmux("send-keys", "-t", "b", key)
            self._until(_filter_shows(typed), sent, POLL)
            times.append(time.perf_counter() - sent)
        self.t._tmux("send-keys", "-t", "b", "Escape")
        return times

    def _move(self, start: float) -> dict[str, list[float]] | str:
        """The list's keys (:data:`MOVES`) after the filter's: each one's time to the screen,
        by key (a string: the judging was over first, or the cursor was not found)."""
        self._until(lambda s: s.split("\n")[1].split()[:1] == ["/"], start, POLL)  # left
        times: dict[str, list[float]] = {}
        for key in MOVES:
            if "judging" not in _header(self.screen()):
                return times or "the judging was over before the list's keys"
            before = self._wait_cursor(start)
            if before is None:
                return times or "no cursor in the list"
            sent = time.perf_counter()
            self.t._tmux("send-keys", "-t", "b", key)
            self._until_escaped(_cursor_moved(before), sent)
            times.setdefault(key, []).append(time.perf_counter() - sent)
        return times

    def _wait_cursor(self, start: float) -> tuple[int, str, str] | None:
        """Where the list's cursor is, once it has stayed there for a moment (the one before
        the key; None: not found in a second)."""
        last = None
        for _ in range(40):
            now = _cursor(self.escaped())
            if now is not None and now == last:
                return now
            last = now
            time.sleep(0.025)
        return None

    def escaped(self) -> str:
        out: str = self.t._tmux("capture-pane", "-p", "-e", "-t", "b")
        return out

    def _until_escaped(self, seen: Callable[[str], bool], start: float) -> float:
        screen = ""
        while time.perf_counter() - start < TUI_TIMEOUT:
            screen = self.escaped()
            if seen(screen):
                return time.perf_counter() - start
            time.sleep(POLL)
        raise SystemExit(f"not on screen after {TUI_TIMEOUT:.0f} s:\n{screen}")


TUI_TIMEOUT = 600.0


_SGR = re.compile(r"\x1b\[([\d;]*)m")
LIST_WIDTH = 40
"""Columns of the list at 120 columns (its right edge is the views' border)."""


def _backgrounds(line: str) -> tuple[str, str]:
    """A screen line (with its escapes) as its background at the list's third column (where
    a row's badge is) and the list's part of its text."""
    text: list[str] = []
    bg, at = "", ""
    for k, part in enumerate(_SGR.split(line)):
        if k % 2:  # an SGR's parameters
            codes = part.split(";") if part else ["0"]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c in ("0", "49"):
                    bg = ""
                elif c == "48":  # 48;5;N or 48;2;R;G;B
                    n = 3 if codes[i + 1 : i + 2] == ["5"] else 5
                    bg = ";".join(codes[i : i + n])
                    i += n - 1
                elif c == "38":
                    i += 2 if codes[i + 1 : i + 2] == ["5"] else 4
                elif c == "7":
                    bg = "reverse"
                elif c.isdigit() and (40 <= int(c) <= 47 or 100 <= int(c) <= 107):
                    bg = c
                i += 1
            continue
        for ch in part:
            if len(text) == 2:
                at = bg
            text.append(ch)
    return at, "".join(text)[:LIST_WIDTH]


def _cursor(screen: str) -> tuple[int, str, str] | None:
    """The list's cursor (a screen with escapes): its line, its background and the list's
    (tinted while focused), and the name on it: the one row under the list's header whose
    background is its own (None: no such row)."""
    lines = screen.split("\n")[3:-2]
    rows = [_backgrounds(line) for line in lines]
    counts: dict[str, int] = {}
    for bg, _ in rows:
        counts[bg] = counts.get(bg, 0) + 1
    odd = [n for n, (bg, text) in enumerate(rows) if counts[bg] == 1 and text.strip()]
    if len(odd) != 1 or len(rows) < 3:
        return None
    n = odd[0]
    bg, text = rows[n]
    words = text.split()
    own = max(counts, key=lambda b: counts[b])  # (the list's: tinted while it has the focus)
    return n, f"{bg} on {own}", words[-1] if words else ""


def _cursor_moved(before: tuple[int, str, str]) -> Callable[[str], bool]:
    """The list's cursor is found, and is not ``before``."""

    def moved(screen: str) -> bool:
        now = _cursor(screen)
        return now is not None and now != before

    return moved


def _filter_shows(typed: str) -> Callable[[str], bool]:
    """The filter box (the screen's second line) shows ``typed`` (nothing: its hint)."""

    def shows(screen: str) -> bool:
        box = screen.split("\n")[1]
        return box.split()[:1] == [typed] if typed else "filter:" in box

    return shows


def time_check(root: Path, jobs: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "replay_tui.cli", "check", str(root), "--jobs", str(jobs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-300:]!r}")
    return wall


def compile_all(env: dict[str, str]) -> None:
    """The bytecode of replay-tui, Textual and Rich written in ``env``'s cache, as ``pip
    install`` writes it: a module the TUI imports only when it is first used (the filter
    box's, at the first key after ``/``) is not compiled in the middle of a timed key (the
    first filter key took 95-115 ms in a fresh cache, 13-24 ms with the bytecode there)."""
    import importlib.util

    folders = [HERE.parent / "replay_tui"]
    for name in ("textual", "rich"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin is not None:
            folders.append(Path(spec.origin).parent)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *map(str, folders)],
        env={**os.environ, **env},
        check=True,
        capture_output=True,
    )


def tui(sizes: list[int], shapes: list[str], jobs: int, runs: int) -> None:
    """Per shape and size: the bare app, ``check --jobs N``, the TUI's first open (empty
    cache) and re-open (its cache), each run in turn, ``runs`` times: ratios of medians."""
    sys.path.insert(0, str(HERE))
    from tui_launch import BARE_APP, Terminal, _env, bare_rows_visible

    py = sys.executable
    for size in sizes:
        for shape in shapes:
            with tempfile.TemporaryDirectory(prefix="replay-folder-bench-") as tmp:
                root = Path(tmp) / "captures"
                root.mkdir()
                expected = generate_shape(root, shape, size)
                bare = Path(tmp) / "bare_app.py"
                bare.write_text(BARE_APP)
                env = _env(Path(tmp) / "pycache")
                cache = Path(tmp) / "cache"
                term = Terminal(TUI_SIZE)
                app = TuiTerminal(term)
                cmd = [py, "-m", "replay_tui.cli", "--jobs", str(jobs), str(root)]
                tui_env = {**env, "XDG_CACHE_HOME": str(cache)}
                figures: dict[str, list[Any]] = {}

                def add(name: str, value: Any, into: dict[str, list[Any]] = figures) -> None:
                    into.setdefault(name, []).append(value)

                try:
                    term.time_to([py, str(bare)], env, bare_rows_visible)  # warm-up: bytecode
                    compile_all(env)  # (and the modules the TUI imports only when used)
                    time_check(root, jobs)  # and the page cache
                    loads = []
                    for _ in range(runs):
                        loads.append(os.getloadavg()[0])
                        add("bare", term.time_to([py, str(bare)], env, bare_rows_visible))
                        add("check", time_check(root, jobs))
                        shutil.rmtree(cache, ignore_errors=True)
                        first = app.run(cmd, tui_env, keys=True, expected=expected)
                        again = app.run(cmd, tui_env, keys=False, expected=expected)
                        for k in ("listed", "badges", "checked", "peak"):
                            add(f"first {k}", first[k])
                            add(f"again {k}", again[k])
                        if isinstance(first["keys"], list):
                            figures.setdefault("keys", []).extend(first["keys"])
                        if isinstance(first["moves"], dict):
                            for key, times in first["moves"].items():
                                figures.setdefault(f"move {key}", []).extend(times)
                        add("bare again", term.time_to([py, str(bare)], env, bare_rows_visible))
                finally:
                    term.close()
                _report(shape, size, expected, jobs, figures, loads)


def _report(
    shape: str, size: int, traces: int, jobs: int, f: dict[str, list[Any]], loads: list[float]
) -> None:
    med = {
        k: statistics.median(v) for k, v in f.items() if k != "keys" and not k.startswith("move")
    }
    bare = statistics.median(f["bare"] + f["bare again"])
    check = med["check"]
    print(
        f"\n{shape}: {size:,} files, {traces:,} traces ({len(f['check'])} runs, load average"
        f" {min(loads):.1f}–{max(loads):.1f}); medians, from launch, in tmux {TUI_SIZE}"
    )
    print(f"  bare Textual app, 40-row DataTable on screen   {bare:6.2f} s")
    print(f"  check --jobs {jobs}                               {check:6.2f} s")
    listed_budget = 1.5 * bare + 1.0
    again_budget = 1.5 * bare + 0.5
    rows = [
        ("first open: list on screen", med["first listed"], listed_budget, "1.5x bare + 1 s"),
        ("first open: every badge", med["first badges"], 1.3 * check, "1.3x check"),
        (
            "re-open: list with the cache's badges",
            med["again badges"],
            again_budget,
            "1.5x bare + 0.5 s",
        ),
        ("re-open: every file checked", med["again checked"], None, ""),
    ]
    for label, value, budget, said in rows:
        ratio = f"{value / check:5.2f}x check" if "badge" in label or "checked" in label else ""
        verdict = ""
        if budget is not None:
            verdict = f"budget {budget:6.2f} s ({said}): {'ok' if value <= budget else 'OVER'}"
        print(f"  {label:40} {value:6.2f} s  {ratio:14} {verdict}")
    peaks = [p for p in f["first peak"] + f["again peak"] if p]
    if peaks:
        print(f"  {'peak RSS of the app':40} {max(peaks) / 2**20:6.0f} MB (budget 600 MB)")
    keys = f.get("keys")
    if keys:
        print(
            "  a filter key while judging, to the screen: median"
            f" {statistics.median(keys) * 1000:4.0f} ms, max {max(keys) * 1000:4.0f} ms"
            f" ({len(keys)} keys; budget 100 ms): " + " ".join(f"{k * 1000:.0f}" for k in keys)
        )
    else:
        print("  filter keys: not typed (the judging ended before the list was on screen)")
    for key in dict.fromkeys(MOVES):
        times = f.get(f"move {key}")
        if times:
            print(
                f"  {key:5} in the list while judging, to the screen: median"
                f" {statistics.median(times) * 1000:4.0f} ms, max {max(times) * 1000:4.0f} ms"
                f" ({len(times)}; budget 100 ms): " + " ".join(f"{t * 1000:.0f}" for t in times)
            )


def measure(root: Path, jobs: int) -> dict[str, float]:
    cmd = [sys.executable, "-m", "replay_tui.cli", "check", str(root), "--jobs", str(jobs)]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(done.stdout)
    if result["code"] not in (0, 1):
        raise SystemExit(f"check failed ({result['code']}): {result['err']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--copy", action="store_true", help="real copies, not hard links")
    parser.add_argument("--tui", action="store_true", help="measure the TUI, not check")
    parser.add_argument(
        "--shapes", nargs="+", choices=SHAPES, default=list(SHAPES), help="with --tui"
    )
    ns = parser.parse_args()
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
    if ns.tui:
        if ns.sizes == parser.get_default("sizes"):
            ns.sizes = [100_000]
        tui_runs = 1 if ns.runs == parser.get_default("runs") else ns.runs
        tui(ns.sizes, ns.shapes, max(ns.jobs), tui_runs)
        return
    peaks: dict[tuple[int, int], float] = {}
    walls: dict[tuple[int, int], float] = {}
    mins: dict[tuple[int, int], float] = {}
    for size in ns.sizes:
        with tempfile.TemporaryDirectory(prefix="replay-folder-bench-") as tmp:
            root = Path(tmp)
            start = time.perf_counter()
            generate(root, size, copy=ns.copy)
            made = time.perf_counter() - start
            print(f"\n{size:,} captures (generated in {made:.1f} s)")
            for jobs in ns.jobs:
                measure(root, jobs)  # warm the page cache and the imports
            runs: dict[int, list[dict[str, float]]] = {j: [] for j in ns.jobs}
            for _ in range(ns.runs):
                for jobs in ns.jobs:  # alternate, so load changes hit both alike
                    runs[jobs].append(measure(root, jobs))
            for jobs in ns.jobs:
                wall = [r["wall"] for r in runs[jobs]]
                cpu = statistics.median(r["cpu"] for r in runs[jobs])
                peak = max(r["peak"] for r in runs[jobs]) / 2**20
                walls[size, jobs] = statistics.median(wall)
                mins[size, jobs] = min(wall)
                peaks[size, jobs] = peak
                rate = size / statistics.median(wall)
                print(
                    f"  --jobs {jobs}  median {statistics.median(wall):7.2f} s"
                    f"   min {min(wall):7.2f} s   cpu {cpu:7.2f} s   {rate:8,.0f} captures/s"
                    f"   peak RSS {peak:6.1f} MB"
                )
            if 1 in ns.jobs and 2 in ns.jobs:
                ratio = walls[size, 2] / walls[size, 1]
                best = mins[size, 2] / mins[size, 1]
                print(
                    f"  --jobs 2 / --jobs 1: {ratio:.2f}x median, {best:.2f}x min"
                    "   (budget at 20,000: 0.65x)"
                )
    small, large = min(ns.sizes), max(ns.sizes)
    if small != large:
        for jobs in ns.jobs:
            growth = peaks[large, jobs] - peaks[small, jobs]
            print(
                f"\npeak RSS, --jobs {jobs}: {large:,} captures {growth:+.1f} MB over {small:,}"
                "   (budget: 50 MB)"
            )


if __name__ == "__main__":
    main()

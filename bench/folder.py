"""The folder benchmark: ``check`` on N captures, with ``--jobs 1`` and ``--jobs 2``; the TUI.

    python bench/folder.py                          # N = 1,000, 20,000, 100,000
    python bench/folder.py --sizes 1000 20000 --runs 3
    python bench/folder.py --copy                   # real copies instead of hard links
    python bench/folder.py --tui --sizes 100000     # the TUI on N captures

``--tui`` runs the app headless (120x40) on the folder, in a process of its own, twice: with an
empty judgement cache, then again with the cache it wrote. Per run: the list on screen (the
walk), every badge filled in (the judging: the process pool, or the cache), peak RSS of the
app's process, and the filter: a word typed letter by letter and erased, each keystroke's
handling (the list rebuilt for the filter) and keystroke-to-idle time. On a re-open the
list comes with every badge the cache knew, then the walk checks each file's size and mtime
("checked": from then on the badges are the files' own, whatever changed since). Times are
from the app's start; the imports before it are given too. Budgets (issue 13): memory under
600 MB, a keystroke under 100 ms, every badge from the cache in under 1 s.

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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


# The TUI on a folder, headless, in a process of its own: prints one JSON line of figures.
_TUI = """
import time
launched = time.perf_counter()
import asyncio, json, resource, statistics, sys
from replay_tui.tui.app import ReplayApp

async def main(path):
    start = time.perf_counter()
    app = ReplayApp([path], watch=True)
    out = {"imports": start - launched}
    def badges():  # every row on screen has its badge (none pending)
        return app.store.paths and not app.store.counts()["pending"]

    async def drawn():  # what the app knows is on screen (not pilot.pause(): it waits for
        # the process to idle, and the walk or the judging go on in other threads)
        await pilot._wait_for_screen()
        await app.screen.wait_for_refresh()
        return time.perf_counter() - start

    async with app.run_test(size=(120, 40)) as pilot:
        while not app.trace_list.trace_tree.line_count:
            await asyncio.sleep(0.002)
        out["listed"] = await drawn()
        while not badges():
            await asyncio.sleep(0.002)
        out["judged"] = await drawn()
        while not app.discovered or app.judging or app.checking:
            await asyncio.sleep(0.005)
        out["checked"] = await drawn()
        await pilot.pause(0.5)
        tl = app.trace_list
        rebuild = tl.rebuild
        spent = []
        def timed():
            t = time.perf_counter(); rebuild(); spent.append(time.perf_counter() - t)
        tl.rebuild = timed
        await pilot.press("slash")
        keys, idle = [*"day-0042/000", *["backspace"] * 12], []
        for key in keys:
            t = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()
            idle.append(time.perf_counter() - t)
        out["key_median"] = statistics.median(spent)
        out["key_max"] = max(spent)
        out["key_idle_median"] = statistics.median(idle)
        out["shown"] = len(tl.visible_addresses())
    out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))

if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
"""


def measure_tui(root: Path, cache: Path) -> dict[str, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", _TUI, str(root)], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"the TUI failed: {done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def tui(sizes: list[int], copy: bool) -> None:
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="replay-folder-bench-") as tmp:
            root = Path(tmp) / "captures"
            root.mkdir()
            generate(root, size, copy=copy)
            cache = Path(tmp) / "cache"
            print(f"\nthe TUI on {size:,} captures (load average {os.getloadavg()[0]:.1f})")
            for label in ("first open (empty cache)", "re-open (cache)"):
                r = measure_tui(root, cache)
                print(
                    f"  {label:25}  listed {r['listed']:5.2f} s   every badge {r['judged']:6.2f} s"
                    f"   checked against the files {r['checked']:6.2f} s"
                    f" (+{r['imports']:4.2f} s of imports before the app starts)"
                    f"   peak RSS {r['peak'] / 2**20:5.0f} MB   filter keystroke"
                    f" {r['key_median'] * 1000:4.0f} ms median, {r['key_max'] * 1000:4.0f} ms max"
                    f" (to idle {r['key_idle_median'] * 1000:4.0f} ms)"
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
    ns = parser.parse_args()
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
    if ns.tui:
        tui(ns.sizes, ns.copy)
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

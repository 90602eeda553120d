"""The folder benchmark: ``check`` on N captures, with ``--jobs 1`` and ``--jobs 2``.

    python bench/folder.py                          # N = 1,000, 20,000, 100,000
    python bench/folder.py --sizes 1000 20000 --runs 3
    python bench/folder.py --copy                   # real copies instead of hard links

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
    ns = parser.parse_args()
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
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

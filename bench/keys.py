"""What one key costs once a trace is loaded: each view's first paint and the keys in it.

    python bench/keys.py [--deltas 100000] [--shape NAME]... [--size 120x40]

For each shape (``bench/shapes.py``; by default the two huge-payload ones), a fresh process
opens the trace in the TUI (headless, ``--size``), waits until it is decoded and every worker
is done, then times, in wall-clock and in the process' CPU time:

- each view's first paint: its key (``1`` calls, ``2`` diff, ``3`` raw, ``4`` clients, ``5``
  compare: the trace opened beside a copy of itself, the copy marked as A) until the model
  it built is drawn (the view's ``painted``; the calls, shown already, and the clients: until
  every worker is done and the screen is drawn); then, not a budget, until the process is
  idle and every view has finished the rest of its model (the diff measures every row, the
  raw view indexes every line, after the first screen, while the keys work; the compare
  view makes its comparison, its first screen showing the two traces' calls): "all built";
  the compare view's ``down`` and ``up`` meanwhile: "↓ ↑, comparing";
- in each view, each of ``down``, ``up``, ``j``, ``k``, ``pagedown``, ``enter`` (then
  ``escape`` when it opened a window) from the top, with the details pane shown (``d``), every
  row the cursor crosses and its details drawn; the cursor is first brought to the row of the
  huge string (``--at``: the payload line that holds it) where the view can find one.

The budget (issue 27): every first paint and every key under 100 ms once loaded. Figures are
the median of ``--runs`` presses, with the worst beside it; CPU time is the steadier on a
loaded machine. The TUI runs with compiled bytecode, as an installed package does (an
environment with ``PYTHONDONTWRITEBYTECODE`` set would compile each view's modules on its
first visit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUDGET_MS = 100.0
KEYS = ("down", "up", "j", "k", "pagedown", "enter")
VIEWS = (("calls", "1"), ("diff", "2"), ("raw", "3"), ("clients", "4"), ("compare", "5"))


def _huge_line(path: Path) -> int | None:
    """The line of the longest payload in ``path`` (the huge string's)."""
    best, at = 0, None
    with open(path, "rb") as fh:
        for n, line in enumerate(fh, 1):
            if len(line) > best:
                best, at = len(line), n
    return at


async def _settle(app: Any, pilot: Any, *, painted: bool = False) -> None:
    """Until no worker runs, no view finishes its model and the screen was drawn
    (``painted``: the views that finish their model after their first screen left to it)."""
    from replay_tui.tui.widgets.model_view import ModelView

    def busy() -> bool:
        if any(w.is_running for w in app.workers) or app.partial:
            return True
        pane = vars(app).get("compare_pane")  # (made when first asked for; a query costs)
        if pane is not None and pane.finishing:
            return True  # (its comparison made between the keys, after its first screen)
        return not painted and any(v.finishing for v in app.query(ModelView))

    await asyncio.sleep(0)
    while busy():
        await asyncio.sleep(0.01)
    await pilot.pause()


async def _timed(app: Any, pilot: Any, *keys: str, painted: bool = False) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    await pilot.press(*keys)
    await _settle(app, pilot, painted=painted)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def _first_paint(app: Any, view: Any, key: str) -> tuple[float, float]:
    """``key`` typed, until ``view()`` has drawn the model it built for it (``painted``): not
    until the process is idle, as a pilot's key waits, since a view may go on with the rest
    of its model after its first screen (the keys work meanwhile)."""
    from textual import events

    wall, cpu = time.perf_counter(), time.process_time()
    app._driver.send_message(events.Key(key, key))
    await asyncio.sleep(0)
    while view().painted < wall:
        await asyncio.sleep(0.001)
        if time.perf_counter() - wall > 120:
            raise SystemExit(f"{key}: the view was not drawn in 120 s")
    return (view().painted - wall) * 1000, (time.process_time() - cpu) * 1000


async def _while_comparing(app: Any, presses: int = 5) -> tuple[list[float], list[float]]:
    """``down`` then ``up`` typed while the compare pane makes its comparison (its first
    screen shown), each until the cursor moved: what a key waits for then (the slice under
    way, and its own handling)."""
    from textual import events

    pane, walls, cpus = app.compare_pane, [], []
    await asyncio.sleep(0.1)  # (into the comparison)
    for n in range(presses):
        view = pane.view
        if not pane.finishing or view.pending is None:
            break
        before = view.cursor
        wall, cpu = time.perf_counter(), time.process_time()
        key = "up" if n % 2 else "down"  # (down, up, ...: the cursor always has a row to go to)
        app._driver.send_message(events.Key(key, None))
        while view.cursor == before and pane.finishing:
            await asyncio.sleep(0.001)
        if view.cursor == before:
            break  # (finished meanwhile: its model replaced the first screen)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        await asyncio.sleep(0.05)
    return walls, cpus


def _place(widget: Any, line: int) -> bool:
    """Bring the cursor of ``widget`` (a view) to payload ``line``'s row where it can."""
    if hasattr(widget, "goto_line"):  # the diff view
        widget.goto_line(line)
        return True
    model = getattr(widget, "model", None)
    if type(model).__name__ == "RawModel":  # the raw view
        widget.move_cursor(model.row_of(line), user=False, center=True)
        return True
    if type(model).__name__ != "CallsModel":
        return False
    for section in model.sections:  # the calls view
        for k, row in enumerate(section.rows):
            if row.line == line:
                widget.move_cursor(section.start + 3 + k, user=False, center=True)
                return True
    return False


def _child(
    trace: str, size: tuple[int, int], runs: int, at: int | None, copy: str, views: list[str]
) -> None:
    sys.path.insert(0, str(ROOT))
    from textual.screen import ModalScreen

    from replay_tui.tui.app import make_app

    def out(**row: Any) -> None:
        print(json.dumps(row), flush=True)

    async def run() -> None:
        app = make_app([trace, copy])
        async with app.run_test(size=size) as pilot:
            while app.current is None:
                await pilot.pause(0.01)
            await _settle(app, pilot)
            a, b = copy, trace  # (files named on the command line: their paths as given)
            app.choose_trace(a)  # the copy, marked as A
            await _settle(app, pilot)
            await pilot.press("m")
            app.choose_trace(b)
            await _settle(app, pilot)
            assert app.marked == a and app.current is not None and app.current.address == b
            for view, key in VIEWS:
                if views and view not in views:
                    continue
                wall, cpu = time.perf_counter(), time.process_time()
                widget = {  # (made when asked: the view's modules imported by the key)
                    "diff": lambda: app.diff_view,
                    "raw": lambda: app.raw_view,
                    "compare": lambda: app.compare_pane.view,
                }.get(view)
                if widget is not None:  # (a model built for the key: until it is drawn)
                    first = await _first_paint(app, widget, key)
                else:  # (a view shown already, or not one of these: until all is done)
                    first = await _timed(app, pilot, key, painted=True)
                out(view=view, key=f"first paint ({key})", wall=[first[0]], cpu=[first[1]])
                if view == "compare":  # ↓ ↑ while the comparison is made between the keys
                    walls, cpus = await _while_comparing(app)
                    if walls:
                        out(view=view, key="↓ ↑, comparing", wall=walls, cpu=cpus)
                await _settle(app, pilot)
                wall = (time.perf_counter() - wall) * 1000
                cpu = (time.process_time() - cpu) * 1000
                if cpu - first[1] > 1:  # what went on after the first screen (keys work)
                    out(view=view, key="all built", wall=[wall], cpu=[cpu], budget=False)
                if not app.details.display:
                    await pilot.press("d")
                    await _settle(app, pilot)
                widget = app.screen.focused
                if at is not None and _place(widget, at):
                    await _settle(app, pilot)
                for k in KEYS:
                    walls, cpus = [], []
                    for _ in range(runs):
                        wall, cpu = await _timed(app, pilot, k)
                        if isinstance(app.screen, ModalScreen):
                            await pilot.press("escape")
                            await _settle(app, pilot)
                        elif k in ("down", "j", "pagedown"):  # back where it was
                            back = {"down": "up", "j": "k", "pagedown": "pageup"}[k]
                            await pilot.press(back)
                            await _settle(app, pilot)
                        walls.append(wall)
                        cpus.append(cpu)
                    out(view=view, key=k, wall=walls, cpu=cpus)

    asyncio.run(run())


def measure(
    path: Path, size: tuple[int, int], runs: int, views: list[str] | None = None
) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / f"A-{path.name}"
        try:
            os.link(path, copy)
        except OSError:
            shutil.copyfile(path, copy)
        argv = [sys.executable, __file__, "--child", str(path), f"{size[0]}x{size[1]}"]
        argv += [str(runs), str(_huge_line(path) or 0), str(copy), *(views or [])]
        # As an installed package runs: with compiled bytecode (the views' modules are
        # imported on the first visit, and compiling them is no part of a key's cost).
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        compiled = [sys.executable, "-m", "compileall", "-q", str(ROOT / "replay_tui")]
        subprocess.run(compiled, check=True, env=env, capture_output=True)
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env)
        if proc.returncode:
            raise SystemExit(f"the TUI run on {path} failed: {proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--shape", action="append", help="this shape (repeatable)")
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--trace", type=Path, help="an existing trace instead of the shapes")
    parser.add_argument(
        "--view", action="append", choices=[v for v, _ in VIEWS], help="this view (repeatable)"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.child:
        w, h = map(int, ns.child[1].split("x"))
        at = int(ns.child[3]) or None
        _child(ns.child[0], (w, h), int(ns.child[2]), at, ns.child[4], ns.child[5:])
        return 0
    size = tuple(map(int, ns.size.split("x")))
    sys.path.insert(0, str(HERE))
    from shapes import write_shapes

    over = False
    with tempfile.TemporaryDirectory() as tmp:
        if ns.trace:
            traces = {ns.trace.name: ns.trace}
        else:
            traces = write_shapes(Path(tmp), ns.deltas, ns.shape or ["huge-5mb", "huge-50mb"])
        for name, path in traces.items():
            print(f"{name} ({path.stat().st_size / 1e6:.1f} MB), {size[0]}x{size[1]}:")
            for row in measure(path, (size[0], size[1]), ns.runs, ns.view):  # type: ignore[arg-type]
                cpu = statistics.median(row["cpu"])
                ok = cpu <= BUDGET_MS or not row.get("budget", True)
                over |= not ok
                print(
                    f"  {row['view']:>8} {row['key']:<16} CPU {cpu:7.1f} ms (worst"
                    f" {max(row['cpu']):7.1f}), wall {statistics.median(row['wall']):7.1f} ms"
                    + (f"  {'ok' if ok else 'OVER'}" if row.get("budget", True) else ""),
                    flush=True,
                )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

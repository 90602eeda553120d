"""Fixtures for the TUI tests: the app factory, a settle helper, hostile and big traces, SVGs."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from textual.pilot import Pilot
from textual.worker import Worker, WorkerCancelled, WorkerError, WorkerFailed, WorkerState

from replay_tui.tui.app import ReplayApp, make_app
from replay_tui.tui.widgets.model_view import ModelView

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"
SIZE = (180, 50)
"""The terminal every test (and every snapshot) runs at."""


LONG_LIVED = frozenset({"watch", "settle"})
"""Worker groups that run as long as the app (the file watcher): never waited for."""


async def settle(app: ReplayApp, pilot: Pilot[int], *, limit: float = 20.0) -> None:
    """Wait until discovery, judging, loading and view building are done; fail the test if
    they are not within ``limit`` s.

    Waits on the things themselves, never on a clock, through Textual's public API: on each
    running worker's end, on the app and its widgets to have handled every message queued so
    far (``pilot.pause()``), on a resize to have reached the screen, and on the screen's next
    refresh (a view that recentres once laid out does it then). Done is two looks in a row
    with no worker running and nothing judging or half loaded: a worker that posts a message
    whose handler starts the next worker (a model built, then assessed) leaves a moment with
    nothing running, which the second look sees through.
    """
    deadline = time.monotonic() + limit
    quiet = 0
    while quiet < 2:
        assert time.monotonic() < deadline, f"the app did not settle in {limit} s: {_state(app)}"
        await pilot.pause()  # every message queued so far is handled
        running = [w for w in app.workers if w.group not in LONG_LIVED and not w.is_finished]
        if running:
            quiet = 0
            await _finished(running, deadline)
            continue
        if _busy(app):  # set by a message that is on its way: look again very soon
            quiet = 0
            await asyncio.sleep(0.002)
            continue
        quiet += 1
        # laid out and drawn, and what was to run after that (a recentre) has run
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.screen.wait_for_refresh(), deadline - time.monotonic())
    await pilot.pause()  # and the screen drawn from all of it


def _busy(app: ReplayApp) -> str:
    """What the app is still doing ("" when nothing)."""
    doing = [
        what
        for what, busy in (
            ("judging", app.judging),
            ("loading a trace", app.partial),
            ("discovering", not app.discovered),
            ("opening the first trace", app.current is None and bool(app.store.paths)),
            # the trace the list's cursor came to, opened once it has rested there a moment
            ("opening the trace under the cursor", app.opening),
            # a resize reaches the screen a timer's tick (1/120 s) after the terminal
            ("resizing", app.screen.size != app.size),
            # the rest of a view's model, built on the screen's thread after its first paint
            ("finishing a view", any(v.finishing for v in app.query(ModelView))),
            # the comparison of A and B, made between the keys after its first screen
            ("comparing", getattr(vars(app).get("compare_pane"), "finishing", False)),
            # a big list's rows follow its judgements a moment later
            ("rebuilding the list", app.trace_list.rebuild_pending),
        )
        if busy
    ]
    return ", ".join(doing)


async def until(pilot: Pilot[int], cond: Callable[[], bool], limit: float = 10.0) -> None:
    """Let the app run until ``cond`` holds (what a test waits on when no worker or message
    says it is done: a watcher round trip, a scroll Textual makes a refresh or two later)."""
    deadline = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < deadline, f"never came to pass ({_state(pilot.app)})"
        await pilot.pause(0.01)


def _state(app: Any) -> str:
    """What a test that waited in vain says of the app (for a failure seen once in CI)."""
    if not isinstance(app, ReplayApp):
        return repr(app)
    workers = [f"{w.group}:{w.name}:{w.state.name}" for w in app.workers]
    return (
        f"busy: {_busy(app) or 'nothing'}; focused: {app.focused!r}; tab: {app.tabs.active};"
        f" workers: {', '.join(workers) or 'none'}; threads: {threading.active_count()}"
    )


def held(monkeypatch: pytest.MonkeyPatch, target: object, name: str) -> threading.Event:
    """``target.name`` made to wait (up to 10 s, in the app's worker thread) until the event
    returned is set: the walk of a big folder, the pool at work, while the test looks."""
    real = getattr(target, name)
    go = threading.Event()

    def waiting(*args: Any, **options: Any) -> Any:
        go.wait(10)
        return real(*args, **options)

    monkeypatch.setattr(target, name, waiting)
    return go


async def opened_once(folder: Path) -> ReplayApp:
    """``folder`` opened in the app and left once judged: the judgement cache has it."""
    app = make_app([str(folder)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
    return app


async def _finished(workers: list[Worker[object]], deadline: float) -> None:
    """Until each of ``workers`` has ended (done, failed or cancelled) or ``deadline``."""
    for worker in workers:
        while worker.state is WorkerState.PENDING and time.monotonic() < deadline:
            await asyncio.sleep(0.002)  # created, not yet started by the worker manager
        timeout = max(0.0, deadline - time.monotonic())
        with contextlib.suppress(WorkerCancelled, WorkerFailed, WorkerError, TimeoutError):
            await asyncio.wait_for(asyncio.shield(worker.wait()), timeout)


def rendered(view: object, rows: range | None = None) -> list[str]:
    """The text of a Line-API view's rows (``render_row``), independent of the screen size."""
    from replay_tui.tui.widgets.line_view import LineView

    assert isinstance(view, LineView)
    out = []
    for index in rows if rows is not None else range(view.row_count):
        segments, _ = view.render_row(index)
        out.append("".join(s.text for s in segments))
    return out


class SVGSnapshotExtension(SingleFileSnapshotExtension):
    """One ``.svg`` file per snapshot, as text (reviewable in a diff, viewable in a browser).

    A mismatch is told as the screen rows that differ, not as the SVG's first lines (whose
    class names all change with any cell, and fill pytest's truncated report)."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        want, got = _screen_rows(str(snapshot_data)), _screen_rows(str(serialized_data))
        if not want or not got:
            yield from super().diff_lines(serialized_data, snapshot_data)
            return
        yield f"screen rows that differ (- snapshot, + received; {len(want)} vs {len(got)} rows):"
        for n in range(max(len(want), len(got))):
            a = want[n] if n < len(want) else ("", ())
            b = got[n] if n < len(got) else ("", ())
            if a != b:
                same_text = a[0] == b[0]
                yield f"- {n:2} {a[0]!r}" + (f" styles {a[1]}" if same_text else "")
                yield f"+ {n:2} {b[0]!r}" + (f" styles {b[1]}" if same_text else "")


def _screen_rows(svg: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each row of a Rich SVG screenshot: its text, and the style of each run of it."""
    import html
    import re

    # Class numbers (r1, r2…) are given in order of first use: compare what they stand for.
    rules = {m[1]: m[2].strip() for m in re.finditer(r"\.terminal-\d+-(r\d+) \{([^}]*)\}", svg)}
    rows: dict[float, list[tuple[float, str, str]]] = {}
    pattern = r'<text class="[^"]*-(r\d+)" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for m in re.finditer(pattern, svg):
        text = html.unescape(m.group(4)).replace("\xa0", " ")
        style = rules.get(m.group(1), m.group(1))
        rows.setdefault(float(m.group(3)), []).append((float(m.group(2)), text, style))
    out = []
    for _, runs in sorted(rows.items()):
        runs.sort()
        out.append(("".join(t for _, t, _ in runs), tuple(f"{x:g}:{c}" for x, _, c in runs)))
    return out


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrolls and toasts jump to their end: nothing to wait for, nothing to time."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def _outside_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run inside tmux, ``c`` also loads tmux's paste buffer: tests run as if outside it (a
    developer's own buffer is left alone; tests/tui/test_clipboard.py runs inside one)."""
    monkeypatch.delenv("TMUX", raising=False)


@pytest.fixture(autouse=True)
def _garbage_collected_once() -> Iterator[None]:
    """Each test's garbage is collected once, when the test ends, and only its own.

    An app and its widgets are a web of cycles, alive for the whole test: the collector's
    automatic passes (one every 700 allocations) walk them again and again while they live,
    then once more after. Off during the test and one full pass at its end, the same garbage
    goes at a quarter of the cost (tests/tui/test_list.py and test_keys.py: 4.5 s of
    collecting -> 2.1 s, 23.0 s of CPU -> 16.7 s). What survives that pass (caches, session
    fixtures, what other tests on this worker left) is frozen: the next test's pass walks
    the next test's objects, not everything the worker ever kept (a full pass took 60-115 ms
    late in a run).

    Textual's ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method (textual 8.2):
    it keeps the last 1,024 widgets' style caches, and every line they rendered, alive after
    their app has gone. It is emptied before the pass, so the app goes with its test.
    """
    from textual._styles_cache import StylesCache

    gc.disable()
    try:
        yield
    finally:
        StylesCache.get_inner_outer.cache_clear()
        gc.enable()
        gc.collect()
        gc.freeze()


@pytest.fixture(autouse=True, scope="session")
def _css_parsed_once() -> Iterator[None]:
    """Textual parses each app's CSS (its own and every widget's defaults) again for every
    app, a tenth of what booting one costs: the rules of the same CSS under the same
    variables are parsed once for the session and shared by every app's stylesheet."""
    from textual.css.stylesheet import Stylesheet

    parse = Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], list[Any]] = {}

    def parse_once(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[Any]:
        key = (
            css,
            read_from,
            is_default_rules,
            tie_breaker,
            scope,
            *sorted(self._variables.items()),
        )
        if key not in parsed:
            parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return parsed[key]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Stylesheet, "_parse_rules", parse_once)
        yield


@pytest.fixture(autouse=True)
def _fine_idle_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pilot's idle check (after every key and pause) looks every 2 ms, not every 20 ms.

    ``wait_for_idle`` sleeps a step at a time until a step passes with (almost) no CPU used by
    the process, any thread included; a key costs two steps at least. A 2 ms step tells
    "still working" (a thread at work takes the whole step) from "idle" sooner than a 20 ms
    one; what a test needs finished it waits on (``settle``: workers, messages, the resize
    Textual sends the screens a timer's tick after the terminal's).

    Idle is a step with less than a quarter of it on the CPU, not Textual's twentieth: waking
    an idle app's event loop alone costs 50-200 µs here, so a 100 µs bound was met by luck,
    after ten steps on average (24 ms a wait, 13 s of waiting in test_list, test_keys and
    test_first_minute on one process; 9 s with a quarter, most of it the keys' own work).

    The screen is redrawn at Textual's own rate (60 a second), as users see it. Redrawn 240
    times a second, the same three files took a third more layouts and redraws (1,461
    against 1,070) and an eighth more CPU, for waits a few milliseconds shorter.
    """
    import textual._wait

    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", 0.002)
    monkeypatch.setattr(textual._wait, "SLEEP_IDLE", 0.002 / 4)


@pytest.fixture(autouse=True)
def _clicks_land_on_what_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A click waits for the screen to show what the app has done so far, as a user's would:
    a pilot's click finds its widget where the last layout put it, and a key's effect is laid
    out at the screen's next refresh, so a click right after a key (a count chip after the
    counts changed) could land where the widget was."""
    real = Pilot._post_mouse_events

    async def after_refresh(self: Pilot[Any], *args: Any, **options: Any) -> bool:
        await self.app.screen.wait_for_refresh()
        return await real(self, *args, **options)

    monkeypatch.setattr(Pilot, "_post_mouse_events", after_refresh)


@pytest.fixture(autouse=True)
def _drawn_when_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen is drawn when a test looks at it, not sixty times a second for no one.

    A headless app lays itself out as a terminal's would: sizes, scrolls, what a click lands
    on and what the mouse is over are all as users have them. Then, at every refresh, it draws
    each changed region into strips that its driver throws away: 30% of the TUI tests' CPU
    (textual 8.2; tests/tui on one process: 72.6 s of CPU -> 51.5 s). A test reads what it
    asserts by drawing it (``render_line``, ``render()``; ``export_screenshot`` draws the
    whole screen for the snapshots, which cover every view at three sizes), so the frames no
    one reads are not drawn.
    """
    from textual.screen import Screen

    real = Screen._compositor_refresh

    def refresh(self: Screen[Any]) -> None:
        app = self.app
        if self is app.screen and app.is_headless and not app.is_inline:
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            app._update_mouse_over(self)
            return
        real(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", refresh)


@pytest.fixture
def svg_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGSnapshotExtension)


def _chunk(tool_call: dict[str, object], finish: str | None = None) -> str:
    chunk = {
        "choices": [{"index": 0, "delta": {"tool_calls": [tool_call]}, "finish_reason": finish}]
    }
    return "data: " + json.dumps(chunk) + "\n\n"


@pytest.fixture
def repaired_trace(tmp_path: Path) -> Path:
    """One call whose id is erased by ``""`` and re-sent two deltas later."""
    path = tmp_path / "repaired.sse"
    path.write_text(
        _chunk({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}})
        + _chunk({"index": 0, "id": "", "function": {"arguments": "{"}})
        + _chunk({"index": 0, "id": "call_1", "function": {"arguments": "}"}}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    return path


@pytest.fixture
def broken_json_trace(tmp_path: Path) -> Path:
    """A payload that is not JSON on line 3, shown in place in the raw view."""
    path = tmp_path / "broken.sse"
    path.write_text(
        _chunk({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}})
        + 'data: {"choices": [oops\n\n'
        + "data: [DONE]\n\n"
    )
    return path


HOSTILE_FILE = "[bold]evil\x1b[7m.sse"
HOSTILE_NAME = "[link=http://x]n[/link]"
HOSTILE_CONTENT = "[bold red]alarm[/bold red]"
HOSTILE_ARGS = '{"a": "\x1b[31mred\x1b[0m", "b": "\x1b]52;c;ZXZpbA==\x07"}'


@pytest.fixture
def hostile_trace(tmp_path: Path) -> Path:
    """Markup, ESC and OSC 52 sequences in a tool name, content, arguments and the file name."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    path = folder / HOSTILE_FILE
    text = {"choices": [{"index": 0, "delta": {"content": HOSTILE_CONTENT}}]}
    path.write_text(
        "data: "
        + json.dumps(text)
        + "\n\n"
        + _chunk(
            {"index": 0, "id": "call_\x1b[2J", "function": {"name": HOSTILE_NAME, "arguments": ""}}
        )
        + _chunk({"index": 0, "id": "", "function": {"arguments": HOSTILE_ARGS}}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    return folder


def write_big_trace(path: Path, deltas: int, calls: int = 4) -> Path:
    """An SSE trace of ``deltas`` tool-call deltas (DashScope shape: continuations send id "")."""
    base = '{"id":"chatcmpl-big","object":"chat.completion.chunk","model":"qwen3-max","choices":[{"index":0,"delta":{"tool_calls":['
    per_call = deltas // calls
    parts: list[str] = []
    for c in range(calls):
        count = per_call if c < calls - 1 else deltas - per_call * (calls - 1)
        first = f'{{"index":{c},"id":"call_{c:024x}","type":"function","function":{{"name":"read_file","arguments":""}}}}'
        parts.append(f'data: {base}{first}]}},"finish_reason":null}}]}}\n\n')
        rest = f'{{"index":{c},"id":"","type":"function","function":{{"arguments":"x"}}}}'
        line = f'data: {base}{rest}]}},"finish_reason":null}}]}}\n\n'
        parts.append(line * (count - 1))
    parts.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n')
    parts.append("data: [DONE]\n\n")
    path.write_text("".join(parts))
    return path


@pytest.fixture(scope="session")
def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = write_big_trace(tmp_path_factory.mktemp("big") / "big.sse", 100_000)
    yield path

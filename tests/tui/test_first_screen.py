"""A view's first screen costs what it shows (issue 27): the diff measures its rows' widths,
the raw view indexes its lines, after their first paint, a step at a time on the screen's
thread. What the first screen shows is the capture's, the keys typed meanwhile act on the
whole (the end is the last row, not the last row measured so far), and once done the view
is as wide as its widest row."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from replay_tui.tui.app import make_app
from replay_tui.tui.widgets import diff_view as diff_module
from replay_tui.tui.widgets import model_view as model_module
from replay_tui.tui.widgets import raw_view as raw_module

from .conftest import SIZE, TRACES, held, rendered, settle, until

_BREAK = re.compile(r"\r\n|\r|\n")
_RAW_ROW = re.compile(r" *(\d+) . (.*)")
"""A raw row: the line's number, a mark, the line."""


def _lines_of(rows: list[str]) -> list[tuple[int, str]]:
    return [(int(m[1]), m[2]) for m in map(_RAW_ROW.fullmatch, rows) if m is not None]


def _trace(path: Path, deltas: int, long_at: int, long: int) -> Path:
    """One call of ``deltas`` deltas; delta ``long_at`` sends an id ``long`` characters long,
    delta ``long_at + 100`` a short one again: under assign-always the chunks between carry
    the long one, and no other row is as wide (the block's end has the last, and the
    arguments, an "x" every 100 deltas, are short)."""
    head = '{"choices":[{"index":0,"delta":{"tool_calls":['
    tail = ']},"finish_reason":null}]}'
    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
    lines = [f"data: {head}{json.dumps(first)}{tail}\n\n"]
    for k in range(1, deltas):
        call = {"index": 0, "function": {"arguments": "x" if k % 100 == 1 else ""}}
        if k in (long_at, long_at + 100):
            call["id"] = "L" * long if k == long_at else "call_2"
        lines.append(f"data: {head}{json.dumps(call)}{tail}\n\n")
    lines.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n')
    lines.append("data: [DONE]\n\n")
    path.write_text("".join(lines))
    return path


class _Steps:
    """The slices that build the rest of a view's model, held once :meth:`hold` is called
    (the view is seen while finishing, however slow the machine) until :meth:`release`."""

    def __init__(self) -> None:
        self.holding = False
        self.waiting: list[tuple[model_module.ModelView[Any], Iterator[None]]] = []

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        waiting, self.waiting = self.waiting, []
        for view, steps in waiting:
            view._next_steps(steps)


@pytest.fixture
def slow_steps(monkeypatch: pytest.MonkeyPatch) -> _Steps:
    """The rest of a model built a small step per slice, and held while the test looks."""
    monkeypatch.setattr(model_module, "STEP_SECONDS", 0.0)
    monkeypatch.setattr(diff_module, "STEP_ROWS", 8)
    monkeypatch.setattr(raw_module, "_PIECE", 512)
    gate = _Steps()
    real = model_module.ModelView._next_steps

    def next_steps(self: model_module.ModelView[Any], steps: Iterator[None]) -> None:
        if gate.holding:
            gate.waiting.append((self, steps))
            return
        real(self, steps)

    monkeypatch.setattr(model_module.ModelView, "_next_steps", next_steps)
    return gate


async def test_the_diff_is_as_wide_as_its_widest_row_once_measured(
    tmp_path: Path, slow_steps: _Steps
) -> None:
    # A 900-wide id in the middle: not among the rows the first screen measures.
    trace = _trace(tmp_path / "wide.sse", 2000, 1000, 900)
    app = make_app([str(trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        slow_steps.hold()
        await pilot.press("2")
        view = app.diff_view
        await until(pilot, lambda: view.model is not None and not view.loading)
        model = view.model
        assert model is not None and view.finishing and not model.widths_measured
        estimate = view.virtual_size.width
        assert len(model.display) == 1  # every chunk alike under both: one folded run
        assert "2,003 identical chunks (lines 1–4003)" in rendered(view, range(1, 2))[0]
        await pilot.press("z")  # while it measures: every row unfolded, from the first on
        assert view.finishing and len(model.display) == 2003
        rows = rendered(view, range(0, 4))
        assert rows[0].lstrip().startswith("line")
        assert rows[1].startswith("1 ") and "block-start" in rows[1]
        assert rows[2].startswith("1 ") and "tool-call-delta" in rows[2]
        assert rows[3].startswith("3 ") and 'argumentsDelta="x"' in rows[3]
        assert rows[4 - 2].count("call_1") == 2  # (each side's id)
        await pilot.press("end")  # and the last row of all
        assert view.finishing
        assert view.cursor == len(model.display)
        assert "finish" in rendered(view, range(view.cursor, view.cursor + 1))[0]
        slow_steps.release()
        await settle(app, pilot)
        assert not view.finishing and model.widths_measured
        half = view._halves()[0]
        widest = model.side_widths[0]
        assert widest >= 900 + len(' id=""')  # the long id's rows, measured
        assert view.virtual_size.width == view._table_width() > estimate
        assert view.virtual_size.width - half >= widest - half  # → reaches its end
        assert view.cursor == len(model.display)  # (measuring did not move the cursor)


async def test_the_raw_view_shows_the_lines_it_has_not_indexed_yet(
    tmp_path: Path, slow_steps: _Steps
) -> None:
    trace = _trace(tmp_path / "lines.sse", 3000, 5, 10)
    lines = _BREAK.split(trace.read_text())[:-1]
    app = make_app([str(trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        slow_steps.hold()
        await pilot.press("3")
        view = app.raw_view
        await until(pilot, lambda: view.model is not None and not view.loading)
        model = view.model
        assert model is not None and view.finishing and not model.index.done
        assert model.lines == len(lines)  # every line counted at once: the scrollbar's size
        assert view.virtual_size.height == len(lines)
        assert _lines_of(rendered(view, range(6))) == list(enumerate(lines[:6], 1))
        await pilot.press("end")  # while it indexes: the last line, read as it is
        assert view.finishing and view.cursor == len(lines) - 1
        last = rendered(view, range(len(lines) - 1, len(lines)))
        assert _lines_of(last) == [(len(lines), lines[-1])]
        await pilot.press("home", "down")
        assert view.cursor == 1
        slow_steps.release()
        await settle(app, pilot)
        assert not view.finishing and model.index.done
        assert view.virtual_size.height == len(lines)
        widest = max(map(len, lines))
        assert view.virtual_size.width >= widest
        assert _lines_of(rendered(view)) == list(enumerate(lines, 1))


def test_the_diff_measured_after_its_first_screen_is_as_wide_as_encoding_says(
    tmp_path: Path,
) -> None:
    from replay_tui.core.trace import Form, Source, load_trace

    from .test_view_models import _widest_by_encoding

    path = _trace(tmp_path / "wide.sse", 2000, 1000, 900)
    trace = load_trace(Source(path, path.name, Form.SSE))
    model = diff_module.build_diff_model(trace)
    assert not model.widths_measured and model.side_widths < _widest_by_encoding(trace)
    steps = diff_module.measure_side_widths(model)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            assert done.value == _widest_by_encoding(trace)
            break


class _Cycle:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


async def test_what_an_open_trace_left_to_the_collector_is_collected_once_another_opens(
    tmp_path: Path,
) -> None:
    """The objects made while a trace opens are left out of the collector's full passes
    (``gc.freeze``: a pass over them cost a key or an appended delta 50-150 ms): garbage
    among them that only the collector frees (a cycle) is freed once another trace is
    opened in its place, not kept for the rest of the session."""
    import gc
    import weakref

    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "a.sse")
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "b.sse")
    cycle = _Cycle()  # (made before the app: among what its first trace's opening freezes)
    gone = weakref.ref(cycle)
    app = make_app([str(tmp_path)])
    frozen = gc.get_freeze_count()  # (the test run's own: tests/conftest.py)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)  # (a.sse, the erasing capture, opened as the first flagged)
        await until(pilot, lambda: gc.get_freeze_count() > frozen)
        assert app.current is not None and app.current.address == "a.sse"
        del cycle
        gc.collect()
        assert gone() is not None  # frozen with the open trace's objects: not looked at
        app.choose_trace("b.sse")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "b.sse"
        gc.collect()
        assert gone() is None


async def test_a_trace_chosen_before_the_walk_lists_it_is_opened_once_it_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the command palette or a script choosing while a big folder is walked: the choice was
    # dropped, nothing opened, and the first flagged trace did not open either)
    from replay_tui.browse import judging as browse_judging

    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "a.sse")
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "b.sse")
    go = held(monkeypatch, browse_judging, "walk")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.discovered
        app.choose_trace("b.sse")  # (not the one opened unasked: a.sse is flagged)
        go.set()
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "b.sse"
        assert app.trace_list.selected == "b.sse"


def test_calls_a_little_way_in_are_shown_from_a_screenful_not_a_whole_step(
    tmp_path: Path,
) -> None:
    # 600 text deltas (more than the first slice), then 5,000 deltas of one call: the first
    # screen holds the call's first rows and stops a slice after them, where it decoded a
    # whole megabyte (2,300 deltas, for a screen of 40); the builder reads on to the same
    # trace as the whole capture decoded at once
    from replay_tui.core.discovery import Candidate, Discovery, classify_candidate
    from replay_tui.core.trace import load_trace
    from replay_tui.tui.loading import EARLY_ROWS, FIRST_SLICE, first_screen, load_in_steps

    def event(delta: dict[str, object]) -> str:
        pad = {"refusal": None, "audio": None, "provider_specific_fields": None}
        chunk = {"choices": [{"index": 0, "delta": {**pad, **delta}, "finish_reason": None}]}
        return "data: " + json.dumps(chunk) + "\n\n"

    text = "".join(event({"content": f"word {k} "}) for k in range(600))
    opened = {"index": 1, "id": "tooluse_1", "type": "function"}
    call = event({"tool_calls": [{**opened, "function": {"name": "f", "arguments": ""}}]})
    pieces = "".join(
        event({"tool_calls": [{"index": 1, "id": None, "function": {"arguments": "ab"}}]})
        for _ in range(5000)
    )
    body = (text + call + pieces + "data: [DONE]\n\n").encode()
    assert len(text) > FIRST_SLICE and len(body) > 1024 * 1024
    path = tmp_path / "late.sse"
    path.write_bytes(body)
    found = Discovery()
    classify_candidate(Candidate(str(path), path.as_posix()), found)
    source = found.sources[0]
    early, builder = first_screen(source)
    assert EARLY_ROWS <= early.analysis.deltas < EARLY_ROWS + FIRST_SLICE // 200
    assert builder is not None
    whole = load_trace(source, body)
    last = load_in_steps(source, early=builder)
    assert last is not None
    assert last.analysis.deltas == whole.analysis.deltas == 5001
    assert last.analysis.verdicts == whole.analysis.verdicts

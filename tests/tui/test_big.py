"""A 100,000-delta trace opens headless, first a slice, then all of it; rows render on demand."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from replay_tui.core.trace import Trace
from replay_tui.tui.app import make_app
from replay_tui.tui.loading import load_in_steps
from replay_tui.tui.widgets.calls_view import HEAD, PINNED

from .conftest import SIZE, settle

pytestmark = pytest.mark.slow


async def test_a_100k_delta_trace_opens_and_scrolls(big_trace: Path) -> None:
    started = time.perf_counter()
    app = make_app([str(big_trace)])
    async with app.run_test(size=SIZE) as pilot:
        while app.first_screen is None:
            await pilot.pause(0.01)
            assert time.perf_counter() - started < 20, "no first screen within 20 s"
        # The first screen came from a partial decode: rows are there before the whole file.
        first = app.calls_view.model
        assert first is not None and first.trace.analysis.deltas < 100_000
        # Its header says it is decoding; the part's verdicts ("in-progress", as for a file
        # still being written) are not shown as the trace's.
        header = str(app.trace_header.render())
        assert app.partial and "◌ decoding" in header and "decoding…" in header
        assert " deltas so far" in header  # counts of the part decoded: not final
        assert "in progress" not in header and "in-progress" not in header
        assert app.calls_view.row_count > HEAD
        await settle(app, pilot, limit=60)
        model = app.calls_view.model
        assert model is not None and model.trace.analysis.deltas == 100_000
        assert app.store.judgements[model.trace.address].badge.value == "erasing"
        view = app.calls_view
        view.focus()
        await pilot.press("end")
        assert view.cursor == model.total - 1 - len(model.sections[-1].tail) or view.cursor > 90_000
        # Only what is on screen was rendered, not 100,000 rows.
        assert len(view._cache) <= 2 * SIZE[1]
        # Deep in a call, its two heading rows stay on the top lines; the cursor is below them.
        await pilot.press("pageup")
        section, _ = model.locate(view.cursor)
        assert section is not None and view.scroll_offset.y > section.start + HEAD
        assert [view.row_at(0), view.row_at(1)] == [section.start + 1, section.start + 2]
        assert view.cursor - view.scroll_offset.y >= PINNED
        await pilot.press("3")
        await settle(app, pilot, limit=60)
        assert app.raw_view.model is not None and app.raw_view.model.lines > 200_000


def test_load_in_steps_gives_a_partial_snapshot_and_progress(big_trace: Path) -> None:
    from replay_tui.core.discovery import discover

    source = discover([big_trace]).sources[0]
    partials, progress = [], []
    trace = load_in_steps(
        source,
        on_partial=partials.append,
        on_progress=lambda done, total: progress.append((done, total)),
    )
    assert trace is not None and trace.analysis.deltas == 100_000
    assert len(partials) == 1 and partials[0].in_progress
    assert progress[-1][0] == progress[-1][1] and len(progress) > 3
    cancelled = load_in_steps(source, cancelled=lambda: True)
    assert cancelled is None


def test_the_first_rows_after_a_line_longer_than_a_read_come_when_it_ends(tmp_path: Path) -> None:
    """A 1.2 MB content string, then a call of 5,000 deltas, read 64 KB at a time: the first
    snapshot holds the rows just after the string, not the rest of the capture (it came at
    the next doubling of what was read: everything, here)."""
    from replay_tui.core.discovery import discover

    def chunk(delta: str) -> str:
        return f'data: {{"choices":[{{"index":0,"delta":{delta}}}]}}\n\n'

    head = chunk('{"content":"' + "word " * 240_000 + '"}')
    call = '{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}'
    more = '{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]}'
    path = tmp_path / "long.sse"
    path.write_text(head + chunk(call) + chunk(more) * 4999 + "data: [DONE]\n\n")
    step = 64 * 1024
    partials: list[Trace] = []
    source = discover([path]).sources[0]
    trace = load_in_steps(source, on_partial=partials.append, first=step, step=step)
    assert trace is not None and trace.analysis.deltas == 5000
    [partial] = partials
    assert 100 <= partial.analysis.deltas < 5000
    # The slice that ended the string, and one (its bytes: the buffer it shares with the whole
    # trace has grown on since, as a capture's followed while it is written does).
    assert partial.payloads[len(partial.payloads) - 1].end <= len(head) + 2 * step
    assert partial.raw is trace.raw  # one builder read both: each byte read and kept once


def test_the_first_screen_reads_on_to_the_first_calls_within_its_time(tmp_path: Path) -> None:
    """30,000 text deltas (about 2.5 MB) before a call: the first frame's snapshot holds the
    call's first rows (read a megabyte at a time, no further than the slice that held them),
    unless its time is up first; then it is the first 64 KB's, as before."""
    from replay_tui.core.discovery import discover
    from replay_tui.tui.loading import EARLY_STEP, FIRST_SLICE, first_screen, with_lines_counted

    def chunk(delta: str) -> str:
        return f'data: {{"choices":[{{"index":0,"delta":{delta}}}]}}\n\n'

    text = "".join(chunk(f'{{"content":"token {k} and some more words "}}') for k in range(30_000))
    call = '{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}'
    more = '{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]}'
    path = tmp_path / "text-first.sse"
    path.write_text(text + chunk(call) + chunk(more) * 29_999 + "data: [DONE]\n\n")
    source = discover([path]).sources[0]
    trace, builder = first_screen(source, within=60)
    assert builder is not None and trace.in_progress
    # (its lines counted from the call's event until those before are: with_lines_counted)
    assert not trace.lines_known and trace.analysis.calls[0].first_line == 1
    counted = with_lines_counted(trace)
    assert counted.lines_known and counted.analysis.deltas == trace.analysis.deltas
    assert 100 <= trace.analysis.deltas < 30_000 and counted.analysis.calls[0].first_line == 60_001
    assert len(trace.raw) < len(text) + EARLY_STEP + len(chunk(call)) * 100
    late, builder = first_screen(source, within=0)  # the time is up at once
    assert builder is not None and len(late.raw) == FIRST_SLICE and late.analysis.deltas == 0

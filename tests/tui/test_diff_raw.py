"""The diff view (both behaviors side by side) and the raw view (the capture as it is)."""

from __future__ import annotations

from pathlib import Path

from replay_tui.tui.app import make_app
from replay_tui.tui.widgets.diff_view import align, build_diff_model

from .conftest import SIZE, TRACES, rendered, settle


async def test_diff_aligns_both_streams_and_marks_differences() -> None:
    app = make_app([str(TRACES / "envoy" / "vertex-anthropic-parallel.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert app.tabs.active == "diff"
        assert app.focused is app.diff_view
        rows = rendered(app.diff_view)
        assert "assign-always (old)" in rows[0] and "accept-identity (fix)" in rows[0]
        assert "6 of 12 rows differ" in rows[0]
        differing = [r for r in rows[1:] if r[6] == "≠"]
        assert len(differing) == 6
        assert all("tool-call-delta" in r or "block-end" in r for r in differing)
        same = [r for r in rows[1:] if r[6] == " "]
        assert any("block-start" in r for r in same)


async def test_identical_runs_collapse_and_expand_with_enter_click_and_z() -> None:
    app = make_app([str(TRACES / "azure" / "gpt-4o-mini-usage-tail.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        view = app.diff_view
        model = view.model
        assert model is not None and model.differing == 0
        rows = rendered(view)
        assert len(rows) == 2  # the header and one collapsed run of every chunk
        assert "identical chunks" in rows[1] and "enter or click to expand" in rows[1]
        await pilot.press("enter")
        assert view.row_count == len(model.left) + 1
        await pilot.press("enter")  # on an expanded row: collapse its run again
        assert view.row_count == 2
        await pilot.click(view, offset=(10, 1))
        assert view.row_count == len(model.left) + 1
        await pilot.press("z")
        assert view.row_count == 2


def test_alignment_leaves_a_gap_where_the_fix_emits_no_block_end() -> None:
    from replay_tui.core.discovery import discover
    from replay_tui.core.trace import load_trace

    trace = load_trace(discover([TRACES / "ollama" / "qwen3-no-id.sse"]).sources[0])
    model = build_diff_model(trace)
    gaps = [
        (a, b) for a, b in zip(model.left, model.right, strict=True) if b is None and a is not None
    ]
    assert [a[1]["type"] for a, _ in gaps] == ["block-end"]
    # The finish chunks still face each other (they differ).
    last = model.left[-1], model.right[-1]
    assert last[0] is not None and last[1] is not None
    assert last[0][1]["type"] == last[1][1]["type"] == "finish"
    assert align([], []) == ([], [])


async def test_raw_view_numbers_lines_dims_what_follows_done_and_shows_curl_heads() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("opencode/zen-null-identity-data-after-done.sse")
        await pilot.press("3")
        await settle(app, pilot)
        rows = rendered(app.raw_view)
        assert rows[0].split()[0] == "1"
        line13 = rows[12]
        assert line13.split()[0] == "13"
        assert 'data: {"choices":[],"cost":"0"}' in line13
        assert "after [DONE]: not replayed" in line13
        segments, _ = app.raw_view.render_row(12)
        dimmed = app.raw_view.piece_style("raw-view--after-done")
        assert any(s.style == dimmed for s in segments if "choices" in s.text)

        app.choose_trace("litellm/proxy-curl-i.txt")
        await pilot.press("3")
        await settle(app, pilot)
        rows = rendered(app.raw_view)
        assert "HTTP/1.1 200 OK" in rows[0]
        assert "content-type: text/event-stream" in rows[3]


async def test_decode_errors_are_shown_in_place(broken_json_trace: Path) -> None:
    app = make_app([str(broken_json_trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        rows = rendered(app.raw_view)
        assert rows[2].split()[:2] == ["3", "⚠"]
        assert rows[3].strip() == "⚠ not valid JSON: Expecting value at line 1, column 14"
        assert rows[4].split()[0] == "4"  # numbering resumes after the message row
        await pilot.press("down")
        assert app.raw_view.copy_text() is not None

"""The calls view: identity evolution per call, erasures labelled, the assembled call."""

from __future__ import annotations

from pathlib import Path

from replay_tui.tui.app import make_app
from replay_tui.tui.widgets.calls_view import HEAD

from .conftest import SIZE, TRACES, rendered, settle


async def test_each_delta_shows_raw_identity_and_identity_under_both_behaviors() -> None:
    app = make_app([str(TRACES / "envoy" / "vertex-anthropic-parallel.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        model = app.calls_view.model
        assert model is not None
        assert len(model.sections) == 2
        rows = rendered(app.calls_view)
        title, groups, columns = rows[0], rows[1], rows[2]
        assert title.startswith("▸ call 0") and "3 deltas" in title
        assert "✗ erased id, erased name (2 flags)" in title
        assert (
            "as sent" in groups
            and "assign-always (old)" in groups
            and "accept-identity (fix)" in groups
        )
        for name in ("Δ", "line", "flag", "id", "name", "arguments fragment"):
            assert name in columns
        first, erasing = rows[HEAD : HEAD + 2]
        # Delta 2 on line 3 erased both: the raw values are null and "", the label says so.
        assert erasing.split()[:3] == ["▌", "2", "3"]
        assert "erased id · erased name" in erasing
        raw_id, raw_name = erasing.split("erased name", 1)[1].split()[:2]
        assert (raw_id, raw_name) == ("null", '""')
        # Under accept-identity the id from delta 1 stays in force; under assign-always it is null.
        assert erasing.count('"read_file"') == 1  # only accept-identity keeps the name
        assert "absent" not in first.split("│")[0]  # the first delta sent both id and name


async def test_cells_kinds_and_how_each_call_closes() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)

        app.choose_trace("captures/name-never-sent.sse")
        await settle(app, pilot)
        cells = " ".join(rendered(app.calls_view)[HEAD:])
        assert "null" in cells  # name: null on the first delta
        assert "absent" in cells  # continuations omit the name
        assert '"call_' in cells  # strings are quoted

        app.choose_trace("ollama/qwen3-no-id.sse")
        await settle(app, pilot)
        text = "\n".join(rendered(app.calls_view))
        assert "accept-identity  ✗ refused: the call never got a non-empty id" in text
        assert "MALFORMED_TOOL_CALL: model streamed a tool call with no id" in text
        assert 'assign-always    id ""  name "get_weather"' in text
        assert "✗ an empty callId" in text
        assert '"city": "Lisbon"' in text  # arguments, pretty-printed

        app.choose_trace("openai/gpt-4.1-text-then-call.sse")
        await settle(app, pilot)
        text = "\n".join(rendered(app.calls_view))
        assert text.count("✓ identified") == 2
        assert "erased" not in text

        app.choose_trace("openrouter/error-midstream.sse")
        await settle(app, pilot)
        first = rendered(app.calls_view)[0]
        assert first == "No tool calls in this trace: no identity to erase."


async def test_a_repaired_erasure_is_marked(repaired_trace: Path) -> None:
    app = make_app([str(repaired_trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        rows = rendered(app.calls_view)
        assert "1 repaired" in rows[0]
        assert "erased id (repaired l.5)" in rows[HEAD + 1]


async def test_flags_are_walked_with_n_and_shift_n_across_calls() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.choose_trace("writer/palmyra-x5-all-null.sse")
        await settle(app, pilot)
        view = app.calls_view
        model = view.model
        assert model is not None
        flag_rows = sorted({model.flag_row(f) for f in model.trace.analysis.flags})  # type: ignore[type-var]
        assert len(flag_rows) == 2  # two calls, each erased (id and name) on one delta
        assert view.cursor == flag_rows[0]  # opening selects the first flag
        await pilot.press("n")
        assert view.cursor == flag_rows[1]
        assert model.delta_at(view.cursor) is not None
        await pilot.press("n")  # wraps around
        assert view.cursor == flag_rows[0]
        await pilot.press("N")
        assert view.cursor == flag_rows[1]

        app.choose_trace("openai/gpt-4.1-text-then-call.sse")
        await settle(app, pilot)
        before = view.cursor
        await pilot.press("n")
        assert view.cursor == before
        assert any("No flags" in str(n.message) for n in app._notifications)


async def test_cursor_keys_and_clicks_select_rows() -> None:
    app = make_app([str(TRACES / "azure" / "gpt-4o-mini-usage-tail.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = app.calls_view
        assert view.cursor == HEAD  # first delta (no flag here)
        await pilot.press("down", "down")
        assert view.cursor == HEAD + 2
        await pilot.press("up")
        assert view.cursor == HEAD + 1
        await pilot.press("home")
        assert view.cursor == 0  # the call title is selectable (c copies the whole call)
        await pilot.click(view, offset=(10, HEAD + 3))
        assert view.cursor == HEAD + 3
        await pilot.press("end")
        assert view.cursor == HEAD + len(view.model.sections[0].rows) - 1  # type: ignore[union-attr]


async def test_selecting_a_delta_highlights_its_lines_in_the_raw_view() -> None:
    app = make_app([str(TRACES / "dashscope" / "qwen3-max-id-empty.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        assert app.raw_view.selected == (3, 3)  # the flagged delta, line 3
        await pilot.press("1", "down")
        assert app.raw_view.selected == (5, 5)
        assert app.raw_view.model is not None
        assert app.raw_view.cursor == app.raw_view.model.row_of(5)

"""The calls view's keys: n / N walk the flags, cursor keys and clicks, the raw view follows.

What the calls view shows (identity evolution, erasure labels, the assembled call) is in
``test_view_models.py``, without an app.
"""

from __future__ import annotations

from replay_tui.tui.app import make_app
from replay_tui.tui.widgets.calls_view import HEAD

from .conftest import SIZE, TRACES, settle


async def test_flags_are_walked_with_n_and_shift_n_across_calls() -> None:
    app = make_app([str(TRACES / "writer" / "palmyra-x5-all-null.sse"), str(TRACES / "openai")])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.choose_trace(str(TRACES / "writer" / "palmyra-x5-all-null.sse"))
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
        await pilot.press("n")  # wraps around, and says so
        assert view.cursor == flag_rows[0]
        assert str(list(app._notifications)[-1].message).endswith(" · back to the first")
        await pilot.press("N")
        assert view.cursor == flag_rows[1]
        assert str(list(app._notifications)[-1].message).endswith(" · back to the last")
        await pilot.press("N")
        assert "back to" not in str(list(app._notifications)[-1].message)

        app.choose_trace(f"{TRACES / 'openai'}/gpt-4.1-text-then-call.sse")  # (several roots)
        await settle(app, pilot)
        before = view.cursor
        await pilot.press("n")
        assert view.cursor == before
        assert [str(n.message) for n in app._notifications][-1] == (
            "No flags in this trace: nothing was erased."
        )


async def test_n_on_a_trace_without_flags_that_breaks_says_it_breaks() -> None:
    """No id ever arrived: nothing was erased, and yet both behaviours refuse the call."""
    app = make_app([str(TRACES / "ollama" / "qwen3-no-id.sse")])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        assert [str(n.message) for n in app._notifications][-1] == (
            "No flags: nothing was erased, yet it is refused (assign-always unidentified-call,"
            " accept-identity malformed-tool-call). Details says why."
        )


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


async def test_the_raw_and_diff_views_made_later_go_to_the_delta_selected_before() -> None:
    """The raw and diff views are made when their tab is first shown, not at launch (made to
    be told the selected delta, they were 3.5 ms of every first frame); then they go to the
    delta the calls selected meanwhile."""
    app = make_app([str(TRACES / "dashscope" / "qwen3-max-id-empty.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "raw_view" not in app.__dict__ and "diff_view" not in app.__dict__
        await pilot.press("down")  # the delta on line 5
        assert "raw_view" not in app.__dict__
        await pilot.press("3")
        await settle(app, pilot)
        assert app.raw_view.selected == (5, 5)
        assert app.raw_view.model is not None
        assert app.raw_view.cursor == app.raw_view.model.row_of(5)
        assert "diff_view" not in app.__dict__
        await pilot.press("2")
        await settle(app, pilot)
        assert app.diff_view.selected_line == 5


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

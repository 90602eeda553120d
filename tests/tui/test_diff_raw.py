"""The diff view's keys: runs of identical chunks fold and unfold (enter, click, z).

What the diff and raw views show is in ``test_view_models.py`` (no app); their sideways
scrolling and decode errors in ``test_view_promises.py``.
"""

from __future__ import annotations

from replay_tui.tui.app import make_app

from .conftest import SIZE, TRACES, rendered, settle


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

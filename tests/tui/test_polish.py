"""Issue 31's cosmetics, each as a person sees it at a size: columns that use the width,
toasts that cut paths where they can be read, the footer under the palette."""

from __future__ import annotations

from textual.widgets import Static

from replay_tui.tui.app import make_app

from .conftest import TRACES, settle

CURL = TRACES / "litellm" / "proxy-curl-i.txt"
MODEL_ID = "765f98052ab9226d512c4ef66355dcc417ca2040498fa69d91a3f197245ee9b7"
"""A header value of the curl capture, 64 characters: it fits beside short verdicts."""


async def test_at_200_columns_the_metadata_takes_the_width_the_verdicts_leave() -> None:
    app = make_app([str(CURL)])
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        verdicts = app.details.query_one("#details-verdicts", Static)
        metadata = app.details.query_one("#details-metadata", Static)
        assert (
            MODEL_ID in app.details._meta.plain
        )  # whole on its line, not wrapped at 2/5 of the width
        assert metadata.size.width > 80 and verdicts.size.width < 120

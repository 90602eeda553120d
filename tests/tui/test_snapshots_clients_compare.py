"""SVG snapshots of the clients and compare views on the bundled traces.

Update with ``pytest --snapshot-update``; as in ``test_snapshots.py`` the terminal size is
fixed, paths are relative and toasts are cleared.
"""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from replay_tui.tui.app import make_app

from .conftest import ROOT, settle

SNAPSHOT_SIZE = (150, 42)


@pytest.fixture(autouse=True)
def _at_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


async def test_clients_view_of_a_trace_thirteen_libraries_break_on(
    svg_snapshot: SnapshotAssertion,
) -> None:
    """litellm/proxy-curl-i.txt: the matrix, and the first broken cell side by side (tall
    enough that neither the matrix nor the details need a scrollbar, whose thumb would
    depend on the order in which they filled in)."""
    app = make_app(["traces/litellm/proxy-curl-i.txt"])
    async with app.run_test(size=(SNAPSHOT_SIZE[0], 70)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        matrix = app.clients_pane.matrix
        while matrix.model is None or not matrix.model.done:  # every library assessed
            await pilot.pause(0.01)
        await pilot.press("down", "down", "down")  # ai-sdk-openai-compatible splits the call
        await settle(app, pilot)  # the detail pane follows the cursor through a message
        app.clear_notifications()
        await pilot.pause()
        assert app.export_screenshot(title="replay-tui") == svg_snapshot(name="clients")


async def test_clients_detail_names_the_field_a_library_threw_on(
    svg_snapshot: SnapshotAssertion,
) -> None:
    """litellm/proxy-curl-i.txt at 100x30, openai-python's whole response: the assertion, the
    line and the field that failed it (`"type": "FUNCTION"`), wrapped under its start."""
    app = make_app(["traces/litellm/proxy-curl-i.txt"])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        matrix = app.clients_pane.matrix
        while matrix.model is None or not matrix.model.done:
            await pilot.pause(0.01)
        await pilot.press("right")  # openai-python's whole response
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()
        assert app.export_screenshot(title="replay-tui") == svg_snapshot(name="clients-field")


async def test_compare_view_of_two_har_entries(svg_snapshot: SnapshotAssertion) -> None:
    """The same request through two gateways: #2 marked (A), #4 open (B), both behaviors."""
    app = make_app(["traces/captures/mitmproxy-export.har"])
    async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("traces/captures/mitmproxy-export.har#2")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace("traces/captures/mitmproxy-export.har#4")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()
        assert app.export_screenshot(title="replay-tui") == svg_snapshot(name="compare")
        await pilot.press("b")
        app.clear_notifications()
        await pilot.pause()
        assert app.export_screenshot(title="replay-tui") == svg_snapshot(
            name="compare-assign-always"
        )

"""SVG snapshots of each view on the bundled traces (update with ``pytest --snapshot-update``).

The terminal size is fixed, paths are relative (the repository root is the working folder)
and toasts are cleared, so the pictures depend on nothing but the code and the traces. Views
of one trace are taken in one session of the app, one snapshot per view.
"""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from replay_tui.tui.app import ReplayApp, make_app

from .conftest import ROOT, settle

SNAPSHOT_SIZE = (150, 42)


async def _shots(
    paths: list[str], steps: list[tuple[str, list[str]]], open_trace: str | None = None
) -> dict[str, str]:
    """Run the app on ``paths`` and take one screenshot after each ``(name, keys)`` step."""
    app: ReplayApp = make_app(paths)
    out: dict[str, str] = {}
    async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
        await settle(app, pilot)
        if open_trace is not None:
            app.choose_trace(open_trace)
            await settle(app, pilot)
        for name, keys in steps:
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
            app.clear_notifications()
            await pilot.pause()
            out[name] = app.export_screenshot(title="replay-tui")
    return out


@pytest.fixture(autouse=True)
def _at_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


async def test_traces_folder(svg_snapshot: SnapshotAssertion) -> None:
    """The first screen (first flagged trace), the list filtered to erasing, the help screen."""
    shots = await _shots(
        ["traces"], [("first-screen", []), ("filtered", ["v"]), ("help", ["question_mark"])]
    )
    for name, svg in shots.items():
        assert svg == svg_snapshot(name=name)


async def test_calls_and_diff_of_two_parallel_calls(svg_snapshot: SnapshotAssertion) -> None:
    shots = await _shots(
        ["traces/envoy/vertex-anthropic-parallel.sse"], [("calls", []), ("diff", ["2"])]
    )
    for name, svg in shots.items():
        assert svg == svg_snapshot(name=name)


async def test_calls_view_refused_call(svg_snapshot: SnapshotAssertion) -> None:
    shots = await _shots(["traces/ollama/qwen3-no-id.sse"], [("calls", [])])
    assert shots["calls"] == svg_snapshot(name="calls")


async def test_raw_views(svg_snapshot: SnapshotAssertion) -> None:
    """Data after [DONE] dimmed; the head of a curl -i capture."""
    after_done = await _shots(
        ["traces/opencode/zen-null-identity-data-after-done.sse"], [("raw", ["3"])]
    )
    curl = await _shots(["traces/litellm/proxy-curl-i.txt"], [("raw", ["3"])])
    assert after_done["raw"] == svg_snapshot(name="after-done")
    assert curl["raw"] == svg_snapshot(name="curl")


async def test_details_of_a_har_entry(svg_snapshot: SnapshotAssertion) -> None:
    shots = await _shots(["traces/captures"], [("har", [])], open_trace="mitmproxy-export.har#5")
    assert shots["har"] == svg_snapshot(name="har")

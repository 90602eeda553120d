"""SVG snapshots of the first minute at 80×24, 120×40 and 200×60 (issue 12).

At each size: the first screen on the bundled traces (the first flagged trace open, its
erasing delta selected), the filter being typed (the text visible, the open trace kept),
and the help. At 80×24 also a 20,000-delta trace whose first flag is at delta 10,003.
Update with ``pytest --snapshot-update`` and look at the pictures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from replay_tui.tui.app import ReplayApp, make_app

from .conftest import ROOT, settle
from .test_first_minute import write_late_flag_trace

SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x60": (200, 60)}


async def _shots(
    app: ReplayApp, size: tuple[int, int], steps: list[tuple[str, list[str]]]
) -> dict[str, str]:
    out: dict[str, str] = {}
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.trace_list.filter_input.cursor_blink = False
        for name, keys in steps:
            await pilot.press(*keys)
            await settle(app, pilot)
            app.clear_notifications()
            await pilot.pause()
            out[name] = app.export_screenshot(title="replay-tui")
    return out


@pytest.mark.parametrize("size", list(SIZES))
async def test_first_minute_at_each_size(
    size: str, svg_snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    shots = await _shots(
        make_app(["traces"]),
        SIZES[size],
        [
            ("first-screen", []),
            ("filtering", ["slash", *"dash"]),
            ("help", ["escape", "escape", "question_mark"]),
        ],
    )
    for name, svg in shots.items():
        assert svg == svg_snapshot(name=f"{size}-{name}")


async def test_a_long_trace_at_80x24(
    tmp_path: Path, svg_snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_late_flag_trace(tmp_path / "late.sse")
    monkeypatch.chdir(tmp_path)
    shots = await _shots(make_app(["late.sse"]), SIZES["80x24"], [("first-screen", [])])
    assert shots["first-screen"] == svg_snapshot(name="late-flag")

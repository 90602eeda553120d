"""A view that appears after a slow build has the keyboard, and the keys typed while it was
built are its own once it is shown (issue 31: `2` on a 100,000-delta trace, then `z`, `G`
while the diff builds for seconds: they were dropped, or moved the hidden calls view)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from replay_tui.tui.app import make_app
from replay_tui.tui.widgets import diff_view as diff_module
from replay_tui.tui.widgets.diff_view import DiffView

from .conftest import SIZE, settle, until


def _slow_diff(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """The diff view's build, made to wait until the test lets it go: (started, go). A build
    that slow is made in a worker (the view's first screen is built on the screen's thread
    when it costs a few tens of milliseconds: :meth:`DiffView.at_once`)."""
    real = diff_module.build_diff_model
    started, go = threading.Event(), threading.Event()

    def waiting(trace: Any) -> Any:
        started.set()
        go.wait(10)
        return real(trace)

    monkeypatch.setattr(DiffView, "build", staticmethod(waiting))
    monkeypatch.setattr(DiffView, "at_once", lambda self, trace: False)
    return started, go


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    """6,000 deltas (the views build in a worker: more than a small trace's), canonical
    (identity once): the diff collapses the runs of identical chunks, which `z` expands."""
    head = '{"choices":[{"index":0,"delta":{"tool_calls":['
    first = '{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}'
    rest = '{"index":0,"function":{"arguments":"x"}}'
    tail = ']},"finish_reason":null}]}'
    path = tmp_path / "big.sse"
    path.write_text(
        f"data: {head}{first}{tail}\n\n"
        + f"data: {head}{rest}{tail}\n\n" * 5999
        + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + "data: [DONE]\n\n"
    )
    return path


async def test_keys_typed_while_the_diff_builds_apply_to_it_once_shown(
    monkeypatch: pytest.MonkeyPatch, trace: Path
) -> None:
    started, go = _slow_diff(monkeypatch)
    app = make_app([str(trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        calls = app.calls_view
        calls_cursor = calls.cursor
        await pilot.press("2")
        await until(pilot, started.is_set)
        view = app.diff_view
        assert view.loading and view.model is None
        assert app.screen.focused is view  # the view turned to has the keys, while it builds
        await pilot.press("z", "G")  # typed while the diff is built: in that order
        await pilot.pause()
        assert view.model is None  # (still building: nothing applied yet)
        assert calls.cursor == calls_cursor  # the hidden calls view did not take them
        go.set()
        await settle(app, pilot)
        model = view.model
        assert model is not None and not view.loading
        assert app.focused is view
        assert model.runs and model.expanded == set(range(len(model.runs)))  # z: all expanded
        assert view.cursor == view.virtual_size.height - 1 > 6000  # G: the last row, expanded
        assert "z" in app.screen.active_bindings  # the diff's keys, in the footer too


async def test_the_app_keys_work_at_once_while_a_view_builds(
    monkeypatch: pytest.MonkeyPatch, trace: Path
) -> None:
    """Only the view's own keys wait for it: `d` hides the details at once, and a key that
    leaves the view (`1`) drops what was typed for it."""
    started, go = _slow_diff(monkeypatch)
    app = make_app([str(trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await until(pilot, started.is_set)
        assert app.details.display
        await pilot.press("d")
        await pilot.pause()
        assert not app.details.display  # at once, during the build
        await pilot.press("z", "1")  # z for the diff, then back to the calls
        await pilot.pause()
        assert app.tabs.active == "calls"
        go.set()
        await settle(app, pilot)
        model = app.diff_view.model
        assert model is not None and model.runs
        assert model.expanded == set()  # z was the diff's, typed for a view since left
        assert app.focused is app.calls_view

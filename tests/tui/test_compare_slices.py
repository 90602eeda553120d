"""The compare view's first screen comes before the comparison is made, and its keys work
while the comparison is made between them (a slice at a time on the screen's thread); once
made, the view shows what the whole comparison makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay_tui.cli.traces import resolve_trace
from replay_tui.core.diff import diff_traces
from replay_tui.core.translator import Behavior
from replay_tui.tui.app import make_app
from replay_tui.tui.widgets import compare_pane
from replay_tui.tui.widgets.compare_model import CALL_TITLE, build_compare_model

from .conftest import SIZE, rendered, until


def _capture(path: Path, *, erase: int | None = None) -> str:
    """Three calls of 400 deltas each; ``erase``: that delta of call 1 sends ``id: ""``."""
    lines = []
    for c in range(3):
        for k in range(400):
            call: dict[str, Any] = {"index": c, "function": {"arguments": f"{k},"}}
            if k == 0:
                call.update(id=f"call_{c}", type="function")
                call["function"]["name"] = "read_file"
            elif c == 1 and k == erase:
                call["id"] = ""
            delta = {"tool_calls": [call]}
            chunk = {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            lines.append("data: " + json.dumps(chunk))
    end = {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    lines += ["data: " + json.dumps(end), "data: [DONE]"]
    path.write_text("\n\n".join(lines) + "\n\n")
    return str(path)


@pytest.fixture
def by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison's slices run only when the test says (``_next_steps``), one step each."""
    monkeypatch.setattr(compare_pane.ComparePane, "_later", lambda self, token, delay=0: None)
    monkeypatch.setattr(compare_pane, "STEP_SECONDS", 0.0)


async def test_the_first_screen_comes_first_and_its_keys_work_while_the_rest_is_made(
    tmp_path: Path, by_hand: None
) -> None:
    a = _capture(tmp_path / "a.sse")
    b = _capture(tmp_path / "b.sse", erase=7)
    app = make_app([a, b], compare=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        pane = app.compare_pane
        view = pane.view
        # (drawn a refresh after it is set: on a loaded machine, after a pause or more)
        await until(pilot, lambda: view.pending is not None and view.painted > 0, limit=20)
        # Drawn, the comparison not made: A and B, the sections, each call as analysed.
        assert view.model is None and pane.finishing and view.painted > 0
        header = str(pane.header.render())
        assert "a.sse" in header and "b.sse" in header and "comparing" in header
        text = "\n".join(rendered(view))
        assert "OUTCOME under accept-identity · comparing…" in text
        assert "call 0   A: wire 0 · 400 deltas · line 1   B: wire 0 · 400 deltas" in text
        assert "call 2" in text and "payloads being aligned" in text
        # Keys work meanwhile: the cursor goes down to the next call, b changes the behavior.
        start = view.cursor
        await pilot.press("down", "down")
        assert view.cursor > start and pane.finishing and view.model is None
        await pilot.press("b")
        assert view.behavior is Behavior.ASSIGN_ALWAYS and view.model is None
        # The rest, a slice at a time (the timer's part): the whole comparison's model.
        slices = 0
        while pane.finishing:
            pane._next_steps(pane._token)
            slices += 1
        await pilot.pause()
        assert slices > 10  # (made in many slices, not at once)
        model = view.model
        assert model is not None and view.pending is None
        whole = build_compare_model(
            diff_traces(resolve_trace(a), resolve_trace(b)), Behavior.ASSIGN_ALWAYS
        )
        assert list(model.display) == list(whole.display)
        assert model.changed_rows == whole.changed_rows
        assert whole.changed_rows[0] == whole.changed_rows[2] == 0 < whole.changed_rows[1]
        # The cursor stays with the call it was on.
        assert model.display[view.cursor] == (CALL_TITLE, 1, 0)
        assert "same outcome" not in str(pane.header.render())


async def test_a_key_that_needs_the_comparison_makes_it_at_once(
    tmp_path: Path, by_hand: None
) -> None:
    a = _capture(tmp_path / "a.sse")
    b = _capture(tmp_path / "b.sse", erase=7)
    app = make_app([a, b], compare=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        view = app.compare_pane.view
        # (shown and given the keys: on a loaded machine a pause or more after it is set)
        await until(
            pilot,
            lambda: view.pending is not None and view.painted > 0 and app.focused is view,
            limit=20,
        )
        await pilot.press("n")  # the next difference: the whole comparison, then its first
        assert view.model is not None and not app.compare_pane.finishing
        assert view.model.is_difference(view.model.display[view.cursor])

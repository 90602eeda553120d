"""An event longer than a framing window is framed from one window that holds it whole (it
was gathered by the framer a window at a time, beside a copy of itself: `report` on a 50 MB
line peaked at 3.6 times the file)."""

from __future__ import annotations

import pytest

from replay_tui.core import trace as trace_module


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_an_event_longer_than_a_window_is_one_window(
    ending: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_module, "_WINDOW", 16)
    huge = b"data: " + b"x" * 200 + ending + ending
    body = b"data: a" + ending + ending + huge + b"data: b" + ending + ending
    windows = list(trace_module._windows(body))
    assert b"".join(windows) == body
    assert any(w.endswith(huge) for w in windows)  # whole, ending where the event ends
    assert max(map(len, windows)) < len(huge) + 16  # and no more than a window beyond it

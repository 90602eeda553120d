"""A file named alone whose tool calls come after a long text (issue 27): its first screen
shows the calls' rows, read from the first call on, their lines said "…" until those before
are counted (after the first frame), and becomes the exact whole once the text before them
is decoded. A ``[DONE]`` before the calls, found by that count, takes those rows away."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from replay_tui.browse import judging as browse_judging
from replay_tui.tui import app as app_module
from replay_tui.tui.app import make_app
from replay_tui.tui.loading import EARLY_STEP, FIRST_SLICE
from replay_tui.tui.widgets.calls_view import HEAD

from .conftest import SIZE, held, rendered, settle, until

REASONING = 12_000
TEXT = 12_000
DELTAS = 3_000


def _event(delta: dict[str, Any]) -> str:
    payload = {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return "data: " + json.dumps(payload, separators=(",", ":")) + "\n\n"


def _delta(n: int) -> dict[str, Any]:
    """The call's delta ``n``: the first names it, every fourth erases its id (null)."""
    if n == 0:
        call: dict[str, Any] = {"index": 0, "id": "call_late", "function": {"name": "grep"}}
    elif n % 4 == 0:
        call = {"index": 0, "id": None, "function": {"arguments": "a"}}
    else:
        call = {"index": 0, "function": {"arguments": "a"}}
    return {"tool_calls": [call]}


@pytest.fixture
def late_calls(tmp_path: Path) -> Path:
    """12,000 reasoning pieces, 12,000 text pieces (about 2 MB), then a call of 3,000 deltas."""
    parts = [_event({"reasoning_content": f"thinking {k} "}) for k in range(REASONING)]
    parts += [_event({"content": f"word {k} "}) for k in range(TEXT)]
    parts += [_event(_delta(n)) for n in range(DELTAS)]
    path = tmp_path / "late.sse"
    path.write_text("".join(parts) + "data: [DONE]\n\n")
    before = sum(len(p) for p in parts[: REASONING + TEXT])
    assert before > FIRST_SLICE + EARLY_STEP  # (more than the first screen would decode)
    return path


FIRST_LINE = 2 * (REASONING + TEXT) + 1
"""The line of the call's first delta: every event before it is two lines."""


def _cells(row: str) -> list[str]:
    """A row's cells, from its delta number on (the cursor's and a flag's marks before it
    dropped)."""
    cells = row.split()
    while cells and not cells[0].isdigit():
        cells.pop(0)
    return cells


async def test_the_calls_after_a_long_text_are_on_the_first_screen_then_exact(
    late_calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    go = held(monkeypatch, browse_judging, "walk")  # (the rest is read after the walk)
    count = held(monkeypatch, app_module, "with_lines_counted")
    app = make_app([str(late_calls)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        uncounted = app.current
        assert uncounted is not None and app.partial and uncounted.skipped > 0
        view = app.calls_view
        assert view.row_count > HEAD
        # The lines before the call are not counted yet: every line number says so.
        early = rendered(view, range(0, HEAD + 6))
        assert "call 0" in early[0] and early[0].endswith("from line …")
        assert [_cells(r)[:2] for r in early[HEAD:]] == [[str(n + 1), "…"] for n in range(6)]
        assert "erased" in early[HEAD + 4]  # Δ 5: its id null, flagged (its line unknown)
        got = view.copy_text()
        assert got is not None and got[1].endswith("(line …)")
        said = app.details.query_one("#details-verdicts").render()
        assert "line …" in str(said) and "erased id" in str(said)  # (the flag's line)
        meta = str(app.details.query_one("#details-metadata").render())
        assert re.search(r"lines +not counted yet", meta)
        # The counts of what was read so far say so (the size is not the file's).
        assert re.search(r"size +[\d,]+ bytes so far", meta)
        count.set()
        await until(pilot, lambda: app.current is not uncounted)
        await pilot.pause()
        trace = app.current
        assert trace is not None and app.partial and trace.skipped == uncounted.skipped
        assert trace.lines_known and view.row_count > HEAD
        first = rendered(view, range(0, HEAD + 6))
        assert [_cells(r)[0] for r in first[HEAD:]] == [_cells(r)[0] for r in early[HEAD:]]
        said = app.details.query_one("#details-verdicts").render()
        assert f"line {FIRST_LINE + 8:,}" in str(said)  # (Δ 5's flag, on its line now)
        meta = str(app.details.query_one("#details-metadata").render())
        assert re.search(r"lines +[\d,]+ so far", meta)
        # The call's title: its first line, and no block number yet (the blocks before it
        # are not counted: reasoning and text).
        assert "call 0" in first[0] and f"from line {FIRST_LINE}" in first[0]
        assert "block …" in first[0] and "block 0" not in first[0]
        rows = [_cells(r) for r in first[HEAD:]]
        assert [r[:2] for r in rows] == [
            [str(n + 1), str(FIRST_LINE + 2 * n)] for n in range(6)
        ]  # Δ 1.., on their lines
        assert '"call_late"' in rows[0] and '"grep"' in rows[0]
        assert "erased" in first[HEAD + 4]  # Δ 5: its id null, flagged
        # The payload under the cursor is the one on its line (the first screen's bytes
        # start at the call: its payloads point into them).
        got = view.copy_text()
        assert got is not None
        text, what = got
        delta = int(re.search(r"delta (\d+)", what)[1])  # type: ignore[index]
        assert f"(line {FIRST_LINE + 2 * (delta - 1)})" in what
        assert json.loads(text.removeprefix("data: "))["choices"][0]["delta"] == _delta(delta - 1)
        # The other views wait for the trace read from the start (they show block numbers).
        await pilot.press("2")
        await pilot.pause()
        assert app.diff_view.source is None
        await pilot.press("1")
        go.set()
        await settle(app, pilot, limit=60)
        whole = app.current
        assert whole is not None and not app.partial and whole.skipped == 0
        assert whole.analysis.deltas == DELTAS and whole.closed
        meta = str(app.details.query_one("#details-metadata").render())
        assert "so far" not in meta
        assert re.search(rf"size +{late_calls.stat().st_size:,} bytes\n", meta)
        assert re.search(rf"lines +{2 * (REASONING + TEXT + DELTAS) + 2:,}\n", meta)
        # The same rows, and now the block: reasoning is block 0, text block 1, the call 2.
        last = rendered(view, range(0, HEAD + 6))
        assert re.search(r"block 2 · 3,000 deltas from line " + str(FIRST_LINE), last[0])
        assert [_cells(r)[:3] for r in last[HEAD:]] == [r[:3] for r in rows]
        assert [r.split("│")[0].split() for r in last[HEAD:]] == [
            r.split("│")[0].split() for r in first[HEAD:]
        ]
        await pilot.press("2")
        await settle(app, pilot)
        assert app.diff_view.source is whole


async def test_a_done_before_the_calls_takes_their_rows_away_once_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text, a ``[DONE]``, then calls: the calls are not replayed. The first screen, read
    from the first call on before the bytes before it were looked at, shows their rows (their
    lines "…"); the count finds the ``[DONE]`` and the capture read from its start takes
    their place: no rows, as in the whole trace."""
    parts = [_event({"content": f"word {k} "}) for k in range(REASONING + TEXT)]
    parts.append("data: [DONE]\n\n")
    parts += [_event(_delta(n)) for n in range(DELTAS)]
    path = tmp_path / "done-first.sse"
    path.write_text("".join(parts))
    go = held(monkeypatch, browse_judging, "walk")
    count = held(monkeypatch, app_module, "with_lines_counted")
    app = make_app([str(path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = app.current
        assert first is not None and first.skipped > 0 and not first.lines_known
        assert app.calls_view.row_count > HEAD
        count.set()
        await until(pilot, lambda: app.current is not first)
        await pilot.pause()
        head = app.current
        assert head is not None and app.partial and not head.skipped and head.lines_known
        assert head.analysis.deltas == 0 and not app.calls_view.row_count > HEAD
        go.set()
        await settle(app, pilot, limit=60)
        whole = app.current
        assert whole is not None and not app.partial and whole.analysis.deltas == 0

"""A file named alone (issue 27): its first rows before anything else, and, while it is being
written, each append read on from where the loader stopped, not from the start."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from replay_tui.browse import judging as browse_judging
from replay_tui.tui.app import make_app
from replay_tui.tui.loading import FIRST_SLICE
from replay_tui.tui.widgets.calls_view import HEAD
from tests.core.helpers import call, sse, tools

from .conftest import SIZE, held, settle


def _growing(path: Path, deltas: int) -> Path:
    """One call of ``deltas`` deltas, the capture still being written (no ``[DONE]``)."""
    first = tools(call(0, id="call_0", name="f", arguments=""))
    path.write_bytes(sse(first, *[tools(call(0, arguments="x"))] * (deltas - 1), done=False))
    assert path.stat().st_size > FIRST_SLICE  # (read in steps: a first slice, then the rest)
    return path


async def test_a_file_named_alone_shows_its_rows_before_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _growing(tmp_path / "g.sse", 3000)
    go = held(monkeypatch, browse_judging, "walk")
    app = make_app([str(path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # The walk has not run: the rows on screen were read before it.
        assert not app.discovered
        assert app.current is not None and app.partial
        assert app.calls_view.row_count > HEAD and not app.trace_list.display
        go.set()
        await settle(app, pilot)
        assert not app.partial and app.current.analysis.deltas == 3000
        assert app.current.address in app.store.judgements  # judged as it was read


async def test_an_append_to_the_open_trace_is_read_on_from_the_loader(tmp_path: Path) -> None:
    path = _growing(tmp_path / "g.sse", 3000)
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.live is not None
        address = app.current.address
        follower = app.live.folder._live[address]  # the loader's builder, handed over
        assert follower.offset == path.stat().st_size
        for n in (3001, 3002):
            with path.open("ab") as fh:
                fh.write(sse(tools(call(0, arguments="y")), done=False))
            deadline = time.monotonic() + 20
            while (model := app.calls_view.model) is None or model.trace.analysis.deltas < n:
                assert time.monotonic() < deadline, "the append never reached the calls view"
                await pilot.pause(0.02)
            assert app.live.folder._live[address] is follower  # read on, not again
            assert follower.offset == path.stat().st_size


async def _appended(app: Any, pilot: Any, path: Path, view: Any) -> None:
    """One delta appended to ``path``, and ``view`` showing the trace with it."""
    deltas = view.model.trace.analysis.deltas
    with path.open("ab") as fh:
        fh.write(sse(tools(call(0, arguments="y")), done=False))
    deadline = time.monotonic() + 20
    while view.model is None or view.model.trace.analysis.deltas <= deltas:
        assert time.monotonic() < deadline, "the append never reached the view"
        await pilot.pause(0.02)
    await settle(app, pilot)


def _on_the_last_row(view: Any) -> bool:
    return view.cursor >= 0 and not any(
        view.is_selectable(k) for k in range(view.cursor + 1, view.row_count)
    )


@pytest.mark.parametrize("tab", ["1", "2", "3"])
async def test_the_end_typed_while_the_capture_grows_stays_the_end(
    tmp_path: Path, tab: str
) -> None:
    """``G`` typed while the capture is still read (or written on) goes to its end, not to
    the last row read so far, where the cursor stayed (a new user's walk: diff at line 527 of
    200,005). A move of its own after it and the cursor stays where it was moved."""
    path = _growing(tmp_path / "g.sse", 3000)
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press(tab)
        view = {"1": app.calls_view, "2": app.diff_view, "3": app.raw_view}[tab]
        await settle(app, pilot)
        if tab == "2":
            await pilot.press("z")  # (its chunks are alike: one folded run, unfolded)
        await pilot.press("G")
        for _ in range(2):
            assert _on_the_last_row(view)
            await _appended(app, pilot, path, view)
            assert _on_the_last_row(view)
        await pilot.press("up")  # a move of the user's own
        moved = view.cursor
        assert not _on_the_last_row(view)
        await _appended(app, pilot, path, view)
        assert view.cursor == moved

"""A file named alone (issue 27): its first rows before anything else, and, while it is being
written, each append read on from where the loader stopped, not from the start."""

from __future__ import annotations

import time
from pathlib import Path

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

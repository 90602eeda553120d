"""Live reload with real files: written into a folder while the app runs headless (README, Live reload)."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from replay_tui.browse.judging import FolderJudging
from replay_tui.core.trace import Badge
from replay_tui.live.watch import FileChange, watch_traces
from replay_tui.tui import live_reload
from replay_tui.tui.app import ReplayApp, make_app

from .conftest import SIZE, TRACES, settle, until

CLEAN = TRACES / "openai" / "gpt-4.1-text-then-call.sse"
ERASING = TRACES / "dashscope" / "qwen3-max-id-empty.sse"


def badge(app: ReplayApp, address: str) -> Badge | None:
    summary = app.store.judgements.get(address)
    return summary.badge if summary is not None else None


def watching(folder: Path) -> ReplayApp:
    return make_app([str(folder)], watch=True)


async def test_a_new_file_appears_and_a_deleted_one_disappears(tmp_path: Path) -> None:
    shutil.copy(CLEAN, tmp_path / "a.sse")
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.trace_list.addresses == ["a.sse"]
        shutil.copy(ERASING, tmp_path / "b.sse")
        await until(pilot, lambda: badge(app, "b.sse") is Badge.ERASING)
        assert app.trace_list.addresses == ["a.sse", "b.sse"]
        (tmp_path / "a.sse").unlink()
        await until(pilot, lambda: app.trace_list.addresses == ["b.sse"])
        assert "last change" in str(app.counts_bar.query_one("#watch-state").render())


async def test_a_trace_emptied_while_open_is_listed_as_not_a_trace_and_back(
    tmp_path: Path,
) -> None:
    """Emptied, a trace's file is a file that holds none: its row stays and says so (the
    header counted "1 skipped" while the list had lost the row), the views say why, and
    written again it is a trace again: the one written, not the one it held before (the
    views went back to the old capture, its flag and its size)."""
    shutil.copy(CLEAN, tmp_path / "a.sse")
    shutil.copy(ERASING, tmp_path / "b.sse")
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("b.sse")
        await settle(app, pilot)
        listing = app.trace_list.listing
        (tmp_path / "b.sse").write_bytes(b"")
        await until(pilot, lambda: "b.sse" in listing.skipped)
        await pilot.pause()
        assert listing.row_of("b.sse") is not None  # its row is there
        assert listing.skipped["b.sse"].reason == "empty file"
        assert app.not_a_trace is not None and app.not_a_trace.path == "b.sse"
        assert "empty file" in str(app.trace_header.render())
        shutil.copy(CLEAN, tmp_path / "b.sse")
        await until(pilot, lambda: badge(app, "b.sse") is Badge.CLEAN)
        await settle(app, pilot)
        assert listing.visible() == ["a.sse", "b.sse"] and not listing.skipped
        assert app.not_a_trace is None
        current = app.current
        assert current is not None and current.address == "b.sse"
        assert not current.analysis.flags
        assert ("size", f"{CLEAN.stat().st_size:,} bytes") in current.meta
        assert app.calls_view.model is not None and app.calls_view.model.trace is current
        header = str(app.trace_header.render())
        assert "clean" in header and "erasing" not in header, header
        # The raw view marks the lines of the delta the calls select now (they were the
        # old capture's flagged line).
        found = app.calls_view.selected_delta()
        assert found is not None
        payload = current.payloads[found[1].position]
        assert app.raw_view.selected == (payload.line, payload.end_line)


async def test_a_modified_trace_is_rejudged_and_its_open_views_refresh(tmp_path: Path) -> None:
    path = tmp_path / "a.sse"
    shutil.copy(CLEAN, path)
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "a.sse"
        shutil.copy(ERASING, path)
        await until(pilot, lambda: app.current is not None and bool(app.current.analysis.flags))
        assert badge(app, "a.sse") is Badge.ERASING
        assert app.calls_view.model is not None and app.calls_view.model.trace is app.current


async def test_a_trace_rewritten_under_the_cursor_puts_it_on_a_delta(tmp_path: Path) -> None:
    """Rewritten to a text-only capture, then a call appended: the cursor was kept by its row
    number, and drew ``▶`` over the text's count and then over the call's column headings;
    it goes where a fresh open puts it (no row without calls, the first delta with one)."""
    path = tmp_path / "r.sse"
    shutil.copy(ERASING, path)
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = app.calls_view
        assert view.cursor > 0
        path.write_text('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n')
        await until(pilot, lambda: app.current is not None and not app.current.analysis.calls)
        assert view.cursor == -1
        call = '{"index":0,"id":"call_x","function":{"name":"f","arguments":"{}"}}'
        with path.open("a") as fh:
            fh.write('data: {"choices":[{"index":0,"delta":{"tool_calls":[' + call + "]}}]}\n\n")
        await until(pilot, lambda: app.current is not None and bool(app.current.analysis.calls))
        await pilot.pause()
        assert view.model is not None
        found = view.model.delta_at(view.cursor)
        assert found is not None, view.cursor


async def test_a_har_entry_whose_body_was_lost_stays_listed_as_skipped(tmp_path: Path) -> None:
    """An entry the exporter saved no body for is listed as not a trace, with why; the
    watcher's catch-up took ``x.har#2`` for a file that had been deleted, and the row went
    (the header said "last change" though nothing had)."""
    import json

    def entry(text: str | None) -> dict[str, Any]:
        content: dict[str, Any] = {"mimeType": "text/event-stream"}
        if text is not None:
            content["text"] = text
        return {
            "request": {"method": "POST", "url": "https://gw/v1"},
            "response": {"content": content},
        }

    har = {"log": {"entries": [entry(ERASING.read_text()), entry(None)]}}
    (tmp_path / "x.har").write_text(json.dumps(har))
    hour_ago = time.time() - 3600  # (not a capture still being written: nothing changes)
    os.utime(tmp_path / "x.har", (hour_ago, hour_ago))
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.5)  # (the watcher's catch-up, after the list)
        listing = app.trace_list.listing
        assert listing.items == ["x.har#1", "x.har#2"]
        assert (
            listing.skipped["x.har#2"].reason
            == "the exporter saved no response body for this stream"
        )
        assert badge(app, "x.har#1") is Badge.ERASING
        assert "last change" not in str(app.counts_bar.query_one("#watch-state").render())


async def test_a_har_entry_named_is_not_a_root_deleted(tmp_path: Path) -> None:
    """``replay-tui a.sse x.har#1``: the path ``x.har#1`` exists nowhere, and the watcher
    took it for a root deleted: the header said "last change" at once, nothing changed."""
    import json

    content = {"mimeType": "text/event-stream", "text": ERASING.read_text()}
    har = {"log": {"entries": [{"request": {}, "response": {"content": content}}]}}
    (tmp_path / "x.har").write_text(json.dumps(har))
    shutil.copy(CLEAN, tmp_path / "a.sse")
    hour_ago = time.time() - 3600
    for name in ("x.har", "a.sse"):
        os.utime(tmp_path / name, (hour_ago, hour_ago))
    app = make_app([str(tmp_path / "a.sse"), f"{tmp_path / 'x.har'}#1"], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.5)  # (the watcher's catch-up)
        assert len(app.trace_list.addresses) == 2
        assert str(app.counts_bar.query_one("#watch-state").render()) == "● watching"


async def test_a_capture_appended_in_pieces_is_in_progress_then_judged(tmp_path: Path) -> None:
    body = ERASING.read_bytes()
    done = body.index(b"data: [DONE]")
    path = tmp_path / "live.sse"
    path.write_bytes(body[:40])
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert badge(app, "live.sse") is Badge.IN_PROGRESS
        for cut in range(40, done, 300):
            with path.open("ab") as fh:
                fh.write(body[cut : min(cut + 300, done)])
            await pilot.pause(0.02)
        await until(
            pilot, lambda: app.current is not None and app.current.payloads[-1].end >= done - 2
        )
        assert badge(app, "live.sse") is Badge.IN_PROGRESS  # no [DONE] yet: not broken
        with path.open("ab") as fh:
            fh.write(body[done:])
        await until(pilot, lambda: badge(app, "live.sse") is Badge.ERASING)


async def test_save_by_rename_and_truncate_and_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "a.sse"
    shutil.copy(ERASING, path)
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tmp = tmp_path / ".a.sse.swp"
        shutil.copy(CLEAN, tmp)
        os.replace(tmp, path)  # how editors and most tools save
        await until(pilot, lambda: badge(app, "a.sse") is Badge.CLEAN)
        with path.open("r+b") as fh:  # rewritten in place, shorter
            fh.truncate(0)
            fh.write(ERASING.read_bytes())
        await until(pilot, lambda: badge(app, "a.sse") is Badge.ERASING)
        assert app.trace_list.addresses == ["a.sse"]


async def test_a_burst_of_a_hundred_files(tmp_path: Path) -> None:
    shutil.copy(CLEAN, tmp_path / "a.sse")
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        data = ERASING.read_bytes()
        for i in range(100):
            (tmp_path / f"burst-{i:03}.sse").write_bytes(data)
        await until(pilot, lambda: len(app.store.judgements) == 101, limit=20)
        assert all(badge(app, f"burst-{i:03}.sse") is Badge.ERASING for i in range(100))


async def test_the_selection_is_kept_while_other_files_change(tmp_path: Path) -> None:
    for name in ("a.sse", "b.sse", "c.sse"):
        shutil.copy(CLEAN, tmp_path / name)
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("b.sse")
        await settle(app, pilot)
        shutil.copy(ERASING, tmp_path / "aa.sse")
        (tmp_path / "c.sse").unlink()
        await until(pilot, lambda: app.trace_list.addresses == ["a.sse", "aa.sse", "b.sse"])
        assert app.trace_list.selected == "b.sse"
        assert app.current is not None and app.current.address == "b.sse"


async def test_a_capture_written_before_the_watch_is_in_place_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gateway writing captures as the app starts: one lands after the list was walked and
    before watchfiles' watches are in place, where no watcher reports it."""
    shutil.copy(CLEAN, tmp_path / "a.sse")
    real = live_reload.watch_traces

    def late(*args: Any, **options: Any) -> AsyncIterator[list[FileChange]]:
        shutil.copy(ERASING, tmp_path / "b.sse")  # listed: no; watched: not yet
        return real(*args, **options)

    monkeypatch.setattr(live_reload, "watch_traces", late)
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: badge(app, "b.sse") is Badge.ERASING)
        assert app.trace_list.addresses == ["a.sse", "b.sse"]


async def test_a_capture_changed_while_the_folder_is_judged_is_judged_again_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher starts once the list is judged (the pool's processes' reads of the folder
    are not watched); what was written meanwhile is found then: a capture judged already and
    rewritten, and a new one."""
    for n in range(100):  # more than the pool's least: judged in its processes
        shutil.copy(CLEAN, tmp_path / f"c{n:03d}.sse")
    real = FolderJudging.judge
    watched_while_judging: list[bool] = []

    def judge(self: FolderJudging, *args: Any, **options: Any) -> Iterator[Any]:
        for n, judged in enumerate(real(self, *args, **options)):
            yield judged
            if n == 0:  # c000.sse is judged (clean); the rest is being judged
                watched_while_judging.append(any(w.group == "watch" for w in app.workers))
                shutil.copy(ERASING, tmp_path / "c000.sse")
                shutil.copy(ERASING, tmp_path / "new.sse")

    monkeypatch.setattr(FolderJudging, "judge", judge)
    app = make_app([str(tmp_path)], watch=True, jobs=2)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: badge(app, "new.sse") is Badge.ERASING)
        await until(pilot, lambda: badge(app, "c000.sse") is Badge.ERASING)
        assert watched_while_judging == [False]
        assert [w for w in app.workers if w.group == "watch"]  # watching now
        assert len(app.trace_list.addresses) == 101
        assert badge(app, "c001.sse") is Badge.CLEAN


async def test_no_watch_is_a_frozen_snapshot(tmp_path: Path) -> None:
    shutil.copy(CLEAN, tmp_path / "a.sse")
    app = make_app([str(tmp_path)], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "not watching" in str(app.counts_bar.query_one("#watch-state").render())
        assert app.live is None and not [w for w in app.workers if w.group == "watch"]
        # A watcher of the test's own (the one the app uses when it watches) sees b.sse come:
        # the change has happened, and the app, not watching, still shows only a.sse.
        stop = asyncio.Event()
        changes = watch_traces([tmp_path], stop)
        seen = asyncio.ensure_future(anext(changes))
        await asyncio.sleep(0)  # its first step sets the watches up, before it awaits a change
        shutil.copy(ERASING, tmp_path / "b.sse")
        batch = await asyncio.wait_for(seen, 10)
        stop.set()
        await changes.aclose()
        assert any(c.path.name == "b.sse" for c in batch)
        await settle(app, pilot)
        assert app.trace_list.addresses == ["a.sse"]


async def test_a_capture_still_being_written_opens_on_its_first_flag_once_it_has_one(
    tmp_path: Path,
) -> None:
    """record --tui's first capture: opened while its first events were written (no flag
    yet), it stayed on its first row once the erasing delta arrived."""
    lines = ERASING.read_bytes().split(b"\n\n")
    head, rest = b"\n\n".join(lines[:1]) + b"\n\n", b"\n\n".join(lines[1:])
    app = watching(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        (tmp_path / "live.sse").write_bytes(head)
        await until(pilot, lambda: app.current is not None and app.current.address == "live.sse")
        assert app.current is not None and app.current.in_progress
        assert not app.current.analysis.flags
        with (tmp_path / "live.sse").open("ab") as out:
            out.write(rest)
        await until(pilot, lambda: badge(app, "live.sse") is Badge.ERASING)
        await settle(app, pilot)
        view, model = app.calls_view, app.calls_view.model
        assert model is not None and model.trace.analysis.flags
        assert view.cursor == model.flag_row(model.trace.analysis.flags[0])

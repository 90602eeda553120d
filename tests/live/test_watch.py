"""watch_traces on real files: what reaches the caller, and how fast."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from replay_tui.live.watch import FileChange, Kind, watch_traces


async def next_batch(it: AsyncIterator[list[FileChange]], timeout: float = 5.0) -> list[FileChange]:
    return await asyncio.wait_for(it.__anext__(), timeout)


async def watching(
    root: Path, act: Callable[[], None], want: Callable[[list[FileChange]], bool]
) -> tuple[list[list[FileChange]], float]:
    """Start watching, act, and collect batches until ``want`` holds of what was seen."""
    stop = asyncio.Event()
    it = watch_traces([root], stop).__aiter__()
    seen: list[list[FileChange]] = []
    task = asyncio.ensure_future(next_batch(it))
    await asyncio.sleep(0.2)  # let the watcher start
    start = time.monotonic()
    act()
    try:
        while True:
            batch = await task
            seen.append(batch)
            if want([c for b in seen for c in b]):
                return seen, time.monotonic() - start
            task = asyncio.ensure_future(next_batch(it))
    finally:
        stop.set()
        await it.aclose()  # type: ignore[attr-defined]


async def test_a_new_file_is_reported_quickly(tmp_path: Path) -> None:
    seen, elapsed = await watching(
        tmp_path,
        lambda: (tmp_path / "a.sse").write_bytes(b"data: {}\n\n"),
        lambda cs: any(c.path.name == "a.sse" for c in cs),
    )
    assert {c.path.name for b in seen for c in b} == {"a.sse"}
    assert elapsed < 2.0  # the budget (300 ms) is measured in bench/; this only bounds it


async def test_ready_says_when_no_change_is_missed_any_more(tmp_path: Path) -> None:
    """A file written in the ``ready`` call itself is reported: the watches were in place."""
    stop = asyncio.Event()
    calls: list[float] = []

    def ready() -> None:
        calls.append(time.monotonic())
        (tmp_path / "a.sse").write_bytes(b"data: {}\n\n")

    it = watch_traces([tmp_path], stop, ready=ready).__aiter__()
    try:
        batch = await next_batch(it)
    finally:
        stop.set()
        await it.aclose()  # type: ignore[attr-defined]
    assert [(c.kind, c.path.name) for c in batch] == [(Kind.ADDED, "a.sse")]
    assert len(calls) == 1


async def test_hidden_and_temporary_files_are_filtered_and_renames_land(tmp_path: Path) -> None:
    def act() -> None:
        (tmp_path / ".x.sse.swp").write_bytes(b"x")
        (tmp_path / "y.sse.tmp").write_bytes(b"data: {}\n\n")
        os.replace(tmp_path / "y.sse.tmp", tmp_path / "y.sse")
        (tmp_path / "z.sse.meta.json").write_bytes(b"{}")

    seen, _ = await watching(tmp_path, act, lambda cs: any(c.path.name == "y.sse" for c in cs))
    names = {c.path.name for b in seen for c in b}
    assert names == {"y.sse"}


async def test_a_burst_collapses_into_few_batches(tmp_path: Path) -> None:
    def act() -> None:
        for i in range(100):
            (tmp_path / f"f{i:03}.sse").write_bytes(b"data: {}\n\n")

    seen, _ = await watching(tmp_path, act, lambda cs: len({c.path for c in cs}) == 100)
    assert len(seen) < 20
    assert all(c.kind in (Kind.ADDED, Kind.MODIFIED) for b in seen for c in b)


async def test_deletes_are_reported(tmp_path: Path) -> None:
    victim = tmp_path / "gone.sse"
    victim.write_bytes(b"data: {}\n\n")
    seen, _ = await watching(
        tmp_path, victim.unlink, lambda cs: any(c.kind is Kind.DELETED for c in cs)
    )
    assert FileChange(Kind.DELETED, victim) in [c for b in seen for c in b]


async def test_a_deleted_and_recreated_root_is_survived(tmp_path: Path) -> None:
    root = tmp_path / "traces"
    root.mkdir()
    stop = asyncio.Event()
    it = watch_traces([root], stop).__aiter__()
    try:
        task = asyncio.ensure_future(next_batch(it, 10))
        await asyncio.sleep(0.2)
        shutil.rmtree(root)
        await asyncio.sleep(0.5)
        root.mkdir()
        (root / "back.sse").write_bytes(b"data: {}\n\n")
        names: set[str] = set()
        deadline = time.monotonic() + 10
        while "back.sse" not in names and "traces" not in names and time.monotonic() < deadline:
            batch = await task
            names |= {c.path.name for c in batch}
            task = asyncio.ensure_future(next_batch(it, 10))
        # Either the file itself or its re-created folder (to be rescanned) is reported.
        assert "back.sse" in names or "traces" in names
        task.cancel()
    finally:
        stop.set()
        await it.aclose()  # type: ignore[attr-defined]


def test_each_kind_of_watchfiles_change_is_read_as_what_it_is() -> None:
    """The changes are told apart by watchfiles.Change's values (watchfiles is imported only
    when watching starts): each member reads as its own kind, a delete then an add of one
    path as a modification."""
    import watchfiles

    from replay_tui.live.watch import _collapse

    for change, kind in (
        (watchfiles.Change.added, Kind.ADDED),
        (watchfiles.Change.modified, Kind.MODIFIED),
        (watchfiles.Change.deleted, Kind.DELETED),
    ):
        assert _collapse({(change, "/t/a.sse")}) == [FileChange(kind, Path("/t/a.sse"))]
    both = {(watchfiles.Change.deleted, "/t/a.sse"), (watchfiles.Change.added, "/t/a.sse")}
    assert _collapse(both) == [FileChange(Kind.MODIFIED, Path("/t/a.sse"))]

"""LiveFolder: what a batch of file changes means for the list (README, Live reload)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.core.discovery import Candidate, Skipped, walk
from replay_tui.core.trace import Badge
from replay_tui.live import folder as folder_module
from replay_tui.live.folder import LiveFolder, _abspaths
from replay_tui.live.watch import FileChange, Kind
from tests.core.helpers import call, chunk, sse, tools, write

CLEAN = sse(chunk({"content": "hi"}, finish="stop"))
ERASING = sse(
    tools(call(0, id="c", name="f", arguments="")),
    tools(call(0, id="", arguments="{}")),
    chunk(finish="tool_calls"),
)
GROWING = sse(tools(call(0, id="c", name="f", arguments="")), done=False)


def folder_with(tmp_path: Path, **files: bytes) -> LiveFolder:
    """A scanned, judged folder; ``sub__b_sse=...`` writes ``sub/b.sse``."""
    for name, data in files.items():
        stem, ext = name.replace("__", "/").rsplit("_", 1)
        write(tmp_path, f"{stem}.{ext}", data)
    live = LiveFolder([str(tmp_path)])
    found = live.scan()
    for source in found.sources:
        live.load(source)
    return live


def test_a_new_file_is_added_with_its_address(tmp_path: Path) -> None:
    live = folder_with(tmp_path, a_sse=CLEAN)
    path = write(tmp_path, "sub/b.sse", ERASING)
    upd = live.apply([FileChange(Kind.ADDED, path)])
    assert [t.address for t in upd.added] == ["sub/b.sse"]
    assert upd.added[0].badge is Badge.ERASING


def test_appends_update_the_trace_incrementally(tmp_path: Path) -> None:
    path = write(tmp_path, "g.sse", GROWING)
    live = LiveFolder([str(tmp_path)])
    (source,) = live.scan().sources
    assert live.load(source).badge is Badge.IN_PROGRESS
    with path.open("ab") as fh:
        fh.write(sse(tools(call(0, id="", arguments="{}")), chunk(finish="tool_calls")))
    upd = live.apply([FileChange(Kind.MODIFIED, path)])
    assert [t.badge for t in upd.updated] == [Badge.ERASING]


def test_a_deleted_file_is_removed_and_a_deleted_folder_removes_all_under_it(
    tmp_path: Path,
) -> None:
    live = folder_with(
        tmp_path, a_sse=CLEAN, sub__b_sse=ERASING, sub__c_sse=CLEAN, sub__junk_json=b"{}"
    )
    (tmp_path / "a.sse").unlink()
    assert live.apply([FileChange(Kind.DELETED, tmp_path / "a.sse")]).removed == ["a.sse"]
    for p in (tmp_path / "sub").iterdir():
        p.unlink()
    (tmp_path / "sub").rmdir()
    upd = live.apply([FileChange(Kind.DELETED, tmp_path / "sub")])
    assert sorted(upd.removed) == ["sub/b.sse", "sub/c.sse"]
    assert upd.unskipped == ["sub/junk.json"]


def test_a_file_that_stops_being_a_trace_moves_to_skipped_and_back(tmp_path: Path) -> None:
    live = folder_with(tmp_path, a_sse=CLEAN)
    path = tmp_path / "a.sse"
    path.write_bytes(b"")
    upd = live.apply([FileChange(Kind.MODIFIED, path)])
    assert upd.removed == ["a.sse"] and [s.reason for s in upd.skipped] == ["empty file"]
    path.write_bytes(CLEAN)
    upd = live.apply([FileChange(Kind.MODIFIED, path)])
    assert [t.address for t in upd.added] == ["a.sse"] and upd.unskipped == ["a.sse"]


def test_har_entries_follow_their_file(tmp_path: Path) -> None:
    def har(*bodies: bytes) -> bytes:
        entries = [
            {
                "request": {"method": "POST", "url": "u"},
                "response": {
                    "status": 200,
                    "content": {"mimeType": "text/event-stream", "text": b.decode()},
                },
            }
            for b in bodies
        ]
        return json.dumps({"log": {"entries": entries}}).encode()

    live = folder_with(tmp_path, x_har=har(CLEAN, CLEAN))
    path = tmp_path / "x.har"
    path.write_bytes(har(ERASING))
    upd = live.apply([FileChange(Kind.MODIFIED, path)])
    assert upd.removed == ["x.har#2"]
    assert [(t.address, t.badge) for t in upd.updated] == [("x.har#1", Badge.ERASING)]


def test_a_recreated_folder_is_rescanned(tmp_path: Path) -> None:
    root = tmp_path / "traces"
    live = folder_with(root, a_sse=CLEAN)
    (root / "a.sse").unlink()
    root.rmdir()
    assert live.apply([FileChange(Kind.DELETED, root)]).removed == ["a.sse"]
    write(root, "b.sse", ERASING)
    upd = live.apply([FileChange(Kind.ADDED, root)])
    assert [t.address for t in upd.added] == ["b.sse"]


def test_a_file_that_vanishes_mid_read_is_reported_once(tmp_path: Path) -> None:
    live = folder_with(tmp_path, a_sse=GROWING)
    (tmp_path / "a.sse").unlink()
    os.symlink(tmp_path / "nowhere", tmp_path / "a.sse")  # present in the listing, unreadable
    upd = live.apply([FileChange(Kind.MODIFIED, tmp_path / "a.sse")])
    assert upd.removed == ["a.sse"]
    assert [s.reason for s in upd.skipped] == ["dangling symlink (its target does not exist)"]


def test_settle_judges_quiet_streams(tmp_path: Path) -> None:
    path = write(tmp_path, "g.sse", GROWING)
    live = LiveFolder([str(tmp_path)], quiet=0.0)
    (source,) = live.scan().sources
    os.utime(path)
    live.quiet = 3600.0
    assert live.load(source).badge is Badge.IN_PROGRESS
    assert not live.settle()
    live.quiet = 0.0
    for follower in live._live.values():
        follower.quiet = 0.0
    upd = live.settle()
    assert [t.verdicts["accept-identity"] for t in upd.updated] == ["stream-closed"]


def test_a_folder_opened_after_its_captures_were_written_shows_none_in_progress(
    tmp_path: Path,
) -> None:
    # A fresh clone: files written a moment ago, one without [DONE] (a truncated capture).
    write(tmp_path, "cut.sse", sse(chunk({"content": "hi"}), done=False))
    write(tmp_path, "still.sse", sse(chunk({"content": "hi"}), done=False))
    side = {"complete": False, "request": {"method": "POST", "url": "/v1/chat/completions"}}
    (tmp_path / "still.sse.meta.json").write_text(json.dumps(side))
    live = LiveFolder([str(tmp_path)])
    live.opened_at = time.time() + 5  # opened well after the files were written
    found = live.scan()
    badges = {s.address: live.load(s).badge for s in found.sources}
    # Judged as it stands; only the one its recorder says is still recording stays open.
    assert badges == {"cut.sse": Badge.BROKEN, "still.sse": Badge.IN_PROGRESS}


def test_catch_up_finds_what_changed_before_the_watch_was_in_place(tmp_path: Path) -> None:
    """Listed from a walk as the app does; then, before any watch: a capture written, one
    deleted, one rewritten, a non-trace deleted. The second walk says each once, and nothing
    of the file left alone."""
    an_hour_ago = time.time() - 3600
    for name, data in {"kept.sse": CLEAN, "gone.sse": CLEAN, "rewritten.sse": CLEAN}.items():
        os.utime(write(tmp_path, name, data), (an_hour_ago, an_hour_ago))
    notes = write(tmp_path, "notes.txt", b"not a trace\n")
    live = LiveFolder([str(tmp_path)])
    live.opened_at = time.time()
    files = [c for c in walk([str(tmp_path)]) if isinstance(c, Candidate)]
    live.track(files, [])
    live.learn("notes.txt", [], [Skipped("notes.txt", "not a trace")])
    write(tmp_path, "new.sse", ERASING)
    (tmp_path / "gone.sse").unlink()
    write(tmp_path, "rewritten.sse", ERASING)
    notes.unlink()
    upd = live.catch_up()
    assert [(t.address, t.badge) for t in upd.added] == [("new.sse", Badge.ERASING)]
    assert [(t.address, t.badge) for t in upd.updated] == [("rewritten.sse", Badge.ERASING)]
    assert upd.removed == ["gone.sse"]
    assert upd.unskipped == ["notes.txt"]
    assert not upd.skipped and not upd.renamed and not upd.problems
    assert not live.catch_up()  # nothing changed since: nothing to say


def test_catch_up_keeps_what_the_watcher_added_while_it_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk goes past, then a capture is written and the watcher adds it: the walk did
    not see it, and it is not gone."""
    write(tmp_path, "a.sse", CLEAN)
    live = LiveFolder([str(tmp_path)])
    live.track([c for c in walk([str(tmp_path)]) if isinstance(c, Candidate)], [])
    real = folder_module.walk

    def crossed(*args: Any, **options: Any) -> Iterator[Candidate | Skipped]:
        listed = list(real(*args, **options))
        added = live.apply([FileChange(Kind.ADDED, write(tmp_path, "b.sse", ERASING))])
        assert [t.address for t in added.added] == ["b.sse"]
        return iter(listed)

    monkeypatch.setattr(folder_module, "walk", crossed)
    upd = live.catch_up()
    assert not upd.removed and not upd.added
    assert "b.sse" in live.known


def test_a_renamed_capture_moves_instead_of_dying(tmp_path: Path) -> None:
    write(tmp_path, "a.sse", sse(tools(call(0, id="c", name="f")), chunk(finish="tool_calls")))
    live = LiveFolder([str(tmp_path)])
    for s in live.scan().sources:
        live.load(s)
    os.rename(tmp_path / "a.sse", tmp_path / "b.sse")
    upd = live.apply(
        [FileChange(Kind.DELETED, tmp_path / "a.sse"), FileChange(Kind.ADDED, tmp_path / "b.sse")]
    )
    assert upd.removed == [] and upd.added == []
    assert [(old, t.address) for old, t in upd.renamed] == [("a.sse", "b.sse")]
    # A different file arriving as another is deleted is not a rename.
    write(tmp_path, "c.sse", sse(chunk({"content": "x"}, finish="stop")))
    (tmp_path / "b.sse").unlink()
    upd = live.apply(
        [FileChange(Kind.DELETED, tmp_path / "b.sse"), FileChange(Kind.ADDED, tmp_path / "c.sse")]
    )
    assert upd.removed == ["b.sse"] and [t.address for t in upd.added] == ["c.sse"]
    assert upd.renamed == []


_NAME = st.text(st.sampled_from("ab.-_ é"), min_size=1, max_size=4)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "/", "./", "../", "/tmp/", "rel/../x/", "a//b/", "/."]),
            st.lists(_NAME, max_size=3),
            _NAME,
        ),
        max_size=8,
    )
)
def test_files_absolute_paths_are_what_abspath_says(
    parts: list[tuple[str, list[str], str]],
) -> None:
    paths = [start + "".join(f"{d}/" for d in dirs) + name for start, dirs, name in parts]
    files = [Candidate(p, p) for p in paths]
    assert list(_abspaths(files)) == [os.path.abspath(p) for p in paths]


def test_a_deleted_root_takes_its_skipped_files_with_it(tmp_path: Path) -> None:
    """The root's own deletion left README.md and a request body listed as skipped: their
    path was worked out from the root, which was no longer a folder."""
    root = tmp_path / "root"
    live = folder_with(root, a_sse=ERASING, README_md=b"hi\n", req_json=b"{}")
    assert sorted(live.skipped) == ["README.md", "req.json"]
    gone = sorted(root.rglob("*"))
    for path in gone:
        path.unlink()
    root.rmdir()
    upd = live.apply([FileChange(Kind.DELETED, p) for p in [*gone, root]])
    assert sorted(upd.unskipped) == ["README.md", "req.json"]
    assert upd.removed == ["a.sse"]
    assert live.skipped == {} and live.known == {}


def test_two_roots_keep_their_files_apart_as_they_change(tmp_path: Path) -> None:
    write(tmp_path, "gw1/a.sse", ERASING)
    write(tmp_path, "gw2/a.sse", CLEAN)
    write(tmp_path, "gw2/notes.json", b"{}")
    live = LiveFolder([str(tmp_path / "gw1"), str(tmp_path / "gw2")])
    found = live.scan()
    g1, g2 = f"{tmp_path.as_posix()}/gw1/", f"{tmp_path.as_posix()}/gw2/"
    assert [s.address for s in found.sources] == [f"{g1}a.sse", f"{g2}a.sse"]
    for source in found.sources:
        live.load(source)
    path = write(tmp_path, "gw2/sub/b.sse", ERASING)
    upd = live.apply([FileChange(Kind.ADDED, path)])
    assert [t.address for t in upd.added] == [f"{g2}sub/b.sse"]
    (tmp_path / "gw2" / "notes.json").unlink()
    upd = live.apply([FileChange(Kind.DELETED, tmp_path / "gw2" / "notes.json")])
    assert upd.unskipped == [f"{g2}notes.json"] and live.skipped == {}
    # A root rescanned (deleted and made again) comes back under its own addresses.
    upd = live.apply([FileChange(Kind.ADDED, tmp_path / "gw1")])
    assert f"{g1}a.sse" in live.known and "a.sse" not in live.known


def test_a_trace_the_app_read_is_followed_on_from_its_builder(tmp_path: Path) -> None:
    # The TUI reads an open capture whole and hands its builder over: an append then costs
    # what was appended, and a change while it was being read is read by neither twice.
    from replay_tui.core.trace import Form, Source, TraceBuilder

    path = write(tmp_path, "g.sse", GROWING)
    live = LiveFolder([str(tmp_path)])
    live.track(*_walked(tmp_path))
    source = Source(path, "g.sse", Form.SSE)
    live.expect("g.sse")
    data = path.read_bytes()
    builder = TraceBuilder(source)
    builder.feed(data)
    more = sse(tools(call(0, id="", arguments="{}")), done=False)
    with path.open("ab") as fh:  # written while the app was reading
        fh.write(more)
    assert not live.apply([FileChange(Kind.MODIFIED, path)])  # the app's to read
    trace = live.adopt(builder, data)
    assert trace.analysis.deltas == 2 and trace.badge is Badge.IN_PROGRESS
    with path.open("ab") as fh:
        fh.write(sse(tools(call(0, id="", arguments="")), chunk(finish="tool_calls")))
    upd = live.apply([FileChange(Kind.MODIFIED, path)])
    (after,) = upd.updated
    assert after.analysis.deltas == 3 and after.badge is Badge.ERASING
    assert live._live["g.sse"].offset == path.stat().st_size  # read on, never from the start


def test_a_finished_trace_handed_over_is_not_kept(tmp_path: Path) -> None:
    from replay_tui.core.trace import Form, Source, TraceBuilder

    path = write(tmp_path, "e.sse", ERASING)
    live = LiveFolder([str(tmp_path)])
    live.track(*_walked(tmp_path))
    builder = TraceBuilder(Source(path, "e.sse", Form.SSE))
    data = path.read_bytes()
    builder.feed(data)
    live.expect("e.sse")
    assert live.adopt(builder, data).badge is Badge.ERASING
    assert "e.sse" not in live._live  # ended: its builder is not held for a change to come
    with path.open("ab") as fh:
        fh.write(b": a comment\n\n")
    assert [t.badge for t in live.apply([FileChange(Kind.MODIFIED, path)]).updated] == [
        Badge.ERASING
    ]


def _walked(root: Path) -> tuple[list[Candidate], list[Skipped]]:
    items = list(walk([str(root)]))
    return [c for c in items if isinstance(c, Candidate)], [
        s for s in items if isinstance(s, Skipped)
    ]

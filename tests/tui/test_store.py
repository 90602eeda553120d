"""The store's paths as a shell names them (what ``c`` copies from the list), without a screen."""

from __future__ import annotations

from pathlib import Path

from replay_tui.core.discovery import Skipped
from replay_tui.tui.store import TraceStore


def test_a_listed_file_is_named_by_its_path_quoted_for_the_shell(tmp_path: Path) -> None:
    store = TraceStore()
    store.set_files(
        [("a.sse", "runs/a.sse"), ("my dir/b.sse", "runs/my dir/b.sse"), ("x.har", "runs/x.har")],
        [],
    )
    assert store.shell_path("a.sse") == "runs/a.sse"
    assert store.shell_path("my dir/b.sse") == "'runs/my dir/b.sse'"
    assert store.shell_path("x.har#2") == "runs/x.har#2"  # an entry: its file, as replay takes it
    assert store.shell_path("gone.sse") == "gone.sse"  # not listed: the address as it is


def test_a_file_that_is_no_trace_is_found_under_the_paths_opened(tmp_path: Path) -> None:
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "notes.txt").write_text("not a trace")
    roots = [str(tmp_path / "one"), str(tmp_path / "two")]
    skipped = Skipped("notes.txt", "not a trace")
    assert TraceStore().shell_path("notes.txt", skipped, roots) == f"{tmp_path}/two/notes.txt"
    nowhere = Skipped("it's.txt", "gone")
    assert TraceStore().shell_path("it's.txt", nowhere, roots) == """'it'"'"'s.txt'"""

"""What the watcher will post: a changed, new or deleted trace updates the list and the views."""

from __future__ import annotations

import shutil
from pathlib import Path

from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace
from replay_tui.tui.app import make_app
from replay_tui.tui.messages import TraceAdded, TraceRemoved, TraceUpdated

from .conftest import SIZE, TRACES, settle, write_big_trace


def _load(root: Path, name: str):  # type: ignore[no-untyped-def]
    return next(load_trace(s) for s in discover([root]).sources if s.address == name)


async def test_an_updated_trace_replaces_the_old_one_and_views_keep_their_place(
    tmp_path: Path,
) -> None:
    path = write_big_trace(tmp_path / "grow.sse", 400)
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = app.calls_view
        view.focus()
        await pilot.press("pagedown", "pagedown")
        cursor, scroll = view.cursor, view.scroll_offset.y
        assert scroll > 0
        write_big_trace(path, 800)  # the file grew
        app.post_message(TraceUpdated(_load(tmp_path, "grow.sse")))
        await settle(app, pilot)
        assert app.current is not None and app.current.analysis.deltas == 800
        assert (view.cursor, view.scroll_offset.y) == (cursor, scroll)


async def test_an_updated_badge_shows_in_the_list(tmp_path: Path) -> None:
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "a.sse")
    shutil.copy(TRACES / "azure" / "gpt-4o-mini-usage-tail.sse", tmp_path / "b.sse")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.store.judgements["b.sse"].badge.value == "clean"
        shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "b.sse")
        app.post_message(TraceUpdated(_load(tmp_path, "b.sse")))
        await settle(app, pilot)
        assert app.store.judgements["b.sse"].badge.value == "erasing"
        assert app.trace_list.trace_tree.badge_of("b.sse") == "erasing"
        assert str(app.query_one("#chip-erasing").render()) == "✗ 1 erasing"


async def test_added_and_removed_traces_keep_the_selection(tmp_path: Path) -> None:
    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "b.sse")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.trace_list.selected == "b.sse"
        shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "a.sse")
        app.post_message(TraceAdded(_load(tmp_path, "a.sse")))
        await settle(app, pilot)
        assert app.trace_list.addresses == ["a.sse", "b.sse"]
        assert app.trace_list.selected == "b.sse"
        await pilot.pause()  # the tree moves its cursor after the refresh the add caused
        row = app.trace_list.trace_tree.cursor_row
        assert row is not None and row.key == "b.sse"
        app.post_message(TraceRemoved("a.sse"))
        await settle(app, pilot)
        assert app.trace_list.addresses == ["b.sse"]
        assert "a.sse" not in app.store.judgements
        app.post_message(TraceRemoved("b.sse"))
        await settle(app, pilot)
        assert "deleted" in app.details._main.plain


async def test_a_renamed_open_trace_follows_its_new_name_and_a_deleted_root_is_said(
    tmp_path: Path,
) -> None:
    from replay_tui.live.folder import FolderUpdate
    from replay_tui.tui.messages import FolderChanged

    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "a.sse")
    app = make_app([str(tmp_path)], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "a.sse"
        (tmp_path / "a.sse").rename(tmp_path / "b.sse")
        moved = FolderUpdate(renamed=[("a.sse", _load(tmp_path, "b.sse"))])
        app.post_message(FolderChanged(moved))
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "b.sse"
        assert app.trace_list.selected == "b.sse"
        assert list(app.store.paths) == ["b.sse"]
        app.post_message(FolderChanged(FolderUpdate(removed=["b.sse"]), gone_roots=["traces/"]))
        await settle(app, pilot)
        note = str(app.trace_list.query_one("#list-empty").render())
        assert "traces/ was deleted" in note


async def test_a_deleted_open_trace_is_said_deleted_not_filtered_out_and_a_root_back_too(
    tmp_path: Path,
) -> None:
    from textual.widgets import Static

    from replay_tui.live.folder import FolderUpdate
    from replay_tui.tui.messages import FolderChanged

    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / "a.sse")
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "b.sse")
    app = make_app([str(tmp_path)], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "a.sse"
        note = app.trace_list.query_one("#list-empty", Static)
        app.post_message(FolderChanged(FolderUpdate(removed=["a.sse"]), gone_roots=["t/"]))
        await settle(app, pilot)
        assert "t/ was deleted." in app.details._main.plain
        assert "open: a.sse (deleted)" in str(note.render())
        await pilot.press("slash", *"b")  # a filter does not make it "filtered out"
        await settle(app, pilot)
        assert "open: a.sse (deleted)" in str(note.render())
        assert "filtered out" not in str(note.render())
        # The root is back (without the open trace): the details no longer blame the root.
        app.post_message(FolderChanged(FolderUpdate()))
        await settle(app, pilot)
        assert app.details._main.plain.strip() == "a.sse was deleted."


async def test_two_folders_with_same_named_captures_list_both_under_their_folders(
    tmp_path: Path,
) -> None:
    """``replay-tui gw1 gw2``, each holding a.sse: one hid the other (both were "a.sse"), and
    the list gave no folder for either."""
    for gw, trace in (
        ("gw1", "dashscope/qwen3-max-id-empty.sse"),
        ("gw2", "openai/gpt-4.1-text-then-call.sse"),
    ):
        (tmp_path / gw).mkdir()
        shutil.copy(TRACES / trace, tmp_path / gw / "a.sse")
    one, two = str(tmp_path / "gw1"), str(tmp_path / "gw2")
    app = make_app([one, two], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert sorted(app.store.paths) == [f"{one}/a.sse", f"{two}/a.sse"]
        badges = {a: j.badge.value for a, j in app.store.judgements.items()}
        assert badges == {f"{one}/a.sse": "erasing", f"{two}/a.sse": "clean"}
        listing = app.trace_list.listing
        rows = [listing.row(n) for n in range(len(listing.rows))]
        # Their common folders share one row (as a folder holding one folder does).
        assert [(r.name, r.depth) for r in rows] == [
            (tmp_path.as_posix(), 0),
            ("gw1", 1),
            ("a.sse", 2),
            ("gw2", 1),
            ("a.sse", 2),
        ]


async def test_a_view_built_while_the_focus_was_left_on_a_hidden_view_takes_the_keys(
    tmp_path: Path,
) -> None:
    """replay-tui big.sse, 2 while it decoded: the diff appeared with no pane holding the
    keyboard as the decoding ended: the footer
    lacked the diff's keys, and z, G, j did nothing. The next model the view shows takes
    the keys back when nothing on screen holds them."""
    shutil.copy(TRACES / "captures" / "late-id.sse", tmp_path / "a.sse")
    app = make_app([str(tmp_path / "a.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert app.focused is app.diff_view
        app.set_focus(None)  # what the end of the decoding left: no pane has the keys
        await pilot.pause()
        assert app.focused is None
        path = tmp_path / "a.sse"
        app.post_message(TraceUpdated(_load(path, path.as_posix())))  # the next step arrives
        await settle(app, pilot)
        assert app.focused is app.diff_view
        assert "z" in app.screen.active_bindings  # the diff's keys, in the footer too

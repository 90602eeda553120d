"""The trace list: tree, badges, counts, filters, HAR entries, what opens first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input

from replay_tui.browse import judging as browse_judging
from replay_tui.tui.app import make_app
from replay_tui.tui.widgets.bars import BadgeChip
from replay_tui.tui.widgets.trace_list import TraceList

from .conftest import SIZE, TRACES, held, opened_once, settle, until


async def test_folder_lists_badges_counts_and_har_entries_and_selects_the_first_flag() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        # azure/… is clean; captures/crlf-framed.sse is the first trace with a flag.
        assert app.current is not None
        assert app.current.address == "captures/crlf-framed.sse"
        tree = app.trace_list.trace_tree
        assert tree.cursor_row is not None
        assert tree.cursor_row.key == "captures/crlf-framed.sse"

        badges = {a: s.badge.value for a, s in app.store.judgements.items()}
        assert len(badges) == 26
        assert badges["dashscope/qwen3-max-id-empty.sse"] == "erasing"
        assert badges["ollama/qwen3-no-id.sse"] == "refused"
        assert badges["captures/truncated-no-done.sse"] == "broken"
        assert badges["openai/gpt-4.1-text-then-call.sse"] == "clean"
        chips = {c.badge: str(c.render()) for c in app.query(BadgeChip)}
        assert chips[None] == "26 traces"
        assert chips["erasing"] == "✗ 12 erasing"
        assert chips["refused"] == "⊘ 2 refused"
        assert chips["broken"] == "! 4 broken"
        assert chips["clean"] == "✓ 8 clean"
        assert chips["skipped"] == "– 2 skipped"
        labels = tree.lines()
        assert any(
            t.lstrip().startswith("✗ erasing") and "qwen3-max-id-empty.sse" in t for t in labels
        )
        assert any(t.lstrip().startswith("– skipped") and "request-body.json" in t for t in labels)
        assert any(t.lstrip().startswith("▾ captures/") and "· 3 erasing" in t for t in labels)

        # HAR streams sit under their file, with method, URL and time.
        listing = app.trace_list.listing
        n = listing.row_of("captures/mitmproxy-export.har#4")
        assert n is not None
        row, parent = listing.row(n), listing.row(n - 2)
        assert parent.folder is not None and parent.folder.is_file
        assert (parent.kind, parent.name, parent.depth) == ("folder", "mitmproxy-export.har", 1)
        assert row.depth == 2
        label = row.name
        assert label.startswith("#4 ")
        assert " POST /v1/chat/completions" in label
        assert ":" in label.split()[1]  # HH:MM:SS


async def test_text_filter_keeps_matching_traces_and_their_folders() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert app.focused is app.query_one("#trace-filter", Input)
        await pilot.press(*"dash")
        await pilot.pause()
        assert sorted(app.trace_list.visible_addresses()) == [
            "dashscope/glm-5.2-id-and-name-empty.sse",
            "dashscope/qwen3-max-id-empty.sse",
        ]
        # The filter also reads verdicts: "malformed-tool-call" is the fix refusing a call.
        app.query_one("#trace-filter", Input).value = "malformed-tool-call"
        await pilot.pause()
        assert sorted(app.trace_list.visible_addresses()) == [
            "captures/name-never-sent.sse",
            "ollama/qwen3-no-id.sse",
        ]
        await pilot.press("enter")
        assert app.focused is app.trace_list.trace_tree
        # escape leaves the box and keeps the filter; a second escape clears it.
        await pilot.press("slash", "escape")
        assert app.focused is app.trace_list.trace_tree
        assert app.query_one("#trace-filter", Input).value == "malformed-tool-call"
        await pilot.press("escape")
        assert app.query_one("#trace-filter", Input).value == ""
        assert len(app.trace_list.visible_addresses()) == 26


async def test_a_big_lists_filter_shows_the_keys_first_and_filters_for_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A list past REBUILD_NOW_BELOW (27 files stand in for 5,000 here): each key is in the
    box at once; the rows follow a frame later, for the text as it then is."""
    monkeypatch.setattr(TraceList, "REBUILD_NOW_BELOW", 5)
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        built: list[str] = []
        build = app.trace_list.listing.build

        def counted() -> None:
            built.append(app.trace_list.listing.text)
            build()

        monkeypatch.setattr(app.trace_list.listing, "build", counted)
        box = app.query_one("#trace-filter", Input)
        await pilot.press("slash")
        box.value = "d"
        box.value = "da"
        box.value = "dash"
        assert built == []  # not yet: the keys are drawn first
        for _ in range(200):  # (the rebuild comes after a frame: a loaded machine is slow)
            await pilot.pause(0.02)
            if built:
                break
        # One rebuild for the text as it then is (a frame between two keys: two at most;
        # not one per key).
        assert built[-1] == "dash" and len(built) < 3, built
        assert sorted(app.trace_list.visible_addresses()) == [
            "dashscope/glm-5.2-id-and-name-empty.sse",
            "dashscope/qwen3-max-id-empty.sse",
        ]
        built.clear()
        await pilot.press("escape", "escape")
        for _ in range(200):  # the emptied filter's rebuild also comes a frame later
            await pilot.pause(0.02)
            if built:
                break
        assert built[-1] == "" and len(app.trace_list.visible_addresses()) == 26


async def test_verdict_filter_by_key_and_by_clicking_a_count() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        assert app.trace_list.badge_filter == "erasing"
        assert len(app.trace_list.visible_addresses()) == 12
        await pilot.press("v")
        assert app.trace_list.badge_filter == "refused"
        assert sorted(app.trace_list.visible_addresses()) == [
            "captures/name-never-sent.sse",
            "ollama/qwen3-no-id.sse",
        ]
        await pilot.click("#chip-broken")
        assert app.trace_list.badge_filter == "broken"
        assert len(app.trace_list.visible_addresses()) == 4
        assert app.query_one("#chip-broken").has_class("-active")
        await pilot.click("#chip-broken")  # clicking the active count clears it
        assert app.trace_list.badge_filter is None
        assert len(app.trace_list.visible_addresses()) == 26
        # The count of files that are not traces shows them (it showed everything).
        await pilot.click("#chip-skipped")
        listing = app.trace_list.listing
        assert app.trace_list.badge_filter == "skipped" and listing.visible() == []
        assert [listing.row(n).key for n in range(len(listing.rows))] == [
            "README.md",
            "captures",
            "captures/request-body.json",
        ]
        await pilot.click("#chip-skipped")
        assert app.trace_list.badge_filter is None


async def test_single_file_opens_directly_without_the_list(tmp_path: Path) -> None:
    app = make_app([str(TRACES / "writer" / "palmyra-x5-all-null.sse")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None
        assert app.current.address.endswith("palmyra-x5-all-null.sse")
        assert not app.trace_list.display
        assert app.focused is app.calls_view
        await pilot.press("l")
        assert app.trace_list.display


async def test_moving_in_the_list_opens_and_enter_goes_to_the_calls() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.focused is app.trace_list.trace_tree
        rebuilds: list[object] = []
        rebuild = TraceList.rebuild
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(TraceList, "rebuild", lambda self: rebuilds.append(rebuild(self)))
            await pilot.press("down")
            await settle(app, pilot)
            assert app.current is not None
            assert app.current.address == "captures/empty-finish-reason.sse"
            opened = {app.current.address}
            for _ in range(4):
                await pilot.press("down")
                await settle(app, pilot)
                opened.add(app.current.address)
        # Each trace opened was judged as the list shows it: no row, count or order changes,
        # and the list is not rebuilt (in a folder of 100,000, a rebuild is 50 ms).
        assert opened == {  # (a HAR file's row, passed on the way, opens no trace)
            "captures/empty-finish-reason.sse",
            "captures/empty-response.sse",
            "captures/late-id.sse",
            "captures/mitmproxy-export.har#2",
        }
        assert rebuilds == []
        await pilot.press("enter")
        assert app.focused is app.calls_view


async def test_clicking_a_trace_opens_it() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        line = app.trace_list.listing.row_of("mistral/glm-5.2-name-empty.sse")
        assert line is not None
        tree.scroll_to_show(line)
        await pilot.pause()
        await pilot.click(tree, offset=(20, line - int(tree.scroll_offset.y)))
        await settle(app, pilot)
        assert app.current is not None
        assert app.current.address == "mistral/glm-5.2-name-empty.sse"


async def test_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is None
        assert "No trace found" in app.details._main.plain
        assert "notes.md" in app.details._main.plain


async def test_a_thousand_files_list_at_once_and_fill_in_progressively(tmp_path: Path) -> None:
    sample = (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes()
    for n in range(1000):
        (tmp_path / f"t{n:04}.sse").write_bytes(sample)
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        while not app.trace_list.visible_addresses():
            await pilot.pause(0.01)
        # Listed before judging finished: the list did not wait for the verdicts.
        assert len(app.trace_list.visible_addresses()) == 1000
        assert len(app.store.judgements) < 1000
        # Input is handled while judging goes on.
        await pilot.press("slash", "t", "0", "9")
        assert app.query_one("#trace-filter", Input).value == "t09"
        await settle(app, pilot, limit=60)
        assert len(app.store.judgements) == 1000
        assert {s.badge.value for s in app.store.judgements.values()} == {"erasing"}


async def test_a_trace_opened_on_the_way_never_pulls_the_cursor_back() -> None:
    """Keys pressed quickly: the cursor passes a trace (it starts loading) and stops on a file
    that is not a trace, or a folder row. When the trace has loaded, the list is rebuilt
    with its badge: the cursor stays where the keys put it (it went back to the trace, so the
    next key seemed to do nothing and the highlight and the header disagreed)."""
    from replay_tui.tui import app as app_module

    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        listing, tree = app.trace_list.listing, app.trace_list.trace_tree
        for start, passed, stop in [
            ("name-never-sent.sse", "parallel-out-of-order.sse", "request-body.json"),
            ("empty-response.sse", "late-id.sse", "mitmproxy-export.har"),  # a folder row
        ]:
            start, passed, stop = (f"captures/{name}" for name in (start, passed, stop))
            app.trace_list.select(start, focus=True)
            await settle(app, pilot)
            with pytest.MonkeyPatch.context() as mp:
                loading = held(mp, app_module, "load_in_steps")
                await pilot.press("down")  # onto the trace: it starts loading (held here)
                assert app.trace_list.selected == passed
                await until(pilot, lambda: not app.opening)  # (once the cursor rested on it)
                await pilot.press("down")  # and on, before it has loaded
                assert listing.row(tree.cursor).key == stop
                loading.set()
                await settle(app, pilot)
            assert app.store.get(passed) is not None  # loaded, and the list rebuilt for it
            assert listing.row(tree.cursor).key == stop
            await pilot.press("up")
            assert listing.row(tree.cursor).key == passed


async def test_folders_fold_and_unfold_and_the_cursor_keys_walk_the_rows() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        assert app.focused is tree
        await pilot.press("home")
        assert tree.cursor == 0
        await pilot.press("end")
        assert tree.cursor == tree.line_count - 1
        # To the captures folder, fold it with left, unfold with right, and with space.
        captures = app.trace_list.listing.folder_row("captures")
        assert captures is not None
        tree.move_to(captures, announce=False)
        rows = tree.line_count
        await pilot.press("left")
        assert tree.line_count == rows - 12  # its 10 traces, a skipped file, the HAR file
        label = tree.label_of("captures")
        assert label is not None and label.plain.startswith("▸ captures/  10 · 3 erasing")
        await pilot.press("right")
        assert tree.line_count == rows
        await pilot.press("space")
        assert tree.line_count == rows - 12
        await pilot.press("space")
        # From a trace, left goes to its folder.
        await pilot.press("down", "down", "left")
        assert tree.cursor == captures
        await pilot.press("pagedown")
        assert tree.cursor > captures + 10
        # Clicking a folder folds it.
        await pilot.click(tree, offset=(3, captures - int(tree.scroll_offset.y)))
        assert tree.line_count == rows - 12


async def test_a_reopened_folder_takes_its_badges_from_the_judgement_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from replay_tui.scale import judgements
    from replay_tui.tui import app as app_module

    folder = tmp_path / "traces"
    shutil.copytree(TRACES, folder)
    judged = dict((await opened_once(folder)).store.judgements)
    [cache] = list((Path(os.environ["XDG_CACHE_HOME"]) / "replay-tui").glob("judgements-*"))
    written = cache.stat().st_mtime_ns

    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", folder / "envoy" / "x.sse")
    judging = held(monkeypatch, judgements, "judge_files")  # the pool at work: the test looks
    shown_from_cache: list[object] = []

    class Counted(app_module.CacheListed):  # type: ignore[misc]
        def __post_init__(self) -> None:
            shown_from_cache.append(self)
            super().__post_init__()

    monkeypatch.setattr(app_module, "CacheListed", Counted)
    again = make_app([str(folder)])
    async with again.run_test(size=SIZE) as pilot:
        while not again.discovered and again.is_running:
            await pilot.pause(0.01)
        assert shown_from_cache == []  # 27 files: walked and checked at once, shown once
        # Listed judged: what the cache knows comes with the list; only the new file waits.
        assert again.store.counts()["pending"] == 1
        assert again.trace_list.listing.badge_of("envoy/x.sse") == "pending"
        judging.set()
        await settle(again, pilot)
    assert again.store.judgements["envoy/x.sse"].badge.value == "clean"  # new: judged
    rejudged = dict(again.store.judgements)
    del rejudged["envoy/x.sse"]
    assert rejudged == judged
    assert cache.stat().st_mtime_ns != written  # the new file was added to it

    os.utime(cache, ns=(written, written))
    unchanged = make_app([str(folder)])
    async with unchanged.run_test(size=SIZE) as pilot:
        while not unchanged.discovered:
            await pilot.pause(0.01)
        assert unchanged.store.counts()["pending"] == 0 and not unchanged.judging
        await settle(unchanged, pilot)
        assert unchanged.store.judgements == again.store.judgements
        assert unchanged.current is not None  # the first flagged trace opened, as when judged
        assert unchanged.current.address == again.current.address  # type: ignore[union-attr]
    assert cache.stat().st_mtime_ns == written  # every answer came from it: nothing to write

    bypassed = make_app([str(folder)], cache=False)
    cache.unlink()
    async with bypassed.run_test(size=SIZE) as pilot:
        await settle(bypassed, pilot)
    assert len(bypassed.store.judgements) == len(judged) + 1
    assert not cache.exists()  # --no-cache: neither read nor written


@pytest.mark.parametrize("judged", [False, True], ids=["first-open", "re-open"])
async def test_a_judgement_cache_that_cannot_be_written_is_said_once_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged: bool
) -> None:
    import shutil

    folder = tmp_path / "traces"
    shutil.copytree(TRACES / "dashscope", folder)
    if judged:  # a cache from before, then the folder a file moved away (one entry to drop)
        await opened_once(folder)
        (folder / "qwen3-max-id-empty.sse").unlink()
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    if judged:  # the old cache can be read, not replaced
        [old] = (Path(os.environ["XDG_CACHE_HOME"]) / "replay-tui").glob("judgements-*")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "ro"))
        (tmp_path / "ro" / "replay-tui").mkdir(parents=True)
        shutil.copy(old, tmp_path / "ro" / "replay-tui" / old.name)
        os.chmod(tmp_path / "ro" / "replay-tui", 0o500)
        if os.access(tmp_path / "ro" / "replay-tui", os.W_OK):  # root: permissions ignored
            monkeypatch.setattr("replay_tui.scale.judgements.tempfile.mkstemp", _refuse)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    app = make_app([str(folder)])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        said = [str(n.message) for n in app._notifications if "judgement cache" in str(n.message)]
        assert len(said) == 1 and said[0].startswith("judgement cache not used: ")
        assert app.store.counts()["pending"] == 0 and app.current is not None


def _refuse(*args: object, **kwargs: object) -> None:
    raise PermissionError(13, "Permission denied")


async def test_a_reopened_folder_shows_what_the_cache_knew_while_its_files_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from replay_tui.tui import app as app_module

    folder = tmp_path / "traces"
    shutil.copytree(TRACES, folder)
    first = await opened_once(folder)
    judged = dict(first.store.judgements)
    assert first.current is not None
    opened = first.current.address
    # Between the two runs one capture is rewritten, one goes, one comes.
    changed, gone = "dashscope/qwen3-max-id-empty.sse", "openai/gpt-4.1-text-then-call.sse"
    assert judged[changed].badge.value == "erasing"
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", folder / changed)
    (folder / gone).unlink()
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", folder / "envoy" / "x.sse")

    walked = held(monkeypatch, browse_judging, "walk")  # a big folder's: the cache shows meanwhile
    monkeypatch.setattr(app_module.ReplayApp, "SHOW_CACHED_FROM", 1)  # (27 files here)
    again = make_app([str(folder)])
    async with again.run_test(size=SIZE) as pilot:
        for _ in range(500):
            if again.checking:
                break
            await pilot.pause(0.01)
        assert again.checking and not again.discovered
        all_chip = again.query_one("#chip-all", BadgeChip)
        assert all_chip.full_text == f"{len(judged):,} traces · checking…"
        assert again.store.judgements == judged  # every badge of the last time, at once
        listing = again.trace_list.listing
        assert listing.badge_of(changed) == "erasing" and gone in listing.items
        assert again.current is None  # nothing opened from what is not checked yet

        walked.set()
        await settle(again, pilot)
        assert not again.checking
        assert all_chip.full_text == f"{len(judged):,} traces"  # one gone, one new
        assert again.store.judgements[changed].badge.value == "clean"  # judged again
        assert again.store.judgements["envoy/x.sse"].badge.value == "clean"
        assert gone not in again.store.judgements and gone not in listing.items
        assert listing.badge_of(changed) == "clean"
        assert again.current is not None and again.current.address == opened


async def test_a_reopened_folder_whose_files_did_not_change_is_not_listed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the walk has checked every file against what the cache listed (the same files,
    each as the cache knew it), the list, the store and the badges on screen stand: its HAR
    file is not made into its entries again nor any trace judged into the store again (issue
    33: a third of a second of the screen's thread for 115,000 traces, the keys waiting)."""
    import shutil

    from replay_tui.tui import app as app_module

    folder = tmp_path / "traces"
    for name in ("captures", "dashscope", "openai"):  # (a HAR file; no file that is no trace)
        shutil.copytree(TRACES / name, folder / name, ignore=shutil.ignore_patterns("*.json"))
    first = await opened_once(folder)
    judged = dict(first.store.judgements)
    assert any("#" in address for address in judged)  # the HAR file's entries
    assert first.current is not None

    listed: list[str] = []
    real = app_module.ReplayApp._show_listing
    real_cached = TraceList.set_listed

    def show_listing(self, files, *rest):  # type: ignore[no-untyped-def]
        listed.append("walked")
        real(self, files, *rest)

    def set_listed(self, *args):  # type: ignore[no-untyped-def]
        listed.append("cached")
        real_cached(self, *args)

    monkeypatch.setattr(app_module.ReplayApp, "_show_listing", show_listing)
    monkeypatch.setattr(TraceList, "set_listed", set_listed)
    monkeypatch.setattr(app_module.ReplayApp, "SHOW_CACHED_FROM", 1)
    again = make_app([str(folder)])
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        assert again.discovered and not again.checking
        assert listed == ["cached"]  # what the cache knew, and nothing again once checked
        assert again.store.judgements == judged
        # The list and the store as the first open's walk and judging left them.
        assert again.store.paths == first.store.paths
        assert again.store.by_badge == first.store.by_badge
        assert again.trace_list.listing.items == first.trace_list.listing.items
        assert again.trace_list.listing.rows == first.trace_list.listing.rows
        all_chip = again.query_one("#chip-all", BadgeChip)
        assert all_chip.full_text == f"{len(judged):,} traces"
        assert again.current is not None and again.current.address == first.current.address
        # What the filter reads of each trace came with the walk: a verdict finds them.
        await pilot.press("slash", *"erasing", "enter")
        await settle(again, pilot)
        erasing = sorted(a for a, j in judged.items() if j.badge.value == "erasing")
        assert sorted(again.trace_list.visible_addresses()) == erasing


@pytest.mark.parametrize("leave", ["escape", "enter"])
async def test_leaving_the_filter_puts_the_cursor_on_a_match(leave: str) -> None:
    # The open trace (captures/crlf-framed.sse) does not match "dash": the cursor lands on
    # the first match, so down goes to the second and enter opens it (it used to sit on no
    # row: down went to the first row, the dashscope/ folder, and enter folded it).
    app = make_app([str(TRACES)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        await pilot.press("slash", *"dash", leave)
        assert app.focused is tree
        assert tree.cursor_row is not None
        assert tree.cursor_row.key == "dashscope/glm-5.2-id-and-name-empty.sse"
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert app.current is not None
        assert app.current.address == "dashscope/qwen3-max-id-empty.sse"
        assert app.focused is app.calls_view and not app.trace_list.listing.collapsed
        # The open trace shown by the filter keeps the cursor when the filter is left again.
        await pilot.press("slash", "backspace", leave)
        assert tree.cursor_row is not None
        assert tree.cursor_row.key == "dashscope/qwen3-max-id-empty.sse"


async def test_a_verdict_filter_by_key_puts_the_cursor_on_a_match() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        await pilot.press("v", "v")  # refused: the open (erasing) trace is hidden
        assert app.trace_list.badge_filter == "refused"
        assert tree.cursor_row is not None and tree.cursor_row.key == "captures/name-never-sent.sse"
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "captures/name-never-sent.sse"


def _chip(app: object, badge: str) -> BadgeChip:
    from textual.app import App

    assert isinstance(app, App)
    return app.query_one(f"#chip-{badge}", BadgeChip)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
async def test_the_header_counts_what_the_filter_shows(size: tuple[int, int]) -> None:
    app = make_app([str(TRACES)])

    def said() -> str:
        """The all-traces count, checked to fit: the whole bar is on the screen."""
        watch = app.query_one("#watch-state")
        assert watch.region.right <= size[0]
        assert watch.region.width >= len(str(watch.render())) + 1  # (padding: 1 or 2)
        chip = _chip(app, "all")
        shown = str(chip.render())
        # Said whole, or (a narrow terminal) without the word beside the badge counts.
        assert shown == chip.full_text or chip.full_text == shown + " traces"
        return chip.full_text

    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(app, pilot)
        assert said() == "26 traces"
        await pilot.press("slash", *"dash")
        await settle(app, pilot)
        # "2 of 26", and each count is of the matches: what clicking it (or v) shows.
        assert said() == "2 of 26 traces"
        assert _chip(app, "erasing")._count == 2 and _chip(app, "clean")._count == 0
        assert _chip(app, "skipped")._count == 0  # no file that is not a trace matches
        folder = next(r for r in map(app.trace_list.listing.row, range(3)) if r.folder)
        assert folder.folder is not None and folder.folder.count == 2  # the list agrees
        # A file that is not a trace is found by name: counted as what it is, not a trace.
        await pilot.press(*["backspace"] * 4, *"json")
        await settle(app, pilot)
        assert said() == "1 of 26 traces"  # volcengine/ark-chunk-log.jsonl
        assert _chip(app, "skipped")._count == 1  # captures/request-body.json
        rows = [app.trace_list.listing.row(n) for n in range(len(app.trace_list.listing.rows))]
        assert [(r.kind, r.key) for r in rows if r.kind != "folder"] == [
            ("skipped", "captures/request-body.json"),
            ("trace", "volcengine/ark-chunk-log.jsonl"),
        ]
        await pilot.press(*["backspace"] * 4, *"body")  # only captures/request-body.json
        await settle(app, pilot)
        note = str(app.trace_list.query_one("#list-empty").render())
        assert note.startswith("no trace matches `body`; 1 file that is not a trace\n")
        await pilot.press(*["backspace"] * 4, *"dash")
        await settle(app, pilot)
        await pilot.press("escape", "v")  # erasing among "dash"; the next has none: all
        assert app.trace_list.badge_filter == "erasing"
        assert said() == "2 of 26 traces"
        await pilot.press("v")
        assert app.trace_list.badge_filter is None
        await pilot.press("escape")  # the text filter cleared: the whole folder again
        await settle(app, pilot)
        assert said() == "26 traces"
        assert _chip(app, "erasing")._count == 12
        await pilot.press("v")
        await pilot.pause()
        assert said() == "12 of 26 traces"
        toasts = [str(n.message) for n in app._notifications]
        assert toasts[-1] == "Showing erasing traces: 12 of 26 traces"  # as the header says


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
async def test_names_that_differ_at_their_end_stay_told_apart(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # The recorder's copies of a capture are "<name>-<n>.sse": a name cut at its end (as it
    # was, "bedrock-parallel-untermi…") hid the number. The list grows with the terminal,
    # and a name that still does not fit is cut in its middle, keeping the end.
    source = (TRACES / "envoy" / "bedrock-parallel-unterminated-done.sse").read_bytes()
    numbers = [1, 2, 9, 10, 17, 123]
    for n in numbers:
        (tmp_path / f"bedrock-parallel-unterminated-done-{n}.sse").write_bytes(source)
    app = make_app([str(tmp_path)])
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert app.trace_list.outer_size.width == {80: 27, 120: 42, 200: 60}[size[0]]
        width = app.trace_list.trace_tree.scrollable_content_region.width
        lines = [line.rstrip() for line in app.trace_list.trace_tree.lines()]
        assert len(set(lines)) == len(numbers)
        ends = sorted(int(line.rpartition("-")[2].removesuffix(".sse")) for line in lines)
        assert ends == numbers  # every copy's number is on screen
        whole = [line for line in lines if "bedrock-parallel-unterminated-done-" in line]
        assert len(whole) == (len(numbers) if size[0] >= 200 else 0)
        assert all("…" in line for line in lines if line not in whole)
        assert all(len(line) <= width for line in lines)
        # The header (the open copy) gives its name's middle for the verdict the badge is
        # about, when that leaves 20 cells of the name; else the verdict goes.
        header = str(app.trace_header.content).rstrip()
        assert header.startswith("bedrock-par") and header.endswith("   4 flags")
        said = {80: "✗ erasing    4", 120: "✗ erasing   both stream-closed   4"}
        assert said.get(size[0], "✗ erasing   assign-always stream-closed  ") in header
        assert ("…" in header) == (size[0] < 200)


async def test_a_file_that_is_not_a_trace_is_what_every_pane_describes(tmp_path: Path) -> None:
    # The cursor on binary.sse (no trace): the header, the views and the details all speak
    # of it. They used to keep showing the trace open before (badjson.sse) beside details
    # saying "Not a trace: binary.sse": two panes describing two files.
    (tmp_path / "badjson.sse").write_text(
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"",'
        '"function":{"name":"x","arguments":"{"}}]}}]}\n\ndata: {not json\n\ndata: [DONE]\n\n'
    )
    (tmp_path / "binary.sse").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "good.sse").write_bytes((TRACES / "captures" / "crlf-framed.sse").read_bytes())
    app = make_app([str(tmp_path)])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        await pilot.press("home")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "badjson.sse"
        calls_cursor = app.calls_view.cursor
        await pilot.press("down")
        await pilot.pause()
        assert tree.cursor_row is not None and tree.cursor_row.key == "binary.sse"
        header = str(app.trace_header.render())
        assert header.strip() == "binary.sse  not a trace: binary file (NUL bytes), not an SSE body"
        assert not app.tabs.display and app.not_a_trace_note.display
        assert "Nothing to show: binary.sse is not a trace." in str(app.not_a_trace_note.render())
        assert app.details._main.plain.startswith("Not a trace\nbinary.sse")
        # The keys that act on a trace say there is none, rather than act on badjson.sse.
        await pilot.press("n", "m", "e")
        assert app.marked is None and app.calls_view.cursor == calls_cursor
        said = [str(n.message) for n in app._notifications]
        assert said.count("binary.sse is not a trace: nothing to walk the flags of.") == 1
        assert "binary.sse is not a trace: nothing to mark." in said
        await pilot.press("c")  # the path a shell (where replay-tui started) can use
        assert app.clipboard == str(tmp_path / "binary.sse")
        await pilot.press("tab")  # the views are not there to go to: the details are next
        assert app.focused is app.details
        await pilot.press("shift+tab")
        # Back on a trace: it is what every pane shows again.
        await pilot.press("up")
        await settle(app, pilot)
        assert str(app.trace_header.render()).startswith("badjson.sse")
        assert app.tabs.display and not app.not_a_trace_note.display
        assert app.details._main.plain.startswith("Verdicts")
        # Hiding the list (its cursor out of sight) ends it too, and so does a filter that
        # hides the file (files that are not traces have no match).
        await pilot.press("down", "l")
        assert app.tabs.display and str(app.trace_header.render()).startswith("badjson.sse")
        await pilot.press("l")  # shown again: its cursor came back to the open trace
        assert tree.cursor_row is not None and tree.cursor_row.key == "badjson.sse"
        await pilot.press("down")  # binary.sse again
        await settle(app, pilot)
        assert not app.tabs.display
        await pilot.press("slash", *"good")
        await settle(app, pilot)  # the open trace is shown again (filtered out, still open)
        assert app.tabs.display and str(app.trace_header.render()).startswith("badjson.sse")


async def test_a_reason_that_says_not_a_trace_is_not_told_twice() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for address, header in [
            ("README.md", "README.md  not a trace (.md; content is not SSE or an HTTP response)"),
            (
                "captures/request-body.json",
                "captures/request-body.json  JSON that is not a trace (a chunk log needs"
                " .jsonl; a HAR export needs .har)",
            ),
        ]:
            app.trace_list.select(address, focus=True)
            await pilot.press("down", "up")  # onto it by the keys, as a user gets there
            await settle(app, pilot)
            assert str(app.trace_header.render()).strip() == header


async def test_c_in_the_list_copies_a_path_the_shell_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The list shows a file's place below the folder opened; `c` copies what a shell where
    replay-tui was started takes (`replay-tui replay` it): the folder as given, joined with
    it, and a HAR entry as FILE.har#N. (It copied `captures/…`, which no shell there had.)"""
    monkeypatch.chdir(TRACES.parent)
    app = make_app(["traces/"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree, listing = app.trace_list.trace_tree, app.trace_list.listing
        for address, wanted in [
            ("captures/mitmproxy-export.har#4", "traces/captures/mitmproxy-export.har#4"),
            ("captures/late-id.sse", "traces/captures/late-id.sse"),
            ("captures/request-body.json", "traces/captures/request-body.json"),
        ]:
            row = listing.row_of(address)
            assert row is not None
            tree.move_to(row)
            await settle(app, pilot)
            await pilot.press("c")
            assert app.clipboard == wanted
            assert Path(wanted.partition("#")[0]).is_file()


def test_a_copied_path_is_quoted_when_a_shell_would_split_it() -> None:
    from replay_tui.tui.store import for_the_shell as _for_the_shell

    assert _for_the_shell("traces/x.har#2") == "traces/x.har#2"  # (# inside a word: literal)
    assert _for_the_shell("/tmp/my dir/it's.sse") == """'/tmp/my dir/it'"'"'s.sse'"""
    assert _for_the_shell("#x.sse") == "'#x.sse'"
    assert _for_the_shell("a$b.sse") == "'a$b.sse'"


async def test_the_collector_waits_while_a_folder_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's cycle collector is off while the list is judged (its passes over a heap of
    100,000 judgements stopped every thread, keys and the pool's feeding with them), and
    on again once it is."""
    import gc
    import shutil

    for n in range(100):
        shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / f"{n:03d}.sse")
    real = browse_judging.FolderJudging.judge
    collecting: list[bool] = []

    def judge(self: browse_judging.FolderJudging, *args: object, **options: object) -> object:
        for judged in real(self, *args, **options):  # type: ignore[arg-type]
            collecting.append(gc.isenabled())
            yield judged

    monkeypatch.setattr(browse_judging.FolderJudging, "judge", judge)
    gc.enable()  # (the tests run with it off: see the conftest)
    try:
        app = make_app([str(tmp_path)], jobs=2)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert len(app.trace_list.addresses) == 100
            assert collecting == [False] * 100
            assert gc.isenabled()
    finally:
        gc.disable()


def _matches(app: object, text: str) -> list[str]:
    """The traces listed whose address, badge, verdicts, models or words hold each word of
    ``text`` (a trace not judged yet: its address and "pending"), in list order: what the
    filter must show, worked out here from the store alone."""
    store, listing = app.store, app.trace_list.listing  # type: ignore[attr-defined]
    words = text.lower().split()
    shown = []
    for address in listing.items:
        if address in listing.skipped:
            continue
        judgement = store.judgements.get(address)
        if judgement is None:
            said = [address, "pending"]
        else:
            said = [address, judgement.badge.value, *(v for _, v in judgement.verdicts)]
            said += [*judgement.models, *judgement.words]
        hay = " ".join(said).lower()
        if all(word in hay for word in words):
            shown.append(address)
    return shown


async def test_a_big_lists_filter_typed_while_it_is_judged_shows_what_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big folder (REBUILD_NOW_BELOW and the filter's step made small: 78 files, HAR files
    among them, stand in for 100,000), its filter typed, erased and typed again key by key
    while batches of judgements come in: at every moment the list shows what its filter
    matches among the files as judged so far, and in the end what matches them all."""
    import shutil
    import time

    from replay_tui.tui import listing as listing_module

    monkeypatch.setattr(TraceList, "REBUILD_NOW_BELOW", 5)
    monkeypatch.setattr(listing_module, "MATCH_STEP", 4)
    for name in ("a", "b", "c"):
        shutil.copytree(TRACES, tmp_path / name)
    real = browse_judging.FolderJudging.judge

    def judge(self: browse_judging.FolderJudging, *args: object, **options: object) -> object:
        for judged in real(self, *args, **options):  # type: ignore[arg-type]
            time.sleep(0.03)  # (the pool slowed: the keys come while it judges)
            yield judged

    monkeypatch.setattr(browse_judging.FolderJudging, "judge", judge)
    app = make_app([str(tmp_path)], jobs=2)
    async with app.run_test(size=SIZE) as pilot:
        while not app.judging:
            await pilot.pause(0.01)
        listing = app.trace_list.listing
        await pilot.press("slash")
        looked = 0
        for key in [*"qwen", "backspace", "backspace", *"en", "space", *"erasing"]:
            await pilot.press(key)
            for _ in range(3):
                await pilot.pause(0.02)
                assert listing.visible() == _matches(app, listing.text)
                looked += app.judging
        typed = app.query_one("#trace-filter", Input).value
        assert typed == "qwen erasing" and looked > 10  # (most looks came while judging)
        await settle(app, pilot)
        assert listing.text == typed and not app.judging
        expected = _matches(app, typed)
        assert expected and app.trace_list.visible_addresses() == expected
        assert any("#" in a for a in expected)  # (a HAR file's entries, matched as judged)
        rows = [listing.row(n) for n in range(len(listing.rows))]
        assert [r.key for r in rows if r.kind == "trace"] == expected
        counts = listing.text_counts()
        assert counts is not None and counts["erasing"] == len(expected)
        assert counts["pending"] == 0

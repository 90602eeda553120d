"""The list's keys while a folder is judged (issue 33): a move is drawn in its own frame and
opens the trace it ends on a moment later; what the judging hands the screen waits for the
keys; the details are laid out once for a trace shown in place of another."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from replay_tui.tui.app import ReplayApp, make_app
from replay_tui.tui.messages import TracesJudged

from .conftest import SIZE, TRACES, held, settle, until


def _copies(folder: Path, names: Iterable[str]) -> None:
    """One erasing capture written under each of ``names`` in ``folder``."""
    sample = (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes()
    for name in names:
        (folder / name).write_bytes(sample)


def _record_shown(app: ReplayApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str | None]]:
    """Each trace the views are given, with the row the list's cursor was on then."""
    shown: list[tuple[str, str | None]] = []
    real = app.show_trace

    def show_trace(trace, **options):  # type: ignore[no-untyped-def]
        row = app.trace_list.trace_tree.cursor_row
        shown.append((trace.address, row.key if row is not None else None))
        real(trace, **options)

    monkeypatch.setattr(app, "show_trace", show_trace)
    return shown


async def test_a_run_of_moves_opens_the_trace_it_ends_on_and_never_a_stale_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        tree.focus()
        await pilot.press("home")
        await settle(app, pilot)
        shown = _record_shown(app, monkeypatch)
        for keys in (["down"] * 7, ["pagedown", "up", "up"], ["down", "pagedown", "end"]):
            await pilot.press(*keys)
            row = tree.cursor_row
            assert row is not None
            await settle(app, pilot)
            if row.kind == "trace":  # (else the folder row it ended on keeps the open trace)
                assert app.current is not None and app.current.address == row.key
                assert app.trace_header.shows(app.current)
        # Every trace shown was the one under the cursor as it was shown.
        assert shown
        assert all(address == under for address, under in shown), shown


async def test_a_trace_loading_when_the_cursor_moves_on_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cursor rests on a trace (it starts loading, held here), then moves on to another
    before it has loaded: the first is dropped, the second shown, and the header never says
    the first once the cursor has left it."""
    from replay_tui.tui import app as app_module

    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first, second = "captures/late-id.sse", "captures/name-never-sent.sse"
        app.trace_list.select("captures/empty-response.sse", focus=True)
        await settle(app, pilot)
        assert app.store.get(first) is None  # (read when opened: held below)
        shown = _record_shown(app, monkeypatch)
        with pytest.MonkeyPatch.context() as mp:
            loading = held(mp, app_module, "load_in_steps")
            await pilot.press("down")
            assert app.trace_list.selected == first
            await until(pilot, lambda: not app.opening)  # it rested there: loading
            app.trace_list.select(second)  # (where the keys put the cursor next)
            await pilot.press("down")
            assert app.trace_list.selected != first
            loading.set()
            await settle(app, pilot)
        assert app.current is not None
        assert app.current.address == app.trace_list.selected
        assert first not in [address for address, _ in shown]


async def test_a_key_typed_right_after_slash_lands_in_the_filter_while_judging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copies(tmp_path, (f"t{n:04}.sse" for n in range(600)))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.trace_list.visible_addresses()))
        await pilot.press("slash", "t", "0", "4")
        assert app.query_one("#trace-filter", Input).value == "t04"
        assert app.focused is app.trace_list.filter_input
        await settle(app, pilot, limit=60)
        assert len(app.store.judgements) == 600
        assert sorted(app.trace_list.visible_addresses()) == [f"t04{n:02}.sse" for n in range(100)]


async def test_the_last_batch_of_results_waits_for_the_one_before_to_be_taken_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judging's last batch comes whether or not the screen took the one before in: it
    was taken in first when that one waited for the keys, and said the judging was done with
    a hundred files unjudged on screen (seen on a loaded machine)."""
    from replay_tui.browse.judging import FolderJudging

    _copies(tmp_path, (f"t{n:04}.sse" for n in range(60)))
    batches = FolderJudging.judge_in_batches

    def one_by_one(self, *args, **options):  # type: ignore[no-untyped-def]
        return batches(self, *args, **options, first=0.0, every=0.0)

    monkeypatch.setattr(FolderJudging, "judge_in_batches", one_by_one)
    waits = iter([0.3])  # the first batch waits for the keys a moment, the rest do not
    monkeypatch.setattr(ReplayApp, "keys_wait", lambda self, since: next(waits, 0.0))
    seen: list[tuple[bool, int]] = []
    counts = ReplayApp._update_counts

    def update_counts(self: ReplayApp) -> None:
        seen.append((self.judging, len(self.store.judgements)))
        counts(self)

    monkeypatch.setattr(ReplayApp, "_update_counts", update_counts)
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot, limit=60)
        assert len(app.store.judgements) == 60
    began = next(k for k, (judging, _) in enumerate(seen) if judging)
    done = [n for judging, n in seen[began:] if not judging]
    assert done and done[0] == 60  # (said done once every file was judged, not before)


async def test_the_judgings_results_wait_for_the_keys_and_are_all_taken_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of results that comes while keys are typed is taken in once they pause (at
    most :attr:`ReplayApp.KEYS_QUIET_AT_MOST` s later); none is lost, and each in order."""
    _copies(tmp_path, (f"t{n:04}.sse" for n in range(300)))
    app = make_app([str(tmp_path)])
    taken: list[int] = []
    real = ReplayApp._resolve

    def resolve(self: ReplayApp, judged, hays=None):  # type: ignore[no-untyped-def]
        taken.append(len(judged))
        real(self, judged, hays)

    monkeypatch.setattr(ReplayApp, "_resolve", resolve)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.trace_list.visible_addresses()))
        # Keys just typed: the batch waits, and goes in once they have paused.
        app._last_key = time.monotonic()
        now = time.monotonic()
        assert app.keys_wait(now) > 0
        assert app.keys_wait(now - app.KEYS_QUIET_AT_MOST) == 0
        await pilot.press("down", "down")
        await settle(app, pilot, limit=60)
        assert len(app.store.judgements) == 300
        assert sum(taken) == 300


async def test_a_batch_held_for_the_keys_is_taken_in_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copies(tmp_path, (f"t{n}.sse" for n in range(3)))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        taken: list[str] = []
        real = app._resolve

        def resolve(judged, hays=None):  # type: ignore[no-untyped-def]
            taken.extend(address for address, _ in judged)
            real(judged, hays)

        monkeypatch.setattr(app, "_resolve", resolve)
        judged = [("t1.sse", [("t1.sse", app.store.judgements["t1.sse"])])]
        app._last_key = time.monotonic()  # a key this instant
        app.post_message(TracesJudged(judged, [], {}, False))
        await pilot.pause()
        assert taken == []  # waiting for the keys to pause
        await until(pilot, lambda: taken == ["t1.sse"])


@pytest.mark.parametrize("size", [(120, 40), (200, 60), (80, 24)])
async def test_details_of_each_trace_moved_to_fit_their_columns(
    size: tuple[int, int],
) -> None:
    """The details of a trace shown in place of another are made for their columns' widths
    as laid out (the verdicts' hanging indents, the metadata's wrapped values), whichever
    way the columns were shared before."""
    app = make_app([str(TRACES)])
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.trace_list.trace_tree.focus()
        await pilot.press("home")
        for _ in range(12):
            await pilot.press("down")
            await settle(app, pilot)
            details = app.details
            verdicts = details.query_one("#details-verdicts", Static)
            assert details._verdicts_width == verdicts.content_region.width
            metadata = details.query_one("#details-metadata", Static)
            if metadata.display:
                assert details._meta_width == metadata.content_region.width


async def test_a_big_batch_is_taken_in_a_step_a_frame_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copies(tmp_path, (f"t{n}.sse" for n in range(5)))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        steps: list[list[str]] = []
        real = app._resolve

        def resolve(judged, hays=None):  # type: ignore[no-untyped-def]
            steps.append([address for address, _ in judged])
            real(judged, hays)

        monkeypatch.setattr(app, "_resolve", resolve)
        monkeypatch.setattr(app, "INTAKE_STEP", 2)
        names = [f"t{n}.sse" for n in range(5)]
        judged = [(a, [(a, app.store.judgements[a])]) for a in names]
        app.post_message(TracesJudged(judged, [], {}, False))
        await until(pilot, lambda: sum(map(len, steps)) == 5)
        assert steps == [names[0:2], names[2:4], names[4:5]]


async def test_a_change_of_focus_restyles_the_list_and_lays_nothing_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/` and escape move the focus between the list and its filter box: the rows on screen
    are styled again (the cursor's colours are the focused list's, then the box's), not made
    again, and nothing asks for a layout of the screen, the first `/` included (the list's
    scrollbar was given its styles only then: its width among them laid every widget out
    again, the first filter key waiting for it: issue 33)."""
    from textual.widget import Widget

    from replay_tui.tui.widgets.trace_list import TraceTree

    # more rows than the list's height: it has a scrollbar
    _copies(tmp_path, (f"t{n:03}.sse" for n in range(120)))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        assert app.focused is tree
        assert tree.show_vertical_scrollbar
        laid_out: list[str] = []
        made: list[str] = []
        real_refresh, real_label = Widget.refresh, TraceTree._label

        def refresh(self: Widget, *regions, **options):  # type: ignore[no-untyped-def]
            if options.get("layout"):
                laid_out.append(repr(self))
            return real_refresh(self, *regions, **options)

        def label(self: TraceTree, row):  # type: ignore[no-untyped-def]
            made.append(row.key)
            return real_label(self, row)

        y = tree.cursor - tree.scroll_offset.y
        text, focused = tree.render_line(y).text, tree.render_line(y)
        monkeypatch.setattr(Widget, "refresh", refresh)
        monkeypatch.setattr(TraceTree, "_label", label)
        for key, focus in (("slash", app.trace_list.filter_input), ("escape", tree)):
            await pilot.press(key)
            await pilot.pause()
            await app.screen.wait_for_refresh()
            assert app.focused is focus
        # In the box, the cursor's row is drawn as the blurred list's; back, as before.
        await pilot.press("slash")
        await pilot.pause()
        blurred = tree.render_line(y)
        assert blurred.text == text and blurred != focused
        await pilot.press("escape")
        await pilot.pause()
        assert tree.render_line(y) == focused
        assert laid_out == []
        assert made == []


async def test_a_new_theme_draws_the_lists_rows_in_its_colours(tmp_path: Path) -> None:
    _copies(tmp_path, (f"t{n}.sse" for n in range(5)))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        y = next(y for y in range(tree.size.height) if "t3.sse" in tree.render_line(y).text)
        before = tree.render_line(y)
        badge = tree.get_component_rich_style("trace-tree--erasing", partial=True)
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(app, pilot)
        after = tree.render_line(y)
        assert after.text == before.text
        assert tree.get_component_rich_style("trace-tree--erasing", partial=True) != badge
        styles = {segment.style for segment in after if segment.text.strip()}
        assert styles.isdisjoint({segment.style for segment in before if segment.text.strip()})

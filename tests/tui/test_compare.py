"""Two-trace compare: mark A (m), open B, the compare tab (5) shows the three levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_tui.tui.app import make_app
from replay_tui.tui.commands import ReplayCommands
from replay_tui.tui.widgets.compare_model import CALL_ROW, EV_ROW, EV_RUN

from .conftest import SIZE, TRACES, rendered, settle

HAR = TRACES / "captures" / "mitmproxy-export.har"
"""#2 a clean OpenAI-style call, #4 the same request through DashScope (id erased by "")."""
AZURE = TRACES / "azure" / "gpt-4o-mini-usage-tail.sse"


def _header(app: object) -> str:
    from replay_tui.tui.app import ReplayApp

    assert isinstance(app, ReplayApp)
    return str(app.compare_pane.header.render())


async def test_mark_a_har_entry_open_another_and_compare_at_three_levels() -> None:
    app = make_app([str(HAR)])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("5")
        assert "Mark a trace with m" in rendered(app.compare_pane.view)[1]
        assert "Only one trace" not in " ".join(rendered(app.compare_pane.view))

        a, b = f"{HAR}#2", f"{HAR}#4"
        app.choose_trace(a)
        await settle(app, pilot)
        await pilot.press("m")
        assert app.marked == a
        # The list shows which trace is A.
        label = app.trace_list.trace_tree.label_of(a)
        assert label is not None and "◆A" in label.plain
        await pilot.press("5")
        # The message wraps where the view's width says, after a path of any length.
        said = " ".join(r.strip() for r in rendered(app.compare_pane.view) if r.strip())
        assert f"{a} is the marked trace (A)" in said

        app.choose_trace(b)
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        assert app.focused is view and view.model is not None
        header = _header(app)
        # The headline first: the outcome under the chosen behavior (accept-identity).
        assert "mitmproxy-export.har#2" in header and "mitmproxy-export.har#4" in header
        assert 'outcome differs under accept-identity: call 0 id: "call_adiD1' in header
        text = "\n".join(rendered(view))
        assert "OUTCOME under accept-identity · 3 differences" in text
        assert "call 0 arguments" in text and "usage" in text
        assert "CALLS · identity evolution" in text and "1 of 1 differ" in text
        assert "erasures" in text and 'erased id by "" on delta 2 (line 3)' in text
        # The "what" column is as wide as its longest label and a space (values get the rest).
        what = [row for row in text.splitlines() if " A:" in row and " │ B:" in row]
        labels = ["call 0 id", "usage", "deltas", "id (assign-always)", "id (accept-identity)"]
        assert all(any(row.strip().startswith(f"{k} ") for row in what) for k in labels)
        assert max(row.index(" A:") for row in what) == len("    id (accept-identity) ") - 1
        assert "EVENTS · payloads aligned on content · 4 of 5 rows differ" in text
        assert "⇇ merged" in text and "▶ only B" in text and "different content" in text
        assert 'model: "gpt-4.1-mini-2025-04-14" vs "qwen3-max"' in text
        # The cursor starts on the first difference; n walks to the next ones.
        assert "call 0 id" in rendered(view, range(view.cursor, view.cursor + 1))[0]
        await pilot.press("n", "n", "n")
        assert "call 0 arguments" not in rendered(view, range(view.cursor, view.cursor + 1))[0]
        await pilot.press("N")
        # b: judged under the old translator instead; the calls show its identity.
        await pilot.press("b")
        assert 'outcome differs under assign-always: call 0 id: "call_adiD1' in _header(app)
        assert 'vs ""' in _header(app)
        text = "\n".join(rendered(view))
        assert "OUTCOME under assign-always" in text
        assert "in force under assign-always" in text
        await pilot.press("b")
        assert "under accept-identity" in _header(app)
        # c copies the row under the cursor; s goes to the next section.
        await pilot.press("s")
        await pilot.press("c")
        assert app.clipboard

        # m on another trace moves the mark there; on the marked one, unmarks it.
        await pilot.press("m")
        assert app.marked == b
        await pilot.press("m")
        assert app.marked is None
        # The palette marks too.
        provider = ReplayCommands(app.screen)
        hits = [hit async for hit in provider.search("mark")]
        best = max(hits, key=lambda h: h.score)
        assert best.text is not None and best.text.startswith("Mark")
        best.command()
        await pilot.pause()
        assert app.marked == b


async def test_identical_runs_collapse_and_expand(tmp_path: Path) -> None:
    """One argument fragment changed in a long stream: the rest folds into runs."""
    lines = AZURE.read_text().splitlines(keepends=True)
    (tmp_path / "a.sse").write_text("".join(lines))
    changed = []
    done = False
    for line in lines:
        if not done and line.startswith("data: {") and '"arguments":"' in line:
            chunk = json.loads(line[6:])
            call = chunk["choices"][0]["delta"]["tool_calls"][0]
            if call["function"].get("arguments") and not call.get("id"):
                call["function"]["arguments"] = call["function"]["arguments"].upper() + "!"
                line = "data: " + json.dumps(chunk) + "\n"
                done = True
        changed.append(line)
    assert done
    (tmp_path / "b.sse").write_text("".join(changed))
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("a.sse")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace("b.sse")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        model = view.model
        assert model is not None and model.event_runs
        text = "\n".join(rendered(view))
        assert "identical payloads" in text and "identical deltas" in text
        assert "call 0 arguments" in _header(app)
        # enter on a collapsed run expands it, enter inside it folds it again.
        run_row = next(i for i, e in enumerate(model.display) if e[0] == EV_RUN)
        before = len(model.display)
        view.move_cursor(run_row)
        await pilot.press("enter")
        assert len(model.display) > before
        assert model.display[view.cursor][0] == EV_ROW
        await pilot.press("enter")
        assert len(model.display) == before
        # z expands every run; again folds them all.
        await pilot.press("z")
        assert not any(e[0] == EV_RUN for e in model.display)
        assert sum(1 for e in model.display if e[0] == CALL_ROW) == sum(
            len(c.rows) for c in model.diff.calls
        )
        await pilot.press("z")
        assert len(model.display) == before
        # A click on a run expands it too.
        run_row = next(i for i, e in enumerate(model.display) if e[0] == EV_RUN)
        view.scroll_to(y=run_row, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click("#compare-view", offset=(10, run_row - int(view.scroll_y)))
        assert len(model.display) > before


async def test_the_compare_prompt_wraps_to_the_width_and_is_never_cut() -> None:
    """Started on one file, the prompt also says how to have another trace to compare (its
    "open another (B)" could not be followed)."""
    from replay_tui.tui.widgets.compare_pane import ALONE, ALONE_TO_COMPARE, NOTHING_MARKED

    app = make_app([str(AZURE)])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        rows = [r.strip() for r in rendered(view)]
        assert len(rows) > 2 and " ".join(r for r in rows if r) == NOTHING_MARKED + ALONE
        assert "(replay-tui a.sse b.sse)" in ALONE
        assert all(len(r) <= view.scrollable_content_region.width for r in rendered(view))
        await pilot.press("n")  # nothing compared yet: n says what to do, not "no more below"
        assert str(list(app._notifications)[-1].message) == NOTHING_MARKED + ALONE
        await pilot.press("m")
        said = " ".join(r.strip() for r in rendered(view) if r.strip())
        assert said.endswith(f"is the marked trace (A): {ALONE_TO_COMPARE}")
        toast = str(list(app._notifications)[-1].message)
        assert toast.endswith(f"as A: {ALONE_TO_COMPARE}")


async def test_the_new_keys_have_ids_and_are_in_the_help_and_the_palette() -> None:
    from textual.binding import Binding

    from replay_tui.tui.screens.help import HelpScreen
    from replay_tui.tui.widgets.clients_view import ClientsMatrix
    from replay_tui.tui.widgets.compare_view import CompareView

    app = make_app([str(AZURE)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("Static").render())
        ids = ["view-clients", "view-compare", "mark-trace"]
        for cls in (ClientsMatrix, CompareView):
            for binding in cls.BINDINGS:
                assert isinstance(binding, Binding) and binding.id
                ids.append(binding.id)
        for binding_id in ids:
            assert binding_id in text
        await pilot.press("escape")
        names = {name for name, _, _ in ReplayCommands(app.screen)._actions()}
        assert {
            "Show clients",
            "Mark trace for comparison",
            "Compare with the marked trace",
            "Compare under the other behavior",
        } <= names


async def test_the_compare_view_follows_a_changing_a_and_b(tmp_path: Path) -> None:
    """Live reload: A rewritten on disk while B is open; the comparison is redone."""
    from .conftest import until
    from .test_watching import settle as settle_watching

    text = AZURE.read_text()
    (tmp_path / "a.sse").write_text(text)
    (tmp_path / "b.sse").write_text(text)
    app = make_app([str(tmp_path)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle_watching(app, pilot)
        app.choose_trace("a.sse")
        await settle_watching(app, pilot)
        await pilot.press("m")
        app.choose_trace("b.sse")
        await settle_watching(app, pilot)
        await pilot.press("5")
        await until(pilot, lambda: app.compare_pane.view.model is not None)
        assert "same outcome under accept-identity" in _header(app)
        # A gateway change lands in A: the id of the call is erased on its continuations.
        (tmp_path / "a.sse").write_text(text.replace('"id":"call_', '"id":"CALL_'))
        await until(pilot, lambda: "outcome differs" in _header(app))
        assert 'call 0 id: "CALL_' in _header(app)


async def test_the_marked_trace_says_how_to_get_back_to_the_list_and_compare() -> None:
    """A new user marked a trace, pressed 5, and ↑↓ did nothing: the focus is in the compare
    view, and the list is a shift+tab away. The message says so, and that way works."""
    app = make_app([str(HAR)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        a = f"{HAR}#2"
        app.choose_trace(a)
        await settle(app, pilot)
        await pilot.press("m", "5")
        await settle(app, pilot)  # (laid out: the message is wrapped to the view's width)
        view = app.compare_pane.view
        said = " ".join(r.strip() for r in rendered(view) if r.strip())
        assert "is the marked trace (A)" in said and "(shift+tab goes back to the list)" in said
        assert app.focused is view
        await pilot.press("shift+tab", "down")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == f"{HAR}#4"
        model = view.model
        assert model is not None and (model.a.address, model.b.address) == (a, f"{HAR}#4")
        # At 80x24 the ids are cut to their column ("call_621bcbeb4…"): enter shows them whole.
        from replay_tui.tui.screens.payload import PayloadScreen

        await pilot.press("tab")
        assert app.focused is view
        assert "call 0 id" in rendered(view, range(view.cursor, view.cursor + 1))[0]
        await pilot.press("enter")
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, PayloadScreen)
        headings = [h for h, _ in shown.sections]
        assert headings == [f"A · {a} · line 1", f"B · {HAR}#4 · line 1"]
        assert [t for _, t in shown.sections] == [
            '"call_adiD1IwqgpMcdUUu207kXY7E"',
            '"call_621bcbeb47c6bf2e5e83a69e"',
        ]
        await pilot.press("escape")
        assert app.screen is not shown and app.focused is view


async def test_at_80x24_the_section_heading_stays_on_top_and_arrows_reach_b() -> None:
    """At 80x24 the compare view shows a dozen rows: scrolled into the calls or the events,
    the top line still says which section the rows under it are in, and the cursor never
    hides under that line. Beside the list, ← → reach both halves."""
    app = make_app([str(HAR)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.choose_trace(f"{HAR}#2")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace(f"{HAR}#4")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        model = view.model
        assert model is not None and len(model.sections) == 3

        def line(y: int) -> str:
            return "".join(s.text for s in view.render_line(y))

        assert line(0).startswith("─ OUTCOME")
        assert view.scroll_offset.y == 0 and line(1).lstrip().startswith("what")
        # Made too low for its cursor for a moment (a layout on its way, a terminal shrunk),
        # the view scrolled to keep it; given its height back, it is where it was (a resize
        # at the wrong moment left it a row down, the table's heading hidden).
        await pilot.resize_terminal(80, 14)
        await settle(app, pilot)
        assert view.scroll_offset.y > 0
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert view.scroll_offset.y == 0 and line(1).lstrip().startswith("what")
        calls, events = model.sections[1], model.sections[2]
        for top, heading in ((calls + 2, "─ CALLS"), (events - 2, "─ CALLS"), (events, "─ EVENTS")):
            view.scroll_to(y=top, animate=False, immediate=True, force=True)
            await pilot.pause()
            assert line(0).startswith(heading), (top, line(0))
            assert view.row_at(0) in model.sections and view.row_at(1) == top + 1
        # A heading about to scroll up to the top line is shown in its place, not twice.
        view.scroll_to(y=events - 1, animate=False, immediate=True, force=True)
        await pilot.pause()
        assert line(1).startswith("─ EVENTS") and not line(0).strip()
        # Scrolled with the heading pinned, ↑ from the row under it scrolls: the cursor's row
        # is on screen below the top line, not under it.
        view.scroll_to(y=calls + 2, animate=False, immediate=True, force=True)
        view.move_cursor(calls + 3)
        await pilot.press("up")
        await pilot.pause()
        assert view.cursor == calls + 2
        assert any(view.row_at(y) == view.cursor for y in range(1, view.size.height))
        # A click on the heading selects nothing.
        await pilot.click(view, offset=(4, 0))
        assert view.cursor == calls + 2
        # Beside the list the view is narrower than its rows: → shows B's half, ← A's again.
        assert view.size.width < 60
        shown = [line(y) for y in range(view.size.height)]
        assert not any("B:1" in text for text in shown)
        labels = [text[:20] for text in shown if " A:" in text]
        assert "    deltas          " in labels  # (a call's differences: what each is about)
        await pilot.press("right")
        await pilot.pause()
        assert any("B:1" in line(y) for y in range(view.size.height))
        # ... each row still saying which field it is (they went with A's half).
        moved = [line(y) for y in range(view.size.height)]
        assert [text[:20] for text in moved if " B:" in text] == labels
        for y, text in enumerate(moved):  # A's values, cut at their start, say so
            if " B:" in text:
                assert text[view.row_sticky(view.row_at(y))] == "…", text
        await pilot.press("left")
        await pilot.pause()
        assert view.scroll_offset.x == 0
        # A call's delta table keeps CALL_SIDE cells a side (its ids were cut to "ca…E"):
        # the view scrolls to B's side of it.
        from replay_tui.tui.widgets.compare_model import CALL_ROW
        from replay_tui.tui.widgets.compare_view import CALL_SIDE

        first = next(i for i, entry in enumerate(model.display) if entry[0] == CALL_ROW)
        row = rendered(view, range(first, first + 1))[0]
        assert row.index(" │ ") >= 2 + CALL_SIDE and '"call…XY7E" "get…her"' in row
        await pilot.press("right")
        await pilot.pause()
        view.scroll_to(y=first - 1, animate=False, immediate=True, force=True)
        await pilot.pause()
        assert '"call…a69e"' in line(1)  # B's id, on screen
        # ... beside the mark and A's delta and line: which pair the row is, still said.
        sticky = view.row_sticky(first)
        assert sticky > 2 and line(1)[:sticky] == row[:sticky]
        assert line(1)[:sticky].split() == ["≠", "1", "1"]  # (delta 1, line 1: its ids differ)
        # ... while the heading above stays where it is read, cut with "…".
        heading = line(0)[: view.scrollable_content_region.width]  # (the bar covers the rest)
        assert heading.startswith("─ CALLS · identity evolution") and heading.endswith("…")


async def test_a_marked_trace_the_cache_let_go_is_read_again_by_the_app() -> None:
    """The compare pane never reads a file: the app reads A again and hands it over."""
    from replay_tui.tui.store import TraceStore

    app = make_app([str(HAR)])
    app.store = TraceStore(cache_bytes=1)  # only the open trace stays cached
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        a, b = f"{HAR}#2", f"{HAR}#4"
        app.choose_trace(a)
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace(b)
        await settle(app, pilot)
        assert app.store.get(a) is None
        await pilot.press("5")  # "Reading the marked trace…" until the app has read it
        await settle(app, pilot)
        await app.workers.wait_for_complete(
            [w for w in app.workers if w.group in ("marked", "compare")]
        )
        await pilot.pause()
        model = app.compare_pane.view.model
        assert model is not None
        assert (model.a.address, model.b.address) == (a, b)
        assert app.store.get(a) is model.a  # read by the app, into its store
        assert 'outcome differs under accept-identity: call 0 id: "call_adiD1' in _header(app)
        # While the app reads A, the pane says so (it is handed no trace, and reads none).
        assert app.current is not None
        app.compare_pane.show(a, None, app.current)
        assert "Reading the marked trace" in rendered(app.compare_pane.view)[1]


async def test_keys_typed_right_after_moves_act_on_the_row_the_cursor_reached() -> None:
    """Keys typed faster than the list answers (a user who knows the way: ↓ ↓ m) come in as a
    terminal sends them, with no wait between them: m and c act on the row the moves reached,
    not on the one they left (the list and the app learn of a move by message, a step late)."""
    from textual import events

    app = make_app([str(TRACES)])

    def typed(*keys: str) -> None:
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        listing = app.trace_list.listing
        assert app.focused is tree
        start = tree.cursor
        typed("down", "down", "m")
        await settle(app, pilot)
        reached = listing.row(start + 2)
        assert tree.cursor == start + 2 and reached.kind == "trace"
        assert app.marked == reached.key
        typed("down", "c")
        await settle(app, pilot)
        assert app.clipboard == str(TRACES / listing.row(start + 3).key)

        # From a file that is not a trace (README.md, the first row) onto a trace: the trace.
        readme = listing.row_of("README.md")
        assert readme is not None and listing.row(readme).kind == "skipped"
        tree.move_to(readme)
        await settle(app, pilot)
        assert app.not_a_trace is not None
        first = next(n for n in range(readme, len(listing.rows)) if listing.row(n).kind == "trace")
        typed(*["down"] * (first - readme), "c", "m")
        await settle(app, pilot)
        assert app.clipboard == str(TRACES / listing.row(first).key)
        assert app.marked == listing.row(first).key
        # And back onto it: the file's path, and nothing to mark.
        typed(*["up"] * (first - readme), "c", "m")
        await settle(app, pilot)
        assert app.clipboard == str(TRACES / "README.md")
        assert app.marked == listing.row(first).key


async def test_the_palette_runs_the_compare_views_walks_and_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The palette lacked export and the compare view's next / previous difference and
    next level (section)."""
    monkeypatch.setenv("REPLAY_TUI_EXPORT_DIR", str(tmp_path))
    app = make_app([str(HAR)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace(f"{HAR}#2")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace(f"{HAR}#4")
        await settle(app, pilot)
        commands = {name: run for name, _, run in ReplayCommands(app.screen)._actions()}
        commands["Next difference (compare)"]()  # from the calls view: compare is shown
        await settle(app, pilot)
        view = app.compare_pane.view
        assert app.tabs.active == "compare" and view.model is not None
        first = view.cursor
        commands["Next difference (compare)"]()
        await settle(app, pilot)
        assert view.cursor > first and view.model.is_difference(view.model.display[view.cursor])
        commands["Previous difference (compare)"]()
        await settle(app, pilot)
        assert view.cursor == first
        sections = view.model.sections
        commands["Next level: outcome, calls, events (compare)"]()
        await settle(app, pilot)
        assert view.cursor == min(s for s in sections if s > first) + 1
        commands["Export report"]()
        await settle(app, pilot)
        [written] = list(tmp_path.iterdir())
        assert written.suffix == ".html" and "mitmproxy-export" in written.name


async def test_compare_a_b_opens_both_with_a_marked_in_the_compare_view() -> None:
    """``replay-tui --compare A B`` (and ``probe --tui``): no m, no 5 to press."""
    a = (TRACES / "dashscope" / "qwen3-max-id-empty.sse").as_posix()
    b = (TRACES / "writer" / "palmyra-x5-all-null.sse").as_posix()
    app = make_app([a, b], compare=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.marked == a
        assert app.current is not None and app.current.address == b
        assert app.tabs.active == "compare"
        view = app.compare_pane.view
        assert view.model is not None and app.focused is view
        assert "outcome differs under accept-identity" in _header(app)


async def test_the_compare_view_says_a_was_deleted_as_soon_as_it_is(tmp_path: Path) -> None:
    """Live reload: A deleted on disk while the compare view is open; it says so at once,
    not when the view is next entered, and compares again once A is back."""
    from .conftest import until
    from .test_watching import settle as settle_watching

    text = AZURE.read_text()
    (tmp_path / "a.sse").write_text(text)
    (tmp_path / "b.sse").write_text(text)
    app = make_app([str(tmp_path)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle_watching(app, pilot)
        app.choose_trace("a.sse")
        await settle_watching(app, pilot)
        await pilot.press("m")
        app.choose_trace("b.sse")
        await settle_watching(app, pilot)
        await pilot.press("5")
        await until(pilot, lambda: app.compare_pane.view.model is not None)
        (tmp_path / "a.sse").unlink()
        said = "The marked trace (A) a.sse was deleted: mark another (m)."
        await until(pilot, lambda: said in " ".join(rendered(app.compare_pane.view)))
        assert not app.compare_pane.header.display  # no header of a comparison gone
        (tmp_path / "a.sse").write_text(text)  # back: compared again
        await until(
            pilot, lambda: "same outcome" in _header(app) and app.compare_pane.header.display
        )

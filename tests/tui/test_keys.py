"""Keys and mouse: copy, help, command palette, tabs, focus, remapping, quit; details."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from replay_tui.core.translator import Behavior
from replay_tui.tui.app import ReplayApp, make_app
from replay_tui.tui.commands import ReplayCommands
from replay_tui.tui.screens.help import HelpScreen, binding_rows
from replay_tui.tui.widgets.diff_view import DiffView
from replay_tui.tui.widgets.line_view import LineView
from replay_tui.tui.widgets.trace_list import TraceTree

from .conftest import SIZE, TRACES, settle, until

QWEN = TRACES / "dashscope" / "qwen3-max-id-empty.sse"


async def test_c_copies_the_selection_of_each_view_and_says_so() -> None:
    app = make_app([str(QWEN)])
    line3 = QWEN.read_text().splitlines()[2]  # the flagged delta's payload
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        assert app.clipboard == line3
        said = f"delta 2 of call 0 (line 3) ({len(line3):,} characters) to the terminal's"
        assert any(
            n.title == "Copied" and str(n.message).startswith(said) for n in app._notifications
        )
        await pilot.press("home", "c")  # the call title copies the assembled call
        assert '"accept-identity"' in app.clipboard and '"arguments"' in app.clipboard
        await pilot.press("end", "3")  # the raw view follows the selected delta
        await settle(app, pilot)
        await pilot.press("c")
        assert app.raw_view.selected is not None
        last = app.raw_view.selected[0]
        assert last > 3
        assert app.clipboard == QWEN.read_text().splitlines()[last - 1]
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("c")
        lines = app.clipboard.splitlines()
        assert lines[0].startswith("assign-always: {") and lines[1].startswith("accept-identity: {")


async def test_question_mark_lists_every_binding_with_its_id() -> None:
    app = make_app([str(QWEN)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("Static").render())
        for cls in (ReplayApp, TraceTree, LineView, DiffView, HelpScreen):
            for binding in cls.BINDINGS:
                assert binding.id, f"{cls.__name__} binding {binding.key} has no id"  # type: ignore[union-attr]
                assert binding.id in text  # type: ignore[union-attr]
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        await pilot.click(offset=(1, 1))  # beside the box: the mouse closes it too
        assert not isinstance(app.screen, HelpScreen)


async def test_the_help_scrolls_from_the_keyboard_and_the_mouse_and_tab_stays_in_it() -> None:
    # At 80x24 the box shows a few keys of some fifty: the rest are reached by scrolling.
    from textual.containers import VerticalScroll
    from textual.events import MouseScrollDown

    app = make_app([str(TRACES)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        box = help_screen.query_one(VerticalScroll)

        async def scrolled(*keys: str) -> float:
            """Where the box is once the keys' scrolling is drawn and has come to rest (a
            scroll lands on a refresh, and may take a few: a loaded machine draws fewer)."""
            await pilot.press(*keys)
            last, still = None, 0
            for _ in range(40):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(help_screen.wait_for_refresh(), 0.25)
                await pilot.pause()
                still = still + 1 if box.scroll_y == last else 0
                last = box.scroll_y
                if still >= 2:
                    break
            return box.scroll_y

        await scrolled()  # laid out for its width, then the box measured
        assert box.max_scroll_y > 0
        assert await scrolled("down") == 1
        assert await scrolled("pagedown") > 1
        assert await scrolled("end") == box.max_scroll_y
        assert 0 < await scrolled("pageup") < box.max_scroll_y
        assert await scrolled("home") == 0
        await pilot.press("tab", "shift+tab")  # the app's pane keys leave the list alone
        assert app.screen is help_screen and app.focused is box
        assert app.screen_stack[0].focused is app.trace_list.trace_tree
        help_screen.post_message(MouseScrollDown(box, 10, 5, 0, 0, 1, False, False, False))
        assert await scrolled() > 0
        for key in ("escape", "q", "question_mark"):  # each closes it (q does not quit)
            if not isinstance(app.screen, HelpScreen):
                await pilot.press("question_mark")
            await pilot.press(key)
            assert not isinstance(app.screen, HelpScreen) and app.is_running
        assert app.focused is app.trace_list.trace_tree


@pytest.mark.parametrize("width", [80, 60, 44, 30])
async def test_the_footer_always_ends_with_where_every_key_is(width: int) -> None:
    # Hints that do not fit are left out; the line says where all of them are, at any width.
    from replay_tui.tui.widgets.key_hints import KeyHints

    app = make_app([str(TRACES)])
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(app, pilot)
        footer = app.query_one(KeyHints)
        line = footer.render_line(0).text.rstrip()
        assert "? all keys" in line and len(line) <= width
        assert line.endswith("? all keys  ^p Commands") or (
            width < 40 and line.endswith("? all keys")
        )
        await pilot.click(KeyHints, offset=(line.index("? all keys") + 1, 0))
        assert isinstance(app.screen, HelpScreen)


def test_help_shows_remapped_keys() -> None:
    rows = binding_rows([("x", list(ReplayApp.BINDINGS))], {"next-flag": "j"})
    assert (
        "x",
        "j",
        "Select the next delta that erased an identity, across the calls",
        "next-flag",
    ) in rows


async def test_bindings_can_be_remapped_by_id() -> None:
    app = make_app([str(TRACES / "writer" / "palmyra-x5-all-null.sse")], keymap={"next-flag": "x"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first = app.calls_view.cursor
        await pilot.press("x")
        assert app.calls_view.cursor != first
        await pilot.press("n")  # the old key no longer walks flags
        assert app.calls_view.cursor != first


async def test_command_palette_opens_traces_and_runs_every_main_action() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"ollama")
        await settle(app, pilot)  # the palette's search (a worker) has gathered every hit
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "ollama/qwen3-no-id.sse"
        # Every main action is in the palette, and runs (checked here without the typing).
        provider = ReplayCommands(app.screen)
        names = {name for name, _, _ in provider._actions()}
        for action in (
            "Next flag",
            "Previous flag",
            "Show calls",
            "Show diff",
            "Show raw capture",
            "Copy selection",
            "Filter traces",
            "Keys",
            "Show only erasing traces",
        ):
            assert action in names
        hits = [hit async for hit in provider.search("show diff")]
        best = max(hits, key=lambda h: h.score)
        assert best.text == "Show diff"
        best.command()
        await pilot.pause()
        assert app.tabs.active == "diff"
        # A view's action run from another view shows its view first, built if never shown.
        commands = {name: command for name, _, command in provider._actions()}
        assert not app.compare_pane.is_mounted
        commands["Compare under the other behavior"]()
        await settle(app, pilot)
        assert app.tabs.active == "compare" and app.focused is app.compare_pane.view
        assert app.compare_pane.view.behavior is Behavior.ASSIGN_ALWAYS
        await pilot.press("1")
        app.choose_trace("captures/late-id.sse")  # its diff has a run of identical chunks
        await settle(app, pilot)
        commands["Expand or collapse identical chunks"]()
        await settle(app, pilot)
        model = app.diff_view.model
        assert app.tabs.active == "diff" and model is not None and model.trace is app.current
        assert model.runs and len(model.expanded) == len(model.runs)


async def test_tabs_switch_by_number_and_by_click_and_tab_cycles_panes() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        # A view is built when its tab is first shown, not at start (the first screen waits
        # for none of them), by key or by click, and gets the open trace and the keys.
        views = [app.diff_view, app.raw_view, app.clients_pane, app.compare_pane]
        assert not any(view.is_mounted for view in views)
        await pilot.press("3")
        await settle(app, pilot)
        assert app.tabs.active == "raw" and app.focused is app.raw_view
        assert app.raw_view.model is not None and app.raw_view.model.trace is app.current
        assert not app.diff_view.is_mounted
        await pilot.click("#--content-tab-diff")
        await settle(app, pilot)
        assert app.tabs.active == "diff" and app.focused is app.diff_view
        assert app.diff_view.model is not None and app.diff_view.model.trace is app.current
        await pilot.click("#--content-tab-calls")
        assert app.tabs.active == "calls"
        # tab visits the panes the help names, list, view, details, and comes round again.
        seen = []
        for _ in range(4):
            await pilot.press("tab")
            seen.append(app.focused.id if app.focused else None)
        assert seen == ["details", "trace-tree", "calls-view", "details"]
        await pilot.press("shift+tab")
        assert app.focused is app.calls_view


async def test_details_say_what_each_verdict_means_and_show_metadata() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace("captures/mitmproxy-export.har#4")
        await settle(app, pilot)
        main = app.details._main.plain
        assert "assign-always    unidentified-call" in main
        assert 'the tool registry refuses it as unknown tool ""' in main
        assert "accept-identity  ok" in main and "means works" in main
        assert "line 3    erased id" in main
        meta = app.details._meta.plain
        assert "HAR entry" in meta and "#4" in meta
        assert "POST https://" in meta or "POST http" in meta
        assert "payloads" in meta and "size" in meta

        app.choose_trace("litellm/proxy-curl-i.txt")
        await settle(app, pilot)
        meta = app.details._meta.plain
        assert "HTTP/1.1 200 OK" in meta
        assert "header content-type" in meta
        assert "name-string-null" in app.details._main.plain
        assert str(app.query_one("#watch-state").render()) == "○ not watching"
        await pilot.press("d")
        assert not app.details.display


async def test_the_header_says_it_watches_and_q_quits() -> None:
    app = make_app([str(QWEN)], watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert str(app.query_one("#watch-state").render()) == "● watching"
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_enter_shows_the_selected_payload_in_full() -> None:
    from replay_tui.tui.screens.payload import PayloadScreen

    app = make_app([str(QWEN)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")  # on the flagged delta
        assert isinstance(app.screen, PayloadScreen)
        text = str(app.screen.query_one("Static").render())
        assert '"id": ""' in text and '"tool_calls": [' in text  # pretty-printed JSON
        await pilot.press("c")
        assert app.clipboard == QWEN.read_text().splitlines()[2]
        await pilot.press("escape")
        await pilot.press("3")  # the raw view, once built: the payload of the selected line
        await settle(app, pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, PayloadScreen)
        box = app.screen.query_one("#payload-scroll")
        await pilot.resize_terminal(80, 12)  # less room than the payload needs
        await settle(app, pilot)  # laid out again for the new size
        assert box.max_scroll_y > 0 and app.focused is box  # its keys scroll it
        await pilot.press("end")  # a scroll container scrolls a refresh or two after the key
        await until(pilot, lambda: box.scroll_y == box.max_scroll_y, limit=5)
        await pilot.press("home")
        await until(pilot, lambda: box.scroll_y == 0, limit=5)
        await pilot.press("escape")
        await pilot.resize_terminal(*SIZE)
        await pilot.press("enter")
        assert isinstance(app.screen, PayloadScreen)
        await pilot.press("escape", "2")
        await settle(app, pilot)
        await pilot.press("enter")  # the diff: both chunks
        assert isinstance(app.screen, PayloadScreen)
        text = str(app.screen.query_one("Static").render())
        assert "assign-always" in text and "accept-identity" in text


def _keys_shown(app: ReplayApp) -> dict[str, str]:
    from replay_tui.tui.app import binding_sections

    return {r[3]: r[1] for r in binding_rows(binding_sections(), app.keymap_overrides) if r[3]}


async def test_a_remap_onto_a_key_in_use_is_refused_and_the_help_shows_what_works() -> None:
    """mark-trace = "q" made q mark everywhere, left quit with no key, and the help still
    said q leaves; next-flag = "j" lost both: j moved the cursor and n did nothing."""
    app = make_app([str(TRACES / "dashscope")], keymap={"mark-trace": "q", "next-flag": "j"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert app.keymap_overrides == {}
        [said] = [str(n.message) for n in app._notifications if "keymap" in str(n.message)]
        assert "q stays quit's in the trace list: mark-trace keeps m" in said
        assert "j stays list-down's in the trace list: next-flag keeps n" in said
        shown = _keys_shown(app)
        assert (shown["quit"], shown["mark-trace"], shown["next-flag"]) == ("q", "m", "n")
        tree = app.trace_list.trace_tree
        before = tree.cursor_row.key if tree.cursor_row else None
        await pilot.press("j")
        await settle(app, pilot)
        assert tree.cursor_row is not None and tree.cursor_row.key != before
        await pilot.press("m")
        assert app.marked is not None
        app.calls_view.focus()
        await pilot.pause()
        active = app.screen.active_bindings
        assert active["n"].binding.id == "next-flag" and active["j"].binding.id == "cursor-down"
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_a_key_freed_by_moving_its_binding_goes_where_the_keymap_says() -> None:
    app = make_app([str(TRACES / "dashscope")], keymap={"mark-trace": "q", "quit": "ctrl+q"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert app.keymap_overrides == {"mark-trace": "q", "quit": "ctrl+q"}
        assert not [n for n in app._notifications if "keymap" in str(n.message)]
        shown = _keys_shown(app)
        assert (shown["quit"], shown["mark-trace"]) == ("ctrl+q", "q")
        await pilot.press("q")
        assert app.marked is not None and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0

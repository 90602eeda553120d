"""The first minute in the TUI (issue 12): focus, the filter, sizes, the first flag, counting.

Each test drives one app as a new user would, at the smallest terminal the README promises
(80×24) unless the point is another size.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from replay_tui.browse import judging as browse_judging
from replay_tui.tui.app import ReplayApp, check_keymap, make_app
from replay_tui.tui.commands import ReplayCommands
from replay_tui.tui.screens.help import binding_rows, help_text

from .conftest import TRACES, held, settle, until

SMALL = (80, 24)


def write_late_flag_trace(path: Path, deltas: int = 20_000, flag_at: int = 10_003) -> Path:
    """One call of ``deltas`` deltas whose id is erased (``""``) first at delta ``flag_at``.

    The continuations leave the id out (absent keeps the identity), so nothing before
    ``flag_at`` is flagged: the first flag sits in the middle of a long trace."""
    head = (
        '{"id":"chatcmpl-late","object":"chat.completion.chunk","model":"qwen3-max",'
        '"choices":[{"index":0,"delta":{"tool_calls":['
    )
    tail = ']},"finish_reason":null}]}\n\n'
    first = '{"index":0,"id":"call_late","type":"function","function":{"name":"read_file","arguments":""}}'
    cont = f'data: {head}{{"index":0,"function":{{"arguments":"x"}}}}{tail}'
    erase = f'data: {head}{{"index":0,"id":"","function":{{"arguments":"y"}}}}{tail}'
    path.write_text(
        f"data: {head}{first}{tail}"
        + cont * (flag_at - 2)
        + erase
        + cont * (deltas - flag_at)
        + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + "data: [DONE]\n\n"
    )
    return path


def _text(widget: Static) -> str:
    return str(widget.render())


async def test_filter_is_visible_keeps_the_open_trace_and_escape_leaves_then_clears() -> None:
    app = make_app([str(TRACES)])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        tree, box = app.trace_list.trace_tree, app.trace_list.filter_input
        assert app.focused is tree  # never the filter box: keys are commands
        opened = app.current.address if app.current else None
        assert opened is not None
        # A call's title too long for the view ends in "…", even cut between two words
        # ("block 0 · 3 deltas" read as whole; "from line 5" was silently dropped).
        view = app.calls_view
        room = view.scrollable_content_region.width
        title = "".join(s.text for s in view.render_line(0))[:room]
        assert title.startswith("▸ call 0") and title.endswith("…")
        await pilot.press("slash", *"dash")
        assert app.focused is box and box.value == "dash"
        assert box.content_region.height == 1  # the text has a row to be seen in
        assert sorted(app.trace_list.visible_addresses()) == [
            "dashscope/glm-5.2-id-and-name-empty.sse",
            "dashscope/qwen3-max-id-empty.sse",
        ]
        await pilot.pause()
        assert app.current is not None and app.current.address == opened  # still open
        # ... and the list says so: it does not pass for what the views show.
        empty = app.trace_list.query_one("#list-empty", Static)
        hidden = f"open: {opened.rpartition('/')[2]}\n(filtered out)"  # (a name a line)
        assert empty.display and _text(empty) == hidden
        await pilot.press("escape")
        assert app.focused is tree and box.value == "dash"  # left, filter kept
        await pilot.press("escape")
        assert box.value == "" and len(app.trace_list.visible_addresses()) == 26  # cleared
        assert not empty.display
        # The filter reads the model every form names: raw SSE chunks, a HAR request.
        await pilot.press("slash", *"claude", "enter")
        assert app.focused is tree
        assert sorted(app.trace_list.visible_addresses()) == [
            "captures/empty-finish-reason.sse",
            "captures/late-id.sse",
            "envoy/bedrock-parallel-unterminated-done.sse",
            "envoy/vertex-anthropic-parallel.sse",
            "openrouter/processing-comments.sse",
        ]
        assert app.current.address == opened
        await pilot.press("escape", "slash", *"zzz")
        await pilot.pause()
        assert empty.display and _text(empty) == f"no trace matches `zzz`\n{hidden}"
        await pilot.press("escape", "escape")
        assert not empty.has_class("-shown")
        # l hides the list (the focus goes to the view), and shows it again (and focuses it).
        await pilot.press("l")
        assert not app.trace_list.display and app.focused is app.calls_view
        await pilot.press("l")
        assert app.trace_list.display and app.focused is tree
        # d hides details the focus is in: the focus goes to the view, never stays hidden.
        await pilot.press("tab", "tab")
        assert app.focused is app.details
        await pilot.press("d")
        assert not app.details.display and app.focused is app.calls_view
        await pilot.press("tab", "tab")  # with details hidden: list, view, list
        assert app.focused is app.calls_view
        # v walks the badges some trace has: no "in progress" (0 of them) here; then the
        # files that are not traces (README.md, request-body.json), the first one under the
        # cursor, and the list says only that the open trace is not among them.
        listing = app.trace_list.listing
        seen = []
        for _ in range(6):
            await pilot.press("v")
            seen.append(app.trace_list.badge_filter)
            if seen[-1] == "skipped":
                await settle(app, pilot)
                assert [row.kind for row in map(listing.row, range(len(listing.rows)))] == [
                    "skipped",
                    "folder",
                    "skipped",
                ]
                assert tree.cursor_row == listing.row(0)
                assert _text(empty).startswith("open: ")
        assert seen == ["erasing", "refused", "broken", "clean", "skipped", None]


async def test_an_empty_folder_says_so_and_q_quits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(["."])
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(app, pilot)
        assert _text(app.trace_list.query_one("#list-empty", Static)) == "no trace found"
        # "under .." read as the parent folder; n spoke of "this trace" with none open.
        text = "\n".join(app.details.copy_text())
        assert text.startswith("No trace found under the current folder (.).\n")
        # ... and what to do next: where captures come from, and how to make some here.
        assert "raw SSE (.sse), `curl -i` output, a HAR export (.har)" in text
        assert "  replay-tui record --upstream https://GATEWAY --out . --tui" in text
        assert "Or open another folder: replay-tui PATH" in text
        await pilot.press("n", "n", "n")
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert said == ["No trace open yet: no flags to walk."]  # once, not piled up three times
        await pilot.press("x", "l", "q")  # no key lands in the filter box
        assert app.trace_list.filter_input.value == ""
    assert app.return_code == 0


async def test_what_the_start_up_made_is_frozen_before_the_collector_is_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI pauses the collector for the start-up; its first pass once back on walked the
    60,000 objects Textual's import and the app made, 50-250 ms of the screen's thread as a
    big folder's list came. They are frozen first."""
    import gc

    said: list[str] = []
    freeze, enable = gc.freeze, gc.enable

    def freezing() -> None:
        said.append("freeze")
        freeze()

    def enabling() -> None:
        said.append("enable")
        enable()

    monkeypatch.setattr(gc, "freeze", freezing)
    monkeypatch.setattr(gc, "enable", enabling)
    (tmp_path / "a.sse").write_bytes((TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes())
    was = gc.isenabled()
    gc.disable()
    try:
        app = make_app([str(tmp_path)])
        app.collect_after_start = True  # (as run_app sets it when the CLI paused it)
        async with app.run_test(size=SMALL) as pilot:
            await settle(app, pilot)
            assert gc.isenabled()
        assert said[:2] == ["freeze", "enable"]
    finally:
        (enable if was else gc.disable)()


@pytest.mark.parametrize("given", ["folder", "file"])
async def test_a_long_trace_opens_on_its_first_flag_and_n_counts_as_the_header(
    tmp_path: Path, given: str
) -> None:
    # A folder: judged first, then opened from the cache; a file: opened in decoding steps,
    # the flag arriving with a later step.
    path = write_late_flag_trace(tmp_path / "late.sse")
    app = ReplayApp([str(tmp_path if given == "folder" else path)], first_slice=4096)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(app, pilot)
        view = app.calls_view
        found = view.selected_delta()
        assert found is not None and found[1].delta == 10_003
        top = int(view.scroll_offset.y)
        assert top <= view.cursor < top + view.scrollable_content_region.height  # on screen
        await pilot.press("n")
        assert view.selected_delta() == found  # the only flag: n comes back to it
        assert any(
            "Flag 1 of 1: erased id on line 20005" in str(n.message) for n in app._notifications
        )


async def test_one_counting_everywhere_header_details_and_n() -> None:
    # Each of the two calls erased its id and its name on one delta: 4 flags on 2 rows.
    app = make_app([str(TRACES / "writer" / "palmyra-x5-all-null.sse")])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(app, pilot)
        assert app.current is not None
        flags = len(app.current.analysis.flags)
        assert flags == 4
        assert f"{flags} flags" in _text(app.trace_header)
        assert f"Flags ({flags})" in app.details._main.plain
        await pilot.press("n")
        toasts = [str(n.message) for n in app._notifications]
        assert any(t.startswith("Flags 3–4 of 4: ") for t in toasts), toasts


async def test_a_long_name_gives_way_in_the_header_and_the_badge_and_count_stay(
    tmp_path: Path,
) -> None:
    """80x24 with the list beside it: the name is cut in its middle (its end tells the
    recorder's captures apart), never the flag count."""
    name = "bedrock-parallel-unterminated-capture-2026-09-01T12-00-00-17.sse"
    shutil.copy(TRACES / "writer" / "palmyra-x5-all-null.sse", tmp_path / name)
    shutil.copy(TRACES / "openai" / "gpt-4.1-text-then-call.sse", tmp_path / "a.sse")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        app.choose_trace(name)
        await settle(app, pilot)
        text = _text(app.trace_header)
        assert text.startswith("bedrock-par") and "…" in text and "-17.sse" in text
        assert text.rstrip().endswith("✗ erasing    4 flags")
        assert app.trace_header.content_region.width >= len(text.rstrip())


@pytest.mark.parametrize("width", [111, 112, 113, 128, 129, 130])
async def test_the_counts_bar_fits_its_line(width: int) -> None:
    """The bar's own count of cells decides when chips drop words: it once left out the
    spacer's padding, and the watch state ran a cell or two past the edge at the widths
    around 112 and 129 (for these counts and this title)."""
    from textual.app import App, ComposeResult

    from replay_tui.tui.widgets.bars import CountsBar

    class Bar(App[None]):
        CSS_PATH = Path(sys.modules[ReplayApp.__module__].__file__ or "").parent / "app.tcss"

        def compose(self) -> ComposeResult:
            yield CountsBar("traces", False)

    app = Bar()
    async with app.run_test(size=(width, 3)) as pilot:
        counts = {"erasing": 12, "refused": 2, "broken": 4, "clean": 8}
        app.query_one(CountsBar).set_counts(counts, 26, 2, None)
        await pilot.pause()
        assert app.query_one("#watch-state").region.right <= width


@pytest.mark.parametrize(
    ("width", "said"),
    [
        (130, "● watching · last change 02:48:11"),
        (80, "● watching · 02:48:11"),
        (70, "● 02:48:11"),
        (55, "● 02:48:11"),  # (the program's name gone: "●" alone said too little)
    ],
)
async def test_the_watch_state_drops_words_never_cuts_one(width: int, said: str) -> None:
    """At 80 columns, once a file changed, the header ended in "● watching · last chan"."""
    from textual.app import App, ComposeResult

    from replay_tui.tui.widgets.bars import CountsBar

    class Bar(App[None]):
        CSS_PATH = Path(sys.modules[ReplayApp.__module__].__file__ or "").parent / "app.tcss"

        def compose(self) -> ComposeResult:
            yield CountsBar("root2", True)

    app = Bar()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.query_one(CountsBar)
        bar.set_counts({"erasing": 14, "refused": 2, "broken": 4, "clean": 8}, 28, 2, None)
        bar.set_watch_state("● watching · last change 02:48:11", on=True)
        await pilot.pause()
        state = app.query_one("#watch-state", Static)
        assert str(state.render()) == said and state.region.right <= width
        assert state.tooltip == "● watching · last change 02:48:11"  # whole, on hover


@pytest.mark.parametrize("width", [80, 120, 160])
async def test_the_title_takes_the_room_the_counts_leave_and_cuts_a_path_in_its_middle(
    width: int,
) -> None:
    from textual.app import App, ComposeResult

    from replay_tui.tui.widgets.bars import CountsBar

    where = "/work/main/traces/envoy/vertex-anthropic-parallel.sse"

    class Bar(App[None]):
        CSS_PATH = Path(sys.modules[ReplayApp.__module__].__file__ or "").parent / "app.tcss"

        def compose(self) -> ComposeResult:
            yield CountsBar(where, False)

    app = Bar()
    async with app.run_test(size=(width, 3)) as pilot:
        app.query_one(CountsBar).set_counts({"erasing": 1}, 1, 0, None)
        await pilot.pause()
        title = str(app.query_one("#app-title").render()).strip()
        assert app.query_one("#watch-state").region.right <= width
        if width >= 120:  # room enough once the chips counting 0 are gone: whole
            assert title == f"replay-tui  {where}"
        else:  # cut in its middle: the start and the file's name stay
            assert title.startswith("replay-tui  /work/") and title.endswith("parallel.sse")
            assert "…" in title


def test_an_error_textual_has_shown_is_not_exit_status_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual shows an unhandled error and ends the app with status 1: run_app says so too
    (it returned 0 after a traceback)."""
    from replay_tui.tui import app as app_module

    class Crashed:
        keymap_problems: tuple[str, ...] = ()
        fatal = None
        return_code = 1

        def run(self) -> None:
            return None

    monkeypatch.setattr(app_module, "make_app", lambda *a, **k: Crashed())
    monkeypatch.setattr(app_module, "load_keymap", lambda: ({}, None))
    assert app_module.run_app(["traces"], watch=False) == 1


async def test_one_file_by_absolute_path_is_listed_without_its_folders(tmp_path: Path) -> None:
    har = tmp_path / "deep" / "er" / "export.har"
    har.parent.mkdir(parents=True)
    shutil.copy(TRACES / "captures" / "mitmproxy-export.har", har)
    app = make_app([str(har.resolve())])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        listing = app.trace_list.listing
        rows = [listing.row(n) for n in range(len(listing.rows))]
        assert [(r.kind, r.name, r.depth) for r in rows if r.depth == 0] == [
            ("folder", "export.har", 0)
        ]
        assert [r.kind for r in rows[1:]] == ["trace"] * 3


async def test_a_view_key_pressed_while_the_one_file_is_read_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``replay-tui big.sse`` and 2 at once, while the file is still read: the trace opens in
    the diff view (opening it focused the calls view, which showed the calls tab again)."""
    reading = held(monkeypatch, browse_judging, "walk")  # (its rows are shown before the walk)
    app = make_app([str(TRACES / "captures" / "late-id.sse")])
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        # (the key's action mounts the diff view first: the tab changes once it is mounted)
        await until(pilot, lambda: app.tabs.active == "diff")
        assert not app.discovered
        reading.set()
        await settle(app, pilot)
        assert app.current is not None and app.current.address.endswith("late-id.sse")
        assert app.tabs.active == "diff" and app.focused is app.diff_view
        assert app.diff_view.model is not None and app.diff_view.model.trace is app.current


async def test_a_view_key_typed_before_the_calls_take_the_keys_keeps_its_tab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """2 typed at launch, the focus still on the hidden list: the calls view, shown, takes
    the keys after its first frame, and its focus came once the key had shown the diff,
    bringing the calls tab back (seen once in CI, on a loaded machine)."""
    reading = held(monkeypatch, browse_judging, "walk")
    app = make_app([str(TRACES / "captures" / "late-id.sse")])
    async with app.run_test(size=SMALL) as pilot:
        app.screen.set_focus(app.trace_list.trace_tree)  # (as at launch: the list, hidden)
        await pilot.press("2")
        reading.set()
        await settle(app, pilot)
        assert app.tabs.active == "diff" and app.focused is app.diff_view


async def test_one_har_entry_named_as_file_har_n_is_shown_directly(tmp_path: Path) -> None:
    har = tmp_path / "export.har"
    shutil.copy(TRACES / "captures" / "mitmproxy-export.har", har)
    app = make_app([f"{har}#4"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        assert not app.trace_list.display  # one trace named: no list to pick from
        assert app.current is not None and app.current.address.endswith("export.har#4")


def test_keymap_problems_are_named() -> None:
    assert check_keymap({}) == ({}, [])
    fine = {"next-flag": "f", "previous-flag": "F"}
    assert check_keymap(fine) == (fine, [])
    applied, problems = check_keymap({"nope": "x", "next-flag": "j"})
    assert applied == {}
    assert problems == [
        "unknown binding id 'nope' (? lists them)",
        "j stays list-down's in the trace list: next-flag keeps n (move list-down too to free j)",
    ]
    # A key held by a binding that has no id to move (Textual's own ctrl+q) stays its own;
    # the same action under the user's key is no clash.
    assert check_keymap({"next-flag": "ctrl+q"})[1] == [
        "ctrl+q stays Quit's in the trace list: next-flag keeps n"
    ]
    assert check_keymap({"quit": "ctrl+q"}) == ({"quit": "ctrl+q"}, [])
    # Two asking for one free key: neither gets it.
    assert check_keymap({"quit": "x", "next-flag": "x"}) == (
        {},
        ["x is asked for both quit and next-flag in the trace list: each keeps its own keys"],
    )
    # Freeing a key by moving its binding hands it on; a binding the key hid in a base class
    # (the scroll view's up) is not in the way.
    swap = {"mark-trace": "q", "quit": "ctrl+q", "cursor-up": "w", "first-row": "up"}
    assert check_keymap(swap) == (swap, [])


async def test_keymap_problems_are_shown_once_at_start() -> None:
    from replay_tui.tui.widgets.key_hints import KeyHints

    keymap = {"nope": "x", "next-flag": "f", "quit": "ctrl+q"}
    app = make_app([str(TRACES / "dashscope")], keymap=keymap)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(app, pilot)
        said = [str(n.message) for n in app._notifications if "nope" in str(n.message)]
        assert len(said) == 1
        # Remapped keys keep their binding's place in the footer (they came last, where an
        # 80-column line had no room left for them).
        line = app.query_one(KeyHints).render_line(0).text
        assert line.index("^q Quit") < line.index("f Next flag") < line.index("N Prev flag")


async def test_many_keymap_problems_are_one_toast_that_names_each() -> None:
    """Five problems were five toasts, four on screen at a time over the view."""
    keymap = {f"bogus-{n}": "x" for n in range(5)}
    app = make_app([str(TRACES / "dashscope")], keymap=keymap)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(app, pilot)
        toasts = [str(n.message) for n in app._notifications if "bogus" in str(n.message)]
        assert len(toasts) == 1 and toasts[0].startswith("keymap, ")
        assert all(f"bogus-{n}" in toasts[0] for n in range(5))
        # The palette: each action once, with its key; no system commands (Screenshot).
        names = [name for name, _, _ in ReplayCommands(app.screen)._actions()]
        assert len(names) == len(set(names))
        assert "Screenshot" not in names
        helps = dict((name, text) for name, text, _ in ReplayCommands(app.screen)._actions())
        assert helps["Next flag"].endswith("(n)") and helps["Keys"].endswith("(?)")


def test_help_columns_never_collide() -> None:
    from replay_tui.tui.app import binding_sections

    rows = binding_rows(binding_sections(), {"next-flag": "f"})
    assert rows[2][:2] == ("Everywhere", "f")  # the keymap's key, not the default
    ids = {r[3] for r in rows}
    for width in (100, 116):
        lines = help_text(rows, width).plain.splitlines()
        assert all(len(line) <= width for line in lines)
        firsts = [line for line in lines if line.startswith("  ") and line[2] != " "]
        ends = {len(line) for line in firsts if line.split()[-1] in ids}
        assert len(ends) == 1, ends  # every id ends in the same column
    # Too narrow for three columns: each id on a line of its own, under its description.
    narrow = help_text(rows, 50).plain.splitlines()
    assert all(len(line) <= 50 for line in narrow)
    assert ids <= {line.strip() for line in narrow}


def test_the_help_says_what_every_mark_of_the_list_means() -> None:
    """At 80x24 the header's counts are glyphs alone ("✗ 12 ⊘ 2 ! 4"): the help is where a
    new user finds what each one means, every one the list can show."""
    from replay_tui.tui.screens.help import badge_legend
    from replay_tui.tui.widgets.trace_list import BADGE_GLYPHS

    for width in (60, 116):
        lines = badge_legend(width).plain.splitlines()
        assert lines[0] == "Marks" and all(len(line) <= width for line in lines)
        marks = {line.split()[0] for line in lines[1:] if line.startswith("  ") and line[2] != " "}
        assert set(BADGE_GLYPHS.values()) | {"◆A"} == marks
        for badge, glyph in BADGE_GLYPHS.items():
            if badge != "pending":
                assert any(line.startswith(f"  {glyph} {badge} ") for line in lines), badge


def test_long_metadata_values_wrap_between_their_parts() -> None:
    from replay_tui.tui.widgets.details import fold

    assert fold("traces/captures/mitmproxy-export.har", 20) == [
        "traces/captures/",
        "mitmproxy-export.har",
    ]
    assert fold("POST https://llm-gw.example.com/v1/chat/completions", 24) == [
        "POST https://",
        "llm-gw.example.com/v1/",
        "chat/completions",
    ]
    assert fold("abcdefghijklmnopqrstuvwxyz", 10) == ["abcdefghij", "klmnopqrst", "uvwxyz"]


async def test_a_filter_typed_while_the_folder_is_walked_keeps_its_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(300):
        shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", tmp_path / f"t{n:03}.sse")
    typed = held(monkeypatch, browse_judging, "walk")  # the walk of a big folder: the user types
    app = make_app([str(tmp_path)])
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash", *"t29")
        assert not app.discovered
        typed.set()
        await settle(app, pilot)
        assert app.trace_list.filter_input.value == "t29"
        assert app.focused is app.trace_list.filter_input
        assert app.trace_list.visible_addresses() == [f"t{n}.sse" for n in range(290, 300)]
        assert app.details.display  # `d` went into the box, not to the details toggle


async def test_a_filter_typed_in_one_burst_goes_into_the_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/` and a word typed faster than the app answers (a paste, a fast typist, tmux's
    send-keys) as a terminal sends them, with no wait between the keys: the word is the
    filter. The keys after `/` went to the list, each one its action (`c` copied, `e` wrote a
    report, `q` would have quit), because the box took the focus a step late."""
    from textual import events

    monkeypatch.setenv("REPLAY_TUI_EXPORT_DIR", str(tmp_path))
    app = make_app([str(TRACES)])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        assert app.focused is app.trace_list.trace_tree
        for key in ["slash", *"scope", "slash"]:
            app.post_message(events.Key(key, "/" if key == "slash" else key))
        await settle(app, pilot)
        assert app.focused is app.trace_list.filter_input
        assert app.trace_list.filter_input.value == "scope/"  # a `/` in the box is typed
        assert app.clipboard == "" and not list(tmp_path.iterdir())  # no copy, no export
        assert app.trace_list.visible_addresses() == [
            "dashscope/glm-5.2-id-and-name-empty.sse",
            "dashscope/qwen3-max-id-empty.sse",
        ]


async def test_keys_typed_with_a_view_key_go_where_it_puts_the_focus() -> None:
    """A view's number, tab, l: the keys typed right after them (one burst, as a paste or
    tmux's send-keys sends them) act where they put the focus, not where it was: `2 ↓`
    moved the list (and opened another trace) instead of the diff's cursor. And the keys
    typed before them act where the focus was: `↓ 3` moves the list, then shows raw."""
    from textual import events

    app = make_app([str(TRACES)])

    def typed(*keys: str) -> None:
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))

    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        tree = app.trace_list.trace_tree
        opened, row = app.current, tree.cursor
        assert app.focused is tree and opened is not None
        typed("2", "down", "down")
        await settle(app, pilot)
        diff = app.diff_view
        assert app.focused is diff and app.current is opened and tree.cursor == row
        calls = app.calls_view.cursor
        typed("1", "down")
        await settle(app, pilot)
        assert app.focused is app.calls_view and app.calls_view.cursor > calls
        calls = app.calls_view.cursor
        typed("shift+tab", "down")  # to the list, and a step down it
        await settle(app, pilot)
        assert app.focused is tree and tree.cursor == row + 1
        assert app.calls_view.cursor != calls or app.current is not opened
        typed("l", "down")  # the list hidden: the view has the keys
        await settle(app, pilot)
        assert not app.trace_list.display and app.focused is app.calls_view
        assert tree.cursor == row + 1
        # Typed the other way round, each key acts where the focus was when it came.
        typed("l", "down", "3")
        await settle(app, pilot)
        assert app.focused is app.raw_view and tree.cursor == row + 2
        # d shows the details, and tab typed with it goes to them (tab, the app's before any
        # widget's, ran before d had shown them, and went round to the list).
        typed("d")
        await settle(app, pilot)
        assert not app.details.display
        typed("d", "tab")
        await settle(app, pilot)
        assert app.details.display and app.focused is app.details


async def test_enter_and_down_in_one_burst_leave_the_panes_agreeing() -> None:
    """Enter on the open trace and ↓ in one burst: ↓ moved the list (the focus goes to the
    calls when enter's choice comes round), enter's choice then took the cursor back, and
    the header and details said "loading…" of the trace ↓ had reached, for good, over the
    views of the one open. Now ↓ is the calls' (enter focuses them at once), and the panes
    say the same trace."""
    from textual import events

    app = make_app([str(TRACES)])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        opened = app.current
        assert opened is not None
        calls = app.calls_view.cursor
        for key in ("enter", "down"):
            app.post_message(events.Key(key, None))
        await settle(app, pilot)
        current = app.current
        assert current is not None
        header = str(app.trace_header.render())
        assert "loading" not in header and header.startswith(current.address.rpartition("/")[2])
        assert "Loading" not in app.details._main.plain
        assert app.trace_list.selected == current.address
        assert app.calls_view.model is not None and app.calls_view.model.trace is current
        # ... and ↓ was the calls' (enter gives them the focus at once), not the list's.
        assert current is opened and app.focused is app.calls_view
        assert app.calls_view.cursor == calls + 1


async def test_a_filter_and_two_enters_in_one_burst_open_the_match() -> None:
    """`/late ⏎ ⏎` typed at once: the first enter leaves the box with the cursor on the match,
    the second opens it (the second went to the box, which the list took a step late).
    And on a filter that shows only files that are not traces, enter says why the one
    under the cursor is not a trace."""
    from textual import events

    app = make_app([str(TRACES)])

    def typed(*keys: str) -> None:
        for key in keys:
            char = {"slash": "/", "enter": "\r"}.get(key, key)
            app.post_message(events.Key(key, char))

    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        typed("slash", *"late", "enter", "enter")
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "captures/late-id.sse"
        assert app.focused is app.calls_view
        await pilot.press("slash", *["backspace"] * 4, *"README", "enter")
        await settle(app, pilot)
        assert app.focused is app.trace_list.trace_tree and app.not_a_trace is None
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.not_a_trace is not None and app.not_a_trace.path == "README.md"


async def test_the_open_trace_filtered_out_is_named_whole_words_at_80x24() -> None:
    """A long name in the narrow list's note is cut in its middle ("zen-nul…done.sse"),
    never broken across lines mid-word."""
    app = make_app([str(TRACES / "opencode"), str(TRACES / "dashscope")])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        assert app.current is not None
        assert app.current.address == f"{TRACES / 'opencode'}/zen-null-identity-data-after-done.sse"
        await pilot.press("slash", *"glm")
        await settle(app, pilot)
        empty = app.trace_list.query_one("#list-empty", Static)
        first, second = _text(empty).split("\n")
        assert first.startswith("open: zen-") and first.endswith("done.sse") and "…" in first
        assert second == "(filtered out)"
        assert len(first) <= empty.content_region.width


async def test_hiding_the_list_on_a_file_that_is_not_a_trace_comes_back_to_the_open_trace() -> None:
    """l on README.md: the open trace is shown again, and the list's cursor goes to it, so
    that shown again (l) the list and the header name the same file."""
    app = make_app([str(TRACES)])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        opened = app.current.address if app.current else None
        assert opened is not None
        # A call's title too long for the view ends in "…", even cut between two words
        # ("block 0 · 3 deltas" read as whole; "from line 5" was silently dropped).
        view = app.calls_view
        room = view.scrollable_content_region.width
        title = "".join(s.text for s in view.render_line(0))[:room]
        assert title.startswith("▸ call 0") and title.endswith("…")
        await pilot.press("home")
        await settle(app, pilot)
        assert str(app.trace_header.render()).startswith("README.md  not a trace")
        await pilot.press("l")
        await settle(app, pilot)
        assert str(app.trace_header.render()).startswith(opened.rpartition("/")[2])
        await pilot.press("l")
        await settle(app, pilot)
        row = app.trace_list.trace_tree.cursor_row
        assert row is not None and row.key == opened
        assert app.current is not None and app.current.address == opened


def test_the_headers_counts_say_so_far_while_the_capture_is_decoded() -> None:
    from replay_tui.core.discovery import discover
    from replay_tui.core.trace import load_trace
    from replay_tui.tui.widgets.bars import trace_summary

    [source] = discover([TRACES / "dashscope" / "qwen3-max-id-empty.sse"]).sources
    trace = load_trace(source)
    decoding = trace_summary(trace, progress="decoding…").plain
    assert "1 flag · 1 call · 4 deltas so far   decoding…" in decoding
    assert "so far" not in trace_summary(trace).plain
    assert trace_summary(trace, progress="decoding…", level=1).plain.endswith(
        "1 flag so far   decoding…"
    )

"""The views keep their promises (issue 12 item 5), by key and by picture at three sizes.

Diff: ←/→ scroll, nothing is cut for good. Calls: sideways by a column, row headers stay;
the cursor row is told from a flagged one at a glance. Raw: decode errors under their line;
comments and what follows [DONE] darker than normal text. Clients: a long exception whole in
the detail and behind enter. Snapshots: ``pytest --snapshot-update``, then look at them.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from rich.color import Color
from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot

from replay_tui.tui.app import ReplayApp, make_app
from replay_tui.tui.screens.payload import PayloadScreen
from replay_tui.tui.widgets.calls_view import HEAD
from replay_tui.tui.widgets.line_view import LineView
from replay_tui.tui.widgets.raw_view import RawModel, RawView

from .conftest import ROOT, settle

SIZES = [(80, 24), (120, 40), (200, 60)]
PARALLEL = "traces/envoy/vertex-anthropic-parallel.sse"
ERRORS = "tests/data/tui/decode-errors.sse"


@pytest.fixture(autouse=True)
def _at_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def line_text(view: LineView, y: int) -> str:
    """What row ``y`` of the view shows on screen (scrolled, with its sticky cells)."""
    return "".join(s.text for s in view.render_line(y))


async def in_raw(app: ReplayApp, pilot: Pilot[int]) -> tuple[RawView, RawModel]:
    """The open trace in the raw view (3), its model built."""
    await settle(app, pilot)
    await pilot.press("3")
    await settle(app, pilot)
    view = app.raw_view
    assert view.model is not None
    return view, view.model


async def shots_at_every_size(app: ReplayApp, pilot: object, snapshot: SnapshotAssertion) -> None:
    assert isinstance(pilot, Pilot)
    for width, height in SIZES:
        await pilot.resize_terminal(width, height)
        await settle(app, pilot)  # a resize re-lays out the panes, and views re-measure
        app.clear_notifications()
        await pilot.pause()
        # Laid out again until the screen holds still: the details' two columns share their
        # width by their heights, which a resize changes, a refresh or two after settling.
        shot = app.export_screenshot(title="replay-tui")
        for _ in range(5):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(app.screen.wait_for_refresh(), 1)
            await pilot.pause()
            again = app.export_screenshot(title="replay-tui")
            if again == shot:
                break
            shot = again
        assert shot == snapshot(name=f"{width}x{height}")


def luminance(style_color: Color | None) -> float:
    assert style_color is not None
    r, g, b = style_color.get_truecolor()
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


async def test_diff_scrolls_sideways_and_shows_what_runs_past_its_half(
    svg_snapshot: SnapshotAssertion,
) -> None:
    app = make_app([PARALLEL])
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        view = app.diff_view
        assert app.focused is view
        first = line_text(view, 2)  # line 1, the delta that sends the id
        assert first.rstrip().endswith("…")
        await pilot.press("right")
        assert view.scroll_offset.x > 0
        shifted = line_text(view, 2)
        assert shifted[:6] == first[:6]  # the line number stays put
        assert "…" in shifted[8:30]  # the start of the values is scrolled away, and says so
        assert "read_file" not in first
        for _ in range(8):  # what was cut comes on screen
            if "read_file" in line_text(view, 2):
                break
            await pilot.press("right")
        assert "read_file" in line_text(view, 2)
        await shots_at_every_size(app, pilot, svg_snapshot)
        for _ in range(9):
            await pilot.press("left")
        assert view.scroll_offset.x == 0
        assert line_text(view, 2).startswith("1       tool-call-delta  index=0 id=")


async def test_calls_scroll_by_a_column_keeping_the_row_headers_and_mark_the_cursor(
    svg_snapshot: SnapshotAssertion,
) -> None:
    app = make_app([PARALLEL])
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(app, pilot)
        view = app.calls_view
        model = view.model
        assert model is not None
        # Opening selects the first flag (call 0, delta 2): ▶ marks the cursor, ▌ the other flag.
        flagged = sorted({r for f in model.trace.analysis.flags if (r := model.flag_row(f))})
        assert view.cursor == flagged[0]
        view.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert line_text(view, flagged[0]).startswith("▶ 2")
        other = model.sections[1].start + HEAD + 1
        view.scroll_to(y=other - 2, animate=False, immediate=True)
        await pilot.pause()
        assert line_text(view, other - int(view.scroll_y)).startswith("▌ 2")
        view.move_cursor(flagged[0])
        await pilot.pause()
        header = line_text(view, view.cursor - int(view.scroll_y))
        await pilot.press("right")
        step = int(view.scroll_offset.x)
        assert step >= 8  # a column, not a cell
        moved = line_text(view, view.cursor - int(view.scroll_y))
        assert moved[: model.sticky] == header[: model.sticky]  # Δ, line, flag stay put
        assert moved[model.sticky :] != header[model.sticky :]
        await pilot.press("right")
        assert int(view.scroll_offset.x) > step
        # Under the table: each line keeps its label, and shows its end (here, the verdict).
        section = model.sections[0]
        below = section.start + HEAD + len(section.rows)
        top = int(view.scroll_y)
        view.scroll_to(y=below - 1, animate=False, immediate=True)
        await pilot.pause()
        closing = [line_text(view, below + k - int(view.scroll_y)) for k in (0, 1)]
        assert (
            closing[0].startswith("   assign-always  ") and "✗ the registry refuses" in closing[0]
        )
        assert closing[1].startswith("   accept-identity") and "✓ identified" in closing[1]
        view.scroll_to(y=top, animate=False, immediate=True)
        await pilot.pause()
        await shots_at_every_size(app, pilot, svg_snapshot)
        await pilot.press("left", "left")
        assert view.scroll_offset.x == 0


async def test_a_flag_note_stays_whole_while_its_line_scrolls_to_the_column_it_names() -> None:
    """Raw at 80x24, opened on the erasing delta: the field that erased the id (column 267)
    is on screen, scrolled to; the note under its line, which names it, stays where it is
    read whatever the line does; ← back to the line's start, and → to the field again."""
    app = make_app([str(ROOT / "traces/litellm/proxy-curl-i.txt")])
    async with app.run_test(size=(80, 24)) as pilot:
        view, model = await in_raw(app, pilot)
        assert len(model.erased) == 1
        ((line, note),) = model.erased.items()
        assert "(column 267)" in note
        row = model.row_of(line)
        assert view.cursor == row
        y = row + 1 - int(view.scroll_offset.y)
        assert '"id":""' in line_text(view, y - 1)  # the erasing field is on screen
        before = line_text(view, y)
        assert "⚑ " in before and before.rstrip().endswith("(assign-always)")
        while view.scroll_offset.x > 0:
            await pilot.press("left")
        assert '"id":""' not in line_text(view, y - 1)
        assert "data:" in line_text(view, y - 1).split()[:3]  # (the number, ▶, data:)
        assert line_text(view, y) == before  # the note, as it was
        while '"id":""' not in line_text(view, y - 1):
            await pilot.press("right")
        assert line_text(view, y) == before


async def test_raw_goes_sideways_to_each_flag_and_tells_a_long_note_whole() -> None:
    """Bedrock through Envoy at 80x24: two flags on each of two lines, the fields at column
    127 and on, past the edge. n brings each line and its erasing field into view; a delta
    with none takes the view back to its lines' start. The note naming both fields is cut
    with "…" where it is read (it lost its start when it scrolled with its line), and enter
    shows it whole, with the payload."""
    app = make_app([str(ROOT / "traces/envoy/bedrock-parallel-unterminated-done.sse")])
    async with app.run_test(size=(80, 24)) as pilot:
        view, model = await in_raw(app, pilot)
        assert sorted(model.erased) == [9, 15]
        for line in (9, 15):
            assert view.cursor == model.row_of(line)
            y = view.cursor - int(view.scroll_offset.y)
            assert view.scroll_offset.x > 0 and '"id":null' in line_text(view, y)
            shown = line_text(view, y + 1)[: view.scrollable_content_region.width]
            assert shown.lstrip().startswith('⚑ "id":null (column 127) erases call')
            assert shown.rstrip().endswith("…") and "(assign-always)" not in shown
            await pilot.press("n")  # (the id and the name: two flags, one stop)
            await settle(app, pilot)
        # Round to the first flag; then a delta that erased nothing: its line from the start.
        app.calls_view.move_cursor(app.calls_view.cursor + 1)
        await settle(app, pilot)
        assert view.scroll_offset.x == 0
        # enter on the note: the whole note.
        app.calls_view.move_cursor(app.calls_view.cursor - 1)
        await settle(app, pilot)
        assert view.scroll_offset.x > 0
        view.focus()
        view.move_cursor(view.cursor + 1)
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PayloadScreen)
        assert screen.copy_text == model.erased[9]
        assert model.erased[9].endswith("(assign-always)") and '"name":""' in model.erased[9]
        # And on the line: the payload, then what in it erased which identity.
        await pilot.press("escape", "up", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PayloadScreen)
        assert screen.sections[-1] == ("line 9", model.erased[9])
        assert screen.sections[0][1].startswith('{"id":"bf4e6217')


async def test_raw_shows_decode_errors_in_place_and_dims_comments_and_after_done(
    svg_snapshot: SnapshotAssertion,
) -> None:
    app = make_app([ERRORS])
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        view = app.raw_view
        assert app.focused is view
        model = view.model
        assert model is not None and sorted(model.messages) == [3, 7]
        # Dimmed means darker than normal text on the screen, not only another style name.
        normal = luminance(view.rich_style.color)
        for name in ("raw-view--comment", "raw-view--after-done"):
            assert luminance(view.piece_style(name).color) < 0.8 * normal, name
        await pilot.press("home", "down", "down", "down")  # the message row under line 3
        assert view.copy_text() == (model.messages[3], "the error on line 3")
        await pilot.press("home")
        # The cursor (▶) and the selected delta's lines (▌) are told apart at a glance.
        assert view.selected is not None
        selected_row = model.row_of(view.selected[0])
        assert line_text(view, 0).startswith(" 1 ▶ : a comment")
        assert line_text(view, selected_row)[3] == "▌"
        # Sideways, the line numbers stay put.
        await pilot.press("right")
        assert view.scroll_offset.x > 0
        assert line_text(view, selected_row).startswith(f"{view.selected[0]:>2} ▌ ")
        await pilot.press("left")
        await shots_at_every_size(app, pilot, svg_snapshot)


async def test_clients_show_a_long_exception_whole(svg_snapshot: SnapshotAssertion) -> None:
    app = make_app(["traces/litellm/proxy-curl-i.txt"])
    async with app.run_test(size=SIZES[1]) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        pane = app.clients_pane
        assert pane.model is not None
        pane.matrix.select(pane.model.row_of("openai-node-strict"), 0)
        await pilot.pause()
        message = "Error: Chat completion stream contains a changed tool call identity"
        rows = [line_text(pane.detail, y) for y in range(pane.detail.row_count)]
        assert message.split()[-1] in " ".join(rows)  # wrapped onto a second row, not cut
        assert message in " ".join(" ".join(r.split()) for r in _right_side(rows))
        await pilot.press("enter")
        assert isinstance(app.screen, PayloadScreen)
        assert "raised" in [h for h, _ in app.screen.sections]
        assert any(message.split(": ", 1)[1] in body for _, body in app.screen.sections)
        await pilot.press("escape")
        await pilot.press("right")  # the whole response: the exception again, whole
        assert message in pane.detail.plain()
        await shots_at_every_size(app, pilot, svg_snapshot)


def _right_side(rows: list[str]) -> list[str]:
    return [r.split("│", 1)[1] for r in rows if "│" in r]


async def test_raw_keeps_the_erasing_field_in_sight_as_the_terminal_is_resized() -> None:
    """crlf-framed at 120x40: the field (column 69) is past the edge, the view goes to it and
    the lines cut at their start begin with "…" (they read as whole: "ces":[…" for
    'data: {"choices"'), a short one stays whole. Made wide, the lines are whole from their start again; narrow
    again, the field is brought back; once the user scrolls sideways, where is theirs."""
    app = make_app([str(ROOT / "traces")])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.current.address == "captures/crlf-framed.sse"
        view, model = await in_raw(app, pilot)
        assert list(model.erased) == [7]
        y = view.cursor - int(view.scroll_offset.y)

        def text(y: int) -> str:
            return line_text(view, y)[: view.scrollable_content_region.width]

        assert view.scroll_offset.x > 0 and '"id":""' in text(y)
        assert text(y)[view.sticky] == "…" and text(y - 4)[view.sticky] == "…"  # line 3 too
        # a short line goes sideways only as far as its end: whole (a comment, data: [DONE])
        assert text(y - 6).split()[:3] == ["1", ":", "keep-alive"]
        await pilot.resize_terminal(200, 40)
        await settle(app, pilot)
        assert view.scroll_offset.x == 0 and text(y).split()[:3] == ["7", "▶", "data:"]
        await pilot.resize_terminal(100, 40)
        await settle(app, pilot)
        assert view.scroll_offset.x > 0 and '"id":""' in text(y)
        await pilot.press("left")
        scrolled = view.scroll_offset.x
        await pilot.resize_terminal(110, 40)
        await settle(app, pilot)
        assert view.scroll_offset.x == scrolled

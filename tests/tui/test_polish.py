"""Issue 31's cosmetics, each as a person sees it at a size: columns that use the width,
toasts that cut paths where they can be read, the footer under the palette."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from replay_tui.tui.app import make_app

from .conftest import TRACES, settle

CURL = TRACES / "litellm" / "proxy-curl-i.txt"
MODEL_ID = "765f98052ab9226d512c4ef66355dcc417ca2040498fa69d91a3f197245ee9b7"
"""A header value of the curl capture, 64 characters: it fits beside short verdicts."""


async def test_at_200_columns_the_metadata_takes_the_width_the_verdicts_leave() -> None:
    app = make_app([str(CURL)])
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        verdicts = app.details.query_one("#details-verdicts", Static)
        metadata = app.details.query_one("#details-metadata", Static)
        assert (
            MODEL_ID in app.details._meta.plain
        )  # whole on its line, not wrapped at 2/5 of the width
        assert metadata.size.width > 80 and verdicts.size.width < 120


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40), (200, 60)])
async def test_a_toast_wraps_a_long_path_between_its_parts_never_inside_a_name(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """m on a trace with a long path: Textual wraps a toast only at spaces and cut the path
    wherever the toast's line ended ("…/2026-12-0" / "1T10…"). It breaks after a separator."""
    from textual.widgets._toast import Toast

    folder = tmp_path / "captures-from-the-staging-gateway" / "2026" / "12" / "01"
    folder.mkdir(parents=True)
    name = "2026-12-01T10-00-00Z-gateway-alpha-production-qwen3-max-1.sse"
    shutil.copy(TRACES / "dashscope" / "qwen3-max-id-empty.sse", folder / name)
    app = make_app([str(folder / name)])
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("m")
        await pilot.pause()
        toast = app.screen.query(Toast).last()
        strips = toast.render_lines(toast.region.reset_offset)
        said = [t for t in (str(strip.text).strip(" ▌▐") for strip in strips) if t]
        message = f"Marked {folder / name} as A"
        assert "".join(said).replace(" ", "").startswith(message.replace(" ", ""))
        for a, b in itertools.pairwise(said):  # inside the path, breaks after a separator
            if a.split()[-1] + b.split()[0] in message:
                assert a.endswith(("/", "-", "_", ".")), (a, b)


async def test_the_footer_says_the_palettes_keys_while_it_is_open() -> None:
    """The list's keys did nothing under the palette, yet the footer offered them."""
    from textual.command import CommandPalette

    from replay_tui.tui.widgets.key_hints import KeyHints

    app = make_app([str(TRACES)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        hints = app.query_one(KeyHints)
        before = str(hints.render())
        assert "Filter" in before and "^p Commands" in before
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert str(hints.render()).strip() == "↑↓ Choose  ⏎ Run  esc Close"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CommandPalette)
        assert "^p Commands" in str(hints.render()) and "esc Close" not in str(hints.render())


async def test_at_60x20_the_helps_text_keeps_a_cell_from_its_scrollbar() -> None:
    """The help's text ran into its scrollbar ("a tool call's id▆▆")."""
    from textual.containers import VerticalScroll

    app = make_app([str(TRACES)])
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)  # the help laid out and drawn, its scrollbar with it
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        keys = app.screen.query_one("#help-keys", Static)
        bar = scroll.vertical_scrollbar.region
        assert scroll.show_vertical_scrollbar and bar.width == 1
        assert keys.content_region.right < bar.x  # a cell between the text and the bar
        widest = max(len(line) for line in str(keys.render()).split("\n"))
        assert widest <= keys.content_region.width


async def test_at_60x20_right_brings_bs_label_and_lines_into_view() -> None:
    """→ in a narrow compare view scrolled past B's start: "B · traces/…" showed as
    "…s/captures/…" and each difference's "B:1" was gone."""
    har = TRACES / "captures" / "mitmproxy-export.har"
    app = make_app([str(har)])
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, pilot)
        app.choose_trace(f"{har}#2")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace(f"{har}#4")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        lines = ["".join(s.text for s in view.render_line(y)) for y in range(view.size.height)]
        assert any(line.lstrip().startswith("what") for line in lines)
        assert not any("B · " in line for line in lines)  # (too narrow for both halves)
        await pilot.press("right")
        await pilot.pause()
        lines = ["".join(s.text for s in view.render_line(y)) for y in range(view.size.height)]
        head = next(line for line in lines if line.lstrip().startswith("what"))
        assert "│ B · " in head, head
        rows = [line for line in lines if line.lstrip().startswith("call 0 id")]
        assert rows and "│ B:1 " in rows[0], rows


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_a_narrow_header_drops_the_programs_name_before_the_watch_states_words(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60x20 the header said "replay-tui  traces/ … ○": the watch state was a glyph
    while the program's name, which says nothing about the traces, kept its room."""
    monkeypatch.chdir(TRACES.parent)
    app = make_app(["traces/"])
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        bar = app.counts_bar
        title = str(bar.query_one("#app-title", Static).render())
        state = str(bar.query_one("#watch-state", Static).render())
        assert state == "○ not watching"
        assert "traces/" in title
        assert ("replay-tui" in title) == (size[0] >= 80)


async def test_at_200_columns_the_clients_cells_share_the_room() -> None:
    """The cells kept 36 cells, their words cut ("name concatenated: get_weathernu…"),
    beside 100 free columns. A wide view gives them the room (up to 80 cells each)."""
    from replay_tui.tui.widgets.clients_view import CELL_W

    app = make_app([str(CURL)])
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        matrix = app.clients_pane.matrix
        assert matrix.model is not None
        start, end = matrix._column_span(0)
        assert end - start > CELL_W
        assert matrix.virtual_size.width <= matrix.scrollable_content_region.width  # no scroll
        row = matrix.model.row_of("langchain")
        text = "".join(s.text for s in matrix.render_line(row - int(matrix.scroll_y)))
        cell = text[start : end + 1].strip()
        assert cell.startswith("✗ name concatenated: get_weather") and "…" not in cell, text
        await pilot.resize_terminal(80, 24)  # narrow: back to CELL_W, scrolled sideways
        await settle(app, pilot)
        start, end = matrix._column_span(0)
        assert end - start == CELL_W


async def test_past_line_100000_the_compare_views_line_column_keeps_a_space(
    tmp_path: Path,
) -> None:
    """At 120x40 "A:100007" ran into the value after it in the compare view."""
    import re

    padding = b": keep-alive\n\n" * 50_000  # 100,000 lines before each stream
    sources = {
        "a.sse": "dashscope/qwen3-max-id-empty.sse",
        "b.sse": "azure/gpt-4o-mini-usage-tail.sse",
    }
    for name, source in sources.items():
        (tmp_path / name).write_bytes(padding + (TRACES / source).read_bytes())
    app = make_app([str(tmp_path)])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.choose_trace("a.sse")
        await settle(app, pilot)
        await pilot.press("m")
        app.choose_trace("b.sse")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        assert view.model is not None
        rows = [
            "".join(s.text for s in view.render_row(i)[0]) for i in range(len(view.model.display))
        ]
        located = [m for row in rows for m in re.finditer(r"[AB]:1\d{5}(.)", row)]
        assert located, rows[:20]
        assert all(m.group(1) == " " for m in located), [m.string for m in located][:3]

"""The clients view: libraries × calls, the selected cell side by side, assessed in a worker."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from replay_tui.clientlibs import Frame
from replay_tui.core.trace import Trace
from replay_tui.tui.app import ReplayApp, make_app
from replay_tui.tui.screens.payload import PayloadScreen
from replay_tui.tui.widgets.clients_view import CELL_W, NAME_W, STICKY, ClientsMatrix

from .conftest import SIZE, TRACES, rendered, settle, write_big_trace

LITELLM = TRACES / "litellm" / "proxy-curl-i.txt"
"""13 of 15 libraries break on it, each its own way."""
MIDSTREAM = TRACES / "openrouter" / "error-midstream.sse"
"""No tool call at all; an error object mid-stream makes the SDKs throw."""


def _row(matrix: ClientsMatrix, key: str) -> str:
    assert matrix.model is not None
    return rendered(matrix, range(matrix.model.row_of(key), matrix.model.row_of(key) + 1))[0]


async def test_clients_tab_shows_each_library_on_each_call_and_the_cell_in_detail() -> None:
    app = make_app([str(LITELLM), str(MIDSTREAM)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace(str(LITELLM))
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        pane = app.clients_pane
        matrix = pane.matrix
        assert app.tabs.active == "clients" and app.focused is matrix
        text = "\n".join(rendered(matrix))
        # Libraries and the seed record's rejected designs are grouped apart, with a count.
        assert "client libraries (15) · 13 of 15 break" in text
        assert "designs the seed record rejected (3) · 3 of 3 go wrong" in text
        assert (
            text.index("semantic-kernel")
            < text.index("designs the seed")
            < text.index("concatenate-identity")
        )
        # the call's column, headed by the name it meant: the "null" strings after the real
        # name are a gateway's stringified nulls (docs/clients.md), so not the name
        assert "call 0 · get_weather" in text
        assert "✗ not delivered (AssertionError)" in _row(matrix, "openai-python")
        assert "✗ throws AssertionError" in _row(matrix, "openai-python")
        assert '✗ name "null" instead of get_weath' in _row(matrix, "openai-node")
        assert "✓ ok" in _row(matrix, "semantic-kernel")  # the first name wins there
        assert "✗ name concatenated: get_weather" in _row(matrix, "langchain")

        # The first broken cell is selected: what the stream meant beside what the app gets.
        assert matrix.selected() is not None
        assert matrix.selected()[0].key == "openai-python"  # type: ignore[index]
        detail = pane.detail.plain()
        assert "what the stream meant (line 12)" in detail
        assert "what openai-python hands the application" in detail
        assert '"call_0XWzWzu9s9SbobQqp8U1lrwB"' in detail and "throws AssertionError" in detail
        assert '"city": "Nairobi"' in detail  # arguments pretty-printed

        # Down to a library that keeps the id as meant: the same id on both sides.
        await pilot.press("down")
        assert matrix.selected()[0].key == "openai-node"  # type: ignore[index]
        id_line = next(line for line in pane.detail.plain().splitlines() if line.startswith("id"))
        assert id_line.count('"call_0XWzWzu9s9SbobQqp8U1lrwB"') == 2
        # …to one that splits it in two, one piece with an id it made up.
        await pilot.press("down", "down")
        assert matrix.selected()[0].key == "ai-sdk-openai-compatible"  # type: ignore[index]
        detail = pane.detail.plain()
        assert "piece 1 of 2" in detail and "piece 2 of 2" in detail
        assert "(made up by the library)" in detail
        # Right: the whole response (error parts, throws, extra calls).
        await pilot.press("down", "right")
        assert matrix.column == 1
        detail = pane.detail.plain()
        assert "whole response" in detail and "AI_TypeValidationError" in detail
        assert "error part" in detail and "line 14" in detail
        await pilot.press("left")
        assert matrix.column == 0

        # The mouse: a click on haystack's call cell selects it.
        assert matrix.model is not None
        row = matrix.model.row_of("haystack")
        await pilot.click("#clients-view", offset=(STICKY + 4, row - int(matrix.scroll_y)))
        assert matrix.selected()[0].key == "haystack"  # type: ignore[index]
        assert matrix.column == 0
        detail = pane.detail.plain()
        assert 'id erased to ""' in detail
        assert "get_weathernullnullnull" in detail
        # Its whole response ("—": no throw, error part or extra call) says where it broke.
        await pilot.press("right")
        detail = pane.detail.plain()
        assert detail.startswith("haystack · whole response · — no throw, error part or extra")
        assert "what breaks is in its calls" in detail
        await pilot.press("left")

        # c copies the cell as JSON; enter shows it whole, in a window of its own.
        await pilot.press("c")
        assert '"client": "haystack"' in app.clipboard and '"meant"' in app.clipboard
        await pilot.press("enter")
        assert isinstance(app.screen, PayloadScreen)
        assert app.screen.title_text == "haystack on call 0"
        # What happened, in words first (the detail pane's explanation), then the JSON.
        assert [h for h, _ in app.screen.sections] == ["what happened", "outcome", "meant", "got"]
        said = app.screen.sections[0][1]
        assert 'id erased to ""' in said and "what haystack hands the application" in said
        # wrapped to the window (90% of the screen, less its border and padding), the sides
        # apart: no line of it is wrapped again there
        assert "│" in said
        assert max(len(line) for line in said.splitlines()) <= SIZE[0] * 0.9 - 4
        await pilot.press("escape")
        assert not isinstance(app.screen, PayloadScreen)

        # A trace with no tool call: only the whole-response column; the SDKs throw.
        app.choose_trace(str(MIDSTREAM))
        await settle(app, pilot)
        await pilot.press("4")  # choosing a trace goes to its calls: back to the clients
        await settle(app, pilot)
        assert matrix.model is not None and matrix.model.columns == 1
        assert "✗ throws APIError" in _row(matrix, "openai-python")
        assert len(_row(matrix, "openai-python")) > NAME_W


async def _clients(app: ReplayApp, pilot: Pilot[int]) -> ClientsMatrix:
    """The clients tab of the trace the app opened, its libraries assessed."""
    await settle(app, pilot)
    await pilot.press("4")
    await settle(app, pilot)
    return app.clients_pane.matrix


def _shown(matrix: ClientsMatrix) -> list[int]:
    """The rows on the matrix's lines, top to bottom (its fixed heading rows first)."""
    return [matrix.row_at(y) for y in range(matrix.scrollable_content_region.height)]


async def test_the_headings_stay_on_top_and_home_shows_the_count_again() -> None:
    """80x24: the matrix shows a few libraries at a time; its two heading rows stay while
    they scroll, and going back to the first library shows the group's count above it."""
    app = make_app([str(LITELLM)])
    async with app.run_test(size=(80, 24)) as pilot:
        matrix = await _clients(app, pilot)
        assert matrix.model is not None and matrix.model.layout[2][0] == "group"
        await pilot.press("end")
        await settle(app, pilot)
        assert matrix.scroll_offset.y > 0 and matrix.cursor == len(matrix.model.layout) - 1
        assert _shown(matrix)[:2] == [0, 1] and _shown(matrix)[-1] == matrix.cursor
        await pilot.press("home")
        await settle(app, pilot)
        assert _shown(matrix)[:4] == [0, 1, 2, 3] and matrix.cursor == 3  # heads, count, first
        # Sideways to the whole-response column: it comes in beside the names, what shows of
        # the call column it cut is blank (no "rwB\"" or ")" left of a cell), and the group's
        # row stays whole in place.
        await pilot.press("right")
        await pilot.pause()
        assert matrix.scroll_offset.x > 0
        lines = ["".join(s.text for s in matrix.render_line(y)) for y in range(4)]
        assert lines[2].startswith(" client libraries (15) · 13 of 15 break ──")
        for line in (lines[1], lines[3]):
            names, rest = line[:STICKY], line[STICKY:]
            assert names.strip() and rest.lstrip().startswith(("throws, error", "✗ throws")), line


async def test_the_selected_library_stays_in_view_when_the_terminal_shrinks() -> None:
    app = make_app([str(LITELLM)])
    async with app.run_test(size=(200, 60)) as pilot:
        matrix = await _clients(app, pilot)
        await pilot.press("end")
        await settle(app, pilot)
        assert matrix.model is not None and matrix.scroll_offset.y == 0  # all of it fits
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            shown = _shown(matrix)
            assert matrix.cursor in shown, (size, shown)  # the row the detail describes
            assert shown[:2] == [0, 1]


async def test_a_cell_wider_than_the_room_beside_the_names_shows_its_words() -> None:
    """80x24 beside the list: less room than a cell is wide. Selecting the column shows it
    from its start (the cell's words), not scrolled to its blank end."""
    app = make_app([str(TRACES / "dashscope")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.choose_trace("qwen3-max-id-empty.sse")
        matrix = await _clients(app, pilot)
        assert matrix.model is not None
        room = matrix.scrollable_content_region.width - STICKY
        assert room < CELL_W  # the case
        matrix.scroll_to(x=0, animate=False, immediate=True)
        matrix.select(matrix.model.row_of("haystack"), 0)
        await pilot.pause()
        on_screen = "".join(
            s.text for s in matrix.render_line(matrix.cursor - int(matrix.scroll_y))
        )
        assert "haystack" in on_screen and '✗ id erased to ""' in on_screen
        # The cell's detail, as narrow: its headings in fewer words on one row, so that the
        # id and the name are on screen, not only the headings.
        await pilot.pause()
        detail = app.clients_pane.detail
        on_screen_rows = [y for y in range(24) if app.screen.get_widget_at(30, y)[0] is detail]
        shown = [r.rstrip() for r in rendered(detail, range(len(on_screen_rows) - 1))]
        assert shown[1].split() == ["stream", "(line", "1)", "│", "application", "gets"]
        assert [r.split()[0] for r in shown[2:5:2]] == ["id", "name"], shown


async def test_a_short_terminal_shows_the_broken_cell_and_what_all_libraries_come_to() -> None:
    """80x24, one file: the matrix opens scrolled to the first library that breaks, its group
    row off the top; what the libraries come to is said under "client" all the same. The
    cell's detail has room for the erased id, not only its headings: on a short terminal the
    matrix takes half of the room (three quarters left the detail three rows)."""
    app = make_app([str(TRACES / "dashscope" / "qwen3-max-id-empty.sse")])
    async with app.run_test(size=(80, 24)) as pilot:
        matrix = await _clients(app, pilot)
        assert matrix.model is not None
        assert matrix.cursor == matrix.model.row_of("haystack") and 2 not in _shown(matrix)
        heading = "".join(s.text for s in matrix.render_line(1))
        assert heading.startswith(" ✗ 1 of 15 libraries break ")
        detail = app.clients_pane.detail
        on_screen = [y for y in range(24) if app.screen.get_widget_at(1, y)[0] is detail]
        visible = rendered(detail, range(len(on_screen) - 1))  # (its first row: the border)
        assert any(
            row.split()[:2] == ["id", '"call_99a5ca83ba8dbc63f02dc02e"']
            and row.split("│")[1].strip() == '""'
            for row in visible
        ), visible


async def test_the_libraries_are_assessed_in_the_background_with_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the worker assesses, the matrix says how far it got and keys still work."""
    from replay_tui.tui.widgets import clients_view

    path = write_big_trace(tmp_path / "big.sse", 4_000, calls=2)
    gate = threading.Event()
    read = clients_view._frames

    def held(trace: Trace) -> list[Frame]:
        gate.wait(timeout=30)  # the worker stops here until the test has looked
        return read(trace)

    monkeypatch.setattr(clients_view, "_frames", held)
    app = make_app([str(path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await app.action_show_tab("clients")
        await pilot.pause()
        matrix = app.clients_pane.matrix
        assert matrix.model is not None and not matrix.model.done
        assert "assessing… 0 of 18 policies" in rendered(matrix, range(2, 3))[0]
        before = matrix.cursor
        await pilot.press("down")  # the UI answers while the worker is busy
        assert matrix.cursor == before + 1 and not matrix.model.done
        gate.set()
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "clients"])
        await pilot.pause()
        assert matrix.model.done
        assert "assessing" not in rendered(matrix, range(2, 3))[0]
        assert len(matrix.model.outcomes) == len(matrix.model.policies)
        assert matrix.model.columns == 3


async def test_hostile_names_and_arguments_stay_literal_in_clients_and_compare(
    hostile_trace: Path,
) -> None:
    """Markup in a tool name, ESC and OSC 52 in an id and the arguments: shown, never run."""
    from .conftest import HOSTILE_FILE, HOSTILE_NAME

    hostile = hostile_trace / HOSTILE_FILE
    (hostile_trace / "copy.sse").write_text(hostile.read_text().replace('"id": ""', '"id": "x"'))
    app = make_app([str(hostile_trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.choose_trace(HOSTILE_FILE)
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        matrix = app.clients_pane.matrix
        texts = rendered(matrix) + app.clients_pane.detail.plain().splitlines()
        assert any(HOSTILE_NAME in t for t in texts)  # the tool name, as text
        assert any("\\u001b[2J" in t for t in texts)  # the id's ESC, shown
        await pilot.press("m")
        app.choose_trace("copy.sse")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        view = app.compare_pane.view
        view.action_toggle_all_runs()
        texts += rendered(view) + str(app.compare_pane.header.render()).splitlines()
        assert any("\\u001b]52" in t for t in texts)
        for text in texts:
            for ch in ("\x1b", "\x07", "\x9b"):
                assert ch not in text, f"{ch!r} reached the screen in {text!r}"


async def test_a_throw_names_the_field_and_the_line_that_triggered_it() -> None:
    """litellm/proxy-curl-i.txt: `"type": "FUNCTION"` on line 14 fails openai-python's
    assertion and is rejected by @ai-sdk/openai's schema; the detail pane and the enter window
    say which field, which value and which line, wrapped under their start at 80 columns."""
    app = make_app([str(LITELLM)])
    async with app.run_test(size=(80, 24)) as pilot:
        matrix = await _clients(app, pilot)
        while matrix.model is None or not matrix.model.done:
            await pilot.pause(0.01)
        pane = app.clients_pane
        assert matrix.selected()[0].key == "openai-python"  # type: ignore[index]
        field = 'choices[0].delta.tool_calls[0].type = "FUNCTION"'
        assert f"while reading line 14: {field}" in pane.detail.plain()
        # The whole response says it too; at 80 columns it wraps, each wrapped row indented
        # under the start of its line.
        await pilot.press("right")
        await settle(app, pilot)
        rows = rendered(pane.detail)
        start = next(k for k, r in enumerate(rows) if "while reading line 14:" in r)
        said = rows[start][: rows[start].index("while")]
        assert said.strip() == ""
        more = rows[start + 1]
        assert more.startswith(" " * (len(said) + 2)) and more.strip()
        assert field in " ".join(r.strip() for r in rows[start : start + 3])
        # enter: in words first (the same explanation, wrapped to the window), then the JSON
        await pilot.press("enter")
        assert isinstance(app.screen, PayloadScreen)
        sections = dict(app.screen.sections)
        words = " ".join(line.strip() for line in sections["what happened"].splitlines())
        assert "while reading line 14: choices[0].delta.tool_calls[0].type" in words
        assert max(len(line) for line in sections["what happened"].splitlines()) <= 80 * 0.9 - 4
        raised = json.loads(sections["raised"])
        assert raised["field"] == "choices[0].delta.tool_calls[0].type"
        assert (raised["value"], raised["field_line"], raised["line"]) == ('"FUNCTION"', 14, 14)
        await pilot.press("escape")
        # @ai-sdk/openai: each error part says which field failed which schema, at its line.
        while matrix.selected()[0].key != "ai-sdk-openai":  # type: ignore[index]
            await pilot.press("down")
        await settle(app, pilot)
        words = " ".join(line.strip() for line in pane.detail.plain().splitlines())
        for line in (14, 16, 18):
            assert (
                f'line {line}: choices[0].delta.tool_calls[0].type: expected "function" or null,'
                ' got "FUNCTION"; the stream goes on'
            ) in words


async def test_a_field_s_value_from_the_trace_is_shown_escaped_and_cut(tmp_path: Path) -> None:
    """Trace content in the explanation: markup is text, a terminal escape is shown as an
    escape, a 5 MB value is said cut (and the pane stays quick to wrap)."""
    first = {"index": 0, "id": "call_1", "type": "function"}
    first["function"] = {"name": "f", "arguments": ""}
    evil = "[bold red]x[/]\x1b[2J" + "y" * 5_000_000
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [first]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "type": evil}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    path = tmp_path / "evil.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    app = make_app([str(path)])
    async with app.run_test(size=(120, 40)) as pilot:
        matrix = await _clients(app, pilot)
        while matrix.model is None or not matrix.model.done:
            await pilot.pause(0.01)
        while matrix.selected()[0].key != "openai-python":  # type: ignore[index]
            await pilot.press("down")
        await settle(app, pilot)
        text = app.clients_pane.detail.plain()
        assert 'choices[0].delta.tool_calls[0].type = "[bold red]x[/]\\u001b[2Jyyy' in text
        assert "\x1b" not in text and "more characters" in text
        assert len(text) < 20_000


def test_the_checked_frames_are_every_frame_in_order_until_cancelled() -> None:
    # the assessment's stream asks whether it was cancelled once per CHECK_EVERY frames,
    # walking a slice at a time: every frame comes, in order, and none after a "yes"
    from replay_tui.tui.widgets.clients_view import CHECK_EVERY, _Cancelled, _Checked

    frames: list[Any] = [object() for _ in range(2 * CHECK_EVERY + 3)]
    assert list(_Checked(frames, lambda: False)) == frames
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(len(asked))
        return len(asked) > 2

    got = []
    with pytest.raises(_Cancelled):
        got.extend(_Checked(frames, cancelled))
    assert got == frames[: 2 * CHECK_EVERY] and len(asked) == 3
    assert list(_Checked([], lambda: True)) == []

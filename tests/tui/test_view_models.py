"""What each view shows, from its model alone: no app is started (fast, and the spec).

The views render rows from their models (``render_row``); here a view is made without an app,
its styles stubbed, and the row texts read back. Keys, focus and interaction are pilot tests
(``test_calls.py``, ``test_keys.py`` …); looks are SVG snapshots.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace
from replay_tui.tui.widgets import client_detail
from replay_tui.tui.widgets.calls_view import HEAD, CallsView, build_calls_model
from replay_tui.tui.widgets.client_detail import detail_lines, wrap_pieces
from replay_tui.tui.widgets.clients_model import start_model
from replay_tui.tui.widgets.diff_view import LEAD, TYPE_W, DiffView, build_diff_model
from replay_tui.tui.widgets.line_view import LineView
from replay_tui.tui.widgets.model_view import small
from replay_tui.tui.widgets.raw_view import RawView, build_raw_model

from .conftest import TRACES

V = TypeVar("V", bound=LineView)


def load(path: Path | str, address: str | None = None) -> Trace:
    sources = discover([path]).sources
    return load_trace(next(s for s in sources if address is None or s.address == address))


def offline(view: V, model: Any) -> V:
    """``view`` showing ``model`` without an app: plain styles, nothing mounted."""
    view.piece_style = lambda name: Style()  # type: ignore[method-assign]
    view.fill_style = lambda name: Style()  # type: ignore[method-assign]
    view.model = model  # type: ignore[attr-defined]
    return view


def texts(view: LineView, rows: range | None = None, *, count: int | None = None) -> list[str]:
    total = count if count is not None else view.row_count
    out = []
    for index in rows if rows is not None else range(total):
        segments, _ = view.render_row(index)
        out.append("".join(s.text for s in segments))
    return out


def calls_text(trace: Trace) -> list[str]:
    model = build_calls_model(trace)
    return texts(offline(CallsView(), model), count=model.total)


# -- calls --------------------------------------------------------------------------------------


def test_each_delta_shows_raw_identity_and_identity_under_both_behaviors() -> None:
    model = build_calls_model(load(TRACES / "envoy" / "vertex-anthropic-parallel.sse"))
    assert len(model.sections) == 2
    rows = texts(offline(CallsView(), model), count=model.total)
    title, groups, columns = rows[0], rows[1], rows[2]
    assert title.startswith("▸ call 0") and "3 deltas" in title
    assert "✗ erased id, erased name (2 flags)" in title
    for group in ("as sent", "assign-always (old)", "accept-identity (fix)"):
        assert group in groups
    for name in ("Δ", "line", "flag", "id", "name", "arguments fragment"):
        assert name in columns
    first, erasing = rows[HEAD : HEAD + 2]
    # Delta 2 on line 3 erased both: the raw values are null and "", the label says so.
    assert erasing.split()[:3] == ["▌", "2", "3"]
    assert "erased id · erased name" in erasing
    raw_id, raw_name = erasing.split("erased name", 1)[1].split()[:2]
    assert (raw_id, raw_name) == ("null", '""')
    # Under accept-identity the id from delta 1 stays in force; under assign-always it is null.
    assert erasing.count('"read_file"') == 1
    assert "absent" not in first.split("│")[0]


def test_cells_say_absent_null_empty_and_how_each_call_closes() -> None:
    cells = " ".join(calls_text(load(TRACES / "captures" / "name-never-sent.sse"))[HEAD:])
    assert "null" in cells and "absent" in cells and '"call_' in cells

    text = "\n".join(calls_text(load(TRACES / "ollama" / "qwen3-no-id.sse")))
    assert "accept-identity  ✗ refused: the call never got a non-empty id" in text
    assert "MALFORMED_TOOL_CALL: model streamed a tool call with no id" in text
    assert 'assign-always    id ""  name "get_weather"' in text
    assert "✗ an empty callId" in text
    assert '"city": "Lisbon"' in text  # arguments, pretty-printed

    text = "\n".join(calls_text(load(TRACES / "openai" / "gpt-4.1-text-then-call.sse")))
    assert text.count("✓ identified") == 2 and "erased" not in text

    first = calls_text(load(TRACES / "openrouter" / "error-midstream.sse"))[0]
    assert first == "No tool calls in this trace: no identity to erase."


def test_a_repaired_erasure_is_marked(repaired_trace: Path) -> None:
    rows = calls_text(load(repaired_trace))
    assert "1 repaired" in rows[0]
    assert "erased id (repaired l.5)" in rows[HEAD + 1]


def test_a_calls_title_says_what_is_wrong_first() -> None:
    """Flags, then a refusal by the fix, before where the call is: a narrow view still
    shows them."""
    titles = {
        name: next(r for r in calls_text(load(TRACES / name)) if r.startswith("▸ call 0"))
        for name in (
            "ollama/qwen3-no-id.sse",
            "captures/name-never-sent.sse",
            "captures/crlf-framed.sse",
            "captures/late-id.sse",
        )
    }
    assert titles["ollama/qwen3-no-id.sse"].startswith("▸ call 0   ⊘ refused: no id   block 0")
    assert titles["captures/name-never-sent.sse"].startswith("▸ call 0   ⊘ refused: no name")
    assert titles["captures/crlf-framed.sse"].startswith("▸ call 0   ✗ erased id (1 flag)   block")
    assert titles["captures/late-id.sse"].startswith("▸ call 0   block 0")  # nothing wrong


def test_row_headers_line_up_across_calls_and_stay_put_sideways() -> None:
    """Δ, line and flag have one width in every call: they are the sticky row headers."""
    model = build_calls_model(load(TRACES / "envoy" / "vertex-anthropic-parallel.sse"))
    heads = [s.columns[:3] for s in model.sections]
    assert all(h == heads[0] for h in heads)
    assert model.sticky == 2 + sum(c.width for c in heads[0]) + 2 * 2
    view = offline(CallsView(), model)
    stops = view.column_stops()
    assert stops == sorted(stops) and stops[0] == 2
    assert model.sticky in stops  # → first stops where the "as sent" id starts
    assert view.is_table_row(HEAD) and not view.is_table_row(0)  # the title scrolls whole


def test_the_assembled_call_is_what_the_harness_closes_it_with() -> None:
    """enter (or c) on a call's title: the same id and name as its closing line and as the
    harness's block-end; the table above shows what was in force while it streamed."""
    trace = load(TRACES / "envoy" / "vertex-anthropic-parallel.sse")
    model = build_calls_model(trace)
    view = offline(CallsView(), model)
    closes = [c["block"] for _, c in trace.iter_replay("assign-always") if c["type"] == "block-end"]
    for section, block in zip(model.sections, closes, strict=True):
        view.set_reactive(CallsView.cursor, section.start)
        got = view.copy_text()
        assert got is not None
        assembled = json.loads(got[0])["assign-always"]
        assert assembled == {"id": block["id"], "name": block["name"]} == {"id": "", "name": ""}


def test_a_trace_without_tool_calls_has_no_cursor_to_move() -> None:
    """The keys found no row to select and put the cursor on the message's first letter."""
    trace = load(TRACES / "openrouter" / "error-midstream.sse")
    view = offline(CallsView(), build_calls_model(trace))
    view.set_shape(view.model.total if view.model else 0, 80)  # type: ignore[union-attr]
    assert texts(view)[0] == "No tool calls in this trace: no identity to erase."
    for action in (view.action_cursor_up, view.action_cursor_down, view.action_last):
        action()
        assert view.cursor == -1


def test_a_head_read_before_any_call_says_so_not_that_the_stream_has_none(tmp_path: Path) -> None:
    """A first screen of text deltas (the calls come after 13 MB of them) is what has been
    read so far: neither "no tool calls in this trace" nor a stream being written."""
    from replay_tui.core.trace import TraceBuilder

    text = "".join(
        'data: {"choices":[{"index":0,"delta":{"content":"w' + str(i) + ' "}}]}\n\n'
        for i in range(50)
    )
    path = tmp_path / "text-first.sse"
    path.write_text(text)
    builder = TraceBuilder(discover([path]).sources[0])
    builder.feed(text.encode())
    assert calls_text(builder.build())[0] == "No tool calls in what has been read so far."


@given(st.text("ab-_.17界😀", min_size=1, max_size=40), st.integers(2, 30))
def test_a_name_cut_in_its_middle_keeps_its_start_and_end_and_fits(text: str, width: int) -> None:
    """The list, the header and the title cut names alike (one :func:`middle_cut`)."""
    from replay_tui.tui.cells import middle_cut
    from replay_tui.tui.widgets.trace_list import cut_middle

    cut = middle_cut(text, width)
    assert cut_middle(Text(text), width).plain == cut
    if cell_len(text) <= width:
        assert cut == text
        return
    head, _, tail = cut.partition("…")
    assert cell_len(cut) <= width and text.startswith(head) and text.endswith(tail)
    # each side may fall a cell short of its share before a wide character
    assert cell_len(head) >= cell_len(tail) - 1 and width - cell_len(cut) <= 2


@given(
    st.lists(
        st.sampled_from(["a", "_", "7", "\\u202e", "\\u200b", "\\n", '\\"', "\\\\"]), max_size=30
    ),
    st.integers(5, 30),
)
def test_a_cut_never_splits_an_escape(atoms: list[str], width: int) -> None:
    """``"call_\\u…2eevil"`` would read as an id that was never sent: an escape standing for
    an invisible character is kept or dropped whole, on both sides of the cut."""
    from replay_tui.tui.cells import middle_cut

    text = "".join(atoms)
    cut = middle_cut(text, width)
    if cut == text:
        return
    head, _, tail = cut.partition("…")
    heads = {"".join(atoms[:k]) for k in range(len(atoms) + 1)}
    tails = {"".join(atoms[k:]) for k in range(len(atoms) + 1)}
    assert head in heads and tail in tails and len(cut) <= width


# -- diff ---------------------------------------------------------------------------------------


def diff_view(trace: Trace, half: int = 70) -> DiffView:
    view = offline(DiffView(), build_diff_model(trace))
    view._halves = lambda: (half, half)  # type: ignore[method-assign]
    return view


def test_diff_aligns_both_streams_and_marks_differences() -> None:
    view = diff_view(load(TRACES / "envoy" / "vertex-anthropic-parallel.sse"))
    model = view.model
    assert model is not None
    rows = texts(view, count=len(model.display) + 1)
    assert "assign-always (old)" in rows[0] and "accept-identity (fix)" in rows[0]
    assert "6 of 12 rows differ" in rows[0]
    # Each heading over its column: the line numbers, each side's chunk types.
    first = rows[1]
    assert rows[0].index("line") == 0 and first[0].isdigit()
    assert rows[0].index("assign-always") == first.index("block-start")
    assert rows[0].index("accept-identity") == first.rindex("block-start")
    differing = [r for r in rows[1:] if r[6] == "≠"]
    assert len(differing) == 6
    assert all("tool-call-delta" in r or "block-end" in r for r in differing)
    assert any("block-start" in r for r in rows[1:] if r[6] == " ")


def test_a_six_digit_line_number_keeps_a_space_before_the_marker(tmp_path: Path) -> None:
    """Past line 100,000 the line column ran into the marker ("100007≠")."""
    path = tmp_path / "late.sse"
    padding = b": keep-alive\n\n" * 50_000  # 100,000 lines before the stream
    path.write_bytes(padding + (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes())
    view = diff_view(load(path))
    assert view.model is not None
    rows = texts(view, count=len(view.model.display) + 1)
    differing = [row for row in rows if "≠" in row]
    assert differing
    for row in differing:
        number = row.partition("≠")[0]
        assert number.strip().isdigit() and int(number) > 100_000
        assert number.endswith(" "), row  # a space between the number and the marker


def test_a_narrow_diff_starts_a_differing_row_at_what_differs() -> None:
    """A side too narrow to reach the difference (80 columns beside the list): the type
    gives way, and a differing row starts at what differs ('…' for what comes before)."""
    trace = load(TRACES / "dashscope" / "qwen3-max-id-empty.sse")
    for half in (70, 24, 18):
        view = diff_view(trace, half=half)
        assert view.model is not None
        rows = texts(view, count=len(view.model.display) + 1)
        erasing = [r.split("│") for r in rows[1:] if r[6] == "≠" and r.split()[2][:4] == "tool"]
        assert len(erasing) == 3
        assert all('id=""' in a and 'id="ca' in b for a, b in erasing), (half, erasing)
        alike = [r for r in rows[1:] if r[6] == " " and r.split()[1][:4] == "tool"]
        assert all("index=0" in r for r in alike)  # rows alike are not shifted
        assert all(("… id=" in a) is (half == 18) for a, _ in erasing)


@pytest.mark.parametrize(
    ("half", "heading"),
    [
        (70, "assign-always (old)  ... accept-identity (fix) · 3 of 7 rows differ"),
        (30, "old  ... fix · 3 of 7 rows differ"),
        (22, "old  ... fix · 3 of 7 differ"),
        (18, "old  ... fix · 3/7 differ"),
    ],
)
def test_a_narrow_diff_still_tells_the_chunk_types_and_the_count_apart(
    half: int, heading: str
) -> None:
    """Cut to their column, block-start and block-end were both "block…" (80×24 beside the
    list) and the count of rows that differ was gone: the types are named short, and the
    headings say less before they lose the count."""
    view = diff_view(load(TRACES / "captures" / "crlf-framed.sse"), half=half)
    assert view.model is not None
    rows = texts(view, count=len(view.model.display) + 1)
    left, right = heading.split("  ... ")
    assert [p.strip() for p in rows[0][LEAD:].split("│")] == [left, right]
    type_w = TYPE_W if half >= TYPE_W + 14 else max(7, half // 3)
    sides = [(r[LEAD : LEAD + half], r[LEAD + half + 3 :]) for r in rows[1:]]
    kinds = [(a[:type_w].strip(), b[:type_w].strip()) for a, b in sides]
    narrow = ["start", "tool Δ", "tool Δ", "tool Δ", "end", "usage", "finish"]
    wide = ["block-start", "tool-call-delta", "tool-call-delta", "tool-call-delta", "block-end"]
    expected = narrow if type_w < TYPE_W else [*wide, "usage", "finish"]
    assert [k[0] for k in kinds] == [k[1] for k in kinds] == expected


def test_identical_chunks_fold_into_one_run() -> None:
    model = build_diff_model(load(TRACES / "azure" / "gpt-4o-mini-usage-tail.sse"))
    assert model.differing == 0 and len(model.display) == 1
    row = texts(offline(DiffView(), model), range(1, 2))[0]
    assert "identical chunks" in row and "enter or click to expand" in row


def test_alignment_leaves_a_gap_where_the_fix_emits_no_block_end() -> None:
    model = build_diff_model(load(TRACES / "ollama" / "qwen3-no-id.sse"))
    gaps = [(a, b) for a, b in zip(model.left, model.right, strict=True) if b is None and a]
    assert [a[1]["type"] for a, _ in gaps] == ["block-end"]
    last = model.left[-1], model.right[-1]
    assert last[0] is not None and last[1] is not None
    assert last[0][1]["type"] == last[1][1]["type"] == "finish"


def test_a_long_chunk_is_cut_with_an_ellipsis_and_scrolls_into_view() -> None:
    """No cell is cut for good: … says there is more, and a sideways shift shows it."""
    view = diff_view(load(TRACES / "envoy" / "vertex-anthropic-parallel.sse"), half=50)
    model = view.model
    assert model is not None and max(model.side_widths) > 50
    pair = next(k for k, a in enumerate(model.left) if a and a[1]["type"] == "block-end")
    side = model.right[pair]
    whole = "".join(k + v for k, v in _side_text(side))
    shown = "".join(s.text for s in view._side(side, None, 50, True))
    assert len(shown) == 50 and shown.endswith("…")
    assert whole.startswith(shown[16:-1])
    shifted = "".join(s.text for s in view._side(side, None, 50, True, shift=40))
    assert shifted[16] == "…" and whole[41:70] in shifted


def _side_text(side: Any) -> list[tuple[str, str]]:
    from replay_tui.tui.widgets.diff_view import side_text

    return side_text(side[1])


# -- raw ----------------------------------------------------------------------------------------


def raw_text(trace: Trace) -> list[str]:
    model = build_raw_model(trace)
    return texts(offline(RawView(), model), count=model.rows)


def test_raw_numbers_lines_marks_what_follows_done_and_shows_curl_heads() -> None:
    rows = raw_text(load(TRACES / "opencode" / "zen-null-identity-data-after-done.sse"))
    assert rows[0].split()[0] == "1"
    assert rows[13].split()[0] == "13"  # below line 5: the note of what erased the identity
    assert 'data: {"choices":[],"cost":"0"}' in rows[13]
    assert rows[13].endswith("not replayed: after [DONE]")
    rows = raw_text(load(TRACES / "litellm" / "proxy-curl-i.txt"))
    assert "HTTP/1.1 200 OK" in rows[0]
    assert "content-type: text/event-stream" in rows[3]


def test_raw_marks_what_erased_an_identity_and_says_where_under_its_line(tmp_path: Path) -> None:
    rows = raw_text(load(TRACES / "dashscope" / "qwen3-max-id-empty.sse"))
    assert rows[2].split()[0] == "3"
    assert rows[3].strip() == '⚑ "id":"" (column 69) erases call 0\'s id (assign-always)'
    assert rows[4].split()[0] == "4"
    rows = raw_text(load(TRACES / "writer" / "palmyra-x5-all-null.sse"))
    assert rows[5].strip() == (
        '⚑ "id":null (column 196) erases call 0\'s id;'
        ' "name":null (column 230) erases call 0\'s name (assign-always)'
    )
    # A chunk's own "id" is not a tool call's: the mark is on the call's.
    path = tmp_path / "t.sse"
    path.write_text(
        'data: {"id":"","choices":[{"delta":{"tool_calls":[{"index":0,"id":"c",'
        '"function":{"name":"f"}}]}}]}\n\n'
        'data: {"id":"","choices":[{"delta":{"tool_calls":[{"index":0, "id": ""}]}}]}\n\n'
        "data: [DONE]\n\n"
    )
    trace = load(path)
    model = build_raw_model(trace)
    column = model.text(3).index('"id": ""') + 1
    assert model.erased[3] == f'⚑ "id": "" (column {column}) erases call 0\'s id (assign-always)'
    assert column > 20  # the tool call's, not the chunk's
    view = offline(RawView(), model)
    segments, _ = view.render_row(model.row_of(3))
    texts = [seg.text for seg in segments]
    assert texts.count('"id": ""') == 1  # a piece of its own, to be styled apart
    assert not any(t.startswith('"id":""') for t in texts)  # the chunk's is not


def test_invalid_json_is_shown_under_its_line(broken_json_trace: Path) -> None:
    rows = raw_text(load(broken_json_trace))
    assert rows[2].split()[:2] == ["3", "⚠"]
    assert rows[3].strip() == "⚠ not valid JSON: Expecting value at column 20"
    assert rows[4].split()[0] == "4"  # numbering resumes after the message row


def test_invalid_utf8_and_an_unterminated_event_are_shown_under_their_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "errors.sse"
    path.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"content":"\xff"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
    )
    rows = raw_text(load(path))
    assert rows[0].split()[:2] == ["1", "⚠"]
    assert "⚠ invalid UTF-8" in rows[1] and "U+FFFD" in rows[1]
    assert rows[2].split()[0] == "2"
    assert rows[5].split()[:2] == ["5", "⚠"] and "⚠ invalid UTF-8" in rows[6]
    last = rows.index(next(r for r in rows if r.split()[:1] == ["7"]))
    assert "⚠ unterminated event" in rows[last + 1] and "not replayed" in rows[last + 1]


def test_a_line_with_invalid_utf8_and_an_erasing_field_has_both_notes(tmp_path: Path) -> None:
    path = tmp_path / "both.sse"
    path.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
        b'"function":{"name":"f"}}]}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"",'
        b'"function":{"arguments":"\xff"}}]}}]}\n\n'
        b"data: [DONE]\n\n"
    )
    rows = raw_text(load(path))
    assert rows[2].split()[:2] == ["3", "⚠"]
    assert rows[3].strip().startswith("⚠ invalid UTF-8")
    assert rows[4].strip().startswith('⚑ "id":"" (column ')
    assert rows[4].strip().endswith("erases call 0's id (assign-always)")
    assert rows[5].split()[0] == "4"  # numbering resumes after both notes
    model = build_raw_model(load(path))
    view = offline(RawView(), model)
    view.cursor = 4  # each note is copied on its own
    assert view.copy_text() == (model.erased[3], "the note under line 3")
    view.cursor = 3
    assert view.copy_text() == (model.messages[3], "the error on line 3")


def test_every_payload_after_the_replay_stopped_is_marked_not_replayed(tmp_path: Path) -> None:
    # One rule: every line after the one that ended the replay ([DONE], or the payload the
    # harness failed on) is dimmed, and every payload there is marked on its first line,
    # whatever the line starts with (an event line, a comment) and however the replay ended.
    path = tmp_path / "stops.sse"
    path.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'
        b"data: {not json\n\n"
        b": keep-alive\n\n"
        b'data: {"choices":[{"index":0,\n'
        b'data: "delta":{"content":"x"}}]}\n\n'
        b"data: [DONE]\n\n"
    )
    rows = raw_text(load(path))
    by_line = {r.split()[0]: r for r in rows if r.split() and r.split()[0].isdigit()}
    stopped = "not replayed: the replay stopped on line 3"
    assert stopped not in by_line["1"] and stopped not in by_line["3"]
    assert by_line["7"].endswith(stopped)  # the first line of a two-line payload
    assert not by_line["8"].endswith(stopped)  # its second line: the payload is marked once
    assert by_line["10"].endswith(stopped)  # a [DONE] after the failure is not replayed either
    assert "keep-alive" in by_line["5"] and "not replayed" not in by_line["5"]
    model = build_raw_model(load(path))
    assert [model.replayed(line) for line in (1, 3, 4, 5, 10)] == [True] * 2 + [False] * 3
    path.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'
        b"data: [DONE]\n\n"
        b"event: late\n"
        b'data: {"choices":[]}\n\n'
    )
    rows = raw_text(load(path))
    assert rows[4].startswith("5") and "not replayed" not in rows[4]  # the event line
    assert rows[5].startswith("6") and rows[5].endswith("not replayed: after [DONE]")


def test_a_har_entry_broken_beside_its_body_says_so_in_place(tmp_path: Path) -> None:
    """(An entry with no body at all is not a trace: listed as skipped, with why.)"""
    body = (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_text()
    entry = {
        "request": {"method": "POST", "url": "http://gw/v1/chat/completions"},
        "response": {
            "status": "200",  # a string: breaks HAR's schema, not the stream
            "headers": [{"name": "content-type", "value": "text/event-stream"}],
            "content": {"mimeType": "text/event-stream", "text": body},
        },
    }
    path = tmp_path / "odd.har"
    path.write_text(json.dumps({"log": {"entries": [entry]}}))
    rows = raw_text(load(path))
    assert rows[0].strip().startswith("⚠ this entry is not HAR 1.2 (")
    assert rows[0].strip().endswith("its stream is read as saved")
    assert any("data: " in row for row in rows[1:])


# -- clients ------------------------------------------------------------------------------------


def test_a_long_exception_is_whole_in_the_detail() -> None:
    from replay_tui.clientlibs import POLICIES, assess_frames, compact_frames

    trace = load(TRACES / "litellm" / "proxy-curl-i.txt")
    model = start_model(trace)
    policy = POLICIES["openai-node-strict"]
    model.outcomes.update(assess_frames(compact_frames(trace), model.meant, [policy]))
    message = "Error: Chat completion stream contains a changed tool call identity"
    for column in (0, 1):  # the call it did not deliver, and the whole response
        lines = detail_lines(model, policy, column)
        text = " ".join(
            "".join(t for t, _ in [*ln.pieces, *(ln.left or []), *(ln.right or [])]) for ln in lines
        )
        assert message in text


def test_a_5_mb_error_message_is_shown_cut_in_the_detail(tmp_path: Path) -> None:
    """An error chunk whose message is 5 MB (OpenRouter's): the AI SDK surfaces it as an
    error part; the detail shows its start and how much is left, and wraps no more."""
    from replay_tui.clientlibs import POLICIES, assess_frames, compact_frames

    message = "lorem ipsum " * 420_000
    head = {"index": 0, "id": "call_1", "type": "function"}
    head["function"] = {"name": "f", "arguments": "{}"}
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [head]}}]},
        {"choices": [{"index": 0, "delta": {"content": ""}}], "error": {"message": message}},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    path = tmp_path / "error.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    [source] = discover([path]).sources
    trace = load_trace(source)
    model = start_model(trace)
    policy = POLICIES["ai-sdk-openai-compatible"]
    model.outcomes.update(assess_frames(compact_frames(trace), model.meant, [policy]))
    assert model.outcomes[policy.key].assembly.error_parts[0].message == message
    lines = detail_lines(model, policy, 1)  # the whole response: its error parts
    text = " ".join(
        "".join(t for t, _ in [*ln.pieces, *(ln.left or []), *(ln.right or [])]) for ln in lines
    )
    assert "lorem ipsum lorem" in text
    assert (
        f"({len(message) - client_detail.MAX_SAID_CHARS + len('provider error: '):,} more" in text
    )
    assert len(text) < 20_000


def test_wrapping_breaks_at_spaces_and_keeps_each_piece_style() -> None:
    pieces = [("✗ throws ", "bad"), ("Error: a b c stream contains a changed identity", "dim")]
    lines = wrap_pieces(pieces, 20)
    assert ["".join(t for t, _ in line) for line in lines] == [
        "✗ throws Error: a b ",
        "c stream contains a ",
        "changed identity",
    ]
    assert lines[0] == [("✗ throws ", "bad"), ("Error: a b ", "dim")]
    assert wrap_pieces(pieces, 200) == [pieces]
    assert [len(line[0][0]) for line in wrap_pieces([("x" * 45, "")], 20)] == [20, 20, 5]


def _wrap_by_slices(pieces: list[tuple[str, str]], width: int) -> list[list[tuple[str, str]]]:
    """What ``wrap_pieces`` did before it was made linear (right for one-cell characters)."""
    text = "".join(t for t, _ in pieces)
    if cell_len(text) <= width or width < 8:
        return [pieces]
    cuts, start = [], 0
    while cell_len(text[start:]) > width:
        end = start + width
        space = text.rfind(" ", start + 1, end + 1)
        cut = space + 1 if space > start else end
        cuts.append((start, cut))
        start = cut
    cuts.append((start, len(text)))
    out = []
    for a, b in cuts:
        line, at = [], 0
        for t, name in pieces:
            lo, hi = max(a, at), min(b, at + len(t))
            if lo < hi:
                line.append((t[lo - at : hi - at], name))
            at += len(t)
        out.append(line)
    return out


_PIECES = st.lists(st.tuples(st.text("ab c", max_size=30), st.sampled_from(["x", "y"])), max_size=6)


@given(_PIECES, st.integers(1, 40))
def test_wrapping_is_what_it_was_for_one_cell_text(pieces: list[tuple[str, str]], w: int) -> None:
    assert wrap_pieces(pieces, w) == _wrap_by_slices(pieces, w)


@given(
    st.lists(st.tuples(st.text("ab 界😀\u0301", max_size=30), st.just("x")), max_size=6),
    st.integers(8, 40),
)
def test_wide_characters_never_cross_the_edge(pieces: list[tuple[str, str]], w: int) -> None:
    lines = wrap_pieces(pieces, w)
    text = "".join(t for t, _ in pieces)
    assert "".join(t for line in lines for t, _ in line) == text
    for line in lines[:-1] if len(lines) > 1 else []:
        shown = "".join(t for t, _ in line)
        # a line may end in the space it was broken after; the rest fits
        assert cell_len(shown.removesuffix(" ")) <= w


def test_a_300_kb_argument_wraps_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """It took 22 s (quadratic: the rest of the text measured again for every line)."""
    text = "x" * 300_000
    calls = 0
    real = client_detail.cell_len

    def counting(t: str) -> int:
        nonlocal calls
        calls += 1
        return real(t)

    monkeypatch.setattr(client_detail, "cell_len", counting)
    lines = wrap_pieces([(text, "v")], 50)
    assert len(lines) == 6000 and all(len(line[0][0]) == 50 for line in lines)
    assert calls <= 2  # the text measured once or twice, never once per line


# -- compare ------------------------------------------------------------------------------------


def test_an_empty_finish_code_reads_as_quotes_in_the_compare_view(tmp_path: Path) -> None:
    from replay_tui.core.diff import diff_traces
    from replay_tui.core.translator import Behavior
    from replay_tui.tui.widgets.compare_model import build_compare_model
    from replay_tui.tui.widgets.compare_view import _text

    text = (TRACES / "captures" / "empty-finish-reason.sse").read_text()
    (tmp_path / "a.sse").write_text(text)
    (tmp_path / "b.sse").write_text(text.replace('"finish_reason":""', '"finish_reason":"stop"'))
    diff = diff_traces(load(tmp_path / "a.sse"), load(tmp_path / "b.sse"))
    model = build_compare_model(diff, Behavior.ACCEPT_IDENTITY)
    finish = next(d for d in model.outcome.differences if d.kind == "finish")
    assert _text(finish, finish.a, finish.a_text) == 'error ""'
    assert _text(finish, finish.b, finish.b_text) == "stop"


# -- the views build in a worker only when it pays ----------------------------------------------


def test_small_traces_are_built_on_the_spot_big_ones_in_a_worker(tmp_path: Path) -> None:
    from .conftest import write_big_trace

    assert small(load(TRACES / "envoy" / "vertex-anthropic-parallel.sse"))
    assert not small(load(write_big_trace(tmp_path / "big.sse", 4000)))


def test_an_empty_finish_reason_reads_as_quotes_wherever_a_finish_is_said() -> None:
    from replay_tui.tui.cells import failure_text, finish_text

    empty = {"kind": "error", "failure": {"code": "", "message": "model stopped: "}}
    assert finish_text(empty) == 'error ""'
    assert failure_text(empty["failure"]) == '"": model stopped: ""'  # type: ignore[arg-type]
    assert finish_text({"kind": "tool-calls"}) == "tool-calls"
    stopped = {"code": "CONTENT_FILTER", "message": "model stopped: content_filter"}
    assert failure_text(stopped) == "CONTENT_FILTER: model stopped: content_filter"


def test_the_header_short_of_room_keeps_the_verdict_its_badge_is_about() -> None:
    """Each level says less; before the verdicts go, the one the badge is about stays: a
    refused call is the fix's refusal, an erased identity the old behavior's."""
    from replay_tui.tui.widgets.bars import SUMMARY_LEVELS, trace_summary

    def said(name: str) -> list[str]:
        trace = load(TRACES / name)
        return [trace_summary(trace, level=n).plain for n in range(SUMMARY_LEVELS)]

    refused = said("captures/name-never-sent.sse")
    assert refused[3] == (
        "name-never-sent.sse   ⊘ refused   old unidentified-call  fix malformed-tool-call   0 flags"
    )
    # Both verdicts before the flag count (at 100 columns beside the list: "fix ok" stays)
    assert refused[4] == (
        "name-never-sent.sse   ⊘ refused   old unidentified-call  fix malformed-tool-call"
    )
    assert refused[5] == "name-never-sent.sse   ⊘ refused   fix malformed-tool-call   0 flags"
    assert refused[6] == "name-never-sent.sse   ⊘ refused    0 flags"
    erasing = said("dashscope/qwen3-max-id-empty.sse")
    assert erasing[4] == "qwen3-max-id-empty.sse   ✗ erasing   old unidentified-call  fix ok"
    assert erasing[5] == "qwen3-max-id-empty.sse   ✗ erasing   old unidentified-call   1 flag"
    # Both behaviors' verdict when they agree: "fix model-error" alone read as if the old
    # behavior's were something else (a new user's report).
    agree = said("captures/empty-response.sse")
    assert agree[4] == agree[5] == "empty-response.sse   ! broken   both empty-response   0 flags"
    assert said("captures/empty-finish-reason.sse")[5] == (
        "empty-finish-reason.sse   ! broken   both model-error   0 flags"
    )
    clean = said("azure/gpt-4o-mini-usage-tail.sse")
    assert clean[5] == clean[6] == "gpt-4o-mini-usage-tail.sse   ✓ clean    0 flags"
    assert all(len(a) > len(b) for a, b in itertools.pairwise(refused))


def test_a_detail_line_wrapped_at_its_edge_shows_its_last_word_whole() -> None:
    """A wrapped line keeps the space it broke at; one past the edge is dropped when drawn,
    never the word before it cut for "…" ("list inde…" above "out of range")."""
    detail = client_detail.ClientDetail()
    detail.piece_style = lambda name: Style()  # type: ignore[method-assign]
    text = "✗ throws IndexError: list index out of range"
    lines = wrap_pieces([(text, "bad")], 31)
    drawn = ["".join(s.text for s in detail._segments(line, 31)) for line in lines]
    assert drawn == ["✗ throws IndexError: list index", "out of range" + " " * 19]
    assert "".join(s.text for s in detail._segments([("a b c d", "")], 5)) == "a b …"


def test_the_details_line_numbers_are_one_form_in_a_column_wide_enough(tmp_path: Path) -> None:
    """At 120 columns the Flags panel read "line 100,007erased id" and the notes "100009"."""
    from replay_tui.tui.widgets.details import details_text
    from tests.core.helpers import call, chunk, sse, tools

    text = [chunk({"content": "x"}) for _ in range(50_002)]
    stream = sse(
        *text,
        tools(call(0, id="c", name="f", arguments="")),
        tools(call(0, id="", arguments="{}")),
        chunk({"content": "late"}),
        chunk(finish="tool_calls"),
    )
    path = tmp_path / "late.sse"
    path.write_bytes(stream)
    [source] = discover([path]).sources
    shown = details_text(load_trace(source)).plain.splitlines()
    [flag] = [row for row in shown if "erased id" in row]
    assert flag.startswith("  line 100,007 erased id ")
    lines = [row.split()[1] for row in shown if row.startswith("  line ")]
    assert lines and all("," in n for n in lines if len(n.replace(",", "")) > 3)


def test_the_details_show_ten_notes_of_a_kind_and_say_how_many_more(tmp_path: Path) -> None:
    """Gemini's whole calls with no index, 150 of them: 298 notes of two kinds, and the
    details showed 200 near-identical lines with nothing said of the rest (and wrapping them
    took a launch a tenth of a second). Now: the first ten of each kind, in order, and how
    many more of each."""
    from collections import Counter

    from replay_tui.tui.widgets.details import details_text
    from tests.core.helpers import chunk, sse, tools

    calls = [
        tools(
            {
                "id": f"g{k}",
                "type": "function",
                "function": {"name": f"f{k % 2}", "arguments": "{}"},
            }
        )
        for k in range(150)
    ]
    calls.insert(75, tools({"index": 3, "id": "x", "type": "function", "function": {}}))
    path = tmp_path / "gemini.sse"
    path.write_bytes(sse(*calls, chunk(finish="stop")))
    [source] = discover([path]).sources
    trace = load_trace(source)
    kinds = Counter(n.kind for n in trace.notes)
    assert len(trace.notes) > 200 and len(kinds) >= 3
    shown = details_text(trace).plain.splitlines()
    rows = shown[shown.index(f"Notes ({len(trace.notes)})") + 1 : -1]
    kinds_before = [
        [m.kind for m in trace.notes[:k]].count(n.kind) for k, n in enumerate(trace.notes)
    ]
    expected = [n for n, before in zip(trace.notes, kinds_before, strict=True) if before < 10]
    assert [row.split()[2] for row in rows] == [n.kind for n in expected]
    assert all(n.message in row for n, row in zip(expected, rows, strict=True))
    more = ", ".join(f"{c - 10} more {k}" for k, c in kinds.items() if c > 10)
    assert shown[-1] == f"  … {more} (check -v lists them all)"


@pytest.mark.parametrize("width", [40, 70, 100])
def test_wrapped_details_hang_under_their_value_never_under_the_label(width: int) -> None:
    from replay_tui.tui.widgets.details import details_text, hang

    [source] = discover([TRACES / "opencode"]).sources
    text = details_text(load_trace(source))
    lines = hang(text, width).plain.splitlines()
    assert all(len(line) <= width for line in lines)
    # Every character is kept, in order (a word longer than the room is folded).
    assert "".join("".join(lines).split()) == "".join(text.plain.split())
    for n, line in enumerate(lines[1:], 1):
        above = lines[n - 1]
        if line.startswith("  ") and not line.lstrip().startswith(("when", "means", "line")):
            # A continuation: under the value of the line it continues, not at column 2.
            assert len(line) - len(line.lstrip()) >= 7, (above, line)
    if width == 70:
        assert "        string" in lines
        assert any(line.startswith("                                line 13)") for line in lines)


@pytest.mark.parametrize("width", [69, 70])
def test_a_note_whose_kind_fills_its_column_hangs_under_its_message(width: int) -> None:
    # ("arguments-not-json" is 18 of the kind's 20 columns: its gap ended past half the
    # pane's width, and its message ran back under the line number)
    from textual.content import Content

    from replay_tui.tui.widgets.details import hang

    message = "the call with no index: arguments do not parse as JSON at close " * 3
    line = f"  line 199,601 {'arguments-not-json':<20}{message}"
    lines = hang(Content(line), width).plain.splitlines()
    assert len(lines) > 2 and all(len(row) <= width for row in lines)
    assert all(row.startswith(" " * 35) and row[35] != " " for row in lines[1:])


def test_a_new_state_of_a_trace_keeps_the_sections_of_the_calls_it_did_not_change(
    tmp_path: Path,
) -> None:
    from replay_tui.core.trace import Form, Source, TraceBuilder
    from tests.core.helpers import call, sse, tools

    path = tmp_path / "g.sse"
    events = [tools(call(c, id=f"call_{c}", name="f", arguments='{"a": 1}')) for c in range(30)]
    head = sse(*events, done=False)
    more = sse(tools(call(29, arguments=" ")), done=False)  # the last call grows
    path.write_bytes(head + more)
    builder = TraceBuilder(Source(path, "g.sse", Form.SSE))  # as the live folder follows it
    builder.feed(head)
    before = build_calls_model(builder.build())
    builder.feed(more)
    after = builder.build()
    again = build_calls_model(after, before)
    fresh = build_calls_model(after)
    assert texts(offline(CallsView(), again), count=again.total) == calls_text(load(path))
    assert (again.total, again.width, again.starts) == (fresh.total, fresh.width, fresh.starts)
    # The 29 calls that did not change kept what was made of them; the last was made again.
    kept = [a.tail is b.tail for a, b in zip(again.sections, before.sections, strict=True)]
    assert kept == [True] * 29 + [False]


def test_calls_streamed_side_by_side_show_their_whole_arguments_at_each_delta_appended(
    tmp_path: Path,
) -> None:
    """Two calls' pieces one after the other's in turn (their pieces never side by side in
    the record): a state made from the last, a delta appended at a time, shows each call's
    arguments as a fresh load of the same bytes does, past the length shown as sent too."""
    from replay_tui.core.trace import Form, Source, TraceBuilder
    from replay_tui.tui.widgets.calls_view import MAX_PRETTY
    from tests.core.helpers import call, sse, tools

    piece = "ab\u00e9" * 700  # (2,100 characters a delta: past MAX_PRETTY within 40)
    events = [tools(call(c, id=f"call_{c}", name="f", arguments='{"a": "')) for c in (0, 1)]
    events += [tools(call(k % 2, arguments=f"{k}{piece}")) for k in range(2, 72)]
    assert 35 * len(piece) > MAX_PRETTY
    path = tmp_path / "g.sse"
    builder = TraceBuilder(Source(path, "g.sse", Form.SSE))
    model = None
    written = b""
    for k, event in enumerate(events):
        more = sse(event, done=False)
        builder.feed(more)
        written += more
        model = build_calls_model(builder.build(), model)
        if k in (1, 2, 3, 40, 41, len(events) - 1):
            path.write_bytes(written)
            assert texts(offline(CallsView(), model), count=model.total) == calls_text(
                load(path)
            ), k


def test_a_calls_model_draws_its_calls_as_they_were_when_it_was_made(tmp_path: Path) -> None:
    """A call's lines under its rows are made again when drawn (a model keeps their sizes and
    widths): from what the call was when the model was made, not from what it has grown into
    since, in the thread that follows the capture (arguments and identities sent later)."""
    from replay_tui.core.trace import Form, Source, TraceBuilder
    from tests.core.helpers import call, sse, tools

    first = sse(tools(call(0, id="call_1", arguments='{"a": ')), done=False)
    later = sse(tools(call(0, name="f", arguments="1}")), done=False)
    path = tmp_path / "g.sse"
    path.write_bytes(first)
    builder = TraceBuilder(Source(path, "g.sse", Form.SSE))
    builder.feed(first)
    snapshot = builder.build()
    model = build_calls_model(snapshot)
    builder.feed(later)  # the call grows on: a name, the rest of its arguments
    shown = texts(offline(CallsView(), model), count=model.total)
    alone = TraceBuilder(Source(path, "g.sse", Form.SSE))  # one that never read on
    alone.feed(first)
    never_grown = build_calls_model(alone.build())
    tail = len(model.sections[0].tail)  # (its title reads the call as it is now: not here)
    assert tail and model.total == never_grown.total
    shown = shown[-tail:]
    assert shown == texts(offline(CallsView(), never_grown), count=never_grown.total)[-tail:]
    assert any('{"a": ' in line for line in shown) and not any("1}" in line for line in shown)
    assert any("no name" in line for line in shown)


def _grown(body: bytes, path: Path, cuts: list[int]) -> None:
    """``body`` written to ``path`` in steps (its events up to each cut), the calls model made
    from the last step's at each (as the live folder follows a capture): at each step its
    rows, widths and row count are those of the capture up to there read afresh."""
    from replay_tui.core.trace import Form, Source, TraceBuilder

    events = body.split(b"\n\n")
    builder = TraceBuilder(Source(path, path.name, Form.SSE))
    model, fed = None, 0
    for cut in [*cuts, len(events)]:
        part = b"\n\n".join(events[:cut]) + (b"\n\n" if cut < len(events) else b"")
        builder.feed(part[fed:])
        fed = len(part)
        model = build_calls_model(builder.build(), model)
        path.write_bytes(part)
        afresh = TraceBuilder(Source(path, path.name, Form.SSE))  # (still being written too)
        afresh.feed(path.read_bytes())
        fresh = build_calls_model(afresh.build())
        view = offline(CallsView(), model)
        assert texts(view, count=model.total) == calls_text(afresh.build()), cut
        assert (model.total, model.width, model.sticky) == (fresh.total, fresh.width, fresh.sticky)


@pytest.mark.parametrize(
    "name",
    [
        "dashscope/qwen3-max-id-empty.sse",
        "dashscope/glm-5.2-id-and-name-empty.sse",
        "envoy/vertex-anthropic-parallel.sse",
        "envoy/bedrock-parallel-unterminated-done.sse",
        "nvidia-nim/glm-4.7-name-null-then-real.sse",
        "captures/parallel-out-of-order.sse",
        "captures/late-id.sse",
        "openai/gpt-4.1-text-then-call.sse",
    ],
)
def test_a_growing_capture_shows_at_each_step_what_it_holds(name: str, tmp_path: Path) -> None:
    """Each state made from the last (the sections of the calls that did not change taken
    over) shows what a fresh load of the same bytes shows: one event at a time."""
    body = (TRACES / name).read_bytes()
    _grown(body, tmp_path / "g.sse", list(range(1, body.count(b"\n\n"))))


def test_a_growing_capture_of_many_calls_erasures_and_repairs_shows_what_it_holds(
    tmp_path: Path,
) -> None:
    """Calls opened one after another and side by side, erased ids and names, an erasure a
    later delta repairs (its label changes, not its count of flags), the row headers
    widening (delta 10, line 1,000): each step as loaded afresh."""
    from tests.core.helpers import call, chunk, sse, tools

    payloads: list[Any] = []
    for c in range(12):
        payloads.append(tools(call(c, id=f"call_{c}", name="f", arguments="")))
        for k in range(c * 3):
            fields: dict[str, Any] = {"arguments": "x"}
            if k % 4 == 1:
                fields["id"] = ""
            if k % 5 == 2:
                fields["name"] = ""
            if k % 7 == 3:
                fields["id"] = f"call_{c}"  # re-sent: repairs the open erasure
            payloads.append(tools(call(c, **fields)))
            if c > 2 and k % 3 == 0:
                payloads.append(tools(call(c - 2, arguments="y")))  # an earlier call grows
    payloads.append(chunk(finish="tool_calls"))
    body = sse(*payloads)
    n = body.count(b"\n\n")
    _grown(body, tmp_path / "g.sse", [*range(1, 40), *range(40, n, 7)])


def test_long_arguments_show_their_first_lines_as_sent(tmp_path: Path) -> None:
    from replay_tui.tui.widgets.calls_view import ARG_WRAP, MAX_ARG_LINES, MAX_PRETTY
    from tests.core.helpers import call, chunk, sse, tools

    args = '{"text": "' + "word " * (MAX_PRETTY // 4) + '"}'
    path = tmp_path / "long.sse"
    path.write_bytes(
        sse(tools(call(0, id="c", name="f", arguments=args)), chunk(finish="tool_calls"))
    )
    lines = calls_text(load(path))
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("arguments"))
    assert f"({len(args):,} characters: shown as sent)" in lines[first]
    assert lines[first].split()[1] == args[:ARG_WRAP].split()[0]
    rest = -(-len(args) // ARG_WRAP) - MAX_ARG_LINES
    assert f"… {rest:,} more lines" in lines[first + MAX_ARG_LINES]


def _widest_by_encoding(trace: Trace) -> tuple[int, int]:
    """The diff view's widest side, every chunk encoded and measured (the oracle)."""
    from replay_tui.core.stream import BehaviorPairs
    from replay_tui.tui.widgets.diff_view import MAX_SIDE

    widest = [0, 0]
    for pair in BehaviorPairs(trace.analysis):
        for which, side in enumerate(pair):
            if side is not None:
                cells = TYPE_W + sum(
                    cell_len(f" {k}=")
                    + cell_len(json.dumps(v, ensure_ascii=False, separators=(",", ":")))
                    for k, v in side[1].items()
                    if k != "type"
                )
                widest[which] = min(MAX_SIDE, max(widest[which], cells))
    return widest[0], widest[1]


@pytest.mark.parametrize(
    "fragment",
    ['a \\"quoted\\" \\\\ path', "ünïcödé 中文", "x" * 50, "tab\\there"],
    ids=["escapes", "wide", "plain", "control"],
)
def test_the_diff_sides_are_as_wide_as_their_widest_chunk(fragment: str) -> None:
    """Measured without encoding printable ASCII: the same widths as encoding every chunk."""
    head = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
    cont = {"index": 0, "id": "", "function": {"arguments": json.loads(f'"{fragment}"')}}
    body = "".join(
        f"data: {json.dumps({'choices': [{'delta': {'tool_calls': [c]}}]})}\n\n"
        for c in (head, cont)
    )
    from replay_tui.core.trace import Form, Source

    trace = load_trace(
        Source(Path("w.sse"), "w.sse", Form.SSE), (body + "data: [DONE]\n\n").encode()
    )
    assert build_diff_model(trace).side_widths == _widest_by_encoding(trace)


def test_the_diff_sides_of_every_bundled_trace_are_as_wide_as_encoding_says() -> None:
    for source in discover([TRACES]).sources:
        trace = load_trace(source)
        assert build_diff_model(trace).side_widths == _widest_by_encoding(trace), source.address


@given(
    st.text(alphabet=st.sampled_from(["a", "杭", "州", '"', " ", "é", "🙂"]), max_size=400),
    st.integers(1, 40),
)
def test_a_cell_shows_what_measuring_the_whole_text_shows(text: str, width: int) -> None:
    """A long text is measured only as far as its cell can show (a call's 100 KB of CJK
    arguments took 80 ms a row): what the cell says is what cutting the whole text says."""
    from rich.cells import set_cell_size

    from replay_tui.tui.cells import fit

    whole = cell_len(text)
    said = text + " " * (width - whole) if whole <= width else set_cell_size(text, width - 1) + "…"
    assert fit(text, width) == said
    assert cell_len(fit(text, width)) == width


def test_a_cell_of_a_huge_text_shows_its_start() -> None:
    from replay_tui.tui.cells import fit

    text = '杭州 "西湖" ' * 20_000
    assert fit(text, 12) == '杭州 "西湖"…'

"""Notes: identical ones once, with a count; a gateway pattern named by what was seen."""

from __future__ import annotations

from pathlib import Path

from replay_tui.cli.traces import resolve_trace
from replay_tui.share.report import build_report

from .samples import CORPUS, TRACES


def test_identical_notes_become_one_with_a_count(tmp_path: Path) -> None:
    chunk = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":""}]}\n\n'
    path = tmp_path / "empty-finish.sse"
    path.write_text(chunk * 36 + "data: [DONE]\n\n")
    notes = build_report(resolve_trace(str(path))).notes
    said = [text for _, text in notes if text.startswith('finish_reason is ""')]
    assert len(said) == 1
    assert "× 36: lines 1, 3, 5, 7, 9, … 31 more" in said[0]
    assert notes[0][0] == 1


def test_a_gateway_pattern_is_named_by_what_was_seen_first() -> None:
    for path, shape, known in [
        (TRACES / "writer" / "palmyra-x5-all-null.sse", "id:null, name:null", "Writer / vLLM"),
        (CORPUS / "dashscope__qwen3-max__single-call__id-empty-string.sse", 'id:""', "DashScope"),
    ]:
        notes = [t for _, t in build_report(resolve_trace(str(path))).notes]
        (note,) = [t for t in notes if "same pattern" in t]
        assert note.startswith(f"continuations send {shape}")
        assert f"— the same pattern as {known}" in note
        assert "looks like" not in note


def test_one_delta_is_singular_and_the_capture_table_has_a_header(tmp_path: Path) -> None:
    from replay_tui.share.export import render

    path = tmp_path / "one.sse"
    call = '{"index":0,"id":"","function":{"name":"f","arguments":"{}"}}'
    path.write_text(
        f'data: {{"choices":[{{"delta":{{"tool_calls":[{call}]}}}}]}}\n\ndata: [DONE]\n\n'
    )
    trace = resolve_trace(str(path))
    md, page = render("one", [trace], fmt="md"), render("one", [trace])
    assert "(1 delta)" in md and "(1 delta)" in page
    assert "1 deltas" not in md + page
    assert "| field | value |" in md and "|  |  |" not in md

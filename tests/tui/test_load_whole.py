"""A capture loaded in steps keeps the file's own bytes: read at once, fed a step at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_tui.core.discovery import discover
from replay_tui.core.trace import Form, Source, TraceBuilder, load_trace
from replay_tui.tui.loading import load_in_steps


def _event(delta: dict[str, object]) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}) + "\n\n"


def _calls(n: int) -> str:
    head = _event(
        {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}]}
    )
    more = _event({"tool_calls": [{"index": 0, "id": "", "function": {"arguments": "x"}}]})
    return head + more * n


CAPTURES = {
    "calls first": _calls(3000) + "data: [DONE]\n\n",
    "text first": _event({"content": "word " * 30_000}) + _calls(3000) + "data: [DONE]\n\n",
    "crlf": (_calls(2000) + "data: [DONE]\n\n").replace("\n", "\r\n"),
    "curl -i": "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
    + _calls(2000)
    + "data: [DONE]\n\n",
    "no done": _calls(2500),
}


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_a_capture_loaded_in_steps_keeps_the_files_bytes(tmp_path: Path, name: str) -> None:
    path = tmp_path / "t.sse"
    path.write_bytes(CAPTURES[name].encode() + (b"\xff\xfe" if name == "no done" else b""))
    source = discover([path]).sources[0]
    partials: list[object] = []
    trace = load_in_steps(source, on_partial=partials.append, first=4096, step=8192)
    assert trace is not None
    assert trace.raw == path.read_bytes()
    assert type(trace.raw) is bytes  # one buffer of its size, not one grown step by step
    whole = load_trace(source)
    assert trace.analysis.verdicts == whole.analysis.verdicts
    assert trace.analysis.deltas == whole.analysis.deltas > 0
    assert [n.kind for n in trace.notes] == [n.kind for n in whole.notes]
    assert [(p.line, p.data) for p in trace.payloads] == [(p.line, p.data) for p in whole.payloads]
    assert trace.errors == whole.errors
    assert trace.head == whole.head


def test_a_capture_read_whole_is_taken_only_when_it_starts_with_what_was_fed() -> None:
    source = Source(Path("t.sse"), "t.sse", Form.SSE)
    data = (_calls(50) + "data: [DONE]\n\n").encode()
    builder = TraceBuilder(source)
    builder.feed(data[:100])
    assert not builder.feed_from(b"something else" + data, len(data))
    assert builder.raw() == data[:100]
    assert builder.feed_from(data, 1000)
    assert builder.size == 1000 and builder.raw() == data[:1000]
    builder.feed(data[1000:])  # appended after it, as a capture still written is
    builder.close()
    trace = builder.build()
    assert trace.raw == data
    assert trace.analysis.deltas == load_trace(source, data).analysis.deltas == 51


def test_a_snapshot_fed_from_a_capture_read_whole_says_where_its_utf8_breaks() -> None:
    source = Source(Path("t.sse"), "t.sse", Form.SSE)
    good = _calls(20).encode()
    data = good + b"data: \xff\n\n" + b"data: [DONE]\n\n"
    builder = TraceBuilder(source)
    assert builder.feed_from(data, len(good))
    assert not any(n.kind == "invalid-utf8" for n in builder.build().notes)  # not read yet
    assert builder.feed_from(data, len(data))
    assert any(n.kind == "invalid-utf8" for n in builder.build().notes)

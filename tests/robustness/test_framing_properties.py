"""The SSE and chunk-log framers, held to the book and to themselves.

The SSE framer has fast paths for LF-only buffers (``_split_lf``, and ``_uniform`` for runs of
single-line events) that must agree, payload for payload and count for count, with the
general line loop and with a byte-at-a-time model of the WHATWG rules; and feeding a stream
in arbitrary pieces must frame it exactly as feeding it whole.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from replay_tui.core.jsonl import JsonlFramer
from replay_tui.core.sse import SseFramer, frame

from .profile import robust
from .reference import (
    GeneralPathFramer,
    UniformOffFramer,
    feed_all,
    framing_state,
    reference_frame,
)
from .strategies import jsonl_logs, splits, sse_streams, uniform_run


@robust()
@given(sse_streams())
@example(b"event: e\ndata: [DONE]\n\ndata: x\n\n")
@example(b"data: a\r\r\ndata: b\n\n")
@example(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n")
@example(b"data: [DONE]\n\n" + b"data: {}\n\n" * 70)
@example(b"data: {}\n\n" * 70 + b"data: [DONE]\n\n" + b"data: {}\n\n" * 3)
def test_framer_follows_the_whatwg_rules(body: bytes) -> None:
    framing = frame(body)
    assert framing_state(framing) == framing_state(reference_frame(body))
    for p in framing.payloads:  # origins point into the file
        span = body[p.start : p.end]
        assert span.startswith(b"data")
        assert span.endswith(p.data.rsplit(b"\n", 1)[-1])


@robust()
@given(st.data(), sse_streams())
def test_fast_paths_equal_the_general_path(data: st.DataObject, body: bytes) -> None:
    pieces = data.draw(splits(body))
    general, general_out = feed_all(GeneralPathFramer(), pieces)
    for framer in (SseFramer(), UniformOffFramer()):
        fr, out = feed_all(framer, pieces)
        assert framing_state(fr) == framing_state(general)
        assert out == general_out


@robust()
@given(st.data(), st.lists(uniform_run(), min_size=1, max_size=3), st.binary(max_size=40))
def test_uniform_runs_equal_the_general_path(
    data: st.DataObject, runs: list[bytes], tail: bytes
) -> None:
    body = b"".join(runs) + tail
    pieces = data.draw(splits(body))
    assert framing_state(feed_all(SseFramer(), pieces)[0]) == framing_state(
        feed_all(GeneralPathFramer(), [body])[0]
    )


@robust()
@given(st.data(), sse_streams())
def test_feeding_in_pieces_equals_feeding_whole(data: st.DataObject, body: bytes) -> None:
    pieces = data.draw(splits(body))
    whole, whole_out = feed_all(SseFramer(), [body])
    fr, out = feed_all(SseFramer(), pieces)
    assert framing_state(fr) == framing_state(whole)
    assert out == whole_out


@robust(scale=0.7)
@given(st.data(), jsonl_logs())
def test_chunk_log_in_pieces_equals_whole(data: st.DataObject, body: bytes) -> None:
    pieces = data.draw(splits(body))
    whole = JsonlFramer()
    feed_all(whole, [body])
    framer = JsonlFramer()
    feed_all(framer, pieces)
    assert framing_state(framer.framing) == framing_state(whole.framing)
    assert framer.prefixed == whole.prefixed
    for p in whole.framing.payloads:
        assert body[p.start : p.end].endswith(p.data)
        assert p.data == p.data.strip(b" \t\r")  # empty only for a bare 'data:' line


_VALUE = st.text(alphabet='{}[]":,a1 é', max_size=12)
_BETWEEN = st.sampled_from([None, None, ": kept alive", "event: x", "id: 7"])


@robust()
@given(
    st.lists(
        st.tuples(st.sampled_from(["data:", "data: "]), _VALUE, _BETWEEN), min_size=1, max_size=4
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_a_malformed_payload_is_placed_where_its_text_is_in_the_capture(
    lines: list[tuple[str, str, str | None]], end: str
) -> None:
    """Wherever the decoder stopped in the joined payload, the line and column the trace gives
    (``at column C`` on the payload's first line, else ``at line L, column C``) show the same
    text in the file: the data lines' prefixes, other fields and comments between them and
    every line ending are accounted for."""
    import json
    import re

    from replay_tui.core.trace import Form, Source, load_trace

    values, text = [], []
    for prefix, value, between in lines:
        if prefix == "data:" and value.startswith(" "):
            prefix = "data: "  # "data:" + " x" would lose that space to the framer
        values.append(value)
        text.append(prefix + value)
        if between is not None:
            text.append(between)
    payload = "\n".join(values)
    try:
        json.loads(payload)
    except json.JSONDecodeError as exc:
        stopped = payload.split("\n")[exc.lineno - 1][exc.colno - 1 :]
    else:
        return  # valid JSON: nothing to place
    if payload == "[DONE]":
        return
    body = (end.join(text) + end + end).encode()
    trace = load_trace(Source(Path("t.sse"), "t.sse", Form.SSE), body)
    [(first, message)] = trace.errors.items()
    assert first == 1
    place = re.search(r" at (?:line (\d+), )?column (\d+)$", message)
    assert place is not None, message
    line, column = int(place.group(1) or first), int(place.group(2))
    assert body.decode().split(end)[line - 1][column - 1 :] == stopped

"""Runs of single-line events, framed and decoded in bulk, against the one-by-one path.

The framer hands a run of ``data: …`` events over as columns (:class:`PayloadRun`) and the
trace builder decodes its data with one ``map`` of the typed decoder per batch; everything
else goes payload by payload. The two must not be told apart: same payloads, same framing
counts, same decoded chunks, same errors at the same lines, same analysis, same ``check``
result, however the capture arrives in pieces and wherever the batches are cut. Here runs
are taken from a single event on (``RUN_MIN = 1``) and batches are a few payloads long, so
that arbitrary small streams reach every seam.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from replay_tui.core import sse as sse_module
from replay_tui.core import trace as trace_module
from replay_tui.core.result import trace_result
from replay_tui.core.sse import Payload, PayloadRun, PayloadTable, SseFramer, expanded
from replay_tui.core.trace import Form, Trace, TraceBuilder

from .helpers import source, trace_summary
from .profile import robust
from .reference import GeneralPathFramer, feed_all, framing_state
from .strategies import payload_texts, splits, sse_streams


class EagerRunFramer(SseFramer):
    """The core framer cutting runs out from one event on."""

    __slots__ = ()
    RUN_MIN = 1


@contextmanager
def runs(run_min: int, batch: int | None = None, window: int | None = None) -> Iterator[None]:
    """Frame runs from ``run_min`` events on, decode ``batch`` payloads at a time, frame
    ``window`` bytes at a time."""
    saved = SseFramer.RUN_MIN, trace_module._BATCH, trace_module._WINDOW
    SseFramer.RUN_MIN = run_min
    if batch is not None:
        trace_module._BATCH = batch
    if window is not None:
        trace_module._WINDOW = window
    try:
        yield
    finally:
        SseFramer.RUN_MIN, trace_module._BATCH, trace_module._WINDOW = saved


def _events(
    texts: list[str], ending: bytes, prefix: bytes = b"data: ", field: bytes = b""
) -> bytes:
    """Events of one data line each, after a field line each when ``field`` (``%d`` in it:
    the event's number), each line ending ``ending`` (and the blank line too)."""
    eol = ending[: len(ending) // 2]
    field = field.replace(b"\n", eol)
    head = (lambda i: field.replace(b"%d", b"%d" % i) + eol) if field else (lambda i: b"")
    return b"".join(
        head(i) + prefix + t.encode("utf-8", "surrogatepass") + ending for i, t in enumerate(texts)
    )


def _run_stream(
    texts: list[str],
    odd: bytes,
    tail: list[str],
    eol: bytes,
    prefix: bytes,
    odd_eol: bytes,
    field: bytes,
) -> bytes:
    return (
        _events(texts, eol + eol, prefix, field)
        + odd.replace(b"\n", odd_eol)
        + _events(tail, eol + eol, prefix, field)
    )


_EOLS = st.sampled_from([b"\n", b"\r\n", b"\r"])

# A stream of single-line events, mostly: the shape runs are made of, with whatever payloads
# (broken JSON, odd shapes, [DONE] anywhere, text with line breaks) and an odd event between,
# each line ending LF, CRLF or CR (the odd event's own ending perhaps another: mixed), each
# value after "data: " or "data:", each event perhaps with a field line first (an id, a
# comment, an event name: the same, or not).
run_streams = st.builds(
    _run_stream,
    st.lists(payload_texts(), max_size=24),
    st.sampled_from([b"", b": ping\n\n", b"data: x\ndata: y\n\n", b"event: error\ndata: {}\n\n"]),
    st.lists(payload_texts(), max_size=6),
    _EOLS,
    st.sampled_from([b"data: ", b"data:"]),
    _EOLS,
    st.sampled_from(
        [
            *(b"", b"", b"id: %d", b": ping", b"event: delta", b"event:%d", b"data: x"),
            *(b"event: delta\nid: %d", b"id: %d\n: x\nretry: 5", b"id: %d\ndata: x"),
        ]
    ),
) | st.builds(lambda a, b: a + b, sse_streams(), sse_streams())


@robust()
@given(st.data(), run_streams)
@example(None, b"data: {}\n\n" * 3 + b"data: [DONE]\n\n" + b"data: [DONE]\n\ndata: {}\n\n")
@example(None, b"data: a\n\ndata: [DONE]\nid: 1\n\ndata: b\n\ndata: c\n\n")
@example(None, b"data: a\n\n: ping\n\ndata: b\n\n\ndata: c\n\ndata: d\ndata: e\n\ndata: f\n\n")
@example(None, b"\x00data: [DONE]\ndata: [DONE]\ndata: [DONE]\n\n")
@example(None, b"id: 1\ndata: x\ndata: y\n\nid: 2\ndata: z\n\nid: 3\ndata: w\n\n")
def test_runs_frame_as_the_general_path(data: st.DataObject | None, body: bytes) -> None:
    pieces = data.draw(splits(body)) if data is not None else [body]
    general, general_out = feed_all(GeneralPathFramer(), pieces)
    fr, out = feed_all(EagerRunFramer(), pieces)
    assert framing_state(fr) == framing_state(general)
    assert out == general_out


@robust()
@given(st.data(), run_streams, st.integers(0, 24))
@example(None, b"data: " + b"x" * 40 + b"\n\ndata: a\n\ndata: b\n\n", 8)
@example(None, b"data: " + b"x" * 40 + b"\r\n\r\ndata: a\r\n\r\ndata: b\r\n\r\n", 8)
@example(None, b"data: " + b"x" * 40 + b"\n\nid: 1\ndata: a\n\ndata: b\n\n", 8)
def test_a_long_first_event_is_cut_out_as_the_general_path_frames_it(
    data: st.DataObject | None, body: bytes, long: int
) -> None:
    """A run's first event longer than ``_LONG`` (a 50 MB string's) is cut out by
    itself: framed as the line-by-line path frames it (a small length here, so that every
    stream reaches it)."""
    pieces = data.draw(splits(body)) if data is not None else [body]
    general, general_out = feed_all(GeneralPathFramer(), pieces)
    saved = sse_module._LONG
    sse_module._LONG = long
    try:
        fr, out = feed_all(EagerRunFramer(), pieces)
    finally:
        sse_module._LONG = saved
    assert framing_state(fr) == framing_state(general)
    assert out == general_out


@robust()
@given(st.data(), run_streams)
def test_a_payload_table_from_runs_equals_one_from_payloads(
    data: st.DataObject, body: bytes
) -> None:
    pieces = data.draw(splits(body))
    framer = EagerRunFramer()
    columns, rows = PayloadTable(), PayloadTable()
    for piece in [*pieces, None]:
        items: list[Payload | PayloadRun] = (
            list(framer.close()) if piece is None else framer.feed_runs(piece)
        )
        for item in items:
            if isinstance(item, PayloadRun):
                columns.extend_run(item)
            else:
                columns.extend([item])
        rows.extend(expanded(items))
    assert columns.view(body) == rows.view(body)
    assert [p.after_done for p in columns.view(body)] == [p.after_done for p in rows.view(body)]


def test_a_uniform_stream_is_framed_as_one_run() -> None:
    """Not vacuous: the common shape does take the run path, and says where each payload is."""
    body = b"".join(b'data: {"n":%d}\n\n' % i for i in range(100)) + b"data: [DONE]\n\n"
    (run,) = SseFramer().feed_runs(body)
    assert isinstance(run, PayloadRun)
    assert (len(run), run.done, run.line, list(run.lines)[-1]) == (101, 100, 1, 201)
    starts = run.starts()
    assert [body[a:b] for a, b in zip(starts, run.ends(starts), strict=True)][:2] == [
        b'data: {"n":0}',
        b'data: {"n":1}',
    ]
    assert run.end(99) == body.index(b"\n\ndata: [DONE]")


def test_a_keep_alive_comment_costs_only_its_own_event() -> None:
    """The events either side of an odd one still come as runs."""
    events = [b'data: {"n":%d}\n\n' % i for i in range(200)]
    body = b"".join(events[:100]) + b": keep-alive\n\n" + b"".join(events[100:])
    items = SseFramer().feed_runs(body)
    assert [type(x).__name__ for x in items] == ["PayloadRun", "Payload", "PayloadRun"]
    assert [len(x) for x in items if isinstance(x, PayloadRun)] == [99, 100]
    assert expanded(items) == feed_all(GeneralPathFramer(), [body])[1]
    opened = b": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + b"".join(events)
    (run,) = SseFramer().feed_runs(opened)
    assert isinstance(run, PayloadRun)
    assert (len(run), run.line) == (200, 5)
    # (a comment line right before the first event: that event is framed with it)
    (_comment, run) = SseFramer().feed_runs(b": OPENROUTER PROCESSING\n" + b"".join(events))
    assert isinstance(run, PayloadRun)
    assert (len(run), run.line) == (199, 4)


@pytest.mark.parametrize(
    ("eol", "prefix"),
    [(b"\r\n", b"data: "), (b"\r", b"data: "), (b"\n", b"data:"), (b"\r\n", b"data:")],
)
def test_every_line_ending_and_spelling_takes_the_run_path(eol: bytes, prefix: bytes) -> None:
    """CRLF and CR captures, and values right after ``data:``, are cut into runs as LF ones
    are, with each payload's place in the file."""
    events = [prefix + b'{"n":%d}' % i + eol + eol for i in range(100)]
    # (a comment last: a CR ending the buffer could be half a CRLF, and would wait for more)
    body = b"".join(events) + prefix + b"[DONE]" + eol + eol + b":" + eol
    (run,) = SseFramer().feed_runs(body)
    assert isinstance(run, PayloadRun)
    assert (len(run), run.done, run.line, list(run.lines)[-1]) == (101, 100, 1, 201)
    starts = run.starts()
    assert [body[a:b] for a, b in zip(starts, run.ends(starts), strict=True)][:2] == [
        prefix + b'{"n":0}',
        prefix + b'{"n":1}',
    ]
    assert run.end(99) == body.index(eol + eol + prefix + b"[DONE]")
    assert expanded([run]) == feed_all(GeneralPathFramer(), [body])[1]


@pytest.mark.parametrize(
    "field", [b"id: %d", b"event: delta", b": keep-alive %d", b"event: delta\nid: %d"]
)
@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_events_with_a_field_line_each_take_the_run_path(field: bytes, eol: bytes) -> None:
    """An id, an event name, a comment (or two of them) before each data line (of different
    lengths): still one run, with each payload's line, place and event name; a keep-alive
    between costs its own event and the one after it."""
    texts = [f'{{"n":{i}}}' for i in range(200)]
    body = _events(texts[:100], eol + eol, field=field) + b": ping" + eol + eol
    body += _events(texts[100:], eol + eol, field=field) + b":" + eol
    framer = SseFramer()
    items = framer.feed_runs(body)
    assert [len(x) for x in items if isinstance(x, PayloadRun)] == [100, 99]
    run = items[0]
    assert isinstance(run, PayloadRun)
    k = field.count(b"\n") + 1  # field lines before each data line
    assert (run.line, list(run.lines)[:2]) == (k + 1, [k + 1, 2 * k + 3])
    starts = run.starts()
    assert [body[a:b] for a, b in zip(starts, run.ends(starts), strict=True)][:2] == [
        b'data: {"n":0}',
        b'data: {"n":1}',
    ]
    general, general_out = feed_all(GeneralPathFramer(), [body])
    assert expanded(items) + framer.close() == general_out
    framer.framing.payloads = general_out  # (compared above; the counts here)
    assert framing_state(framer.framing) == framing_state(general)
    assert {p.event for p in general_out} == {"delta" if b"event" in field else None}


def test_mixed_line_endings_are_framed_in_runs() -> None:
    """A CRLF capture with LF keep-alives between (a proxy's own lines), then, in a later
    read, CR endings: the events around the odd ones are still framed as runs, exactly as
    the line loop frames them."""
    crlf = [b'data: {"n":%d}\r\n\r\n' % i for i in range(200)]
    cr = [b'data: {"m":%d}\r\r' % i for i in range(100)]
    pieces = [b"".join(crlf[:100]) + b": keep-alive\n\n" + b"".join(crlf[100:]), b"".join(cr)]
    framer = SseFramer()
    items = [*framer.feed_runs(pieces[0]), *framer.feed_runs(pieces[1]), *framer.close()]
    # (the events either side of the keep-alive are framed with it, line by line; the last
    # CR waits for close: it could have been half a CRLF)
    assert [len(x) for x in items if isinstance(x, PayloadRun)] == [99, 99, 99]
    general, general_out = feed_all(GeneralPathFramer(), pieces)
    assert expanded(items) == general_out
    framer.framing.payloads = general_out  # (compared above; the counts here)
    assert framing_state(framer.framing) == framing_state(general)


def _built(pieces: list[bytes], *, lean: bool = False, keep: bool = False) -> Trace:
    builder = TraceBuilder(source(Form.SSE), lean=lean, keep_decoded=keep)
    for piece in pieces:
        builder.feed(piece)
    builder.close()
    return builder.build()


def _shown(trace: Trace) -> tuple[object, ...]:
    return (
        *trace_summary(trace),
        list(trace.decoded),
        trace.malformed_lines,
        trace.framing,
        trace.meta,
        trace.analysis.outcomes,
    )


@robust(scale=0.7)
@given(st.data(), run_streams, st.integers(1, 5), st.integers(1, 64))
@example(None, b'data: {"choices":[]}\n\ndata: {\n\ndata: [DONE]\n\ndata: 7\n\n', 1, 9)
@example(None, b"data: {}\n\ndata: [DONE]\nid: 1\n\ndata: {}\n\ndata: 1\n\n", 2, 64)
def test_traces_built_from_runs_equal_traces_built_payload_by_payload(
    data: st.DataObject | None, body: bytes, batch: int, window: int
) -> None:
    pieces = data.draw(splits(body)) if data is not None else [body]
    for lean, keep in ((False, False), (True, False), (False, True)):
        with runs(10**9):
            one_by_one = _built(pieces, lean=lean, keep=keep)
        with runs(1, batch, window):
            bulk = _built(pieces, lean=lean, keep=keep)
        assert trace_result(bulk) == trace_result(one_by_one)
        assert bulk.errors == one_by_one.errors
        if not lean:
            assert _shown(bulk) == _shown(one_by_one)


@robust()
@given(run_streams, st.integers(1, 64))
def test_windows_cover_the_capture_and_end_at_blank_lines(body: bytes, size: int) -> None:
    with runs(1, window=size):
        windows = list(trace_module._windows(body))
    assert b"".join(windows) == body
    blanks = (b"\n\n", b"\r\n\r\n", b"\r\r")
    for window in windows[:-1]:
        assert window.endswith(blanks) or not any(b in window[:size] for b in blanks)

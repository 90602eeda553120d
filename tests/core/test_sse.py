"""SSE framing, spec-strict (README, Trace files): lines, fields, dispatch, [DONE], origins."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.sse import SseFramer, frame


def payloads(body: bytes) -> list[tuple[bytes, int]]:
    return [(p.data, p.line) for p in frame(body).payloads]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(eol: bytes) -> None:
    body = eol.join([b"data: a", b"", b"data: b", b"", b""])
    assert payloads(body) == [(b"a", 1), (b"b", 3)]


def test_mixed_line_endings_and_a_leading_bom() -> None:
    body = b"\xef\xbb\xbfdata: a\r\n\ndata: b\r\r"
    fr = frame(body)
    assert [(p.data, p.line) for p in fr.payloads] == [(b"a", 1), (b"b", 3)]
    assert fr.bom and fr.payloads[0].start == 3


def test_only_one_space_after_the_colon_is_removed() -> None:
    assert payloads(b"data:x\n\ndata:  y\n\n") == [(b"x", 1), (b" y", 3)]


def test_multi_line_data_is_joined_with_newlines() -> None:
    fr = frame(b'data: {"a":\ndata: 1}\n\n')
    p = fr.payloads[0]
    assert (p.data, p.line, p.end_line) == (b'{"a":\n1}', 1, 2)


def test_comments_and_other_fields_are_not_data() -> None:
    body = b": OPENROUTER PROCESSING\nevent: error\nid: 7\nretry: 10\nfoo\ndata: x\n\n"
    fr = frame(body)
    assert [(p.data, p.line, p.event) for p in fr.payloads] == [(b"x", 6, "error")]
    assert fr.comments == 1
    assert fr.fields == {"event": 1, "id": 1, "retry": 1, "foo": 1}


def test_a_line_without_colon_named_data_is_an_empty_data_line() -> None:
    assert payloads(b"data\n\n") == [(b"", 1)]


def test_an_event_without_data_dispatches_nothing() -> None:
    assert payloads(b"event: ping\n\n: keep-alive\n\ndata: x\n\n") == [(b"x", 5)]


def test_only_a_blank_line_dispatches() -> None:
    fr = frame(b"data: a\ndata: b\n")
    assert fr.payloads == [] and fr.truncated_line == 1


def test_the_event_type_resets_after_dispatch() -> None:
    fr = frame(b"event: error\ndata: a\n\ndata: b\n\n")
    assert [p.event for p in fr.payloads] == ["error", None]


def test_a_final_done_without_its_blank_line_is_truncation() -> None:
    # As in the real Envoy capture: the harness never sees [DONE].
    fr = frame(b"data: x\n\ndata: [DONE]\n")
    assert fr.done_line is None and fr.truncated_line == 3


def test_payloads_after_done_are_kept_and_marked() -> None:
    fr = frame(b'data: x\n\ndata: [DONE]\n\ndata: {"cost":"0"}\n\n')
    assert [(p.data, p.after_done) for p in fr.payloads] == [
        (b"x", False),
        (b"[DONE]", False),
        (b'{"cost":"0"}', True),
    ]
    assert fr.done_line == 3


def test_byte_offsets_point_at_the_data_lines() -> None:
    body = b": c\r\ndata: ab\r\ndata: cd\r\n\r\n"
    p = frame(body).payloads[0]
    assert body[p.start : p.end] == b"data: ab\r\ndata: cd"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_feeding_in_pieces_equals_feeding_whole(size: int) -> None:
    body = (
        b"\xef\xbb\xbf: c\r\ndata: a\r\n\r\nevent: e\ndata: b\rdata: c\r\r"
        + b"data: x\n\n" * 100
        + b"data: [DONE]\n\n"
    )
    whole = frame(body)
    framer = SseFramer()
    payloads = []
    for i in range(0, len(body), size):
        payloads += framer.feed(body[i : i + size])
    payloads += framer.close()
    pieces = framer.framing
    assert payloads == whole.payloads
    assert (pieces.lines, pieces.done_line, pieces.comments) == (
        whole.lines,
        whole.done_line,
        whole.comments,
    )


def test_uniform_fast_path_matches_the_general_path() -> None:
    events = (
        b"".join(b'data: {"n":%d}\n\n' % i for i in range(200)) + b"data: [DONE]\n\ndata: {}\n\n"
    )
    fast = frame(events)
    slow = frame(events.replace(b"\n", b"\r\n"))  # CR forces the general path
    assert [(p.data, p.line, p.after_done) for p in fast.payloads] == [
        (p.data, p.line, p.after_done) for p in slow.payloads
    ]
    assert fast.done_line == slow.done_line == 401
    last = fast.payloads[-1]
    assert events[last.start : last.end] == b"data: {}"


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("prefix", [b"data: ", b"data:"])
def test_a_line_over_a_megabyte_held_then_ended_with_a_run_frames_as_fed_whole(
    eol: bytes, prefix: bytes
) -> None:
    # A 50 MB string comes to the framer as slices with no line ending (held), then the slice
    # that ends it, with a run of short events after: the long line is cut out of the joined
    # buffer in one copy; what is framed is what feeding the body whole frames.
    half = b"y" * (600 * 1024)
    short = b"".join(prefix + b'{"n":%d}' % i + eol + eol for i in range(12))
    body = prefix + b'"' + half + half + b'"' + eol + eol + short
    whole = SseFramer()
    expected = whole.feed(body) + whole.close()
    framer = SseFramer()
    got = framer.feed(prefix + b'"' + half)
    assert got == [] and framer._held == [] and framer.offset == len(prefix) + 1 + len(half)
    got += framer.feed(half)
    assert framer._held  # the middle of the line: held, not framed
    got += framer.feed(b'"' + eol + eol + short) + framer.close()
    assert [(p.data, p.line, p.start, p.end) for p in got] == [
        (p.data, p.line, p.start, p.end) for p in expected
    ]
    assert len(got) == 13 and got[0].data == b'"' + half + half + b'"'
    assert got[-1].data == b'{"n":11}' and got[-1].line == 25


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_a_long_line_fed_in_slices_is_framed_once_whole(eol: bytes) -> None:
    # The slices in the middle of a line (no line ending in them) are held, not framed: the
    # payloads, their offsets and the framer's offset are those of feeding it whole.
    long = b"data: " + b"x" * 5000 + eol + eol
    body = b"data: a" + eol + eol + long + b"data: b" + eol + b"data: c" + eol + eol + long
    whole = frame(body)
    framer = SseFramer()
    payloads = []
    for i in range(0, len(body), 512):
        payloads += framer.feed(body[i : i + 512])
        assert framer.offset == min(i + 512, len(body))
        if i == 1024:  # inside the first long line: nothing completes, nothing framed yet
            assert framer._held
    payloads += framer.close()
    assert payloads == whole.payloads and len(payloads) == 4
    starts = [body[p.start : p.start + 8] for p in payloads]
    assert starts == [b"data: a" + eol[:1], b"data: xx", b"data: b" + eol[:1], b"data: xx"]
    assert [len(p.data) for p in payloads] == [1, 5000, 3, 5000]


# --- against a reference: the WHATWG event-stream interpretation, line by line ----------------

_LINE = re.compile(rb"\r\n|\n|\r")


def _reference(body: bytes) -> tuple[list[tuple[Any, ...]], int, int | None, int]:
    """The stream as the HTML standard reads it (no code shared with the framer): each
    dispatched event as ``(data, first data line, last data line, start of its first data
    line, end of its last, event type, after the first [DONE])``; the lines, the [DONE]
    line, the comments."""
    pos = 3 if body.startswith(b"\xef\xbb\xbf") else 0
    events: list[tuple[Any, ...]] = []
    data: list[bytes] = []
    first = last = begin = stop = 0
    kind: str | None = None
    done: int | None = None
    comments = lineno = 0
    while pos < len(body):
        m = _LINE.search(body, pos)
        if m is None:
            break  # (a last line without its ending is not a line yet)
        line, start, end = body[pos : m.start()], pos, m.start()
        pos = m.end()
        lineno += 1
        if not line:
            if data:
                value = b"\n".join(data)
                events.append((value, first, last, begin, stop, kind, done is not None))
                if done is None and value == b"[DONE]":
                    done = first
            data, kind = [], None
        elif line.startswith(b":"):
            comments += 1
        else:
            name, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if name == b"data":
                if not data:
                    first, begin = lineno, start
                data.append(value)
                last, stop = lineno, end
            elif name == b"event":
                kind = value.decode("utf-8", "replace")
    return events, lineno, done, comments


_VALUES = st.sampled_from(
    [b"{}", b'{"a": 1,', b"  x", b"", b"[DONE]", b"data: y", b":", b"\xc3\xa9"]
)


@st.composite
def event_streams(draw: st.DrawFn) -> bytes:
    """Events of one or several data lines (with or without the space), comments, event
    types, ids; one line ending throughout, or any at each line; a [DONE] somewhere."""
    mixed = draw(st.integers(0, 4)) == 0
    fixed = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 150))):
        what = draw(st.integers(0, 9))
        if what == 0:
            lines.append(b": ping - " + draw(st.sampled_from([b"1", b"2"])))
        elif what == 1:
            lines += [b"event: " + draw(st.sampled_from([b"error", b"message"]))]
        elif what == 2:
            lines.append(b"id: 7")
        for _ in range(draw(st.integers(0 if what > 2 else 1, 6))):
            space = b" " if draw(st.integers(0, 5)) else b""
            lines.append(b"data:" + space + draw(_VALUES))
        if draw(st.integers(0, 20)):
            lines.append(b"")
    if draw(st.booleans()):
        lines += [b"data: [DONE]", b"", b"data: {}", b""]
    ends = [draw(st.sampled_from([b"\n", b"\r\n", b"\r"])) if mixed else fixed for _ in lines]
    return b"".join(line + end for line, end in zip(lines, ends, strict=True))


@settings(max_examples=300, deadline=None)
@given(event_streams(), st.integers(1, 64))
def test_framing_is_the_standards_reading(body: bytes, size: int) -> None:
    want, lines, done, comments = _reference(body)
    for pieces in ([body], [body[k : k + size * 97] for k in range(0, len(body), size * 97)]):
        framer = SseFramer()
        got = []
        for piece in pieces:
            got += framer.feed(piece)
        got += framer.close()
        fr = framer.framing
        assert [
            (p.data, p.line, p.end_line, p.start, p.end, p.event, p.after_done) for p in got
        ] == want
        assert (fr.done_line, fr.comments) == (done, comments)
        assert fr.lines == lines

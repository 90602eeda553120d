"""The compare view's comment lines, read off the capture's buffer without copying it whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.core.diff_events import _comments

from .helpers import trace_of

LINES = st.sampled_from([b"data: {}", b": ping", b":", b": keep-alive \xff", b"id: 1", b""])
ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@given(
    st.lists(st.tuples(LINES, ENDINGS), max_size=12), st.booleans(), st.booleans(), st.booleans()
)
def test_comment_lines_are_every_line_that_starts_with_a_colon(
    lines: list[tuple[bytes, bytes]], bom: bool, grown: bool, last: bool
) -> None:
    body = (b"\xef\xbb\xbf" if bom else b"") + b"".join(a + b for a, b in lines)
    if last:
        body += b": last, no line ending"
    trace = trace_of(body)
    if grown:  # the buffer of a capture read in slices, or followed while it is written
        trace.raw = bytearray(body)
    expected = [
        (n, line.decode("utf-8", "replace"))
        for n, line in enumerate(body.removeprefix(b"\xef\xbb\xbf").splitlines(), 1)
        if line.startswith(b":")
    ]
    assert (_comments(trace) if trace.framing.comments else expected) == expected
